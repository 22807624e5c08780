// Execution tests through the public API, on every tier: calls, the operand
// stack's corner cases (locals read after being overwritten, multi-value
// blocks, br_table stubs, the interpreter's fused address adds and tees),
// traps with backtraces, deep recursion, host functions that re-enter Wasm,
// memory growth.
#include <gtest/gtest.h>

#include "core/module.h"
#include "tests/support/exec_test.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

WEFT_EXEC_SUITE(Execution);

// Typed function references from the host: a function reference argument
// must have the parameter's type (else call_ref would call a function of
// another signature), a null only where the parameter is nullable.
WEFT_EXEC_TEST(Execution, HostFunctionReferenceArgumentsAreTypeChecked) {
  WatHarness h(tier(), R"((module
    (type $i2i (func (param i32) (result i32)))
    (func $inc (export "inc") (type $i2i) (i32.add (local.get 0) (i32.const 1)))
    (func (export "nothing") (param i64))
    (func (export "apply") (param $f (ref $i2i)) (param $x i32) (result i32)
      (call_ref $i2i (local.get $x) (local.get $f)))
    (func (export "apply-or-zero") (param $f (ref null $i2i)) (result i32)
      (block $null (return (call_ref $i2i (i32.const 41) (br_on_null $null (local.get $f)))))
      (i32.const 0))
  ))");
  auto inc = h.instance->get_export("inc");
  auto nothing = h.instance->get_export("nothing");
  ASSERT_TRUE(inc && nothing);
  auto func_ref = [](Extern f) {  // a funcref value is the function's handle
    const uint64_t handle = reinterpret_cast<uint64_t>(f.object);
    return Value::from_raw(ValType::funcref(), &handle);
  };
  const Value inc_ref = func_ref(*inc), nothing_ref = func_ref(*nothing);
  EXPECT_EQ(h.i32("apply", {inc_ref, Value::i32(9)}), 10u);
  EXPECT_EQ(h.i32("apply-or-zero", {inc_ref}), 42u);
  EXPECT_EQ(h.i32("apply-or-zero", {Value::null_ref(ValType::funcref())}), 0u);
  auto wrong = h.store.call(*h.instance->get_export("apply"), std::vector<Value>{nothing_ref, Value::i32(9)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::Usage);
  EXPECT_NE(wrong.error().message.find("argument 0 has type funcref"), std::string::npos) << wrong.error().message;
  auto null = h.store.call(*h.instance->get_export("apply"), std::vector<Value>{Value::null_ref(ValType::funcref()), Value::i32(9)});
  ASSERT_FALSE(null.ok());
  EXPECT_NE(null.error().message.find("(null)"), std::string::npos) << null.error().message;
}

