// Globals, tables and memories of the C API, the extern casts, and instances.
#include "capi/objects.h"
#include "core/module.h"

namespace weft::capi {
namespace {

RefKind ref_kind_of(ExternKind kind) {
  switch (kind) {
    case ExternKind::Func: return RefKind::Func;
    case ExternKind::Global: return RefKind::Global;
    case ExternKind::Table: return RefKind::Table;
    case ExternKind::Memory: return RefKind::Memory;
    case ExternKind::Tag: break;
  }
  return RefKind::Foreign;
}

// A reference as a weft value of `type` (null for a null reference).
Result<Value> ref_value_of(wasm_store_t* store, wasm_ref_t* ref, ValType type) {
  wasm_val_t value;
  value.kind = valkind_of(type).value_or(WASM_EXTERNREF);
  value.of.ref = ref;
  return value_of(store, value, type);
}

}  // namespace
}  // namespace weft::capi

using namespace weft::capi;

extern "C" {

// ---- Globals -------------------------------------------------------------------------

wasm_global_t* wasm_global_new(wasm_store_t* store, const wasm_globaltype_t* c_type, const wasm_val_t* init) {
  if (!store || !c_type || !c_type->content || !init) return nullptr;
  std::optional<weft::ValType> content = valtype_of(c_type->content->kind);
  if (!content) return nullptr;
  weft::Result<weft::Value> value = value_of(store, *init, *content);
  if (!value.ok()) return nullptr;
  weft::GlobalType type{*content, c_type->mutability == WASM_VAR};
  weft::Extern global = store->store.create_global(type, *value);
  return new_handle_as<wasm_global_t>(store->object_for(RefKind::Global, global.object));
}

wasm_globaltype_t* wasm_global_type(const wasm_global_t* global) {
  return global ? new_globaltype(store_of(global).global_type(extern_of(global))) : nullptr;
}

void wasm_global_get(const wasm_global_t* global, wasm_val_t* out) {
  if (!global) {
    *out = wasm_val_t{};
    return;
  }
  *out = c_value_of(global->object->store, store_of(global).global_get(extern_of(global)));
}

// wasm.h gives no way to report failure: a value of the wrong type, or a
// store to an immutable global, leaves the global unchanged.
void wasm_global_set(wasm_global_t* global, const wasm_val_t* value) {
  if (!global || !value) return;
  weft::Store& store = store_of(global);
  weft::Result<weft::Value> v = value_of(global->object->store, *value, store.global_type(extern_of(global)).type);
  if (v.ok()) (void)store.global_set(extern_of(global), *v);
}

// ---- Tables ----------------------------------------------------------------------------

wasm_table_t* wasm_table_new(wasm_store_t* store, const wasm_tabletype_t* c_type, wasm_ref_t* init) {
  if (!store || !c_type || !c_type->element) return nullptr;
  std::optional<weft::ValType> element = valtype_of(c_type->element->kind);
  if (!element || !element->is_ref()) return nullptr;
  weft::Result<weft::Value> init_value = ref_value_of(store, init, *element);
  if (!init_value.ok()) return nullptr;
  weft::TableType type{*element, limits_of(c_type->limits)};
  weft::Extern table = store->store.create_table(type, *init_value);
  if (!table.object) return nullptr;  // above Config::max_table_elements
  return new_handle_as<wasm_table_t>(store->object_for(RefKind::Table, table.object));
}

wasm_tabletype_t* wasm_table_type(const wasm_table_t* table) {
  return table ? new_tabletype(store_of(table).table_type(extern_of(table))) : nullptr;
}

wasm_ref_t* wasm_table_get(const wasm_table_t* table, wasm_table_size_t index) {
  if (!table) return nullptr;
  std::optional<weft::Value> value = store_of(table).table_get(extern_of(table), index);
  if (!value) return nullptr;
  return c_value_of(table->object->store, *value).of.ref;
}

bool wasm_table_set(wasm_table_t* table, wasm_table_size_t index, wasm_ref_t* ref) {
  if (!table) return false;
  weft::Store& store = store_of(table);
  weft::Result<weft::Value> value = ref_value_of(table->object->store, ref, store.table_type(extern_of(table)).element);
  return value.ok() && store.table_set(extern_of(table), index, *value).ok();
}

wasm_table_size_t wasm_table_size(const wasm_table_t* table) {
  return table ? store_of(table).table_size(extern_of(table)) : 0;
}

bool wasm_table_grow(wasm_table_t* table, wasm_table_size_t delta, wasm_ref_t* init) {
  if (!table) return false;
  weft::Store& store = store_of(table);
  weft::Result<weft::Value> value = ref_value_of(table->object->store, init, store.table_type(extern_of(table)).element);
  return value.ok() && store.table_grow(extern_of(table), delta, *value).has_value();
}

// ---- Memories ----------------------------------------------------------------------------

wasm_memory_t* wasm_memory_new(wasm_store_t* store, const wasm_memorytype_t* c_type) {
  if (!store || !c_type) return nullptr;
  weft::Extern memory = store->store.create_memory(weft::MemoryType{limits_of(c_type->limits)});
  if (!memory.object) return nullptr;  // above Config::max_memory_pages
  return new_handle_as<wasm_memory_t>(store->object_for(RefKind::Memory, memory.object));
}

wasm_memorytype_t* wasm_memory_type(const wasm_memory_t* memory) {
  return memory ? new_memorytype(store_of(memory).memory_type(extern_of(memory))) : nullptr;
}

byte_t* wasm_memory_data(wasm_memory_t* memory) {
  return memory ? reinterpret_cast<byte_t*>(store_of(memory).memory_data(extern_of(memory))) : nullptr;
}

size_t wasm_memory_data_size(const wasm_memory_t* memory) {
  return memory ? store_of(memory).memory_size_bytes(extern_of(memory)) : 0;
}

wasm_memory_pages_t wasm_memory_size(const wasm_memory_t* memory) {
  return memory ? wasm_memory_pages_t(store_of(memory).memory_size_bytes(extern_of(memory)) / weft::kWasmPageSize) : 0;
}

bool wasm_memory_grow(wasm_memory_t* memory, wasm_memory_pages_t delta) {
  return memory && store_of(memory).memory_grow(extern_of(memory), delta).has_value();
}

// ---- Externs -------------------------------------------------------------------------------

wasm_externkind_t wasm_extern_kind(const wasm_extern_t* ext) {
  switch (ext->kind) {
    case RefKind::Global: return WASM_EXTERN_GLOBAL;
    case RefKind::Table: return WASM_EXTERN_TABLE;
    case RefKind::Memory: return WASM_EXTERN_MEMORY;
    default: return WASM_EXTERN_FUNC;
  }
}

wasm_externtype_t* wasm_extern_type(const wasm_extern_t* ext) {
  if (!ext) return nullptr;
  switch (ext->kind) {
    case RefKind::Func: return wasm_func_type(static_cast<const wasm_func_t*>(ext));
    case RefKind::Global: return wasm_global_type(static_cast<const wasm_global_t*>(ext));
    case RefKind::Table: return wasm_table_type(static_cast<const wasm_table_t*>(ext));
    case RefKind::Memory: return wasm_memory_type(static_cast<const wasm_memory_t*>(ext));
    default: return nullptr;
  }
}

wasm_extern_t* wasm_func_as_extern(wasm_func_t* func) { return func; }
wasm_extern_t* wasm_global_as_extern(wasm_global_t* global) { return global; }
wasm_extern_t* wasm_table_as_extern(wasm_table_t* table) { return table; }
wasm_extern_t* wasm_memory_as_extern(wasm_memory_t* memory) { return memory; }
const wasm_extern_t* wasm_func_as_extern_const(const wasm_func_t* func) { return func; }
const wasm_extern_t* wasm_global_as_extern_const(const wasm_global_t* global) { return global; }
const wasm_extern_t* wasm_table_as_extern_const(const wasm_table_t* table) { return table; }
const wasm_extern_t* wasm_memory_as_extern_const(const wasm_memory_t* memory) { return memory; }

// The downcasts answer null for an extern of another kind.
wasm_func_t* wasm_extern_as_func(wasm_extern_t* ext) {
  return ext && ext->kind == RefKind::Func ? static_cast<wasm_func_t*>(ext) : nullptr;
}
wasm_global_t* wasm_extern_as_global(wasm_extern_t* ext) {
  return ext && ext->kind == RefKind::Global ? static_cast<wasm_global_t*>(ext) : nullptr;
}
wasm_table_t* wasm_extern_as_table(wasm_extern_t* ext) {
  return ext && ext->kind == RefKind::Table ? static_cast<wasm_table_t*>(ext) : nullptr;
}
wasm_memory_t* wasm_extern_as_memory(wasm_extern_t* ext) {
  return ext && ext->kind == RefKind::Memory ? static_cast<wasm_memory_t*>(ext) : nullptr;
}
const wasm_func_t* wasm_extern_as_func_const(const wasm_extern_t* ext) {
  return wasm_extern_as_func(const_cast<wasm_extern_t*>(ext));
}
const wasm_global_t* wasm_extern_as_global_const(const wasm_extern_t* ext) {
  return wasm_extern_as_global(const_cast<wasm_extern_t*>(ext));
}
const wasm_table_t* wasm_extern_as_table_const(const wasm_extern_t* ext) {
  return wasm_extern_as_table(const_cast<wasm_extern_t*>(ext));
}
const wasm_memory_t* wasm_extern_as_memory_const(const wasm_extern_t* ext) {
  return wasm_extern_as_memory(const_cast<wasm_extern_t*>(ext));
}

// ---- Instances -------------------------------------------------------------------------------

// Imports are given by position, in the order of wasm_module_imports. On
// failure (a missing or mismatched import, a trap in the start function) the
// result is null and `trap_out`, if given, receives the reason as a trap.
wasm_instance_t* wasm_instance_new(wasm_store_t* store, const wasm_module_t* module, const wasm_extern_vec_t* imports,
                                   wasm_trap_t** trap_out) {
  if (trap_out) *trap_out = nullptr;
  if (!store || !module) {
    if (trap_out) *trap_out = new_trap("wasm_instance_new: null store or module");
    return nullptr;
  }
  std::vector<weft::Extern> externs;
  for (size_t i = 0; imports && i < imports->size; ++i) {
    const wasm_extern_t* ext = imports->data[i];
    if (ext && ext->object->store != store) {
      if (trap_out) *trap_out = new_trap("import " + std::to_string(i) + " belongs to another store");
      return nullptr;
    }
    externs.push_back(ext ? extern_of(ext) : weft::Extern{weft::ExternKind::Func, nullptr});
  }
  const weft::WasmModule& compiled = module->data->module;
  weft::Result<weft::Instance> instance = store->store.instantiate(compiled, externs);
  if (!instance.ok()) {
    // The instance does not exist for the C API: frames name no instance.
    if (trap_out) *trap_out = trap_from_error(instance.error(), &compiled.ir(), nullptr);
    return nullptr;
  }
  return new_handle_as<wasm_instance_t>(store->object_for(RefKind::Instance, instance->raw));
}

// The exports in the module's order (the fiber extension's tags, which wasm.h
// has no kind for, are left out, as in wasm_module_exports).
void wasm_instance_exports(const wasm_instance_t* instance, wasm_extern_vec_t* out) {
  if (!instance) return wasm_extern_vec_new_empty(out);
  wasm_store_t* store = instance->object->store;
  weft::Instance weft_instance;
  weft_instance.raw = static_cast<weft::runtime::Instance*>(instance->object->runtime_object);
  std::vector<wasm_extern_t*> externs;
  for (const auto& [name, ext] : weft_instance.exports()) {
    if (ext.kind == weft::ExternKind::Tag) continue;
    externs.push_back(static_cast<wasm_extern_t*>(new_handle(store->object_for(ref_kind_of(ext.kind), ext.object))));
  }
  wasm_extern_vec_new(out, externs.size(), externs.data());
}

}  // extern "C"
