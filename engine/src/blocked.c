/* blocked.c -- clients blocked on keys: BLPOP and its family, as Redis
 * 7.0 runs them.
 *
 * A blocking command that finds nothing to pop does not reply. The client
 * is put, in order of arrival, in a queue per key it names (the db's
 * blocking_keys: key -> queue of clients), and stops reading commands:
 * what it sends meanwhile stays in its query buffer.
 *
 * A write that creates one of those keys calls signalKeyAsReady (dbAdd
 * does it for every new key), which only notes the key in the server's
 * ready_keys, once however often it is written. After the command that
 * wrote it -- after the whole EXEC for a transaction -- and again in
 * beforeSleep, handleClientsBlockedOnKeys walks the ready keys: for each,
 * the clients of its queue are served first come first served, each with
 * what its command would have popped, until the key is gone. Serving a
 * BLMOVE pushes onto another key, which may become ready in turn, so the
 * walk goes on until no key is left. Each client served is a write of its
 * own: it is propagated as the non-blocking command it amounts to (BLPOP
 * as LPOP key, BLMPOP as LPOP key count, BLMOVE as LMOVE), one execution
 * unit per client, in the order served.
 *
 * A client served (or timed out) is unblocked: its argv is released and
 * it goes into the unblocked queue, which beforeSleep drains to run the
 * commands that piled up in its query buffer.
 *
 * Timeouts are absolute unix milliseconds on the server's clock (virtual
 * time; the wall clock under `glasskv server`). The clients that have one
 * sit in a table sorted by (timeout, client id) -- Redis keeps a radix
 * tree keyed the same way, with the client's address where I use its id
 * -- and beforeSleep times out the ones whose moment has passed, with a
 * null array. The loop wakes at least hz times a second for serverCron,
 * so a timeout fires at most one cron period late, in Redis as here.
 *
 * Inside MULTI (and the AOF loader) a client may not block: a blocking
 * command there acts as its non-blocking form, replying as a timeout
 * would when there is nothing to pop.
 *
 * The kinds of value clients block for are rows of blockingTypes below:
 * an object type, the BLOCKED_* kind of the clients waiting for it, and
 * the function that serves one such client from a ready key. Lists are
 * the first row; the sorted-set pops join as another (see the table). */
#include <string.h>
#include <strings.h>
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <ctype.h>
#include "server.h"
#include "recovery.h"

/* The longest text read as a long double (Redis's MAX_LONG_DOUBLE_CHARS). */
#define TIMEOUT_MAX_CHARS (5 * 1024)

/* A client's place in the queue of one key. */
typedef struct bkEntry {
    client *c;
    struct bkEntry *prev, *next;
} bkEntry;

/* The clients blocked on one key, first blocked first. */
typedef struct bkQueue {
    bkEntry *head, *tail;
} bkQueue;

/* A key written while clients wait for it. */
typedef struct readyKey {
    redisDb *db;
    robj *key;                  /* a reference of its own */
} readyKey;

/* A row of the timeout table. */
typedef struct blockTimeout {
    long long timeout;
    uint64_t id;
    client *c;
} blockTimeout;

/* The kinds of blocking: which object type wakes which clients, and how
 * one of them is served. The sorted-set pops (BZPOPMIN, BZPOPMAX, BZMPOP)
 * add { OBJ_ZSET, BLOCKED_ZSET, their serve function } here; everything
 * else (queues, timeouts, propagation per client, CLIENT UNBLOCK) is the
 * same for every row. */
static const struct {
    int objtype;
    int btype;
    blockServeProc *serve;
} blockingTypes[] = {
    { OBJ_LIST, BLOCKED_LIST, serveClientBlockedOnList },
    { OBJ_ZSET, BLOCKED_ZSET, serveClientBlockedOnSortedSet },
    { OBJ_STREAM, BLOCKED_STREAM, serveClientBlockedOnStream },
};
#define BLOCKING_TYPES ((int)(sizeof(blockingTypes) / sizeof(blockingTypes[0])))

/* The BLOCKED_* kind that waits for values of type objtype, or
 * BLOCKED_NONE. */
static int _btypeOfObject(int objtype) {
    for (int i = 0; i < BLOCKING_TYPES; i++)
        if (blockingTypes[i].objtype == objtype) return blockingTypes[i].btype;
    return BLOCKED_NONE;
}

