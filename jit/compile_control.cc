// Function entry and exit, structured control flow, branches and traps.
//
// Merge state: at every label every operand-stack entry is spilled to its
// canonical slot, so each branch source spills, moves the branch's values to
// the target's slots and jumps (docs/architecture.md, "The baseline JIT").
#include <cstddef>

#include "jit/compiler.h"
#include "jit/context.h"

namespace weft::jit {

namespace reg = x64::reg;

namespace {
constexpr Reg kSaved[] = {reg::rbx, reg::r12, reg::r13, reg::r14, reg::r15};
constexpr int32_t ctx_stack = int32_t(offsetof(JitContext, stack));
constexpr int32_t ctx_native_limit = int32_t(offsetof(JitContext, native_limit));
constexpr int32_t stack_limit = int32_t(offsetof(runtime::ExecStack, limit));
constexpr int32_t stack_depth = int32_t(offsetof(runtime::ExecStack, depth));
constexpr int32_t stack_max_depth = int32_t(offsetof(runtime::ExecStack, max_depth));
constexpr int32_t stack_fuel = int32_t(offsetof(runtime::ExecStack, fuel));
// Fuel per unit of bulk length, as the interpreter (translate.cc): 1 per
// 64 KiB of bytes, 1 per 8192 table elements / local slots.
constexpr uint8_t kElementsPerFuelShift = 13;
}  // namespace

// The counter is the store's (ExecStack::fuel): JIT code runs on the root
// stack only, so ctx->stack is that ExecStack. Registers are free here (the
// callers run at function entry, at a spilled loop head, or before a helper).
void FunctionCompiler::charge_fuel(uint32_t amount) {
  if (!metered_) return;
  Reg fuel = alloc_reg();
  masm_.load64(reg::r11, reg::r12, ctx_stack);
  masm_.load64(fuel, reg::r11, stack_fuel);
  masm_.cmp_imm(true, fuel, int32_t(amount));
  masm_.jump_if(Cond::LtU, out_of_fuel_);
  masm_.int_op_imm(x64::IntOp::Sub, true, fuel, int32_t(amount));
  masm_.store64(reg::r11, stack_fuel, fuel);
  free_reg(fuel);
}

void FunctionCompiler::charge_fuel_bulk(uint32_t position, uint8_t shift) {
  if (!metered_) return;
  Reg fuel = alloc_reg(), amount = alloc_reg();
  masm_.load32(amount, reg::rbx, stack_disp(position));
  masm_.shift_imm(x64::ShiftOp::ShrU, true, amount, shift);
  masm_.int_op_imm(x64::IntOp::Add, true, amount, 1);
  masm_.load64(reg::r11, reg::r12, ctx_stack);
  masm_.load64(fuel, reg::r11, stack_fuel);
  masm_.cmp(true, fuel, amount);
  masm_.jump_if(Cond::LtU, out_of_fuel_);
  masm_.int_op(x64::IntOp::Sub, true, fuel, amount);
  masm_.store64(reg::r11, stack_fuel, fuel);
  free_reg(fuel);
  free_reg(amount);
}

void FunctionCompiler::prologue() {
  // Five pushes after the return address leave rsp 16-byte aligned for calls.
  for (Reg r : kSaved) masm_.push(r);
  masm_.move(reg::r12, reg::rdi);
  masm_.move(reg::rbx, reg::rsi);
  Label overflow = trap_label(runtime::TrapKind::CallStackExhausted);
  masm_.cmp_rsp_mem(reg::r12, ctx_native_limit);
  masm_.jump_if_below(overflow);
  masm_.load64(reg::r11, reg::r12, ctx_stack);
  masm_.load32(reg::rax, reg::r11, stack_depth);
  masm_.load32(reg::rcx, reg::r11, stack_max_depth);
  masm_.cmp(false, reg::rax, reg::rcx);
  masm_.jump_if(Cond::GeU, overflow);
  masm_.lea(reg::rax, reg::rbx, slot_disp(frame_slots_));
  masm_.cmp_mem64(reg::rax, reg::r11, stack_limit);
  masm_.jump_if_above(overflow);
  masm_.inc_mem32(reg::r11, stack_depth, 1);
  // Declared locals start at zero.
  uint32_t params = uint32_t(type_.params.size());
  if (num_locals_ > params) {
    masm_.move_imm(reg::rax, 0);
    if (num_locals_ - params <= 16) {
      for (uint32_t i = params; i < num_locals_; ++i) masm_.store64(reg::rbx, slot_disp(i), reg::rax);
    } else {
      Label loop = masm_.new_label();
      masm_.lea(reg::rcx, reg::rbx, slot_disp(params));
      masm_.lea(reg::rdx, reg::rbx, slot_disp(num_locals_));
      masm_.bind(loop);
      masm_.store64(reg::rcx, 0, reg::rax);
      masm_.int_op_imm(x64::IntOp::Add, true, reg::rcx, 8);
      masm_.cmp(true, reg::rcx, reg::rdx);
      masm_.jump_if(Cond::LtU, loop);
    }
  }
  reload_memory();
  charge_fuel(1 + ((num_locals_ - params) >> kElementsPerFuelShift));
}

void FunctionCompiler::epilogue_and_stubs() {
  masm_.bind(return_label_);
  masm_.load64(reg::r11, reg::r12, ctx_stack);
  masm_.inc_mem32(reg::r11, stack_depth, -1);
  masm_.move_imm(reg::rax, 0);
  masm_.bind(exit_label_);
  for (int i = int(std::size(kSaved)) - 1; i >= 0; --i) masm_.pop(kSaved[i]);
  masm_.ret();

  // Traps: depth is not restored on these paths — the host entry resets it.
  for (auto& [kind, label] : trap_labels_) {
    masm_.bind(label);
    masm_.move_imm(reg::rdx, uint32_t(kind));
    masm_.jump(common_trap_);
  }
  // The shared stubs below only if something jumps to them (each stub's
  // jumps are emitted before the stubs it jumps to are tested).
  const bool thunk_trap = masm_.referenced(thunk_trap_);
  if (masm_.referenced(out_of_fuel_)) {
    masm_.bind(out_of_fuel_);
    masm_.load64(reg::r11, reg::r12, ctx_stack);
    masm_.store64_imm(reg::r11, stack_fuel, 0);
    masm_.move_imm(reg::rdx, uint32_t(runtime::TrapKind::OutOfFuel));
    masm_.jump(common_trap_);
  }
  if (thunk_trap) {
    masm_.bind(thunk_trap_);
    masm_.move(reg::rdx, reg::rax);
    masm_.int_op_imm(x64::IntOp::Sub, false, reg::rdx, 1);
  }
  if (thunk_trap || masm_.referenced(common_trap_)) {  // thunk_trap falls through
    masm_.bind(common_trap_);
    masm_.move(reg::rdi, reg::r12);
    masm_.move_imm(reg::rsi, reinterpret_cast<uint64_t>(self_));
    masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_trap));
    masm_.jump(trap_return_);
  }
  const bool propagate = masm_.referenced(propagate_);
  if (propagate) {
    masm_.bind(propagate_);
    masm_.move(reg::rdi, reg::r12);
    masm_.move_imm(reg::rsi, reinterpret_cast<uint64_t>(self_));
    masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_unwind));
  }
  if (propagate || masm_.referenced(trap_return_)) {  // propagate falls through
    masm_.bind(trap_return_);
    masm_.move_imm(reg::rax, 1);
    masm_.jump(exit_label_);
  }
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
    masm_.load64(reg::r11, reg::rbx, slot_disp(from + i));
    masm_.store64(reg::rbx, slot_disp(target.target_slot + i), reg::r11);
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
  push_slots(f.params);  // spilled at the `if`
  f.kind = ControlFrame::Kind::Else;
  f.unreachable = false;
}

