// Validator unit tests on hand-built Modules: representative valid and invalid
// cases per instruction family, module-level rules, side tables, and
// robustness on malformed body bytes.
#include "validator/validator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/leb128.h"
#include "core/opcodes.h"
#include "tests/validator/code_builder.h"
#include "validator/code_validator.h"

namespace weft::validator {
namespace {

using O = Opcode;

using test::Code;

constexpr ValType i32 = ValType::i32(), i64 = ValType::i64(), f32 = ValType::f32(),
                  funcref = ValType::funcref(), externref = ValType::externref();

ConstExpr i32_const(int32_t v) { return Code().op(O::I32Const).s32(v).op(O::End).expr(); }

// A module with one function of type `type` and body `code`.
Module single_function(FuncType type, const Code& code, std::vector<LocalGroup> locals = {}) {
  Module m;
  m.types.push_back(std::move(type));
  m.functions.push_back(Function{0, std::move(locals), code.bytes, 0});
  return m;
}

::testing::AssertionResult valid(const Module& m) {
  auto r = validate_module(m);
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error().to_string();
}

// Expects rejection with a message containing `needle`.
::testing::AssertionResult invalid(const Module& m, const std::string& needle) {
  auto r = validate_module(m);
  if (r.ok()) return ::testing::AssertionFailure() << "accepted, expected \"" << needle << "\"";
  if (r.error().message.find(needle) == std::string::npos)
    return ::testing::AssertionFailure() << "got \"" << r.error().to_string() << "\", expected \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Side tables

// Bodies validated on several threads (ValidateOptions::threads): the same
// side tables as on one, and the error of the first failing function however
// the threads happen to claim them.
TEST(ValidatorThreads, SameTablesAndTheFirstFunctionsError) {
  Module m;
  m.types.push_back({{i32}, {i32}});
  for (uint32_t i = 0; i < 2000; ++i) {
    Code code;
    for (uint32_t k = 0; k <= i % 7; ++k) code.op(O::LocalGet).u32(0);
    for (uint32_t k = 0; k < i % 7; ++k) code.op(O::I32Add);
    m.functions.push_back(Function{0, {}, code.op(O::End).bytes, 0});
  }
  ValidateOptions one, four;
  one.threads = 1;
  four.threads = 4;
  auto a = validate_module(m, one), b = validate_module(m, four);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < m.functions.size(); ++i)
    ASSERT_EQ(a->functions[i].max_stack_height, b->functions[i].max_stack_height) << "function " << i;
  // Two invalid bodies (a result missing): the earlier one is reported, every time.
  m.functions[1500].body = Code().op(O::End).bytes;
  m.functions[333].body = Code().op(O::End).bytes;
  for (int round = 0; round < 20; ++round) {
    auto r = validate_module(m, four);
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.error().to_string(), validate_module(m, one).error().to_string());
    EXPECT_NE(r.error().to_string().find("333"), std::string::npos) << r.error().to_string();
  }
}

TEST(ValidatorSideTables, StackHeightAndLocals) {
  Module m = single_function({{i32, i32}, {i32}},
                             Code().op(O::LocalGet).u32(0).op(O::LocalGet).u32(1).op(O::I32Add).op(O::End),
                             {{3, i64}, {2, f32}});
  auto r = validate_module(m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->functions.size(), 1u);
  EXPECT_EQ(r->functions[0].max_stack_height, 2u);
  EXPECT_EQ(r->functions[0].num_locals, 7u);
}

TEST(ValidatorSideTables, V128CountsTwoSlots) {
  Module m = single_function({{}, {}}, Code().op(O::V128Const).zeros(16).op(O::V128Const).zeros(16)
                                           .op(O::I32x4Add).op(O::Drop).op(O::End));
  auto r = validate_module(m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->functions[0].max_stack_height, 4u);
}

TEST(ValidatorSideTables, BlockParamsAreOnTheStack) {
  Module m;
  m.types = {{{}, {}}, {{i32, i64}, {i32}}};
  // i32.const 1; i64.const 2; block (type 1) drop end; drop
  m.functions.push_back({0, {}, Code().op(O::I32Const).s32(1).op(O::I64Const).byte(2).op(O::Block).s32(1)
                                    .op(O::Drop).op(O::End).op(O::Drop).op(O::End).bytes, 0});
  auto r = validate_module(m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->functions[0].max_stack_height, 2u);
}

TEST(ValidatorSideTables, DeclaredFunctionRefs) {
  Module m;
  m.types = {{{}, {}}};
  for (int i = 0; i < 4; ++i) m.functions.push_back({0, {}, Code().op(O::End).bytes, 0});
  m.exports.push_back({"f1", ExternKind::Func, 1});
  m.globals.push_back({{funcref, false}, Code().op(O::RefFunc).u32(2).op(O::End).expr()});
  ElemSegment seg;
  seg.mode = SegmentMode::Declarative;
  seg.items.push_back(Code().op(O::RefFunc).u32(3).op(O::End).expr());
  m.elems.push_back(seg);
  auto r = validate_module(m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->declared_function_refs, (std::vector<bool>{false, true, true, true}));
}

TEST(ValidatorSideTables, HotLocalsRankedByLoopWeightThenIndex) {
  // 14 i32 locals. Every access weighs 4^(enclosing loops): locals 1..13 are
  // read twice at depth 0 (2); local 13 once more in a loop (6), local 7 once
  // more two loops deep (18); local 12 once more through the general path (a
  // local.set on the empty stack of dead code: 3); local 0 is read once (1,
  // not worth a register). Twelve are kept: the heaviest first, equal
  // weights in index order, so local 11, the last of the weight-2 ones, drops
  // out.
  Code body;
  body.get(0).op(O::Drop);
  for (uint32_t i = 1; i <= 13; ++i) body.get(i).op(O::Drop).get(i).op(O::Drop);
  body.op(O::Loop).byte(0x40).get(13).op(O::Drop).op(O::Loop).byte(0x40).get(7).op(O::Drop).end().end();
  body.op(O::Block).byte(0x40).op(O::Unreachable).op(O::LocalSet).u32(12).end().end();
  auto r = validate_module(single_function({{}, {}}, body, {{14, i32}}));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const FunctionInfo& info = r->functions[0];
  const std::vector<uint32_t> hot(info.hot_locals.begin(), info.hot_locals.begin() + info.num_hot_locals);
  EXPECT_EQ(hot, (std::vector<uint32_t>{7, 13, 12, 1, 2, 3, 4, 5, 6, 8, 9, 10}));
}

// ---------------------------------------------------------------------------
// Control

TEST(ValidatorControl, TypeMismatchAndLeftovers) {
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::I64Const).byte(0).op(O::End)), "type mismatch"));
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::I32Const).s32(0).op(O::End)), "type mismatch"));
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::End)), "type mismatch"));
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::I32Add).op(O::Drop).op(O::End)), "type mismatch"));
}

