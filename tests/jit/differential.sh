#!/usr/bin/env bash
# Differential testing of the JIT against the interpreter: N random modules
# from Binaryen's `wasm-opt -ttf --denan` (the features fuzz/differential.py
# uses), each
# run on both tiers by jit_differential, which compares results, traps,
# import calls, globals and memory bit for bit.
#
# usage: tests/jit/differential.sh [N=500] [JIT_DIFFERENTIAL=build/tests/jit/jit_differential]
set -euo pipefail
n="${1:-500}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tool="${2:-$root/build/tests/jit/jit_differential}"
command -v wasm-opt >/dev/null || { echo "jit differential: wasm-opt (binaryen) not found" >&2; exit 2; }
[ -x "$tool" ] || { echo "jit differential: $tool not built" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
features=(--mvp-features --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int
          --enable-bulk-memory --enable-multivalue)
for i in $(seq 1 "$n"); do
  head -c $((4096 + RANDOM % 61440)) /dev/urandom > "$work/in.dat"
  wasm-opt "$work/in.dat" -ttf "${features[@]}" --denan -o "$work/m$i.wasm" 2>/dev/null || rm -f "$work/m$i.wasm"
done
shopt -s nullglob
"$tool" --calls "${CALLS:-4}" "$work"/m*.wasm
