// StackPool: slabs, reuse, lazy commit, trimming, guard pages, limits, cross-thread release.
#include "fibers/stack_pool.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <thread>
#include <vector>

#include "fibers/fiber_context.h"
#include "tests/fibers/probe.h"

#if defined(__SANITIZE_ADDRESS__)
#define WEFT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_TEST_ASAN 1
#endif
#endif
#if defined(WEFT_TEST_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace weft::fibers {
namespace {

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

// Resident pages of [begin, end), rounded outward to pages.
std::size_t resident_pages(const std::byte* begin, const std::byte* end) {
  const auto lo = reinterpret_cast<std::uintptr_t>(begin) / kPage * kPage;
  const auto hi = (reinterpret_cast<std::uintptr_t>(end) + kPage - 1) / kPage * kPage;
  std::vector<unsigned char> vec((hi - lo) / kPage);
  if (mincore(reinterpret_cast<void*>(lo), hi - lo, vec.data()) != 0) return SIZE_MAX;
  std::size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

StackPoolConfig unguarded(std::size_t stack_size, std::size_t slab_size) {
  StackPoolConfig c;
  c.stack_size = stack_size;
  c.guard_pages = 0;
  c.slab_size = slab_size;
  return c;
}

TEST(StackPool, ConfigIsNormalised) {
  StackPool small(unguarded(1000, 1));
  EXPECT_EQ(small.stack_size(), 1024u);  // multiple of 64 without guards
  EXPECT_EQ(small.stride(), 1024u);
  EXPECT_EQ(small.config().slab_size, kPage);  // at least one stack, whole pages

  StackPoolConfig guarded;
  guarded.stack_size = 1000;
  guarded.guard_pages = 2;
  StackPool g(guarded);
  EXPECT_EQ(g.stack_size(), kPage);  // whole pages with guards
  EXPECT_EQ(g.stride(), 3 * kPage);
}

TEST(StackPool, ReusesTheMostRecentlyReleasedStack) {
  StackPool pool(unguarded(4096, 1 << 20));
  const StackResult a = pool.allocate(), b = pool.allocate();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a.value().base, b.value().base);
  EXPECT_EQ(pool.stacks_in_use(), 2u);
  pool.release(a.value());
  EXPECT_EQ(pool.stacks_pooled(), 1u);
  const StackResult c = pool.allocate();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value().base, a.value().base);
  pool.release(b.value());
  pool.release(c.value());
  EXPECT_EQ(pool.allocate().value().base, c.value().base);  // LIFO: warmest first
  EXPECT_EQ(pool.allocate().value().base, b.value().base);
  EXPECT_EQ(pool.slab_count(), 1u);
}

// Fiber-fuzzer finding (ASan only): a stack handed out again must carry no
// poisoning from earlier users — a Wasm fiber uses part of its stack as plain
// memory (frames and slots), where an earlier user may have had native frames,
// and ASan keeps the shadow of unmapped memory. Without ASan there is no
// shadow to check.
TEST(StackPool, HandsOutStacksWithoutStalePoisoning) {
#if defined(WEFT_TEST_ASAN) && defined(WEFT_FIBER_SANITIZER_ANNOTATIONS) && WEFT_FIBER_SANITIZER_ANNOTATIONS
  StackPool pool(unguarded(64 * 1024, 1 << 20));
  const StackResult a = pool.allocate();
  ASSERT_TRUE(a.ok());
  // What dead native frames leave behind: poisoned redzones in the middle.
  __asan_poison_memory_region(a.value().base + 16 * 1024, 4096);
  pool.release(a.value());
  const StackResult b = pool.allocate();
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b.value().base, a.value().base);
  EXPECT_EQ(__asan_region_is_poisoned(b.value().base, b.value().size), nullptr);
  pool.release(b.value());
  // Unmapped slabs go back clean too: whatever is mapped there next (a store's
  // value stack, another pool's slab) must not inherit the redzones.
  std::byte* reused = nullptr;
  {
    StackPool other(unguarded(64 * 1024, 1 << 20));
    const StackResult c = other.allocate();
    ASSERT_TRUE(c.ok());
    reused = c.value().base;
    __asan_poison_memory_region(reused + 16 * 1024, 4096);
    other.release(c.value());
  }
  EXPECT_EQ(__asan_region_is_poisoned(reused, 64 * 1024), nullptr);
  return;
