// WASI sockets through the public API, on every tier: a listening socket
// handed in as WasiOptions::tcp_listen (fd 3, before the preopen), real
// loopback clients connecting to it, and sock_accept / sock_recv / sock_send /
// sock_shutdown / fd_fdstat_* / fd_close / poll_oneoff on what is accepted —
// including the errnos for bad fds, non-sockets, bad flags and bad pointers.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/wasi/wasi_fixture.h"

namespace {

using namespace weft::test;
namespace rights = weft::wasi::rights;
namespace fdflags = weft::wasi::fdflags;
using weft::wasi::EventType;

class WasiSocket : public WasiApi {
 protected:
  static constexpr uint32_t kListener = 3;

  void start_listening() {
    tcp_listen_ = {"127.0.0.1:0"};
    start();
    ASSERT_EQ(wasi_->listeners().size(), 1u);
    const std::string& bound = wasi_->listeners()[0].bound;
    port_ = uint16_t(std::stoi(bound.substr(bound.rfind(':') + 1)));
  }
  ~WasiSocket() override {
    for (int fd : clients_) ::close(fd);
  }

  // A loopback client connected to the listener (the kernel completes the
  // handshake; the guest accepts it from the backlog).
  int connect_client() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    clients_.push_back(fd);
    return fd;
  }
  // sock_accept with `flags`; the new guest fd, or kNoValue with the errno in `err`.
  uint32_t accept(uint32_t flags, uint32_t* err = nullptr) {
    uint32_t e = errno_of("sock_accept", {i32(kListener), i32(flags), i32(8)});
    if (err) *err = e;
    else EXPECT_EQ(e, 0u);
    return e == 0 ? peek<uint32_t>(8) : kNoValue;
  }
  // One iovec at 16 → [buffer, buffer + len).
  void iovec_at_16(uint32_t buffer, uint32_t len) {
    poke_val<uint32_t>(16, buffer);
    poke_val<uint32_t>(20, len);
  }
  uint32_t recv(uint32_t fd, uint32_t len, uint32_t flags = 0) {
    iovec_at_16(1024, len);
    return errno_of("sock_recv", {i32(fd), i32(16), i32(1), i32(flags), i32(24), i32(28)});
  }
  uint32_t send(uint32_t fd, const std::string& data) {
    poke_str(1024, data);
    iovec_at_16(1024, uint32_t(data.size()));
    return errno_of("sock_send", {i32(fd), i32(16), i32(1), i32(0), i32(24)});
  }
  // poll_oneoff over `subs` (48-byte records at 4096); the events (at 16384) as (userdata, error, type, nbytes, flags).
  struct Event {
    uint64_t userdata;
    uint16_t error;
    uint8_t type;
    uint64_t nbytes;
    uint16_t flags;
  };
  std::vector<Event> poll(const std::vector<std::vector<uint8_t>>& subs) {
    for (size_t i = 0; i < subs.size(); ++i) poke(uint32_t(4096 + 48 * i), subs[i].data(), 48);
    EXPECT_EQ(errno_of("poll_oneoff", {i32(4096), i32(16384), i32(uint32_t(subs.size())), i32(12)}), 0u);
    std::vector<Event> events;
    for (uint32_t k = 0; k < peek<uint32_t>(12); ++k) {
      uint32_t at = 16384 + 32 * k;
      events.push_back({peek<uint64_t>(at), peek<uint16_t>(at + 8), peek<uint8_t>(at + 10), peek<uint64_t>(at + 16),
                        peek<uint16_t>(at + 24)});
    }
    return events;
  }
  static std::vector<uint8_t> fd_subscription(uint64_t userdata, EventType type, uint32_t fd) {
    std::vector<uint8_t> s(48, 0);
    std::memcpy(s.data(), &userdata, 8);
    s[8] = uint8_t(type);
    std::memcpy(s.data() + 16, &fd, 4);
    return s;
  }
  static std::vector<uint8_t> clock_subscription(uint64_t userdata, uint64_t timeout_ns) {
    std::vector<uint8_t> s(48, 0);
    std::memcpy(s.data(), &userdata, 8);
    s[8] = uint8_t(EventType::clock);
    uint32_t monotonic = uint32_t(weft::wasi::ClockId::monotonic);
    std::memcpy(s.data() + 16, &monotonic, 4);
    std::memcpy(s.data() + 24, &timeout_ns, 8);
    return s;
  }

