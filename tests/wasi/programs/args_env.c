/* argv and the environment: both runs get the same arguments and exactly the
 * same variables (`env -i` natively, --env under weft). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char** environ;

static int compare(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

int main(int argc, char** argv) {
  printf("argc = %d\n", argc);
  for (int i = 1; i < argc; ++i) printf("argv[%d] = [%s]\n", i, argv[i]);
  size_t n = 0;
  while (environ[n]) ++n;
  char** sorted = malloc((n + 1) * sizeof(char*));
  memcpy(sorted, environ, n * sizeof(char*));
  qsort(sorted, n, sizeof(char*), compare);
  printf("environ has %zu entries\n", n);
  for (size_t i = 0; i < n; ++i) printf("env: %s\n", sorted[i]);
  const char* greeting = getenv("GREETING");
  printf("GREETING = %s\n", greeting ? greeting : "(unset)");
  const char* missing = getenv("NOT_SET_ANYWHERE");
  printf("NOT_SET_ANYWHERE = %s\n", missing ? missing : "(unset)");
  free(sorted);
  return argc == 4 ? 0 : 1;
}
