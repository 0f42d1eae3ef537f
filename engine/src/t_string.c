/* t_string.c -- string commands: SET and its options, GET, GETSET, MSET,
 * MGET, SETNX, SETEX, PSETEX, INCR/DECR and friends, APPEND, STRLEN,
 * GETEX, GETDEL, GETRANGE (SUBSTR), SETRANGE and LCS. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <math.h>
#include <ctype.h>
#include "server.h"

#define OBJ_NO_FLAGS 0
#define OBJ_SET_NX (1 << 0)
#define OBJ_SET_XX (1 << 1)
#define OBJ_EX (1 << 2)
#define OBJ_PX (1 << 3)
#define OBJ_KEEPTTL (1 << 4)
#define OBJ_SET_GET (1 << 5)
#define OBJ_EXAT (1 << 6)
#define OBJ_PXAT (1 << 7)
#define OBJ_PERSIST (1 << 8)
#define OBJ_ANY_EXPIRE (OBJ_EX | OBJ_PX | OBJ_EXAT | OBJ_PXAT)

#define COMMAND_GET 0
#define COMMAND_SET 1

#define UNIT_SECONDS 0
#define UNIT_MILLISECONDS 1

static int _optIs(const char *opt, const char *name) {
    return strcasecmp(opt, name) == 0;
}

/* The expire options of SET: which flag each sets, its unit, and which
 * flags exclude it. */
static const struct setExpireOpt {
    const char *name;
    int flag, unit;
} setExpireOpts[] = {
    { "ex", OBJ_EX, UNIT_SECONDS }, { "px", OBJ_PX, UNIT_MILLISECONDS },
    { "exat", OBJ_EXAT, UNIT_SECONDS },
    { "pxat", OBJ_PXAT, UNIT_MILLISECONDS }, { NULL, 0, 0 }
};

/* Parses the options of SET (from argv[3]) or of GETEX (from argv[2])
 * left to right, as Redis 7.0 does: a repeated or conflicting option, or
 * one the command does not take, is a syntax error. NX, XX, GET and
 * KEEPTTL are SET's; PERSIST is GETEX's; the four expire options are
 * both's. */
static int _parseExtendedOptions(client *c, int cmd, int *flags, int *unit,
                                 robj **expire) {
    int set = cmd == COMMAND_SET;
    for (int j = set ? 3 : 2; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        robj *next = j == c->argc - 1 ? NULL : c->argv[j + 1];
        int handled = 0;
        if (set && _optIs(opt, "nx") && !(*flags & OBJ_SET_XX)) {
            *flags |= OBJ_SET_NX; handled = 1;
        } else if (set && _optIs(opt, "xx") && !(*flags & OBJ_SET_NX)) {
            *flags |= OBJ_SET_XX; handled = 1;
        } else if (set && _optIs(opt, "get")) {
            *flags |= OBJ_SET_GET; handled = 1;
        } else if (set && _optIs(opt, "keepttl") &&
                   !(*flags & OBJ_ANY_EXPIRE)) {
            *flags |= OBJ_KEEPTTL; handled = 1;
        } else if (!set && _optIs(opt, "persist") &&
                   !(*flags & OBJ_ANY_EXPIRE)) {
            *flags |= OBJ_PERSIST; handled = 1;
        }
        for (int k = 0; !handled && setExpireOpts[k].name; k++) {
            const struct setExpireOpt *e = &setExpireOpts[k];
            int excluded = OBJ_KEEPTTL | OBJ_PERSIST |
                           (OBJ_ANY_EXPIRE & ~e->flag);
            if (!_optIs(opt, e->name) || !next) continue;
            if (*flags & excluded) break;
            *flags |= e->flag;
            *unit = e->unit;
            *expire = next;
            j++;
            handled = 1;
        }
        if (!handled) { addReplyError(c, "syntax error"); return C_ERR; }
    }
    return C_OK;
}

/* Turns an expire argument into absolute unix ms. Non-positive values and
 * overflows are "invalid expire time". */
