// Host frames are barriers for fibers (docs/fibers.md §1): a host function
// that calls back into Wasm starts a new chain segment, and switching to a
// fiber waiting in an outer segment traps "cannot switch across a host frame".
// Run on every tier.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/exec_test.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::expect_trap;
using test::WatHarness;

WEFT_EXEC_SUITE(FiberHostBarrier);
WEFT_EXEC_SUITE(FiberHostReentry);

constexpr const char* kBarrier = R"((module
  (type $g (fiber))
  (import "env" "callback" (func $callback))
  (tag $e)
  (global $outer (mut (ref null $g)) (ref.null $g))

  ;; B: calls the host, which re-enters Wasm through "inner".
  (func $b (param $self (ref $g)) (call $callback))
  ;; A: remembers itself, then spawns B and waits for it.
  (func $a (param $self (ref $g))
    (global.set $outer (local.get $self))
    (fiber.spawn $b))

  (func (export "outer") (fiber.spawn $a))
  ;; Runs inside the host call: A is waiting, but in the outer segment.
  (func (export "inner-suspend-to") (fiber.suspend_to $g $e (global.get $outer)))
  (func (export "inner-switch-from-root")
    (fiber.switch $g $e (global.get $outer) (global.get $outer)))
))";

// The barrier module with env.callback calling its export `inner_export`.
struct BarrierHarness : WatHarness {
  std::string inner_export;

  explicit BarrierHarness(Config config) : WatHarness(config) {
    define_host("env", "callback", FuncType{}, [this](std::span<const Value>, std::span<Value>) -> Result<void> {
      WEFT_TRY(call(inner_export));
      return {};
    });
    load(kBarrier);
  }
};

WEFT_EXEC_TEST(FiberHostBarrier, SuspendToAFiberWaitingBeyondAHostFrameTraps) {
  BarrierHarness h(config());
  h.inner_export = "inner-suspend-to";
  expect_trap(h.call("outer"), ErrorKind::Trap, "cannot switch across a host frame");
  // The aborted segment left the store usable: the same scenario runs again.
  expect_trap(h.call("outer"), ErrorKind::Trap, "cannot switch across a host frame");
}

WEFT_EXEC_TEST(FiberHostBarrier, TheInnerSegmentRootIsNotARunningFiber) {
  // Inside the host call the root of the new segment runs; no fiber is the
  // running fiber there, so naming A as "self" traps.
  BarrierHarness h(config());
  h.inner_export = "inner-switch-from-root";
  expect_trap(h.call("outer"), ErrorKind::Trap, "not the running fiber");
}

// A host function that re-enters Wasm nests a dispatch loop on the native
// stack of whatever runs it — inside a fiber, the fiber's small native stack.
// Unbounded host ↔ Wasm recursion there must trap "call stack exhausted"
// before the native stack overflows (it has no guard page).
constexpr const char* kReentry = R"((module
  (type $g (fiber))
  (import "env" "again" (func $again (param i32)))
  (func (export "rec") (param $n i32)
    (if (local.get $n) (then (call $again (i32.sub (local.get $n) (i32.const 1))))))
  (func $body (param $self (ref $g)) (call $again (i32.const 1000000)))
  (func (export "in-fiber") (fiber.spawn $body))
  (func (export "on-main") (call $again (i32.const 1000000)))
))";

// The reentry module with env.again calling its export "rec".
struct ReentryHarness : WatHarness {
  explicit ReentryHarness(Config config) : WatHarness(config) {
    define_host("env", "again", FuncType{{ValType::i32()}, {}},
                [this](std::span<const Value> args, std::span<Value>) -> Result<void> {
                  WEFT_TRY(call("rec", {args[0]}));
                  return {};
                });
    load(kReentry);
  }
};

WEFT_EXEC_TEST(FiberHostReentry, UnboundedHostRecursionInsideAFiberIsCallStackExhausted) {
  ReentryHarness h(config());
  expect_trap(h.call("in-fiber"), ErrorKind::Exhaustion, "call stack exhausted");
  // The store stays usable.
  expect_trap(h.call("in-fiber"), ErrorKind::Exhaustion, "call stack exhausted");
}

WEFT_EXEC_TEST(FiberHostReentry, UnboundedHostRecursionOnTheMainStackIsCallStackExhausted) {
  ReentryHarness h(config());
  expect_trap(h.call("on-main"), ErrorKind::Exhaustion, "call stack exhausted");
}

}  // namespace
}  // namespace weft
