// Validator tests of the fiber extension (docs/fibers.md §2, §3, §5) on
// hand-built Modules: fiber types and typed references, subtyping,
// defaultability, tags, handle/event structure, the fiber.* instructions,
// the handler-scope side tables, and the spec's §11 worked example.
#include <gtest/gtest.h>

#include <random>

#include "core/leb128.h"
#include "core/opcodes.h"
#include "tests/validator/code_builder.h"
#include "validator/validator.h"

namespace weft::validator {
namespace {

using O = Opcode;

using test::Code;

constexpr ValType i32 = ValType::i32(), i64 = ValType::i64(),
                  funcref = ValType::funcref(), externref = ValType::externref();
constexpr ValType fiberref{ValType::FiberRef, true, 0};
constexpr ValType ref_fiber{ValType::FiberRef, false, 0};
constexpr ValType ref(uint32_t g) { return {ValType::TypedRef, false, g}; }
constexpr ValType ref_null(uint32_t g) { return {ValType::TypedRef, true, g}; }

// Builds modules index by index.
struct Builder {
  Module m;
  uint32_t type(std::vector<ValType> params, std::vector<ValType> results) {
    m.types.push_back({std::move(params), std::move(results), false});
    return uint32_t(m.types.size() - 1);
  }
  uint32_t fiber_type(std::vector<ValType> results) {
    m.types.push_back({{}, std::move(results), true});
    return uint32_t(m.types.size() - 1);
  }
  uint32_t tag(std::vector<ValType> params) {
    m.tags.push_back({type(std::move(params), {})});
    return m.total_tags() - 1;
  }
  uint32_t func(uint32_t type_index, const Code& body, std::vector<LocalGroup> locals = {}) {
    m.functions.push_back({type_index, std::move(locals), body.bytes, 0});
    return m.total_functions() - 1;
  }
  uint32_t func(std::vector<ValType> params, std::vector<ValType> results, const Code& body,
                std::vector<LocalGroup> locals = {}) {
    return func(type(std::move(params), std::move(results)), body, std::move(locals));
  }
};

::testing::AssertionResult valid(const Module& m, const ValidateOptions& options = {}) {
  auto r = validate_module(m, options);
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error().to_string();
}

// Expects rejection with a message containing `needle`.
::testing::AssertionResult invalid(const Module& m, const std::string& needle, const ValidateOptions& options = {}) {
  auto r = validate_module(m, options);
  if (r.ok()) return ::testing::AssertionFailure() << "accepted, expected \"" << needle << "\"";
  if (r.error().kind != ErrorKind::Invalid)
    return ::testing::AssertionFailure() << "wrong kind: " << r.error().to_string();
  if (r.error().message.find(needle) == std::string::npos)
    return ::testing::AssertionFailure() << "got \"" << r.error().to_string() << "\", expected \"" << needle << "\"";
  return ::testing::AssertionSuccess();
}

// A function of type [params] -> [results] with `body` in a module that has
// fiber types 0 = fiber [] and 1 = fiber [] (equivalent), 2 = fiber [i32].
Module with_fibers(std::vector<ValType> params, std::vector<ValType> results, const Code& body,
                   std::vector<LocalGroup> locals = {}) {
  Builder b;
  b.fiber_type({});
  b.fiber_type({});
  b.fiber_type({i32});
  b.func(std::move(params), std::move(results), body, std::move(locals));
  return b.m;
}

ValidateOptions no_fibers() {
  ValidateOptions o;
  o.enable_fibers = false;
  return o;
}

// The fiber extension's version 1 typing: no Wasm 3.0 typed function
// references, which lift its restrictions (docs/fibers.md §2).
ValidateOptions version1() {
  ValidateOptions o;
  o.enable_function_references = false;
  return o;
}

// ---------------------------------------------------------------------------
// Types (§2)

TEST(FiberTypes, FiberTypeDefinitions) {
  Builder b;
  b.fiber_type({i32, i64});
  EXPECT_TRUE(valid(b.m));
  EXPECT_TRUE(invalid(b.m, "fiber support is not enabled", no_fibers()));
  b.m.types[0].params = {i32};
  EXPECT_TRUE(invalid(b.m, "fiber type with parameters"));
}

TEST(FiberTypes, TypedReferencesNameEarlierFiberTypes) {
  Builder b;
  b.fiber_type({});
  b.type({ref(0), ref_null(0), fiberref, ref_fiber}, {ref(0)});
  EXPECT_TRUE(valid(b.m));
  EXPECT_TRUE(invalid(b.m, "fiber support is not enabled", no_fibers()));

  Builder to_func;  // (ref $f) of a function type
  to_func.type({}, {});
  to_func.type({ref(0)}, {});
  EXPECT_TRUE(invalid(to_func.m, "type mismatch: reference to a non-fiber type", version1()));
  EXPECT_TRUE(valid(to_func.m));  // typed function references

  Builder to_itself;  // a function type cannot name itself (only a fiber type can)
  to_itself.type({}, {ref(0)});
  EXPECT_TRUE(invalid(to_itself.m, "unknown type 0"));

  Builder unknown;
  unknown.type({ref_null(7)}, {});
  EXPECT_TRUE(invalid(unknown.m, "unknown type 7"));

  Builder forward;  // type 0 refers to the later type 1
  forward.type({ref(1)}, {});
  forward.fiber_type({});
  EXPECT_TRUE(invalid(forward.m, "forward reference to type 1"));

  Builder self;  // a fiber returning a fiber of its own type
  self.fiber_type({ref_null(0)});
  EXPECT_TRUE(valid(self.m));
}

TEST(FiberTypes, FunctionsBlocksAndTagsNeedFunctionTypes) {
  Builder b;
  b.fiber_type({});
  b.func(0, Code().end());
  EXPECT_TRUE(invalid(b.m, "type mismatch: function type expected"));

  Builder imp;
  imp.fiber_type({});
  imp.m.imports.push_back({"m", "f", ExternKind::Func, 0, {}, {}, {}});
  EXPECT_TRUE(invalid(imp.m, "type mismatch: function type expected"));

  Builder tag;
  tag.fiber_type({});
  tag.m.tags.push_back({0});
  EXPECT_TRUE(invalid(tag.m, "type mismatch: tag type must be a function type"));
  tag.m.tags.clear();
  tag.m.imports.push_back({"m", "t", ExternKind::Tag, 0, {}, {}, {}});
  EXPECT_TRUE(invalid(tag.m, "is a fiber type"));

  // block (type $g) with $g a fiber type
  EXPECT_TRUE(invalid(with_fibers({}, {}, Code().op(O::Block).s32(0).end().end()),
                      "type mismatch: block type is not a function type"));
  // call_indirect (type $g)
  Module ci = with_fibers({}, {}, Code().i32(0).op(O::CallIndirect).u32(0).u32(0).end());
  ci.tables.push_back({{funcref, {1, {}}}});
  EXPECT_TRUE(invalid(ci, "type mismatch: not a function type"));
  ci.functions[0].body = Code().i32(0).op(O::CallIndirect).u32(3).u32(0).end().bytes;  // the function's own type
  EXPECT_TRUE(valid(ci));
}

TEST(FiberTypes, TagsNeedTheExtensionAndNoResults) {
  Builder b;
  b.fiber_type({});
  uint32_t e = b.tag({ref(0), i32});
  EXPECT_EQ(e, 0u);
  EXPECT_TRUE(valid(b.m));
  EXPECT_TRUE(invalid(b.m, "fiber support is not enabled", no_fibers()));
  b.m.types.push_back({{}, {i32}, false});
  b.m.tags.push_back({uint32_t(b.m.types.size() - 1)});
  EXPECT_TRUE(invalid(b.m, "non-empty tag result type"));
}

TEST(FiberTypes, CanonicalTypeIds) {
  Builder b;
  b.fiber_type({i32});          // 0
  b.fiber_type({i32});          // 1 ≡ 0
  b.fiber_type({i64});          // 2
  b.type({ref(0)}, {});         // 3
  b.type({ref(1)}, {});         // 4 ≡ 3: its reference names an equivalent type
  b.fiber_type({ref_null(0)});  // 5
  b.fiber_type({ref_null(1)});  // 6 ≡ 5
  b.fiber_type({ref_null(7)});  // 7: refers to itself
  b.fiber_type({ref_null(7)});  // 8: refers to 7, not to itself: not ≡ 7 (iso-recursive)
  b.fiber_type({ref_null(9)});  // 9: refers to itself, ≡ 7
  b.fiber_type({ref_null(9)});  // 10: 9 ≡ 7, so ≡ 8
  b.type({i32}, {});            // 11
  b.type({i32}, {});            // 12 ≡ 11
  b.fiber_type({});             // 13: fiber [] is not func [] -> []
  b.type({}, {});               // 14
  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->canonical_types, (std::vector<uint32_t>{0, 0, 2, 3, 3, 5, 5, 7, 8, 7, 8, 11, 11, 13, 14}));
}

// ---------------------------------------------------------------------------
// Defaultability (§2)

TEST(FiberDefaultability, LocalsMustBeNullable) {
  EXPECT_TRUE(valid(with_fibers({}, {}, Code().end(), {{2, ref_null(0)}, {1, fiberref}})));
  EXPECT_TRUE(invalid(with_fibers({}, {}, Code().end(), {{1, ref(0)}}), "non-defaultable type", version1()));
  EXPECT_TRUE(invalid(with_fibers({}, {}, Code().end(), {{1, ref_fiber}}), "non-defaultable type", version1()));
  // With typed function references: allowed, but set before read, per block.
  EXPECT_TRUE(valid(with_fibers({}, {}, Code().end(), {{1, ref(0)}})));
  EXPECT_TRUE(invalid(with_fibers({ref(0)}, {}, Code().get(1).op(O::Drop).end(), {{1, ref(0)}}),
                      "uninitialized local 1"));
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {}, Code().get(0).set(1).get(1).op(O::Drop).end(), {{1, ref(0)}})));
  // Params may be non-nullable.
  EXPECT_TRUE(valid(with_fibers({ref(0), ref_fiber}, {}, Code().end())));
}

