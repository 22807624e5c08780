// WASI sock_* functions on the sockets a host hands in (listening TCP sockets,
// wasmtime's --tcplisten) and the connections accepted from them: accept,
// receive, send, shut down. Preview1 has no way to create, bind or connect a
// socket; errors follow POSIX: EBADF for a closed fd, ENOTSOCK for an fd that
// is not a socket (the official WASI test suite's sock_shutdown cases).
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "wasi/iovecs.h"
#include "wasi/state.h"

namespace weft::wasi {

namespace {

// The socket behind guest `fd`, checked in POSIX's order: open, a socket,
// then allowed by its rights.
Errno lookup_socket(FdTable& fds, uint32_t fd, uint64_t needed, FdEntry*& entry) {
  entry = fds.get(fd);
  if (entry == nullptr) return Errno::badf;
  if (!entry->is_socket) return Errno::notsock;
  if ((entry->rights_base & needed) != needed) return Errno::notcapable;
  return Errno::success;
}

// "HOST:PORT" or "[V6HOST]:PORT" → host and port text.
bool split_host_port(const std::string& address, std::string& host, std::string& port) {
  size_t colon;
  if (!address.empty() && address[0] == '[') {
    size_t close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':') return false;
    host = address.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = address.rfind(':');
    if (colon == std::string::npos) return false;
    host = address.substr(0, colon);
  }
  port = address.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  return !host.empty() && !port.empty() && ec == std::errc() && end == port.data() + port.size() && value <= 65535;
}

std::string format_address(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(v4.sin_port));
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(addr);
  ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
  return "[" + std::string(text) + "]:" + std::to_string(ntohs(v6.sin6_port));
}

}  // namespace

// ---- host side: listening sockets ---------------------------------------------

Result<ListeningSocket> open_tcp_listener(const std::string& address, UniqueFd& socket) {
  auto failure = [&](const std::string& why) {
    return make_error(ErrorKind::Io, "cannot listen on '" + address + "': " + why);
  };
  std::string host, port;
  if (!split_host_port(address, host, port)) return failure("expected HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:0");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) return failure(::gai_strerror(rc));
  std::string last_error = "no address";
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      last_error = std::strerror(errno);
      continue;
    }
    // A server restarted right after stopping must be able to listen again
    // while its old connections are in TIME_WAIT.
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // The kernel caps the backlog at net.core.somaxconn; thousands of clients
    // connecting at once need more than std's (and so wasmtime's) 128.
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) {
      last_error = std::strerror(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
    ::freeaddrinfo(found);
    socket = std::move(fd);
    ListeningSocket listener;
    listener.requested = address;
    listener.bound = format_address(bound);
    return listener;
  }
  ::freeaddrinfo(found);
  return failure(last_error);
}

ssize_t send_to_socket(int host_fd, iovec* iov, int count, int flags) {
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = size_t(count);
  return retry_eintr([&] { return ::sendmsg(host_fd, &msg, flags | MSG_NOSIGNAL); });
}

// ---- guest side: sock_* ---------------------------------------------------------

Errno WasiState::sock_accept(uint32_t fd, uint32_t flags, uint32_t fd_ptr) {
  FdEntry* listener;
  if (Errno err = lookup_socket(fds, fd, rights::sock_accept, listener); err != Errno::success) return err;
  // NONBLOCK is the only flag an accepted socket can be given (as accept4's SOCK_NONBLOCK).
  if (flags & ~uint32_t(fdflags::nonblock)) return Errno::inval;
  // Checked before accepting: a connection taken off the backlog could not be handed back.
  if (!mem.in_bounds(fd_ptr, 4)) return Errno::fault;
  const int host_flags = SOCK_CLOEXEC | ((flags & fdflags::nonblock) ? SOCK_NONBLOCK : 0);
  UniqueFd accepted(retry_eintr([&] { return ::accept4(listener->host_fd, nullptr, nullptr, host_flags); }));
  if (!accepted.valid()) return errno_from_host(errno);
  FdEntry entry;
  entry.host_fd = accepted.get();
  entry.owned = std::move(accepted);
  entry.is_socket = true;
  entry.rights_base = rights::socket_stream & listener->rights_inheriting;
  entry.rights_inheriting = 0;
  std::optional<uint32_t> guest_fd = fds.insert(std::move(entry));
  if (!guest_fd) return Errno::mfile;  // the connection is closed with the entry
  (void)mem.store<uint32_t>(fd_ptr, *guest_fd);
  return Errno::success;
}

Errno WasiState::sock_recv(uint32_t fd, uint32_t ri_data, uint32_t ri_data_len, uint32_t ri_flags,
                           uint32_t ro_datalen_ptr, uint32_t ro_flags_ptr) {
  FdEntry* e;
  if (Errno err = lookup_socket(fds, fd, rights::fd_read, e); err != Errno::success) return err;
  if (ri_flags & ~uint32_t(riflags::all)) return Errno::inval;
  if (!mem.in_bounds(ro_datalen_ptr, 4) || !mem.in_bounds(ro_flags_ptr, 2)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, ri_data, ri_data_len, host, count); err != Errno::success) return err;
  msghdr msg{};
  msg.msg_iov = host;
  msg.msg_iovlen = size_t(count);
  const int host_flags = ((ri_flags & riflags::recv_peek) ? MSG_PEEK : 0) |
                         ((ri_flags & riflags::recv_waitall) ? MSG_WAITALL : 0);
  ssize_t n = retry_eintr([&] { return ::recvmsg(e->host_fd, &msg, host_flags); });
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(ro_datalen_ptr, uint32_t(n));
  (void)mem.store<uint16_t>(ro_flags_ptr, (msg.msg_flags & MSG_TRUNC) ? roflags::recv_data_truncated : uint16_t(0));
  return Errno::success;
}

Errno WasiState::sock_send(uint32_t fd, uint32_t si_data, uint32_t si_data_len, uint32_t si_flags,
                           uint32_t so_datalen_ptr) {
  FdEntry* e;
  if (Errno err = lookup_socket(fds, fd, rights::fd_write, e); err != Errno::success) return err;
  if (si_flags != 0) return Errno::inval;  // preview1 defines no send flags
  if (!mem.in_bounds(so_datalen_ptr, 4)) return Errno::fault;
  iovec host[kMaxIovs];
  int count = 0;
  if (Errno err = gather_iovs(mem, si_data, si_data_len, host, count); err != Errno::success) return err;
  ssize_t n = send_to_socket(e->host_fd, host, count, 0);
  if (n < 0) return errno_from_host(errno);
  (void)mem.store<uint32_t>(so_datalen_ptr, uint32_t(n));
  return Errno::success;
}

Errno WasiState::sock_shutdown(uint32_t fd, uint32_t how) {
  FdEntry* e;
  if (Errno err = lookup_socket(fds, fd, rights::sock_shutdown, e); err != Errno::success) return err;
  int host_how;
  switch (how) {
    case sdflags::rd: host_how = SHUT_RD; break;
    case sdflags::wr: host_how = SHUT_WR; break;
    case sdflags::rd | sdflags::wr: host_how = SHUT_RDWR; break;
    default: return Errno::inval;
  }
  return ::shutdown(e->host_fd, host_how) == 0 ? Errno::success : errno_from_host(errno);
}

}  // namespace weft::wasi
