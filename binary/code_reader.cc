// The instruction walker: one table lookup per opcode, then a switch over the
// immediate kind from core/opcodes.def. The loop runs on a raw pointer kept in
// a register; the Reader is touched only on failure and at the end.
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

// What the walker does after an opcode byte: read an ImmKind's immediates, or
// one of the actions below (they sit above every ImmKind value).
enum Action : uint8_t {
  kIllegal = 0xF0,
  kPrefixed,  // 0xFC / 0xFD / 0xFA: a u32 sub-opcode follows
  kEndOp,
  kElseOp,
  kIfOp,      // like BlockType, but opens a frame that may take an `else`
};

struct OpcodeMaps {
  std::array<uint8_t, 256> single{};  // Action or ImmKind per single-byte opcode
  // Opcode index per sub-opcode, -1 = illegal. Sub-opcodes above 255 are all
  // illegal, so 256 entries per prefix suffice.
  std::array<int16_t, 256> fc{}, fd{}, fa{};
  std::array<ImmKind, kOpcodeCount> imm{};
};

constexpr OpcodeMaps make_maps() {
  OpcodeMaps m;
  m.single.fill(kIllegal);
  m.fc.fill(-1);
  m.fd.fill(-1);
  m.fa.fill(-1);
  for (size_t i = 0; i < std::size(kRows); ++i) {
    const Row& row = kRows[i];
    m.imm[i] = row.imm;
    if (row.prefix == 0x00) {
      const Opcode op = Opcode(i);
      uint8_t action = uint8_t(row.imm);
      if (op == Opcode::End) action = kEndOp;
      if (op == Opcode::Else) action = kElseOp;
      if (op == Opcode::If) action = kIfOp;
      m.single[row.code] = action;
    } else {
      m.single[row.prefix] = kPrefixed;
      (row.prefix == 0xFC ? m.fc : row.prefix == 0xFD ? m.fd : m.fa)[row.code] = int16_t(i);
    }
  }
  return m;
}

constexpr OpcodeMaps kMaps = make_maps();
static_assert(uint8_t(ImmKind::TypeTag) < kIllegal);

// read_expression switches over bytes, so -Wswitch cannot see a new ImmKind
// there; this switch (no default) makes adding one a compile error until the
// walker has a case for it.
constexpr bool walker_handles(ImmKind kind) {
  switch (kind) {
    case ImmKind::None: case ImmKind::BlockType: case ImmKind::LabelIdx: case ImmKind::BrTable:
    case ImmKind::FuncIdx: case ImmKind::CallIndirect: case ImmKind::LocalIdx: case ImmKind::GlobalIdx:
    case ImmKind::TableIdx: case ImmKind::Memarg: case ImmKind::MemIdx: case ImmKind::I32: case ImmKind::I64:
    case ImmKind::F32: case ImmKind::F64: case ImmKind::SelectT: case ImmKind::HeapType: case ImmKind::MemoryInit:
    case ImmKind::DataIdx: case ImmKind::MemoryCopy: case ImmKind::TableInit: case ImmKind::ElemIdx:
    case ImmKind::TableCopy: case ImmKind::V128: case ImmKind::Lane: case ImmKind::MemargLane: case ImmKind::Shuffle:
    case ImmKind::TagIdx: case ImmKind::TypeTag:
      return true;
  }
  return false;
}
constexpr bool walker_handles_all() {
  for (const Row& row : kRows) {
    if (!walker_handles(row.imm)) return false;
  }
  return true;
}
static_assert(walker_handles_all());

enum Frame : uint8_t { kPlainFrame, kIfFrame, kElseFrame };

// ---------------------------------------------------------------------------
// Types

bool value_type_from_byte(uint8_t b, bool enable_simd, ValType& out) {
  switch (b) {
    case 0x7F: out = ValType::i32(); return true;
    case 0x7E: out = ValType::i64(); return true;
    case 0x7D: out = ValType::f32(); return true;
    case 0x7C: out = ValType::f64(); return true;
    case 0x7B: out = ValType::v128(); return enable_simd;
    case 0x70: out = ValType::funcref(); return true;
    case 0x6F: out = ValType::externref(); return true;
    default: return false;
  }
}

// The spec reads type codes as one-byte signed LEBs: a continuation bit is a
// length error before it is a type error.
const char* bad_type_message(uint8_t b, const char* otherwise) {
  return (b & 0x80) ? "integer representation too long" : otherwise;
}

// ---------------------------------------------------------------------------
// Raw-pointer readers for the hot loop. Each takes the position by value and
// returns the next one, or nullptr after recording an error, so the position
// never has its address taken and stays in a register.

enum class Leb : uint8_t { U32, S32, S33, S64 };

