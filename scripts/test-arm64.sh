#!/usr/bin/env bash
# The whole of weft cross-built for AArch64 and tested under qemu-aarch64 (no
# binfmt_misc needed): the CLI, the unit tests, the core spec, fiber,
# regression and proposal suites on every tier the build has (the JIT tier's
# entries exist once jit/ builds weft_jit for AArch64), the examples, the C API
# examples, the WASI tests, the package test and — with a JIT tier — an
# interpreter-vs-JIT differential run (tests/jit/differential.sh).
#
# Usage: scripts/test-arm64.sh [test|differential]   (env: BUILD_DIR=build-arm64, JOBS=2)
#   test (default; `make test-arm64`, part of `make test`): build, ctest under
#     qemu, then with a JIT tier a differential slice of JIT_DIFF_N=80 Binaryen
#     modules and JIT_FIBER_N=1000 fiber programs (≥ 10,000 runs), and one of
#     SIMD_DIFF_N=40 Binaryen modules with SIMD.
#   differential (`make differential-jit-arm64`): build, then the differential
#     at `make differential-jit`'s counts (JIT_DIFF_N=300, JIT_FIBER_N=2500:
#     ~40,000 runs).
# Idempotent: reconfigures and rebuilds incrementally in $BUILD_DIR.
#
# How: cmake/aarch64-linux-gnu.cmake sets CMAKE_CROSSCOMPILING_EMULATOR to
# qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib
# (why the library path: see there). ctest prepends it to the entries that
# name a target (gtest_discover_tests also lists tests through it); everything
# that starts a built program from a script (spec-tests/fibers/run-wast.cmake,
# tests/capi/run_example.cmake, tests/wasi/run_c_test.sh, tests/package/run.sh,
# the CLI runs of the unit tests, differential.sh) gets a launcher from
# cmake/emulator.cmake. Host tools (wast2json, clang for wasm32-wasi, gcc for
# the WASI tests' native reference programs, wasm-opt, cmake) run natively.
#
# Excluded under qemu (EXCLUDE below), each because it measures the emulator:
#   FiberScale.HundredThousandFibersRoundRobinWithinMemoryBound (every tier):
#     resident memory per suspended fiber, read from /proc/self/statm, which
#     under qemu-user is qemu's own process. qemu's page bookkeeping costs
#     ~24 KiB per 4 MiB fiber-stack reservation: a C program making 30,000
#     4 MiB PROT_NONE mappings with one touched page each grows by 4,098 bytes
#     per mapping natively and by 28,698 under qemu-aarch64 7.2; weft's figure
#     under qemu is 28,851 bytes against the 8 KiB bound.
#
# Measured on the 2-core CI machine (AMD EPYC, qemu 7.2, -j2) in a
# fresh-clone .ci/run on 2026-11-28 (22:09–22:55 UTC, commit 450cdb9; the
# phase lines this script prints):
#   cross build from scratch:                                      384 s
#   ctest under qemu, 1752 entries, all passing:                   476 s
#   differential slices: 49,056 runs (80 modules with one and two
#   memories, 1000 fiber programs) and 19,072 SIMD runs (40 modules):  48 s
# So `make test-arm64` from scratch takes ~15 minutes of .ci/run's 45.6.
# Before 450cdb9 every memory of an AArch64 JIT store reserved the 8 GiB
# guard region its code does not use, and qemu-user's page bookkeeping for
# such a reservation costs ~50 MB and ~0.3 s per memory: the same phases took
# 478 / 924 / 341 s in the run of 1abe299 (19:48–20:51 UTC, 63.4 minutes in
# all, over the 60-minute budget), 391 / 827 / 424 s for de132d8 (58 minutes).
# What remains slow under qemu for the same reason, on both tiers: a memory
# without a declared maximum reserves 4 GiB (runtime/memory.cc), so
# simd_align.wast's many such memories take 7–10 s per entry.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-arm64}"
jobs="${JOBS:-2}"
mode="${1:-test}"
case "$mode" in
  test) diff_n="${JIT_DIFF_N:-80}" fiber_n="${JIT_FIBER_N:-1000}" simd_diff_n="${SIMD_DIFF_N:-40}" ;;
  differential) diff_n="${JIT_DIFF_N:-300}" fiber_n="${JIT_FIBER_N:-2500}" simd_diff_n="${SIMD_DIFF_N:-100}" ;;
  *) echo "usage: scripts/test-arm64.sh [test|differential]" >&2; exit 2 ;;
esac

EXCLUDE='FiberScale\.HundredThousandFibersRoundRobinWithinMemoryBound'

for tool in aarch64-linux-gnu-g++ qemu-aarch64 cmake ninja; do
  if ! command -v "$tool" >/dev/null; then
    echo "test-arm64: '$tool' not found; run scripts/install-deps.sh" >&2
    exit 1
  fi
done

# Each phase prints its duration, for the figures above.
phase_start=$SECONDS
phase_done() { echo "test-arm64: $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release \
  -DWEFT_ONLY_FIBERS=OFF \
  -DWEFT_WERROR=ON
cmake --build "$build" -j "$jobs"
phase_done "the cross build"

# The launcher exists when the build has the JIT tier (tests/jit/CMakeLists.txt).
differential_driver="$build/emulated/jit_differential"
if [ -x "$differential_driver" ]; then tiers="interpreter, JIT"; else tiers="interpreter"; fi
echo "test-arm64: tiers of this AArch64 build: $tiers"

if [ "$mode" = test ]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs" -E "$EXCLUDE"
  phase_done "ctest under qemu"
fi

if [ -x "$differential_driver" ]; then
  env FIBER_N="$fiber_n" ${JIT_FIBER_SEED:+FIBER_SEED="$JIT_FIBER_SEED"} KEEP="$build/jit-differential" \
    bash "$root/tests/jit/differential.sh" "$diff_n" "$differential_driver"
  # The same with SIMD in the Binaryen modules: the NEON code and the thunks
  # against the interpreter (SIMD_DIFF_N modules, ~200 runs each).
  env SIMD=1 FIBER_N=0 KEEP="$build/jit-differential-simd" \
    bash "$root/tests/jit/differential.sh" "$simd_diff_n" "$differential_driver"
  phase_done "the differential"
elif [ "$mode" = differential ]; then
  echo "test-arm64: this AArch64 build has no JIT tier (jit/CMakeLists.txt): no differential to run" >&2
  exit 1
else
  echo "test-arm64: no JIT tier on AArch64 yet: interpreter-vs-JIT differential not run"
fi
