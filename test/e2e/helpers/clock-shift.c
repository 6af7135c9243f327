/* REL-01 (test/e2e/faults-clock.test.ts): the host's wall clock set by an offset, as `date -s`
 * would set it, for every program the host starts while this library is in its
 * /etc/ld.so.preload. Only the wall clock moves (CLOCK_REALTIME and its coarse twin,
 * gettimeofday, time); the monotonic and boot clocks do not, as they do not for a real clock
 * change. The offset, in seconds, is read from /etc/oac-e2e-clock at each call: a missing or
 * unreadable file is no offset. No environment variable is read or set: the installer clears
 * its environment (SEC-07) and switches users, and a library that handed its state down
 * through the environment (libfaketime's shared memory) failed there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static long offset_seconds(void) {
  FILE *f = fopen("/etc/oac-e2e-clock", "re");
  long offset = 0;
  if (f == NULL) return 0;
  if (fscanf(f, "%ld", &offset) != 1) offset = 0;
  fclose(f);
  return offset;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

int clock_gettime(clockid_t id, struct timespec *ts) {
  static clock_gettime_fn real;
  if (real == NULL) real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
  int r = real(id, ts);
  if (r == 0 && ts != NULL && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
    ts->tv_sec += offset_seconds();
  return r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  struct timespec ts;
  int r = clock_gettime(CLOCK_REALTIME, &ts);
  if (r == 0 && tv != NULL) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  (void)tz;
  return r;
}

time_t time(time_t *t) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (t != NULL) *t = ts.tv_sec;
  return ts.tv_sec;
}
