// Function types are identified store-wide (runtime/store.h): the same
// signature in two modules is one type — imports link by it and call_indirect
// checks by it — and a store interns a module's types in place, so it keeps
// every module whose types it interned, also after the embedder drops the
// module and also when that module's instantiation failed (the ASan build
// would catch a type read from a freed module). Run on every tier, lazily and
// eagerly compiled.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/exec_test.h"
#include "weft/weft.h"

namespace weft {
namespace {

WEFT_EXEC_SUITE(TypeIdentity);

// Exports f: (i32 i64) -> f32, and a table holding it.
constexpr const char* kProvider = R"((module
  (type $sig (func (param i32 i64) (result f32)))
  (table (export "table") 1 funcref)
  (elem (i32.const 0) $f)
  (func $f (export "f") (type $sig) (f32.convert_i64_s (i64.add (i64.extend_i32_s (local.get 0)) (local.get 1))))
))";

// Its own copy of the signature: imports f by it, and calls the provider's
// table entry through it (matches) and through another type (traps).
constexpr const char* kUser = R"((module
  (type $other (func (param i32 i32) (result f32)))
  (type $same (func (param i32 i64) (result f32)))
  (import "p" "f" (func $f (type $same)))
  (import "p" "table" (table 1 funcref))
  (func (export "direct") (result f32) (call $f (i32.const 40) (i64.const 2)))
  (func (export "indirect") (result f32) (call_indirect (type $same) (i32.const 1) (i64.const 2) (i32.const 0)))
  (func (export "mismatched") (result f32) (call_indirect (type $other) (i32.const 1) (i32.const 2) (i32.const 0)))
))";

// Imports f with a signature no module had before: unlinkable, after the
// store interned that signature.
constexpr const char* kUnlinkable = R"((module
  (import "p" "f" (func (param f64 f64 i32) (result i64)))
))";

// Uses the unlinkable module's signature for a function of its own.
constexpr const char* kLater = R"((module
  (type $new (func (param f64 f64 i32) (result i64)))
  (table 1 funcref)
  (elem (i32.const 0) $g)
  (func $g (type $new) (i64.trunc_f64_s (f64.add (local.get 0) (local.get 1))))
  (func (export "run") (result i64) (call_indirect (type $new) (f64.const 5) (f64.const 2.5) (i32.const 7) (i32.const 0)))
))";

void expect_one_type_per_signature(const Config& config) {
  Engine engine(config);
  Store store(engine);
  Linker linker;
  {
    auto provider = WasmModule::from_text(engine, kProvider);
    ASSERT_TRUE(provider.ok()) << provider.error().to_string();
    auto instance = store.instantiate(*provider, linker);
    ASSERT_TRUE(instance.ok()) << instance.error().to_string();
    linker.define_instance("p", *instance);
  }  // the provider's module handle is gone; the store keeps what it needs
  std::optional<Instance> user;
  {
    auto module = WasmModule::from_text(engine, kUser);
    ASSERT_TRUE(module.ok()) << module.error().to_string();
    auto instance = store.instantiate(*module, linker);
    ASSERT_TRUE(instance.ok()) << instance.error().to_string();
    user = *instance;
  }
  auto call = [&](const char* name) { return store.call(*user->get_export(name), {}); };
  auto direct = call("direct");
  ASSERT_TRUE(direct.ok()) << direct.error().to_string();
  EXPECT_EQ((*direct)[0].as_f32(), 42.0f);
  auto indirect = call("indirect");
  ASSERT_TRUE(indirect.ok()) << indirect.error().to_string();
  EXPECT_EQ((*indirect)[0].as_f32(), 3.0f);
  auto mismatched = call("mismatched");
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.error().message.find("indirect call type mismatch"), std::string::npos)
      << mismatched.error().to_string();

  {
    auto module = WasmModule::from_text(engine, kUnlinkable);
    ASSERT_TRUE(module.ok()) << module.error().to_string();
    auto instance = store.instantiate(*module, linker);
    ASSERT_FALSE(instance.ok());
    EXPECT_NE(instance.error().message.find("function signature differs"), std::string::npos)
        << instance.error().to_string();
  }  // a failed instantiation's module: dropped, its interned types read below
  auto module = WasmModule::from_text(engine, kLater);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto later = store.instantiate(*module, linker);
  ASSERT_TRUE(later.ok()) << later.error().to_string();
  auto run = store.call(*later->get_export("run"), {});
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  EXPECT_EQ(int64_t((*run)[0].as_i64()), 7);
}

WEFT_EXEC_TEST(TypeIdentity, OneTypePerSignatureAcrossModules) { expect_one_type_per_signature(config()); }

WEFT_EXEC_TEST(TypeIdentity, OneTypePerSignatureAcrossModulesCompiledEagerly) {
  expect_one_type_per_signature(eager_config());
}

}  // namespace
}  // namespace weft
