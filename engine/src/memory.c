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
#include <stdio.h>
#include <string.h>
#include "server.h"
#include "stream.h"
#include "intset.h"
#include "quicklist.h"
#include "script.h"

#define OBJ_COMPUTE_SIZE_DEF_SAMPLES 5

/* The block an sds lives in, header included. */
static size_t _sdsBlockSize(const sds s) {
    return memBlockSize(sdsAllocPtr(s));
}

/* Adds to base the average of elesize over samples elements, scaled to
 * n elements, in double precision as Redis does. */
static size_t _scaled(size_t base, size_t elesize, size_t samples,
                      unsigned long long n) {
    if (samples == 0) return base;
    return (size_t)((double)base + (double)elesize / (double)samples *
                    (double)n);
}

/* An INT is a bare object, an embstr one block with its bytes, a raw
 * string an object and an sds. */
static size_t _stringSize(const robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) return MEM64_ROBJ;
    if (o->encoding == OBJ_ENCODING_EMBSTR) return memBlockSize(o);
    return MEM64_ROBJ + _sdsBlockSize(o->v.ptr);
}

/* Sums each quicklist node and its entry over the first samples nodes. */
static size_t _listSize(const robj *o, size_t sample_size) {
    const quicklist *ql = o->v.ptr;
    size_t asize = MEM64_ROBJ + MEM64_QUICKLIST, elesize = 0, n = 0;
    for (quicklistNode *node = ql->head; node && n < sample_size;
         node = node->next, n++)
        elesize += MEM64_QUICKLIST_NODE + memBlockSize(node->entry);
    return _scaled(asize, elesize, n, ql->len);
}

/* A dict's header and bucket array, plus sampled entries: each entry and
 * its key, and its value too when with_values. */
static size_t _dictSize(const robj *o, dict *d, size_t sample_size,
                        int with_values) {
    size_t asize = MEM64_ROBJ + MEM64_DICT + MEM64_PTR * dictSlots(d);
    size_t elesize = 0, n = 0;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL && n < sample_size) {
        elesize += MEM64_DICT_ENTRY + _sdsBlockSize(dictGetKey(de));
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
    size_t asize = MEM64_ROBJ + MEM64_ZSET + MEM64_ZSKIPLIST + MEM64_DICT +
                   MEM64_PTR * dictSlots(d) + memBlockSize(zs->zsl->header);
    size_t elesize = 0, n = 0;
    zskiplistNode *x = zs->zsl->header->level[0].forward;
    for (; x != NULL && n < sample_size; x = x->level[0].forward, n++)
        elesize += _sdsBlockSize(x->ele) + MEM64_DICT_ENTRY +
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
        return MEM64_ROBJ + memBlockSize(o->v.ptr);
    case OBJ_ZSET:
        if (o->encoding == OBJ_ENCODING_SKIPLIST)
            return _zsetSkiplistSize(o, sample_size);
        return MEM64_ROBJ + memBlockSize(o->v.ptr);
    case OBJ_HASH:
        if (o->encoding == OBJ_ENCODING_HT)
            return _dictSize(o, o->v.ptr, sample_size, 1);
        return MEM64_ROBJ + memBlockSize(o->v.ptr);
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
           _sdsBlockSize(dictGetKey(de)) + MEM64_DICT_ENTRY;
}

/* ---- INFO memory, MEMORY STATS ---- */

/* Where used_memory goes, as Redis 7.0's getMemoryOverheadData splits it:
 * what the server held at startup, the clients' buffers, the AOF buffer,
 * the scripts' and functions' caches and the keyspace's tables are
 * overhead; the rest is the dataset. INFO memory and MEMORY STATS print
 * these same figures. */
