// Module fields and their abbreviations: imports/exports, inline elem/data,
// type uses and implicit types, segments, identifiers and error locations.
#include <gtest/gtest.h>

#include "test_util.h"

namespace weft::text {
namespace {

using namespace testing;

FuncType sig(std::vector<ValType> p, std::vector<ValType> r) { return FuncType{std::move(p), std::move(r)}; }
const ValType i32 = ValType::i32(), i64 = ValType::i64(), f32 = ValType::f32();

TEST(Module, EmptyForms) {
  EXPECT_EQ(parse_ok("").functions.size(), 0u);
  EXPECT_EQ(parse_ok("(module)").functions.size(), 0u);
  EXPECT_EQ(parse_ok("(module $m)").names.module_name, "m");
  EXPECT_EQ(parse_ok("(func) (func)").functions.size(), 2u);  // a bare module body
  parse_error("(module) (func)");
  parse_error("(module (func)) x");
  parse_error("(module binary \"\")");
  parse_error("(modul)");
  parse_error("(module (fun))");
}

TEST(Module, InlineExportsInFieldOrder) {
  Module m = parse_ok(R"((module
    (func $a (export "a") (export "a2"))
    (export "b" (func $a))
    (memory (export "mem") 1)
    (global (export "g") i32 (i32.const 0))
    (table (export "t") 0 funcref)))");
  ASSERT_EQ(m.exports.size(), 6u);
  EXPECT_EQ(m.exports[0], (Export{"a", ExternKind::Func, 0}));
  EXPECT_EQ(m.exports[1], (Export{"a2", ExternKind::Func, 0}));
  EXPECT_EQ(m.exports[2], (Export{"b", ExternKind::Func, 0}));
  EXPECT_EQ(m.exports[3], (Export{"mem", ExternKind::Memory, 0}));
  EXPECT_EQ(m.exports[4], (Export{"g", ExternKind::Global, 0}));
  EXPECT_EQ(m.exports[5], (Export{"t", ExternKind::Table, 0}));
}

TEST(Module, InlineImportsComeFirstInIndexSpace) {
  Module m = parse_ok(R"((module
    (import "m" "f" (func $f (param i32)))
    (func $g (import "m" "g") (result i32))
    (global $gl (import "m" "gl") (mut i64))
    (memory (import "m" "mem") 1 2)
    (table $t (import "m" "t") 3 externref)
    (func $h (call $g) (call $f (i32.const 0)) (drop))))");
  ASSERT_EQ(m.imports.size(), 5u);
  EXPECT_EQ(m.imports[0].name, "f");
  EXPECT_EQ(m.imports[0].kind, ExternKind::Func);
  EXPECT_EQ(m.types[m.imports[0].type_index], sig({i32}, {}));
  EXPECT_EQ(m.types[m.imports[1].type_index], sig({}, {i32}));
  EXPECT_EQ(m.imports[2].global, (GlobalType{i64, true}));
  EXPECT_EQ(m.imports[3].memory.limits, (Limits{1, 2}));
  EXPECT_EQ(m.imports[4].table, (TableType{ValType::externref(), Limits{3, std::nullopt}}));
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].body, (Bytes{0x10, 0x01, 0x41, 0x00, 0x10, 0x00, 0x1A, 0x0B}));
  ASSERT_EQ(m.names.function_names.size(), 3u);
  EXPECT_EQ(m.names.function_names[2], (std::pair<uint32_t, std::string>{2, "h"}));
}

TEST(Module, ImportAfterDefinitionIsMalformed) {
  EXPECT_NE(parse_error("(func) (import \"\" \"\" (func))").message.find("import after function"), std::string::npos);
  EXPECT_NE(parse_error("(global i32 (i32.const 0)) (import \"\" \"\" (memory 1))").message.find("import after global"),
            std::string::npos);
  EXPECT_NE(parse_error("(memory 0) (func (import \"\" \"\"))").message.find("import after memory"), std::string::npos);
  EXPECT_NE(parse_error("(table 0 funcref) (global (import \"\" \"\") i32)").message.find("import after table"),
            std::string::npos);
  parse_ok("(type (func)) (import \"\" \"\" (func)) (export \"e\" (func 0)) (import \"\" \"x\" (func))");
}

