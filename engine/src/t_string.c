/* t_string.c -- string commands: SET and its options, GET, GETSET, MSET,
 * MGET, SETNX, SETEX, PSETEX, INCR/DECR and friends, APPEND, STRLEN. */
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
#define OBJ_ANY_EXPIRE (OBJ_EX | OBJ_PX | OBJ_EXAT | OBJ_PXAT)

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

/* Parses SET's options left to right, as Redis 7.0 does: a repeated or
 * conflicting option is a syntax error. */
static int _parseSetOptions(client *c, int *flags, int *unit, robj **expire) {
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        robj *next = j == c->argc - 1 ? NULL : c->argv[j + 1];
        int handled = 0;
        if (_optIs(opt, "nx") && !(*flags & OBJ_SET_XX)) {
            *flags |= OBJ_SET_NX; handled = 1;
        } else if (_optIs(opt, "xx") && !(*flags & OBJ_SET_NX)) {
            *flags |= OBJ_SET_XX; handled = 1;
        } else if (_optIs(opt, "get")) {
            *flags |= OBJ_SET_GET; handled = 1;
        } else if (_optIs(opt, "keepttl") && !(*flags & OBJ_ANY_EXPIRE)) {
            *flags |= OBJ_KEEPTTL; handled = 1;
        }
        for (int k = 0; !handled && setExpireOpts[k].name; k++) {
            const struct setExpireOpt *e = &setExpireOpts[k];
            if (!_optIs(opt, e->name) || !next) continue;
            if (*flags & (OBJ_KEEPTTL | (OBJ_ANY_EXPIRE & ~e->flag))) break;
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
    if (expire) setExpire(c, c->db, key, ms);
    if (!(flags & OBJ_SET_GET)) {
        const char *r = ok_reply ? ok_reply : "+OK\r\n";
        addReplyProto(c, r, strlen(r));
    }
    if (expire) _propagateSetPxat(c, key, val, ms);
    else if (flags & OBJ_SET_GET) _propagateWithoutGet(c);
}

/* SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ms-ts|KEEPTTL] */
void setCommand(client *c) {
    int flags = OBJ_NO_FLAGS, unit = UNIT_SECONDS;
    robj *expire = NULL;
    if (_parseSetOptions(c, &flags, &unit, &expire) != C_OK) return;
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
    if (o && o->refcount == 1 && o->encoding == OBJ_ENCODING_INT) {
        o->v.ll = value;
    } else {
        robj *n = createStringObjectFromLongLong(s, value);
        if (o) dbOverwrite(s, c->db, c->argv[1], n);
        else dbAdd(s, c->db, c->argv[1], n);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
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

/* Parses a long double as strtold over the whole string: no leading
 * space, no NaN, no overflow. */
static int _parseLongDouble(const robj *o, long double *out) {
    char buf[LONG_STR_SIZE], tmp[MAX_D2STRING_CHARS];
    size_t len;
    const char *p = objectStrBytes(o, buf, &len);
    if (len == 0 || len >= sizeof(tmp) || isspace((unsigned char)p[0]))
        return 0;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    long double v = strtold(tmp, &end);
    if ((size_t)(end - tmp) != len || errno == ERANGE || isnan(v)) return 0;
    *out = v;
    return 1;
}

/* Formats as Redis's human-friendly ld2string: 17 decimals, trailing
 * zeros and a bare point removed, "-0" printed as "0". */
static int _ld2string(char *buf, size_t len, long double value) {
    int l = snprintf(buf, len, "%.17Lf", value);
    if (l < 0 || (size_t)l + 1 > len) return 0;
    if (strchr(buf, '.')) {
        char *p = buf + l - 1;
        while (*p == '0') { p--; l--; }
        if (*p == '.') l--;
    }
    if (l == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; l = 1; }
    buf[l] = '\0';
    return l;
}

/* INCRBYFLOAT key increment: the result is stored as a string. */
void incrbyfloatCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    long double value = 0, incr;
    if (checkType(c, o, OBJ_STRING)) return;
    if ((o && !_parseLongDouble(o, &value)) ||
        !_parseLongDouble(c->argv[2], &incr)) {
        addReplyError(c, "value is not a valid float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    char buf[5 * 1024];
    int len = _ld2string(buf, sizeof(buf), value);
    if (len == 0) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    robj *n = createStringObject(s, buf, (size_t)len);
    if (o) dbOverwrite(s, c->db, c->argv[1], n);
    else dbAdd(s, c->db, c->argv[1], n);
    signalModifiedKey(c, c->db, c->argv[1]);
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
        if (o->refcount != 1 || o->encoding != OBJ_ENCODING_RAW) {
            robj *d = getDecodedObject(s, o);
            robj *n = createRawStringObject(s, d->v.ptr, sdslen(d->v.ptr));
            decrRefCount(s, d);
            dbOverwrite(s, c->db, c->argv[1], n);
            o = n;
        }
        o->v.ptr = sdscatlen(s->mem, o->v.ptr, append, sdslen(append));
        totlen = sdslen(o->v.ptr);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
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
