/* sds.h -- binary-safe dynamic strings.
 *
 * An sds is a char pointer to NUL-terminated bytes preceded by a small
 * header holding the length and the allocated capacity, so it can be passed
 * to any function that reads a C string while still holding binary data.
 * All functions that may allocate take the engine's gkMem first. */
#ifndef GK_SDS_H
#define GK_SDS_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include "mem.h"

typedef char *sds;

/* The header before the bytes comes in five sizes, as in Redis 7.0, so a
 * short string pays 1 to 3 bytes for its length instead of 16: the byte
 * just before the content (flags) says which. Type 5 keeps a length under
 * 32 in flags' top bits and has no capacity (it is never grown in place);
 * the others keep len and alloc (the content's capacity) in 1, 2, 4 or 8
 * bytes each, packed, so the header of a type-8 string is 3 bytes. */
#define SDS_TYPE_5 0
#define SDS_TYPE_8 1
#define SDS_TYPE_16 2
#define SDS_TYPE_32 3
#define SDS_TYPE_64 4
#define SDS_TYPE_MASK 7
#define SDS_TYPE_BITS 3

struct __attribute__((packed)) sdshdr8 {
    uint8_t len;            /* bytes used, not counting the terminator */
    uint8_t alloc;          /* capacity, not counting header or terminator */
    unsigned char flags;    /* low 3 bits: the type */
    char buf[];
};
struct __attribute__((packed)) sdshdr16 {
    uint16_t len; uint16_t alloc; unsigned char flags; char buf[];
};
struct __attribute__((packed)) sdshdr32 {
    uint32_t len; uint32_t alloc; unsigned char flags; char buf[];
};
struct __attribute__((packed)) sdshdr64 {
    uint64_t len; uint64_t alloc; unsigned char flags; char buf[];
};

#define SDS_H(T, s) ((struct sdshdr##T *)((s) - sizeof(struct sdshdr##T)))

/* Bytes used, not counting the terminator. */
static inline size_t sdslen(const sds s) {
    unsigned char flags = (unsigned char)s[-1];
    switch (flags & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return flags >> SDS_TYPE_BITS;
    case SDS_TYPE_8: return SDS_H(8, s)->len;
    case SDS_TYPE_16: return SDS_H(16, s)->len;
    case SDS_TYPE_32: return SDS_H(32, s)->len;
    default: return (size_t)SDS_H(64, s)->len;
    }
}

/* The content's capacity (a type-5 string's is its length). */
static inline size_t sdsalloc(const sds s) {
    unsigned char flags = (unsigned char)s[-1];
    switch (flags & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return flags >> SDS_TYPE_BITS;
    case SDS_TYPE_8: return SDS_H(8, s)->alloc;
    case SDS_TYPE_16: return SDS_H(16, s)->alloc;
    case SDS_TYPE_32: return SDS_H(32, s)->alloc;
    default: return (size_t)SDS_H(64, s)->alloc;
    }
}

/* Bytes that can be appended without reallocating. */
static inline size_t sdsavail(const sds s) {
    return sdsalloc(s) - sdslen(s);
}

sds sdsnewlen(gkMem *m, const void *init, size_t len);
sds sdsTryNewlen(gkMem *m, const void *init, size_t len);
sds sdsnew(gkMem *m, const char *init);
sds sdsempty(gkMem *m);
sds sdsdup(gkMem *m, const sds s);
void sdsfree(gkMem *m, sds s);
sds sdsMakeRoomFor(gkMem *m, sds s, size_t addlen);
sds sdsTryMakeRoomFor(gkMem *m, sds s, size_t addlen);
sds sdsTryMakeRoomForNonGreedy(gkMem *m, sds s, size_t addlen);
sds sdsResize(gkMem *m, sds s, size_t size);
void sdsIncrLen(sds s, size_t incr);
sds sdscatlen(gkMem *m, sds s, const void *t, size_t len);
sds sdscat(gkMem *m, sds s, const char *t);
sds sdscatsds(gkMem *m, sds s, const sds t);
sds sdscatprintf(gkMem *m, sds s, const char *fmt, ...);
sds sdscatvprintf(gkMem *m, sds s, const char *fmt, va_list ap);
sds sdscatrepr(gkMem *m, sds s, const char *p, size_t len);
void sdsrange(sds s, long start, long end);
void sdsclear(sds s);
sds sdsRemoveFreeSpace(gkMem *m, sds s);
size_t sdsAllocSize(const sds s);
void *sdsAllocPtr(const sds s);
size_t sdsEmbeddedSize(size_t len);
sds sdsEmbed(void *buf, const void *init, size_t len);
void sdstolower(sds s);
void sdstoupper(sds s);
int sdscmp(const sds a, const sds b);
sds sdsfromlonglong(gkMem *m, long long value);

#endif
