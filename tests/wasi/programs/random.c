/* Random bytes: filled, not constant, different between draws. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  unsigned char a[256], b[256];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  printf("getentropy a: %d\n", getentropy(a, sizeof a));
  printf("getentropy b: %d\n", getentropy(b, sizeof b));
  int distinct = 0, seen[256] = {0};
  for (int i = 0; i < 256; ++i)
    if (!seen[a[i]]++) ++distinct;
  printf("draws differ: %d\n", memcmp(a, b, sizeof a) != 0);
  printf("many distinct byte values: %d\n", distinct > 64);
  unsigned char big[300];
  printf("getentropy > 256 bytes fails: %d\n", getentropy(big, sizeof big) != 0);
  return 0;
}
