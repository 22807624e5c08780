// fib: doubly recursive Fibonacci — call-heavy, no memory traffic.
// Usage: fib [n]   (default 36); prints fib(n) summed over a few small offsets.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 36;
  uint32_t checksum = 0;
  // Three calls with distinct arguments so the compiler cannot fold them into one.
  for (uint32_t k = 0; k < 3; ++k) checksum = checksum * 31u + fib(n - k);
  printf("fib(%u) checksum %08x\n", n, checksum);
  return 0;
}
