// Instance preparation (compilation into one code block per instance, with a
// per-function fallback to the interpreter) and the host → JIT entry.
#include "jit/executor.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <cstring>

#include <unistd.h>

#include "interpreter/translate.h"
#include "jit/compiler.h"
#include "jit/backend.h"
#include "jit/guard_regions.h"
#include "runtime/native_stack.h"

namespace weft::jit {

bool jit_supported() { return WEFT_JIT_BACKEND != 0; }

namespace {
std::atomic<size_t> g_eager_arena_capacity_for_testing{0};
}  // namespace
void set_eager_arena_capacity_for_testing(size_t bytes) { g_eager_arena_capacity_for_testing = bytes; }

const char* machine_name() { return MacroAssembler::kMachineName; }

JitExecutor::JitExecutor(runtime::Store& store)
    : store_(store), interp_(store), environment_(CodeArena::environment()) {
  ctx_.stack = &store.stack();
  ctx_.fuel = &store.stack().fuel;
  ctx_.interp = &interp_;
  ctx_.fiber_state = interp_.fiber_runtime().switch_state();
  ctx_.interp_stack = interp_.current_stack_slot();
  ctx_.trap = &trap_;
  interp_.fiber_runtime().set_body_runner(this);
  use_entry_stubs();
}

JitExecutor::~JitExecutor() = default;

namespace {
// The stubs between the host's C convention and JIT code's: made once per process and never
// freed, because a FuncInstance may outlive the store that prepared it (a
// host function imported into several stores keeps its jit_entry).
struct EntryStubs {
  void* host_entry = nullptr;
  void* host_clause_entry = nullptr;
  void* host_adapter = nullptr;
  void* lazy_entry = nullptr;
};

const EntryStubs& entry_stubs() {
  static const EntryStubs stubs = [] {
    EntryStubs made;
    asmjit::CodeHolder holder;
    holder.init(CodeArena::environment());
    MacroAssembler masm(holder);
    constexpr int32_t ctx_stack = int32_t(offsetof(JitContext, stack));
    using R = Registers;
    // The host entry, a NativeEntry (ctx, fp, self): sets kContext and kDepth,
    // calls the code at [self + target] in JIT code's convention (the frame
    // passes through in kArg[1]), stores kDepth back, returns the status.
    auto host_entry = [&](int32_t target) {
      const size_t at = masm.offset();
      masm.enter_host_frame();
      masm.move(R::kContext, R::kArg[0]);
      masm.load64(R::kScratch, R::kContext, ctx_stack);
      load_depth(masm, R::kScratch);
      masm.call_indirect_mem(R::kArg[2], target);
      masm.load64(R::kScratch, R::kContext, ctx_stack);
      store_depth(masm, R::kScratch, R::kTemp1);  // not kReturn: the status
      masm.leave_host_frame();
      masm.align_code();
      return at;
    };
    const size_t entry = host_entry(func_entry_offset(&runtime::FuncInstance::jit_entry));
    const size_t clause_entry = host_entry(func_entry_offset(&runtime::FuncInstance::native_clause_entry));
    // The host adapter, which JIT code calls for a callee that is not JIT
    // code: the depth to the stack, the context as kArg[0], then a jump to
    // [self + native_entry] (a NativeEntry), which returns to the JIT caller.
    const size_t adapter = masm.offset();
    masm.load64(R::kScratch, R::kContext, ctx_stack);
    store_depth(masm, R::kScratch, R::kTemp1);  // the arguments are in their slots (kArg[1]), the callee in kCallee
    masm.move(R::kArg[0], R::kContext);
    masm.jump_indirect_mem(R::kArg[2], func_entry_offset(&runtime::FuncInstance::native_entry));
    masm.align_code();
    // The lazy entry (a jit_entry: the arguments in their slots at kArg[1],
    // the callee in kCallee, the return address of the caller — or of a tail
    // call's caller — in place): compiles the callee, then calls its new
    // jit_entry. Only the frame argument and the callee need keeping across
    // the C call: the pinned registers are callee-saved. A call, not a jump:
    // the new entry may be the host adapter (the interpreter runs the
    // function, which could not be compiled), which leaves a one-value result
    // in its slot only, and a tail call's direct caller (return_call, which
    // jumps here with its caller's return address in place) takes it from
    // Registers::kResult or kFloatResult: both are loaded from slot 0, where
    // JIT code also leaves it. This first call is the only one that passes here.
    const size_t lazy = masm.offset();
    masm.enter_frame();
    masm.move(R::kFrame, R::kArg[1]);
    masm.move(R::kArg[0], R::kCallee);
    masm.call_absolute(reinterpret_cast<const void*>(&weft_jit_compile_lazily));
    masm.move(R::kArg[1], R::kFrame);
    masm.move(R::kCallee, R::kReturn);
    masm.call_indirect_mem(R::kCallee, func_entry_offset(&runtime::FuncInstance::jit_entry));
    masm.load64(R::kResult, R::kFrame, 0);
    masm.fp_load(R::kFloatResult, R::kFrame, 0);
    masm.leave_frame();
    masm.return_to_caller();
    // Without them no code can be entered: every function stays interpreted.
    if (!masm.error().empty()) return made;
    // Never freed (above); held here, so that leak checkers see it held.
    static CodeArena* const arena = CodeArena::create_sealed(holder).release();
    if (!arena) return made;
    const uint8_t* base = arena->base();
    made.host_entry = const_cast<uint8_t*>(base + entry);
    made.host_clause_entry = const_cast<uint8_t*>(base + clause_entry);
    made.host_adapter = const_cast<uint8_t*>(base + adapter);
    made.lazy_entry = const_cast<uint8_t*>(base + lazy);
    return made;
  }();
  return stubs;
}
}  // namespace

// Direct callers of a function left to the interpreter get this stub: the
// register arguments to their slots, a call of the function's jit_entry (the
// host adapter, into the interpreter), and a one-value result into its
// register, as JIT code returns it.
void emit_interpreter_stub(MacroAssembler& masm, const runtime::FuncInstance* f, RelocationList* relocations) {
  for_each_register_param(*f->type, [&](uint32_t param, bool fp, Reg reg) {
    if (fp)
      masm.fp_store(Registers::kArg[1], int32_t(param * 8), FReg(reg));
    else
      masm.store64(Registers::kArg[1], int32_t(param * 8), reg);
  });
  masm.enter_frame();
  masm.move(Registers::kFrame, Registers::kArg[1]);
  const uint32_t at = masm.move_patchable(Registers::kCallee, reinterpret_cast<uint64_t>(f));
  if (relocations) relocations->add({.at = at, .index = f->index, .ref = InstanceRef::Function});
  masm.call_indirect_mem(Registers::kCallee, func_entry_offset(&runtime::FuncInstance::jit_entry));
  if (f->type->results.size() == 1) {
    const ValType t = f->type->results[0];
    if (t == ValType::f32() || t == ValType::f64())
      masm.fp_load(Registers::kFloatResult, Registers::kFrame, 0);
    else if (!t.is_vec())
      masm.load64(Registers::kResult, Registers::kFrame, 0);
  }
  masm.leave_frame();
  masm.return_to_caller();
}

void JitExecutor::use_entry_stubs() {
  const EntryStubs& stubs = entry_stubs();
  host_entry_ = stubs.host_entry;
  host_clause_entry_ = stubs.host_clause_entry;
  ctx_.host_adapter = stubs.host_adapter;
  lazy_entry_ = stubs.lazy_entry;
}

Result<void> JitExecutor::prepare_instance(runtime::Instance& instance) {
  // Every function can have an interpreter record (the fallback path, and
  // what interpreted callers embed), made at its first need
  // (interpreter::record_of) and translated only if it is ever interpreted:
  // eagerly below for the functions the compiler rejects, on first entry for
  // the rest (inside fibers, say).
  WEFT_TRY(interp_.prepare_instance_lazily(instance));
  const Module& module = *instance.module;
  const uint32_t imported = module.num_imported_functions();
  for (runtime::FuncInstance* f : instance.functions) {
    if (!f->native_entry)
      f->native_entry = reinterpret_cast<void*>(f->is_host() ? &weft_jit_enter_host : &weft_jit_enter_interpreter);
    if (!f->jit_entry) f->jit_entry = ctx_.host_adapter;
  }
  if (!host_entry_) return {};  // the stubs could not be made: nothing is compiled
  runtime::MemoryInstance* memory = instance.memories.empty() ? &no_memory_ : instance.memories[0];
  if (!store_.config().eager_compilation) {
    prepare_lazily(instance, memory);
    return {};
  }

  InstanceCode& code = code_[&instance];
  // Unchecked accesses only where the fault handler will know the code.
  if (memory->guarded && guard::available()) code.guard_slot = guard::reserve_slot();
  const bool guarded = code.guard_slot >= 0;
  const std::shared_ptr<ModuleCode> shared = code.shared = module_code(instance, guarded);
  std::shared_ptr<InstanceTemplate> compiled_before;
  {
    std::lock_guard lock(shared->mutex);
    compiled_before = shared->eager;
  }
  if (compiled_before && copy_instance_code(instance, code, *compiled_before))
    return translate_fallbacks(instance, compiled_before->fallbacks);
  // Else compiled here; the first instance's code becomes the module's template.
  std::shared_ptr<InstanceTemplate> made;
  if (!compiled_before) made = std::make_shared<InstanceTemplate>();
  size_t body_bytes = 0;
  for (const Function& f : module.functions) body_bytes += f.body.size();
  // Straight into the instance's executable memory (its arena's writable
  // view is the code buffer: no second copy); if the code outgrows the
  // arena — or the system refuses one — compiled again into a growing heap
  // buffer, copied into executable memory once.
  EagerCode compiled;
  const size_t capacity_for_testing = g_eager_arena_capacity_for_testing;
  code.arena = CodeArena::create_sealable(capacity_for_testing ? capacity_for_testing
                                                               : CodeArena::capacity_for(body_bytes, 0, MacroAssembler::kNearReach));
  if (code.arena) {
    compiled = compile_eagerly(instance, code, memory, made.get(), body_bytes);
    if (compiled.redo) {
      code.arena.reset();
      code.fiber_sites.clear();
      code.catch_sites.clear();
      code.traps.clear();
      if (made) *made = InstanceTemplate{};
    }
  }
  if (!code.arena) compiled = compile_eagerly(instance, code, memory, made.get(), body_bytes);
  std::vector<uint32_t>& fallbacks = compiled.fallbacks;
  stats_.fallbacks += uint32_t(fallbacks.size());
  stats_.fallback_reasons.insert(stats_.fallback_reasons.end(), compiled.fallback_reasons.begin(),
                                 compiled.fallback_reasons.end());
  if (made) made->fallback_reasons = std::move(compiled.fallback_reasons);
  void* base = code.base = compiled.base;
  if (base) {
    for (uint32_t i = 0; i < module.functions.size(); ++i) {
      if (code.ranges[i].second == 0) continue;
      runtime::FuncInstance* f = instance.functions[imported + i];
      f->jit_entry = static_cast<char*>(base) + code.ranges[i].first;
      f->native_entry = host_entry_;
      if (compiled.clause_entries[i] != kNoClauseEntry)
        f->native_clause_entry = static_cast<char*>(base) + compiled.clause_entries[i];
    }
    stats_.compiled += compiled.compiled;
    write_perf_map(instance, code, 0, uint32_t(code.ranges.size()));
    if (guarded) guard::publish(code.guard_slot, base, compiled.size, code.traps.data(), code.traps.size());
    if (made) {
      made->source = static_cast<const uint8_t*>(base);
      made->size = compiled.size;
      made->keep_sites(instance, code.fiber_sites, code.catch_sites, 0, 0);
      made->ranges = code.ranges;
      made->clause_entries = std::move(compiled.clause_entries);
      made->traps = code.traps;
      made->fallbacks = fallbacks;
      made->compiled = compiled.compiled;
      std::lock_guard lock(shared->mutex);
      if (!shared->eager) {  // (another thread's compilation may have come first)
        shared->eager = made;
        code.sourced.push_back(std::move(made));
      }
    }
  }
  return translate_fallbacks(instance, fallbacks);
}

// All functions go into one code buffer: a function is an offset in it. A
// function the compiler gives up on leaves its partial code behind,
// unreachable, and gets a stub into the interpreter.
JitExecutor::EagerCode JitExecutor::compile_eagerly(runtime::Instance& instance, InstanceCode& code,
                                                    runtime::MemoryInstance* memory, InstanceTemplate* made,
                                                    size_t body_bytes) {
  const Module& module = *instance.module;
  const uint32_t imported = module.num_imported_functions();
  const uint32_t count = uint32_t(module.functions.size());
  CodeArena* arena = code.arena.get();
  EagerCode out;
  out.clause_entries.assign(count, kNoClauseEntry);
  code.ranges.assign(count, {0, 0});
  asmjit::CodeHolder holder;
  holder.init(environment_);
  asmjit::CodeBuffer& text = holder.textSection()->_buffer;
  if (arena) {
    // An external, fixed buffer: the assembler writes into it, never
    // reallocates or frees it, and fails when it is full.
    text._data = arena->unsealed_base();
    text._size = 0;
    text._capacity = arena->capacity();
    text._flags = asmjit::CodeBufferFlags::kIsExternal | asmjit::CodeBufferFlags::kIsFixed;
  } else {
    // Room up front: growing by doubling copied the buffer (about twice its
    // final size) and touched fresh pages each time. Untouched room costs
    // address space only.
    holder.reserveBuffer(&text, body_bytes * 6 + 64 * 1024);  // failing: grows as before
  }
  // Relocations: about one per ten bytes of body in C programs and Binaryen's code.
  if (made) made->relocations.reserve(body_bytes / 8);
  MacroAssembler masm(holder);
  // Labels: each function's entry, then one function's own at a time (its
  // eight or nine, plus those of its blocks and traps: released once it is
  // compiled). Growing beyond this copies a short list.
  masm.reserve_labels(size_t(count) + 4096);
  // Each function's register entry (FunctionCompiler::register_entry), the
  // target of direct calls from the instance's code.
  const Label first_entry = masm.new_labels(count);
  auto direct_entry = [&](uint32_t i) { return Label{first_entry.id + i}; };
  for (uint32_t i = 0; i < count; ++i) {
    if (i + 2 < count) {
      // The records the prefetches below read for the function after next
      // (its Function record and its type: a load that misses stalls the
      // prefetch that needs its value), fetched a function ahead of those.
      const Function* after_next = &module.functions[i + 2];
      __builtin_prefetch(after_next);
      __builtin_prefetch(reinterpret_cast<const char*>(after_next + 1) - 1);
      __builtin_prefetch(&module.types[instance.info->function_types[imported + i + 2]]);
    }
    if (i + 1 < count) {
      // What the next function's compiler reads first, each object its own
      // heap block: fetched while this one compiles.
      const Function& next = module.functions[i + 1];
      const runtime::FuncInstance* next_function = instance.functions[imported + i + 1];  // (80 bytes: two lines, often)
      __builtin_prefetch(next_function);
      __builtin_prefetch(reinterpret_cast<const char*>(next_function + 1) - 1);
      __builtin_prefetch(next.body.data());
      __builtin_prefetch(next.locals.data());
      const FuncType& next_type = module.types[next.type_index];
      __builtin_prefetch(next_type.params.data());
      __builtin_prefetch(next_type.results.data());  // (float_result: the return, the end)
      const validator::FunctionInfo* next_info = &instance.info->functions[i + 1];  // (its last fields: fiber_stubs)
      __builtin_prefetch(next_info);
      __builtin_prefetch(reinterpret_cast<const char*>(next_info + 1) - 1);
    }
    masm.align_code();
    const size_t start = masm.offset();
    const uint32_t first_label = masm.label_count();
    FunctionCompiler compiler(instance, i, memory, masm, store_.fuel_enabled());
    compiler.set_fiber_sites(&code.fiber_sites, &ctx_);
    compiler.set_catch_sites(&code.catch_sites);
    compiler.set_guarded_memory(code.guard_slot >= 0);
    compiler.set_direct_call_entries(first_entry);
    if (made) compiler.set_relocations(&made->relocations);
    Result<void> r = compiler.compile();
    if (r.ok()) {
      masm.bind_at(direct_entry(i), compiler.register_entry());
      code.ranges[i] = {uint32_t(start), uint32_t(masm.offset() - start)};
      if (const Label* entry = compiler.clause_entry()) out.clause_entries[i] = masm.offset_of(*entry);
      if (const Label* trap = compiler.memory_trap())
        code.traps.push_back({uint32_t(start), uint32_t(masm.offset()), uint32_t(masm.offset_of(*trap))});
      ++out.compiled;
      masm.release_labels(first_label);
      continue;
    }
    // The arena is full (its last bytes are where the assembler stopped): all again, on the heap.
    if (arena && masm.offset() + kFullArenaMargin > arena->capacity()) {
      out.redo = true;
      return out;
    }
    // Labels the abandoned code left unbound would fail the whole buffer's
    // relocation: bind them where it ends (after its jump tables, so that
    // none is left for the next function to place).
    masm.place_jump_tables();
    masm.bind_unbound(first_label);
    masm.clear_error();
    masm.bind(direct_entry(i));
    // Relocations of the abandoned code stay: its bytes are copied too, unreachable.
    emit_interpreter_stub(masm, instance.functions[imported + i], made ? &made->relocations : nullptr);
    masm.release_labels(first_label);
    out.fallbacks.push_back(i);
    out.fallback_reasons.push_back("function " + std::to_string(imported + i) + " (" +
                                   module.function_name(imported + i) + "): " + r.error().message);
  }
  if (arena) {
    // In place if asmjit has nothing left to resolve and nothing to relocate
    // but expressions (AArch64's jump-table entries, label differences): the
    // code refers to itself by offsets only (which is also why copies of it work).
    bool in_place = masm.error().empty() && !holder.hasUnresolvedLinks();
    if (in_place && !holder.relocEntries().empty()) {
      for (const asmjit::RelocEntry* re : holder.relocEntries()) in_place &= re->relocType() == asmjit::RelocType::kExpression;
      in_place = in_place && holder.flatten() == asmjit::kErrorOk &&
                 holder.relocateToBase(reinterpret_cast<uintptr_t>(arena->base())) == asmjit::kErrorOk;
    }
    if (!in_place || holder.sectionCount() != 1 || holder.textSection()->bufferSize() != masm.offset()) {
      out.redo = true;
      return out;
    }
    out.size = masm.offset();
    if (!arena->seal(out.size)) {
      out.redo = true;
      return out;
    }
    out.base = const_cast<uint8_t*>(arena->base());
    return out;
  }
  // Relocated into executable memory of its size.
  if (out.compiled && !(code.arena = CodeArena::create_sealed(holder))) {
    for (uint32_t i = 0; i < count; ++i) {
      if (code.ranges[i].second == 0) continue;
      code.ranges[i] = {0, 0};
      out.fallbacks.push_back(i);
      out.fallback_reasons.push_back("function " + std::to_string(imported + i) + " (" +
                                     module.function_name(imported + i) + "): code memory allocation failed");
    }
    out.compiled = 0;
  }
  if (code.arena) {
    out.base = const_cast<uint8_t*>(code.arena->base());
    out.size = code.arena->used();
  }
  return out;
}

// The functions left to the interpreter: translated now only with
// Config::eager_compilation, else at their first call (as on the interpreter tier).
Result<void> JitExecutor::translate_fallbacks(runtime::Instance& instance, const std::vector<uint32_t>& fallbacks) {
  if (!store_.config().eager_compilation) return {};
  const uint32_t imported = instance.module->num_imported_functions();
  for (uint32_t i : fallbacks) {
    Result<void> r = interpreter::ensure_translated(
        *interpreter::record_of(instance.functions[imported + i]));
    if (!r.ok()) {
      release_instance(instance);
      return r;
    }
  }
  return {};
}

std::shared_ptr<ModuleCode> JitExecutor::module_code(const runtime::Instance& instance, bool guarded) const {
  const Module& module = *instance.module;
  CodeShape shape;
  shape.host_imports.resize(module.num_imported_functions());
  for (size_t i = 0; i < shape.host_imports.size(); ++i) shape.host_imports[i] = instance.functions[i]->is_host();
  shape.guarded = guarded;
  shape.metered = store_.fuel_enabled();
  shape.interruptible = store_.interruptible();
  shape.interpreted = store_.config().jit_interpreted_functions;
  shape.eager = store_.config().eager_compilation;
  return shared_module_code(instance.module, std::move(shape));
}

bool JitExecutor::copy_instance_code(runtime::Instance& instance, InstanceCode& code, const InstanceTemplate& from) {
  runtime::MemoryInstance* memory = instance.memories.empty() ? &no_memory_ : instance.memories[0];
  // Straight into executable memory (sealed once written): one copy.
  std::unique_ptr<CodeArena> arena;
  size_t size = 0;
  {
    std::lock_guard lock(code.shared->mutex);
    size = from.code().size();
    if (size == 0 || !(arena = CodeArena::create_sealable(size))) return false;
    if (!from.instantiate(instance, memory, &ctx_, code.fiber_sites, code.catch_sites, arena->unsealed_base()))
      return false;
  }
  if (!arena->seal(size)) return false;
  void* base = const_cast<uint8_t*>(arena->base());
  code.arena = std::move(arena);
  code.base = base;
  code.ranges = from.ranges;
  code.traps = from.traps;
  const uint32_t imported = instance.module->num_imported_functions();
  for (uint32_t i = 0; i < code.ranges.size(); ++i) {
    if (code.ranges[i].second == 0) continue;
    runtime::FuncInstance* f = instance.functions[imported + i];
    f->jit_entry = static_cast<char*>(base) + code.ranges[i].first;
    f->native_entry = host_entry_;
    if (from.clause_entries[i] != UINT32_MAX) f->native_clause_entry = static_cast<char*>(base) + from.clause_entries[i];
  }
  stats_.reused += from.compiled;
  stats_.fallbacks += uint32_t(from.fallbacks.size());
  stats_.fallback_reasons.insert(stats_.fallback_reasons.end(), from.fallback_reasons.begin(),
                                 from.fallback_reasons.end());
  write_perf_map(instance, code, 0, uint32_t(code.ranges.size()));
  if (code.guard_slot >= 0) guard::publish(code.guard_slot, base, size, code.traps.data(), code.traps.size());
  return true;
}

// Config::perf_map (`weft run --profile=perfmap`) or WEFT_PERF_MAP=1: name
// the generated code for `perf report` (perf's JIT symbol-map convention:
// /tmp/perf-PID.map, "START SIZE name" in hex).
void JitExecutor::write_perf_map(const runtime::Instance& instance, const InstanceCode& code, uint32_t first,
                                 uint32_t end) {
  static const bool by_environment = [] {
    const char* v = std::getenv("WEFT_PERF_MAP");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  if (!by_environment && !store_.config().perf_map) return;
  char path[64];
  std::snprintf(path, sizeof path, "/tmp/perf-%d.map", int(getpid()));
  std::FILE* out = std::fopen(path, "a");
  if (!out) return;
  const Module& module = *instance.module;
  const uint32_t imported = module.num_imported_functions();
  for (uint32_t i = first; i < end; ++i) {
    auto [offset, size] = code.ranges[i];
    if (size == 0) continue;
    std::fprintf(out, "%lx %x wasm:%s\n", (unsigned long)(reinterpret_cast<uintptr_t>(code.base) + offset), size,
                 module.function_name(imported + i).c_str());
  }
  std::fclose(out);
}

void JitExecutor::release_instance(runtime::Instance& instance) {
  auto it = code_.find(&instance);
  if (it != code_.end()) {
    if (!it->second.sourced.empty()) {
      // The module's templates still read this code: they keep a copy, unless
      // this instance holds the module's last reference (no instance can come).
      const bool more_may_come = instance.module.use_count() > 1;
      std::lock_guard lock(it->second.shared->mutex);
      for (const auto& t : it->second.sourced) t->detach(more_may_come);
    }
    if (it->second.guard_slot >= 0) guard::release_slot(it->second.guard_slot);
    code_.erase(it);
  }
  for (runtime::FuncInstance* f : instance.functions)
    if (f->instance == &instance) f->native_clause_entry = nullptr;
  interp_.release_instance(instance);
}

std::pair<const void*, size_t> JitExecutor::code_of(const runtime::FuncInstance* func) const {
  if (func->is_host()) return {nullptr, 0};
  auto it = code_.find(func->instance);
  if (it == code_.end() || !it->second.base) return {nullptr, 0};
  uint32_t defined = func->index - func->instance->module->num_imported_functions();
  if (defined >= it->second.ranges.size()) return {nullptr, 0};
  auto [offset, size] = it->second.ranges[defined];
  if (size == 0) return {nullptr, 0};
  return {static_cast<const char*>(it->second.base) + offset, size};
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

bool JitExecutor::runs(runtime::FuncInstance* fn) {
  // A fiber body still waiting for its first call is compiled now: if that
  // fails, the interpreter runs it.
  compile_lazily(fn);
  return is_jit_code(fn);
}

// A fiber's body: its ExecStack is current (fiber_main set it up). The code
// checks its own frame against the stack on entry; here only the arguments'
// room. Traps come back as the fiber's result, which the fiber runtime turns
// into the segment's abort.
Result<void> JitExecutor::run(runtime::FuncInstance* fn, runtime::Slot* fp, const runtime::ExecStack& exec,
                              uint64_t handle, std::span<const uint64_t> args, bool deliver_event) {
  if (uint64_t(exec.limit - exec.base) < uint64_t(std::max(fn->param_slots, fn->result_slots)) + 1)
    return make_error(ErrorKind::Exhaustion, runtime::trap_message(runtime::TrapKind::CallStackExhausted));
  fp[0].u64 = handle;
  if (!args.empty()) std::memcpy(fp + 1, args.data(), args.size() * sizeof(uint64_t));
  sync_after_switch(&ctx_);
  void* entry = fn->native_entry;
  if (deliver_event) {
    // A fresh fiber's first event enters a function-level clause.
    if (!fn->native_clause_entry)
      return make_error(ErrorKind::Trap, runtime::trap_message(runtime::TrapKind::UnhandledEvent));
    entry = host_clause_entry_;
    ctx_.event_tag = interp_.fiber_runtime().event_tag();
  }
  uint32_t status = reinterpret_cast<NativeEntry>(entry)(&ctx_, reinterpret_cast<uint64_t*>(fp), fn);
  if (status != 0) return take_trap();
  return {};
}

}  // namespace weft::jit
