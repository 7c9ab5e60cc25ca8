/* The bare C libmicrohttpd server overlayd is measured against (bench/run).
 *
 * Same daemon setup as overlayd (Sources/MicroHTTP/HTTPServer.swift, Sources/CMicroHTTPD/shim.h):
 * MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, a thread pool of
 * --threads (default 2), connection limit --connections (default 1024, overlayd's
 * limits.connectionLimit), idle timeout 30 s and a per-connection memory pool
 * of --memory bytes (default 8192) (overlayd's defaults: limits.connectionMemoryBytes), bound
 * to 127.0.0.1. It does the least a server with overlayd's HTTP surface can do:
 *
 *   GET  /overlay            a fixed JSON of the size of overlayd's answer while a message slides
 *                            in (copied from a real one), ETag W/"<version>", 304 on If-None-Match;
 *                            one shared response object per version.
 *   every answer             the headers overlayd adds by default (CORS: Access-Control-Allow-Origin
 *                            and Access-Control-Expose-Headers; Location on the 202).
 *   GET  /overlay?wait=N&since=V (or If-None-Match W/"V")
 *                            suspends the connection while V is the current version; a POST
 *                            resumes every waiter, and after N seconds a waiter gets 304.
 *   GET  /events             Server-Sent Events: the current overlay at once, then one event per
 *                            POST; the content reader suspends the connection when it has nothing.
 *   POST /messages           reads the body, bumps the version, answers 202 with a small JSON.
 *   anything else            404.
 *
 * Answers are queued on the last access-handler call, never the first: with libmicrohttpd 0.9.75
 * an answer queued on the first call closes the connection after it (see bench/README.md).
 *
 * Build: cc -O2 -o baseline baseline.c -lmicrohttpd -lpthread
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* overlayd's GET /overlay while "Sending photo…" slides in (992 bytes at version 1: manual clock,
 * `now` 0.125, with the status bar under the overlay, the presentation, the measured label, the
 * accessory and the scheduled count). The version is printed into it, so the size moves by a byte
 * or two as it grows, as overlayd's does. Keep it a copy of a real answer: when overlayd's answer
 * grows, so does this (bench/README.md, "Body sizes"). */
static const char OVERLAY_FORMAT[] =
    "{\"version\":%" PRIu64 ",\"now\":0.125,\"phase\":\"showing\",\"orientation\":\"portrait\","
    "\"rotation\":0,\"device\":\"ipad\",\"presentation\":\"statusBar\",\"frame\":{\"x\":0,"
    "\"y\":0,\"width\":768,\"height\":20},\"contentOffset\":-10,\"alpha\":1,\"message\":{\"id\":1,"
    "\"kind\":\"sending\",\"text\":\"Sending photo\xe2\x80\xa6\",\"subtitle\":null,\"icon\":null,"
    "\"progress\":null,\"state\":\"showing\"},\"label\":{\"text\":\"Sending photo\xe2\x80\xa6\","
    "\"frame\":{\"x\":30,\"y\":-10,\"width\":708,\"height\":20},\"textWidth\":100.25142045454545,"
    "\"truncated\":false},\"subtitle\":null,\"accessory\":{\"kind\":\"activity\",\"icon\":null,"
    "\"frame\":{\"x\":9,\"y\":-8,\"width\":16,\"height\":16}},\"pill\":null,\"style\":{\"background\":\"#1C1C1E\","
    "\"foreground\":\"#FFFFFF\"},\"activity\":true,\"progressBar\":null,\"queued\":0,\"scheduled\":0,"
    "\"animation\":{\"property\":\"contentOffset\",\"from\":-20,\"to\":0,\"start\":0,\"duration\":0.25},"
    "\"statusBar\":{\"style\":\"lightContent\",\"hidden\":false,\"alpha\":1,\"offset\":0,"
    "\"frame\":{\"x\":0,\"y\":0,\"width\":768,\"height\":20},\"animation\":null,\"styleFrom\":\"application\","
    "\"hiddenFrom\":\"application\"},\"held\":false,\"touch\":null}";

/* overlayd's 202 answer to {"text":"hello"} (the message as JSON). */
static const char ACCEPTED_FORMAT[] =
    "{\"id\":%" PRIu64 ",\"kind\":\"info\",\"text\":\"hello\",\"subtitle\":null,\"icon\":null,"
    "\"progress\":null,\"state\":\"queued\",\"duration\":null,\"immediate\":false,\"key\":null,"
    "\"priority\":3,\"scheduledFor\":null,\"expires\":null,\"expiresAt\":null,\"postedAt\":0,"
    "\"shownAt\":null,\"displayStartedAt\":null,\"endsAt\":null,\"endedAt\":null}";

