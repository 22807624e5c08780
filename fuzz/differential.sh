#!/usr/bin/env bash
# Differential testing against Binaryen: generates N modules with
# `wasm-opt -ttf` (from random bytes, restricted to the features weft runs:
# MVP, sign-ext, mutable globals, non-trapping float-to-int, bulk memory,
# multi-value; NaNs removed with --denan, since NaN bits are
# nondeterministic in Wasm). Reference types stay off: with them Binaryen 108's
# generator emits typed function references (`(ref $t)`, GC encoding 0x6b),
# which are not Wasm 2.0. Runs each with Binaryen's interpreter
# (`--fuzz-exec-before`) and with weft (fuzz/differential_runner), normalises
# both outputs (fuzz/normalize_fuzz_exec.py) and compares them.
#
# usage: fuzz/differential.sh N [OUT_DIR]
#   Prints "differential: A agreed, M mismatched, U unsupported" and keeps every
#   disagreeing module (random input, .wasm, both outputs) in OUT_DIR
#   (default build-diff/mismatches). Exits 1 if any module mismatched.
# environment: JOBS (parallel processes, default 2), DIFF_BUILD_DIR (default
#   build-diff), DIFF_MIN_BYTES / DIFF_MAX_BYTES (random input size, default 1000..10000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DIFF_BUILD_DIR:-$root/build-diff}
features="--mvp-features --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int \
--enable-bulk-memory --enable-multivalue"

# One module: prints "agree", "mismatch" or "unsupported".
one() {
  local i=$1 work out=$2
  work=$(mktemp -d)
  local min=${DIFF_MIN_BYTES:-1000} max=${DIFF_MAX_BYTES:-10000}
  head -c $((min + (RANDOM * 32768 + RANDOM) % (max - min + 1))) /dev/urandom >"$work/in.dat"
  # shellcheck disable=SC2086
  if ! wasm-opt "$work/in.dat" -ttf $features --denan -o "$work/gen.wasm" 2>/dev/null; then
    echo skipped; rm -rf "$work"; return
  fi
  # shellcheck disable=SC2086
  timeout 60 wasm-opt "$work/gen.wasm" $features --fuzz-exec-before -q >"$work/ref.raw" 2>/dev/null || true
  local rc=0
  timeout 60 "$build/fuzz/differential_runner" "$work/gen.wasm" >"$work/weft.raw" 2>&1 || rc=$?
  python3 "$root/fuzz/normalize_fuzz_exec.py" "$work/ref.raw" >"$work/ref.txt"
  python3 "$root/fuzz/normalize_fuzz_exec.py" "$work/weft.raw" >"$work/weft.txt"
  local verdict=agree
  if [ $rc -eq 3 ]; then verdict=unsupported
  elif [ $rc -ne 0 ] || ! cmp -s "$work/ref.txt" "$work/weft.txt"; then verdict=mismatch; fi
  if [ $verdict != agree ]; then
    mkdir -p "$out"
    mv "$work" "$out/$verdict-$i-$$"
  else
    rm -rf "$work"
  fi
  echo $verdict
}

if [ "${1:-}" = "--one" ]; then one "$2" "$3"; exit 0; fi

n=${1:?usage: fuzz/differential.sh N [OUT_DIR]}
out=${2:-$build/mismatches}
command -v wasm-opt >/dev/null || { echo "differential: wasm-opt (binaryen) not found" >&2; exit 2; }
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_FUZZ=ON -DWEFT_BUILD_TESTS=OFF >/dev/null
ninja -C "$build" -j "${JOBS:-2}" differential_runner >/dev/null
mkdir -p "$out"
log="$build/differential.log"
seq 1 "$n" | xargs -P "${JOBS:-2}" -I{} bash "$0" --one {} "$out" >"$log"
agreed=$(grep -c '^agree$' "$log" || true)
mismatched=$(grep -c '^mismatch$' "$log" || true)
unsupported=$(grep -c '^unsupported$' "$log" || true)
skipped=$(grep -c '^skipped$' "$log" || true)
echo "differential: $agreed agreed, $mismatched mismatched, $unsupported unsupported, $skipped not generated"
[ "$mismatched" -eq 0 ]
