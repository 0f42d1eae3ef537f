/* dict.c -- hash tables with incremental rehashing, as Redis 7.0 does it.
 *
 * HOW A DICT GROWS WITHOUT STOPPING THE SERVER
 *
 * A dict is an array of buckets; each bucket is a chain of entries whose
 * hash, masked by size-1, is that bucket's index. When the number of
 * entries reaches the number of buckets (load factor 1), chains start to
 * grow and lookups slow down, so the table must double. Copying a table of
 * a million entries at once would stall every client for a long time, so
 * the dict keeps two tables instead:
 *
 *   - table 1 is allocated at the new size and rehashidx is set to 0;
 *   - every later lookup, insert or delete first moves one bucket of table
 *     0 (the one at rehashidx) into table 1 -- "a rehash step";
 *   - serverCron also moves buckets for up to 1 ms per call, in batches of
 *     100, so an idle server finishes the job too;
 *   - while both tables exist, lookups probe table 0 then table 1, and new
 *     entries always go into table 1, so table 0 only drains;
 *   - when table 0 is empty it is freed, table 1 becomes table 0 and
 *     rehashidx goes back to -1.
 *
 * A step visits at most 10 empty buckets per bucket it was asked to move,
 * so a sparse table (after mass deletion) cannot make one step slow.
 *
 * The dict never shrinks by itself: the server calls dictResize from its
 * cron when a table is less than 10% full, and shrinking then uses the very
 * same two-table migration, towards a smaller table 1. */
#include <string.h>
#include <stdio.h>
#include "dict.h"
#include "cost.h"
#include "trace.h"
#include "util.h"

static int _dictExpandIfNeeded(dict *d);
static int64_t _dictKeyIndex(dict *d, const void *key, uint64_t hash,
                             dictEntry **existing);

static void _dictReset(dict *d, int htidx) {
    d->ht_table[htidx] = NULL;
    d->ht_size_exp[htidx] = -1;
    d->ht_used[htidx] = 0;
}

/* Creates an empty dict; no table is allocated until the first insert. */
dict *dictCreate(const dictType *type, dictEnv *env) {
    dict *d = memAllocAs(env->mem, sizeof(*d), MEM64_DICT);
    memset(d, 0, sizeof(*d));
    d->type = type;
    d->env = env;
    _dictReset(d, 0);
    _dictReset(d, 1);
    d->rehashidx = -1;
    return d;
}

static void _dictTrace(dict *d, uint16_t type, uint32_t c, uint64_t v) {
    if (d->traced)
        TRACE(d->env->trace, type, d->env->node, d->trace_db,
              d->trace_kind, c, v);
}

/* The exponent of the smallest power of two >= size, at least 4 buckets. */
static signed char _dictNextExp(uint64_t size) {
    signed char e = DICT_HT_INITIAL_EXP;
    if (size >= ((uint64_t)1 << 62)) return 62;
    while (((uint64_t)1 << e) < size) e++;
    return e;
}

/* The table size _dictExpand would pick for size entries: the smallest
 * power of two >= size, at least 4, capped at 2^62. */
uint64_t dictNextPower(uint64_t size) {
    return (uint64_t)1 << _dictNextExp(size);
}

/* Allocates a table able to hold size entries: table 0 if the dict has
 * none, otherwise table 1, which starts a rehash. Fails (C_ERR) if the
 * dict is already rehashing, if size is smaller than the entries present,
 * if the size would not change, or -- for the Try variant -- if memory is
 * refused. */
