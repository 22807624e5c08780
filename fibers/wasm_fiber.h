// Wasm fiber objects (docs/fibers.md §1, §8): states, resume-parent and
// children links, and generation-checked 64-bit handles. The fiber runtime
// both tiers share (runtime/fiber_runtime.h) attaches a native fiber_context
// and stack to each started fiber; this layer only keeps the bookkeeping.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "fibers/fiber_context.h"
#include "fibers/stack_pool.h"

namespace weft::fibers {

enum class FiberState : uint8_t {
  Fresh,      // made by fiber.new, never ran
  Suspended,  // stopped at a switching instruction, off the resume chain
  Running,    // the one executing now
  Waiting,    // on the resume chain below the running fiber
  Moribund,   // returned, retired, released or aborted; its handle is stale
};

struct WasmFiber;

// The fields a switch reads and writes, first in every WasmFiber and standard
// layout: the JIT's inline resume/suspend (jit/compile_fibers.cc) addresses
// them by offsetof, as the fiber runtime does by name.
struct FiberSwitchFields {
  uint64_t handle = 0;       // FiberTable::handle_of(*this) while alive, 0 once moribund
  FiberState state = FiberState::Moribund;
  uint32_t segment = 0;      // chain segment it was last resumed in
  WasmFiber* parent = nullptr;  // resume parent; nullptr = the root of its segment (or none)
  fiber_context context;     // where to continue it; empty while running or before start
};
static_assert(std::is_standard_layout_v<FiberSwitchFields>);

struct WasmFiber : FiberSwitchFields {
  uint32_t index = 0;        // slot in the FiberTable
  uint32_t generation = 1;   // bumped when the fiber dies, so old handles go stale
  WasmFiber* first_child = nullptr;
  WasmFiber* next_sibling = nullptr;
  WasmFiber* prev_sibling = nullptr;
  Stack stack;               // started fibers: its native stack plus the executor's area
  void* function = nullptr;  // executor's function object (runtime::FuncInstance*)
  std::vector<uint64_t> args;  // fiber.new/spawn arguments, without the fiber's own reference
};

// Owner of all Wasm fibers of a store. Handles are (generation << 32) | (index + 1),
// so 0 is null and a dead fiber's handle never matches a live one.
class FiberTable {
 public:
  // Argument buffers up to this many slots survive a fiber's death for the
  // next fiber in its slot (creation without malloc).
  static constexpr size_t kKeptArgSlots = 8;

  explicit FiberTable(uint64_t max_live) : max_live_(max_live) {}
  FiberTable(const FiberTable&) = delete;
  FiberTable& operator=(const FiberTable&) = delete;

  // A new Fresh fiber, or nullptr when max_live fibers are alive.
  WasmFiber* create();
  // nullptr for null or stale (moribund) handles; `stale` tells them apart.
  WasmFiber* resolve(uint64_t handle, bool& stale) const {
    stale = false;
    if (handle == 0) return nullptr;
    uint32_t index = uint32_t(handle) - 1;
    if (index >= slots_.size() || slots_[index]->generation != uint32_t(handle >> 32) ||
        slots_[index]->state == FiberState::Moribund) {
      stale = true;
      return nullptr;
    }
    return slots_[index];
  }
  // Slot index → fiber, for code that resolves handles itself (the JIT's inline
  // resume: index = low half − 1, then one compare with the fiber's `handle`).
  // Valid until the next create().
  WasmFiber* const* slots() const { return slots_.data(); }
  uint32_t slot_count() const { return uint32_t(slots_.size()); }
  static uint64_t handle_of(const WasmFiber& f) { return (uint64_t(f.generation) << 32) | (f.index + 1); }

  // Moves `f` under `parent` (nullptr: no parent) in the children lists.
  void set_parent(WasmFiber* f, WasmFiber* parent);
  // Marks `f` moribund, unlinks it and frees its slot for reuse. The executor
  // must have freed its stack and context first.
  void bury(WasmFiber* f);

  template <class Fn>
  void for_each_alive(Fn&& fn) {
    for (auto& f : slots_)
      if (f->state != FiberState::Moribund) fn(*f);
  }

  uint64_t live() const { return live_; }
  uint64_t max_live() const { return max_live_; }

 private:
  std::vector<WasmFiber*> slots_;                   // by index; owned by storage_
  std::vector<std::unique_ptr<WasmFiber>> storage_;
  std::vector<uint32_t> free_;
  uint64_t live_ = 0;
  uint64_t max_live_;
};

}  // namespace weft::fibers