TEST(FiberDefaultability, TableElementsMustBeNullable) {
  Builder b;
  b.fiber_type({});
  b.m.tables.push_back({{ref_null(0), {1, {}}}});
  b.m.tables.push_back({{fiberref, {1, {}}}});
  EXPECT_TRUE(valid(b.m));
  b.m.tables.push_back({{ref(0), {1, {}}}});
  EXPECT_TRUE(invalid(b.m, "non-defaultable type"));
  // Typed function references: a table with an initializer may be
  // non-nullable (not in version 1), one without may not.
  // (No constant makes a non-null fiber: an initializer that is not constant
  // is rejected as such, no longer for the element type.)
  b.m.tables.back().init = Code().op(O::Unreachable).end().expr();
  EXPECT_TRUE(invalid(b.m, "constant expression required"));
  b.m.tables.pop_back();
  Import imp{"m", "t", ExternKind::Table, 0, {ref_fiber, {1, {}}}, {}, {}};
  b.m.imports.push_back(imp);
  EXPECT_TRUE(invalid(b.m, "non-defaultable type", version1()));
  EXPECT_TRUE(valid(b.m));  // an imported table is filled by its exporter
}

TEST(FiberDefaultability, ResultsAndGlobalsMayBeNonNullable) {
  Builder b;
  b.fiber_type({});
  b.type({}, {ref(0)});  // results
  Import g{"m", "g", ExternKind::Global, 0, {}, {}, {ref(0), false}};
  b.m.imports.push_back(g);
  b.m.globals.push_back({{ref(0), false}, Code().op(O::GlobalGet).u32(0).end().expr()});
  b.m.globals.push_back({{ref_null(0), true}, Code().op(O::GlobalGet).u32(0).end().expr()});  // subtype
  b.m.globals.push_back({{fiberref, false}, Code().op(O::GlobalGet).u32(0).end().expr()});
  EXPECT_TRUE(valid(b.m));
  // A non-nullable global cannot be initialised with a null.
  b.m.globals.push_back({{ref(0), false}, Code().null(0).end().expr()});
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
}

// ---------------------------------------------------------------------------
// Subtyping (§2) wherever Wasm 2.0 compared types for equality

// A module with fiber types 0, 1 ≡ 0, 2 (fiber [i32]) and a function
// `callee` of [param] -> [] (function 0); the tested function is function 1.
Module call_with(ValType param, ValType arg_local_type, bool arg_is_param = true) {
  Builder b;
  b.fiber_type({});
  b.fiber_type({});
  b.fiber_type({i32});
  b.func({param}, {}, Code().end());
  if (arg_is_param) b.func({arg_local_type}, {}, Code().get(0).op(O::Call).u32(0).end());
  else b.func({}, {}, Code().get(0).op(O::Call).u32(0).end(), {{1, arg_local_type}});
  return b.m;
}

TEST(FiberSubtyping, CallArguments) {
  EXPECT_TRUE(valid(call_with(ref_null(0), ref(0))));      // (ref $g) <: (ref null $g)
  EXPECT_TRUE(valid(call_with(fiberref, ref(0))));         // (ref $g) <: fiberref
  EXPECT_TRUE(valid(call_with(ref_fiber, ref(0))));        // (ref $g) <: (ref fiber)
  EXPECT_TRUE(valid(call_with(fiberref, ref_null(0))));    // (ref null $g) <: fiberref
  EXPECT_TRUE(valid(call_with(fiberref, ref_fiber)));      // (ref fiber) <: fiberref
  EXPECT_TRUE(valid(call_with(ref(1), ref(0))));           // $0 ≡ $1
  EXPECT_TRUE(valid(call_with(ref_null(1), ref(0))));
  EXPECT_TRUE(invalid(call_with(ref(2), ref(0)), "type mismatch"));        // different results
  EXPECT_TRUE(invalid(call_with(ref(0), ref_null(0)), "type mismatch"));   // null not <: non-null
  EXPECT_TRUE(invalid(call_with(ref_fiber, ref_null(0)), "type mismatch"));
  EXPECT_TRUE(invalid(call_with(ref_null(0), fiberref), "type mismatch"));  // abstract not <: typed
  EXPECT_TRUE(invalid(call_with(ref(0), ref_fiber), "type mismatch"));
  EXPECT_TRUE(invalid(call_with(funcref, ref_null(0)), "type mismatch"));  // funcref is unrelated
  EXPECT_TRUE(invalid(call_with(fiberref, funcref), "type mismatch"));
  EXPECT_TRUE(invalid(call_with(externref, fiberref), "type mismatch"));
  EXPECT_TRUE(valid(call_with(fiberref, fiberref, false)));  // locals
  EXPECT_TRUE(invalid(call_with(i32, fiberref, false), "type mismatch"));
}

