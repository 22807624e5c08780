// The machine backend this build compiles for: its macro-assembler and its
// register configuration (jit/<arch>/macro_assembler.h, registers.h), under
// the names the compiler uses. Each backend implements the same operations
// with the same contracts; the compiler (jit/compile_*.cc) is written once
// against them.
#pragma once

#include "jit/backend_types.h"

#if defined(__x86_64__)
#include "jit/x64/macro_assembler.h"
#include "jit/x64/registers.h"
namespace weft::jit {
namespace arch = x64;
}
#define WEFT_JIT_BACKEND 1
#else
#define WEFT_JIT_BACKEND 0
#endif

#if WEFT_JIT_BACKEND
namespace weft::jit {
using MacroAssembler = arch::MacroAssembler;
using Registers = arch::Registers;
using Label = MacroAssembler::Label;
}  // namespace weft::jit
#endif