TEST(ValidatorControl, UnreachableMakesStackPolymorphic) {
  // unreachable; i32.add; end  — for [] -> [i32]
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::Unreachable).op(O::I32Add).op(O::End))));
  // unreachable; i64.const 0; i32.add — the known i64 still mismatches
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::Unreachable).op(O::I64Const).byte(0)
                                                       .op(O::I32Add).op(O::End)),
                      "type mismatch"));
  // Unknown operands flow through select: unreachable; select; i32.eqz
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::Unreachable).op(O::Select).op(O::I32Eqz).op(O::End))));
  // select's result stays Unknown when both operands are: result usable as f64
  EXPECT_TRUE(valid(single_function({{}, {}}, Code().op(O::Unreachable).op(O::Select).op(O::F64Neg).op(O::Drop)
                                                  .op(O::End))));
  // but a reference operand is never allowed in untyped select
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::Unreachable).op(O::RefNull).byte(0x70)
                                                    .op(O::I32Const).s32(0).op(O::Select).op(O::Drop).op(O::End)),
                      "type mismatch"));
}

TEST(ValidatorControl, IfWithoutElse) {
  // if (result i32) i32.const 1 end — no else: params [] != results [i32]
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::I32Const).s32(1).op(O::If).byte(0x7F)
                                                       .op(O::I32Const).s32(1).op(O::End).op(O::End)),
                      "type mismatch"));
  // if (param i32) (result i32) without else is fine
  Module m;
  m.types = {{{}, {i32}}, {{i32}, {i32}}};
  m.functions.push_back({0, {}, Code().op(O::I32Const).s32(5).op(O::I32Const).s32(1).op(O::If).s32(1)
                                    .op(O::I32Const).s32(1).op(O::I32Add).op(O::End).op(O::End).bytes, 0});
  EXPECT_TRUE(valid(m));
  // with else both branches are checked
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::I32Const).s32(1).op(O::If).byte(0x7F)
                                                       .op(O::I32Const).s32(1).op(O::Else).op(O::End).op(O::End)),
                      "type mismatch"));
}

TEST(ValidatorControl, LoopLabelTakesParams) {
  Module m;
  m.types = {{{}, {}}, {{i32}, {}}};
  // i32.const 0; loop (param i32) br 0 end — the loop label carries [i32]
  m.functions.push_back({0, {}, Code().op(O::I32Const).s32(0).op(O::Loop).s32(1).op(O::Br).u32(0)
                                    .op(O::End).op(O::End).bytes, 0});
  EXPECT_TRUE(valid(m));
}

