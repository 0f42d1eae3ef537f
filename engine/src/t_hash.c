/* t_hash.c -- the hash type: HSET, HGET, HDEL, HGETALL and friends.
 *
 * Redis 7.0 stores a hash in one of two ways.
 *
 *   listpack    at most hash-max-listpack-entries (512) fields, none of
 *               them, and no value, longer than hash-max-listpack-value
 *               (64) bytes. Fields and values alternate in one listpack,
 *               field, value, field, value..., in the order the fields were
 *               first set. A lookup walks the fields one by one: O(N), but
 *               N is small and the walk stays inside one allocation, so it
 *               beats a hash table on both memory and, often, speed.
 *   hashtable   anything bigger: a dict from sds field to sds value.
 *
 * A new hash is always a listpack. It converts to a hashtable, for good,
 * when a write brings in a field or value that is too long (checked
 * before anything is written) or the number of fields passes the limit
 * (checked after each field is added). Deleting never converts back.
 *
 * Values that look like canonical integers ("42", "-7") are stored by the
 * listpack as integers, in as few bytes as they need; they read back as
 * the same text, so clients cannot tell. */
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <math.h>
#include "cost.h"
#include "server.h"
#include "listpack.h"

/* Replies that need no formatting, as the RESP2 bytes Redis sends. */
#define HASH_REPLY_ZERO ":0\r\n"
#define HASH_REPLY_NULL REPLY_NULL
#define HASH_REPLY_EMPTY_ARRAY "*0\r\n"
#define HASH_REPLY_EMPTY_SCAN "*2\r\n$1\r\n0\r\n*0\r\n"

/* A listpack may not grow past 1 GiB; Redis converts to a hashtable
 * rather than let one write cross that line (lpSafeToAdd). */
#define HASH_LISTPACK_SAFETY_SIZE (1UL << 30)

/* What genericHgetall puts in its reply. */
#define HASH_KEYS 1
#define HASH_VALUES 2

/* A field or value read out of a hash: bytes and length. An integer
 * stored in a listpack is written as text into buf, so ptr may point
 * there; the view is valid until the hash changes. */
typedef struct hashValue {
    const unsigned char *ptr;
    size_t len;
    unsigned char buf[LP_INTBUF_SIZE];
} hashValue;

/* ---- The hash type API ---- */

/* Returns the number of fields, O(1) for both encodings. */
unsigned long hashTypeLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        return lpLength(o->v.ptr) / 2;
    return (unsigned long)dictSize((const dict *)o->v.ptr);
}

/* Reads the listpack element at p into *v. */
static void hashReadElement(unsigned char *p, hashValue *v) {
    int64_t len;
    v->ptr = lpGet(p, &len, v->buf);
    v->len = (size_t)len;
}

/* Returns the listpack element holding field, or NULL. Only fields are
 * compared: lpFind skips every other element, so a value that happens to
 * equal the field is never mistaken for it. */
static unsigned char *hashListpackFind(redisServer *s, unsigned char *lp,
                                       const sds field) {
    unsigned char *p = lpFirst(lp);
    if (p == NULL) return NULL;
    return lpFind(s->mem, lp, p, (const unsigned char *)field,
                  (uint32_t)sdslen(field), 1);
}

/* Looks field up. Returns 1 and fills *v with its value, or returns 0. */
static int hashTypeGetValue(redisServer *s, robj *o, const sds field,
                            hashValue *v) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->v.ptr;
        unsigned char *fp = hashListpackFind(s, lp, field);
        if (fp == NULL) return 0;
        hashReadElement(lpNext(lp, fp), v);
        return 1;
    }
    dictEntry *de = dictFind(o->v.ptr, field);
    if (de == NULL) return 0;
    v->ptr = (const unsigned char *)dictGetVal(de);
    v->len = sdslen(dictGetVal(de));
    return 1;
}

/* Returns 1 if the hash has field, else 0. */
static int hashTypeExists(redisServer *s, robj *o, const sds field) {
    hashValue v;
    return hashTypeGetValue(s, o, field, &v);
}

/* Converts a listpack hash into a hashtable in place, freeing the
 * listpack. The dict is sized for all the fields first, as Redis does, so
 * the copy runs without a single incremental rehash step. */
