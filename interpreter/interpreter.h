// The interpreter tier: an Executor that translates each instance's functions
// into compact internal code once (translate.cc) and runs it in a direct-
// threaded dispatch loop (execute.cc).
#pragma once

#include <memory>
#include <vector>

#include "interpreter/code.h"
#include "runtime/fiber_runtime.h"
#include "runtime/store.h"

namespace weft::interpreter {

// One activation record of the call stack (the operand/locals part lives in
// the Store's value stack).
struct Frame {
  const uint32_t* return_pc;
  Slot* fp;
  const CompiledFunction* fn;
};

// The fiber runtime both tiers share (runtime/fiber_runtime.h), by the names
// the dispatch loop's handlers use.
using runtime::FiberOutcome;
using runtime::FiberRuntime;

class Interpreter;

// Runs fiber bodies in the interpreter (fiber_body.cc): the fiber runtime's
// default runner, for every function the JIT does not run.
class InterpreterFiberBody final : public runtime::FiberBodyRunner {
 public:
  explicit InterpreterFiberBody(Interpreter& interp) : interp_(interp) {}
  bool runs(runtime::FuncInstance*) override { return true; }
  Result<void> run(runtime::FuncInstance* fn, Slot* fp, const runtime::ExecStack& exec, uint64_t handle,
                   std::span<const uint64_t> args, bool deliver_event) override;

 private:
  Interpreter& interp_;
};

class Interpreter final : public runtime::Executor {
 public:
  explicit Interpreter(runtime::Store& store);
  ~Interpreter() override;
  Result<void> prepare_instance(runtime::Instance& instance) override;
  // As prepare_instance, but each function's record is made at its first need
  // (record_of) and translated only when it is first entered in the
  // interpreter (CompiledFunction::pending, ensure_translated): for the JIT
  // tier, whose compiled functions rarely or never run here.
  Result<void> prepare_instance_lazily(runtime::Instance& instance);
  void release_instance(runtime::Instance& instance) override;
  Result<void> call(runtime::FuncInstance* func, uint64_t* args_results) override;

  runtime::Store& store() { return store_; }
  // The ExecStack of the context running now (the store's, or a fiber's).
  runtime::ExecStack* current_stack() const { return current_stack_; }
  void set_current_stack(runtime::ExecStack* s) { current_stack_ = s; }
  // Where current_stack() lives, for the JIT's inline fiber switch, which
  // restores it when a context resumes.
  runtime::ExecStack** current_stack_slot() { return &current_stack_; }
  runtime::FiberRuntime& fiber_runtime() { return *fibers_; }

 private:
  Result<void> prepare(runtime::Instance& instance, bool lazy);

  runtime::Store& store_;
  // The root stack's call frames (max call depth + 1), left unwritten: a
  // frame is written by the call that pushes it. Zeroing them all (480 KB at
  // the default depth) cost every start of weft ~120 page faults, a third of
  // an empty module's run.
  std::unique_ptr<Frame[]> frames_;
  runtime::MemoryInstance no_memory_;  // for instances without a memory (size 0)
  runtime::ExecStack* current_stack_;
  InterpreterFiberBody fiber_body_{*this};
  std::unique_ptr<runtime::FiberRuntime> fibers_;
};

// The fiber dispatch sites of an instance's defined functions, translating
// pending ones first (for inspection: `weft inspect`, Instance::dispatch_sites).
// A function-level site without clauses is left out.
struct DispatchSiteOf {
  uint32_t function;  // function index
  const runtime::DispatchSite* site;
  bool function_entry;  // the function-level clauses a fresh fiber starts at
};
std::vector<DispatchSiteOf> dispatch_sites(const runtime::Instance& instance);

// Runs `fn` with its frame at `fp` (arguments already in place) until it
// returns; `start_pc` (optional) starts at a function-level event clause.
Result<void> execute(Interpreter& interp, const CompiledFunction* fn, Slot* fp, const uint32_t* start_pc = nullptr);

}  // namespace weft::interpreter
