// Tests for runtime/numeric.h: the Wasm 2.0 scalar numeric instructions.
// Expected values come from the spec test suite (i32/i64/f32/f64/conversions/
// float_misc .wast), plus randomized comparisons against independent
// reference implementations.
#include "runtime/numeric.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace N = weft::numeric;
using N::TrapCode;

// Hides a value from the optimiser so that the code under test runs at run
// time instead of being constant-folded by the compiler.
template <class T> T O(T x) {
  volatile T v = x;
  return v;
}

float f32b(uint32_t b) { return O(std::bit_cast<float>(b)); }
double f64b(uint64_t b) { return O(std::bit_cast<double>(b)); }
uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
uint64_t bits(double x) { return std::bit_cast<uint64_t>(x); }

constexpr uint32_t kF32Canon = 0x7fc00000, kF32NegCanon = 0xffc00000;
constexpr uint32_t kF32SNaN = 0x7fa00000;      // nan:0x200000 (signalling)
constexpr uint32_t kF32NegSNaN = 0xffa00000;   // -nan:0x200000
constexpr uint32_t kF32QNaNPayload = 0x7fc00001;  // arithmetic, not canonical
constexpr uint64_t kF64Canon = 0x7ff8000000000000, kF64NegCanon = 0xfff8000000000000;
constexpr uint64_t kF64SNaN = 0x7ff4000000000000;  // nan:0x4000000000000 (signalling)
constexpr uint64_t kF64NegSNaN = 0xfff4000000000000;

#define EXPECT_BITS(actual, expected_value) EXPECT_EQ(bits(actual), bits(expected_value))
#define EXPECT_CANON(x) EXPECT_TRUE(N::is_canonical_nan(x)) << std::hex << bits(x)
#define EXPECT_ARITH(x) EXPECT_TRUE(N::is_arithmetic_nan(x)) << std::hex << bits(x)

// ---------------------------------------------------------------------------
// Traps and NaN classification
// ---------------------------------------------------------------------------

TEST(NumericTrap, MessagesMatchSpecText) {
  EXPECT_STREQ(N::trap_message(TrapCode::IntegerDivideByZero), "integer divide by zero");
  EXPECT_STREQ(N::trap_message(TrapCode::IntegerOverflow), "integer overflow");
  EXPECT_STREQ(N::trap_message(TrapCode::InvalidConversionToInteger), "invalid conversion to integer");
  EXPECT_STREQ(N::trap_message(TrapCode::None), "");
}

TEST(NumericNaN, Classification) {
  EXPECT_TRUE(N::is_canonical_nan(f32b(kF32Canon)));
  EXPECT_TRUE(N::is_canonical_nan(f32b(kF32NegCanon)));
  EXPECT_FALSE(N::is_canonical_nan(f32b(kF32QNaNPayload)));
  EXPECT_TRUE(N::is_arithmetic_nan(f32b(kF32QNaNPayload)));
  EXPECT_FALSE(N::is_arithmetic_nan(f32b(kF32SNaN)));
  EXPECT_FALSE(N::is_arithmetic_nan(f32b(0x7f800000)));  // inf
  EXPECT_TRUE(N::is_nan(f32b(kF32SNaN)));
  EXPECT_TRUE(N::is_canonical_nan(f64b(kF64NegCanon)));
  EXPECT_FALSE(N::is_arithmetic_nan(f64b(kF64SNaN)));
  EXPECT_TRUE(N::is_arithmetic_nan(f64b(0x7ff8000000000001)));
  EXPECT_FALSE(N::is_canonical_nan(f64b(0x7ff8000000000001)));
  EXPECT_EQ(bits(N::canonical_nan<float>()), kF32Canon);
  EXPECT_EQ(bits(N::canonical_nan<double>()), kF64Canon);
}

// ---------------------------------------------------------------------------
// Integer instructions
// ---------------------------------------------------------------------------

