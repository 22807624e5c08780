/* A plain C echo server on WASI sockets (no fibers): the same socket calls as
 * examples/async-io/server.wat, through wasi-libc — fcntl(O_NONBLOCK) →
 * fd_fdstat_set_flags, accept4(SOCK_NONBLOCK) → sock_accept, recv/send →
 * sock_recv/sock_send, shutdown → sock_shutdown, poll → poll_oneoff — in the
 * classic one-thread event-loop style the fiber server avoids.
 *
 *   weft run --tcplisten 127.0.0.1:0 socket_echo.wasm MAX_CONNECTIONS [IDLE_TIMEOUT_MS]
 *
 * First checks the errnos of the official WASI test suite's sock_shutdown
 * cases (EBADF for a closed fd, ENOTSOCK for stdout) and a few more; then
 * serves MAX_CONNECTIONS connections on fd 3 and prints the summary line the
 * fiber server prints, which bench/echo_load.py checks. Per-connection errors
 * go to stderr. wasi-libc's poll() builds its subscriptions in a stack array,
 * so this program is for tens of connections, not thousands. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LISTENER 3
#define MAX_CONNS 256
#define BUF_SIZE 4096

struct conn {
  int fd;
  size_t pending, sent; /* bytes of buf received but not yet echoed */
  long long last_activity_ms;
  unsigned char buf[BUF_SIZE];
};

static struct conn conns[MAX_CONNS];
static int live, accepted, errors, paused;
static unsigned long long bytes_echoed;

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int expect_errno(const char* what, int result, int wanted) {
  if (result == -1 && errno == wanted) return 0;
  fprintf(stderr, "check failed: %s returned %d, errno %d (%s); expected errno %d (%s)\n", what, result, errno,
          strerror(errno), wanted, strerror(wanted));
  return 1;
}

static int self_checks(void) {
  int failed = 0;
  failed |= expect_errno("shutdown(999, SHUT_RD)", shutdown(999, SHUT_RD), EBADF);
  failed |= expect_errno("shutdown(STDOUT_FILENO, SHUT_RD)", shutdown(STDOUT_FILENO, SHUT_RD), ENOTSOCK);
  char byte;
  failed |= expect_errno("recv(STDOUT_FILENO)", (int)recv(STDOUT_FILENO, &byte, 1, 0), ENOTSOCK);
  failed |= expect_errno("send(999)", (int)send(999, "x", 1, 0), EBADF);
  struct sockaddr_storage addr;
  socklen_t len = sizeof addr;
  failed |= expect_errno("accept(STDOUT_FILENO)", accept(STDOUT_FILENO, (struct sockaddr*)&addr, &len), ENOTSOCK);
  struct stat st;
  if (fstat(LISTENER, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr, "check failed: fd 3 is not a socket (run with --tcplisten HOST:PORT)\n");
    failed = 1;
  }
  if (fcntl(LISTENER, F_SETFL, O_NONBLOCK) != 0 || !(fcntl(LISTENER, F_GETFL) & O_NONBLOCK)) {
    fprintf(stderr, "check failed: fcntl(3, F_SETFL, O_NONBLOCK): %s\n", strerror(errno));
    failed = 1;
  }
  return failed;
}

static void close_conn(struct conn* c, const char* failure) {
  if (failure) {
    fprintf(stderr, "conn (fd %d): %s: %s\n", c->fd, failure, strerror(errno));
    ++errors;
  }
  close(c->fd);
  c->fd = -1;
  --live;
  paused = 0; /* an fd is free again */
}

/* Sends what is pending; returns -1 after closing the connection on an error. */
static int flush(struct conn* c) {
  while (c->sent < c->pending) {
    ssize_t n = send(c->fd, c->buf + c->sent, c->pending - c->sent, 0);
    if (n < 0) {
      if (errno == EAGAIN) return 0;
      close_conn(c, "send failed");
      return -1;
    }
    c->sent += (size_t)n;
    bytes_echoed += (unsigned long long)n;
  }
  c->pending = c->sent = 0;
  return 0;
}

static void serve_readable(struct conn* c) {
  ssize_t n = recv(c->fd, c->buf, sizeof c->buf, 0);
  if (n < 0) {
    if (errno != EAGAIN) close_conn(c, "recv failed");
    return;
  }
  if (n == 0) { /* the peer finished: everything was echoed, finish ours */
    shutdown(c->fd, SHUT_WR);
    close_conn(c, NULL);
    return;
  }
  c->pending = (size_t)n;
  c->sent = 0;
  flush(c);
}

static void accept_all(int max_connections) {
  while (!paused && (max_connections == 0 || accepted < max_connections)) {
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    int fd = accept4(LISTENER, (struct sockaddr*)&addr, &len, SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) paused = 1;
      else if (errno != EAGAIN) fprintf(stderr, "accept failed: %s\n", strerror(errno));
      return;
    }
    ++accepted;
    struct conn* c = NULL;
    for (int i = 0; i < MAX_CONNS && !c; ++i)
      if (conns[i].fd < 0) c = &conns[i];
    if (!c) {
      fprintf(stderr, "no free connection slot, refusing fd %d\n", fd);
      ++errors;
      close(fd);
      continue;
    }
    c->fd = fd;
    c->pending = c->sent = 0;
    c->last_activity_ms = now_ms();
    ++live;
  }
}

int main(int argc, char** argv) {
  int max_connections = argc > 1 ? atoi(argv[1]) : 0;
  long long idle_ms = argc > 2 ? atoll(argv[2]) : 10000;
  if (self_checks()) return 1;
  for (int i = 0; i < MAX_CONNS; ++i) conns[i].fd = -1;

  static struct pollfd fds[MAX_CONNS + 1];
  static struct conn* owner[MAX_CONNS + 1];
  while (live > 0 || max_connections == 0 || accepted < max_connections) {
    int count = 0;
    if (!paused && (max_connections == 0 || accepted < max_connections)) {
      fds[count] = (struct pollfd){LISTENER, POLLIN, 0};
      owner[count++] = NULL;
    }
    for (int i = 0; i < MAX_CONNS; ++i) {
      if (conns[i].fd < 0) continue;
      fds[count] = (struct pollfd){conns[i].fd, conns[i].pending ? POLLOUT : POLLIN, 0};
      owner[count++] = &conns[i];
    }
    if (poll(fds, (nfds_t)count, 250) < 0) {
      fprintf(stderr, "poll failed: %s\n", strerror(errno));
      return 1;
    }
    long long now = now_ms();
    for (int k = 0; k < count; ++k) {
      struct conn* c = owner[k];
      if (!c) {
        if (fds[k].revents) accept_all(max_connections);
        continue;
      }
      if (fds[k].revents) {
        c->last_activity_ms = now;
        if (c->pending) flush(c);
        else serve_readable(c);
      } else if (now - c->last_activity_ms > idle_ms) {
        errno = ETIMEDOUT;
        close_conn(c, c->pending ? "the peer stopped reading" : "no data from the peer");
      }
    }
  }
  printf("server: %d connections served, %llu bytes echoed, %d ended with an error\n", accepted, bytes_echoed, errors);
  return 0;
}
