// The dispatch loop: direct-threaded over the compact code (code.h), with all
// interpreter state in locals the compiler keeps in registers (pc, fp, memory
// base and size). Handlers are grouped by family below; numeric, load and store
// handlers are expanded from the generated numeric_handlers.inc, SIMD handlers
// from simd_ops.def (handlers_simd.inc).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "interpreter/interpreter.h"
#include "interpreter/simd.h"
#include "interpreter/translate.h"
#include "runtime/fuel.h"
#include "runtime/numeric.h"
#include "runtime/trap.h"

namespace weft::interpreter {

namespace {
const int32_t* g_handler_offsets = nullptr;

template <class T>
inline T read_ptr(const uint32_t* words) {
  uint64_t v = uint64_t(words[0]) | (uint64_t(words[1]) << 32);
  return reinterpret_cast<T>(v);
}

runtime::TrapKind trap_kind_of(numeric::TrapCode code) {
  switch (code) {
    case numeric::TrapCode::IntegerDivideByZero: return runtime::TrapKind::IntegerDivideByZero;
    case numeric::TrapCode::IntegerOverflow: return runtime::TrapKind::IntegerOverflow;
    default: return runtime::TrapKind::InvalidConversion;
  }
}

std::string backtrace(const Frame* frames, uint32_t entry_depth, uint32_t depth, const CompiledFunction* current) {
  std::string out;
  auto line = [&](const CompiledFunction* fn) {
    if (!fn || !fn->func) return;
    const runtime::FuncInstance* f = fn->func;
    out += "  at " + f->instance->module->function_description(f->index) + "\n";
  };
  line(current);
  // Show at most 32 frames: deep recursion would otherwise print thousands.
  uint32_t shown = 1;
  for (uint32_t d = depth; d > entry_depth && shown < 32; --d, ++shown) line(frames[d - 1].fn);
  if (depth - entry_depth + 1 > 32) out += "  … " + std::to_string(depth - entry_depth + 1 - 32) + " more frames\n";
  return out;
}
}  // namespace

static Result<void> run(Interpreter* interp, const CompiledFunction* fn, Slot* fp, const uint32_t* start_pc) {
  // The op word of every IOp: its handler's offset from L_base.
  static const int32_t kOffsets[] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c) int32_t(static_cast<const char*>(&&L_##name) - static_cast<const char*>(&&L_base)),
#include "core/opcodes.def"
#define WEFT_IOP(name, words) int32_t(static_cast<const char*>(&&L_##name) - static_cast<const char*>(&&L_base)),
#include "interpreter/internal_ops.def"
  };
  static_assert(sizeof(kOffsets) / sizeof(kOffsets[0]) == kIOpCount);
  if (interp == nullptr) {
    g_handler_offsets = kOffsets;
    return {};
  }

  // The running fiber's (or the root's) stack; a dispatch loop invocation never
  // leaves the native stack it started on, so this stays its stack throughout.
  runtime::ExecStack& stack = *interp->current_stack();
  Frame* const frames = static_cast<Frame*>(stack.frames);
  uint64_t& fuel = interp->store().stack().fuel;  // one budget per store, shared by all fibers
  const std::atomic<uint8_t>* const interrupt_flag = interp->store().interrupt_flag();
  FiberRuntime& fibers = interp->fiber_runtime();
  FiberOutcome outcome;                       // operands of the shared fiber-switch path
  FiberRuntime::SwitchPlan plan;
  const DispatchSite* site = nullptr;
  uint32_t result_base = 0, result_slots = 0, next_words = 0;
  const uint32_t entry_depth = stack.depth;
  // depth: the frames below the running one (stack.depth at entry counts
  // those of other executors). Active frames are depth + 1, as the JIT counts
  // them, so a call needs depth + 1 < max_depth (Config::max_call_depth).
  uint32_t depth = entry_depth;
  const uint32_t max_depth = stack.max_depth;
  Slot* const stack_limit = reinterpret_cast<Slot*>(stack.limit);
  runtime::TrapKind trap = runtime::TrapKind::Unreachable;
  Error host_error;
  uint32_t trap_element = 0;  // table index for "uninitialized element N"
  runtime::FuncInstance* host_callee = nullptr;  // operands of the shared host-call path
  Slot* host_args = nullptr;

  const uint32_t* pc;
  uint8_t* mem_base;
  uint64_t mem_size;

#define RELOAD_MEMORY()               \
  do {                                \
    mem_base = fn->memory->data;      \
    mem_size = fn->memory->size_bytes; \
  } while (0)
#define DISPATCH() goto* static_cast<const void*>(reinterpret_cast<const char*>(&&L_base) + int32_t(*pc))
#define TRAP(kind)    \
  do {                \
    trap = (kind);    \
    goto trapped;     \
  } while (0)
#define S(i) fp[pc[i]]

  // Function entry: zero declared locals and load constants from the
  // function's frame image (frame bounds were checked by the caller). Most
  // images are a handful of slots, where calling memset and memcpy cost more
  // than the copy; the empty asm keeps GCC from turning the loop back into a
  // memcpy call.
#define ENTER_FRAME()                                                 \
  do {                                                                \
    const uint64_t* init_ = fn->frame_init.data();                    \
    Slot* dst_ = fp + fn->param_slots;                                \
    for (size_t i_ = 0, n_ = fn->frame_init.size(); i_ < n_; ++i_) {  \
      dst_[i_].u64 = init_[i_];                                       \
      __asm__("");                                                    \
    }                                                                 \
    pc = fn->entry;                                                   \
  } while (0)

  if (depth >= max_depth || fp + fn->frame_slots > stack_limit) {
    trap = runtime::TrapKind::CallStackExhausted;
    goto trapped;
  }
  ENTER_FRAME();
  if (start_pc) {
    // A fresh fiber entered at a function-level event clause skips the entry
    // charge at pc 0; without paying it here, fibers that each start at a clause
    // and retire to a new one would run forever on any fuel budget.
    if (fn->entry_fuel) {
      if (__builtin_expect(fuel < fn->entry_fuel, 0)) {
        fuel = 0;
        TRAP(runtime::TrapKind::OutOfFuel);
      }
      fuel -= fn->entry_fuel;
    }
    pc = start_pc;
  }
  RELOAD_MEMORY();
  DISPATCH();

L_base:
  // ---- numeric, loads, stores (generated rows) ------------------------------
#define WEFT_UNOP(Name, fn_, rf, af) \
  L_##Name : S(1).rf = numeric::fn_(S(2).af); pc += 3; DISPATCH();
#define WEFT_BINOP(Name, fn_, rf, af, bf) \
  L_##Name : S(1).rf = numeric::fn_(S(2).af, S(3).bf); pc += 4; DISPATCH();
#define WEFT_UNOP_TRAP(Name, fn_, rf, af)                                       \
  L_##Name : {                                                                 \
    decltype(S(1).rf) result_;                                                 \
    numeric::TrapCode code_ = numeric::fn_(S(2).af, result_);                  \
    if (__builtin_expect(code_ != numeric::TrapCode::None, 0)) TRAP(trap_kind_of(code_)); \
    S(1).rf = result_;                                                         \
    pc += 3;                                                                   \
    DISPATCH();                                                                \
  }
#define WEFT_BINOP_TRAP(Name, fn_, rf, af, bf)                                  \
  L_##Name : {                                                                 \
    decltype(S(1).rf) result_;                                                 \
    numeric::TrapCode code_ = numeric::fn_(S(2).af, S(3).bf, result_);         \
    if (__builtin_expect(code_ != numeric::TrapCode::None, 0)) TRAP(trap_kind_of(code_)); \
    S(1).rf = result_;                                                         \
    pc += 4;                                                                   \
    DISPATCH();                                                                \
  }
  // Effective address = zero-extended i32 + static offset, checked against the
  // current size in 64-bit arithmetic (no overflow possible).
