#!/usr/bin/env python3
"""weft benchmark driver: `make bench` (full), `make bench-quick` (smoke run)
and `make bench-fibers` (`--only fibers`: P1-P4, the depth sweep and the
callgrind instruction counts, with Markdown tables for docs/performance.md).

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

P7 (compile speed) runs bench/compile_speed and bench/validate_speed (the
validator alone, issue 16's bar), which the driver builds in BUILD_DIR, on a
large module it generates with `wasm-opt -ttf` (with eager compilation: the
whole module's code). The start-up section (issue 16) starts a large WASI
program that exits at once (bench/startup/gen_large.py, ~22 MB of code) and
the empty one on weft's tiers and compile modes and on node: CPU time and
peak RSS.

The kernel table has a wamr-fast-jit column when WAMR's iwasm is found
(--wamr, $WEFT_WAMR, or where scripts/build-wamr.sh puts it).

The exceptions section (issue 19, `make bench-exceptions` = `--only
exceptions`) times throw/catch round trips — in one function and across 10
frames — and a call in a loop without and with a try_table around it, on
weft's tiers (bench/exceptions/exceptions.wat) beside the same loops in C++
with throw/catch (bench/native/exceptions.cc, g++ -O2).

The SIMD section (issue 17, `--only simd`) runs the bench/simd kernels,
whose hot loops clang auto-vectorises: each is built for wasm32-wasi with
`-O2 -msimd128` (the SIMD build) and without it (the scalar build), and
natively with gcc -O2 (which vectorises them for SSE2). weft-jit runs both
wasm builds; weft-interp, pinned Liftoff and TurboFan the SIMD build. The
engines that run the SIMD build's v128 code in weft's interpreter (weft-interp,
and weft-jit while `--tier-stats` reports functions left to the interpreter)
run a smaller size whose time is scaled to the full one (marked † in the table).

Usage: bench/run.py [--quick] [--build-dir DIR] [--runs N] [--only NAME,...] [--wamr IWASM]
"""

from __future__ import annotations

import argparse
import concurrent.futures
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
FNV64_OFFSET, FNV64_PRIME = 14695981039346656037, 1099511628211


# ---------------------------------------------------------------------------
# Benchmarks and their sizes (argv[1]). Full sizes run ~0.1 s natively (the
# kernels' own defaults run 0.3-1 s): weft's interpreter then takes ~1 s and
# wabt's ~15 s per run, which keeps `make bench` near half an hour on a loaded
# 2-core VM; the engines' start-up (up to 0.2 s CPU for node) is subtracted.
# At those sizes node's start-up (0.11-0.14 s, varying by ~0.02 s) is as long
# as some kernels, so the JIT comparison (issue 23) runs again at `jit` sizes
# (~0.2-0.4 s natively) with the JIT engines alone: the "JIT tier at larger
# sizes" table.
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Kernel:
    name: str
    full: str
    quick: str
    jit: str


KERNELS = [
    Kernel("fib", "37", "25", "39"),
    Kernel("sieve", "6000000", "300000", "30000000"),  # node 20 crashes (SIGSEGV) in 4 of 6 runs at 40000000
    Kernel("nbody", "800000", "20000", "2500000"),
    Kernel("matmul_int", "440", "100", "800"),
    Kernel("matmul_double", "450", "100", "700"),
    Kernel("hash", "1000", "20", "3000"),
    Kernel("quicksort", "700000", "30000", "3000000"),
    Kernel("mandelbrot", "920", "150", "1800"),
    Kernel("interp", "18000", "1000", "80000"),
    Kernel("crc32", "27", "1", "100"),
    Kernel("strings", "70000", "2000", "200000"),
    Kernel("tree_walk", "30", "1", "60"),
    Kernel("spectral_norm", "1250", "200", "2000"),
    Kernel("base64", "625", "25", "1200"),
    Kernel("json_tokenize", "150", "5", "400"),
]


# SIMD kernels (issue 17, bench/simd/*.c). Every size is a number of rounds of
# the kernel's hot loops, so its time grows linearly with the size: `full` for
# the engines that compile the module (native ~0.1 s, gcc -O2), `interpreted`
# for the engines that run the SIMD build's v128 code in weft's interpreter
# (~1.2-1.5 s there, 100-500x native: at `full` one run would take 15-50 s),
# whose time is scaled by full / interpreted; `quick` for every engine.
# The -msimd128 builds' hot loops are v128 code (checked with wasm-objdump -d
# for clang 14: f32x4.mul/add in saxpy and matmul_f32, v128.load16x4_s +
# i32x4.mul in dot_i16, i8x16.add_sat_u + i16x8.mul + i8x16.narrow_i16x8_u in
# blend_u8, i8x16.eq/lt_u + i8x16.add in byte_count, i32x4.min_s/max_s in
# clamp_i32); the driver fails if a SIMD build holds no SIMD instruction.
@dataclass(frozen=True)
class SimdKernel:
    name: str
    full: str
    interpreted: str
    quick: str


SIMD_KERNELS = [
    SimdKernel("saxpy", "500000", "31250", "3000"),
    SimdKernel("dot_i16", "40000", "1000", "100"),
    SimdKernel("blend_u8", "12000", "800", "80"),
    SimdKernel("byte_count", "8000", "400", "40"),
    SimdKernel("matmul_f32", "4000", "320", "32"),
    SimdKernel("clamp_i32", "10000", "1000", "100"),
]

# The SIMD section's engines: (engine of make_engines, column name, build run).
SIMD_ENGINES = [
    ("native", "native", "native"),
    ("weft-jit", "weft-jit simd", "simd"),
    ("weft-jit", "weft-jit scalar", "scalar"),
    ("weft-interp", "weft-interp simd", "simd"),
    ("liftoff", "liftoff simd", "simd"),
    ("turbofan", "turbofan simd", "simd"),
]
# Its ratio columns, numerator / denominator (each where both engines ran).
SIMD_RATIOS = [
    ("weft-jit simd", "native"),
    ("weft-jit simd", "liftoff simd"),
    ("weft-jit simd", "weft-jit scalar"),
    ("weft-interp simd", "native"),
    ("liftoff simd", "native"),
]

# Fiber benchmarks: sizes (full, quick).
P2_YIELDS = (10_000_000, 500_000)
P4_FRESH = (1_000_000, 20_000)        # fibers created and left fresh (all live at once)
P4_CREATE = (100_000, 20_000)         # fibers created and resumed once (all stay suspended);
                                      # 1M of them would need ~12 GB resident (see docs/performance.md)
P4_ROUND_ROBIN = (50_000, 2_000)     # fibers in the scheduler, each yielding 100 times
P4_YIELDS = 100
# The Asyncify generator on weft's interpreter (~160 ns per round trip) runs
# fewer round trips than P2_YIELDS, so that a run takes about as long as the others.
P3_INTERP_YIELDS = (2_000_000, 100_000)

# The in-process probe's depths (bench/fiber_depth): finer than the sweep, to
# show whether the switch's own cost changes with depth.
DEPTH_PROBE_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128)

# Depth sweep (bench/fibers/generator_depth.wat, bench/native/generator_depth_asyncify.c):
# round trips per run at each call depth (full, quick): enough for ~60 ms of
# weft-jit time per run at every depth (at 100,000 round trips depth 64 ran
# for 20 ms and its differences jittered by ±100 ns on this VM). Fewer at
# depth, where one round trip of the Asyncify build on weft's interpreter
# takes ~9 µs.
DEPTH_ROUND_TRIPS = {1: (4_000_000, 100_000), 4: (2_000_000, 50_000),
                     16: (1_000_000, 20_000), 64: (300_000, 5_000)}

# Instructions per round trip (callgrind), (Ir(n) − Ir(0)) / n: the counts are
# exact and repeatable, so one run of each at a modest n suffices.
CALLGRIND_ROUND_TRIPS = (100_000, 10_000)
CALLGRIND_DEPTHS = (1, 16)

# Exception round trips (issue 19): the loops of bench/exceptions/exceptions.wat
# and bench/native/exceptions.cc, and iterations per run on each engine (full,
# quick). Each engine runs its own count, for ~0.2-0.3 s per run at full size
# (ns per iteration on the 2-vCPU VM: native local ~700, deep ~3,000, the
# calls ~1.5-2; weft-jit local ~16-35, deep ~55-85, the calls ~2-2.5; weft-interp
# local ~15, deep ~65-85, the calls ~13-15): one count for all would keep
# native busy for seconds per run where the JIT takes 0.2 s.
EXCEPTION_LOOPS = ("local", "deep", "plain", "in_try")
EXCEPTION_ITERATIONS = {
    "native": {"local": (350_000, 10_000), "deep": (100_000, 2_000),
               "plain": (150_000_000, 1_000_000), "in_try": (150_000_000, 1_000_000)},
    "weft-jit": {"local": (7_000_000, 100_000), "deep": (3_000_000, 50_000),
                 "plain": (120_000_000, 1_000_000), "in_try": (120_000_000, 1_000_000)},
    "weft-interp": {"local": (20_000_000, 100_000), "deep": (3_500_000, 50_000),
                    "plain": (17_000_000, 1_000_000), "in_try": (17_000_000, 1_000_000)},
}