  uint16_t port_ = 0;
  std::vector<int> clients_;
};

INSTANTIATE_TEST_SUITE_P(Exec, WasiSocket, ::testing::ValuesIn(weft::test::available_tiers()),
                         weft::test::TierParamName());

TEST_P(WasiSocket, ListenerIsFdThreeBeforeThePreopen) {
  start_listening();
  EXPECT_EQ(wasi_->listeners()[0].guest_fd, kListener);
  EXPECT_EQ(wasi_->listeners()[0].requested, "127.0.0.1:0");
  EXPECT_NE(port_, 0u);
  // wasi-libc scans preopens with fd_prestat_get: a socket must say EBADF, the directory follows.
  EXPECT_EQ(errno_of("fd_prestat_get", {i32(3), i32(0)}), E(Errno::badf));
  EXPECT_EQ(errno_of("fd_prestat_get", {i32(4), i32(0)}), 0u);
  EXPECT_EQ(errno_of("fd_fdstat_get", {i32(3), i32(64)}), 0u);
  EXPECT_EQ(peek<uint8_t>(64), uint8_t(weft::wasi::Filetype::socket_stream));
  EXPECT_EQ(peek<uint16_t>(66), 0u);  // blocking until the guest says otherwise
  EXPECT_EQ(peek<uint64_t>(72), rights::socket_listener);
}

TEST_P(WasiSocket, AcceptReceiveSendShutdownClose) {
  start_listening();
  ASSERT_EQ(errno_of("fd_fdstat_set_flags", {i32(kListener), i32(fdflags::nonblock)}), 0u);
  EXPECT_EQ(errno_of("fd_fdstat_get", {i32(3), i32(64)}), 0u);
  EXPECT_EQ(peek<uint16_t>(66), fdflags::nonblock);
  uint32_t err = 0;
  accept(fdflags::nonblock, &err);
  EXPECT_EQ(err, E(Errno::again));  // nothing pending on a non-blocking listener

  int client = connect_client();
  uint32_t fd = accept(fdflags::nonblock);
  ASSERT_NE(fd, kNoValue);
  EXPECT_EQ(fd, 5u);  // 3 the listener, 4 the preopen
  EXPECT_EQ(errno_of("fd_fdstat_get", {i32(fd), i32(64)}), 0u);
  EXPECT_EQ(peek<uint8_t>(64), uint8_t(weft::wasi::Filetype::socket_stream));
  EXPECT_EQ(peek<uint16_t>(66), fdflags::nonblock);
  EXPECT_EQ(peek<uint64_t>(72), rights::socket_stream);

  EXPECT_EQ(recv(fd, 64), E(Errno::again));  // non-blocking, no data yet
  ASSERT_EQ(::write(client, "hello, fiber", 12), 12);
  EXPECT_EQ(recv(fd, 5, weft::wasi::riflags::recv_peek), 0u);  // peek leaves the data queued
  EXPECT_EQ(peek<uint32_t>(24), 5u);
  EXPECT_EQ(recv(fd, 64), 0u);
  EXPECT_EQ(peek<uint32_t>(24), 12u);
  EXPECT_EQ(peek<uint16_t>(28), 0u);
  EXPECT_EQ(peek_str(1024, 12), "hello, fiber");

  EXPECT_EQ(send(fd, "echo"), 0u);
  EXPECT_EQ(peek<uint32_t>(24), 4u);
  char buf[16] = {};
  ASSERT_EQ(::read(client, buf, sizeof buf), 4);
  EXPECT_EQ(std::string(buf, 4), "echo");

  // Shutting down the write side is EOF for the client; the guest can still read.
  EXPECT_EQ(errno_of("sock_shutdown", {i32(fd), i32(weft::wasi::sdflags::wr)}), 0u);
  EXPECT_EQ(::read(client, buf, sizeof buf), 0);
  ASSERT_EQ(::write(client, "x", 1), 1);
  ::shutdown(client, SHUT_WR);
  pollfd wait_readable{-1, 0, 0};  // give the FIN time to arrive before the guest reads
  ::poll(&wait_readable, 0, 20);
  EXPECT_EQ(recv(fd, 64), 0u);
  EXPECT_EQ(peek<uint32_t>(24), 1u);
  EXPECT_EQ(recv(fd, 64), 0u);
  EXPECT_EQ(peek<uint32_t>(24), 0u);  // end of stream

  EXPECT_EQ(errno_of("fd_close", {i32(fd)}), 0u);
  EXPECT_EQ(errno_of("fd_close", {i32(fd)}), E(Errno::badf));
  EXPECT_EQ(recv(fd, 64), E(Errno::badf));
}

