/* db.c -- the keyspace: lookups with lazy expiry, adds and deletes, the
 * active expire cycle, the cron's resize and rehash of the databases, and
 * the generic SCAN. */
#include <string.h>
#include <strings.h>
#include "server.h"
#include "cost.h"
#include "stream.h"
#include "intset.h"
#include "listpack.h"
#include "recovery.h"

/* ---- Lookups. ---- */

/* The recovery ledger's scratch server wants to know, before it happens,
 * which key a write is about to change (its own value before the change
 * may be the acknowledged one). Nothing for any other server. */
static void _willChange(redisServer *s, redisDb *db, robj *key) {
    if (s->keyhook) s->keyhook(s->keyhook_ctx, db, key->v.ptr);
}

/* Returns the value of key, or NULL if it is missing or has just expired
 * (lazy expiry: an expired key is deleted when someone looks at it). Hits
 * and misses are counted for INFO unless this is a write lookup. */
robj *lookupKeyReadWithFlags(redisDb *db, client *c, robj *key, int flags) {
    redisServer *s = c->srv;
    if (flags & LOOKUP_WRITE) _willChange(s, db, key);
    dictEntry *de = dictFind(db->dict, key->v.ptr);
    robj *val = NULL;
    if (de) {
        val = dictGetVal(de);
        /* A write on a writable replica deletes the expired key. */
        int force = (flags & LOOKUP_WRITE) &&
                    !(s->masterhost && s->cfg.repl_slave_ro);
        if (expireIfNeededForce(s, db, key, force)) val = NULL;
    }
    /* An access, unless the caller only peeks; not while a child holds a
     * copy of the dataset, as Redis spares the pages it shares with it. */
    if (val && !(flags & LOOKUP_NOTOUCH) && !hasActiveChildProcess(s))
        objectTouch(s, val);
    if (!val && !(flags & (LOOKUP_NONOTIFY | LOOKUP_WRITE)))
        notifyKeyspaceEvent(s, NOTIFY_KEY_MISS, "keymiss", key, db->id);
    if (!(flags & LOOKUP_WRITE)) {
        if (val) s->stat_keyspace_hits++;
        else s->stat_keyspace_misses++;
    }
    return val;
}

/* lookupKeyReadWithFlags in the client's db, counting a hit or a miss. The
 * value is borrowed: no reference is taken. May delete the key if it has
 * expired, which propagates a DEL (or UNLINK). */
robj *lookupKeyRead(client *c, robj *key) {
    return lookupKeyReadWithFlags(c->db, c, key, LOOKUP_NONE);
}

/* As lookupKeyRead for a command about to write the key: no hit or miss is
 * counted. The expired-key deletion still happens. */
robj *lookupKeyWrite(client *c, robj *key) {
    return lookupKeyReadWithFlags(c->db, c, key, LOOKUP_WRITE);
}

/* As lookupKeyRead, replying with the given protocol text if missing. */
robj *lookupKeyReadOrReply(client *c, robj *key, const char *reply) {
    robj *o = lookupKeyRead(c, key);
    if (!o) addReplyFixed(c, reply);
    return o;
}

/* As lookupKeyWrite, replying with the given protocol text if missing. */
robj *lookupKeyWriteOrReply(client *c, robj *key, const char *reply) {
    robj *o = lookupKeyWrite(c, key);
    if (!o) addReplyFixed(c, reply);
    return o;
}

/* ---- Adding and deleting. ---- */

/* Adds a key that must not exist; the db takes the caller's reference to
 * val and copies the key name. */
void dbAdd(redisServer *s, redisDb *db, robj *key, robj *val) {
    _willChange(s, db, key);
    sds copy = sdsdup(s->mem, key->v.ptr);
    if (dictAdd(db->dict, copy, val) != C_OK)
        memPanic("dbAdd on an existing key");
    signalKeyAsReady(s, db, key, val->type);
    notifyKeyspaceEvent(s, NOTIFY_NEW, "new", key, db->id);
}

/* Replaces the value of an existing key, keeping its TTL. */
void dbOverwrite(redisServer *s, redisDb *db, robj *key, robj *val) {
    _willChange(s, db, key);
    dictEntry *de = dictFind(db->dict, key->v.ptr);
    if (!de) memPanic("dbOverwrite on a missing key");
    robj *old = dictGetVal(de);
    if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU) val->lru = old->lru;
    /* A blocked XREADGROUP loses its group with the stream. */
    if (old->type == OBJ_STREAM) signalKeyAsReady(s, db, key, OBJ_STREAM);
    dictSetVal(db->dict, de, val);
    decrRefCount(s, old);
}

/* The high-level SET: adds or overwrites, takes a new reference to val,
 * and drops any TTL unless keepttl. */
void setKey(client *c, redisDb *db, robj *key, robj *val, int keepttl) {
    _willChange(c->srv, db, key);
    dictEntry *de = dictFind(db->dict, key->v.ptr);
    if (!de) {
        dbAdd(c->srv, db, key, val);
    } else {
        robj *old = dictGetVal(de);
        if (c->srv->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU)
            val->lru = old->lru;
        if (old->type == OBJ_STREAM)
            signalKeyAsReady(c->srv, db, key, OBJ_STREAM);
        dictSetVal(db->dict, de, val);
        decrRefCount(c->srv, old);
    }
    incrRefCount(val);
    if (!keepttl) removeExpire(db, key);
    signalModifiedKey(c, db, key);
}

/* Deletes key and its TTL. The expires dict shares the key's sds with the
 * main dict, so it must go first. Freeing a value of many allocations
 * costs the main thread what it costs the lazy-free thread (UNLINK).
 * Returns 1 if the key existed. */
int dbDelete(redisServer *s, redisDb *db, robj *key) {
    _willChange(s, db, key);
    dictEntry *de = dictUnlink(db->dict, key->v.ptr);
    if (!de) return 0;
    if (s->audit.active) auditKeyDeleted(s, db, dictGetKey(de));
    if (((robj *)dictGetVal(de))->type == OBJ_STREAM)
        signalKeyAsReady(s, db, key, OBJ_STREAM);
    if (dictSize(db->expires) > 0) dictDelete(db->expires, key->v.ptr);
    dictFreeUnlinkedEntry(db->dict, de);
    return 1;
}

