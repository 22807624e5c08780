// The JIT tier as a runtime Executor. It owns an interpreter for everything
// the JIT does not run (functions it cannot compile), which holds the fiber
// runtime both tiers share (runtime/fiber_runtime.h): every function the
// compiler accepts gets native code (one code block per instance) as its
// FuncInstance::jit_entry — at its first call by default (lazily, into the
// instance's CodeArena, jit/executor_lazy.cc), all at instantiation with
// Config::eager_compilation (one buffer, calls between them direct) — or, for
// a later instance of a module, as a patched copy of the code compiled for the
// first (jit/code_template.h: compile once per module); the interpreter
// translates the others, and any compiled function only if it is ever
// interpreted. Fibers whose function is JIT code run it on their own native
// stacks (a runtime::FiberBodyRunner, as the interpreter's fiber_body.cc).
#pragma once

#include <asmjit/core.h>

#include <map>
#include <span>
#include <memory>
#include <string>
#include <vector>

#include "interpreter/interpreter.h"
#include "jit/code_arena.h"
#include "jit/code_template.h"
#include "jit/context.h"
#include "jit/guard_regions.h"
#include "runtime/store.h"

namespace weft::jit {

// How much of the code the JIT compiled (per store).
struct JitStats {
  uint32_t compiled = 0;
  // Functions whose code was copied from the compilation for an earlier
  // instance of their module (jit/code_template.h), not compiled again.
  uint32_t reused = 0;
  uint32_t fallbacks = 0;
  std::vector<std::string> fallback_reasons;  // "function N: reason"
};

class JitExecutor final : public runtime::Executor, private runtime::FiberBodyRunner {
 public:
  explicit JitExecutor(runtime::Store& store);
  ~JitExecutor() override;
  Result<void> prepare_instance(runtime::Instance& instance) override;
  void release_instance(runtime::Instance& instance) override;
  Result<void> call(runtime::FuncInstance* func, uint64_t* args_results) override;

  const JitStats& stats() const { return stats_; }
  // Lazy compilation: compiles `func` if it still waits for its first call
  // (else nothing); a function the compiler rejects goes to the interpreter.
  void compile_lazily(runtime::FuncInstance* func);
  // Lazy compilation: the direct-call slot of the instance's defined function.
  const void* direct_slot(const runtime::Instance* instance, uint32_t defined) const;
  // The generated code of a function (nullptr/0 if it was not compiled), for
  // `weft inspect --disasm`.
  std::pair<const void*, size_t> code_of(const runtime::FuncInstance* func) const;

 private:
  bool runs(runtime::FuncInstance* fn) override;
  Result<void> run(runtime::FuncInstance* fn, runtime::Slot* fp, const runtime::ExecStack& exec, uint64_t handle,
                   std::span<const uint64_t> args, bool deliver_event) override;
  // The trap JIT code recorded (status 1 from a native entry), as an Error.
  Error take_trap();
  struct InstanceCode;
  // Names functions [first, end) of the instance's code in perf's map (Config::perf_map).
  void write_perf_map(const runtime::Instance& instance, const InstanceCode& code, uint32_t first, uint32_t end);
  void use_entry_stubs();  // takes the process-wide stubs (entry_stubs in executor.cc)
  // Sets up lazy compilation of the instance's functions (executor_lazy.cc).
  void prepare_lazily(runtime::Instance& instance, runtime::MemoryInstance* memory);
  void fall_back(runtime::FuncInstance* f, const std::string& reason);
  bool make_arena(runtime::Instance& instance, InstanceCode& code);
  // The slot of defined function `defined` jumps to `entry`, and the calls
  // waiting for it call it directly.
  void point_slot(InstanceCode& code, uint32_t defined, const uint8_t* entry);

