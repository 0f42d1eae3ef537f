/* mc_items.h -- memcached 1.6.18's items (items.c, the item header of
 * memcached.h): how an item is laid out in its chunk, the per-class LRU,
 * lazy expiry, flush_all, and the counters `stats items` prints.
 *
 * An item occupies the start of a slab chunk:
 *
 *   [48-byte header][8-byte CAS, if CAS is on][key][\0]
 *   [4-byte client flags, if non-zero][value][\r\n]
 *
 * so it needs 48 + (8) + nkey + 1 + (4) + value + 2 bytes, the "ntotal"
 * that picks its slab class. The header struct below is smaller than 48
 * bytes (much smaller in 32-bit WebAssembly), but the data always starts 48
 * bytes in, so every size and every class is the one 64-bit memcached
 * computes. An item larger than slab_chunk_max is "chunked": its header
 * comes from the class that fits the header alone, and the value goes into
 * a chain of separate chunks (struct mcChunk) from the largest classes. */
#ifndef GK_MC_ITEMS_H
#define GK_MC_ITEMS_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "mem.h"
#include "trace.h"
#include "mc_slabs.h"
#include "mc_assoc.h"

#define MC_KEY_MAX_LENGTH 250
#define MC_ITEM_UPDATE_INTERVAL 60  /* a hit relinks at most once a minute */
#define MC_REALTIME_MAXDELTA (60 * 60 * 24 * 30)

/* it_flags, as memcached.h numbers them. */
#define MC_ITEM_LINKED 1
#define MC_ITEM_CAS 2
#define MC_ITEM_SLABBED 4       /* the chunk is on a free list */
#define MC_ITEM_FETCHED 8
#define MC_ITEM_ACTIVE 16
#define MC_ITEM_CHUNKED 32      /* a large item's header */
#define MC_ITEM_CHUNK 64        /* a piece of a large item's value */
#define MC_ITEM_CFLAGS 256      /* client flags are stored */

/* The header at the start of a chunk that holds an item; free chunks use
 * next/prev/it_flags/slabs_clsid too, to sit on the free list. */
struct mcItem {
    struct mcItem *next;    /* toward the LRU tail, or the next free chunk */
    struct mcItem *prev;    /* toward the LRU head */
    struct mcItem *h_next;  /* next item in the same hash bucket */
    uint32_t time;          /* last access, in the node's relative seconds */
    uint32_t exptime;       /* expiry in relative seconds, 0 = never */
    int32_t nbytes;         /* value length + 2 for the trailing \r\n */
    uint16_t refcount;      /* 1 while linked, +1 per holder */
    uint16_t it_flags;      /* MC_ITEM_* */
    uint8_t slabs_clsid;    /* the class whose LRU it is in */
    uint8_t nkey;           /* key length */
};

/* The header of a chunk holding part of a large item's value. Its fields
 * up to it_flags and slabs_clsid line up with struct mcItem, so a free
 * list can hold both. */
typedef struct mcChunk {
    struct mcChunk *next;   /* next piece of the value */
    struct mcChunk *prev;   /* previous piece */
    mcItem *head;           /* the item this piece belongs to */
    uint32_t size;          /* payload bytes this chunk can hold */
    uint32_t used;          /* payload bytes written so far */
    int32_t nbytes;         /* unused, as in memcached */
    uint16_t refcount;      /* unused */
    uint16_t it_flags;      /* MC_ITEM_CHUNK, or SLABBED when free */
    uint8_t slabs_clsid;    /* the class whose memory this chunk is */
    uint8_t orig_clsid;     /* for a header: the class its memory is in */
} mcChunk;

/* Per-class counters shown by `stats items` and summed in `stats`. */
typedef struct mcItemStats {
    uint64_t evicted, evicted_nonzero, reclaimed, outofmemory, tailrepairs;
    uint64_t expired_unfetched, evicted_unfetched, evicted_active;
    uint64_t crawler_reclaimed, crawler_items_checked, lrutail_reflocked;
    uint64_t moves_to_cold, moves_to_warm, moves_within_lru, direct_reclaims;
    uint32_t evicted_time;  /* age of the last item evicted */
} mcItemStats;

/* Per-class command counters (memcached's slab_stats). */
typedef struct mcSlabStats {
    uint64_t set_cmds, get_hits, touch_hits, delete_hits;
    uint64_t cas_hits, cas_badval, incr_hits, decr_hits;
} mcSlabStats;

/* Node-wide command counters (memcached's thread_stats, summed). */
typedef struct mcThreadStats {
    uint64_t get_cmds, get_misses, get_expired, get_flushed;
    uint64_t touch_cmds, touch_misses, delete_misses;
    uint64_t incr_misses, decr_misses, cas_misses, flush_cmds, meta_cmds;
    uint64_t bytes_read, bytes_written, conn_yields;
    uint64_t store_too_large, store_no_memory, auth_cmds, auth_errors;
} mcThreadStats;

