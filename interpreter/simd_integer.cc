// SIMD integer lane arithmetic: add/sub/mul (wrapping), neg, abs, popcnt,
// saturating add/sub, min/max, avgr_u, q15mulr_sat_s, extmul, extadd_pairwise,
// dot, comparisons (all-ones / all-zeros lanes) and shifts (count modulo the
// lane width). Lane types name the interpretation: int8_t lanes for _s
// operations, uint8_t for _u; wrapping arithmetic is done in unsigned types
// wide enough that no C++ overflow (undefined behaviour) can happen.
#include <algorithm>
#include <bit>
#include <functional>
#include <limits>

#include "interpreter/simd.h"

namespace weft::interpreter::simd {
namespace {

// Unsigned arithmetic at least as wide as int, so uint16_t * uint16_t cannot
// overflow a promoted int.
template <class T>
using Wrap = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T> V128 add(V128 a, V128 b) { return zip<T>(a, b, [](T x, T y) { return Wrap<T>(x) + Wrap<T>(y); }); }
template <class T> V128 sub(V128 a, V128 b) { return zip<T>(a, b, [](T x, T y) { return Wrap<T>(x) - Wrap<T>(y); }); }
template <class T> V128 mul(V128 a, V128 b) { return zip<T>(a, b, [](T x, T y) { return Wrap<T>(x) * Wrap<T>(y); }); }
template <class T> V128 neg(V128 a) { return map<T>(a, [](T x) { return Wrap<T>(0) - Wrap<T>(x); }); }
// abs of the most negative value wraps to itself, as the spec says.
template <class S> V128 abs(V128 a) {
  return map<S>(a, [](S x) { return x < 0 ? Wrap<S>(0) - Wrap<S>(x) : Wrap<S>(x); });
}

// Saturating add/sub of 8- and 16-bit lanes: exact in int, then clamped.
template <class T> T saturate(int32_t v) {
  return T(std::clamp<int32_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
template <class T> V128 add_sat(V128 a, V128 b) {
  return zip<T>(a, b, [](T x, T y) { return saturate<T>(int32_t(x) + int32_t(y)); });
}
template <class T> V128 sub_sat(V128 a, V128 b) {
  return zip<T>(a, b, [](T x, T y) { return saturate<T>(int32_t(x) - int32_t(y)); });
}

template <class T> V128 min(V128 a, V128 b) { return zip<T>(a, b, [](T x, T y) { return std::min(x, y); }); }
template <class T> V128 max(V128 a, V128 b) { return zip<T>(a, b, [](T x, T y) { return std::max(x, y); }); }
// Rounding average of unsigned lanes: (x + y + 1) / 2 without overflow in 32 bits.
template <class T> V128 avgr(V128 a, V128 b) {
  return zip<T>(a, b, [](T x, T y) { return (uint32_t(x) + uint32_t(y) + 1) >> 1; });
}

// Comparisons: each lane all ones when true, else zero.
template <class T, class Cmp> V128 compare(V128 a, V128 b, Cmp cmp) {
  return zip<T>(a, b, [cmp](T x, T y) { return cmp(x, y) ? T(~std::make_unsigned_t<T>(0)) : T(0); });
}

// Shifts use the count modulo the lane width. Right shifts of signed lanes
// are arithmetic (defined in C++20); left shifts are done unsigned.
template <class T> uint32_t shift_count(uint32_t count) { return count & (sizeof(T) * 8 - 1); }
template <class T> V128 shl(V128 a, uint32_t count) {
  const uint32_t n = shift_count<T>(count);
  return map<std::make_unsigned_t<T>>(a, [n](std::make_unsigned_t<T> x) { return Wrap<T>(x) << n; });
}
template <class S> V128 shr_s(V128 a, uint32_t count) {
  const uint32_t n = shift_count<S>(count);
  return map<S>(a, [n](S x) { return x >> n; });
}
template <class U> V128 shr_u(V128 a, uint32_t count) {
  const uint32_t n = shift_count<U>(count);
  return map<U>(a, [n](U x) { return x >> n; });
}

// extmul_low/high: lanes [first, first + count) of each operand, widened to
// Wide and multiplied (the product of two widened lanes always fits).
template <class Narrow, class Wide> V128 extmul(V128 a, V128 b, int first) {
  const Lanes<Narrow> x = lanes<Narrow>(a), y = lanes<Narrow>(b);
  Lanes<Wide> out;
  for (int i = 0; i < Lanes<Wide>::kCount; ++i)
    out.lane[i] = Wide(Wrap<Wide>(Wide(x.lane[first + i])) * Wrap<Wide>(Wide(y.lane[first + i])));
  return pack(out);
}
template <class Narrow, class Wide> V128 extmul_low(V128 a, V128 b) { return extmul<Narrow, Wide>(a, b, 0); }
template <class Narrow, class Wide> V128 extmul_high(V128 a, V128 b) {
  return extmul<Narrow, Wide>(a, b, Lanes<Wide>::kCount);
}

// Sum of each pair of adjacent lanes, widened first (cannot overflow).
template <class Narrow, class Wide> V128 extadd_pairwise(V128 a) {
  const Lanes<Narrow> x = lanes<Narrow>(a);
  Lanes<Wide> out;
  for (int i = 0; i < Lanes<Wide>::kCount; ++i) out.lane[i] = Wide(Wide(x.lane[2 * i]) + Wide(x.lane[2 * i + 1]));
  return pack(out);
}

}  // namespace

// ---- i8x16 ----
V128 i8x16_add(V128 a, V128 b) { return add<uint8_t>(a, b); }
V128 i8x16_sub(V128 a, V128 b) { return sub<uint8_t>(a, b); }
V128 i8x16_neg(V128 a) { return neg<uint8_t>(a); }
V128 i8x16_abs(V128 a) { return abs<int8_t>(a); }
V128 i8x16_popcnt(V128 a) { return map<uint8_t>(a, [](uint8_t x) { return std::popcount(x); }); }
V128 i8x16_add_sat_s(V128 a, V128 b) { return add_sat<int8_t>(a, b); }
V128 i8x16_add_sat_u(V128 a, V128 b) { return add_sat<uint8_t>(a, b); }
V128 i8x16_sub_sat_s(V128 a, V128 b) { return sub_sat<int8_t>(a, b); }
V128 i8x16_sub_sat_u(V128 a, V128 b) { return sub_sat<uint8_t>(a, b); }
V128 i8x16_min_s(V128 a, V128 b) { return min<int8_t>(a, b); }
V128 i8x16_min_u(V128 a, V128 b) { return min<uint8_t>(a, b); }
V128 i8x16_max_s(V128 a, V128 b) { return max<int8_t>(a, b); }
V128 i8x16_max_u(V128 a, V128 b) { return max<uint8_t>(a, b); }
V128 i8x16_avgr_u(V128 a, V128 b) { return avgr<uint8_t>(a, b); }
V128 i8x16_shl(V128 a, uint32_t n) { return shl<uint8_t>(a, n); }
V128 i8x16_shr_s(V128 a, uint32_t n) { return shr_s<int8_t>(a, n); }
V128 i8x16_shr_u(V128 a, uint32_t n) { return shr_u<uint8_t>(a, n); }
V128 i8x16_eq(V128 a, V128 b) { return compare<uint8_t>(a, b, std::equal_to<>()); }
V128 i8x16_ne(V128 a, V128 b) { return compare<uint8_t>(a, b, std::not_equal_to<>()); }
V128 i8x16_lt_s(V128 a, V128 b) { return compare<int8_t>(a, b, std::less<>()); }
V128 i8x16_lt_u(V128 a, V128 b) { return compare<uint8_t>(a, b, std::less<>()); }
V128 i8x16_gt_s(V128 a, V128 b) { return compare<int8_t>(a, b, std::greater<>()); }
V128 i8x16_gt_u(V128 a, V128 b) { return compare<uint8_t>(a, b, std::greater<>()); }
V128 i8x16_le_s(V128 a, V128 b) { return compare<int8_t>(a, b, std::less_equal<>()); }
V128 i8x16_le_u(V128 a, V128 b) { return compare<uint8_t>(a, b, std::less_equal<>()); }
V128 i8x16_ge_s(V128 a, V128 b) { return compare<int8_t>(a, b, std::greater_equal<>()); }
V128 i8x16_ge_u(V128 a, V128 b) { return compare<uint8_t>(a, b, std::greater_equal<>()); }

// ---- i16x8 ----
V128 i16x8_add(V128 a, V128 b) { return add<uint16_t>(a, b); }
V128 i16x8_sub(V128 a, V128 b) { return sub<uint16_t>(a, b); }
V128 i16x8_mul(V128 a, V128 b) { return mul<uint16_t>(a, b); }
V128 i16x8_neg(V128 a) { return neg<uint16_t>(a); }
V128 i16x8_abs(V128 a) { return abs<int16_t>(a); }
V128 i16x8_add_sat_s(V128 a, V128 b) { return add_sat<int16_t>(a, b); }
V128 i16x8_add_sat_u(V128 a, V128 b) { return add_sat<uint16_t>(a, b); }
V128 i16x8_sub_sat_s(V128 a, V128 b) { return sub_sat<int16_t>(a, b); }
V128 i16x8_sub_sat_u(V128 a, V128 b) { return sub_sat<uint16_t>(a, b); }
V128 i16x8_min_s(V128 a, V128 b) { return min<int16_t>(a, b); }
V128 i16x8_min_u(V128 a, V128 b) { return min<uint16_t>(a, b); }
V128 i16x8_max_s(V128 a, V128 b) { return max<int16_t>(a, b); }
V128 i16x8_max_u(V128 a, V128 b) { return max<uint16_t>(a, b); }
V128 i16x8_avgr_u(V128 a, V128 b) { return avgr<uint16_t>(a, b); }
// (x * y + 2^14) >> 15, saturated: only -32768 * -32768 exceeds the range.
V128 i16x8_q15mulr_sat_s(V128 a, V128 b) {
  return zip<int16_t>(a, b, [](int16_t x, int16_t y) { return saturate<int16_t>((int32_t(x) * y + 0x4000) >> 15); });
}
V128 i16x8_shl(V128 a, uint32_t n) { return shl<uint16_t>(a, n); }
V128 i16x8_shr_s(V128 a, uint32_t n) { return shr_s<int16_t>(a, n); }
V128 i16x8_shr_u(V128 a, uint32_t n) { return shr_u<uint16_t>(a, n); }
V128 i16x8_eq(V128 a, V128 b) { return compare<uint16_t>(a, b, std::equal_to<>()); }
V128 i16x8_ne(V128 a, V128 b) { return compare<uint16_t>(a, b, std::not_equal_to<>()); }
V128 i16x8_lt_s(V128 a, V128 b) { return compare<int16_t>(a, b, std::less<>()); }
V128 i16x8_lt_u(V128 a, V128 b) { return compare<uint16_t>(a, b, std::less<>()); }
V128 i16x8_gt_s(V128 a, V128 b) { return compare<int16_t>(a, b, std::greater<>()); }
V128 i16x8_gt_u(V128 a, V128 b) { return compare<uint16_t>(a, b, std::greater<>()); }
V128 i16x8_le_s(V128 a, V128 b) { return compare<int16_t>(a, b, std::less_equal<>()); }
V128 i16x8_le_u(V128 a, V128 b) { return compare<uint16_t>(a, b, std::less_equal<>()); }
V128 i16x8_ge_s(V128 a, V128 b) { return compare<int16_t>(a, b, std::greater_equal<>()); }
V128 i16x8_ge_u(V128 a, V128 b) { return compare<uint16_t>(a, b, std::greater_equal<>()); }
V128 i16x8_extmul_low_i8x16_s(V128 a, V128 b) { return extmul_low<int8_t, int16_t>(a, b); }
V128 i16x8_extmul_high_i8x16_s(V128 a, V128 b) { return extmul_high<int8_t, int16_t>(a, b); }
V128 i16x8_extmul_low_i8x16_u(V128 a, V128 b) { return extmul_low<uint8_t, uint16_t>(a, b); }
V128 i16x8_extmul_high_i8x16_u(V128 a, V128 b) { return extmul_high<uint8_t, uint16_t>(a, b); }
V128 i16x8_extadd_pairwise_i8x16_s(V128 a) { return extadd_pairwise<int8_t, int16_t>(a); }
V128 i16x8_extadd_pairwise_i8x16_u(V128 a) { return extadd_pairwise<uint8_t, uint16_t>(a); }

// ---- i32x4 ----
V128 i32x4_add(V128 a, V128 b) { return add<uint32_t>(a, b); }
V128 i32x4_sub(V128 a, V128 b) { return sub<uint32_t>(a, b); }
V128 i32x4_mul(V128 a, V128 b) { return mul<uint32_t>(a, b); }
V128 i32x4_neg(V128 a) { return neg<uint32_t>(a); }
V128 i32x4_abs(V128 a) { return abs<int32_t>(a); }
V128 i32x4_min_s(V128 a, V128 b) { return min<int32_t>(a, b); }
V128 i32x4_min_u(V128 a, V128 b) { return min<uint32_t>(a, b); }
V128 i32x4_max_s(V128 a, V128 b) { return max<int32_t>(a, b); }
V128 i32x4_max_u(V128 a, V128 b) { return max<uint32_t>(a, b); }
V128 i32x4_shl(V128 a, uint32_t n) { return shl<uint32_t>(a, n); }
V128 i32x4_shr_s(V128 a, uint32_t n) { return shr_s<int32_t>(a, n); }
V128 i32x4_shr_u(V128 a, uint32_t n) { return shr_u<uint32_t>(a, n); }
V128 i32x4_eq(V128 a, V128 b) { return compare<uint32_t>(a, b, std::equal_to<>()); }
V128 i32x4_ne(V128 a, V128 b) { return compare<uint32_t>(a, b, std::not_equal_to<>()); }
V128 i32x4_lt_s(V128 a, V128 b) { return compare<int32_t>(a, b, std::less<>()); }
V128 i32x4_lt_u(V128 a, V128 b) { return compare<uint32_t>(a, b, std::less<>()); }
V128 i32x4_gt_s(V128 a, V128 b) { return compare<int32_t>(a, b, std::greater<>()); }
V128 i32x4_gt_u(V128 a, V128 b) { return compare<uint32_t>(a, b, std::greater<>()); }
V128 i32x4_le_s(V128 a, V128 b) { return compare<int32_t>(a, b, std::less_equal<>()); }
V128 i32x4_le_u(V128 a, V128 b) { return compare<uint32_t>(a, b, std::less_equal<>()); }
V128 i32x4_ge_s(V128 a, V128 b) { return compare<int32_t>(a, b, std::greater_equal<>()); }
V128 i32x4_ge_u(V128 a, V128 b) { return compare<uint32_t>(a, b, std::greater_equal<>()); }
// Lane i: a[2i] * b[2i] + a[2i+1] * b[2i+1] of the signed i16 lanes; only
// all four at -32768 overflow i32, and that sum wraps (to INT32_MIN).
V128 i32x4_dot_i16x8_s(V128 a, V128 b) {
  const Lanes<int16_t> x = lanes<int16_t>(a), y = lanes<int16_t>(b);
  Lanes<uint32_t> out;
  for (int i = 0; i < 4; ++i)
    out.lane[i] = uint32_t(int32_t(x.lane[2 * i]) * y.lane[2 * i]) + uint32_t(int32_t(x.lane[2 * i + 1]) * y.lane[2 * i + 1]);
  return pack(out);
}
// Relaxed SIMD's dot products: both operands' bytes signed (the proposal
// allows the second to be read unsigned when its top bit is set); the i16
// sums wrap, the i32 sums are exact before c is added (modulo 2^32).
V128 i16x8_relaxed_dot_i8x16_i7x16_s(V128 a, V128 b) {
  const Lanes<int8_t> x = lanes<int8_t>(a), y = lanes<int8_t>(b);
  Lanes<uint16_t> out;
  for (int i = 0; i < 8; ++i)
    out.lane[i] = uint16_t(int32_t(x.lane[2 * i]) * y.lane[2 * i] + int32_t(x.lane[2 * i + 1]) * y.lane[2 * i + 1]);
  return pack(out);
}
V128 i32x4_relaxed_dot_i8x16_i7x16_add_s(V128 a, V128 b, V128 c) {
  const Lanes<int8_t> x = lanes<int8_t>(a), y = lanes<int8_t>(b);
  const Lanes<uint32_t> z = lanes<uint32_t>(c);
  Lanes<uint32_t> out;
  for (int i = 0; i < 4; ++i) {
    int32_t sum = 0;
    for (int k = 4 * i; k < 4 * i + 4; ++k) sum += int32_t(x.lane[k]) * y.lane[k];
    out.lane[i] = uint32_t(sum) + z.lane[i];
  }
  return pack(out);
}
V128 i32x4_extmul_low_i16x8_s(V128 a, V128 b) { return extmul_low<int16_t, int32_t>(a, b); }
V128 i32x4_extmul_high_i16x8_s(V128 a, V128 b) { return extmul_high<int16_t, int32_t>(a, b); }
V128 i32x4_extmul_low_i16x8_u(V128 a, V128 b) { return extmul_low<uint16_t, uint32_t>(a, b); }
V128 i32x4_extmul_high_i16x8_u(V128 a, V128 b) { return extmul_high<uint16_t, uint32_t>(a, b); }
V128 i32x4_extadd_pairwise_i16x8_s(V128 a) { return extadd_pairwise<int16_t, int32_t>(a); }
V128 i32x4_extadd_pairwise_i16x8_u(V128 a) { return extadd_pairwise<uint16_t, uint32_t>(a); }

// ---- i64x2 ----
V128 i64x2_add(V128 a, V128 b) { return add<uint64_t>(a, b); }
V128 i64x2_sub(V128 a, V128 b) { return sub<uint64_t>(a, b); }
V128 i64x2_mul(V128 a, V128 b) { return mul<uint64_t>(a, b); }
V128 i64x2_neg(V128 a) { return neg<uint64_t>(a); }
V128 i64x2_abs(V128 a) { return abs<int64_t>(a); }
V128 i64x2_shl(V128 a, uint32_t n) { return shl<uint64_t>(a, n); }
V128 i64x2_shr_s(V128 a, uint32_t n) { return shr_s<int64_t>(a, n); }
V128 i64x2_shr_u(V128 a, uint32_t n) { return shr_u<uint64_t>(a, n); }
V128 i64x2_eq(V128 a, V128 b) { return compare<uint64_t>(a, b, std::equal_to<>()); }
V128 i64x2_ne(V128 a, V128 b) { return compare<uint64_t>(a, b, std::not_equal_to<>()); }
V128 i64x2_lt_s(V128 a, V128 b) { return compare<int64_t>(a, b, std::less<>()); }
V128 i64x2_gt_s(V128 a, V128 b) { return compare<int64_t>(a, b, std::greater<>()); }
V128 i64x2_le_s(V128 a, V128 b) { return compare<int64_t>(a, b, std::less_equal<>()); }
V128 i64x2_ge_s(V128 a, V128 b) { return compare<int64_t>(a, b, std::greater_equal<>()); }
V128 i64x2_extmul_low_i32x4_s(V128 a, V128 b) { return extmul_low<int32_t, int64_t>(a, b); }
V128 i64x2_extmul_high_i32x4_s(V128 a, V128 b) { return extmul_high<int32_t, int64_t>(a, b); }
V128 i64x2_extmul_low_i32x4_u(V128 a, V128 b) { return extmul_low<uint32_t, uint64_t>(a, b); }
V128 i64x2_extmul_high_i32x4_u(V128 a, V128 b) { return extmul_high<uint32_t, uint64_t>(a, b); }

}  // namespace weft::interpreter::simd
