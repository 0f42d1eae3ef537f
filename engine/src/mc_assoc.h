/* mc_assoc.h -- the memcached node's hash table (assoc.c): key to item,
 * chained through each item's h_next. */
#ifndef GK_MC_ASSOC_H
#define GK_MC_ASSOC_H

#include <stdint.h>
#include <stddef.h>
#include "mem.h"

#define MC_HASHPOWER_DEFAULT 16

typedef struct mcItem mcItem;

typedef struct mcAssoc {
    gkMem *mem;
    mcItem **table;         /* 2^hashpower bucket heads */
    uint32_t hashpower;     /* log2 of the bucket count */
    uint64_t items;         /* items linked */
    uint64_t expansions;    /* times the table doubled */
    uint8_t seed[16];       /* hash key, from the world's PRNG */
} mcAssoc;

int assocInit(mcAssoc *a, gkMem *m, uint32_t hashpower,
              const uint8_t seed[16]);
void assocRelease(mcAssoc *a);
uint32_t assocHash(const mcAssoc *a, const char *key, size_t nkey);
mcItem *assocFind(const mcAssoc *a, const char *key, size_t nkey,
                  uint32_t hv);
void assocInsert(mcAssoc *a, mcItem *it, uint32_t hv);
void assocDelete(mcAssoc *a, const char *key, size_t nkey, uint32_t hv);

#endif
