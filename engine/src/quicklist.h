/* quicklist.h -- Redis 7.0's list encoding: a doubly linked list of
 * listpacks.
 *
 * A linked list of single elements costs two pointers and an allocation
 * per element; one big listpack makes every push in the middle a memmove
 * of the whole list. The quicklist is the compromise: a linked list of
 * nodes, each a listpack of a bounded size, so an insert moves at most
 * one node's bytes. The bound is list-max-listpack-size (the list's
 * "fill"): negative, a byte size class (-1: 4 KB, -2: 8 KB, the default,
 * -3: 16 KB, -4: 32 KB, -5: 64 KB); positive, a number of elements (with
 * an 8 KB safety limit on the bytes as well).
 *
 * An element of packed_threshold bytes or more (1 GB unless DEBUG
 * QUICKLIST-PACKED-THRESHOLD says otherwise) gets a node of its own, a
 * "plain" node holding its bytes as they are, with no listpack around
 * them.
 *
 * With list-compress-depth N > 0, every node but the N at each end is kept
 * LZF-compressed (lzf.h) while nobody uses it: the ends are where pushes
 * and pops happen, the middle of a long queue is rarely read. A node is
 * decompressed for the time an operation needs it and compressed again
 * afterwards. quicklist.c tells the rules in detail. */
#ifndef GK_QUICKLIST_H
#define GK_QUICKLIST_H

#include <stddef.h>
#include <stdint.h>
#include "mem.h"

/* Which end: quicklistPush, quicklistPop. */
#define QUICKLIST_HEAD 0
#define QUICKLIST_TAIL -1

/* A node's encoding: its bytes as they are, or LZF-compressed. */
#define QUICKLIST_NODE_ENCODING_RAW 1
#define QUICKLIST_NODE_ENCODING_LZF 2

/* A node's container: one element's bytes, or a listpack (these are the
 * numbers RDB_TYPE_LIST_QUICKLIST_2 files store). */
#define QUICKLIST_NODE_CONTAINER_PLAIN 1
#define QUICKLIST_NODE_CONTAINER_PACKED 2

/* Iteration directions. */
#define AL_START_HEAD 0         /* head to tail */
#define AL_START_TAIL 1         /* tail to head */

/* The ranges Redis clamps fill and compress depth to. */
#define QUICKLIST_FILL_MIN (-5)
#define QUICKLIST_FILL_MAX 32767
#define QUICKLIST_COMPRESS_MAX 65535
#define QUICKLIST_PACKED_THRESHOLD_DEFAULT ((size_t)1 << 30)

/* What every quicklist of a server shares: where memory comes from and
 * the plain-node threshold, which DEBUG changes for all lists at once. */
typedef struct quicklistEnv {
    gkMem *mem;                 /* nodes, listpacks, compressed data */
    size_t packed_threshold;    /* elements this long get a plain node */
} quicklistEnv;

typedef struct quicklistNode {
    struct quicklistNode *prev, *next;
    unsigned char *entry;       /* listpack, plain bytes, or quicklistLZF */
    size_t sz;                  /* bytes of entry when not compressed */
    unsigned int count : 16;    /* elements (1 for a plain node) */
    unsigned int encoding : 2;  /* QUICKLIST_NODE_ENCODING_* */
    unsigned int container : 2; /* QUICKLIST_NODE_CONTAINER_* */
    unsigned int recompress : 1;/* decompressed for a moment: compress it
                                   back when done */
    unsigned int attempted_compress : 1; /* compression was tried */
    unsigned int dont_compress : 1;      /* not now: it is being used */
} quicklistNode;

/* A compressed node's entry: the LZF stream and its length (the length
 * before compression is the node's sz). */
typedef struct quicklistLZF {
    size_t sz;                  /* bytes of compressed */
    unsigned char compressed[];
} quicklistLZF;

