// The WAST runner: assertion building blocks (NaN patterns, references, v128
// lanes, trap message matching) and whole scripts through the real pipeline.
#include "tools/wast_runner.h"

#include <gtest/gtest.h>

#include "tests/support/exec_test.h"

namespace weft::tools {
namespace {

using text::WastExpected;
using text::WastValue;
using Kind = WastExpected::Kind;

WastExpected expect(Kind kind, ValType type, uint64_t bits = 0) {
  WastExpected e;
  e.kind = kind;
  e.value.type = type;
  e.value.bits[0] = bits;
  return e;
}

WastExpected expect_null(ValType type) {
  WastExpected e = expect(Kind::Exact, type);
  e.value.is_null = true;
  return e;
}

Value funcref_value() {
  uint64_t slot = 0x1000;  // an opaque non-null function handle
  return Value::from_raw(ValType::funcref(), &slot);
}

TEST(WastAssertions, ExactNumbersCompareBits) {
  EXPECT_TRUE(result_matches(expect(Kind::Exact, ValType::i32(), 3), Value::i32(3)));
  EXPECT_FALSE(result_matches(expect(Kind::Exact, ValType::i32(), 3), Value::i32(4)));
  EXPECT_FALSE(result_matches(expect(Kind::Exact, ValType::i32(), 3), Value::i64(3)));
  EXPECT_FALSE(result_matches(expect(Kind::Exact, ValType::f32(), 0x3f800000), Value::i32(0x3f800000)));
  // -0 and +0 differ; NaNs must match bit for bit, payload and sign included.
  EXPECT_FALSE(result_matches(expect(Kind::Exact, ValType::f32(), 0), Value::f32_bits(0x80000000u)));
  EXPECT_TRUE(result_matches(expect(Kind::Exact, ValType::f32(), 0x7fa00000), Value::f32_bits(0x7fa00000u)));
  EXPECT_FALSE(result_matches(expect(Kind::Exact, ValType::f32(), 0x7fa00000), Value::f32_bits(0x7fc00000u)));
  EXPECT_TRUE(result_matches(expect(Kind::Exact, ValType::f64(), 0xfff8000000000001ull),
                             Value::f64_bits(0xfff8000000000001ull)));
}

TEST(WastAssertions, CanonicalNan) {
  WastExpected f32 = expect(Kind::CanonicalNan, ValType::f32());
  EXPECT_TRUE(result_matches(f32, Value::f32_bits(0x7fc00000u)));
  EXPECT_TRUE(result_matches(f32, Value::f32_bits(0xffc00000u)));  // either sign
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x7fc00001u)));  // payload
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x7fa00000u)));  // signalling
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x7f800000u)));  // infinity
  EXPECT_FALSE(result_matches(f32, Value::f64_bits(0x7ff8000000000000ull)));  // wrong type
  WastExpected f64 = expect(Kind::CanonicalNan, ValType::f64());
  EXPECT_TRUE(result_matches(f64, Value::f64_bits(0x7ff8000000000000ull)));
  EXPECT_TRUE(result_matches(f64, Value::f64_bits(0xfff8000000000000ull)));
  EXPECT_FALSE(result_matches(f64, Value::f64_bits(0x7ff8000000000001ull)));
  EXPECT_FALSE(result_matches(f64, Value::f64_bits(0x7ff4000000000000ull)));
}

TEST(WastAssertions, ArithmeticNan) {
  WastExpected f32 = expect(Kind::ArithmeticNan, ValType::f32());
  EXPECT_TRUE(result_matches(f32, Value::f32_bits(0x7fc00000u)));
  EXPECT_TRUE(result_matches(f32, Value::f32_bits(0xffc12345u)));  // quiet bit set, any payload
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x7fa00000u)));  // quiet bit clear
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x7f800000u)));
  EXPECT_FALSE(result_matches(f32, Value::f32_bits(0x3fc00000u)));
  WastExpected f64 = expect(Kind::ArithmeticNan, ValType::f64());
  EXPECT_TRUE(result_matches(f64, Value::f64_bits(0x7ffc000000000001ull)));
  EXPECT_FALSE(result_matches(f64, Value::f64_bits(0x7ff0000000000001ull)));
}

