/* labs_mc.c -- the memcached slab labs, runnable headless (glasskv run
 * <lab>):
 *
 *   slab-classes        the class ladder memcached 1.6.18 draws with its
 *                       defaults (seed 000: chunk size 48, factor 1.25,
 *                       8-byte alignment, 1 MB pages and items), each
 *                       class's chunk size and perslab, the end of the page
 *                       no chunk fits in, and how much of a chunk the
 *                       smallest item landing there leaves empty; then the
 *                       same with -f 2, fewer classes and more waste.
 *   item-placement      items of chosen key and value sizes stored on a
 *                       node: the size memcached counts (ntotal), the class
 *                       and the chunks each took, read back from the node,
 *                       and the padding; a large item spread over chunks of
 *                       three classes, and the first value too large.
 *   slab-calcification  a fill whose value sizes shift from small to large
 *                       under a small -m: pages go to the small classes
 *                       first and stay there, so the large class evicts
 *                       while chunks sit free in the small ones. The same
 *                       final sets on a fresh node show what that costs.
 *
 * Like the AOF labs, these drive the engine only through glasskv.h. Every
 * figure is read from the node (its class rows, its chunks, its trace, its
 * replies); none is computed here from memcached's formulas. */
#include <stdio.h>
#include <string.h>
#include "glasskv.h"
#include "labs.h"
#include "mem.h"

#define MAXCLS 64

/* A fresh world with one memcached node, or NULL if options are refused.
 * Only the trace records in trace_mask are kept. */
static gkWorld *_mcWorld(uint64_t seed, const char *options, int *node,
                         uint32_t trace_mask) {
    gkWorld *w = labWorld(seed, trace_mask, 1u << 12);
    if (!w) return NULL;
    if (gkMemcachedAdd(w, options, node) != GK_OK) {
        gkWorldRelease(w);
        return NULL;
    }
    return w;
}

/* ---- slab-classes ---- */

/* The smallest ntotal that lands in class cls: a 1-byte key, no flags,
 * and the shortest value the node puts there (found by bisection on the
 * node's own sizing), or 0 if no such value exists. */
static uint64_t _smallestIn(gkWorld *w, int node, uint32_t cls) {
    uint64_t lo = 0, hi = 1u << 21, nt = 0;
    uint32_t c = 0;
    gkMemcachedItemClass(w, node, 1, 0, 0, &c, &nt);
    if (c >= cls) return c == cls ? nt : 0;
    while (hi - lo > 1) {               /* class(lo) < cls <= class(hi) */
        uint64_t mid = lo + (hi - lo) / 2;
        gkMemcachedItemClass(w, node, 1, 0, mid, &c, &nt);
        if (c != 0 && c < cls) lo = mid;
        else hi = mid;
    }
    gkMemcachedItemClass(w, node, 1, 0, hi, &c, &nt);
    return c == cls ? nt : 0;
}

/* One ladder: the node's class rows and, per class, the waste. */
static int _ladder(labOut *o, uint64_t seed, const char *name,
                   const char *options) {
    gkMcClass rows[MAXCLS];
    gkMcTotals t;
    uint32_t n = 0;
    int node;
    gkWorld *w = _mcWorld(seed, options, &node, 0);
    if (!w) return GK_EINVAL;
    gkMemcachedClasses(w, node, rows, MAXCLS, &n, &t);
    uint64_t page_waste = 0;
    double worst = 0;
    labEmit(o, "{\"name\":\"%s\",\"options\":\"%s\",\"classes\":%u,"
            "\"page_size\":%u,\"slab_chunk_max\":%u,\"item_size_max\":%u,"
            "\"rows\":[", name, options, n, t.page_size, t.chunk_max,
            t.item_size_max);
    for (uint32_t i = 0; i < n && i < MAXCLS; i++) {
        const gkMcClass *r = &rows[i];
        uint64_t tail = t.page_size - (uint64_t)r->perslab * r->chunk_size;
        uint64_t small = _smallestIn(w, node, r->id);
        uint64_t waste = small ? r->chunk_size - small : 0;
        double pct = small ? 100.0 * (double)waste / r->chunk_size : 0;
        if (pct > worst) worst = pct;
        page_waste += tail;
        labEmit(o, "%s{\"id\":%u,\"chunk_size\":%u,\"perslab\":%u,"
                "\"page_tail_bytes\":%llu,\"smallest_item\":%llu,"
                "\"max_waste_bytes\":%llu,\"max_waste_pct\":%.1f}",
                i ? "," : "", r->id, r->chunk_size, r->perslab,
                (unsigned long long)tail, (unsigned long long)small,
                (unsigned long long)waste, pct);
    }
    labEmit(o, "],\"page_tail_bytes_all_classes\":%llu,"
            "\"worst_waste_pct\":%.1f}", (unsigned long long)page_waste,
            worst);
    gkWorldRelease(w);
    return GK_OK;
}

