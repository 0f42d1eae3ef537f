/* mc_items.c -- see mc_items.h.
 *
 * The LRU here is memcached's "flat" LRU: one doubly linked list per slab
 * class, newest at the head, evictions from the tail. That is exactly what
 * memcached 1.6.18 runs with -o no_lru_maintainer. By default 1.6 splits
 * each class's LRU into HOT, WARM and COLD segments and lets a background
 * thread move items between them (and a crawler reap expired items, and an
 * automover shift pages between classes); those threads act on wall-clock
 * time, so this deterministic node leaves them out and behaves as the flat
 * mode does (see gkMemcachedNotes).
 *
 * Items are reference counted as in memcached: the hash table and LRU hold
 * one reference while an item is linked, and each command that looks an
 * item up holds another until it is done. A chunk goes back to its free
 * list only when the count drops to zero. */
#include <string.h>
#include "mc_items.h"

_Static_assert(sizeof(mcItem) <= MC_ITEM_HDR, "item header fits 48 bytes");
_Static_assert(sizeof(mcChunk) <= MC_CHUNK_HDR, "chunk header fits 48");
_Static_assert(offsetof(mcItem, it_flags) == offsetof(mcChunk, it_flags),
               "free lists read it_flags the same way for both");
_Static_assert(offsetof(mcItem, slabs_clsid) ==
               offsetof(mcChunk, slabs_clsid), "and slabs_clsid");

#define LRU_PULL_EVICT 1

/* Sets up an empty cache: the class ladder and the hash table. GK_ENOMEM
 * if the table cannot be allocated. */
int cacheInit(mcCache *c, gkMem *m, const mcSlabConfig *cfg,
              uint32_t hashpower, const uint8_t seed[16], gkTrace *t,
              uint16_t node) {
    memset(c, 0, sizeof(*c));
    c->mem = m;
    c->trace = t;
    c->node = node;
    c->use_cas = 1;
    c->evict_to_free = 1;
    slabsInit(&c->slabs, m, cfg, t, node);
    return assocInit(&c->assoc, m, hashpower, seed);
}

/* Frees the hash table, every page (and so every item), the histogram. */
void cacheRelease(mcCache *c) {
    assocRelease(&c->assoc);
    slabsRelease(&c->slabs);
    memFree(c->mem, c->sizes_hist);
    c->sizes_hist = NULL;
}

/* The next CAS unique (get_cas_id): 1, 2, 3, ... for the node's life. */
uint64_t cacheNextCas(mcCache *c) { return ++c->cas_id; }

/* Turns a protocol exptime into relative time, as memcached's realtime():
 * 0 stays 0 (never); up to 30 days counts from now; more is an absolute
 * Unix time, and one at or before the start becomes 1, already past. */
uint32_t cacheRealtime(const mcCache *c, int64_t exptime) {
    if (exptime == 0) return 0;
    if (exptime > MC_REALTIME_MAXDELTA) {
        if (exptime <= c->process_started) return 1;
        return (uint32_t)(exptime - c->process_started);
    }
    return (uint32_t)(exptime + c->current_time);
}

/* ---- Sizes. ---- */

/* ntotal for an item: header, key and its NUL, client flags when not 0,
 * value with CRLF (nbytes), and 8 bytes of CAS unless -C. */
size_t itemHeaderTotal(const mcCache *c, size_t nkey, uint32_t flags,
                       int32_t nbytes) {
    size_t n = MC_ITEM_HDR + nkey + 1 + (flags ? 4 : 0) + (size_t)nbytes;
    return n + (c->use_cas ? 8 : 0);
}

/* Whether an item this big can be stored at all (fits under -I). */
int itemSizeOk(const mcCache *c, size_t nkey, uint32_t flags,
               int32_t nbytes) {
    if (nbytes < 2) return 0;
    return slabsClsid(&c->slabs, itemHeaderTotal(c, nkey, flags, nbytes))
           != 0;
}

