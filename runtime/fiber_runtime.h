// Execution of the fiber extension, shared by both tiers (docs/fibers.md §6):
// every started Wasm fiber runs on its own native stack (fibers::fiber_context),
// with its own Wasm frames and operand slots carved from the same pooled
// stack; the tier that runs the fiber's function (a FiberBodyRunner: the
// interpreter's, interpreter/fiber_body.cc, or the JIT's) runs its body there.
// A switching instruction does the bookkeeping here, puts the event payload in
// the transfer area and switches native contexts; the context switched to
// learns what happened from the FiberOutcome its own switch call returns.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include <span>

#include "core/result.h"
#include "fibers/dispatch.h"
#include "fibers/stack_pool.h"
#include "fibers/wasm_fiber.h"
#include "runtime/slot.h"
#include "runtime/store.h"
#include "runtime/trap.h"

namespace weft::runtime {

// The clauses in scope at one suspension point, as a perfect-hash table from
// tag identity to clause (docs/fibers.md §7).
struct DispatchSite {
  struct Clause {
    uint32_t code_pos;      // first word of the clause in the tier's code (interpreter: CompiledFunction::code)
    uint32_t payload_slot;  // frame slot where the tag's params are delivered
    uint32_t tag_index;     // for `weft inspect`
  };
  fibers::DispatchTable table;  // tag identity → index into clauses
  std::vector<Clause> clauses;
  // The first clause again, with its tag identity (0: no clauses), inline in
  // the site: most suspension points have one clause, and an arriving event
  // then needs no table probe — fewer dependent loads between the switch and
  // the clause's first instruction.
  uint64_t first_key = 0;
  Clause first_clause{};
  uint32_t code_pos = 0;        // the suspension instruction (for `weft inspect`)
};

// What a context learns when its switch call returns.
struct FiberOutcome {
  enum class Kind : uint8_t {
    Trap,    // the instruction itself traps in this context (`trap`)
    Event,   // an event arrived: tag identity `tag`, payload in FiberRuntime::payload()
    Return,  // the fiber this context waited for returned: results in payload()
    Abort,   // (segment roots only) a fiber of the segment trapped: take_abort_error()
    Done,    // the instruction completed without switching (fiber.release)
    // The fiber this context waited for ended by an exception it did not
    // catch (Store::thrown): it is thrown at the pending instruction.
    Exception,
  };
  Kind kind = Kind::Done;
  TrapKind trap = TrapKind::Unreachable;
  uint64_t tag = 0;
};

// The part of the fiber runtime's state that a switch reads and writes,
// gathered in one standard-layout record so that the JIT's inline resume and
// suspend (jit/compile_fibers.cc) can address it by offsetof: the running
// fiber, handle resolution, where the segment's root waits, and the transfer
// area. The runtime keeps it current (after fiber creation and segment
// changes); generated code only reads the lookups and updates the rest
// exactly as plan_resume/plan_suspend + transfer would.
struct SwitchState {
  fibers::WasmFiber* current = nullptr;       // the running fiber; nullptr = the current segment's root
  fibers::WasmFiber* const* fibers = nullptr;  // FiberTable::slots(): handle index → fiber
  uint32_t fiber_count = 0;                    // FiberTable::slot_count()
  uint32_t segment_id = 0;                     // the current segment's id
  fiber_context* root_context = nullptr;       // where the current segment's root waits for a fiber
  FiberOutcome outcome;                        // what the context switched to learns
  uint64_t* payload = nullptr;                 // the transfer area (at least kInlinePayloadSlots long)
  uint32_t payload_slots = 0;
};
static_assert(std::is_standard_layout_v<SwitchState>);

// Payloads up to this many slots may be written straight into the transfer
// area (it never shrinks below it).
inline constexpr uint32_t kInlinePayloadSlots = 16;

// A tier runs fiber bodies as its own code through this: the interpreter's
// runs every function (the default), the JIT's the ones it compiled. Called
// once per fiber start, never per instruction.
class FiberBodyRunner {
 public:
  virtual ~FiberBodyRunner() = default;
  virtual bool runs(FuncInstance* fn) = 0;  // may compile fn (a lazy JIT)
  // Runs `fn` in the running fiber, whose ExecStack `exec` is current and
  // whose frame starts at fp (the slots above exec's base): checks the frame
  // fits, places `handle` (the fiber itself) at fp[0] and `args` after it,
  // and runs from the entry or — `deliver_event` — at the function-level
  // clause for the event in the transfer area. Leaves the results at fp[0..).
  virtual Result<void> run(FuncInstance* fn, Slot* fp, const ExecStack& exec, uint64_t handle,
                           std::span<const uint64_t> args, bool deliver_event) = 0;
};

class FiberRuntime {
 public:
  // `current_stack`: where the tiers keep the running context's ExecStack
  // (switches update it); `default_body`: the runner of every function no
  // other runner (set_body_runner) takes; `frame_bytes`: the size of one call
  // frame of that runner, whose frames sit at the top of each fiber's area.
  FiberRuntime(Store& store, ExecStack** current_stack, FiberBodyRunner& default_body, size_t frame_bytes);
  ~FiberRuntime();
  FiberRuntime(const FiberRuntime&) = delete;
  FiberRuntime& operator=(const FiberRuntime&) = delete;

