// The fiber extension's text format (docs/fibers.md §3.1): fiber types,
// reference value types, tags, handle/event (plain, folded, function-level),
// fiber instructions, WAST values; plain and folded forms encode the same,
// modules round-trip through the binary writer and decoder, and malformed
// text is rejected.
#include <gtest/gtest.h>

#include "tests/binary/test_util.h"
#include "test_util.h"
#include "text/wast.h"

namespace weft::text {
namespace {

using namespace testing;

const ValType i32 = ValType::i32();
const ValType kFiberRef{ValType::FiberRef, true, 0};
ValType typed(uint32_t index, bool nullable = true) { return ValType{ValType::TypedRef, nullable, index}; }

std::string message_of(std::string_view src) { return parse_error(src).message; }

// text → Module → binary → Module gives the same Module (the writer adds a
// name section for the text's function names), which round-trips again.
::testing::AssertionResult RoundTripsThroughBinary(std::string_view src) {
  Result<Module> parsed = parse_module(src);
  if (!parsed.ok()) return ::testing::AssertionFailure() << parsed.error().to_string();
  Result<Module> back = binary::decode_module(binary::write_module(*parsed));
  if (!back.ok()) return ::testing::AssertionFailure() << "decode: " << back.error().to_string();
  Module stripped = *back;
  std::erase_if(stripped.customs, [](const CustomSection& c) { return c.name == "name"; });
  ::testing::AssertionResult eq = binary::test::ModulesEqual(*parsed, stripped);
  if (!eq) return eq;
  return binary::test::RoundTrips(*back);
}

// The worked example of docs/fibers.md §11 (the proposal's generator, corrected).
constexpr std::string_view kGenerator = R"((module
  (type $gen (fiber))
  (tag $identify (param (ref $gen)))
  (tag $yield (param i32))
  (tag $next)
  (memory 1)
  (data (i32.const 0) "\01\00\00\00\02\00\00\00\03\00\00\00")

  (func $arrayGenerator (param $self (ref $gen)) (param $count i32) (param $els i32)
    (local $ix i32)
    (handle
      (fiber.suspend $identify (local.get $self) (local.get $self))
      (event $next))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $ix) (local.get $count)))
        (handle
          (fiber.suspend $yield (local.get $self)
            (i32.load (i32.add (local.get $els) (i32.shl (local.get $ix) (i32.const 2)))))
          (event $next
            (local.set $ix (i32.add (local.get $ix) (i32.const 1)))
            (br $l))))))

  (func (export "sum") (param $count i32) (param $els i32) (result i32)
    (local $g (ref null $gen))
    (local $total i32)
    (handle
      (fiber.spawn $arrayGenerator (local.get $count) (local.get $els))
      (unreachable)
      (event $identify (local.set $g)))
    (block $done
      (loop $l
        (handle
          (fiber.resume $gen $next (local.get $g))
          (br $done)
          (event $yield
            (local.set $total (i32.add (local.get $total)))
            (br $l)))))
    (local.get $total)))
)";

// The same module in plain instructions.
constexpr std::string_view kGeneratorPlain = R"((module
  (type $gen (fiber))
  (tag $identify (param (ref $gen)))
  (tag $yield (param i32))
  (tag $next)
  (memory 1)
  (data (i32.const 0) "\01\00\00\00\02\00\00\00\03\00\00\00")

  (func $arrayGenerator (param $self (ref $gen)) (param $count i32) (param $els i32)
    (local $ix i32)
    handle
      local.get $self
      local.get $self
      fiber.suspend $identify
    event $next
    end
    block $done
      loop $l
        local.get $ix
        local.get $count
        i32.ge_u
        br_if $done
        handle $h
          local.get $self
          local.get $els
          local.get $ix
          i32.const 2
          i32.shl
          i32.add
          i32.load
          fiber.suspend $yield
        event $h $next
          local.get $ix
          i32.const 1
          i32.add
          local.set $ix
          br $l
        end $h
      end $l
    end $done)

  (func (export "sum") (param $count i32) (param $els i32) (result i32)
    (local $g (ref null $gen))
    (local $total i32)
    handle
      local.get $count
      local.get $els
      fiber.spawn $arrayGenerator
      unreachable
    event $identify (param (ref $gen))
      local.set $g
    end
    block $done
      loop $l
        handle
          local.get $g
          fiber.resume $gen $next
          br $done
        event $yield (param i32)
          local.get $total
          i32.add
          local.set $total
          br $l
        end
      end
    end
    local.get $total))
)";

