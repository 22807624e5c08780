// The fiber extension's binary format (docs/fibers.md §4): fiber types (0x5C),
// fiberref (0x5B) and `0x63/0x64 heaptype` value types everywhere value types
// occur, the tag section and kind 0x04, 0xFA-prefixed instructions; their
// rejection with DecodeOptions::enable_fibers off; writer encodings and round
// trips.
#include <gtest/gtest.h>

#include "tests/binary/test_util.h"

namespace weft::binary::test {
namespace {

const ValType kFiberRef{ValType::FiberRef, true, 0};
ValType typed(uint32_t index, bool nullable = true) { return ValType{ValType::TypedRef, nullable, index}; }
ValType non_null(ValType t) {
  t.nullable = false;
  return t;
}

DecodeOptions no_fibers() {
  DecodeOptions o;
  o.enable_fibers = false;
  return o;
}

FuncType fiber_type(std::vector<ValType> results) { return FuncType{{}, std::move(results), true}; }

// A module whose only function has type 0 = `[] -> []` plus `extra_types`,
// and body `instrs`.
Bytes fiber_func_module(const Bytes& instrs, const Bytes& extra_types = {}, uint8_t extra_count = 0,
                        std::initializer_list<Bytes> extra = {}) {
  Bytes types = cat({{uint8_t(1 + extra_count), 0x60, 0x00, 0x00}, extra_types});
  Bytes out = cat({header(), section(1, types), section(3, {0x01, 0x00})});
  for (const Bytes& s : extra) append(out, s);
  return cat({out, section(10, cat({{0x01}, body(instrs)}))});
}

// ---------------------------------------------------------------------------
// Types

TEST(FiberBinary, FiberTypes) {
  // fiber (result i32), fiber (), fiber (result (ref null 0) fiberref)
  const Bytes bytes = module_bytes({section(1, {0x03, 0x5C, 0x01, 0x7F, 0x5C, 0x00, 0x5C, 0x02, 0x63, 0x00, 0x5B})});
  Module m = Decoded(bytes);
  ASSERT_EQ(m.types.size(), 3u);
  EXPECT_EQ(m.types[0], fiber_type({ValType::i32()}));
  EXPECT_EQ(m.types[1], fiber_type({}));
  EXPECT_EQ(m.types[2], fiber_type({typed(0), kFiberRef}));
  EXPECT_NE(m.types[1], (FuncType{{}, {}}));  // a fiber type is not the function type [] -> []
  EXPECT_TRUE(RoundTrips(m));
  EXPECT_EQ(write_module(m), bytes);
  EXPECT_TRUE(Malformed(bytes, "malformed function type", no_fibers()));
  // A fiber type has no params: 0x5C 0x01 0x7F 0x00 leaves a stray byte.
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x5C, 0x01, 0x7F, 0x00})}), "section size mismatch"));
}

TEST(FiberBinary, ValueTypesInSignatures) {
  // [fiberref (ref null 1) (ref 1) (ref fiber) (ref null fiber) (ref func) (ref null extern)] -> [(ref 300)]
  const Bytes bytes = module_bytes({section(
      1, {0x02, 0x60, 0x07, 0x5B, 0x63, 0x01, 0x64, 0x01, 0x64, 0x5B, 0x63, 0x5B, 0x64, 0x70, 0x63, 0x6F, 0x01, 0x64,
          0xAC, 0x02, 0x5C, 0x00})});
  Module m = Decoded(bytes);
  ASSERT_EQ(m.types.size(), 2u);
  EXPECT_EQ(m.types[0].params, (std::vector<ValType>{kFiberRef, typed(1), typed(1, false), non_null(kFiberRef),
                                                     kFiberRef, non_null(ValType::funcref()), ValType::externref()}));
  EXPECT_EQ(m.types[0].results, std::vector<ValType>{typed(300, false)});
  EXPECT_TRUE(RoundTrips(m));
  // The writer uses the one-byte forms of nullable abstract references.
  EXPECT_EQ(write_module(m), module_bytes({section(1, {0x02, 0x60, 0x07, 0x5B, 0x63, 0x01, 0x64, 0x01, 0x64, 0x5B,
                                                          0x5B, 0x64, 0x70, 0x6F, 0x01, 0x64, 0xAC, 0x02, 0x5C,
                                                          0x00})}));
  // Largest type index (s33 2^32-1) and a padded one.
  Module big = Decoded(module_bytes({section(1, {0x01, 0x60, 0x02, 0x63, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x63, 0x80,
                                                 0x00, 0x00})}));
  EXPECT_EQ(big.types[0].params, (std::vector<ValType>{typed(0xFFFFFFFFu), typed(0)}));
  EXPECT_TRUE(RoundTrips(big));
}