/* The current unix time in ms on the server's clock, uncached. */
static long long _nowMs(redisServer *s) {
    return s->unix_ms_at_zero + (long long)(serverNow(s) / 1000000);
}

/* ---- The timeout ---- */

/* A relative timeout of ms milliseconds as the absolute unix ms it
 * expires at (0 stays 0: never). C_ERR after replying if it is negative. */
static int _absoluteTimeoutOrReply(client *c, long long ms,
                                   long long *timeout) {
    if (ms < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    if (ms > 0) {
        long long now = _nowMs(c->srv);
        ms = ms > LLONG_MAX - now ? LLONG_MAX : ms + now;
    }
    *timeout = ms;
    return C_OK;
}

/* Parses a timeout in seconds (a float: "0.1" is 100 ms) into the
 * absolute unix ms it expires at, or 0 for "0" (never). C_ERR after
 * replying "timeout is not a float or out of range" or "timeout is
 * negative". The seconds are read as a long double and rounded up to a
 * whole ms, as Redis does. A value too big for a long long of ms is
 * refused as negative: that is what Redis's conversion gives on the
 * x86-64 machines it runs on. */
int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout) {
    char buf[LONG_STR_SIZE + 1];
    size_t len;
    const char *p = objectStrBytes(object, buf, &len);
    char tmp[TIMEOUT_MAX_CHARS];
    long double v = 0;
    int ok = len > 0 && len < TIMEOUT_MAX_CHARS &&
             !isspace((unsigned char)p[0]);
    if (ok) {
        char *end;
        memcpy(tmp, p, len);
        tmp[len] = '\0';
        errno = 0;
        v = strtold(tmp, &end);
        ok = *end == '\0' && !isnan(v) &&
             !(errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL ||
                                   v == 0));
    }
    if (!ok) {
        addReplyError(c, "timeout is not a float or out of range");
        return C_ERR;
    }
    long double ms = ceill(v * 1000.0L);
    long long tval = (ms >= -9.2233720368547758e18L &&
                      ms < 9.2233720368547758e18L) ? (long long)ms
                                                   : LLONG_MIN;
    return _absoluteTimeoutOrReply(c, tval, timeout);
}

/* Parses BLOCK's timeout of XREAD and XREADGROUP: whole milliseconds,
 * into the absolute unix ms it expires at, or 0 for "0" (never). C_ERR
 * after replying "timeout is not an integer or out of range" or "timeout
 * is negative", as Redis's UNIT_MILLISECONDS form does. */
int getTimeoutMsFromObjectOrReply(client *c, robj *object,
                                  long long *timeout) {
    long long tval;
    if (getLongLongFromObjectOrReply(c, object, &tval,
            "timeout is not an integer or out of range") != C_OK)
        return C_ERR;
    return _absoluteTimeoutOrReply(c, tval, timeout);
}

static int _timeoutCmp(const blockTimeout *a, long long timeout,
                       uint64_t id) {
    if (a->timeout != timeout) return a->timeout < timeout ? -1 : 1;
    if (a->id != id) return a->id < id ? -1 : 1;
    return 0;
}

