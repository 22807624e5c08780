// mandelbrot: escape-time iteration over an n x n grid — tight double loops with branches.
// Usage: mandelbrot [n]   (default 1000); prints the total iteration count and a hash.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int max_iter = 100;
  uint64_t total = 0;
  uint32_t hash = 2166136261u;
  for (int py = 0; py < n; ++py) {
    const double ci = -1.25 + 2.5 * py / n;
    for (int px = 0; px < n; ++px) {
      const double cr = -2.0 + 2.5 * px / n;
      double zr = 0, zi = 0;
      int k = 0;
      while (k < max_iter && zr * zr + zi * zi <= 4.0) {
        const double t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        ++k;
      }
      total += (uint64_t)k;
      hash = (hash ^ (uint32_t)k) * 16777619u;
    }
  }
  printf("mandelbrot(%d) iterations %llu checksum %08x\n", n, (unsigned long long)total, hash);
  return 0;
}
