#ifndef OVERLAYD_CCURL_SHIM_H
#define OVERLAYD_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* libcurl is loaded with dlopen the first time publishing starts (or `overlayd post` or `watch`
   runs), not linked: linked, its library and the thirty it needs (TLS, HTTP/2, LDAP, SSH...)
   would be loaded and relocated at every start of every overlayd, publishing or not. Only its
   header is used at build time, for the types and constants. */

/* The libcurl functions the publisher and the client commands call. */
typedef struct overlayd_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *handle);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    CURLMcode (*multi_cleanup)(CURLM *multi);
} overlayd_curl_api;

/* Loads libcurl into `api` and initialises it: 0, or -1 with the reason in `error` (`size`
   bytes). Not thread-safe: the caller runs it once (curl_global_init is not thread-safe on
   every build either). */
static inline int overlayd_curl_load(overlayd_curl_api *api, char *error, size_t size) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        strncpy(error, reason ? reason : "dlopen failed", size - 1);
        error[size - 1] = 0;
        return -1;
    }
    void **slots[] = {
        (void **) &api->global_init, (void **) &api->easy_init, (void **) &api->easy_setopt,
        (void **) &api->easy_perform, (void **) &api->easy_getinfo, (void **) &api->easy_cleanup,
        (void **) &api->easy_strerror, (void **) &api->slist_append, (void **) &api->slist_free_all,
        (void **) &api->multi_init, (void **) &api->multi_add_handle, (void **) &api->multi_remove_handle,
        (void **) &api->multi_perform, (void **) &api->multi_poll, (void **) &api->multi_wakeup,
        (void **) &api->multi_info_read, (void **) &api->multi_cleanup,
    };
    const char *names[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform", "curl_easy_getinfo",
        "curl_easy_cleanup", "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all",
        "curl_multi_init", "curl_multi_add_handle", "curl_multi_remove_handle", "curl_multi_perform",
        "curl_multi_poll", "curl_multi_wakeup", "curl_multi_info_read", "curl_multi_cleanup",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        *slots[i] = dlsym(library, names[i]);
        if (!*slots[i]) {
            strncpy(error, names[i], size - 1);
            error[size - 1] = 0;
            strncat(error, " is missing from libcurl.so.4", size - 1 - strlen(error));
            return -1;
        }
    }
    if (api->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        strncpy(error, "curl_global_init failed", size - 1);
        error[size - 1] = 0;
        return -1;
    }
    return 0;
}

/* curl_easy_setopt and curl_easy_getinfo are variadic, and Swift cannot call a C variadic
   function: these wrappers make the few calls the publisher needs. */

/* Every socket curl opens is close-on-exec: libcurl 7.88 opens them without it, and a child
   process started while a request is open (a test runner's server, a shell of `watch`) would
   inherit the connection and hold it open after curl closes its copy. */
static inline curl_socket_t overlayd_curl_open_socket(void *context, curlsocktype purpose,
                                                      struct curl_sockaddr *address) {
    (void) context;
    (void) purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/* The publisher only needs the status: the body nchan answers with is read and dropped. */
static inline size_t overlayd_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void) data;
    (void) context;
    return size * count;
}

/* An easy handle set up once for POSTs. Reused for every request, it keeps its connection open
   between them. `headers` and `error_buffer` (CURL_ERROR_SIZE bytes) must outlive the handle. */
static inline CURL *overlayd_curl_handle(const overlayd_curl_api *api, long connect_timeout_ms, long timeout_ms,
                                         struct curl_slist *headers, char *error_buffer) {
    CURL *handle = api->easy_init();
    if (!handle) return NULL;
    /* No SIGALRM for the resolver's timeout: overlayd's threads block signals for sigwait. */
    api->easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    api->easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms);
    api->easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    api->easy_setopt(handle, CURLOPT_WRITEFUNCTION, overlayd_curl_discard);
    api->easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
    api->easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    api->easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    api->easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, overlayd_curl_open_socket);
    return handle;
}

