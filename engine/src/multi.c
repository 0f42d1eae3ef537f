/* multi.c -- MULTI/EXEC/DISCARD and optimistic locking with WATCH, as
 * Redis 7.0 does them.
 *
 * MULTI does not lock anything. It only makes the server queue the
 * client's commands (each answered +QUEUED) instead of running them; EXEC
 * then runs the whole queue inside one command, back to back. Because the
 * server is single-threaded, no other client's command can run in the
 * middle -- and, for the same reason, a long transaction holds every other
 * client back until it is done.
 *
 * WATCH gives check-and-set: if a watched key is modified (or expires)
 * before EXEC, EXEC runs nothing and replies a null array. */
#include <string.h>
#include <strings.h>
#include "server.h"
#include "acl.h"

typedef struct watchedKey {
    sds key;
    int dbid;
    int expired;            /* the key was already expired when watched */
} watchedKey;

/* Clients watching one key of one db. */
typedef struct watchers {
    client **clients;
    int n, cap;
} watchers;

/* ---- The queue. ---- */

void initClientMultiState(client *c) {
    memset(&c->mstate, 0, sizeof(c->mstate));
}

/* Frees the queued commands, dropping the queue's reference to each of
 * their arguments, and leaves an empty queue. The MULTI flags and the
 * watches are not touched: discardTransaction does the whole reset. */
void freeClientMultiState(client *c) {
    redisServer *s = c->srv;
    for (int j = 0; j < c->mstate.count; j++) {
        multiCmd *mc = &c->mstate.commands[j];
        for (int i = 0; i < mc->argc; i++) decrRefCount(s, mc->argv[i]);
        memFree(s->mem, mc->argv);
    }
    memFree(s->mem, c->mstate.commands);
    initClientMultiState(c);
}

/* Moves the client's parsed command into its transaction queue. */
void queueMultiCommand(client *c) {
    redisServer *s = c->srv;
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) return;
    multiState *ms = &c->mstate;
    if (ms->count == ms->cap) {
        ms->cap = ms->cap ? ms->cap * 2 : 2;
        ms->commands = memRealloc(s->mem, ms->commands,
                                  sizeof(multiCmd) * (size_t)ms->cap);
    }
    multiCmd *mc = &ms->commands[ms->count++];
    mc->argv = c->argv;
    mc->argc = c->argc;
    mc->cmd = c->cmd;
    ms->cmd_flags |= c->cmd->flags;
    ms->cmd_inv_flags |= ~c->cmd->flags;
    c->argv = NULL;
    c->argc = 0;
    c->argv_len = 0;
}

/* Drops the queue and the watches; the client leaves MULTI. */
void discardTransaction(client *c) {
    freeClientMultiState(c);
    c->flags &= ~(uint64_t)(CLIENT_MULTI | CLIENT_DIRTY_CAS |
                            CLIENT_DIRTY_EXEC);
    unwatchAllKeys(c);
}

/* An error while queueing makes the whole transaction fail at EXEC. */
void flagTransaction(client *c) {
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}

/* MULTI: +OK, and the client's next commands are queued until EXEC or
 * DISCARD. Inside MULTI it is an error ("MULTI calls can not be nested")
 * that leaves the transaction as it was. */
void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    addReplyOK(c);
}

/* DISCARD: drops the queue and every watch, leaves MULTI, replies +OK.
 * Outside MULTI, the error "DISCARD without MULTI". */
void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "DISCARD without MULTI");
        return;
    }
    discardTransaction(c);
    addReplyOK(c);
}

/* A watched key that was live when watched and has expired since counts
 * as modified. */
static int _watchedKeyExpired(client *c) {
    redisServer *s = c->srv;
    for (int j = 0; j < c->watched_count; j++) {
        watchedKey *wk = &((watchedKey *)c->watched)[j];
        if (wk->expired) continue;
        robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, wk->key);
        if (keyIsExpired(s, &s->db[wk->dbid], &k)) return 1;
    }
    return 0;
}

/* EXEC checks each queued command against the user's permissions again,
 * as they stand now: a denied one is logged and replied 7.0's NOPERM
 * error in its place, and the others run. 1 if it was denied. */