TEST(WastAssertions, V128Lanes) {
  WastExpected e;
  e.kind = Kind::V128Lanes;
  e.value.type = ValType::v128();
  e.lane_type = ValType::F32;
  e.lanes = {Kind::CanonicalNan, Kind::Exact, Kind::ArithmeticNan, Kind::Exact};
  e.value.bits[0] = uint64_t(0x3f800000) << 32;  // lane 1 = 1.0, lane 0 ignored
  e.value.bits[1] = uint64_t(0x40000000) << 32;  // lane 3 = 2.0, lane 2 ignored
  auto v128 = [](uint32_t l0, uint32_t l1, uint32_t l2, uint32_t l3) {
    return Value::v128(uint64_t(l1) << 32 | l0, uint64_t(l3) << 32 | l2);
  };
  EXPECT_TRUE(result_matches(e, v128(0x7fc00000, 0x3f800000, 0x7fc00001, 0x40000000)));
  EXPECT_FALSE(result_matches(e, v128(0x7fc00001, 0x3f800000, 0x7fc00001, 0x40000000)));
  EXPECT_FALSE(result_matches(e, v128(0x7fc00000, 0x3f800000, 0x7fa00000, 0x40000000)));
  EXPECT_FALSE(result_matches(e, v128(0x7fc00000, 0x3f800001, 0x7fc00000, 0x40000000)));
  EXPECT_FALSE(result_matches(e, Value::i32(0)));

  WastExpected f64 = e;
  f64.lane_type = ValType::F64;
  f64.lanes = {Kind::Exact, Kind::ArithmeticNan};
  f64.value.bits[0] = 0x3ff0000000000000ull;
  EXPECT_TRUE(result_matches(f64, Value::v128(0x3ff0000000000000ull, 0xfff8000000000001ull)));
  EXPECT_FALSE(result_matches(f64, Value::v128(0x3ff0000000000000ull, 0x7ff0000000000001ull)));

  WastExpected exact = expect(Kind::Exact, ValType::v128(), 5);
  exact.value.bits[1] = 6;
  EXPECT_TRUE(result_matches(exact, Value::v128(5, 6)));
  EXPECT_FALSE(result_matches(exact, Value::v128(5, 7)));
}

TEST(WastAssertions, References) {
  EXPECT_TRUE(result_matches(expect_null(ValType::funcref()), Value::null_ref(ValType::funcref())));
  EXPECT_FALSE(result_matches(expect_null(ValType::funcref()), funcref_value()));
  EXPECT_FALSE(result_matches(expect_null(ValType::funcref()), Value::null_ref(ValType::externref())));
  EXPECT_TRUE(result_matches(expect(Kind::AnyFunc, ValType::funcref()), funcref_value()));
  EXPECT_FALSE(result_matches(expect(Kind::AnyFunc, ValType::funcref()), Value::null_ref(ValType::funcref())));

  WastExpected extern7 = expect(Kind::Exact, ValType::externref(), 7);
  EXPECT_TRUE(result_matches(extern7, Value::extern_ref(7)));
  EXPECT_FALSE(result_matches(extern7, Value::extern_ref(8)));
  EXPECT_FALSE(result_matches(extern7, Value::null_ref(ValType::externref())));
  EXPECT_TRUE(result_matches(expect_null(ValType::externref()), Value::null_ref(ValType::externref())));
  EXPECT_FALSE(result_matches(expect_null(ValType::externref()), Value::extern_ref(0)));
  EXPECT_TRUE(result_matches(expect(Kind::AnyExtern, ValType::externref()), Value::extern_ref(0)));
  EXPECT_FALSE(result_matches(expect(Kind::AnyExtern, ValType::externref()), Value::null_ref(ValType::externref())));
}

// (either …): relaxed SIMD's results, any one of which may come back;
// (ref.null) without a heap type: a null of any reference type.
TEST(WastAssertions, EitherAndAnyNull) {
  WastExpected either;
  either.kind = Kind::Either;
  either.alternatives = {expect(Kind::Exact, ValType::i32(), 1), expect(Kind::Exact, ValType::i32(), 2)};
  EXPECT_TRUE(result_matches(either, Value::i32(1)));
  EXPECT_TRUE(result_matches(either, Value::i32(2)));
  EXPECT_FALSE(result_matches(either, Value::i32(3)));
  EXPECT_FALSE(result_matches(either, Value::i64(1)));
  const WastExpected any_null = expect(Kind::AnyNull, ValType::funcref());
  EXPECT_TRUE(result_matches(any_null, Value::null_ref(ValType::externref())));
  EXPECT_TRUE(result_matches(any_null, Value::null_ref(ValType{ValType::TypedRef, true, 0})));
  EXPECT_FALSE(result_matches(any_null, funcref_value()));
  EXPECT_FALSE(result_matches(any_null, Value::i32(0)));
}