/* POSTs `length` bytes of `body` (not copied: it must stay valid during the call) to `url`.
   Returns curl's result; `status` is the HTTP status when one was received, else 0. */
static inline CURLcode overlayd_curl_post(const overlayd_curl_api *api, CURL *handle, const char *url,
                                          const void *body, long length, long *status) {
    api->easy_setopt(handle, CURLOPT_URL, url);
    api->easy_setopt(handle, CURLOPT_POSTFIELDS, body ? body : "");
    api->easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    CURLcode code = api->easy_perform(handle);
    *status = 0;
    api->easy_getinfo(handle, CURLINFO_RESPONSE_CODE, status);
    return code;
}

/* ---- The client commands' requests: an answer handed over as it arrives, stoppable. ---- */

/* Receives `length` bytes of the answer (one header line, with its line end, or a piece of the
   body); returns `length` to go on, anything else to stop with CURLE_WRITE_ERROR. */
typedef size_t (*overlayd_curl_sink)(const char *data, size_t length, void *context);

/* One request run by one thread (overlayd_curl_fetch_run) and stoppable from any other
   (overlayd_curl_fetch_stop). It runs on a multi handle of its own, so that a stop wakes its
   poll at once (curl_multi_wakeup) instead of at the next progress callback, a second later. */
typedef struct overlayd_curl_fetch {
    CURL *easy;
    CURLM *multi;
    struct curl_slist *headers;
    overlayd_curl_sink on_header;
    overlayd_curl_sink on_body;
    void *context;
    /* Given up when no byte came for this long: to the first header, or between two pieces. */
    long idle_timeout_ms;
    long long last_byte_ms;
    /* Set by stop, read by run: __atomic builtins (Swift imports no _Atomic member). */
    int stopped;
    int timed_out;
    char error[CURL_ERROR_SIZE];
} overlayd_curl_fetch;

static inline long long overlayd_curl_monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static inline size_t overlayd_curl_fetch_header(char *data, size_t size, size_t count, void *context) {
    overlayd_curl_fetch *fetch = (overlayd_curl_fetch *) context;
    fetch->last_byte_ms = overlayd_curl_monotonic_ms();
    return fetch->on_header(data, size * count, fetch->context);
}

static inline size_t overlayd_curl_fetch_body(char *data, size_t size, size_t count, void *context) {
    overlayd_curl_fetch *fetch = (overlayd_curl_fetch *) context;
    fetch->last_byte_ms = overlayd_curl_monotonic_ms();
    return fetch->on_body(data, size * count, fetch->context);
}

/* A fetch of `url` with `method`, the header lines `headers` (taken: freed with the fetch) and
   `length` bytes of `body` (copied), or NULL when libcurl cannot make one. Nothing is sent
   before overlayd_curl_fetch_run. */
static inline overlayd_curl_fetch *overlayd_curl_fetch_new(
    const overlayd_curl_api *api, const char *url, const char *method, struct curl_slist *headers, const void *body,
    long length, long idle_timeout_ms, overlayd_curl_sink on_header, overlayd_curl_sink on_body, void *context) {
    overlayd_curl_fetch *fetch = (overlayd_curl_fetch *) calloc(1, sizeof *fetch);
    if (!fetch) return NULL;
    fetch->easy = api->easy_init();
    fetch->multi = api->multi_init();
    if (!fetch->easy || !fetch->multi) {
        if (fetch->easy) api->easy_cleanup(fetch->easy);
        if (fetch->multi) api->multi_cleanup(fetch->multi);
        free(fetch);
        return NULL;
    }
    fetch->headers = headers;
    fetch->on_header = on_header;
    fetch->on_body = on_body;
    fetch->context = context;
    fetch->idle_timeout_ms = idle_timeout_ms > 0 ? idle_timeout_ms : 1;
    CURL *easy = fetch->easy;
    /* No SIGALRM for the resolver's timeout, and no SIGPIPE from a closed socket. */
    api->easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(easy, CURLOPT_URL, url);
    api->easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    api->easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    api->easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, fetch->idle_timeout_ms);
    api->easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, overlayd_curl_open_socket);
    api->easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    api->easy_setopt(easy, CURLOPT_ERRORBUFFER, fetch->error);
    api->easy_setopt(easy, CURLOPT_HEADERFUNCTION, overlayd_curl_fetch_header);
    api->easy_setopt(easy, CURLOPT_HEADERDATA, fetch);
    api->easy_setopt(easy, CURLOPT_WRITEFUNCTION, overlayd_curl_fetch_body);
    api->easy_setopt(easy, CURLOPT_WRITEDATA, fetch);
    if (strcmp(method, "HEAD") == 0) {
        api->easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "GET") != 0) {
        api->easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    }
    if (body) {
        /* The size first: COPYPOSTFIELDS copies that many bytes (else it takes a C string). */
        api->easy_setopt(easy, CURLOPT_POSTFIELDSIZE, length);
        api->easy_setopt(easy, CURLOPT_COPYPOSTFIELDS, body);
    }
    return fetch;
}

