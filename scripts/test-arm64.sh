#!/usr/bin/env bash
# Cross-builds the native fiber layer for AArch64 and runs its tests under qemu-aarch64 (no binfmt needed).
#
# Usage: scripts/test-arm64.sh   (env: BUILD_DIR=build-arm64, JOBS=2)
# Idempotent: reconfigures and rebuilds incrementally in $BUILD_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-arm64}"
jobs="${JOBS:-2}"

for tool in aarch64-linux-gnu-g++ qemu-aarch64 cmake ninja; do
  if ! command -v "$tool" >/dev/null; then
    echo "test-arm64: '$tool' not found; run scripts/install-deps.sh" >&2
    exit 1
  fi
done

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release \
  -DWEFT_ONLY_FIBERS=ON \
  -DWEFT_WERROR=ON
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs"
