#!/usr/bin/env python3
"""Writes a large C program for the start-up benchmark (issue 16): PARTS
translation units with FUNCS functions each, every function different
(pseudo-random integer arithmetic, loops, switches, calls of earlier
functions), all reachable through one function table so that the linker keeps
them. main() exits at once unless given an argument (then it runs function
argv[1] and prints the result), so the program measures what an engine does
before a large program's first instruction — a program such as clang or
yosys printing its version.

usage: gen_large.py OUT_DIR PARTS FUNCS [SEED]   (deterministic for a seed)
"""
import random
import sys
from pathlib import Path


def expr(rng: random.Random, depth: int, names: list[str]) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(names + [str(rng.randrange(1, 1000))])
    op = rng.choice(["+", "-", "*", "^", "&", "|", ">>", "<<", "/", "%"])
    a, b = expr(rng, depth - 1, names), expr(rng, depth - 1, names)
    if op in (">>", "<<"):
        return f"({a} {op} ({b} & 15))"
    if op in ("/", "%"):
        return f"({a} {op} (({b} & 255) | 1))"
    return f"({a} {op} {b})"


def function(rng: random.Random, index: int, first: int) -> str:
    names = ["a", "b", "x", "y"]
    lines = [f"int f{index}(int a, int b) {{", "  int x = a, y = b;"]
    for _ in range(rng.randrange(6, 14)):
        kind = rng.random()
        if kind < 0.35:
            lines.append(f"  {rng.choice(['x', 'y'])} = {expr(rng, 3, names)};")
        elif kind < 0.55:
            bound = rng.randrange(2, 20)
            lines.append(f"  for (int i = 0; i < (a & {bound}); ++i) {{ x = {expr(rng, 2, names + ['i'])}; }}")
        elif kind < 0.75:
            cases = " ".join(f"case {c}: y = {expr(rng, 2, names)}; break;" for c in range(rng.randrange(3, 8)))
            lines.append(f"  switch (x & 7) {{ {cases} default: y ^= {rng.randrange(1, 99)}; }}")
        elif kind < 0.9 and index > first:
            callee = rng.randrange(first, index)
            lines.append(f"  if ((x & {rng.randrange(1, 64)}) == 0) y += f{callee}({expr(rng, 1, names)}, b);")
        else:
            lines.append(f"  if ({expr(rng, 2, names)} > {rng.randrange(0, 500)}) x = {expr(rng, 2, names)}; "
                         f"else y = {expr(rng, 2, names)};")
    lines.append("  return x ^ y;")
    lines.append("}")
    return "\n".join(lines)


def main() -> None:
    out, parts, funcs = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    out.mkdir(parents=True, exist_ok=True)
    total = parts * funcs
    for p in range(parts):
        rng = random.Random(seed * 1_000_003 + p)
        first = p * funcs
        body = [function(rng, first + i, first) for i in range(funcs)]
        (out / f"part{p}.c").write_text("\n".join(body) + "\n")
    table = [f"int f{i}(int, int);" for i in range(total)]
    table.append("typedef int (*fn)(int, int);")
    table.append("static fn const table[] = {" + ", ".join(f"f{i}" for i in range(total)) + "};")
    table.append("""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  if (argc < 2) return 0;
  const unsigned n = sizeof table / sizeof table[0];
  const unsigned i = (unsigned)atoi(argv[1]) % n;
  printf("f%u = %d\\n", i, table[i](argc, 7));
  return 0;
}""")
    (out / "main.c").write_text("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
