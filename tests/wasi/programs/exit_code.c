/* Exit codes: `exit(N)` from inside nested calls, after buffered output and
 * atexit handlers; returning from main; the code comes from argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void goodbye(void) { printf("atexit handler ran\n"); }

static void deep(int depth, int code) {
  if (depth == 0) {
    printf("exiting with %d from depth 10\n", code);
    exit(code);
  }
  deep(depth - 1, code);
  printf("not reached\n");
}

int main(int argc, char** argv) {
  atexit(goodbye);
  printf("buffered output before exit\n");
  if (argc > 2 && strcmp(argv[1], "return") == 0) return atoi(argv[2]);
  deep(10, argc > 1 ? atoi(argv[1]) : 0);
  return 99;
}
