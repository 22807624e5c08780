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
  ctx_.interp = &interp_;
  ctx_.trap = &trap_;
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
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    runtime::FuncInstance* f = instance.functions[imported + i];
    asmjit::CodeHolder holder;
    holder.init(code_memory_.environment());
    x64::MacroAssembler masm(holder);
    FunctionCompiler compiler(instance, i, memory, masm, store_.fuel_enabled());
    Result<void> r = compiler.compile();
    void* fn = nullptr;
    if (r.ok() && code_memory_.add(&fn, &holder) == asmjit::kErrorOk) {
      f->native_entry = fn;
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
    if (f->instance == &instance) code_ranges_.erase(f);
  interp_.release_instance(instance);
}

std::pair<const void*, size_t> JitExecutor::code_of(const runtime::FuncInstance* func) const {
  auto it = code_ranges_.find(func);
  return it == code_ranges_.end() ? std::pair<const void*, size_t>{nullptr, 0} : it->second;
}

Result<void> JitExecutor::call(runtime::FuncInstance* func, uint64_t* args_results) {
  // Fiber stacks are small and the native-stack limit is per thread: entries
  // inside a fiber (a host function re-entering Wasm) stay interpreted.
  void* entry = func->native_entry;
  bool compiled = entry && entry != reinterpret_cast<void*>(&weft_jit_enter_interpreter) &&
                  entry != reinterpret_cast<void*>(&weft_jit_enter_host);
  if (!compiled || interp_.current_stack() != &store_.stack())
    return interp_.call(func, args_results);
  runtime::ExecStack& stack = store_.stack();
  uint64_t* fp = stack.top;
  uint32_t slots = func->param_slots > func->result_slots ? func->param_slots : func->result_slots;
  if (stack.base == nullptr || uint64_t(stack.limit - stack.top) < uint64_t(slots) + 8)
    return make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
  std::memcpy(fp, args_results, size_t(func->param_slots) * 8);
  if (entries_++ == 0) ctx_.native_limit = runtime::thread_native_floor();  // room below for helpers, host functions, the interpreter
  const uint32_t entry_depth = stack.depth;
  interp_.fiber_runtime().enter_segment();
  uint32_t status = reinterpret_cast<NativeEntry>(func->native_entry)(&ctx_, fp, func);
  interp_.fiber_runtime().leave_segment();
  stack.depth = entry_depth;
  --entries_;
  if (status != 0) {
    Error e = trap_.error ? std::move(*trap_.error) : make_error(ErrorKind::Trap, "trap");
    if (trap_.frames > 32) e.detail += "  … " + std::to_string(trap_.frames - 32) + " more frames\n";
    trap_.error.reset();
    trap_.frames = 0;
    return e;
  }
  std::memcpy(args_results, fp, size_t(func->result_slots) * 8);
  return {};
}

}  // namespace weft::jit
