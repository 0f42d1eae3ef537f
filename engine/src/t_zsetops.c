/* t_zsetops.c -- operations across sorted sets: ZUNION, ZINTER, ZDIFF,
 * their STORE forms and ZINTERCARD.
 *
 * The inputs may be sorted sets or plain sets; a set's members all count
 * with score 1. Each input's scores are multiplied by its WEIGHT, and a
 * member found in several inputs gets the SUM (the default), MIN or MAX
 * of its weighted scores. A sum of +inf and -inf, which IEEE makes NaN,
 * is taken as 0, so a sorted set never holds a NaN score.
 *
 * Every result is first built as a skiplist sorted set, which keeps the
 * members sorted whatever order they are found in. The STORE forms then
 * convert it to a listpack when it is small enough, with the same limits
 * as ZADD, and store it, replacing whatever the destination held (its
 * TTL too); an empty result deletes the destination instead. They are
 * propagated as written: the inputs are in the dataset the AOF replays,
 * so replaying the command gives the same result.
 *
 * The inputs are walked with a small iterator (zsetopIter) that yields
 * each member as bytes with its score, whatever the type and encoding:
 * intset members are written out as decimal text. Sorted sets are walked
 * from the highest score down, as Redis walks them; only the order
 * ZRANDMEMBER replies in shows it.
 *
 * ZRANDMEMBER is here too, for it walks a sorted set the same way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "t_zset.h"
#include "intset.h"

#define ZSETOP_UNION 0
#define ZSETOP_INTER 1
#define ZSETOP_DIFF 2

#define ZSETOP_AGGR_SUM 1
#define ZSETOP_AGGR_MIN 2
#define ZSETOP_AGGR_MAX 3

/* One input: a set, a sorted set, or NULL for a missing key. */
typedef struct zsetopsrc {
    robj *subject;
    double weight;          /* WEIGHTS, 1 by default */
} zsetopsrc;

/* A member yielded by an iterator. ele is an sds the iterator rewrites
 * for every member (a lookup in a dict needs an sds); score is the
 * member's score in its input, before the weight. */
typedef struct zsetopval {
    sds ele;
    double score;
} zsetopval;

/* An iterator over one input, any type and encoding. */
typedef struct zsetopIter {
    zsetopsrc *src;
    uint32_t ii;                /* intset: the next position */
    dictIterator *di;           /* hashtable set */
    unsigned char *eptr, *sptr; /* listpack: the next pair, going down */
    zskiplistNode *node;        /* skiplist: the next node, going down */
} zsetopIter;

/* Returns the number of members of an input, 0 for a missing key. */
static unsigned long zuiLength(const zsetopsrc *op) {
    if (op->subject == NULL) return 0;
    if (op->subject->type == OBJ_SET) return setTypeSize(op->subject);
    return zsetLength(op->subject);
}

/* Starts an iteration over op's members. */
static void zuiInitIterator(zsetopIter *it, zsetopsrc *op) {
    robj *o = op->subject;
    memset(it, 0, sizeof(*it));
    it->src = op;
    if (o == NULL) return;
    if (o->type == OBJ_SET && o->encoding == OBJ_ENCODING_HT) {
        it->di = dictGetIterator(o->v.ptr);
    } else if (o->type == OBJ_ZSET &&
               o->encoding == OBJ_ENCODING_LISTPACK) {
        it->eptr = lpSeek(o->v.ptr, -2);
        if (it->eptr) it->sptr = lpNext(o->v.ptr, it->eptr);
    } else if (o->type == OBJ_ZSET) {
        it->node = ((zset *)o->v.ptr)->zsl->tail;
    }
}

/* Ends an iteration. */
static void zuiClearIterator(zsetopIter *it) {
    if (it->di) dictReleaseIterator(it->di);
    it->di = NULL;
}

/* Writes the len bytes at p into the value's sds. */
static void zuiSetValue(redisServer *s, zsetopval *val, const void *p,
                        size_t len) {
    sdsclear(val->ele);
    val->ele = sdscatlen(s->mem, val->ele, p, len);
}