static int _execAclDenied(client *c) {
    int idx = 0;
    int r = aclCheckAllPerm(c, &idx);
    if (r == ACL_OK) return 0;
    const char *reason =
        r == ACL_DENIED_CMD ? "no permission to execute the command or "
                              "subcommand" :
        r == ACL_DENIED_KEY ? "no permission to touch the specified keys" :
        "no permission to access one of the channels used as arguments";
    addACLLogEntry(c, r, ACL_LOG_CTX_MULTI, idx, NULL, NULL);
    addReplyErrorFormat(c, "-NOPERM ACLs rules changed between the moment "
                        "the transaction was accumulated and the EXEC call. "
                        "This command is no longer allowed for the "
                        "following reason: %s", reason);
    return 1;
}

/* Runs the queued commands as one: their replies form one array. */
void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "EXEC without MULTI");
        return;
    }
    if (_watchedKeyExpired(c)) c->flags |= CLIENT_DIRTY_CAS;
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) {
        if (c->flags & CLIENT_DIRTY_EXEC)
            addReplyError(c, "-EXECABORT Transaction discarded because of "
                          "previous errors.");
        else
            addReplyNullArray(c);
        discardTransaction(c);
        return;
    }
    unwatchAllKeys(c);
    robj **orig_argv = c->argv;
    int orig_argc = c->argc, orig_argv_len = c->argv_len;
    const redisCommand *orig_cmd = c->cmd;
    addReplyArrayLen(c, c->mstate.count);
    c->srv->in_exec = 1;
    /* A queued blocking command acts as its non-blocking form. */
    uint64_t deny = c->flags & CLIENT_DENY_BLOCKING;
    c->flags |= CLIENT_DENY_BLOCKING;
    for (int j = 0; j < c->mstate.count; j++) {
        multiCmd *mc = &c->mstate.commands[j];
        c->argc = mc->argc;
        c->argv = mc->argv;
        c->argv_len = mc->argc;
        c->cmd = mc->cmd;
        /* The user's permissions may have changed since it queued. */
        if (_execAclDenied(c)) continue;
        call(c);
        /* Commands may rewrite their argv (SET's value is re-encoded). */
        mc->argc = c->argc;
        mc->argv = c->argv;
    }
    c->srv->in_exec = 0;
    if (!deny) c->flags &= ~(uint64_t)CLIENT_DENY_BLOCKING;
    c->argv = orig_argv;
    c->argc = orig_argc;
    c->argv_len = orig_argv_len;
    c->cmd = orig_cmd;
    discardTransaction(c);
}

/* ---- WATCH. ---- */

static watchers *_watchersOf(redisServer *s, int dbid, sds key, int create) {
    dictEntry *de = dictFind(s->db[dbid].watched_keys, key);
    if (de) return dictGetVal(de);
    if (!create) return NULL;
    watchers *w = memCalloc(s->mem, sizeof(*w));
    dictAdd(s->db[dbid].watched_keys, sdsdup(s->mem, key), w);
    return w;
}

/* The client's watch of key in db, NULL if it does not watch it. */
static watchedKey *_watchOf(client *c, int dbid, sds key) {
    watchedKey *list = c->watched;
    for (int j = 0; j < c->watched_count; j++)
        if (list[j].dbid == dbid && sdscmp(list[j].key, key) == 0)
            return &list[j];
    return NULL;
}

static void _watchKey(client *c, robj *key) {
    redisServer *s = c->srv;
    if (_watchOf(c, c->db->id, key->v.ptr)) return;
    watchers *w = _watchersOf(s, c->db->id, key->v.ptr, 1);
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 4;
        w->clients = memRealloc(s->mem, w->clients,
                                sizeof(client *) * (size_t)w->cap);
    }
    w->clients[w->n++] = c;
    if (c->watched_count == c->watched_cap) {
        c->watched_cap = c->watched_cap ? c->watched_cap * 2 : 4;
        c->watched = memRealloc(s->mem, c->watched,
                                sizeof(watchedKey) * (size_t)c->watched_cap);
    }
    watchedKey *wk = &((watchedKey *)c->watched)[c->watched_count++];
    wk->key = sdsdup(s->mem, key->v.ptr);
    wk->dbid = c->db->id;
    wk->expired = keyIsExpired(s, c->db, key);
}

