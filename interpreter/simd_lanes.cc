// SIMD lane movement: splat, extract_lane, replace_lane, i8x16.shuffle and
// i8x16.swizzle. Scalars arrive and leave as frame-slot bits: an i32 or f32
// is the low 32 bits of its slot (the high bits are unspecified on input and
// written as zero on output), an i64 or f64 all 64. Lane indices come from
// validated immediates, so they are in range.
#include "interpreter/simd.h"

namespace weft::interpreter::simd {
namespace {

// T is the lane's storage type; the scalar's low sizeof(T) bytes are the lane.
template <class T>
V128 splat(uint64_t scalar_bits) {
  Lanes<T> out;
  for (T& lane : out.lane) lane = T(scalar_bits);
  return pack(out);
}

// Result bits as a slot holds them: Lane is read as-is, then widened to the
// scalar type's width through Scalar (so i8 lanes sign- or zero-extend).
template <class Lane, class Scalar>
uint64_t extract(V128 v, uint32_t lane) {
  return uint64_t(std::make_unsigned_t<Scalar>(Scalar(lanes<Lane>(v).lane[lane])));
}

template <class T>
V128 replace(V128 v, uint64_t scalar_bits, uint32_t lane) {
  Lanes<T> out = lanes<T>(v);
  out.lane[lane] = T(scalar_bits);
  return pack(out);
}

}  // namespace

V128 i8x16_splat(uint64_t bits) { return splat<uint8_t>(bits); }
V128 i16x8_splat(uint64_t bits) { return splat<uint16_t>(bits); }
V128 i32x4_splat(uint64_t bits) { return splat<uint32_t>(bits); }
V128 i64x2_splat(uint64_t bits) { return splat<uint64_t>(bits); }
// Float splats copy bits: a NaN's payload is kept, as the spec's splat does.
V128 f32x4_splat(uint64_t bits) { return splat<uint32_t>(bits); }
V128 f64x2_splat(uint64_t bits) { return splat<uint64_t>(bits); }

uint64_t i8x16_extract_lane_s(V128 v, uint32_t lane) { return extract<int8_t, int32_t>(v, lane); }
uint64_t i8x16_extract_lane_u(V128 v, uint32_t lane) { return extract<uint8_t, uint32_t>(v, lane); }
uint64_t i16x8_extract_lane_s(V128 v, uint32_t lane) { return extract<int16_t, int32_t>(v, lane); }
uint64_t i16x8_extract_lane_u(V128 v, uint32_t lane) { return extract<uint16_t, uint32_t>(v, lane); }
uint64_t i32x4_extract_lane(V128 v, uint32_t lane) { return extract<uint32_t, uint32_t>(v, lane); }
uint64_t i64x2_extract_lane(V128 v, uint32_t lane) { return extract<uint64_t, uint64_t>(v, lane); }
uint64_t f32x4_extract_lane(V128 v, uint32_t lane) { return extract<uint32_t, uint32_t>(v, lane); }
uint64_t f64x2_extract_lane(V128 v, uint32_t lane) { return extract<uint64_t, uint64_t>(v, lane); }

V128 i8x16_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint8_t>(v, bits, lane); }
V128 i16x8_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint16_t>(v, bits, lane); }
V128 i32x4_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint32_t>(v, bits, lane); }
V128 i64x2_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint64_t>(v, bits, lane); }
V128 f32x4_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint32_t>(v, bits, lane); }
V128 f64x2_replace_lane(V128 v, uint64_t bits, uint32_t lane) { return replace<uint64_t>(v, bits, lane); }

// Lane i of the result is byte indices[i] of the 32-byte concatenation a:b
// (indices validated < 32).
V128 i8x16_shuffle(V128 a, V128 b, V128 indices) {
  uint8_t both[32];
  std::memcpy(both, &a, 16);
  std::memcpy(both + 16, &b, 16);
  const Lanes<uint8_t> index = lanes<uint8_t>(indices);
  Lanes<uint8_t> out;
  for (int i = 0; i < 16; ++i) out.lane[i] = both[index.lane[i] & 31];
  return pack(out);
}

// Lane i is byte b[i] of a, or 0 when that index is out of range (≥ 16).
V128 i8x16_swizzle(V128 a, V128 b) {
  const Lanes<uint8_t> bytes = lanes<uint8_t>(a), index = lanes<uint8_t>(b);
  Lanes<uint8_t> out;
  for (int i = 0; i < 16; ++i) out.lane[i] = index.lane[i] < 16 ? bytes.lane[index.lane[i]] : 0;
  return pack(out);
}

}  // namespace weft::interpreter::simd
