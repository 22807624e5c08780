// SIMD on every tier: v128 values through everything that carries values —
// params, results, locals, globals, select, block/loop params and results,
// br_table, direct, indirect and host calls, fiber event payloads — and the
// interpreter's translation corner cases (a result written over its own
// operand, tees, constants in slots, bounds checks of every access size).
// On the JIT tier every function is compiled (the counts are checked); the
// carriers run a second time with some functions left to the interpreter
// (Config::jit_interpreted_functions): v128 values crossing between JIT code
// and interpreted code both ways, on one calling convention.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "tests/support/exec_test.h"
#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

using test::WatHarness;

WEFT_EXEC_SUITE(Simd);

// A v128 from four i32 lanes, lane 0 first (the little-endian layout).
Value v128_i32x4(uint32_t l0, uint32_t l1, uint32_t l2, uint32_t l3) {
  return Value::v128(uint64_t(l1) << 32 | l0, uint64_t(l3) << 32 | l2);
}
std::array<uint32_t, 4> i32x4_lanes(const Value& v) {
  std::array<uint32_t, 4> lanes;
  std::memcpy(lanes.data(), v.raw(), 16);
  return lanes;
}
std::array<uint8_t, 16> i8x16_lanes(const Value& v) {
  std::array<uint8_t, 16> lanes;
  std::memcpy(lanes.data(), v.raw(), 16);
  return lanes;
}

// The single v128 result of a call (a test failure, and zeros, if it failed).
Value v128_result(WatHarness& h, std::string_view name, std::vector<Value> args) {
  auto r = h.call(name, std::move(args));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  if (!r.ok() || r->size() != 1) return Value::v128(0, 0);
  EXPECT_EQ((*r)[0].type().kind, ValType::V128);
  return (*r)[0];
}

constexpr const char* kCarriers = R"((module
  (type $vv (func (param v128 v128) (result v128)))
  (import "env" "swap_halves" (func $swap (param v128) (result v128)))
  (global $g (mut v128) (v128.const i64x2 0 0))
  (table 1 funcref)
  (elem (i32.const 0) $add)
  (func $add (type $vv) (i32x4.add (local.get 0) (local.get 1)))
  ;; Scalar signature, v128 inside: a v128 local, call_indirect, a global.
  (func $lane_sum (export "lane_sum") (param $x i32) (result i32) (local $v v128)
    (local.set $v (call_indirect (type $vv) (i32x4.splat (local.get $x)) (v128.const i32x4 1 2 3 4) (i32.const 0)))
    (global.set $g (local.get $v))
    (i32.add (i32.add (i32x4.extract_lane 0 (global.get $g)) (i32x4.extract_lane 1 (global.get $g)))
             (i32.add (i32x4.extract_lane 2 (global.get $g)) (i32x4.extract_lane 3 (global.get $g)))))
  ;; No v128 anywhere: JIT code calling the interpreted $lane_sum.
  (func (export "twice_lane_sum") (param i32) (result i32)
    (i32.mul (call $lane_sum (local.get 0)) (i32.const 2)))
  (func (export "select_v") (param v128 v128 i32) (result v128)
    (select (local.get 0) (local.get 1) (local.get 2)))
  ;; br_table carrying a v128 to three targets: 0 adds 1 to each lane, 1
  ;; swaps the halves through the host, anything else passes it through.
  (func (export "route") (param $a v128) (param $i i32) (result v128)
    (block $out (result v128)
      (block $swap_it (result v128)
        (block $add_one (result v128)
          (local.get $a) (local.get $i)
          (br_table $add_one $swap_it $out))
        (v128.const i32x4 1 1 1 1)
        (i32x4.add)
        (br $out))
      (call $swap)))
  ;; A loop with a v128 param: doubles the lanes n times (n >= 1).
  (func (export "double_n") (param $v v128) (param $n i32) (result v128)
    (local.get $v)
    (loop $again (param v128) (result v128)
      (local.tee $v)
      (local.get $v)
      (i32x4.add)
      (local.tee $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $again)))
))";

