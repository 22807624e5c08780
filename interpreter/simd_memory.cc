// SIMD loads and stores: whole vectors, extending loads (load8x8_s …),
// splatting loads, zero-filling loads and single-lane loads/stores. The
// handler has checked the whole access against the memory size; these read
// or write exactly `bytes` (simd_ops.def) bytes at `at`, little-endian, with
// no alignment assumed (Wasm alignment is only a hint).
#include "interpreter/simd.h"

namespace weft::interpreter::simd {
namespace {

template <class T>
T load_scalar(const uint8_t* at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  return v;
}

// load8x8_s and friends: eight bytes as N narrow lanes, each extended to twice its width.
template <class Narrow, class Wide>
V128 load_extend(const uint8_t* at) {
  static_assert(sizeof(Wide) == 2 * sizeof(Narrow));
  Lanes<Wide> out;
  for (int i = 0; i < Lanes<Wide>::kCount; ++i) out.lane[i] = Wide(load_scalar<Narrow>(at + i * sizeof(Narrow)));
  return pack(out);
}

template <class T>
V128 load_splat(const uint8_t* at) {
  const T v = load_scalar<T>(at);
  Lanes<T> out;
  for (T& lane : out.lane) lane = v;
  return pack(out);
}

// load32_zero / load64_zero: the scalar in lane 0, every other byte zero.
template <class T>
V128 load_zero(const uint8_t* at) {
  V128 v{0, 0};
  std::memcpy(&v, at, sizeof(T));
  return v;
}

// The lane index was validated (< lane count) and lane bytes sit at
// lane * sizeof(T) in the little-endian value.
template <class T>
V128 load_lane(const uint8_t* at, V128 v, uint32_t lane) {
  std::memcpy(reinterpret_cast<uint8_t*>(&v) + lane * sizeof(T), at, sizeof(T));
  return v;
}

template <class T>
void store_lane(uint8_t* at, V128 v, uint32_t lane) {
  std::memcpy(at, reinterpret_cast<const uint8_t*>(&v) + lane * sizeof(T), sizeof(T));
}

}  // namespace

V128 v128_load(const uint8_t* at) {
  V128 v;
  std::memcpy(&v, at, 16);
  return v;
}
void v128_store(uint8_t* at, V128 v) { std::memcpy(at, &v, 16); }

V128 v128_load8x8_s(const uint8_t* at) { return load_extend<int8_t, int16_t>(at); }
V128 v128_load8x8_u(const uint8_t* at) { return load_extend<uint8_t, uint16_t>(at); }
V128 v128_load16x4_s(const uint8_t* at) { return load_extend<int16_t, int32_t>(at); }
V128 v128_load16x4_u(const uint8_t* at) { return load_extend<uint16_t, uint32_t>(at); }
V128 v128_load32x2_s(const uint8_t* at) { return load_extend<int32_t, int64_t>(at); }
V128 v128_load32x2_u(const uint8_t* at) { return load_extend<uint32_t, uint64_t>(at); }

V128 v128_load8_splat(const uint8_t* at) { return load_splat<uint8_t>(at); }
V128 v128_load16_splat(const uint8_t* at) { return load_splat<uint16_t>(at); }
V128 v128_load32_splat(const uint8_t* at) { return load_splat<uint32_t>(at); }
V128 v128_load64_splat(const uint8_t* at) { return load_splat<uint64_t>(at); }

V128 v128_load32_zero(const uint8_t* at) { return load_zero<uint32_t>(at); }
V128 v128_load64_zero(const uint8_t* at) { return load_zero<uint64_t>(at); }

V128 v128_load8_lane(const uint8_t* at, V128 v, uint32_t lane) { return load_lane<uint8_t>(at, v, lane); }
V128 v128_load16_lane(const uint8_t* at, V128 v, uint32_t lane) { return load_lane<uint16_t>(at, v, lane); }
V128 v128_load32_lane(const uint8_t* at, V128 v, uint32_t lane) { return load_lane<uint32_t>(at, v, lane); }
V128 v128_load64_lane(const uint8_t* at, V128 v, uint32_t lane) { return load_lane<uint64_t>(at, v, lane); }

void v128_store8_lane(uint8_t* at, V128 v, uint32_t lane) { store_lane<uint8_t>(at, v, lane); }
void v128_store16_lane(uint8_t* at, V128 v, uint32_t lane) { store_lane<uint16_t>(at, v, lane); }
void v128_store32_lane(uint8_t* at, V128 v, uint32_t lane) { store_lane<uint32_t>(at, v, lane); }
void v128_store64_lane(uint8_t* at, V128 v, uint32_t lane) { store_lane<uint64_t>(at, v, lane); }

}  // namespace weft::interpreter::simd