static int _dictExpand(dict *d, uint64_t size, int try) {
    if (dictIsRehashing(d) || d->ht_used[0] > size) return C_ERR;
    signed char exp = _dictNextExp(size);
    uint64_t newsize = (uint64_t)1 << exp;
    if (exp == d->ht_size_exp[0]) return C_ERR;
    if (newsize > SIZE_MAX / sizeof(dictEntry *)) {
        if (try) return C_ERR;
        memPanic("dict table too large");
    }
    size_t bytes = (size_t)newsize * sizeof(dictEntry *);
    size_t as = (size_t)newsize * MEM64_PTR;
    dictEntry **t = try ? memTryAllocAs(d->env->mem, bytes, as)
                        : memAllocAs(d->env->mem, bytes, as);
    if (!t) return C_ERR;
    memset(t, 0, bytes);
    int htidx = d->ht_table[0] == NULL ? 0 : 1;
    d->ht_size_exp[htidx] = exp;
    d->ht_used[htidx] = 0;
    d->ht_table[htidx] = t;
    if (htidx == 1) d->rehashidx = 0;
    d->version++;
    _dictTrace(d, GK_TR_TABLE_NEW, (uint32_t)htidx, newsize);
    return C_OK;
}

int dictExpand(dict *d, uint64_t size) { return _dictExpand(d, size, 0); }
/* Like dictExpand, but reports C_ERR only when memory is refused: a
 * refusal for any other reason (already rehashing, too small) is C_OK,
 * as callers such as DEBUG POPULATE expect. */
int dictTryExpand(dict *d, uint64_t size) {
    if (dictIsRehashing(d) || d->ht_used[0] > size) return C_OK;
    if (_dictNextExp(size) == d->ht_size_exp[0]) return C_OK;
    return _dictExpand(d, size, 1);
}

/* Shrinks (or grows) the table to the smallest power of two that holds the
 * current entries, never below 4 buckets. Only when resizing is enabled and
 * no rehash is in progress. */
int dictResize(dict *d) {
    if (d->env->resize_policy != DICT_RESIZE_ENABLE || dictIsRehashing(d))
        return C_ERR;
    uint64_t minimal = d->ht_used[0];
    if (minimal < DICT_HT_INITIAL_SIZE) minimal = DICT_HT_INITIAL_SIZE;
    return dictExpand(d, minimal);
}

/* True when the tables are under 10% full (and bigger than the minimum):
 * the server's cue to call dictResize. Integer arithmetic, as in Redis. */
int dictNeedsShrink(dict *d) {
    uint64_t size = dictSlots(d), used = dictSize(d);
    return size > DICT_HT_INITIAL_SIZE && (used * 100 / size < 10);
}

/* While a child process exists the policy is AVOID: rehashing would touch
 * every page of the table and defeat copy-on-write, so it only proceeds
 * when one table is at least 5 times the other. */
static int _dictRehashAllowed(dict *d) {
    int policy = d->env->resize_policy;
    if (policy == DICT_RESIZE_FORBID || !dictIsRehashing(d)) return 0;
    if (policy == DICT_RESIZE_AVOID) {
        uint64_t s0 = DICTHT_SIZE(d->ht_size_exp[0]);
        uint64_t s1 = DICTHT_SIZE(d->ht_size_exp[1]);
        if ((s1 > s0 && s1 / s0 < DICT_FORCE_RESIZE_RATIO) ||
            (s1 < s0 && s0 / s1 < DICT_FORCE_RESIZE_RATIO)) return 0;
    }
    return 1;
}

/* Moves every entry of table 0's bucket rehashidx into table 1. */
static uint32_t _dictMoveBucket(dict *d) {
    dictEntry *de = d->ht_table[0][d->rehashidx];
    uint64_t mask1 = DICTHT_SIZE_MASK(d->ht_size_exp[1]);
    uint32_t moved = 0;
    while (de) {
        dictEntry *next = de->next;
        uint64_t h = dictHashKey(d, de->key) & mask1;
        de->next = d->ht_table[1][h];
        d->ht_table[1][h] = de;
        d->ht_used[0]--;
        d->ht_used[1]++;
        moved++;
        de = next;
    }
    d->ht_table[0][d->rehashidx] = NULL;
    d->rehashidx++;
    return moved;
}

/* Table 0 is empty: table 1 takes its place and the rehash is over. */
static void _dictFinishRehash(dict *d) {
    _dictTrace(d, GK_TR_TABLE_FREE, 0, DICTHT_SIZE(d->ht_size_exp[0]));
    memFree(d->env->mem, d->ht_table[0]);
    d->ht_table[0] = d->ht_table[1];
    d->ht_used[0] = d->ht_used[1];
    d->ht_size_exp[0] = d->ht_size_exp[1];
    _dictReset(d, 1);
    d->rehashidx = -1;
}

