/* digest.c -- one number for the state of a whole world, so that two
 * worlds can be compared (a shared link opened elsewhere, a session
 * exported and imported, a replay against the original).
 *
 * The digest folds, with CRC-64 (the RDB's checksum):
 *   - the world: virtual time, the event queue (length and sequence
 *     counter), the PRNG's state, the bytes allocated, the trace's last
 *     sequence number, the nodes and connections opened;
 *   - every node: its system call counters, iterations, clock and
 *     whether its process is up, and a Redis-style node's AOF history
 *     (aofhist.h);
 *   - every Redis-style server: its whole dataset as the RDB file that
 *     the AOF's base would hold (keys in bucket order, values, expires),
 *     the shape of each database's two dicts (table sizes, entries,
 *     rehashidx, version) and its statistics counters.
 *   - every memcached-style node: each chunk of each page of each slab
 *     class, in the order the pages were taken, so where every item sits
 *     (class, page, chunk), and each item's key, value, client flags,
 *     expiry, CAS and last access; the LRU order of each class (its keys
 *     from head to tail) and its free list (chunk by chunk); the class
 *     figures, the counters, the hash table's size, its connections'
 *     unread bytes and unsent replies, and the memory it holds;
 *   - every machine's disk, as it stands at the world's time: each
 *     file's bytes in the page cache and on the device (what survives a
 *     power loss), its dirty extents and fsync in flight, the directories
 *     as they are and as they last reached the device, open descriptors,
 *     the device's queue and the flusher's next tick.
 *   - every SCAN walk (scanwalk.c): its cursor, counts and audit, the
 *     keys it has seen, its recent calls and the buckets it visited.
 * Two worlds built from the same configuration and input log give the
 * same digest; a key, a value, a TTL, a rehash step or a nanosecond of
 * difference gives another one (with CRC-64's odds).
 *
 * Not folded: the servers' logs, what a client program holds beyond its
 * host's counters, and addresses of any kind: a chunk is named by its
 * page and its index there, never by where it lies in memory, so a world
 * rewound to a checkpoint and one replayed in a fresh module compare
 * equal. Folding a memcached node's pages costs a pass over every chunk,
 * as the dataset's RDB costs a pass over every key.
 *
 * gkServerDatasetDigest is another number, for one server's dataset
 * alone: what the keys hold, whatever the order they were inserted in,
 * their encodings or the state of the hash tables (a list's elements
 * count in their order, its nodes and their compression do not). Two
 * servers that hold the same keys with the same values and expire times
 * give the same one, so a server restarted from its AOF can be compared
 * with the one that wrote it.
 *
 * Computing it must not change what it measures. The RDB writer looks
 * expires up with dictFind, which takes a rehash step on a rehashing
 * dict: rehashing is paused around it. Its buffer comes from a gkMem of
 * its own over the world's allocator, and the dict iterators it makes
 * (counted by the server's gkMem) are freed again; the peak they may have
 * pushed up is put back. A memcached node's free lists are matched to
 * their pages through a sorted table from another scratch account; its
 * LRU and its chunks are only read. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "aofhist.h"
#include "rdb.h"
#include "mc_server.h"
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

/* len, then the bytes. */
static uint64_t _mixBytes(uint64_t crc, const void *p, size_t len) {
    return crc64(_mix(crc, len), p, len);
}

static uint64_t _mixStr(uint64_t crc, const char *s) {
    return _mixBytes(crc, s, strlen(s));
}

static uint64_t _mixU64s(uint64_t crc, const uint64_t *v, size_t n) {
    for (size_t i = 0; i < n; i++) crc = _mix(crc, v[i]);
    return crc;
}

/* ---- A machine's disk: every file's bytes in the page cache and on the
 * device, the directories as they are and as a power loss would leave
 * them, open descriptors and the device's queue. ---- */

