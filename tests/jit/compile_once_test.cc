// Compile once per module (jit/code_template.h): the second and every later
// instance of a module, in the same store or another, gets copies of the
// code compiled for the first, patched with its own objects — lazily (a function at its first call)
// and eagerly (the whole instance at instantiation). Each test gives every
// instance different state, so a constant left unpatched (the first
// instance's global, memory, table, tag, fiber site or function) shows in the
// results, and counts compilations through TierStats.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/generator_module.h"
#include "weft/weft.h"

namespace weft {
namespace {

// Every kind of instance-specific constant the compiler emits (globals, a
// memory, a table with call_indirect, table/memory init from segments,
// ref.func, a host import that asks for its caller, a direct call, a tag
// thrown and caught, a table growing); the first `run` returns
// 1004 * (seed + 1) + 216 for the instance's imported seed, and only when
// each of them is its own. `init_once` traps when called twice with one
// instance's data segment.
constexpr const char* kEveryReference = R"((module
  (import "env" "seed" (global $seed i32))
  (import "env" "host" (func $host (param i32) (result i32)))
  (type $ft (func (param i32) (result i32)))
  (global $g (mut i32) (global.get $seed))
  (memory 1 1)
  (data $d "\05\06\07\08")
  (data $once "\01")
  (table $t 4 funcref)
  (elem $e func $double $triple)
  (elem declare func $double)
  (tag $exn (param i32))
  (func $double (type $ft) (i32.mul (local.get 0) (i32.const 2)))
  (func $triple (type $ft) (i32.mul (local.get 0) (i32.const 3)))
  (func $catch (param i32) (result i32)
    (block $h (result i32)
      (try_table (catch $exn $h) (throw $exn (local.get 0)))
      (i32.const -1)))
  (func (export "run") (result i32)
    (global.set $g (i32.add (global.get $g) (i32.const 1)))
    (i32.store (i32.const 0) (global.get $g))
    (memory.init $d (i32.const 8) (i32.const 0) (i32.const 4))
    (table.init $t $e (i32.const 0) (i32.const 0) (i32.const 2))
    (call_indirect (type $ft) (i32.load (i32.const 0)) (i32.const 1))
    (call $double (i32.load8_u (i32.const 9)))
    (i32.add)
    (call $host (global.get $g))
    (i32.add)
    (call $catch (global.get $g))
    (i32.add)
    (table.set $t (i32.const 2) (ref.func $double))
    (call_indirect (type $ft) (i32.const 100) (i32.const 2))
    (i32.add)
    (table.grow $t (ref.null func) (i32.const 1))
    (i32.add))
  (func (export "global") (result i32) (global.get $g))
  (func (export "init_once") (memory.init $once (i32.const 16) (i32.const 0) (i32.const 1)) (data.drop $once))
))";


// Without guard regions unless asked, and memories with a maximum of one
// page: under qemu (the AArch64 tests) a memory's reservation (a guard
// region, or else the maximum) costs qemu ~60-120 MB of bookkeeping, and
// these tests make a thousand memories; GuardedMemoryTrapsInEveryCopy has three.
Config jit_config(bool eager, bool guard_regions = false) {
  Config config;
  config.tier = Tier::Jit;
  config.eager_compilation = eager;
  config.guard_regions = guard_regions;
  return config;
}

// kEveryReference's `env.host` in `store`: the caller's own global, read
// through its exports (so the caller recorded must be the calling instance),
// times 999 plus the argument.
Extern caller_reading_host(Store& store) {
  return store.create_host_function(
      FuncType{{ValType::i32()}, {ValType::i32()}},
      [&store](const Caller& caller, std::span<const Value> args, std::span<Value> results) -> Result<void> {
        std::optional<Extern> global = caller.get_export("global");
        if (!global) return make_error(ErrorKind::Trap, "no caller");
        auto g = store.call(*global, {});
        if (!g.ok()) return g.error();
        results[0] = Value::i32((*g)[0].as_i32() * 1000 + args[0].as_i32() - (*g)[0].as_i32());
        return {};
      });
}

