/* mc_slabs.h -- memcached 1.6.18's slab allocator (slabs.c), for the
 * memcached-style node.
 *
 * Memory for items comes in pages of 1 MB. Each page belongs to one slab
 * class and is cut into chunks of that class's size; a chunk holds one item
 * (or one piece of a large item). Free chunks of a class sit on a LIFO free
 * list. See the long comment at the top of mc_slabs.c for how the class
 * sizes, perslab and page allocation work. */
#ifndef GK_MC_SLABS_H
#define GK_MC_SLABS_H

#include <stdint.h>
#include <stddef.h>
#include "mem.h"
#include "trace.h"

#define MC_POWER_SMALLEST 1
#define MC_MAX_CLASSES 64          /* MAX_NUMBER_OF_SLAB_CLASSES (63 + 1) */
#define MC_GLOBAL_PAGE_POOL 0      /* class 0 holds pages not in any class */
#define MC_CHUNK_ALIGN 8           /* CHUNK_ALIGN_BYTES */
#define MC_ITEM_HDR 48             /* sizeof(item) in 64-bit memcached */
#define MC_CHUNK_HDR 48            /* sizeof(item_chunk) */
#define MC_SLABS_ALLOC_NO_NEWPAGE 1

/* One slab class. */
typedef struct mcSlabClass {
    uint32_t size;          /* chunk size in bytes */
    uint32_t perslab;       /* chunks per page */
    void *slots;            /* free-list head (an mcItem), NULL if empty */
    uint32_t sl_curr;       /* chunks on the free list */
    uint32_t slabs;         /* pages this class holds */
    char **slab_list;       /* the pages, in the order they were taken */
    uint32_t list_size;     /* capacity of slab_list: 16, then doubling */
} mcSlabClass;

/* How the classes are laid out: the settings slabs_init reads. */
typedef struct mcSlabConfig {
    int32_t chunk_size;         /* -n: minimum key+value+flags space */
    double factor;              /* -f: growth factor between classes */
    uint32_t page_size;         /* slab_page_size, 1 MB */
    int32_t chunk_max;          /* -o slab_chunk_max */
    int32_t item_size_max;      /* -I */
    uint64_t limit;             /* -m in bytes */
    int slab_reassign;          /* pages are always page_size when set */
    const uint32_t *sizes;      /* -o slab_sizes list, 0-terminated, or
                                   NULL to grow by factor */
} mcSlabConfig;

/* The allocator of one node. */
typedef struct mcSlabs {
    gkMem *mem;                 /* where pages come from */
    mcSlabClass cls[MC_MAX_CLASSES];
    int power_largest;          /* id of the largest class */
    uint64_t mem_limit;         /* -m in bytes */
    uint64_t mem_malloced;      /* bytes of pages taken so far */
    int mem_limit_reached;      /* set the first time a page is refused */
    uint32_t page_size;
    uint32_t chunk_max;         /* size of the largest class */
    uint32_t item_size_max;     /* larger items are refused */
    int slab_reassign;
    gkTrace *trace;             /* where page allocations are recorded */
    uint16_t node;
} mcSlabs;

int slabsInit(mcSlabs *s, gkMem *m, const mcSlabConfig *cfg, gkTrace *t,
              uint16_t node);
void slabsRelease(mcSlabs *s);
unsigned int slabsClsid(const mcSlabs *s, size_t size);
void *slabsAlloc(mcSlabs *s, size_t size, unsigned int id, unsigned flags);
void slabsFree(mcSlabs *s, void *ptr, unsigned int id);
uint32_t slabsPageLen(const mcSlabs *s, unsigned int id);
int slabsLocate(const mcSlabs *s, const void *ptr, unsigned int id,
                uint32_t *page, uint32_t *chunk);

#endif
