/* hdr.c -- see hdr.h. */
#include <string.h>
#include "hdr.h"

/* The power of two a value's slot is in: 0 for values under 256 (one
 * slot each), then one more for each doubling. */
static int _bucketOf(int64_t v) {
    unsigned long long x = (unsigned long long)v | (HDR_SUB_BUCKET_COUNT - 1);
    return 64 - __builtin_clzll(x) - (HDR_SUB_BUCKET_HALF_MAGNITUDE + 1);
}

/* The counter a value (0 .. HDR_HIGHEST) is counted in. */
int hdrIndexOf(int64_t v) {
    int b = _bucketOf(v);
    int sub = (int)(v >> b);
    return ((b + 1) << HDR_SUB_BUCKET_HALF_MAGNITUDE) +
           (sub - HDR_SUB_BUCKET_HALF_COUNT);
}

/* The lowest value counted in counter idx. */
static int64_t _valueAt(int idx) {
    int b = (idx >> HDR_SUB_BUCKET_HALF_MAGNITUDE) - 1;
    int sub = (idx & (HDR_SUB_BUCKET_HALF_COUNT - 1)) +
              HDR_SUB_BUCKET_HALF_COUNT;
    if (b < 0) {
        sub -= HDR_SUB_BUCKET_HALF_COUNT;
        b = 0;
    }
    return (int64_t)sub << b;
}

static int64_t _lowestEquivalent(int64_t v) {
    int b = _bucketOf(v);
    return (v >> b) << b;
}

/* The highest value counted with v: its slot's last. */
int64_t hdrHighestEquivalent(int64_t v) {
    return _lowestEquivalent(v) + ((int64_t)1 << _bucketOf(v)) - 1;
}

/* A histogram with nothing recorded: its header and its 24 KB of
 * counters, two blocks, as Redis allocates them. */
hdrHistogram *hdrCreate(gkMem *m) {
    hdrHistogram *h = memAllocAs(m, sizeof(*h), MEM64_HDR_HISTOGRAM);
    h->total = 0;
    h->counts = memCalloc(m, sizeof(int64_t) * HDR_COUNTS_LEN);
    return h;
}

/* Frees h (NULL is fine). */
void hdrRelease(gkMem *m, hdrHistogram *h) {
    if (!h) return;
    memFree(m, h->counts);
    memFree(m, h);
}

/* Counts one value; one outside 0 .. HDR_HIGHEST is not counted (the
 * caller clamps, as Redis does). */
void hdrRecord(hdrHistogram *h, int64_t value) {
    if (value < 0 || value > HDR_HIGHEST) return;
    h->counts[hdrIndexOf(value)]++;
    h->total++;
}

/* How many values were recorded in v's slot or below. */
int64_t hdrCountUpTo(const hdrHistogram *h, int64_t v) {
    int64_t n = 0;
    int last = hdrIndexOf(v < HDR_HIGHEST ? v : HDR_HIGHEST);
    for (int i = 0; i <= last; i++) n += h->counts[i];
    return n;
}

/* The value at a percentile (0 to 100): the highest value of the slot
 * where the running count first reaches percentile% of the values,
 * rounded to the nearest count (the lowest value of that slot for the 0th
 * percentile). 0 when nothing was recorded. */
int64_t hdrValueAtPercentile(const hdrHistogram *h, double percentile) {
    double p = percentile < 100.0 ? percentile : 100.0;
    int64_t want = (int64_t)(p / 100 * (double)h->total + 0.5), seen = 0;
    if (want < 1) want = 1;
    for (int i = 0; i < HDR_COUNTS_LEN; i++) {
        seen += h->counts[i];
        if (seen < want) continue;
        int64_t v = _valueAt(i);
        return percentile == 0.0 ? _lowestEquivalent(v)
                                 : hdrHighestEquivalent(v);
    }
    return 0;
}
