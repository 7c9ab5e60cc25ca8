/* The measuring client of bench/run for what wrk cannot measure. Works against overlayd and the
 * baseline alike (only HTTP on 127.0.0.1:PORT).
 *
 *   fanout longpoll --port P [--conns 1000] [--rounds 20] [--settle-ms 300] [--wait 25]
 *                   [--round-timeout-ms 10000] [--keepalive-control 0|1] [--server-pid PID]
 *       K keep-alive connections each park `GET /overlay?wait=W&since=V` (and If-None-Match
 *       W/"V") with the current version V; after a settle delay one `POST /messages` goes out on
 *       another connection. A round's figure is the time from sending that POST to the last of
 *       the K complete answers. Repeated `rounds` times (fresh V each round).
 *   fanout sse --port P [--conns 1000] [--rounds 20] [--settle-ms 300]
 *              [--stream-port Q]... [--stream-path /events]
 *       K `GET /events` streams; a round's figure is the time from sending the POST to the moment
 *       the last stream has received a complete new event (a block with a `data:` line). With
 *       --stream-port (repeatable) the streams go round-robin to those ports (nginx fronts with
 *       nchan, bench/scale) at --stream-path, while the POST still goes to --port.
 *   fanout startup --port P [--path /overlay] [--rss-after-ms 500] -- COMMAND ARGS...
 *       runs COMMAND, measures from just before fork/exec to the first 200 answer on PATH, then
 *       after a pause reads VmRSS of the process, and stops it (SIGTERM).
 *
 * --server-pid PID (long-poll and SSE): also the server's CPU time in each round, from the POST to
 * the last answer, all its threads, user and kernel (`server_cpu_median_ms`, `server_cpu_ms`):
 * what a fan-out costs the server, steadier than the round's wall-clock time.
 *
 * Output: `key value` lines on stdout (`status ok`, `median_ms`, `worst_ms`, `samples_ms`,
 * `stalled_rounds`, `stall_note`, ...). A round not complete after --round-timeout-ms is a stall:
 * its figure is the time waited, and all K connections are replaced before the next round.
 * Exit status: 0 measured; 3 the server does not do it (`status not_implemented`, `reason ...`):
 * a long-poll answered before any change, or /events not a 200 event stream; 1 anything else.
 *
 * The POST body is {"text":"hello","immediate":true}: on overlayd a new message that replaces the
 * shown one (202, one version step), so the queue never fills however many rounds run.
 *
 * Build: cc -O2 -o fanout fanout.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char POST_BODY[] = "{\"text\":\"hello\",\"immediate\":true}";

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

static void fail(const char *what) {
    printf("status error\nreason %s\n", what);
    fflush(stdout);
    exit(1);
}

/* ---- An incremental HTTP/1.1 response parser (Content-Length, chunked, or until close). ---- */

enum phase { HEAD, BODY_LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, CHUNK_TRAILER, BODY_EOF, DONE };

#define BUFFER 65536

struct conn {
    int fd;
    char buf[BUFFER];
    size_t len;
    enum phase phase;
    int status;
    int event_stream;     /* Content-Type: text/event-stream */
    long long etag;       /* version in the ETag, or -1 */
    long long remaining;  /* of the body or of the chunk */
    int64_t done_ns;      /* when the response completed */
    int closed;
    /* SSE: complete events seen, and the line being read. */
    long events;
    int64_t event_ns;
    char line[6];
    size_t line_len;
    int block_has_data;
    /* the first bytes of the body (the control connection reads the version from it) */
    char body[1024];
    size_t body_len;
};

static void reset_response(struct conn *c) {
    c->phase = HEAD;
    c->status = 0;
    c->event_stream = 0;
    c->etag = -1;
    c->remaining = 0;
    c->body_len = 0;
}

static void body_bytes(struct conn *c, const char *p, size_t n) {
    size_t room = sizeof c->body - 1 - c->body_len;
    size_t copy = n < room ? n : room;
    memcpy(c->body + c->body_len, p, copy);
    c->body_len += copy;
    c->body[c->body_len] = 0;
    if (!c->event_stream) return;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '\n') {
            if (c->line_len == 0) {
                if (c->block_has_data) {
                    c->events++;
                    c->event_ns = now_ns();
                }
                c->block_has_data = 0;
            } else if (c->line_len >= 5 && memcmp(c->line, "data:", 5) == 0) {
                c->block_has_data = 1;
            }
            c->line_len = 0;
        } else if (ch != '\r') {
            if (c->line_len < 5) c->line[c->line_len] = ch;
            c->line_len++;
        }
    }
}