typedef struct memOverhead {
    size_t total;               /* used_memory */
    size_t startup;             /* used_memory once the server was up */
    size_t peak;                /* used_memory's highest */
    size_t repl_backlog;        /* the backlog's bytes (replication.c) */
    size_t clients_slaves, clients_normal;
    size_t cluster_links;       /* 0: never a cluster node */
    size_t aof_buffer;
    size_t lua_caches;          /* EVAL's script cache */
    size_t functions_caches;    /* the function libraries' structs */
    size_t keys_main, keys_expires; /* the tables of the dbs with keys */
    size_t overhead;            /* all of the above, startup included */
    size_t dataset;             /* total less overhead */
    unsigned long long keys;    /* in every db */
    int dbs;                    /* dbs holding keys: MEMORY STATS's db.N */
    size_t bytes_per_key;       /* what a key added on average */
    float dataset_perc;         /* of what was added since startup */
    float peak_perc;            /* total against peak */
} memOverhead;

/* A keyspace table's overhead as Redis counts it: an entry and, for the
 * main table, an object per key, and a bucket per slot. */
static size_t _tableOverhead(dict *d, int objects) {
    return dictSize(d) * (MEM64_DICT_ENTRY + (objects ? MEM64_ROBJ : 0)) +
           dictSlots(d) * MEM64_PTR;
}

/* Sums the clients' buffers and structs, replicas apart. Redis 7.0 adds
 * up figures each client refreshes from time to time (one that has just
 * connected counts for nothing yet); I measure every client now. */
static void _clientsOverhead(redisServer *s, memOverhead *mh) {
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (!c) continue;
        size_t mem = getClientMemoryUsage(c, NULL);
        if (c->flags & CLIENT_SLAVE) mh->clients_slaves += mem;
        else mh->clients_normal += mem;
    }
}

/* Fills mh. A db without keys costs nothing, however large its emptied
 * table still is, as in Redis, which skips it. The percentages are
 * computed in single precision, as Redis does: MEMORY STATS prints their
 * every digit. */
static void _overheadData(redisServer *s, memOverhead *mh) {
    memset(mh, 0, sizeof(*mh));
    mh->total = s->mem->used;
    mh->startup = s->initial_memory_usage;
    mh->peak = s->mem->peak;
    mh->repl_backlog = replicationBacklogMemory(s);
    _clientsOverhead(s, mh);
    if (s->aof.state != AOF_OFF && s->aof.buf)
        mh->aof_buffer = memBlockSize(sdsAllocPtr(s->aof.buf));
    mh->lua_caches = evalScriptsMemory(s);
    mh->functions_caches = functionsMemoryOverhead(s);
    for (int j = 0; j < s->cfg.databases; j++) {
        if (dictSize(s->db[j].dict) == 0) continue;
        mh->keys_main += _tableOverhead(s->db[j].dict, 1);
        mh->keys_expires += _tableOverhead(s->db[j].expires, 0);
        mh->keys += dictSize(s->db[j].dict);
        mh->dbs++;
    }
    mh->overhead = mh->startup + mh->repl_backlog + mh->clients_slaves +
                   mh->clients_normal + mh->cluster_links + mh->aof_buffer +
                   mh->lua_caches + mh->functions_caches + mh->keys_main +
                   mh->keys_expires;
    mh->dataset = mh->total > mh->overhead ? mh->total - mh->overhead : 0;
    size_t net = mh->total > mh->startup ? mh->total - mh->startup : 1;
    mh->dataset_perc = (float)mh->dataset * 100 / (float)net;
    mh->peak_perc = mh->peak ? (float)mh->total * 100 / (float)mh->peak : 0;
    mh->bytes_per_key = mh->keys ? net / mh->keys : 0;
}

/* Redis's bytesToHuman: "1023B", "1.00K", "88.32M" ... */
static const char *_human(char *buf, size_t cap, unsigned long long n) {
    static const char units[] = "KMGTP";
    double d = (double)n;
    if (n < 1024) {
        snprintf(buf, cap, "%lluB", n);
        return buf;
    }
    for (int i = 0; i < 5; i++) {
        d /= 1024;
        if (d < 1024 || i == 4) {
            snprintf(buf, cap, "%.2f%c", d, units[i]);
            return buf;
        }
    }
    return buf;
}