TEST(NumericInt, WrappingArithmetic) {
  EXPECT_EQ(N::i32_add(O(0x7fffffffu), 1u), 0x80000000u);
  EXPECT_EQ(N::i32_add(O(0xffffffffu), 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(N::i32_sub(O(0x80000000u), 1u), 0x7fffffffu);
  EXPECT_EQ(N::i32_mul(O(0x01234567u), 0x76543210u), 0x358e7470u);  // i32.wast
  EXPECT_EQ(N::i32_mul(O(0x80000000u), 0xffffffffu), 0x80000000u);
  EXPECT_EQ(N::i64_add(O(0x7fffffffffffffffull), 1ull), 0x8000000000000000ull);
  EXPECT_EQ(N::i64_mul(O(0x0123456789abcdefull), 0xfedcba9876543210ull), 0x2236d88fe5618cf0ull);  // i64.wast
  EXPECT_EQ(N::i64_mul(O(0x8000000000000000ull), 0xffffffffffffffffull), 0x8000000000000000ull);
  // Signed storage computes the same bits without signed-overflow UB.
  EXPECT_EQ(N::add<int32_t>(O(INT32_MAX), 1), INT32_MIN);
  EXPECT_EQ(N::mul<int64_t>(O(INT64_MIN), -1), INT64_MIN);
  EXPECT_EQ(N::sub<int64_t>(O(INT64_MIN), 1), INT64_MAX);
}

TEST(NumericInt, DivSigned) {
  uint32_t o = 0xdeadbeef;
  EXPECT_EQ(N::i32_div_s(O(1u), O(0u), o), TrapCode::IntegerDivideByZero);
  EXPECT_EQ(N::i32_div_s(O(0u), 0u, o), TrapCode::IntegerDivideByZero);
  EXPECT_EQ(N::i32_div_s(O(0x80000000u), O(0xffffffffu), o), TrapCode::IntegerOverflow);
  EXPECT_EQ(o, 0xdeadbeefu) << "out must be untouched on trap";
  ASSERT_EQ(N::i32_div_s(O(0x80000000u), 2u, o), TrapCode::None);
  EXPECT_EQ(o, 0xc0000000u);
  ASSERT_EQ(N::i32_div_s(O(uint32_t(-7)), 2u, o), TrapCode::None);
  EXPECT_EQ(int32_t(o), -3);  // truncates toward zero
  ASSERT_EQ(N::i32_div_s(O(7u), uint32_t(-2), o), TrapCode::None);
  EXPECT_EQ(int32_t(o), -3);
  ASSERT_EQ(N::i32_div_s(O(0x80000001u), 1000u, o), TrapCode::None);
  EXPECT_EQ(o, 0xffdf3b65u);  // i32.wast

  uint64_t q = 0;
  EXPECT_EQ(N::i64_div_s(O(0x8000000000000000ull), O(~0ull), q), TrapCode::IntegerOverflow);
  EXPECT_EQ(N::i64_div_s(O(1ull), 0ull, q), TrapCode::IntegerDivideByZero);
  ASSERT_EQ(N::i64_div_s(O(uint64_t(-5)), 2ull, q), TrapCode::None);
  EXPECT_EQ(int64_t(q), -2);
  // Either storage signedness.
  int32_t s = 0;
  EXPECT_EQ(N::div_s<int32_t>(O(INT32_MIN), -1, s), TrapCode::IntegerOverflow);
  ASSERT_EQ(N::div_s<int32_t>(O(INT32_MIN), 1, s), TrapCode::None);
  EXPECT_EQ(s, INT32_MIN);
}

TEST(NumericInt, DivUnsigned) {
  uint32_t o = 0;
  EXPECT_EQ(N::i32_div_u(O(1u), 0u, o), TrapCode::IntegerDivideByZero);
  ASSERT_EQ(N::i32_div_u(O(0x80000000u), 0xffffffffu, o), TrapCode::None);
  EXPECT_EQ(o, 0u);
  ASSERT_EQ(N::i32_div_u(O(0x80000001u), 1000u, o), TrapCode::None);
  EXPECT_EQ(o, 0x20c49bu);
  uint64_t q = 0;
  EXPECT_EQ(N::i64_div_u(O(1ull), 0ull, q), TrapCode::IntegerDivideByZero);
  ASSERT_EQ(N::i64_div_u(O(0x8ff00ff00ff00ff0ull), 0x100000001ull, q), TrapCode::None);
  EXPECT_EQ(q, 0x8ff00fefull);  // i64.wast
}

TEST(NumericInt, RemSigned) {
  uint32_t o = 1;
  EXPECT_EQ(N::i32_rem_s(O(1u), 0u, o), TrapCode::IntegerDivideByZero);
  // INT_MIN % -1 is 0 in Wasm (and UB / SIGFPE in C++ if done naively).
  ASSERT_EQ(N::i32_rem_s(O(0x80000000u), O(0xffffffffu), o), TrapCode::None);
  EXPECT_EQ(o, 0u);
  ASSERT_EQ(N::i32_rem_s(O(uint32_t(-7)), 2u, o), TrapCode::None);
  EXPECT_EQ(int32_t(o), -1);  // sign of the dividend
  ASSERT_EQ(N::i32_rem_s(O(7u), uint32_t(-2), o), TrapCode::None);
  EXPECT_EQ(int32_t(o), 1);
  ASSERT_EQ(N::i32_rem_s(O(0x80000001u), 1000u, o), TrapCode::None);
  EXPECT_EQ(int32_t(o), -647);
  uint64_t r = 1;
  ASSERT_EQ(N::i64_rem_s(O(0x8000000000000000ull), O(~0ull), r), TrapCode::None);
  EXPECT_EQ(r, 0u);
  EXPECT_EQ(N::i64_rem_s(O(5ull), 0ull, r), TrapCode::IntegerDivideByZero);
  ASSERT_EQ(N::i64_rem_s(O(0x8000000000000001ull), 1000ull, r), TrapCode::None);
  EXPECT_EQ(int64_t(r), -807);
}

TEST(NumericInt, RemUnsigned) {
  uint32_t o = 0;
  EXPECT_EQ(N::i32_rem_u(O(1u), O(0u), o), TrapCode::IntegerDivideByZero);
  ASSERT_EQ(N::i32_rem_u(O(0x80000000u), 0xffffffffu, o), TrapCode::None);
  EXPECT_EQ(o, 0x80000000u);
  ASSERT_EQ(N::i32_rem_u(O(0x8ff00ff0u), 0x10001u, o), TrapCode::None);
  EXPECT_EQ(o, 0x8001u);
  uint64_t r = 0;
  ASSERT_EQ(N::i64_rem_u(O(0x8ff00ff00ff00ff0ull), 0x100000001ull, r), TrapCode::None);
  EXPECT_EQ(r, 0x80000001ull);
}

TEST(NumericInt, ShiftsUseCountModuloWidth) {
  EXPECT_EQ(N::i32_shl(O(1u), 31u), 0x80000000u);
  EXPECT_EQ(N::i32_shl(O(1u), 32u), 1u);
  EXPECT_EQ(N::i32_shl(O(1u), 33u), 2u);
  EXPECT_EQ(N::i32_shl(O(1u), 0xffffffffu), 0x80000000u);
  EXPECT_EQ(N::i32_shr_s(O(0x80000000u), 31u), 0xffffffffu);
  EXPECT_EQ(N::i32_shr_s(O(0x80000000u), 32u), 0x80000000u);
  EXPECT_EQ(N::i32_shr_s(O(0x40000000u), 0xffffffffu), 0u);
  EXPECT_EQ(N::i32_shr_s(O(0xffffffffu), 0x7fffffffu), 0xffffffffu);
  EXPECT_EQ(N::i32_shr_u(O(0x80000000u), 31u), 1u);
  EXPECT_EQ(N::i32_shr_u(O(0x80000000u), 33u), 0x40000000u);
  EXPECT_EQ(N::i64_shl(O(1ull), 63ull), 0x8000000000000000ull);
  EXPECT_EQ(N::i64_shl(O(1ull), 64ull), 1ull);
  EXPECT_EQ(N::i64_shl(O(1ull), 0x8000000000000001ull), 2ull);
  EXPECT_EQ(N::i64_shr_s(O(0x8000000000000000ull), 63ull), ~0ull);
  EXPECT_EQ(N::i64_shr_s(O(0x8000000000000000ull), 65ull), 0xc000000000000000ull);
  EXPECT_EQ(N::i64_shr_u(O(0x8000000000000000ull), 0xffffffffffffffffull), 1ull);
  EXPECT_EQ(N::shr_s<int32_t>(O(-8), 1), -4);
  EXPECT_EQ(N::shl<int32_t>(O(-1), 31), INT32_MIN);  // no UB on signed storage
}

TEST(NumericInt, Rotates) {
  // i32.wast / i64.wast
  EXPECT_EQ(N::i32_rotl(O(0xfe00dc00u), 4u), 0xe00dc00fu);
  EXPECT_EQ(N::i32_rotl(O(0xabcd9876u), 1u), 0x579b30edu);
  EXPECT_EQ(N::i32_rotl(O(0x00008000u), 37u), 0x00100000u);
  EXPECT_EQ(N::i32_rotl(O(0x769abcdfu), 0x8000000du), 0x579beed3u);
  EXPECT_EQ(N::i32_rotl(O(1u), 32u), 1u);
  EXPECT_EQ(N::i32_rotr(O(0xb0c1d2e3u), 0x0005u), 0x1d860e97u);
  EXPECT_EQ(N::i32_rotr(O(0xff00cc00u), 1u), 0x7f806600u);
  EXPECT_EQ(N::i32_rotr(O(0x769abcdfu), 0xffffffedu), 0xe6fbb4d5u);
  EXPECT_EQ(N::i32_rotr(O(1u), 0x80000000u), 1u);
  EXPECT_EQ(N::i64_rotl(O(0xabd1234ef567809cull), 63ull), 0x55e891a77ab3c04eull);
  EXPECT_EQ(N::i64_rotl(O(0xabd1234ef567809cull), 0x800000000000003full), 0x55e891a77ab3c04eull);
  EXPECT_EQ(N::i64_rotr(O(0xabcd1234ef567809ull), 53ull), 0x6891a77ab3c04d5eull);
  EXPECT_EQ(N::i64_rotr(O(0xabcd1234ef567809ull), 0x35ull), 0x6891a77ab3c04d5eull);
  EXPECT_EQ(N::i64_rotr(O(1ull), 64ull), 1ull);
  EXPECT_EQ(N::i64_rotr(O(1ull), 0xffffffffffffffffull), 2ull);
}

TEST(NumericInt, BitCounts) {
  EXPECT_EQ(N::i32_clz(O(0u)), 32u);
  EXPECT_EQ(N::i32_clz(O(0xffffffffu)), 0u);
  EXPECT_EQ(N::i32_clz(O(0x00008000u)), 16u);
  EXPECT_EQ(N::i32_clz(O(1u)), 31u);
  EXPECT_EQ(N::i32_ctz(O(0u)), 32u);
  EXPECT_EQ(N::i32_ctz(O(0x80000000u)), 31u);
  EXPECT_EQ(N::i32_ctz(O(0x00008000u)), 15u);
  EXPECT_EQ(N::i32_popcnt(O(0u)), 0u);
  EXPECT_EQ(N::i32_popcnt(O(0xffffffffu)), 32u);
  EXPECT_EQ(N::i32_popcnt(O(0xAAAA5555u)), 16u);
  EXPECT_EQ(N::i32_popcnt(O(0xDEADBEEFu)), 24u);
  EXPECT_EQ(N::i64_clz(O(0ull)), 64ull);
  EXPECT_EQ(N::i64_clz(O(1ull)), 63ull);
  EXPECT_EQ(N::i64_clz(O(0x8000000000000000ull)), 0ull);
  EXPECT_EQ(N::i64_ctz(O(0ull)), 64ull);
  EXPECT_EQ(N::i64_ctz(O(0x8000000000000000ull)), 63ull);
  EXPECT_EQ(N::i64_popcnt(O(~0ull)), 64ull);
  EXPECT_EQ(N::i64_popcnt(O(0x99999999AAAAAAAAull)), 32ull);
  EXPECT_EQ(N::clz<int32_t>(O(-1)), 0);
  EXPECT_EQ(N::ctz<int64_t>(O(int64_t(0))), 64);
}

TEST(NumericInt, SignExtension) {
  EXPECT_EQ(N::i32_extend8_s(O(0x7fu)), 0x7fu);
  EXPECT_EQ(N::i32_extend8_s(O(0x80u)), 0xffffff80u);
  EXPECT_EQ(N::i32_extend8_s(O(0x012345d6u)), 0xffffffd6u);
  EXPECT_EQ(N::i32_extend8_s(O(0xfedcba80u)), 0xffffff80u);
  EXPECT_EQ(N::i32_extend16_s(O(0x8000u)), 0xffff8000u);
  EXPECT_EQ(N::i32_extend16_s(O(0x12347fffu)), 0x7fffu);
  EXPECT_EQ(N::i64_extend8_s(O(0x0123456789abcd80ull)), 0xffffffffffffff80ull);
  EXPECT_EQ(N::i64_extend16_s(O(0x0123456789ab8000ull)), 0xffffffffffff8000ull);
  EXPECT_EQ(N::i64_extend32_s(O(0x0123456780000000ull)), 0xffffffff80000000ull);
  EXPECT_EQ(N::i64_extend32_s(O(0xfedcba987fffffffull)), 0x7fffffffull);
  EXPECT_EQ(N::i32_wrap_i64(O(0xfedcba9876543210ull)), 0x76543210u);
  EXPECT_EQ(N::i64_extend_i32_s(O(0x80000000u)), 0xffffffff80000000ull);
  EXPECT_EQ(N::i64_extend_i32_u(O(0x80000000u)), 0x80000000ull);
}

TEST(NumericInt, Comparisons) {
  EXPECT_EQ(N::i32_eqz(O(0u)), 1u);
  EXPECT_EQ(N::i32_eqz(O(0x80000000u)), 0u);
  EXPECT_EQ(N::i64_eqz(O(0ull)), 1u);
  EXPECT_EQ(N::i64_eqz(O(0x100000000ull)), 0u);
  EXPECT_EQ(N::i32_lt_s(O(0x80000000u), 0u), 1u);
  EXPECT_EQ(N::i32_lt_u(O(0x80000000u), 0u), 0u);
  EXPECT_EQ(N::i32_gt_s(O(0u), 0xffffffffu), 1u);
  EXPECT_EQ(N::i32_gt_u(O(0u), 0xffffffffu), 0u);
  EXPECT_EQ(N::i32_le_s(O(0x7fffffffu), 0x80000000u), 0u);
  EXPECT_EQ(N::i32_le_u(O(0x7fffffffu), 0x80000000u), 1u);
  EXPECT_EQ(N::i32_ge_s(O(5u), 5u), 1u);
  EXPECT_EQ(N::i32_ge_u(O(4u), 5u), 0u);
  EXPECT_EQ(N::i32_eq(O(1u), 1u), 1u);
  EXPECT_EQ(N::i32_ne(O(1u), 1u), 0u);
  EXPECT_EQ(N::i64_lt_s(O(0x8000000000000000ull), 0x7fffffffffffffffull), 1u);
  EXPECT_EQ(N::i64_lt_u(O(0x8000000000000000ull), 0x7fffffffffffffffull), 0u);
  EXPECT_EQ(N::i64_ge_s(O(~0ull), 0ull), 0u);
  EXPECT_EQ(N::i64_ge_u(O(~0ull), 0ull), 1u);
  EXPECT_EQ(N::i64_ne(O(1ull), 0x100000001ull), 1u);
}

// ---------------------------------------------------------------------------
// Float instructions
// ---------------------------------------------------------------------------

TEST(NumericFloat, SignOpsArePureBitOps) {
  // abs/neg/copysign keep NaN payloads, including the signalling bit.
  EXPECT_EQ(bits(N::f32_abs(f32b(kF32NegSNaN))), kF32SNaN);
  EXPECT_EQ(bits(N::f32_neg(f32b(kF32SNaN))), kF32NegSNaN);
  EXPECT_EQ(bits(N::f32_neg(f32b(kF32Canon))), kF32NegCanon);
  EXPECT_EQ(bits(N::f32_copysign(f32b(kF32SNaN), -1.0f)), kF32NegSNaN);
  EXPECT_EQ(bits(N::f32_copysign(1.0f, f32b(kF32NegCanon))), bits(-1.0f));
  EXPECT_EQ(bits(N::f32_neg(O(0.0f))), bits(-0.0f));
  EXPECT_EQ(bits(N::f32_abs(O(-0.0f))), bits(0.0f));
  EXPECT_EQ(bits(N::f32_copysign(O(-0.0f), 0.0f)), bits(0.0f));
  EXPECT_EQ(bits(N::f64_abs(f64b(kF64NegSNaN))), kF64SNaN);
  EXPECT_EQ(bits(N::f64_neg(f64b(kF64SNaN))), kF64NegSNaN);
  EXPECT_EQ(bits(N::f64_copysign(f64b(kF64Canon), -0.0)), kF64NegCanon);
  EXPECT_EQ(bits(N::f64_neg(O(-0.0))), bits(0.0));
  EXPECT_EQ(bits(N::f64_copysign(O(-INFINITY), 1.0)), bits(double(INFINITY)));
}

TEST(NumericFloat, ArithmeticNaNPropagation) {
  // float_misc.wast / f32.wast: NaN results are canonical for canonical inputs
  // (and for invalid operations), arithmetic otherwise.
  EXPECT_CANON(N::f32_add(f32b(kF32Canon), O(1.0f)));
  EXPECT_ARITH(N::f32_add(f32b(kF32SNaN), O(1.0f)));
  EXPECT_ARITH(N::f32_mul(O(1.0f), f32b(kF32NegSNaN)));
  EXPECT_CANON(N::f32_sub(O(INFINITY), O(INFINITY)));
  EXPECT_CANON(N::f32_div(O(0.0f), O(0.0f)));
  EXPECT_CANON(N::f32_mul(O(0.0f), O(-INFINITY)));
  EXPECT_CANON(N::f64_div(O(-0.0), O(0.0)));
  EXPECT_ARITH(N::f64_div(f64b(kF64SNaN), O(2.0)));
  EXPECT_BITS(N::f32_add(O(0x1.fffffep+127f), O(0x1p+104f)), INFINITY);
  EXPECT_BITS(N::f32_add(O(-0.0f), O(0.0f)), 0.0f);
  EXPECT_BITS(N::f32_add(O(-0.0f), O(-0.0f)), -0.0f);
  EXPECT_BITS(N::f64_sub(O(0.0), O(0.0)), 0.0);
  // float_misc.wast: rounding of add (no double rounding through a wider type).
  EXPECT_BITS(N::f32_add(O(1.1234567890f), O(1.2345e-10f)), 1.123456789f);
  EXPECT_BITS(N::f64_add(O(0x1p+53), O(1.0)), 0x1p+53);
  EXPECT_BITS(N::f32_mul(O(1e15f), O(1e15f)), 0x1.93e592p+99f);
  EXPECT_BITS(N::f64_div(O(1.0), O(3.0)), 0x1.5555555555555p-2);
  // Subnormals are not flushed to zero.
  EXPECT_BITS(N::f32_mul(O(0x1p-126f), O(0.5f)), 0x1p-127f);
  EXPECT_BITS(N::f64_div(O(0x1p-1022), O(0x1p+52)), 0x1p-1074);
}

TEST(NumericFloat, Sqrt) {
  EXPECT_BITS(N::f32_sqrt(O(-0.0f)), -0.0f);
  EXPECT_BITS(N::f32_sqrt(O(4.0f)), 2.0f);
  EXPECT_BITS(N::f32_sqrt(O(INFINITY)), INFINITY);
  EXPECT_CANON(N::f32_sqrt(O(-1.0f)));
  EXPECT_CANON(N::f32_sqrt(O(-INFINITY)));
  EXPECT_CANON(N::f32_sqrt(O(-0x1p-149f)));
  EXPECT_CANON(N::f32_sqrt(f32b(kF32Canon)));
  EXPECT_ARITH(N::f32_sqrt(f32b(kF32SNaN)));
  EXPECT_BITS(N::f32_sqrt(O(0x1.000002p+0f)), 0x1p+0f);        // float_misc.wast
  EXPECT_BITS(N::f32_sqrt(O(0x1.000004p+0f)), 0x1.000002p+0f);  // float_misc.wast
  EXPECT_BITS(N::f64_sqrt(O(-0.0)), -0.0);
  EXPECT_BITS(N::f64_sqrt(O(2.0)), 0x1.6a09e667f3bcdp+0);
  EXPECT_BITS(N::f64_sqrt(O(0x1.fffffffffffffp+1023)), 0x1.fffffffffffffp+511);
  EXPECT_CANON(N::f64_sqrt(O(-0x1p-1074)));
  EXPECT_CANON(N::f64_sqrt(f64b(kF64NegCanon)));
  EXPECT_ARITH(N::f64_sqrt(f64b(kF64SNaN)));
  EXPECT_BITS(N::f64_sqrt(O(0x1.0000000000001p+0)), 0x1p+0);  // float_misc.wast
}

TEST(NumericFloat, MinMax) {
  // -0 < +0 regardless of operand order.
  EXPECT_BITS(N::f32_min(O(0.0f), O(-0.0f)), -0.0f);
  EXPECT_BITS(N::f32_min(O(-0.0f), O(0.0f)), -0.0f);
  EXPECT_BITS(N::f32_max(O(0.0f), O(-0.0f)), 0.0f);
  EXPECT_BITS(N::f32_max(O(-0.0f), O(0.0f)), 0.0f);
  EXPECT_BITS(N::f32_min(O(-0.0f), O(-0.0f)), -0.0f);
  EXPECT_BITS(N::f32_max(O(-0.0f), O(-0.0f)), -0.0f);
  EXPECT_BITS(N::f64_min(O(0.0), O(-0.0)), -0.0);
  EXPECT_BITS(N::f64_max(O(-0.0), O(0.0)), 0.0);
  // Ordinary values, infinities, subnormals.
  EXPECT_BITS(N::f32_min(O(0x1p-149f), O(-0x1p-126f)), -0x1p-126f);
  EXPECT_BITS(N::f32_max(O(-INFINITY), O(0x1p-149f)), 0x1p-149f);
  EXPECT_BITS(N::f32_min(O(0x1p-1f), O(-INFINITY)), -INFINITY);
  EXPECT_BITS(N::f64_max(O(-0x1.921fb54442d18p+2), O(0x1.fffffffffffffp+1023)), 0x1.fffffffffffffp+1023);
  EXPECT_BITS(N::f64_min(O(3.0), O(2.0)), 2.0);
  // NaN wins over everything, in either position; canonical stays canonical,
  // signalling is quietened.
  EXPECT_CANON(N::f32_min(f32b(kF32Canon), O(-INFINITY)));
  EXPECT_CANON(N::f32_min(O(-0.0f), f32b(kF32NegCanon)));
  EXPECT_CANON(N::f32_max(f32b(kF32Canon), O(INFINITY)));
  EXPECT_CANON(N::f32_max(O(0.0f), f32b(kF32Canon)));
  EXPECT_ARITH(N::f32_min(O(-0x1p-149f), f32b(kF32SNaN)));
  EXPECT_ARITH(N::f32_min(f32b(kF32NegSNaN), O(1.0f)));
  EXPECT_ARITH(N::f32_max(O(1.0f), f32b(kF32SNaN)));
  EXPECT_ARITH(N::f32_max(f32b(kF32QNaNPayload), f32b(kF32SNaN)));
  EXPECT_CANON(N::f64_min(f64b(kF64Canon), f64b(kF64NegCanon)));
  EXPECT_ARITH(N::f64_min(O(1.0), f64b(kF64SNaN)));
  EXPECT_ARITH(N::f64_max(f64b(kF64NegSNaN), O(-INFINITY)));
}

// The public rounding functions (SSE4.1 instruction when the build enables
// it) and the portable software versions must agree on every input.
template <class F> struct Rounder {
  const char* name;
  F (*pub)(F);
  F (*soft)(F);
};
template <class F> std::vector<Rounder<F>> rounders() {
  return {{"ceil", N::ceil<F>, N::detail::soft_ceil<F>},
          {"floor", N::floor<F>, N::detail::soft_floor<F>},
          {"trunc", N::trunc<F>, N::detail::soft_trunc<F>},
          {"nearest", N::nearest<F>, N::detail::soft_nearest<F>}};
}
template <class F> void expect_round(int which, F in, F want) {
  auto r = rounders<F>()[which];
  EXPECT_EQ(bits(r.pub(O(in))), bits(want)) << r.name << "(" << in << ")";
  EXPECT_EQ(bits(r.soft(O(in))), bits(want)) << "soft_" << r.name << "(" << in << ")";
}
enum { kCeil, kFloor, kTrunc, kNearest };

TEST(NumericFloat, NearestRoundsHalfToEven) {
  // f32.wast / f64.wast / float_misc.wast
  for (auto [in, want] : std::initializer_list<std::pair<double, double>>{
           {0.5, 0.0}, {-0.5, -0.0}, {1.5, 2.0}, {-1.5, -2.0}, {2.5, 2.0}, {-2.5, -2.0},
           {3.5, 4.0}, {4.5, 4.0}, {-4.5, -4.0}, {0.49999999999999994, 0.0}, {-0.4, -0.0},
           {0x1p-1074, 0.0}, {-0x1p-1074, -0.0}, {-0x1p-1022, -0.0}, {0.0, 0.0}, {-0.0, -0.0},
           {0x1.fffffffffffffp+51, 0x1p+52}, {0x1.ffffffffffffep+51, 0x1.ffffffffffffep+51} /*already int*/,
           {4503599627370495.5, 4503599627370496.0}, {-4503599627370495.5, -4503599627370496.0},
           {4503599627370497.0, 4503599627370497.0}, {9007199254740993.0, 9007199254740992.0},
           {0x1.fffffffffffffp+1023, 0x1.fffffffffffffp+1023}, {-6.28318530717958623, -6.0},
           {INFINITY, INFINITY}, {-INFINITY, -INFINITY}}) {
    expect_round<double>(kNearest, in, want);
  }
  for (auto [in, want] : std::initializer_list<std::pair<float, float>>{
           {0.5f, 0.0f}, {-0.5f, -0.0f}, {1.5f, 2.0f}, {-1.5f, -2.0f}, {2.5f, 2.0f}, {-3.5f, -4.0f},
           {4.5f, 4.0f}, {-4.5f, -4.0f}, {0x1p-149f, 0.0f}, {-0x1p-149f, -0.0f}, {-0.0f, -0.0f},
           {8388609.0f, 8388609.0f}, {8388610.0f, 8388610.0f}, {0.49999997f, 0.0f},
           {281474976710655.0f, 281474976710655.0f}, {-8388607.5f, -8388608.0f},
           {8388606.5f, 8388606.0f}, {0x1.fffffep+127f, 0x1.fffffep+127f},
           {INFINITY, INFINITY}, {-INFINITY, -INFINITY}}) {
    expect_round<float>(kNearest, in, want);
  }
}

TEST(NumericFloat, CeilFloorTruncKeepSignOfZero) {
  for (auto [in, c, f, t] : std::initializer_list<std::tuple<double, double, double, double>>{
           {0.5, 1.0, 0.0, 0.0},
           {-0.5, -0.0, -1.0, -0.0},
           {-0.7, -0.0, -1.0, -0.0},
           {0.3, 1.0, 0.0, 0.0},
           {-0.0, -0.0, -0.0, -0.0},
           {0.0, 0.0, 0.0, 0.0},
           {1.5, 2.0, 1.0, 1.0},
           {-1.5, -1.0, -2.0, -1.0},
           {2.5, 3.0, 2.0, 2.0},
           {0x1p-1074, 1.0, 0.0, 0.0},
           {-0x1p-1074, -0.0, -1.0, -0.0},
           {-6.28318530717958623, -6.0, -7.0, -6.0},
           {4503599627370495.5, 4503599627370496.0, 4503599627370495.0, 4503599627370495.0},
           {-4503599627370495.5, -4503599627370495.0, -4503599627370496.0, -4503599627370495.0},
           {4503599627370497.0, 4503599627370497.0, 4503599627370497.0, 4503599627370497.0},
           {-0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023, -0x1.fffffffffffffp+1023,
            -0x1.fffffffffffffp+1023},
           {-INFINITY, -INFINITY, -INFINITY, -INFINITY}}) {
    expect_round<double>(kCeil, in, c);
    expect_round<double>(kFloor, in, f);
    expect_round<double>(kTrunc, in, t);
  }
  for (auto [in, c, f, t] : std::initializer_list<std::tuple<float, float, float, float>>{
           {0.5f, 1.0f, 0.0f, 0.0f},
           {-0.5f, -0.0f, -1.0f, -0.0f},
           {-0.99999994f, -0.0f, -1.0f, -0.0f},
           {-0.0f, -0.0f, -0.0f, -0.0f},
           {0x1p-149f, 1.0f, 0.0f, 0.0f},
           {-0x1p-149f, -0.0f, -1.0f, -0.0f},
           {-1.5f, -1.0f, -2.0f, -1.0f},
           {8388607.5f, 8388608.0f, 8388607.0f, 8388607.0f},   // float_misc.wast
           {-8388607.5f, -8388607.0f, -8388608.0f, -8388607.0f},
           {16777215.0f, 16777215.0f, 16777215.0f, 16777215.0f},
           {0x1.fffffep+127f, 0x1.fffffep+127f, 0x1.fffffep+127f, 0x1.fffffep+127f},
           {INFINITY, INFINITY, INFINITY, INFINITY}}) {
    expect_round<float>(kCeil, in, c);
    expect_round<float>(kFloor, in, f);
    expect_round<float>(kTrunc, in, t);
  }
}

TEST(NumericFloat, RoundingQuietensNaN) {
  for (int w = kCeil; w <= kNearest; ++w) {
    auto r32 = rounders<float>()[w];
    auto r64 = rounders<double>()[w];
    for (auto fn32 : {r32.pub, r32.soft}) {
      EXPECT_CANON(fn32(f32b(kF32Canon))) << r32.name;
      EXPECT_CANON(fn32(f32b(kF32NegCanon))) << r32.name;
      EXPECT_ARITH(fn32(f32b(kF32SNaN))) << r32.name;
      EXPECT_ARITH(fn32(f32b(kF32NegSNaN))) << r32.name;
      EXPECT_EQ(bits(fn32(f32b(kF32QNaNPayload))), kF32QNaNPayload) << r32.name;
    }
    for (auto fn64 : {r64.pub, r64.soft}) {
      EXPECT_CANON(fn64(f64b(kF64Canon))) << r64.name;
      EXPECT_ARITH(fn64(f64b(kF64SNaN))) << r64.name;
      EXPECT_ARITH(fn64(f64b(kF64NegSNaN))) << r64.name;
    }
  }
}

// Random non-NaN bit patterns against the C library (exact for non-NaN input;
// std::nearbyint uses the default round-to-nearest-even mode).
template <class F, class B> void random_rounding_check(uint64_t seed) {
  std::mt19937_64 rng(seed);
  int mismatches = 0;
  for (int i = 0; i < 200000 && mismatches < 10; ++i) {
    B b = B(rng());
    if (i % 2) {  // bias half the samples towards magnitudes near 2^mantissa
      int exp = int(rng() % 40) - 10 + std::numeric_limits<F>::digits;
      F v = std::ldexp(F(1) + F(rng() % 1024) / F(1024), exp - 1);
      if (rng() % 2) v = -v;
      b = std::bit_cast<B>(v);
    }
    F x = std::bit_cast<F>(b);
    if (x != x) continue;
    const F want[4] = {std::ceil(x), std::floor(x), std::trunc(x), std::nearbyint(x)};
    for (int w = 0; w < 4; ++w) {
      auto r = rounders<F>()[w];
      if (bits(r.pub(O(x))) != bits(want[w]) || bits(r.soft(O(x))) != bits(want[w])) {
        ADD_FAILURE() << r.name << " of " << std::hexfloat << x;
        ++mismatches;
      }
    }
  }
}
TEST(NumericFloat, RoundingMatchesLibmOnRandomInputs) {
  random_rounding_check<float, uint32_t>(1);
  random_rounding_check<double, uint64_t>(2);
}

TEST(NumericFloat, Comparisons) {
  float nan = f32b(kF32Canon);
  EXPECT_EQ(N::f32_eq(O(0.0f), O(-0.0f)), 1u);
  EXPECT_EQ(N::f32_eq(nan, nan), 0u);
  EXPECT_EQ(N::f32_ne(nan, nan), 1u);
  EXPECT_EQ(N::f32_lt(nan, O(1.0f)), 0u);
  EXPECT_EQ(N::f32_gt(nan, O(1.0f)), 0u);
  EXPECT_EQ(N::f32_le(O(-0.0f), O(0.0f)), 1u);
  EXPECT_EQ(N::f32_ge(O(1.0f), f32b(kF32SNaN)), 0u);
  EXPECT_EQ(N::f32_lt(O(-INFINITY), O(-0x1.fffffep+127f)), 1u);
  double dnan = f64b(kF64SNaN);
  EXPECT_EQ(N::f64_eq(dnan, dnan), 0u);
  EXPECT_EQ(N::f64_ne(O(1.0), dnan), 1u);
  EXPECT_EQ(N::f64_lt(O(0x1p-1074), O(0x1p-1073)), 1u);
  EXPECT_EQ(N::f64_ge(O(-0.0), O(0.0)), 1u);
  EXPECT_EQ(N::f64_gt(O(0.0), O(-0.0)), 0u);
  EXPECT_EQ(N::f64_le(dnan, O(INFINITY)), 0u);
}

// ---------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------

template <class T> struct TruncResult {
  TrapCode code;
  T value;
};
template <class T, class F> TruncResult<T> run(TrapCode (*fn)(F, T&), std::type_identity_t<F> x) {
  T out = T(0x5a5a5a5a);
  TrapCode c = fn(O(x), out);
  return {c, out};
}
#define EXPECT_TRUNC_OK(fn, x, want)                  \
  do {                                                \
    auto r_ = run(fn, x);                             \
    EXPECT_EQ(r_.code, TrapCode::None) << #fn << " " << std::hexfloat << (x); \
    EXPECT_EQ(r_.value, decltype(r_.value)(want)) << #fn << " " << std::hexfloat << (x); \
  } while (0)
#define EXPECT_TRUNC_TRAP(fn, x, code_) EXPECT_EQ(run(fn, x).code, TrapCode::code_) << #fn << " " << std::hexfloat << (x)

TEST(NumericConvert, TruncToI32Boundaries) {
  // conversions.wast
  EXPECT_TRUNC_OK(N::i32_trunc_f32_s, -2147483648.0f, 0x80000000u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_s, 2147483520.0f, 2147483520u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_s, -0x1.ccccccp-1f, 0u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_s, -1.9f, uint32_t(-1));
  EXPECT_TRUNC_OK(N::i32_trunc_f32_s, -0x1p-149f, 0u);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, 2147483648.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, -2147483904.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, INFINITY, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, -INFINITY, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, f32b(kF32Canon), InvalidConversionToInteger);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_s, f32b(kF32NegSNaN), InvalidConversionToInteger);

  EXPECT_TRUNC_OK(N::i32_trunc_f32_u, 4294967040.0f, 4294967040u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_u, -0x1.ccccccp-1f, 0u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_u, -0x1.fffffep-1f, 0u);
  EXPECT_TRUNC_OK(N::i32_trunc_f32_u, 2147483648.0f, 0x80000000u);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_u, 4294967296.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_u, -1.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f32_u, f32b(kF32SNaN), InvalidConversionToInteger);

  EXPECT_TRUNC_OK(N::i32_trunc_f64_s, -2147483648.9, 0x80000000u);
  EXPECT_TRUNC_OK(N::i32_trunc_f64_s, 2147483647.9, 2147483647u);
  EXPECT_TRUNC_OK(N::i32_trunc_f64_s, -0x1p-1074, 0u);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_s, -2147483649.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_s, 2147483648.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_s, 9223372036854775808.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_s, f64b(kF64SNaN), InvalidConversionToInteger);

  EXPECT_TRUNC_OK(N::i32_trunc_f64_u, 4294967295.9, 4294967295u);
  EXPECT_TRUNC_OK(N::i32_trunc_f64_u, -0.9, 0u);
  EXPECT_TRUNC_OK(N::i32_trunc_f64_u, 1e8, 100000000u);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_u, 4294967296.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_u, -1.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_u, 1e16, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i32_trunc_f64_u, f64b(kF64NegCanon), InvalidConversionToInteger);
}

