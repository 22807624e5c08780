// Calls. A call to a function of the same instance is direct: its first
// arguments go in registers (for_each_register_param), the rest in their
// canonical slots, which become the callee's frame, and `call` enters the
// callee's register entry (FunctionCompiler::register_entry, or the
// executor's stub into the interpreter when it was not compiled). Every other
// callee is entered through FuncInstance::jit_entry with all arguments in
// their slots: its code, or the host adapter that passes the call on to a
// trampoline into the interpreter or the host function
// (FuncInstance::native_entry). Both then check for a trap and reload the
// memory registers and pinned locals.
#include "jit/compiler.h"
#include "jit/context.h"

namespace weft::jit {

namespace {
constexpr Reg kCtx = Registers::kContext, kFp = Registers::kFrame, kCallee = Registers::kCallee;
constexpr const Reg* kArg = Registers::kArg;
int32_t jit_entry_offset() {
  static const int32_t offset = func_entry_offset(&runtime::FuncInstance::jit_entry);
  return offset;
}

}  // namespace

// Before a call of an imported host function (the stack spilled): this
// function's instance into runtime::Store::host_caller, which the host
// function receives as its weft::Caller. (call_indirect's helper does the
// same when the table entry is a host function.)
void FunctionCompiler::record_host_caller() {
  move_instance_word(kArg[0], InstanceRef::HostCaller, 0);
  move_instance_word(kCallee, InstanceRef::Instance, 0);
  masm_.store64(kArg[0], 0, kCallee);
}

void FunctionCompiler::check_call_result() {
  masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
  masm_.jump_if_nonzero(exception_exit(false));
  reload_after_call();
}

// Expects the callee FuncInstance* in kCallee and the stack spilled.
void FunctionCompiler::call_function(const FuncType& type) {
  uint32_t first = height() - slots_of(type.params);
  masm_.address_of(kArg[1], kFp, stack_disp(first));
  masm_.call_indirect_mem(kCallee, jit_entry_offset());
  check_call_result();
  truncate(first);
  push_slots(type.results, slots_of(type.results));
}

void FunctionCompiler::move_to_param(uint32_t position, bool fp, Reg reg) {
  StackValue& v = stack_[position];
  constexpr Reg kFrameReg = Registers::kFrame;
  const FReg x = FReg(reg);
  switch (v.loc) {
    case Loc::Reg:
      if (fp)
        masm_.fp_from_gpr(x, v.reg);
      else
        masm_.move(reg, v.reg);
      free_reg(v.reg);
      break;
    case Loc::Float:
      if (fp)
        masm_.fp_move(x, v.reg);
      else
        masm_.gpr_from_fp(reg, v.reg);
      free_fp(v.reg);
      break;
    case Loc::Const:
      if (fp) {
        masm_.move_imm(Registers::kScratch, v.imm);
        masm_.fp_from_gpr(x, Registers::kScratch);
      } else {
        masm_.move_imm(reg, v.imm);
      }
      break;
    case Loc::Local: {
      // Only pins are mirrors here (call_direct forgot the others).
      const uint32_t local = uint32_t(v.imm);
      if (const int m = mirror_of_local(gpr_mirror_, local); m >= 0) {
        if (fp)
          masm_.fp_from_gpr(x, Reg(m));
        else
          masm_.move(reg, Reg(m));
      } else if (const int f = mirror_of_local(fp_mirror_, local); f >= 0) {
        if (fp)
          masm_.fp_move(x, FReg(f));
        else
          masm_.gpr_from_fp(reg, FReg(f));
      } else if (fp) {
        masm_.fp_load(x, kFrameReg, slot_disp(local));
      } else {
        masm_.load64(reg, kFrameReg, slot_disp(local));
      }
      break;
    }
    case Loc::Slot:
      if (fp)
        masm_.fp_load(x, kFrameReg, stack_disp(position));
      else
        masm_.load64(reg, kFrameReg, stack_disp(position));
      break;
    case Loc::Vec:  // never: a v128 goes in slots (for_each_register_param)
      break;
  }
  v = StackValue{};  // spent: a slot nobody reads
}

FunctionCompiler::DirectTarget FunctionCompiler::direct_target(const runtime::FuncInstance* callee) const {
  if (callee->instance != self_->instance || callee->is_host()) return {};
  return direct_target_of_defined(callee->index - first_defined_);
}

FunctionCompiler::DirectTarget FunctionCompiler::direct_target_of_defined(uint32_t defined) const {
  if (first_entry_.id != UINT32_MAX) return {.label = Label{first_entry_.id + defined}};
  if (defined == self_index_ - first_defined_) return {.label = self_entry_};
  if (direct_slots_) {
    if (const uint8_t* entry = (*compiled_entries_)[defined]) return {.slot_of = defined, .address = entry};
    return {.slot_of = defined, .address = direct_slots_ + size_t(defined) * direct_slot_size_};
  }
  return {};
}

// A call of a function of this instance through its register entry (see the top).
void FunctionCompiler::call_direct(DirectTarget target, const FuncType& type) {
  if (target.label.id != UINT32_MAX) masm_.prefetch_label(target.label);  // read by the call below, after the moves
  const uint32_t params = slots_of(type.params), first = height() - params;
  for (uint32_t i = 0; i < first; ++i) spill(i);
  forget_mirrors();  // what stays are the pins, which no parameter register is
  // Each argument's register as an id (a general register r is r, a float
  // register x is 32 + x), or kInSlot; kMoved once it is in place.
  constexpr int16_t kInSlot = -1, kMoved = -2;
  arg_targets_.assign(params, kInSlot);
  for_each_register_param(type, [&](uint32_t i, bool fp, Reg r) { arg_targets_[i] = int16_t(fp ? 32 + r : r); });
  auto source_of = [&](uint32_t i) {
    const StackValue& v = stack_[first + i];
    return v.loc == Loc::Reg ? int(v.reg) : v.loc == Loc::Float ? 32 + int(v.reg) : -1;
  };
  // The arguments that go in slots first, which may free registers.
  for (uint32_t i = 0; i < params; ++i)
    if (arg_targets_[i] == kInSlot) spill(first + i);
  // Then the register-to-register moves, as a parallel move: each move whose
  // target no other pending move still reads; a cycle is broken by spilling
  // one source (it is loaded below).
  constexpr size_t kMaxMoves = std::size(Registers::kParams) + std::size(Registers::kFloatParams);
  uint32_t pending[kMaxMoves];
  size_t count = 0;
  for (uint32_t i = 0; i < params; ++i)
    if (arg_targets_[i] >= 0 && source_of(i) >= 0) pending[count++] = i;
  while (count > 0) {
    size_t ready = count;
    for (size_t k = 0; k < count && ready == count; ++k) {
      bool read = false;
      for (size_t j = 0; j < count; ++j)
        if (j != k && source_of(pending[j]) == arg_targets_[pending[k]]) read = true;
      if (!read) ready = k;
    }
    const size_t k = ready == count ? 0 : ready;
    const uint32_t i = pending[k];
    if (ready == count) {
      spill(first + i);
    } else {
      move_to_param(first + i, arg_targets_[i] >= 32, Reg(arg_targets_[i] & 31));
      arg_targets_[i] = kMoved;
    }
    --count;
    pending[k] = pending[count];
  }
  // Last the constants, locals and slots: no register is read any more.
  for (uint32_t i = 0; i < params; ++i)
    if (const int target = arg_targets_[i]; target >= 0) move_to_param(first + i, target >= 32, Reg(target & 31));
  masm_.address_of(kArg[1], kFp, stack_disp(first));
  if (target.label.id != UINT32_MAX) {
    masm_.call(target.label);
  } else {
    if (target.slot_of != UINT32_MAX) slot_calls_->emplace_back(target.slot_of, uint32_t(masm_.offset()));
    masm_.call_near(target.address);
  }
  check_call_result();
  truncate(first);
  if (!returns_in_register(type)) {
    push_slots(type.results, slots_of(type.results));
  } else if (type.results[0] == ValType::f32() || type.results[0] == ValType::f64()) {
    push_fp(Registers::kFloatResult);  // also in its slot; the register saves the reload
  } else {
    push_reg(Registers::kResult);
  }
}

// call_indirect's and return_call_indirect's target: the table entry the index
// on top of the stack names, checked (null, bounds, signature: traps) by
// weft_jit_resolve_indirect; leaves the stack spilled and the FuncInstance* in kCallee.
void FunctionCompiler::resolve_indirect_callee(const Instruction& imm) {
  Reg index = pop_to_reg();
  if (instance_.tables[imm.index2]->type.limits.address64)  // an i64 index (memory64)
    trap_if_above_u32(index, runtime::TrapKind::UndefinedElement);
  spill_all();
  masm_.zero_extend32(kArg[3], index);  // first: `index` may be any argument register
  free_reg(index);
  masm_.move(kArg[0], kCtx);
  move_instance_word(kArg[1], InstanceRef::Function, self_index_);
  move_instance_word(kArg[2], InstanceRef::Table, imm.index2);
  if (const uint64_t type_id = instance_value(InstanceRef::TypeId, imm.index); type_id <= uint64_t(INT32_MAX))
    record_narrow(masm_.move_patchable32(kArg[4], uint32_t(type_id)), InstanceRef::TypeId, imm.index);
  else
    move_instance_word(kArg[4], InstanceRef::TypeId, imm.index);
  masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_resolve_indirect));
  masm_.test_bits(true, Registers::kReturn, Registers::kReturn);
  masm_.jump_if_zero(trap_return_);
  masm_.move(kCallee, Registers::kReturn);
}

