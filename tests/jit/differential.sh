#!/usr/bin/env bash
# Differential testing of the JIT against the interpreter: jit_differential
# runs each module on both tiers in one process and compares results, traps,
# import calls, globals and memory bit for bit. Two parts:
#  1. N random modules from Binaryen's `wasm-opt -ttf --denan` (the features
#     fuzz/differential.py uses, and tail calls), every export called CALLS times;
#     then the same modules again with a second memory (every other one a
#     64-bit memory) and their memory instructions spread over both
#     (`--two-memories`, tests/jit/two_memories.cc: Binaryen 108 generates
#     neither multi-memory nor 64-bit memory code), compiled eagerly;
#  2. FIBER_N generated fiber programs (fuzz/fiber_program.h: handle/event and
#     all nine fiber.* instructions), every root called twice, under the fiber
#     fuzzer's limits; the tool also counts the runs that delivered events.
# v128 values compare in all 128 bits; a lane that is a quiet NaN on both
# tiers counts as agreeing (which NaN a float lane operation of two NaNs
# returns is open; the driver prints how many it accepted).
# Every module and program is instantiated twice in one store (--instances 2),
# each instance making the same calls: the JIT compiles once per module, and
# the second instance runs a patched copy of the first one's code
# (jit/code_template.h), which must agree as well.
# One run is one export call. Ends with the line
#   "jit differential: R runs agree, D disagree (…)"
# and exits 1 if any module or program disagreed (or a generated program was
# rejected). `make differential-jit` runs it with ≥ 10,000 runs in all.
#
# usage: tests/jit/differential.sh [N=500] [JIT_DIFFERENTIAL=build/tests/jit/jit_differential]
# environment: CALLS (calls per export in part 1, default 4); RANDOM_FUEL=1
#   (both parts give each call a random fuel budget and compare the fuel
#   left: the tiers must charge fuel identically); FIBER_N (fiber
#   programs, default 1000, ~4 runs each; 0 skips part 2, N=0 skips part 1);
#   SIMD=1 (part 1's modules also use SIMD, which the JIT compiles: the
#   SIMD instructions and v128 values are compared like everything else);
#   FIBER_SEED (default random; printed, and `jit_differential --fiber-programs 1
#   --seed S --first I` reruns program I); KEEP (directory receiving every
#   disagreeing .wasm module and fiber program .wat; default: none kept).
set -euo pipefail
n="${1:-500}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tool="${2:-$root/build/tests/jit/jit_differential}"
fiber_n="${FIBER_N:-1000}"
fiber_seed="${FIBER_SEED:-$(( (RANDOM << 15) | RANDOM ))}"
keep="${KEEP:-}"
[ -x "$tool" ] || { echo "jit differential: $tool not built" >&2; exit 2; }
[ -z "$keep" ] || mkdir -p "$keep"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0

binaryen_runs=0 binaryen_disagree=0 binaryen_files=0
if [ "$n" -gt 0 ]; then
  command -v wasm-opt >/dev/null || { echo "jit differential: wasm-opt (binaryen) not found" >&2; exit 2; }
  features=(--mvp-features --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int
            --enable-bulk-memory --enable-multivalue --enable-tail-call)
  [ -z "${SIMD:-}" ] || features+=(--enable-simd)
  for i in $(seq 1 "$n"); do
    head -c $((4096 + RANDOM % 61440)) /dev/urandom > "$work/in.dat"
    wasm-opt "$work/in.dat" -ttf "${features[@]}" --denan -o "$work/m$i.wasm" 2>/dev/null || rm -f "$work/m$i.wasm"
  done
  shopt -s nullglob
  modules=("$work"/m*.wasm)
  binaryen_files=${#modules[@]}
  # One pass over the modules: NAME (output and kept files), then the tool's extra options.
  binaryen_pass() {
    local name="$1" runs disagree
    shift
    "$tool" "$@" --calls "${CALLS:-4}" ${RANDOM_FUEL:+--random-fuel} "${modules[@]}" | tee "$work/$name.out" || status=1
    if [ -n "$keep" ]; then
      sed -n 's/^DISAGREE \(.*\.wasm\)$/\1/p' "$work/$name.out" | while read -r module; do
        cp "$module" "$keep/$name-$(date +%s)-$(basename "$module")"
      done
    fi
    read -r runs disagree < <(sed -n \
      's/^differential[^:]*: \([0-9]*\) runs agree, \([0-9]*\) files disagree.*/\1 \2/p' "$work/$name.out")
    binaryen_runs=$((binaryen_runs + runs))
    binaryen_disagree=$((binaryen_disagree + disagree))
  }
  binaryen_pass binaryen --instances 2
  binaryen_pass two-memories --two-memories --instances 2 --eager
fi

fiber_runs=0 fiber_disagree=0 fiber_events=0
if [ "$fiber_n" -gt 0 ]; then
  "$tool" --fiber-programs "$fiber_n" --seed "$fiber_seed" --instances 2 ${keep:+--keep "$keep"} ${RANDOM_FUEL:+--random-fuel} \
    | tee "$work/fiber.out" || status=1
  read -r fiber_runs fiber_disagree fiber_rejected fiber_events < <(sed -n \
    's/^fiber differential: \([0-9]*\) runs agree, \([0-9]*\) programs disagree, \([0-9]*\) rejected .*; \([0-9]*\) runs delivered events.*/\1 \2 \3 \4/p' \
    "$work/fiber.out")
  fiber_disagree=$((fiber_disagree + fiber_rejected))
fi

echo "jit differential: $((binaryen_runs + fiber_runs)) runs agree, $((binaryen_disagree + fiber_disagree)) disagree" \
     "(binaryen: $binaryen_runs runs over $binaryen_files modules, each also with two memories; fiber: $fiber_runs runs over $fiber_n programs," \
     "seed $fiber_seed, $fiber_events runs delivered events)"
if [ -n "$keep" ] && [ "$status" != 0 ]; then echo "jit differential: disagreeing modules and programs kept in $keep"; fi
exit "$status"
