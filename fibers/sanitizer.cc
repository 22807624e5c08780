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
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#endif

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define WEFT_HAS_VALGRIND 1
#endif

namespace weft::fibers::detail {

#if defined(WEFT_HAS_ASAN)
namespace {
// Marks a whole stack addressable. __asan_unpoison_memory_region writes its
// shadow (1/8 of the stack), which makes every shadow page of a large, mostly
// untouched stack resident: 512 KiB per 4 MiB fiber stack, gigabytes for tens
// of thousands of fibers. Whole shadow pages are given back to the kernel
// instead (they read as zero, i.e. addressable), as ASan does for large
// regions itself; only the partial pages at the ends are written.
void unpoison_stack(void* base, std::size_t size) noexcept {
  std::size_t scale = 0, offset = 0;
  __asan_get_shadow_mapping(&scale, &offset);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto beg = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t end = beg + size;
  const std::uintptr_t shadow_beg = (beg >> scale) + offset;
  const std::uintptr_t shadow_end = (end >> scale) + offset;
  const std::uintptr_t page_beg = (shadow_beg + page - 1) & ~(page - 1);
  const std::uintptr_t page_end = shadow_end & ~(page - 1);
  if (page_end <= page_beg + page ||
      madvise(reinterpret_cast<void*>(page_beg), page_end - page_beg, MADV_DONTNEED) != 0) {
    __asan_unpoison_memory_region(base, size);
    return;
  }
  // The application memory the released shadow pages describe: [inner_beg, inner_end).
  const std::uintptr_t inner_beg = (page_beg - offset) << scale;
  const std::uintptr_t inner_end = (page_end - offset) << scale;
  __asan_unpoison_memory_region(base, inner_beg - beg);
  __asan_unpoison_memory_region(reinterpret_cast<void*>(inner_end), end - inner_end);
}
}  // namespace
#endif

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
  unpoison_stack(base, size);
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
  unpoison_stack(base, size);
#else
  (void)base, (void)size;
#endif
}

void annotate_stack_destroyed(unsigned valgrind_id, void* base, std::size_t size) noexcept {
#if defined(WEFT_HAS_ASAN)
  unpoison_stack(base, size);
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
