/* weft's C extension (include/weft/weft_c.h) and the C API's answers to
 * misuse it can detect: fuel stops an endless loop with a trap, a store
 * without metering says so, and wrong calls come back as traps or nulls
 * instead of crashes. Exits non-zero at the first check that fails. */
#include <stdio.h>
#include <string.h>

#include "wasm.h"
#include "weft/weft_c.h"

static int failures = 0;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

/* (module (func (export "loop") (loop (br 0)))) */
static const unsigned char kLoopModule[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,                   /* header */
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,                               /* type: [] -> [] */
    0x03, 0x02, 0x01, 0x00,                                           /* func 0: type 0 */
    0x07, 0x08, 0x01, 0x04, 'l', 'o', 'o', 'p', 0x00, 0x00,           /* export "loop" */
    0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, /* loop br 0 end end */
};

static wasm_trap_t* call_loop(wasm_store_t* store, wasm_module_t* module) {
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_instance_t* instance = wasm_instance_new(store, module, &imports, NULL);
  check(instance != NULL, "instantiate the loop module");
  if (!instance) return NULL;
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_val_vec_t none = WASM_EMPTY_VEC;
  wasm_trap_t* trap = wasm_func_call(wasm_extern_as_func(exports.data[0]), &none, &none);
  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  return trap;
}

static void test_fuel(weft_tier_t tier) {
  wasm_config_t* config = wasm_config_new();
  weft_config_set_tier(config, tier);
  weft_config_set_fuel(config, 10000);
  wasm_engine_t* engine = wasm_engine_new_with_config(config);
  wasm_store_t* store = wasm_store_new(engine);
  wasm_byte_vec_t binary;
  wasm_byte_vec_new(&binary, sizeof kLoopModule, (const wasm_byte_t*)kLoopModule);
  wasm_module_t* module = wasm_module_new(store, &binary);
  check(module != NULL, "compile the loop module");

  uint64_t fuel = 0;
  check(weft_store_fuel_remaining(store, &fuel) && fuel == 10000, "a metered store starts with the configured fuel");
  wasm_trap_t* trap = call_loop(store, module);
  check(trap != NULL, "running out of fuel traps");
  if (trap) {
    wasm_message_t message;
    wasm_trap_message(trap, &message);
    check(strcmp(message.data, "all fuel consumed") == 0, "the out-of-fuel trap says so");
    wasm_byte_vec_delete(&message);
    wasm_frame_t* origin = wasm_trap_origin(trap);
    check(origin != NULL && wasm_frame_func_index(origin) == 0, "the trap's origin is function 0");
    wasm_frame_delete(origin);
    wasm_trap_delete(trap);
  }
  check(weft_store_set_fuel(store, 5) && weft_store_fuel_remaining(store, &fuel) && fuel == 5, "refuelling");

  wasm_module_delete(module);
  wasm_byte_vec_delete(&binary);
  wasm_store_delete(store);
  wasm_engine_delete(engine);
}

static void test_misuse(void) {
  wasm_engine_t* engine = wasm_engine_new();
  wasm_store_t* store = wasm_store_new(engine);
  uint64_t fuel = 0;
  check(!weft_store_fuel_remaining(store, &fuel), "an unmetered store has no fuel");
  check(!weft_store_set_fuel(store, 1), "an unmetered store cannot be refuelled");

  wasm_byte_vec_t garbage;
  wasm_byte_vec_new(&garbage, 4, "\1\2\3\4");
  check(!wasm_module_validate(store, &garbage), "garbage does not validate");
  check(wasm_module_new(store, &garbage) == NULL, "garbage does not compile");
  wasm_byte_vec_delete(&garbage);

  /* A host function called with the wrong number of arguments. */
  wasm_functype_t* type = wasm_functype_new_1_0(wasm_valtype_new_i32());
  wasm_func_t* func = wasm_func_new(store, type, NULL);
  check(func == NULL, "a host function needs a callback");
  wasm_functype_delete(type);

  wasm_byte_vec_t binary;
  wasm_byte_vec_new(&binary, sizeof kLoopModule, (const wasm_byte_t*)kLoopModule);
  wasm_module_t* module = wasm_module_new(store, &binary);
  wasm_byte_vec_delete(&binary);
  wasm_extern_vec_t imports = WASM_EMPTY_VEC;
  wasm_instance_t* instance = wasm_instance_new(store, module, &imports, NULL);
  wasm_extern_vec_t exports;
  wasm_instance_exports(instance, &exports);
  wasm_val_t one = WASM_I32_VAL(1);
  wasm_val_vec_t args = {1, &one};
  wasm_val_vec_t none = WASM_EMPTY_VEC;
  wasm_trap_t* trap = wasm_func_call(wasm_extern_as_func(exports.data[0]), &args, &none);
  check(trap != NULL, "too many arguments trap");
  wasm_trap_delete(trap);
  check(wasm_extern_as_memory(exports.data[0]) == NULL, "a function is not a memory");

  /* Instantiation with imports the module does not have. */
  wasm_extern_t* extra[] = {exports.data[0]};
  wasm_extern_vec_t too_many = WASM_ARRAY_VEC(extra);
  wasm_trap_t* link_error = NULL;
  check(wasm_instance_new(store, module, &too_many, &link_error) == NULL && link_error != NULL,
        "a wrong import count is a trap");
  wasm_trap_delete(link_error);

  wasm_extern_vec_delete(&exports);
  wasm_instance_delete(instance);
  wasm_module_delete(module);
  wasm_store_delete(store);
  wasm_engine_delete(engine);
}

int main(void) {
  test_fuel(WEFT_TIER_INTERPRETER);
  test_fuel(WEFT_TIER_JIT);
  test_misuse();
  if (failures == 0) printf("weft_c: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
