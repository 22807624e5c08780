// Engine, Store, Linker, Instance and Value behind the public API.
#include <cinttypes>
#include <cstring>
#include <utility>

#include "api/module_impl.h"
#include "core/module.h"
#include "interpreter/interpreter.h"
#ifdef WEFT_HAVE_JIT
#include "jit/executor.h"
#endif
#include "runtime/fiber_runtime.h"
#include "runtime/instantiate.h"
#include "runtime/store.h"
#include "weft/weft.h"

namespace weft {

// ---- Value -------------------------------------------------------------------

Value Value::f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return f32_bits(bits);
}
Value Value::f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return f64_bits(bits);
}
float Value::as_f32() const {
  float f;
  uint32_t bits = f32_bits();
  std::memcpy(&f, &bits, 4);
  return f;
}
double Value::as_f64() const {
  double d;
  std::memcpy(&d, &raw_[0], 8);
  return d;
}
Value Value::from_raw(ValType type, const uint64_t* slots) {
  Value v(type, slots[0]);
  if (type.kind == ValType::V128) v.raw_[1] = slots[1];
  if (type.kind == ValType::I32 || type.kind == ValType::F32) v.raw_[0] = uint32_t(slots[0]);
  return v;
}

std::string Value::to_string() const {
  char buf[96];
  switch (type_.kind) {
    case ValType::I32: std::snprintf(buf, sizeof buf, "%" PRIu32, as_i32()); break;
    case ValType::I64: std::snprintf(buf, sizeof buf, "%" PRIu64, as_i64()); break;
    case ValType::F32: std::snprintf(buf, sizeof buf, "%.9g", double(as_f32())); break;
    case ValType::F64: std::snprintf(buf, sizeof buf, "%.17g", as_f64()); break;
    case ValType::V128:
      std::snprintf(buf, sizeof buf, "0x%016" PRIx64 "%016" PRIx64, raw_[1], raw_[0]);
      break;
    default:
      if (is_null()) return "null";
      if (type_.kind == ValType::ExternRef) std::snprintf(buf, sizeof buf, "extern:%" PRIu64, extern_value());
      else std::snprintf(buf, sizeof buf, "ref:0x%" PRIx64, raw_[0]);
      break;
  }
  return buf;
}

// ---- Engine, Linker, Instance ---------------------------------------------

Engine::Engine(Config config) : config_(config) {}

void Linker::define(std::string module, std::string name, Extern value) {
  for (Entry& e : entries_) {
    if (e.module == module && e.name == name) {
      e.value = value;
      return;
    }
  }
  entries_.push_back({std::move(module), std::move(name), value});
}

void Linker::define_instance(const std::string& module, const Instance& instance) {
  for (auto& [name, ext] : instance.exports()) define(module, name, ext);
}

std::optional<Extern> Linker::find(std::string_view module, std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.module == module && e.name == name) return e.value;
  return std::nullopt;
}

std::optional<Extern> Instance::get_export(std::string_view name) const {
  for (auto& [n, v] : raw->exports)
    if (n == name) return Extern{v.first, v.second};
  return std::nullopt;
}

