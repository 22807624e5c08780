// The x86-64 register configuration of JIT code (System V ABI): which
// registers the compiler's cache hands out, which hold fixed roles for a
// whole function, and which the fixed sequences (calls, the inline fiber
// switch) use. The compiler refers to registers only through these roles;
// the static_asserts below keep the roles consistent with each other and the
// ABI (Liftoff keeps its lists the same way, per architecture).
#pragma once

#include <cstdint>
#include <iterator>

#include "jit/backend_types.h"

namespace weft::jit::x64 {

namespace reg {
constexpr Reg rax = 0, rcx = 1, rdx = 2, rbx = 3, rsp = 4, rbp = 5, rsi = 6, rdi = 7;
constexpr Reg r8 = 8, r9 = 9, r10 = 10, r11 = 11, r12 = 12, r13 = 13, r14 = 14, r15 = 15;
}  // namespace reg

struct Registers {
  // ---- pinned for the whole function (callee-saved) ------------------------
  static constexpr Reg kContext = reg::r12;     // JitContext* (the entry's first argument)
  static constexpr Reg kFrame = reg::rbx;       // frame base: locals, then the operand slots
  static constexpr Reg kMemoryBase = reg::r13;  // linear memory data (functions that use memory)
  static constexpr Reg kMemorySize = reg::r14;  // linear memory size in bytes
  // The call depth while JIT code runs, as the frames still allowed
  // (ExecStack::max_depth − depth, jit/compiler.h: store_depth): counted in a
  // register instead of memory, so calls do not form a chain of
  // read-modify-writes through one memory word, and down, so that the entry's
  // check is the decrement's own flags (docs/architecture.md, "Calls").
  static constexpr Reg kDepth = reg::rbp;

  // The compiler's scratch register, never allocated; the macro-assembler
  // also clobbers it (call_absolute, jump_table, address constants).
  static constexpr Reg kScratch = reg::r11;

  // ---- the cache: values of the operand stack ---------------------------------
  // Caller-saved registers first (no save needed), then r15 (saved by the host
  // entry; JIT functions may clobber it).
  static constexpr Reg kAllocatable[] = {reg::rax, reg::rcx, reg::rdx, reg::rsi, reg::rdi,
                                         reg::r8,  reg::r9,  reg::r10, reg::r15};
  // Registers that hold a function's hottest locals for the whole function
  // (FunctionCompiler's pinned locals), taken from kAllocatable: r15 and three
  // caller-saved registers no fixed sequence outside calls uses (they are
  // argument or fiber-switch registers, reloaded after every call). Five
  // registers stay with the operand stack, enough for divide's rdx:rax.
  static constexpr Reg kPinnableLocals[] = {reg::r15, reg::r10, reg::r9, reg::r8};
  // Float registers the cache hands out; kFloatScratch0/1 are the
  // macro-assembler's for float operations on general-register operands.
  static constexpr FReg kFloatScratch0 = 0, kFloatScratch1 = 1;
  static constexpr FReg kFloatAllocatable[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  // Float locals pinned for the whole function: six of them, eight stay with the stack.
  static constexpr FReg kFloatPinnableLocals[] = {15, 14, 13, 12, 11, 10};

  // Calls between JIT functions use weft's own convention: kContext and
  // kDepth are set, the callee's frame comes in kArg[1], its FuncInstance in
  // kCallee; a function saves only kFrame (its caller's frame) and may
  // clobber every other register — callers reload their memory registers and
  // pinned locals after a call. The host's C calling convention meets it in
  // two stubs (jit/executor.cc): the host entry saves kHostSaved (every
  // callee-saved register JIT code writes) and sets kContext and kDepth; the
  // host adapter, which JIT code calls for a callee that is not JIT code,
  // stores kDepth and passes the context in kArg[0].
  static constexpr Reg kHostSaved[] = {reg::rbp, reg::rbx, reg::r12, reg::r13, reg::r14, reg::r15};
  static constexpr bool is_callee_saved(Reg r) {
    return r == reg::rbx || r == reg::rbp || r == reg::r12 || r == reg::r13 || r == reg::r14 || r == reg::r15;
  }

  // ---- calls (SysV) -------------------------------------------------------------
  static constexpr Reg kArg[] = {reg::rdi, reg::rsi, reg::rdx, reg::rcx, reg::r8, reg::r9};
  static constexpr Reg kReturn = reg::rax;   // status, FuncInstance*, a helper's result
  static constexpr Reg kReturn2 = reg::rdx;  // FiberStatus::tag
  // The callee FuncInstance* of a Wasm call: NativeEntry's third argument.
  static constexpr Reg kCallee = kArg[2];
  // A direct call within an instance passes its first integer arguments in
  // kParams and its first float arguments in kFloatParams, in order, the rest
  // in their frame slots (jit/compile_calls.cc): none is a pinned-local
  // register, so the callee's entry moves them to its pins in any order.
  static constexpr Reg kParams[] = {reg::rdi, reg::rcx, reg::rdx, reg::rax};
  static constexpr FReg kFloatParams[] = {2, 3, 4, 5};
  // A function returning one value also leaves it in kResult (integers,
  // references) or kFloatResult, where a direct caller takes it.
  static constexpr Reg kResult = reg::rdx;
  static constexpr FReg kFloatResult = 2;

  // Registers fixed sequences use where no operand-stack value is in a
  // register (function entry, argument moves of calls): free by then.
  static constexpr Reg kTemp0 = reg::rax, kTemp1 = reg::rcx, kTemp2 = reg::rdx;

  // ---- the inline fiber switch (jit/compile_fibers.cc) ---------------------------
  // The stack is spilled there, so all allocatable registers are free.
  // switch_fiber_stack clobbers rax, rcx, rdx and rsp before it has read its
  // slot registers, and delivers `from` in rax and the tag in rdx.
  struct FiberSwitch {
    static constexpr Reg kState = reg::rsi;    // the fiber runtime's SwitchState*
    static constexpr Reg kSave = reg::rdi;     // where this context's stack pointer goes
    static constexpr Reg kDest = reg::r9;      // the target fiber, then its context slot
    static constexpr Reg kSelf = reg::r10;     // fiber.switch: the running fiber
    static constexpr Reg kPayload = reg::r8;   // the transfer area
    static constexpr Reg kArrivedFrom = reg::rax;  // after the switch: a context to store, or 0
    static constexpr Reg kArrivedTag = reg::rdx;   // after the switch: the event's tag, or 0
  };
};

// ---- consistency: the checks every backend passes are in jit/backend.h;
// these are x86-64's own.
using R = Registers;
static_assert(R::kFrame == reg::rbx, "a JIT function's one push is kFrame: rsp stays 16-byte aligned at calls");
static_assert(!reg_list::contains(R::kAllocatable, reg::rsp), "the stack pointer is never allocated");
static_assert(R::FiberSwitch::kSave != reg::rax && R::FiberSwitch::kSave != reg::rcx &&
                  R::FiberSwitch::kSave != reg::rdx && R::FiberSwitch::kDest != reg::rax &&
                  R::FiberSwitch::kDest != reg::rcx && R::FiberSwitch::kDest != reg::rdx,
              "switch_fiber_stack reads its slot registers after clobbering rax, rcx, rdx");

}  // namespace weft::jit::x64
