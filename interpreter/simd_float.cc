// SIMD float lane arithmetic (f32x4, f64x2): add/sub/mul/div/sqrt, min/max,
// pmin/pmax, abs/neg, ceil/floor/trunc/nearest and comparisons. Each lane
// uses the scalar instruction's exact implementation from runtime/numeric.h,
// so the NaN rules (canonical in → canonical out, otherwise an arithmetic
// NaN), -0 < +0 in min/max, and round-half-to-even are the scalar ones,
// already checked by the scalar spec tests.
#include "interpreter/simd.h"
#include "runtime/numeric.h"

namespace weft::interpreter::simd {
namespace {

// Comparison lanes are integers of the float's width: all ones when true.
template <class F, class Cmp>
V128 compare(V128 a, V128 b, Cmp cmp) {
  using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  const Lanes<F> x = lanes<F>(a), y = lanes<F>(b);
  Lanes<Bits> out;
  for (int i = 0; i < Lanes<F>::kCount; ++i) out.lane[i] = cmp(x.lane[i], y.lane[i]) ? ~Bits(0) : Bits(0);
  return pack(out);
}

// pmin/pmax are the "pseudo" min/max of C's `b < a ? b : a`: no NaN or
// signed-zero rule, an operand is returned unchanged (bits and all).
template <class F> F pmin(F a, F b) { return b < a ? b : a; }
template <class F> F pmax(F a, F b) { return a < b ? b : a; }

}  // namespace

// ---- f32x4 ----
V128 f32x4_add(V128 a, V128 b) { return zip<float>(a, b, numeric::add<float>); }
V128 f32x4_sub(V128 a, V128 b) { return zip<float>(a, b, numeric::sub<float>); }
V128 f32x4_mul(V128 a, V128 b) { return zip<float>(a, b, numeric::mul<float>); }
V128 f32x4_div(V128 a, V128 b) { return zip<float>(a, b, numeric::div<float>); }
V128 f32x4_min(V128 a, V128 b) { return zip<float>(a, b, numeric::min<float>); }
// Relaxed SIMD's madd/nmadd: the product rounded, then the sum — weft's
// choice among the results the proposal allows, so that every machine and
// tier gives the same bits. The product goes through a volatile: GCC
// contracts a*b + c into a fused multiply-add where the machine has one
// (AArch64; SimdSemantics.RelaxedChoices caught it under qemu).
template <class T>
V128 relaxed_madd(V128 a, V128 b, V128 c, bool negate) {
  const Lanes<T> x = lanes<T>(a), y = lanes<T>(b), z = lanes<T>(c);
  Lanes<T> out;
  for (int i = 0; i < Lanes<T>::kCount; ++i) {
    volatile T rounded_product = numeric::mul<T>(x.lane[i], y.lane[i]);
    const T product = rounded_product;
    out.lane[i] = numeric::add<T>(negate ? numeric::neg<T>(product) : product, z.lane[i]);
  }
  return pack(out);
}
V128 f32x4_relaxed_madd(V128 a, V128 b, V128 c) { return relaxed_madd<float>(a, b, c, false); }
V128 f32x4_relaxed_nmadd(V128 a, V128 b, V128 c) { return relaxed_madd<float>(a, b, c, true); }
V128 f64x2_relaxed_madd(V128 a, V128 b, V128 c) { return relaxed_madd<double>(a, b, c, false); }
V128 f64x2_relaxed_nmadd(V128 a, V128 b, V128 c) { return relaxed_madd<double>(a, b, c, true); }
V128 f32x4_max(V128 a, V128 b) { return zip<float>(a, b, numeric::max<float>); }
V128 f32x4_pmin(V128 a, V128 b) { return zip<float>(a, b, pmin<float>); }
V128 f32x4_pmax(V128 a, V128 b) { return zip<float>(a, b, pmax<float>); }
V128 f32x4_sqrt(V128 a) { return map<float>(a, numeric::sqrt<float>); }
V128 f32x4_abs(V128 a) { return map<float>(a, numeric::abs<float>); }
V128 f32x4_neg(V128 a) { return map<float>(a, numeric::neg<float>); }
V128 f32x4_ceil(V128 a) { return map<float>(a, numeric::ceil<float>); }
V128 f32x4_floor(V128 a) { return map<float>(a, numeric::floor<float>); }
V128 f32x4_trunc(V128 a) { return map<float>(a, numeric::trunc<float>); }
V128 f32x4_nearest(V128 a) { return map<float>(a, numeric::nearest<float>); }
V128 f32x4_eq(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x == y; }); }
V128 f32x4_ne(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x != y; }); }
V128 f32x4_lt(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x < y; }); }
V128 f32x4_gt(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x > y; }); }
V128 f32x4_le(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x <= y; }); }
V128 f32x4_ge(V128 a, V128 b) { return compare<float>(a, b, [](float x, float y) { return x >= y; }); }

// ---- f64x2 ----
V128 f64x2_add(V128 a, V128 b) { return zip<double>(a, b, numeric::add<double>); }
V128 f64x2_sub(V128 a, V128 b) { return zip<double>(a, b, numeric::sub<double>); }
V128 f64x2_mul(V128 a, V128 b) { return zip<double>(a, b, numeric::mul<double>); }
V128 f64x2_div(V128 a, V128 b) { return zip<double>(a, b, numeric::div<double>); }
V128 f64x2_min(V128 a, V128 b) { return zip<double>(a, b, numeric::min<double>); }
V128 f64x2_max(V128 a, V128 b) { return zip<double>(a, b, numeric::max<double>); }
V128 f64x2_pmin(V128 a, V128 b) { return zip<double>(a, b, pmin<double>); }
V128 f64x2_pmax(V128 a, V128 b) { return zip<double>(a, b, pmax<double>); }
V128 f64x2_sqrt(V128 a) { return map<double>(a, numeric::sqrt<double>); }
V128 f64x2_abs(V128 a) { return map<double>(a, numeric::abs<double>); }
V128 f64x2_neg(V128 a) { return map<double>(a, numeric::neg<double>); }
V128 f64x2_ceil(V128 a) { return map<double>(a, numeric::ceil<double>); }
V128 f64x2_floor(V128 a) { return map<double>(a, numeric::floor<double>); }
V128 f64x2_trunc(V128 a) { return map<double>(a, numeric::trunc<double>); }
V128 f64x2_nearest(V128 a) { return map<double>(a, numeric::nearest<double>); }
V128 f64x2_eq(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x == y; }); }
V128 f64x2_ne(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x != y; }); }
V128 f64x2_lt(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x < y; }); }
V128 f64x2_gt(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x > y; }); }
V128 f64x2_le(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x <= y; }); }
V128 f64x2_ge(V128 a, V128 b) { return compare<double>(a, b, [](double x, double y) { return x >= y; }); }

}  // namespace weft::interpreter::simd
