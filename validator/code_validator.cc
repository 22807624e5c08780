// Function-body validation: the dispatch loop over the opcode table, the
// operand/control stacks, and the hand-typed (X) instruction families —
// control, calls, parametric, variables, tables, references. Numeric, memory,
// bulk-memory and SIMD instructions are typed generically from their row; the
// fiber extension's instructions are in code_validator_fibers.cc. Operands
// match expected types by subtyping (fiber references, docs/fibers.md §2).
#include "validator/code_validator.h"

#include <algorithm>
#include <string_view>

namespace weft::validator {
namespace {

// Storage for single-value block types [] -> [t], indexed by ValType::Kind.
constexpr ValType kSingleTypes[] = {ValType::i32(),  ValType::i64(),     ValType::f32(),      ValType::f64(),
                                    ValType::v128(), ValType::funcref(), ValType::externref()};
static_assert(ValType::I32 == 0 && ValType::I64 == 1 && ValType::F32 == 2 && ValType::F64 == 3 &&
              ValType::V128 == 4 && ValType::FuncRef == 5 && ValType::ExternRef == 6);

ValType sig_type(SigType t) {
  switch (t) {
    case SigType::I64: return ValType::i64();
    case SigType::F32: return ValType::f32();
    case SigType::F64: return ValType::f64();
    case SigType::V128: return ValType::v128();
    default: return ValType::i32();
  }
}

// Lanes addressed by a lane immediate. Lane instructions are named after their
// shape ("i16x8.extract_lane_s": 8 lanes); memory lane instructions after
// their access size (v128.load32_lane: 16 / 4 lanes).
uint32_t lane_count(const OpcodeInfo& info) {
  if (info.immediate == ImmKind::MemargLane) return 16 / info.mem_bytes;
  std::string_view name = info.text;
  uint32_t lanes = 0;
  for (size_t i = name.find('x') + 1; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
    lanes = lanes * 10 + uint32_t(name[i] - '0');
  return lanes;
}

std::string describe(ValType t) { return is_unknown(t) ? "unknown" : to_string(t); }

}  // namespace

// ---------------------------------------------------------------------------
// Driver

Result<void> CodeValidator::validate(uint32_t defined_index, FunctionInfo& info) {
  const Function& func = module_.functions[defined_index];
  const FuncType& type = module_.types[func.type_index];  // checked by the module validator
  func_index_ = ctx_.num_functions() - uint32_t(module_.functions.size()) + defined_index;
  // SIMD and fiber opcodes decode regardless of the options, so that run() can
  // say which feature is disabled rather than "illegal opcode".
  reader_.reset(func.body, ReaderFeatures{.simd = true, .fibers = true});
  instr_offset_ = 0;
  height_ = 0;
  ctrls_.clear();
  locals_.clear();
  slots_ = max_slots_ = 0;
  uses_memory_ = false;
  block_results_.clear();
  nodes_.clear();
  open_clauses_.clear();
  node_clauses_.clear();
  flat_scopes_.clear();
  points_.clear();
  entry_clauses_.clear();
  scope_work_ = 0;
  if (tag_marks_.size() != ctx_.num_tags()) {
    tag_marks_.assign(ctx_.num_tags(), 0);
    mark_ = 0;
  }

  bool ok = true;
  uint64_t num_locals = 0;
  auto add_locals = [&](ValType t, uint64_t count) {
    if (count == 0) return;
    num_locals += count;
    if (num_locals > UINT32_MAX) {
      ok = invalid("too many locals");
      return;
    }
    if (!locals_.empty() && locals_.back().type == t) locals_.back().end = uint32_t(num_locals);
    else locals_.push_back({uint32_t(num_locals), t});
  };
  for (ValType t : type.params) add_locals(t, 1);
  for (const LocalGroup& group : func.locals) {
    if (!ok || !(ok = check_valtype(group.type))) break;
    // Locals start with the default value (fiber extension version 1).
    if (!is_defaultable(group.type)) {
      ok = invalid("non-defaultable type " + to_string(group.type) + " for a local");
      break;
    }
    add_locals(group.type, group.count);
  }
  num_locals_ = uint32_t(num_locals);
  local_types_.clear();
  for (const LocalRun& run : locals_) {
    if (local_types_.size() >= kExpandedLocals) break;
    local_types_.resize(std::min<size_t>(run.end, kExpandedLocals), run.type);
  }
  local_weights_.assign(local_types_.size(), 0);
  loop_depth_ = 0;

  if (ok) {
    push_ctrl(Opcode::End, {{}, type.results});
    ok = run() && finish_scopes(info);
  }
  if (!ok) return std::move(error_);
  info.max_stack_height = max_slots_;
  info.uses_memory = uses_memory_;
  info.num_locals = num_locals_;
  rank_hot_locals(info);
  return {};
}

void CodeValidator::rank_hot_locals(FunctionInfo& info) {
  // A few passes of "take the heaviest not yet taken" over at most
  // kExpandedLocals weights: no allocation, and functions with many locals
  // stop at kMaxHotLocals passes.
  info.num_hot_locals = 0;
  uint32_t taken_below = UINT32_MAX;  // weights are taken in decreasing order
  size_t taken_index = 0;
  while (info.num_hot_locals < FunctionInfo::kMaxHotLocals) {
    uint32_t best = 1;  // a local accessed once is not worth a register
    size_t best_index = SIZE_MAX;
    for (size_t i = 0; i < local_weights_.size(); ++i) {
      const uint32_t w = local_weights_[i];
      // Ties go to the lower index; a weight equal to the last taken one is
      // eligible only after that local's index.
      const bool after_taken = w < taken_below || (w == taken_below && i > taken_index);
      if (after_taken && w > best) {
        best = w;
        best_index = i;
      }
    }
    if (best_index == SIZE_MAX) break;
    info.hot_locals[info.num_hot_locals++] = uint32_t(best_index);
    taken_below = best;
    taken_index = best_index;
  }
}

bool CodeValidator::run() {
  InstructionReader& reader = reader_;
  while (!ctrls_.empty()) {
    instr_offset_ = reader.pos();
    if (reader.at_end()) return malformed("unexpected end of function body (missing end)");
    if (!reader.next(insn_)) return truncated();
    const OpcodeInfo& info = opcode_info(insn_.op);
    if (info.prefix == 0xFD && !ctx_.options.enable_simd)
      return invalid("SIMD support is not enabled: " + std::string(info.text));
    if (info.prefix == 0xFA && !ctx_.options.enable_fibers)
      return invalid("fiber support is not enabled: " + std::string(info.text));
    if (!(info.is_special() ? special(insn_.op) : generic(info))) return false;
    // One instruction adds at most one block or one type's results, so
    // checking here bounds memory for any input.
    if (height_ > kMaxOperandStackHeight) return fail(ErrorKind::Limit, "operand stack too deep");
    if (ctrls_.size() > kMaxControlDepth) return fail(ErrorKind::Limit, "blocks nested too deeply");
  }
  if (!reader.at_end()) {
    instr_offset_ = reader.pos();
    return malformed("operators remaining after end of function");
  }
  return true;
}

// ---------------------------------------------------------------------------
// Errors

bool CodeValidator::fail(ErrorKind kind, std::string message) {
  error_ = make_error(kind, std::move(message), Location::in_function(func_index_, instr_offset_));
  return false;
}

bool CodeValidator::invalid(std::string message) { return fail(ErrorKind::Invalid, std::move(message)); }
bool CodeValidator::invalid(const char* message) { return fail(ErrorKind::Invalid, message); }
bool CodeValidator::malformed(const char* message) { return fail(ErrorKind::Malformed, message); }
bool CodeValidator::truncated() { return malformed(reader_.error()); }
bool CodeValidator::unknown(const char* index_space, uint64_t index) {
  return invalid(std::string("unknown ") + index_space + " " + std::to_string(index));
}

bool CodeValidator::mismatch(ValType expected, ValType actual) {
  return invalid("type mismatch: expected " + describe(expected) + ", got " + describe(actual));
}

bool CodeValidator::check_valtype(ValType t) {
  std::string problem = ctx_.valtype_problem(t);
  return problem.empty() || invalid(std::move(problem));
}

// ---------------------------------------------------------------------------
// Operand and control stacks

void CodeValidator::grow() { vals_.resize(std::max<size_t>(64, vals_.size() * 2)); }

bool CodeValidator::pop(ValType& out) {
  const ControlFrame& frame = ctrls_.back();
  if (height_ == frame.height) {
    if (frame.unreachable) {
      out = kUnknown;
      return true;
    }
    return invalid("type mismatch: expected an operand, but the block's stack is empty");
  }
  out = vals_[--height_];
  slots_ -= operand_slots(out);
  return true;
}

bool CodeValidator::pop_expect_slow(ValType expected) {
  const ControlFrame& frame = ctrls_.back();
  if (height_ == frame.height) {
    if (frame.unreachable) return true;
    return invalid("type mismatch: expected " + describe(expected) + ", but the block's stack is empty");
  }
  const ValType v = vals_[height_ - 1];
  if (!is_subtype(v, expected)) return mismatch(expected, v);
  slots_ -= operand_slots(v);
  --height_;
  return true;
}

bool CodeValidator::pop_all(std::span<const ValType> types) {
  for (size_t i = types.size(); i-- > 0;)
    if (!pop_expect(types[i])) return false;
  return true;
}

// Checks the top of the stack against `types` without changing it. Same
// outcome as the spec's push_vals(pop_vals(types)): the operands it would
// re-push from an exhausted polymorphic stack are Unknown, which match anything.
bool CodeValidator::peek_all(std::span<const ValType> types) {
  const ControlFrame& frame = ctrls_.back();
  const size_t available = height_ - frame.height;
  for (size_t k = 0; k < types.size(); ++k) {
    ValType expected = types[types.size() - 1 - k];
    if (k >= available) {
      if (frame.unreachable) return true;
      return invalid("type mismatch: expected " + describe(expected) + ", but the block's stack is empty");
    }
    const ValType v = vals_[height_ - 1 - k];
    if (!is_subtype(v, expected)) return mismatch(expected, v);
  }
  return true;
}

bool CodeValidator::push_ctrl(Opcode opcode, BlockSig sig) {
  // Blocks inherit the scope around them; a handle (and the function frame)
  // opens a scope node whose clauses become known at its end.
  uint32_t scope = ctrls_.empty() ? kNoScope : ctrls_.back().scope;
  uint32_t node = kNoScope;
  if (opcode == Opcode::Handle || ctrls_.empty()) {
    node = uint32_t(nodes_.size());
    nodes_.push_back({scope});
    scope = node;
  }
  ctrls_.push_back({opcode, sig, height_, slots_, false, false, scope, node, uint32_t(open_clauses_.size())});
  if (opcode == Opcode::Loop) ++loop_depth_;
  push_all(sig.params);
  return true;
}

bool CodeValidator::pop_ctrl(ControlFrame& out) {
  const ControlFrame& frame = ctrls_.back();
  if (!pop_all(frame.sig.results)) return false;
  if (height_ != frame.height)
    return invalid("type mismatch: " + std::to_string(height_ - frame.height) +
                   " operand(s) left over at the end of the block");
  out = frame;
  if (frame.opcode == Opcode::Loop) --loop_depth_;
  ctrls_.pop_back();
  return true;
}

void CodeValidator::set_unreachable() {
  ControlFrame& frame = ctrls_.back();
  height_ = frame.height;
  slots_ = frame.slot_height;
  frame.unreachable = true;
}

// ---------------------------------------------------------------------------
// Immediates

bool CodeValidator::block_sig(const BlockType& block, BlockSig& out) {
  switch (block.kind) {
    case BlockType::Empty: out = {}; return true;
    case BlockType::Value: {
      const ValType t = block.value;
      if (!check_valtype(t)) return false;
      if (t.kind < std::size(kSingleTypes) && kSingleTypes[t.kind] == t) {
        out = {{}, {&kSingleTypes[t.kind], 1}};
      } else {  // a fiber reference type: kept for the frame's lifetime
        block_results_.push_back(t);
        out = {{}, {&block_results_.back(), 1}};
      }
      return true;
    }
    case BlockType::TypeIndex: break;
  }
  const uint32_t index = block.type_index;
  if (index >= module_.types.size()) return unknown("type", index);
  const FuncType& type = module_.types[index];
  if (type.is_fiber)
    return invalid("type mismatch: block type is not a function type: type " + std::to_string(index) +
                   " is a fiber type");
  out = {type.params, type.results};
  return true;
}

bool CodeValidator::check_label(uint32_t depth) { return depth < ctrls_.size() || unknown("label", depth); }

bool CodeValidator::check_memory() {
  uses_memory_ = true;
  return ctx_.num_memories > 0 || invalid("unknown memory 0");
}

bool CodeValidator::check_memarg(uint32_t natural_bytes) {
  if (!check_memory()) return false;
  if (insn_.align >= 32 || (uint64_t(1) << insn_.align) > natural_bytes)
    return invalid("alignment must not be larger than natural");
  return true;
}

bool CodeValidator::check_table(uint32_t index) { return index < ctx_.tables.size() || unknown("table", index); }

bool CodeValidator::check_elem(uint32_t index) {
  return index < ctx_.num_elems() || unknown("elem segment", index);
}

bool CodeValidator::check_data(uint32_t index) {
  return index < ctx_.num_datas() || unknown("data segment", index);
}

bool CodeValidator::local_type_slow(uint32_t index, ValType& out) {
  if (index >= num_locals_) return unknown("local", index);
  auto run = std::upper_bound(locals_.begin(), locals_.end(), index,
                              [](uint32_t i, const LocalRun& r) { return i < r.end; });
  out = run->type;
  return true;
}

// ---------------------------------------------------------------------------
// Plain-signature instructions: numeric, memory, bulk memory, table.size, SIMD

bool CodeValidator::generic(const OpcodeInfo& info) {
  if (info.immediate != ImmKind::None && !table_immediates(info)) return false;
  for (int i = info.operand_count() - 1; i >= 0; --i)
    if (!pop_expect(sig_type(info.operands[i]))) return false;
  if (info.result != SigType::None) push(sig_type(info.result));
  return true;
}

bool CodeValidator::table_immediates(const OpcodeInfo& info) {
  const Instruction& in = insn_;
  switch (info.immediate) {
    case ImmKind::None: case ImmKind::I32: case ImmKind::I64: case ImmKind::F32: case ImmKind::F64:
    case ImmKind::V128:
      return true;
    case ImmKind::Memarg: return check_memarg(info.mem_bytes);
    case ImmKind::MemargLane:
    case ImmKind::Lane:
      if (info.immediate == ImmKind::MemargLane && !check_memarg(info.mem_bytes)) return false;
      return in.lane < lane_count(info) || invalid("invalid lane index");
    case ImmKind::Shuffle:
      for (int i = 0; i < 16; ++i) {
        if (in.bytes16[i] >= 32) return invalid("invalid lane index");
      }
      return true;
    case ImmKind::MemIdx: case ImmKind::MemoryCopy: return check_memory();
    case ImmKind::MemoryInit: return check_memory() && check_data(in.index);
    case ImmKind::DataIdx: return check_data(in.index);
    case ImmKind::ElemIdx: return check_elem(in.index);
    case ImmKind::TableIdx: return check_table(in.index);
    case ImmKind::TableInit: {
      const uint32_t elem = in.index, table = in.index2;
      if (!check_table(table) || !check_elem(elem)) return false;
      if (!ctx_.is_subtype(module_.elems[elem].type, ctx_.tables[table].element))
        return invalid("type mismatch: elem segment " + std::to_string(elem) + " of " +
                       describe(module_.elems[elem].type) + " into a table of " +
                       describe(ctx_.tables[table].element));
      return true;
    }
    case ImmKind::TableCopy: {
      const uint32_t dst = in.index, src = in.index2;
      if (!check_table(dst) || !check_table(src)) return false;
      if (!ctx_.is_subtype(ctx_.tables[src].element, ctx_.tables[dst].element))
        return invalid("type mismatch: table.copy from a table of " + describe(ctx_.tables[src].element) +
                       " to a table of " + describe(ctx_.tables[dst].element));
      return true;
    }
    default:
      // The other immediate kinds belong to X rows only (core/opcodes.def).
      return invalid("internal error: no generic rule for " + std::string(info.text));
  }
}

// ---------------------------------------------------------------------------
// Hand-typed instructions

bool CodeValidator::special(Opcode op) {
  switch (op) {
    case Opcode::Unreachable: case Opcode::Block: case Opcode::Loop: case Opcode::If: case Opcode::Else:
    case Opcode::End: case Opcode::Br: case Opcode::BrIf: case Opcode::Return:
      return control(op);
    case Opcode::BrTable: return br_table();
    case Opcode::Call: case Opcode::CallIndirect: case Opcode::ReturnCall: case Opcode::ReturnCallIndirect:
      return call(op);
    case Opcode::Drop: case Opcode::Select: case Opcode::SelectT: return parametric(op);
    case Opcode::LocalGet: case Opcode::LocalSet: case Opcode::LocalTee: case Opcode::GlobalGet:
    case Opcode::GlobalSet:
      return variable(op);
    case Opcode::TableGet: case Opcode::TableSet: case Opcode::TableGrow: case Opcode::TableFill:
      return table_op(op);
    case Opcode::RefNull: case Opcode::RefIsNull: case Opcode::RefFunc: return reference(op);
    case Opcode::Handle: case Opcode::Event: case Opcode::FiberNew: case Opcode::FiberSpawn:
    case Opcode::FiberResume: case Opcode::FiberSuspend: case Opcode::FiberSuspendTo: case Opcode::FiberSwitch:
    case Opcode::FiberRetire: case Opcode::FiberRetireto: case Opcode::FiberRelease:
      return fiber(op);
    default: return invalid("internal error: no typing rule for " + std::string(opcode_info(op).text));
  }
}

// -- Control ----------------------------------------------------------------

bool CodeValidator::control(Opcode op) {
  switch (op) {
    case Opcode::Unreachable:
      set_unreachable();
      return true;
    case Opcode::Block:
    case Opcode::Loop: {
      BlockSig sig;
      return block_sig(insn_.block, sig) && pop_all(sig.params) && push_ctrl(op, sig);
    }
    case Opcode::If: {
      BlockSig sig;
      return block_sig(insn_.block, sig) && pop_expect(ValType::i32()) && pop_all(sig.params) && push_ctrl(op, sig);
    }
    case Opcode::Else: {
      if (ctrls_.back().opcode != Opcode::If) return malformed("else without matching if");
      ControlFrame frame;
      return pop_ctrl(frame) && push_ctrl(Opcode::Else, frame.sig);
    }
    case Opcode::End: {
      ControlFrame frame;
      if (!pop_ctrl(frame)) return false;
      if (frame.has_clauses() && !end_clauses(frame)) return false;
      // A missing else branch passes the parameters through unchanged.
      if (frame.opcode == Opcode::If && !std::ranges::equal(frame.sig.params, frame.sig.results))
        return invalid("type mismatch: if without else must have equal parameter and result types");
      if (!ctrls_.empty()) push_all(frame.sig.results);
      return true;
    }
    case Opcode::Br: {
      const uint32_t depth = insn_.index;
      if (!check_label(depth) || !pop_all(frame_at(depth).label_types())) return false;
      set_unreachable();
      return true;
    }
    case Opcode::BrIf: {
      const uint32_t depth = insn_.index;
      if (!check_label(depth) || !pop_expect(ValType::i32())) return false;
      std::span<const ValType> types = frame_at(depth).label_types();
      if (!pop_all(types)) return false;
      push_all(types);
      return true;
    }
    case Opcode::Return:
      if (!pop_all(ctrls_.front().sig.results)) return false;
      set_unreachable();
      return true;
    default:
      return invalid("internal error");
  }
}

bool CodeValidator::br_table() {
  // The default label comes last but fixes the arity every target must have,
  // so check it first, then type-check each target against the stack.
  const std::span<const uint32_t> targets = insn_.br_targets.first(insn_.br_targets.size() - 1);
  const uint32_t default_depth = insn_.br_targets.back();
  if (!check_label(default_depth) || !pop_expect(ValType::i32())) return false;
  const std::span<const ValType> default_types = frame_at(default_depth).label_types();
  for (uint32_t depth : targets) {
    if (!check_label(depth)) return false;
    std::span<const ValType> types = frame_at(depth).label_types();
    if (types.size() != default_types.size())
      return invalid("type mismatch: br_table target " + std::to_string(depth) + " has arity " +
                     std::to_string(types.size()) + ", the default has " + std::to_string(default_types.size()));
    if (!peek_all(types)) return false;
  }
  if (!pop_all(default_types)) return false;
  set_unreachable();
  return true;
}

// -- Calls ------------------------------------------------------------------

bool CodeValidator::call(Opcode op) {
  const FuncType* type;
  if (op == Opcode::Call || op == Opcode::ReturnCall) {
    const uint32_t func = insn_.index;
    if (func >= ctx_.num_functions()) return unknown("function", func);
    type = &ctx_.function_type(func);
  } else {
    const uint32_t type_index = insn_.index, table = insn_.index2;
    if (!check_table(table)) return false;
    if (ctx_.tables[table].element != ValType::funcref())
      return invalid("type mismatch: call_indirect through table " + std::to_string(table) + " of " +
                     describe(ctx_.tables[table].element));
    if (type_index >= module_.types.size()) return unknown("type", type_index);
    type = &module_.types[type_index];
    if (type->is_fiber)
      return invalid("type mismatch: not a function type: call_indirect type " + std::to_string(type_index) +
                     " is a fiber type");
    if (!pop_expect(ValType::i32())) return false;
  }
  if (!pop_all(type->params)) return false;
  if (op == Opcode::ReturnCall || op == Opcode::ReturnCallIndirect) {
    // A tail call returns the callee's results as this function's own.
    const std::span<const ValType> own = ctrls_.front().sig.results;
    bool match = own.size() == type->results.size();
    for (size_t i = 0; match && i < own.size(); ++i) match = ctx_.is_subtype(type->results[i], own[i]);
    if (!match)
      return invalid("type mismatch: " + std::string(opcode_info(op).text) + " to a function returning " +
                     to_string(*type) + ", which is not what this function returns");
    set_unreachable();
    return true;
  }
  push_all(type->results);
  return true;
}

// -- Parametric -------------------------------------------------------------

bool CodeValidator::parametric(Opcode op) {
  ValType top, below;
  switch (op) {
    case Opcode::Drop: return pop(top);
    case Opcode::Select: {
      if (!pop_expect(ValType::i32()) || !pop(top) || !pop(below)) return false;
      // Untyped select exists only for numeric and vector operands (executors
      // must know the width without a type annotation).
      auto numeric = [](ValType v) { return is_unknown(v) || v.is_num(); };
      auto vector = [](ValType v) { return is_unknown(v) || v.is_vec(); };
      if (!((numeric(top) && numeric(below)) || (vector(top) && vector(below))))
        return invalid("type mismatch: select without a type needs numeric or vector operands");
      if (!is_unknown(top) && !is_unknown(below) && top != below)
        return invalid("type mismatch: select operands " + describe(below) + " and " + describe(top));
      push(is_unknown(top) ? below : top);
      return true;
    }
    case Opcode::SelectT: {
      if (insn_.select_types.size() != 1) return invalid("invalid result arity");
      const ValType t = insn_.select_types[0];
      if (!check_valtype(t) || !pop_expect(ValType::i32()) || !pop_expect(t) || !pop_expect(t)) return false;
      push(t);
      return true;
    }
    default:
      return invalid("internal error");
  }
}

// -- Variables --------------------------------------------------------------

bool CodeValidator::variable(Opcode op) {
  const uint32_t index = insn_.index;
  if (op == Opcode::GlobalGet || op == Opcode::GlobalSet) {
    if (index >= ctx_.globals.size()) return unknown("global", index);
    const GlobalType& global = ctx_.globals[index];
    if (op == Opcode::GlobalGet) {
      push(global.type);
      return true;
    }
    if (!global.is_mutable) return invalid("global is immutable");
    return pop_expect(global.type);
  }
  ValType t;
  if (!local_type(index, t)) return false;
  if (index < local_weights_.size()) {
    // 4^depth, saturating: an access in a loop nest outweighs many outside it.
    const uint32_t w = 1u << std::min<uint32_t>(2 * loop_depth_, 24);
    local_weights_[index] = std::max(local_weights_[index], local_weights_[index] + w);
  }
  if (op == Opcode::LocalGet) {
    push(t);
    return true;
  }
  if (!pop_expect(t)) return false;
  if (op == Opcode::LocalTee) push(t);
  return true;
}

// -- Tables -----------------------------------------------------------------

bool CodeValidator::table_op(Opcode op) {
  const uint32_t table = insn_.index;
  if (!check_table(table)) return false;
  const ValType elem = ctx_.tables[table].element;
  switch (op) {
    case Opcode::TableGet:
      if (!pop_expect(ValType::i32())) return false;
      push(elem);
      return true;
    case Opcode::TableSet: return pop_expect(elem) && pop_expect(ValType::i32());
    case Opcode::TableGrow:
      if (!pop_expect(ValType::i32()) || !pop_expect(elem)) return false;
      push(ValType::i32());
      return true;
    case Opcode::TableFill:
      return pop_expect(ValType::i32()) && pop_expect(elem) && pop_expect(ValType::i32());
    default:
      return invalid("internal error");
  }
}

// -- References -------------------------------------------------------------

bool CodeValidator::reference(Opcode op) {
  switch (op) {
    case Opcode::RefNull: {
      const ValType t = insn_.heap_type;
      if (t.kind == ValType::TypedRef && t.type_index < module_.types.size() && !module_.types[t.type_index].is_fiber)
        return invalid("type mismatch: ref.null of a non-fiber type: type " + std::to_string(t.type_index) +
                       " is a function type");
      if (!check_valtype(t)) return false;
      push(t);
      return true;
    }
    case Opcode::RefIsNull: {
      ValType v;
      if (!pop(v)) return false;
      if (!is_unknown(v) && !v.is_ref())
        return invalid("type mismatch: ref.is_null needs a reference, got " + describe(v));
      push(ValType::i32());
      return true;
    }
    case Opcode::RefFunc: {
      const uint32_t func = insn_.index;
      if (func >= ctx_.num_functions()) return unknown("function", func);
      // C.refs: a body may only take references to functions the module
      // declares elsewhere, so engines know them before running any code.
      if (!ctx_.declared_function_refs[func]) return invalid("undeclared function reference");
      push(ValType::funcref());
      return true;
    }
    default:
      return invalid("internal error");
  }
}

}  // namespace weft::validator
