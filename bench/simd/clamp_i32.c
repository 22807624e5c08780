// clamp_i32: element-wise int32 work over 16384-element arrays — a difference
// clamped to a range, then the array's minimum, maximum and sum — repeated
// with one input updated element-wise. The -msimd128 build's hot loops
// (wasm-objdump -d, clang 14) use i32x4.sub, i32x4.min_s / i32x4.max_s,
// i32x4.add and i32x4.gt_s + v128.bitselect; the min/max/sum reductions are
// exact in any order.
// Usage: clamp_i32 [rounds]   (default 30000); prints a hash of the reductions.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16384

static void clamp_difference(uint32_t n, const int32_t* restrict a, const int32_t* restrict b,
                             int32_t* restrict out, int32_t lo, int32_t hi) {
  for (uint32_t i = 0; i < n; ++i) {
    const int32_t d = a[i] - b[i];
    out[i] = d < lo ? lo : d > hi ? hi : d;
  }
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 30000;
  int32_t* a = malloc(sizeof(int32_t) * N);
  int32_t* b = malloc(sizeof(int32_t) * N);
  int32_t* c = malloc(sizeof(int32_t) * N);
  if (!a || !b || !c) return 2;
  uint32_t seed = 8086;
  for (uint32_t i = 0; i < N; ++i) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (int32_t)(seed >> 8) % 100000;
    seed = seed * 1103515245u + 12345u;
    b[i] = (int32_t)(seed >> 8) % 100000;
  }
  uint32_t hash = 2166136261u;
  for (uint32_t r = 0; r < rounds; ++r) {
    const int32_t limit = 20000 + (int32_t)(r % 1000) * 50;
    clamp_difference(N, a, b, c, -limit, limit);
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < N; ++i) {
      lo = c[i] < lo ? c[i] : lo;
      hi = c[i] > hi ? c[i] : hi;
      sum += (uint32_t)c[i];
    }
    hash = (hash ^ (uint32_t)lo ^ ((uint32_t)hi << 7) ^ sum) * 16777619u;
    // Next input: a += 37 element-wise, wrapping within [0, 100000).
    for (uint32_t i = 0; i < N; ++i) a[i] = a[i] >= 99963 ? a[i] - 99963 : a[i] + 37;
  }
  free(a);
  free(b);
  free(c);
  printf("clamp_i32(%u) checksum %08x\n", rounds, hash);
  return 0;
}
