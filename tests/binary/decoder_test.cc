// Decoder unit tests: every malformed-binary rule with a hand-built module,
// LEB128 and section edge cases, hostile counts, and what well-formed input
// decodes to (element/data normalisation, customs, names, offsets).
#include <gtest/gtest.h>

#include "binary/code_walker.h"
#include "core/opcodes.h"
#include "tests/binary/test_util.h"

namespace weft::binary::test {
namespace {

// ---------------------------------------------------------------------------
// Header

TEST(DecodeHeader, MagicAndVersion) {
  EXPECT_TRUE(Malformed({}, "unexpected end"));
  EXPECT_TRUE(Malformed({0x00, 0x61, 0x73}, "unexpected end"));
  EXPECT_TRUE(Malformed({0x61, 0x73, 0x6D, 0x00}, "magic header not detected"));
  EXPECT_TRUE(Malformed({0xEF, 0xBB, 0xBF, 0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}, "magic header not detected"));
  EXPECT_TRUE(Malformed({0x00, 0x61, 0x73, 0x6D}, "unexpected end"));
  EXPECT_TRUE(Malformed({0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00}, "unexpected end"));
  EXPECT_TRUE(Malformed({0x00, 0x61, 0x73, 0x6D, 0x0D, 0x00, 0x00, 0x00}, "unknown binary version"));
  EXPECT_TRUE(Malformed({0x00, 0x61, 0x73, 0x6D, 0x00, 0x00, 0x00, 0x01}, "unknown binary version"));
  Module m = Decoded(header());
  EXPECT_TRUE(m.types.empty());
  EXPECT_FALSE(m.data_count.has_value());
}

// ---------------------------------------------------------------------------
// Sections: ids, sizes, order

TEST(DecodeSections, MalformedSectionId) {
  EXPECT_TRUE(Malformed(cat({header(), {0x0E, 0x01, 0x00}}), "malformed section id"));
  EXPECT_TRUE(Malformed(cat({header(), {0x7F, 0x01, 0x00}}), "malformed section id"));
  EXPECT_TRUE(Malformed(cat({header(), {0x80, 0x01, 0x00, 0x01, 0x01, 0x00}}), "malformed section id"));
  // The tag section (13) exists only with the fiber extension.
  EXPECT_TRUE(Decoded(module_bytes({section(13, {0x00})})).tags.empty());
  DecodeOptions no_fibers;
  no_fibers.enable_fibers = false;
  no_fibers.enable_exceptions = false;  // tags belong to both
  EXPECT_TRUE(Malformed(module_bytes({section(13, {0x00})}), "malformed section id", no_fibers));
}

TEST(DecodeSections, SizeChecks) {
  // Declared size beyond the input.
  EXPECT_TRUE(Malformed(cat({header(), {0x01, 0x05, 0x00}}), "length out of bounds"));
  // Concatenated modules: the second header reads as a custom section of size 0x61.
  EXPECT_TRUE(Malformed(cat({header(), header()}), "length out of bounds"));
  // One type declared, two given.
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x60, 0x00, 0x00, 0x60, 0x00, 0x00})}),
                        "section size mismatch"));
  // Content ends inside an entry.
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x60, 0x01, 0x7F})}),
                        "unexpected end of section or function"));
  // Section id without a size, custom section without a name.
  EXPECT_TRUE(Malformed(cat({header(), {0x00}}), "unexpected end"));
  EXPECT_TRUE(Malformed(cat({header(), {0x00, 0x00}}), "unexpected end"));
  // A truncated LEB at the end of a section.
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x80})}), "unexpected end"));
  // Empty sections are fine.
  for (uint8_t id : {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13}) {
    EXPECT_TRUE(decode_module(module_bytes({section(id, {0x00})})).ok()) << int(id);
  }
}

TEST(DecodeSections, OrderAndDuplicates) {
  EXPECT_TRUE(Malformed(module_bytes({section(3, {0x00}), section(1, {0x00})}),
                        "unexpected content after last section"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x00}), section(1, {0x00})}),
                        "unexpected content after last section"));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}), section(8, {0x00}),
                                      section(8, {0x00}), section(10, {0x01, 0x02, 0x00, 0x0B})}),
                        "unexpected content after last section"));
  // Data count goes before code; tags between memory and global.
  EXPECT_TRUE(Malformed(module_bytes({section(10, {0x00}), section(12, {0x00})}),
                        "unexpected content after last section"));
  EXPECT_TRUE(Malformed(module_bytes({section(6, {0x00}), section(13, {0x00})}),
                        "unexpected content after last section"));
  EXPECT_TRUE(decode_module(module_bytes({section(5, {0x00}), section(13, {0x00}), section(6, {0x00})})).ok());
}

TEST(DecodeSections, CustomSectionsKeptWithPosition) {
  Module m = Decoded(module_bytes({section(0, str("a")), section(1, {0x00}), section(0, cat({str("b"), {1, 2, 3}})),
                                   section(0, cat({str(""), {4}})), section(11, {0x00}), section(0, str("z"))}));
  ASSERT_EQ(m.customs.size(), 4u);
  EXPECT_EQ(m.customs[0], (CustomSection{"a", {}, 0}));
  EXPECT_EQ(m.customs[1], (CustomSection{"b", {1, 2, 3}, 1}));
  EXPECT_EQ(m.customs[2], (CustomSection{"", {4}, 1}));
  EXPECT_EQ(m.customs[3], (CustomSection{"z", {}, 11}));
}

TEST(DecodeSections, CustomSectionNames) {
  EXPECT_TRUE(Malformed(module_bytes({section(0, {0x01, 0xFF})}), "malformed UTF-8 encoding"));
  EXPECT_TRUE(Malformed(module_bytes({section(0, {0x02, 0xC0, 0x80})}), "malformed UTF-8 encoding"));  // overlong
  EXPECT_TRUE(Malformed(module_bytes({section(0, {0x03, 0xED, 0xA0, 0x80})}), "malformed UTF-8 encoding"));  // surrogate
  EXPECT_TRUE(Malformed(module_bytes({section(0, {0x04, 0xF4, 0x90, 0x80, 0x80})}), "malformed UTF-8 encoding"));
  EXPECT_TRUE(Malformed(module_bytes({section(0, {0x05, 'a'})}), "length out of bounds"));
  Module m = Decoded(module_bytes({section(0, {0x07, 0xEF, 0xBB, 0xBF, 0xF0, 0x9F, 0x98, 0x80})}));
  EXPECT_EQ(m.customs.at(0).name, "\xEF\xBB\xBF\xF0\x9F\x98\x80");
}