static void hashTypeConvert(redisServer *s, robj *o) {
    unsigned char *lp = o->v.ptr;
    dict *d = dictCreate(&hashDictType, &s->denv);
    unsigned char *p = lpFirst(lp);
    hashValue f, v;
    dictExpand(d, hashTypeLength(o));
    while (p != NULL) {
        unsigned char *vp = lpNext(lp, p);
        hashReadElement(p, &f);
        hashReadElement(vp, &v);
        dictAdd(d, sdsnewlen(s->mem, f.ptr, f.len),
                sdsnewlen(s->mem, v.ptr, v.len));
        p = lpNext(lp, vp);
    }
    lpRelease(s->mem, lp);
    o->v.ptr = d;
    o->encoding = OBJ_ENCODING_HT;
}

/* Converts a listpack hash before a write brings in argv[start..end] if
 * any of them is longer than hash-max-listpack-value, or if together they
 * would push the listpack past its safety size. Only the lengths are
 * checked here; the field count is checked as each field goes in. */
static void hashTypeTryConversion(redisServer *s, robj *o, robj **argv,
                                  int start, int end) {
    size_t sum = 0;
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    for (int i = start; i <= end; i++) {
        size_t len;
        if (!sdsEncodedObject(argv[i])) continue;
        len = sdslen(argv[i]->v.ptr);
        if ((long long)len > s->cfg.hash_max_listpack_value) {
            hashTypeConvert(s, o);
            return;
        }
        sum += len;
    }
    if (lpBytes(o->v.ptr) + sum > HASH_LISTPACK_SAFETY_SIZE)
        hashTypeConvert(s, o);
}

/* Sets field in a listpack hash: replaces the value in place if the field
 * exists, else appends the pair at the end. Returns 1 for an update. */
static int hashListpackSet(redisServer *s, robj *o, const sds field,
                           const sds value) {
    unsigned char *lp = o->v.ptr;
    unsigned char *fp = hashListpackFind(s, lp, field);
    int update = fp != NULL;
    if (update) {
        unsigned char *vp = lpNext(lp, fp);
        lp = lpReplace(s->mem, lp, &vp, (const unsigned char *)value,
                       (uint32_t)sdslen(value));
    } else {
        lp = lpAppend(s->mem, lp, (const unsigned char *)field,
                      (uint32_t)sdslen(field));
        lp = lpAppend(s->mem, lp, (const unsigned char *)value,
                      (uint32_t)sdslen(value));
    }
    o->v.ptr = lp;
    return update;
}

/* Sets field in a hashtable hash. The dict gets its own copies of field
 * and value. Returns 1 for an update. */
static int hashDictSet(redisServer *s, dict *d, const sds field,
                       const sds value) {
    dictEntry *existing = NULL;
    dictEntry *de = dictAddRaw(d, field, &existing);
    if (de != NULL) {
        de->key = sdsdup(s->mem, field);
        de->v.val = sdsdup(s->mem, value);
        return 0;
    }
    sdsfree(s->mem, dictGetVal(existing));
    existing->v.val = sdsdup(s->mem, value);
    return 1;
}

/* Sets field to value, converting the encoding if needed: first if either
 * string is too long for a listpack (callers that ran
 * hashTypeTryConversion already did this), then if the new field makes
 * the listpack one field too many. Returns 0 if the field was created, 1
 * if an existing field was updated. field and value stay the caller's. */
static int hashTypeSet(redisServer *s, robj *o, const sds field,
                       const sds value) {
    int update;
    if (o->encoding == OBJ_ENCODING_LISTPACK &&
        ((long long)sdslen(field) > s->cfg.hash_max_listpack_value ||
         (long long)sdslen(value) > s->cfg.hash_max_listpack_value))
        hashTypeConvert(s, o);
    if (o->encoding != OBJ_ENCODING_LISTPACK)
        return hashDictSet(s, o->v.ptr, field, value);
    update = hashListpackSet(s, o, field, value);
    if ((long long)hashTypeLength(o) > s->cfg.hash_max_listpack_entries)
        hashTypeConvert(s, o);
    return update;
}

