// Fibers on every tier: fiber bodies run on their own native stacks (on the
// JIT, as JIT code whose suspension points dispatch events inline), and
// everything that crosses a switch — the running context's stack, the memory
// registers, fuel, traps of other fibers, interpreted and host frames in
// between — is right when this context runs again.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/exec_test.h"
#include "tests/support/generator_module.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

WEFT_EXEC_SUITE(Fibers);

// `base` with a fuel budget and fiber stack size (0: the defaults).
Config with_limits(Config base, uint64_t fuel = 0, uint64_t fiber_stack = 0) {
  base.fuel = fuel;
  if (fiber_stack) base.fiber_stack_size = fiber_stack;
  return base;
}

WEFT_EXEC_TEST(Fibers, GeneratorRunsWithoutFallback) {
  WatHarness h(tier(), test::kGeneratorModule);
  EXPECT_EQ(h.value("sum", {Value::i32(1000)}), 499500);
  EXPECT_EQ(h.value("sum", {Value::i32(0)}), 0);
  test::expect_jit_counts(h.store, tier(), 2, 0);
}

WEFT_EXEC_TEST(Fibers, ATrapInAFiberAbortsTheSegmentWithBacktrace) {
  WatHarness h(tier(), R"((module
    (type $g (fiber (result i32)))
    (func $divide (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0)))
    (func $body (param $self (ref $g)) (param $d i32) (result i32) (call $divide (local.get $d)))
    (func $root (export "run") (param $d i32) (result i32) (fiber.spawn $body (local.get $d)))
  ))");
  EXPECT_EQ(h.value("run", {Value::i32(1)}), 1);
  auto r = h.call("run", {Value::i32(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "integer divide by zero");
  const std::string& trace = r.error().detail;
  EXPECT_NE(trace.find("divide"), std::string::npos) << trace;
  EXPECT_NE(trace.find("body"), std::string::npos) << trace;
  EXPECT_NE(trace.find("root"), std::string::npos) << trace;
  EXPECT_EQ(h.value("run", {Value::i32(1)}), 1);  // the store is usable again
}

WEFT_EXEC_TEST(Fibers, UnhandledEventAndOperandTrapsAreReported) {
  WatHarness h(tier(), R"((module
    (type $g (fiber))
    (tag $a) (tag $b)
    (func $body (param $self (ref $g)) (fiber.suspend $b (local.get $self)))
    (func (export "unhandled")
      (handle (fiber.spawn $body) (event $a)))
    (func (export "null") (fiber.resume $g $a (ref.null $g)))
  ))");
  auto r = h.call("unhandled");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "unhandled event");
  r = h.call("null");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "null fiber reference");
}

// JIT frames keep return addresses on the fiber's native stack, interpreter
// frames their slots on the fiber's stack: unbounded
// recursion inside a fiber ends in "call stack exhausted", never a crash, on
// the smallest and the default stack; a larger stack allows deeper recursion.
constexpr const char* kRecursion = R"((module
  (type $g (fiber (result i32)))
  (func $down (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n)) (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $down (i32.sub (local.get $n) (i32.const 1)))))))
  (func $body (param $self (ref $g)) (param $n i32) (result i32) (call $down (local.get $n)))
  (func (export "depth") (param $n i32) (result i32) (fiber.spawn $body (local.get $n)))
))";

WEFT_EXEC_TEST(Fibers, RecursionInsideAFiberIsBoundedByItsStack) {
  for (uint64_t stack : {uint64_t(128 * 1024), uint64_t(256 * 1024)}) {
    WatHarness h(with_limits(config(), 0, stack), kRecursion);
    EXPECT_EQ(h.value("depth", {Value::i32(300)}), 300);
    auto r = h.call("depth", {Value::i32(10'000'000)});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "call stack exhausted");
    EXPECT_EQ(h.value("depth", {Value::i32(300)}), 300);
  }
  WatHarness big(with_limits(config(), 0, 16 * 1024 * 1024), kRecursion);
  EXPECT_EQ(big.value("depth", {Value::i32(15000)}), 15000);
}

