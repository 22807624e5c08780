#!/usr/bin/env python3
"""Normalises `wasm-opt --fuzz-exec-before` output and fuzz/differential_runner
output into one comparable form (used by fuzz/differential.sh).

Kept lines: "[fuzz-exec] calling", "[fuzz-exec] note result", logging lines and
traps. Trap texts differ between engines, so a trap becomes "[trap]". Numbers
are respelled canonically: integers in decimal, other floats by Python's repr
(Binaryen prints floats in JavaScript's shortest form, sometimes in hex; weft's
driver prints "%.17g"), NaNs as "nan", and Binaryen's name for externref
("anyref" in Binaryen 108) as "externref".
"""
import re
import sys

TOKEN = re.compile(r"[^\s(),]+")


def number(tok):
    low = tok.lower()
    if low in ("anyref", "externref"):
        return "externref"
    if re.fullmatch(r"[+-]?nan(:0x[0-9a-f]+)?", low):
        return "nan"
    # Integers up to 2^53 compare exactly; beyond, a token may be a float that
    # Binaryen printed as an integer (with made-up low digits), so both sides
    # compare as doubles there (i64 results above 2^53 lose their low bits).
    if re.fullmatch(r"[+-]?\d+", tok) or re.fullmatch(r"[+-]?0x[0-9a-f]+", low):
        v = int(low, 16) if "x" in low else int(tok)
        return str(v) if abs(v) <= 2**53 else repr(float(v))
    try:
        f = float(tok)
    except ValueError:
        return tok
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    if f.is_integer() and abs(f) <= 2.0**53:
        return str(int(f))
    return repr(f)


def values(text):
    return TOKEN.sub(lambda m: number(m.group(0)), text)


def normalize(lines):
    out = []
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("[trap"):
            out.append("[trap]")
        elif line.startswith("[fuzz-exec] calling "):
            out.append(line)
        elif line.startswith("[fuzz-exec] note result: "):
            name, _, rest = line[len("[fuzz-exec] note result: "):].partition(" => ")
            out.append("[fuzz-exec] note result: %s => %s" % (name, values(rest)))
        elif line.startswith("[LoggingExternalInterface logging"):
            body = line[len("[LoggingExternalInterface logging"):].rstrip("]")
            out.append("[LoggingExternalInterface logging%s]" % values(body))
        elif line.startswith("[weft"):
            out.append(line)
    return out


if __name__ == "__main__":
    sys.stdout.write("".join(l + "\n" for l in normalize(open(sys.argv[1], errors="replace"))))
