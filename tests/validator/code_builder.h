// The validator tests' instruction-byte builder:
// Code().op(O::I32Const).s32(1).op(O::End), shared by validator_test.cc and
// fiber_test.cc (hand-built Modules need hand-encoded bodies).
#pragma once

#include <cstdint>
#include <vector>

#include "core/leb128.h"
#include "core/module.h"
#include "core/opcodes.h"

namespace weft::validator::test {

struct Code {
  std::vector<uint8_t> bytes;
  Code& op(Opcode o) {
    const OpcodeInfo& info = opcode_info(o);
    if (info.prefix) {
      bytes.push_back(info.prefix);
      write_leb_u32(bytes, info.code);
    } else {
      bytes.push_back(uint8_t(info.code));
    }
    return *this;
  }
  Code& u32(uint32_t v) { write_leb_u32(bytes, v); return *this; }
  Code& s32(int32_t v) { write_leb_s32(bytes, v); return *this; }
  Code& byte(uint8_t b) { bytes.push_back(b); return *this; }
  Code& memarg(uint32_t align, uint32_t offset = 0) { return u32(align).u32(offset); }
  Code& zeros(size_t n) { bytes.insert(bytes.end(), n, 0); return *this; }
  // Fiber extension value types inside code (block types, select t).
  Code& ref(uint32_t type) { bytes.push_back(0x64); write_leb_s64(bytes, type); return *this; }
  Code& ref_null(uint32_t type) { bytes.push_back(0x63); write_leb_s64(bytes, type); return *this; }
  Code& fiberref() { return byte(0x5B); }
  // Shorthands.
  Code& get(uint32_t local) { return op(Opcode::LocalGet).u32(local); }
  Code& set(uint32_t local) { return op(Opcode::LocalSet).u32(local); }
  Code& i32(int32_t v) { return op(Opcode::I32Const).s32(v); }
  Code& null(uint32_t type) { op(Opcode::RefNull); write_leb_s64(bytes, type); return *this; }  // ref.null $g
  Code& null_fiber() { return op(Opcode::RefNull).byte(0x5B); }
  Code& handle() { return op(Opcode::Handle).byte(0x40); }
  Code& event(uint32_t tag) { return op(Opcode::Event).u32(tag); }
  Code& end() { return op(Opcode::End); }
  // Records the current offset (an instruction about to be emitted, or the
  // first instruction of a clause right after `event`).
  Code& mark(uint32_t& at) { at = uint32_t(bytes.size()); return *this; }
  ConstExpr expr() const { return ConstExpr{bytes}; }
};

}  // namespace weft::validator::test
