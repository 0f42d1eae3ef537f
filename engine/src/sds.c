/* sds.c -- see sds.h. */
#include <string.h>
#include <stdio.h>
#include <ctype.h>
#include "sds.h"
#include "util.h"

#define SDS_MAX_PREALLOC (1024 * 1024)

/* The smallest header type whose len field holds len. */
static int _sdsReqType(size_t len) {
    if (len < (size_t)1 << 5) return SDS_TYPE_5;
    if (len < (size_t)1 << 8) return SDS_TYPE_8;
    if (len < (size_t)1 << 16) return SDS_TYPE_16;
    if ((unsigned long long)len < 1ull << 32) return SDS_TYPE_32;
    return SDS_TYPE_64;
}

static size_t _sdsHdrSize(int type) {
    switch (type) {
    case SDS_TYPE_5: return 1;
    case SDS_TYPE_8: return sizeof(struct sdshdr8);
    case SDS_TYPE_16: return sizeof(struct sdshdr16);
    case SDS_TYPE_32: return sizeof(struct sdshdr32);
    default: return sizeof(struct sdshdr64);
    }
}

/* The largest length or capacity a header type can record. */
static size_t _sdsTypeMax(int type) {
    switch (type) {
    case SDS_TYPE_5: return 31;
    case SDS_TYPE_8: return 0xff;
    case SDS_TYPE_16: return 0xffff;
    case SDS_TYPE_32: return (size_t)0xffffffffull;
    default: return (size_t)-1;
    }
}

static int _sdsType(const sds s) { return s[-1] & SDS_TYPE_MASK; }

static void _sdsSetLen(sds s, size_t len) {
    switch (_sdsType(s)) {
    case SDS_TYPE_5:
        s[-1] = (char)(SDS_TYPE_5 | (len << SDS_TYPE_BITS)); break;
    case SDS_TYPE_8: SDS_H(8, s)->len = (uint8_t)len; break;
    case SDS_TYPE_16: SDS_H(16, s)->len = (uint16_t)len; break;
    case SDS_TYPE_32: SDS_H(32, s)->len = (uint32_t)len; break;
    default: SDS_H(64, s)->len = len; break;
    }
}

/* Records the capacity, capped at what the type holds; a type-5 string
 * has none to record. */
static void _sdsSetAlloc(sds s, size_t alloc) {
    int type = _sdsType(s);
    if (alloc > _sdsTypeMax(type)) alloc = _sdsTypeMax(type);
    switch (type) {
    case SDS_TYPE_5: break;
    case SDS_TYPE_8: SDS_H(8, s)->alloc = (uint8_t)alloc; break;
    case SDS_TYPE_16: SDS_H(16, s)->alloc = (uint16_t)alloc; break;
    case SDS_TYPE_32: SDS_H(32, s)->alloc = (uint32_t)alloc; break;
    default: SDS_H(64, s)->alloc = alloc; break;
    }
}

/* Starts a string of the given type in block: its flags, len and
 * capacity. Returns the content pointer. */
static sds _sdsInit(char *block, int type, size_t len, size_t alloc) {
    sds s = block + _sdsHdrSize(type);
    s[-1] = (char)type;
    _sdsSetLen(s, len);
    _sdsSetAlloc(s, alloc);
    return s;
}

/* Allocates a string of len bytes copied from init (zeroed if init is NULL).
 * Like Redis, it takes the whole jemalloc size class the request falls in
 * and records the spare bytes as capacity, so a 10-byte string has room
 * for a few more; an empty string gets a type-8 header, as it is usually
 * made to be appended to. Returns NULL if the allocator refuses. */