/* ---- -o track_sizes: a histogram of ntotal in 32-byte buckets. ---- */

/* Starts the histogram (item_stats_sizes_init). Items stored before it
 * are not counted: the histogram only trusts CAS uniques from now on, and
 * taking that boundary uses up one CAS unique, as in memcached. GK_ENOMEM
 * if it cannot be allocated. */
int itemSizesEnable(mcCache *c) {
    if (c->sizes_hist) return GK_OK;
    uint32_t buckets = c->slabs.item_size_max / 32 + 1;
    c->sizes_hist = memTryCalloc(c->mem, sizeof(uint32_t) * buckets);
    if (!c->sizes_hist) return GK_ENOMEM;
    c->sizes_buckets = buckets;
    c->sizes_cas_min = c->use_cas ? cacheNextCas(c) : 0;
    return GK_OK;
}

/* Stops and frees the -o track_sizes histogram. */
void itemSizesDisable(mcCache *c) {
    memFree(c->mem, c->sizes_hist);
    c->sizes_hist = NULL;
    c->sizes_buckets = 0;
}

/* Counts the item in (delta 1) or out (-1) of its 32-byte bucket. */
void itemSizesAdjust(mcCache *c, mcItem *it, int delta) {
    if (!c->sizes_hist || c->sizes_cas_min > itemGetCas(it)) return;
    size_t ntotal = itemNtotal(it);
    size_t bucket = ntotal / 32 + ((ntotal % 32) ? 1 : 0);
    if (bucket < c->sizes_buckets)
        c->sizes_hist[bucket] += (uint32_t)delta;
}

/* ---- Tracing where chunks are. ---- */

/* The class whose memory holds the item's header chunk. */
uint32_t itemChunkClass(mcItem *it) {
    if (!(it->it_flags & MC_ITEM_CHUNKED)) return it->slabs_clsid;
    mcChunk hdr;
    memcpy(&hdr, itemData(it), sizeof(hdr));
    return hdr.orig_clsid;
}

/* Emits a trace record of type for the item's header chunk: a=class,
 * b=page, c=chunk in the page, d=ntotal. Costs a page search, so it is
 * only done when that type is being recorded. */
static void _traceItem(mcCache *c, uint16_t type, mcItem *it) {
#ifndef GK_NO_TRACE
    if (!c->trace || !(c->trace->enabled & (1u << type))) return;
    uint32_t cls = itemChunkClass(it), page = 0, chunk = 0;
    slabsLocate(&c->slabs, it, cls, &page, &chunk);
    traceEmit(c->trace, type, c->node, cls, page, chunk, itemNtotal(it));
#else
    (void)c; (void)type; (void)it;
#endif
}

/* ---- The LRU lists. ---- */

/* Puts it at the head of its class's LRU and counts its bytes. */
static void _lruLink(mcCache *c, mcItem *it) {
    unsigned id = it->slabs_clsid;
    it->prev = NULL;
    it->next = c->heads[id];
    if (it->next) it->next->prev = it;
    c->heads[id] = it;
    if (!c->tails[id]) c->tails[id] = it;
    c->sizes[id]++;
    c->sizes_bytes[id] += itemNtotal(it);
}

/* Takes it out of its class's LRU. */
static void _lruUnlink(mcCache *c, mcItem *it) {
    unsigned id = it->slabs_clsid;
    if (c->heads[id] == it) c->heads[id] = it->next;
    if (c->tails[id] == it) c->tails[id] = it->prev;
    if (it->next) it->next->prev = it->prev;
    if (it->prev) it->prev->next = it->next;
    c->sizes[id]--;
    c->sizes_bytes[id] -= itemNtotal(it);
}

/* ---- Freeing. ---- */

/* The header chunk embedded after a large item's key: a copy of its
 * fields (it sits at an unaligned address, so it is only memcpy'd). */
static void _schunkRead(mcItem *it, mcChunk *out) {
    memcpy(out, itemData(it), sizeof(*out));
}