TEST(NumericConvert, TruncToI64Boundaries) {
  EXPECT_TRUNC_OK(N::i64_trunc_f32_s, -9223372036854775808.0f, 0x8000000000000000ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f32_s, 9223371487098961920.0f, 9223371487098961920ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f32_s, 4294967296.0f, 4294967296ull);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f32_s, 9223372036854775808.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f32_s, -9223373136366403584.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f32_s, f32b(kF32SNaN), InvalidConversionToInteger);

  EXPECT_TRUNC_OK(N::i64_trunc_f32_u, 18446742974197923840.0f, 18446742974197923840ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f32_u, -0x1.ccccccp-1f, 0ull);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f32_u, 18446744073709551616.0f, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f32_u, -1.0f, IntegerOverflow);

  EXPECT_TRUNC_OK(N::i64_trunc_f64_s, -9223372036854775808.0, 0x8000000000000000ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f64_s, 9223372036854774784.0, 9223372036854774784ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f64_s, -0x1.fffffffffffffp+62, uint64_t(-9223372036854774784ll));
  // 9223372036854775807 as a double is 2^63, which does not fit.
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_s, 9223372036854775808.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_s, -9223372036854777856.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_s, -INFINITY, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_s, f64b(kF64Canon), InvalidConversionToInteger);

  EXPECT_TRUNC_OK(N::i64_trunc_f64_u, 18446744073709549568.0, 18446744073709549568ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f64_u, 9223372036854775808.0, 0x8000000000000000ull);
  EXPECT_TRUNC_OK(N::i64_trunc_f64_u, -0.9999999999999999, 0ull);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_u, 18446744073709551616.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_u, -1.0, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_u, INFINITY, IntegerOverflow);
  EXPECT_TRUNC_TRAP(N::i64_trunc_f64_u, f64b(kF64NegSNaN), InvalidConversionToInteger);

  // Generic form with signed storage.
  int32_t s = 0;
  EXPECT_EQ((N::trunc_s<int32_t, float>(O(-2147483648.0f), s)), TrapCode::None);
  EXPECT_EQ(s, INT32_MIN);
  int64_t l = 0;
  EXPECT_EQ((N::trunc_u<int64_t, double>(O(18446744073709549568.0), l)), TrapCode::None);
  EXPECT_EQ(uint64_t(l), 18446744073709549568ull);
}