[[gnu::noinline, gnu::cold]] const uint8_t* fail_at(Reader& r, const uint8_t* at, const char* message) {
  r.fail_at(r.offset_of(at), message);
  return nullptr;
}

[[gnu::noinline, gnu::cold]] const uint8_t* fail_eof(Reader& r) { return fail_at(r, r.end(), r.eof_message()); }

// The same for the walker's bool results.
bool error(Reader& r, const uint8_t* at, const char* message) {
  fail_at(r, at, message);
  return false;
}

// Decodes with the exact core/leb128 rules; reports errors like Reader does.
[[gnu::noinline]] const uint8_t* read_leb_slow(Reader& r, const uint8_t* p, Leb kind, int64_t& value) {
  const size_t size = size_t(r.end() - p);
  size_t n = 0;
  LebError e = LebError::None;
  switch (kind) {
    case Leb::U32: {
      uint32_t v = 0;
      e = read_leb_u32(p, size, n, v);
      value = v;
      break;
    }
    case Leb::S32: {
      int32_t v = 0;
      e = read_leb_s32(p, size, n, v);
      value = v;
      break;
    }
    case Leb::S33: e = read_leb_s33(p, size, n, value); break;
    case Leb::S64: e = read_leb_s64(p, size, n, value); break;
  }
  if (e == LebError::None) return p + n;
  if (e == LebError::UnexpectedEnd) return fail_eof(r);  // reported at the end of the data
  return fail_at(r, p, leb_error_message(e));
}

// A LEB whose value is needed (counts, sub-opcodes, block types).
inline const uint8_t* read_leb(Reader& r, const uint8_t* p, Leb kind, int64_t& value) {
  if (p != r.end() && *p < 0x80) [[likely]] {
    value = *p;
    if (kind != Leb::U32 && (value & 0x40)) value -= 0x80;  // sign-extend the 7-bit payload
    return p + 1;
  }
  return read_leb_slow(r, p, kind, value);
}

// A LEB that is only checked (indices, constants, memargs): finds the last
// byte and checks its unused bits without assembling the value. Anything
// unusual goes to the exact slow path, which also words the error.
template <Leb kind>
inline const uint8_t* skip_leb(Reader& r, const uint8_t* p) {
  constexpr size_t kMaxBytes = kind == Leb::S64 ? 10 : 5;
  // Unused bits of the last byte: zero for u32, copies of the sign bit otherwise.
  constexpr uint8_t kUnused = kind == Leb::U32 ? 0x70 : kind == Leb::S32 ? 0x78 : kind == Leb::S33 ? 0x70 : 0x7F;
  const size_t avail = size_t(r.end() - p);
  const size_t limit = avail < kMaxBytes ? avail : kMaxBytes;
  for (size_t i = 0; i < limit; ++i) {
    const uint8_t b = p[i];
    if (b & 0x80) continue;
    if (i == kMaxBytes - 1) {
      const uint8_t unused = b & kUnused;
      if (kind == Leb::U32 ? unused != 0 : (unused != 0 && unused != kUnused)) break;
    }
    return p + i + 1;
  }
  int64_t ignored = 0;
  return read_leb_slow(r, p, kind, ignored);
}

inline const uint8_t* skip_bytes(Reader& r, const uint8_t* p, size_t n) {
  if (size_t(r.end() - p) < n) return fail_eof(r);
  return p + n;
}

// A reserved memory index is one 0x00 byte, not a LEB that happens to be zero.
inline const uint8_t* zero_byte(Reader& r, const uint8_t* p) {
  if (p == r.end()) return fail_eof(r);
  if (*p != 0) return fail_at(r, p, "zero byte expected");
  return p + 1;
}

inline const uint8_t* memarg(Reader& r, const uint8_t* p) {
  p = skip_leb<Leb::U32>(r, p);  // alignment exponent
  return p ? skip_leb<Leb::U32>(r, p) : nullptr;  // offset
}

// Fiber extension: the abstract heap type codes, as the values of their
// one-byte s33 encodings (0x70 func, 0x6F extern, 0x5B fiber).
constexpr int64_t kHeapFunc = 0x70 - 0x80;
constexpr int64_t kHeapExtern = 0x6F - 0x80;
constexpr int64_t kHeapFiber = 0x5B - 0x80;
constexpr uint8_t kFiberRefByte = 0x5B;  // also the one-byte value type fiberref
constexpr uint8_t kRefNullByte = 0x63;   // (ref null ht)
constexpr uint8_t kRefByte = 0x64;       // (ref ht)