/* 1 if key is in the main dict, else 0. The TTL is not checked and nothing
 * is deleted: a key past its expire time still counts until removed. */
int dbExists(redisDb *db, robj *key) {
    return dictFind(db->dict, key->v.ptr) != NULL;
}

/* Every write to a key calls this: it dooms the transactions watching
 * the key and tells the clients that may hold it in their cache
 * (tracking.c) that it changed, c being the client that changed it. */
void signalModifiedKey(client *c, redisDb *db, robj *key) {
    touchWatchedKey(c->srv, db, key);
    trackingInvalidateKey(c->srv, c, key, 1);
}

/* The same for a change no client made: an expiry or an eviction. */
void signalModifiedKeyByServer(redisServer *s, redisDb *db, robj *key) {
    touchWatchedKey(s, db, key);
    trackingInvalidateKey(s, NULL, key, 1);
}

/* What freeing a db's keys costs (cost.h): per key its entry, its name
 * and its value object, blocks anywhere in memory, and what the value
 * holds. */
static uint64_t _dbFreeCost(redisServer *s, dict *d) {
    if (dictSize(d) == 0) return 0;
    uint64_t far = costFreeFarNs(costWorkingSet(s->mem)), ns = 0;
    s->denv.quiet++;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        robj *val = dictGetVal(de);
        ns += 3 * far;
        if (val->refcount == 1) ns += freeObjectCost(s, val);
    }
    dictReleaseIterator(di);
    s->denv.quiet--;
    return ns;
}

/* Hands a free of cost_ns, of objects objects as INFO counts them, to
 * the lazy-free thread. Waking it when it sleeps is what UNLINK and
 * FLUSHALL ASYNC spend most of their time on. */
static void _lazyFreeJob(redisServer *s, bioFreeFn *fn, void *arg,
                         uint64_t cost_ns, unsigned long objects) {
    s->denv.cpu_ns += bioPendingJobsOfType(&s->bio, BIO_LAZY_FREE) ?
                      COST_BIO_QUEUE_NS : COST_BIO_WAKE_NS;
    bioCreateLazyFreeJob(&s->bio, fn, s, arg, cost_ns, serverNow(s));
    s->lazyfree_objects += objects;
}

/* The thread has freed objects objects. */
static void _lazyFreed(redisServer *s, unsigned long objects) {
    s->lazyfree_objects -= objects < s->lazyfree_objects ?
                           objects : s->lazyfree_objects;
    s->stat_lazyfreed_objects += objects;
}

/* A db's old dicts, freed by the lazy-free thread (FLUSHALL ASYNC): as
 * many objects as it had keys, as 7.0 counts them. */
typedef struct { dict *keys, *expires; unsigned long objects; } oldDb;

static void _lazyFreeDb(void *ctx, void *arg) {
    redisServer *s = ctx;
    oldDb *old = arg;
    s->denv.quiet++;
    dictRelease(old->expires);          /* it shares the keys' names */
    dictRelease(old->keys);
    _lazyFreed(s, old->objects);
    memFree(s->mem, old);
    s->denv.quiet--;
}

/* Empties one db (or all with dbnum -1); returns the keys removed. With
 * async, a db's keys are handed to the lazy-free thread in their old
 * dicts, and new empty ones take their place at once (on a server without
 * threads, the recovery ledger's shadow, bio.c frees them at once). Every tracking
 * client is told to forget all its keys, whichever db. */
long long emptyDataFlags(redisServer *s, int dbnum, int async) {
    long long removed = 0;
    if (s->audit.active && (dbnum == -1 || dbnum == s->audit.dbid))
        auditClear(s);
    trackingInvalidateKeysOnFlush(s);
    for (int j = 0; j < s->cfg.databases; j++) {
        if (dbnum != -1 && dbnum != j) continue;
        redisDb *db = &s->db[j];
        if (s->keyhook) s->keyhook(s->keyhook_ctx, db, NULL);
        touchAllWatchedKeysInDb(s, db, NULL);
        scanDatabaseForDeletedStreams(s, db, NULL);
        removed += (long long)dictSize(db->dict);
        uint64_t cost = _dbFreeCost(s, db->dict);
        if (async) {            /* even an empty db, as 7.0 does */
            oldDb *old = memAllocAs(s->mem, sizeof(*old), 3 * MEM64_PTR);
            old->keys = db->dict;
            old->expires = db->expires;
            old->objects = (unsigned long)dictSize(db->dict);
            /* no longer the db's: their end is not the db's tables' */
            old->keys->traced = old->expires->traced = 0;
            serverCreateDbDicts(s, db);
            _lazyFreeJob(s, _lazyFreeDb, old, cost, old->objects);
        } else {
            s->denv.cpu_ns += cost;
            s->denv.quiet++;
            dictEmpty(db->dict);
            dictEmpty(db->expires);
            s->denv.quiet--;
        }
        db->avg_ttl = 0;
        db->expires_cursor = 0;
    }
    return removed;
}

long long emptyData(redisServer *s, int dbnum) {
    return emptyDataFlags(s, dbnum, 0);
}

/* Points the client at db id; C_ERR (nothing changed, no reply) if id is
 * not in 0..databases-1. */
int selectDb(client *c, int id) {
    if (id < 0 || id >= c->srv->cfg.databases) return C_ERR;
    c->db = &c->srv->db[id];
    return C_OK;
}

/* ---- Expiry. ---- */

/* Sets key's absolute expire time in unix ms; the key must exist. */
void setExpire(client *c, redisDb *db, robj *key, long long when) {
    _willChange(c->srv, db, key);
    dictEntry *kde = dictFind(db->dict, key->v.ptr);
    if (!kde) memPanic("setExpire on a missing key");
    dictEntry *existing;
    dictEntry *de = dictAddRaw(db->expires, dictGetKey(kde), &existing);
    if (!de) de = existing;
    dictSetSignedIntegerVal(de, when);
    (void)c;
}

/* key's absolute expire time in unix ms, or -1 if it has none. */
long long getExpire(redisDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return -1;
    dictEntry *de = dictFind(db->expires, key->v.ptr);
    return de ? dictGetSignedIntegerVal(de) : -1;
}

