// WasiState: everything a WASI guest sees (arguments, environment, fd table,
// exit status) and one member function per wasi_snapshot_preview1 function.
// The functions are implemented by family in funcs_*.cc; bindings.cc derives
// each import's Wasm signature from the member function's C++ parameters
// (uint32_t → i32, uint64_t/int64_t → i64), so the table cannot drift.
#pragma once

#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "wasi/abi.h"
#include "wasi/fd_table.h"
#include "wasi/guest_memory.h"
#include "wasi/wasi.h"

namespace weft::wasi {

// The message of the trap that carries proc_exit out of the Wasm stack.
inline constexpr const char* kExitTrapMessage = "wasi proc_exit";

struct WasiState {
  // Packed NUL-terminated strings and their offsets (args_get / environ_get).
  struct StringList {
    std::string bytes;
    std::vector<uint32_t> offsets;
  };

  StringList args, env;
  FdTable fds;
  // poll_oneoff's epoll set, created with the context; declared after `fds`
  // so that it is closed first and no registration outlives it.
  UniqueFd epoll;
  uint64_t poll_calls = 0;  // numbers the calls for PollRegistration::call
  std::vector<ListeningSocket> listeners;  // what --tcplisten opened, in fd order
  Store* store = nullptr;
  std::optional<Extern> memory_export;
  GuestMemory mem;  // refreshed at every call (memory.grow moves the end)
  std::optional<uint32_t> exit_code;

  // Called before every function that takes guest pointers.
  Result<void> enter();

  // ---- args, environ, clocks, random, process (funcs_env.cc) ----------------
  Errno args_get(uint32_t argv, uint32_t argv_buf);
  Errno args_sizes_get(uint32_t argc_ptr, uint32_t buf_size_ptr);
  Errno environ_get(uint32_t environ, uint32_t environ_buf);
  Errno environ_sizes_get(uint32_t count_ptr, uint32_t buf_size_ptr);
  Errno clock_res_get(uint32_t id, uint32_t resolution_ptr);
  Errno clock_time_get(uint32_t id, uint64_t precision, uint32_t time_ptr);
  Errno random_get(uint32_t buf, uint32_t buf_len);
  Errno sched_yield();
  Errno proc_raise(uint32_t signal);
  Result<void> proc_exit(uint32_t code);

  // ---- sockets (funcs_sock.cc) ----------------------------------------------
  Errno sock_accept(uint32_t fd, uint32_t flags, uint32_t fd_ptr);
  Errno sock_recv(uint32_t fd, uint32_t ri_data, uint32_t ri_data_len, uint32_t ri_flags, uint32_t ro_datalen_ptr,
                  uint32_t ro_flags_ptr);
  Errno sock_send(uint32_t fd, uint32_t si_data, uint32_t si_data_len, uint32_t si_flags, uint32_t so_datalen_ptr);
  Errno sock_shutdown(uint32_t fd, uint32_t how);

  // ---- fd_* (funcs_fd.cc) ---------------------------------------------------
  Errno fd_advise(uint32_t fd, uint64_t offset, uint64_t len, uint32_t advice);
  Errno fd_allocate(uint32_t fd, uint64_t offset, uint64_t len);
  Errno fd_close(uint32_t fd);
  Errno fd_datasync(uint32_t fd);
  Errno fd_fdstat_get(uint32_t fd, uint32_t stat_ptr);
  Errno fd_fdstat_set_flags(uint32_t fd, uint32_t flags);
  Errno fd_fdstat_set_rights(uint32_t fd, uint64_t base, uint64_t inheriting);
  Errno fd_filestat_get(uint32_t fd, uint32_t stat_ptr);
  Errno fd_filestat_set_size(uint32_t fd, uint64_t size);
  Errno fd_filestat_set_times(uint32_t fd, uint64_t atim, uint64_t mtim, uint32_t fst_flags);
  Errno fd_pread(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint64_t offset, uint32_t nread_ptr);
  Errno fd_prestat_get(uint32_t fd, uint32_t prestat_ptr);
  Errno fd_prestat_dir_name(uint32_t fd, uint32_t path, uint32_t path_len);
  Errno fd_pwrite(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint64_t offset, uint32_t nwritten_ptr);
  Errno fd_read(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nread_ptr);
  Errno fd_readdir(uint32_t fd, uint32_t buf, uint32_t buf_len, uint64_t cookie, uint32_t bufused_ptr);
  Errno fd_renumber(uint32_t fd, uint32_t to);
  Errno fd_seek(uint32_t fd, int64_t offset, uint32_t whence, uint32_t newoffset_ptr);
  Errno fd_sync(uint32_t fd);
  Errno fd_tell(uint32_t fd, uint32_t offset_ptr);
  Errno fd_write(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nwritten_ptr);

