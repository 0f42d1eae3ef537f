/* debug_digest.c -- DEBUG DIGEST and DEBUG DIGEST-VALUE: a dataset, or one
 * value, summed up in 20 bytes the way Redis 7.0 sums it, so that two
 * servers holding the same data print the same hex, whatever their
 * encodings, hash seeds or table sizes.
 *
 * Two ways of adding bytes to a digest: xor adds SHA1(bytes) by xor,
 * which ignores order (a set's members, a hash's fields, a db's keys);
 * mix sets digest = SHA1(digest xor SHA1(bytes)), which does not (a
 * list's elements, a key then its value). A member of a sorted set or a
 * field of a hash is first mixed into a digest of its own (member then
 * score, field then value), which is then xored in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "server.h"
#include "intset.h"
#include "listpack.h"
#include "sha1.h"
#include "stream.h"

static void _xorDigest(unsigned char *digest, const void *p, size_t len) {
    unsigned char hash[SHA1_DIGEST_LEN];
    sha1Ctx ctx;
    sha1Init(&ctx);
    sha1Update(&ctx, p, len);
    sha1Final(&ctx, hash);
    for (int j = 0; j < SHA1_DIGEST_LEN; j++) digest[j] ^= hash[j];
}

static void _mixDigest(unsigned char *digest, const void *p, size_t len) {
    sha1Ctx ctx;
    _xorDigest(digest, p, len);
    sha1Init(&ctx);
    sha1Update(&ctx, digest, SHA1_DIGEST_LEN);
    sha1Final(&ctx, digest);
}

/* Mixes an integer in as its decimal text, which is how it reads. */
static void _mixInteger(unsigned char *digest, long long v) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), v);
    _mixDigest(digest, buf, (size_t)len);
}

static void _listElement(void *ctx, const unsigned char *p, size_t len,
                         long long v) {
    if (p) _mixDigest(ctx, p, len);
    else _mixInteger(ctx, v);
}

static void _digestSet(unsigned char *digest, robj *o) {
    if (o->encoding == OBJ_ENCODING_INTSET) {
        int64_t v;
        char buf[LONG_STR_SIZE];
        for (uint32_t i = 0; intsetGet(o->v.ptr, i, &v); i++) {
            int len = ll2string(buf, sizeof(buf), v);
            _xorDigest(digest, buf, (size_t)len);
        }
        return;
    }
    dictIterator *di = dictGetIterator(o->v.ptr);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds ele = dictGetKey(de);
        _xorDigest(digest, ele, sdslen(ele));
    }
    dictReleaseIterator(di);
}

/* xors in the digest of one pair: a and b mixed, in that order. */
static void _xorPair(unsigned char *digest, const void *a, size_t alen,
                     const void *b, size_t blen) {
    unsigned char pair[SHA1_DIGEST_LEN];
    memset(pair, 0, sizeof(pair));
    _mixDigest(pair, a, alen);
    _mixDigest(pair, b, blen);
    _xorDigest(digest, pair, sizeof(pair));
}

/* A score as Redis prints it here: %.17g. */
static int _scoreText(char *buf, size_t cap, double score) {
    return snprintf(buf, cap, "%.17g", score);
}

/* Each pair of a listpack (a hash's field and value, or a sorted set's
 * member and score, the score then read as a double). */
static void _digestListpackPairs(unsigned char *digest, unsigned char *lp,
                                 int scores) {
    unsigned char fbuf[LP_INTBUF_SIZE], vbuf[LP_INTBUF_SIZE];
    char text[128];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p))) {
        int64_t flen, vlen;
        unsigned char *f = lpGet(p, &flen, fbuf);
        unsigned char *v = lpGet(lpNext(lp, p), &vlen, vbuf);
        if (scores) {
            char num[128];
            size_t n = (size_t)vlen < sizeof(num) ? (size_t)vlen
                                                  : sizeof(num) - 1;
            memcpy(num, v, n);
            num[n] = '\0';
            vlen = _scoreText(text, sizeof(text), strtod(num, NULL));
            v = (unsigned char *)text;
        }
        _xorPair(digest, f, (size_t)flen, v, (size_t)vlen);
    }
}

static void _digestZset(unsigned char *digest, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        _digestListpackPairs(digest, o->v.ptr, 1);
        return;
    }
    char text[128];
    dictIterator *di = dictGetIterator(((zset *)o->v.ptr)->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds ele = dictGetKey(de);
        int len = _scoreText(text, sizeof(text), *(double *)dictGetVal(de));
        _xorPair(digest, ele, sdslen(ele), text, (size_t)len);
    }
    dictReleaseIterator(di);
}

