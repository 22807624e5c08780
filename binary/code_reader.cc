// The instruction walker: one table lookup per opcode, then a switch over the
// immediate kind from core/opcodes.def.
#include "binary/code_reader.h"

#include <array>

#include "core/opcodes.h"

namespace weft::binary::detail {
namespace {

// ---------------------------------------------------------------------------
// Byte → opcode maps, built at compile time from the one opcode table.

struct Row {
  uint8_t prefix;
  uint32_t code;
  ImmKind imm;
};

constexpr Row kRows[] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c) {prefix, code, ImmKind::imm},
#include "core/opcodes.def"
};
static_assert(std::size(kRows) == kOpcodeCount);

struct OpcodeMaps {
  // Opcode index per code, -1 = illegal. Prefixed sub-opcodes above 255 are
  // all illegal, so 256 entries per prefix suffice.
  std::array<int16_t, 256> single{}, fc{}, fd{}, fa{};
};

constexpr OpcodeMaps make_maps() {
  OpcodeMaps m;
  m.single.fill(-1);
  m.fc.fill(-1);
  m.fd.fill(-1);
  m.fa.fill(-1);
  for (size_t i = 0; i < std::size(kRows); ++i) {
    const Row& row = kRows[i];
    auto& map = row.prefix == 0x00 ? m.single : row.prefix == 0xFC ? m.fc : row.prefix == 0xFD ? m.fd : m.fa;
    map[row.code] = int16_t(i);
  }
  return m;
}

constexpr OpcodeMaps kMaps = make_maps();

constexpr int16_t kEnd = int16_t(Opcode::End);
constexpr int16_t kElse = int16_t(Opcode::Else);
constexpr int16_t kIf = int16_t(Opcode::If);

enum Frame : uint8_t { kPlainFrame, kIfFrame, kElseFrame };

bool zero_byte(Reader& r) {
  const uint64_t at = r.offset();
  uint8_t b = 0;
  if (!r.u8(b)) return false;
  // A reserved memory index is one 0x00 byte, not a LEB that happens to be zero.
  if (b != 0) return r.fail_at(at, "zero byte expected");
  return true;
}

bool memarg(Reader& r) {
  uint32_t align = 0, offset = 0;
  return r.u32(align) && r.u32(offset);
}

// 0x40 (empty), a one-byte value type, or a non-negative s33 type index.
bool block_type(Reader& r, bool enable_simd) {
  uint8_t b = 0;
  if (!r.peek(b)) return false;
  if (b == 0x40) return r.skip(1);
  ValType t;
  if ((b & 0xC0) == 0x40) return read_value_type(r, enable_simd, t);
  const uint64_t at = r.offset();
  int64_t index = 0;
  if (!r.s33(index)) return false;
  if (index < 0) return r.fail_at(at, "malformed block type");
  return true;
}

}  // namespace

bool read_value_type(Reader& r, bool enable_simd, ValType& out) {
  const uint64_t at = r.offset();
  uint8_t b = 0;
  if (!r.u8(b)) return false;
  switch (b) {
    case 0x7F: out = ValType::i32(); return true;
    case 0x7E: out = ValType::i64(); return true;
    case 0x7D: out = ValType::f32(); return true;
    case 0x7C: out = ValType::f64(); return true;
    case 0x7B:
      if (!enable_simd) break;
      out = ValType::v128();
      return true;
    case 0x70: out = ValType::funcref(); return true;
    case 0x6F: out = ValType::externref(); return true;
    default: break;
  }
  return r.fail_at(at, "malformed value type");
}

bool read_ref_type(Reader& r, ValType& out) {
  const uint64_t at = r.offset();
  uint8_t b = 0;
  if (!r.u8(b)) return false;
  if (b == 0x70) out = ValType::funcref();
  else if (b == 0x6F) out = ValType::externref();
  else return r.fail_at(at, "malformed reference type");
  return true;
}

