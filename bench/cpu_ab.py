#!/usr/bin/env python3
"""CPU time (user + sys, the process and its threads) of commands run side by
side: each round runs every command once, in turn, so the drift of a shared
machine hits them alike; prints the minimum and the median per command. For
one-off before/after claims on a single program (bench/compare_builds.py does
the kernels), e.g. a start-up:

    bench/cpu_ab.py 15 "OLD/tools/weft run big.wasm" "build-bench/tools/weft run big.wasm"

Usage: bench/cpu_ab.py ROUNDS COMMAND... (each COMMAND one shell-quoted string).
Output is discarded; a command that fails is reported and stops the run.
Asserts nothing about time.
"""
import resource
import shlex
import statistics
import subprocess
import sys


def cpu_ms(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"cpu_ab: exit status {done.returncode}: {shlex.join(command)}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> None:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = [shlex.split(c) for c in sys.argv[2:]]
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(rounds):
        for k, command in enumerate(commands):
            times[k].append(cpu_ms(command))
    for text, t in zip(sys.argv[2:], times):
        print(f"min {min(t):8.1f} ms  median {statistics.median(t):8.1f} ms  {text}")


if __name__ == "__main__":
    main()
