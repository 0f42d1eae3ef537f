/* expire.c -- EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, PERSIST. */
#include <string.h>
#include <strings.h>
#include "server.h"

#define UNIT_SECONDS 0
#define UNIT_MILLISECONDS 1

#define EXPIRE_NX (1 << 0)
#define EXPIRE_XX (1 << 1)
#define EXPIRE_GT (1 << 2)
#define EXPIRE_LT (1 << 3)

/* Parses NX | XX | GT | LT after the time argument. C_ERR after replying. */
static int _parseExpireFlags(client *c, int *flags) {
    int nx = 0, xx = 0, gt = 0, lt = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *a = c->argv[j]->v.ptr;
        if (!strcasecmp(a, "nx")) nx = 1;
        else if (!strcasecmp(a, "xx")) xx = 1;
        else if (!strcasecmp(a, "gt")) gt = 1;
        else if (!strcasecmp(a, "lt")) lt = 1;
        else {
            addReplyErrorFormat(c, "Unsupported option %s", a);
            return C_ERR;
        }
    }
    if (nx && (xx || gt || lt)) {
        addReplyError(c, "NX and XX, GT or LT options at the same time are "
                      "not compatible");
        return C_ERR;
    }
    if (gt && lt) {
        addReplyError(c, "GT and LT options at the same time are not "
                      "compatible");
        return C_ERR;
    }
    *flags = (nx ? EXPIRE_NX : 0) | (xx ? EXPIRE_XX : 0) |
             (gt ? EXPIRE_GT : 0) | (lt ? EXPIRE_LT : 0);
    return C_OK;
}

/* Whether the flags forbid replacing current (-1 = no TTL, which GT and
 * LT treat as an infinite TTL). */
static int _expireRefused(int flags, long long current, long long when) {
    if ((flags & EXPIRE_NX) && current != -1) return 1;
    if ((flags & EXPIRE_XX) && current == -1) return 1;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) return 1;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current) return 1;
    return 0;
}

/* The AOF gets PEXPIREAT with the absolute time in ms (flags kept), so
 * that replaying it later expires the key at the same moment. */
static void _propagateAsPexpireat(client *c, long long basetime, int unit,
                                  long long when) {
    redisServer *s = c->srv;
    if (c->cmd->proc != pexpireatCommand) {
        robj *verb = createStringObject(s, "PEXPIREAT", 9);
        rewriteClientCommandArgument(c, 0, verb);
        decrRefCount(s, verb);
    }
    if (basetime != 0 || unit == UNIT_SECONDS) {
        robj *w = createStringObjectFromLongLong(s, when);
        rewriteClientCommandArgument(c, 2, w);
        decrRefCount(s, w);
    }
}

/* The four EXPIRE commands: the time is relative to basetime (now, or 0
 * for the *AT forms), in seconds or milliseconds. A time already past
 * deletes the key at once. */
static void _expireGeneric(client *c, long long basetime, int unit) {
    redisServer *s = c->srv;
    robj *key = c->argv[1];
    long long when;
    int flags = 0;
    if (_parseExpireFlags(c, &flags) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &when, NULL) != C_OK)
        return;
    if (unit == UNIT_SECONDS) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
            addReplyErrorExpireTime(c);
            return;
        }
        when *= 1000;
    }
    if (when > LLONG_MAX - basetime) { addReplyErrorExpireTime(c); return; }
    when += basetime;
    if (!lookupKeyWrite(c, key)) { addReplyLongLong(c, 0); return; }
    if (flags && _expireRefused(flags, getExpire(c->db, key), when)) {
        addReplyLongLong(c, 0);
        return;
    }
    if (when <= s->mstime && !s->loading) {
        /* Deleted at once: a DEL, not an expiry (expired_keys stays), and
         * propagated as one; freed by the lazy-free thread under
         * lazyfree-lazy-expire, as the UNLINK it propagates says. */
        if (s->cfg.lazyfree_lazy_expire) dbAsyncDelete(s, c->db, key);
        else dbDelete(s, c->db, key);
        const char *v = s->cfg.lazyfree_lazy_expire ? "UNLINK" : "DEL";
        robj *verb = createStringObject(s, v, strlen(v));
        rewriteClientCommandVector(c, 2, verb, key);
        decrRefCount(s, verb);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    } else {
        setExpire(c, c->db, key, when);
        _propagateAsPexpireat(c, basetime, unit, when);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "expire", c->argv[1],
                            c->db->id);
    }
    s->dirty++;
    addReplyLongLong(c, 1);
}

/* EXPIRE key seconds [NX|XX|GT|LT]: :1 if the TTL was set (or the key
 * deleted, for a time already past), :0 if the key is missing or a flag
 * refused. Propagated as PEXPIREAT with the absolute ms, or as DEL/UNLINK
 * when it deleted the key. Touches watchers when it changes anything. */
void expireCommand(client *c) {
    _expireGeneric(c, c->srv->mstime, UNIT_SECONDS);
}
/* PEXPIRE key milliseconds [NX|XX|GT|LT]: as EXPIRE, in ms. */
void pexpireCommand(client *c) {
    _expireGeneric(c, c->srv->mstime, UNIT_MILLISECONDS);
}
void expireatCommand(client *c) { _expireGeneric(c, 0, UNIT_SECONDS); }
void pexpireatCommand(client *c) { _expireGeneric(c, 0, UNIT_MILLISECONDS); }

/* -2 if the key does not exist, -1 if it has no TTL, else the time left
 * (TTL, PTTL) or the unix time it expires at (EXPIRETIME, PEXPIRETIME),
 * rounded to the nearest second for the commands in seconds. */
static void _ttlGeneric(client *c, int output_ms, int output_abs) {
    if (!lookupKeyReadWithFlags(c->db, c, c->argv[1], LOOKUP_NOTOUCH)) {
        addReplyLongLong(c, -2);
        return;
    }
    long long expire = getExpire(c->db, c->argv[1]), ttl = -1;
    if (expire != -1) {
        ttl = output_abs ? expire : expire - c->srv->mstime;
        if (ttl < 0) ttl = 0;
    }
    if (ttl == -1) addReplyLongLong(c, -1);
    else addReplyLongLong(c, output_ms ? ttl : (ttl + 500) / 1000);
}

void ttlCommand(client *c) { _ttlGeneric(c, 0, 0); }
void pttlCommand(client *c) { _ttlGeneric(c, 1, 0); }
void expiretimeCommand(client *c) { _ttlGeneric(c, 0, 1); }
void pexpiretimeCommand(client *c) { _ttlGeneric(c, 1, 1); }

/* PERSIST key: :1 if the key had a TTL and now has none (watchers touched,
 * dirty), :0 if it is missing or had no TTL. */
void persistCommand(client *c) {
    if (lookupKeyWrite(c, c->argv[1]) && removeExpire(c->db, c->argv[1])) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "persist", c->argv[1],
                            c->db->id);
        c->srv->dirty++;
        addReplyLongLong(c, 1);
    } else {
        addReplyLongLong(c, 0);
    }
}
