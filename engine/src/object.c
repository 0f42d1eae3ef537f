/* object.c -- Redis objects: typed, reference-counted values with an
 * encoding that can change as they grow (a small set of integers is an
 * intset, a bigger one a hash table). */
#include <string.h>
#include <math.h>
#include "server.h"
#include "stream.h"
#include "intset.h"
#include "listpack.h"
#include "quicklist.h"
#include "rax.h"
#include "cost.h"

/* ---- The access clock ----
 *
 * Every object remembers when it was last accessed, for an LRU eviction
 * policy and OBJECT IDLETIME: a 24-bit clock of seconds (it wraps every
 * 194 days), which serverCron refreshes at every tick. Under an LFU
 * policy the same 24 bits hold instead the minute of the last decrement
 * (16 bits) and a logarithmic access counter (8 bits): a key starts at 5,
 * each access raises the counter with probability 1/((c-5)*factor+1), so
 * it takes about a million accesses to reach 255 with the default factor
 * of 10, and every lfu-decay-time minutes without access takes one off.
 * The clocks run on the server's time, which is virtual in a simulated
 * world. */

/* The LRU clock now: seconds, modulo 2^24. */
unsigned int getLRUClock(redisServer *s) {
    return (unsigned int)((s->mstime / LRU_CLOCK_RESOLUTION) & LRU_CLOCK_MAX);
}

/* The clock objects are stamped with: the one serverCron keeps, which is
 * precise enough whenever a tick is shorter than the clock's resolution
 * (any hz from 1 up), else read afresh. */
unsigned int LRU_CLOCK(redisServer *s) {
    if (1000 / s->hz <= LRU_CLOCK_RESOLUTION) return s->lruclock;
    return getLRUClock(s);
}

/* Milliseconds since o was last accessed, by the LRU clock (which may
 * have wrapped once since). */
unsigned long long estimateObjectIdleTime(redisServer *s, const robj *o) {
    unsigned long long now = LRU_CLOCK(s);
    if (now >= o->lru) return (now - o->lru) * LRU_CLOCK_RESOLUTION;
    return (now + (LRU_CLOCK_MAX - o->lru)) * LRU_CLOCK_RESOLUTION;
}

/* The LFU clock: minutes, modulo 2^16. */
static unsigned long _lfuTimeInMinutes(redisServer *s) {
    return (unsigned long)((s->mstime / 1000) / 60) & 65535;
}

/* Minutes since ldt, the clock having wrapped at most once. */
static unsigned long _lfuTimeElapsed(redisServer *s, unsigned long ldt) {
    unsigned long now = _lfuTimeInMinutes(s);
    if (now >= ldt) return now - ldt;
    return 65535 - ldt + now;
}

/* The counter raised by one with a probability that falls as it grows. */
static uint8_t _lfuLogIncr(redisServer *s, uint8_t counter) {
    if (counter == 255) return 255;
    double r = rngDouble(s->denv.rng);
    double base = counter - LFU_INIT_VAL;
    if (base < 0) base = 0;
    if (r < 1.0 / (base * s->cfg.lfu_log_factor + 1)) counter++;
    return counter;
}

/* o's LFU counter after the decay its idle minutes call for; o itself is
 * left as it is (an access updates it). */
unsigned long LFUDecrAndReturn(redisServer *s, const robj *o) {
    unsigned long ldt = o->lru >> 8, counter = o->lru & 255;
    unsigned long periods = s->cfg.lfu_decay_time
        ? _lfuTimeElapsed(s, ldt) / (unsigned long)s->cfg.lfu_decay_time : 0;
    if (periods) counter = periods > counter ? 0 : counter - periods;
    return counter;
}

/* Records an access to o: a new LRU stamp, or under an LFU policy the
 * decayed counter, raised, stamped with this minute. */
void objectTouch(redisServer *s, robj *o) {
    if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        unsigned long counter = LFUDecrAndReturn(s, o);
        counter = _lfuLogIncr(s, (uint8_t)counter);
        o->lru = (unsigned)((_lfuTimeInMinutes(s) << 8) | counter);
    } else {
        o->lru = LRU_CLOCK(s);
    }
}

/* objectSetLRUOrLFU: gives o the access data a DUMP payload, an RDB or
 * RESTORE's options carried (-1: none), when the current policy keeps
 * that kind: under LFU the counter, stamped with this minute; otherwise
 * the idle time (idle * multiplier ms) counted back from lru_clock. */