static const char NOT_FOUND[] = "{\"error\":{\"code\":\"not_found\",\"message\":\"no such path\"}}";
static const char JSON_TYPE[] = "application/json; charset=utf-8";

/* The headers overlayd adds to every answer by default (its CORS policy lets any page read). */
static void add_common_headers(struct MHD_Response *response) {
    MHD_add_response_header(response, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(response, "Access-Control-Expose-Headers", "ETag, Location, Retry-After");
}

enum kind { K_UNKNOWN, K_OVERLAY, K_EVENTS, K_POST, K_OTHER };
enum wake { W_NONE, W_CHANGED, W_TIMEOUT };

/* Per-request state behind *con_cls. */
struct request {
    enum kind kind;
    struct MHD_Connection *connection;
    enum wake woken;          /* set (under state.lock) when a suspended waiter is resumed */
    int waiting;              /* in the waiter list */
    struct timespec deadline; /* when a waiter gets 304 */
    struct request *prev, *next;
};

/* One event stream. */
struct stream {
    struct MHD_Connection *connection;
    char *pending; /* bytes not yet handed to libmicrohttpd */
    size_t length, offset, capacity;
    int suspended;
    struct stream *prev, *next;
};

static struct {
    pthread_mutex_t lock;
    uint64_t version;
    uint64_t posted;
    struct MHD_Response *overlay; /* shared, rebuilt on each version */
    char etag[32];
    char event[1024]; /* the SSE event for the current version */
    size_t event_length;
    struct request waiters; /* list head */
    struct stream streams;  /* list head */
    struct MHD_Response *not_modified; /* per version too: it carries the ETag */
    struct MHD_Response *not_found;
} state = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void rebuild_locked(void) {
    char body[1024];
    int length = snprintf(body, sizeof body, OVERLAY_FORMAT, state.version);
    struct MHD_Response *response =
        MHD_create_response_from_buffer((size_t) length, body, MHD_RESPMEM_MUST_COPY);
    snprintf(state.etag, sizeof state.etag, "W/\"%" PRIu64 "\"", state.version);
    MHD_add_response_header(response, "Content-Type", JSON_TYPE);
    MHD_add_response_header(response, "ETag", state.etag);
    MHD_add_response_header(response, "Cache-Control", "no-cache");
    add_common_headers(response);
    /* Connections still sending the old ones keep a reference. */
    if (state.overlay) MHD_destroy_response(state.overlay);
    if (state.not_modified) MHD_destroy_response(state.not_modified);
    state.overlay = response;
    state.not_modified = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(state.not_modified, "ETag", state.etag);
    MHD_add_response_header(state.not_modified, "Cache-Control", "no-cache");
    add_common_headers(state.not_modified);
    state.event_length = (size_t) snprintf(state.event, sizeof state.event,
                                           "event: overlay\nid: %" PRIu64 "\ndata: %s\n\n", state.version, body);
}

static void stream_append_locked(struct stream *s, const char *bytes, size_t count) {
    if (s->offset == s->length) s->offset = s->length = 0;
    if (s->length + count > s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 2048;
        while (capacity < s->length + count) capacity *= 2;
        s->pending = realloc(s->pending, capacity);
        s->capacity = capacity;
    }
    memcpy(s->pending + s->length, bytes, count);
    s->length += count;
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

static void unlink_waiter_locked(struct request *r) {
    r->prev->next = r->next;
    r->next->prev = r->prev;
    r->prev = r->next = r;
    r->waiting = 0;
}

/* A POST: new version, every waiter resumed, every stream given the new event. */
static uint64_t publish(void) {
    pthread_mutex_lock(&state.lock);
    uint64_t id = ++state.posted;
    state.version++;
    rebuild_locked();
    while (state.waiters.next != &state.waiters) {
        struct request *r = state.waiters.next;
        unlink_waiter_locked(r);
        r->woken = W_CHANGED;
        MHD_resume_connection(r->connection);
    }
    for (struct stream *s = state.streams.next; s != &state.streams; s = s->next) {
        stream_append_locked(s, state.event, state.event_length);
        if (s->suspended) {
            s->suspended = 0;
            MHD_resume_connection(s->connection);
        }
    }
    pthread_mutex_unlock(&state.lock);
    return id;
}

/* Waiters whose `wait` ran out get 304; checked every 50 ms. */
static void *timeouts(void *unused) {
    (void) unused;
    for (;;) {
        usleep(50000);
        int64_t now = now_ns();
        pthread_mutex_lock(&state.lock);
        for (struct request *r = state.waiters.next, *next; r != &state.waiters; r = next) {
            next = r->next;
            if ((int64_t) r->deadline.tv_sec * 1000000000 + r->deadline.tv_nsec <= now) {
                unlink_waiter_locked(r);
                r->woken = W_TIMEOUT;
                MHD_resume_connection(r->connection);
            }
        }
        pthread_mutex_unlock(&state.lock);
    }
    return NULL;
}

static ssize_t stream_read(void *context, uint64_t position, char *buffer, size_t max) {
    (void) position;
    struct stream *s = context;
    pthread_mutex_lock(&state.lock);
    size_t available = s->length - s->offset;
    if (available == 0) {
        /* Nothing to send: suspend rather than be polled again at once (busy loop). */
        s->suspended = 1;
        MHD_suspend_connection(s->connection);
        pthread_mutex_unlock(&state.lock);
        return 0;
    }
    size_t count = available < max ? available : max;
    memcpy(buffer, s->pending + s->offset, count);
    s->offset += count;
    pthread_mutex_unlock(&state.lock);
    return (ssize_t) count;
}

static void stream_free(void *context) {
    struct stream *s = context;
    pthread_mutex_lock(&state.lock);
    s->prev->next = s->next;
    s->next->prev = s->prev;
    pthread_mutex_unlock(&state.lock);
    free(s->pending);
    free(s);
}

/* The version in `W/"12"`, `"12"` or `12`; -1 when there is none. */
static int64_t parse_version(const char *text) {
    if (!text) return -1;
    if (text[0] == 'W' && text[1] == '/') text += 2;
    if (*text == '"') text++;
    if (*text < '0' || *text > '9') return -1;
    return strtoll(text, NULL, 10);
}

static enum MHD_Result queue_overlay_locked(struct MHD_Connection *connection) {
    return MHD_queue_response(connection, MHD_HTTP_OK, state.overlay);
}

static enum MHD_Result get_overlay(struct MHD_Connection *connection, struct request *r) {
    enum MHD_Result result;
    pthread_mutex_lock(&state.lock);
    if (r->woken != W_NONE) {
        result = r->woken == W_CHANGED ? queue_overlay_locked(connection)
                                       : MHD_queue_response(connection, MHD_HTTP_NOT_MODIFIED, state.not_modified);
        pthread_mutex_unlock(&state.lock);
        return result;
    }
    int64_t match = parse_version(MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "If-None-Match"));
    int64_t since = parse_version(MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "since"));
    if (since < 0) since = match;
    const char *wait_text = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "wait");
    double wait = wait_text ? strtod(wait_text, NULL) : 0;
    if (wait > 60) wait = 60;
    if (wait > 0 && since >= 0 && (uint64_t) since == state.version) {
        int64_t deadline = now_ns() + (int64_t) (wait * 1e9);
        r->deadline.tv_sec = deadline / 1000000000;
        r->deadline.tv_nsec = deadline % 1000000000;
        r->waiting = 1;
        r->next = &state.waiters;
        r->prev = state.waiters.prev;
        state.waiters.prev->next = r;
        state.waiters.prev = r;
        MHD_suspend_connection(connection);
        pthread_mutex_unlock(&state.lock);
        return MHD_YES;
    }
    if (match >= 0 && (uint64_t) match == state.version)
        result = MHD_queue_response(connection, MHD_HTTP_NOT_MODIFIED, state.not_modified);
    else
        result = queue_overlay_locked(connection);
    pthread_mutex_unlock(&state.lock);
    return result;
}

