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
  OutOfFuel,              // Config::fuel exhausted
  Interrupted,            // InterruptHandle::interrupt (Config::interruptible)
  HostTrap,
  // Fiber extension (docs/fibers.md §9).
  NullFiber,
  FiberMoribund,
  FiberActive,
  NotRunningFiber,
  UnhandledEvent,
  CrossHostFrame,
  TooManyFibers,
  NullFunctionReference,  // call_ref / return_call_ref of null (typed function references)
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
    case TrapKind::OutOfFuel: return "all fuel consumed";
    case TrapKind::Interrupted: return "interrupted";
    case TrapKind::HostTrap: return "host trap";
    case TrapKind::NullFiber: return "null fiber reference";
    case TrapKind::FiberMoribund: return "fiber is moribund";
    case TrapKind::FiberActive: return "fiber is active";
    case TrapKind::NotRunningFiber: return "not the running fiber";
    case TrapKind::UnhandledEvent: return "unhandled event";
    case TrapKind::CrossHostFrame: return "cannot switch across a host frame";
    case TrapKind::TooManyFibers: return "too many fibers";
    case TrapKind::NullFunctionReference: return "null function reference";
  }
  return "trap";
}

}  // namespace weft::runtime
