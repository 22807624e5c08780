// quicksort: median-of-three quicksort with insertion sort for short ranges over
// pseudo-random int32 — compares, swaps, recursion.
// Usage: quicksort [n]   (default 5000000); prints a hash of the sorted array.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void swap(int32_t* a, int32_t* b) {
  const int32_t t = *a;
  *a = *b;
  *b = t;
}

static void insertion_sort(int32_t* v, int32_t lo, int32_t hi) {
  for (int32_t i = lo + 1; i <= hi; ++i) {
    const int32_t x = v[i];
    int32_t j = i - 1;
    while (j >= lo && v[j] > x) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
}

static void quicksort(int32_t* v, int32_t lo, int32_t hi) {
  while (hi - lo > 16) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
    if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
    if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
    const int32_t pivot = v[mid];
    int32_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) swap(&v[i++], &v[j--]);
    }
    // Recurse into the smaller side, loop on the larger: O(log n) depth.
    if (j - lo < hi - i) {
      quicksort(v, lo, j);
      lo = i;
    } else {
      quicksort(v, i, hi);
      hi = j;
    }
  }
  insertion_sort(v, lo, hi);
}

int main(int argc, char** argv) {
  const int32_t n = argc > 1 ? atoi(argv[1]) : 5000000;
  int32_t* v = malloc(sizeof(int32_t) * (size_t)n);
  if (!v) return 2;
  uint32_t seed = 2463534242u;
  for (int32_t i = 0; i < n; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    v[i] = (int32_t)seed;
  }
  quicksort(v, 0, n - 1);
  uint32_t hash = 2166136261u;
  int sorted = 1;
  for (int32_t i = 0; i < n; ++i) {
    if (i > 0 && v[i - 1] > v[i]) sorted = 0;
    hash = (hash ^ (uint32_t)v[i]) * 16777619u;
  }
  free(v);
  printf("quicksort(%d) sorted %d checksum %08x\n", n, sorted, hash);
  return 0;
}