TEST(NumericConvert, TruncSat) {
  float fnan = f32b(kF32SNaN);
  double dnan = f64b(kF64NegCanon);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(2147483648.0f)), 0x7fffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(-2147483904.0f)), 0x80000000u);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(-2147483648.0f)), 0x80000000u);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(INFINITY)), 0x7fffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(-INFINITY)), 0x80000000u);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(fnan), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f32_s(O(-1.5f)), uint32_t(-1));
  EXPECT_EQ(N::i32_trunc_sat_f32_u(O(-1.0f)), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f32_u(O(-0x1.fffffep-1f)), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f32_u(O(4294967296.0f)), 0xffffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f32_u(O(-INFINITY)), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f32_u(fnan), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f64_s(O(-2147483649.0)), 0x80000000u);
  EXPECT_EQ(N::i32_trunc_sat_f64_s(O(-2147483648.9)), 0x80000000u);
  EXPECT_EQ(N::i32_trunc_sat_f64_s(O(2147483647.9)), 0x7fffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f64_s(O(1e300)), 0x7fffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f64_s(dnan), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f64_u(O(4294967295.9)), 0xffffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f64_u(O(4294967296.0)), 0xffffffffu);
  EXPECT_EQ(N::i32_trunc_sat_f64_u(O(-1e16)), 0u);
  EXPECT_EQ(N::i32_trunc_sat_f64_u(dnan), 0u);
  EXPECT_EQ(N::i64_trunc_sat_f32_s(O(9223372036854775808.0f)), 0x7fffffffffffffffull);
  EXPECT_EQ(N::i64_trunc_sat_f32_s(O(-9223373136366403584.0f)), 0x8000000000000000ull);
  EXPECT_EQ(N::i64_trunc_sat_f32_s(fnan), 0ull);
  EXPECT_EQ(N::i64_trunc_sat_f32_u(O(18446744073709551616.0f)), ~0ull);
  EXPECT_EQ(N::i64_trunc_sat_f32_u(O(-0.5f)), 0ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_s(O(9223372036854775808.0)), 0x7fffffffffffffffull);
  EXPECT_EQ(N::i64_trunc_sat_f64_s(O(-9223372036854775808.0)), 0x8000000000000000ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_s(O(-INFINITY)), 0x8000000000000000ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_s(dnan), 0ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_u(O(18446744073709549568.0)), 18446744073709549568ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_u(O(18446744073709551616.0)), ~0ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_u(O(INFINITY)), ~0ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_u(O(-1.0)), 0ull);
  EXPECT_EQ(N::i64_trunc_sat_f64_u(dnan), 0ull);
}