/* Charges the server's CPU for dict work (cost.h), unless an observer
 * that is not part of the server's work is reading. */
static void _dictCharge(dict *d, uint64_t ns) {
    if (!d->env->quiet) d->env->cpu_ns += ns;
}

static uint64_t _dictMiss(dict *d) {
    return costMissNs(costWorkingSet(d->env->mem));
}

/* Performs n rehash steps: each moves one non-empty bucket of table 0, after
 * skipping at most n*10 empty ones in total. Returns 1 if buckets remain to
 * be moved, 0 if the rehash is complete (or not allowed now). The work done
 * is charged to the env's virtual CPU clock and traced as one record: c is
 * the first bucket, d packs (entries moved << 32) | buckets advanced. */
int dictRehash(dict *d, int n) {
    if (!_dictRehashAllowed(d)) return 0;
    int64_t empty_visits = (int64_t)n * 10;
    int64_t start = d->rehashidx;
    uint64_t moved = 0;
    int more = 1;
    while (n-- && d->ht_used[0] != 0) {
        while (d->ht_table[0][d->rehashidx] == NULL) {
            d->rehashidx++;
            if (--empty_visits == 0) goto done;
        }
        moved += _dictMoveBucket(d);
    }
done:;
    uint64_t visited = (uint64_t)(d->rehashidx - start);
    d->version++;
    _dictCharge(d, visited * d->env->ns_per_bucket +
                   moved * (d->env->ns_per_entry + _dictMiss(d)));
    _dictTrace(d, GK_TR_REHASH_STEP, (uint32_t)start,
               (moved << 32) | (visited & 0xffffffffu));
    if (d->ht_used[0] == 0) {
        _dictFinishRehash(d);
        more = 0;
    }
    return more;
}

/* Rehashes in batches of 100 steps until the batch that crosses ms of
 * virtual CPU time, as serverCron's active rehashing does. Returns the
 * number of steps requested. */
int dictRehashMilliseconds(dict *d, int ms) {
    if (d->pauserehash > 0) return 0;
    uint64_t start = d->env->cpu_ns, budget = (uint64_t)ms * 1000000;
    int rehashes = 0;
    while (dictRehash(d, 100)) {
        rehashes += 100;
        if (d->env->cpu_ns - start > budget) break;
    }
    return rehashes;
}

/* One step on behalf of an operation, unless a scan or safe iterator holds
 * the dict still. */
static void _dictRehashStep(dict *d) {
    if (d->pauserehash == 0) dictRehash(d, 1);
}

/* Inserts key with value val. C_ERR if the key already exists. */
int dictAdd(dict *d, void *key, void *val) {
    dictEntry *entry = dictAddRaw(d, key, NULL);
    if (!entry) return C_ERR;
    dictSetVal(d, entry, val);
    return C_OK;
}

/* Adds an entry for key and returns it, value unset, for the caller to
 * fill. If the key exists returns NULL and, when existing is not NULL,
 * stores the existing entry there. The dict takes ownership of key only on
 * success. */
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    if (dictIsRehashing(d)) _dictRehashStep(d);
    /* the hash, the bucket and the chain's keys compared */
    _dictCharge(d, COST_HASH_NS + 2 * _dictMiss(d));
    int64_t index = _dictKeyIndex(d, key, dictHashKey(d, key), existing);
    if (index == -1) return NULL;
    /* Insert at the chain head: recent entries are likelier to be used. */
    int htidx = dictIsRehashing(d) ? 1 : 0;
    dictEntry *entry = memAllocAs(d->env->mem, sizeof(*entry),
                                  MEM64_DICT_ENTRY);
    entry->next = d->ht_table[htidx][index];
    entry->v.u64 = 0;
    d->ht_table[htidx][index] = entry;
    d->ht_used[htidx]++;
    d->version++;
    entry->key = key;
    return entry;
}

static int _dictKeyEq(dict *d, const void *k1, const void *k2) {
    return k1 == k2 || d->type->keyCompare(d, k1, k2);
}

