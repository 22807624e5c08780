// Function entry and exit, structured control flow, branches and traps.
//
// Merge state: at every label every operand-stack entry is spilled to its
// canonical slot, so each branch source spills, moves the branch's values to
// the target's slots and jumps (docs/architecture.md, "The baseline JIT").
#include <cstddef>
#include <optional>

#include "jit/compiler.h"
#include "jit/context.h"
#include "runtime/fuel.h"

namespace weft::jit {

namespace {
constexpr Reg kCtx = Registers::kContext, kFp = Registers::kFrame, kScratch = Registers::kScratch;
constexpr int32_t ctx_stack = int32_t(offsetof(JitContext, stack));
constexpr int32_t ctx_native_limit = int32_t(offsetof(JitContext, native_limit));
constexpr int32_t stack_limit = int32_t(offsetof(runtime::ExecStack, limit));
constexpr int32_t ctx_fuel = int32_t(offsetof(JitContext, fuel));
}  // namespace

// The counter is the store's (ctx->fuel), one budget for every fiber.
// Registers are free here (the callers run at function entry, at a spilled
// loop head, or before a helper).
void FunctionCompiler::charge_fuel(uint32_t amount) {
  if (!metered_) return;
  Reg fuel = alloc_reg();
  masm_.load64(kScratch, kCtx, ctx_fuel);
  masm_.load64(fuel, kScratch, 0);
  masm_.compare_imm(true, fuel, int32_t(amount));
  masm_.jump_if(Cond::LtU, out_of_fuel_);
  masm_.int_op_imm(IntOp::Sub, true, fuel, int32_t(amount));
  masm_.store64(kScratch, 0, fuel);
  free_reg(fuel);
}

void FunctionCompiler::check_interrupt() {
  if (!interrupt_flag_) return;
  // The flag's address is fixed for the store's lifetime, as is this code.
  move_instance_word(kScratch, InstanceRef::InterruptFlag, 0);
  masm_.compare8_mem_imm(kScratch, 0, 0);
  masm_.jump_if(Cond::Ne, trap_label(runtime::TrapKind::Interrupted));
}

void FunctionCompiler::charge_fuel_bulk(uint32_t position, uint8_t shift, bool i64_length) {
  if (!metered_) return;
  Reg fuel = alloc_reg(), amount = alloc_reg();
  if (i64_length)
    masm_.load64(amount, kFp, stack_disp(position));
  else
    masm_.load32(amount, kFp, stack_disp(position));
  masm_.shift_imm(ShiftOp::ShrU, true, amount, shift);
  masm_.int_op_imm(IntOp::Add, true, amount, 1);
  masm_.load64(kScratch, kCtx, ctx_fuel);
  masm_.load64(fuel, kScratch, 0);
  masm_.compare(true, fuel, amount);
  masm_.jump_if(Cond::LtU, out_of_fuel_);
  masm_.int_op(IntOp::Sub, true, fuel, amount);
  masm_.store64(kScratch, 0, fuel);
  free_reg(fuel);
  free_reg(amount);
}

// JIT code's own convention (jit/<arch>/registers.h): kContext and kDepth
// are set, the frame comes in kArg[1]. The frame is counted first, so that
// every exit, trap paths included, uncounts it.
void FunctionCompiler::prologue(bool params_in_registers) {
  masm_.enter_frame();
  masm_.move(kFp, Registers::kArg[1]);
  uint64_t register_params = 0;  // bit i: parameter slot i came in a register (set below)
  if (params_in_registers) {
    // Before anything clobbers them: each register argument to its slot (the
    // frame stays the truth for spills, traps and fiber switches) and to its
    // pin, if it has one — straight from the register, not back from memory.
    for_each_register_param(type_, [&](uint32_t i, bool fp, Reg r) {
      if (i < 64) register_params |= uint64_t(1) << i;
      bool pin_fp;
      const int pin = pinned_register(i, pin_fp);
      if (fp) {
        masm_.fp_store(kFp, slot_disp(i), FReg(r));
        if (pin >= 0) masm_.fp_move(FReg(pin), FReg(r));
      } else {
        masm_.store64(kFp, slot_disp(i), r);
        if (pin >= 0) masm_.move(Reg(pin), r);
      }
    });
  }
  // The call depth (max_depth frames counted already), the native stack and
  // the Wasm stack: any exhausted is a call-stack-exhausted trap.
  constexpr Reg t0 = Registers::kTemp0, t1 = Registers::kTemp1, t2 = Registers::kTemp2;
  masm_.check_stack_limits(Registers::kDepth, kCtx, ctx_native_limit, ctx_stack, stack_limit, kFp,
                           slot_disp(frame_slots_), t0, kScratch,
                           trap_label(runtime::TrapKind::CallStackExhausted));
  // Declared locals start at zero — zeroed through the pin of one of them,
  // if one is pinned, so that its register needs nothing more.
  const uint32_t params = self_->param_slots;
  Reg zero = t0;
  for (uint32_t i = 0; i < num_pins_; ++i)
    if (!pins_[i].fp && pins_[i].local >= params) {
      zero = pins_[i].reg;
      break;
    }
  if (num_locals_ > params) {
    masm_.move_imm(zero, 0);
    if (num_locals_ - params <= 16) {
      masm_.store64_run(kFp, slot_disp(params), num_locals_ - params, zero);
    } else {
      Label loop = masm_.new_label();
      masm_.address_of(t1, kFp, slot_disp(params));
      masm_.address_of(t2, kFp, slot_disp(num_locals_));
      masm_.bind(loop);
      masm_.store64(t1, 0, zero);
      masm_.int_op_imm(IntOp::Add, true, t1, 8);
      masm_.compare(true, t1, t2);
      masm_.jump_if(Cond::LtU, loop);
    }
  }
  reload_memory();
  // The pins: a register parameter's was set above, a declared local's is
  // zero like its slot (no reload of the zero just stored), the rest load.
  for (uint32_t i = 0; i < num_pins_; ++i) {
    const PinnedLocal& p = pins_[i];
    const bool in_register = p.local < 64 && (register_params >> p.local & 1);
    if (in_register || (!p.fp && p.reg == zero)) continue;
    if (p.local >= params) {
      if (p.fp)
        masm_.fp_from_gpr(FReg(p.reg), zero);  // still the zero the slots got
      else
        masm_.move_imm(p.reg, 0);
    } else if (p.fp) {
      masm_.fp_load(FReg(p.reg), kFp, slot_disp(p.local));
    } else {
      masm_.load64(p.reg, kFp, slot_disp(p.local));
    }
  }
  charge_fuel(runtime::fuel::entry_cost(function_));
  check_interrupt();
}

void FunctionCompiler::leave_frame() {
  masm_.int_op_imm(IntOp::Add, false, Registers::kDepth, 1);
  masm_.leave_frame();
}

void FunctionCompiler::epilogue_and_stubs() {
  const bool one_result = returns_in_register(type_);
  masm_.bind(result_in_register_);  // return_label_ itself unless one_result
  masm_.move_imm(Registers::kReturn, 0);
  masm_.bind(exit_label_);  // trap paths too, with kReturn = 1
  masm_.count_up_leave_and_return(Registers::kDepth);  // leave_frame(), then the return
  exception_stubs();  // before return_label_'s test: a clause may branch to the function's label
  if (one_result && masm_.referenced(return_label_)) {  // branches that left the result in its slot
    masm_.bind(return_label_);
    if (float_result())
      masm_.fp_load(Registers::kFloatResult, kFp, slot_disp(0));
    else
      masm_.load64(Registers::kResult, kFp, slot_disp(0));
    masm_.jump(result_in_register_);
  }
  fiber_stubs();  // may add trap labels: bound below

  // Traps: depth is not restored on these paths — the host entry resets it.
  // Each path sets kArg[2] to what happened (a trap kind, or kJitUnwindOnly
  // when a callee trapped) and goes to common_trap_, which calls
  // weft_jit_trap once for all of them: `self` and the helper are loaded
  // once per function. The shared stubs only if something jumps to them
  // (each stub's jumps are emitted before the stubs it jumps to are tested);
  // the last stub falls into common_trap_.
  const bool propagate = masm_.referenced(propagate_);
  const bool thunk_trap = masm_.referenced(thunk_trap_);
  const bool out_of_fuel = masm_.referenced(out_of_fuel_);
  const size_t stubs = trap_labels_.size() + propagate + out_of_fuel + thunk_trap;
  size_t placed = 0;
  auto next_stub = [&] {  // after a stub: to common_trap_ unless it is next
    if (++placed < stubs) masm_.jump(common_trap_);
  };
  if (propagate) {
    masm_.bind(propagate_);
    masm_.move_imm(Registers::kArg[2], kJitUnwindOnly);
    next_stub();
  }
  for (const auto& [kind, label] : trap_labels_) {
    masm_.bind(label);
    masm_.move_imm(Registers::kArg[2], uint32_t(kind));
    next_stub();
  }
  if (out_of_fuel) {
    masm_.bind(out_of_fuel_);
    masm_.load64(kScratch, kCtx, ctx_fuel);
    masm_.store64_imm(kScratch, 0, 0);
    masm_.move_imm(Registers::kArg[2], uint32_t(runtime::TrapKind::OutOfFuel));
    next_stub();
  }
  if (thunk_trap) {
    masm_.bind(thunk_trap_);
    masm_.move(Registers::kArg[2], Registers::kReturn);
    masm_.int_op_imm(IntOp::Sub, false, Registers::kArg[2], 1);
    next_stub();
  }
  if (stubs > 0) {  // only the stubs reach common_trap_
    masm_.bind(common_trap_);
    record_word(masm_.call_absolute_with(Registers::kArg[0], kCtx, Registers::kArg[1],
                                         instance_value(InstanceRef::Function, self_index_),
                                         reinterpret_cast<const void*>(&weft_jit_trap)),
                InstanceRef::Function, self_index_);
  }
  if (stubs > 0 || masm_.referenced(trap_return_)) {  // common_trap_ falls through
    masm_.bind(trap_return_);
    masm_.move_imm(Registers::kReturn, 1);
    masm_.jump(exit_label_);
  }
  masm_.place_jump_tables();  // br_table's and dispatch tables, out of the instruction stream
}

bool FunctionCompiler::branch_needs_moves(const ControlFrame& target) const {
  uint32_t arity = target.branch_arity();
  return arity > 0 && target.target_slot != num_locals_ + height() - arity;
}

void FunctionCompiler::move_branch_values(const ControlFrame& target) {
  // Target slots are never above the sources: ascending copies are safe.
  uint32_t arity = target.branch_arity();
  uint32_t from = num_locals_ + height() - arity;
  if (from == target.target_slot) return;
  for (uint32_t i = 0; i < arity; ++i) {
    masm_.load64(kScratch, kFp, slot_disp(from + i));
    masm_.store64(kFp, slot_disp(target.target_slot + i), kScratch);
  }
}

void FunctionCompiler::branch_to(ControlFrame& target) {
  move_branch_values(target);
  masm_.jump(target.label);
}

void FunctionCompiler::else_frame() {
  ControlFrame& f = control_.back();
  if (!f.unreachable) {
    spill_all();
    masm_.jump(f.label);
  }
  masm_.bind(f.else_label);
  truncate(f.height);
  push_frame_values(f, true);  // spilled at the `if`
  f.kind = ControlFrame::Kind::Else;
  f.unreachable = false;
}

// A function's one result goes from wherever it is straight to the frame
// base, where the caller reads it, and is popped; the values below it are
// dead (the code returns next), so nothing else is spilled. (They stay on the
// abstract stack: the frames around end as after any branch.)
void FunctionCompiler::return_single_value() {
  const uint32_t slot = control_.front().target_slot;
  // The values below it are dead: the result register may be one of theirs.
  if (float_result()) {
    const FReg x = pop_to_fp();
    masm_.fp_move(Registers::kFloatResult, x);
    free_fp(x);
    masm_.fp_store(kFp, slot_disp(slot), Registers::kFloatResult);
  } else {
    const Reg r = pop_to_reg();
    masm_.move(Registers::kResult, r);
    free_reg(r);
    masm_.store64(kFp, slot_disp(slot), Registers::kResult);
  }
  forget_mirrors();
}

// br_if without a fused compare: the condition tested.
void FunctionCompiler::branch_out_if(uint32_t depth) {
  bool owned = true;
  Reg cond = pop_condition(owned);
  spill_all();
  masm_.test_bits(false, cond, cond);
  if (owned) free_reg(cond);
  ControlFrame& target = control_[control_.size() - 1 - depth];
  if (branch_needs_moves(target)) {
    Label skip = masm_.new_label();
    masm_.jump_if_zero(skip);
    branch_to(target);
    masm_.bind(skip);
  } else {
    masm_.jump_if_nonzero(target.label);
  }
}

void FunctionCompiler::return_from_function() {
  if (control_.front().results == 1) {
    return_single_value();
    masm_.jump(result_in_register_);
  } else {
    spill_all();
    branch_to(control_.front());
  }
  mark_unreachable();
}

void FunctionCompiler::end_frame() {
  const ControlFrame& f = control_.back();  // popped last: nothing below changes control_
  if (f.kind == ControlFrame::Kind::Function && !f.unreachable && f.results == 1) {
    return_single_value();  // falls through to result_in_register_, bound next
    truncate(f.height);
    control_.pop_back();
    return;
  }
  if (!f.unreachable) spill_all();
  truncate(f.height);
  switch (f.kind) {
    case ControlFrame::Kind::Function:
      if (!f.unreachable) {
        push_frame_values(f, false);
        move_branch_values(f);
        truncate(f.height);
      }
      // return_label_ is bound by epilogue_and_stubs.
      break;
    case ControlFrame::Kind::If:
      masm_.bind(f.else_label);  // no else: params pass through as results
      masm_.bind(f.label);
      break;
    case ControlFrame::Kind::Block: case ControlFrame::Kind::Else: case ControlFrame::Kind::Handle:
      masm_.bind(f.label);
      break;
    case ControlFrame::Kind::TryTable:
      try_stack_.pop_back();  // the code after it is not in its body
      masm_.bind(f.label);
      break;
    case ControlFrame::Kind::Loop:
      break;  // its label is the header
  }
  push_frame_values(f, false);
  control_.pop_back();
}

// (Inline in its two callers below: a call per block cost more than the frame's stores.)
void FunctionCompiler::push_frame(ControlFrame::Kind kind, const ControlFrame& signature, Label label,
                                  Label else_label) {
  // Made in place, field by field: copying a frame just assembled on the
  // stack read its narrow stores back as wide loads, which the processor
  // cannot forward (a stall at every block, loop and if).
  const uint32_t height = this->height() - signature.params;
  ControlFrame& f = control_.emplace_back();
  f.kind = kind;
  f.height = height;
  f.params = signature.params;
  f.results = signature.results;
  f.label = label;
  f.else_label = else_label;
  f.target_slot = num_locals_ + height;
  f.vec_types = signature.vec_types;
}

// block, loop and if: a frame for the construct (if: with its jump to the false arm).
Result<void> FunctionCompiler::open_block(Opcode op, const Instruction& imm) {
  ControlFrame f;
  block_signature(imm.block, f);
  if (op == Opcode::If) {
    bool owned = true;
    Reg cond = pop_condition(owned);
    spill_all();
    masm_.test_bits(false, cond, cond);
    if (owned) free_reg(cond);
    Label else_label = masm_.new_label();
    masm_.jump_if_zero(else_label);  // the false arm when zero
    open_if(f, else_label);
    return {};
  } else if (op == Opcode::Loop) {
    spill_all();
  }
  const Label label = masm_.new_label();
  push_frame(op == Opcode::Block ? ControlFrame::Kind::Block : ControlFrame::Kind::Loop, f, label);
  if (op == Opcode::Loop) {
    // Loop heads are aligned (the backend's kLoopAlignment): where a hot
    // loop's code falls otherwise changed a dispatch loop's speed by up
    // to 2× from one build to the next.
    masm_.align_code(MacroAssembler::kLoopAlignment);
    masm_.bind(label);
    charge_fuel(runtime::fuel::kLoopIteration);  // every branch to the loop head (each iteration) pays
    check_interrupt();
  }
  return {};
}

Result<void> FunctionCompiler::compile_control(Opcode op, const Instruction& imm, bool& handled) {
  // (unreachable, block, loop, if, else, end, the unconditional branch, br_if
  // and return: read_and_compile's switch)
  handled = true;
  switch (op) {
    case Opcode::BrOnNull:
    case Opcode::BrOnNonNull: {
      // [t* ref]: br_on_null branches with t* when ref is null and goes on
      // with ref; br_on_non_null branches with t* ref when it is not, and
      // drops it. The stack is spilled first, so the reference stays in its
      // slot on both paths.
      spill_all();
      const uint32_t ref = height() - 1;
      masm_.load64(kScratch, kFp, stack_disp(ref));
      masm_.test_bits(true, kScratch, kScratch);
      const bool on_null = op == Opcode::BrOnNull;
      if (on_null) truncate(ref);  // the branch carries t* only
      ControlFrame& target = control_[control_.size() - 1 - imm.index];
      if (branch_needs_moves(target)) {
        Label skip = masm_.new_label();
        if (on_null) masm_.jump_if_nonzero(skip);
        else masm_.jump_if_zero(skip);
        branch_to(target);
        masm_.bind(skip);
      } else if (on_null) {
        masm_.jump_if_zero(target.label);
      } else {
        masm_.jump_if_nonzero(target.label);
      }
      if (on_null) push_slots(1);  // not null: the reference goes on
      else truncate(ref);          // null: dropped
      return {};
    }
    case Opcode::BrTable: {
      Reg index = pop_to_reg();
      spill_all();
      uint32_t count = uint32_t(imm.br_targets.size()) - 1;  // the last entry is the default
      // Clamp: any index ≥ count takes the default.
      masm_.zero_extend32(index, index);
      masm_.move_imm(kScratch, count);
      masm_.compare(true, index, kScratch);
      masm_.move_if(Cond::GtU, index, kScratch);
      // An entry jumps straight to its target, unless the branch has to move
      // its values first: then to a stub that moves them and jumps on.
      std::vector<Label>& entries = table_entries_;  // (kept with their capacity: no allocation)
      std::vector<uint8_t>& stub = table_stubs_;
      entries.clear();
      stub.clear();
      for (size_t i = 0; i < imm.br_targets.size(); ++i) {
        const ControlFrame& target = control_[control_.size() - 1 - imm.br_targets[i]];
        stub.push_back(branch_needs_moves(target));
        entries.push_back(stub.back() ? masm_.new_label() : target.label);
      }
      masm_.jump_table(index, entries.data(), uint32_t(entries.size()));
      free_reg(index);
      for (size_t i = 0; i < imm.br_targets.size(); ++i) {
        if (!stub[i]) continue;
        masm_.bind(entries[i]);
        branch_to(control_[control_.size() - 1 - imm.br_targets[i]]);
      }
      mark_unreachable();
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

// After the jump to the false arm (the stack spilled): the frame.
void FunctionCompiler::open_if(const ControlFrame& signature, Label else_label) {
  push_frame(ControlFrame::Kind::If, signature, masm_.new_label(), else_label);
}

// The br_if or if after a fused compare, given how to jump when the
// condition is (or is not) true; the condition's registers are released.
template <class Jump>
Result<void> FunctionCompiler::branch_on_condition(const Jump& jump) {
  Instruction& imm = *instruction_;  // compile()'s (the compare's immediates are done with)
  WEFT_TRY(read_instruction(imm));
  if (imm.op == Opcode::If) {
    ControlFrame f;
    block_signature(imm.block, f);
    Label else_label = masm_.new_label();
    jump(false, else_label);
    open_if(f, else_label);
    return {};
  }
  ControlFrame& target = control_[control_.size() - 1 - imm.index];
  if (branch_needs_moves(target)) {
    Label skip = masm_.new_label();
    jump(false, skip);
    branch_to(target);
    masm_.bind(skip);
  } else {
    jump(true, target.label);
  }
  return {};
}

Result<void> FunctionCompiler::compile_fused_compare(Opcode op, bool& handled) {
  handled = false;
  struct Compare {
    Cond cond;
    bool wide;
    bool eqz;
  };
  std::optional<Compare> c;
  switch (op) {
    case Opcode::I32Eqz: c = Compare{Cond::Eq, false, true}; break;
    case Opcode::I64Eqz: c = Compare{Cond::Eq, true, true}; break;
    case Opcode::I32Eq: c = Compare{Cond::Eq, false, false}; break;
    case Opcode::I32Ne: c = Compare{Cond::Ne, false, false}; break;
    case Opcode::I32LtS: c = Compare{Cond::LtS, false, false}; break;
    case Opcode::I32LtU: c = Compare{Cond::LtU, false, false}; break;
    case Opcode::I32GtS: c = Compare{Cond::GtS, false, false}; break;
    case Opcode::I32GtU: c = Compare{Cond::GtU, false, false}; break;
    case Opcode::I32LeS: c = Compare{Cond::LeS, false, false}; break;
    case Opcode::I32LeU: c = Compare{Cond::LeU, false, false}; break;
    case Opcode::I32GeS: c = Compare{Cond::GeS, false, false}; break;
    case Opcode::I32GeU: c = Compare{Cond::GeU, false, false}; break;
    case Opcode::I64Eq: c = Compare{Cond::Eq, true, false}; break;
    case Opcode::I64Ne: c = Compare{Cond::Ne, true, false}; break;
    case Opcode::I64LtS: c = Compare{Cond::LtS, true, false}; break;
    case Opcode::I64LtU: c = Compare{Cond::LtU, true, false}; break;
    case Opcode::I64GtS: c = Compare{Cond::GtS, true, false}; break;
    case Opcode::I64GtU: c = Compare{Cond::GtU, true, false}; break;
    case Opcode::I64LeS: c = Compare{Cond::LeS, true, false}; break;
    case Opcode::I64LeU: c = Compare{Cond::LeU, true, false}; break;
    case Opcode::I64GeS: c = Compare{Cond::GeS, true, false}; break;
    case Opcode::I64GeU: c = Compare{Cond::GeU, true, false}; break;
    default: return compile_fused_float_compare(op, handled);  // (the integer ones first: most compares)
  }
  const int next = reader_.peek_byte();
  if (next != single_byte_of(Opcode::BrIf) && next != single_byte_of(Opcode::If)) return {};
  handled = true;

  // Operands into registers, the rest of the stack to its slots (as br_if and
  // if do before branching), then the flags — nothing may clobber them
  // between the compare and the jump.
  // A pinned local is compared in its own register (read only, not freed).
  auto pinned_gpr = [&](const StackValue& v) {
    bool fp = false;
    const int pin = v.loc == Loc::Local ? pinned_register(uint32_t(v.imm), fp) : -1;
    return fp ? -1 : pin;
  };
  bool a_pinned = false;
  auto pop_a = [&] {
    if (const int pin = pinned_gpr(stack_.back()); pin >= 0) {
      stack_.pop_back();
      a_pinned = true;
      return Reg(pin);
    }
    return pop_to_reg();
  };
  Reg a, b = 0;
  bool b_in_reg = false, b_pinned = false;
  int32_t b_imm = 0;
  int32_t b_local = -1;  // b is this local's slot, compared in place
  if (c->eqz) {
    a = pop_a();
  } else if (const int pin = pinned_gpr(stack_.back()); pin >= 0) {
    b = Reg(pin);
    b_pinned = true;
    stack_.pop_back();
    a = pop_a();
  } else if (stack_.back().loc == Loc::Local) {
    b_local = int32_t(stack_.back().imm);
    stack_.pop_back();
    a = pop_a();
  } else if (const StackValue& top = stack_.back();
             top.loc == Loc::Const && (c->wide ? int64_t(top.imm) == int64_t(int32_t(top.imm)) : true)) {
    b_imm = int32_t(uint32_t(top.imm));
    stack_.pop_back();
    a = pop_a();
  } else {
    b = pop_to_reg();
    b_in_reg = true;
    a = pop_a();
  }
  spill_all();
  if (c->eqz)
    masm_.test_bits(c->wide, a, a);
  else if (b_local >= 0)
    masm_.compare_mem(c->wide, a, kFp, slot_disp(uint32_t(b_local)));
  else if (b_in_reg || b_pinned)
    masm_.compare(c->wide, a, b);
  else
    masm_.compare_imm(c->wide, a, b_imm);
  if (!a_pinned) free_reg(a);
  if (b_in_reg) free_reg(b);

  const Cond cond = c->cond;
  return branch_on_condition([&](bool when_true, Label to) { masm_.jump_if(when_true ? cond : negate(cond), to); });
}

Result<void> FunctionCompiler::compile_fused_float_compare(Opcode op, bool& handled) {
  handled = false;
  FloatCond cond = FloatCond::Eq;
  bool f64 = false;
  switch (op) {
    case Opcode::F32Eq: cond = FloatCond::Eq; break;
    case Opcode::F32Ne: cond = FloatCond::Ne; break;
    case Opcode::F32Lt: cond = FloatCond::Lt; break;
    case Opcode::F32Gt: cond = FloatCond::Gt; break;
    case Opcode::F32Le: cond = FloatCond::Le; break;
    case Opcode::F32Ge: cond = FloatCond::Ge; break;
    case Opcode::F64Eq: cond = FloatCond::Eq; f64 = true; break;
    case Opcode::F64Ne: cond = FloatCond::Ne; f64 = true; break;
    case Opcode::F64Lt: cond = FloatCond::Lt; f64 = true; break;
    case Opcode::F64Gt: cond = FloatCond::Gt; f64 = true; break;
    case Opcode::F64Le: cond = FloatCond::Le; f64 = true; break;
    case Opcode::F64Ge: cond = FloatCond::Ge; f64 = true; break;
    default: return {};
  }
  const int next = reader_.peek_byte();
  if (next != single_byte_of(Opcode::BrIf) && next != single_byte_of(Opcode::If)) return {};
  handled = true;
  // Operands into float registers (a value computed in one stays there), the
  // rest of the stack to its slots, then the compare and the jump.
  FReg b = pop_to_fp();
  FReg a = pop_to_fp();
  spill_all();
  // Freed now: nothing allocates between here and the jump, which reads them.
  free_fp(a);
  free_fp(b);
  return branch_on_condition(
      [&](bool when_true, Label to) { masm_.fp_branch(cond, f64, a, b, when_true, to); });
}

}  // namespace weft::jit