TEST(FiberBinary, MalformedValueTypes) {
  auto param = [](Bytes t) { return module_bytes({section(1, cat({{0x01, 0x60, 0x01}, t, {0x00}}))}); };
  // Unknown abstract heap types (negative s33 other than func/extern/fiber).
  EXPECT_TRUE(Malformed(param({0x63, 0x7F}), "malformed heap type"));
  EXPECT_TRUE(Malformed(param({0x64, 0x40}), "malformed heap type"));
  EXPECT_TRUE(Malformed(param({0x64, 0x7B}), "malformed heap type"));  // v128 is no heap type
  // s33 beyond 2^32-1, and a truncated heap type.
  EXPECT_TRUE(Malformed(param({0x63, 0x80, 0x80, 0x80, 0x80, 0x20}), "integer too large"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x60, 0x01, 0x63})}), "unexpected end"));
  // Without the extension these are Wasm 2.0's malformed value types.
  for (const Bytes& t : {Bytes{0x5B}, Bytes{0x63, 0x00}, Bytes{0x64, 0x70}}) {
    EXPECT_TRUE(decode_module(param(t)).ok());
    EXPECT_TRUE(Malformed(param(t), "malformed value type", no_fibers()));
  }
  EXPECT_TRUE(Malformed(param({0x62}), "malformed value type"));
}

TEST(FiberBinary, LocalsGlobalsTablesElems) {
  // Locals: fiberref, (ref null 1).
  const Bytes locals = {0x02, 0x01, 0x5B, 0x02, 0x63, 0x01};
  Bytes code = section(10, cat({{0x01}, body({0x0B}, locals)}));
  // Tables: fiberref and (ref null 1); global (mut (ref null 1)) = ref.null 1;
  // global fiberref = ref.null fiber; elem passive (ref null 1) with ref.null 1.
  const Bytes tables = section(4, {0x02, 0x5B, 0x00, 0x01, 0x63, 0x01, 0x01, 0x02, 0x05});
  const Bytes globals = section(6, {0x02, 0x63, 0x01, 0x01, 0xD0, 0x01, 0x0B, 0x5B, 0x00, 0xD0, 0x5B, 0x0B});
  const Bytes elems = section(9, {0x01, 0x05, 0x63, 0x01, 0x01, 0xD0, 0x01, 0x0B});
  const Bytes bytes = cat({header(), section(1, {0x02, 0x60, 0x00, 0x00, 0x5C, 0x00}), section(3, {0x01, 0x00}),
                           tables, globals, elems, code});
  Module m = Decoded(bytes);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].locals, (std::vector<LocalGroup>{{1, kFiberRef}, {2, typed(1)}}));
  ASSERT_EQ(m.tables.size(), 2u);
  EXPECT_EQ(m.tables[0].type.element, kFiberRef);
  EXPECT_EQ(m.tables[1].type.element, typed(1));
  EXPECT_EQ(m.tables[1].type.limits.max, 5u);
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[0].type, (GlobalType{typed(1), true}));
  EXPECT_EQ(m.globals[0].init.code, (Bytes{0xD0, 0x01, 0x0B}));
  EXPECT_EQ(m.globals[1].type, (GlobalType{kFiberRef, false}));
  ASSERT_EQ(m.elems.size(), 1u);
  EXPECT_EQ(m.elems[0].type, typed(1));
  EXPECT_TRUE(RoundTrips(m));
  EXPECT_EQ(write_module(m), bytes);

  // Tables need a reference type; the extension's are reference types.
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x7F, 0x00, 0x00})}), "malformed reference type"));
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x5B, 0x00, 0x00})}), "malformed reference type",
                        no_fibers()));
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x63, 0x7F, 0x00, 0x00})}), "malformed heap type"));
  // Non-null table element types decode (defaultability is the validator's).
  EXPECT_EQ(Decoded(module_bytes({section(4, {0x01, 0x64, 0x00, 0x00, 0x00})})).tables[0].type.element,
            typed(0, false));
}

