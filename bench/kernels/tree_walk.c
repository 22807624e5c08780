// tree_walk: recursive walks of an implicit binary tree through two mutually
// recursive functions with four arguments (two of them i64) and i64 results —
// the cost of a call: argument passing, result return, frame set-up.
// Usage: tree_walk [passes]   (default 100); each pass walks a tree of depth
// 20 (2^21 calls); prints a checksum of the walks.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 20

static uint64_t walk_right(uint32_t node, uint32_t depth, uint64_t acc, uint64_t salt);

// noinline: the calls are what this kernel measures. Without it compilers
// inline one function of the pair into the other and halve them.
__attribute__((noinline)) static uint64_t walk_left(uint32_t node, uint32_t depth, uint64_t acc, uint64_t salt) {
  if (depth == 0) return acc ^ (node * 0x9e3779b97f4a7c15ull + salt);
  const uint64_t left = walk_left(2 * node, depth - 1, acc + node, salt ^ (salt >> 3));
  const uint64_t right = walk_right(2 * node + 1, depth - 1, acc * 3 + salt, salt + left);
  return left * 31 + right;
}

__attribute__((noinline)) static uint64_t walk_right(uint32_t node, uint32_t depth, uint64_t acc, uint64_t salt) {
  if (depth == 0) return (acc >> 7) + node + salt;
  const uint64_t right = walk_right(2 * node + 1, depth - 1, acc ^ node, salt * 5 + 1);
  const uint64_t left = walk_left(2 * node, depth - 1, acc - salt, salt ^ (right >> 32));
  return right ^ (left << 1);
}

int main(int argc, char** argv) {
  const uint32_t passes = argc > 1 ? (uint32_t)atoi(argv[1]) : 100;
  uint64_t checksum = 0;
  // Each pass starts from different values, so no pass can be folded into another.
  for (uint32_t p = 0; p < passes; ++p) checksum = checksum * 1000003u ^ walk_left(1, DEPTH, p, 0x5bd1e995u + p);
  printf("tree_walk(%u) checksum %016llx\n", passes, (unsigned long long)checksum);
  return 0;
}
