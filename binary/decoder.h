// Wasm binary format → Module IR. Checks every malformed-binary rule of the
// spec (section order and sizes, LEB128 limits, UTF-8 names, opcode and
// immediate well-formedness of function bodies, data count consistency) and
// reports the first violation with its byte offset.
#pragma once

#include <cstdint>
#include <span>

#include "core/module.h"
#include "core/result.h"

namespace weft::binary {

struct DecodeOptions {
  bool enable_simd = true;    // accept 0xFD-prefixed instructions and v128
  // Fiber extension (docs/fibers.md): fiber types (0x5C), fiberref (0x5B) and
  // `0x63/0x64 heaptype` value types, the tag section, import/export kind 0x04
  // and 0xFA-prefixed instructions. Off: all of those are malformed (Wasm 2.0).
  bool enable_fibers = true;
};

// Errors are ErrorKind::Malformed located at a byte offset.
Result<Module> decode_module(std::span<const uint8_t> bytes, const DecodeOptions& options = {});

}  // namespace weft::binary