TEST(FiberSubtyping, ResultsAndLabels) {
  // Function result.
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {fiberref}, Code().get(0).end())));
  EXPECT_TRUE(invalid(with_fibers({fiberref}, {ref_null(0)}, Code().get(0).end()), "type mismatch"));
  // block (result fiberref) with a br carrying a (ref $g).
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {fiberref},
                                Code().op(O::Block).fiberref().get(0).op(O::Br).u32(0).end().end())));
  // block (result (ref null $g)), typed-reference block types.
  EXPECT_TRUE(valid(with_fibers({ref(1)}, {ref_null(0)}, Code().op(O::Block).ref_null(0).get(0).end().end())));
  EXPECT_TRUE(valid(with_fibers({ref(1)}, {ref(0)}, Code().op(O::Block).ref(1).get(0).end().end())));
  EXPECT_TRUE(invalid(with_fibers({fiberref}, {}, Code().op(O::Block).ref(0).get(0).end().op(O::Drop).end()),
                      "type mismatch"));
  EXPECT_TRUE(invalid(with_fibers({}, {}, Code().op(O::Block).ref(9).op(O::Unreachable).end().end()), "unknown type"));
  // return and br_if.
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {fiberref}, Code().get(0).op(O::Return).end())));
  EXPECT_TRUE(valid(with_fibers({ref(0), i32}, {fiberref},
                                Code().op(O::Block).fiberref().get(0).get(1).op(O::BrIf).u32(0).end().end())));
  // br_table to labels of fiberref and (ref null $g) with a (ref $g) operand.
  EXPECT_TRUE(valid(with_fibers({ref(0), i32}, {fiberref},
                                Code()
                                    .op(O::Block).fiberref()
                                    .op(O::Block).ref_null(1)
                                    .get(0).get(1).op(O::BrTable).u32(1).u32(0).u32(1)
                                    .end()
                                    .end()
                                    .end())));
  // A block type that is not valid with fibers disabled is malformed there.
  auto r = validate_module(with_fibers({}, {}, Code().op(O::Block).fiberref().op(O::Unreachable).end().op(O::Drop)
                                                   .end()),
                           no_fibers());
  EXPECT_FALSE(r.ok());
}

TEST(FiberSubtyping, LocalsAndGlobals) {
  // local.set of a (ref $g) into a fiberref local; local.tee yields the local's type.
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {fiberref}, Code().get(0).op(O::LocalTee).u32(1).end(), {{1, fiberref}})));
  EXPECT_TRUE(invalid(with_fibers({ref(0)}, {ref_null(0)}, Code().get(0).op(O::LocalTee).u32(1).end(),
                                  {{1, fiberref}}),
                      "type mismatch"));
  EXPECT_TRUE(valid(with_fibers({ref(1)}, {}, Code().get(0).op(O::LocalSet).u32(1).end(), {{1, ref_null(0)}})));
  EXPECT_TRUE(invalid(with_fibers({fiberref}, {}, Code().get(0).op(O::LocalSet).u32(1).end(), {{1, ref_null(0)}}),
                      "type mismatch"));
  // global.set / global.get.
  Builder b;
  b.fiber_type({});
  b.m.globals.push_back({{fiberref, true}, Code().null_fiber().end().expr()});
  b.func({ref(0)}, {fiberref}, Code().get(0).op(O::GlobalSet).u32(0).op(O::GlobalGet).u32(0).end());
  EXPECT_TRUE(valid(b.m));
  b.m.globals[0].type.type = ref_null(0);
  b.m.globals[0].init = Code().null(0).end().expr();
  EXPECT_TRUE(valid(b.m));
  b.m.functions[0].body = Code().null_fiber().op(O::GlobalSet).u32(0).op(O::GlobalGet).u32(0).end().bytes;
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
}

TEST(FiberSubtyping, Tables) {
  Builder b;
  b.fiber_type({});
  b.m.tables.push_back({{fiberref, {1, {}}}});     // 0
  b.m.tables.push_back({{ref_null(0), {1, {}}}});  // 1
  b.m.tables.push_back({{funcref, {1, {}}}});      // 2
  // table.set/fill/grow of a (ref $g) into a fiberref table; table.get.
  b.func({ref(0)}, {fiberref},
         Code()
             .i32(0).get(0).op(O::TableSet).u32(0)
             .i32(0).get(0).i32(1).op(O::TableFill).u32(0)
             .get(0).i32(1).op(O::TableGrow).u32(0).op(O::Drop)
             .i32(0).get(0).op(O::TableSet).u32(1)
             .op(O::TableSize).u32(1).op(O::Drop)
             .i32(0).op(O::TableGet).u32(1)
             .end());
  EXPECT_TRUE(valid(b.m));
  // A fiberref does not go into a table of (ref null $g), nor into funcref.
  Module m = b.m;
  m.functions[0].body = Code().i32(0).null_fiber().op(O::TableSet).u32(1).null_fiber().end().bytes;
  EXPECT_TRUE(invalid(m, "type mismatch"));
  m.functions[0].body = Code().i32(0).get(0).op(O::TableSet).u32(2).null_fiber().end().bytes;
  EXPECT_TRUE(invalid(m, "type mismatch"));
  // table.copy: source elements must be subtypes of the destination's.
  m.functions[0].body = Code().i32(0).i32(0).i32(0).op(O::TableCopy).u32(0).u32(1).null_fiber().end().bytes;
  EXPECT_TRUE(valid(m));
  m.functions[0].body = Code().i32(0).i32(0).i32(0).op(O::TableCopy).u32(1).u32(0).null_fiber().end().bytes;
  EXPECT_TRUE(invalid(m, "type mismatch"));
}

