// crc32: table-driven CRC-32 (IEEE, reflected) over a 1 MiB buffer, repeated —
// byte loads, table lookups, shifts.
// Usage: crc32 [rounds]   (default 120); prints the chained CRC.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BUFFER_BYTES (1u << 20)

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 120;
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  uint8_t* buffer = malloc(BUFFER_BYTES);
  if (!buffer) return 2;
  uint32_t seed = 1;
  for (uint32_t i = 0; i < BUFFER_BYTES; ++i) {
    seed = seed * 1103515245u + 12345u;
    buffer[i] = (uint8_t)(seed >> 16);
  }
  uint32_t crc = 0;
  for (int r = 0; r < rounds; ++r) {
    uint32_t c = ~crc;
    for (uint32_t i = 0; i < BUFFER_BYTES; ++i) c = table[(c ^ buffer[i]) & 0xFF] ^ (c >> 8);
    crc = ~c;
  }
  free(buffer);
  printf("crc32(%d) checksum %08x\n", rounds, crc);
  return 0;
}