static int _getExpireMs(client *c, robj *expire, int flags, int unit,
                        long long *ms) {
    if (getLongLongFromObjectOrReply(c, expire, ms, NULL) != C_OK)
        return C_ERR;
    if (*ms <= 0 || (unit == UNIT_SECONDS && *ms > LLONG_MAX / 1000)) {
        addReplyErrorExpireTime(c);
        return C_ERR;
    }
    if (unit == UNIT_SECONDS) *ms *= 1000;
    if (flags & (OBJ_PX | OBJ_EX)) {
        if (*ms > LLONG_MAX - c->srv->mstime) *ms = -1;
        else *ms += c->srv->mstime;
    }
    if (*ms <= 0) { addReplyErrorExpireTime(c); return C_ERR; }
    return C_OK;
}

/* GET's body: nil if missing, WRONGTYPE if not a string. */
static int _getGeneric(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], REPLY_NULL);
    if (!o) return C_OK;
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    addReplyBulk(c, o);
    return C_OK;
}

/* SET with EX, PX, EXAT or PXAT (and SETEX, PSETEX) is propagated as
 * SET key value PXAT <absolute ms>: exactly five arguments, so NX, XX
 * and GET go too. */
static void _propagateSetPxat(client *c, robj *key, robj *val,
                              long long ms) {
    redisServer *s = c->srv;
    robj *set = createStringObject(s, "SET", 3);
    robj *pxat = createStringObject(s, "PXAT", 4);
    robj *when = createStringObjectFromLongLong(s, ms);
    incrRefCount(key);
    incrRefCount(val);
    rewriteClientCommandVector(c, 5, set, key, val, pxat, when);
    decrRefCount(s, key);
    decrRefCount(s, val);
    decrRefCount(s, set);
    decrRefCount(s, pxat);
    decrRefCount(s, when);
}

/* SET ... GET without an expire is propagated without its GET (which
 * may be repeated): the reply is not part of the dataset. */
static void _propagateWithoutGet(client *c) {
    robj **argv = memAlloc(c->srv->mem, sizeof(robj *) * (size_t)c->argc);
    int argc = 0;
    for (int j = 0; j < c->argc; j++) {
        robj *a = c->argv[j];
        if (j >= 3 && sdsEncodedObject(a) && !strcasecmp(a->v.ptr, "get"))
            continue;
        argv[argc++] = a;
        incrRefCount(a);
    }
    replaceClientCommandVector(c, argc, argv);
}

static void _setGeneric(client *c, int flags, robj *key, robj *val,
                        robj *expire, int unit, const char *ok_reply,
                        const char *abort_reply) {
    long long ms = 0;
    if (expire && _getExpireMs(c, expire, flags, unit, &ms) != C_OK) return;
    if ((flags & OBJ_SET_GET) && _getGeneric(c) == C_ERR) return;
    int found = lookupKeyWrite(c, key) != NULL;
    if (((flags & OBJ_SET_NX) && found) || ((flags & OBJ_SET_XX) && !found)) {
        if (!(flags & OBJ_SET_GET))
            addReplyFixed(c, abort_reply ? abort_reply : REPLY_NULL);
        return;
    }
    setKey(c, c->db, key, val, flags & OBJ_KEEPTTL);
    c->srv->dirty++;
    notifyKeyspaceEvent(c->srv, NOTIFY_STRING, "set", key, c->db->id);
    if (expire) setExpire(c, c->db, key, ms);
    if (!(flags & OBJ_SET_GET)) {
        const char *r = ok_reply ? ok_reply : "+OK\r\n";
        addReplyProto(c, r, strlen(r));
    }
    if (expire) {
        _propagateSetPxat(c, key, val, ms);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "expire", c->argv[1],
                            c->db->id);
    } else if (flags & OBJ_SET_GET) {
        _propagateWithoutGet(c);
    }
}

/* SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL] */
void setCommand(client *c) {
    int flags = OBJ_NO_FLAGS, unit = UNIT_SECONDS;
    robj *expire = NULL;
    if (_parseExtendedOptions(c, COMMAND_SET, &flags, &unit, &expire) !=
        C_OK)
        return;
    c->argv[2] = tryObjectEncoding(c->srv, c->argv[2]);
    _setGeneric(c, flags, c->argv[1], c->argv[2], expire, unit, NULL, NULL);
}

/* SETNX key value: :1 if the key was set, :0 if it already existed (then
 * nothing changes). The value is stored re-encoded (tryObjectEncoding). */
void setnxCommand(client *c) {
    c->argv[2] = tryObjectEncoding(c->srv, c->argv[2]);
    _setGeneric(c, OBJ_SET_NX, c->argv[1], c->argv[2], NULL, 0, ":1\r\n",
                ":0\r\n");
}