WEFT_EXEC_TEST(Execution, RecursionAndLoops) {
  WatHarness h(tier(), R"((module
    (func $fib (export "fib") (param i32) (result i32)
      (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
        (then (local.get 0))
        (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                       (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
    (func (export "sum") (param i32) (result i32) (local i32)
      (block $done (loop $l
        (br_if $done (i32.eqz (local.get 0)))
        (local.set 1 (i32.add (local.get 1) (local.get 0)))
        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
        (br $l)))
      (local.get 1)))
  )");
  EXPECT_EQ(h.i32("fib", {Value::i32(20)}), 6765u);
  EXPECT_EQ(h.i32("sum", {Value::i32(100)}), 5050u);
}

WEFT_EXEC_TEST(Execution, FusedAddressAddWrapsAndBoundsChecks) {
  // `a b i32.add; load/store` runs as one fused op (translate.cc,
  // take_address_add): the sum must wrap at 32 bits before the static offset
  // is added, and the bounds check must use the full effective address.
  WatHarness h(tier(), R"((module
    (memory 1)
    (func (export "store_load") (param $a i32) (param $b i32) (param $v i32) (result i32)
      (i32.store offset=4 (i32.add (local.get $a) (local.get $b)) (local.get $v))
      (i32.load offset=4 (i32.add (local.get $a) (local.get $b))))
    (func (export "load8") (param $a i32) (result i32)
      (i32.load8_u (i32.add (local.get $a) (i32.const 1))))
    (func (export "f64_roundtrip") (param $a i32) (result i32)
      (f64.store offset=8 (i32.add (local.get $a) (i32.const 16)) (f64.const 2.5))
      (i32.trunc_f64_s (f64.mul (f64.load offset=8 (i32.add (local.get $a) (i32.const 16))) (f64.const 4))))
    (func (export "i64_store8") (param $a i32) (param $b i32) (result i32)
      (i64.store8 (i32.add (local.get $a) (local.get $b)) (i64.const 0x1ff))
      (i32.load (local.get $b)))
    (func (export "load_offset_past_end") (param $a i32) (result i32)
      (i32.load offset=65533 (i32.add (local.get $a) (i32.const 0)))))
  )");
  EXPECT_EQ(h.i32("store_load", {Value::i32(100), Value::i32(20), Value::i32(0xCAFE)}), 0xCAFEu);
  // 0xFFFFFFF8 + 16 wraps to 8; + offset 4 = 12, in bounds: a separate add would do the same.
  EXPECT_EQ(h.i32("store_load", {Value::i32(0xFFFFFFF8u), Value::i32(16), Value::i32(77)}), 77u);
  EXPECT_EQ(h.i32("load8", {Value::i32(0xFFFFFFFFu)}), 0u);  // (-1 + 1) wraps to address 0
  EXPECT_EQ(h.i32("f64_roundtrip", {Value::i32(0xFFFFFFF0u)}), 10u);  // address 0 + 8
  EXPECT_EQ(h.i32("i64_store8", {Value::i32(0), Value::i32(40)}), 0xFFu);  // one byte only
  // Without the wrap the address would be 2^32 + 8; with it, 8 + offset 4 is fine.
  EXPECT_EQ(h.i32("store_load", {Value::i32(0xFFFFFFFFu), Value::i32(9), Value::i32(5)}), 5u);
  auto oob = h.call("store_load", {Value::i32(65000), Value::i32(530), Value::i32(1)});
  ASSERT_FALSE(oob.ok());
  EXPECT_EQ(oob.error().message, "out of bounds memory access");
  auto past = h.call("load_offset_past_end", {Value::i32(0)});
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().message, "out of bounds memory access");
}

WEFT_EXEC_TEST(Execution, TeeOfAFreshResultWritesTheLocalAndKeepsItsValue) {
  // `…; local.tee x` lets the producer write x directly and the stack entry
  // read x (translate.cc): x must hold the value afterwards, and a later write
  // to x while that entry is still pending must not change it.
  WatHarness h(tier(), R"((module
    (func (export "tee_then_overwrite") (param i32) (result i32) (local i32)
      (local.tee 1 (i32.add (local.get 0) (i32.const 1)))
      (local.set 1 (i32.const 100))
      (local.get 1)
      (i32.add))
    (func (export "tee_keeps_local") (param i32) (result i32) (local i32)
      (drop (local.tee 1 (i32.mul (local.get 0) (i32.const 3))))
      (local.get 1))
    (func (export "count_by_tee") (param i32) (result i32) (local i32 i32)
      (loop $l
        (local.set 2 (i32.add (local.get 2) (i32.const 1)))
        ;; (the second test only bounds the loop should the counter be lost)
        (br_if $l (i32.and (i32.lt_u (local.tee 1 (i32.add (local.get 1) (i32.const 4))) (local.get 0))
                           (i32.lt_u (local.get 2) (i32.const 1000)))))
      (i32.add (i32.mul (local.get 2) (i32.const 1000)) (local.get 1))))
  )");
  EXPECT_EQ(h.i32("tee_then_overwrite", {Value::i32(7)}), 108u);
  EXPECT_EQ(h.i32("tee_keeps_local", {Value::i32(5)}), 15u);
  EXPECT_EQ(h.i32("count_by_tee", {Value::i32(40)}), 10040u);  // 10 iterations, local 1 = 40
}

