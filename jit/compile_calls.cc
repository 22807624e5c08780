// Calls. Every callee is entered through FuncInstance::jit_entry in JIT
// code's own convention (jit/<arch>/registers.h): its code, or the host
// adapter that passes the call on to a trampoline into the interpreter or the
// host function (FuncInstance::native_entry). So direct and indirect calls are
// one sequence: spill the stack (arguments land in their canonical slots,
// which become the callee's frame), call, check for a trap, reload the memory
// registers and pinned locals.
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

bool has_vec(const FuncType& t) {
  for (ValType v : t.params)
    if (v.is_vec()) return true;
  for (ValType v : t.results)
    if (v.is_vec()) return true;
  return false;
}
}  // namespace

void FunctionCompiler::check_call_result() {
  masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
  masm_.jump_if_nonzero(propagate_);
  reload_after_call();
}

// Expects the callee FuncInstance* in kCallee and the stack spilled.
void FunctionCompiler::call_function(const runtime::FuncInstance*, uint32_t params, uint32_t results) {
  uint32_t first = height() - params;
  masm_.address_of(kArg[1], kFp, stack_disp(first));
  masm_.call_indirect_mem(kCallee, jit_entry_offset());
  check_call_result();
  truncate(first);
  push_slots(results);
}

// call_indirect's and return_call_indirect's target: the table entry the index
// on top of the stack names, checked (null, bounds, signature: traps) by
// weft_jit_resolve_indirect; leaves the stack spilled and the FuncInstance* in kCallee.
void FunctionCompiler::resolve_indirect_callee(const Instruction& imm) {
  Reg index = pop_to_reg();
  spill_all();
  masm_.zero_extend32(kArg[3], index);  // first: `index` may be any argument register
  free_reg(index);
  masm_.move(kArg[0], kCtx);
  masm_.move_imm(kArg[1], reinterpret_cast<uint64_t>(self_));
  masm_.move_imm(kArg[2], reinterpret_cast<uint64_t>(instance_.tables[imm.index2]));
  masm_.move_imm(kArg[4], instance_.type_ids[imm.index]);
  masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_resolve_indirect));
  masm_.test_bits(true, Registers::kReturn, Registers::kReturn);
  masm_.jump_if_zero(trap_return_);
  masm_.move(kCallee, Registers::kReturn);
}

void FunctionCompiler::tail_call_function(uint32_t params) {
  const uint32_t first = height() - params;
  // The arguments move down to the frame base, in ascending order: every
  // destination lies below its source.
  for (uint32_t i = 0; i < params; ++i) {
    masm_.load64(Registers::kTemp0, kFp, stack_disp(first + i));
    masm_.store64(kFp, slot_disp(i), Registers::kTemp0);
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

Result<void> FunctionCompiler::compile_call(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  switch (op) {
    case Opcode::ReturnCall: {
      runtime::FuncInstance* callee = instance_.functions[imm.index];
      if (has_vec(*callee->type)) return unsupported("return_call with v128 values");
      spill_all();
      masm_.move_imm(kCallee, reinterpret_cast<uint64_t>(callee));
      tail_call_function(uint32_t(callee->type->params.size()));
      return {};
    }
    case Opcode::ReturnCallIndirect: {
      const FuncType& type = module_.types[imm.index];
      if (has_vec(type)) return unsupported("return_call_indirect with v128 values");
      resolve_indirect_callee(imm);
      tail_call_function(uint32_t(type.params.size()));
      return {};
    }
    case Opcode::Call: {
      runtime::FuncInstance* callee = instance_.functions[imm.index];
      if (has_vec(*callee->type)) return unsupported("call with v128 values");
      spill_all();
      masm_.move_imm(kCallee, reinterpret_cast<uint64_t>(callee));
      call_function(callee, uint32_t(callee->type->params.size()), uint32_t(callee->type->results.size()));
      return {};
    }
    case Opcode::CallIndirect: {
      const FuncType& type = module_.types[imm.index];
      if (has_vec(type)) return unsupported("call_indirect with v128 values");
      resolve_indirect_callee(imm);
      call_function(nullptr, uint32_t(type.params.size()), uint32_t(type.results.size()));
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

}  // namespace weft::jit