/* INFO memory, with Redis 7.0's fields save those of the process's
 * resident memory and of jemalloc's own statistics, which a simulated
 * server does not have. Lazy freeing counts objects as 7.0 does: one for
 * a value UNLINK hands over, a db's keys for FLUSHDB or FLUSHALL ASYNC. */
sds memoryInfoSection(redisServer *s, sds info) {
    memOverhead mh;
    char h1[32], h2[32], h3[32], h4[32];
    char policy[32] = "noeviction";
    _overheadData(s, &mh);
    serverConfigGet(s, "maxmemory-policy", policy, sizeof(policy));
    bioPendingJobsOfType(&s->bio, BIO_LAZY_FREE);   /* jobs done by now */
    unsigned long pending = s->lazyfree_objects;
    size_t lua = evalMemory(s), not_counted = memoryNotCountedForEvict(s);
    return sdscatprintf(s->mem, info,
        "# Memory\r\n"
        "used_memory:%zu\r\n"
        "used_memory_human:%s\r\n"
        "used_memory_peak:%zu\r\n"
        "used_memory_peak_human:%s\r\n"
        "used_memory_peak_perc:%.2f%%\r\n"
        "used_memory_overhead:%zu\r\n"
        "used_memory_startup:%zu\r\n"
        "used_memory_dataset:%zu\r\n"
        "used_memory_dataset_perc:%.2f%%\r\n"
        "used_memory_lua:%zu\r\n"
        "used_memory_vm_eval:%zu\r\n"
        "used_memory_lua_human:%s\r\n"
        "used_memory_scripts_eval:%zu\r\n"
        "number_of_cached_scripts:%lu\r\n"
        "maxmemory:%lld\r\n"
        "maxmemory_human:%s\r\n"
        "maxmemory_policy:%s\r\n"
        "mem_not_counted_for_evict:%zu\r\n"
        "mem_replication_backlog:%zu\r\n"
        "mem_total_replication_buffers:%zu\r\n"
        "mem_clients_slaves:%zu\r\n"
        "mem_clients_normal:%zu\r\n"
        "mem_cluster_links:0\r\n"
        "mem_aof_buffer:%zu\r\n"
        "lazyfree_pending_objects:%lu\r\n"
        "lazyfreed_objects:%llu\r\n",
        mh.total, _human(h1, sizeof(h1), mh.total), mh.peak,
        _human(h2, sizeof(h2), mh.peak), mh.peak_perc, mh.overhead,
        mh.startup, mh.dataset, mh.dataset_perc, lua, lua,
        _human(h3, sizeof(h3), lua), evalScriptsMemory(s),
        (unsigned long)dictSize(s->lua_scripts), s->cfg.maxmemory,
        _human(h4, sizeof(h4), (unsigned long long)s->cfg.maxmemory), policy,
        not_counted, mh.repl_backlog, mh.repl_backlog, mh.clients_slaves,
        mh.clients_normal, mh.aof_buffer,
        pending, s->stat_lazyfreed_objects);
}

/* What a process and its allocator would add to used_memory. The engine
 * has no process of its own, and its allocator keeps no pages, so it
 * reports what Redis built with libc malloc reports, whose allocator gives
 * no statistics either: there allocator.allocated is used_memory, and
 * allocator.active and allocator.resident are the process's RSS less the
 * Lua heap (which lives outside used_memory). For the RSS I take
 * used_memory plus the Lua heap, a process that wastes no page: so the
 * allocator ratios are 1, and the RSS overhead and the fragmentation are
 * the Lua heap alone, which MEMORY DOCTOR reports once it passes 10 MB
 * and 10% (40% for the fragmentation) of used_memory. */
typedef struct memFrag {
    size_t allocated, active, resident, rss;
    float allocator_frag, allocator_rss, rss_extra, total_frag;
    long long allocator_frag_bytes, allocator_rss_bytes;
    long long rss_extra_bytes, total_frag_bytes;
} memFrag;

/* Redis's ratio: float over size_t, in single precision. */
static float _ratio(size_t a, size_t b) {
    return b ? (float)a / (float)b : 0;
}