TEST(FiberSubtyping, ElemSegments) {
  Builder b;
  b.fiber_type({});
  b.m.tables.push_back({{fiberref, {4, {}}}});     // 0
  b.m.tables.push_back({{ref_null(0), {4, {}}}});  // 1
  ElemSegment seg;
  seg.mode = SegmentMode::Active;
  seg.type = ref_null(0);
  seg.table = 0;
  seg.offset = Code().i32(0).end().expr();
  seg.items = {Code().null(0).end().expr()};
  seg.uses_expressions = true;
  b.m.elems.push_back(seg);
  EXPECT_TRUE(valid(b.m));  // (ref null $g) segment into a fiberref table
  b.m.elems[0].items.push_back(Code().null_fiber().end().expr());
  EXPECT_TRUE(invalid(b.m, "type mismatch"));  // fiberref item in a (ref null $g) segment
  b.m.elems[0].items.pop_back();
  b.m.elems[0].type = fiberref;
  b.m.elems[0].table = 1;
  EXPECT_TRUE(invalid(b.m, "type mismatch"));  // fiberref segment into a (ref null $g) table
  b.m.elems[0].mode = SegmentMode::Passive;
  // table.init of a fiberref segment into table 0 is fine, into table 1 not.
  b.func({}, {}, Code().i32(0).i32(0).i32(0).op(O::TableInit).u32(0).u32(0).end());
  EXPECT_TRUE(valid(b.m));
  b.m.functions[0].body = Code().i32(0).i32(0).i32(0).op(O::TableInit).u32(0).u32(1).end().bytes;
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
}

TEST(FiberSubtyping, SelectAndReferenceInstructions) {
  // Typed select (result fiberref) over (ref $g) and (ref null $g).
  EXPECT_TRUE(valid(with_fibers({ref(0), ref_null(1), i32}, {fiberref},
                                Code().get(0).get(1).get(2).op(O::SelectT).u32(1).fiberref().end())));
  EXPECT_TRUE(valid(with_fibers({ref(0), ref(1), i32}, {ref(0)},
                                Code().get(0).get(1).get(2).op(O::SelectT).u32(1).ref(0).end())));
  EXPECT_TRUE(invalid(with_fibers({ref(0), ref_null(1), i32}, {},
                                  Code().get(0).get(1).get(2).op(O::SelectT).u32(1).ref(0).op(O::Drop).end()),
                      "type mismatch"));
  // Untyped select stays numeric/vector only.
  EXPECT_TRUE(invalid(with_fibers({ref(0), ref(0), i32}, {},
                                  Code().get(0).get(1).get(2).op(O::Select).op(O::Drop).end()),
                      "type mismatch"));
  // ref.null $g / ref.null fiber, ref.is_null.
  EXPECT_TRUE(valid(with_fibers({}, {ref_null(1)}, Code().null(0).end())));
  EXPECT_TRUE(valid(with_fibers({}, {fiberref}, Code().null(2).end())));
  EXPECT_TRUE(valid(with_fibers({}, {fiberref}, Code().null_fiber().end())));
  EXPECT_TRUE(invalid(with_fibers({}, {ref_null(0)}, Code().null_fiber().end()), "type mismatch"));
  EXPECT_TRUE(invalid(with_fibers({}, {ref(0)}, Code().null(0).end()), "type mismatch"));
  EXPECT_TRUE(valid(with_fibers({ref(0)}, {i32}, Code().get(0).op(O::RefIsNull).end())));
  EXPECT_TRUE(valid(with_fibers({}, {i32}, Code().null_fiber().op(O::RefIsNull).end())));
  EXPECT_TRUE(invalid(with_fibers({}, {}, Code().null(9).op(O::Drop).end()), "unknown type 9"));
  Builder func_type;  // ref.null of a function type
  func_type.type({}, {});
  func_type.func(0, Code().null(0).op(O::Drop).end());
  EXPECT_TRUE(invalid(func_type.m, "type mismatch: ref.null of a non-fiber type", version1()));
  EXPECT_TRUE(valid(func_type.m));  // typed function references
  Builder const_func_type;  // the same in a constant expression
  const_func_type.type({}, {});
  const_func_type.m.globals.push_back({{fiberref, false}, Code().null(0).end().expr()});
  EXPECT_TRUE(invalid(const_func_type.m, "type mismatch: ref.null of a non-fiber type", version1()));
  EXPECT_TRUE(invalid(const_func_type.m, "type mismatch: expected fiberref"));  // a function type is not a fiber's
  // With fibers disabled, 0x5B is not a heap type.
  auto r = validate_module(with_fibers({}, {}, Code().null_fiber().op(O::Drop).end()), no_fibers());
  EXPECT_FALSE(r.ok());
}

TEST(FiberSubtyping, ConstantExpressions) {
  Builder b;
  b.fiber_type({});
  b.fiber_type({});
  b.m.globals.push_back({{fiberref, false}, Code().null(0).end().expr()});
  b.m.globals.push_back({{ref_null(1), false}, Code().null(0).end().expr()});
  b.m.globals.push_back({{fiberref, false}, Code().null_fiber().end().expr()});
  EXPECT_TRUE(valid(b.m));
  b.m.globals.push_back({{ref_null(0), false}, Code().null_fiber().end().expr()});
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
  b.m.globals.back() = {{funcref, false}, Code().null_fiber().end().expr()};
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
  b.m.globals.back() = {{fiberref, false}, Code().op(O::RefNull).byte(0x70).end().expr()};
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
  b.m.globals.pop_back();
  // The public entry point knows subtyping too.
  EXPECT_TRUE(validate_const_expr(b.m, Code().null(1).end().expr(), fiberref, 0).ok());
  EXPECT_TRUE(validate_const_expr(b.m, Code().null(1).end().expr(), ref_null(0), 0).ok());
  EXPECT_FALSE(validate_const_expr(b.m, Code().null_fiber().end().expr(), ref_null(0), 0).ok());
}

// ---------------------------------------------------------------------------
// handle / event structure (§5.1)

// Fiber type 0 = fiber []; tags 0 (param i32), 1 (), 2 (param i64 i32).
Builder handle_module() {
  Builder b;
  b.fiber_type({});
  b.tag({i32});
  b.tag({});
  b.tag({i64, i32});
  return b;
}

Module handle_function(std::vector<ValType> params, std::vector<ValType> results, const Code& body) {
  Builder b = handle_module();
  b.func(std::move(params), std::move(results), body);
  return b.m;
}

TEST(FiberHandle, ClausesTakeTheTagParamsAndEndWithTheHandleResults) {
  // handle (result i32) i32.const 1 event 0 (stack: i32) event 1 i32.const 2 end
  EXPECT_TRUE(valid(handle_function({}, {i32},
                                    Code().op(O::Handle).byte(0x7F).i32(1).event(0).event(1).i32(2).end().end())));
  // event 2 has [i64 i32]: drop the i32, the i64 is wrong for the result i32.
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).i32(1).event(2).op(O::Drop).end()
                                                     .end()),
                      "type mismatch"));
  EXPECT_TRUE(valid(handle_function({}, {i64}, Code().op(O::Handle).byte(0x7E).op(O::I64Const).byte(0).event(2)
                                                   .op(O::Drop).end().end())));
  // The body segment must end with the results, like `end`.
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).event(0).end().end()),
                      "type mismatch"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().handle().i32(1).event(1).end().end()), "left over"));
  // A clause ending with leftovers.
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().handle().event(0).end().end()), "left over"));
  // An unreachable body segment is fine; the clause is reachable again.
  EXPECT_TRUE(valid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).op(O::Unreachable).event(0).end()
                                                   .end())));
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).op(O::Unreachable).event(1).end()
                                                     .end()),
                      "type mismatch"));
  // Values below the handle are not visible in a clause.
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().i32(5).handle().event(1).op(O::Drop).end().op(O::Drop).end()),
                      "type mismatch"));
}