/* The slab-classes lab. */
int labSlabClasses(labOut *o, uint64_t seed) {
    int st = _ladder(o, seed, "memcached 1.6.18 defaults", "");
    if (st != GK_OK) return st;
    labEmit(o, ",");
    return _ladder(o, seed, "growth factor 2", "-f 2");
}

/* ---- item-placement ---- */

typedef struct placement {
    const char *key;        /* NULL: key_bytes bytes of 'k' */
    uint32_t key_bytes;
    uint32_t flags;
    uint32_t value_bytes;
} placement;

static const placement placements[] = {
    { "foo", 3, 0, 3 },             /* seed 000's first set */
    { "k2", 2, 5, 100 },            /* flags cost 4 bytes */
    { NULL, 10, 0, 100 },
    { NULL, 250, 0, 100 },          /* the longest key memcached takes */
    { NULL, 10, 0, 1000 },
    { NULL, 10, 0, 100000 },
    { "big", 3, 0, 600000 },        /* over slab_chunk_max: chunked */
    { "k", 1, 0, 1048516 },         /* the largest value that fits */
    { "k", 1, 0, 1048517 },         /* one byte more */
};

/* Sends `set` for p and returns the node's reply line in reply. */
static void _placeSet(gkWorld *w, int conn, const placement *p, char *key,
                      char *reply, size_t cap) {
    char head[320];
    if (p->key) snprintf(key, 256, "%s", p->key);
    else {
        memset(key, 'k', p->key_bytes);
        key[p->key_bytes] = '\0';
    }
    int hl = snprintf(head, sizeof(head), "set %s %u 0 %u\r\n", key,
                      p->flags, p->value_bytes);
    /* The labs' worlds use the default allocator: so does this value. */
    gkMem mem;
    memInit(&mem, memDefaultAlloc, NULL);
    char *val = memTryAlloc(&mem, (size_t)p->value_bytes + 2);
    if (!val) { snprintf(reply, cap, "(out of memory)"); return; }
    memset(val, 'v', p->value_bytes);
    memcpy(val + p->value_bytes, "\r\n", 2);
    gkConnSend(w, conn, head, (size_t)hl);
    gkConnSend(w, conn, val, (size_t)p->value_bytes + 2);
    memFree(&mem, val);
    gkWorldRunUntilIdle(w);
    size_t n = gkConnRecv(w, conn, reply, cap - 1);
    while (n && (reply[n - 1] == '\n' || reply[n - 1] == '\r')) n--;
    reply[n] = '\0';
}

/* The last GK_TR_ITEM_STORE record after seq `from`, or 0 if none. */
static int _lastStore(gkWorld *w, uint64_t from, gkTraceRecord *out) {
    gkTraceRecord rec[256];
    size_t n;
    int found = 0;
    while ((n = gkTraceRead(w, from, rec, 256)) > 0) {
        for (size_t i = 0; i < n; i++)
            if (rec[i].type == GK_TR_ITEM_STORE) {
                *out = rec[i];
                found = 1;
            }
        from = rec[n - 1].seq;
    }
    return found;
}

/* Writes the chunks that one store took: the classes whose used chunks
 * grew from before to after, with how many. Returns the bytes of those
 * chunks. */
static uint64_t _chunksTaken(labOut *o, const gkMcClass *before,
                             const gkMcClass *after, uint32_t n) {
    uint64_t bytes = 0;
    int first = 1;
    labEmit(o, "\"chunks\":[");
    for (uint32_t i = 0; i < n; i++) {
        if (after[i].used_chunks <= before[i].used_chunks) continue;
        uint32_t k = after[i].used_chunks - before[i].used_chunks;
        bytes += (uint64_t)k * after[i].chunk_size;
        labEmit(o, "%s{\"class\":%u,\"chunk_size\":%u,\"count\":%u}",
                first ? "" : ",", after[i].id, after[i].chunk_size, k);
        first = 0;
    }
    labEmit(o, "]");
    return bytes;
}

/* The class whose LRU gained an item, or 0. */
static uint32_t _lruClass(const gkMcClass *before, const gkMcClass *after,
                          uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (after[i].items > before[i].items) return after[i].id;
    return 0;
}