/* Where (timeout, id) is or would go in the sorted table. */
static int _timeoutFind(redisServer *s, long long timeout, uint64_t id) {
    int lo = 0, hi = s->timeouts_n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (_timeoutCmp(&s->timeouts[mid], timeout, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Adds a client with a timeout to the table (none for timeout 0). */
static void _addClientToTimeoutTable(client *c) {
    redisServer *s = c->srv;
    if (c->bpop.timeout == 0) return;
    if (s->timeouts_n == s->timeouts_cap) {
        s->timeouts_cap = s->timeouts_cap ? s->timeouts_cap * 2 : 8;
        s->timeouts = memRealloc(s->mem, s->timeouts,
            sizeof(blockTimeout) * (size_t)s->timeouts_cap);
    }
    int at = _timeoutFind(s, c->bpop.timeout, c->id);
    memmove(&s->timeouts[at + 1], &s->timeouts[at],
            sizeof(blockTimeout) * (size_t)(s->timeouts_n - at));
    s->timeouts[at] = (blockTimeout){ c->bpop.timeout, c->id, c };
    s->timeouts_n++;
    c->bpop.in_timeout_table = 1;
}

static void _removeClientFromTimeoutTable(client *c) {
    redisServer *s = c->srv;
    if (!c->bpop.in_timeout_table) return;
    c->bpop.in_timeout_table = 0;
    int at = _timeoutFind(s, c->bpop.timeout, c->id);
    if (at == s->timeouts_n || s->timeouts[at].c != c)
        memPanic("blocked: a client missing from the timeout table");
    memmove(&s->timeouts[at], &s->timeouts[at + 1],
            sizeof(blockTimeout) * (size_t)(s->timeouts_n - at - 1));
    s->timeouts_n--;
}

/* beforeSleep: every client whose timeout has passed (strictly: a client
 * due at t is still waiting at t) gets the timeout reply and is
 * unblocked, earliest first. */
void handleBlockedClientsTimeout(redisServer *s) {
    if (s->timeouts_n == 0) return;
    long long now = _nowMs(s);
    while (s->timeouts_n && s->timeouts[0].timeout < now) {
        client *c = s->timeouts[0].c;
        replyToBlockedClientTimedOut(c);
        unblockClient(c);
    }
}

/* ---- Blocking and unblocking ---- */

/* The timeout reply: a null array, for every kind of key blocking (RESP2
 * *-1, even for BLMOVE, whose served reply is a bulk string); for WAIT,
 * the replicas that acknowledged its offset by then. */
void replyToBlockedClientTimedOut(client *c) {
    if (c->btype == BLOCKED_WAIT)
        addReplyLongLong(c, replicationAcked(c->srv, c->bpop.reploffset));
    else
        addReplyNullArray(c);
}

/* Blocks c on keys[0..numkeys) (a key named twice counts once) until one
 * of them is served to it or the timeout passes. count, target, wherefrom
 * and whereto are kept for the serve function. The client keeps its argv
 * until it is unblocked. */
void blockForKeys(client *c, int btype, robj **keys, int numkeys,
                  long long count, long long timeout, robj *target,
                  int wherefrom, int whereto) {
    redisServer *s = c->srv;
    blockingState *b = &c->bpop;
    b->count = count;
    b->timeout = timeout;
    b->target = target;
    b->wherefrom = wherefrom;
    b->whereto = whereto;
    if (target) incrRefCount(target);
    b->keys = memAlloc(s->mem, sizeof(robj *) * (size_t)numkeys);
    b->entries = memAlloc(s->mem, sizeof(bkEntry *) * (size_t)numkeys);
    b->nkeys = 0;
    for (int j = 0; j < numkeys; j++) {
        int dup = 0;
        for (int i = 0; i < b->nkeys && !dup; i++)
            dup = equalStringObjects(b->keys[i], keys[j]);
        if (dup) continue;
        bkQueue *q = dictFetchValue(c->db->blocking_keys, keys[j]->v.ptr);
        if (!q) {
            q = memCalloc(s->mem, sizeof(*q));
            dictAdd(c->db->blocking_keys, sdsdup(s->mem, keys[j]->v.ptr), q);
        }
        bkEntry *e = memCalloc(s->mem, sizeof(*e));
        e->c = c;
        e->prev = q->tail;
        if (q->tail) q->tail->next = e;
        else q->head = e;
        q->tail = e;
        incrRefCount(keys[j]);
        b->keys[b->nkeys] = keys[j];
        b->entries[b->nkeys++] = e;
    }
    c->flags |= CLIENT_BLOCKED;
    c->btype = btype;
    s->blocked_clients++;
    s->blocked_clients_by_type[btype]++;
    _addClientToTimeoutTable(c);
}

/* Takes c out of the queue of each of its keys (a queue left empty
 * goes) and drops what blockForKeys kept. */
static void _unblockClientWaitingData(client *c) {
    redisServer *s = c->srv;
    blockingState *b = &c->bpop;
    for (int j = 0; j < b->nkeys; j++) {
        sds key = b->keys[j]->v.ptr;
        bkQueue *q = dictFetchValue(c->db->blocking_keys, key);
        bkEntry *e = b->entries[j];
        if (!q) memPanic("blocked: a key without its queue");
        if (e->prev) e->prev->next = e->next;
        else q->head = e->next;
        if (e->next) e->next->prev = e->prev;
        else q->tail = e->prev;
        memFree(s->mem, e);
        if (!q->head) {
            memFree(s->mem, q);
            dictDelete(c->db->blocking_keys, key);
        }
        decrRefCount(s, b->keys[j]);
    }
    memFree(s->mem, b->keys);
    memFree(s->mem, b->entries);
    b->keys = NULL;
    b->entries = NULL;
    b->nkeys = 0;
    if (b->target) decrRefCount(s, b->target);
    b->target = NULL;
    memFree(s->mem, b->xread_ids);
    b->xread_ids = NULL;
    if (b->xread_group) decrRefCount(s, b->xread_group);
    if (b->xread_consumer) decrRefCount(s, b->xread_consumer);
    b->xread_group = b->xread_consumer = NULL;
}

/* Queues c to run what is left in its query buffer, in beforeSleep: no
 * read event will come for bytes that were already read. */
static void _queueClientForReprocessing(client *c) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_UNBLOCKED) return;
    c->flags |= CLIENT_UNBLOCKED;
    c->next_unblocked = NULL;
    if (s->unblocked_tail) s->unblocked_tail->next_unblocked = c;
    else s->unblocked_head = c;
    s->unblocked_tail = c;
}

/* Unblocks c (served, timed out, or CLIENT UNBLOCK; the reply is the
 * caller's): it leaves its queues and the timeout table, its blocked
 * command is done (argv released), and it is queued to read on. */
void unblockClient(client *c) {
    redisServer *s = c->srv;
    if (!(c->flags & CLIENT_BLOCKED)) return;
    if (c->btype == BLOCKED_POSTPONE) {
        /* A command held by a pause runs from the start again: it keeps
         * its argv (CLIENT_PENDING_COMMAND). */
        postponedClientGone(c);
    } else {
        _unblockClientWaitingData(c);
        freeClientArgv(c);
        resetClient(c);
    }
    s->blocked_clients--;
    s->blocked_clients_by_type[c->btype]--;
    c->flags &= ~(uint64_t)CLIENT_BLOCKED;
    c->btype = BLOCKED_NONE;
    _removeClientFromTimeoutTable(c);
    _queueClientForReprocessing(c);
}

/* freeClient: a client going away leaves its queues and the unblocked
 * queue. */
void blockedClientGone(client *c) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_BLOCKED) unblockClient(c);
    if (!(c->flags & CLIENT_UNBLOCKED)) return;
    client *prev = NULL;
    for (client *p = s->unblocked_head; p; prev = p, p = p->next_unblocked) {
        if (p != c) continue;
        if (prev) prev->next_unblocked = p->next_unblocked;
        else s->unblocked_head = p->next_unblocked;
        if (s->unblocked_tail == p) s->unblocked_tail = prev;
        break;
    }
    c->flags &= ~(uint64_t)CLIENT_UNBLOCKED;
}