/* Deletes field and its value. Returns 1 if the field existed. */
static int hashTypeDelete(redisServer *s, robj *o, const sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->v.ptr;
        unsigned char *fp = hashListpackFind(s, lp, field);
        if (fp == NULL) return 0;
        lp = lpDelete(s->mem, lp, fp, &fp);   /* the field... */
        lp = lpDelete(s->mem, lp, fp, NULL);  /* ...then its value */
        o->v.ptr = lp;
        return 1;
    }
    dict *d = o->v.ptr;
    if (dictDelete(d, field) != C_OK) return 0;
    /* Shrink a table that fell under 10% full right away, as Redis does
     * after each delete from a hash, set or sorted set. */
    if (dictNeedsShrink(d)) dictResize(d);
    return 1;
}

/* Returns the hash stored at key, creating an empty listpack hash there
 * if the key is missing. Returns NULL after replying WRONGTYPE. */
static robj *hashTypeLookupWriteOrCreate(client *c, robj *key) {
    robj *o = lookupKeyWrite(c, key);
    if (checkType(c, o, OBJ_HASH)) return NULL;
    if (o == NULL) {
        o = createHashObject(c->srv);
        dbAdd(c->srv, c->db, key, o);
    }
    return o;
}

/* Looks key up for reading and checks it holds a hash. Returns the hash,
 * or NULL once the reply (given by reply, or WRONGTYPE) is written. */
static robj *hashLookupRead(client *c, robj *key, const char *reply) {
    robj *o = lookupKeyReadOrReply(c, key, reply);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return NULL;
    return o;
}

/* Replies with the value of field, or a null bulk if o is NULL or has no
 * such field. */
static void hashReplyField(client *c, robj *o, const sds field) {
    hashValue v;
    if (o == NULL || !hashTypeGetValue(c->srv, o, field, &v)) {
        addReplyNull(c);
        return;
    }
    addReplyBulkCBuffer(c, v.ptr, v.len);
}

/* ---- Commands: writes ---- */

/* HSET key field value [field value ...] and HMSET, which share this
 * proc: HSET replies with the number of fields created, HMSET with +OK.
 * Redis tells them apart by the second letter of the command name. Every
 * pair counts as one change for the dirty counter, new or not. */
void hsetCommand(client *c) {
    const char *name = c->argv[0]->v.ptr;
    long long created = 0;
    robj *o;
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    if ((o = hashTypeLookupWriteOrCreate(c, c->argv[1])) == NULL) return;
    hashTypeTryConversion(c->srv, o, c->argv, 2, c->argc - 1);
    for (int i = 2; i < c->argc; i += 2)
        created += !hashTypeSet(c->srv, o, c->argv[i]->v.ptr,
                                c->argv[i + 1]->v.ptr);
    if (name[1] == 's' || name[1] == 'S')
        addReplyLongLong(c, created);
    else
        addReplyOK(c);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(c->srv, NOTIFY_HASH, "hset", c->argv[1], c->db->id);
    c->srv->dirty += (c->argc - 2) / 2;
}

/* HMSET key field value [field value ...]: HSET replying +OK. */
void hmsetCommand(client *c) {
    hsetCommand(c);
}

/* HSETNX key field value: sets the field only if it does not exist.
 * Replies 1 if it was set, 0 if it was already there. Like Redis, a
 * missing key is created before the check; the field is then new, so the
 * key is never left behind empty. */
void hsetnxCommand(client *c) {
    robj *o = hashTypeLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    if (hashTypeExists(c->srv, o, c->argv[2]->v.ptr)) {
        addReplyLongLong(c, 0);
        return;
    }
    hashTypeTryConversion(c->srv, o, c->argv, 2, 3);
    hashTypeSet(c->srv, o, c->argv[2]->v.ptr, c->argv[3]->v.ptr);
    addReplyLongLong(c, 1);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(c->srv, NOTIFY_HASH, "hset", c->argv[1], c->db->id);
    c->srv->dirty++;
}

/* Parses the current value of field for HINCRBY: 0 if absent. Returns 0
 * after replying an error if the value is not an integer. */
