// The per-thread stack pools behind fiber_context's implicit-stack constructor.
#include "fibers/fiber_context.h"

#include <mutex>
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

// A thread's pool plus what it takes to outlive the thread: a fiber created on
// one thread may start (and finish) on another, possibly after its creator exited.
struct SharedPool {
  explicit SharedPool(const StackPoolConfig& config) : pool(config) {}
  StackPool pool;
  std::mutex mutex;       // orders other threads' releases against the owner's exit
  bool orphaned = false;  // the owner exited with stacks in use: the last release deletes the pool
};

// This thread's pool: a plain pointer, so the hot paths (every implicit-stack
// fiber's creation and exit) read it with one TLS load and no init guard.
thread_local SharedPool* this_thread_pool = nullptr;

// Deletes (or orphans) the pool when the thread exits. A separate object, touched
// only when the pool is created, because a thread_local with a destructor is
// reached through an initialization wrapper on every access.
struct ThreadExitCleanup {
  bool armed = false;
  ~ThreadExitCleanup() {
    SharedPool* shared = this_thread_pool;
    if (!armed || shared == nullptr) return;
    this_thread_pool = nullptr;
    std::unique_lock lock(shared->mutex);
    shared->pool.collect_released();
    if (shared->pool.stacks_in_use() != 0) {
      shared->orphaned = true;
      return;
    }
    lock.unlock();
    delete shared;
  }
};
thread_local ThreadExitCleanup this_thread_cleanup;

[[gnu::noinline]] SharedPool& create_this_thread_pool() {
  this_thread_cleanup.armed = true;  // constructs the cleanup object, registering its destructor
  this_thread_pool = new SharedPool(default_pool_config());
  return *this_thread_pool;
}

SharedPool& this_thread_shared_pool() {
  if (SharedPool* shared = this_thread_pool) [[likely]] return *shared;
  return create_this_thread_pool();
}

}  // namespace

StackPool& this_thread_stack_pool() { return this_thread_shared_pool().pool; }

namespace detail {

Stack allocate_default_stack(void** pool) {
  SharedPool& shared = this_thread_shared_pool();
  const StackResult result = shared.pool.allocate();
  if (!result) {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                            stack_error_name(result.error()));
  }
  *pool = &shared;
  return result.value();
}

void release_default_stack(void* pool, std::span<std::byte> stack) noexcept {
  auto* shared = static_cast<SharedPool*>(pool);
  const Stack s{stack.data(), stack.size()};
  if (shared == this_thread_pool) {
    shared->pool.release(s);  // the common case: no synchronisation
    return;
  }
  // The fiber was created on another thread (the only way a stack travels).
  std::unique_lock lock(shared->mutex);
  if (!shared->orphaned) {
    shared->pool.release_from_any_thread(s);
    return;
  }
  shared->pool.release(s);  // the owner is gone: act for it, under the lock
  if (shared->pool.stacks_in_use() != 0) return;
  lock.unlock();
  delete shared;
}

}  // namespace detail
}  // namespace weft::fibers