// Reference for trapping truncation: round with std::trunc (exact), then test
// the integral result against the integer range — a formulation independent of
// the implementation's pre-truncation bounds.
template <class I, class F> void random_trunc_check(uint64_t seed) {
  std::mt19937_64 rng(seed);
  using B = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  constexpr int kWidth = int(sizeof(I) * 8);
  const F lo = std::is_signed_v<I> ? -std::ldexp(F(1), kWidth - 1) : F(0);
  const F hi = std::ldexp(F(1), std::is_signed_v<I> ? kWidth - 1 : kWidth);  // exclusive
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 10; ++i) {
    F x;
    if (i % 2) {  // values near the boundaries
      int e = kWidth - 3 + int(rng() % 5);
      x = std::ldexp(F(1) + F(int(rng() % 4096) - 2048) / F(1 << 24), e);
      if (rng() % 2) x = -x;
      if (rng() % 8 == 0) x = (rng() % 2 ? F(-1) : F(1)) * F(rng() % 3) * F(0.5);
    } else {
      x = std::bit_cast<F>(B(rng()));
    }
    I out{};
    TrapCode got = std::is_signed_v<I> ? N::trunc_s<I, F>(O(x), out) : N::trunc_u<I, F>(O(x), out);
    I sat = std::is_signed_v<I> ? N::trunc_sat_s<I, F>(O(x)) : N::trunc_sat_u<I, F>(O(x));
    TrapCode want = TrapCode::None;
    I want_sat{};
    if (x != x) {
      want = TrapCode::InvalidConversionToInteger;
      want_sat = 0;
    } else {
      F t = std::trunc(x);
      if (t < lo) {
        want = TrapCode::IntegerOverflow;
        want_sat = std::numeric_limits<I>::min();
      } else if (t >= hi) {
        want = TrapCode::IntegerOverflow;
        want_sat = std::numeric_limits<I>::max();
      } else {
        want_sat = I(t);
      }
    }
    bool bad = got != want || sat != want_sat || (want == TrapCode::None && out != want_sat);
    if (bad) {
      ++failures;
      ADD_FAILURE() << "trunc of " << std::hexfloat << x << " to " << (std::is_signed_v<I> ? "s" : "u") << kWidth;
    }
  }
}
TEST(NumericConvert, TruncMatchesReferenceOnRandomInputs) {
  random_trunc_check<int32_t, float>(11);
  random_trunc_check<uint32_t, float>(12);
  random_trunc_check<int32_t, double>(13);
  random_trunc_check<uint32_t, double>(14);
  random_trunc_check<int64_t, float>(15);
  random_trunc_check<uint64_t, float>(16);
  random_trunc_check<int64_t, double>(17);
  random_trunc_check<uint64_t, double>(18);
}

