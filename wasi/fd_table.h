// The guest's file descriptor table: guest fd numbers → host descriptors, with
// their WASI rights, preopen names, fd_readdir snapshots and poll_oneoff
// registrations. Guest fds 0-2 are the host's stdio (borrowed, never closed);
// listening sockets (--tcplisten) follow from 3, then the preopens.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wasi/abi.h"

namespace weft::wasi {

// An owned host file descriptor, closed on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

// A directory listing taken at fd_readdir cookie 0; later calls continue from
// their cookie (entry index + 1) in the same snapshot, so entries are neither
// skipped nor repeated while the guest reads in several buffers.
struct DirSnapshot {
  struct Entry {
    std::string name;
    uint64_t ino = 0;
    Filetype type = Filetype::unknown;
  };
  std::vector<Entry> entries;
};

// poll_oneoff's bookkeeping for one descriptor (wasi/funcs_poll.cc). A
// descriptor stays registered in the context's epoll set between calls, armed
// one-shot for the events last asked for, so a call costs an epoll_ctl only for
// descriptors whose interest changed or whose last event was delivered.
struct PollRegistration {
  int epoll_fd = -1;    // the epoll set the host fd is registered in, or -1
  uint32_t armed = 0;   // epoll events armed; 0 once an event was delivered (EPOLLONESHOT)
  uint64_t call = 0;    // the poll_oneoff call that last subscribed this fd
  uint32_t wanted = 0;  // the events that call asked for
  int32_t first_subscription = -1;  // that call's subscriptions on this fd, chained
};

struct FdEntry {
  int host_fd = -1;
  bool is_socket = false;  // sock_* functions accept only sockets (ENOTSOCK otherwise)
  UniqueFd owned;  // empty for borrowed descriptors (stdio)
  // Rights the guest may still use; fd_fdstat_set_rights can only drop bits.
  uint64_t rights_base = rights::all;
  uint64_t rights_inheriting = rights::all;
  std::optional<std::string> preopen;  // guest path, for preopened directories
  std::unique_ptr<DirSnapshot> dir_snapshot;
  PollRegistration poll;
};

class FdTable {
 public:
  FdEntry* get(uint32_t fd) {
    return fd < slots_.size() && slots_[fd] ? slots_[fd].get() : nullptr;
  }
  // Places `entry` at the lowest free number ≥ 3 (0-2 are stdio, as in POSIX
  // allocation above the standard streams).
  std::optional<uint32_t> insert(FdEntry entry);
  // Places `entry` at exactly `fd` (used to set up stdio).
  void insert_at(uint32_t fd, FdEntry entry);
  Errno close(uint32_t fd);
  // Moves `from` onto `to` (which must be open; it is closed first).
  Errno renumber(uint32_t from, uint32_t to);

 private:
  // Destroys the entry in `slot`, first taking a borrowed host fd out of the
  // epoll set: an owned fd leaves the set when it is closed, a borrowed one
  // would stay registered with a pointer to the destroyed entry.
  void release(std::unique_ptr<FdEntry>& slot);

  std::vector<std::unique_ptr<FdEntry>> slots_;
};

}  // namespace weft::wasi