void objectSetLRUOrLFU(redisServer *s, robj *o, long long lfu_freq,
                       long long lru_idle, long long lru_clock,
                       int multiplier) {
    if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        if (lfu_freq >= 0)
            o->lru = (unsigned)((_lfuTimeInMinutes(s) << 8) |
                                (unsigned long)(lfu_freq & 255));
    } else if (lru_idle >= 0) {
        long long idle = lru_idle * multiplier / LRU_CLOCK_RESOLUTION;
        long long abs = lru_clock - idle;
        if (abs < 0) abs += LRU_CLOCK_MAX;
        o->lru = (unsigned)abs;
    }
}

/* Sets a new object's fields: refcount 1, encoding RAW (the caller sets
 * the real one), and the access clock in the form the maxmemory policy
 * reads (LFU counter or LRU time). */
static robj *_objectInit(redisServer *s, robj *o, int type, void *ptr) {
    o->type = (uint8_t)type;
    o->encoding = OBJ_ENCODING_RAW;
    o->refcount = 1;
    o->v.ptr = ptr;
    if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU)
        o->lru = (unsigned)((_lfuTimeInMinutes(s) << 8) | LFU_INIT_VAL);
    else
        o->lru = LRU_CLOCK(s);
    return o;
}

/* A new object of the given type wrapping ptr, with refcount 1 and encoding
 * RAW; the caller sets the real encoding. The object takes ownership of ptr,
 * which decrRefCount frees by encoding. Never returns NULL: memAlloc stops
 * the engine when the host refuses memory. */
robj *createObject(redisServer *s, int type, void *ptr) {
    return _objectInit(s, memAllocAs(s->mem, sizeof(robj), MEM64_ROBJ),
                       type, ptr);
}

/* An "embstr": the object and its string in one allocation, as Redis
 * keeps strings of up to 44 bytes: 16 bytes of robj, a 3-byte sds header
 * and the bytes with their NUL fill a 64-byte jemalloc class at most, and
 * one allocation instead of two saves a malloc, a free and a cache miss.
 * The string is never changed in place (APPEND and SETRANGE copy it to a
 * raw one first). The bytes are copied from ptr, or zeroed when ptr is
 * NULL. NULL if the host refuses the memory. */
robj *tryCreateEmbeddedStringObject(redisServer *s, const char *ptr,
                                    size_t len) {
    size_t embed = sdsEmbeddedSize(len);
    robj *o = memTryAllocAs(s->mem, sizeof(robj) + embed, MEM64_ROBJ + embed);
    if (!o) return NULL;
    _objectInit(s, o, OBJ_STRING, sdsEmbed(o + 1, ptr, len));
    o->encoding = OBJ_ENCODING_EMBSTR;
    return o;
}

/* A string object holding a copy of len bytes from ptr: an embstr up to
 * 44 bytes, raw beyond. NULL if the host refuses the memory. */
robj *tryCreateStringObject(redisServer *s, const char *ptr, size_t len) {
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT)
        return tryCreateEmbeddedStringObject(s, ptr, len);
    sds str = sdsTryNewlen(s->mem, ptr, len);
    return str ? createObject(s, OBJ_STRING, str) : NULL;
}

/* As tryCreateStringObject, but never NULL: the engine stops if memory is
 * refused. Refcount 1; the caller owns the reference. */
robj *createStringObject(redisServer *s, const char *ptr, size_t len) {
    robj *o = tryCreateStringObject(s, ptr, len);
    if (!o) memPanic("out of memory allocating a string");
    return o;
}

/* A string object with a private copy of len bytes from ptr, always RAW
 * whatever its length (APPEND then grows it in place). Refcount 1. */
robj *createRawStringObject(redisServer *s, const char *ptr, size_t len) {
    return createObject(s, OBJ_STRING, sdsnewlen(s->mem, ptr, len));
}

/* Redis keeps one object for each integer from 0 to 9999, made at
 * startup and never freed, and a value in that range stored as a string
 * points at it instead of taking a 16-byte object of its own: 100,000
 * keys holding small counters save 1.6 MB. Their refcount is the special
 * OBJ_SHARED_REFCOUNT, which incrRefCount and decrRefCount leave alone,
 * so nothing changes them in place (INCR checks for a refcount of 1). The
 * table of pointers is static data in Redis, outside used_memory. */
