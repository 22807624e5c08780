// Each configured limit stops a hostile module with a clear error and never
// aborts: infinite loops (fuel), memory.grow and table.grow bombs, oversized
// memories and tables, recursion bombs, absurd local counts, fiber bombs
// (Config::max_fibers and `weft run --max-fibers`), recursion on small fiber
// stacks, and suspended fibers outliving their store.
// Every test runs on every tier (WEFT_EXEC_TEST); the CLI ones pass --tier.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "tests/support/exec_test.h"
#include "tests/support/scratch.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::expect_trap;
using test::WatHarness;

// A module that may fail to instantiate (instantiate_error says why).
struct Harness : WatHarness {
  Harness(Config config, std::string_view wat) : WatHarness(config, wat, Instantiation::MayFail) {}
};

WEFT_EXEC_SUITE(Fuel);
WEFT_EXEC_SUITE(Interrupt);
WEFT_EXEC_SUITE(MemoryLimit);
WEFT_EXEC_SUITE(TableLimit);
WEFT_EXEC_SUITE(CallDepth);
WEFT_EXEC_SUITE(Locals);
WEFT_EXEC_SUITE(FiberLimit);
WEFT_EXEC_SUITE(FiberStack);
WEFT_EXEC_SUITE(FiberMemory);

Config with_fuel(Config base, uint64_t fuel) {
  base.fuel = fuel;
  return base;
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

// Fiber-fuzzer finding: a fresh fiber entered at a function-level event
// clause skipped its function's entry charge, so a chain of fibers that each
// start at a clause, create the next and retire to it ran forever on any fuel
// budget (no loop, no call). The first resume of such a fiber pays like a call.
constexpr std::string_view kClauseChain = R"((module
  (type $v (fiber))
  (tag $go)
  (func $link (param $self (ref $v))
    (unreachable)
    (event $go (fiber.retireto $v $go (local.get $self) (fiber.new $link))))
  (func (export "chain") (fiber.resume $v $go (fiber.new $link))))
)";