TEST(FiberText, WorkedExample) {
  Module m = parse_ok(kGenerator);
  ASSERT_EQ(m.types.size(), 6u);
  EXPECT_EQ(m.types[0], (FuncType{{}, {}, true}));  // $gen
  EXPECT_EQ(m.types[1], (FuncType{{typed(0, false)}, {}}));  // $identify's
  EXPECT_EQ(m.types[4], (FuncType{{typed(0, false), i32, i32}, {}}));
  ASSERT_EQ(m.tags.size(), 3u);
  EXPECT_EQ(m.tags[0].type_index, 1u);
  EXPECT_EQ(m.tags[1].type_index, 2u);
  EXPECT_EQ(m.tags[2].type_index, 3u);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].body,
            (Bytes{0xFA, 0x00, 0x40,                          // handle
                   0x20, 0x00, 0x20, 0x00, 0xFA, 0x05, 0x00,  //   fiber.suspend $identify
                   0xFA, 0x01, 0x02,                          // event $next
                   0x0B,                                      // end
                   0x02, 0x40, 0x03, 0x40,                    // block $done loop $l
                   0x20, 0x03, 0x20, 0x01, 0x4F, 0x0D, 0x01,  //   br_if $done
                   0xFA, 0x00, 0x40,                          //   handle
                   0x20, 0x00, 0x20, 0x02, 0x20, 0x03, 0x41, 0x02, 0x74, 0x6A, 0x28, 0x02, 0x00,
                   0xFA, 0x05, 0x01,                          //     fiber.suspend $yield
                   0xFA, 0x01, 0x02,                          //   event $next
                   0x20, 0x03, 0x41, 0x01, 0x6A, 0x21, 0x03,  //     local.set $ix
                   0x0C, 0x01,                                //     br $l (the handle is label 0)
                   0x0B, 0x0B, 0x0B, 0x0B}));
  EXPECT_EQ(m.functions[1].locals, (std::vector<LocalGroup>{{1, typed(0)}, {1, i32}}));
  EXPECT_EQ(m.functions[1].body,
            (Bytes{0xFA, 0x00, 0x40,                          // handle
                   0x20, 0x00, 0x20, 0x01, 0xFA, 0x03, 0x00,  //   fiber.spawn $arrayGenerator
                   0x00,                                      //   unreachable
                   0xFA, 0x01, 0x00, 0x21, 0x02,              // event $identify local.set $g
                   0x0B,                                      // end
                   0x02, 0x40, 0x03, 0x40, 0xFA, 0x00, 0x40,  // block loop handle
                   0x20, 0x02, 0xFA, 0x04, 0x00, 0x02,        //   fiber.resume $gen $next
                   0x0C, 0x02,                                //   br $done
                   0xFA, 0x01, 0x01,                          // event $yield
                   0x20, 0x03, 0x6A, 0x21, 0x03, 0x0C, 0x01,  //   local.set $total, br $l
                   0x0B, 0x0B, 0x0B, 0x20, 0x03, 0x0B}));
  Module plain = parse_ok(kGeneratorPlain);
  EXPECT_TRUE(binary::test::ModulesEqual(m, plain));
  EXPECT_TRUE(RoundTripsThroughBinary(kGenerator));

  // As a script, with its assertion.
  Result<WastScript> s = parse_wast(std::string(kGenerator) +
                                    "(assert_return (invoke \"sum\" (i32.const 3) (i32.const 0)) (i32.const 6))");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->commands.size(), 2u);
  EXPECT_TRUE(binary::test::ModulesEqual(s->commands[0].module->module, m));
}

// Green threads: fibers in a table, function-level clauses, switch and retire.
constexpr std::string_view kGreenThreads = R"((module
  (type $thread (fiber))
  (tag $go)
  (tag $done (param i32))
  (table $ready 8 (ref null $thread))
  (global $current (mut (ref null $thread)) (ref.null $thread))
  (func $thread (param $self (ref $thread)) (param $next i32)
    (global.set $current (local.get $self))
    (fiber.switch $thread $go (local.get $self) (table.get $ready (local.get $next)))
    (event $go
      (fiber.retire $done (local.get $self) (local.get $next))))
  (func (export "run") (result i32)
    (table.set $ready (i32.const 0) (fiber.new $thread (i32.const 1)))
    (table.set $ready (i32.const 1) (fiber.new $thread (i32.const 0)))
    (handle $h (result i32)
      (fiber.resume $thread $go (table.get $ready (i32.const 0)))
      (i32.const 0)
      (event $h $done (param i32))))
  (func (export "cleanup")
    (fiber.release (table.get $ready (i32.const 0)))
    (fiber.release (table.get $ready (i32.const 1)))))
)";