/* beforeSleep: each client unblocked since the last time runs the
 * commands waiting in its query buffer, unless it blocked again. */
void processUnblockedClients(redisServer *s) {
    while (s->unblocked_head) {
        client *c = s->unblocked_head;
        s->unblocked_head = c->next_unblocked;
        if (!s->unblocked_head) s->unblocked_tail = NULL;
        c->next_unblocked = NULL;
        c->flags &= ~(uint64_t)CLIENT_UNBLOCKED;
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP)) continue;
        processClientInput(c);
    }
}

/* ---- Ready keys ---- */

/* A write created key (of type type) in db: if clients of the matching
 * kind wait for it, it is queued to serve them after the command. Each
 * key is queued once until it is served. */
void signalKeyAsReady(redisServer *s, redisDb *db, robj *key, int type) {
    int btype = _btypeOfObject(type);
    if (btype == BLOCKED_NONE || !s->blocked_clients_by_type[btype]) return;
    if (!dictFind(db->blocking_keys, key->v.ptr)) return;
    if (dictFind(db->ready_keys, key->v.ptr)) return;
    if (s->ready_keys_n == s->ready_keys_cap) {
        s->ready_keys_cap = s->ready_keys_cap ? s->ready_keys_cap * 2 : 4;
        s->ready_keys = memRealloc(s->mem, s->ready_keys,
            sizeof(readyKey) * (size_t)s->ready_keys_cap);
    }
    robj *copy = createStringObject(s, key->v.ptr, sdslen(key->v.ptr));
    s->ready_keys[s->ready_keys_n++] = (readyKey){ db, copy };
    dictAdd(db->ready_keys, sdsdup(s->mem, key->v.ptr), NULL);
}

