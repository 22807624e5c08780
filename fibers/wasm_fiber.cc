// FiberTable: slots, handles, children links.
#include "fibers/wasm_fiber.h"

namespace weft::fibers {

WasmFiber* FiberTable::create() {
  if (live_ >= max_live_) return nullptr;
  WasmFiber* f;
  if (!free_.empty()) {
    f = slots_[free_.back()];
    free_.pop_back();
  } else {
    storage_.push_back(std::make_unique<WasmFiber>());
    f = storage_.back().get();
    f->index = uint32_t(slots_.size());
    slots_.push_back(f);
  }
  f->handle = handle_of(*f);
  f->state = FiberState::Fresh;
  f->segment = 0;
  f->parent = f->first_child = f->next_sibling = f->prev_sibling = nullptr;
  f->function = nullptr;
  f->args.clear();
  ++live_;
  return f;
}

void FiberTable::set_parent(WasmFiber* f, WasmFiber* parent) {
  if (f->parent == parent) return;
  if (f->parent) {
    if (f->prev_sibling) f->prev_sibling->next_sibling = f->next_sibling;
    else f->parent->first_child = f->next_sibling;
    if (f->next_sibling) f->next_sibling->prev_sibling = f->prev_sibling;
  }
  f->prev_sibling = f->next_sibling = nullptr;
  f->parent = parent;
  if (parent) {
    f->next_sibling = parent->first_child;
    if (parent->first_child) parent->first_child->prev_sibling = f;
    parent->first_child = f;
  }
}

void FiberTable::bury(WasmFiber* f) {
  set_parent(f, nullptr);
  f->state = FiberState::Moribund;
  ++f->generation;
  f->handle = 0;
  // The slot is reused by a later create(): keep a small argument buffer so
  // that creating and finishing fibers does not allocate each time.
  f->args.clear();
  if (f->args.capacity() > kKeptArgSlots) f->args.shrink_to_fit();
  f->function = nullptr;
  free_.push_back(f->index);
  --live_;
}

}  // namespace weft::fibers
