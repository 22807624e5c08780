// The interpreter Executor: instance preparation and host → Wasm entry.
#include "interpreter/interpreter.h"

#include <cstring>
#include <vector>

#include "interpreter/translate.h"
#include "runtime/native_stack.h"
#include "runtime/trap.h"

namespace weft::interpreter {

namespace {
// An instance's records, one array allocated once (callers' code embeds the
// records' addresses; a record apiece cost an allocation per function at
// instantiation). Storage for every defined function is reserved, but a
// record is constructed only when made (make_record, or at preparation for a
// function translated then): `instance->functions[i]->compiled` pointing at
// its slot says it was.
struct InstanceCode {
  InstanceCode(const runtime::Instance& inst, runtime::MemoryInstance* mem)
      : instance(inst),
        imported(inst.module->num_imported_functions()),
        count(inst.module->functions.size()),
        memory(mem),
        records(static_cast<CompiledFunction*>(::operator new(count * sizeof(CompiledFunction)))) {}
  InstanceCode(const InstanceCode&) = delete;
  InstanceCode& operator=(const InstanceCode&) = delete;
  ~InstanceCode() {
    for (size_t i = 0; i < count; ++i) {
      runtime::FuncInstance* func = instance.functions[imported + i];
      if (func->compiled != &records[i]) continue;
      records[i].~CompiledFunction();
      func->compiled = nullptr;
    }
    ::operator delete(records);
  }
  // Constructs the record of defined function `i`, pending, for its
  // FuncInstance (whose `compiled` it becomes).
  CompiledFunction& make_pending_record(size_t i) {
    runtime::FuncInstance* func = instance.functions[imported + i];
    CompiledFunction* cf = new (&records[i]) CompiledFunction;
    make_pending(*cf, func, memory);
    func->compiled = cf;
    return *cf;
  }

  const runtime::Instance& instance;
  const uint32_t imported;
  const size_t count;
  runtime::MemoryInstance* const memory;  // the instance's memory 0 (or the interpreter's empty one)
  CompiledFunction* const records;
};
}  // namespace

const CompiledFunction* make_record(runtime::FuncInstance* func) {
  if (func->is_host() || func->instance->executor_data == nullptr) return nullptr;
  auto& code = *static_cast<InstanceCode*>(func->instance->executor_data);
  return &code.make_pending_record(func->index - code.imported);
}

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
  const Module& module = *instance.module;
  auto code = std::make_unique<InstanceCode>(instance, instance.memories.empty() ? &no_memory_ : instance.memories[0]);
  // Every function's record is made before any is translated (calls embed
  // the callee's address): all of them for eager translation; when lazy, only
  // those translation refuses outright (an oversized frame), which stay an
  // instantiation error on every tier — the rest at their first need.
  std::vector<uint32_t> translate_now;
  for (size_t i = 0; i < code->count; ++i) {
    if (lazy) {
      uint64_t declared = 0;
      for (const LocalGroup& g : module.functions[i].locals) declared += uint64_t(g.count) * g.type.slots();
      if (declared <= kMaxLocalSlots) continue;
    }
    translate_now.push_back(uint32_t(i));
  }
  // Lazily made records find the code here (make_record); a failed
  // translation below releases it again, and with it every record made.
  instance.executor_data = code.get();
  for (const uint32_t i : translate_now) code->make_pending_record(i);
  for (const uint32_t i : translate_now) {
    CompiledFunction& cf = code->records[i];
    Result<void> r = ensure_translated(cf);
    if (!r.ok()) {
      instance.executor_data = nullptr;
      return r;
    }
  }
  code.release();
  return {};
}

void Interpreter::release_instance(runtime::Instance& instance) {
  delete static_cast<InstanceCode*>(instance.executor_data);
  instance.executor_data = nullptr;
}

Result<void> Interpreter::call(runtime::FuncInstance* func, uint64_t* args_results) {
  const CompiledFunction* cf = record_of(func);
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
    const CompiledFunction* cf = record_of(instance.functions[f]);
    if (!cf || !ensure_translated(*cf).ok()) continue;  // translated lazily
    for (const auto& site : cf->sites) {
      const bool entry = site.get() == cf->entry_site;
      if (entry && site->clauses.empty()) continue;  // no function-level clauses
      out.push_back({f, site.get(), entry});
    }
  }
  return out;
}

}  // namespace weft::interpreter
