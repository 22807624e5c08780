/* Unbounded recursion: under weft it must trap with "call stack exhausted"
 * (natively it would crash on a segfault, so only weft runs it). */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) static int recurse(int n) {
  sink = n;
  return recurse(n + 1) + sink;
}

int main(int argc, char** argv) {
  (void)argv;
  printf("starting\n");
  fflush(stdout);
  return recurse(argc);
}
