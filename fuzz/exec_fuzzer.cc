// libFuzzer target: arbitrary bytes → decode → validate → instantiate with
// stub imports → call every exported function with zero arguments. Fuel and
// small limits keep every input short and small: a hang, an abort, a sanitizer
// report or an unexpected error kind is a bug; traps and limit errors are not.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "core/module.h"
#include "weft/weft.h"

namespace {

using weft::ErrorKind;
using weft::Value;
using weft::ValType;

constexpr uint64_t kFuelPerCall = 10'000;  // per instantiation and per export call
constexpr size_t kMaxCalls = 32;           // exports called per input

weft::Config fuzz_config() {
  weft::Config c;
  c.fuel = kFuelPerCall;
  c.max_memory_pages = 16;
  c.max_table_elements = 10'000;
  c.max_call_depth = 1'000;
  c.value_stack_bytes = 1 << 20;
  // Plain Wasm 2.0 for now; fiber-heavy programs get their own target with the
  // fiber robustness work.
  c.enable_fibers = false;
  return c;
}

Value zero_of(ValType t) {
  switch (t.kind) {
    case ValType::I32: return Value::i32(0);
    case ValType::I64: return Value::i64(0);
    case ValType::F32: return Value::f32_bits(0);
    case ValType::F64: return Value::f64_bits(0);
    case ValType::V128: return Value::v128(0, 0);
    default: return Value::null_ref(t);
  }
}

// Running code may fail only by trapping or exhausting a limit — or, since
// functions are translated at their first call (Config::eager_compilation is
// off), with the Limit error of a function the interpreter cannot translate
// (one beyond its frame limits, say), which eager translation reports at
// instantiation instead.
void check_run_error(const weft::Error& e) {
  switch (e.kind) {
    case ErrorKind::Trap:
    case ErrorKind::Exhaustion:
    case ErrorKind::Limit:
    case ErrorKind::Exception:  // an exception no try_table caught
      return;
    default:
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const weft::Engine engine(fuzz_config());
  auto module = weft::WasmModule::from_binary(engine, std::span(data, size));
  if (!module.ok()) return 0;

  weft::Store store(engine);
  weft::Linker linker;
  // Satisfy every import with something of the right type: functions return
  // zeros, memories/tables/globals are fresh with the import's limits.
  const weft::Module& ir = module->ir();
  for (const weft::Import& imp : ir.imports) {
    weft::Extern ext;
    switch (imp.kind) {
      case weft::ExternKind::Func:
        ext = store.create_host_function(ir.types[imp.type_index],
                                         [](std::span<const Value>, std::span<Value> results) -> weft::Result<void> {
                                           for (Value& r : results) r = zero_of(r.type());
                                           return {};
                                         });
        break;
      case weft::ExternKind::Memory: ext = store.create_memory(imp.memory); break;
      case weft::ExternKind::Table: ext = store.create_table(imp.table, Value::null_ref(imp.table.element)); break;
      case weft::ExternKind::Global: ext = store.create_global(imp.global, zero_of(imp.global.type)); break;
      default: return 0;  // tags: not satisfiable from the host
    }
    if (ext.object == nullptr) return 0;  // above a configured limit
    linker.define(imp.module, imp.name, ext);
  }

  auto instance = store.instantiate(*module, linker);
  if (!instance.ok()) {
    // Limits (memory, table, locals, unsupported instructions), traps in the
    // start function or segment initialisation; never a crash.
    switch (instance.error().kind) {
      case ErrorKind::Limit: case ErrorKind::Trap: case ErrorKind::Exhaustion:
      case ErrorKind::Uninstantiable: case ErrorKind::Unlinkable: case ErrorKind::Exception:
        return 0;
      default:
        std::abort();
    }
  }
  size_t calls = 0;
  for (const auto& [name, ext] : instance->exports()) {
    if (ext.kind != weft::ExternKind::Func) continue;
    if (calls++ == kMaxCalls) break;
    if (!store.set_fuel(kFuelPerCall).ok()) std::abort();
    weft::FuncType type = store.function_type(ext);
    std::vector<Value> args;
    for (ValType t : type.params) args.push_back(zero_of(t));
    auto r = store.call(ext, args);
    if (!r.ok()) {
      check_run_error(r.error());
      continue;
    }
    if (r->size() != type.results.size()) std::abort();
    for (size_t i = 0; i < r->size(); ++i)
      if ((*r)[i].type() != type.results[i]) std::abort();
  }
  return 0;
}
