#!/usr/bin/env bash
# Builds tests/wasi/programs/socket_echo.c (plain C, no fibers) for wasm32-wasi
# and runs it under weft as the server of bench/echo_load.py: its own errno
# checks first (sock_shutdown's EBADF / ENOTSOCK …), then N connections whose
# every byte must come back, and the summary line on exit.
#
#   run_socket_c_test.sh WEFT TIER WORK_DIR [echo_load.py options…]
#
# Exits 77 (ctest SKIP_RETURN_CODE) when the wasm32-wasi toolchain is missing.
# No native comparison: a native build has no listening socket at fd 3, and
# node's WASI (node 20) cannot be handed one and answers sock_shutdown with
# ENOTSUP (docs/performance.md, "Async I/O").
set -u
weft=$1 tier=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1 ||
   ! echo 'int main(void){return 0;}' | "${CLANG:-clang}" --target=wasm32-wasi --sysroot=/usr -x c - -o "$work/probe.wasm" >/dev/null 2>&1; then
  echo "SKIP: no wasm32-wasi C toolchain (Debian: apt install clang lld wasi-libc libclang-rt-14-dev-wasm32)"
  exit 77
fi
"${CLANG:-clang}" --target=wasm32-wasi --sysroot=/usr -O2 -Wall -Werror "$here/programs/socket_echo.c" \
  -o "$work/socket_echo.wasm" || { echo "FAIL: clang could not build socket_echo.c"; exit 1; }
exec python3 "$here/../../bench/echo_load.py" --weft "$weft" --tier "$tier" --server "$work/socket_echo.wasm" "$@"
