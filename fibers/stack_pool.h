// StackPool: slab-allocated, lazily committed, reusable fiber stacks with optional guard pages.
//
// One mmap reserves a slab holding many stacks, so the number of fibers is not
// capped by vm.max_map_count (~65k mappings) the way one-mapping-per-stack
// allocators are; pages are committed by the kernel on first touch only.
// Released stacks are pooled (most recently used first, since their top pages are
// still resident and cached) and trim() hands their memory back to the OS.
//
// Thread-compatible: one pool per thread, or external locking. The one exception
// is release_from_any_thread(), which may race with the owner's calls.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace weft::fibers {

// A fiber stack: usable bytes [base, base + size). Stacks grow down, so a fiber
// starts at top() and must never go below limit().
struct Stack {
  std::byte* base = nullptr;
  std::size_t size = 0;

  // Lowest usable address: the bound for software stack-overflow checks (with
  // guard pages configured, the page below it is inaccessible).
  std::byte* limit() const noexcept { return base; }
  // One past the highest usable address: where the stack pointer starts.
  std::byte* top() const noexcept { return base + size; }
  std::span<std::byte> span() const noexcept { return {base, size}; }
  explicit operator bool() const noexcept { return base != nullptr; }
};

enum class StackError : std::uint8_t {
  None,
  LimitReached,  // StackPoolConfig::max_stacks stacks are in use
  OutOfMemory,   // mmap/mprotect failed (address space, overcommit, vm.max_map_count)
};

const char* stack_error_name(StackError error);

// A stack or the reason there is none (errors are values; nothing here throws).
// Two words, so it is returned in registers.
class [[nodiscard]] StackResult {
 public:
  StackResult(Stack stack) : base_(stack.base), size_or_error_(stack.size) {}  // NOLINT: implicit by design
  StackResult(StackError error) : size_or_error_(static_cast<std::size_t>(error)) {}  // NOLINT: implicit by design
  bool ok() const noexcept { return base_ != nullptr; }
  explicit operator bool() const noexcept { return ok(); }
  Stack value() const noexcept { return ok() ? Stack{base_, size_or_error_} : Stack{}; }
  StackError error() const noexcept { return ok() ? StackError::None : static_cast<StackError>(size_or_error_); }

 private:
  std::byte* base_ = nullptr;
  std::size_t size_or_error_ = 0;
};

enum class TrimMode : std::uint8_t {
  DontNeed,  // MADV_DONTNEED: resident memory drops immediately; the next use faults in zero pages
  Free,      // MADV_FREE: cheaper; the kernel reclaims the pages only under memory pressure
};

struct StackPoolConfig {
  // Usable bytes per stack. Rounded up to a multiple of 64 bytes, or of the page
  // size when guard pages are used. Stacks below one page share pages with their
  // neighbours (no guard possible), which is what makes a million tiny stacks cheap.
  std::size_t stack_size = 128 * 1024;
  // Inaccessible pages directly below each stack, so running off the end faults
  // instead of corrupting a neighbour. Each guarded stack costs two kernel
  // mappings (the protection change splits the slab), so guarded pools are bound
  // by vm.max_map_count / 2 stacks; unguarded pools are not.
  std::size_t guard_pages = 1;
  // Bytes reserved per mmap; at least one stack (with its guard) always fits.
  std::size_t slab_size = 4u << 20;
  // Upper bound on stacks in use at once; 0 = unbounded. allocate() returns
  // StackError::LimitReached beyond it.
  std::size_t max_stacks = 0;
  TrimMode trim_mode = TrimMode::DontNeed;
};

class StackPool {
 public:
  explicit StackPool(const StackPoolConfig& config = {});
  // Unmaps every slab. Stacks still in use keep their memory (the slabs are left
  // mapped) rather than pulling it from under a live fiber.
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // A pooled stack if there is one, else one carved from a slab (mapping a new
  // slab when needed). Never throws.
  StackResult allocate() noexcept;
  // Returns a stack from this pool to it; owner thread only.
  void release(Stack stack) noexcept;
  // Returns a stack from any thread (lock-free; the owner takes it back on its next
  // allocate() or trim()). Writes a small node into the stack's own memory.
  void release_from_any_thread(Stack stack) noexcept;
  // Hands the memory of pooled stacks back to the OS (see TrimMode), keeping the
  // `keep_hot` most recently released ones untouched; the address space stays
  // reserved for reuse. Returns the number of bytes advised.
  std::size_t trim(std::size_t keep_hot = 0) noexcept;
  // Takes back the stacks other threads released (allocate() and trim() do this too).
  void collect_released() noexcept;

  const StackPoolConfig& config() const noexcept { return config_; }
  std::size_t stack_size() const noexcept { return config_.stack_size; }
  // Distance between consecutive stacks in a slab (stack + guard pages).
  std::size_t stride() const noexcept { return stride_; }
  std::size_t stacks_in_use() const noexcept { return in_use_; }
  std::size_t stacks_pooled() const noexcept { return hot_.size() + cold_.size(); }
  std::size_t slab_count() const noexcept { return slabs_.size(); }
  std::size_t reserved_bytes() const noexcept { return slabs_.size() * slab_bytes_; }

 private:
  struct RemoteNode {
    RemoteNode* next;
    std::byte* base;
  };

  bool map_slab() noexcept;

  StackPoolConfig config_;
  std::size_t page_size_;
  std::size_t guard_bytes_;
  std::size_t stride_;
  std::size_t slab_bytes_;
  std::size_t in_use_ = 0;
  std::vector<std::byte*> hot_;   // released, memory untouched: reused first (LIFO)
  std::vector<std::byte*> cold_;  // released and trimmed
  std::vector<std::byte*> slabs_;
  std::byte* carve_next_ = nullptr;  // next never-used stack slot in the newest slab
  std::byte* carve_end_ = nullptr;
  std::atomic<RemoteNode*> remote_{nullptr};  // stacks released by other threads
};

}  // namespace weft::fibers
