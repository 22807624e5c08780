// SIMD conversions between lane shapes: narrow (saturating), extend low/high,
// float → int trunc_sat, int → float convert, f64x2 → f32x4 demote (upper
// lanes zero) and f32x4 → f64x2 promote (lower lanes). Per lane, the scalar
// instructions' exact implementations from runtime/numeric.h.
#include <algorithm>
#include <limits>

#include "interpreter/simd.h"
#include "runtime/numeric.h"

namespace weft::interpreter::simd {
namespace {

// narrow: the lanes of a, then of b, each signed Wide value clamped to the
// range of Out (signed, or unsigned for the _u forms: negatives become 0).
template <class Wide, class Out>
V128 narrow(V128 a, V128 b) {
  const Lanes<Wide> x = lanes<Wide>(a), y = lanes<Wide>(b);
  constexpr int kHalf = Lanes<Wide>::kCount;
  auto clamp = [](Wide v) {
    return Out(std::clamp<Wide>(v, Wide(std::numeric_limits<Out>::min()), Wide(std::numeric_limits<Out>::max())));
  };
  Lanes<Out> out;
  for (int i = 0; i < kHalf; ++i) {
    out.lane[i] = clamp(x.lane[i]);
    out.lane[kHalf + i] = clamp(y.lane[i]);
  }
  return pack(out);
}

// Lanes [first, first + count) of the operand viewed as In, each converted
// by `op` into lanes 0 .. count-1 of Out; the remaining Out lanes are zero
// (the _zero forms). Extension is a plain widening cast: In's signedness
// decides sign or zero extension.
template <class In, class Out, class Op>
V128 convert(V128 a, int first, int count, Op op) {
  const Lanes<In> in = lanes<In>(a);
  Lanes<Out> out{};
  for (int i = 0; i < count; ++i) out.lane[i] = Out(op(in.lane[first + i]));
  return pack(out);
}
template <class Narrow, class Wide> V128 extend_low(V128 a) {
  return convert<Narrow, Wide>(a, 0, Lanes<Wide>::kCount, [](Narrow x) { return Wide(x); });
}
template <class Narrow, class Wide> V128 extend_high(V128 a) {
  return convert<Narrow, Wide>(a, Lanes<Wide>::kCount, Lanes<Wide>::kCount, [](Narrow x) { return Wide(x); });
}

}  // namespace

V128 i8x16_narrow_i16x8_s(V128 a, V128 b) { return narrow<int16_t, int8_t>(a, b); }
V128 i8x16_narrow_i16x8_u(V128 a, V128 b) { return narrow<int16_t, uint8_t>(a, b); }
V128 i16x8_narrow_i32x4_s(V128 a, V128 b) { return narrow<int32_t, int16_t>(a, b); }
V128 i16x8_narrow_i32x4_u(V128 a, V128 b) { return narrow<int32_t, uint16_t>(a, b); }

V128 i16x8_extend_low_i8x16_s(V128 a) { return extend_low<int8_t, int16_t>(a); }
V128 i16x8_extend_high_i8x16_s(V128 a) { return extend_high<int8_t, int16_t>(a); }
V128 i16x8_extend_low_i8x16_u(V128 a) { return extend_low<uint8_t, uint16_t>(a); }
V128 i16x8_extend_high_i8x16_u(V128 a) { return extend_high<uint8_t, uint16_t>(a); }
V128 i32x4_extend_low_i16x8_s(V128 a) { return extend_low<int16_t, int32_t>(a); }
V128 i32x4_extend_high_i16x8_s(V128 a) { return extend_high<int16_t, int32_t>(a); }
V128 i32x4_extend_low_i16x8_u(V128 a) { return extend_low<uint16_t, uint32_t>(a); }
V128 i32x4_extend_high_i16x8_u(V128 a) { return extend_high<uint16_t, uint32_t>(a); }
V128 i64x2_extend_low_i32x4_s(V128 a) { return extend_low<int32_t, int64_t>(a); }
V128 i64x2_extend_high_i32x4_s(V128 a) { return extend_high<int32_t, int64_t>(a); }
V128 i64x2_extend_low_i32x4_u(V128 a) { return extend_low<uint32_t, uint64_t>(a); }
V128 i64x2_extend_high_i32x4_u(V128 a) { return extend_high<uint32_t, uint64_t>(a); }

// Storage type uint32_t for the i32 lanes: numeric.h's conversions take the
// signedness from the instruction (trunc_sat_s / convert_s), not the type.
V128 i32x4_trunc_sat_f32x4_s(V128 a) { return convert<float, uint32_t>(a, 0, 4, numeric::trunc_sat_s<uint32_t, float>); }
V128 i32x4_trunc_sat_f32x4_u(V128 a) { return convert<float, uint32_t>(a, 0, 4, numeric::trunc_sat_u<uint32_t, float>); }
// The _zero forms convert the two f64 lanes into i32 lanes 0 and 1; lanes 2 and 3 are 0.
V128 i32x4_trunc_sat_f64x2_s_zero(V128 a) {
  return convert<double, uint32_t>(a, 0, 2, numeric::trunc_sat_s<uint32_t, double>);
}
V128 i32x4_trunc_sat_f64x2_u_zero(V128 a) {
  return convert<double, uint32_t>(a, 0, 2, numeric::trunc_sat_u<uint32_t, double>);
}
V128 f32x4_convert_i32x4_s(V128 a) { return convert<uint32_t, float>(a, 0, 4, numeric::convert_s<float, uint32_t>); }
V128 f32x4_convert_i32x4_u(V128 a) { return convert<uint32_t, float>(a, 0, 4, numeric::convert_u<float, uint32_t>); }
// convert_low: i32 lanes 0 and 1 to the two f64 lanes (exact).
V128 f64x2_convert_low_i32x4_s(V128 a) { return convert<uint32_t, double>(a, 0, 2, numeric::convert_s<double, uint32_t>); }
V128 f64x2_convert_low_i32x4_u(V128 a) { return convert<uint32_t, double>(a, 0, 2, numeric::convert_u<double, uint32_t>); }
// demote: the two f64 lanes to f32 lanes 0 and 1, lanes 2 and 3 +0.0;
// promote: f32 lanes 0 and 1 to the two f64 lanes.
V128 f32x4_demote_f64x2_zero(V128 a) { return convert<double, float>(a, 0, 2, numeric::demote); }
V128 f64x2_promote_low_f32x4(V128 a) { return convert<float, double>(a, 0, 2, numeric::promote); }

}  // namespace weft::interpreter::simd
