/* mcexports.c -- the memcached-style node's slab calls for JavaScript.
 *
 * Same conventions as exports.c: 64-bit values cross as doubles and
 * structs as flat arrays of doubles, in the order documented here
 * (wasm/mc.ts mirrors it). gkMemcachedAdd, gkMemcachedPages,
 * gkMemcachedChunks and gkMemcachedNotes take only 32-bit values and are
 * called as they are. */
#include <stdint.h>
#include <string.h>
#include <emscripten.h>
#include "glasskv.h"
#include "exportkit.h"

#define GKW_MC_CLASSES 64     /* memcached's MAX_NUMBER_OF_SLAB_CLASSES */
#define GKW_MC_ROW 13         /* doubles per class row */
#define GKW_MC_TOTALS 11      /* doubles of node-wide figures */
#define GKW_MC_SPEC 7         /* doubles of a fill workload */
#define GKW_MC_FILL 6         /* doubles of a fill's outcome */

/* A uint32 "none" (UINT32_MAX) as -1, anything else as it is. */
static double _gkwMcIndex(uint32_t v) {
    return v == UINT32_MAX ? -1.0 : (double)v;
}

/* Copies n rows as GKW_MC_ROW doubles each: id, chunk_size, perslab,
 * pages, used_chunks, free_chunks, items, free_head_page,
 * free_head_chunk (-1 for both when the free list is empty), requested,
 * allocated, evicted, outofmemory. */
static void _gkwMcRows(const gkMcClass *rows, uint32_t n, double *out) {
    for (uint32_t i = 0; i < n; i++) {
        const gkMcClass *r = &rows[i];
        double *o = out + (size_t)i * GKW_MC_ROW;
        o[0] = r->id;
        o[1] = r->chunk_size;
        o[2] = r->perslab;
        o[3] = r->pages;
        o[4] = r->used_chunks;
        o[5] = r->free_chunks;
        o[6] = r->items;
        o[7] = _gkwMcIndex(r->free_head_page);
        o[8] = _gkwMcIndex(r->free_head_chunk);
        o[9] = (double)r->requested;
        o[10] = (double)r->allocated;
        o[11] = (double)r->evicted;
        o[12] = (double)r->outofmemory;
    }
}

/* Fills rows (GKW_MC_CLASSES * GKW_MC_ROW doubles) with the node's
 * classes and totals (GKW_MC_TOTALS doubles: classes, active_slabs,
 * page_size, chunk_max, item_size_max, limit, total_malloced, requested,
 * used_bytes, curr_items, evictions). Returns the number of classes, or
 * gkMemcachedClasses's negative status. */
EMSCRIPTEN_KEEPALIVE
int gkwMemcachedClasses(gkWorld *w, int node, double *rows, double *totals) {
    gkMcClass r[GKW_MC_CLASSES];
    gkMcTotals t;
    uint32_t n = 0;
    int status = gkMemcachedClasses(w, node, r, GKW_MC_CLASSES, &n, &t);
    if (status != GK_OK) return status;
    if (n > GKW_MC_CLASSES) n = GKW_MC_CLASSES;
    _gkwMcRows(r, n, rows);
    const double v[GKW_MC_TOTALS] = {
        t.classes, t.active_slabs, t.page_size, t.chunk_max, t.item_size_max,
        (double)t.limit, (double)t.total_malloced, (double)t.requested,
        (double)t.used_bytes, (double)t.curr_items, (double)t.evictions };
    memcpy(totals, v, sizeof(v));
    return (int)n;
}

/* gkMemcachedLayout into rows as gkwMemcachedClasses lays them out.
 * Returns the number of classes, or GK_EINVAL with memcached's message in
 * err. */
EMSCRIPTEN_KEEPALIVE
int gkwMemcachedLayout(const char *options, double *rows, char *err,
                       uint32_t cap) {
    gkMcClass r[GKW_MC_CLASSES];
    uint32_t n = 0;
    if (cap) err[0] = '\0';
    int status = gkMemcachedLayout(options, r, GKW_MC_CLASSES, &n, err, cap);
    if (status != GK_OK) return status;
    if (n > GKW_MC_CLASSES) n = GKW_MC_CLASSES;
    _gkwMcRows(r, n, rows);
    return (int)n;
}

/* gkMemcachedItemClass with the value length as a double; out[0] gets the
 * class (0: too large), out[1] the item's size as memcached counts it. */
EMSCRIPTEN_KEEPALIVE
int gkwMemcachedItemClass(gkWorld *w, int node, uint32_t nkey,
                          uint32_t flags, double vlen, double *out) {
    uint32_t cls = 0;
    uint64_t ntotal = 0;
    int status = gkMemcachedItemClass(w, node, nkey, flags, gkwU64(vlen),
                                      &cls, &ntotal);
    if (status != GK_OK) return status;
    out[0] = cls;
    out[1] = (double)ntotal;
    return GK_OK;
}

/* gkMemcachedFill from plain numbers. spec holds dist, size_a, size_b,
 * key_bytes, keyspace, total, seed; acc holds sent, stored, out_of_memory,
 * too_large, evictions, value_bytes, which the slice's outcome is added
 * to (as gkMemcachedFill adds to its result). */
EMSCRIPTEN_KEEPALIVE
int gkwMemcachedFill(gkWorld *w, int node, const double *spec, double first,
                     double count, double *acc) {
    gkMcFillSpec s;
    memset(&s, 0, sizeof(s));
    s.dist = (uint32_t)gkwU64(spec[0]);
    s.size_a = (uint32_t)gkwU64(spec[1]);
    s.size_b = (uint32_t)gkwU64(spec[2]);
    s.key_bytes = (uint32_t)gkwU64(spec[3]);
    s.keyspace = gkwU64(spec[4]);
    s.total = gkwU64(spec[5]);
    s.seed = gkwU64(spec[6]);
    gkMcFillResult r = {
        gkwU64(acc[0]), gkwU64(acc[1]), gkwU64(acc[2]),
        gkwU64(acc[3]), gkwU64(acc[4]), gkwU64(acc[5]) };
    int status = gkMemcachedFill(w, node, &s, gkwU64(first),
                                 gkwU64(count), &r);
    acc[0] = (double)r.sent;
    acc[1] = (double)r.stored;
    acc[2] = (double)r.out_of_memory;
    acc[3] = (double)r.too_large;
    acc[4] = (double)r.evictions;
    acc[5] = (double)r.value_bytes;
    return status;
}
