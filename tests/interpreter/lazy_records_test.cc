// The interpreter's per-function records (interpreter/code.h: record_of,
// make_record): a lazily prepared instance — the default on both tiers —
// makes a function's record only at its first need: its first interpreted
// call (from the host, a call_indirect, a fiber), or the translation of an
// interpreted caller that embeds its address. A function nothing interprets
// has none; eager translation makes them all.
#include <gtest/gtest.h>

#include "runtime/objects.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

// $caller calls $callee directly, $via_table reaches $indirect through the
// table, $unused is referenced by nothing.
constexpr const char* kModule = R"((module
  (type $v (func (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $indirect)
  (func $callee (result i32) (i32.const 7))
  (func $caller (export "caller") (result i32) (i32.add (call $callee) (i32.const 1)))
  (func $indirect (result i32) (i32.const 40))
  (func $via_table (export "via_table") (result i32) (call_indirect (type $v) (i32.const 0)))
  (func $unused (result i32) (i32.const 0)))
)";
enum : uint32_t { kCallee, kCaller, kIndirect, kViaTable, kUnused };

bool has_record(const WatHarness& h, uint32_t function) { return h.instance->raw->functions[function]->compiled; }

TEST(LazyRecords, TheInterpreterMakesARecordAtItsFirstNeed) {
  WatHarness h(Tier::Interpreter, kModule);
  for (uint32_t f = kCallee; f <= kUnused; ++f) EXPECT_FALSE(has_record(h, f)) << "function " << f;

  EXPECT_EQ(h.i32("caller"), 8u);
  EXPECT_TRUE(has_record(h, kCaller));  // called from the host
  EXPECT_TRUE(has_record(h, kCallee));  // its address is in $caller's translation
  EXPECT_FALSE(has_record(h, kIndirect));

  EXPECT_EQ(h.i32("via_table"), 40u);  // made by call_indirect as it runs
  EXPECT_TRUE(has_record(h, kViaTable));
  EXPECT_TRUE(has_record(h, kIndirect));
  EXPECT_FALSE(has_record(h, kUnused));
  EXPECT_EQ(h.i32("via_table"), 40u);  // and reused
}

TEST(LazyRecords, EagerTranslationMakesEveryRecord) {
  Config config;
  config.tier = Tier::Interpreter;
  config.eager_compilation = true;
  WatHarness h(config, kModule);
  for (uint32_t f = kCallee; f <= kUnused; ++f) EXPECT_TRUE(has_record(h, f)) << "function " << f;
  EXPECT_EQ(h.i32("caller"), 8u);
  EXPECT_EQ(h.i32("via_table"), 40u);
}

// On the JIT tier only what the interpreter runs has a record: a function the
// JIT leaves to it (here by name), and what that one's code calls directly.
// Where the build has no JIT, everything is interpreted as above.
TEST(LazyRecords, TheJitTierMakesRecordsOnlyForWhatItInterprets) {
  for (bool eager : {false, true}) {
    SCOPED_TRACE(eager ? "eager" : "lazy");
    Config config = test::interpreting(Tier::Jit, {"via_table"});
    config.eager_compilation = eager;
    WatHarness h(config, kModule);
    if (h.store.tier_stats().tier != Tier::Jit) GTEST_SKIP() << "no JIT in this build";
    EXPECT_EQ(h.i32("caller"), 8u);
    EXPECT_EQ(h.i32("via_table"), 40u);
    EXPECT_FALSE(has_record(h, kCaller));
    EXPECT_FALSE(has_record(h, kCallee));
    EXPECT_TRUE(has_record(h, kViaTable));
    EXPECT_TRUE(has_record(h, kIndirect));  // its call_indirect ran in the interpreter
    EXPECT_FALSE(has_record(h, kUnused));
  }
}

}  // namespace
}  // namespace weft
