// Host frames are barriers for fibers (docs/fibers.md §1): a host function
// that calls back into Wasm starts a new chain segment, and switching to a
// fiber waiting in an outer segment traps "cannot switch across a host frame".
#include <gtest/gtest.h>

#include "weft/weft.h"

namespace weft {
namespace {

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

struct BarrierHarness {
  Engine engine{Config{.tier = Tier::Interpreter}};  // this suite tests the interpreter tier
  Store store{engine};
  Linker linker;
  std::optional<Instance> instance;
  std::string inner_export;

  BarrierHarness() {
    linker.define("env", "callback",
                  store.create_host_function(FuncType{}, [this](std::span<const Value>, std::span<Value>) -> Result<void> {
                    WEFT_TRY(store.call(*instance->get_export(inner_export), {}));
                    return {};
                  }));
    auto module = WasmModule::from_text(engine, kBarrier);
    EXPECT_TRUE(module.ok()) << module.error().to_string();
    auto inst = store.instantiate(*module, linker);
    EXPECT_TRUE(inst.ok()) << inst.error().to_string();
    instance = *inst;
  }
};

TEST(FiberHostBarrier, SuspendToAFiberWaitingBeyondAHostFrameTraps) {
  BarrierHarness h;
  h.inner_export = "inner-suspend-to";
  auto r = h.store.call(*h.instance->get_export("outer"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Trap);
  EXPECT_EQ(r.error().message, "cannot switch across a host frame");
  // The aborted segment left the store usable: the same scenario runs again.
  auto again = h.store.call(*h.instance->get_export("outer"), {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "cannot switch across a host frame");
}

TEST(FiberHostBarrier, TheInnerSegmentRootIsNotARunningFiber) {
  // Inside the host call the root of the new segment runs; no fiber is the
  // running fiber there, so naming A as "self" traps.
  BarrierHarness h;
  h.inner_export = "inner-switch-from-root";
  auto r = h.store.call(*h.instance->get_export("outer"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "not the running fiber");
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

struct ReentryHarness {
  Engine engine{Config{.tier = Tier::Interpreter}};  // this suite tests the interpreter tier
  Store store{engine};
  Linker linker;
  std::optional<Instance> instance;

  ReentryHarness() {
    FuncType t;
    t.params = {ValType::i32()};
    linker.define("env", "again",
                  store.create_host_function(t, [this](std::span<const Value> args, std::span<Value>) -> Result<void> {
                    const Value arg[] = {args[0]};
                    WEFT_TRY(store.call(*instance->get_export("rec"), arg));
                    return {};
                  }));
    auto module = WasmModule::from_text(engine, kReentry);
    EXPECT_TRUE(module.ok()) << module.error().to_string();
    auto inst = store.instantiate(*module, linker);
    EXPECT_TRUE(inst.ok()) << inst.error().to_string();
    instance = *inst;
  }
};

TEST(FiberHostReentry, UnboundedHostRecursionInsideAFiberIsCallStackExhausted) {
  ReentryHarness h;
  auto r = h.store.call(*h.instance->get_export("in-fiber"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "call stack exhausted");
  // The store stays usable.
  auto again = h.store.call(*h.instance->get_export("in-fiber"), {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "call stack exhausted");
}

TEST(FiberHostReentry, UnboundedHostRecursionOnTheMainStackIsCallStackExhausted) {
  ReentryHarness h;
  auto r = h.store.call(*h.instance->get_export("on-main"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "call stack exhausted");
}

}  // namespace
}  // namespace weft
