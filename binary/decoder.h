// Wasm binary format → Module IR. Checks every malformed-binary rule of the
// spec (section order and sizes, LEB128 limits, UTF-8 names, opcode and
// immediate well-formedness of function bodies, data count consistency) and
// reports the first violation with its byte offset.
#pragma once

#include <cstdint>
#include <memory>
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
  // Multi-memory (Wasm 3.0): memory indices in instructions (ReaderFeatures::multi_memory).
  bool enable_multi_memory = true;
  // Memory64 (Wasm 3.0): limits flag bit 2, an i64 address type with u64 bounds.
  bool enable_memory64 = true;
  // Exception handling (Wasm 3.0): the tag section and tag imports/exports
  // (shared with the fiber extension: either feature enables them).
  bool enable_exceptions = true;
  bool tags_enabled() const { return enable_fibers || enable_exceptions; }
  // Leave the instruction-level rules of function bodies (each instruction
  // well-formed, blocks closed, the body ending at its size, the data count
  // section before memory.init/data.drop) unchecked: validation reads every
  // body anyway and fails on anything they reject, and only then does the
  // caller need check_bodies — a large module is read once instead of twice.
  // A decoding error found after the code section is still reported after a
  // body's: decode_module checks the bodies before it returns an error.
  bool defer_body_checks = false;
};

// Errors are ErrorKind::Malformed located at a byte offset. The module owns
// copies of everything it keeps from `bytes` (the function bodies view one
// copy of the code section, Module::source).
Result<Module> decode_module(std::span<const uint8_t> bytes, const DecodeOptions& options = {});
// The same, for `bytes` that `owner` keeps alive: the function bodies are
// views of them (no copy of the code section), and the module holds `owner`
// (Module::source).
Result<Module> decode_module(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                             const DecodeOptions& options = {});

// The checks defer_body_checks skipped, on `module` as decode_module(bytes,
// options) returned it: the first violation, exactly as decode_module without
// defer_body_checks would have reported it, or nothing.
Result<void> check_bodies(std::span<const uint8_t> bytes, const Module& module, const DecodeOptions& options);

}  // namespace weft::binary