// ---------------------------------------------------------------------------
// LEB128

TEST(DecodeLeb, LengthAndUnusedBits) {
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00})}),
                        "integer representation too long"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0xFF, 0xFF, 0xFF, 0xFF, 0x1F})}), "integer too large"));
  // Non-minimal but in-range encodings are fine.
  EXPECT_TRUE(decode_module(module_bytes({section(1, {0x80, 0x80, 0x80, 0x80, 0x00})})).ok());
  // i32.const: unused bits of the last byte must repeat the sign bit.
  EXPECT_TRUE(Malformed(func_module({0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x1A, 0x0B}), "integer too large"));
  EXPECT_TRUE(Malformed(func_module({0x41, 0x80, 0x80, 0x80, 0x80, 0x70, 0x1A, 0x0B}), "integer too large"));
  EXPECT_TRUE(decode_module(func_module({0x41, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x1A, 0x0B})).ok());
  EXPECT_TRUE(decode_module(func_module({0x41, 0x80, 0x80, 0x80, 0x80, 0x78, 0x1A, 0x0B})).ok());
  // i64.const: ten bytes at most.
  EXPECT_TRUE(Malformed(
      func_module({0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1A, 0x0B}),
      "integer representation too long"));
  EXPECT_TRUE(Malformed(
      func_module({0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x1A, 0x0B}),
      "integer too large"));
  EXPECT_TRUE(decode_module(
      func_module({0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x1A, 0x0B})).ok());
  // A memarg offset: a u32 in Wasm 2.0, a u64 with memory64 (the default).
  DecodeOptions wasm2;
  wasm2.enable_memory64 = false;
  const Bytes six_byte_offset =
      func_module({0x41, 0x00, 0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1A, 0x0B}, {memory_section()});
  EXPECT_TRUE(Malformed(six_byte_offset, "integer representation too long", wasm2));
  EXPECT_TRUE(decode_module(six_byte_offset).ok());
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x00, 0x1A, 0x0B},
                                    {memory_section()}),
                        "integer representation too long"));  // eleven bytes
  // A memarg alignment.
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x28, 0x82, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x1A, 0x0B},
                                    {memory_section()}),
                        "integer representation too long"));
}

// ---------------------------------------------------------------------------
// Types, imports, exports, limits, globals, tags

TEST(DecodeTypes, ValueAndReferenceTypes) {
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x60, 0x01, 0x7A, 0x00})}), "malformed value type"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x5F, 0x00, 0x00})}), "malformed function type"));
  // Type codes are one-byte signed LEBs in the spec: -0x20 in two bytes is too long.
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0xE0, 0x7F, 0x00, 0x00})}), "integer representation too long"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, {0x01, 0x60, 0x01, 0xFF, 0x7F, 0x00})}),
                        "integer representation too long"));
  const Bytes v128_param = module_bytes({section(1, {0x01, 0x60, 0x01, 0x7B, 0x00})});
  EXPECT_EQ(Decoded(v128_param).types.at(0).params, std::vector<ValType>{ValType::v128()});
  DecodeOptions no_simd;
  no_simd.enable_simd = false;
  EXPECT_TRUE(Malformed(v128_param, "malformed value type", no_simd));
  // Table element type.
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x7F, 0x00, 0x00})}), "malformed reference type"));
  Module m = Decoded(module_bytes({section(1, {0x02, 0x60, 0x02, 0x70, 0x6F, 0x01, 0x7C, 0x60, 0x00, 0x00})}));
  ASSERT_EQ(m.types.size(), 2u);
  EXPECT_EQ(m.types[0], (FuncType{{ValType::funcref(), ValType::externref()}, {ValType::f64()}}));
}

TEST(DecodeTypes, Limits) {
  // Wasm 2.0's flags are a 1-bit LEB.
  DecodeOptions wasm2;
  wasm2.enable_memory64 = false;
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x70, 0x02, 0x00})}), "integer too large", wasm2));
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x70, 0x81, 0x00, 0x00, 0x00})}),
                        "integer representation too long", wasm2));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x02, 0x00})}), "integer too large", wasm2));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x03, 0x00, 0x00})}), "integer too large", wasm2));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x81, 0x01, 0x00, 0x00})}),
                        "integer representation too long", wasm2));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x04, 0x00})}), "(memory64) are not enabled", wasm2));
  // memory64 (the default): 0x04 is the i64 address type, with u64 bounds;
  // anything but 0, 1, 4, 5 (shared: the threads proposal's) is malformed.
  EXPECT_TRUE(Malformed(module_bytes({section(4, {0x01, 0x70, 0x02, 0x00})}), "malformed limits flags"));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x03, 0x00, 0x00})}), "malformed limits flags"));
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x81, 0x01, 0x00, 0x00})}), "malformed limits flags"));
  Module m64 = Decoded(module_bytes({section(5, {0x01, 0x05, 0x01, 0x80, 0x80, 0x80, 0x80, 0x20})}));
  ASSERT_EQ(m64.memories.size(), 1u);
  EXPECT_TRUE(m64.memories[0].type.limits.address64);
  EXPECT_EQ(m64.memories[0].type.limits.min, 1u);
  EXPECT_EQ(m64.memories[0].type.limits.max, uint64_t(1) << 33);
  EXPECT_TRUE(Malformed(module_bytes({section(5, {0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F})}), "integer too large"));
  // Sizes beyond 4 GiB are a validation matter: decoded as they are.
  Module m = Decoded(module_bytes({section(4, {0x01, 0x6F, 0x01, 0x05, 0x03}),
                                   section(5, {0x02, 0x01, 0x00, 0x81, 0x80, 0x04, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F})}));
  ASSERT_EQ(m.memories.size(), 2u);
  EXPECT_EQ(m.memories[0].type.limits, (Limits{0, 65537}));
  EXPECT_EQ(m.memories[1].type.limits, (Limits{0xFFFFFFFFu, std::nullopt}));
  EXPECT_EQ(m.tables.at(0).type, (TableType{ValType::externref(), Limits{5, 3}}));
}

