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
// Wasm, so tiers may differ there legitimately. A v128 prints all 128 bits
// ("v128:" then the high and the low 64 in hex); its lane types are unknown
// here, so NaN lanes are judged by transcripts_agree.
std::string raw_text(const Value& v);

// The transcripts agree: every line equal, or differing only in v128 values
// whose every differing 64-bit half is a quiet f64 NaN on both sides or whose
// every differing 32-bit lane is a quiet f32 NaN on both sides — two NaN
// operands of one float lane operation, of which the interpreter (as the C++
// compiler arranged its operands) and the JIT's vector instruction returned
// different ones, both valid Wasm. `nan_lanes` counts the lanes so accepted.
bool transcripts_agree(const Transcript& interp, const Transcript& jit, uint64_t& nan_lanes);

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
