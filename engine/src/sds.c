/* sds.c -- see sds.h. */
#include <string.h>
#include <stdio.h>
#include <ctype.h>
#include "sds.h"
#include "util.h"

/* Strings grow by doubling up to 1 MB, then by 1 MB at a time, so appending
 * byte by byte is amortized O(1) without wasting half of a huge buffer. */
#define SDS_MAX_PREALLOC (1024 * 1024)

/* Allocates a string of len bytes copied from init (zeroed if init is NULL).
 * Returns NULL if the allocator refuses. */
sds sdsTryNewlen(gkMem *m, const void *init, size_t len) {
    if (len > (size_t)-1 - sizeof(sdshdr) - 1) return NULL;
    sdshdr *h = memTryAlloc(m, sizeof(sdshdr) + len + 1);
    if (!h) return NULL;
    h->len = len;
    h->alloc = len;
    if (init && len) memcpy(h->buf, init, len);
    else if (len) memset(h->buf, 0, len);
    h->buf[len] = '\0';
    return h->buf;
}

/* As sdsTryNewlen, but never returns NULL: a refused allocation stops the
 * engine. The string is the caller's, freed with sdsfree on the same m. */
sds sdsnewlen(gkMem *m, const void *init, size_t len) {
    sds s = sdsTryNewlen(m, init, len);
    if (!s) memPanic("out of memory allocating a string");
    return s;
}

/* A new string copied from the C string init; NULL gives an empty string.
 * Stops the engine if memory is refused. */
sds sdsnew(gkMem *m, const char *init) {
    return sdsnewlen(m, init, init ? strlen(init) : 0);
}

/* A new empty string; sdsempty and sdsdup stop the engine if memory is
 * refused, and the result is the caller's, freed with sdsfree. */
sds sdsempty(gkMem *m) { return sdsnewlen(m, "", 0); }

/* A new copy of s (binary safe); see sdsempty. */
sds sdsdup(gkMem *m, const sds s) { return sdsnewlen(m, s, sdslen(s)); }

/* Frees s, which must come from the same allocator m; NULL is a no-op. */
void sdsfree(gkMem *m, sds s) {
    if (s) memFree(m, SDS_HDR(s));
}

/* Ensures addlen more bytes fit after the content, keeping it. Returns the
 * (possibly moved) string, or NULL with s untouched if memory is refused. */
sds sdsTryMakeRoomFor(gkMem *m, sds s, size_t addlen) {
    sdshdr *h = SDS_HDR(s);
    if (h->alloc - h->len >= addlen) return s;
    if (addlen > (size_t)-1 - h->len - sizeof(sdshdr) - 1) return NULL;
    size_t newlen = h->len + addlen;
    if (newlen < SDS_MAX_PREALLOC) newlen *= 2;
    else if (newlen < (size_t)-1 - SDS_MAX_PREALLOC - sizeof(sdshdr) - 1)
        newlen += SDS_MAX_PREALLOC;
    sdshdr *nh = memTryRealloc(m, h, sizeof(sdshdr) + newlen + 1);
    if (!nh) return NULL;
    nh->alloc = newlen;
    return nh->buf;
}

/* As sdsTryMakeRoomFor, but room for exactly addlen more bytes, nothing
 * preallocated (sdsMakeRoomForNonGreedy): for a buffer whose size should
 * be what it is asked for, such as a new client's query buffer. */
sds sdsTryMakeRoomForNonGreedy(gkMem *m, sds s, size_t addlen) {
    sdshdr *h = SDS_HDR(s);
    if (h->alloc - h->len >= addlen) return s;
    if (addlen > (size_t)-1 - h->len - sizeof(sdshdr) - 1) return NULL;
    size_t newlen = h->len + addlen;
    sdshdr *nh = memTryRealloc(m, h, sizeof(sdshdr) + newlen + 1);
    if (!nh) return NULL;
    nh->alloc = newlen;
    return nh->buf;
}

/* Reallocates s to hold exactly size bytes (at least its length). If the
 * allocator refuses, s is returned as it was. */
sds sdsResize(gkMem *m, sds s, size_t size) {
    sdshdr *h = SDS_HDR(s);
    if (size < h->len) size = h->len;
    if (size == h->alloc) return s;
    sdshdr *nh = memTryRealloc(m, h, sizeof(sdshdr) + size + 1);
    if (!nh) return s;
    nh->alloc = size;
    return nh->buf;
}

/* As sdsTryMakeRoomFor, but stops the engine instead of returning NULL. The
 * old pointer is dead once this returns: use the result. */
sds sdsMakeRoomFor(gkMem *m, sds s, size_t addlen) {
    sds n = sdsTryMakeRoomFor(m, s, addlen);
    if (!n) memPanic("out of memory growing a string");
    return n;
}

/* Accounts for bytes written directly after the content. */
void sdsIncrLen(sds s, size_t incr) {
    sdshdr *h = SDS_HDR(s);
    h->len += incr;
    h->buf[h->len] = '\0';
}

