/* api.c -- the embedding API's observation side: trace records, hash
 * table introspection and the SCAN audit. Everything here reads engine
 * state; only gkDictRehashSteps changes it, exactly as a rehash step taken
 * by a command would. */
#include <string.h>
#include "world.h"
#include "aofhist.h"

uint64_t gkTraceLastSeq(gkWorld *w) { return w->trace.seq; }

/* Copies up to max trace records with seq > after_seq into out, oldest
 * first, and returns how many. Records the ring has overwritten are gone:
 * a first seq above after_seq + 1 tells the reader it lost some. */
size_t gkTraceRead(gkWorld *w, uint64_t after_seq, gkTraceRecord *out,
                   size_t max) {
    return traceRead(&w->trace, after_seq, out, max);
}

/* Chooses which record types are kept: bit (1 << type). */
void gkTraceEnable(gkWorld *w, uint32_t type_mask) {
    w->trace.enabled = type_mask;
}

/* The keys or expires dict of db on node. GK_ENOTFOUND (with a message
 * in gkWorldLastError) for an unknown node or db, GK_EINVAL for an
 * unknown kind; *out is set only on success. */
static int _getDict(gkWorld *w, int node, int db, int kind, dict **out) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    if (db < 0 || db >= s->cfg.databases)
        return worldFail(w, GK_ENOTFOUND, "no such database");
    if (kind == GK_DICT_KEYS) *out = s->db[db].dict;
    else if (kind == GK_DICT_EXPIRES) *out = s->db[db].expires;
    else return worldFail(w, GK_EINVAL, "unknown dict kind");
    return GK_OK;
}

/* Fills out with the shape of one dict: both tables' sizes and entry
 * counts, the rehash index and pause count, the resize policy, the
 * version. Errors as _getDict; out is untouched on error. */
int gkDictGetInfo(gkWorld *w, int node, int db, int kind, gkDictInfo *out) {
    dict *d;
    int status = _getDict(w, node, db, kind, &d);
    if (status != GK_OK) return status;
    out->rehashidx = d->rehashidx;
    for (int t = 0; t < 2; t++) {
        out->size[t] = DICTHT_SIZE(d->ht_size_exp[t]);
        out->used[t] = d->ht_used[t];
    }
    out->pauserehash = d->pauserehash;
    out->resize_policy = d->env->resize_policy;
    out->version = d->version;
    return GK_OK;
}

/* Aggregates one table's buckets into bins (bucket i goes to bin
 * i * bins / size): entries[] gets the entries per bin and filled[] the
 * non-empty buckets per bin. With more bins than buckets, bin i is bucket
 * i and the rest stay 0. This is what lets a page draw a table of millions
 * of buckets as a strip of a thousand pixels. */
int gkDictGetBuckets(gkWorld *w, int node, int db, int kind, int table,
                     uint32_t bins, uint32_t *entries, uint32_t *filled) {
    dict *d;
    int status = _getDict(w, node, db, kind, &d);
    if (status != GK_OK) return status;
    if (table < 0 || table > 1 || bins == 0)
        return worldFail(w, GK_EINVAL, "bad table or bin count");
    memset(entries, 0, sizeof(uint32_t) * bins);
    memset(filled, 0, sizeof(uint32_t) * bins);
    uint64_t size = DICTHT_SIZE(d->ht_size_exp[table]);
    for (uint64_t i = 0; i < size; i++) {
        uint32_t chain = 0;
        for (dictEntry *he = d->ht_table[table][i]; he; he = he->next)
            chain++;
        uint64_t bin = size > bins ? i * bins / size : i;
        entries[bin] += chain;
        if (chain) filled[bin]++;
    }
    return GK_OK;
}

/* Writes the keys of one bucket, chain order, each as a 4-byte
 * little-endian length and the bytes, as many as fit. */
