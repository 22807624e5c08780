#!/usr/bin/env bash
# Runs one C test program of tests/wasi/programs under weft and (in compare
# mode) natively, then compares stdout and exit codes.
#
#   run_c_test.sh --weft WEFT [--tier interp|jit] --src FILE.c --work DIR [--mode compare|weft]
#                 [--stdin FILE] [--env K=V]... [--expect-stdout FILE]
#                 [--expect-exit N|nonzero] [--expect-stderr TEXT] [-- ARGS...]
#
# compare: builds FILE.c with clang for wasm32-wasi and with gcc, runs both
#   with the same ARGS, the same stdin and exactly the same environment (env -i
#   natively, --env under weft), each in a fresh empty directory (the native
#   binary's cwd; preopened as "." for weft) and requires identical stdout and
#   exit codes.
# weft: runs only the wasm build and checks --expect-* (programs whose native
#   behaviour differs by design: sandbox escapes, stack exhaustion).
# Exits 77 (ctest SKIP_RETURN_CODE) when the wasm32-wasi toolchain is missing.
set -u

weft= tier=interp src= work= mode=compare stdin_file=/dev/null expect_stdout= expect_exit= expect_stderr=
envs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --weft) weft=$2; shift 2 ;;
    --tier) tier=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --stdin) stdin_file=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --expect-stdout) expect_stdout=$2; shift 2 ;;
    --expect-exit) expect_exit=$2; shift 2 ;;
    --expect-stderr) expect_stderr=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_c_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
args=("$@")
# The programs run in their own directories: make the inputs absolute.
stdin_file=$(realpath "$stdin_file")
[[ -z $expect_stdout ]] || expect_stdout=$(realpath "$expect_stdout")

CLANG=${CLANG:-clang}
CC_NATIVE=${CC_NATIVE:-gcc}
WASI_FLAGS=(--target=wasm32-wasi --sysroot=/usr -O2)

rm -rf "$work"
mkdir -p "$work"
name=$(basename "$src" .c)
incdir=$(dirname "$src")

# The toolchain check: a missing clang, wasi-libc or wasm linker skips the test.
if ! command -v "$CLANG" >/dev/null 2>&1 ||
   ! echo 'int main(void){return 0;}' | "$CLANG" "${WASI_FLAGS[@]}" -x c - -o "$work/probe.wasm" >/dev/null 2>&1; then
  echo "SKIP: no wasm32-wasi C toolchain (Debian: apt install clang lld wasi-libc libclang-rt-14-dev-wasm32)"
  exit 77
fi

if ! "$CLANG" "${WASI_FLAGS[@]}" -I"$incdir" "$src" -o "$work/$name.wasm" -lm; then
  echo "FAIL: clang could not build $src for wasm32-wasi"; exit 1
fi

weft_env=()
for e in ${envs[@]+"${envs[@]}"}; do weft_env+=(--env "$e"); done

status=0
fail() { echo "FAIL: $*"; status=1; }

# A file just outside the preopen: reading it would be an escape, and nothing
# may appear next to it while the guest runs.
echo "outside the sandbox" >"$work/outside"
mkdir "$work/wasm_cwd"
before=$(ls -A "$work")
(cd "$work/wasm_cwd" && "$weft" run --tier="$tier" --dir .::. ${weft_env[@]+"${weft_env[@]}"} "../$name.wasm" \
   ${args[@]+"${args[@]}"} <"$stdin_file" >"$work/wasm.out" 2>"$work/wasm.err")
wasm_rc=$?
after=$(ls -A "$work" | grep -vx -e wasm.out -e wasm.err)
[[ $before == "$after" ]] || fail "the guest changed files outside its preopen: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"

if [[ $mode == compare ]]; then
  if ! "$CC_NATIVE" -O2 -I"$incdir" "$src" -o "$work/$name.native" -lm; then
    echo "FAIL: $CC_NATIVE could not build $src"; exit 1
  fi
  mkdir "$work/native_cwd"
  (cd "$work/native_cwd" && env -i ${envs[@]+"${envs[@]}"} "../$name.native" ${args[@]+"${args[@]}"} \
     <"$stdin_file" >"$work/native.out" 2>"$work/native.err")
  native_rc=$?
  if ! diff -u "$work/native.out" "$work/wasm.out" >"$work/stdout.diff"; then
    fail "stdout differs (native vs weft):"; head -n 60 "$work/stdout.diff"
  fi
  [[ $native_rc == "$wasm_rc" ]] || fail "exit code: native $native_rc, weft $wasm_rc"
else
  if [[ -n $expect_stdout ]] && ! diff -u "$expect_stdout" "$work/wasm.out" >"$work/stdout.diff"; then
    fail "stdout differs (expected vs weft):"; head -n 60 "$work/stdout.diff"
  fi
  if [[ $expect_exit == nonzero ]]; then
    [[ $wasm_rc != 0 ]] || fail "expected a non-zero exit code, got 0"
  elif [[ -n $expect_exit && $wasm_rc != "$expect_exit" ]]; then
    fail "exit code: expected $expect_exit, weft $wasm_rc"
  fi
  if [[ -n $expect_stderr ]] && ! grep -qF -- "$expect_stderr" "$work/wasm.err"; then
    fail "stderr does not contain '$expect_stderr'"
  fi
fi

if [[ $status != 0 ]]; then
  echo "--- weft stderr:"; head -n 40 "$work/wasm.err"
else
  echo "PASS: $name (weft exit $wasm_rc, $(wc -l <"$work/wasm.out") lines of stdout)"
fi
exit $status