sds sdsTryNewlen(gkMem *m, const void *init, size_t len) {
    int type = _sdsReqType(len);
    if (type == SDS_TYPE_5 && len == 0) type = SDS_TYPE_8;
    size_t hdr = _sdsHdrSize(type);
    if (len > (size_t)-1 / 2 - hdr - 1) return NULL;
    size_t usable = memClassSize(hdr + len + 1);
    char *b = memTryAlloc(m, usable);
    if (!b) return NULL;
    sds s = _sdsInit(b, type, len, usable - hdr - 1);
    if (init && len) memcpy(s, init, len);
    else if (len) memset(s, 0, len);
    s[len] = '\0';
    return s;
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

/* The start of the block s lives in (its header). */
void *sdsAllocPtr(const sds s) {
    return s - _sdsHdrSize(_sdsType(s));
}

/* The bytes a string of len (at most 255) takes when it is written into
 * another block with sdsEmbed: a type-8 header, the bytes, the NUL. */
size_t sdsEmbeddedSize(size_t len) {
    return sizeof(struct sdshdr8) + len + 1;
}

/* Writes a string of len bytes (at most 255) into buf, which has room for
 * sdsEmbeddedSize(len): a type-8 header whose capacity is len, then the
 * bytes copied from init (zeroed if init is NULL) and a NUL. Returns the
 * string, which lives as long as buf and must never be freed or grown:
 * this is how an embstr object keeps its bytes. */
sds sdsEmbed(void *buf, const void *init, size_t len) {
    sds s = _sdsInit(buf, SDS_TYPE_8, len, len);
    if (init && len) memcpy(s, init, len);
    else if (len) memset(s, 0, len);
    s[len] = '\0';
    return s;
}

/* Frees s, which must come from the same allocator m; NULL is a no-op. */
void sdsfree(gkMem *m, sds s) {
    if (s) memFree(m, sdsAllocPtr(s));
}

/* Makes room for addlen more bytes after the content, keeping it. Greedy
 * growth doubles the new length below 1 MB and adds 1 MB above, so
 * appending byte by byte is amortized O(1) without wasting half of a huge
 * buffer. A string whose new length needs a bigger header moves to a new
 * block; otherwise it is reallocated in place. Type 5 is never chosen: the
 * string is being appended to. Returns the (possibly moved) string, or
 * NULL with s untouched if memory is refused. */
static sds _sdsTryGrow(gkMem *m, sds s, size_t addlen, int greedy) {
    size_t len = sdslen(s);
    if (sdsavail(s) >= addlen) return s;
    if (addlen > (size_t)-1 / 2 - len - SDS_MAX_PREALLOC) return NULL;
    size_t newlen = len + addlen;
    if (greedy) {
        if (newlen < SDS_MAX_PREALLOC) newlen *= 2;
        else newlen += SDS_MAX_PREALLOC;
    }
    int oldtype = _sdsType(s), type = _sdsReqType(newlen);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8;
    size_t hdr = _sdsHdrSize(type);
    size_t usable = memClassSize(hdr + newlen + 1);
    if (oldtype == type) {
        char *b = memTryRealloc(m, sdsAllocPtr(s), usable);
        if (!b) return NULL;
        s = b + hdr;
    } else {
        char *b = memTryAlloc(m, usable);
        if (!b) return NULL;
        memcpy(b + hdr, s, len + 1);
        memFree(m, sdsAllocPtr(s));
        s = _sdsInit(b, type, len, 0);
    }
    _sdsSetAlloc(s, usable - hdr - 1);
    return s;
}

/* Ensures addlen more bytes fit after the content, keeping it, with greedy
 * growth (see _sdsTryGrow). NULL with s untouched if memory is refused. */
sds sdsTryMakeRoomFor(gkMem *m, sds s, size_t addlen) {
    return _sdsTryGrow(m, s, addlen, 1);
}

/* As sdsTryMakeRoomFor, but room for exactly addlen more bytes, nothing
 * preallocated (sdsMakeRoomForNonGreedy): for a buffer whose size should
 * be what it is asked for, such as a new client's query buffer. */
sds sdsTryMakeRoomForNonGreedy(gkMem *m, sds s, size_t addlen) {
    return _sdsTryGrow(m, s, addlen, 0);
}

/* Reallocates s to hold exactly size bytes (at least its length), its
 * capacity then being size whatever the allocator's class leaves spare, as
 * Redis 7.0's sdsResize does. Shrinking keeps a bigger header in place
 * rather than copy, unless the new size fits type 8. If the allocator
 * refuses, s is returned as it was. */
sds sdsResize(gkMem *m, sds s, size_t size) {
    size_t len = sdslen(s);
    if (size < len) size = len;
    if (sdsalloc(s) == size) return s;
    int oldtype = _sdsType(s), type = _sdsReqType(size);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8;
    if (oldtype == type || (type < oldtype && type > SDS_TYPE_8)) {
        size_t hdr = _sdsHdrSize(oldtype);
        char *b = memTryRealloc(m, sdsAllocPtr(s), hdr + size + 1);
        if (!b) return s;
        s = b + hdr;
    } else {
        size_t hdr = _sdsHdrSize(type);
        char *b = memTryAlloc(m, hdr + size + 1);
        if (!b) return s;
        memcpy(b + hdr, s, len + 1);
        memFree(m, sdsAllocPtr(s));
        s = _sdsInit(b, type, len, 0);
    }
    _sdsSetAlloc(s, size);
    return s;
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
    size_t len = sdslen(s) + incr;
    _sdsSetLen(s, len);
    s[len] = '\0';
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
    _sdsSetLen(s, (size_t)newlen);
}

/* Empties s in place; the allocation is kept for reuse. */
void sdsclear(sds s) {
    _sdsSetLen(s, 0);
    s[0] = '\0';
}

/* Shrinks the allocation to fit the content (sdsResize to its length).
 * If the allocator refuses, s comes back unchanged; otherwise the old
 * pointer is dead. */
sds sdsRemoveFreeSpace(gkMem *m, sds s) {
    return sdsResize(m, s, sdslen(s));
}

/* Bytes the string's block holds for it: header, capacity and the NUL. */
size_t sdsAllocSize(const sds s) {
    return _sdsHdrSize(_sdsType(s)) + sdsalloc(s) + 1;
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