/* Stores one item and writes where it went. */
static void _place(labOut *o, gkWorld *w, int node, int conn,
                   const placement *p) {
    gkMcClass before[MAXCLS], after[MAXCLS];
    gkTraceRecord rec;
    char key[256], reply[128];
    uint32_t n = 0, cls = 0, bytes = 0, m = 0;
    uint64_t ntotal = 0, seq = gkTraceLastSeq(w);
    gkMemcachedItemClass(w, node, p->key_bytes, p->flags, p->value_bytes,
                         &cls, &ntotal);
    gkMemcachedClasses(w, node, before, MAXCLS, &n, NULL);
    _placeSet(w, conn, p, key, reply, sizeof(reply));
    gkMemcachedClasses(w, node, after, MAXCLS, &n, NULL);
    labEmit(o, "{\"key_bytes\":%u,\"flags\":%u,\"value_bytes\":%u,"
            "\"reply\":\"%s\",\"ntotal\":%llu,\"class\":%u,",
            p->key_bytes, p->flags, p->value_bytes, reply,
            (unsigned long long)ntotal, cls);
    uint64_t taken = _chunksTaken(o, before, after, n);
    if (!_lastStore(w, seq, &rec)) {
        labEmit(o, ",\"stored\":false}");
        return;
    }
    gkMem mem;
    memInit(&mem, memDefaultAlloc, NULL);
    uint32_t *cb = memTryAlloc(&mem, sizeof(uint32_t) *
                                         after[rec.a - 1].perslab);
    if (cb && gkMemcachedChunks(w, node, rec.a, rec.b, cb,
                                after[rec.a - 1].perslab, &m) == GK_OK &&
        rec.c < m)
        bytes = cb[rec.c];
    memFree(&mem, cb);
    labEmit(o, ",\"stored\":true,\"lru_class\":%u,\"header\":{\"class\":%u,"
            "\"page\":%u,\"chunk\":%u,\"bytes_used\":%u},"
            "\"allocated\":%llu,\"waste\":%lld}", _lruClass(before, after, n),
            rec.a, rec.b, rec.c, bytes, (unsigned long long)taken,
            (long long)taken - (long long)ntotal);
}

/* The item-placement lab. */
int labItemPlacement(labOut *o, uint64_t seed) {
    int node, conn;
    gkWorld *w = _mcWorld(seed, "", &node, 1u << GK_TR_ITEM_STORE);
    if (!w) return GK_ENOMEM;
    gkConnOpen(w, node, &conn);
    labEmit(o, "{\"name\":\"items on a node with the defaults\","
            "\"options\":\"\",\"items\":[");
    size_t count = sizeof(placements) / sizeof(placements[0]);
    for (size_t i = 0; i < count; i++) {
        if (i) labEmit(o, ",");
        _place(o, w, node, conn, &placements[i]);
    }
    labEmit(o, "]}");
    gkWorldRelease(w);
    return GK_OK;
}

/* ---- slab-calcification ---- */

/* The workload: 100,000 sets whose values grow from 100 to 1,000 bytes
 * (each +-12.5%) over 50,000 keys, so that the second half rewrites the
 * first half's keys with larger values, on a node of 16 MB. The small
 * values fill the memory limit with pages of classes 4 to 8; the large
 * ones then find no page to take and evict within the one page their
 * class got, while the rewrites leave the small classes' chunks free. */
#define CALC_OPTIONS "-m 16"
#define CALC_SLICES 10

static gkMcFillSpec _calcSpec(uint64_t seed) {
    gkMcFillSpec sp;
    memset(&sp, 0, sizeof(sp));
    sp.dist = GK_MC_DIST_SHIFT;
    sp.size_a = 100;
    sp.size_b = 1000;
    sp.key_bytes = 10;
    sp.keyspace = 50000;
    sp.total = 100000;
    sp.seed = seed;
    return sp;
}

/* Bytes in free chunks: memory taken from the limit that holds nothing,
 * and that a class short of pages cannot use. */
static uint64_t _idleBytes(const gkMcClass *rows, uint32_t n) {
    uint64_t idle = 0;
    for (uint32_t i = 0; i < n; i++)
        idle += (uint64_t)rows[i].free_chunks * rows[i].chunk_size;
    return idle;
}