class CompileOnce : public ::testing::TestWithParam<bool> {};  // the parameter: eager compilation

TEST_P(CompileOnce, AThousandInstancesCompileTheModuleOnce) {
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, kEveryReference);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  Store store(engine);
  Extern host = caller_reading_host(store);
  // In one store, so all alive at once, each with its own code.
  constexpr int kInstances = 1000;
  std::vector<Instance> instances;
  std::optional<TierStats> after_first;
  for (int k = 0; k < kInstances; ++k) {
    Linker linker;
    linker.define("env", "seed", store.create_global(GlobalType{ValType::i32(), false}, Value::i32(k * 7)));
    linker.define("env", "host", host);
    auto instance = store.instantiate(*module, linker);
    ASSERT_TRUE(instance.ok()) << instance.error().to_string();
    auto run = store.call(*instance->get_export("run"), {});
    ASSERT_TRUE(run.ok()) << "instance " << k << ": " << run.error().to_string();
    const int32_t g = k * 7 + 1;
    ASSERT_EQ(run->at(0).as_i32(), 1004 * g + 216) << "instance " << k;
    ASSERT_TRUE(store.call(*instance->get_export("init_once"), {}).ok()) << "instance " << k;
    instances.push_back(*instance);
    if (k == 0) after_first = store.tier_stats();
  }
  // The earlier instances still run their own code, with their own state.
  for (int k = 0; k < kInstances; k += 97) {
    auto run = store.call(*instances[k].get_export("run"), {});
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->at(0).as_i32(), 1004 * (k * 7 + 2) + 217) << "instance " << k;
  }
  const TierStats stats = store.tier_stats();
  EXPECT_EQ(stats.jit_fallbacks, 0u);
  // All six functions: eagerly at instantiation, lazily as `run`, the host and the test reach them.
  const uint32_t per_instance = 6;
  EXPECT_EQ(after_first->jit_compiled, per_instance);
  EXPECT_EQ(stats.jit_compiled, per_instance) << "compiled once";
  EXPECT_EQ(stats.jit_reused, per_instance * (kInstances - 1));
}

TEST_P(CompileOnce, FiberDispatchTablesFollowEachInstancesTags) {
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, test::kGeneratorModule);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  Store store(engine);
  std::vector<Instance> instances;
  for (int k = 0; k < 50; ++k) {
    auto instance = store.instantiate(*module, Linker{});
    ASSERT_TRUE(instance.ok());
    instances.push_back(*instance);
  }
  // Interleaved: each instance's fibers suspend with its own tags.
  for (int round = 0; round < 3; ++round)
    for (int k = 0; k < 50; ++k) {
      const int n = k + round * 10;
      const std::vector<Value> args = {Value::i32(n)};
      auto sum = store.call(*instances[k].get_export("sum"), args);
      ASSERT_TRUE(sum.ok()) << "instance " << k << ": " << sum.error().to_string();
      EXPECT_EQ(sum->at(0).as_i64(), int64_t(n) * (n - 1) / 2) << "instance " << k;
    }
  const TierStats stats = store.tier_stats();
  EXPECT_EQ(stats.jit_compiled, 2u);
  EXPECT_EQ(stats.jit_reused, 2u * 49);
  EXPECT_EQ(stats.jit_fallbacks, 0u);
}