static long long parse_version(const char *v) {
    while (*v == ' ') v++;
    if (v[0] == 'W' && v[1] == '/') v += 2;
    if (*v == '"') v++;
    if (!isdigit((unsigned char) *v)) return -1;
    return strtoll(v, NULL, 10);
}

static void parse_head(struct conn *c, char *head) {
    /* head is NUL-terminated and holds the status line and headers without the blank line */
    c->status = 0;
    if (strncmp(head, "HTTP/1.", 7) == 0) c->status = atoi(head + 9);
    int chunked = 0;
    long long length = -1;
    for (char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, "content-length:", 15) == 0) length = strtoll(line + 15, NULL, 10);
        else if (strncasecmp(line, "transfer-encoding:", 18) == 0 && strcasestr(line, "chunked")) chunked = 1;
        else if (strncasecmp(line, "etag:", 5) == 0) c->etag = parse_version(line + 5);
        else if (strncasecmp(line, "content-type:", 13) == 0) {
            char *end = strstr(line, "\r\n");
            char saved = end ? *end : 0;
            if (end) *end = 0;
            if (strcasestr(line, "text/event-stream")) c->event_stream = 1;
            if (end) *end = saved;
        }
    }
    if (c->status == 304 || c->status == 204 || (c->status >= 100 && c->status < 200)) c->phase = DONE;
    else if (chunked) c->phase = CHUNK_SIZE;
    else if (length >= 0) {
        c->remaining = length;
        c->phase = length == 0 ? DONE : BODY_LENGTH;
    } else c->phase = BODY_EOF;
}

/* Consumes what it can of c->buf; returns 1 when a response completed (it stops there). */
static int feed(struct conn *c) {
    size_t pos = 0;
    int completed = 0;
    while (!completed) {
        char *p = c->buf + pos;
        size_t avail = c->len - pos;
        if (c->phase == HEAD) {
            char *end = memmem(p, avail, "\r\n\r\n", 4);
            if (!end) break;
            *end = 0;
            parse_head(c, p);
            pos += (size_t) (end - p) + 4;
            if (c->phase == DONE) completed = 1;
        } else if (c->phase == BODY_LENGTH || c->phase == CHUNK_DATA) {
            if (avail == 0) break;
            size_t n = (long long) avail < c->remaining ? avail : (size_t) c->remaining;
            body_bytes(c, p, n);
            pos += n;
            c->remaining -= (long long) n;
            if (c->remaining == 0) {
                if (c->phase == BODY_LENGTH) {
                    c->phase = DONE;
                    completed = 1;
                } else c->phase = CHUNK_END;
            }
        } else if (c->phase == CHUNK_END) {
            if (avail < 2) break;
            pos += 2;
            c->phase = CHUNK_SIZE;
        } else if (c->phase == CHUNK_SIZE) {
            char *end = memmem(p, avail, "\r\n", 2);
            if (!end) break;
            c->remaining = strtoll(p, NULL, 16);
            pos += (size_t) (end - p) + 2;
            c->phase = c->remaining == 0 ? CHUNK_TRAILER : CHUNK_DATA;
        } else if (c->phase == CHUNK_TRAILER) {
            char *end = memmem(p, avail, "\r\n", 2);
            if (!end) break;
            pos += (size_t) (end - p) + 2;
            if (end == p) {
                c->phase = DONE;
                completed = 1;
            }
        } else if (c->phase == BODY_EOF) {
            body_bytes(c, p, avail);
            pos += avail;
            break;
        } else break; /* DONE: bytes of a next response wait */
    }
    memmove(c->buf, c->buf + pos, c->len - pos);
    c->len -= pos;
    if (completed) c->done_ns = now_ns();
    return completed;
}