std::vector<DispatchSiteInfo> Instance::dispatch_sites() const {
  std::vector<DispatchSiteInfo> out;
  const Module& module = *raw->module;
  for (const interpreter::DispatchSiteOf& of : interpreter::dispatch_sites(*raw)) {
    const runtime::DispatchSite& site = *of.site;
    DispatchSiteInfo info;
    info.function = of.function;
    info.function_name = module.function_name(of.function);
    info.code_offset = site.code_pos;
    info.function_entry = of.function_entry;
    for (const auto& clause : site.clauses) info.tags.push_back({clause.tag_index, raw->tags[clause.tag_index]->id});
    info.table_size = site.table.size();
    info.multiplier = site.table.multiplier();
    info.shift = site.table.shift();
    info.build_attempts = site.table.attempts();
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::pair<std::string, Extern>> Instance::exports() const {
  std::vector<std::pair<std::string, Extern>> out;
  for (auto& [n, v] : raw->exports) out.push_back({n, Extern{v.first, v.second}});
  return out;
}

// ---- Store -------------------------------------------------------------------

namespace {

// The configuration the runtime store works under: the engine's, with guard
// regions only where JIT code uses them. A guarded memory reserves 8 GiB of
// address space so that JIT code can skip bounds checks; the interpreter, and
// JIT code where weft has no fault handler (AArch64 today, or a runtime that
// keeps its own SIGSEGV handler), check every access and would only pay for
// the reservation — under qemu-user, whose page bookkeeping grows with it,
// ~50 MB and 0.3 s per memory (memory_copy.wast: 33 memories, 10.2 s and
// 1.7 GB with the reservation, 0.5 s and 57 MB without).
Config runtime_config(const Config& config) {
  Config effective = config;
  bool jit_uses_guard_regions = false;
#ifdef WEFT_HAVE_JIT
  jit_uses_guard_regions =
      config.guard_regions && config.tier == Tier::Jit && jit::jit_supported() && jit::guard::available();
#endif
  effective.guard_regions = jit_uses_guard_regions;
  return effective;
}

}  // namespace

Store::Store(const Engine& engine)
    : engine_(&engine), store_(std::make_unique<runtime::Store>(runtime_config(engine.config()))) {
#ifdef WEFT_HAVE_JIT
  if (engine.config().tier == Tier::Jit && jit::jit_supported()) {
    store_->set_executor(std::make_unique<jit::JitExecutor>(*store_));
    return;
  }
#endif
  store_->set_executor(std::make_unique<interpreter::Interpreter>(*store_));
}

TierStats Store::tier_stats() const {
  TierStats stats;
#ifdef WEFT_HAVE_JIT
  if (auto* jit = dynamic_cast<const jit::JitExecutor*>(&store_->executor())) {
    stats.tier = Tier::Jit;
    stats.jit_compiled = jit->stats().compiled;
    stats.jit_reused = jit->stats().reused;
    stats.jit_fallbacks = jit->stats().fallbacks;
    stats.fallback_reasons = jit->stats().fallback_reasons;
  }
#endif
  return stats;
}

std::span<const uint8_t> Store::jit_code(Extern func) const {
#ifdef WEFT_HAVE_JIT
  if (auto* jit = dynamic_cast<const jit::JitExecutor*>(&store_->executor()); jit && func.kind == ExternKind::Func) {
    auto [code, size] = jit->code_of(static_cast<const runtime::FuncInstance*>(func.object));
    return {static_cast<const uint8_t*>(code), size};
  }
#endif
  (void)func;
  return {};
}

const char* Store::jit_machine() {
#ifdef WEFT_HAVE_JIT
  return jit::machine_name();
#else
  return "";
#endif
}

Store::~Store() = default;

Result<Instance> Store::instantiate(const WasmModule& module, const Linker& linker) {
  std::vector<Extern> imports;
  imports.reserve(module.ir().imports.size());
  for (const Import& imp : module.ir().imports) {
    std::optional<Extern> ext = linker.find(imp.module, imp.name);
    if (!ext)
      return make_error(ErrorKind::Unlinkable, "unknown import \"" + imp.module + "\" \"" + imp.name + "\"");
    imports.push_back(*ext);
  }
  return instantiate(module, imports);
}

Result<Instance> Store::instantiate(const WasmModule& module, std::span<const Extern> imports) {
  const Module& ir = module.ir();
  if (imports.size() != ir.imports.size())
    return make_error(ErrorKind::Unlinkable, "expected " + std::to_string(ir.imports.size()) + " imports, got " +
                                                 std::to_string(imports.size()));
  std::vector<runtime::ExternValue> resolved;
  resolved.reserve(imports.size());
  for (size_t i = 0; i < imports.size(); ++i) {
    if (!imports[i].object)
      return make_error(ErrorKind::Unlinkable, "import " + std::to_string(i) + " (\"" + ir.imports[i].module +
                                                   "\" \"" + ir.imports[i].name + "\") is missing");
    resolved.push_back({imports[i].kind, imports[i].object});
  }
  WEFT_TRY_ASSIGN(runtime::Instance * inst,
                  runtime::instantiate(*store_, module.impl->module, module.impl->info, resolved));
  Instance out;
  out.raw = inst;
  return out;
}

Extern Store::create_host_function(FuncType type, HostCallback callback, std::string debug_name) {
  return create_host_function(
      std::move(type),
      [cb = std::move(callback)](const Caller&, std::span<const Value> args, std::span<Value> results) {
        return cb(args, results);
      },
      std::move(debug_name));
}

Extern Store::create_host_function(FuncType type, HostCallbackWithCaller callback, std::string debug_name) {
  FuncType copy = type;
  runtime::Store* store = store_.get();
  runtime::FuncInstance* f = store_->add_host_function(
      type,
      [copy, store, cb = std::move(callback)](const uint64_t* args, uint64_t* results) -> Result<void> {
        // Taken at once: a call back into Wasm may call other host functions.
        Caller caller;
        if (runtime::Instance* from = std::exchange(store->host_caller, nullptr)) caller.instance = Instance{from};
        std::vector<Value> in;
        in.reserve(copy.params.size());
        for (ValType t : copy.params) {
          in.push_back(Value::from_raw(t, args));
          args += t.slots();
        }
        std::vector<Value> out(copy.results.size());
        for (size_t i = 0; i < out.size(); ++i) out[i] = Value::null_ref(copy.results[i]);
        WEFT_TRY(cb(caller, in, out));
        for (size_t i = 0; i < out.size(); ++i) {
          std::memcpy(results, out[i].raw(), copy.results[i].slots() * sizeof(uint64_t));
          results += copy.results[i].slots();
        }
        return {};
      },
      std::move(debug_name));
  return Extern{ExternKind::Func, f};
}

Extern Store::create_global(GlobalType type, Value init) {
  auto g = std::make_unique<runtime::GlobalInstance>();
  g->type = type;
  g->value[0] = init.raw()[0];
  g->value[1] = init.raw()[1];
  return Extern{ExternKind::Global, store_->add_global(std::move(g))};
}

Extern Store::create_memory(MemoryType type) {
  auto m = runtime::MemoryInstance::create(type, engine_->config().max_memory_pages,
                                           runtime::wants_guard_region(store_->config()));
  if (!m.ok()) return Extern{ExternKind::Memory, nullptr};
  return Extern{ExternKind::Memory, store_->add_memory(std::move(m).value())};
}

Extern Store::create_table(TableType type, Value init) {
  auto t = runtime::TableInstance::create(type, init.raw()[0], engine_->config().max_table_elements);
  if (!t.ok()) return Extern{ExternKind::Table, nullptr};
  return Extern{ExternKind::Table, store_->add_table(std::move(t).value())};
}

void Store::define_spectest(Linker& linker) {
  for (auto& [name, ext] : runtime::create_spectest(*store_)) linker.define("spectest", name, Extern{ext.kind, ext.object});
}

FuncType Store::function_type(Extern func) const { return *static_cast<runtime::FuncInstance*>(func.object)->type; }

// Whether a host value may be passed where `param` is expected. The host has
// funcref, externref and fiberref values only: a funcref stands for any
// function reference whose function has the type (type identities are the
// store's, as in FuncInstance::type), a null for any nullable reference of
// its kind, and (fiber extension) a fiberref for any fiber reference.
bool Store::argument_fits(const Value& arg, ValType param) const {
  const ValType given = arg.type();
  if (given == param) return true;
  if (!given.is_ref() || !param.is_ref()) return false;
  if (arg.is_null() && !param.nullable) return false;
  auto typed = [&](ValType t, bool fiber) {
    const runtime::TypeId id = t.type_index;
    return t.kind == ValType::TypedRef && store_->has_type(id) && store_->type_of(id).is_fiber == fiber;
  };
  const bool typed_function = typed(param, false);
  if (param.kind == ValType::FuncRef || typed_function) {
    if (given.kind != ValType::FuncRef && !typed(given, false)) return false;
    if (!typed_function || arg.is_null()) return true;
    const auto* f = reinterpret_cast<const runtime::FuncInstance*>(arg.raw()[0]);
    return f->type_id == runtime::TypeId(param.type_index);
  }
  if (param.kind == ValType::ExternRef) return given.kind == ValType::ExternRef;
  auto is_fiber_ref = [&](ValType t) { return t.kind == ValType::FiberRef || typed(t, true); };
  return is_fiber_ref(given) && is_fiber_ref(param);
}

Result<std::vector<Value>> Store::call(Extern func, std::span<const Value> args) {
  if (func.kind != ExternKind::Func || !func.object) return make_error(ErrorKind::Usage, "not a function");
  auto* f = static_cast<runtime::FuncInstance*>(func.object);
  const FuncType& type = *f->type;
  if (args.size() != type.params.size())
    return make_error(ErrorKind::Usage, "expected " + std::to_string(type.params.size()) + " arguments, got " +
                                            std::to_string(args.size()));
  std::vector<uint64_t> slots(std::max<size_t>(std::max(f->param_slots, f->result_slots), 1));
  size_t pos = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!argument_fits(args[i], type.params[i]))
      return make_error(ErrorKind::Usage, "argument " + std::to_string(i) + " has type " + weft::to_string(args[i].type()) +
                                              (args[i].is_null() ? " (null)" : "") + ", expected " +
                                              weft::to_string(type.params[i]));
    std::memcpy(&slots[pos], args[i].raw(), type.params[i].slots() * sizeof(uint64_t));
    pos += type.params[i].slots();
  }
  WEFT_TRY(store_->invoke(f, slots.data()));
  std::vector<Value> results;
  pos = 0;
  for (ValType t : type.results) {
    results.push_back(Value::from_raw(t, &slots[pos]));
    pos += t.slots();
  }
  return results;
}