TEST_P(WasiSocket, ErrnosForBadFdsFlagsAndPointers) {
  start_listening();
  // The official WASI test suite's sock_shutdown cases: a closed fd, a non-socket.
  EXPECT_EQ(errno_of("sock_shutdown", {i32(99), i32(weft::wasi::sdflags::rd)}), E(Errno::badf));
  EXPECT_EQ(errno_of("sock_shutdown", {i32(1), i32(weft::wasi::sdflags::rd)}), E(Errno::notsock));
  EXPECT_EQ(errno_of("sock_accept", {i32(4), i32(0), i32(8)}), E(Errno::notsock));  // the preopen
  EXPECT_EQ(errno_of("sock_send", {i32(1), i32(16), i32(1), i32(0), i32(24)}), E(Errno::notsock));
  // A listener accepts; it cannot be read or written.
  EXPECT_EQ(recv(kListener, 8), E(Errno::notcapable));
  EXPECT_EQ(send(kListener, "x"), E(Errno::notcapable));

  connect_client();
  const uint32_t page = 65536;
  // Bad flags and pointers fail before a connection is taken off the backlog.
  EXPECT_EQ(errno_of("sock_accept", {i32(kListener), i32(fdflags::append), i32(8)}), E(Errno::inval));
  EXPECT_EQ(errno_of("sock_accept", {i32(kListener), i32(0), i32(page - 2)}), E(Errno::fault));
  uint32_t fd = accept(fdflags::nonblock);
  ASSERT_NE(fd, kNoValue);
  EXPECT_EQ(errno_of("sock_shutdown", {i32(fd), i32(0)}), E(Errno::inval));
  EXPECT_EQ(errno_of("sock_shutdown", {i32(fd), i32(4)}), E(Errno::inval));
  EXPECT_EQ(recv(fd, 8, 4), E(Errno::inval));  // an undefined ri_flags bit
  EXPECT_EQ(errno_of("sock_send", {i32(fd), i32(16), i32(1), i32(1), i32(24)}), E(Errno::inval));
  iovec_at_16(page - 4, 8);  // a buffer crossing the end of memory
  EXPECT_EQ(errno_of("sock_recv", {i32(fd), i32(16), i32(1), i32(0), i32(24), i32(28)}), E(Errno::fault));
  EXPECT_EQ(errno_of("sock_send", {i32(fd), i32(16), i32(1), i32(0), i32(24)}), E(Errno::fault));
  EXPECT_EQ(errno_of("sock_recv", {i32(fd), i32(page - 4), i32(1), i32(0), i32(24), i32(28)}), E(Errno::fault));
  iovec_at_16(1024, 8);
  EXPECT_EQ(errno_of("sock_recv", {i32(fd), i32(16), i32(1), i32(0), i32(page - 2), i32(28)}), E(Errno::fault));
  EXPECT_EQ(errno_of("sock_recv", {i32(fd), i32(16), i32(1), i32(0), i32(24), i32(page - 1)}), E(Errno::fault));
  EXPECT_EQ(errno_of("sock_send", {i32(fd), i32(16), i32(1), i32(0), i32(page)}), E(Errno::fault));
}

TEST_P(WasiSocket, PeerResetAndClosedPeerAreErrnosNotSignals) {
  start_listening();
  int reset_client = connect_client();
  uint32_t fd = accept(fdflags::nonblock);
  ASSERT_NE(fd, kNoValue);
  linger abortive{1, 0};  // close() sends RST
  ASSERT_EQ(::setsockopt(reset_client, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive), 0);
  ::close(reset_client);
  clients_.pop_back();
  // The RST is already queued on loopback when close() returns.
  EXPECT_EQ(recv(fd, 64), E(Errno::connreset));

  int closing_client = connect_client();
  uint32_t fd2 = accept(fdflags::nonblock);
  ASSERT_NE(fd2, kNoValue);
  ::close(closing_client);
  clients_.pop_back();
  // The first send after the peer closed is answered with RST, the next fails:
  // EPIPE for the guest (weft sends with MSG_NOSIGNAL; a SIGPIPE would end this test).
  uint32_t first = send(fd2, "one");
  uint32_t second = send(fd2, "two");
  EXPECT_EQ(first, 0u);
  EXPECT_TRUE(second == E(Errno::pipe) || second == E(Errno::connreset)) << second;
  // fd_write on a socket takes the same path.
  poke_str(1024, "three");
  iovec_at_16(1024, 5);
  uint32_t third = errno_of("fd_write", {i32(fd2), i32(16), i32(1), i32(24)});
  EXPECT_TRUE(third == E(Errno::pipe) || third == E(Errno::connreset)) << third;
}

