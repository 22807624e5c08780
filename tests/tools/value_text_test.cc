// Parsing of `weft run --invoke` arguments and wasmtime-style result printing.
#include "tools/value_text.h"

#include <gtest/gtest.h>

namespace weft::tools {
namespace {

uint64_t parsed_bits(ValType type, const char* text) {
  Result<Value> v = parse_cli_value(type, text);
  EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
  return v.ok() ? v->raw()[0] : 0;
}

bool rejects(ValType type, const char* text) { return !parse_cli_value(type, text).ok(); }

TEST(ValueText, ParsesIntegers) {
  EXPECT_EQ(parsed_bits(ValType::i32(), "42"), 42u);
  EXPECT_EQ(parsed_bits(ValType::i32(), "-1"), 0xffffffffu);
  EXPECT_EQ(parsed_bits(ValType::i32(), "0xffffffff"), 0xffffffffu);
  EXPECT_EQ(parsed_bits(ValType::i32(), "-2147483648"), 0x80000000u);
  EXPECT_EQ(parsed_bits(ValType::i32(), "+7"), 7u);
  EXPECT_EQ(parsed_bits(ValType::i64(), "-1"), ~0ull);
  EXPECT_EQ(parsed_bits(ValType::i64(), "18446744073709551615"), ~0ull);
  EXPECT_EQ(parsed_bits(ValType::i64(), "0x8000000000000000"), 0x8000000000000000ull);
}

TEST(ValueText, RejectsBadIntegers) {
  EXPECT_TRUE(rejects(ValType::i32(), "4294967296"));
  EXPECT_TRUE(rejects(ValType::i32(), "-2147483649"));
  EXPECT_TRUE(rejects(ValType::i32(), "12abc"));
  EXPECT_TRUE(rejects(ValType::i32(), ""));
  EXPECT_TRUE(rejects(ValType::i32(), "0x"));
  EXPECT_TRUE(rejects(ValType::i32(), "1.5"));
  EXPECT_TRUE(rejects(ValType::i64(), "18446744073709551616"));
  Result<Value> v = parse_cli_value(ValType::i32(), "abc");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().kind, ErrorKind::Usage);
  EXPECT_NE(v.error().message.find("i32"), std::string::npos);
}

TEST(ValueText, ParsesFloats) {
  EXPECT_EQ(parsed_bits(ValType::f32(), "1.5"), 0x3fc00000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "-0"), 0x80000000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "0x1p-1"), 0x3f000000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "inf"), 0x7f800000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "-inf"), 0xff800000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "nan"), 0x7fc00000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "-nan"), 0xffc00000u);
  EXPECT_EQ(parsed_bits(ValType::f32(), "nan:0x1"), 0x7f800001u);
  EXPECT_EQ(parsed_bits(ValType::f64(), "0.1"), 0x3fb999999999999aull);
  EXPECT_EQ(parsed_bits(ValType::f64(), "1e308"), 0x7fe1ccf385ebc8a0ull);
  EXPECT_EQ(parsed_bits(ValType::f64(), "nan"), 0x7ff8000000000000ull);
  EXPECT_EQ(parsed_bits(ValType::f64(), "-inf"), 0xfff0000000000000ull);
  // f32 parsing rounds once, directly to single precision.
  EXPECT_EQ(parsed_bits(ValType::f32(), "16777217"), 0x4b800000u);
}

TEST(ValueText, RejectsBadFloats) {
  EXPECT_TRUE(rejects(ValType::f32(), "one"));
  EXPECT_TRUE(rejects(ValType::f32(), " 1"));
  EXPECT_TRUE(rejects(ValType::f32(), "1.5x"));
  EXPECT_TRUE(rejects(ValType::f32(), "nan(1)"));
  EXPECT_TRUE(rejects(ValType::f32(), "nan:0x800000"));
  EXPECT_TRUE(rejects(ValType::f32(), "nan:0x0"));
  EXPECT_TRUE(rejects(ValType::f64(), ""));
}

TEST(ValueText, ParsesNullReferences) {
  Result<Value> v = parse_cli_value(ValType::externref(), "null");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->is_null());
  EXPECT_TRUE(rejects(ValType::funcref(), "3"));
}

