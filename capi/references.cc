// Reference handles: creation, copy, identity, host info and the casts
// between wasm_ref_t and its kinds; values (wasm_val_t) and foreign objects.
#include "capi/objects.h"

namespace weft::capi {

wasm_ref_t* new_handle(StoreObject* object) {
  wasm_ref_t* ref = nullptr;
  switch (object->kind) {
    case RefKind::Func: ref = new wasm_func_t; break;
    case RefKind::Global: ref = new wasm_global_t; break;
    case RefKind::Table: ref = new wasm_table_t; break;
    case RefKind::Memory: ref = new wasm_memory_t; break;
    case RefKind::Instance: ref = new wasm_instance_t; break;
    case RefKind::Foreign: ref = new wasm_foreign_t; break;
    case RefKind::Trap:
    case RefKind::Module: return nullptr;  // not store objects
  }
  ref->kind = object->kind;
  ref->object = object;
  return ref;
}

void delete_handle(wasm_ref_t* ref) {
  if (!ref) return;
  switch (ref->kind) {
    case RefKind::Func: delete static_cast<wasm_func_t*>(ref); return;
    case RefKind::Global: delete static_cast<wasm_global_t*>(ref); return;
    case RefKind::Table: delete static_cast<wasm_table_t*>(ref); return;
    case RefKind::Memory: delete static_cast<wasm_memory_t*>(ref); return;
    case RefKind::Instance: delete static_cast<wasm_instance_t*>(ref); return;
    case RefKind::Foreign: delete static_cast<wasm_foreign_t*>(ref); return;
    case RefKind::Trap: delete static_cast<wasm_trap_t*>(ref); return;
    case RefKind::Module: delete static_cast<wasm_module_t*>(ref); return;
  }
}

namespace {

wasm_ref_t* copy_handle(const wasm_ref_t* ref) {
  if (!ref) return nullptr;
  switch (ref->kind) {
    case RefKind::Trap: {
      auto* copy = new wasm_trap_t;
      copy->kind = RefKind::Trap;
      copy->data = static_cast<const wasm_trap_t*>(ref)->data;
      return copy;
    }
    case RefKind::Module: {
      auto* copy = new wasm_module_t;
      copy->kind = RefKind::Module;
      copy->data = static_cast<const wasm_module_t*>(ref)->data;
      return copy;
    }
    default: return new_handle(ref->object);
  }
}

// The entity a handle stands for: what wasm_*_same compares.
const void* identity(const wasm_ref_t* ref) {
  switch (ref->kind) {
    case RefKind::Trap: return static_cast<const wasm_trap_t*>(ref)->data.get();
    case RefKind::Module: return static_cast<const wasm_module_t*>(ref)->data.get();
    default: return ref->object;
  }
}

HostInfo* host_info(const wasm_ref_t* ref) {
  switch (ref->kind) {
    case RefKind::Trap: return &static_cast<const wasm_trap_t*>(ref)->data->host_info;
    case RefKind::Module: return &static_cast<const wasm_module_t*>(ref)->data->host_info;
    default: return &ref->object->host_info;
  }
}

}  // namespace

Extern extern_of(const wasm_ref_t* ref) {
  switch (ref->kind) {
    case RefKind::Func: return Extern{ExternKind::Func, ref->object->runtime_object};
    case RefKind::Global: return Extern{ExternKind::Global, ref->object->runtime_object};
    case RefKind::Table: return Extern{ExternKind::Table, ref->object->runtime_object};
    case RefKind::Memory: return Extern{ExternKind::Memory, ref->object->runtime_object};
    default: return Extern{ExternKind::Func, nullptr};
  }
}

weft::Store& store_of(const wasm_ref_t* ref) { return ref->object->store->store; }

TrapData::~TrapData() {
  if (host_info.finalizer) host_info.finalizer(host_info.info);
}

ModuleData::~ModuleData() {
  if (host_info.finalizer) host_info.finalizer(host_info.info);
}

// ---- Values ------------------------------------------------------------------------

Result<Value> value_of(wasm_store_t* store, const wasm_val_t& value, ValType type) {
  std::optional<ValType> given = valtype_of(value.kind);
  if (!given || given->kind != type.kind)
    return make_error(ErrorKind::Usage, "value of kind " + std::to_string(value.kind) + " where " + to_string(type) +
                                            " is expected");
  switch (type.kind) {
    case ValType::I32: return Value::i32(uint32_t(value.of.i32));
    case ValType::I64: return Value::i64(uint64_t(value.of.i64));
    case ValType::F32: return Value::f32(value.of.f32);
    case ValType::F64: return Value::f64(value.of.f64);
    default: break;
  }
  const wasm_ref_t* ref = value.of.ref;
  if (!ref) return Value::null_ref(type);
  if (ref->kind == RefKind::Trap || ref->kind == RefKind::Module)
    return make_error(ErrorKind::Usage, "traps and modules cannot be passed as references");
  if (ref->object->store != store) return make_error(ErrorKind::Usage, "reference from another store");
  if (type.kind == ValType::FuncRef) {
    if (ref->kind != RefKind::Func) return make_error(ErrorKind::Usage, "funcref value that is not a function");
    uint64_t slot = reinterpret_cast<uintptr_t>(ref->object->runtime_object);
    return Value::from_raw(type, &slot);
  }
  // An externref carries its StoreObject: host info and identity survive the trip.
  return Value::extern_ref(reinterpret_cast<uintptr_t>(ref->object));
}

wasm_val_t c_value_of(wasm_store_t* store, const Value& value) {
  wasm_val_t out;
  out.kind = valkind_of(value.type()).value_or(WASM_EXTERNREF);
  switch (value.type().kind) {
    case ValType::I32: out.of.i32 = int32_t(value.as_i32()); return out;
    case ValType::I64: out.of.i64 = int64_t(value.as_i64()); return out;
    case ValType::F32: out.of.f32 = value.as_f32(); return out;
    case ValType::F64: out.of.f64 = value.as_f64(); return out;
    case ValType::FuncRef:
      out.of.ref = value.is_null() ? nullptr
                                   : new_handle(store->object_for(RefKind::Func, reinterpret_cast<void*>(value.raw()[0])));
      return out;
    case ValType::ExternRef:
      // Every non-null externref in a C API store came from value_of.
      out.of.ref = value.is_null() ? nullptr : new_handle(reinterpret_cast<StoreObject*>(value.extern_value()));
      return out;
    default:
      out.of.ref = nullptr;  // not representable in wasm.h (v128, fiber references)
      return out;
  }
}

}  // namespace weft::capi

