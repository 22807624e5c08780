// Native stack bounds for host → Wasm entries. Wasm frames live in an
// ExecStack bounded by explicit checks, but every host → Wasm entry (and every
// host function) also uses the native stack it runs on: the thread's, or a
// fiber's small one without a guard page. An entry refuses to start below the
// floor, so unbounded host ↔ Wasm recursion ends in "call stack exhausted"
// instead of overflowing the native stack.
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::runtime {

// Native stack a host function called from a fiber can count on, and what one
// host → Wasm entry level may use (its dispatch loop, the API layers, the host
// function that made the call): the floor sits this far above a fiber's stack base.
inline constexpr std::size_t kFiberNativeReserve = 24 * 1024;

// The lowest address at which the calling thread may start a host → Wasm entry:
// the thread's stack base plus a quarter of its size, at most 256 KiB.
// 0 when the thread's stack cannot be determined (no check then).
uintptr_t thread_native_floor();

// The caller's current native stack position.
inline uintptr_t native_stack_position() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

}  // namespace weft::runtime
