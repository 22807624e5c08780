// matmul_double: n x n double matrix product (i-k-j order) — float multiply-add over rows.
// Usage: matmul_double [n]   (default 450); prints a hash of the product's bit patterns.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 450;
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  double* c = calloc((size_t)n * n, sizeof(double));
  if (!a || !b || !c) return 2;
  uint32_t seed = 777;
  for (uint32_t i = 0; i < n * n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    a[i] = (double)(seed >> 8) / 16777216.0 - 0.5;
    seed = seed * 1664525u + 1013904223u;
    b[i] = (double)(seed >> 8) / 16777216.0 - 0.5;
  }
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      for (uint32_t j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
    }
  }
  uint64_t hash = 1469598103934665603ull;
  for (uint32_t i = 0; i < n * n; ++i) {
    uint64_t bits;
    memcpy(&bits, &c[i], sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  free(a);
  free(b);
  free(c);
  printf("matmul_double(%u) checksum %016llx\n", n, (unsigned long long)hash);
  return 0;
}