/* Reads what is there; returns 1 when a response completed, -1 on close or error. */
static int pump(struct conn *c) {
    for (;;) {
        if (c->phase == DONE) return 1;
        if (c->len == sizeof c->buf) {
            /* a full buffer of unparsed bytes: only a stream's body gets here; drop it */
            if (c->phase == BODY_EOF) c->len = 0;
            else fail("response head over 64 KiB");
        }
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n > 0) {
            c->len += (size_t) n;
            if (feed(c)) return 1;
            continue;
        }
        if (n == 0) {
            c->closed = 1;
            if (c->phase == BODY_EOF) {
                c->phase = DONE;
                c->done_ns = now_ns();
                return 1;
            }
            return -1;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        c->closed = 1;
        return -1;
    }
}

static int port = 0;
/* Where the SSE streams go: --stream-port (round-robin), else --port. */
#define MAX_STREAM_PORTS 8
static int stream_ports[MAX_STREAM_PORTS];
static int stream_port_count = 0;
static const char *stream_path = "/events";

static int open_connection_to(int to_port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fail("socket() failed (raise ulimit -n)");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t) to_port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, (struct sockaddr *) &a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static int open_connection(void) { return open_connection_to(port); }

/* The port of stream i. */
static int stream_port(int i) { return stream_port_count ? stream_ports[i % stream_port_count] : port; }

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t) w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 1000);
        } else fail("write failed (connection closed by the server?)");
    }
}

/* Sends a request on c and waits (up to timeout_ms) for its whole answer. */
static int exchange(struct conn *c, const char *request, int timeout_ms) {
    reset_response(c);
    write_all(c->fd, request, strlen(request));
    int64_t deadline = now_ns() + (int64_t) timeout_ms * 1000000;
    for (;;) {
        int r = pump(c);
        if (r == 1) return 0;
        if (r < 0) return -1;
        int64_t left = (deadline - now_ns()) / 1000000;
        if (left <= 0) return -1;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        poll(&pf, 1, (int) left);
    }
}

static int control_timeout_ms = 2000;
static int keepalive_control = 0;
/* --server-pid: the server's CPU time during each round (from the POST to the last answer), from
 * the per-thread run times in /proc/PID/task/x/schedstat (nanoseconds, every thread, user and
 * kernel). Less noisy than the round's wall-clock time: what the fan-out cost the server. */
static int server_pid = 0;
static double *cpu_samples = NULL;

static int64_t server_cpu_ns(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", server_pid);
    DIR *tasks = opendir(path);
    if (!tasks) return 0;
    int64_t sum = 0;
    struct dirent *task;
    while ((task = readdir(tasks))) {
        if (task->d_name[0] == '.') continue;
        char stat[320];
        snprintf(stat, sizeof stat, "/proc/%d/task/%s/schedstat", server_pid, task->d_name);
        FILE *f = fopen(stat, "r");
        if (!f) continue;
        long long ran = 0;
        if (fscanf(f, "%lld", &ran) == 1) sum += ran;
        fclose(f);
    }
    closedir(tasks);
    return sum;
}
static int round_timeout_ms = 10000;
static int stalls = 0;
static char stall_note[256];

/* The control requests (GET the version, the POST) go on a new connection each, as `curl -d` does,
 * unless --keepalive-control: with libmicrohttpd 0.9.75 (epoll, thread pool) the next request on
 * the keep-alive connection whose POST resumed hundreds of waiters is sometimes never read, and
 * hangs until the 30 s idle timeout closes the connection (bench/README.md). */
static void fresh_control(struct conn *control) {
    if (keepalive_control && control->fd >= 0 && !control->closed) return;
    if (control->fd >= 0) close(control->fd);
    control->fd = open_connection();
    control->closed = 0;
    control->len = 0;
    if (control->fd < 0) fail("cannot connect");
}

static long long current_version(struct conn *control, int round) {
    /* Tries on new connections for up to 40 s: a stalled server recovers when libmicrohttpd's idle
     * timeout (30 s in both servers) ends its wait; that counts as a stall. */
    int64_t started = now_ns();
    for (;;) {
        fresh_control(control);
        if (exchange(control, "GET /overlay HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", control_timeout_ms) == 0) break;
        if (keepalive_control || now_ns() - started > 40000000000LL)
            fail(control->closed ? "GET /overlay: connection closed" : "GET /overlay: no answer");
        close(control->fd);
        control->fd = -1;
    }
    double waited = (double) (now_ns() - started) / 1e9;
    if (waited > control_timeout_ms / 1000.0) {
        stalls++;
        if (!stall_note[0])
            snprintf(stall_note, sizeof stall_note, "before round %d: GET /overlay unanswered for %.1f s", round + 1,
                     waited);
    }
    if (control->status != 200) fail("GET /overlay did not answer 200");
    if (control->etag >= 0) return control->etag;
    char *v = strstr(control->body, "\"version\":");
    if (!v) fail("no version in GET /overlay");
    return strtoll(v + 10, NULL, 10);
}