# P7: random bytes fed to `wasm-opt -ttf` (full, quick): 12 MiB give a ~2.2 MB
# code section of ~14,500 functions (generated once, ~30 s), 1 MiB ~0.18 MB.
P7_SEED_MIB = (12, 1)
# Issue 16's start-up program (full, quick): C files × functions per file.
LARGE_PROGRAM = ((60, 1000), (2, 500))
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
    "P7 validation": "validation ≥ 150 MB/s single-threaded (issue 16)",
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
    simd_kernels: dict[str, dict[str, Path]] = field(default_factory=dict)  # name -> {native, simd, scalar}
    generator_boost: Path | None = None
    generator_asyncify: Path | None = None
    generator_depth_asyncify: Path | None = None
    exceptions_wasm: Path | None = None
    exceptions_native: Path | None = None
    compile_module: Path | None = None
    large_program: Path | None = None
    empty_program: Path | None = None


def build_programs(out: Path, quick: bool, log: list[str], kernels: bool = True, fibers: bool = True,
                   compile_module: bool = True, large_program: bool = True,
                   exceptions_weft: Path | None = None, simd: bool = False) -> Programs:
    """Builds the kernels (with the start-up baseline), the SIMD kernels, the
    fiber programs, the P7 module, the large start-up program and (given the
    weft that translates their .wat) the exception programs, each group only
    when asked for."""
    programs = Programs()
    harness = BENCH / "kernels" / "harness"
    sources = [(k.name, BENCH / "kernels" / f"{k.name}.c", k.quick if quick else k.full) for k in KERNELS]
    sources.append(("empty", BENCH / "startup" / "empty.c", ""))
    for name, src, size in sources if kernels else []:
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

    if simd:
        build_simd_programs(out, programs, log)
    if fibers:
        build_fiber_programs(out, programs, log)
    if exceptions_weft:
        build_exception_programs(out, exceptions_weft, programs, log)
    if compile_module:
        build_compile_module(out, quick, programs, log)
    if large_program:
        build_large_program(out, quick, programs, log)
    return programs


def build_simd_programs(out: Path, programs: Programs, log: list[str]) -> None:
    """Issue 17: each bench/simd kernel natively (gcc -O2, as the kernels) and
    for wasm32-wasi with and without -msimd128; the empty program (the
    start-up baseline) as for the kernels, its SIMD and scalar builds alike."""
    empty = BENCH / "startup" / "empty.c"
    native, wasm = out / "native" / "empty", out / "wasm" / "empty.wasm"
    build_step(native, [empty], ["gcc", "-O2", str(empty), "-o", str(native), "-lm"], log)
    build_step(wasm, [empty], WASI_CFLAGS + [str(empty), "-o", str(wasm), "-lm"], log)
    programs.simd_kernels["empty"] = {"native": native, "simd": wasm, "scalar": wasm}
    for kernel in SIMD_KERNELS:
        src = BENCH / "simd" / f"{kernel.name}.c"
        native = out / "simd" / "native" / kernel.name
        simd = out / "simd" / "wasm" / f"{kernel.name}.simd.wasm"
        scalar = out / "simd" / "wasm" / f"{kernel.name}.scalar.wasm"
        build_step(native, [src], ["gcc", "-O2", str(src), "-o", str(native), "-lm"], log)
        build_step(simd, [src], WASI_CFLAGS + ["-msimd128", str(src), "-o", str(simd), "-lm"], log)
        build_step(scalar, [src], WASI_CFLAGS + [str(src), "-o", str(scalar), "-lm"], log)
        programs.simd_kernels[kernel.name] = {"native": native, "simd": simd, "scalar": scalar}


def build_fiber_programs(out: Path, programs: Programs, log: list[str]) -> None:
    # P2 reference: Boost.Context generator (static, so a switch is a direct call).
    src = BENCH / "native" / "generator_boost.cc"
    programs.generator_boost = out / "native" / "generator_boost"
    build_step(programs.generator_boost, [src],
               ["g++", "-O2", "-std=c++20", str(src), "-o", str(programs.generator_boost),
                "-Wl,-Bstatic", "-lboost_context", "-Wl,-Bdynamic"], log)

    # P3 and the depth sweep: C generators -> wasm32-wasi -> Asyncify. The
    # only-lists name every function between the generator body and the yield.
    programs.generator_asyncify = build_asyncify(out, "generator_asyncify", ["count_up", "yield_value"], log)
    programs.generator_depth_asyncify = build_asyncify(
        out, "generator_depth_asyncify", ["count_up", "yield_from_depth", "yield_value"], log)


def build_exception_programs(out: Path, weft: Path, programs: Programs, log: list[str]) -> None:
    """Issue 19: bench/exceptions/exceptions.wat -> .wasm by `weft wat2wasm`
    (Debian's wabt predates try_table) and its C++ twin with g++ -O2."""
    src = BENCH / "native" / "exceptions.cc"
    programs.exceptions_native = out / "native" / "exceptions"
    build_step(programs.exceptions_native, [src],
               ["g++", "-O2", "-std=c++20", str(src), "-o", str(programs.exceptions_native)], log)
    wat = BENCH / "exceptions" / "exceptions.wat"
    programs.exceptions_wasm = out / "wasm" / "exceptions.wasm"
    build_step(programs.exceptions_wasm, [wat], [str(weft), "wat2wasm", str(wat), "-o", str(programs.exceptions_wasm)],
               log)


def build_compile_module(out: Path, quick: bool, programs: Programs, log: list[str]) -> None:
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


def build_large_program(out: Path, quick: bool, programs: Programs, log: list[str]) -> None:
    """Issue 16's start-up program: bench/startup/gen_large.py writes PARTS
    C files of FUNCS different functions each (full: a ~22 MB code section),
    compiled in parallel (~3 min on 2 cores, once) and linked for WASI. It
    exits at once unless given an argument; also the empty WASI program."""
    parts, funcs = LARGE_PROGRAM[1 if quick else 0]
    base = out / "startup-large"
    programs.large_program = base / f"large-{parts}x{funcs}.wasm"
    empty = base / "empty.wasm"
    build_step(empty, [BENCH / "startup" / "empty.c"], WASI_CFLAGS + [str(BENCH / "startup" / "empty.c"), "-o", str(empty)],
               log)
    programs.empty_program = empty
    generator = BENCH / "startup" / "gen_large.py"
    if not stale(programs.large_program, [generator]):
        return
    src = base / f"src-{parts}x{funcs}"
    subprocess.run([sys.executable, str(generator), str(src), str(parts), str(funcs)], check=True)
    sources = sorted(src.glob("*.c"))
    objects = [c.with_suffix(".o") for c in sources]
    cc = ["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O1", "-w", "-c"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda c: subprocess.run(cc + [str(c), "-o", str(c.with_suffix(".o"))],
                                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                         text=True), sources))
    for result in results:
        if result.returncode != 0:
            raise BenchError(f"build failed: {' '.join(result.args)}\n{result.stdout[-2000:]}")
    log.append(f"{' '.join(cc)} {src}/*.c  ({len(sources)} files)")
    build_step(programs.large_program, objects, ["clang", "--target=wasm32-wasi", "--sysroot=/usr"] +
               [str(o) for o in objects] + ["-o", str(programs.large_program)], log)


