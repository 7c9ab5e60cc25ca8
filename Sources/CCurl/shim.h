#ifndef OVERLAYD_CCURL_SHIM_H
#define OVERLAYD_CCURL_SHIM_H

#include <curl/curl.h>

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
static inline CURL *overlayd_curl_handle(long connect_timeout_ms, long timeout_ms, struct curl_slist *headers,
                                         char *error_buffer) {
    CURL *handle = curl_easy_init();
    if (!handle) return NULL;
    /* No SIGALRM for the resolver's timeout: overlayd's threads block signals for sigwait. */
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, overlayd_curl_discard);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    return handle;
}

/* POSTs `length` bytes of `body` (not copied: it must stay valid during the call) to `url`.
   Returns curl's result; `status` is the HTTP status when one was received, else 0. */
static inline CURLcode overlayd_curl_post(CURL *handle, const char *url, const void *body, long length,
                                          long *status) {
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body ? body : "");
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    CURLcode code = curl_easy_perform(handle);
    *status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, status);
    return code;
}

#endif
