/* t_zrange.c -- reading a sorted set by range: ZRANGE in all its forms
 * (by rank, BYSCORE, BYLEX, REV, LIMIT, WITHSCORES), the older commands
 * it subsumes, and ZRANGESTORE, which stores the same range as a new
 * sorted set. The encodings and the range searches are t_zset.c's. */
#include <string.h>
#include <strings.h>
#include "cost.h"
#include "t_zset.h"

/* ==== ZRANGE and its older forms ====
 *
 * ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count]
 * [WITHSCORES] is the 6.2 command that subsumes ZREVRANGE,
 * ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX and ZREVRANGEBYLEX; all
 * of them parse and run through here, the old ones with the range type
 * and direction fixed, so "REV" or "BYSCORE" after them is a syntax
 * error, as in Redis. */

#define ZRANGE_AUTO 0
#define ZRANGE_RANK 1
#define ZRANGE_SCORE 2
#define ZRANGE_LEX 3

#define ZRANGE_DIR_AUTO 0
#define ZRANGE_DIR_FORWARD 1
#define ZRANGE_DIR_REVERSE 2

/* A parsed ZRANGE request. */
typedef struct zrangeRequest {
    int type;           /* ZRANGE_RANK, _SCORE or _LEX */
    int reverse;        /* walk from the highest score */
    int withscores;     /* scores go to the sink (always for a store) */
    long long offset, limit; /* LIMIT; limit -1 means no limit */
    long long start, end;    /* by rank */
    zrangespec range;   /* by score */
    zlexrangespec lex;  /* by lex */
} zrangeRequest;

/* Parses the options after key, min and max. Returns C_OK, or C_ERR
 * after replying. A LIMIT with fewer than two arguments after it is a
 * syntax error like any unknown word, and so is WITHSCORES for
 * ZRANGESTORE (store). */
static int zrangeParseOptions(client *c, int argc_start, int store,
                              int *type, int *dir, zrangeRequest *req) {
    for (int j = argc_start + 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int left = c->argc - j - 1;
        if (!store && !strcasecmp(opt, "withscores")) {
            req->withscores = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &req->offset,
                                         NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &req->limit,
                                         NULL) != C_OK)
                return C_ERR;
            j += 2;
        } else if (*dir == ZRANGE_DIR_AUTO && !strcasecmp(opt, "rev")) {
            *dir = ZRANGE_DIR_REVERSE;
        } else if (*type == ZRANGE_AUTO && !strcasecmp(opt, "bylex")) {
            *type = ZRANGE_LEX;
        } else if (*type == ZRANGE_AUTO && !strcasecmp(opt, "byscore")) {
            *type = ZRANGE_SCORE;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    return C_OK;
}

/* Rejects option combinations Redis rejects. Note that Redis only sees
 * a LIMIT whose count is not -1, so "LIMIT 5 -1" passes with a rank
 * range and is ignored. Returns C_OK, or C_ERR after replying. */
static int zrangeCheckOptions(client *c, const zrangeRequest *req) {
    if (req->limit != -1 && req->type == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in "
                         "combination with either BYSCORE or BYLEX");
        return C_ERR;
    }
    if (req->withscores && req->type == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in "
                         "combination with BYLEX");
        return C_ERR;
    }
    return C_OK;
}

/* Parses the two range arguments. With REV, BYSCORE and BYLEX take them
 * as max then min; a rank range stays start then stop. Returns C_OK, or
 * C_ERR after replying. */
static int zrangeParseRange(client *c, int argc_start, zrangeRequest *req) {
    robj *a = c->argv[argc_start + 1], *b = c->argv[argc_start + 2];
    if (req->reverse && req->type != ZRANGE_RANK) {
        robj *t = a;
        a = b;
        b = t;
    }
    if (req->type == ZRANGE_RANK) {
        if (getLongFromObjectOrReply(c, a, &req->start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, b, &req->end, NULL) != C_OK)
            return C_ERR;
    } else if (req->type == ZRANGE_SCORE) {
        if (zslParseRange(a, b, &req->range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return C_ERR;
        }
    } else if (zslParseLexRange(a, b, &req->lex) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return C_ERR;
    }
    return C_OK;
}

/* Returns 1 if the client takes a member and its score as an array of
 * two (RESP3), 0 if they go flat in the enclosing array (RESP2). */
int zsetReplyNested(client *c) {
    return c->resp > 2;
}

/* Starts a reply of n members: an array of n, or with withscores, of 2n
 * in RESP2 (member, score, member, score ...) and of n pairs in RESP3.
 * Redis uses arrays of pairs rather than a map, which would not promise
 * the order. */
void zsetReplyArrayOfMembers(client *c, long n, int withscores) {
    addReplyArrayLen(c, withscores && !zsetReplyNested(c) ? n * 2 : n);
}

/* Replies with one member of such an array, then its score (a double in
 * RESP3) if asked, the two as a pair in RESP3. */
void zsetReplyMember(client *c, const char *ele, size_t len, double score,
                     int withscores) {
    if (withscores && zsetReplyNested(c)) addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, ele, len);
    if (withscores) addReplyDouble(c, score);
}

