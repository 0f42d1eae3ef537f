/* memory.c -- MEMORY USAGE: how many bytes a key and its value take.
 *
 * The figure is an estimate built the way Redis 7.0's objectComputeSize
 * builds it, from the sizes the allocator (mem.c) accounts for each block:
 * the fixed parts of a value (object header, dict, bucket array, list
 * header ...) are counted exactly, while for a collection of many
 * separately allocated elements only the first `samples` elements are
 * measured and their average is multiplied by the element count. So
 * MEMORY USAGE is O(samples), not O(N), and a hash whose first fields are
 * unusually long is overestimated: SAMPLES 0 measures every element. */
#include <strings.h>
#include "server.h"
#include "stream.h"
#include "intset.h"
#include "quicklist.h"

#define OBJ_COMPUTE_SIZE_DEF_SAMPLES 5

/* The block an sds lives in, header included. */
static size_t _sdsBlockSize(const sds s) {
    return memBlockSize(SDS_HDR(s));
}

/* Adds to base the average of elesize over samples elements, scaled to
 * n elements, in double precision as Redis does. */
static size_t _scaled(size_t base, size_t elesize, size_t samples,
                      unsigned long long n) {
    if (samples == 0) return base;
    return (size_t)((double)base + (double)elesize / (double)samples *
                    (double)n);
}

static size_t _stringSize(const robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) return sizeof(*o);
    return memBlockSize(o) + _sdsBlockSize(o->v.ptr);
}

/* Sums each quicklist node and its entry over the first samples nodes. */
static size_t _listSize(const robj *o, size_t sample_size) {
    const quicklist *ql = o->v.ptr;
    size_t asize = sizeof(*o) + sizeof(quicklist), elesize = 0, n = 0;
    for (quicklistNode *node = ql->head; node && n < sample_size;
         node = node->next, n++)
        elesize += sizeof(quicklistNode) + memBlockSize(node->entry);
    return _scaled(asize, elesize, n, ql->len);
}

/* A dict's header and bucket array, plus sampled entries: each entry and
 * its key, and its value too when with_values. */
static size_t _dictSize(const robj *o, dict *d, size_t sample_size,
                        int with_values) {
    size_t asize = sizeof(*o) + sizeof(dict) +
                   sizeof(dictEntry *) * dictSlots(d);
    size_t elesize = 0, n = 0;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && n < sample_size) {
        elesize += sizeof(dictEntry) + _sdsBlockSize(dictGetKey(de));
        if (with_values) elesize += _sdsBlockSize(dictGetVal(de));
        n++;
    }
    dictReleaseIterator(di);
    return _scaled(asize, elesize, n, dictSize(d));
}

/* A skiplist sorted set: its dict's table and the skiplist's header node,
 * plus sampled members (member string, dict entry, skiplist node). */
static size_t _zsetSkiplistSize(const robj *o, size_t sample_size) {
    const zset *zs = o->v.ptr;
    dict *d = zs->dict;
    size_t asize = sizeof(*o) + sizeof(zset) + sizeof(zskiplist) +
                   sizeof(dict) + sizeof(dictEntry *) * dictSlots(d) +
                   memBlockSize(zs->zsl->header);
    size_t elesize = 0, n = 0;
    zskiplistNode *x = zs->zsl->header->level[0].forward;
    for (; x != NULL && n < sample_size; x = x->level[0].forward, n++)
        elesize += _sdsBlockSize(x->ele) + sizeof(dictEntry) +
                   memBlockSize(x);
    return _scaled(asize, elesize, n, dictSize(d));
}

/* The estimated bytes of value o, sampling at most sample_size elements
 * of a collection. A value stored in one block (listpack, intset) is
 * measured exactly. */
static size_t objectComputeSize(const robj *o, size_t sample_size) {
    switch (o->type) {
    case OBJ_STRING:
        return _stringSize(o);
    case OBJ_LIST:
        return _listSize(o, sample_size);
    case OBJ_SET:
        if (o->encoding == OBJ_ENCODING_HT)
            return _dictSize(o, o->v.ptr, sample_size, 0);
        return sizeof(*o) + memBlockSize(o->v.ptr);
    case OBJ_ZSET:
        if (o->encoding == OBJ_ENCODING_SKIPLIST)
            return _zsetSkiplistSize(o, sample_size);
        return sizeof(*o) + memBlockSize(o->v.ptr);
    case OBJ_HASH:
        if (o->encoding == OBJ_ENCODING_HT)
            return _dictSize(o, o->v.ptr, sample_size, 1);
        return sizeof(*o) + memBlockSize(o->v.ptr);
    case OBJ_STREAM:
        return streamMemoryUsage((robj *)o, (long long)sample_size);
    default:
        return 0;
    }
}

/* MEMORY USAGE key [SAMPLES count]: the value's estimate plus the key's
 * string and its keyspace dict entry; a null reply for a missing key.
 * SAMPLES 0 samples every element; a negative count is a syntax error.
 * Like Redis, the key is looked up without expiring it. */
void memoryUsageCommand(client *c) {
    long long samples = OBJ_COMPUTE_SIZE_DEF_SAMPLES;
    for (int j = 3; j < c->argc; j++) {
        if (!strcasecmp(c->argv[j]->v.ptr, "samples") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &samples,
                                             NULL) != C_OK)
                return;
            if (samples < 0) { addReplyError(c, "syntax error"); return; }
            if (samples == 0) samples = LLONG_MAX;
            j++;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    dictEntry *de = dictFind(c->db->dict, c->argv[2]->v.ptr);
    if (de == NULL) { addReplyNull(c); return; }
    addReplyLongLong(c, (long long)memoryUsageOf(de, (size_t)samples));
}

/* What MEMORY USAGE says of the keyspace entry de, sampling that many
 * elements: the value's estimate, the key's string and the entry. */
size_t memoryUsageOf(dictEntry *de, size_t samples) {
    return objectComputeSize(dictGetVal(de), samples) +
           _sdsBlockSize(dictGetKey(de)) + sizeof(dictEntry);
}

/* MEMORY MALLOC-STATS: what a Redis built without jemalloc answers, as
 * the engine's allocator is not jemalloc. */
void memoryMallocStatsCommand(client *c) {
    addReplyBulkCString(c, "Stats not supported for the current allocator");
}

/* MEMORY PURGE: nothing to give back (Redis without jemalloc: +OK). */
void memoryPurgeCommand(client *c) {
    addReplyOK(c);
}

/* MEMORY HELP. */
void memoryHelpCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested "
        "values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL
    };
    addReplyHelp(c, help);
}