/* Drops key's TTL; 1 if it had one, else 0. Watchers are not touched. */
int removeExpire(redisDb *db, robj *key) {
    return dictDelete(db->expires, key->v.ptr) == C_OK;
}

/* Nothing expires while the AOF is loaded: a key replayed with a TTL
 * already past is deleted later, by a lookup or the expire cycle. */
int keyIsExpired(redisServer *s, redisDb *db, robj *key) {
    if (s->loading) return 0;
    long long when = getExpire(db, key);
    if (when < 0) return 0;
    return s->mstime > when;
}

/* Deletes an expired key, counts it, and propagates a DEL (UNLINK with
 * lazyfree-lazy-expire): the AOF never relies on the clock of the server
 * that replays it. A key found expired by a command is deleted within
 * that command's execution unit (a SET on it becomes MULTI, DEL, SET,
 * EXEC); one found by the expire cycle is propagated at once. The
 * deletion's virtual CPU time is an "expire-del" latency sample. */
void deleteExpiredKeyAndPropagate(redisServer *s, redisDb *db, robj *key) {
    uint64_t cpu0 = s->denv.cpu_ns;
    dbDelete(s, db, key);
    notifyKeyspaceEvent(s, NOTIFY_EXPIRED, "expired", key, db->id);
    signalModifiedKeyByServer(s, db, key);
    s->stat_expiredkeys++;
    latencyAddSampleIfNeeded(s, "expire-del", latencyMsSince(s, cpu0));
    const char *verb = s->cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL";
    robj *argv[2] = { createStringObject(s, verb, strlen(verb)), key };
    alsoPropagate(s, db->id, argv, 2);
    decrRefCount(s, argv[0]);
    if (s->execution_nesting == 0) {
        propagatePendingCommands(s);
        if (s->recovery) recoveryUnitEnd(s, NULL);
    }
}

/* Lazy expiry: if key has expired, deletes it and returns 1. */
int expireIfNeeded(redisServer *s, redisDb *db, robj *key) {
    return expireIfNeededForce(s, db, key, 0);
}

/* The same; on a replica, force_delete deletes the key as a master would
 * (a write on a writable replica), where otherwise a replica deletes
 * nothing: its master's DEL will come. Meanwhile its clients see the key
 * gone, and its master's commands see it. */
int expireIfNeededForce(redisServer *s, redisDb *db, robj *key,
                        int force_delete) {
    if (!keyIsExpired(s, db, key)) return 0;
    if (s->masterhost) {
        if (s->current_client && s->current_client == s->master) return 0;
        if (!force_delete) return 1;
    }
    /* While clients are paused the dataset stays as it is: the key reads
     * as gone but is deleted (and the DEL propagated) after the pause. */
    if (checkClientPauseTimeoutAndReturnIfPaused(s)) return 1;
    deleteExpiredKeyAndPropagate(s, db, key);
    TRACE(s->denv.trace, GK_TR_EXPIRE, (uint16_t)s->node, (uint32_t)db->id,
          0, 0, 0);
    return 1;
}

/* ---- Active expiry. ----
 *
 * Lazy expiry alone would keep expired keys that nobody reads forever, so
 * the server also samples keys with a TTL: up to 20 per database per loop,
 * walking the expires table with a cursor, deleting the expired ones and
 * repeating while more than 10% of a sample had expired. The SLOW cycle runs
 * from serverCron with up to 25% of the CPU between two ticks; the FAST
 * cycle runs from beforeSleep for at most 1 ms, at most every 2 ms, and only
 * when the last cycle ran out of time or many keys were stale. Virtual CPU
 * time is charged per key sampled so the time limits mean something. */
#define EXPIRE_KEYS_PER_LOOP 20
#define EXPIRE_FAST_DURATION_US 1000
#define EXPIRE_SLOW_TIME_PERC 25
#define EXPIRE_ACCEPTABLE_STALE 10
#define EXPIRE_NS_PER_SAMPLE 60

typedef struct expireState {
    long long now;
    uint64_t start_ns, limit_ns;
    long long total_sampled, total_expired;
    int timelimit_exit;
} expireState;

/* Samples one bucket of each table of db->expires at the cursor. */
static void _expireSampleBucket(redisServer *s, redisDb *db, expireState *st,
                                long long *sampled, long long *expired,
                                long long *ttl_sum, long long *ttl_n) {
    dict *d = db->expires;
    for (int table = 0; table < 2; table++) {
        if (table == 1 && !dictIsRehashing(d)) break;
        uint64_t idx = db->expires_cursor &
                       DICTHT_SIZE_MASK(d->ht_size_exp[table]);
        dictEntry *de = d->ht_table[table][idx];
        while (de) {
            dictEntry *e = de;
            de = de->next;
            (*sampled)++;
            s->denv.cpu_ns += EXPIRE_NS_PER_SAMPLE;
            long long ttl = dictGetSignedIntegerVal(e) - st->now;
            if (ttl > 0) { *ttl_sum += ttl; (*ttl_n)++; }
            if (st->now > dictGetSignedIntegerVal(e)) {
                sds k = dictGetKey(e);
                robj *key = createStringObject(s, k, sdslen(k));
                deleteExpiredKeyAndPropagate(s, db, key);
                TRACE(s->denv.trace, GK_TR_EXPIRE, (uint16_t)s->node,
                      (uint32_t)db->id, 1, 0, 0);
                decrRefCount(s, key);
                (*expired)++;
            }
        }
    }
    db->expires_cursor++;
}