static enum MHD_Result get_events(struct MHD_Connection *connection) {
    struct stream *s = calloc(1, sizeof *s);
    s->connection = connection;
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 2048, stream_read, s, stream_free);
    MHD_add_response_header(response, "Content-Type", "text/event-stream; charset=utf-8");
    MHD_add_response_header(response, "Cache-Control", "no-cache");
    MHD_add_response_header(response, "X-Accel-Buffering", "no");
    add_common_headers(response);
    pthread_mutex_lock(&state.lock);
    stream_append_locked(s, state.event, state.event_length);
    s->next = &state.streams;
    s->prev = state.streams.prev;
    state.streams.prev->next = s;
    state.streams.prev = s;
    pthread_mutex_unlock(&state.lock);
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result post_message(struct MHD_Connection *connection) {
    uint64_t id = publish();
    char body[512];
    int length = snprintf(body, sizeof body, ACCEPTED_FORMAT, id);
    char location[64];
    snprintf(location, sizeof location, "/messages/%" PRIu64, id);
    struct MHD_Response *response = MHD_create_response_from_buffer((size_t) length, body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", JSON_TYPE);
    MHD_add_response_header(response, "Location", location);
    add_common_headers(response);
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_ACCEPTED, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **con_cls) {
    (void) cls, (void) version, (void) upload_data;
    struct request *r = *con_cls;
    if (!r) {
        /* First call: the head has arrived. Only remember the request (see the top comment). */
        r = calloc(1, sizeof *r);
        r->connection = connection;
        r->prev = r->next = r;
        if (strcmp(url, "/overlay") == 0 && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0))
            r->kind = K_OVERLAY;
        else if (strcmp(url, "/events") == 0 && strcmp(method, "GET") == 0)
            r->kind = K_EVENTS;
        else if (strcmp(url, "/messages") == 0 && strcmp(method, "POST") == 0)
            r->kind = K_POST;
        else
            r->kind = K_OTHER;
        *con_cls = r;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        *upload_data_size = 0; /* the body is read and dropped */
        return MHD_YES;
    }
    switch (r->kind) {
    case K_OVERLAY: return get_overlay(connection, r);
    case K_EVENTS: return get_events(connection);
    case K_POST: return post_message(connection);
    default: return MHD_queue_response(connection, MHD_HTTP_NOT_FOUND, state.not_found);
    }
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                      enum MHD_RequestTerminationCode code) {
    (void) cls, (void) connection, (void) code;
    struct request *r = *con_cls;
    if (!r) return;
    pthread_mutex_lock(&state.lock);
    if (r->waiting) unlink_waiter_locked(r);
    pthread_mutex_unlock(&state.lock);
    free(r);
    *con_cls = NULL;
}