/* Where a range goes: to the client as the reply, or, for ZRANGESTORE,
 * into a new sorted set stored at dstkey. The walks below emit into a
 * sink without knowing which. */
typedef struct zrangeSink {
    client *c;
    robj *dstkey;       /* ZRANGESTORE's destination, NULL for a reply */
    robj *dstobj;       /* the sorted set being built */
    int withscores;
    void *slot;         /* the reply's deferred length, if not known */
} zrangeSink;

/* Starts the result: length members, or -1 if that is not known until
 * the walk ends. A store builds a listpack unless the length already
 * says it will be too many for one (ZRANGESTORE with
 * zset-max-listpack-entries 0 makes a skiplist right away); later
 * members convert it as ZADD would. */
static void zrangeSinkBegin(zrangeSink *k, long length) {
    redisServer *s = k->c->srv;
    if (k->dstkey) {
        if (length > (long)s->cfg.zset_max_listpack_entries)
            k->dstobj = createZsetObject(s);
        else
            k->dstobj = createZsetListpackObject(s);
    } else if (length < 0) {
        k->slot = addReplyDeferredLen(k->c);
    } else {
        zsetReplyArrayOfMembers(k->c, length, k->withscores);
    }
}

/* Emits one member with its score. */
static void zrangeSinkEmit(zrangeSink *k, const unsigned char *ele,
                           size_t len, double score) {
    redisServer *s = k->c->srv;
    s->denv.cpu_ns += COST_SEQ_NS;      /* one step of the walk */
    if (k->dstkey) {
        sds m = sdsnewlen(s->mem, ele, len);
        int out;
        double newscore;
        zsetAdd(s, k->dstobj, score, m, ZADD_IN_NONE, &out, &newscore);
        sdsfree(s->mem, m);
    } else {
        zsetReplyMember(k->c, (const char *)ele, len, score, k->withscores);
    }
}

/* Ends the result, count members long. A store with members replaces
 * dstkey (and its TTL) and replies the count; an empty one deletes
 * dstkey, which is then a change only if there was one. */
static void zrangeSinkEnd(zrangeSink *k, long count) {
    client *c = k->c;
    if (k->dstkey == NULL) {
        if (k->slot)
            setDeferredArrayLen(c, k->slot,
                k->withscores && !zsetReplyNested(c) ? count * 2 : count);
        return;
    }
    if (count) {
        setKey(c, c->db, k->dstkey, k->dstobj, 0);
        addReplyLongLong(c, count);
        notifyKeyspaceEvent(c->srv, NOTIFY_ZSET, "zrangestore", k->dstkey,
                            c->db->id);
        c->srv->dirty++;
    } else {
        addReplyLongLong(c, 0);
        if (dbDelete(c->srv, c->db, k->dstkey)) {
            signalModifiedKey(c, c->db, k->dstkey);
            notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", k->dstkey,
                                c->db->id);
            c->srv->dirty++;
        }
    }
    decrRefCount(c->srv, k->dstobj);
}

/* Emits the listpack pair at eptr, sptr. */
static void zrangeEmitListpack(zrangeSink *k, unsigned char *eptr,
                               unsigned char *sptr) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *m = zzlText(eptr, buf, &len);
    zrangeSinkEmit(k, m, len, k->withscores ? zzlGetScore(sptr) : 0);
}

/* Emits a skiplist node. */
static void zrangeEmitNode(zrangeSink *k, zskiplistNode *x) {
    zrangeSinkEmit(k, (const unsigned char *)x->ele, sdslen(x->ele),
                   x->score);
}

/* Replies with rangelen listpack pairs from rank start, walking down
 * from the top when reverse. */
static void zrangeRankListpack(zrangeSink *k, unsigned char *lp, long start,
                               long rangelen, const zrangeRequest *req) {
    unsigned char *eptr, *sptr;
    eptr = lpSeek(lp, req->reverse ? -2 - 2 * start : 2 * start);
    sptr = lpNext(lp, eptr);
    while (rangelen--) {
        zrangeEmitListpack(k, eptr, sptr);
        if (req->reverse) zzlPrev(lp, &eptr, &sptr);
        else zzlNext(lp, &eptr, &sptr);
    }
}