static void _schunkWrite(mcItem *it, const mcChunk *in) {
    memcpy(itemData(it), in, sizeof(*in));
}

/* The first piece of a large item's value, or NULL. */
mcChunk *itemFirstChunk(mcItem *it) {
    mcChunk hdr;
    _schunkRead(it, &hdr);
    return hdr.next;
}

/* Returns a large item's chunks to their free lists: the header to the
 * class its memory came from, then each piece in order (as memcached's
 * do_slabs_free_chunked), so the last piece ends up at the head of its
 * class's free list. */
static void _freeChunked(mcCache *c, mcItem *it) {
    mcChunk hdr;
    _schunkRead(it, &hdr);
    mcChunk *ch = hdr.next;
    slabsFree(&c->slabs, it, hdr.orig_clsid);
    while (ch) {
        mcChunk *next = ch->next;
        slabsFree(&c->slabs, ch, ch->slabs_clsid);
        ch = next;
    }
}

/* Gives an item's memory back (item_free). Its refcount is 0 and it is
 * not linked. */
static void _itemFree(mcCache *c, mcItem *it) {
    _traceItem(c, GK_TR_ITEM_FREE, it);
    if (it->it_flags & MC_ITEM_CHUNKED) _freeChunked(c, it);
    else slabsFree(&c->slabs, it, it->slabs_clsid);
}

/* Drops one reference; the last one frees the item. */
void itemRemove(mcCache *c, mcItem *it) {
    if (--it->refcount == 0) _itemFree(c, it);
}

/* ---- Flush and expiry. ---- */

/* Whether flush_all has invalidated this item (item_is_flushed): the
 * flush time has come and the item is older than it, or, within the same
 * second, its CAS is older than the flush. */
static int _itemIsFlushed(const mcCache *c, mcItem *it) {
    uint32_t oldest_live = c->oldest_live;
    uint64_t cas = itemGetCas(it);
    if (oldest_live == 0 || oldest_live > c->current_time) return 0;
    return it->time <= oldest_live ||
           (c->oldest_cas != 0 && cas != 0 && cas < c->oldest_cas);
}

/* ---- Link and unlink. ---- */

/* Puts a new item into the hash table and at the head of its class's LRU,
 * with a fresh CAS unique (do_item_link). The links take a reference. */
void itemLink(mcCache *c, mcItem *it, uint32_t hv) {
    it->it_flags |= MC_ITEM_LINKED;
    it->time = c->current_time;
    c->curr_bytes += itemNtotal(it);
    c->curr_items++;
    c->total_items++;
    itemSetCas(it, c->use_cas ? cacheNextCas(c) : 0);
    assocInsert(&c->assoc, it, hv);
    _lruLink(c, it);
    it->refcount++;
    itemSizesAdjust(c, it, 1);
    _traceItem(c, GK_TR_ITEM_STORE, it);
}

/* Takes a linked item out of the hash table and LRU and drops the links'
 * reference (do_item_unlink). Nothing if it is not linked. */
void itemUnlink(mcCache *c, mcItem *it, uint32_t hv) {
    if (!(it->it_flags & MC_ITEM_LINKED)) return;
    it->it_flags &= (uint16_t)~MC_ITEM_LINKED;
    c->curr_bytes -= itemNtotal(it);
    c->curr_items--;
    itemSizesAdjust(c, it, -1);
    assocDelete(&c->assoc, itemKey(it), it->nkey, hv);
    _lruUnlink(c, it);
    itemRemove(c, it);
}

/* Links new_it in old_it's place (do_item_replace). */
void itemReplace(mcCache *c, mcItem *old_it, mcItem *new_it, uint32_t hv) {
    itemUnlink(c, old_it, hv);
    itemLink(c, new_it, hv);
}

/* A hit moves the item to the LRU head, but at most once a minute per
 * item (do_item_update in flat mode), which keeps hot items from
 * rewriting the list on every request. */
