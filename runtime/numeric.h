// Exact Wasm 2.0 semantics of every scalar numeric instruction (i32, i64, f32,
// f64): arithmetic, comparisons, bit operations, shifts and rotates, clz / ctz
// / popcnt, trapping division, float rounding, min / max, sqrt and every
// conversion. Header-only; shared by the interpreter's handlers and the JIT's
// helper calls.
//
// Conventions
//  * Value representation: i32 = uint32_t, i64 = uint64_t (Wasm integers have
//    no sign; the instruction says how to read them), f32 = float, f64 = double.
//    The generic templates accept either signedness of a 32/64-bit integer and
//    return the same type, so `div_s<int32_t>` and `div_s<uint32_t>` both
//    compute i32.div_s; only the storage type differs.
//  * Names map 1:1 to instructions: `i32_rotl`, `f64_nearest`,
//    `i64_trunc_f32_u`, ... are plain functions (usable as function pointers or
//    template arguments: `DoBinop<numeric::i32_rotl>`). Comparisons and eqz
//    return an i32 (0 or 1).
//  * Trapping instructions return a TrapCode and write the result through an
//    out parameter only when they do not trap; trap_message() gives the spec's
//    text. No exceptions, no allocation, no global state.
//  * No undefined behaviour: arithmetic that may wrap is done in unsigned
//    types, shift and rotate counts are masked, INT_MIN / -1 and INT_MIN % -1
//    are handled before dividing, and float -> int casts only happen on values
//    proven to be in range.
//
// NaNs. Wasm (spec 4.3.3 "NaN propagation") requires that an operation whose
// result is a NaN returns the canonical NaN (only the quiet bit set in the
// payload, either sign) when every NaN input is canonical, and otherwise some
// arithmetic NaN (quiet bit set). The spec tests check exactly this
// (`nan:canonical` / `nan:arithmetic`). IEEE 754 hardware arithmetic on every
// target we support (x86-64 SSE, AArch64, RISC-V) satisfies it: an operation
// with a NaN operand returns one of the operands' NaNs quietened (x86, ARM) or
// the default NaN (RISC-V, ARM "default NaN" mode, x86 for invalid operations
// such as 0/0), which is canonical. So add/sub/mul/div/sqrt/demote/promote use
// the hardware directly. abs/neg/copysign must NOT touch a NaN's payload, so
// they are pure bit operations. Functions that would otherwise return an input
// NaN unchanged (rounding, min/max) quieten it explicitly, because returning a
// signalling NaN unchanged is not an arithmetic NaN.
//
// Build requirements (checked below): IEEE 754 binary32/binary64, SSE (not
// x87) float evaluation on x86, no -ffast-math / -ffinite-math-only, and no
// FP contraction (GCC and clang do not contract across statements in ISO
// mode, -std=c++20, which the project uses; nothing here writes a*b+c anyway).
// The code assumes the default rounding mode (round to nearest, ties to even)
// is never changed, which weft never does. Every translation unit must be
// built with the same target flags: with -msse4.1 the rounding functions use
// roundss/roundsd instead of the software versions (same results, but mixing
// would be an ODR violation).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE2__)
#include <emmintrin.h>  // _mm_sqrt_sd / _mm_sqrt_ss
#define WEFT_NUMERIC_X86_SSE2 1
#else
#include <cmath>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>  // _mm_round_ss / _mm_round_sd
#define WEFT_NUMERIC_X86_SSE41 1
#endif

#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "runtime/numeric.h implements IEEE 754 semantics; do not build with -ffast-math / -ffinite-math-only"
#endif
#if defined(__i386__) && !defined(__SSE2_MATH__)
#error "runtime/numeric.h needs SSE float arithmetic (x87 excess precision and NaN quietening break Wasm semantics)"
#endif

namespace weft::numeric {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "Wasm floats are IEEE 754 binary32/binary64");

// ---------------------------------------------------------------------------
// Traps
// ---------------------------------------------------------------------------

enum class TrapCode : uint8_t {
  None,
  IntegerDivideByZero,         // div_s/div_u/rem_s/rem_u with a zero divisor
  IntegerOverflow,             // div_s(INT_MIN, -1); trunc_* of an out-of-range value
  InvalidConversionToInteger,  // trunc_* of a NaN
};

// The spec test suite's exact assert_trap texts.
constexpr const char* trap_message(TrapCode code) {
  switch (code) {
    case TrapCode::None: return "";
    case TrapCode::IntegerDivideByZero: return "integer divide by zero";
    case TrapCode::IntegerOverflow: return "integer overflow";
    case TrapCode::InvalidConversionToInteger: return "invalid conversion to integer";
  }
  return "";
}

// Storage types of the four number types.
using I32 = uint32_t;
using I64 = uint64_t;
using F32 = float;
using F64 = double;

