// Wasm 2.0 validation of a Module (MVP, sign extension, non-trapping
// float-to-int, multi-value, bulk memory, reference types; SIMD typing) and of
// the fiber extension (docs/fibers.md: fiber types, typed fiber references
// with subtyping, tags, handle/event, the fiber.* instructions).
// One validator for every path; it emits the side tables executors consume.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/module.h"
#include "core/opcodes.h"
#include "core/result.h"

namespace weft::validator {

// An `event $e` clause of a handle (or of a function's outermost level).
struct EventClause {
  uint32_t tag = 0;           // tag index (module index space, imports first)
  uint32_t body_offset = 0;   // offset in Function::body of the clause's first instruction
                              // (just after the `event $e` immediate)
  uint32_t entry_height = 0;  // operand stack slots (v128 = 2, locals excluded) below the
                              // tag's params when the clause is entered
  friend bool operator==(const EventClause&, const EventClause&) = default;
};

// A switching instruction where the running fiber may be suspended and later
// receive an event: fiber.spawn, fiber.resume, fiber.suspend, fiber.suspend_to,
// fiber.switch (fiber.new, fiber.retire and fiber.retireto are not).
struct SuspensionPoint {
  uint32_t body_offset = 0;  // offset in Function::body of the instruction's opcode (0xFA)
  // The handler scope (docs/fibers.md §5.3): the clauses of every enclosing
  // handle whose body segment contains the instruction, innermost handle
  // first and each handle's clauses in textual order, then the function-level
  // clauses if the instruction is in the function's body segment. A tag index
  // appears at most once (the innermost clause wins). Distinct indices may
  // name one tag at run time (a tag imported twice): the first entry wins.
  std::vector<EventClause> scope;
  Opcode opcode = Opcode::FiberSuspend;
};

// A function's fiber side tables, boxed (FunctionInfo::fiber): most
// functions have none, and a record is written for every function of a
// module at start-up (a 60,000-function program's records were 7 MB).
struct FiberTables {
  // Suspension points in body order (ascending body_offset).
  std::vector<SuspensionPoint> suspension_points;
  // The function-level clauses in textual order: the handler scope of a fresh
  // fiber running this function (its entry is a suspension point).
  std::vector<EventClause> entry_clauses;
};

// Per defined function (index i = module.functions[i]).
struct FunctionInfo {
  uint32_t max_stack_height = 0;  // operand stack slots (v128 counts as 2), excluding locals
  uint32_t num_locals = 0;        // params + declared locals
  // Whether the body has an instruction that accesses linear memory (loads,
  // stores, memory.*): the JIT keeps memory registers only in those functions.
  bool uses_memory = false;
  uint8_t num_hot_locals = 0;
  // The locals most worth keeping in registers, hottest first: ranked by
  // accesses (local.get/set/tee), each weighted 4^(enclosing loops), among
  // the first kExpandedLocals (1024) locals — so 16 bits hold an index; only
  // locals accessed at least twice. The JIT pins the first of them that fit
  // its registers (jit/compiler.h).
  static constexpr size_t kMaxHotLocals = 12;
  std::array<uint16_t, kMaxHotLocals> hot_locals{};
  // Fiber extension; null when the function has neither suspension points
  // nor function-level clauses.
  std::unique_ptr<FiberTables> fiber;

  const std::vector<SuspensionPoint>& suspension_points() const {
    static const std::vector<SuspensionPoint> none;
    return fiber ? fiber->suspension_points : none;
  }
  const std::vector<EventClause>& entry_clauses() const {
    static const std::vector<EventClause> none;
    return fiber ? fiber->entry_clauses : none;
  }
};

struct ValidationInfo {
  std::vector<FunctionInfo> functions;
  // Functions referenced outside function bodies (elem segments, global
  // initialisers, exports): the only ones `ref.func` may name in a body.
  std::vector<bool> declared_function_refs;  // indexed by function index
  // For each type index, the smallest type index of a structurally equivalent
  // type (fiber extension: typed references inside types compare by these
  // ids, so `(ref $g1)` and `(ref $g2)` match iff canonical ids are equal).
  std::vector<uint32_t> canonical_types;
  // Each function's type index (imports first, as in the index space): 4
  // bytes per function, where the JIT reads a call's callee type (a large
  // module's Function records and FuncInstances are scattered cache misses).
  std::vector<uint32_t> function_types;
};

struct ValidateOptions {
  bool enable_simd = true;
  bool enable_fibers = true;  // fiber extension: fiber types and refs, tags, 0xFA instructions
  bool enable_function_references = true;  // Wasm 3.0 typed function references (Config)
  bool enable_multi_memory = true;         // Wasm 3.0 multiple memories (Config)
  bool enable_memory64 = true;             // Wasm 3.0 64-bit memories and tables (Config)
  bool enable_tail_call = true;            // Wasm 3.0 tail calls (Config)
  bool enable_extended_const = true;       // Wasm 3.0 extended constant expressions (Config)
  bool enable_exceptions = true;           // Wasm 3.0 exception handling: tags, throw, try_table, exnref (Config)
  // The module was decoded with binary::DecodeOptions::defer_body_checks:
  // memory.init and data.drop then fail without a data count section (a
  // malformed-binary rule the decoder did not check; the caller finds the
  // decoder's error with binary::check_bodies when validation fails).
  bool binary_bodies_unchecked = false;
  // Threads validating function bodies: 0 chooses (one per MiB of code, at
  // most one per core and 8); 1 validates on the calling thread only.
  unsigned threads = 0;
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
// the number of imported globals. The expression's type may be a subtype of
// `expected` (fiber references).
Result<void> validate_const_expr(const Module& module, const ConstExpr& expr, ValType expected,
                                 uint32_t num_visible_globals);

}  // namespace weft::validator