int gkDictGetBucketKeys(gkWorld *w, int node, int db, int kind, int table,
                        uint64_t bucket, char *out, size_t cap,
                        size_t *written) {
    dict *d;
    *written = 0;
    int status = _getDict(w, node, db, kind, &d);
    if (status != GK_OK) return status;
    if (table < 0 || table > 1 || bucket >= DICTHT_SIZE(d->ht_size_exp[table]))
        return worldFail(w, GK_EINVAL, "no such bucket");
    size_t n = 0;
    for (dictEntry *he = d->ht_table[table][bucket]; he; he = he->next) {
        sds k = dictGetKey(he);
        size_t len = sdslen(k);
        if (n + 4 + len > cap) break;
        for (int b = 0; b < 4; b++) out[n++] = (char)((len >> (8 * b)) & 0xff);
        memcpy(out + n, k, len);
        n += len;
    }
    *written = n;
    return GK_OK;
}

/* Performs steps rehash steps on the dict now, as if that many operations
 * had touched it. Returns 1 if the rehash continues, 0 if it is done (or
 * there was none), or a negative status. */
int gkDictRehashSteps(gkWorld *w, int node, int db, int kind, int steps) {
    dict *d;
    int status = _getDict(w, node, db, kind, &d);
    if (status != GK_OK) return status;
    if (steps < 1) return worldFail(w, GK_EINVAL, "steps must be positive");
    return dictRehash(d, steps);
}

/* Starts (or restarts) a SCAN audit of db for the client on connection
 * conn, recording every key now in db (see audit.c). GK_ENOTFOUND with a
 * reason for an unknown node, db or connection. */
int gkScanAuditBegin(gkWorld *w, int node, int db, int conn) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    if (db < 0 || db >= s->cfg.databases)
        return worldFail(w, GK_ENOTFOUND, "no such database");
    if (auditBegin(s, db, conn) != GK_OK)
        return worldFail(w, GK_ENOTFOUND, "no such connection");
    return GK_OK;
}

/* Fills out with the audit's counters, missing counted now. GK_ENOTFOUND
 * for an unknown node; with no audit ever begun, all zeros. */
int gkScanAuditGet(gkWorld *w, int node, gkScanAudit *out) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    auditGet(s, out);
    return GK_OK;
}

/* Writes the keys present throughout and not yet returned, each as a
 * 4-byte little-endian length then the bytes, as many as fit in cap;
 * *written gets the bytes used. GK_ENOTFOUND for an unknown node (then
 * *written is not set). */
int gkScanAuditMissing(gkWorld *w, int node, char *out, size_t cap,
                       size_t *written) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    *written = auditMissing(s, out, cap);
    return GK_OK;
}

/* Stops the audit and frees its key records. The counters stay readable
 * with active = 0, but missing then reads 0: it is counted from the
 * records. GK_ENOTFOUND for an unknown node. */
int gkScanAuditEnd(gkWorld *w, int node) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    auditEnd(s);
    return GK_OK;
}

/* ---- Persistence: the AOF and the threads. ---- */

/* Fills out with node's AOF state: sizes, stream offsets (fed, written,
 * acked, durable), fsync status, current file names (truncated to fit).
 * Not read-only: it first brings the node's machine (disk, bio threads) up
 * to the world's time. GK_ENOTFOUND if node is not a running Redis node. */
