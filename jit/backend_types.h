// The vocabulary shared by the single-pass compiler (jit/compiler.h) and every
// machine backend (jit/x64/, jit/a64/): register ids, Wasm-level conditions
// and operation kinds. A backend's macro-assembler takes these and chooses
// the instructions; the compiler never names a machine register or
// instruction (it uses the roles of jit/<arch>/registers.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/opcodes.h"

namespace weft::jit {

// A general-purpose register id in the backend's hardware numbering.
using Reg = uint8_t;
// A floating-point/vector register id in the backend's hardware numbering.
using FReg = uint8_t;

// Wasm-level integer conditions (signed/unsigned), evaluated on the flags a
// compare left (compare, compare_imm, compare_mem…).
enum class Cond : uint8_t { Eq, Ne, LtS, LtU, GtS, GtU, LeS, LeU, GeS, GeU };

constexpr Cond negate(Cond c) {
  switch (c) {
    case Cond::Eq: return Cond::Ne;
    case Cond::Ne: return Cond::Eq;
    case Cond::LtS: return Cond::GeS;
    case Cond::LtU: return Cond::GeU;
    case Cond::GtS: return Cond::LeS;
    case Cond::GtU: return Cond::LeU;
    case Cond::LeS: return Cond::GtS;
    case Cond::LeU: return Cond::GtU;
    case Cond::GeS: return Cond::LtS;
    case Cond::GeU: return Cond::LtU;
  }
  return c;
}

enum class IntOp : uint8_t { Add, Sub, Mul, And, Or, Xor };

// MacroAssembler::check_stack_limits (jit/macro_assembler_interface.inc) as
// the seven operations it stands for: AArch64's form, and x86-64's when its
// template cannot be used.
template <class Masm, class Label>
void check_stack_limits_one_by_one(Masm& m, Reg depth, Reg ctx, int32_t native_limit, int32_t stack,
                                   int32_t stack_limit, Reg frame, int32_t frame_end, Reg t0, Reg t1, Label overflow) {
  m.count_down(depth, overflow);
  m.compare_stack_pointer(ctx, native_limit);
  m.jump_if_below(overflow);
  m.load64(t1, ctx, stack);
  m.address_of(t0, frame, frame_end);
  m.compare_mem64(t0, t1, stack_limit);
  m.jump_if_above(overflow);
}
enum class ShiftOp : uint8_t { Shl, ShrS, ShrU, Rotl, Rotr };
enum class FloatOp : uint8_t { Add, Sub, Mul, Div };
// Wasm float comparisons: all false on an unordered (NaN) pair except Ne.
enum class FloatCond : uint8_t { Eq, Ne, Lt, Gt, Le, Ge };
// Wasm's four rounding operations (ceil, floor, trunc, nearest-even).
enum class RoundMode : uint8_t { Nearest = 0, Floor = 1, Ceil = 2, Trunc = 3 };

// Width and signedness of a linear-memory access.
enum class MemWidth : uint8_t { U8, S8, U16, S16, U32, S32, U64 };

// i8x16.shuffle's 16 lane indices (0-15: the first operand's lanes, 16-31:
// the second's) as two byte-table lookups, one per operand (as 128-bit
// constants, lo and hi), each index replaced by `none` where the lane comes
// from the other operand (a lookup that yields 0: pshufb's bit 7, tbl's
// out-of-range index).
struct ShuffleTables {
  uint64_t from_a[2] = {0, 0}, from_b[2] = {0, 0};
  bool uses_a = false, uses_b = false;
};
inline ShuffleTables split_shuffle_lanes(const uint8_t* lanes, uint8_t none) {
  ShuffleTables t;
  for (int i = 0; i < 16; ++i) {
    const uint8_t l = lanes[i] & 31;
    const uint64_t a = l < 16 ? l : none, b = l >= 16 ? uint64_t(l - 16) : none;
    t.from_a[i / 8] |= a << (8 * (i % 8));
    t.from_b[i / 8] |= b << (8 * (i % 8));
    t.uses_a |= l < 16;
    t.uses_b |= l >= 16;
  }
  return t;
}

// A set of registers as a bit mask (bit r = register r).
constexpr uint32_t reg_bit(Reg r) { return 1u << r; }

// For the backends' static checks of their register lists (registers.h).
namespace reg_list {
constexpr bool contains(const Reg* begin, const Reg* end, Reg r) {
  for (const Reg* p = begin; p != end; ++p)
    if (*p == r) return true;
  return false;
}
template <size_t N>
constexpr bool contains(const Reg (&list)[N], Reg r) {
  return contains(list, list + N, r);
}
// The list as a mask, and whether it ascends (then its first free register
// is the mask's lowest free bit).
template <class R, size_t N>
constexpr uint32_t mask(const R (&list)[N]) {
  uint32_t bits = 0;
  for (R r : list) bits |= 1u << r;
  return bits;
}
template <class R, size_t N>
constexpr bool ascending(const R (&list)[N]) {
  for (size_t i = 1; i < N; ++i)
    if (list[i] <= list[i - 1]) return false;
  return true;
}
template <size_t N>
constexpr bool distinct(const Reg (&list)[N]) {
  for (size_t i = 0; i < N; ++i)
    for (size_t j = i + 1; j < N; ++j)
      if (list[i] == list[j]) return false;
  return true;
}
}  // namespace reg_list

}  // namespace weft::jit
