// Code shapes that stress a tier's code generation, run through the public
// API on every tier: integer and float corner cases against expected values,
// traps with their messages and Wasm backtraces, lazily read locals, register
// pressure, and modules part of which the JIT leaves to the interpreter (on the
// JIT tier, also the per-function fallback with its reason and the calls across
// tier boundaries: JIT → interpreter, JIT → host → JIT).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/execution/float_module.h"
#include "tests/support/exec_test.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using namespace test::float_module;
using test::WatHarness;

WEFT_EXEC_SUITE(CodeShapes);

// On the JIT: `compiled` functions compiled and one left to the interpreter
// for a reason that mentions `reason`. On the interpreter: nothing compiled.
void expect_one_fallback(const Store& store, Tier tier, uint32_t compiled, const std::string& reason) {
  test::expect_jit_counts(store, tier, compiled, 1);
  if (tier != Tier::Jit) return;
  const TierStats stats = store.tier_stats();
  ASSERT_EQ(stats.fallback_reasons.size(), 1u);
  EXPECT_NE(stats.fallback_reasons[0].find(reason), std::string::npos) << stats.fallback_reasons[0];
}

WEFT_EXEC_TEST(CodeShapes, IntegerArithmeticAndControl) {
  WatHarness h(tier(), R"((module
    (func $fac (export "fac") (param i64) (result i64)
      local.get 0 i64.eqz if (result i64) i64.const 1
      else local.get 0 local.get 0 i64.const 1 i64.sub call $fac i64.mul end)
    (func (export "sum") (param i32) (result i32) (local i32)
      block loop
        local.get 0 i32.eqz br_if 1
        local.get 1 local.get 0 i32.add local.set 1
        local.get 0 i32.const 1 i32.sub local.set 0
        br 0
      end end
      local.get 1)
    (func (export "classify") (param i32) (result i32)
      block block block
        local.get 0 br_table 0 1 2
      end i32.const 10 return
      end i32.const 20 return
      end i32.const 30)
    (func (export "pair") (param i32) (result i32 i32)
      local.get 0 i32.const 1 i32.add local.get 0 i32.const 2 i32.mul)
    (func (export "rotl") (param i32 i32) (result i32) local.get 0 local.get 1 i32.rotl)
    (func (export "rem") (param i64 i64) (result i64) local.get 0 local.get 1 i64.rem_s)
  ))");
  EXPECT_EQ(h.value("fac", {Value::i64(20)}), 2432902008176640000ull);
  EXPECT_EQ(uint32_t(h.value("sum", {Value::i32(100)})), 5050u);
  EXPECT_EQ(uint32_t(h.value("classify", {Value::i32(0)})), 10u);
  EXPECT_EQ(uint32_t(h.value("classify", {Value::i32(1)})), 20u);
  EXPECT_EQ(uint32_t(h.value("classify", {Value::i32(2)})), 30u);
  EXPECT_EQ(uint32_t(h.value("classify", {Value::i32(0xFFFFFFFF)})), 30u);
  auto pair = h.call("pair", {Value::i32(7)});
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ((*pair)[0].as_i32(), 8u);
  EXPECT_EQ((*pair)[1].as_i32(), 14u);
  EXPECT_EQ(uint32_t(h.value("rotl", {Value::i32(0x80000001), Value::i32(33)})), 3u);
  // INT64_MIN rem -1 is 0, not a trap.
  EXPECT_EQ(h.value("rem", {Value::i64(0x8000000000000000ull), Value::i64(~0ull)}), 0u);
  test::expect_jit_counts(h.store, tier(), 6, 0);
}

