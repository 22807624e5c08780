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

#include "jit/compiler.h"
#include "jit/context.h"

namespace weft::jit {

namespace reg = x64::reg;

namespace {
constexpr int32_t ctx_event_payload = int32_t(offsetof(JitContext, event_payload));
constexpr int32_t ctx_event_tag = int32_t(offsetof(JitContext, event_tag));

enum FiberStatusCode : int32_t { kContinue = 0, kTrapped = 1, kEvent = 2 };

bool has_vec(const std::vector<ValType>& types) {
  return std::any_of(types.begin(), types.end(), [](ValType t) { return t.is_vec(); });
}
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
    if (std::find(keys.begin(), keys.end(), id) != keys.end()) continue;
    keys.push_back(id);
    values.push_back(uint32_t(targets.size()));
    targets.push_back(clause_label(clause.body_offset));
  }
  site.table = fibers::DispatchTable::build(keys, values);
}

Label FunctionCompiler::dispatch_stub(FiberSite& site) {
  const auto& points = instance_.info->functions[self_->index - module_.num_imported_functions()].suspension_points;
  // Suspension points are in body order; dead code skips some.
  while (next_suspension_ < points.size() && points[next_suspension_].body_offset < instr_offset_) ++next_suspension_;
  DispatchStub stub{masm_.new_label(), &site, {}};
  if (next_suspension_ < points.size() && points[next_suspension_].body_offset == instr_offset_)
    build_scope(points[next_suspension_].scope, site, stub.targets);
  dispatch_stubs_.push_back(std::move(stub));
  return dispatch_stubs_.back().label;
}

void FunctionCompiler::call_fiber_helper(const FiberSite* site) {
  masm_.move(reg::rdi, reg::r12);
  masm_.move(reg::rsi, reg::rbx);
  masm_.move_imm(reg::rdx, reinterpret_cast<uint64_t>(site));
  masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_fiber));
}

// The inline fast path of event delivery: tag identity (rdx) → clause, one
// probe of the perfect-hash table; a miss is `unhandled event` in this context.
void FunctionCompiler::emit_dispatch(const FiberSite& site, const std::vector<Label>& targets) {
  Label unhandled = trap_label(runtime::TrapKind::UnhandledEvent);
  if (targets.empty()) {
    masm_.jump(unhandled);
    return;
  }
  const fibers::DispatchTable& table = site.table;
  if (table.size() == 1) {
    // One clause: the table degenerates to one compare.
    masm_.move_imm(reg::r11, table.slots()[0].key);
    masm_.cmp(true, reg::rdx, reg::r11);
    masm_.jump_if(Cond::Ne, unhandled);
    masm_.jump(targets[table.slots()[0].value]);
    return;
  }
  masm_.move(reg::rax, reg::rdx);
  masm_.move_imm(reg::r11, table.multiplier());
  masm_.int_op(x64::IntOp::Mul, true, reg::rax, reg::r11);
  masm_.shift_imm(x64::ShiftOp::ShrU, true, reg::rax, uint8_t(table.shift()));
  masm_.shift_imm(x64::ShiftOp::Shl, true, reg::rax, 4);  // sizeof(Entry)
  static_assert(sizeof(fibers::DispatchTable::Entry) == 16);
  masm_.move_imm(reg::r11, reinterpret_cast<uint64_t>(table.slots().data()));
  masm_.lea_index(reg::r11, reg::r11, reg::rax, 0);
  masm_.cmp_mem64(reg::rdx, reg::r11, int32_t(offsetof(fibers::DispatchTable::Entry, key)));
  masm_.jump_if(Cond::Ne, unhandled);
  masm_.load32(reg::rax, reg::r11, int32_t(offsetof(fibers::DispatchTable::Entry, value)));
  masm_.jump_table(reg::rax, targets.data(), uint32_t(targets.size()));
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
    masm_.load64(reg::r11, reg::r12, ctx_event_payload);
    for (uint32_t i = 0; i < slots; ++i) {
      masm_.load64(value, reg::r11, int32_t(i * 8));
      masm_.store64(reg::rbx, stack_disp(height() + i), value);
    }
    free_reg(value);
  }
  reload_memory();
  push_slots(slots);
}