/* Expires keys in one db until a sample is mostly fresh or time is up. */
static void _expireDb(redisServer *s, redisDb *db, expireState *st) {
    int iteration = 0, repeat;
    do {
        uint64_t num = dictSize(db->expires);
        if (num == 0) { db->avg_ttl = 0; break; }
        uint64_t slots = dictSlots(db->expires);
        if (slots > DICT_HT_INITIAL_SIZE && num * 100 / slots < 1) break;
        if (num > EXPIRE_KEYS_PER_LOOP) num = EXPIRE_KEYS_PER_LOOP;
        long long sampled = 0, expired = 0, ttl_sum = 0, ttl_n = 0;
        uint64_t checked = 0, max_buckets = num * 20;
        while ((uint64_t)sampled < num && checked < max_buckets &&
               dictSize(db->expires) > 0) {
            _expireSampleBucket(s, db, st, &sampled, &expired, &ttl_sum,
                                &ttl_n);
            checked++;
        }
        /* INFO's avg_ttl: a moving average over the samples, as Redis. */
        if (ttl_n) {
            long long avg = ttl_sum / ttl_n;
            if (db->avg_ttl == 0) db->avg_ttl = avg;
            db->avg_ttl = (db->avg_ttl / 50) * 49 + avg / 50;
        }
        st->total_expired += expired;
        st->total_sampled += sampled;
        if ((++iteration & 0xf) == 0 &&
            s->denv.cpu_ns - st->start_ns > st->limit_ns) {
            st->timelimit_exit = 1;
            break;
        }
        repeat = sampled == 0 ||
                 expired * 100 / sampled > EXPIRE_ACCEPTABLE_STALE;
    } while (repeat);
}

/* One run of active expiry (see above): type is ACTIVE_EXPIRE_CYCLE_SLOW
 * from serverCron or _FAST from beforeSleep. Deleted keys are counted,
 * touch their watchers and are propagated as DEL or UNLINK. Charges virtual
 * CPU (an "expire-cycle" latency sample) and updates
 * expire_timelimit_exit and the stale percentage. Does nothing while
 * DEBUG SET-ACTIVE-EXPIRE 0 holds. */
void activeExpireCycle(redisServer *s, int type) {
    if (s->active_expire_disabled) return;
    /* Nothing expires while clients are paused (see expireIfNeeded). */
    if (checkClientPauseTimeoutAndReturnIfPaused(s)) return;
    expireState st = { s->mstime, s->denv.cpu_ns, 0, 0, 0, 0 };
    int dbs = CRON_DBS_PER_CALL;
    if (type == ACTIVE_EXPIRE_CYCLE_FAST) {
        /* Redis 7.0 compares its stale fraction (0..1) with the acceptable
         * percentage (10), which it is always below: in effect the FAST
         * cycle runs only after a SLOW cycle ran out of time. */
        if (!s->expire_timelimit_exit) return;
        uint64_t now = s->el->backend.now(s->el->backend.ctx);
        if (s->last_fast_expire_ns &&
            now < s->last_fast_expire_ns + EXPIRE_FAST_DURATION_US * 2000)
            return;
        s->last_fast_expire_ns = now;
        st.limit_ns = EXPIRE_FAST_DURATION_US * 1000ULL;
    } else {
        st.limit_ns = (uint64_t)EXPIRE_SLOW_TIME_PERC * 1000000000ULL /
                      (uint64_t)s->hz / 100;
    }
    if (dbs > s->cfg.databases || s->expire_timelimit_exit)
        dbs = s->cfg.databases;
    for (int j = 0; j < dbs && !st.timelimit_exit; j++) {
        redisDb *db = &s->db[s->expire_db % (unsigned)s->cfg.databases];
        s->expire_db++;
        _expireDb(s, db, &st);
    }
    s->expire_timelimit_exit = st.timelimit_exit;
    latencyAddSampleIfNeeded(s, "expire-cycle",
                             latencyMsSince(s, st.start_ns));
    long long perc = st.total_sampled
        ? st.total_expired * 10000 / st.total_sampled : 0;
    s->stat_expired_stale_perc_x100 =
        (perc * 5 + s->stat_expired_stale_perc_x100 * 95) / 100;
}

/* ---- Cron: resizing and rehashing the databases. ---- */

/* Shrinks a database's tables when they are under 10% full. */
void tryResizeHashTables(redisServer *s, int dbid) {
    if (dictNeedsShrink(s->db[dbid].dict)) dictResize(s->db[dbid].dict);
    if (dictNeedsShrink(s->db[dbid].expires))
        dictResize(s->db[dbid].expires);
}

/* Gives 1 ms of (virtual) CPU to the keyspace's rehash, or else to the
 * expires dict's. Returns 1 if it did any work. */
int incrementallyRehash(redisServer *s, int dbid) {
    if (dictIsRehashing(s->db[dbid].dict)) {
        dictRehashMilliseconds(s->db[dbid].dict, 1);
        return 1;
    }
    if (dictIsRehashing(s->db[dbid].expires)) {
        dictRehashMilliseconds(s->db[dbid].expires, 1);
        return 1;
    }
    return 0;
}

/* ---- SCAN, SSCAN, HSCAN, ZSCAN. ---- */

/* Parses a cursor as strtoul does: a sign is accepted ("-1" wraps), but not
 * leading spaces, trailing bytes or overflow. */
int parseScanCursorOrReply(client *c, robj *o, uint64_t *cursor) {
    unsigned long long v;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(o, buf, &len);
    if (strlen(p) != len || !string2ull(p, &v)) {
        addReplyError(c, "invalid cursor");
        return C_ERR;
    }
    *cursor = v;
    return C_OK;
}

typedef struct scanItems {
    redisServer *srv;
    robj **items;
    long long len, cap;
    const robj *o;              /* the scanned object, NULL for keys */
} scanItems;

static void _scanPush(scanItems *si, robj *item) {
    /* Redis keeps the items in a list: a node made and freed for each */
    si->srv->denv.cpu_ns += COST_ALLOC_NS + COST_FREE_NS;
    if (si->len == si->cap) {
        si->cap = si->cap ? si->cap * 2 : 16;
        si->items = memReallocAs(si->srv->mem, si->items,
                                 sizeof(robj *) * (size_t)si->cap,
                                 MEM64_PTR * (size_t)si->cap);
    }
    si->items[si->len++] = item;
}

static void _scanCallback(void *privdata, const dictEntry *de) {
    scanItems *si = privdata;
    redisServer *s = si->srv;
    sds key = dictGetKey(de);
    _scanPush(si, createStringObject(s, key, sdslen(key)));
    if (si->o && si->o->type == OBJ_HASH) {
        sds val = dictGetVal(de);
        _scanPush(si, createStringObject(s, val, sdslen(val)));
    } else if (si->o && si->o->type == OBJ_ZSET) {
        _scanPush(si, createStringObjectFromDouble(s,
                                                   *(double *)dictGetVal(de)));
    }
}

