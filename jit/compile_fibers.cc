// The fiber extension (docs/fibers.md §4–§6, docs/architecture.md "The
// baseline JIT": fiber path). Handles and event clauses are compiled inline;
// each fiber instruction spills the stack and calls weft_jit_fiber with a
// static FiberSite naming its operand slots. The switch itself happens inside
// that call, on this function's native stack: when the call returns, this
// context runs again and the status says how to go on — continue, trap, or an
// event, which the code dispatches itself with one probe of the suspension
// point's perfect-hash table (multiply, shift, load, compare) and a jump
// table to the clause. A clause's head copies the payload from the fiber
// runtime's transfer area into its operand slots.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fibers/fiber_context.h"
#include "runtime/fiber_runtime.h"
#include "jit/compiler.h"
#include "jit/context.h"

namespace weft::jit {

namespace {
constexpr Reg kCtx = Registers::kContext, kFp = Registers::kFrame, kScratch = Registers::kScratch;
constexpr const Reg* kArg = Registers::kArg;
using SwitchRegs = Registers::FiberSwitch;
constexpr int32_t ctx_event_tag = int32_t(offsetof(JitContext, event_tag));
constexpr int32_t ctx_stack = int32_t(offsetof(JitContext, stack));
constexpr int32_t ctx_native_limit = int32_t(offsetof(JitContext, native_limit));

// The fiber runtime's switch state and a fiber's switch fields, as the
// inline resume/suspend address them.
using runtime::SwitchState;
using fibers::FiberSwitchFields;
constexpr int32_t state_current = int32_t(offsetof(SwitchState, current));
constexpr int32_t state_fibers = int32_t(offsetof(SwitchState, fibers));
constexpr int32_t state_fiber_count = int32_t(offsetof(SwitchState, fiber_count));
constexpr int32_t state_segment_id = int32_t(offsetof(SwitchState, segment_id));
constexpr int32_t state_root_context = int32_t(offsetof(SwitchState, root_context));
constexpr int32_t state_kind = int32_t(offsetof(SwitchState, outcome) + offsetof(runtime::FiberOutcome, kind));
constexpr int32_t state_tag = int32_t(offsetof(SwitchState, outcome) + offsetof(runtime::FiberOutcome, tag));
constexpr int32_t state_payload = int32_t(offsetof(SwitchState, payload));
constexpr int32_t state_payload_slots = int32_t(offsetof(SwitchState, payload_slots));
constexpr int32_t fiber_handle = int32_t(offsetof(FiberSwitchFields, handle));
constexpr int32_t fiber_state = int32_t(offsetof(FiberSwitchFields, state));
constexpr int32_t fiber_segment = int32_t(offsetof(FiberSwitchFields, segment));
constexpr int32_t fiber_parent = int32_t(offsetof(FiberSwitchFields, parent));
constexpr int32_t fiber_context_slot = int32_t(offsetof(FiberSwitchFields, context));
static_assert(sizeof(runtime::FiberOutcome::Kind) == 1 && sizeof(fibers::FiberState) == 1,
              "the inline switch writes and compares them as bytes");
constexpr uint8_t as_byte(fibers::FiberState s) { return uint8_t(s); }

enum FiberStatusCode : int32_t { kContinue = 0, kTrapped = 1, kEvent = 2 };

}  // namespace

Label FunctionCompiler::clause_label(uint32_t body_offset) {
  for (auto& [offset, label] : clause_labels_)
    if (offset == body_offset) return label;
  clause_labels_.push_back({body_offset, masm_.new_label()});
  return clause_labels_.back().second;
}

FiberSite* FunctionCompiler::new_fiber_site(Opcode op) {
  sites_out_->push_back(std::make_unique<FiberSite>());
  FiberSite* site = sites_out_->back().get();
  site->op = op;
  site->self = self_;
  site->self_index = self_index_;
  site->position = uint32_t(sites_out_->size() - 1);
  return site;
}

void FunctionCompiler::build_scope(const std::vector<validator::EventClause>& scope, FiberSite& site,
                                   std::vector<Label>& targets) {
  // Two tag indices may be one tag after linking: the first clause in scope
  // order (innermost first) wins, as in the interpreter.
  std::vector<uint64_t> keys;
  std::vector<uint32_t> values;
  for (const validator::EventClause& clause : scope) {
    const uint64_t id = instance_.tags[clause.tag]->id;
    if (std::find(keys.begin(), keys.end(), id) != keys.end()) {
      site.scope.push_back({clause.tag, UINT32_MAX});
      continue;
    }
    site.scope.push_back({clause.tag, uint32_t(targets.size())});
    keys.push_back(id);
    values.push_back(uint32_t(targets.size()));
    targets.push_back(clause_label(clause.body_offset));
  }
  site.table = fibers::DispatchTable::build(keys, values);
}

Label FunctionCompiler::dispatch_stub(FiberSite& site) {
  const auto& points = instance_.info->functions[self_->index - first_defined_].suspension_points();
  // Suspension points are in body order; dead code skips some.
  while (next_suspension_ < points.size() && points[next_suspension_].body_offset < instr_offset()) ++next_suspension_;
  DispatchStub stub{masm_.new_label(), &site, {}};
  if (next_suspension_ < points.size() && points[next_suspension_].body_offset == instr_offset())
    build_scope(points[next_suspension_].scope, site, stub.targets);
  dispatch_stubs_.push_back(std::move(stub));
  return dispatch_stubs_.back().label;
}

void FunctionCompiler::call_fiber_helper(const FiberSite* site) {
  // The fiber runtime and the code it runs read the call depth from the stack.
  masm_.load64(kScratch, kCtx, ctx_stack);
  store_depth(masm_, kScratch, Registers::kTemp1);  // the stack is spilled: temps are free
  masm_.move(kArg[0], kCtx);
  masm_.move(kArg[1], kFp);
  move_instance_word(kArg[2], InstanceRef::FiberSite, site->position);
  masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_fiber));
  reload_pinned_locals();  // every fiber instruction's call (kReturn, kReturn2 are not among them)
}

