// byte_count: over a 256 KiB buffer of text-like bytes, counts per round the
// bytes equal to one value and the bytes below another (a memchr/strspn-like
// scan) — byte compares feeding counters. The -msimd128 build's hot loops
// (wasm-objdump -d, clang 14) compare 16 bytes at a time with i8x16.eq /
// i8x16.lt_u and count in 8-bit lanes with v128.and + i8x16.add.
// Usage: byte_count [rounds]   (default 24000); prints the two counts.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BYTES (1u << 18)

// Counts in blocks of 128 bytes with 8-bit counters (at most 128 per block),
// so that the compare results stay bytes: 16 per vector.
#define BLOCK 128

static uint32_t count_equal(uint32_t n, const uint8_t* restrict p, uint8_t c) {
  uint32_t count = 0;
  for (uint32_t block = 0; block < n; block += BLOCK) {
    uint8_t in_block = 0;
    for (uint32_t i = 0; i < BLOCK; ++i) in_block += p[block + i] == c;
    count += in_block;
  }
  return count;
}

static uint32_t count_below(uint32_t n, const uint8_t* restrict p, uint8_t c) {
  uint32_t count = 0;
  for (uint32_t block = 0; block < n; block += BLOCK) {
    uint8_t in_block = 0;
    for (uint32_t i = 0; i < BLOCK; ++i) in_block += p[block + i] < c;
    count += in_block;
  }
  return count;
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 24000;
  uint8_t* buffer = malloc(BYTES);
  if (!buffer) return 2;
  uint32_t seed = 2024;
  for (uint32_t i = 0; i < BYTES; ++i) {
    seed = seed * 1103515245u + 12345u;
    const uint32_t v = (seed >> 16) & 0x7F;
    buffer[i] = (uint8_t)(v < 20 ? ' ' : v < 24 ? '\n' : 'a' + v % 26);
  }
  uint64_t equal = 0, below = 0;
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint8_t c = (uint8_t)("\n etaoinshr"[r % 11]);
    equal += count_equal(BYTES, buffer, c);
    below += count_below(BYTES, buffer, (uint8_t)('a' + r % 26));
  }
  free(buffer);
  printf("byte_count(%u) equal %llu below %llu\n", rounds, (unsigned long long)equal,
         (unsigned long long)below);
  return 0;
}
