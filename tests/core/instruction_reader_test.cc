// The one instruction reader: every immediate kind decodes to the fields
// core/instruction_reader.h documents, LEB edge cases follow core/leb128's
// rules, and errors carry the spec suite's wording and the right offset.
#include "core/instruction_reader.h"

#include <gtest/gtest.h>

#include <vector>

namespace weft {
namespace {

struct Read {
  bool ok;
  Instruction insn;
  const char* error;
  size_t error_offset;
  size_t end_pos;
};

Read read_one(std::vector<uint8_t> bytes, ReaderFeatures features = {}) {
  InstructionReader r(bytes, features);
  Read out{};
  out.ok = r.next(out.insn);
  out.error = r.error();
  out.error_offset = r.error_offset();
  out.end_pos = r.pos();
  return out;  // (spans into the reader dangle now: tests of them keep their reader)
}

TEST(InstructionReader, IndicesConstantsAndMemargs) {
  Read call = read_one({0x10, 0xE5, 0x8E, 0x26});  // call 624485
  ASSERT_TRUE(call.ok);
  EXPECT_EQ(call.insn.op, Opcode::Call);
  EXPECT_EQ(call.insn.index, 624485u);
  EXPECT_EQ(call.end_pos, 4u);

  Read indirect = read_one({0x11, 0x07, 0x02});  // call_indirect type 7, table 2
  ASSERT_TRUE(indirect.ok);
  EXPECT_EQ(indirect.insn.index, 7u);
  EXPECT_EQ(indirect.insn.index2, 2u);

  Read minus_one = read_one({0x41, 0x7F});  // i32.const -1: the bit pattern, zero-extended
  ASSERT_TRUE(minus_one.ok);
  EXPECT_EQ(minus_one.insn.bits, 0xFFFFFFFFu);
  EXPECT_EQ(minus_one.insn.i32(), -1);

  Read min32 = read_one({0x41, 0x80, 0x80, 0x80, 0x80, 0x78});  // i32.const INT32_MIN, five bytes
  ASSERT_TRUE(min32.ok);
  EXPECT_EQ(min32.insn.i32(), INT32_MIN);

  Read big64 = read_one({0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F});  // i64.const INT64_MIN
  ASSERT_TRUE(big64.ok);
  EXPECT_EQ(big64.insn.i64(), INT64_MIN);

  // Nine bytes (the inline path's longest) at both ends of their range.
  Read min63 = read_one({0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40});  // i64.const -2^62
  ASSERT_TRUE(min63.ok);
  EXPECT_EQ(min63.insn.i64(), -(int64_t(1) << 62));
  EXPECT_EQ(min63.end_pos, 10u);
  Read max63 = read_one({0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F});  // i64.const 2^62 - 1
  ASSERT_TRUE(max63.ok);
  EXPECT_EQ(max63.insn.i64(), (int64_t(1) << 62) - 1);

  Read f32 = read_one({0x43, 0x00, 0x00, 0x80, 0x3F});  // f32.const 1.0
  ASSERT_TRUE(f32.ok);
  EXPECT_EQ(f32.insn.f32_bits(), 0x3F800000u);

  Read load = read_one({0x28, 0x02, 0x80, 0x01});  // i32.load align=2 offset=128
  ASSERT_TRUE(load.ok);
  EXPECT_EQ(load.insn.align, 2u);
  EXPECT_EQ(load.insn.mem_offset, 128u);
}

// f32/f64 constants, i64 constants of up to nine bytes and the four numeric
// block types are read inline; what does not fit (a cut immediate, a ten-byte
// LEB) goes to the out-of-line path, whose results and errors are the rule.
TEST(InstructionReader, InlineImmediatesAndTheirOutOfLineRest) {
  Read f32 = read_one({0x43, 0x00, 0x00, 0x80, 0xBF});  // f32.const -1.0
  ASSERT_TRUE(f32.ok);
  EXPECT_EQ(f32.insn.bits, 0xBF800000u);  // the bit pattern, zero-extended
  EXPECT_EQ(f32.end_pos, 5u);
  Read f64 = read_one({0x44, 0, 0, 0, 0, 0, 0, 0xF0, 0xBF});  // f64.const -1.0
  ASSERT_TRUE(f64.ok);
  EXPECT_EQ(f64.insn.bits, 0xBFF0000000000000u);
  EXPECT_EQ(f64.end_pos, 9u);
  for (const std::vector<uint8_t>& cut : {std::vector<uint8_t>{0x43, 0x00, 0x00, 0x80},
                                          std::vector<uint8_t>{0x44, 0, 0, 0, 0, 0, 0, 0xF0}}) {
    Read r = read_one(cut);
    EXPECT_FALSE(r.ok);
    EXPECT_STREQ(r.error, "unexpected end");
  }
  Read i64 = read_one({0x42, 0xC0, 0xBB, 0x78});  // i64.const -123456
  ASSERT_TRUE(i64.ok);
  EXPECT_EQ(i64.insn.i64(), -123456);
  EXPECT_EQ(i64.end_pos, 4u);
  Read ten = read_one({0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00});  // 2^63 - 1
  ASSERT_TRUE(ten.ok);
  EXPECT_EQ(ten.insn.i64(), INT64_MAX);
  EXPECT_EQ(ten.end_pos, 11u);
  Read cut_leb = read_one({0x42, 0xFF, 0xFF});
  EXPECT_FALSE(cut_leb.ok);
  EXPECT_STREQ(cut_leb.error, "unexpected end");
  const ValType kinds[] = {ValType::i32(), ValType::i64(), ValType::f32(), ValType::f64()};
  for (uint8_t byte = 0x7C; byte <= 0x7F; ++byte) {
    Read block = read_one({0x02, byte});
    ASSERT_TRUE(block.ok);
    EXPECT_EQ(block.insn.block.kind, BlockType::Value);
    EXPECT_EQ(block.insn.block.value, kinds[0x7F - byte]);
    EXPECT_EQ(block.end_pos, 2u);
  }
  EXPECT_FALSE(read_one({0x02}).ok);  // a block type cut off
}

TEST(InstructionReader, BlockTypesSelectAndReferences) {
  Read empty = read_one({0x02, 0x40});
  ASSERT_TRUE(empty.ok);
  EXPECT_EQ(empty.insn.block.kind, BlockType::Empty);

  Read value = read_one({0x03, 0x7E});  // loop (result i64)
  ASSERT_TRUE(value.ok);
  EXPECT_EQ(value.insn.block.kind, BlockType::Value);
  EXPECT_EQ(value.insn.block.value, ValType::i64());

  Read index = read_one({0x04, 0x85, 0x01});  // if (type 133)
  ASSERT_TRUE(index.ok);
  EXPECT_EQ(index.insn.block.kind, BlockType::TypeIndex);
  EXPECT_EQ(index.insn.block.type_index, 133u);

  Read fiber_block = read_one({0x02, 0x63, 0x03});  // block (result (ref null 3))
  ASSERT_TRUE(fiber_block.ok);
  EXPECT_EQ(fiber_block.insn.block.value, (ValType{ValType::TypedRef, true, 3}));

  std::vector<uint8_t> select = {0x1C, 0x01, 0x7D};  // select (result f32)
  InstructionReader r(select);
  Instruction insn;
  ASSERT_TRUE(r.next(insn));
  ASSERT_EQ(insn.select_types.size(), 1u);
  EXPECT_EQ(insn.select_types[0], ValType::f32());

  std::vector<uint8_t> table = {0x0E, 0x02, 0x00, 0x81, 0x01, 0x03};  // br_table 0 129 3
  InstructionReader t(table);
  ASSERT_TRUE(t.next(insn));
  ASSERT_EQ(insn.br_targets.size(), 3u);
  EXPECT_EQ(insn.br_targets[0], 0u);
  EXPECT_EQ(insn.br_targets[1], 129u);
  EXPECT_EQ(insn.br_targets[2], 3u);  // the default comes last

  Read null_func = read_one({0xD0, 0x70});
  ASSERT_TRUE(null_func.ok);
  EXPECT_EQ(null_func.insn.heap_type, ValType::funcref());
  Read null_fiber = read_one({0xD0, 0x02});  // ref.null $2 (fiber extension)
  ASSERT_TRUE(null_fiber.ok);
  EXPECT_EQ(null_fiber.insn.heap_type, (ValType{ValType::TypedRef, true, 2}));
}

TEST(InstructionReader, PrefixedOpcodesAndTheirImmediates) {
  Read copy = read_one({0xFC, 0x0E, 0x01, 0x02});  // table.copy 1 2
  ASSERT_TRUE(copy.ok);
  EXPECT_EQ(copy.insn.op, Opcode::TableCopy);
  EXPECT_EQ(copy.insn.index, 1u);
  EXPECT_EQ(copy.insn.index2, 2u);

  Read resume = read_one({0xFA, 0x04, 0x05, 0x09});  // fiber.resume $g=5 $e=9
  ASSERT_TRUE(resume.ok);
  EXPECT_EQ(resume.insn.op, Opcode::FiberResume);
  EXPECT_EQ(resume.insn.index, 5u);
  EXPECT_EQ(resume.insn.index2, 9u);

  std::vector<uint8_t> v128(18, 0xAB);
  v128[0] = 0xFD;
  v128[1] = 0x0C;  // v128.const
  InstructionReader r(v128);
  Instruction insn;
  ASSERT_TRUE(r.next(insn));
  EXPECT_EQ(insn.op, Opcode::V128Const);
  EXPECT_EQ(insn.bytes16, v128.data() + 2);

  Read fiber_off = read_one({0xFA, 0x04, 0x05, 0x09}, ReaderFeatures{.simd = true, .fibers = false});
  EXPECT_FALSE(fiber_off.ok);
  EXPECT_STREQ(fiber_off.error, "illegal opcode");
}

TEST(InstructionReader, ErrorsHaveTheSpecWordingAndOffset) {
  Read unknown = read_one({0x06});
  EXPECT_FALSE(unknown.ok);
  EXPECT_STREQ(unknown.error, "illegal opcode");
  EXPECT_EQ(unknown.error_offset, 0u);

  Read truncated = read_one({0x10, 0x80});  // call with a LEB that never ends
  EXPECT_FALSE(truncated.ok);
  EXPECT_STREQ(truncated.error, "unexpected end");
  EXPECT_EQ(truncated.error_offset, 2u);  // reported at the end of the data

  Read too_long = read_one({0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});  // local.get, six bytes
  EXPECT_FALSE(too_long.ok);
  EXPECT_STREQ(too_long.error, "integer representation too long");
  EXPECT_EQ(too_long.error_offset, 1u);

  Read too_large = read_one({0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F});  // bits beyond 32
  EXPECT_FALSE(too_large.ok);
  EXPECT_STREQ(too_large.error, "integer too large");

  Read bad_sign = read_one({0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x4F});  // unused bits not a sign copy
  EXPECT_FALSE(bad_sign.ok);
  EXPECT_STREQ(bad_sign.error, "integer too large");

  // Wasm 2.0 (no multi-memory, no memory64): memory.size's memory index is one 0x00 byte.
  const ReaderFeatures wasm2{.simd = true, .fibers = true, .multi_memory = false, .memory64 = false};
  Read zero = read_one({0x3F, 0x01}, wasm2);
  EXPECT_FALSE(zero.ok);
  EXPECT_STREQ(zero.error, "zero byte expected");
  EXPECT_FALSE(read_one({0x3F, 0x80, 0x00}, wasm2).ok);  // not a LEB that happens to be zero
  // With it (the default), a u32: memory 1, and a padded 0.
  Read memory1 = read_one({0x3F, 0x01});
  ASSERT_TRUE(memory1.ok);
  EXPECT_EQ(memory1.insn.memory, 1u);
  EXPECT_TRUE(read_one({0x3F, 0x80, 0x00}).ok);

  Read flags = read_one({0x28, 0xC2, 0x00, 0x03, 0x10});  // i32.load, flags 0x42: align 2, memory 3, offset 16
  ASSERT_TRUE(flags.ok);
  EXPECT_EQ(flags.insn.align, 2u);
  EXPECT_EQ(flags.insn.memory, 3u);
  EXPECT_EQ(flags.insn.mem_offset, 16u);
  EXPECT_EQ(read_one({0x28, 0x02, 0x10}).insn.memory, 0u);
  Read bad_flags = read_one({0x28, 0x80, 0x01, 0x00, 0x00});  // flags 128
  EXPECT_FALSE(bad_flags.ok);
  EXPECT_STREQ(bad_flags.error, "malformed memop flags");
  EXPECT_EQ(bad_flags.error_offset, 1u);
  Read wasm2_flags = read_one({0x28, 0x42, 0x10}, wasm2);  // an alignment of 2^66 for the validator to reject
  ASSERT_TRUE(wasm2_flags.ok);
  EXPECT_EQ(wasm2_flags.insn.align, 0x42u);

  // Offsets beyond 32 bits (memory64), through the inline path's fallback:
  // a plain load and a prefixed one (whose reading position is the reader's own).
  Read wide = read_one({0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x10});  // i32.load offset=2^32
  ASSERT_TRUE(wide.ok);
  EXPECT_EQ(wide.insn.mem_offset, uint64_t(1) << 32);
  EXPECT_EQ(wide.end_pos, 7u);
  Read wide_simd = read_one({0xFD, 0x00, 0x44, 0x02, 0x80, 0x80, 0x80, 0x80, 0x10});  // v128.load memory 2
  ASSERT_TRUE(wide_simd.ok);
  EXPECT_EQ(wide_simd.insn.memory, 2u);
  EXPECT_EQ(wide_simd.insn.align, 4u);
  EXPECT_EQ(wide_simd.insn.mem_offset, uint64_t(1) << 32);
  EXPECT_EQ(wide_simd.end_pos, 9u);
  EXPECT_FALSE(read_one({0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x10}, wasm2).ok);  // a u32 in Wasm 2.0
  Read memory_bad_flags = read_one({0xFD, 0x00, 0x80, 0x01, 0x00});
  EXPECT_STREQ(memory_bad_flags.error, "malformed memop flags");
  EXPECT_EQ(memory_bad_flags.error_offset, 2u);

  Read copy = read_one({0xFC, 0x0A, 0x02, 0x01});  // memory.copy 2 1
  ASSERT_TRUE(copy.ok);
  EXPECT_EQ(copy.insn.memory, 2u);
  EXPECT_EQ(copy.insn.memory2, 1u);
  Read init = read_one({0xFC, 0x08, 0x05, 0x01});  // memory.init of data 5 into memory 1
  ASSERT_TRUE(init.ok);
  EXPECT_EQ(init.insn.index, 5u);
  EXPECT_EQ(init.insn.memory, 1u);

  Read block = read_one({0x02, 0x80, 0x7F});  // a two-byte s33 that is negative: no type
  EXPECT_FALSE(block.ok);
  EXPECT_STREQ(block.error, "malformed block type");

  Read select = read_one({0x1C, 0x01, 0x10});
  EXPECT_FALSE(select.ok);
  EXPECT_STREQ(select.error, "malformed value type");

  Read count = read_one({0x0E, 0xFF, 0xFF, 0x03});  // br_table count larger than the bytes left
  EXPECT_FALSE(count.ok);
  EXPECT_STREQ(count.error, "unexpected end");

  {
    std::vector<uint8_t> bytes = {0x44, 0x00};
    InstructionReader r(bytes, {}, "unexpected end of section or function");
    Instruction insn;
    EXPECT_FALSE(r.next(insn));
    EXPECT_STREQ(r.error(), "unexpected end of section or function");
  }
}

TEST(InstructionReader, PeekDoesNotMoveAndResetReusesTheReader) {
  std::vector<uint8_t> code = {0x46, 0x0D, 0x00, 0x0B};  // i32.eq br_if 0 end
  InstructionReader r(code);
  Instruction insn;
  ASSERT_TRUE(r.next(insn));
  EXPECT_EQ(r.peek_opcode(), Opcode::BrIf);
  EXPECT_EQ(r.peek_byte(), single_byte_of(Opcode::BrIf));
  EXPECT_EQ(r.pos(), 1u);
  ASSERT_TRUE(r.next(insn));
  EXPECT_EQ(insn.op, Opcode::BrIf);
  EXPECT_EQ(insn.index, 0u);

  std::vector<uint8_t> other = {0x41, 0x2A};
  r.reset(other, {});
  ASSERT_TRUE(r.next(insn));
  EXPECT_EQ(insn.i32(), 42);
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.peek_opcode().has_value());
  EXPECT_EQ(r.peek_byte(), -1);
}

// One- and two-byte LEBs are read inline, longer ones out of line: every
// value at the seams reads the same either way (two bytes encode bits 0-13,
// the signed ones sign-extended from bit 13), and a body that ends inside a
// LEB is an error wherever it ends.
TEST(InstructionReader, LebLengthsAtTheSeams) {
  struct Case {
    std::vector<uint8_t> bytes;
    int64_t value;
  };
  const Case i32_consts[] = {
      {{0x41, 0x3F}, 63},                        // one byte, bit 6 clear
      {{0x41, 0x40}, -64},                       // one byte, negative
      {{0x41, 0xC0, 0x00}, 64},                  // two bytes
      {{0x41, 0xFF, 0x3F}, 8191},                // two bytes, the largest positive
      {{0x41, 0x80, 0x40}, -8192},               // two bytes, the smallest negative
      {{0x41, 0xFF, 0x7F}, -1},                  // -1 in two (redundant) bytes
      {{0x41, 0x80, 0xC0, 0x00}, 8192},          // three bytes: out of line
      {{0x41, 0xFF, 0xBF, 0x7F}, -8193},
  };
  for (const Case& c : i32_consts) {
    Read r = read_one(c.bytes);
    ASSERT_TRUE(r.ok) << c.value;
    EXPECT_EQ(r.insn.i32(), int32_t(c.value));
    EXPECT_EQ(r.end_pos, c.bytes.size()) << c.value;
  }
  const Case indices[] = {
      {{0x20, 0x7F}, 127},
      {{0x20, 0x80, 0x01}, 128},
      {{0x20, 0xFF, 0x7F}, 16383},               // two bytes, the largest
      {{0x20, 0x80, 0x80, 0x01}, 16384},         // three bytes
      {{0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 0xFFFFFFFF},
  };
  for (const Case& c : indices) {
    Read r = read_one(c.bytes);
    ASSERT_TRUE(r.ok) << c.value;
    EXPECT_EQ(r.insn.index, uint32_t(c.value));
    EXPECT_EQ(r.end_pos, c.bytes.size()) << c.value;
  }
  for (const std::vector<uint8_t>& cut : {std::vector<uint8_t>{0x20, 0x80}, std::vector<uint8_t>{0x41, 0xFF},
                                          std::vector<uint8_t>{0x20, 0x80, 0x80}}) {
    Read r = read_one(cut);
    EXPECT_FALSE(r.ok) << cut.size();
    EXPECT_STRNE(r.error, "");
  }
  Read unused_bits = read_one({0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F});  // a u32's fifth byte above 0x0F
  EXPECT_FALSE(unused_bits.ok);
}

// next(cursor, insn) reads what next(insn) reads, the position in the
// caller's hands; set_cursor gives it back to the reader.
TEST(InstructionReader, CursorReadsAsNextDoes) {
  const std::vector<uint8_t> code = {
      0x02, 0x7F,                                      // block (result i32)
      0x41, 0x80, 0x01,                                // i32.const 128 (two bytes)
      0x28, 0x02, 0x90, 0x4E,                          // i32.load align=2 offset=10000
      0x44, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,              // f64.const 1.0 (out of line)
      0x0E, 0x02, 0x00, 0x01, 0x00,                    // br_table 0 1 0
      0xFC, 0x0A, 0x00, 0x00,                          // memory.copy (prefixed)
      0x11, 0x03, 0x00,                                // call_indirect type 3, table 0
      0x0B};                                           // end
  InstructionReader by_next(code), by_cursor(code);
  const uint8_t* cursor = by_cursor.cursor();
  Instruction a, b;
  while (!by_next.at_end()) {
    ASSERT_TRUE(by_next.next(a));
    ASSERT_TRUE(by_cursor.next(cursor, b));
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.offset, b.offset);
    EXPECT_EQ(by_next.pos(), by_cursor.offset_of(cursor));
    switch (kImmediateKind[size_t(a.op)]) {
      case ImmKind::BlockType: EXPECT_EQ(a.block.value, b.block.value); break;
      case ImmKind::I32: case ImmKind::F64: EXPECT_EQ(a.bits, b.bits); break;
      case ImmKind::Memarg: EXPECT_EQ(a.mem_offset, b.mem_offset); EXPECT_EQ(a.align, b.align); break;
      case ImmKind::BrTable: EXPECT_EQ(std::vector<uint32_t>(a.br_targets.begin(), a.br_targets.end()),
                                       std::vector<uint32_t>(b.br_targets.begin(), b.br_targets.end())); break;
      case ImmKind::CallIndirect: EXPECT_EQ(a.index, b.index); EXPECT_EQ(a.index2, b.index2); break;
      default: break;
    }
  }
  EXPECT_TRUE(by_cursor.at_end(cursor));
  by_cursor.set_cursor(cursor);
  EXPECT_TRUE(by_cursor.at_end());

  // Errors are the same too: a truncated LEB in the middle of the code.
  const std::vector<uint8_t> truncated = {0x01, 0x41, 0x80};  // nop, i32.const <cut>
  InstructionReader r(truncated);
  const uint8_t* at = r.cursor();
  ASSERT_TRUE(r.next(at, a));
  EXPECT_FALSE(r.next(at, a));
  EXPECT_EQ(r.error_offset(), read_one({0x41, 0x80}).error_offset + 1);
  EXPECT_STREQ(r.error(), read_one({0x41, 0x80}).error);
}


// next_single<K> (the validator's fused loop) reads what next() reads: every
// single-byte opcode whose kind it inlines, with short, long (out-of-line)
// and cut-off immediates — same fields, position, success and error.
template <ImmKind K>
bool next_single_as(InstructionReader& r, const uint8_t*& cursor, Instruction& out) {
  return r.next_single<K>(cursor, out);
}
bool next_single_for(ImmKind kind, InstructionReader& r, const uint8_t*& cursor, Instruction& out) {
  switch (kind) {
    case ImmKind::None: return next_single_as<ImmKind::None>(r, cursor, out);
    case ImmKind::LabelIdx: return next_single_as<ImmKind::LabelIdx>(r, cursor, out);
    case ImmKind::FuncIdx: return next_single_as<ImmKind::FuncIdx>(r, cursor, out);
    case ImmKind::LocalIdx: return next_single_as<ImmKind::LocalIdx>(r, cursor, out);
    case ImmKind::GlobalIdx: return next_single_as<ImmKind::GlobalIdx>(r, cursor, out);
    case ImmKind::TableIdx: return next_single_as<ImmKind::TableIdx>(r, cursor, out);
    case ImmKind::TagIdx: return next_single_as<ImmKind::TagIdx>(r, cursor, out);
    case ImmKind::TypeIdx: return next_single_as<ImmKind::TypeIdx>(r, cursor, out);
    case ImmKind::I32: return next_single_as<ImmKind::I32>(r, cursor, out);
    case ImmKind::I64: return next_single_as<ImmKind::I64>(r, cursor, out);
    case ImmKind::F32: return next_single_as<ImmKind::F32>(r, cursor, out);
    case ImmKind::F64: return next_single_as<ImmKind::F64>(r, cursor, out);
    case ImmKind::Memarg: return next_single_as<ImmKind::Memarg>(r, cursor, out);
    case ImmKind::BlockType: return next_single_as<ImmKind::BlockType>(r, cursor, out);
    default: ADD_FAILURE() << "no next_single case for this kind"; return false;
  }
}

TEST(InstructionReader, NextSingleReadsAsNextDoes) {
  // Immediates per kind: short forms, forms the inline code leaves out of
  // line (long LEBs, a type-index block type), and a cut-off one.
  const std::vector<std::vector<uint8_t>> immediates = {
      {}, {0x05}, {0xE5, 0x8E, 0x26}, {0x80, 0x80, 0x80, 0x80, 0x10}, {0x7F}, {0x40}, {0x7C}, {0x00},
      {0x02, 0x10}, {0x42, 0x00, 0x10}, {0x02, 0x80, 0x80, 0x80, 0x80, 0x01},
      {0x00, 0x00, 0x80, 0x3F}, {0, 0, 0, 0, 0, 0, 0xF0, 0x3F}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F},
      {0x80}, {0x00, 0x00}};
  int compared = 0;
  for (int byte = 0; byte < 256; ++byte) {
    const int16_t op = kOpcodeByteMap.single[byte];
    if (op < 0) continue;
    const ImmKind kind = kSingleByteImmediateKind[size_t(byte)];
    switch (kind) {
      case ImmKind::None: case ImmKind::LabelIdx: case ImmKind::FuncIdx: case ImmKind::LocalIdx:
      case ImmKind::GlobalIdx: case ImmKind::TableIdx: case ImmKind::TagIdx: case ImmKind::TypeIdx:
      case ImmKind::I32: case ImmKind::I64: case ImmKind::F32: case ImmKind::F64: case ImmKind::Memarg:
      case ImmKind::BlockType: break;
      default: continue;
    }
    for (const std::vector<uint8_t>& imm : immediates) {
      std::vector<uint8_t> code = {0x01, uint8_t(byte)};  // a nop first: offsets are not 0
      code.insert(code.end(), imm.begin(), imm.end());
      InstructionReader by_next(code), by_single(code);
      const uint8_t* a_at = by_next.cursor();
      const uint8_t* b_at = by_single.cursor();
      Instruction a, b;
      ASSERT_TRUE(by_next.next(a_at, a));
      ASSERT_TRUE(by_single.next(b_at, b));
      const bool a_ok = by_next.next(a_at, a);
      const bool b_ok = next_single_for(kind, by_single, b_at, b);
      SCOPED_TRACE("opcode byte " + std::to_string(byte) + ", " + std::to_string(imm.size()) + " immediate bytes");
      ASSERT_EQ(a_ok, b_ok);
      EXPECT_EQ(a.offset, b.offset);
      if (!a_ok) {
        EXPECT_STREQ(by_next.error(), by_single.error());
        EXPECT_EQ(by_next.error_offset(), by_single.error_offset());
        continue;
      }
      EXPECT_EQ(a.op, b.op);
      EXPECT_EQ(by_next.offset_of(a_at), by_single.offset_of(b_at));
      EXPECT_EQ(a.index, b.index);
      EXPECT_EQ(a.bits, b.bits);
      EXPECT_EQ(a.align, b.align);
      EXPECT_EQ(a.memory, b.memory);
      EXPECT_EQ(a.mem_offset, b.mem_offset);
      EXPECT_EQ(a.block.kind, b.block.kind);
      EXPECT_EQ(a.block.value, b.block.value);
      EXPECT_EQ(a.block.type_index, b.block.type_index);
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);  // (~140 opcodes × the immediates that read)
}

}  // namespace
}  // namespace weft
