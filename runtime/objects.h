// Runtime objects owned by a Store: function, memory, table and global
// instances, and Instance (one instantiated module). Executors read these
// directly; their layout is chosen for the hot paths (memory base/size and
// global values are one load away).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/module.h"
#include "core/result.h"
#include "validator/validator.h"
#include "weft/config.h"

namespace weft::runtime {

struct Instance;
class Store;

// Canonical id of a function type within a Store: structurally equal types get
// the same id, so call_indirect's signature check is one integer compare.
using TypeId = uint32_t;

// A host function sees its arguments as executor slots (one 64-bit slot per
// value, two for v128) and writes its results into `results`. Returning an
// Error of kind Trap traps the calling Wasm code.
using HostFunction = std::function<Result<void>(const uint64_t* args, uint64_t* results)>;

// What only a host function has, boxed: a module's own functions (tens of
// thousands in a large program, all made at instantiation) do not carry it.
struct HostCallable {
  HostFunction call;
  std::string debug_name;
};

struct FuncInstance {
  TypeId type_id = 0;
  const FuncType* type = nullptr;
  uint32_t param_slots = 0;
  uint32_t result_slots = 0;
  Instance* instance = nullptr;  // defining instance; nullptr for host functions
  uint32_t index = 0;            // function index in the defining module
  void* compiled = nullptr;      // executor-owned code for Wasm functions (interpreter::CompiledFunction)
  // The JIT tier's entry for this function in the host's C convention
  // (jit/context.h: NativeEntry): the host entry into its JIT code, or a
  // trampoline into the interpreter or the host function. nullptr until an
  // executor that uses it prepares the function.
  void* native_entry = nullptr;
  // Its entry in JIT code's own convention (jit/<arch>/registers.h), which
  // JIT callers call: its code, or the host adapter that passes the call on to
  // native_entry.
  void* jit_entry = nullptr;
  // The JIT's entry (JIT code's convention) for a fresh fiber that starts at
  // one of this function's function-level event clauses (the event is read
  // from the JitContext); nullptr when the function has no such clauses or is
  // not JIT code.
  void* native_clause_entry = nullptr;
  std::unique_ptr<HostCallable> host;  // host functions only

  bool is_host() const { return instance == nullptr; }
};

// A linear memory. The whole maximum is reserved up front (PROT_NONE) so the
// base address never moves on memory.grow: executors may cache `data`.
struct MemoryInstance {
  uint8_t* data = nullptr;
  uint64_t size_bytes = 0;
  MemoryType type;             // type.limits.min tracks the current size in pages
  uint64_t max_pages = 0;      // effective maximum (declared max, config limit)
  uint64_t reserved_bytes = 0;
  // Reserved with a guard region (Config::guard_regions): kGuardRegionBytes
  // of address space, inaccessible past size_bytes, so an access at any
  // 32-bit address plus a 32-bit offset faults instead of reaching other memory.
  bool guarded = false;
  static constexpr uint64_t kGuardRegionBytes = (uint64_t(8) << 30) + kWasmPageSize;  // + room for the widest access

  MemoryInstance() = default;
  MemoryInstance(const MemoryInstance&) = delete;
  MemoryInstance& operator=(const MemoryInstance&) = delete;
  ~MemoryInstance();

  // `guard_region`: reserve kGuardRegionBytes when the address space allows
  // (else the maximum, as without it; `guarded` says which).
  static Result<std::unique_ptr<MemoryInstance>> create(MemoryType type, uint64_t config_max_pages,
                                                        bool guard_region = false);
  uint64_t pages() const { return size_bytes / kWasmPageSize; }
  // Returns the old size in pages, or -1 if the memory cannot grow by `delta`.
  int64_t grow(uint64_t delta_pages);
};

// Whether memories made under `config` reserve a guard region: only JIT code
// omits bounds checks, so the interpreter tier does not pay the address space.
// A store made through the API gets a configuration with the option already
// off where the JIT has no guard regions (AArch64, no fault handler):
// `runtime_config` in api/store.cc.
inline bool wants_guard_region(const Config& config) { return config.guard_regions && config.tier == Tier::Jit; }

// A table of references: funcref slots hold FuncInstance* (0 = null),
// externref slots hold host value + 1 (0 = null).
struct TableInstance {
  std::vector<uint64_t> elements;
  TableType type;
  uint64_t max_size = kMaxTableSize;  // effective maximum (declared max, config limit)

  // A table of type.limits.min elements set to `init`, growable up to the
  // declared maximum and `config_max_elements` (Config::max_table_elements);
  // a minimum above that is a Limit error.
  static Result<std::unique_ptr<TableInstance>> create(TableType type, uint64_t init, uint64_t config_max_elements);
  uint32_t size() const { return uint32_t(elements.size()); }
  // Returns the old size, or -1 if the table cannot grow by `delta`.
  int64_t grow(uint32_t delta, uint64_t init);
};

struct GlobalInstance {
  uint64_t value[2] = {0, 0};  // v128 uses both
  GlobalType type;
};

// A tag: an event tag of the fiber extension and an exception tag (one tag
// space, docs/exceptions.md). `id` is its store-unique identity: imports
// share the exporter's tag, so dispatch and catch compare identities, not indices.
struct TagInstance {
  uint64_t id = 0;
  TypeId type_id = 0;
  const FuncType* type = nullptr;
  uint32_t param_slots = 0;
};

// A thrown exception (Wasm 3.0 exception handling): its tag and the values
// it carries. An exnref is its address (null: 0). Owned by the Store, which
// reuses the objects no exnref was made of (Store::throw_new).
struct ExceptionObject {
  const TagInstance* tag = nullptr;
  std::vector<uint64_t> payload;  // the tag's params, in executor slots (v128: two)
  bool exposed = false;           // an exnref to it exists (catch_ref, catch_all_ref): kept for the store's life
};

// Element and data segments as instantiated (dropped ⇒ empty).
struct ElemInstance {
  ValType type;
  std::vector<uint64_t> refs;
};

struct DataInstance {
  std::span<const uint8_t> bytes;
};

struct Instance {
  std::shared_ptr<const Module> module;
  std::shared_ptr<const validator::ValidationInfo> info;
  Store* store = nullptr;
  std::vector<TypeId> type_ids;  // per module type index
  std::vector<FuncInstance*> functions;
  std::vector<TableInstance*> tables;
  std::vector<MemoryInstance*> memories;
  std::vector<GlobalInstance*> globals;
  std::vector<TagInstance*> tags;
  std::vector<ElemInstance> elems;
  std::vector<DataInstance> datas;
  std::vector<std::pair<std::string, std::pair<ExternKind, void*>>> exports;
  void* executor_data = nullptr;  // per-instance executor state (owned by the executor)
};

}  // namespace weft::runtime
