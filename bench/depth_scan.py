#!/usr/bin/env python3
"""What one fiber switch costs at each call depth, on weft's JIT.

For each depth, runs bench/fibers/generator_depth.wat's `run` (the generator
yielding from DEPTH calls down) and `calls` (the same call chain with no
switch) REPEAT times each, at N round trips and at 0, and prints the medians of
(t(N) − t(0)) / N and their difference: the cost of the switch at that depth.
A finer, quicker companion to bench/run.py's depth sweep (docs/performance.md,
"Fiber switching").

    python3 bench/depth_scan.py [--weft build-bench/tools/weft] [--repeat 7] 1 16 64 ...
"""
import argparse
import resource
import subprocess
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def cpu_seconds(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weft", default="build-bench/tools/weft", help="the weft binary (default build-bench/tools/weft)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per case; the median is reported (default 7)")
    parser.add_argument("depths", nargs="+", type=int, help="call depths to measure")
    args = parser.parse_args()
    program = str(BENCH / "fibers" / "generator_depth.wat")
    for depth in args.depths:
        # ~60 ms of JIT time per run at every depth.
        n = max(300_000, 16_000_000 // (depth + 3))
        medians = {}
        for export in ("run", "calls"):
            samples = []
            for _ in range(args.repeat):
                base = [args.weft, "run", "--tier=jit", "--invoke", export, program]
                t = cpu_seconds(base + [str(n), str(depth)]) - cpu_seconds(base + ["0", str(depth)])
                samples.append(t / n * 1e9)
            samples.sort()
            medians[export] = samples[len(samples) // 2]
        print(f"depth {depth:4d}: fibers {medians['run']:7.1f} ns, plain calls {medians['calls']:7.1f} ns, "
              f"switch {medians['run'] - medians['calls']:6.1f} ns")


if __name__ == "__main__":
    main()