TEST(DecodeImports, KindsAndMalformedKind) {
  const Bytes names = cat({str("m"), str("f")});
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x05, 0x00}}))}), "malformed import kind"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x80, 0x00}}))}), "malformed import kind"));
  // The spec suite's "kind 4" cases stay malformed: a tag import needs more bytes.
  EXPECT_TRUE(Malformed(module_bytes({section(2, {0x01, 0x00, 0x00, 0x04})}), "unexpected end"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, {0x01, 0x00, 0x00, 0x04, 0x00})}), "unexpected end"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x04, 0x01, 0x00}}))}), "malformed tag attribute"));
  DecodeOptions no_fibers;
  no_fibers.enable_fibers = false;
  no_fibers.enable_exceptions = false;  // tags belong to both
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x04, 0x00, 0x00}}))}), "malformed import kind",
                        no_fibers));
  // Mutability.
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x03, 0x7F, 0x02}}))}), "malformed mutability"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, names, {0x03, 0x7F, 0xFF}}))}), "malformed mutability"));
  // Names must be UTF-8.
  EXPECT_TRUE(Malformed(module_bytes({section(2, {0x01, 0x01, 0x80, 0x00, 0x00, 0x00})}), "malformed UTF-8 encoding"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, {0x01, 0x00, 0x01, 0xFF, 0x00, 0x00})}), "malformed UTF-8 encoding"));

  Module m = Decoded(module_bytes({section(
      2, cat({{0x05}, names, {0x00, 0x02}, names, {0x01, 0x70, 0x00, 0x01}, names, {0x02, 0x01, 0x01, 0x02}, names,
              {0x03, 0x7E, 0x01}, names, {0x04, 0x00, 0x03}}))}));
  ASSERT_EQ(m.imports.size(), 5u);
  EXPECT_EQ(m.imports[0].module, "m");
  EXPECT_EQ(m.imports[0].name, "f");
  EXPECT_EQ(m.imports[0].kind, ExternKind::Func);
  EXPECT_EQ(m.imports[0].type_index, 2u);
  EXPECT_EQ(m.imports[1].kind, ExternKind::Table);
  EXPECT_EQ(m.imports[1].table, (TableType{ValType::funcref(), Limits{1, std::nullopt}}));
  EXPECT_EQ(m.imports[2].memory.limits, (Limits{1, 2}));
  EXPECT_EQ(m.imports[3].global, (GlobalType{ValType::i64(), true}));
  EXPECT_EQ(m.imports[4].kind, ExternKind::Tag);
  EXPECT_EQ(m.imports[4].type_index, 3u);
  EXPECT_EQ(m.num_imported_tags(), 1u);
}

TEST(DecodeExports, KindsAndMalformedKind) {
  EXPECT_TRUE(Malformed(module_bytes({section(7, cat({{0x01}, str("e"), {0x05, 0x00}}))}), "malformed export kind"));
  Module m = Decoded(module_bytes({section(7, cat({{0x02}, str("e"), {0x04, 0x07}, str("g"), {0x03, 0x01}}))}));
  ASSERT_EQ(m.exports.size(), 2u);
  EXPECT_EQ(m.exports[0], (Export{"e", ExternKind::Tag, 7}));
  EXPECT_EQ(m.exports[1], (Export{"g", ExternKind::Global, 1}));
}

TEST(DecodeGlobals, TypeAndInit) {
  EXPECT_TRUE(Malformed(module_bytes({section(6, {0x01, 0x7F, 0x02, 0x41, 0x00, 0x0B})}), "malformed mutability"));
  // Init expression: illegal opcode, missing end.
  EXPECT_TRUE(Malformed(module_bytes({section(6, {0x01, 0x7F, 0x00, 0xF3, 0x0B})}), "illegal opcode"));
  EXPECT_TRUE(Malformed(module_bytes({section(6, {0x01, 0x7F, 0x00, 0x41, 0x00})}), "unexpected end"));
  // Any instruction sequence is well-formed; constness is for the validator.
  Module m = Decoded(module_bytes({section(6, {0x02, 0x7F, 0x01, 0x41, 0x2A, 0x0B, 0x7E, 0x00, 0x42, 0x01, 0x42, 0x02,
                                               0x7C, 0x02, 0x40, 0x0B, 0x0B})}));
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[0].type, (GlobalType{ValType::i32(), true}));
  EXPECT_EQ(m.globals[0].init.code, (Bytes{0x41, 0x2A, 0x0B}));
  EXPECT_EQ(m.globals[1].init.code, (Bytes{0x42, 0x01, 0x42, 0x02, 0x7C, 0x02, 0x40, 0x0B, 0x0B}));
}

TEST(DecodeTags, Section) {
  EXPECT_TRUE(Malformed(module_bytes({section(13, {0x01, 0x01, 0x00})}), "malformed tag attribute"));
  Module m = Decoded(module_bytes({void_type_section(), section(13, {0x02, 0x00, 0x00, 0x00, 0x80, 0x01})}));
  ASSERT_EQ(m.tags.size(), 2u);
  EXPECT_EQ(m.tags[1].type_index, 128u);
}

// ---------------------------------------------------------------------------
// Function and code sections

TEST(DecodeCode, FunctionAndCodeCounts) {
  const char* kMsg = "function and code section have inconsistent lengths";
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x02, 0x00, 0x00})}), kMsg));
  EXPECT_TRUE(Malformed(module_bytes({section(10, {0x01, 0x02, 0x00, 0x0B})}), kMsg));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x02, 0x00, 0x00}),
                                      section(10, {0x01, 0x02, 0x00, 0x0B})}),
                        kMsg));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                      section(10, {0x02, 0x02, 0x00, 0x0B, 0x02, 0x00, 0x0B})}),
                        kMsg));
  EXPECT_TRUE(decode_module(module_bytes({section(3, {0x00})})).ok());
  EXPECT_TRUE(decode_module(module_bytes({section(10, {0x00})})).ok());
}

