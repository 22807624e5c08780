// Force-included (-include) into a kernel for the engines that cannot run WASI
// (wabt's wasm-interp as packaged by Debian has no WASI): the kernel's main
// becomes kernel_main and its printf output goes to a buffer instead of
// fd_write. See no_wasi.c.
#ifndef WEFT_BENCH_NO_WASI_H
#define WEFT_BENCH_NO_WASI_H
#include <stdio.h>
int bench_printf(const char* format, ...);
#define printf bench_printf
#define main kernel_main
#endif
