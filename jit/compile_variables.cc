// Constants, locals, globals, drop/select and the reference instructions that
// are plain values (ref.null, ref.is_null, ref.func, ref.as_non_null).
#include "jit/compiler.h"

namespace weft::jit {

Result<void> FunctionCompiler::compile_variable(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  switch (op) {
    // (nop, local.get, local.set, local.tee, global.get, global.set, drop and
    // the constants, the commonest instructions: read_and_compile's switch)
    case Opcode::RefNull:
      push_const(0);
      return {};
    case Opcode::RefFunc: {
      // Function references are FuncInstance pointers; instances never move.
      // The pointer belongs to the instance: into a register now, in the one
      // form a copy of the code for another instance can patch.
      const Reg r = alloc_reg();
      move_instance_word(r, InstanceRef::Function, imm.index);
      push_reg(r);
      return {};
    }
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
    case Opcode::Select: case Opcode::SelectT: {
      if (stack_[height() - 2].vec_hi) {  // (an untyped select may take v128s too)
        select_v128();
        return {};
      }
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
    default:
      handled = false;
      return {};
  }
}

// local.set and local.tee (from read_and_compile's switch).
void FunctionCompiler::set_local(uint32_t index, bool tee) {
  if (local_is_vec(index)) {
    set_v128_local(local_slot(index), tee);
    return;
  }
  const uint32_t local = local_slot(index);
  // The value first (it may read this very local), then older lazy reads
  // of the local, then the store.
  if (stack_.back().loc == Loc::Local && stack_.back().imm == local) {
    Reg r = pop_to_reg();
    push_reg(r);
  }
  const StackValue top = stack_.back();
  stack_.pop_back();
  materialize_local(local);
  push_value(top);
  bool fp_pin = false;
  if (const int pin = pinned_register(local, fp_pin); pin >= 0) {
    set_pinned_local(local, Reg(pin), fp_pin, tee);
    return;
  }
  StackValue& v = stack_.back();
  forget_local_mirrors(local);  // its old value is gone from now on
  if (v.loc == Loc::Float) {  // a float result goes to the local as it is
    masm_.fp_store(Registers::kFrame, slot_disp(local), v.reg);
    record_fp_mirror(v.reg, local);
    if (!tee) pop_discard();
    return;
  }
  if (v.loc == Loc::Const && int64_t(v.imm) == int64_t(int32_t(v.imm))) {
    masm_.store64_imm(Registers::kFrame, slot_disp(local), int32_t(v.imm));
    if (!tee) pop_discard();
    return;
  }
  Reg r = pop_to_reg();
  masm_.store64(Registers::kFrame, slot_disp(local), r);
  record_gpr_mirror(r, local);
  if (tee)
    push_reg(r);
  else
    free_reg(r);
}

void FunctionCompiler::global_get(uint32_t index) {
  // Globals never move: their value's address is a constant.
  runtime::GlobalInstance* g = instance_.globals[index];
  Reg r = alloc_reg();
  load_global_half(r, index * 2);
  push_reg(r);
  if (g->type.type.is_vec()) {  // the high half too
    Reg hi = alloc_reg();
    load_global_half(hi, index * 2 + 1);
    push_reg(hi);
    stack_.back().vec_hi = true;
  }
}

void FunctionCompiler::global_set(uint32_t index) {
  runtime::GlobalInstance* g = instance_.globals[index];
  if (g->type.type.is_vec()) {  // the high half first (it is on top)
    Reg hi = pop_to_reg();
    store_global_half(index * 2 + 1, hi);
    free_reg(hi);
  }
  Reg r = pop_to_reg();
  store_global_half(index * 2, r);
  free_reg(r);
}

// A typed select of two v128s: the stack spilled, the second operand's two
// slots copied over the first's when the condition is zero.
void FunctionCompiler::select_v128() {
  Reg cond = pop_to_reg();
  spill_all();
  const uint32_t b = height() - 2, a = height() - 4;
  Label keep = masm_.new_label();
  masm_.test_bits(false, cond, cond);
  free_reg(cond);
  masm_.jump_if_nonzero(keep);
  for (uint32_t i = 0; i < 2; ++i) {
    masm_.load64(Registers::kScratch, Registers::kFrame, stack_disp(b + i));
    masm_.store64(Registers::kFrame, stack_disp(a + i), Registers::kScratch);
  }
  masm_.bind(keep);
  truncate(b);
}

// local.set/tee of a v128 local (its first slot `local`): the value into a
// vector register first (it may read this very local), then older lazy reads
// of the local, then the store.
void FunctionCompiler::set_v128_local(uint32_t local, bool tee) {
  const FReg x = pop_vec();
  materialize_local(local);
  materialize_local(local + 1);
  masm_.vec_store(Registers::kFrame, slot_disp(local), x);
  forget_local_mirrors(local);
  forget_local_mirrors(local + 1);
  record_fp_mirror(x, local);  // the register mirrors the whole local (pop_vec)
  if (tee)
    push_vec(x);
  else
    free_fp(x);
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
  if (tee) push_value(StackValue{Loc::Local, 0, false, local});
}

}  // namespace weft::jit
