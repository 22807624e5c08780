// The per-thread stack pool behind fiber_context's implicit-stack constructor.
#include "fibers/fiber_context.h"

#include <system_error>

namespace weft::fibers {

namespace {

// Matches Boost.Context's default stack size, plus a guard page since these
// stacks run arbitrary C++ code that cannot check its own depth.
StackPoolConfig default_pool_config() {
  StackPoolConfig config;
  config.stack_size = 128 * 1024;
  config.guard_pages = 1;
  config.slab_size = 4u << 20;
  return config;
}

// Owns this thread's pool. A thread that exits while fibers made on it are still
// alive (they may have moved to another thread before they first ran) leaks its
// pool on purpose: those fibers keep running on its stacks and return them later
// through release_from_any_thread().
struct ThreadStackPool {
  StackPool* pool = nullptr;
  ~ThreadStackPool() {
    if (pool == nullptr) return;
    pool->collect_released();
    if (pool->stacks_in_use() == 0) delete pool;
  }
};

thread_local ThreadStackPool this_thread_pool;

}  // namespace

StackPool& this_thread_stack_pool() {
  if (this_thread_pool.pool == nullptr) this_thread_pool.pool = new StackPool(default_pool_config());
  return *this_thread_pool.pool;
}

namespace detail {

Stack allocate_default_stack() {
  const StackResult result = this_thread_stack_pool().allocate();
  if (!result) {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                            stack_error_name(result.error()));
  }
  return result.value();
}

void release_default_stack(StackPool* pool, std::span<std::byte> stack) noexcept {
  const Stack s{stack.data(), stack.size()};
  if (pool == this_thread_pool.pool) {
    pool->release(s);
  } else {
    pool->release_from_any_thread(s);  // the fiber was created on another thread
  }
}

}  // namespace detail
}  // namespace weft::fibers
