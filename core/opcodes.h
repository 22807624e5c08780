// Opcode enumeration and static per-opcode information, expanded from opcodes.def.
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <string_view>

#include "core/types.h"

namespace weft {

// The immediates that follow an opcode in the binary format.
enum class ImmKind : uint8_t {
  None,
  BlockType,     // s33: 0x40 | valtype | type index
  LabelIdx,      // u32
  BrTable,       // vec(u32) u32
  FuncIdx,       // u32
  CallIndirect,  // typeidx u32, tableidx u32
  LocalIdx,      // u32
  GlobalIdx,     // u32
  TableIdx,      // u32
  Memarg,        // align u32, offset u32
  MemIdx,        // memidx u32 (memory.size/grow/fill; one 0x00 byte before multi-memory)
  I32,           // s32
  I64,           // s64
  F32,           // 4 bytes
  F64,           // 8 bytes
  SelectT,       // vec(valtype)
  HeapType,      // reftype byte (0x70 / 0x6F)
  MemoryInit,    // dataidx u32, memidx u32
  DataIdx,       // u32
  MemoryCopy,    // destination memidx u32, source memidx u32
  TableInit,     // elemidx u32, tableidx u32
  ElemIdx,       // u32
  TableCopy,     // dst tableidx u32, src tableidx u32
  V128,          // 16 bytes
  Lane,          // one lane byte
  MemargLane,    // memarg, lane byte
  Shuffle,       // 16 lane bytes
  TagIdx,        // u32 (fiber extension)
  TypeTag,       // fiber typeidx u32, tagidx u32 (fiber extension)
  TypeIdx,       // u32: a function type (call_ref, return_call_ref)
  TryTable,      // blocktype, vec(catch): try_table (exception handling)
};

enum class Opcode : uint16_t {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c) name,
#include "core/opcodes.def"
  Count_
};

constexpr uint32_t kOpcodeCount = uint32_t(Opcode::Count_);

// Operand/result type in the opcode table: a value type, "none" or "typed by hand".
enum class SigType : uint8_t { None, I32, I64, F32, F64, V128, Special };

struct OpcodeInfo {
  Opcode opcode;
  uint8_t prefix;       // 0, 0xFA, 0xFC or 0xFD
  uint32_t code;
  std::string_view text;
  ImmKind immediate;
  uint8_t mem_bytes;    // natural access size for memory instructions
  SigType result;
  SigType operands[3];  // bottom .. top; None-terminated
  uint8_t operand_count() const {
    return uint8_t((operands[0] != SigType::None) + (operands[1] != SigType::None) + (operands[2] != SigType::None));
  }
  bool is_special() const { return result == SigType::Special; }
};

namespace detail {
// Constant-initialised table (opcodes.cc); opcode_info is inline because every
// decoding pass calls it once per instruction.
extern const OpcodeInfo kOpcodeInfos[kOpcodeCount];
}  // namespace detail

inline const OpcodeInfo& opcode_info(Opcode op) { return detail::kOpcodeInfos[size_t(op)]; }

// The one binary index of the opcode table: byte -> Opcode for single-byte
// opcodes and, per prefix, sub-opcode -> Opcode (-1: none). Every sub-opcode
// weft knows is below 256, so larger ones are simply unknown. Built at compile
// time from opcodes.def; core/instruction_reader.h decodes with it.
// Prefixed sub-opcodes are u32s; the highest in use is relaxed SIMD's 0x113.
inline constexpr uint32_t kPrefixedCodes = 0x120;
struct OpcodeByteMap {
  int16_t single[256], fa[kPrefixedCodes], fc[kPrefixedCodes], fd[kPrefixedCodes];
  constexpr const int16_t* prefixed(uint8_t prefix) const {
    return prefix == 0xFA ? fa : prefix == 0xFC ? fc : prefix == 0xFD ? fd : nullptr;
  }
};
constexpr OpcodeByteMap make_opcode_byte_map() {
  OpcodeByteMap map{};
  for (int i = 0; i < 256; ++i) map.single[i] = -1;
  for (uint32_t i = 0; i < kPrefixedCodes; ++i) map.fa[i] = map.fc[i] = map.fd[i] = -1;
  int16_t index = 0;
#define WEFT_OPCODE(name, prefix, code, ...)                                          \
  (prefix == 0 ? map.single : prefix == 0xFA ? map.fa : prefix == 0xFC ? map.fc : map.fd)[code] = index++;
#include "core/opcodes.def"
  return map;
}
inline constexpr OpcodeByteMap kOpcodeByteMap = make_opcode_byte_map();
// The byte of a single-byte opcode (a compile-time error for the others):
// for switches and tests on the bytes themselves, without the map's load.
// consteval: a constant wherever it is written, in every build (a loop over
// the map if a compiler left a constexpr call to run).
consteval int single_byte_of(Opcode op) {
  for (int byte = 0; byte < 256; ++byte)
    if (kOpcodeByteMap.single[byte] == int16_t(op)) return byte;
  throw "not a single-byte opcode";
}

// Each opcode's immediate kind as one byte per opcode: the instruction
// reader's per-instruction lookup, kept apart from the wide OpcodeInfo rows.
inline constexpr ImmKind kImmediateKind[kOpcodeCount] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, ...) ImmKind::imm,
#include "core/opcodes.def"
};

// Binary lookups: single-byte opcodes and prefixed ones (prefix, u32 code).
inline std::optional<Opcode> opcode_from_byte(uint8_t byte) {
  int16_t idx = kOpcodeByteMap.single[byte];
  if (idx < 0) return std::nullopt;
  return Opcode(idx);
}
inline std::optional<Opcode> opcode_from_prefixed(uint8_t prefix, uint32_t code) {
  const int16_t* row = kOpcodeByteMap.prefixed(prefix);
  if (!row || code >= kPrefixedCodes || row[code] < 0) return std::nullopt;
  return Opcode(row[code]);
}
inline bool is_prefix_byte(uint8_t byte) { return byte == 0xFC || byte == 0xFD || byte == 0xFA; }  // 0xFA: fiber extension

// Text lookup: "i32.add" -> I32Add. Several opcodes share a text name only for
// `select` (Select / SelectT); this returns Select for it.
std::optional<Opcode> opcode_from_text(std::string_view text);

inline std::optional<ValType> sig_to_valtype(SigType t) {
  switch (t) {
    case SigType::I32: return ValType::i32();
    case SigType::I64: return ValType::i64();
    case SigType::F32: return ValType::f32();
    case SigType::F64: return ValType::f64();
    case SigType::V128: return ValType::v128();
    default: return std::nullopt;
  }
}

}  // namespace weft