bool CodeWalker::read_expression(Reader& r, const ExprContext& ctx) {
  control_.clear();
  for (;;) {
    const uint64_t at = r.offset();
    if (r.at_end()) return r.fail(ctx.missing_end_message);
    uint8_t b = 0;
    (void)r.u8(b);
    int16_t index;
    if (b == 0xFC || b == 0xFD || b == 0xFA) {
      uint32_t code = 0;
      if (!r.u32(code)) return false;
      if (code > 255 || (b == 0xFD && !ctx.enable_simd)) return r.fail_at(at, "illegal opcode");
      index = (b == 0xFC ? kMaps.fc : b == 0xFD ? kMaps.fd : kMaps.fa)[code];
    } else {
      index = kMaps.single[b];
    }
    if (index < 0) return r.fail_at(at, "illegal opcode");

    uint32_t u = 0, u2 = 0;
    switch (kRows[index].imm) {
      case ImmKind::None:
        if (index == kEnd) {
          if (control_.empty()) return true;
          control_.pop_back();
        } else if (index == kElse) {
          // The spec's reader ends the instruction sequence at `else` and then
          // wants an `end` unless the enclosing construct is an `if`.
          if (control_.empty() || control_.back() != kIfFrame) return r.fail_at(at, "END opcode expected");
          control_.back() = kElseFrame;
        }
        break;
      case ImmKind::BlockType:
        if (!block_type(r, ctx.enable_simd)) return false;
        control_.push_back(index == kIf ? kIfFrame : kPlainFrame);
        break;
      case ImmKind::LabelIdx:
      case ImmKind::FuncIdx:
      case ImmKind::LocalIdx:
      case ImmKind::GlobalIdx:
      case ImmKind::TableIdx:
      case ImmKind::ElemIdx:
        if (!r.u32(u)) return false;
        break;
      case ImmKind::DataIdx:
        if (ctx.check_data_count && !ctx.have_data_count) return r.fail_at(at, "data count section required");
        if (!r.u32(u)) return false;
        break;
      case ImmKind::BrTable: {
        uint32_t n = 0;
        if (!r.count(n)) return false;
        for (uint32_t i = 0; i <= n; ++i) {  // n targets + the default
          if (!r.u32(u)) return false;
        }
        break;
      }
      case ImmKind::CallIndirect:  // type index, then a table index (a LEB since Wasm 2.0)
      case ImmKind::TableInit:
      case ImmKind::TableCopy:
        if (!r.u32(u) || !r.u32(u2)) return false;
        break;
      case ImmKind::Memarg:
        if (!memarg(r)) return false;
        break;
      case ImmKind::MemIdx:
        if (!zero_byte(r)) return false;
        break;
      case ImmKind::I32: {
        int32_t v = 0;
        if (!r.s32(v)) return false;
        break;
      }
      case ImmKind::I64: {
        int64_t v = 0;
        if (!r.s64(v)) return false;
        break;
      }
      case ImmKind::F32:
        if (!r.skip(4)) return false;
        break;
      case ImmKind::F64:
        if (!r.skip(8)) return false;
        break;
      case ImmKind::SelectT: {
        uint32_t n = 0;
        if (!r.count(n)) return false;
        ValType t;
        for (uint32_t i = 0; i < n; ++i) {
          if (!read_value_type(r, ctx.enable_simd, t)) return false;
        }
        break;
      }
      case ImmKind::HeapType: {
        ValType t;
        if (!read_ref_type(r, t)) return false;
        break;
      }
      case ImmKind::MemoryInit:
        if (ctx.check_data_count && !ctx.have_data_count) return r.fail_at(at, "data count section required");
        if (!r.u32(u) || !zero_byte(r)) return false;
        break;
      case ImmKind::MemoryCopy:
        if (!zero_byte(r) || !zero_byte(r)) return false;
        break;
      case ImmKind::V128:
      case ImmKind::Shuffle:
        if (!r.skip(16)) return false;
        break;
      case ImmKind::Lane:
        if (!r.skip(1)) return false;
        break;
      case ImmKind::MemargLane:
        if (!memarg(r) || !r.skip(1)) return false;
        break;
    }
  }
}

}  // namespace weft::binary::detail