/* Moves to the next member and fills val. Returns 0 past the last. */
static int zuiNext(redisServer *s, zsetopIter *it, zsetopval *val) {
    robj *o = it->src->subject;
    if (o == NULL) return 0;
    if (o->type == OBJ_SET) {
        int64_t v;
        char buf[LONG_STR_SIZE];
        dictEntry *de;
        val->score = 1.0;
        if (o->encoding == OBJ_ENCODING_INTSET) {
            if (!intsetGet(o->v.ptr, it->ii++, &v)) return 0;
            zuiSetValue(s, val, buf, (size_t)ll2string(buf, sizeof(buf), v));
            return 1;
        }
        if ((de = dictNext(it->di)) == NULL) return 0;
        zuiSetValue(s, val, dictGetKey(de), sdslen(dictGetKey(de)));
        return 1;
    }
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char buf[LP_INTBUF_SIZE];
        const unsigned char *m;
        size_t len;
        if (it->eptr == NULL) return 0;
        m = zzlText(it->eptr, buf, &len);
        zuiSetValue(s, val, m, len);
        val->score = zzlGetScore(it->sptr);
        it->sptr = lpPrev(o->v.ptr, it->eptr);
        it->eptr = it->sptr ? lpPrev(o->v.ptr, it->sptr) : NULL;
        return 1;
    }
    if (it->node == NULL) return 0;
    zuiSetValue(s, val, it->node->ele, sdslen(it->node->ele));
    val->score = it->node->score;
    it->node = it->node->backward;
    return 1;
}

/* Looks val's member up in op. Returns 1 and sets *score (1 for a set)
 * if it is there, else 0. An intset can only hold what string2ll
 * accepts, so anything else is not looked for. */
static int zuiFind(redisServer *s, zsetopsrc *op, const zsetopval *val,
                   double *score) {
    robj *o = op->subject;
    long long v;
    if (o == NULL) return 0;
    if (o->type == OBJ_SET) {
        *score = 1.0;
        if (o->encoding == OBJ_ENCODING_INTSET)
            return string2ll(val->ele, sdslen(val->ele), &v) &&
                   intsetFind(o->v.ptr, v);
        return dictFind(o->v.ptr, val->ele) != NULL;
    }
    return zsetScore(s, o, val->ele, score) == C_OK;
}

/* qsort orders: by number of members, smallest first or largest first. */
static int zuiCompareByCardinality(const void *a, const void *b) {
    unsigned long first = zuiLength(a), second = zuiLength(b);
    return first > second ? 1 : first < second ? -1 : 0;
}

static int zuiCompareByRevCardinality(const void *a, const void *b) {
    return -zuiCompareByCardinality(a, b);
}

/* Folds val into *target as AGGREGATE says. */
static void zunionInterAggregate(double *target, double val, int aggregate) {
    if (aggregate == ZSETOP_AGGR_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0.0;  /* +inf + -inf */
    } else if (aggregate == ZSETOP_AGGR_MIN) {
        *target = val < *target ? val : *target;
    } else {
        *target = val > *target ? val : *target;
    }
}

/* The result being built: a skiplist sorted set, with the length of its
 * longest member and of all of them, for the listpack conversion. */
typedef struct zsetopDst {
    robj *obj;
    zset *zs;
    size_t maxelelen, totelelen;
} zsetopDst;

/* Adds ele, which the result then owns, with score. */
static void zsetopDstAdd(redisServer *s, zsetopDst *dst, sds ele,
                         double score) {
    zskiplistNode *node = zslInsert(s, dst->zs->zsl, score, ele);
    dictAdd(dst->zs->dict, ele, &node->score);
    dst->totelelen += sdslen(ele);
    if (sdslen(ele) > dst->maxelelen) dst->maxelelen = sdslen(ele);
}

/* ==== The three operations ==== */

/* ZINTER: walks the smallest input (src is sorted by size) and keeps the
 * members every other input has, O(N*K) for N members in the smallest
 * of K inputs. With cardonly, only counts them, stopping at limit (0 for
 * none). Returns the count. The same key given twice is the same object:
 * it is not searched while it is being walked, its score is used. */