def code_section_bytes(wasm: Path) -> tuple[int, int]:
    """The size of a module's code section and its number of function bodies."""
    data = wasm.read_bytes()

    def leb(at: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = data[at]
            value |= (byte & 0x7F) << shift
            at += 1
            shift += 7
            if byte < 0x80:
                return value, at

    at = 8
    while at < len(data):
        section = data[at]
        size, body = leb(at + 1)
        if section == 10:
            return size, leb(body)[0]
        at = body + size
    return 0, 0


def build_asyncify(out: Path, name: str, instrumented: list[str], log: list[str]) -> Path:
    """bench/native/NAME.c -> wasm32-wasi -> `wasm-opt --asyncify` instrumenting
    only the named functions. Compile and link are separate steps: clang -O2 at
    link time runs wasm-opt itself (when on PATH), which inlines the generator
    away and drops the name section the only-list needs."""
    src = BENCH / "native" / f"{name}.c"
    obj = out / "wasm" / f"{name}.o"
    linked = out / "wasm" / f"{name}.pre.wasm"
    program = out / "wasm" / f"{name}.wasm"
    build_step(obj, [src], WASI_CFLAGS + ["-c", str(src), "-o", str(obj)], log)
    build_step(linked, [obj], ["clang", "--target=wasm32-wasi", "--sysroot=/usr", str(obj), "-o", str(linked)], log)
    build_step(program, [linked],
               ["wasm-opt", "--asyncify", f"--pass-arg=asyncify-onlylist@{','.join(instrumented)}", "-O2",
                str(linked), "-o", str(program)], log)
    return program


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


# Where scripts/build-wamr.sh puts iwasm unless told otherwise (WAMR_PREFIX).
WAMR_DEFAULT = Path.home() / ".cache" / "weft-peers" / "wamr" / "bin" / "iwasm"


def find_wamr(explicit: str | None) -> tuple[Path | None, str]:
    """WAMR's iwasm built with the fast JIT: --wamr PATH, else $WEFT_WAMR, else
    build-wamr.sh's default path. Returns (path or None, why not). A path named
    on the command line must work; the others are optional peers."""
    candidate = explicit or os.environ.get("WEFT_WAMR") or str(WAMR_DEFAULT)
    how = "--wamr" if explicit else "$WEFT_WAMR" if os.environ.get("WEFT_WAMR") else "default path"
    path = Path(candidate).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        return None, f"no iwasm at {path} ({how})"
    try:
        help_text = subprocess.run([str(path), "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"{path} ({how}) does not run: {error}"
    if "--fast-jit" not in help_text:
        return None, f"{path} ({how}) was built without the fast JIT (`iwasm --help` offers no --fast-jit)"
    return path, ""


def make_engines(weft: Path, jit: bool, wamr: Path | None = None) -> list[Engine]:
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
        # Liftoff alone: in V8 11 (node 20) --no-wasm-tier-up does not stop
        # dynamic tiering from promoting hot functions to TurboFan.
        Engine("liftoff", node + ("--liftoff", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering", runner), "wasm"),
        Engine("turbofan", node + ("--no-liftoff", runner), "wasm"),
    ]
    if wamr:
        # The running mode is named, not left to the build's default.
        engines.append(Engine("wamr-fast-jit", (str(wamr), "--fast-jit"), "wasm"))
    engines.append(Engine("wasm-interp", ("wasm-interp", "--dummy-import-func", "--run-all-exports"), "no-wasi"))
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
                only: set[str] | None, timeout: float, clock: str, jit_sizes: bool = False) -> tuple[dict, dict, dict]:
    """Returns (kernel -> engine -> median seconds after start-up, engine -> start-up
    seconds on `clock`, engine -> start-up wall seconds). `jit_sizes`: each
    kernel at its `jit` size (no engine may need the size compiled in)."""
    names = ["empty"] + [k.name for k in KERNELS if only is None or k.name in only]
    sizes = {k.name: (k.jit if jit_sizes else k.quick if quick else k.full) for k in KERNELS}
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


# ---------------------------------------------------------------------------
# The SIMD kernels (issue 17)
# ---------------------------------------------------------------------------
SIMD_OPCODE = re.compile(r"\|\s*(?:v128|[if](?:8x16|16x8|32x4|64x2))\.")


def simd_instructions(module: Path) -> int:
    """The number of SIMD instructions in a module's code (`wasm-objdump -d`)."""
    result = subprocess.run(["wasm-objdump", "-d", str(module)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if result.returncode != 0:
        raise BenchError(f"wasm-objdump -d {module} failed:\n{result.stderr[-2000:]}")
    return len(SIMD_OPCODE.findall(result.stdout))


@dataclass(frozen=True)
class TierStats:
    """`weft run --tier=jit --tier-stats`: functions the JIT compiled and those
    it left to the interpreter ("name: why" each)."""
    compiled: int
    fell_back: int
    reasons: tuple[str, ...]


def jit_tier_stats(weft: Path, module: Path, size: str, expected: str, timeout: float) -> TierStats:
    """One run of module on weft's JIT with --tier-stats; its output is checked too."""
    cmd = weft_run(weft, "jit", "--tier-stats", str(module)) + ([size] if size else [])
    try:
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}") from None
    if result.returncode != 0:
        raise BenchError(f"exit status {result.returncode}: {' '.join(cmd)}\n{result.stderr[-2000:]}")
    if result.stdout != expected:
        raise BenchError(f"checksum mismatch: {' '.join(cmd)}: expected {expected.strip()!r}, "
                         f"got {result.stdout.strip()[:200]!r}")
    counts = re.search(r"tier jit: (\d+) functions? compiled, (\d+) fell back", result.stderr)
    if counts is None:
        raise BenchError(f"no tier statistics from {' '.join(cmd)}:\n{result.stderr[-2000:]}")
    reasons = tuple(f"{name or index}: {why.strip()}" for index, name, why in re.findall(
        r"fallback: function (\d+)(?: \(([^)]*)\))?: (?:not compiled by the JIT: )?([^\n]*)", result.stderr))
    return TierStats(int(counts.group(1)), int(counts.group(2)), reasons)


@dataclass
class SimdResults:
    columns: list[str]
    net: dict[str, dict[str, float]] = field(default_factory=dict)   # kernel -> column -> s at full size
    startup: dict[str, float] = field(default_factory=dict)          # column -> s (the empty program)
    scaled: dict[str, set[str]] = field(default_factory=dict)        # kernel -> columns run at `interpreted`
    stats: dict[str, dict[str, TierStats | None]] = field(default_factory=dict)  # kernel -> build -> weft-jit's
    simd_ops: dict[str, int] = field(default_factory=dict)           # kernel -> SIMD instructions (SIMD build)


def simd_engines(engines: list[Engine]) -> list[Engine]:
    """SIMD_ENGINES' columns from make_engines' engines (those present)."""
    by_name = {e.name: e for e in engines}
    return [replace(by_name[base], name=column, variant=build) for base, column, build in SIMD_ENGINES
            if base in by_name]


def run_simd(programs: Programs, engines: list[Engine], weft: Path, quick: bool, runs: int, timeout: float,
             clock: str) -> SimdResults:
    """Issue 17: every SIMD kernel on every engine of simd_engines, round-robin;
    medians after each column's start-up (the empty program), scaled to the
    full size for the engines that ran the interpreted size: weft-interp, and
    weft-jit on a build where --tier-stats reports functions left to the
    interpreter (or when weft offers no --tier-stats)."""
    results = SimdResults(columns=[e.name for e in engines])
    jit = any(e.prefix == tuple(weft_run(weft, "jit")) for e in engines)
    help_text = subprocess.run([str(weft), "run", "--help"], stdout=subprocess.PIPE, text=True).stdout
    has_stats = jit and "--tier-stats" in help_text
    raw_startup: dict[str, float] = {}
    for kernel in [SimdKernel("empty", "", "", "")] + SIMD_KERNELS:
        name, paths = kernel.name, programs.simd_kernels[kernel.name]
        native_outputs: dict[str, str] = {}

        def expected(size: str) -> str:
            if size not in native_outputs:
                native_outputs[size] = subprocess.run([str(paths["native"])] + ([size] if size else []),
                                                      stdout=subprocess.PIPE, text=True, check=True).stdout
            return native_outputs[size]

        stats: dict[str, TierStats | None] = {"simd": None, "scalar": None}
        if name != "empty":
            results.simd_ops[name] = simd_instructions(paths["simd"])
            if results.simd_ops[name] == 0:
                raise BenchError(f"{paths['simd']} holds no SIMD instruction: clang did not vectorise {name}")
            if has_stats:
                stats = {build: jit_tier_stats(weft, paths[build], kernel.quick, expected(kernel.quick), timeout)
                         for build in stats}
            results.stats[name] = stats

        def interpreted(engine: Engine) -> bool:
            if engine.prefix == tuple(weft_run(weft, "interp")):
                return True
            if engine.prefix == tuple(weft_run(weft, "jit")):
                build_stats = stats[engine.variant]
                return build_stats is None or build_stats.fell_back > 0
            return False

        sizes = {e.name: kernel.quick if quick else kernel.interpreted if interpreted(e) else kernel.full
                 for e in engines}
        cases = {e.name: kernel_command(e, paths[e.variant], sizes[e.name]) for e in engines}
        by_name = {e.name: e for e in engines}

        def check(column: str, out: str) -> str | None:
            if check_output(by_name[column], out, expected(sizes[column])):
                return None
            return f"expected {expected(sizes[column]).strip()!r}, got {out.strip()[:200]!r}"

        started = time.perf_counter()
        samples = measure_round_robin(cases, runs, timeout, check)
        raw = {c: median([getattr(s, clock) for s in v]) for c, v in samples.items()}
        progress(f"  {name:14s} " + " ".join(f"{c}={raw[c] * 1e3:.0f}ms" + (f"@{sizes[c]}" if sizes[c] else "")
                                             for c in raw) +
                 f"  ({time.perf_counter() - started:.0f} s, checksums ok)")
        if name == "empty":
            raw_startup = raw
            continue
        results.scaled[name] = {c for c in raw if sizes[c] != (kernel.quick if quick else kernel.full)}
        results.net[name] = {c: max(t - raw_startup[c], 1e-6) * (int(kernel.quick if quick else kernel.full) /
                                                                  int(sizes[c]))
                             for c, t in raw.items()}
    results.startup = raw_startup
    return results


@dataclass(frozen=True)
class PerOp:
    """A program whose cost per operation is (t(size) − t(0)) / operations:
    parsing, instantiation and process start-up cancel out. `command(k)` is its
    argv at size k; at `size` its last line of output must be `expected`, at 0
    it must be 0. Cases with the same `zero` share one run at size 0 (default:
    their own)."""
    command: Callable[[int], list[str]]
    size: int
    expected: int
    operations: int = 0  # 0: `size`
    zero: str = ""


def zero_case(name: str, case: PerOp) -> str:
    return f"{case.zero or name}/0"


def per_op_commands(cases: dict[str, PerOp]) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The round-robin's commands (every case at its size and each zero run
    once) and what each must print last."""
    commands: dict[str, list[str]] = {}
    expected: dict[str, int] = {}
    for name, case in cases.items():
        commands[name], expected[name] = case.command(case.size), case.expected
        zero = zero_case(name, case)
        if zero not in commands:
            commands[zero], expected[zero] = case.command(0), 0
    return commands, expected


def last_line_check(expected: dict[str, int]):
    def check(case: str, out: str) -> str | None:
        got = out.strip().splitlines()[-1] if out.strip() else ""
        return None if got == str(expected[case]) else f"expected {expected[case]}, got {got!r}"
    return check


def measure_per_op(cases: dict[str, PerOp], runs: int, timeout: float,
                   clock: str) -> tuple[dict[str, float], dict[str, float]]:
    """Round-robin over every case and its zero run; returns (case -> median
    seconds per operation, case -> median peak-RSS growth in KiB per operation)."""
    commands, expected = per_op_commands(cases)
    samples = measure_round_robin(commands, runs, timeout, last_line_check(expected))
    seconds = {c: median([getattr(s, clock) for s in v]) for c, v in samples.items()}
    rss = {c: median([float(s.maxrss_kib) for s in v]) for c, v in samples.items()}
    per_op, rss_per_op = {}, {}
    for name, case in cases.items():
        zero, operations = zero_case(name, case), case.operations or case.size
        per_op[name] = (seconds[name] - seconds[zero]) / operations
        rss_per_op[name] = (rss[name] - rss[zero]) / operations
    return per_op, rss_per_op


def weft_run(weft: Path, tier: str, *args: str) -> list[str]:
    """`weft run` on a named tier. Every weft case names its tier: the default
    is the JIT, so a case that leaves it out measures the JIT whatever its label."""
    return [str(weft), "run", f"--tier={tier}", *args]


def weft_tiers(jit: bool) -> tuple[str, ...]:
    return ("jit", "interp") if jit else ("interp",)


def gauss(k: int) -> int:
    """0 + 1 + … + k-1: what every generator prints after yielding k values."""
    return k * (k - 1) // 2


def generator_cases(programs: Programs, weft: Path, tiers: tuple[str, ...], yields: int,
                    asyncify_interp_yields: int, with_node: bool = True) -> dict[str, PerOp]:
    """P2/P3: one generator round trip (fiber.resume + fiber.suspend with event
    dispatch; the yield in the fiber's entry function) per value: Boost.Context,
    weft's fiber instructions and the Asyncify build, each weft case per tier."""
    generator_wat = str(BENCH / "fibers" / "generator.wat")
    boost, asyncify = str(programs.generator_boost), str(programs.generator_asyncify)
    node = list(node_command()) + [str(BENCH / "node_wasi.mjs")]
    cases = {"boost": PerOp(lambda k: [boost, str(k)], yields, gauss(yields))}
    for tier in tiers:
        cases[f"weft-{tier}"] = PerOp(
            lambda k, tier=tier: weft_run(weft, tier, "--invoke", "run", generator_wat, str(k)), yields, gauss(yields))
    if with_node:
        cases["asyncify-node"] = PerOp(lambda k: node + [asyncify, str(k)], yields, gauss(yields))
    for tier in tiers:
        k_tier = asyncify_interp_yields if tier == "interp" else yields
        cases[f"asyncify-weft-{tier}"] = PerOp(
            lambda k, tier=tier: weft_run(weft, tier, asyncify, str(k)), k_tier, gauss(k_tier))
    return cases


def depth_cases(programs: Programs, weft: Path, tiers: tuple[str, ...], yields_at: dict[int, int],
                with_node: bool = True, asyncify_tiers: tuple[str, ...] | None = None) -> dict[str, PerOp]:
    """The depth sweep: per depth D (case names end in @D), weft's fiber
    generator yielding from D calls down, its plain-calls control (the same
    chain per value, no switch) and the Asyncify build of the same program.
    The runs at size 0 do not depend on D: each engine's is shared."""
    depth_wat = str(BENCH / "fibers" / "generator_depth.wat")
    asyncify = str(programs.generator_depth_asyncify)
    node = list(node_command()) + [str(BENCH / "node_wasi.mjs")]
    first_depth = next(iter(yields_at))
    engines: dict[str, Callable[[int, int], list[str]]] = {}
    for tier in tiers:
        engines[f"weft-{tier}"] = lambda k, d, tier=tier: weft_run(
            weft, tier, "--invoke", "run", depth_wat, str(k), str(d))
        engines[f"calls-weft-{tier}"] = lambda k, d, tier=tier: weft_run(
            weft, tier, "--invoke", "calls", depth_wat, str(k), str(d))
    if with_node:
        engines["asyncify-node"] = lambda k, d: node + [asyncify, str(k), str(d)]
    for tier in tiers if asyncify_tiers is None else asyncify_tiers:
        engines[f"asyncify-weft-{tier}"] = lambda k, d, tier=tier: weft_run(weft, tier, asyncify, str(k), str(d))
    cases = {}
    for depth, yields in yields_at.items():
        for engine, command in engines.items():
            cases[f"{engine}@{depth}"] = PerOp(lambda k, command=command, depth=depth: command(k, depth),
                                               yields, gauss(yields), zero=f"{engine}@{first_depth}")
    return cases


@dataclass
class FiberResults:
    """P2/P3: ns per generator round trip keyed by generator_cases' names; P4
    on the tier `p4_tier`."""
    generator_ns: dict[str, float] = field(default_factory=dict)
    p4_tier: str = ""
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
    """P2, P3 and P4 in one round-robin."""
    pick = 1 if quick else 0
    tiers = weft_tiers(jit)
    n = P2_YIELDS[pick]
    cases = generator_cases(programs, weft, tiers, n, P3_INTERP_YIELDS[pick])
    # P4 on one tier, the default one when the JIT is built (its target is
    # about the runtime's fibers, which both tiers share).
    p4_tier = tiers[0]
    green_wat = str(BENCH / "fibers" / "green_threads.wat")
    n_fresh, n_create, n_rr = P4_FRESH[pick], P4_CREATE[pick], P4_ROUND_ROBIN[pick]
    cases["fresh"] = PerOp(lambda k: weft_run(weft, p4_tier, "--invoke", "fresh", green_wat, str(k)),
                           n_fresh, n_fresh)
    cases["create"] = PerOp(lambda k: weft_run(weft, p4_tier, "--invoke", "create", green_wat, str(k)),
                            n_create, gauss(n_create))
    cases["rr"] = PerOp(lambda k: weft_run(weft, p4_tier, "--invoke", "run", green_wat, str(k), str(P4_YIELDS)),
                        n_rr, P4_YIELDS * gauss(n_rr), operations=n_rr * (P4_YIELDS + 1))
    seconds, rss_kib = measure_per_op(cases, runs, timeout, clock)
    results = FiberResults(
        generator_ns={case: seconds[case] * 1e9 for case in cases if case not in ("fresh", "create", "rr")},
        p4_tier=p4_tier, p4_fresh=n_fresh, p4_fresh_ns=seconds["fresh"] * 1e9,
        p4_fresh_bytes=rss_kib["fresh"] * 1024,
        p4_fibers=n_create, p4_create_us=seconds["create"] * 1e6, p4_rss_kib=rss_kib["create"],
        p4_rr_fibers=n_rr, p4_switch_ns=seconds["rr"] * 1e9)
    progress("  fibers: " + ", ".join(f"{case} {ns:.1f} ns" for case, ns in results.generator_ns.items()) +
             f"; P4 (weft-{p4_tier}) {results.p4_fresh} fresh {results.p4_fresh_bytes:.0f} B/fiber, "
             f"create {results.p4_create_us:.2f} us, {results.p4_rss_kib:.2f} KiB/fiber, "
             f"switch {results.p4_switch_ns:.1f} ns (checksums ok)")
    return results


def run_depth_sweep(programs: Programs, weft: Path, jit: bool, quick: bool, runs: int, timeout: float,
                    clock: str) -> dict[str, float]:
    """ns per round trip of every depth_cases case."""
    yields_at = {depth: sizes[1 if quick else 0] for depth, sizes in DEPTH_ROUND_TRIPS.items()}
    cases = depth_cases(programs, weft, weft_tiers(jit), yields_at)
    seconds, _ = measure_per_op(cases, runs, timeout, clock)
    ns = {case: value * 1e9 for case, value in seconds.items()}
    for depth in yields_at:
        progress(f"  depth {depth:2d}: " + ", ".join(f"{case.split('@')[0]} {value:.1f} ns"
                                                    for case, value in ns.items() if case.endswith(f"@{depth}")))
    return ns


def run_depth_probe(build_dir: Path, quick: bool) -> str | None:
    """bench/fiber_depth (in-process, JIT): minima over many alternating calls
    of `run` and `calls` per depth; its table as printed, or None if not built."""
    probe = build_dir / "bench" / "fiber_depth"
    if not probe.exists():
        return None
    cmd = [str(probe), "--repeat", "11" if quick else "61", "--round-trips", "5000" if quick else "50000"]
    cmd += [str(d) for d in DEPTH_PROBE_DEPTHS]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise BenchError(f"fiber_depth failed (status {result.returncode}):\n{result.stderr}")
    progress("  " + result.stdout.strip().replace("\n", "\n  "))
    return result.stdout


def run_exceptions(programs: Programs, weft: Path, jit: bool, quick: bool, runs: int, timeout: float,
                   clock: str) -> dict[str, dict[str, float]]:
    """Issue 19: engine -> loop -> ns per iteration, (t(n) − t(0)) / n, of
    every loop of EXCEPTION_LOOPS natively and on weft's tiers, round-robin."""
    pick = 1 if quick else 0
    wasm, native = str(programs.exceptions_wasm), str(programs.exceptions_native)
    commands: dict[str, Callable[[str, int], list[str]]] = {
        "native": lambda loop, k: [native, loop, str(k)]}
    for tier in weft_tiers(jit):
        commands[f"weft-{tier}"] = lambda loop, k, tier=tier: weft_run(weft, tier, "--invoke", loop, wasm, str(k))
    cases = {}
    for engine, command in commands.items():
        for loop in EXCEPTION_LOOPS:
            k = EXCEPTION_ITERATIONS[engine][loop][pick]
            cases[f"{engine}@{loop}"] = PerOp(lambda k, command=command, loop=loop: command(loop, k), k, gauss(k))
    seconds, _ = measure_per_op(cases, runs, timeout, clock)
    ns = {engine: {loop: seconds[f"{engine}@{loop}"] * 1e9 for loop in EXCEPTION_LOOPS} for engine in commands}
    for engine, per_loop in ns.items():
        progress(f"  {engine}: " + ", ".join(f"{loop} {value:.1f} ns" for loop, value in per_loop.items()) +
                 " (checksums ok)")
    return ns


# ---------------------------------------------------------------------------
# Instructions per round trip (callgrind)
# ---------------------------------------------------------------------------
def callgrind_instructions(cmd: list[str], expected: int, timeout: float) -> int:
    """Instructions cmd executes (callgrind's total Ir), its output checked."""
    full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
            # weft's JIT writes code into anonymous memory at run time: have
            # valgrind check such code for changes, not just code on the stack.
            "--smc-check=all-non-file"] + cmd
    try:
        result = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(full)}") from None
    if result.returncode != 0:
        raise BenchError(f"exit status {result.returncode}: {' '.join(full)}\n{result.stderr[-2000:]}")
    problem = last_line_check({"": expected})("", result.stdout)
    if problem:
        raise BenchError(f"checksum mismatch under callgrind: {' '.join(cmd)}: {problem}")
    collected = re.search(r"Collected : (\d+)", result.stderr)
    if collected is None:
        raise BenchError(f"no instruction count from callgrind: {' '.join(full)}\n{result.stderr[-2000:]}")
    return int(collected.group(1))


def run_callgrind(programs: Programs, weft: Path, jit: bool, quick: bool, timeout: float) -> dict[str, float]:
    """Instructions per round trip, (Ir(n) − Ir(0)) / n, of the generator cases
    and of the depth cases at CALLGRIND_DEPTHS (names as in generator_cases and
    depth_cases). Node is left out: V8's tiering and background threads under
    valgrind say little about its code. So is the Asyncify build on weft's
    interpreter at depth: by far the slowest case under callgrind, and it
    answers no question the JIT's count does not."""
    n = CALLGRIND_ROUND_TRIPS[1 if quick else 0]
    tiers = weft_tiers(jit)
    cases = generator_cases(programs, weft, tiers, n, n, with_node=False)
    cases.update(depth_cases(programs, weft, tiers, {depth: n for depth in CALLGRIND_DEPTHS},
                             with_node=False, asyncify_tiers=tiers[:1]))
    commands, expected = per_op_commands(cases)
    started = time.perf_counter()
    counts = {case: callgrind_instructions(cmd, expected[case], timeout) for case, cmd in commands.items()}
    per_op = {name: (counts[name] - counts[zero_case(name, case)]) / (case.operations or case.size)
              for name, case in cases.items()}
    progress("  instructions per round trip: " + ", ".join(f"{case} {value:.0f}" for case, value in per_op.items())
             + f" ({time.perf_counter() - started:.0f} s)")
    return per_op


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
    tier (medians; the JIT tier compiles, the interpreter tier translates) —
    and from bench/validate_speed.cc on the same module: validation alone and
    decoding alone (keys `validate_mbps`, `decode_mbps`)."""
    values: dict[str, float] = {}
    for probe, prefix in (("compile_speed", ""), ("validate_speed", "validator_")):
        # `make bench` builds only weft and fiber_switch; ninja makes this a
        # no-op once the probe is up to date.
        build = subprocess.run(["cmake", "--build", str(build_dir), "--target", probe],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if build.returncode != 0:
            raise BenchError(f"build failed: {probe}\n{build.stdout[-2000:]}")
        cmd = [str(build_dir / "bench" / probe), str(module), str(P7_REPS[1 if quick else 0])]
        _, out = run_with_rusage(cmd, 600.0)
        for key, value in (line.split() for line in out.splitlines() if line.strip()):
            values[key if key.endswith("_mbps") or not prefix else prefix + key] = float(value)
    progress(f"  compile speed: {values['code_bytes'] / 1e6:.2f} MB code section, "
             f"jit {values['jit_mbps']:.2f} MB/s, interpreter translation {values['interp_mbps']:.2f} MB/s "
             f"({values['jit_fallbacks']:.0f} fallbacks); validation {values['validate_mbps']:.1f} MB/s, "
             f"decoding {values['decode_mbps']:.1f} MB/s; a second instance copies the code in "
             f"{values.get('jit_copy_ms', 0):.1f} ms (jit {values['jit_ms']:.1f} ms)")
    return values


def run_large_startup(programs: Programs, weft: Path, jit: bool, runs: int, timeout: float) -> str:
    """Issue 16: CPU time and peak RSS of starting the large program (which
    exits at once) and the empty one, weft's tiers and compile modes beside
    node's, round-robin; medians. Returns the report's table."""
    node = list(node_command()) + [str(BENCH / "node_wasi.mjs")]
    large, empty = str(programs.large_program), str(programs.empty_program)
    cases: dict[str, list[str]] = {}
    if jit:
        cases["weft (default: JIT, lazy)"] = [str(weft), "run", large]
        cases["weft --compile=eager (JIT)"] = [str(weft), "run", "--compile=eager", large]
    cases["weft --tier=interp (lazy)"] = [str(weft), "run", "--tier=interp", large]
    cases["node (default: lazy Liftoff)"] = node + [large]
    cases["node --no-wasm-lazy-compilation"] = [node[0], "--no-wasm-lazy-compilation"] + node[1:] + [large]
    cases["weft, empty program"] = [str(weft), "run", empty]
    cases["node, empty program"] = node + [empty]
    samples = measure_round_robin(cases, runs, timeout)
    code, functions = code_section_bytes(programs.large_program)
    lines = [f"Start-up of a large program (issue 16): `{programs.large_program.name}` "
             f"(bench/startup/gen_large.py, clang -O1), code section {code / 1e6:.1f} MB, {functions} functions; "
             f"it exits at once. CPU time (user + sys, all threads), wall time and peak RSS, medians of {runs}, "
             f"round-robin:", "", "| engine | CPU ms | wall ms | peak RSS MB |", "|---|---|---|---|"]
    for case, values in samples.items():
        cpu = median([v.cpu for v in values])
        wall = median([v.wall for v in values])
        rss = median([float(v.maxrss_kib) for v in values]) / 1024
        lines.append(f"| {case} | {cpu * 1e3:.1f} | {wall * 1e3:.1f} | {rss:.1f} |")
        progress(f"  {case}: {cpu * 1e3:.1f} ms CPU, {wall * 1e3:.1f} ms wall, {rss:.1f} MB")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
def fmt_ms(seconds: float) -> str:
    return "—" if not math.isfinite(seconds) else f"{seconds * 1e3:.1f}" if seconds < 1 else f"{seconds * 1e3:.0f}"


def fmt_ratio(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.2f}" if value < 10 else f"{value:.1f}"


def verdict(met: bool) -> str:
    return "**met**" if met else "**missed**"


def jit_table(net: dict, names: list[str]) -> list[str]:
    """weft-jit's time over each other engine's, per kernel and as a geomean:
    the JIT against native and the other JITs (wabt's interpreter, a floor,
    is left out)."""
    peers = [e for e in names if e not in ("weft-interp", "weft-jit", "wasm-interp")]
    header = ["benchmark"] + [f"weft-jit/{p}" for p in peers]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for kernel, times in net.items():
        lines.append("| " + " | ".join([kernel] + [fmt_ratio(times["weft-jit"] / times[p]) for p in peers]) + " |")
    row = ["**geomean**"] + [fmt_ratio(geomean([t["weft-jit"] / t[p] for t in net.values()])) for p in peers]
    lines.append("| " + " | ".join(row) + " |")
    return lines


def report(net: dict, startup: dict, startup_wall: dict, engines: list[Engine], fibers: FiberResults | None,
           p1: tuple[float, float] | None, jit: bool, p7: dict[str, float] | None = None,
           wamr_absent: str = "") -> str:
    names = [e.name for e in engines]
    peers = [e for e in names if e not in ("weft-interp", "weft-jit")]
    lines = []
    if net:  # the kernel table (not with --only naming no kernel)
        header = ["benchmark"] + [f"{e} ms" for e in names] + [f"weft/{p}" for p in peers]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for kernel, times in net.items():
            row = [kernel] + [fmt_ms(times[e]) for e in names]
            row += [fmt_ratio(times["weft-interp"] / times[p]) for p in peers]
            lines.append("| " + " | ".join(row) + " |")
        # Geomean row: engine columns hold each engine's geomean of engine/native.
        row = ["**geomean** (× native)"]
        row += [fmt_ratio(geomean([t[e] / t["native"] for t in net.values()])) + "×" for e in names]
        row += [fmt_ratio(geomean([t["weft-interp"] / t[p] for t in net.values()])) for p in peers]
        lines.append("| " + " | ".join(row) + " |")
        row = ["start-up (empty program; subtracted above)"] + [fmt_ms(startup[e]) for e in names] + [""] * len(peers)
        lines.append("| " + " | ".join(row) + " |")
        if not jit:
            lines.append("")
            lines.append("weft-jit: JIT not built (`weft run --help` offers no jit tier) — no column.")
        if wamr_absent:
            lines.append("")
            lines.append(f"wamr-fast-jit: {wamr_absent} — no column.")
        if jit:
            lines.append("")
            lines += jit_table(net, names)
        lines.append("")

    lines.append("| target | measured (this run) | reference (this run) | target | verdict |")
    lines.append("|---|---|---|---|---|")

    def target_row(p: str, measured: str, reference: str, result: str) -> None:
        lines.append(f"| {p} | {measured} | {reference} | {TARGETS[p]} | {result} |")

    if p1:
        weft_ns, boost_ns = p1
        target_row("P1", f"weft ping-pong {weft_ns:.2f} ns", f"Boost.Context {boost_ns:.2f} ns",
                   f"{weft_ns / boost_ns:.2f}× → {verdict(weft_ns / boost_ns <= 1.0)}")
    elif fibers:
        target_row("P1", "fiber_switch not built", "—", "not measured")
    if fibers:
        f = fibers
        ns = f.generator_ns
        interp_ns, jit_ns, boost_ns = ns["weft-interp"], ns.get("weft-jit", math.nan), ns["boost"]
        ratio, jit_ratio = interp_ns / boost_ns, jit_ns / boost_ns
        target_row("P2", f"weft-interp {interp_ns:.1f} ns per resume+suspend"
                   + (f", weft-jit {jit_ns:.1f} ns" if jit else ""),
                   f"Boost.Context generator {boost_ns:.1f} ns",
                   f"interp {ratio:.1f}× → {verdict(ratio <= 10)}; "
                   + (f"JIT {jit_ratio:.1f}× → {verdict(jit_ratio <= 3)}" if jit else "JIT: not built"))
        node_ns = ns["asyncify-node"]
        on_weft = ", ".join(f"weft-{tier} {ns[f'asyncify-weft-{tier}']:.1f} ns" for tier in weft_tiers(jit))
        target_row("P3", f"weft-interp generator {interp_ns:.1f} ns"
                   + (f", weft-jit {jit_ns:.1f} ns" if jit else "") + f"; Asyncify build on {on_weft}",
                   f"Asyncify on node {node_ns:.1f} ns",
                   f"Asyncify-on-V8 / weft-interp = {node_ns / interp_ns:.2f} (info); "
                   + (f"/ weft-jit = {node_ns / jit_ns:.2f} → {verdict(node_ns / jit_ns >= 10)}" if jit
                      else "JIT: not built"))
        create_ok, rss_ok = f.p4_create_us <= 1.0, f.p4_rss_kib <= 8.0
        live_ok = f.p4_fresh >= 1_000_000
        target_row("P4", f"weft-{f.p4_tier}: {f.p4_fresh:,} fresh fibers live at once ({f.p4_fresh_ns:.0f} ns, "
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
            wamr = (f", WAMR fast-jit {geomean([t['wamr-fast-jit'] / t['native'] for t in net.values()]):.2f}×"
                    if "wamr-fast-jit" in names else "")
            target_row("P6", f"weft-jit geomean {jit_ratio:.2f}× native", f"Liftoff {liftoff:.2f}×{wamr}",
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
    if p7:
        target_row("P7 validation", f"{p7['validate_mbps']:.1f} MB/s (`validator::validate_module` alone, "
                                    f"single-threaded; decoding {p7['decode_mbps']:.1f} MB/s, or "
                                    f"{p7['decode_deferred_mbps']:.1f} MB/s with the bodies' checks left to "
                                    f"validation; the two as a module is loaded: {p7['loaded_mbps']:.1f} MB/s), same module",
                   "—", verdict(p7["validate_mbps"] >= 150))
    return "\n".join(lines)


def simd_table(results: SimdResults, runs: int, clock: str, quick: bool) -> str:
    """Issue 17's table: ms per kernel and engine, the ratios of SIMD_RATIOS,
    geomeans, and notes on the scaled cells and weft-jit's fallbacks."""
    columns, net = results.columns, results.net
    ratios = [(a, b) for a, b in SIMD_RATIOS if a in columns and b in columns]
    size = "quick" if quick else "full"
    lines = [f"SIMD kernels (issue 17; `bench/simd/*.c`): simd = clang --target=wasm32-wasi -O2 -msimd128 "
             f"(auto-vectorised), scalar = the same without -msimd128, native = gcc -O2 (vectorised for SSE2). "
             f"ms at the `{size}` sizes of bench/run.py's SIMD_KERNELS, medians of {runs} round-robin run(s) "
             f"({clock} time), each engine's start-up (the empty program) subtracted.", ""]
    header = ["kernel"] + [f"{c} ms" for c in columns] + [f"{a} / {b}" for a, b in ratios]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for kernel, times in net.items():
        row = [kernel] + [fmt_ms(times[c]) + ("†" if c in results.scaled[kernel] else "") for c in columns]
        row += [fmt_ratio(times[a] / times[b]) for a, b in ratios]
        lines.append("| " + " | ".join(row) + " |")
    row = ["**geomean** (× native)"]
    row += [fmt_ratio(geomean([t[c] / t["native"] for t in net.values()])) + "×" for c in columns]
    row += [fmt_ratio(geomean([t[a] / t[b] for t in net.values()])) for a, b in ratios]
    lines.append("| " + " | ".join(row) + " |")
    row = ["start-up (empty program; subtracted above)"] + [fmt_ms(results.startup[c]) for c in columns]
    lines.append("| " + " | ".join(row + [""] * len(ratios)) + " |")
    lines.append("")

    def gm(a: str, b: str) -> str:
        if a not in columns or b not in columns:
            return "—"
        return fmt_ratio(geomean([t[a] / t[b] for t in net.values()])) + "×"

    scaled = {kernel: ", ".join(sorted(c)) for kernel, c in results.scaled.items() if c}
    if scaled:
        which = (f"{next(iter(scaled.values()))} in every kernel"
                 if len(scaled) == len(net) and len(set(scaled.values())) == 1
                 else "; ".join(f"{k}: {c}" for k, c in scaled.items()))
        lines.append("† run at the kernel's `interpreted` size (the engine runs its v128 code in weft's interpreter) "
                     f"and scaled linearly to the full size: {which}.")
    if "weft-jit simd" in columns:
        lines.append(f"weft-jit on the SIMD build: geomean {gm('weft-jit simd', 'native')} native, "
                     f"{gm('weft-jit simd', 'liftoff simd')} Liftoff (Liftoff {gm('liftoff simd', 'native')} native, "
                     f"TurboFan {gm('turbofan simd', 'native')} native); on the scalar build: "
                     f"{gm('weft-jit scalar', 'native')} native, {gm('weft-jit scalar', 'liftoff simd')} "
                     f"Liftoff on the SIMD build.")

        def describe(build: str) -> str:
            stats = {k: s[build] for k, s in results.stats.items()}
            if any(s is None for s in stats.values()):
                return "not reported (weft run offers no --tier-stats)"
            def span(values: list[int]) -> str:
                return str(min(values)) if min(values) == max(values) else f"{min(values)}-{max(values)}"

            reasons = sorted({r for s in stats.values() for r in s.reasons})
            return (f"{span([s.compiled for s in stats.values()])} compiled, "
                    f"{span([s.fell_back for s in stats.values()])} fell back per kernel"
                    + (f" ({'; '.join(reasons)})" if reasons else ""))

        lines.append("weft-jit compiles every function; any it left to the interpreter would show here "
                     f"(`weft run --tier=jit --tier-stats`), functions: SIMD builds {describe('simd')}; "
                     f"scalar builds {describe('scalar')}.")
    else:
        lines.append("weft-jit: JIT not built (`weft run --help` offers no jit tier) — no columns.")
    lines.append("SIMD instructions in each SIMD build (`wasm-objdump -d`): " +
                 ", ".join(f"{k} {n}" for k, n in results.simd_ops.items()) + ".")
    return "\n".join(lines)


EXCEPTION_ROWS = {
    "local": "local: throw + catch in one function",
    "deep": "deep: throw 10 frames below the catch",
    "plain": "plain: call, no try (no throw)",
    "in_try": "in_try: call inside a try (no throw)",
}


def exception_tables(ns: dict[str, dict[str, float]], runs: int, clock: str) -> str:
    """Issue 19's tables: ns per iteration of each loop per engine and weft
    over native; then the no-throw path, in_try against plain per engine."""
    engines = [e for e in ("native", "weft-jit", "weft-interp") if e in ns]
    peers = [e for e in engines if e != "native"]
    lines = [f"Exceptions (issue 19; `bench/exceptions/exceptions.wat`, `bench/native/exceptions.cc` with g++ -O2): "
             f"ns per iteration = (t(n) − t(0)) / n, medians of {runs} round-robin runs ({clock} time); "
             f"n per engine and loop in bench/run.py's EXCEPTION_ITERATIONS.", ""]
    header = ["loop"] + [f"{e} ns" for e in engines] + [f"{e} / native" for e in peers]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for loop, label in EXCEPTION_ROWS.items():
        row = [label] + [fmt_value(ns[e][loop], 2 if ns[e][loop] < 10 else 1) for e in engines]
        # weft's throws are far below native's: three digits however small
        row += [f"{r:.3g}" if r < 1 else fmt_ratio(r) for r in (ns[e][loop] / ns["native"][loop] for e in peers)]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "The no-throw path: a try around a call that does not throw.", ""]
    lines.append("| | " + " | ".join(engines) + " |")
    lines.append("|" + "---|" * (len(engines) + 1))
    lines.append("| in_try / plain | " + " | ".join(fmt_ratio(ns[e]["in_try"] / ns[e]["plain"]) for e in engines)
                 + " |")
    lines.append("| in_try − plain (ns per iteration) | " +
                 " | ".join(f"{d:+.2f}" if abs(d) >= 0.005 else "0.00"
                            for d in (ns[e]["in_try"] - ns[e]["plain"] for e in engines)) + " |")
    return "\n".join(lines)


GENERATOR_ROWS = {
    "boost": "Boost.Context generator (C++, `generator_boost.cc`)",
    "weft-jit": "weft-jit: fiber instructions (`generator.wat`)",
    "weft-interp": "weft-interp: fiber instructions (`generator.wat`)",
    "asyncify-node": "Asyncify build (`generator_asyncify.c`) on node",
    "asyncify-weft-jit": "Asyncify build on weft-jit",
    "asyncify-weft-interp": "Asyncify build on weft-interp",
}
DEPTH_COLUMNS = {
    "weft-jit": "weft-jit fibers",
    "weft-interp": "weft-interp fibers",
    "calls-weft-jit": "weft-jit plain calls",
    "calls-weft-interp": "weft-interp plain calls",
    "asyncify-node": "Asyncify on node",
    "asyncify-weft-jit": "Asyncify on weft-jit",
    "asyncify-weft-interp": "Asyncify on weft-interp",
}


def fmt_value(value: float | None, digits: int = 1) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def fmt_delta(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:+.1f}"


def fiber_tables(fibers: FiberResults | None, depth_ns: dict[str, float] | None,
                 instructions: dict[str, float] | None, p1: tuple[float, float] | None, runs: int,
                 clock: str) -> str:
    """The fiber round trips as Markdown for docs/performance.md: the generator
    against Boost.Context and Asyncify, the depth sweep, instructions per round trip."""
    lines: list[str] = []
    generator_ns = fibers.generator_ns if fibers else {}
    instructions = instructions or {}
    if generator_ns or instructions:
        boost, node = generator_ns.get("boost", math.nan), generator_ns.get("asyncify-node", math.nan)
        lines.append(f"Generator round trip (`fiber.resume` + `fiber.suspend` with event dispatch, the yield in "
                     f"the fiber's entry function): ns = (t(n) − t(0)) / n, medians of {runs} round-robin runs "
                     f"({clock} time); instructions = (Ir(n) − Ir(0)) / n under callgrind.")
        lines.append("")
        lines.append("| case | ns per round trip | × Boost | × Asyncify on node | instructions per round trip |")
        lines.append("|---|---|---|---|---|")
        for case, label in GENERATOR_ROWS.items():
            if case not in generator_ns and case not in instructions:
                continue
            ns = generator_ns.get(case, math.nan)
            lines.append(f"| {label} | {fmt_value(ns)} | {fmt_ratio(ns / boost)} | {fmt_ratio(ns / node)} | "
                         f"{fmt_value(instructions.get(case), 0)} |")
        if p1:
            lines.append("")
            lines.append(f"Native ping-pong (P1, `bench/fiber_switch`): weft `fiber_context` {p1[0]:.2f} ns, "
                         f"Boost.Context {p1[1]:.2f} ns per round trip ({p1[0] / p1[1]:.2f}×).")
    if depth_ns:
        depths = sorted({int(case.split("@")[1]) for case in depth_ns})
        columns = [c for c in DEPTH_COLUMNS if f"{c}@{depths[0]}" in depth_ns]
        switch_tiers = [c for c in ("weft-jit", "weft-interp") if c in columns and f"calls-{c}" in columns]
        ratio_tiers = [c for c in ("weft-jit", "weft-interp") if c in columns and "asyncify-node" in columns]

        def cell(column: str, depth: int) -> float:
            return depth_ns.get(f"{column}@{depth}", math.nan)

        def switch_part(tier: str, depth: int) -> float:  # what the round trip costs beyond its plain calls
            return cell(tier, depth) - cell(f"calls-{tier}", depth)

        lines.append("")
        lines.append("Depth sweep (`generator_depth.wat`, `generator_depth_asyncify.c`): ns per round trip when the "
                     "value is yielded from `depth` calls below the fiber's entry; plain calls = the same call chain "
                     "per value with no switch; Asyncify instruments every function on the path.")
        lines.append("")
        header = ["depth"] + [DEPTH_COLUMNS[c] for c in columns]
        header += [f"{DEPTH_COLUMNS[c]} − plain calls" for c in switch_tiers]
        header += [f"{c} / Asyncify on node" for c in ratio_tiers]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for depth in depths:
            row = [str(depth)] + [fmt_value(cell(c, depth)) for c in columns]
            row += [fmt_value(switch_part(c, depth)) for c in switch_tiers]
            row += [fmt_ratio(cell(c, depth) / cell("asyncify-node", depth)) for c in ratio_tiers]
            lines.append("| " + " | ".join(row) + " |")
        first, last = depths[0], depths[-1]
        growth = [f"growth {first} → {last}"] + [fmt_delta(cell(c, last) - cell(c, first)) for c in columns]
        growth += [fmt_delta(switch_part(c, last) - switch_part(c, first)) for c in switch_tiers]
        growth += [""] * len(ratio_tiers)
        lines.append("| " + " | ".join(growth) + " |")
    depth_instructions = {case: value for case, value in instructions.items() if "@" in case}
    if depth_instructions:
        depths = sorted({int(case.split("@")[1]) for case in depth_instructions})
        columns = [c for c in DEPTH_COLUMNS if f"{c}@{depths[0]}" in depth_instructions]
        lines.append("")
        lines.append("Instructions per round trip at depth (callgrind):")
        lines.append("")
        header = ["depth"] + [DEPTH_COLUMNS[c] for c in columns]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for depth in depths:
            lines.append("| " + " | ".join([str(depth)] + [fmt_value(depth_instructions.get(f"{c}@{depth}"), 0)
                                                           for c in columns]) + " |")
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
    parser.add_argument("--only", help="comma-separated kernels and sections to run: 'fibers' (P1-P4, the depth "
                                           "sweep and the callgrind counts), 'depth' (the depth sweep alone), "
                                           "'callgrind' (the instruction counts alone), 'compile' (P7: compile and validation speed), "
                                           "'startup' (a large program's start-up, issue 16), "
                                           "'exceptions' (throw/catch round trips vs C++, issue 19), "
                                           "'simd' (the -msimd128 kernels of bench/simd, issue 17)")
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument("--wamr", metavar="IWASM",
                        help="WAMR's iwasm built with the fast JIT, for the wamr-fast-jit column (default: "
                             "$WEFT_WAMR, else ~/.cache/weft-peers/wamr/bin/iwasm if present; "
                             "scripts/build-wamr.sh builds it)")
    args = parser.parse_args()

    build_dir = (ROOT / args.build_dir).resolve() if not Path(args.build_dir).is_absolute() else Path(args.build_dir)
    weft = build_dir / "tools" / "weft"
    if not weft.exists():
        print(f"bench: {weft} not found (build the weft target first)", file=sys.stderr)
        return 2
    only = set(args.only.split(",")) if args.only else None
    kernel_names = {k.name for k in KERNELS}
    unknown = (only or set()) - kernel_names - {"fibers", "depth", "callgrind", "compile", "startup", "exceptions",
                                                "simd"}
    if unknown:
        print(f"bench: --only: unknown {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    run_kernel_table = only is None or bool(only & kernel_names)
    run_generator = only is None or "fibers" in only  # P1-P4
    run_depth = only is None or bool(only & {"fibers", "depth"})
    run_instructions = only is None or bool(only & {"fibers", "callgrind"})
    run_compile = only is None or "compile" in only
    run_startup = only is None or "startup" in only
    run_exception_table = only is None or "exceptions" in only
    run_simd_table = only is None or "simd" in only
    tools = ["gcc", "g++", "clang", "wasm-opt", "node"] + (["wasm-interp"] if run_kernel_table else [])
    tools += ["wasm-objdump"] if run_simd_table else []
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"bench: {tool} not found (run scripts/install-deps.sh)", file=sys.stderr)
            return 2
    valgrind_missing = run_instructions and shutil.which("valgrind") is None
    if valgrind_missing:
        progress("bench: valgrind not found: no instruction counts (apt install valgrind)")
        run_instructions = False
    wamr, wamr_absent = find_wamr(args.wamr) if run_kernel_table else (None, "")
    if args.wamr and wamr is None:
        print(f"bench: --wamr: {wamr_absent}", file=sys.stderr)
        return 2
    if wamr_absent:
        wamr_absent += "; build it with scripts/build-wamr.sh or name it with --wamr"
        progress(f"bench: wamr-fast-jit column absent: {wamr_absent}")
    runs = args.runs or (1 if args.quick else 5)
    timeout = 120.0 if args.quick else 900.0

    started = time.perf_counter()
    try:
        log: list[str] = []
        progress(f"bench: building programs in {build_dir / 'bench-programs'}")
        programs = build_programs(build_dir / "bench-programs", args.quick, log, kernels=run_kernel_table,
                                  fibers=run_generator or run_depth or run_instructions, compile_module=run_compile,
                                  large_program=run_startup,
                                  exceptions_weft=weft if run_exception_table else None, simd=run_simd_table)
        for cmd in log:
            progress(f"  {cmd}")
        jit = weft_has_jit(weft)
        engines = make_engines(weft, jit, wamr)
        net, startup, startup_wall = {}, {}, {}
        if run_kernel_table:
            progress(f"bench: kernels, {runs} run(s) per engine, round-robin: {', '.join(e.name for e in engines)}")
            net, startup, startup_wall = run_kernels(programs, engines, args.quick, runs, args.floor_runs, only,
                                                     timeout, args.clock)
        net_jit, jit_engines = {}, []
        if run_kernel_table and jit and not args.quick:
            jit_engines = [e for e in engines if e.name not in ("weft-interp", "wasm-interp")]
            progress(f"bench: JIT tier at larger sizes, {runs} run(s) per engine, round-robin: "
                     f"{', '.join(e.name for e in jit_engines)}")
            net_jit, _, _ = run_kernels(programs, jit_engines, False, runs, 0, only, timeout, args.clock,
                                        jit_sizes=True)
        simd = None
        if run_simd_table:
            simd_columns = simd_engines(engines)
            progress(f"bench: SIMD kernels (issue 17), {runs} run(s) per engine, round-robin: "
                     f"{', '.join(e.name for e in simd_columns)}")
            simd = run_simd(programs, simd_columns, weft, args.quick, runs, timeout, args.clock)
        fibers, p1 = None, None
        if run_generator:
            progress("bench: fiber benchmarks (P2, P3, P4)")
            fibers = run_fibers(programs, weft, jit, args.quick, runs, timeout, args.clock)
            progress("bench: P1 (bench/fiber_switch)")
            p1 = run_p1(build_dir / "bench" / "fiber_switch", args.quick)
        depth, depth_probe = None, None
        if run_depth:
            progress(f"bench: depth sweep (depths {', '.join(map(str, DEPTH_ROUND_TRIPS))})")
            depth = run_depth_sweep(programs, weft, jit, args.quick, runs, timeout, args.clock)
            if jit:
                progress("bench: depth probe in one process (bench/fiber_depth)")
                depth_probe = run_depth_probe(build_dir, args.quick)
        instructions = None
        if run_instructions:
            progress("bench: instructions per round trip (callgrind)")
            instructions = run_callgrind(programs, weft, jit, args.quick, timeout)
        exceptions = None
        if run_exception_table:
            progress("bench: exception round trips (issue 19)")
            exceptions = run_exceptions(programs, weft, jit, args.quick, runs, timeout, args.clock)
        p7 = None
        if run_compile:  # compile_speed finds out itself whether the JIT is built
            progress("bench: P7 (bench/compile_speed)")
            p7 = run_p7(build_dir, programs.compile_module, args.quick)
        startup_table = None
        if run_startup:
            progress("bench: start-up of a large program (issue 16)")
            startup_table = run_large_startup(programs, weft, jit, runs, timeout)
    except BenchError as error:
        print(f"bench: FAILED: {error}", file=sys.stderr)
        return 1

    mode = "quick (smoke sizes, not for comparison)" if args.quick else "full"
    floor = min(args.floor_runs, runs)
    what = (f" (wasm-interp: {floor}), round-robin; kernel times exclude each engine's start-up" if run_kernel_table
            else ", round-robin")
    tables = []
    if net or fibers or p7 is not None:  # the P1-P8 lines (none for --only depth/callgrind)
        tables.append(report(net, startup, startup_wall, engines, fibers, p1, jit, p7, wamr_absent))
    if net_jit:
        names = [e.name for e in jit_engines]
        over = [k for k, t in net_jit.items() if t["weft-jit"] / t["native"] > 2.5]
        tables.append("JIT tier at larger sizes (issue 23; `jit` sizes in bench/run.py's KERNELS, native "
                      "~0.2-0.4 s, start-up subtracted per engine):\n\n" + "\n".join(jit_table(net_jit, names)) +
                      f"\n\nkernels over 2.5× native: {', '.join(over) if over else 'none'}")
    if simd:
        tables.append(simd_table(simd, runs, args.clock, args.quick))
    if fibers or depth or instructions:
        tables.append(fiber_tables(fibers, depth, instructions, p1, runs, args.clock))
    if depth_probe:
        tables.append("Depth probe (`bench/fiber_depth`, JIT, one process): ns per round trip, minima (and "
                      "medians) over alternating calls of `run` and `calls`; switch = min(run) − min(calls).\n\n"
                      "```\n" + depth_probe.strip() + "\n```")
    if valgrind_missing:
        tables.append("Instructions per round trip: not measured (valgrind not found).")
    if startup_table:
        tables.append(startup_table)
    if exceptions:
        tables.append(exception_tables(exceptions, runs, args.clock))
    text = (f"weft benchmarks — {mode}; medians of {args.clock} time over {runs} run(s) per engine{what}\n"
            f"machine: {machine_description()}\n\n"
            + "\n\n".join(tables) +
            f"\n\nall checksums match{' the native builds' if run_kernel_table or run_simd_table else ''}; "
            f"{time.perf_counter() - started:.0f} s\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
