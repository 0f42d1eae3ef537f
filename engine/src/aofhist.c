/* aofhist.c -- see aofhist.h. */
#include "aofhist.h"

/* Empties the history (a new process: its offsets start from 0). */
void aofHistReset(aofHist *h) {
    h->n = 0;
    h->gap = AOF_HIST_MIN_GAP;
}

static int _sameOffsets(const gkAofSample *a, const gkAofSample *b) {
    return a->fed == b->fed && a->written == b->written &&
           a->acked == b->acked && a->durable == b->durable;
}

/* Makes room when the samples are full: the gap doubles, and the samples
 * are taken again as if they had been recorded with it (aofHistRecord),
 * each sample closer than the gap to the one kept before it giving that
 * one its offsets, until a quarter of the room is free. The first sample
 * stays as it is: where the life starts. O(n), about once per doubling of
 * the life's length. */
static void _thin(aofHist *h) {
    do {
        h->gap *= 2;
        uint32_t k = 1;
        for (uint32_t i = 1; i < h->n; i++) {
            gkAofSample *kept = &h->s[k - 1];
            if (k > 1 && h->s[i].time - kept->time < h->gap) {
                uint64_t t = kept->time;
                *kept = h->s[i];
                kept->time = t;
            } else {
                h->s[k++] = h->s[i];
            }
        }
        h->n = k;
    } while (h->n > GK_AOF_HISTORY_MAX / 4 * 3);
}

/* Records the offsets v->fed .. v->durable as of v->time. Times never go
 * back: a sample stamped before the last one (a machine event while the
 * main thread's clock ran ahead) is taken as of the last one's time. An
 * unchanged sample is not recorded; one closer than the gap to the last
 * sample (the first excepted) updates that sample's offsets. */
void aofHistRecord(aofHist *h, const gkAofSample *v) {
    gkAofSample x = *v;
    if (h->n) {
        gkAofSample *last = &h->s[h->n - 1];
        if (x.time < last->time) x.time = last->time;
        if (_sameOffsets(last, &x)) return;
        if (h->n > 1 && x.time - last->time < h->gap) {
            x.time = last->time;
            *last = x;
            return;
        }
    }
    if (h->n == GK_AOF_HISTORY_MAX) {
        _thin(h);                   /* the gap has grown: ask again */
        aofHistRecord(h, &x);
        return;
    }
    h->s[h->n++] = x;
}
