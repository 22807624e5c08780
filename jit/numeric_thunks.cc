// The numeric thunks, expanded from the interpreter's generated handler list
// (interpreter/numeric_handlers.inc ← scripts/gen_interp_numeric.py), so the
// JIT and the interpreter share one opcode → numeric.h mapping.
#include "jit/numeric_thunks.h"

#include "interpreter/code.h"
#include "runtime/numeric.h"
#include "runtime/trap.h"

namespace weft::jit {

namespace {
using interpreter::Slot;

uint32_t trap_result(numeric::TrapCode code) {
  switch (code) {
    case numeric::TrapCode::None: return 0;
    case numeric::TrapCode::IntegerDivideByZero: return uint32_t(runtime::TrapKind::IntegerDivideByZero) + 1;
    case numeric::TrapCode::IntegerOverflow: return uint32_t(runtime::TrapKind::IntegerOverflow) + 1;
    default: return uint32_t(runtime::TrapKind::InvalidConversion) + 1;
  }
}

// Results are written through a zeroed slot so 32-bit values are
// zero-extended, as JIT code expects of every 32-bit value in a slot.
#define WEFT_UNOP(Name, fn_, rf, af)                     \
  uint32_t thunk_##Name(uint64_t* raw) {                 \
    Slot* s = reinterpret_cast<Slot*>(raw);              \
    Slot out{};                                          \
    out.rf = numeric::fn_(s[0].af);                      \
    s[0] = out;                                          \
    return 0;                                            \
  }
#define WEFT_BINOP(Name, fn_, rf, af, bf)                \
  uint32_t thunk_##Name(uint64_t* raw) {                 \
    Slot* s = reinterpret_cast<Slot*>(raw);              \
    Slot out{};                                          \
    out.rf = numeric::fn_(s[0].af, s[1].bf);             \
    s[0] = out;                                          \
    return 0;                                            \
  }
#define WEFT_UNOP_TRAP(Name, fn_, rf, af)                \
  uint32_t thunk_##Name(uint64_t* raw) {                 \
    Slot* s = reinterpret_cast<Slot*>(raw);              \
    Slot out{};                                          \
    numeric::TrapCode code = numeric::fn_(s[0].af, out.rf); \
    if (code != numeric::TrapCode::None) return trap_result(code); \
    s[0] = out;                                          \
    return 0;                                            \
  }
#define WEFT_BINOP_TRAP(Name, fn_, rf, af, bf)           \
  uint32_t thunk_##Name(uint64_t* raw) {                 \
    Slot* s = reinterpret_cast<Slot*>(raw);              \
    Slot out{};                                          \
    numeric::TrapCode code = numeric::fn_(s[0].af, s[1].bf, out.rf); \
    if (code != numeric::TrapCode::None) return trap_result(code); \
    s[0] = out;                                          \
    return 0;                                            \
  }
#define WEFT_LOAD(Name, rf, T)
#define WEFT_STORE(Name, vf, T)
#define WEFT_NO_HANDLER(Name)
#include "interpreter/numeric_handlers.inc"
#undef WEFT_UNOP
#undef WEFT_BINOP
#undef WEFT_UNOP_TRAP
#undef WEFT_BINOP_TRAP
#undef WEFT_LOAD
#undef WEFT_STORE
#undef WEFT_NO_HANDLER
}  // namespace

NumericThunkInfo numeric_thunk(Opcode op) {
  switch (op) {
#define WEFT_UNOP(Name, fn_, rf, af) case Opcode::Name: return {&thunk_##Name, 1, false};
#define WEFT_BINOP(Name, fn_, rf, af, bf) case Opcode::Name: return {&thunk_##Name, 2, false};
#define WEFT_UNOP_TRAP(Name, fn_, rf, af) case Opcode::Name: return {&thunk_##Name, 1, true};
#define WEFT_BINOP_TRAP(Name, fn_, rf, af, bf) case Opcode::Name: return {&thunk_##Name, 2, true};
#define WEFT_LOAD(Name, rf, T)
#define WEFT_STORE(Name, vf, T)
#define WEFT_NO_HANDLER(Name)
#include "interpreter/numeric_handlers.inc"
    default: return {};
  }
}

}  // namespace weft::jit
