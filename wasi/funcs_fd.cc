// WASI fd_* functions: reading and writing through iovecs, seeking, file
// status, flags and rights, preopen queries, directory listing, renumbering.
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "wasi/iovecs.h"
#include "wasi/state.h"

namespace weft::wasi {

namespace {

// The rights a descriptor can have given what it is and how the host opened it.
void natural_rights(int host_fd, const struct stat& st, uint64_t& base, uint64_t& inheriting) {
  inheriting = 0;
  if (S_ISDIR(st.st_mode)) {
    base = rights::directory;
    inheriting = rights::directory | rights::file;
    return;
  }
  if (S_ISSOCK(st.st_mode)) {
    int listening = 0;
    socklen_t len = sizeof listening;
    const bool is_listener = ::getsockopt(host_fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening;
    base = is_listener ? rights::socket_listener : rights::socket_stream;
    return;
  }
  base = rights::file;
  // wasi-libc's isatty() is "a character device that cannot seek".
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && (!S_ISCHR(st.st_mode) || ::isatty(host_fd)))
    base &= ~(rights::fd_seek | rights::fd_tell);
  int fl = ::fcntl(host_fd, F_GETFL);
  if (fl >= 0) {
    if ((fl & O_ACCMODE) == O_RDONLY) base &= ~rights::wants_write;
    if ((fl & O_ACCMODE) == O_WRONLY) base &= ~rights::wants_read;
  }
}

Errno reload_dir_snapshot(FdEntry& e) {
  int fd = ::openat(e.host_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_from_host(errno);
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    int err = errno;
    ::close(fd);
    return errno_from_host(err);
  }
  auto snapshot = std::make_unique<DirSnapshot>();
  errno = 0;
  while (const dirent* d = ::readdir(dir)) {
    DirSnapshot::Entry entry;
    entry.name = d->d_name;
    entry.ino = d->d_ino;
    switch (d->d_type) {
      case DT_BLK: entry.type = Filetype::block_device; break;
      case DT_CHR: entry.type = Filetype::character_device; break;
      case DT_DIR: entry.type = Filetype::directory; break;
      case DT_REG: entry.type = Filetype::regular_file; break;
      case DT_LNK: entry.type = Filetype::symbolic_link; break;
      case DT_SOCK: entry.type = Filetype::socket_stream; break;
      case DT_UNKNOWN: {
        struct stat st;
        if (::fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) entry.type = filetype_from_mode(st.st_mode);
        break;
      }
      default: entry.type = Filetype::unknown; break;
    }
    snapshot->entries.push_back(std::move(entry));
  }
  int err = errno;
  ::closedir(dir);
  if (err != 0) return errno_from_host(err);
  e.dir_snapshot = std::move(snapshot);
  return Errno::success;
}

}  // namespace

// ---- shared helpers ------------------------------------------------------------

Filetype filetype_from_mode(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFBLK: return Filetype::block_device;
    case S_IFCHR: return Filetype::character_device;
    case S_IFDIR: return Filetype::directory;
    case S_IFREG: return Filetype::regular_file;
    case S_IFLNK: return Filetype::symbolic_link;
    case S_IFSOCK: return Filetype::socket_stream;
    default: return Filetype::unknown;  // FIFOs have no WASI file type
  }
}

void encode_filestat(const struct stat& st, uint8_t* out) {
  auto ns = [](const timespec& ts) { return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec); };
  std::memset(out, 0, layout::filestat_size);
  put_field<uint64_t>(out, 0, uint64_t(st.st_dev));
  put_field<uint64_t>(out, 8, uint64_t(st.st_ino));
  put_field<uint8_t>(out, 16, uint8_t(filetype_from_mode(st.st_mode)));
  put_field<uint64_t>(out, 24, uint64_t(st.st_nlink));
  put_field<uint64_t>(out, 32, uint64_t(st.st_size));
  put_field<uint64_t>(out, 40, ns(st.st_atim));
  put_field<uint64_t>(out, 48, ns(st.st_mtim));
  put_field<uint64_t>(out, 56, ns(st.st_ctim));
}

Errno make_timespecs(uint64_t atim, uint64_t mtim, uint32_t fst_flags, struct timespec* times) {
  if (fst_flags & ~uint32_t(fstflags::all)) return Errno::inval;
  auto one = [](uint64_t value, bool set, bool now, timespec& ts) {
    if (now) ts = {0, UTIME_NOW};
    else if (set) ts = {time_t(value / 1000000000u), long(value % 1000000000u)};
    else ts = {0, UTIME_OMIT};
  };
  bool atim_set = fst_flags & fstflags::atim, atim_now = fst_flags & fstflags::atim_now;
  bool mtim_set = fst_flags & fstflags::mtim, mtim_now = fst_flags & fstflags::mtim_now;
  if ((atim_set && atim_now) || (mtim_set && mtim_now)) return Errno::inval;
  one(atim, atim_set, atim_now, times[0]);
  one(mtim, mtim_set, mtim_now, times[1]);
  return Errno::success;
}

