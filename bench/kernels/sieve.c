// sieve: sieve of Eratosthenes — byte stores with growing strides over a large array.
// Usage: sieve [limit]   (default 40000000); prints the prime count and a sum.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const uint32_t limit = argc > 1 ? (uint32_t)atoi(argv[1]) : 40000000u;
  uint8_t* composite = malloc(limit + 1);
  if (!composite) return 2;
  memset(composite, 0, limit + 1);
  for (uint32_t i = 2; (uint64_t)i * i <= limit; ++i) {
    if (composite[i]) continue;
    for (uint32_t j = i * i; j <= limit; j += i) composite[j] = 1;
  }
  uint32_t count = 0, sum = 0;
  for (uint32_t i = 2; i <= limit; ++i) {
    if (!composite[i]) {
      ++count;
      sum = sum * 33u + i;
    }
  }
  free(composite);
  printf("sieve(%u) primes %u checksum %08x\n", limit, count, sum);
  return 0;
}