int main(int argc, char **argv) {
    int port = 8081;
    unsigned threads = 2;
    /* libmicrohttpd clears a connection's pool for every request: the same size as overlayd's,
       or the comparison measures the memset. */
    size_t memory = 8192;
    unsigned connections = 1024;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) port = atoi(argv[++i]);
        else if (strncmp(argv[i], "--port=", 7) == 0) port = atoi(argv[i] + 7);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = (unsigned) atoi(argv[++i]);
        else if (strncmp(argv[i], "--threads=", 10) == 0) threads = (unsigned) atoi(argv[i] + 10);
        else if (strcmp(argv[i], "--memory") == 0 && i + 1 < argc) memory = (size_t) atol(argv[++i]);
        else if (strcmp(argv[i], "--connections") == 0 && i + 1 < argc) connections = (unsigned) atoi(argv[++i]);
        else if (strncmp(argv[i], "--memory=", 9) == 0) memory = (size_t) atol(argv[i] + 9);
        else {
            fprintf(stderr, "usage: baseline [--port N] [--threads N] [--memory BYTES] [--connections N]\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    state.waiters.prev = state.waiters.next = &state.waiters;
    state.streams.prev = state.streams.next = &state.streams;
    state.version = 1;
    rebuild_locked();
    state.not_found = MHD_create_response_from_buffer(sizeof NOT_FOUND - 1, (void *) NOT_FOUND, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(state.not_found, "Content-Type", JSON_TYPE);
    add_common_headers(state.not_found);

    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    /* The options overlayd's shim passes, in the same order. */
    struct MHD_OptionItem items[8];
    int n = 0;
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) completed, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &address};
    if (threads > 1) items[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) threads, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t) connections, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, 30, NULL};
    if (memory) items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) memory, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);

    struct MHD_Daemon *daemon = MHD_start_daemon(flags, (uint16_t) port, NULL, NULL, access_handler, NULL,
                                                 MHD_OPTION_ARRAY, items, MHD_OPTION_END);
    if (!daemon) {
        fprintf(stderr, "baseline: cannot listen on 127.0.0.1:%d\n", port);
        return 1;
    }
    pthread_t timer;
    pthread_create(&timer, NULL, timeouts, NULL);
    fprintf(stderr, "baseline listening host=127.0.0.1 port=%d threads=%u memory=%zu\n", port, threads, memory);
    int received;
    sigwait(&signals, &received);
    /* Suspended connections make MHD_stop_daemon complain; a benchmark server just leaves. */
    _exit(0);
}
