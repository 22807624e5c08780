// Shared pieces of jit_differential: how values, calls and end states are
// written down so the interpreter's and the JIT's transcripts compare line by
// line, and how a disagreement is shown. differential.cc runs .wasm files
// (Binaryen's -ttf modules); fiber_differential.cc runs generated fiber programs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace weft::differential {

// Everything one tier did with one module, in order.
struct Transcript {
  std::vector<std::string> lines;
  uint32_t runs = 0;                   // export calls made
  uint32_t compiled = 0, fallbacks = 0;  // JIT tier: functions compiled / left to the interpreter
  uint32_t reused = 0;                   // JIT tier: functions copied from an earlier instance's code
};

// A value's bits in hex, except that a NaN prints as "nan": which NaN an
// arithmetic operation on NaNs returns (payload, sign) is nondeterministic in
// Wasm, so tiers may differ there legitimately.
std::string raw_text(const Value& v);

// A call's outcome: " => <results>" or " => trap <message>".
std::string outcome_text(const Result<std::vector<Value>>& r);

// Appends every exported non-reference global's bits and every exported
// memory's size and hash: the state the calls left behind.
void record_exported_state(Store& store, const Instance& instance, std::vector<std::string>& lines);

// Prints "DISAGREE <what>" and the first differing lines (up to five); the
// transcripts are known to differ.
void report_disagreement(const std::string& what, const Transcript& interp, const Transcript& jit);

// The fiber-program mode (`jit_differential --fiber-programs N …`): argv
// without the program name. Returns the process exit status.
int fiber_main(const std::vector<std::string>& args);

}  // namespace weft::differential
