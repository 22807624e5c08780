#!/usr/bin/env bash
# Installs every Debian package weft needs (idempotent: installs only what is missing).
set -euo pipefail

NATIVE_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libasmjit-dev libcli11-dev libfmt-dev libcapstone-dev
  wabt binaryen libboost-context-dev
  clang lld wasi-libc libclang-rt-14-dev-wasm32 libclang-rt-14-dev
  g++-aarch64-linux-gnu qemu-user
  nodejs python3 valgrind
)
# The AArch64 cross build (scripts/test-arm64.sh): its tests, the JIT's
# assembler, and capstone for `weft inspect --disasm` of JIT code.
ARM64_PACKAGES=(libgtest-dev:arm64 libasmjit-dev:arm64 libcapstone-dev:arm64)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

missing=()
for pkg in "${NATIVE_PACKAGES[@]}" "${ARM64_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
