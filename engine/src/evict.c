/* evict.c -- maxmemory: keys evicted by the policy when the memory used
 * passes the limit, as Redis 7.0 chooses them.
 *
 * Before a command runs (and at once when CONFIG SET lowers maxmemory)
 * performEvictions frees what is over the limit. The LRU, LFU and TTL
 * policies keep a pool of the 16 best candidates seen so far, ordered by
 * idleness (how long unused, how rarely used, or how soon to expire, so
 * that more is better); each round samples maxmemory-samples keys of
 * every database into it and evicts the best one still there. The random
 * policies take a random key of the next database in turn. Each evicted
 * key is deleted (by the lazy-free thread with lazyfree-lazy-eviction),
 * counted in evicted_keys, announced as an "evicted" keyspace event and
 * propagated as DEL (or UNLINK). The memory the AOF buffer and the
 * replicas' output buffers hold is not counted against the limit.
 *
 * A round is limited in time by maxmemory-eviction-tenacity (500 us of
 * the server's CPU at the default 10); what is left is done by a timer
 * on the following event-loop iterations, and a command that needs
 * memory meanwhile is refused only if nothing could be freed. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "server.h"
#include "aof.h"
#include "latency.h"
#include "recovery.h"
#include "script.h"

#define EVPOOL_SIZE 16

typedef struct evictionPoolEntry {
    unsigned long long idle;    /* larger is a better candidate */
    sds key;                    /* NULL: an empty slot */
    int dbid;
} evictionPoolEntry;

/* The memory that does not count against maxmemory: what the AOF buffer
 * and the replicas' output buffers hold, which would otherwise make the
 * evictions they cause (as DELs propagated) evict more. */
size_t memoryNotCountedForEvict(redisServer *s) {
    size_t overhead = 0;
    for (int i = 0; i < s->nreplicas; i++)
        overhead += getClientOutputBufferMemoryUsage(s->replicas[i]);
    if (s->aof.buf) overhead += sdsAllocSize(s->aof.buf);
    return overhead;
}

/* C_OK when the memory counted is within maxmemory; otherwise C_ERR with
 * *tofree, the bytes over the limit. */
static int _maxmemoryState(redisServer *s, size_t *used, size_t *tofree) {
    size_t reported = s->mem->used, overhead = memoryNotCountedForEvict(s);
    size_t counted = reported > overhead ? reported - overhead : 0;
    if (used) *used = reported;
    if (!s->cfg.maxmemory || counted <= (size_t)s->cfg.maxmemory)
        return C_OK;
    if (tofree) *tofree = counted - (size_t)s->cfg.maxmemory;
    return C_ERR;
}

/* How long a round may run, in nanoseconds of the server's CPU, for a
 * maxmemory-eviction-tenacity of 0 to 100 (100: no limit). */
static uint64_t _timeLimitNs(redisServer *s) {
    int t = s->cfg.maxmemory_eviction_tenacity;
    if (t <= 10) return 50000ULL * (uint64_t)t;
    if (t < 100) return (uint64_t)(500000.0 * pow(1.15, t - 10));
    return UINT64_MAX;
}

static evictionPoolEntry *_pool(redisServer *s) {
    if (!s->evict_pool)
        s->evict_pool = memCalloc(s->mem, sizeof(evictionPoolEntry) *
                                  EVPOOL_SIZE);
    return s->evict_pool;
}

static void _poolClear(redisServer *s, evictionPoolEntry *e) {
    sdsfree(s->mem, e->key);
    e->key = NULL;
    e->idle = 0;
}

/* How good a candidate the key of de (an entry of sampled, which is the
 * keyspace, or the expires dict for the volatile policies) is. */
static unsigned long long _idleness(redisServer *s, dict *sampled,
                                    dict *keys, dictEntry *de) {
    int policy = s->cfg.maxmemory_policy;
    if (policy == MAXMEMORY_VOLATILE_TTL)
        return ULLONG_MAX - (unsigned long long)dictGetSignedIntegerVal(de);
    robj *o;
    if (sampled == keys) {
        o = dictGetVal(de);
    } else {
        dictEntry *kde = dictFind(keys, dictGetKey(de));
        if (!kde) return 0;
        o = dictGetVal(kde);
    }
    if (policy & MAXMEMORY_FLAG_LRU) return estimateObjectIdleTime(s, o);
    return 255 - LFUDecrAndReturn(s, o);
}

