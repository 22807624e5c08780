// Generator of valid fiber-heavy modules (WAT text) from fuzzer bytes, for
// fuzz/fiber_fuzzer.cc: every choice is read from a FuzzedDataProvider, and
// every choice yields a module our validator must accept, so the fuzzer spends
// its time in execution (switching, event dispatch, aborts), not in errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "weft/config.h"

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

// The limits generated programs run under (fuzz/fiber_fuzzer.cc, and both
// tiers of tests/jit/fiber_differential.cc): small ones, so every program is
// short and the live-fiber, stack and fuel limits fire.
inline constexpr uint64_t kFiberProgramFuel = 20'000;  // per export call
weft::Config fiber_program_config();

}  // namespace weft::fuzz
