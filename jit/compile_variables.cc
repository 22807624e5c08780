// Constants, locals, globals, drop/select and the reference instructions that
// are plain values (ref.null, ref.is_null, ref.func, ref.as_non_null).
#include "jit/compiler.h"

namespace weft::jit {

Result<void> FunctionCompiler::compile_variable(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  switch (op) {
    // (local.get, i32.const and i64.const, the commonest instructions,
    // compile_instruction pushes itself.)
    case Opcode::F32Const: case Opcode::F64Const:
      push_const(imm.bits);
      return {};
    case Opcode::RefNull:
      push_const(0);
      return {};
    case Opcode::RefFunc:
      // Function references are FuncInstance pointers; instances never move.
      push_const(reinterpret_cast<uint64_t>(instance_.functions[imm.index]));
      return {};
    case Opcode::RefIsNull: {
      Reg a = pop_to_reg();
      masm_.test_bits(true, a, a);
      masm_.set_zero(a, true);
      push_reg(a);
      return {};
    }
    case Opcode::RefAsNonNull: {
      Reg a = pop_to_reg();
      masm_.test_bits(true, a, a);
      masm_.jump_if_zero(trap_label(runtime::TrapKind::NullReference));
      push_reg(a);
      return {};
    }
    case Opcode::Nop:
      return {};
    case Opcode::Drop:
      pop_discard();
      return {};
    case Opcode::Select: case Opcode::SelectT: {
      Reg cond = pop_to_reg();
      Reg b = pop_to_reg();
      Reg a = pop_to_reg();
      masm_.test_bits(false, cond, cond);
      masm_.move_if_zero(a, b);
      free_reg(cond);
      free_reg(b);
      push_reg(a);
      return {};
    }
    case Opcode::LocalSet: case Opcode::LocalTee: {
      // The value first (it may read this very local), then older lazy reads
      // of the local, then the store.
      if (stack_.back().loc == Loc::Local && stack_.back().imm == imm.index) {
        Reg r = pop_to_reg();
        push_reg(r);
      }
      const StackValue top = stack_.back();
      stack_.pop_back();
      materialize_local(imm.index);
      push_value(top);
      bool fp_pin = false;
      if (const int pin = pinned_register(imm.index, fp_pin); pin >= 0) {
        set_pinned_local(imm.index, Reg(pin), fp_pin, op == Opcode::LocalTee);
        return {};
      }
      StackValue& v = stack_.back();
      forget_local_mirrors(imm.index);  // its old value is gone from now on
      if (v.loc == Loc::Float) {  // a float result goes to the local as it is
        masm_.fp_store(Registers::kFrame, slot_disp(imm.index), v.reg);
        fp_mirror_[v.reg] = int32_t(imm.index);
        mirrors_recorded_ = true;
        if (op == Opcode::LocalSet) pop_discard();
        return {};
      }
      if (v.loc == Loc::Const && int64_t(v.imm) == int64_t(int32_t(v.imm))) {
        masm_.store64_imm(Registers::kFrame, slot_disp(imm.index), int32_t(v.imm));
        if (op == Opcode::LocalSet) pop_discard();
        return {};
      }
      Reg r = pop_to_reg();
      masm_.store64(Registers::kFrame, slot_disp(imm.index), r);
      gpr_mirror_[r] = int32_t(imm.index);
      mirrors_recorded_ = true;
      if (op == Opcode::LocalTee)
        push_reg(r);
      else
        free_reg(r);
      return {};
    }
    case Opcode::GlobalGet: {
      // Globals never move: their value's address is a constant.
      runtime::GlobalInstance* g = instance_.globals[imm.index];
      if (g->type.type.is_vec()) return unsupported("v128 global");
      Reg r = alloc_reg();
      masm_.move_imm(Registers::kScratch, reinterpret_cast<uint64_t>(&g->value[0]));
      masm_.load64(r, Registers::kScratch, 0);
      push_reg(r);
      return {};
    }
    case Opcode::GlobalSet: {
      runtime::GlobalInstance* g = instance_.globals[imm.index];
      if (g->type.type.is_vec()) return unsupported("v128 global");
      Reg r = pop_to_reg();
      masm_.move_imm(Registers::kScratch, reinterpret_cast<uint64_t>(&g->value[0]));
      masm_.store64(Registers::kScratch, 0, r);
      free_reg(r);
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

// The value on top goes to the pin and (write-through) to the slot; a tee
// leaves a lazy read of the local, which the pin serves.
void FunctionCompiler::set_pinned_local(uint32_t local, Reg pin, bool fp, bool tee) {
  const StackValue v = stack_.back();
  if (fp) {
    FReg x = pop_to_fp();
    masm_.fp_move(FReg(pin), x);
    free_fp(x);
    masm_.fp_store(Registers::kFrame, slot_disp(local), FReg(pin));
  } else if (v.loc == Loc::Const) {
    stack_.pop_back();
    masm_.move_imm(pin, v.imm);
    masm_.store64(Registers::kFrame, slot_disp(local), pin);
  } else if (v.loc == Loc::Slot) {
    // A value in its slot (a block's result, say) loads straight into the pin.
    const uint32_t position = height() - 1;
    stack_.pop_back();
    masm_.load64(pin, Registers::kFrame, stack_disp(position));
    masm_.store64(Registers::kFrame, slot_disp(local), pin);
  } else {
    Reg r = pop_to_reg();
    masm_.move(pin, r);
    free_reg(r);
    masm_.store64(Registers::kFrame, slot_disp(local), pin);
  }
  if (tee) push_value(StackValue{Loc::Local, 0, local});
}

}  // namespace weft::jit