/* The process's resident memory as _fragData takes it: used_memory and
 * the Lua heap. What a fork must find room for (machine_mem.c). */
size_t memoryRss(redisServer *s) {
    return s->mem->used + evalMemory(s);
}

static void _fragData(redisServer *s, const memOverhead *mh, memFrag *f) {
    f->allocated = mh->total;
    f->rss = mh->total + evalMemory(s);
    f->resident = f->rss - evalMemory(s);
    f->active = f->resident;
    f->allocator_frag = _ratio(f->active, f->allocated);
    f->allocator_frag_bytes = (long long)(f->active - f->allocated);
    f->allocator_rss = _ratio(f->resident, f->active);
    f->allocator_rss_bytes = (long long)(f->resident - f->active);
    f->rss_extra = _ratio(f->rss, f->resident);
    f->rss_extra_bytes = (long long)(f->rss - f->resident);
    f->total_frag = _ratio(f->rss, mh->total);
    f->total_frag_bytes = (long long)(f->rss - mh->total);
}

static void _statLong(client *c, const char *name, long long v) {
    addReplyBulkCString(c, name);
    addReplyLongLong(c, v);
}

static void _statDouble(client *c, const char *name, double v) {
    addReplyBulkCString(c, name);
    addReplyDouble(c, v);
}

/* db.N: what db j's tables cost; the slot-to-keys map of a cluster node
 * is never there. */
static void _statDb(client *c, int j) {
    redisDb *db = &c->srv->db[j];
    char name[32];
    snprintf(name, sizeof(name), "db.%d", j);
    addReplyBulkCString(c, name);
    addReplyMapLen(c, 3);
    _statLong(c, "overhead.hashtable.main",
              (long long)_tableOverhead(db->dict, 1));
    _statLong(c, "overhead.hashtable.expires",
              (long long)_tableOverhead(db->expires, 0));
    _statLong(c, "overhead.hashtable.slot-to-keys", 0);
}

/* MEMORY STATS: INFO memory's figures as a map of Redis 7.0's 27 fields
 * in its order, and a db.N map for each db holding keys after
 * functions.caches. Clients read it by name, but some by position. */
void memoryStatsCommand(client *c) {
    redisServer *s = c->srv;
    memOverhead mh;
    memFrag f;
    _overheadData(s, &mh);
    _fragData(s, &mh, &f);
    addReplyMapLen(c, 27 + mh.dbs);
    _statLong(c, "peak.allocated", (long long)mh.peak);
    _statLong(c, "total.allocated", (long long)mh.total);
    _statLong(c, "startup.allocated", (long long)mh.startup);
    _statLong(c, "replication.backlog", (long long)mh.repl_backlog);
    _statLong(c, "clients.slaves", (long long)mh.clients_slaves);
    _statLong(c, "clients.normal", (long long)mh.clients_normal);
    _statLong(c, "cluster.links", (long long)mh.cluster_links);
    _statLong(c, "aof.buffer", (long long)mh.aof_buffer);
    _statLong(c, "lua.caches", (long long)mh.lua_caches);
    _statLong(c, "functions.caches", (long long)mh.functions_caches);
    for (int j = 0; j < s->cfg.databases; j++)
        if (dictSize(s->db[j].dict)) _statDb(c, j);
    _statLong(c, "overhead.total", (long long)mh.overhead);
    _statLong(c, "keys.count", (long long)mh.keys);
    _statLong(c, "keys.bytes-per-key", (long long)mh.bytes_per_key);
    _statLong(c, "dataset.bytes", (long long)mh.dataset);
    _statDouble(c, "dataset.percentage", mh.dataset_perc);
    _statDouble(c, "peak.percentage", mh.peak_perc);
    _statLong(c, "allocator.allocated", (long long)f.allocated);
    _statLong(c, "allocator.active", (long long)f.active);
    _statLong(c, "allocator.resident", (long long)f.resident);
    _statDouble(c, "allocator-fragmentation.ratio", f.allocator_frag);
    _statLong(c, "allocator-fragmentation.bytes", f.allocator_frag_bytes);
    _statDouble(c, "allocator-rss.ratio", f.allocator_rss);
    _statLong(c, "allocator-rss.bytes", f.allocator_rss_bytes);
    _statDouble(c, "rss-overhead.ratio", f.rss_extra);
    _statLong(c, "rss-overhead.bytes", f.rss_extra_bytes);
    _statDouble(c, "fragmentation", f.total_frag);
    _statLong(c, "fragmentation.bytes", f.total_frag_bytes);
}

