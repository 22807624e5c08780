// The machine backend this build compiles for: its macro-assembler and its
// register configuration (jit/<arch>/macro_assembler.h, registers.h), under
// the names the compiler uses. Each backend implements the same operations
// with the same contracts; the compiler (jit/compile_*.cc) is written once
// against them.
#pragma once

#include "jit/backend_types.h"

#if defined(__x86_64__)
#include "jit/x64/fault_context.h"
#include "jit/x64/macro_assembler.h"
#include "jit/x64/registers.h"
namespace weft::jit {
namespace arch = x64;
}
#define WEFT_JIT_BACKEND 1
#elif defined(__aarch64__)
#include "jit/a64/fault_context.h"
#include "jit/a64/macro_assembler.h"
#include "jit/a64/registers.h"
namespace weft::jit {
namespace arch = a64;
}
#define WEFT_JIT_BACKEND 1
#else
#define WEFT_JIT_BACKEND 0
#endif

#if WEFT_JIT_BACKEND
#include <iterator>

namespace weft::jit {
using MacroAssembler = arch::MacroAssembler;
using Registers = arch::Registers;
using Label = MacroAssembler::Label;

// What the compiler relies on of every backend's register roles (each
// registers.h adds its machine's own checks).
namespace role_checks {
using R = Registers;
using reg_list::contains;
static_assert(R::kContext != R::kFrame && R::kMemoryBase != R::kMemorySize && R::kContext != R::kMemoryBase &&
                  R::kFrame != R::kMemorySize && R::kDepth != R::kContext && R::kDepth != R::kFrame &&
                  R::kDepth != R::kMemoryBase && R::kDepth != R::kMemorySize,
              "pinned roles are distinct");
static_assert(R::is_callee_saved(R::kContext) && R::is_callee_saved(R::kFrame) && R::is_callee_saved(R::kDepth) &&
                  R::is_callee_saved(R::kMemoryBase) && R::is_callee_saved(R::kMemorySize),
              "pinned roles survive calls into C (helpers, the host adapter's callees)");
static_assert(contains(R::kHostSaved, R::kContext) && contains(R::kHostSaved, R::kFrame) &&
                  contains(R::kHostSaved, R::kMemoryBase) && contains(R::kHostSaved, R::kMemorySize) &&
                  contains(R::kHostSaved, R::kDepth),
              "the host entry saves every pinned register JIT code writes");
static_assert(reg_list::distinct(R::kAllocatable), "the cache hands out each register once");
static_assert(!contains(R::kAllocatable, R::kContext) && !contains(R::kAllocatable, R::kFrame) &&
                  !contains(R::kAllocatable, R::kMemoryBase) && !contains(R::kAllocatable, R::kMemorySize) &&
                  !contains(R::kAllocatable, R::kScratch),
              "pinned and scratch registers are never allocated");
static_assert(!contains(R::kAllocatable, R::kDepth), "the depth register is never allocated");
static_assert(std::size(R::kAllocatable) <= 32 && std::size(R::kFloatAllocatable) <= 32, "register masks are 32 bits");
static_assert(contains(R::kAllocatable, R::kReturn) && contains(R::kAllocatable, R::kReturn2),
              "a helper's result is pushed as an operand-stack register");
constexpr bool saves_allocated_callee_saved(const Reg* saved_begin, const Reg* saved_end) {
  for (Reg r : R::kAllocatable)
    if (R::is_callee_saved(r) && !reg_list::contains(saved_begin, saved_end, r)) return false;
  return true;
}
static_assert(saves_allocated_callee_saved(std::begin(R::kHostSaved), std::end(R::kHostSaved)),
              "every callee-saved register the cache hands out is saved by the host entry");
static_assert(R::kCallee != R::kTemp0 && R::kCallee != R::kArg[0] && R::kCallee != R::kArg[1],
              "a tail call's argument moves and the entry arguments keep the callee");
static_assert(R::kTemp1 != R::kReturn && R::kTemp1 != R::kCallee && R::kTemp1 != R::kArg[0] && R::kTemp1 != R::kArg[1] &&
                  R::kTemp1 != R::kArg[2] && R::kTemp1 != R::kScratch,
              "store_depth's temporary (jit/compiler.h) keeps the status, the callee and the entry arguments");
static_assert(R::kCallee == R::kArg[2], "the callee's FuncInstance is NativeEntry's `self`: the host adapter passes it on");
static_assert(R::kArg[3] != R::kScratch && R::kArg[4] != R::kScratch, "helper arguments survive call_absolute");
constexpr bool pins_are_allocatable() {
  for (Reg r : R::kPinnableLocals)
    if (!contains(R::kAllocatable, r) || (MacroAssembler::kShiftClobbers | MacroAssembler::kDivideClobbers) & reg_bit(r) ||
        r == R::kReturn || r == R::kReturn2 || r == R::kTemp0 || r == R::kTemp1 || r == R::kTemp2)
      return false;
  for (FReg f : R::kFloatPinnableLocals)
    if (!contains(R::kFloatAllocatable, f)) return false;
  return true;
}
static_assert(pins_are_allocatable(),
              "pinned locals come from the cache's registers, never one a fixed sequence outside a call writes");
static_assert(std::size(R::kAllocatable) - std::size(R::kPinnableLocals) >= 5 &&
                  std::size(R::kFloatAllocatable) - std::size(R::kFloatPinnableLocals) >= 4,
              "enough registers stay with the operand stack (at most three are held outside it at once)");
constexpr bool params_are_free_on_entry() {
  for (Reg r : R::kParams)
    if (!contains(R::kAllocatable, r) || contains(R::kPinnableLocals, r) || r == R::kArg[1] || r == R::kScratch)
      return false;
  for (FReg f : R::kFloatParams)
    if (!contains(R::kFloatAllocatable, f) || contains(R::kFloatPinnableLocals, f)) return false;
  return reg_list::distinct(R::kParams);
}
static_assert(R::kResult != R::kReturn && contains(R::kAllocatable, R::kResult) &&
                  !contains(R::kPinnableLocals, R::kResult) && contains(R::kFloatAllocatable, R::kFloatResult) &&
                  !contains(R::kFloatPinnableLocals, R::kFloatResult) && R::kResult != R::kScratch,
              "a returned value survives the status test and the caller's reloads, and is pushed as a cache register");
static_assert(params_are_free_on_entry(),
              "register arguments are cache registers outside the pins, the frame argument and the scratch register");
static_assert(R::FiberSwitch::kArrivedTag == R::kReturn2,
              "an event arrives in the register weft_jit_fiber returns its tag in: one dispatch for both");
}  // namespace role_checks
}  // namespace weft::jit
#endif