TEST(ValidatorControl, LabelsAndBrTable) {
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::Br).u32(1).op(O::End)), "unknown label"));
  // block (result i32) i32.const 1 i32.const 0 br_table 0 1 end — both labels [i32]
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::Block).byte(0x7F).op(O::I32Const).s32(1)
                                                     .op(O::I32Const).s32(0).op(O::BrTable).u32(1).u32(0).u32(1)
                                                     .op(O::End).op(O::End))));
  // block (no result): br_table 0 1 mixes arity 0 and 1
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::Block).byte(0x40).op(O::I32Const).s32(1)
                                                       .op(O::I32Const).s32(0).op(O::BrTable).u32(1).u32(0)
                                                       .u32(1).op(O::End).op(O::I32Const).s32(0).op(O::End)),
                      "type mismatch"));
  // Unreachable: br_table to labels of different types but equal arity is
  // fine on an empty polymorphic stack, not with a concrete operand.
  Code poly = Code().op(O::Block).byte(0x7D).op(O::Block).byte(0x7F).op(O::Unreachable);
  Code poly_ok = poly;
  poly_ok.op(O::BrTable).u32(1).u32(0).u32(1).op(O::End).op(O::Drop).op(O::F32Const).zeros(4).op(O::End)
      .op(O::Drop).op(O::End);
  EXPECT_TRUE(valid(single_function({{}, {}}, poly_ok)));
  Code poly_bad = poly;
  poly_bad.op(O::F32Const).zeros(4).op(O::I32Const).s32(0).op(O::BrTable).u32(1).u32(0).u32(1).op(O::End)
      .op(O::Drop).op(O::F32Const).zeros(4).op(O::End).op(O::Drop).op(O::End);
  EXPECT_TRUE(invalid(single_function({{}, {}}, poly_bad), "type mismatch"));
}

TEST(ValidatorControl, ReturnAndBrIf) {
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::I32Const).s32(1).op(O::Return).op(O::End))));
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::Return).op(O::End)), "type mismatch"));
  // block (result i32) i32.const 1 i32.const 0 br_if 0 end
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::Block).byte(0x7F).op(O::I32Const).s32(1)
                                                     .op(O::I32Const).s32(0).op(O::BrIf).u32(0).op(O::End)
                                                     .op(O::End))));
}

TEST(ValidatorControl, BlockTypeIndex) {
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::Block).s32(7).op(O::End).op(O::End)), "unknown type"));
}

// The fast paths (code_validator.cc) type the common cases on one-byte codes
// and leave the rest, errors included, to the general path: the same verdict,
// message and offset either way.
TEST(ValidatorControl, DeadCodeThroughTheFastPaths) {
  // block (result i64) unreachable end: the result is a real i64 afterwards.
  EXPECT_TRUE(valid(single_function({{}, {i64}}, Code().op(O::Block).byte(0x7E).op(O::Unreachable).end().end())));
  auto mismatch_at = [](const Code& body, std::vector<ValType> results, const std::string& message,
                        size_t offset) -> ::testing::AssertionResult {
    auto r = validate_module(single_function({{}, std::move(results)}, body));
    if (r.ok()) return ::testing::AssertionFailure() << "accepted";
    const std::string want = "invalid error at func 0 +0x" + [&] {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%zx", offset);
      return std::string(hex);
    }() + ": " + message;
    if (r.error().to_string() != want)
      return ::testing::AssertionFailure() << "got \"" << r.error().to_string() << "\", expected \"" << want << "\"";
    return ::testing::AssertionSuccess();
  };
  // ... and so a use as i32 is a mismatch at that use (i32.eqz at offset 4).
  EXPECT_TRUE(mismatch_at(Code().op(O::Block).byte(0x7E).op(O::Unreachable).end().op(O::I32Eqz).end(), {i32},
                          "type mismatch: expected i32, got i64", 4));
  // if (result i32) unreachable else i32.const 1 end; i32.eqz
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().i32(0).op(O::If).byte(0x7F).op(O::Unreachable)
                                                     .op(O::Else).i32(1).end().op(O::I32Eqz).end())));
  // br_if in dead code leaves the label's type, not Unknown: block (result
  // i64) unreachable i32.const 0 br_if 0 i32.eqz — i32.eqz at offset 7.
  EXPECT_TRUE(mismatch_at(Code().op(O::Block).byte(0x7E).op(O::Unreachable).i32(0).op(O::BrIf).u32(0)
                              .op(O::I32Eqz).end().end(),
                          {i64}, "type mismatch: expected i32, got i64", 7));
  // A call whose arguments run out in dead code: the results are real.
  Module m;
  m.types = {{{i32, i64}, {f32}}, {{}, {f32}}};
  m.functions.push_back({0, {}, Code().op(O::F32Const).zeros(4).end().bytes, 0});
  m.functions.push_back({1, {}, Code().op(O::Unreachable).op(O::I64Const).byte(0).op(O::Call).u32(0).end().bytes, 0});
  EXPECT_TRUE(valid(m));
  // Plain instructions: the operand below the top is checked too (offset 4).
  EXPECT_TRUE(mismatch_at(Code().op(O::I64Const).byte(0).i32(0).op(O::I32Add).op(O::Drop).end(), {},
                          "type mismatch: expected i32, got i64", 4));
}