/* SETEX key seconds value: +OK. seconds must be > 0, else "invalid expire
 * time in 'setex' command". Propagated as SET key value PXAT <ms>. */
void setexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->srv, c->argv[3]);
    _setGeneric(c, OBJ_EX, c->argv[1], c->argv[3], c->argv[2], UNIT_SECONDS,
                NULL, NULL);
}

/* PSETEX key milliseconds value: as SETEX, with the time in ms. */
void psetexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->srv, c->argv[3]);
    _setGeneric(c, OBJ_PX, c->argv[1], c->argv[3], c->argv[2],
                UNIT_MILLISECONDS, NULL, NULL);
}

void getCommand(client *c) { _getGeneric(c); }

/* GETSET is propagated as SET. */
void getsetCommand(client *c) {
    if (_getGeneric(c) == C_ERR) return;
    c->argv[2] = tryObjectEncoding(c->srv, c->argv[2]);
    setKey(c, c->db, c->argv[1], c->argv[2], 0);
    notifyKeyspaceEvent(c->srv, NOTIFY_STRING, "set", c->argv[1],
                        c->db->id);
    c->srv->dirty++;
    robj *set = createStringObject(c->srv, "SET", 3);
    rewriteClientCommandArgument(c, 0, set);
    decrRefCount(c->srv, set);
}

/* MSET key value [key value ...]: +OK; sets every pair left to right (a key
 * named twice keeps its last value), dropping any TTLs. An even argc is an
 * arity error, replied before anything is set. */
void msetCommand(client *c) {
    if ((c->argc % 2) == 0) { addReplyErrorArity(c); return; }
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->srv, c->argv[j + 1]);
        setKey(c, c->db, c->argv[j], c->argv[j + 1], 0);
        notifyKeyspaceEvent(c->srv, NOTIFY_STRING, "set", c->argv[j],
                            c->db->id);
    }
    c->srv->dirty += (c->argc - 1) / 2;
    addReplyOK(c);
}

/* MSETNX: sets every key only if none of them exists. */
void msetnxCommand(client *c) {
    if ((c->argc % 2) == 0) { addReplyErrorArity(c); return; }
    for (int j = 1; j < c->argc; j += 2)
        if (lookupKeyWrite(c, c->argv[j])) { addReplyLongLong(c, 0); return; }
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->srv, c->argv[j + 1]);
        setKey(c, c->db, c->argv[j], c->argv[j + 1], 0);
        notifyKeyspaceEvent(c->srv, NOTIFY_STRING, "set", c->argv[j],
                            c->db->id);
    }
    c->srv->dirty += (c->argc - 1) / 2;
    addReplyLongLong(c, 1);
}

/* MGET key [key ...]: an array with one bulk per key, null for a missing
 * key or one that does not hold a string (MGET never replies WRONGTYPE). */
void mgetCommand(client *c) {
    addReplyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c, c->argv[j]);
        if (o && o->type == OBJ_STRING) addReplyBulk(c, o);
        else addReplyNull(c);
    }
}

/* INCR and friends: the value must be a strict 64-bit integer, and the
 * result must not overflow. The result is stored in integer encoding. */
static void _incrDecr(client *c, long long incr) {
    redisServer *s = c->srv;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    long long value;
    if (checkType(c, o, OBJ_STRING)) return;
    if (getLongLongFromObjectOrReply(c, o, &value, NULL) != C_OK) return;
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    if (o && o->refcount == 1 && o->encoding == OBJ_ENCODING_INT &&
        (value < 0 || value >= OBJ_SHARED_INTEGERS)) {
        o->v.ll = value;
    } else {
        robj *n = createStringObjectFromLongLongForValue(s, value);
        if (o) dbOverwrite(s, c->db, c->argv[1], n);
        else dbAdd(s, c->db, c->argv[1], n);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STRING, "incrby", c->argv[1], c->db->id);
    s->dirty++;
    addReplyLongLong(c, value);
}

void incrCommand(client *c) { _incrDecr(c, 1); }
void decrCommand(client *c) { _incrDecr(c, -1); }

/* INCRBY key increment: the new value, as INCR. The increment must parse
 * as a 64-bit integer, else "value is not an integer or out of range". */
