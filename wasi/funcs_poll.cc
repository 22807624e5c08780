// WASI poll_oneoff: waits for clock deadlines and descriptor readiness on one
// epoll set that lives as long as the context (created with it). Each descriptor stays
// registered between calls, armed one-shot (EPOLLONESHOT) for the events it was
// last asked for, so a call with n subscriptions decodes n entries but makes
// epoll_ctl calls only for descriptors whose interest changed or whose event
// was delivered since — a green-thread scheduler polling 10,000 connections
// pays for the few that woke, not for all of them. An event for a descriptor
// not subscribed in this call is dropped; the one-shot disarmed it, and the
// next call that asks re-arms it, which reports it again if it is still ready.
//
// Invalid subscriptions (unknown fd, clock or tag) complete at once with an
// error event instead of failing the whole call. Descriptors epoll refuses
// (regular files, directories) are ready at once, as poll(2) says they are.
#include <sys/epoll.h>
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
  FdEntry* fd_entry = nullptr;   // fd_read/fd_write
  int32_t next_on_same_fd = -1;  // the fd's next subscription in this call
  uint32_t revents = 0;          // epoll events delivered for it
};

uint64_t now_ns(clockid_t clock) {
  timespec ts;
  ::clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

uint32_t epoll_events_for(EventType type) {
  return type == EventType::fd_read ? uint32_t(EPOLLIN) : uint32_t(EPOLLOUT);
}

// Whether epoll `events` complete a subscription of `type`: its direction,
// or an error or hangup (the next read or write reports it).
bool completes(EventType type, uint32_t events) {
  return (events & (epoll_events_for(type) | EPOLLERR | EPOLLHUP)) != 0;
}

void encode_event(uint8_t* out, const Subscription& sub, Errno error, uint64_t nbytes, uint16_t flags) {
  std::memset(out, 0, layout::event_size);
  put_field<uint64_t>(out, 0, sub.userdata);
  put_field<uint16_t>(out, 8, uint16_t(error));
  put_field<uint8_t>(out, 10, uint8_t(sub.type));
  put_field<uint64_t>(out, 16, nbytes);
  put_field<uint16_t>(out, 24, flags);
}

// epoll_pwait2 takes a nanosecond timeout (Linux 5.11); older kernels get
// epoll_wait's milliseconds, rounded up so a deadline is never reported early.
int wait_for_events(int epoll_fd, epoll_event* events, int max_events, const timespec* timeout) {
  static bool have_pwait2 = true;
  if (have_pwait2) {
    int r = ::epoll_pwait2(epoll_fd, events, max_events, timeout, nullptr);
    if (r >= 0 || errno != ENOSYS) return r;
    have_pwait2 = false;
  }
  int ms = -1;
  if (timeout != nullptr) {
    uint64_t total = uint64_t(timeout->tv_sec) * 1000u + (uint64_t(timeout->tv_nsec) + 999999u) / 1000000u;
    ms = int(std::min<uint64_t>(total, INT32_MAX));
  }
  return ::epoll_wait(epoll_fd, events, max_events, ms);
}

}  // namespace

