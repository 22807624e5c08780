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
#include <unordered_map>
#include <utility>
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

struct Relocation {
  uint32_t at;  // MacroAssembler::patch_constant's offset, in the code's buffer
  uint32_t index;
  InstanceRef ref;
  // One of the 32-bit forms (patch_constant32): a copy can hold only a value
  // below 2^31, and is not made for an instance whose value is larger.
  bool narrow = false;
};

// A template's relocations, packed: a large module has one per ~10 bytes of
// code section, writes them all while compiling it and keeps them for its
// life (as 12-byte structs, 2.6 MB for a 2.2 MB code section). Each is a
// byte-stream entry: the ref with the narrow flag (one byte), the distance
// from the previous entry's `at` (zigzag LEB128: the offsets mostly ascend,
// by little), then the index (LEB128) — 3 to 5 bytes for most.
class RelocationList {
 public:
  static constexpr size_t kMaxEntryBytes = 1 + 5 + 5;

  RelocationList() = default;
  RelocationList(RelocationList&& other) noexcept { *this = std::move(other); }
  RelocationList& operator=(RelocationList&& other) noexcept {  // (the other is left empty)
    data_ = std::move(other.data_);
    used_ = std::exchange(other.used_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    last_at_ = std::exchange(other.last_at_, 0);
    count_ = std::exchange(other.count_, 0);
    return *this;
  }

  // The common entry (a step below 64 bytes, an index below 128: two in
  // three in a large module) inline, three bytes; the others out of line.
  void add(const Relocation& r) {
    static_assert(uint8_t(InstanceRef::TypeId) < 0x80, "the ref shares its byte with the narrow flag");
    const int64_t delta = int64_t(r.at) - int64_t(last_at_);
    const uint64_t zigzag = uint64_t(delta) << 1 ^ uint64_t(delta >> 63);
    if ((zigzag | r.index) >= 0x80 || capacity_ - used_ < 3) [[unlikely]]
      return add_long(r);
    uint8_t* p = data_.get() + used_;
    p[0] = uint8_t(r.ref) | (r.narrow ? 0x80 : 0);
    p[1] = uint8_t(zigzag);
    p[2] = uint8_t(r.index);
    used_ += 3;
    last_at_ = r.at;
    ++count_;
  }
  // f(const Relocation&) for each, in the order added.
  template <typename F>
  void for_each(F&& f) const {
    const uint8_t* p = data_.get();
    uint32_t at = 0;
    for (size_t i = 0; i < count_; ++i) {
      Relocation r;
      r.ref = InstanceRef(*p & 0x7F);
      r.narrow = (*p++ & 0x80) != 0;
      const uint64_t zigzag = get_leb(p);
      at = uint32_t(int64_t(at) + (int64_t(zigzag >> 1) ^ -int64_t(zigzag & 1)));
      r.at = at;
      r.index = uint32_t(get_leb(p));
      f(r);
    }
  }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t bytes() const { return used_; }
  // Room for about `entries` (most take fewer than five bytes); room never
  // written costs address space only.
  void reserve(size_t entries) {
    if (entries * 5 > capacity_) grow(entries * 5);
  }
  void clear() {
    used_ = 0;
    last_at_ = 0;
    count_ = 0;
  }
  // Site relocations' indices made relative to the first site of their kind
  // (CodeTemplate::keep_sites).
  void renumber_sites(uint32_t first_fiber_site, uint32_t first_catch_site);

 private:
  [[gnu::noinline]] void add_long(const Relocation& r);  // code_template.cc
  void grow(size_t at_least);
  static uint8_t* put_leb(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
      *p++ = uint8_t(v) | 0x80;
      v >>= 7;
    }
    *p++ = uint8_t(v);
    return p;
  }
  static uint64_t get_leb(const uint8_t*& p) {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  std::unique_ptr<uint8_t[]> data_;  // (not zeroed: only used_ bytes are ever read)
  size_t used_ = 0;
  size_t capacity_ = 0;
  uint32_t last_at_ = 0;
  size_t count_ = 0;
};

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
  RelocationList relocations;  // site indices relative to the sites below
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
  explicit ModuleCode(CodeShape s, size_t functions) : shape(std::move(s)), functions(functions) {}
  const CodeShape shape;
  std::mutex mutex;
  std::shared_ptr<InstanceTemplate> eager;
  // Lazy compilation, per defined function: its code once compiled; and,
  // by defined index, why the compiler rejected the few it rejected (a
  // string per function cost 32 bytes each of every module's functions).
  std::vector<std::shared_ptr<FunctionTemplate>> functions;
  std::unordered_map<uint32_t, std::string> rejected;
};
// The shared code of `module` for `shape`, made empty the first time.
std::shared_ptr<ModuleCode> shared_module_code(const std::shared_ptr<const Module>& module, CodeShape shape);

}  // namespace weft::jit