/* Appends len bytes from t. The sdscat* family shares one contract: it may
 * move the string, so s is dead afterwards and the result replaces it, and
 * it never returns NULL (a refused allocation stops the engine). */
sds sdscatlen(gkMem *m, sds s, const void *t, size_t len) {
    s = sdsMakeRoomFor(m, s, len);
    memcpy(s + sdslen(s), t, len);
    sdsIncrLen(s, len);
    return s;
}

/* Appends the C string t; see sdscatlen. */
sds sdscat(gkMem *m, sds s, const char *t) {
    return sdscatlen(m, s, t, strlen(t));
}

/* Appends the sds t (binary safe); see sdscatlen. */
sds sdscatsds(gkMem *m, sds s, const sds t) {
    return sdscatlen(m, s, t, sdslen(t));
}

/* Appends printf-formatted text; see sdscatlen. If vsnprintf fails the
 * string comes back unchanged. */
sds sdscatvprintf(gkMem *m, sds s, const char *fmt, va_list ap) {
    char small[256];
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(small, sizeof(small), fmt, cp);
    va_end(cp);
    if (n < 0) return s;
    if ((size_t)n < sizeof(small)) return sdscatlen(m, s, small, (size_t)n);
    s = sdsMakeRoomFor(m, s, (size_t)n + 1);
    vsnprintf(s + sdslen(s), (size_t)n + 1, fmt, ap);
    sdsIncrLen(s, (size_t)n);
    return s;
}

/* As sdscatvprintf, with variadic arguments. */
sds sdscatprintf(gkMem *m, sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(m, s, fmt, ap);
    va_end(ap);
    return s;
}

/* Appends p quoted and escaped, as Redis prints strings in logs. */
sds sdscatrepr(gkMem *m, sds s, const char *p, size_t len) {
    s = sdscatlen(m, s, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        switch (c) {
        case '\\': case '"': s = sdscatprintf(m, s, "\\%c", c); break;
        case '\n': s = sdscatlen(m, s, "\\n", 2); break;
        case '\r': s = sdscatlen(m, s, "\\r", 2); break;
        case '\t': s = sdscatlen(m, s, "\\t", 2); break;
        case '\a': s = sdscatlen(m, s, "\\a", 2); break;
        case '\b': s = sdscatlen(m, s, "\\b", 2); break;
        default:
            if (isprint(c)) s = sdscatlen(m, s, (char *)&c, 1);
            else s = sdscatprintf(m, s, "\\x%02x", c);
        }
    }
    return sdscatlen(m, s, "\"", 1);
}

/* Keeps bytes start..end inclusive; negative indexes count from the end. */
void sdsrange(sds s, long start, long end) {
    long len = (long)sdslen(s);
    if (len == 0) return;
    if (start < 0) { start += len; if (start < 0) start = 0; }
    if (end < 0) { end += len; if (end < 0) end = 0; }
    long newlen = (start > end) ? 0 : (end - start) + 1;
    if (newlen != 0) {
        if (start >= len) newlen = 0;
        else if (end >= len) { end = len - 1; newlen = end - start + 1; }
    }
    if (start && newlen) memmove(s, s + start, (size_t)newlen);
    s[newlen] = 0;
    SDS_HDR(s)->len = (size_t)newlen;
}

/* Empties s in place; the allocation is kept for reuse. */
void sdsclear(sds s) {
    SDS_HDR(s)->len = 0;
    s[0] = '\0';
}

/* Shrinks the allocation to fit the content. If the allocator refuses, s
 * comes back unchanged; otherwise the old pointer is dead. */
sds sdsRemoveFreeSpace(gkMem *m, sds s) {
    sdshdr *h = SDS_HDR(s);
    if (h->alloc == h->len) return s;
    sdshdr *nh = memTryRealloc(m, h, sizeof(sdshdr) + h->len + 1);
    if (!nh) return s;
    nh->alloc = nh->len;
    return nh->buf;
}

/* Bytes the string occupies: header, allocated capacity and the NUL (the
 * gkMem block prefix is not counted). */
size_t sdsAllocSize(const sds s) {
    return sizeof(sdshdr) + SDS_HDR(s)->alloc + 1;
}

/* Lowercases s in place, byte by byte in the C locale. */
void sdstolower(sds s) {
    for (size_t i = 0; i < sdslen(s); i++)
        s[i] = (char)tolower((unsigned char)s[i]);
}

/* Uppercases s in place, byte by byte in the C locale. */
void sdstoupper(sds s) {
    for (size_t i = 0; i < sdslen(s); i++)
        s[i] = (char)toupper((unsigned char)s[i]);
}

/* memcmp order, a shorter prefix sorting first. */
int sdscmp(const sds a, const sds b) {
    size_t la = sdslen(a), lb = sdslen(b);
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

/* A new string holding value in decimal. Stops the engine if memory is
 * refused. */
sds sdsfromlonglong(gkMem *m, long long value) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), value);
    return sdsnewlen(m, buf, (size_t)len);
}
