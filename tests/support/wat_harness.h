// One module from WAT text, instantiated in its own store on a chosen tier
// (or Config), with the spectest module and two host functions in its linker:
// host.add (i32, i32) → i32, and env.host (i32), which calls `on_host` (a test
// sets it to re-enter Wasm, say). A test that needs other imports defines
// them in `linker` between the two steps: WatHarness h(config); …; h.load(wat).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "weft/weft.h"

namespace weft::test {

struct WatHarness {
  Engine engine;
  Store store{engine};
  Linker linker;
  std::optional<Instance> instance;
  std::optional<Error> instantiate_error;  // set by a failed load(…, Instantiation::MayFail)
  std::function<Result<void>(std::span<const Value>)> on_host;

  enum class Instantiation { MustSucceed, MayFail };

  explicit WatHarness(Config config);
  WatHarness(Tier tier, std::string_view wat);
  WatHarness(Config config, std::string_view wat, Instantiation expect = Instantiation::MustSucceed);
  WatHarness(const WatHarness&) = delete;
  WatHarness& operator=(const WatHarness&) = delete;

  // Parses and instantiates `wat` (a test failure if it does not parse, or —
  // with MustSucceed — does not instantiate). True when instantiated.
  bool load(std::string_view wat, Instantiation expect = Instantiation::MustSucceed);
  // The same for a module made otherwise (WasmModule::from_binary, from_ir).
  bool instantiate(const Result<WasmModule>& module, Instantiation expect = Instantiation::MustSucceed);

  // Defines a host function in `linker`.
  void define_host(std::string module, std::string name, FuncType type, HostCallback callback);

  // Calls an export (a Usage error when not instantiated or not exported).
  Result<std::vector<Value>> call(std::string_view name, std::vector<Value> args = {});
  // The first result's bits (0xDEADBEEF, and a test failure, if the call failed).
  uint64_t value(std::string_view name, std::vector<Value> args = {});
  uint32_t i32(std::string_view name, std::vector<Value> args = {}) {
    return uint32_t(value(name, std::move(args)));
  }
};

// What the store's tier statistics must say for a test run on `tier`: on the
// JIT, that it runs the JIT, compiled `compiled` functions (unless nullopt)
// and left `fallbacks` to the interpreter; on the interpreter, that it runs
// the interpreter and compiled nothing.
// A configuration on `tier` whose JIT leaves the functions named `interpreted`
// to the interpreter (Config::jit_interpreted_functions): for tests of the
// boundary between the tiers.
inline Config interpreting(Tier tier, std::vector<std::string> interpreted) {
  Config config;
  config.tier = tier;
  config.jit_interpreted_functions = std::move(interpreted);
  return config;
}

void expect_jit_counts(const Store& store, Tier tier, std::optional<uint32_t> compiled, uint32_t fallbacks);

// A failed call with this error kind and message.
void expect_trap(const Result<std::vector<Value>>& r, ErrorKind kind, const std::string& message);

}  // namespace weft::test