/* The classes that hold pages, as rows. */
static void _emitClasses(labOut *o, const gkMcClass *rows, uint32_t n) {
    int first = 1;
    labEmit(o, "\"classes\":[");
    for (uint32_t i = 0; i < n; i++) {
        const gkMcClass *r = &rows[i];
        if (!r->pages) continue;
        labEmit(o, "%s{\"id\":%u,\"chunk_size\":%u,\"pages\":%u,"
                "\"used_chunks\":%u,\"free_chunks\":%u,\"items\":%u,"
                "\"free_bytes\":%llu,\"evicted\":%llu}", first ? "" : ",",
                r->id, r->chunk_size, r->pages, r->used_chunks,
                r->free_chunks, r->items,
                (unsigned long long)r->free_chunks * r->chunk_size,
                (unsigned long long)r->evicted);
        first = 0;
    }
    labEmit(o, "]");
}

/* Runs sets [from, to) of the workload on a fresh node and writes the
 * result; with slices, a timeline of evictions and idle bytes too. */
static int _calcRun(labOut *o, uint64_t seed, const char *name,
                    uint64_t from, uint64_t to, int slices) {
    gkMcFillSpec sp = _calcSpec(seed);
    gkMcFillResult r;
    gkMcClass rows[MAXCLS];
    gkMcTotals t;
    uint32_t n = 0, target = 0;
    uint64_t nt;
    int node;
    gkWorld *w = _mcWorld(seed, CALC_OPTIONS, &node, 0);
    if (!w) return GK_ENOMEM;
    gkMemcachedItemClass(w, node, sp.key_bytes, 0, sp.size_b, &target, &nt);
    memset(&r, 0, sizeof(r));
    labEmit(o, "{\"name\":\"%s\",\"options\":\"%s\",\"size_from\":%u,"
            "\"size_to\":%u,\"keyspace\":%llu,\"sets_from\":%llu,"
            "\"sets_to\":%llu,\"timeline\":[", name, CALC_OPTIONS,
            sp.size_a, sp.size_b, (unsigned long long)sp.keyspace,
            (unsigned long long)from, (unsigned long long)to);
    uint64_t step = (to - from + (uint64_t)slices - 1) / (uint64_t)slices;
    for (uint64_t i = from; i < to; i += step) {
        uint64_t k = to - i < step ? to - i : step;
        int st = gkMemcachedFill(w, node, &sp, i, k, &r);
        if (st != GK_OK) {
            gkWorldRelease(w);
            return st;
        }
        gkMemcachedClasses(w, node, rows, MAXCLS, &n, &t);
        labEmit(o, "%s{\"at_sets\":%llu,\"evicted_so_far\":%llu,"
                "\"free_chunk_bytes\":%llu,\"malloced\":%llu}",
                i == from ? "" : ",", (unsigned long long)(i + k - from),
                (unsigned long long)r.evictions,
                (unsigned long long)_idleBytes(rows, n),
                (unsigned long long)t.total_malloced);
    }
    const gkMcClass *tc = &rows[target - 1];
    labEmit(o, "],\"sent\":%llu,\"stored\":%llu,\"out_of_memory\":%llu,"
            "\"evictions\":%llu,\"curr_items\":%llu,\"total_malloced\":%llu,"
            "\"target_class\":%u,\"target_chunk_size\":%u,"
            "\"target_pages\":%u,\"target_items\":%u,\"target_evicted\":%llu,"
            "\"idle_bytes\":%llu,\"idle_pct_of_malloced\":%.1f,",
            (unsigned long long)r.sent, (unsigned long long)r.stored,
            (unsigned long long)r.out_of_memory,
            (unsigned long long)r.evictions,
            (unsigned long long)t.curr_items,
            (unsigned long long)t.total_malloced, target, tc->chunk_size,
            tc->pages, tc->items, (unsigned long long)tc->evicted,
            (unsigned long long)_idleBytes(rows, n),
            t.total_malloced ? 100.0 * (double)_idleBytes(rows, n) /
                               (double)t.total_malloced : 0);
    _emitClasses(o, rows, n);
    labEmit(o, "}");
    gkWorldRelease(w);
    return GK_OK;
}

/* The slab-calcification lab: the whole shift on one node, then only its
 * second half (the large values) on a fresh node of the same size. */
int labSlabCalcification(labOut *o, uint64_t seed) {
    gkMcFillSpec sp = _calcSpec(seed);
    int st = _calcRun(o, seed, "sizes shift from small to large", 0,
                      sp.total, CALC_SLICES);
    if (st != GK_OK) return st;
    labEmit(o, ",");
    return _calcRun(o, seed, "only the large half, on a fresh node",
                    sp.total - sp.keyspace, sp.total, 1);
}
