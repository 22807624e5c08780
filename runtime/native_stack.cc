#include "runtime/native_stack.h"

#include <pthread.h>

namespace weft::runtime {

uintptr_t thread_native_floor() {
  // Computed once per thread: pthread_getattr_np reads /proc for the main thread.
  thread_local const uintptr_t floor = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t(0);
    void* low = nullptr;
    size_t size = 0;
    const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!ok || low == nullptr) return uintptr_t(0);
    const size_t margin = size / 4 < 256 * 1024 ? size / 4 : 256 * 1024;
    return reinterpret_cast<uintptr_t>(low) + margin;
  }();
  return floor;
}

}  // namespace weft::runtime