static unsigned long zsetopInter(redisServer *s, zsetopsrc *src,
                                 long setnum, int aggregate, int cardonly,
                                 long long limit, zsetopDst *dst) {
    zsetopIter it;
    zsetopval val = { sdsempty(s->mem), 0 };
    unsigned long cardinality = 0;
    if (zuiLength(&src[0]) > 0) {
        zuiInitIterator(&it, &src[0]);
        while (zuiNext(s, &it, &val)) {
            double score = src[0].weight * val.score, value;
            long j;
            if (isnan(score)) score = 0;
            for (j = 1; j < setnum; j++) {
                if (src[j].subject == src[0].subject)
                    value = val.score;
                else if (!zuiFind(s, &src[j], &val, &value))
                    break;
                zunionInterAggregate(&score, value * src[j].weight,
                                     aggregate);
            }
            if (j < setnum) continue;
            cardinality++;
            if (cardonly) {
                if (limit && cardinality >= (unsigned long long)limit) break;
            } else {
                zsetopDstAdd(s, dst, sdsdup(s->mem, val.ele), score);
            }
        }
        zuiClearIterator(&it);
    }
    sdsfree(s->mem, val.ele);
    return cardinality;
}

/* ZUNION: accumulates member -> aggregated score in a dict, input after
 * input, then moves every entry into the result. The dict starts sized
 * for the largest input (src is sorted by size), which the union is at
 * least, and the result's dict for the union, so neither rehashes on the
 * way. */
static void zsetopUnion(redisServer *s, zsetopsrc *src, long setnum,
                        int aggregate, zsetopDst *dst) {
    dict *acc = dictCreate(&zsetDictType, &s->denv);
    zsetopval val = { sdsempty(s->mem), 0 };
    dictIterator *di;
    dictEntry *de, *existing;
    zsetopIter it;
    dictExpand(acc, zuiLength(&src[setnum - 1]));
    for (long i = 0; i < setnum; i++) {
        if (zuiLength(&src[i]) == 0) continue;
        zuiInitIterator(&it, &src[i]);
        while (zuiNext(s, &it, &val)) {
            double score = src[i].weight * val.score;
            if (isnan(score)) score = 0;
            de = dictAddRaw(acc, val.ele, &existing);
            if (existing) {
                zunionInterAggregate(&existing->v.d, score, aggregate);
                continue;
            }
            de->key = sdsdup(s->mem, val.ele);
            dictSetDoubleVal(de, score);
        }
        zuiClearIterator(&it);
    }
    sdsfree(s->mem, val.ele);
    dictExpand(dst->zs->dict, dictSize(acc));
    di = dictGetIterator(acc);
    while ((de = dictNext(di)) != NULL)
        zsetopDstAdd(s, dst, dictGetKey(de), dictGetDoubleVal(de));
    dictReleaseIterator(di);
    dictRelease(acc);
}

/* ZDIFF, algorithm 1: walks the first input and keeps the members no
 * other input has, O(N*M + K*log(K)) for N members in the first of M
 * inputs and K in the result. The others are searched largest first, as
 * a member is then likelier to be found early. */
static void zdiffAlgorithm1(redisServer *s, zsetopsrc *src, long setnum,
                            zsetopDst *dst) {
    zsetopval val = { sdsempty(s->mem), 0 };
    zsetopIter it;
    double value;
    qsort(src + 1, (size_t)(setnum - 1), sizeof(zsetopsrc),
          zuiCompareByRevCardinality);
    zuiInitIterator(&it, &src[0]);
    while (zuiNext(s, &it, &val)) {
        long j;
        for (j = 1; j < setnum; j++)
            if (src[j].subject == src[0].subject ||
                zuiFind(s, &src[j], &val, &value))
                break;
        if (j == setnum)
            zsetopDstAdd(s, dst, sdsdup(s->mem, val.ele), val.score);
    }
    zuiClearIterator(&it);
    sdsfree(s->mem, val.ele);
}

/* Measures the members left in the result after algorithm 2. */
static void zsetopDstMeasure(zsetopDst *dst) {
    dictIterator *di = dictGetIterator(dst->zs->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        size_t len = sdslen(dictGetKey(de));
        dst->totelelen += len;
        if (len > dst->maxelelen) dst->maxelelen = len;
    }
    dictReleaseIterator(di);
}

/* ZDIFF, algorithm 2: copies the first input into the result, then
 * removes every member of every other input from it, O(L + (N-K)log(N))
 * for L members in all the inputs. It stops as soon as the result is
 * empty. The lengths are measured at the end, when the survivors are
 * known. */
