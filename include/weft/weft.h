// The public embedding API of weft: configure an engine, load (binary or text),
// validate, link and instantiate modules with host functions, call exports with
// typed values, read and write memory and globals. Failures are values
// (weft::Error) carrying a kind, a message, a location and, for traps, a Wasm
// backtrace. The `weft` CLI is written only against this header.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/config.h"
#include "weft/result.h"
#include "weft/types.h"

namespace weft {

struct Module;  // core IR (core/module.h)

namespace runtime {
class Store;
struct Instance;
struct FuncInstance;
struct MemoryInstance;
struct TableInstance;
struct GlobalInstance;
}  // namespace runtime

// A Wasm value with its type. References: funcref holds an opaque function
// handle, externref an arbitrary 64-bit host value (null is separate).
class Value {
 public:
  Value() = default;
  static Value i32(uint32_t v) { return Value(ValType::i32(), v); }
  static Value i64(uint64_t v) { return Value(ValType::i64(), v); }
  static Value f32_bits(uint32_t bits) { return Value(ValType::f32(), bits); }
  static Value f64_bits(uint64_t bits) { return Value(ValType::f64(), bits); }
  static Value f32(float v);
  static Value f64(double v);
  static Value v128(uint64_t lo, uint64_t hi) { Value r(ValType::v128(), lo); r.raw_[1] = hi; return r; }
  static Value null_ref(ValType type) { return Value(type, 0); }
  static Value extern_ref(uint64_t host_value) { return Value(ValType::externref(), host_value + 1); }

  ValType type() const { return type_; }
  uint32_t as_i32() const { return uint32_t(raw_[0]); }
  uint64_t as_i64() const { return raw_[0]; }
  uint32_t f32_bits() const { return uint32_t(raw_[0]); }
  uint64_t f64_bits() const { return raw_[0]; }
  float as_f32() const;
  double as_f64() const;
  bool is_null() const { return type_.is_ref() && raw_[0] == 0; }
  uint64_t extern_value() const { return raw_[0] - 1; }  // valid for non-null externref

  // The executor representation: one or two 64-bit slots. Reference slots hold
  // a FuncInstance* for funcref and host_value + 1 for externref (0 = null).
  static Value from_raw(ValType type, const uint64_t* slots);
  const uint64_t* raw() const { return raw_; }

  std::string to_string() const;  // "i32:42", "f64:0x1p+0", "externref:7", "funcref:null"

 private:
  Value(ValType t, uint64_t v) : type_(t) { raw_[0] = v; }
  ValType type_ = ValType::i32();
  uint64_t raw_[2] = {0, 0};
};

class Engine;
class Store;

// A decoded and validated module; cheap to copy (shared, immutable).
class WasmModule {
 public:
  static Result<WasmModule> from_binary(const Engine& engine, std::span<const uint8_t> bytes);
  static Result<WasmModule> from_text(const Engine& engine, std::string_view text);
  // Validates an already-parsed IR module (e.g. from a WAST script).
  static Result<WasmModule> from_ir(const Engine& engine, Module module);
  // Loads a file: `.wat`/`.wast`-looking text or a binary (decided by the magic bytes).
  static Result<WasmModule> from_file(const Engine& engine, const std::string& path);

  struct ImportDesc { std::string module, name; ExternKind kind; std::string type; };
  struct ExportDesc { std::string name; ExternKind kind; std::string type; };
  std::vector<ImportDesc> imports() const;
  std::vector<ExportDesc> exports() const;
  const Module& ir() const;

  struct Impl;
  std::shared_ptr<const Impl> impl;
};

// A reference to an entity owned by a Store: a function, table, memory or global.
struct Extern {
  ExternKind kind = ExternKind::Func;
  void* object = nullptr;  // runtime::FuncInstance* / TableInstance* / MemoryInstance* / GlobalInstance*
};

// Which tier runs a store's code (Config::tier) and, for the JIT, how many
// functions it compiled and which it left to the interpreter, and why.
struct TierStats {
  Tier tier = Tier::Interpreter;
  uint32_t jit_compiled = 0;
  // Functions of a later instance of a module whose code was copied from the
  // code compiled for an earlier instance in this store (compiled once per
  // module: docs/architecture.md, "Code shared between instances").
  uint32_t jit_reused = 0;
  uint32_t jit_fallbacks = 0;
  std::vector<std::string> fallback_reasons;  // "function N (name): reason"
};

// Host function callback: read `args`, write `results` (sized to the type), or
// return an Error (kind Trap) to trap.
using HostCallback = std::function<Result<void>(std::span<const Value> args, std::span<Value> results)>;

// One suspension point's event dispatch table (fiber extension), for
// inspection: which tags it handles and how its perfect hash came out.
struct DispatchSiteInfo {
  uint32_t function = 0;       // function index
  std::string function_name;
  uint32_t code_offset = 0;    // position in the executor's code (words)
  bool function_entry = false; // the function-level clauses a fresh fiber starts at
  std::vector<std::pair<uint32_t, uint64_t>> tags;  // (tag index, tag identity) per key
  size_t table_size = 0;
  uint64_t multiplier = 0;
  uint32_t shift = 0;
  uint32_t build_attempts = 0;  // multipliers tried until one was collision-free
  uint32_t probes = 1;          // per lookup: always one
};

// An instantiated module.
class Instance {
 public:
  std::vector<DispatchSiteInfo> dispatch_sites() const;
  std::optional<Extern> get_export(std::string_view name) const;
  std::vector<std::pair<std::string, Extern>> exports() const;
  runtime::Instance* raw = nullptr;
};

// What a host function learns of its call (as wasmtime's Caller): the
// instance whose code called it — to reach its memory and other exports — or
// none when the embedder called the function itself (Store::call).
struct Caller {
  std::optional<Instance> instance;
  std::optional<Extern> get_export(std::string_view name) const {
    return instance ? instance->get_export(name) : std::nullopt;
  }
};
using HostCallbackWithCaller =
    std::function<Result<void>(const Caller& caller, std::span<const Value> args, std::span<Value> results)>;

// Name-based import resolution, as in wasmtime's Linker.
class Linker {
 public:
  void define(std::string module, std::string name, Extern value);
  void define_instance(const std::string& module, const Instance& instance);
  std::optional<Extern> find(std::string_view module, std::string_view name) const;

