// Type checking of function bodies: the spec's validation algorithm (operand
// stack with an Unknown bottom type, control frames) run directly over the
// instruction bytes, producing the per-function side tables — including the
// handler scopes of the fiber extension's suspension points.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "core/opcodes.h"
#include "core/result.h"
#include "core/instruction_reader.h"
#include "validator/module_context.h"

namespace weft::validator {

// Implementation limits that keep validation of hostile input bounded in
// memory; the spec leaves them to the embedder (real code stays far below).
constexpr uint32_t kMaxOperandStackHeight = 1u << 20;  // operands live at once
constexpr uint32_t kMaxControlDepth = 1u << 20;        // nested blocks
// Handler scopes are flattened per suspension point (the executors build one
// dispatch table per point), so nested handles can make their total size
// quadratic in the body size: bound the work and the output.
constexpr uint64_t kMaxHandlerScopeWork = 1u << 22;    // clause entries visited and emitted per function
// Locals below this index are looked up in a flat array, the rest by binary
// search over the run-length groups.
constexpr uint32_t kExpandedLocals = 1024;

// Unknown: the bottom type popped from the polymorphic stack of unreachable
// code, which matches every type. A kind outside ValType::Kind keeps operands
// 8 bytes and makes every `==` against a real type fail, so the fast paths
// need no extra test and leave Unknown to the slow ones.
inline constexpr ValType kUnknown{ValType::Kind(0xFF), true, 0};
constexpr bool is_unknown(ValType t) { return t.kind == kUnknown.kind; }
// Executor slots an operand occupies; Unknown ones exist only in dead code and
// count at the widest size so the bound holds for any executor.
constexpr uint32_t operand_slots(ValType t) { return t.kind == ValType::V128 || is_unknown(t) ? 2 : 1; }

// One instance validates all bodies of a module in turn, reusing its stacks so
// that validation allocates nothing per instruction.
class CodeValidator {
 public:
  explicit CodeValidator(const ModuleContext& ctx) : ctx_(ctx), module_(ctx.module) {}

  // Validates module.functions[defined_index] and fills `info`.
  Result<void> validate(uint32_t defined_index, FunctionInfo& info);

 private:
  // A block type [params] -> [results]; both views point into module.types or
  // into static storage, never into the control stack (which reallocates).
  struct BlockSig {
    std::span<const ValType> params;
    std::span<const ValType> results;
  };
  struct ControlFrame {
    Opcode opcode;         // Block, Loop, If, Else, Handle; End stands for the function body
    BlockSig sig;
    uint32_t height;       // operands below the frame's params
    uint32_t slot_height;  // the same counted in executor slots
    bool unreachable;      // the rest of the frame is dead code (stack is polymorphic)
    // Handle and function frames: an `event` clause has begun, so the body
    // segment (the code the frame's clauses handle events for) is over.
    bool in_clauses;
    uint32_t scope;          // scope node of suspension points directly in this frame (kNoScope: none)
    uint32_t node;           // Handle and function frames: their own scope node
    uint32_t clauses_begin;  // Handle and function frames: their first clause in open_clauses_
    std::span<const ValType> label_types() const { return opcode == Opcode::Loop ? sig.params : sig.results; }
    bool has_clauses() const { return opcode == Opcode::Handle || opcode == Opcode::End; }
  };
  // Handler scopes (docs/fibers.md §5.3) as a tree: one node per handle (and
  // one for the function frame) whose body segment encloses code; a node's
  // parent is the scope around the handle. A suspension point records its
  // node; the clauses are only known when the handle ends, so scopes are
  // flattened when the function ends.
  static constexpr uint32_t kNoScope = UINT32_MAX;
  struct ScopeNode {
    uint32_t parent;
    uint32_t clauses_begin = 0;  // in node_clauses_, once the handle has ended
    uint32_t clauses_count = 0;
    uint32_t flat_begin = 0;  // the flattened scope in flat_scopes_, once computed
    uint32_t flat_count = 0;
    bool flattened = false;
  };
  struct OpenClause {
    EventClause clause;
    uint32_t event_offset;  // of the `event` instruction, for errors
  };
  struct PendingPoint {
    uint32_t body_offset;
    Opcode opcode;
    uint32_t scope;
  };
  // Declared locals are kept run-length encoded: a body may declare billions.
  struct LocalRun {
    uint32_t end;  // one past the last local index of the run
    ValType type;
  };

  bool run();

  // -- errors (the first one is kept; every check returns false after it) --
  // All out of line and cold, so the checking code stays small and keeps the
  // hot paths' register pressure low; messages are built only on failure.
  [[gnu::cold, gnu::noinline]] bool fail(ErrorKind kind, std::string message);
  [[gnu::cold, gnu::noinline]] bool invalid(std::string message);
  [[gnu::cold, gnu::noinline]] bool invalid(const char* message);
  [[gnu::cold, gnu::noinline]] bool malformed(const char* message);
  [[gnu::cold, gnu::noinline]] bool truncated();
  [[gnu::cold, gnu::noinline]] bool unknown(const char* index_space, uint64_t index);  // "unknown global 3"
  [[gnu::cold, gnu::noinline]] bool mismatch(ValType expected, ValType actual);
  bool check_valtype(ValType t);
  // actual <: expected; Unknown (dead code) is a subtype of everything.
  bool is_subtype(ValType actual, ValType expected) const {
    return is_unknown(actual) || ctx_.is_subtype(actual, expected);
  }
  ControlFrame& frame_at(uint32_t depth) { return ctrls_[ctrls_.size() - 1 - depth]; }