static void zdiffAlgorithm2(redisServer *s, zsetopsrc *src, long setnum,
                            zsetopDst *dst) {
    zsetopval val = { sdsempty(s->mem), 0 };
    zsetopIter it;
    long cardinality = 0;
    for (long j = 0; j < setnum; j++) {
        if (zuiLength(&src[j]) == 0) continue;
        zuiInitIterator(&it, &src[j]);
        while (zuiNext(s, &it, &val)) {
            if (j == 0) {
                zsetopDstAdd(s, dst, sdsdup(s->mem, val.ele), val.score);
                cardinality++;
            } else {
                cardinality -= zsetRemoveFromSkiplist(s, dst->zs, val.ele);
            }
            if (cardinality == 0) break;
        }
        zuiClearIterator(&it);
        if (cardinality == 0) break;
    }
    sdsfree(s->mem, val.ele);
    if (dictNeedsShrink(dst->zs->dict)) dictResize(dst->zs->dict);
    dst->maxelelen = dst->totelelen = 0;
    zsetopDstMeasure(dst);
}

/* Picks the ZDIFF algorithm as Redis 7.0 does: 0 when a later input is
 * the first one itself (the result is empty), else 1 when half of N*M
 * is at most L, else 2. Algorithm 1's constant factors are better,
 * hence the halving. */
static int zsetChooseDiffAlgorithm(zsetopsrc *src, long setnum) {
    long long algo_one_work = 0, algo_two_work = 0;
    for (long j = 0; j < setnum; j++) {
        if (j > 0 && src[0].subject == src[j].subject) return 0;
        algo_one_work += (long long)zuiLength(&src[0]);
        algo_two_work += (long long)zuiLength(&src[j]);
    }
    algo_one_work /= 2;
    return algo_one_work <= algo_two_work ? 1 : 2;
}

/* ZDIFF: nothing to do when the first input is empty. */
static void zsetopDiff(redisServer *s, zsetopsrc *src, long setnum,
                       zsetopDst *dst) {
    int algo;
    if (zuiLength(&src[0]) == 0) return;
    algo = zsetChooseDiffAlgorithm(src, setnum);
    if (algo == 1) zdiffAlgorithm1(s, src, setnum, dst);
    else if (algo == 2) zdiffAlgorithm2(s, src, setnum, dst);
}

/* ==== The commands ==== */

/* The options after the keys. */
typedef struct zsetopOptions {
    int aggregate;          /* ZSETOP_AGGR_* */
    int withscores;
    long long limit;        /* ZINTERCARD's LIMIT, 0 for none */
} zsetopOptions;

/* Looks up the setnum keys from argv[first] on. Returns the inputs, with
 * weight 1, or NULL after replying WRONGTYPE for a key that is neither
 * a set nor a sorted set. */
static zsetopsrc *zsetopLookupInputs(client *c, int first, long setnum) {
    zsetopsrc *src = memAlloc(c->srv->mem, sizeof(*src) * (size_t)setnum);
    for (long i = 0; i < setnum; i++) {
        robj *o = lookupKeyRead(c, c->argv[first + i]);
        if (o != NULL && o->type != OBJ_ZSET && o->type != OBJ_SET) {
            memFree(c->srv->mem, src);
            checkType(c, o, OBJ_ZSET);
            return NULL;
        }
        src[i].subject = o;
        src[i].weight = 1.0;
    }
    return src;
}

/* Parses WEIGHTS, AGGREGATE, WITHSCORES and LIMIT from argv[j] on, each
 * only where the command takes it. Returns C_OK, or C_ERR after
 * replying. */