void createSharedIntegers(redisServer *s) {
    s->shared_integers = memAllocStatic(s->mem,
        sizeof(robj *) * OBJ_SHARED_INTEGERS);
    for (int i = 0; i < OBJ_SHARED_INTEGERS; i++) {
        robj *o = createObject(s, OBJ_STRING, NULL);
        o->encoding = OBJ_ENCODING_INT;
        o->v.ll = i;
        o->refcount = OBJ_SHARED_REFCOUNT;
        s->shared_integers[i] = o;
    }
}

/* Frees the shared integers (at the server's end only). */
void releaseSharedIntegers(redisServer *s) {
    if (!s->shared_integers) return;
    for (int i = 0; i < OBJ_SHARED_INTEGERS; i++)
        memFree(s->mem, s->shared_integers[i]);
    memFree(s->mem, s->shared_integers);
    s->shared_integers = NULL;
}

/* Whether a value stored in the keyspace may be a shared integer: not
 * when maxmemory is set with an LRU or LFU policy, as each key then needs
 * its own object to keep its own access clock. */
static int _sharedValuesAllowed(const redisServer *s) {
    return s->cfg.maxmemory == 0 ||
           !(s->cfg.maxmemory_policy & MAXMEMORY_FLAG_NO_SHARED_INTEGERS);
}

static robj *_intObject(redisServer *s, long long value, int shared) {
    if (shared && value >= 0 && value < OBJ_SHARED_INTEGERS) {
        robj *o = s->shared_integers[value];
        incrRefCount(o);
        return o;
    }
    robj *o = createObject(s, OBJ_STRING, NULL);
    o->encoding = OBJ_ENCODING_INT;
    o->v.ll = value;
    return o;
}

/* An INT-encoded string object holding value: the shared one for 0 to
 * 9999, else a new one with refcount 1. The caller owns a reference and
 * must not change the object unless its refcount is 1. */
robj *createStringObjectFromLongLong(redisServer *s, long long value) {
    return _intObject(s, value, 1);
}

/* As createStringObjectFromLongLong, for a value to be stored in the
 * keyspace: shared only when the maxmemory policy allows it. */
robj *createStringObjectFromLongLongForValue(redisServer *s,
                                             long long value) {
    return _intObject(s, value, _sharedValuesAllowed(s));
}

/* A string object holding value as Redis formats doubles in replies (see
 * d2string): "3" rather than "3.0", "inf", 17 significant digits. */
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
        if (o->encoding == OBJ_ENCODING_EMBSTR ||
            (_sharedValuesAllowed(s) && value >= 0 &&
             value < OBJ_SHARED_INTEGERS)) {
            decrRefCount(s, o);
            return createStringObjectFromLongLongForValue(s, value);
        }
        sdsfree(s->mem, str);
        o->encoding = OBJ_ENCODING_INT;
        o->v.ll = value;
        return o;
    }
    if (len <= OBJ_ENCODING_EMBSTR_SIZE_LIMIT) {
        if (o->encoding == OBJ_ENCODING_EMBSTR) return o;
        robj *emb = createStringObject(s, str, len);
        decrRefCount(s, o);
        return emb;
    }
    /* A raw string with much unused space is trimmed, as Redis does. */
    if (sdsavail(str) > len / 10)
        o->v.ptr = sdsRemoveFreeSpace(s->mem, str);
    return o;
}

/* A copy with refcount 1 that the caller may modify (APPEND); never a
 * shared integer. */
robj *dupStringObject(redisServer *s, const robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) return _intObject(s, o->v.ll, 0);
    if (o->encoding == OBJ_ENCODING_EMBSTR)
        return createStringObject(s, o->v.ptr, sdslen(o->v.ptr));
    return createRawStringObject(s, o->v.ptr, sdslen(o->v.ptr));
}

/* A string object holding bytes (never INT); a new reference. */
robj *getDecodedObject(redisServer *s, robj *o) {
    if (sdsEncodedObject(o)) { incrRefCount(o); return o; }
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), o->v.ll);
    return createStringObject(s, buf, (size_t)len);
}

/* Points *len bytes at the value of a string object: the sds itself, or for
 * an INT encoding its decimal text written into buf (LONG_STR_SIZE bytes).
 * The result is borrowed: valid while o lives and buf is in scope. */
