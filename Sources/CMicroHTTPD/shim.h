#ifndef OVERLAYD_CMICROHTTPD_SHIM_H
#define OVERLAYD_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>
#include <microhttpd.h>

/* What a daemon needs to start, gathered in one struct so Swift can hand it over in one call. */
typedef struct overlayd_mhd_options {
    unsigned int flags;
    const struct sockaddr *address;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout;
    size_t connection_memory_limit;
    unsigned int listen_backlog;
    MHD_AccessHandlerCallback handler;
    void *handler_context;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
} overlayd_mhd_options;

/* libmicrohttpd decodes %XX in place and hands over C strings, so a decoded %00 would silently cut
   a path or a query value short ("/messages/1%00x" would name message 1, "text=a%00b" would post "a").
   This is MHD's own decoding except that %00 stays as written; '+' in arguments is MHD's, before this. */
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

/* MHD_start_daemon is variadic, and Swift cannot call a C variadic function: this wrapper passes
   the options through MHD_OPTION_ARRAY. A zero value leaves libmicrohttpd's default. The port
   argument is ignored by MHD when MHD_OPTION_SOCK_ADDR is given; the address carries it. */
static inline struct MHD_Daemon *overlayd_mhd_start(const overlayd_mhd_options *o) {
    struct MHD_OptionItem items[12];
    int n = 0;
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) o->completed, o->completed_context };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t) overlayd_mhd_unescape, NULL };
    if (o->address)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *) o->address };
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
    if (o->listen_backlog)
        items[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t) o->listen_backlog, NULL };
    items[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(o->flags, 0, NULL, NULL, o->handler, o->handler_context,
                            MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

/* The port the daemon listens on (the real one when it was asked for port 0), or 0. */
static inline uint16_t overlayd_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* The peer's address as text into buf (empty when unknown). MHD_get_connection_info is variadic. */
static inline void overlayd_mhd_client_address(struct MHD_Connection *connection, char *buf, size_t len) {
    buf[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, buf, (socklen_t) len);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, buf, (socklen_t) len);
}

/* The connection's socket, or -1. MHD_get_connection_info is variadic. */
static inline int overlayd_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* Whether the request's body can be delimited safely (RFC 9112 §6.3): 0 yes, 1 conflicting
   Content-Length headers, 2 Content-Length beside Transfer-Encoding. Done in C because it runs on
   every request and needs no strings of its own. */
struct overlayd_framing { const char *length; size_t length_size; int conflicting; int lengths; int chunked; };

static inline int overlayd_framing_visit(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void) kind;
    struct overlayd_framing *f = (struct overlayd_framing *) cls;
    if (strcasecmp(key, "Content-Length") == 0) {
        const char *v = value ? value : "";
        while (*v == ' ' || *v == '\t') v++;
        size_t n = strlen(v);
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
        if (f->lengths > 0 && (f->length_size != n || strncmp(f->length, v, n) != 0)) f->conflicting = 1;
        if (f->lengths == 0) { f->length = v; f->length_size = n; }
        f->lengths++;
    } else if (strcasecmp(key, "Transfer-Encoding") == 0) {
        f->chunked = 1;
    }
    return MHD_YES;
}

static inline int overlayd_mhd_framing_problem(struct MHD_Connection *connection) {
    struct overlayd_framing f = { "", 0, 0, 0, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, overlayd_framing_visit, &f);
    if (f.conflicting) return 1;
    if (f.chunked && f.lengths > 0) return 2;
    return 0;
}

#endif
