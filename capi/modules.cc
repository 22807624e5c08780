// Modules of the C API: compilation and validation of binaries, reflection on
// imports and exports, serialization and sharing between stores.
//
// Serialization is honest rather than fast: weft has no persistent form of
// compiled code, so wasm_module_serialize returns the module's binary bytes
// and wasm_module_deserialize decodes and validates them again (as
// wasm_module_new does).
#include "capi/objects.h"
#include "core/module.h"

namespace weft::capi {
namespace {

wasm_module_t* new_module_handle(std::shared_ptr<ModuleData> data) {
  auto* module = new wasm_module_t;
  module->kind = RefKind::Module;
  module->data = std::move(data);
  return module;
}

wasm_module_t* compile(wasm_store_t* store, const wasm_byte_vec_t* binary) {
  if (!store || !binary) return nullptr;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(binary->data), binary->size);
  Result<WasmModule> module = WasmModule::from_binary(store->store.engine(), bytes);
  if (!module.ok()) return nullptr;
  auto data = std::make_shared<ModuleData>();
  data->module = std::move(module).value();
  data->binary.assign(bytes.begin(), bytes.end());
  return new_module_handle(std::move(data));
}

// The C extern type of an import or export; null for the fiber extension's
// tags, which wasm.h has no kind for.
wasm_externtype_t* new_externtype(const Module& module, ExternKind kind, uint32_t index, const Import* import) {
  switch (kind) {
    case ExternKind::Func:
      return new_functype(import ? module.types[import->type_index] : module.function_type(index));
    case ExternKind::Global: return new_globaltype(import ? import->global : module.global_type(index));
    case ExternKind::Table: return new_tabletype(import ? import->table : module.table_type(index));
    case ExternKind::Memory: return new_memorytype(import ? import->memory : module.memory_type(index));
    case ExternKind::Tag: return nullptr;
  }
  return nullptr;
}

}  // namespace
}  // namespace weft::capi

using namespace weft::capi;

extern "C" {

wasm_module_t* wasm_module_new(wasm_store_t* store, const wasm_byte_vec_t* binary) { return compile(store, binary); }

bool wasm_module_validate(wasm_store_t* store, const wasm_byte_vec_t* binary) {
  if (!store || !binary) return false;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(binary->data), binary->size);
  return weft::WasmModule::from_binary(store->store.engine(), bytes).ok();
}

void wasm_module_imports(const wasm_module_t* module, wasm_importtype_vec_t* out) {
  if (!module) return wasm_importtype_vec_new_empty(out);
  const weft::Module& ir = module->data->module.ir();
  std::vector<wasm_importtype_t*> imports;
  for (const weft::Import& import : ir.imports) {
    wasm_externtype_t* type = new_externtype(ir, import.kind, 0, &import);
    if (!type) continue;
    wasm_name_t module_name, name;
    new_name(&module_name, import.module);
    new_name(&name, import.name);
    imports.push_back(wasm_importtype_new(&module_name, &name, type));
  }
  wasm_importtype_vec_new(out, imports.size(), imports.data());
}

void wasm_module_exports(const wasm_module_t* module, wasm_exporttype_vec_t* out) {
  if (!module) return wasm_exporttype_vec_new_empty(out);
  const weft::Module& ir = module->data->module.ir();
  std::vector<wasm_exporttype_t*> exports;
  for (const weft::Export& e : ir.exports) {
    wasm_externtype_t* type = new_externtype(ir, e.kind, e.index, nullptr);
    if (!type) continue;
    wasm_name_t name;
    new_name(&name, e.name);
    exports.push_back(wasm_exporttype_new(&name, type));
  }
  wasm_exporttype_vec_new(out, exports.size(), exports.data());
}

void wasm_module_serialize(const wasm_module_t* module, wasm_byte_vec_t* out) {
  if (!module) return wasm_byte_vec_new_empty(out);
  const std::vector<uint8_t>& binary = module->data->binary;
  wasm_byte_vec_new(out, binary.size(), reinterpret_cast<const wasm_byte_t*>(binary.data()));
}

wasm_module_t* wasm_module_deserialize(wasm_store_t* store, const wasm_byte_vec_t* serialized) {
  return compile(store, serialized);
}

// ---- Sharing between stores -----------------------------------------------------------

void wasm_shared_module_delete(wasm_shared_module_t* shared) { delete shared; }

wasm_shared_module_t* wasm_module_share(const wasm_module_t* module) {
  return module ? new wasm_shared_module_t{module->data} : nullptr;
}

// Obtaining a shared module decodes and validates its binary again under the
// store's engine: engines may differ in the proposals they accept.
wasm_module_t* wasm_module_obtain(wasm_store_t* store, const wasm_shared_module_t* shared) {
  if (!store || !shared) return nullptr;
  wasm_byte_vec_t binary{shared->data->binary.size(),
                         reinterpret_cast<wasm_byte_t*>(const_cast<uint8_t*>(shared->data->binary.data()))};
  return compile(store, &binary);
}

}  // extern "C"
