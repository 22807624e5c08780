// Lazy compilation (the default; Config::eager_compilation turns it off): an
// instance's functions start with the lazy entry (entry_stubs in
// executor.cc) as their FuncInstance::jit_entry, and each is compiled on its
// own at its first call, into the instance's CodeArena, after which callers
// through jit_entry (the host, tables, other instances) reach its code. A
// module therefore starts without compiling what it never runs.
//
// Direct calls between a module's functions stay direct: the arena starts
// with one slot of code per function, which a caller `call`s with the
// arguments in registers. A slot first loads the function's index and jumps
// to the arena's lazy stub (which keeps the argument registers in the
// JitContext while weft_jit_compile_direct compiles the function); once the
// function is compiled its slot is rewritten to jump to the register entry,
// and the calls that went to the slot are rewritten to call the entry (a
// call of a function already compiled names the entry from the start), so
// warm code calls as eagerly compiled code does. A function the JIT rejects
// gets a stub into the interpreter, and its slot and calls go there.
//
// The module was validated whole before any of this: a function that fails
// to compile here runs in the interpreter, as it would have after an eager
// compilation that rejected it.
#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "jit/backend.h"
#include "jit/compiler.h"
#include "jit/executor.h"
#include "runtime/store.h"

namespace weft::jit {

namespace {
constexpr uint32_t kSlotSize = 16;  // a direct-call slot: an index load and a jump
constexpr size_t kStubRoom = 512;   // per function, for its stub into the interpreter
constexpr size_t kFunctionAlignment = std::max<size_t>(16, MacroAssembler::kLoopAlignment);

// Address space reserved for an instance's code (pages are backed only as
// code is written): enough for the code of every function, which is a few
// bytes per byte of Wasm and at worst ~30 (a body of nothing but calls), and
// within the reach of a direct call from any of it to any slot.
size_t arena_capacity(const Module& module) {
  size_t body_bytes = 0;
  for (const Function& f : module.functions) body_bytes += f.body.size();
  const size_t slots_and_stubs = module.functions.size() * (kSlotSize + kStubRoom);
  return CodeArena::capacity_for(body_bytes, slots_and_stubs, MacroAssembler::kNearReach);
}
}  // namespace

void JitExecutor::prepare_lazily(runtime::Instance& instance, runtime::MemoryInstance* memory) {
  const Module& module = *instance.module;
  // The arena comes with the first compiled function: an instance whose
  // code never runs costs no mapping.
  InstanceCode& code = code_[&instance];
  code.memory = memory;
  code.ranges.assign(module.functions.size(), {0, 0});
  if (memory->guarded && guard::available()) code.guard_slot = guard::reserve_slot();
  code.shared = module_code(instance, code.guard_slot >= 0);
  const uint32_t imported = module.num_imported_functions();
  for (uint32_t i = 0; i < module.functions.size(); ++i) {
    runtime::FuncInstance* f = instance.functions[imported + i];
    f->jit_entry = lazy_entry_;
    f->native_entry = host_entry_;
  }
}

void JitExecutor::fall_back(runtime::FuncInstance* f, const std::string& reason) {
  f->jit_entry = ctx_.host_adapter;
  f->native_entry = reinterpret_cast<void*>(&weft_jit_enter_interpreter);
  // Its direct callers now go into the interpreter too (the stub's room was
  // kept when the arena was made).
  InstanceCode& code = code_.at(f->instance);
  if (code.arena) {
    asmjit::CodeHolder holder;
    holder.init(environment_);
    MacroAssembler masm(holder);
    emit_interpreter_stub(masm, f);
    const int64_t at = code.arena->place(holder, 16, /*stub=*/true);
    if (at >= 0) point_slot(code, f->index - f->instance->module->num_imported_functions(), code.arena->base() + at);
  }
  ++stats_.fallbacks;
  stats_.fallback_reasons.push_back("function " + std::to_string(f->index) + " (" +
                                    f->instance->module->function_name(f->index) + "): " + reason);
}

// The arena, its direct-call slots (each: its index into kScratch, a jump to
// the lazy stub) and the lazy stub after them.
bool JitExecutor::make_arena(runtime::Instance& instance, InstanceCode& code) {
  const Module& module = *instance.module;
  const uint32_t count = uint32_t(module.functions.size());
  code.arena = CodeArena::create(arena_capacity(module), size_t(count) * kStubRoom);
  if (!code.arena) return false;
  code.register_entries.assign(count, nullptr);
  code.slot_calls.assign(count, {});
  code.base = const_cast<uint8_t*>(code.arena->base());
  asmjit::CodeHolder holder;
  holder.init(environment_);
  MacroAssembler masm(holder);
  using R = Registers;
  const Label stub = masm.new_label();
  for (uint32_t i = 0; i < count; ++i) {
    masm.move_imm(R::kScratch, i);
    masm.jump(stub);
    masm.align_code(kSlotSize);
  }
  const bool slots_fit = masm.offset() == size_t(count) * kSlotSize;  // no slot outgrew its size
  // The argument registers (and the frame argument) into the context, the
  // helper called, everything back, then on to the slot it returns: the call
  // arrives at the register entry as if nothing had happened between.
  masm.bind(stub);
  masm.enter_frame();
  constexpr int32_t saved = int32_t(offsetof(JitContext, lazy_saved));
  int32_t at = saved;
  for (Reg r : R::kParams) masm.store64(R::kContext, (at += 8) - 8, r);
  for (FReg f : R::kFloatParams) masm.fp_store(R::kContext, (at += 8) - 8, f);
  masm.store64(R::kContext, at, R::kArg[1]);
  static_assert(std::size(R::kParams) + std::size(R::kFloatParams) + 1 <= std::size(JitContext{}.lazy_saved));
  static_assert(R::kArg[0] != R::kScratch && R::kArg[1] != R::kScratch, "the helper's arguments survive call_absolute");
  masm.move(R::kArg[1], R::kScratch);
  masm.move_imm(R::kArg[0], reinterpret_cast<uint64_t>(&instance));
  masm.call_absolute(reinterpret_cast<const void*>(&weft_jit_compile_direct));
  masm.store64(R::kContext, int32_t(offsetof(JitContext, lazy_target)), R::kReturn);
  at = saved;
  for (Reg r : R::kParams) masm.load64(r, R::kContext, (at += 8) - 8);
  for (FReg f : R::kFloatParams) masm.fp_load(f, R::kContext, (at += 8) - 8);
  masm.load64(R::kArg[1], R::kContext, at);
  masm.leave_frame();
  masm.jump_indirect_mem(R::kContext, int32_t(offsetof(JitContext, lazy_target)));
  if (!slots_fit || !masm.error().empty() || code.arena->place(holder, kFunctionAlignment) != 0) {
    code.arena.reset();
    code.base = nullptr;
    return false;
  }
  return true;
}

namespace {
// The bytes of a direct jump (or call) at `at` to `target`.
void write_branch(CodeArena& arena, const asmjit::Environment& environment, size_t at, const void* target,
                  bool call) {
  asmjit::CodeHolder holder;
  holder.init(environment);
  MacroAssembler masm(holder);
  masm.set_code_address(reinterpret_cast<uintptr_t>(arena.base() + at));
  if (call)
    masm.call_near(target);
  else
    masm.jump_near(target);
  const asmjit::Section* text = holder.textSection();
  arena.rewrite(at, text->data(), text->bufferSize());
}
}  // namespace

void JitExecutor::point_slot(InstanceCode& code, uint32_t defined, const uint8_t* entry) {
  code.register_entries[defined] = entry;
  write_branch(*code.arena, environment_, size_t(defined) * kSlotSize, entry, /*call=*/false);
  // A call rewritten in place keeps its length: a return address into the
  // code after it stays good.
  for (uint32_t site : code.slot_calls[defined]) write_branch(*code.arena, environment_, site, entry, true);
  code.slot_calls[defined] = {};
}

void JitExecutor::compile_lazily(runtime::FuncInstance* f) {
  if (f->jit_entry != lazy_entry_) return;
  runtime::Instance& instance = *f->instance;
  // A function is compiled by its own store's JIT (whose context its code
  // embeds), even when another store's code calls it. Its lazy entry was set
  // by a JitExecutor, so that is what that store runs.
  if (&instance.store->executor() != this)
    return static_cast<JitExecutor&>(instance.store->executor()).compile_lazily(f);
  InstanceCode& code = code_.at(&instance);
  const uint32_t defined = f->index - instance.module->num_imported_functions();
  if (!code.arena && !make_arena(instance, code)) return fall_back(f, "no code memory (the mapping was refused)");
  // Compiled for an earlier instance of the module: copied (or rejected) as it was then.
  ModuleCode& shared = *code.shared;
  std::shared_ptr<FunctionTemplate> compiled_before;
  std::string rejected_before;
  {
    std::lock_guard lock(shared.mutex);
    compiled_before = shared.functions[defined];
    if (const auto it = shared.rejected.find(defined); it != shared.rejected.end()) rejected_before = it->second;
  }
  if (!rejected_before.empty()) return fall_back(f, rejected_before);
  if (compiled_before && copy_function_code(f, code, *compiled_before)) return;
  std::shared_ptr<FunctionTemplate> made;
  if (!compiled_before) made = std::make_shared<FunctionTemplate>();
  const size_t first_fiber_site = code.fiber_sites.size(), first_catch_site = code.catch_sites.size();
  // On the heap: this may run on a fiber's native stack, with only the
  // room a function entry guarantees (runtime/native_stack.h).
  struct Compilation {
    asmjit::CodeHolder holder;
    std::optional<MacroAssembler> masm;
    std::optional<FunctionCompiler> compiler;
  };
  auto c = std::make_unique<Compilation>();
  c->holder.init(environment_);
  MacroAssembler& masm = c->masm.emplace(c->holder);
  const size_t planned = code.arena->next(kFunctionAlignment);
  masm.set_code_address(reinterpret_cast<uintptr_t>(code.arena->base() + planned));
  masm.start_movable_function();
  FunctionCompiler& compiler = c->compiler.emplace(instance, defined, code.memory, masm, store_.fuel_enabled());
  compiler.set_fiber_sites(&code.fiber_sites, &ctx_);
    compiler.set_catch_sites(&code.catch_sites);
  compiler.set_guarded_memory(code.guard_slot >= 0);
  std::vector<std::pair<uint32_t, uint32_t>> slot_calls;  // {callee, offset of the call}
  compiler.set_direct_call_slots(code.arena->base(), kSlotSize, &code.register_entries, &slot_calls);
  if (made) compiler.set_relocations(&made->relocations);
  Result<void> r = compiler.compile();
  if (!r.ok()) {
    {
      std::lock_guard lock(shared.mutex);
      shared.rejected[defined] = r.error().message;
    }
    return fall_back(f, r.error().message);
  }
  const int64_t at = code.arena->place(c->holder, kFunctionAlignment, /*stub=*/false, masm.function_shift());
  if (at < 0) return fall_back(f, "code memory exhausted");
  if (size_t(at) != planned + masm.function_shift()) return fall_back(f, "code placed away from its planned address");
  const uint32_t size = uint32_t(masm.offset());
  uint8_t* start = static_cast<uint8_t*>(code.base) + at;
  code.ranges[defined] = {uint32_t(at), size};
  if (const Label* entry = compiler.clause_entry()) f->native_clause_entry = start + masm.offset_of(*entry);
  if (const Label* trap = compiler.memory_trap()) {
    // Placed in address order: the fault handler's binary search holds.
    code.traps.push_back({uint32_t(at), uint32_t(at) + size, uint32_t(at) + masm.offset_of(*trap)});
    guard::publish(code.guard_slot, code.base, code.arena->used(), code.traps.data(), code.traps.size());
  }
  for (auto [callee, offset] : slot_calls)
    if (!code.register_entries[callee]) code.slot_calls[callee].push_back(uint32_t(at) + offset);
  f->jit_entry = start;
  point_slot(code, defined, start + compiler.register_entry());
  ++stats_.compiled;
  write_perf_map(instance, code, defined, defined + 1);
  if (made) {
    // The module's template of this function: its bytes as placed, its sites
    // (relocations renumbered from the function's first), its entries.
    made->source = start;
    made->size = size;
    made->keep_sites(instance, std::span(code.fiber_sites).subspan(first_fiber_site),
                     std::span(code.catch_sites).subspan(first_catch_site), uint32_t(first_fiber_site),
                     uint32_t(first_catch_site));
    made->shift = masm.function_shift();
    made->register_entry = compiler.register_entry();
    if (const Label* entry = compiler.clause_entry()) made->clause_entry = masm.offset_of(*entry);
    if (const Label* trap = compiler.memory_trap()) made->memory_trap = masm.offset_of(*trap);
    made->direct_calls = std::move(slot_calls);
    std::lock_guard lock(shared.mutex);
    if (!shared.functions[defined]) {
      shared.functions[defined] = made;
      code.sourced.push_back(std::move(made));
    }
  }
}

bool JitExecutor::copy_function_code(runtime::FuncInstance* f, InstanceCode& code, const FunctionTemplate& from) {
  runtime::Instance& instance = *f->instance;
  const uint32_t defined = f->index - instance.module->num_imported_functions();
  // Written in place in the arena (its writable view), then published.
  size_t at = 0;
  uint32_t size = 0;
  {
    std::lock_guard lock(code.shared->mutex);
    size = uint32_t(from.code().size());
    uint8_t* out = code.arena->claim(size, kFunctionAlignment, from.shift, at);
    if (!out || !from.instantiate(instance, code.memory, &ctx_, code.fiber_sites, code.catch_sites, out)) return false;
  }
  code.arena->publish(at, size);
  uint8_t* start = static_cast<uint8_t*>(code.base) + at;
  code.ranges[defined] = {uint32_t(at), size};
  // Its direct calls still name the first instance's code: each goes to the
  // callee's entry here, or to its slot until it is compiled.
  for (auto [callee, offset] : from.direct_calls) {
    if (const uint8_t* entry = code.register_entries[callee]) {
      write_branch(*code.arena, environment_, size_t(at) + offset, entry, true);
    } else {
      write_branch(*code.arena, environment_, size_t(at) + offset,
                   code.arena->base() + size_t(callee) * kSlotSize, true);
      code.slot_calls[callee].push_back(uint32_t(at) + offset);
    }
  }
  if (from.clause_entry != UINT32_MAX) f->native_clause_entry = start + from.clause_entry;
  if (from.memory_trap != UINT32_MAX) {
    code.traps.push_back({uint32_t(at), uint32_t(at) + size, uint32_t(at) + from.memory_trap});
    guard::publish(code.guard_slot, code.base, code.arena->used(), code.traps.data(), code.traps.size());
  }
  f->jit_entry = start;
  point_slot(code, defined, start + from.register_entry);
  ++stats_.reused;
  write_perf_map(instance, code, defined, defined + 1);
  return true;
}

extern "C" const void* weft_jit_compile_direct(runtime::Instance* instance, uint32_t defined) {
  auto& executor = static_cast<JitExecutor&>(instance->store->executor());  // the slot's instance's (see compile_lazily)
  executor.compile_lazily(instance->functions[instance->module->num_imported_functions() + defined]);
  return executor.direct_slot(instance, defined);
}

const void* JitExecutor::direct_slot(const runtime::Instance* instance, uint32_t defined) const {
  return code_.at(instance).arena->base() + size_t(defined) * kSlotSize;
}

extern "C" runtime::FuncInstance* weft_jit_compile_lazily(runtime::FuncInstance* self) {
  static_cast<JitExecutor&>(self->instance->store->executor()).compile_lazily(self);  // see compile_lazily
  return self;
}

}  // namespace weft::jit
