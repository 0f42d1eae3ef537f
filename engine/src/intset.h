/* intset.h -- Redis's intset: a sorted array of distinct integers.
 *
 * Redis 7.0 keeps a set whose members are all integers as an intset while it
 * has at most set-max-intset-entries (512) members. Every element has the
 * same width, the narrowest of 2, 4 or 8 bytes that holds the widest member;
 * adding a wider value upgrades the whole array in place. The header and the
 * elements are stored little-endian, so the blob is the same bytes Redis
 * writes into an RDB file. Lookups are binary searches. */
#ifndef GK_INTSET_H
#define GK_INTSET_H

#include <stddef.h>
#include <stdint.h>
#include "mem.h"

/* Element widths, stored in the encoding field: the width in bytes. */
#define INTSET_ENC_INT16 2
#define INTSET_ENC_INT32 4
#define INTSET_ENC_INT64 8

typedef struct intset {
    uint32_t encoding;  /* INTSET_ENC_*, little-endian */
    uint32_t length;    /* number of elements, little-endian */
    int8_t contents[];  /* length elements of encoding bytes each, sorted */
} intset;

intset *intsetCreate(gkMem *m);
intset *intsetAdd(gkMem *m, intset *is, int64_t value, int *added);
intset *intsetRemove(gkMem *m, intset *is, int64_t value, int *removed);
int intsetFind(const intset *is, int64_t value);
int intsetGet(const intset *is, uint32_t pos, int64_t *value);
int64_t intsetRandom(const intset *is, uint64_t rnd);
uint32_t intsetLen(const intset *is);
size_t intsetBlobLen(const intset *is);
void intsetRelease(gkMem *m, intset *is);
int intsetValidateIntegrity(const unsigned char *p, size_t size, int deep);

#endif