/* Compact encodings are small by definition: return everything at once. */
static void _scanCompact(scanItems *si, robj *o) {
    redisServer *s = si->srv;
    if (o->encoding == OBJ_ENCODING_INTSET) {
        int64_t v;
        for (uint32_t i = 0; intsetGet(o->v.ptr, i, &v); i++)
            _scanPush(si, createStringObjectFromLongLong(s, v));
        return;
    }
    unsigned char *lp = o->v.ptr, intbuf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        int64_t len;
        unsigned char *str = lpGet(p, &len, intbuf);
        _scanPush(si, createStringObject(s, (char *)str, (size_t)len));
    }
}

typedef struct scanOpts {
    long long count;
    robj *pat;
    robj *type;
} scanOpts;

/* Parses COUNT / MATCH / TYPE left to right. C_ERR after replying. */
static int _scanParseOptions(client *c, robj *o, scanOpts *opt) {
    int i = o == NULL ? 2 : 3;
    opt->count = 10;
    opt->pat = opt->type = NULL;
    while (i < c->argc) {
        int j = c->argc - i;
        const char *a = c->argv[i]->v.ptr;
        if (!strcasecmp(a, "count") && j >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[i + 1], &opt->count,
                                         NULL) != C_OK) return C_ERR;
            if (opt->count < 1) {
                addReplyError(c, "syntax error");
                return C_ERR;
            }
        } else if (!strcasecmp(a, "match") && j >= 2) {
            opt->pat = c->argv[i + 1];
        } else if (!strcasecmp(a, "type") && o == NULL && j >= 2) {
            opt->type = c->argv[i + 1];
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
        i += 2;
    }
    return C_OK;
}

/* Decides whether item i of a SCAN reply is dropped (MATCH, TYPE, or a
 * key found expired, which is deleted on the way). */
static int _scanFilter(client *c, robj *o, scanOpts *opt, robj *item) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(item, buf, &len);
    if (opt->pat) {
        sds pat = opt->pat->v.ptr;
        int all = sdslen(pat) == 1 && pat[0] == '*';
        if (!all && !stringmatchlen(pat, (int)sdslen(pat), p, (int)len, 0))
            return 1;
    }
    if (o == NULL && opt->type) {
        robj *v = lookupKeyReadWithFlags(c->db, c, item, LOOKUP_NOTOUCH);
        if (!v || strcasecmp(opt->type->v.ptr, typeName(v)) != 0) return 1;
    }
    if (o == NULL && expireIfNeeded(c->srv, c->db, item)) return 1;
    return 0;
}

static void _scanReply(client *c, robj *o, scanOpts *opt, scanItems *si,
                       uint64_t cursor) {
    int pairs = o && (o->type == OBJ_HASH || o->type == OBJ_ZSET);
    int step = pairs ? 2 : 1;
    long long kept = 0;
    for (long long i = 0; i < si->len; i += step) {
        if (_scanFilter(c, o, opt, si->items[i])) {
            for (int k = 0; k < step; k++) {
                decrRefCount(c->srv, si->items[i + k]);
                si->items[i + k] = NULL;
            }
        } else {
            kept += step;
        }
    }
    addReplyArrayLen(c, 2);
    char buf[LONG_STR_SIZE];
    int len = ull2string(buf, sizeof(buf), cursor);
    addReplyBulkCBuffer(c, buf, (size_t)len);
    addReplyArrayLen(c, kept);
    for (long long i = 0; i < si->len; i++) {
        if (!si->items[i]) continue;
        addReplyBulk(c, si->items[i]);
        if (o == NULL && (c->flags & CLIENT_SCAN_AUDIT)) {
            size_t l;
            const char *p = objectStrBytes(si->items[i], buf, &l);
            auditKeyReturned(c, p, l);
        }
        decrRefCount(c->srv, si->items[i]);
    }
}

/* Tells the SCAN hook of a bucket visited (the keyspace's dicts have their
 * server as privdata). */
static void _scanHookBucket(dict *d, int table, uint64_t idx) {
    redisServer *s = d->privdata;
    s->scan_hook.bucket(s->scan_hook.ctx, d, table, idx);
}

/* The bucket callback for a SCAN of the keyspace by c: the hook's, if it
 * observes c, told now that the call begins; else none. */
static dictScanBucketFunction *_scanHookFor(client *c, dict *ht) {
    scanHook *h = &c->srv->scan_hook;
    if (h->client_id == 0 || h->client_id != c->id) return NULL;
    h->call(h->ctx, ht);
    return _scanHookBucket;
}

/* The body of the four SCAN commands. o is the collection scanned, or NULL
 * for the keyspace. Hash tables are walked with dictScan until COUNT items
 * are collected or COUNT*10 buckets were visited; compact encodings are
 * returned whole with cursor 0. Filters apply after collection, so a call
 * can return fewer items than COUNT, even none, with a non-zero cursor. */
void scanGenericCommand(client *c, robj *o, uint64_t cursor) {
    scanOpts opt;
    if (_scanParseOptions(c, o, &opt) != C_OK) return;
    scanItems si = { c->srv, NULL, 0, 0, o };
    dict *ht = NULL;
    long long count = opt.count;
    if (o == NULL) ht = c->db->dict;
    else if (o->encoding == OBJ_ENCODING_HT) {
        ht = o->v.ptr;
        if (o->type == OBJ_HASH) count = count > LLONG_MAX / 2 ? LLONG_MAX
                                                               : count * 2;
    } else if (o->encoding == OBJ_ENCODING_SKIPLIST) {
        ht = ((zset *)o->v.ptr)->dict;
        count = count > LLONG_MAX / 2 ? LLONG_MAX : count * 2;
    }
    if (ht) {
        /* count * 10, saturating: COUNT can be any positive integer. */
        long long maxiterations = count > LLONG_MAX / 10 ? LLONG_MAX
                                                         : count * 10;
        dictScanBucketFunction *bucketfn = NULL;
        if (o == NULL) {
            TRACE(c->srv->denv.trace, GK_TR_SCAN_CALL, (uint16_t)c->srv->node,
                  (uint32_t)c->db->id, (uint32_t)c->fd, 0, cursor);
            bucketfn = _scanHookFor(c, ht);
        }
        do {
            cursor = dictScan(ht, cursor, _scanCallback, bucketfn, &si);
        } while (cursor && maxiterations-- && si.len < count);
    } else {
        _scanCompact(&si, o);
        cursor = 0;
    }
    _scanReply(c, o, &opt, &si, cursor);
    memFree(c->srv->mem, si.items);
}

/* SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] */
void scanCommand(client *c) {
    uint64_t cursor;
    if (parseScanCursorOrReply(c, c->argv[1], &cursor) == C_ERR) return;
    if (c->srv->audit.active && c->srv->audit.client_id == c->id &&
        c->db->id == c->srv->audit.dbid) {
        c->flags |= CLIENT_SCAN_AUDIT;
        c->srv->audit.counts.calls++;
    }
    scanGenericCommand(c, NULL, cursor);
    c->flags &= ~(uint64_t)CLIENT_SCAN_AUDIT;
}

/* ---- Keyspace commands. ---- */

void selectCommand(client *c) {
    long long id;
    if (getLongLongFromObjectOrReply(c, c->argv[1], &id, NULL) != C_OK)
        return;
    if (id < INT_MIN || id > INT_MAX) {
        addReplyError(c, "value is not an integer or out of range");
        return;
    }
    if (selectDb(c, (int)id) == C_ERR)
        addReplyError(c, "DB index is out of range");
    else
        addReplyOK(c);
}

/* DBSIZE: the number of keys in the client's db, expired ones included
 * until removed. */
void dbsizeCommand(client *c) {
    addReplyLongLong(c, (long long)dictSize(c->db->dict));
}

/* FLUSHDB / FLUSHALL take an optional ASYNC or SYNC; without either,
 * lazyfree-lazy-user-flush chooses. Sets *async; C_ERR after replying. */
static int _getFlushFlags(client *c, int *async) {
    if (c->argc > 2) { addReplyError(c, "syntax error"); return C_ERR; }
    *async = c->srv->cfg.lazyfree_lazy_user_flush;
    if (c->argc == 2) {
        const char *a = c->argv[1]->v.ptr;
        if (strcasecmp(a, "sync") && strcasecmp(a, "async")) {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
        *async = !strcasecmp(a, "async");
    }
    return C_OK;
}

/* FLUSHDB [ASYNC|SYNC]: empties the client's db, dooms every transaction
 * watching a key in it, replies +OK. It is propagated even when the db
 * was already empty. */
void flushdbCommand(client *c) {
    int async;
    if (_getFlushFlags(c, &async) != C_OK) return;
    c->srv->dirty += emptyDataFlags(c->srv, c->db->id, async);
    forceCommandPropagation(c);         /* even when the db was empty */
    addReplyOK(c);
}

/* FLUSHALL [ASYNC|SYNC]: empties every db as FLUSHDB does; the dirty count
 * gets one more so that it always propagates. Replies +OK. */
void flushallCommand(client *c) {
    int async;
    if (_getFlushFlags(c, &async) != C_OK) return;
    c->srv->dirty += emptyDataFlags(c->srv, -1, async) + 1;
    killRDBChild(c->srv);
    addReplyOK(c);
}

/* EXISTS key [key ...]: how many of the keys exist, a key named twice
 * counting twice. Expired keys are deleted on the way and count as 0. */
void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadWithFlags(c->db, c, c->argv[j], LOOKUP_NOTOUCH))
            count++;
    addReplyLongLong(c, count);
}

/* DEL and UNLINK reply the same; UNLINK frees big values in the
 * background in Redis, which is invisible in the reply. */
static void _delGeneric(client *c, int lazy) {
    long long deleted = 0;
    for (int j = 1; j < c->argc; j++) {
        expireIfNeeded(c->srv, c->db, c->argv[j]);
        int ok = lazy ? dbAsyncDelete(c->srv, c->db, c->argv[j])
                      : dbDelete(c->srv, c->db, c->argv[j]);
        if (ok) {
            signalModifiedKey(c, c->db, c->argv[j]);
            notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", c->argv[j],
                                c->db->id);
            c->srv->dirty++;
            deleted++;
        }
    }
    addReplyLongLong(c, deleted);
}

/* DEL key [key ...]: the number of keys removed. Each removed key touches
 * its watchers and dirties the server; with lazyfree-lazy-user-del it is
 * freed as UNLINK frees it. An expired key is deleted as expired (its own
 * DEL or UNLINK propagated) and does not count. */
void delCommand(client *c) {
    _delGeneric(c, c->srv->cfg.lazyfree_lazy_user_del);
}
void unlinkCommand(client *c) { _delGeneric(c, 1); }

/* ---- Lazy freeing. ----
 *
 * Freeing a set of a million members takes the main thread a while. So
 * UNLINK (and DEL with lazyfree-lazy-user-del) takes the key out of the
 * keyspace at once and, when freeing its value would take more than 64
 * steps, leaves the freeing to the BIO_LAZY_FREE thread. The memory stays
 * in use until that thread gets to it. */
#define LAZYFREE_THRESHOLD 64

/* The lazy-free thread's work: its time was charged to it when the job
 * was made, none of it to the main thread. */
static void _lazyFree(void *ctx, void *arg) {
    redisServer *s = ctx;
    s->denv.quiet++;
    decrRefCount(s, arg);
    _lazyFreed(s, 1);
    s->denv.quiet--;
}

/* dbAsyncDelete: as dbDelete, with a big value freed in the background.
 * Returns 1 if the key existed. */
int dbAsyncDelete(redisServer *s, redisDb *db, robj *key) {
    _willChange(s, db, key);
    dictEntry *de = dictUnlink(db->dict, key->v.ptr);
    if (!de) return 0;
    if (s->audit.active) auditKeyDeleted(s, db, dictGetKey(de));
    robj *val = dictGetVal(de);
    if (val->type == OBJ_STREAM) signalKeyAsReady(s, db, key, OBJ_STREAM);
    size_t effort = freeObjectEffort(val);
    if (effort > LAZYFREE_THRESHOLD && val->refcount == 1) {
        dictSetVal(db->dict, de, NULL);
        _lazyFreeJob(s, _lazyFree, val, freeObjectCost(s, val), 1);
    }
    if (dictSize(db->expires) > 0) dictDelete(db->expires, key->v.ptr);
    dictFreeUnlinkedEntry(db->dict, de);
    return 1;
}