constexpr std::string_view kGreenThreadsPlain = R"((module
  (type $thread (fiber))
  (tag $go)
  (tag $done (param i32))
  (table $ready 8 (ref null $thread))
  (global $current (mut (ref null $thread)) (ref.null $thread))
  (func $thread (param $self (ref $thread)) (param $next i32)
    local.get $self
    global.set $current
    local.get $self
    local.get $next
    table.get $ready
    fiber.switch $thread $go
    event $go
    local.get $self
    local.get $next
    fiber.retire $done)
  (func (export "run") (result i32)
    i32.const 0
    i32.const 1
    fiber.new $thread
    table.set $ready
    i32.const 1
    i32.const 0
    fiber.new $thread
    table.set $ready
    handle $h (result i32)
      i32.const 0
      table.get $ready
      fiber.resume $thread $go
      i32.const 0
    event $done
    end $h)
  (func (export "cleanup")
    i32.const 0
    table.get $ready
    fiber.release
    i32.const 1
    table.get $ready
    fiber.release))
)";

TEST(FiberText, GreenThreads) {
  Module m = parse_ok(kGreenThreads);
  ASSERT_EQ(m.tables.size(), 1u);
  EXPECT_EQ(m.tables[0].type.element, typed(0));
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].type, (GlobalType{typed(0), true}));
  EXPECT_EQ(m.globals[0].init.code, (Bytes{0xD0, 0x00, 0x0B}));
  EXPECT_EQ(m.functions[0].body,
            (Bytes{0x20, 0x00, 0x24, 0x00,                    // global.set $current
                   0x20, 0x00, 0x20, 0x01, 0x25, 0x00,        // self, table.get $ready
                   0xFA, 0x07, 0x00, 0x00,                    // fiber.switch $thread $go
                   0xFA, 0x01, 0x00,                          // event $go (function level)
                   0x20, 0x00, 0x20, 0x01, 0xFA, 0x08, 0x01,  // fiber.retire $done
                   0x0B}));
  EXPECT_EQ(m.functions[1].body,
            (Bytes{0x41, 0x00, 0x41, 0x01, 0xFA, 0x02, 0x00, 0x26, 0x00,  // table.set (fiber.new)
                   0x41, 0x01, 0x41, 0x00, 0xFA, 0x02, 0x00, 0x26, 0x00,  //
                   0xFA, 0x00, 0x7F,                                      // handle (result i32)
                   0x41, 0x00, 0x25, 0x00, 0xFA, 0x04, 0x00, 0x00,        //   fiber.resume $thread $go
                   0x41, 0x00,                                            //
                   0xFA, 0x01, 0x01,                                      // event $done
                   0x0B, 0x0B}));
  EXPECT_EQ(m.functions[2].body,
            (Bytes{0x41, 0x00, 0x25, 0x00, 0xFA, 0x0A, 0x41, 0x01, 0x25, 0x00, 0xFA, 0x0A, 0x0B}));
  EXPECT_TRUE(binary::test::ModulesEqual(m, parse_ok(kGreenThreadsPlain)));
  EXPECT_TRUE(RoundTripsThroughBinary(kGreenThreads));
}

// ---------------------------------------------------------------------------
// Types

TEST(FiberText, FiberTypes) {
  Module m = parse_ok("(type $g (fiber (result i32))) (type $h (fiber)) (type (fiber (result i32) (result i64 f32)))"
                      "(func (result i32) unreachable)");
  ASSERT_EQ(m.types.size(), 4u);
  EXPECT_EQ(m.types[0], (FuncType{{}, {i32}, true}));
  EXPECT_EQ(m.types[1], (FuncType{{}, {}, true}));
  EXPECT_EQ(m.types[2], (FuncType{{}, {i32, ValType::i64(), ValType::f32()}, true}));
  // An implicit function type never matches a fiber type of the same shape.
  EXPECT_EQ(m.types[3], (FuncType{{}, {i32}}));
  EXPECT_EQ(m.functions[0].type_index, 3u);
  // Type definitions may refer to later ones.
  Module fwd = parse_ok("(type $f (func (param (ref $g)) (result (ref null $g)))) (type $g (fiber))");
  EXPECT_EQ(fwd.types[0], (FuncType{{typed(1, false)}, {typed(1)}}));
  EXPECT_TRUE(RoundTripsThroughBinary("(type $g (fiber (result i32))) (type (fiber))"));

  EXPECT_NE(message_of("(type $g (fiber (param i32)))").find("a fiber type has no params"), std::string::npos);
  parse_error("(type $g (fiber (result i32) (param i32)))");
  parse_error("(type $g (fiber (param $x i32)))");
  parse_error("(type $g (fiber i32))");
  parse_error("(type $g (fiber (result i32)) extra)");
  parse_error("(type $g (fibre))");
  parse_error("(type $g fiber)");
  parse_error("(type $g (fiber)) (type $g (fiber))");  // duplicate id
}

