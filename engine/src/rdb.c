/* rdb.c -- see rdb.h. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <math.h>
#include "rdb.h"
#include "script.h"
#include "intset.h"
#include "listpack.h"
#include "quicklist.h"
#include "lzf.h"
#include "stream.h"

#define RDB_TYPE_STRING 0
#define RDB_TYPE_LIST 1
#define RDB_TYPE_SET 2
#define RDB_TYPE_ZSET 3
#define RDB_TYPE_HASH 4
#define RDB_TYPE_ZSET_2 5
#define RDB_TYPE_LIST_ZIPLIST 10
#define RDB_TYPE_SET_INTSET 11
#define RDB_TYPE_ZSET_ZIPLIST 12
#define RDB_TYPE_HASH_ZIPLIST 13
#define RDB_TYPE_LIST_QUICKLIST 14
#define RDB_TYPE_HASH_LISTPACK 16
#define RDB_TYPE_ZSET_LISTPACK 17
#define RDB_TYPE_LIST_QUICKLIST_2 18
#define RDB_TYPE_STREAM_LISTPACKS 15
#define RDB_TYPE_STREAM_LISTPACKS_2 19

#define RDB_OPCODE_FUNCTION2 245
#define RDB_OPCODE_MODULE_AUX 247
#define RDB_OPCODE_IDLE 248
#define RDB_OPCODE_FREQ 249
#define RDB_OPCODE_AUX 250
#define RDB_OPCODE_RESIZEDB 251
#define RDB_OPCODE_EXPIRETIME_MS 252
#define RDB_OPCODE_EXPIRETIME 253
#define RDB_OPCODE_SELECTDB 254
#define RDB_OPCODE_EOF 255

#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* ---- CRC-64. ----
 *
 * Redis seals RDB files with the CRC-64 of Jones et al.: the reflected
 * polynomial 0xad93d23594c935a9, initial value 0, no final xor (so
 * "123456789" gives 0xe9c6d914c4b8d9ca). I build the 256-entry table on
 * the stack at each call rather than keep a global one: 2048 shifts are
 * nothing next to hashing a whole file once. */
uint64_t crc64(uint64_t crc, const unsigned char *s, uint64_t l) {
    const uint64_t poly = 0x95ac9329ac4bc9b5ULL;  /* reflected 0xad93... */
    uint64_t table[256];
    for (int i = 0; i < 256; i++) {
        uint64_t c = (uint64_t)i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
        table[i] = c;
    }
    for (uint64_t i = 0; i < l; i++)
        crc = table[(crc ^ s[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

/* ---- Walking a collection. ---- */

typedef void elemFn(void *ctx, const char *a, size_t alen, const char *b,
                    size_t blen, double score);

/* The members of an intset, as decimal text. */
static void _eachIntset(const robj *o, elemFn *fn, void *ctx) {
    int64_t v;
    char buf[LONG_STR_SIZE];
    for (uint32_t i = 0; intsetGet(o->v.ptr, i, &v); i++) {
        int len = ll2string(buf, sizeof(buf), v);
        fn(ctx, buf, (size_t)len, NULL, 0, 0);
    }
}

/* The entries of a set, hash or skiplist zset dict. */
static void _eachDict(const robj *o, dict *d, elemFn *fn, void *ctx) {
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds k = dictGetKey(de);
        if (o->type == OBJ_SET) {
            fn(ctx, k, sdslen(k), NULL, 0, 0);
        } else if (o->type == OBJ_HASH) {
            sds v = dictGetVal(de);
            fn(ctx, k, sdslen(k), v, sdslen(v), 0);
        } else {
            fn(ctx, k, sdslen(k), NULL, 0, *(double *)dictGetVal(de));
        }
    }
    dictReleaseIterator(di);
}

/* A listpack of pairs: field/value for hashes, member/score for zsets. */
static void _eachListpack(const robj *o, unsigned char *lp, elemFn *fn,
                          void *ctx) {
    unsigned char b1[LP_INTBUF_SIZE], b2[LP_INTBUF_SIZE];
    unsigned char *p = lpFirst(lp);
    while (p) {
        unsigned char *q = lpNext(lp, p);
        int64_t l1, l2;
        unsigned char *s1 = lpGet(p, &l1, b1), *s2 = lpGet(q, &l2, b2);
        if (o->type == OBJ_HASH) {
            fn(ctx, (char *)s1, (size_t)l1, (char *)s2, (size_t)l2, 0);
        } else {
            char num[MAX_D2STRING_CHARS];
            size_t n = (size_t)l2 < sizeof(num) - 1 ? (size_t)l2
                                                    : sizeof(num) - 1;
            memcpy(num, s2, n);
            num[n] = '\0';
            fn(ctx, (char *)s1, (size_t)l1, NULL, 0, strtod(num, NULL));
        }
        p = lpNext(lp, q);
    }
}

/* Hands each element of a list to an elemFn, integers as their text. */
typedef struct listWalk {
    elemFn *fn;
    void *ctx;
} listWalk;

static void _eachListElement(void *ctx, const unsigned char *p, size_t len,
                             long long v) {
    listWalk *lw = ctx;
    char buf[LONG_STR_SIZE];
    if (!p) {
        len = (size_t)ll2string(buf, sizeof(buf), v);
        p = (const unsigned char *)buf;
    }
    lw->fn(lw->ctx, (const char *)p, len, NULL, 0, 0);
}

/* A stream's entries, first to last: (ID, its fields and values each
 * preceded by its length in decimal and a colon). */
static void _eachStream(const robj *o, elemFn *fn, void *ctx, gkMem *m) {
    streamIterator si;
    streamID id;
    int64_t numfields;
    streamIteratorStart(&si, o->v.ptr, NULL, NULL, 0);
    while (streamIteratorGetID(&si, &id, &numfields)) {
        char idbuf[STREAM_ID_STR_LEN];
        int idlen = streamIDToString(idbuf, &id);
        sds body = sdsempty(m);
        while (numfields--) {
            unsigned char *f, *v;
            int64_t flen, vlen;
            streamIteratorGetField(&si, &f, &v, &flen, &vlen);
            body = sdscatprintf(m, body, "%lld:", (long long)flen);
            body = sdscatlen(m, body, f, (size_t)flen);
            body = sdscatprintf(m, body, "%lld:", (long long)vlen);
            body = sdscatlen(m, body, v, (size_t)vlen);
        }
        fn(ctx, idbuf, (size_t)idlen, body, sdslen(body), 0);
        sdsfree(m, body);
    }
    streamIteratorStop(&si);
}

/* Calls fn for every element of a list, set, hash or sorted set: (element)
 * for a list, head to tail, (member) for a set, (field, value) for a
 * hash, (member, score) for a sorted set; a stream's entries as
 * _eachStream gives them. Nothing is changed, compressed list nodes
 * included. */
void rdbForEachElement(const robj *o, elemFn *fn, void *ctx) {
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        listWalk lw = { fn, ctx };
        quicklistForEach(o->v.ptr, _eachListElement, &lw);
    } else if (o->encoding == OBJ_ENCODING_INTSET) _eachIntset(o, fn, ctx);
    else if (o->encoding == OBJ_ENCODING_LISTPACK)
        _eachListpack(o, o->v.ptr, fn, ctx);
    else if (o->encoding == OBJ_ENCODING_HT) _eachDict(o, o->v.ptr, fn, ctx);
    else if (o->encoding == OBJ_ENCODING_SKIPLIST)
        _eachDict(o, ((zset *)o->v.ptr)->dict, fn, ctx);
    else if (o->encoding == OBJ_ENCODING_STREAM)
        _eachStream(o, fn, ctx, ((stream *)o->v.ptr)->rax->mem);
}

/* ---- Writing. ---- */

typedef struct rdbWriter {
    gkMem *mem;
    sds buf;
    gkMem scratch;              /* the compressor's table comes from here */
    uint32_t *htab;             /* LZF_HTAB_SLOTS, on the first long string */
} rdbWriter;

/* A writer building a new buffer in memory allocated from m. */
static void _wInit(rdbWriter *w, gkMem *m) {
    w->mem = m;
    w->buf = sdsempty(m);
    memInit(&w->scratch, m->fn, m->ud);
    w->htab = NULL;
}

/* Frees the writer's scratch (not its buffer, which is the caller's). */
static void _wDone(rdbWriter *w) {
    memFree(&w->scratch, w->htab);
    w->htab = NULL;
}

/* Appends len bytes. */
static void _wBytes(rdbWriter *w, const void *p, size_t len) {
    w->buf = sdscatlen(w->mem, w->buf, p, len);
}

/* Appends one byte. */
static void _wByte(rdbWriter *w, int b) {
    unsigned char c = (unsigned char)b;
    _wBytes(w, &c, 1);
}

/* Appends v as n little-endian bytes. */
static void _wLE(rdbWriter *w, uint64_t v, int n) {
    unsigned char b[8];
    for (int i = 0; i < n; i++) b[i] = (unsigned char)(v >> (8 * i));
    _wBytes(w, b, (size_t)n);
}

/* A length: 6 bits, 14 bits, or 32/64 bits big-endian after a marker. */
static void _wLen(rdbWriter *w, uint64_t len) {
    unsigned char b[9];
    if (len < (1 << 6)) {
        _wByte(w, (int)len);
    } else if (len < (1 << 14)) {
        b[0] = (unsigned char)(0x40 | (len >> 8));
        b[1] = (unsigned char)(len & 0xff);
        _wBytes(w, b, 2);
    } else {
        int n = len <= UINT32_MAX ? 4 : 8;
        b[0] = n == 4 ? 0x80 : 0x81;
        for (int i = 0; i < n; i++)
            b[1 + i] = (unsigned char)(len >> (8 * (n - 1 - i)));
        _wBytes(w, b, (size_t)n + 1);
    }
}

/* rdbSaveLzfStringObject: a string of more than 20 bytes goes LZF-
 * compressed (0xC3, the compressed and the original length, the LZF
 * bytes) if that saves more than 4 bytes, as with Redis's default
 * rdbcompression yes. Returns 0 if it was not worth it (nothing written).
 * The compressor's 256 KB table is scratch, as Redis keeps it on its
 * stack: it is not counted in the dataset's memory, and it is allocated
 * once per writer. */
static int _wLzfString(rdbWriter *w, const char *p, size_t len) {
    if (!w->htab) {
        w->htab = memTryAlloc(&w->scratch, sizeof(*w->htab) * LZF_HTAB_SLOTS);
        if (!w->htab) return 0;
    }
    unsigned char *out = memTryAlloc(&w->scratch, len - 4);
    size_t clen = out ? lzfCompress(p, len, out, len - 4, w->htab) : 0;
    if (clen) {
        _wByte(w, 0xC0 | RDB_ENC_LZF);
        _wLen(w, clen);
        _wLen(w, len);
        _wBytes(w, out, clen);
    }
    memFree(&w->scratch, out);
    return clen != 0;
}

/* rdbSaveRawString: a string, stored as a 1, 2 or 4 byte integer when it
 * is the canonical text of one (rdbTryIntegerEncoding), LZF-compressed
 * when long and compressible, else as its length and bytes. */
static void _wString(rdbWriter *w, const char *p, size_t len) {
    long long v;
    char back[LONG_STR_SIZE];
    if (len > 0 && len <= 11 && string2ll(p, len, &v) &&
        (size_t)ll2string(back, sizeof(back), v) == len &&
        !memcmp(back, p, len) && v >= INT32_MIN && v <= INT32_MAX) {
        if (v >= INT8_MIN && v <= INT8_MAX) {
            _wByte(w, 0xC0 | RDB_ENC_INT8);
            _wLE(w, (uint64_t)v, 1);
        } else if (v >= INT16_MIN && v <= INT16_MAX) {
            _wByte(w, 0xC0 | RDB_ENC_INT16);
            _wLE(w, (uint64_t)v, 2);
        } else {
            _wByte(w, 0xC0 | RDB_ENC_INT32);
            _wLE(w, (uint64_t)v, 4);
        }
        return;
    }
    if (len > 20 && _wLzfString(w, p, len)) return;
    _wLen(w, len);
    _wBytes(w, p, len);
}

/* A string object holding an integer (int-encoded when it fits). */
static void _wLongLongString(rdbWriter *w, long long v) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), v);
    _wString(w, buf, (size_t)len);
}