/* Replies with rangelen skiplist nodes from rank start: the first node
 * is found by rank in O(log N), the rest by following level 0. */
static void zrangeRankSkiplist(zrangeSink *k, zskiplist *zsl, long start,
                               long rangelen, const zrangeRequest *req) {
    zskiplistNode *x;
    redisServer *s = k->c->srv;
    if (req->reverse)
        x = start > 0 ? zslGetElementByRank(s, zsl, zsl->length - start)
                      : zsl->tail;
    else
        x = start > 0 ? zslGetElementByRank(s, zsl, (unsigned long)start + 1)
                      : zsl->header->level[0].forward;
    while (rangelen--) {
        zrangeEmitNode(k, x);
        x = req->reverse ? x->backward : x->level[0].forward;
    }
}

/* ZRANGE by rank. Negative indexes count from the end; the range is
 * clipped to the set, and an empty one replies an empty array. */
static void zrangeByRank(zrangeSink *k, robj *zobj,
                         const zrangeRequest *req) {
    long long llen = (long long)zsetLength(zobj), start = req->start;
    long long end = req->end;
    long rangelen;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        zrangeSinkBegin(k, 0);
        zrangeSinkEnd(k, 0);
        return;
    }
    if (end >= llen) end = llen - 1;
    rangelen = end - start + 1;
    zrangeSinkBegin(k, rangelen);
    if (zobj->encoding == OBJ_ENCODING_LISTPACK)
        zrangeRankListpack(k, zobj->v.ptr, start, rangelen, req);
    else
        zrangeRankSkiplist(k, ((zset *)zobj->v.ptr)->zsl, start, rangelen,
                           req);
    zrangeSinkEnd(k, rangelen);
}

/* Returns 1 if the listpack pair at (eptr, sptr) is still inside the far
 * end of the request's range: the end the walk is heading for. */
static int zrangeInsideListpack(unsigned char *eptr, unsigned char *sptr,
                                const zrangeRequest *req) {
    if (req->type == ZRANGE_LEX)
        return req->reverse ? zzlLexGteMin(eptr, &req->lex)
                            : zzlLexLteMax(eptr, &req->lex);
    return req->reverse ? zslValueGteMin(zzlGetScore(sptr), &req->range)
                        : zslValueLteMax(zzlGetScore(sptr), &req->range);
}

/* The same test for a skiplist node. */
static int zrangeInsideNode(zskiplistNode *x, const zrangeRequest *req) {
    if (req->type == ZRANGE_LEX)
        return req->reverse ? zslNodeLexGteMin(x, &req->lex)
                            : zslNodeLexLteMax(x, &req->lex);
    return req->reverse ? zslValueGteMin(x->score, &req->range)
                        : zslValueLteMax(x->score, &req->range);
}

/* Replies with the listpack pairs of a score or lex range, skipping
 * offset of them and stopping after limit. Returns how many it sent.
 *
 * Like Redis, it counts offset and limit down with a post-decrement, so
 * a negative offset skips everything and a negative limit never runs
 * out. */
static long zrangeGenericListpack(zrangeSink *k, unsigned char *lp,
                                  const zrangeRequest *req) {
    unsigned char *eptr, *sptr = NULL;
    long long offset = req->offset, limit = req->limit, sent = 0;
    if (req->type == ZRANGE_LEX)
        eptr = req->reverse ? zzlLastInLexRange(lp, &req->lex)
                            : zzlFirstInLexRange(lp, &req->lex);
    else
        eptr = req->reverse ? zzlLastInRange(lp, &req->range)
                            : zzlFirstInRange(lp, &req->range);
    if (eptr) sptr = lpNext(lp, eptr);
    while (eptr && offset--) {
        if (req->reverse) zzlPrev(lp, &eptr, &sptr);
        else zzlNext(lp, &eptr, &sptr);
    }
    for (; eptr && limit--; sent++) {
        if (!zrangeInsideListpack(eptr, sptr, req)) break;
        zrangeEmitListpack(k, eptr, sptr);
        if (req->reverse) zzlPrev(lp, &eptr, &sptr);
        else zzlNext(lp, &eptr, &sptr);
    }
    return sent;
}