WEFT_EXEC_TEST(Simd, V128CrossesEveryValueCarrier) {
  for (const bool mixed : {false, true}) {
  SCOPED_TRACE(mixed ? "some functions interpreted" : "all compiled");
  Config config = eager_config();
  if (mixed) config.jit_interpreted_functions = {"add", "lane_sum", "route"};
  WatHarness h(config);
  h.define_host("env", "swap_halves", FuncType{{ValType::v128()}, {ValType::v128()}},
                [](std::span<const Value> args, std::span<Value> results) -> Result<void> {
                  results[0] = Value::v128(args[0].raw()[1], args[0].raw()[0]);
                  return {};
                });
  ASSERT_TRUE(h.load(kCarriers));
  // splat(10) + (1 2 3 4) = 11 12 13 14.
  EXPECT_EQ(h.i32("lane_sum", {Value::i32(10)}), 50u);
  EXPECT_EQ(h.i32("twice_lane_sum", {Value::i32(10)}), 100u);
  const Value a = v128_i32x4(1, 2, 3, 4), b = v128_i32x4(5, 6, 7, 8);
  EXPECT_EQ(i32x4_lanes(v128_result(h, "select_v", {a, b, Value::i32(1)})), (std::array<uint32_t, 4>{1, 2, 3, 4}));
  EXPECT_EQ(i32x4_lanes(v128_result(h, "select_v", {a, b, Value::i32(0)})), (std::array<uint32_t, 4>{5, 6, 7, 8}));
  EXPECT_EQ(i32x4_lanes(v128_result(h, "route", {a, Value::i32(0)})), (std::array<uint32_t, 4>{2, 3, 4, 5}));
  EXPECT_EQ(i32x4_lanes(v128_result(h, "route", {a, Value::i32(1)})), (std::array<uint32_t, 4>{3, 4, 1, 2}));
  EXPECT_EQ(i32x4_lanes(v128_result(h, "route", {a, Value::i32(7)})), (std::array<uint32_t, 4>{1, 2, 3, 4}));
  EXPECT_EQ(i32x4_lanes(v128_result(h, "double_n", {a, Value::i32(3)})), (std::array<uint32_t, 4>{8, 16, 24, 32}));
  if (mixed)
    test::expect_jit_counts(h.store, tier(), 3, 3);
  else
    test::expect_jit_counts(h.store, tier(), 6, 0);
  }
}

WEFT_EXEC_TEST(Simd, AResultMayOverwriteItsOwnOperand) {
  // `local.set x (op (local.get x) …)` lets the op write x directly
  // (translate.cc); every handler reads its operands first.
  WatHarness h(tier(), R"((module
    (func (export "in_place") (param $a v128) (param $b v128) (result v128)
      (local.set $a (i8x16.add (local.get $a) (local.get $b)))
      (local.set $a (i8x16.add (local.get $a) (local.get $b)))
      ;; b reversed, written over b while reading it
      (local.set $b (i8x16.shuffle 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0 (local.get $b) (local.get $a)))
      (local.set $b (i8x16.replace_lane 0 (local.get $b) (i8x16.extract_lane_u 0 (local.get $b))))
      (i8x16.sub (local.get $a) (local.tee $b (local.get $b))))
    (func (export "tee_twice") (param $a v128) (result v128) (local $t v128)
      (f32x4.add (local.tee $t (f32x4.mul (local.get $a) (v128.const f32x4 2 2 2 2))) (local.get $t)))
  ))");
  // a = splat 1, b = bytes 0..15: a + 2b = 1 + 2i, reversed b = 15 - i, difference 3i - 14.
  const Value a = Value::v128(0x0101010101010101ull, 0x0101010101010101ull);
  const Value b = Value::v128(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull);
  const std::array<uint8_t, 16> got = i8x16_lanes(v128_result(h, "in_place", {a, b}));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], uint8_t(3 * i - 14)) << "lane " << i;
  // (1.5 * 2) + (1.5 * 2) = 6 in every lane.
  const uint32_t one_and_half = 0x3fc00000u, six = 0x40c00000u;
  EXPECT_EQ(i32x4_lanes(v128_result(h, "tee_twice", {v128_i32x4(one_and_half, one_and_half, one_and_half, one_and_half)})),
            (std::array<uint32_t, 4>{six, six, six, six}));
}