namespace detail {

template <class T>
concept WasmInt = std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t>;
template <class F>
concept WasmFloat = std::is_same_v<F, float> || std::is_same_v<F, double>;

template <class T> using U = std::make_unsigned_t<T>;
template <class T> using S = std::make_signed_t<T>;
template <class T> inline constexpr int kBits = int(sizeof(T) * 8);

// Bit layout of a float type.
template <class F> struct FloatTraits;
template <> struct FloatTraits<float> {
  using Bits = uint32_t;
  static constexpr int kMantissaBits = 23;
};
template <> struct FloatTraits<double> {
  using Bits = uint64_t;
  static constexpr int kMantissaBits = 52;
};
template <class F> using FBits = typename FloatTraits<F>::Bits;
template <class F> inline constexpr FBits<F> kSignMask = FBits<F>(1) << (kBits<F> - 1);
template <class F> inline constexpr FBits<F> kQuietBit = FBits<F>(1) << (FloatTraits<F>::kMantissaBits - 1);
template <class F>
inline constexpr FBits<F> kExpMask = (~FBits<F>(0) >> 1) & ~((FBits<F>(1) << FloatTraits<F>::kMantissaBits) - 1);
template <class F>
inline constexpr FBits<F> kMantissaMask = (FBits<F>(1) << FloatTraits<F>::kMantissaBits) - 1;
// 2^mantissa_bits: the smallest magnitude from which every float is an integer.
template <class F>
inline constexpr F kIntegralThreshold = F(FBits<F>(1) << FloatTraits<F>::kMantissaBits);

template <class F> constexpr FBits<F> to_bits(F x) { return std::bit_cast<FBits<F>>(x); }
template <class F> constexpr F from_bits(FBits<F> b) { return std::bit_cast<F>(b); }

// Sets the quiet bit of a NaN (no-op on quiet NaNs, so canonical stays
// canonical). Done on the bits rather than with `x + 0` so that no optimiser
// (which may assume no signalling NaNs) can fold it away.
template <class F> constexpr F quiet(F nan) { return from_bits<F>(to_bits(nan) | kQuietBit<F>); }

// Portable round-half-to-even for |x| < 2^mantissa_bits (x may be negative;
// the sign, including -0, is restored by the caller). Adding 2^m moves the
// value to a binade whose ulp is 1, so the addition itself rounds to an
// integer with the current (default: nearest-even) rounding mode; subtracting
// again is exact. Compilers do not reassociate this without -ffast-math.
template <class F> constexpr F round_small_magnitude(F ax) {
  return (ax + kIntegralThreshold<F>) - kIntegralThreshold<F>;
}

template <class F> constexpr F copysign_bits(F mag, F sign) {
  return from_bits<F>((to_bits(mag) & ~kSignMask<F>) | (to_bits(sign) & kSignMask<F>));
}

// Software ceil/floor/trunc/nearest, exact for every input and usable in
// constant expressions. Each returns NaN inputs quietened, +-inf and values
// that are already integral (|x| >= 2^m) unchanged, and keeps the sign of the
// input on zero results (ceil(-0.5) = -0, nearest(-0.4) = -0, trunc(-0.9) = -0).
template <class F> constexpr F soft_nearest(F x) {
  F ax = from_bits<F>(to_bits(x) & ~kSignMask<F>);
  if (!(ax < kIntegralThreshold<F>)) [[unlikely]] return x != x ? quiet(x) : x;
  return copysign_bits(round_small_magnitude(ax), x);
}
template <class F> constexpr F soft_floor_abs(F ax) {  // floor of a non-negative small value
  F r = round_small_magnitude(ax);
  return r > ax ? r - F(1) : r;
}
template <class F> constexpr F soft_trunc(F x) {
  F ax = from_bits<F>(to_bits(x) & ~kSignMask<F>);
  if (!(ax < kIntegralThreshold<F>)) [[unlikely]] return x != x ? quiet(x) : x;
  return copysign_bits(soft_floor_abs(ax), x);
}
template <class F> constexpr F soft_ceil(F x) {
  F ax = from_bits<F>(to_bits(x) & ~kSignMask<F>);
  if (!(ax < kIntegralThreshold<F>)) [[unlikely]] return x != x ? quiet(x) : x;
  F r = copysign_bits(round_small_magnitude(ax), x);  // nearest(x)
  if (r < x) r += F(1);           // |r| < 2^m so the +1 is exact
  return copysign_bits(r, x);     // ceil(-0.7) = -0, not +0
}
template <class F> constexpr F soft_floor(F x) {
  F ax = from_bits<F>(to_bits(x) & ~kSignMask<F>);
  if (!(ax < kIntegralThreshold<F>)) [[unlikely]] return x != x ? quiet(x) : x;
  F r = copysign_bits(round_small_magnitude(ax), x);
  if (r > x) r -= F(1);
  return copysign_bits(r, x);     // floor(0.3) = +0, floor(-0.0) = -0
}

#if WEFT_NUMERIC_X86_SSE41
// roundss/roundsd: one instruction, exact, quietens signalling NaNs, keeps the
// sign of zero results. _MM_FROUND_NO_EXC suppresses the inexact flag.
template <int Mode, class F> inline F sse41_round(F x) {
  if constexpr (std::is_same_v<F, float>) {
    __m128 v = _mm_set_ss(x);
    return _mm_cvtss_f32(_mm_round_ss(v, v, Mode | _MM_FROUND_NO_EXC));
  } else {
    __m128d v = _mm_set_sd(x);
    return _mm_cvtsd_f64(_mm_round_sd(v, v, Mode | _MM_FROUND_NO_EXC));
  }
}
#endif

// Range check for float -> integer truncation: true iff trunc(x) is
// representable in I (signed or unsigned), false for NaN. All bounds are exact
// in F:
//  * upper: x < 2^(N-1) (signed) or x < 2^N (unsigned), powers of two.
//  * lower, unsigned: x > -1 (so -0.9 truncates to 0 and is valid).
//  * lower, signed: x > -2^(N-1) - 1 when F has at least N significand bits
//    (f64 -> i32: -2147483649.0 is exact and -2147483648.9 is valid); otherwise
//    x >= -2^(N-1), since F then has no value strictly between -2^(N-1) - 1 and
//    -2^(N-1) (its spacing there is >= 2).
template <class I, class F> constexpr bool trunc_in_range(F x) {
  constexpr int N = kBits<I>;
  if constexpr (std::is_signed_v<I>) {
    constexpr F hi = F(uint64_t(1) << (N - 1));
    if constexpr (std::numeric_limits<F>::digits >= N) {
      constexpr F lo = -hi - F(1);
      return x > lo && x < hi;
    } else {
      return x >= -hi && x < hi;
    }
  } else {
    constexpr F hi = F(uint64_t(1) << (N - 1)) * F(2);
    return x > F(-1) && x < hi;
  }
}

}  // namespace detail

