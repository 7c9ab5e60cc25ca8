#ifndef OVERLAYD_CMICROHTTPD_HEAD_H
#define OVERLAYD_CMICROHTTPD_HEAD_H

/* The request head's checks and the walk that finds its common headers, and the chunk sizes of
   a chunked body: the shim's C that runs on every request (included by shim.h). */

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <microhttpd.h>

/* The head of a request, judged once on the first call of the access handler (RFC 9112), in C:
   it runs on every request and needs no strings of its own.
   MHD 0.9.75: it lets each problem through (STRICT_FOR_CLIENT only adds a required Host and
   refusing spaces in the URL), and with a coding other than chunked alone waits for a close. */
enum overlayd_head_problem {
    OVERLAYD_HEAD_OK = 0,
    OVERLAYD_HEAD_CONFLICTING_LENGTHS,  /* Content-Length headers that disagree: 400 */
    OVERLAYD_HEAD_LENGTH_AND_CODING,    /* Content-Length beside Transfer-Encoding: 400 */
    OVERLAYD_HEAD_UNKNOWN_CODING,       /* a transfer coding other than chunked alone: 501 */
    OVERLAYD_HEAD_BAD_NAME,             /* a header name that is not a token (space before the colon): 400 */
    OVERLAYD_HEAD_CONTROL_CHARACTER,    /* a control character (bare CR) in a header value: 400 */
    OVERLAYD_HEAD_BARE_LF,              /* a line ended by LF alone: 400 */
    OVERLAYD_HEAD_NUL,                  /* a NUL inside a header line: 400 */
    OVERLAYD_HEAD_NO_HOST,              /* an HTTP/1.1 request without Host (RFC 9112 §3.2): 400 */
};

/* The headers the service reads on most requests, found by the same walk over the head that
   judges it: reading one is then a pointer and a length, not a search of libmicrohttpd's list
   and a copy of the name. Each is the first header of its name (names compared without regard
   to case, as MHD_lookup_connection_value does), pointing where libmicrohttpd keeps it. */
enum overlayd_known_header {
    OVERLAYD_KNOWN_HOST = 0,
    OVERLAYD_KNOWN_ORIGIN,
    OVERLAYD_KNOWN_CONTENT_TYPE,
    OVERLAYD_KNOWN_AUTHORIZATION,
    OVERLAYD_KNOWN_IF_NONE_MATCH,
    OVERLAYD_KNOWN_LAST_EVENT_ID,
    OVERLAYD_KNOWN_COUNT
};

typedef struct overlayd_known_headers {
    /* Whether a header of the name was given; its value (NULL when libmicrohttpd keeps none, which
       a lookup reads as no header) and its length up to the first NUL, as a C string's. */
    unsigned char found[OVERLAYD_KNOWN_COUNT];
    const char *value[OVERLAYD_KNOWN_COUNT];
    unsigned int size[OVERLAYD_KNOWN_COUNT];
} overlayd_known_headers;

typedef struct overlayd_head {
    int problem;
    int chunked;
    /* The one Content-Length given, or -1 (none, or not digits: libmicrohttpd refuses those). */
    long long content_length;
    /* The Transfer-Encoding value when it is not chunked (for the 501). */
    const char *coding;
    size_t coding_size;
    /* Where the body starts in libmicrohttpd's read buffer, when it parses in place (see below). */
    const char *body_start;
    overlayd_known_headers known;
} overlayd_head;

/* MHD 0.9.75: it accepts bare LF line ends and drops what follows a NUL in a header value without
   a word. It parses the head in place in its read buffer: the raw head is the
   MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE bytes from the method, with each CR LF, colon and
   request-line space turned into NUL and everything else left as it came. So each line's end is
   still there to see: two NULs for CR LF, one for a bare LF, and text after a NUL that cut a
   value short. Only done on exactly that version (checked at run time), and only while every
   header lies in that range in order; anything else (a folded line libmicrohttpd copied out)
   stops the judging without a verdict, and nothing is read outside the range. */
static inline int overlayd_mhd_parses_in_place(void) {
    const char *version = MHD_get_version();
    return version != NULL && strcmp(version, "0.9.75") == 0;
}

struct overlayd_head_scan {
    const char *end;    /* the raw head's end, or NULL once it is not judged */
    const char *cursor; /* where the current line's content ends */
    int problem;
    int lengths;
    int conflicting;
    const char *length;
    size_t length_size;
    int codings;
    const char *coding;
    size_t coding_size;
    overlayd_known_headers *known;
};