Errno WasiState::lookup(uint32_t fd, uint64_t needed, FdEntry*& entry) {
  entry = fds.get(fd);
  if (entry == nullptr) return Errno::badf;
  if ((entry->rights_base & needed) != needed) return Errno::notcapable;
  return Errno::success;
}

Errno WasiState::lookup_dir(uint32_t fd, uint64_t needed, uint32_t path, uint32_t path_len, FdEntry*& entry,
                            std::string_view& path_text) {
  if (Errno e = lookup(fd, needed, entry); e != Errno::success) return e;
  std::optional<std::string_view> text = mem.string(path, path_len);
  if (!text) return Errno::fault;
  path_text = *text;
  return Errno::success;
}

// ---- reading and writing ---------------------------------------------------------

Errno WasiState::fd_read(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nread_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_read, e); err != Errno::success) return err;
  if (!mem.in_bounds(nread_ptr, 4)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, iovs, iovs_len, host, count); err != Errno::success) return err;
  ssize_t n = retry_eintr([&] { return ::readv(e->host_fd, host, count); });
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(nread_ptr, uint32_t(n));
  return Errno::success;
}

Errno WasiState::fd_write(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint32_t nwritten_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_write, e); err != Errno::success) return err;
  if (!mem.in_bounds(nwritten_ptr, 4)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, iovs, iovs_len, host, count); err != Errno::success) return err;
  // A socket is written with MSG_NOSIGNAL: a peer that went away must be
  // EPIPE for the guest, not a SIGPIPE that kills the embedder.
  ssize_t n = e->is_socket ? send_to_socket(e->host_fd, host, count, 0)
                           : retry_eintr([&] { return ::writev(e->host_fd, host, count); });
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(nwritten_ptr, uint32_t(n));
  return Errno::success;
}

Errno WasiState::fd_pread(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint64_t offset, uint32_t nread_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_read | rights::fd_seek, e); err != Errno::success) return err;
  if (offset > uint64_t(INT64_MAX)) return Errno::inval;
  if (!mem.in_bounds(nread_ptr, 4)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, iovs, iovs_len, host, count); err != Errno::success) return err;
  ssize_t n = retry_eintr([&] { return ::preadv(e->host_fd, host, count, off_t(offset)); });
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(nread_ptr, uint32_t(n));
  return Errno::success;
}

Errno WasiState::fd_pwrite(uint32_t fd, uint32_t iovs, uint32_t iovs_len, uint64_t offset, uint32_t nwritten_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_write | rights::fd_seek, e); err != Errno::success) return err;
  if (offset > uint64_t(INT64_MAX)) return Errno::inval;
  if (!mem.in_bounds(nwritten_ptr, 4)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, iovs, iovs_len, host, count); err != Errno::success) return err;
  ssize_t n = retry_eintr([&] { return ::pwritev(e->host_fd, host, count, off_t(offset)); });
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(nwritten_ptr, uint32_t(n));
  return Errno::success;
}

// ---- position --------------------------------------------------------------------

Errno WasiState::fd_seek(uint32_t fd, int64_t offset, uint32_t whence, uint32_t newoffset_ptr) {
  int host_whence;
  switch (whence) {
    case uint32_t(Whence::set): host_whence = SEEK_SET; break;
    case uint32_t(Whence::cur): host_whence = SEEK_CUR; break;
    case uint32_t(Whence::end): host_whence = SEEK_END; break;
    default: return Errno::inval;
  }
  // Asking for the current position is fd_tell's right, as in wasmtime.
  uint64_t needed = offset == 0 && host_whence == SEEK_CUR ? rights::fd_tell : rights::fd_seek;
  FdEntry* e;
  if (Errno err = lookup(fd, needed, e); err != Errno::success) return err;
  if (!mem.in_bounds(newoffset_ptr, 8)) return Errno::fault;
  off_t pos = ::lseek(e->host_fd, off_t(offset), host_whence);
  if (pos < 0) return errno_from_host(errno);
  (void)mem.store<uint64_t>(newoffset_ptr, uint64_t(pos));
  return Errno::success;
}

Errno WasiState::fd_tell(uint32_t fd, uint32_t offset_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_tell, e); err != Errno::success) return err;
  if (!mem.in_bounds(offset_ptr, 8)) return Errno::fault;
  off_t pos = ::lseek(e->host_fd, 0, SEEK_CUR);
  if (pos < 0) return errno_from_host(errno);
  (void)mem.store<uint64_t>(offset_ptr, uint64_t(pos));
  return Errno::success;
}

