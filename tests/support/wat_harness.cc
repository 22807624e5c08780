// tests/support/wat_harness.h: a module from WAT on a chosen tier.
#include "tests/support/wat_harness.h"

#include "tests/support/exec_test.h"

namespace weft::test {

WatHarness::WatHarness(Config config) : engine(config) {
  store.define_spectest(linker);
  define_host("host", "add", FuncType{{ValType::i32(), ValType::i32()}, {ValType::i32()}},
              [](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                results[0] = Value::i32(args[0].as_i32() + args[1].as_i32());
                return {};
              });
  define_host("env", "host", FuncType{{ValType::i32()}, {}},
              [this](std::span<const Value> args, std::span<Value>) -> Result<void> {
                return on_host ? on_host(args) : Result<void>{};
              });
}

WatHarness::WatHarness(Tier tier, std::string_view wat) : WatHarness(tier_config(tier)) { load(wat); }

WatHarness::WatHarness(Config config, std::string_view wat, Instantiation expect) : WatHarness(config) {
  load(wat, expect);
}

bool WatHarness::load(std::string_view wat, Instantiation expect) {
  return instantiate(WasmModule::from_text(engine, wat), expect);
}

bool WatHarness::instantiate(const Result<WasmModule>& module, Instantiation expect) {
  EXPECT_TRUE(module.ok()) << module.error().to_string();
  if (!module.ok()) return false;
  auto inst = store.instantiate(*module, linker);
  if (expect == Instantiation::MustSucceed) {
    EXPECT_TRUE(inst.ok()) << inst.error().to_string() << inst.error().detail;
  }
  if (!inst.ok()) {
    instantiate_error = inst.error();
    return false;
  }
  instance = *inst;
  return true;
}

void WatHarness::define_host(std::string module, std::string name, FuncType type, HostCallback callback) {
  const std::string debug_name = module + "." + name;
  linker.define(std::move(module), std::move(name),
                store.create_host_function(std::move(type), std::move(callback), debug_name));
}

Result<std::vector<Value>> WatHarness::call(std::string_view name, std::vector<Value> args) {
  if (!instance) return make_error(ErrorKind::Usage, "not instantiated");
  auto f = instance->get_export(name);
  if (!f) return make_error(ErrorKind::Usage, "no export");
  return store.call(*f, args);
}

uint64_t WatHarness::value(std::string_view name, std::vector<Value> args) {
  auto r = call(name, std::move(args));
  EXPECT_TRUE(r.ok()) << name << ": " << r.error().to_string() << r.error().detail;
  return r.ok() && !r->empty() ? (*r)[0].as_i64() : 0xDEADBEEF;
}

void expect_jit_counts(const Store& store, Tier tier, std::optional<uint32_t> compiled, uint32_t fallbacks) {
  const TierStats stats = store.tier_stats();
  EXPECT_EQ(stats.tier, tier);
  if (tier != Tier::Jit) {
    EXPECT_EQ(stats.jit_compiled, 0u);
    EXPECT_EQ(stats.jit_fallbacks, 0u);
    return;
  }
  if (compiled) {
    EXPECT_EQ(stats.jit_compiled, *compiled);
  }
  EXPECT_EQ(stats.jit_fallbacks, fallbacks);
}

void expect_trap(const Result<std::vector<Value>>& r, ErrorKind kind, const std::string& message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, kind) << r.error().to_string();
  EXPECT_EQ(r.error().message, message);
}

}  // namespace weft::test
