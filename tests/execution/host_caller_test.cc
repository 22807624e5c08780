// weft::Caller: a host function created with a HostCallbackWithCaller learns
// which instance's code called it — so it can read that instance's memory,
// as a WASI implementation must — however the call was made (a direct call,
// call_indirect, return_call, call_ref, return_call_ref, inside a fiber), and
// that nobody did when the embedder calls it itself. Run on every tier
// (lazily compiled by default; eagerly too).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tests/support/exec_test.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

WEFT_EXEC_SUITE(HostCaller);

// Each instance stores its own marker at address 0 (the `init` argument),
// then reaches env.peek — which reads the caller's memory at 0 — every way.
constexpr const char* kModule = R"((module
  (type $g (fiber (result i32)))
  (type $peek_t (func (result i32)))
  (import "env" "peek" (func $peek (result i32)))
  (memory (export "memory") 1)
  (table funcref (elem $peek))
  (func (export "init") (param i32) (i32.store (i32.const 0) (local.get 0)))
  (func (export "direct") (result i32) (call $peek))
  (func (export "indirect") (result i32) (call_indirect (type $peek_t) (i32.const 0)))
  (func (export "tail") (result i32) (return_call $peek))
  (elem declare func $peek)
  (func (export "by-reference") (result i32) (call_ref $peek_t (ref.func $peek)))
  (func (export "tail-by-reference") (result i32) (return_call_ref $peek_t (ref.func $peek)))
  (func $in_fiber (param $self (ref $g)) (result i32) (call $peek))
  (func (export "fiber") (result i32) (fiber.spawn $in_fiber))
))";

struct CallerHarness {
  Engine engine;
  Store store;
  Linker linker;
  std::optional<Instance> a, b;
  int calls_without_caller = 0;

  explicit CallerHarness(Config config) : engine(config), store(engine) {
    Extern peek = store.create_host_function(
        FuncType{{}, {ValType::i32()}},
        [this](const Caller& caller, std::span<const Value>, std::span<Value> results) -> Result<void> {
          std::optional<Extern> memory = caller.get_export("memory");
          if (!memory) {
            ++calls_without_caller;
            results[0] = Value::i32(-1);
            return {};
          }
          uint8_t bytes[4];
          WEFT_TRY(store.memory_read(*memory, 0, bytes));
          int32_t marker;
          std::memcpy(&marker, bytes, 4);
          results[0] = Value::i32(marker);
          return {};
        },
        "peek");
    linker.define("env", "peek", peek);
    auto module = WasmModule::from_text(engine, kModule);
    EXPECT_TRUE(module.ok()) << module.error().to_string();
    if (!module.ok()) return;
    for (std::optional<Instance>* slot : {&a, &b}) {
      auto instance = store.instantiate(*module, linker);
      EXPECT_TRUE(instance.ok()) << instance.error().to_string();
      if (instance.ok()) *slot = *instance;
    }
  }

  int32_t call(const std::optional<Instance>& instance, const char* name, std::vector<Value> args = {}) {
    auto r = store.call(*instance->get_export(name), args);
    EXPECT_TRUE(r.ok()) << name << ": " << r.error().to_string();
    return r.ok() && !r->empty() ? int32_t((*r)[0].as_i64()) : 0;
  }
};

void expect_each_caller_seen(Config config) {
  CallerHarness h(config);
  ASSERT_TRUE(h.a && h.b);
  h.call(h.a, "init", {Value::i32(111)});
  h.call(h.b, "init", {Value::i32(222)});
  for (const char* way : {"direct", "indirect", "tail", "by-reference", "tail-by-reference", "fiber"}) {
    EXPECT_EQ(h.call(h.a, way), 111) << way;
    EXPECT_EQ(h.call(h.b, way), 222) << way;
  }
  EXPECT_EQ(h.calls_without_caller, 0);
  // Called by the embedder: no caller, even right after Wasm calls.
  auto r = h.store.call(*h.linker.find("env", "peek"), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(int32_t((*r)[0].as_i64()), -1);
  EXPECT_EQ(h.calls_without_caller, 1);
}

WEFT_EXEC_TEST(HostCaller, EachCallSeesTheInstanceThatMadeIt) { expect_each_caller_seen(config()); }

WEFT_EXEC_TEST(HostCaller, EachCallSeesTheInstanceThatMadeItCompiledEagerly) { expect_each_caller_seen(eager_config()); }

}  // namespace
}  // namespace weft
