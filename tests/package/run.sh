#!/usr/bin/env bash
# Installs the weft build in BUILD_DIR into a fresh prefix, then builds
# tests/package/embed.cc against that prefix alone, either with CMake's
# find_package(weft) or with pkg-config, runs it and checks its output.
#
#   tests/package/run.sh cmake|pkg-config BUILD_DIR WORK_DIR
#
# A cross build (cmake/install.cmake) sets CXX and CMAKE_TOOLCHAIN_FILE (both
# read by cmake; CXX also by the pkg-config way) to its own compiler and
# toolchain, and WEFT_EMULATOR_RUN to its launcher for foreign programs
# (cmake/emulator.cmake), through which the program then runs.
set -euo pipefail
how=$1 build_dir=$2 work=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
# On failure, show what the quiet steps logged.
trap 'status=$?; if [[ $status != 0 ]]; then cat "$work"/*.log >&2 2>/dev/null; fi' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
case "$how" in
  cmake)
    cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
      > "$work/configure.log"
    cmake --build "$work/build" > "$work/build.log"
    program="$work/build/embed" ;;
  pkg-config)
    # shellcheck disable=SC2046  # the flags are words
    "${CXX:-c++}" -O2 -o "$work/embed" "$here/embed.cc" \
      $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs weft)
    program="$work/embed" ;;
  *) echo "run.sh: unknown way '$how' (cmake or pkg-config)" >&2; exit 2 ;;
esac
output="$(${WEFT_EMULATOR_RUN:+"$WEFT_EMULATOR_RUN"} "$program")"
expected=$'add(40, 2) = 42\nfrom_fiber() = 42'
if [[ "$output" != "$expected" ]]; then
  printf 'package (%s): wrong output:\n%s\n' "$how" "$output" >&2
  exit 1
fi
echo "package ($how): an out-of-tree program built against the installed weft prints the expected results"