TEST(FiberText, ReferenceValueTypes) {
  Module m = parse_ok(R"((type $g (fiber))
    (func (param (ref $g) (ref null $g) (ref fiber) (ref null fiber) fiberref (ref 0))
          (param (ref func) (ref null func) (ref extern) (ref null extern))
          (result (ref null $g))
      (local $a (ref null $g)) (local fiberref (ref null fiber))
      unreachable))");
  ASSERT_EQ(m.types.size(), 2u);
  EXPECT_EQ(m.types[1].params,
            (std::vector<ValType>{typed(0, false), typed(0), ValType{ValType::FiberRef, false, 0}, kFiberRef, kFiberRef,
                                  typed(0, false), ValType{ValType::FuncRef, false, 0}, ValType::funcref(),
                                  ValType{ValType::ExternRef, false, 0}, ValType::externref()}));
  EXPECT_EQ(m.types[1].results, std::vector<ValType>{typed(0)});
  EXPECT_EQ(m.functions[0].locals, (std::vector<LocalGroup>{{1, typed(0)}, {2, kFiberRef}}));

  EXPECT_NE(message_of("(func (param (ref $nope)))").find("unknown type $nope"), std::string::npos);
  parse_error("(func (param (ref)))");
  parse_error("(func (param (ref null)))");
  parse_error("(func (param (ref null null fiber)))");
  parse_error("(func (param (ref fiber extra)))");
  parse_error("(func (param (ref i32)))");
  parse_error("(func (param (ref null fiberref)))");
  parse_error("(func (param ref fiber))");
  parse_error("(func (param (fiberref)))");
}

TEST(FiberText, TablesGlobalsElems) {
  Module m = parse_ok(R"((type $g (fiber))
    (global $c (import "m" "c") (ref null $g))
    (table $t 2 fiberref)
    (table $u 1 5 (ref null $g))
    (table $v (ref null $g) (elem (ref.null $g) (ref.null 0)))
    (table $w fiberref (elem (ref.null fiber)))
    (global $a (mut fiberref) (ref.null fiber))
    (global $b (ref null $g) (ref.null $g))
    (elem $p (ref null $g) (ref.null $g))
    (elem $q declare (ref null fiber) (ref.null fiber))
    (elem $r (table $u) (i32.const 0) (ref null $g) (item (ref.null $g)))
    (func (table.get $u (i32.const 0)) (table.set $t) (elem.drop $p)))");
  ASSERT_EQ(m.tables.size(), 4u);
  EXPECT_EQ(m.tables[0].type.element, kFiberRef);
  EXPECT_EQ(m.tables[1].type, (TableType{typed(0), Limits{1, 5}}));
  EXPECT_EQ(m.tables[2].type, (TableType{typed(0), Limits{2, 2}}));
  EXPECT_EQ(m.tables[3].type, (TableType{kFiberRef, Limits{1, 1}}));
  ASSERT_EQ(m.imports.size(), 1u);
  EXPECT_EQ(m.imports[0].global, (GlobalType{typed(0), false}));
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_EQ(m.globals[0].type, (GlobalType{kFiberRef, true}));
  EXPECT_EQ(m.globals[0].init.code, (Bytes{0xD0, 0x5B, 0x0B}));
  EXPECT_EQ(m.globals[1].init.code, (Bytes{0xD0, 0x00, 0x0B}));
  ASSERT_EQ(m.elems.size(), 5u);  // the two inline ones first
  EXPECT_EQ(m.elems[0].type, typed(0));
  EXPECT_EQ(m.elems[0].items.size(), 2u);
  EXPECT_EQ(m.elems[1].type, kFiberRef);
  EXPECT_EQ(m.elems[2].mode, SegmentMode::Passive);
  EXPECT_EQ(m.elems[2].type, typed(0));
  EXPECT_EQ(m.elems[3].mode, SegmentMode::Declarative);
  EXPECT_EQ(m.elems[4].mode, SegmentMode::Active);
  EXPECT_EQ(m.elems[4].table, 1u);
  // elem.drop $p: the inline segments took indices 0 and 1.
  EXPECT_EQ(m.functions[0].body, (Bytes{0x41, 0x00, 0x25, 0x01, 0x26, 0x00, 0xFC, 0x0D, 0x02, 0x0B}));
  EXPECT_TRUE(binary::test::RoundTrips(m));
}

// ---------------------------------------------------------------------------
// Tags