static char post_request[512];

static void send_post(struct conn *control) {
    fresh_control(control);
    reset_response(control);
    write_all(control->fd, post_request, strlen(post_request));
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void report(double *samples, int n) {
    double sorted[n];
    memcpy(sorted, samples, sizeof sorted);
    qsort(sorted, (size_t) n, sizeof *sorted, compare_double);
    double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    printf("status ok\nmedian_ms %.3f\nworst_ms %.3f\nbest_ms %.3f\nsamples_ms", median, sorted[n - 1], sorted[0]);
    for (int i = 0; i < n; i++) printf(" %.3f", samples[i]);
    printf("\n");
    if (server_pid) {
        memcpy(sorted, cpu_samples, sizeof sorted);
        qsort(sorted, (size_t) n, sizeof *sorted, compare_double);
        printf("server_cpu_median_ms %.3f\n", n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2);
        printf("server_cpu_ms");
        for (int i = 0; i < n; i++) printf(" %.3f", cpu_samples[i]);
        printf("\n");
    }
}

static void not_implemented(const char *reason) {
    printf("status not_implemented\nreason %s\n", reason);
    fflush(stdout);
    exit(3);
}

static void raise_fd_limit(int needed) {
    struct rlimit l;
    getrlimit(RLIMIT_NOFILE, &l);
    if (l.rlim_cur < (rlim_t) needed) {
        l.rlim_cur = l.rlim_max < (rlim_t) needed ? l.rlim_max : (rlim_t) needed;
        setrlimit(RLIMIT_NOFILE, &l);
    }
}

static struct conn *open_many(int k, int epoll, int streams) {
    struct conn *conns = calloc((size_t) k, sizeof *conns);
    if (!conns) fail("out of memory");
    for (int i = 0; i < k; i++) {
        conns[i].fd = streams ? open_connection_to(stream_port(i)) : open_connection();
        if (conns[i].fd < 0) fail("cannot connect");
        reset_response(&conns[i]);
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t) i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, conns[i].fd, &e);
    }
    return conns;
}

/* Waits up to ms for events; calls back with the index of each readable connection. */
static void poll_for(int epoll, int ms, void (*ready)(int index, void *context), void *context) {
    struct epoll_event events[256];
    int n = epoll_wait(epoll, events, 256, ms);
    for (int i = 0; i < n; i++) ready((int) events[i].data.u32, context);
}

struct round_state {
    struct conn *conns;
    int k;
    int finished;  /* connections whose figure is in */
    int premature; /* long-poll answers before the POST */
    int failed;
    int first_premature_status;
    long *events_before; /* SSE */
    char *counted;
    int64_t last_ns;
    int measuring;
    int epoll;
};

static void longpoll_ready(int i, void *context) {
    struct round_state *s = context;
    struct conn *c = &s->conns[i];
    if (c->phase == DONE) {
        /* an extra byte after a complete answer: read it to keep the loop from spinning */
        char scratch[4096];
        ssize_t n = read(c->fd, scratch, sizeof scratch);
        if (n == 0) {
            s->failed++;
            epoll_ctl(s->epoll, EPOLL_CTL_DEL, c->fd, NULL);
        }
        return;
    }
    int r = pump(c);
    if (r < 0) {
        s->failed++;
        epoll_ctl(s->epoll, EPOLL_CTL_DEL, c->fd, NULL);
        return;
    }
    if (r == 1) {
        if (!s->measuring) {
            if (!s->premature) s->first_premature_status = c->status;
            s->premature++;
        } else {
            s->finished++;
            if (c->done_ns > s->last_ns) s->last_ns = c->done_ns;
        }
    }
}

