// Functions of the C API: host functions (with and without an environment)
// over weft's host callbacks, reflection, and wasm_func_call.
#include "capi/objects.h"
#include "runtime/objects.h"

namespace weft::capi {
namespace {

// The C callback of a host function, with or without its environment.
struct HostCallbackTarget {
  wasm_func_callback_t plain = nullptr;
  wasm_func_callback_with_env_t with_env = nullptr;
  void* env = nullptr;

  wasm_trap_t* operator()(const wasm_val_vec_t* args, wasm_val_vec_t* results) const {
    return plain ? plain(args, results) : with_env(env, args, results);
  }
};

// Runs a C host function for weft: the arguments become C values (references
// as handles the callee borrows), the results it writes (owned by us, per
// wasm.h) become weft values, a returned trap becomes a Trap error.
Result<void> call_host(wasm_store_t* store, const HostCallbackTarget& target, const FuncType& type,
                       std::span<const Value> args, std::span<Value> results) {
  std::vector<wasm_val_t> c_args(args.size());
  for (size_t i = 0; i < args.size(); ++i) c_args[i] = c_value_of(store, args[i]);
  std::vector<wasm_val_t> c_results(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    c_results[i].kind = valkind_of(type.results[i]).value_or(WASM_EXTERNREF);
    c_results[i].of.i64 = 0;
  }
  wasm_val_vec_t arg_vec{c_args.size(), c_args.data()};
  wasm_val_vec_t result_vec{c_results.size(), c_results.data()};
  wasm_trap_t* trap = target(&arg_vec, &result_vec);
  for (wasm_val_t& v : c_args) wasm_val_delete(&v);

  Result<void> outcome;
  if (trap) {
    outcome = make_error(ErrorKind::Trap, trap->data->message);
    wasm_trap_delete(trap);
  } else {
    for (size_t i = 0; i < results.size() && outcome.ok(); ++i) {
      Result<Value> value = value_of(store, c_results[i], type.results[i]);
      if (value.ok()) results[i] = *value;
      else outcome = make_error(ErrorKind::Trap, "host function result " + std::to_string(i) + ": " + value.error().message);
    }
  }
  for (wasm_val_t& v : c_results) wasm_val_delete(&v);
  return outcome;
}

wasm_func_t* new_host_function(wasm_store_t* store, const wasm_functype_t* c_type, HostCallbackTarget target) {
  if (!store || !c_type) return nullptr;
  std::optional<FuncType> type = functype_of(c_type);
  if (!type) return nullptr;
  Extern func = store->store.create_host_function(
      *type,
      [store, target, func_type = *type](std::span<const Value> args, std::span<Value> results) {
        return call_host(store, target, func_type, args, results);
      },
      "host");
  return new_handle_as<wasm_func_t>(store->object_for(RefKind::Func, func.object));
}

}  // namespace
}  // namespace weft::capi

using namespace weft::capi;

extern "C" {

wasm_func_t* wasm_func_new(wasm_store_t* store, const wasm_functype_t* type, wasm_func_callback_t callback) {
  if (!callback) return nullptr;
  return new_host_function(store, type, HostCallbackTarget{callback, nullptr, nullptr});
}

wasm_func_t* wasm_func_new_with_env(wasm_store_t* store, const wasm_functype_t* type,
                                    wasm_func_callback_with_env_t callback, void* env, void (*finalizer)(void*)) {
  if (!callback) return nullptr;
  wasm_func_t* func = new_host_function(store, type, HostCallbackTarget{nullptr, callback, env});
  // The environment lives as long as the function: until the store is deleted.
  if (func && finalizer) store->function_environments.push_back(HostInfo{env, finalizer});
  return func;
}

wasm_functype_t* wasm_func_type(const wasm_func_t* func) {
  return func ? new_functype(store_of(func).function_type(extern_of(func))) : nullptr;
}

size_t wasm_func_param_arity(const wasm_func_t* func) {
  return func ? store_of(func).function_type(extern_of(func)).params.size() : 0;
}

size_t wasm_func_result_arity(const wasm_func_t* func) {
  return func ? store_of(func).function_type(extern_of(func)).results.size() : 0;
}

wasm_trap_t* wasm_func_call(const wasm_func_t* func, const wasm_val_vec_t* args, wasm_val_vec_t* results) {
  if (!func) return new_trap("wasm_func_call: null function");
  wasm_store_t* store = func->object->store;
  weft::Extern callee = extern_of(func);
  const weft::FuncType type = store->store.function_type(callee);
  const size_t arg_count = args ? args->size : 0;
  const size_t result_capacity = results ? results->size : 0;
  if (arg_count != type.params.size())
    return new_trap("expected " + std::to_string(type.params.size()) + " arguments, got " + std::to_string(arg_count));

  std::vector<weft::Value> values;
  values.reserve(arg_count);
  for (size_t i = 0; i < arg_count; ++i) {
    weft::Result<weft::Value> value = value_of(store, args->data[i], type.params[i]);
    if (!value.ok()) return new_trap("argument " + std::to_string(i) + ": " + value.error().message);
    values.push_back(*value);
  }
  weft::Result<std::vector<weft::Value>> returned = store->store.call(callee, values);
  if (!returned.ok()) {
    // Frames are resolved in the called function's module (traps.cc).
    auto* runtime_func = static_cast<const weft::runtime::FuncInstance*>(callee.object);
    weft::runtime::Instance* instance = runtime_func->instance;
    if (!instance) return trap_from_error(returned.error(), nullptr, nullptr);
    return trap_from_error(returned.error(), instance->module.get(), store->object_for(RefKind::Instance, instance));
  }
  // Checked only now: a call that traps produces no results, and callers
  // (the upstream trap example) pass no room for them then.
  if (result_capacity < returned->size())
    return new_trap("room for " + std::to_string(result_capacity) + " results, the function returned " +
                    std::to_string(returned->size()));
  for (size_t i = 0; i < returned->size(); ++i) results->data[i] = c_value_of(store, (*returned)[i]);
  return nullptr;
}

}  // extern "C"
