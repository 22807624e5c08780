// The validation context C of the spec: a module's index spaces flattened once
// (imports first), so per-instruction lookups are O(1) — Module's own lookups
// scan the import list — plus the pieces shared by module and code validation:
// value-type well-formedness, and (fiber extension) type equivalence and
// subtyping of reference types.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/module.h"
#include "core/result.h"
#include "validator/validator.h"

namespace weft::validator {

// -- Types of the fiber extension (docs/fibers.md §2) ------------------------

// For each type index the smallest index of a structurally equivalent type.
// A typed reference inside type i may name a type j <= i (j == i: the type
// refers to itself); such references compare by the canonical id of j, and a
// self reference matches only a self reference (iso-recursive, as in Wasm
// GC). Defined for any Module: out-of-range indices just never compare equal.
std::vector<uint32_t> canonical_type_ids(const Module& module);

// Same value type up to type equivalence: typed references compare by the
// canonical ids of their type indices.
inline bool equivalent(ValType a, ValType b, std::span<const uint32_t> canonical) {
  if (a == b) return true;
  return a.kind == ValType::TypedRef && b.kind == ValType::TypedRef && a.nullable == b.nullable &&
         a.type_index < canonical.size() && b.type_index < canonical.size() &&
         canonical[a.type_index] == canonical[b.type_index];
}

inline bool equivalent(std::span<const ValType> a, std::span<const ValType> b, std::span<const uint32_t> canonical) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!equivalent(a[i], b[i], canonical)) return false;
  return true;
}

// actual <: expected. Numeric and vector types match only themselves;
// (ref ht) <: (ref null ht); (ref null? $t) <: (ref null? func) for a function
// type $t (typed function references) and <: (ref null? fiber) for a fiber
// type, with nullability kept or widened; (ref null? $t1) <: (ref null? $t2)
// iff $t1 ≡ $t2; func, extern and fiber references are unrelated otherwise.
inline bool is_subtype(ValType actual, ValType expected, std::span<const uint32_t> canonical,
                       std::span<const FuncType> types) {
  if (actual == expected) return true;
  if (!actual.is_ref() || !expected.is_ref()) return false;
  if (actual.nullable && !expected.nullable) return false;
  const bool typed = actual.kind == ValType::TypedRef && actual.type_index < types.size();
  switch (expected.kind) {
    case ValType::FuncRef:
      return actual.kind == ValType::FuncRef || (typed && !types[actual.type_index].is_fiber);
    case ValType::ExternRef: case ValType::ExnRef: return actual.kind == expected.kind;
    case ValType::FiberRef:
      return actual.kind == ValType::FiberRef || (typed && types[actual.type_index].is_fiber);
    case ValType::TypedRef:
      return actual.kind == ValType::TypedRef && actual.type_index < canonical.size() &&
             expected.type_index < canonical.size() &&
             canonical[actual.type_index] == canonical[expected.type_index];
    default: return false;
  }
}

// Defaultable types have a default value (zero, or null). A local of another
// type must be set before it is read; a table of one needs an initializer.
constexpr bool is_defaultable(ValType t) { return !t.is_ref() || t.nullable; }

// Why `t` is not a value type of the enabled feature set in `module`, or "".
// A typed reference must name a fiber type below `type_bound` (type section:
// no forward references).
inline std::string valtype_problem(ValType t, const Module& module, const ValidateOptions& options,
                                   uint32_t type_bound = UINT32_MAX) {
  switch (t.kind) {
    case ValType::I32: case ValType::I64: case ValType::F32: case ValType::F64: return {};
    case ValType::V128: return options.enable_simd ? "" : "SIMD support is not enabled";
    case ValType::FuncRef:
    case ValType::ExternRef:  // (ref func) and (ref extern): typed function references
      return t.nullable || options.enable_function_references ? ""
                                                              : "non-nullable reference types are not part of Wasm 2.0";
    case ValType::FiberRef:
      return options.enable_fibers ? "" : "fiber support is not enabled: " + to_string(t);
    case ValType::ExnRef:
      return options.enable_exceptions ? "" : "exception handling is not enabled: " + to_string(t);
    case ValType::TypedRef: {
      const std::string index = std::to_string(t.type_index);
      if (t.type_index >= module.types.size()) return "unknown type " + index + " in " + to_string(t);
      if (t.type_index >= type_bound)
        return "unknown type " + index + ": forward reference to type " + index + " in " + to_string(t);
      const bool fiber = module.types[t.type_index].is_fiber;
      if (fiber && !options.enable_fibers) return "fiber support is not enabled: " + to_string(t);
      if (!fiber && !options.enable_function_references)
        return "type mismatch: reference to a non-fiber type: " + to_string(t) + " names function type " + index;
      return {};
    }
  }
  return "malformed value type";
}

struct ModuleContext {
  const Module& module;
  ValidateOptions options{};
  std::vector<uint32_t> function_types{};  // function index -> type index (checked in range)
  std::vector<TableType> tables{};
  std::vector<GlobalType> globals{};
  uint32_t num_imported_globals = 0;  // the globals a constant expression may read
  uint32_t num_memories = 0;
  std::vector<bool> memory_address64{};  // memory index -> an i64 address type (memory64)
  std::vector<uint32_t> tag_types{};  // tag index -> type index (a function type without results)
  std::vector<bool> declared_function_refs{};
  std::vector<uint32_t> canonical_types{};  // canonical_type_ids(module)

  const FuncType& function_type(uint32_t func_index) const { return module.types[function_types[func_index]]; }
  const FuncType& tag_type(uint32_t tag_index) const { return module.types[tag_types[tag_index]]; }
  uint32_t num_functions() const { return uint32_t(function_types.size()); }
  uint32_t num_tags() const { return uint32_t(tag_types.size()); }
  uint32_t num_elems() const { return uint32_t(module.elems.size()); }
  // C.datas: the data segments. The binary format's rule that memory.init and
  // data.drop need a DataCount section is the decoder's (a malformed module).
  uint32_t num_datas() const { return uint32_t(module.datas.size()); }

  bool is_subtype(ValType actual, ValType expected) const {
    return validator::is_subtype(actual, expected, canonical_types, module.types);
  }
  // An element segment's type: one written as function indices holds no
  // null, so with typed function references it is (ref func), as in Wasm 3.0.
  ValType elem_type(const ElemSegment& seg) const {
    if (!seg.uses_expressions && options.enable_function_references && seg.type == ValType::funcref())
      return ValType{ValType::FuncRef, false, 0};
    return seg.type;
  }
  std::string valtype_problem(ValType t, uint32_t type_bound = UINT32_MAX) const {
    return validator::valtype_problem(t, module, options, type_bound);
  }
};

// Constant expressions (const_expr.cc). `where` names the entity for messages.
// The expression's type must be a subtype of `expected`.
Result<void> check_const_expr(const ModuleContext& ctx, const ConstExpr& expr, ValType expected,
                              const std::string& where);
// Marks every in-range `ref.func x` of a constant expression in `declared`.
// Stops at the first byte that is not a constant instruction: validating the
// expression reports that.
void mark_ref_funcs(const ConstExpr& expr, std::vector<bool>& declared);

}  // namespace weft::validator
