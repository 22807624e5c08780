// What JIT-generated code sees at run time: the context passed to every
// native entry, the entry signature shared by all tiers (docs/architecture.md,
// "The baseline JIT"), and the runtime helpers generated code calls. Field
// offsets of JitContext are read by generated code (offsetof), so the struct
// is standard-layout and its hot fields come first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>
#include <utility>

#include "core/opcodes.h"
#include "core/result.h"
#include "fibers/dispatch.h"
#include "fibers/wasm_fiber.h"
#include "runtime/objects.h"
#include "runtime/store.h"
#include "runtime/trap.h"

namespace weft::runtime {
struct SwitchState;  // runtime/fiber_runtime.h
}  // namespace weft::runtime
namespace weft::interpreter {
class Interpreter;
}

namespace weft::jit {

struct JitContext;

// The one calling convention: arguments in fp[0..params), results written to
// fp[0..results); returns 0 on return, 1 on trap (the Error is in ctx->trap).
// `self` is the FuncInstance being called (used by the generic trampolines).
using NativeEntry = uint32_t (*)(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self);

// The byte offset of one of FuncInstance's entry pointers, which generated
// code reads (FuncInstance is not standard-layout: offsetof is not portable).
inline int32_t func_entry_offset(void* runtime::FuncInstance::*field) {
  const runtime::FuncInstance probe;
  return int32_t(reinterpret_cast<const char*>(&(probe.*field)) - reinterpret_cast<const char*>(&probe));
}

// The trap being propagated out of JIT frames.
struct TrapState {
  std::optional<Error> error;
  uint32_t frames = 0;  // backtrace frames seen (32 are named, the rest counted)
};

struct JitContext {
  // The running context's stack (the store's, or the running fiber's): depth,
  // max_depth and limit are checked on entry. Re-read after every fiber
  // switch (sync_after_switch), because code continues in another context.
  runtime::ExecStack* stack = nullptr;
  uintptr_t native_limit = 0;           // lowest stack pointer a function entry may see (per context)
  uint64_t* fuel = nullptr;             // the store's budget, shared by all fibers
  // The fiber runtime's switch state: the inline resume/suspend read and
  // update it, and an event clause copies its payload from its transfer area.
  runtime::SwitchState* fiber_state = nullptr;
  // The interpreter's current_stack(), which a context resumed by the inline
  // switch restores together with `stack`.
  runtime::ExecStack** interp_stack = nullptr;
  uint64_t event_tag = 0;  // a fresh fiber's first event (its clause entry dispatches on it)
  interpreter::Interpreter* interp = nullptr;  // runs fallback functions; owns the fiber runtime
  TrapState* trap = nullptr;
  uintptr_t root_native_limit = 0;  // native_limit while on the thread's own stack
  // FuncInstance::jit_entry of functions that are not JIT code (the host adapter).
  void* host_adapter = nullptr;
  // The register-convention lazy stub's (jit/executor_lazy.cc) save area for
  // the argument registers while it compiles, and the entry it then jumps to.
  uint64_t lazy_saved[16] = {};
  void* lazy_target = nullptr;
};
static_assert(std::is_standard_layout_v<JitContext>);
static_assert(std::is_standard_layout_v<runtime::ExecStack>);

// weft_jit_trap's kind for "a callee trapped: add this frame" (no TrapKind).
inline constexpr uint32_t kJitUnwindOnly = UINT32_MAX;

// Runtime helpers called from generated code (extern "C" ABI: plain SysV calls).
extern "C" {
// Records a trap of `kind` in `self` (extra: the table index for
// IndirectCallNull); generated code then returns 1. With kind
// kJitUnwindOnly it only adds `self` to the backtrace of a trap being
// propagated through it: one helper, so that a function's trap stubs load
// `self` and call once for both (jit/compile_control.cc).
void weft_jit_trap(JitContext* ctx, runtime::FuncInstance* self, uint32_t kind, uint32_t extra);
// The lazy entry's helper (jit/executor_lazy.cc): compiles `self` (or hands
// it to the interpreter when it cannot be compiled) and returns it; `fp` is
// the frame its arguments are in.
runtime::FuncInstance* weft_jit_compile_lazily(runtime::FuncInstance* self);
// The register-convention lazy stub's helper: compiles defined function
// `defined` of `instance` and returns its direct-call slot, which now jumps
// to its register entry (or to a stub into the interpreter).
const void* weft_jit_compile_direct(runtime::Instance* instance, uint32_t defined);
// Entries for functions that are not JIT code (same signature as NativeEntry).
uint32_t weft_jit_enter_interpreter(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self);
uint32_t weft_jit_enter_host(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self);
// call_indirect: the FuncInstance at `index` of `table` if its type is
// `type_id`; otherwise records the trap (in `self`) and returns nullptr.
runtime::FuncInstance* weft_jit_resolve_indirect(JitContext* ctx, runtime::FuncInstance* self,
                                                 runtime::TableInstance* table, uint32_t index, uint32_t type_id);
// Bulk memory and table instructions: `a`/`b` name the instruction's memory,
// table or segment objects; the operands are in consecutive frame slots and a
// result is written over the first. Returns 0, or the trap kind + 1.
using BulkHelper = uint32_t (*)(void* a, void* b, uint64_t* operands);
uint32_t weft_jit_memory_init(void* memory, void* data, uint64_t* operands);
uint32_t weft_jit_data_drop(void* data, void*, uint64_t* operands);
uint32_t weft_jit_memory_copy(void* memory, void* source_memory, uint64_t* operands);
uint32_t weft_jit_memory_fill(void* memory, void*, uint64_t* operands);
uint32_t weft_jit_table_get(void* table, void*, uint64_t* operands);
uint32_t weft_jit_table_set(void* table, void*, uint64_t* operands);
uint32_t weft_jit_table_size(void* table, void*, uint64_t* operands);
uint32_t weft_jit_table_grow(void* table, void*, uint64_t* operands);
uint32_t weft_jit_table_fill(void* table, void*, uint64_t* operands);
uint32_t weft_jit_table_copy(void* dst_table, void* src_table, uint64_t* operands);
uint32_t weft_jit_table_init(void* table, void* elem, uint64_t* operands);
uint32_t weft_jit_elem_drop(void* elem, void*, uint64_t* operands);
// memory.grow: the old size in pages, or 0xFFFFFFFF.
uint32_t weft_jit_memory_grow(runtime::MemoryInstance* memory, uint32_t delta_pages);
// The same for a 64-bit memory: the old size, or all ones.
uint64_t weft_jit_memory_grow64(runtime::MemoryInstance* memory, uint64_t delta_pages);

// A fiber instruction (jit/compile_fibers.cc): its operands sit in the frame
// slots `site` names. Returns {status, tag}: status 0 = continue after the
// instruction (results written to their slots), 1 = trap recorded for
// `self`, 2 = an event arrived: `tag` is its identity, the payload is in the
// fiber runtime's transfer area; the code dispatches through `site->table`.
struct FiberStatus {
  uint64_t status;
  uint64_t tag;
};
struct FiberSite;
struct CatchSite;
// throw: makes the exception (tag `tag`, payload in the slots from
// `payload`) and records it in ctx->trap; generated code then jumps to its
// try_table's landing or returns 1.
void weft_jit_throw(JitContext* ctx, const runtime::TagInstance* tag, const uint64_t* payload);
// throw_ref of `exn`: the same, or the trap "null reference" recorded for `self`.
void weft_jit_throw_ref(JitContext* ctx, runtime::FuncInstance* self, uint64_t exn);
// A try_table's landing: if the error recorded in ctx->trap is an exception
// one of `site`'s clauses catches, writes the clause's values to its label's
// slots in `fp`, clears the error and returns the clause's index + 1; else 0.
uint64_t weft_jit_catch(JitContext* ctx, uint64_t* fp, const CatchSite* site);
FiberStatus weft_jit_fiber(JitContext* ctx, uint64_t* fp, const FiberSite* site);
// The inline switch's resume point, when this context was resumed by anything
// but another inline switch delivering an event: `from` is what the switch
// delivered (Registers::FiberSwitch::kArrivedFrom: a saved context to store, or null). Finishes the arrival
// and returns what weft_jit_fiber would have.
FiberStatus weft_jit_fiber_arrived(JitContext* ctx, void* from, uint64_t* fp, const FiberSite* site);
}

// An exception in flight (Store::thrown) as the error `trap` carries.
void record_exception(TrapState& trap);

// How many "  at " backtrace lines an Error's detail has.
uint32_t count_backtrace_frames(const std::string& detail);

// After any fiber switch returns into a context (or a fiber starts), the
// context's own stack becomes ctx->stack again.
void sync_after_switch(JitContext* ctx);

// The clauses a try_table's landing tries, innermost try_table first (then
// those around it in the same function); owned with the code.
struct CatchSite {
  struct Clause {
    uint64_t tag_id = 0;         // 0: catch_all, catch_all_ref
    uint32_t dest_slot = 0;      // the label's first value slot
    uint32_t payload_slots = 0;  // catch, catch_ref: the tag's values
    bool with_ref = false;       // the exnref after them
    uint32_t tag_index = UINT32_MAX;  // tag_id's tag in the module (jit/code_template.h: copies of the code)
  };
  std::vector<Clause> clauses;
  uint32_t position = 0;  // in its code's list of catch sites (relocations name it)
};

// The static description of one fiber instruction in JIT code (owned by the
// executor with the code; the code embeds its address).
struct FiberSite {
  Opcode op = Opcode::FiberSuspend;
  runtime::FuncInstance* self = nullptr;    // the function containing the instruction (traps)
  runtime::FuncInstance* callee = nullptr;  // fiber.new / fiber.spawn
  uint32_t self_slot = 0;     // fiber.suspend/switch/retire/retireto: the running fiber
  uint32_t target_slot = 0;   // fiber.resume/suspend_to/switch/retireto/release
  uint32_t payload_slot = 0;  // event payload, or fiber.new/spawn arguments
  uint32_t payload_slots = 0;
  uint32_t result_slot = 0;   // where results (or fiber.new's handle) go
  uint32_t result_slots = 0;
  uint64_t tag = 0;           // tag identity of the event sent
  fibers::DispatchTable table;  // the handler scope (suspension points only)
  // fiber.resume / fiber.switch inline path: the fiber this site switched to last. A hint
  // only — it is used when its live handle equals the operand — that lets the
  // switch load the target's saved context without first resolving the
  // handle through the fiber table (a generator or a scheduler's resume site
  // mostly resumes the same fiber again). Never null: kNoFiber at first.
  const fibers::FiberSwitchFields* resume_cache = &kNoFiber;
  static inline const fibers::FiberSwitchFields kNoFiber{};  // handle 0, moribund
  // Where the instance-specific fields came from, for copies of the code for
  // other instances of the module (jit/code_template.h): function and tag
  // indices, and the handler scope as (tag index, dispatch value) per clause
  // — UINT32_MAX for a clause an earlier one with the same tag shadows.
  uint32_t position = 0;  // in its code's list of fiber sites (relocations name it)
  uint32_t self_index = 0;
  uint32_t callee_index = UINT32_MAX;
  uint32_t tag_index = UINT32_MAX;
  std::vector<std::pair<uint32_t, uint32_t>> scope;
};

}  // namespace weft::jit