// fiber.resume of a started, suspended fiber whose parent is the running
// context, fiber.suspend of the running fiber to its parent, and fiber.switch
// of the running fiber to a started, suspended sibling: the checks and
// bookkeeping of FiberRuntime::plan_resume / plan_suspend / plan_switch_to,
// the payload into the transfer area, and the switch itself, in this
// function's code (docs/architecture.md, "The baseline JIT": fibers).
// Anything else — a null, stale, fresh, running or waiting target, a
// re-parenting resume or switch, a wrong `self` — jumps to `slow` before any
// state changed, and weft_jit_fiber handles it with the interpreter's
// semantics and trap order.
void FunctionCompiler::emit_inline_switch(const FiberSite& site, const std::vector<uint32_t>& sources,
                                          const std::vector<Label>& clauses, Label slow, Label after) {
  using fibers::FiberState;
  constexpr Reg S = SwitchRegs::kState, save = SwitchRegs::kSave, dest = SwitchRegs::kDest;
  // Temporaries: every allocatable register is free here (the stack is spilled).
  constexpr Reg t0 = Registers::kTemp0, t1 = Registers::kTemp1;
  // The switch state's address is constant for this code: an immediate, not
  // a load through ctx (a switch is a chain of dependent loads — handle,
  // fiber, saved stack pointer, saved registers — and this shortens it).
  move_instance_word(S, InstanceRef::FiberState, 0);
  // dest = the target fiber of the handle in frame slot `slot`, if it is a
  // live, started, suspended fiber; otherwise to `slow`. The fiber this site
  // switched to last is tried first (its handle still equal to the operand);
  // otherwise the handle is resolved through the table (a null handle is out
  // of range, a stale one fails the handle compare) and remembered.
  auto find_suspended_target = [&](uint32_t slot) {
    masm_.load64(t0, kFp, slot_disp(slot));
    Label resolved = masm_.new_label();
    move_instance_word(kScratch, InstanceRef::ResumeCache, site.position);
    masm_.load64(dest, kScratch, 0);
    masm_.compare_mem64(t0, dest, fiber_handle);
    masm_.jump_if(Cond::Eq, resolved);
    masm_.add32_imm(t1, t0, -1);  // null → 0xFFFFFFFF, out of range
    masm_.compare_mem(false, t1, S, state_fiber_count);
    masm_.jump_if(Cond::GeU, slow);
    masm_.load64(dest, S, state_fibers);
    masm_.load64_indexed(dest, dest, t1);
    masm_.compare_mem64(t0, dest, fiber_handle);
    masm_.jump_if(Cond::Ne, slow);
    masm_.store64(kScratch, 0, dest);
    masm_.bind(resolved);
    masm_.compare8_mem_imm(dest, fiber_state, as_byte(FiberState::Suspended));
    masm_.jump_if(Cond::Ne, slow);
  };
  // The target runs now, in this segment; dest becomes its context slot.
  auto run_target = [&]() {
    masm_.store8_imm(dest, fiber_state, as_byte(FiberState::Running));
    masm_.load32(t0, S, state_segment_id);
    masm_.store32(dest, fiber_segment, t0);
    masm_.store64(S, state_current, dest);
    masm_.address_of(dest, dest, fiber_context_slot);
  };
  // `fiber` must be the running fiber (S.current) and its handle the `self`
  // operand in frame slot `slot`; otherwise to `slow`.
  auto load_running_self = [&](Reg fiber, uint32_t slot) {
    masm_.load64(fiber, S, state_current);
    masm_.test_bits(true, fiber, fiber);
    masm_.jump_if_zero(slow);
    masm_.load64(t0, kFp, slot_disp(slot));
    masm_.compare_mem64(t0, fiber, fiber_handle);
    masm_.jump_if(Cond::Ne, slow);
  };
  // out = where the context of `fiber` is kept, which enters `state`; a null
  // fiber is the segment's root (FiberRuntime::context_slot_of).
  auto context_slot_of = [&](Reg fiber, FiberState state, Reg out) {
    Label root = masm_.new_label(), ready = masm_.new_label();
    masm_.test_bits(true, fiber, fiber);
    masm_.jump_if_zero(root);
    masm_.store8_imm(fiber, fiber_state, as_byte(state));
    masm_.address_of(out, fiber, fiber_context_slot);
    masm_.jump(ready);
    masm_.bind(root);
    masm_.load64(out, S, state_root_context);
    masm_.bind(ready);
  };
  uint32_t first_payload_source = 1;
  if (site.op == Opcode::FiberResume) {
    // A started, suspended target whose parent is the running context.
    find_suspended_target(sources[0]);
    masm_.load64(t1, S, state_current);
    masm_.compare_mem64(t1, dest, fiber_parent);
    masm_.jump_if(Cond::Ne, slow);
    // Committed: the running context waits (its context goes to its fiber,
    // or to the segment's root slot), t runs in this segment.
    context_slot_of(t1, FiberState::Waiting, save);
    run_target();
  } else if (site.op == Opcode::FiberSwitch) {
    // `self` must be the running fiber and the target a started, suspended
    // sibling (same parent, or both without one): it takes self's place on
    // the chain with no re-linking (plan_switch_to's common case; a target
    // elsewhere in the tree needs the children lists updated: slow path).
    first_payload_source = 2;
    constexpr Reg self = SwitchRegs::kSelf;
    load_running_self(self, sources[0]);
    find_suspended_target(sources[1]);
    masm_.load64(t1, self, fiber_parent);
    masm_.compare_mem64(t1, dest, fiber_parent);
    masm_.jump_if(Cond::Ne, slow);
    masm_.store8_imm(self, fiber_state, as_byte(FiberState::Suspended));
    masm_.address_of(save, self, fiber_context_slot);
    run_target();
  } else {
    // `self` must be the running fiber; its parent (or the root) runs next.
    load_running_self(save, sources[0]);
    masm_.load64(t1, save, fiber_parent);
    masm_.store8_imm(save, fiber_state, as_byte(FiberState::Suspended));
    masm_.store64(S, state_current, t1);
    masm_.address_of(save, save, fiber_context_slot);
    context_slot_of(t1, FiberState::Running, dest);
  }
  // The event: {Event, tag} and the payload in the transfer area.
  masm_.store8_imm(S, state_kind, uint8_t(runtime::FiberOutcome::Kind::Event));
  if (site.tag <= uint64_t(INT32_MAX)) {
    record_narrow(masm_.store64_patchable32(S, state_tag, uint32_t(site.tag)), InstanceRef::SiteTag, site.position);
  } else {
    move_instance_word(kScratch, InstanceRef::SiteTag, site.position);
    masm_.store64(S, state_tag, kScratch);
  }
  if (site.payload_slots) {
    constexpr Reg payload = SwitchRegs::kPayload;
    masm_.load64(payload, S, state_payload);
    for (uint32_t i = 0; i < site.payload_slots; ++i) {
      masm_.load64(t0, kFp, slot_disp(sources[first_payload_source + i]));
      masm_.store64(payload, int32_t(i * 8), t0);
    }
  }
  masm_.store32_imm(S, state_payload_slots, site.payload_slots);
  // This context's stack and native limit travel above its saved frame, so
  // whichever switch resumes it, the resume point below restores them.
  static_assert(ctx_native_limit != ctx_stack);
  masm_.push_words(kCtx, ctx_stack, ctx_native_limit);
  Label resume = masm_.new_label(), arrival = masm_.new_label();
  // (Inline only for a tag identity below 2^31: compile_fiber.)
  record_narrow(masm_.switch_fiber_stack(save, dest, resume, uint32_t(site.tag)), InstanceRef::SiteTag, site.position);

  // Resumed (the pinned registers are ours again). from = 0 and tag = a tag
  // identity: another inline switch delivered that event. Otherwise (from = a
  // context the assembly switch delivered for storing, or tag = 0: the fiber
  // we waited for finished, or the segment aborted) weft_jit_fiber_arrived
  // sorts it out.
  constexpr Reg from = SwitchRegs::kArrivedFrom, tag = SwitchRegs::kArrivedTag;
  static_assert(t1 != from && t1 != tag, "the stack word is popped into t1");
  masm_.bind(resume);
  move_instance_word(kScratch, InstanceRef::Context, 0);  // = kCtx, without waiting for its reload
  masm_.pop_words(kScratch, ctx_native_limit, t1);
  masm_.store64(kScratch, ctx_stack, t1);
  move_instance_word(kScratch, InstanceRef::InterpStack, 0);
  masm_.store64(kScratch, 0, t1);
  masm_.test_bits(true, from, from);
  masm_.jump_if_nonzero(arrival);
  masm_.test_bits(true, tag, tag);
  masm_.jump_if_zero(arrival);
  emit_dispatch(site, clauses);
  masm_.bind(arrival);
  // `from` first: it may be an argument register.
  masm_.move(kArg[1], from);
  masm_.move(kArg[0], kCtx);
  masm_.move(kArg[2], kFp);
  move_instance_word(kArg[3], InstanceRef::FiberSite, site.position);
  masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_fiber_arrived));
  masm_.jump(after);
}

