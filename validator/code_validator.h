// Type checking of function bodies: the spec's validation algorithm (operand
// stack with an Unknown bottom type, control frames) run directly over the
// instruction bytes, producing the per-function side tables — including the
// handler scopes of the fiber extension's suspension points.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <unordered_set>
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
// code, which matches every type. A kind outside ValType::Kind makes every
// `==` against a real type fail.
inline constexpr ValType kUnknown{ValType::Kind(0xFF), true, 0};
constexpr bool is_unknown(ValType t) { return t.kind == kUnknown.kind; }
// Executor slots an operand occupies; Unknown ones exist only in dead code and
// count at the widest size so the bound holds for any executor.
constexpr uint32_t operand_slots(ValType t) { return t.kind == ValType::V128 || is_unknown(t) ? 2 : 1; }

// An operand type on the validator's stack, one byte: the value types that are
// equal to the plain ValType of their kind (every type of Wasm 2.0, and
// fiberref) by that kind, any other (typed or non-nullable references of the
// fiber extension) as Exotic with its ValType kept beside it, and Unknown.
// Equal standard codes are equal types and different ones are unrelated
// (neither is a subtype of the other), so the fast paths compare bytes and
// leave Exotic and Unknown operands to the ValType-based slow paths.
// An enum rather than uint8_t: stores through a character type may alias
// anything, which would keep the validator's state out of registers.
enum class TypeCode : uint8_t {
  I32 = ValType::I32, I64 = ValType::I64, F32 = ValType::F32, F64 = ValType::F64, V128 = ValType::V128,
  FuncRef = ValType::FuncRef, ExternRef = ValType::ExternRef, FiberRef = ValType::FiberRef,
  Exotic,
  Unknown = 0xFF,
};
inline constexpr uint32_t kNumStandardCodes = uint32_t(TypeCode::Exotic);
// The ValType of each standard code.
inline constexpr ValType kStandardTypes[kNumStandardCodes] = {
    ValType::i32(),  ValType::i64(),     ValType::f32(),      ValType::f64(),
    ValType::v128(), ValType::funcref(), ValType::externref(), ValType{ValType::FiberRef, true, 0}};
constexpr TypeCode type_code(ValType t) {
  if (t.kind < kNumStandardCodes && kStandardTypes[t.kind] == t) return TypeCode(t.kind);
  return is_unknown(t) ? TypeCode::Unknown : TypeCode::Exotic;
}
inline constexpr TypeCode kStandardCodes[kNumStandardCodes] = {
    TypeCode::I32,  TypeCode::I64,     TypeCode::F32,       TypeCode::F64,
    TypeCode::V128, TypeCode::FuncRef, TypeCode::ExternRef, TypeCode::FiberRef};
constexpr bool is_standard(TypeCode c) { return c < TypeCode::Exotic; }
// Copying and comparing runs of codes, most of them zero or one long, without
// the library call std::copy_n and std::equal make of them.
inline void copy_codes(const TypeCode* from, size_t n, TypeCode* to) {
  if (n == 1) {
    *to = *from;
    return;
  }
  std::copy_n(from, n, to);
}
inline bool equal_codes(const TypeCode* a, size_t n, const TypeCode* b) {
  if (n <= 1) return n == 0 || *a == *b;
  return std::equal(a, a + n, b);
}
constexpr uint32_t code_slots(TypeCode c) { return c == TypeCode::V128 || c == TypeCode::Unknown ? 2 : 1; }

// One instance validates all bodies of a module in turn, reusing its stacks so
// that validation allocates nothing per instruction.
class CodeValidator {
 public:
  explicit CodeValidator(const ModuleContext& ctx);

  // Validates module.functions[defined_index] and fills `info`.
  Result<void> validate(uint32_t defined_index, FunctionInfo& info);

 private:
  // A sequence of value types (a block type's params or results, a function
  // type's), with their codes when all of them are standard (else `codes` is
  // null and only the ValType paths apply). The views point into module.types,
  // into this validator's per-module tables or into static storage, never into
  // the control stack (which reallocates).
  struct Types {
    std::span<const ValType> types;
    const TypeCode* codes = kStandardCodes;  // (any valid pointer for no types)
    uint32_t slots = 0;  // executor slots of all of them, when `codes` is set
  };
  // A block type [params] -> [results].
  struct BlockSig {
    Types params;
    Types results;
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
    // Non-defaultable locals first set inside this frame start at this entry
    // of init_log_; they are unset again when the frame ends (Wasm 3.0).
    uint32_t init_log_begin = 0;
    const Types& label_types() const { return opcode == Opcode::Loop ? sig.params : sig.results; }
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
  // Types defined by module.types, and the single-value block types.
  Types make_types(std::span<const ValType> types);
  static BlockSig single_sig(TypeCode c) {
    return {{}, {{&kStandardTypes[size_t(c)], 1}, &kStandardCodes[size_t(c)], code_slots(c)}};
  }

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
  [[gnu::cold, gnu::noinline]] bool feature_disabled(const OpcodeInfo& info);  // SIMD or fibers off
  bool check_valtype(ValType t) { return t.kind <= ValType::F64 || check_valtype_slow(t); }
  bool check_valtype_slow(ValType t);
  // actual <: expected; Unknown (dead code) is a subtype of everything.
  bool is_subtype(ValType actual, ValType expected) const {
    return is_unknown(actual) || ctx_.is_subtype(actual, expected);
  }
  ControlFrame& frame_at(uint32_t depth) { return ctrls_[ctrls_.size() - 1 - depth]; }

