#ifndef OVERLAYD_CMICROHTTPD_SHIM_H
#define OVERLAYD_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <microhttpd.h>

/* What a daemon needs to start, gathered in one struct so Swift can hand it over in one call. */
typedef struct overlayd_mhd_options {
    unsigned int flags;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout;
    size_t connection_memory_limit;
    MHD_AccessHandlerCallback handler;
    void *handler_context;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
    /* The URI log callback: the first call for every request, whose result is its context. */
    void *(*request_line)(void *context, const char *uri, struct MHD_Connection *connection);
    void *request_line_context;
    /* Told when a connection starts and when it closes. */
    MHD_NotifyConnectionCallback connection_notice;
    void *connection_notice_context;
} overlayd_mhd_options;

/* MHD 0.9.75: it decodes %XX in the path in place and hands over a C string, so a decoded %00 would
   cut the path short ("/messages/1%00x" would name message 1). This is its decoding but for %00,
   which stays as written. (The query is cut off before it, DaemonCallbacks.swift.) */
static inline int overlayd_hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static inline size_t overlayd_mhd_unescape(void *cls, struct MHD_Connection *connection, char *s) {
    (void) cls;
    (void) connection;
    char *read = s, *write = s;
    while (*read) {
        if (read[0] == '%' && overlayd_hex_digit(read[1]) >= 0 && overlayd_hex_digit(read[2]) >= 0) {
            int value = overlayd_hex_digit(read[1]) * 16 + overlayd_hex_digit(read[2]);
            if (value != 0) {
                *write++ = (char) value;
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = '\0';
    return (size_t) (write - s);
}

/* accept4 and pipe2 are GNU extensions that Swift's Glibc does not declare: through syscall(2),
   so that the descriptors are close-on-exec and non-blocking from the start. */
static inline int overlayd_accept(int listener, struct sockaddr *address, socklen_t *length) {
    return (int) syscall(SYS_accept4, listener, address, length, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

static inline int overlayd_pipe(int ends[2]) {
    return (int) syscall(SYS_pipe2, ends, O_CLOEXEC | O_NONBLOCK);
}

/* MHD_start_daemon is variadic, and Swift cannot call a C variadic function: this wrapper passes
   the options through MHD_OPTION_ARRAY. A zero value leaves libmicrohttpd's default. The daemon
   listens on nothing (MHD_USE_NO_LISTEN_SOCKET): its connections come from MHD_add_connection. */
static inline struct MHD_Daemon *overlayd_mhd_start(const overlayd_mhd_options *o) {
    struct MHD_OptionItem items[16];
    int n = 0;
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) o->completed, o->completed_context };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t) o->connection_notice, o->connection_notice_context };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t) overlayd_mhd_unescape, NULL };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t) o->request_line, o->request_line_context };
    if (o->thread_pool_size > 1)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) o->thread_pool_size, NULL };
    if (o->connection_limit)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, (intptr_t) o->connection_limit, NULL };
    if (o->per_ip_connection_limit)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t) o->per_ip_connection_limit, NULL };
    if (o->connection_timeout)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t) o->connection_timeout, NULL };
    if (o->connection_memory_limit)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) o->connection_memory_limit, NULL };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(o->flags, 0, NULL, NULL, o->handler, o->handler_context,
                            MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

/* The connection's own context (what the connection notice stored in its socket_context), which
   the URI log callback is not given. MHD_get_connection_info is variadic. */
static inline void *overlayd_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* The peer's address as text into buf (empty when unknown), and its length. IPv4 is written here,
   as inet_ntop writes it: it is every write's rate-limit key, and inet_ntop costs more than the
   rest of the limiter. MHD_get_connection_info is variadic. */
static inline size_t overlayd_mhd_client_address(struct MHD_Connection *connection, char *buf, size_t len) {
    buf[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return 0;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET && len >= INET_ADDRSTRLEN) {
        const unsigned char *octets = (const unsigned char *) &((const struct sockaddr_in *) sa)->sin_addr;
        char *out = buf;
        for (int i = 0; i < 4; i++) {
            unsigned value = octets[i];
            if (i > 0) *out++ = '.';
            if (value >= 100) *out++ = (char) ('0' + value / 100);
            if (value >= 10) *out++ = (char) ('0' + value / 10 % 10);
            *out++ = (char) ('0' + value % 10);
        }
        *out = 0;
        return (size_t) (out - buf);
    }
    if (sa->sa_family == AF_INET6 &&
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, buf, (socklen_t) len) != NULL)
        return strlen(buf);
    buf[0] = 0;
    return 0;
}

/* The connection's socket, or -1. MHD_get_connection_info is variadic. */
static inline int overlayd_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

#include "head.h"

/* poll's "the peer closed its side" (Linux), which <poll.h> only names under _GNU_SOURCE. */
#define OVERLAYD_POLLRDHUP 0x2000

#endif