// ---------------------------------------------------------------------------
// Variables, calls, references, tables, memory

TEST(ValidatorVariables, LocalsAndGlobals) {
  EXPECT_TRUE(invalid(single_function({{i32}, {}}, Code().op(O::LocalGet).u32(1).op(O::Drop).op(O::End)),
                      "unknown local"));
  EXPECT_TRUE(valid(single_function({{i32}, {}}, Code().op(O::LocalGet).u32(1000).op(O::Drop).op(O::End),
                                    {{2000, i64}})));
  EXPECT_TRUE(invalid(single_function({{}, {}}, Code().op(O::F32Const).zeros(4).op(O::LocalSet).u32(1).op(O::End),
                                      {{2, i32}, {1, f32}}),
                      "type mismatch"));

  Module m = single_function({{}, {}}, Code().op(O::I32Const).s32(1).op(O::GlobalSet).u32(0).op(O::End));
  m.globals.push_back({{i32, false}, i32_const(0)});
  EXPECT_TRUE(invalid(m, "global is immutable"));
  m.globals[0].type.is_mutable = true;
  EXPECT_TRUE(valid(m));
  m.functions[0].body = Code().op(O::GlobalGet).u32(1).op(O::Drop).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "unknown global"));
}

TEST(ValidatorVariables, TooManyLocals) {
  EXPECT_TRUE(invalid(single_function({{i32}, {}}, Code().op(O::End), {{0xFFFFFFFFu, i64}}), "too many locals"));
}

// Non-nullable locals must be set before they are read; what tracks that
// grows with the local.set instructions, not with the locals declared (a
// byte per declared local took 4 GiB for this function, 2 GiB for 2^31).
TEST(ValidatorVariables, NonNullableLocalsCostNothingUntilSet) {
  const ValType ref_func{ValType::FuncRef, false, 0};
  const Code set_then_get = Code().op(O::RefFunc).u32(0).op(O::LocalSet).u32(4'000'000'000u)
                                .op(O::LocalGet).u32(4'000'000'000u).op(O::Drop).op(O::End);
  Module m = single_function({{}, {}}, set_then_get, {{0xFFFFFFFEu, ref_func}});
  m.exports.push_back({"f", ExternKind::Func, 0});  // declares the ref.func
  EXPECT_TRUE(valid(m));
  m.functions[0].body = Code().op(O::LocalGet).u32(4'000'000'000u).op(O::Drop).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "uninitialized local 4000000000"));
}

TEST(ValidatorCalls, CallAndCallIndirect) {
  Module m;
  m.types = {{{i32}, {i64}}, {{}, {}}};
  m.functions.push_back({0, {}, Code().op(O::I64Const).byte(0).op(O::End).bytes, 0});
  m.functions.push_back({1, {}, Code().op(O::I32Const).s32(0).op(O::Call).u32(0).op(O::Drop).op(O::End).bytes, 0});
  EXPECT_TRUE(valid(m));
  m.functions[1].body = Code().op(O::Call).u32(0).op(O::Drop).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.functions[1].body = Code().op(O::Call).u32(9).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "unknown function"));

  m.functions[1].body = Code().op(O::I32Const).s32(0).op(O::I32Const).s32(0).op(O::CallIndirect).u32(0).u32(0)
                            .op(O::Drop).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "unknown table"));
  m.tables.push_back({{externref, {1, {}}}});
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.tables[0].type.element = funcref;
  EXPECT_TRUE(valid(m));
  m.functions[1].body = Code().op(O::I32Const).s32(0).op(O::CallIndirect).u32(5).u32(0).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "unknown type"));
}