#define WEFT_LOAD(Name, rf, T)                                                 \
  L_##Name : {                                                                 \
    uint64_t ea_ = uint64_t(S(2).u32) + pc[3];                                 \
    if (__builtin_expect(ea_ + sizeof(T) > mem_size, 0)) TRAP(runtime::TrapKind::MemoryOutOfBounds); \
    T v_;                                                                      \
    std::memcpy(&v_, mem_base + ea_, sizeof(T));                               \
    S(1).rf = static_cast<decltype(S(1).rf)>(v_);                              \
    pc += 4;                                                                   \
    DISPATCH();                                                                \
  }
#define WEFT_STORE(Name, vf, T)                                                \
  L_##Name : {                                                                 \
    uint64_t ea_ = uint64_t(S(1).u32) + pc[3];                                 \
    if (__builtin_expect(ea_ + sizeof(T) > mem_size, 0)) TRAP(runtime::TrapKind::MemoryOutOfBounds); \
    T v_ = static_cast<T>(S(2).vf);                                            \
    std::memcpy(mem_base + ea_, &v_, sizeof(T));                               \
    pc += 4;                                                                   \
    DISPATCH();                                                                \
  }
#define WEFT_NO_HANDLER(Name) L_##Name:
#include "interpreter/numeric_handlers.inc"
  // Instructions translated to I* ops (or not executable yet) never appear in code.
  TRAP(runtime::TrapKind::Unreachable);

  // Loads and stores with a fused `i32.add` address: (a + b) wraps at 32 bits
  // as the separate add would, then the static offset is added in 64 bits.
#define WEFT_LOAD_ADD(Name, rf, T)                                             \
  L_##Name : {                                                                 \
    uint64_t ea_ = uint64_t(uint32_t(S(2).u32 + S(3).u32)) + pc[4];            \
    if (__builtin_expect(ea_ + sizeof(T) > mem_size, 0)) TRAP(runtime::TrapKind::MemoryOutOfBounds); \
    T v_;                                                                      \
    std::memcpy(&v_, mem_base + ea_, sizeof(T));                               \
    S(1).rf = static_cast<decltype(S(1).rf)>(v_);                              \
    pc += 5;                                                                   \
    DISPATCH();                                                                \
  }