TEST(ValueText, ParsesV128AsAnUnsigned128BitNumber) {
  auto v128 = [](std::string_view text) { return parse_cli_value(ValType::v128(), text); };
  ASSERT_TRUE(v128("0").ok());
  EXPECT_EQ(v128("0")->raw()[0], 0u);
  EXPECT_EQ(v128("0")->raw()[1], 0u);
  ASSERT_TRUE(v128("18446744073709551616").ok());  // 2^64: lane bits 64..127 hold 1
  EXPECT_EQ(v128("18446744073709551616")->raw()[0], 0u);
  EXPECT_EQ(v128("18446744073709551616")->raw()[1], 1u);
  ASSERT_TRUE(v128("0x000102030405060708090a0b0c0d0e0F").ok());
  EXPECT_EQ(v128("0x000102030405060708090a0b0c0d0e0F")->raw()[0], 0x08090a0b0c0d0e0full);
  EXPECT_EQ(v128("0x000102030405060708090a0b0c0d0e0F")->raw()[1], 0x0001020304050607ull);
  ASSERT_TRUE(v128("340282366920938463463374607431768211455").ok());  // 2^128 - 1
  EXPECT_EQ(v128("340282366920938463463374607431768211455")->raw()[0], ~0ull);
  EXPECT_EQ(v128("340282366920938463463374607431768211455")->raw()[1], ~0ull);
  // Printing and parsing round-trip.
  const Value back = *v128(format_cli_value(Value::v128(0x1234, 0xfedcba9876543210ull)));
  EXPECT_EQ(back.raw()[0], 0x1234u);
  EXPECT_EQ(back.raw()[1], 0xfedcba9876543210ull);
  EXPECT_TRUE(rejects(ValType::v128(), "340282366920938463463374607431768211456"));  // 2^128
  EXPECT_TRUE(rejects(ValType::v128(), "0x1ffffffffffffffffffffffffffffffff"));    // 129 bits
  EXPECT_TRUE(rejects(ValType::v128(), "-1"));
  EXPECT_TRUE(rejects(ValType::v128(), ""));
  EXPECT_TRUE(rejects(ValType::v128(), "0x"));
  EXPECT_TRUE(rejects(ValType::v128(), "12a"));
  EXPECT_TRUE(rejects(ValType::v128(), "1.5"));
}

TEST(ValueText, FormatsLikeWasmtime) {
  EXPECT_EQ(format_cli_value(Value::i32(0xffffffffu)), "-1");
  EXPECT_EQ(format_cli_value(Value::i32(42)), "42");
  EXPECT_EQ(format_cli_value(Value::i64(0x8000000000000000ull)), "-9223372036854775808");
  EXPECT_EQ(format_cli_value(Value::f32_bits(0x3fc00000u)), "1.5");
  EXPECT_EQ(format_cli_value(Value::f32_bits(0x3f800000u)), "1");
  EXPECT_EQ(format_cli_value(Value::f32_bits(0x3dcccccdu)), "0.1");
  EXPECT_EQ(format_cli_value(Value::f64_bits(0x3fb999999999999aull)), "0.1");
  EXPECT_EQ(format_cli_value(Value::f64_bits(0x4415af1d78b58c40ull)), "100000000000000000000");
  EXPECT_EQ(format_cli_value(Value::f64_bits(0x8000000000000000ull)), "-0");
  EXPECT_EQ(format_cli_value(Value::f64_bits(0x7ff0000000000000ull)), "inf");
  EXPECT_EQ(format_cli_value(Value::f64_bits(0xfff0000000000000ull)), "-inf");
  EXPECT_EQ(format_cli_value(Value::f32_bits(0xffc00000u)), "NaN");
  EXPECT_EQ(format_cli_value(Value::v128(1, 0)), "1");
  EXPECT_EQ(format_cli_value(Value::v128(0, 1)), "18446744073709551616");
  EXPECT_EQ(format_cli_value(Value::null_ref(ValType::funcref())), "<null funcref>");
  EXPECT_EQ(format_cli_value(Value::extern_ref(5)), "<externref>");
}

}  // namespace
}  // namespace weft::tools