TEST(FiberText, Tags) {
  Module m = parse_ok(R"((type $g (fiber))
    (import "m" "t0" (tag $i (param i32)))
    (tag $a (import "m" "t1") (param i32 (ref $g)))
    (tag $e (export "e") (export "e2") (param i32 (ref $g)))
    (tag $n)
    (tag $t (type $v))
    (type $v (func (param i64)))
    (export "n" (tag $n))
    (func (fiber.suspend $t (ref.null fiber) (i64.const 0))))");
  ASSERT_EQ(m.imports.size(), 2u);
  EXPECT_EQ(m.imports[0].kind, ExternKind::Tag);
  EXPECT_EQ(m.imports[1].kind, ExternKind::Tag);
  EXPECT_EQ(m.imports[0].type_index, 2u);  // implicit [i32] -> [] after the two explicit types
  EXPECT_EQ(m.imports[1].type_index, 3u);
  EXPECT_EQ(m.types[3], (FuncType{{i32, typed(0, false)}, {}}));
  ASSERT_EQ(m.tags.size(), 3u);
  EXPECT_EQ(m.tags[0].type_index, 3u);
  EXPECT_EQ(m.tags[2].type_index, 1u);
  ASSERT_EQ(m.exports.size(), 3u);
  EXPECT_EQ(m.exports[0], (Export{"e", ExternKind::Tag, 2}));
  EXPECT_EQ(m.exports[1], (Export{"e2", ExternKind::Tag, 2}));
  EXPECT_EQ(m.exports[2], (Export{"n", ExternKind::Tag, 3}));
  EXPECT_EQ(m.functions[0].body, (Bytes{0xD0, 0x5B, 0x42, 0x00, 0xFA, 0x05, 0x04, 0x0B}));
  EXPECT_TRUE(binary::test::RoundTrips(m));

  parse_error("(tag $e) (tag $e)");
  parse_error("(tag $e (param i32)) (import \"m\" \"t\" (tag))");  // import after a definition
  EXPECT_NE(message_of("(export \"x\" (tag $nope))").find("unknown tag $nope"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Instructions

// The body of function `index` after a prelude: type 0 = $g (fiber (result i32)),
// tags $e (param i32) and $f, types 1 = [i32] -> [] and 2 = [] -> [].
Bytes fn(std::string_view text, size_t index = 0) {
  return body_of("(type $g (fiber (result i32))) (tag $e (param i32)) (tag $f) " + std::string(text), index);
}

TEST(FiberText, FiberInstructionsPlainAndFolded) {
  struct Case {
    const char* plain;
    const char* folded;
    Bytes bytes;
  };
  const Case cases[] = {
      {"fiber.new $w", "(fiber.new $w (i32.const 1))", {0xFA, 0x02, 0x00}},
      {"fiber.spawn $w", "(fiber.spawn $w (i32.const 1))", {0xFA, 0x03, 0x00}},
      {"fiber.resume $g $e", "(fiber.resume $g $e (ref.null $g) (i32.const 1))", {0xFA, 0x04, 0x00, 0x00}},
      {"fiber.suspend $f", "(fiber.suspend $f (ref.null fiber))", {0xFA, 0x05, 0x01}},
      {"fiber.suspend_to $g $e", "(fiber.suspend_to $g $e (ref.null $g) (i32.const 1))", {0xFA, 0x06, 0x00, 0x00}},
      {"fiber.switch 0 1", "(fiber.switch $g $f (ref.null $g) (ref.null $g))", {0xFA, 0x07, 0x00, 0x01}},
      {"fiber.retire $e", "(fiber.retire $e (ref.null fiber) (i32.const 1))", {0xFA, 0x08, 0x00}},
      {"fiber.retireto $g $f", "(fiber.retireto $g $f (ref.null $g) (ref.null $g))", {0xFA, 0x09, 0x00, 0x01}},
      {"fiber.release", "(fiber.release (ref.null fiber))", {0xFA, 0x0A}},
  };
  const std::string w = "(func $w (param (ref $g)) (param i32) (result i32) unreachable) ";
  for (const Case& c : cases) {
    Bytes plain = fn(w + "(func " + c.plain + ")", 1);
    EXPECT_EQ(plain, binary::test::cat({c.bytes, {0x0B}})) << c.plain;
    Bytes folded = fn(w + "(func " + c.folded + ")", 1);
    ASSERT_GE(folded.size(), c.bytes.size() + 1) << c.folded;
    EXPECT_EQ(Bytes(folded.end() - long(c.bytes.size()) - 1, folded.end() - 1), c.bytes) << c.folded;
  }
  // Operands of folded forms come first.
  EXPECT_EQ(fn("(func (param $self (ref $g)) (fiber.suspend $e (local.get $self) (i32.const 7)))"),
            (Bytes{0x20, 0x00, 0x41, 0x07, 0xFA, 0x05, 0x00, 0x0B}));
  EXPECT_NE(message_of("(tag $e) (func fiber.suspend $nope)").find("unknown tag $nope"), std::string::npos);
  EXPECT_NE(message_of("(func fiber.resume $nope 0)").find("unknown type $nope"), std::string::npos);
  EXPECT_NE(message_of("(func fiber.new $nope)").find("unknown function $nope"), std::string::npos);
  parse_error("(type $g (fiber)) (tag $e) (func fiber.resume $g)");  // missing tag
  parse_error("(type $g (fiber)) (tag $e) (func fiber.resume $e $g)");  // immediates in the wrong order
  parse_error("(func fiber.release 0)");
}

TEST(FiberText, HandlePlainAndFolded) {
  const Bytes expected = {0xFA, 0x00, 0x7F,              // handle (result i32)
                          0x41, 0x01,                    //   i32.const 1
                          0xFA, 0x01, 0x00,              // event $e
                          0xFA, 0x01, 0x01, 0x41, 0x02,  // event $f i32.const 2
                          0x0B, 0x1A, 0x0B};
  EXPECT_EQ(fn("(func handle (result i32) i32.const 1 event $e event $f i32.const 2 end drop)"), expected);
  EXPECT_EQ(fn("(func (handle (result i32) (i32.const 1) (event $e) (event $f (i32.const 2))) drop)"), expected);
  // Params may be repeated on a clause; labels on handle, end and clauses.
  EXPECT_EQ(fn("(func handle $h (result i32) i32.const 1 event $h $e (param i32) event $f i32.const 2 end $h drop)"),
            expected);
  EXPECT_EQ(fn("(func (handle $h (result i32) (i32.const 1) (event $h $e (param i32)) (event $h $f (i32.const 2)))"
               " drop)"),
            expected);
  EXPECT_EQ(fn("(func (handle (result i32) (i32.const 1) (event 0 (param) (param i32)) (event 1 (i32.const 2))) drop)"),
            expected);
  // A folded clause inside a plain handle.
  EXPECT_EQ(fn("(func handle (result i32) i32.const 1 (event $e) (event $f i32.const 2) end drop)"), expected);
  // Block types: params and type uses by type index; one result inline, also
  // a reference type of several bytes (as wat2wasm writes it).
  Module m = parse_ok("(type $g (fiber)) (tag $e) (func (param i32)"
                      " (local.get 0) (handle (param i32) (result i32) (event $e (i32.const 0))) drop"
                      " (handle (result (ref null $g)) (ref.null $g)) drop"
                      " (handle (result fiberref) (ref.null fiber)) drop)");
  ASSERT_EQ(m.types.size(), 4u);
  EXPECT_EQ(m.types[3], (FuncType{{i32}, {i32}}));
  EXPECT_EQ(m.functions[0].body, (Bytes{0x20, 0x00, 0xFA, 0x00, 0x03, 0xFA, 0x01, 0x00, 0x41, 0x00, 0x0B, 0x1A,
                                        0xFA, 0x00, 0x63, 0x00, 0xD0, 0x00, 0x0B, 0x1A,  //
                                        0xFA, 0x00, 0x5B, 0xD0, 0x5B, 0x0B, 0x1A, 0x0B}));
  // Labels: branches to the handle from its body and from a clause.
  EXPECT_EQ(fn("(func block $b (handle $h (br $h) (br $b) (event $f (br $h) (br $b) (br 0))) end)"),
            (Bytes{0x02, 0x40, 0xFA, 0x00, 0x40, 0x0C, 0x00, 0x0C, 0x01, 0xFA, 0x01, 0x01, 0x0C, 0x00, 0x0C, 0x01,
                   0x0C, 0x00, 0x0B, 0x0B, 0x0B}));
  // Nested handles: a clause's instructions may hold another handle with clauses.
  EXPECT_EQ(fn("(func (handle (event $f (handle (event $f)))))"),
            (Bytes{0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0x0B, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(func handle event $f handle event $f end end)"),
            (Bytes{0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0x0B, 0x0B, 0x0B}));
  // A clause outside a handle is the validator's to reject ("event clause
  // outside handle"): the text encodes it.
  EXPECT_EQ(fn("(func (block (event $f)))"), (Bytes{0x02, 0x40, 0xFA, 0x01, 0x01, 0x0B, 0x0B}));
}

TEST(FiberText, ClauseLabelsAreAliasesOfTheHandleLabel) {
  // The handle's own label, or another name for it, in the clause's instructions.
  const Bytes expected = {0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0x0C, 0x00, 0xFA, 0x01, 0x00, 0x0C, 0x00, 0x0B, 0x0B};
  EXPECT_EQ(fn("(func handle $h event $h $f br $h event $e br $h end $h)"), expected);
  EXPECT_EQ(fn("(func handle $h event $a $f br $a event $b $e br $b end $h)"), expected);
  EXPECT_EQ(fn("(func handle event $a $f br $a event $b $e br 0 end)"), expected);
  EXPECT_EQ(fn("(func (handle (event $a $f (br $a)) (event $b 0 (br $b))))"), expected);
  // From nested blocks inside the clause, and shadowing an outer label.
  EXPECT_EQ(fn("(func block $a (handle (event $a $f (block (br $a)))) end)"),
            (Bytes{0x02, 0x40, 0xFA, 0x00, 0x40, 0xFA, 0x01, 0x01, 0x02, 0x40, 0x0C, 0x01, 0x0B, 0x0B, 0x0B, 0x0B}));
  // At function level the alias names the function's label.
  EXPECT_EQ(fn("(func (block (event $ret $f (br $ret))))"),
            (Bytes{0x02, 0x40, 0xFA, 0x01, 0x01, 0x0C, 0x00, 0x0B, 0x0B}));
  EXPECT_EQ(fn("(func (event $ret $f (block (br $ret))))"),
            (Bytes{0xFA, 0x01, 0x01, 0x02, 0x40, 0x0C, 0x01, 0x0B, 0x0B}));
}

TEST(FiberText, FunctionLevelClauses) {
  const Bytes expected = {0x41, 0x01, 0xFA, 0x01, 0x00, 0xFA, 0x01, 0x01, 0x41, 0x02, 0x0B};
  EXPECT_EQ(fn("(func (result i32) i32.const 1 event $e event $f i32.const 2)"), expected);
  EXPECT_EQ(fn("(func (result i32) (i32.const 1) (event $e) (event $f (i32.const 2)))"), expected);
  EXPECT_EQ(fn("(func (result i32) (i32.const 1) (event $e (param i32)) (event $f i32.const 2))"), expected);
  // Inside a clause a branch to depth 0 leaves the function.
  EXPECT_EQ(fn("(func (event $f (br 0)))"), (Bytes{0xFA, 0x01, 0x01, 0x0C, 0x00, 0x0B}));
}

TEST(FiberText, MalformedClauses) {
  // Params that are not the tag's, also when the tag comes later.
  EXPECT_NE(message_of("(tag $e (param i32)) (func handle event $e (param i64) end)")
                .find("inline type mismatch: event clause params are not those of tag $e"),
            std::string::npos);
  parse_error("(func handle event $e (param i64) end) (tag $e (param i32))");
  parse_error("(func (event $e (param))) (tag $e (param i32))");
  parse_error("(type $g (fiber)) (func (event $e (param (ref null $g)))) (tag $e (param (ref $g)))");
  parse_error("(tag $e (param i32)) (func (event $e (param $x i32)))");
  parse_ok("(func handle event $e (param i32) end) (tag $e (param i32))");
  parse_ok("(type $g (fiber)) (func (event $e (param (ref $g) i32))) (tag $e (param (ref $g)) (param i32))");
  // Unknown tags.
  EXPECT_NE(message_of("(func handle event $nope end)").find("unknown tag $nope"), std::string::npos);
  parse_error("(func (handle (event $nope)))");
  parse_error("(func (handle (event)))");
  parse_error("(tag $e) (func handle event end)");
  // A clause label is an alias only inside its clause.
  EXPECT_NE(message_of("(tag $e) (tag $f) (func (handle (event $x $e) (event $f (br $x))))").find("unknown label $x"),
            std::string::npos);
  parse_error("(tag $e) (tag $f) (func handle $h event $x $e event $f br $x end)");
  parse_error("(tag $e) (func (block (handle (event $x $e))) (br $x))");
  parse_error("(tag $e) (func handle $h event $e end $x)");
  // Folded clauses come last in their handle or function.
  parse_error("(tag $e) (func (handle (event $e) (nop)))");
  parse_error("(tag $e) (func (handle (event $e) nop))");
  parse_error("(tag $e) (func (event $e) (nop))");
  parse_error("(tag $e) (func (handle (event $e) event $e))");
  // A clause directly inside a clause would be its sibling.
  parse_error("(tag $e) (func (handle (event $e (event $e))))");
  parse_error("(tag $e) (func (handle (event $e nop event $e)))");
  // Clauses are no operands or constant expressions.
  parse_error("(tag $e) (func (drop (event $e)))");
  parse_error("(tag $e) (func (if (event $e) (then)))");
  parse_error("(tag $e) (global i32 (event $e))");
  // Plain handles need their end; end labels must match.
  parse_error("(tag $e) (func handle event $e)");
  parse_error("(tag $e) (func (handle) end)");
  parse_error("(tag $e) (func handle $h event $e end $x)");
  parse_error("(tag $e) (func handle else end)");
}

TEST(FiberText, RefNullSelectAndBlocks) {
  EXPECT_EQ(fn("(func (ref.null fiber) (ref.null $g) (ref.null 0) (ref.null func) (ref.null extern)"
               " drop drop drop drop ref.is_null drop)"),
            (Bytes{0xD0, 0x5B, 0xD0, 0x00, 0xD0, 0x00, 0xD0, 0x70, 0xD0, 0x6F, 0x1A, 0x1A, 0x1A, 0x1A, 0xD1, 0x1A,
                   0x0B}));
  EXPECT_EQ(fn("(func (select (result (ref null $g)) (ref.null $g) (ref.null $g) (i32.const 1)) drop"
               " (select (result fiberref) (ref.null fiber) (ref.null fiber) (i32.const 1)) drop)"),
            (Bytes{0xD0, 0x00, 0xD0, 0x00, 0x41, 0x01, 0x1C, 0x01, 0x63, 0x00, 0x1A,  //
                   0xD0, 0x5B, 0xD0, 0x5B, 0x41, 0x01, 0x1C, 0x01, 0x5B, 0x1A, 0x0B}));
  // A typed-reference block result is written inline, as wat2wasm does.
  EXPECT_EQ(fn("(func (block (result (ref null $g)) (ref.null $g)) drop)"),
            (Bytes{0x02, 0x63, 0x00, 0xD0, 0x00, 0x0B, 0x1A, 0x0B}));
  // A fiber type is no block type: it stays an index for the validator.
  EXPECT_EQ(fn("(func (block (type $g) unreachable))"), (Bytes{0x02, 0x00, 0x00, 0x0B, 0x0B}));
  parse_error("(func (ref.null fibers))");
  parse_error("(func (ref.null $nope))");
  parse_error("(func (ref.null))");
}

TEST(FiberText, RoundTripsThroughTheBinaryFormat) {
  EXPECT_TRUE(RoundTripsThroughBinary(kGreenThreadsPlain));
  EXPECT_TRUE(RoundTripsThroughBinary(kGeneratorPlain));
  EXPECT_TRUE(RoundTripsThroughBinary(R"((type $g (fiber (result i32 (ref null fiber))))
    (type $h (fiber (result (ref $g))))
    (import "m" "t" (tag $i (param (ref null $h))))
    (tag $e (export "e") (param i32 (ref $g)))
    (table 1 (ref null $h))
    (global (mut (ref null fiber)) (ref.null fiber))
    (func $w (param (ref $h)) (result (ref $g)) unreachable)
    (func (param $x (ref null $g)) (result i32 (ref null fiber))
      (local (ref null $h) fiberref)
      (handle $l (result i32 (ref null fiber))
        (fiber.suspend_to $g $e (local.get $x) (i32.const 1) (unreachable))
        (event $l $e (param i32 (ref $g)) (drop) (i32.const 0) (ref.null fiber))
        (event $i (drop) (i32.const 1) (ref.null fiber))))
    (func (fiber.release (fiber.new $w)) (event $e unreachable)))"));
}

// ---------------------------------------------------------------------------
// WAST

TEST(FiberText, WastValues) {
  Result<WastScript> s = parse_wast(R"wast(
(module (type $g (fiber)) (func (export "f") (param fiberref) (result fiberref fiberref) unreachable))
(assert_return (invoke "f" (ref.null fiber)) (ref.fiber) (ref.null fiber))
(assert_trap (invoke "f" (ref.null fiber)) "null fiber reference")
)wast");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->commands.size(), 3u);
  const WastCommand& c = s->commands[1];
  ASSERT_EQ(c.action->args.size(), 1u);
  EXPECT_EQ(c.action->args[0].type.kind, ValType::FiberRef);
  EXPECT_TRUE(c.action->args[0].is_null);
  ASSERT_EQ(c.expected.size(), 2u);
  EXPECT_EQ(c.expected[0].kind, WastExpected::Kind::AnyFiber);
  EXPECT_EQ(c.expected[0].value.type.kind, ValType::FiberRef);
  EXPECT_EQ(c.expected[1].kind, WastExpected::Kind::Exact);
  EXPECT_EQ(c.expected[1].value.type.kind, ValType::FiberRef);
  EXPECT_TRUE(c.expected[1].value.is_null);
  // (ref.fiber) is a pattern, not an argument.
  EXPECT_TRUE(testing::wast_rejected("(module (func (export \"f\") (param fiberref)))"
                                     "(assert_return (invoke \"f\" (ref.fiber)))"));
  EXPECT_TRUE(testing::wast_rejected("(assert_return (invoke \"f\") (ref.fiber 1))"));
  EXPECT_TRUE(testing::wast_rejected("(assert_return (invoke \"f\") (ref.null fibre))"));
  // A module body given without (module …) may start with a tag.
  Result<WastScript> body = parse_wast("(tag $e) (func (event $e))");
  ASSERT_TRUE(body.ok()) << body.error().to_string();
  EXPECT_EQ(body->commands.at(0).module->module.tags.size(), 1u);
}

}  // namespace
}  // namespace weft::text
