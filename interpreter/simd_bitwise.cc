// SIMD operations on the whole 128 bits (not, and, andnot, or, xor,
// bitselect, any_true) and the lane tests that reduce a vector to an i32
// (all_true, bitmask).
#include "interpreter/simd.h"

namespace weft::interpreter::simd {
namespace {

template <class T>
uint32_t all_true(V128 v) {
  for (T lane : lanes<T>(v).lane)
    if (lane == 0) return 0;
  return 1;
}

// Bit i of the result is the sign (top) bit of lane i.
template <class T>
uint32_t bitmask(V128 v) {
  using S = std::make_signed_t<T>;
  uint32_t mask = 0;
  const Lanes<T> in = lanes<T>(v);
  for (int i = 0; i < Lanes<T>::kCount; ++i) mask |= uint32_t(S(in.lane[i]) < 0) << i;
  return mask;
}

}  // namespace

V128 v128_not(V128 a) { return {~a.lo, ~a.hi}; }
V128 v128_and(V128 a, V128 b) { return {a.lo & b.lo, a.hi & b.hi}; }
V128 v128_andnot(V128 a, V128 b) { return {a.lo & ~b.lo, a.hi & ~b.hi}; }
V128 v128_or(V128 a, V128 b) { return {a.lo | b.lo, a.hi | b.hi}; }
V128 v128_xor(V128 a, V128 b) { return {a.lo ^ b.lo, a.hi ^ b.hi}; }
// Bits of a where the mask c is 1, of b where it is 0.
V128 v128_bitselect(V128 a, V128 b, V128 c) {
  return {(a.lo & c.lo) | (b.lo & ~c.lo), (a.hi & c.hi) | (b.hi & ~c.hi)};
}
uint32_t v128_any_true(V128 a) { return (a.lo | a.hi) != 0; }

uint32_t i8x16_all_true(V128 a) { return all_true<uint8_t>(a); }
uint32_t i16x8_all_true(V128 a) { return all_true<uint16_t>(a); }
uint32_t i32x4_all_true(V128 a) { return all_true<uint32_t>(a); }
uint32_t i64x2_all_true(V128 a) { return all_true<uint64_t>(a); }

uint32_t i8x16_bitmask(V128 a) { return bitmask<uint8_t>(a); }
uint32_t i16x8_bitmask(V128 a) { return bitmask<uint16_t>(a); }
uint32_t i32x4_bitmask(V128 a) { return bitmask<uint32_t>(a); }
uint32_t i64x2_bitmask(V128 a) { return bitmask<uint64_t>(a); }

}  // namespace weft::interpreter::simd
