// The fiber extension's execution semantics (docs/fibers.md §6) on native
// fiber contexts. Invariants: exactly one context runs; `state_.current` is the
// running fiber (nullptr = the current segment's root); a waiting or suspended
// fiber's native context is in its WasmFiber::context (the root's in its
// Segment); frames on fiber stacks own nothing, so dead fibers' stacks are
// freed without unwinding.
#include "runtime/fiber_runtime.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/native_stack.h"

namespace weft::runtime {

using fibers::FiberState;
using fibers::WasmFiber;

namespace {
// The bottom of each fiber stack is its native stack (the dispatch loop and
// any host calls; it grows down from native_stack_bytes_); above it is the
// fiber's Wasm area: its ExecStack, then its operand slots growing up, then
// its call frames at the very top. A suspended fiber touches the hot top of
// its native stack and the start of its Wasm area, which are adjacent: the
// split sits kNativeShareOfPage bytes into a page, so a fiber whose native
// frames and first slots fit that page costs one resident page, not the
// three of [area at the bottom | native stack at the top]
// (tests/execution/fiber_scale_test.cc measures it).
constexpr size_t kNativeShareOfPage = 3 * 1024;
constexpr size_t kMinNativeStackBytes = 64 * 1024 + kNativeShareOfPage;

// JIT code keeps its Wasm frames' return addresses and saved registers on the
// native stack, so recursion inside a fiber needs native room in proportion
// to the fiber's stack: a quarter of it (at least 67 KiB, where the
// interpreter's needs end), still split kNativeShareOfPage into a page.
size_t native_stack_bytes(const Config& config) {
  const uint64_t quarter = std::max<uint64_t>(config.fiber_stack_size, 128 * 1024) / 4;
  return std::max<size_t>(kMinNativeStackBytes, size_t(quarter / 4096 * 4096) + kNativeShareOfPage);
}

fibers::StackPoolConfig pool_config(const Config& config) {
  fibers::StackPoolConfig c;
  c.stack_size = std::max<uint64_t>(config.fiber_stack_size, 128 * 1024);  // room for the native stack and a Wasm area
  // Reserve address space for 64 stacks at a time (committed only as
  // touched): one mmap and one madvise per 64 fibers, not per fiber.
  c.slab_size = std::max<size_t>(c.slab_size, 64 * c.stack_size);
  // No guard pages: the Wasm part is bounded by explicit checks, and guarded
  // stacks would cap us at vm.max_map_count / 2 fibers.
  c.guard_pages = 0;
  return c;
}

FiberOutcome trap_outcome(TrapKind kind) {
  FiberOutcome o;
  o.kind = FiberOutcome::Kind::Trap;
  o.trap = kind;
  return o;
}

FiberOutcome done_outcome() { return FiberOutcome{}; }


std::byte* align_up(std::byte* p, size_t a) {
  return reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(p) + a - 1) & ~uintptr_t(a - 1));
}
}  // namespace

FiberRuntime::FiberRuntime(Store& store, ExecStack** current_stack, FiberBodyRunner& default_body, size_t frame_bytes)
    : store_(store),
      current_stack_(current_stack),
      default_body_(default_body),
      frame_bytes_(frame_bytes),
      native_stack_bytes_(native_stack_bytes(store.config())),
      pool_(pool_config(store.config())),
      table_(store.config().max_fibers),
      payload_(kInlinePayloadSlots) {
  state_.payload = payload_.data();
}

FiberRuntime::~FiberRuntime() {
  // Fibers still suspended when the store dies are dropped without running.
  table_.for_each_alive([&](WasmFiber& f) {
    if (f.context) fibers::abandon(std::move(f.context));
    if (f.stack) pool_.release(f.stack);
    f.stack = {};
  });
  for (Segment& s : segments_)
    if (s.root_context) fibers::abandon(std::move(s.root_context));
}

void FiberRuntime::enter_segment() {
  segments_.push_back(Segment{next_segment_id_++, state_.current, fiber_context()});
  state_.current = nullptr;
  refresh_segment();
}