/* An AUX field with a string value. */
static void _wAux(rdbWriter *w, const char *key, const char *val) {
    _wByte(w, RDB_OPCODE_AUX);
    _wString(w, key, strlen(key));
    _wString(w, val, strlen(val));
}

/* An AUX field with an integer value. */
static void _wAuxInt(rdbWriter *w, const char *key, long long val) {
    _wByte(w, RDB_OPCODE_AUX);
    _wString(w, key, strlen(key));
    _wLongLongString(w, val);
}

/* A set member, or a hash field and its value. */
static void _wElement(void *ctx, const char *a, size_t alen, const char *b,
                      size_t blen, double score) {
    rdbWriter *w = ctx;
    _wString(w, a, alen);
    if (b) _wString(w, b, blen);
}

/* A sorted set member and its binary double score. */
static void _wZsetElement(void *ctx, const char *a, size_t alen,
                          const char *b, size_t blen, double score) {
    rdbWriter *w = ctx;
    uint64_t bits;
    _wString(w, a, alen);
    memcpy(&bits, &score, sizeof(bits));
    _wLE(w, bits, 8);
}

/* Elements of a set, hash or sorted set. */
static unsigned long _size(const robj *o) {
    if (o->type == OBJ_SET) return setTypeSize(o);
    if (o->type == OBJ_HASH) return hashTypeLength(o);
    return zsetLength(o);
}

/* A list as RDB_TYPE_LIST_QUICKLIST_2, node by node as Redis 7.0 saves
 * it: the node count, then each node's container (1 plain, 2 packed) and
 * its bytes -- the listpack, or the plain element -- as a string; a
 * compressed node goes as it is, an LZF string (0xC3, compressed and
 * original lengths, the LZF bytes), without decompressing it. */
static void _wList(rdbWriter *w, const quicklist *ql) {
    _wLen(w, ql->len);
    for (const quicklistNode *node = ql->head; node; node = node->next) {
        _wLen(w, node->container);
        if (quicklistNodeIsCompressed(node)) {
            const quicklistLZF *lzf = (const quicklistLZF *)node->entry;
            _wByte(w, 0xC0 | RDB_ENC_LZF);
            _wLen(w, lzf->sz);
            _wLen(w, node->sz);
            _wBytes(w, lzf->compressed, lzf->sz);
        } else {
            _wString(w, (const char *)node->entry, node->sz);
        }
    }
}

/* A skiplist sorted set, from the highest score down as Redis writes it
 * (a loader inserting each at the head then never walks the list). */
static void _wSkiplist(rdbWriter *w, const zset *zs) {
    for (const zskiplistNode *x = zs->zsl->tail; x; x = x->backward)
        _wZsetElement(w, x->ele, sdslen(x->ele), NULL, 0, x->score);
}

/* A PEL: its size, then each ID as 16 raw bytes, and for the group's
 * (nacks) the delivery time (8 bytes) and count. */
static void _wStreamPEL(rdbWriter *w, rax *pel, int nacks) {
    raxIterator ri;
    _wLen(w, raxSize(pel));
    raxStart(&ri, pel);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        _wBytes(w, ri.key, 16);
        if (!nacks) continue;
        streamNACK *nack = ri.data;
        _wLE(w, (uint64_t)nack->delivery_time, 8);
        _wLen(w, nack->delivery_count);
    }
    raxStop(&ri);
}

/* A stream as 7.0 saves it (type 19): its nodes (key, listpack), its
 * length and IDs and counters, then each group: name, last ID, entries
 * read, PEL, and its consumers (name, seen time, PEL of IDs only). */
static void _wStream(rdbWriter *w, stream *st) {
    raxIterator ri;
    _wLen(w, raxSize(st->rax));
    raxStart(&ri, st->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        _wString(w, (char *)ri.key, ri.key_len);
        _wString(w, ri.data, lpBytes(ri.data));
    }
    raxStop(&ri);
    _wLen(w, st->length);
    _wLen(w, st->last_id.ms);
    _wLen(w, st->last_id.seq);
    _wLen(w, st->first_id.ms);
    _wLen(w, st->first_id.seq);
    _wLen(w, st->max_deleted_entry_id.ms);
    _wLen(w, st->max_deleted_entry_id.seq);
    _wLen(w, st->entries_added);
    _wLen(w, st->cgroups ? raxSize(st->cgroups) : 0);
    if (!st->cgroups) return;
    raxStart(&ri, st->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        _wString(w, (char *)ri.key, ri.key_len);
        _wLen(w, cg->last_id.ms);
        _wLen(w, cg->last_id.seq);
        _wLen(w, (uint64_t)cg->entries_read);
        _wStreamPEL(w, cg->pel, 1);
        raxIterator ci;
        _wLen(w, raxSize(cg->consumers));
        raxStart(&ci, cg->consumers);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            streamConsumer *sc = ci.data;
            _wString(w, (char *)ci.key, ci.key_len);
            _wLE(w, (uint64_t)sc->seen_time, 8);
            _wStreamPEL(w, sc->pel, 0);
        }
        raxStop(&ci);
    }
    raxStop(&ri);
}

/* A value: its type byte is written by the caller. Intsets and listpacks
 * go whole, as one string (types 11, 16 and 17), as Redis 7.0 saves
 * them; hashtables and skiplists element by element. */
static void _wValue(rdbWriter *w, const robj *o) {
    if (o->type == OBJ_STRING) {
        if (o->encoding == OBJ_ENCODING_INT) _wLongLongString(w, o->v.ll);
        else _wString(w, o->v.ptr, sdslen(o->v.ptr));
        return;
    }
    if (o->type == OBJ_LIST) {
        _wList(w, o->v.ptr);
        return;
    }
    if (o->type == OBJ_STREAM) {
        _wStream(w, o->v.ptr);
        return;
    }
    if (o->encoding == OBJ_ENCODING_INTSET) {
        _wString(w, o->v.ptr, intsetBlobLen(o->v.ptr));
        return;
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        _wString(w, o->v.ptr, lpBytes(o->v.ptr));
        return;
    }
    _wLen(w, _size(o));
    if (o->encoding == OBJ_ENCODING_SKIPLIST) _wSkiplist(w, o->v.ptr);
    else rdbForEachElement(o, _wElement, w);
}

/* rdbSavedObjectLen: the bytes o's value takes in an RDB file (without
 * its type byte and key), as DEBUG OBJECT's serializedlength reports it.
 * Built with scratch memory from m and freed again. */
size_t rdbSavedValueLen(gkMem *m, const robj *o) {
    rdbWriter w;
    _wInit(&w, m);
    _wValue(&w, o);
    _wDone(&w);
    size_t len = sdslen(w.buf);
    sdsfree(m, w.buf);
    return len;
}

/* rdbSaveObjectType: the RDB type byte a value is written with. */
static int _rdbType(const robj *o) {
    int compact = o->encoding == OBJ_ENCODING_INTSET ||
                  o->encoding == OBJ_ENCODING_LISTPACK;
    switch (o->type) {
    case OBJ_STRING: return RDB_TYPE_STRING;
    case OBJ_LIST: return RDB_TYPE_LIST_QUICKLIST_2;
    case OBJ_SET: return compact ? RDB_TYPE_SET_INTSET : RDB_TYPE_SET;
    case OBJ_HASH: return compact ? RDB_TYPE_HASH_LISTPACK : RDB_TYPE_HASH;
    case OBJ_STREAM: return RDB_TYPE_STREAM_LISTPACKS_2;
    default: return compact ? RDB_TYPE_ZSET_LISTPACK : RDB_TYPE_ZSET_2;
    }
}

/* A key's access data, as 7.0 saves it under an LRU policy (its idle
 * seconds) or an LFU one (its decayed counter); nothing otherwise. */
static void _wAccess(redisServer *s, rdbWriter *w, robj *o) {
    if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LRU) {
        _wByte(w, RDB_OPCODE_IDLE);
        _wLen(w, estimateObjectIdleTime(s, o) / 1000);
    } else if (s->cfg.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        _wByte(w, RDB_OPCODE_FREQ);
        _wByte(w, (int)LFUDecrAndReturn(s, o));
    }
}

/* createDumpPayload: DUMP's serialization of o, in memory allocated from
 * m: its type byte and value as an RDB file holds them, then the RDB
 * version (2 bytes) and the CRC-64 of everything before (8 bytes), both
 * little-endian. */
sds rdbDumpPayload(gkMem *m, const robj *o) {
    rdbWriter w;
    _wInit(&w, m);
    _wByte(&w, _rdbType(o));
    _wValue(&w, o);
    _wDone(&w);
    _wLE(&w, RDB_VERSION, 2);
    _wLE(&w, crc64(0, (unsigned char *)w.buf, sdslen(w.buf)), 8);
    return w.buf;
}

/* A function library: its code, which loading runs again. */
static void _wLibrary(void *ctx, functionLib *lib) {
    rdbWriter *w = ctx;
    _wByte(w, RDB_OPCODE_FUNCTION2);
    _wString(w, lib->code, sdslen(lib->code));
}

/* FUNCTION DUMP's payload: every library, then the footer of a DUMP. */
sds rdbFunctionsPayload(redisServer *s) {
    rdbWriter w;
    _wInit(&w, s->mem);
    functionsForEachLibrary(s, _wLibrary, &w);
    _wDone(&w);
    _wLE(&w, RDB_VERSION, 2);
    _wLE(&w, crc64(0, (unsigned char *)w.buf, sdslen(w.buf)), 8);
    return w.buf;
}

