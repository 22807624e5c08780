// Fixed-width SIMD (Wasm 2.0's 0xFD instructions, relaxed SIMD included).
// A v128 is two operand-stack entries, its 64-bit halves (jit/compiler.h,
// StackValue): both Loc::Vec in a vector register, or each half anywhere a
// scalar can be. Three ways to compile an instruction, the first that applies
// (docs/simd.md, "How the JIT compiles it"):
//  - on the halves, in general registers, on every backend (simd_on_halves):
//    v128.const, splats, extract_lane, replace_lane of 32- and 64-bit lanes,
//    v128.not, v128.any_true, splat and zero-extending loads;
//  - in vector registers (pop_vec, push_vec), through the backend's vec_*
//    operations, which answer per instruction whether they have an inline
//    form (docs/simd.md says which each backend has);
//  - a call of the instruction's thunk (jit/simd_thunks.h), the interpreter's
//    function, on the operands in their canonical slots: everything else.
// A thunk's memory access is checked against the memory's size here, always
// explicitly: it is not JIT code, which the guard-region fault handler
// would recognise.
#include "jit/compiler.h"
#include "jit/simd_thunks.h"

namespace weft::jit {

namespace {
constexpr Reg kScratch = Registers::kScratch;
constexpr const Reg* kArg = Registers::kArg;

template <typename Field>
int32_t field_offset(const runtime::MemoryInstance* m, const Field* field) {
  return int32_t(reinterpret_cast<const char*>(field) - reinterpret_cast<const char*>(m));
}
}  // namespace

void FunctionCompiler::push_v128_slots() {
  push_value(StackValue{Loc::Slot, 0, false, 0});
  push_value(StackValue{Loc::Slot, 0, true, 0});
}

FReg FunctionCompiler::pop_vec() {
  const uint32_t lo_position = height() - 2;
  if (stack_[lo_position].loc == Loc::Vec) {
    const FReg x = stack_[lo_position].reg;
    stack_.pop_back();
    stack_.pop_back();
    fp_mirror_[x] = -1;
    return x;
  }
  const StackValue lo = stack_[lo_position], hi = stack_[lo_position + 1];
  const bool local = lo.loc == Loc::Local && hi.loc == Loc::Local && hi.imm == lo.imm + 1;
  // A v128 local just written from a register (set_v128_local) is read from it.
  if (const int m = local ? mirror_of_local(fp_mirror_, uint32_t(lo.imm)) : -1; m >= 0) {
    stack_.pop_back();
    stack_.pop_back();
    if (!(fp_used_ & (1u << m))) {  // free, and still holding the local: take it
      fp_used_ |= 1u << m;
      fp_mirror_[m] = -1;
      return FReg(m);
    }
    const FReg x = alloc_fp();
    masm_.vec_move(x, FReg(m));
    return x;
  }
  const FReg x = alloc_fp();
  if (local) {
    masm_.vec_load(x, Registers::kFrame, slot_disp(uint32_t(lo.imm)));  // a v128 local, straight from its slots
  } else if (lo.loc == Loc::Const && hi.loc == Loc::Const) {
    masm_.vec_constant(x, lo.imm, hi.imm);
  } else if (lo.loc == Loc::Reg && hi.loc == Loc::Reg) {
    masm_.vec_from_gprs(x, lo.reg, hi.reg);  // (not through memory: two 8-byte stores do not forward to a 16-byte load)
    free_reg(lo.reg);
    free_reg(hi.reg);
  } else {
    spill(lo_position);
    spill(lo_position + 1);
    masm_.vec_load(x, Registers::kFrame, stack_disp(lo_position));
  }
  stack_.pop_back();
  stack_.pop_back();
  return x;
}

Reg FunctionCompiler::simd_host_address(const Instruction& imm, uint32_t bytes, uint32_t position) {
  const runtime::MemoryInstance* m = memory_at(imm.memory);
  Reg addr = alloc_reg();
  masm_.load64(addr, Registers::kFrame, stack_disp(position));
  if (m->type.limits.address64)
    trap_if_above_u32(addr, runtime::TrapKind::MemoryOutOfBounds);
  else
    masm_.zero_extend32(addr, addr);
  uint64_t offset = imm.mem_offset;
  if (offset > UINT32_MAX) {  // (a 64-bit memory's) beyond any memory this engine makes
    masm_.jump(trap_label(runtime::TrapKind::MemoryOutOfBounds));
    offset = 0;
  }
  if (offset != 0) {  // addr + offset: below 2^33, no overflow
    masm_.move_imm(kScratch, offset);
    masm_.int_op(IntOp::Add, true, addr, kScratch);
  }
  Reg base = Registers::kMemoryBase, size = Registers::kMemorySize;
  if (imm.memory != 0) {
    base = alloc_reg();
    size = alloc_reg();
    move_instance_word(base, InstanceRef::Memory, imm.memory);
    masm_.load64(size, base, field_offset(m, &m->size_bytes));
    masm_.load64(base, base, field_offset(m, &m->data));
  }
  masm_.address_of(kScratch, addr, int32_t(bytes));
  masm_.compare(true, kScratch, size);
  masm_.jump_if_above(trap_label(runtime::TrapKind::MemoryOutOfBounds));
  masm_.int_op(IntOp::Add, true, addr, base);
  if (imm.memory != 0) {
    free_reg(base);
    free_reg(size);
  }
  return addr;
}

Result<void> FunctionCompiler::compile_simd(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  if (op == Opcode::V128Const) {
    uint64_t lo, hi;
    std::memcpy(&lo, imm.bytes16, 8);
    std::memcpy(&hi, imm.bytes16 + 8, 8);
    push_const(lo);
    push_const(hi);
    stack_.back().vec_hi = true;
    return {};
  }
  const SimdThunkInfo thunk = simd_thunk(op);
  if (simd_on_halves(op, imm)) return {};
  if (thunk.shape == SimdShape::Binary && masm_.vec_binary(op, 0, 0, /*emit=*/false)) {
    const FReg b = pop_vec();
    const FReg a = pop_vec();
    masm_.vec_binary(op, a, b, /*emit=*/true);
    free_fp(b);
    push_vec(a);
    return {};
  }
  if (thunk.shape == SimdShape::Unary && masm_.vec_unary(op, 0, false)) {
    const FReg a = pop_vec();
    masm_.vec_unary(op, a, true);
    push_vec(a);
    return {};
  }
  if (thunk.shape == SimdShape::Shift && masm_.vec_shift(op, 0, 0, false)) {
    const Reg count = pop_to_reg();
    const FReg a = pop_vec();
    masm_.vec_shift(op, a, count, true);
    free_reg(count);
    push_vec(a);
    return {};
  }
  if (thunk.shape == SimdShape::Test && masm_.vec_test(op, 0, 0, false)) {
    const FReg a = pop_vec();
    const Reg r = alloc_reg();
    masm_.vec_test(op, r, a, true);
    free_fp(a);
    push_reg(r);
    return {};
  }
  if (thunk.shape == SimdShape::Shuffle) {
    const FReg b = pop_vec();
    const FReg a = pop_vec();
    masm_.vec_shuffle(a, b, imm.bytes16);
    free_fp(b);
    push_vec(a);
    return {};
  }
  if (thunk.shape == SimdShape::Load && imm.memory == 0 && masm_.vec_load_extend(op, 0, 0, 0, 0, false)) {
    const auto [addr, base, disp] = pop_checked_address(imm, thunk.bytes);
    const FReg x = alloc_fp();
    masm_.vec_load_extend(op, x, base, addr, disp, true);
    free_reg(addr);
    push_vec(x);
    return {};
  }
  // (weft's relaxed_laneselect is v128.bitselect: every bit of the mask counts.)
  if (op == Opcode::V128Bitselect || op == Opcode::I8x16RelaxedLaneselect || op == Opcode::I16x8RelaxedLaneselect ||
      op == Opcode::I32x4RelaxedLaneselect || op == Opcode::I64x2RelaxedLaneselect) {
    const FReg mask = pop_vec();
    const FReg b = pop_vec();
    const FReg a = pop_vec();
    masm_.vec_bitselect(a, b, mask);
    free_fp(b);
    free_fp(mask);
    push_vec(a);
    return {};
  }
  uint32_t operands = 0, results = 2;  // in slots
  switch (thunk.shape) {
    case SimdShape::None: handled = false; return {};
    case SimdShape::Load: operands = 1; break;
    case SimdShape::Store: operands = 3; results = 0; break;
    case SimdShape::LoadLane: operands = 3; break;
    case SimdShape::StoreLane: operands = 3; results = 0; break;
    case SimdShape::Splat: operands = 1; break;
    case SimdShape::Extract: operands = 2; results = 1; break;
    case SimdShape::Replace: operands = 3; break;
    case SimdShape::Shuffle: break;  // (always inline, above)
    case SimdShape::Unary: operands = 2; break;
    case SimdShape::Binary: operands = 4; break;
    case SimdShape::Ternary: operands = 6; break;
    case SimdShape::Shift: operands = 3; break;
    case SimdShape::Test: operands = 2; results = 1; break;
  }
  spill_all();
  const uint32_t first = height() - operands;
  const bool memory = thunk.shape == SimdShape::Load || thunk.shape == SimdShape::Store ||
                      thunk.shape == SimdShape::LoadLane || thunk.shape == SimdShape::StoreLane;
  if (memory) {
    const Reg address = simd_host_address(imm, thunk.bytes, first);
    masm_.move(kArg[1], address);
    free_reg(address);
  }
  masm_.address_of(kArg[0], Registers::kFrame, stack_disp(first));
  masm_.move_imm(kArg[2], imm.lane);
  masm_.call_absolute(reinterpret_cast<const void*>(thunk.fn));
  reload_pinned_locals();  // (the memory registers hold: thunks do not grow memory)
  truncate(first);
  if (results == 2)
    push_v128_slots();
  else if (results == 1)
    push_slots(1);
  return {};
}


bool FunctionCompiler::simd_on_halves(Opcode op, const Instruction& imm) {
  // Pushes a v128 whose halves are in the registers lo and hi.
  auto push_halves = [&](Reg lo, Reg hi) {
    push_reg(lo);
    push_reg(hi);
    stack_.back().vec_hi = true;
  };
  // Both halves hold the 64-bit pattern in `r`; a second register gets a copy.
  auto push_twice = [&](Reg r) {
    const Reg copy = alloc_reg(reg_bit(r));
    masm_.move(copy, r);
    push_halves(r, copy);
  };
  // A lane of `bits` bits in `r` (the rest zero) repeated over all 64 bits.
  auto repeat_lane = [&](Reg r, int bits) {
    if (bits == 64) return;
    if (bits == 32) {
      const Reg t = alloc_reg(reg_bit(r));
      masm_.move(t, r);
      masm_.shift_imm(ShiftOp::Shl, true, t, 32);
      masm_.int_op(IntOp::Or, true, r, t);
      free_reg(t);
      return;
    }
    const Reg t = alloc_reg(reg_bit(r));
    masm_.move_imm(t, bits == 16 ? 0x0001000100010001ull : 0x0101010101010101ull);
    masm_.int_op(IntOp::Mul, true, r, t);
    free_reg(t);
  };
  int lane_bits = 0;
  bool sign = false, is_splat = false, is_extract = false, is_replace = false;
  switch (op) {
    case Opcode::I8x16Splat: lane_bits = 8; is_splat = true; break;
    case Opcode::I16x8Splat: lane_bits = 16; is_splat = true; break;
    case Opcode::I32x4Splat: case Opcode::F32x4Splat: lane_bits = 32; is_splat = true; break;
    case Opcode::I64x2Splat: case Opcode::F64x2Splat: lane_bits = 64; is_splat = true; break;
    case Opcode::I8x16ExtractLaneS: lane_bits = 8; sign = true; is_extract = true; break;
    case Opcode::I8x16ExtractLaneU: lane_bits = 8; is_extract = true; break;
    case Opcode::I16x8ExtractLaneS: lane_bits = 16; sign = true; is_extract = true; break;
    case Opcode::I16x8ExtractLaneU: lane_bits = 16; is_extract = true; break;
    case Opcode::I32x4ExtractLane: case Opcode::F32x4ExtractLane: lane_bits = 32; is_extract = true; break;
    case Opcode::I64x2ExtractLane: case Opcode::F64x2ExtractLane: lane_bits = 64; is_extract = true; break;
    case Opcode::I32x4ReplaceLane: case Opcode::F32x4ReplaceLane: lane_bits = 32; is_replace = true; break;
    case Opcode::I64x2ReplaceLane: case Opcode::F64x2ReplaceLane: lane_bits = 64; is_replace = true; break;
    default: break;
  }
  if (is_splat) {
    const Reg r = pop_to_reg();
    if (lane_bits == 32)
      masm_.zero_extend32(r, r);
    else if (lane_bits < 32)
      masm_.zero_extend_narrow(r, r, lane_bits);
    repeat_lane(r, lane_bits);
    push_twice(r);
    return true;
  }
  if (is_extract) {
    const uint32_t bit = uint32_t(imm.lane) * uint32_t(lane_bits);  // of the whole v128
    Reg r;
    if (bit >= 64) {  // the high half, on top
      r = pop_to_reg();
      pop_discard();
    } else {
      pop_discard();
      r = pop_to_reg();
    }
    if (bit % 64) masm_.shift_imm(ShiftOp::ShrU, true, r, uint8_t(bit % 64));
    if (lane_bits < 32 && sign)
      masm_.sign_extend(r, r, lane_bits, false);
    else if (lane_bits < 32)
      masm_.zero_extend_narrow(r, r, lane_bits);
    else if (lane_bits == 32)
      masm_.zero_extend32(r, r);
    push_reg(r);
    return true;
  }
  if (is_replace) {
    const bool high_half = uint32_t(imm.lane) * uint32_t(lane_bits) >= 64;
    // A v128 in a vector register goes to its slots first: its halves are
    // handled separately below.
    if (stack_[height() - 3].loc == Loc::Vec) spill(height() - 3);
    if (lane_bits == 64) {  // the scalar becomes that half: entries move, no code
      if (stack_.back().loc == Loc::Slot) push_reg(pop_to_reg());  // (a slot is where it is: it cannot move)
      StackValue scalar = stack_.back();
      stack_.pop_back();
      StackValue hi = stack_.back();
      stack_.pop_back();
      StackValue lo = stack_.back();
      stack_.pop_back();
      (high_half ? hi : lo) = scalar;
      lo.vec_hi = false;
      hi.vec_hi = true;
      push_value(lo);
      push_value(hi);
      return true;
    }
    // 32-bit lanes: the half with the lane, its other 32 bits kept.
    const Reg value = pop_to_reg();
    masm_.zero_extend32(value, value);
    Reg other = kNoReg;
    if (!high_half) {  // the low half is under the high one
      other = pop_to_reg(reg_bit(value));
    }
    const Reg half = pop_to_reg(reg_bit(value) | (other == kNoReg ? 0 : reg_bit(other)));
    const bool upper = imm.lane % 2 == 1;  // the lane's 32 bits within the half
    if (upper) {
      masm_.zero_extend32(half, half);
      masm_.shift_imm(ShiftOp::Shl, true, value, 32);
    } else {
      masm_.shift_imm(ShiftOp::ShrU, true, half, 32);
      masm_.shift_imm(ShiftOp::Shl, true, half, 32);
    }
    masm_.int_op(IntOp::Or, true, half, value);
    free_reg(value);
    if (high_half) {
      push_reg(half);
      stack_.back().vec_hi = true;
    } else {
      push_halves(half, other);
    }
    return true;
  }
  switch (op) {
    case Opcode::V128Not: {
      const Reg hi = pop_to_reg();
      const Reg lo = pop_to_reg(reg_bit(hi));
      masm_.int_op_imm(IntOp::Xor, true, lo, -1);
      masm_.int_op_imm(IntOp::Xor, true, hi, -1);
      push_halves(lo, hi);
      return true;
    }
    case Opcode::V128AnyTrue: {
      const Reg hi = pop_to_reg();
      const Reg lo = pop_to_reg(reg_bit(hi));
      masm_.int_op(IntOp::Or, true, lo, hi);
      free_reg(hi);
      masm_.compare_imm(true, lo, 0);
      masm_.set_cond(Cond::Ne, lo);
      push_reg(lo);
      return true;
    }
    case Opcode::V128Store: {
      if (imm.memory != 0) return false;
      const FReg value = pop_vec();
      const auto [addr, base, disp] = pop_checked_address(imm, 16);
      // One store: with a guard region, an access past the end faults before
      // it writes anything.
      masm_.vec_store_mem(base, addr, disp, value);
      free_reg(addr);
      free_fp(value);
      return true;
    }
    case Opcode::V128Load8Splat: case Opcode::V128Load16Splat: {
      if (imm.memory != 0) return false;
      const bool bytes = op == Opcode::V128Load8Splat;
      const auto [addr, base, disp] = pop_checked_address(imm, bytes ? 1 : 2);
      masm_.load_mem(bytes ? MemWidth::U8 : MemWidth::U16, addr, base, addr, disp);
      repeat_lane(addr, bytes ? 8 : 16);
      push_twice(addr);
      return true;
    }
    case Opcode::V128Load: case Opcode::V128Load64Zero: case Opcode::V128Load32Zero:
    case Opcode::V128Load64Splat: case Opcode::V128Load32Splat: {
      if (imm.memory != 0) return false;
      const bool whole = op == Opcode::V128Load, narrow = op == Opcode::V128Load32Zero || op == Opcode::V128Load32Splat;
      const auto [addr, base, disp] = pop_checked_address(imm, whole ? 16 : narrow ? 4 : 8);
      if (whole) {
        const FReg x = alloc_fp();
        masm_.vec_load_mem(x, base, addr, disp);
        free_reg(addr);
        push_vec(x);
        return true;
      }
      const Reg lo = alloc_reg(reg_bit(addr));
      masm_.load_mem(narrow ? MemWidth::U32 : MemWidth::U64, lo, base, addr, disp);
      if (op == Opcode::V128Load64Zero || op == Opcode::V128Load32Zero) {
        free_reg(addr);
        push_reg(lo);
        push_const(0);
        stack_.back().vec_hi = true;
      } else {
        free_reg(addr);
        if (narrow) repeat_lane(lo, 32);
        push_twice(lo);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace weft::jit