WEFT_EXEC_TEST(Execution, LocalReadBeforeOverwriteKeepsOldValue) {
  // `local.get 0` is still on the stack when local 0 is overwritten.
  WatHarness h(tier(), R"((module
    (func (export "f") (param i32) (result i32)
      (local.get 0)
      (local.set 0 (i32.const 100))
      (local.get 0)
      (i32.sub))
    (func (export "swap") (param i32 i32) (result i32 i32)
      (local.get 1) (local.get 0)))
  )");
  EXPECT_EQ(h.i32("f", {Value::i32(7)}), uint32_t(7 - 100));
  auto r = h.call("swap", {Value::i32(1), Value::i32(2)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].as_i32(), 2u);
  EXPECT_EQ((*r)[1].as_i32(), 1u);
}

WEFT_EXEC_TEST(Execution, MultiValueBlocksAndBrTable) {
  WatHarness h(tier(), R"((module
    (func (export "pick") (param i32) (result i32)
      (block $b2 (result i32)
        (block $b1 (result i32)
          (block $b0 (result i32)
            (i32.const 10) (local.get 0) (br_table $b0 $b1 $b2))
          (i32.const 1) (i32.add) (return))
        (i32.const 2) (i32.add) (return)))
    (func (export "pair") (result i32)
      (block (result i32 i32) (i32.const 3) (i32.const 4))
      (i32.mul)))
  )");
  EXPECT_EQ(h.i32("pick", {Value::i32(0)}), 11u);
  EXPECT_EQ(h.i32("pick", {Value::i32(1)}), 12u);
  EXPECT_EQ(h.i32("pick", {Value::i32(7)}), 10u);
  EXPECT_EQ(h.i32("pair", {}), 12u);
}

WEFT_EXEC_TEST(Execution, TrapsCarryMessageAndBacktrace) {
  WatHarness h(tier(), R"((module
    (func $inner (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0)))
    (func (export "outer") (param i32) (result i32) (call $inner (local.get 0)))
    (memory 1)
    (func (export "oob") (result i32) (i32.load (i32.const 65535))))
  )");
  auto r = h.call("outer", {Value::i32(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Trap);
  EXPECT_EQ(r.error().message, "integer divide by zero");
  // Each frame: the name (name section, else the export name) and the index.
  EXPECT_NE(r.error().detail.find("  at inner (func[0])\n  at outer (func[1])\n"), std::string::npos)
      << r.error().detail;
  auto oob = h.call("oob", {});
  ASSERT_FALSE(oob.ok());
  EXPECT_EQ(oob.error().message, "out of bounds memory access");
}

// Tail calls (Wasm 3.0): 10,000,000 tail-recursive calls run in constant
// stack — far past the default depth limit of 20,000 frames — directly,
// through a table, and inside a fiber.
WEFT_EXEC_TEST(Execution, TailCallsRunInConstantStack) {
  WatHarness h(tier(), R"((module
    (type $count_t (func (param i64 i64) (result i64)))
    (type $v (fiber (result i64)))
    (tag $go)
    (table funcref (elem $count_indirect))
    (func $count (export "count") (param $n i64) (param $acc i64) (result i64)
      (if (result i64) (i64.eqz (local.get $n))
        (then (local.get $acc))
        (else (return_call $count (i64.sub (local.get $n) (i64.const 1)) (i64.add (local.get $acc) (i64.const 2))))))
    (func $count_indirect (export "count_indirect") (param $n i64) (param $acc i64) (result i64)
      (if (result i64) (i64.eqz (local.get $n))
        (then (local.get $acc))
        (else (return_call_indirect (type $count_t)
                (i64.sub (local.get $n) (i64.const 1)) (i64.add (local.get $acc) (i64.const 1)) (i32.const 0)))))
    (func $in_fiber (param $self (ref $v)) (result i64)
      (unreachable)
      (event $go (return_call $count (i64.const 10000000) (i64.const 0))))
    (func (export "count_in_fiber") (result i64) (fiber.resume $v $go (fiber.new $in_fiber))))
  )");
  auto direct = h.call("count", {Value::i64(10'000'000), Value::i64(0)});
  ASSERT_TRUE(direct.ok()) << direct.error().to_string();
  EXPECT_EQ((*direct)[0].as_i64(), 20'000'000);
  auto indirect = h.call("count_indirect", {Value::i64(10'000'000), Value::i64(0)});
  ASSERT_TRUE(indirect.ok()) << indirect.error().to_string();
  EXPECT_EQ((*indirect)[0].as_i64(), 10'000'000);
  auto fiber = h.call("count_in_fiber");
  ASSERT_TRUE(fiber.ok()) << fiber.error().to_string();
  EXPECT_EQ((*fiber)[0].as_i64(), 20'000'000);
}

