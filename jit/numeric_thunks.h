// Numeric instructions the JIT does not emit natively yet, as calls to thunks
// over runtime/numeric.h (the interpreter's exact semantics: NaN rules,
// nearest, min/max, trapping conversions). A thunk reads its operands from
// consecutive frame slots and writes the result over the first one.
#pragma once

#include <cstdint>

#include "core/opcodes.h"

namespace weft::jit {

// Returns 0, or the runtime::TrapKind + 1 of a trap.
using NumericThunk = uint32_t (*)(uint64_t* operands);

struct NumericThunkInfo {
  NumericThunk fn = nullptr;  // nullptr: not a plain numeric instruction
  uint8_t operands = 0;
  bool can_trap = false;
};

NumericThunkInfo numeric_thunk(Opcode op);

}  // namespace weft::jit
