// dot_i16: a 64 x 1024 int16 matrix times an int16 vector, the dot products
// accumulated in int32 (a fixed-point filter bank), repeated with the vector
// updated element-wise each round — widening int16 multiply-add and an integer
// horizontal sum. The -msimd128 build's inner loop (wasm-objdump -d, clang 14)
// widens with v128.load16x4_s and multiplies and adds with i32x4.mul +
// i32x4.add (no i32x4.dot_i16x8_s); the update uses i16x8.add, i16x8.gt_s and
// v128.bitselect. Integer sums: exact in any order.
// Usage: dot_i16 [rounds]   (default 120000); prints a hash of the dot products.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 64
#define COLS 1024

static int32_t dot(uint32_t n, const int16_t* restrict a, const int16_t* restrict b) {
  int32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += (int32_t)a[i] * b[i];
  return sum;
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 120000;
  int16_t* w = malloc(sizeof(int16_t) * ROWS * COLS);
  int16_t* x = malloc(sizeof(int16_t) * COLS);
  if (!w || !x) return 2;
  uint32_t seed = 99;
  for (uint32_t i = 0; i < ROWS * COLS; ++i) {
    seed = seed * 1103515245u + 12345u;
    w[i] = (int16_t)((int32_t)(seed >> 16) % 2001 - 1000);
  }
  for (uint32_t i = 0; i < COLS; ++i) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (int16_t)((int32_t)(seed >> 16) % 2001 - 1000);
  }
  uint32_t hash = 2166136261u;
  for (uint32_t r = 0; r < rounds; ++r) {
    for (uint32_t row = 0; row < ROWS; ++row) {
      // |w|, |x| <= 1000: a sum of 1024 products stays within int32.
      hash = (hash ^ (uint32_t)dot(COLS, w + row * COLS, x)) * 16777619u;
    }
    // Next input: an element-wise, bounded update (|x| stays <= 1000).
    const int16_t step = (int16_t)(r % 7 + 1);
    for (uint32_t i = 0; i < COLS; ++i) {
      const int16_t v = (int16_t)(x[i] + step);
      x[i] = v > 1000 ? (int16_t)(v - 2000) : v;
    }
  }
  free(w);
  free(x);
  printf("dot_i16(%u) checksum %08x\n", rounds, hash);
  return 0;
}