TEST(DecodeCode, LocalsAndBodyOffset) {
  const Bytes bytes = module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                    section(10, cat({{0x01}, body({0x01, 0x0B}, {0x03, 0x00, 0x7F, 0x02, 0x7E, 0x01,
                                                                                 0x7B})}))});
  Module m = Decoded(bytes);
  ASSERT_EQ(m.functions.size(), 1u);
  const Function& f = m.functions[0];
  EXPECT_EQ(f.locals, (std::vector<LocalGroup>{{0, ValType::i32()}, {2, ValType::i64()}, {1, ValType::v128()}}));
  EXPECT_EQ(f.body, (Bytes{0x01, 0x0B}));
  EXPECT_EQ(f.body_offset, bytes.size() - 2);
}

// Bodies are views of bytes the module keeps (core/function_body.h): one
// copy of the code section, or the caller's buffer when handed over — never
// the caller's bytes without their owner.
TEST(DecodeCode, BodiesOutliveTheInputAndTheModulesCopies) {
  Bytes bytes = module_bytes({void_type_section(), section(3, {0x02, 0x00, 0x00}),
                              section(10, cat({{0x02}, body({0x01, 0x0B}), body({0x41, 0x05, 0x1A, 0x0B})}))});
  auto decoded = decode_module(bytes);
  ASSERT_TRUE(decoded.ok());
  std::fill(bytes.begin(), bytes.end(), 0xFF);  // the input is gone: the bodies are not
  auto copy = std::make_unique<Module>(*decoded);
  Module moved = std::move(*decoded);
  EXPECT_EQ(moved.functions[1].body, (Bytes{0x41, 0x05, 0x1A, 0x0B}));
  const Module kept = *copy;
  copy.reset();  // a copy shares the bytes (Module::source)
  EXPECT_EQ(kept.functions[0].body, (Bytes{0x01, 0x0B}));
  EXPECT_EQ(kept.functions[1].body, (Bytes{0x41, 0x05, 0x1A, 0x0B}));
  // One buffer for all bodies, in order.
  EXPECT_EQ(kept.functions[1].body.data(), kept.functions[0].body.data() + 2 + 2);  // + size, local count
}

TEST(DecodeCode, BodiesViewAnInputHandedOver) {
  auto input = std::make_shared<Bytes>(module_bytes(
      {void_type_section(), section(3, {0x01, 0x00}), section(10, cat({{0x01}, body({0x01, 0x0B})}))}));
  const uint8_t* begin = input->data();
  const uint8_t* end = begin + input->size();
  auto decoded = decode_module(*input, input);
  ASSERT_TRUE(decoded.ok());
  input.reset();  // the module holds it now
  const FunctionBody& b = decoded->functions[0].body;
  EXPECT_TRUE(b.data() >= begin && b.data() + b.size() <= end);
  EXPECT_EQ(b.data(), begin + decoded->functions[0].body_offset);
  EXPECT_EQ(b, (Bytes{0x01, 0x0B}));
  // A test that edits a body gets a copy of its own; the input is untouched.
  Module edited = *decoded;
  edited.functions[0].body.edit()[0] = 0x00;
  EXPECT_EQ(edited.functions[0].body, (Bytes{0x00, 0x0B}));
  EXPECT_EQ(decoded->functions[0].body, (Bytes{0x01, 0x0B}));
}

TEST(DecodeCode, TooManyLocals) {
  EXPECT_TRUE(Malformed(
      module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                    section(10, cat({{0x01}, body({0x0B}, {0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0x02, 0x7E})}))}),
      "too many locals"));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                      section(10, cat({{0x01}, body({0x0B}, {0x04, 0x80, 0x80, 0x80, 0x80, 0x04, 0x7F,
                                                                             0x80, 0x80, 0x80, 0x80, 0x04, 0x7E, 0x80,
                                                                             0x80, 0x80, 0x80, 0x04, 0x7D, 0x80, 0x80,
                                                                             0x80, 0x80, 0x04, 0x7C})}))}),
                        "too many locals"));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                      section(10, cat({{0x01}, body({0x0B}, {0x01, 0x80, 0x80, 0x80, 0x80, 0x10, 0x7F})}))}),
                        "integer too large"));
  // 2^32 - 1 in total is still well-formed.
  EXPECT_TRUE(decode_module(module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                          section(10, cat({{0x01}, body({0x0B}, {0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F,
                                                                                 0x7F, 0x01, 0x7E})}))}))
                  .ok());
}

TEST(DecodeCode, BodyEnd) {
  // Missing end between two functions: the first body stops short.
  const Bytes two_funcs = module_bytes({void_type_section(), section(3, {0x02, 0x00, 0x00}),
                                        section(10, cat({{0x02}, body({0x41, 0x01, 0x1A}), body({0x0B})}))});
  EXPECT_TRUE(Malformed(two_funcs, "END opcode expected"));
  // Missing end at the end of the input.
  EXPECT_TRUE(Malformed(func_module({0x41, 0x01, 0x1A}), "unexpected end"));
  // A block left open.
  EXPECT_TRUE(Malformed(cat({func_module({0x02, 0x40, 0x0B}), section(0, str("x"))}), "END opcode expected"));
  // Bytes after the function's end.
  EXPECT_TRUE(Malformed(func_module({0x0B, 0x01}), "section size mismatch"));
  // Body size beyond the section.
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}), section(10, {0x01, 0x05, 0x00, 0x0B})}),
                        "length out of bounds"));
}

