/* poll(): readiness of stdout (writable) and of a regular file (readable),
 * and a timeout with no ready descriptor. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(void) {
  int fd = open("poll.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  write(fd, "data", 4);
  lseek(fd, 0, SEEK_SET);
  struct pollfd fds[2] = {{1, POLLOUT, 0}, {fd, POLLIN, 0}};
  int n = poll(fds, 2, 1000);
  printf("poll stdout+file: %d ready, stdout writable=%d, file readable=%d\n", n, (fds[0].revents & POLLOUT) != 0,
         (fds[1].revents & POLLIN) != 0);
  close(fd);

  long long start = now_ms();
  n = poll(NULL, 0, 30);
  long long waited = now_ms() - start;
  printf("poll timeout: %d, waited >= 30ms: %d\n", n, waited >= 30);
  return 0;
}
