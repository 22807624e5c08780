// The one instruction reader of weft: decodes an opcode and all of its
// immediates from code bytes (function bodies, constant expressions), with the
// binary format's exact rules and the spec suite's error wording. The module
// decoder, the validator, the constant evaluator, the interpreter's translator
// and the JIT all read instructions through it, so an immediate's encoding is
// written down once, here, driven by the ImmKind column of core/opcodes.def.
//
// Every read is bounds-checked: the validator must be safe on any Module IR,
// and for the tiers, which read validated code, the checks are a predictable
// branch per immediate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "core/leb128.h"
#include "core/opcodes.h"
#include "core/types.h"

namespace weft {

// A block type immediate: empty (0x40), one value type, or a type index.
struct BlockType {
  enum Kind : uint8_t { Empty, Value, TypeIndex };
  Kind kind = Empty;
  ValType value{};          // Kind::Value
  uint32_t type_index = 0;  // Kind::TypeIndex
};

// One clause of a try_table (exception handling): which exceptions it
// catches and the label it branches to.
struct CatchClause {
  enum Kind : uint8_t { Catch = 0, CatchRef = 1, CatchAll = 2, CatchAllRef = 3 };
  Kind kind = Catch;
  uint32_t tag = 0;    // Catch, CatchRef
  uint32_t label = 0;  // a label depth, counted from outside the try_table
  bool has_tag() const { return kind == Catch || kind == CatchRef; }
  bool with_ref() const { return kind == CatchRef || kind == CatchAllRef; }
};

// One decoded instruction. Which fields hold what is fixed by the opcode's
// ImmKind (core/opcodes.h); fields the kind does not use are left as they were.
struct Instruction {
  Opcode op = Opcode::Unreachable;
  uint32_t offset = 0;  // of the opcode's first byte, from the start of the code
  // Indices, in encoding order:
  //   LabelIdx FuncIdx LocalIdx GlobalIdx TableIdx DataIdx ElemIdx TagIdx TypeIdx: index
  //   CallIndirect: index = type, index2 = table    TableInit: index = elem, index2 = table
  //   TableCopy: index = destination, index2 = source    TypeTag: index = fiber type, index2 = tag
  //   MemoryInit: index = data segment
  uint32_t index = 0;
  uint32_t index2 = 0;
  uint32_t align = 0;       // Memarg, MemargLane: alignment exponent
  // The memory of Memarg, MemargLane, MemIdx, MemoryInit; MemoryCopy's
  // destination (memory2 its source). 0 unless the code names another
  // (multi-memory: memarg flag bit 6, or a non-zero index byte).
  uint32_t memory = 0;
  uint32_t memory2 = 0;
  uint64_t mem_offset = 0;  // Memarg, MemargLane: the offset
  uint8_t lane = 0;         // Lane, MemargLane
  uint64_t bits = 0;        // I32, I64, F32, F64: the bit pattern, zero-extended
  const uint8_t* bytes16 = nullptr;  // V128, Shuffle: the 16 immediate bytes
  BlockType block;                   // BlockType, TryTable
  ValType heap_type{};               // HeapType: `ref.null ht` as the nullable reference type
  std::span<const uint32_t> br_targets;    // BrTable: the label depths, then the default
  std::span<const ValType> select_types;  // SelectT
  std::span<const CatchClause> catches;   // TryTable, in their order