// One store per instance (a store per request, as servers use wasmtime):
// the code is still compiled once, by the first store's JIT, and every other
// store's instance copies it with that store's context, fiber runtime and
// canonical type ids patched in.
TEST_P(CompileOnce, AThousandStoresCompileTheModuleOnce) {
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, kEveryReference);
  auto generator = WasmModule::from_text(engine, test::kGeneratorModule);
  ASSERT_TRUE(module.ok() && generator.ok());
  // A few stores alive at once, so that no store is made where the last one was.
  std::deque<Store> alive;
  for (int k = 0; k < 1000; ++k) {
    if (alive.size() == 3) alive.pop_front();
    Store& store = alive.emplace_back(engine);
    Extern host = caller_reading_host(store);
    Linker linker;
    linker.define("env", "seed", store.create_global(GlobalType{ValType::i32(), false}, Value::i32(k)));
    linker.define("env", "host", host);
    auto instance = store.instantiate(*module, linker);
    auto fibers = store.instantiate(*generator, Linker{});
    ASSERT_TRUE(instance.ok() && fibers.ok());
    auto run = store.call(*instance->get_export("run"), {});
    ASSERT_TRUE(run.ok()) << "store " << k << ": " << run.error().to_string();
    ASSERT_EQ(run->at(0).as_i32(), 1004 * (k + 1) + 216) << "store " << k;
    const std::vector<Value> n = {Value::i32(k % 17)};
    auto sum = store.call(*fibers->get_export("sum"), n);
    ASSERT_TRUE(sum.ok()) << "store " << k << ": " << sum.error().to_string();
    ASSERT_EQ(sum->at(0).as_i64(), int64_t(k % 17) * (k % 17 - 1) / 2) << "store " << k;
    const TierStats stats = store.tier_stats();
    // Lazily: run's five and the generator's two; eagerly all eight.
    const uint32_t functions = GetParam() ? 8 : 7;
    ASSERT_EQ(stats.jit_compiled, k == 0 ? functions : 0u) << "store " << k;
    ASSERT_EQ(stats.jit_reused, k == 0 ? 0u : functions) << "store " << k;
  }
}

// Stores on several threads share the module's code: whichever thread
// compiles a function first publishes it, the others copy it (or compile it
// too, if they got there at the same time), and a store's release copies the
// code its templates still read while others may be copying from it.
TEST_P(CompileOnce, StoresOnSeveralThreadsShareTheCode) {
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, kEveryReference);
  ASSERT_TRUE(module.ok());
  std::atomic<int> failures{0};
  std::atomic<uint32_t> compiled{0}, reused{0};
  auto worker = [&](int thread) {
    for (int k = 0; k < 40; ++k) {
      Store store(engine);
      Extern host = caller_reading_host(store);
      Linker linker;
      const int seed = thread * 1000 + k;
      linker.define("env", "seed", store.create_global(GlobalType{ValType::i32(), false}, Value::i32(seed)));
      linker.define("env", "host", host);
      auto instance = store.instantiate(*module, linker);
      if (!instance.ok()) {
        ++failures;
        continue;
      }
      auto run = store.call(*instance->get_export("run"), {});
      if (!run.ok() || int32_t(run->at(0).as_i32()) != 1004 * (seed + 1) + 216) ++failures;
      compiled += store.tier_stats().jit_compiled;
      reused += store.tier_stats().jit_reused;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(worker, t);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const uint32_t functions = GetParam() ? 6 : 5;  // lazily, `run` reaches five
  EXPECT_EQ(compiled + reused, functions * 160);
  EXPECT_GE(compiled.load(), functions);
  EXPECT_LE(compiled.load(), functions * 4) << "at most once per thread that raced for it";
}

// An import that is a host function for one instance and Wasm for another
// changes the code (the host's caller is recorded): the second compiles its own.
TEST_P(CompileOnce, InstancesWhoseCodeDiffersCompileTheirOwn) {
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, R"((module
    (import "env" "f" (func $f (param i32) (result i32)))
    (func (export "run") (param i32) (result i32) (i32.add (call $f (local.get 0)) (i32.const 1)))
  ))");
  auto provider = WasmModule::from_text(engine, R"((module
    (func (export "f") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  ))");
  ASSERT_TRUE(module.ok() && provider.ok());
  Store store(engine);
  Linker with_host;
  with_host.define("env", "f", store.create_host_function(FuncType{{ValType::i32()}, {ValType::i32()}},
                                                          [](std::span<const Value> args, std::span<Value> results) {
                                                            results[0] = Value::i32(args[0].as_i32() * 2);
                                                            return Result<void>{};
                                                          }));
  auto provided = store.instantiate(*provider, Linker{});
  ASSERT_TRUE(provided.ok());
  Linker with_wasm;
  with_wasm.define("env", "f", *provided->get_export("f"));
  auto a = store.instantiate(*module, with_host);
  auto b = store.instantiate(*module, with_wasm);
  auto c = store.instantiate(*module, with_host);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  const std::vector<Value> five = {Value::i32(5)};
  EXPECT_EQ(store.call(*a->get_export("run"), five)->at(0).as_i32(), 11);
  EXPECT_EQ(store.call(*b->get_export("run"), five)->at(0).as_i32(), 16);
  EXPECT_EQ(store.call(*c->get_export("run"), five)->at(0).as_i32(), 11);
  const TierStats stats = store.tier_stats();
  // provider's f, a's run, b's run (its own); c copies a's.
  EXPECT_EQ(stats.jit_compiled, 3u);
  EXPECT_EQ(stats.jit_reused, 1u);
}