/* Runs the request to its end, handing its header lines and body pieces to the sinks on this
   thread. Returns curl's result: CURLE_ABORTED_BY_CALLBACK when stopped, CURLE_OPERATION_TIMEDOUT
   with `timed_out` set when it waited longer than the idle timeout for a byte. */
static inline CURLcode overlayd_curl_fetch_run(const overlayd_curl_api *api, overlayd_curl_fetch *fetch) {
    if (api->multi_add_handle(fetch->multi, fetch->easy) != CURLM_OK) return CURLE_FAILED_INIT;
    fetch->last_byte_ms = overlayd_curl_monotonic_ms();
    CURLcode result = CURLE_OK;
    int running = 1;
    for (;;) {
        if (__atomic_load_n(&fetch->stopped, __ATOMIC_ACQUIRE)) {
            result = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (api->multi_perform(fetch->multi, &running) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
        if (!running) {
            int queued = 0;
            CURLMsg *message;
            while ((message = api->multi_info_read(fetch->multi, &queued))) {
                if (message->msg == CURLMSG_DONE) result = message->data.result;
            }
            break;
        }
        long long idle = overlayd_curl_monotonic_ms() - fetch->last_byte_ms;
        if (idle >= fetch->idle_timeout_ms) {
            fetch->timed_out = 1;
            result = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        long long wait = fetch->idle_timeout_ms - idle;
        api->multi_poll(fetch->multi, NULL, 0, (int) (wait < 1000 ? wait : 1000), NULL);
    }
    api->multi_remove_handle(fetch->multi, fetch->easy);
    return result;
}

/* Stops a fetch from any thread: before it runs, it will not send; while it runs, it ends at
   once and closes its connection. The fetch must not have been freed. */
static inline void overlayd_curl_fetch_stop(const overlayd_curl_api *api, overlayd_curl_fetch *fetch) {
    __atomic_store_n(&fetch->stopped, 1, __ATOMIC_RELEASE);
    api->multi_wakeup(fetch->multi);
}

/* Whether the fetch gave up waiting for a byte. */
static inline int overlayd_curl_fetch_timed_out(const overlayd_curl_fetch *fetch) {
    return fetch->timed_out;
}

/* The operating system's error of a failed connection (ECONNREFUSED...), or 0. */
static inline long overlayd_curl_fetch_os_error(const overlayd_curl_api *api, overlayd_curl_fetch *fetch) {
    long error = 0;
    api->easy_getinfo(fetch->easy, CURLINFO_OS_ERRNO, &error);
    return error;
}

/* curl's explanation of the last failure, or an empty string. */
static inline const char *overlayd_curl_fetch_error(const overlayd_curl_fetch *fetch) {
    return fetch->error;
}

/* Frees the fetch, its handles and its header list, closing its connection. */
static inline void overlayd_curl_fetch_free(const overlayd_curl_api *api, overlayd_curl_fetch *fetch) {
    api->easy_cleanup(fetch->easy);
    api->multi_cleanup(fetch->multi);
    api->slist_free_all(fetch->headers);
    free(fetch);
}

#endif
