// strings: builds records in malloc'd, growing strings (append, integer
// formatting by hand, realloc) and searches them for a pattern — allocator and
// byte-loop work. Usage: strings [n]   (default 60000); prints match statistics.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char* data;
  size_t len, cap;
} Str;

static void append(Str* s, const char* p, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 16;
    while (s->len + n + 1 > cap) cap *= 2;
    s->data = realloc(s->data, cap);
    if (!s->data) exit(2);
    s->cap = cap;
  }
  memcpy(s->data + s->len, p, n);
  s->len += n;
  s->data[s->len] = 0;
}

static void append_uint(Str* s, uint32_t v) {
  char digits[10];
  int k = 0;
  do {
    digits[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  char out[10];
  for (int i = 0; i < k; ++i) out[i] = digits[k - 1 - i];
  append(s, out, (size_t)k);
}

// Naive search (the program's own, so both targets do the same work).
static size_t count_matches(const char* text, size_t len, const char* pat, size_t plen) {
  size_t count = 0;
  for (size_t i = 0; i + plen <= len; ++i) {
    size_t j = 0;
    while (j < plen && text[i + j] == pat[j]) ++j;
    if (j == plen) ++count;
  }
  return count;
}

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 60000;
  static const char* words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};
  uint32_t seed = 42;
  uint64_t matches = 0, bytes = 0;
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) {
    Str s = {0, 0, 0};
    append(&s, "record-", 7);
    append_uint(&s, i);
    const uint32_t parts = 4 + i % 24;
    for (uint32_t p = 0; p < parts; ++p) {
      seed = seed * 1103515245u + 12345u;
      const char* w = words[(seed >> 16) & 7];
      append(&s, ":", 1);
      append(&s, w, strlen(w));
      append_uint(&s, (seed >> 20) & 255);
    }
    matches += count_matches(s.data, s.len, "eta1", 4) + count_matches(s.data, s.len, "a:", 2);
    bytes += s.len;
    for (size_t k = 0; k < s.len; k += 7) hash = (hash ^ (uint8_t)s.data[k]) * 16777619u;
    free(s.data);
  }
  printf("strings(%u) bytes %llu matches %llu checksum %08x\n", n, (unsigned long long)bytes,
         (unsigned long long)matches, hash);
  return 0;
}