TEST(ValidatorReferences, RefFuncNeedsDeclaration) {
  Module m = single_function({{}, {}}, Code().op(O::RefFunc).u32(0).op(O::Drop).op(O::End));
  EXPECT_TRUE(invalid(m, "undeclared function reference"));
  m.exports.push_back({"f", ExternKind::Func, 0});
  EXPECT_TRUE(valid(m));
  m.functions[0].body = Code().op(O::RefFunc).u32(1).op(O::Drop).op(O::End).bytes;
  EXPECT_TRUE(invalid(m, "unknown function"));
}

TEST(ValidatorReferences, RefIsNullAndTypedSelect) {
  EXPECT_TRUE(valid(single_function({{}, {i32}}, Code().op(O::RefNull).byte(0x6F).op(O::RefIsNull).op(O::End))));
  EXPECT_TRUE(invalid(single_function({{}, {i32}}, Code().op(O::I32Const).s32(0).op(O::RefIsNull).op(O::End)),
                      "type mismatch"));
  Code typed = Code().op(O::RefNull).byte(0x70).op(O::RefNull).byte(0x70).op(O::I32Const).s32(1);
  Code ok = typed;
  ok.op(O::SelectT).u32(1).byte(0x70).op(O::Drop).op(O::End);
  EXPECT_TRUE(valid(single_function({{}, {}}, ok)));
  Code untyped = typed;
  untyped.op(O::Select).op(O::Drop).op(O::End);
  EXPECT_TRUE(invalid(single_function({{}, {}}, untyped), "type mismatch"));
  Code arity = typed;
  arity.op(O::SelectT).u32(2).byte(0x70).byte(0x70).op(O::Drop).op(O::End);
  EXPECT_TRUE(invalid(single_function({{}, {}}, arity), "invalid result arity"));
}

TEST(ValidatorTables, TableInstructions) {
  Module m;
  m.types = {{{}, {}}};
  m.tables.push_back({{funcref, {1, {}}}});
  m.tables.push_back({{externref, {1, {}}}});
  ElemSegment seg;
  seg.mode = SegmentMode::Passive;
  m.elems.push_back(seg);
  auto with_body = [&](const Code& c) {
    m.functions = {{0, {}, c.bytes, 0}};
    return m;
  };
  Code zero3 = Code().op(O::I32Const).s32(0).op(O::I32Const).s32(0).op(O::I32Const).s32(0);
  EXPECT_TRUE(valid(with_body(Code(zero3).op(O::TableInit).u32(0).u32(0).op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code(zero3).op(O::TableInit).u32(0).u32(1).op(O::End)), "type mismatch"));
  EXPECT_TRUE(invalid(with_body(Code(zero3).op(O::TableInit).u32(1).u32(0).op(O::End)), "unknown elem segment"));
  EXPECT_TRUE(invalid(with_body(Code(zero3).op(O::TableCopy).u32(0).u32(1).op(O::End)), "type mismatch"));
  EXPECT_TRUE(valid(with_body(Code(zero3).op(O::TableCopy).u32(1).u32(1).op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code().op(O::ElemDrop).u32(3).op(O::End)), "unknown elem segment"));
  EXPECT_TRUE(valid(with_body(Code().op(O::I32Const).s32(0).op(O::TableGet).u32(1).op(O::RefIsNull).op(O::Drop)
                                  .op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code().op(O::I32Const).s32(0).op(O::RefNull).byte(0x70).op(O::TableSet).u32(1)
                                    .op(O::End)),
                      "type mismatch"));
  EXPECT_TRUE(valid(with_body(Code().op(O::RefNull).byte(0x6F).op(O::I32Const).s32(1).op(O::TableGrow).u32(1)
                                  .op(O::Drop).op(O::End))));
  EXPECT_TRUE(valid(with_body(Code().op(O::I32Const).s32(0).op(O::RefNull).byte(0x70).op(O::I32Const).s32(1)
                                  .op(O::TableFill).u32(0).op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code().op(O::TableSize).u32(2).op(O::Drop).op(O::End)), "unknown table"));
}