TEST(WastAssertions, ToValue) {
  WastValue v;
  v.type = ValType::externref();
  v.bits[0] = 3;
  EXPECT_EQ(to_value(v).extern_value(), 3u);
  EXPECT_FALSE(to_value(v).is_null());
  v.is_null = true;
  EXPECT_TRUE(to_value(v).is_null());
  v = WastValue{};
  v.type = ValType::f32();
  v.bits[0] = 0x7fc00000;
  EXPECT_EQ(to_value(v).f32_bits(), 0x7fc00000u);
}

TEST(WastAssertions, MessageMatching) {
  EXPECT_TRUE(message_matches("out of bounds memory access", "out of bounds memory access"));
  EXPECT_TRUE(message_matches("out of bounds memory access at 0x10010 (size 0x10000)", "out of bounds memory access"));
  EXPECT_TRUE(message_matches("uninitialized element 2", "uninitialized element"));
  EXPECT_TRUE(message_matches("trap: integer divide by zero", "integer divide by zero"));
  EXPECT_FALSE(message_matches("integer overflow", "integer divide by zero"));
  EXPECT_FALSE(message_matches("out of bounds", "out of bounds memory access"));
  EXPECT_TRUE(message_matches("anything", ""));
}

TEST(WastAssertions, Descriptions) {
  EXPECT_EQ(describe(Value::i32(0xffffffffu)), "i32:-1");
  EXPECT_EQ(describe(Value::f32_bits(0x3fc00000u)), "f32:1.5 (0x3fc00000)");
  EXPECT_EQ(describe(Value::f32_bits(0xffc00000u)), "f32:-nan:0x400000 (0xffc00000)");
  EXPECT_EQ(describe(Value::f64_bits(0x7ff0000000000000ull)), "f64:inf (0x7ff0000000000000)");
  EXPECT_EQ(describe(Value::extern_ref(7)), "externref:7");
  EXPECT_EQ(describe(Value::null_ref(ValType::funcref())), "funcref:null");
  EXPECT_EQ(describe(Value::v128(0x200000001ull, 0x400000003ull)), "v128:i32x4 0x1 0x2 0x3 0x4");
  EXPECT_EQ(describe(expect(Kind::CanonicalNan, ValType::f32())), "f32:nan:canonical");
  EXPECT_EQ(describe(expect(Kind::ArithmeticNan, ValType::f64())), "f64:nan:arithmetic");
  EXPECT_EQ(describe(expect(Kind::Exact, ValType::i64(), 5)), "i64:5");
}

// ─── Whole scripts (text parser + API + each tier) ───────────────────────────

WastReport run(Tier tier, std::string_view source) {
  WastOptions options;
  options.config.tier = tier;
  options.trace = true;
  return run_wast_source(source, options);
}
// Scripts that fail before running anything: the tier does not matter.
WastReport run(std::string_view source) { return run(Tier::Interpreter, source); }

// The scripts that execute code run on every tier.
WEFT_EXEC_SUITE(WastScriptsRun);

std::string failures_of(const WastReport& report) {
  std::string s;
  for (const WastFailure& f : report.failures) s += std::to_string(f.line) + ": " + f.command + ": " + f.message + "\n";
  return s;
}