TEST_P(WasiSocket, PollReportsExactlyTheReadyConnectionsAmongMany) {
  start_listening();
  constexpr int kConnections = 200;
  std::vector<int> clients;
  std::vector<uint32_t> fds;
  for (int i = 0; i < kConnections; ++i) {
    clients.push_back(connect_client());
    fds.push_back(accept(fdflags::nonblock));
    ASSERT_NE(fds.back(), kNoValue);
  }
  std::vector<std::vector<uint8_t>> subs;
  for (int i = 0; i < kConnections; ++i) subs.push_back(fd_subscription(uint64_t(i), EventType::fd_read, fds[size_t(i)]));
  subs.push_back(clock_subscription(999, 5'000'000'000ull));  // 5 s: must not be waited for

  const std::set<int> writers = {7, 100, 199};
  for (int i : writers) ASSERT_EQ(::write(clients[size_t(i)], "abc", 3), 3);
  pollfd settle{-1, 0, 0};
  ::poll(&settle, 0, 20);  // loopback delivery
  for (int round = 0; round < 2; ++round) {  // unread data stays ready: the one-shot is re-armed
    std::vector<Event> events = poll(subs);
    std::set<int> woken;
    for (const Event& e : events) {
      EXPECT_EQ(e.error, 0u);
      EXPECT_EQ(e.type, uint8_t(EventType::fd_read));
      EXPECT_EQ(e.nbytes, 3u);
      woken.insert(int(e.userdata));
    }
    EXPECT_EQ(woken, writers) << "round " << round;
  }
  for (int i : writers) EXPECT_EQ(recv(fds[size_t(i)], 64), 0u);

  // Nothing ready: the clock fires alone.
  subs.back() = clock_subscription(999, 20'000'000);
  std::vector<Event> events = poll(subs);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].userdata, 999u);

  // Write interest on one connection, read interest on another whose peer
  // closed: both complete, the closed one readable with nothing to read.
  ::shutdown(clients[42], SHUT_WR);
  ::poll(&settle, 0, 20);
  events = poll({fd_subscription(1, EventType::fd_write, fds[3]), fd_subscription(2, EventType::fd_read, fds[42]),
                 fd_subscription(3, EventType::fd_read, fds[43])});
  std::set<uint64_t> woken;
  for (const Event& e : events) woken.insert(e.userdata);
  EXPECT_EQ(woken, (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(recv(fds[42], 64), 0u);
  EXPECT_EQ(peek<uint32_t>(24), 0u);

  // Closing a polled connection takes it out of the epoll set; the rest still work.
  EXPECT_EQ(errno_of("fd_close", {i32(fds[7])}), 0u);
  ASSERT_EQ(::write(clients[8], "z", 1), 1);
  ::poll(&settle, 0, 20);
  events = poll({fd_subscription(8, EventType::fd_read, fds[8]), fd_subscription(7, EventType::fd_read, fds[7])});
  ASSERT_EQ(events.size(), 2u);
  for (const Event& e : events) EXPECT_EQ(e.error, e.userdata == 7 ? E(Errno::badf) : 0u) << e.userdata;
}

TEST_P(WasiSocket, PollingThenClosingABorrowedFdLeavesNoStaleRegistration) {
  start_listening();
  // stdout is a borrowed pipe: closing guest fd 1 keeps the host fd open, so
  // its epoll registration must go with the entry.
  std::vector<Event> events = poll({fd_subscription(1, EventType::fd_write, 1)});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(errno_of("fd_close", {i32(1)}), 0u);
  int client = connect_client();
  uint32_t fd = accept(fdflags::nonblock);
  ASSERT_NE(fd, kNoValue);
  ASSERT_EQ(::write(client, "q", 1), 1);
  events = poll({fd_subscription(5, EventType::fd_read, fd), clock_subscription(6, 1'000'000'000)});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].userdata, 5u);
}

}  // namespace
