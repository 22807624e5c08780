// Owning-thread rules (P0876: a fiber may start on any thread, then stays on it) and per-thread stack pools.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fibers/fiber_context.h"

namespace weft {
namespace {

TEST(FiberThreads, NeverStartedFiberMayStartOnAnotherThread) {
  fibers::StackPool& main_pool = fibers::this_thread_stack_pool();
  const std::size_t in_use = main_pool.stacks_in_use();
  std::thread::id ran_on;
  fiber_context f{[&](fiber_context&& m) {
    ran_on = std::this_thread::get_id();
    m = std::move(m).resume();
    return std::move(m);
  }};
  EXPECT_TRUE(f.can_resume());  // no owner yet
  std::thread worker([&] {
    EXPECT_TRUE(f.can_resume());
    f = std::move(f).resume();
    EXPECT_TRUE(f.can_resume());  // now owned by this thread
    f = std::move(f).resume();    // finishes here: its stack goes back to main's pool
    EXPECT_TRUE(f.empty());
  });
  const std::thread::id worker_id = worker.get_id();
  worker.join();
  EXPECT_EQ(ran_on, worker_id);
  main_pool.collect_released();
  EXPECT_EQ(main_pool.stacks_in_use(), in_use);
}

TEST(FiberThreads, SuspendedFiberCanOnlyBeResumedByItsThread) {
  fiber_context f{[](fiber_context&& m) {
    m = std::move(m).resume();
    return std::move(m);
  }};
  f = std::move(f).resume();  // started here: owned by this thread
  EXPECT_TRUE(f.can_resume());
  bool elsewhere = true;
  std::thread([&] { elsewhere = f.can_resume(); }).join();
  EXPECT_FALSE(elsewhere);
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
}

TEST(FiberThreads, MainContextBelongsToTheMainThread) {
  bool here = false, elsewhere = true;
  fiber_context f{[&](fiber_context&& m) {
    here = m.can_resume();
    std::thread([&] { elsewhere = m.can_resume(); }).join();
    return std::move(m);
  }};
  f = std::move(f).resume();
  EXPECT_TRUE(here);
  EXPECT_FALSE(elsewhere);
}

TEST(FiberThreads, FibersOnManyThreadsAtOnce) {
  constexpr int kThreads = 4, kYields = 20000;
  std::atomic<long> total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      long value = 0;
      fiber_context gen{[&](fiber_context&& m) {
        for (int i = 1; i <= kYields; ++i) {
          value = i;
          m = std::move(m).resume();
        }
        return std::move(m);
      }};
      long sum = 0;
      for (int i = 0; i < kYields; ++i) {
        gen = std::move(gen).resume();
        sum += value;
      }
      gen = std::move(gen).resume();
      EXPECT_TRUE(gen.empty());
      EXPECT_NE(&fibers::this_thread_stack_pool(), nullptr);
      total += sum;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(total.load(), static_cast<long>(kThreads) * kYields * (kYields + 1) / 2);
}

TEST(FiberThreads, EachThreadHasItsOwnPool) {
  fibers::StackPool* mine = &fibers::this_thread_stack_pool();
  fibers::StackPool* theirs = nullptr;
  std::thread([&] { theirs = &fibers::this_thread_stack_pool(); }).join();
  EXPECT_NE(mine, theirs);
}

// A thread may exit while a fiber made from its pool is still unstarted; the pool
// outlives the thread and the fiber runs (and is freed) elsewhere.
TEST(FiberThreads, FiberOutlivesTheThreadThatCreatedIt) {
  fiber_context f;
  std::thread([&] {
    f = fiber_context{[](fiber_context&& m) {
      m = std::move(m).resume();
      return std::move(m);
    }};
  }).join();
  f = std::move(f).resume();
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace weft