static uint64_t _mixInode(uint64_t crc, const diskInode *ino) {
    const uint64_t v[] = {
        (uint64_t)ino->nlink, (uint64_t)ino->nopen, (uint64_t)ino->dlink,
        (uint64_t)ino->cold, ino->dirtied_when, ino->sync_until,
        (uint64_t)ino->ndirty,
    };
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    crc = _mixBytes(crc, ino->data, sdslen(ino->data));
    crc = _mixBytes(crc, ino->durable, sdslen(ino->durable));
    for (int i = 0; i < ino->ndirty; i++) {
        const diskExtent *e = &ino->dirty[i];
        const uint64_t x[] = { e->off, e->len, (uint64_t)e->truncate };
        crc = _mixU64s(crc, x, 3);
    }
    return crc;
}

static uint64_t _mixEntries(uint64_t crc, const diskEntry *e, int n) {
    crc = _mix(crc, (uint64_t)n);
    for (int i = 0; i < n; i++)
        crc = _mix(_mixStr(crc, e[i].name), (uint64_t)e[i].inode);
    return crc;
}

/* When a periodic tick (the flusher's, the journal's) comes next, as it
 * stands at time now: a tick that had nothing to do waits for the next
 * period (disk.c realigns it when the disk catches up). */
static uint64_t _tickAt(uint64_t next, uint64_t now, uint64_t period) {
    return next > now ? next : (now / period + 1) * period;
}

/* The disk as it stands at the world's time. Looking at a disk (the AOF
 * view's gkDiskGetInfo and the like) brings it up to the world's time,
 * and the events due by then have run already: so its own clock is left
 * out and its ticks are folded as they stand at that time, and a session
 * whose AOF view was open compares equal with its replay. */
static uint64_t _mixDisk(uint64_t crc, const gkDisk *d, uint64_t now) {
    if (d->now > now) now = d->now;
    const uint64_t v[] = {
        d->capacity, d->used, d->device_free,
        _tickAt(d->next_flusher, now, DISK_WRITEBACK_PERIOD_NS),
        _tickAt(d->next_journal, now, DISK_JOURNAL_PERIOD_NS),
        d->stat_written, d->stat_durable, d->stat_syncs,
        d->stat_writebacks, (uint64_t)d->ninodes, (uint64_t)d->ndirs,
        (uint64_t)d->nfds, (uint64_t)d->nops,
    };
    crc = _mixStr(crc, d->preset.name);
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    for (int i = 0; i < d->ninodes; i++) {
        crc = _mix(crc, (uint64_t)d->inodes[i].used);
        if (d->inodes[i].used) crc = _mixInode(crc, &d->inodes[i]);
    }
    for (int i = 0; i < d->ndirs; i++) {
        const diskDir *dir = &d->dirs[i];
        crc = _mixStr(crc, dir->path);
        crc = _mix(crc, (uint64_t)dir->readonly);
        crc = _mix(crc, (uint64_t)dir->meta_dirty);
        crc = _mixEntries(crc, dir->live, dir->nlive);
        crc = _mixEntries(crc, dir->durable, dir->ndurable);
    }
    for (int i = 0; i < d->nfds; i++) {
        const diskFd *f = &d->fds[i];
        const uint64_t x[] = { (uint64_t)f->inode, (uint64_t)f->flags,
                               (uint64_t)f->owner, f->pos };
        crc = _mixU64s(crc, x, 4);
    }
    for (int i = 0; i < d->nops; i++) {
        const diskOp *op = &d->ops[i];
        const uint64_t x[] = { (uint64_t)op->kind, (uint64_t)op->target,
                               op->start, op->done, op->bytes,
                               (uint64_t)op->nsnap };
        crc = _mixU64s(crc, x, 6);
    }
    return crc;
}

/* ---- A memcached-style node: every chunk of every page, in the order
 * the pages were taken (so each item's class, page and chunk), each
 * item's key, value, flags, expiry and CAS, the LRU and free-list orders
 * and the counters. Pointers are never folded: where a chunk is, is its
 * page and its index there. ---- */

/* A class's pages sorted by address, to find the page of a chunk. */
typedef struct pageIndex {
    const char **base;
    uint32_t *page;
    uint32_t n;
} pageIndex;

