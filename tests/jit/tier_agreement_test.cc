// The JIT against the interpreter on the same inputs: miniature differential
// runs over integer, float and control code, and every float binary and
// compare operator on a grid of special values. Single-tier by nature (each
// test runs both tiers and compares them), so these are not exec tests; the
// expected values of these operators are checked on every tier in
// tests/execution/code_shapes_test.cc.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/execution/float_module.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using namespace test::float_module;
using test::interpreting;
using test::WatHarness;

// A miniature differential run: one function mixing native integer code,
// numeric thunks (floats, conversions) and control flow, on both tiers.
TEST(Jit, AgreesWithInterpreter) {
  const char* wat = R"((module
    (func (export "mix") (param i32 i64) (result i64) (local f64)
      local.get 0 f64.convert_i32_s local.set 2
      block (result i64)
        block (result i64)
          local.get 1 i64.const 3 i64.mul
          local.get 0 i32.const 3 i32.and
          br_table 0 1 2 0
        end
        i64.const 5 i64.add
      end
      local.get 1 i64.const 13 i64.rotr
      local.get 2 f64.sqrt i64.trunc_sat_f64_s i64.add
      local.get 0 i64.extend_i32_u local.get 1 i64.clz i64.shl i64.xor
      local.get 0 i32.const 3 i32.shr_s i64.extend_i32_s
      local.get 1 i64.const 1 i64.or i64.div_u i64.sub
      local.get 0 i32.popcnt i32.const 16 i32.gt_u
      select)
  ))";
  WatHarness jit(Tier::Jit, wat), interp(Tier::Interpreter, wat);
  std::mt19937_64 rng(8);
  for (int i = 0; i < 2000; ++i) {
    uint32_t a = uint32_t(rng());
    uint64_t b = rng() >> (rng() % 64);
    std::vector<Value> args = {Value::i32(a), Value::i64(b)};
    auto x = jit.call("mix", args);
    auto y = interp.call("mix", args);
    ASSERT_EQ(x.ok(), y.ok()) << a << " " << b;
    if (x.ok())
      ASSERT_EQ((*x)[0].as_i64(), (*y)[0].as_i64()) << a << " " << b;
    else
      ASSERT_EQ(x.error().message, y.error().message);
  }
  test::expect_jit_counts(jit.store, Tier::Jit, 1, 0);
}