TEST(ValidatorMemory, MemoryInstructions) {
  Module m;
  m.types = {{{}, {}}};
  auto with_body = [&](const Code& c) {
    m.functions = {{0, {}, c.bytes, 0}};
    return m;
  };
  Code load = Code().op(O::I32Const).s32(0).op(O::I64Load).memarg(3).op(O::Drop).op(O::End);
  EXPECT_TRUE(invalid(with_body(load), "unknown memory"));
  m.memories.push_back({{{1, {}}}});
  EXPECT_TRUE(valid(with_body(load)));
  EXPECT_TRUE(invalid(with_body(Code().op(O::I32Const).s32(0).op(O::I64Load).memarg(4).op(O::Drop).op(O::End)),
                      "alignment must not be larger than natural"));
  EXPECT_TRUE(invalid(with_body(Code().op(O::I32Const).s32(0).op(O::I32Load8U).memarg(1).op(O::Drop).op(O::End)),
                      "alignment"));
  EXPECT_TRUE(invalid(with_body(Code().op(O::I32Const).s32(0).op(O::I32Load).memarg(40).op(O::Drop).op(O::End)),
                      "alignment"));
  Code zero3 = Code().op(O::I32Const).s32(0).op(O::I32Const).s32(0).op(O::I32Const).s32(0);
  EXPECT_TRUE(invalid(with_body(Code(zero3).op(O::MemoryInit).u32(0).byte(0).op(O::End)), "unknown data segment"));
  EXPECT_TRUE(invalid(with_body(Code().op(O::DataDrop).u32(0).op(O::End)), "unknown data segment"));
  m.datas.push_back({SegmentMode::Passive, 0, {}, {1, 2, 3}});
  EXPECT_TRUE(valid(with_body(Code(zero3).op(O::MemoryInit).u32(0).byte(0).op(O::End))));
  EXPECT_TRUE(valid(with_body(Code(zero3).op(O::MemoryCopy).byte(0).byte(0).op(O::MemorySize).byte(0)
                                  .op(O::MemoryGrow).byte(0).op(O::Drop).op(O::End))));
  // SIMD lane immediates
  Code lane = Code().op(O::V128Const).zeros(16);
  EXPECT_TRUE(valid(with_body(Code(lane).op(O::I16x8ExtractLaneS).byte(7).op(O::Drop).op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code(lane).op(O::I16x8ExtractLaneS).byte(8).op(O::Drop).op(O::End)),
                      "invalid lane index"));
  Code load_lane = Code().op(O::I32Const).s32(0).op(O::V128Const).zeros(16).op(O::V128Load32Lane).memarg(2);
  EXPECT_TRUE(valid(with_body(Code(load_lane).byte(3).op(O::Drop).op(O::End))));
  EXPECT_TRUE(invalid(with_body(Code(load_lane).byte(4).op(O::Drop).op(O::End)), "invalid lane index"));
  // SIMD can be switched off
  auto r = validate_module(with_body(Code(lane).op(O::Drop).op(O::End)), {.enable_simd = false});
  EXPECT_FALSE(r.ok());
}

// ---------------------------------------------------------------------------
// Module level

// Wasm 3.0's tail calls and extended constant expressions can each be
// switched off (Config::enable_tail_call / enable_extended_const).
TEST(ValidatorModule, TailCallsAndExtendedConstantsCanBeSwitchedOff) {
  const Module tail = single_function({{}, {}}, Code().op(O::ReturnCall).u32(0).op(O::End));
  EXPECT_TRUE(valid(tail));
  ValidateOptions no_tail_calls;
  no_tail_calls.enable_tail_call = false;
  Result<ValidationInfo> r = validate_module(tail, no_tail_calls);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Invalid);
  EXPECT_NE(r.error().message.find("tail calls are not enabled: return_call"), std::string::npos);

  Module extended;
  extended.globals.push_back(
      {{ValType::i32(), false}, Code().op(O::I32Const).s32(2).op(O::I32Const).s32(3).op(O::I32Mul).op(O::End).expr()});
  EXPECT_TRUE(valid(extended));
  ValidateOptions no_extended_const;
  no_extended_const.enable_extended_const = false;
  r = validate_module(extended, no_extended_const);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("constant expression required: i32.mul"), std::string::npos);
}

TEST(ValidatorModule, MemoriesAndTables) {
  Module m;
  m.memories = {{{{1, {}}}}, {{{1, {}}}}};
  EXPECT_TRUE(validate_module(m).ok());  // multi-memory (Wasm 3.0, on by default)
  ValidateOptions wasm2;
  wasm2.enable_multi_memory = false;
  Result<ValidationInfo> one_memory = validate_module(m, wasm2);
  ASSERT_FALSE(one_memory.ok());
  EXPECT_EQ(one_memory.error().message, "multiple memories");
  m.memories = {{{{65537, {}}}}};
  EXPECT_TRUE(invalid(m, "memory size must be at most 65536 pages"));
  m.memories = {{{{2, 1}}}};
  EXPECT_TRUE(invalid(m, "size minimum must not be greater than maximum"));
  m.memories = {{{{0, 65536}}}};
  EXPECT_TRUE(valid(m));
  m.tables = {{{funcref, {5, 4}}}};
  EXPECT_TRUE(invalid(m, "size minimum must not be greater than maximum"));
}