/* A round whose POST has not reached every waiter (or stream) within round_timeout_ms is a stall:
 * its figure is the time waited, it is counted and described, and every connection is replaced
 * so that the next round starts clean. (libmicrohttpd 0.9.75 can leave a whole pool thread's
 * connections unread after a mass resume, until its idle timeout closes them: bench/README.md.) */
static void note_stall(int round, int answered, int k, int closed, int post_answered, double waited_ms) {
    stalls++;
    if (stall_note[0]) return;
    snprintf(stall_note, sizeof stall_note, "round %d: %d of %d answered after %.1f s (%d closed by the server)%s",
             round + 1, answered, k, waited_ms / 1000, closed, post_answered ? "" : ", the POST unanswered");
}

static void reopen_all(struct conn *conns, int k, int epoll, int streams) {
    for (int i = 0; i < k; i++) close(conns[i].fd);
    for (int i = 0; i < k; i++) {
        memset(&conns[i], 0, sizeof conns[i]);
        conns[i].fd = streams ? open_connection_to(stream_port(i)) : open_connection();
        if (conns[i].fd < 0) fail("cannot connect");
        reset_response(&conns[i]);
        struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t) i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, conns[i].fd, &e);
    }
}

/* Waits for the POST's answer; returns 1 when it came and was a 2xx. */
static int post_answered(struct conn *control, int64_t deadline) {
    while (pump(control) == 0 && now_ns() < deadline) {
        struct pollfd pf = {.fd = control->fd, .events = POLLIN};
        poll(&pf, 1, 100);
    }
    if (control->phase != DONE) return 0;
    if (control->status / 100 != 2) {
        char reason[96];
        snprintf(reason, sizeof reason, "POST /messages answered %d", control->status);
        fail(reason);
    }
    return 1;
}

static void print_stalls(void) {
    printf("stalled_rounds %d\n", stalls);
    if (stall_note[0]) printf("stall_note %s\n", stall_note);
}

/* Polls for settle_ms: the connections park (or their streams open) and the last round's tail
 * drains before the POST. */
static void settle(int epoll, int settle_ms, void (*ready)(int, void *), struct round_state *s) {
    int64_t settle_end = now_ns() + (int64_t) settle_ms * 1000000;
    while (now_ns() < settle_end) {
        int left = (int) ((settle_end - now_ns()) / 1000000);
        poll_for(epoll, left > 0 ? left : 0, ready, s);
    }
}

/* Sends the round's POST and waits for every connection to see it; the round's figure goes into
 * samples[round]. Returns 0 on a stall (noted), after which the caller replaces the connections. */
static int measure_round(struct conn *control, int epoll, void (*ready)(int, void *), struct round_state *s,
                         int round, double *samples) {
    s->measuring = 1;
    int64_t cpu0 = server_pid ? server_cpu_ns() : 0;
    int64_t t0 = now_ns();
    send_post(control);
    int64_t deadline = t0 + (int64_t) round_timeout_ms * 1000000;
    while (s->finished + s->failed < s->k && now_ns() < deadline) poll_for(epoll, 100, ready, s);
    int posted = post_answered(control, s->finished == s->k ? now_ns() + 5000000000LL : deadline);
    if (s->finished < s->k || !posted) {
        samples[round] = (double) (now_ns() - t0) / 1e6;
        note_stall(round, s->finished, s->k, s->failed, posted, samples[round]);
        return 0;
    }
    samples[round] = (double) (s->last_ns - t0) / 1e6;
    if (server_pid) cpu_samples[round] = (double) (server_cpu_ns() - cpu0) / 1e6;
    return 1;
}