// ---------------------------------------------------------------------------
// NaN helpers (used by the spec test harness as well).
// ---------------------------------------------------------------------------

template <detail::WasmFloat F> constexpr bool is_nan(F x) { return x != x; }
// Canonical NaN: exponent all ones, payload exactly the quiet bit, any sign.
template <detail::WasmFloat F> constexpr bool is_canonical_nan(F x) {
  return (detail::to_bits(x) & ~detail::kSignMask<F>) == (detail::kExpMask<F> | detail::kQuietBit<F>);
}
// Arithmetic NaN: exponent all ones and the quiet bit set (canonical included).
template <detail::WasmFloat F> constexpr bool is_arithmetic_nan(F x) {
  constexpr auto m = detail::kExpMask<F> | detail::kQuietBit<F>;
  return (detail::to_bits(x) & m) == m;
}
template <detail::WasmFloat F> constexpr F canonical_nan() {
  return detail::from_bits<F>(detail::kExpMask<F> | detail::kQuietBit<F>);
}

// ---------------------------------------------------------------------------
// Integer instructions, generic over i32 / i64 (either signedness of storage).
// ---------------------------------------------------------------------------

// add/sub/mul wrap modulo 2^N: computed in the unsigned type (no signed
// overflow UB; the conversion back to a signed T is modular since C++20).
template <detail::WasmInt T> constexpr T add(T a, T b) { return T(detail::U<T>(a) + detail::U<T>(b)); }
template <detail::WasmInt T> constexpr T sub(T a, T b) { return T(detail::U<T>(a) - detail::U<T>(b)); }
template <detail::WasmInt T> constexpr T mul(T a, T b) { return T(detail::U<T>(a) * detail::U<T>(b)); }

// Division traps on a zero divisor; div_s also traps on INT_MIN / -1, whose
// quotient 2^(N-1) is not representable. Both checks are [[unlikely]] branches
// that the hardware predicts perfectly in practice.
template <detail::WasmInt T> constexpr TrapCode div_s(T a, T b, T& out) {
  using S = detail::S<T>;
  S sa = S(a), sb = S(b);
  if (sb == 0) [[unlikely]] return TrapCode::IntegerDivideByZero;
  if (sa == std::numeric_limits<S>::min() && sb == -1) [[unlikely]] return TrapCode::IntegerOverflow;
  out = T(sa / sb);
  return TrapCode::None;
}
template <detail::WasmInt T> constexpr TrapCode div_u(T a, T b, T& out) {
  using U = detail::U<T>;
  if (U(b) == 0) [[unlikely]] return TrapCode::IntegerDivideByZero;
  out = T(U(a) / U(b));
  return TrapCode::None;
}
// rem_s(INT_MIN, -1) is 0 in Wasm (no trap), but INT_MIN % -1 is UB in C++ and
// faults on x86 (idiv overflows), so any b == -1 yields 0 (x % -1 == 0).
template <detail::WasmInt T> constexpr TrapCode rem_s(T a, T b, T& out) {
  using S = detail::S<T>;
  S sa = S(a), sb = S(b);
  if (sb == 0) [[unlikely]] return TrapCode::IntegerDivideByZero;
  out = T(sb == -1 ? S(0) : S(sa % sb));  // the result has the sign of the dividend
  return TrapCode::None;
}
template <detail::WasmInt T> constexpr TrapCode rem_u(T a, T b, T& out) {
  using U = detail::U<T>;
  if (U(b) == 0) [[unlikely]] return TrapCode::IntegerDivideByZero;
  out = T(U(a) % U(b));
  return TrapCode::None;
}

template <detail::WasmInt T> constexpr T and_(T a, T b) { return T(a & b); }
template <detail::WasmInt T> constexpr T or_(T a, T b) { return T(a | b); }
template <detail::WasmInt T> constexpr T xor_(T a, T b) { return T(a ^ b); }

