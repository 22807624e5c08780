// The interpreter's part of starting a fiber (runtime/fiber_runtime.h calls
// it on the fiber's own stack): translate the function if it is still
// pending, check its frame fits the fiber's Wasm area, and run the dispatch
// loop from the entry or from the function-level clause of the first event.
#include <cstring>

#include "interpreter/interpreter.h"
#include "interpreter/translate.h"

namespace weft::interpreter {

Result<void> InterpreterFiberBody::run(runtime::FuncInstance* fn, Slot* fp, const runtime::ExecStack& exec,
                                       uint64_t handle, std::span<const uint64_t> args, bool deliver_event) {
  const CompiledFunction* cf = record_of(fn);
  WEFT_TRY(ensure_translated(*cf));  // the JIT tier translates on first use
  if (uint64_t(exec.limit - exec.base) < uint64_t(cf->frame_slots) + 1 + args.size())
    return make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
  fp[0].u64 = handle;
  if (!args.empty()) std::memcpy(fp + 1, args.data(), args.size() * sizeof(uint64_t));
  const uint32_t* start = nullptr;
  if (deliver_event) {
    // A fresh fiber receives its first event at the function-level clauses.
    runtime::FiberRuntime& fibers = interp_.fiber_runtime();
    const DispatchSite* site = cf->entry_site;
    const fibers::DispatchTable::Entry* e = site ? site->table.find(fibers.event_tag()) : nullptr;
    if (!e) {
      // A function with function-level clauses is entered, and pays its entry
      // (runtime/fuel.h), before the event is found unhandled — as the JIT's
      // clause entry runs its prologue before its dispatch; one without any
      // clause is never entered. Both tiers leave the same fuel.
      bool out_of_fuel = false;
      if (site && !site->clauses.empty()) {
        uint64_t& fuel = interp_.store().stack().fuel;
        out_of_fuel = cf->entry_fuel > fuel;
        fuel = out_of_fuel ? 0 : fuel - cf->entry_fuel;
      }
      return make_error(ErrorKind::Trap, runtime::trap_message(out_of_fuel ? runtime::TrapKind::OutOfFuel
                                                                           : runtime::TrapKind::UnhandledEvent));
    }
    const DispatchSite::Clause& clause = site->clauses[e->value];
    if (fibers.payload_slots())
      std::memcpy(fp + clause.payload_slot, fibers.payload(), size_t(fibers.payload_slots()) * sizeof(uint64_t));
    start = cf->code.data() + clause.code_pos;
  }
  return execute(interp_, cf, fp, start);
}

}  // namespace weft::interpreter