/* ---- MEMORY DOCTOR ---- */

/* Redis 7.0.15's report texts, word for word (typos included). */
static const char DOCTOR_EMPTY[] =
    "Hi Sam, this instance is empty or is using very little memory, my "
    "issues detector can't be used in these conditions. Please, leave for "
    "your mission on Earth and fill it with some data. The new Sam and I "
    "will be back to our programming as soon as I finished rebooting.\n";
static const char DOCTOR_FINE[] =
    "Hi Sam, I can't find any memory issue in your instance. I can only "
    "account for what occurs on this base.\n";
static const char DOCTOR_HEAD[] =
    "Sam, I detected a few issues in this Redis instance memory "
    "implants:\n\n";
static const char DOCTOR_TAIL[] =
    "I'm here to keep you safe, Sam. I want to help you.\n";
static const char DOCTOR_PEAK[] =
    " * Peak memory: In the past this instance used more than 150% the "
    "memory that is currently using. The allocator is normally not able to "
    "release memory after a peak, so you can expect to see a big "
    "fragmentation ratio, however this is actually harmless and is only "
    "due to the memory peak, and if the Redis instance Resident Set Size "
    "(RSS) is currently bigger than expected, the memory will be used as "
    "soon as you fill the Redis instance with more data. If the memory "
    "peak was only occasional and you want to try to reclaim memory, "
    "please try the MEMORY PURGE command, otherwise the only other option "
    "is to shutdown and restart the instance.\n\n";
/* Its %s is the allocator's name: libc's, as for MALLOC-STATS. */
static const char DOCTOR_FRAG[] =
    " * High total RSS: This instance has a memory fragmentation and RSS "
    "overhead greater than 1.4 (this means that the Resident Set Size of "
    "the Redis process is much larger than the sum of the logical "
    "allocations Redis performed). This problem is usually due either to a "
    "large peak memory (check if there is a peak memory entry above in the "
    "report) or may result from a workload that causes the allocator to "
    "fragment memory a lot. If the problem is a large peak memory, then "
    "there is no issue. Otherwise, make sure you are using the Jemalloc "
    "allocator and not the default libc malloc. Note: The currently used "
    "allocator is \"libc\".\n\n";
static const char DOCTOR_ALLOC_FRAG[] =
    " * High allocator fragmentation: This instance has an allocator "
    "external fragmentation greater than 1.1. This problem is usually due "
    "either to a large peak memory (check if there is a peak memory entry "
    "above in the report) or may result from a workload that causes the "
    "allocator to fragment memory a lot. You can try enabling "
    "'activedefrag' config option.\n\n";
static const char DOCTOR_ALLOC_RSS[] =
    " * High allocator RSS overhead: This instance has an RSS memory "
    "overhead is greater than 1.1 (this means that the Resident Set Size of "
    "the allocator is much larger than the sum what the allocator actually "
    "holds). This problem is usually due to a large peak memory (check if "
    "there is a peak memory entry above in the report), you can try the "
    "MEMORY PURGE command to reclaim it.\n\n";
static const char DOCTOR_PROC_RSS[] =
    " * High process RSS overhead: This instance has non-allocator RSS "
    "memory overhead is greater than 1.1 (this means that the Resident Set "
    "Size of the Redis process is much larger than the RSS the allocator "
    "holds). This problem may be due to Lua scripts or Modules.\n\n";