TEST(DecodeCode, ElsePlacement) {
  EXPECT_TRUE(decode_module(func_module({0x41, 0x00, 0x04, 0x40, 0x05, 0x0B, 0x0B})).ok());
  EXPECT_TRUE(decode_module(func_module({0x41, 0x00, 0x04, 0x40, 0x0B, 0x0B})).ok());
  EXPECT_TRUE(Malformed(func_module({0x05, 0x0B}), "END opcode expected"));
  EXPECT_TRUE(Malformed(func_module({0x02, 0x40, 0x05, 0x0B, 0x0B}), "END opcode expected"));
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x04, 0x40, 0x05, 0x05, 0x0B, 0x0B}), "END opcode expected"));
}

TEST(DecodeCode, IllegalOpcodes) {
  EXPECT_TRUE(Malformed(func_module({0x06, 0x0B}), "illegal opcode"));
  EXPECT_TRUE(Malformed(func_module({0xFF, 0x0B}), "illegal opcode"));
  EXPECT_TRUE(Malformed(func_module({0xFA, 0x7F, 0x0B}), "illegal opcode"));  // unknown fiber sub-opcode
  EXPECT_TRUE(Malformed(func_module({0xFC, 0x12, 0x0B}), "illegal opcode"));
  EXPECT_TRUE(Malformed(func_module({0xFC, 0x80, 0x02, 0x0B}), "illegal opcode"));  // 256
  EXPECT_TRUE(Malformed(func_module({0xFC, 0x80, 0x80, 0x80, 0x80, 0x10, 0x0B}), "integer too large"));
  EXPECT_TRUE(Malformed(func_module({0xFD, 0x9A, 0x01, 0x0B}), "illegal opcode"));
  // Sub-opcodes are u32 LEBs: a padded one names the same instruction.
  EXPECT_TRUE(decode_module(func_module({0x43, 0x00, 0x00, 0x00, 0x00, 0xFC, 0x80, 0x00, 0x1A, 0x0B})).ok());
  Bytes v128_const = {0xFD, 0x0C};
  v128_const.resize(18, 0x00);
  const Bytes simd = func_module(cat({v128_const, {0x1A, 0x0B}}));
  EXPECT_TRUE(decode_module(simd).ok());
  DecodeOptions no_simd;
  no_simd.enable_simd = false;
  EXPECT_TRUE(Malformed(simd, "illegal opcode", no_simd));
}

TEST(DecodeCode, ZeroBytes) {
  // Wasm 2.0 (multi-memory off): each memory index is one 0x00 byte.
  DecodeOptions wasm2;
  wasm2.enable_multi_memory = false;
  const Bytes mem = memory_section();
  EXPECT_TRUE(Malformed(func_module({0x3F, 0x01, 0x1A, 0x0B}, {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module({0x3F, 0x80, 0x00, 0x1A, 0x0B}, {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x40, 0x01, 0x1A, 0x0B}, {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x40, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1A, 0x0B}, {mem}),
                        "zero byte expected", wasm2));
  const Bytes three_args = {0x41, 0x00, 0x41, 0x00, 0x41, 0x00};
  EXPECT_TRUE(Malformed(func_module(cat({three_args, {0xFC, 0x0B, 0x01, 0x0B}}), {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module(cat({three_args, {0xFC, 0x0A, 0x00, 0x01, 0x0B}}), {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module(cat({three_args, {0xFC, 0x0A, 0x01, 0x00, 0x0B}}), {mem}), "zero byte expected", wasm2));
  EXPECT_TRUE(Malformed(func_module(cat({three_args, {0xFC, 0x08, 0x00, 0x01, 0x0B}}), {mem, section(12, {0x01})}),
                        "zero byte expected", wasm2));
  // Operand counts are the validator's business.
  EXPECT_TRUE(decode_module(func_module(cat({three_args, {0xFC, 0x0B, 0x00, 0xFC, 0x0A, 0x00, 0x00, 0x0B}}), {mem})).ok());
  // Multi-memory (the default): the same bytes are memory indices, which the
  // validator checks; padded zeros are zeros.
  EXPECT_TRUE(decode_module(func_module({0x3F, 0x01, 0x1A, 0x0B}, {mem})).ok());
  EXPECT_TRUE(decode_module(func_module({0x41, 0x00, 0x40, 0x80, 0x80, 0x80, 0x80, 0x00, 0x1A, 0x0B}, {mem})).ok());
  EXPECT_TRUE(decode_module(func_module(cat({three_args, {0xFC, 0x0A, 0x01, 0x02, 0x0B}}), {mem})).ok());
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x28, 0x80, 0x01, 0x00, 0x00, 0x1A, 0x0B}, {mem}),
                        "malformed memop flags"));
}

TEST(DecodeCode, DataCountRequired) {
  const Bytes mem = memory_section();
  const Bytes data = section(11, {0x01, 0x01, 0x00});
  const Bytes init = {0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x08, 0x00, 0x00, 0x0B};
  EXPECT_TRUE(Malformed(cat({func_module(init, {mem}), data}), "data count section required"));
  EXPECT_TRUE(Malformed(cat({func_module({0xFC, 0x09, 0x00, 0x0B}, {mem}), data}), "data count section required"));
  Module m = Decoded(cat({func_module(init, {mem, section(12, {0x01})}), data}));
  EXPECT_EQ(m.data_count, 1u);
  EXPECT_TRUE(decode_module(cat({func_module({0xFC, 0x09, 0x00, 0x0B}, {mem, section(12, {0x01})}), data})).ok());
}

TEST(DecodeCode, BlockTypes) {
  EXPECT_TRUE(decode_module(func_module({0x02, 0x40, 0x0B, 0x0B})).ok());
  EXPECT_TRUE(decode_module(func_module({0x02, 0x7F, 0x41, 0x00, 0x0B, 0x1A, 0x0B})).ok());
  EXPECT_TRUE(decode_module(func_module({0x03, 0x00, 0x0B, 0x0B})).ok());                     // type index 0
  EXPECT_TRUE(decode_module(func_module({0x02, 0x80, 0x00, 0x0B, 0x0B})).ok());               // padded index
  EXPECT_TRUE(decode_module(func_module({0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x0B, 0x0B})).ok());  // 2^32-1
  EXPECT_TRUE(Malformed(func_module({0x02, 0xFF, 0x7F, 0x0B, 0x0B}), "malformed block type"));     // -1, two bytes
  EXPECT_TRUE(Malformed(func_module({0x02, 0x41, 0x0B, 0x0B}), "malformed value type"));
  EXPECT_TRUE(Malformed(func_module({0x02, 0x80, 0x80, 0x80, 0x80, 0x20, 0x0B, 0x0B}), "integer too large"));
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x04, 0xC0, 0x80, 0x80, 0x80, 0x80, 0x0B, 0x0B}),
                        "integer representation too long"));
}