// A heap type: an s33 that is a non-negative type index (a typed reference)
// or an abstract code. `out` gets the nullable reference type of it.
inline const uint8_t* heap_type(Reader& r, const uint8_t* p, ValType& out, const char* message) {
  const uint8_t* const at = p;
  int64_t v = 0;
  if (!(p = read_leb(r, p, Leb::S33, v))) return nullptr;
  if (v >= 0) {
    out = ValType{ValType::TypedRef, true, uint32_t(v)};  // s33: v < 2^32
    return p;
  }
  switch (v) {
    case kHeapFunc: out = ValType::funcref(); return p;
    case kHeapExtern: out = ValType::externref(); return p;
    case kHeapFiber: out = ValType{ValType::FiberRef, true, 0}; return p;
    default: return fail_at(r, at, message);
  }
}

inline const uint8_t* value_type(Reader& r, const uint8_t* p, bool enable_simd, bool enable_fibers, ValType& out) {
  if (p == r.end()) return fail_eof(r);
  const uint8_t b = *p;
  if (value_type_from_byte(b, enable_simd, out)) return p + 1;
  if (enable_fibers) {
    if (b == kFiberRefByte) {
      out = ValType{ValType::FiberRef, true, 0};
      return p + 1;
    }
    if (b == kRefNullByte || b == kRefByte) {
      if (!(p = heap_type(r, p + 1, out, "malformed heap type"))) return nullptr;
      out.nullable = b == kRefNullByte;
      return p;
    }
  }
  return fail_at(r, p, bad_type_message(b, "malformed value type"));
}

inline const uint8_t* value_type(Reader& r, const uint8_t* p, bool enable_simd, bool enable_fibers) {
  ValType ignored;
  return value_type(r, p, enable_simd, enable_fibers, ignored);
}

inline const uint8_t* ref_type(Reader& r, const uint8_t* p, bool enable_fibers, ValType& out) {
  if (p == r.end()) return fail_eof(r);
  const uint8_t b = *p;
  const bool fiber_form = b == kFiberRefByte || b == kRefNullByte || b == kRefByte;
  if (b == 0x70 || b == 0x6F || (enable_fibers && fiber_form)) return value_type(r, p, false, enable_fibers, out);
  return fail_at(r, p, bad_type_message(b, "malformed reference type"));
}

// 0x40 (empty), a value type, or a non-negative s33 type index. Every value
// type starts with a byte whose s33 reading is negative (0x40..0x7F), so a
// type index never starts like one.
inline const uint8_t* block_type(Reader& r, const uint8_t* p, bool enable_simd, bool enable_fibers) {
  if (p == r.end()) return fail_eof(r);
  if (*p == 0x40) return p + 1;
  if ((*p & 0xC0) == 0x40) return value_type(r, p, enable_simd, enable_fibers);
  int64_t index = 0;
  const uint8_t* next = read_leb(r, p, Leb::S33, index);
  if (next && index < 0) return fail_at(r, p, "malformed block type");
  return next;
}

// A vector count that the remaining bytes could hold (one byte per item at least).
inline const uint8_t* vec_count(Reader& r, const uint8_t* p, int64_t& n) {
  const uint8_t* next = read_leb(r, p, Leb::U32, n);
  if (next && uint64_t(n) > uint64_t(r.end() - next)) return fail_at(r, p, r.eof_message());
  return next;
}

}  // namespace

bool read_value_type(Reader& r, bool enable_simd, bool enable_fibers, ValType& out) {
  const uint8_t* p = value_type(r, r.pos(), enable_simd, enable_fibers, out);
  if (!p) return false;
  r.seek(p);
  return true;
}

bool read_ref_type(Reader& r, bool enable_fibers, ValType& out) {
  const uint8_t* p = ref_type(r, r.pos(), enable_fibers, out);
  if (!p) return false;
  r.seek(p);
  return true;
}