TEST(ValidatorModule, GlobalsAndConstExprs) {
  Module m;
  m.imports.push_back({"env", "g", ExternKind::Global, 0, {}, {}, {i32, false}});
  m.imports.push_back({"env", "mg", ExternKind::Global, 0, {}, {}, {i32, true}});
  m.globals.push_back({{i32, false}, Code().op(O::GlobalGet).u32(0).op(O::End).expr()});
  EXPECT_TRUE(valid(m));
  m.globals[0].init = Code().op(O::GlobalGet).u32(1).op(O::End).expr();
  EXPECT_TRUE(invalid(m, "constant expression required"));
  m.globals[0].init = Code().op(O::GlobalGet).u32(2).op(O::End).expr();  // itself: not imported
  EXPECT_TRUE(invalid(m, "unknown global"));
  m.globals[0].init = Code().op(O::I64Const).byte(0).op(O::End).expr();
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.globals[0].init = Code().op(O::I32Const).s32(0).op(O::I32Const).s32(0).op(O::End).expr();
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.globals[0].init = Code().op(O::End).expr();
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.globals[0].init = Code().op(O::I32Const).s32(0).op(O::I32Eqz).op(O::End).expr();
  EXPECT_TRUE(invalid(m, "constant expression required"));
  m.globals[0].init = Code().op(O::I32Const).expr();  // truncated
  EXPECT_FALSE(validate_module(m).ok());

  EXPECT_TRUE(validate_const_expr(m, i32_const(3), i32, 1).ok());
  EXPECT_FALSE(validate_const_expr(m, i32_const(3), i64, 1).ok());
  EXPECT_TRUE(validate_const_expr(m, Code().op(O::GlobalGet).u32(0).op(O::End).expr(), i32, 1).ok());
  EXPECT_FALSE(validate_const_expr(m, Code().op(O::GlobalGet).u32(0).op(O::End).expr(), i32, 0).ok());
  EXPECT_TRUE(validate_const_expr(m, Code().op(O::RefNull).byte(0x6F).op(O::End).expr(), externref, 0).ok());
}

TEST(ValidatorModule, ExportsAndStart) {
  Module m = single_function({{}, {}}, Code().op(O::End));
  m.exports = {{"a", ExternKind::Func, 0}, {"a", ExternKind::Func, 0}};
  EXPECT_TRUE(invalid(m, "duplicate export name"));
  m.exports = {{"a", ExternKind::Func, 0}, {"b", ExternKind::Memory, 0}};
  EXPECT_TRUE(invalid(m, "unknown memory"));
  m.exports = {{"a", ExternKind::Global, 0}};
  EXPECT_TRUE(invalid(m, "unknown global"));
  m.exports.clear();
  m.start = 0;
  EXPECT_TRUE(valid(m));
  m.start = 1;
  EXPECT_TRUE(invalid(m, "unknown function"));
  m.types[0].results = {i32};
  m.functions[0].body = Code().op(O::I32Const).s32(0).op(O::End).bytes;
  m.start = 0;
  EXPECT_TRUE(invalid(m, "start function"));
}

TEST(ValidatorModule, Segments) {
  Module m;
  m.tables.push_back({{funcref, {1, {}}}});
  ElemSegment seg;
  seg.offset = i32_const(0);
  seg.type = externref;
  EXPECT_TRUE((m.elems = {seg}, invalid(m, "type mismatch")));
  seg.type = funcref;
  seg.items = {Code().op(O::RefNull).byte(0x6F).op(O::End).expr()};
  EXPECT_TRUE((m.elems = {seg}, invalid(m, "type mismatch")));
  seg.items = {Code().op(O::RefNull).byte(0x70).op(O::End).expr()};
  seg.table = 1;
  EXPECT_TRUE((m.elems = {seg}, invalid(m, "unknown table")));
  seg.table = 0;
  seg.offset = Code().op(O::I64Const).byte(0).op(O::End).expr();
  EXPECT_TRUE((m.elems = {seg}, invalid(m, "type mismatch")));
  seg.offset = i32_const(0);
  EXPECT_TRUE((m.elems = {seg}, valid(m)));

  DataSegment data{SegmentMode::Active, 0, i32_const(0), {1}};
  m.datas = {data};
  EXPECT_TRUE(invalid(m, "unknown memory"));
  m.memories.push_back({{{1, {}}}});
  EXPECT_TRUE(valid(m));
  m.data_count = 2;
  EXPECT_FALSE(validate_module(m).ok());
}