  // Compile once per module (jit/code_template.h): the module's shared code
  // for `instance` — the templates every JIT in the process keeps for the
  // module and this instance's CodeShape, which later instances copy and
  // patch instead of compiling.
  std::shared_ptr<ModuleCode> module_code(const runtime::Instance& instance, bool guarded) const;
  // Eager compilation of every defined function into one block of code: into
  // code.arena's writable view if there is one (redo: it did not fit, or
  // asmjit had something to relocate — nothing is published), else into a
  // heap buffer copied into a code.arena of its size.
  struct EagerCode {
    void* base = nullptr;  // the code (nullptr: none)
    size_t size = 0;
    uint32_t compiled = 0;
    std::vector<uint32_t> clause_entries;  // per function: its clause entry's offset, or kNoClauseEntry
    std::vector<uint32_t> fallbacks;       // defined functions left to the interpreter
    std::vector<std::string> fallback_reasons;
    bool redo = false;
  };
  static constexpr uint32_t kNoClauseEntry = UINT32_MAX;
  // A function that fails this close to the arena's end failed for room.
  static constexpr size_t kFullArenaMargin = 4096;
  EagerCode compile_eagerly(runtime::Instance& instance, InstanceCode& code, runtime::MemoryInstance* memory,
                            InstanceTemplate* made, size_t body_bytes);
  // Eager compilation: the defined functions left to the interpreter are translated now.
  Result<void> translate_fallbacks(runtime::Instance& instance, const std::vector<uint32_t>& fallbacks);
  // Eager compilation from the module's template; false: nothing done.
  bool copy_instance_code(runtime::Instance& instance, InstanceCode& code, const InstanceTemplate& from);
  // Lazy compilation from a function's template; false: nothing done.
  bool copy_function_code(runtime::FuncInstance* f, InstanceCode& code, const FunctionTemplate& from);

  runtime::Store& store_;
  interpreter::Interpreter interp_;
  const asmjit::Environment environment_;  // what the code is assembled for (CodeArena::environment)
  runtime::MemoryInstance no_memory_;  // for instances without a memory (size 0)
  // An instance's generated code: one block of executable memory, each
  // defined function's {offset, size} in it (size 0: not compiled), and the
  // static descriptions of its fiber instructions (the code embeds their
  // addresses).
  struct InstanceCode {
    void* base = nullptr;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    std::vector<std::unique_ptr<FiberSite>> fiber_sites;
    std::vector<std::unique_ptr<CatchSite>> catch_sites;  // try_tables' landings
    // Guard regions: the functions' trap stubs for faulting accesses, and
    // the fault handler's registry slot (-1: the code checks accesses).
    std::vector<guard::FunctionTrap> traps;
    int guard_slot = -1;
    // The code's memory, base() being `base`: lazy compilation's (made at the
    // first compilation), or eager compilation's (compile_eagerly, or a copy
    // of the module's code: copy_instance_code).
    std::unique_ptr<CodeArena> arena;
    // Per defined function: its register entry once compiled (or its stub
    // into the interpreter), and the calls in compiled code that still go
    // through its slot (arena offsets), pointed at the entry when it exists.
    std::vector<const uint8_t*> register_entries;
    std::vector<std::vector<uint32_t>> slot_calls;
    runtime::MemoryInstance* memory = nullptr;  // lazy compilation: what its functions are compiled against
    std::shared_ptr<ModuleCode> shared;  // the module's templates (module_code)
    // The templates whose bytes are this instance's code (CodeTemplate::source),
    // detached when it is released.
    std::vector<std::shared_ptr<CodeTemplate>> sourced;
  };
  std::map<const runtime::Instance*, InstanceCode> code_;
  JitStats stats_;
  TrapState trap_;
  JitContext ctx_;
  uint32_t entries_ = 0;  // active host → JIT entries (nesting)
  // The stubs between the C convention and JIT code's (use_entry_stubs, shared by
  // all executors): the NativeEntry of every compiled function, the same for
  // its clause entry, and the host adapter (ctx_.host_adapter).
  void* host_entry_ = nullptr;
  void* host_clause_entry_ = nullptr;
  // FuncInstance::jit_entry of a function compiled at its first call, until
  // then: calls weft_jit_compile_lazily, then the function's new jit_entry.
  void* lazy_entry_ = nullptr;
};

// Tests only: the capacity of the arena eager compilation writes into
// (0: CodeArena::capacity_for's), so that code can be made to outgrow it.
void set_eager_arena_capacity_for_testing(size_t bytes);

// Whether this build has a JIT backend for this machine (jit/backend.h).
bool jit_supported();
// The machine the JIT generates code for: "x86-64" or "aarch64".
const char* machine_name();

}  // namespace weft::jit
