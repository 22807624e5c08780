// Configuration, engines and stores of the C API, weft's configuration
// extension (include/weft/weft_c.h), and the store's registry of entities.
#include <cstdlib>
#include <cstring>

#include "capi/objects.h"
#include "weft/weft_c.h"

// ---- The store's entities --------------------------------------------------------

weft::capi::StoreObject* wasm_store_t::object_for(weft::capi::RefKind kind, void* runtime_object) {
  auto [it, inserted] = by_runtime_object.try_emplace(runtime_object, nullptr);
  if (inserted) {
    weft::capi::StoreObject& object = objects.emplace_back();
    object.kind = kind;
    object.runtime_object = runtime_object;
    object.store = this;
    it->second = &object;
  }
  return it->second;
}

weft::capi::StoreObject* wasm_store_t::new_foreign() {
  weft::capi::StoreObject& object = objects.emplace_back();
  object.kind = weft::capi::RefKind::Foreign;
  object.store = this;
  return &object;
}

wasm_store_t::~wasm_store_t() {
  // Every entity dies with the store: its host info is finalized first, then
  // the environments of the host functions (weft::Store frees the rest).
  for (weft::capi::StoreObject& object : objects)
    if (object.host_info.finalizer) object.host_info.finalizer(object.host_info.info);
  for (weft::capi::HostInfo& env : function_environments)
    if (env.finalizer) env.finalizer(env.info);
}

namespace {

// The default configuration: weft's, with the tier from WEFT_TIER if set.
weft::Config default_config() {
  weft::Config config;
  if (const char* tier = std::getenv("WEFT_TIER")) {
    if (std::strcmp(tier, "interpreter") == 0 || std::strcmp(tier, "interp") == 0) config.tier = weft::Tier::Interpreter;
    if (std::strcmp(tier, "jit") == 0) config.tier = weft::Tier::Jit;
  }
  return config;
}

}  // namespace

extern "C" {

// ---- Configuration -----------------------------------------------------------------

wasm_config_t* wasm_config_new(void) { return new wasm_config_t{default_config()}; }
void wasm_config_delete(wasm_config_t* config) { delete config; }

void weft_config_set_tier(wasm_config_t* config, weft_tier_t tier) {
  config->config.tier = tier == WEFT_TIER_INTERPRETER ? weft::Tier::Interpreter : weft::Tier::Jit;
}
void weft_config_set_fuel(wasm_config_t* config, uint64_t fuel) { config->config.fuel = fuel; }
void weft_config_set_max_memory_pages(wasm_config_t* config, uint64_t pages) { config->config.max_memory_pages = pages; }
void weft_config_set_max_table_elements(wasm_config_t* config, uint64_t elements) {
  config->config.max_table_elements = elements;
}
void weft_config_set_max_call_depth(wasm_config_t* config, uint32_t depth) { config->config.max_call_depth = depth; }
void weft_config_set_simd(wasm_config_t* config, bool enable) { config->config.enable_simd = enable; }
void weft_config_set_fibers(wasm_config_t* config, bool enable) { config->config.enable_fibers = enable; }
void weft_config_set_fiber_stack_size(wasm_config_t* config, uint64_t bytes) { config->config.fiber_stack_size = bytes; }
void weft_config_set_max_fibers(wasm_config_t* config, uint64_t fibers) { config->config.max_fibers = fibers; }

// ---- Engines and stores --------------------------------------------------------------

wasm_engine_t* wasm_engine_new(void) { return new wasm_engine_t{weft::Engine(default_config())}; }

wasm_engine_t* wasm_engine_new_with_config(wasm_config_t* config) {
  if (!config) return wasm_engine_new();
  auto* engine = new wasm_engine_t{weft::Engine(config->config)};
  delete config;  // owned by the callee
  return engine;
}

void wasm_engine_delete(wasm_engine_t* engine) { delete engine; }

wasm_store_t* wasm_store_new(wasm_engine_t* engine) { return engine ? new wasm_store_t(engine->engine) : nullptr; }
void wasm_store_delete(wasm_store_t* store) { delete store; }

bool weft_store_fuel_remaining(const wasm_store_t* store, uint64_t* out) {
  std::optional<uint64_t> fuel = store->store.fuel_remaining();
  if (!fuel) return false;
  if (out) *out = *fuel;
  return true;
}

bool weft_store_set_fuel(wasm_store_t* store, uint64_t fuel) { return store->store.set_fuel(fuel).ok(); }

}  // extern "C"
