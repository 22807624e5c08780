/* Clocks: monotonic never goes back, realtime is a plausible date, CPU-time
 * clocks advance with work, sleeping waits at least as long as asked.
 * Only properties are printed, never times. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long long ns(struct timespec ts) { return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec; }

int main(void) {
  struct timespec a, b, res;
  int monotonic_ok = 1;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < 10000; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (ns(b) < ns(a)) monotonic_ok = 0;
    a = b;
  }
  printf("monotonic never decreases: %d\n", monotonic_ok);

  clock_gettime(CLOCK_REALTIME, &a);
  printf("realtime after 2020: %d\n", a.tv_sec > 1577836800);
  time_t t = time(NULL);
  /* glibc's time() reads the kernel's coarse clock, which is only brought up
   * to date at the timer tick: read just after a second boundary it can still
   * say the previous second although clock_gettime already said this one. */
  printf("time() agrees with realtime: %d\n", t >= a.tv_sec - 1 && t - a.tv_sec < 5);

  printf("monotonic resolution in (0, 1ms]: %d\n",
         clock_getres(CLOCK_MONOTONIC, &res) == 0 && ns(res) > 0 && ns(res) <= 1000000);
  printf("realtime resolution in (0, 1ms]: %d\n",
         clock_getres(CLOCK_REALTIME, &res) == 0 && ns(res) > 0 && ns(res) <= 1000000);

  struct timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  volatile unsigned long x = 0;
  for (unsigned long i = 0; i < 3000000; ++i) x += i * i;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  printf("process cpu time advances: %d\n", ns(c1) > ns(c0));
  printf("thread cpu clock works: %d\n", clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0) == 0 && ns(c0) > 0);

  clock_gettime(CLOCK_MONOTONIC, &a);
  struct timespec req = {0, 20 * 1000 * 1000};
  int r = nanosleep(&req, NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("nanosleep 20ms: ret=%d slept enough=%d\n", r, ns(b) - ns(a) >= 20 * 1000 * 1000);
  clock_gettime(CLOCK_MONOTONIC, &a);
  usleep(5000);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("usleep 5ms: slept enough=%d\n", ns(b) - ns(a) >= 5 * 1000 * 1000);
  return 0;
}
