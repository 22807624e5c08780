// Where a signal handler finds the interrupted instruction of AArch64 code
// (see jit/x64/fault_context.h).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace weft::jit::a64 {

// Off: the architecture lets a misaligned store that faults on its second
// page write its first bytes (and qemu, where CI runs this code, behaves as
// it likes), but Wasm requires a trapping store to write nothing — so AArch64
// code keeps its explicit bounds checks.
inline constexpr bool kGuardRegions = false;

inline uintptr_t* interrupted_pc(void* signal_context) {
  return reinterpret_cast<uintptr_t*>(&static_cast<ucontext_t*>(signal_context)->uc_mcontext.pc);
}

}  // namespace weft::jit::a64
