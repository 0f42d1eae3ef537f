/* mc_api.c -- the embedding API's view into memcached-style nodes: the
 * slab class table, each page's fill, each chunk's use, and where an item
 * of a given size would land. Everything here only reads. */
#include <string.h>
#include "mc_server.h"
#include "world.h"

/* The differences between this node and memcached 1.6.18, for the UI. */
static const char mcNotes[] =
    "This node follows memcached 1.6.18's slab allocator, item layout, "
    "text protocol and statistics. It differs where memcached depends on "
    "threads and the wall clock. (1) LRU: one list per slab class, evicting "
    "from its tail, as memcached runs with -o no_lru_maintainer. By default "
    "memcached 1.6 splits each class into HOT, WARM and COLD segments and "
    "a background thread moves items between them; that is left out. "
    "(2) No background threads: no LRU crawler reaping expired items (they "
    "go when touched or when they reach the LRU tail) and no slab "
    "automover, so pages never move between classes once taken. "
    "(3) Time is the world's virtual clock: expiry, uptime and time advance "
    "with simulated time; pid, CPU usage and buffer counts are stand-ins. "
    "(4) The hash table doubles at once instead of in a background thread. "
    "(5) Only the text protocol's classic commands; meta commands other "
    "than mn, and lru_crawler, lru, watch, slabs, extstore, stats conns "
    "and stats extstore answer ERROR; stats detail keeps no per-prefix "
    "counters; the binary protocol, TLS and SASL are not offered. "
    "(6) A get copies its values into the reply at once, so an item being "
    "sent can be evicted before the reply is written; memcached keeps it "
    "until then. (7) With a slab_chunk_max too small to hold a large "
    "item's header (or a chunk's own header), memcached stores the item "
    "anyway by writing past the end of its chunk; this node answers "
    "SERVER_ERROR out of memory storing object instead.";

const char *gkMemcachedNotes(void) { return mcNotes; }

/* The allocator's side of class i's row. */
static void _slabRow(const mcSlabs *s, uint32_t i, gkMcClass *row) {
    const mcSlabClass *p = &s->cls[i];
    uint32_t page, chunk;
    memset(row, 0, sizeof(*row));
    row->id = i;
    row->chunk_size = p->size;
    row->perslab = p->perslab;
    row->pages = p->slabs;
    row->free_chunks = p->sl_curr;
    row->used_chunks = p->slabs * p->perslab - p->sl_curr;
    row->allocated = (uint64_t)p->slabs * slabsPageLen(s, i);
    row->free_head_page = row->free_head_chunk = UINT32_MAX;
    if (p->slots && slabsLocate(s, p->slots, i, &page, &chunk) == GK_OK) {
        row->free_head_page = page;
        row->free_head_chunk = chunk;
    }
}

/* Class i's row: its memory and the items in its LRU. */
static void _classRow(const mcCache *k, uint32_t i, gkMcClass *row) {
    _slabRow(&k->slabs, i, row);
    row->items = k->sizes[i];
    row->requested = k->sizes_bytes[i];
    row->evicted = k->itemstats[i].evicted;
    row->out_of_memory = k->itemstats[i].outofmemory;
}

/* The node-wide figures: sums over the classes. */
static void _totals(const mcCache *k, gkMcTotals *t) {
    memset(t, 0, sizeof(*t));
    t->classes = (uint32_t)k->slabs.power_largest;
    t->page_size = k->slabs.page_size;
    t->chunk_max = k->slabs.chunk_max;
    t->item_size_max = k->slabs.item_size_max;
    t->limit = k->slabs.mem_limit;
    t->total_malloced = k->slabs.mem_malloced;
    t->curr_items = k->curr_items;
    for (int i = MC_POWER_SMALLEST; i <= k->slabs.power_largest; i++) {
        const mcSlabClass *p = &k->slabs.cls[i];
        if (p->slabs) t->active_slabs++;
        t->requested += k->sizes_bytes[i];
        t->used_bytes += (uint64_t)(p->slabs * p->perslab - p->sl_curr) *
                         p->size;
        t->evictions += k->itemstats[i].evicted;
    }
}

/* Fills up to max class rows and the totals. GK_ENOTFOUND if node is not
 * a memcached-style node. */
