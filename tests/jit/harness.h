// The JIT tests' harness (execution_test.cc, fiber_test.cc): one module from
// WAT text, instantiated in its own store with the spectest module and two
// host functions — host.add (i32, i32) → i32, and env.host (i32), which calls
// `on_host` (a test sets it to re-enter Wasm, say).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "weft/weft.h"

namespace weft::jit_test {

inline Config tier_config(Tier tier) {
  Config config;
  config.tier = tier;
  return config;
}

struct Harness {
  Engine engine;
  Store store{engine};
  Linker linker;
  std::optional<Instance> instance;
  std::function<Result<void>(std::span<const Value>)> on_host;

  explicit Harness(std::string_view wat, Tier tier = Tier::Jit) : Harness(wat, tier_config(tier)) {}
  Harness(std::string_view wat, Config config) : engine(config) {
    store.define_spectest(linker);
    linker.define("host", "add",
                  store.create_host_function(
                      FuncType{{ValType::i32(), ValType::i32()}, {ValType::i32()}},
                      [](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                        results[0] = Value::i32(args[0].as_i32() + args[1].as_i32());
                        return {};
                      },
                      "host_add"));
    linker.define("env", "host",
                  store.create_host_function(
                      FuncType{{ValType::i32()}, {}},
                      [this](std::span<const Value> args, std::span<Value>) -> Result<void> {
                        return on_host ? on_host(args) : Result<void>{};
                      },
                      "host"));
    auto module = WasmModule::from_text(engine, wat);
    EXPECT_TRUE(module.ok()) << module.error().to_string();
    if (!module.ok()) return;
    auto inst = store.instantiate(*module, linker);
    EXPECT_TRUE(inst.ok()) << inst.error().to_string();
    if (inst.ok()) instance = *inst;
  }
  Result<std::vector<Value>> call(std::string_view name, std::vector<Value> args = {}) {
    auto f = instance->get_export(name);
    if (!f) return make_error(ErrorKind::Usage, "no export");
    return store.call(*f, args);
  }
  // The first result's bits (0xDEADBEEF, and a test failure, if the call failed).
  uint64_t value(std::string_view name, std::vector<Value> args = {}) {
    auto r = call(name, std::move(args));
    EXPECT_TRUE(r.ok()) << r.error().to_string() << r.error().detail;
    return r.ok() && !r->empty() ? (*r)[0].as_i64() : 0xDEADBEEF;
  }
};

}  // namespace weft::jit_test
