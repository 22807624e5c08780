# CMake toolchain: cross-compile for AArch64 Linux (Debian multiarch) and run binaries under qemu-aarch64.
#
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   (scripts/test-arm64.sh builds and tests the whole of weft this way)
#
# Needs g++-aarch64-linux-gnu, qemu-user and the arm64 packages of the libraries
# used (libgtest-dev:arm64, libasmjit-dev:arm64, libcapstone-dev:arm64);
# scripts/install-deps.sh installs them. binfmt_misc is not required: ctest and
# gtest_discover_tests go through the emulator below, and scripts that start a
# built program through the launchers of cmake/emulator.cmake.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)

# Foreign libraries live in the cross sysroot (/usr/aarch64-linux-gnu: libc,
# libstdc++) and in Debian's multiarch directories (/usr/lib/aarch64-linux-gnu
# with their CMake packages, e.g. GTest; headers shared under /usr/include). "/"
# as a root makes <prefix>/lib/aarch64-linux-gnu/cmake visible; the library
# architecture above keeps the host's x86_64 libraries out of reach.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the AArch64 dynamic loader and shared libraries.
# -E LD_LIBRARY_PATH: the loader must take libc from the same place. It looks
# in /lib/aarch64-linux-gnu (its built-in path and the host's ld.so.cache)
# before /lib, and qemu falls back to the host's file when -L has none: once
# an arm64 package pulls in libc6:arm64 (e.g. libcapstone-dev:arm64), that is
# Debian's arm64 libc under the cross toolchain's loader, different releases,
# and programs hang in their first pthread_create (seen: libc6:arm64
# 2.36-9+deb12u14 with libc6-arm64-cross 2.36-8cross1).
set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64;-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib")