static int zsetopParseOptions(client *c, int j, zsetopsrc *src,
                              long setnum, int op, int store, int cardonly,
                              zsetopOptions *opt) {
    int combining = op != ZSETOP_DIFF && !cardonly;
    while (j < c->argc) {
        const char *arg = c->argv[j]->v.ptr;
        long remaining = c->argc - j;
        if (combining && remaining >= setnum + 1 &&
            !strcasecmp(arg, "weights")) {
            for (long i = 0; i < setnum; i++)
                if (getDoubleFromObjectOrReply(c, c->argv[++j],
                        &src[i].weight, "weight value is not a float")
                    != C_OK)
                    return C_ERR;
            j++;
        } else if (combining && remaining >= 2 &&
                   !strcasecmp(arg, "aggregate")) {
            const char *how = c->argv[j + 1]->v.ptr;
            if (!strcasecmp(how, "sum")) opt->aggregate = ZSETOP_AGGR_SUM;
            else if (!strcasecmp(how, "min")) opt->aggregate = ZSETOP_AGGR_MIN;
            else if (!strcasecmp(how, "max")) opt->aggregate = ZSETOP_AGGR_MAX;
            else break;
            j += 2;
        } else if (!store && !cardonly && !strcasecmp(arg, "withscores")) {
            opt->withscores = 1;
            j++;
        } else if (cardonly && remaining >= 2 && !strcasecmp(arg, "limit")) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[j + 1],
                    &opt->limit, "LIMIT can't be negative") != C_OK)
                return C_ERR;
            j += 2;
        } else {
            break;
        }
    }
    if (j == c->argc) return C_OK;
    addReplyError(c, "syntax error");
    return C_ERR;
}

/* Stores the result at dstkey, or deletes dstkey if the result is empty,
 * and replies with the result's length. The event is the command's
 * (zunionstore ...), or "del" for a deletion. */
static void zsetopStore(client *c, robj *dstkey, zsetopDst *dst, int op) {
    redisServer *s = c->srv;
    unsigned long len = dst->zs->zsl->length;
    if (len == 0) {
        addReplyLongLong(c, 0);
        if (dbDelete(s, c->db, dstkey)) {
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", dstkey, c->db->id);
            s->dirty++;
        }
        return;
    }
    zsetConvertToListpackIfNeeded(s, dst->obj, dst->maxelelen,
                                  dst->totelelen);
    setKey(c, c->db, dstkey, dst->obj, 0);
    addReplyLongLong(c, (long long)len);
    notifyKeyspaceEvent(s, NOTIFY_ZSET, op == ZSETOP_UNION ? "zunionstore"
                        : op == ZSETOP_INTER ? "zinterstore" : "zdiffstore",
                        dstkey, c->db->id);
    s->dirty++;
}

/* Replies with the result, lowest score first, with the scores when
 * asked. */
static void zsetopReply(client *c, zsetopDst *dst, int withscores) {
    zskiplistNode *x = dst->zs->zsl->header->level[0].forward;
    zsetReplyArrayOfMembers(c, (long)dst->zs->zsl->length, withscores);
    for (; x != NULL; x = x->level[0].forward)
        zsetReplyMember(c, x->ele, sdslen(x->ele), x->score, withscores);
}

/* Runs ZUNION, ZINTER, ZDIFF, their STORE forms (dstkey not NULL) and
 * ZINTERCARD (cardonly). numkeys is at argv[numkeys_idx], the keys
 * follow. Arguments are checked in Redis's order: numkeys, the keys'
 * types, then the options. */
static void zunionInterDiffGenericCommand(client *c, robj *dstkey,
                                          int numkeys_idx, int op,
                                          int cardonly) {
    redisServer *s = c->srv;
    zsetopOptions opt = { ZSETOP_AGGR_SUM, 0, 0 };
    zsetopDst dst = { NULL, NULL, 0, 0 };
    unsigned long card = 0;
    zsetopsrc *src;
    long long setnum;
    if (getLongFromObjectOrReply(c, c->argv[numkeys_idx], &setnum, NULL)
        != C_OK)
        return;
    if (setnum < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for "
                               "'%s' command", c->cmd->fullname);
        return;
    }
    if (setnum > c->argc - (numkeys_idx + 1)) {
        addReplyError(c, "syntax error");
        return;
    }
    if ((src = zsetopLookupInputs(c, numkeys_idx + 1, setnum)) == NULL)
        return;
    if (zsetopParseOptions(c, numkeys_idx + 1 + (int)setnum, src, setnum,
                           op, dstkey != NULL, cardonly, &opt) != C_OK)
        goto cleanup;
    if (op != ZSETOP_DIFF)
        qsort(src, (size_t)setnum, sizeof(zsetopsrc),
              zuiCompareByCardinality);
    dst.obj = createZsetObject(s);
    dst.zs = dst.obj->v.ptr;
    if (op == ZSETOP_INTER)
        card = zsetopInter(s, src, setnum, opt.aggregate, cardonly,
                           opt.limit, &dst);
    else if (op == ZSETOP_UNION)
        zsetopUnion(s, src, setnum, opt.aggregate, &dst);
    else
        zsetopDiff(s, src, setnum, &dst);
    if (dstkey)
        zsetopStore(c, dstkey, &dst, op);
    else if (cardonly)
        addReplyLongLong(c, (long long)card);
    else
        zsetopReply(c, &dst, opt.withscores);
    decrRefCount(s, dst.obj);