 private:
  struct Entry { std::string module, name; Extern value; };
  std::vector<Entry> entries_;
};

class Engine {
 public:
  explicit Engine(Config config = {});
  const Config& config() const { return config_; }

 private:
  Config config_;
};

// Stops the Wasm code of one store from any thread (Config::interruptible):
// copyable, and safe to use after the store is gone (it then does nothing).
class InterruptHandle {
 public:
  // The code running in the store — or, if none is, the next code it runs —
  // traps "interrupted" (ErrorKind::Trap) at its next function entry or loop
  // iteration, on either tier and inside fibers; the trap clears the request.
  void interrupt() const;

 private:
  friend class Store;
  std::shared_ptr<std::atomic<uint8_t>> flag_;
};

// Owns all runtime objects (instances, functions, memories, tables, globals).
class Store {
 public:
  explicit Store(const Engine& engine);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const Engine& engine() const { return *engine_; }

  // Instantiates: resolves imports (Unlinkable), initialises segments and runs
  // the start function (Uninstantiable / Trap / Exhaustion errors).
  Result<Instance> instantiate(const WasmModule& module, const Linker& linker);
  // The same with the imports given by position, in the order of
  // module.imports() (the standard C API's wasm_instance_new).
  Result<Instance> instantiate(const WasmModule& module, std::span<const Extern> imports);

  Extern create_host_function(FuncType type, HostCallback callback, std::string debug_name = "host");
  // The same, told its caller (weft::Caller) on every call.
  Extern create_host_function(FuncType type, HostCallbackWithCaller callback, std::string debug_name = "host");
  Extern create_global(GlobalType type, Value init);
  // A memory or table above Config::max_memory_pages / max_table_elements
  // cannot be created: the result's `object` is null.
  Extern create_memory(MemoryType type);
  Extern create_table(TableType type, Value init);

  // Defines the spec test suite's "spectest" module in `linker`
  // (print*, global_i32/i64/f32/f64, table, memory).
  void define_spectest(Linker& linker);

  // Calls a function. Traps come back as Error{Trap|Exhaustion} with a backtrace in `detail`.
  Result<std::vector<Value>> call(Extern func, std::span<const Value> args);
  FuncType function_type(Extern func) const;

  // Fuel (Config::fuel): what is left, or nothing when metering is off
  // (Config::fuel == 0); set_fuel refills it (a Usage error when metering is off).
  std::optional<uint64_t> fuel_remaining() const;
  Result<void> set_fuel(uint64_t fuel);

  // The handle that interrupts this store's code (Config::interruptible; a
  // Usage error when it is off, since the code then has no checks).
  Result<InterruptHandle> interrupt_handle() const;

  Value global_get(Extern global) const;
  Result<void> global_set(Extern global, Value value);
  GlobalType global_type(Extern global) const;

  // Memory access (bounds-checked).
  uint64_t memory_size_bytes(Extern memory) const;
  uint8_t* memory_data(Extern memory);
  Result<void> memory_read(Extern memory, uint64_t offset, std::span<uint8_t> out) const;
  Result<void> memory_write(Extern memory, uint64_t offset, std::span<const uint8_t> in);
  // The current type (limits.min is the current size in pages).
  MemoryType memory_type(Extern memory) const;
  // Grows by `delta_pages`: the old size in pages, or nothing if the memory
  // cannot grow that far (its maximum, Config::max_memory_pages).
  std::optional<uint64_t> memory_grow(Extern memory, uint64_t delta_pages);

  // Tables (bounds-checked; an element's Value has the table's element type).
  TableType table_type(Extern table) const;  // limits.min is the current size
  uint32_t table_size(Extern table) const;
  std::optional<Value> table_get(Extern table, uint32_t index) const;
  Result<void> table_set(Extern table, uint32_t index, Value value);
  // Grows by `delta` elements set to `init`: the old size, or nothing if the
  // table cannot grow that far (its maximum, Config::max_table_elements).
  std::optional<uint32_t> table_grow(Extern table, uint32_t delta, Value init);

  // Tier in use and JIT compilation counts over every instance of this store.
  TierStats tier_stats() const;
  // The machine code the JIT generated for a Wasm function (empty if the
  // store does not use the JIT or the function fell back to the interpreter).
  std::span<const uint8_t> jit_code(Extern func) const;
  // The machine that code is for ("x86-64", "aarch64"), or "" in a build
  // without the JIT.
  static const char* jit_machine();

  runtime::Store& raw() { return *store_; }

 private:
  bool argument_fits(const Value& arg, ValType param) const;  // call's check of one argument

  const Engine* engine_;
  std::unique_ptr<runtime::Store> store_;
};

}  // namespace weft