  // Host → Wasm entries start a new chain segment (host frames are barriers).
  void enter_segment();
  void leave_segment();

  // The instructions that do not switch (new, release) or never return
  // (retire, retireto: only when they trap). `payload` points at the operand
  // slots of the event arguments (or the function arguments for new/spawn).
  FiberOutcome new_fiber(FuncInstance* fn, const Slot* args, uint32_t slots, uint64_t& handle);
  FiberOutcome retire(uint64_t self, uint64_t tag, const Slot* payload, uint32_t slots);
  FiberOutcome retireto(uint64_t self, uint64_t target, uint64_t tag, const Slot* payload, uint32_t slots);
  FiberOutcome release(uint64_t target);

  // The switching instructions (spawn, resume, suspend, suspend_to, switch)
  // in two halves, so that each tier leaves and re-enters every switch
  // through one call site (its dispatch loop's fiber_switched path,
  // weft_jit_fiber): the bookkeeping (plan_*), then transfer_to(). With one site, the frames a
  // switch returns through are the same code on both sides, so the CPU's
  // return-address predictor stays right across the stack switch.
  // Two pointers, so that a plan returns in registers: the interpreter's
  // resume/suspend costs a plan_* call and transfer_to on every round trip.
  struct SwitchPlan {
    fiber_context* dest = nullptr;  // nullptr: no switch; the result is in the outcome (outcome())
    fiber_context* save = nullptr;  // where the caller's context is kept
  };
  SwitchPlan plan_spawn(FuncInstance* fn, const Slot* args, uint32_t slots);
  SwitchPlan plan_resume(uint64_t target, uint64_t tag, const Slot* payload, uint32_t slots);
  SwitchPlan plan_suspend(uint64_t self, uint64_t tag, const Slot* payload, uint32_t slots);
  SwitchPlan plan_suspend_to(uint64_t target, uint64_t tag, const Slot* payload, uint32_t slots);
  SwitchPlan plan_switch_to(uint64_t self, uint64_t target, uint64_t tag, const Slot* payload, uint32_t slots);
  // The common resume — a started, suspended fiber whose parent is the
  // running context — checked and planned inline (what the JIT's inline
  // resume does); false, with nothing changed, for every other case.
  bool plan_common_resume(uint64_t target, uint64_t tag, const Slot* payload, uint32_t slots, SwitchPlan& plan) {
    // A null or stale handle fails the range check or the handle compare.
    const uint32_t index = uint32_t(target) - 1;
    if (__builtin_expect(index >= state_.fiber_count, 0)) return false;
    fibers::WasmFiber* t = state_.fibers[index];
    fibers::WasmFiber* c = state_.current;
    if (__builtin_expect(t->handle != target || t->state != fibers::FiberState::Suspended || t->parent != c, 0))
      return false;
    plan.save = state_.root_context;
    if (c) {
      c->state = fibers::FiberState::Waiting;
      plan.save = &c->context;
    }
    t->state = fibers::FiberState::Running;
    t->segment = state_.segment_id;
    state_.current = t;
    set_payload(tag, payload, slots);
    plan.dest = &t->context;
    return true;
  }
  // Suspend of the running fiber to its parent (or the root), inline; false
  // when `self` is not the running fiber (plan_suspend's trap).
  bool plan_common_suspend(uint64_t self, uint64_t tag, const Slot* payload, uint32_t slots, SwitchPlan& plan) {
    fibers::WasmFiber* c = state_.current;
    if (__builtin_expect(c == nullptr || c->handle != self, 0)) return false;
    fibers::WasmFiber* p = c->parent;
    c->state = fibers::FiberState::Suspended;
    state_.current = p;
    plan.dest = state_.root_context;
    if (p) {
      p->state = fibers::FiberState::Running;
      plan.dest = &p->context;
    }
    set_payload(tag, payload, slots);
    plan.save = &c->context;
    return true;
  }
  FiberOutcome transfer_to(const SwitchPlan& plan) {
    return plan.dest ? transfer(plan.dest, plan.save) : state_.outcome;
  }

  // The transfer area: event payloads and fiber results travel here.
  const uint64_t* payload() const { return state_.payload; }
  uint32_t payload_slots() const { return state_.payload_slots; }
  Error take_abort_error() { return std::move(abort_error_); }

