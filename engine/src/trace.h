/* trace.h -- the bounded ring of binary trace records.
 *
 * Probes at interesting points (a rehash step, a bucket visited by SCAN, a
 * command executed) append fixed-size records to a ring; the host reads the
 * records newer than the last sequence number it saw. When the ring is full
 * the oldest records are overwritten, and a reader notices the gap in the
 * sequence numbers. Building with -DGK_NO_TRACE removes every probe. */
#ifndef GK_TRACE_H
#define GK_TRACE_H

#include <stdint.h>
#include "glasskv.h"
#include "mem.h"

typedef struct gkTrace {
    gkTraceRecord *ring;    /* cap records */
    uint32_t cap;           /* a power of two */
    uint32_t enabled;       /* bit (1 << type) set = type recorded */
    uint64_t seq;           /* sequence number of the newest record */
    uint64_t (*now)(void *ctx); /* the clock records are stamped with */
    void *ctx;
} gkTrace;

int traceInit(gkTrace *t, gkMem *m, uint32_t cap, uint64_t (*now)(void *),
              void *ctx);
void traceRelease(gkTrace *t, gkMem *m);
void traceEmit(gkTrace *t, uint16_t type, uint16_t node, uint32_t a,
               uint32_t b, uint32_t c, uint64_t d);
size_t traceRead(gkTrace *t, uint64_t after, gkTraceRecord *out,
                 size_t max);
void traceEmitAt(gkTrace *t, uint64_t time, uint16_t type, uint16_t node,
                 uint32_t a, uint32_t b, uint32_t c, uint64_t d);

#ifdef GK_NO_TRACE
#define TRACE(t, type, node, a, b, c, d) do { } while (0)
#define TRACE_AT(t, time, type, node, a, b, c, d) do { } while (0)
#else
/* A record stamped with a given time: what a background thread or the
 * device did at that moment, recorded when the world catches up to it. */
#define TRACE_AT(t, time, type, node, a, b, c, d) do { \
    gkTrace *_t = (t); \
    if (_t && (_t->enabled & (1u << (type)))) \
        traceEmitAt(_t, (time), (type), (node), (a), (b), (c), (d)); \
    } while (0)
#define TRACE(t, type, node, a, b, c, d) do { \
    gkTrace *_t = (t); \
    if (_t && (_t->enabled & (1u << (type)))) \
        traceEmit(_t, (type), (node), (a), (b), (c), (d)); } while (0)
#endif

#endif