/* One database: SELECTDB, RESIZEDB, then its keys. */
static void _wDb(redisServer *s, rdbWriter *w, redisDb *db,
                 long long *keys) {
    _wByte(w, RDB_OPCODE_SELECTDB);
    _wLen(w, (uint64_t)db->id);
    _wByte(w, RDB_OPCODE_RESIZEDB);
    _wLen(w, dictSize(db->dict));
    _wLen(w, dictSize(db->expires));
    dictIterator *di = dictGetIterator(db->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds k = dictGetKey(de);
        robj *o = dictGetVal(de);
        robj key = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, k);
        long long when = getExpire(db, &key);
        if (when != -1) {
            _wByte(w, RDB_OPCODE_EXPIRETIME_MS);
            _wLE(w, (uint64_t)when, 8);
        }
        _wAccess(s, w, o);
        _wByte(w, _rdbType(o));
        _wString(w, k, sdslen(k));
        _wValue(w, o);
        (*keys)++;
    }
    dictReleaseIterator(di);
}

/* rdbPopulateSaveInfo: the db the replication stream is in, if the
 * server has a history a replica could continue (a master with a
 * backlog, a replica with its master or the state it cached); -1 if not,
 * and the file says nothing of replication. */
static int _replStreamDb(redisServer *s) {
    if (!s->masterhost && s->repl_backlog_active)
        return s->repl_seldb == -1 ? 0 : s->repl_seldb;
    if (s->master) return s->master->db->id;
    if (s->masterhost && s->cached_offset >= 0)
        return s->cached_dbid < 0 ? 0 : s->cached_dbid;
    return -1;
}

/* rdbSaveRio: the whole dataset as an RDB file, built in memory allocated
 * from mem, with the aof-base field saying whether it is an AOF base,
 * and, but in an AOF base, where the replication stream stood.
 * *keys gets the number of keys written. */
static sds _snapshot(redisServer *s, gkMem *mem, int aof_base,
                     long long *keys) {
    char magic[16];
    rdbWriter w;
    _wInit(&w, mem);
    snprintf(magic, sizeof(magic), "REDIS%04d", RDB_VERSION);
    _wBytes(&w, magic, 9);
    _wAux(&w, "redis-ver", "7.0.15");
    _wAuxInt(&w, "redis-bits", 64);
    _wAuxInt(&w, "ctime", s->mstime / 1000);
    _wAuxInt(&w, "used-mem", (long long)s->mem->used);
    int db = aof_base ? -1 : _replStreamDb(s);
    if (db >= 0) {
        _wAuxInt(&w, "repl-stream-db", db);
        _wAux(&w, "repl-id", replicationId(s));
        _wAuxInt(&w, "repl-offset", s->master_repl_offset);
    }
    _wAuxInt(&w, "aof-base", aof_base);
    functionsForEachLibrary(s, _wLibrary, &w);
    *keys = 0;
    for (int j = 0; j < s->cfg.databases; j++)
        if (dictSize(s->db[j].dict)) _wDb(s, &w, &s->db[j], keys);
    _wByte(&w, RDB_OPCODE_EOF);
    _wDone(&w);
    _wLE(&w, crc64(0, (unsigned char *)w.buf, sdslen(w.buf)), 8);
    return w.buf;
}

/* The dataset as an AOF base's RDB, built in memory allocated from mem
 * (the child's, not the server's). *keys gets the number of keys. */
sds rdbSaveSnapshot(redisServer *s, gkMem *mem, long long *keys) {
    return _snapshot(s, mem, 1, keys);
}

/* rdbSave, for DEBUG RELOAD: writes the dataset to a temp file
 * (temp-<pid>.rdb), fsyncs it and renames it to filename in the server's
 * directory, logging as Redis does. C_ERR, the temp file removed and the
 * reason logged, if a system call fails. */
int rdbSaveFile(redisServer *s, const char *filename) {
    char tmp[64];
    long long keys;
    snprintf(tmp, sizeof(tmp), "temp-%d.rdb", s->pid);
    if (!s->fs.open) {
        serverLog(s, LL_WARNING, "Failed opening the temp RDB file %s (in "
                  "server root dir %s) for saving: %s", tmp, fsRoot(&s->fs),
                  "No such file or directory");
        return C_ERR;
    }
    int fd = s->fs.open(s->fs.ctx, tmp, FS_O_WRONLY | FS_O_TRUNC |
                                        FS_O_CREAT), r = 0;
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Failed opening the temp RDB file %s (in "
                  "server root dir %s) for saving: %s", tmp, fsRoot(&s->fs),
                  aofStrerror(-fd));
        return C_ERR;
    }
    sds data = _snapshot(s, s->mem, 0, &keys);
    long n = s->fs.write(s->fs.ctx, fd, data, sdslen(data));
    if (n != (long)sdslen(data)) r = n < 0 ? (int)n : -FS_ENOSPC;
    if (r == 0) r = s->fs.fsync(s->fs.ctx, fd);
    s->fs.close(s->fs.ctx, fd);
    sdsfree(s->mem, data);
    if (r == 0) r = s->fs.rename(s->fs.ctx, tmp, filename);
    if (r == 0 && s->fs.fsyncDir) r = s->fs.fsyncDir(s->fs.ctx, "");
    if (r < 0) {
        serverLog(s, LL_WARNING, "Write error saving DB on disk(%s): %s",
                  "rdbSave", aofStrerror(-r));
        s->fs.unlink(s->fs.ctx, tmp);
        return C_ERR;
    }
    serverLog(s, LL_NOTICE, "DB saved on disk");
    return C_OK;
}

/* rdbSave: the dataset to dbfilename. A good save is the last save
 * (LASTSAVE) and the changes since it start from zero. */
int rdbSaveDataset(redisServer *s) {
    if (rdbSaveFile(s, s->cfg.dbfilename) != C_OK) return C_ERR;
    s->dirty = 0;
    s->lastsave = s->mstime / 1000;
    s->lastbgsave_status = C_OK;
    return C_OK;
}

/* SAVE: the snapshot now, in the main thread; not while a BGSAVE child
 * is writing the same file. */
void saveCommand(client *c) {
    if (c->srv->child.type == CHILD_TYPE_RDB) {
        addReplyError(c, "Background save already in progress");
        return;
    }
    c->srv->stat_rdb_saves++;
    if (rdbSaveDataset(c->srv) == C_OK) addReplyOK(c);
    else addReplyError(c, "-ERR");
}

/* ---- BGSAVE: the snapshot in a forked child (child.c). ----
 *
 * The child's view of the dataset is the one at fork time, so the file
 * holds exactly the keys as they were then. Writes that come while it
 * works are not in the file: when the child succeeds, the parent keeps
 * counting them as unsaved (dirty - dirty_before_bgsave), and they are
 * what the next save point measures. */

/* The child's snapshot: a plain RDB (aof-base 0) in its own memory. */
static sds _bgsaveSnapshot(redisServer *s, gkMem *mem, long long *keys) {
    return _snapshot(s, mem, 0, keys);
}

/* rdbSaveBackground: forks a child that writes temp-<childpid>.rdb and
 * renames it to dbfilename. C_ERR if a child already runs, or if the
 * fork failed (logged; rdb_last_bgsave_status:err). */
int rdbSaveBackground(redisServer *s) {
    if (hasActiveChildProcess(s)) return C_ERR;
    s->stat_rdb_saves++;
    s->dirty_before_bgsave = s->dirty;
    s->lastbgsave_try = s->mstime / 1000;
    int pid = redisFork(s, CHILD_TYPE_RDB, _bgsaveSnapshot);
    if (pid < 0) {
        s->lastbgsave_status = C_ERR;
        serverLog(s, LL_WARNING, "Can't save in background: fork: %s",
                  aofStrerror(-pid));
        return C_ERR;
    }
    snprintf(s->child.tmp, sizeof(s->child.tmp), "temp-%d.rdb", pid);
    snprintf(s->child.dst, sizeof(s->child.dst), "%s", s->cfg.dbfilename);
    serverLog(s, LL_NOTICE, "Background saving started by pid %ld",
              (long)pid);
    s->rdb_save_time_start = s->mstime / 1000;
    return C_OK;
}

/* rdbSaveToSlavesSockets: forks a child that makes the RDB for the
 * replicas waiting for a diskless sync; the parent sends it to their
 * sockets framed as "$EOF:<mark>\r\n" ... "<mark>" (replication.c).
 * C_ERR if the fork failed: unlike a disk BGSAVE's, that leaves
 * rdb_last_bgsave_status as it was, as in 7.0 (the caller drops the
 * replicas). */
int rdbSaveToReplicasSockets(redisServer *s, const char *eofmark) {
    if (hasActiveChildProcess(s)) return C_ERR;
    int pid = redisFork(s, CHILD_TYPE_RDB, _bgsaveSnapshot);
    if (pid < 0) {
        serverLog(s, LL_WARNING, "Can't save in background: fork: %s",
                  aofStrerror(-pid));
        return C_ERR;
    }
    s->child.socket = 1;
    memcpy(s->child.eofmark, eofmark, 41);
    serverLog(s, LL_NOTICE, "Background RDB transfer started by pid %ld",
              (long)pid);
    s->rdb_save_time_start = s->mstime / 1000;
    return C_OK;
}

/* rdbRemoveTempFile: the temp file of the child pid, unlinked with its
 * blocks freed by a bio thread. */
void rdbRemoveTempFile(redisServer *s, int pid) {
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "temp-%d.rdb", pid);
    aofBackgroundUnlink(s, tmp);
}

/* killRDBChild: SIGUSR1, which does not count as a failed save; the
 * parent cleans up when it reaps the child (checkChildrenDone). */
void killRDBChild(redisServer *s) {
    if (s->child.type == CHILD_TYPE_RDB) childKill(s, GK_SIGUSR1);
}

/* backgroundSaveDoneHandler: the BGSAVE child exited with exitcode or
 * was killed by bysignal. On success the file holds the dataset as it
 * was at the fork: only the changes since then stay dirty. */