/* The same walk over a skiplist. Returns how many members it sent. */
static long zrangeGenericSkiplist(zrangeSink *k, zskiplist *zsl,
                                  const zrangeRequest *req) {
    long long offset = req->offset, limit = req->limit, sent = 0;
    zskiplistNode *x;
    if (req->type == ZRANGE_LEX)
        x = req->reverse ? zslLastInLexRange(k->c->srv, zsl, &req->lex)
                         : zslFirstInLexRange(k->c->srv, zsl, &req->lex);
    else
        x = req->reverse ? zslLastInRange(k->c->srv, zsl, &req->range)
                         : zslFirstInRange(k->c->srv, zsl, &req->range);
    while (x && offset--)
        x = req->reverse ? x->backward : x->level[0].forward;
    for (; x && limit--; sent++) {
        if (!zrangeInsideNode(x, req)) break;
        zrangeEmitNode(k, x);
        x = req->reverse ? x->backward : x->level[0].forward;
    }
    return sent;
}

/* ZRANGE by score or lex. The number of results is not known until the
 * walk ends, so the array length is written afterwards, into a slot
 * reserved before the first element. An offset past the end replies an
 * empty array without walking. */
static void zrangeByScoreOrLex(zrangeSink *k, robj *zobj,
                               const zrangeRequest *req) {
    long sent = 0;
    zrangeSinkBegin(k, -1);
    if (!(req->offset > 0 &&
          req->offset >= (long long)zsetLength(zobj))) {
        if (zobj->encoding == OBJ_ENCODING_LISTPACK)
            sent = zrangeGenericListpack(k, zobj->v.ptr, req);
        else
            sent = zrangeGenericSkiplist(k, ((zset *)zobj->v.ptr)->zsl,
                                         req);
    }
    zrangeSinkEnd(k, sent);
}

/* Runs every form of ZRANGE, and ZRANGESTORE (dstkey not NULL). type
 * and dir are fixed by the older commands and ZRANGE_AUTO /
 * ZRANGE_DIR_AUTO for ZRANGE and ZRANGESTORE, whose options then choose.
 * The source key is argv[argc_start], the range follows. Arguments are
 * checked in Redis's order: options, their combination, the range, then
 * the key. A missing source stores nothing, which deletes dstkey. */
static void zrangeGenericCommand(client *c, robj *dstkey, int argc_start,
                                 int type, int dir) {
    zrangeSink sink = { c, dstkey, NULL, 0, NULL };
    zrangeRequest req;
    robj *zobj;
    memset(&req, 0, sizeof(req));
    req.limit = -1;
    if (zrangeParseOptions(c, argc_start, dstkey != NULL, &type, &dir,
                           &req) != C_OK)
        return;
    req.type = type == ZRANGE_AUTO ? ZRANGE_RANK : type;
    req.reverse = dir == ZRANGE_DIR_REVERSE;
    if (zrangeCheckOptions(c, &req) != C_OK) return;
    if (zrangeParseRange(c, argc_start, &req) != C_OK) return;
    sink.withscores = req.withscores || dstkey != NULL;
    if ((zobj = lookupKeyRead(c, c->argv[argc_start])) == NULL) {
        zrangeSinkBegin(&sink, dstkey ? -1 : 0);
        zrangeSinkEnd(&sink, 0);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    if (req.type == ZRANGE_RANK)
        zrangeByRank(&sink, zobj, &req);
    else
        zrangeByScoreOrLex(&sink, zobj, &req);
}

/* ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT o n] [WITHSCORES]. */
void zrangeCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_AUTO, ZRANGE_DIR_AUTO);
}

/* ZREVRANGE key start stop [WITHSCORES]. */
void zrevrangeCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_RANK, ZRANGE_DIR_REVERSE);
}

/* ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]. */
void zrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_SCORE, ZRANGE_DIR_FORWARD);
}

/* ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]. */
void zrevrangebyscoreCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_SCORE, ZRANGE_DIR_REVERSE);
}

/* ZRANGEBYLEX key min max [LIMIT offset count]. */
void zrangebylexCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_LEX, ZRANGE_DIR_FORWARD);
}

/* ZREVRANGEBYLEX key max min [LIMIT offset count]. */
void zrevrangebylexCommand(client *c) {
    zrangeGenericCommand(c, NULL, 1, ZRANGE_LEX, ZRANGE_DIR_REVERSE);
}

/* ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]:
 * stores the range that ZRANGE would reply with, scores included, and
 * replies with its length. Propagated as written. */
void zrangestoreCommand(client *c) {
    zrangeGenericCommand(c, c->argv[1], 2, ZRANGE_AUTO, ZRANGE_DIR_AUTO);
}
