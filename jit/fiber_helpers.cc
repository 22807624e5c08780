// The fiber instructions' runtime half (jit/compile_fibers.cc emits the call):
// operands come from the frame slots the FiberSite names, the fiber runtime
// (runtime/fiber_runtime.cc, shared by both tiers) does the bookkeeping
// and the native switch. Nothing here may own memory across that switch: if
// this fiber is killed while suspended, its stack — this frame included — is
// dropped without unwinding.
#include <cstring>

#include "interpreter/interpreter.h"
#include "jit/context.h"

namespace weft::jit {

void sync_after_switch(JitContext* ctx) {
  runtime::ExecStack* stack = ctx->interp->current_stack();
  ctx->stack = stack;
  ctx->native_limit = stack->native_floor ? stack->native_floor : ctx->root_native_limit;
}

namespace {
FiberStatus finish_fiber_instruction(JitContext* ctx, uint64_t* fp, const FiberSite* site,
                                     const runtime::FiberOutcome& outcome);
}  // namespace

extern "C" FiberStatus weft_jit_fiber(JitContext* ctx, uint64_t* fp, const FiberSite* site) {
  using runtime::FiberOutcome;
  runtime::FiberRuntime& fibers = ctx->interp->fiber_runtime();
  const auto* payload = reinterpret_cast<const interpreter::Slot*>(fp + site->payload_slot);
  const uint32_t slots = site->payload_slots;
  // Bookkeeping first, then the one call that switches (see
  // FiberRuntime::SwitchPlan: one call site keeps return prediction right).
  runtime::FiberRuntime::SwitchPlan plan;
  FiberOutcome outcome;  // of the instructions that never switch here
  bool switching = true;
  switch (site->op) {
    case Opcode::FiberSpawn: plan = fibers.plan_spawn(site->callee, payload, slots); break;
    case Opcode::FiberResume: plan = fibers.plan_resume(fp[site->target_slot], site->tag, payload, slots); break;
    case Opcode::FiberSuspendTo:
      plan = fibers.plan_suspend_to(fp[site->target_slot], site->tag, payload, slots);
      break;
    case Opcode::FiberSuspend: plan = fibers.plan_suspend(fp[site->self_slot], site->tag, payload, slots); break;
    case Opcode::FiberSwitch:
      plan = fibers.plan_switch_to(fp[site->self_slot], fp[site->target_slot], site->tag, payload, slots);
      break;
    case Opcode::FiberNew: {
      uint64_t handle = 0;
      switching = false;
      outcome = fibers.new_fiber(site->callee, payload, slots, handle);
      if (outcome.kind != FiberOutcome::Kind::Trap) fp[site->result_slot] = handle;
      break;
    }
    // These two return only when they trap: otherwise this context is gone.
    case Opcode::FiberRetire:
      switching = false;
      outcome = fibers.retire(fp[site->self_slot], site->tag, payload, slots);
      break;
    case Opcode::FiberRetireto:
      switching = false;
      outcome = fibers.retireto(fp[site->self_slot], fp[site->target_slot], site->tag, payload, slots);
      break;
    case Opcode::FiberRelease:
      switching = false;
      outcome = fibers.release(fp[site->target_slot]);
      break;
    default:
      switching = false;
      outcome = FiberOutcome{FiberOutcome::Kind::Trap, runtime::TrapKind::Unreachable, 0};
      break;
  }
  if (switching) {
    outcome = fibers.transfer_to(plan);
    // This context runs again (possibly much later): its stack is current.
    sync_after_switch(ctx);
  }
  return finish_fiber_instruction(ctx, fp, site, outcome);
}

extern "C" FiberStatus weft_jit_fiber_arrived(JitContext* ctx, void* from, uint64_t* fp, const FiberSite* site) {
  // The resume point already restored ctx->stack (and the interpreter's).
  const runtime::FiberOutcome outcome = ctx->interp->fiber_runtime().arrived_raw(from, ctx->stack);
  sync_after_switch(ctx);
  return finish_fiber_instruction(ctx, fp, site, outcome);
}

namespace {
// What a fiber instruction does once its context runs again: the outcome of
// the switch (or of the instruction, if it did not switch) as a status.
FiberStatus finish_fiber_instruction(JitContext* ctx, uint64_t* fp, const FiberSite* site,
                                     const runtime::FiberOutcome& outcome) {
  using runtime::FiberOutcome;
  runtime::FiberRuntime& fibers = ctx->interp->fiber_runtime();
  switch (outcome.kind) {
    case FiberOutcome::Kind::Done:
      return {0, 0};
    case FiberOutcome::Kind::Return:
      // The fiber this context waited for returned: its results are the instruction's.
      if (site->result_slots) std::memcpy(fp + site->result_slot, fibers.payload(), size_t(site->result_slots) * 8);
      return {0, 0};
    case FiberOutcome::Kind::Event:
      return {2, outcome.tag};
    case FiberOutcome::Kind::Exception:
      // The fiber this context waited for ended by an exception: it is
      // thrown here (Store::thrown), as if this instruction threw it.
      record_exception(*ctx->trap);
      return {1, 0};
    case FiberOutcome::Kind::Abort:
      // A fiber of this segment trapped: the trap (with the fiber's frames)
      // becomes this host entry's result, through this frame.
      ctx->trap->error = fibers.take_abort_error();
      ctx->trap->frames = count_backtrace_frames(ctx->trap->error->detail);
      weft_jit_trap(ctx, site->self, kJitUnwindOnly, 0);
      return {1, 0};
    case FiberOutcome::Kind::Trap:
      break;
  }
  weft_jit_trap(ctx, site->self, uint32_t(outcome.trap), 0);
  return {1, 0};
}
}  // namespace

}  // namespace weft::jit