void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK)
        return;
    _incrDecr(c, incr);
}

/* DECRBY key decrement: the new value. A decrement of LLONG_MIN, which
 * cannot be negated, is "decrement would overflow". */
void decrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK)
        return;
    if (incr == LLONG_MIN) {
        addReplyError(c, "decrement would overflow");
        return;
    }
    _incrDecr(c, -incr);
}

/* Reads a string object as a long double (string2ld's rules). */
static int _getLongDouble(const robj *o, long double *out) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(o, buf, &len);
    return string2ld(p, len, out);
}

/* INCRBYFLOAT key increment: the result is stored as a string. */
void incrbyfloatCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    long double value = 0, incr;
    if (checkType(c, o, OBJ_STRING)) return;
    if ((o && !_getLongDouble(o, &value)) ||
        !_getLongDouble(c->argv[2], &incr)) {
        addReplyError(c, "value is not a valid float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), value);
    if (len == 0) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    robj *n = createStringObject(s, buf, (size_t)len);
    if (o) dbOverwrite(s, c->db, c->argv[1], n);
    else dbAdd(s, c->db, c->argv[1], n);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STRING, "incrbyfloat", c->argv[1],
                        c->db->id);
    s->dirty++;
    addReplyBulk(c, n);
    /* Propagated as SET key <result> KEEPTTL: a float addition replayed
     * elsewhere could round differently. */
    robj *set = createStringObject(s, "SET", 3);
    robj *keepttl = createStringObject(s, "KEEPTTL", 7);
    rewriteClientCommandVector(c, 4, set, c->argv[1], n, keepttl);
    decrRefCount(s, set);
    decrRefCount(s, keepttl);
}

/* APPEND turns the value into a raw string it owns, then grows it. */
void appendCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    size_t totlen;
    if (!o) {
        c->argv[2] = tryObjectEncoding(s, c->argv[2]);
        dbAdd(s, c->db, c->argv[1], c->argv[2]);
        incrRefCount(c->argv[2]);
        totlen = stringObjectLen(c->argv[2]);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        sds append = c->argv[2]->v.ptr;
        if ((long long)(stringObjectLen(o) + sdslen(append)) >
            s->cfg.proto_max_bulk_len) {
            addReplyError(c, "string exceeds maximum allowed size "
                          "(proto-max-bulk-len)");
            return;
        }
        o = dbUnshareStringValue(c, c->argv[1], o);
        o->v.ptr = sdscatlen(s->mem, o->v.ptr, append, sdslen(append));
        totlen = sdslen(o->v.ptr);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STRING, "append", c->argv[1], c->db->id);
    s->dirty++;
    addReplyLongLong(c, (long long)totlen);
}

/* STRLEN key: the length of the string value, 0 if the key is missing,
 * WRONGTYPE for another type. An INT value counts its decimal digits. */
void strlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_STRING)) return;
    addReplyLongLong(c, (long long)stringObjectLen(o));
}

/* ---- GETEX, GETDEL ---- */

/* Propagates the running command as "verb key" (DEL, UNLINK, PERSIST). */
static void _propagateAsVerbKey(client *c, const char *verb) {
    robj *v = createStringObject(c->srv, verb, strlen(verb));
    robj *key = c->argv[1];
    incrRefCount(key);
    rewriteClientCommandVector(c, 2, v, key);
    decrRefCount(c->srv, key);
    decrRefCount(c->srv, v);
}

/* GETEX key [EX s|PX ms|EXAT ts|PXAT ms-ts|PERSIST]: the value, as GET,
 * then the TTL changed. It is never propagated as itself: a new TTL goes
 * as PEXPIREAT key <absolute ms>, an absolute time already past deletes
 * the key and goes as DEL (UNLINK under lazyfree-lazy-expire), PERSIST
 * goes as PERSIST only if there was a TTL to remove, and without options
 * nothing changes, so nothing goes. */