  int32_t i32() const { return int32_t(uint32_t(bits)); }
  int64_t i64() const { return int64_t(bits); }
  uint32_t f32_bits() const { return uint32_t(bits); }
  uint64_t f64_bits() const { return bits; }
};

// Whether instructions of immediate kind `kind` (their opcode's) name a
// memory (Instruction::memory, and memory2 for MemoryCopy).
inline bool names_memory(ImmKind kind) {
  return kind == ImmKind::Memarg || kind == ImmKind::MemargLane || kind == ImmKind::MemIdx ||
         kind == ImmKind::MemoryInit || kind == ImmKind::MemoryCopy;
}

// Whether an instruction of immediate kind `kind` (its opcode's) names a
// memory other than memory 0 (multi-memory).
inline bool names_other_memory(ImmKind kind, const Instruction& in) {
  switch (kind) {
    case ImmKind::Memarg: case ImmKind::MemargLane: case ImmKind::MemIdx: case ImmKind::MemoryInit:
      return in.memory != 0;
    case ImmKind::MemoryCopy: return (in.memory | in.memory2) != 0;
    default: return false;
  }
}

// What the code may contain besides Wasm 2.0 without SIMD.
struct ReaderFeatures {
  bool simd = true;    // 0xFD opcodes and the value type v128
  bool fibers = true;  // 0xFA opcodes, fiber value and heap types (docs/fibers.md §4)
  // Memory indices (Wasm 3.0): a u32 after memarg flag bit 6 and in
  // memory.size/grow/fill/init/copy. Off: Wasm 2.0's one 0x00 byte there,
  // and flags are only the alignment.
  bool multi_memory = true;
  // Memarg offsets are u64 (Wasm 3.0's memory64). Off: u32, as in Wasm 2.0.
  bool memory64 = true;
  // Exception handling (Wasm 3.0): throw, throw_ref, try_table, exnref.
  bool exceptions = true;
};

class InstructionReader {
 public:
  // `eof_message` is what running out of bytes is called: the module decoder
  // says "unexpected end of section or function" inside a code entry.
  explicit InstructionReader(std::span<const uint8_t> code, ReaderFeatures features = {},
                             const char* eof_message = "unexpected end")
      : begin_(code.data()), p_(code.data()), end_(code.data() + code.size()), features_(features),
        eof_message_(eof_message) {}

  // Starts over on other code, keeping the buffers (a reader reused across
  // function bodies allocates only for the largest br_table it meets).
  void reset(std::span<const uint8_t> code, ReaderFeatures features, const char* eof_message = "unexpected end") {
    begin_ = p_ = code.data();
    end_ = code.data() + code.size();
    features_ = features;
    eof_message_ = eof_message;
    error_ = "";
    error_offset_ = 0;
  }

  bool at_end() const { return p_ >= end_; }
  size_t pos() const { return size_t(p_ - begin_); }
  void seek(size_t pos) { p_ = begin_ + pos; }

  // Reads the next instruction, opcode and immediates. On false, error() and
  // error_offset() say what was wrong and where; the position is then unspecified.
  [[gnu::always_inline]] bool next(Instruction& out) { return next(p_, out); }

  // The same with the position in the caller's hands: a loop that reads many
  // instructions keeps it in a local, which the compiler can keep in a
  // register, where the reader's own position goes through memory from one
  // instruction to the next. `cursor` points into the code and is advanced;
  // the reader's own position is left unspecified (the out-of-line paths use
  // it). cursor() and set_cursor() hand the position over between the two.
  [[gnu::always_inline]] inline bool next(const uint8_t*& cursor, Instruction& out);
  // next() for a single-byte opcode whose immediates the caller knows to be
  // of kind K (kSingleByteImmediateKind of its byte), at a cursor before the
  // end: the same result, without next()'s dispatch on the kind (a loop that
  // dispatches on the opcode anyway takes one indirect jump instead of two).
  template <ImmKind K>
  [[gnu::always_inline]] bool next_single(const uint8_t*& cursor, Instruction& out) {
    out.offset = uint32_t(cursor - begin_);
    out.op = Opcode(kOpcodeByteMap.single[*cursor]);
    ++cursor;
    return single_immediates<K>(cursor, out);
  }
  const uint8_t* cursor() const { return p_; }
  void set_cursor(const uint8_t* cursor) { p_ = cursor; }
  bool at_end(const uint8_t* cursor) const { return cursor >= end_; }
  size_t offset_of(const uint8_t* cursor) const { return size_t(cursor - begin_); }

  // The next byte, -1 at the end: a look that cannot fail, for callers that
  // only care about single-byte opcodes and compare or switch on their bytes
  // (single_byte_of); any other byte is no such opcode.
  int peek_byte() const { return p_ < end_ ? *p_ : -1; }
  // The opcode of the next instruction, without moving (nullopt at the end or
  // on bytes that are not one): for fusing an instruction with the next.
  std::optional<Opcode> peek_opcode() {
    const uint8_t* const saved = p_;
    Opcode op;
    const bool ok = p_ < end_ && (kOpcodeByteMap.single[*p_] >= 0 ? (op = Opcode(kOpcodeByteMap.single[*p_]), true)
                                                                    : prefixed_opcode(p_++, op));
    p_ = saved;
    if (!ok) error_ = "";
    return ok ? std::optional<Opcode>(op) : std::nullopt;
  }