// call_ref, return_call_ref: the reference on top of the arguments is the
// FuncInstance* to call — null traps. The target may be a host function, so
// the caller is recorded as for call_indirect's. Leaves the stack spilled and
// the FuncInstance* in kCallee.
void FunctionCompiler::reference_callee() {
  const Reg ref = pop_to_reg();
  masm_.test_bits(true, ref, ref);
  masm_.jump_if_zero(trap_label(runtime::TrapKind::NullFunctionReference));
  spill_all();
  static_assert(Registers::kTemp0 != kCallee && Registers::kTemp0 != kArg[0],
                "record_host_caller leaves kTemp0 alone");
  masm_.move(Registers::kTemp0, ref);
  free_reg(ref);
  record_host_caller();
  masm_.move(kCallee, Registers::kTemp0);
}

void FunctionCompiler::tail_call_function(uint32_t params) {
  const uint32_t first = height() - params;
  // The arguments move down to the frame base, in ascending order: every
  // destination lies below its source.
  for (uint32_t i = 0; i < params; ++i) {
    masm_.load64(Registers::kTemp0, kFp, stack_disp(first + i));
    masm_.store64(kFp, slot_disp(i), Registers::kTemp0);
  }
  if (returns_in_register(type_)) {
    // A direct caller takes a one-value result from Registers::kResult, which
    // JIT code and the executor's stubs set and the host adapter does not:
    // a callee that is not JIT code is called, and its result returned. (So
    // this frame stays counted and in a trap's backtrace while it runs.)
    constexpr int32_t host_adapter = int32_t(offsetof(JitContext, host_adapter));
    Label jit_code = masm_.new_label();
    masm_.load64(Registers::kScratch, kCallee, jit_entry_offset());
    masm_.compare_mem64(Registers::kScratch, kCtx, host_adapter);
    masm_.jump_if(Cond::Ne, jit_code);
    masm_.move(kArg[1], kFp);
    masm_.call_indirect_mem(kCallee, jit_entry_offset());
    masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
    masm_.jump_if_nonzero(propagate_);
    masm_.jump(return_label_);  // loads the result from its slot
    masm_.bind(jit_code);
  }
  // The callee's frame is this one, taken before leave_frame restores the
  // caller's; it checks its own frame and depth on entry (its prologue), and
  // counts itself.
  masm_.move(kArg[1], kFp);
  leave_frame();
  masm_.jump_indirect_mem(kCallee, jit_entry_offset());  // it returns to our caller
  truncate(first);
  mark_unreachable();
}