TEST(Module, TableWithInlineElem) {
  Module m = parse_ok("(module (func $f) (func $g) (table $t funcref (elem $f $g $f)))");
  ASSERT_EQ(m.tables.size(), 1u);
  EXPECT_EQ(m.tables[0].type, (TableType{ValType::funcref(), Limits{3, 3}}));
  ASSERT_EQ(m.elems.size(), 1u);
  const ElemSegment& e = m.elems[0];
  EXPECT_EQ(e.mode, SegmentMode::Active);
  EXPECT_EQ(e.offset.code, (Bytes{0x41, 0x00, 0x0B}));
  ASSERT_EQ(e.items.size(), 3u);
  EXPECT_EQ(e.items[1].code, (Bytes{0xD2, 0x01, 0x0B}));
  EXPECT_FALSE(e.uses_expressions);

  Module x = parse_ok("(module (func $f) (table externref (elem (ref.null extern) (item ref.null extern))))");
  EXPECT_EQ(x.tables[0].type, (TableType{ValType::externref(), Limits{2, 2}}));
  EXPECT_TRUE(x.elems[0].uses_expressions);
  EXPECT_EQ(x.elems[0].type, ValType::externref());
  EXPECT_EQ(x.elems[0].items[0].code, (Bytes{0xD0, 0x6F, 0x0B}));
}

TEST(Module, MemoryWithInlineData) {
  Module m = parse_ok("(module (memory $m (export \"m\") (data \"ab\" \"\\63\")))");
  EXPECT_EQ(m.memories[0].type.limits, (Limits{1, 1}));
  ASSERT_EQ(m.datas.size(), 1u);
  EXPECT_EQ(m.datas[0].bytes, (Bytes{'a', 'b', 'c'}));
  EXPECT_EQ(m.datas[0].offset.code, (Bytes{0x41, 0x00, 0x0B}));
  EXPECT_EQ(parse_ok("(memory (data))").memories[0].type.limits, (Limits{0, 0}));
  std::string big = "(memory (data \"" + std::string(65537, 'x') + "\"))";
  EXPECT_EQ(parse_ok(big).memories[0].type.limits, (Limits{2, 2}));
}

TEST(Module, TypeUsesAndImplicitTypes) {
  Module m = parse_ok(R"((module
    (func $f (result f32) (f32.const 0))       ;; implicit type 2 (after the explicit ones)
    (type $t (func (param i32)))
    (func $g (param i32))                      ;; reuses $t
    (func $h (type $t) (param $x i32) (local.get $x) (drop))
    (func (result f32) (f32.const 1))          ;; reuses the implicit type
    (type (func (param i64)))
    (func (param i32 i32))))");                 // implicit type 3
  ASSERT_EQ(m.types.size(), 4u);
  EXPECT_EQ(m.types[0], sig({i32}, {}));
  EXPECT_EQ(m.types[1], sig({i64}, {}));
  EXPECT_EQ(m.types[2], sig({}, {f32}));
  EXPECT_EQ(m.types[3], sig({i32, i32}, {}));
  std::vector<uint32_t> indices;
  for (const Function& f : m.functions) indices.push_back(f.type_index);
  EXPECT_EQ(indices, (std::vector<uint32_t>{2, 0, 0, 2, 3}));
}

TEST(Module, TypeUseMismatchIsMalformed) {
  parse_error("(type $t (func (param i32))) (func (type $t) (param i64))");
  parse_error("(type $t (func (param i32))) (func (type $t) (result i32))");
  parse_error("(func (type 0) (param i32))");  // inline signature needs an existing type
  parse_error("(func (type $nope))");
  parse_ok("(func (type 7))");  // a bare index is the validator's business
  parse_error("(func (result i32) (param i32))");
  parse_error("(func (param $x i32 i64))");
  parse_error("(func (local i32) (param i32))");
}

