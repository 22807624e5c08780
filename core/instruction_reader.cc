// The instruction reader's out-of-line part: multi-byte LEBs, types, vectors,
// prefixed opcodes, the rarer immediate kinds and the error wording (the spec
// suite's assert_malformed texts).
#include "core/instruction_reader.h"

namespace weft {
namespace {

// Fiber extension encodings (docs/fibers.md §4): the abstract heap types as the
// values of their one-byte s33 encodings, and the reference type prefixes.
constexpr int64_t kHeapFunc = 0x70 - 0x80;
constexpr int64_t kHeapExtern = 0x6F - 0x80;
constexpr int64_t kHeapFiber = 0x5B - 0x80;
constexpr int64_t kHeapExn = 0x69 - 0x80;  // exception handling's exn
constexpr uint8_t kExnRefByte = 0x69;      // the one-byte value type exnref
constexpr uint8_t kFiberRefByte = 0x5B;  // also the one-byte value type fiberref
constexpr uint8_t kRefNullByte = 0x63;   // (ref null ht)
constexpr uint8_t kRefByte = 0x64;       // (ref ht)

// The spec reads type codes as one-byte signed LEBs: a continuation bit is a
// length error before it is a type error.
const char* bad_type_message(uint8_t b, const char* otherwise) {
  return (b & 0x80) ? "integer representation too long" : otherwise;
}

bool one_byte_value_type(uint8_t b, bool simd, ValType& out) {
  switch (b) {
    case 0x7F: out = ValType::i32(); return true;
    case 0x7E: out = ValType::i64(); return true;
    case 0x7D: out = ValType::f32(); return true;
    case 0x7C: out = ValType::f64(); return true;
    case 0x7B: out = ValType::v128(); return simd;
    case 0x70: out = ValType::funcref(); return true;
    case 0x6F: out = ValType::externref(); return true;
    default: return false;
  }
}

// next() switches over ImmKind with a default, so -Wswitch cannot see a new
// kind there; this switch (no default) makes adding one a compile error until
// the reader decodes it.
constexpr bool reader_handles(ImmKind kind) {
  switch (kind) {
    case ImmKind::None: case ImmKind::BlockType: case ImmKind::LabelIdx: case ImmKind::BrTable:
    case ImmKind::FuncIdx: case ImmKind::CallIndirect: case ImmKind::LocalIdx: case ImmKind::GlobalIdx:
    case ImmKind::TableIdx: case ImmKind::Memarg: case ImmKind::MemIdx: case ImmKind::I32: case ImmKind::I64:
    case ImmKind::F32: case ImmKind::F64: case ImmKind::SelectT: case ImmKind::HeapType: case ImmKind::MemoryInit:
    case ImmKind::DataIdx: case ImmKind::MemoryCopy: case ImmKind::TableInit: case ImmKind::ElemIdx:
    case ImmKind::TableCopy: case ImmKind::V128: case ImmKind::Lane: case ImmKind::MemargLane: case ImmKind::Shuffle:
    case ImmKind::TagIdx: case ImmKind::TypeTag: case ImmKind::TypeIdx: case ImmKind::TryTable:
      return true;
  }
  return false;
}
constexpr bool reader_handles_all() {
  constexpr ImmKind kKinds[] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, ...) ImmKind::imm,
#include "core/opcodes.def"
  };
  for (ImmKind kind : kKinds) {
    if (!reader_handles(kind)) return false;
  }
  return true;
}

}  // namespace

bool InstructionReader::fail_at(const uint8_t* at, const char* message) {
  error_ = message;
  error_offset_ = size_t(at - begin_);
  return false;
}

bool InstructionReader::leb_slow(int kind, int64_t& out) {
  const uint8_t* const at = p_;
  const size_t size = size_t(end_ - p_);
  size_t n = 0;
  LebError e = LebError::None;
  switch (kind) {
    case kU32: {
      uint32_t v = 0;
      e = read_leb_u32(p_, size, n, v);
      out = v;
      break;
    }
    case kS32: {
      int32_t v = 0;
      e = read_leb_s32(p_, size, n, v);
      out = v;
      break;
    }
    case kS33: e = read_leb_s33(p_, size, n, out); break;
    case kU64: {
      uint64_t v = 0;
      e = read_leb_u64(p_, size, n, v);
      out = int64_t(v);
      break;
    }
    default: e = read_leb_s64(p_, size, n, out); break;
  }
  if (e == LebError::UnexpectedEnd) return fail_eof();  // reported at the end of the data
  if (e != LebError::None) return fail_at(at, leb_error_message(e));
  p_ += n;
  return true;
}

bool InstructionReader::s33(int64_t& out) {
  if (p_ < end_ && *p_ < 0x80) {
    out = int64_t(*p_++);
    if (out & 0x40) out -= 0x80;  // sign-extend the 7-bit payload
    return true;
  }
  return leb_slow(kS33, out);
}