void FiberRuntime::leave_segment() {
  state_.current = segments_.back().saved_current;
  if (segments_.back().root_context) fibers::abandon(std::move(segments_.back().root_context));
  segments_.pop_back();
  refresh_segment();
}


WasmFiber* FiberRuntime::fiber_operand(uint64_t handle, FiberOutcome& trap) {
  bool stale = false;
  WasmFiber* f = table_.resolve(handle, stale);
  if (!f) trap = trap_outcome(stale ? TrapKind::FiberMoribund : TrapKind::NullFiber);
  return f;
}

fiber_context* FiberRuntime::context_slot_of_current() { return context_slot_of(state_.current); }

void FiberRuntime::arrived(fiber_context&& from) {
  if (dying_stack_) {
    // The context that switched here is dead: forget it and free its stack,
    // which nothing runs on any more.
    if (from) fibers::abandon(std::move(from));
    pool_.release(dying_stack_);
    dying_stack_ = {};
  } else if (pending_store_) {
    *pending_store_ = std::move(from);
    pending_store_ = nullptr;
  }
  // Otherwise the predecessor finished and fiber_context freed its stack.
}

bool FiberRuntime::ensure_started(WasmFiber* f, bool deliver_event) {
  if (f->stack) return true;
  fibers::StackResult s = pool_.allocate();
  if (!s) return false;
  f->stack = s.value();
  const fibers::Stack stack = f->stack;
  std::span<std::byte> native(stack.base, native_stack_bytes_);
  f->context = fiber_context(
      [this, f, deliver_event](fiber_context&& from) { return fiber_main(f, std::move(from), deliver_event); },
      native, [this, stack](std::span<std::byte>) { pool_.release(stack); });
  return true;
}

FiberOutcome FiberRuntime::transfer(fiber_context* dest, fiber_context* save_to) {
  ExecStack* mine = *current_stack_;
  pending_store_ = save_to;
  // Both tiers switch from this one call site (SwitchPlan), so resuming by RET
  // keeps return prediction exact.
  fiber_context from = fibers::resume_from_shared_site(std::move(*dest));
  arrived(std::move(from));
  *current_stack_ = mine;
  return state_.outcome;
}

FiberOutcome FiberRuntime::arrived_raw(void* from, ExecStack* mine) {
  if (from) arrived(fibers::detail::Access::make(from));
  *current_stack_ = mine;
  return state_.outcome;
}

void FiberRuntime::transfer_dying(fiber_context* dest, fibers::Stack dying) {
  pending_store_ = nullptr;
  dying_stack_ = dying;
  fiber_context from = std::move(*dest).resume();
  // Never resumed: nobody holds this context any more.
  fibers::abandon(std::move(from));
  std::terminate();
}

fiber_context FiberRuntime::fiber_main(WasmFiber* f, fiber_context&& from, bool deliver_event) {
  arrived(std::move(from));
  // Carve the fiber's Wasm area above the native stack: an ExecStack, its
  // slots, its call frames (at the top, touched only once the fiber calls).
  std::byte* area = f->stack.base + native_stack_bytes_;
  std::byte* area_end = f->stack.top();
  auto* exec = new (area) ExecStack();
  std::byte* slots_begin = align_up(area + sizeof(ExecStack), 16);
  const size_t usable = size_t(area_end - slots_begin);
  const size_t frame_count = std::min<size_t>(usable / 8 / frame_bytes_, store_.config().max_call_depth);
  std::byte* frames_begin = area_end - frame_count * frame_bytes_;
  frames_begin -= reinterpret_cast<uintptr_t>(frames_begin) % alignof(void*);  // frames hold pointers
  exec->frames = frames_begin;
  exec->max_depth = uint32_t(frame_count);
  exec->base = exec->top = reinterpret_cast<uint64_t*>(slots_begin);
  exec->limit = reinterpret_cast<uint64_t*>(frames_begin);
  // Host functions this fiber calls may re-enter Wasm on its native stack.
  exec->native_floor = reinterpret_cast<uintptr_t>(f->stack.base) + kFiberNativeReserve;
  *current_stack_ = exec;

  auto* fn = static_cast<FuncInstance*>(f->function);
  Slot* fp = reinterpret_cast<Slot*>(slots_begin);
  FiberBodyRunner& body = runner_ && runner_->runs(fn) ? *runner_ : default_body_;
  Result<void> result = body.run(fn, fp, *exec, fibers::FiberTable::handle_of(*f), f->args, deliver_event);
  const uint32_t result_slots = result.ok() ? fn->result_slots : 0;
  return finish(f, std::move(result), fp, result_slots);
}

