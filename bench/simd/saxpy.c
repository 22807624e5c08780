// saxpy: y = a*x + y over two 2048-element f32 arrays, repeated with a
// alternating between 0.5 + 2^-10 and -0.5 (so y drifts slowly: by ~1000x at
// the default size, and every round changes the result) — element-wise f32
// multiply and add, streaming loads and stores from L1. The -msimd128 build's
// hot loop (wasm-objdump -d, clang 14) is f32x4.splat'ed a, f32x4.mul +
// f32x4.add on v128.load/v128.store. Element-wise, so every build rounds each
// element identically.
// Usage: saxpy [rounds]   (default 2000000); prints a hash of y's bit patterns.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 2048

static void saxpy(uint32_t n, float a, const float* restrict x, float* restrict y) {
  for (uint32_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000000;
  float* x = malloc(sizeof(float) * N);
  float* y = malloc(sizeof(float) * N);
  if (!x || !y) return 2;
  uint32_t seed = 4242;
  for (uint32_t i = 0; i < N; ++i) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    seed = seed * 1664525u + 1013904223u;
    y[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
  }
  for (uint32_t r = 0; r < rounds; ++r) saxpy(N, (r & 1) ? -0.5f : 0.5009765625f, x, y);
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < N; ++i) {
    uint32_t bits;
    memcpy(&bits, &y[i], sizeof bits);
    hash = (hash ^ bits) * 16777619u;
  }
  free(x);
  free(y);
  printf("saxpy(%u) checksum %08x\n", rounds, hash);
  return 0;
}