void getexCommand(client *c) {
    redisServer *s = c->srv;
    int flags = OBJ_NO_FLAGS, unit = UNIT_SECONDS;
    robj *expire = NULL, *key = c->argv[1], *o;
    long long ms = 0;
    if (_parseExtendedOptions(c, COMMAND_GET, &flags, &unit, &expire) !=
        C_OK)
        return;
    if ((o = lookupKeyRead(c, key)) == NULL) { addReplyNull(c); return; }
    if (checkType(c, o, OBJ_STRING)) return;
    if (expire && _getExpireMs(c, expire, flags, unit, &ms) != C_OK) return;
    addReplyBulk(c, o);
    const char *event;
    if ((flags & (OBJ_EXAT | OBJ_PXAT)) && ms <= s->mstime && !s->loading) {
        int lazy = s->cfg.lazyfree_lazy_expire;
        if (lazy) dbAsyncDelete(s, c->db, key);
        else dbDelete(s, c->db, key);
        _propagateAsVerbKey(c, lazy ? "UNLINK" : "DEL");
        event = "del";
    } else if (expire) {
        event = "expire";
        setExpire(c, c->db, key, ms);
        robj *verb = createStringObject(s, "PEXPIREAT", 9);
        robj *when = createStringObjectFromLongLong(s, ms);
        incrRefCount(key);
        rewriteClientCommandVector(c, 3, verb, key, when);
        decrRefCount(s, key);
        decrRefCount(s, verb);
        decrRefCount(s, when);
    } else if (!(flags & OBJ_PERSIST) || !removeExpire(c->db, key)) {
        return;
    } else {
        _propagateAsVerbKey(c, "PERSIST");
        event = "persist";
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, event, c->argv[1], c->db->id);
    s->dirty++;
}

/* GETDEL key: the value, as GET, then the key deleted; propagated as DEL
 * (UNLINK under lazyfree-lazy-user-del). A missing key changes nothing. */
void getdelCommand(client *c) {
    redisServer *s = c->srv;
    int lazy = s->cfg.lazyfree_lazy_user_del, deleted;
    if (_getGeneric(c) == C_ERR) return;
    if (lazy) deleted = dbAsyncDelete(s, c->db, c->argv[1]);
    else deleted = dbDelete(s, c->db, c->argv[1]);
    if (!deleted) return;
    _propagateAsVerbKey(c, lazy ? "UNLINK" : "DEL");
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    s->dirty++;
}

/* ---- GETRANGE, SETRANGE ---- */

/* Makes the string at key one that can be changed in place: RAW, with a
 * refcount of 1. A shared or INT or EMBSTR value is replaced in the
 * keyspace by a raw copy, which is returned; otherwise o itself. */
robj *dbUnshareStringValue(client *c, robj *key, robj *o) {
    redisServer *s = c->srv;
    if (o->refcount == 1 && o->encoding == OBJ_ENCODING_RAW) return o;
    robj *d = getDecodedObject(s, o);
    robj *n = createRawStringObject(s, d->v.ptr, sdslen(d->v.ptr));
    decrRefCount(s, d);
    dbOverwrite(s, c->db, key, n);
    return n;
}

/* Grows s to len bytes, the new ones zero; a longer s is left alone. */
sds sdsGrowZero(gkMem *m, sds s, size_t len) {
    size_t cur = sdslen(s);
    if (len <= cur) return s;
    s = sdsMakeRoomFor(m, s, len - cur);
    memset(s + cur, 0, len - cur + 1);
    sdsIncrLen(s, len - cur);
    return s;
}

/* A string of size + append bytes must fit in proto-max-bulk-len (and
 * the sum must not overflow); the AOF loader is trusted. Replies the
 * error and returns C_ERR if it does not fit. */
