// Store: object ownership, type interning, the execution stack.
#include "runtime/store.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

namespace weft::runtime {

// Interning identifies types by their params and results (kind, nullability,
// type index of each value type); `is_fiber` does not take part.
namespace {
bool valtype_equal(ValType a, ValType b) {
  return a.kind == b.kind && a.nullable == b.nullable && a.type_index == b.type_index;
}


uint32_t hash_type(const FuncType& t) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the fields compared below
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (ValType v : t.params) mix((uint64_t(v.kind) << 40) | (uint64_t(v.nullable) << 32) | v.type_index);
  mix(~0ull);
  for (ValType v : t.results) mix((uint64_t(v.kind) << 40) | (uint64_t(v.nullable) << 32) | v.type_index);
  return uint32_t(h ^ h >> 32);
}

bool same_type(const FuncType& a, const FuncType& b) {
  return std::equal(a.params.begin(), a.params.end(), b.params.begin(), b.params.end(), valtype_equal) &&
         std::equal(a.results.begin(), a.results.end(), b.results.begin(), b.results.end(), valtype_equal);
}
}  // namespace

uint32_t slot_count(std::span<const ValType> types) {
  uint32_t n = 0;
  for (ValType t : types) n += t.slots();
  return n;
}

Store::Store(const Config& config) : config_(config) {
  // The value stack is reserved once; pages are committed by the kernel on
  // first touch, so a large reservation costs nothing until used.
  size_t bytes = std::max<uint64_t>(config_.value_stack_bytes, 64 * 1024);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem != MAP_FAILED) {
    stack_.base = static_cast<uint64_t*>(mem);
    stack_.limit = stack_.base + bytes / sizeof(uint64_t);
    stack_.top = stack_.base;
  }
  stack_.max_depth = config_.max_call_depth;
  stack_.fuel = config_.fuel;
}

Store::~Store() {
  if (executor_) {
    for (auto& inst : instances_) executor_->release_instance(*inst);
  }
  if (stack_.base) munmap(stack_.base, (stack_.limit - stack_.base) * sizeof(uint64_t));
}

TypeId Store::intern_type(const FuncType& type) { return intern(type, true); }
TypeId Store::intern_kept_type(const FuncType& type) { return intern(type, false); }

void Store::keep_module(std::shared_ptr<const Module> module) {
  if (kept_modules_.empty() || kept_modules_.back() != module) kept_modules_.push_back(std::move(module));
}

void Store::reserve_types(size_t count) {
  types_.reserve(types_.size() + count);
  type_hashes_.reserve(types_.size() + count);
  grow_type_slots(types_.size() + count);
}

// Room for `types` entries at most half full (short probe sequences).
void Store::grow_type_slots(size_t types) {
  if (types * 2 <= type_slots_.size()) return;
  size_t size = 64;
  while (size < types * 2) size *= 2;
  type_slots_.assign(size, 0);
  const size_t mask = size - 1;
  for (uint32_t id = 0; id < types_.size(); ++id) {
    size_t i = type_hashes_[id] & mask;
    while (type_slots_[i] != 0) i = (i + 1) & mask;
    type_slots_[i] = id + 1;
  }
}

TypeId Store::intern(const FuncType& type, bool copy) {
  const uint32_t hash = hash_type(type);
  if (type_slots_.empty()) grow_type_slots(1);
  const size_t mask = type_slots_.size() - 1;
  size_t i = hash & mask;
  for (; type_slots_[i] != 0; i = (i + 1) & mask) {
    const uint32_t id = type_slots_[i] - 1;
    if (type_hashes_[id] == hash && same_type(*types_[id], type)) return TypeId(id);
  }
  const TypeId id = TypeId(types_.size());
  types_.push_back(copy ? &owned_types_.emplace_back(type) : &type);
  type_hashes_.push_back(hash);
  if (types_.size() * 2 > type_slots_.size()) {
    grow_type_slots(types_.size());  // re-places every id, this one included
  } else {
    type_slots_[i] = id + 1;
  }
  return id;
}

