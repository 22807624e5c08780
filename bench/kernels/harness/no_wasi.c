// The entry point of a kernel built without WASI imports (for wabt's
// wasm-interp): `run` calls the kernel's main with the size baked in at
// compile time (-DBENCH_ARG="…", wasm-interp cannot pass arguments) and
// returns the 64-bit FNV-1a hash of everything it printed. bench/run.py
// compares that with the hash of the native program's output, so this build
// is checked exactly like the others.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

int kernel_main(int argc, char** argv);

static char output[4096];
static size_t output_len;

int bench_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vsnprintf(output + output_len, sizeof output - output_len, format, args);
  va_end(args);
  if (n > 0) output_len += (size_t)n < sizeof output - output_len ? (size_t)n : sizeof output - output_len - 1;
  return n;
}

__attribute__((export_name("run"))) uint64_t run(void) {
  static char program[] = "kernel";
  static char size[] = BENCH_ARG;
  char* argv[] = {program, size[0] ? size : NULL, NULL};
  output_len = 0;
  kernel_main(size[0] ? 2 : 1, argv);
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = 0; i < output_len; ++i) hash = (hash ^ (uint8_t)output[i]) * 1099511628211ull;
  return hash;
}