// Shift counts are taken modulo N (spec: k = i2 mod N). Masking also keeps the
// C++ shift defined. shr_s shifts the signed value (arithmetic shift, defined
// in C++20); shl shifts the unsigned value (no overflow UB).
template <detail::WasmInt T> constexpr T shl(T a, T b) {
  return T(detail::U<T>(a) << (detail::U<T>(b) & (detail::kBits<T> - 1)));
}
template <detail::WasmInt T> constexpr T shr_s(T a, T b) {
  return T(detail::S<T>(a) >> (detail::U<T>(b) & (detail::kBits<T> - 1)));
}
template <detail::WasmInt T> constexpr T shr_u(T a, T b) {
  return T(detail::U<T>(a) >> (detail::U<T>(b) & (detail::kBits<T> - 1)));
}
// std::rotl/rotr are defined for any count; masking first keeps the int
// argument small (the i64 count may not fit an int).
template <detail::WasmInt T> constexpr T rotl(T a, T b) {
  return T(std::rotl(detail::U<T>(a), int(detail::U<T>(b) & (detail::kBits<T> - 1))));
}
template <detail::WasmInt T> constexpr T rotr(T a, T b) {
  return T(std::rotr(detail::U<T>(a), int(detail::U<T>(b) & (detail::kBits<T> - 1))));
}

// clz(0) = ctz(0) = N, as std::countl_zero/countr_zero define it.
template <detail::WasmInt T> constexpr T clz(T a) { return T(std::countl_zero(detail::U<T>(a))); }
template <detail::WasmInt T> constexpr T ctz(T a) { return T(std::countr_zero(detail::U<T>(a))); }
template <detail::WasmInt T> constexpr T popcnt(T a) { return T(std::popcount(detail::U<T>(a))); }

// Sign extension of the low 8/16/32 bits (conversion to a narrower signed type
// is modular since C++20).
template <detail::WasmInt T> constexpr T extend8_s(T a) { return T(detail::S<T>(int8_t(a))); }
template <detail::WasmInt T> constexpr T extend16_s(T a) { return T(detail::S<T>(int16_t(a))); }
template <detail::WasmInt T> constexpr T extend32_s(T a) { return T(detail::S<T>(int32_t(a))); }

// Comparisons yield an i32 0/1.
template <detail::WasmInt T> constexpr I32 eqz(T a) { return I32(a == 0); }
template <detail::WasmInt T> constexpr I32 eq(T a, T b) { return I32(a == b); }
template <detail::WasmInt T> constexpr I32 ne(T a, T b) { return I32(a != b); }
template <detail::WasmInt T> constexpr I32 lt_s(T a, T b) { return I32(detail::S<T>(a) < detail::S<T>(b)); }
template <detail::WasmInt T> constexpr I32 lt_u(T a, T b) { return I32(detail::U<T>(a) < detail::U<T>(b)); }
template <detail::WasmInt T> constexpr I32 gt_s(T a, T b) { return I32(detail::S<T>(a) > detail::S<T>(b)); }
template <detail::WasmInt T> constexpr I32 gt_u(T a, T b) { return I32(detail::U<T>(a) > detail::U<T>(b)); }
template <detail::WasmInt T> constexpr I32 le_s(T a, T b) { return I32(detail::S<T>(a) <= detail::S<T>(b)); }
template <detail::WasmInt T> constexpr I32 le_u(T a, T b) { return I32(detail::U<T>(a) <= detail::U<T>(b)); }
template <detail::WasmInt T> constexpr I32 ge_s(T a, T b) { return I32(detail::S<T>(a) >= detail::S<T>(b)); }
template <detail::WasmInt T> constexpr I32 ge_u(T a, T b) { return I32(detail::U<T>(a) >= detail::U<T>(b)); }

// ---------------------------------------------------------------------------
// Float instructions, generic over f32 / f64.
// ---------------------------------------------------------------------------

// IEEE arithmetic: the hardware already returns a quiet NaN that satisfies the
// canonical/arithmetic rule (see the header comment), rounds to nearest-even
// and handles infinities, zeros and subnormals exactly as Wasm specifies.
template <detail::WasmFloat F> constexpr F add(F a, F b) { return a + b; }
template <detail::WasmFloat F> constexpr F sub(F a, F b) { return a - b; }
template <detail::WasmFloat F> constexpr F mul(F a, F b) { return a * b; }
template <detail::WasmFloat F> constexpr F div(F a, F b) { return a / b; }

// sqrt via the SSE instruction on x86: std::sqrt would add an errno check and
// a libm call for negative and NaN inputs (GCC's default -fmath-errno).
// sqrtss/sqrtsd return the default (canonical) NaN for negative inputs and
// quieten NaN inputs, as Wasm requires; sqrt(-0) = -0.
template <detail::WasmFloat F> inline F sqrt(F x) {
#if WEFT_NUMERIC_X86_SSE2
  if constexpr (std::is_same_v<F, float>) {
    __m128 v = _mm_set_ss(x);
    return _mm_cvtss_f32(_mm_sqrt_ss(v));
  } else {
    __m128d v = _mm_set_sd(x);
    return _mm_cvtsd_f64(_mm_sqrt_sd(v, v));
  }
#else
  return std::sqrt(x);
#endif
}