static int run_longpoll(int k, int rounds, int settle_ms, int wait_s) {
    raise_fd_limit(k + 64);
    struct conn *control = calloc(1, sizeof *control);
    control->fd = -1;
    if (keepalive_control) fresh_control(control); /* first, before the waiters: as when it stalled */
    int epoll = epoll_create1(0);
    struct conn *conns = open_many(k, epoll, 0);
    double *samples = calloc((size_t) rounds, sizeof *samples);
    cpu_samples = calloc((size_t) rounds, sizeof *cpu_samples);
    int non_200 = 0;
    for (int round = 0; round < rounds; round++) {
        long long v = current_version(control, round);
        char request[256];
        snprintf(request, sizeof request,
                 "GET /overlay?wait=%d&since=%lld HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: W/\"%lld\"\r\n\r\n",
                 wait_s, v, v);
        for (int i = 0; i < k; i++) {
            reset_response(&conns[i]);
            write_all(conns[i].fd, request, strlen(request));
        }
        struct round_state s = {.conns = conns, .k = k, .epoll = epoll};
        settle(epoll, settle_ms, longpoll_ready, &s);
        if (s.premature) {
            char reason[160];
            snprintf(reason, sizeof reason,
                     "%d of %d long-polls answered (status %d) before any change: wait/since not held",
                     s.premature, k, s.first_premature_status);
            if (round == 0) not_implemented(reason);
            fail(reason);
        }
        if (s.failed) fail("a waiting connection closed before the POST");
        if (!measure_round(control, epoll, longpoll_ready, &s, round, samples)) {
            reopen_all(conns, k, epoll, 0);
            continue;
        }
        for (int i = 0; i < k; i++)
            if (conns[i].status != 200) non_200++;
    }
    report(samples, rounds);
    printf("conns %d\nrounds %d\nnon_200_answers %d\n", k, rounds, non_200);
    print_stalls();
    return 0;
}

static void sse_ready(int i, void *context) {
    struct round_state *s = context;
    struct conn *c = &s->conns[i];
    int r = pump(c);
    if (r < 0 || c->phase == DONE) {
        if (!s->counted[i]) s->failed++;
        s->counted[i] = 1;
        epoll_ctl(s->epoll, EPOLL_CTL_DEL, c->fd, NULL);
        return;
    }
    if (s->measuring && !s->counted[i] && c->events > s->events_before[i]) {
        s->counted[i] = 1;
        s->finished++;
        if (c->event_ns > s->last_ns) s->last_ns = c->event_ns;
    }
}

static char stream_request[512];

static void open_streams(struct conn *conns, int k) {
    for (int i = 0; i < k; i++) write_all(conns[i].fd, stream_request, strlen(stream_request));
}

static int run_sse(int k, int rounds, int settle_ms) {
    raise_fd_limit(k + 64);
    struct conn *control = calloc(1, sizeof *control);
    control->fd = -1;
    /* A probe first, so that a server without /events is told apart from a slow one. */
    {
        struct conn *probe = calloc(1, sizeof *probe);
        probe->fd = open_connection_to(stream_port(0));
        if (probe->fd < 0) fail("cannot connect");
        reset_response(probe);
        write_all(probe->fd, stream_request, strlen(stream_request));
        int64_t deadline = now_ns() + 2000000000LL;
        while (probe->phase == HEAD && now_ns() < deadline) {
            if (pump(probe) < 0) break;
            struct pollfd pf = {.fd = probe->fd, .events = POLLIN};
            poll(&pf, 1, 50);
        }
        char reason[160];
        if (probe->phase == HEAD) {
            /* no head yet: a server may hold it until the first event; the rounds will tell */
        } else if (probe->status != 200 || !probe->event_stream) {
            snprintf(reason, sizeof reason, "GET /events answered %d%s", probe->status,
                     probe->status == 200 ? " without Content-Type text/event-stream" : "");
            not_implemented(reason);
        }
        close(probe->fd);
        free(probe);
    }
    int epoll = epoll_create1(0);
    struct conn *conns = open_many(k, epoll, 1);
    open_streams(conns, k);
    double *samples = calloc((size_t) rounds, sizeof *samples);
    cpu_samples = calloc((size_t) rounds, sizeof *cpu_samples);
    long *before = calloc((size_t) k, sizeof *before);
    char *counted = calloc((size_t) k, 1);
    for (int round = 0; round < rounds; round++) {
        struct round_state s = {.conns = conns, .k = k, .events_before = before, .counted = counted, .epoll = epoll};
        memset(counted, 0, (size_t) k);
        /* settle: streams open, the initial event (if any) read, the previous round's tail drained */
        settle(epoll, settle_ms, sse_ready, &s);
        if (s.failed) fail("an event stream closed before the POST");
        for (int i = 0; i < k; i++) {
            if (conns[i].phase != HEAD && (conns[i].status != 200 || !conns[i].event_stream)) {
                char reason[160];
                snprintf(reason, sizeof reason, "GET /events answered %d", conns[i].status);
                if (round == 0) not_implemented(reason);
                fail(reason);
            }
            before[i] = conns[i].events;
        }
        if (!measure_round(control, epoll, sse_ready, &s, round, samples)) {
            reopen_all(conns, k, epoll, 1);
            open_streams(conns, k);
        }
    }
    report(samples, rounds);
    printf("conns %d\nrounds %d\n", k, rounds);
    print_stalls();
    return 0;
}

