// The objects behind the standard C API's opaque types (wasm.h): what each
// handle points to, who owns what, and the conversions between the C API's
// values and types and weft's C++ API (include/weft/weft.h).
//
// Ownership model. Every runtime entity (function, global, table, memory,
// instance, foreign object) belongs to its store and lives until the store is
// deleted, as in weft::Store. The C API hands out *handles* to them: a handle
// is a small heap object that `wasm_*_delete` frees and `wasm_*_copy`
// duplicates; deleting a handle never frees the entity. Host info belongs to
// the entity (a copy sees the same), so its finalizer runs when the entity
// dies: when its store is deleted, in the order the entities were first seen.
// Types, vectors, traps, frames and modules are plain owned values: their
// `_delete` frees them (a module's host info finalizer runs when its last
// handle, shared copies included, is deleted).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "wasm.h"
#include "weft/weft.h"

namespace weft::capi {

// What a reference handle refers to (the dynamic type behind wasm_ref_t).
enum class RefKind : uint8_t { Func, Global, Table, Memory, Instance, Foreign, Trap, Module };

// Host info and its finalizer (wasm_*_set_host_info_with_finalizer).
struct HostInfo {
  void* info = nullptr;
  void (*finalizer)(void*) = nullptr;
};

// A store-owned entity as the C API knows it. `runtime_object` is the
// weft::Extern object (FuncInstance*, ...), the runtime::Instance* of an
// instance, or null for a foreign object. An externref value that carries a
// C API reference holds the address of its StoreObject.
struct StoreObject {
  RefKind kind = RefKind::Foreign;
  void* runtime_object = nullptr;
  wasm_store_t* store = nullptr;
  HostInfo host_info;
};

// A trap: its message (without the terminating NUL) and its frames.
struct Frame {
  StoreObject* instance = nullptr;  // null when the instance is not known (a start function's trap)
  uint32_t function_index = 0;
  size_t function_offset = 0;
  size_t module_offset = 0;
};
struct TrapData {
  std::string message;
  std::vector<Frame> frames;  // innermost first
  HostInfo host_info;
  ~TrapData();
};

// A compiled module, shared by handles, copies and wasm_shared_module_t.
struct ModuleData {
  WasmModule module;
  std::vector<uint8_t> binary;  // what wasm_module_serialize returns
  HostInfo host_info;
  ~ModuleData();
};

}  // namespace weft::capi

// ---- The opaque C types --------------------------------------------------------

struct wasm_config_t {
  weft::Config config;
};

struct wasm_engine_t {
  weft::Engine engine;
};

struct wasm_store_t {
  explicit wasm_store_t(const weft::Engine& engine) : store(engine) {}
  ~wasm_store_t();
  weft::Store store;
  // Every entity handed out through the C API, in first-seen order (the
  // order finalizers run in), and the lookup from its runtime object.
  std::deque<weft::capi::StoreObject> objects;
  std::unordered_map<const void*, weft::capi::StoreObject*> by_runtime_object;
  // Environments of functions made with wasm_func_new_with_env.
  std::vector<weft::capi::HostInfo> function_environments;

  // The StoreObject for a runtime entity, created on first sight.
  weft::capi::StoreObject* object_for(weft::capi::RefKind kind, void* runtime_object);
  weft::capi::StoreObject* new_foreign();
};

// Reference handles. All share wasm_ref_t's layout so that the wasm.h casts
// (wasm_func_as_extern, wasm_extern_as_func, wasm_ref_as_foreign, ...) are
// pointer conversions; `kind` says which one a handle really is.
struct wasm_ref_t {
  weft::capi::RefKind kind = weft::capi::RefKind::Foreign;
  weft::capi::StoreObject* object = nullptr;  // store-owned kinds
};
struct wasm_extern_t : wasm_ref_t {};
struct wasm_func_t : wasm_extern_t {};
struct wasm_global_t : wasm_extern_t {};
struct wasm_table_t : wasm_extern_t {};
struct wasm_memory_t : wasm_extern_t {};
struct wasm_instance_t : wasm_ref_t {};
struct wasm_foreign_t : wasm_ref_t {};
struct wasm_trap_t : wasm_ref_t {
  std::shared_ptr<weft::capi::TrapData> data;
};
struct wasm_module_t : wasm_ref_t {
  std::shared_ptr<weft::capi::ModuleData> data;
};
struct wasm_shared_module_t {
  std::shared_ptr<weft::capi::ModuleData> data;
};

