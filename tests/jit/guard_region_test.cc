// Guard regions (Config::guard_regions, jit/guard_regions.h): out-of-bounds
// accesses in JIT code fault and become traps through weft's SIGSEGV handler
// — counted, so these tests know the fault path ran rather than an explicit
// check — also inside a fiber; other faults still reach the handler an
// embedder installed before; with the option off, the code checks. What the
// traps say on every tier is in spec-tests/regressions/memory-guard-region.wast.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include "jit/backend.h"
#include "jit/guard_regions.h"
#include "runtime/objects.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

constexpr const char* kModule = R"((module
  (type $f (fiber (result i32)))
  (tag $go (param i32))
  (memory 1)
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func $reader (param $self (ref $f)) (result i32)
    (unreachable)
    (event $go (param i32) (i32.load)))
  (func (export "fiber_load") (param i32) (result i32)
    (fiber.resume $f $go (fiber.new $reader) (local.get 0))))
)";

bool guard_regions_here() { return jit::arch::kGuardRegions && jit::guard::available(); }

void expect_out_of_bounds(const Result<std::vector<Value>>& r) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "out of bounds memory access");
}

TEST(GuardRegions, OutOfBoundsFaultsBecomeTraps) {
  if (!guard_regions_here()) GTEST_SKIP() << "no guard regions on this machine or under this runtime";
  WatHarness jit(Tier::Jit, kModule);
  const uint64_t before = jit::guard::traps_taken();
  expect_out_of_bounds(jit.call("load", {Value::i32(65533)}));
  EXPECT_EQ(jit::guard::traps_taken(), before + 1);
  EXPECT_EQ(jit.i32("load", {Value::i32(65532)}), 0u);  // the instance runs on
}

TEST(GuardRegions, OutOfBoundsFaultInsideAFiberTrapsItsResume) {
  if (!guard_regions_here()) GTEST_SKIP() << "no guard regions on this machine or under this runtime";
  WatHarness jit(Tier::Jit, kModule);
  const uint64_t before = jit::guard::traps_taken();
  expect_out_of_bounds(jit.call("fiber_load", {Value::i32(-1)}));
  EXPECT_EQ(jit::guard::traps_taken(), before + 1);
  EXPECT_EQ(jit.i32("fiber_load", {Value::i32(0)}), 0u);
}

TEST(GuardRegions, OffMeansExplicitChecks) {
  Config config;
  config.tier = Tier::Jit;
  config.guard_regions = false;
  WatHarness jit(config, kModule);
  const uint64_t before = jit::guard::traps_taken();
  expect_out_of_bounds(jit.call("load", {Value::i32(65533)}));
  expect_out_of_bounds(jit.call("fiber_load", {Value::i32(65533)}));
  EXPECT_EQ(jit::guard::traps_taken(), before);
}

// The 8 GiB reservation only where JIT code accesses the memory unchecked:
// not on the interpreter, not with the option off, not where the JIT has no
// guard regions (AArch64) — there a memory reserves its maximum, as always.
TEST(GuardRegions, OnlyMemoriesThatJitCodeAccessesUncheckedReserveTheRegion) {
  constexpr const char* kTwoPages = "(module (memory (export \"m\") 1 2))";
  struct Case { Tier tier; bool option; bool guarded; };
  for (const Case& c : {Case{Tier::Interpreter, true, false}, Case{Tier::Jit, false, false},
                        Case{Tier::Jit, true, guard_regions_here()}}) {
    Config config;
    config.tier = c.tier;
    config.guard_regions = c.option;
    WatHarness h(config, kTwoPages);
    const runtime::MemoryInstance& memory = *h.instance->raw->memories[0];
    SCOPED_TRACE(testing::Message() << "tier " << int(c.tier) << ", option " << c.option);
    EXPECT_EQ(memory.guarded, c.guarded);
    EXPECT_EQ(memory.reserved_bytes, c.guarded ? runtime::MemoryInstance::kGuardRegionBytes : 2 * 65536u);
    // A memory made by the embedder follows the same rule.
    const Extern made = h.store.create_memory(MemoryType{Limits{1, 2}});
    ASSERT_NE(made.object, nullptr);
    EXPECT_EQ(static_cast<const runtime::MemoryInstance*>(made.object)->guarded, c.guarded);
  }
}

// An embedder's SIGSEGV handler installed before weft's: Wasm's faults are
// still traps, every other fault reaches it. In a fresh process ("threadsafe"
// death tests re-run the binary), so that weft's handler is installed after it.
TEST(GuardRegionsDeathTest, OtherFaultsReachTheHandlerInstalledBefore) {
  if (!guard_regions_here()) GTEST_SKIP() << "no guard regions on this machine or under this runtime";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        struct sigaction host = {};
        host.sa_handler = [](int) { _exit(42); };
        sigemptyset(&host.sa_mask);
        sigaction(SIGSEGV, &host, nullptr);
        WatHarness jit(Tier::Jit, kModule);
        const uint64_t before = jit::guard::traps_taken();
        auto r = jit.call("load", {Value::i32(65533)});
        if (r.ok() || r.error().message != "out of bounds memory access") _exit(1);
        if (jit::guard::traps_taken() != before + 1) _exit(2);
        raise(SIGSEGV);  // not in JIT code: the embedder's handler's
        _exit(3);
      },
      testing::ExitedWithCode(42), "");
}

}  // namespace
}  // namespace weft
