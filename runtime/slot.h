// One 64-bit value slot, viewed as each value type (little-endian: i32/f32
// use the low half): the unit of the interpreter's frames, of the JIT's
// spilled operands and of fiber event payloads. Unions are GCC/Clang's
// sanctioned way to type-pun.
#pragma once

#include <cstdint>

namespace weft::runtime {

union Slot {
  uint64_t u64;
  int64_t i64;
  uint32_t u32;
  int32_t i32;
  float f32;
  double f64;
};
static_assert(sizeof(Slot) == 8);

}  // namespace weft::runtime
