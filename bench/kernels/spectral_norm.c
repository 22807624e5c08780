// spectral_norm: the benchmarks-game spectral norm — f64 loops (division,
// multiply and add, no FMA) calling a small function for every matrix entry.
// Usage: spectral_norm [n]   (default 2500); prints the norm and its bit
// pattern (exact: no FMA, no reassociation).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// noinline: an f64 result crossing a call inside an f64 loop (the running sum
// lives across it) is what this kernel is about; compilers would inline it.
__attribute__((noinline)) static double eval_a(int i, int j) { return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1); }

static void mul_av(int n, const double* v, double* av) {
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += eval_a(i, j) * v[j];
    av[i] = sum;
  }
}

static void mul_atv(int n, const double* v, double* atv) {
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += eval_a(j, i) * v[j];
    atv[i] = sum;
  }
}

static void mul_atav(int n, const double* v, double* atav, double* tmp) {
  mul_av(n, v, tmp);
  mul_atv(n, tmp, atav);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2500;
  double* u = malloc(n * sizeof *u);
  double* v = malloc(n * sizeof *v);
  double* tmp = malloc(n * sizeof *tmp);
  if (!u || !v || !tmp) return 2;
  for (int i = 0; i < n; ++i) u[i] = 1;
  for (int i = 0; i < 10; ++i) {
    mul_atav(n, u, v, tmp);
    mul_atav(n, v, u, tmp);
  }
  double vbv = 0, vv = 0;
  for (int i = 0; i < n; ++i) {
    vbv += u[i] * v[i];
    vv += v[i] * v[i];
  }
  const double norm = sqrt(vbv / vv);
  uint64_t bits;
  memcpy(&bits, &norm, sizeof bits);
  printf("spectral_norm(%d) %.9f checksum %016llx\n", n, norm, (unsigned long long)bits);
  free(u);
  free(v);
  free(tmp);
  return 0;
}