  // -- operand and control stacks (the spec appendix's algorithm) --
  // The inline functions compare and store type codes; every unusual case
  // (Unknown or Exotic operands, an exhausted frame, errors) goes out of line
  // to the ValType-based functions, which are the algorithm as the spec has it.
  ValType type_at(uint32_t i) const {
    const TypeCode c = vals_[i];
    return is_standard(c) ? kStandardTypes[size_t(c)] : c == TypeCode::Exotic ? exotic_[i] : kUnknown;
  }
  void push_code(TypeCode c) {  // c: not Exotic
    if (height_ == capacity_) [[unlikely]] grow();
    vals_[height_++] = c;
    slots_ += code_slots(c);
    if (slots_ > max_slots_) max_slots_ = slots_;
  }
  void push(ValType t) {
    const TypeCode c = type_code(t);
    if (c == TypeCode::Exotic) [[unlikely]] return push_exotic(t);
    push_code(c);
  }
  [[gnu::noinline]] void push_exotic(ValType t);
  void push_all(std::span<const ValType> types) {
    for (ValType t : types) push(t);
  }
  void push_all(const Types& t) {
    if (!t.codes) return push_all(t.types);
    const uint32_t n = uint32_t(t.types.size());
    while (capacity_ - height_ < n) grow();
    copy_codes(t.codes, n, vals_ + height_);
    height_ += n;
    slots_ += t.slots;
    if (slots_ > max_slots_) max_slots_ = slots_;
  }
  bool pop_code(TypeCode expected) {  // expected: a standard code
    if (height_ > base_ && vals_[height_ - 1] == expected) [[likely]] {
      slots_ -= code_slots(expected);
      --height_;
      return true;
    }
    return pop_expect_slow(kStandardTypes[size_t(expected)]);
  }
  bool pop_expect(ValType expected) {
    const TypeCode c = type_code(expected);
    return is_standard(c) ? pop_code(c) : pop_expect_slow(expected);
  }
  [[gnu::noinline]] bool pop_expect_slow(ValType expected);
  [[gnu::noinline]] void grow();
  bool pop(ValType& out);  // any type (drop, select, ref.is_null)
  // Whether the current frame's top operands are exactly `t`: then popping
  // them (and pushing them back) is all the spec's algorithm would do.
  bool top_is(const Types& t) const {
    const uint32_t n = uint32_t(t.types.size());
    return t.codes && height_ - base_ >= n && equal_codes(t.codes, n, vals_ + height_ - n);
  }
  bool pop_all(const Types& t) {
    if (!top_is(t)) return pop_all(t.types);
    height_ -= uint32_t(t.types.size());
    slots_ -= t.slots;
    return true;
  }
  bool pop_all(std::span<const ValType> types);
  bool peek_all(const Types& t) { return top_is(t) || peek_all(t.types); }
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
  bool check_memory(uint32_t index);
  bool memory_instruction(const OpcodeInfo& info);  // the operand types of one on a 64-bit memory
  bool table_instruction(const OpcodeInfo& info);   // the same for tables
  bool check_table(uint32_t index);
  bool check_elem(uint32_t index);
  bool check_data(uint32_t index);
  bool local_type(uint32_t index, ValType& out) {
    if (index < locals_info_.size() && is_standard(locals_info_[index].code)) [[likely]] {
      out = kStandardTypes[size_t(locals_info_[index].code)];
      return true;
    }
    return local_type_slow(index, out);
  }
  bool local_type_slow(uint32_t index, ValType& out);

  // -- fast paths of the X rows (code_validator.cc): each either completes the
  // instruction as the general path would, or returns false having changed
  // nothing, and the general path then runs. --
  bool fast_block(Opcode op);
  bool fast_end();
  bool fast_else();
  bool fast_branch(const Types& label);  // br, return
  bool fast_br_if();
  bool fast_call();
  // Whether pop_all(t) would succeed and empty the innermost frame: its
  // operands are exactly t, or (unreachable code) t's last ones.
  bool frame_holds(const ControlFrame& frame, const Types& t) const {
    const uint32_t n = uint32_t(t.types.size()), k = height_ - base_;
    if (!t.codes || k > n || (k < n && !frame.unreachable)) return false;
    return equal_codes(vals_ + base_, k, t.codes + (n - k));
  }
  // Makes `t` the innermost frame's operands, as popping them all and pushing
  // t would; false (nothing changed) if t has no codes or would reach a limit.
  bool set_operands(const ControlFrame& frame, const Types& t);

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
  bool br_on_null(Opcode op);  // br_on_null, br_on_non_null
  bool function_references_disabled(Opcode op);  // the error (Config::enable_function_references off)
  // Fiber extension (code_validator_fibers.cc).
  bool fiber(Opcode op);
  // Exception handling (code_validator_exceptions.cc).
  bool exception_instruction(Opcode op);
  bool check_catch(const CatchClause& clause);
  bool exceptions_disabled(Opcode op);
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

