// blend_u8: 64 KiB byte "images": each round a saturating add (even rounds)
// or subtract (odd rounds) of a window of a second, larger image into a third,
// then an alpha blend of that back into the first with 8-bit weights —
// unsigned byte arithmetic with saturation, widening to 16 bits and narrowing
// back. The -msimd128 build's hot loops (wasm-objdump -d, clang 14) are
// i8x16.add_sat_u, or i8x16.max_u + i8x16.sub, on v128.load/v128.store, and
// i8x16.shuffle (widening), i16x8.mul, i16x8.add, i16x8.shr_u and
// i8x16.narrow_i16x8_u.
// Usage: blend_u8 [rounds]   (default 40000); prints a hash of the blended image.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PIXELS (1u << 16)
#define SLACK 1024u  // the second image's extra bytes: its window moves each round

static void add_saturate(uint32_t n, const uint8_t* restrict a, const uint8_t* restrict b,
                         uint8_t* restrict out) {
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t s = (uint8_t)(a[i] + b[i]);
    out[i] = s < a[i] ? 255 : s;
  }
}

static void subtract_saturate(uint32_t n, const uint8_t* restrict a, const uint8_t* restrict b,
                              uint8_t* restrict out) {
  for (uint32_t i = 0; i < n; ++i) out[i] = a[i] > b[i] ? (uint8_t)(a[i] - b[i]) : 0;
}

// a·(256 − alpha) + top·alpha <= 255·256: the sum fits in 16 bits.
static void blend(uint32_t n, uint8_t* restrict a, const uint8_t* restrict top, uint16_t alpha) {
  const uint16_t keep = (uint16_t)(256 - alpha);
  for (uint32_t i = 0; i < n; ++i) a[i] = (uint8_t)((uint16_t)(a[i] * keep + top[i] * alpha) >> 8);
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 40000;
  uint8_t* a = malloc(PIXELS);
  uint8_t* b = malloc(PIXELS + SLACK);
  uint8_t* sum = malloc(PIXELS);
  if (!a || !b || !sum) return 2;
  uint32_t seed = 31337;
  for (uint32_t i = 0; i < PIXELS; ++i) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (uint8_t)(seed >> 16);
  }
  for (uint32_t i = 0; i < PIXELS + SLACK; ++i) {
    seed = seed * 1103515245u + 12345u;
    b[i] = (uint8_t)((i * 7) ^ (seed >> 24));
  }
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint8_t* layer = b + ((r * 97u) & (SLACK - 1));
    if (r & 1)
      subtract_saturate(PIXELS, a, layer, sum);
    else
      add_saturate(PIXELS, a, layer, sum);
    blend(PIXELS, a, sum, (uint16_t)(96 + (r & 63)));
  }
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < PIXELS; ++i) hash = (hash ^ a[i]) * 16777619u;
  free(a);
  free(b);
  free(sum);
  printf("blend_u8(%u) checksum %08x\n", rounds, hash);
  return 0;
}