typedef struct quicklist {
    quicklistNode *head, *tail;
    unsigned long long count;   /* elements in all nodes */
    unsigned long long len;     /* nodes */
    int fill;                   /* list-max-listpack-size when created */
    unsigned int compress;      /* list-compress-depth when created */
    quicklistEnv *env;
} quicklist;

/* A position in a quicklist, walked with quicklistNext. */
typedef struct quicklistIter {
    quicklist *ql;
    quicklistNode *current;     /* node of the next element, NULL at end */
    unsigned char *zi;          /* the last element returned, in current */
    long offset;                /* its index in current (negative: from
                                   the node's end) */
    int direction;              /* AL_START_HEAD or AL_START_TAIL */
} quicklistIter;

/* One element, as quicklistNext returns it: its bytes (value, sz), or,
 * when value is NULL, an integer (longval). value points into the node
 * and is valid until the list changes. */
typedef struct quicklistEntry {
    quicklist *ql;
    quicklistNode *node;
    unsigned char *zi;          /* the element in the node's listpack */
    unsigned char *value;
    size_t sz;
    long long longval;
    long offset;                /* as quicklistIter.offset */
} quicklistEntry;

/* Receives each element of quicklistForEach: bytes, or (p NULL) an
 * integer in v. */
typedef void quicklistElementFn(void *ctx, const unsigned char *p,
                                size_t len, long long v);

/* Makes a popped element's bytes into whatever the caller keeps. */
typedef void *quicklistSaver(void *ctx, const unsigned char *data,
                             size_t sz);

#define quicklistNodeIsCompressed(n) \
    ((n)->encoding == QUICKLIST_NODE_ENCODING_LZF)
#define QL_NODE_IS_PLAIN(n) \
    ((n)->container == QUICKLIST_NODE_CONTAINER_PLAIN)

void quicklistEnvInit(quicklistEnv *env, gkMem *mem);
int quicklistSetPackedThreshold(quicklistEnv *env, unsigned long long sz);
quicklist *quicklistCreate(quicklistEnv *env, int fill, int compress);
void quicklistRelease(quicklist *ql);
quicklist *quicklistDup(const quicklist *orig);
unsigned long long quicklistCount(const quicklist *ql);
void quicklistPush(quicklist *ql, const void *value, size_t sz, int where);
int quicklistPushHead(quicklist *ql, const void *value, size_t sz);
int quicklistPushTail(quicklist *ql, const void *value, size_t sz);
int quicklistPopCustom(quicklist *ql, int where, quicklistSaver *saver,
                       void *ctx, void **data, long long *sval);
void quicklistGetIterator(quicklist *ql, int direction, quicklistIter *it);
int quicklistGetIteratorAtIdx(quicklist *ql, int direction, long long idx,
                              quicklistIter *it);
int quicklistGetIteratorEntryAtIdx(quicklist *ql, long long idx,
                                   quicklistIter *it,
                                   quicklistEntry *entry);
void quicklistSetDirection(quicklistIter *it, int direction);
int quicklistNext(quicklistIter *it, quicklistEntry *entry);
void quicklistReleaseIterator(quicklistIter *it);
void quicklistInsertBefore(quicklistIter *it, quicklistEntry *entry,
                           const void *value, size_t sz);
void quicklistInsertAfter(quicklistIter *it, quicklistEntry *entry,
                          const void *value, size_t sz);
void quicklistReplaceEntry(quicklistIter *it, quicklistEntry *entry,
                           const void *data, size_t sz);
int quicklistReplaceAtIndex(quicklist *ql, long long index,
                            const void *data, size_t sz);
void quicklistDelEntry(quicklistIter *it, quicklistEntry *entry);
int quicklistDelRange(quicklist *ql, long long start, long long count);
int quicklistCompare(const quicklistEntry *entry, const unsigned char *p,
                     size_t len);
void quicklistForEach(quicklist *ql, quicklistElementFn *fn, void *ctx);
size_t quicklistAllocSize(const quicklist *ql);

#endif
