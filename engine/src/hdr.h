/* hdr.h -- the latency histogram of a command, as Redis 7.0 keeps it: an
 * HDR histogram of nanoseconds from 1 to 1,000,000,000 with 2 significant
 * digits.
 *
 * Values are kept with a relative error under 1%: each power of two from
 * 256 up is one bucket of 128 sub-buckets of equal width (values under 256
 * are exact), so 2,000 ns and 2,007 ns share a slot, 8 ns wide, and 143,000
 * ns falls in one 1,024 ns wide. 23 buckets reach past a second; with the
 * bottom half-bucket that makes 3,072 counters of 8 bytes, 24 KB a command
 * (Redis allocates the same, and counts it in used_memory). A percentile
 * is answered with the highest value of the slot where the running count
 * reaches it, which is why INFO latencystats shows p50=2.007 for calls
 * measured at 2 microseconds. */
#ifndef GK_HDR_H
#define GK_HDR_H

#include <stdint.h>
#include "mem.h"

#define HDR_LOWEST 1LL                  /* ns */
#define HDR_HIGHEST 1000000000LL        /* ns: one second */
#define HDR_SUB_BUCKET_HALF_MAGNITUDE 7 /* 2 significant digits */
#define HDR_SUB_BUCKET_HALF_COUNT (1 << HDR_SUB_BUCKET_HALF_MAGNITUDE)
#define HDR_SUB_BUCKET_COUNT (2 * HDR_SUB_BUCKET_HALF_COUNT)
#define HDR_BUCKETS 23                  /* 256 << 22 > HDR_HIGHEST */
#define HDR_COUNTS_LEN ((HDR_BUCKETS + 1) * HDR_SUB_BUCKET_HALF_COUNT)
#define MEM64_HDR_HISTOGRAM 112         /* struct hdr_histogram */

typedef struct hdrHistogram {
    int64_t total;              /* values recorded */
    int64_t *counts;            /* HDR_COUNTS_LEN counters */
} hdrHistogram;

hdrHistogram *hdrCreate(gkMem *m);
void hdrRelease(gkMem *m, hdrHistogram *h);
void hdrRecord(hdrHistogram *h, int64_t value);
int hdrIndexOf(int64_t value);
int64_t hdrHighestEquivalent(int64_t value);
int64_t hdrCountUpTo(const hdrHistogram *h, int64_t value);
int64_t hdrValueAtPercentile(const hdrHistogram *h, double percentile);

#endif