TEST(Module, LocalsAndNames) {
  Module m = parse_ok(R"((func (param $a i32) (param f32 f32) (local $b i64) (local i32 i32) (local i64)
      (local.get $a) (local.get $b) (local.set 4) (drop)))");
  const Function& f = m.functions[0];
  ASSERT_EQ(f.locals.size(), 3u);
  EXPECT_EQ(f.locals[0], (LocalGroup{1, i64}));
  EXPECT_EQ(f.locals[1], (LocalGroup{2, i32}));
  EXPECT_EQ(f.locals[2], (LocalGroup{1, i64}));
  EXPECT_EQ(f.body, (Bytes{0x20, 0x00, 0x20, 0x03, 0x21, 0x04, 0x1A, 0x0B}));
  parse_error("(func (param $a i32) (local $a i32))");
  parse_error("(func (param $a i32) (param $a i32))");
  parse_error("(func (local $a i32) (local $a i64))");
  parse_error("(func (local.get $nope))");
  parse_ok("(func (local.get 99) (drop))");
}

TEST(Module, DuplicateAndUnknownIdentifiers) {
  EXPECT_NE(parse_error("(func $f) (func $f)").message.find("duplicate func"), std::string::npos);
  parse_error("(global $g i32 (i32.const 0)) (import \"\" \"\" (global $g i32))");
  parse_error("(memory $m 1) (memory $m 1)");
  parse_error("(table $t 1 funcref) (table $t 1 funcref)");
  parse_error("(type $t (func)) (type $t (func))");
  parse_error("(elem $e func) (elem $e func)");
  parse_error("(data $d \"\") (data $d \"\")");
  parse_ok("(func $x) (global $x i32 (i32.const 0)) (memory $x 1) (table $x 1 funcref) (type $x (func))");
  Error e = parse_error("(module\n  (func\n    (call $missing)))");
  EXPECT_EQ(e.kind, ErrorKind::Malformed);
  EXPECT_EQ(e.location.line, 3u);
  EXPECT_EQ(e.location.column, 11u);
  EXPECT_NE(e.message.find("unknown function $missing"), std::string::npos);
}

TEST(Module, NumericIndicesAreNotRangeChecked) {
  Module m = parse_ok("(func (call 10) (global.get 5) (drop) (table.get 3 (i32.const 0)) (drop)) (start 42)"
                      "(export \"x\" (memory 7)) (elem (table 9) (i32.const 0) func 12)");
  EXPECT_EQ(m.functions[0].body[1], 10);
  EXPECT_EQ(m.start, 42u);
  EXPECT_EQ(m.exports[0].index, 7u);
  EXPECT_EQ(m.elems[0].table, 9u);
}

TEST(Module, ForwardReferences) {
  Module m = parse_ok("(func (call $later)) (func $later) (export \"e\" (func $later)) (start $later)");
  EXPECT_EQ(m.functions[0].body, (Bytes{0x10, 0x01, 0x0B}));
  EXPECT_EQ(m.start, 1u);
}

TEST(Module, ElemSegmentForms) {
  Module m = parse_ok(R"((module
    (table $t 10 funcref) (table $u 10 funcref)
    (func $f) (func $g)
    (elem (i32.const 0) $f $g)
    (elem (table $u) (offset (i32.const 1)) func $g)
    (elem $e funcref (ref.func $f) (item ref.null func) (item (ref.func $g)))
    (elem declare func $f)
    (elem (i32.const 2) funcref (ref.func $g))
    (elem func)
    (elem (table $t) (i32.const 3) func $f $f)
    (func (elem.drop $e) (table.init $u $e (i32.const 0) (i32.const 0) (i32.const 0)))))");
  ASSERT_EQ(m.elems.size(), 7u);
  EXPECT_EQ(m.elems[0].mode, SegmentMode::Active);
  EXPECT_EQ(m.elems[0].table, 0u);
  EXPECT_EQ(m.elems[0].items.size(), 2u);
  EXPECT_FALSE(m.elems[0].uses_expressions);
  EXPECT_EQ(m.elems[1].table, 1u);
  EXPECT_EQ(m.elems[1].offset.code, (Bytes{0x41, 0x01, 0x0B}));
  EXPECT_EQ(m.elems[2].mode, SegmentMode::Passive);
  EXPECT_TRUE(m.elems[2].uses_expressions);
  EXPECT_EQ(m.elems[2].items[1].code, (Bytes{0xD0, 0x70, 0x0B}));
  EXPECT_EQ(m.elems[2].items[2].code, (Bytes{0xD2, 0x01, 0x0B}));
  EXPECT_EQ(m.elems[3].mode, SegmentMode::Declarative);
  EXPECT_TRUE(m.elems[4].uses_expressions);
  EXPECT_EQ(m.elems[5].mode, SegmentMode::Passive);
  EXPECT_EQ(m.elems[6].table, 0u);
  EXPECT_EQ(m.functions[2].body,
            (Bytes{0xFC, 0x0D, 0x02, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0C, 0x02, 0x01, 0x0B}));
}