/* TYPE key: a status reply, the type's name or "none". An expired key is
 * deleted on the way and replies "none". */
void typeCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[1], LOOKUP_NOTOUCH);
    addReplyStatus(c, o ? typeName(o) : "none");
}

/* KEYS pattern: O(N) over the whole keyspace, which is why SCAN exists. */
void keysCommand(client *c) {
    sds pattern = c->argv[1]->v.ptr;
    int plen = (int)sdslen(pattern), all = plen == 1 && pattern[0] == '*';
    long n = 0;
    void *len = addReplyDeferredLen(c);
    dictIterator *di = dictGetSafeIterator(c->db->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        if (!all) c->srv->denv.cpu_ns += (plen + sdslen(key)) *
                                         COST_MATCH_NS_PER_BYTE;
        if (!all && !stringmatchlen(pattern, plen, key, (int)sdslen(key), 0))
            continue;
        /* Redis makes a string object of each key it returns, and frees
         * it after the reply; this view costs what that does. */
        robj kobj = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
        c->srv->denv.cpu_ns += COST_ALLOC_NS + COST_FREE_NS;
        if (keyIsExpired(c->srv, c->db, &kobj)) continue;
        addReplyBulkCBuffer(c, key, sdslen(key));
        n++;
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, n);
}

/* A random key that has not expired, or NULL if the db is empty. While
 * clients are paused expired keys stay (expireIfNeeded), so a db of keys
 * that all expired would be drawn from for ever: after 100 draws one of
 * them is returned, as Redis 7.2 does (7.0.15 spins). */
static robj *_dbRandomKey(client *c) {
    int maxtries = 100;
    int allvolatile = dictSize(c->db->dict) == dictSize(c->db->expires);
    for (;;) {
        dictEntry *de = dictGetFairRandomKey(c->db->dict);
        if (!de) return NULL;
        sds key = dictGetKey(de);
        robj *k = createStringObject(c->srv, key, sdslen(key));
        if (dictFind(c->db->expires, key) && allvolatile &&
            clientsArePaused(c->srv) &&
            --maxtries == 0)
            return k;
        if (dictFind(c->db->expires, key) &&
            expireIfNeeded(c->srv, c->db, k)) {
            decrRefCount(c->srv, k);
            continue;
        }
        return k;
    }
}

/* RANDOMKEY: a random key as a bulk string, or null if the db is empty.
 * Expired keys drawn on the way are deleted (and propagated) and redrawn. */
void randomkeyCommand(client *c) {
    robj *k = _dbRandomKey(c);
    if (!k) { addReplyNull(c); return; }
    addReplyBulk(c, k);
    decrRefCount(c->srv, k);
}

/* RENAME and RENAMENX: move the value and its TTL to the new name. */
static void _renameGeneric(client *c, int nx) {
    redisServer *s = c->srv;
    int samekey = sdscmp(c->argv[1]->v.ptr, c->argv[2]->v.ptr) == 0;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (!o) { addReplyError(c, "no such key"); return; }
    if (samekey) {
        if (nx) addReplyLongLong(c, 0);
        else addReplyOK(c);
        return;
    }
    if (lookupKeyWrite(c, c->argv[2])) {
        if (nx) { addReplyLongLong(c, 0); return; }
        dbDelete(s, c->db, c->argv[2]);
    }
    incrRefCount(o);
    long long expire = getExpire(c->db, c->argv[1]);
    dbAdd(s, c->db, c->argv[2], o);
    if (expire != -1) setExpire(c, c->db, c->argv[2], expire);
    dbDelete(s, c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[1]);
    signalModifiedKey(c, c->db, c->argv[2]);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "rename_from", c->argv[1],
                        c->db->id);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "rename_to", c->argv[2],
                        c->db->id);
    s->dirty++;
    if (nx) addReplyLongLong(c, 1);
    else addReplyOK(c);
}

void renameCommand(client *c) { _renameGeneric(c, 0); }
void renamenxCommand(client *c) { _renameGeneric(c, 1); }

/* A db index argument, as Redis's getIntFromObjectOrReply reads it: an
 * integer in int's range, else msg (or the range error). C_ERR after
 * replying. */
static int _dbIndexOrReply(client *c, robj *o, int *id, const char *msg) {
    long long v;
    if (getRangeLongFromObjectOrReply(c, o, INT_MIN, INT_MAX, &v, msg)
        != C_OK) return C_ERR;
    *id = (int)v;
    return C_OK;
}

/* The db of the given index, or NULL once "DB index is out of range" is
 * replied. */
static redisDb *_dbOrReply(client *c, int id) {
    if (id < 0 || id >= c->srv->cfg.databases) {
        addReplyError(c, "DB index is out of range");
        return NULL;
    }
    return &c->srv->db[id];
}

/* MOVE key db: 1 if the key, with its TTL, moved to db; 0 if it does not
 * exist here or already exists there. */
void moveCommand(client *c) {
    redisServer *s = c->srv;
    redisDb *src = c->db, *dst;
    int id;
    if (_dbIndexOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
    if ((dst = _dbOrReply(c, id)) == NULL) return;
    if (src == dst) {
        addReplyError(c, "source and destination objects are the same");
        return;
    }
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (!o) { addReplyLongLong(c, 0); return; }
    long long expire = getExpire(src, c->argv[1]);
    if (lookupKeyReadWithFlags(dst, c, c->argv[1], LOOKUP_WRITE)) {
        addReplyLongLong(c, 0);
        return;
    }
    dbAdd(s, dst, c->argv[1], o);
    if (expire != -1) setExpire(c, dst, c->argv[1], expire);
    incrRefCount(o);
    dbDelete(s, src, c->argv[1]);
    signalModifiedKey(c, src, c->argv[1]);
    signalModifiedKey(c, dst, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "move_from", c->argv[1], src->id);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "move_to", c->argv[1], dst->id);
    s->dirty++;
    addReplyLongLong(c, 1);
}

/* A deep copy of a value with its encoding, refcount 1 (COPY). */
static robj *_objectDup(redisServer *s, robj *o) {
    switch (o->type) {
    case OBJ_STRING: return dupStringObject(s, o);
    case OBJ_LIST: return listTypeDup(s, o);
    case OBJ_SET: return setTypeDup(s, o);
    case OBJ_ZSET: return zsetDup(s, o);
    case OBJ_HASH: return hashTypeDup(s, o);
    case OBJ_STREAM: return streamDup(s, o);
    default: return NULL;
    }
}

