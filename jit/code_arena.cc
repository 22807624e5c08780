#include "jit/code_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

namespace weft::jit {

namespace {
// Two views of the same pages: shared anonymous memory and its mremap alias
// (perf and other profilers see anonymous memory, where they look up
// /tmp/perf-PID.map), else a memfd mapped twice.
bool map_twice(size_t capacity, void*& executable, void*& writable) {
  writable = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (writable != MAP_FAILED) {
    // old_size 0 on a shared mapping: a second mapping of the same pages.
    executable = mremap(writable, 0, capacity, MREMAP_MAYMOVE);
    if (executable != MAP_FAILED && mprotect(executable, capacity, PROT_READ | PROT_EXEC) == 0) return true;
    if (executable != MAP_FAILED) munmap(executable, capacity);
    munmap(writable, capacity);
  }
  const int fd = memfd_create("weft-jit-code", MFD_CLOEXEC);
  if (fd < 0) return false;
  // A sparse file: its pages exist once written.
  bool ok = ftruncate(fd, off_t(capacity)) == 0;
  executable = ok ? mmap(nullptr, capacity, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) : MAP_FAILED;
  writable = executable != MAP_FAILED ? mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  // The mappings keep the file: no descriptor stays open per arena.
  close(fd);
  if (writable == MAP_FAILED) {
    if (executable != MAP_FAILED) munmap(executable, capacity);
    return false;
  }
  return true;
}
// valgrind translates code at its executable address and cannot see writes
// through the other view: without this, a rewritten direct-call slot kept
// jumping to the lazy stub under callgrind, and code placed where an
// earlier arena's was would run the old translation. (A no-op natively: a
// few instructions, per placed function or rewritten slot.)
void forget_translations(const uint8_t* code, size_t size) {
#if __has_include(<valgrind/valgrind.h>)
  VALGRIND_DISCARD_TRANSLATIONS(code, size);
#else
  (void)code;
  (void)size;
#endif
}
}  // namespace

std::unique_ptr<CodeArena> CodeArena::create(size_t capacity, size_t stub_room) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  capacity = align_up(capacity, page);
  if (stub_room > capacity) return nullptr;
  void* executable = nullptr;
  void* writable = nullptr;
  if (!map_twice(capacity, executable, writable)) return nullptr;
  return std::unique_ptr<CodeArena>(
      new CodeArena(static_cast<uint8_t*>(executable), static_cast<uint8_t*>(writable), capacity, stub_room));
}

size_t CodeArena::capacity_for(size_t body_bytes, size_t extra, size_t reach) {
  const size_t max_capacity = std::min<size_t>(size_t(1) << 30, reach - 4096);
  return std::min(max_capacity, (size_t(1) << 20) + extra + body_bytes * 32);
}

std::unique_ptr<CodeArena> CodeArena::create_sealable(size_t capacity) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  capacity = align_up(capacity, page);
  // Code of 2 MiB or more starts on a 2 MiB boundary, so that huge pages
  // (below) back it from its first byte: the kernel places a mapping whose
  // length is not a multiple of 2 MiB anywhere page-aligned, and the code
  // before the first boundary — up to 2 MiB, written first — took a fault
  // per 4 KiB page (~166 per mapping of ttf-12m's eager code,
  // docs/performance.md, "Eager code from its first byte on huge pages").
  // Over-reserve by the alignment, then give back the head and tail.
  constexpr size_t kHugePage = size_t(2) << 20;
  const size_t slack = capacity >= kHugePage ? kHugePage - page : 0;
  void* mapped = mmap(nullptr, capacity + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  uint8_t* const start = static_cast<uint8_t*>(mapped);
  uint8_t* const memory =
      slack ? reinterpret_cast<uint8_t*>(align_up(reinterpret_cast<uintptr_t>(start), kHugePage)) : start;
  if (memory > start) munmap(start, size_t(memory - start));
  if (start + slack > memory) munmap(memory + capacity, size_t(start + slack - memory));
#ifdef MADV_HUGEPAGE
  // A fault then backs 2 MiB at once instead of 4 KiB (a large module's
  // eager code: a few faults instead of thousands; docs/performance.md,
  // "Eager code straight into its executable memory").
  madvise(memory, capacity, MADV_HUGEPAGE);  // failing (no THP): 4 KiB pages
#endif
  std::unique_ptr<CodeArena> arena(new CodeArena(memory, memory, capacity, 0));
  arena->sealable_ = true;
  return arena;
}

