// Numeric literals: integer ranges, underscores, hex floats, NaN payloads and
// exact rounding (ties to even, subnormals, overflow) for f32 and f64.
#include "text/numbers.h"

#include <gtest/gtest.h>

namespace weft::text {
namespace {

uint32_t f32(std::string_view s) {
  NumResult<uint32_t> r = parse_f32(s);
  EXPECT_TRUE(r.ok()) << s;
  return r.value;
}
uint64_t f64(std::string_view s) {
  NumResult<uint64_t> r = parse_f64(s);
  EXPECT_TRUE(r.ok()) << s;
  return r.value;
}

TEST(Numbers, Unsigned) {
  EXPECT_EQ(parse_unsigned("0", 32).value, 0u);
  EXPECT_EQ(parse_unsigned("1_000", 32).value, 1000u);
  EXPECT_EQ(parse_unsigned("0xFF_ff", 32).value, 0xFFFFu);
  EXPECT_EQ(parse_unsigned("4294967295", 32).value, 4294967295u);
  EXPECT_EQ(parse_unsigned("4294967296", 32).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_unsigned("18446744073709551615", 64).value, UINT64_MAX);
  EXPECT_EQ(parse_unsigned("18446744073709551616", 64).status, NumStatus::OutOfRange);
  for (const char* bad : {"", "+1", "-1", "_1", "1_", "1__2", "0x", "0x_1", "1a", "0xg", "0X1"})
    EXPECT_EQ(parse_unsigned(bad, 32).status, NumStatus::NotANumber) << bad;
}

TEST(Numbers, SignedAndUnsignedIntegers) {
  EXPECT_EQ(parse_integer("-1", 32).value, 0xFFFFFFFFu);
  EXPECT_EQ(parse_integer("0xffffffff", 32).value, 0xFFFFFFFFu);
  EXPECT_EQ(parse_integer("-2147483648", 32).value, 0x80000000u);
  EXPECT_EQ(parse_integer("-0x8000_0000", 32).value, 0x80000000u);
  EXPECT_EQ(parse_integer("+2147483647", 32).value, 0x7FFFFFFFu);
  EXPECT_EQ(parse_integer("+2147483648", 32).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_integer("-2147483649", 32).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_integer("4294967296", 32).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_integer("-0", 32).value, 0u);
  EXPECT_EQ(parse_integer("-9223372036854775808", 64).value, 0x8000000000000000u);
  EXPECT_EQ(parse_integer("18446744073709551615", 64).value, UINT64_MAX);
  EXPECT_EQ(parse_integer("-9223372036854775809", 64).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_integer("255", 8).value, 255u);
  EXPECT_EQ(parse_integer("-128", 8).value, 0x80u);
  EXPECT_EQ(parse_integer("256", 8).status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_integer("--1", 32).status, NumStatus::NotANumber);
  EXPECT_EQ(parse_integer("1.0", 32).status, NumStatus::NotANumber);
}

TEST(Numbers, SpecialFloats) {
  EXPECT_EQ(f32("inf"), 0x7F800000u);
  EXPECT_EQ(f32("-inf"), 0xFF800000u);
  EXPECT_EQ(f32("+inf"), 0x7F800000u);
  EXPECT_EQ(f32("nan"), 0x7FC00000u);
  EXPECT_EQ(f32("-nan"), 0xFFC00000u);
  EXPECT_EQ(f32("nan:0x200000"), 0x7FA00000u);
  EXPECT_EQ(f32("-nan:0x7f_ffff"), 0xFFFFFFFFu);
  EXPECT_EQ(f32("nan:0x1"), 0x7F800001u);
  EXPECT_EQ(parse_f32("nan:0x0").status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_f32("nan:0x800000").status, NumStatus::OutOfRange);
  EXPECT_EQ(f64("nan"), 0x7FF8000000000000u);
  EXPECT_EQ(f64("nan:0xfffffffffffff"), 0x7FFFFFFFFFFFFFFFu);
  EXPECT_EQ(parse_f64("nan:0x10000000000000").status, NumStatus::OutOfRange);
  EXPECT_EQ(f32("-0"), 0x80000000u);
  EXPECT_EQ(f32("-0.0"), 0x80000000u);
  EXPECT_EQ(f32("-0x0p0"), 0x80000000u);
  EXPECT_EQ(f64("-0"), 0x8000000000000000u);
  EXPECT_EQ(f64("0"), 0u);
}

TEST(Numbers, HexFloats) {
  EXPECT_EQ(f32("0x1.8p3"), 0x41400000u);  // 12
  EXPECT_EQ(f32("0x1p0"), 0x3F800000u);
  EXPECT_EQ(f32("0x1."), 0x3F800000u);
  EXPECT_EQ(f32("0x1.p1"), 0x40000000u);
  EXPECT_EQ(f32("0x10"), 0x41800000u);
  EXPECT_EQ(f32("0x1_0.0_8p-0_1"), 0x41004000u);  // 16.03125 / 2
  EXPECT_EQ(parse_f32("0x.8p0").status, NumStatus::NotANumber);
  EXPECT_EQ(f64("0x1.8p3"), 0x4028000000000000u);
  EXPECT_EQ(parse_f64("0X1p0").status, NumStatus::NotANumber);
  // Largest finite values, and the ties that round up to infinity.
  EXPECT_EQ(f32("0x1.fffffep127"), 0x7F7FFFFFu);
  EXPECT_EQ(f32("0x1.fffffefffffffffffp127"), 0x7F7FFFFFu);
  EXPECT_EQ(parse_f32("0x1.ffffffp127").status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_f32("0x1p128").status, NumStatus::OutOfRange);
  EXPECT_EQ(f64("0x1.fffffffffffffp1023"), 0x7FEFFFFFFFFFFFFFu);
  EXPECT_EQ(f64("0x1.fffffffffffff7ffffffp1023"), 0x7FEFFFFFFFFFFFFFu);
  EXPECT_EQ(parse_f64("0x1.fffffffffffff8p1023").status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_f64("0x1p1000000000000000").status, NumStatus::OutOfRange);
  // Subnormals and underflow (ties to even).
  EXPECT_EQ(f32("0x1p-149"), 1u);
  EXPECT_EQ(f32("0x1p-150"), 0u);
  EXPECT_EQ(f32("0x1.000002p-150"), 1u);
  EXPECT_EQ(f32("0x1.8p-149"), 2u);
  EXPECT_EQ(f32("0x1p-126"), 0x00800000u);
  EXPECT_EQ(f32("0x0.fffffffp-126"), 0x00800000u);  // rounds up into the normals
  EXPECT_EQ(f32("0x1p-1000000000000"), 0u);
  EXPECT_EQ(f64("0x1p-1074"), 1u);
  EXPECT_EQ(f64("0x1p-1075"), 0u);
  EXPECT_EQ(f64("0x1.0000000000001p-1075"), 1u);
  EXPECT_EQ(f64("0x3p-1075"), 2u);  // 1.5 ulp → 2 (even)
  EXPECT_EQ(f64("0x3p-1076"), 1u);  // 0.75 ulp → 1
  // Ties to even in normal range, with digits far beyond the precision.
  EXPECT_EQ(f32("0x1.000001p0"), 0x3F800000u);
  EXPECT_EQ(f32("0x1.000003p0"), 0x3F800002u);
  EXPECT_EQ(f32("0x1.00000100000000000000000000000000000001p0"), 0x3F800001u);
  EXPECT_EQ(f64("0x1.00000000000008p0"), 0x3FF0000000000000u);
  EXPECT_EQ(f64("0x1.00000000000008000000000000000001p0"), 0x3FF0000000000001u);
  EXPECT_EQ(f64("0x1.00000000000018p0"), 0x3FF0000000000002u);
}

TEST(Numbers, DecimalFloats) {
  EXPECT_EQ(f32("1"), 0x3F800000u);
  EXPECT_EQ(f32("1.5e1"), 0x41700000u);
  EXPECT_EQ(f32("1.E1"), 0x41200000u);
  EXPECT_EQ(f32("1_000.000_1"), f32("1000.0001"));
  EXPECT_EQ(f32("3.4028234663852886e38"), 0x7F7FFFFFu);
  EXPECT_EQ(parse_f32("3.4028236e38").status, NumStatus::OutOfRange);
  EXPECT_EQ(parse_f32("1e39").status, NumStatus::OutOfRange);
  EXPECT_EQ(f32("1e-45"), 1u);
  EXPECT_EQ(f32("1e-46"), 0u);
  EXPECT_EQ(f64("1e-400"), 0u);
  EXPECT_EQ(parse_f64("1e309").status, NumStatus::OutOfRange);
  EXPECT_EQ(f64("2.2250738585072012e-308"), 0x0010000000000000u);
  EXPECT_EQ(f64("4.9e-324"), 1u);
  // Direct rounding to f32: through f64 this would tie and round down to 1.0.
  EXPECT_EQ(f32("1.000000059604644775390626"), 0x3F800001u);
  EXPECT_EQ(f32("1.000000059604644775390625"), 0x3F800000u);
  EXPECT_EQ(f64("0.1"), 0x3FB999999999999Au);
  EXPECT_EQ(f64("1e23"), 0x44B52D02C7E14AF6u);
  for (const char* bad : {"", ".5", "1.e", "1e", "1e+", "1._5", "1_.5", "_1.0", "1.0_", "1e_5", "1e5_",
                          "0x1p", "0x1p+", "0x", "nan:", "nan:1", "nan:0x", "infinity", "1f", "- 1"})
    EXPECT_EQ(parse_f64(bad).status, NumStatus::NotANumber) << bad;
}

}  // namespace
}  // namespace weft::text
