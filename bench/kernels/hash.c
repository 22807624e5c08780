// hash: a 64-bit multiply-rotate hash (xxhash64-style rounds) over a 1 MiB buffer, repeated.
// Usage: hash [rounds]   (default 300); prints the combined digest.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_BYTES (1u << 20)
static const uint64_t P1 = 11400714785074694791ull, P2 = 14029467366897019727ull, P3 = 1609587929392839161ull;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t read64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);  // little-endian on both targets
  return v;
}

static uint64_t hash_buffer(const uint8_t* p, size_t len, uint64_t seed) {
  uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
  for (size_t i = 0; i + 32 <= len; i += 32) {
    v1 = rotl(v1 + read64(p + i) * P2, 31) * P1;
    v2 = rotl(v2 + read64(p + i + 8) * P2, 31) * P1;
    v3 = rotl(v3 + read64(p + i + 16) * P2, 31) * P1;
    v4 = rotl(v4 + read64(p + i + 24) * P2, 31) * P1;
  }
  uint64_t h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18) + len;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  return h ^ (h >> 32);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 300;
  uint8_t* buffer = malloc(BUFFER_BYTES);
  if (!buffer) return 2;
  uint64_t state = 88172645463325252ull;  // xorshift64 fill
  for (size_t i = 0; i < BUFFER_BYTES; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    buffer[i] = (uint8_t)state;
  }
  uint64_t digest = 0;
  for (int r = 0; r < rounds; ++r) {
    digest = hash_buffer(buffer, BUFFER_BYTES, digest);
    buffer[(size_t)r % BUFFER_BYTES] ^= (uint8_t)digest;  // every round hashes different data
  }
  free(buffer);
  printf("hash(%d) checksum %016llx\n", rounds, (unsigned long long)digest);
  return 0;
}