static void _pageIndexBuild(gkMem *m, const mcSlabClass *p, pageIndex *x) {
    x->n = p->slabs;
    x->base = memAlloc(m, sizeof(*x->base) * (x->n ? x->n : 1));
    x->page = memAlloc(m, sizeof(*x->page) * (x->n ? x->n : 1));
    for (uint32_t i = 0; i < x->n; i++) {      /* insertion sort: few */
        uint32_t j = i;
        for (; j > 0 && (uintptr_t)x->base[j - 1] >
                        (uintptr_t)p->slab_list[i]; j--) {
            x->base[j] = x->base[j - 1];
            x->page[j] = x->page[j - 1];
        }
        x->base[j] = p->slab_list[i];
        x->page[j] = i;
    }
}

/* Folds where chunk ptr is: its page and its index in the page. */
static uint64_t _mixPlace(uint64_t crc, const pageIndex *x, uint32_t size,
                          const void *ptr) {
    if (x->n == 0) return _mix(crc, UINT64_MAX);
    uint32_t lo = 0, hi = x->n;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if ((uintptr_t)x->base[mid] <= (uintptr_t)ptr) lo = mid;
        else hi = mid;
    }
    uint64_t off = (uint64_t)((uintptr_t)ptr - (uintptr_t)x->base[lo]);
    return _mix(_mix(crc, x->page[lo]), off / size);
}

/* One chunk of a page: free, a piece of a large value (its bytes are
 * folded with the item, in the order of its chain), or an item. */
static uint64_t _mixChunk(uint64_t crc, char *ptr) {
    mcItem *it = (mcItem *)ptr;
    if (it->it_flags & MC_ITEM_SLABBED) return _mix(crc, 0);
    if (it->it_flags & MC_ITEM_CHUNK) {
        const mcChunk *ch = (const mcChunk *)ptr;
        return _mix(_mix(_mix(crc, 1), ch->size), ch->used);
    }
    const uint64_t v[] = {
        2, it->it_flags, it->refcount, it->time, it->exptime,
        (uint64_t)(int64_t)it->nbytes, it->slabs_clsid, itemGetCas(it),
        itemFlags(it),
    };
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    crc = _mixBytes(crc, itemKey(it), it->nkey);
    if (!(it->it_flags & MC_ITEM_CHUNKED))
        return _mixBytes(crc, itemData(it), (size_t)it->nbytes);
    for (mcChunk *ch = itemFirstChunk(it); ch; ch = ch->next)
        crc = _mixBytes(crc, chunkData(ch), ch->used);
    return crc;
}

static uint64_t _mixClass(uint64_t crc, gkMem *scratch, const mcCache *k,
                          unsigned id) {
    const mcSlabClass *p = &k->slabs.cls[id];
    const mcItemStats *is = &k->itemstats[id];
    const uint64_t v[] = {
        p->size, p->perslab, p->sl_curr, p->slabs, k->sizes[id],
        k->sizes_bytes[id], is->evicted, is->evicted_nonzero, is->reclaimed,
        is->outofmemory, is->tailrepairs, is->expired_unfetched,
        is->evicted_unfetched, is->evicted_active, is->direct_reclaims,
        is->evicted_time,
    };
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    crc = crc64(crc, (const unsigned char *)&k->slab_stats[id],
                sizeof(k->slab_stats[id]));
    for (uint32_t pg = 0; pg < p->slabs; pg++)
        for (uint32_t x = 0; x < p->perslab; x++)
            crc = _mixChunk(crc, p->slab_list[pg] + (size_t)x * p->size);
    /* The LRU, head to tail, by key; the free list by place. */
    for (mcItem *it = k->heads[id]; it; it = it->next)
        crc = _mixBytes(crc, itemKey(it), it->nkey);
    pageIndex x;
    _pageIndexBuild(scratch, p, &x);
    for (mcItem *f = p->slots; f; f = f->next)
        crc = _mixPlace(crc, &x, p->size, f);
    memFree(scratch, x.base);
    memFree(scratch, x.page);
    return crc;
}

static uint64_t _mixConn(uint64_t crc, const mcConn *c) {
    const uint64_t v[] = {
        (uint64_t)c->fd, (uint64_t)c->state, c->rsize, c->rlbytes,
        c->sbytes, (uint64_t)c->close_after_write, (uint64_t)c->noreply,
        (uint64_t)c->cmd, (uint64_t)c->rbuf_malloced,
    };
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    crc = _mixBytes(crc, c->rbuf + c->rpos, c->rbytes);
    return _mixBytes(crc, c->out, sdslen(c->out));
}