void backgroundSaveDoneHandler(redisServer *s, int exitcode, int bysignal) {
    if (s->child.socket) {
        /* backgroundSaveDoneHandlerSocket: no file, no save. The
         * parent read the child's pipe to its end first. */
        if (!bysignal && exitcode == 0) {
            int up = 0;
            for (int i = 0; i < s->nreplicas; i++)
                up += s->replicas[i]->replstate ==
                      SLAVE_STATE_WAIT_BGSAVE_END;
            serverLog(s, LL_WARNING, "Diskless rdb transfer, done reading "
                      "from pipe, %d replicas still up.", up);
        }
        if (!bysignal && exitcode == 0)
            serverLog(s, LL_NOTICE, "Background RDB transfer terminated "
                      "with success");
        else if (!bysignal)
            serverLog(s, LL_WARNING, "Background transfer error");
        else
            serverLog(s, LL_WARNING, "Background transfer terminated by "
                      "signal %d", bysignal);
        s->rdb_save_time_last = s->mstime / 1000 - s->rdb_save_time_start;
        s->rdb_save_time_start = -1;
        updateSlavesWaitingBgsave(s, !bysignal && exitcode == 0, 1);
        return;
    }
    if (!bysignal && exitcode == 0) {
        serverLog(s, LL_NOTICE, "Background saving terminated with "
                  "success");
        s->dirty -= s->dirty_before_bgsave;
        s->lastsave = s->mstime / 1000;
        s->lastbgsave_status = C_OK;
    } else if (!bysignal) {
        serverLog(s, LL_WARNING, "Background saving error");
        s->lastbgsave_status = C_ERR;
    } else {
        serverLog(s, LL_WARNING, "Background saving terminated by signal "
                  "%d", bysignal);
        uint64_t cpu0 = s->denv.cpu_ns;
        rdbRemoveTempFile(s, s->child.pid);
        latencyAddSampleIfNeeded(s, "rdb-unlink-temp-file",
                                 latencyMsSince(s, cpu0));
        if (bysignal != GK_SIGUSR1) s->lastbgsave_status = C_ERR;
    }
    s->rdb_save_time_last = s->mstime / 1000 - s->rdb_save_time_start;
    s->rdb_save_time_start = -1;
    updateSlavesWaitingBgsave(s, !bysignal && exitcode == 0, 0);
}

/* A failed BGSAVE is retried only after this many seconds. */
#define CONFIG_BGSAVE_RETRY_DELAY 5

static int _mayRetry(redisServer *s) {
    return s->mstime / 1000 - s->lastbgsave_try > CONFIG_BGSAVE_RETRY_DELAY
           || s->lastbgsave_status == C_OK;
}

/* The save points ("save <seconds> <changes>"), in serverCron when no
 * child runs: a BGSAVE once some point has both enough changes and
 * enough seconds since the last good save. */
void rdbSavePointsCron(redisServer *s) {
    long long now = s->mstime / 1000;
    for (int j = 0; j < s->cfg.save_n; j++) {
        if (s->dirty >= s->cfg.save_changes[j] &&
            now - s->lastsave > s->cfg.save_seconds[j] && _mayRetry(s)) {
            serverLog(s, LL_NOTICE, "%d changes in %d seconds. Saving...",
                      s->cfg.save_changes[j], (int)s->cfg.save_seconds[j]);
            rdbSaveBackground(s);
            break;
        }
    }
}

/* In serverCron: a BGSAVE scheduled while another child ran (BGSAVE
 * SCHEDULE, or BGSAVE in a transaction) starts once none runs. */
void rdbStartScheduledSave(redisServer *s) {
    if (!hasActiveChildProcess(s) && s->rdb_bgsave_scheduled &&
        _mayRetry(s) && rdbSaveBackground(s) == C_OK)
        s->rdb_bgsave_scheduled = 0;
}

/* BGSAVE [SCHEDULE] */
void bgsaveCommand(client *c) {
    redisServer *s = c->srv;
    int schedule = 0;
    if (c->argc > 1) {
        if (c->argc == 2 && !strcasecmp(c->argv[1]->v.ptr, "schedule")) {
            schedule = 1;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    if (s->child.type == CHILD_TYPE_RDB) {
        addReplyError(c, "Background save already in progress");
    } else if (hasActiveChildProcess(s) || s->in_exec) {
        if (schedule || s->in_exec) {
            s->rdb_bgsave_scheduled = 1;
            addReplyStatus(c, "Background saving scheduled");
        } else {
            addReplyError(c, "Another child process is active (AOF?): can't "
                          "BGSAVE right now. Use BGSAVE SCHEDULE in order to "
                          "schedule a BGSAVE whenever possible.");
        }
    } else if (rdbSaveBackground(s) == C_OK) {
        addReplyStatus(c, "Background saving started");
    } else {
        addReplyError(c, "-ERR");
    }
}

/* LASTSAVE: when the last good save ended, in unix seconds. */
void lastsaveCommand(client *c) { addReplyLongLong(c, c->srv->lastsave); }

/* ---- Reading. ---- */

typedef struct rdbReader {
    redisServer *s;
    const unsigned char *p;
    size_t len, pos;
    int version;
    rdbLoadInfo *info;
    long long lru_idle;         /* the next key's IDLE seconds, or -1 */
    long long lfu_freq;         /* the next key's FREQ counter, or -1 */
    unsigned int lru_clock;     /* the LRU clock when the load began */
} rdbReader;

/* Records why the load failed (the first reason wins); C_ERR. */
static int _fail(rdbReader *r, const char *why) {
    if (!r->info->err[0])
        snprintf(r->info->err, sizeof(r->info->err), "%s", why);
    return C_ERR;
}

/* How far the load had got as Redis reports it: loading_loaded_bytes,
 * which its progress callback advances only every 2 MB
 * (loading-process-events-interval-bytes), so a small file says 0. */
static unsigned long long _reportedOffset(const rdbReader *r) {
    const size_t step = 2 * 1024 * 1024;
    return (unsigned long long)(r->pos / step * step);
}

/* rdbReportError's line: where (this file's line) and why. kind is
 * RDB_ERR_SHORT or RDB_ERR_CORRUPT, which the caller logs differently,
 * as Redis does. C_ERR. */
static int _report(rdbReader *r, int kind, int line, const char *why) {
    if (r->info->err[0]) return C_ERR;
    r->info->err_kind = kind;
    snprintf(r->info->err, sizeof(r->info->err), "Internal error in RDB "
             "reading offset %llu, function at rdb.c:%d -> %s",
             _reportedOffset(r), line, why);
    return C_ERR;
}

/* The file ended inside something: Redis's eoferr. */
#define _short(r) _report((r), RDB_ERR_SHORT, __LINE__, \
                          "Unexpected EOF reading RDB file")
/* Data that cannot be what a Redis server wrote. */
#define _corrupt(r, why) _report((r), RDB_ERR_CORRUPT, __LINE__, (why))

/* Reads n bytes, or fails on a short file. */
static int _rBytes(rdbReader *r, void *out, size_t n) {
    if (r->len - r->pos < n) return _short(r);
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return C_OK;
}

/* Reads one byte. */
static int _rByte(rdbReader *r, int *b) {
    unsigned char c;
    if (_rBytes(r, &c, 1) != C_OK) return C_ERR;
    *b = c;
    return C_OK;
}

/* Reads an n-byte little-endian integer. */
static int _rLE(rdbReader *r, int n, uint64_t *v) {
    unsigned char b[8];
    if (_rBytes(r, b, (size_t)n) != C_OK) return C_ERR;
    *v = 0;
    for (int i = 0; i < n; i++) *v |= (uint64_t)b[i] << (8 * i);
    return C_OK;
}

/* A length; *enc is set (with the encoding in *len) for the special
 * string encodings 0xC0..0xC3. */
static int _rLen(rdbReader *r, uint64_t *len, int *enc) {
    int b, type;
    *enc = 0;
    if (_rByte(r, &b) != C_OK) return C_ERR;
    type = (b & 0xC0) >> 6;
    if (type == 3) { *enc = 1; *len = (uint64_t)(b & 0x3F); return C_OK; }
    if (type == 0) { *len = (uint64_t)(b & 0x3F); return C_OK; }
    if (type == 1) {
        int b2;
        if (_rByte(r, &b2) != C_OK) return C_ERR;
        *len = ((uint64_t)(b & 0x3F) << 8) | (uint64_t)b2;
        return C_OK;
    }
    int n = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
    unsigned char be[8];
    if (!n) {
        char why[64];
        snprintf(why, sizeof(why), "Unknown length encoding %d in "
                 "rdbLoadLen()", b >> 6);
        return _corrupt(r, why);
    }
    if (_rBytes(r, be, (size_t)n) != C_OK) return C_ERR;
    *len = 0;
    for (int i = 0; i < n; i++) *len = (*len << 8) | be[i];
    return C_OK;
}

/* An LZF-compressed string: compressed and original lengths, then
 * the compressed bytes. */
static int _rLzf(rdbReader *r, robj **out) {
    uint64_t clen, ulen;
    int enc;
    if (_rLen(r, &clen, &enc) != C_OK || _rLen(r, &ulen, &enc) != C_OK)
        return C_ERR;
    if (clen > r->len - r->pos) return _short(r);
    /* A back-reference emits at most 264 bytes for its 3 input bytes
     * (8 for 2), and a literal run less than it reads, so clen bytes never
     * decompress to more than 88 * clen: a larger ulen would fail anyway,
     * and I refuse it before allocating it. Redis also refuses an empty
     * result. */
    if (ulen == 0 || ulen / 88 > clen)
        return _corrupt(r, "Invalid LZF compressed string");
    sds s = sdsTryNewlen(r->s->mem, NULL, (size_t)ulen);
    if (!s) return _fail(r, "Out of memory loading a string");
    if (lzfDecompress(r->p + r->pos, (size_t)clen, (unsigned char *)s,
                      (size_t)ulen) != (size_t)ulen) {
        sdsfree(r->s->mem, s);
        return _corrupt(r, "Invalid LZF compressed string");
    }
    r->pos += (size_t)clen;
    *out = createObject(r->s, OBJ_STRING, s);
    return C_OK;
}

/* A string (in any of its encodings) as a new string object. */
static int _rString(rdbReader *r, robj **out) {
    uint64_t len, v;
    int enc;
    if (_rLen(r, &len, &enc) != C_OK) return C_ERR;
    if (enc) {
        if (len == RDB_ENC_LZF) return _rLzf(r, out);
        int n = len == RDB_ENC_INT8 ? 1 : len == RDB_ENC_INT16 ? 2 : 4;
        if (len > RDB_ENC_INT32) {
            char why[64];
            snprintf(why, sizeof(why), "Unknown RDB string encoding type "
                     "%llu", (unsigned long long)len);
            return _corrupt(r, why);
        }
        if (_rLE(r, n, &v) != C_OK) return C_ERR;
        long long ll = n == 1 ? (int8_t)v : n == 2 ? (int16_t)v : (int32_t)v;
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof(buf), ll);
        *out = createStringObject(r->s, buf, (size_t)len);   /* as argv */
        return C_OK;
    }
    if (len > r->len - r->pos) return _short(r);
    *out = createStringObject(r->s, (const char *)r->p + r->pos, (size_t)len);
    r->pos += (size_t)len;
    return C_OK;
}

/* A command being built: argv grows as elements are read. */
typedef struct rdbCmd {
    redisServer *s;
    robj **argv;
    int argc, cap;
} rdbCmd;

