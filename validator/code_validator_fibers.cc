// Function-body validation of the fiber extension (docs/fibers.md §3, §5):
// `handle` frames and their `event` clauses (also at the function's outermost
// level), the fiber.* instructions, and the handler scopes of suspension
// points that the executors turn into dispatch tables.
#include <algorithm>
#include <span>
#include <string>

#include "validator/code_validator.h"

namespace weft::validator {

// ---------------------------------------------------------------------------
// Immediates

bool CodeValidator::check_tag(uint32_t index) {
  return index < ctx_.num_tags() || unknown("tag", index);
}

bool CodeValidator::check_fiber_type(uint32_t index) {
  if (index >= module_.types.size()) return unknown("type", index);
  if (!module_.types[index].is_fiber)
    return invalid("type mismatch: not a fiber type: type " + std::to_string(index) + " is a function type");
  return true;
}

// $f : [(ref null? $g) t*] -> [r*] with $g's results equivalent to r*: the
// new fiber's own reference is the first argument, and what $f returns is
// what the fiber returns.
bool CodeValidator::check_fiber_function(uint32_t func, uint32_t& fiber_type) {
  const FuncType& type = ctx_.function_type(func);
  if (type.params.empty() || type.params[0].kind != ValType::TypedRef)
    return invalid("type mismatch: fiber function " + std::to_string(func) + " of type " + to_string(type) +
                   " must take a (ref null? $g) of a fiber type first");
  fiber_type = type.params[0].type_index;  // a fiber type: function types are validated
  const FuncType& fiber = module_.types[fiber_type];
  if (!equivalent(fiber.results, type.results, ctx_.canonical_types))
    return invalid("type mismatch: fiber function " + std::to_string(func) + " of type " + to_string(type) +
                   " returns other values than its fiber type " + to_string(fiber));
  return true;
}

// ---------------------------------------------------------------------------
// Instructions

bool CodeValidator::fiber(Opcode op) {
  const ValType fiberref{ValType::FiberRef, true, 0};
  switch (op) {
    case Opcode::Handle: {
      BlockSig sig;
      return block_sig(insn_.block, sig) && pop_all(sig.params) && push_ctrl(op, sig);
    }
    case Opcode::Event: return event_clause();
    case Opcode::FiberNew:
    case Opcode::FiberSpawn: {
      const uint32_t func = insn_.index;
      uint32_t fiber_type;
      if (func >= ctx_.num_functions()) return unknown("function", func);
      if (!check_fiber_function(func, fiber_type)) return false;
      const FuncType& type = ctx_.function_type(func);
      if (!pop_all(std::span(type.params).subspan(1))) return false;
      if (op == Opcode::FiberNew) {
        push({ValType::TypedRef, false, fiber_type});
      } else {
        add_suspension_point(op);
        push_all(type.results);
      }
      return true;
    }
    case Opcode::FiberSuspend:
    case Opcode::FiberRetire: {  // [fiberref te*] -> [⊥]
      const uint32_t tag = insn_.index;
      if (!check_tag(tag) || !pop_all(ctx_.tag_type(tag).params) || !pop_expect(fiberref)) return false;
      if (op == Opcode::FiberSuspend) add_suspension_point(op);
      set_unreachable();
      return true;
    }
    case Opcode::FiberResume:
    case Opcode::FiberSuspendTo:  // [(ref null $g) te*] -> [r*]
    case Opcode::FiberSwitch:
    case Opcode::FiberRetireto: {  // [(ref null $g) (ref null $g) te*] -> [⊥]
      const uint32_t fiber_type = insn_.index, tag = insn_.index2;
      if (!check_fiber_type(fiber_type) || !check_tag(tag) || !pop_all(ctx_.tag_type(tag).params)) return false;
      const ValType target{ValType::TypedRef, true, fiber_type};
      if (!pop_expect(target)) return false;
      if (op != Opcode::FiberRetireto) add_suspension_point(op);
      if (op == Opcode::FiberResume || op == Opcode::FiberSuspendTo) {
        push_all(module_.types[fiber_type].results);
        return true;
      }
      if (!pop_expect(target)) return false;  // the running fiber
      set_unreachable();
      return true;
    }
    case Opcode::FiberRelease: return pop_expect(fiberref);
    default: return invalid("internal error");
  }
}

// `event $e`: ends the current segment of the innermost handle (or of the
// function) as `end` would, then starts the clause with the tag's params.
bool CodeValidator::event_clause() {
  ControlFrame& frame = ctrls_.back();
  if (!frame.has_clauses()) return invalid("event clause outside handle");
  const uint32_t tag = insn_.index;
  if (!check_tag(tag)) return false;
  if (!pop_all(frame.sig.results)) return false;
  if (height_ != frame.height)
    return invalid("type mismatch: " + std::to_string(height_ - frame.height) +
                   " operand(s) left over at the end of the block");
  if (!frame.in_clauses) {
    // Code from here on is outside this frame's scope.
    frame.in_clauses = true;
    frame.scope = nodes_[frame.node].parent;
  }
  height_ = frame.height;
  slots_ = frame.slot_height;
  frame.unreachable = false;
  open_clauses_.push_back({{tag, uint32_t(reader_.pos()), frame.slot_height}, uint32_t(instr_offset_)});
  push_all(ctx_.tag_type(tag).params);
  return true;
}

// ---------------------------------------------------------------------------
// Handler scopes

void CodeValidator::add_suspension_point(Opcode op) {
  points_.push_back({uint32_t(instr_offset_), op, ctrls_.back().scope});
}

uint32_t CodeValidator::next_mark() {
  if (++mark_ == 0) {  // wrapped: forget every old mark
    std::fill(tag_marks_.begin(), tag_marks_.end(), 0);
    mark_ = 1;
  }
  return mark_;
}

// The frame's clauses are the last ones open (nested handles inside its
// clauses have ended and taken theirs): move them to its scope node.
bool CodeValidator::end_clauses(const ControlFrame& frame) {
  const uint32_t mark = next_mark();
  for (size_t i = frame.clauses_begin; i < open_clauses_.size(); ++i) {
    const OpenClause& open = open_clauses_[i];
    if (tag_marks_[open.clause.tag] == mark) {
      instr_offset_ = open.event_offset;
      return invalid("duplicate event clause for tag " + std::to_string(open.clause.tag));
    }
    tag_marks_[open.clause.tag] = mark;
  }
  ScopeNode& node = nodes_[frame.node];
  node.clauses_begin = uint32_t(node_clauses_.size());
  node.clauses_count = uint32_t(open_clauses_.size() - frame.clauses_begin);
  for (size_t i = frame.clauses_begin; i < open_clauses_.size(); ++i) node_clauses_.push_back(open_clauses_[i].clause);
  open_clauses_.resize(frame.clauses_begin);
  return true;
}

// A node's scope: its clauses, then its ancestors' for tags not seen yet.
void CodeValidator::flatten_scope(uint32_t node_index) {
  const uint32_t mark = next_mark();
  const uint32_t begin = uint32_t(flat_scopes_.size());
  for (uint32_t n = node_index; n != kNoScope; n = nodes_[n].parent) {
    const ScopeNode& node = nodes_[n];
    scope_work_ += node.clauses_count + 1;
    for (uint32_t i = 0; i < node.clauses_count; ++i) {
      const EventClause& clause = node_clauses_[node.clauses_begin + i];
      if (tag_marks_[clause.tag] == mark) continue;  // shadowed by an inner clause
      tag_marks_[clause.tag] = mark;
      flat_scopes_.push_back(clause);
    }
  }
  ScopeNode& node = nodes_[node_index];
  node.flat_begin = begin;
  node.flat_count = uint32_t(flat_scopes_.size()) - begin;
  node.flattened = true;
}

bool CodeValidator::finish_scopes(FunctionInfo& info) {
  info.fiber.reset();
  if (points_.empty() && nodes_[0].clauses_count == 0) return true;  // (most functions)
  FiberTables& fiber = *(info.fiber = std::make_unique<FiberTables>());
  fiber.entry_clauses.assign(node_clauses_.begin() + nodes_[0].clauses_begin,
                             node_clauses_.begin() + nodes_[0].clauses_begin + nodes_[0].clauses_count);
  fiber.suspension_points.reserve(points_.size());
  for (const PendingPoint& point : points_) {
    SuspensionPoint& out = fiber.suspension_points.emplace_back();
    out.body_offset = point.body_offset;
    out.opcode = point.opcode;
    if (point.scope == kNoScope) continue;
    if (!nodes_[point.scope].flattened) flatten_scope(point.scope);
    const ScopeNode& node = nodes_[point.scope];
    scope_work_ += node.flat_count + 1;
    if (scope_work_ > kMaxHandlerScopeWork) {
      instr_offset_ = point.body_offset;
      return fail(ErrorKind::Limit, "handler scopes too large");
    }
    out.scope.assign(flat_scopes_.begin() + node.flat_begin, flat_scopes_.begin() + node.flat_begin + node.flat_count);
  }
  return true;
}

}  // namespace weft::validator