// abs/neg/copysign are specified as bit operations on the sign bit: they must
// preserve a NaN's payload and signalling bit exactly, so no float arithmetic
// (0 - x would quieten a NaN and turn -0 into +0).
template <detail::WasmFloat F> constexpr F abs(F x) {
  return detail::from_bits<F>(detail::to_bits(x) & ~detail::kSignMask<F>);
}
template <detail::WasmFloat F> constexpr F neg(F x) {
  return detail::from_bits<F>(detail::to_bits(x) ^ detail::kSignMask<F>);
}
template <detail::WasmFloat F> constexpr F copysign(F a, F b) { return detail::copysign_bits(a, b); }

// Rounding to an integral value. On SSE4.1 one roundss/roundsd each;
// elsewhere (and in constant evaluation) the exact software versions above.
// libm's ceil & co. are not used: they cost a call on baseline x86-64 and some
// libms return signalling NaNs unquietened.
template <detail::WasmFloat F> constexpr F ceil(F x) {
  if (std::is_constant_evaluated()) return detail::soft_ceil(x);
#if WEFT_NUMERIC_X86_SSE41
  return detail::sse41_round<_MM_FROUND_TO_POS_INF>(x);
#else
  return detail::soft_ceil(x);
#endif
}
template <detail::WasmFloat F> constexpr F floor(F x) {
  if (std::is_constant_evaluated()) return detail::soft_floor(x);
#if WEFT_NUMERIC_X86_SSE41
  return detail::sse41_round<_MM_FROUND_TO_NEG_INF>(x);
#else
  return detail::soft_floor(x);
#endif
}
template <detail::WasmFloat F> constexpr F trunc(F x) {
  if (std::is_constant_evaluated()) return detail::soft_trunc(x);
#if WEFT_NUMERIC_X86_SSE41
  return detail::sse41_round<_MM_FROUND_TO_ZERO>(x);
#else
  return detail::soft_trunc(x);
#endif
}
// nearest rounds half to even (nearest(0.5) = 0, nearest(1.5) = 2,
// nearest(-0.5) = -0), unlike C's round() which rounds half away from zero.
template <detail::WasmFloat F> constexpr F nearest(F x) {
  if (std::is_constant_evaluated()) return detail::soft_nearest(x);
#if WEFT_NUMERIC_X86_SSE41
  return detail::sse41_round<_MM_FROUND_TO_NEAREST_INT>(x);
#else
  return detail::soft_nearest(x);
#endif
}

// min/max: a NaN operand gives a NaN; -0 < +0. Neither std::min (returns the
// first operand on unordered compares) nor x86 minss/maxss (returns the second
// operand for NaN and for +-0) does that. The ordered case is decided by the
// first two compares; the tail handles equality (OR of the bits selects -0 for
// min, AND selects +0 for max; equal non-zero values have identical bits) and
// NaN, where `a + b` returns the NaN operand quietened (canonical in,
// canonical out).
template <detail::WasmFloat F> constexpr F min(F a, F b) {
  if (a < b) return a;
  if (b < a) return b;
  if (a == b) return detail::from_bits<F>(detail::to_bits(a) | detail::to_bits(b));
  return a + b;
}
template <detail::WasmFloat F> constexpr F max(F a, F b) {
  if (a > b) return a;
  if (b > a) return b;
  if (a == b) return detail::from_bits<F>(detail::to_bits(a) & detail::to_bits(b));
  return a + b;
}

// IEEE comparisons: any NaN operand makes all of them false except ne.
template <detail::WasmFloat F> constexpr I32 eq(F a, F b) { return I32(a == b); }
template <detail::WasmFloat F> constexpr I32 ne(F a, F b) { return I32(a != b); }
template <detail::WasmFloat F> constexpr I32 lt(F a, F b) { return I32(a < b); }
template <detail::WasmFloat F> constexpr I32 gt(F a, F b) { return I32(a > b); }
template <detail::WasmFloat F> constexpr I32 le(F a, F b) { return I32(a <= b); }
template <detail::WasmFloat F> constexpr I32 ge(F a, F b) { return I32(a >= b); }

// ---------------------------------------------------------------------------
// Conversions. Template parameters: result type first (`trunc_s<int32_t,
// float>`), the operand type is deduced where it can be.
// ---------------------------------------------------------------------------

// trunc_s / trunc_u (trapping): NaN -> "invalid conversion to integer"; a value
// whose truncation does not fit (including +-inf) -> "integer overflow". The
// in-range test fails for NaN too, so the fast path is a single branch. The
// cast itself is defined because the value was proven to be in range. T is
// the storage type of the result (int32_t or uint32_t both give an i32).
template <detail::WasmInt T, detail::WasmFloat F> constexpr TrapCode trunc_s(F x, T& out) {
  using S = detail::S<T>;
  if (detail::trunc_in_range<S>(x)) [[likely]] {
    out = T(static_cast<S>(x));
    return TrapCode::None;
  }
  return x != x ? TrapCode::InvalidConversionToInteger : TrapCode::IntegerOverflow;
}
template <detail::WasmInt T, detail::WasmFloat F> constexpr TrapCode trunc_u(F x, T& out) {
  using U = detail::U<T>;
  if (detail::trunc_in_range<U>(x)) [[likely]] {
    out = T(static_cast<U>(x));
    return TrapCode::None;
  }
  return x != x ? TrapCode::InvalidConversionToInteger : TrapCode::IntegerOverflow;
}