TEST(Jit, FloatGridAgreesWithInterpreter) {
  WatHarness jit(Tier::Jit, kFloatWat), interp(Tier::Interpreter, kFloatWat);
  const std::vector<uint64_t> grid64 = {
      0, 0x8000000000000000ull, f64b(1.0), f64b(-1.0), f64b(0.1), f64b(3.5), f64b(-2.5), f64b(1e308),
      f64b(4.9e-324), f64b(INFINITY), f64b(-INFINITY), 0x7FF8000000000000ull, 0xFFF8000000000000ull,
      0x7FF0000000000001ull, 0x7FF4000000000123ull};
  const std::vector<uint32_t> grid32 = {0, 0x80000000u, f32b(1.0f), f32b(-1.0f), f32b(0.1f), f32b(3.5f),
                                        f32b(3e38f), 1u, f32b(INFINITY), f32b(-INFINITY), 0x7FC00000u,
                                        0xFFC00000u, 0x7F800001u, 0x7FA00123u};
  auto check = [&](const std::string& op, Value a, Value b, bool f64_result, bool f32_result) {
    uint64_t x = jit.value(op, {a, b}), y = interp.value(op, {a, b});
    if (f64_result && (y & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (y & 0x000FFFFFFFFFFFFFull) != 0) {
      // Which NaN comes back is nondeterministic in Wasm; it must be arithmetic.
      EXPECT_TRUE(is_arith_nan64(x)) << op << " " << std::hex << a.as_i64() << " " << b.as_i64() << " " << x;
    } else if (f32_result && (y & 0x7F800000u) == 0x7F800000u && (y & 0x7FFFFFu) != 0) {
      EXPECT_TRUE(is_arith_nan32(x)) << op << " " << std::hex << a.as_i64() << " " << b.as_i64() << " " << x;
      EXPECT_EQ(x >> 32, 0u) << op;
    } else {
      EXPECT_EQ(x, y) << op << " " << std::hex << a.as_i64() << " " << b.as_i64();
    }
  };
  for (uint64_t a : grid64)
    for (uint64_t b : grid64) {
      for (const char* op : {"add", "sub", "mul", "div"}) check(op, Value::f64_bits(a), Value::f64_bits(b), true, false);
      // copysign is a bit operation: exact, NaN payloads included.
      check("copysign", Value::f64_bits(a), Value::f64_bits(b), false, false);
      for (const char* op : {"eq", "ne", "lt", "gt", "le", "ge"})
        check(op, Value::f64_bits(a), Value::f64_bits(b), false, false);
    }
  for (uint32_t a : grid32)
    for (uint32_t b : grid32) {
      for (const char* op : {"add32", "sub32", "mul32", "div32"})
        check(op, Value::f32_bits(a), Value::f32_bits(b), false, true);
      check("copysign32", Value::f32_bits(a), Value::f32_bits(b), false, false);
      for (const char* op : {"eq32", "ne32", "lt32", "gt32", "le32", "ge32"})
        check(op, Value::f32_bits(a), Value::f32_bits(b), false, false);
    }
  test::expect_jit_counts(jit.store, Tier::Jit, std::nullopt, 0);
}

// Direct calls within an instance pass their first arguments in registers
// (jit/compile_calls.cc). A callee the JIT leaves to the interpreter (here:
// listed in Config::jit_interpreted_functions) is entered through the executor's stub, which stores
// them to their slots first. Its callers pass a mix of integer and float
// arguments, more than there are registers of either class, from constants,
// permuted parameters and computed registers; each argument is weighed by a
// power of ten, so one in the wrong place shows as a wrong digit.
TEST(Jit, DirectCallsIntoAnInterpretedFunction) {
  const char* wat = R"((module
    (func $weigh (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)
      (i64.add (i64.add (i64.add (i64.add (i64.add
        (i64.add (i64.extend_i32_u (local.get 0)) (i64.mul (i64.trunc_f64_s (local.get 1)) (i64.const 10)))
        (i64.add (i64.mul (local.get 2) (i64.const 100)) (i64.mul (i64.trunc_f32_s (local.get 3)) (i64.const 1000))))
        (i64.add (i64.mul (i64.extend_i32_u (local.get 4)) (i64.const 10000)) (i64.mul (i64.trunc_f64_s (local.get 5)) (i64.const 100000))))
        (i64.mul (local.get 6) (i64.const 1000000)))
        (i64.add (i64.mul (i64.trunc_f32_s (local.get 7)) (i64.const 10000000)) (i64.mul (i64.extend_i32_u (local.get 8)) (i64.const 100000000))))
        (i64.mul (i64.trunc_f64_s (local.get 9)) (i64.const 1000000000))))
    (type $weigh_t (func (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)))
    (type $scale_t (func (param f64 i32) (result f64)))
    (table 2 funcref)
    (elem (i32.const 0) $weigh $scale)
    (func $scale (param f64 i32) (result f64) (f64.mul (local.get 0) (f64.convert_i32_s (local.get 1))))
    (func (export "float_result") (param f64) (result f64) (f64.add (call $scale (local.get 0) (i32.const 3)) (f64.const 0.5)))
    ;; A tail call to a callee that is not JIT code from a directly called
    ;; function: its one-value result must still come back in the register.
    (func $tail (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)
      (return_call_indirect (type $weigh_t) (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4)
                            (local.get 5) (local.get 6) (local.get 7) (local.get 8) (local.get 9) (i32.const 0)))
    (func $float_tail (param f64 i32) (result f64)
      (return_call_indirect (type $scale_t) (local.get 0) (local.get 1) (i32.const 1)))
    (func (export "through_float_tail") (param f64) (result f64)
      (f64.add (call $float_tail (local.get 0) (i32.const 3)) (f64.const 0.25)))
    (func (export "through_tail") (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)
      (i64.sub (call $tail (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)
                           (local.get 6) (local.get 7) (local.get 8) (local.get 9)) (i64.const 1)))
    (func (export "consts") (result i64)
      (call $weigh (i32.const 1) (f64.const 2) (i64.const 3) (f32.const 4) (i32.const 5) (f64.const 6) (i64.const 7)
                   (f32.const 8) (i32.const 9) (f64.const 1)))
    (func (export "permuted") (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)
      (call $weigh (local.get 8) (local.get 5) (local.get 6) (local.get 7) (local.get 0) (local.get 9) (local.get 2)
                   (local.get 3) (local.get 4) (local.get 1)))
    (func (export "computed") (param i32 f64 i64 f32 i32 f64 i64 f32 i32 f64) (result i64)
      (i64.add (i64.mul (local.get 2) (i64.const 10000000000))
        (call $weigh (i32.add (local.get 4) (i32.const 0)) (f64.mul (local.get 9) (f64.const 1))
                     (i64.add (local.get 2) (i64.const 0)) (f32.mul (local.get 7) (f32.const 1))
                     (i32.add (local.get 0) (i32.const 0)) (f64.mul (local.get 1) (f64.const 1))
                     (i64.add (local.get 6) (i64.const 0)) (f32.mul (local.get 3) (f32.const 1))
                     (i32.add (local.get 8) (i32.const 0)) (f64.mul (local.get 5) (f64.const 1)))))
  ))";
  const std::vector<Value> args = {Value::i32(3), Value::f64(1), Value::i64(4), Value::f32(1), Value::i32(5),
                                   Value::f64(9), Value::i64(2), Value::f32(6), Value::i32(5), Value::f64(3)};
  for (Tier tier : {Tier::Jit, Tier::Interpreter}) {
    SCOPED_TRACE(tier == Tier::Jit ? "jit" : "interpreter");
    WatHarness h(interpreting(tier, {"weigh", "scale"}), wat);
    auto consts = h.call("consts");
    ASSERT_TRUE(consts.ok()) << consts.error().message;
    EXPECT_EQ((*consts)[0].as_i64(), 1987654321);
    // weigh(x8, x5, x6, x7, x0, x9, x2, x3, x4, x1) with x = 3 1 4 1 5 9 2 6 5 3
    auto permuted = h.call("permuted", args);
    ASSERT_TRUE(permuted.ok()) << permuted.error().message;
    EXPECT_EQ((*permuted)[0].as_i64(), 1514336295);
    // 4 × 10^10 + weigh(x4, x9, x2, x7, x0, x1, x6, x3, x8, x5)
    auto computed = h.call("computed", args);
    ASSERT_TRUE(computed.ok()) << computed.error().message;
    EXPECT_EQ((*computed)[0].as_i64(), 49512136435);
    auto scaled = h.call("float_result", {Value::f64(2.5)});
    ASSERT_TRUE(scaled.ok()) << scaled.error().message;
    EXPECT_EQ((*scaled)[0].as_f64(), 8.0);
    auto tail = h.call("through_tail", args);  // weigh(x) - 1
    ASSERT_TRUE(tail.ok()) << tail.error().message;
    EXPECT_EQ((*tail)[0].as_i64(), 3562951412);
    auto float_tail = h.call("through_float_tail", {Value::f64(1.5)});  // 1.5 × 3 + 0.25
    ASSERT_TRUE(float_tail.ok()) << float_tail.error().message;
    EXPECT_EQ((*float_tail)[0].as_f64(), 4.75);
    if (tier == Tier::Jit) test::expect_jit_counts(h.store, Tier::Jit, 8, 2);
  }
}