WEFT_EXEC_TEST(Execution, DeepRecursionIsExhaustionNotACrash) {
  WatHarness h(tier(), R"((module (func $r (export "r") (param i64) (result i64)
    (i64.add (call $r (i64.add (local.get 0) (i64.const 1))) (i64.const 1)))))");
  auto r = h.call("r", {Value::i64(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Exhaustion);
  EXPECT_EQ(r.error().message, "call stack exhausted");
  // The store stays usable afterwards.
  EXPECT_FALSE(h.call("r", {Value::i64(0)}).ok());
}

WEFT_EXEC_TEST(Execution, HostFunctionsCanReenterWasm) {
  WatHarness h(config());
  h.define_host("env", "callback", FuncType{{ValType::i32()}, {ValType::i32()}},
                [&](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                  WEFT_TRY_ASSIGN(auto r, h.call("twice", {args.begin(), args.end()}));
                  results[0] = Value::i32(r[0].as_i32() + 1);
                  return {};
                });
  ASSERT_TRUE(h.load(R"((module
    (import "env" "callback" (func $cb (param i32) (result i32)))
    (func (export "twice") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
    (func (export "run") (param i32) (result i32) (i32.add (call $cb (local.get 0)) (i32.const 1000))))
  )"));
  EXPECT_EQ(h.i32("run", {Value::i32(21)}), 1043u);
}

// Constant expressions (runtime/instantiate.cc eval_const_expr) keep up to
// four values without an allocation: these go deeper — nine values before
// the first add in a global, seven in an i64 one, five in an elem segment's
// offset — beside one-instruction ones (v128 included).
WEFT_EXEC_TEST(Execution, DeepExtendedConstantExpressions) {
  WatHarness h(tier(), R"((module
    (global $g i32
      (i32.add (i32.const 1) (i32.add (i32.const 2) (i32.add (i32.const 3) (i32.add (i32.const 4)
        (i32.add (i32.const 5) (i32.add (i32.const 6) (i32.add (i32.const 7) (i32.add (i32.const 8)
          (i32.const 9))))))))))
    (global $w i64
      (i64.sub (i64.mul (i64.const 3) (i64.mul (i64.const 5) (i64.mul (i64.const 7) (i64.mul (i64.const 11)
        (i64.mul (i64.const 13) (i64.mul (i64.const 17) (i64.const 19))))))) (i64.const 1)))
    (global $v v128 (v128.const i32x4 1 2 3 4))
    (table 16 funcref)
    (elem (table 0) (offset (i32.sub (i32.add (i32.const 1) (i32.add (i32.const 2) (i32.add (i32.const 3)
      (i32.add (i32.const 4) (i32.const 5))))) (i32.const 10))) func $seven)
    (func $seven (result i32) (i32.const 7))
    (func (export "g") (result i32) (global.get $g))
    (func (export "w") (result i64) (global.get $w))
    (func (export "v") (result i32) (i32x4.extract_lane 3 (global.get $v)))
    (func (export "at") (param i32) (result i32) (call_indirect (result i32) (local.get 0))))
  )");
  EXPECT_EQ(h.i32("g", {}), 45u);
  EXPECT_EQ(h.value("w", {}), 3ull * 5 * 7 * 11 * 13 * 17 * 19 - 1);
  EXPECT_EQ(h.i32("v", {}), 4u);
  EXPECT_EQ(h.i32("at", {Value::i32(5)}), 7u);  // 1 + 2 + 3 + 4 + 5 - 10
}

WEFT_EXEC_TEST(Execution, MemoryGrowAndBulkOps) {
  WatHarness h(tier(), R"((module (memory 1 3)
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (func (export "size") (result i32) (memory.size))
    (func (export "fill_and_read") (result i32)
      (memory.fill (i32.const 100) (i32.const 7) (i32.const 4))
      (memory.copy (i32.const 200) (i32.const 100) (i32.const 4))
      (i32.load (i32.const 200))))
  )");
  EXPECT_EQ(h.i32("grow", {Value::i32(1)}), 1u);
  EXPECT_EQ(h.i32("size", {}), 2u);
  EXPECT_EQ(h.i32("grow", {Value::i32(5)}), 0xFFFFFFFFu);
  EXPECT_EQ(h.i32("fill_and_read", {}), 0x07070707u);
}