int checkStringLength(client *c, long long size, long long append) {
    if (c->flags & CLIENT_FAKE) return C_OK;
    long long total = (long long)((uint64_t)size + (uint64_t)append);
    if (total > c->srv->cfg.proto_max_bulk_len || total < size ||
        total < append) {
        addReplyError(c, "string exceeds maximum allowed size "
                      "(proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

/* SETRANGE key offset value: overwrites the string from offset on,
 * padding with zero bytes if it was shorter; replies with the new length.
 * An empty value changes nothing (and creates no key). Propagated as is. */
void setrangeCommand(client *c) {
    redisServer *s = c->srv;
    sds value = c->argv[3]->v.ptr;
    size_t vlen = sdslen(value);
    long long offset;
    robj *o;
    if (getLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK)
        return;
    if (offset < 0) { addReplyError(c, "offset is out of range"); return; }
    o = lookupKeyWrite(c, c->argv[1]);
    if (o == NULL) {
        if (vlen == 0) { addReplyLongLong(c, 0); return; }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        o = createRawStringObject(s, NULL, (size_t)offset + vlen);
        dbAdd(s, c->db, c->argv[1], o);
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        if (vlen == 0) {
            addReplyLongLong(c, (long long)stringObjectLen(o));
            return;
        }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        o = dbUnshareStringValue(c, c->argv[1], o);
    }
    o->v.ptr = sdsGrowZero(s->mem, o->v.ptr, (size_t)offset + vlen);
    memcpy((char *)o->v.ptr + offset, value, vlen);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STRING, "setrange", c->argv[1], c->db->id);
    s->dirty++;
    addReplyLongLong(c, (long long)sdslen(o->v.ptr));
}

/* GETRANGE key start end (and SUBSTR): the bytes from start to end, both
 * included; negative indexes count from the end, and the range is clipped
 * to the string. An empty range, or a missing key, is an empty bulk. */
void getrangeCommand(client *c) {
    static const char emptybulk[] = "$0\r\n\r\n";
    long long start, end;
    char buf[LONG_STR_SIZE];
    size_t len;
    robj *o;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    o = lookupKeyReadOrReply(c, c->argv[1], emptybulk);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    const char *str = objectStrBytes(o, buf, &len);
    if (start < 0 && end < 0 && start > end) {
        addReplyProto(c, emptybulk, sizeof(emptybulk) - 1);
        return;
    }
    if (start < 0) start += (long long)len;
    if (end < 0) end += (long long)len;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if ((unsigned long long)end >= len) end = (long long)len - 1;
    if (start > end || len == 0) {
        addReplyProto(c, emptybulk, sizeof(emptybulk) - 1);
        return;
    }
    addReplyBulkCBuffer(c, str + start, (size_t)(end - start + 1));
}

/* ---- LCS ---- */

/* The options of LCS. */
typedef struct lcsOpts {
    int len, idx, withmatchlen;
    long long minmatchlen;
} lcsOpts;

/* Parses LCS's options from argv[3]. Returns C_ERR after replying. */
static int _lcsParseOptions(client *c, lcsOpts *o) {
    memset(o, 0, sizeof(*o));
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        if (_optIs(opt, "idx")) {
            o->idx = 1;
        } else if (_optIs(opt, "len")) {
            o->len = 1;
        } else if (_optIs(opt, "withmatchlen")) {
            o->withmatchlen = 1;
        } else if (_optIs(opt, "minmatchlen") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j],
                                             &o->minmatchlen, NULL) != C_OK)
                return C_ERR;
            if (o->minmatchlen < 0) o->minmatchlen = 0;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    if (o->idx && o->len) {
        addReplyError(c, "If you want both the length and indexes, please "
                      "just use IDX.");
        return C_ERR;
    }
    return C_OK;
}

/* Fills the (alen+1) x (blen+1) table of the textbook dynamic program:
 * T[i][j] is the length of the LCS of a[0..i) and b[0..j). O(alen*blen)
 * time and memory, which is why LCS refuses a table bigger than
 * proto-max-bulk-len. */
static void _lcsFill(uint32_t *t, const char *a, uint32_t alen,
                     const char *b, uint32_t blen) {
    size_t w = (size_t)blen + 1;
    for (uint32_t i = 0; i <= alen; i++) {
        for (uint32_t j = 0; j <= blen; j++) {
            uint32_t *cell = &t[i * w + j];
            if (i == 0 || j == 0) *cell = 0;
            else if (a[i - 1] == b[j - 1]) *cell = t[(i - 1) * w + j - 1] + 1;
            else {
                uint32_t up = t[(i - 1) * w + j], left = t[i * w + j - 1];
                *cell = up > left ? up : left;
            }
        }
    }
}

/* Replies with one IDX match: [[astart aend] [bstart bend] (len)]. */
static void _lcsReplyMatch(client *c, const lcsOpts *o, uint32_t as,
                           uint32_t ae, uint32_t bs, uint32_t be) {
    addReplyArrayLen(c, 2 + o->withmatchlen);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, as);
    addReplyLongLong(c, ae);
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, bs);
    addReplyLongLong(c, be);
    if (o->withmatchlen) addReplyLongLong(c, ae - as + 1);
}

