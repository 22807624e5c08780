// The AArch64 register configuration of JIT code (AAPCS64): which registers
// the compiler's cache hands out, which hold fixed roles for a whole
// function, and which the fixed sequences (calls, the inline fiber switch)
// use. The same roles as jit/x64/registers.h; the static_asserts keep them
// consistent with each other and the ABI.
//
// x16 (IP0) is the compiler's scratch; x17 (IP1) and x15 are the
// macro-assembler's own (immediates, addresses out of an instruction's
// range). x18 is the platform register (reserved on some systems): unused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "jit/backend_types.h"

namespace weft::jit::a64 {

// General registers x0–x30 by number; 31 is the stack pointer (or the zero
// register, depending on the instruction: the macro-assembler decides).
namespace reg {
constexpr Reg x0 = 0, x1 = 1, x2 = 2, x3 = 3, x4 = 4, x5 = 5, x6 = 6, x7 = 7, x8 = 8, x9 = 9, x10 = 10;
constexpr Reg x11 = 11, x12 = 12, x13 = 13, x14 = 14, x15 = 15, x16 = 16, x17 = 17, x18 = 18, x19 = 19;
constexpr Reg x20 = 20, x21 = 21, x22 = 22, x23 = 23, x24 = 24, x25 = 25, x26 = 26, x27 = 27, x28 = 28;
constexpr Reg fp = 29, lr = 30;
}  // namespace reg

struct Registers {
  // ---- pinned for the whole function (callee-saved) ------------------------
  static constexpr Reg kContext = reg::x19;
  static constexpr Reg kFrame = reg::x20;
  static constexpr Reg kMemoryBase = reg::x21;
  static constexpr Reg kMemorySize = reg::x22;
  // The frames still allowed (ExecStack::max_depth − depth) while JIT code runs (see x86-64's registers.h).
  static constexpr Reg kDepth = reg::x23;

  // The compiler's scratch register, never allocated; the macro-assembler
  // may clobber it only where the contract says so (call_absolute, jump_table).
  static constexpr Reg kScratch = reg::x16;
  // The macro-assembler's own scratch registers (never seen by the compiler).
  static constexpr Reg kAsmScratch = reg::x17, kAsmScratch2 = reg::x15;

  // ---- the cache: values of the operand stack ---------------------------------
  // Caller-saved registers only: no callee-saved register is allocated, so a
  // prologue saves the pinned ones and the frame record alone.
  static constexpr Reg kAllocatable[] = {reg::x0, reg::x1, reg::x2,  reg::x3,  reg::x4,  reg::x5,  reg::x6, reg::x7,
                                         reg::x8, reg::x9, reg::x10, reg::x11, reg::x12, reg::x13, reg::x14};
  // Registers that hold a function's hottest locals for the whole function
  // (FunctionCompiler's pinned locals), taken from kAllocatable: caller-saved,
  // reloaded after every call; nine stay with the operand stack.
  static constexpr Reg kPinnableLocals[] = {reg::x14, reg::x13, reg::x12, reg::x8, reg::x7, reg::x6};
  // v8–v15 are callee-saved (their low halves): not handed out. v30/v31 are
  // the macro-assembler's for float operations on general-register operands.
  static constexpr FReg kFloatScratch0 = 30, kFloatScratch1 = 31;
  static constexpr FReg kFloatAllocatable[] = {0,  1,  2,  3,  4,  5,  6,  7,  16, 17, 18,
                                               19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
  // Float locals pinned for the whole function: eight, fourteen stay with the stack.
  static constexpr FReg kFloatPinnableLocals[] = {29, 28, 27, 26, 25, 24, 23, 22};

  // Calls between JIT functions: weft's own convention, as on x86-64 (see
  // jit/x64/registers.h); a function saves its frame record (x29, x30) and
  // kFrame. The host entry saves kHostSaved after the frame record, in pairs
  // (x24 pads the last pair), so the stack pointer stays 16-byte aligned.
  static constexpr Reg kHostSaved[] = {reg::x19, reg::x20, reg::x21, reg::x22, reg::x23, reg::x24};
  static constexpr bool is_callee_saved(Reg r) { return r >= reg::x19 && r <= reg::x28; }

  // ---- calls (AAPCS64) ----------------------------------------------------------
  static constexpr Reg kArg[] = {reg::x0, reg::x1, reg::x2, reg::x3, reg::x4, reg::x5};
  static constexpr Reg kReturn = reg::x0;
  static constexpr Reg kReturn2 = reg::x1;  // the second half of a 16-byte result (FiberStatus::tag)
  static constexpr Reg kCallee = kArg[2];
  // A direct call's register arguments (see x86-64's registers.h).
  static constexpr Reg kParams[] = {reg::x0, reg::x2, reg::x3, reg::x4, reg::x5};
  static constexpr FReg kFloatParams[] = {0, 1, 2, 3};
  static constexpr Reg kResult = reg::x1;  // a returned value (see x86-64's registers.h)
  static constexpr FReg kFloatResult = 0;

  // Registers fixed sequences use where no operand-stack value is in a register.
  static constexpr Reg kTemp0 = reg::x9, kTemp1 = reg::x10, kTemp2 = reg::x11;

  // ---- the inline fiber switch (jit/compile_fibers.cc) ---------------------------
  // switch_fiber_stack clobbers x9–x11 and x17 before it has read its slot
  // registers; it delivers `from` in x0 and the tag in x1, as the assembly
  // switch (fibers/arch/jump_arm64_aapcs_elf_gas.S) delivers transfer_t.
  struct FiberSwitch {
    static constexpr Reg kState = reg::x12;
    static constexpr Reg kSave = reg::x13;
    static constexpr Reg kDest = reg::x14;
    static constexpr Reg kSelf = reg::x7;
    static constexpr Reg kPayload = reg::x8;
    static constexpr Reg kArrivedFrom = reg::x0;
    static constexpr Reg kArrivedTag = reg::x1;
  };
};

// ---- consistency: the checks every backend passes are in jit/backend.h;
// these are AArch64's own.
using R = Registers;
static_assert(std::size(R::kHostSaved) % 2 == 0, "saved in pairs: the stack pointer stays 16-byte aligned");
constexpr bool allocatable_are_caller_saved() {
  for (Reg r : R::kAllocatable)
    if (R::is_callee_saved(r) || r > reg::x15 || r == R::kAsmScratch || r == R::kAsmScratch2) return false;
  return true;
}
static_assert(allocatable_are_caller_saved(),
              "the cache hands out caller-saved registers only (none needs saving), never a scratch register");
constexpr bool float_allocatable_are_caller_saved() {
  for (FReg f : R::kFloatAllocatable)
    if ((f >= 8 && f <= 15) || f == R::kFloatScratch0 || f == R::kFloatScratch1 || f > 31) return false;
  return true;
}
static_assert(float_allocatable_are_caller_saved(), "v8–v15 are callee-saved; the float scratch registers are not allocated");
constexpr bool switch_slots_survive() {
  for (Reg r : {reg::x9, reg::x10, reg::x11, R::kAsmScratch})
    if (r == R::FiberSwitch::kSave || r == R::FiberSwitch::kDest) return false;
  return true;
}
static_assert(switch_slots_survive(), "switch_fiber_stack reads its slot registers after clobbering x9–x11, x17");

}  // namespace weft::jit::a64