WEFT_EXEC_TEST(Simd, EveryAccessSizeIsBoundsChecked) {
  // One 64 KiB page; each access traps exactly when its last byte is past the end.
  WatHarness h(tier(), R"((module
    (memory 1)
    (data (i32.const 65520) "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f")
    (func (export "load") (param i32) (result v128) (v128.load (local.get 0)))
    (func (export "load_offset") (param i32) (result v128) (v128.load offset=16 (local.get 0)))
    (func (export "load8x8_s") (param i32) (result v128) (v128.load8x8_s (local.get 0)))
    (func (export "load32_zero") (param i32) (result v128) (v128.load32_zero (local.get 0)))
    (func (export "load16_splat") (param i32) (result v128) (v128.load16_splat (local.get 0)))
    (func (export "load64_lane") (param i32) (result v128)
      (v128.load64_lane 1 (local.get 0) (v128.const i64x2 -1 -1)))
    (func (export "store8_lane") (param i32) (result i32)
      (v128.store8_lane 15 (local.get 0) (v128.const i8x16 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0x5a))
      (i32.load8_u (local.get 0)))
    (func (export "store") (param i32)
      (v128.store (local.get 0) (v128.const i64x2 0 0)))
  ))");
  const Value last = v128_result(h, "load", {Value::i32(65520)});
  EXPECT_EQ(last.raw()[0], 0x0706050403020100ull);
  EXPECT_EQ(last.raw()[1], 0x0f0e0d0c0b0a0908ull);
  test::expect_trap(h.call("load", {Value::i32(65521)}), ErrorKind::Trap, "out of bounds memory access");
  test::expect_trap(h.call("load", {Value::i32(0xFFFFFFFFu)}), ErrorKind::Trap, "out of bounds memory access");
  EXPECT_TRUE(h.call("load_offset", {Value::i32(65504)}).ok());
  test::expect_trap(h.call("load_offset", {Value::i32(65505)}), ErrorKind::Trap, "out of bounds memory access");
  // Bytes 8..15 of the data, sign-extended to i16 lanes (all positive).
  EXPECT_EQ(v128_result(h, "load8x8_s", {Value::i32(65528)}).raw()[0], 0x000b000a00090008ull);
  test::expect_trap(h.call("load8x8_s", {Value::i32(65529)}), ErrorKind::Trap, "out of bounds memory access");
  const Value zero_filled = v128_result(h, "load32_zero", {Value::i32(65532)});
  EXPECT_EQ(zero_filled.raw()[0], 0x0f0e0d0cull);
  EXPECT_EQ(zero_filled.raw()[1], 0u);
  test::expect_trap(h.call("load32_zero", {Value::i32(65533)}), ErrorKind::Trap, "out of bounds memory access");
  EXPECT_EQ(v128_result(h, "load16_splat", {Value::i32(65534)}).raw()[1], 0x0f0e0f0e0f0e0f0eull);
  test::expect_trap(h.call("load16_splat", {Value::i32(65535)}), ErrorKind::Trap, "out of bounds memory access");
  const Value lane = v128_result(h, "load64_lane", {Value::i32(65528)});
  EXPECT_EQ(lane.raw()[0], ~0ull);
  EXPECT_EQ(lane.raw()[1], 0x0f0e0d0c0b0a0908ull);
  test::expect_trap(h.call("load64_lane", {Value::i32(65529)}), ErrorKind::Trap, "out of bounds memory access");
  EXPECT_EQ(h.i32("store8_lane", {Value::i32(65535)}), 0x5au);
  test::expect_trap(h.call("store8_lane", {Value::i32(65536)}), ErrorKind::Trap, "out of bounds memory access");
  // A store that traps writes nothing, not even its in-bounds part (the last
  // byte is still the 0x5a store8_lane wrote).
  test::expect_trap(h.call("store", {Value::i32(65521)}), ErrorKind::Trap, "out of bounds memory access");
  EXPECT_EQ(v128_result(h, "load", {Value::i32(65520)}).raw()[1], 0x5a0e0d0c0b0a0908ull);
}

WEFT_EXEC_TEST(Simd, V128EventPayloadsBetweenFibers) {
  // A generator yielding v128 values: v128 event payloads, through the JIT's
  // inline switch and its dispatch.
  WatHarness h(tier(), R"((module
    (type $gen (fiber))
    (tag $next)
    (tag $yield (param v128))
    (func $lanes_up (param $self (ref $gen)) (param $n i32)
      (local $i i32)
      (event $next
        (block $done
          (loop $more
            (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
            (handle
              (fiber.suspend $yield (local.get $self)
                (i32x4.replace_lane 3 (i32x4.splat (local.get $i)) (i32.const 1)))
              (event $next))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $more)))))
    (func (export "sum") (param $n i32) (result i32)
      (local $g (ref null $gen))
      (local $acc v128)
      (local.set $g (fiber.new $lanes_up (local.get $n)))
      (block $done
        (loop $again
          (handle
            (fiber.resume $gen $next (local.get $g))
            (br $done)
            (event $yield (param v128)
              (local.set $acc (i32x4.add (local.get $acc)))
              (br $again)))))
      ;; lane 0: 0 + 1 + … + (n-1); lane 3: one per yield
      (i32.add (i32.mul (i32x4.extract_lane 0 (local.get $acc)) (i32.const 1000))
               (i32x4.extract_lane 3 (local.get $acc))))
  ))");
  EXPECT_EQ(h.i32("sum", {Value::i32(10)}), 45010u);
  EXPECT_EQ(h.i32("sum", {Value::i32(0)}), 0u);
  test::expect_jit_counts(h.store, tier(), 2, 0);
}

}  // namespace
}  // namespace weft