/* Walks the table back from its last cell, writing the LCS into out
 * (lcslen bytes) and, under IDX, replying with the runs of contiguous
 * matches, last first, as Redis does: a run is closed when the walk
 * leaves the diagonal or reaches the first byte of either string, and is
 * reported if it is at least minmatchlen long. Returns the runs
 * reported. */
static long _lcsWalk(client *c, const lcsOpts *o, const uint32_t *t,
                     const char *a, uint32_t alen, const char *b,
                     uint32_t blen, char *out) {
    size_t w = (size_t)blen + 1;
    uint32_t i = alen, j = blen, k = t[(size_t)alen * w + blen];
    uint32_t as = 0, ae = 0, bs = 0, be = 0;
    int open = 0;
    long runs = 0;
    while (i > 0 && j > 0) {
        int close = 0;
        if (a[i - 1] == b[j - 1]) {
            out[--k] = a[i - 1];
            if (!open) {
                as = ae = i - 1;
                bs = be = j - 1;
                open = 1;
            } else if (as == i && bs == j) {
                as--;
                bs--;
            } else {
                close = 1;
            }
            if (as == 0 || bs == 0) close = 1;
            i--;
            j--;
        } else {
            if (t[(i - 1) * w + j] > t[i * w + j - 1]) i--;
            else j--;
            if (open) close = 1;
        }
        if (!close) continue;
        if (o->idx && (o->minmatchlen == 0 ||
                       ae - as + 1 >= (uint64_t)o->minmatchlen)) {
            _lcsReplyMatch(c, o, as, ae, bs, be);
            runs++;
        }
        open = 0;
    }
    return runs;
}

/* LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest
 * common subsequence of two strings (a missing key is empty), or its
 * length, or the matching ranges. */
void lcsCommand(client *c) {
    redisServer *s = c->srv;
    robj *oa = lookupKeyRead(c, c->argv[1]);
    robj *ob = lookupKeyRead(c, c->argv[2]);
    lcsOpts opt;
    if ((oa && oa->type != OBJ_STRING) || (ob && ob->type != OBJ_STRING)) {
        addReplyError(c, "The specified keys must contain string values");
        return;
    }
    oa = oa ? getDecodedObject(s, oa) : createStringObject(s, "", 0);
    ob = ob ? getDecodedObject(s, ob) : createStringObject(s, "", 0);
    const char *a = oa->v.ptr, *b = ob->v.ptr;
    size_t la = sdslen(oa->v.ptr), lb = sdslen(ob->v.ptr);
    uint32_t *t = NULL;
    if (_lcsParseOptions(c, &opt) != C_OK) goto done;
    if (la >= UINT32_MAX - 1 || lb >= UINT32_MAX - 1) {
        addReplyError(c, "String too long for LCS");
        goto done;
    }
    unsigned long long cells = (unsigned long long)(la + 1) * (lb + 1);
    unsigned long long bytes = cells * sizeof(uint32_t);
    if (bytes / sizeof(uint32_t) == cells && bytes < SIZE_MAX) {
        if (bytes > (unsigned long long)s->cfg.proto_max_bulk_len) {
            addReplyError(c, "Insufficient memory, transient memory for LCS "
                          "exceeds proto-max-bulk-len");
            goto done;
        }
        t = memTryAlloc(s->mem, (size_t)bytes);
    }
    if (t == NULL) {
        addReplyError(c, "Insufficient memory, failed allocating transient "
                      "memory for LCS");
        goto done;
    }
    _lcsFill(t, a, (uint32_t)la, b, (uint32_t)lb);
    uint32_t lcslen = t[la * (lb + 1) + lb];
    if (opt.len) {
        addReplyLongLong(c, lcslen);
        goto done;
    }
    sds out = sdsnewlen(s->mem, NULL, lcslen);
    void *deferred = NULL;
    if (opt.idx) {
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "matches");
        deferred = addReplyDeferredLen(c);
    }
    long runs = _lcsWalk(c, &opt, t, a, (uint32_t)la, b, (uint32_t)lb, out);
    if (opt.idx) {
        addReplyBulkCString(c, "len");
        addReplyLongLong(c, lcslen);
        setDeferredArrayLen(c, deferred, runs);
        sdsfree(s->mem, out);
    } else {
        addReplyBulkSds(c, out);
    }
done:
    memFree(s->mem, t);
    decrRefCount(s, oa);
    decrRefCount(s, ob);
}