  const fibers::FiberTable& table() const { return table_; }
  uint64_t event_tag() const { return state_.outcome.tag; }  // of the event being delivered
  SwitchState* switch_state() { return &state_; }
  // For code that switched on its own (the JIT's inline switch) and was then
  // resumed by transfer() or a finishing fiber: what a switch call returning
  // `from` (the raw saved context it delivered, may be null) must do, then the
  // outcome. `mine` is the resumed context's stack, made current again.
  FiberOutcome arrived_raw(void* from, ExecStack* mine);
  void set_body_runner(FiberBodyRunner* runner) { runner_ = runner; }
  // The outcome of the last plan_* that did not switch, or of the last switch.
  const FiberOutcome& outcome() const { return state_.outcome; }

 private:
  struct Segment {
    uint32_t id;
    fibers::WasmFiber* saved_current;  // the running fiber when the host entry began
    fiber_context root_context;        // the root, while it waits for a fiber
  };

  // Inline: it runs on every switch with a payload.
  void set_payload(uint64_t tag, const Slot* payload, uint32_t slots) {
    state_.outcome = FiberOutcome{FiberOutcome::Kind::Event, TrapKind::Unreachable, tag};
    uint64_t* out = payload_area(slots);
    // Most events carry zero or one value: no call to memcpy for those.
    if (slots == 1)
      out[0] = payload[0].u64;
    else if (slots > 1)
      std::memcpy(out, payload, size_t(slots) * sizeof(uint64_t));
    state_.payload_slots = slots;
  }
  uint64_t* payload_area(uint32_t slots) {
    if (__builtin_expect(payload_.size() < slots, 0)) {
      payload_.resize(slots);
      state_.payload = payload_.data();
    }
    return state_.payload;
  }
  // After the fiber table or the segment stack changed.
  void refresh_fiber_lookup() {
    state_.fibers = table_.slots();
    state_.fiber_count = table_.slot_count();
  }
  void refresh_segment() {
    state_.segment_id = segments_.empty() ? 0 : segments_.back().id;
    state_.root_context = segments_.empty() ? nullptr : &segments_.back().root_context;
  }
  // A plan that does not switch: `outcome` is the instruction's result.
  SwitchPlan no_switch(FiberOutcome outcome) {
    state_.outcome = outcome;
    return {};
  }
  // Resolves a fiber operand, or sets `trap` (null/moribund).
  fibers::WasmFiber* fiber_operand(uint64_t handle, FiberOutcome& trap);
  bool is_ancestor(const fibers::WasmFiber* f) const {
    return f->state == fibers::FiberState::Waiting && f->segment == segments_.back().id;
  }
  bool is_current(uint64_t handle) const { return state_.current != nullptr && state_.current->handle == handle; }
  // Gives a fresh fiber its stack and native context (not yet run); false when
  // no stack is available.
  bool ensure_started(fibers::WasmFiber* f, bool deliver_event);
  // Switches to `dest`, saving the caller's context in `save_to`; returns what
  // the caller learns when it is switched back to.
  FiberOutcome transfer(fiber_context* dest, fiber_context* save_to);
  // Switches to `dest` for good: the caller is dead and `dying` (its stack) is
  // freed by the next context.
  [[noreturn]] void transfer_dying(fiber_context* dest, fibers::Stack dying);
  fiber_context* context_slot_of_current();
  fiber_context* context_slot_of(fibers::WasmFiber* f) { return f ? &f->context : &segments_.back().root_context; }
  // Called by every context right after it is switched to.
  void arrived(fiber_context&& from);
  // The body of a started fiber; returns the context to continue with.
  fiber_context fiber_main(fibers::WasmFiber* f, fiber_context&& from, bool deliver_event);
  fiber_context finish(fibers::WasmFiber* f, Result<void> result, const Slot* results, uint32_t result_slots);
  // Frees a fiber that is not running: its stack, its suspended descendants, its slot.
  void kill(fibers::WasmFiber* f);
  void free_fiber(fibers::WasmFiber* f);  // frees one fiber that is not running (not its descendants)
  void release_descendants(fibers::WasmFiber* f);
  void orphan_children(fibers::WasmFiber* f);

  Store& store_;
  ExecStack** current_stack_;
  FiberBodyRunner& default_body_;
  size_t frame_bytes_;
  FiberBodyRunner* runner_ = nullptr;
  size_t native_stack_bytes_;  // the native part at the bottom of each fiber stack
  fibers::StackPool pool_;
  fibers::FiberTable table_;
  uint32_t next_segment_id_ = 1;
  std::vector<Segment> segments_;
  SwitchState state_;  // the running fiber, the transfer area (state_.payload), ...

  // Transfer area storage and the switch hand-off.
  std::vector<uint64_t> payload_;
  Error abort_error_;
  fiber_context* pending_store_ = nullptr;
  fibers::Stack dying_stack_;
};

}  // namespace weft::runtime
