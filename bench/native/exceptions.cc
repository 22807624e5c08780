// The loops of bench/exceptions/exceptions.wat in C++ with throw/catch, the
// native reference for issue 19's exception round trips (bench/run.py
// `--only exceptions`; docs/performance.md "Exceptions (issue 19)").
//
//   exceptions local|deep|plain|in_try N   → prints N(N−1)/2
//
// local:  try { throw i; } catch (int) in the loop body.
// deep:   try around a call of f10, which calls f9 … f1, which throws: 10
//         frames between the catcher and the thrower.
// plain:  a call of work (returns its argument; throws only for a negative
//         one, which never happens) per iteration, no try.
// in_try: the same call inside try/catch in the loop body.
//
// The callees are noipa (noinline, and no interprocedural analysis), opaque to
// their callers as Wasm functions are to weft: with noinline alone GCC infers
// that f1 … f10 never return and drops the code after each call. g++ -O2
// (bench/run.py).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define OPAQUE __attribute__((noinline, noipa))

OPAQUE int f1(int v) { throw v; }
// Each frame adds 1 to the value of the one below after the call returns (it
// never does), so no call is a tail call.
OPAQUE int f2(int v) { return f1(v) + 1; }
OPAQUE int f3(int v) { return f2(v) + 1; }
OPAQUE int f4(int v) { return f3(v) + 1; }
OPAQUE int f5(int v) { return f4(v) + 1; }
OPAQUE int f6(int v) { return f5(v) + 1; }
OPAQUE int f7(int v) { return f6(v) + 1; }
OPAQUE int f8(int v) { return f7(v) + 1; }
OPAQUE int f9(int v) { return f8(v) + 1; }
OPAQUE int f10(int v) { return f9(v) + 1; }

OPAQUE int work(int v) {
  if (v < 0) throw v;
  return v;
}

static int64_t local(uint32_t n) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    try {
      throw static_cast<int>(i);
    } catch (int v) {
      sum += static_cast<uint32_t>(v);
    }
  }
  return sum;
}

static int64_t deep(uint32_t n) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    try {
      sum += static_cast<uint32_t>(f10(static_cast<int>(i)));
    } catch (int v) {
      sum += static_cast<uint32_t>(v);
    }
  }
  return sum;
}

static int64_t plain(uint32_t n) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += static_cast<uint32_t>(work(static_cast<int>(i)));
  return sum;
}

static int64_t in_try(uint32_t n) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    try {
      sum += static_cast<uint32_t>(work(static_cast<int>(i)));
    } catch (int v) {
      sum += static_cast<uint32_t>(v);
    }
  }
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s local|deep|plain|in_try N\n", argv[0]);
    return 2;
  }
  const uint32_t n = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  int64_t (*const loops[])(uint32_t) = {local, deep, plain, in_try};
  const char* const names[] = {"local", "deep", "plain", "in_try"};
  for (int k = 0; k < 4; ++k) {
    if (std::strcmp(argv[1], names[k]) == 0) {
      std::printf("%lld\n", static_cast<long long>(loops[k](n)));
      return 0;
    }
  }
  std::fprintf(stderr, "%s: unknown loop '%s'\n", argv[0], argv[1]);
  return 2;
}
