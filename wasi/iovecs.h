// Guest iovec arrays → host iovecs, shared by fd_read/fd_write/fd_pread/
// fd_pwrite (funcs_fd.cc) and sock_recv/sock_send (funcs_sock.cc).
#pragma once

#include <sys/uio.h>

#include <cerrno>
#include <cstdint>

#include "wasi/abi.h"
#include "wasi/guest_memory.h"

namespace weft::wasi {

// One host iovec per guest iovec, built on the stack. A guest passing more
// gets a short read/write (which POSIX callers already handle) instead of
// making every call allocate.
constexpr uint32_t kMaxIovs = 64;

// Translates the guest's iovec array into host iovecs pointing into guest
// memory; EFAULT if the array or any buffer it names leaves guest memory.
inline Errno gather_iovs(const GuestMemory& mem, uint32_t iovs, uint32_t iovs_len, iovec* out, int& count) {
  // The whole array must be guest memory, even the part beyond kMaxIovs.
  const uint8_t* raw = mem.slice(iovs, uint64_t(iovs_len) * layout::iovec_size);
  if (raw == nullptr) return Errno::fault;
  uint32_t n = iovs_len < kMaxIovs ? iovs_len : kMaxIovs;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t buf = get_field<uint32_t>(raw, i * 8), len = get_field<uint32_t>(raw, i * 8 + 4);
    uint8_t* p = mem.slice(buf, len);
    if (p == nullptr) return Errno::fault;
    out[i] = iovec{p, len};
  }
  count = int(n);
  return Errno::success;
}

// Repeats a host call interrupted by a signal before it transferred anything.
template <class F>
auto retry_eintr(F op) {
  decltype(op()) r;
  do r = op();
  while (r < 0 && errno == EINTR);
  return r;
}

}  // namespace weft::wasi