static int hashGetIntegerOrReply(client *c, robj *o, const sds field,
                                 long long *value) {
    hashValue v;
    *value = 0;
    if (!hashTypeGetValue(c->srv, o, field, &v)) return 1;
    if (string2ll((const char *)v.ptr, v.len, value)) return 1;
    addReplyError(c, "hash value is not an integer");
    return 0;
}

/* HINCRBY key field increment: adds to an integer field (0 if missing)
 * and replies with the result. Overflow is refused, not wrapped. */
void hincrbyCommand(client *c) {
    redisServer *s = c->srv;
    long long incr, value;
    char buf[LONG_STR_SIZE];
    sds text;
    robj *o;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK)
        return;
    if ((o = hashTypeLookupWriteOrCreate(c, c->argv[1])) == NULL) return;
    if (!hashGetIntegerOrReply(c, o, c->argv[2]->v.ptr, &value)) return;
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
        (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    text = sdsnewlen(s->mem, buf, (size_t)ll2string(buf, sizeof(buf), value));
    hashTypeSet(s, o, c->argv[2]->v.ptr, text);
    sdsfree(s->mem, text);
    addReplyLongLong(c, value);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_HASH, "hincrby", c->argv[1], c->db->id);
    s->dirty++;
}

/* HDEL key field [field ...]: replies with the number of fields removed.
 * The key goes away with its last field, and the remaining arguments are
 * then not looked at. */
void hdelCommand(client *c) {
    removeMembersCommand(c, OBJ_HASH, hashTypeDelete, hashTypeLength);
}

/* ---- Commands: reads ---- */

/* HGET key field: the value, or a null bulk. */
void hgetCommand(client *c) {
    robj *o = hashLookupRead(c, c->argv[1], HASH_REPLY_NULL);
    if (o == NULL) return;
    hashReplyField(c, o, c->argv[2]->v.ptr);
}

/* HMGET key field [field ...]: one value or null per field. A missing
 * key is an empty hash, so every answer is then null. */
void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++)
        hashReplyField(c, o, c->argv[i]->v.ptr);
}

/* HLEN key: the number of fields. */
void hlenCommand(client *c) {
    robj *o = hashLookupRead(c, c->argv[1], HASH_REPLY_ZERO);
    if (o == NULL) return;
    addReplyLongLong(c, (long long)hashTypeLength(o));
}

/* HSTRLEN key field: the length of the value, 0 if there is none. An
 * integer in a listpack counts the digits of its text. */
void hstrlenCommand(client *c) {
    robj *o = hashLookupRead(c, c->argv[1], HASH_REPLY_ZERO);
    hashValue v;
    if (o == NULL) return;
    if (!hashTypeGetValue(c->srv, o, c->argv[2]->v.ptr, &v)) v.len = 0;
    addReplyLongLong(c, (long long)v.len);
}

/* HEXISTS key field: 1 or 0. */
void hexistsCommand(client *c) {
    robj *o = hashLookupRead(c, c->argv[1], HASH_REPLY_ZERO);
    if (o == NULL) return;
    addReplyLongLong(c, hashTypeExists(c->srv, o, c->argv[2]->v.ptr));
}

/* Replies with the fields and/or values (what: HASH_KEYS, HASH_VALUES)
 * of a listpack hash, in insertion order. */
static void hashReplyListpack(client *c, unsigned char *lp, int what) {
    unsigned char *p = lpFirst(lp);
    hashValue v;
    while (p != NULL) {
        unsigned char *vp = lpNext(lp, p);
        if (what & HASH_KEYS) {
            hashReadElement(p, &v);
            addReplyBulkCBuffer(c, v.ptr, v.len);
        }
        if (what & HASH_VALUES) {
            hashReadElement(vp, &v);
            addReplyBulkCBuffer(c, v.ptr, v.len);
        }
        p = lpNext(lp, vp);
    }
}

/* The same for a hashtable hash, in bucket order (seed dependent). */
static void hashReplyDict(client *c, dict *d, int what) {
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds f = dictGetKey(de), v = dictGetVal(de);
        if (what & HASH_KEYS) addReplyBulkCBuffer(c, f, sdslen(f));
        if (what & HASH_VALUES) {
            c->srv->denv.cpu_ns += costMissNs(costWorkingSet(c->srv->mem));
            addReplyBulkCBuffer(c, v, sdslen(v));
        }
    }
    dictReleaseIterator(di);
}

