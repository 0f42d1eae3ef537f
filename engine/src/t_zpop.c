/* t_zpop.c -- taking members out of a sorted set: ZREMRANGEBYRANK,
 * ZREMRANGEBYSCORE and ZREMRANGEBYLEX by range, ZPOPMIN, ZPOPMAX and
 * ZMPOP from either end.
 *
 * Every write here is propagated as the client sent it, except ZMPOP,
 * which the AOF receives as the ZPOPMIN or ZPOPMAX of the one key it
 * popped from, with the number of members it popped: replaying that
 * pops the same members without looking at the other keys. */
#include <string.h>
#include <strings.h>
#include "t_zset.h"

/* Replies that need no formatting, as the RESP2 bytes Redis sends. */
#define ZPOP_REPLY_ZERO ":0\r\n"

/* ==== ZREMRANGEBY* ==== */

#define ZREM_RANK 0
#define ZREM_SCORE 1
#define ZREM_LEX 2

/* A parsed ZREMRANGEBY* range. */
typedef struct zremRange {
    int type;               /* ZREM_RANK, _SCORE or _LEX */
    long long start, end;   /* by rank, 0-based, as given */
    zrangespec score;
    zlexrangespec lex;
} zremRange;

/* Parses argv[2] and argv[3] as the range type says. Returns C_OK, or
 * C_ERR after replying. */
static int zremParseRange(client *c, zremRange *r) {
    if (r->type == ZREM_RANK) {
        if (getLongFromObjectOrReply(c, c->argv[2], &r->start, NULL) != C_OK ||
            getLongFromObjectOrReply(c, c->argv[3], &r->end, NULL) != C_OK)
            return C_ERR;
    } else if (r->type == ZREM_SCORE) {
        if (zslParseRange(c->argv[2], c->argv[3], &r->score) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return C_ERR;
        }
    } else if (zslParseLexRange(c->argv[2], c->argv[3], &r->lex) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return C_ERR;
    }
    return C_OK;
}

/* Turns a rank range into 1-based ranks inside a set of llen members, as
 * ZRANGE clips it. Returns 0 if the range is empty. */
static int zremClipRanks(zremRange *r, long long llen) {
    if (r->start < 0) r->start += llen;
    if (r->end < 0) r->end += llen;
    if (r->start < 0) r->start = 0;
    if (r->start > r->end || r->start >= llen) return 0;
    if (r->end >= llen) r->end = llen - 1;
    return 1;
}

/* Runs the three ZREMRANGEBY* commands: the range is parsed before the
 * key is looked up, so a bad range is an error even for a missing key.
 * Replies with the number removed; the key goes with its last member. */
static void zremrangeGenericCommand(client *c, int type) {
    redisServer *s = c->srv;
    zremRange r;
    robj *zobj;
    unsigned long deleted;
    memset(&r, 0, sizeof(r));
    r.type = type;
    if (zremParseRange(c, &r) != C_OK) return;
    zobj = lookupKeyWriteOrReply(c, c->argv[1], ZPOP_REPLY_ZERO);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    if (type == ZREM_RANK) {
        if (!zremClipRanks(&r, (long long)zsetLength(zobj))) {
            addReplyProto(c, ZPOP_REPLY_ZERO, strlen(ZPOP_REPLY_ZERO));
            return;
        }
        deleted = zsetDeleteRangeByRank(s, zobj, (unsigned long)r.start + 1,
                                        (unsigned long)r.end + 1);
    } else if (type == ZREM_SCORE) {
        deleted = zsetDeleteRangeByScore(s, zobj, &r.score);
    } else {
        deleted = zsetDeleteRangeByLex(s, zobj, &r.lex);
    }
    if (deleted) {
        notifyKeyspaceEvent(s, NOTIFY_ZSET, type == ZREM_RANK
                            ? "zremrangebyrank" : type == ZREM_SCORE
                            ? "zremrangebyscore" : "zremrangebylex",
                            c->argv[1], c->db->id);
    }
    if (zsetLength(zobj) == 0) {
        dbDelete(s, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    if (deleted) signalModifiedKey(c, c->db, c->argv[1]);
    s->dirty += (long long)deleted;
    addReplyLongLong(c, (long long)deleted);
}

/* ZREMRANGEBYRANK key start stop */
void zremrangebyrankCommand(client *c) {
    zremrangeGenericCommand(c, ZREM_RANK);
}

/* ZREMRANGEBYSCORE key min max */
void zremrangebyscoreCommand(client *c) {
    zremrangeGenericCommand(c, ZREM_SCORE);
}

/* ZREMRANGEBYLEX key min max */
void zremrangebylexCommand(client *c) {
    zremrangeGenericCommand(c, ZREM_LEX);
}

/* ==== ZPOPMIN, ZPOPMAX and ZMPOP ==== */

/* Reads the member and score at the min or max end of a non-empty
 * sorted set into *ele (a new sds, the caller's) and *score. */
static void zsetPeekEnd(redisServer *s, robj *zobj, int where, sds *ele,
                        double *score) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = zobj->v.ptr, buf[LP_INTBUF_SIZE];
        unsigned char *eptr = lpSeek(lp, where == ZSET_MAX ? -2 : 0);
        size_t len;
        const unsigned char *m = zzlText(eptr, buf, &len);
        *ele = sdsnewlen(s->mem, m, len);
        *score = zzlGetScore(lpNext(lp, eptr));
    } else {
        zskiplist *zsl = ((zset *)zobj->v.ptr)->zsl;
        zskiplistNode *x = where == ZSET_MAX ? zsl->tail
                                             : zsl->header->level[0].forward;
        *ele = sdsdup(s->mem, x->ele);
        *score = x->score;
    }
}

