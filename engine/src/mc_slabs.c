/* mc_slabs.c -- memcached 1.6.18's slab allocator, as slabs.c does it.
 *
 * How memcached sizes its memory
 * ------------------------------
 * memcached never calls malloc for an item. At start-up it draws a ladder
 * of "slab classes", each a fixed chunk size, and every item is stored in
 * one chunk of the smallest class it fits in.
 *
 * The ladder. The first class is sizeof(item) + chunk_size (-n), that is
 * 48 + 48 = 96 bytes by default: room for the 48-byte item header plus a
 * modest key and value. Each further class is the previous size times the
 * growth factor (-f, 1.25 by default), with two details that show up in
 * the numbers: the multiplication truncates to an integer (the size is an
 * unsigned int and `size *= factor` drops the fraction), and every size is
 * then rounded up to a multiple of 8 (CHUNK_ALIGN_BYTES) so that items stay
 * aligned. 96 * 1.25 = 120; 120 * 1.25 = 150, rounded to 152; 152 * 1.25 =
 * 190 -> 192; ... The ladder stops as soon as the next size would reach
 * slab_chunk_max / factor (524288 / 1.25 = 419430.4 by default), and one
 * last class of exactly slab_chunk_max (512 KB) is added on top. With the
 * defaults that gives 39 classes, 96 bytes to 524288 bytes.
 *
 * perslab. Memory is handed to a class one page at a time, and a page is
 * 1 MB (slab_page_size). A page is cut into perslab = 1048576 / size
 * chunks; whatever is left at the end of the page (1048576 - perslab *
 * size) is never used. Class 1 fits 10922 chunks of 96 bytes and wastes
 * 64 bytes; class 38 (394840 bytes) fits only 2 and wastes 258896 bytes,
 * a quarter of its page.
 *
 * The waste you pay. An item of ntotal bytes lands in the first class
 * whose size is >= ntotal, so up to (factor - 1) of every chunk can be
 * padding: a 121-byte item takes a 152-byte chunk. A smaller factor
 * wastes less per chunk but needs more classes, and memory is split
 * between more classes that each hold whole pages.
 *
 * Pages on demand. A class starts with no page. The first store into it
 * asks for one (do_slabs_newslab): the page is taken from the global pool
 * of free pages if there is one, otherwise allocated, as long as the
 * memory limit (-m) allows it. The limit check has a twist: a class that
 * has no page yet always gets its first page, even past -m, so that no
 * item size is ever refused outright. The new page is zeroed and split
 * into its chunks, each pushed onto the head of the class's free list;
 * the last chunk of the page ends up at the head, so chunks are handed
 * out from the end of the page backwards, and a freed chunk is reused
 * first (LIFO). The class remembers its pages in slab_list, an array that
 * starts with room for 16 and doubles when full.
 *
 * When a class has no free chunk and cannot get a page, the item layer
 * evicts from the tail of that class's LRU (see mc_items.c). Memory that
 * sits free in other classes does not help: pages stay where they were
 * first assigned. memcached 1.6 moves pages between classes in a
 * background thread (the slab automover); this node does not (see
 * gkMemcachedNotes), so a workload whose sizes drift shows slab
 * calcification: evictions in one class while others hold free chunks. */
#include <string.h>
#include "mc_slabs.h"
#include "mc_items.h"

/* Cuts the ladder of class sizes into s->cls and sets power_largest, as
 * slabs_init does. */
static void _slabsLadder(mcSlabs *s, const mcSlabConfig *cfg) {
    int i = MC_POWER_SMALLEST - 1;
    /* sizeof(item) + chunk_size, in memcached's unsigned arithmetic */
    uint32_t size = (uint32_t)MC_ITEM_HDR + (uint32_t)cfg->chunk_size;
    while (++i < MC_MAX_CLASSES - 1) {
        if (cfg->sizes) {
            if (cfg->sizes[i - 1] == 0) break;
            size = cfg->sizes[i - 1];
        } else if ((double)size >= (double)cfg->chunk_max / cfg->factor) {
            break;
        }
        if (size % MC_CHUNK_ALIGN)
            size += MC_CHUNK_ALIGN - (size % MC_CHUNK_ALIGN);
        s->cls[i].size = size;
        s->cls[i].perslab = cfg->page_size / size;
        if (!cfg->sizes) size = (uint32_t)((double)size * cfg->factor);
    }
    s->power_largest = i;
    s->cls[i].size = (uint32_t)cfg->chunk_max;
    s->cls[i].perslab = cfg->page_size / (uint32_t)cfg->chunk_max;
}

/* Lays out the classes from cfg; no page is taken yet. The caller has
 * validated cfg as memcached's option checks do (chunk_max > 0 and
 * dividing the page). Always GK_OK. */
int slabsInit(mcSlabs *s, gkMem *m, const mcSlabConfig *cfg, gkTrace *t,
              uint16_t node) {
    memset(s, 0, sizeof(*s));
    s->mem = m;
    s->mem_limit = cfg->limit;
    s->page_size = cfg->page_size;
    s->chunk_max = (uint32_t)cfg->chunk_max;
    s->item_size_max = (uint32_t)cfg->item_size_max;
    s->slab_reassign = cfg->slab_reassign;
    s->trace = t;
    s->node = node;
    _slabsLadder(s, cfg);
    return GK_OK;
}

/* Frees every page and page list. */
void slabsRelease(mcSlabs *s) {
    for (int i = 0; i < MC_MAX_CLASSES; i++) {
        mcSlabClass *p = &s->cls[i];
        for (uint32_t j = 0; j < p->slabs; j++)
            memFree(s->mem, p->slab_list[j]);
        memFree(s->mem, p->slab_list);
        p->slab_list = NULL;
        p->slabs = p->list_size = 0;
    }
}

