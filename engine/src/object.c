/* object.c -- Redis objects: typed, reference-counted values with an
 * encoding that can change as they grow (a small set of integers is an
 * intset, a bigger one a hash table). */
#include <string.h>
#include <math.h>
#include "server.h"
#include "intset.h"
#include "listpack.h"

robj *createObject(redisServer *s, int type, void *ptr) {
    robj *o = memAlloc(s->mem, sizeof(*o));
    o->type = (uint8_t)type;
    o->encoding = OBJ_ENCODING_RAW;
    o->refcount = 1;
    o->v.ptr = ptr;
    return o;
}

/* Strings of up to 44 bytes are "embstr": in Redis the object header and
 * the bytes share one allocation of at most 64 bytes. Longer strings are
 * "raw", with a separate sds. The encoding is what OBJECT ENCODING shows. */
robj *createStringObject(redisServer *s, const char *ptr, size_t len) {
    robj *o = createObject(s, OBJ_STRING, sdsnewlen(s->mem, ptr, len));
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT)
        o->encoding = OBJ_ENCODING_EMBSTR;
    return o;
}

robj *createRawStringObject(redisServer *s, const char *ptr, size_t len) {
    return createObject(s, OBJ_STRING, sdsnewlen(s->mem, ptr, len));
}

robj *createStringObjectFromLongLong(redisServer *s, long long value) {
    robj *o = createObject(s, OBJ_STRING, NULL);
    o->encoding = OBJ_ENCODING_INT;
    o->v.ll = value;
    return o;
}

robj *createStringObjectFromDouble(redisServer *s, double value) {
    char buf[MAX_D2STRING_CHARS];
    int len = d2string(buf, sizeof(buf), value);
    return createStringObject(s, buf, (size_t)len);
}

/* Re-encodes a string value to save memory, as SET does before storing:
 * decimal integers of up to 20 characters become INT, short strings
 * become EMBSTR. Returns the (possibly new) object; the argument's
 * reference is consumed. */
robj *tryObjectEncoding(redisServer *s, robj *o) {
    if (o->type != OBJ_STRING || !sdsEncodedObject(o) || o->refcount > 1)
        return o;
    sds str = o->v.ptr;
    size_t len = sdslen(str);
    long long value;
    if (len <= 20 && string2ll(str, len, &value)) {
        sdsfree(s->mem, str);
        o->encoding = OBJ_ENCODING_INT;
        o->v.ll = value;
        return o;
    }
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
        o->encoding = OBJ_ENCODING_EMBSTR;
        return o;
    }
    /* A raw string with much unused space is trimmed, as Redis does. */
    if (sdsavail(str) > len / 10)
        o->v.ptr = sdsRemoveFreeSpace(s->mem, str);
    return o;
}

/* A copy with refcount 1 that the caller may modify (APPEND). */
robj *dupStringObject(redisServer *s, const robj *o) {
    if (o->encoding == OBJ_ENCODING_INT)
        return createStringObjectFromLongLong(s, o->v.ll);
    robj *d = createRawStringObject(s, o->v.ptr, sdslen(o->v.ptr));
    d->encoding = o->encoding;
    return d;
}

/* A string object holding bytes (never INT); a new reference. */
robj *getDecodedObject(redisServer *s, robj *o) {
    if (sdsEncodedObject(o)) { incrRefCount(o); return o; }
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), o->v.ll);
    return createStringObject(s, buf, (size_t)len);
}

const char *objectStrBytes(const robj *o, char *buf, size_t *len) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *len = (size_t)ll2string(buf, LONG_STR_SIZE, o->v.ll);
        return buf;
    }
    *len = sdslen(o->v.ptr);
    return o->v.ptr;
}

robj *createSetObject(redisServer *s) {
    robj *o = createObject(s, OBJ_SET, dictCreate(&setDictType, &s->denv));
    o->encoding = OBJ_ENCODING_HT;
    return o;
}

robj *createIntsetObject(redisServer *s) {
    robj *o = createObject(s, OBJ_SET, intsetNew(s->mem));
    o->encoding = OBJ_ENCODING_INTSET;
    return o;
}