TEST(FiberHandle, HandleParamsAndLabel) {
  Builder b = handle_module();
  uint32_t t = b.type({i32}, {i32});
  // i32.const 1 handle (type [i32]->[i32]) i32.const 1 i32.add event 1 i32.const 0 end
  b.func({}, {i32}, Code().i32(1).op(O::Handle).s32(int32_t(t)).i32(1).op(O::I32Add).event(1).i32(0).end().end());
  EXPECT_TRUE(valid(b.m));
  // Clauses do not see the handle's params.
  b.m.functions[0].body = Code().i32(1).op(O::Handle).s32(int32_t(t)).event(1).end().end().bytes;
  EXPECT_TRUE(invalid(b.m, "type mismatch"));
  // The handle's label has its results, from the body and from a clause.
  EXPECT_TRUE(valid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).i32(1).op(O::Br).u32(0).event(0)
                                                   .op(O::Br).u32(0).end().end())));
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).i32(1).event(1)
                                                     .op(O::Br).u32(0).end().end()),
                      "type mismatch"));
  // A handle without clauses is a block.
  EXPECT_TRUE(valid(handle_function({}, {i32}, Code().op(O::Handle).byte(0x7F).i32(1).end().end())));
}

TEST(FiberHandle, EventOutsideHandle) {
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().op(O::Block).byte(0x40).event(1).end().end().end()),
                      "event clause outside handle"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().op(O::Loop).byte(0x40).event(1).end().end().end()),
                      "event clause outside handle"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().i32(0).op(O::If).byte(0x40).event(1).end().end().end()),
                      "event clause outside handle"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().i32(0).op(O::If).byte(0x40).op(O::Else).event(1).end().end()
                                                  .end()),
                      "event clause outside handle"));
  // Inside a block inside a handle: still outside (the innermost frame counts).
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().handle().op(O::Block).byte(0x40).event(1).end().end().end()
                                                  .end()),
                      "event clause outside handle"));
  // At the function's outermost level it is a function-level clause.
  EXPECT_TRUE(valid(handle_function({}, {}, Code().event(1).end())));
  EXPECT_TRUE(valid(handle_function({}, {i32}, Code().i32(0).event(0).event(1).i32(3).end())));
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().event(0).end()), "type mismatch"));  // body segment
  EXPECT_TRUE(invalid(handle_function({}, {i32}, Code().i32(0).event(1).end()), "type mismatch"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().event(7).end()), "unknown tag 7"));
}

TEST(FiberHandle, DuplicateEventClause) {
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().handle().event(1).event(0).op(O::Drop).event(1).end().end()),
                      "duplicate event clause"));
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().event(1).event(1).end()), "duplicate event clause"));
  // The error points at the second clause.
  Code dup;
  uint32_t second = 0;
  dup.handle().event(1).mark(second).event(1).end().end();
  auto r = validate_module(handle_function({}, {}, dup));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().location.offset, second);
  // The same tag in nested handles (in the body or in a clause) and in
  // sibling handles is fine.
  EXPECT_TRUE(valid(handle_function({}, {}, Code().handle().handle().event(1).end().event(1).end().end())));
  EXPECT_TRUE(valid(handle_function({}, {}, Code().handle().event(1).handle().event(1).end().event(0).op(O::Drop)
                                                .end().end())));
  EXPECT_TRUE(valid(handle_function({}, {}, Code().handle().event(1).end().handle().event(1).end().event(1).end())));
  // A nested handle in a clause reusing the tag does not hide a later duplicate.
  EXPECT_TRUE(invalid(handle_function({}, {}, Code().handle().event(1).handle().event(1).end().event(1).end().end()),
                      "duplicate event clause"));
}

TEST(FiberHandle, DisabledFibersRejectTheInstructions) {
  Builder b;
  b.func({}, {}, Code().handle().end().end());
  const Module& m = b.m;
  EXPECT_TRUE(valid(m));
  EXPECT_TRUE(invalid(m, "fiber support is not enabled: handle", no_fibers()));
}

// ---------------------------------------------------------------------------
// Instructions (§3, §5.2)

// Types: 0 = fiber [i32], 1 = fiber [i32] (≡ 0), 2 = fiber [];
// tags: 0 (param i32), 1 (), 2 (param (ref 2)).
// Functions: 0 body [(ref 0) i64] -> [i32] (a fiber function of 0),
// 1 bad_first [i32] -> [i32], 2 bad_results [(ref null 0)] -> [], 3 abstract [fiberref] -> [i32],
// 4 nullable_equiv [(ref null 1)] -> [i32], 5 no_params [] -> [i32];
// function 6 is the one tested.
Module fiber_instr(std::vector<ValType> params, std::vector<ValType> results, const Code& body) {
  Builder b;
  b.fiber_type({i32});
  b.fiber_type({i32});
  b.fiber_type({});
  b.tag({i32});
  b.tag({});
  b.tag({ref(2)});
  const Code trap = Code().op(O::Unreachable).end();
  b.func({ref(0), i64}, {i32}, trap);
  b.func({i32}, {i32}, trap);
  b.func({ref_null(0)}, {}, trap);
  b.func({fiberref}, {i32}, trap);
  b.func({ref_null(1)}, {i32}, trap);
  b.func({}, {i32}, trap);
  b.func(std::move(params), std::move(results), body);
  return b.m;
}

TEST(FiberInstructions, New) {
  // fiber.new $f: [t*] -> [(ref $g)]
  EXPECT_TRUE(valid(fiber_instr({}, {ref(0)}, Code().op(O::I64Const).byte(1).op(O::FiberNew).u32(0).end())));
  EXPECT_TRUE(valid(fiber_instr({}, {ref(1)}, Code().op(O::I64Const).byte(1).op(O::FiberNew).u32(0).end())));
  EXPECT_TRUE(valid(fiber_instr({}, {ref(1)}, Code().op(O::FiberNew).u32(4).end())));
  EXPECT_TRUE(invalid(fiber_instr({}, {ref(2)}, Code().op(O::I64Const).byte(1).op(O::FiberNew).u32(0).end()),
                      "type mismatch"));
  EXPECT_TRUE(invalid(fiber_instr({}, {ref(0)}, Code().i32(1).op(O::FiberNew).u32(0).end()), "type mismatch"));
  EXPECT_TRUE(invalid(fiber_instr({}, {ref(0)}, Code().op(O::FiberNew).u32(0).end()), "type mismatch"));
  for (uint32_t bad : {1u, 2u, 3u, 5u})
    EXPECT_TRUE(invalid(fiber_instr({}, {}, Code().op(O::Unreachable).op(O::FiberNew).u32(bad).op(O::Drop).end()),
                        "type mismatch: fiber function"))
        << bad;
  EXPECT_TRUE(invalid(fiber_instr({}, {}, Code().op(O::FiberNew).u32(99).op(O::Drop).end()), "unknown function"));
  // Not a suspension point.
  auto r = validate_module(fiber_instr({}, {ref(0)}, Code().op(O::I64Const).byte(1).op(O::FiberNew).u32(0).end()));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->functions[6].suspension_points().empty());
}