// trunc_sat_s / trunc_sat_u (non-trapping): NaN -> 0, out of range saturates.
template <detail::WasmInt T, detail::WasmFloat F> constexpr T trunc_sat_s(F x) {
  using S = detail::S<T>;
  if (detail::trunc_in_range<S>(x)) [[likely]] return T(static_cast<S>(x));
  if (x != x) return T(0);
  return T(x < F(0) ? std::numeric_limits<S>::min() : std::numeric_limits<S>::max());
}
template <detail::WasmInt T, detail::WasmFloat F> constexpr T trunc_sat_u(F x) {
  using U = detail::U<T>;
  if (detail::trunc_in_range<U>(x)) [[likely]] return T(static_cast<U>(x));
  if (x != x) return T(0);
  return T(x < F(0) ? U(0) : std::numeric_limits<U>::max());
}

// convert_s / convert_u: integer -> float, rounded to nearest-even. The
// conversion must be a single rounding straight from the integer: going
// through double first (float(double(u64))) rounds twice and is wrong, e.g.
// 0x0020000020000001 -> 0x1.000002p+53 (via double: 0x1p+53). GCC and clang
// emit correctly rounded sequences for every direct int -> float cast
// (cvtsi2ss/sd; for u64 on x86-64 without AVX-512 a halve-with-sticky-bit,
// convert, double sequence), and constant folding rounds the same way; the
// tests check this against a bit-exact software reference.
template <detail::WasmFloat F, detail::WasmInt T> constexpr F convert_s(T x) {
  return static_cast<F>(detail::S<T>(x));
}
template <detail::WasmFloat F, detail::WasmInt T> constexpr F convert_u(T x) {
  return static_cast<F>(detail::U<T>(x));
}

// f32.demote_f64: round to nearest-even; overflow to +-inf; NaN stays NaN
// (hardware quietens it and keeps the high payload bits, so canonical stays
// canonical). f64.promote_f32: exact; NaN quietened likewise.
constexpr F32 demote(F64 x) { return static_cast<F32>(x); }
constexpr F64 promote(F32 x) { return static_cast<F64>(x); }

// i32.wrap_i64 keeps the low 32 bits; i64.extend_i32_s/u sign/zero-extend.
constexpr I32 wrap(I64 x) { return I32(x); }
constexpr I64 extend_s(I32 x) { return I64(int64_t(int32_t(x))); }
constexpr I64 extend_u(I32 x) { return I64(x); }

// reinterpret: bit copies (bit_cast never touches a NaN's payload).
template <detail::WasmFloat F> constexpr detail::FBits<F> reinterpret_to_int(F x) { return detail::to_bits(x); }
template <detail::WasmFloat F> constexpr F reinterpret_to_float(detail::FBits<F> b) { return detail::from_bits<F>(b); }

// ---------------------------------------------------------------------------
// One function per instruction (storage: I32/I64/F32/F64).
// ---------------------------------------------------------------------------

// i32
constexpr I32 i32_eqz(I32 a) { return eqz(a); }
constexpr I32 i32_eq(I32 a, I32 b) { return eq(a, b); }
constexpr I32 i32_ne(I32 a, I32 b) { return ne(a, b); }
constexpr I32 i32_lt_s(I32 a, I32 b) { return lt_s(a, b); }
constexpr I32 i32_lt_u(I32 a, I32 b) { return lt_u(a, b); }
constexpr I32 i32_gt_s(I32 a, I32 b) { return gt_s(a, b); }
constexpr I32 i32_gt_u(I32 a, I32 b) { return gt_u(a, b); }
constexpr I32 i32_le_s(I32 a, I32 b) { return le_s(a, b); }
constexpr I32 i32_le_u(I32 a, I32 b) { return le_u(a, b); }
constexpr I32 i32_ge_s(I32 a, I32 b) { return ge_s(a, b); }
constexpr I32 i32_ge_u(I32 a, I32 b) { return ge_u(a, b); }
constexpr I32 i32_clz(I32 a) { return clz(a); }
constexpr I32 i32_ctz(I32 a) { return ctz(a); }
constexpr I32 i32_popcnt(I32 a) { return popcnt(a); }
constexpr I32 i32_add(I32 a, I32 b) { return add(a, b); }
constexpr I32 i32_sub(I32 a, I32 b) { return sub(a, b); }
constexpr I32 i32_mul(I32 a, I32 b) { return mul(a, b); }
constexpr TrapCode i32_div_s(I32 a, I32 b, I32& out) { return div_s(a, b, out); }
constexpr TrapCode i32_div_u(I32 a, I32 b, I32& out) { return div_u(a, b, out); }
constexpr TrapCode i32_rem_s(I32 a, I32 b, I32& out) { return rem_s(a, b, out); }
constexpr TrapCode i32_rem_u(I32 a, I32 b, I32& out) { return rem_u(a, b, out); }
constexpr I32 i32_and(I32 a, I32 b) { return and_(a, b); }
constexpr I32 i32_or(I32 a, I32 b) { return or_(a, b); }
constexpr I32 i32_xor(I32 a, I32 b) { return xor_(a, b); }
constexpr I32 i32_shl(I32 a, I32 b) { return shl(a, b); }
constexpr I32 i32_shr_s(I32 a, I32 b) { return shr_s(a, b); }
constexpr I32 i32_shr_u(I32 a, I32 b) { return shr_u(a, b); }
constexpr I32 i32_rotl(I32 a, I32 b) { return rotl(a, b); }
constexpr I32 i32_rotr(I32 a, I32 b) { return rotr(a, b); }
constexpr I32 i32_extend8_s(I32 a) { return extend8_s(a); }
constexpr I32 i32_extend16_s(I32 a) { return extend16_s(a); }