void itemUpdate(mcCache *c, mcItem *it) {
    if (it->time >= c->current_time - MC_ITEM_UPDATE_INTERVAL) return;
    if (!(it->it_flags & MC_ITEM_LINKED)) return;
    it->time = c->current_time;
    _lruUnlink(c, it);
    _lruLink(c, it);
}

/* Marks a fetched item and updates its LRU position (do_item_bump). */
void itemBump(mcCache *c, mcItem *it) {
    it->it_flags |= MC_ITEM_FETCHED;
    itemUpdate(c, it);
}

/* ---- Lookups. ---- */

/* Finds a live item and takes a reference to it (do_item_get). An item
 * that flush_all invalidated or whose time has passed is unlinked on the
 * spot and counted (get_flushed, get_expired): expiry in memcached is
 * lazy. do_update bumps it as a hit. Release with itemRemove. */
mcItem *itemGet(mcCache *c, const char *key, size_t nkey, uint32_t hv,
                int do_update) {
    mcItem *it = assocFind(&c->assoc, key, nkey, hv);
    if (!it) return NULL;
    it->refcount++;
    if (_itemIsFlushed(c, it)) {
        itemUnlink(c, it, hv);
        itemRemove(c, it);
        c->ts.get_flushed++;
        return NULL;
    }
    if (it->exptime != 0 && it->exptime <= c->current_time) {
        itemUnlink(c, it, hv);
        itemRemove(c, it);
        c->ts.get_expired++;
        return NULL;
    }
    if (do_update) itemBump(c, it);
    return it;
}

/* itemGet with a bump, then a new expiry (do_item_touch). */
mcItem *itemTouch(mcCache *c, const char *key, size_t nkey, uint32_t hv,
                  uint32_t exptime) {
    mcItem *it = itemGet(c, key, nkey, hv, 1);
    if (it) it->exptime = exptime;
    return it;
}

/* ---- Making room: the tail of the LRU. ---- */

/* Counts and performs an eviction of the tail item search. */
static void _evict(mcCache *c, unsigned id, mcItem *search, uint32_t hv) {
    mcItemStats *st = &c->itemstats[id];
    st->evicted++;
    st->evicted_time = c->current_time - search->time;
    if (search->exptime != 0) st->evicted_nonzero++;
    if (!(search->it_flags & MC_ITEM_FETCHED)) st->evicted_unfetched++;
    if (search->it_flags & MC_ITEM_ACTIVE) st->evicted_active++;
    _traceItem(c, GK_TR_ITEM_EVICT, search);
    itemUnlink(c, search, hv);
}

/* Looks at up to 5 items from the tail of class id's LRU (lru_pull_tail
 * for the flat LRU): expired or flushed ones are reclaimed and the walk
 * goes on; the first live one stops it, and is evicted if flags has
 * LRU_PULL_EVICT (and -M is not set). An item whose key the running
 * command holds locked (append, prepend and incr lock their key while
 * they allocate) is skipped, as memcached's item_trylock skips it; keys
 * that merely share the lock's stripe in memcached are not. Returns how
 * many items went. */
static int _lruPullTail(mcCache *c, unsigned id, int flags) {
    int removed = 0, tries = 5;
    mcItem *search = c->tails[id], *it = NULL;
    for (; tries > 0 && search; tries--) {
        mcItem *next_it = search->prev;
        uint32_t hv = assocHash(&c->assoc, itemKey(search), search->nkey);
        if (c->locked && hv == c->locked_hv) {
            search = next_it;   /* item_trylock fails: skip it */
            continue;
        }
        if (++search->refcount != 2) c->itemstats[id].lrutail_reflocked++;
        if ((search->exptime != 0 && search->exptime < c->current_time) ||
            _itemIsFlushed(c, search)) {
            c->itemstats[id].reclaimed++;
            if (!(search->it_flags & MC_ITEM_FETCHED))
                c->itemstats[id].expired_unfetched++;
            itemUnlink(c, search, hv);
            itemRemove(c, search);
            removed++;
            search = next_it;
            continue;
        }
        it = search;
        if ((flags & LRU_PULL_EVICT) && c->evict_to_free) {
            _evict(c, id, search, hv);
            removed++;
        }
        break;
    }
    if (it) itemRemove(c, it);
    return removed;
}