TEST(FiberInstructions, Spawn) {
  // fiber.spawn $f: [t*] -> [r*]
  EXPECT_TRUE(valid(fiber_instr({}, {i32}, Code().op(O::I64Const).byte(1).op(O::FiberSpawn).u32(0).end())));
  EXPECT_TRUE(valid(fiber_instr({}, {i32}, Code().op(O::FiberSpawn).u32(4).end())));
  EXPECT_TRUE(invalid(fiber_instr({}, {i64}, Code().op(O::I64Const).byte(1).op(O::FiberSpawn).u32(0).end()),
                      "type mismatch"));
  EXPECT_TRUE(invalid(fiber_instr({}, {i32}, Code().op(O::Unreachable).op(O::FiberSpawn).u32(3).end()),
                      "type mismatch: fiber function"));
}

TEST(FiberInstructions, ResumeAndSuspendTo) {
  for (Opcode op : {O::FiberResume, O::FiberSuspendTo}) {
    // [(ref null $g) te*] -> [r*]
    EXPECT_TRUE(valid(fiber_instr({ref_null(0)}, {i32}, Code().get(0).i32(5).op(op).u32(0).u32(0).end())));
    EXPECT_TRUE(valid(fiber_instr({ref(1)}, {i32}, Code().get(0).op(op).u32(0).u32(1).end())));
    EXPECT_TRUE(valid(fiber_instr({ref(1), ref(2)}, {i32}, Code().get(0).get(1).op(op).u32(0).u32(2).end())));
    EXPECT_TRUE(invalid(fiber_instr({ref(2)}, {}, Code().get(0).op(op).u32(2).u32(1).op(O::Drop).end()),
                        "type mismatch"));  // fiber [] has no results
    EXPECT_TRUE(invalid(fiber_instr({ref(2)}, {i32}, Code().get(0).op(op).u32(0).u32(1).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({fiberref}, {i32}, Code().get(0).op(op).u32(0).u32(1).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0)}, {i32}, Code().get(0).op(op).u32(0).u32(0).end()), "type mismatch"));
    EXPECT_TRUE(
        invalid(fiber_instr({ref(0)}, {i32}, Code().get(0).i32(1).op(op).u32(0).u32(1).end()), "type mismatch"));
    // Immediates: a fiber type, an existing tag.
    EXPECT_TRUE(invalid(fiber_instr({ref(0)}, {i32}, Code().get(0).op(op).u32(3).u32(1).end()),
                        "type mismatch: not a fiber type"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0)}, {i32}, Code().get(0).op(op).u32(99).u32(1).end()), "unknown type 99"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0)}, {i32}, Code().get(0).op(op).u32(0).u32(9).end()), "unknown tag 9"));
  }
}

