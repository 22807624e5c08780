// WAST script format (the spec test suite's language) → a list of commands.
// Text modules inside a script are parsed to Module eagerly; `module binary`
// keeps its bytes and `module quote` its source text, to be decoded/parsed by
// the runner (so that assert_malformed sees the error in the right phase).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/module.h"
#include "core/result.h"

namespace weft::text {

// A constant argument or expected exact result: (i32.const 1), (ref.null func),
// (ref.extern 7), (v128.const i32x4 …), (ref.null fiber) (type FiberRef, null).
struct WastValue {
  ValType type;                // I32/I64/F32/F64/V128/FuncRef/ExternRef/FiberRef
  uint64_t bits[2] = {0, 0};   // numbers: raw bits (f32 in the low 32 bits); v128: lanes little-endian
  bool is_null = false;        // references: ref.null
  // ExternRef: bits[0] is the host value N of (ref.extern N).
};

// What an assert_return expects for one result.
struct WastExpected {
  enum class Kind : uint8_t {
    Exact,          // value must match bit for bit (refs: same null-ness / extern value)
    CanonicalNan,   // (f32.const nan:canonical)
    ArithmeticNan,  // (f32.const nan:arithmetic)
    AnyNull,        // (ref.null) with no heap type: a null reference of any type
    AnyFunc,        // (ref.func): any non-null funcref
    AnyExtern,      // (ref.extern): any non-null externref
    AnyFiber,       // (ref.fiber): any non-null fiber reference (fiber extension)
    V128Lanes,      // v128 with per-lane patterns (lanes may be nan:canonical/arithmetic)
    Either,         // (either r1 r2 …): any one of `alternatives` (relaxed SIMD's allowed results)
  };
  Kind kind = Kind::Exact;
  WastValue value;
  // V128Lanes: lane shape (F32 → 4 lanes, F64 → 2 lanes) and each lane's kind
  // (Exact/CanonicalNan/ArithmeticNan); the exact lane bits are in value.bits.
  ValType::Kind lane_type = ValType::I32;
  std::vector<Kind> lanes;
  std::vector<WastExpected> alternatives;  // Either
};

struct WastModule {
  enum class Form : uint8_t { Text, Binary, Quote };
  Form form = Form::Text;
  std::optional<std::string> id;  // $name, without the '$'
  Module module;                  // Form::Text
  std::vector<uint8_t> bytes;     // Form::Binary
  std::string quote;              // Form::Quote: the concatenated strings
};

struct WastAction {
  enum class Kind : uint8_t { Invoke, Get };
  Kind kind = Kind::Invoke;
  std::optional<std::string> module_id;  // without the '$'; none = the latest module
  std::string name;                       // export name (UTF-8, escapes decoded)
  std::vector<WastValue> args;
};

struct WastCommand {
  enum class Kind : uint8_t {
    Module,               // module
    Register,             // register "name" $id?  (name in `text`, id in `module_id`)
    Action,               // a bare invoke/get
    AssertReturn,         // action + expected
    AssertTrap,           // action or module + text   (module form = uninstantiable)
    AssertExhaustion,     // action + text
    AssertException,      // action (it must end with an uncaught exception)
    AssertMalformed,      // module + text
    AssertInvalid,        // module + text
    AssertUnlinkable,     // module + text
    AssertUninstantiable, // module + text
    ParseError,           // a command that does not parse: `text` says why, at line:column
  };
  Kind kind = Kind::Module;
  uint32_t line = 0;  // line of the command's opening parenthesis (for reports)
  uint32_t column = 0;  // ParseError: where the parse failed (line is then that line too)
  bool defines_module = false;  // ParseError: the form was a `(module …)` (later actions lack it)
  std::optional<WastModule> module;
  std::optional<WastAction> action;
  std::vector<WastExpected> expected;
  std::string text;                       // expected failure message, or the register name
  std::optional<std::string> module_id;   // Register: which module (none = latest)
};

struct WastScript {
  std::vector<WastCommand> commands;
};

// Parses a whole .wast script. A command that does not parse becomes a
// ParseError command (message, line:column) and parsing goes on after it, as
// the reference interpreter's script runner does; errors of the script as a
// whole (tokens, parentheses) are ErrorKind::Malformed with line:column.
Result<WastScript> parse_wast(std::string_view source);

}  // namespace weft::text