#endif
  GTEST_SKIP() << "needs AddressSanitizer with the fiber sanitizer annotations";
}

TEST(StackPool, OneMappingPerSlabNotPerStack) {
  StackPool pool(unguarded(1024, 64 * 1024));  // 64 stacks per slab
  std::vector<Stack> stacks;
  for (int i = 0; i < 200; ++i) {
    const StackResult r = pool.allocate();
    ASSERT_TRUE(r.ok());
    stacks.push_back(r.value());
  }
  EXPECT_EQ(pool.slab_count(), 4u);
  EXPECT_EQ(pool.reserved_bytes(), 4u * 64 * 1024);
  EXPECT_EQ(stacks[1].base, stacks[0].base + pool.stride());  // packed within a slab
  for (const Stack& s : stacks) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(s.top()) % 64, 0u);
    EXPECT_EQ(s.limit(), s.base);
    EXPECT_EQ(s.size, 1024u);
    std::memset(s.base, 0xab, s.size);  // every byte writable
  }
  for (const Stack& s : stacks) pool.release(s);
  EXPECT_EQ(pool.stacks_in_use(), 0u);
  EXPECT_EQ(pool.stacks_pooled(), 200u);
}

TEST(StackPool, StacksAreCommittedLazily) {
  StackPool pool(unguarded(256 * 1024, 1 << 20));
  const Stack s = pool.allocate().value();
  EXPECT_EQ(resident_pages(s.base, s.top()), 0u);
  s.top()[-1] = std::byte{1};  // a fiber touches its stack from the top
  EXPECT_EQ(resident_pages(s.base, s.top()), 1u);
  pool.release(s);
}

TEST(StackPool, TrimReturnsMemoryOfPooledStacks) {
  StackPool pool(unguarded(64 * 1024, 1 << 20));
  const Stack a = pool.allocate().value(), b = pool.allocate().value();
  std::memset(a.base, 1, a.size);
  std::memset(b.base, 1, b.size);
  EXPECT_EQ(resident_pages(a.base, a.top()), a.size / kPage);
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.trim(/*keep_hot=*/1), a.size);  // b was released last: kept
  EXPECT_EQ(resident_pages(a.base, a.top()), 0u);
  EXPECT_EQ(resident_pages(b.base, b.top()), b.size / kPage);
  EXPECT_EQ(pool.trim(), b.size);
  EXPECT_EQ(resident_pages(b.base, b.top()), 0u);
  EXPECT_EQ(pool.trim(), 0u);  // nothing left to trim
  EXPECT_EQ(pool.stacks_pooled(), 2u);
  // Trimmed stacks are still usable (they read back as zeroes).
  const Stack c = pool.allocate().value();
  EXPECT_EQ(c.top()[-1], std::byte{0});
  pool.release(c);
}

TEST(StackPool, TrimLeavesPagesSharedWithLiveStacksAlone) {
  StackPool pool(unguarded(1024, 1 << 20));
  ASSERT_EQ(kPage % 1024, 0u);
  const std::size_t per_page = kPage / 1024;
  std::vector<Stack> s;
  for (std::size_t i = 0; i < 2 * per_page; ++i) s.push_back(pool.allocate().value());
  for (const Stack& x : s) std::memset(x.base, 0x5c, x.size);
  for (std::size_t i = 0; i + 1 < per_page; ++i) pool.release(s[i]);  // all but one stack of page 0
  EXPECT_EQ(pool.trim(), 0u);  // page 0 still holds a live stack
  for (std::size_t i = per_page - 1; i < s.size(); ++i) {
    EXPECT_EQ(s[i].base[0], std::byte{0x5c});
    EXPECT_EQ(s[i].top()[-1], std::byte{0x5c});
  }
  pool.release(s[per_page - 1]);
  EXPECT_EQ(pool.trim(), kPage);  // now page 0 is entirely free
  EXPECT_EQ(s[per_page].base[0], std::byte{0x5c});
  for (std::size_t i = per_page; i < s.size(); ++i) pool.release(s[i]);
}

