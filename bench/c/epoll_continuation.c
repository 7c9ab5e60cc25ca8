/* The rule of overlayd's EpollContinuation (Sources/MicroHTTP) for any libmicrohttpd program,
 * by LD_PRELOAD: a wait on the epoll set whose last wait on this thread filled its buffer
 * returns at once, so the library's loop never sleeps on a full batch of 128 before serving it.
 * bench/longpoll-soak --baseline-guarded soaks the C server with it.
 * cc -O2 -shared -fPIC -o epoll_continuation.so epoll_continuation.c */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/epoll.h>

static __thread int full_set = -1;

int epoll_wait(int set, struct epoll_event *events, int capacity, int timeout) {
  int count = epoll_pwait(set, events, capacity, full_set == set ? 0 : timeout, NULL);
  full_set = (capacity > 0 && count == capacity) ? set : -1;
  return count;
}
