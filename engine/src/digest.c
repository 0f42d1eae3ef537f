/* digest.c -- one number for the state of a whole world, so that two
 * worlds can be compared (a shared link opened elsewhere, a session
 * exported and imported, a replay against the original).
 *
 * The digest folds, with CRC-64 (the RDB's checksum):
 *   - the world: virtual time, the event queue (length and sequence
 *     counter), the PRNG's state, the bytes allocated, the trace's last
 *     sequence number, the nodes and connections opened;
 *   - every node: its system call counters, iterations, clock and
 *     whether its process is up;
 *   - every Redis-style server: its whole dataset as the RDB file that
 *     the AOF's base would hold (keys in bucket order, values, expires),
 *     the shape of each database's two dicts (table sizes, entries,
 *     rehashidx, version) and its statistics counters.
 *   - every SCAN walk (scanwalk.c): its cursor, counts and audit, the
 *     keys it has seen, its recent calls and the buckets it visited.
 * Two worlds built from the same configuration and input log give the
 * same digest; a key, a value, a TTL, a rehash step or a nanosecond of
 * difference gives another one (with CRC-64's odds).
 *
 * Not folded: the items and slabs of memcached-style nodes, and the
 * machines' disks (AOF files, durable bytes). Two worlds that differ
 * only there give the same digest.
 *
 * gkServerDatasetDigest is another number, for one server's dataset
 * alone: what the keys hold, whatever the order they were inserted in,
 * their encodings or the state of the hash tables. Two servers that hold
 * the same keys with the same values and expire times give the same one,
 * so a server restarted from its AOF can be compared with the one that
 * wrote it.
 *
 * Computing it must not change what it measures. The RDB writer looks
 * expires up with dictFind, which takes a rehash step on a rehashing
 * dict: rehashing is paused around it. Its buffer comes from a gkMem of
 * its own over the world's allocator, and the dict iterators it makes
 * (counted by the server's gkMem) are freed again; the peak they may have
 * pushed up is put back. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "rdb.h"
#include "scanwalk.h"

static uint64_t _mix(uint64_t crc, uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return crc64(crc, b, sizeof(b));
}

static uint64_t _mixDict(uint64_t crc, const dict *d) {
    for (int t = 0; t < 2; t++) {
        crc = _mix(crc, (uint64_t)(int64_t)d->ht_size_exp[t]);
        crc = _mix(crc, d->ht_used[t]);
    }
    crc = _mix(crc, (uint64_t)d->rehashidx);
    crc = _mix(crc, (uint64_t)(int64_t)d->pauserehash);
    return _mix(crc, d->version);
}

/* The dataset as RDB bytes, with every expires dict's rehashing paused
 * while it is written. */
static uint64_t _mixDataset(gkWorld *w, uint64_t crc, redisServer *s) {
    gkMem scratch;
    memInit(&scratch, w->mem.fn, w->mem.ud);
    size_t peak = s->mem->peak, wpeak = w->mem.peak;
    for (int j = 0; j < s->cfg.databases; j++) s->db[j].expires->pauserehash++;
    long long keys = 0;
    sds rdb = rdbSaveSnapshot(s, &scratch, &keys);
    for (int j = 0; j < s->cfg.databases; j++) s->db[j].expires->pauserehash--;
    s->mem->peak = peak;
    w->mem.peak = wpeak;
    /* Without the file's own CRC-64 at its end: a CRC run over a message
     * followed by that message's CRC ends at a constant, whatever the
     * message, and would hide every difference before it. */
    size_t len = sdslen(rdb) >= 8 ? sdslen(rdb) - 8 : 0;
    crc = crc64(crc, (const unsigned char *)rdb, len);
    crc = _mix(crc, (uint64_t)keys);
    sdsfree(&scratch, rdb);
    return crc;
}

static uint64_t _mixServer(gkWorld *w, uint64_t crc, redisServer *s) {
    crc = _mixDataset(w, crc, s);
    for (int j = 0; j < s->cfg.databases; j++) {
        crc = _mixDict(crc, s->db[j].dict);
        crc = _mixDict(crc, s->db[j].expires);
    }
    const long long stats[] = {
        s->stat_numcommands, s->stat_numconnections, s->stat_expiredkeys,
        s->stat_keyspace_hits, s->stat_keyspace_misses,
        s->stat_net_input_bytes, s->stat_net_output_bytes,
        s->stat_total_error_replies,
    };
    for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
        crc = _mix(crc, (uint64_t)stats[i]);
    return _mix(crc, s->mem->used);
}

