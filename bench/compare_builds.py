#!/usr/bin/env python3
"""Two weft builds side by side on the kernels of bench/run.py (JIT tier by
default): one run of each build per round, rounds interleaved so the drift of
a shared machine hits both alike; medians of CPU time. For "behaviour and
speed unchanged" claims about a refactoring — build the old commit in a
worktree and compare:

    git worktree add ../weft-old COMMIT && cmake -S ../weft-old -B ../weft-old/build -G Ninja \\
        -DCMAKE_BUILD_TYPE=Release && ninja -C ../weft-old/build weft
    make bench-quick   # builds build-bench/bench-programs (the kernels' .wasm)
    bench/compare_builds.py ../weft-old/build/tools/weft build/tools/weft

The same build with two settings: give it twice, with --old-flags/--new-flags
(e.g. `--old-flags=--guard-regions=off`).

Usage: bench/compare_builds.py OLD_WEFT NEW_WEFT [--tier jit|interp] [--runs N]
       [--sizes full|jit] [--programs DIR (default build-bench/bench-programs/wasm)]
       [--old-flags "FLAGS"] [--new-flags "FLAGS"]  (`weft run` options for each side)
`--sizes jit` runs the kernels at bench/run.py's larger JIT sizes (~0.2-0.4 s
natively), where start-up and noise weigh less. Prints a Markdown table (times
include start-up and compilation), the geomean of new / old, and the minima
beside the medians. Asserts nothing about time.
"""
import argparse
import math
import shlex
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (bench/run.py: KERNELS, run_with_rusage)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--tier", default="jit", choices=("jit", "interp"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--programs", default=str(run.ROOT / "build-bench" / "bench-programs" / "wasm"))
    parser.add_argument("--old-flags", default="", help="weft run options for OLD")
    parser.add_argument("--new-flags", default="", help="weft run options for NEW")
    parser.add_argument("--sizes", default="full", choices=("full", "jit"), help="kernel sizes (bench/run.py KERNELS)")
    args = parser.parse_args()
    rows = []
    for kernel in run.KERNELS:
        module = Path(args.programs) / f"{kernel.name}.wasm"
        if not module.exists():
            print(f"compare_builds: {module} missing (run `make bench-quick` first)", file=sys.stderr)
            return 2
        times = {"old": [], "new": []}
        outputs = {}
        size = kernel.jit if args.sizes == "jit" else kernel.full
        for round_index in range(args.runs):
            for which in ("old", "new") if round_index % 2 == 0 else ("new", "old"):
                weft = getattr(args, which)
                flags = shlex.split(getattr(args, f"{which}_flags"))
                sample, out = run.run_with_rusage([weft, "run", f"--tier={args.tier}", *flags, str(module), size], 600)
                times[which].append(sample.cpu)
                outputs[which] = out
        if outputs["old"] != outputs["new"]:
            print(f"compare_builds: {kernel.name}: the builds print different results", file=sys.stderr)
            return 1
        rows.append((kernel.name, statistics.median(times["old"]), statistics.median(times["new"]),
                     min(times["old"]), min(times["new"])))
    print(f"| kernel ({args.tier}) | old (s CPU) | new (s CPU) | new / old | minima: new / old |\n|---|---|---|---|---|")
    for name, old, new, old_min, new_min in rows:
        print(f"| {name} | {old:.3f} | {new:.3f} | {new / old:.3f} | {new_min / old_min:.3f} |")
    geomean = math.exp(sum(math.log(r[2] / r[1]) for r in rows) / len(rows))
    geomean_min = math.exp(sum(math.log(r[4] / r[3]) for r in rows) / len(rows))
    print(f"| **geomean** | | | **{geomean:.3f}** | {geomean_min:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