Result<void> FunctionCompiler::compile_fiber(Opcode op, const Immediates& imm, bool& handled) {
  handled = true;
  if (op != Opcode::Handle && sites_out_ == nullptr) return unsupported("fiber instructions");
  auto tag_params = [&](uint32_t tag_index) -> Result<uint32_t> {
    const runtime::TagInstance* tag = instance_.tags[tag_index];
    if (has_vec(tag->type->params)) return unsupported("v128 event payload");
    return uint32_t(tag->type->params.size());
  };
  switch (op) {
    case Opcode::Handle: {
      // Values below the handle must be in their slots at every clause entry.
      spill_all();
      ControlFrame f;
      WEFT_TRY(block_signature(imm.block_type, f.params, f.results));
      f.kind = ControlFrame::Kind::Handle;
      f.height = height() - f.params;
      f.target_slot = num_locals_ + f.height;
      f.label = masm_.new_label();
      control_.push_back(f);
      return {};
    }
    case Opcode::Event: {
      WEFT_TRY(tag_params(imm.a));
      event_clause(imm.a);
      return {};
    }
    case Opcode::FiberNew: case Opcode::FiberSpawn: {
      runtime::FuncInstance* callee = instance_.functions[imm.a];
      if (has_vec(callee->type->params) || has_vec(callee->type->results)) return unsupported("v128 fiber function");
      const uint32_t args = uint32_t(callee->type->params.size()) - 1;  // the first is the fiber itself
      spill_all();
      const uint32_t first = height() - args;
      FiberSite* site = new_fiber_site(op);
      site->callee = callee;
      site->payload_slot = num_locals_ + first;
      site->payload_slots = args;
      site->result_slot = num_locals_ + first;
      if (op == Opcode::FiberNew) {
        site->result_slots = 1;
        call_fiber_helper(site);
        masm_.test(false, reg::rax, reg::rax);
        masm_.jump_if_nonzero(trap_return_);
        truncate(first);
        push_slots(1);
        return {};
      }
      site->result_slots = uint32_t(callee->type->results.size());
      Label stub = dispatch_stub(*site);
      call_fiber_helper(site);
      masm_.cmp_imm(false, reg::rax, kTrapped);
      masm_.jump_if(Cond::Eq, trap_return_);
      masm_.jump_if(Cond::GtU, stub);
      reload_memory();
      truncate(first);
      push_slots(site->result_slots);
      return {};
    }
    case Opcode::FiberResume: case Opcode::FiberSuspendTo: case Opcode::FiberSuspend: case Opcode::FiberSwitch: {
      const bool typed = op != Opcode::FiberSuspend;
      const uint32_t tag_index = typed ? imm.b : imm.a;
      WEFT_TRY_ASSIGN(uint32_t payload, tag_params(tag_index));
      spill_all();
      const uint32_t payload_first = height() - payload;
      FiberSite* site = new_fiber_site(op);
      site->tag = instance_.tags[tag_index]->id;
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
        const FuncType& g = module_.types[imm.a];
        if (has_vec(g.results)) return unsupported("v128 fiber results");
        site->result_slots = uint32_t(g.results.size());
      }
      Label stub = dispatch_stub(*site);
      call_fiber_helper(site);
      masm_.cmp_imm(false, reg::rax, kTrapped);
      masm_.jump_if(Cond::Eq, trap_return_);
      if (op == Opcode::FiberSuspend || op == Opcode::FiberSwitch) {
        // This fiber continues only in a clause: an event is the only outcome.
        masm_.jump(stub);
        truncate(first);
        mark_unreachable();
        return {};
      }
      masm_.jump_if(Cond::GtU, stub);
      reload_memory();
      truncate(first);
      push_slots(site->result_slots);
      return {};
    }
    case Opcode::FiberRetire: case Opcode::FiberRetireto: {
      const bool to = op == Opcode::FiberRetireto;
      const uint32_t tag_index = to ? imm.b : imm.a;
      WEFT_TRY_ASSIGN(uint32_t payload, tag_params(tag_index));
      spill_all();
      const uint32_t payload_first = height() - payload;
      const uint32_t first = payload_first - (to ? 2 : 1);
      FiberSite* site = new_fiber_site(op);
      site->tag = instance_.tags[tag_index]->id;
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
      masm_.test(false, reg::rax, reg::rax);
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
  const auto& entry_scope = instance_.info->functions[self_->index - module_.num_imported_functions()].entry_clauses;
  if (entry_scope.empty() || sites_out_ == nullptr) return;
  FiberSite* entry = new_fiber_site(Opcode::Event);
  std::vector<Label> targets;
  build_scope(entry_scope, *entry, targets);
  clause_entry_ = masm_.new_label();
  has_clause_entry_ = true;
  masm_.bind(clause_entry_);
  prologue();
  masm_.load64(reg::rdx, reg::r12, ctx_event_tag);
  emit_dispatch(*entry, targets);
}

}  // namespace weft::jit