/* Writes the header of a pop's reply for rangelen members, in the shape
 * the caller asked for (see genericZpopCommand). */
static void zpopReplyHeader(client *c, robj *key, long long rangelen,
                            int emitkey, int use_nested_array) {
    if (!emitkey) {
        addReplyArrayLen(c, use_nested_array ? rangelen : rangelen * 2);
    } else if (!use_nested_array) {
        addReplyArrayLen(c, rangelen * 2 + 1);
        addReplyBulk(c, key);
    } else {
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        addReplyArrayLen(c, rangelen);
    }
}

/* Pops up to count members from the min or max end (where) of the first
 * of keyv[0..keyc) that holds a sorted set, and replies with them,
 * member then score, in the order popped. This is the one pop that
 * ZPOPMIN, ZPOPMAX and ZMPOP run, and that the blocking BZPOPMIN,
 * BZPOPMAX and BZMPOP are to run on the key they were woken for.
 *
 *   count             the number to pop, or -1 for a plain single pop
 *                     (ZPOPMIN key, BZPOPMIN): the reply is then flat
 *   emitkey           put the key's name in the reply (ZMPOP, BZPOP*)
 *   use_nested_array  each pair as an array of two (RESP3 ZPOPMIN with
 *                     a count, ZMPOP and BZMPOP always), and with
 *                     emitkey the reply is [key, [[m, s], ...]]
 *   reply_nil_when_empty  a null array rather than an empty one when no
 *                     key holds a sorted set (ZMPOP, BZMPOP)
 *
 * A key of another type before the first sorted set is WRONGTYPE; the
 * keys after it are not looked at. A count of 0 pops nothing and replies
 * an empty array. Each member popped counts as one change; the key goes
 * with its last member.
 *
 * Returns the key popped from, or NULL if nothing was popped; *popped
 * (when not NULL) gets the number of members popped and *deleted (when
 * not NULL) whether the key is gone. The command itself is propagated
 * as it stands: a caller that pops on behalf of another command (ZMPOP,
 * the blocking ones) rewrites it as ZPOPMIN or ZPOPMAX of the returned
 * key with *popped as the count (zpopRewriteForPropagation). */