/* Forgets every key the client watches. */
void unwatchAllKeys(client *c) {
    redisServer *s = c->srv;
    watchedKey *list = c->watched;
    for (int j = 0; j < c->watched_count; j++) {
        watchers *w = _watchersOf(s, list[j].dbid, list[j].key, 0);
        if (w) {
            for (int i = 0; i < w->n; i++)
                if (w->clients[i] == c) {
                    w->clients[i] = w->clients[--w->n];
                    break;
                }
            if (w->n == 0) {
                memFree(s->mem, w->clients);
                memFree(s->mem, w);
                dictDelete(s->db[list[j].dbid].watched_keys, list[j].key);
            }
        }
        sdsfree(s->mem, list[j].key);
    }
    memFree(s->mem, c->watched);
    c->watched = NULL;
    c->watched_count = c->watched_cap = 0;
}

/* WATCH key [key ...]: +OK. Each key of the current db is watched once,
 * however often named (see touchWatchedKey for what dooms a watch). An
 * error inside MULTI; a no-op if a watched key was already touched. */
void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "WATCH inside MULTI is not allowed");
        return;
    }
    /* No point watching if the transaction is already doomed. */
    if (c->flags & CLIENT_DIRTY_CAS) { addReplyOK(c); return; }
    for (int j = 1; j < c->argc; j++) _watchKey(c, c->argv[j]);
    addReplyOK(c);
}

/* UNWATCH: forgets every watched key and clears a doomed watch, so the
 * next transaction may run. Always +OK. */
void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~(uint64_t)CLIENT_DIRTY_CAS;
    addReplyOK(c);
}

/* A write to key dooms the transactions of every client watching it.
 *
 * Except one case, as in 7.0: a client that watched the key when it had
 * already expired watched, in effect, a missing key. When that key is
 * now deleted (a lazy expire by DEL, EXISTS, GET ... or the expire
 * cycle) it is still missing, so nothing changed for that client: its
 * watch forgets the expiry and stays clean. A later write that creates
 * the key dooms it like any write. */
void touchWatchedKey(redisServer *s, redisDb *db, robj *key) {
    if (dictSize(db->watched_keys) == 0) return;
    watchers *w = _watchersOf(s, db->id, key->v.ptr, 0);
    if (!w) return;
    /* Looked up only for such a watch, as 7.0 does: a lookup may take a
     * rehash step, and the table must move as Redis's would. */
    int missing = -1;
    for (int i = 0; i < w->n; i++) {
        client *c = w->clients[i];
        watchedKey *wk = _watchOf(c, db->id, key->v.ptr);
        if (wk && wk->expired) {
            if (missing < 0) missing = dictFind(db->dict, key->v.ptr) == NULL;
            if (missing) {
                wk->expired = 0;
                continue;
            }
        }
        c->flags |= CLIENT_DIRTY_CAS;
    }
}

/* FLUSHDB/FLUSHALL (replaced_with NULL) and SWAPDB: the keys watched in
 * emptied that existed there, or exist in replaced_with (the db whose
 * keys take their place), are modified -- with 7.0's care for expired
 * keys: a watch of a key already expired stays clean when the key goes
 * or is replaced by one expired too, and a missing key replaced by an
 * expired one counts as still missing (its watch becomes one of an
 * expired key). Call before the db is emptied or swapped. */
void touchAllWatchedKeysInDb(redisServer *s, redisDb *emptied,
                             redisDb *replaced_with) {
    if (dictSize(emptied->watched_keys) == 0) return;
    dictIterator *di = dictGetIterator(emptied->watched_keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
        int in_emptied = dictFind(emptied->dict, key) != NULL;
        int in_replaced = replaced_with &&
                          dictFind(replaced_with->dict, key) != NULL;
        if (!in_emptied && !in_replaced) continue;
        watchers *w = dictGetVal(de);
        for (int i = 0; i < w->n; i++) {
            client *c = w->clients[i];
            watchedKey *wk = _watchOf(c, emptied->id, key);
            if (wk && wk->expired) {
                if (!in_replaced) {
                    wk->expired = 0;
                    continue;
                }
                if (keyIsExpired(s, replaced_with, &k)) continue;
            } else if (wk && !in_emptied &&
                       keyIsExpired(s, replaced_with, &k)) {
                wk->expired = 1;
                continue;
            }
            c->flags |= CLIENT_DIRTY_CAS;
        }
    }
    dictReleaseIterator(di);
}