void InterruptHandle::interrupt() const {
  if (flag_) flag_->store(1, std::memory_order_relaxed);
}

Result<InterruptHandle> Store::interrupt_handle() const {
  if (!store_->interruptible())
    return make_error(ErrorKind::Usage, "interruption is off for this store (Config::interruptible is false)");
  InterruptHandle handle;
  handle.flag_ = store_->shared_interrupt_flag();
  return handle;
}

std::optional<uint64_t> Store::fuel_remaining() const {
  if (!store_->fuel_enabled()) return std::nullopt;
  return store_->stack().fuel;
}

Result<void> Store::set_fuel(uint64_t fuel) {
  if (!store_->fuel_enabled())
    return make_error(ErrorKind::Usage, "fuel metering is off for this store (Config::fuel is 0)");
  store_->stack().fuel = fuel;
  return {};
}

Value Store::global_get(Extern global) const {
  auto* g = static_cast<runtime::GlobalInstance*>(global.object);
  return Value::from_raw(g->type.type, g->value);
}

Result<void> Store::global_set(Extern global, Value value) {
  auto* g = static_cast<runtime::GlobalInstance*>(global.object);
  if (!g->type.is_mutable) return make_error(ErrorKind::Usage, "global is immutable");
  if (value.type() != g->type.type) return make_error(ErrorKind::Usage, "global type mismatch");
  g->value[0] = value.raw()[0];
  g->value[1] = value.raw()[1];
  return {};
}