// ---------------------------------------------------------------------------
// Tags and imports/exports of kind 0x04

TEST(FiberBinary, TagsImportsExports) {
  const Bytes types = section(1, {0x01, 0x60, 0x01, 0x7F, 0x00});
  const Bytes imports = section(2, cat({{0x01}, str("m"), str("t"), {0x04, 0x00, 0x00}}));
  const Bytes tags = section(13, {0x02, 0x00, 0x00, 0x00, 0x00});
  const Bytes exports = section(7, cat({{0x01}, str("e"), {0x04, 0x02}}));
  const Bytes bytes = module_bytes({types, imports, tags, exports});
  Module m = Decoded(bytes);
  ASSERT_EQ(m.imports.size(), 1u);
  EXPECT_EQ(m.imports[0].kind, ExternKind::Tag);
  EXPECT_EQ(m.tags.size(), 2u);
  EXPECT_EQ(m.total_tags(), 3u);
  EXPECT_EQ(m.exports.at(0), (Export{"e", ExternKind::Tag, 2}));
  EXPECT_TRUE(RoundTrips(m));
  EXPECT_EQ(write_module(m), bytes);
  // Tags are exception handling's too: malformed only with both features off.
  DecodeOptions no_tags = no_fibers();
  no_tags.enable_exceptions = false;
  EXPECT_TRUE(Malformed(module_bytes({types, imports}), "malformed import kind", no_tags));
  EXPECT_TRUE(Malformed(module_bytes({types, tags}), "malformed section id", no_tags));
  EXPECT_TRUE(Malformed(module_bytes({types, exports}), "malformed export kind", no_tags));
  EXPECT_EQ(Decoded(module_bytes({types, imports, tags, exports}), no_fibers()).tags.size(), 2u);
}

// ---------------------------------------------------------------------------
// Code

TEST(FiberBinary, EveryFiberInstruction) {
  // Types: 0 [] -> [], 1 fiber []. Tag 0 of type 0.
  const Bytes tags = section(13, {0x01, 0x00, 0x00});
  const Bytes code = {
      0xFA, 0x00, 0x40,        // handle
      0xFA, 0x02, 0x00,        //   fiber.new 0
      0xFA, 0x03, 0x00,        //   fiber.spawn 0
      0xFA, 0x04, 0x01, 0x00,  //   fiber.resume 1 0
      0xFA, 0x05, 0x00,        //   fiber.suspend 0
      0xFA, 0x06, 0x01, 0x00,  //   fiber.suspend_to 1 0
      0xFA, 0x07, 0x01, 0x00,  //   fiber.switch 1 0
      0xFA, 0x08, 0x00,        //   fiber.retire 0
      0xFA, 0x09, 0x01, 0x00,  //   fiber.retireto 1 0
      0xFA, 0x0A,              //   fiber.release
      0xFA, 0x01, 0x00,        // event 0
      0x0B,                    // end
      0xFA, 0x01, 0x00,        // event 0 (function level)
      0x0B};
  const Bytes bytes = fiber_func_module(code, {0x5C, 0x00}, 1, {tags});
  Module m = Decoded(bytes);
  EXPECT_EQ(m.functions.at(0).body, code);
  EXPECT_TRUE(RoundTrips(m));
  EXPECT_EQ(write_module(m), bytes);
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x0A, 0x0B}), "illegal opcode", no_fibers()));
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x0B, 0x0B}), "illegal opcode"));  // no sub-opcode 0x0B
  // Padded sub-opcode, and truncated immediates.
  EXPECT_TRUE(decode_module(fiber_func_module({0xFA, 0x8A, 0x00, 0x0B})).ok());
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x04, 0x00}), "unexpected end"));
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x00}), "unexpected end"));
  // `handle` opens a block that needs its own end.
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x00, 0x40, 0x0B}), "unexpected end"));
  // `else` is not a handle clause.
  EXPECT_TRUE(Malformed(fiber_func_module({0xFA, 0x00, 0x40, 0x05, 0x0B, 0x0B}), "END opcode expected"));
  // Clause placement is structure, checked by the validator: the decoder
  // accepts an `event` anywhere.
  EXPECT_TRUE(decode_module(fiber_func_module({0x02, 0x40, 0xFA, 0x01, 0x00, 0x0B, 0x0B})).ok());
}

