#!/usr/bin/env python3
"""weft benchmark driver: `make bench` (full) and `make bench-quick` (smoke run).

Builds the benchmark programs into BUILD_DIR/bench-programs, runs every engine
on every benchmark round-robin (one run of each engine, then the next round:
the machine is shared and noisy, so drift hits all engines alike), takes
medians, subtracts each engine's start-up (the empty program), checks every
checksum against the native build, and prints one Markdown table plus the
P1-P8 summary lines of ../shared/design/performance.md.

Times are medians of CPU time (user + sys, from wait4, which also gives the
peak RSS) by default: the machines here are shared and loaded, and wall time
there measures the other tenants as much as the program; `--clock wall`
switches. P8 (start-up) is always wall time, as its target says. Nothing here asserts a time: the exit status
is non-zero only when a checksum mismatches, a program fails, or a build fails.

P7 (compile speed) runs bench/compile_speed, which the driver builds in
BUILD_DIR, on a large module it generates with `wasm-opt -ttf`.

Usage: bench/run.py [--quick] [--build-dir DIR] [--runs N] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
FNV64_OFFSET, FNV64_PRIME = 14695981039346656037, 1099511628211


# ---------------------------------------------------------------------------
# Benchmarks and their sizes (argv[1]). Full sizes run ~0.1 s natively (the
# kernels' own defaults run 0.3-1 s): weft's interpreter then takes ~1 s and
# wabt's ~15 s per run, which keeps `make bench` near half an hour on a loaded
# 2-core VM; the engines' start-up (up to 0.2 s CPU for node) is subtracted.
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Kernel:
    name: str
    full: str
    quick: str


KERNELS = [
    Kernel("fib", "37", "25"),
    Kernel("sieve", "6000000", "300000"),
    Kernel("nbody", "800000", "20000"),
    Kernel("matmul_int", "440", "100"),
    Kernel("matmul_double", "450", "100"),
    Kernel("hash", "1000", "20"),
    Kernel("quicksort", "700000", "30000"),
    Kernel("mandelbrot", "920", "150"),
    Kernel("interp", "18000", "1000"),
    Kernel("crc32", "27", "1"),
    Kernel("strings", "70000", "2000"),
]

# Fiber benchmarks: sizes (full, quick).
P2_YIELDS = (10_000_000, 500_000)
P4_FRESH = (1_000_000, 20_000)        # fibers created and left fresh (all live at once)
P4_CREATE = (100_000, 20_000)         # fibers created and resumed once (all stay suspended);
                                      # 1M of them would need ~12 GB resident (see docs/performance.md)
P4_ROUND_ROBIN = (50_000, 2_000)     # fibers in the scheduler, each yielding 100 times
P4_YIELDS = 100

# P7: random bytes fed to `wasm-opt -ttf` (full, quick): 12 MiB give a ~2.2 MB
# code section of ~14,500 functions (generated once, ~30 s), 1 MiB ~0.18 MB.
P7_SEED_MIB = (12, 1)
P7_REPS = (11, 3)
TTF_FEATURES = ["--mvp-features", "--enable-sign-ext", "--enable-bulk-memory", "--enable-multivalue",
                "--enable-nontrapping-float-to-int", "--enable-mutable-globals"]

TARGETS = {
    "P1": "weft / Boost ≤ 1.0",
    "P2": "interpreter ≤ 10× native Boost.Context generator (JIT ≤ 3×)",
    "P3": "weft JIT ≥ 10× faster than Asyncify on V8",
    "P4": "1,000,000 live fibers; ≤ 8 KiB RSS per suspended fiber; create + first resume ≤ 1 µs",
    "P5": "interpreter geomean ≤ 9× native",
    "P6": "JIT geomean ≤ 1.7× native",
    "P7": "JIT compile speed ≥ 100 MB/s",
    "P8": "weft run of an empty WASI module ≤ 5 ms wall",
}


class BenchError(Exception):
    """A failed build, a failed run or a checksum mismatch."""


# ---------------------------------------------------------------------------
# Running and measuring one process
# ---------------------------------------------------------------------------
@dataclass
class Sample:
    wall: float      # seconds
    cpu: float       # seconds, user + sys
    maxrss_kib: int  # peak resident set size


def run_with_rusage(cmd: list[str], timeout: float) -> tuple[Sample, str]:
    """Runs cmd; returns wall time, CPU time and peak RSS (from wait4) and its stdout.
    Raises BenchError on a non-zero exit or a timeout."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = start + timeout
    # The pipes are drained by threads (a full pipe would block the child)
    # while wait4 reaps it, which is what yields its rusage.
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []

    def drain(stream, chunks):
        for chunk in iter(lambda: stream.read(65536), b""):
            chunks.append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, out_chunks), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err_chunks), daemon=True)]
    for reader in readers:
        reader.start()
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}")
        time.sleep(0.0005)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    out = b"".join(out_chunks).decode(errors="replace")
    if proc.returncode != 0:
        err = b"".join(err_chunks).decode(errors="replace")
        raise BenchError(f"exit status {proc.returncode}: {' '.join(cmd)}\n{err[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss), out


def fnv64(data: bytes) -> int:
    h = FNV64_OFFSET
    for byte in data:
        h = ((h ^ byte) * FNV64_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def median(values: list[float]) -> float:
    return statistics.median(values) if values else math.nan


def geomean(values: list[float]) -> float:
    good = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in good) / len(good)) if good else math.nan


