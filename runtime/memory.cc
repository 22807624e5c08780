// Linear memories and tables: reservation, growth, and the configured size limits.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "runtime/objects.h"

namespace weft::runtime {

MemoryInstance::~MemoryInstance() {
  if (data) munmap(data, reserved_bytes);
}

Result<std::unique_ptr<MemoryInstance>> MemoryInstance::create(MemoryType type, uint64_t config_max_pages,
                                                               bool guard_region) {
  auto m = std::make_unique<MemoryInstance>();
  m->type = type;
  uint64_t max_pages = std::min<uint64_t>(type.limits.max.value_or(kMaxMemoryPages), kMaxMemoryPages);
  max_pages = std::min(max_pages, config_max_pages);
  if (type.limits.min > max_pages) {
    return make_error(ErrorKind::Limit, "memory of " + std::to_string(type.limits.min) +
                                            " pages exceeds the configured limit of " + std::to_string(max_pages));
  }
  m->max_pages = max_pages;
  // Reserve the whole maximum (at least one page so data is never null) so the
  // base never moves; commit lazily through PROT_READ|WRITE on growth.
  m->reserved_bytes = std::max<uint64_t>(max_pages, 1) * kWasmPageSize;
  void* mem = MAP_FAILED;
  if (guard_region && sizeof(void*) == 8) {
    mem = mmap(nullptr, kGuardRegionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem != MAP_FAILED) {
      m->reserved_bytes = kGuardRegionBytes;
      m->guarded = true;
    }
  }
  if (mem == MAP_FAILED)
    mem = mmap(nullptr, m->reserved_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    m->reserved_bytes = 0;
    return make_error(ErrorKind::Limit, "cannot reserve address space for a memory");
  }
  m->data = static_cast<uint8_t*>(mem);
  if (type.limits.min > 0) {
    uint64_t bytes = type.limits.min * kWasmPageSize;
    if (mprotect(m->data, bytes, PROT_READ | PROT_WRITE) != 0)
      return make_error(ErrorKind::Limit, "cannot commit memory of " + std::to_string(type.limits.min) + " pages");
    m->size_bytes = bytes;
  }
  return m;
}

int64_t MemoryInstance::grow(uint64_t delta_pages) {
  uint64_t old_pages = pages();
  if (delta_pages > max_pages - old_pages) return -1;
  if (delta_pages == 0) return int64_t(old_pages);
  uint64_t new_bytes = (old_pages + delta_pages) * kWasmPageSize;
  if (mprotect(data + size_bytes, new_bytes - size_bytes, PROT_READ | PROT_WRITE) != 0) return -1;
  size_bytes = new_bytes;
  type.limits.min = old_pages + delta_pages;
  return int64_t(old_pages);
}

Result<std::unique_ptr<TableInstance>> TableInstance::create(TableType type, uint64_t init,
                                                             uint64_t config_max_elements) {
  uint64_t max_size = std::min<uint64_t>(type.limits.max.value_or(kMaxTableSize), kMaxTableSize);
  max_size = std::min(max_size, config_max_elements);
  if (type.limits.min > max_size) {
    return make_error(ErrorKind::Limit, "table of " + std::to_string(type.limits.min) +
                                            " elements exceeds the configured limit of " + std::to_string(max_size));
  }
  auto t = std::make_unique<TableInstance>();
  t->type = type;
  t->max_size = max_size;
  t->elements.assign(type.limits.min, init);
  return t;
}

int64_t TableInstance::grow(uint32_t delta, uint64_t init) {
  uint64_t old_size = elements.size();
  uint64_t limit = std::min<uint64_t>(type.limits.max.value_or(kMaxTableSize), max_size);
  if (old_size > limit || uint64_t(delta) > limit - old_size) return -1;
  elements.resize(old_size + delta, init);
  type.limits.min = old_size + delta;
  return int64_t(old_size);
}

}  // namespace weft::runtime
