// Trap kinds and the exact messages the spec test suite expects.
#pragma once

#include <cstdint>

namespace weft::runtime {

enum class TrapKind : uint8_t {
  Unreachable,
  MemoryOutOfBounds,
  TableOutOfBounds,
  IndirectCallNull,       // call_indirect through a null entry
  IndirectCallMismatch,   // call_indirect signature mismatch
  UndefinedElement,       // call_indirect index past the table's end
  IntegerDivideByZero,
  IntegerOverflow,
  InvalidConversion,
  NullReference,
  CallStackExhausted,
  HostTrap,
};

inline const char* trap_message(TrapKind kind) {
  switch (kind) {
    case TrapKind::Unreachable: return "unreachable";
    case TrapKind::MemoryOutOfBounds: return "out of bounds memory access";
    case TrapKind::TableOutOfBounds: return "out of bounds table access";
    case TrapKind::IndirectCallNull: return "uninitialized element";
    case TrapKind::IndirectCallMismatch: return "indirect call type mismatch";
    case TrapKind::UndefinedElement: return "undefined element";
    case TrapKind::IntegerDivideByZero: return "integer divide by zero";
    case TrapKind::IntegerOverflow: return "integer overflow";
    case TrapKind::InvalidConversion: return "invalid conversion to integer";
    case TrapKind::NullReference: return "null reference";
    case TrapKind::CallStackExhausted: return "call stack exhausted";
    case TrapKind::HostTrap: return "host trap";
  }
  return "trap";
}

}  // namespace weft::runtime