TEST(ValidatorModule, TypesAndTags) {
  Module m;
  m.types = {{{i32}, {}}, {{}, {i32}}};
  m.functions.push_back({5, {}, Code().op(O::End).bytes, 0});
  EXPECT_TRUE(invalid(m, "unknown type"));
  m.functions.clear();
  m.tags = {{0}};
  EXPECT_TRUE(valid(m));
  m.tags = {{1}};
  EXPECT_TRUE(invalid(m, "non-empty tag result type"));
  m.tags = {{2}};
  EXPECT_TRUE(invalid(m, "unknown type"));
}

// ---------------------------------------------------------------------------
// Robustness: malformed bodies are errors with a location, never crashes.

TEST(ValidatorRobustness, MalformedBodies) {
  auto error_of = [](std::vector<uint8_t> body) {
    Module m;
    m.types = {{{}, {}}};
    m.functions.push_back({0, {}, std::move(body), 0});
    auto r = validate_module(m);
    return r.ok() ? Error{} : r.error();
  };
  Error missing_end = error_of({0x01});
  EXPECT_EQ(missing_end.kind, ErrorKind::Malformed);
  EXPECT_EQ(missing_end.location.kind, Location::Kind::Function);
  EXPECT_EQ(error_of({0x06, 0x0B}).message, "illegal opcode");
  EXPECT_EQ(error_of({0x0B, 0x01}).location.offset, 1u);
  EXPECT_EQ(error_of({0x41, 0x80}).kind, ErrorKind::Malformed);  // truncated LEB
  EXPECT_EQ(error_of({0x05, 0x0B}).kind, ErrorKind::Malformed);  // else without if
  EXPECT_EQ(error_of({0x28, 0x80, 0x01, 0x00, 0x00, 0x1A, 0x0B}).kind, ErrorKind::Malformed);  // memarg flags 128
  EXPECT_EQ(error_of({0x02, 0x41, 0x0B, 0x0B}).kind, ErrorKind::Malformed);  // bad block type
}

TEST(ValidatorRobustness, EveryTruncationAndRandomBodies) {
  Module base;
  base.types = {{{i32}, {i32}}};
  base.tables.push_back({{funcref, {1, {}}}});
  base.memories.push_back({{{1, {}}}});
  Code body = Code().op(O::Block).byte(0x7F).op(O::LocalGet).u32(0).op(O::I32Load).memarg(2, 16).op(O::LocalGet)
                  .u32(0).op(O::BrTable).u32(2).u32(0).u32(0).u32(0).op(O::End).op(O::I32Const).s32(-70000)
                  .op(O::V128Const).zeros(16).op(O::I32x4ExtractLane).byte(1).op(O::I32Add).op(O::I32Add).op(O::End);
  base.functions.push_back({0, {}, body.bytes, 0});
  ASSERT_TRUE(valid(base));
  for (size_t n = 0; n < body.bytes.size(); ++n) {
    Module m = base;
    m.functions[0].body.edit().resize(n);
    EXPECT_FALSE(validate_module(m).ok()) << "prefix " << n;
  }
  std::mt19937 rng(12345);
  for (int round = 0; round < 20000; ++round) {
    Module m = base;
    std::vector<uint8_t>& b = m.functions[0].body.edit();
    if (round % 2) {
      b.resize(rng() % 40);
      for (uint8_t& x : b) x = uint8_t(rng());
    } else {
      for (int k = 0; k < 3; ++k) b[rng() % b.size()] = uint8_t(rng());
    }
    (void)validate_module(m);  // must not crash or hang
  }
}

// The operand stack's bound holds however the operands are pushed (the fast
// paths stop one short of it and leave the error to the general path).
TEST(ValidatorRobustness, OperandStackBoundIsALimitErrorAtThePush) {
  for (Code push : {Code().i32(0), Code().get(0), Code().op(O::GlobalGet).u32(0)}) {
    auto body = [&](uint32_t pushes) {
      Code code;
      for (uint32_t i = 0; i < pushes; ++i) code.bytes.insert(code.bytes.end(), push.bytes.begin(), push.bytes.end());
      return code.op(O::Unreachable).end();
    };
    Module m = single_function({{}, {}}, body(kMaxOperandStackHeight), {{1, i32}});
    m.globals.push_back({{i32, false}, i32_const(0)});
    EXPECT_TRUE(valid(m));
    m.functions[0].body = body(kMaxOperandStackHeight + 1).bytes;
    auto r = validate_module(m);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Limit);
    EXPECT_EQ(r.error().message, "operand stack too deep");
    EXPECT_EQ(r.error().location.to_string(),
              Location::in_function(0, uint64_t(kMaxOperandStackHeight) * push.bytes.size()).to_string());
  }
}

}  // namespace
}  // namespace weft::validator
