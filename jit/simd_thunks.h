// SIMD instructions as calls to thunks over the interpreter's SIMD functions
// (interpreter/simd.h: one per instruction, exact lane, NaN and rounding
// semantics), so that both backends run every 0xFD instruction in JIT code
// with the interpreter's results. The backend emits some of them inline
// instead (compile_simd.cc says which); these are the rest.
//
// A thunk reads its operands from consecutive frame slots (a v128 is two,
// lo first), and writes its result over the first operand: a v128 as two
// slots, a scalar as one (zero-extended). Memory instructions get the checked
// host address of the access in `address` (their first operand, the Wasm
// address, is in the first slot and ignored); lane instructions their lane in `lane`.
#pragma once

#include <cstdint>

#include "core/opcodes.h"

namespace weft::jit {

using SimdThunk = void (*)(uint64_t* operands, uint64_t address, uint64_t lane);

// The operand shapes of interpreter/simd_ops.def.
enum class SimdShape : uint8_t {
  None,  // not a SIMD instruction of the table (v128.const, or not SIMD)
  Load, Store, LoadLane, StoreLane, Splat, Extract, Replace, Shuffle, Unary, Binary, Ternary, Shift, Test,
};

struct SimdThunkInfo {
  SimdThunk fn = nullptr;
  SimdShape shape = SimdShape::None;
  uint8_t bytes = 0;  // memory instructions: the bytes the access touches
};

SimdThunkInfo simd_thunk(Opcode op);

}  // namespace weft::jit