// i64
constexpr I32 i64_eqz(I64 a) { return eqz(a); }
constexpr I32 i64_eq(I64 a, I64 b) { return eq(a, b); }
constexpr I32 i64_ne(I64 a, I64 b) { return ne(a, b); }
constexpr I32 i64_lt_s(I64 a, I64 b) { return lt_s(a, b); }
constexpr I32 i64_lt_u(I64 a, I64 b) { return lt_u(a, b); }
constexpr I32 i64_gt_s(I64 a, I64 b) { return gt_s(a, b); }
constexpr I32 i64_gt_u(I64 a, I64 b) { return gt_u(a, b); }
constexpr I32 i64_le_s(I64 a, I64 b) { return le_s(a, b); }
constexpr I32 i64_le_u(I64 a, I64 b) { return le_u(a, b); }
constexpr I32 i64_ge_s(I64 a, I64 b) { return ge_s(a, b); }
constexpr I32 i64_ge_u(I64 a, I64 b) { return ge_u(a, b); }
constexpr I64 i64_clz(I64 a) { return clz(a); }
constexpr I64 i64_ctz(I64 a) { return ctz(a); }
constexpr I64 i64_popcnt(I64 a) { return popcnt(a); }
constexpr I64 i64_add(I64 a, I64 b) { return add(a, b); }
constexpr I64 i64_sub(I64 a, I64 b) { return sub(a, b); }
constexpr I64 i64_mul(I64 a, I64 b) { return mul(a, b); }
constexpr TrapCode i64_div_s(I64 a, I64 b, I64& out) { return div_s(a, b, out); }
constexpr TrapCode i64_div_u(I64 a, I64 b, I64& out) { return div_u(a, b, out); }
constexpr TrapCode i64_rem_s(I64 a, I64 b, I64& out) { return rem_s(a, b, out); }
constexpr TrapCode i64_rem_u(I64 a, I64 b, I64& out) { return rem_u(a, b, out); }
constexpr I64 i64_and(I64 a, I64 b) { return and_(a, b); }
constexpr I64 i64_or(I64 a, I64 b) { return or_(a, b); }
constexpr I64 i64_xor(I64 a, I64 b) { return xor_(a, b); }
constexpr I64 i64_shl(I64 a, I64 b) { return shl(a, b); }
constexpr I64 i64_shr_s(I64 a, I64 b) { return shr_s(a, b); }
constexpr I64 i64_shr_u(I64 a, I64 b) { return shr_u(a, b); }
constexpr I64 i64_rotl(I64 a, I64 b) { return rotl(a, b); }
constexpr I64 i64_rotr(I64 a, I64 b) { return rotr(a, b); }
constexpr I64 i64_extend8_s(I64 a) { return extend8_s(a); }
constexpr I64 i64_extend16_s(I64 a) { return extend16_s(a); }
constexpr I64 i64_extend32_s(I64 a) { return extend32_s(a); }

// f32
constexpr I32 f32_eq(F32 a, F32 b) { return eq(a, b); }
constexpr I32 f32_ne(F32 a, F32 b) { return ne(a, b); }
constexpr I32 f32_lt(F32 a, F32 b) { return lt(a, b); }
constexpr I32 f32_gt(F32 a, F32 b) { return gt(a, b); }
constexpr I32 f32_le(F32 a, F32 b) { return le(a, b); }
constexpr I32 f32_ge(F32 a, F32 b) { return ge(a, b); }
constexpr F32 f32_abs(F32 a) { return abs(a); }
constexpr F32 f32_neg(F32 a) { return neg(a); }
constexpr F32 f32_ceil(F32 a) { return ceil(a); }
constexpr F32 f32_floor(F32 a) { return floor(a); }
constexpr F32 f32_trunc(F32 a) { return trunc(a); }
constexpr F32 f32_nearest(F32 a) { return nearest(a); }
inline F32 f32_sqrt(F32 a) { return sqrt(a); }
constexpr F32 f32_add(F32 a, F32 b) { return add(a, b); }
constexpr F32 f32_sub(F32 a, F32 b) { return sub(a, b); }
constexpr F32 f32_mul(F32 a, F32 b) { return mul(a, b); }
constexpr F32 f32_div(F32 a, F32 b) { return div(a, b); }
constexpr F32 f32_min(F32 a, F32 b) { return min(a, b); }
constexpr F32 f32_max(F32 a, F32 b) { return max(a, b); }
constexpr F32 f32_copysign(F32 a, F32 b) { return copysign(a, b); }