FuncInstance* Store::add_host_function(const FuncType& type, HostFunction fn, std::string debug_name) {
  auto f = std::make_unique<FuncInstance>();
  f->type_id = intern_type(type);
  f->type = &type_of(f->type_id);
  f->param_slots = slot_count(f->type->params);
  f->result_slots = slot_count(f->type->results);
  f->host = std::make_unique<HostCallable>(HostCallable{std::move(fn), std::move(debug_name)});
  return add_function(std::move(f));
}

FuncInstance* Store::add_function(std::unique_ptr<FuncInstance> f) {
  functions_.push_back(std::move(f));
  return functions_.back().get();
}
FuncInstance* Store::add_functions(size_t count) {
  function_blocks_.push_back(std::make_unique<FuncInstance[]>(count));
  return function_blocks_.back().get();
}
MemoryInstance* Store::add_memory(std::unique_ptr<MemoryInstance> m) {
  memories_.push_back(std::move(m));
  return memories_.back().get();
}
TableInstance* Store::add_table(std::unique_ptr<TableInstance> t) {
  tables_.push_back(std::move(t));
  return tables_.back().get();
}
GlobalInstance* Store::add_global(std::unique_ptr<GlobalInstance> g) {
  globals_.push_back(std::move(g));
  return globals_.back().get();
}
void Store::throw_new(const TagInstance* tag, const uint64_t* payload) {
  // The exception still in flight from an earlier throw that ended a host
  // call (nobody caught it) can be reused too.
  if (thrown) recycle(thrown);
  ExceptionObject* e;
  if (!free_exceptions_.empty()) {
    e = free_exceptions_.back();
    free_exceptions_.pop_back();
  } else {
    exceptions_.push_back(std::make_unique<ExceptionObject>());
    e = exceptions_.back().get();
  }
  e->tag = tag;
  e->exposed = false;
  e->payload.assign(payload, payload + tag->param_slots);
  thrown = e;
}

void Store::rethrow(ExceptionObject* e) {
  if (thrown && thrown != e) recycle(thrown);
  thrown = e;
}

void Store::catch_thrown(uint64_t* dest, uint32_t payload_slots, bool with_ref) {
  ExceptionObject* const e = thrown;
  thrown = nullptr;
  // Most exceptions carry zero or one value: no call to memcpy for those.
  if (payload_slots == 1)
    dest[0] = e->payload[0];
  else if (payload_slots > 1)
    std::memcpy(dest, e->payload.data(), size_t(payload_slots) * sizeof(uint64_t));
  if (with_ref) {
    e->exposed = true;  // never reused: an exnref to it exists
    dest[payload_slots] = reinterpret_cast<uint64_t>(e);
  } else {
    recycle(e);
  }
}

Error Store::exception_error() {
  return make_error(ErrorKind::Exception, "uncaught exception");
}

TagInstance* Store::add_tag(TypeId type) {
  auto t = std::make_unique<TagInstance>();
  t->id = tags_.size() + 1;  // identities start at 1: 0 marks empty dispatch slots
  t->type_id = type;
  t->type = &type_of(t->type_id);
  t->param_slots = slot_count(t->type->params);
  tags_.push_back(std::move(t));
  return tags_.back().get();
}

Instance* Store::add_instance(std::unique_ptr<Instance> i) {
  instances_.push_back(std::move(i));
  return instances_.back().get();
}

Result<void> Store::invoke(FuncInstance* func, uint64_t* args_results) {
  if (func->is_host()) {
    std::vector<uint64_t> args(args_results, args_results + func->param_slots);
    host_caller = nullptr;  // the embedder's own call
    return func->host->call(args.data(), args_results);
  }
  return executor_->call(func, args_results);
}

}  // namespace weft::runtime
