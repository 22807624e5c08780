// Instance preparation (interpreter translation, then compilation with a
// per-function fallback) and the host → JIT entry.
#include "jit/executor.h"

#include <cstring>

#include "jit/compiler.h"
#include "jit/x64/macro_assembler.h"
#include "runtime/native_stack.h"

namespace weft::jit {

bool jit_supported() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

JitExecutor::JitExecutor(runtime::Store& store) : store_(store), interp_(store) {
  ctx_.stack = &store.stack();
  ctx_.fuel = &store.stack().fuel;
  ctx_.interp = &interp_;
  ctx_.trap = &trap_;
  interp_.fiber_runtime().set_body_runner(this);
}

JitExecutor::~JitExecutor() = default;

Result<void> JitExecutor::prepare_instance(runtime::Instance& instance) {
  WEFT_TRY(interp_.prepare_instance(instance));
  const Module& module = *instance.module;
  const uint32_t imported = module.num_imported_functions();
  for (runtime::FuncInstance* f : instance.functions)
    if (!f->native_entry)
      f->native_entry = reinterpret_cast<void*>(f->is_host() ? &weft_jit_enter_host : &weft_jit_enter_interpreter);
  runtime::MemoryInstance* memory = instance.memories.empty() ? &no_memory_ : instance.memories[0];
  std::vector<void*>& code = code_[&instance];
  std::vector<std::unique_ptr<FiberSite>>& sites = fiber_sites_[&instance];
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    runtime::FuncInstance* f = instance.functions[imported + i];
    asmjit::CodeHolder holder;
    holder.init(code_memory_.environment());
    x64::MacroAssembler masm(holder);
    FunctionCompiler compiler(instance, i, memory, masm, store_.fuel_enabled());
    compiler.set_fiber_sites(&sites);
    Result<void> r = compiler.compile();
    void* fn = nullptr;
    if (r.ok() && code_memory_.add(&fn, &holder) == asmjit::kErrorOk) {
      f->native_entry = fn;
      if (const Label* entry = compiler.clause_entry())
        f->native_clause_entry = static_cast<char*>(fn) + holder.labelOffsetFromBase(*entry);
      code.push_back(fn);
      code_ranges_[f] = {fn, holder.codeSize()};
      ++stats_.compiled;
      continue;
    }
    std::string reason = r.ok() ? "code memory allocation failed" : r.error().message;
    ++stats_.fallbacks;
    stats_.fallback_reasons.push_back("function " + std::to_string(imported + i) + " (" +
                                      module.function_name(imported + i) + "): " + reason);
  }
  return {};
}

void JitExecutor::release_instance(runtime::Instance& instance) {
  auto it = code_.find(&instance);
  if (it != code_.end()) {
    for (void* fn : it->second) code_memory_.release(fn);
    code_.erase(it);
  }
  for (runtime::FuncInstance* f : instance.functions)
    if (f->instance == &instance) {
      code_ranges_.erase(f);
      f->native_clause_entry = nullptr;
    }
  fiber_sites_.erase(&instance);
  interp_.release_instance(instance);
}

std::pair<const void*, size_t> JitExecutor::code_of(const runtime::FuncInstance* func) const {
  auto it = code_ranges_.find(func);
  return it == code_ranges_.end() ? std::pair<const void*, size_t>{nullptr, 0} : it->second;
}

namespace {
bool is_jit_code(const runtime::FuncInstance* f) {
  const void* entry = f->native_entry;
  return entry && entry != reinterpret_cast<void*>(&weft_jit_enter_interpreter) &&
         entry != reinterpret_cast<void*>(&weft_jit_enter_host);
}
}  // namespace

Error JitExecutor::take_trap() {
  Error e = trap_.error ? std::move(*trap_.error) : make_error(ErrorKind::Trap, "trap");
  if (trap_.frames > 32) e.detail += "  … " + std::to_string(trap_.frames - 32) + " more frames\n";
  trap_.error.reset();
  trap_.frames = 0;
  return e;
}

Result<void> JitExecutor::call(runtime::FuncInstance* func, uint64_t* args_results) {
  if (!is_jit_code(func)) return interp_.call(func, args_results);
  // The running context's stack: the store's, or a fiber's when a host
  // function called from a fiber re-enters Wasm.
  runtime::ExecStack& stack = *interp_.current_stack();
  uint64_t* fp = stack.top;
  uint32_t slots = func->param_slots > func->result_slots ? func->param_slots : func->result_slots;
  if (stack.base == nullptr || uint64_t(stack.limit - stack.top) < uint64_t(slots) + 8)
    return make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
  std::memcpy(fp, args_results, size_t(func->param_slots) * 8);
  // Room below the limit for helpers, host functions and the interpreter.
  if (entries_++ == 0) ctx_.root_native_limit = runtime::thread_native_floor();
  sync_after_switch(&ctx_);
  const uint32_t entry_depth = stack.depth;
  interp_.fiber_runtime().enter_segment();
  uint32_t status = reinterpret_cast<NativeEntry>(func->native_entry)(&ctx_, fp, func);
  interp_.fiber_runtime().leave_segment();
  sync_after_switch(&ctx_);
  stack.depth = entry_depth;
  --entries_;
  if (status != 0) return take_trap();
  std::memcpy(args_results, fp, size_t(func->result_slots) * 8);
  return {};
}

bool JitExecutor::runs(const runtime::FuncInstance* fn) const { return is_jit_code(fn); }

// A fiber's body: its ExecStack is current (fiber_main set it up), its
// arguments are at fp. Traps come back as the fiber's result, which the fiber
// runtime turns into the segment's abort.
Result<void> JitExecutor::run(runtime::FuncInstance* fn, interpreter::Slot* fp, bool deliver_event) {
  sync_after_switch(&ctx_);
  void* entry = fn->native_entry;
  if (deliver_event) {
    // A fresh fiber's first event enters a function-level clause.
    entry = fn->native_clause_entry;
    if (!entry) return make_error(ErrorKind::Trap, runtime::trap_message(runtime::TrapKind::UnhandledEvent));
    ctx_.event_tag = interp_.fiber_runtime().event_tag();
    ctx_.event_payload = interp_.fiber_runtime().payload();
  }
  uint32_t status = reinterpret_cast<NativeEntry>(entry)(&ctx_, reinterpret_cast<uint64_t*>(fp), fn);
  if (status != 0) return take_trap();
  return {};
}

}  // namespace weft::jit
