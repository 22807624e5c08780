// The guest's file descriptor table.
#include "wasi/fd_table.h"

#include <sys/epoll.h>
#include <unistd.h>

namespace weft::wasi {

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::optional<uint32_t> FdTable::insert(FdEntry entry) {
  // Guest fd numbers are u32, but a table past this size means a runaway guest;
  // the host's own descriptor limit normally stops it much earlier.
  constexpr size_t kMaxFds = 1u << 20;
  size_t fd = 3;
  while (fd < slots_.size() && slots_[fd]) ++fd;
  if (fd >= kMaxFds) return std::nullopt;
  insert_at(uint32_t(fd), std::move(entry));
  return uint32_t(fd);
}

void FdTable::insert_at(uint32_t fd, FdEntry entry) {
  if (fd >= slots_.size()) slots_.resize(size_t(fd) + 1);
  slots_[fd] = std::make_unique<FdEntry>(std::move(entry));
}

void FdTable::release(std::unique_ptr<FdEntry>& slot) {
  if (slot->poll.epoll_fd >= 0 && !slot->owned.valid())
    ::epoll_ctl(slot->poll.epoll_fd, EPOLL_CTL_DEL, slot->host_fd, nullptr);
  slot.reset();
}

Errno FdTable::close(uint32_t fd) {
  if (!get(fd)) return Errno::badf;
  release(slots_[fd]);
  return Errno::success;
}

Errno FdTable::renumber(uint32_t from, uint32_t to) {
  if (!get(from) || !get(to)) return Errno::badf;
  if (from != to) {
    release(slots_[to]);
    slots_[to] = std::move(slots_[from]);
  }
  return Errno::success;
}

}  // namespace weft::wasi
