// base64: encodes a pseudo-random buffer to base64 and decodes it back, many
// times — byte loads and stores, shifts, masks and table lookups.
// Usage: base64 [rounds]   (default 2000); prints a checksum of the encoded
// text and whether the last round trip gave back the input.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// 2 mod 3: the whole buffer ends in "=", the buffer from its second byte in "==".
#define INPUT_BYTES 65537u
#define ENCODED_BYTES ((INPUT_BYTES + 2) / 3 * 4)

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static uint8_t decode_table[256];  // 6-bit value + 1 per character, 0 = not base64

static size_t encode(const uint8_t* in, size_t n, char* out) {
  size_t o = 0, i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[o++] = alphabet[v >> 18];
    out[o++] = alphabet[v >> 12 & 63];
    out[o++] = alphabet[v >> 6 & 63];
    out[o++] = alphabet[v & 63];
  }
  if (i < n) {
    const uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
    out[o++] = alphabet[v >> 18];
    out[o++] = alphabet[v >> 12 & 63];
    out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
    out[o++] = '=';
  }
  return o;
}

// Returns the number of bytes decoded, or (size_t)-1 on a character outside the alphabet.
static size_t decode(const char* in, size_t n, uint8_t* out) {
  size_t o = 0;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    const uint32_t a = decode_table[(uint8_t)in[i]], b = decode_table[(uint8_t)in[i + 1]];
    const uint32_t c = decode_table[(uint8_t)in[i + 2]], d = decode_table[(uint8_t)in[i + 3]];
    if (!a || !b) return (size_t)-1;
    out[o++] = (uint8_t)((a - 1) << 2 | (b - 1) >> 4);
    if (in[i + 2] == '=') break;
    if (!c) return (size_t)-1;
    out[o++] = (uint8_t)((b - 1) << 4 | (c - 1) >> 2);
    if (in[i + 3] == '=') break;
    if (!d) return (size_t)-1;
    out[o++] = (uint8_t)((c - 1) << 6 | (d - 1));
  }
  return o;
}

// Encodes in[0..n) and decodes it back; returns the encoded length. Called
// twice per round, so encode and decode stay functions of their own.
static size_t round_trip(const uint8_t* in, size_t n, char* encoded, uint8_t* decoded, size_t* decoded_length) {
  const size_t length = encode(in, n, encoded);
  *decoded_length = decode(encoded, length, decoded);
  return length;
}

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
  uint8_t* input = malloc(INPUT_BYTES);
  uint8_t* decoded = malloc(INPUT_BYTES);
  char* encoded = malloc(ENCODED_BYTES);
  if (!input || !decoded || !encoded) return 2;
  for (int k = 0; k < 64; ++k) decode_table[(uint8_t)alphabet[k]] = (uint8_t)(k + 1);
  uint32_t x = 2463534242u;
  for (uint32_t i = 0; i < INPUT_BYTES; ++i) {
    x = x * 1664525u + 1013904223u;  // LCG: its top byte is the one worth using
    input[i] = (uint8_t)(x >> 24);
  }
  uint32_t checksum = 0;
  size_t length = 0, decoded_length = 0;
  for (uint32_t r = 0; r < rounds; ++r) {
    input[r % INPUT_BYTES] ^= (uint8_t)(r | 1);  // every round encodes a different buffer
    length = round_trip(input, INPUT_BYTES, encoded, decoded, &decoded_length);
    checksum = checksum * 31u + (uint8_t)encoded[(r * 7919u) % length] + decoded[(r * 104729u) % INPUT_BYTES];
    length = round_trip(input + 1, INPUT_BYTES - 1, encoded, decoded, &decoded_length);
    checksum = checksum * 31u + (uint8_t)encoded[(r * 7907u) % length] + decoded[(r * 104723u) % (INPUT_BYTES - 1)];
  }
  // The last round trip (of input + 1) must give back its input.
  uint32_t mismatches = rounds == 0 || decoded_length == INPUT_BYTES - 1 ? 0 : 1;
  for (uint32_t i = 0; i + 1 < INPUT_BYTES && rounds && !mismatches; ++i) mismatches += decoded[i] != input[i + 1];
  printf("base64(%u) %zu chars, round trip %s, checksum %08x\n", rounds, length, mismatches ? "FAILED" : "ok",
         checksum);
  free(input);
  free(decoded);
  free(encoded);
  return 0;
}