/* Appends o (taking the reference) to the command. */
static void _cmdPush(rdbCmd *c, robj *o) {
    if (c->argc == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->argv = memRealloc(c->s->mem, c->argv,
                             sizeof(robj *) * (size_t)c->cap);
    }
    c->argv[c->argc++] = o;
}

/* Appends a new string object. */
static void _cmdPushStr(rdbCmd *c, const char *p, size_t len) {
    _cmdPush(c, createStringObject(c->s, p, len));
}

/* Drops the command's arguments. */
static void _cmdFree(rdbCmd *c) {
    for (int i = 0; i < c->argc; i++) decrRefCount(c->s, c->argv[i]);
    memFree(c->s->mem, c->argv);
    c->argv = NULL;
    c->argc = c->cap = 0;
}

/* Appends a score as ZADD reads it back exactly (%.17g). */
static void _cmdPushScore(rdbCmd *c, double score) {
    char buf[MAX_D2STRING_CHARS];
    int len = snprintf(buf, sizeof(buf), "%.17g", score);
    _cmdPushStr(c, buf, (size_t)len);
}

/* Type 1 (list), 2 (set) and 4 (hash): count, then one or two strings
 * each. */
static int _rPlain(rdbReader *r, rdbCmd *c, int pairs) {
    uint64_t n;
    int enc;
    if (_rLen(r, &n, &enc) != C_OK) return C_ERR;
    for (uint64_t i = 0; i < n * (uint64_t)(pairs ? 2 : 1); i++) {
        robj *o;
        if (_rString(r, &o) != C_OK) return C_ERR;
        _cmdPush(c, o);
    }
    return C_OK;
}

/* A score: 8 bytes of binary double (type 5), or its text after a
 * length byte (type 3), where the lengths 253, 254 and 255 stand for
 * NaN, +inf and -inf. A NaN score is corruption, as in Redis: no sorted
 * set can hold one. */
static int _rScore(rdbReader *r, int binary, double *score) {
    uint64_t bits;
    int len;
    char buf[256];
    if (binary) {
        if (_rLE(r, 8, &bits) != C_OK) return C_ERR;
        memcpy(score, &bits, sizeof(*score));
    } else {
        if (_rByte(r, &len) != C_OK) return C_ERR;
        if (len >= 253) {
            *score = len == 253 ? NAN : len == 254 ? INFINITY : -INFINITY;
        } else {
            if (_rBytes(r, buf, (size_t)len) != C_OK) return C_ERR;
            buf[len] = '\0';
            *score = strtod(buf, NULL);
        }
    }
    if (isnan(*score)) return _corrupt(r, "Zset with NAN score detected");
    return C_OK;
}

/* Types 5 and 3 (zset): count, then member and score each. */
static int _rZset(rdbReader *r, rdbCmd *c, int binary) {
    uint64_t n;
    int enc;
    if (_rLen(r, &n, &enc) != C_OK) return C_ERR;
    for (uint64_t i = 0; i < n; i++) {
        robj *m;
        double score;
        if (_rString(r, &m) != C_OK) return C_ERR;
        if (_rScore(r, binary, &score) != C_OK) {
            decrRefCount(r->s, m);
            return C_ERR;
        }
        _cmdPushScore(c, score);
        _cmdPush(c, m);
    }
    return C_OK;
}

/* A set member or hash pair from a compact encoding. */
static void _pushElement(void *ctx, const char *a, size_t alen,
                         const char *b, size_t blen, double score) {
    rdbCmd *c = ctx;
    _cmdPushStr(c, a, alen);
    if (b) _cmdPushStr(c, b, blen);
}

/* A sorted set pair from a listpack: score, then member. */
static void _pushZsetElement(void *ctx, const char *a, size_t alen,
                             const char *b, size_t blen, double score) {
    rdbCmd *c = ctx;
    _cmdPushScore(c, score);
    _cmdPushStr(c, a, alen);
}

/* ---- Checking intsets and listpacks read from a file. ----
 *
 * Redis 7.0 with sanitize-dump-payload yes checks a loaded intset or
 * listpack in full before using it; I always do, since the base file is
 * as untrusted as a RESTORE payload here. Beyond the structure (intset.c
 * and listpack.c check that), a hash or sorted set listpack must hold
 * pairs, with no field or member twice, and a sorted set's scores must
 * be numbers. */

/* qsort's order on listpack entries (pointers to them): by their text. */
static int _cmpEntries(const void *a, const void *b) {
    unsigned char ba[LP_INTBUF_SIZE], bb[LP_INTBUF_SIZE];
    int64_t la, lb;
    unsigned char *sa = lpGet(*(unsigned char *const *)a, &la, ba);
    unsigned char *sb = lpGet(*(unsigned char *const *)b, &lb, bb);
    size_t n = (size_t)(la < lb ? la : lb);
    int c = n ? memcmp(sa, sb, n) : 0;
    return c ? c : (la > lb) - (la < lb);
}

/* Whether the pairs of lp (npairs of them) have distinct first elements:
 * sorted, any twins are neighbours. O(N log N) rather than the O(N^2) of
 * lpFind for each, since a listpack from a file may be long. */
static int _uniqueFields(gkMem *m, unsigned char *lp, unsigned long npairs) {
    if (npairs < 2) return 1;
    unsigned char **f = memTryAlloc(m, sizeof(*f) * npairs);
    if (!f) return 0;
    unsigned long i = 0;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p)))
        f[i++] = p;
    qsort(f, npairs, sizeof(*f), _cmpEntries);
    int ok = 1;
    for (i = 1; i < npairs && ok; i++)
        ok = _cmpEntries(&f[i - 1], &f[i]) != 0;
    memFree(m, f);
    return ok;
}

/* Whether the listpack entry at p reads as a score: an integer, or text
 * that strtod takes whole and that is not NaN. */
static int _isScore(unsigned char *p) {
    unsigned char ib[LP_INTBUF_SIZE];
    char num[MAX_D2STRING_CHARS], *end;
    int64_t len;
    unsigned char *s = lpGet(p, &len, ib);
    if (len <= 0 || (size_t)len >= sizeof(num)) return 0;
    memcpy(num, s, (size_t)len);
    num[len] = '\0';
    double d = strtod(num, &end);
    return end == num + len && !isnan(d);
}

/* C_OK if the len bytes at p are a valid value of the given compact type
 * (11 intset set, 16 listpack hash, 17 listpack zset), else C_ERR. */
static int _validateBlob(gkMem *m, int type, unsigned char *p, size_t len) {
    if (!p) return C_ERR;
    if (type == RDB_TYPE_SET_INTSET)
        return intsetValidateIntegrity(p, len, 1) ? C_OK : C_ERR;
    if (!lpValidateIntegrity(p, len, 1, NULL, NULL)) return C_ERR;
    unsigned long n = lpLength(p);
    if (n % 2) return C_ERR;
    if (type == RDB_TYPE_ZSET_LISTPACK)
        for (unsigned char *q = lpFirst(p); q; q = lpNext(p, lpNext(p, q)))
            if (!_isScore(lpNext(p, q))) return C_ERR;
    return _uniqueFields(m, p, n / 2) ? C_OK : C_ERR;
}

/* Types 11, 16, 17: an intset or a listpack blob, checked whole and
 * then walked. The blob is copied into an allocation of its own first, so
 * that the intset header is aligned as intset.c expects. */
static int _rBlob(rdbReader *r, rdbCmd *c, int type) {
    robj *blob;
    if (_rString(r, &blob) != C_OK) return C_ERR;
    size_t len = sdsEncodedObject(blob) ? sdslen(blob->v.ptr) : 0;
    unsigned char *copy = len ? memTryAlloc(r->s->mem, len) : NULL;
    if (copy) memcpy(copy, blob->v.ptr, len);
    decrRefCount(r->s, blob);
    if (len && !copy) return _short(r);         /* Redis: "... or OOM" */
    int st = _validateBlob(r->s->mem, type, copy, len);
    if (st == C_OK) {
        robj view = OBJ_VIEW(OBJ_SET, OBJ_ENCODING_INTSET, copy);
        if (type != RDB_TYPE_SET_INTSET) {
            view.type = type == RDB_TYPE_HASH_LISTPACK ? OBJ_HASH : OBJ_ZSET;
            view.encoding = OBJ_ENCODING_LISTPACK;
        }
        rdbForEachElement(&view, view.type == OBJ_ZSET ? _pushZsetElement
                                                      : _pushElement, c);
    }
    memFree(r->s->mem, copy);
    if (st == C_OK) return C_OK;
    return _corrupt(r, type == RDB_TYPE_SET_INTSET ? "Intset integrity "
                    "check failed." : type == RDB_TYPE_HASH_LISTPACK ?
                    "Hash listpack integrity check failed." : "Zset "
                    "listpack integrity check failed.");
}

/* One node of a type 18 list: its container, then its bytes (any string
 * encoding, LZF included). A plain node is one element; a packed one a
 * listpack, checked whole before its elements are taken (an empty one is
 * skipped, as Redis skips it). */