// A vector count that the remaining bytes could hold (one byte per item at
// least), so a huge count is an early "unexpected end", not a huge allocation.
bool InstructionReader::vec_count(uint32_t& out) {
  const uint8_t* const at = p_;
  if (!u32(out)) return false;
  if (out > size_t(end_ - p_)) return fail_at(at, eof_message_);
  return true;
}

bool InstructionReader::prefixed_opcode(const uint8_t* at, Opcode& out) {
  const uint8_t prefix = *at;
  const int16_t* row = kOpcodeByteMap.prefixed(prefix);
  if (!row || (prefix == 0xFD && !features_.simd) || (prefix == 0xFA && !features_.fibers))
    return fail_at(at, "illegal opcode");
  uint32_t code;
  if (!u32(code)) return false;
  if (code >= kPrefixedCodes || row[code] < 0) return fail_at(at, "illegal opcode");
  out = Opcode(row[code]);
  return true;
}

// A heap type: an s33 that is a non-negative type index (a typed reference)
// or an abstract code; `out` is the nullable reference type of it.
bool InstructionReader::heap_type(ValType& out, const char* malformed) {
  const uint8_t* const at = p_;
  int64_t v = 0;
  if (!s33(v)) return false;
  if (v >= 0) {
    out = ValType{ValType::TypedRef, true, uint32_t(v)};  // an s33 is below 2^32
    return true;
  }
  switch (v) {
    case kHeapFunc: out = ValType::funcref(); return true;
    case kHeapExtern: out = ValType::externref(); return true;
    case kHeapFiber: out = ValType{ValType::FiberRef, true, 0}; return true;
    case kHeapExn:
      if (!features_.exceptions) return fail_at(at, malformed);
      out = ValType::exnref();
      return true;
    default: return fail_at(at, malformed);
  }
}

bool InstructionReader::read_value_type(ValType& out) {
  if (p_ == end_) return fail_eof();
  const uint8_t b = *p_;
  if (one_byte_value_type(b, features_.simd, out)) {
    ++p_;
    return true;
  }
  if (b == kExnRefByte && features_.exceptions) {
    ++p_;
    out = ValType::exnref();
    return true;
  }
  if (features_.fibers) {
    if (b == kFiberRefByte) {
      ++p_;
      out = ValType{ValType::FiberRef, true, 0};
      return true;
    }
    if (b == kRefNullByte || b == kRefByte) {
      ++p_;
      if (!heap_type(out, "malformed heap type")) return false;
      out.nullable = b == kRefNullByte;
      return true;
    }
  }
  return fail_at(p_, bad_type_message(b, "malformed value type"));
}

bool InstructionReader::read_ref_type(ValType& out) {
  if (p_ == end_) return fail_eof();
  const uint8_t b = *p_;
  const bool fiber_form = b == kFiberRefByte || b == kRefNullByte || b == kRefByte;
  if (b == 0x70 || b == 0x6F || (features_.fibers && fiber_form) || (features_.exceptions && b == kExnRefByte))
    return read_value_type(out);
  return fail_at(p_, bad_type_message(b, "malformed reference type"));
}

// 0x40 (empty), a value type, or a non-negative s33 type index. Every value
// type starts with a byte whose s33 reading is negative (0x40..0x7F), so a
// type index never starts like one.
bool InstructionReader::block_type(BlockType& out) {
  if (p_ == end_) return fail_eof();
  if (*p_ == 0x40) {
    ++p_;
    out.kind = BlockType::Empty;
    return true;
  }
  if (*p_ >= 0x7C && *p_ <= 0x7F) {  // i32 (0x7F) i64 f32 f64 (0x7C): ValType kinds 0..3
    out.kind = BlockType::Value;
    out.value = ValType{ValType::Kind(0x7F - *p_++), true, 0};
    return true;
  }
  if ((*p_ & 0xC0) == 0x40) {
    out.kind = BlockType::Value;
    return read_value_type(out.value);
  }
  const uint8_t* const at = p_;
  int64_t index = 0;
  if (!s33(index)) return false;
  if (index < 0) return fail_at(at, "malformed block type");
  out.kind = BlockType::TypeIndex;
  out.type_index = uint32_t(index);
  return true;
}

// `ref.null ht`: Wasm 2.0 has the bytes 0x70 / 0x6F; the fiber extension any
// heap type (`ref.null 0x5B`, `ref.null typeidx`).
bool InstructionReader::ref_null_type(ValType& out) {
  if (p_ == end_) return fail_eof();
  const uint8_t b = *p_;
  if (b == 0x70 || b == 0x6F) {
    ++p_;
    out = b == 0x70 ? ValType::funcref() : ValType::externref();
    return true;
  }
  if (features_.fibers) return heap_type(out, "malformed reference type");
  return fail_at(p_, bad_type_message(b, "malformed reference type"));
}

bool InstructionReader::br_table(Instruction& out) {
  uint32_t count;
  if (!vec_count(count)) return false;
  br_targets_.resize(size_t(count) + 1);  // the targets, then the default
  for (uint32_t& target : br_targets_) {
    if (!u32(target)) return false;
  }
  out.br_targets = br_targets_;
  return true;
}

