// Engine configuration shared by the CLI, the embedding API and the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft {

// Interpreter: the translating interpreter (interpreter/). Jit: the baseline
// JIT (jit/, x86-64 and AArch64), which compiles every function (those listed
// in Config::jit_interpreted_functions, or any it fails to compile, run in the
// interpreter); on other machines the interpreter runs everything.
enum class Tier : uint8_t { Interpreter, Jit };

// One configuration shared by the CLI and embedders.
struct Config {
  Tier tier = Tier::Jit;  // the JIT where this build and machine have one
  bool enable_simd = true;
  bool enable_fibers = true;
  // Typed function references (Wasm 3.0): (ref $t) of function types,
  // non-nullable references, call_ref, return_call_ref, ref.as_non_null,
  // br_on_null, br_on_non_null, locals set before they are read, tables with
  // an initializer. Off: the fiber extension's version 1 restrictions
  // (typed references name fiber types only; locals and tables nullable).
  bool enable_function_references = true;
  // Multiple memories (Wasm 3.0): a module may define and import several
  // memories, and instructions name one by index. Off: at most one memory,
  // "multiple memories" otherwise (Wasm 2.0).
  bool enable_multi_memory = true;
  // 64-bit memories and tables (Wasm 3.0's memory64): an i64 address type
  // (`(memory i64 1)`, limits flag 0x04) whose loads, stores, memory.* and
  // table.* instructions take i64 addresses. Off: limits flags are Wasm 2.0's.
  bool enable_memory64 = true;
  // Tail calls (Wasm 3.0): return_call, return_call_indirect (and
  // return_call_ref). Off: they are invalid.
  bool enable_tail_call = true;
  // Extended constant expressions (Wasm 3.0): i32/i64 add, sub and mul in
  // constant expressions. Off: they are not constant instructions.
  bool enable_extended_const = true;
  // Exception handling (Wasm 3.0): tags, throw, throw_ref, try_table and
  // exnref (docs/exceptions.md). Off: those instructions and exnref are
  // invalid; tags stay available to the fiber extension.
  bool enable_exceptions = true;
  // Wasm call depth before "call stack exhausted", counted per context: the
  // thread's own stack (all frames of nested host → Wasm entries) and each
  // fiber's stack separately. A fiber's depth is also bounded by its stack
  // (fiber_stack_size), whichever comes first; the number of fibers by max_fibers.
  uint32_t max_call_depth = 20000;
  // Interpreter value stack (locals + operands of all active frames), in bytes.
  uint64_t value_stack_bytes = 16ull << 20;
  // Largest memory a module may grow to, in 64 KiB pages (spec maximum 65536).
  // A memory whose minimum is larger fails to instantiate (Limit error);
  // memory.grow beyond it returns -1.
  uint64_t max_memory_pages = 65536;
  // Largest table (elements) a module may create or grow to. A table whose
  // minimum is larger fails to instantiate (Limit error); table.grow beyond it
  // returns -1. Each element takes 8 bytes of host memory.
  uint64_t max_table_elements = 10'000'000;
  // Execution budget ("fuel"); 0 = unlimited. When non-zero, each store starts
  // with this much fuel, and Wasm code consumes it at function entries (1, plus
  // 1 per 8192 declared locals), loop iterations (1) and bulk memory/table
  // instructions (1, plus 1 per 64 KiB or 8192 elements); straight-line code
  // costs nothing. Running out traps with "all fuel consumed" (ErrorKind::Trap).
  // Metering is compiled into the code only when this is non-zero, so it costs
  // nothing when off. weft::Store::set_fuel refills it. The prices are one
  // list (runtime/fuel.h) that both tiers charge identically.
  uint64_t fuel = 0;
  // Interruption: when on, the code checks at every function entry and loop
  // iteration (where fuel is charged) whether Store::interrupt_handle()'s
  // interrupt() was called, from any thread, and then traps "interrupted".
  // Compiled in only when on, so it costs nothing when off.
  bool interruptible = false;
  // Compilation: by default each function is compiled (JIT) or translated
  // (interpreter) at its first call — lazily — so a large module starts
  // without compiling code it never runs. With eager_compilation every
  // function is compiled or translated at instantiation.
  bool eager_compilation = false;
  // Profiling: the JIT appends each instance's function code ranges to
  // /tmp/perf-PID.map, so `perf report` names JIT code `wasm:NAME` (also with
  // WEFT_PERF_MAP=1 in the environment; `weft run --profile=perfmap`).
  bool perf_map = false;
  // Diagnosis (JIT tier): functions the JIT leaves to the interpreter, as if
  // it could not compile them, named as weft's messages name them (the name
  // section's name, else an export name, else "func[N]"). The two tiers then
  // run side by side in one instance, calling each other: a way to rule the
  // JIT out when a function misbehaves, and how tests reach the boundary
  // between the tiers. Empty (the default): the JIT compiles every function.
  std::vector<std::string> jit_interpreted_functions;
  // Guard regions (JIT tier, x86-64): each 32-bit memory reserves 8 GiB of
  // address space (any 32-bit address plus a 32-bit offset lands inside it),
  // everything past the memory's size inaccessible, so JIT code accesses
  // memory without bounds checks and an out-of-bounds access faults; weft's
  // SIGSEGV handler turns a fault in JIT code into the trap "out of bounds
  // memory access" and passes any other fault on to the handler installed
  // before it (an embedder's, ASan's). Off, or where the reservation or the
  // handler cannot be had, the code checks every access explicitly. An
  // embedder that installs its own SIGSEGV handler after creating an engine
  // must chain to the previous one (as weft does) or turn this off.
  bool guard_regions = true;
  // Fiber extension: bytes reserved per started fiber (its native stack plus
  // its Wasm frames and operand slots), and the most fibers alive at once
  // ("too many fibers" beyond). The reservation is address space committed
  // page by page as the fiber touches it: the default lets ordinary recursive
  // code go more than 10,000 calls deep inside a fiber on both tiers
  // (spec-tests/fibers/deep_recursion.wast), while a suspended fiber that
  // never went deep stays resident in about one page (docs/fibers.md §10).
  uint64_t fiber_stack_size = 4 * 1024 * 1024;
  uint64_t max_fibers = 1'000'000;
};

}  // namespace weft