/* RFC 9110 §5.6.2 tchar. Letters, digits and '-' first: all a real header name holds. */
static inline int overlayd_is_tchar(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') return 1;
    return c != 0 && strchr("!#$%&'*+.^_`|~", c) != NULL;
}

/* The NULs libmicrohttpd left for the line ends between `from` (the end of a line's content)
   and `to`, after optional trailing blanks; -1 when anything else is there. */
static inline int overlayd_line_ends(const char *from, const char *to) {
    while (from < to && (*from == ' ' || *from == '\t')) from++;
    int zeros = 0;
    for (; from < to; from++) {
        if (*from != 0) return -1;
        zeros++;
    }
    return zeros;
}

static inline void overlayd_head_fail(struct overlayd_head_scan *s, int problem) {
    if (!s->problem) s->problem = problem;
}

static inline void overlayd_head_line_end(struct overlayd_head_scan *s, const char *next, int expected) {
    int zeros = overlayd_line_ends(s->cursor, next);
    if (zeros == expected) return;
    overlayd_head_fail(s, zeros < 0 || zeros > expected ? OVERLAYD_HEAD_NUL : OVERLAYD_HEAD_BARE_LF);
}

static inline void overlayd_trim(const char **value, size_t *size) {
    while (*size > 0 && (**value == ' ' || **value == '\t')) { (*value)++; (*size)--; }
    while (*size > 0 && ((*value)[*size - 1] == ' ' || (*value)[*size - 1] == '\t')) (*size)--;
}

/* Which known header a name is, or -1. */
static inline int overlayd_known_index(const char *key, size_t key_size) {
    switch (key_size) {
    case 4: return strncasecmp(key, "Host", 4) == 0 ? OVERLAYD_KNOWN_HOST : -1;
    case 6: return strncasecmp(key, "Origin", 6) == 0 ? OVERLAYD_KNOWN_ORIGIN : -1;
    case 12: return strncasecmp(key, "Content-Type", 12) == 0 ? OVERLAYD_KNOWN_CONTENT_TYPE : -1;
    case 13:
        if (strncasecmp(key, "Authorization", 13) == 0) return OVERLAYD_KNOWN_AUTHORIZATION;
        if (strncasecmp(key, "If-None-Match", 13) == 0) return OVERLAYD_KNOWN_IF_NONE_MATCH;
        if (strncasecmp(key, "Last-Event-ID", 13) == 0) return OVERLAYD_KNOWN_LAST_EVENT_ID;
        return -1;
    default: return -1;
    }
}

static inline void overlayd_note_known(
    overlayd_known_headers *known, const char *key, size_t key_size, const char *value, size_t value_size) {
    int index = overlayd_known_index(key, key_size);
    if (index < 0 || known->found[index]) return;
    known->found[index] = 1;
    known->value[index] = value;
    known->size[index] = value ? (unsigned int) strnlen(value, value_size > UINT_MAX ? UINT_MAX : value_size) : 0;
}

static inline enum MHD_Result overlayd_head_visit(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value, size_t value_size) {
    (void) kind;
    struct overlayd_head_scan *s = (struct overlayd_head_scan *) cls;
    if (value == NULL) value_size = 0;
    overlayd_note_known(s->known, key, key_size, value, value_size);
    for (size_t i = 0; i < key_size; i++)
        if (!overlayd_is_tchar((unsigned char) key[i])) overlayd_head_fail(s, OVERLAYD_HEAD_BAD_NAME);
    for (size_t i = 0; i < value_size; i++) {
        unsigned char c = (unsigned char) value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) overlayd_head_fail(s, OVERLAYD_HEAD_CONTROL_CHARACTER);
    }
    if (s->end) {
        const char *colon = key + key_size;
        if (key < s->cursor || colon >= s->end || *colon != 0) {
            s->end = NULL;
        } else {
            overlayd_head_line_end(s, key, 2);
            s->cursor = colon + 1;
            if (value_size > 0) {
                if (value < s->cursor || value + value_size > s->end) {
                    s->end = NULL;
                } else {
                    while (s->cursor < value && (*s->cursor == ' ' || *s->cursor == '\t')) s->cursor++;
                    if (s->cursor != value) s->end = NULL;
                    s->cursor = value + value_size;
                }
            }
        }
    }
    if (key_size == 14 && strncasecmp(key, "Content-Length", 14) == 0) {
        const char *v = value_size ? value : "";
        size_t n = value_size;
        overlayd_trim(&v, &n);
        if (s->lengths > 0 && (s->length_size != n || strncmp(s->length, v, n) != 0)) s->conflicting = 1;
        if (s->lengths == 0) { s->length = v; s->length_size = n; }
        s->lengths++;
    } else if (key_size == 17 && strncasecmp(key, "Transfer-Encoding", 17) == 0) {
        /* MHD 0.9.75: not trimmed; libmicrohttpd compares the value as it came, reads "chunked "
           as another coding, and would then wait for the connection to close to end the body. */
        if (s->codings == 0) { s->coding = value_size ? value : ""; s->coding_size = value_size; }
        s->codings++;
    }
    return MHD_YES;
}