// `call`: straight to a function of this instance, else through the FuncInstance.
void FunctionCompiler::call_index(uint32_t index) {
  if (index >= first_defined_) {  // a function of this instance: its FuncInstance is not read (see defined_type)
    const uint32_t defined = index - first_defined_;
    const FuncType& type = defined_type(defined);
    if (const DirectTarget target = direct_target_of_defined(defined)) {
      call_direct(target, type);
      return;
    }
    spill_all();
    move_instance_word(kCallee, InstanceRef::Function, index);
    call_function(type);
    return;
  }
  runtime::FuncInstance* callee = instance_.functions[index];
  if (const DirectTarget target = direct_target(callee)) {
    call_direct(target, *callee->type);
    return;
  }
  spill_all();
  if (callee->is_host()) record_host_caller();
  move_instance_word(kCallee, InstanceRef::Function, index);
  call_function(*callee->type);
}

Result<void> FunctionCompiler::compile_call(Opcode op, const Instruction& imm, bool& handled) {
  // (call: read_and_compile's switch)
  handled = true;
  switch (op) {
    case Opcode::ReturnCall: {
      runtime::FuncInstance* callee = instance_.functions[imm.index];
      spill_all();
      if (callee->is_host()) record_host_caller();
      move_instance_word(kCallee, InstanceRef::Function, imm.index);
      tail_call_function(callee->param_slots);
      return {};
    }
    case Opcode::ReturnCallIndirect: {
      const FuncType& type = module_.types[imm.index];
      resolve_indirect_callee(imm);
      tail_call_function(slots_of(type.params));
      return {};
    }
    case Opcode::CallIndirect: {
      const FuncType& type = module_.types[imm.index];
      resolve_indirect_callee(imm);
      call_function(type);
      return {};
    }
    case Opcode::CallRef:
    case Opcode::ReturnCallRef: {
      const FuncType& type = module_.types[imm.index];
      reference_callee();
      if (op == Opcode::CallRef)
        call_function(type);
      else
        tail_call_function(slots_of(type.params));
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

}  // namespace weft::jit
