/* weft's extensions to the standard WebAssembly C API (wasm.h): what wasm.h
 * leaves to the engine. Configuration goes through wasm_config_t, as in
 * wasmtime's wasmtime_config_* functions; include the upstream wasm.h first
 * (this header uses its types). Link with weft_capi. */
#ifndef WEFT_WEFT_C_H
#define WEFT_WEFT_C_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which tier runs the code of an engine's stores. The default is the JIT
 * where this build and machine have one (x86-64), otherwise the interpreter.
 * The environment variable WEFT_TIER ("interpreter" or "jit") overrides the
 * default of every new config (wasm_engine_new included), so unmodified
 * programs can be run on either tier; weft_config_set_tier overrides both. */
typedef uint8_t weft_tier_t;
enum weft_tier_enum {
  WEFT_TIER_INTERPRETER,
  WEFT_TIER_JIT,
};
void weft_config_set_tier(wasm_config_t*, weft_tier_t);

/* Execution budget ("fuel"), 0 = unmetered (the default). Each store starts
 * with this much; running out traps with "all fuel consumed". */
void weft_config_set_fuel(wasm_config_t*, uint64_t fuel);
/* Resource limits: the largest memory (64 KiB pages) and table (elements) a
 * module may create or grow to, and the Wasm call depth. */
void weft_config_set_max_memory_pages(wasm_config_t*, uint64_t pages);
void weft_config_set_max_table_elements(wasm_config_t*, uint64_t elements);
void weft_config_set_max_call_depth(wasm_config_t*, uint32_t depth);
/* Proposals: SIMD, and weft's fiber extension (docs/fibers.md) with the
 * address space reserved per fiber and the most fibers alive at once. */
void weft_config_set_simd(wasm_config_t*, bool enable);
void weft_config_set_fibers(wasm_config_t*, bool enable);
void weft_config_set_fiber_stack_size(wasm_config_t*, uint64_t bytes);
void weft_config_set_max_fibers(wasm_config_t*, uint64_t fibers);

/* Fuel of a store: false when metering is off (the config's fuel was 0). */
bool weft_store_fuel_remaining(const wasm_store_t*, uint64_t* out);
bool weft_store_set_fuel(wasm_store_t*, uint64_t fuel);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_WEFT_C_H */
