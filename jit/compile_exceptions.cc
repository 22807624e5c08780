// Exception handling in JIT code (docs/exceptions.md). The path on which
// nothing throws costs nothing: a try_table spills the stack (so the values
// below it are in their slots wherever its body throws, as at a block end)
// and changes where the status tests in its body jump — those after calls
// and fiber instructions, and throw's — from the function's propagate path
// to the try_table's landing. The landing, bound after the body, asks
// weft_jit_catch which clause catches the exception in flight, if any (the
// helper writes the clause's values into its label's slots), and jumps to
// that label; no clause: on to the next path out (propagate, or the
// landing of a try_table around it in this function).
#include "jit/compiler.h"
#include "jit/context.h"

namespace weft::jit {

namespace {
constexpr Reg kCtx = Registers::kContext, kFp = Registers::kFrame;
constexpr const Reg* kArg = Registers::kArg;

}  // namespace

Label FunctionCompiler::exception_exit(bool recorded) {
  if (try_stack_.empty()) return recorded ? trap_return_ : propagate_;
  TryLanding& landing = landings_[try_stack_.back()];
  return recorded ? landing.after_helper : landing.after_call;
}

Result<void> FunctionCompiler::compile_exception(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  switch (op) {
    case Opcode::TryTable: {
      if (catch_sites_out_ == nullptr) return unsupported("try_table");
      spill_all();
      ControlFrame f;
      block_signature(imm.block, f);
      catch_sites_out_->push_back(std::make_unique<CatchSite>());
      TryLanding landing;
      landing.site = catch_sites_out_->back().get();
      landing.site->position = uint32_t(catch_sites_out_->size() - 1);
      // Each clause names a label outside the try_table: the frame the label
      // belongs to says where its values go and where its code is.
      for (const CatchClause& clause : imm.catches) {
        const ControlFrame& target = control_[control_.size() - 1 - clause.label];
        CatchSite::Clause c;
        if (clause.has_tag()) {
          const runtime::TagInstance* tag = instance_.tags[clause.tag];
          c.tag_id = tag->id;
          c.tag_index = clause.tag;
          c.payload_slots = tag->param_slots;
        }
        c.dest_slot = target.target_slot;
        c.with_ref = clause.with_ref();
        landing.site->clauses.push_back(c);
        landing.targets.push_back(target.label);
      }
      // Then the clauses of the try_tables around this one in the function.
      if (!try_stack_.empty()) {
        const TryLanding& outer = landings_[try_stack_.back()];
        landing.site->clauses.insert(landing.site->clauses.end(), outer.site->clauses.begin(),
                                     outer.site->clauses.end());
        landing.targets.insert(landing.targets.end(), outer.targets.begin(), outer.targets.end());
      }
      landing.after_call = masm_.new_label();
      landing.after_helper = masm_.new_label();
      f.kind = ControlFrame::Kind::TryTable;
      f.height = height() - f.params;
      f.target_slot = num_locals_ + f.height;
      f.label = masm_.new_label();
      control_.push_back(f);
      try_stack_.push_back(uint32_t(landings_.size()));
      landings_.push_back(std::move(landing));
      return {};
    }
    case Opcode::Throw: {
      const runtime::TagInstance* tag = instance_.tags[imm.index];
      spill_all();
      const uint32_t first = height() - tag->param_slots;
      masm_.move(kArg[0], kCtx);
      move_instance_word(kArg[1], InstanceRef::Tag, imm.index);
      masm_.address_of(kArg[2], kFp, stack_disp(first));
      masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_throw));
      masm_.jump(exception_exit(true));
      truncate(first);
      mark_unreachable();
      return {};
    }
    case Opcode::ThrowRef: {
      spill_all();
      const uint32_t position = height() - 1;
      masm_.move(kArg[0], kCtx);
      move_instance_word(kArg[1], InstanceRef::Function, self_index_);
      masm_.load64(kArg[2], kFp, stack_disp(position));
      masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_throw_ref));
      masm_.jump(exception_exit(true));
      truncate(position);
      mark_unreachable();
      return {};
    }
    default:
      handled = false;
      return {};
  }
}

// After the body: each try_table's landings (one per way in) and a stub per
// clause that restores what a label expects (memory registers, pinned
// locals: the values are in their slots) and jumps to it.
void FunctionCompiler::exception_stubs() {
  for (TryLanding& landing : landings_) {
    const bool from_call = masm_.referenced(landing.after_call);
    const bool from_helper = masm_.referenced(landing.after_helper);
    if (!from_call && !from_helper) continue;
    const size_t clauses = landing.site->clauses.size();
    std::vector<Label> entries(clauses + 1);  // [0]: no clause caught it
    for (size_t i = 1; i <= clauses; ++i) entries[i] = masm_.new_label();
    auto emit_landing = [&](Label at, Label no_catch) {
      masm_.bind(at);
      masm_.move(kArg[0], kCtx);
      masm_.move(kArg[1], kFp);
      move_instance_word(kArg[2], InstanceRef::CatchSite, landing.site->position);
      masm_.call_absolute(reinterpret_cast<const void*>(&weft_jit_catch));
      entries[0] = no_catch;
      masm_.move(Registers::kTemp0, Registers::kReturn);
      masm_.jump_table(Registers::kTemp0, entries.data(), uint32_t(entries.size()));
    };
    if (from_call) emit_landing(landing.after_call, propagate_);
    if (from_helper) emit_landing(landing.after_helper, trap_return_);
    for (size_t i = 1; i <= clauses; ++i) {
      masm_.bind(entries[i]);
      reload_after_call();
      masm_.jump(landing.targets[i - 1]);
    }
  }
}

}  // namespace weft::jit
