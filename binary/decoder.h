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
  bool enable_fibers = true;  // fiber extension (later issue); ignored until then
};

// Errors are ErrorKind::Malformed located at a byte offset.
Result<Module> decode_module(std::span<const uint8_t> bytes, const DecodeOptions& options = {});

}  // namespace weft::binary
