#!/usr/bin/env bash
# Runs the WebAssembly spec test suite with `weft wast` (one process per file,
# so a crash or hang in one file cannot hide the others) and prints a per-file
# table and the line "spec: N passed, M failed". Exits non-zero if any check
# failed. Files listed in spec-tests/interp.failures are marked "(expected)" in
# the table.
#
# Then the fiber extension's suite, spec-tests/fibers/*.wast (docs/fibers.md
# §15), as rows "fibers/FILE" of the same table (with the options of a file
# whose first line is `;; weft-wast-options: OPTIONS`) and the line "fibers: N passed, M failed".
# Files listed in spec-tests/fibers.failures are marked "(expected)"; they do
# not make the script fail while they fail, but passing ones do ("remove it
# from spec-tests/fibers.failures"), as in ctest. Unlisted fiber files must pass.
#
# usage: spec-tests/run-spec.sh [--tier=interp|jit] [--details] [WEFT_BINARY]
#   --tier=T         the execution tier (default interp). With jit, every file
#                    but the SIMD ones (simd_*.wast; the JIT compiles no SIMD
#                    yet) also fails if any of its functions fell back to the
#                    interpreter (`weft wast --no-fallback`), and the expected
#                    failures are spec-tests/jit.failures (`name.wast`,
#                    `fibers/name.wast`) instead of interp.failures
#   --details        print the first failure messages of each failing file
#   WEFT_BINARY      default: build/tools/weft
# environment: WEFT_TESTSUITE (suite directory), WEFT_SPEC_TIMEOUT (seconds per file, default 600)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
details=0
tier=interp
while [ $# -gt 0 ]; do
  case "$1" in
    --details) details=1; shift ;;
    --tier=interp|--tier=jit) tier="${1#--tier=}"; shift ;;
    --tier=*) echo "run-spec: unknown tier '${1#--tier=}' (interp, jit)" >&2; exit 2 ;;
    *) break ;;
  esac
done
tier_args="--tier=$tier"
[ "$tier" = jit ] && tier_args="--tier=jit --no-fallback"
echo "== spec tests on the $tier tier"
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
failures_file="$root/spec-tests/interp.failures"
[ "$tier" = jit ] && failures_file="$root/spec-tests/jit.failures"
expected=" $(sed -e 's/#.*//' "$failures_file" 2>/dev/null | tr -s ' \t\n' ' ') "

cd "$suite"
total_passed=0
total_failed=0
files_passed=0
files_failed=0
for file in $(ls *.wast | sort); do
  file_args="$tier_args"
  # The JIT compiles no SIMD yet: on the JIT tier the SIMD files run with the
  # per-function fallback to the interpreter (as the spec-jit-fallback/ ctest entries do).
  case "$tier:$file" in jit:simd_*) file_args="--tier=jit";; esac
  # The Wasm 2.0 files whose assertions Wasm 3.0's multi-memory and memory64
  # reversed run with Wasm 2.0's memory rules, as their ctest entries do
  # (spec-tests/CMakeLists.txt, _wasm2_memory_rules).
  case "$file" in
    address.wast|binary.wast|imports.wast|memory.wast|simd_address.wast|table.wast)
      file_args="$file_args --disable-multi-memory --disable-memory64";;
  esac
  # shellcheck disable=SC2086  # file_args are words
  output="$(timeout "$timeout_s" "$weft" wast $file_args "$file" 2>&1)"
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
  printf '%-8s %-38s %s%s\n' "$status" "$file" "$counts" "$note"
  if [ $details = 1 ] && [ "$status" != PASS ]; then
    printf '%s\n' "$output" | grep -vE '^(PASS|FAIL) |^spec: ' | head -n 3
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [ "$status" = PASS ]; then files_passed=$((files_passed + 1)); else files_failed=$((files_failed + 1)); fi
done

# ─── The fiber extension's suite ─────────────────────────────────────────────
fexpected=" $(sed -e 's/#.*//' "$root/spec-tests/fibers.failures" 2>/dev/null | tr -s ' \t\n' ' ') "
if [ "$tier" = jit ]; then
  fexpected="$fexpected$(sed -e 's/#.*//' -n -e 's|^[[:space:]]*fibers/||p' "$root/spec-tests/jit.failures" 2>/dev/null | tr -s ' \t\n' ' ') "
fi
weft_help="$("$weft" wast --help 2>&1)"
fibers_passed=0
fibers_failed=0
fibers_bad=0   # unlisted files that fail, listed files that pass
cd "$root/spec-tests/fibers"
for file in $(ls *.wast 2>/dev/null | sort); do
  options="$(sed -n '1s/^;; weft-wast-options:[[:space:]]*//p' "$file")"
  missing=""
  for option in $options; do
    case "$weft_help" in *"${option%%=*}"*) ;; *) missing="${option%%=*}";; esac
  done
  note=""
  listed=0
  case "$fexpected" in *" $file "*) note=" (expected)"; listed=1;; esac
  if [ -n "$missing" ]; then
    status="NO-OPT"; passed=0; failed=1; counts="weft wast has no $missing option"
  else
    # shellcheck disable=SC2086  # options are words
    output="$(timeout "$timeout_s" "$weft" wast $tier_args $options "$file" 2>&1)"
    rc=$?
    summary="$(printf '%s\n' "$output" | grep -E "^(PASS|FAIL) $file: " | tail -n 1)"
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
  fi
  if [ "$status" = PASS ] && [ $listed = 1 ]; then
    note=" (expected to fail: remove it from spec-tests/fibers.failures)"
    fibers_bad=$((fibers_bad + 1))
  elif [ "$status" != PASS ] && [ $listed = 0 ]; then
    fibers_bad=$((fibers_bad + 1))
  fi
  printf '%-8s %-38s %s%s\n' "$status" "fibers/$file" "$counts" "$note"
  if [ $details = 1 ] && [ "$status" != PASS ] && [ -n "${output:-}" ]; then
    printf '%s\n' "$output" | grep -vE '^(PASS|FAIL) |^spec: ' | head -n 3
  fi
  output=""
  fibers_passed=$((fibers_passed + passed))
  fibers_failed=$((fibers_failed + failed))
  if [ "$status" = PASS ]; then files_passed=$((files_passed + 1)); else files_failed=$((files_failed + 1)); fi
done

echo "files: $files_passed passed, $files_failed failed"
echo "spec: $total_passed passed, $total_failed failed"
echo "fibers: $fibers_passed passed, $fibers_failed failed"
[ "$total_failed" -eq 0 ] && [ "$fibers_bad" -eq 0 ]