TEST(NumericConvert, IntToFloatRounding) {
  // conversions.wast
  EXPECT_BITS(N::f32_convert_i32_s(O(16777217u)), 16777216.0f);
  EXPECT_BITS(N::f32_convert_i32_s(O(uint32_t(-16777219))), -16777220.0f);
  EXPECT_BITS(N::f32_convert_i32_s(O(2147483647u)), 2147483648.0f);
  EXPECT_BITS(N::f32_convert_i32_s(O(1234567890u)), 0x1.26580cp+30f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0xffffffffu)), 4294967296.0f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0x80000080u)), 0x1.000000p+31f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0x80000081u)), 0x1.000002p+31f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0xfffffe80u)), 0x1.fffffcp+31f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0xfffffe81u)), 0x1.fffffep+31f);
  EXPECT_BITS(N::f32_convert_i32_u(O(0x12345678u)), 0x1.234568p+28f);
  EXPECT_BITS(N::f64_convert_i32_s(O(0x80000000u)), -2147483648.0);
  EXPECT_BITS(N::f64_convert_i32_u(O(0xffffffffu)), 4294967295.0);
  EXPECT_BITS(N::f32_convert_i64_s(O(0x7fffff4000000001ull)), 0x1.fffffep+62f);
  EXPECT_BITS(N::f32_convert_i64_s(O(0x8000004000000001ull)), -0x1.fffffep+62f);
  EXPECT_BITS(N::f32_convert_i64_s(O(0x0020000020000001ull)), 0x1.000002p+53f);
  EXPECT_BITS(N::f32_convert_i64_s(O(0xffdfffffdfffffffull)), -0x1.000002p+53f);
  EXPECT_BITS(N::f32_convert_i64_s(O(0x8000000000000000ull)), -0x1p+63f);
  EXPECT_BITS(N::f32_convert_i64_s(O(314159265358979ull)), 0x1.1db9e8p+48f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x0020000020000001ull)), 0x1.000002p+53f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x7fffffbfffffffffull)), 0x1.fffffep+62f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x8000008000000001ull)), 0x1.000002p+63f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0xfffffe8000000001ull)), 0x1.fffffep+63f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0xffffffffffffffffull)), 0x1p+64f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x1000008000000001ull)), 0x1.000008p+60f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x1000001000000001ull)), 0x1.000002p+60f);
  EXPECT_BITS(N::f32_convert_i64_u(O(0x1000001000000000ull)), 0x1p+60f);  // exact tie -> even
  EXPECT_BITS(N::f64_convert_i64_s(O(9007199254740993ull)), 9007199254740992.0);
  EXPECT_BITS(N::f64_convert_i64_s(O(uint64_t(-9007199254740995ll))), -9007199254740996.0);
  EXPECT_BITS(N::f64_convert_i64_u(O(0x8000000000000400ull)), 0x1.0000000000000p+63);
  EXPECT_BITS(N::f64_convert_i64_u(O(0x8000000000000401ull)), 0x1.0000000000001p+63);
  EXPECT_BITS(N::f64_convert_i64_u(O(0xfffffffffffff400ull)), 0x1.ffffffffffffep+63);
  EXPECT_BITS(N::f64_convert_i64_u(O(0xfffffffffffff401ull)), 0x1.fffffffffffffp+63);
  EXPECT_BITS(N::f64_convert_i64_u(O(0xffffffffffffffffull)), 0x1p+64);

  // The pitfall the direct conversion avoids: rounding through double first
  // gives a different (wrong) answer on these inputs.
  EXPECT_NE(bits(float(double(O(0x1000001000000001ull)))), bits(N::f32_convert_i64_u(O(0x1000001000000001ull))));
  EXPECT_NE(bits(float(double(O(0x0020000020000001ull)))), bits(N::f32_convert_i64_u(O(0x0020000020000001ull))));
}

