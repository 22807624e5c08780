// Type checking of function bodies: the spec's validation algorithm (operand
// stack with an Unknown bottom type, control frames) run directly over the
// instruction bytes, producing the per-function side tables.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/opcodes.h"
#include "core/result.h"
#include "validator/code_reader.h"
#include "validator/module_context.h"

namespace weft::validator {

// Implementation limits that keep validation of hostile input bounded in
// memory; the spec leaves them to the embedder (real code stays far below).
constexpr uint32_t kMaxOperandStackHeight = 1u << 20;  // operands live at once
constexpr uint32_t kMaxControlDepth = 1u << 20;        // nested blocks

// One instance validates all bodies of a module in turn, reusing its stacks so
// that validation allocates nothing per instruction.
class CodeValidator {
 public:
  explicit CodeValidator(const ModuleContext& ctx) : ctx_(ctx), module_(ctx.module) {}

  // Validates module.functions[defined_index] and fills `info`.
  Result<void> validate(uint32_t defined_index, FunctionInfo& info);

 private:
  // An operand's type: a value type, or Unknown — the bottom type popped from
  // the polymorphic stack of unreachable code, which matches every type.
  struct Operand {
    ValType type;
    bool unknown = false;
  };
  // A block type [params] -> [results]; both views point into module.types or
  // into static storage, never into the control stack (which reallocates).
  struct BlockSig {
    std::span<const ValType> params;
    std::span<const ValType> results;
  };
  struct ControlFrame {
    Opcode opcode;         // Block, Loop, If, Else; End stands for the function body
    BlockSig sig;
    uint32_t height;       // operands below the frame's params
    uint32_t slot_height;  // the same counted in executor slots
    bool unreachable;      // the rest of the frame is dead code (stack is polymorphic)
    std::span<const ValType> label_types() const { return opcode == Opcode::Loop ? sig.params : sig.results; }
  };
  // Declared locals are kept run-length encoded: a body may declare billions.
  struct LocalRun {
    uint32_t end;  // one past the last local index of the run
    ValType type;
  };

  bool run();

  // -- errors (the first one is kept; every check returns false after it) --
  bool fail(ErrorKind kind, std::string message);
  bool invalid(std::string message) { return fail(ErrorKind::Invalid, std::move(message)); }
  bool malformed(std::string message) { return fail(ErrorKind::Malformed, std::move(message)); }
  bool truncated() { return malformed(reader_->error()); }
  bool mismatch(ValType expected, const Operand& actual);
  bool check_valtype(ValType t);
  ControlFrame& frame_at(uint32_t depth) { return ctrls_[ctrls_.size() - 1 - depth]; }

  // -- operand and control stacks (the spec appendix's algorithm) --
  void push(ValType t) { push_operand({t, false}); }
  void push_operand(Operand v);
  void push_all(std::span<const ValType> types) {
    for (ValType t : types) push(t);
  }
  bool pop(Operand& out);
  bool pop_expect(ValType expected);
  bool pop_all(std::span<const ValType> types);
  bool peek_all(std::span<const ValType> types);  // pop_all + push back of what was popped
  bool push_ctrl(Opcode opcode, BlockSig sig);
  bool pop_ctrl(ControlFrame& out);
  void set_unreachable();

  // -- immediates --
  bool read_u32(uint32_t& out) { return reader_->u32(out) || truncated(); }
  bool read_block_type(BlockSig& out);
  bool read_label(uint32_t& depth);
  bool read_zero_byte();
  bool read_memarg(uint32_t natural_bytes);
  bool check_memory();
  bool read_table(uint32_t& index);
  bool check_elem(uint32_t index);
  bool check_data(uint32_t index);
  bool local_type(uint32_t index, ValType& out);

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

  const ModuleContext& ctx_;
  const Module& module_;
  CodeReader* reader_ = nullptr;
  uint32_t func_index_ = 0;
  size_t instr_offset_ = 0;
  Error error_;

  std::vector<Operand> vals_;
  std::vector<ControlFrame> ctrls_;
  std::vector<LocalRun> locals_;
  uint32_t num_locals_ = 0;
  uint32_t slots_ = 0;
  uint32_t max_slots_ = 0;
};

}  // namespace weft::validator