TEST(StackPool, MaxStacksIsAnErrorValue) {
  StackPoolConfig c = unguarded(4096, 1 << 20);
  c.max_stacks = 2;
  StackPool pool(c);
  const StackResult a = pool.allocate(), b = pool.allocate(), d = pool.allocate();
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(b.ok());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error(), StackError::LimitReached);
  EXPECT_STREQ(stack_error_name(d.error()), "fiber stack limit reached");
  pool.release(a.value());
  EXPECT_TRUE(pool.allocate().ok());
}

TEST(StackPool, MappingFailureIsAnErrorValue) {
  StackPool pool(unguarded(4096, std::size_t{1} << 62));  // no address space is that large
  const StackResult r = pool.allocate();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), StackError::OutOfMemory);
  EXPECT_EQ(pool.slab_count(), 0u);
}

TEST(StackPool, ReleaseFromAnotherThreadComesBack) {
  StackPool pool(unguarded(4096, 1 << 20));
  const Stack a = pool.allocate().value();
  std::thread([&] { pool.release_from_any_thread(a); }).join();
  EXPECT_EQ(pool.stacks_in_use(), 1u);  // not yet collected
  const StackResult again = pool.allocate();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().base, a.base);  // collected and reused instead of carving a new one
  EXPECT_EQ(pool.stacks_in_use(), 1u);
  pool.release(again.value());
}

TEST(StackPool, FiberRunsBetweenLimitAndTop) {
  StackPool pool(unguarded(16 * 1024, 1 << 20));
  const Stack s = pool.allocate().value();
  std::uintptr_t sp = 0;
  fiber_context f{[&](fiber_context&& m) {
                    sp = weft_probe_stack_pointer();
                    return std::move(m);
                  },
                  s.span(), [&](std::span<std::byte> used) { pool.release({used.data(), used.size()}); }};
  f = std::move(f).resume();
  EXPECT_GT(sp, reinterpret_cast<std::uintptr_t>(s.limit()));
  EXPECT_LT(sp, reinterpret_cast<std::uintptr_t>(s.top()));
  EXPECT_EQ(pool.stacks_in_use(), 0u);  // the deleter gave it back
}

TEST(StackPool, DefaultPoolReusesStacksOfFinishedFibers) {
  StackPool& pool = this_thread_stack_pool();
  const std::size_t in_use = pool.stacks_in_use();
  auto run_one = [] {
    std::uintptr_t sp = 0;
    fiber_context f{[&](fiber_context&& m) {
      sp = weft_probe_stack_pointer();
      return std::move(m);
    }};
    f = std::move(f).resume();
    return sp;
  };
  const std::uintptr_t first = run_one();
  const std::size_t slabs = pool.slab_count();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(run_one(), first);  // same stack every time
  EXPECT_EQ(pool.slab_count(), slabs);
  EXPECT_EQ(pool.stacks_in_use(), in_use);
  EXPECT_EQ(pool.stack_size(), 128u * 1024);
  EXPECT_GT(pool.trim(), 0u);  // the fibers' pages go back to the OS
}

class StackPoolDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "fast"); }
};

TEST_F(StackPoolDeathTest, GuardPageStopsOverflow) {
  StackPoolConfig c;
  c.stack_size = 16 * 1024;
  c.guard_pages = 1;
  StackPool pool(c);
  const Stack s = pool.allocate().value();
  s.limit()[0] = std::byte{1};  // the lowest usable byte is fine
  EXPECT_DEATH({ *reinterpret_cast<volatile std::byte*>(s.limit() - 1) = std::byte{1}; }, "");
  pool.release(s);
}

}  // namespace
}  // namespace weft::fibers