std::unique_ptr<CodeArena> CodeArena::create_sealed(asmjit::CodeHolder& holder) {
  if (holder.flatten() != asmjit::kErrorOk || holder.resolveUnresolvedLinks() != asmjit::kErrorOk) return nullptr;
  std::unique_ptr<CodeArena> arena = create_sealable(holder.codeSize());
  if (!arena || arena->place(holder, 1) < 0 || !arena->seal(arena->used())) return nullptr;
  return arena;
}

asmjit::Environment CodeArena::environment() {
  asmjit::Environment host = asmjit::Environment::host();
  host.setObjectFormat(asmjit::ObjectFormat::kJIT);  // as asmjit::JitRuntime's
  return host;
}

bool CodeArena::seal(size_t size) {
  if (!sealable_ || sealed_ || size > capacity_) return false;
  if (mprotect(executable_, capacity_, PROT_READ | PROT_EXEC) != 0) return false;
  sealed_ = true;
  used_ = size;
  __builtin___clear_cache(reinterpret_cast<char*>(executable_), reinterpret_cast<char*>(executable_ + size));
  forget_translations(executable_, size);
  return true;
}

CodeArena::~CodeArena() {
  munmap(executable_, capacity_);
  if (writable_ != executable_) munmap(writable_, capacity_);
}

int64_t CodeArena::place(asmjit::CodeHolder& holder, size_t alignment, bool stub, size_t shift) {
  if (holder.flatten() != asmjit::kErrorOk || holder.resolveUnresolvedLinks() != asmjit::kErrorOk) return -1;
  size_t& used = stub ? stubs_used_ : used_;
  const size_t end = stub ? capacity_ : limit_;
  const size_t at = align_up(used, alignment) + shift;
  // An upper bound: relocation may only shrink the code (asmjit's address
  // table for far absolute targets included).
  const size_t estimate = holder.codeSize();
  if (estimate == 0 || at > end || estimate > end - at) return -1;
  if (holder.relocateToBase(uint64_t(reinterpret_cast<uintptr_t>(executable_ + at))) != asmjit::kErrorOk) return -1;
  const size_t size = holder.codeSize();
  for (const asmjit::Section* section : holder.sections()) {
    const size_t offset = size_t(section->offset());
    std::memcpy(writable_ + at + offset, section->data(), section->bufferSize());
    if (section->virtualSize() > section->bufferSize())
      std::memset(writable_ + at + offset + section->bufferSize(), 0,
                  size_t(section->virtualSize() - section->bufferSize()));
  }
  // The executable view sees the bytes through the same pages; machines
  // without coherent instruction caches must drop stale lines of it.
  __builtin___clear_cache(reinterpret_cast<char*>(executable_ + at), reinterpret_cast<char*>(executable_ + at + size));
  forget_translations(executable_ + at, size);
  used = at + size;
  return int64_t(at);
}

uint8_t* CodeArena::claim(size_t size, size_t alignment, size_t shift, size_t& at) {
  at = align_up(used_, alignment) + shift;
  if (size == 0 || at > limit_ || size > limit_ - at) return nullptr;
  return writable_ + at;
}

void CodeArena::publish(size_t at, size_t size) {
  __builtin___clear_cache(reinterpret_cast<char*>(executable_ + at), reinterpret_cast<char*>(executable_ + at + size));
  forget_translations(executable_ + at, size);
  used_ = at + size;
}

void CodeArena::rewrite(size_t offset, const void* bytes, size_t size) {
  std::memcpy(writable_ + offset, bytes, size);
  __builtin___clear_cache(reinterpret_cast<char*>(executable_ + offset),
                          reinterpret_cast<char*>(executable_ + offset + size));
  forget_translations(executable_ + offset, size);
}

}  // namespace weft::jit