  // The operand stack: vals_[0, height_), in stack_ after kStackPad entries
  // that let the table-driven path load the top four codes as one word at any
  // height. It only grows, so push is one compare and one store.
  static constexpr uint32_t kStackPad = 4;
  std::vector<TypeCode> stack_;
  TypeCode* vals_ = nullptr;
  uint32_t capacity_ = 0;
  // min(capacity_, kMaxOperandStackHeight): a fast path may push one operand
  // below this height (above it, the general path grows or reports the limit).
  uint32_t push_limit_ = 0;
  uint32_t height_ = 0;
  uint32_t base_ = 0;            // ctrls_.back().height, kept at hand for the fast paths
  std::vector<ValType> exotic_;  // exotic_[i]: the type of operand i where vals_[i] is Exotic
  std::vector<ControlFrame> ctrls_;
  std::vector<LocalRun> locals_;
  // The first kExpandedLocals locals, one entry each: the type's code, and the
  // accesses weighted by loop nesting (FunctionInfo::hot_locals) side by side,
  // as every access reads the one and updates the other.
  struct LocalInfo {
    TypeCode code;
    uint32_t weight;
  };
  std::vector<LocalInfo> locals_info_;
  uint32_t loop_depth_ = 0;
  uint32_t loop_weight_ = 1;  // an access's weight at loop_depth_: 4^depth, at most 2^24
  void enter_loop() { loop_weight_ = 1u << std::min<uint32_t>(2 * ++loop_depth_, 24); }
  void leave_loop() { loop_weight_ = 1u << std::min<uint32_t>(2 * --loop_depth_, 24); }
  // Saturating: an access in a loop nest outweighs many outside it.
  void count_access(uint32_t local) {
    uint32_t& w = locals_info_[local].weight;
    w = std::max(w, w + loop_weight_);
  }
  void rank_hot_locals(FunctionInfo& info);
  uint32_t num_locals_ = 0;
  // Declared locals of a non-defaultable type (typed function references)
  // may be read only once set: the ones set so far in the enclosing frames,
  // and the same in the order set (ControlFrame::init_log_begin unsets a
  // frame's at its end). Sized by the local.set instructions, not by the
  // locals a function declares (up to 2^32 - 1); empty as a rule.
  uint32_t num_params_ = 0;
  std::unordered_set<uint32_t> set_locals_;
  std::vector<uint32_t> init_log_;
  uint32_t init_logged_ = 0;  // init_log_.size(), kept apart for the block fast paths
  void unset_locals_from(uint32_t begin) {
    for (size_t i = begin; i < init_log_.size(); ++i) set_locals_.erase(init_log_[i]);
    init_log_.resize(begin);
    init_logged_ = begin;
  }
  uint32_t slots_ = 0;
  uint32_t max_slots_ = 0;
  bool uses_memory_ = false;  // the function has a memory instruction
  // Result types of single-value block types that are not one byte (typed
  // references): frames point here, and a deque never moves its elements.
  std::deque<ValType> block_results_;
  std::vector<ValType> catch_values_;  // check_catch's scratch

  // Per module, built once: every type's params and results with codes (the
  // codes stored in sig_codes_), the globals' codes, which features are off.
  std::vector<BlockSig> type_sigs_;
  std::vector<TypeCode> sig_codes_;
  std::vector<TypeCode> global_codes_;
  std::vector<TypeCode> mutable_global_codes_;  // Unknown for immutable globals
  uint32_t num_memories_ = 0;
  // The memarg fast path takes memory 0 with an alignment up to the row's: the
  // alignment and the memory index read as one number (memory in the high
  // half), plus 2^40 when the module has no memory so that it never fits.
  uint64_t memarg_fast_bias_ = 0;
  bool has_memory64_ = false;  // some memory has an i64 address type: memory_instruction()
  bool has_table64_ = false;   // some table has: table_instruction()
  ValType table_index_type(uint32_t table) const {
    return ctx_.tables[table].limits.address64 ? ValType::i64() : ValType::i32();
  }
  uint64_t memarg_fast_key() const {
    static_assert(offsetof(Instruction, memory) == offsetof(Instruction, align) + 4 &&
                  std::endian::native == std::endian::little);
    uint64_t key;
    std::memcpy(&key, &insn_.align, 8);
    return key;
  }
  uint8_t disabled_features_ = 0;  // kSimdFeature | kFiberFeature (code_validator.cc)

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
