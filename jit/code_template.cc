#include "jit/code_template.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "jit/backend.h"

namespace weft::jit {

uint64_t instance_word(const InstanceWords& words, InstanceRef ref, uint32_t index) {
  const runtime::Instance& instance = *words.instance;
  auto address = [](const void* p) { return reinterpret_cast<uint64_t>(p); };
  switch (ref) {
    case InstanceRef::Function: return address(instance.functions[index]);
    case InstanceRef::Instance: return address(&instance);
    case InstanceRef::Memory: return address(index == 0 ? words.memory0 : instance.memories[index]);
    case InstanceRef::Table: return address(instance.tables[index]);
    case InstanceRef::GlobalValue: return address(&instance.globals[index / 2]->value[index % 2]);
    case InstanceRef::Data: return address(&instance.datas[index]);
    case InstanceRef::Elem: return address(&instance.elems[index]);
    case InstanceRef::Tag: return address(instance.tags[index]);
    case InstanceRef::FiberSite: return address(words.fiber_sites[index].get());
    case InstanceRef::ResumeCache: return address(&words.fiber_sites[index]->resume_cache);
    case InstanceRef::SiteTag: return words.fiber_sites[index]->tag;
    case InstanceRef::DispatchSlots: return address(words.fiber_sites[index]->table.slots().data());
    case InstanceRef::DispatchMultiplier: return words.fiber_sites[index]->table.multiplier();
    case InstanceRef::DispatchKey: return words.fiber_sites[index]->table.slots()[0].key;
    case InstanceRef::CatchSite: return address(words.catch_sites[index].get());
    case InstanceRef::HostCaller: return address(&instance.store->host_caller);
    case InstanceRef::InterruptFlag: return address(instance.store->interrupt_flag());
    case InstanceRef::Context: return address(words.context);
    case InstanceRef::FiberState: return address(words.context->fiber_state);
    case InstanceRef::InterpStack: return address(words.context->interp_stack);
    case InstanceRef::TypeId: return instance.type_ids[index];
  }
  return 0;
}

std::unique_ptr<FiberSite> rebind_fiber_site(const FiberSite& site, const runtime::Instance& instance) {
  // The slots and indices as they are; what the instance decides, anew.
  auto copy = std::make_unique<FiberSite>(site);
  copy->resume_cache = &FiberSite::kNoFiber;
  copy->callee = nullptr;
  copy->tag = 0;
  copy->table = fibers::DispatchTable{};
  copy->self = instance.functions[site.self_index];
  if (site.callee_index != UINT32_MAX) copy->callee = instance.functions[site.callee_index];
  if (site.tag_index != UINT32_MAX) copy->tag = instance.tags[site.tag_index]->id;
  // The compiler inlines a switch only for a tag identity below 2^31.
  if ((copy->tag <= uint64_t(INT32_MAX)) != (site.tag <= uint64_t(INT32_MAX))) return nullptr;
  if (site.scope.empty()) return copy;
  // The scope's keys as this instance links them: the same clauses must be
  // shadowed (FunctionCompiler::build_scope keeps the first of equal tags),
  // since the code's jump table has one target per clause kept.
  std::vector<uint64_t> keys;
  std::vector<uint32_t> values;
  for (auto [tag_index, value] : site.scope) {
    const uint64_t id = instance.tags[tag_index]->id;
    const bool shadowed = std::find(keys.begin(), keys.end(), id) != keys.end();
    if (shadowed != (value == UINT32_MAX)) return nullptr;
    if (shadowed) continue;
    keys.push_back(id);
    values.push_back(value);
  }
  copy->table = fibers::DispatchTable::build(keys, values);
  // The code's probe has the table's shift and (one slot: a compare) size built in.
  if (copy->table.size() != site.table.size() || copy->table.shift() != site.table.shift()) return nullptr;
  return copy;
}

std::unique_ptr<CatchSite> rebind_catch_site(const CatchSite& site, const runtime::Instance& instance) {
  auto copy = std::make_unique<CatchSite>(site);
  for (CatchSite::Clause& c : copy->clauses)
    if (c.tag_index != UINT32_MAX) c.tag_id = instance.tags[c.tag_index]->id;
  return copy;
}

bool CodeTemplate::instantiate(const runtime::Instance& instance, runtime::MemoryInstance* memory0,
                               const JitContext* context, std::vector<std::unique_ptr<FiberSite>>& fiber_sites,
                               std::vector<std::unique_ptr<CatchSite>>& catch_sites, uint8_t* out) const {
  if (code().empty()) return false;
  std::vector<std::unique_ptr<FiberSite>> new_fiber_sites;
  std::vector<std::unique_ptr<CatchSite>> new_catch_sites;
  new_fiber_sites.reserve(this->fiber_sites.size());
  for (const auto& site : this->fiber_sites) {
    new_fiber_sites.push_back(rebind_fiber_site(*site, instance));
    if (!new_fiber_sites.back()) return false;
  }
  for (const auto& site : this->catch_sites) new_catch_sites.push_back(rebind_catch_site(*site, instance));
  std::memcpy(out, code().data(), code().size());
  const InstanceWords words{&instance, memory0, context, new_fiber_sites, new_catch_sites};
  bool fits = true;
  relocations.for_each([&](const Relocation& r) {
    const uint64_t value = instance_word(words, r.ref, r.index);
    if (!r.narrow)
      MacroAssembler::patch_constant(out, r.at, value);
    else if (value <= uint64_t(INT32_MAX))
      MacroAssembler::patch_constant32(out, r.at, uint32_t(value));
    else
      fits = false;
  });
  if (!fits) return false;
  for (auto& site : new_fiber_sites) fiber_sites.push_back(std::move(site));
  for (auto& site : new_catch_sites) catch_sites.push_back(std::move(site));
  return true;
}

void CodeTemplate::keep_sites(const runtime::Instance& instance, std::span<const std::unique_ptr<FiberSite>> fibers,
                              std::span<const std::unique_ptr<CatchSite>> catches, uint32_t first_fiber_site,
                              uint32_t first_catch_site) {
  for (const auto& site : fibers) {
    fiber_sites.push_back(rebind_fiber_site(*site, instance));
    // The template outlives the instance: no pointer into it stays.
    fiber_sites.back()->self = nullptr;
    fiber_sites.back()->callee = nullptr;
  }
  for (const auto& site : catches) catch_sites.push_back(rebind_catch_site(*site, instance));
  // (An instance's whole code numbers its sites from 0 already: nothing to
  // renumber, and a large module's relocations are megabytes to walk.)
  if (first_fiber_site == 0 && first_catch_site == 0) return;
  relocations.renumber_sites(first_fiber_site, first_catch_site);
}

void RelocationList::add_long(const Relocation& r) {
  if (capacity_ - used_ < kMaxEntryBytes) grow(used_ + kMaxEntryBytes);
  const int64_t delta = int64_t(r.at) - int64_t(last_at_);
  uint8_t* p = data_.get() + used_;
  p[0] = uint8_t(r.ref) | (r.narrow ? 0x80 : 0);
  p = put_leb(put_leb(p + 1, uint64_t(delta) << 1 ^ uint64_t(delta >> 63)), r.index);
  used_ = size_t(p - data_.get());
  last_at_ = r.at;
  ++count_;
}

void RelocationList::grow(size_t at_least) {
  const size_t capacity = std::max({at_least, capacity_ * 2, size_t(256)});
  std::unique_ptr<uint8_t[]> data(new uint8_t[capacity]);
  if (used_) std::memcpy(data.get(), data_.get(), used_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void RelocationList::renumber_sites(uint32_t first_fiber_site, uint32_t first_catch_site) {
  RelocationList renumbered;
  renumbered.reserve(count_);
  for_each([&](Relocation r) {
    switch (r.ref) {
      case InstanceRef::FiberSite: case InstanceRef::ResumeCache: case InstanceRef::SiteTag:
      case InstanceRef::DispatchSlots: case InstanceRef::DispatchMultiplier: case InstanceRef::DispatchKey:
        r.index -= first_fiber_site;
        break;
      case InstanceRef::CatchSite: r.index -= first_catch_site; break;
      default: break;
    }
    renumbered.add(r);
  });
  *this = std::move(renumbered);
}

std::shared_ptr<ModuleCode> shared_module_code(const std::shared_ptr<const Module>& module, CodeShape shape) {
  struct Entry {
    std::weak_ptr<const Module> module;
    std::vector<std::shared_ptr<ModuleCode>> shapes;
  };
  static std::mutex mutex;
  static std::map<const Module*, Entry> registry;
  std::lock_guard lock(mutex);
  auto it = registry.find(module.get());
  if (it == registry.end() || it->second.module.expired()) {
    // A module freed since (another one now at its address) has nothing to
    // share, and the entries of freed modules go; their code lives on with
    // the instances still running it.
    std::erase_if(registry, [](const auto& entry) { return entry.second.module.expired(); });
    it = registry.emplace(module.get(), Entry{module, {}}).first;
  }
  for (const auto& code : it->second.shapes)
    if (code->shape == shape) return code;
  it->second.shapes.push_back(std::make_shared<ModuleCode>(std::move(shape), module->functions.size()));
  return it->second.shapes.back();
}

}  // namespace weft::jit
