#!/usr/bin/env bash
# Differential testing against Binaryen: generates N modules with
# `wasm-opt -ttf` (from random bytes, restricted to the features weft runs:
# MVP, sign-ext, mutable globals, non-trapping float-to-int, bulk memory,
# multi-value; NaNs removed with --denan, since NaN bits are
# nondeterministic in Wasm). Reference types stay off: with them Binaryen 108's
# generator emits typed function references (`(ref $t)`, GC encoding 0x6b),
# which are not Wasm 2.0. Runs each with Binaryen's interpreter
# (`--fuzz-exec-before`) and with weft (fuzz/differential_runner), normalises
# both outputs (fuzz/normalize_fuzz_exec.py) and compares them (fuzz/differential.py).
#
# usage: fuzz/differential.sh N [OUT_DIR]
#   Prints "differential: A agreed, M mismatched, U unsupported, …" with the runs
#   (export calls) and v128 results of the agreeing modules, and keeps every
#   disagreeing module (random input, .wasm, both outputs) in OUT_DIR
#   (default build-diff/mismatches). Exits 1 if any module mismatched.
# environment: JOBS (parallel processes, default 2), DIFF_BUILD_DIR (default
#   build-diff), DIFF_MIN_BYTES / DIFF_MAX_BYTES (random input size, default 1000..10000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DIFF_BUILD_DIR:-$root/build-diff}

n=${1:?usage: fuzz/differential.sh N [OUT_DIR]}
out=${2:-$build/mismatches}
command -v wasm-opt >/dev/null || { echo "differential: wasm-opt (binaryen) not found" >&2; exit 2; }
if [ -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DWEFT_FUZZ=ON >/dev/null  # an existing build keeps its settings
else
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_FUZZ=ON -DWEFT_BUILD_TESTS=OFF >/dev/null
fi
ninja -C "$build" -j "${JOBS:-2}" differential_runner >/dev/null
JOBS=${JOBS:-2} exec python3 "$root/fuzz/differential.py" "$build/fuzz/differential_runner" "$n" "$out"
