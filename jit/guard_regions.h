// Guard regions (Config::guard_regions): JIT code of an instance whose memory
// is guarded (runtime::MemoryInstance::guarded) accesses it without bounds
// checks; an out-of-bounds access faults in the inaccessible part of the
// reservation, and the SIGSEGV/SIGBUS handler here moves the faulting code
// to its function's "out of bounds memory access" trap stub. Every other
// fault goes to the handler that was installed before (docs/architecture.md,
// "Memory").
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::jit::guard {

// One compiled function of a registered code block: its code and its trap
// stub, as offsets from the block's start.
struct FunctionTrap {
  uint32_t begin = 0, end = 0, trap = 0;
};

// Whether guard regions can be used: the backend supports them and the
// handler is installed (once per process, on first use) and stayed installed.
bool available();

// A code block is registered in two steps: a slot before compiling (so code
// without checks is only emitted when its faults will be recognised), and
// the block's address and traps once it is in executable memory. Returns -1
// when all slots are taken (the code then keeps its checks).
int reserve_slot();
// `traps` (sorted by `begin`) must stay alive until release_slot.
void publish(int slot, const void* base, size_t size, const FunctionTrap* traps, size_t count);
void release_slot(int slot);

// For tests: the faults the handler turned into traps so far.
uint64_t traps_taken();

}  // namespace weft::jit::guard
