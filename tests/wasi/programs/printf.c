/* printf of integers, floats and strings, and many small writes (stdout is
 * compared byte for byte with the native build). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  printf("ints: %d %d %d %u %x %X %o\n", 0, -1, INT_MAX, UINT_MAX, 0xdeadbeefu, 0xcafeu, 0755);
  printf("int64: %" PRId64 " %" PRIu64 " %" PRIx64 "\n", INT64_MIN, UINT64_MAX, (uint64_t)0x0123456789abcdefull);
  printf("widths: [%5d] [%-5d] [%05d] [%+d] [% d]\n", 42, 42, 42, 42, 42);
  printf("floats: %f %.3f %e %g %g %g\n", 3.14159265358979, 2.0 / 3.0, 6.02214076e23, 1e-5, 100000.0, 1e20);
  printf("special: %f %f %f %.0f %.1f\n", INFINITY, -INFINITY, -0.0, 0.5, 0.25);
  printf("nan: %s\n", isnan(NAN) ? "yes" : "no");
  printf("sqrt(2) = %.15f, sin(1) = %.12f, pow(2, 0.5) = %.15g\n", sqrt(2.0), sin(1.0), pow(2.0, 0.5));
  printf("float32: %.9g %.9g\n", (double)1.1f, (double)(1.0f / 3.0f));
  printf("strings: [%s] [%10s] [%-10s] [%.3s] [%c]\n", "weft", "right", "left", "truncate", 'Z');
  unsigned long sum = 0;
  for (int i = 0; i < 20000; ++i) {
    printf("%d%c", i, (i % 16 == 15) ? '\n' : ' ');
    sum += (unsigned long)i;
  }
  printf("\nsum = %lu\n", sum);
  for (int i = 0; i < 1000; ++i) fputs("x", stdout);
  putchar('\n');
  fprintf(stderr, "stderr is not compared\n");
  return 0;
}