Errno WasiState::poll_oneoff(uint32_t in, uint32_t out, uint32_t nsubscriptions, uint32_t nevents_ptr) {
  if (nsubscriptions == 0) return Errno::inval;
  const uint8_t* raw = mem.slice(in, uint64_t(nsubscriptions) * layout::subscription_size);
  uint8_t* events = mem.slice(out, uint64_t(nsubscriptions) * layout::event_size);
  if (raw == nullptr || events == nullptr || !mem.in_bounds(nevents_ptr, 4)) return Errno::fault;
  const uint64_t call = ++poll_calls;

  // Decode everything first: the guest may pass overlapping in/out buffers.
  // Subscriptions on one fd are chained from its entry, so that one epoll
  // registration serves them all.
  std::vector<Subscription> subs(nsubscriptions);
  std::vector<FdEntry*> subscribed;  // each fd once
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
      if (e->poll.call != call) {
        e->poll.call = call;
        e->poll.wanted = 0;
        e->poll.first_subscription = -1;
        subscribed.push_back(e);
      }
      e->poll.wanted |= epoll_events_for(sub.type);
      sub.fd_entry = e;
      sub.next_on_same_fd = e->poll.first_subscription;
      e->poll.first_subscription = int32_t(i);
    } else {
      sub.type = EventType::clock;
      sub.error = Errno::inval;
      immediate = true;
    }
  }

  // Arm every subscribed fd for what this call wants.
  auto for_each_subscription = [&](FdEntry* e, auto&& f) {
    for (int32_t i = e->poll.first_subscription; i >= 0; i = subs[size_t(i)].next_on_same_fd) f(subs[size_t(i)]);
  };
  bool fd_ready = false;
  for (FdEntry* e : subscribed) {
    if (e->poll.armed == e->poll.wanted) continue;
    epoll_event ev{};
    ev.events = e->poll.wanted | EPOLLONESHOT;
    ev.data.ptr = e;
    int op = e->poll.epoll_fd >= 0 ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    int r = ::epoll_ctl(epoll.get(), op, e->host_fd, &ev);
    if (r != 0 && errno == EEXIST) r = ::epoll_ctl(epoll.get(), EPOLL_CTL_MOD, e->host_fd, &ev);  // shared stdio fd
    if (r == 0) {
      e->poll.epoll_fd = epoll.get();
      e->poll.armed = e->poll.wanted;
    } else if (errno == EPERM) {
      // Not pollable (a regular file or directory): always ready.
      for_each_subscription(e, [&](Subscription& sub) { sub.revents = epoll_events_for(sub.type); });
      fd_ready = true;
    } else {
      const Errno err = errno_from_host(errno);
      for_each_subscription(e, [&](Subscription& sub) { sub.error = err; });
      immediate = true;
    }
  }

  // Wait: not at all if something already completed, until the earliest
  // deadline if there is a clock, otherwise until a descriptor is ready.
  // Events for fds this call did not subscribe are dropped and the wait goes on.
  std::vector<epoll_event> ready(std::clamp<size_t>(subscribed.size(), 1, 4096));
  const uint64_t start = now_ns(CLOCK_MONOTONIC);
  uint64_t elapsed = 0;
  for (;;) {
    timespec ts{}, *timeout = nullptr;
    if (immediate || fd_ready) {
      timeout = &ts;
    } else if (has_clock) {
      uint64_t left = min_timeout > elapsed ? min_timeout - elapsed : 0;
      ts = {time_t(left / 1000000000u), long(left % 1000000000u)};
      timeout = &ts;
    }
    int n = wait_for_events(epoll.get(), ready.data(), int(ready.size()), timeout);
    elapsed = now_ns(CLOCK_MONOTONIC) - start;
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_from_host(errno);
    }
    for (int k = 0; k < n; ++k) {
      auto* e = static_cast<FdEntry*>(ready[size_t(k)].data.ptr);
      e->poll.armed = 0;  // EPOLLONESHOT disarmed it
      if (e->poll.call != call) continue;
      for_each_subscription(e, [&](Subscription& sub) {
        if (!completes(sub.type, ready[size_t(k)].events)) return;
        sub.revents = ready[size_t(k)].events;
        fd_ready = true;
      });
    }
    if (n == 0 || fd_ready || immediate || (has_clock && elapsed >= min_timeout)) break;
  }

  uint32_t count = 0;
  for (const Subscription& sub : subs) {
    uint8_t* ev = events + uint64_t(count) * layout::event_size;
    if (sub.error != Errno::success) {
      encode_event(ev, sub, sub.error, 0, 0);
      ++count;
    } else if (sub.fd_entry != nullptr && sub.revents != 0) {
      Errno error = Errno::success;
      if ((sub.revents & EPOLLERR) && !(sub.revents & (EPOLLIN | EPOLLOUT))) error = Errno::io;
      int available = 0;
      if (sub.type == EventType::fd_read && ::ioctl(sub.fd_entry->host_fd, FIONREAD, &available) != 0) available = 0;
      encode_event(ev, sub, error, uint64_t(std::max(available, 0)),
                   (sub.revents & EPOLLHUP) ? eventrwflags::hangup : uint16_t(0));
      ++count;
    }
  }
  const bool nothing_else = count == 0;
  for (const Subscription& sub : subs) {
    if (sub.type != EventType::clock || sub.error != Errno::success) continue;
    // A deadline counts once passed; if nothing else woke us, the earliest
    // one did (epoll's clock and the guest's may disagree by a tick).
    bool expired = sub.timeout_ns <= elapsed || (nothing_else && sub.timeout_ns == min_timeout);
    if (!expired) continue;
    encode_event(events + uint64_t(count) * layout::event_size, sub, Errno::success, 0, 0);
    ++count;
  }
  (void)mem.store<uint32_t>(nevents_ptr, count);
  return Errno::success;
}

}  // namespace weft::wasi
