// Wasm 2.0 validation of a Module (MVP, sign extension, non-trapping
// float-to-int, multi-value, bulk memory, reference types; SIMD typing).
// One validator for every path; it emits the side tables executors consume.
#pragma once

#include <cstdint>
#include <vector>

#include "core/module.h"
#include "core/result.h"

namespace weft::validator {

// Per defined function (index i = module.functions[i]).
struct FunctionInfo {
  uint32_t max_stack_height = 0;  // operand stack slots (v128 counts as 2), excluding locals
  uint32_t num_locals = 0;        // params + declared locals
};

struct ValidationInfo {
  std::vector<FunctionInfo> functions;
  // Functions referenced outside function bodies (elem segments, global
  // initialisers, exports): the only ones `ref.func` may name in a body.
  std::vector<bool> declared_function_refs;  // indexed by function index
};

struct ValidateOptions {
  bool enable_simd = true;
  bool enable_fibers = true;  // fiber extension (later issue); ignored until then
};

// Errors are ErrorKind::Invalid; locations are function index + body offset
// for code, or the offending entity otherwise. Code locations use the function
// index space (imported functions first) and the offset of the offending
// instruction within Function::body; module-level errors have no location and
// name the entity in the message ("... in global 3 initialiser"). Bytes that
// do not decode as instructions, and a data count that disagrees with the data
// segments, are ErrorKind::Malformed (the decoder normally rejects them first);
// ErrorKind::Limit reports implementation limits (code_validator.h).
Result<ValidationInfo> validate_module(const Module& module, const ValidateOptions& options = {});

// Validates a constant expression of the expected type in `module`'s context:
// only imported globals may be read (Wasm 2.0) and only immutable ones —
// `global.get x` needs x < num_visible_globals, which Wasm 2.0 callers set to
// the number of imported globals.
Result<void> validate_const_expr(const Module& module, const ConstExpr& expr, ValType expected,
                                 uint32_t num_visible_globals);

}  // namespace weft::validator
