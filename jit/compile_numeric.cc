// Numeric instructions: integer arithmetic, comparisons, shifts, division with
// its traps, the integer extensions and the common float operations
// (arithmetic, sqrt, comparisons, sign-bit operations, promote/demote, signed
// int → float; rounding where the backend can) natively; every other
// numeric instruction (min/max, float → int, unsigned int → float) as a call to
// its runtime/numeric.h thunk (numeric_thunks.h).
#include <optional>

#include "jit/compiler.h"
#include "jit/numeric_thunks.h"

namespace weft::jit {

namespace {
bool fits_imm32(uint64_t v, bool wide) { return wide ? int64_t(v) == int64_t(int32_t(v)) : true; }
}  // namespace

bool FunctionCompiler::int_binary_into_set_pin(IntOp op, bool wide) {
  const uint32_t top = height() - 1;
  // The local.set/tee (int_binary_into_pin peeked at it), read in place: the reader's
  // position moves past it only if it is fused here.
  const uint8_t* cursor = reader_.cursor();
  Instruction set;
  bool fp = false;
  static_assert(kImmediateKind[size_t(Opcode::LocalSet)] == ImmKind::LocalIdx &&
                kImmediateKind[size_t(Opcode::LocalTee)] == ImmKind::LocalIdx);
  const bool read = reader_.next_single<ImmKind::LocalIdx>(cursor, set);
  const uint32_t local = read ? local_slot(set.index) : 0;
  const int pin = read ? pinned_register(local, fp) : -1;
  auto is_local = [&](const StackValue& v) { return v.loc == Loc::Local && v.imm == local; };
  // The other operand's position: `local op other`, or `other op local` when op commutes.
  uint32_t other = UINT32_MAX;
  if (pin >= 0 && !fp) {
    if (is_local(stack_[top - 1]))
      other = top;
    else if (op != IntOp::Sub && is_local(stack_[top]))
      other = top - 1;
  }
  if (other == UINT32_MAX) return false;
  reader_.set_cursor(cursor);
  const StackValue v = stack_[other];
  stack_.pop_back();
  stack_.pop_back();
  materialize_local(local);  // older lazy reads of the local keep its old value
  const Reg p = Reg(pin);
  switch (v.loc) {
    case Loc::Const:
      if (fits_imm32(v.imm, wide)) {
        masm_.int_op_imm(op, wide, p, int32_t(uint32_t(v.imm)));
      } else {
        masm_.move_imm(Registers::kScratch, v.imm);
        masm_.int_op(op, wide, p, Registers::kScratch);
      }
      break;
    case Loc::Local:
      if (const int m = mirror_of_local(gpr_mirror_, uint32_t(v.imm)); m >= 0)
        masm_.int_op(op, wide, p, Reg(m));
      else
        masm_.int_op_mem(op, wide, p, Registers::kFrame, slot_disp(uint32_t(v.imm)));
      break;
    case Loc::Reg:
      masm_.int_op(op, wide, p, v.reg);
      free_reg(v.reg);
      break;
    case Loc::Float:  // an integer operand is never a float register's; kept general
      masm_.gpr_from_fp(Registers::kScratch, v.reg);
      free_fp(v.reg);
      masm_.int_op(op, wide, p, Registers::kScratch);
      break;
    case Loc::Slot:
      masm_.int_op_mem(op, wide, p, Registers::kFrame, stack_disp(other));
      break;
    case Loc::Vec:  // never: no integer operation takes a v128
      break;
  }
  masm_.store64(Registers::kFrame, slot_disp(local), p);
  if (set.op == Opcode::LocalTee) push_value(StackValue{Loc::Local, 0, false, local});
  return true;
}

void FunctionCompiler::int_binary(IntOp op, bool wide) {
  if (int_binary_into_pin(op, wide)) return;
  StackValue b = stack_.back();
  if (b.loc == Loc::Const && fits_imm32(b.imm, wide)) {
    stack_.pop_back();
    const int32_t imm = int32_t(uint32_t(b.imm));
    // A local held in a register that stays its own (a pin): one
    // three-operand add (add32_imm, address_of) instead of a copy and the operation.
    if ((op == IntOp::Add || op == IntOp::Sub) && imm != INT32_MIN && stack_.back().loc == Loc::Local) {
      const int m = mirror_of_local(gpr_mirror_, uint32_t(stack_.back().imm));
      if (m >= 0 && !reg_free(Reg(m))) {
        stack_.pop_back();
        const Reg a = alloc_result_reg();
        const int32_t delta = op == IntOp::Add ? imm : -imm;
        if (wide)
          masm_.address_of(a, Reg(m), delta);
        else
          masm_.add32_imm(a, Reg(m), delta);
        push_reg(a);
        return;
      }
    }
    const Reg a = pop_to_result_reg();
    masm_.int_op_imm(op, wide, a, imm);
    push_reg(a);
    return;
  }
  if (b.loc == Loc::Local) {  // the register mirroring the local, or its slot, is the operand
    stack_.pop_back();
    const int m = mirror_of_local(gpr_mirror_, uint32_t(b.imm));
    const bool hold = m >= 0 && reg_free(Reg(m));  // keep `a` out of it
    if (hold) claim_reg(Reg(m));
    const Reg a = pop_to_result_reg();
    if (m >= 0)
      masm_.int_op(op, wide, a, Reg(m));
    else
      masm_.int_op_mem(op, wide, a, Registers::kFrame, slot_disp(uint32_t(b.imm)));
    if (hold) free_reg(Reg(m));
    push_reg(a);
    return;
  }
  // `local op register` or `const op register` when op commutes: the result
  // in the right operand's register, read from the local's register or slot
  // (an address is `base + index`: no copy of the base first).
  const StackValue& a = stack_[height() - 2];
  if (b.loc == Loc::Reg && op != IntOp::Sub &&
      (a.loc == Loc::Local || (a.loc == Loc::Const && fits_imm32(a.imm, wide)))) {
    const Reg r = pop_to_reg();
    const StackValue left = stack_.back();
    stack_.pop_back();
    if (left.loc == Loc::Const) {
      masm_.int_op_imm(op, wide, r, int32_t(uint32_t(left.imm)));
    } else if (const int m = mirror_of_local(gpr_mirror_, uint32_t(left.imm)); m >= 0) {
      masm_.int_op(op, wide, r, Reg(m));
    } else {
      masm_.int_op_mem(op, wide, r, Registers::kFrame, slot_disp(uint32_t(left.imm)));
    }
    push_reg(r);
    return;
  }
  Reg rb = pop_to_reg();
  Reg ra = pop_to_result_reg();
  masm_.int_op(op, wide, ra, rb);
  free_reg(rb);
  push_reg(ra);
}

void FunctionCompiler::compare(Cond cond, bool wide) {
  StackValue b = stack_.back();
  Reg a;
  if (b.loc == Loc::Const && fits_imm32(b.imm, wide)) {
    stack_.pop_back();
    a = pop_to_reg();
    masm_.compare_imm(wide, a, int32_t(uint32_t(b.imm)));
  } else if (b.loc == Loc::Local) {
    stack_.pop_back();
    const int m = mirror_of_local(gpr_mirror_, uint32_t(b.imm));
    const bool hold = m >= 0 && reg_free(Reg(m));  // keep `a` out of it
    if (hold) claim_reg(Reg(m));
    a = pop_to_reg();
    if (m >= 0)
      masm_.compare(wide, a, Reg(m));
    else
      masm_.compare_mem(wide, a, Registers::kFrame, slot_disp(uint32_t(b.imm)));
    if (hold) free_reg(Reg(m));
  } else {
    Reg rb = pop_to_reg();
    a = pop_to_reg();
    masm_.compare(wide, a, rb);
    free_reg(rb);
  }
  masm_.set_cond(cond, a);
  push_reg(a);
}

void FunctionCompiler::eqz(bool wide) {
  Reg a = pop_to_reg();
  masm_.test_bits(wide, a, a);
  masm_.set_zero(a, wide);
  push_reg(a);
}

void FunctionCompiler::shift(ShiftOp op, bool wide) {
  // The backends' shifts take the count mod the width, exactly Wasm's `k mod N`.
  StackValue count = stack_.back();
  if (count.loc == Loc::Const) {
    stack_.pop_back();
    Reg a = pop_to_reg();
    masm_.shift_imm(op, wide, a, uint8_t(count.imm & (wide ? 63 : 31)));
    push_reg(a);
    return;
  }
  // A machine that shifts by a fixed count register gets it free, and the
  // shifted value elsewhere.
  constexpr uint32_t fixed = MacroAssembler::kShiftClobbers;
  evict_all(fixed);
  forget_gpr_mirrors(fixed);
  Reg c = pop_to_reg();
  Reg a = pop_to_reg(fixed);
  masm_.shift(op, wide, a, c);
  free_reg(c);
  push_reg(a);
}

// Division by a constant (C's `x / 2`, `i % 8`, `n / 10`): a power of two
// becomes a shift or a mask (rounding toward zero for signed values), 1 and
// -1 need no division at all, and any other divisor but 0 needs neither trap
// check. Returns false, having emitted nothing, when the general path must
// divide: `checked` then says whether it needs the checks (0 traps, and
// a signed division by -1 can overflow).
bool FunctionCompiler::divide_by_constant(bool is_signed, bool wide, bool remainder, bool& checked) {
  const unsigned width = wide ? 64 : 32;
  const uint64_t mask = wide ? ~uint64_t(0) : 0xFFFFFFFFull;
  const uint64_t d = stack_.back().imm & mask;
  if (d == 0) return false;
  const bool minus_one = is_signed && d == mask;
  if (minus_one && !remainder) return false;  // INT_MIN / -1 traps
  const uint64_t sign_bit = uint64_t(1) << (width - 1);
  const bool power_of_two = (d & (d - 1)) == 0 && !(is_signed && d == sign_bit);
  if (minus_one || (power_of_two && d == 1 && remainder)) {  // x rem ±1 = 0
    pop_discard();
    pop_discard();
    push_const(0);
    return true;
  }
  if (!power_of_two) {
    checked = false;
    return false;
  }
  const unsigned k = unsigned(__builtin_ctzll(d));
  pop_discard();
  Reg x = pop_to_reg();
  // `mask_with(r, m)`: r &= m, m being any constant of the operation's width.
  auto mask_with = [&](Reg r, uint64_t m) {
    if (fits_imm32(m, wide)) {
      masm_.int_op_imm(IntOp::And, wide, r, int32_t(uint32_t(m)));
      return;
    }
    Reg t = alloc_reg();
    masm_.move_imm(t, m);
    masm_.int_op(IntOp::And, wide, r, t);
    free_reg(t);
  };
  if (!is_signed) {
    if (remainder)
      mask_with(x, d - 1);
    else if (k)
      masm_.shift_imm(ShiftOp::ShrU, wide, x, uint8_t(k));
    push_reg(x);
    return true;
  }
  if (k == 0) {  // x / 1
    push_reg(x);
    return true;
  }
  // Signed: shifting rounds toward minus infinity, Wasm toward zero, so a
  // negative x first gets d - 1 added: bias = (x >> (width - 1)) >>> (width - k).
  Reg t = alloc_reg();
  masm_.move(t, x);
  masm_.shift_imm(ShiftOp::ShrS, wide, t, uint8_t(width - 1));
  masm_.shift_imm(ShiftOp::ShrU, wide, t, uint8_t(width - k));
  masm_.int_op(IntOp::Add, wide, t, x);
  if (!remainder) {
    masm_.shift_imm(ShiftOp::ShrS, wide, t, uint8_t(k));
    free_reg(x);
    push_reg(t);
    return true;
  }
  mask_with(t, (0 - d) & mask);  // (x + bias) rounded toward zero to a multiple of d
  masm_.int_op(IntOp::Sub, wide, x, t);
  free_reg(t);
  push_reg(x);
  return true;
}

void FunctionCompiler::divide(bool is_signed, bool wide, bool remainder) {
  bool checked = true;
  if (stack_.back().loc == Loc::Const && divide_by_constant(is_signed, wide, remainder, checked)) return;
  // A machine that divides in fixed registers gets them free; dividend and
  // divisor elsewhere. The macro-assembler emits the traps' checks.
  constexpr uint32_t fixed = MacroAssembler::kDivideClobbers;
  evict_all(fixed);
  forget_gpr_mirrors(fixed);
  Reg divisor = pop_to_reg(fixed);
  Reg dividend = pop_to_reg(fixed);
  Label by_zero, overflow;  // bound only when checked
  if (checked) {
    by_zero = trap_label(runtime::TrapKind::IntegerDivideByZero);
    overflow = is_signed && !remainder ? trap_label(runtime::TrapKind::IntegerOverflow) : by_zero;
  }
  Reg result = masm_.divide(is_signed, wide, remainder, dividend, divisor, by_zero, overflow, checked);
  free_reg(divisor);
  free_reg(dividend);
  push_reg(result);
}

void FunctionCompiler::extend(int from_bits, bool wide) {
  Reg a = pop_to_reg();
  masm_.sign_extend(a, a, from_bits, wide);
  if (!wide) masm_.zero_extend32(a, a);
  push_reg(a);
}

// Arithmetic stays in float registers: the result is a Loc::Float stack
// entry, and an operand already in one is used in place (no round trip
// through a general register per operation).
void FunctionCompiler::float_binary(FloatOp op, bool f64) {
  if (stack_.back().loc == Loc::Local) {  // the register mirroring the local is the operand, read in place
    const int m = mirror_of_local(fp_mirror_, uint32_t(stack_.back().imm));
    if (m >= 0) {
      stack_.pop_back();
      const bool hold = !(fp_used_ & (1u << m));  // keep `a` out of it
      if (hold) fp_used_ |= 1u << m;
      FReg a = pop_to_fp();
      masm_.fp_op(op, f64, a, FReg(m));
      if (hold) free_fp(FReg(m));
      push_fp(a);
      return;
    }
  }
  FReg b = pop_to_fp();
  FReg a = pop_to_fp();
  masm_.fp_op(op, f64, a, b);
  free_fp(b);
  push_fp(a);
}

void FunctionCompiler::float_compare(FloatCond cond, bool f64) {
  Reg b = pop_to_reg();
  Reg a = pop_to_reg();
  masm_.float_compare(cond, f64, a, b);
  free_reg(b);
  push_reg(a);
}

void FunctionCompiler::float_copysign(bool f64) {
  Reg b = pop_to_reg();
  Reg a = pop_to_reg();
  masm_.float_copysign(f64, a, b);
  free_reg(b);
  push_reg(a);
}

bool FunctionCompiler::float_unary(Opcode op) {
  // Unary float operations rewrite their one register in place.
  auto in_place = [&](auto emit) {
    Reg a = pop_to_reg();
    emit(a);
    push_reg(a);
    return true;
  };
  // Signed int → float: the result lands in a float register.
  auto convert_s = [&](bool f64, bool wide) {
    Reg a = pop_to_reg();
    FReg x = alloc_fp();
    masm_.fp_convert_s(f64, wide, x, a);
    free_reg(a);
    push_fp(x);
    return true;
  };
  const bool can_round = MacroAssembler::can_round_floats();
  switch (op) {
    case Opcode::F32Sqrt: case Opcode::F64Sqrt: {
      FReg x = pop_to_fp();
      masm_.fp_sqrt(op == Opcode::F64Sqrt, x);
      push_fp(x);
      return true;
    }
    case Opcode::F32Abs: return in_place([&](Reg a) { masm_.float_abs(false, a); });
    case Opcode::F64Abs: return in_place([&](Reg a) { masm_.float_abs(true, a); });
    case Opcode::F32Neg: return in_place([&](Reg a) { masm_.float_neg(false, a); });
    case Opcode::F64Neg: return in_place([&](Reg a) { masm_.float_neg(true, a); });
    case Opcode::F64PromoteF32: return in_place([&](Reg a) { masm_.float_promote(a); });
    case Opcode::F32DemoteF64: return in_place([&](Reg a) { masm_.float_demote(a); });
    case Opcode::F32ConvertI32S: return convert_s(false, false);
    case Opcode::F32ConvertI64S: return convert_s(false, true);
    case Opcode::F64ConvertI32S: return convert_s(true, false);
    case Opcode::F64ConvertI64S: return convert_s(true, true);
    default: break;
  }
  if (!can_round) return false;
  switch (op) {
    case Opcode::F32Ceil: return in_place([&](Reg a) { masm_.float_round(RoundMode::Ceil, false, a); });
    case Opcode::F64Ceil: return in_place([&](Reg a) { masm_.float_round(RoundMode::Ceil, true, a); });
    case Opcode::F32Floor: return in_place([&](Reg a) { masm_.float_round(RoundMode::Floor, false, a); });
    case Opcode::F64Floor: return in_place([&](Reg a) { masm_.float_round(RoundMode::Floor, true, a); });
    case Opcode::F32Trunc: return in_place([&](Reg a) { masm_.float_round(RoundMode::Trunc, false, a); });
    case Opcode::F64Trunc: return in_place([&](Reg a) { masm_.float_round(RoundMode::Trunc, true, a); });
    case Opcode::F32Nearest: return in_place([&](Reg a) { masm_.float_round(RoundMode::Nearest, false, a); });
    case Opcode::F64Nearest: return in_place([&](Reg a) { masm_.float_round(RoundMode::Nearest, true, a); });
    default: return false;
  }
}

void FunctionCompiler::call_thunk(const void* fn, uint32_t operands, bool can_trap) {
  spill_all();
  uint32_t first = height() - operands;
  masm_.address_of(Registers::kArg[0], Registers::kFrame, stack_disp(first));
  masm_.call_absolute(fn);
  reload_pinned_locals();  // kReturn is not among them
  if (can_trap) {
    masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
    masm_.jump_if_nonzero(thunk_trap_);
  }
  truncate(first);
  push_slots(1);
}

bool FunctionCompiler::compile_numeric(Opcode op) {
  switch (op) {
    case Opcode::I32Const: case Opcode::I64Const: case Opcode::F32Const: case Opcode::F64Const:
      return false;  // variables family (constants carry immediates)
    // (integer add, sub, mul, and, or, xor, shifts and rotations, the
    // commonest: read_and_compile's switch)
    case Opcode::I32DivS: divide(true, false, false); return true;
    case Opcode::I32DivU: divide(false, false, false); return true;
    case Opcode::I32RemS: divide(true, false, true); return true;
    case Opcode::I32RemU: divide(false, false, true); return true;
    case Opcode::I64DivS: divide(true, true, false); return true;
    case Opcode::I64DivU: divide(false, true, false); return true;
    case Opcode::I64RemS: divide(true, true, true); return true;
    case Opcode::I64RemU: divide(false, true, true); return true;
    case Opcode::I32Eqz: eqz(false); return true;
    case Opcode::I64Eqz: eqz(true); return true;
    case Opcode::I32Eq: compare(Cond::Eq, false); return true;
    case Opcode::I32Ne: compare(Cond::Ne, false); return true;
    case Opcode::I32LtS: compare(Cond::LtS, false); return true;
    case Opcode::I32LtU: compare(Cond::LtU, false); return true;
    case Opcode::I32GtS: compare(Cond::GtS, false); return true;
    case Opcode::I32GtU: compare(Cond::GtU, false); return true;
    case Opcode::I32LeS: compare(Cond::LeS, false); return true;
    case Opcode::I32LeU: compare(Cond::LeU, false); return true;
    case Opcode::I32GeS: compare(Cond::GeS, false); return true;
    case Opcode::I32GeU: compare(Cond::GeU, false); return true;
    case Opcode::I64Eq: compare(Cond::Eq, true); return true;
    case Opcode::I64Ne: compare(Cond::Ne, true); return true;
    case Opcode::I64LtS: compare(Cond::LtS, true); return true;
    case Opcode::I64LtU: compare(Cond::LtU, true); return true;
    case Opcode::I64GtS: compare(Cond::GtS, true); return true;
    case Opcode::I64GtU: compare(Cond::GtU, true); return true;
    case Opcode::I64LeS: compare(Cond::LeS, true); return true;
    case Opcode::I64LeU: compare(Cond::LeU, true); return true;
    case Opcode::I64GeS: compare(Cond::GeS, true); return true;
    case Opcode::I64GeU: compare(Cond::GeU, true); return true;
    case Opcode::I32WrapI64: {
      Reg a = pop_to_reg();
      masm_.zero_extend32(a, a);
      push_reg(a);
      return true;
    }
    case Opcode::I64ExtendI32U: {
      Reg a = pop_to_reg();
      masm_.zero_extend32(a, a);
      push_reg(a);
      return true;
    }
    case Opcode::I64ExtendI32S: extend(32, true); return true;
    case Opcode::I32Extend8S: extend(8, false); return true;
    case Opcode::I32Extend16S: extend(16, false); return true;
    case Opcode::I64Extend8S: extend(8, true); return true;
    case Opcode::I64Extend16S: extend(16, true); return true;
    case Opcode::I64Extend32S: extend(32, true); return true;
    case Opcode::F32Add: float_binary(FloatOp::Add, false); return true;
    case Opcode::F32Sub: float_binary(FloatOp::Sub, false); return true;
    case Opcode::F32Mul: float_binary(FloatOp::Mul, false); return true;
    case Opcode::F32Div: float_binary(FloatOp::Div, false); return true;
    case Opcode::F64Add: float_binary(FloatOp::Add, true); return true;
    case Opcode::F64Sub: float_binary(FloatOp::Sub, true); return true;
    case Opcode::F64Mul: float_binary(FloatOp::Mul, true); return true;
    case Opcode::F64Div: float_binary(FloatOp::Div, true); return true;
    case Opcode::F32Eq: float_compare(FloatCond::Eq, false); return true;
    case Opcode::F32Ne: float_compare(FloatCond::Ne, false); return true;
    case Opcode::F32Lt: float_compare(FloatCond::Lt, false); return true;
    case Opcode::F32Gt: float_compare(FloatCond::Gt, false); return true;
    case Opcode::F32Le: float_compare(FloatCond::Le, false); return true;
    case Opcode::F32Ge: float_compare(FloatCond::Ge, false); return true;
    case Opcode::F64Eq: float_compare(FloatCond::Eq, true); return true;
    case Opcode::F64Ne: float_compare(FloatCond::Ne, true); return true;
    case Opcode::F64Lt: float_compare(FloatCond::Lt, true); return true;
    case Opcode::F64Gt: float_compare(FloatCond::Gt, true); return true;
    case Opcode::F64Le: float_compare(FloatCond::Le, true); return true;
    case Opcode::F64Ge: float_compare(FloatCond::Ge, true); return true;
    case Opcode::F32Copysign: float_copysign(false); return true;
    case Opcode::F64Copysign: float_copysign(true); return true;
    // Reinterpretations are free: values are bit patterns in 64-bit slots.
    case Opcode::I32ReinterpretF32: case Opcode::F32ReinterpretI32:
    case Opcode::I64ReinterpretF64: case Opcode::F64ReinterpretI64:
      return true;
    default:
      if (float_unary(op)) return true;
      break;
  }
  NumericThunkInfo thunk = numeric_thunk(op);
  if (!thunk.fn) return false;
  call_thunk(reinterpret_cast<const void*>(thunk.fn), thunk.operands, thunk.can_trap);
  return true;
}

}  // namespace weft::jit