TEST(FiberInstructions, SuspendAndRetire) {
  for (Opcode op : {O::FiberSuspend, O::FiberRetire}) {
    // [fiberref te*] -> [⊥]: any fiber reference, then the stack is polymorphic.
    EXPECT_TRUE(valid(fiber_instr({fiberref}, {i32}, Code().get(0).i32(1).op(op).u32(0).end())));
    EXPECT_TRUE(valid(fiber_instr({ref(0)}, {i64}, Code().get(0).op(op).u32(1).op(O::I64Add).end())));
    EXPECT_TRUE(valid(fiber_instr({ref(2)}, {}, Code().get(0).get(0).op(op).u32(2).end())));
    EXPECT_TRUE(invalid(fiber_instr({ref_null(2)}, {}, Code().get(0).get(0).op(op).u32(2).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({ref_null(2)}, {}, Code().get(0).op(op).u32(2).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({funcref}, {}, Code().get(0).op(op).u32(1).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({}, {}, Code().i32(0).op(op).u32(1).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({fiberref}, {}, Code().get(0).op(op).u32(5).end()), "unknown tag 5"));
  }
}

TEST(FiberInstructions, SwitchAndRetireto) {
  for (Opcode op : {O::FiberSwitch, O::FiberRetireto}) {
    // [(ref null $g) (ref null $g) te*] -> [⊥]
    EXPECT_TRUE(valid(fiber_instr({ref(0), ref_null(1)}, {i64},
                                  Code().get(0).get(1).i32(3).op(op).u32(0).u32(0).op(O::I64Add).end())));
    EXPECT_TRUE(invalid(fiber_instr({fiberref, ref(0)}, {}, Code().get(0).get(1).op(op).u32(0).u32(1).end()),
                        "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0), ref(2)}, {}, Code().get(0).get(1).op(op).u32(0).u32(1).end()),
                        "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0)}, {}, Code().get(0).op(op).u32(0).u32(1).end()), "type mismatch"));
    EXPECT_TRUE(invalid(fiber_instr({ref(0), ref(0)}, {}, Code().get(0).get(1).op(op).u32(4).u32(1).end()),
                        "type mismatch: not a fiber type"));
  }
}

TEST(FiberInstructions, Release) {
  EXPECT_TRUE(valid(fiber_instr({ref(0), fiberref}, {}, Code().get(0).op(O::FiberRelease).get(1)
                                                            .op(O::FiberRelease).end())));
  EXPECT_TRUE(valid(fiber_instr({}, {}, Code().null(0).op(O::FiberRelease).end())));
  EXPECT_TRUE(invalid(fiber_instr({}, {}, Code().op(O::FiberRelease).end()), "type mismatch"));
  EXPECT_TRUE(invalid(fiber_instr({externref}, {}, Code().get(0).op(O::FiberRelease).end()), "type mismatch"));
}

TEST(FiberInstructions, MalformedAndTruncatedBytesNeverCrash) {
  Module base = fiber_instr({ref(0), ref(0)}, {}, Code());
  base.functions.back().body = Code().op(O::Handle).s32(0).end().end().bytes;  // block type = a fiber type
  EXPECT_TRUE(invalid(base, "type mismatch: block type is not a function type"));
  Code ok = Code().handle().get(0).op(O::FiberRelease).event(1).op(O::I64Const).byte(1).op(O::FiberSpawn).u32(0)
                .op(O::Drop).end().get(0).get(1).i32(7).op(O::FiberSwitch).u32(0).u32(0).end();
  base.functions.back().body = ok.bytes;
  ASSERT_TRUE(valid(base));
  for (size_t n = 0; n < ok.bytes.size(); ++n) {
    Module m = base;
    m.functions.back().body.edit().resize(n);
    EXPECT_FALSE(validate_module(m).ok()) << "prefix " << n;
  }
  // Random corruptions of fiber code: errors, never crashes or hangs.
  std::mt19937 rng(4242);
  for (int round = 0; round < 20000; ++round) {
    Module m = base;
    std::vector<uint8_t>& b = m.functions.back().body.edit();
    for (int k = 0; k < 3; ++k) b[rng() % b.size()] = uint8_t(round % 4 == 0 ? 0xFA : rng());
    (void)validate_module(m);
  }
  // An unknown 0xFA sub-opcode is malformed.
  base.functions.back().body = {0xFA, 0x7F, 0x0B};
  auto r = validate_module(base);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
}

// ---------------------------------------------------------------------------
// Handler scopes (§5.3)

const FunctionInfo& info_of(const Result<ValidationInfo>& r, size_t i) { return r->functions[i]; }

TEST(FiberScopes, SingleHandle) {
  Builder b = handle_module();  // tags 0 (i32), 1 (), 2 (i64 i32); fiber type 0 = fiber []
  uint32_t point = 0, clause0 = 0, clause1 = 0;
  // [fiberref] -> []: v128 below the handle counts two slots, i64 one.
  b.func({fiberref}, {}, Code()
                             .op(O::V128Const).zeros(16)
                             .op(O::I64Const).byte(0)
                             .handle()
                                 .get(0).op(O::Block).byte(0x40).op(O::Unreachable).end()
                                 .mark(point).op(O::FiberSuspend).u32(1)
                             .event(0).mark(clause0).op(O::Drop)
                             .event(1).mark(clause1)
                             .end()
                             .op(O::Drop).op(O::Drop)
                             .end());
  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const FunctionInfo& f = info_of(r, 0);
  ASSERT_EQ(f.suspension_points().size(), 1u);
  EXPECT_EQ(f.suspension_points()[0].body_offset, point);
  EXPECT_EQ(f.suspension_points()[0].opcode, O::FiberSuspend);
  EXPECT_EQ(f.suspension_points()[0].scope, (std::vector<EventClause>{{0, clause0, 3}, {1, clause1, 3}}));
  EXPECT_TRUE(f.entry_clauses().empty());
  EXPECT_EQ(f.max_stack_height, 4u);  // v128 (2) + i64 + the fiberref, or the i32 of clause 0
}

TEST(FiberScopes, HandleParamsAreNotPartOfTheEntryHeight) {
  Builder b = handle_module();
  uint32_t t = b.type({i32, i32}, {});
  uint32_t clause = 0;
  b.func({fiberref}, {}, Code()
                             .i32(1)
                             .i32(2).i32(3).op(O::Handle).s32(int32_t(t))
                                 .op(O::Drop).op(O::Drop).get(0).op(O::FiberSuspend).u32(1)
                             .event(1).mark(clause)
                             .end()
                             .op(O::Drop)
                             .end());
  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(info_of(r, 0).suspension_points().size(), 1u);
  EXPECT_EQ(info_of(r, 0).suspension_points()[0].scope, (std::vector<EventClause>{{1, clause, 1}}));
}

TEST(FiberScopes, NestingShadowingAndClauseCode) {
  Builder b = handle_module();
  // Function-level clause for tag 1; outer handle clauses 0 and 1; inner
  // handle (in the outer body) clause 1; a handle nested in the outer's
  // clause 0 with clause 2.
  uint32_t p_inner = 0, p_block = 0, p_outer = 0, p_inner_clause = 0, p_outer_clause = 0, p_nested = 0,
           p_after = 0, p_function_clause = 0;
  uint32_t c_inner1 = 0, c_outer0 = 0, c_outer1 = 0, c_nested2 = 0, c_function1 = 0;
  Code code;
  code.handle()                                                  // outer
      .handle()                                                  //   inner
          .get(0).mark(p_inner).op(O::FiberSuspend).u32(1)
      .event(1).mark(c_inner1)
          .get(0).i32(1).mark(p_inner_clause).op(O::FiberSuspendTo).u32(0).u32(0)
      .end()
      .op(O::Block).byte(0x40)
          .get(0).mark(p_block).op(O::FiberResume).u32(0).u32(1)
      .end()
      .get(0).get(0).mark(p_outer).op(O::FiberSwitch).u32(0).u32(1)
  .event(0).mark(c_outer0)
      .op(O::Drop)
      .get(0).mark(p_outer_clause).op(O::FiberResume).u32(0).u32(1)
      .handle()                                                  //   nested in clause 0
          .get(0).mark(p_nested).op(O::FiberResume).u32(0).u32(1)
      .event(2).mark(c_nested2).op(O::Drop).op(O::Drop)
      .end()
  .event(1).mark(c_outer1)
  .end()
  .get(0).mark(p_after).op(O::FiberResume).u32(0).u32(1)
  .event(1).mark(c_function1)
      .get(0).mark(p_function_clause).op(O::FiberResume).u32(0).u32(1)
      .get(0).op(O::FiberRetire).u32(1)
  .end();
  b.func({ref(0)}, {}, code);
  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const FunctionInfo& f = info_of(r, 0);
  const EventClause inner1{1, c_inner1, 0}, outer0{0, c_outer0, 0}, outer1{1, c_outer1, 0},
      nested2{2, c_nested2, 0}, function1{1, c_function1, 0};
  EXPECT_EQ(f.entry_clauses(), (std::vector<EventClause>{function1}));
  ASSERT_EQ(f.suspension_points().size(), 8u);  // fiber.retire is not a suspension point
  const std::vector<uint32_t> offsets{p_inner,        p_inner_clause, p_block,  p_outer,
                                      p_outer_clause, p_nested,       p_after,  p_function_clause};
  const std::vector<Opcode> opcodes{O::FiberSuspend, O::FiberSuspendTo, O::FiberResume, O::FiberSwitch,
                                    O::FiberResume,  O::FiberResume,    O::FiberResume, O::FiberResume};
  for (size_t i = 0; i < offsets.size(); ++i) {
    EXPECT_EQ(f.suspension_points()[i].body_offset, offsets[i]) << i;
    EXPECT_EQ(f.suspension_points()[i].opcode, opcodes[i]) << i;
  }
  using Scope = std::vector<EventClause>;
  // Inner body: inner's clause 1 shadows outer's; then outer 0. The function's
  // clause 1 is shadowed too.
  EXPECT_EQ(f.suspension_points()[0].scope, (Scope{inner1, outer0}));
  // Inner clause: not in inner's scope, in outer's body segment.
  EXPECT_EQ(f.suspension_points()[1].scope, (Scope{outer0, outer1}));
  // A block in the outer body.
  EXPECT_EQ(f.suspension_points()[2].scope, (Scope{outer0, outer1}));
  EXPECT_EQ(f.suspension_points()[3].scope, (Scope{outer0, outer1}));
  // Outer clause: only the function level.
  EXPECT_EQ(f.suspension_points()[4].scope, (Scope{function1}));
  // Handle nested in the outer clause: its clause, then the function level.
  EXPECT_EQ(f.suspension_points()[5].scope, (Scope{nested2, function1}));
  // Function body segment after the handle.
  EXPECT_EQ(f.suspension_points()[6].scope, (Scope{function1}));
  // Function-level clause: no scope at all.
  EXPECT_EQ(f.suspension_points()[7].scope, Scope{});
}

TEST(FiberScopes, SpawnIsASuspensionPointAndDeadCodeIsRecorded) {
  Module m = fiber_instr({}, {i32}, Code().op(O::Unreachable).op(O::FiberSpawn).u32(0).end());
  auto r = validate_module(m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->functions[6].suspension_points().size(), 1u);
  EXPECT_EQ(r->functions[6].suspension_points()[0].opcode, O::FiberSpawn);
  EXPECT_EQ(r->functions[6].suspension_points()[0].body_offset, 1u);
}

TEST(FiberScopes, EveryFunctionStartsFresh) {
  Builder b = handle_module();
  uint32_t c = 0;
  b.func({fiberref}, {}, Code().get(0).op(O::FiberSuspend).u32(1).event(1).mark(c).end());
  b.func({fiberref}, {}, Code().get(0).op(O::FiberSuspend).u32(1).end());
  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->functions[0].entry_clauses(), (std::vector<EventClause>{{1, c, 0}}));
  EXPECT_EQ(r->functions[0].suspension_points()[0].scope, (std::vector<EventClause>{{1, c, 0}}));
  EXPECT_TRUE(r->functions[1].entry_clauses().empty());
  EXPECT_TRUE(r->functions[1].suspension_points()[0].scope.empty());
}

TEST(FiberScopes, QuadraticScopesHitALimit) {
  // N nested handles, each with a clause and a suspension point in its body:
  // the flattened scopes total about N²/2 entries.
  Builder b = handle_module();
  const int n = 3000;
  Code code;
  for (int i = 0; i < n; ++i) code.handle().get(0).op(O::FiberResume).u32(0).u32(1);
  for (int i = 0; i < n; ++i) code.event(1).end();
  code.end();
  b.func({ref(0)}, {}, code);
  auto r = validate_module(b.m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Limit);
  // Shallow nesting with many points is fine: scopes are shared per handle.
  Builder ok = handle_module();
  Code flat;
  flat.handle();
  for (int i = 0; i < 20000; ++i) flat.get(0).op(O::FiberResume).u32(0).u32(1);
  flat.event(1).end().end();
  ok.func({ref(0)}, {}, flat);
  auto r2 = validate_module(ok.m);
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(r2->functions[0].suspension_points().size(), 20000u);
}

// ---------------------------------------------------------------------------
// The worked example of docs/fibers.md §11 (the corrected generator)

TEST(FiberExample, Generator) {
  Builder b;
  const uint32_t gen = b.fiber_type({});  // (type $gen (fiber))
  const uint32_t identify = b.tag({ref(gen)});
  const uint32_t yield = b.tag({i32});
  const uint32_t next = b.tag({});
  b.m.memories.push_back({{{1, {}}}});
  DataSegment data;
  data.offset = Code().i32(0).end().expr();
  data.bytes = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
  b.m.datas.push_back(data);

  // $arrayGenerator (param $self (ref $gen)) (param $count i32) (param $els i32) (local $ix i32)
  const uint32_t self = 0, count = 1, els = 2, ix = 3;
  uint32_t g_identify = 0, g_next1 = 0, g_yield = 0, g_next2 = 0;
  Code generator;
  generator.handle()
      .get(self).get(self).mark(g_identify).op(O::FiberSuspend).u32(identify)
      .event(next).mark(g_next1)
      .end()
      .op(O::Block).byte(0x40)  // $done
      .op(O::Loop).byte(0x40)   // $l
      .get(ix).get(count).op(O::I32GeU).op(O::BrIf).u32(1)
      .handle()
      .get(self)
      .get(els).get(ix).i32(2).op(O::I32Shl).op(O::I32Add).op(O::I32Load).u32(2).u32(0)
      .mark(g_yield).op(O::FiberSuspend).u32(yield)
      .event(next).mark(g_next2)
      .get(ix).i32(1).op(O::I32Add).op(O::LocalSet).u32(ix)
      .op(O::Br).u32(1)  // $l
      .end()
      .end()
      .end()
      .end();
  const uint32_t array_generator = b.func({ref(gen), i32, i32}, {}, generator, {{1, i32}});

  // (func (export "sum") (param $count i32) (param $els i32) (result i32)
  //   (local $g (ref null $gen)) (local $total i32)
  const uint32_t g = 2, total = 3;
  uint32_t s_spawn = 0, s_identify = 0, s_resume = 0, s_yield = 0;
  Code sum;
  sum.handle()
      .get(0).get(1).mark(s_spawn).op(O::FiberSpawn).u32(array_generator)
      .op(O::Unreachable)
      .event(identify).mark(s_identify)
      .op(O::LocalSet).u32(g)
      .end()
      .op(O::Block).byte(0x40)  // $done
      .op(O::Loop).byte(0x40)   // $l
      .handle()
      .get(g).mark(s_resume).op(O::FiberResume).u32(gen).u32(next)
      .op(O::Br).u32(2)  // $done
      .event(yield).mark(s_yield)
      .get(total).op(O::I32Add).op(O::LocalSet).u32(total)
      .op(O::Br).u32(1)  // $l
      .end()
      .end()
      .end()
      .get(total)
      .end();
  const uint32_t sum_index = b.func({i32, i32}, {i32}, sum, {{1, ref_null(gen)}, {1, i32}});
  b.m.exports.push_back({"sum", ExternKind::Func, sum_index});

  auto r = validate_module(b.m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  using Points = std::vector<std::pair<uint32_t, std::vector<EventClause>>>;
  auto points = [&](size_t f) {
    Points out;
    for (const SuspensionPoint& p : r->functions[f].suspension_points()) out.emplace_back(p.body_offset, p.scope);
    return out;
  };
  EXPECT_EQ(points(0), (Points{{g_identify, {{next, g_next1, 0}}}, {g_yield, {{next, g_next2, 0}}}}));
  EXPECT_EQ(points(1), (Points{{s_spawn, {{identify, s_identify, 0}}}, {s_resume, {{yield, s_yield, 0}}}}));
  EXPECT_TRUE(r->functions[0].entry_clauses().empty());
  EXPECT_TRUE(r->functions[1].entry_clauses().empty());
  EXPECT_EQ(r->functions[0].num_locals, 4u);
  EXPECT_EQ(r->functions[1].num_locals, 4u);

  // The proposal's uncorrected form does not validate: a non-nullable local
  // (version 1), read before it is set (typed function references).
  Module uncorrected = b.m;
  uncorrected.functions[1].locals[0].type = ref(gen);
  EXPECT_TRUE(invalid(uncorrected, "non-defaultable type", version1()));
  EXPECT_TRUE(invalid(uncorrected, "uninitialized local"));
  // Nor does the generator without its self parameter.
  Module no_self = b.m;
  no_self.types[no_self.functions[0].type_index].params[0] = i32;
  EXPECT_TRUE(invalid(no_self, "type mismatch"));
}

}  // namespace
}  // namespace weft::validator
