// Wasm 2.0 fixed-width SIMD in the interpreter: the v128 value as the
// handlers see it, lane views over it, and the declarations of every SIMD
// operation (one function per instruction, listed in simd_ops.def and defined
// by family in simd_memory.cc, simd_lanes.cc, simd_bitwise.cc,
// simd_integer.cc, simd_float.cc and simd_convert.cc).
//
// Why out-of-line functions and not inline code in the dispatch loop: the
// loop is one function holding every handler (execute.cc), and its scalar hot
// path depends on how the compiler allocates registers over all of it. A SIMD
// handler is a call with its operands in registers (a 16-byte struct travels
// in two general registers on x86-64 SysV and AArch64 AAPCS64), so SIMD adds
// no register pressure there. The lane code is portable C++ that GCC and
// clang vectorise for SSE2 and NEON alike; no intrinsics, so the AArch64
// build runs the same code.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/slot.h"

namespace weft::interpreter::simd {

// A v128 value: lanes in little-endian order, `lo` holding bytes 0..7. In a
// frame it occupies two consecutive slots, lo first (the layout the API's
// Value::v128(lo, hi) and the JIT's spill slots use).
struct V128 {
  uint64_t lo;
  uint64_t hi;
};
static_assert(sizeof(V128) == 16 && std::is_trivial_v<V128>);

inline V128 read_v128(const runtime::Slot* slots) { return {slots[0].u64, slots[1].u64}; }
inline void write_v128(runtime::Slot* slots, V128 v) {
  slots[0].u64 = v.lo;
  slots[1].u64 = v.hi;
}

// The value viewed as lanes of T (int8_t … double); copies, so a lane view is
// an ordinary array the compiler keeps in vector registers.
template <class T>
struct Lanes {
  static constexpr int kCount = int(16 / sizeof(T));
  T lane[kCount];
};
template <class T>
inline Lanes<T> lanes(V128 v) {
  Lanes<T> out;
  std::memcpy(out.lane, &v, 16);
  return out;
}
template <class T>
inline V128 pack(const Lanes<T>& in) {
  V128 v;
  std::memcpy(&v, in.lane, 16);
  return v;
}

// Lane-wise application: lane i of the result is op(lane i of the operands),
// converted to T (so an integer op may compute in a wider type and wrap).
template <class T, class Op>
inline V128 map(V128 a, Op op) {
  const Lanes<T> in = lanes<T>(a);
  Lanes<T> out;
  for (int i = 0; i < Lanes<T>::kCount; ++i) out.lane[i] = T(op(in.lane[i]));
  return pack(out);
}
template <class T, class Op>
inline V128 zip(V128 a, V128 b, Op op) {
  const Lanes<T> x = lanes<T>(a), y = lanes<T>(b);
  Lanes<T> out;
  for (int i = 0; i < Lanes<T>::kCount; ++i) out.lane[i] = T(op(x.lane[i], y.lane[i]));
  return pack(out);
}

// ---- declarations, one per instruction (shapes documented in simd_ops.def) ----
#define WEFT_SIMD_LOAD(Name, fn, bytes) V128 fn(const uint8_t* at);
#define WEFT_SIMD_STORE(Name, fn, bytes) void fn(uint8_t* at, V128 v);
#define WEFT_SIMD_LOAD_LANE(Name, fn, bytes) V128 fn(const uint8_t* at, V128 v, uint32_t lane);
#define WEFT_SIMD_STORE_LANE(Name, fn, bytes) void fn(uint8_t* at, V128 v, uint32_t lane);
#define WEFT_SIMD_SPLAT(Name, fn) V128 fn(uint64_t scalar_bits);
#define WEFT_SIMD_EXTRACT(Name, fn) uint64_t fn(V128 v, uint32_t lane);
#define WEFT_SIMD_REPLACE(Name, fn) V128 fn(V128 v, uint64_t scalar_bits, uint32_t lane);
#define WEFT_SIMD_SHUFFLE(Name, fn) V128 fn(V128 a, V128 b, V128 lane_indices);
#define WEFT_SIMD_UNARY(Name, fn) V128 fn(V128 a);
#define WEFT_SIMD_BINARY(Name, fn) V128 fn(V128 a, V128 b);
#define WEFT_SIMD_TERNARY(Name, fn) V128 fn(V128 a, V128 b, V128 c);
#define WEFT_SIMD_SHIFT(Name, fn) V128 fn(V128 a, uint32_t count);
#define WEFT_SIMD_TEST(Name, fn) uint32_t fn(V128 a);
#include "interpreter/simd_ops.def"

}  // namespace weft::interpreter::simd