/* Everything about stored items: memory, index, LRUs, clock, counters. */
typedef struct mcCache {
    gkMem *mem;
    mcSlabs slabs;
    mcAssoc assoc;
    mcItem *heads[MC_MAX_CLASSES];  /* most recently used end */
    mcItem *tails[MC_MAX_CLASSES];  /* eviction end */
    uint32_t sizes[MC_MAX_CLASSES]; /* items in each LRU */
    uint64_t sizes_bytes[MC_MAX_CLASSES]; /* their ntotal: mem_requested */
    mcItemStats itemstats[MC_MAX_CLASSES];
    mcSlabStats slab_stats[MC_MAX_CLASSES];
    mcThreadStats ts;
    uint64_t cas_id;            /* last CAS unique handed out */
    uint32_t current_time;      /* memcached's clock, see mc_server.c */
    int64_t process_started;    /* Unix time of relative time 0 */
    int use_cas;                /* -C clears it */
    int evict_to_free;          /* -M clears it */
    uint32_t oldest_live;       /* flush_all: items older are gone */
    uint64_t oldest_cas;        /* flush_all: items with lower CAS gone */
    uint64_t curr_items, total_items, curr_bytes;
    int locked;                 /* a store holds the item lock of */
    uint32_t locked_hv;         /* this key hash: the LRU walk skips it */
    uint32_t *sizes_hist;       /* -o track_sizes: items per 32 bytes */
    uint32_t sizes_buckets;
    uint64_t sizes_cas_min;
    gkTrace *trace;
    uint16_t node;
} mcCache;

/* ---- Where the parts of an item are. ---- */
static inline char *itemKey(mcItem *it) {
    return (char *)it + MC_ITEM_HDR +
           ((it->it_flags & MC_ITEM_CAS) ? 8 : 0);
}
static inline char *itemSuffix(mcItem *it) {
    return itemKey(it) + it->nkey + 1;
}
static inline char *itemData(mcItem *it) {
    return itemSuffix(it) + ((it->it_flags & MC_ITEM_CFLAGS) ? 4 : 0);
}
static inline size_t itemNtotal(const mcItem *it) {
    return MC_ITEM_HDR + (size_t)it->nkey + 1 + (size_t)it->nbytes +
           ((it->it_flags & MC_ITEM_CFLAGS) ? 4 : 0) +
           ((it->it_flags & MC_ITEM_CAS) ? 8 : 0);
}
static inline uint64_t itemGetCas(mcItem *it) {
    uint64_t cas = 0;
    if (it->it_flags & MC_ITEM_CAS)
        memcpy(&cas, (char *)it + MC_ITEM_HDR, 8);
    return cas;
}
static inline void itemSetCas(mcItem *it, uint64_t cas) {
    if (it->it_flags & MC_ITEM_CAS)
        memcpy((char *)it + MC_ITEM_HDR, &cas, 8);
}
static inline uint32_t itemFlags(mcItem *it) {
    uint32_t f = 0;
    if (it->it_flags & MC_ITEM_CFLAGS) memcpy(&f, itemSuffix(it), 4);
    return f;
}
static inline char *chunkData(mcChunk *ch) {
    return (char *)ch + MC_CHUNK_HDR;
}

int cacheInit(mcCache *c, gkMem *m, const mcSlabConfig *cfg,
              uint32_t hashpower, const uint8_t seed[16], gkTrace *t,
              uint16_t node);
void cacheRelease(mcCache *c);
uint64_t cacheNextCas(mcCache *c);
uint32_t cacheRealtime(const mcCache *c, int64_t exptime);
int itemSizesEnable(mcCache *c);
void itemSizesDisable(mcCache *c);
void itemSizesAdjust(mcCache *c, mcItem *it, int delta);

size_t itemHeaderTotal(const mcCache *c, size_t nkey, uint32_t flags,
                       int32_t nbytes);
int itemSizeOk(const mcCache *c, size_t nkey, uint32_t flags,
               int32_t nbytes);
mcItem *itemAlloc(mcCache *c, const char *key, size_t nkey, uint32_t flags,
                  uint32_t exptime, int32_t nbytes);
mcChunk *itemAllocChunk(mcCache *c, mcItem *it, mcChunk *ch,
                        size_t bytes_remain);
mcChunk *itemFirstChunk(mcItem *it);
int itemCopyChunks(mcCache *c, mcItem *dst, mcItem *src, int len);
long itemFillChunks(mcCache *c, mcItem *it, mcChunk **cur,
                    const char *src, size_t n, size_t *remain);
void itemValueTail(mcItem *it, char out[2]);
void itemRemove(mcCache *c, mcItem *it);
void itemLink(mcCache *c, mcItem *it, uint32_t hv);
void itemUnlink(mcCache *c, mcItem *it, uint32_t hv);
void itemReplace(mcCache *c, mcItem *old_it, mcItem *new_it, uint32_t hv);
void itemUpdate(mcCache *c, mcItem *it);
void itemBump(mcCache *c, mcItem *it);
mcItem *itemGet(mcCache *c, const char *key, size_t nkey, uint32_t hv,
                int do_update);
mcItem *itemTouch(mcCache *c, const char *key, size_t nkey, uint32_t hv,
                  uint32_t exptime);
uint32_t itemChunkClass(mcItem *it);
size_t itemValueCopy(mcItem *it, char *dst);

#endif
