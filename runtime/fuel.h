// The fuel meter's prices (Config::fuel, `weft run --fuel`), defined once and
// compiled into both tiers' code, so that a budget runs out at the same point
// on the interpreter and on the JIT (`make differential-fuel`, which runs
// `jit_differential --random-fuel`, checks it).
// Only what can take unbounded time is priced; straight-line code is free.
#pragma once

#include <cstdint>

#include "core/module.h"

namespace weft::runtime::fuel {

// Entering a function (a call, or a fiber's first resume): 1, plus 1 per 8192
// declared locals the entry zeroes. Parameters are not counted (the caller
// wrote them), and neither is anything a tier keeps in the frame for itself
// (the interpreter's constant slots), so the price is the module's, not a tier's.
constexpr uint32_t kLocalsPerExtraUnitShift = 13;
inline uint64_t declared_locals(const Function& function) {
  uint64_t n = 0;
  for (const LocalGroup& group : function.locals) n += group.count;
  return n;
}
inline uint32_t entry_cost(const Function& function) {
  return 1 + uint32_t(declared_locals(function) >> kLocalsPerExtraUnitShift);
}

// Every arrival at a loop head (each iteration, the first included).
constexpr uint32_t kLoopIteration = 1;

// Bulk instructions: 1, plus 1 per 2^shift units of their length operand —
// 64 KiB for memory.fill/copy/init, 8192 elements for table.init/copy/fill
// and table.grow's delta. Each tier emits this formula with these shifts.
constexpr uint8_t kMemoryBytesShift = 16;
constexpr uint8_t kTableElementsShift = 13;
// (A 64-bit memory's or table's lengths are i64: the same formula on all 64 bits.)
constexpr uint64_t bulk_cost(uint64_t length, uint8_t shift) { return 1 + (length >> shift); }

}  // namespace weft::runtime::fuel