TEST(DecodeCode, Immediates) {
  const Bytes three = {0x41, 0x00, 0x41, 0x00, 0x41, 0x00};
  // select with a vector of types: any length is well-formed.
  EXPECT_TRUE(decode_module(func_module(cat({three, {0x1C, 0x01, 0x7F, 0x1A, 0x0B}}))).ok());
  EXPECT_TRUE(decode_module(func_module(cat({three, {0x1C, 0x02, 0x7F, 0x7F, 0x1A, 0x0B}}))).ok());
  EXPECT_TRUE(Malformed(func_module(cat({three, {0x1C, 0x01, 0x7A, 0x1A, 0x0B}})), "malformed value type"));
  // ref.null heap type.
  EXPECT_TRUE(decode_module(func_module({0xD0, 0x70, 0x1A, 0xD0, 0x6F, 0x1A, 0x0B})).ok());
  EXPECT_TRUE(Malformed(func_module({0xD0, 0x7F, 0x1A, 0x0B}), "malformed reference type"));
  // call_indirect: the table index is a LEB since Wasm 2.0.
  EXPECT_TRUE(decode_module(func_module({0x41, 0x00, 0x11, 0x00, 0x81, 0x00, 0x0B})).ok());
  // br_table with zero targets, and a truncated one.
  EXPECT_TRUE(decode_module(func_module({0x41, 0x00, 0x0E, 0x00, 0x00, 0x0B})).ok());
  EXPECT_TRUE(Malformed(func_module({0x41, 0x00, 0x0E, 0x02, 0x00, 0x0B}), "unexpected end"));
  // f32/f64/v128 constants and lanes take raw bytes.
  EXPECT_TRUE(decode_module(func_module({0x44, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x1A, 0x0B})).ok());
  EXPECT_TRUE(Malformed(func_module({0x44, 0, 0, 0, 0, 0x0B}), "unexpected end"));
  Bytes lane = {0xFD, 0x0C};
  lane.resize(18, 0x0B);  // 0x0B bytes inside the immediate must not count as `end`
  EXPECT_TRUE(decode_module(func_module(cat({lane, {0xFD, 0x15, 0x0B, 0x1A, 0x0B}}))).ok());
  // Memory instructions with a lane.
  EXPECT_TRUE(decode_module(func_module(cat({{0x41, 0x00}, lane, {0xFD, 0x54, 0x00, 0x00, 0x0F, 0x1A, 0x0B}}),
                                        {memory_section()}))
                  .ok());
}

// Minimal well-formed immediates for each kind.
Bytes sample_immediates(ImmKind kind) {
  switch (kind) {
    case ImmKind::None: return {};
    case ImmKind::BlockType: return {0x40};
    case ImmKind::LabelIdx: case ImmKind::FuncIdx: case ImmKind::LocalIdx: case ImmKind::GlobalIdx:
    case ImmKind::TableIdx: case ImmKind::DataIdx: case ImmKind::ElemIdx: case ImmKind::I32: case ImmKind::I64:
    case ImmKind::MemIdx: case ImmKind::Lane: case ImmKind::TagIdx: case ImmKind::TypeIdx:
      return {0x00};
    case ImmKind::BrTable: case ImmKind::CallIndirect: case ImmKind::Memarg: case ImmKind::MemoryInit:
    case ImmKind::MemoryCopy: case ImmKind::TableInit: case ImmKind::TableCopy: case ImmKind::TypeTag:
      return {0x00, 0x00};
    case ImmKind::MemargLane: return {0x00, 0x00, 0x00};
    case ImmKind::TryTable: return {0x40, 0x01, 0x02, 0x00};  // (catch_all 0)
    case ImmKind::SelectT: return {0x01, 0x7F};
    case ImmKind::HeapType: return {0x70};
    case ImmKind::F32: return Bytes(4, 0x00);
    case ImmKind::F64: return Bytes(8, 0x00);
    case ImmKind::V128: case ImmKind::Shuffle: return Bytes(16, 0x00);
  }
  return {};
}

TEST(DecodeCode, EveryOpcodeInTheTableDecodes) {
  for (uint32_t i = 0; i < kOpcodeCount; ++i) {
    const OpcodeInfo& info = opcode_info(Opcode(i));
    if (info.opcode == Opcode::End || info.opcode == Opcode::Else) continue;
    Bytes code;
    if (info.prefix != 0) {
      code.push_back(info.prefix);
      write_leb_u32(code, info.code);
    } else {
      code.push_back(uint8_t(info.code));
    }
    code = cat({code, sample_immediates(info.immediate)});
    if (info.immediate == ImmKind::BlockType || info.immediate == ImmKind::TryTable) code.push_back(0x0B);
    code.push_back(0x0B);
    Result<Module> r = decode_module(func_module(code, {memory_section(), section(12, {0x00})}));
    EXPECT_TRUE(r.ok()) << info.text << ": " << r.error().to_string();
  }
}

TEST(DecodeCode, WalkerStopsAtTheOutermostEnd) {
  const Bytes code = {0x02, 0x40, 0x0B, 0x0B, 0xAA};
  detail::Failure failure;
  detail::Reader r(code.data(), code.data(), code.data() + code.size(), &failure, "eof");
  detail::CodeWalker walker;
  EXPECT_TRUE(walker.read_expression(r, detail::ExprContext{}));
  EXPECT_EQ(r.pos(), code.data() + 4);
  EXPECT_FALSE(failure.set);
  // Failures return false and record the first error with its offset.
  for (const Bytes& bad : {Bytes{0x41, 0x00}, Bytes{0x01, 0x06, 0x0B}, Bytes{0x02, 0x40, 0x0B}, Bytes{0x05, 0x0B}}) {
    detail::Failure f;
    detail::Reader br(bad.data(), bad.data(), bad.data() + bad.size(), &f, "eof");
    EXPECT_FALSE(walker.read_expression(br, detail::ExprContext{}));
    EXPECT_TRUE(f.set);
    EXPECT_LE(f.offset, bad.size());
  }
}