/* HGETALL, HKEYS and HVALS: every field and/or value; empty for a missing
 * key. HGETALL answers a map (in RESP2 a flat array of 2N items). */
static void genericHgetallCommand(client *c, int what) {
    int both = what == (HASH_KEYS | HASH_VALUES);
    robj *o = hashLookupRead(c, c->argv[1],
                             both ? REPLY_EMPTY_MAP : HASH_REPLY_EMPTY_ARRAY);
    long len;
    if (o == NULL) return;
    len = (long)hashTypeLength(o);
    if (both) addReplyMapLen(c, len);
    else addReplyArrayLen(c, len);
    if (o->encoding == OBJ_ENCODING_LISTPACK)
        hashReplyListpack(c, o->v.ptr, what);
    else
        hashReplyDict(c, o->v.ptr, what);
}

/* HGETALL key. */
void hgetallCommand(client *c) {
    genericHgetallCommand(c, HASH_KEYS | HASH_VALUES);
}

/* HKEYS key. */
void hkeysCommand(client *c) {
    genericHgetallCommand(c, HASH_KEYS);
}

/* HVALS key. */
void hvalsCommand(client *c) {
    genericHgetallCommand(c, HASH_VALUES);
}

/* HSCAN key cursor [MATCH pattern] [COUNT count]. The cursor is checked
 * before the key, so a bad cursor is reported even for a missing key. */
void hscanCommand(client *c) {
    uint64_t cursor;
    robj *o;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    o = hashLookupRead(c, c->argv[1], HASH_REPLY_EMPTY_SCAN);
    if (o == NULL) return;
    scanGenericCommand(c, o, cursor);
}

/* A copy of a hash with the same encoding, refcount 1 (COPY): a listpack
 * byte for byte, a hashtable presized and refilled field by field. */
robj *hashTypeDup(redisServer *s, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        size_t bytes = lpBytes(o->v.ptr);
        unsigned char *lp = memAlloc(s->mem, bytes);
        memcpy(lp, o->v.ptr, bytes);
        robj *h = createObject(s, OBJ_HASH, lp);
        h->encoding = OBJ_ENCODING_LISTPACK;
        return h;
    }
    dict *d = dictCreate(&hashDictType, &s->denv);
    dictIterator *di = dictGetIterator(o->v.ptr);
    dictEntry *de;
    dictExpand(d, hashTypeLength(o));
    while ((de = dictNext(di)) != NULL) {
        sds f = dictGetKey(de), v = dictGetVal(de);
        dictAdd(d, sdsdup(s->mem, f), sdsdup(s->mem, v));
    }
    dictReleaseIterator(di);
    robj *h = createObject(s, OBJ_HASH, d);
    h->encoding = OBJ_ENCODING_HT;
    return h;
}

/* The value of field as a new string object, or NULL if the hash has no
 * such field (SORT's BY and GET patterns read hash fields with it). */
robj *hashTypeGetValueObject(redisServer *s, robj *o, const sds field) {
    hashValue v;
    if (!hashTypeGetValue(s, o, field, &v)) return NULL;
    return createStringObject(s, (const char *)v.ptr, v.len);
}

/* ---- HINCRBYFLOAT ---- */

/* HINCRBYFLOAT key field increment: adds to a field read as a long double
 * (0 if missing) and replies with the sum, formatted as INCRBYFLOAT does.
 * An increment that is NaN or infinite is refused before the key is
 * created. Propagated as HSET key field <result>, so that a replay never
 * depends on float rounding. */