/* Returns the bucket index where key should go (in table 1 if rehashing),
 * or -1 if the key already exists or the table could not grow. */
static int64_t _dictKeyIndex(dict *d, const void *key, uint64_t hash,
                             dictEntry **existing) {
    uint64_t idx = 0;
    if (existing) *existing = NULL;
    if (_dictExpandIfNeeded(d) == C_ERR) return -1;
    for (int table = 0; table <= 1; table++) {
        idx = hash & DICTHT_SIZE_MASK(d->ht_size_exp[table]);
        for (dictEntry *he = d->ht_table[table][idx]; he; he = he->next) {
            if (_dictKeyEq(d, key, he->key)) {
                if (existing) *existing = he;
                return -1;
            }
        }
        if (!dictIsRehashing(d)) break;
    }
    return (int64_t)idx;
}

/* Lets the owner veto a growth that would exceed maxmemory (the keyspace
 * does this while the load factor is still under 1.618). */
static int _dictExpandAllowed(dict *d) {
    if (!d->type->expandAllowed) return 1;
    uint64_t size0 = DICTHT_SIZE(d->ht_size_exp[0]);
    uint64_t next = DICTHT_SIZE(_dictNextExp(d->ht_used[0] + 1));
    return d->type->expandAllowed(d, (size_t)(next * sizeof(dictEntry *)),
                                  (double)d->ht_used[0] / (double)size0);
}

/* Grows the table when it is full (load factor 1), or, while a child
 * process makes resizing undesirable, only when it is over 5 times full.
 * The new size is the next power of two above used+1: a doubling. */
static int _dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return C_OK;
    if (DICTHT_SIZE(d->ht_size_exp[0]) == 0)
        return dictExpand(d, DICT_HT_INITIAL_SIZE);
    uint64_t used = d->ht_used[0], size = DICTHT_SIZE(d->ht_size_exp[0]);
    int policy = d->env->resize_policy;
    if ((policy == DICT_RESIZE_ENABLE && used >= size) ||
        (policy != DICT_RESIZE_FORBID &&
         used / size > DICT_FORCE_RESIZE_RATIO)) {
        if (!_dictExpandAllowed(d)) return C_OK;
        return dictExpand(d, used + 1);
    }
    return C_OK;
}

/* Finds key's entry, or NULL. Performs a rehash step first. */
dictEntry *dictFind(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    /* the hash, the bucket, the entry and its key compared */
    _dictCharge(d, COST_HASH_NS + 3 * _dictMiss(d));
    return dictPeek(d, key);
}

/* dictFind for an observer: no rehash step, nothing changes. */
dictEntry *dictPeek(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    uint64_t h = dictHashKey(d, key);
    for (int table = 0; table <= 1; table++) {
        uint64_t idx = h & DICTHT_SIZE_MASK(d->ht_size_exp[table]);
        for (dictEntry *he = d->ht_table[table][idx]; he; he = he->next)
            if (_dictKeyEq(d, key, he->key)) return he;
        if (!dictIsRehashing(d)) return NULL;
    }
    return NULL;
}

/* The value stored under key, or NULL if key is absent (so a stored NULL
 * looks absent). Borrowed: no reference is taken. Like dictFind, performs
 * a rehash step. */
void *dictFetchValue(dict *d, const void *key) {
    dictEntry *he = dictFind(d, key);
    return he ? dictGetVal(he) : NULL;
}

static void _dictFreeEntry(dict *d, dictEntry *he) {
    if (d->type->keyDestructor) d->type->keyDestructor(d, he->key);
    if (d->type->valDestructor) d->type->valDestructor(d, he->v.val);
    memFree(d->env->mem, he);
}

/* Removes key's entry from its chain and returns it, or NULL if absent.
 * The entry is still allocated: the caller frees it or hands it over. */
