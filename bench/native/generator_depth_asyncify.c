// Depth sweep, Asyncify side: the generator of bench/fibers/generator_depth.wat
// in C for wasm32, made resumable with Binaryen's Asyncify. Every value is
// yielded from DEPTH calls below the generator body, and Asyncify unwinds all
// of those frames into a buffer on each yield and rewinds them on the next
// resume, so its round trip grows with the depth (a stack switch's does not).
//
//   generator_depth_asyncify N DEPTH   → prints the sum 0 + 1 + … + N-1 (DEPTH ≥ 1)
//
// Built by bench/run.py like generator_asyncify.c (clang -O2 -c, link without
// -O), then
//   wasm-opt --asyncify --pass-arg=asyncify-onlylist@count_up,yield_from_depth,yield_value -O2
// which instruments every function on the path from the generator body to
// the yield, as a real program must: count_up, the recursive yield_from_depth
// and yield_value (the call that starts the unwind; left out, the pass assumes
// its callers never see an unwind and the program traps).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((import_module("asyncify"), import_name("start_unwind"))) void asyncify_start_unwind(void* data);
__attribute__((import_module("asyncify"), import_name("stop_unwind"))) void asyncify_stop_unwind(void);
__attribute__((import_module("asyncify"), import_name("start_rewind"))) void asyncify_start_rewind(void* data);
__attribute__((import_module("asyncify"), import_name("stop_rewind"))) void asyncify_stop_rewind(void);

// Asyncify's data area: the current and end pointers, then the saved frames
// (a few dozen bytes per frame; an overflow traps, it does not corrupt).
static struct {
  char* current;
  char* end;
  char frames[64 * 1024];
} unwind_area;

static int rewinding;  // the next call of yield_value completes a resume
static int suspended;  // the generator unwound (rather than returned)
static uint32_t yielded;

// On a yield it starts the unwind and returns; on the rewind that resumes the
// generator it ends the rewind and returns normally.
__attribute__((noinline)) static void yield_value(uint32_t v) {
  if (rewinding) {
    asyncify_stop_rewind();
    rewinding = 0;
    return;
  }
  yielded = v;
  suspended = 1;
  asyncify_start_unwind(&unwind_area);
}

// Calls itself down to depth 1, which yields v; returns the number of frames
// used. clang turns `return f(d - 1, v) + 1` into a loop (accumulator
// recursion elimination), so the count passes through an empty asm statement
// the optimizer cannot see through: every level stays a real call + return.
__attribute__((noinline)) uint32_t yield_from_depth(uint32_t depth, uint32_t v) {
  if (depth > 1) {
    uint32_t frames_below = yield_from_depth(depth - 1, v);
    __asm__ volatile("" : "+r"(frames_below));
    return frames_below + 1;
  }
  yield_value(v);
  return 1;
}

// The generator body; a wrong frame count aborts (fails the benchmark).
__attribute__((noinline)) void count_up(uint32_t n, uint32_t depth) {
  for (uint32_t i = 0; i < n; ++i)
    if (yield_from_depth(depth, i) != depth) abort();
}

// Runs the generator to its next yield; returns 0 once it has returned.
__attribute__((noinline)) static int resume_generator(uint32_t n, uint32_t depth, int first) {
  if (!first) {
    rewinding = 1;
    asyncify_start_rewind(&unwind_area);
  }
  count_up(n, depth);
  if (!suspended) return 0;
  suspended = 0;
  asyncify_stop_unwind();
  return 1;
}

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
  const uint32_t depth = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1u;
  unwind_area.current = unwind_area.frames;
  unwind_area.end = unwind_area.frames + sizeof unwind_area.frames;
  uint64_t sum = 0;
  for (int first = 1; resume_generator(n, depth, first); first = 0) sum += yielded;
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