bool CodeWalker::read_expression(Reader& r, const ExprContext& ctx) {
  const uint8_t* p = r.pos();
  const uint8_t* const end = r.end();
  const bool simd = ctx.enable_simd;
  const bool fibers = ctx.enable_fibers;
  const bool data_count_missing = ctx.check_data_count && !ctx.have_data_count;
  control_.clear();
  int64_t n = 0;

  // Every `p = reader(r, p, …)` below yields nullptr once an error is recorded.
  for (;;) {
    if (p == end) return error(r, p, ctx.missing_end_message);
    const uint8_t* const at = p;
    uint8_t action = kMaps.single[*p++];
    if (action == kPrefixed) {
      const uint8_t prefix = *at;
      if (!(p = read_leb(r, p, Leb::U32, n))) return false;
      if (n > 255 || (prefix == 0xFD && !simd) || (prefix == 0xFA && !fibers)) return error(r, at, "illegal opcode");
      const int16_t index = (prefix == 0xFC ? kMaps.fc : prefix == 0xFD ? kMaps.fd : kMaps.fa)[size_t(n)];
      if (index < 0) return error(r, at, "illegal opcode");
      action = uint8_t(kMaps.imm[size_t(index)]);
    }

    switch (action) {
      case uint8_t(ImmKind::None):
        break;
      case kEndOp:
        if (control_.empty()) {
          r.seek(p);
          return true;
        }
        control_.pop_back();
        break;
      case kElseOp:
        // The spec's reader ends the instruction sequence at `else` and then
        // wants an `end` unless the enclosing construct is an `if`.
        if (control_.empty() || control_.back() != kIfFrame) return error(r, at, "END opcode expected");
        control_.back() = kElseFrame;
        break;
      case kIfOp:
      case uint8_t(ImmKind::BlockType):
        if (!(p = block_type(r, p, simd, fibers))) return false;
        control_.push_back(action == kIfOp ? kIfFrame : kPlainFrame);
        break;
      case kIllegal:
        return error(r, at, "illegal opcode");
      case uint8_t(ImmKind::LabelIdx):
      case uint8_t(ImmKind::FuncIdx):
      case uint8_t(ImmKind::LocalIdx):
      case uint8_t(ImmKind::GlobalIdx):
      case uint8_t(ImmKind::TableIdx):
      case uint8_t(ImmKind::ElemIdx):
      case uint8_t(ImmKind::TagIdx):
        if (!(p = skip_leb<Leb::U32>(r, p))) return false;
        break;
      case uint8_t(ImmKind::DataIdx):
        if (data_count_missing) return error(r, at, "data count section required");
        if (!(p = skip_leb<Leb::U32>(r, p))) return false;
        break;
      case uint8_t(ImmKind::BrTable):
        if (!(p = vec_count(r, p, n))) return false;
        for (int64_t i = 0; i <= n; ++i) {  // the targets, then the default
          if (!(p = skip_leb<Leb::U32>(r, p))) return false;
        }
        break;
      case uint8_t(ImmKind::CallIndirect):  // type index, then a table index (a LEB since Wasm 2.0)
      case uint8_t(ImmKind::TableInit):
      case uint8_t(ImmKind::TableCopy):
      case uint8_t(ImmKind::TypeTag):
        if (!(p = skip_leb<Leb::U32>(r, p)) || !(p = skip_leb<Leb::U32>(r, p))) return false;
        break;
      case uint8_t(ImmKind::Memarg):
        if (!(p = memarg(r, p))) return false;
        break;
      case uint8_t(ImmKind::MemIdx):
        if (!(p = zero_byte(r, p))) return false;
        break;
      case uint8_t(ImmKind::I32):
        if (!(p = skip_leb<Leb::S32>(r, p))) return false;
        break;
      case uint8_t(ImmKind::I64):
        if (!(p = skip_leb<Leb::S64>(r, p))) return false;
        break;
      case uint8_t(ImmKind::F32):
        if (!(p = skip_bytes(r, p, 4))) return false;
        break;
      case uint8_t(ImmKind::F64):
        if (!(p = skip_bytes(r, p, 8))) return false;
        break;
      case uint8_t(ImmKind::SelectT):
        if (!(p = vec_count(r, p, n))) return false;
        for (int64_t i = 0; i < n; ++i) {
          if (!(p = value_type(r, p, simd, fibers))) return false;
        }
        break;
      case uint8_t(ImmKind::HeapType):
        if (p == end) return error(r, end, r.eof_message());
        if (fibers && *p != 0x70 && *p != 0x6F) {
          // Fiber extension: any heap type (`ref.null 0x5B`, `ref.null typeidx`).
          ValType ignored;
          if (!(p = heap_type(r, p, ignored, "malformed reference type"))) return false;
          break;
        }
        if (*p != 0x70 && *p != 0x6F) return error(r, p, bad_type_message(*p, "malformed reference type"));
        ++p;
        break;
      case uint8_t(ImmKind::MemoryInit):
        if (data_count_missing) return error(r, at, "data count section required");
        if (!(p = skip_leb<Leb::U32>(r, p)) || !(p = zero_byte(r, p))) return false;
        break;
      case uint8_t(ImmKind::MemoryCopy):
        if (!(p = zero_byte(r, p)) || !(p = zero_byte(r, p))) return false;
        break;
      case uint8_t(ImmKind::V128):
      case uint8_t(ImmKind::Shuffle):
        if (!(p = skip_bytes(r, p, 16))) return false;
        break;
      case uint8_t(ImmKind::Lane):
        if (!(p = skip_bytes(r, p, 1))) return false;
        break;
      case uint8_t(ImmKind::MemargLane):
        if (!(p = memarg(r, p)) || !(p = skip_bytes(r, p, 1))) return false;
        break;
      default:
        return error(r, at, "illegal opcode");
    }
  }
}

}  // namespace weft::binary::detail
