// WAST scripts: module forms, actions, registrations and every assertion,
// including NaN patterns, per-lane v128 expectations and reference values.
#include "text/wast.h"

#include <gtest/gtest.h>

#include "tests/text/test_util.h"

namespace weft::text {
namespace {

WastScript parse_script(std::string_view src) {
  Result<WastScript> r = parse_wast(src);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : WastScript{};
}

using K = WastCommand::Kind;
using EK = WastExpected::Kind;

TEST(Wast, ModuleForms) {
  WastScript s = parse_script(R"wast(
(module $A (func (export "f")))
(module $B binary "\00asm" "\01\00\00\00")
(module quote "(func" " (export \"q\"))")
(module)
)wast");
  ASSERT_EQ(s.commands.size(), 4u);
  const WastModule& a = *s.commands[0].module;
  EXPECT_EQ(s.commands[0].kind, K::Module);
  EXPECT_EQ(s.commands[0].line, 2u);
  EXPECT_EQ(a.form, WastModule::Form::Text);
  EXPECT_EQ(a.id, "A");
  EXPECT_EQ(a.module.names.module_name, "A");
  EXPECT_EQ(a.module.exports.size(), 1u);
  const WastModule& b = *s.commands[1].module;
  EXPECT_EQ(b.form, WastModule::Form::Binary);
  EXPECT_EQ(b.id, "B");
  EXPECT_EQ(b.bytes, (std::vector<uint8_t>{0, 'a', 's', 'm', 1, 0, 0, 0}));
  const WastModule& q = *s.commands[2].module;
  EXPECT_EQ(q.form, WastModule::Form::Quote);
  EXPECT_EQ(q.quote, "(func (export \"q\"))");
  EXPECT_FALSE(q.id.has_value());
  EXPECT_EQ(s.commands[3].module->form, WastModule::Form::Text);
}

TEST(Wast, ActionsAndRegister) {
  WastScript s = parse_script(R"wast(
(register "M" $A)
(register "N")
(invoke "f" (i32.const -1) (i64.const 2) (f32.const 1.5) (f64.const -0) (ref.null func) (ref.extern 7))
(get $A "g")
)wast");
  ASSERT_EQ(s.commands.size(), 4u);
  EXPECT_EQ(s.commands[0].kind, K::Register);
  EXPECT_EQ(s.commands[0].text, "M");
  EXPECT_EQ(s.commands[0].module_id, "A");
  EXPECT_FALSE(s.commands[1].module_id.has_value());
  const WastAction& inv = *s.commands[2].action;
  EXPECT_EQ(s.commands[2].kind, K::Action);
  EXPECT_EQ(inv.kind, WastAction::Kind::Invoke);
  EXPECT_EQ(inv.name, "f");
  ASSERT_EQ(inv.args.size(), 6u);
  EXPECT_EQ(inv.args[0].type, ValType::i32());
  EXPECT_EQ(inv.args[0].bits[0], 0xFFFFFFFFu);
  EXPECT_EQ(inv.args[1].bits[0], 2u);
  EXPECT_EQ(inv.args[2].bits[0], 0x3FC00000u);
  EXPECT_EQ(inv.args[3].bits[0], 0x8000000000000000u);
  EXPECT_EQ(inv.args[4].type, ValType::funcref());
  EXPECT_TRUE(inv.args[4].is_null);
  EXPECT_EQ(inv.args[5].type, ValType::externref());
  EXPECT_FALSE(inv.args[5].is_null);
  EXPECT_EQ(inv.args[5].bits[0], 7u);
  const WastAction& get = *s.commands[3].action;
  EXPECT_EQ(get.kind, WastAction::Kind::Get);
  EXPECT_EQ(get.module_id, "A");
  EXPECT_EQ(get.name, "g");
}

TEST(Wast, AssertReturnPatterns) {
  WastScript s = parse_script(R"wast(
(assert_return (invoke "f"))
(assert_return (invoke "f") (f32.const nan:canonical) (f64.const nan:arithmetic) (f32.const -nan))
(assert_return (invoke "f") (ref.func) (ref.extern) (ref.extern 3) (ref.null extern))
(assert_return (invoke "f") (v128.const i16x8 1 2 3 4 5 6 7 -1))
(assert_return (invoke "f") (v128.const f32x4 1 nan:canonical -0 nan:arithmetic))
(assert_return (invoke "f") (v128.const f64x2 1 2))
)wast");
  ASSERT_EQ(s.commands.size(), 6u);
  EXPECT_TRUE(s.commands[0].expected.empty());
  const auto& e1 = s.commands[1].expected;
  ASSERT_EQ(e1.size(), 3u);
  EXPECT_EQ(e1[0].kind, EK::CanonicalNan);
  EXPECT_EQ(e1[0].value.type, ValType::f32());
  EXPECT_EQ(e1[1].kind, EK::ArithmeticNan);
  EXPECT_EQ(e1[1].value.type, ValType::f64());
  EXPECT_EQ(e1[2].kind, EK::Exact);
  EXPECT_EQ(e1[2].value.bits[0], 0xFFC00000u);
  const auto& e2 = s.commands[2].expected;
  EXPECT_EQ(e2[0].kind, EK::AnyFunc);
  EXPECT_EQ(e2[1].kind, EK::AnyExtern);
  EXPECT_EQ(e2[2].kind, EK::Exact);
  EXPECT_EQ(e2[2].value.bits[0], 3u);
  EXPECT_TRUE(e2[3].value.is_null);
  const WastExpected& v = s.commands[3].expected[0];
  EXPECT_EQ(v.kind, EK::Exact);
  EXPECT_EQ(v.value.type, ValType::v128());
  EXPECT_EQ(v.value.bits[0], 0x0004000300020001u);
  EXPECT_EQ(v.value.bits[1], 0xFFFF000700060005u);
  const WastExpected& l = s.commands[4].expected[0];
  EXPECT_EQ(l.kind, EK::V128Lanes);
  EXPECT_EQ(l.lane_type, ValType::F32);
  EXPECT_EQ(l.lanes, (std::vector<EK>{EK::Exact, EK::CanonicalNan, EK::Exact, EK::ArithmeticNan}));
  EXPECT_EQ(l.value.bits[0], 0x000000003F800000u);
  EXPECT_EQ(l.value.bits[1], 0x0000000080000000u);
  EXPECT_EQ(s.commands[5].expected[0].kind, EK::Exact);
  EXPECT_EQ(s.commands[5].expected[0].value.bits[1], 0x4000000000000000u);
}

TEST(Wast, Assertions) {
  WastScript s = parse_script(R"wast(
(assert_trap (invoke "f") "unreachable")
(assert_trap (module (func unreachable) (start 0)) "unreachable")
(assert_exhaustion (invoke "loop") "call stack exhausted")
(assert_malformed (module quote "(func") "unexpected end")
(assert_malformed (module binary "") "unexpected end")
(assert_invalid (module (func (result i32))) "type mismatch")
(assert_unlinkable (module (import "x" "y" (func))) "unknown import")
(assert_uninstantiable (module (func unreachable) (start 0)) "unreachable")
)wast");
  ASSERT_EQ(s.commands.size(), 8u);
  EXPECT_EQ(s.commands[0].kind, K::AssertTrap);
  EXPECT_TRUE(s.commands[0].action.has_value());
  EXPECT_EQ(s.commands[0].text, "unreachable");
  EXPECT_EQ(s.commands[1].kind, K::AssertTrap);
  EXPECT_TRUE(s.commands[1].module.has_value());
  EXPECT_EQ(s.commands[2].kind, K::AssertExhaustion);
  EXPECT_EQ(s.commands[3].kind, K::AssertMalformed);
  EXPECT_EQ(s.commands[3].module->quote, "(func");
  EXPECT_EQ(s.commands[4].module->form, WastModule::Form::Binary);
  EXPECT_EQ(s.commands[5].kind, K::AssertInvalid);
  EXPECT_EQ(s.commands[6].kind, K::AssertUnlinkable);
  EXPECT_EQ(s.commands[7].kind, K::AssertUninstantiable);
  EXPECT_EQ(s.commands[7].line, 9u);
}

TEST(Wast, BareModuleBody) {
  WastScript s = parse_script("(func (export \"f\")) (memory 1)");
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_EQ(s.commands[0].module->module.memories.size(), 1u);
}

TEST(Wast, Errors) {
  for (const char* bad : {"(assert_return (invoke \"f\") (i32.const nan:canonical))",
                          "(invoke \"f\" (f32.const nan:canonical))", "(invoke \"f\" (ref.extern))",
                          "(assert_return (invoke \"f\") (v128.const i32x4 1 2 3))", "(bogus)", "(module (func $x $y))",
                          "(assert_trap (invoke \"f\"))", "(register \"\\ff\")", "(invoke \"f\" (i32.add))", "x",
                          "(assert_return (invoke \"f\") (either))",
                          "(assert_return (invoke \"f\") (either (either (i32.const 1))))",
                          "(invoke \"f\" (either (i32.const 1)))"}) {
    EXPECT_TRUE(testing::wast_rejected(bad)) << bad;
  }
}

// A command that does not parse fails alone, with its line:column, and the
// script goes on after it.
TEST(Wast, ACommandThatDoesNotParseIsReportedAndSkipped) {
  WastScript s = parse_script("(module)\n(assert_return (invoke \"f\") (bogus.const 1))\n(module $m)");
  ASSERT_EQ(s.commands.size(), 3u);
  EXPECT_EQ(s.commands[0].kind, WastCommand::Kind::Module);
  EXPECT_EQ(s.commands[1].kind, WastCommand::Kind::ParseError);
  EXPECT_EQ(s.commands[1].line, 2u);
  EXPECT_GT(s.commands[1].column, 1u);
  EXPECT_FALSE(s.commands[1].text.empty());
  EXPECT_FALSE(s.commands[1].defines_module);
  EXPECT_EQ(s.commands[2].kind, WastCommand::Kind::Module);
  WastScript m = parse_script("(module (func (bogus.op)))");
  ASSERT_EQ(m.commands.size(), 1u);
  EXPECT_TRUE(m.commands[0].defines_module);
}

TEST(Wast, NeverCrashesOnMutatedInput) {
  // Deterministic mutations of a script exercising most of the grammar.
  const std::string seed = R"wast((module $M (type $t (func (param i32) (result i32)))
  (import "m" "f" (func $imp (type $t)))
  (memory (data "abc")) (table funcref (elem $f))
  (global $g (mut f32) (f32.const -0x1.8p3))
  (func $f (export "f") (param $x i32) (result i32) (local i64)
    (block $b (result i32) (if (result i32) (local.get $x) (then (br $b (i32.const 1))) (else (i32.const 2)))))
  (func (drop (v128.const f32x4 nan inf -0 1)) (drop (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
    (v128.const i64x2 0 0) (v128.const i64x2 0 0))) (memory.init 0 (i32.const 0) (i32.const 0) (i32.const 0)))
  (elem declare func $f) (data $d "x"))
(assert_return (invoke $M "f" (i32.const 1)) (i32.const 1))
(assert_malformed (module quote "(func") "x")
(assert_return (invoke "g") (v128.const f32x4 nan:canonical 0 0 nan:arithmetic)))wast";
  ASSERT_TRUE(parse_wast(seed).ok()) << parse_wast(seed).error().to_string();
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&]() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  const char alphabet[] = "()$\";x0 \n.-=_@\\";
  for (int i = 0; i < 20000; ++i) {
    std::string s = seed;
    int edits = 1 + int(next() % 4);
    for (int k = 0; k < edits; ++k) {
      size_t at = next() % s.size();
      switch (next() % 3) {
        case 0: s[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + next() % 8); break;
        case 2: s.insert(at, 1, alphabet[next() % (sizeof alphabet - 1)]); break;
      }
      if (s.empty()) s = "(";
    }
    (void)parse_wast(s);
    (void)parse_wast(s.substr(0, next() % s.size()));
  }
}

}  // namespace
}  // namespace weft::text
