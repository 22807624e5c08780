// The assembly context-switch primitives (fibers/arch/*.S) and what C++ may read of a saved frame.
#pragma once

#include <cstdint>

#include "fibers/arch/context_layout.h"

namespace weft::fibers::detail {

// A suspended context: the stack pointer of a fiber whose CPU state is saved in a
// frame on its own stack (layout in fibers/arch/layout_<arch>_<abi>.h).
using fcontext_t = void*;

// What a switch delivers to the context it resumes: the context that suspended
// (fctx) and one pointer of payload (data). Two pointers, so it travels in two
// registers (rax:rdx / x0:x1) both as a return value and as an argument.
struct transfer_t {
  fcontext_t fctx;
  void* data;
};

// The entry a fresh context starts in: called on the new stack with the first
// transfer and the `arg` given to weft_make_fcontext. Must never return.
using context_entry_t = void (*)(transfer_t, void*);
// A function run on top of the target by weft_ontop_fcontext; its result becomes
// the target's transfer_t.
using ontop_fn_t = transfer_t (*)(transfer_t);

extern "C" {
// Suspends the caller on its own stack and resumes `to`, handing it {caller, data}.
// Returns when something switches back, with what that switch delivered.
[[gnu::visibility("hidden")]] transfer_t weft_jump_fcontext(fcontext_t to, void* data);
// The same switch, resuming `to` by RET rather than an indirect jump: for callers
// that switch every context from one shared call site, where the return-stack
// predictor then stays exact (fibers/arch/jump_x86_64_sysv_elf_gas.S).
[[gnu::visibility("hidden")]] transfer_t weft_jump_fcontext_ret(fcontext_t to, void* data);

// Like weft_jump_fcontext, but first runs fn({caller, data}) on `to`'s stack; fn's
// result is what `to` receives. fn may throw into `to` (see ontop_*.S).
[[gnu::visibility("hidden")]] transfer_t weft_ontop_fcontext(fcontext_t to, void* data, ontop_fn_t fn);

// Prepares a fresh context whose frame ends just below `stack_top` (aligned down to
// 16 bytes); the first switch to it calls entry(transfer, arg).
[[gnu::visibility("hidden")]] fcontext_t weft_make_fcontext(void* stack_top, context_entry_t entry, void* arg);
}

// Bytes the saved frame of a fresh context occupies below the (aligned) stack top.
inline constexpr std::uintptr_t kFreshFrameBytes = WEFT_FCTX_FRESH_BYTES;

// Identity of the running thread as the switch code records it: the ABI thread
// pointer (%fs:0 / TPIDR_EL0), unique among live threads.
inline std::uintptr_t current_thread_id() noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
}

// The thread that last suspended the context, or 0 if it never ran.
inline std::uintptr_t saved_owner(fcontext_t fctx) noexcept {
  return *reinterpret_cast<const std::uintptr_t*>(static_cast<const char*>(fctx) + WEFT_FCTX_OWNER);
}

}  // namespace weft::fibers::detail