WEFT_EXEC_TEST(CodeShapes, TrapsCarryMessageAndBacktrace) {
  WatHarness h(tier(), R"((module
    (memory 1)
    (func $inner (param i32) (result i32) local.get 0 i32.const 0 i32.div_u)
    (func $outer (export "div0") (result i32) i32.const 1 call $inner)
    (func $load (export "oob") (param i32) (result i32) local.get 0 i32.load offset=4)
    (func $spin (export "recurse") call $spin)
    (func (export "unreachable") unreachable)
    (func (export "conv") (param f64) (result i32) local.get 0 i32.trunc_f64_s)
  ))");
  auto r = h.call("div0", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Trap);
  EXPECT_EQ(r.error().message, "integer divide by zero");
  EXPECT_NE(r.error().detail.find("inner"), std::string::npos) << r.error().detail;
  EXPECT_LT(r.error().detail.find("inner"), r.error().detail.find("outer")) << r.error().detail;

  EXPECT_EQ(uint32_t(h.value("oob", {Value::i32(65532 - 4)})), 0u);
  r = h.call("oob", {Value::i32(65533 - 4)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "out of bounds memory access");
  r = h.call("oob", {Value::i32(0xFFFFFFFF)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "out of bounds memory access");

  r = h.call("recurse", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Exhaustion);
  EXPECT_EQ(r.error().message, "call stack exhausted");
  EXPECT_NE(r.error().detail.find("more frames"), std::string::npos);

  r = h.call("unreachable", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "unreachable");
  r = h.call("conv", {Value::f64(1e300)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "integer overflow");
  // After traps the store is usable again (depth and stack restored).
  EXPECT_EQ(uint32_t(h.value("oob", {Value::i32(0)})), 0u);
}

WEFT_EXEC_TEST(CodeShapes, FallbackAndTierBoundaries) {
  WatHarness h(test::interpreting(tier(), {"simd"}), R"((module
    (import "host" "add" (func $host_add (param i32 i32) (result i32)))
    (func $simd (param i32) (result i32) (local v128)
      local.get 0 i32.const 5 i32.add)
    (func (export "via_interp") (param i32) (result i32) local.get 0 call $simd i32.const 2 i32.mul)
    (func (export "via_host") (param i32) (result i32) local.get 0 i32.const 40 call $host_add)
    (table funcref (elem $simd $host_add))
    (type $t1 (func (param i32) (result i32)))
    (func (export "indirect") (param i32 i32) (result i32) local.get 0 local.get 1 call_indirect (type $t1))
  ))");
  EXPECT_EQ(uint32_t(h.value("via_interp", {Value::i32(1)})), 12u);
  EXPECT_EQ(uint32_t(h.value("via_host", {Value::i32(2)})), 42u);
  EXPECT_EQ(uint32_t(h.value("indirect", {Value::i32(3), Value::i32(0)})), 8u);
  auto r = h.call("indirect", {Value::i32(3), Value::i32(1)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "indirect call type mismatch");
  r = h.call("indirect", {Value::i32(3), Value::i32(2)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "undefined element");
  expect_one_fallback(h.store, tier(), 3, "jit_interpreted_functions");
}

// A function the JIT leaves to the interpreter (Config::jit_interpreted_functions)
// in the middle of the module's one code block; the functions after it still run
// compiled. The interpreted function calls compiled ones, which the
// interpreter translates on their first interpreted call (recursively here).
WEFT_EXEC_TEST(CodeShapes, FallbackMidBodyAndLazyTranslation) {
  Config config = eager_config();
  config.jit_interpreted_functions = {"mid"};
  WatHarness h(config, R"((module
    (func $inc (param i32) (result i32) local.get 0 i32.const 1 i32.add)
    (func $down (param i32) (result i32)
      local.get 0 i32.eqz if (result i32) i32.const 100 else local.get 0 i32.const 1 i32.sub call $down end)
    (func $mid (export "mid") (param i32) (result i32)
      local.get 0 call $inc
      local.get 0 i32.const 1000 i32.eq if (block (result v128) unreachable) drop end
      local.get 0 call $down i32.add)
    (func (export "after") (param i32) (result i32) local.get 0 call $mid i32.const 3 i32.mul)
    (func (export "inc") (param i32) (result i32) local.get 0 call $inc)
  ))");
  EXPECT_EQ(uint32_t(h.value("mid", {Value::i32(5)})), 106u);
  EXPECT_EQ(uint32_t(h.value("after", {Value::i32(5)})), 318u);
  EXPECT_EQ(uint32_t(h.value("inc", {Value::i32(41)})), 42u);
  expect_one_fallback(h.store, tier(), 4, "jit_interpreted_functions");
}

// Lazy compilation (the default): nothing is compiled at instantiation; a
// function is compiled at its first call from the host, from JIT code, as a
// fiber's body or through a table, and one the JIT leaves to the interpreter
// (Config::jit_interpreted_functions) falls back then.
WEFT_EXEC_TEST(CodeShapes, LazyCompilationAtFirstCall) {
  WatHarness h(test::interpreting(tier(), {"rejected"}), R"((module
    (type $g (fiber (result i32)))
    (type $t (func (param i32) (result i32)))
    (tag $e (param i32))
    (func $twice (param i32) (result i32) local.get 0 i32.const 2 i32.mul)
    (func $body (param $self (ref $g)) (param i32) (result i32) local.get 1 i32.const 3 i32.add)
    (func $kid (param $self (ref $g)) (result i32)
      (unreachable)
      (event $e (param i32) (i32.mul (i32.const 2))))
    (func $via_table (type $t) local.get 0 i32.const 4 i32.add)
    (func $rejected (param i32 f64) (result i32)
      local.get 0 i32.const 1000 i32.eq if (block (result v128) unreachable) drop end
      local.get 0 local.get 1 i32.trunc_f64_s i32.add)
    ;; Integer and float arguments in registers through the lazy stub.
    (func $mix (param i32 f64 i64 f32) (result f64)
      (f64.add (f64.add (f64.convert_i32_s (local.get 0)) (local.get 1))
               (f64.add (f64.convert_i64_s (local.get 2)) (f64.promote_f32 (local.get 3)))))
    (func (export "never") (param i32) (result i32) local.get 0)
    (func $countdown (export "countdown") (param i32) (result i32)
      local.get 0 i32.eqz if (result i32) i32.const 7 else local.get 0 i32.const 1 i32.sub call $countdown end)
    (func (export "all") (param i32) (result i32)
      (i32.add
        (i32.add (call $twice (local.get 0)) (fiber.spawn $body (local.get 0)))
        (i32.add
          (fiber.resume $g $e (fiber.new $kid) (local.get 0))
          (i32.add (call_indirect (type $t) (local.get 0) (i32.const 0))
                   (call $rejected (local.get 0)
                     (call $mix (local.get 0) (f64.const 0.5) (i64.const -1) (f32.const 0.5)))))))
    (table funcref (elem $via_table))
  ))");
  test::expect_jit_counts(h.store, tier(), 0, 0);
  EXPECT_EQ(uint32_t(h.value("countdown", {Value::i32(50)})), 7u);  // its recursion: one compilation
  test::expect_jit_counts(h.store, tier(), 1, 0);
  // 2x + (x + 3) + 2x (the fresh fiber's clause) + (x + 4) + (x + trunc(x + 0.5 - 1 + 0.5)) = 8x + 7.
  EXPECT_EQ(uint32_t(h.value("all", {Value::i32(5)})), 47u);
  expect_one_fallback(h.store, tier(), 7, "jit_interpreted_functions");
  EXPECT_EQ(uint32_t(h.value("all", {Value::i32(6)})), 55u);  // nothing compiled twice
  expect_one_fallback(h.store, tier(), 7, "jit_interpreted_functions");
}

WEFT_EXEC_TEST(CodeShapes, MemoryGrowAndBulk) {
  WatHarness h(tier(), R"((module
    (memory 1 3)
    (func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
    (func (export "size") (result i32) memory.size)
    (func (export "poke") (param i32 i64) local.get 0 local.get 1 i64.store)
    (func (export "peek16s") (param i32) (result i32) local.get 0 i32.load16_s)
    (func (export "fill_copy") (result i32)
      i32.const 0 i32.const 0xAB i32.const 8 memory.fill
      i32.const 100 i32.const 0 i32.const 8 memory.copy
      i32.const 104 i32.load)
  ))");
  EXPECT_EQ(uint32_t(h.value("size", {})), 1u);
  auto r = h.call("poke", {Value::i32(70000), Value::i64(1)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(uint32_t(h.value("grow", {Value::i32(1)})), 1u);
  EXPECT_EQ(uint32_t(h.value("grow", {Value::i32(5)})), 0xFFFFFFFFu);
  EXPECT_EQ(uint32_t(h.value("size", {})), 2u);
  ASSERT_TRUE(h.call("poke", {Value::i32(70000), Value::i64(0x8001)}).ok());
  EXPECT_EQ(uint32_t(h.value("peek16s", {Value::i32(70000)})), 0xFFFF8001u);
  EXPECT_EQ(uint32_t(h.value("fill_copy", {})), 0xABABABABu);
  test::expect_jit_counts(h.store, tier(), std::nullopt, 0);
}

// Float code (the JIT's native SSE code in compile_numeric.cc, the
// interpreter's runtime/numeric.h): IEEE corner cases against expected bits.
WEFT_EXEC_TEST(CodeShapes, FloatCornerCases) {
  WatHarness h(tier(), kFloatWat);
  auto d = [](double x) { return Value::f64(x); };
  auto bits = [](uint64_t b) { return Value::f64_bits(b); };
  auto f = [](float x) { return Value::f32(x); };
  const uint64_t snan = 0x7FF0000000000001ull, qnan = 0x7FF8000000000000ull;
  EXPECT_EQ(h.value("add", {d(1.5), d(2.25)}), f64b(3.75));
  EXPECT_EQ(h.value("sub", {d(1.0), d(0.25)}), f64b(0.75));
  EXPECT_EQ(h.value("mul", {d(3.0), d(-0.5)}), f64b(-1.5));
  EXPECT_EQ(h.value("div", {d(1.0), d(3.0)}), f64b(1.0 / 3.0));
  EXPECT_EQ(h.value("div", {d(-1.0), d(0.0)}), f64b(-INFINITY));
  // Signed zeros: -0 + -0 = -0, +0 + -0 = +0, 0 * -x = -0.
  EXPECT_EQ(h.value("add", {d(-0.0), d(-0.0)}), 0x8000000000000000ull);
  EXPECT_EQ(h.value("add", {d(0.0), d(-0.0)}), 0u);
  EXPECT_EQ(h.value("mul", {d(0.0), d(-2.0)}), 0x8000000000000000ull);
  // NaNs: a signalling operand comes back quietened (arithmetic NaN, payload
  // kept); invalid operations give a NaN; canonical in, canonical out.
  EXPECT_EQ(h.value("add", {bits(snan), d(1.0)}), 0x7FF8000000000001ull);
  EXPECT_TRUE(is_arith_nan64(h.value("div", {d(0.0), d(0.0)})));
  EXPECT_EQ(h.value("mul", {bits(qnan), d(2.0)}) & 0x7FFFFFFFFFFFFFFFull, qnan);
  EXPECT_TRUE(is_arith_nan64(h.value("sub", {d(INFINITY), d(INFINITY)})));
  EXPECT_TRUE(is_arith_nan64(h.value("sqrt", {d(-1.0)})));
  EXPECT_EQ(h.value("sqrt", {d(-0.0)}), 0x8000000000000000ull);
  EXPECT_EQ(h.value("sqrt", {d(2.25)}), f64b(1.5));
  EXPECT_EQ(h.value("sqrt32", {f(6.25f)}), f32b(2.5f));
  EXPECT_TRUE(is_arith_nan32(h.value("add32", {Value::f32_bits(0x7F800001u), f(1.0f)})));
  EXPECT_EQ(h.value("add32", {f(0.1f), f(0.2f)}), f32b(0.1f + 0.2f));
  EXPECT_EQ(h.value("div32", {f(1.0f), f(3.0f)}), f32b(1.0f / 3.0f));
  // Sign-bit operations keep a NaN's payload, signalling bit included.
  EXPECT_EQ(h.value("neg", {bits(snan)}), 0xFFF0000000000001ull);
  EXPECT_EQ(h.value("abs", {bits(0xFFF4000000000000ull)}), 0x7FF4000000000000ull);
  EXPECT_EQ(h.value("neg", {d(0.0)}), 0x8000000000000000ull);
  EXPECT_EQ(h.value("abs", {d(-0.0)}), 0u);
  EXPECT_EQ(h.value("copysign", {bits(snan), d(-1.0)}), 0xFFF0000000000001ull);
  EXPECT_EQ(h.value("copysign", {d(-2.0), d(0.0)}), f64b(2.0));
  EXPECT_EQ(h.value("copysign", {d(3.0), bits(0xFFF8000000000000ull)}), f64b(-3.0));
  EXPECT_EQ(h.value("neg32", {Value::f32_bits(0x7F800001u)}), 0xFF800001u);
  EXPECT_EQ(h.value("abs32", {Value::f32_bits(0xFFC00001u)}), 0x7FC00001u);
  EXPECT_EQ(h.value("copysign32", {f(5.0f), f(-0.0f)}), f32b(-5.0f));
  EXPECT_EQ(h.value("copysign32", {Value::f32_bits(0xFF800001u), f(1.0f)}), 0x7F800001u);
  EXPECT_EQ(h.value("neg32_wide", {f(2.0f)}), 2 * uint64_t(f32b(-2.0f)));
  // Comparisons: unordered pairs are false for all but ne; -0 == +0.
  for (const char* op : {"eq", "lt", "gt", "le", "ge"}) {
    EXPECT_EQ(h.value(op, {bits(qnan), d(1.0)}), 0u) << op;
    EXPECT_EQ(h.value(op, {d(1.0), bits(snan)}), 0u) << op;
    EXPECT_EQ(h.value(std::string(op) + "32", {f(NAN), f(NAN)}), 0u) << op;
  }
  EXPECT_EQ(h.value("ne", {bits(qnan), bits(qnan)}), 1u);
  EXPECT_EQ(h.value("ne32", {f(1.0f), f(NAN)}), 1u);
  EXPECT_EQ(h.value("eq", {d(-0.0), d(0.0)}), 1u);
  EXPECT_EQ(h.value("ge32", {f(-0.0f), f(0.0f)}), 1u);
  EXPECT_EQ(h.value("lt", {d(1.0), d(2.0)}), 1u);
  EXPECT_EQ(h.value("lt", {d(2.0), d(1.0)}), 0u);
  EXPECT_EQ(h.value("gt", {d(2.0), d(1.0)}), 1u);
  EXPECT_EQ(h.value("gt", {d(1.0), d(2.0)}), 0u);
  EXPECT_EQ(h.value("le", {d(2.0), d(2.0)}), 1u);
  EXPECT_EQ(h.value("le32", {f(3.0f), f(2.0f)}), 0u);
  EXPECT_EQ(h.value("clamp", {d(5.0)}), f64b(1.0));
  EXPECT_EQ(h.value("clamp", {d(-5.0)}), f64b(-1.0));
  EXPECT_EQ(h.value("clamp", {d(0.5)}), f64b(0.5));
  EXPECT_EQ(h.value("clamp", {bits(qnan)}), qnan);
  // Rounding (native with SSE4.1, thunks otherwise): ties to even, signed zeros.
  EXPECT_EQ(h.value("nearest", {d(2.5)}), f64b(2.0));
  EXPECT_EQ(h.value("nearest", {d(-0.5)}), 0x8000000000000000ull);
  EXPECT_EQ(h.value("floor", {d(-1.5)}), f64b(-2.0));
  EXPECT_TRUE(is_arith_nan64(h.value("floor", {bits(snan)})));
  EXPECT_EQ(h.value("ceil32", {f(-0.5f)}), 0x80000000u);
  EXPECT_EQ(h.value("trunc32", {f(-1.75f)}), f32b(-1.0f));
  // Conversions.
  EXPECT_EQ(h.value("promote", {f(1.5f)}), f64b(1.5));
  EXPECT_TRUE(is_arith_nan64(h.value("promote", {Value::f32_bits(0x7F800001u)})));
  EXPECT_EQ(h.value("demote", {d(1e300)}), f32b(INFINITY));
  EXPECT_EQ(h.value("demote", {d(-0.0)}), 0x80000000u);
  EXPECT_EQ(h.value("demote", {d(1.0 / 3.0)}), f32b(float(1.0 / 3.0)));
  EXPECT_EQ(h.value("from_i32", {Value::i32(0x80000000u)}), f64b(-2147483648.0));
  EXPECT_EQ(h.value("from_i32", {Value::i32(0xFFFFFFFFu)}), f64b(-1.0));
  EXPECT_EQ(h.value("from_i64", {Value::i64(~0ull)}), f64b(-1.0));
  EXPECT_EQ(h.value("from_i64", {Value::i64(0x7FFFFFFFFFFFFFFFull)}), f64b(9223372036854775807.0));
  EXPECT_EQ(h.value("from_i64_32", {Value::i64(0x7FFFFFFFFFFFFFFFull)}), 0x5F000000u);
  test::expect_jit_counts(h.store, tier(), std::nullopt, 0);
}

// local.get is lazy (the consumer loads the local): a write to the local in
// between must not change what an earlier local.get pushed; floats stay in XMM
// registers across operations and locals.
WEFT_EXEC_TEST(CodeShapes, LazyLocalsKeepTheValueTheyRead) {
  WatHarness h(tier(), R"((module
    (func (export "set_between") (param i32) (result i32)
      local.get 0 local.get 0 i32.const 5 local.set 0 local.get 0 i32.add i32.add)
    (func (export "tee_between") (param i32) (result i32)
      local.get 0 i32.const 7 local.tee 0 local.get 0 i32.mul i32.add)
    (func (export "set_self") (param i32) (result i32) local.get 0 local.set 0 local.get 0)
    (func (export "floats") (param f64 f64) (result f64) (local f64)
      local.get 0 local.get 1 f64.mul local.tee 2 local.get 2 f64.add
      local.get 0 local.set 2 local.get 2 f64.sub f64.sqrt)
    (func (export "floats_across_call") (param f32) (result f32)
      local.get 0 local.get 0 f32.mul call $id f32.const 0.5 f32.add)
    (func $id (param f32) (result f32) local.get 0)
  ))");
  EXPECT_EQ(uint32_t(h.value("set_between", {Value::i32(10)})), 10u + 10u + 5u);
  EXPECT_EQ(uint32_t(h.value("tee_between", {Value::i32(3)})), 3u + 49u);
  EXPECT_EQ(uint32_t(h.value("set_self", {Value::i32(42)})), 42u);
  auto r = h.call("floats", {Value::f64(3.0), Value::f64(4.0)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].as_f64(), std::sqrt(12.0 + 12.0 - 3.0));
  r = h.call("floats_across_call", {Value::f32(1.5f)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].as_f32(), 1.5f * 1.5f + 0.5f);
}

// More live values than registers: 20 float products (14 XMM registers)
// and 20 integers (9 general registers) on the stack at once; the allocator
// spills the deepest to their slots and reloads them.
WEFT_EXEC_TEST(CodeShapes, RegisterPressureSpillsAndReloads) {
  WatHarness h(tier(), R"((module
    (func (export "floats") (param f64) (result f64) local.get 0 f64.const 0.5 f64.mul local.get 0 f64.const 1.5 f64.mul local.get 0 f64.const 2.5 f64.mul local.get 0 f64.const 3.5 f64.mul local.get 0 f64.const 4.5 f64.mul local.get 0 f64.const 5.5 f64.mul local.get 0 f64.const 6.5 f64.mul local.get 0 f64.const 7.5 f64.mul local.get 0 f64.const 8.5 f64.mul local.get 0 f64.const 9.5 f64.mul local.get 0 f64.const 10.5 f64.mul local.get 0 f64.const 11.5 f64.mul local.get 0 f64.const 12.5 f64.mul local.get 0 f64.const 13.5 f64.mul local.get 0 f64.const 14.5 f64.mul local.get 0 f64.const 15.5 f64.mul local.get 0 f64.const 16.5 f64.mul local.get 0 f64.const 17.5 f64.mul local.get 0 f64.const 18.5 f64.mul local.get 0 f64.const 19.5 f64.mul f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add f64.add)
    (func (export "ints") (param i64) (result i64) local.get 0 i64.const 0 i64.add local.get 0 i64.const 1 i64.add local.get 0 i64.const 2 i64.add local.get 0 i64.const 3 i64.add local.get 0 i64.const 4 i64.add local.get 0 i64.const 5 i64.add local.get 0 i64.const 6 i64.add local.get 0 i64.const 7 i64.add local.get 0 i64.const 8 i64.add local.get 0 i64.const 9 i64.add local.get 0 i64.const 10 i64.add local.get 0 i64.const 11 i64.add local.get 0 i64.const 12 i64.add local.get 0 i64.const 13 i64.add local.get 0 i64.const 14 i64.add local.get 0 i64.const 15 i64.add local.get 0 i64.const 16 i64.add local.get 0 i64.const 17 i64.add local.get 0 i64.const 18 i64.add local.get 0 i64.const 19 i64.add i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul i64.mul)
  ))");
  auto r = h.call("floats", {Value::f64(2.0)});
  ASSERT_TRUE(r.ok());
  double want = 0;
  for (int i = 19; i >= 0; --i) want = 2.0 * (i + 0.5) + want;  // f64.add folds from the top of the stack
  EXPECT_EQ((*r)[0].as_f64(), want);
  uint64_t iwant = 1;
  for (int i = 19; i >= 0; --i) iwant = (3 + uint64_t(i)) * iwant;
  EXPECT_EQ(h.value("ints", {Value::i64(3)}), iwant);
}

}  // namespace
}  // namespace weft
