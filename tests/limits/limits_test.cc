// Each configured limit stops a hostile module with a clear error and never
// aborts: infinite loops (fuel), memory.grow and table.grow bombs, oversized
// memories and tables, recursion bombs, absurd local counts.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "weft/weft.h"

namespace weft {
namespace {

struct Harness {
  Engine engine;
  Store store{engine};
  Linker linker;
  std::optional<Instance> instance;
  std::optional<Error> instantiate_error;

  Harness(Config config, std::string_view wat) : engine(config) {
    auto module = WasmModule::from_text(engine, wat);
    EXPECT_TRUE(module.ok()) << module.error().to_string();
    if (!module.ok()) return;
    auto inst = store.instantiate(*module, linker);
    if (inst.ok()) instance = *inst;
    else instantiate_error = inst.error();
  }
  Result<std::vector<Value>> call(std::string_view name, std::vector<Value> args = {}) {
    if (!instance) return make_error(ErrorKind::Usage, "not instantiated");
    auto f = instance->get_export(name);
    if (!f) return make_error(ErrorKind::Usage, "no export");
    return store.call(*f, args);
  }
  uint32_t i32(std::string_view name, std::vector<Value> args = {}) {
    auto r = call(name, std::move(args));
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() && !r->empty() ? (*r)[0].as_i32() : 0xDEADBEEF;
  }
};

Config with_fuel(uint64_t fuel) {
  Config c;
  c.fuel = fuel;
  return c;
}

void expect_trap(const Result<std::vector<Value>>& r, ErrorKind kind, const std::string& message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, kind) << r.error().to_string();
  EXPECT_EQ(r.error().message, message);
}

// ---- fuel ----------------------------------------------------------------------

constexpr std::string_view kLoops = R"((module
  (func (export "spin") (loop $l (br $l)))
  (func (export "spin_br_if") (loop $l (br_if $l (i32.const 1))))
  (func (export "spin_br_table") (loop $l (br_table $l $l (i32.const 0))))
  (func (export "count") (param i32) (result i32)
    (loop $l (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
    (i32.const 7))
  (func $rec (export "recurse") (call $rec))
  (func (export "straight") (result i32)
    (i32.add (i32.mul (i32.const 6) (i32.const 7)) (i32.const 0))))
)";

TEST(Fuel, StopsInfiniteLoops) {
  for (const char* name : {"spin", "spin_br_if", "spin_br_table"}) {
    Harness h(with_fuel(100'000), kLoops);
    ASSERT_TRUE(h.instance);
    expect_trap(h.call(name), ErrorKind::Trap, "all fuel consumed");
    EXPECT_EQ(h.store.fuel_remaining(), 0u) << name;
  }
}

TEST(Fuel, ChargesCallsAndIterationsNotStraightLineCode) {
  Harness h(with_fuel(1'000), kLoops);
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("straight"), 42u);
  EXPECT_EQ(h.store.fuel_remaining(), 999u);  // one function entry
  EXPECT_EQ(h.i32("count", {Value::i32(10)}), 7u);
  EXPECT_EQ(h.store.fuel_remaining(), 999u - 1 - 10);  // entry + 10 loop iterations
  // The trap leaves no fuel; a refill lets the same store run again.
  expect_trap(h.call("count", {Value::i32(5000)}), ErrorKind::Trap, "all fuel consumed");
  EXPECT_EQ(h.store.fuel_remaining(), 0u);
  ASSERT_TRUE(h.store.set_fuel(100).ok());
  EXPECT_EQ(h.i32("count", {Value::i32(3)}), 7u);
  EXPECT_EQ(h.store.fuel_remaining(), 96u);
}

TEST(Fuel, StopsRecursionBeforeTheDepthLimitWhenSmaller) {
  Harness h(with_fuel(500), kLoops);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("recurse"), ErrorKind::Trap, "all fuel consumed");
}

TEST(Fuel, OffByDefault) {
  Harness h(Config{}, kLoops);
  ASSERT_TRUE(h.instance);
  EXPECT_FALSE(h.store.fuel_remaining().has_value());
  auto r = h.store.set_fuel(10);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_EQ(h.i32("count", {Value::i32(100'000)}), 7u);
}

TEST(Fuel, ChargesBulkMemoryAndTableInstructionsByLength) {
  Harness h(with_fuel(1'000), R"((module
    (memory 8)
    (table 10 funcref)
    (func (export "fill") (param i32) (memory.fill (i32.const 0) (i32.const 1) (local.get 0)))
    (func (export "copy") (param i32) (memory.copy (i32.const 0) (i32.const 0) (local.get 0)))
    (func (export "tfill") (param i32) (table.fill (i32.const 0) (ref.null func) (local.get 0)))
    (func (export "tgrow") (param i32) (result i32) (table.grow (ref.null func) (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  ASSERT_TRUE(h.call("fill", {Value::i32(8 * 65536)}).ok());
  EXPECT_EQ(h.store.fuel_remaining(), 1000u - 1 - (1 + 8));  // entry, 1 + 8 × 64 KiB
  ASSERT_TRUE(h.store.set_fuel(1000).ok());
  ASSERT_TRUE(h.call("copy", {Value::i32(100)}).ok());
  EXPECT_EQ(h.store.fuel_remaining(), 1000u - 1 - 1);
  ASSERT_TRUE(h.store.set_fuel(1000).ok());
  ASSERT_TRUE(h.call("tfill", {Value::i32(10)}).ok());
  EXPECT_EQ(h.store.fuel_remaining(), 1000u - 1 - 1);
  ASSERT_TRUE(h.store.set_fuel(1000).ok());
  EXPECT_EQ(h.i32("tgrow", {Value::i32(3 * 8192)}), 10u);
  EXPECT_EQ(h.store.fuel_remaining(), 1000u - 1 - (1 + 3));
  // Not enough fuel for the length: trap before touching memory.
  ASSERT_TRUE(h.store.set_fuel(3).ok());
  expect_trap(h.call("fill", {Value::i32(8 * 65536)}), ErrorKind::Trap, "all fuel consumed");
}

TEST(Fuel, StopsAnInfiniteStartFunction) {
  Harness h(with_fuel(10'000), R"((module (func $start (loop $l (br $l))) (start $start)))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->message, "all fuel consumed");
}

TEST(Fuel, IsSharedWithWasmCalledFromHostFunctions) {
  Config config = with_fuel(1'000);
  Engine engine(config);
  Store store(engine);
  Linker linker;
  auto module = WasmModule::from_text(engine, R"((module
    (import "host" "reenter" (func $reenter))
    (func (export "spin") (loop $l (br $l)))
    (func (export "outer") (call $reenter)))
  )");
  ASSERT_TRUE(module.ok());
  std::optional<Instance> instance;
  Extern reenter = store.create_host_function(FuncType{{}, {}}, [&](std::span<const Value>, std::span<Value>) -> Result<void> {
    auto r = store.call(*instance->get_export("spin"), {});
    if (r.ok()) return make_error(ErrorKind::Usage, "spin returned");
    return r.error();
  });
  linker.define("host", "reenter", reenter);
  auto inst = store.instantiate(*module, linker);
  ASSERT_TRUE(inst.ok()) << inst.error().to_string();
  instance = *inst;
  auto r = store.call(*instance->get_export("outer"), {});
  expect_trap(r, ErrorKind::Trap, "all fuel consumed");
  EXPECT_EQ(store.fuel_remaining(), 0u);
}

// ---- memory --------------------------------------------------------------------

TEST(MemoryLimit, GrowBombStopsAtTheConfiguredMaximum) {
  Config config;
  config.max_memory_pages = 16;
  Harness h(config, R"((module
    (memory 1)
    (func (export "bomb") (result i32)
      (block $done (loop $l (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1))) (br $l)))
      (memory.size))
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("bomb"), 16u);
  EXPECT_EQ(h.i32("grow", {Value::i32(0x7FFFFFFF)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("grow", {Value::i32(0)}), 16u);
}

TEST(MemoryLimit, OversizedMemoryIsALimitError) {
  Config config;
  config.max_memory_pages = 16;
  Harness h(config, "(module (memory 17))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
  EXPECT_EQ(h.instantiate_error->message, "memory of 17 pages exceeds the configured limit of 16");
  Harness ok(config, "(module (memory 16))");
  EXPECT_TRUE(ok.instance);
}

TEST(MemoryLimit, HostCreatedMemoryAboveTheLimitIsRefused) {
  Config config;
  config.max_memory_pages = 4;
  Engine engine(config);
  Store store(engine);
  EXPECT_EQ(store.create_memory(MemoryType{Limits{5, std::nullopt}}).object, nullptr);
  EXPECT_NE(store.create_memory(MemoryType{Limits{4, std::nullopt}}).object, nullptr);
}

// ---- tables --------------------------------------------------------------------

TEST(TableLimit, GrowBombStopsAtTheConfiguredMaximum) {
  Config config;
  config.max_table_elements = 1000;
  Harness h(config, R"((module
    (table 0 funcref)
    (func (export "bomb") (result i32)
      (block $done (loop $l
        (br_if $done (i32.eq (table.grow (ref.null func) (i32.const 100)) (i32.const -1)))
        (br $l)))
      (table.size))
    (func (export "grow") (param i32) (result i32) (table.grow (ref.null func) (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("bomb"), 1000u);
  EXPECT_EQ(h.i32("grow", {Value::i32(1)}), 0xFFFFFFFFu);
}

TEST(TableLimit, DefaultLimitRefusesHugeGrowthWithoutAllocating) {
  Harness h(Config{}, R"((module
    (table 0 externref)
    (func (export "grow") (param i32) (result i32) (table.grow (ref.null extern) (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("grow", {Value::i32(0xFFFFFFFF)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("grow", {Value::i32(Config{}.max_table_elements + 1)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("grow", {Value::i32(1000)}), 0u);
}

TEST(TableLimit, OversizedTableIsALimitError) {
  Config config;
  config.max_table_elements = 1000;
  Harness h(config, "(module (table 1001 funcref))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
  EXPECT_EQ(h.instantiate_error->message, "table of 1001 elements exceeds the configured limit of 1000");
  // The spec's largest table (2^32 - 1 elements) with the default limit.
  Harness huge(Config{}, "(module (table 0xFFFFFFFF funcref))");
  EXPECT_FALSE(huge.instance);
  ASSERT_TRUE(huge.instantiate_error);
  EXPECT_EQ(huge.instantiate_error->kind, ErrorKind::Limit);
}

TEST(TableLimit, HostCreatedTableAboveTheLimitIsRefused) {
  Config config;
  config.max_table_elements = 10;
  Engine engine(config);
  Store store(engine);
  TableType big{ValType::funcref(), Limits{11, std::nullopt}};
  EXPECT_EQ(store.create_table(big, Value::null_ref(ValType::funcref())).object, nullptr);
}

// ---- call depth and frames -----------------------------------------------------

TEST(CallDepth, RecursionBombIsCallStackExhausted) {
  for (uint32_t depth : {100u, 1000u, Config{}.max_call_depth}) {
    Config config;
    config.max_call_depth = depth;
    Harness h(config, R"((module
      (type $t (func))
      (table funcref (elem $a $b))
      (func $rec (export "direct") (call $rec))
      (func $a (export "indirect") (call_indirect (type $t) (i32.const 1)))
      (func $b (call_indirect (type $t) (i32.const 0))))
    )");
    ASSERT_TRUE(h.instance);
    expect_trap(h.call("direct"), ErrorKind::Exhaustion, "call stack exhausted");
    expect_trap(h.call("indirect"), ErrorKind::Exhaustion, "call stack exhausted");
  }
}

TEST(CallDepth, BigFramesExhaustTheValueStack) {
  Config config;
  config.value_stack_bytes = 1 << 20;
  Harness h(config, R"((module
    (func $rec (export "rec") (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
      (call $rec)))
  )");
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("rec"), ErrorKind::Exhaustion, "call stack exhausted");
}

TEST(Locals, AbsurdLocalCountsAreALimitError) {
  // 2^31 locals: valid Wasm, refused when preparing the code.
  Engine engine;
  std::vector<uint8_t> bytes = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // header
                                0x01, 0x04, 0x01, 0x60, 0x00, 0x00,              // type () -> ()
                                0x03, 0x02, 0x01, 0x00,                          // one function
                                0x0a, 0x0a, 0x01, 0x08, 0x01,                    // code: 1 body, 1 local group
                                0x80, 0x80, 0x80, 0x80, 0x08, 0x7f,              // 2^31 × i32
                                0x0b};
  auto module = WasmModule::from_binary(engine, bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  Store store(engine);
  auto inst = store.instantiate(*module, Linker{});
  ASSERT_FALSE(inst.ok());
  EXPECT_EQ(inst.error().kind, ErrorKind::Limit);
  EXPECT_NE(inst.error().message.find("local slots"), std::string::npos) << inst.error().message;
}

}  // namespace
}  // namespace weft