static uint64_t _mixMemcached(gkWorld *w, uint64_t crc, mcServer *s) {
    const mcCache *k = &s->cache;
    const mcSlabs *sl = &k->slabs;
    const mcSettings *st = &s->settings;
    uint64_t factor;
    memcpy(&factor, &st->factor, sizeof(factor));
    const uint64_t v[] = {
        s->own.used, s->start_ns, s->pid, s->curr_conns, s->total_conns,
        s->conn_structs, st->maxbytes, factor, (uint64_t)st->chunk_size,
        (uint64_t)st->item_size_max, (uint64_t)st->slab_chunk_size_max,
        (uint64_t)st->use_cas, (uint64_t)st->evict_to_free,
        (uint64_t)st->reqs_per_event, k->cas_id, k->current_time,
        (uint64_t)k->process_started, k->oldest_live, k->oldest_cas,
        k->curr_items, k->total_items, k->curr_bytes,
        k->assoc.hashpower, k->assoc.items, k->assoc.expansions,
        (uint64_t)sl->power_largest, sl->mem_limit, sl->mem_malloced,
        (uint64_t)sl->mem_limit_reached, sl->cls[0].slabs,
    };
    crc = _mixU64s(crc, v, sizeof(v) / sizeof(v[0]));
    crc = crc64(crc, k->assoc.seed, sizeof(k->assoc.seed));
    crc = crc64(crc, (const unsigned char *)&k->ts, sizeof(k->ts));
    gkMem scratch;
    worldScratchMem(w, &scratch);
    for (int id = MC_POWER_SMALLEST; id <= sl->power_largest; id++)
        crc = _mixClass(crc, &scratch, k, (unsigned)id);
    for (int fd = 0; fd < s->conns_cap; fd++)
        if (s->conns[fd]) crc = _mixConn(crc, s->conns[fd]);
    return crc;
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
    if (n->aof_hist) {                  /* what the offsets chart draws */
        crc = _mix(crc, n->aof_hist->gap);
        crc = _mixBytes(crc, n->aof_hist->s,
                        n->aof_hist->n * sizeof(n->aof_hist->s[0]));
    }
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
    crc = _mixBytes(crc, &w->session, sizeof(w->session));
    for (int i = 0; i < w->nnodes; i++) {
        if (!w->nodes[i].type) continue;
        crc = _mixNode(crc, &w->nodes[i]);
        redisServer *s = worldServer(w, i);
        if (s) {
            s->denv.quiet++;        /* reading is not the server's work */
            crc = _mixServer(w, crc, s);
            s->denv.quiet--;
        }
        crc = scanWalkDigest(&w->nodes[i], crc);
        mcServer *mc = mcServerOf(w, i);
        if (mc) crc = _mixMemcached(w, crc, mc);
        if (w->nodes[i].disk)
            crc = _mixDisk(crc, w->nodes[i].disk, w->now);
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

/* One list element, chained onto the crc: a list's order is part of its
 * value, so unlike the members of a set its elements are not summed. */
static void _chainElement(void *ctx, const char *a, size_t alen,
                          const char *b, size_t blen, double score) {
    uint64_t *crc = ctx;
    *crc = crc64(_mix(*crc, alen), (const unsigned char *)a, alen);
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
    } else if (o->type == OBJ_LIST) {
        rdbForEachElement(o, _chainElement, &crc);
    } else {
        elemSum e = { 0, o->type };
        rdbForEachElement(o, _sumElement, &e);
        crc = _mix(crc, e.sum);
    }
    robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
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
    s->denv.quiet++;            /* an observer: no CPU charged (cost.h) */
    for (int j = 0; j < s->cfg.databases; j++) {
        redisDb *db = &s->db[j];
        db->expires->pauserehash++;
        dictIterator *di = dictGetIterator(db->dict);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, dictGetKey(de));
            long long when = getExpire(db, &k);
            if (when != -1 && when <= cutoff_ms) continue;
            sum += _keyDigest(db, dictGetKey(de), dictGetVal(de));
        }
        dictReleaseIterator(di);
        db->expires->pauserehash--;
    }
    s->denv.quiet--;
    s->mem->peak = peak;
    return sum;
}
