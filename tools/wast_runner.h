// The WAST script runner: executes a parsed spec-test script against the public
// embedding API (one Store per script) and reports every check as passed or
// failed. Used by `weft wast` and the spec-test ctest entries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/wast.h"
#include "weft/weft.h"

namespace weft::tools {

struct WastOptions {
  Config config;       // engine configuration (tier, limits)
  bool trace = false;  // record one line per command (with error messages) in WastReport::trace
};

struct WastFailure {
  uint32_t line = 0;    // line of the command in the script (0 = the whole file)
  uint32_t column = 0;  // column of a parse error (1-based); 0 when only the line is known
  std::string command;  // "assert_return", "module", "parse", "read", …
  std::string message;  // "expected i32:1, got i32:2"
};

// Every command of a script is one check: module definitions, register,
// bare actions and each assertion.
struct WastReport {
  uint32_t passed = 0;
  uint32_t failed = 0;
  std::vector<WastFailure> failures;  // in script order
  std::vector<std::string> trace;     // with WastOptions::trace: "12: ok assert_invalid (type mismatch)"
  TierStats tier;                     // JIT compiled/fallback counts of the script's store
  // Set when the script could not be read ("read") or parsed ("parse"), so
  // none of its commands ran; it counts as one failed check and is not in
  // `failures`. Kept apart because it is the only explanation of such a file's
  // failure: the CLI prints it in every mode, -q and -v included.
  std::optional<WastFailure> script_error;
  bool ok() const { return failed == 0; }
};

// Runs a parsed script.
WastReport run_wast(const text::WastScript& script, const WastOptions& options);
// Parses and runs; a script that does not parse is one failed check, reported
// as script_error "parse" with the error's line and column.
WastReport run_wast_source(std::string_view source, const WastOptions& options);
// Reads, parses and runs a file; an unreadable file is one failed check
// (script_error "read").
WastReport run_wast_file(const std::string& path, const WastOptions& options);

// ─── Assertion building blocks (exposed for unit tests) ──────────────────────

// The API value for a script constant (arguments and exact expectations).
Value to_value(const text::WastValue& value);
// Whether `actual` satisfies one expected result of assert_return: exact bits
// for numbers and vectors, canonical / arithmetic NaN patterns (also per v128
// lane), reference null-ness and extern values, any non-null funcref/externref.
bool result_matches(const text::WastExpected& expected, const Value& actual);
// Whether a trap message satisfies the script's expected text. The suite's
// texts are prefixes of the reference interpreter's messages, so the actual
// message must start with, or at least contain, the expected text.
bool message_matches(std::string_view actual, std::string_view expected);

// Human-readable renderings used in failure reports: "i32:-1", "f32:1.5 (0x3fc00000)",
// "f64:nan:canonical", "externref:7", "funcref:null", "v128:i32x4 0x1 0x2 0x3 0x4".
std::string describe(const Value& value);
std::string describe(const text::WastExpected& expected);
const char* command_name(text::WastCommand::Kind kind);

}  // namespace weft::tools