TEST(Module, DataSegmentFormsAndDataCount) {
  Module m = parse_ok(R"((module
    (memory $m 1)
    (data (i32.const 0) "a" "b")
    (data (memory $m) (offset (i32.const 8)) "\00\ff")
    (data $p "passive")
    (data (memory 0) (i32.const 1))))");
  ASSERT_EQ(m.datas.size(), 4u);
  EXPECT_EQ(m.datas[0].bytes, (Bytes{'a', 'b'}));
  EXPECT_EQ(m.datas[1].offset.code, (Bytes{0x41, 0x08, 0x0B}));
  EXPECT_EQ(m.datas[1].bytes, (Bytes{0x00, 0xFF}));
  EXPECT_EQ(m.datas[2].mode, SegmentMode::Passive);
  EXPECT_FALSE(m.data_count.has_value());

  Module d = parse_ok("(memory 1) (data $p \"x\") (data \"y\") (func (data.drop $p))");
  EXPECT_EQ(d.data_count, 2u);
  Module i = parse_ok("(memory 1) (data \"x\") (func (memory.init 0 (i32.const 0) (i32.const 0) (i32.const 0)))");
  EXPECT_EQ(i.data_count, 1u);
  EXPECT_EQ(i.functions[0].body, (Bytes{0x41, 0, 0x41, 0, 0x41, 0, 0xFC, 0x08, 0x00, 0x00, 0x0B}));
}

TEST(Module, GlobalsTablesMemoriesStart) {
  Module m = parse_ok(R"((module
    (global $a (mut i32) (i32.const -1))
    (global $b f32 (f32.const 1.5))
    (global i64 (global.get $a))
    (table 0 10 externref)
    (table $t 1 funcref)
    (memory 1 2)
    (memory $m 0)
    (func $s)
    (start $s)))");
  EXPECT_EQ(m.globals[0].type, (GlobalType{i32, true}));
  EXPECT_EQ(m.globals[0].init.code, (Bytes{0x41, 0x7F, 0x0B}));
  EXPECT_EQ(m.globals[1].init.code, (Bytes{0x43, 0x00, 0x00, 0xC0, 0x3F, 0x0B}));
  EXPECT_EQ(m.globals[2].init.code, (Bytes{0x23, 0x00, 0x0B}));
  EXPECT_EQ(m.tables[0].type, (TableType{ValType::externref(), Limits{0, 10}}));
  EXPECT_EQ(m.memories[0].type.limits, (Limits{1, 2}));
  EXPECT_EQ(m.start, 0u);
  EXPECT_NE(parse_error("(func) (start 0) (start 0)").message.find("multiple start sections"), std::string::npos);
  parse_error("(memory 0x1_0000_0000)", {.memory64 = false});  // memory64: the validator's error
  Module m64 = parse_ok("(memory i64 2 0x1_0000_0000) (table i64 1 funcref)");
  EXPECT_TRUE(m64.memories[0].type.limits.address64);
  EXPECT_EQ(m64.memories[0].type.limits.max, uint64_t(1) << 32);
  EXPECT_TRUE(m64.tables[0].type.limits.address64);
  parse_error("(memory i64 1)", {.memory64 = false});
  parse_ok("(memory 0xFFFF_FFFF)");  // the validator rejects > 65536 pages
}

TEST(Module, NamesMustBeUtf8) {
  parse_error("(func (export \"\\80\"))");
  parse_error("(import \"\\c0\\80\" \"x\" (func))");
  parse_ok("(func (export \"\\c3\\a9\"))");
  parse_ok("(memory 1) (data (i32.const 0) \"\\80\\ff\")");  // data strings are bytes
}

}  // namespace
}  // namespace weft::text
