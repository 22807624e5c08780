// Rewrites a one-memory module into a two-memory one for the differential
// (tests/jit/two_memories.cc says how).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"

namespace weft::differential {

// The module's bytes with a second memory, memory instructions spread over
// both by `seed`; `moved` counts the memory operands moved to memory 1, and
// `memory1_is64` says whether memory 1 is a 64-bit memory (memory64). A
// module that does not define exactly one memory comes back unchanged.
Result<std::vector<uint8_t>> spread_over_two_memories(std::span<const uint8_t> wasm, uint64_t seed, uint32_t& moved,
                                                      bool& memory1_is64);

}  // namespace weft::differential
