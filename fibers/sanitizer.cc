// ASan fiber-switch API and valgrind client requests behind fibers/sanitizer.h (no-ops when unavailable).
#include "fibers/sanitizer.h"

#if defined(__SANITIZE_ADDRESS__)
#define WEFT_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_HAS_ASAN 1
#endif
#endif

#if defined(WEFT_HAS_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define WEFT_HAS_VALGRIND 1
#endif

namespace weft::fibers::detail {

void annotate_switch_start(void** fake_stack_save, const void* bottom, std::size_t size) noexcept {
#if defined(WEFT_HAS_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}

void annotate_switch_finish(void* fake_stack, const void** bottom_old, std::size_t* size_old) noexcept {
#if defined(WEFT_HAS_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack;
  if (bottom_old) *bottom_old = nullptr;
  if (size_old) *size_old = 0;
#endif
}

unsigned annotate_stack_created(void* base, std::size_t size) noexcept {
#if defined(WEFT_HAS_ASAN)
  __asan_unpoison_memory_region(base, size);
#endif
#if defined(WEFT_HAS_VALGRIND)
  return VALGRIND_STACK_REGISTER(base, static_cast<char*>(base) + size);
#else
  (void)base, (void)size;
  return 0;
#endif
}

void annotate_stack_memory_reset(void* base, std::size_t size) noexcept {
#if defined(WEFT_HAS_ASAN)
  __asan_unpoison_memory_region(base, size);
#else
  (void)base, (void)size;
#endif
}

void annotate_stack_destroyed(unsigned valgrind_id, void* base, std::size_t size) noexcept {
#if defined(WEFT_HAS_ASAN)
  __asan_unpoison_memory_region(base, size);
#else
  (void)base, (void)size;
#endif
#if defined(WEFT_HAS_VALGRIND)
  VALGRIND_STACK_DEREGISTER(valgrind_id);
#else
  (void)valgrind_id;
#endif
}

}  // namespace weft::fibers::detail