robj *createHashObject(redisServer *s) {
    robj *o = createObject(s, OBJ_HASH, lpNew(s->mem, 0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

robj *createZsetObject(redisServer *s) {
    zset *zs = memAlloc(s->mem, sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType, &s->denv);
    zs->zsl = zslCreate(s);
    robj *o = createObject(s, OBJ_ZSET, zs);
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

robj *createZsetListpackObject(redisServer *s) {
    robj *o = createObject(s, OBJ_ZSET, lpNew(s->mem, 0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

void incrRefCount(robj *o) { o->refcount++; }

/* Frees the value an object holds, according to its type and encoding. */
void freeObjectValue(redisServer *s, robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_RAW:
    case OBJ_ENCODING_EMBSTR: sdsfree(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_INT: break;
    case OBJ_ENCODING_HT: dictRelease(o->v.ptr); break;
    case OBJ_ENCODING_INTSET: intsetFree(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_LISTPACK: lpFree(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_SKIPLIST: freeZsetObject(s, o); break;
    default: memPanic("unknown object encoding");
    }
}

void decrRefCount(redisServer *s, robj *o) {
    if (o->refcount <= 0) memPanic("decrRefCount against refcount <= 0");
    if (--o->refcount == 0) {
        freeObjectValue(s, o);
        memFree(s->mem, o);
    }
}

size_t stringObjectLen(const robj *o) {
    if (sdsEncodedObject(o)) return sdslen(o->v.ptr);
    char buf[LONG_STR_SIZE];
    return (size_t)ll2string(buf, sizeof(buf), o->v.ll);
}

const char *strEncoding(int encoding) {
    switch (encoding) {
    case OBJ_ENCODING_RAW: return "raw";
    case OBJ_ENCODING_INT: return "int";
    case OBJ_ENCODING_HT: return "hashtable";
    case OBJ_ENCODING_INTSET: return "intset";
    case OBJ_ENCODING_SKIPLIST: return "skiplist";
    case OBJ_ENCODING_EMBSTR: return "embstr";
    case OBJ_ENCODING_LISTPACK: return "listpack";
    default: return "unknown";
    }
}

const char *typeName(const robj *o) {
    switch (o->type) {
    case OBJ_STRING: return "string";
    case OBJ_LIST: return "list";
    case OBJ_SET: return "set";
    case OBJ_ZSET: return "zset";
    case OBJ_HASH: return "hash";
    default: return "unknown";
    }
}

/* Replies WRONGTYPE and returns 1 if o is not of the given type. */
int checkType(client *c, robj *o, int type) {
    if (o && o->type != type) {
        addReplyError(c, "-WRONGTYPE Operation against a key holding the "
                      "wrong kind of value");
        return 1;
    }
    return 0;
}

int equalStringObjects(robj *a, robj *b) {
    char ba[LONG_STR_SIZE], bb[LONG_STR_SIZE];
    size_t la, lb;
    const char *pa = objectStrBytes(a, ba, &la);
    const char *pb = objectStrBytes(b, bb, &lb);
    return la == lb && memcmp(pa, pb, la) == 0;
}

/* C_OK and the value if o (NULL counts as 0) holds a strict integer. */
int getLongLongFromObject(const robj *o, long long *target) {
    long long value = 0;
    if (o) {
        if (o->type != OBJ_STRING) return C_ERR;
        if (o->encoding == OBJ_ENCODING_INT) value = o->v.ll;
        else if (!string2ll(o->v.ptr, sdslen(o->v.ptr), &value))
            return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getLongLongFromObjectOrReply(client *c, robj *o, long long *target,
                                 const char *msg) {
    long long value;
    if (getLongLongFromObject(o, &value) != C_OK) {
        addReplyError(c, msg ? msg
                             : "value is not an integer or out of range");
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

/* The "long" helpers of Redis, on 64-bit integers everywhere: long is 32
 * bits in WebAssembly, and both builds must accept the same numbers. */
int getRangeLongFromObjectOrReply(client *c, robj *o, long long min,
                                  long long max, long long *target,
                                  const char *msg) {
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, msg) != C_OK) return C_ERR;
    if (value < min || value > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, must be "
                                 "between %lld and %lld", min, max);
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getLongFromObjectOrReply(client *c, robj *o, long long *target,
                             const char *msg) {
    return getLongLongFromObjectOrReply(c, o, target, msg);
}

int getPositiveLongFromObjectOrReply(client *c, robj *o, long long *target,
                                     const char *msg) {
    if (msg) return getRangeLongFromObjectOrReply(c, o, 0, LLONG_MAX, target,
                                                  msg);
    return getRangeLongFromObjectOrReply(c, o, 0, LLONG_MAX, target,
                                         "value is out of range, must be "
                                         "positive");
}

int getDoubleFromObject(const robj *o, double *target) {
    double value = 0;
    if (o) {
        if (o->type != OBJ_STRING) return C_ERR;
        if (o->encoding == OBJ_ENCODING_INT) value = (double)o->v.ll;
        else if (!string2d(o->v.ptr, sdslen(o->v.ptr), &value))
            return C_ERR;
    }
    *target = value;
    return C_OK;
}

int getDoubleFromObjectOrReply(client *c, robj *o, double *target,
                               const char *msg) {
    double value;
    if (getDoubleFromObject(o, &value) != C_OK) {
        addReplyError(c, msg ? msg : "value is not a valid float");
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

/* OBJECT ENCODING <key> */
void objectEncodingCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (!o) { addReplyNull(c); return; }
    addReplyBulkCString(c, strEncoding(o->encoding));
}

/* OBJECT REFCOUNT <key>. Redis stores the integers 0..9999 as shared
 * objects with a refcount of INT_MAX (when no maxmemory policy needs
 * per-key LRU data); the engine does not share them but reports the same
 * number. */
void objectRefcountCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (!o) { addReplyNull(c); return; }
    if (o->encoding == OBJ_ENCODING_INT && o->v.ll >= 0 && o->v.ll < 10000 &&
        c->srv->cfg.maxmemory == 0) {
        addReplyLongLong(c, INT_MAX);
        return;
    }
    addReplyLongLong(c, o->refcount);
}

void objectHelpCommand(client *c) {
    static const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to "
        "store the value",
        "    associated with a <key>.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with "
        "the specified",
        "    <key>.",
        NULL };
    addReplyHelp(c, help);
}
