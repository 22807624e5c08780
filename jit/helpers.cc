// Runtime helpers called from generated code: the trap path, the entries of
// functions that are not JIT code, call_indirect resolution, memory.grow.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "interpreter/interpreter.h"
#include "jit/context.h"

namespace weft::jit {

namespace {
constexpr uint32_t kShownFrames = 32;  // as the interpreter's backtraces

void add_frame(TrapState& trap, const runtime::FuncInstance* f) {
  // Exceptions have no backtrace: one caught frames later cost no strings.
  if (f->is_host() || trap.error->kind == ErrorKind::Exception) return;
  if (++trap.frames <= kShownFrames)
    trap.error->detail += "  at " + f->instance->module->function_description(f->index) + "\n";
}

}  // namespace

void record_exception(TrapState& trap) {
  // Every exception's error is the same: the one a caught exception left
  // (weft_jit_catch keeps it) serves again, and a throw allocates nothing.
  if (!trap.error || trap.error->kind != ErrorKind::Exception || !trap.error->detail.empty())
    trap.error = runtime::Store::exception_error();
  trap.frames = 0;
}

uint32_t count_backtrace_frames(const std::string& detail) {
  uint32_t n = 0;
  for (size_t at = detail.find("  at "); at != std::string::npos; at = detail.find("  at ", at + 1)) ++n;
  return n;
}

extern "C" {

void weft_jit_trap(JitContext* ctx, runtime::FuncInstance* self, uint32_t kind, uint32_t extra) {
  if (kind == kJitUnwindOnly) {
    add_frame(*ctx->trap, self);
    return;
  }
  auto trap = runtime::TrapKind(kind);
  if (trap == runtime::TrapKind::Interrupted) ctx->interp->store().consume_interrupt();  // the trap answers it
  std::string message = runtime::trap_message(trap);
  // The reference interpreter names the table slot; the suite matches by prefix.
  if (trap == runtime::TrapKind::IndirectCallNull) message += " " + std::to_string(extra);
  ctx->trap->error = make_error(
      trap == runtime::TrapKind::CallStackExhausted ? ErrorKind::Exhaustion : ErrorKind::Trap, std::move(message));
  ctx->trap->frames = 0;
  add_frame(*ctx->trap, self);
}

void weft_jit_throw(JitContext* ctx, const runtime::TagInstance* tag, const uint64_t* payload) {
  ctx->interp->store().throw_new(tag, payload);
  record_exception(*ctx->trap);
}

void weft_jit_throw_ref(JitContext* ctx, runtime::FuncInstance* self, uint64_t exn) {
  if (exn == 0) {
    weft_jit_trap(ctx, self, uint32_t(runtime::TrapKind::NullReference), 0);
    return;
  }
  ctx->interp->store().rethrow(reinterpret_cast<runtime::ExceptionObject*>(exn));
  record_exception(*ctx->trap);
}

uint64_t weft_jit_catch(JitContext* ctx, uint64_t* fp, const CatchSite* site) {
  if (!ctx->trap->error || ctx->trap->error->kind != ErrorKind::Exception) return 0;
  runtime::Store& store = ctx->interp->store();
  runtime::ExceptionObject* const exn = store.thrown;
  if (exn == nullptr) return 0;
  for (size_t i = 0; i < site->clauses.size(); ++i) {
    const CatchSite::Clause& c = site->clauses[i];
    if (c.tag_id != 0 && c.tag_id != exn->tag->id) continue;
    store.catch_thrown(fp + c.dest_slot, c.payload_slots, c.with_ref);
    // The error stays, unused, for the next throw to take (record_exception).
    ctx->trap->frames = 0;
    return i + 1;
  }
  return 0;
}

uint32_t weft_jit_enter_interpreter(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self) {
  const interpreter::CompiledFunction* cf = interpreter::record_of(self);
  Result<void> r = interpreter::execute(*ctx->interp, cf, reinterpret_cast<interpreter::Slot*>(fp));
  // The interpreted code may have run fibers with JIT bodies.
  sync_after_switch(ctx);
  if (r.ok()) return 0;
  ctx->trap->error = std::move(r).error();
  ctx->trap->frames = count_backtrace_frames(ctx->trap->error->detail);
  return 1;
}

uint32_t weft_jit_enter_host(JitContext* ctx, uint64_t* fp, runtime::FuncInstance* self) {
  // As the interpreter's host-call path: a host function that re-enters Wasm
  // continues on the value stack above this call's argument/result slots.
  runtime::ExecStack& stack = *ctx->stack;
  uint32_t in = self->param_slots, out = self->result_slots;
  uint64_t* args_end = fp + (in > out ? in : out);
  if (args_end + 1 > stack.limit) {
    ctx->trap->error = make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
    ctx->trap->frames = 0;
    return 1;
  }
  uint64_t arg_copy[16];
  std::vector<uint64_t> big_args;
  uint64_t* args = arg_copy;
  if (in > 16) {
    big_args.resize(in);
    args = big_args.data();
  }
  std::memcpy(args, fp, size_t(in) * sizeof(uint64_t));
  uint64_t* saved_top = stack.top;
  stack.top = args_end;
  Result<void> r = self->host->call(args, fp);
  stack.top = saved_top;
  sync_after_switch(ctx);  // a re-entry into Wasm may have run fibers
  if (r.ok()) return 0;
  ctx->trap->error = std::move(r).error();
  ctx->trap->frames = 0;
  return 1;
}

runtime::FuncInstance* weft_jit_resolve_indirect(JitContext* ctx, runtime::FuncInstance* self,
                                                 runtime::TableInstance* table, uint32_t index, uint32_t type_id) {
  if (index >= table->elements.size()) {
    weft_jit_trap(ctx, self, uint32_t(runtime::TrapKind::UndefinedElement), 0);
    return nullptr;
  }
  auto* target = reinterpret_cast<runtime::FuncInstance*>(table->elements[index]);
  if (target == nullptr) {
    weft_jit_trap(ctx, self, uint32_t(runtime::TrapKind::IndirectCallNull), index);
    return nullptr;
  }
  if (target->type_id != type_id) {
    weft_jit_trap(ctx, self, uint32_t(runtime::TrapKind::IndirectCallMismatch), 0);
    return nullptr;
  }
  // A host function put in a table by the embedder was never imported here.
  if (!target->native_entry)
    target->native_entry =
        reinterpret_cast<void*>(target->is_host() ? &weft_jit_enter_host : &weft_jit_enter_interpreter);
  if (!target->jit_entry) target->jit_entry = ctx->host_adapter;
  if (target->is_host()) self->instance->store->host_caller = self->instance;  // weft::Caller
  return target;
}

// ---- bulk memory and tables (the interpreter's semantics, handlers_*.inc) ----

namespace {
constexpr uint32_t trap_code(runtime::TrapKind kind) { return uint32_t(kind) + 1; }
uint64_t u32_operand(const uint64_t* operands, int i) { return uint32_t(operands[i]); }
// An address or length operand: all 64 bits where the memory's address type is i64.
uint64_t address_operand(const uint64_t* operands, int i, bool address64) {
  return address64 ? operands[i] : uint32_t(operands[i]);
}
// [start, start + len) inside `size`, without overflow.
bool in_bounds(uint64_t start, uint64_t len, uint64_t size) { return start <= size && len <= size - start; }
}  // namespace

uint32_t weft_jit_memory_init(void* memory, void* data, uint64_t* operands) {
  auto* m = static_cast<runtime::MemoryInstance*>(memory);
  auto* seg = static_cast<runtime::DataInstance*>(data);
  // (all three i64 on a 64-bit memory: validator/code_validator.cc)
  const bool wide = m->type.limits.address64;
  const uint64_t dst = address_operand(operands, 0, wide), src = address_operand(operands, 1, wide),
                 len = address_operand(operands, 2, wide);
  if (!in_bounds(src, len, seg->bytes.size()) || !in_bounds(dst, len, m->size_bytes))
    return trap_code(runtime::TrapKind::MemoryOutOfBounds);
  if (len) std::memcpy(m->data + dst, seg->bytes.data() + src, len);
  return 0;
}

uint32_t weft_jit_data_drop(void* data, void*, uint64_t*) {
  static_cast<runtime::DataInstance*>(data)->bytes = {};
  return 0;
}

uint32_t weft_jit_memory_copy(void* memory, void* source_memory, uint64_t* operands) {
  auto* to = static_cast<runtime::MemoryInstance*>(memory);
  auto* from = static_cast<runtime::MemoryInstance*>(source_memory);
  const bool to64 = to->type.limits.address64, from64 = from->type.limits.address64;
  const uint64_t dst = address_operand(operands, 0, to64), src = address_operand(operands, 1, from64),
                 len = address_operand(operands, 2, to64 && from64);
  if (!in_bounds(src, len, from->size_bytes) || !in_bounds(dst, len, to->size_bytes))
    return trap_code(runtime::TrapKind::MemoryOutOfBounds);
  if (len) std::memmove(to->data + dst, from->data + src, len);
  return 0;
}

uint32_t weft_jit_memory_fill(void* memory, void*, uint64_t* operands) {
  auto* m = static_cast<runtime::MemoryInstance*>(memory);
  const bool wide = m->type.limits.address64;
  const uint64_t dst = address_operand(operands, 0, wide), len = address_operand(operands, 2, wide);
  if (!in_bounds(dst, len, m->size_bytes)) return trap_code(runtime::TrapKind::MemoryOutOfBounds);
  if (len) std::memset(m->data + dst, int(uint8_t(operands[1])), len);
  return 0;
}

uint32_t weft_jit_table_get(void* table, void*, uint64_t* operands) {
  auto* t = static_cast<runtime::TableInstance*>(table);
  uint64_t i = u32_operand(operands, 0);
  if (i >= t->elements.size()) return trap_code(runtime::TrapKind::TableOutOfBounds);
  operands[0] = t->elements[i];
  return 0;
}

uint32_t weft_jit_table_set(void* table, void*, uint64_t* operands) {
  auto* t = static_cast<runtime::TableInstance*>(table);
  uint64_t i = u32_operand(operands, 0);
  if (i >= t->elements.size()) return trap_code(runtime::TrapKind::TableOutOfBounds);
  t->elements[i] = operands[1];
  return 0;
}

uint32_t weft_jit_table_size(void* table, void*, uint64_t* operands) {
  operands[0] = static_cast<runtime::TableInstance*>(table)->size();
  return 0;
}

uint32_t weft_jit_table_grow(void* table, void*, uint64_t* operands) {
  auto* t = static_cast<runtime::TableInstance*>(table);
  if (t->type.limits.address64) {  // memory64: an i64 delta and result; -1 is all ones
    const uint64_t delta = operands[1];
    operands[0] = uint64_t(delta > UINT32_MAX ? -1 : t->grow(uint32_t(delta), operands[0]));
    return 0;
  }
  operands[0] = uint32_t(t->grow(uint32_t(operands[1]), operands[0]));  // -1 ⇒ 0xFFFFFFFF
  return 0;
}

uint32_t weft_jit_table_fill(void* table, void*, uint64_t* operands) {
  auto* t = static_cast<runtime::TableInstance*>(table);
  uint64_t i = u32_operand(operands, 0), n = u32_operand(operands, 2);
  if (i + n > t->elements.size()) return trap_code(runtime::TrapKind::TableOutOfBounds);
  std::fill_n(t->elements.begin() + i, n, operands[1]);
  return 0;
}

uint32_t weft_jit_table_copy(void* dst_table, void* src_table, uint64_t* operands) {
  auto* dt = static_cast<runtime::TableInstance*>(dst_table);
  auto* st = static_cast<runtime::TableInstance*>(src_table);
  uint64_t d = u32_operand(operands, 0), s = u32_operand(operands, 1), n = u32_operand(operands, 2);
  if (s + n > st->elements.size() || d + n > dt->elements.size()) return trap_code(runtime::TrapKind::TableOutOfBounds);
  if (n) std::memmove(dt->elements.data() + d, st->elements.data() + s, n * sizeof(uint64_t));
  return 0;
}

uint32_t weft_jit_table_init(void* table, void* elem, uint64_t* operands) {
  auto* t = static_cast<runtime::TableInstance*>(table);
  auto* seg = static_cast<runtime::ElemInstance*>(elem);
  uint64_t d = u32_operand(operands, 0), s = u32_operand(operands, 1), n = u32_operand(operands, 2);
  if (s + n > seg->refs.size() || d + n > t->elements.size()) return trap_code(runtime::TrapKind::TableOutOfBounds);
  if (n) std::memcpy(t->elements.data() + d, seg->refs.data() + s, n * sizeof(uint64_t));
  return 0;
}

uint32_t weft_jit_elem_drop(void* elem, void*, uint64_t*) {
  static_cast<runtime::ElemInstance*>(elem)->refs.clear();
  return 0;
}

uint32_t weft_jit_memory_grow(runtime::MemoryInstance* memory, uint32_t delta_pages) {
  return uint32_t(memory->grow(delta_pages));  // -1 ⇒ 0xFFFFFFFF, as the spec requires
}

uint64_t weft_jit_memory_grow64(runtime::MemoryInstance* memory, uint64_t delta_pages) {
  return uint64_t(memory->grow(delta_pages));
}

}  // extern "C"

}  // namespace weft::jit