// ---------------------------------------------------------------------------
// Element and data segments

TEST(DecodeElems, AllEightEncodings) {
  const Bytes offset = {0x41, 0x00, 0x0B};
  const Bytes elems = section(
      9, cat({{0x09},
              {0x00}, offset, {0x02, 0x00, 0xAC, 0x02},                // 0: active table 0, func indices
              {0x01, 0x00, 0x01, 0x00},                                 // 1: passive, elemkind
              {0x02, 0x01}, offset, {0x00, 0x01, 0x00},                // 2: active table 1, elemkind
              {0x03, 0x00, 0x01, 0x00},                                 // 3: declarative, elemkind
              {0x04}, offset, {0x01, 0xD2, 0x00, 0x0B},                // 4: active table 0, exprs
              {0x05, 0x6F, 0x01, 0xD0, 0x6F, 0x0B},                     // 5: passive, exprs
              {0x06, 0x02}, offset, {0x70, 0x01, 0xD0, 0x70, 0x0B},    // 6: active table 2, exprs
              {0x07, 0x70, 0x01, 0xD2, 0x00, 0x0B},                     // 7: declarative, exprs
              {0x06, 0x00}, offset, {0x70, 0x00}}));                    // 6 again: explicit table 0
  Module m = Decoded(module_bytes({elems}));
  ASSERT_EQ(m.elems.size(), 9u);
  const ConstExpr ref0{{0xD2, 0x00, 0x0B}};
  const ConstExpr ref300{{0xD2, 0xAC, 0x02, 0x0B}};
  const ConstExpr off{offset};
  auto check = [&](size_t i, SegmentMode mode, uint32_t table, ValType type, bool exprs, std::vector<ConstExpr> items) {
    SCOPED_TRACE(i);
    const ElemSegment& s = m.elems[i];
    EXPECT_EQ(s.mode, mode);
    EXPECT_EQ(s.table, table);
    EXPECT_EQ(s.offset, mode == SegmentMode::Active ? off : ConstExpr{});
    EXPECT_EQ(s.type, type);
    EXPECT_EQ(s.uses_expressions, exprs);
    EXPECT_EQ(s.items, items);
  };
  check(0, SegmentMode::Active, 0, ValType::funcref(), false, {ref0, ref300});
  check(1, SegmentMode::Passive, 0, ValType::funcref(), false, {ref0});
  check(2, SegmentMode::Active, 1, ValType::funcref(), false, {ref0});
  check(3, SegmentMode::Declarative, 0, ValType::funcref(), false, {ref0});
  check(4, SegmentMode::Active, 0, ValType::funcref(), true, {ref0});
  check(5, SegmentMode::Passive, 0, ValType::externref(), true, {ConstExpr{{0xD0, 0x6F, 0x0B}}});
  check(6, SegmentMode::Active, 2, ValType::funcref(), true, {ConstExpr{{0xD0, 0x70, 0x0B}}});
  check(7, SegmentMode::Declarative, 0, ValType::funcref(), true, {ref0});
  check(8, SegmentMode::Active, 0, ValType::funcref(), true, {});
  EXPECT_TRUE(RoundTrips(m));
}

TEST(DecodeElems, Malformed) {
  EXPECT_TRUE(Malformed(module_bytes({section(9, {0x01, 0x08, 0x70, 0x00})}), "malformed elements segment kind"));
  EXPECT_TRUE(Malformed(module_bytes({section(9, {0x01, 0x01, 0x01, 0x00})}), "malformed element kind"));
  EXPECT_TRUE(Malformed(module_bytes({section(9, {0x01, 0x05, 0x7F, 0x01, 0xD2, 0x00, 0x0B})}), "malformed reference type"));
  EXPECT_TRUE(Malformed(module_bytes({section(9, {0x01, 0x05, 0x70, 0x01, 0xF3, 0x00, 0x0B})}), "illegal opcode"));
  // Two segments declared, one and a half given.
  EXPECT_TRUE(Malformed(module_bytes({section(9, {0x02, 0x00, 0x41, 0x00, 0x0B, 0x01, 0x00, 0x00, 0x41, 0x00})}),
                        "unexpected end"));
}

TEST(DecodeData, Segments) {
  Module m = Decoded(module_bytes({section(11, {0x03, 0x00, 0x41, 0x01, 0x0B, 0x02, 0xAA, 0xBB,  // active mem 0
                                                0x01, 0x01, 0xCC,                                // passive
                                                0x02, 0x01, 0x41, 0x02, 0x0B, 0x00})})           // active mem 1
  );
  ASSERT_EQ(m.datas.size(), 3u);
  EXPECT_EQ(m.datas[0], (DataSegment{SegmentMode::Active, 0, ConstExpr{{0x41, 0x01, 0x0B}}, {0xAA, 0xBB}}));
  EXPECT_EQ(m.datas[1], (DataSegment{SegmentMode::Passive, 0, ConstExpr{}, {0xCC}}));
  EXPECT_EQ(m.datas[2], (DataSegment{SegmentMode::Active, 1, ConstExpr{{0x41, 0x02, 0x0B}}, {}}));
  EXPECT_FALSE(m.data_count.has_value());
  EXPECT_TRUE(RoundTrips(m));

  EXPECT_TRUE(Malformed(module_bytes({section(11, {0x01, 0x03, 0x00})}), "malformed data segment kind"));
  EXPECT_TRUE(Malformed(module_bytes({section(11, {0x01, 0x01, 0x07, 0x61, 0x62})}), "length out of bounds"));
  EXPECT_TRUE(Malformed(module_bytes({section(11, {0x01, 0x01, 0x01, 0x61, 0x62})}), "section size mismatch"));
}