cleanup:
    memFree(s->mem, src);
}

/* ZUNIONSTORE dst numkeys key [key ...] [WEIGHTS w ...]
 * [AGGREGATE SUM|MIN|MAX] */
void zunionstoreCommand(client *c) {
    zunionInterDiffGenericCommand(c, c->argv[1], 2, ZSETOP_UNION, 0);
}

/* ZINTERSTORE dst numkeys key [key ...] [WEIGHTS w ...]
 * [AGGREGATE SUM|MIN|MAX] */
void zinterstoreCommand(client *c) {
    zunionInterDiffGenericCommand(c, c->argv[1], 2, ZSETOP_INTER, 0);
}

/* ZDIFFSTORE dst numkeys key [key ...] */
void zdiffstoreCommand(client *c) {
    zunionInterDiffGenericCommand(c, c->argv[1], 2, ZSETOP_DIFF, 0);
}

/* ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX]
 * [WITHSCORES] */
void zunionCommand(client *c) {
    zunionInterDiffGenericCommand(c, NULL, 1, ZSETOP_UNION, 0);
}

/* ZINTER numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX]
 * [WITHSCORES] */
void zinterCommand(client *c) {
    zunionInterDiffGenericCommand(c, NULL, 1, ZSETOP_INTER, 0);
}

/* ZDIFF numkeys key [key ...] [WITHSCORES] */
void zdiffCommand(client *c) {
    zunionInterDiffGenericCommand(c, NULL, 1, ZSETOP_DIFF, 0);
}

/* ZINTERCARD numkeys key [key ...] [LIMIT limit]: the size of the
 * intersection, counting stopped at limit. */
void zintercardCommand(client *c) {
    zunionInterDiffGenericCommand(c, NULL, 1, ZSETOP_INTER, 1);
}

/* ==== ZRANDMEMBER ====
 *
 * ZRANDMEMBER key [count [WITHSCORES]] picks members at random, as Redis
 * 7.0 does, by one of four strategies:
 *
 *   1. a negative count (repeats allowed), or a count of 1: count
 *      independent draws, each a fair pick of the dict in a skiplist,
 *      and in a listpack batches of up to 1000 random positions, sorted
 *      so that one walk of the listpack finds them all;
 *   2. a count at least the set's size: the whole set;
 *   3. a count more than a third of the size: a dict of every member,
 *      from which random members are dropped until count are left;
 *   4. a smaller count: in a listpack one selection-sampling walk (each
 *      pair kept with probability needed / left), in a skiplist fair
 *      picks of the dict, the repeats discarded, until count are found.
 *
 * The draws come from the server's seeded PRNG. */

#define ZRANDMEMBER_SUB_STRATEGY_MUL 3
#define ZRANDMEMBER_RANDOM_SAMPLE_LIMIT 1000

/* A random listpack position (a member's), kept with the order it was
 * drawn in. */
typedef struct zrandPick {
    unsigned long index;
    unsigned long order;
} zrandPick;

