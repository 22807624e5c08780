// Scale: a million simultaneously suspended fibers on small pooled stacks, and reuse of those stacks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "fibers/fiber_context.h"
#include "fibers/stack_pool.h"

namespace weft {
namespace {

using fibers::Stack;
using fibers::StackPool;
using fibers::StackPoolConfig;

// Returns finished fibers' stacks to their pool (the Wasm layer does the same).
struct PoolDeleter {
  StackPool* pool;
  void operator()(std::span<std::byte> stack) const noexcept { pool->release({stack.data(), stack.size()}); }
};

#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kSmallStack = 2 * 1024;  // ASan redzones make frames several times larger
#else
constexpr std::size_t kSmallStack = 1024;
#endif

StackPoolConfig small_stacks() {
  StackPoolConfig c;
  c.stack_size = kSmallStack;
  c.guard_pages = 0;  // a guard per stack would cost two mappings each: max_map_count allows ~32k
  c.slab_size = 16u << 20;
  return c;
}

// Bytes of `stack` a fiber used, found by painting it first.
std::size_t high_water(const Stack& s) {
  std::size_t untouched = 0;
  while (untouched < s.size && s.base[untouched] == std::byte{0xcd}) ++untouched;
  return s.size - untouched;
}

// The tiny stacks below must fit the record, the first frame and a suspended
// fiber: measure what one uses so a regression shows up as a number, not a crash.
TEST(ManyFibers, SmallStackIsLargeEnough) {
  StackPool pool(small_stacks());
  const Stack s = pool.allocate().value();
  std::memset(s.base, 0xcd, s.size);
  int steps = 0;
  fiber_context f{[&steps](fiber_context&& m) {
                    ++steps;
                    m = std::move(m).resume();
                    ++steps;
                    return std::move(m);
                  },
                  s.span(), PoolDeleter{&pool}};
  f = std::move(f).resume();
  f = std::move(f).resume();
  EXPECT_EQ(steps, 2);
  const std::size_t used = high_water(s);
  std::printf("[ fibers ] stack used by a suspended fiber: %zu of %zu bytes\n", used, s.size);
  EXPECT_LE(used * 3 / 2, s.size) << "less than 50% headroom left on the small test stacks";
}

TEST(ManyFibers, OneMillionLiveFibers) {
  constexpr std::size_t kFibers = 1'000'000;
  StackPool pool(small_stacks());
  std::vector<fiber_context> fibers;
  fibers.reserve(kFibers);
  std::size_t started = 0, finished = 0;
  for (std::size_t i = 0; i < kFibers; ++i) {
    const fibers::StackResult stack = pool.allocate();
    ASSERT_TRUE(stack.ok()) << fibers::stack_error_name(stack.error()) << " after " << i << " stacks";
    fibers.emplace_back(
        [&started, &finished](fiber_context&& m) {
          ++started;
          m = std::move(m).resume();
          ++finished;
          return std::move(m);
        },
        stack.value().span(), PoolDeleter{&pool});
  }
  EXPECT_EQ(pool.stacks_in_use(), kFibers);
  // One mapping per slab: far below vm.max_map_count (65530 by default).
  EXPECT_LE(pool.slab_count(), kFibers * pool.stride() / pool.config().slab_size + 1);
  std::printf("[ fibers ] %zu fibers on %zu slabs of %zu KiB\n", kFibers, pool.slab_count(),
              pool.config().slab_size / 1024);

  // Start every fiber; each suspends back to us, so all are alive at once.
  for (fiber_context& f : fibers) f = std::move(f).resume();
  EXPECT_EQ(started, kFibers);
  EXPECT_EQ(finished, 0u);
  std::size_t suspended = 0;
  for (fiber_context& f : fibers) suspended += f.can_resume() ? 1 : 0;
  EXPECT_EQ(suspended, kFibers);

  for (fiber_context& f : fibers) {
    f = std::move(f).resume();
    ASSERT_TRUE(f.empty());
  }
  EXPECT_EQ(finished, kFibers);
  EXPECT_EQ(pool.stacks_in_use(), 0u);
  EXPECT_EQ(pool.stacks_pooled(), kFibers);

  // A second generation reuses the pooled stacks instead of mapping more.
  const std::size_t slabs = pool.slab_count();
  for (std::size_t i = 0; i < 10'000; ++i) {
    fiber_context f{[](fiber_context&& m) { return std::move(m); }, pool.allocate().value().span(),
                    PoolDeleter{&pool}};
    f = std::move(f).resume();
  }
  EXPECT_EQ(pool.slab_count(), slabs);
  EXPECT_GT(pool.trim(), kFibers * kSmallStack / 2);  // most of the touched memory goes back
}

}  // namespace
}  // namespace weft
