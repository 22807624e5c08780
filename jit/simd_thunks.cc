// The SIMD thunks, expanded from interpreter/simd_ops.def, so that the JIT and
// the interpreter share one opcode → function mapping (jit/simd_thunks.h).
#include "jit/simd_thunks.h"

#include "interpreter/simd.h"

namespace weft::jit {

namespace {
namespace simd = interpreter::simd;
using simd::V128;

V128 read(const uint64_t* s) { return {s[0], s[1]}; }
void write(uint64_t* s, V128 v) {
  s[0] = v.lo;
  s[1] = v.hi;
}

// Operands are read before the result is written: it overwrites them.
template <V128 (*F)(const uint8_t*)>
void load(uint64_t* s, uint64_t address, uint64_t) {
  write(s, F(reinterpret_cast<const uint8_t*>(address)));
}
template <void (*F)(uint8_t*, V128)>
void store(uint64_t* s, uint64_t address, uint64_t) {
  F(reinterpret_cast<uint8_t*>(address), read(s + 1));
}
template <V128 (*F)(const uint8_t*, V128, uint32_t)>
void load_lane(uint64_t* s, uint64_t address, uint64_t lane) {
  write(s, F(reinterpret_cast<const uint8_t*>(address), read(s + 1), uint32_t(lane)));
}
template <void (*F)(uint8_t*, V128, uint32_t)>
void store_lane(uint64_t* s, uint64_t address, uint64_t lane) {
  F(reinterpret_cast<uint8_t*>(address), read(s + 1), uint32_t(lane));
}
template <V128 (*F)(uint64_t)>
void splat(uint64_t* s, uint64_t, uint64_t) {
  write(s, F(s[0]));
}
template <uint64_t (*F)(V128, uint32_t)>
void extract(uint64_t* s, uint64_t, uint64_t lane) {
  s[0] = F(read(s), uint32_t(lane));
}
template <V128 (*F)(V128, uint64_t, uint32_t)>
void replace(uint64_t* s, uint64_t, uint64_t lane) {
  write(s, F(read(s), s[2], uint32_t(lane)));
}
// The 16 lane indices come as a third v128 operand (two constant slots).
template <V128 (*F)(V128, V128, V128)>
void ternary(uint64_t* s, uint64_t, uint64_t) {
  write(s, F(read(s), read(s + 2), read(s + 4)));
}
template <V128 (*F)(V128)>
void unary(uint64_t* s, uint64_t, uint64_t) {
  write(s, F(read(s)));
}
template <V128 (*F)(V128, V128)>
void binary(uint64_t* s, uint64_t, uint64_t) {
  write(s, F(read(s), read(s + 2)));
}
template <V128 (*F)(V128, uint32_t)>
void shift(uint64_t* s, uint64_t, uint64_t) {
  write(s, F(read(s), uint32_t(s[2])));
}
template <uint32_t (*F)(V128)>
void test(uint64_t* s, uint64_t, uint64_t) {
  s[0] = F(read(s));
}
}  // namespace

SimdThunkInfo simd_thunk(Opcode op) {
  switch (op) {
#define WEFT_SIMD_LOAD(Name, fn, bytes) \
  case Opcode::Name: return {&load<&simd::fn>, SimdShape::Load, bytes};
#define WEFT_SIMD_STORE(Name, fn, bytes) \
  case Opcode::Name: return {&store<&simd::fn>, SimdShape::Store, bytes};
#define WEFT_SIMD_LOAD_LANE(Name, fn, bytes) \
  case Opcode::Name: return {&load_lane<&simd::fn>, SimdShape::LoadLane, bytes};
#define WEFT_SIMD_STORE_LANE(Name, fn, bytes) \
  case Opcode::Name: return {&store_lane<&simd::fn>, SimdShape::StoreLane, bytes};
#define WEFT_SIMD_SPLAT(Name, fn) \
  case Opcode::Name: return {&splat<&simd::fn>, SimdShape::Splat, 0};
#define WEFT_SIMD_EXTRACT(Name, fn) \
  case Opcode::Name: return {&extract<&simd::fn>, SimdShape::Extract, 0};
#define WEFT_SIMD_REPLACE(Name, fn) \
  case Opcode::Name: return {&replace<&simd::fn>, SimdShape::Replace, 0};
#define WEFT_SIMD_SHUFFLE(Name, fn) \
  case Opcode::Name: return {&ternary<&simd::fn>, SimdShape::Shuffle, 0};
#define WEFT_SIMD_UNARY(Name, fn) \
  case Opcode::Name: return {&unary<&simd::fn>, SimdShape::Unary, 0};
#define WEFT_SIMD_BINARY(Name, fn) \
  case Opcode::Name: return {&binary<&simd::fn>, SimdShape::Binary, 0};
#define WEFT_SIMD_TERNARY(Name, fn) \
  case Opcode::Name: return {&ternary<&simd::fn>, SimdShape::Ternary, 0};
#define WEFT_SIMD_SHIFT(Name, fn) \
  case Opcode::Name: return {&shift<&simd::fn>, SimdShape::Shift, 0};
#define WEFT_SIMD_TEST(Name, fn) \
  case Opcode::Name: return {&test<&simd::fn>, SimdShape::Test, 0};
#include "interpreter/simd_ops.def"
    default: return {};
  }
}

}  // namespace weft::jit
