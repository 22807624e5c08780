// StackPool: slab reservation, carving, pooling and trimming of fiber stacks (Linux mmap/madvise).
#include "fibers/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>

#include "fibers/sanitizer.h"

namespace weft::fibers {

namespace {

constexpr std::size_t kStackAlignment = 64;  // a cache line; also satisfies both ABIs' 16 bytes
constexpr std::size_t kMinStackSize = 256;

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::uintptr_t address(const std::byte* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

const char* stack_error_name(StackError error) {
  switch (error) {
    case StackError::None: return "none";
    case StackError::LimitReached: return "fiber stack limit reached";
    case StackError::OutOfMemory: return "out of memory for fiber stacks";
  }
  return "unknown";
}

StackPool::StackPool(const StackPoolConfig& config)
    : config_(config), page_size_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  // Normalise rather than reject: every configuration yields a working pool.
  config_.stack_size = std::max(config_.stack_size, kMinStackSize);
  config_.stack_size = round_up(config_.stack_size, config_.guard_pages ? page_size_ : kStackAlignment);
  guard_bytes_ = config_.guard_pages * page_size_;
  stride_ = config_.stack_size + guard_bytes_;
  slab_bytes_ = round_up(std::max(config_.slab_size, stride_), page_size_);
  // Whole stacks only: the tail of a slab that cannot hold one is never carved.
  config_.slab_size = slab_bytes_;
}

StackPool::~StackPool() {
  collect_released();
  if (in_use_ != 0) return;  // live fibers still run on these slabs: leave them mapped
  for (std::byte* slab : slabs_) {
    if constexpr (detail::kAnnotate) detail::annotate_stack_memory_reset(slab, slab_bytes_);
    munmap(slab, slab_bytes_);
  }
}

bool StackPool::map_slab() noexcept {
  const std::size_t stacks_per_slab = slab_bytes_ / stride_;
  // Guarded slabs start inaccessible and each stack is made accessible when carved;
  // unguarded ones are accessible at once. MAP_NORESERVE: no commit charge for the
  // reservation, pages are committed on first touch.
  const int prot = guard_bytes_ ? PROT_NONE : PROT_READ | PROT_WRITE;
  void* slab = mmap(nullptr, slab_bytes_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (slab == MAP_FAILED) return false;
  try {
    // Reserve bookkeeping up front so release() can never need to allocate.
    // Geometric growth: with one stack per slab (large stacks), growing by
    // one slab's worth would copy the lists once per new stack.
    const std::size_t total = (slabs_.size() + 1) * stacks_per_slab;
    if (hot_.capacity() < total) hot_.reserve(std::max(total, 2 * hot_.capacity()));
    if (cold_.capacity() < total) cold_.reserve(std::max(total, 2 * cold_.capacity()));
    if (slabs_.capacity() < slabs_.size() + 1) slabs_.reserve(2 * slabs_.size() + 1);
  } catch (const std::bad_alloc&) {
    munmap(slab, slab_bytes_);
    return false;
  }
  // Transparent huge pages would commit 2 MiB where a fiber touches a few KiB.
  madvise(slab, slab_bytes_, MADV_NOHUGEPAGE);
  slabs_.push_back(static_cast<std::byte*>(slab));
  carve_next_ = static_cast<std::byte*>(slab);
  carve_end_ = carve_next_ + stacks_per_slab * stride_;
  return true;
}

void StackPool::collect_released() noexcept {
  RemoteNode* node = remote_.exchange(nullptr, std::memory_order_acquire);
  while (node) {
    RemoteNode* next = node->next;  // read before the stack may be reused
    hot_.push_back(node->base);
    --in_use_;
    node = next;
  }
}

StackResult StackPool::allocate() noexcept {
  if (hot_.empty() && cold_.empty() && remote_.load(std::memory_order_relaxed)) collect_released();
  std::byte* base = nullptr;
  if (!hot_.empty()) {
    base = hot_.back();
    hot_.pop_back();
  } else if (!cold_.empty()) {
    base = cold_.back();
    cold_.pop_back();
  } else {
    if (config_.max_stacks && in_use_ >= config_.max_stacks) return StackError::LimitReached;
    if (carve_next_ == carve_end_ && !map_slab()) return StackError::OutOfMemory;
    base = carve_next_ + guard_bytes_;  // the guard sits below the stack it protects
    if (guard_bytes_ && mprotect(base, config_.stack_size, PROT_READ | PROT_WRITE) != 0) {
      return StackError::OutOfMemory;  // typically vm.max_map_count: each guard splits the mapping
    }
    carve_next_ += stride_;
  }
  ++in_use_;
  if constexpr (detail::kAnnotate) detail::annotate_stack_memory_reset(base, config_.stack_size);
  return Stack{base, config_.stack_size};
}

void StackPool::release(Stack stack) noexcept {
  hot_.push_back(stack.base);  // capacity reserved in map_slab(): cannot allocate
  --in_use_;
}

void StackPool::release_from_any_thread(Stack stack) noexcept {
  // The node lives at the top of the released stack: its memory is ours again and
  // stays untouched until the owner reclaims it.
  auto* node = reinterpret_cast<RemoteNode*>(stack.top() - sizeof(RemoteNode));
  node->base = stack.base;
  node->next = remote_.load(std::memory_order_relaxed);
  while (!remote_.compare_exchange_weak(node->next, node, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

std::size_t StackPool::trim(std::size_t keep_hot) noexcept {
  collect_released();
  if (hot_.size() <= keep_hot) return 0;
  // The most recently released stacks are at the back of hot_; trim the others.
  const auto first = hot_.begin();
  const auto last = hot_.end() - static_cast<std::ptrdiff_t>(keep_hot);
  std::sort(first, last);  // cold_ is kept sorted
  const int advice = config_.trim_mode == TrimMode::Free ? MADV_FREE : MADV_DONTNEED;
  std::size_t advised = 0;
  // Only pages lying entirely inside released stacks may go: small stacks share
  // pages with neighbours that may still be running. So walk all released stacks
  // (new and already trimmed) in address order and coalesce adjacent ones into
  // runs; in each run, advise the whole pages that overlap a newly trimmed stack
  // (pages covered only by earlier-trimmed stacks were advised back then).
  std::uintptr_t run_begin = 0, run_end = 0;
  auto run_new = first;  // the run's new stacks: consecutive in the sorted new range
  std::size_t run_new_count = 0;
  auto flush = [&] {
    const std::uintptr_t lo = round_up(run_begin, page_size_);
    const std::uintptr_t hi = run_end / page_size_ * page_size_;
    std::uintptr_t pending_lo = 0, pending_hi = 0;
    auto advise = [&] {
      if (pending_hi > pending_lo &&
          madvise(reinterpret_cast<void*>(pending_lo), pending_hi - pending_lo, advice) == 0) {
        advised += pending_hi - pending_lo;
      }
    };
    for (std::size_t i = 0; i < run_new_count; ++i) {
      const std::uintptr_t b = address(run_new[static_cast<std::ptrdiff_t>(i)]);
      const std::uintptr_t page_lo = std::max(lo, b / page_size_ * page_size_);
      const std::uintptr_t page_hi = std::min(hi, round_up(b + config_.stack_size, page_size_));
      if (page_hi <= page_lo) continue;
      if (page_lo > pending_hi) {
        advise();
        pending_lo = page_lo;
      }
      pending_hi = page_hi;
    }
    advise();
  };
  auto add = [&](std::vector<std::byte*>::iterator it, bool is_new) {
    const std::uintptr_t begin = address(*it);
    if (guard_bytes_ != 0 || begin != run_end) {  // guarded stacks never touch each other
      if (run_end != 0) flush();
      run_begin = begin;
      run_new_count = 0;
    }
    run_end = begin + config_.stack_size;
    if (is_new && run_new_count++ == 0) run_new = it;
  };
  auto new_it = first;
  auto old_it = cold_.begin();
  while (new_it != last || old_it != cold_.end()) {
    if (old_it == cold_.end() || (new_it != last && *new_it < *old_it)) {
      add(new_it++, true);
    } else {
      add(old_it++, false);
    }
  }
  if (run_end != 0) flush();
  const auto old_size = static_cast<std::ptrdiff_t>(cold_.size());
  cold_.insert(cold_.end(), first, last);  // capacity reserved in map_slab()
  std::inplace_merge(cold_.begin(), cold_.begin() + old_size, cold_.end());
  hot_.erase(first, last);
  return advised;
}

}  // namespace weft::fibers
