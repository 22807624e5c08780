// WASI poll_oneoff: waits for clock deadlines and descriptor readiness with one
// host ppoll. Invalid subscriptions (unknown fd, clock or tag) complete at
// once with an error event instead of failing the whole call.
#include <poll.h>
#include <sys/ioctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "wasi/state.h"

namespace weft::wasi {

namespace {

struct Subscription {
  uint64_t userdata = 0;
  EventType type = EventType::clock;
  Errno error = Errno::success;  // set: completes immediately with this error
  uint64_t timeout_ns = 0;       // clock: relative to the start of the call
  int poll_index = -1;           // fd_read/fd_write: index into the pollfd array
};

uint64_t now_ns(clockid_t clock) {
  timespec ts;
  ::clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void encode_event(uint8_t* out, const Subscription& sub, Errno error, uint64_t nbytes, uint16_t flags) {
  std::memset(out, 0, layout::event_size);
  put_field<uint64_t>(out, 0, sub.userdata);
  put_field<uint16_t>(out, 8, uint16_t(error));
  put_field<uint8_t>(out, 10, uint8_t(sub.type));
  put_field<uint64_t>(out, 16, nbytes);
  put_field<uint16_t>(out, 24, flags);
}

}  // namespace

Errno WasiState::poll_oneoff(uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t nevents_ptr) {
  if (nsubscriptions == 0) return Errno::inval;
  const uint8_t* raw = mem.slice(in, uint64_t(nsubscriptions) * layout::subscription_size);
  uint8_t* events = mem.slice(out, uint64_t(nsubscriptions) * layout::event_size);
  if (raw == nullptr || events == nullptr || !mem.in_bounds(nevents_ptr, 4)) return Errno::fault;

  // Decode everything first: the guest may pass overlapping in/out buffers.
  std::vector<Subscription> subs(nsubscriptions);
  std::vector<pollfd> pollfds;
  bool immediate = false, has_clock = false;
  uint64_t min_timeout = UINT64_MAX;
  for (uint32_t i = 0; i < nsubscriptions; ++i) {
    const uint8_t* s = raw + uint64_t(i) * layout::subscription_size;
    Subscription& sub = subs[i];
    sub.userdata = get_field<uint64_t>(s, 0);
    uint8_t tag = get_field<uint8_t>(s, 8);
    if (tag == uint8_t(EventType::clock)) {
      sub.type = EventType::clock;
      uint32_t id = get_field<uint32_t>(s, 16);
      uint64_t timeout = get_field<uint64_t>(s, 24);
      uint16_t flags = get_field<uint16_t>(s, 40);
      // Only wall and monotonic time can be waited for; CPU-time clocks cannot.
      clockid_t clock;
      if (id == uint32_t(ClockId::realtime)) clock = CLOCK_REALTIME;
      else if (id == uint32_t(ClockId::monotonic)) clock = CLOCK_MONOTONIC;
      else {
        sub.error = Errno::inval;
        immediate = true;
        continue;
      }
      if (flags & subclockflags::abstime) {
        uint64_t now = now_ns(clock);
        sub.timeout_ns = timeout > now ? timeout - now : 0;
      } else {
        sub.timeout_ns = timeout;
      }
      has_clock = true;
      min_timeout = std::min(min_timeout, sub.timeout_ns);
    } else if (tag == uint8_t(EventType::fd_read) || tag == uint8_t(EventType::fd_write)) {
      sub.type = EventType(tag);
      FdEntry* e;
      if (Errno err = lookup(get_field<uint32_t>(s, 16), rights::poll_fd_readwrite, e); err != Errno::success) {
        sub.error = err;
        immediate = true;
        continue;
      }
      sub.poll_index = int(pollfds.size());
      pollfds.push_back(pollfd{e->host_fd, short(tag == uint8_t(EventType::fd_read) ? POLLIN : POLLOUT), 0});
    } else {
      sub.type = EventType::clock;
      sub.error = Errno::inval;
      immediate = true;
    }
  }

  // Wait: not at all if something already completed, until the earliest
  // deadline if there is a clock, otherwise until a descriptor is ready.
  const uint64_t start = now_ns(CLOCK_MONOTONIC);
  uint64_t elapsed = 0;
  for (;;) {
    timespec ts{}, *timeout = nullptr;
    if (immediate) {
      timeout = &ts;
    } else if (has_clock) {
      uint64_t left = min_timeout > elapsed ? min_timeout - elapsed : 0;
      ts = {time_t(left / 1000000000u), long(left % 1000000000u)};
      timeout = &ts;
    }
    int r = ::ppoll(pollfds.data(), pollfds.size(), timeout, nullptr);
    elapsed = now_ns(CLOCK_MONOTONIC) - start;
    if (r >= 0) break;
    if (errno != EINTR) return errno_from_host(errno);
  }

  uint32_t count = 0;
  for (const Subscription& sub : subs) {
    uint8_t* ev = events + uint64_t(count) * layout::event_size;
    if (sub.error != Errno::success) {
      encode_event(ev, sub, sub.error, 0, 0);
      ++count;
    } else if (sub.poll_index >= 0) {
      short revents = pollfds[size_t(sub.poll_index)].revents;
      if (revents == 0) continue;
      Errno error = Errno::success;
      if (revents & POLLNVAL) error = Errno::badf;
      else if ((revents & POLLERR) && !(revents & (POLLIN | POLLOUT))) error = Errno::io;
      int available = 0;
      if (sub.type == EventType::fd_read && ::ioctl(pollfds[size_t(sub.poll_index)].fd, FIONREAD, &available) != 0)
        available = 0;
      encode_event(ev, sub, error, uint64_t(std::max(available, 0)),
                   (revents & POLLHUP) ? eventrwflags::hangup : uint16_t(0));
      ++count;
    }
  }
  const bool nothing_else = count == 0;
  for (const Subscription& sub : subs) {
    if (sub.type != EventType::clock || sub.error != Errno::success || sub.poll_index >= 0) continue;
    // A deadline counts once passed; if nothing else woke us, the earliest
    // one did (ppoll's clock and the guest's may disagree by a tick).
    bool expired = sub.timeout_ns <= elapsed || (nothing_else && sub.timeout_ns == min_timeout);
    if (!expired) continue;
    encode_event(events + uint64_t(count) * layout::event_size, sub, Errno::success, 0, 0);
    ++count;
  }
  (void)mem.store<uint32_t>(nevents_ptr, count);
  return Errno::success;
}

}  // namespace weft::wasi