/* Gets a chunk of class id, reclaiming and evicting from that class's LRU
 * tail when it has none (do_item_alloc_pull): up to 10 rounds of "reclaim
 * expired items at the tail, try the allocator, evict the tail". NULL if
 * nothing could be freed. */
static mcItem *_allocPull(mcCache *c, size_t ntotal, unsigned id) {
    mcItem *it = NULL;
    int i;
    for (i = 0; i < 10; i++) {
        _lruPullTail(c, id, 0);
        it = slabsAlloc(&c->slabs, ntotal, id, 0);
        if (it) break;
        if (_lruPullTail(c, id, LRU_PULL_EVICT) <= 0) break;
    }
    if (i > 0) c->itemstats[id].direct_reclaims += (uint64_t)i;
    return it;
}

/* ---- Allocation. ---- */

/* Sets up the header of a freshly allocated item. */
static void _itemInit(mcCache *c, mcItem *it, unsigned id, const char *key,
                      size_t nkey, uint32_t flags, uint32_t exptime,
                      int32_t nbytes) {
    it->next = it->prev = it->h_next = NULL;
    it->slabs_clsid = (uint8_t)id;
    it->it_flags |= (uint16_t)((c->use_cas ? MC_ITEM_CAS : 0) |
                               (flags ? MC_ITEM_CFLAGS : 0));
    it->nkey = (uint8_t)nkey;
    it->nbytes = nbytes;
    it->exptime = exptime;
    it->time = 0;
    itemSetCas(it, 0);
    memcpy(itemKey(it), key, nkey);
    itemKey(it)[nkey] = '\0';
    if (flags) memcpy(itemSuffix(it), &flags, 4);
}

/* Whether a large item can be stored in chunks at all: its header of
 * htotal bytes fits the chunks of class hdr_id, and a value chunk has room
 * for data after its own header. A tiny -o slab_chunk_max (memcached
 * accepts 16) leaves neither. */
static int _chunkedFits(const mcCache *c, size_t htotal, unsigned hdr_id) {
    return hdr_id != 0 && htotal <= c->slabs.cls[hdr_id].size &&
           c->slabs.chunk_max > MC_CHUNK_HDR;
}

/* Allocates an unlinked item for key with room for nbytes of value
 * (do_item_alloc); the caller fills the value and links it. An item larger
 * than slab_chunk_max gets only its header here, from the class that fits
 * the header; its value chunks come from itemAllocChunk as the value
 * arrives. Returns NULL if it is too large (see itemSizeOk) or no memory
 * can be freed; the latter counts as outofmemory. The item has one
 * reference, the caller's. */
mcItem *itemAlloc(mcCache *c, const char *key, size_t nkey, uint32_t flags,
                  uint32_t exptime, int32_t nbytes) {
    if (nbytes < 2) return NULL;
    size_t ntotal = itemHeaderTotal(c, nkey, flags, nbytes);
    unsigned id = slabsClsid(&c->slabs, ntotal), hdr_id = 0;
    if (id == 0) return NULL;
    mcItem *it;
    if (ntotal > c->slabs.chunk_max) {
        size_t htotal = nkey + 1 + (flags ? 4 : 0) + MC_ITEM_HDR +
                        MC_CHUNK_HDR + (c->use_cas ? 8 : 0);
        hdr_id = slabsClsid(&c->slabs, htotal);
        /* memcached takes the largest class even when the header does not
         * fit its chunks, and writes past the chunk; refuse instead. */
        if (!_chunkedFits(c, htotal, hdr_id)) {
            c->itemstats[id].outofmemory++;
            return NULL;
        }
        it = _allocPull(c, htotal, hdr_id);
        if (it) it->it_flags |= MC_ITEM_CHUNKED;
    } else {
        it = _allocPull(c, ntotal, id);
    }
    if (!it) {
        c->itemstats[id].outofmemory++;
        return NULL;
    }
    _itemInit(c, it, id, key, nkey, flags, exptime, nbytes);
    if (it->it_flags & MC_ITEM_CHUNKED) {
        mcChunk hdr;
        memset(&hdr, 0, sizeof(hdr));
        hdr.head = it;
        hdr.orig_clsid = (uint8_t)hdr_id;
        _schunkWrite(it, &hdr);
    }
    return it;
}