TEST(FiberBinary, TypesInCode) {
  // Block types: fiberref and (ref null 1) inline, and a type index.
  const Bytes code = {0x02, 0x5B, 0xD0, 0x5B, 0x0B, 0x1A,        // block (result fiberref) ref.null fiber end drop
                      0x02, 0x63, 0x01, 0xD0, 0x01, 0x0B, 0x1A,  // block (result (ref null 1)) ref.null 1 end drop
                      0xFA, 0x00, 0x64, 0x5B, 0x00, 0x0B, 0x1A,  // handle (result (ref fiber)) unreachable end drop
                      0xD0, 0x5B, 0xD0, 0x5B, 0x41, 0x00,        // select (result fiberref)
                      0x1C, 0x01, 0x5B, 0x1A,                    //
                      0xD0, 0x01, 0xD0, 0x01, 0x41, 0x00,        // select (result (ref null 1))
                      0x1C, 0x01, 0x63, 0x01, 0x1A,              //
                      0xD0, 0x01, 0xD1, 0x1A,                    // ref.null 1 ref.is_null drop
                      0x0B};
  Module m = Decoded(fiber_func_module(code, {0x5C, 0x00}, 1));
  EXPECT_EQ(m.functions.at(0).body, code);
  EXPECT_TRUE(RoundTrips(m));
  // Constant expressions too.
  const Bytes global = section(6, {0x01, 0x63, 0x01, 0x00, 0xD0, 0x01, 0x0B});
  EXPECT_TRUE(decode_module(fiber_func_module({0x0B}, {0x5C, 0x00}, 1, {global})).ok());
  // Malformed heap types of ref.null keep Wasm 2.0's message.
  EXPECT_TRUE(Malformed(fiber_func_module({0xD0, 0x7F, 0x1A, 0x0B}), "malformed reference type"));
  EXPECT_TRUE(Malformed(fiber_func_module({0x02, 0x63, 0x7F, 0x0B, 0x0B}), "malformed heap type"));
  EXPECT_TRUE(Malformed(fiber_func_module({0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x1C, 0x01, 0x64, 0x7F, 0x1A, 0x0B}),
                        "malformed heap type"));
  // Without the extension, all of them are malformed as in Wasm 2.0.
  EXPECT_TRUE(Malformed(fiber_func_module({0xD0, 0x5B, 0x1A, 0x0B}), "malformed reference type", no_fibers()));
  EXPECT_TRUE(Malformed(fiber_func_module({0xD0, 0x00, 0x1A, 0x0B}), "malformed reference type", no_fibers()));
  EXPECT_TRUE(Malformed(fiber_func_module({0x02, 0x5B, 0x00, 0x0B, 0x0B}), "malformed value type", no_fibers()));
  EXPECT_TRUE(Malformed(fiber_func_module({0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x1C, 0x01, 0x5B, 0x1A, 0x0B}),
                        "malformed value type", no_fibers()));
}

// ---------------------------------------------------------------------------
// Writer

TEST(FiberBinary, WriterRoundTripsAModuleBuiltByHand) {
  Module m;
  m.types = {FuncType{{typed(1, false), ValType::i32()}, {}}, fiber_type({ValType::i32()}),
             FuncType{{kFiberRef}, {non_null(kFiberRef)}}};
  Import tag_import;
  tag_import.module = "m";
  tag_import.name = "t";
  tag_import.kind = ExternKind::Tag;
  tag_import.type_index = 0;
  Import global_import;
  global_import.module = "m";
  global_import.name = "g";
  global_import.kind = ExternKind::Global;
  global_import.global = GlobalType{typed(1), false};
  Import table_import;
  table_import.module = "m";
  table_import.name = "tab";
  table_import.kind = ExternKind::Table;
  table_import.table = TableType{kFiberRef, Limits{1, 2}};
  m.imports = {tag_import, global_import, table_import};
  m.tags = {Tag{0}};
  m.tables = {Table{TableType{typed(1), Limits{0, std::nullopt}}}};
  Function f;
  f.type_index = 2;
  f.locals = {LocalGroup{1, typed(1)}, LocalGroup{2, kFiberRef}};
  f.body = {0x20, 0x00, 0x0B};
  m.functions = {f};
  m.exports = {Export{"tag", ExternKind::Tag, 1}};
  EXPECT_TRUE(RoundTrips(m));
}

}  // namespace
}  // namespace weft::binary::test