static void _digestHash(unsigned char *digest, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        _digestListpackPairs(digest, o->v.ptr, 0);
        return;
    }
    dictIterator *di = dictGetIterator(o->v.ptr);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds f = dictGetKey(de), v = dictGetVal(de);
        _xorPair(digest, f, sdslen(f), v, sdslen(v));
    }
    dictReleaseIterator(di);
}

/* A stream: each entry in order, its ID as "<ms>.<seq>" then its fields
 * and values, all mixed (order counts). Groups are not part of it, as in
 * Redis. */
static void _digestStream(unsigned char *digest, robj *o) {
    streamIterator si;
    streamID id;
    int64_t numfields;
    streamIteratorStart(&si, o->v.ptr, NULL, NULL, 0);
    while (streamIteratorGetID(&si, &id, &numfields)) {
        char buf[STREAM_ID_STR_LEN];
        int n = snprintf(buf, sizeof(buf), "%llu.%llu",
                         (unsigned long long)id.ms,
                         (unsigned long long)id.seq);
        _mixDigest(digest, buf, (size_t)n);
        while (numfields--) {
            unsigned char *f, *v;
            int64_t flen, vlen;
            streamIteratorGetField(&si, &f, &v, &flen, &vlen);
            _mixDigest(digest, f, (size_t)flen);
            _mixDigest(digest, v, (size_t)vlen);
        }
    }
    streamIteratorStop(&si);
}

/* Adds value o of key (in db) to digest: its type, then its contents,
 * then whether it has a TTL (not the TTL itself). */
static void _objectDigest(redisDb *db, sds key, unsigned char *digest,
                          robj *o) {
    unsigned char type[4] = { 0, 0, 0, (unsigned char)o->type };
    robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p;
    _mixDigest(digest, type, sizeof(type));
    switch (o->type) {
    case OBJ_STRING:
        p = objectStrBytes(o, buf, &len);
        _mixDigest(digest, p, len);
        break;
    case OBJ_LIST: quicklistForEach(o->v.ptr, _listElement, digest); break;
    case OBJ_SET: _digestSet(digest, o); break;
    case OBJ_ZSET: _digestZset(digest, o); break;
    case OBJ_HASH: _digestHash(digest, o); break;
    case OBJ_STREAM: _digestStream(digest, o); break;
    default: memPanic("digest of an unknown type");
    }
    if (getExpire(db, &k) != -1) _xorDigest(digest, "!!expire!!", 10);
}

static void _replyHex(client *c, const unsigned char *digest) {
    char hex[2 * SHA1_DIGEST_LEN + 1];
    for (int i = 0; i < SHA1_DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    addReplyStatus(c, hex);
}

/* DEBUG DIGEST: the xor of every key's digest (its name mixed, then its
 * value), each db's share preceded by its index mixed into the total, so
 * the same keys in another db differ. 40 zeros for an empty dataset. */
void debugDigestCommand(client *c) {
    redisServer *s = c->srv;
    unsigned char final[SHA1_DIGEST_LEN];
    memset(final, 0, sizeof(final));
    for (int j = 0; j < s->cfg.databases; j++) {
        redisDb *db = &s->db[j];
        if (dictSize(db->dict) == 0) continue;
        unsigned char id[4] = { (unsigned char)(j >> 24),
                                (unsigned char)(j >> 16),
                                (unsigned char)(j >> 8), (unsigned char)j };
        _mixDigest(final, id, sizeof(id));
        dictIterator *di = dictGetIterator(db->dict);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            unsigned char digest[SHA1_DIGEST_LEN];
            sds key = dictGetKey(de);
            memset(digest, 0, sizeof(digest));
            _mixDigest(digest, key, sdslen(key));
            _objectDigest(db, key, digest, dictGetVal(de));
            _xorDigest(final, digest, sizeof(digest));
        }
        dictReleaseIterator(di);
    }
    _replyHex(c, final);
}

/* DEBUG DIGEST-VALUE key ...: one digest per key of its value alone (the
 * name left out), 40 zeros for a missing key. Keys past their TTL still
 * count: nothing is looked up, so nothing expires. */
void debugDigestValueCommand(client *c) {
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        unsigned char digest[SHA1_DIGEST_LEN];
        sds key = c->argv[j]->v.ptr;
        dictEntry *de = dictFind(c->db->dict, key);
        memset(digest, 0, sizeof(digest));
        if (de) _objectDigest(c->db, key, digest, dictGetVal(de));
        _replyHex(c, digest);
    }
}
