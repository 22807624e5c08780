// What JIT-generated code sees at run time: the context passed to every
// native entry, the entry signature shared by all tiers (docs/architecture.md,
// "The baseline JIT"), and the runtime helpers generated code calls. Field
// offsets of JitContext are read by generated code (offsetof), so the struct
// is standard-layout and its hot fields come first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "core/result.h"
#include "runtime/objects.h"
#include "runtime/store.h"
#include "runtime/trap.h"

namespace weft::interpreter {
class Interpreter;
}

namespace weft::jit {

struct JitContext;

// The one calling convention: arguments in fp[0..params), results written to
// fp[0..results); returns 0 on return, 1 on trap (the Error is in ctx->trap).
// `self` is the FuncInstance being called (used by the generic trampolines).
using NativeEntry = uint32_t (*)(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self);

// The trap being propagated out of JIT frames.
struct TrapState {
  std::optional<Error> error;
  uint32_t frames = 0;  // backtrace frames seen (32 are named, the rest counted)
};

struct JitContext {
  runtime::ExecStack* stack = nullptr;  // depth, max_depth and limit are checked on entry
  uintptr_t native_limit = 0;           // lowest rsp a function entry may see
  interpreter::Interpreter* interp = nullptr;  // runs fallback functions
  TrapState* trap = nullptr;
};
static_assert(std::is_standard_layout_v<JitContext>);
static_assert(std::is_standard_layout_v<runtime::ExecStack>);

// Runtime helpers called from generated code (extern "C" ABI: plain SysV calls).
extern "C" {
// Records a trap of `kind` in `self` (extra: the table index for
// IndirectCallNull); generated code then returns 1.
void weft_jit_trap(JitContext* ctx, runtime::FuncInstance* self, uint32_t kind, uint32_t extra);
// Adds `self` to the backtrace of the trap being propagated through it.
void weft_jit_unwind(JitContext* ctx, runtime::FuncInstance* self);
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
uint32_t weft_jit_memory_copy(void* memory, void*, uint64_t* operands);
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
}

}  // namespace weft::jit
