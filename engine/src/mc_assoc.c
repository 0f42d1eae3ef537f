/* mc_assoc.c -- see mc_assoc.h.
 *
 * memcached keeps a table of 2^16 buckets at start and doubles it when it
 * holds more than 1.5 items per bucket, moving the items over in a
 * background thread. Here the doubling happens at once, inside the insert
 * that crosses the threshold: nothing outside can see the difference but
 * `stats`' hash_is_expanding, which this node never reports as 1. The hash
 * function is SipHash keyed from the world's seed rather than murmur3;
 * bucket positions are not observable through the protocol. */
#include <string.h>
#include "mc_assoc.h"
#include "mc_items.h"
#include "siphash.h"

/* Allocates 2^hashpower empty buckets. GK_ENOMEM if the allocator
 * refuses. */
int assocInit(mcAssoc *a, gkMem *m, uint32_t hashpower,
              const uint8_t seed[16]) {
    memset(a, 0, sizeof(*a));
    a->mem = m;
    a->hashpower = hashpower;
    memcpy(a->seed, seed, 16);
    if (hashpower > 30) return GK_ENOMEM;
    a->table = memTryCalloc(m, sizeof(mcItem *) * ((size_t)1 << hashpower));
    return a->table ? GK_OK : GK_ENOMEM;
}

/* Frees the buckets (the items live in slab pages). */
void assocRelease(mcAssoc *a) {
    memFree(a->mem, a->table);
    a->table = NULL;
}

/* The hash of a key: picks its bucket, and names it in the LRU walk. */
uint32_t assocHash(const mcAssoc *a, const char *key, size_t nkey) {
    return (uint32_t)siphash((const uint8_t *)key, nkey, a->seed);
}

static size_t _bucket(const mcAssoc *a, uint32_t hv) {
    return hv & (((size_t)1 << a->hashpower) - 1);
}

/* The linked item with this key, or NULL. hv is assocHash(key). */
mcItem *assocFind(const mcAssoc *a, const char *key, size_t nkey,
                  uint32_t hv) {
    for (mcItem *it = a->table[_bucket(a, hv)]; it; it = it->h_next)
        if (it->nkey == nkey && memcmp(itemKey(it), key, nkey) == 0)
            return it;
    return NULL;
}

/* Doubles the table and rehashes every item into it. Keeps the old table
 * if the allocator refuses: lookups stay correct, only chains grow. */
static void _expand(mcAssoc *a) {
    size_t old = (size_t)1 << a->hashpower;
    mcItem **t = memTryCalloc(a->mem, sizeof(mcItem *) * old * 2);
    if (!t) return;
    mcItem **prev = a->table;
    a->table = t;
    a->hashpower++;
    for (size_t i = 0; i < old; i++) {
        mcItem *it = prev[i];
        while (it) {
            mcItem *next = it->h_next;
            size_t b = _bucket(a, assocHash(a, itemKey(it), it->nkey));
            it->h_next = t[b];
            t[b] = it;
            it = next;
        }
    }
    memFree(a->mem, prev);
    a->expansions++;
}

/* Adds an item that is not in the table yet. */
void assocInsert(mcAssoc *a, mcItem *it, uint32_t hv) {
    size_t b = _bucket(a, hv);
    it->h_next = a->table[b];
    a->table[b] = it;
    a->items++;
    if (a->hashpower < 30 &&
        a->items > (((uint64_t)1 << a->hashpower) * 3) / 2)
        _expand(a);
}

/* Removes the item with this key; nothing if there is none. */
void assocDelete(mcAssoc *a, const char *key, size_t nkey, uint32_t hv) {
    mcItem **pos = &a->table[_bucket(a, hv)];
    while (*pos) {
        mcItem *it = *pos;
        if (it->nkey == nkey && memcmp(itemKey(it), key, nkey) == 0) {
            *pos = it->h_next;
            it->h_next = NULL;
            a->items--;
            return;
        }
        pos = &it->h_next;
    }
}