  // -- operand and control stacks (the spec appendix's algorithm) --
  // push and pop_expect are the hot path: inline, with every unusual case
  // (Unknown operands, an exhausted frame, errors) in out-of-line functions.
  void push(ValType t) {
    if (height_ == vals_.size()) [[unlikely]] grow();
    vals_[height_++] = t;
    slots_ += operand_slots(t);
    if (slots_ > max_slots_) max_slots_ = slots_;
  }
  void push_all(std::span<const ValType> types) {
    for (ValType t : types) push(t);
  }
  bool pop_expect(ValType expected) {
    if (height_ > ctrls_.back().height && vals_[height_ - 1] == expected) [[likely]] {
      slots_ -= operand_slots(expected);
      --height_;
      return true;
    }
    return pop_expect_slow(expected);
  }
  [[gnu::noinline]] bool pop_expect_slow(ValType expected);
  [[gnu::noinline]] void grow();
  bool pop(ValType& out);  // any type (drop, select, ref.is_null)
  bool pop_all(std::span<const ValType> types);
  bool peek_all(std::span<const ValType> types);  // pop_all + push back of what was popped
  bool push_ctrl(Opcode opcode, BlockSig sig);
  bool pop_ctrl(ControlFrame& out);
  void set_unreachable();

  // -- immediates --
  // (decoded by core/instruction_reader.h into insn_; these check them)
  bool block_sig(const BlockType& block, BlockSig& out);
  bool check_tag(uint32_t index);
  bool check_fiber_type(uint32_t index);
  bool check_label(uint32_t depth);
  bool check_memarg(uint32_t natural_bytes);
  bool check_memory();
  bool check_table(uint32_t index);
  bool check_elem(uint32_t index);
  bool check_data(uint32_t index);
  bool local_type(uint32_t index, ValType& out) {
    if (index < local_types_.size()) [[likely]] {
      out = local_types_[index];
      return true;
    }
    return local_type_slow(index, out);
  }
  bool local_type_slow(uint32_t index, ValType& out);

  // -- instruction families --
  bool generic(const OpcodeInfo& info);          // every plain-signature row of the table
  bool table_immediates(const OpcodeInfo& info);  // index and lane checks of those rows
  bool special(Opcode op);                        // the rows marked X
  bool control(Opcode op);
  bool br_table();
  bool call(Opcode op);
  bool parametric(Opcode op);
  bool variable(Opcode op);
  bool table_op(Opcode op);
  bool reference(Opcode op);
  // Fiber extension (code_validator_fibers.cc).
  bool fiber(Opcode op);
  bool event_clause();
  bool check_fiber_function(uint32_t func, uint32_t& fiber_type);
  void add_suspension_point(Opcode op);
  bool end_clauses(const ControlFrame& frame);  // a handle or the function ends
  bool finish_scopes(FunctionInfo& info);       // the function has ended
  void flatten_scope(uint32_t node);
  uint32_t next_mark();

  const ModuleContext& ctx_;
  const Module& module_;
  InstructionReader reader_{{}};  // reset per function, its buffers reused
  Instruction insn_;  // the instruction being validated
  uint32_t func_index_ = 0;
  size_t instr_offset_ = 0;
  Error error_;

  // The operand stack (kUnknown for bottom-typed operands): vals_[0, height_).
  // vals_ only grows, so push is one compare and one store.
  std::vector<ValType> vals_;
  uint32_t height_ = 0;
  std::vector<ControlFrame> ctrls_;
  std::vector<LocalRun> locals_;
  std::vector<ValType> local_types_;  // the first kExpandedLocals locals, one entry each
  // Accesses of those locals, weighted by loop nesting (FunctionInfo::hot_locals).
  std::vector<uint32_t> local_weights_;
  uint32_t loop_depth_ = 0;
  void rank_hot_locals(FunctionInfo& info);
  uint32_t num_locals_ = 0;
  uint32_t slots_ = 0;
  uint32_t max_slots_ = 0;
  bool uses_memory_ = false;  // the function has a memory instruction
  // Result types of single-value block types that are not one byte (typed
  // references): frames point here, and a deque never moves its elements.
  std::deque<ValType> block_results_;

  // Fiber extension: handler scopes (see ScopeNode).
  std::vector<ScopeNode> nodes_;
  std::vector<OpenClause> open_clauses_;  // clauses of the handles still open, innermost last
  std::vector<EventClause> node_clauses_;  // clauses of ended handles, contiguous per node
  std::vector<EventClause> flat_scopes_;   // flattened scopes, contiguous per node
  std::vector<PendingPoint> points_;
  std::vector<EventClause> entry_clauses_;  // the function frame's clauses
  std::vector<uint32_t> tag_marks_;         // per tag index: the last mark it got
  uint32_t mark_ = 0;
  uint64_t scope_work_ = 0;
};

}  // namespace weft::validator
