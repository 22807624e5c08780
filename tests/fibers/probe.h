// Assembly probes (tests/fibers/arch/probe_<arch>_<abi>.S) that C++ cannot express: register state and SP.
#pragma once

#include <cstdint>

extern "C" {
// Loads every callee-saved register with a value derived from `seed`, calls
// fn(arg), and returns a bit mask of the registers that no longer hold their
// value afterwards (0 = all preserved). Bit order: kCalleeSavedNames.
std::uint64_t weft_probe_callee_saved(std::uint64_t seed, void (*fn)(void*), void* arg);
// The caller's stack pointer at the call (x86_64: before the return address was pushed).
std::uintptr_t weft_probe_stack_pointer();
// Number of registers weft_probe_callee_saved checks, and their names in bit order.
extern const std::uint32_t weft_probe_callee_saved_count;
extern const char* const weft_probe_callee_saved_names[];
}
