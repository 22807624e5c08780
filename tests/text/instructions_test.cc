// Instruction encoding: plain and folded forms, blocks and labels, memargs,
// constants, SIMD immediates, and robustness against deep nesting.
#include <gtest/gtest.h>

#include "test_util.h"

namespace weft::text {
namespace {

using namespace testing;

Bytes fn(std::string_view body_text) { return body_of("(func " + std::string(body_text) + ")"); }

TEST(Instructions, PlainAndFoldedEncodeTheSame) {
  Bytes plain = fn("(result i32) i32.const 1 i32.const 2 i32.add");
  Bytes folded = fn("(result i32) (i32.add (i32.const 1) (i32.const 2))");
  EXPECT_EQ(plain, (Bytes{0x41, 0x01, 0x41, 0x02, 0x6A, 0x0B}));
  EXPECT_EQ(plain, folded);
  parse_error("(func (result i32) (i32.add (i32.const 1) i32.const 2))");  // plain operand in folded form
}

TEST(Instructions, BlockTypes) {
  EXPECT_EQ(fn("block end"), (Bytes{0x02, 0x40, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(block (result i64) (i64.const 0))"), (Bytes{0x02, 0x7E, 0x42, 0x00, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(loop (result f64) (f64.const 0))").at(1), 0x7C);
  Module m = parse_ok("(func (block (param i32) (result i32 i32) unreachable) (block (result i32 i32) unreachable))");
  ASSERT_EQ(m.types.size(), 3u);  // the func's [] -> [], then the two block types
  EXPECT_EQ(m.functions[0].body, (Bytes{0x02, 0x01, 0x00, 0x0B, 0x02, 0x02, 0x00, 0x0B, 0x0B}));
  // (type $t) of a short shape is written inline, like wat2wasm.
  Module t = parse_ok("(type $v (func (result i32))) (type $p (func (param i32))) "
                      "(func (block (type $v) unreachable) (block (type $p) unreachable))");
  EXPECT_EQ(t.functions[0].body, (Bytes{0x02, 0x7F, 0x00, 0x0B, 0x02, 0x01, 0x00, 0x0B, 0x0B}));
  parse_error("(type $v (func (result i32))) (func (block (type $v) (result i64)))");
  parse_error("(func (block (param $x i32)))");  // block params cannot be named
}

TEST(Instructions, LabelsResolveToDepths) {
  EXPECT_EQ(fn("block $a block $b br $a br $b br 0 end end"),
            (Bytes{0x02, 0x40, 0x02, 0x40, 0x0C, 0x01, 0x0C, 0x00, 0x0C, 0x00, 0x0B, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(block $a (loop $b (br_if $a (i32.const 1)) (br_table $a $b 0 (i32.const 0))))"),
            (Bytes{0x02, 0x40, 0x03, 0x40, 0x41, 0x01, 0x0D, 0x01, 0x41, 0x00, 0x0E, 0x02, 0x01, 0x00, 0x00, 0x0B,
                   0x0B, 0x0B}));
  // Shadowing: the innermost label of a name wins.
  EXPECT_EQ(fn("block $l block $l br $l end end").at(5), 0x00);
  parse_error("(func br $nope)");
  parse_error("(func block $a end $b)");
  parse_error("(func block end $a)");
  parse_ok("(func block $a end $a)");
  parse_error("(func if $a else $b end)");
  parse_ok("(func (i32.const 0) if $a else $a end $a)");
  parse_error("(func end)");
  parse_error("(func block)");
  parse_error("(func else)");
  parse_error("(func (i32.const 0) if else else end)");
  parse_error("(func (block end))");
}

TEST(Instructions, FoldedIf) {
  // Condition first, then the if; then/else arms.
  EXPECT_EQ(fn("(result i32) (if (result i32) (i32.const 1) (then (i32.const 2)) (else (i32.const 3)))"),
            (Bytes{0x41, 0x01, 0x04, 0x7F, 0x41, 0x02, 0x05, 0x41, 0x03, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(if (i32.const 0) (then))"), (Bytes{0x41, 0x00, 0x04, 0x40, 0x0B, 0x0B}));
  // The if's label is not in scope in its condition, but is in its arms.
  EXPECT_EQ(fn("(block $l (if $l (br_if $l (i32.const 0) (i32.const 1)) (then (br $l))))"),
            (Bytes{0x02, 0x40, 0x41, 0x00, 0x41, 0x01, 0x0D, 0x00, 0x04, 0x40, 0x0C, 0x00, 0x0B, 0x0B, 0x0B}));
  parse_error("(func (if (i32.const 0)))");
  parse_error("(func (if (i32.const 0) (else)))");
  parse_error("(func (then))");
}

TEST(Instructions, Calls) {
  Module m = parse_ok("(type $t (func (param i32))) (table $tab 1 funcref) (table 1 funcref)"
                      "(func (call_indirect (type $t) (i32.const 0) (i32.const 0))"
                      "      (call_indirect 1 (param i64) (result i32) (i64.const 0) (i32.const 0)) (drop)"
                      "      (call_indirect $tab (type 0) (param i32) (i32.const 0) (i32.const 0)))");
  ASSERT_EQ(m.types.size(), 3u);  // $t, the func's [] -> [], [i64] -> [i32]
  const FunctionBody& b = m.functions[0].body;
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 7), (Bytes{0x41, 0x00, 0x41, 0x00, 0x11, 0x00, 0x00}));
  EXPECT_EQ(Bytes(b.begin() + 11, b.begin() + 14), (Bytes{0x11, 0x02, 0x01}));
  parse_error("(func (call_indirect (param $x i32) (i32.const 0)))");
}

TEST(Instructions, Memargs) {
  EXPECT_EQ(fn("(drop (i32.load (i32.const 0)))"), (Bytes{0x41, 0x00, 0x28, 0x02, 0x00, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (i64.load8_u offset=0x10 align=1 (i32.const 0)))").at(2), 0x31);
  EXPECT_EQ(fn("(drop (i64.load offset=0x10 align=2 (i32.const 0)))"),
            (Bytes{0x41, 0x00, 0x29, 0x01, 0x10, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (i32.load offset=4294967295 (i32.const 0)))"),
            (Bytes{0x41, 0x00, 0x28, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (i32.load align=32 (i32.const 0)))").at(3), 5);  // over-alignment is the validator's
  parse_error("(func (drop (i32.load align=3 (i32.const 0))))");
  parse_error("(func (drop (i32.load align=0 (i32.const 0))))");
  // An offset beyond 32 bits: malformed in Wasm 2.0; with memory64 a u64,
  // which the validator holds to 32 bits on an i32 memory.
  parse_error("(func (drop (i32.load offset=4294967296 (i32.const 0))))", {.memory64 = false});
  EXPECT_EQ(body_of("(memory i64 1) (func (drop (i32.load offset=4294967296 (i64.const 0))))"),
            (std::vector<uint8_t>{0x42, 0x00, 0x28, 0x02, 0x80, 0x80, 0x80, 0x80, 0x10, 0x1A, 0x0B}));
  parse_error("(func (drop (i32.load offset=-1 (i32.const 0))))");
  parse_error("(func (drop (i32.load align=4 offset=0 (i32.const 0))))");
  EXPECT_EQ(fn("(memory.grow (i32.const 1)) (drop) (memory.size) (drop)"),
            (Bytes{0x41, 0x01, 0x40, 0x00, 0x1A, 0x3F, 0x00, 0x1A, 0x0B}));
}

TEST(Instructions, Constants) {
  EXPECT_EQ(fn("(drop (i32.const -1))"), (Bytes{0x41, 0x7F, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (i32.const 0xffffffff))"), (Bytes{0x41, 0x7F, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (i64.const 0x8000_0000_0000_0000))"),
            (Bytes{0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (f32.const -nan:0x1))"), (Bytes{0x43, 0x01, 0x00, 0x80, 0xFF, 0x1A, 0x0B}));
  EXPECT_EQ(fn("(drop (f64.const 0x1p-1074))"), (Bytes{0x44, 1, 0, 0, 0, 0, 0, 0, 0, 0x1A, 0x0B}));
  parse_error("(func (drop (i32.const 0x100000000)))");
  parse_error("(func (drop (i32.const 1.0)))");
  parse_error("(func (drop (f32.const 1e40)))");
  parse_error("(func (drop (i32.const0)))");
  parse_error("(func (drop (i32.const)))");
}

TEST(Instructions, ReferencesAndSelect) {
  Module m = parse_ok("(func $f (ref.func $f) (drop) (ref.null extern) (ref.is_null) (drop)"
                      " (select (result i32) (i32.const 1) (i32.const 2) (i32.const 0)) (drop)"
                      " (select (i32.const 1) (i32.const 2) (i32.const 0)) (drop))");
  EXPECT_EQ(m.functions[0].body, (Bytes{0xD2, 0x00, 0x1A, 0xD0, 0x6F, 0xD1, 0x1A, 0x41, 0x01, 0x41, 0x02, 0x41,
                                        0x00, 0x1C, 0x01, 0x7F, 0x1A, 0x41, 0x01, 0x41, 0x02, 0x41, 0x00, 0x1B,
                                        0x1A, 0x0B}));
  parse_error("(func (ref.null any))");
}

TEST(Instructions, TableInstructions) {
  Module m = parse_ok("(table $a 1 funcref) (table $b 1 funcref) (elem $e func)"
                      "(func (table.copy (i32.const 0) (i32.const 0) (i32.const 0))"
                      "      (table.copy $a $b (i32.const 0) (i32.const 0) (i32.const 0))"
                      "      (table.init $e (i32.const 0) (i32.const 0) (i32.const 0))"
                      "      (drop (table.size $b)) (drop (table.size)))");
  const FunctionBody& b = m.functions[0].body;
  EXPECT_EQ(Bytes(b.begin() + 6, b.begin() + 10), (Bytes{0xFC, 0x0E, 0x00, 0x00}));
  EXPECT_EQ(Bytes(b.begin() + 16, b.begin() + 20), (Bytes{0xFC, 0x0E, 0x00, 0x01}));
  EXPECT_EQ(Bytes(b.begin() + 26, b.begin() + 30), (Bytes{0xFC, 0x0C, 0x00, 0x00}));
  EXPECT_EQ(Bytes(b.begin() + 30, b.end()), (Bytes{0xFC, 0x10, 0x01, 0x1A, 0xFC, 0x10, 0x00, 0x1A, 0x0B}));
}

TEST(Instructions, Simd) {
  Bytes b = fn("(drop (v128.const i32x4 1 -1 0x10 0xffffffff))");
  ASSERT_EQ(b.size(), 20u);
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 2), (Bytes{0xFD, 0x0C}));
  EXPECT_EQ(Bytes(b.begin() + 2, b.begin() + 18),
            (Bytes{1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(fn("(drop (v128.const f32x4 1 -0 nan inf))").size(), 20u);
  EXPECT_EQ(fn("(drop (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 -128))").at(17), 0x80);
  EXPECT_EQ(fn("(drop (v128.const i64x2 -1 0))").at(2), 0xFF);
  EXPECT_EQ(fn("(drop (v128.const f64x2 0x1p0 0))").at(9), 0x3F);
  parse_error("(func (drop (v128.const i32x4 1 2 3)))");
  parse_error("(func (drop (v128.const i32x4 1 2 3 4 5)))");
  parse_error("(func (drop (v128.const i8x16 256 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0)))");
  parse_error("(func (drop (v128.const 1 2 3 4)))");
  // Lane immediates: u8 syntax here, range by the validator.
  EXPECT_EQ(fn("(drop (i8x16.extract_lane_u 15 (v128.const i64x2 0 0)))").at(20), 15);
  EXPECT_EQ(fn("(drop (i8x16.extract_lane_u 255 (v128.const i64x2 0 0)))").at(20), 255);
  parse_error("(func (drop (i8x16.extract_lane_u 256 (v128.const i64x2 0 0))))");
  parse_error("(func (drop (i8x16.extract_lane_u -1 (v128.const i64x2 0 0))))");
  Bytes s = fn("(drop (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 31 (v128.const i64x2 0 0) "
               "(v128.const i64x2 0 0)))");
  EXPECT_EQ(Bytes(s.begin() + 36, s.begin() + 38), (Bytes{0xFD, 0x0D}));
  EXPECT_EQ(s.at(53), 31);
  parse_error("(func (drop (i8x16.shuffle 0 1 2 (v128.const i64x2 0 0) (v128.const i64x2 0 0))))");
  // memarg + lane; the SIMD opcode is a u32 LEB after 0xFD.
  Bytes l = fn("(drop (v128.load8_lane offset=2 align=1 3 (i32.const 0) (v128.const i64x2 0 0)))");
  EXPECT_EQ(Bytes(l.begin() + 20, l.begin() + 26), (Bytes{0xFD, 0x54, 0x00, 0x02, 0x03, 0x1A}));
  EXPECT_EQ(fn("(drop (i32x4.dot_i16x8_s (v128.const i64x2 0 0) (v128.const i64x2 0 0)))").at(37), 0xBA);
  EXPECT_EQ(fn("(drop (i32x4.dot_i16x8_s (v128.const i64x2 0 0) (v128.const i64x2 0 0)))").at(38), 0x01);
}

TEST(Instructions, UnknownOperators) {
  EXPECT_NE(parse_error("(func (get_local 0))").message.find("unknown operator get_local"), std::string::npos);
  parse_error("(func nop0)");
  parse_error("(func br 0drop)");
  parse_error("(func $f \"a\")");
}

TEST(Instructions, DeepNestingFailsCleanly) {
  std::string folded = "(func ";
  for (int i = 0; i < 100000; ++i) folded += "(block ";
  folded += std::string(100000, ')') + ")";
  Error e = parse_error(folded);
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos);

  std::string plain = "(func ";
  for (int i = 0; i < 100000; ++i) plain += "block ";
  for (int i = 0; i < 100000; ++i) plain += "end ";
  plain += ")";
  EXPECT_EQ(parse_ok(plain).functions[0].body.size(), 300001u);

  std::string ok = "(func ";
  for (int i = 0; i < 2000; ++i) ok += "(block ";
  ok += std::string(2000, ')') + ")";
  parse_ok(ok);
}

}  // namespace
}  // namespace weft::text