robj *genericZpopCommand(client *c, robj **keyv, int keyc, int where,
                         int emitkey, long long count, int use_nested_array,
                         int reply_nil_when_empty, long long *popped,
                         int *deleted) {
    redisServer *s = c->srv;
    robj *key = NULL, *zobj = NULL;
    long long rangelen;
    if (popped) *popped = 0;
    if (deleted) *deleted = 0;
    for (int j = 0; j < keyc && zobj == NULL; j++) {
        key = keyv[j];
        zobj = lookupKeyWrite(c, key);
        if (checkType(c, zobj, OBJ_ZSET)) return NULL;
    }
    if (zobj == NULL) {
        if (reply_nil_when_empty) addReplyNullArray(c);
        else addReplyArrayLen(c, 0);
        return NULL;
    }
    if (count == 0) {
        addReplyArrayLen(c, 0);
        return NULL;
    }
    if (count == -1) count = 1;
    rangelen = count > (long long)zsetLength(zobj)
                   ? (long long)zsetLength(zobj) : count;
    zpopReplyHeader(c, key, rangelen, emitkey, use_nested_array);
    for (long long n = 0; n < rangelen; n++) {
        sds ele;
        double score;
        zsetPeekEnd(s, zobj, where, &ele, &score);
        zsetDel(s, zobj, ele);
        s->dirty++;
        if (n == 0) {
            notifyKeyspaceEvent(s, NOTIFY_ZSET, where == ZSET_MIN
                                ? "zpopmin" : "zpopmax", key, c->db->id);
            signalModifiedKey(c, c->db, key);
        }
        if (use_nested_array) addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, ele, sdslen(ele));
        addReplyDouble(c, score);
        sdsfree(s->mem, ele);
    }
    if (popped) *popped = rangelen;
    if (zsetLength(zobj) == 0) {
        dbDelete(s, c->db, key);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", key, c->db->id);
        if (deleted) *deleted = 1;
    }
    return key;
}

/* Rewrites the command being run, for the AOF, as ZPOPMIN or ZPOPMAX
 * (where) of key with count, or without a count when count is -1 (what
 * BZPOPMIN and BZPOPMAX propagate as): what ZMPOP and the blocking pops
 * propagate as, since replaying it pops the same members from the same
 * key. */
void zpopRewriteForPropagation(client *c, robj *key, int where,
                               long long count) {
    redisServer *s = c->srv;
    robj *verb = createStringObject(s, where == ZSET_MAX ? "ZPOPMAX"
                                                         : "ZPOPMIN", 7);
    if (count < 0) {
        rewriteClientCommandVector(c, 2, verb, key);
    } else {
        robj *n = createStringObjectFromLongLong(s, count);
        rewriteClientCommandVector(c, 3, verb, key, n);
        decrRefCount(s, n);
    }
    decrRefCount(s, verb);
}

/* ZPOPMIN and ZPOPMAX key [count]. The count is checked before the key;
 * without it the reply is one flat pair, with it a flat list of pairs
 * (an array of pairs in RESP3). */
static void zpopMinMaxCommand(client *c, int where) {
    long long count = -1;
    if (c->argc > 3) {
        addReplyError(c, "syntax error");
        return;
    }
    if (c->argc == 3 &&
        getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL)
        != C_OK)
        return;
    genericZpopCommand(c, &c->argv[1], 1, where, 0, count,
                       zsetReplyNested(c) && count != -1, 0, NULL, NULL);
}

/* ZPOPMIN key [count] */
void zpopminCommand(client *c) {
    zpopMinMaxCommand(c, ZSET_MIN);
}

/* ZPOPMAX key [count] */
void zpopmaxCommand(client *c) {
    zpopMinMaxCommand(c, ZSET_MAX);
}

/* Parses ZMPOP's and BZMPOP's arguments from numkeys (at argv[idx]) on:
 * numkeys key [key ...] MIN|MAX [COUNT count]. Sets *numkeys, *where and
 * *count (1 without COUNT). Returns C_OK, or C_ERR after replying. */
int zmpopParseArgs(client *c, int idx, long long *numkeys, int *where,
                   long long *count) {
    long long where_idx;
    *count = -1;
    if (getRangeLongFromObjectOrReply(c, c->argv[idx], 1, LLONG_MAX,
            numkeys, "numkeys should be greater than 0") != C_OK)
        return C_ERR;
    where_idx = idx + *numkeys + 1;
    if (*numkeys >= c->argc || where_idx >= c->argc) {
        addReplyError(c, "syntax error");
        return C_ERR;
    }
    if (!strcasecmp(c->argv[where_idx]->v.ptr, "min")) {
        *where = ZSET_MIN;
    } else if (!strcasecmp(c->argv[where_idx]->v.ptr, "max")) {
        *where = ZSET_MAX;
    } else {
        addReplyError(c, "syntax error");
        return C_ERR;
    }
    for (int j = (int)where_idx + 1; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (*count == -1 && more && !strcasecmp(c->argv[j]->v.ptr, "count")) {
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, LLONG_MAX,
                    count, "count should be greater than 0") != C_OK)
                return C_ERR;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    if (*count == -1) *count = 1;
    return C_OK;
}

/* ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]: pops from the first
 * key that holds a sorted set and replies [key, [[member, score] ...]],
 * or a null array if none does. Propagated as ZPOPMIN or ZPOPMAX of that
 * key with the number popped. */
void zmpopCommand(client *c) {
    long long numkeys, count, popped;
    int where;
    robj *key;
    if (zmpopParseArgs(c, 1, &numkeys, &where, &count) != C_OK) return;
    key = genericZpopCommand(c, c->argv + 2, (int)numkeys, where, 1, count,
                             1, 1, &popped, NULL);
    if (key != NULL) {
        incrRefCount(key);
        zpopRewriteForPropagation(c, key, where, popped);
        decrRefCount(c->srv, key);
    }
}

/* ==== BZPOPMIN, BZPOPMAX and BZMPOP ==== */

/* Pops as ZPOPMIN/ZPOPMAX (count -1) or ZMPOP would from the first of
 * keys[0..numkeys) that holds a non-empty sorted set, propagated as
 * ZPOPMIN or ZPOPMAX of that key (with the number popped for BZMPOP); a
 * key of another type first is WRONGTYPE. If none does, the client
 * blocks on all of them until the timeout at argv[timeout_idx] -- or,
 * where it may not block (MULTI), replies a null array at once. */
static void blockingZpopGenericCommand(client *c, robj **keys, int numkeys,
                                       int where, int timeout_idx,
                                       long long count, int nested) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout)
        != C_OK) return;
    for (int j = 0; j < numkeys; j++) {
        robj *key = keys[j];
        robj *o = lookupKeyWrite(c, key);
        if (!o) continue;
        if (checkType(c, o, OBJ_ZSET)) return;
        if (zsetLength(o) == 0) continue;
        long long popped;
        incrRefCount(key);
        genericZpopCommand(c, &key, 1, where, 1, count, nested, nested,
                           &popped, NULL);
        zpopRewriteForPropagation(c, key, where, count == -1 ? -1 : popped);
        decrRefCount(c->srv, key);
        return;
    }
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_ZSET, keys, numkeys, count, timeout, NULL, where,
                 0);
}

/* Serves a client blocked by BZPOPMIN, BZPOPMAX or BZMPOP on key, which
 * now holds the non-empty sorted set o: propagated first as ZPOPMIN or
 * ZPOPMAX key (BZMPOP: with the number it will pop), then popped and
 * replied to as the command would have done at once. Returns 1 if the
 * key was deleted. */
int serveClientBlockedOnSortedSet(client *rc, robj *o, robj *key,
                                  redisDb *db) {
    redisServer *s = rc->srv;
    int where = rc->bpop.wherefrom, deleted;
    long long count = rc->bpop.count, llen = (long long)zsetLength(o);
    int nested = rc->lastcmd && rc->lastcmd->proc == bzmpopCommand;
    robj *argv[3] = { createStringObject(s, where == ZSET_MAX ? "ZPOPMAX"
                                                              : "ZPOPMIN", 7),
                      key, NULL };
    int argc = 2;
    if (count != -1)
        argv[argc++] = createStringObjectFromLongLong(s, count > llen ? llen
                                                                      : count);
    alsoPropagate(s, db->id, argv, argc);
    decrRefCount(s, argv[0]);
    if (argc == 3) decrRefCount(s, argv[2]);
    genericZpopCommand(rc, &key, 1, where, 1, count, nested, nested, NULL,
                       &deleted);
    return deleted;
}

/* BZPOPMIN key [key ...] timeout */
void bzpopminCommand(client *c) {
    blockingZpopGenericCommand(c, c->argv + 1, c->argc - 2, ZSET_MIN,
                               c->argc - 1, -1, 0);
}

/* BZPOPMAX key [key ...] timeout */
void bzpopmaxCommand(client *c) {
    blockingZpopGenericCommand(c, c->argv + 1, c->argc - 2, ZSET_MAX,
                               c->argc - 1, -1, 0);
}

/* BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] */
void bzmpopCommand(client *c) {
    long long numkeys, count;
    int where;
    if (zmpopParseArgs(c, 2, &numkeys, &where, &count) != C_OK) return;
    blockingZpopGenericCommand(c, c->argv + 3, (int)numkeys, where, 1, count,
                               1);
}