static int _rListNode(rdbReader *r, rdbCmd *c) {
    uint64_t container;
    int enc;
    robj *data;
    if (_rLen(r, &container, &enc) != C_OK) return C_ERR;
    if (container != QUICKLIST_NODE_CONTAINER_PACKED &&
        container != QUICKLIST_NODE_CONTAINER_PLAIN)
        return _corrupt(r, "Quicklist integrity check failed.");
    if (_rString(r, &data) != C_OK) return C_ERR;
    char nb[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(data, nb, &len);
    if (len == 0) {
        decrRefCount(r->s, data);
        return _short(r);               /* Redis: "... or OOM" */
    }
    if (container == QUICKLIST_NODE_CONTAINER_PLAIN) {
        _cmdPush(c, data);
        return C_OK;
    }
    unsigned char *lp = memTryAlloc(r->s->mem, len);
    int ok = lp != NULL;
    if (ok) {
        memcpy(lp, p, len);
        ok = lpValidateIntegrity(lp, len, 1, NULL, NULL);
    }
    decrRefCount(r->s, data);
    if (ok) {
        unsigned char ib[LP_INTBUF_SIZE];
        for (unsigned char *q = lpFirst(lp); q; q = lpNext(lp, q)) {
            int64_t n;
            unsigned char *s = lpGet(q, &n, ib);
            _cmdPushStr(c, (const char *)s, (size_t)n);
        }
    }
    memFree(r->s->mem, lp);
    if (!lp) return _short(r);
    return ok ? C_OK : _corrupt(r, "Listpack integrity check failed.");
}

/* Type 18 (a quicklist of listpacks): the node count, then the nodes;
 * the elements become one RPUSH. */
static int _rQuicklist(rdbReader *r, rdbCmd *c) {
    uint64_t n;
    int enc;
    if (_rLen(r, &n, &enc) != C_OK) return C_ERR;
    for (uint64_t i = 0; i < n; i++)
        if (_rListNode(r, c) != C_OK) return C_ERR;
    return C_OK;
}

/* ---- Ziplists: what Redis up to 6.2 (RDB 9) writes. ----
 *
 * Before listpacks, small lists, hashes and sorted sets were ziplists:
 * a header (total bytes and the offset of the last entry, 4 bytes each,
 * then the entry count in 2 bytes, 65535 meaning "count them"), the
 * entries, and a 0xFF byte. Each entry starts with the previous entry's
 * size (1 byte, or 0xFE and 4 bytes) so the list can be walked
 * backwards, then its encoding: a string of 6, 14 or 32 bit length
 * (top bits 00, 01, 10), or an integer (0xC0 int16, 0xD0 int32, 0xE0
 * int64, 0xF0 int24, 0xFE int8, 0xF1..0xFD the values 0..12 in the
 * byte itself), all little-endian. Redis 7.0 still loads them (types
 * 10, 12, 13 and 14), converting them to listpacks; here their elements
 * feed the rebuilding command like any other form's. Everything is
 * checked against the blob's bounds, as a deep sanitization would. */

/* One entry at zl[pos], before zl[end] (the 0xFF): its size in *size and
 * its element in *s and *slen (integers as text in buf, LONG_STR_SIZE
 * bytes). prev is the previous entry's size. C_ERR if it is malformed. */
static int _zlEntry(const unsigned char *zl, size_t end, size_t pos,
                    size_t prev, const unsigned char **s, size_t *slen,
                    char *buf, size_t *size) {
    size_t h = pos, plen = 0;
    if (h >= end) return C_ERR;
    if (zl[h] < 0xFE) plen = zl[h++];
    else if (zl[h] == 0xFE && end - h > 5) {
        for (int i = 0; i < 4; i++) plen |= (size_t)zl[h + 1 + i] << (8 * i);
        h += 5;
    } else return C_ERR;
    if (plen != prev || h >= end) return C_ERR;
    unsigned e = zl[h++], ib = 0;
    uint64_t len = 0;
    if (e >> 6 == 0) len = e & 0x3F;
    else if (e >> 6 == 1 && h < end) len = (uint64_t)(e & 0x3F) << 8 | zl[h++];
    else if (e == 0x80 && end - h >= 4) {
        for (int i = 0; i < 4; i++) len = len << 8 | zl[h + i];
        h += 4;
    } else if (e == 0xC0) ib = 2;
    else if (e == 0xD0) ib = 4;
    else if (e == 0xE0) ib = 8;
    else if (e == 0xF0) ib = 3;
    else if (e == 0xFE) ib = 1;
    else if (e < 0xF1 || e > 0xFD) return C_ERR;
    if (e >= 0xC0) {
        uint64_t u = 0;
        if (end - h < ib) return C_ERR;
        for (unsigned i = 0; i < ib; i++) u |= (uint64_t)zl[h + i] << (8 * i);
        long long v = ib == 0 ? (long long)(e & 0x0F) - 1
                    : ib == 8 ? (long long)u
                    : (long long)(u << (64 - 8 * ib)) >> (64 - 8 * ib);
        *s = (const unsigned char *)buf;
        *slen = (size_t)ll2string(buf, LONG_STR_SIZE, v);
        *size = h + ib - pos;
        return C_OK;
    }
    if (len > end - h) return C_ERR;
    *s = zl + h;
    *slen = (size_t)len;
    *size = h + (size_t)len - pos;
    return C_OK;
}

/* Pushes the elements of the len-byte ziplist at zl onto c, after
 * checking its header, every entry and its end. C_ERR if malformed. */
static int _zlElements(const unsigned char *zl, size_t len, rdbCmd *c) {
    uint32_t bytes = 0, tail = 0;
    if (len < 11 || zl[len - 1] != 0xFF) return C_ERR;
    for (int i = 0; i < 4; i++) {
        bytes |= (uint32_t)zl[i] << (8 * i);
        tail |= (uint32_t)zl[4 + i] << (8 * i);
    }
    unsigned count = (unsigned)zl[8] | (unsigned)zl[9] << 8, n = 0;
    size_t pos = 10, prev = 0, last = 10;
    if (bytes != len) return C_ERR;
    while (pos < len - 1) {
        const unsigned char *s;
        size_t slen, size;
        char buf[LONG_STR_SIZE];
        if (_zlEntry(zl, len - 1, pos, prev, &s, &slen, buf, &size) != C_OK)
            return C_ERR;
        _cmdPushStr(c, (const char *)s, slen);
        last = pos;
        prev = size;
        pos += size;
        n++;
    }
    if (tail != last || (count != 0xFFFF && count != n)) return C_ERR;
    return C_OK;
}

/* qsort's order on string objects: by their bytes. */
static int _cmpObjects(const void *a, const void *b) {
    sds x = (*(robj *const *)a)->v.ptr, y = (*(robj *const *)b)->v.ptr;
    size_t lx = sdslen(x), ly = sdslen(y), n = lx < ly ? lx : ly;
    int d = n ? memcmp(x, y, n) : 0;
    return d ? d : (lx > ly) - (lx < ly);
}

/* Whether the first elements of the npairs pairs at v are distinct. */
static int _uniquePairs(gkMem *m, robj **v, int npairs) {
    if (npairs < 2) return 1;
    robj **f = memTryAlloc(m, sizeof(*f) * (size_t)npairs);
    if (!f) return 0;
    for (int i = 0; i < npairs; i++) f[i] = v[2 * i];
    qsort(f, (size_t)npairs, sizeof(*f), _cmpObjects);
    int ok = 1;
    for (int i = 1; i < npairs && ok; i++)
        ok = _cmpObjects(&f[i - 1], &f[i]) != 0;
    memFree(m, f);
    return ok;
}

/* Whether a string object reads whole as a score that is not NaN. */
static int _isScoreObject(robj *o) {
    sds t = o->v.ptr;
    char *end;
    if (sdslen(t) == 0) return 0;
    double d = strtod(t, &end);
    return end == t + sdslen(t) && !isnan(d);
}

/* Types 10 (a list as one ziplist), 14 (a quicklist of ziplists), 12
 * (a sorted set, member and score) and 13 (a hash, field and value). A
 * sorted set's pairs go to ZADD score first. */
static int _rZiplistValue(rdbReader *r, rdbCmd *c, int type) {
    uint64_t nodes = 1;
    int enc;
    rdbCmd e = { r->s, NULL, 0, 0 };
    if (type == RDB_TYPE_LIST_QUICKLIST && _rLen(r, &nodes, &enc) != C_OK)
        return C_ERR;
    for (uint64_t i = 0; i < nodes; i++) {
        robj *blob;
        char nb[LONG_STR_SIZE];
        size_t len;
        if (_rString(r, &blob) != C_OK) { _cmdFree(&e); return C_ERR; }
        const char *p = objectStrBytes(blob, nb, &len);
        int st = _zlElements((const unsigned char *)p, len, &e);
        decrRefCount(r->s, blob);
        if (st != C_OK) {
            _cmdFree(&e);
            return _corrupt(r, "Ziplist integrity check failed.");
        }
    }
    int pairs = type == RDB_TYPE_ZSET_ZIPLIST ||
                type == RDB_TYPE_HASH_ZIPLIST, ok = 1;
    if (pairs) ok = e.argc % 2 == 0 && _uniquePairs(r->s->mem, e.argv,
                                                    e.argc / 2);
    for (int i = 1; ok && type == RDB_TYPE_ZSET_ZIPLIST && i < e.argc; i += 2)
        ok = _isScoreObject(e.argv[i]);
    for (int i = 0; ok && i < e.argc; i++) {
        int j = type == RDB_TYPE_ZSET_ZIPLIST ? i ^ 1 : i;
        incrRefCount(e.argv[j]);
        _cmdPush(c, e.argv[j]);
    }
    _cmdFree(&e);
    return ok ? C_OK : _corrupt(r, "Ziplist integrity check failed.");
}

/* Reads one value of the given type into the command that rebuilds it. */
/* ---- Streams (types 15 and 19). ----
 *
 * A stream is read into the object itself: its nodes are listpacks kept
 * as they were saved (tombstones and all), which no command could
 * rebuild. What the loader hands over for it is RESTORE key 0 <payload>,
 * the stream's own bytes with a DUMP footer, which RESTORE reads back
 * into the object (rdbLoadStreamObject). */

static int _rLenOnly(rdbReader *r, uint64_t *v) {
    int enc;
    return _rLen(r, v, &enc);
}

/* A string's bytes in a new allocation of their own (*len of them). */
static int _rRawString(rdbReader *r, unsigned char **out, size_t *len) {
    robj *o;
    char buf[LONG_STR_SIZE];
    if (_rString(r, &o) != C_OK) return C_ERR;
    const char *p = objectStrBytes(o, buf, len);
    *out = memAlloc(r->s->mem, *len ? *len : 1);
    memcpy(*out, p, *len);
    decrRefCount(r->s, o);
    return C_OK;
}

/* The nodes: count, then (16-byte key, listpack) each, checked. */
static int _rStreamNodes(rdbReader *r, stream *st) {
    uint64_t n;
    if (_rLenOnly(r, &n) != C_OK) return C_ERR;
    while (n--) {
        unsigned char *key, *lp;
        size_t klen, lplen;
        if (_rRawString(r, &key, &klen) != C_OK) return C_ERR;
        if (klen != 16) {
            memFree(r->s->mem, key);
            return _corrupt(r, "Stream node key entry is not the size of "
                            "a stream ID");
        }
        if (_rRawString(r, &lp, &lplen) != C_OK) {
            memFree(r->s->mem, key);
            return C_ERR;
        }
        int ok = streamValidateListpackIntegrity(lp, lplen, 1);
        const char *why = !ok ? "Stream listpack integrity check failed."
                        : lpFirst(lp) == NULL ? "Empty listpack inside "
                        "stream" : NULL;
        if (!why && !raxTryInsert(st->rax, key, 16, lp, NULL))
            why = "Listpack re-added with existing key";
        memFree(r->s->mem, key);
        if (why) {
            memFree(r->s->mem, lp);
            return _corrupt(r, why);
        }
    }
    return C_OK;
}

/* The stream's length, IDs and counters (the last three since type 19;
 * for type 15 they are worked out as 7.0 does). */
static int _rStreamMeta(rdbReader *r, int type, stream *st) {
    uint64_t v[8];
    int n = type == RDB_TYPE_STREAM_LISTPACKS_2 ? 8 : 3;
    for (int i = 0; i < n; i++)
        if (_rLenOnly(r, &v[i]) != C_OK) return C_ERR;
    st->length = v[0];
    st->last_id.ms = v[1];
    st->last_id.seq = v[2];
    if (n == 8) {
        st->first_id.ms = v[3];
        st->first_id.seq = v[4];
        st->max_deleted_entry_id.ms = v[5];
        st->max_deleted_entry_id.seq = v[6];
        st->entries_added = v[7];
    } else {
        streamGetEdgeID(st, 1, 1, &st->first_id);
        st->entries_added = st->length;
    }
    if (st->length && !raxSize(st->rax))
        return _corrupt(r, "Stream length inconsistent with rax entries");
    return C_OK;
}

/* A consumer group's PEL of NACKs (no consumer yet). */
static int _rStreamGroupPEL(rdbReader *r, streamCG *cg) {
    uint64_t n;
    if (_rLenOnly(r, &n) != C_OK) return C_ERR;
    while (n--) {
        unsigned char id[16];
        uint64_t t, count;
        if (_rBytes(r, id, 16) != C_OK || _rLE(r, 8, &t) != C_OK ||
            _rLenOnly(r, &count) != C_OK)
            return C_ERR;
        streamNACK *nack = streamCreateNACK(r->s, NULL);
        nack->delivery_time = (long long)t;
        nack->delivery_count = count;
        if (!raxTryInsert(cg->pel, id, 16, nack, NULL)) {
            memFree(r->s->mem, nack);
            return _corrupt(r, "Duplicated global PEL entry loading stream "
                            "consumer group");
        }
    }
    return C_OK;
}

/* A group's consumers, each taking its entries of the group's PEL. */
static int _rStreamConsumers(rdbReader *r, streamCG *cg) {
    uint64_t n;
    if (_rLenOnly(r, &n) != C_OK) return C_ERR;
    while (n--) {
        unsigned char *name;
        size_t nlen;
        uint64_t seen, npel;
        if (_rRawString(r, &name, &nlen) != C_OK) return C_ERR;
        if (_rLE(r, 8, &seen) != C_OK) {
            memFree(r->s->mem, name);
            return C_ERR;
        }
        streamConsumer *sc = streamNewConsumer(r->s, cg, (char *)name, nlen,
                                               (long long)seen);
        memFree(r->s->mem, name);
        if (!sc) return _corrupt(r, "Duplicate stream consumer detected.");
        if (_rLenOnly(r, &npel) != C_OK) return C_ERR;
        while (npel--) {
            unsigned char id[16];
            void *nack;
            if (_rBytes(r, id, 16) != C_OK) return C_ERR;
            if (!raxFind(cg->pel, id, 16, &nack))
                return _corrupt(r, "Consumer entry not found in group "
                                "global PEL");
            ((streamNACK *)nack)->consumer = sc;
            if (!raxTryInsert(sc->pel, id, 16, nack, NULL))
                return _corrupt(r, "Duplicated consumer PEL entry loading "
                                "a stream consumer group");
        }
    }
    return C_OK;
}

/* Every NACK has its consumer. */
static int _rStreamCheckPEL(rdbReader *r, streamCG *cg) {
    raxIterator ri;
    int ok = 1;
    raxStart(&ri, cg->pel);
    raxSeek(&ri, "^", NULL, 0);
    while (ok && raxNext(&ri))
        ok = ((streamNACK *)ri.data)->consumer != NULL;
    raxStop(&ri);
    return ok ? C_OK : _corrupt(r, "Stream CG PEL entry without consumer");
}

static int _rStreamGroups(rdbReader *r, int type, stream *st) {
    uint64_t n;
    if (_rLenOnly(r, &n) != C_OK) return C_ERR;
    while (n--) {
        unsigned char *name;
        size_t nlen;
        uint64_t ms = 0, seq = 0, er = 0;
        if (_rRawString(r, &name, &nlen) != C_OK) return C_ERR;
        int st_ok = _rLenOnly(r, &ms) == C_OK && _rLenOnly(r, &seq) == C_OK;
        streamID id = { ms, seq };
        long long entries_read = 0;
        if (st_ok && type == RDB_TYPE_STREAM_LISTPACKS_2) {
            st_ok = _rLenOnly(r, &er) == C_OK;
            entries_read = (long long)er;
        } else if (st_ok) {
            entries_read = streamEstimateDistanceFromFirstEverEntry(st, &id);
        }
        if (!st_ok) {
            memFree(r->s->mem, name);
            return C_ERR;
        }
        streamCG *cg = streamCreateCG(r->s, st, (char *)name, nlen, &id,
                                      entries_read);
        if (!cg) {
            char why[128];
            snprintf(why, sizeof(why), "Duplicated consumer group name %.*s",
                     (int)(nlen > 64 ? 64 : nlen), name);
            memFree(r->s->mem, name);
            return _corrupt(r, why);
        }
        memFree(r->s->mem, name);
        if (_rStreamGroupPEL(r, cg) != C_OK ||
            _rStreamConsumers(r, cg) != C_OK ||
            _rStreamCheckPEL(r, cg) != C_OK)
            return C_ERR;
    }
    return C_OK;
}

/* A stream value of type 15 or 19 into a new object (*out). */
static int _rStream(rdbReader *r, int type, robj **out) {
    stream *st = streamNew(r->s);
    if (_rStreamNodes(r, st) != C_OK || _rStreamMeta(r, type, st) != C_OK ||
        _rStreamGroups(r, type, st) != C_OK) {
        freeStream(r->s, st);
        return C_ERR;
    }
    *out = createObject(r->s, OBJ_STREAM, st);
    (*out)->encoding = OBJ_ENCODING_STREAM;
    return C_OK;
}

/* Reads a stream and makes the command RESTORE key 0 <its payload>. */
static int _rStreamCommand(rdbReader *r, int type, rdbCmd *c) {
    size_t start = r->pos;
    robj *o;
    if (_rStream(r, type, &o) != C_OK) return C_ERR;
    decrRefCount(r->s, o);
    sds payload = sdsnewlen(r->s->mem, NULL, 1);
    payload[0] = (char)type;
    payload = sdscatlen(r->s->mem, payload, r->p + start, r->pos - start);
    unsigned char footer[10];
    uint64_t crc;
    footer[0] = RDB_VERSION & 0xff;
    footer[1] = (RDB_VERSION >> 8) & 0xff;
    payload = sdscatlen(r->s->mem, payload, footer, 2);
    crc = crc64(0, (unsigned char *)payload, sdslen(payload));
    for (int i = 0; i < 8; i++) footer[i] = (unsigned char)(crc >> (8 * i));
    payload = sdscatlen(r->s->mem, payload, footer, 8);
    robj *key = c->argv[0];
    c->argv[0] = createStringObject(r->s, "RESTORE", 7);
    _cmdPush(c, key);
    _cmdPushStr(c, "0", 1);
    _cmdPush(c, createObject(r->s, OBJ_STRING, payload));
    return C_OK;
}

/* Whether a DUMP payload holds a stream (read with
 * rdbLoadStreamObject rather than rdbLoadValue). */
int rdbIsStreamPayload(const char *buf, size_t len) {
    return len > 0 && ((unsigned char)buf[0] == RDB_TYPE_STREAM_LISTPACKS ||
                       (unsigned char)buf[0] == RDB_TYPE_STREAM_LISTPACKS_2);
}

/* RESTORE of a stream: the object from the len bytes at buf (a DUMP
 * payload), or C_ERR if they are not a whole valid stream. */
int rdbLoadStreamObject(redisServer *s, const char *buf, size_t len,
                        robj **out) {
    rdbLoadInfo info;
    memset(&info, 0, sizeof(info));
    rdbReader r = { s, (const unsigned char *)buf, len, 0, RDB_VERSION,
                    &info };
    int type;
    if (_rByte(&r, &type) != C_OK || !rdbIsStreamPayload(buf, len))
        return C_ERR;
    return _rStream(&r, type, out);
}

static int _rValue(rdbReader *r, int type, rdbCmd *c) {
    static const char *verb[] = { "SET", "SADD", "HSET", "ZADD", "RPUSH" };
    int v;
    if (type == RDB_TYPE_STREAM_LISTPACKS ||
        type == RDB_TYPE_STREAM_LISTPACKS_2)
        return _rStreamCommand(r, type, c);
    switch (type) {
    case RDB_TYPE_STRING: v = 0; break;
    case RDB_TYPE_LIST: case RDB_TYPE_LIST_QUICKLIST_2:
    case RDB_TYPE_LIST_ZIPLIST: case RDB_TYPE_LIST_QUICKLIST: v = 4; break;
    case RDB_TYPE_SET: case RDB_TYPE_SET_INTSET: v = 1; break;
    case RDB_TYPE_HASH: case RDB_TYPE_HASH_LISTPACK:
    case RDB_TYPE_HASH_ZIPLIST: v = 2; break;
    case RDB_TYPE_ZSET: case RDB_TYPE_ZSET_2: case RDB_TYPE_ZSET_LISTPACK:
    case RDB_TYPE_ZSET_ZIPLIST: v = 3; break;
    default: {
        char why[64];
        snprintf(why, sizeof(why), "Unknown RDB encoding type %d", type);
        return _corrupt(r, why);
    }
    }
    robj *key = c->argv[0];
    c->argv[0] = createStringObject(r->s, verb[v], strlen(verb[v]));
    _cmdPush(c, key);
    if (type == RDB_TYPE_STRING) {
        robj *o;
        if (_rString(r, &o) != C_OK) return C_ERR;
        _cmdPush(c, o);
        return C_OK;
    }
    if (type == RDB_TYPE_SET || type == RDB_TYPE_HASH || type == RDB_TYPE_LIST)
        return _rPlain(r, c, type == RDB_TYPE_HASH);
    if (type == RDB_TYPE_LIST_QUICKLIST_2) return _rQuicklist(r, c);
    if (type == RDB_TYPE_ZSET || type == RDB_TYPE_ZSET_2)
        return _rZset(r, c, type == RDB_TYPE_ZSET_2);
    if (type == RDB_TYPE_LIST_ZIPLIST || type == RDB_TYPE_LIST_QUICKLIST ||
        type == RDB_TYPE_ZSET_ZIPLIST || type == RDB_TYPE_HASH_ZIPLIST)
        return _rZiplistValue(r, c, type);
    return _rBlob(r, c, type);
}

/* One key: its value becomes a command, its expire a PEXPIREAT. */
/* Gives the key just loaded the access data its IDLE or FREQ opcode
 * carried. */
static void _rSetAccess(rdbReader *r, int dbid, robj *key) {
    dictEntry *de = dictFind(r->s->db[dbid].dict, key->v.ptr);
    if (de)
        objectSetLRUOrLFU(r->s, dictGetVal(de), r->lfu_freq, r->lru_idle,
                          r->lru_clock, 1000);
}

static int _rKey(rdbReader *r, int type, int dbid, long long expire,
                 rdbExecFn *fn, void *ctx) {
    rdbCmd c = { r->s, NULL, 0, 0 };
    robj *key;
    if (_rString(r, &key) != C_OK) return C_ERR;
    _cmdPush(&c, key);
    int st = _rValue(r, type, &c);
    if (st == C_OK && c.argc > 2) st = fn(ctx, dbid, c.argc, c.argv);
    if (st == C_OK && expire != -1 && c.argc > 2) {
        char ms[LONG_STR_SIZE];
        int mlen = ll2string(ms, sizeof(ms), expire);
        robj *argv[3] = { createStringObject(r->s, "PEXPIREAT", 9), key,
                          createStringObject(r->s, ms, (size_t)mlen) };
        st = fn(ctx, dbid, 3, argv);
        decrRefCount(r->s, argv[0]);
        decrRefCount(r->s, argv[2]);
    }
    if (st == C_OK && (r->lru_idle != -1 || r->lfu_freq != -1))
        _rSetAccess(r, dbid, key);
    if (st == C_OK) r->info->keys++;
    _cmdFree(&c);
    return st;
}

/* rdbLoadObjectType and rdbLoadObject, for RESTORE: reads the type byte
 * and the value at the start of the len bytes at buf (a DUMP payload,
 * its checked footer included) into the command that rebuilds the value
 * under key: SET, RPUSH, SADD, HSET or ZADD, key, elements. Bytes after
 * the value are not looked at, as Redis does not. Returns
 * C_OK with *argc and *argv set (free them with rdbFreeCommand), C_ERR
 * if the bytes are not a whole value of a type this reader knows, or are
 * an empty collection, which no server writes. */
int rdbLoadValue(redisServer *s, const char *buf, size_t len, robj *key,
                 int *argc, robj ***argv) {
    rdbLoadInfo info;
    memset(&info, 0, sizeof(info));
    rdbReader r = { s, (const unsigned char *)buf, len, 0, RDB_VERSION,
                    &info };
    rdbCmd c = { s, NULL, 0, 0 };
    int type;
    if (_rByte(&r, &type) != C_OK) return C_ERR;
    incrRefCount(key);
    _cmdPush(&c, key);
    if (_rValue(&r, type, &c) != C_OK || c.argc < 3) {
        _cmdFree(&c);
        return C_ERR;
    }
    *argc = c.argc;
    *argv = c.argv;
    return C_OK;
}

/* Frees a command rdbLoadValue returned. */
void rdbFreeCommand(redisServer *s, int argc, robj **argv) {
    rdbCmd c = { s, argv, argc, argc };
    _cmdFree(&c);
}

/* An AUX field: the ones rdbLoad logs are kept in info. */
static int _rAux(rdbReader *r) {
    robj *k, *v;
    if (_rString(r, &k) != C_OK) return C_ERR;
    if (_rString(r, &v) != C_OK) { decrRefCount(r->s, k); return C_ERR; }
    char kb[LONG_STR_SIZE], vb[LONG_STR_SIZE];
    size_t kl, vl;
    const char *ks = objectStrBytes(k, kb, &kl), *vs = objectStrBytes(v, vb,
                                                                      &vl);
    long long ll = 0;
    int isnum = string2ll(vs, vl, &ll);
    if (kl == 9 && !memcmp(ks, "redis-ver", 9))
        snprintf(r->info->version, sizeof(r->info->version), "%.*s",
                 (int)vl, vs);
    else if (kl == 5 && !memcmp(ks, "ctime", 5) && isnum) r->info->ctime = ll;
    else if (kl == 8 && !memcmp(ks, "used-mem", 8) && isnum)
        r->info->used_mem = ll;
    else if (kl == 8 && !memcmp(ks, "aof-base", 8)) r->info->aof_base = ll;
    else if (kl == 7 && !memcmp(ks, "repl-id", 7) && vl == 40)
        snprintf(r->info->repl_id, sizeof(r->info->repl_id), "%.*s", 40, vs);
    else if (kl == 11 && !memcmp(ks, "repl-offset", 11) && isnum)
        r->info->repl_offset = ll;
    else if (kl == 14 && !memcmp(ks, "repl-stream-db", 14) && isnum)
        r->info->repl_stream_db = (int)ll;
    decrRefCount(r->s, k);
    decrRefCount(r->s, v);
    return C_OK;
}

/* The trailing checksum: 0 means the writer did not compute one. */
static int _rChecksum(rdbReader *r) {
    uint64_t want, got = crc64(0, r->p, r->pos);
    if (r->version < 5) return C_OK;
    if (_rLE(r, 8, &want) != C_OK) return C_ERR;
    if (want != 0 && want != got) {
        snprintf(r->info->err, sizeof(r->info->err), "Wrong RDB checksum "
                 "expected: (%llx) got (%llx). Aborting now.",
                 (unsigned long long)want, (unsigned long long)got);
        return C_ERR;
    }
    return C_OK;
}

/* Handles one opcode (or key) at the reader's position. Returns 1 at the
 * end of the file, 0 to go on, C_ERR on error. */
static int _rStep(rdbReader *r, int *dbid, long long *expire,
                  rdbExecFn *fn, void *ctx) {
    int type;
    uint64_t a, b;
    int enc;
    if (_rByte(r, &type) != C_OK) return C_ERR;
    switch (type) {
    case RDB_OPCODE_EOF: return _rChecksum(r) == C_OK ? 1 : C_ERR;
    case RDB_OPCODE_AUX: return _rAux(r);
    case RDB_OPCODE_SELECTDB:
        if (_rLen(r, &a, &enc) != C_OK) return C_ERR;
        if (a >= (uint64_t)r->s->cfg.databases)
            return _fail(r, "FATAL: Data file was created with a Redis "
                            "server configured to handle more databases");
        *dbid = (int)a;
        return 0;
    case RDB_OPCODE_RESIZEDB:
        return _rLen(r, &a, &enc) == C_OK && _rLen(r, &b, &enc) == C_OK
               ? 0 : C_ERR;
    case RDB_OPCODE_EXPIRETIME_MS:
        if (_rLE(r, 8, &a) != C_OK) return C_ERR;
        *expire = (long long)a;
        return 0;
    case RDB_OPCODE_EXPIRETIME:
        if (_rLE(r, 4, &a) != C_OK) return C_ERR;
        *expire = (long long)(int32_t)a * 1000;
        return 0;
    case RDB_OPCODE_IDLE:
        if (_rLen(r, &a, &enc) != C_OK) return C_ERR;
        r->lru_idle = (long long)a;
        return 0;
    case RDB_OPCODE_FREQ:
        if (_rByte(r, &enc) != C_OK) return C_ERR;
        r->lfu_freq = enc;
        return 0;
    case RDB_OPCODE_FUNCTION2: {
        /* A library: loaded again as FUNCTION LOAD REPLACE runs it. */
        robj *argv[4] = { NULL };
        if (_rString(r, &argv[3]) != C_OK) return C_ERR;
        argv[0] = createStringObject(r->s, "FUNCTION", 8);
        argv[1] = createStringObject(r->s, "LOAD", 4);
        argv[2] = createStringObject(r->s, "REPLACE", 7);
        int st = fn(ctx, 0, 4, argv);
        for (int j = 0; j < 4; j++) decrRefCount(r->s, argv[j]);
        return st == C_OK ? 0 : _fail(r, "Failed loading library");
    }
    case RDB_OPCODE_MODULE_AUX:
        return _fail(r, "Unsupported RDB opcode (modules)");
    default: {
        int st = _rKey(r, type, *dbid, *expire, fn, ctx);
        if (st == C_OK) debugKeyLoadDelay(r->s);
        *expire = -1;
        r->lru_idle = r->lfu_freq = -1;
        return st == C_OK ? 0 : C_ERR;
    }
    }
}

/* Reads an RDB from buf and hands the dataset to fn as commands (SET,
 * SADD, HSET, ZADD, PEXPIREAT). C_OK with info->bytes set to the bytes
 * the RDB took; C_ERR with info->err set. */
int rdbLoadCommands(redisServer *s, const char *buf, size_t len,
                    rdbExecFn *fn, void *ctx, rdbLoadInfo *info) {
    rdbReader r = { s, (const unsigned char *)buf, len, 0, 0, info, -1, -1,
                    LRU_CLOCK(s) };
    memset(info, 0, sizeof(*info));
    info->ctime = info->used_mem = -1;
    info->repl_offset = -1;
    info->repl_stream_db = -1;
    if (len < 9 || memcmp(buf, "REDIS", 5))
        return _fail(&r, "Wrong signature trying to load DB from file");
    char vtext[5];                  /* the 4 digits after "REDIS" only */
    memcpy(vtext, buf + 5, 4);
    vtext[4] = '\0';
    int ver = atoi(vtext);
    if (ver < 1 || ver > RDB_VERSION) {
        snprintf(info->err, sizeof(info->err), "Can't handle RDB format "
                 "version %d", ver);
        return C_ERR;
    }
    r.version = ver;
    r.pos = 9;
    int dbid = 0, st = 0;
    long long expire = -1;
    while ((st = _rStep(&r, &dbid, &expire, fn, ctx)) == 0) {}
    if (st != 1) return C_ERR;
    info->bytes = r.pos;
    return C_OK;
}

/* The libraries' code in a FUNCTION DUMP payload (FUNCTION RESTORE), into
 * *codes (n of them, the caller frees each and the array). C_ERR with *err
 * set, as Redis words it, for a bad payload. */
int rdbFunctionsFromPayload(redisServer *s, const char *p, size_t len,
                            sds **codes, int *n, sds *err) {
    *codes = NULL;
    *n = 0;
    if (!rdbPayloadValid((const unsigned char *)p, len)) {
        *err = sdsnew(s->mem, "DUMP payload version or checksum are wrong");
        return C_ERR;
    }
    rdbLoadInfo info;
    memset(&info, 0, sizeof(info));
    rdbReader r = { s, (const unsigned char *)p, len - 10, 0, RDB_VERSION,
                    &info, -1, -1, 0 };
    int cap = 0;
    while (r.pos < r.len) {
        int type;
        robj *code;
        if (_rByte(&r, &type) != C_OK) {
            *err = sdsnew(s->mem, "can not read data type");
            goto error;
        }
        if (type != RDB_OPCODE_FUNCTION2) {
            *err = sdsnew(s->mem, "given type is not a function");
            goto error;
        }
        if (_rString(&r, &code) != C_OK) {
            *err = sdsnew(s->mem, "failed loading the given functions "
                                  "payload");
            goto error;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 4;
            *codes = memRealloc(s->mem, *codes, sizeof(sds) * (size_t)cap);
        }
        (*codes)[(*n)++] = sdsnewlen(s->mem, code->v.ptr, sdslen(code->v.ptr));
        decrRefCount(s, code);
    }
    return C_OK;
error:
    for (int j = 0; j < *n; j++) sdsfree(s->mem, (*codes)[j]);
    memFree(s->mem, *codes);
    *codes = NULL;
    *n = 0;
    return C_ERR;
}
