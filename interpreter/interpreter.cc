// The interpreter Executor: instance preparation and host → Wasm entry.
#include "interpreter/interpreter.h"

#include <cstring>
#include <vector>

#include "interpreter/translate.h"
#include "runtime/native_stack.h"
#include "runtime/trap.h"

namespace weft::interpreter {

namespace {
struct InstanceCode {
  // One array, allocated once: callers' code embeds the records' addresses,
  // and a record apiece cost an allocation per function at instantiation.
  std::unique_ptr<CompiledFunction[]> functions;
  size_t count = 0;
};
}  // namespace

Interpreter::Interpreter(runtime::Store& store) : store_(store), current_stack_(&store.stack()) {
  frames_.reset(new Frame[size_t(store.config().max_call_depth) + 1]);
  store.stack().frames = frames_.get();
  static_assert(alignof(Frame) <= alignof(void*), "the fiber runtime aligns frames for pointers");
  fibers_ = std::make_unique<runtime::FiberRuntime>(store_, &current_stack_, fiber_body_, sizeof(Frame));
}

Interpreter::~Interpreter() = default;

Result<void> Interpreter::prepare_instance(runtime::Instance& instance) {
  return prepare(instance, /*lazy=*/!store_.config().eager_compilation);
}

Result<void> Interpreter::prepare_instance_lazily(runtime::Instance& instance) { return prepare(instance, true); }

Result<void> Interpreter::prepare(runtime::Instance& instance, bool lazy) {
  auto code = std::make_unique<InstanceCode>();
  const Module& module = *instance.module;
  const uint32_t imported = module.num_imported_functions();
  runtime::MemoryInstance* memory = instance.memories.empty() ? &no_memory_ : instance.memories[0];
  // Every function's record exists before any is translated: calls embed
  // the callee's address. One pass writes each record whole (pending, as
  // by default, or just its function and memory when translated below):
  // a large module's records are megabytes, more than the cache holds, and
  // a second pass would fetch every line again.
  code->count = module.functions.size();
  code->functions = std::make_unique<CompiledFunction[]>(code->count);
  std::vector<uint32_t> translate_now;
  for (size_t i = 0; i < code->count; ++i) {
    CompiledFunction& cf = code->functions[i];
    runtime::FuncInstance* func = instance.functions[imported + i];
    func->compiled = &cf;
    if (lazy) {
      // Deferred, except where translation refuses the function outright (an
      // oversized frame): that stays an instantiation error on every tier.
      uint64_t declared = 0;
      for (const LocalGroup& g : module.functions[i].locals) declared += uint64_t(g.count) * g.type.slots();
      if (declared <= kMaxLocalSlots) {
        make_pending(cf, func, memory);
        continue;
      }
    }
    cf.func = func;
    cf.memory = memory;
    translate_now.push_back(uint32_t(i));
  }
  for (const uint32_t i : translate_now) {
    Result<void> r = translate_function(instance, i, instance.info->functions[i].max_stack_height,
                                        code->functions[i]);
    if (!r.ok()) {
      Error e = std::move(r).error();
      e.location = Location::in_function(imported + i, 0);
      for (size_t k = 0; k < code->count; ++k) code->functions[k].func->compiled = nullptr;
      return e;
    }
  }
  instance.executor_data = code.release();
  return {};
}

void Interpreter::release_instance(runtime::Instance& instance) {
  delete static_cast<InstanceCode*>(instance.executor_data);
  instance.executor_data = nullptr;
}

Result<void> Interpreter::call(runtime::FuncInstance* func, uint64_t* args_results) {
  auto* cf = static_cast<const CompiledFunction*>(func->compiled);
  if (!cf) return make_error(ErrorKind::Usage, "function is not ready to run");
  // A host → Wasm entry runs on the current context's stack (the store's, or
  // the fiber's whose host call re-entered Wasm) and starts a chain segment.
  runtime::ExecStack& stack = *current_stack_;
  Slot* fp = reinterpret_cast<Slot*>(stack.top);
  const uintptr_t native_floor = stack.native_floor ? stack.native_floor : runtime::thread_native_floor();
  if (stack.base == nullptr || uint64_t(stack.limit - stack.top) < uint64_t(cf->frame_slots) + 8 ||
      runtime::native_stack_position() < native_floor)
    return make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
  std::memcpy(fp, args_results, size_t(cf->param_slots) * 8);
  fibers_->enter_segment();
  Result<void> r = execute(*this, cf, fp);
  fibers_->leave_segment();
  if (r.ok()) std::memcpy(args_results, fp, size_t(cf->result_slots) * 8);
  return r;
}

std::vector<DispatchSiteOf> dispatch_sites(const runtime::Instance& instance) {
  std::vector<DispatchSiteOf> out;
  for (uint32_t f = instance.module->num_imported_functions(); f < instance.functions.size(); ++f) {
    const auto* cf = static_cast<const CompiledFunction*>(instance.functions[f]->compiled);
    if (!cf || !ensure_translated(*cf).ok()) continue;  // the JIT tier translates lazily
    for (const auto& site : cf->sites) {
      const bool entry = site.get() == cf->entry_site;
      if (entry && site->clauses.empty()) continue;  // no function-level clauses
      out.push_back({f, site.get(), entry});
    }
  }
  return out;
}

}  // namespace weft::interpreter
