// Where a signal handler finds the interrupted instruction of x86-64 code
// (jit/guard_regions.cc turns a guard-region fault in JIT code into a trap by
// moving it to the function's trap stub).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace weft::jit::x64 {

// Faulting stores write nothing on x86-64 (the fault is taken before the
// store retires), so an out-of-bounds store that straddles the memory's end
// leaves the bytes below the end unchanged, as Wasm requires.
inline constexpr bool kGuardRegions = true;

inline uintptr_t* interrupted_pc(void* signal_context) {
  return reinterpret_cast<uintptr_t*>(&static_cast<ucontext_t*>(signal_context)->uc_mcontext.gregs[REG_RIP]);
}

}  // namespace weft::jit::x64
