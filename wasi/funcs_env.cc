// WASI arguments, environment, clocks, randomness, process control, and the
// socket functions (not provided: they answer ENOSYS).
#include <sched.h>
#include <sys/random.h>
#include <time.h>

#include <cerrno>

#include "wasi/state.h"

namespace weft::wasi {

namespace {

// Writes the pointer array and the packed strings of args_get / environ_get.
Errno write_string_list(const GuestMemory& mem, const WasiState::StringList& list, uint32_t ptrs, uint32_t buf) {
  if (!mem.in_bounds(ptrs, uint64_t(list.offsets.size()) * 4) || !mem.in_bounds(buf, list.bytes.size()))
    return Errno::fault;
  for (size_t i = 0; i < list.offsets.size(); ++i)
    (void)mem.store<uint32_t>(ptrs + uint32_t(i) * 4, buf + list.offsets[i]);
  (void)mem.write(buf, list.bytes.data(), list.bytes.size());
  return Errno::success;
}

Errno write_sizes(const GuestMemory& mem, const WasiState::StringList& list, uint32_t count_ptr, uint32_t size_ptr) {
  if (!mem.in_bounds(count_ptr, 4) || !mem.in_bounds(size_ptr, 4)) return Errno::fault;
  (void)mem.store<uint32_t>(count_ptr, uint32_t(list.offsets.size()));
  (void)mem.store<uint32_t>(size_ptr, uint32_t(list.bytes.size()));
  return Errno::success;
}

bool host_clock(uint32_t id, clockid_t& out) {
  switch (ClockId(id)) {
    case ClockId::realtime: out = CLOCK_REALTIME; return true;
    case ClockId::monotonic: out = CLOCK_MONOTONIC; return true;
    case ClockId::process_cputime: out = CLOCK_PROCESS_CPUTIME_ID; return true;
    case ClockId::thread_cputime: out = CLOCK_THREAD_CPUTIME_ID; return true;
  }
  return false;
}

uint64_t to_ns(const timespec& ts) { return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec); }

}  // namespace

Errno WasiState::args_get(uint32_t argv, uint32_t argv_buf) { return write_string_list(mem, args, argv, argv_buf); }
Errno WasiState::args_sizes_get(uint32_t argc_ptr, uint32_t buf_size_ptr) {
  return write_sizes(mem, args, argc_ptr, buf_size_ptr);
}
Errno WasiState::environ_get(uint32_t environ, uint32_t environ_buf) {
  return write_string_list(mem, env, environ, environ_buf);
}
Errno WasiState::environ_sizes_get(uint32_t count_ptr, uint32_t buf_size_ptr) {
  return write_sizes(mem, env, count_ptr, buf_size_ptr);
}

Errno WasiState::clock_res_get(uint32_t id, uint32_t resolution_ptr) {
  clockid_t clock;
  if (!host_clock(id, clock)) return Errno::inval;
  if (!mem.in_bounds(resolution_ptr, 8)) return Errno::fault;
  timespec ts;
  if (::clock_getres(clock, &ts) != 0) return errno_from_host(errno);
  (void)mem.store<uint64_t>(resolution_ptr, to_ns(ts));
  return Errno::success;
}

Errno WasiState::clock_time_get(uint32_t id, uint64_t /*precision: a hint*/, uint32_t time_ptr) {
  clockid_t clock;
  if (!host_clock(id, clock)) return Errno::inval;
  if (!mem.in_bounds(time_ptr, 8)) return Errno::fault;
  timespec ts;
  if (::clock_gettime(clock, &ts) != 0) return errno_from_host(errno);
  (void)mem.store<uint64_t>(time_ptr, to_ns(ts));
  return Errno::success;
}

Errno WasiState::random_get(uint32_t buf, uint32_t buf_len) {
  uint8_t* p = mem.slice(buf, buf_len);
  if (p == nullptr) return Errno::fault;
  size_t done = 0;
  while (done < buf_len) {
    ssize_t n = ::getrandom(p + done, buf_len - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_from_host(errno);
    }
    done += size_t(n);
  }
  return Errno::success;
}

Errno WasiState::sched_yield() {
  ::sched_yield();
  return Errno::success;
}

// Delivering a signal to the host process would let the guest kill or stop its
// embedder; wasmtime refuses too.
Errno WasiState::proc_raise(uint32_t) { return Errno::nosys; }

Result<void> WasiState::proc_exit(uint32_t code) {
  // Returning a trap unwinds every Wasm frame up to the embedder's call, which
  // recognises it by this message together with the recorded code.
  exit_code = code;
  return make_error(ErrorKind::Trap, kExitTrapMessage);
}

}  // namespace weft::wasi