const char *objectStrBytes(const robj *o, char *buf, size_t *len) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *len = (size_t)ll2string(buf, LONG_STR_SIZE, o->v.ll);
        return buf;
    }
    *len = sdslen(o->v.ptr);
    return o->v.ptr;
}

/* An empty set encoded as a hash table (HT), refcount 1. */
robj *createSetObject(redisServer *s) {
    robj *o = createObject(s, OBJ_SET, dictCreate(&setDictType, &s->denv));
    o->encoding = OBJ_ENCODING_HT;
    return o;
}

/* An empty set encoded as an intset, refcount 1: the encoding SADD starts
 * with when the first member is an integer. */
robj *createIntsetObject(redisServer *s) {
    robj *o = createObject(s, OBJ_SET, intsetCreate(s->mem));
    o->encoding = OBJ_ENCODING_INTSET;
    return o;
}

/* An empty hash encoded as a listpack, refcount 1. */
robj *createHashObject(redisServer *s) {
    robj *o = createObject(s, OBJ_HASH, lpCreate(s->mem, 0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

/* An empty sorted set encoded as a skiplist plus a member->score dict,
 * refcount 1. */
robj *createZsetObject(redisServer *s) {
    zset *zs = memAlloc(s->mem, sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType, &s->denv);
    zs->zsl = zslCreate(s);
    robj *o = createObject(s, OBJ_ZSET, zs);
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

/* An empty sorted set encoded as a listpack, refcount 1. */
robj *createZsetListpackObject(redisServer *s) {
    robj *o = createObject(s, OBJ_ZSET, lpCreate(s->mem, 0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

/* An empty list, encoded as a quicklist whose nodes follow the current
 * list-max-listpack-size and list-compress-depth: a list keeps the
 * settings it was created with, as in Redis. Refcount 1. In 7.0 every
 * list is a quicklist, even one of a single element (listpack-encoded
 * small lists came in 7.2). */
robj *createQuicklistObject(redisServer *s) {
    long long fill = s->cfg.list_max_listpack_size;
    long long depth = s->cfg.list_compress_depth;
    robj *o = createObject(s, OBJ_LIST, quicklistCreate(&s->qlenv,
                           (int)fill, depth > INT_MAX ? INT_MAX : (int)depth));
    o->encoding = OBJ_ENCODING_QUICKLIST;
    return o;
}

/* An empty stream, refcount 1. */
robj *createStreamObject(redisServer *s) {
    robj *o = createObject(s, OBJ_STREAM, streamNew(s));
    o->encoding = OBJ_ENCODING_STREAM;
    return o;
}

/* Takes one more reference to o; each must be dropped with decrRefCount. */
void incrRefCount(robj *o) {
    if (o->refcount != OBJ_SHARED_REFCOUNT) o->refcount++;
}

/* Frees the value an object holds, according to its type and encoding. */
void freeObjectValue(redisServer *s, robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_RAW: sdsfree(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_EMBSTR: /* the string is in the object's block */
    case OBJ_ENCODING_INT: break;
    case OBJ_ENCODING_HT: dictRelease(o->v.ptr); break;
    case OBJ_ENCODING_INTSET: intsetRelease(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_LISTPACK: lpRelease(s->mem, o->v.ptr); break;
    case OBJ_ENCODING_SKIPLIST: freeZsetObject(s, o); break;
    case OBJ_ENCODING_QUICKLIST: quicklistRelease(o->v.ptr); break;
    case OBJ_ENCODING_STREAM: freeStream(s, o->v.ptr); break;
    default: memPanic("unknown object encoding");
    }
}

/* Drops one reference; the last one frees the value and the object. A
 * refcount already at 0 means a double free, and stops the engine. */
void decrRefCount(redisServer *s, robj *o) {
    if (o->refcount == OBJ_SHARED_REFCOUNT) return;
    if (o->refcount <= 0) memPanic("decrRefCount against refcount <= 0");
    if (--o->refcount == 0) {
        if (!s->denv.quiet) s->denv.cpu_ns += freeObjectCost(s, o);
        freeObjectValue(s, o);
        memFree(s->mem, o);
    }
}

/* ---- What freeing a value costs. ---- */

/* A stream's allocations as 7.0 counts them: one per node of its tree,
 * and per group one plus the first group's PEL size. */
static size_t _streamFreeEffort(stream *st) {
    size_t effort = (size_t)raxNodesAsRedis(st->rax);
    if (st->cgroups && raxSize(st->cgroups)) {
        raxIterator ri;
        raxStart(&ri, st->cgroups);
        raxSeek(&ri, "^", NULL, 0);
        raxNext(&ri);
        streamCG *cg = ri.data;
        effort += (size_t)raxSize(st->cgroups) * (1 + raxSize(cg->pel));
        raxStop(&ri);
    }
    return effort;
}

size_t freeObjectEffort(const robj *o) {
    if (o->type == OBJ_LIST && o->encoding == OBJ_ENCODING_QUICKLIST)
        return (size_t)((const quicklist *)o->v.ptr)->len;
    if ((o->type == OBJ_SET || o->type == OBJ_HASH) &&
        o->encoding == OBJ_ENCODING_HT) return dictSize((dict *)o->v.ptr);
    if (o->type == OBJ_ZSET && o->encoding == OBJ_ENCODING_SKIPLIST)
        return ((zset *)o->v.ptr)->zsl->length;
    if (o->type == OBJ_STREAM) return _streamFreeEffort(o->v.ptr);
    return 1;
}

/* What freeing o and its value costs the thread that frees it (cost.h),
 * from its shape: a small value is a block or two freed next to each
 * other; a hashtable's entries and their strings lie anywhere in memory,
 * each free a random access; a skiplist's nodes are freed in the order
 * they were most likely allocated. The same figure is charged to the main
 * thread (DEL) or to the lazy-free thread (UNLINK). */
uint64_t freeObjectCost(redisServer *s, const robj *o) {
    /* a block anywhere: it is read, and so is the allocator's record of
     * its page (costFreeFarNs) */
    uint64_t far = costFreeFarNs(costWorkingSet(s->mem));
    uint64_t near = COST_FREE_NEAR_NS;
    switch (o->encoding) {
    case OBJ_ENCODING_RAW:      /* its sds, beside the object */
        return near;
    case OBJ_ENCODING_EMBSTR:   /* one block, counted with the command's */
    case OBJ_ENCODING_INT:      /* fixed costs or the entry that held it */
        return 0;
    case OBJ_ENCODING_QUICKLIST: {
        /* each node read and freed, then its listpack, in the order they
         * were allocated, as the list grew: next to the ones before. A
         * listpack of 8 KB empties its slab */
        uint64_t ns = 2 * near;
        const quicklist *ql = o->v.ptr;
        for (const quicklistNode *n = ql->head; n; n = n->next)
            ns += 2 * near + costFreeSlabNs(memBlockSize(n->entry));
        return ns;
    }
    case OBJ_ENCODING_HT: {
        uint64_t n = dictSize((const dict *)o->v.ptr);
        /* entries and members; a hash's values too */
        return 3 * near + n * far * (o->type == OBJ_HASH ? 3 : 2);
    }
    case OBJ_ENCODING_SKIPLIST: {
        uint64_t n = ((const zset *)o->v.ptr)->zsl->length;
        /* the dict's entries, then each node and its member in order.
         * The dict frees its entries alone (the members are the nodes'),
         * so its reads land among n entries packed in their slabs, a
         * fifth of the value's memory, not anywhere in the working set:
         * redis-server frees a zset of 100k members at 85 to 89 ns a
         * member, hardly more than one of 10k (75 to 80) */
        uint64_t entry = costFreeFarNs((size_t)n * MEM64_DICT_ENTRY);
        return 4 * near + n * (entry + 2 * near + COST_SEQ_NS);
    }
    case OBJ_ENCODING_STREAM:
        return 2 * near + freeObjectEffort(o) * far;
    default:                    /* a listpack, an intset, a module's */
        return 2 * near;
    }
}


/* Length in bytes of a string object's value; for an INT encoding, the
 * length of its decimal text (what STRLEN replies). */
size_t stringObjectLen(const robj *o) {
    if (sdsEncodedObject(o)) return sdslen(o->v.ptr);
    char buf[LONG_STR_SIZE];
    return (size_t)ll2string(buf, sizeof(buf), o->v.ll);
}

/* The name OBJECT ENCODING shows for an encoding, "unknown" for any other
 * value. A static string. */
const char *strEncoding(int encoding) {
    switch (encoding) {
    case OBJ_ENCODING_RAW: return "raw";
    case OBJ_ENCODING_INT: return "int";
    case OBJ_ENCODING_HT: return "hashtable";
    case OBJ_ENCODING_INTSET: return "intset";
    case OBJ_ENCODING_SKIPLIST: return "skiplist";
    case OBJ_ENCODING_EMBSTR: return "embstr";
    case OBJ_ENCODING_LISTPACK: return "listpack";
    case OBJ_ENCODING_QUICKLIST: return "quicklist";
    case OBJ_ENCODING_STREAM: return "stream";
    default: return "unknown";
    }
}

/* The name TYPE replies for o's type, "unknown" for any other. A static
 * string. */
const char *typeName(const robj *o) {
    switch (o->type) {
    case OBJ_STRING: return "string";
    case OBJ_LIST: return "list";
    case OBJ_SET: return "set";
    case OBJ_ZSET: return "zset";
    case OBJ_HASH: return "hash";
    case OBJ_STREAM: return "stream";
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

/* 1 if two string objects hold the same bytes, whatever their encodings
 * (INT 12 equals RAW "12"), else 0. */
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

/* As getLongLongFromObject; on failure I reply msg, or Redis's "value is not
 * an integer or out of range" when msg is NULL, and return C_ERR with
 * *target untouched. */
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
        else addReplyErrorFormat(c, "value is out of range, value must "
                                 "between %lld and %lld", min, max);
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

/* Same as getLongLongFromObjectOrReply: "long" is 64 bits here (see
 * getRangeLongFromObjectOrReply). */
int getLongFromObjectOrReply(client *c, robj *o, long long *target,
                             const char *msg) {
    return getLongLongFromObjectOrReply(c, o, target, msg);
}

/* An integer >= 0. On any failure, not an integer or negative alike, I
 * reply msg, or "value is out of range, must be positive" when msg is NULL
 * (as Redis does), and return C_ERR. */
int getPositiveLongFromObjectOrReply(client *c, robj *o, long long *target,
                                     const char *msg) {
    if (msg) return getRangeLongFromObjectOrReply(c, o, 0, LLONG_MAX, target,
                                                  msg);
    return getRangeLongFromObjectOrReply(c, o, 0, LLONG_MAX, target,
                                         "value is out of range, must be "
                                         "positive");
}

/* C_OK and the value if o (NULL counts as 0) is a string that strtod reads
 * whole: no leading space, no trailing bytes, no NaN, no overflow. C_ERR for
 * anything else, including a non-string type. */
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

/* As getDoubleFromObject; on failure replies msg, or "value is not a valid
 * float" when msg is NULL, and returns C_ERR with *target untouched. */
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

/* OBJECT REFCOUNT <key>: a shared integer's is INT_MAX (see
 * createSharedIntegers). */
void objectRefcountCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (!o) { addReplyNull(c); return; }
    addReplyLongLong(c, o->refcount);
}

/* OBJECT IDLETIME <key>: seconds since the key was last accessed, an
 * error under an LFU policy, which keeps no such time. */
void objectIdletimeCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (!o) { addReplyNull(c); return; }
    if (c->srv->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        addReplyError(c, "An LFU maxmemory policy is selected, idle time not "
                      "tracked. Please note that when switching between "
                      "policies at runtime LRU and LFU data will take some "
                      "time to adjust.");
        return;
    }
    addReplyLongLong(c, (long long)(estimateObjectIdleTime(c->srv, o) / 1000));
}

/* OBJECT FREQ <key>: the key's LFU counter, decayed to now; an error
 * unless an LFU policy is set. */
void objectFreqCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY);
    if (!o) { addReplyNull(c); return; }
    if (!(c->srv->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU)) {
        addReplyError(c, "An LFU maxmemory policy is not selected, access "
                      "frequency not tracked. Please note that when "
                      "switching between policies at runtime LRU and LFU "
                      "data will take some time to adjust.");
        return;
    }
    addReplyLongLong(c, (long long)LFUDecrAndReturn(c->srv, o));
}

/* OBJECT HELP: replies the subcommand list as an array of status lines. */
void objectHelpCommand(client *c) {
    static const char *help[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to "
        "store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned "
        "integer is",
        "    proportional to the logarithm of the recent access frequency of "
        "the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated "
        "number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with "
        "the specified",
        "    <key>.",
        NULL };
    addReplyHelp(c, help);
}