// The first call of a function the JIT leaves to the interpreter is a
// tail call from a directly called function: it passes through the lazy entry,
// which finds out only then that the interpreter runs it, and the result must
// still reach the direct caller's result register (it used to come back as
// whatever that register held: f64 1 instead of 1006).
TEST(Jit, FirstCallIsATailCallIntoAnInterpretedFunction) {
  const char* wat = R"((module
    (func $f64_c (param f64) (result f64) (f64.add (local.get 0) (f64.const 1000)))
    (func $f64_a (param f64) (result f64) (return_call $f64_c (local.get 0)))
    (func (export "f64") (param f64) (result f64) (f64.add (call $f64_a (local.get 0)) (f64.const 1)))
    (func $i64_c (param i64) (result i64) (i64.mul (local.get 0) (i64.const 1000)))
    (func $i64_a (param i64) (result i64) (return_call $i64_c (local.get 0)))
    (func (export "i64") (param i64) (result i64) (i64.add (call $i64_a (local.get 0)) (i64.const 1)))
    (func $pair_c (param i32) (result i32 i32) (local.get 0) (i32.mul (local.get 0) (i32.const 3)))
    (func $pair_a (param i32) (result i32 i32) (return_call $pair_c (local.get 0)))
    (func (export "pair") (param i32) (result i32) (call $pair_a (local.get 0)) (i32.sub))
  ))";
  for (Tier tier : {Tier::Jit, Tier::Interpreter}) {
    SCOPED_TRACE(tier == Tier::Jit ? "jit" : "interpreter");
    WatHarness h(interpreting(tier, {"f64_c", "i64_c", "pair_c"}), wat);
    auto f = h.call("f64", {Value::f64(5)});
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ((*f)[0].as_f64(), 1006.0);
    auto i = h.call("i64", {Value::i64(7)});
    ASSERT_TRUE(i.ok()) << i.error().message;
    EXPECT_EQ((*i)[0].as_i64(), 7001);
    auto pair = h.call("pair", {Value::i32(4)});  // 4 - 12
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    EXPECT_EQ((*pair)[0].as_i32(), -8);
    if (tier == Tier::Jit) test::expect_jit_counts(h.store, Tier::Jit, 6, 3);
  }
}

