// Generator of valid fiber-heavy modules (WAT text) from fuzzer bytes, for
// fuzz/fiber_fuzzer.cc: every choice is read from a FuzzedDataProvider, and
// every choice yields a module our validator must accept, so the fuzzer spends
// its time in execution (switching, event dispatch, aborts), not in errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::fuzz {

// What the generated module offers its runner.
struct FiberProgram {
  std::string wat;
  std::vector<std::string> entry_points;  // exported root functions: () -> (i32)
  // Exported mutable i32 global counting event-clause entries: how many
  // events were delivered (the proof that the program really switched).
  static constexpr const char* kClauseCounter = "clauses_entered";
};

FiberProgram generate_fiber_program(const uint8_t* data, size_t size);

}  // namespace weft::fuzz