/* SWAPDB: db's keys were all replaced, so each key clients wait for in db
 * that now exists is ready (dbAdd saw none of them arrive). */
void scanDatabaseForReadyKeys(redisServer *s, redisDb *db) {
    if (dictSize(db->blocking_keys) == 0) return;
    dictIterator *di = dictGetIterator(db->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        robj *val = dictFetchValue(db->dict, key);
        if (!val) continue;
        robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
        signalKeyAsReady(s, db, &k, val->type);
    }
    dictReleaseIterator(di);
}

/* FLUSHDB, FLUSHALL and SWAPDB: each key of emptied that XREADGROUP
 * clients may wait on, a stream now and not one after (in replaced_with,
 * or gone), is ready, so that they are told their group is gone. */
void scanDatabaseForDeletedStreams(redisServer *s, redisDb *emptied,
                                   redisDb *replaced_with) {
    if (!s->blocked_clients_by_type[BLOCKED_STREAM]) return;
    dictIterator *di = dictGetIterator(emptied->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        robj *was = dictFetchValue(emptied->dict, key);
        robj *is = replaced_with ? dictFetchValue(replaced_with->dict, key)
                                 : NULL;
        if (!was || was->type != OBJ_STREAM) continue;
        if (is && is->type == OBJ_STREAM) continue;
        robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
        signalKeyAsReady(s, emptied, &k, OBJ_STREAM);
    }
    dictReleaseIterator(di);
}

/* Serves one client: it is the current client while its reply is
 * written, its command's statistics learn of an error, the slow log and
 * the latency monitor of the serving's time ("command-unblocking"), and
 * what it did is one execution unit of its own. Returns 1 if the key was
 * deleted. */
static int _serveOne(redisServer *s, blockServeProc *serve, client *rc,
                     robj *o, robj *key, redisDb *db) {
    client *old = s->current_client;
    long long errors = s->stat_total_error_replies;
    uint64_t cpu0 = s->denv.cpu_ns;
    s->current_client = rc;
    s->execution_nesting++;
    int deleted = serve(rc, o, key, db);
    s->execution_nesting--;
    if (deleted == BLOCK_STILL_WAITING) {
        s->current_client = old;
        return 0;
    }
    if (rc->lastcmd && s->stat_total_error_replies > errors)
        s->cmdstats[rc->lastcmd->id].failed++;
    if (rc->lastcmd) {
        long long ns = (long long)(s->denv.cpu_ns - cpu0);
        slowlogPushCurrentCommand(rc, rc->lastcmd, ns / 1000);
        latencyRecordCommand(s, rc->lastcmd->id, ns);
        latencyAddSampleIfNeeded(s, "command-unblocking", ns / 1000000);
    }
    unblockClient(rc);
    propagatePendingCommands(s);
    if (s->recovery) recoveryUnitEnd(s, rc);
    trackingHandlePendingKeyInvalidations(s);
    s->current_client = old;
    return deleted;
}

/* Serves the clients of key's queue that wait for values of o's kind,
 * first blocked first, until the key is gone. */
static void _serveKey(redisServer *s, readyKey *rk) {
    redisDb *db = rk->db;
    sds name = rk->key->v.ptr;
    dictEntry *de = dictFind(db->dict, name);
    if (!de || expireIfNeeded(s, db, rk->key)) {
        /* XREADGROUP waits for a group of this key: gone with it. */
        unblockStreamReadgroupClients(s, db, rk->key);
        return;
    }
    robj *o = dictGetVal(de);
    int type = o->type;
    for (int i = 0; i < BLOCKING_TYPES; i++) {
        if (blockingTypes[i].objtype != type) continue;
        int btype = blockingTypes[i].btype;
        if (!s->blocked_clients_by_type[btype]) break;
        bkQueue *q = dictFetchValue(db->blocking_keys, name);
        bkEntry *e = q ? q->head : NULL;
        while (e) {
            bkEntry *next = e->next;
            client *rc = e->c;
            if (rc->btype == btype &&
                _serveOne(s, blockingTypes[i].serve, rc, o, rk->key, db))
                break;
            e = next;
        }
        break;
    }
    /* The key is something else now (SET, or DEL then SADD in a
     * transaction): XREADGROUP's group went with the stream. */
    if (type != OBJ_STREAM) unblockStreamReadgroupClients(s, db, rk->key);
}

