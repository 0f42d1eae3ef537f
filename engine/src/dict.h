/* dict.h -- hash tables with incremental rehashing, as Redis 7.0's dict.
 *
 * A dict owns two bucket arrays. Normally only table 0 is used; when it
 * must grow or shrink, table 1 is allocated at the new size and entries
 * migrate bucket by bucket, a little on every operation and a little more
 * in serverCron, so no single command pays for moving a million keys. */
#ifndef GK_DICT_H
#define GK_DICT_H

#include <stdint.h>
#include <stddef.h>
#include "mem.h"
#include "rng.h"
#include "status.h"

#define DICT_HT_INITIAL_EXP 2          /* a new table has 4 buckets */
#define DICT_HT_INITIAL_SIZE (1 << DICT_HT_INITIAL_EXP)
#define DICT_FORCE_RESIZE_RATIO 5      /* grow even while a child exists */
#define DICT_STATS_VECTLEN 50

/* When the table may be resized (updateDictResizePolicy in server.c). */
#define DICT_RESIZE_ENABLE 0           /* no child process */
#define DICT_RESIZE_AVOID 1            /* a child exists: avoid copy-on-write */
#define DICT_RESIZE_FORBID 2           /* inside the child */

typedef struct dictEntry {
    void *key;
    union {
        void *val;
        uint64_t u64;
        int64_t s64;
        double d;
    } v;
    struct dictEntry *next;     /* next entry in the same bucket */
} dictEntry;

struct gkTrace;

/* What all the dicts of one server share: memory, the hash seed, the
 * resize policy, the PRNG for random sampling and the trace. */
typedef struct dictEnv {
    gkMem *mem;
    uint8_t seed[16];           /* SipHash key, drawn from the world's PRNG */
    int resize_policy;          /* DICT_RESIZE_* */
    gkRng *rng;
    struct gkTrace *trace;      /* NULL when the dicts are not traced */
    uint16_t node;              /* node id written in trace records */
    uint32_t ns_per_bucket;     /* virtual CPU cost of visiting a bucket */
    uint32_t ns_per_entry;      /* virtual CPU cost of moving an entry */
    uint64_t cpu_ns;            /* the server's virtual CPU (cost.h) */
    int quiet;                  /* >0: an observer is reading, charge nothing */
} dictEnv;

struct dict;

typedef struct dictType {
    uint64_t (*hashFunction)(const struct dict *d, const void *key);
    int (*keyCompare)(const struct dict *d, const void *k1, const void *k2);
    void (*keyDestructor)(struct dict *d, void *key);
    void (*valDestructor)(struct dict *d, void *obj);
    /* May refuse a growth that would need moreMem bytes (NULL = allow). */
    int (*expandAllowed)(struct dict *d, size_t moreMem, double usedRatio);
} dictType;

typedef struct dict {
    const dictType *type;
    dictEnv *env;
    dictEntry **ht_table[2];    /* bucket arrays; [1] only while rehashing */
    uint64_t ht_used[2];        /* entries in each table */
    int64_t rehashidx;          /* next bucket of table 0 to move; -1 idle */
    int16_t pauserehash;        /* >0: safe iterator or scan running */
    signed char ht_size_exp[2]; /* size = 1 << exp; -1 = no table */
    uint8_t traced;             /* emit trace records for this dict */
    uint8_t trace_kind;         /* GK_DICT_KEYS or GK_DICT_EXPIRES */
    uint16_t trace_db;          /* database id in trace records */
    void *privdata;             /* owner's data for the callbacks */
    uint64_t version;           /* bumped when entries or buckets change */
} dict;

typedef struct dictIterator {
    dict *d;
    int64_t index;
    int table, safe;
    dictEntry *entry, *nextEntry;
    uint64_t fingerprint;       /* detects misuse of unsafe iterators */
} dictIterator;

typedef void dictScanFunction(void *privdata, const dictEntry *de);
typedef void dictScanBucketFunction(dict *d, int table, uint64_t bucket);

#define DICTHT_SIZE(exp) ((exp) == -1 ? 0 : ((uint64_t)1 << (exp)))
#define DICTHT_SIZE_MASK(exp) ((exp) == -1 ? 0 : (DICTHT_SIZE(exp) - 1))
#define dictSlots(d) (DICTHT_SIZE((d)->ht_size_exp[0]) + \
                      DICTHT_SIZE((d)->ht_size_exp[1]))
#define dictSize(d) ((d)->ht_used[0] + (d)->ht_used[1])
#define dictIsRehashing(d) ((d)->rehashidx != -1)
#define dictPauseRehashing(d) ((d)->pauserehash++)
#define dictResumeRehashing(d) ((d)->pauserehash--)
#define dictGetKey(he) ((he)->key)
#define dictGetVal(he) ((he)->v.val)
#define dictGetSignedIntegerVal(he) ((he)->v.s64)
#define dictGetDoubleVal(he) ((he)->v.d)
#define dictSetVal(d, he, _val) ((he)->v.val = (_val))
#define dictSetSignedIntegerVal(he, _val) ((he)->v.s64 = (_val))
#define dictSetDoubleVal(he, _val) ((he)->v.d = (_val))
#define dictHashKey(d, key) ((d)->type->hashFunction((d), (key)))

dict *dictCreate(const dictType *type, dictEnv *env);
void dictRelease(dict *d);
void dictEmpty(dict *d);
int dictExpand(dict *d, uint64_t size);
int dictTryExpand(dict *d, uint64_t size);
int dictResize(dict *d);
int dictRehash(dict *d, int n);
int dictRehashMilliseconds(dict *d, int ms);
int dictAdd(dict *d, void *key, void *val);
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing);
dictEntry *dictFind(dict *d, const void *key);
dictEntry *dictPeek(dict *d, const void *key);
void *dictFetchValue(dict *d, const void *key);
int dictDelete(dict *d, const void *key);
dictEntry *dictUnlink(dict *d, const void *key);
void dictFreeUnlinkedEntry(dict *d, dictEntry *he);
dictIterator *dictGetIterator(dict *d);
dictIterator *dictGetSafeIterator(dict *d);
dictEntry *dictNext(dictIterator *iter);
void dictReleaseIterator(dictIterator *iter);
dictEntry *dictGetRandomKey(dict *d);
dictEntry *dictGetFairRandomKey(dict *d);
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count);
uint64_t dictScan(dict *d, uint64_t v, dictScanFunction *fn,
                  dictScanBucketFunction *bucketfn, void *privdata);
int dictNeedsShrink(dict *d);
size_t dictGetStats(char *buf, size_t bufsize, dict *d);
uint64_t dictNextPower(uint64_t size);

#endif