  // Types outside instructions use the same encodings (locals, globals, tables, …).
  bool read_value_type(ValType& out);
  bool read_ref_type(ValType& out);

  // Records an error of the caller's own rules (nesting, validation) at
  // `offset`, so one error channel serves both; returns false.
  bool fail(size_t offset, const char* message) { return fail_at(begin_ + offset, message); }

  const char* error() const { return error_; }
  size_t error_offset() const { return error_offset_; }

 private:
  template <bool kSigned>
  [[gnu::always_inline]] inline bool leb32(const uint8_t*& p, uint32_t& out);
  template <bool kSigned>
  [[gnu::noinline]] bool leb32_long(const uint8_t*& p, uint32_t& out);
  bool u32(uint32_t& out) { return leb32<false>(p_, out); }
  bool s32(int32_t& out) {
    uint32_t v;
    if (!leb32<true>(p_, v)) return false;
    out = int32_t(v);
    return true;
  }
  inline bool bytes(size_t n, const uint8_t*& out);
  bool leb_slow(int kind, int64_t& out);  // the exact core/leb128 rules, for multi-byte LEBs
  inline bool leb64_fast(int64_t& out);
  inline bool leb64_fast(const uint8_t*& p, int64_t& out);
  bool s64(int64_t& out) { return leb64_fast(out) || leb_slow(kS64, out); }
  bool s33(int64_t& out);
  // Flags below 64 are the alignment of memory 0; bit 6 says a memory index
  // follows (multi-memory); flags from 128 on are malformed.
  bool memarg(const uint8_t*& p, Instruction& out) {
    uint32_t flags, offset;
    const uint8_t* const flags_at = p;
    if (!leb32<false>(p, flags)) return false;
    if (flags < 0x40) [[likely]] {
      out.align = flags;  // (adjacent: one store for both)
      out.memory = 0;
    } else if (!memarg_memory(flags_at, flags, p, out)) {
      return false;
    }
    // The offset is a u64 (memory64); the validator holds an i32 memory's to 32 bits.
    if (leb32<false>(p, offset)) [[likely]] {
      out.mem_offset = offset;
      return true;
    }
    return memarg_offset64(p, out);
  }
  bool memarg_offset64(const uint8_t*& p, Instruction& out);
  bool memarg_memory(const uint8_t* flags_at, uint32_t flags, const uint8_t*& p, Instruction& out);
  bool memory_index(uint32_t& out);
  bool memarg(Instruction& out) { return memarg(p_, out); }
  bool vec_count(uint32_t& out);
  bool block_type(BlockType& out);
  bool heap_type(ValType& out, const char* malformed);
  bool ref_null_type(ValType& out);
  bool br_table(Instruction& out);
  bool try_table(Instruction& out);
  bool select_types(Instruction& out);
  bool prefixed_opcode(const uint8_t* at, Opcode& out);
  bool prefixed_instruction(Instruction& out);         // 0xFA / 0xFC / 0xFD opcodes, with their immediates
  bool immediates(ImmKind kind, Instruction& out);     // every kind, any length

  // The immediates of kind K after a single-byte opcode (cursor just past it).
  template <ImmKind K>
  [[gnu::always_inline]] inline bool single_immediates(const uint8_t*& cursor, Instruction& out);
  bool fail_at(const uint8_t* at, const char* message);
  bool fail_eof() { return fail_at(end_, eof_message_); }

