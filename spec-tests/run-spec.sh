#!/usr/bin/env bash
# Runs the WebAssembly spec test suite with `weft wast` (one process per file,
# so a crash or hang in one file cannot hide the others) and prints a per-file
# table and the final line "spec: N passed, M failed". Exits non-zero if any
# check failed. Files listed in spec-tests/interp.failures are marked
# "(expected)" in the table.
#
# usage: spec-tests/run-spec.sh [--details] [WEFT_BINARY]
#   --details        print the first failure messages of each failing file
#   WEFT_BINARY      default: build/tools/weft
# environment: WEFT_TESTSUITE (suite directory), WEFT_SPEC_TIMEOUT (seconds per file, default 600)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
details=0
if [ "${1:-}" = "--details" ]; then details=1; shift; fi
weft="${1:-$root/build/tools/weft}"
timeout_s="${WEFT_SPEC_TIMEOUT:-600}"

if [ ! -x "$weft" ]; then
  echo "run-spec: $weft not found; build first (make build)" >&2
  exit 2
fi
weft="$(cd "$(dirname "$weft")" && pwd)/$(basename "$weft")"

suite=""
for candidate in "${WEFT_TESTSUITE:-}" "$root/../shared/wasm-testsuite" "$root/spec-tests/testsuite"; do
  if [ -n "$candidate" ] && [ -f "$candidate/address.wast" ]; then suite="$candidate"; break; fi
done
if [ -z "$suite" ]; then
  echo "run-spec: spec test suite not found (set WEFT_TESTSUITE or check out WebAssembly/testsuite into spec-tests/testsuite)" >&2
  exit 2
fi

# Expected failures: file names, '#' comments.
expected=" $(sed -e 's/#.*//' "$root/spec-tests/interp.failures" 2>/dev/null | tr -s ' \t\n' ' ') "

cd "$suite"
total_passed=0
total_failed=0
files_passed=0
files_failed=0
for file in $(ls *.wast | grep -v '^simd_' | sort); do
  output="$(timeout "$timeout_s" "$weft" wast --tier=interp "$file" 2>&1)"
  rc=$?
  summary="$(printf '%s\n' "$output" | grep -E "^(PASS|FAIL) $file: " | tail -n 1)"
  note=""
  case "$expected" in *" $file "*) note=" (expected)";; esac
  if [ $rc -eq 124 ]; then
    status="TIMEOUT"; passed=0; failed=1; counts="killed after ${timeout_s}s"
  elif [ -z "$summary" ] || [ $rc -gt 2 ]; then
    status="CRASH"; passed=0; failed=1; counts="exit status $rc"
  else
    status="${summary%% *}"
    passed="$(printf '%s\n' "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/')"
    failed="$(printf '%s\n' "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/')"
    counts="$passed passed, $failed failed"
  fi
  printf '%-8s %-32s %s%s\n' "$status" "$file" "$counts" "$note"
  if [ $details = 1 ] && [ "$status" != PASS ]; then
    printf '%s\n' "$output" | grep -vE '^(PASS|FAIL) |^spec: ' | head -n 3
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [ "$status" = PASS ]; then files_passed=$((files_passed + 1)); else files_failed=$((files_failed + 1)); fi
done

echo "files: $files_passed passed, $files_failed failed"
echo "spec: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