/* Chains one more value chunk after ch (NULL: the header's own embedded
 * chunk) of the large item it (do_item_alloc_chunk). It is sized for the
 * bytes still to come plus its header, capped at slab_chunk_max; if that
 * smaller class has no memory, one more try takes a full-size chunk.
 * NULL if neither can be had. */
mcChunk *itemAllocChunk(mcCache *c, mcItem *it, mcChunk *ch,
                        size_t bytes_remain) {
    size_t size = bytes_remain + MC_CHUNK_HDR;
    if (size > c->slabs.chunk_max) size = c->slabs.chunk_max;
    unsigned id = slabsClsid(&c->slabs, size);
    mcChunk *nch = (mcChunk *)_allocPull(c, size, id);
    if (!nch) {
        if (size == c->slabs.chunk_max) return NULL;
        size = c->slabs.chunk_max;
        id = slabsClsid(&c->slabs, size);
        nch = (mcChunk *)_allocPull(c, size, id);
        if (!nch) return NULL;
    }
    nch->head = it;
    nch->prev = ch;
    nch->next = NULL;
    nch->used = 0;
    nch->slabs_clsid = (uint8_t)id;
    nch->size = (uint32_t)(size - MC_CHUNK_HDR);
    nch->it_flags |= MC_ITEM_CHUNK;
    if (ch) {
        ch->next = nch;
    } else {
        mcChunk hdr;
        _schunkRead(it, &hdr);
        hdr.next = nch;
        _schunkWrite(it, &hdr);
    }
    return nch;
}

/* Copies a whole value, CRLF included (it->nbytes bytes), into dst. */
size_t itemValueCopy(mcItem *it, char *dst) {
    if (!(it->it_flags & MC_ITEM_CHUNKED)) {
        memcpy(dst, itemData(it), (size_t)it->nbytes);
        return (size_t)it->nbytes;
    }
    size_t n = 0;
    for (mcChunk *ch = itemFirstChunk(it); ch; ch = ch->next) {
        memcpy(dst + n, chunkData(ch), ch->used);
        n += ch->used;
    }
    return n;
}

/* ---- Filling large items. A cursor of NULL is the header's embedded
 * chunk, which holds no bytes: size 0, used 0. ---- */

static uint32_t _chSize(mcChunk *ch) { return ch ? ch->size : 0; }
static uint32_t _chUsed(mcChunk *ch) { return ch ? ch->used : 0; }

static mcChunk *_chNext(mcItem *it, mcChunk *ch) {
    return ch ? ch->next : itemFirstChunk(it);
}

/* Moves a destination cursor past full chunks, to the first with room or
 * to the last one. */
static mcChunk *_chFirstRoom(mcItem *it) {
    mcChunk *dch = NULL, *next;
    while (_chSize(dch) == _chUsed(dch) && (next = _chNext(it, dch)))
        dch = next;
    return dch;
}

