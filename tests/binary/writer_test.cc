// Writer unit tests: exact encodings (element flags, DataCount, custom and name
// placement) and decode(write(m)) == m round trips.
#include <gtest/gtest.h>

#include "binary/names.h"
#include "tests/binary/test_util.h"

namespace weft::binary::test {
namespace {

ConstExpr expr(Bytes code) { return ConstExpr{std::move(code)}; }
ConstExpr ref_func(uint32_t i) { return expr(cat({{0xD2}, leb(i), {0x0B}})); }
const ConstExpr kOffset = expr({0x41, 0x00, 0x0B});

// The bytes write_module gives for a module holding just `seg`.
Bytes written_elem(const ElemSegment& seg) {
  Module m;
  m.elems = {seg};
  Bytes out = write_module(m);
  const Bytes h = header();
  EXPECT_TRUE(std::equal(h.begin(), h.end(), out.begin()));
  EXPECT_EQ(out.at(8), 9);  // element section id
  return Bytes(out.begin() + 10, out.end());  // skip id and (one-byte) size
}

ElemSegment seg(SegmentMode mode, ValType type, uint32_t table, std::vector<ConstExpr> items, bool exprs = false) {
  ElemSegment s;
  s.mode = mode;
  s.type = type;
  s.table = table;
  if (mode == SegmentMode::Active) s.offset = kOffset;
  s.items = std::move(items);
  s.uses_expressions = exprs;
  return s;
}

TEST(Writer, EmptyModuleIsJustTheHeader) { EXPECT_EQ(write_module(Module{}), header()); }

TEST(Writer, ElementSegmentEncodings) {
  const ValType funcref = ValType::funcref(), externref = ValType::externref();
  // Function indices wherever every item is a plain ref.func of a funcref segment.
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, funcref, 0, {ref_func(1), ref_func(300)})),
            (Bytes{0x01, 0x00, 0x41, 0x00, 0x0B, 0x02, 0x01, 0xAC, 0x02}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, funcref, 3, {ref_func(1)})),
            (Bytes{0x01, 0x02, 0x03, 0x41, 0x00, 0x0B, 0x00, 0x01, 0x01}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Passive, funcref, 0, {ref_func(1)})), (Bytes{0x01, 0x01, 0x00, 0x01, 0x01}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Declarative, funcref, 0, {ref_func(1)})), (Bytes{0x01, 0x03, 0x00, 0x01, 0x01}));
  // Expressions otherwise.
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, funcref, 0, {ref_func(1)}, /*exprs=*/true)),
            (Bytes{0x01, 0x04, 0x41, 0x00, 0x0B, 0x01, 0xD2, 0x01, 0x0B}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, funcref, 0, {expr({0xD0, 0x70, 0x0B})})),
            (Bytes{0x01, 0x04, 0x41, 0x00, 0x0B, 0x01, 0xD0, 0x70, 0x0B}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, externref, 0, {expr({0xD0, 0x6F, 0x0B})})),
            (Bytes{0x01, 0x06, 0x00, 0x41, 0x00, 0x0B, 0x6F, 0x01, 0xD0, 0x6F, 0x0B}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Active, funcref, 2, {ref_func(0)}, true)),
            (Bytes{0x01, 0x06, 0x02, 0x41, 0x00, 0x0B, 0x70, 0x01, 0xD2, 0x00, 0x0B}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Passive, externref, 0, {})), (Bytes{0x01, 0x05, 0x6F, 0x00}));
  EXPECT_EQ(written_elem(seg(SegmentMode::Declarative, funcref, 0, {ref_func(0)}, true)),
            (Bytes{0x01, 0x07, 0x70, 0x01, 0xD2, 0x00, 0x0B}));
  // A padded ref.func index only survives as an expression.
  EXPECT_EQ(written_elem(seg(SegmentMode::Passive, funcref, 0, {expr({0xD2, 0x80, 0x00, 0x0B})})),
            (Bytes{0x01, 0x05, 0x70, 0x01, 0xD2, 0x80, 0x00, 0x0B}));
  // Two instructions are not a plain ref.func.
  EXPECT_EQ(written_elem(seg(SegmentMode::Passive, funcref, 0, {expr({0xD2, 0x00, 0x1A, 0x0B})})),
            (Bytes{0x01, 0x05, 0x70, 0x01, 0xD2, 0x00, 0x1A, 0x0B}));
}

TEST(Writer, DataCountIffSet) {
  Module m;
  DataSegment d;
  d.mode = SegmentMode::Passive;
  d.bytes = {1, 2};
  m.datas = {d, d};
  EXPECT_EQ(write_module(m), cat({header(), section(11, {0x02, 0x01, 0x02, 0x01, 0x02, 0x01, 0x02, 0x01, 0x02})}));
  m.data_count = 2;
  EXPECT_EQ(write_module(m), cat({header(), section(12, {0x02}),
                                  section(11, {0x02, 0x01, 0x02, 0x01, 0x02, 0x01, 0x02, 0x01, 0x02})}));
  EXPECT_TRUE(RoundTrips(m));
}

TEST(Writer, CustomSectionsGoWhereTheyWere) {
  Module m;
  m.customs = {{"a", {1}, 0}, {"b", {2}, 1}, {"c", {3}, 11}, {"d", {4}, 0}};
  // The anchoring type and data sections are written even though they are empty.
  EXPECT_EQ(write_module(m), cat({header(), section(0, {0x01, 'a', 1}), section(0, {0x01, 'd', 4}), section(1, {0x00}),
                                  section(0, {0x01, 'b', 2}), section(11, {0x00}), section(0, {0x01, 'c', 3})}));
  // Decoding lists customs in file order, which is the writer's order.
  m.customs = {{"a", {1}, 0}, {"d", {4}, 0}, {"b", {2}, 1}, {"c", {3}, 11}};
  EXPECT_TRUE(RoundTrips(m));
}