// The inline fast path of event delivery: tag identity (kArrivedTag) → clause, one
// probe of the perfect-hash table; a miss is `unhandled event` in this context.
void FunctionCompiler::emit_dispatch(const FiberSite& site, const std::vector<Label>& targets) {
  Label unhandled = trap_label(runtime::TrapKind::UnhandledEvent);
  if (targets.empty()) {
    masm_.jump(unhandled);
    return;
  }
  const fibers::DispatchTable& table = site.table;
  constexpr Reg tag = SwitchRegs::kArrivedTag;
  if (table.size() == 1) {
    // One clause: the table degenerates to one compare.
    if (const uint64_t key = table.slots()[0].key; key <= uint64_t(INT32_MAX)) {
      record_narrow(masm_.compare_patchable32(tag, uint32_t(key)), InstanceRef::DispatchKey, site.position);
    } else {
      move_instance_word(kScratch, InstanceRef::DispatchKey, site.position);
      masm_.compare(true, tag, kScratch);
    }
    masm_.jump_if(Cond::Ne, unhandled);
    masm_.jump(targets[table.slots()[0].value]);
    return;
  }
  constexpr Reg slot = Registers::kTemp0;
  static_assert(slot != tag);
  masm_.move(slot, tag);
  move_instance_word(kScratch, InstanceRef::DispatchMultiplier, site.position);
  masm_.int_op(IntOp::Mul, true, slot, kScratch);
  masm_.shift_imm(ShiftOp::ShrU, true, slot, uint8_t(table.shift()));
  masm_.shift_imm(ShiftOp::Shl, true, slot, 4);  // sizeof(Entry)
  static_assert(sizeof(fibers::DispatchTable::Entry) == 16);
  move_instance_word(kScratch, InstanceRef::DispatchSlots, site.position);
  masm_.address_of_index(kScratch, kScratch, slot, 0);
  masm_.compare_mem64(tag, kScratch, int32_t(offsetof(fibers::DispatchTable::Entry, key)));
  masm_.jump_if(Cond::Ne, unhandled);
  masm_.load32(slot, kScratch, int32_t(offsetof(fibers::DispatchTable::Entry, value)));
  masm_.jump_table(slot, targets.data(), uint32_t(targets.size()));
}