/* Appends len bytes of src's value (a large item) to dst's chunks. */
static int _copyFromChunked(mcCache *c, mcItem *dst, mcChunk *dch,
                            mcItem *src, int len) {
    int remain = len, copied = 0, s_emb = 1;
    mcChunk *sch = NULL;
    while ((s_emb || sch) && remain) {
        int room = (int)(_chSize(dch) - _chUsed(dch));
        int left = (int)_chUsed(sch) - copied;
        int todo = room < left ? room : left;
        if (remain < todo) todo = remain;
        if (todo > 0) {
            memcpy(chunkData(dch) + dch->used, chunkData(sch) + copied,
                   (size_t)todo);
            dch->used += (uint32_t)todo;
        }
        copied += todo;
        remain -= todo;
        if (_chSize(dch) == _chUsed(dch)) {
            dch = itemAllocChunk(c, dst, dch, (size_t)remain);
            if (!dch) return -1;
        }
        if (copied == (int)_chUsed(sch)) {
            copied = 0;
            sch = s_emb ? itemFirstChunk(src) : sch->next;
            s_emb = 0;
        }
    }
    return 0;
}

/* Appends len bytes of src's value (an ordinary item) to dst's chunks. */
static int _copyFromPlain(mcCache *c, mcItem *dst, mcChunk *dch,
                          mcItem *src, int len) {
    int done = 0;
    while (len > done) {
        int room = (int)(_chSize(dch) - _chUsed(dch));
        int todo = room < len - done ? room : len - done;
        if (todo > 0) {
            memcpy(chunkData(dch) + dch->used, itemData(src) + done,
                   (size_t)todo);
            dch->used += (uint32_t)todo;
        }
        done += todo;
        if (_chSize(dch) == _chUsed(dch)) {
            dch = itemAllocChunk(c, dst, dch, (size_t)(len - done));
            if (!dch) return -1;
        }
    }
    return 0;
}

/* Appends the first len bytes of src's value to the large item dst, for
 * append and prepend (_store_item_copy_chunks). As in memcached, a chunk
 * filled exactly is followed at once by a new one sized for what is left,
 * even when nothing is left. -1 if a chunk cannot be had. */
int itemCopyChunks(mcCache *c, mcItem *dst, mcItem *src, int len) {
    mcChunk *dch = _chFirstRoom(dst);
    if (src->it_flags & MC_ITEM_CHUNKED)
        return _copyFromChunked(c, dst, dch, src, len);
    return _copyFromPlain(c, dst, dch, src, len);
}

/* Writes up to n bytes of src into the large item it at *cur, while the
 * value still expects *remain bytes (read_into_chunked_item): whenever the
 * current chunk is full and more bytes are expected, the next chunk is
 * allocated at once, before the bytes arrive. Returns the bytes consumed,
 * or -1 if a chunk cannot be had. */
long itemFillChunks(mcCache *c, mcItem *it, mcChunk **cur,
                    const char *src, size_t n, size_t *remain) {
    size_t used = 0;
    while (*remain > 0) {
        mcChunk *ch = *cur;
        if (_chSize(ch) == _chUsed(ch)) {
            mcChunk *next = itemAllocChunk(c, it, ch, *remain);
            if (!next) return -1;
            *cur = next;
            continue;
        }
        if (used == n) break;
        size_t room = ch->size - ch->used, todo = n - used;
        if (todo > *remain) todo = *remain;
        if (todo > room) todo = room;
        memcpy(chunkData(ch) + ch->used, src + used, todo);
        ch->used += (uint32_t)todo;
        used += todo;
        *remain -= todo;
    }
    return (long)used;
}

/* The last two bytes of the value, which must be "\r\n". In a large item
 * they may straddle the last two chunks. */
void itemValueTail(mcItem *it, char out[2]) {
    if (!(it->it_flags & MC_ITEM_CHUNKED)) {
        memcpy(out, itemData(it) + it->nbytes - 2, 2);
        return;
    }
    mcChunk *prev = NULL, *last = NULL;
    for (mcChunk *ch = itemFirstChunk(it); ch; ch = ch->next)
        if (ch->used) { prev = last; last = ch; }
    out[0] = out[1] = 0;
    if (!last) return;
    out[1] = chunkData(last)[last->used - 1];
    if (last->used > 1) out[0] = chunkData(last)[last->used - 2];
    else if (prev) out[0] = chunkData(prev)[prev->used - 1];
}
