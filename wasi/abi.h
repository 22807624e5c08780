// The wasi_snapshot_preview1 ABI: errno values, flag bits, enum codes and the
// byte layouts of the structures exchanged through guest memory (witx
// `typenames.witx`; offsets match wasi-libc's <wasi/api.h> static asserts).
#pragma once

#include <cstdint>

namespace weft::wasi {

// ---- errno -------------------------------------------------------------------

enum class Errno : uint16_t {
  success = 0, toobig = 1, acces = 2, addrinuse = 3, addrnotavail = 4, afnosupport = 5, again = 6,
  already = 7, badf = 8, badmsg = 9, busy = 10, canceled = 11, child = 12, connaborted = 13,
  connrefused = 14, connreset = 15, deadlk = 16, destaddrreq = 17, dom = 18, dquot = 19, exist = 20,
  fault = 21, fbig = 22, hostunreach = 23, idrm = 24, ilseq = 25, inprogress = 26, intr = 27,
  inval = 28, io = 29, isconn = 30, isdir = 31, loop = 32, mfile = 33, mlink = 34, msgsize = 35,
  multihop = 36, nametoolong = 37, netdown = 38, netreset = 39, netunreach = 40, nfile = 41,
  nobufs = 42, nodev = 43, noent = 44, noexec = 45, nolck = 46, nolink = 47, nomem = 48, nomsg = 49,
  noprotoopt = 50, nospc = 51, nosys = 52, notconn = 53, notdir = 54, notempty = 55,
  notrecoverable = 56, notsock = 57, notsup = 58, notty = 59, nxio = 60, overflow = 61,
  ownerdead = 62, perm = 63, pipe = 64, proto = 65, protonosupport = 66, prototype = 67, range = 68,
  rofs = 69, spipe = 70, srch = 71, stale = 72, timedout = 73, txtbsy = 74, xdev = 75,
  notcapable = 76,
};

// The WASI errno for a host `errno` value (EIO for anything without a match).
Errno errno_from_host(int host_errno);
// The symbolic name, e.g. "notcapable" (for diagnostics and tests).
const char* errno_name(Errno e);

// ---- enums and flags ---------------------------------------------------------

enum class ClockId : uint32_t { realtime = 0, monotonic = 1, process_cputime = 2, thread_cputime = 3 };

enum class Whence : uint8_t { set = 0, cur = 1, end = 2 };

enum class Filetype : uint8_t {
  unknown = 0, block_device = 1, character_device = 2, directory = 3, regular_file = 4,
  socket_dgram = 5, socket_stream = 6, symbolic_link = 7,
};

enum class Advice : uint8_t { normal = 0, sequential = 1, random = 2, willneed = 3, dontneed = 4, noreuse = 5 };

enum class EventType : uint8_t { clock = 0, fd_read = 1, fd_write = 2 };

namespace fdflags {
constexpr uint16_t append = 1, dsync = 2, nonblock = 4, rsync = 8, sync = 16;
constexpr uint16_t all = append | dsync | nonblock | rsync | sync;
}  // namespace fdflags

namespace oflags {
constexpr uint16_t creat = 1, directory = 2, excl = 4, trunc = 8;
constexpr uint16_t all = creat | directory | excl | trunc;
}  // namespace oflags

namespace lookupflags {
constexpr uint32_t symlink_follow = 1;
}  // namespace lookupflags

namespace fstflags {
constexpr uint16_t atim = 1, atim_now = 2, mtim = 4, mtim_now = 8;
constexpr uint16_t all = atim | atim_now | mtim | mtim_now;
}  // namespace fstflags

namespace subclockflags {
constexpr uint16_t abstime = 1;
}  // namespace subclockflags

namespace eventrwflags {
constexpr uint16_t hangup = 1;
}  // namespace eventrwflags

// sock_recv's ri_flags and ro_flags, sock_shutdown's how.
namespace riflags {
constexpr uint16_t recv_peek = 1, recv_waitall = 2;
constexpr uint16_t all = recv_peek | recv_waitall;
}  // namespace riflags
namespace roflags {
constexpr uint16_t recv_data_truncated = 1;
}  // namespace roflags
namespace sdflags {
constexpr uint8_t rd = 1, wr = 2;
constexpr uint8_t all = rd | wr;
}  // namespace sdflags

namespace rights {
constexpr uint64_t fd_datasync = 1ull << 0, fd_read = 1ull << 1, fd_seek = 1ull << 2,
                   fd_fdstat_set_flags = 1ull << 3, fd_sync = 1ull << 4, fd_tell = 1ull << 5,
                   fd_write = 1ull << 6, fd_advise = 1ull << 7, fd_allocate = 1ull << 8,
                   path_create_directory = 1ull << 9, path_create_file = 1ull << 10,
                   path_link_source = 1ull << 11, path_link_target = 1ull << 12, path_open = 1ull << 13,
                   fd_readdir = 1ull << 14, path_readlink = 1ull << 15, path_rename_source = 1ull << 16,
                   path_rename_target = 1ull << 17, path_filestat_get = 1ull << 18,
                   path_filestat_set_size = 1ull << 19, path_filestat_set_times = 1ull << 20,
                   fd_filestat_get = 1ull << 21, fd_filestat_set_size = 1ull << 22,
                   fd_filestat_set_times = 1ull << 23, path_symlink = 1ull << 24,
                   path_remove_directory = 1ull << 25, path_unlink_file = 1ull << 26,
                   poll_fd_readwrite = 1ull << 27, sock_shutdown = 1ull << 28, sock_accept = 1ull << 29;
constexpr uint64_t all = (1ull << 30) - 1;

// What a regular file (or character device, pipe, …) can be asked to do.
constexpr uint64_t file = fd_datasync | fd_read | fd_seek | fd_fdstat_set_flags | fd_sync | fd_tell |
                          fd_write | fd_advise | fd_allocate | fd_filestat_get | fd_filestat_set_size |
                          fd_filestat_set_times | poll_fd_readwrite;
// What a directory can be asked to do (its inheriting rights are dir | file).
constexpr uint64_t directory = fd_fdstat_set_flags | fd_sync | fd_advise | path_create_directory |
                               path_create_file | path_link_source | path_link_target | path_open |
                               fd_readdir | path_readlink | path_rename_source | path_rename_target |
                               path_filestat_get | path_filestat_set_size | path_filestat_set_times |
                               fd_filestat_get | fd_filestat_set_times | path_symlink |
                               path_remove_directory | path_unlink_file;
// What a connected stream socket can be asked to do (sockets cannot seek,
// sync or be stat'ed by path).
constexpr uint64_t socket_stream = fd_read | fd_write | fd_fdstat_set_flags | fd_filestat_get |
                                   poll_fd_readwrite | sock_shutdown;
// What a listening socket can be asked to do: accept, and be polled for
// readability (a pending connection) or have its blocking mode changed.
constexpr uint64_t socket_listener = fd_fdstat_set_flags | fd_filestat_get | poll_fd_readwrite |
                                     sock_accept | sock_shutdown;
// Rights that make path_open ask the host for a readable / writable descriptor.
constexpr uint64_t wants_read = fd_read | fd_readdir;
constexpr uint64_t wants_write = fd_datasync | fd_write | fd_allocate | fd_filestat_set_size;
}  // namespace rights

// ---- structure layouts (byte offsets in guest memory) ----------------------

namespace layout {
// iovec / ciovec: {buf: u32, buf_len: u32}
constexpr uint32_t iovec_size = 8;
// fdstat: {fs_filetype: u8 @0, fs_flags: u16 @2, fs_rights_base: u64 @8, fs_rights_inheriting: u64 @16}
constexpr uint32_t fdstat_size = 24;
// filestat: {dev @0, ino @8, filetype: u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56}
constexpr uint32_t filestat_size = 64;
// prestat: {tag: u8 @0 (0 = dir), pr_name_len: u32 @4}
constexpr uint32_t prestat_size = 8;
// dirent header: {d_next: u64 @0, d_ino: u64 @8, d_namlen: u32 @16, d_type: u8 @20}, then the name
constexpr uint32_t dirent_size = 24;
// subscription: {userdata: u64 @0, tag: u8 @8, union @16}; clock: {id: u32 @16,
// timeout: u64 @24, precision: u64 @32, flags: u16 @40}; fd_readwrite: {fd: u32 @16}
constexpr uint32_t subscription_size = 48;
// event: {userdata: u64 @0, error: u16 @8, type: u8 @10, nbytes: u64 @16, flags: u16 @24}
constexpr uint32_t event_size = 32;
}  // namespace layout

// The name of the host module every preview1 import comes from.
inline constexpr const char* kModuleName = "wasi_snapshot_preview1";

}  // namespace weft::wasi