using namespace weft::capi;

#define WEFT_CAPI_REF_BASE(name)                                                                              \
  extern "C" void wasm_##name##_delete(wasm_##name##_t* ref) { delete_handle(ref); }                          \
  extern "C" wasm_##name##_t* wasm_##name##_copy(const wasm_##name##_t* ref) {                                \
    return static_cast<wasm_##name##_t*>(copy_handle(ref));                                                   \
  }                                                                                                           \
  extern "C" bool wasm_##name##_same(const wasm_##name##_t* a, const wasm_##name##_t* b) {                    \
    return a && b ? identity(a) == identity(b) : a == b;                                                      \
  }                                                                                                           \
  extern "C" void* wasm_##name##_get_host_info(const wasm_##name##_t* ref) {                                  \
    return ref ? host_info(ref)->info : nullptr;                                                              \
  }                                                                                                           \
  extern "C" void wasm_##name##_set_host_info(wasm_##name##_t* ref, void* info) {                             \
    if (ref) *host_info(ref) = HostInfo{info, nullptr};                                                       \
  }                                                                                                           \
  extern "C" void wasm_##name##_set_host_info_with_finalizer(wasm_##name##_t* ref, void* info,                \
                                                             void (*finalizer)(void*)) {                      \
    if (ref) *host_info(ref) = HostInfo{info, finalizer};                                                     \
  }

// The casts to and from wasm_ref_t; a downcast of another kind is null.
#define WEFT_CAPI_REF(name, Kind)                                                                             \
  WEFT_CAPI_REF_BASE(name)                                                                                    \
  extern "C" wasm_ref_t* wasm_##name##_as_ref(wasm_##name##_t* ref) { return ref; }                           \
  extern "C" const wasm_ref_t* wasm_##name##_as_ref_const(const wasm_##name##_t* ref) { return ref; }         \
  extern "C" wasm_##name##_t* wasm_ref_as_##name(wasm_ref_t* ref) {                                           \
    return ref && ref->kind == RefKind::Kind ? static_cast<wasm_##name##_t*>(ref) : nullptr;                  \
  }                                                                                                           \
  extern "C" const wasm_##name##_t* wasm_ref_as_##name##_const(const wasm_ref_t* ref) {                       \
    return ref && ref->kind == RefKind::Kind ? static_cast<const wasm_##name##_t*>(ref) : nullptr;            \
  }

WEFT_CAPI_REF_BASE(ref)
WEFT_CAPI_REF(trap, Trap)
WEFT_CAPI_REF(foreign, Foreign)
WEFT_CAPI_REF(module, Module)
WEFT_CAPI_REF(func, Func)
WEFT_CAPI_REF(global, Global)
WEFT_CAPI_REF(table, Table)
WEFT_CAPI_REF(memory, Memory)
WEFT_CAPI_REF(instance, Instance)

// Externs: a ref of any of the four extern kinds.
WEFT_CAPI_REF_BASE(extern)

namespace {
bool is_extern(const wasm_ref_t* ref) {
  return ref && (ref->kind == RefKind::Func || ref->kind == RefKind::Global || ref->kind == RefKind::Table ||
                 ref->kind == RefKind::Memory);
}
}  // namespace

extern "C" {

wasm_ref_t* wasm_extern_as_ref(wasm_extern_t* ext) { return ext; }
const wasm_ref_t* wasm_extern_as_ref_const(const wasm_extern_t* ext) { return ext; }
wasm_extern_t* wasm_ref_as_extern(wasm_ref_t* ref) { return is_extern(ref) ? static_cast<wasm_extern_t*>(ref) : nullptr; }
const wasm_extern_t* wasm_ref_as_extern_const(const wasm_ref_t* ref) {
  return is_extern(ref) ? static_cast<const wasm_extern_t*>(ref) : nullptr;
}

// ---- Values ------------------------------------------------------------------------

void wasm_val_delete(wasm_val_t* value) {
  if (value && wasm_valkind_is_ref(value->kind) && value->of.ref) {
    wasm_ref_delete(value->of.ref);
    value->of.ref = nullptr;
  }
}

void wasm_val_copy(wasm_val_t* out, const wasm_val_t* value) {
  *out = *value;
  if (wasm_valkind_is_ref(value->kind)) out->of.ref = wasm_ref_copy(value->of.ref);
}

// ---- Foreign objects -----------------------------------------------------------------

wasm_foreign_t* wasm_foreign_new(wasm_store_t* store) {
  return store ? static_cast<wasm_foreign_t*>(new_handle(store->new_foreign())) : nullptr;
}

}  // extern "C"