// f64
constexpr I32 f64_eq(F64 a, F64 b) { return eq(a, b); }
constexpr I32 f64_ne(F64 a, F64 b) { return ne(a, b); }
constexpr I32 f64_lt(F64 a, F64 b) { return lt(a, b); }
constexpr I32 f64_gt(F64 a, F64 b) { return gt(a, b); }
constexpr I32 f64_le(F64 a, F64 b) { return le(a, b); }
constexpr I32 f64_ge(F64 a, F64 b) { return ge(a, b); }
constexpr F64 f64_abs(F64 a) { return abs(a); }
constexpr F64 f64_neg(F64 a) { return neg(a); }
constexpr F64 f64_ceil(F64 a) { return ceil(a); }
constexpr F64 f64_floor(F64 a) { return floor(a); }
constexpr F64 f64_trunc(F64 a) { return trunc(a); }
constexpr F64 f64_nearest(F64 a) { return nearest(a); }
inline F64 f64_sqrt(F64 a) { return sqrt(a); }
constexpr F64 f64_add(F64 a, F64 b) { return add(a, b); }
constexpr F64 f64_sub(F64 a, F64 b) { return sub(a, b); }
constexpr F64 f64_mul(F64 a, F64 b) { return mul(a, b); }
constexpr F64 f64_div(F64 a, F64 b) { return div(a, b); }
constexpr F64 f64_min(F64 a, F64 b) { return min(a, b); }
constexpr F64 f64_max(F64 a, F64 b) { return max(a, b); }
constexpr F64 f64_copysign(F64 a, F64 b) { return copysign(a, b); }

// Conversions
constexpr I32 i32_wrap_i64(I64 a) { return wrap(a); }
constexpr TrapCode i32_trunc_f32_s(F32 a, I32& out) { return trunc_s(a, out); }
constexpr TrapCode i32_trunc_f32_u(F32 a, I32& out) { return trunc_u(a, out); }
constexpr TrapCode i32_trunc_f64_s(F64 a, I32& out) { return trunc_s(a, out); }
constexpr TrapCode i32_trunc_f64_u(F64 a, I32& out) { return trunc_u(a, out); }
constexpr I64 i64_extend_i32_s(I32 a) { return extend_s(a); }
constexpr I64 i64_extend_i32_u(I32 a) { return extend_u(a); }
constexpr TrapCode i64_trunc_f32_s(F32 a, I64& out) { return trunc_s(a, out); }
constexpr TrapCode i64_trunc_f32_u(F32 a, I64& out) { return trunc_u(a, out); }
constexpr TrapCode i64_trunc_f64_s(F64 a, I64& out) { return trunc_s(a, out); }
constexpr TrapCode i64_trunc_f64_u(F64 a, I64& out) { return trunc_u(a, out); }
constexpr F32 f32_convert_i32_s(I32 a) { return convert_s<F32>(a); }
constexpr F32 f32_convert_i32_u(I32 a) { return convert_u<F32>(a); }
constexpr F32 f32_convert_i64_s(I64 a) { return convert_s<F32>(a); }
constexpr F32 f32_convert_i64_u(I64 a) { return convert_u<F32>(a); }
constexpr F32 f32_demote_f64(F64 a) { return demote(a); }
constexpr F64 f64_convert_i32_s(I32 a) { return convert_s<F64>(a); }
constexpr F64 f64_convert_i32_u(I32 a) { return convert_u<F64>(a); }
constexpr F64 f64_convert_i64_s(I64 a) { return convert_s<F64>(a); }
constexpr F64 f64_convert_i64_u(I64 a) { return convert_u<F64>(a); }
constexpr F64 f64_promote_f32(F32 a) { return promote(a); }
constexpr I32 i32_reinterpret_f32(F32 a) { return reinterpret_to_int(a); }
constexpr I64 i64_reinterpret_f64(F64 a) { return reinterpret_to_int(a); }
constexpr F32 f32_reinterpret_i32(I32 a) { return reinterpret_to_float<F32>(a); }
constexpr F64 f64_reinterpret_i64(I64 a) { return reinterpret_to_float<F64>(a); }
constexpr I32 i32_trunc_sat_f32_s(F32 a) { return trunc_sat_s<I32>(a); }
constexpr I32 i32_trunc_sat_f32_u(F32 a) { return trunc_sat_u<I32>(a); }
constexpr I32 i32_trunc_sat_f64_s(F64 a) { return trunc_sat_s<I32>(a); }
constexpr I32 i32_trunc_sat_f64_u(F64 a) { return trunc_sat_u<I32>(a); }
constexpr I64 i64_trunc_sat_f32_s(F32 a) { return trunc_sat_s<I64>(a); }
constexpr I64 i64_trunc_sat_f32_u(F32 a) { return trunc_sat_u<I64>(a); }
constexpr I64 i64_trunc_sat_f64_s(F64 a) { return trunc_sat_s<I64>(a); }
constexpr I64 i64_trunc_sat_f64_u(F64 a) { return trunc_sat_u<I64>(a); }

}  // namespace weft::numeric

#undef WEFT_NUMERIC_X86_SSE2
#undef WEFT_NUMERIC_X86_SSE41
