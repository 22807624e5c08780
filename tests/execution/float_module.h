// The float module shared by the float tests of every tier
// (tests/execution/code_shapes_test.cc) and the JIT-against-interpreter float
// grid (tests/jit/tier_agreement_test.cc): IEEE binary, compare, unary,
// rounding and conversion operators, one export each; and bit helpers.
#pragma once

#include <bit>
#include <cstdint>

namespace weft::test::float_module {

inline uint64_t f64b(double d) { return std::bit_cast<uint64_t>(d); }
inline uint32_t f32b(float f) { return std::bit_cast<uint32_t>(f); }
inline bool is_arith_nan64(uint64_t b) { return (b & 0x7FF8000000000000ull) == 0x7FF8000000000000ull; }
inline bool is_arith_nan32(uint64_t b) { return (b & 0x7FC00000u) == 0x7FC00000u; }

inline constexpr const char* kFloatWat = R"((module
  (func (export "add") (param f64 f64) (result f64) local.get 0 local.get 1 f64.add)
  (func (export "sub") (param f64 f64) (result f64) local.get 0 local.get 1 f64.sub)
  (func (export "mul") (param f64 f64) (result f64) local.get 0 local.get 1 f64.mul)
  (func (export "div") (param f64 f64) (result f64) local.get 0 local.get 1 f64.div)
  (func (export "copysign") (param f64 f64) (result f64) local.get 0 local.get 1 f64.copysign)
  (func (export "eq") (param f64 f64) (result i32) local.get 0 local.get 1 f64.eq)
  (func (export "ne") (param f64 f64) (result i32) local.get 0 local.get 1 f64.ne)
  (func (export "lt") (param f64 f64) (result i32) local.get 0 local.get 1 f64.lt)
  (func (export "gt") (param f64 f64) (result i32) local.get 0 local.get 1 f64.gt)
  (func (export "le") (param f64 f64) (result i32) local.get 0 local.get 1 f64.le)
  (func (export "ge") (param f64 f64) (result i32) local.get 0 local.get 1 f64.ge)
  (func (export "add32") (param f32 f32) (result f32) local.get 0 local.get 1 f32.add)
  (func (export "sub32") (param f32 f32) (result f32) local.get 0 local.get 1 f32.sub)
  (func (export "mul32") (param f32 f32) (result f32) local.get 0 local.get 1 f32.mul)
  (func (export "div32") (param f32 f32) (result f32) local.get 0 local.get 1 f32.div)
  (func (export "copysign32") (param f32 f32) (result f32) local.get 0 local.get 1 f32.copysign)
  (func (export "eq32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.eq)
  (func (export "ne32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.ne)
  (func (export "lt32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.lt)
  (func (export "gt32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.gt)
  (func (export "le32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.le)
  (func (export "ge32") (param f32 f32) (result i32) local.get 0 local.get 1 f32.ge)
  (func (export "sqrt") (param f64) (result f64) local.get 0 f64.sqrt)
  (func (export "abs") (param f64) (result f64) local.get 0 f64.abs)
  (func (export "neg") (param f64) (result f64) local.get 0 f64.neg)
  (func (export "sqrt32") (param f32) (result f32) local.get 0 f32.sqrt)
  (func (export "abs32") (param f32) (result f32) local.get 0 f32.abs)
  (func (export "neg32") (param f32) (result f32) local.get 0 f32.neg)
  (func (export "nearest") (param f64) (result f64) local.get 0 f64.nearest)
  (func (export "floor") (param f64) (result f64) local.get 0 f64.floor)
  (func (export "ceil32") (param f32) (result f32) local.get 0 f32.ceil)
  (func (export "trunc32") (param f32) (result f32) local.get 0 f32.trunc)
  (func (export "promote") (param f32) (result f64) local.get 0 f64.promote_f32)
  (func (export "demote") (param f64) (result f32) local.get 0 f32.demote_f64)
  (func (export "from_i32") (param i32) (result f64) local.get 0 f64.convert_i32_s)
  (func (export "from_i64") (param i64) (result f64) local.get 0 f64.convert_i64_s)
  (func (export "from_i64_32") (param i64) (result f32) local.get 0 f32.convert_i64_s)
  ;; The f32 result's upper slot half must be clear: an i64 view of the bits.
  (func (export "neg32_wide") (param f32) (result i64)
    local.get 0 f32.neg i32.reinterpret_f32 i64.extend_i32_u
    local.get 0 f32.neg f32.const 1 f32.mul i32.reinterpret_f32 i64.extend_i32_u i64.add)
  ;; Comparisons feeding a branch and constants as operands.
  (func (export "clamp") (param f64) (result f64)
    local.get 0 f64.const 1 f64.gt if (result f64) f64.const 1 else local.get 0 f64.const -1 f64.lt
    if (result f64) f64.const -1 else local.get 0 end end)
))";

}  // namespace weft::test::float_module