TEST(Writer, NameSectionFromNames) {
  Module m;
  m.names.module_name = "mod";
  m.names.function_names = {{0, "f"}, {3, "h"}};
  const Bytes out = write_module(m);
  const Bytes payload = cat({str("name"), section(0, str("mod")), section(1, cat({{0x02, 0x00}, str("f"), {0x03}, str("h")}))});
  EXPECT_EQ(out, cat({header(), section(0, payload)}));
  Module back = Decoded(out);
  EXPECT_EQ(back.names.module_name, m.names.module_name);
  EXPECT_EQ(back.names.function_names, m.names.function_names);

  // A verbatim "name" custom section wins over Module::names.
  m.customs = {{"name", {0x00, 0x02, 0x01, 'x'}, 0}};
  EXPECT_EQ(write_module(m), cat({header(), section(0, cat({str("name"), {0x00, 0x02, 0x01, 'x'}}))}));
}

// A module using every part of the IR.
Module full_module() {
  Module m;
  m.types = {FuncType{{ValType::i32(), ValType::i64()}, {ValType::f32()}}, FuncType{{}, {}},
             FuncType{{ValType::v128(), ValType::funcref(), ValType::externref()}, {ValType::f64(), ValType::i32()}}};
  Import fi;
  fi.module = "env";
  fi.name = "f";
  fi.type_index = 1;
  Import ti;
  ti.module = "env";
  ti.name = "t";
  ti.kind = ExternKind::Table;
  ti.table = TableType{ValType::externref(), Limits{1, 10}};
  Import mi;
  mi.module = "env";
  mi.name = "m";
  mi.kind = ExternKind::Memory;
  mi.memory.limits = Limits{1, std::nullopt};
  Import gi;
  gi.module = "env";
  gi.name = "g";
  gi.kind = ExternKind::Global;
  gi.global = GlobalType{ValType::f64(), true};
  Import tag;
  tag.module = "env";
  tag.name = "e";
  tag.kind = ExternKind::Tag;
  tag.type_index = 1;
  m.imports = {fi, ti, mi, gi, tag};

  Function f0;
  f0.type_index = 0;
  f0.locals = {{2, ValType::i32()}, {0, ValType::f64()}, {1, ValType::v128()}};
  f0.body = {0x20, 0x00, 0x1A, 0x43, 0x00, 0x00, 0x80, 0x3F, 0x0B};
  Function f1;
  f1.type_index = 1;
  f1.body = {0x0B};
  m.functions = {f0, f1};
  m.tables = {Table{TableType{ValType::funcref(), Limits{2, std::nullopt}}}};
  m.memories = {Memory{MemoryType{Limits{1, 70000}}}};  // over 4 GiB: still encodable
  m.tags = {Tag{1}};
  m.globals = {Global{GlobalType{ValType::i32(), false}, expr({0x41, 0x2A, 0x0B})},
               Global{GlobalType{ValType::funcref(), true}, expr({0xD2, 0x01, 0x0B})}};
  m.exports = {Export{"f", ExternKind::Func, 1}, Export{"mem", ExternKind::Memory, 0}, Export{"e", ExternKind::Tag, 0}};
  m.start = 2;
  m.elems = {seg(SegmentMode::Active, ValType::funcref(), 0, {ref_func(1), ref_func(2)}),
             seg(SegmentMode::Active, ValType::funcref(), 1, {ref_func(1)}),
             seg(SegmentMode::Passive, ValType::externref(), 0, {expr({0xD0, 0x6F, 0x0B})}),
             seg(SegmentMode::Declarative, ValType::funcref(), 0, {ref_func(2)}, true)};
  DataSegment d0;
  d0.offset = kOffset;
  d0.bytes = {'h', 'i'};
  DataSegment d1;
  d1.mode = SegmentMode::Passive;
  d1.bytes = {0};
  DataSegment d2;
  d2.memory = 1;
  d2.offset = kOffset;
  m.datas = {d0, d1, d2};
  m.data_count = 3;
  m.customs = {{"first", {1, 2}, 0}, {"after-tags", {3}, 13}, {"after-code", {}, 10}};  // in file order
  return m;
}

TEST(Writer, FullModuleRoundTrips) {
  const Module m = full_module();
  EXPECT_TRUE(RoundTrips(m));
  Module back = Decoded(write_module(m));
  ASSERT_EQ(back.elems.size(), 4u);
  EXPECT_FALSE(back.elems[0].uses_expressions);
  EXPECT_TRUE(back.elems[2].uses_expressions);
  EXPECT_TRUE(back.elems[3].uses_expressions);
  // Bodies are located in the output.
  const Bytes out = write_module(m);
  for (const Function& f : back.functions) {
    ASSERT_LE(f.body_offset + f.body.size(), out.size());
    EXPECT_TRUE(std::equal(f.body.begin(), f.body.end(), out.begin() + long(f.body_offset)));
  }
}

TEST(Writer, RoundTripsWithNames) {
  Module m = full_module();
  m.names.module_name = "full";
  m.names.function_names = {{5, "five"}, {6, "six"}};
  Module back = Decoded(write_module(m));
  EXPECT_EQ(back.names.module_name, "full");
  EXPECT_EQ(back.names.function_names, m.names.function_names);
  EXPECT_EQ(back.customs.back().name, "name");
  EXPECT_TRUE(RoundTrips(back));
}

}  // namespace
}  // namespace weft::binary::test