struct wasm_frame_t {
  weft::capi::Frame frame;
  wasm_instance_t* instance = nullptr;  // an owned handle on frame.instance (what wasm_frame_instance returns)
};

// Types. The extern types share wasm_externtype_t's layout for the same reason.
struct wasm_valtype_t {
  wasm_valkind_t kind = WASM_I32;
};
struct wasm_externtype_t {
  wasm_externkind_t kind = WASM_EXTERN_FUNC;
};
struct wasm_functype_t : wasm_externtype_t {
  wasm_valtype_vec_t params{0, nullptr};
  wasm_valtype_vec_t results{0, nullptr};
};
struct wasm_globaltype_t : wasm_externtype_t {
  wasm_valtype_t* content = nullptr;
  wasm_mutability_t mutability = WASM_CONST;
};
struct wasm_tabletype_t : wasm_externtype_t {
  wasm_valtype_t* element = nullptr;
  wasm_limits_t limits{0, 0xffffffffu};
};
struct wasm_memorytype_t : wasm_externtype_t {
  wasm_limits_t limits{0, 0xffffffffu};
};
struct wasm_importtype_t {
  wasm_name_t module{0, nullptr};
  wasm_name_t name{0, nullptr};
  wasm_externtype_t* type = nullptr;
};
struct wasm_exporttype_t {
  wasm_name_t name{0, nullptr};
  wasm_externtype_t* type = nullptr;
};

namespace weft::capi {

// ---- Handles -------------------------------------------------------------------

// A new handle of the kind's C type on a store object.
wasm_ref_t* new_handle(StoreObject* object);
template <class Handle>
Handle* new_handle_as(StoreObject* object) {
  return static_cast<Handle*>(new_handle(object));
}
// Frees a handle of any kind (wasm_ref_delete and every typed delete).
void delete_handle(wasm_ref_t* ref);

// The weft::Extern of an extern handle (Func/Global/Table/Memory).
Extern extern_of(const wasm_ref_t* ref);
weft::Store& store_of(const wasm_ref_t* ref);

// ---- Types ---------------------------------------------------------------------

// The C value kind of a weft type; nothing for types wasm.h cannot name (v128,
// the fiber extension's references).
std::optional<wasm_valkind_t> valkind_of(ValType type);
std::optional<ValType> valtype_of(wasm_valkind_t kind);

wasm_functype_t* new_functype(const FuncType& type);
wasm_globaltype_t* new_globaltype(const GlobalType& type);
wasm_tabletype_t* new_tabletype(const TableType& type);
wasm_memorytype_t* new_memorytype(const MemoryType& type);
// Nothing if the C type names a kind weft does not have.
std::optional<FuncType> functype_of(const wasm_functype_t* type);
Limits limits_of(const wasm_limits_t& limits);

// ---- Values --------------------------------------------------------------------

// A C value as a weft value of `type` (refs: funcref needs a function of
// `store`, externref carries any reference of `store`); an Error if the kinds
// differ or the reference belongs to another store.
Result<Value> value_of(wasm_store_t* store, const wasm_val_t& value, ValType type);
// A weft value as a C value; references come back as new owned handles.
wasm_val_t c_value_of(wasm_store_t* store, const Value& value);

// ---- Traps ---------------------------------------------------------------------

wasm_trap_t* new_trap(std::string message, std::vector<Frame> frames = {});
// A trap from a weft error: its message, and the frames of its backtrace
// resolved in `module` (and, when known, `instance`'s store object).
wasm_trap_t* trap_from_error(const Error& error, const Module* module, StoreObject* instance);

// A byte vector holding `text` (plus a terminating NUL if `nul_terminated`).
void new_name(wasm_name_t* out, std::string_view text, bool nul_terminated = false);

}  // namespace weft::capi
