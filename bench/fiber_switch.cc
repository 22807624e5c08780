// P1: weft::fiber_context vs boost::context::fiber — ping-pong round trip and create + first switch + destroy.
//
// Both libraries run in this one binary, on the same machine state, with the
// same loop shapes. Every benchmark checks a counter so a broken switch cannot
// look fast. Report medians of repetitions (docs/performance.md has the command).
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <cstdint>
#include <span>

#include "fibers/fiber_context.h"
#include "fibers/stack_pool.h"

namespace {

namespace ctx = boost::context;

// ---------------------------------------------------------------------------
// Ping-pong: main resumes a fiber that immediately resumes main. One iteration
// is one round trip = two context switches.
// ---------------------------------------------------------------------------
template <class Fiber>
void ping_pong(benchmark::State& state) {
  std::uint64_t rounds = 0;
  bool stop = false;
  Fiber f{[&](Fiber&& caller) {
    while (!stop) {
      ++rounds;
      caller = std::move(caller).resume();
    }
    return std::move(caller);
  }};
  f = std::move(f).resume();  // enter the fiber once (first-switch costs stay out of the loop)
  for (auto _ : state) f = std::move(f).resume();
  stop = true;
  f = std::move(f).resume();
  const bool finished = !f;
  if (!finished || rounds != static_cast<std::uint64_t>(state.iterations()) + 1) {
    state.SkipWithError("round-trip count mismatch");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 2);  // switches
}

void BM_PingPong_Weft(benchmark::State& state) { ping_pong<weft::fiber_context>(state); }
void BM_PingPong_Boost(benchmark::State& state) { ping_pong<ctx::fiber>(state); }
BENCHMARK(BM_PingPong_Weft);
BENCHMARK(BM_PingPong_Boost);

// ---------------------------------------------------------------------------
// Lifecycle: create a fiber, switch into it, it returns the caller (its stack
// is freed on the way back). Default stacks on both sides: weft's per-thread
// pool (128 KiB + guard page) vs Boost's fixedsize_stack (128 KiB malloc).
// ---------------------------------------------------------------------------
template <class Make>
void lifecycle(benchmark::State& state, Make make) {
  std::uint64_t entered = 0;
  for (auto _ : state) {
    auto f = make([&entered](auto&& caller) {
      ++entered;
      return std::move(caller);
    });
    f = std::move(f).resume();
    benchmark::DoNotOptimize(f);
  }
  if (entered != static_cast<std::uint64_t>(state.iterations())) state.SkipWithError("entry count mismatch");
}

void BM_CreateSwitchDestroy_Weft(benchmark::State& state) {
  lifecycle(state, [](auto&& fn) {
    return weft::fiber_context{[fn](weft::fiber_context&& c) mutable { return fn(std::move(c)); }};
  });
}

void BM_CreateSwitchDestroy_Boost(benchmark::State& state) {
  lifecycle(state, [](auto&& fn) { return ctx::fiber{[fn](ctx::fiber&& c) mutable { return fn(std::move(c)); }}; });
}

// Pooled variants: a caller-owned pool on both sides (weft: unguarded StackPool
// through the explicit-stack constructor; Boost: pooled_fixedsize_stack).
void BM_CreateSwitchDestroy_WeftPool(benchmark::State& state) {
  weft::fibers::StackPoolConfig config;
  config.stack_size = 128 * 1024;
  config.guard_pages = 0;
  weft::fibers::StackPool pool(config);
  struct Release {
    weft::fibers::StackPool* pool;
    void operator()(std::span<std::byte> s) const noexcept { pool->release({s.data(), s.size()}); }
  };
  lifecycle(state, [&pool](auto&& fn) {
    return weft::fiber_context{[fn](weft::fiber_context&& c) mutable { return fn(std::move(c)); },
                               pool.allocate().value().span(), Release{&pool}};
  });
}

void BM_CreateSwitchDestroy_BoostPool(benchmark::State& state) {
  ctx::pooled_fixedsize_stack pool(128 * 1024);
  lifecycle(state, [&pool](auto&& fn) {
    return ctx::fiber{std::allocator_arg, pool, [fn](ctx::fiber&& c) mutable { return fn(std::move(c)); }};
  });
}

BENCHMARK(BM_CreateSwitchDestroy_Weft);
BENCHMARK(BM_CreateSwitchDestroy_Boost);
BENCHMARK(BM_CreateSwitchDestroy_WeftPool);
BENCHMARK(BM_CreateSwitchDestroy_BoostPool);

}  // namespace

BENCHMARK_MAIN();