/* The class an object of size bytes goes to: 0 if it is empty or larger
 * than -I allows, the largest class if it is larger than every chunk (a
 * chunked item's LRU class). */
unsigned int slabsClsid(const mcSlabs *s, size_t size) {
    int res = MC_POWER_SMALLEST;
    if (size == 0 || size > s->item_size_max) return 0;
    while (size > s->cls[res].size)
        if (res++ == s->power_largest) return (unsigned)s->power_largest;
    return (unsigned)res;
}

/* Makes room for one more page pointer: 16 at first, then doubling.
 * Returns 0 if the allocator refuses. */
static int _growSlabList(mcSlabs *s, unsigned int id) {
    mcSlabClass *p = &s->cls[id];
    if (p->slabs < p->list_size) return 1;
    uint32_t n = p->list_size ? p->list_size * 2 : 16;
    char **l = memTryRealloc(s->mem, p->slab_list, sizeof(char *) * n);
    if (!l) return 0;
    p->slab_list = l;
    p->list_size = n;
    return 1;
}

/* Pushes a chunk onto the head of class id's free list (do_slabs_free for
 * an ordinary chunk). */
static void _pushFree(mcSlabs *s, void *ptr, unsigned int id) {
    mcSlabClass *p = &s->cls[id];
    mcItem *it = ptr;
    it->it_flags = MC_ITEM_SLABBED;
    it->slabs_clsid = (uint8_t)id;
    it->prev = NULL;
    it->next = p->slots;
    if (it->next) it->next->prev = it;
    p->slots = it;
    p->sl_curr++;
}

/* Takes a page from the global pool (class 0), newest first; NULL if the
 * pool is empty. Nothing puts pages there yet: memcached fills it when the
 * automover frees a page. */
static char *_pageFromGlobalPool(mcSlabs *s) {
    mcSlabClass *g = &s->cls[MC_GLOBAL_PAGE_POOL];
    if (g->slabs < 1) return NULL;
    return g->slab_list[--g->slabs];
}

/* Bytes in a page of class id: the page size, except that without slab
 * reassignment and chunked items (-o no_modern) memcached cuts each page
 * to exactly perslab chunks. */
uint32_t slabsPageLen(const mcSlabs *s, unsigned int id) {
    const mcSlabClass *p = &s->cls[id];
    if (s->slab_reassign || s->chunk_max != s->page_size) return s->page_size;
    return p->size * p->perslab;
}

/* Gives class id one more page, split into free chunks (do_slabs_newslab).
 * Returns 0, changing nothing, when the limit refuses: over -m, the class
 * already has a page and the global pool is empty. */
static int _newSlab(mcSlabs *s, unsigned int id) {
    mcSlabClass *p = &s->cls[id];
    mcSlabClass *g = &s->cls[MC_GLOBAL_PAGE_POOL];
    uint32_t len = slabsPageLen(s, id);
    if (s->mem_limit && s->mem_malloced + len > s->mem_limit &&
        p->slabs > 0 && g->slabs == 0) {
        s->mem_limit_reached = 1;
        return 0;
    }
    if (!_growSlabList(s, id)) return 0;
    char *ptr = _pageFromGlobalPool(s);
    if (!ptr) {
        ptr = memTryAlloc(s->mem, len);
        if (!ptr) return 0;
        s->mem_malloced += len;
    }
    memset(ptr, 0, len);
    for (uint32_t x = 0; x < p->perslab; x++)
        _pushFree(s, ptr + (size_t)x * p->size, id);
    p->slab_list[p->slabs++] = ptr;
    TRACE(s->trace, GK_TR_SLAB_PAGE, s->node, id, p->slabs - 1, p->perslab,
          s->mem_malloced);
    return 1;
}

/* Takes a chunk of class id for an object of size bytes: the free-list
 * head, after taking a new page if the list is empty (unless flags says
 * not to). The chunk comes back with refcount 1 and no flags; NULL when
 * the class has no free chunk and no page can be had. */
void *slabsAlloc(mcSlabs *s, size_t size, unsigned int id, unsigned flags) {
    (void)size;
    if (id < MC_POWER_SMALLEST || (int)id > s->power_largest) return NULL;
    mcSlabClass *p = &s->cls[id];
    if (p->sl_curr == 0 && flags != MC_SLABS_ALLOC_NO_NEWPAGE)
        _newSlab(s, id);
    if (p->sl_curr == 0) return NULL;
    mcItem *it = p->slots;
    p->slots = it->next;
    if (it->next) it->next->prev = NULL;
    it->it_flags &= (uint16_t)~MC_ITEM_SLABBED;
    it->refcount = 1;
    p->sl_curr--;
    return it;
}

/* Returns one chunk to the head of class id's free list. Large items free
 * their header and each piece with one call apiece (mc_items.c). */
void slabsFree(mcSlabs *s, void *ptr, unsigned int id) {
    if (id < MC_POWER_SMALLEST || (int)id > s->power_largest) return;
    _pushFree(s, ptr, id);
}

/* Finds which page of class id holds ptr and which chunk of that page it
 * is. O(pages of the class). GK_ENOTFOUND if ptr is in none of them. */
int slabsLocate(const mcSlabs *s, const void *ptr, unsigned int id,
                uint32_t *page, uint32_t *chunk) {
    const mcSlabClass *p = &s->cls[id];
    const char *c = ptr;
    for (uint32_t i = 0; i < p->slabs; i++) {
        const char *base = p->slab_list[i];
        if (c >= base && c < base + (size_t)p->perslab * p->size) {
            *page = i;
            *chunk = (uint32_t)((size_t)(c - base) / p->size);
            return GK_OK;
        }
    }
    return GK_ENOTFOUND;
}
