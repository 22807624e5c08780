// The Store: owner of every runtime object, the interned function types, the
// execution stack of the thread using it, and the executor (the interpreter,
// or the JIT with the interpreter behind it) that runs Wasm code.
#pragma once

#include <atomic>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "runtime/objects.h"
#include "weft/config.h"

namespace weft::runtime {

// Per-store execution resources: the value stack shared by all active frames
// (host → Wasm re-entry continues above the current top) and the call depth.
struct ExecStack {
  uint64_t* base = nullptr;
  uint64_t* limit = nullptr;   // one past the last usable slot
  uint64_t* top = nullptr;     // first free slot (for nested entries)
  uint32_t depth = 0;          // active Wasm frames
  uint32_t max_depth = 0;
  // Remaining fuel (Config::fuel); read and charged by metered code only, which
  // exists only when Config::fuel != 0.
  uint64_t fuel = 0;
  void* frames = nullptr;  // the executor's call-frame array (max_depth entries)
  // Lowest native stack address at which a host → Wasm entry may start on this
  // stack (runtime/native_stack.h); 0: the calling thread's stack (thread_native_floor()).
  uintptr_t native_floor = 0;
};

// What runs Wasm code. Called only at host/Wasm boundaries (never per instruction).
class Executor {
 public:
  virtual ~Executor() = default;
  // Prepares an instance's functions (e.g. translation to internal code).
  virtual Result<void> prepare_instance(Instance& instance) = 0;
  virtual void release_instance(Instance& instance) = 0;
  // Calls `func` with its arguments in args_results[0..param_slots); results are
  // written to args_results[0..result_slots). Traps come back as Error.
  virtual Result<void> call(FuncInstance* func, uint64_t* args_results) = 0;
};

class Store {
 public:
  explicit Store(const Config& config);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const Config& config() const { return config_; }
  ExecStack& stack() { return stack_; }
  // Fuel metering is on for the store's lifetime iff Config::fuel != 0.
  bool fuel_enabled() const { return config_.fuel != 0; }
  // Interruption (Config::interruptible): another thread sets the flag; code
  // only reads it at its checks (so no update is ever lost), and the trap it
  // causes clears it. Shared, so a handle may outlive the store.
  bool interruptible() const { return config_.interruptible; }
  const std::atomic<uint8_t>* interrupt_flag() const { return interrupt_flag_.get(); }
  std::shared_ptr<std::atomic<uint8_t>> shared_interrupt_flag() const { return interrupt_flag_; }
  void consume_interrupt() { interrupt_flag_->store(0, std::memory_order_relaxed); }

  void set_executor(std::unique_ptr<Executor> executor) { executor_ = std::move(executor); }
  Executor& executor() { return *executor_; }

  // The store-wide id of `type`; a new type is copied into the store.
  TypeId intern_type(const FuncType& type);
  // The same for a type of a module this store keeps (keep_module): a new
  // type is not copied, the store refers to the module's own.
  TypeId intern_kept_type(const FuncType& type);
  // `module` lives as long as the store (its types may be interned in place).
  void keep_module(std::shared_ptr<const Module> module);
  // Room for `count` more types (a module's, before they are interned one by one).
  void reserve_types(size_t count);
  const FuncType& type_of(TypeId id) const { return *types_[id]; }
  // Whether `id` names an interned type (a type that refers to itself names
  // itself inside its own definition by a placeholder id that does not).
  bool has_type(TypeId id) const { return id < types_.size(); }

  FuncInstance* add_host_function(const FuncType& type, HostFunction fn, std::string debug_name);
  FuncInstance* add_function(std::unique_ptr<FuncInstance> f);
  // `count` functions in one block, owned by the store (an instance's
  // defined functions: one allocation instead of one per function).
  FuncInstance* add_functions(size_t count);
  MemoryInstance* add_memory(std::unique_ptr<MemoryInstance> m);
  TableInstance* add_table(std::unique_ptr<TableInstance> t);
  GlobalInstance* add_global(std::unique_ptr<GlobalInstance> g);
  TagInstance* add_tag(TypeId type);
  Instance* add_instance(std::unique_ptr<Instance> i);

  // Exception handling. Throwing makes an ExceptionObject, puts it in
  // `thrown` and returns exception_error() up every executor's trap path
  // (interpreter frames, JIT frames, host functions, fibers) until a
  // try_table catches it (catch_thrown) or the host call into Wasm ends with it.
  // throw: a new exception of `tag` with the values from `payload` is in flight.
  void throw_new(const TagInstance* tag, const uint64_t* payload);
  // throw_ref: `e` (non-null) is in flight again.
  void rethrow(ExceptionObject* e);
  // A clause caught the exception in flight: its values go to `dest`
  // (`payload_slots` of them, then the exnref when `with_ref`), and it is no
  // longer in flight.
  void catch_thrown(uint64_t* dest, uint32_t payload_slots, bool with_ref);
  // The error an in-flight exception travels as (ErrorKind::Exception).
  static Error exception_error();
  ExceptionObject* thrown = nullptr;

  // Calls a function from the host (entry into Wasm or a host function).
  Result<void> invoke(FuncInstance* func, uint64_t* args_results);

  // The instance whose code is calling a host function (nullptr: the host
  // itself). Set by the tiers just before they call FuncInstance::host — the
  // interpreter, JIT code calling an imported host function, the JIT's
  // call_indirect helper — and taken (cleared) by the API's host wrapper at
  // entry, which hands it to the callback (weft::Caller).
  Instance* host_caller = nullptr;

 private:
  Config config_;
  ExecStack stack_;
  std::unique_ptr<Executor> executor_;
  std::shared_ptr<std::atomic<uint8_t>> interrupt_flag_ = std::make_shared<std::atomic<uint8_t>>(0);
  // Interned types: types_[id] is the type of id — a module's own (the store
  // keeps the module: kept_modules_) or a copy in owned_types_. type_slots_
  // is an open-addressing table (a power of two long, linear probing) of
  // id + 1 (0: empty), type_hashes_[id] the hash of types_[id]: no allocation
  // per type but the table's growth (store.cc).
  TypeId intern(const FuncType& type, bool copy);
  void grow_type_slots(size_t at_least);
  std::vector<std::shared_ptr<const Module>> kept_modules_;
  std::deque<FuncType> owned_types_;
  std::vector<const FuncType*> types_;
  std::vector<uint32_t> type_hashes_;
  std::vector<uint32_t> type_slots_;
  std::vector<std::unique_ptr<FuncInstance>> functions_;
  std::vector<std::unique_ptr<FuncInstance[]>> function_blocks_;
  std::vector<std::unique_ptr<MemoryInstance>> memories_;
  std::vector<std::unique_ptr<TableInstance>> tables_;
  std::vector<std::unique_ptr<GlobalInstance>> globals_;
  std::vector<std::unique_ptr<TagInstance>> tags_;
  std::vector<std::unique_ptr<ExceptionObject>> exceptions_;
  std::vector<ExceptionObject*> free_exceptions_;
  // An exception no exnref refers to, to be reused by throw_new.
  void recycle(ExceptionObject* e) {
    if (!e->exposed) free_exceptions_.push_back(e);
  }
  std::vector<std::unique_ptr<Instance>> instances_;
};

// Total slot count of a value-type list (v128 = 2 slots).
uint32_t slot_count(std::span<const ValType> types);

}  // namespace weft::runtime