// The resumer grows the memory while the fiber is suspended: the fiber's code
// must see the new size after the switch (memory registers reloaded).
WEFT_EXEC_TEST(Fibers, MemoryGrownWhileSuspendedIsVisibleAfterTheSwitch) {
  WatHarness h(tier(), R"((module
    (type $g (fiber (result i32)))
    (tag $wait)
    (tag $go)
    (memory 1)
    (func $body (param $self (ref $g)) (result i32)
      (unreachable)
      (event $go
        (handle
          (fiber.suspend $wait (local.get $self))
          (event $go))
        (i32.store (i32.const 100000) (i32.const 7))
        (i32.load (i32.const 100000))))
    (func (export "run") (result i32)
      (local $f (ref null $g))
      (local.set $f (fiber.new $body))
      (handle (result i32)
        (fiber.resume $g $go (local.get $f))
        (event $wait
          (drop (memory.grow (i32.const 1)))
          (fiber.resume $g $go (local.get $f)))))
  ))");
  EXPECT_EQ(h.value("run"), 7);
}

// Fuel is one budget across fibers: a fiber that loops forever is stopped.
WEFT_EXEC_TEST(Fibers, FuelStopsALoopingFiber) {
  WatHarness h(with_limits(config(), 100000), R"((module
    (type $g (fiber))
    (func $spin (param $self (ref $g)) (loop $l (br $l)))
    (func (export "run") (fiber.spawn $spin))
  ))");
  auto r = h.call("run");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "all fuel consumed");
}

// Tier boundaries inside fibers (on the JIT tier; on the interpreter, the same
// program): an interpreted function (Config::jit_interpreted_functions)
// suspends the JIT fiber that called it, and a host function called from a fiber re-enters JIT code that
// runs fibers of its own.
WEFT_EXEC_TEST(Fibers, InterpretedAndHostFramesInsideFibers) {
  WatHarness h(test::interpreting(tier(), {"interp_suspend"}), R"((module
    (type $g (fiber (result i32)))
    (import "env" "host" (func $host (param i32)))
    (tag $ping (param i32))
    (tag $pong)
    (global $seen (mut i32) (i32.const 0))
    (func $interp_suspend (param $self (ref $g)) (param $v i32) (result i32) (local v128)
      (handle (result i32)
        (fiber.suspend $ping (local.get $self) (local.get $v))
        (event $pong (i32.add (local.get $v) (i32.const 100)))))
    (func $body (param $self (ref $g)) (result i32)
      (call $host (i32.const 5))
      (call $interp_suspend (local.get $self) (global.get $seen)))
    (func $inner (param $self (ref $g)) (result i32) (i32.const 40))
    (func (export "reenter") (param $v i32)
      (global.set $seen (i32.add (local.get $v) (fiber.spawn $inner))))
    (func $start_body (param $self (ref $g)) (result i32)
      (unreachable)
      (event $pong (call $body (local.get $self))))
    (func (export "run2") (result i32)
      (local $f (ref null $g))
      (local.set $f (fiber.new $start_body))
      (handle (result i32)
        (fiber.resume $g $pong (local.get $f))
        (event $ping (param i32)
          (fiber.resume $g $pong (local.get $f))
          (i32.add))))
  ))");
  h.on_host = [&h](std::span<const Value> args) -> Result<void> {
    const Value arg[] = {args[0]};
    WEFT_TRY(h.store.call(*h.instance->get_export("reenter"), arg));
    return {};
  };
  // $body is entered at its function-level clause via $start_body; host 5 +
  // inner 40 = 45 is sent with $ping, then returned + 100.
  EXPECT_EQ(h.value("run2"), 45 + 145);
  test::expect_jit_counts(h.store, tier(), std::nullopt, 1);  // $interp_suspend
}

}  // namespace
}  // namespace weft