# ---------------------------------------------------------------------------
# Building the programs (each step only when its output is older than its inputs)
# ---------------------------------------------------------------------------
def stale(output: Path, inputs: list[Path]) -> bool:
    return not output.exists() or any(p.stat().st_mtime > output.stat().st_mtime for p in inputs)


def build_step(output: Path, inputs: list[Path], cmd: list[str], log: list[str]) -> None:
    if not stale(output, inputs):
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    log.append(" ".join(cmd))
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise BenchError(f"build failed: {' '.join(cmd)}\n{result.stdout}")


WASI_CFLAGS = ["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2"]


@dataclass
class Programs:
    """Paths of everything built; kernels map name -> {variant: path}."""
    kernels: dict[str, dict[str, Path]] = field(default_factory=dict)
    generator_boost: Path | None = None
    generator_asyncify: Path | None = None
    compile_module: Path | None = None


def build_programs(out: Path, quick: bool, log: list[str]) -> Programs:
    programs = Programs()
    harness = BENCH / "kernels" / "harness"
    sources = [(k.name, BENCH / "kernels" / f"{k.name}.c", k.quick if quick else k.full) for k in KERNELS]
    sources.append(("empty", BENCH / "startup" / "empty.c", ""))
    for name, src, size in sources:
        native = out / "native" / name
        wasm = out / "wasm" / f"{name}.wasm"
        # wasm-interp cannot pass arguments, so the size is compiled in: one
        # file per size (quick and full differ).
        no_wasi = out / "no-wasi" / f"{name}-{size or 'default'}.wasm"
        build_step(native, [src], ["gcc", "-O2", str(src), "-o", str(native), "-lm"], log)
        build_step(wasm, [src], WASI_CFLAGS + [str(src), "-o", str(wasm), "-lm"], log)
        build_step(no_wasi, [src, harness / "no_wasi.c", harness / "no_wasi.h"],
                   WASI_CFLAGS + ["-nostartfiles", "-Wl,--no-entry", "-include", str(harness / "no_wasi.h"),
                                  f'-DBENCH_ARG="{size}"', str(src), str(harness / "no_wasi.c"),
                                  "-o", str(no_wasi), "-lm"], log)
        programs.kernels[name] = {"native": native, "wasm": wasm, "no-wasi": no_wasi}

    # P2 reference: Boost.Context generator (static, so a switch is a direct call).
    src = BENCH / "native" / "generator_boost.cc"
    programs.generator_boost = out / "native" / "generator_boost"
    build_step(programs.generator_boost, [src],
               ["g++", "-O2", "-std=c++20", str(src), "-o", str(programs.generator_boost),
                "-Wl,-Bstatic", "-lboost_context", "-Wl,-Bdynamic"], log)

    # P3: C generator -> wasm32-wasi -> Asyncify. Compile and link are separate
    # steps: clang -O2 at link time runs wasm-opt itself (when on PATH), which
    # inlines the generator away and drops the name section the only-list needs.
    src = BENCH / "native" / "generator_asyncify.c"
    obj = out / "wasm" / "generator_asyncify.o"
    linked = out / "wasm" / "generator_asyncify.pre.wasm"
    programs.generator_asyncify = out / "wasm" / "generator_asyncify.wasm"
    build_step(obj, [src], WASI_CFLAGS + ["-c", str(src), "-o", str(obj)], log)
    build_step(linked, [obj], ["clang", "--target=wasm32-wasi", "--sysroot=/usr", str(obj), "-o", str(linked)], log)
    build_step(programs.generator_asyncify, [linked],
               ["wasm-opt", "--asyncify", "--pass-arg=asyncify-onlylist@count_up,yield_value", "-O2",
                str(linked), "-o", str(programs.generator_asyncify)], log)

    # P7: a large import-light module (four fuzzing-support.log-* imports, no
    # start function) generated by Binaryen from fixed pseudo-random bytes.
    mib = P7_SEED_MIB[1 if quick else 0]
    seed = out / "compile-speed" / f"seed-{mib}m.bin"
    programs.compile_module = out / "compile-speed" / f"ttf-{mib}m.wasm"
    if not seed.exists():
        seed.parent.mkdir(parents=True, exist_ok=True)
        seed.write_bytes(random.Random(7).randbytes(mib << 20))
    build_step(programs.compile_module, [seed],
               ["wasm-opt", "-ttf", str(seed)] + TTF_FEATURES + ["-o", str(programs.compile_module)], log)
    return programs