// Exceptions between JIT code and functions the JIT left to the interpreter
// (Config::jit_interpreted_functions): thrown on one tier,
// caught on the other, and through an interpreted frame between two JIT frames.
TEST(Jit, ExceptionsCrossTiers) {
  const char* wat = R"((module
    (tag $e (param i32))
    (func $jit-thrower (param i32) (throw $e (local.get 0)))
    (func $interp-thrower (param i32) (throw $e (i32.add (local.get 0) (i32.const 1))))
    (func (export "interp-catches-jit") (param i32) (result i32)
      (block $h (result i32)
        (try_table (catch $e $h) (call $jit-thrower (local.get 0)))
        (return (i32.const 0)))
      (i32.add (i32.const 100)))
    (func (export "jit-catches-interp") (param i32) (result i32)
      (block $h (result i32)
        (try_table (catch $e $h) (call $interp-thrower (local.get 0)))
        (return (i32.const 0)))
      (i32.add (i32.const 200)))
    (func $mid (param i32) (call $jit-thrower (local.get 0)))
    (func (export "jit-through-interp") (param i32) (result i32)
      (block $h (result i32)
        (try_table (catch $e $h) (call $mid (local.get 0)))
        (return (i32.const 0)))
      (i32.add (i32.const 300)))
    (func (export "uncaught") (call $mid (i32.const 1)))
  ))";
  WatHarness jit(interpreting(Tier::Jit, {"interp-thrower", "interp-catches-jit", "mid"}), wat);
  for (int32_t v : {0, 5, -7}) {
    auto a = jit.call("interp-catches-jit", {Value::i32(uint32_t(v))});
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    EXPECT_EQ(int32_t((*a)[0].as_i32()), 100 + v);
    auto b = jit.call("jit-catches-interp", {Value::i32(uint32_t(v))});
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    EXPECT_EQ(int32_t((*b)[0].as_i32()), 201 + v);
    auto c = jit.call("jit-through-interp", {Value::i32(uint32_t(v))});
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_EQ(int32_t((*c)[0].as_i32()), 300 + v);
  }
  auto d = jit.call("uncaught", {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::Exception);
  EXPECT_EQ(d.error().message, "uncaught exception");
  test::expect_jit_counts(jit.store, Tier::Jit, 3, 3);
}

}  // namespace
}  // namespace weft