static uint64_t _mixNode(uint64_t crc, const gkNode *n) {
    const uint64_t v[] = {
        n->stats.reads, n->stats.writes, n->stats.polls,
        n->stats.bytes_read, n->stats.bytes_written, n->stats.iterations,
        n->busy_until, n->wake_at, (uint64_t)n->generation,
        (uint64_t)n->down,
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        crc = _mix(crc, v[i]);
    return crc;
}

/* Writes the world's digest to *out. Never fails; changes nothing the
 * engine shows (see above). */
void gkWorldDigest(gkWorld *w, uint64_t *out) {
    uint64_t crc = 0;
    crc = _mix(crc, w->now);
    crc = _mix(crc, w->evseq);
    crc = _mix(crc, (uint64_t)w->nevents);
    for (int i = 0; i < 4; i++) crc = _mix(crc, w->rng.s[i]);
    crc = _mix(crc, (uint64_t)w->mem.used);
    crc = _mix(crc, w->trace.seq);
    crc = _mix(crc, (uint64_t)w->nnodes);
    crc = _mix(crc, (uint64_t)w->nconns);
    for (int i = 0; i < w->nnodes; i++) {
        crc = _mixNode(crc, &w->nodes[i]);
        redisServer *s = worldServer(w, i);
        if (s) crc = _mixServer(w, crc, s);
        crc = scanWalkDigest(&w->nodes[i], crc);
    }
    *out = crc;
}

/* ---- The dataset alone, order-free (gkServerDatasetDigest). ---- */

typedef struct { uint64_t sum; int type; } elemSum;

/* One element's bytes: a member, a field and its value, or a member and
 * its score. Summed, so the order elements come in does not matter. */
static void _sumElement(void *ctx, const char *a, size_t alen,
                        const char *b, size_t blen, double score) {
    elemSum *e = ctx;
    uint64_t crc = crc64(0, (const unsigned char *)a, alen);
    if (b) crc = crc64(_mix(crc, blen), (const unsigned char *)b, blen);
    if (e->type == OBJ_ZSET) {
        char num[64];
        int len = snprintf(num, sizeof(num), "%.17g", score);
        crc = crc64(crc, (const unsigned char *)num, (size_t)len);
    }
    e->sum += _mix(crc, alen);
}

static uint64_t _keyDigest(redisDb *db, sds key, robj *o) {
    uint64_t crc = crc64(_mix(0, (uint64_t)db->id),
                         (const unsigned char *)key, sdslen(key));
    crc = _mix(crc, (uint64_t)o->type);
    if (o->type == OBJ_STRING) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(o, buf, &len);
        crc = crc64(_mix(crc, len), (const unsigned char *)p, len);
    } else {
        elemSum e = { 0, o->type };
        rdbForEachElement(o, _sumElement, &e);
        crc = _mix(crc, e.sum);
    }
    robj k = { OBJ_STRING, OBJ_ENCODING_RAW, 1, { key } };
    return _mix(crc, (uint64_t)getExpire(db, &k));
}

/* Writes to *out a digest of node's dataset: every key of every db with
 * its type, value and expire time, independent of insertion order,
 * encoding and rehashing. Keys whose expire time is at or before
 * cutoff_ms (Unix ms) count as absent, so a key that expired in between
 * does not tell two otherwise equal datasets apart. GK_ENOTFOUND when
 * node is not a running Redis-style server. Changes nothing: rehashing is
 * paused while the expires dicts are looked up. */
int gkServerDatasetDigest(gkWorld *w, int node, long long cutoff_ms,
                          uint64_t *out) {
    redisServer *s = worldServer(w, node);
    if (!s) return GK_ENOTFOUND;
    *out = serverDatasetDigest(s, cutoff_ms);
    return GK_OK;
}

/* gkServerDatasetDigest of a running server s. */
uint64_t serverDatasetDigest(redisServer *s, long long cutoff_ms) {
    uint64_t sum = 0;
    size_t peak = s->mem->peak;
    for (int j = 0; j < s->cfg.databases; j++) {
        redisDb *db = &s->db[j];
        db->expires->pauserehash++;
        dictIterator *di = dictGetIterator(db->dict);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            robj k = { OBJ_STRING, OBJ_ENCODING_RAW, 1, { dictGetKey(de) } };
            long long when = getExpire(db, &k);
            if (when != -1 && when <= cutoff_ms) continue;
            sum += _keyDigest(db, dictGetKey(de), dictGetVal(de));
        }
        dictReleaseIterator(di);
        db->expires->pauserehash--;
    }
    s->mem->peak = peak;
    return sum;
}