fiber_context FiberRuntime::finish(WasmFiber* f, Result<void> result, const Slot* results, uint32_t result_slots) {
  WasmFiber* parent = f->parent;
  // An uncaught exception ends the fiber as a return does (docs/fibers.md
  // §6, exceptions) and is thrown in the parent at its pending instruction.
  const bool exception = !result.ok() && result.error().kind == ErrorKind::Exception && store_.thrown;
  if (result.ok() || exception) release_descendants(f);
  else orphan_children(f);
  // The stack is freed by fiber_context once we have left it.
  f->stack = {};
  table_.bury(f);
  pending_store_ = nullptr;
  if (exception) {
    state_.outcome = FiberOutcome{FiberOutcome::Kind::Exception, TrapKind::Unreachable, 0};
    state_.payload_slots = 0;
    state_.current = parent;
    if (parent) parent->state = FiberState::Running;
    return std::move(*context_slot_of(parent));
  }
  if (result.ok()) {
    // Normal return: the parent continues after its pending instruction.
    state_.outcome = FiberOutcome{FiberOutcome::Kind::Return, TrapKind::Unreachable, 0};
    uint64_t* out = payload_area(result_slots);
    if (result_slots) std::memcpy(out, results, size_t(result_slots) * 8);
    state_.payload_slots = result_slots;
    state_.current = parent;
    if (parent) parent->state = FiberState::Running;
    return std::move(*context_slot_of(parent));
  }
  // A trap aborts the whole chain segment: every waiting fiber dies and the
  // trap goes to the host call that started the segment. Suspended fibers are
  // not affected: the dead fibers' children lose their parent but live on.
  abort_error_ = std::move(result).error();
  state_.outcome = FiberOutcome{FiberOutcome::Kind::Abort, TrapKind::Unreachable, 0};
  for (WasmFiber* a = parent; a != nullptr;) {
    WasmFiber* next = a->parent;
    orphan_children(a);
    if (a->context) fibers::abandon(std::move(a->context));
    if (a->stack) pool_.release(a->stack);
    a->stack = {};
    table_.bury(a);
    a = next;
  }
  state_.current = nullptr;
  return std::move(segments_.back().root_context);
}

void FiberRuntime::release_descendants(WasmFiber* f) {
  // Iterative, not recursive: a chain of suspended fibers may be hundreds of
  // thousands deep, and this may run on a fiber's small native stack.
  if (f->first_child == nullptr) return;  // the common case: no allocation
  std::vector<WasmFiber*> work;
  auto push_children = [&work](WasmFiber* parent) {
    for (WasmFiber* c = parent->first_child; c; c = c->next_sibling)
      if (c->state == FiberState::Suspended || c->state == FiberState::Fresh) work.push_back(c);
  };
  push_children(f);
  while (!work.empty()) {
    WasmFiber* c = work.back();
    work.pop_back();
    push_children(c);  // before bury() unlinks c: its children are still listed under it
    free_fiber(c);
  }
}

void FiberRuntime::free_fiber(WasmFiber* f) {
  if (f->context) fibers::abandon(std::move(f->context));
  if (f->stack) pool_.release(f->stack);
  f->stack = {};
  table_.bury(f);
}

void FiberRuntime::orphan_children(WasmFiber* f) {
  while (f->first_child) table_.set_parent(f->first_child, nullptr);
}