#define WEFT_STORE_ADD(Name, vf, T)                                            \
  L_##Name : {                                                                 \
    uint64_t ea_ = uint64_t(uint32_t(S(1).u32 + S(2).u32)) + pc[4];            \
    if (__builtin_expect(ea_ + sizeof(T) > mem_size, 0)) TRAP(runtime::TrapKind::MemoryOutOfBounds); \
    T v_ = static_cast<T>(S(3).vf);                                            \
    std::memcpy(mem_base + ea_, &v_, sizeof(T));                               \
    pc += 5;                                                                   \
    DISPATCH();                                                                \
  }
#include "interpreter/address_add_ops.inc"
#undef WEFT_LOAD_ADD
#undef WEFT_STORE_ADD

#include "interpreter/handlers_control.inc"
#include "interpreter/handlers_memory.inc"
#include "interpreter/handlers_variable.inc"
#include "interpreter/handlers_fiber.inc"
#include "interpreter/handlers_simd.inc"

  // The whole code of a pending function (CompiledFunction::pending): translate
  // it, then enter it as the call did — its real frame checked and initialised.
L_ITranslate: {
  bool translate_failed;
  {
    // Scoped like host_call's: no destructor may be skipped by a goto.
    Result<void> r = ensure_translated(*fn);
    translate_failed = !r.ok();
    if (translate_failed) host_error = std::move(r).error();
  }
  if (__builtin_expect(translate_failed, 0)) TRAP(runtime::TrapKind::HostTrap);
  if (__builtin_expect(fp + fn->frame_slots > stack_limit, 0)) {
    // Trap where the caller's own check would have: before the callee's frame.
    if (depth > entry_depth) {
      --depth;
      fp = frames[depth].fp;
      fn = frames[depth].fn;
    }
    TRAP(runtime::TrapKind::CallStackExhausted);
  }
  ENTER_FRAME();
  DISPATCH();
}

  // An exception is in flight (Store::thrown); pc lies inside the instruction
  // it came out of (past its op word). The innermost try_table around that
  // point in this frame or a caller's that has a matching clause catches
  // it: the clause's values go to its label's slots and the code continues
  // at the label. Without one, the exception ends this host entry.
unwind: {
  runtime::Store& store = interp->store();
  runtime::ExceptionObject* const exn = store.thrown;
  for (;;) {
    uint32_t at = uint32_t(pc - fn->code.data()) - 1;
    if (const CatchTables* const catches = fn->catches.get()) {  // (none without try_table)
      for (const CatchHole& hole : catches->holes)
        if (at >= hole.begin && at < hole.end) at = UINT32_MAX;  // in no range
      for (const CatchRegion& region : catches->regions) {
        if (at < region.begin || at >= region.end) continue;
        const CatchTarget* clause = catches->targets.data() + region.first_clause;
        for (uint32_t i = 0; i < region.clause_count; ++i, ++clause) {
          if (clause->tag_id != 0 && clause->tag_id != exn->tag->id) continue;
          store.catch_thrown(&fp[clause->dest_slot].u64, clause->payload_slots, clause->with_ref);
          pc = fn->code.data() + clause->target_pc;
          RELOAD_MEMORY();
          DISPATCH();
        }
      }
    }
    if (depth == entry_depth) break;
    const Frame& caller = frames[--depth];
    pc = caller.return_pc;
    fp = caller.fp;
    fn = caller.fn;
  }
  stack.depth = entry_depth;
  return runtime::Store::exception_error();
}

trapped: {
  std::string trace = backtrace(frames, entry_depth, depth, fn);
  stack.depth = entry_depth;
  if (trap == runtime::TrapKind::HostTrap) {
    host_error.detail = trace + host_error.detail;
    return host_error;
  }
  if (trap == runtime::TrapKind::Interrupted) interp->store().consume_interrupt();  // the trap answers it
  std::string message = runtime::trap_message(trap);
  // The reference interpreter names the table slot; the suite matches by prefix.
  if (trap == runtime::TrapKind::IndirectCallNull) message += " " + std::to_string(trap_element);
  Error e = make_error(trap == runtime::TrapKind::CallStackExhausted ? ErrorKind::Exhaustion : ErrorKind::Trap,
                       std::move(message));
  e.detail = std::move(trace);
  return e;
}
finished:
  stack.depth = entry_depth;
  return {};

#undef S
#undef TRAP
#undef DISPATCH
#undef RELOAD_MEMORY
#undef ENTER_FRAME
}

Result<void> execute(Interpreter& interp, const CompiledFunction* fn, Slot* fp, const uint32_t* start_pc) {
  return run(&interp, fn, fp, start_pc);
}

const int32_t* handler_offsets() {
  if (!g_handler_offsets) (void)run(nullptr, nullptr, nullptr, nullptr);
  return g_handler_offsets;
}

}  // namespace weft::interpreter