// `event $e` in a handle or at the function's outermost level: the segment
// before it ends as `end` would, then the clause's code begins.
void FunctionCompiler::event_clause(uint32_t tag_index) {
  ControlFrame& f = control_.back();
  if (!f.unreachable) {
    spill_all();
    branch_to(f);  // the handle's end, or (function level) the return
  }
  truncate(f.height);
  f.unreachable = false;
  masm_.bind(clause_label(uint32_t(reader_.pos())));
  // The payload arrives in the transfer area; the memory may have grown while
  // other fibers ran.
  const uint32_t slots = instance_.tags[tag_index]->param_slots;
  if (slots) {
    Reg value = alloc_reg();
    move_instance_word(kScratch, InstanceRef::FiberState, 0);
    masm_.load64(kScratch, kScratch, state_payload);
    for (uint32_t i = 0; i < slots; ++i) {
      masm_.load64(value, kScratch, int32_t(i * 8));
      masm_.store64(kFp, stack_disp(height() + i), value);
    }
    free_reg(value);
  }
  reload_after_call();
  push_slots(instance_.tags[tag_index]->type->params, slots);
}

Result<void> FunctionCompiler::compile_fiber(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  if (op != Opcode::Handle && sites_out_ == nullptr) return unsupported("fiber instructions");
  auto tag_params = [&](uint32_t tag_index) -> Result<uint32_t> {
    return instance_.tags[tag_index]->param_slots;
  };
  switch (op) {
    case Opcode::Handle: {
      // Values below the handle must be in their slots at every clause entry.
      spill_all();
      ControlFrame f;
      block_signature(imm.block, f);
      f.kind = ControlFrame::Kind::Handle;
      f.height = height() - f.params;
      f.target_slot = num_locals_ + f.height;
      f.label = masm_.new_label();
      control_.push_back(f);
      return {};
    }
    case Opcode::Event: {
      WEFT_TRY(tag_params(imm.index));
      event_clause(imm.index);
      return {};
    }
    case Opcode::FiberNew: case Opcode::FiberSpawn: {
      runtime::FuncInstance* callee = instance_.functions[imm.index];
      const uint32_t args = callee->param_slots - 1;  // the first is the fiber itself
      spill_all();
      const uint32_t first = height() - args;
      FiberSite* site = new_fiber_site(op);
      site->callee = callee;
      site->callee_index = imm.index;
      site->payload_slot = num_locals_ + first;
      site->payload_slots = args;
      site->result_slot = num_locals_ + first;
      if (op == Opcode::FiberNew) {
        site->result_slots = 1;
        call_fiber_helper(site);
        masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
        masm_.jump_if_nonzero(trap_return_);
        truncate(first);
        push_slots(1);
        return {};
      }
      site->result_slots = callee->result_slots;
      Label stub = dispatch_stub(*site);
      call_fiber_helper(site);
      masm_.compare_imm(false, Registers::kReturn, kTrapped);
      masm_.jump_if(Cond::Eq, exception_exit(true));  // a trap, or the fiber's exception
      masm_.jump_if(Cond::GtU, stub);
      reload_after_call();
      truncate(first);
      push_slots(callee->type->results, callee->result_slots);
      return {};
    }
    case Opcode::FiberResume: case Opcode::FiberSuspendTo: case Opcode::FiberSuspend: case Opcode::FiberSwitch: {
      const bool typed = op != Opcode::FiberSuspend;
      const uint32_t tag_index = typed ? imm.index2 : imm.index;
      WEFT_TRY_ASSIGN(uint32_t payload, tag_params(tag_index));
      // Where the inline path reads its operands: a lazily read local is read
      // from the local itself rather than from the slot spill_all copies it
      // to, so the handle load does not wait on that store.
      std::vector<uint32_t> sources;
      const uint32_t operands = op == Opcode::FiberSwitch ? 2 : 1;  // [self] target / [self] / target
      for (uint32_t i = height() - payload - operands; i < height(); ++i)
        sources.push_back(stack_[i].loc == Loc::Local ? uint32_t(stack_[i].imm) : num_locals_ + i);
      spill_all();
      const uint32_t payload_first = height() - payload;
      FiberSite* site = new_fiber_site(op);
      site->tag = instance_.tags[tag_index]->id;
      site->tag_index = tag_index;
      site->payload_slot = num_locals_ + payload_first;
      site->payload_slots = payload;
      // Operands below the payload: [self] for suspend, [target] for resume
      // and suspend_to, [self target] for switch.
      const uint32_t below = op == Opcode::FiberSwitch ? 2 : 1;
      const uint32_t first = payload_first - below;
      if (op == Opcode::FiberSuspend || op == Opcode::FiberSwitch) site->self_slot = num_locals_ + first;
      if (op != Opcode::FiberSuspend) site->target_slot = num_locals_ + payload_first - 1;
      site->result_slot = num_locals_ + first;
      if (op == Opcode::FiberResume || op == Opcode::FiberSuspendTo) {
        const FuncType& g = module_.types[imm.index];
        site->result_slots = slots_of(g.results);
      }
      Label stub = dispatch_stub(*site);
      // Sanitizer builds switch only through fiber_context, which tells ASan.
      // Tag identities are store-wide counters from 1; the inline switch hands
      // one over as a 32-bit immediate.
      const bool inline_switch = (op == Opcode::FiberResume || op == Opcode::FiberSuspend || op == Opcode::FiberSwitch) &&
                                 payload <= runtime::kInlinePayloadSlots && site->tag <= uint64_t(INT32_MAX) &&
                                 !fibers::detail::kAnnotate;
      if (inline_switch) {
        Label slow = masm_.new_label(), after = masm_.new_label();
        emit_inline_switch(*site, sources, dispatch_stubs_.back().targets, slow, after);
        masm_.bind(slow);
        call_fiber_helper(site);
        masm_.bind(after);
      } else {
        call_fiber_helper(site);
      }
      masm_.compare_imm(false, Registers::kReturn, kTrapped);
      masm_.jump_if(Cond::Eq, exception_exit(true));  // a trap, or (a waiting instruction) the fiber's exception
      if (op == Opcode::FiberSuspend || op == Opcode::FiberSwitch) {
        // This fiber continues only in a clause: an event is the only outcome.
        masm_.jump(stub);
        truncate(first);
        mark_unreachable();
        return {};
      }
      masm_.jump_if(Cond::GtU, stub);
      reload_after_call();
      truncate(first);
      push_slots(module_.types[imm.index].results, site->result_slots);
      return {};
    }
    case Opcode::FiberRetire: case Opcode::FiberRetireto: {
      const bool to = op == Opcode::FiberRetireto;
      const uint32_t tag_index = to ? imm.index2 : imm.index;
      WEFT_TRY_ASSIGN(uint32_t payload, tag_params(tag_index));
      spill_all();
      const uint32_t payload_first = height() - payload;
      const uint32_t first = payload_first - (to ? 2 : 1);
      FiberSite* site = new_fiber_site(op);
      site->tag = instance_.tags[tag_index]->id;
      site->tag_index = tag_index;
      site->payload_slot = num_locals_ + payload_first;
      site->payload_slots = payload;
      site->self_slot = num_locals_ + first;
      if (to) site->target_slot = num_locals_ + first + 1;
      // Returns only when the instruction traps: otherwise this context is gone.
      call_fiber_helper(site);
      masm_.jump(trap_return_);
      truncate(first);
      mark_unreachable();
      return {};
    }
    case Opcode::FiberRelease: {
      spill_all();
      FiberSite* site = new_fiber_site(op);
      site->target_slot = num_locals_ + height() - 1;
      call_fiber_helper(site);
      masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
      masm_.jump_if_nonzero(trap_return_);
      truncate(height() - 1);
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

// After the body: every suspension point's dispatch stub, and the entry of a
// fresh fiber at a function-level clause — a second prologue, then the same
// dispatch on the event the fiber runtime put in the context.
void FunctionCompiler::fiber_stubs() {
  for (const DispatchStub& stub : dispatch_stubs_) {
    masm_.bind(stub.label);
    emit_dispatch(*stub.site, stub.targets);
  }
  const auto& entry_scope = instance_.info->functions[self_->index - first_defined_].entry_clauses();
  if (entry_scope.empty() || sites_out_ == nullptr) return;
  FiberSite* entry = new_fiber_site(Opcode::Event);
  std::vector<Label> targets;
  build_scope(entry_scope, *entry, targets);
  clause_entry_ = masm_.new_label();
  has_clause_entry_ = true;
  masm_.bind(clause_entry_);
  prologue(false);  // a fresh fiber's arguments are in their slots
  masm_.load64(SwitchRegs::kArrivedTag, kCtx, ctx_event_tag);
  emit_dispatch(*entry, targets);
}

}  // namespace weft::jit