static const char DOCTOR_SLAVES[] =
    " * Big replica buffers: The replica output buffers in this instance "
    "are greater than 10MB for each replica (on average). This likely "
    "means that there is some replica instance that is struggling "
    "receiving data, either because it is too slow or because of "
    "networking issues. As a result, data piles on the master output "
    "buffers. Please try to identify what replica is not receiving data "
    "correctly and why. You can use the INFO output in order to check the "
    "replicas delays and the CLIENT LIST command to check the output "
    "buffers of each replica.\n\n";
static const char DOCTOR_CLIENTS[] =
    " * Big client buffers: The clients output buffers in this instance "
    "are greater than 200K per client (on average). This may result from "
    "different causes, like Pub/Sub clients subscribed to channels bot not "
    "receiving data fast enough, so that data piles on the Redis instance "
    "output buffer, or clients sending commands with large replies or very "
    "large sequences of commands in the same pipeline. Please use the "
    "CLIENT LIST command in order to investigate the issue if it causes "
    "problems in your instance, or to understand better why certain "
    "clients are using a big amount of memory.\n\n";
static const char DOCTOR_SCRIPTS[] =
    " * Many scripts: There seem to be many cached scripts in this "
    "instance (more than 1000). This may be because scripts are generated "
    "and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), "
    "`SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called "
    "periodically, the scripts' caches may end up consuming most of your "
    "memory.\n\n";

#define MB (1024LL * 1024)

/* The report's findings, in its order, each with its text. */
typedef struct doctorFinding {
    int found;
    const char *text;
} doctorFinding;

/* MEMORY DOCTOR's report, as Redis 7.0's getMemoryDoctorReport judges:
 * under 5 MB of used_memory the instance is called empty and nothing
 * else is looked at; otherwise a peak over 1.5 times used_memory, each
 * RSS ratio past its bound with over 10 MB behind it, an average of over
 * 200 KB per client (replicas apart), over 10 MB of replica buffers in
 * all (the text says "for each replica", the test is on the sum) and
 * over 1,000 cached scripts are reported. Returns an sds of s->mem. */
static sds _doctorReport(redisServer *s) {
    memOverhead mh;
    memFrag f;
    _overheadData(s, &mh);
    if (mh.total < 5 * MB) return sdsnew(s->mem, DOCTOR_EMPTY);
    _fragData(s, &mh, &f);
    long slaves = s->nreplicas, clients = s->numclients - s->nreplicas;
    /* Redis divides by the clients unchecked, the one asking being
     * among them; I check all the same. */
    doctorFinding found[] = {
        { _ratio(mh.peak, mh.total) > 1.5, DOCTOR_PEAK },
        { f.total_frag > 1.4 && f.total_frag_bytes > 10 * MB, DOCTOR_FRAG },
        { f.allocator_frag > 1.1 && f.allocator_frag_bytes > 10 * MB,
          DOCTOR_ALLOC_FRAG },
        { f.allocator_rss > 1.1 && f.allocator_rss_bytes > 10 * MB,
          DOCTOR_ALLOC_RSS },
        { f.rss_extra > 1.1 && f.rss_extra_bytes > 10 * MB, DOCTOR_PROC_RSS },
        { slaves > 0 && mh.clients_slaves > (size_t)(10 * MB), DOCTOR_SLAVES },
        { clients > 0 && mh.clients_normal / (size_t)clients > 200 * 1024,
          DOCTOR_CLIENTS },
        { dictSize(s->lua_scripts) > 1000, DOCTOR_SCRIPTS },
    };
    sds r = sdsnew(s->mem, DOCTOR_HEAD);
    int n = 0;
    for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++)
        if (found[i].found) r = sdscat(s->mem, r, found[i].text), n++;
    if (n == 0) {
        sdsfree(s->mem, r);
        return sdsnew(s->mem, DOCTOR_FINE);
    }
    return sdscat(s->mem, r, DOCTOR_TAIL);
}

/* MEMORY DOCTOR: the report, as verbatim text in RESP3. */
void memoryDoctorCommand(client *c) {
    sds r = _doctorReport(c->srv);
    addReplyVerbatim(c, r, sdslen(r), "txt");
    sdsfree(c->srv->mem, r);
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