// ---- descriptor management -----------------------------------------------------

Errno WasiState::fd_close(uint32_t fd) { return fds.close(fd); }

Errno WasiState::fd_renumber(uint32_t fd, uint32_t to) { return fds.renumber(fd, to); }

Errno WasiState::fd_sync(uint32_t fd) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_sync, e); err != Errno::success) return err;
  return ::fsync(e->host_fd) == 0 ? Errno::success : errno_from_host(errno);
}

Errno WasiState::fd_datasync(uint32_t fd) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_datasync, e); err != Errno::success) return err;
  return ::fdatasync(e->host_fd) == 0 ? Errno::success : errno_from_host(errno);
}

Errno WasiState::fd_advise(uint32_t fd, uint64_t offset, uint64_t len, uint32_t advice) {
  int host_advice;
  switch (advice) {
    case uint32_t(Advice::normal): host_advice = POSIX_FADV_NORMAL; break;
    case uint32_t(Advice::sequential): host_advice = POSIX_FADV_SEQUENTIAL; break;
    case uint32_t(Advice::random): host_advice = POSIX_FADV_RANDOM; break;
    case uint32_t(Advice::willneed): host_advice = POSIX_FADV_WILLNEED; break;
    case uint32_t(Advice::dontneed): host_advice = POSIX_FADV_DONTNEED; break;
    case uint32_t(Advice::noreuse): host_advice = POSIX_FADV_NOREUSE; break;
    default: return Errno::inval;
  }
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_advise, e); err != Errno::success) return err;
  if (offset > uint64_t(INT64_MAX) || len > uint64_t(INT64_MAX)) return Errno::inval;
  // posix_fadvise returns the error number instead of setting errno.
  return errno_from_host(::posix_fadvise(e->host_fd, off_t(offset), off_t(len), host_advice));
}

Errno WasiState::fd_allocate(uint32_t fd, uint64_t offset, uint64_t len) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_allocate, e); err != Errno::success) return err;
  if (offset > uint64_t(INT64_MAX) || len > uint64_t(INT64_MAX) - offset) return Errno::inval;
  return errno_from_host(::posix_fallocate(e->host_fd, off_t(offset), off_t(len)));
}

// ---- status, flags, rights -----------------------------------------------------

Errno WasiState::fd_fdstat_get(uint32_t fd, uint32_t stat_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, 0, e); err != Errno::success) return err;
  if (!mem.in_bounds(stat_ptr, layout::fdstat_size)) return Errno::fault;
  struct stat st;
  if (::fstat(e->host_fd, &st) != 0) return errno_from_host(errno);
  int fl = ::fcntl(e->host_fd, F_GETFL);
  if (fl < 0) return errno_from_host(errno);
  uint16_t flags = 0;
  if (fl & O_APPEND) flags |= fdflags::append;
  if (fl & O_NONBLOCK) flags |= fdflags::nonblock;
  if ((fl & O_SYNC) == O_SYNC) flags |= fdflags::sync;  // O_SYNC includes the O_DSYNC bit
  else if (fl & O_DSYNC) flags |= fdflags::dsync;
  uint64_t base, inheriting;
  natural_rights(e->host_fd, st, base, inheriting);
  uint8_t out[layout::fdstat_size] = {};
  put_field<uint8_t>(out, 0, uint8_t(filetype_from_mode(st.st_mode)));
  put_field<uint16_t>(out, 2, flags);
  put_field<uint64_t>(out, 8, base & e->rights_base);
  put_field<uint64_t>(out, 16, inheriting & e->rights_inheriting);
  (void)mem.write(stat_ptr, out, sizeof out);
  return Errno::success;
}

Errno WasiState::fd_fdstat_set_flags(uint32_t fd, uint32_t flags) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_fdstat_set_flags, e); err != Errno::success) return err;
  if (flags & ~uint32_t(fdflags::all)) return Errno::inval;
  // Linux cannot change the synchronisation mode of an open descriptor.
  if (flags & (fdflags::dsync | fdflags::rsync | fdflags::sync)) return Errno::notsup;
  int fl = ::fcntl(e->host_fd, F_GETFL);
  if (fl < 0) return errno_from_host(errno);
  fl &= ~(O_APPEND | O_NONBLOCK);
  if (flags & fdflags::append) fl |= O_APPEND;
  if (flags & fdflags::nonblock) fl |= O_NONBLOCK;
  return ::fcntl(e->host_fd, F_SETFL, fl) == 0 ? Errno::success : errno_from_host(errno);
}