void FunctionCompiler::end_frame() {
  ControlFrame f = control_.back();
  if (!f.unreachable) spill_all();
  truncate(f.height);
  switch (f.kind) {
    case ControlFrame::Kind::Function:
      if (!f.unreachable) {
        push_slots(f.results);
        move_branch_values(f);
        truncate(f.height);
      }
      // return_label_ is bound by epilogue_and_stubs.
      break;
    case ControlFrame::Kind::If:
      masm_.bind(f.else_label);  // no else: params pass through as results
      masm_.bind(f.label);
      break;
    case ControlFrame::Kind::Block: case ControlFrame::Kind::Else:
      masm_.bind(f.label);
      break;
    case ControlFrame::Kind::Loop:
      break;  // its label is the header
  }
  control_.pop_back();
  push_slots(f.results);
}

Result<void> FunctionCompiler::compile_control(Opcode op, const Immediates& imm, bool& handled) {
  handled = true;
  switch (op) {
    case Opcode::Unreachable:
      masm_.jump(trap_label(runtime::TrapKind::Unreachable));
      mark_unreachable();
      return {};
    case Opcode::Block: case Opcode::Loop: case Opcode::If: {
      ControlFrame f;
      WEFT_TRY(block_signature(imm.block_type, f.params, f.results));
      if (op == Opcode::If) {
        Reg cond = pop_to_reg();
        spill_all();
        masm_.test(false, cond, cond);
        free_reg(cond);
        f.else_label = masm_.new_label();
        masm_.jump_if_zero(f.else_label);
      } else if (op == Opcode::Loop) {
        spill_all();
      }
      f.kind = op == Opcode::Block ? ControlFrame::Kind::Block
               : op == Opcode::Loop ? ControlFrame::Kind::Loop
                                    : ControlFrame::Kind::If;
      f.height = height() - f.params;
      f.target_slot = num_locals_ + f.height;
      f.label = masm_.new_label();
      control_.push_back(f);
      if (op == Opcode::Loop) {
        masm_.bind(f.label);
        charge_fuel(1);  // every branch to the loop head (each iteration) pays
      }
      return {};
    }
    case Opcode::Else:
      else_frame();
      return {};
    case Opcode::End:
      end_frame();
      return {};
    case Opcode::Br: {
      spill_all();
      branch_to(control_[control_.size() - 1 - imm.a]);
      mark_unreachable();
      return {};
    }
    case Opcode::Return: {
      spill_all();
      branch_to(control_.front());
      mark_unreachable();
      return {};
    }
    case Opcode::BrIf: {
      Reg cond = pop_to_reg();
      spill_all();
      masm_.test(false, cond, cond);
      free_reg(cond);
      ControlFrame& target = control_[control_.size() - 1 - imm.a];
      if (branch_needs_moves(target)) {
        Label skip = masm_.new_label();
        masm_.jump_if_zero(skip);
        branch_to(target);
        masm_.bind(skip);
      } else {
        masm_.jump_if_nonzero(target.label);
      }
      return {};
    }
    case Opcode::BrTable: {
      Reg index = pop_to_reg();
      spill_all();
      uint32_t count = uint32_t(imm.targets.size()) - 1;  // the last entry is the default
      // Clamp: any index ≥ count takes the default.
      masm_.zero_extend32(index, index);
      masm_.move_imm(reg::r11, count);
      masm_.cmp(true, index, reg::r11);
      masm_.cmove_if(Cond::GtU, index, reg::r11);
      std::vector<Label> stubs;
      for (size_t i = 0; i < imm.targets.size(); ++i) stubs.push_back(masm_.new_label());
      masm_.jump_table(index, stubs.data(), uint32_t(stubs.size()));
      free_reg(index);
      for (size_t i = 0; i < imm.targets.size(); ++i) {
        masm_.bind(stubs[i]);
        branch_to(control_[control_.size() - 1 - imm.targets[i]]);
      }
      mark_unreachable();
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

}  // namespace weft::jit