// Interruption polls the store's own flag in every copy: a request made to
// the second store stops the code copied for it (and only that store's).
TEST_P(CompileOnce, EachStoresCopyPollsItsOwnInterruptFlag) {
  Config config = jit_config(GetParam());
  config.interruptible = true;
  Engine engine(config);
  auto module = WasmModule::from_text(engine, R"((module
    (func (export "spin") (param $n i32) (result i32)
      (loop $again
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br_if $again (i32.gt_s (local.get $n) (i32.const 0))))
      (i32.const 7))
  ))");
  ASSERT_TRUE(module.ok());
  Store first(engine), second(engine);
  auto a = first.instantiate(*module, Linker{});
  auto b = second.instantiate(*module, Linker{});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<Value> n = {Value::i32(1000)};
  ASSERT_TRUE(first.call(*a->get_export("spin"), n).ok());  // compiled by the first store
  auto handle = second.interrupt_handle();
  ASSERT_TRUE(handle.ok());
  handle->interrupt();
  auto stopped = second.call(*b->get_export("spin"), n);
  ASSERT_FALSE(stopped.ok()) << "the copy polled another store's flag";
  EXPECT_EQ(stopped.error().message, "interrupted");
  EXPECT_TRUE(first.call(*a->get_export("spin"), n).ok());
  EXPECT_EQ(second.tier_stats().jit_compiled, 0u);
  EXPECT_EQ(second.tier_stats().jit_reused, 1u);
}

// A guarded memory's out-of-bounds access faults into the function's trap
// stub, which the fault handler finds by the code's address: in each copy, at
// its own place.
TEST_P(CompileOnce, GuardedMemoryTrapsInEveryCopy) {
  Engine engine(jit_config(GetParam(), /*guard_regions=*/true));
  auto module = WasmModule::from_text(engine, R"((module
    (import "env" "seed" (global $seed i32))
    (memory 1)
    (func (export "load") (param i32) (result i32)
      (i32.store (i32.const 0) (global.get $seed))
      (i32.load (local.get 0)))
  ))");
  ASSERT_TRUE(module.ok());
  Store store(engine);
  for (int k = 0; k < 3; ++k) {
    Linker linker;
    linker.define("env", "seed", store.create_global(GlobalType{ValType::i32(), false}, Value::i32(100 + k)));
    auto instance = store.instantiate(*module, linker);
    ASSERT_TRUE(instance.ok());
    const std::vector<Value> in_bounds = {Value::i32(0)}, out_of_bounds = {Value::i32(70000)};
    auto loaded = store.call(*instance->get_export("load"), in_bounds);
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(loaded->at(0).as_i32(), 100 + k);
    auto trapped = store.call(*instance->get_export("load"), out_of_bounds);
    ASSERT_FALSE(trapped.ok());
    EXPECT_EQ(trapped.error().message, "out of bounds memory access") << "instance " << k;
  }
  EXPECT_EQ(store.tier_stats().jit_compiled, 1u);
  EXPECT_EQ(store.tier_stats().jit_reused, 2u);
}

INSTANTIATE_TEST_SUITE_P(Jit, CompileOnce, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Eager" : "Lazy"; });

}  // namespace
}  // namespace weft
