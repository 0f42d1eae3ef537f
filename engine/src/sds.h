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
#include "mem.h"

typedef char *sds;

typedef struct sdshdr {
    size_t len;     /* bytes used, not counting the terminator */
    size_t alloc;   /* bytes available for content, not counting it */
    char buf[];
} sdshdr;

#define SDS_HDR(s) ((sdshdr *)((s) - sizeof(sdshdr)))

static inline size_t sdslen(const sds s) { return SDS_HDR(s)->len; }
static inline size_t sdsavail(const sds s) {
    return SDS_HDR(s)->alloc - SDS_HDR(s)->len;
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
void sdstolower(sds s);
void sdstoupper(sds s);
int sdscmp(const sds a, const sds b);
sds sdsfromlonglong(gkMem *m, long long value);

#endif
