// The validation context C of the spec: a module's index spaces flattened once
// (imports first), so per-instruction lookups are O(1) — Module's own lookups
// scan the import list — plus the pieces shared by module and code validation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/module.h"
#include "core/result.h"
#include "validator/validator.h"

namespace weft::validator {

struct ModuleContext {
  const Module& module;
  ValidateOptions options{};
  std::vector<uint32_t> function_types{};  // function index -> type index (checked in range)
  std::vector<TableType> tables{};
  std::vector<GlobalType> globals{};
  uint32_t num_imported_globals = 0;  // the globals a constant expression may read
  uint32_t num_memories = 0;
  std::vector<bool> declared_function_refs{};

  const FuncType& function_type(uint32_t func_index) const { return module.types[function_types[func_index]]; }
  uint32_t num_functions() const { return uint32_t(function_types.size()); }
  uint32_t num_elems() const { return uint32_t(module.elems.size()); }
  // C.datas: the data segments. The binary format's rule that memory.init and
  // data.drop need a DataCount section is the decoder's (a malformed module).
  uint32_t num_datas() const { return uint32_t(module.datas.size()); }
};

// Why `t` is not a value type of the enabled feature set, or nullptr.
inline const char* valtype_problem(ValType t, const ValidateOptions& options) {
  switch (t.kind) {
    case ValType::I32: case ValType::I64: case ValType::F32: case ValType::F64: return nullptr;
    case ValType::V128: return options.enable_simd ? nullptr : "SIMD support is not enabled";
    case ValType::FuncRef:
    case ValType::ExternRef:
      return t.nullable ? nullptr : "non-nullable reference types are not part of Wasm 2.0";
    case ValType::FiberRef:
    case ValType::TypedRef: return "fiber types are not supported by the validator yet";
  }
  return "malformed value type";
}

// Constant expressions (const_expr.cc). `where` names the entity for messages.
Result<void> check_const_expr(const ModuleContext& ctx, const ConstExpr& expr, ValType expected,
                              const std::string& where);
// Marks every in-range `ref.func x` of a constant expression in `declared`.
// Stops at the first byte that is not a constant instruction: validating the
// expression reports that.
void mark_ref_funcs(const ConstExpr& expr, std::vector<bool>& declared);

}  // namespace weft::validator