/* Samples keys of database dbid into the pool, which stays ordered by
 * idleness, the best last. A sample worse than every entry of a full
 * pool is dropped; otherwise it takes its place, pushing the worst out
 * if the pool is full. */
static void _poolPopulate(redisServer *s, int dbid, dict *sampled,
                          dict *keys, evictionPoolEntry *pool) {
    dictEntry *samples[64];
    int want = s->cfg.maxmemory_samples;
    if (want > 64) want = 64;
    unsigned int n = dictGetSomeKeys(sampled, samples, (unsigned)want);
    for (unsigned int j = 0; j < n; j++) {
        sds key = dictGetKey(samples[j]);
        unsigned long long idle = _idleness(s, sampled, keys, samples[j]);
        int k = 0;
        while (k < EVPOOL_SIZE && pool[k].key && pool[k].idle < idle) k++;
        if (k == 0 && pool[EVPOOL_SIZE - 1].key) continue;
        if (k == EVPOOL_SIZE || pool[k].key) {
            if (!pool[EVPOOL_SIZE - 1].key) {
                /* Room at the right: the better ones move up. */
                memmove(pool + k + 1, pool + k,
                        sizeof(pool[0]) * (size_t)(EVPOOL_SIZE - k - 1));
            } else {
                /* Full: the worst (first) goes, the worse ones move down. */
                k--;
                _poolClear(s, &pool[0]);
                memmove(pool, pool + 1, sizeof(pool[0]) * (size_t)k);
            }
        }
        pool[k].key = sdsdup(s->mem, key);
        pool[k].idle = idle;
        pool[k].dbid = dbid;
    }
}

/* The key to evict next, or NULL when the policy finds none; *dbid is
 * its database. The key is the caller's to free. */
static sds _bestKey(redisServer *s, int *dbid) {
    int policy = s->cfg.maxmemory_policy;
    int allkeys = (policy & MAXMEMORY_FLAG_ALLKEYS) != 0;
    if (policy & (MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_LFU) ||
        policy == MAXMEMORY_VOLATILE_TTL) {
        evictionPoolEntry *pool = _pool(s);
        for (;;) {
            unsigned long total = 0;
            for (int i = 0; i < s->cfg.databases; i++) {
                redisDb *db = &s->db[i];
                dict *d = allkeys ? db->dict : db->expires;
                if (dictSize(d)) {
                    _poolPopulate(s, i, d, db->dict, pool);
                    total += dictSize(d);
                }
            }
            if (!total) return NULL;
            /* The best entry whose key still exists. */
            for (int k = EVPOOL_SIZE - 1; k >= 0; k--) {
                if (!pool[k].key) continue;
                redisDb *db = &s->db[pool[k].dbid];
                dict *d = allkeys ? db->dict : db->expires;
                dictEntry *de = dictFind(d, pool[k].key);
                sds key = pool[k].key;
                int id = pool[k].dbid;
                pool[k].key = NULL;
                pool[k].idle = 0;
                if (de) {
                    *dbid = id;
                    return key;
                }
                sdsfree(s->mem, key);
            }
        }
    }
    if (policy == MAXMEMORY_ALLKEYS_RANDOM ||
        policy == MAXMEMORY_VOLATILE_RANDOM) {
        for (int i = 0; i < s->cfg.databases; i++) {
            int j = (int)(++s->evict_next_db % (unsigned)s->cfg.databases);
            redisDb *db = &s->db[j];
            dict *d = allkeys ? db->dict : db->expires;
            if (dictSize(d)) {
                *dbid = j;
                return sdsdup(s->mem, dictGetKey(dictGetRandomKey(d)));
            }
        }
    }
    return NULL;
}

/* Deletes one chosen key as an eviction. Returns the bytes its deletion
 * freed at once. */
static long long _evictKey(redisServer *s, redisDb *db, sds key) {
    robj *keyobj = createStringObject(s, key, sdslen(key));
    long long before = (long long)s->mem->used;
    uint64_t cpu0 = s->denv.cpu_ns;
    if (s->cfg.lazyfree_lazy_eviction) dbAsyncDelete(s, db, keyobj);
    else dbDelete(s, db, keyobj);
    latencyAddSampleIfNeeded(s, "eviction-del", latencyMsSince(s, cpu0));
    long long freed = before - (long long)s->mem->used;
    s->stat_evictedkeys++;
    signalModifiedKeyByServer(s, db, keyobj);
    notifyKeyspaceEvent(s, NOTIFY_EVICTED, "evicted", keyobj, db->id);
    const char *verb = s->cfg.lazyfree_lazy_eviction ? "UNLINK" : "DEL";
    robj *argv[2] = { createStringObject(s, verb, strlen(verb)), keyobj };
    alsoPropagate(s, db->id, argv, 2);
    decrRefCount(s, argv[0]);
    decrRefCount(s, keyobj);
    if (s->execution_nesting == 0) {
        propagatePendingCommands(s);
        if (s->recovery) recoveryUnitEnd(s, NULL);
    }
    return freed;
}

