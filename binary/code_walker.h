// The module decoder's view of code (function bodies and constant
// expressions): value/reference types and a walker that reads every
// instruction with core/instruction_reader.h and checks block structure, so
// malformed code is a decode (not validation) error.
#pragma once

#include <cstdint>
#include <vector>

#include "binary/reader.h"
#include "core/instruction_reader.h"
#include "core/types.h"

namespace weft::binary::detail {

// Value types: the one-byte types of Wasm 2.0 (v128 only with SIMD enabled);
// with the fiber extension also `0x5B` (fiberref) and `0x63 ht` / `0x64 ht`
// (nullable / non-null reference to heap type ht, an s33: a non-negative type
// index, or 0x70 func, 0x6F extern, 0x5B fiber).
bool read_value_type(Reader& r, bool enable_simd, bool enable_fibers, ValType& out);
// Reference types: funcref / externref; with the fiber extension also fiberref
// and the `0x63 ht` / `0x64 ht` forms.
bool read_ref_type(Reader& r, bool enable_fibers, ValType& out);

struct ExprContext {
  bool enable_simd = true;
  // The fiber extension: 0xFA-prefixed instructions, fiber value types in
  // block types and `select t*`, fiber heap types in `ref.null`.
  bool enable_fibers = true;
  bool enable_multi_memory = true;  // memory indices in instructions (ReaderFeatures::multi_memory)
  bool enable_memory64 = true;      // u64 memarg offsets (ReaderFeatures::memory64)
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
  // An enum, not bytes: stores through a byte pointer may alias anything,
  // which would keep the reader's position out of registers.
  enum class Frame : uint8_t { Plain, If, Else };
  std::vector<Frame> control_;  // open blocks, reused across expressions
  InstructionReader reader_{{}};  // reused across expressions too
};

}  // namespace weft::binary::detail