void hincrbyfloatCommand(client *c) {
    redisServer *s = c->srv;
    char ibuf[LONG_STR_SIZE], buf[MAX_LONG_DOUBLE_CHARS];
    long double incr, value = 0;
    size_t ilen;
    hashValue v;
    robj *o;
    const char *ip = objectStrBytes(c->argv[3], ibuf, &ilen);
    if (!string2ld(ip, ilen, &incr)) {
        addReplyError(c, "value is not a valid float");
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        addReplyError(c, "value is NaN or Infinity");
        return;
    }
    if ((o = hashTypeLookupWriteOrCreate(c, c->argv[1])) == NULL) return;
    if (hashTypeGetValue(c->srv, o, c->argv[2]->v.ptr, &v) &&
        !string2ld((const char *)v.ptr, v.len, &value)) {
        addReplyError(c, "hash value is not a float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        addReplyError(c, "increment would produce NaN or Infinity");
        return;
    }
    int len = ld2string(buf, sizeof(buf), value);
    sds text = sdsnewlen(s->mem, buf, (size_t)len);
    hashTypeSet(s, o, c->argv[2]->v.ptr, text);
    sdsfree(s->mem, text);
    addReplyBulkCBuffer(c, buf, (size_t)len);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_HASH, "hincrbyfloat", c->argv[1],
                        c->db->id);
    s->dirty++;
    robj *hset = createStringObject(s, "HSET", 4);
    robj *result = createRawStringObject(s, buf, (size_t)len);
    rewriteClientCommandArgument(c, 0, hset);
    rewriteClientCommandArgument(c, 3, result);
    decrRefCount(s, hset);
    decrRefCount(s, result);
}

/* ---- HRANDFIELD ----
 *
 * HRANDFIELD key [count [WITHVALUES]] follows Redis 7.0's four ways of
 * sampling, chosen by count against the hash's size N:
 *
 *   1. count < 0 (or 1): |count| independent draws, repeats allowed, in
 *      the order drawn. A listpack is sampled in batches of at most
 *      HRANDFIELD_RANDOM_SAMPLE_LIMIT draws, each batch sorted by position
 *      so that the listpack is walked once per batch.
 *   2. count >= N: the whole hash, in its own order.
 *   3. count * HRANDFIELD_SUB_STRATEGY_MUL > N: copy the hash into a
 *      scratch dict and delete random entries until count are left; the
 *      reply follows the scratch dict's order.
 *   4. otherwise (count much smaller than N): a listpack is walked once,
 *      picking each pair with probability (wanted left) / (pairs left);
 *      a hashtable is drawn from until count distinct fields came up,
 *      each replied as soon as it is new.
 */
#define HRANDFIELD_SUB_STRATEGY_MUL 3
#define HRANDFIELD_RANDOM_SAMPLE_LIMIT 1000

/* A draw of the listpack sampler: the pair's position and the order the
 * draw was made in. */
typedef struct hashPick {
    unsigned long index;
    unsigned long order;
} hashPick;

static int _hashPickCompare(const void *a, const void *b) {
    unsigned long x = ((const hashPick *)a)->index;
    unsigned long y = ((const hashPick *)b)->index;
    return x < y ? -1 : x > y;
}

/* The length of HRANDFIELD's reply of n fields: with values, a flat
 * array of 2n items in RESP2, an array of n [field, value] pairs in
 * RESP3. */
static void hrandReplyLen(client *c, unsigned long n, int withvalues) {
    if (withvalues && c->resp == 2) addReplyArrayLen(c, (long)n * 2);
    else addReplyArrayLen(c, (long)n);
}

/* Replies with a field and, when given, its value (a pair in RESP3). */
static void hrandReplySds(client *c, const sds f, const sds v) {
    if (v != NULL && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, f, sdslen(f));
    if (v != NULL) addReplyBulkCBuffer(c, v, sdslen(v));
}

/* Replies with a field, and its value when vp is not NULL (a pair in
 * RESP3). */
static void hrandReplyPair(client *c, unsigned char *fp, unsigned char *vp) {
    hashValue v;
    if (vp != NULL && c->resp > 2) addReplyArrayLen(c, 2);
    hashReadElement(fp, &v);
    addReplyBulkCBuffer(c, v.ptr, v.len);
    if (vp == NULL) return;
    hashReadElement(vp, &v);
    addReplyBulkCBuffer(c, v.ptr, v.len);
}

/* Draws count pairs of a listpack hash at random, repeats allowed, into
 * keys[] (element pointers, in the order drawn): one walk of the listpack
 * over the draws sorted by position. */
