// The module decoder's pass over code: core/instruction_reader.h decodes every
// instruction and its immediates; this adds what is structure rather than
// immediates — block nesting, `else` only inside `if`, the closing `end` — and
// the rule that data-segment instructions need a DataCount section.
#include "binary/code_walker.h"

#include <array>

#include "core/instruction_reader.h"
#include "core/opcodes.h"

namespace weft::binary::detail {
namespace {

// What the walker does after an instruction, per opcode; most do nothing, so
// the loop tests one byte before anything else.
enum Action : uint8_t { kNothing, kEnd, kElse, kOpenIf, kOpenBlock, kNeedsDataCount };
constexpr auto make_actions() {
  std::array<Action, kOpcodeCount> actions{};
  for (size_t i = 0; i < kOpcodeCount; ++i) {
    const ImmKind kind = kImmediateKind[i];
    if (kind == ImmKind::BlockType || kind == ImmKind::TryTable) actions[i] = kOpenBlock;  // block, loop, handle, try_table
    if (kind == ImmKind::DataIdx || kind == ImmKind::MemoryInit) actions[i] = kNeedsDataCount;
  }
  actions[size_t(Opcode::End)] = kEnd;
  actions[size_t(Opcode::Else)] = kElse;
  actions[size_t(Opcode::If)] = kOpenIf;
  return actions;
}
constexpr auto kActions = make_actions();

// Runs `read` on an InstructionReader over r's remaining bytes and moves r
// past what it read, or records its error at the module offset.
template <typename Read>
bool read_with(Reader& r, InstructionReader& in, ReaderFeatures features, Read read) {
  in.reset({r.pos(), r.end()}, features, r.eof_message());
  if (!read(in)) {
    r.fail_at(r.offset_of(r.pos() + in.error_offset()), in.error());
    return false;
  }
  r.seek(r.pos() + in.pos());
  return true;
}

}  // namespace

bool read_value_type(Reader& r, bool enable_simd, bool enable_fibers, ValType& out) {
  InstructionReader in({});
  return read_with(r, in, {enable_simd, enable_fibers}, [&](InstructionReader& in) { return in.read_value_type(out); });
}

bool read_ref_type(Reader& r, bool enable_fibers, ValType& out) {
  InstructionReader in({});
  return read_with(r, in, {false, enable_fibers}, [&](InstructionReader& in) { return in.read_ref_type(out); });
}

bool CodeWalker::read_expression(Reader& r, const ExprContext& ctx) {
  const bool data_count_missing = ctx.check_data_count && !ctx.have_data_count;
  control_.clear();
  return read_with(r, reader_, {ctx.enable_simd, ctx.enable_fibers, ctx.enable_multi_memory, ctx.enable_memory64},
                   [&](InstructionReader& in) {
    Instruction insn;
    for (;;) {
      if (in.at_end()) return in.fail(in.pos(), ctx.missing_end_message);
      if (!in.next(insn)) return false;
      switch (kActions[size_t(insn.op)]) {
        case kNothing:
          break;
        case kEnd:
          if (control_.empty()) return true;
          control_.pop_back();
          break;
        case kElse:
          // The spec's reader ends the instruction sequence at `else` and then
          // wants an `end` unless the enclosing construct is an `if`.
          if (control_.empty() || control_.back() != Frame::If) return in.fail(insn.offset, "END opcode expected");
          control_.back() = Frame::Else;
          break;
        case kOpenIf:
          control_.push_back(Frame::If);
          break;
        case kOpenBlock:
          control_.push_back(Frame::Plain);
          break;
        case kNeedsDataCount:
          if (data_count_missing) return in.fail(insn.offset, "data count section required");
          break;
      }
    }
  });
}

}  // namespace weft::binary::detail