/* Unblocks with an error every XREADGROUP client waiting on key, whose
 * stream was deleted or replaced by another type, in the order they
 * blocked. */
void unblockStreamReadgroupClients(redisServer *s, redisDb *db, robj *key) {
    if (!s->blocked_clients_by_type[BLOCKED_STREAM]) return;
    bkQueue *q = dictFetchValue(db->blocking_keys, key->v.ptr);
    bkEntry *e = q ? q->head : NULL;
    while (e) {
        bkEntry *next = e->next;
        client *rc = e->c;
        if (rc->btype == BLOCKED_STREAM && rc->bpop.xread_group) {
            client *old = s->current_client;
            s->current_client = rc;
            addReplyError(rc, "-UNBLOCKED the stream key no longer exists");
            if (rc->lastcmd) s->cmdstats[rc->lastcmd->id].failed++;
            unblockClient(rc);
            s->current_client = old;
        }
        e = next;
    }
}

/* After each command (and EXEC) and in beforeSleep: serves the clients
 * blocked on every ready key, in the order the keys became ready, until
 * serving makes no key ready any more. */
void handleClientsBlockedOnKeys(redisServer *s) {
    while (s->ready_keys_n) {
        readyKey *keys = s->ready_keys;
        int n = s->ready_keys_n;
        s->ready_keys = NULL;
        s->ready_keys_n = s->ready_keys_cap = 0;
        for (int j = 0; j < n; j++) {
            readyKey *rk = &keys[j];
            dictDelete(rk->db->ready_keys, rk->key->v.ptr);
            serverUpdateTime(s);
            _serveKey(s, rk);
            decrRefCount(s, rk->key);
        }
        memFree(s->mem, keys);
    }
}

/* serverRelease, once every client is gone: the queues of each db, the
 * keys still waiting to be served and the timeout table. */
void blockedRelease(redisServer *s) {
    for (int j = 0; j < s->cfg.databases; j++) {
        dictRelease(s->db[j].blocking_keys);
        dictRelease(s->db[j].ready_keys);
    }
    for (int j = 0; j < s->ready_keys_n; j++)
        decrRefCount(s, s->ready_keys[j].key);
    memFree(s->mem, s->ready_keys);
    memFree(s->mem, s->timeouts);
    s->ready_keys = NULL;
    s->timeouts = NULL;
    s->ready_keys_n = s->timeouts_n = 0;
}

/* ---- CLIENT UNBLOCK ---- */

/* CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: unblocks a client blocked in
 * a blocking command as if it timed out (the default), or with the error
 * "-UNBLOCKED client unblocked via CLIENT UNBLOCK". Replies 1 if the
 * client was blocked, else 0. The unblocked command counts as failed in
 * either case, as in 7.0. */
void clientUnblockCommand(client *c) {
    redisServer *s = c->srv;
    int unblock_error = 0;
    long long id;
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 4) {
        if (!strcasecmp(c->argv[3]->v.ptr, "timeout")) {
            unblock_error = 0;
        } else if (!strcasecmp(c->argv[3]->v.ptr, "error")) {
            unblock_error = 1;
        } else {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or "
                          "ERROR");
            return;
        }
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK)
        return;
    client *target = lookupClientByID(s, (uint64_t)id);
    /* A client held by a pause is not waiting for data: there is no
     * timeout reply to give it (Redis 7.0 would stop on this). */
    if (!target || !(target->flags & CLIENT_BLOCKED) ||
        target->btype == BLOCKED_POSTPONE) {
        addReplyLongLong(c, 0);
        return;
    }
    if (unblock_error)
        addReplyError(target, "-UNBLOCKED client unblocked via CLIENT "
                      "UNBLOCK");
    else
        replyToBlockedClientTimedOut(target);
    if (target->lastcmd) s->cmdstats[target->lastcmd->id].failed++;
    unblockClient(target);
    /* As in 7.0, the slow log hears of it after the unblocking has
     * released the command's arguments: an entry with none. */
    if (target->lastcmd) {
        slowlogPushCurrentCommand(target, target->lastcmd, 0);
        latencyRecordCommand(s, target->lastcmd->id, 0);
    }
    addReplyLongLong(c, 1);
}
