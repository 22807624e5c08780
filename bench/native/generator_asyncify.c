// P3: the generator of bench/fibers/generator.wat written in C for wasm32 and
// made resumable with Binaryen's Asyncify (`wasm-opt --asyncify`): every yield
// unwinds the generator's stack into a buffer and the next resume rewinds it.
//
//   generator_asyncify N   → prints the sum 0 + 1 + … + N-1
//
// Built by bench/run.py: clang --target=wasm32-wasi -O2, then
//   wasm-opt --asyncify --pass-arg=asyncify-onlylist@count_up,yield_value -O2
// Only count_up (the generator body) and yield_value (which starts the unwind;
// left out, the pass assumes count_up never sees one and the sum comes out wrong)
// are instrumented. The asyncify.* imports are replaced by the pass with its
// own functions, so the result is a plain WASI command that runs on node and
// on weft alike.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((import_module("asyncify"), import_name("start_unwind"))) void asyncify_start_unwind(void* data);
__attribute__((import_module("asyncify"), import_name("stop_unwind"))) void asyncify_stop_unwind(void);
__attribute__((import_module("asyncify"), import_name("start_rewind"))) void asyncify_start_rewind(void* data);
__attribute__((import_module("asyncify"), import_name("stop_rewind"))) void asyncify_stop_rewind(void);

// Asyncify's data area: the current and end pointers, then the saved frames.
static struct {
  char* current;
  char* end;
  char frames[1024];
} unwind_area;

static int rewinding;  // the next call of yield_value completes a resume
static int suspended;  // the generator unwound (rather than returned)
static uint32_t yielded;

// On a yield it starts the unwind and returns; on the
// rewind that resumes the generator it ends the rewind and returns normally.
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

// The generator body.
__attribute__((noinline)) void count_up(uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) yield_value(i);
}

// Runs the generator to its next yield; returns 0 once it has returned.
__attribute__((noinline)) static int resume_generator(uint32_t n, int first) {
  if (!first) {
    rewinding = 1;
    asyncify_start_rewind(&unwind_area);
  }
  count_up(n);
  if (!suspended) return 0;
  suspended = 0;
  asyncify_stop_unwind();
  return 1;
}

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000000u;
  unwind_area.current = unwind_area.frames;
  unwind_area.end = unwind_area.frames + sizeof unwind_area.frames;
  uint64_t sum = 0;
  for (int first = 1; resume_generator(n, first); first = 0) sum += yielded;
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
