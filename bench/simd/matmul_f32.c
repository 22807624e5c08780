// matmul_f32: 64 x 64 f32 matrix products (i-k-j order), repeated, each round
// adding a·b into c — the inner loop is an element-wise multiply-add of a
// broadcast a[i][k] with row k of b into row i of c, which the -msimd128 build
// (wasm-objdump -d, clang 14) runs as v128.load32_splat + 16 x (f32x4.mul +
// f32x4.add) on v128.load/v128.store. Each c[i][j] adds its products in the
// same (round, k) order in every build: same bits.
// Usage: matmul_f32 [rounds]   (default 12000); prints a hash of c's bit patterns.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static void row_update(float aik, const float* restrict b, float* restrict c) {
  for (uint32_t j = 0; j < N; ++j) c[j] += aik * b[j];
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 12000;
  float* a = malloc(sizeof(float) * N * N);
  float* b = malloc(sizeof(float) * N * N);
  float* c = calloc(N * N, sizeof(float));
  if (!a || !b || !c) return 2;
  uint32_t seed = 555;
  for (uint32_t i = 0; i < N * N; ++i) {
    seed = seed * 1664525u + 1013904223u;
    a[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    seed = seed * 1664525u + 1013904223u;
    b[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
  }
  for (uint32_t r = 0; r < rounds; ++r)
    for (uint32_t i = 0; i < N; ++i)
      for (uint32_t k = 0; k < N; ++k) row_update(a[i * N + k], b + k * N, c + i * N);
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < N * N; ++i) {
    uint32_t bits;
    memcpy(&bits, &c[i], sizeof bits);
    hash = (hash ^ bits) * 16777619u;
  }
  free(a);
  free(b);
  free(c);
  printf("matmul_f32(%u) checksum %08x\n", rounds, hash);
  return 0;
}
