// Type representations of the C API (value, function, global, table, memory,
// extern, import and export types) and their conversions to weft's types.
#include <algorithm>
#include <cstring>

#include "capi/objects.h"

namespace weft::capi {

std::optional<wasm_valkind_t> valkind_of(ValType type) {
  switch (type.kind) {
    case ValType::I32: return WASM_I32;
    case ValType::I64: return WASM_I64;
    case ValType::F32: return WASM_F32;
    case ValType::F64: return WASM_F64;
    case ValType::FuncRef: return WASM_FUNCREF;
    case ValType::ExternRef: return WASM_EXTERNREF;
    default: return std::nullopt;  // v128 and fiber references have no wasm.h kind
  }
}

std::optional<ValType> valtype_of(wasm_valkind_t kind) {
  switch (kind) {
    case WASM_I32: return ValType::i32();
    case WASM_I64: return ValType::i64();
    case WASM_F32: return ValType::f32();
    case WASM_F64: return ValType::f64();
    case WASM_FUNCREF: return ValType::funcref();
    case WASM_EXTERNREF: return ValType::externref();
    default: return std::nullopt;
  }
}

namespace {

// Kinds wasm.h cannot name are reported as this (outside its enum), so
// reflection still lists such functions; they cannot be called through the C API.
constexpr wasm_valkind_t kUnrepresentableKind = 0x7f;

wasm_valtype_vec_t new_valtypes(const std::vector<ValType>& types) {
  wasm_valtype_vec_t vec;
  wasm_valtype_vec_new_uninitialized(&vec, types.size());
  for (size_t i = 0; i < vec.size; ++i) vec.data[i] = wasm_valtype_new(valkind_of(types[i]).value_or(kUnrepresentableKind));
  return vec;
}

wasm_limits_t c_limits_of(const Limits& limits) {
  wasm_limits_t out;
  out.min = uint32_t(std::min<uint64_t>(limits.min, 0xffffffffu));
  out.max = limits.max ? uint32_t(std::min<uint64_t>(*limits.max, 0xffffffffu)) : 0xffffffffu;
  return out;
}

}  // namespace

Limits limits_of(const wasm_limits_t& limits) {
  Limits out;
  out.min = limits.min;
  if (limits.max != 0xffffffffu) out.max = limits.max;
  return out;
}

wasm_functype_t* new_functype(const FuncType& type) {
  wasm_valtype_vec_t params = new_valtypes(type.params);
  wasm_valtype_vec_t results = new_valtypes(type.results);
  return wasm_functype_new(&params, &results);
}

wasm_globaltype_t* new_globaltype(const GlobalType& type) {
  return wasm_globaltype_new(wasm_valtype_new(valkind_of(type.type).value_or(kUnrepresentableKind)),
                             type.is_mutable ? WASM_VAR : WASM_CONST);
}

wasm_tabletype_t* new_tabletype(const TableType& type) {
  wasm_limits_t limits = c_limits_of(type.limits);
  return wasm_tabletype_new(wasm_valtype_new(valkind_of(type.element).value_or(kUnrepresentableKind)), &limits);
}

wasm_memorytype_t* new_memorytype(const MemoryType& type) {
  wasm_limits_t limits = c_limits_of(type.limits);
  return wasm_memorytype_new(&limits);
}

std::optional<FuncType> functype_of(const wasm_functype_t* type) {
  FuncType out;
  for (size_t i = 0; i < type->params.size; ++i) {
    std::optional<ValType> t = valtype_of(type->params.data[i]->kind);
    if (!t) return std::nullopt;
    out.params.push_back(*t);
  }
  for (size_t i = 0; i < type->results.size; ++i) {
    std::optional<ValType> t = valtype_of(type->results.data[i]->kind);
    if (!t) return std::nullopt;
    out.results.push_back(*t);
  }
  return out;
}

void new_name(wasm_name_t* out, std::string_view text, bool nul_terminated) {
  wasm_byte_vec_new_uninitialized(out, text.size() + (nul_terminated ? 1 : 0));
  if (!text.empty()) std::memcpy(out->data, text.data(), text.size());
  if (nul_terminated) out->data[text.size()] = '\0';
}

}  // namespace weft::capi

using namespace weft::capi;

