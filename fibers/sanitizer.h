// Hooks that tell AddressSanitizer and valgrind about fiber stacks and switches.
//
// Active when the build defines WEFT_FIBER_SANITIZER_ANNOTATIONS=1 (CMake option of
// the same name, on by default with WEFT_SANITIZE). Without them ASan misreads a
// switch as a wild stack-pointer jump: stale poisoning of reused stacks, false
// reports after exceptions, and lost fake stacks; valgrind warns on every switch.
#pragma once

#include <cstddef>

namespace weft::fibers::detail {

#if defined(WEFT_FIBER_SANITIZER_ANNOTATIONS) && WEFT_FIBER_SANITIZER_ANNOTATIONS
inline constexpr bool kAnnotate = true;
#else
inline constexpr bool kAnnotate = false;
#endif

// Before a switch: the stack about to run is [bottom, bottom + size). A null
// fake_stack_save means the running fiber is finished and its fake stack can go.
void annotate_switch_start(void** fake_stack_save, const void* bottom, std::size_t size) noexcept;
// First thing after a switch, on the new stack: `fake_stack` is what this fiber
// saved when it suspended (null on its first run); receives the previous stack's bounds.
void annotate_switch_finish(void* fake_stack, const void** bottom_old, std::size_t* size_old) noexcept;
// A fiber is about to use [base, base + size): clears poisoning left by an earlier
// fiber on a reused stack and registers it with valgrind (returns valgrind's id).
unsigned annotate_stack_created(void* base, std::size_t size) noexcept;
// A finished fiber's stack goes back to its owner: clears the poisoning its dead
// frames left (the memory may become heap or another thread's stack) and
// deregisters it from valgrind.
void annotate_stack_destroyed(unsigned valgrind_id, void* base, std::size_t size) noexcept;
// Clears ASan poisoning of [base, base + size): the stack pool calls it on every
// stack it hands out and on every slab before unmapping it. ASan does not clear
// the shadow of unmapped memory, and dead fibers' frames leave redzones behind;
// memory mapped there later (another pool's slab, a store's value stack) and a
// Wasm fiber's frames and slots (which share a stack with its native frames)
// would otherwise see plain writes reported as stack-buffer-overflows.
void annotate_stack_memory_reset(void* base, std::size_t size) noexcept;

}  // namespace weft::fibers::detail