  enum : int { kU32, kS32, kS33, kS64, kU64 };

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  ReaderFeatures features_;
  const char* eof_message_;
  const char* error_ = "";
  size_t error_offset_ = 0;
  std::vector<uint32_t> br_targets_;      // reused by every br_table
  std::vector<ValType> select_types_;     // reused by every `select t*`
  std::vector<CatchClause> catches_;      // reused by every try_table
};

// ---------------------------------------------------------------------------
// The hot path, inline: most opcodes are one byte and most immediates one LEB
// byte; everything longer or wrong goes to the out-of-line code.

// LEB128 fast path for 32-bit values: one or two bytes inline (most
// indices and constants; a call of one of thousands of functions takes two);
// longer ones out of line (leb32_long), with anything unusual (the data
// ends, too long, unused bits set) going on to leb_slow, which applies
// core/leb128's exact rules and words the error. Always inline: a caller
// with many reads (the JIT's loop) would otherwise get a call per read.
template <bool kSigned>
[[gnu::always_inline]] inline bool InstructionReader::leb32(const uint8_t*& cursor, uint32_t& out) {
  const uint8_t* const p = cursor;
  if (p < end_ && *p < 0x80) [[likely]] {
    out = kSigned ? uint32_t(int32_t(uint32_t(*p) << 25) >> 25) : *p;  // sign-extend bit 6
    cursor = p + 1;
    return true;
  }
  if (end_ - p >= 2 && p[1] < 0x80) {  // (p[0] has its continuation bit: p < end_ failed above otherwise)
    const uint32_t value = uint32_t(p[0] & 0x7F) | uint32_t(p[1]) << 7;
    out = kSigned ? uint32_t(int32_t(value << 18) >> 18) : value;  // sign-extend bit 13
    cursor = p + 2;
    return true;
  }
  return leb32_long<kSigned>(cursor, out);
}

template <bool kSigned>
bool InstructionReader::leb32_long(const uint8_t*& cursor, uint32_t& out) {
  const uint8_t* const p = cursor;
  const size_t avail = size_t(end_ - p);
  uint32_t value = 0;
  for (size_t i = 0; i < 5 && i < avail; ++i) {
    const uint8_t b = p[i];
    value |= uint32_t(b & 0x7F) << (7 * i);
    if (b & 0x80) continue;
    if (i == 4) {
      // The unused bits of the last byte: zero, or (signed) copies of the sign bit.
      const uint8_t unused = b & (kSigned ? 0x78 : 0x70);
      if (unused != 0 && (!kSigned || unused != 0x78)) break;
    } else if (kSigned && (b & 0x40)) {
      value |= ~uint32_t(0) << (7 * (i + 1));  // sign-extend
    }
    out = value;
    cursor = p + i + 1;
    return true;
  }
  p_ = p;
  int64_t v;
  if (!leb_slow(kSigned ? kS32 : kU32, v)) return false;
  cursor = p_;
  out = uint32_t(v);
  return true;
}

// Signed 64-bit LEB128 of up to nine bytes (every value below 2^62 in
// magnitude); false, with the position unchanged, for anything else, which
// s64 (leb_slow) then reads with the exact rules and errors.
inline bool InstructionReader::leb64_fast(int64_t& out) { return leb64_fast(p_, out); }
inline bool InstructionReader::leb64_fast(const uint8_t*& position, int64_t& out) {
  const uint8_t* const p = position;
  const size_t avail = size_t(end_ - p);
  uint64_t value = 0;
  for (size_t i = 0; i < 9 && i < avail; ++i) {
    const uint8_t b = p[i];
    value |= uint64_t(b & 0x7F) << (7 * i);
    if (b & 0x80) continue;
    const unsigned bits = unsigned(7 * (i + 1));  // at most 63
    out = int64_t(value << (64 - bits)) >> (64 - bits);  // sign-extend bit bits-1
    position = p + i + 1;
    return true;
  }
  return false;
}

inline bool InstructionReader::bytes(size_t n, const uint8_t*& out) {
  if (size_t(end_ - p_) < n) return fail_eof();
  out = p_;
  p_ += n;
  return true;
}

// The immediate kind of each single-byte opcode, indexed by the byte: looked
// up beside the opcode rather than after it (one load less on the path from
// one instruction to the next). Prefix bytes have None, never used.
inline constexpr auto kSingleByteImmediateKind = [] {
  std::array<ImmKind, 256> kinds{};
  for (size_t byte = 0; byte < 256; ++byte) {
    const int16_t op = kOpcodeByteMap.single[byte];
    kinds[byte] = op < 0 ? ImmKind::None : kImmediateKind[size_t(op)];
  }
  return kinds;
}();

template <ImmKind K>
inline bool InstructionReader::single_immediates(const uint8_t*& cursor, Instruction& out) {
  const uint8_t* const p = cursor;
  // The common immediates inline; everything else out of line.
  if constexpr (K == ImmKind::None) {
    return true;
  } else if constexpr (K == ImmKind::LabelIdx || K == ImmKind::FuncIdx || K == ImmKind::LocalIdx ||
                       K == ImmKind::GlobalIdx || K == ImmKind::TableIdx || K == ImmKind::DataIdx ||
                       K == ImmKind::ElemIdx || K == ImmKind::TagIdx || K == ImmKind::TypeIdx) {
    return leb32<false>(cursor, out.index);
  } else if constexpr (K == ImmKind::I32) {
    uint32_t v;
    if (!leb32<true>(cursor, v)) return false;
    out.bits = v;  // the i32's bit pattern, zero-extended
    return true;
  } else if constexpr (K == ImmKind::Memarg) {
    return memarg(cursor, out);
  } else if constexpr (K == ImmKind::I64) {
    int64_t v;
    if (leb64_fast(cursor, v)) {
      out.bits = uint64_t(v);
      return true;
    }
    // longer or broken: the exact rules, out of line (below)
  } else if constexpr (K == ImmKind::F32) {
    if (end_ - p >= 4) {  // (else the out-of-line path reports it)
      uint32_t v;
      std::memcpy(&v, p, 4);
      out.bits = v;  // the bit pattern, zero-extended
      cursor = p + 4;
      return true;
    }
  } else if constexpr (K == ImmKind::F64) {
    if (end_ - p >= 8) {
      std::memcpy(&out.bits, p, 8);
      cursor = p + 8;
      return true;
    }
  } else if constexpr (K == ImmKind::BlockType) {
    if (p < end_ && *p == 0x40) {  // the common empty block type
      out.block.kind = BlockType::Empty;
      cursor = p + 1;
      return true;
    }
    if (p < end_ && *p >= 0x7C && *p <= 0x7F) {  // i32 (0x7F) i64 f32 f64 (0x7C): ValType kinds 0..3
      out.block.kind = BlockType::Value;
      out.block.value = ValType{ValType::Kind(0x7F - *p), true, 0};
      cursor = p + 1;
      return true;
    }
  }
  p_ = p;
  const bool ok = immediates(K, out);
  cursor = p_;
  return ok;
}

inline bool InstructionReader::next(const uint8_t*& cursor, Instruction& out) {
  const uint8_t* const at = cursor;
  out.offset = uint32_t(at - begin_);  // (also at the end: where the instruction was missing)
  if (at >= end_) [[unlikely]] return fail_eof();
  const uint8_t byte = *at;
  const int16_t single = kOpcodeByteMap.single[byte];
  const ImmKind kind = kSingleByteImmediateKind[byte];
  if (single < 0) [[unlikely]] {
    p_ = at;
    const bool ok = prefixed_instruction(out);
    cursor = p_;
    return ok;
  }
  out.op = Opcode(single);
  cursor = at + 1;
  switch (kind) {
    case ImmKind::None: return single_immediates<ImmKind::None>(cursor, out);
    case ImmKind::LabelIdx: case ImmKind::FuncIdx: case ImmKind::LocalIdx: case ImmKind::GlobalIdx:
    case ImmKind::TableIdx: case ImmKind::DataIdx: case ImmKind::ElemIdx: case ImmKind::TagIdx: case ImmKind::TypeIdx:
      return single_immediates<ImmKind::LabelIdx>(cursor, out);  // (the same u32 for every index kind)
    case ImmKind::I32: return single_immediates<ImmKind::I32>(cursor, out);
    case ImmKind::Memarg: return single_immediates<ImmKind::Memarg>(cursor, out);
    case ImmKind::I64: return single_immediates<ImmKind::I64>(cursor, out);
    case ImmKind::F32: return single_immediates<ImmKind::F32>(cursor, out);
    case ImmKind::F64: return single_immediates<ImmKind::F64>(cursor, out);
    case ImmKind::BlockType: return single_immediates<ImmKind::BlockType>(cursor, out);
    default: {
      p_ = cursor;
      const bool ok = immediates(kind, out);
      cursor = p_;
      return ok;
    }
  }
}

}  // namespace weft