WEFT_EXEC_TEST(WastScriptsRun, EveryCommandKindPasses) {
  WastReport report = run(tier(), R"wast(
    (module $m
      (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
      (func (export "div") (param i32 i32) (result i32) (i32.div_u (local.get 0) (local.get 1)))
      (func (export "nan") (result f32) (f32.div (f32.const 0) (f32.const 0)))
      (func $loop (export "loop") (call $loop))
      (global (export "g") i32 (i32.const 7)))
    (assert_return (invoke "add" (i32.const 1) (i32.const 2)) (i32.const 3))
    (assert_return (invoke "nan") (f32.const nan:canonical))
    (assert_return (invoke "nan") (f32.const nan:arithmetic))
    (assert_trap (invoke "div" (i32.const 1) (i32.const 0)) "integer divide by zero")
    (assert_exhaustion (invoke "loop") "call stack exhausted")
    (assert_return (get "g") (i32.const 7))
    (invoke "add" (i32.const 0) (i32.const 0))
    (register "M" $m)
    (module
      (import "M" "add" (func $add (param i32 i32) (result i32)))
      (func (export "inc") (param i32) (result i32) (call $add (local.get 0) (i32.const 1))))
    (assert_return (invoke "inc" (i32.const 41)) (i32.const 42))
    (assert_return (invoke $m "add" (i32.const 2) (i32.const 2)) (i32.const 4))
    (assert_invalid (module (func (result i32) (i64.const 0))) "type mismatch")
    (assert_malformed (module quote "(func (i32.bogus))") "unknown operator")
    (assert_malformed (module binary "\00asm\02\00\00\00") "unknown binary version")
    (assert_unlinkable (module (import "M" "nope" (func))) "unknown import")
    (assert_trap (module (func $f unreachable) (start $f)) "unreachable")
    (module (import "spectest" "global_i32" (global i32)))
  )wast");
  EXPECT_EQ(report.failed, 0u) << failures_of(report);
  EXPECT_EQ(report.passed, 18u);
}

WEFT_EXEC_TEST(WastScriptsRun, ReportsFailuresWithLines) {
  WastReport report = run(tier(), R"wast((module
  (func (export "one") (result i32) (i32.const 1)))
(assert_return (invoke "one") (i32.const 2))
(assert_trap (invoke "one") "unreachable")
(assert_return (invoke "missing"))
(assert_invalid (module (func)) "type mismatch")
(assert_return (invoke "one") (f32.const 1))
)wast");
  EXPECT_EQ(report.passed, 1u);
  ASSERT_EQ(report.failed, 5u) << failures_of(report);
  EXPECT_EQ(report.failures[0].line, 3u);
  EXPECT_EQ(report.failures[0].command, "assert_return");
  EXPECT_EQ(report.failures[0].message, "expected (i32:2), got (i32:1)");
  EXPECT_NE(report.failures[1].message.find("expected trap \"unreachable\", got (i32:1)"), std::string::npos);
  EXPECT_NE(report.failures[2].message.find("unknown export \"missing\""), std::string::npos);
  EXPECT_NE(report.failures[3].message.find("accepted"), std::string::npos);
  EXPECT_EQ(report.trace.size(), 6u);
}

WEFT_EXEC_TEST(WastScriptsRun, ActionsOnAFailedModuleFail) {
  WastReport report = run(tier(), R"wast(
    (module (import "nowhere" "f" (func)) (func (export "f")))
    (assert_return (invoke "f"))
  )wast");
  EXPECT_EQ(report.passed, 0u);
  ASSERT_EQ(report.failed, 2u);
  EXPECT_EQ(report.failures[0].command, "module");
  EXPECT_NE(report.failures[1].message.find("unavailable"), std::string::npos) << failures_of(report);
}

TEST(WastScripts, ACommandThatDoesNotParseFailsAloneWithItsLocation) {
  WastReport report = run("(module)\n(module\n  (bogus))\n");
  EXPECT_EQ(report.failed, 1u);
  EXPECT_EQ(report.passed, 1u);  // the first module; the script went on
  EXPECT_FALSE(report.script_error.has_value());
  ASSERT_EQ(report.failures.size(), 1u);
  const WastFailure& parse = report.failures[0];
  EXPECT_EQ(parse.command, "parse");
  EXPECT_EQ(parse.line, 3u);
  EXPECT_EQ(parse.column, 4u);
  EXPECT_NE(parse.message.find("bogus"), std::string::npos) << parse.message;
}

TEST(WastScripts, UnreadableFileIsOneFailure) {
  WastReport report = run_wast_file("/nonexistent/x.wast", {});
  EXPECT_EQ(report.failed, 1u);
  ASSERT_TRUE(report.script_error.has_value());
  EXPECT_EQ(report.script_error->command, "read");
  EXPECT_NE(report.script_error->message.find("/nonexistent/x.wast"), std::string::npos);
}

}  // namespace
}  // namespace weft::tools