static long long _evictionTimer(aeEventLoop *el, long long id, void *data);

/* Lets the rest of the work be done on the next iterations. */
static void _startTimer(redisServer *s) {
    if (s->evict_timer_id < 0)
        s->evict_timer_id = aeCreateTimeEvent(s->el, 0, _evictionTimer, s);
}

/* Whether evicting now is right: not while loading, in a busy script
 * (its propagation would mix with the DELs), on a replica that ignores
 * maxmemory, or while clients are paused. */
static int _safeToEvict(redisServer *s) {
    if (s->loading || (s->script_run &&
                       (s->script_run->flags & SCRIPT_TIMEDOUT)))
        return 0;
    if (s->masterhost && s->cfg.repl_slave_ignore_maxmemory) return 0;
    if (checkClientPauseTimeoutAndReturnIfPaused(s)) return 0;
    return 1;
}

int performEvictions(redisServer *s) {
    if (!_safeToEvict(s)) return EVICT_OK;
    size_t used, tofree = 0;
    if (_maxmemoryState(s, &used, &tofree) == C_OK) return EVICT_OK;
    if (s->cfg.maxmemory_policy == MAXMEMORY_NO_EVICTION) return EVICT_FAIL;
    uint64_t cpu0 = s->denv.cpu_ns, limit = _timeLimitNs(s);
    long long freed = 0, keys = 0;
    int result = EVICT_FAIL;
    while (freed < (long long)tofree) {
        int dbid = 0;
        sds key = _bestKey(s, &dbid);
        if (!key) break;
        freed += _evictKey(s, &s->db[dbid], key);
        sdsfree(s->mem, key);
        keys++;
        if (keys % 16 == 0) {
            /* The lazy-free thread frees on its own: look again. */
            if (s->cfg.lazyfree_lazy_eviction &&
                _maxmemoryState(s, NULL, NULL) == C_OK)
                break;
            if (s->denv.cpu_ns - cpu0 > limit) {
                _startTimer(s);
                result = EVICT_RUNNING;
                break;
            }
        }
    }
    if (result != EVICT_RUNNING &&
        (freed >= (long long)tofree ||
         _maxmemoryState(s, NULL, NULL) == C_OK))
        result = EVICT_OK;
    latencyAddSampleIfNeeded(s, "eviction-cycle", latencyMsSince(s, cpu0));
    /* Some memory may still be on its way out through the lazy-free
     * thread: a command waits for nothing here, but the next one will
     * see it freed. */
    if (result == EVICT_FAIL && keys && s->cfg.lazyfree_lazy_eviction &&
        bioPendingJobsOfType(&s->bio, BIO_LAZY_FREE))
        result = EVICT_RUNNING;
    return result;
}

static long long _evictionTimer(aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    redisServer *s = data;
    if (performEvictions(s) == EVICT_RUNNING) return 0;
    s->evict_timer_id = -1;
    return AE_NOMORE;
}

/* CONFIG SET maxmemory: below what is used, a warning, and the
 * evictions begin at once. */
void evictionMaxmemoryChanged(redisServer *s) {
    if (!s->cfg.maxmemory) return;
    size_t overhead = memoryNotCountedForEvict(s);
    size_t used = s->mem->used > overhead ? s->mem->used - overhead : 0;
    if ((size_t)s->cfg.maxmemory < used)
        serverLog(s, LL_WARNING, "WARNING: the new maxmemory value set via "
                  "CONFIG SET (%llu) is smaller than the current memory "
                  "usage (%zu). This will result in key eviction and/or the "
                  "inability to accept new write commands depending on the "
                  "maxmemory-policy.", (unsigned long long)s->cfg.maxmemory,
                  used);
    _startTimer(s);
}

/* The pool's keys, freed with the server. */
void evictionRelease(redisServer *s) {
    if (!s->evict_pool) return;
    evictionPoolEntry *pool = s->evict_pool;
    for (int k = 0; k < EVPOOL_SIZE; k++) _poolClear(s, &pool[k]);
    memFree(s->mem, pool);
    s->evict_pool = NULL;
}