Errno WasiState::fd_fdstat_set_rights(uint32_t fd, uint64_t base, uint64_t inheriting) {
  FdEntry* e;
  if (Errno err = lookup(fd, 0, e); err != Errno::success) return err;
  // Rights can only be dropped, never regained.
  if ((base & ~e->rights_base) != 0 || (inheriting & ~e->rights_inheriting) != 0) return Errno::notcapable;
  e->rights_base = base;
  e->rights_inheriting = inheriting;
  return Errno::success;
}

Errno WasiState::fd_filestat_get(uint32_t fd, uint32_t stat_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_filestat_get, e); err != Errno::success) return err;
  if (!mem.in_bounds(stat_ptr, layout::filestat_size)) return Errno::fault;
  struct stat st;
  if (::fstat(e->host_fd, &st) != 0) return errno_from_host(errno);
  uint8_t out[layout::filestat_size];
  encode_filestat(st, out);
  (void)mem.write(stat_ptr, out, sizeof out);
  return Errno::success;
}

Errno WasiState::fd_filestat_set_size(uint32_t fd, uint64_t size) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_filestat_set_size, e); err != Errno::success) return err;
  if (size > uint64_t(INT64_MAX)) return Errno::inval;
  return ::ftruncate(e->host_fd, off_t(size)) == 0 ? Errno::success : errno_from_host(errno);
}

Errno WasiState::fd_filestat_set_times(uint32_t fd, uint64_t atim, uint64_t mtim, uint32_t fst_flags) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_filestat_set_times, e); err != Errno::success) return err;
  timespec times[2];
  if (Errno err = make_timespecs(atim, mtim, fst_flags, times); err != Errno::success) return err;
  return ::futimens(e->host_fd, times) == 0 ? Errno::success : errno_from_host(errno);
}

// ---- preopens ------------------------------------------------------------------

Errno WasiState::fd_prestat_get(uint32_t fd, uint32_t prestat_ptr) {
  FdEntry* e = fds.get(fd);
  // wasi-libc scans fds from 3 until EBADF, so anything else must say EBADF too.
  if (e == nullptr || !e->preopen) return Errno::badf;
  uint8_t out[layout::prestat_size] = {};
  put_field<uint8_t>(out, 0, 0);  // tag: directory
  put_field<uint32_t>(out, 4, uint32_t(e->preopen->size()));
  return mem.write(prestat_ptr, out, sizeof out) ? Errno::success : Errno::fault;
}

Errno WasiState::fd_prestat_dir_name(uint32_t fd, uint32_t path, uint32_t path_len) {
  FdEntry* e = fds.get(fd);
  if (e == nullptr || !e->preopen) return Errno::badf;
  if (path_len < e->preopen->size()) return Errno::nametoolong;
  return mem.write(path, e->preopen->data(), e->preopen->size()) ? Errno::success : Errno::fault;
}

// ---- directories ---------------------------------------------------------------

Errno WasiState::fd_readdir(uint32_t fd, uint32_t buf, uint32_t buf_len, uint64_t cookie, uint32_t bufused_ptr) {
  FdEntry* e;
  if (Errno err = lookup(fd, rights::fd_readdir, e); err != Errno::success) return err;
  uint8_t* out = mem.slice(buf, buf_len);
  if (out == nullptr || !mem.in_bounds(bufused_ptr, 4)) return Errno::fault;
  if (cookie == 0 || !e->dir_snapshot) {
    if (Errno err = reload_dir_snapshot(*e); err != Errno::success) return err;
  }
  const std::vector<DirSnapshot::Entry>& entries = e->dir_snapshot->entries;
  // Each entry is a 24-byte header and the name; the last one that does not fit
  // is truncated, which tells the guest to call again with a bigger buffer.
  uint32_t used = 0;
  for (uint64_t i = cookie; i < entries.size() && used < buf_len; ++i) {
    const DirSnapshot::Entry& entry = entries[i];
    uint8_t header[layout::dirent_size] = {};
    put_field<uint64_t>(header, 0, i + 1);  // d_next: the cookie of the following entry
    put_field<uint64_t>(header, 8, entry.ino);
    put_field<uint32_t>(header, 16, uint32_t(entry.name.size()));
    put_field<uint8_t>(header, 20, uint8_t(entry.type));
    uint32_t n = std::min<uint32_t>(layout::dirent_size, buf_len - used);
    std::memcpy(out + used, header, n);
    used += n;
    n = uint32_t(std::min<uint64_t>(entry.name.size(), buf_len - used));
    std::memcpy(out + used, entry.name.data(), n);
    used += n;
  }
  (void)mem.store<uint32_t>(bufused_ptr, used);
  return Errno::success;
}

}  // namespace weft::wasi