void FiberRuntime::kill(WasmFiber* f) {
  release_descendants(f);
  free_fiber(f);
}

// ---- instructions --------------------------------------------------------------

FiberOutcome FiberRuntime::new_fiber(FuncInstance* fn, const Slot* args, uint32_t slots, uint64_t& handle) {
  WasmFiber* f = table_.create();
  if (!f) return trap_outcome(TrapKind::TooManyFibers);
  refresh_fiber_lookup();
  f->function = fn;
  f->args.assign(reinterpret_cast<const uint64_t*>(args), reinterpret_cast<const uint64_t*>(args) + slots);
  handle = fibers::FiberTable::handle_of(*f);
  return done_outcome();
}

FiberRuntime::SwitchPlan FiberRuntime::plan_spawn(FuncInstance* fn, const Slot* args, uint32_t slots) {
  WasmFiber* f = table_.create();
  if (!f) return no_switch(trap_outcome(TrapKind::TooManyFibers));
  refresh_fiber_lookup();
  f->function = fn;
  f->args.assign(reinterpret_cast<const uint64_t*>(args), reinterpret_cast<const uint64_t*>(args) + slots);
  if (!ensure_started(f, false)) {
    table_.bury(f);
    return no_switch(trap_outcome(TrapKind::TooManyFibers));
  }
  fiber_context* save = context_slot_of_current();
  table_.set_parent(f, state_.current);
  if (state_.current) state_.current->state = FiberState::Waiting;
  f->state = FiberState::Running;
  f->segment = segments_.back().id;
  state_.current = f;
  return {&f->context, save};
}

FiberRuntime::SwitchPlan FiberRuntime::plan_resume(uint64_t target, uint64_t tag, const Slot* payload,
                                                   uint32_t slots) {
  SwitchPlan plan;
  if (plan_common_resume(target, tag, payload, slots, plan)) return plan;
  FiberOutcome trap;
  WasmFiber* t = fiber_operand(target, trap);
  if (!t) return no_switch(trap);
  if (t->state == FiberState::Running || t->state == FiberState::Waiting)
    return no_switch(trap_outcome(TrapKind::FiberActive));
  // A started fiber (the common case) needs neither a stack nor re-parenting.
  if (!t->stack && !ensure_started(t, true)) return no_switch(trap_outcome(TrapKind::TooManyFibers));
  fiber_context* save = context_slot_of_current();
  if (t->parent != state_.current) table_.set_parent(t, state_.current);
  if (state_.current) state_.current->state = FiberState::Waiting;
  t->state = FiberState::Running;
  t->segment = segments_.back().id;
  state_.current = t;
  set_payload(tag, payload, slots);
  return {&t->context, save};
}

FiberRuntime::SwitchPlan FiberRuntime::plan_suspend(uint64_t self, uint64_t tag, const Slot* payload,
                                                    uint32_t slots) {
  SwitchPlan plan;
  if (plan_common_suspend(self, tag, payload, slots, plan)) return plan;
  return no_switch(trap_outcome(TrapKind::NotRunningFiber));
}

FiberRuntime::SwitchPlan FiberRuntime::plan_suspend_to(uint64_t target, uint64_t tag, const Slot* payload,
                                                       uint32_t slots) {
  FiberOutcome trap;
  WasmFiber* t = fiber_operand(target, trap);
  if (!t) return no_switch(trap);
  if (t == state_.current) return no_switch(trap_outcome(TrapKind::FiberActive));
  // Running but not current: it made the host call this segment runs under,
  // so it waits in an outer segment (docs/fibers.md §2.4).
  if (t->state == FiberState::Running) return no_switch(trap_outcome(TrapKind::CrossHostFrame));
  if (t->state == FiberState::Waiting) {
    if (!is_ancestor(t)) return no_switch(trap_outcome(TrapKind::CrossHostFrame));
    // Pop the chain down to the ancestor: everything above it is suspended.
    fiber_context* save = context_slot_of_current();
    for (WasmFiber* x = state_.current; x != t; x = x->parent) x->state = FiberState::Suspended;
    t->state = FiberState::Running;
    state_.current = t;
    set_payload(tag, payload, slots);
    return {&t->context, save};
  }
  return plan_resume(target, tag, payload, slots);
}

