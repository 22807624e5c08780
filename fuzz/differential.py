#!/usr/bin/env python3
"""Differential testing of weft against Binaryen's interpreter (driven by
fuzz/differential.sh, which builds fuzz/differential_runner first).

For each of N modules: random bytes → `wasm-opt -ttf` (weft's features only,
NaNs removed with --denan) → `wasm-opt --fuzz-exec-before` (reference) and
`differential_runner` (weft) → both outputs normalised
(normalize_fuzz_exec.py) → compared. Disagreeing modules are kept in OUT_DIR
with the random input, the .wasm and both raw and normalised outputs.

usage: differential.py RUNNER N OUT_DIR   (environment: JOBS, DIFF_MIN_BYTES, DIFF_MAX_BYTES, SIMD)
"""
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from normalize_fuzz_exec import normalize  # noqa: E402

FEATURES = ["--mvp-features", "--enable-sign-ext", "--enable-mutable-globals",
            "--enable-nontrapping-float-to-int", "--enable-bulk-memory", "--enable-multivalue"]
# SIMD=1: the modules use SIMD too (v128 results print as Binaryen's
# "i32x4 0x… 0x… 0x… 0x…", which the normaliser compares lane by lane).
if os.environ.get("SIMD"):
    FEATURES.append("--enable-simd")


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode(errors="replace") + "\n[timeout]\n"


def one(args):
    index, runner, out_dir = args
    lo = int(os.environ.get("DIFF_MIN_BYTES", 1000))
    hi = int(os.environ.get("DIFF_MAX_BYTES", 10000))
    work = tempfile.mkdtemp(prefix="weft-diff-")
    try:
        with open(os.path.join(work, "in.dat"), "wb") as f:
            f.write(os.urandom(random.randint(lo, hi)))
        wasm = os.path.join(work, "gen.wasm")
        rc, _ = run(["wasm-opt", os.path.join(work, "in.dat"), "-ttf"] + FEATURES + ["--denan", "-o", wasm])
        if rc != 0:
            return "skipped", 0, 0
        _, ref = run(["wasm-opt", wasm] + FEATURES + ["--fuzz-exec-before", "-q"])
        rc, mine = run([runner, wasm])
        ref_n, mine_n = normalize(ref.splitlines()), normalize(mine.splitlines())
        if rc == 3:
            verdict = "unsupported"
        elif rc != 0 or ref_n != mine_n:
            verdict = "mismatch"
        else:
            # One run is one export call; v128 results are counted apart.
            calls = sum(1 for line in ref_n if line.startswith("[fuzz-exec] calling "))
            vectors = sum(line.count("i32x4") for line in ref_n if line.startswith("[fuzz-exec] note result: "))
            return "agree", calls, vectors
        for name, text in (("ref.raw", ref), ("weft.raw", mine), ("ref.txt", "\n".join(ref_n) + "\n"),
                           ("weft.txt", "\n".join(mine_n) + "\n")):
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        shutil.copytree(work, os.path.join(out_dir, "%s-%d" % (verdict, index)))
        return verdict, 0, 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    runner, n, out_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    counts = {"agree": 0, "mismatch": 0, "unsupported": 0, "skipped": 0}
    runs = vectors = 0
    with multiprocessing.Pool(int(os.environ.get("JOBS", 2))) as pool:
        for done, (verdict, calls, v128s) in enumerate(
                pool.imap_unordered(one, [(i, runner, out_dir) for i in range(n)]), 1):
            counts[verdict] += 1
            runs += calls
            vectors += v128s
            if done % 500 == 0:
                print("... %d modules: %s" % (done, counts), flush=True)
    print("differential: %d agreed, %d mismatched, %d unsupported, %d not generated"
          " (agreeing modules: %d runs, %d v128 results)"
          % (counts["agree"], counts["mismatch"], counts["unsupported"], counts["skipped"], runs, vectors))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