// Bit-exact software reference: round |x| to F's significand width with ties
// to even, using only integer arithmetic, then scale exactly with ldexp.
template <class F> F ref_int_to_float(uint64_t mag, bool negative) {
  constexpr int digits = std::numeric_limits<F>::digits;
  F r;
  int width = std::bit_width(mag);
  if (width <= digits) {
    r = F(mag);  // exactly representable
  } else {
    int shift = width - digits;
    uint64_t q = mag >> shift;
    uint64_t rem = mag & ((uint64_t(1) << shift) - 1);
    uint64_t half = uint64_t(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;  // q <= 2^digits: still exact in F
    r = std::ldexp(F(q), shift);
  }
  return negative ? -r : r;
}
TEST(NumericConvert, IntToFloatMatchesReferenceOnRandomInputs) {
  std::mt19937_64 rng(99);
  int failures = 0;
  for (int i = 0; i < 400000 && failures < 10; ++i) {
    uint64_t v = rng();
    // Vary the width and sprinkle low bits so that ties and sticky bits occur.
    v >>= rng() % 64;
    if (i % 3 == 0) v = (v & ~uint64_t(0xffffffffff)) | (uint64_t(1) << (rng() % 40)) | (rng() % 2);
    int64_t sv = int64_t(v);
    uint64_t smag = sv < 0 ? uint64_t(0) - v : v;
    uint32_t w = uint32_t(v);
    int32_t sw = int32_t(w);
    uint32_t swmag = sw < 0 ? 0u - w : w;
    bool ok = bits(N::f32_convert_i64_u(O(v))) == bits(ref_int_to_float<float>(v, false)) &&
              bits(N::f64_convert_i64_u(O(v))) == bits(ref_int_to_float<double>(v, false)) &&
              bits(N::f32_convert_i64_s(O(v))) == bits(ref_int_to_float<float>(smag, sv < 0)) &&
              bits(N::f64_convert_i64_s(O(v))) == bits(ref_int_to_float<double>(smag, sv < 0)) &&
              bits(N::f32_convert_i32_u(O(w))) == bits(ref_int_to_float<float>(w, false)) &&
              bits(N::f32_convert_i32_s(O(w))) == bits(ref_int_to_float<float>(swmag, sw < 0)) &&
              bits(N::f64_convert_i32_u(O(w))) == bits(ref_int_to_float<double>(w, false)) &&
              bits(N::f64_convert_i32_s(O(w))) == bits(ref_int_to_float<double>(swmag, sw < 0));
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "convert of 0x" << std::hex << v;
    }
  }
}

