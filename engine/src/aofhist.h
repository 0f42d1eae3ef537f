/* aofhist.h -- the AOF stream's offsets over a process's life, for the
 * views: fed, written, acknowledged and durable, kept as they change.
 *
 * The trace ring holds the last moments of a busy server in detail (a few
 * milliseconds of a benchmark), not the seconds an fsync takes to come
 * round. This keeps the whole life in a fixed number of samples, at the
 * cost of detail: a sample stands for the offsets from its time to the
 * next sample's, and samples are at least `gap` apart. A change closer
 * than that to the last sample updates it instead; when the samples fill
 * up, the gap doubles and the samples are taken again with it. So a change
 * is shown less than two gaps early, and the gap stays within twice the
 * life's length over the number of samples (a 10 s run: 10 to 20 ms).
 * It is an observer's record, like the trace: Redis keeps nothing of the
 * kind. */
#ifndef GK_AOFHIST_H
#define GK_AOFHIST_H

#include <stdint.h>
#include "glasskv.h"

/* The least gap between two samples, before any merging (virtual ns). */
#define AOF_HIST_MIN_GAP 1000

typedef struct aofHist {
    gkAofSample s[GK_AOF_HISTORY_MAX];  /* oldest first */
    uint32_t n;                         /* samples held */
    uint64_t gap;                       /* least time between two (ns) */
} aofHist;

void aofHistReset(aofHist *h);
void aofHistRecord(aofHist *h, const gkAofSample *v);

#endif
