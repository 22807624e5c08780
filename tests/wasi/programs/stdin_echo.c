/* Echoes stdin with line numbers and counts bytes, lines and words. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char line[4096];
  unsigned lines = 0, words = 0, bytes = 0;
  while (fgets(line, sizeof line, stdin)) {
    ++lines;
    bytes += (unsigned)strlen(line);
    int in_word = 0;
    for (char* p = line; *p; ++p) {
      if (isspace((unsigned char)*p)) in_word = 0;
      else if (!in_word) { in_word = 1; ++words; }
      *p = (char)toupper((unsigned char)*p);
    }
    printf("%4u: %s", lines, line);
  }
  printf("lines=%u words=%u bytes=%u eof=%d\n", lines, words, bytes, feof(stdin) ? 1 : 0);
  return 0;
}