FiberRuntime::SwitchPlan FiberRuntime::plan_switch_to(uint64_t self, uint64_t target, uint64_t tag,
                                                      const Slot* payload, uint32_t slots) {
  if (!is_current(self)) return no_switch(trap_outcome(TrapKind::NotRunningFiber));
  FiberOutcome trap;
  WasmFiber* t = fiber_operand(target, trap);
  if (!t) return no_switch(trap);
  if (t == state_.current) return no_switch(trap_outcome(TrapKind::FiberActive));
  // Running but not current: it made the host call this segment runs under.
  if (t->state == FiberState::Running) return no_switch(trap_outcome(TrapKind::CrossHostFrame));
  if (t->state == FiberState::Waiting) return plan_suspend_to(target, tag, payload, slots);
  if (!t->stack && !ensure_started(t, true)) return no_switch(trap_outcome(TrapKind::TooManyFibers));
  // T takes C's place on the chain.
  WasmFiber* c = state_.current;
  c->state = FiberState::Suspended;
  table_.set_parent(t, c->parent);
  t->state = FiberState::Running;
  t->segment = segments_.back().id;
  state_.current = t;
  set_payload(tag, payload, slots);
  return {&t->context, &c->context};
}

FiberOutcome FiberRuntime::retire(uint64_t self, uint64_t tag, const Slot* payload, uint32_t slots) {
  if (!is_current(self)) return trap_outcome(TrapKind::NotRunningFiber);
  WasmFiber* c = state_.current;
  WasmFiber* p = c->parent;
  release_descendants(c);
  fibers::Stack dying = c->stack;
  c->stack = {};
  table_.bury(c);
  state_.current = p;
  if (p) p->state = FiberState::Running;
  set_payload(tag, payload, slots);
  transfer_dying(context_slot_of(p), dying);
}

FiberOutcome FiberRuntime::retireto(uint64_t self, uint64_t target, uint64_t tag, const Slot* payload,
                                    uint32_t slots) {
  if (!is_current(self)) return trap_outcome(TrapKind::NotRunningFiber);
  FiberOutcome trap;
  WasmFiber* t = fiber_operand(target, trap);
  if (!t) return trap;
  if (t == state_.current) return trap_outcome(TrapKind::FiberActive);
  // Running but not current (it made the host call this segment runs under),
  // or waiting below that host frame.
  if (t->state == FiberState::Running || (t->state == FiberState::Waiting && !is_ancestor(t)))
    return trap_outcome(TrapKind::CrossHostFrame);
  if (!ensure_started(t, true)) return trap_outcome(TrapKind::TooManyFibers);
  WasmFiber* c = state_.current;
  WasmFiber* p = c->parent;
  if (t->state == FiberState::Waiting) {
    for (WasmFiber* x = p; x != t; x = x->parent) x->state = FiberState::Suspended;
  } else {
    // T takes C's place (re-parenting first keeps T out of C's released descendants).
    table_.set_parent(t, p);
    t->segment = segments_.back().id;
  }
  release_descendants(c);
  fibers::Stack dying = c->stack;
  c->stack = {};
  table_.bury(c);
  t->state = FiberState::Running;
  state_.current = t;
  set_payload(tag, payload, slots);
  transfer_dying(&t->context, dying);
}

FiberOutcome FiberRuntime::release(uint64_t target) {
  bool stale = false;
  WasmFiber* t = table_.resolve(target, stale);
  if (!t) return stale ? done_outcome() : trap_outcome(TrapKind::NullFiber);
  if (t->state == FiberState::Running || t->state == FiberState::Waiting)
    return trap_outcome(TrapKind::FiberActive);
  kill(t);
  return done_outcome();
}

}  // namespace weft::runtime
