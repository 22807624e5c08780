// Instruction-level reading shared by function bodies and constant expressions:
// value/reference types and a walker that checks every opcode and immediate
// against core/opcodes.def, so malformed code is a decode (not validation) error.
#pragma once

#include <cstdint>
#include <vector>

#include "binary/reader.h"
#include "core/types.h"

namespace weft::binary::detail {

// One-byte value types of Wasm 2.0 (v128 only with SIMD enabled).
bool read_value_type(Reader& r, bool enable_simd, ValType& out);
// funcref / externref.
bool read_ref_type(Reader& r, ValType& out);

struct ExprContext {
  bool enable_simd = true;
  // memory.init and data.drop are malformed without a DataCount section, so a
  // single pass can size the data index space (function bodies only).
  bool check_data_count = false;
  bool have_data_count = false;
  // Reported when the bytes run out where an opcode is expected.
  const char* missing_end_message = kUnexpectedEndOfSection;
};

class CodeWalker {
 public:
  // Reads instructions from `r` up to and including the `end` that closes the
  // expression; nested block/loop/if must be closed first and `else` may only
  // appear once directly inside an `if`.
  bool read_expression(Reader& r, const ExprContext& ctx);

 private:
  std::vector<uint8_t> control_;  // open blocks, reused across expressions
};

}  // namespace weft::binary::detail