TEST(DecodeData, DataCountConsistency) {
  const char* kMsg = "data count and data section have inconsistent lengths";
  EXPECT_TRUE(Malformed(module_bytes({section(12, {0x03}), section(11, {0x02, 0x01, 0x00, 0x01, 0x00})}), kMsg));
  EXPECT_TRUE(Malformed(module_bytes({section(12, {0x01}), section(11, {0x02, 0x01, 0x00, 0x01, 0x00})}), kMsg));
  EXPECT_TRUE(Malformed(module_bytes({section(12, {0x01})}), kMsg));  // no data section at all
  EXPECT_EQ(Decoded(module_bytes({section(12, {0x00})})).data_count, 0u);
  EXPECT_EQ(Decoded(module_bytes({section(12, {0x02}), section(11, {0x02, 0x01, 0x00, 0x01, 0x00})})).data_count, 2u);
}

// ---------------------------------------------------------------------------
// Hostile input: huge counts must fail before allocating.

TEST(DecodeHostile, HugeCountsFailFast) {
  // A vector count above the bytes left fails at once ("unexpected end", as the
  // spec reader would eventually say); a byte length is "length out of bounds".
  const Bytes huge = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  for (uint8_t id : {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13}) {
    EXPECT_TRUE(Malformed(module_bytes({section(id, cat({huge, {0x00}}))}), "unexpected end")) << int(id);
  }
  EXPECT_TRUE(Malformed(func_module(cat({{0x41, 0x00, 0x0E}, huge, {0x00, 0x0B}})), "unexpected end"));
  EXPECT_TRUE(Malformed(func_module(cat({{0x1C}, huge, {0x7F, 0x0B}})), "unexpected end"));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}),
                                      section(10, cat({{0x01}, body({0x0B}, cat({huge, {0x01, 0x7F}}))}))}),
                        "unexpected end"));
  EXPECT_TRUE(Malformed(module_bytes({section(1, cat({{0x01, 0x60}, huge, {0x7F}}))}), "unexpected end"));
  EXPECT_TRUE(Malformed(module_bytes({section(9, cat({{0x01, 0x01, 0x00}, huge, {0x00}}))}), "unexpected end"));
  // Byte lengths.
  EXPECT_TRUE(Malformed(module_bytes({section(0, cat({huge, {0x61}}))}), "length out of bounds"));
  EXPECT_TRUE(Malformed(module_bytes({section(11, cat({{0x01, 0x01}, huge, {0x00}}))}), "length out of bounds"));
  EXPECT_TRUE(Malformed(module_bytes({section(2, cat({{0x01}, huge, {0x00}}))}), "length out of bounds"));
  EXPECT_TRUE(Malformed(module_bytes({void_type_section(), section(3, {0x01, 0x00}), section(10, cat({{0x01}, huge}))}),
                        "length out of bounds"));
  EXPECT_TRUE(Malformed(cat({header(), {0x01}, huge}), "length out of bounds"));
  // Counts that fit the bytes but not the items still fail without fuss.
  Bytes many = {0xFF, 0xFF, 0x03};  // 65535 tables, then 65535 bytes that are not tables
  many.resize(many.size() + 65535, 0x00);
  EXPECT_TRUE(Malformed(module_bytes({section(4, many)}), "malformed reference type"));
}

TEST(DecodeHostile, DeepNestingAndLongBodies) {
  Bytes code;
  for (int i = 0; i < 100000; ++i) code.insert(code.end(), {0x02, 0x40});
  for (int i = 0; i < 100000; ++i) code.push_back(0x0B);
  code.push_back(0x0B);
  EXPECT_TRUE(decode_module(func_module(code)).ok());
  code.pop_back();
  EXPECT_TRUE(Malformed(func_module(code), "unexpected end"));
}

// ---------------------------------------------------------------------------
// The name section

Bytes name_payload(std::initializer_list<Bytes> subsections) {
  return cat({str("name"), cat(subsections)});
}

Bytes subsection(uint8_t id, const Bytes& content) { return section(id, content); }

TEST(DecodeNames, ModuleAndFunctionNames) {
  const Bytes payload =
      name_payload({subsection(0, str("mod")), subsection(1, cat({{0x02, 0x00}, str("f"), {0x02}, str("g")})),
                    subsection(2, {0x00})});
  Module m = Decoded(module_bytes({section(0, payload)}));
  EXPECT_EQ(m.names.module_name, "mod");
  EXPECT_EQ(m.names.function_names, (std::vector<std::pair<uint32_t, std::string>>{{0, "f"}, {2, "g"}}));
  EXPECT_EQ(m.function_name(2), "g");
  ASSERT_EQ(m.customs.size(), 1u);  // kept verbatim too
  EXPECT_EQ(m.customs[0].name, "name");
  EXPECT_TRUE(RoundTrips(m));
}

TEST(DecodeNames, UnsortedFunctionNamesAreSorted) {
  const Bytes payload = name_payload({subsection(1, cat({{0x03, 0x05}, str("e"), {0x01}, str("a"), {0x05}, str("x")}))});
  Module m = Decoded(module_bytes({section(0, payload)}));
  EXPECT_EQ(m.names.function_names, (std::vector<std::pair<uint32_t, std::string>>{{1, "a"}, {5, "e"}}));
}

TEST(DecodeNames, MalformedNameSectionIsIgnored) {
  const std::vector<Bytes> bad = {
      name_payload({subsection(0, str("mod")), {0x01, 0x09, 0x01}}),            // truncated subsection
      name_payload({subsection(1, cat({{0x01, 0x00}, {0x01, 0xFF}}))}),         // invalid UTF-8
      name_payload({subsection(0, cat({str("mod"), {0x00}}))}),                 // junk in a subsection
      name_payload({subsection(1, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F})}),           // huge count
  };
  for (const Bytes& payload : bad) {
    Module m = Decoded(module_bytes({section(0, payload)}));
    EXPECT_FALSE(m.names.module_name.has_value());
    EXPECT_TRUE(m.names.function_names.empty());
    ASSERT_EQ(m.customs.size(), 1u);
    EXPECT_TRUE(RoundTrips(m));
  }
}

}  // namespace
}  // namespace weft::binary::test