static int zrandPickCompare(const void *a, const void *b) {
    const zrandPick *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Fills picks[0..count) with the member elements of count pairs drawn at
 * random (with repeats) from a listpack of size pairs, in the order
 * drawn. */
static void zzlRandomPairs(redisServer *s, unsigned char *lp,
                           unsigned long size, unsigned long count,
                           unsigned char **picks) {
    zrandPick *p = memAlloc(s->mem, sizeof(*p) * count);
    unsigned char *eptr = lpFirst(lp);
    unsigned long lpindex = 0, k = 0;
    for (unsigned long i = 0; i < count; i++) {
        p[i].index = rngNext(s->denv.rng) % size;
        p[i].order = i;
    }
    qsort(p, count, sizeof(*p), zrandPickCompare);
    for (; k < count && eptr; lpindex++) {
        while (k < count && p[k].index == lpindex)
            picks[p[k++].order] = eptr;
        eptr = lpNext(lp, lpNext(lp, eptr));
    }
    memFree(s->mem, p);
}

/* Fills picks with the member elements of count distinct pairs of a
 * listpack of size pairs (count < size), in listpack order: each pair is
 * kept with probability (still needed) / (still left). */
static void zzlRandomPairsUnique(redisServer *s, unsigned char *lp,
                                 unsigned long size, unsigned long count,
                                 unsigned char **picks) {
    unsigned char *eptr = lpFirst(lp);
    unsigned long picked = 0;
    for (unsigned long i = 0; picked < count && eptr; i++) {
        double threshold = (double)(count - picked) / (double)(size - i);
        if (rngDouble(s->denv.rng) <= threshold) picks[picked++] = eptr;
        eptr = lpNext(lp, lpNext(lp, eptr));
    }
}

/* Replies with the listpack member at eptr and its score. */
static void zrandReplyListpack(client *c, unsigned char *lp,
                               unsigned char *eptr, int withscores) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *m = zzlText(eptr, buf, &len);
    zsetReplyMember(c, (const char *)m, len,
                    withscores ? zzlGetScore(lpNext(lp, eptr)) : 0,
                    withscores);
}

/* Strategy 1: count draws with repeats. */
static void zrandWithRepeats(client *c, robj *zobj, unsigned long count,
                             int withscores) {
    redisServer *s = c->srv;
    zsetReplyArrayOfMembers(c, (long)count, withscores);
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        dict *d = ((zset *)zobj->v.ptr)->dict;
        while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
            dictEntry *de = dictGetFairRandomKey(d);
            sds ele = dictGetKey(de);
            zsetReplyMember(c, ele, sdslen(ele), *(double *)dictGetVal(de),
                            withscores);
        }
        return;
    }
    unsigned long limit = count > ZRANDMEMBER_RANDOM_SAMPLE_LIMIT
                              ? ZRANDMEMBER_RANDOM_SAMPLE_LIMIT : count;
    unsigned char **picks = memAlloc(s->mem, sizeof(*picks) * limit);
    unsigned long size = zsetLength(zobj);
    while (count && !(c->flags & CLIENT_CLOSE_ASAP)) {
        unsigned long n = count > limit ? limit : count;
        count -= n;
        zzlRandomPairs(s, zobj->v.ptr, size, n, picks);
        for (unsigned long i = 0; i < n; i++)
            zrandReplyListpack(c, zobj->v.ptr, picks[i], withscores);
    }
    memFree(s->mem, picks);
}

/* Strategy 2: the whole set, walked from the highest score down. */
static void zrandWholeSet(client *c, robj *zobj, int withscores) {
    zsetopsrc src = { zobj, 1.0 };
    zsetopval val = { sdsempty(c->srv->mem), 0 };
    zsetopIter it;
    zuiInitIterator(&it, &src);
    while (zuiNext(c->srv, &it, &val))
        zsetReplyMember(c, val.ele, sdslen(val.ele), val.score, withscores);
    zuiClearIterator(&it);
    sdsfree(c->srv->mem, val.ele);
}

/* Strategy 3: every member into a dict, random ones out until count are
 * left, then the dict's members in its order. */
static void zrandBySubtraction(client *c, robj *zobj, unsigned long count,
                               int withscores) {
    redisServer *s = c->srv;
    dict *d = dictCreate(&setDictType, &s->denv);
    unsigned long size = zsetLength(zobj);
    zsetopsrc src = { zobj, 1.0 };
    zsetopval val = { sdsempty(s->mem), 0 };
    zsetopIter it;
    dictIterator *di;
    dictEntry *de;
    dictExpand(d, size);
    zuiInitIterator(&it, &src);
    while (zuiNext(s, &it, &val)) {
        de = dictAddRaw(d, sdsdup(s->mem, val.ele), NULL);
        dictSetDoubleVal(de, val.score);
    }
    zuiClearIterator(&it);
    sdsfree(s->mem, val.ele);
    for (; size > count; size--) {
        de = dictGetFairRandomKey(d);
        dictDelete(d, dictGetKey(de));
    }
    di = dictGetIterator(d);
    while ((de = dictNext(di)) != NULL) {
        sds ele = dictGetKey(de);
        zsetReplyMember(c, ele, sdslen(ele), dictGetDoubleVal(de),
                        withscores);
    }
    dictReleaseIterator(di);
    dictRelease(d);
}