GlobalType Store::global_type(Extern global) const { return static_cast<runtime::GlobalInstance*>(global.object)->type; }

uint64_t Store::memory_size_bytes(Extern memory) const {
  return static_cast<runtime::MemoryInstance*>(memory.object)->size_bytes;
}
uint8_t* Store::memory_data(Extern memory) { return static_cast<runtime::MemoryInstance*>(memory.object)->data; }

Result<void> Store::memory_read(Extern memory, uint64_t offset, std::span<uint8_t> out) const {
  auto* m = static_cast<runtime::MemoryInstance*>(memory.object);
  if (offset > m->size_bytes || out.size() > m->size_bytes - offset)
    return make_error(ErrorKind::Trap, "out of bounds memory access");
  std::memcpy(out.data(), m->data + offset, out.size());
  return {};
}

Result<void> Store::memory_write(Extern memory, uint64_t offset, std::span<const uint8_t> in) {
  auto* m = static_cast<runtime::MemoryInstance*>(memory.object);
  if (offset > m->size_bytes || in.size() > m->size_bytes - offset)
    return make_error(ErrorKind::Trap, "out of bounds memory access");
  std::memcpy(m->data + offset, in.data(), in.size());
  return {};
}

MemoryType Store::memory_type(Extern memory) const {
  return static_cast<runtime::MemoryInstance*>(memory.object)->type;
}

std::optional<uint64_t> Store::memory_grow(Extern memory, uint64_t delta_pages) {
  int64_t old_pages = static_cast<runtime::MemoryInstance*>(memory.object)->grow(delta_pages);
  if (old_pages < 0) return std::nullopt;
  return uint64_t(old_pages);
}

// ---- Tables ------------------------------------------------------------------

TableType Store::table_type(Extern table) const { return static_cast<runtime::TableInstance*>(table.object)->type; }

uint32_t Store::table_size(Extern table) const { return static_cast<runtime::TableInstance*>(table.object)->size(); }

std::optional<Value> Store::table_get(Extern table, uint32_t index) const {
  auto* t = static_cast<runtime::TableInstance*>(table.object);
  if (index >= t->elements.size()) return std::nullopt;
  return Value::from_raw(t->type.element, &t->elements[index]);
}

Result<void> Store::table_set(Extern table, uint32_t index, Value value) {
  auto* t = static_cast<runtime::TableInstance*>(table.object);
  if (value.type().kind != t->type.element.kind) return make_error(ErrorKind::Usage, "table element type mismatch");
  if (index >= t->elements.size()) return make_error(ErrorKind::Trap, "out of bounds table access");
  t->elements[index] = value.raw()[0];
  return {};
}

std::optional<uint32_t> Store::table_grow(Extern table, uint32_t delta, Value init) {
  auto* t = static_cast<runtime::TableInstance*>(table.object);
  if (init.type().kind != t->type.element.kind) return std::nullopt;
  int64_t old_size = t->grow(delta, init.raw()[0]);
  if (old_size < 0) return std::nullopt;
  return uint32_t(old_size);
}

}  // namespace weft