static dictEntry *_dictGenericUnlink(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    _dictCharge(d, COST_HASH_NS + 3 * _dictMiss(d));
    uint64_t h = dictHashKey(d, key);
    for (int table = 0; table <= 1; table++) {
        uint64_t idx = h & DICTHT_SIZE_MASK(d->ht_size_exp[table]);
        dictEntry *he = d->ht_table[table][idx], *prev = NULL;
        while (he) {
            if (_dictKeyEq(d, key, he->key)) {
                if (prev) prev->next = he->next;
                else d->ht_table[table][idx] = he->next;
                d->ht_used[table]--;
                d->version++;
                return he;
            }
            prev = he;
            he = he->next;
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

/* C_OK if key was found and freed, C_ERR otherwise. */
int dictDelete(dict *d, const void *key) {
    dictEntry *he = _dictGenericUnlink(d, key);
    if (!he) return C_ERR;
    dictFreeUnlinkedEntry(d, he);
    return C_OK;
}

/* Unlinks key's entry without freeing it, so the caller can use it and
 * then call dictFreeUnlinkedEntry. NULL if absent. */
dictEntry *dictUnlink(dict *d, const void *key) {
    return _dictGenericUnlink(d, key);
}

/* Frees an entry that dictUnlink returned, running the type's key and
 * value destructors on it (set the value to NULL first to keep it alive).
 * NULL is a no-op. */
void dictFreeUnlinkedEntry(dict *d, dictEntry *he) {
    if (!he) return;
    _dictCharge(d, COST_FREE_NS * (d->type->keyDestructor ? 2 : 1));
    _dictFreeEntry(d, he);
}

static void _dictClear(dict *d, int htidx) {
    uint64_t size = DICTHT_SIZE(d->ht_size_exp[htidx]);
    for (uint64_t i = 0; i < size && d->ht_used[htidx] > 0; i++) {
        dictEntry *he = d->ht_table[htidx][i];
        while (he) {
            dictEntry *next = he->next;
            _dictFreeEntry(d, he);
            d->ht_used[htidx]--;
            he = next;
        }
    }
    if (d->ht_table[htidx]) {
        _dictTrace(d, GK_TR_TABLE_FREE, (uint32_t)htidx, size);
        memFree(d->env->mem, d->ht_table[htidx]);
    }
    _dictReset(d, htidx);
}

/* Removes every entry and both tables; the dict stays usable. */
void dictEmpty(dict *d) {
    _dictClear(d, 0);
    _dictClear(d, 1);
    d->rehashidx = -1;
    d->pauserehash = 0;
    d->version++;
}

/* Frees every entry (through the type's destructors), the tables and the
 * dict itself. No iterator may still be open on it. */
void dictRelease(dict *d) {
    dictEmpty(d);
    memFree(d->env->mem, d);
}

static uint64_t _dictFingerprint(dict *d) {
    uint64_t parts[6] = {
        (uint64_t)(uintptr_t)d->ht_table[0], (uint64_t)d->ht_size_exp[0],
        d->ht_used[0], (uint64_t)(uintptr_t)d->ht_table[1],
        (uint64_t)d->ht_size_exp[1], d->ht_used[1] };
    uint64_t h = 0;
    for (int j = 0; j < 6; j++) {
        h += parts[j];
        h = (~h) + (h << 21);
        h ^= h >> 24;
        h = h * 265;
        h ^= h >> 14;
        h = h * 21;
        h ^= h >> 28;
        h += h << 31;
    }
    return h;
}

/* An unsafe iterator: the dict must not change while it is in use, not
 * even by the rehash step that dictFind takes; dictReleaseIterator checks
 * this by fingerprint and stops the engine on a change. Use
 * dictGetSafeIterator to modify the dict while iterating. */
dictIterator *dictGetIterator(dict *d) {
    dictIterator *iter = memAlloc(d->env->mem, sizeof(*iter));
    iter->d = d;
    iter->table = 0;
    iter->index = -1;
    iter->safe = 0;
    iter->entry = iter->nextEntry = NULL;
    iter->fingerprint = 0;
    return iter;
}

/* A safe iterator allows the dict to be modified during the iteration, by
 * pausing rehashing until it is released. */
dictIterator *dictGetSafeIterator(dict *d) {
    dictIterator *i = dictGetIterator(d);
    i->safe = 1;
    return i;
}

/* Returns the next entry (table 0 first, then table 1), or NULL at the end.
 * The returned entry may be deleted before the next call. */
dictEntry *dictNext(dictIterator *iter) {
    for (;;) {
        if (iter->entry == NULL) {
            if (iter->index == -1 && iter->table == 0) {
                if (iter->safe) dictPauseRehashing(iter->d);
                else iter->fingerprint = _dictFingerprint(iter->d);
            }
            iter->index++;
            uint64_t size = DICTHT_SIZE(iter->d->ht_size_exp[iter->table]);
            if ((uint64_t)iter->index >= size) {
                if (dictIsRehashing(iter->d) && iter->table == 0) {
                    iter->table++;
                    iter->index = 0;
                    if (DICTHT_SIZE(iter->d->ht_size_exp[1]) == 0) break;
                } else {
                    break;
                }
            }
            iter->entry = iter->d->ht_table[iter->table][iter->index];
        } else {
            iter->entry = iter->nextEntry;
        }
        if (iter->entry) {
            iter->nextEntry = iter->entry->next;
            /* an entry in hash order: its bucket, read in memory order
             * with the ones around it, then itself and its key */
            _dictCharge(iter->d, COST_SEQ_NS + 2 * _dictMiss(iter->d));
            return iter->entry;
        }
    }
    return NULL;
}

/* Frees an iterator. For a safe one that started, resumes rehashing; for
 * an unsafe one that started, checks the fingerprint and stops the engine
 * if the dict changed during the iteration. */
void dictReleaseIterator(dictIterator *iter) {
    if (!(iter->index == -1 && iter->table == 0)) {
        if (iter->safe) dictResumeRehashing(iter->d);
        else if (iter->fingerprint != _dictFingerprint(iter->d))
            memPanic("dict modified during an unsafe iteration");
    }
    memFree(iter->d->env->mem, iter);
}

/* Picks a random non-empty bucket, then a random entry of its chain. Not
 * uniform over entries (long chains are under-sampled), like Redis. */
dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    dictEntry *he;
    gkRng *rng = d->env->rng;
    if (dictIsRehashing(d)) {
        uint64_t s0 = DICTHT_SIZE(d->ht_size_exp[0]);
        do {
            /* Buckets of table 0 below rehashidx are known empty. */
            uint64_t span = dictSlots(d) - (uint64_t)d->rehashidx;
            uint64_t h = (uint64_t)d->rehashidx + rngNext(rng) % span;
            he = h >= s0 ? d->ht_table[1][h - s0] : d->ht_table[0][h];
        } while (he == NULL);
    } else {
        uint64_t m = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        do {
            he = d->ht_table[0][rngNext(rng) & m];
        } while (he == NULL);
    }
    uint64_t len = 0;
    for (dictEntry *e = he; e; e = e->next) len++;
    uint64_t pick = rngNext(rng) % len;
    while (pick--) he = he->next;
    return he;
}

/* Samples up to count entries from random places, walking consecutive
 * buckets; faster than count calls to dictGetRandomKey but not uniform.
 * Returns how many it stored in des. */
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count) {
    if (dictSize(d) < count) count = (unsigned int)dictSize(d);
    uint64_t maxsteps = (uint64_t)count * 10;
    for (unsigned int j = 0; j < count; j++) {
        if (dictIsRehashing(d)) _dictRehashStep(d);
        else break;
    }
    int tables = dictIsRehashing(d) ? 2 : 1;
    uint64_t maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
    if (tables > 1 && DICTHT_SIZE_MASK(d->ht_size_exp[1]) > maxmask)
        maxmask = DICTHT_SIZE_MASK(d->ht_size_exp[1]);
    uint64_t i = rngNext(d->env->rng) & maxmask, emptylen = 0;
    unsigned int stored = 0;
    while (stored < count && maxsteps--) {
        for (int j = 0; j < tables; j++) {
            if (tables == 2 && j == 0 && i < (uint64_t)d->rehashidx) {
                /* Already moved: nothing in table 0 there. */
                if (i >= DICTHT_SIZE(d->ht_size_exp[1]))
                    i = (uint64_t)d->rehashidx;
                else
                    continue;
            }
            if (i >= DICTHT_SIZE(d->ht_size_exp[j])) continue;
            dictEntry *he = d->ht_table[j][i];
            if (he == NULL) {
                emptylen++;
                if (emptylen >= 5 && emptylen > count) {
                    i = rngNext(d->env->rng) & maxmask;
                    emptylen = 0;
                }
            } else {
                emptylen = 0;
                while (he) {
                    des[stored++] = he;
                    if (stored == count) return stored;
                    he = he->next;
                }
            }
        }
        i = (i + 1) & maxmask;
    }
    return stored;
}

/* RANDOMKEY's sampler: a random pick among up to 15 sampled entries, which
 * is fairer than dictGetRandomKey when chains have different lengths. */
dictEntry *dictGetFairRandomKey(dict *d) {
    dictEntry *entries[15];
    unsigned int count = dictGetSomeKeys(d, entries, 15);
    if (count == 0) return dictGetRandomKey(d);
    return entries[rngNext(d->env->rng) % count];
}

/* THE REVERSE-BINARY SCAN CURSOR
 *
 * dictScan walks a dict a few buckets per call, keeping no state on the
 * server: all it needs is the cursor the client sends back. It guarantees
 * that every entry present for the whole walk is returned at least once,
 * even if the table grows or shrinks between calls.
 *
 * The trick is the order of the buckets. Instead of 0, 1, 2, 3 ... the
 * cursor is incremented in its *reversed* bits: reverse, add one, reverse
 * back. For a table of 8 buckets (mask 0b111) that gives
 *
 *     0 -> 4 -> 2 -> 6 -> 1 -> 5 -> 3 -> 7 -> 0
 *     000  100  010  110  001  101  011  111
 *
 * Why this order? With size 2^n, an entry lives in bucket hash & mask.
 * When the table doubles to 2^(n+1), the entries of bucket b spread over
 * buckets b and b + 2^n -- the same low n bits, one more high bit. Walking
 * the high bits first means that when the table changes size, the buckets
 * already visited in the old table map exactly to a prefix of the visit
 * order in the new table:
 *
 *   - growing 8 -> 16 after visiting 0, 4: the cursor is 2, and the
 *     16-table continues 2, 10, 6, 14, ...; buckets 0, 8, 4, 12 hold only
 *     entries already returned from old buckets 0 and 4;
 *   - shrinking 16 -> 8 after 0, 8, 4, 12: the cursor is 2 and the 8-table
 *     continues 2, 6, ...; old buckets 0 and 4 merged all of 0, 8, 4, 12,
 *     which were done. Nothing is missed, though a shrink can make entries
 *     come back twice.
 *
 * While rehashing, both tables exist. The call visits the bucket of the
 * smaller table and then every bucket of the larger table that expands it
 * (v & m_small with each combination of the extra high bits), so all the
 * places an entry can be in right now are covered at once. That is why a
 * call can return more than COUNT entries.
 *
 * Before each return, "v |= ~mask" sets every bit above the mask so that the
 * increment of the reversed value carries into the first unmasked bit. The
 * walk is over when the cursor wraps to 0. */
static uint64_t _dictScanNext(uint64_t v, uint64_t mask) {
    v |= ~mask;
    v = reverseBits64(v);
    v++;
    return reverseBits64(v);
}

static void _dictScanBucket(dict *d, int table, uint64_t idx,
                            dictScanFunction *fn,
                            dictScanBucketFunction *bucketfn, void *pd) {
    _dictTrace(d, GK_TR_SCAN_BUCKET, (uint32_t)table, idx);
    if (bucketfn) bucketfn(d, table, idx);
    dictEntry *de = d->ht_table[table][idx];
    while (de) {
        dictEntry *next = de->next;
        _dictCharge(d, 3 * _dictMiss(d));
        fn(pd, de);
        de = next;
    }
}

/* Calls fn for every entry of the bucket(s) at cursor v and returns the next
 * cursor, 0 when the walk is complete. Rehashing is paused for the duration
 * of the call, so fn must not add or delete entries. */
uint64_t dictScan(dict *d, uint64_t v, dictScanFunction *fn,
                  dictScanBucketFunction *bucketfn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    dictPauseRehashing(d);
    if (!dictIsRehashing(d)) {
        uint64_t m0 = DICTHT_SIZE_MASK(d->ht_size_exp[0]);
        _dictScanBucket(d, 0, v & m0, fn, bucketfn, privdata);
        v = _dictScanNext(v, m0);
    } else {
        int small = 0, big = 1;
        if (DICTHT_SIZE(d->ht_size_exp[0]) > DICTHT_SIZE(d->ht_size_exp[1])) {
            small = 1;
            big = 0;
        }
        uint64_t m0 = DICTHT_SIZE_MASK(d->ht_size_exp[small]);
        uint64_t m1 = DICTHT_SIZE_MASK(d->ht_size_exp[big]);
        _dictScanBucket(d, small, v & m0, fn, bucketfn, privdata);
        do {
            _dictScanBucket(d, big, v & m1, fn, bucketfn, privdata);
            v = _dictScanNext(v, m1);
        } while (v & (m0 ^ m1));
    }
    dictResumeRehashing(d);
    return v;
}

/* Appends the statistics of one table in the exact text of Redis 7.0's
 * DEBUG HTSTATS. Chains of 49 or more entries are counted but, as in Redis,
 * not listed. Returns the bytes written (the text is cut at bufsize-1). */
static size_t _dictGetStatsHt(char *buf, size_t bufsize, dict *d, int htidx) {
    const char *name = htidx == 0 ? "main hash table" : "rehashing target";
    if (bufsize == 0) return 0;
    if (d->ht_used[htidx] == 0) {
        snprintf(buf, bufsize, "Hash table %d stats (%s):\n"
                 "No stats available for empty dictionaries\n", htidx, name);
        return strlen(buf);
    }
    uint64_t clvector[DICT_STATS_VECTLEN] = {0};
    uint64_t size = DICTHT_SIZE(d->ht_size_exp[htidx]);
    uint64_t slots = 0, maxchain = 0, totchain = 0;
    for (uint64_t i = 0; i < size; i++) {
        uint64_t chain = 0;
        for (dictEntry *he = d->ht_table[htidx][i]; he; he = he->next)
            chain++;
        clvector[chain < DICT_STATS_VECTLEN ? chain
                                            : DICT_STATS_VECTLEN - 1]++;
        if (chain == 0) continue;
        slots++;
        if (chain > maxchain) maxchain = chain;
        totchain += chain;
    }
    size_t l = 0;
    l += (size_t)snprintf(buf, bufsize,
        "Hash table %d stats (%s):\n table size: %llu\n"
        " number of elements: %llu\n different slots: %llu\n"
        " max chain length: %llu\n avg chain length (counted): %.02f\n"
        " avg chain length (computed): %.02f\n Chain length distribution:\n",
        htidx, name, (unsigned long long)size,
        (unsigned long long)d->ht_used[htidx], (unsigned long long)slots,
        (unsigned long long)maxchain, (double)((float)totchain / slots),
        (double)((float)d->ht_used[htidx] / slots));
    for (int i = 0; i < DICT_STATS_VECTLEN - 1; i++) {
        if (clvector[i] == 0) continue;
        if (l >= bufsize) break;
        l += (size_t)snprintf(buf + l, bufsize - l, "   %d: %llu (%.02f%%)\n",
            i, (unsigned long long)clvector[i],
            (double)(((float)clvector[i] / size) * 100));
    }
    buf[bufsize - 1] = '\0';
    return strlen(buf);
}

/* Writes the statistics of table 0, and of table 1 while rehashing. */
size_t dictGetStats(char *buf, size_t bufsize, dict *d) {
    size_t l = _dictGetStatsHt(buf, bufsize, d, 0);
    if (dictIsRehashing(d) && l < bufsize)
        l += _dictGetStatsHt(buf + l, bufsize - l, d, 1);
    if (bufsize) buf[bufsize - 1] = '\0';
    return strlen(buf);
}