int gkAofGetInfo(gkWorld *w, int node, gkAofInfo *out) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no running server node");
    machineAdvance(w, node, w->now);
    aofState *a = &s->aof;
    memset(out, 0, sizeof(*out));
    out->state = a->state;
    out->fsync = s->cfg.appendfsync;
    out->last_write_status = a->last_write_status;
    out->last_write_errno = a->last_write_errno;
    out->bio_fsync_status = s->bio.fsync_status;
    out->rewrite_in_progress = s->child.type == CHILD_TYPE_AOF;
    out->selected_db = a->selected_db;
    out->buffer_length = sdslen(a->buf);
    out->current_size = (uint64_t)a->current_size;
    out->base_size = (uint64_t)a->rewrite_base_size;
    out->fsync_offset = (uint64_t)a->fsync_offset;
    out->pending_bio_fsync = bioPendingJobsOfType(&s->bio, BIO_AOF_FSYNC);
    out->delayed_fsync = (uint64_t)a->delayed_fsync;
    out->flush_postponed_start = a->flush_postponed_start;
    out->last_fsync = a->last_fsync;
    out->fed = (uint64_t)a->fed_bytes;
    out->written = (uint64_t)a->written_bytes;
    out->acked = (uint64_t)a->acked_bytes;
    out->durable = machineAofDurable(&w->nodes[node]);
    aofManifest *am = a->manifest;
    if (am && am->nincr)
        strncpy(out->incr_file, am->incr[am->nincr - 1].file_name,
                sizeof(out->incr_file) - 1);
    if (am && am->base)
        strncpy(out->base_file, am->base->file_name,
                sizeof(out->base_file) - 1);
    return GK_OK;
}

/* Copies node's AOF history (aofhist.h) into out, oldest first: the
 * newest max samples if it holds more; *n gets how many. The offsets are
 * as of each sample's time; those of now are gkAofGetInfo's. GK_ENOTFOUND
 * if node is not a running Redis-style node. */
int gkAofHistory(gkWorld *w, int node, gkAofSample *out, int max, int *n) {
    if (!worldServer(w, node))
        return worldFail(w, GK_ENOTFOUND, "no running server node");
    const aofHist *h = w->nodes[node].aof_hist;
    uint32_t have = h ? h->n : 0;
    uint32_t k = max <= 0 ? 0 : (uint32_t)max < have ? (uint32_t)max : have;
    if (k) memcpy(out, h->s + (have - k), k * sizeof(*out));
    *n = (int)k;
    return GK_OK;
}

static void _threadRow(gkThreadInfo *t, const char *name) {
    memset(t, 0, sizeof(*t));
    strncpy(t->name, name, sizeof(t->name) - 1);
}

/* The main thread, the three bio threads and, if one exists, the rewrite
 * child, as of the world's current time. *n gets how many there are. */
int gkServerThreads(gkWorld *w, int node, gkThreadInfo *out, int max,
                    int *n) {
    redisServer *s = worldServer(w, node);
    gkThreadInfo rows[BIO_NUM_OPS + 2];
    if (!s) return worldFail(w, GK_ENOTFOUND, "no running server node");
    machineAdvance(w, node, w->now);
    gkNode *nd = &w->nodes[node];
    int k = 0;
    _threadRow(&rows[k], "main");
    rows[k].busy = nd->busy_until > w->now;
    rows[k].busy_since = nd->iter_start;
    rows[k].busy_until = nd->busy_until;
    rows[k].jobs_done = nd->stats.iterations;
    rows[k++].busy_ns = s->denv.cpu_ns;
    for (int t = 0; t < BIO_NUM_OPS; t++, k++) {
        simLane *th = &nd->jobs.lanes[t];
        _threadRow(&rows[k], bioTypeName(t));
        rows[k].busy = th->running;
        rows[k].pending = (uint32_t)th->njobs;
        rows[k].busy_since = th->running ? th->start : 0;
        rows[k].busy_until = th->running ? th->end : 0;
        rows[k].jobs_done = th->done;
        rows[k].busy_ns = th->busy_ns;
    }
    if (hasActiveChildProcess(s)) {
        serverChild *ch = &s->child;
        _threadRow(&rows[k], ch->type == CHILD_TYPE_AOF ? "aof-rewrite"
                                                        : "rdb-bgsave");
        rows[k].busy = ch->step != CHILD_EXITED;
        rows[k].busy_since = ch->fork_at;
        rows[k].busy_until = ch->step != CHILD_EXITED ? ch->next : 0;
        rows[k++].busy_ns = ch->cpu_ns;
    }
    *n = k;
    memcpy(out, rows, sizeof(gkThreadInfo) * (size_t)(k < max ? k : max));
    return GK_OK;
}