# ---------------------------------------------------------------------------
# Engines
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Engine:
    name: str
    prefix: tuple[str, ...]   # command before the module
    variant: str              # which build of a kernel it runs: native, wasm, no-wasi


def weft_has_jit(weft: Path) -> bool:
    """The JIT column appears once `weft run --help` offers a jit tier."""
    help_text = subprocess.run([str(weft), "run", "--help"], stdout=subprocess.PIPE, text=True).stdout
    return re.search(r"--tier\b[^\n]*\bjit\b", help_text) is not None


def node_command() -> tuple[str, ...]:
    """node with WASI enabled: before node 20 (Debian 12 ships 18) it needs a flag."""
    version = subprocess.run(["node", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    major = int(re.match(r"v(\d+)", version).group(1)) if re.match(r"v(\d+)", version) else 20
    return ("node", "--no-warnings") + (("--experimental-wasi-unstable-preview1",) if major < 20 else ())


def make_engines(weft: Path, jit: bool) -> list[Engine]:
    node = node_command()
    runner = str(BENCH / "node_wasi.mjs")
    engines = [
        Engine("native", (), "native"),
        Engine("weft-interp", (str(weft), "run", "--tier=interp"), "wasm"),
    ]
    if jit:
        engines.append(Engine("weft-jit", (str(weft), "run", "--tier=jit"), "wasm"))
    engines += [
        Engine("node", node + (runner,), "wasm"),
        Engine("liftoff", node + ("--liftoff", "--no-wasm-tier-up", runner), "wasm"),
        Engine("turbofan", node + ("--no-liftoff", runner), "wasm"),
        Engine("wasm-interp", ("wasm-interp", "--dummy-import-func", "--run-all-exports"), "no-wasi"),
    ]
    return engines


def kernel_command(engine: Engine, program: Path, size: str) -> list[str]:
    if engine.variant == "no-wasi":
        return list(engine.prefix) + [str(program)]  # size compiled in
    return list(engine.prefix) + [str(program)] + ([size] if size else [])


def check_output(engine: Engine, output: str, expected: str) -> bool:
    """Checksums: the printed text must equal the native program's; wasm-interp
    prints `run() => i64:H` where H is the FNV-1a hash of that text."""
    if engine.variant != "no-wasi":
        return output == expected
    match = re.search(r"run\(\) => i64:(-?\d+)", output)
    return match is not None and int(match.group(1)) % (1 << 64) == fnv64(expected.encode())


# ---------------------------------------------------------------------------
# The runs
# ---------------------------------------------------------------------------
def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_round_robin(cases: dict[str, list[str]], runs: int, timeout: float,
                        check=None, limit: dict[str, int] | None = None) -> dict[str, list[Sample]]:
    """Runs every case once per round, `runs` rounds (a case in `limit` only in
    its first limit[case] rounds); check(case, stdout) -> error or None."""
    samples: dict[str, list[Sample]] = {case: [] for case in cases}
    for round_index in range(runs):
        for case, cmd in cases.items():
            if limit and round_index >= limit.get(case, runs):
                continue
            sample, out = run_with_rusage(cmd, timeout)
            if check is not None:
                problem = check(case, out)
                if problem:
                    raise BenchError(f"checksum mismatch: {case}: {problem}")
            samples[case].append(sample)
    return samples


def run_kernels(programs: Programs, engines: list[Engine], quick: bool, runs: int, floor_runs: int,
                only: set[str] | None, timeout: float, clock: str) -> tuple[dict, dict, dict]:
    """Returns (kernel -> engine -> median seconds after start-up, engine -> start-up
    seconds on `clock`, engine -> start-up wall seconds)."""
    names = ["empty"] + [k.name for k in KERNELS if only is None or k.name in only]
    sizes = {k.name: (k.quick if quick else k.full) for k in KERNELS}
    sizes["empty"] = ""
    raw: dict[str, dict[str, float]] = {}
    for name in names:
        native_out = subprocess.run([str(programs.kernels[name]["native"])] + ([sizes[name]] if sizes[name] else []),
                                    stdout=subprocess.PIPE, text=True, check=True).stdout
        cases = {e.name: kernel_command(e, programs.kernels[name][e.variant], sizes[name]) for e in engines}
        by_name = {e.name: e for e in engines}

        def check(engine_name: str, out: str) -> str | None:
            if check_output(by_name[engine_name], out, native_out):
                return None
            return f"expected {native_out.strip()!r}, got {out.strip()[:200]!r}"

        started = time.perf_counter()
        samples = measure_round_robin(cases, runs, timeout, check, {"wasm-interp": floor_runs})
        raw[name] = {e: median([getattr(s, clock) for s in v]) for e, v in samples.items()}
        if name == "empty":
            startup_wall = {e: median([s.wall for s in v]) for e, v in samples.items()}
        progress(f"  {name:14s} " + " ".join(f"{e}={raw[name][e] * 1e3:.0f}ms" for e in raw[name]) +
                 f"  ({time.perf_counter() - started:.0f} s, checksums ok)")
    startup = raw.pop("empty")
    net = {k: {e: max(t - startup[e], 1e-6) for e, t in per.items()} for k, per in raw.items()}
    return net, startup, startup_wall


@dataclass
class FiberResults:
    p2_boost_ns: float = math.nan
    p2_weft_ns: float = math.nan
    p2_jit_ns: float = math.nan
    p3_node_ns: float = math.nan
    p3_weft_ns: float = math.nan
    p4_fresh: int = 0
    p4_fresh_ns: float = math.nan
    p4_fresh_bytes: float = math.nan
    p4_fibers: int = 0
    p4_create_us: float = math.nan
    p4_rss_kib: float = math.nan
    p4_rr_fibers: int = 0
    p4_switch_ns: float = math.nan


def run_fibers(programs: Programs, weft: Path, jit: bool, quick: bool, runs: int, timeout: float,
               clock: str) -> FiberResults:
    pick = 1 if quick else 0
    n = P2_YIELDS[pick]
    generator_wat = str(BENCH / "fibers" / "generator.wat")
    green_wat = str(BENCH / "fibers" / "green_threads.wat")
    node = list(node_command()) + [str(BENCH / "node_wasi.mjs")]
    boost = str(programs.generator_boost)
    asyncify = str(programs.generator_asyncify)
    n_fresh, n_create, n_rr = P4_FRESH[pick], P4_CREATE[pick], P4_ROUND_ROBIN[pick]
    # Each case at size N and at 0; the difference is the work itself.
    cases = {
        "boost": [boost, str(n)], "boost0": [boost, "0"],
        "weft": [str(weft), "run", "--invoke", "run", generator_wat, str(n)],
        "weft0": [str(weft), "run", "--invoke", "run", generator_wat, "0"],
        "asyncify-node": node + [asyncify, str(n)], "asyncify-node0": node + [asyncify, "0"],
        "asyncify-weft": [str(weft), "run", asyncify, str(n)], "asyncify-weft0": [str(weft), "run", asyncify, "0"],
        "fresh": [str(weft), "run", "--invoke", "fresh", green_wat, str(n_fresh)],
        "fresh0": [str(weft), "run", "--invoke", "fresh", green_wat, "0"],
        "create": [str(weft), "run", "--invoke", "create", green_wat, str(n_create)],
        "create0": [str(weft), "run", "--invoke", "create", green_wat, "0"],
        "rr": [str(weft), "run", "--invoke", "run", green_wat, str(n_rr), str(P4_YIELDS)],
        "rr0": [str(weft), "run", "--invoke", "run", green_wat, "0", str(P4_YIELDS)],
    }
    if jit:  # P2 and P3 are JIT targets: the generator on the jit tier too
        cases["weft-jit"] = [str(weft), "run", "--tier=jit", "--invoke", "run", generator_wat, str(n)]
        cases["weft-jit0"] = [str(weft), "run", "--tier=jit", "--invoke", "run", generator_wat, "0"]
    gauss = lambda k: k * (k - 1) // 2  # noqa: E731  sum 0 + 1 + ... + k-1
    expected = {"boost": gauss(n), "weft": gauss(n), "weft-jit": gauss(n), "asyncify-node": gauss(n),
                "asyncify-weft": gauss(n),
                "fresh": n_fresh, "create": gauss(n_create), "rr": P4_YIELDS * gauss(n_rr)}
    expected.update({case + "0": 0 for case in list(expected)})

    def check(case: str, out: str) -> str | None:
        got = out.strip().splitlines()[-1] if out.strip() else ""
        return None if got == str(expected[case]) else f"expected {expected[case]}, got {got!r}"

    samples = measure_round_robin(cases, runs, timeout, check)
    seconds = {case: median([getattr(s, clock) for s in v]) for case, v in samples.items()}
    rss = {case: median([float(s.maxrss_kib) for s in v]) for case, v in samples.items()}
    per = lambda case, count: (seconds[case] - seconds[case + "0"]) / count  # noqa: E731
    results = FiberResults(
        p2_boost_ns=per("boost", n) * 1e9, p2_weft_ns=per("weft", n) * 1e9,
        p2_jit_ns=per("weft-jit", n) * 1e9 if jit else math.nan,
        p3_node_ns=per("asyncify-node", n) * 1e9, p3_weft_ns=per("asyncify-weft", n) * 1e9,
        p4_fresh=n_fresh, p4_fresh_ns=per("fresh", n_fresh) * 1e9,
        p4_fresh_bytes=(rss["fresh"] - rss["fresh0"]) * 1024 / n_fresh,
        p4_fibers=n_create, p4_create_us=per("create", n_create) * 1e6,
        p4_rss_kib=(rss["create"] - rss["create0"]) / n_create,
        p4_rr_fibers=n_rr, p4_switch_ns=per("rr", n_rr * (P4_YIELDS + 1)) * 1e9)
    progress(f"  fibers: P2 boost {results.p2_boost_ns:.1f} ns, weft {results.p2_weft_ns:.1f} ns; "
             f"P3 asyncify node {results.p3_node_ns:.1f} ns, weft {results.p3_weft_ns:.1f} ns; "
             f"P4 {results.p4_fresh} fresh {results.p4_fresh_bytes:.0f} B/fiber, "
             f"create {results.p4_create_us:.2f} us, {results.p4_rss_kib:.2f} KiB/fiber, "
             f"switch {results.p4_switch_ns:.1f} ns (checksums ok)")
    return results


def run_p1(fiber_switch: Path | None, quick: bool) -> tuple[float, float] | None:
    """P1 from bench/fiber_switch.cc: median ping-pong round trip (ns), weft and Boost."""
    if fiber_switch is None or not fiber_switch.exists():
        return None
    cmd = [str(fiber_switch), "--benchmark_filter=PingPong", "--benchmark_format=json",
           "--benchmark_enable_random_interleaving=true", "--benchmark_report_aggregates_only=true",
           f"--benchmark_repetitions={3 if quick else 10}"]
    if quick:
        cmd.append("--benchmark_min_time=0.05")
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise BenchError(f"fiber_switch failed:\n{result.stderr}")
    report = json.loads(result.stdout)
    for bench in report["benchmarks"]:
        if bench.get("error_occurred"):
            raise BenchError(f"fiber_switch: {bench['name']}: {bench.get('error_message')}")
    medians = {b["run_name"]: b["cpu_time"] for b in report["benchmarks"] if b.get("aggregate_name") == "median"}
    return medians["BM_PingPong_Weft"], medians["BM_PingPong_Boost"]


def run_p7(build_dir: Path, module: Path, quick: bool) -> dict[str, float]:
    """P7 from bench/compile_speed.cc: code-section MB/s of instantiation on each
    tier (medians; the JIT tier compiles, the interpreter tier translates)."""
    # `make bench` builds only weft and fiber_switch; ninja makes this a no-op
    # once compile_speed is up to date.
    build = subprocess.run(["cmake", "--build", str(build_dir), "--target", "compile_speed"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if build.returncode != 0:
        raise BenchError(f"build failed: compile_speed\n{build.stdout[-2000:]}")
    cmd = [str(build_dir / "bench" / "compile_speed"), str(module), str(P7_REPS[1 if quick else 0])]
    _, out = run_with_rusage(cmd, 600.0)
    values = {key: float(value) for key, value in (line.split() for line in out.splitlines() if line.strip())}
    progress(f"  compile speed: {values['code_bytes'] / 1e6:.2f} MB code section, "
             f"jit {values['jit_mbps']:.2f} MB/s, interpreter translation {values['interp_mbps']:.2f} MB/s "
             f"({values['jit_fallbacks']:.0f} fallbacks)")
    return values


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
def fmt_ms(seconds: float) -> str:
    return "—" if not math.isfinite(seconds) else f"{seconds * 1e3:.1f}" if seconds < 1 else f"{seconds * 1e3:.0f}"


def fmt_ratio(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.2f}" if value < 10 else f"{value:.1f}"


def verdict(met: bool) -> str:
    return "**met**" if met else "**missed**"


def report(net: dict, startup: dict, startup_wall: dict, engines: list[Engine], fibers: FiberResults | None,
           p1: tuple[float, float] | None, jit: bool, p7: dict[str, float] | None = None) -> str:
    names = [e.name for e in engines]
    peers = [e for e in names if e not in ("weft-interp", "weft-jit")]
    lines = []
    header = ["benchmark"] + [f"{e} ms" for e in names] + [f"weft/{p}" for p in peers]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for kernel, times in net.items():
        row = [kernel] + [fmt_ms(times[e]) for e in names]
        row += [fmt_ratio(times["weft-interp"] / times[p]) for p in peers]
        lines.append("| " + " | ".join(row) + " |")
    # Geomean row: engine columns hold each engine's geomean of engine/native.
    if net:
        row = ["**geomean** (× native)"]
        row += [fmt_ratio(geomean([t[e] / t["native"] for t in net.values()])) + "×" for e in names]
        row += [fmt_ratio(geomean([t["weft-interp"] / t[p] for t in net.values()])) for p in peers]
        lines.append("| " + " | ".join(row) + " |")
    row = ["start-up (empty program; subtracted above)"] + [fmt_ms(startup[e]) for e in names] + [""] * len(peers)
    lines.append("| " + " | ".join(row) + " |")
    if not jit:
        lines.append("")
        lines.append("weft-jit: JIT not built (`weft run --help` offers no jit tier) — no column.")

    lines.append("")
    lines.append("| target | measured (this run) | reference (this run) | target | verdict |")
    lines.append("|---|---|---|---|---|")

    def target_row(p: str, measured: str, reference: str, result: str) -> None:
        lines.append(f"| {p} | {measured} | {reference} | {TARGETS[p]} | {result} |")

    if p1:
        weft_ns, boost_ns = p1
        target_row("P1", f"weft ping-pong {weft_ns:.2f} ns", f"Boost.Context {boost_ns:.2f} ns",
                   f"{weft_ns / boost_ns:.2f}× → {verdict(weft_ns / boost_ns <= 1.0)}")
    else:
        target_row("P1", "fiber_switch not built", "—", "not measured")
    if fibers:
        f = fibers
        ratio = f.p2_weft_ns / f.p2_boost_ns
        jit_ratio = f.p2_jit_ns / f.p2_boost_ns
        target_row("P2", f"weft-interp {f.p2_weft_ns:.1f} ns per resume+suspend"
                   + (f", weft-jit {f.p2_jit_ns:.1f} ns" if jit else ""),
                   f"Boost.Context generator {f.p2_boost_ns:.1f} ns",
                   f"interp {ratio:.1f}× → {verdict(ratio <= 10)}; "
                   + (f"JIT {jit_ratio:.1f}× → {verdict(jit_ratio <= 3)}" if jit else "JIT: not built"))
        speedup = f.p3_node_ns / f.p2_weft_ns
        jit_speedup = f.p3_node_ns / f.p2_jit_ns
        target_row("P3", f"weft-interp generator {f.p2_weft_ns:.1f} ns; Asyncify build on weft {f.p3_weft_ns:.1f} ns",
                   f"Asyncify on node {f.p3_node_ns:.1f} ns",
                   f"Asyncify-on-V8 / weft-interp = {speedup:.2f} (info); "
                   + (f"/ weft-jit = {jit_speedup:.2f} → {verdict(jit_speedup >= 10)}" if jit else "JIT: not built"))
        create_ok, rss_ok = f.p4_create_us <= 1.0, f.p4_rss_kib <= 8.0
        live_ok = f.p4_fresh >= 1_000_000
        target_row("P4", f"{f.p4_fresh:,} fresh fibers live at once ({f.p4_fresh_ns:.0f} ns, "
                         f"{f.p4_fresh_bytes:.0f} B each); {f.p4_fibers:,} fibers created + resumed once: "
                         f"{f.p4_create_us:.2f} µs and {f.p4_rss_kib:.2f} KiB RSS per suspended fiber; "
                         f"round robin over {f.p4_rr_fibers:,} × {P4_YIELDS} yields: "
                         f"{f.p4_switch_ns:.0f} ns per resume+suspend", "—",
                   f"1M live {verdict(live_ok) if live_ok else 'not tried (quick)'}; RSS {verdict(rss_ok)}; "
                   f"create {verdict(create_ok)}")
    if net:
        interp = geomean([t["weft-interp"] / t["native"] for t in net.values()])
        target_row("P5", f"weft-interp geomean {interp:.2f}× native",
                   "wasm-interp " + fmt_ratio(geomean([t["wasm-interp"] / t["native"] for t in net.values()])) + "×",
                   verdict(interp <= 9))
        if jit:
            jit_ratio = geomean([t["weft-jit"] / t["native"] for t in net.values()])
            liftoff = geomean([t["liftoff"] / t["native"] for t in net.values()])
            target_row("P6", f"weft-jit geomean {jit_ratio:.2f}× native", f"Liftoff {liftoff:.2f}×",
                       verdict(jit_ratio <= 1.7))
        else:
            liftoff = geomean([t["liftoff"] / t["native"] for t in net.values()])
            turbofan = geomean([t["turbofan"] / t["native"] for t in net.values()])
            target_row("P6", "JIT not built", f"Liftoff {liftoff:.2f}×, TurboFan {turbofan:.2f}× native",
                       "not measured")
        weft_start, node_start = startup_wall["weft-interp"], startup_wall["node"]
        target_row("P8", f"weft {weft_start * 1e3:.1f} ms wall", f"node {node_start * 1e3:.1f} ms wall (same module)",
                   verdict(weft_start <= 0.005))
    if p7 and p7["jit_tier"]:
        target_row("P7", f"weft-jit {p7['jit_mbps']:.1f} MB/s (instantiation; the interpreter tier's "
                         f"translation: {p7['interp_mbps']:.1f} MB/s); "
                         f"{p7['code_bytes'] / 1e6:.2f} MB code section, {p7['functions']:.0f} functions, "
                         f"{p7['jit_fallbacks']:.0f} fallbacks",
                   "Liftoff tens of MB/s, SpiderMonkey baseline 30–60 MB/s (published)",
                   verdict(p7["jit_mbps"] >= 100))
    else:
        target_row("P7", "not run (--only)" if p7 is None else "JIT not built", "—", "not measured")
    return "\n".join(lines)


def machine_description() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()
    return (f"{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()}, "
            f"load average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 run per engine (a smoke run)")
    parser.add_argument("--build-dir", default="build-bench", help="CMake build dir holding tools/weft")
    parser.add_argument("--runs", type=int, help="runs per engine (default 5, quick 1)")
    parser.add_argument("--floor-runs", type=int, default=1,
                        help="runs of wabt's wasm-interp, the slow floor reference (default 1: ~150x native)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="time to compare (default cpu)")
    parser.add_argument("--only", help="comma-separated kernels (and 'fibers', 'compile') to run")
    parser.add_argument("--output", help="also write the report to this file")
    args = parser.parse_args()

    build_dir = (ROOT / args.build_dir).resolve() if not Path(args.build_dir).is_absolute() else Path(args.build_dir)
    weft = build_dir / "tools" / "weft"
    if not weft.exists():
        print(f"bench: {weft} not found (build the weft target first)", file=sys.stderr)
        return 2
    for tool in ("gcc", "g++", "clang", "wasm-opt", "node", "wasm-interp"):
        if shutil.which(tool) is None:
            print(f"bench: {tool} not found (run scripts/install-deps.sh)", file=sys.stderr)
            return 2
    runs = args.runs or (1 if args.quick else 5)
    only = set(args.only.split(",")) if args.only else None
    timeout = 120.0 if args.quick else 900.0

    started = time.perf_counter()
    try:
        log: list[str] = []
        progress(f"bench: building programs in {build_dir / 'bench-programs'}")
        programs = build_programs(build_dir / "bench-programs", args.quick, log)
        for cmd in log:
            progress(f"  {cmd}")
        jit = weft_has_jit(weft)
        engines = make_engines(weft, jit)
        progress(f"bench: kernels, {runs} run(s) per engine, round-robin: {', '.join(e.name for e in engines)}")
        net, startup, startup_wall = run_kernels(programs, engines, args.quick, runs, args.floor_runs, only,
                                                 timeout, args.clock)
        fibers = None
        if only is None or "fibers" in only:
            progress("bench: fiber benchmarks (P2, P3, P4)")
            fibers = run_fibers(programs, weft, jit, args.quick, runs, timeout, args.clock)
        p1 = None
        if only is None or "fibers" in only:
            progress("bench: P1 (bench/fiber_switch)")
            p1 = run_p1(build_dir / "bench" / "fiber_switch", args.quick)
        p7 = None
        if only is None or "compile" in only:  # compile_speed finds out itself whether the JIT is built
            progress("bench: P7 (bench/compile_speed)")
            p7 = run_p7(build_dir, programs.compile_module, args.quick)
    except BenchError as error:
        print(f"bench: FAILED: {error}", file=sys.stderr)
        return 1

    mode = "quick (smoke sizes, not for comparison)" if args.quick else "full"
    floor = min(args.floor_runs, runs)
    text = (f"weft benchmarks — {mode}; medians of {args.clock} time over {runs} run(s) per engine "
            f"(wasm-interp: {floor}), round-robin; kernel times exclude each engine's start-up\n"
            f"machine: {machine_description()}\n\n"
            + report(net, startup, startup_wall, engines, fibers, p1, jit, p7) +
            f"\n\nall checksums match the native builds; {time.perf_counter() - started:.0f} s\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
