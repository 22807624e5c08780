// The weft command's large allocations on transparent huge pages.
//
// Starting a large module writes tens of megabytes of fresh memory: the copy
// of the code section, and the per-function tables of the decoder, the
// validator, the store and the interpreter. Every fresh 4 KiB page is a page
// fault, and on a virtual machine a fault is expensive: starting the 22 MB
// program of docs/performance.md ("Large allocations on huge pages") took
// ~16,000 of them, a third of its CPU time. glibc gives a block this large a
// mapping of its own (or fresh room at the top of the heap) that nobody has
// touched yet; advising huge pages on it before the caller writes it turns
// 512 faults into one. The kernel honours the advice in THP's "madvise" mode
// (Debian's default) and "always" mode; with THP off it is ignored and
// nothing changes.
//
// This replaces the global operator new of the weft executable only: an
// embedder's process keeps its own allocator policy.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr size_t kHugePage = size_t(2) << 20;

// A block of at least one huge page starts on a huge-page boundary and
// covers whole huge pages: a block that merely contained one would leave up
// to two huge pages' worth of 4 KiB pages at its ends (a 3.8 MB table took
// ~460 faults that way). The rounding is address space, and at most one
// partly used huge page per block.
void* allocate_block(size_t size) {
  if (size >= kHugePage) {
    const size_t whole = (size + kHugePage - 1) & ~(kHugePage - 1);
    if (void* block = std::aligned_alloc(kHugePage, whole)) {
      madvise(block, whole, MADV_HUGEPAGE);
      return block;
    }
  }
  return std::malloc(size);
}

void* allocate(size_t size) {
  if (size == 0) size = 1;
  for (;;) {
    if (void* block = allocate_block(size)) return block;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(size_t size) { return allocate(size); }
void* operator new[](size_t size) { return allocate(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
// The matching deletes are the standard ones: they call free(), which takes
// blocks from malloc() and aligned_alloc() alike.