static void hashListpackRandomPairs(redisServer *s, unsigned char *lp,
                                    unsigned long count,
                                    unsigned char **keys) {
    hashPick *picks = memAlloc(s->mem, sizeof(*picks) * count);
    unsigned long pairs = lpLength(lp) / 2, at = 0, k = 0;
    for (unsigned long i = 0; i < count; i++) {
        picks[i].index = (unsigned long)rngBelow(s->denv.rng, pairs);
        picks[i].order = i;
    }
    qsort(picks, count, sizeof(*picks), _hashPickCompare);
    unsigned char *p = lpSeek(lp, (long)picks[0].index * 2);
    at = picks[0].index;
    while (p != NULL && k < count) {
        while (k < count && picks[k].index == at)
            keys[picks[k++].order] = p;
        at++;
        p = lpNext(lp, lpNext(lp, p));
    }
    memFree(s->mem, picks);
}

/* Case 1: |count| draws with repeats. */
static void hrandWithRepeats(client *c, robj *o, unsigned long count,
                             int withvalues) {
    redisServer *s = c->srv;
    hrandReplyLen(c, count, withvalues);
    if (o->encoding == OBJ_ENCODING_HT) {
        while (count--) {
            dictEntry *de = dictGetFairRandomKey(o->v.ptr);
            hrandReplySds(c, dictGetKey(de),
                          withvalues ? dictGetVal(de) : NULL);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }
    unsigned long limit = count > HRANDFIELD_RANDOM_SAMPLE_LIMIT ?
                          HRANDFIELD_RANDOM_SAMPLE_LIMIT : count;
    unsigned char **keys = memAlloc(s->mem, sizeof(*keys) * limit);
    while (count) {
        unsigned long n = count > limit ? limit : count;
        count -= n;
        hashListpackRandomPairs(s, o->v.ptr, n, keys);
        for (unsigned long i = 0; i < n; i++)
            hrandReplyPair(c, keys[i],
                           withvalues ? lpNext(o->v.ptr, keys[i]) : NULL);
        if (c->flags & CLIENT_CLOSE_ASAP) break;
    }
    memFree(s->mem, keys);
}

/* Case 2: every field, in the hash's own order. */
static void hrandWholeHash(client *c, robj *o, int withvalues) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->v.ptr, *p = lpFirst(lp);
        while (p != NULL) {
            unsigned char *vp = lpNext(lp, p);
            hrandReplyPair(c, p, withvalues ? vp : NULL);
            p = lpNext(lp, vp);
        }
        return;
    }
    dictIterator *di = dictGetIterator(o->v.ptr);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL)
        hrandReplySds(c, dictGetKey(de), withvalues ? dictGetVal(de) : NULL);
    dictReleaseIterator(di);
}

/* Case 3: a scratch copy of the hash with size - count random entries
 * deleted. */
static void hrandBySubtraction(client *c, robj *o, unsigned long size,
                               unsigned long count, int withvalues) {
    redisServer *s = c->srv;
    dict *d = dictCreate(&hashDictType, &s->denv);
    dictExpand(d, size);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->v.ptr, *p = lpFirst(lp);
        hashValue f, v;
        while (p != NULL) {
            unsigned char *vp = lpNext(lp, p);
            hashReadElement(p, &f);
            hashReadElement(vp, &v);
            dictAdd(d, sdsnewlen(s->mem, f.ptr, f.len),
                    withvalues ? sdsnewlen(s->mem, v.ptr, v.len) : NULL);
            p = lpNext(lp, vp);
        }
    } else {
        dictIterator *di = dictGetIterator(o->v.ptr);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL)
            dictAdd(d, sdsdup(s->mem, dictGetKey(de)),
                    withvalues ? sdsdup(s->mem, dictGetVal(de)) : NULL);
        dictReleaseIterator(di);
    }
    for (; size > count; size--)
        dictDelete(d, dictGetKey(dictGetFairRandomKey(d)));
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL)
        hrandReplySds(c, dictGetKey(de), withvalues ? dictGetVal(de) : NULL);
    dictReleaseIterator(di);
    dictRelease(d);
}

/* Case 4 for a listpack: one walk, each pair taken with probability
 * (still wanted) / (not yet visited), so every subset is equally likely;
 * the reply is in listpack order. */