int gkMemcachedClasses(gkWorld *w, int node, gkMcClass *rows, uint32_t max,
                       uint32_t *n, gkMcTotals *totals) {
    mcServer *s = mcServerOf(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such memcached node");
    const mcCache *k = &s->cache;
    uint32_t count = (uint32_t)k->slabs.power_largest;
    for (uint32_t i = 0; i < count && i < max; i++)
        _classRow(k, i + 1, &rows[i]);
    if (n) *n = count;
    if (totals) _totals(k, totals);
    return GK_OK;
}

/* Parses options and lays out the classes they give, on the stack: no
 * page and no hash table is allocated. */
int gkMemcachedLayout(const char *options, gkMcClass *rows, uint32_t max,
                      uint32_t *n, char *err, size_t cap) {
    mcSettings st;
    mcSlabConfig cfg;
    mcSlabs slabs;
    mcSettingsInit(&st);
    if (mcOptionsParse(&st, options, err, cap) != GK_OK) return GK_EINVAL;
    mcSlabConfigOf(&st, &cfg);
    slabsInit(&slabs, NULL, &cfg, NULL, 0);
    uint32_t count = (uint32_t)slabs.power_largest;
    for (uint32_t i = 0; i < count && i < max; i++)
        _slabRow(&slabs, i + 1, &rows[i]);
    if (n) *n = count;
    return GK_OK;
}

/* The slab class cls of node s, or NULL if there is none. */
static const mcSlabClass *_class(mcServer *s, uint32_t cls) {
    if (cls < MC_POWER_SMALLEST || (int)cls > s->cache.slabs.power_largest)
        return NULL;
    return &s->cache.slabs.cls[cls];
}

/* Bytes a chunk uses: 0 if free, else its header and what it holds. */
static uint32_t _chunkBytes(mcCache *k, char *chunk) {
    mcItem *it = (mcItem *)chunk;
    if (it->it_flags & MC_ITEM_SLABBED) return 0;
    if (it->it_flags & MC_ITEM_CHUNK)
        return MC_CHUNK_HDR + ((mcChunk *)chunk)->used;
    if (it->it_flags & MC_ITEM_CHUNKED)
        return (uint32_t)(MC_ITEM_HDR + it->nkey + 1 + MC_CHUNK_HDR +
                          ((it->it_flags & MC_ITEM_CFLAGS) ? 4 : 0) +
                          ((it->it_flags & MC_ITEM_CAS) ? 8 : 0));
    (void)k;
    return (uint32_t)itemNtotal(it);
}

/* used[i] = used chunks in page i of class cls. GK_EINVAL for a class the
 * node does not have. O(pages * perslab). */
int gkMemcachedPages(gkWorld *w, int node, uint32_t cls, uint32_t *used,
                     uint32_t max, uint32_t *n) {
    mcServer *s = mcServerOf(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such memcached node");
    const mcSlabClass *p = _class(s, cls);
    if (!p) return worldFail(w, GK_EINVAL, "no such slab class");
    for (uint32_t i = 0; i < p->slabs && i < max; i++) {
        uint32_t u = 0;
        for (uint32_t x = 0; x < p->perslab; x++)
            if (_chunkBytes(&s->cache, p->slab_list[i] +
                            (size_t)x * p->size)) u++;
        used[i] = u;
    }
    if (n) *n = p->slabs;
    return GK_OK;
}

/* bytes[i] = bytes used in chunk i of one page (0: free). */
int gkMemcachedChunks(gkWorld *w, int node, uint32_t cls, uint32_t page,
                      uint32_t *bytes, uint32_t max, uint32_t *n) {
    mcServer *s = mcServerOf(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such memcached node");
    const mcSlabClass *p = _class(s, cls);
    if (!p || page >= p->slabs)
        return worldFail(w, GK_EINVAL, "no such slab page");
    for (uint32_t x = 0; x < p->perslab && x < max; x++)
        bytes[x] = _chunkBytes(&s->cache, p->slab_list[page] +
                               (size_t)x * p->size);
    if (n) *n = p->perslab;
    return GK_OK;
}

/* The size and class of a would-be item, as a set would compute them. */
int gkMemcachedItemClass(gkWorld *w, int node, uint32_t nkey, uint32_t flags,
                         uint64_t vlen, uint32_t *cls, uint64_t *ntotal) {
    mcServer *s = mcServerOf(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such memcached node");
    if (vlen > (uint64_t)INT32_MAX - 2)
        return worldFail(w, GK_EINVAL, "value too long");
    size_t total = itemHeaderTotal(&s->cache, nkey, flags,
                                   (int32_t)vlen + 2);
    if (ntotal) *ntotal = total;
    if (cls) *cls = nkey > MC_KEY_MAX_LENGTH ? 0
                    : slabsClsid(&s->cache.slabs, total);
    return GK_OK;
}
