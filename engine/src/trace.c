/* trace.c -- see trace.h. */
#include <string.h>
#include "trace.h"

/* cap is rounded up to a power of two (minimum 16). Returns GK_ENOMEM if
 * the ring cannot be allocated. All record types start enabled. */
int traceInit(gkTrace *t, gkMem *m, uint32_t cap, uint64_t (*now)(void *),
              void *ctx) {
    uint32_t c = 16;
    while (c < cap && c < (1u << 24)) c <<= 1;    /* at most 640 MB */
    t->ring = memTryCalloc(m, sizeof(gkTraceRecord) * c);
    if (!t->ring) return GK_ENOMEM;
    t->cap = c;
    t->enabled = 0xffffffffu;
    t->seq = 0;
    t->now = now;
    t->ctx = ctx;
    return GK_OK;
}

/* Frees the ring; t must not be used again before another traceInit. m is
 * the allocator traceInit was given. */
void traceRelease(gkTrace *t, gkMem *m) {
    memFree(m, t->ring);
    t->ring = NULL;
}

/* Appends one record stamped with the clock's time, overwriting the oldest
 * when the ring is full. Does not check the enabled mask: the TRACE macro
 * does, and direct callers must. */
void traceEmit(gkTrace *t, uint16_t type, uint16_t node, uint32_t a,
               uint32_t b, uint32_t c, uint64_t d) {
    gkTraceRecord *r = &t->ring[(++t->seq) & (t->cap - 1)];
    r->seq = t->seq;
    r->time = t->now(t->ctx);
    r->type = type;
    r->node = node;
    r->a = a;
    r->b = b;
    r->c = c;
    r->d = d;
}

/* As traceEmit, with the time given instead of read from the clock. */
void traceEmitAt(gkTrace *t, uint64_t time, uint16_t type, uint16_t node,
                 uint32_t a, uint32_t b, uint32_t c, uint64_t d) {
    traceEmit(t, type, node, a, b, c, d);
    t->ring[t->seq & (t->cap - 1)].time = time;
}

/* Copies up to max records with seq > after, oldest first, and returns how
 * many. Records already overwritten are skipped: the first record returned
 * then has seq > after + 1, which tells the reader it lost some. */
size_t traceRead(gkTrace *t, uint64_t after, gkTraceRecord *out,
                 size_t max) {
    uint64_t first = after + 1;
    if (t->seq >= t->cap && first <= t->seq - t->cap)
        first = t->seq - t->cap + 1;
    size_t n = 0;
    for (uint64_t s = first; s <= t->seq && n < max; s++)
        out[n++] = t->ring[s & (t->cap - 1)];
    return n;
}