static long rss_kb(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

static int run_startup(const char *path, int rss_after_ms, char **command) {
    int probe = open_connection();
    if (probe >= 0) fail("the port is already in use");
    char request[256];
    snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path);
    int64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(command[0], command);
        _exit(127);
    }
    int64_t first = 0;
    int64_t deadline = t0 + 20000000000LL;
    while (!first && now_ns() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) fail("the server exited before answering");
        int fd = open_connection();
        if (fd < 0) {
            usleep(100);
            continue;
        }
        struct conn *c = calloc(1, sizeof *c);
        c->fd = fd;
        if (exchange(c, request, 5000) == 0 && c->status == 200) first = now_ns();
        close(fd);
        free(c);
    }
    if (!first) {
        kill(pid, SIGKILL);
        fail("no 200 within 20 s");
    }
    usleep((useconds_t) rss_after_ms * 1000);
    long kb = rss_kb(pid);
    kill(pid, SIGTERM);
    int64_t stop_deadline = now_ns() + 5000000000LL;
    int status;
    while (waitpid(pid, &status, WNOHANG) != pid) {
        if (now_ns() > stop_deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        usleep(2000);
    }
    printf("status ok\nfirst_200_ms %.3f\nidle_rss_kb %ld\n", (double) (first - t0) / 1e6, kb);
    return 0;
}

static void usage(void) {
    fprintf(stderr, "usage: fanout longpoll|sse --port P [--conns K] [--rounds R] [--settle-ms MS] [--wait S]\n"
                    "                            [--round-timeout-ms MS] [--keepalive-control 0|1] [--server-pid PID]\n"
                    "                            [--stream-port Q]... [--stream-path PATH] (sse)\n"
                    "       fanout startup --port P [--path /overlay] [--rss-after-ms MS] -- COMMAND ARGS...\n");
    exit(2);
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) usage();
    const char *mode = argv[1];
    int conns = 1000, rounds = 20, settle_ms = 300, wait_s = 25, rss_after_ms = 500;
    const char *path = "/overlay";
    char **command = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            command = argv + i + 1;
            break;
        }
        if (i + 1 >= argc) usage();
        if (strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--conns") == 0) conns = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--settle-ms") == 0) settle_ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--wait") == 0) wait_s = atoi(argv[++i]);
        else if (strcmp(argv[i], "--path") == 0) path = argv[++i];
        else if (strcmp(argv[i], "--rss-after-ms") == 0) rss_after_ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--keepalive-control") == 0) keepalive_control = atoi(argv[++i]);
        else if (strcmp(argv[i], "--server-pid") == 0) server_pid = atoi(argv[++i]);
        else if (strcmp(argv[i], "--round-timeout-ms") == 0) round_timeout_ms = atoi(argv[++i]);
        else if (strcmp(argv[i], "--stream-port") == 0 && stream_port_count < MAX_STREAM_PORTS)
            stream_ports[stream_port_count++] = atoi(argv[++i]);
        else if (strcmp(argv[i], "--stream-path") == 0) stream_path = argv[++i];
        else usage();
    }
    if (port <= 0 || conns <= 0 || rounds <= 0) usage();
    snprintf(stream_request, sizeof stream_request,
             "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n", stream_path);
    snprintf(post_request, sizeof post_request,
             "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             sizeof POST_BODY - 1, POST_BODY);
    if (strcmp(mode, "longpoll") == 0) return run_longpoll(conns, rounds, settle_ms, wait_s);
    if (strcmp(mode, "sse") == 0) return run_sse(conns, rounds, settle_ms);
    if (strcmp(mode, "startup") == 0) {
        if (!command || !command[0]) usage();
        return run_startup(path, rss_after_ms, command);
    }
    usage();
    return 2;
}