WEFT_EXEC_TEST(Execution, HugeLocalCountIsALimitErrorNotACrash) {
  // Valid per the binary format (u32 local counts), but no frame could hold it.
  Module m;
  m.types.push_back(FuncType{{}, {}});
  Function f;
  f.type_index = 0;
  f.locals.push_back(LocalGroup{4000000000u, ValType::i64()});
  f.body = {0x0B};
  m.functions.push_back(f);
  WatHarness h(config());
  EXPECT_FALSE(h.instantiate(WasmModule::from_ir(h.engine, m), WatHarness::Instantiation::MayFail));
  ASSERT_TRUE(h.instantiate_error);
  EXPECT_EQ(h.instantiate_error->kind, ErrorKind::Limit);
}

// Regression: the host-call path kept a std::vector (arguments beyond 16
// slots) and the callback's Result alive across the dispatch loop's indirect
// goto, which runs no destructors — every such call leaked under GCC (found by
// LeakSanitizer in `make test-asan`) and Clang refused to compile it.
WEFT_EXEC_TEST(Execution, HostCallsWithManyArgumentsAndTrapsDoNotLeak) {
  WatHarness h(config());
  std::vector<ValType> params(20, ValType::i64());
  h.define_host("env", "sum20", FuncType{params, {ValType::i64()}},
                [](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                  uint64_t sum = 0;
                  for (const Value& a : args) sum += a.as_i64();
                  results[0] = Value::i64(sum);
                  return {};
                });
  h.define_host("env", "fail", FuncType{{}, {}}, [](std::span<const Value>, std::span<Value>) -> Result<void> {
    return make_error(ErrorKind::Trap, "host says no: a message long enough to live on the heap");
  });
  std::string args;
  for (int i = 1; i <= 20; ++i) args += "(i64.const " + std::to_string(i) + ") ";
  ASSERT_TRUE(h.load(R"((module
    (import "env" "sum20" (func $sum20 (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64) (result i64)))
    (import "env" "fail" (func $fail))
    (func (export "run") (param i32) (result i64) (local i64)
      (loop $l
        (local.set 1 (i64.add (local.get 1) (call $sum20 )" + args + R"()))
        (br_if $l (local.tee 0 (i32.sub (local.get 0) (i32.const 1)))))
      (local.get 1))
    (func (export "fail") (call $fail)))
  )"));
  EXPECT_EQ(h.value("run", {Value::i32(100)}), 100u * 210u);
  for (int i = 0; i < 10; ++i)
    test::expect_trap(h.call("fail"), ErrorKind::Trap, "host says no: a message long enough to live on the heap");
}

}  // namespace
}  // namespace weft