static void hrandListpackUnique(client *c, robj *o, unsigned long count,
                                int withvalues) {
    unsigned char *lp = o->v.ptr, *p = lpFirst(lp);
    unsigned long pairs = lpLength(lp) / 2, visited = 0, left = count;
    while (left > 0 && p != NULL) {
        unsigned char *vp = lpNext(lp, p);
        double r = rngDouble(c->srv->denv.rng);
        if (r <= (double)left / (double)(pairs - visited)) {
            hrandReplyPair(c, p, withvalues ? vp : NULL);
            left--;
        }
        p = lpNext(lp, vp);
        visited++;
    }
}

/* Case 4 for a hashtable: draw until count distinct fields came up. */
static void hrandDictUnique(client *c, robj *o, unsigned long count,
                            int withvalues) {
    redisServer *s = c->srv;
    dict *seen = dictCreate(&keylistDictType, &s->denv);
    dictExpand(seen, count);
    while (dictSize(seen) < count) {
        dictEntry *de = dictGetFairRandomKey(o->v.ptr);
        sds f = dictGetKey(de), v = dictGetVal(de);
        if (dictFind(seen, f) != NULL) continue;
        dictAdd(seen, sdsdup(s->mem, f), NULL);
        hrandReplySds(c, f, withvalues ? v : NULL);
    }
    dictRelease(seen);
}

/* HRANDFIELD with a count. A missing key is an empty array. */
static void hrandfieldWithCount(client *c, long long l, int withvalues) {
    robj *o = hashLookupRead(c, c->argv[1], HASH_REPLY_EMPTY_ARRAY);
    if (o == NULL) return;
    unsigned long size = hashTypeLength(o);
    unsigned long count = l >= 0 ? (unsigned long)l : (unsigned long)-l;
    if (count == 0) {
        addReplyProto(c, HASH_REPLY_EMPTY_ARRAY,
                      strlen(HASH_REPLY_EMPTY_ARRAY));
        return;
    }
    if (l < 0 || count == 1) {
        hrandWithRepeats(c, o, count, withvalues);
        return;
    }
    hrandReplyLen(c, count < size ? count : size, withvalues);
    if (count >= size) {
        hrandWholeHash(c, o, withvalues);
    } else if (count * HRANDFIELD_SUB_STRATEGY_MUL > size) {
        hrandBySubtraction(c, o, size, count, withvalues);
    } else if (o->encoding == OBJ_ENCODING_LISTPACK) {
        hrandListpackUnique(c, o, count, withvalues);
    } else {
        hrandDictUnique(c, o, count, withvalues);
    }
}

/* HRANDFIELD key [count [WITHVALUES]]: without a count, one random field
 * (a null bulk for a missing key); with one, see above. The count must
 * be within +-LONG_MAX, and within +-LONG_MAX/2 with WITHVALUES, whose
 * reply is twice as long. */
void hrandfieldCommand(client *c) {
    long long l;
    int withvalues = 0;
    if (c->argc >= 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -LLONG_MAX,
                                          LLONG_MAX, &l, NULL) != C_OK)
            return;
        if (c->argc > 4 || (c->argc == 4 &&
                            strcasecmp(c->argv[3]->v.ptr, "withvalues"))) {
            addReplyError(c, "syntax error");
            return;
        }
        if (c->argc == 4) {
            withvalues = 1;
            if (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2) {
                addReplyError(c, "value is out of range");
                return;
            }
        }
        hrandfieldWithCount(c, l, withvalues);
        return;
    }
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (o == NULL) { addReplyNull(c); return; }
    if (checkType(c, o, OBJ_HASH)) return;
    if (o->encoding == OBJ_ENCODING_HT) {
        sds f = dictGetKey(dictGetFairRandomKey(o->v.ptr));
        addReplyBulkCBuffer(c, f, sdslen(f));
        return;
    }
    unsigned long pairs = hashTypeLength(o);
    unsigned char *p = lpSeek(o->v.ptr,
                              (long)rngBelow(c->srv->denv.rng, pairs) * 2);
    hrandReplyPair(c, p, NULL);
}