extern "C" {

// ---- Value types -----------------------------------------------------------------

wasm_valtype_t* wasm_valtype_new(wasm_valkind_t kind) { return new wasm_valtype_t{kind}; }
void wasm_valtype_delete(wasm_valtype_t* type) { delete type; }
wasm_valtype_t* wasm_valtype_copy(const wasm_valtype_t* type) { return type ? new wasm_valtype_t(*type) : nullptr; }
wasm_valkind_t wasm_valtype_kind(const wasm_valtype_t* type) { return type->kind; }

// ---- Function types --------------------------------------------------------------

wasm_functype_t* wasm_functype_new(wasm_valtype_vec_t* params, wasm_valtype_vec_t* results) {
  auto* type = new wasm_functype_t;
  type->kind = WASM_EXTERN_FUNC;
  type->params = *params;  // ownership of both vectors moves in
  type->results = *results;
  return type;
}
void wasm_functype_delete(wasm_functype_t* type) {
  if (!type) return;
  wasm_valtype_vec_delete(&type->params);
  wasm_valtype_vec_delete(&type->results);
  delete type;
}
wasm_functype_t* wasm_functype_copy(const wasm_functype_t* type) {
  if (!type) return nullptr;
  wasm_valtype_vec_t params, results;
  wasm_valtype_vec_copy(&params, &type->params);
  wasm_valtype_vec_copy(&results, &type->results);
  return wasm_functype_new(&params, &results);
}
const wasm_valtype_vec_t* wasm_functype_params(const wasm_functype_t* type) { return &type->params; }
const wasm_valtype_vec_t* wasm_functype_results(const wasm_functype_t* type) { return &type->results; }

// ---- Global types ----------------------------------------------------------------

wasm_globaltype_t* wasm_globaltype_new(wasm_valtype_t* content, wasm_mutability_t mutability) {
  auto* type = new wasm_globaltype_t;
  type->kind = WASM_EXTERN_GLOBAL;
  type->content = content;
  type->mutability = mutability;
  return type;
}
void wasm_globaltype_delete(wasm_globaltype_t* type) {
  if (!type) return;
  wasm_valtype_delete(type->content);
  delete type;
}
wasm_globaltype_t* wasm_globaltype_copy(const wasm_globaltype_t* type) {
  return type ? wasm_globaltype_new(wasm_valtype_copy(type->content), type->mutability) : nullptr;
}
const wasm_valtype_t* wasm_globaltype_content(const wasm_globaltype_t* type) { return type->content; }
wasm_mutability_t wasm_globaltype_mutability(const wasm_globaltype_t* type) { return type->mutability; }

// ---- Table types -----------------------------------------------------------------

wasm_tabletype_t* wasm_tabletype_new(wasm_valtype_t* element, const wasm_limits_t* limits) {
  auto* type = new wasm_tabletype_t;
  type->kind = WASM_EXTERN_TABLE;
  type->element = element;
  type->limits = *limits;
  return type;
}
void wasm_tabletype_delete(wasm_tabletype_t* type) {
  if (!type) return;
  wasm_valtype_delete(type->element);
  delete type;
}
wasm_tabletype_t* wasm_tabletype_copy(const wasm_tabletype_t* type) {
  return type ? wasm_tabletype_new(wasm_valtype_copy(type->element), &type->limits) : nullptr;
}
const wasm_valtype_t* wasm_tabletype_element(const wasm_tabletype_t* type) { return type->element; }
const wasm_limits_t* wasm_tabletype_limits(const wasm_tabletype_t* type) { return &type->limits; }

// ---- Memory types ----------------------------------------------------------------

wasm_memorytype_t* wasm_memorytype_new(const wasm_limits_t* limits) {
  auto* type = new wasm_memorytype_t;
  type->kind = WASM_EXTERN_MEMORY;
  type->limits = *limits;
  return type;
}
void wasm_memorytype_delete(wasm_memorytype_t* type) { delete type; }
wasm_memorytype_t* wasm_memorytype_copy(const wasm_memorytype_t* type) {
  return type ? wasm_memorytype_new(&type->limits) : nullptr;
}
const wasm_limits_t* wasm_memorytype_limits(const wasm_memorytype_t* type) { return &type->limits; }

// ---- Extern types ----------------------------------------------------------------

wasm_externkind_t wasm_externtype_kind(const wasm_externtype_t* type) { return type->kind; }

void wasm_externtype_delete(wasm_externtype_t* type) {
  if (!type) return;
  switch (type->kind) {
    case WASM_EXTERN_FUNC: return wasm_functype_delete(static_cast<wasm_functype_t*>(type));
    case WASM_EXTERN_GLOBAL: return wasm_globaltype_delete(static_cast<wasm_globaltype_t*>(type));
    case WASM_EXTERN_TABLE: return wasm_tabletype_delete(static_cast<wasm_tabletype_t*>(type));
    case WASM_EXTERN_MEMORY: return wasm_memorytype_delete(static_cast<wasm_memorytype_t*>(type));
  }
}

wasm_externtype_t* wasm_externtype_copy(const wasm_externtype_t* type) {
  if (!type) return nullptr;
  switch (type->kind) {
    case WASM_EXTERN_FUNC: return wasm_functype_copy(static_cast<const wasm_functype_t*>(type));
    case WASM_EXTERN_GLOBAL: return wasm_globaltype_copy(static_cast<const wasm_globaltype_t*>(type));
    case WASM_EXTERN_TABLE: return wasm_tabletype_copy(static_cast<const wasm_tabletype_t*>(type));
    case WASM_EXTERN_MEMORY: return wasm_memorytype_copy(static_cast<const wasm_memorytype_t*>(type));
  }
  return nullptr;
}

wasm_externtype_t* wasm_functype_as_externtype(wasm_functype_t* type) { return type; }
wasm_externtype_t* wasm_globaltype_as_externtype(wasm_globaltype_t* type) { return type; }
wasm_externtype_t* wasm_tabletype_as_externtype(wasm_tabletype_t* type) { return type; }
wasm_externtype_t* wasm_memorytype_as_externtype(wasm_memorytype_t* type) { return type; }
const wasm_externtype_t* wasm_functype_as_externtype_const(const wasm_functype_t* type) { return type; }
const wasm_externtype_t* wasm_globaltype_as_externtype_const(const wasm_globaltype_t* type) { return type; }
const wasm_externtype_t* wasm_tabletype_as_externtype_const(const wasm_tabletype_t* type) { return type; }
const wasm_externtype_t* wasm_memorytype_as_externtype_const(const wasm_memorytype_t* type) { return type; }

// The downcasts answer null when the extern type is of another kind.
wasm_functype_t* wasm_externtype_as_functype(wasm_externtype_t* type) {
  return type && type->kind == WASM_EXTERN_FUNC ? static_cast<wasm_functype_t*>(type) : nullptr;
}
wasm_globaltype_t* wasm_externtype_as_globaltype(wasm_externtype_t* type) {
  return type && type->kind == WASM_EXTERN_GLOBAL ? static_cast<wasm_globaltype_t*>(type) : nullptr;
}
wasm_tabletype_t* wasm_externtype_as_tabletype(wasm_externtype_t* type) {
  return type && type->kind == WASM_EXTERN_TABLE ? static_cast<wasm_tabletype_t*>(type) : nullptr;
}
wasm_memorytype_t* wasm_externtype_as_memorytype(wasm_externtype_t* type) {
  return type && type->kind == WASM_EXTERN_MEMORY ? static_cast<wasm_memorytype_t*>(type) : nullptr;
}
const wasm_functype_t* wasm_externtype_as_functype_const(const wasm_externtype_t* type) {
  return wasm_externtype_as_functype(const_cast<wasm_externtype_t*>(type));
}
const wasm_globaltype_t* wasm_externtype_as_globaltype_const(const wasm_externtype_t* type) {
  return wasm_externtype_as_globaltype(const_cast<wasm_externtype_t*>(type));
}
const wasm_tabletype_t* wasm_externtype_as_tabletype_const(const wasm_externtype_t* type) {
  return wasm_externtype_as_tabletype(const_cast<wasm_externtype_t*>(type));
}
const wasm_memorytype_t* wasm_externtype_as_memorytype_const(const wasm_externtype_t* type) {
  return wasm_externtype_as_memorytype(const_cast<wasm_externtype_t*>(type));
}

// ---- Import and export types -------------------------------------------------------

wasm_importtype_t* wasm_importtype_new(wasm_name_t* module, wasm_name_t* name, wasm_externtype_t* type) {
  return new wasm_importtype_t{*module, *name, type};
}
void wasm_importtype_delete(wasm_importtype_t* type) {
  if (!type) return;
  wasm_name_delete(&type->module);
  wasm_name_delete(&type->name);
  wasm_externtype_delete(type->type);
  delete type;
}
wasm_importtype_t* wasm_importtype_copy(const wasm_importtype_t* type) {
  if (!type) return nullptr;
  wasm_name_t module, name;
  wasm_name_copy(&module, &type->module);
  wasm_name_copy(&name, &type->name);
  return wasm_importtype_new(&module, &name, wasm_externtype_copy(type->type));
}
const wasm_name_t* wasm_importtype_module(const wasm_importtype_t* type) { return &type->module; }
const wasm_name_t* wasm_importtype_name(const wasm_importtype_t* type) { return &type->name; }
const wasm_externtype_t* wasm_importtype_type(const wasm_importtype_t* type) { return type->type; }

wasm_exporttype_t* wasm_exporttype_new(wasm_name_t* name, wasm_externtype_t* type) {
  return new wasm_exporttype_t{*name, type};
}
void wasm_exporttype_delete(wasm_exporttype_t* type) {
  if (!type) return;
  wasm_name_delete(&type->name);
  wasm_externtype_delete(type->type);
  delete type;
}
wasm_exporttype_t* wasm_exporttype_copy(const wasm_exporttype_t* type) {
  if (!type) return nullptr;
  wasm_name_t name;
  wasm_name_copy(&name, &type->name);
  return wasm_exporttype_new(&name, wasm_externtype_copy(type->type));
}
const wasm_name_t* wasm_exporttype_name(const wasm_exporttype_t* type) { return &type->name; }
const wasm_externtype_t* wasm_exporttype_type(const wasm_exporttype_t* type) { return type->type; }

}  // extern "C"