/* Strategy 4: count distinct members out of many more. */
static void zrandBySampling(client *c, robj *zobj, unsigned long count,
                            int withscores) {
    redisServer *s = c->srv;
    unsigned long added = 0;
    dict *seen, *zd;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char **picks = memAlloc(s->mem, sizeof(*picks) * count);
        zzlRandomPairsUnique(s, zobj->v.ptr, zsetLength(zobj), count, picks);
        for (unsigned long i = 0; i < count; i++)
            zrandReplyListpack(c, zobj->v.ptr, picks[i], withscores);
        memFree(s->mem, picks);
        return;
    }
    zd = ((zset *)zobj->v.ptr)->dict;
    seen = dictCreate(&setDictType, &s->denv);
    dictExpand(seen, count);
    while (added < count) {
        dictEntry *de = dictGetFairRandomKey(zd);
        sds ele = dictGetKey(de);
        if (dictFind(seen, ele) != NULL) continue;
        dictAdd(seen, sdsdup(s->mem, ele), NULL);
        added++;
        zsetReplyMember(c, ele, sdslen(ele), *(double *)dictGetVal(de),
                        withscores);
    }
    dictRelease(seen);
}

/* ZRANDMEMBER key count [WITHSCORES]: count > 0 distinct members, count
 * < 0 that many with repeats. */
static void zrandmemberWithCountCommand(client *c, long long l,
                                        int withscores) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], "*0\r\n");
    unsigned long count, size;
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    size = zsetLength(zobj);
    count = l >= 0 ? (unsigned long)l : (unsigned long)-l;
    if (count == 0) {
        addReplyArrayLen(c, 0);
    } else if (l < 0 || count == 1) {
        zrandWithRepeats(c, zobj, count, withscores);
    } else if (count >= size) {
        zsetReplyArrayOfMembers(c, (long)size, withscores);
        zrandWholeSet(c, zobj, withscores);
    } else if (count * ZRANDMEMBER_SUB_STRATEGY_MUL > size) {
        zsetReplyArrayOfMembers(c, (long)count, withscores);
        zrandBySubtraction(c, zobj, count, withscores);
    } else {
        zsetReplyArrayOfMembers(c, (long)count, withscores);
        zrandBySampling(c, zobj, count, withscores);
    }
}

/* ZRANDMEMBER key [count [WITHSCORES]]. The count is checked first, then
 * the syntax; with WITHSCORES it must be within +-LONG_MAX/2, so that
 * the reply's length cannot overflow. Without a count: one member, or a
 * null bulk for a missing key. */
void zrandmemberCommand(client *c) {
    const long long max = LLONG_MAX;
    long long l;
    robj *zobj;
    if (c->argc >= 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -max, max, &l,
                                          NULL) != C_OK)
            return;
        if (c->argc > 4 ||
            (c->argc == 4 && strcasecmp(c->argv[3]->v.ptr, "withscores"))) {
            addReplyError(c, "syntax error");
            return;
        }
        if (c->argc == 4 && (l < -max / 2 || l > max / 2)) {
            addReplyError(c, "value is out of range");
            return;
        }
        zrandmemberWithCountCommand(c, l, c->argc == 4);
        return;
    }
    zobj = lookupKeyReadOrReply(c, c->argv[1], REPLY_NULL);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    if (zobj->encoding == OBJ_ENCODING_SKIPLIST) {
        sds ele = dictGetKey(
            dictGetFairRandomKey(((zset *)zobj->v.ptr)->dict));
        addReplyBulkCBuffer(c, ele, sdslen(ele));
    } else {
        unsigned char *lp = zobj->v.ptr, buf[LP_INTBUF_SIZE];
        unsigned long r = rngNext(c->srv->denv.rng) % zsetLength(zobj);
        size_t len;
        const unsigned char *m = zzlText(lpSeek(lp, (long)(2 * r)), buf,
                                         &len);
        addReplyBulkCBuffer(c, m, len);
    }
}
