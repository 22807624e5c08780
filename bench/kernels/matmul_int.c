// matmul_int: n x n int32 matrix product (i-k-j order) — integer multiply-add over rows.
// Usage: matmul_int [n]   (default 500); prints a hash of the product.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 500;
  int32_t* a = malloc(sizeof(int32_t) * n * n);
  int32_t* b = malloc(sizeof(int32_t) * n * n);
  int32_t* c = calloc((size_t)n * n, sizeof(int32_t));
  if (!a || !b || !c) return 2;
  uint32_t seed = 12345;
  for (uint32_t i = 0; i < n * n; ++i) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (int32_t)(seed >> 16) % 1000 - 500;
    seed = seed * 1103515245u + 12345u;
    b[i] = (int32_t)(seed >> 16) % 1000 - 500;
  }
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < n; ++k) {
      const int32_t aik = a[i * n + k];
      for (uint32_t j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  }
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < n * n; ++i) hash = (hash ^ (uint32_t)c[i]) * 16777619u;
  free(a);
  free(b);
  free(c);
  printf("matmul_int(%u) checksum %08x\n", n, hash);
  return 0;
}