/* COPY source destination [DB db] [REPLACE]: 1 if source's value and TTL
 * were copied to destination (in db, by default this one), 0 if source
 * is missing or destination exists and REPLACE was not given. Options are
 * read left to right, a bad db index failing at once. */
void copyCommand(client *c) {
    redisServer *s = c->srv;
    redisDb *src = c->db, *dst = c->db;
    int replace = 0, id;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "replace")) {
            replace = 1;
        } else if (!strcasecmp(opt, "db") && c->argc - j - 1 >= 1) {
            if (_dbIndexOrReply(c, c->argv[j + 1], &id, NULL) != C_OK)
                return;
            if ((dst = _dbOrReply(c, id)) == NULL) return;
            j++;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    robj *key = c->argv[1], *newkey = c->argv[2];
    if (src == dst && sdscmp(key->v.ptr, newkey->v.ptr) == 0) {
        addReplyError(c, "source and destination objects are the same");
        return;
    }
    robj *o = lookupKeyRead(c, key);
    if (!o) { addReplyLongLong(c, 0); return; }
    long long expire = getExpire(src, key);
    int exists = lookupKeyReadWithFlags(dst, c, newkey, LOOKUP_WRITE) != NULL;
    if (exists && !replace) { addReplyLongLong(c, 0); return; }
    robj *copy = _objectDup(s, o);
    if (!copy) { addReplyError(c, "unknown type object"); return; }
    if (exists) dbDelete(s, dst, newkey);
    dbAdd(s, dst, newkey, copy);
    if (expire != -1) setExpire(c, dst, newkey, expire);
    signalModifiedKey(c, dst, newkey);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "copy_to", newkey, dst->id);
    s->dirty++;
    addReplyLongLong(c, 1);
}

/* TOUCH key [key ...]: how many of the keys exist; each is looked up as a
 * read, so its access time is refreshed (and a hit or miss counted). */
void touchCommand(client *c) {
    long long touched = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyRead(c, c->argv[j])) touched++;
    addReplyLongLong(c, touched);
}

/* HDEL, SREM and ZREM: removes each argument after the key from the
 * collection at argv[1] (of the given type) with remove, and replies how
 * many went. The key goes away with its last member; the remaining
 * arguments are then not looked at, since nothing is left to remove them
 * from. A missing key replies 0, a key of another type WRONGTYPE. */
void removeMembersCommand(client *c, int type, memberRemoveFn *remove,
                          memberCountFn *count) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    long long deleted = 0;
    int keyremoved = 0;
    if (o == NULL || checkType(c, o, type)) return;
    for (int j = 2; j < c->argc; j++) {
        if (!remove(c->srv, o, c->argv[j]->v.ptr)) continue;
        deleted++;
        if (count(o) == 0) {
            dbDelete(c->srv, c->db, c->argv[1]);
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        /* HDEL, SREM, ZREM: the event of the type, then "del" if the key
         * went with its last member. */
        int class = type == OBJ_HASH ? NOTIFY_HASH
                  : type == OBJ_SET ? NOTIFY_SET : NOTIFY_ZSET;
        const char *event = type == OBJ_HASH ? "hdel"
                          : type == OBJ_SET ? "srem" : "zrem";
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, class, event, c->argv[1], c->db->id);
        if (keyremoved)
            notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", c->argv[1],
                                c->db->id);
        c->srv->dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

/* ---- SWAPDB ---- */

/* Swaps the contents of dbs id1 and id2 (their keys, expires and expire
 * statistics); what belongs to the clients -- the keys they watch or are
 * blocked on -- stays with the db number, so a client blocked in db 9
 * now waits for db 9's new keys. C_ERR if an index is out of range. */
static int _dbSwapDatabases(redisServer *s, int id1, int id2) {
    if (id1 < 0 || id1 >= s->cfg.databases ||
        id2 < 0 || id2 >= s->cfg.databases) return C_ERR;
    if (id1 == id2) return C_OK;
    redisDb *db1 = &s->db[id1], *db2 = &s->db[id2];
    touchAllWatchedKeysInDb(s, db1, db2);
    touchAllWatchedKeysInDb(s, db2, db1);
    scanDatabaseForDeletedStreams(s, db1, db2);
    scanDatabaseForDeletedStreams(s, db2, db1);
    /* Every key of both changes at once, as in a flush of each. */
    if (s->keyhook) {
        s->keyhook(s->keyhook_ctx, db1, NULL);
        s->keyhook(s->keyhook_ctx, db2, NULL);
    }
    if (s->audit.active && (s->audit.dbid == id1 || s->audit.dbid == id2))
        auditClear(s);
    dict *d = db1->dict, *e = db1->expires;
    long long avg_ttl = db1->avg_ttl;
    uint64_t cursor = db1->expires_cursor;
    db1->dict = db2->dict;
    db1->expires = db2->expires;
    db1->avg_ttl = db2->avg_ttl;
    db1->expires_cursor = db2->expires_cursor;
    db2->dict = d;
    db2->expires = e;
    db2->avg_ttl = avg_ttl;
    db2->expires_cursor = cursor;
    /* The tables' trace records name the db they now belong to. */
    db1->dict->trace_db = db1->expires->trace_db = (uint16_t)id1;
    db2->dict->trace_db = db2->expires->trace_db = (uint16_t)id2;
    scanDatabaseForReadyKeys(s, db1);
    scanDatabaseForReadyKeys(s, db2);
    return C_OK;
}

/* SWAPDB index1 index2: +OK, and a write even when the two are the same
 * db, as in 7.0. */
void swapdbCommand(client *c) {
    long long id1, id2;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], INT_MIN, INT_MAX, &id1,
            "invalid first DB index") != C_OK ||
        getRangeLongFromObjectOrReply(c, c->argv[2], INT_MIN, INT_MAX, &id2,
            "invalid second DB index") != C_OK)
        return;
    if (_dbSwapDatabases(c->srv, (int)id1, (int)id2) != C_OK) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    c->srv->dirty++;
    addReplyOK(c);
}
