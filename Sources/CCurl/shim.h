#ifndef OVERLAYD_CCURL_SHIM_H
#define OVERLAYD_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

/* libcurl is loaded with dlopen the first time publishing starts, not linked: linked, its
   library and the thirty it needs (TLS, HTTP/2, LDAP, SSH...) would be loaded and relocated at
   every start of every overlayd, publishing or not (2 MB of RSS and a few milliseconds; measured
   in docs/SCALING.md). Only its header is used at build time, for the types and constants. */

/* The libcurl functions the publisher calls. */
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
    };
    const char *names[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform", "curl_easy_getinfo",
        "curl_easy_cleanup", "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all",
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

#endif