/* Judges the head of the request whose access handler got `method` and `version`; `in_place` is
   overlayd_mhd_parses_in_place(). */
static inline overlayd_head overlayd_mhd_check_head(
    struct MHD_Connection *connection, const char *method, const char *version, int in_place) {
    struct overlayd_head_scan s;
    memset(&s, 0, sizeof s);
    overlayd_head head;
    memset(&head, 0, sizeof head);
    head.problem = OVERLAYD_HEAD_OK;
    head.content_length = -1;
    s.known = &head.known;
    if (in_place && method != NULL && version != NULL) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
        if (info != NULL && info->header_size > 0) {
            const char *end = method + info->header_size;
            const char *version_end = version + strlen(version);
            head.body_start = end;
            if (version > method && version_end < end) {
                s.end = end;
                s.cursor = version_end;
            }
        }
    }
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, overlayd_head_visit, &s);
    /* The last line's end and the empty line's: CR LF CR LF. */
    if (s.end) overlayd_head_line_end(&s, s.end, 4);
    if (s.problem) head.problem = s.problem;
    else if (s.conflicting) head.problem = OVERLAYD_HEAD_CONFLICTING_LENGTHS;
    else if (s.codings > 0 && s.lengths > 0) head.problem = OVERLAYD_HEAD_LENGTH_AND_CODING;
    else if (s.codings > 1 || (s.codings == 1 && (s.coding_size != 7 || strncasecmp(s.coding, "chunked", 7) != 0))) {
        head.problem = OVERLAYD_HEAD_UNKNOWN_CODING;
        head.coding = s.coding;
        head.coding_size = s.coding_size;
    }
    /* MHD 0.9.75: it serves an HTTP/1.1 request that names no Host. */
    if (head.problem == OVERLAYD_HEAD_OK && version != NULL && strcmp(version, "HTTP/1.1") == 0 &&
        !head.known.found[OVERLAYD_KNOWN_HOST])
        head.problem = OVERLAYD_HEAD_NO_HOST;
    head.chunked = s.codings == 1;
    if (s.lengths > 0 && s.length_size > 0) {
        long long length = 0;
        for (size_t i = 0; i < s.length_size && length >= 0; i++) {
            char c = s.length[i];
            if (c < '0' || c > '9') length = -1;
            else length = length > (LLONG_MAX - 9) / 10 ? LLONG_MAX : length * 10 + (c - '0');
        }
        head.content_length = length;
    }
    return head;
}

/* The size the chunk line just before `data` announces (saturating), or -1 when it is not seen.
   MHD 0.9.75: it cannot answer mid-body (RequestBody.swift); parsing in place, it leaves a piece of
   a chunked body read with its chunk line right after that line in the buffer, which starts at the
   body (`body_start`); a piece whose line came in an earlier read is moved to the start. */
static inline long long overlayd_chunk_size_before(const char *body_start, const char *data) {
    if (body_start == NULL || data == NULL || data <= body_start) return -1;
    const char *line_end = data;
    if (line_end[-1] != '\n') return -1;
    line_end--;
    if (line_end > body_start && line_end[-1] == '\r') line_end--;
    const char *line = line_end;
    while (line > body_start && line[-1] != '\n') {
        line--;
        if (line_end - line > 256) return -1;
    }
    long long size = 0;
    int digits = 0;
    for (const char *p = line; p < line_end && *p != ';' && *p != ' ' && *p != '\t'; p++) {
        int digit = overlayd_hex_digit(*p);
        if (digit < 0) return -1;
        size = size > (LLONG_MAX - 15) / 16 ? LLONG_MAX : size * 16 + digit;
        digits++;
    }
    return digits > 0 ? size : -1;
}

#endif