WEFT_EXEC_TEST(Fuel, StopsAChainOfFibersEachEnteredAtAClause) {
  Harness h(with_fuel(config(), 10'000), kClauseChain);
  expect_trap(h.call("chain"), ErrorKind::Trap, "all fuel consumed");
  // The chain's fibers were freed by the trap: the store runs again (and stops again).
  expect_trap(h.call("chain"), ErrorKind::Trap, "all fuel consumed");
}

WEFT_EXEC_TEST(Fuel, StopsInfiniteLoops) {
  for (const char* name : {"spin", "spin_br_if", "spin_br_table"}) {
    Harness h(with_fuel(config(), 100'000), kLoops);
    ASSERT_TRUE(h.instance);
    expect_trap(h.call(name), ErrorKind::Trap, "all fuel consumed");
    EXPECT_EQ(h.store.fuel_remaining(), 0u) << name;
  }
}

WEFT_EXEC_TEST(Fuel, ChargesCallsAndIterationsNotStraightLineCode) {
  Harness h(with_fuel(config(), 1'000), kLoops);
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

WEFT_EXEC_TEST(Fuel, StopsRecursionBeforeTheDepthLimitWhenSmaller) {
  Harness h(with_fuel(config(), 500), kLoops);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("recurse"), ErrorKind::Trap, "all fuel consumed");
}

WEFT_EXEC_TEST(Fuel, OffByDefault) {
  Harness h(config(), kLoops);
  ASSERT_TRUE(h.instance);
  EXPECT_FALSE(h.store.fuel_remaining().has_value());
  auto r = h.store.set_fuel(10);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_EQ(h.i32("count", {Value::i32(100'000)}), 7u);
}

WEFT_EXEC_TEST(Fuel, ChargesBulkMemoryAndTableInstructionsByLength) {
  Harness h(with_fuel(config(), 1'000), R"((module
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

WEFT_EXEC_TEST(Fuel, StopsAnInfiniteStartFunction) {
  Harness h(with_fuel(config(), 10'000), R"((module (func $start (loop $l (br $l))) (start $start)))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->message, "all fuel consumed");
}

WEFT_EXEC_TEST(Fuel, IsSharedWithWasmCalledFromHostFunctions) {
  WatHarness h(with_fuel(config(), 1'000));
  h.define_host("host", "reenter", FuncType{{}, {}}, [&](std::span<const Value>, std::span<Value>) -> Result<void> {
    auto r = h.call("spin");
    if (r.ok()) return make_error(ErrorKind::Usage, "spin returned");
    return r.error();
  });
  ASSERT_TRUE(h.load(R"((module
    (import "host" "reenter" (func $reenter))
    (func (export "spin") (loop $l (br $l)))
    (func (export "outer") (call $reenter)))
  )"));
  expect_trap(h.call("outer"), ErrorKind::Trap, "all fuel consumed");
  EXPECT_EQ(h.store.fuel_remaining(), 0u);
}

// Config::fuel: a function entry costs 1 plus 1 per 8192 declared locals
// (runtime/fuel.h). 8,000 locals are under one 8192 block, so fuel 1 pays for the call;
// the function's 200 constants are not locals and must not change that.
// (spec-tests/regressions/fuel-entry-charge-counts-locals-not-constants.wast
// is the same module for `weft wast --fuel=1`.)
WEFT_EXEC_TEST(Fuel, EntryChargeCountsLocalsNotConstants) {
  std::string body;
  for (int k = 0; k < 200; ++k) body += "(local.set 0 (i32.const " + std::to_string(1000 + k) + ")) ";
  std::string locals;
  for (int i = 0; i < 8000; ++i) locals += " i32";
  Harness h(with_fuel(config(), 1),
            "(module (func (export \"f\") (result i32) (local" + locals + ") " + body + "(i32.const 7)))");
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("f"), 7u);
  EXPECT_EQ(h.store.fuel_remaining(), 0u);
}

// Found by `make differential-fuel`: a fresh fiber whose first event has no
// function-level clause traps "unhandled event" — after its function's entry
// is charged, when the function has clauses (the JIT's clause entry runs its
// prologue before its dispatch; the interpreter did not pay at all), so the
// fuel left is the same on every tier.
WEFT_EXEC_TEST(Fuel, AFreshFiberWithAnUnhandledFirstEventPaysItsEntry) {
  Harness h(with_fuel(config(), 100), R"((module
    (type $v (fiber))
    (tag $handled) (tag $other)
    (func $f (param $self (ref $v)) (unreachable) (event $handled))
    (func $no_clauses (param $self (ref $v)))
    (func (export "run") (fiber.resume $v $other (fiber.new $f)))
    (func (export "run_no_clauses") (fiber.resume $v $other (fiber.new $no_clauses))))
  )");
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("run"), ErrorKind::Trap, "unhandled event");
  EXPECT_EQ(h.store.fuel_remaining(), 98u);  // `run`'s entry and the fiber's
  // A function without function-level clauses is never entered by an event.
  ASSERT_TRUE(h.store.set_fuel(100).ok());
  expect_trap(h.call("run_no_clauses"), ErrorKind::Trap, "unhandled event");
  EXPECT_EQ(h.store.fuel_remaining(), 99u);
  ASSERT_TRUE(h.store.set_fuel(1).ok());
  expect_trap(h.call("run"), ErrorKind::Trap, "all fuel consumed");  // `run` pays 1, the fiber cannot
  EXPECT_EQ(h.store.fuel_remaining(), 0u);
}

// ---- interruption (Config::interruptible, Store::interrupt_handle) ---------------

Config interruptible(Config base) {
  base.interruptible = true;
  return base;
}

constexpr std::string_view kSpinners = R"((module
  (type $v (fiber))
  (tag $go)
  (func (export "spin") (loop $l (br $l)))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func $spinner (param $self (ref $v)) (unreachable) (event $go (loop $l (br $l))))
  (func (export "spin_in_fiber") (fiber.resume $v $go (fiber.new $spinner))))
)";

// Interrupts `handle` from another thread after `delay`, while `call` runs.
Result<std::vector<Value>> call_interrupted_after(std::chrono::milliseconds delay, const InterruptHandle& handle,
                                                  const std::function<Result<std::vector<Value>>()>& call) {
  std::thread interrupter([&] {
    std::this_thread::sleep_for(delay);
    handle.interrupt();
  });
  Result<std::vector<Value>> r = call();
  interrupter.join();
  return r;
}

WEFT_EXEC_TEST(Interrupt, StopsAnInfiniteLoopFromAnotherThread) {
  Harness h(interruptible(config()), kSpinners);
  ASSERT_TRUE(h.instance);
  auto handle = h.store.interrupt_handle();
  ASSERT_TRUE(handle.ok()) << handle.error().to_string();
  expect_trap(call_interrupted_after(std::chrono::milliseconds(50), *handle, [&] { return h.call("spin"); }),
              ErrorKind::Trap, "interrupted");
  // The trap answered the request: the store runs code again.
  auto sum = h.call("add", {Value::i32(40), Value::i32(2)});
  ASSERT_TRUE(sum.ok()) << sum.error().to_string();
  EXPECT_EQ((*sum)[0].as_i32(), 42);
}

WEFT_EXEC_TEST(Interrupt, StopsALoopInsideAFiber) {
  Harness h(interruptible(config()), kSpinners);
  ASSERT_TRUE(h.instance);
  auto handle = h.store.interrupt_handle();
  ASSERT_TRUE(handle.ok());
  expect_trap(call_interrupted_after(std::chrono::milliseconds(50), *handle, [&] { return h.call("spin_in_fiber"); }),
              ErrorKind::Trap, "interrupted");
  auto again = h.call("add", {Value::i32(1), Value::i32(2)});
  ASSERT_TRUE(again.ok()) << again.error().to_string();
}

WEFT_EXEC_TEST(Interrupt, ARequestBeforeACallStopsThatCall) {
  Harness h(interruptible(config()), kSpinners);
  ASSERT_TRUE(h.instance);
  auto handle = h.store.interrupt_handle();
  ASSERT_TRUE(handle.ok());
  handle->interrupt();
  expect_trap(h.call("add", {Value::i32(1), Value::i32(2)}), ErrorKind::Trap, "interrupted");  // at its entry
  EXPECT_TRUE(h.call("add", {Value::i32(1), Value::i32(2)}).ok());
}

WEFT_EXEC_TEST(Interrupt, OffByDefaultAndSafeAfterTheStoreIsGone) {
  std::optional<InterruptHandle> kept;
  {
    Harness off(config(), kSpinners);
    ASSERT_TRUE(off.instance);
    auto refused = off.store.interrupt_handle();
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, ErrorKind::Usage);
    Harness on(interruptible(config()), kSpinners);
    ASSERT_TRUE(on.instance);
    auto handle = on.store.interrupt_handle();
    ASSERT_TRUE(handle.ok());
    kept = *handle;
  }
  kept->interrupt();  // the store is gone: nothing to stop, and no crash
}

// ---- memory --------------------------------------------------------------------

WEFT_EXEC_TEST(MemoryLimit, GrowBombStopsAtTheConfiguredMaximum) {
  Config config = this->config();
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

WEFT_EXEC_TEST(MemoryLimit, OversizedMemoryIsALimitError) {
  Config config = this->config();
  config.max_memory_pages = 16;
  Harness h(config, "(module (memory 17))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
  EXPECT_EQ(h.instantiate_error->message, "memory of 17 pages exceeds the configured limit of 16");
  Harness ok(config, "(module (memory 16))");
  EXPECT_TRUE(ok.instance);
}

WEFT_EXEC_TEST(MemoryLimit, HostCreatedMemoryAboveTheLimitIsRefused) {
  Config config = this->config();
  config.max_memory_pages = 4;
  Engine engine(config);
  Store store(engine);
  EXPECT_EQ(store.create_memory(MemoryType{Limits{5, std::nullopt}}).object, nullptr);
  EXPECT_NE(store.create_memory(MemoryType{Limits{4, std::nullopt}}).object, nullptr);
}

// ---- tables --------------------------------------------------------------------

WEFT_EXEC_TEST(TableLimit, GrowBombStopsAtTheConfiguredMaximum) {
  Config config = this->config();
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

WEFT_EXEC_TEST(TableLimit, DefaultLimitRefusesHugeGrowthWithoutAllocating) {
  Harness h(config(), R"((module
    (table 0 externref)
    (func (export "grow") (param i32) (result i32) (table.grow (ref.null extern) (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  EXPECT_EQ(h.i32("grow", {Value::i32(0xFFFFFFFF)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("grow", {Value::i32(Config{}.max_table_elements + 1)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("grow", {Value::i32(1000)}), 0u);
}

WEFT_EXEC_TEST(TableLimit, OversizedTableIsALimitError) {
  Config config = this->config();
  config.max_table_elements = 1000;
  Harness h(config, "(module (table 1001 funcref))");
  EXPECT_FALSE(h.instance);
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
  EXPECT_EQ(h.instantiate_error->message, "table of 1001 elements exceeds the configured limit of 1000");
  // The spec's largest table (2^32 - 1 elements) with the default limit.
  Harness huge(this->config(), "(module (table 0xFFFFFFFF funcref))");
  EXPECT_FALSE(huge.instance);
  ASSERT_TRUE(huge.instantiate_error);
  EXPECT_EQ(huge.instantiate_error->kind, ErrorKind::Limit);
}

WEFT_EXEC_TEST(TableLimit, HostCreatedTableAboveTheLimitIsRefused) {
  Config config = this->config();
  config.max_table_elements = 10;
  Engine engine(config);
  Store store(engine);
  TableType big{ValType::funcref(), Limits{11, std::nullopt}};
  EXPECT_EQ(store.create_table(big, Value::null_ref(ValType::funcref())).object, nullptr);
}

// ---- call depth and frames -----------------------------------------------------

WEFT_EXEC_TEST(CallDepth, RecursionBombIsCallStackExhausted) {
  for (uint32_t depth : {100u, 1000u, Config{}.max_call_depth}) {
    Config config = this->config();
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

// Config::max_call_depth = N allows exactly N active frames on every tier.
// Found by `make differential-fuel` (the extra frame's entry charge): the
// interpreter counted only the frames below the running one and allowed N + 1.
WEFT_EXEC_TEST(CallDepth, TheLimitIsTheNumberOfActiveFrames) {
  Config config = this->config();
  config.max_call_depth = 10;
  Harness h(config, R"((module
    (func $deep (export "deep") (param $n i32) (result i32)
      (if (result i32) (i32.eqz (local.get $n))
        (then (i32.const 0))
        (else (i32.add (i32.const 1) (call $deep (i32.sub (local.get $n) (i32.const 1))))))))
  )");
  ASSERT_TRUE(h.instance);
  auto ten_frames = h.call("deep", {Value::i32(9)});
  ASSERT_TRUE(ten_frames.ok()) << ten_frames.error().to_string();
  EXPECT_EQ((*ten_frames)[0].as_i32(), 9);
  expect_trap(h.call("deep", {Value::i32(10)}), ErrorKind::Exhaustion, "call stack exhausted");
}

// The JIT counts the frames still allowed in a register and hands the depth
// to the runtime at every exit from JIT code (jit/compiler.h, store_depth):
// a recursion through a host function, which re-enters Wasm each time, must
// stop at the same frame as a direct one — Wasm frames count, host ones do not.
WEFT_EXEC_TEST(CallDepth, TheLimitHoldsThroughHostReentry) {
  Config config = this->config();
  config.max_call_depth = 10;
  WatHarness h(config);
  h.define_host("host", "down", FuncType{{ValType::i32()}, {ValType::i32()}},
                [&](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                  auto r = h.call("deep", {args[0]});
                  if (!r.ok()) return r.error();
                  results[0] = (*r)[0];
                  return {};
                });
  ASSERT_TRUE(h.load(R"((module
    (import "host" "down" (func $down (param i32) (result i32)))
    (func $deep (export "deep") (param $n i32) (result i32)
      (if (result i32) (i32.eqz (local.get $n))
        (then (i32.const 0))
        (else (i32.add (i32.const 1) (call $down (i32.sub (local.get $n) (i32.const 1))))))))
  )"));
  auto ten_frames = h.call("deep", {Value::i32(9)});
  ASSERT_TRUE(ten_frames.ok()) << ten_frames.error().to_string();
  EXPECT_EQ((*ten_frames)[0].as_i32(), 9);
  expect_trap(h.call("deep", {Value::i32(10)}), ErrorKind::Exhaustion, "call stack exhausted");
  // The depth is back to 0 after the trap: the full budget is there again.
  auto again = h.call("deep", {Value::i32(9)});
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ((*again)[0].as_i32(), 9);
}

WEFT_EXEC_TEST(CallDepth, BigFramesExhaustTheValueStack) {
  Config config = this->config();
  config.value_stack_bytes = 1 << 20;
  Harness h(config, R"((module
    (func $rec (export "rec") (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
      (call $rec)))
  )");
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("rec"), ErrorKind::Exhaustion, "call stack exhausted");
}

WEFT_EXEC_TEST(Locals, AbsurdLocalCountsAreALimitError) {
  // 2^31 locals: valid Wasm, refused when preparing the code.
  WatHarness h(config());
  std::vector<uint8_t> bytes = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // header
                                0x01, 0x04, 0x01, 0x60, 0x00, 0x00,              // type () -> ()
                                0x03, 0x02, 0x01, 0x00,                          // one function
                                0x0a, 0x0a, 0x01, 0x08, 0x01,                    // code: 1 body, 1 local group
                                0x80, 0x80, 0x80, 0x80, 0x08, 0x7f,              // 2^31 × i32
                                0x0b};
  EXPECT_FALSE(h.instantiate(WasmModule::from_binary(h.engine, bytes), WatHarness::Instantiation::MayFail));
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
  EXPECT_NE(h.instantiate_error->message.find("local slots"), std::string::npos) << h.instantiate_error->message;
}

// ---- fibers: the live-fiber limit -------------------------------------------------

// Three ways to create fibers without bound: fresh fibers dropped at once
// (no garbage collector: each stays live), a chain in which every fiber
// spawns the next (all waiting), and fibers that suspend at once and are
// never resumed (each holding a stack). `$made` counts successful creations.
constexpr std::string_view kFiberBombs = R"((module
  (type $g (fiber))
  (tag $parked)
  (global $made (mut i32) (i32.const 0))
  (func $count (global.set $made (i32.add (global.get $made) (i32.const 1))))
  (func (export "made") (result i32) (global.get $made))

  (func $idle (param $self (ref $g)) (unreachable) (event $parked))
  (func (export "new-bomb")
    (loop $l (drop (fiber.new $idle)) (call $count) (br $l)))
  (func (export "new-some") (param $n i32)
    (loop $l
      (drop (fiber.new $idle)) (call $count)
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))

  (func $chain (param $self (ref $g)) (call $count) (fiber.spawn $chain))
  (func (export "spawn-chain") (fiber.spawn $chain))

  (func $park (param $self (ref $g)) (fiber.suspend $parked (local.get $self)))
  (func (export "park-bomb")
    (loop $l
      (handle (fiber.spawn $park) (event $parked))
      (call $count)
      (br $l))))
)";

Config with_max_fibers(Config base, uint64_t max_fibers) {
  base.max_fibers = max_fibers;
  return base;
}

WEFT_EXEC_TEST(FiberLimit, FreshFiberBombIsTooManyFibers) {
  Harness h(with_max_fibers(config(), 100), kFiberBombs);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("new-bomb"), ErrorKind::Trap, "too many fibers");
  EXPECT_EQ(h.i32("made"), 100u);
  // Fresh fibers belong to no chain: the trap leaves them live, and a failed
  // creation creates nothing, so the limit still holds.
  expect_trap(h.call("new-bomb"), ErrorKind::Trap, "too many fibers");
  EXPECT_EQ(h.i32("made"), 100u);
}

WEFT_EXEC_TEST(FiberLimit, SpawnChainIsTooManyFibersAndTheTrapFreesTheChain) {
  Harness h(with_max_fibers(config(), 100), kFiberBombs);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("spawn-chain"), ErrorKind::Trap, "too many fibers");
  EXPECT_EQ(h.i32("made"), 100u);
  // The trap aborted the chain segment, so all 100 fibers died with it: the
  // next chain gets the whole limit again.
  expect_trap(h.call("spawn-chain"), ErrorKind::Trap, "too many fibers");
  EXPECT_EQ(h.i32("made"), 200u);
}

WEFT_EXEC_TEST(FiberLimit, SuspendedFiberBombIsTooManyFibers) {
  Harness h(with_max_fibers(config(), 100), kFiberBombs);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("park-bomb"), ErrorKind::Trap, "too many fibers");
  EXPECT_EQ(h.i32("made"), 100u);
}

WEFT_EXEC_TEST(FiberLimit, UnderTheLimitFibersAreCreated) {
  Harness h(with_max_fibers(config(), 100), kFiberBombs);
  ASSERT_TRUE(h.instance);
  ASSERT_TRUE(h.call("new-some", {Value::i32(100)}).ok());
  EXPECT_EQ(h.i32("made"), 100u);
  expect_trap(h.call("new-some", {Value::i32(1)}), ErrorKind::Trap, "too many fibers");
}

// The same limit from the command line: `weft run --tier=TIER --max-fibers N`.
class FiberLimitCli : public test::ExecTest {
 protected:
  FiberLimitCli() { module_ = dir_.write("bombs.wat", std::string(kFiberBombs)); }
  // Runs `weft run --tier=TIER OPTIONS <module> ARGS` and returns the exit status; stderr in err_.
  int run(const std::string& options, const std::string& args = "") {
    test::CliResult r = test::run_cli(WEFT_CLI_PATH,
                                      std::string("run --tier=") + test::tier_cli_name(tier()) + " " + options +
                                          " " + test::shell_quote(module_) + " " + args,
                                      dir_.path());
    err_ = r.err;
    return r.exit_code;
  }
  test::ScratchDir dir_{"weft_limits"};
  std::filesystem::path module_;
  std::string err_;
};
INSTANTIATE_TEST_SUITE_P(Exec, FiberLimitCli, ::testing::ValuesIn(test::available_tiers()), test::TierParamName());

WEFT_EXEC_TEST(FiberLimitCli, MaxFibersStopsAFiberBomb) {
  EXPECT_EQ(run("--max-fibers 16 --invoke new-bomb"), 134);  // a trap, as wasmtime exits
  EXPECT_NE(err_.find("too many fibers"), std::string::npos) << err_;
  EXPECT_EQ(run("--max-fibers 16 --invoke spawn-chain"), 134);
  EXPECT_NE(err_.find("too many fibers"), std::string::npos) << err_;
  EXPECT_EQ(run("--max-fibers 16 --invoke park-bomb"), 134);
  EXPECT_NE(err_.find("too many fibers"), std::string::npos) << err_;
}

WEFT_EXEC_TEST(FiberLimitCli, MaxFibersIsTheBound) {
  EXPECT_EQ(run("--max-fibers 16 --invoke new-some", "16"), 0) << err_;
  EXPECT_EQ(run("--max-fibers 16 --invoke new-some", "17"), 134);
  EXPECT_NE(err_.find("too many fibers"), std::string::npos) << err_;
  EXPECT_EQ(run("--max-fibers 1000 --invoke new-some", "1000"), 0) << err_;
}

// ---- fibers: stack size ----------------------------------------------------------

constexpr std::string_view kFiberRecursion = R"((module
  (type $g (fiber (result i32)))
  (tag $parked)
  (tag $wake)
  (func $rec (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $rec (i32.sub (local.get $n) (i32.const 1)))))))
  (func $recurse (param $self (ref $g)) (param $n i32) (result i32) (call $rec (local.get $n)))
  (func (export "in-fiber") (param $n i32) (result i32) (fiber.spawn $recurse (local.get $n)))
  (func (export "on-root") (param $n i32) (result i32) (call $rec (local.get $n)))

  (func $forever (param $self (ref $g)) (result i32) (call $forever (local.get $self)))
  (func (export "unbounded") (result i32) (fiber.spawn $forever))

  ;; A fiber suspended before another one exhausts its stack.
  (global $parked (mut (ref null $g)) (ref.null $g))
  (func $sleeper (param $self (ref $g)) (result i32)
    (global.set $parked (local.get $self))
    (handle (fiber.suspend $parked (local.get $self)) (event $wake))
    (i32.const 7))
  (func (export "park") (handle (drop (fiber.spawn $sleeper)) (event $parked)))
  (func (export "wake") (result i32) (fiber.resume $g $wake (global.get $parked))))
)";

Config with_fiber_stack(Config base, uint64_t bytes) {
  base.fiber_stack_size = bytes;
  return base;
}

WEFT_EXEC_TEST(FiberStack, UnboundedRecursionInAFiberIsCallStackExhausted) {
  Harness h(with_fiber_stack(config(), 128 * 1024), kFiberRecursion);
  ASSERT_TRUE(h.instance);
  expect_trap(h.call("unbounded"), ErrorKind::Exhaustion, "call stack exhausted");
  // The store is still usable, and the aborted fiber's stack was returned.
  EXPECT_EQ(h.i32("in-fiber", {Value::i32(10)}), 10u);
  expect_trap(h.call("unbounded"), ErrorKind::Exhaustion, "call stack exhausted");
}

WEFT_EXEC_TEST(FiberStack, TheFiberStackSizeBoundsRecursionInsideFibers) {
  // 5000 frames fit the root's value stack (16 MiB) but not a 128 KiB fiber.
  Harness small(with_fiber_stack(config(), 128 * 1024), kFiberRecursion);
  ASSERT_TRUE(small.instance);
  EXPECT_EQ(small.i32("on-root", {Value::i32(5000)}), 5000u);
  EXPECT_EQ(small.i32("in-fiber", {Value::i32(100)}), 100u);
  expect_trap(small.call("in-fiber", {Value::i32(5000)}), ErrorKind::Exhaustion, "call stack exhausted");
  Harness large(with_fiber_stack(config(), 8 * 1024 * 1024), kFiberRecursion);
  ASSERT_TRUE(large.instance);
  EXPECT_EQ(large.i32("in-fiber", {Value::i32(5000)}), 5000u);
}

WEFT_EXEC_TEST(FiberStack, ExhaustionLeavesSuspendedFibersAlone) {
  Harness h(with_fiber_stack(config(), 128 * 1024), kFiberRecursion);
  ASSERT_TRUE(h.instance);
  ASSERT_TRUE(h.call("park").ok());
  expect_trap(h.call("unbounded"), ErrorKind::Exhaustion, "call stack exhausted");
  EXPECT_EQ(h.i32("wake"), 7u);
}

// ---- fibers: memory held by suspended fibers -------------------------------------

// Virtual memory of this process (VmSize, KiB): fiber stacks are mappings, so
// a stack that outlived its store would show here (the leak checker only sees
// malloc).
uint64_t mapped_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      uint64_t kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(1 << 16, '\n');
  }
  return 0;
}

WEFT_EXEC_TEST(FiberMemory, SuspendedFibersAreFreedWithTheirStore) {
  // Each round leaves 64 fibers suspended at recursion depth 200 on 1 MiB
  // stacks (64 MiB reserved) and drops the store; 24 rounds would leak 1.5 GiB.
  constexpr std::string_view kParkDeep = R"((module
    (type $g (fiber (result i32)))
    (tag $parked)
    (func $rec (param $self (ref $g)) (param $n i32) (result i32)
      (if (result i32) (i32.eqz (local.get $n))
        (then (fiber.suspend $parked (local.get $self)))
        (else (i32.add (i32.const 1) (call $rec (local.get $self) (i32.sub (local.get $n) (i32.const 1)))))))
    (func (export "park-deep") (param $fibers i32) (param $depth i32)
      (loop $l
        (handle (drop (fiber.spawn $rec (local.get $depth))) (event $parked))
        (br_if $l (local.tee $fibers (i32.sub (local.get $fibers) (i32.const 1)))))))
  )";
  Config config = with_fiber_stack(this->config(), 1024 * 1024);
  uint64_t before = 0;
  for (int round = 0; round < 24; ++round) {
    Harness h(config, kParkDeep);
    ASSERT_TRUE(h.instance);
    ASSERT_TRUE(h.call("park-deep", {Value::i32(64), Value::i32(200)}).ok());
    if (round == 1) before = mapped_kib();  // after the allocators warmed up
  }
  const uint64_t after = mapped_kib();
  ASSERT_GT(before, 0u);
  EXPECT_LT(after, before + 256 * 1024) << "VmSize grew from " << before << " KiB to " << after << " KiB";
}

}  // namespace
}  // namespace weft