  // ---- path_* (funcs_path.cc) -----------------------------------------------
  Errno path_create_directory(uint32_t fd, uint32_t path, uint32_t path_len);
  Errno path_filestat_get(uint32_t fd, uint32_t flags, uint32_t path, uint32_t path_len, uint32_t stat_ptr);
  Errno path_filestat_set_times(uint32_t fd, uint32_t flags, uint32_t path, uint32_t path_len, uint64_t atim,
                                uint64_t mtim, uint32_t fst_flags);
  Errno path_link(uint32_t old_fd, uint32_t old_flags, uint32_t old_path, uint32_t old_path_len, uint32_t new_fd,
                  uint32_t new_path, uint32_t new_path_len);
  Errno path_open(uint32_t fd, uint32_t dirflags, uint32_t path, uint32_t path_len, uint32_t oflags,
                  uint64_t rights_base, uint64_t rights_inheriting, uint32_t fdflags, uint32_t fd_ptr);
  Errno path_readlink(uint32_t fd, uint32_t path, uint32_t path_len, uint32_t buf, uint32_t buf_len,
                      uint32_t bufused_ptr);
  Errno path_remove_directory(uint32_t fd, uint32_t path, uint32_t path_len);
  Errno path_rename(uint32_t fd, uint32_t old_path, uint32_t old_path_len, uint32_t new_fd, uint32_t new_path,
                    uint32_t new_path_len);
  Errno path_symlink(uint32_t old_path, uint32_t old_path_len, uint32_t fd, uint32_t new_path,
                     uint32_t new_path_len);
  Errno path_unlink_file(uint32_t fd, uint32_t path, uint32_t path_len);

  // ---- poll_oneoff (funcs_poll.cc) ------------------------------------------
  Errno poll_oneoff(uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t nevents_ptr);

  // ---- helpers shared by the families (funcs_fd.cc) -------------------------
  // The entry for `fd` if it exists and has all of `needed` rights.
  Errno lookup(uint32_t fd, uint64_t needed, FdEntry*& entry);
  // The directory entry a path_* function starts from, and its guest path string.
  Errno lookup_dir(uint32_t fd, uint64_t needed, uint32_t path, uint32_t path_len, FdEntry*& entry,
                   std::string_view& path_text);
};

// Opens a listening TCP socket on "HOST:PORT" ("[v6]:PORT" too; port 0 picks
// a free port), as wasmtime's --tcplisten: SO_REUSEADDR, backlog SOMAXCONN.
Result<ListeningSocket> open_tcp_listener(const std::string& address, UniqueFd& socket);
// sendmsg of host iovecs with MSG_NOSIGNAL (EPIPE instead of SIGPIPE), retried on EINTR.
ssize_t send_to_socket(int host_fd, iovec* iov, int count, int flags);

// The WASI file type of a host st_mode.
Filetype filetype_from_mode(uint32_t mode);
// Fills a 64-byte filestat from a host `struct stat`.
void encode_filestat(const struct stat& st, uint8_t* out);
// Timestamps for futimens/utimensat from WASI's (atim, mtim, fst_flags).
Errno make_timespecs(uint64_t atim, uint64_t mtim, uint32_t fst_flags, struct timespec* times);

}  // namespace weft::wasi
