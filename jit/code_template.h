// Compile once per module: the code the JIT generates for one instance is
// kept as a template (per module, for the whole process), from which every
// later instance of the module — in the same store or another — gets its
// code by copying the bytes and patching the constants that belong to its
// instance and store (docs/architecture.md, "Code shared between
// instances"). The compiler emits each such constant with
// MacroAssembler::move_patchable and records what it is, symbolically, as a
// Relocation; instance_word computes it for any instance, so the compiler
// and the copier agree by construction. Everything else in the code is the
// same for every instance: helper addresses and the process-wide stubs, and
// whatever the compiler decided from the CodeShape, which the template is
// kept for.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "jit/context.h"
#include "jit/guard_regions.h"
#include "runtime/objects.h"

namespace weft::jit {

// What an instance-specific constant is.
enum class InstanceRef : uint8_t {
  Function,            // the FuncInstance* of function `index`
  Instance,            // the Instance*
  Memory,              // the MemoryInstance* of memory `index` (memory 0 of an instance without one: the executor's empty memory)
  Table,               // the TableInstance* of table `index`
  GlobalValue,         // &globals[index / 2]->value[index % 2]
  Data,                // &datas[index]
  Elem,                // &elems[index]
  Tag,                 // the TagInstance* of tag `index`
  FiberSite,           // the code's FiberSite `index`
  ResumeCache,         // &that site's resume_cache
  SiteTag,             // that site's tag identity (the event it sends)
  DispatchSlots,       // that site's dispatch table's slots
  DispatchMultiplier,  // its multiplier
  DispatchKey,         // its one key (a table of one clause)
  CatchSite,           // the code's CatchSite `index`
  // The store's:
  HostCaller,          // &Store::host_caller
  InterruptFlag,       // Store::interrupt_flag()
  Context,             // the executor's JitContext
  FiberState,          // its fiber runtime's SwitchState (JitContext::fiber_state)
  InterpStack,         // JitContext::interp_stack
  TypeId,              // the canonical id of the module's type `index` (Instance::type_ids)
};

// (12 bytes: a large module has one per ~10 bytes of code section, kept for
// the module's life.)
struct Relocation {
  uint32_t at;  // MacroAssembler::patch_constant's offset, in the code's buffer
  uint32_t index;
  InstanceRef ref;
  // One of the 32-bit forms (patch_constant32): a copy can hold only a value
  // below 2^31, and is not made for an instance whose value is larger.
  bool narrow = false;
};
static_assert(sizeof(Relocation) == 12);

// What instance_word reads: the instance, the memory its code uses as memory
// 0, the context of its store's JIT, and the code's sites (FiberSite and
// CatchSite relocations index these).
struct InstanceWords {
  const runtime::Instance* instance = nullptr;
  runtime::MemoryInstance* memory0 = nullptr;
  const JitContext* context = nullptr;
  std::span<const std::unique_ptr<FiberSite>> fiber_sites;
  std::span<const std::unique_ptr<CatchSite>> catch_sites;
};
uint64_t instance_word(const InstanceWords& words, InstanceRef ref, uint32_t index);

// A fiber site as `instance` needs it: `site` (compiled for another instance
// of the module) with this instance's functions, tags and dispatch table.
// Nullptr when the code compiled for `site` cannot serve it: linking made a
// different set of the scope's tags one tag, or the dispatch table came out in
// another shape (size, shift) than the one the code was generated for.
std::unique_ptr<FiberSite> rebind_fiber_site(const FiberSite& site, const runtime::Instance& instance);
// The same for a try_table's clauses (their tag identities).
std::unique_ptr<CatchSite> rebind_catch_site(const CatchSite& site, const runtime::Instance& instance);

// A function's code (lazy compilation) or an instance's (eager), as compiled
// for the first instance, with its relocations and sites.
struct CodeTemplate {
  // The bytes: those of the instance the code was compiled for (`source`,
  // `size`) while that instance lives — compiling copies nothing — and a
  // copy from when it is released (detach). Read and detached under
  // ModuleCode::mutex.
  const uint8_t* source = nullptr;
  size_t size = 0;
  std::vector<uint8_t> bytes;
  std::span<const uint8_t> code() const { return source ? std::span(source, size) : std::span<const uint8_t>(bytes); }
  // `keep`: false when no instance of the module can come any more (the
  // template is left without bytes: instantiate refuses).
  void detach(bool keep) {
    if (!source) return;
    if (keep) bytes.assign(source, source + size);
    source = nullptr;
  }
  std::vector<Relocation> relocations;  // site indices relative to the sites below
  std::vector<std::unique_ptr<FiberSite>> fiber_sites;
  std::vector<std::unique_ptr<CatchSite>> catch_sites;
  // Sites and bytes for `instance`: the template's sites rebound into
  // `fiber_sites`/`catch_sites` (appended), the bytes (code().size() of
  // them) written to `out` and patched. False (nothing appended) when a
  // site cannot be rebound or a value does not fit its form.
  bool instantiate(const runtime::Instance& instance, runtime::MemoryInstance* memory0, const JitContext* context,
                   std::vector<std::unique_ptr<FiberSite>>& fiber_sites,
                   std::vector<std::unique_ptr<CatchSite>>& catch_sites, uint8_t* out) const;
  // Keeps copies of `fiber_sites`/`catch_sites` (compiled for `instance`),
  // renumbering the relocations that name them from the first given.
  void keep_sites(const runtime::Instance& instance, std::span<const std::unique_ptr<FiberSite>> fiber_sites,
                  std::span<const std::unique_ptr<CatchSite>> catch_sites, uint32_t first_fiber_site,
                  uint32_t first_catch_site);
};

// Lazy compilation: one function.
struct FunctionTemplate : CodeTemplate {
  uint32_t shift = 0;  // MacroAssembler::function_shift
  uint32_t register_entry = 0;
  uint32_t clause_entry = UINT32_MAX;
  uint32_t memory_trap = UINT32_MAX;
  std::vector<std::pair<uint32_t, uint32_t>> direct_calls;  // {callee (defined index), offset of the call}
};
// Eager compilation: the instance's whole code, one buffer.
struct InstanceTemplate : CodeTemplate {
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  std::vector<uint32_t> clause_entries;  // per defined function, or UINT32_MAX
  std::vector<guard::FunctionTrap> traps;
  std::vector<uint32_t> fallbacks;
  std::vector<std::string> fallback_reasons;
  uint32_t compiled = 0;
};

// Besides the module, what the compiler decides code from: two instances
// share code only when these are equal.
struct CodeShape {
  std::vector<bool> host_imports;  // per imported function: a host function (its caller is recorded)
  bool guarded = false;            // memory 0's accesses go unchecked into a guard region
  bool metered = false;            // fuel
  bool interruptible = false;
  std::vector<std::string> interpreted;  // Config::jit_interpreted_functions
  bool eager = false;
  friend bool operator==(const CodeShape&, const CodeShape&) = default;
};

// A module's code of one shape, shared by every JIT in the process. A
// template does not change once published but for its detach; the mutex
// guards publishing, detaching and reading them (stores on different
// threads share them).
struct ModuleCode {
  explicit ModuleCode(CodeShape s, size_t functions) : shape(std::move(s)), functions(functions), rejected(functions) {}
  const CodeShape shape;
  std::mutex mutex;
  std::shared_ptr<InstanceTemplate> eager;
  // Lazy compilation, per defined function: its code once compiled, or why
  // the compiler rejected it ("" if it did not).
  std::vector<std::shared_ptr<FunctionTemplate>> functions;
  std::vector<std::string> rejected;
};
// The shared code of `module` for `shape`, made empty the first time.
std::shared_ptr<ModuleCode> shared_module_code(const std::shared_ptr<const Module>& module, CodeShape shape);

}  // namespace weft::jit