TEST(NumericConvert, DemotePromote) {
  // conversions.wast
  EXPECT_BITS(N::f32_demote_f64(O(0x0.0000000000001p-1022)), 0.0f);
  EXPECT_BITS(N::f32_demote_f64(O(-0x0.0000000000001p-1022)), -0.0f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.fffffe0000000p-127)), 0x1p-126f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.fffffdfffffffp-127)), 0x1.fffffcp-127f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.fffffd0000000p+127)), 0x1.fffffcp+127f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.fffffd0000001p+127)), 0x1.fffffep+127f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.fffffefffffffp+127)), 0x1.fffffep+127f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.ffffffp+127)), INFINITY);
  EXPECT_BITS(N::f32_demote_f64(O(-0x1.ffffffp+127)), -INFINITY);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.0000010000000p+0)), 0x1.000000p+0f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.0000010000001p+0)), 0x1.000002p+0f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.0000030000000p+0)), 0x1.000004p+0f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.0p-150)), 0.0f);
  EXPECT_BITS(N::f32_demote_f64(O(0x1.0000000000001p-150)), 0x1p-149f);
  EXPECT_BITS(N::f32_demote_f64(O(-0x1.6972b30cfb562p+1)), -0x1.6972b4p+1f);
  EXPECT_CANON(N::f32_demote_f64(f64b(kF64Canon)));
  EXPECT_CANON(N::f32_demote_f64(f64b(kF64NegCanon)));
  EXPECT_ARITH(N::f32_demote_f64(f64b(kF64SNaN)));
  EXPECT_ARITH(N::f32_demote_f64(f64b(0x7ff0000000000001)));  // payload only in the low bits
  EXPECT_BITS(N::f64_promote_f32(O(0x1p-149f)), 0x1p-149);
  EXPECT_BITS(N::f64_promote_f32(O(-0.0f)), -0.0);
  EXPECT_BITS(N::f64_promote_f32(O(0x1.8f867ep+125f)), 6.6382536710104395e+37);
  EXPECT_BITS(N::f64_promote_f32(O(-INFINITY)), double(-INFINITY));
  EXPECT_CANON(N::f64_promote_f32(f32b(kF32Canon)));
  EXPECT_CANON(N::f64_promote_f32(f32b(kF32NegCanon)));
  EXPECT_ARITH(N::f64_promote_f32(f32b(kF32SNaN)));
  EXPECT_ARITH(N::f64_promote_f32(f32b(kF32NegSNaN)));
}

TEST(NumericConvert, ReinterpretIsExact) {
  EXPECT_EQ(N::i32_reinterpret_f32(f32b(kF32SNaN)), kF32SNaN);
  EXPECT_EQ(N::i32_reinterpret_f32(f32b(0xffa00001)), 0xffa00001u);
  EXPECT_EQ(N::i32_reinterpret_f32(O(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(N::f32_reinterpret_i32(O(kF32NegSNaN))), kF32NegSNaN);
  EXPECT_EQ(bits(N::f32_reinterpret_i32(O(0x7f800001u))), 0x7f800001u);
  EXPECT_EQ(N::i64_reinterpret_f64(f64b(kF64SNaN)), kF64SNaN);
  EXPECT_EQ(N::i64_reinterpret_f64(O(0x1p-1074)), 1ull);
  EXPECT_EQ(bits(N::f64_reinterpret_i64(O(0xfff0000000000001ull))), 0xfff0000000000001ull);
  EXPECT_EQ(bits(N::f64_reinterpret_i64(O(0x8000000000000000ull))), bits(-0.0));
}

// ---------------------------------------------------------------------------
// Constant evaluation (the JIT may fold constants with these functions).
// ---------------------------------------------------------------------------

constexpr uint32_t div_or_trap(uint32_t a, uint32_t b) {
  uint32_t o = 0;
  return N::i32_div_s(a, b, o) == TrapCode::None ? o : 0xdead;
}
static_assert(N::i32_rotl(0x80000001u, 33u) == 0x00000003u);
static_assert(N::i64_shr_s(0x8000000000000000ull, 127ull) == ~0ull);
static_assert(N::i32_clz(0u) == 32u && N::i64_ctz(0ull) == 64ull);
static_assert(N::i64_extend16_s(0x8000ull) == 0xffffffffffff8000ull);
static_assert(div_or_trap(0x80000000u, 0xffffffffu) == 0xdead);
static_assert(div_or_trap(uint32_t(-9), 2u) == uint32_t(-4));
constexpr uint64_t rem_or_trap(uint64_t a, uint64_t b) {
  uint64_t o = 0;
  return N::i64_rem_s(a, b, o) == TrapCode::None ? o : 0xdead;
}
static_assert(rem_or_trap(0x8000000000000000ull, ~0ull) == 0 && rem_or_trap(1, 0) == 0xdead);
static_assert(N::f64_nearest(2.5) == 2.0 && N::f64_nearest(-3.5) == -4.0);
static_assert(N::f32_ceil(-0.5f) == 0.0f && std::bit_cast<uint32_t>(N::f32_ceil(-0.5f)) == 0x80000000u);
static_assert(N::f64_floor(-0.5) == -1.0 && N::f64_trunc(-1.7) == -1.0);
static_assert(std::bit_cast<uint64_t>(N::f64_min(0.0, -0.0)) == 0x8000000000000000ull);
static_assert(N::f32_convert_i64_u(0x0020000020000001ull) == 0x1.000002p+53f);
static_assert(N::i32_trunc_sat_f64_s(-1e10) == 0x80000000u && N::i64_trunc_sat_f32_u(-5.0f) == 0u);
static_assert(N::f32_abs(-2.0f) == 2.0f && N::f64_copysign(1.0, -0.0) == -1.0);

}  // namespace
