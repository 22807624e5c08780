// Bounds-checked reading of instruction bytes (function bodies and constant
// expressions) for the validator, which must be safe on any Module IR — not
// only on what binary/ produced — and so never trusts an immediate's length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/leb128.h"
#include "core/opcodes.h"
#include "core/types.h"

namespace weft::validator {

// Binary opcode -> Opcode, expanded from core/opcodes.def at compile time so
// the per-instruction lookup is one inlined load (-1: no such opcode).
struct OpcodeMap {
  int16_t single[256], fa[256], fc[256], fd[256];
};
constexpr OpcodeMap make_opcode_map() {
  OpcodeMap map{};
  for (int i = 0; i < 256; ++i) map.single[i] = map.fa[i] = map.fc[i] = map.fd[i] = -1;
  // Rows of other prefixes (a later extension) stay unknown until read here.
#define WEFT_OPCODE(name, prefix, code, ...)                                                   \
  if (int16_t* row = prefix == 0      ? map.single                                            \
                     : prefix == 0xFA ? map.fa                                                \
                     : prefix == 0xFC ? map.fc                                                \
                     : prefix == 0xFD ? map.fd                                                \
                                      : nullptr)                                              \
    row[code] = int16_t(Opcode::name);
#include "core/opcodes.def"
  return map;
}
inline constexpr OpcodeMap kOpcodeMap = make_opcode_map();

class CodeReader {
 public:
  explicit CodeReader(const std::vector<uint8_t>& bytes) : data_(bytes.data()), size_(bytes.size()) {}

  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= size_; }
  // Why the last read failed: an LEB128 rule or running out of bytes.
  const char* error() const { return leb_error_message(error_); }

  bool u8(uint8_t& out) {
    if (pos_ >= size_) return fail(LebError::UnexpectedEnd);
    out = data_[pos_++];
    return true;
  }
  bool peek(uint8_t& out) const {
    if (pos_ >= size_) return false;
    out = data_[pos_];
    return true;
  }
  // Most indices and constants fit one byte: decode those inline.
  bool u32(uint32_t& out) {
    if (pos_ < size_ && data_[pos_] < 0x80) {
      out = data_[pos_++];
      return true;
    }
    return check(read_leb_u32(data_, size_, pos_, out));
  }
  bool s32(int32_t& out) {
    if (pos_ < size_ && data_[pos_] < 0x80) {
      out = int32_t(uint32_t(data_[pos_++]) << 25) >> 25;  // sign-extend bit 6
      return true;
    }
    return check(read_leb_s32(data_, size_, pos_, out));
  }
  bool s64(int64_t& out) { return check(read_leb_s64(data_, size_, pos_, out)); }
  bool s33(int64_t& out) { return check(read_leb_s33(data_, size_, pos_, out)); }
  bool skip(size_t n) {
    if (size_ - pos_ < n) return fail(LebError::UnexpectedEnd);
    pos_ += n;
    return true;
  }
  void seek(size_t pos) { pos_ = pos; }

  // An opcode: one byte, or a prefix byte followed by a u32 code. nullopt with
  // error() == "" means the bytes were read but name no known instruction.
  std::optional<Opcode> opcode() {
    uint8_t byte;
    if (!u8(byte)) return std::nullopt;
    error_ = LebError::None;
    int16_t index;
    if (byte == 0xFA || byte == 0xFC || byte == 0xFD) {
      uint32_t code;
      if (!u32(code)) return std::nullopt;
      if (code > 255) return std::nullopt;
      index = (byte == 0xFA ? kOpcodeMap.fa : byte == 0xFC ? kOpcodeMap.fc : kOpcodeMap.fd)[code];
    } else {
      index = kOpcodeMap.single[byte];
    }
    if (index < 0) return std::nullopt;
    return Opcode(index);
  }

 private:
  bool fail(LebError e) {
    error_ = e;
    return false;
  }
  bool check(LebError e) { return e == LebError::None || fail(e); }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  LebError error_ = LebError::None;
};

// The value type a single byte encodes in the Wasm 2.0 binary format (block
// types, `select t`), or nullopt.
inline std::optional<ValType> valtype_from_byte(uint8_t byte) {
  switch (byte) {
    case 0x7F: return ValType::i32();
    case 0x7E: return ValType::i64();
    case 0x7D: return ValType::f32();
    case 0x7C: return ValType::f64();
    case 0x7B: return ValType::v128();
    case 0x70: return ValType::funcref();
    case 0x6F: return ValType::externref();
    default: return std::nullopt;
  }
}

// The reference type a heap-type byte (`ref.null`) encodes, or nullopt.
inline std::optional<ValType> reftype_from_heap_byte(uint8_t byte) {
  if (byte == 0x70) return ValType::funcref();
  if (byte == 0x6F) return ValType::externref();
  return std::nullopt;
}

// Outcome of decoding a type immediate.
enum class TypeDecode : uint8_t { Ok, Truncated, Malformed };

// Fiber extension binary encodings (docs/fibers.md §4).
constexpr uint8_t kRefNullPrefix = 0x63;  // (ref null ht)
constexpr uint8_t kRefPrefix = 0x64;      // (ref ht)
constexpr uint8_t kFiberHeapType = 0x5B;  // abstract heap type `fiber`; alone, the value type fiberref

// A heap type as `(ref null? ht)` with the given nullability. Wasm 2.0: one
// byte, 0x70 or 0x6F. With fibers: an s33, a type index (>= 0; the validator
// checks it names a fiber type) or an abstract heap type (func, extern, fiber).
inline TypeDecode read_heap_type(CodeReader& r, bool nullable, bool fibers, ValType& out) {
  if (!fibers) {
    uint8_t byte;
    if (!r.u8(byte)) return TypeDecode::Truncated;
    std::optional<ValType> t = reftype_from_heap_byte(byte);
    if (!t) return TypeDecode::Malformed;
    out = *t;
    return TypeDecode::Ok;
  }
  int64_t code;
  if (!r.s33(code)) return TypeDecode::Truncated;
  if (code >= 0) {
    out = {ValType::TypedRef, nullable, uint32_t(code)};  // an s33 is below 2^32
    return TypeDecode::Ok;
  }
  // Abstract heap types are the one-byte codes, as s33 values: 0x70 = -0x10.
  switch (code) {
    case int64_t(0x70) - 0x80: out = {ValType::FuncRef, nullable, 0}; return TypeDecode::Ok;
    case int64_t(0x6F) - 0x80: out = {ValType::ExternRef, nullable, 0}; return TypeDecode::Ok;
    case int64_t(kFiberHeapType) - 0x80: out = {ValType::FiberRef, nullable, 0}; return TypeDecode::Ok;
    default: return TypeDecode::Malformed;
  }
}

// A value type inside code (`select t*`; block types handle their own first
// byte): the one-byte Wasm 2.0 types, and with fibers 0x5B (fiberref) and
// 0x63/0x64 followed by a heap type.
inline TypeDecode read_value_type(CodeReader& r, bool fibers, ValType& out) {
  uint8_t byte;
  if (!r.u8(byte)) return TypeDecode::Truncated;
  if (std::optional<ValType> t = valtype_from_byte(byte)) {
    out = *t;
    return TypeDecode::Ok;
  }
  if (!fibers) return TypeDecode::Malformed;
  if (byte == kFiberHeapType) {
    out = {ValType::FiberRef, true, 0};
    return TypeDecode::Ok;
  }
  if (byte == kRefNullPrefix || byte == kRefPrefix) return read_heap_type(r, byte == kRefNullPrefix, true, out);
  return TypeDecode::Malformed;
}

}  // namespace weft::validator
