/* rax.h -- a compressed radix tree of binary keys, in key order.
 *
 * Redis 7.0 keeps each stream as a radix tree ("rax") whose keys are the
 * 128-bit big-endian IDs of the first entry of each listpack node, and its
 * consumer groups, consumers and pending entries in more of them: a tree
 * whose keys share long prefixes (IDs written close in time) stores each
 * shared prefix once. This one is compressed as a Patricia tree is: every
 * node holds the bytes of the edge leading into it, so a chain of nodes
 * with a single child never exists -- such a chain is one node whose label
 * is the whole run. A node is a key when the bytes from the root to its
 * label's end are a key; then it carries the key's value.
 *
 * Iteration is in lexicographic (memcmp) order, which for big-endian IDs
 * is numeric order. An iterator is seeked (raxSeek: "^" first, "$" last,
 * "=", ">=", ">", "<=", "<") and then stepped with raxNext or raxPrev; the
 * first step after a seek returns the element the seek landed on, as in
 * Redis. Changing the tree invalidates its iterators: seek again. */
#ifndef GK_RAX_H
#define GK_RAX_H

#include <stddef.h>
#include <stdint.h>
#include "mem.h"
#include "rng.h"

typedef struct raxNode {
    unsigned char *label;       /* the edge's bytes from the parent */
    uint32_t len;               /* bytes in label (0 only for the root) */
    uint32_t numchildren;
    uint32_t iskey;             /* the path to here is a key */
    void *value;                /* the key's value when iskey */
    struct raxNode **children;  /* sorted by their label's first byte */
} raxNode;

typedef struct rax {
    gkMem *mem;
    raxNode *head;              /* the root: an empty label */
    uint64_t numele;            /* keys */
    uint64_t numnodes;          /* nodes, the root included */
} rax;

/* An iterator: the path from the root to the current node, and its key. */
#define RAX_ITER_STACK 64
typedef struct raxIterator {
    rax *rt;
    unsigned char *key;         /* the current key (key_len bytes) */
    size_t key_len, key_cap;
    void *data;                 /* the current key's value */
    raxNode **stack;            /* path: stack[0] is the root */
    uint32_t *idx;              /* idx[i]: child of stack[i] taken */
    size_t depth, stack_cap;    /* nodes on the path */
    int flags;                  /* RAX_ITER_* */
} raxIterator;

#define RAX_ITER_EOF (1 << 0)           /* nothing left that way */
#define RAX_ITER_JUST_SEEKED (1 << 1)   /* next step returns the seeked */

rax *raxNew(gkMem *m);
void raxFree(rax *rt);
void raxFreeWithCallback(rax *rt, void (*free_cb)(void *ctx, void *val),
                         void *ctx);
int raxInsert(rax *rt, const unsigned char *s, size_t len, void *data,
              void **old);
int raxTryInsert(rax *rt, const unsigned char *s, size_t len, void *data,
                 void **old);
int raxRemove(rax *rt, const unsigned char *s, size_t len, void **old);
int raxFind(rax *rt, const unsigned char *s, size_t len, void **value);
uint64_t raxSize(const rax *rt);
uint64_t raxNodesAsRedis(const rax *rt);

void raxStart(raxIterator *it, rax *rt);
int raxSeek(raxIterator *it, const char *op, const unsigned char *ele,
            size_t len);
int raxNext(raxIterator *it);
int raxPrev(raxIterator *it);
int raxEOF(const raxIterator *it);
void raxStop(raxIterator *it);
int raxRandomWalk(raxIterator *it, size_t steps, gkRng *rng);

#endif