// try_table's immediates: a block type, then vec(catch), each clause a kind
// byte 0x00..0x03 with a tag index (catch, catch_ref) and a label.
bool InstructionReader::try_table(Instruction& out) {
  if (!block_type(out.block)) return false;
  uint32_t count;
  if (!vec_count(count)) return false;
  catches_.resize(count);
  for (CatchClause& c : catches_) {
    if (p_ == end_) return fail_eof();
    const uint8_t* const at = p_;
    const uint8_t kind = *p_++;
    if (kind > CatchClause::CatchAllRef) return fail_at(at, "malformed catch clause");
    c.kind = CatchClause::Kind(kind);
    c.tag = 0;
    if (c.has_tag() && !u32(c.tag)) return false;
    if (!u32(c.label)) return false;
  }
  out.catches = catches_;
  return true;
}

bool InstructionReader::select_types(Instruction& out) {
  uint32_t count;
  if (!vec_count(count)) return false;
  select_types_.resize(count);
  for (ValType& t : select_types_) {
    if (!read_value_type(t)) return false;
  }
  out.select_types = select_types_;
  return true;
}

bool InstructionReader::memarg_memory(const uint8_t* flags_at, uint32_t flags, const uint8_t*& p, Instruction& out) {
  out.align = flags;
  out.memory = 0;
  if (!features_.multi_memory) return true;  // an alignment the validator rejects
  if (flags >= 0x80) return fail_at(flags_at, "malformed memop flags");
  out.align = flags - 0x40;
  return leb32<false>(p, out.memory);
}

bool InstructionReader::memory_index(uint32_t& out) {
  if (features_.multi_memory) return u32(out);
  // Wasm 2.0 reserves one 0x00 byte, not a LEB that happens to be zero.
  out = 0;
  if (p_ == end_) return fail_eof();
  if (*p_ != 0) return fail_at(p_, "zero byte expected");
  ++p_;
  return true;
}

// An offset beyond 32 bits (or a malformed one): the exact u64 rules.
bool InstructionReader::memarg_offset64(const uint8_t*& p, Instruction& out) {
  p_ = p;
  error_ = "";
  int64_t v;
  if (!leb_slow(features_.memory64 ? kU64 : kU32, v)) return false;
  p = p_;
  out.mem_offset = uint64_t(v);
  return true;
}

bool InstructionReader::prefixed_instruction(Instruction& out) {
  const uint8_t* const at = p_++;
  return prefixed_opcode(at, out.op) && immediates(kImmediateKind[size_t(out.op)], out);
}

bool InstructionReader::immediates(ImmKind kind, Instruction& out) {
  static_assert(reader_handles_all());
  switch (kind) {
    case ImmKind::None: return true;
    case ImmKind::LabelIdx: case ImmKind::FuncIdx: case ImmKind::LocalIdx: case ImmKind::GlobalIdx:
    case ImmKind::TableIdx: case ImmKind::DataIdx: case ImmKind::ElemIdx: case ImmKind::TagIdx: case ImmKind::TypeIdx:
      return u32(out.index);
    case ImmKind::CallIndirect: case ImmKind::TableInit: case ImmKind::TableCopy: case ImmKind::TypeTag:
      return u32(out.index) && u32(out.index2);
    case ImmKind::Memarg: return memarg(out);
    case ImmKind::I32: {
      int32_t v;
      if (!s32(v)) return false;
      out.bits = uint32_t(v);
      return true;
    }
    case ImmKind::BlockType: return block_type(out.block);
    case ImmKind::BrTable: return br_table(out);
    case ImmKind::TryTable: return try_table(out);
    case ImmKind::MemIdx: return memory_index(out.memory);
    case ImmKind::I64: {
      int64_t v;
      if (!s64(v)) return false;
      out.bits = uint64_t(v);
      return true;
    }
    case ImmKind::F32: {
      const uint8_t* b;
      if (!bytes(4, b)) return false;
      uint32_t v;
      std::memcpy(&v, b, 4);
      out.bits = v;
      return true;
    }
    case ImmKind::F64: {
      const uint8_t* b;
      if (!bytes(8, b)) return false;
      std::memcpy(&out.bits, b, 8);
      return true;
    }
    case ImmKind::SelectT: return select_types(out);
    case ImmKind::HeapType: return ref_null_type(out.heap_type);
    case ImmKind::MemoryInit: return u32(out.index) && memory_index(out.memory);
    case ImmKind::MemoryCopy: return memory_index(out.memory) && memory_index(out.memory2);
    case ImmKind::V128:
    case ImmKind::Shuffle: return bytes(16, out.bytes16);
    case ImmKind::Lane: {
      const uint8_t* b;
      if (!bytes(1, b)) return false;
      out.lane = *b;
      return true;
    }
    case ImmKind::MemargLane: {
      const uint8_t* b;
      if (!memarg(out) || !bytes(1, b)) return false;
      out.lane = *b;
      return true;
    }
  }
  return fail_at(p_, "illegal opcode");  // not an ImmKind: unreachable
}

}  // namespace weft
