/* t_zset.c -- the sorted set type and its point commands: ZADD, ZREM,
 * ZSCORE, ZRANK, ZCOUNT and friends (ranges are t_zrange.c's).
 *
 * A sorted set maps each member (a string) to a score (a double) and
 * keeps the members ordered by score, members with equal scores ordered
 * by their bytes (memcmp, then length). Redis 7.0 stores one in one of
 * two ways.
 *
 *   listpack    at most zset-max-listpack-entries (128) members, none
 *               longer than zset-max-listpack-value (64) bytes. Members
 *               and scores alternate in one listpack, member, score,
 *               member, score..., already in sorted order. Every lookup
 *               and insert walks the pairs: O(N) over a few compact bytes.
 *   skiplist    anything bigger: a dict from member to score, for O(1)
 *               ZSCORE, plus a skiplist of (score, member) nodes, for
 *               O(log N) inserts, ranks and ranges. The member sds is
 *               shared: the dict key is the node's ele, and only the
 *               skiplist frees it.
 *
 * A new sorted set is a listpack unless its first member is already too
 * long (or the entry limit is 0). It becomes a skiplist, for good, when a
 * member would be one too many or too long; removing members never
 * converts it back.
 *
 * Scores inside a listpack are text. An integral score that a long long
 * holds (within +-2^62) is written as its decimal digits, which the
 * listpack then stores as a compact integer; any other score is written
 * with d2string ("%.17g"), so 1.1 is stored as "1.1000000000000001".
 * Reading a score back parses that text with strtod, which gives back the
 * same double exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "t_zset.h"
#include "cost.h"

/* Replies that need no formatting, as the RESP2 bytes Redis sends. */
#define ZSET_REPLY_ZERO ":0\r\n"
#define ZSET_REPLY_NULL REPLY_NULL
#define ZSET_REPLY_EMPTY_SCAN "*2\r\n$1\r\n0\r\n*0\r\n"

/* A listpack may not grow past 1 GiB; Redis converts to a skiplist
 * rather than let one write cross that line (lpSafeToAdd). */
#define ZSET_LISTPACK_SAFETY_SIZE (1UL << 30)

/* ==== Skiplist ====
 *
 * A skiplist is a sorted linked list with express lanes. Every node is
 * on level 0, the plain list. A node also sits on level 1 with
 * probability ZSKIPLIST_P (1/4), on level 2 with probability 1/16, and so
 * on up to 32 levels. A search starts at the top level of the header,
 * runs forward while the next node still sorts before the target, drops
 * one level, and repeats: each level skips about 4 nodes of the one
 * below, so a search touches O(log N) nodes, like a balanced tree, with
 * no rebalancing ever. Redis picked 1/4 over the textbook 1/2: searches
 * do a few more steps per level, but a node has 1.33 levels on average
 * instead of 2, which saves memory.
 *
 * Redis adds two things to Pugh's design. Each forward link records its
 * span, the number of level-0 steps it jumps; adding up spans along a
 * search gives a node's rank, so ZRANK and ZRANGE by index are O(log N)
 * too. And each node has a backward pointer on level 0, so the list can
 * be walked tail to head for the REV variants.
 *
 * Nodes are ordered by score, then by member bytes; (score, member)
 * pairs are unique because the dict refuses a member twice. */

/* Returns a node with room for level links, holding score and ele (which
 * it now owns). The links are left for the caller to fill. */
static zskiplistNode *zslCreateNode(redisServer *s, int level, double score,
                                    sds ele) {
    size_t size = sizeof(zskiplistNode) +
                  (size_t)level * sizeof(struct zskiplistLevel);
    zskiplistNode *zn = memAllocAs(s->mem, size, MEM64_ZSL_NODE +
                                   (size_t)level * MEM64_ZSL_LEVEL);
    zn->score = score;
    zn->ele = ele;
    zn->backward = NULL;
    return zn;
}

/* Returns a new empty skiplist: a header node with all 32 levels, linked
 * to nothing. Released with zslRelease. */
zskiplist *zslCreate(redisServer *s) {
    zskiplist *zsl = memAllocAs(s->mem, sizeof(*zsl), MEM64_ZSKIPLIST);
    zsl->level = 1;
    zsl->length = 0;
    zsl->header = zslCreateNode(s, ZSKIPLIST_MAXLEVEL, 0, NULL);
    for (int j = 0; j < ZSKIPLIST_MAXLEVEL; j++) {
        zsl->header->level[j].forward = NULL;
        zsl->header->level[j].span = 0;
    }
    zsl->tail = NULL;
    return zsl;
}

/* Frees a node and its member (NULL when the member moved elsewhere). */
static void zslFreeNode(redisServer *s, zskiplistNode *node) {
    if (node->ele) sdsfree(s->mem, node->ele);
    memFree(s->mem, node);
}

/* Frees the skiplist, every node and every member. */
void zslRelease(redisServer *s, zskiplist *zsl) {
    zskiplistNode *node = zsl->header->level[0].forward;
    memFree(s->mem, zsl->header);
    while (node) {
        zskiplistNode *next = node->level[0].forward;
        zslFreeNode(s, node);
        node = next;
    }
    memFree(s->mem, zsl);
}

/* Returns a level between 1 and ZSKIPLIST_MAXLEVEL: each extra level with
 * probability ZSKIPLIST_P, drawn from the server's seeded PRNG (where
 * Redis calls random()), so the same commands build the same skiplist. */
static int zslRandomLevel(redisServer *s) {
    int level = 1;
    while ((rngNext(s->denv.rng) & 0xFFFF) < (ZSKIPLIST_P * 0xFFFF))
        level++;
    return level < ZSKIPLIST_MAXLEVEL ? level : ZSKIPLIST_MAXLEVEL;
}

/* Returns 1 if node x sorts before (score, ele). */
static int zslBefore(const zskiplistNode *x, double score, const sds ele) {
    return x->score < score ||
           (x->score == score && sdscmp(x->ele, ele) < 0);
}

/* What a node and its member take, about, in the cache. */
#define ZSL_NODE_BYTES 96

/* What a walk down zsl pays for each node it passes on level i (cost.h):
 * a random access to one of the nodes that reach level i, about length /
 * 4^i of them, scattered among all the list's (the top levels stay in the
 * cache, the bottom ones do not, and their pages outgrow the TLB sooner),
 * and a comparison. The next node's address is in this one: the accesses
 * are a chain. A walk that follows another to about the same place
 * (warm) finds the nodes in the L2. */
static uint64_t zslStepNs(const zskiplist *zsl, int i, int warm) {
    if (warm) return COST_L2_NS + COST_CMP_NS;
    return COST_CHAIN * costScatteredNs((size_t)(zsl->length >> (2 * i)),
                                        ZSL_NODE_BYTES,
                                        (size_t)zsl->length * ZSL_NODE_BYTES) +
           COST_CMP_NS;
}

/* Charges the server's CPU for a walk's nodes. */
static void zslCharge(redisServer *s, uint64_t ns) {
    if (!s->denv.quiet) s->denv.cpu_ns += ns;
}

/* Walks down to where (score, ele) belongs. update[i] gets the last node
 * on level i that sorts before it, and rank[i], when rank is not NULL,
 * the rank of update[i] (the header has rank 0). Returns the level-0
 * successor of update[0]: the first node not before (score, ele). */
static zskiplistNode *zslSearch(redisServer *s, zskiplist *zsl,
                                double score, const sds ele,
                                zskiplistNode **update,
                                unsigned long *rank) {
    zskiplistNode *x = zsl->header, *tied = NULL;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        if (rank) rank[i] = i == zsl->level - 1 ? 0 : rank[i + 1];
        uint64_t miss = zslStepNs(zsl, i, 0);
        zskiplistNode *f;
        while ((f = x->level[i].forward) != NULL) {
            /* a tie on the score compares the members: the node's sds
             * is a block of its own, one more access; the node a level
             * stops at is met again below, its member already read */
            if (f->score == score && f != tied) ns += miss;
            if (!zslBefore(f, score, ele)) {
                tied = f->score == score ? f : tied;
                break;
            }
            if (rank) rank[i] += x->level[i].span;
            x = f;
            ns += miss;
        }
        update[i] = x;
    }
    zslCharge(s, ns);
    return x->level[0].forward;
}

/* Inserts a node for (score, ele), which must not be in the list; the
 * node takes ownership of ele. Returns the new node.
 *
 * The spans are the subtle part. Before the insert, update[i]'s level-i
 * link jumps over the spot where the node goes. rank[0] - rank[i] is how
 * many level-0 steps lie between update[i] and the new node's
 * predecessor, so update[i] now spans exactly that plus one (to reach the
 * new node), and the new node inherits the rest of the old span. Levels
 * above the new node's height jump over it: their spans grow by one. */
zskiplistNode *zslInsert(redisServer *s, zskiplist *zsl, double score,
                         sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x;
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    int level = zslRandomLevel(s);
    zslSearch(s, zsl, score, ele, update, rank);
    if (level > zsl->level) {
        for (int i = zsl->level; i < level; i++) {
            rank[i] = 0;
            update[i] = zsl->header;
            update[i]->level[i].span = zsl->length;
        }
        zsl->level = level;
    }
    x = zslCreateNode(s, level, score, ele);
    for (int i = 0; i < level; i++) {
        x->level[i].forward = update[i]->level[i].forward;
        update[i]->level[i].forward = x;
        x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
        update[i]->level[i].span = (rank[0] - rank[i]) + 1;
    }
    for (int i = level; i < zsl->level; i++) update[i]->level[i].span++;
    x->backward = update[0] == zsl->header ? NULL : update[0];
    if (x->level[0].forward)
        x->level[0].forward->backward = x;
    else
        zsl->tail = x;
    zsl->length++;
    return x;
}

/* Unlinks node x, whose predecessors on every level are in update[]. The
 * node itself is not freed. Levels left empty at the top are dropped. */
static void zslDeleteNode(zskiplist *zsl, zskiplistNode *x,
                          zskiplistNode **update) {
    for (int i = 0; i < zsl->level; i++) {
        if (update[i]->level[i].forward == x) {
            update[i]->level[i].span += x->level[i].span - 1;
            update[i]->level[i].forward = x->level[i].forward;
        } else {
            update[i]->level[i].span -= 1;
        }
    }
    if (x->level[0].forward)
        x->level[0].forward->backward = x->backward;
    else
        zsl->tail = x->backward;
    while (zsl->level > 1 &&
           zsl->header->level[zsl->level - 1].forward == NULL)
        zsl->level--;
    zsl->length--;
}

/* Deletes and frees the node (score, ele), member included. Returns 1 if
 * it was found, else 0. */
static int zslDelete(redisServer *s, zskiplist *zsl, double score,
                     const sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslSearch(s, zsl, score, ele, update, NULL);
    if (x == NULL || x->score != score || sdscmp(x->ele, ele) != 0)
        return 0;
    zslDeleteNode(zsl, x, update);
    zslFreeNode(s, x);
    return 1;
}

/* Moves the existing node (curscore, ele) to newscore and returns it,
 * possibly as a different node; the member sds (the dict's key) is kept.
 * When the new score keeps the node between its neighbours, the score is
 * just overwritten in place, the common case of small increments. */
static zskiplistNode *zslUpdateScore(redisServer *s, zskiplist *zsl,
                                     double curscore, const sds ele,
                                     double newscore) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x, *moved;
    x = zslSearch(s, zsl, curscore, ele, update, NULL);
    if ((x->backward == NULL || x->backward->score < newscore) &&
        (x->level[0].forward == NULL ||
         x->level[0].forward->score > newscore)) {
        x->score = newscore;
        return x;
    }
    zslDeleteNode(zsl, x, update);
    moved = zslInsert(s, zsl, newscore, x->ele);
    x->ele = NULL;
    zslFreeNode(s, x);
    return moved;
}

/* Returns the 1-based rank of (score, ele), or 0 if it is not there;
 * warm if a walk has just passed the same nodes. */
static unsigned long zslGetRank(redisServer *s, zskiplist *zsl,
                                double score, const sds ele, int warm) {
    zskiplistNode *x = zsl->header;
    unsigned long rank = 0;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, warm);
        while (x->level[i].forward &&
               (zslBefore(x->level[i].forward, score, ele) ||
                (x->level[i].forward->score == score &&
                 sdscmp(x->level[i].forward->ele, ele) == 0))) {
            rank += x->level[i].span;
            x = x->level[i].forward;
            ns += step;
        }
        if (x->ele && sdscmp(x->ele, ele) == 0) {
            zslCharge(s, ns);
            return rank;
        }
    }
    zslCharge(s, ns);
    return 0;
}

/* Returns the node at the 1-based rank, or NULL: the spans let the walk
 * jump straight there in O(log N). */
zskiplistNode *zslGetElementByRank(redisServer *s, zskiplist *zsl,
                                   unsigned long rank) {
    zskiplistNode *x = zsl->header;
    unsigned long traversed = 0;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, 0);
        while (x->level[i].forward &&
               traversed + x->level[i].span <= rank) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
            ns += step;
        }
        if (traversed == rank) break;
    }
    zslCharge(s, ns);
    return traversed == rank ? x : NULL;
}

/* ==== Score and lexicographic ranges ==== */

/* Returns 1 if value is at or above the range's minimum. */
int zslValueGteMin(double value, const zrangespec *spec) {
    return spec->minex ? value > spec->min : value >= spec->min;
}

/* Returns 1 if value is at or below the range's maximum. */
int zslValueLteMax(double value, const zrangespec *spec) {
    return spec->maxex ? value < spec->max : value <= spec->max;
}

/* Returns 1 if no score can be in the range: min above max, or equal
 * ends with one of them exclusive. */
static int zslRangeEmpty(const zrangespec *r) {
    return r->min > r->max ||
           (r->min == r->max && (r->minex || r->maxex));
}

/* Parses one end of a score range: a double as strtod reads it, "(" in
 * front for exclusive. As in Redis, strtod has the last word, so "inf",
 * "-inf", " 1" and even "" (as 0) are accepted, and NaN is not. Returns
 * C_OK or C_ERR. */
static int zslParseRangeItem(const sds text, double *v, int *ex) {
    const char *p = text;
    char *eptr;
    *ex = p[0] == '(';
    if (*ex) p++;
    *v = strtod(p, &eptr);
    return eptr[0] == '\0' && !isnan(*v) ? C_OK : C_ERR;
}

/* Parses ZRANGE BYSCORE style min and max. Returns C_OK or C_ERR. */
int zslParseRange(robj *min, robj *max, zrangespec *spec) {
    if (zslParseRangeItem(min->v.ptr, &spec->min, &spec->minex) != C_OK ||
        zslParseRangeItem(max->v.ptr, &spec->max, &spec->maxex) != C_OK)
        return C_ERR;
    return C_OK;
}

/* Parses one end of a lex range: "-", "+", "[str" or "(str". Returns
 * C_OK or C_ERR. */
static int zslParseLexItem(const sds text, zlexbound *b, int *ex) {
    size_t len = sdslen(text);
    b->s = (const unsigned char *)text + 1;
    b->len = len ? len - 1 : 0;
    b->inf = 0;
    if (len == 0) return C_ERR;
    switch (text[0]) {
    case '+': b->inf = 1; *ex = 1; return len == 1 ? C_OK : C_ERR;
    case '-': b->inf = -1; *ex = 1; return len == 1 ? C_OK : C_ERR;
    case '(': *ex = 1; return C_OK;
    case '[': *ex = 0; return C_OK;
    default: return C_ERR;
    }
}

/* Parses ZRANGE BYLEX style min and max. Returns C_OK or C_ERR. */
int zslParseLexRange(robj *min, robj *max, zlexrangespec *spec) {
    if (zslParseLexItem(min->v.ptr, &spec->min, &spec->minex) != C_OK ||
        zslParseLexItem(max->v.ptr, &spec->max, &spec->maxex) != C_OK)
        return C_ERR;
    return C_OK;
}

/* Compares the len bytes at s with a lex bound: negative, zero or
 * positive. "-" is below every string and "+" above every string. */
static int zslLexCmp(const unsigned char *s, size_t len,
                     const zlexbound *b) {
    size_t min = len < b->len ? len : b->len;
    int cmp;
    if (b->inf) return -b->inf;
    cmp = min ? memcmp(s, b->s, min) : 0;
    if (cmp) return cmp;
    return len < b->len ? -1 : len > b->len;
}

/* Returns 1 if the string is at or above the range's minimum. */
static int zslLexGteMin(const unsigned char *s, size_t len,
                        const zlexrangespec *r) {
    int cmp = zslLexCmp(s, len, &r->min);
    return r->minex ? cmp > 0 : cmp >= 0;
}

/* Returns 1 if the string is at or below the range's maximum. */
static int zslLexLteMax(const unsigned char *s, size_t len,
                        const zlexrangespec *r) {
    int cmp = zslLexCmp(s, len, &r->max);
    return r->maxex ? cmp < 0 : cmp <= 0;
}

/* Returns 1 if no string can be in the range, comparing the two bounds
 * as Redis does: "-" and "-" (or "+" and "+") are equal, and exclusive,
 * so such a range is empty. */
static int zslLexRangeEmpty(const zlexrangespec *r) {
    int cmp;
    if (r->min.inf && r->min.inf == r->max.inf)
        cmp = 0;
    else if (r->min.inf == -1 || r->max.inf == 1)
        cmp = -1;
    else if (r->min.inf == 1 || r->max.inf == -1)
        cmp = 1;
    else
        cmp = zslLexCmp(r->min.s, r->min.len, &r->max);
    return cmp > 0 || (cmp == 0 && (r->minex || r->maxex));
}

/* Returns 1 if the skiplist node's member is at or above the minimum. */
int zslNodeLexGteMin(const zskiplistNode *x, const zlexrangespec *r) {
    return zslLexGteMin((const unsigned char *)x->ele, sdslen(x->ele), r);
}

/* Returns 1 if the skiplist node's member is at or below the maximum. */
int zslNodeLexLteMax(const zskiplistNode *x, const zlexrangespec *r) {
    return zslLexLteMax((const unsigned char *)x->ele, sdslen(x->ele), r);
}

/* Returns 1 if part of the skiplist may be in range: the range is not
 * empty, the last node is not below min and the first not above max. */
static int zslIsInRange(zskiplist *zsl, const zrangespec *r) {
    zskiplistNode *first = zsl->header->level[0].forward;
    return !zslRangeEmpty(r) && first != NULL &&
           zslValueGteMin(zsl->tail->score, r) &&
           zslValueLteMax(first->score, r);
}

/* Returns the first node whose score is in range, or NULL. The search
 * runs forward on each level while the next node is still below min. */
zskiplistNode *zslFirstInRange(redisServer *s, zskiplist *zsl,
                               const zrangespec *r) {
    zskiplistNode *x = zsl->header;
    if (!zslIsInRange(zsl, r)) return NULL;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, 0);
        while (x->level[i].forward &&
               !zslValueGteMin(x->level[i].forward->score, r)) {
            x = x->level[i].forward;
            ns += step;
        }
    }
    zslCharge(s, ns);
    x = x->level[0].forward;
    return x && zslValueLteMax(x->score, r) ? x : NULL;
}

/* Returns the last node whose score is in range, or NULL. */
static zskiplistNode *zslLastInRangeWalk(redisServer *s, zskiplist *zsl,
                                         const zrangespec *r, int warm) {
    zskiplistNode *x = zsl->header;
    if (!zslIsInRange(zsl, r)) return NULL;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, warm);
        while (x->level[i].forward &&
               zslValueLteMax(x->level[i].forward->score, r)) {
            x = x->level[i].forward;
            ns += step;
        }
    }
    zslCharge(s, ns);
    return x != zsl->header && zslValueGteMin(x->score, r) ? x : NULL;
}

zskiplistNode *zslLastInRange(redisServer *s, zskiplist *zsl,
                              const zrangespec *r) {
    return zslLastInRangeWalk(s, zsl, r, 0);
}

/* Returns 1 if part of the skiplist may be in the lex range, judged, as
 * Redis does, from the range and the two end nodes only. */
static int zslIsInLexRange(zskiplist *zsl, const zlexrangespec *r) {
    zskiplistNode *first = zsl->header->level[0].forward;
    return !zslLexRangeEmpty(r) && first != NULL &&
           zslNodeLexGteMin(zsl->tail, r) && zslNodeLexLteMax(first, r);
}

/* Returns the first node whose member is in the lex range, or NULL. */
zskiplistNode *zslFirstInLexRange(redisServer *s, zskiplist *zsl,
                                  const zlexrangespec *r) {
    zskiplistNode *x = zsl->header;
    if (!zslIsInLexRange(zsl, r)) return NULL;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, 0);
        while (x->level[i].forward &&
               !zslNodeLexGteMin(x->level[i].forward, r)) {
            x = x->level[i].forward;
            ns += step;
        }
    }
    zslCharge(s, ns);
    x = x->level[0].forward;
    return x && zslNodeLexLteMax(x, r) ? x : NULL;
}

/* Returns the last node whose member is in the lex range, or NULL. */
static zskiplistNode *zslLastInLexRangeWalk(redisServer *s,
                                            zskiplist *zsl,
                                            const zlexrangespec *r,
                                            int warm) {
    zskiplistNode *x = zsl->header;
    if (!zslIsInLexRange(zsl, r)) return NULL;
    uint64_t ns = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zsl, i, warm);
        while (x->level[i].forward &&
               zslNodeLexLteMax(x->level[i].forward, r)) {
            x = x->level[i].forward;
            ns += step;
        }
    }
    zslCharge(s, ns);
    return x != zsl->header && zslNodeLexGteMin(x, r) ? x : NULL;
}

zskiplistNode *zslLastInLexRange(redisServer *s, zskiplist *zsl,
                                 const zlexrangespec *r) {
    return zslLastInLexRangeWalk(s, zsl, r, 0);
}

/* ==== Listpack encoding ====
 *
 * The listpack holds member, score, member, score..., sorted. eptr points
 * at a member and sptr at its score; zzlNext and zzlPrev move both. */

/* Reads the element at p as text: a string in place, an integer written
 * into buf (LP_INTBUF_SIZE bytes). Sets *len and returns the bytes. */
const unsigned char *zzlText(unsigned char *p, unsigned char *buf,
                             size_t *len) {
    int64_t n;
    const unsigned char *s = lpGet(p, &n, buf);
    *len = (size_t)n;
    return s;
}

/* Returns the score stored at sptr: an integer element as is, a string
 * element through strtod, as Redis's zzlGetScore does. */
double zzlGetScore(unsigned char *sptr) {
    int64_t n;
    const unsigned char *s = lpGet(sptr, &n, NULL);
    if (s == NULL) return (double)n;
    return zzlStrtod(s, (size_t)n);
}

/* Reads a score stored as text: the first len bytes (at most 127, as
 * Redis copies them) through strtod. */
double zzlStrtod(const unsigned char *s, size_t len) {
    char buf[128];
    if (len >= sizeof(buf)) len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtod(buf, NULL);
}

/* Writes the text a score is stored as: integral scores within +-2^62 as
 * plain digits (the listpack makes them integers), anything else with
 * d2string. Returns the length. buf holds MAX_D2STRING_CHARS bytes. */
static int zzlScoreText(double score, char *buf) {
    const double lim = (double)(LLONG_MAX / 2);
    if (score >= -lim && score <= lim && score == (double)(long long)score)
        return ll2string(buf, MAX_D2STRING_CHARS, (long long)score);
    return d2string(buf, MAX_D2STRING_CHARS, score);
}

/* Compares the member at eptr with the len bytes at s as Redis orders
 * members: memcmp, then the shorter first. Returns <0, 0 or >0. */
static int zzlCompareElements(unsigned char *eptr, const unsigned char *s,
                              size_t len) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t vlen;
    const unsigned char *v = zzlText(eptr, buf, &vlen);
    size_t min = vlen < len ? vlen : len;
    int cmp = min ? memcmp(v, s, min) : 0;
    if (cmp) return cmp;
    return vlen < len ? -1 : vlen > len;
}

/* Returns the number of members. */
static unsigned long zzlLength(unsigned char *lp) {
    return lpLength(lp) / 2;
}

/* Moves eptr and sptr to the next pair; both become NULL past the end. */
void zzlNext(unsigned char *lp, unsigned char **eptr,
             unsigned char **sptr) {
    unsigned char *e = lpNext(lp, *sptr);
    *eptr = e;
    *sptr = e ? lpNext(lp, e) : NULL;
}

/* Moves eptr and sptr to the previous pair; NULL before the start. */
void zzlPrev(unsigned char *lp, unsigned char **eptr,
             unsigned char **sptr) {
    unsigned char *s = lpPrev(lp, *eptr);
    *sptr = s;
    *eptr = s ? lpPrev(lp, s) : NULL;
}

/* Returns the member element equal to ele, or NULL; with score not NULL
 * also reads its score. lpFind compares members only, skipping scores. */
static unsigned char *zzlFind(redisServer *s, unsigned char *lp,
                              const sds ele, double *score) {
    unsigned char *eptr = lpFirst(lp);
    if (eptr == NULL) return NULL;
    eptr = lpFind(s->mem, lp, eptr, (const unsigned char *)ele,
                  (uint32_t)sdslen(ele), 1);
    if (eptr && score) *score = zzlGetScore(lpNext(lp, eptr));
    return eptr;
}

/* Deletes the pair whose member is at eptr. Returns the listpack. */
static unsigned char *zzlDelete(redisServer *s, unsigned char *lp,
                                unsigned char *eptr) {
    lp = lpDelete(s->mem, lp, eptr, &eptr);
    return lpDelete(s->mem, lp, eptr, NULL);
}

/* Inserts (ele, score) before the member at eptr, or at the end when
 * eptr is NULL. Returns the listpack. */
static unsigned char *zzlInsertAt(redisServer *s, unsigned char *lp,
                                  unsigned char *eptr, const sds ele,
                                  double score) {
    char buf[MAX_D2STRING_CHARS];
    uint32_t len = (uint32_t)zzlScoreText(score, buf);
    unsigned char *sptr;
    if (eptr == NULL) {
        lp = lpAppend(s->mem, lp, (const unsigned char *)ele,
                      (uint32_t)sdslen(ele));
        return lpAppend(s->mem, lp, (unsigned char *)buf, len);
    }
    lp = lpInsertString(s->mem, lp, (const unsigned char *)ele,
                        (uint32_t)sdslen(ele), eptr, LP_BEFORE, &sptr);
    return lpInsertString(s->mem, lp, (unsigned char *)buf, len, sptr,
                          LP_AFTER, NULL);
}

/* Inserts (ele, score), which must not be present, at its sorted place:
 * before the first pair with a greater score, or an equal score and a
 * greater member. A linear walk, as everything in a listpack is. */
static unsigned char *zzlInsert(redisServer *s, unsigned char *lp,
                                const sds ele, double score) {
    unsigned char *eptr = lpFirst(lp);
    uint64_t passed = 0;
    while (eptr != NULL) {
        unsigned char *sptr = lpNext(lp, eptr);
        double cur = zzlGetScore(sptr);
        passed += 2;
        if (cur > score ||
            (cur == score &&
             zzlCompareElements(eptr, (const unsigned char *)ele,
                                sdslen(ele)) > 0))
            break;
        eptr = lpNext(lp, sptr);
    }
    memChargeNs(s->mem, passed * COST_LP_NEXT_NS);
    return zzlInsertAt(s, lp, eptr, ele, score);
}

/* Returns 1 if part of the listpack may be in range: the range is not
 * empty, the last score is not below min and the first not above max. */
static int zzlIsInRange(unsigned char *lp, const zrangespec *r) {
    unsigned char *last = lpLast(lp);
    return !zslRangeEmpty(r) && last != NULL &&
           zslValueGteMin(zzlGetScore(last), r) &&
           zslValueLteMax(zzlGetScore(lpSeek(lp, 1)), r);
}

/* Returns the first member element whose score is in range, or NULL. */
unsigned char *zzlFirstInRange(unsigned char *lp,
                               const zrangespec *r) {
    unsigned char *eptr = lpFirst(lp), *sptr;
    if (!zzlIsInRange(lp, r)) return NULL;
    for (; eptr != NULL; eptr = lpNext(lp, sptr)) {
        double score = zzlGetScore(sptr = lpNext(lp, eptr));
        if (zslValueGteMin(score, r))
            return zslValueLteMax(score, r) ? eptr : NULL;
    }
    return NULL;
}

/* Returns the last member element whose score is in range, or NULL. */
unsigned char *zzlLastInRange(unsigned char *lp,
                              const zrangespec *r) {
    unsigned char *eptr = lpSeek(lp, -2), *sptr;
    if (!zzlIsInRange(lp, r)) return NULL;
    while (eptr != NULL) {
        double score = zzlGetScore(sptr = lpNext(lp, eptr));
        if (zslValueLteMax(score, r))
            return zslValueGteMin(score, r) ? eptr : NULL;
        zzlPrev(lp, &eptr, &sptr);
    }
    return NULL;
}

/* Returns 1 if the member at p is at or above the lex minimum. */
int zzlLexGteMin(unsigned char *p, const zlexrangespec *r) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = zzlText(p, buf, &len);
    return zslLexGteMin(s, len, r);
}

/* Returns 1 if the member at p is at or below the lex maximum. */
int zzlLexLteMax(unsigned char *p, const zlexrangespec *r) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = zzlText(p, buf, &len);
    return zslLexLteMax(s, len, r);
}

/* Returns 1 if part of the listpack may be in the lex range, judged, as
 * Redis does, from the range and the two end members only. With members
 * of different scores the listpack is not in lex order, and this early
 * answer is then part of what the command replies. */
static int zzlIsInLexRange(unsigned char *lp, const zlexrangespec *r) {
    unsigned char *first = lpFirst(lp);
    return !zslLexRangeEmpty(r) && first != NULL &&
           zzlLexGteMin(lpSeek(lp, -2), r) && zzlLexLteMax(first, r);
}

/* Returns the first member element in the lex range, or NULL. */
unsigned char *zzlFirstInLexRange(unsigned char *lp,
                                  const zlexrangespec *r) {
    unsigned char *eptr = lpFirst(lp);
    if (!zzlIsInLexRange(lp, r)) return NULL;
    for (; eptr != NULL; eptr = lpNext(lp, lpNext(lp, eptr)))
        if (zzlLexGteMin(eptr, r))
            return zzlLexLteMax(eptr, r) ? eptr : NULL;
    return NULL;
}

/* Returns the last member element in the lex range, or NULL. */
unsigned char *zzlLastInLexRange(unsigned char *lp,
                                 const zlexrangespec *r) {
    unsigned char *eptr = lpSeek(lp, -2), *sptr;
    if (!zzlIsInLexRange(lp, r)) return NULL;
    while (eptr != NULL) {
        if (zzlLexLteMax(eptr, r))
            return zzlLexGteMin(eptr, r) ? eptr : NULL;
        sptr = lpNext(lp, eptr);
        zzlPrev(lp, &eptr, &sptr);
    }
    return NULL;
}

/* ==== The sorted set type API ==== */

/* Returns the number of members, O(1) for both encodings. */
unsigned long zsetLength(const robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK)
        return zzlLength(zobj->v.ptr);
    return ((const zset *)zobj->v.ptr)->zsl->length;
}

/* Frees the value of a sorted set object of either encoding: for a
 * skiplist, the dict first (it owns nothing), then the skiplist, which
 * frees the members. The robj itself is the caller's. */
void freeZsetObject(redisServer *s, robj *o) {
    zset *zs = o->v.ptr;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        lpRelease(s->mem, o->v.ptr);
        return;
    }
    dictRelease(zs->dict);
    zslRelease(s, zs->zsl);
    memFree(s->mem, zs);
}

/* Converts a listpack sorted set into a skiplist in place, freeing the
 * listpack. The pairs are already sorted, but each still goes through
 * zslInsert, which draws a random level for every node. Unlike sets and
 * hashes, 7.0 does not presize this dict: it grows as members go in. */
static void zsetConvert(redisServer *s, robj *zobj) {
    unsigned char *lp = zobj->v.ptr, *eptr = lpFirst(lp), *sptr;
    unsigned char buf[LP_INTBUF_SIZE];
    zset *zs = memAllocAs(s->mem, sizeof(*zs), MEM64_ZSET);
    zs->dict = dictCreate(&zsetDictType, &s->denv);
    zs->zsl = zslCreate(s);
    while (eptr != NULL) {
        size_t len;
        const unsigned char *m = zzlText(eptr, buf, &len);
        sds ele = sdsnewlen(s->mem, m, len);
        zskiplistNode *node;
        sptr = lpNext(lp, eptr);
        node = zslInsert(s, zs->zsl, zzlGetScore(sptr), ele);
        dictAdd(zs->dict, ele, &node->score);
        eptr = lpNext(lp, sptr);
    }
    lpRelease(s->mem, lp);
    zobj->v.ptr = zs;
    zobj->encoding = OBJ_ENCODING_SKIPLIST;
}

/* Looks member up. Returns C_OK and sets *score, or C_ERR. */
int zsetScore(redisServer *s, robj *zobj, const sds member,
              double *score) {
    dictEntry *de;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK)
        return zzlFind(s, zobj->v.ptr, member, score) ? C_OK : C_ERR;
    de = dictFind(((zset *)zobj->v.ptr)->dict, member);
    if (de == NULL) return C_ERR;
    *score = *(double *)dictGetVal(de);
    return C_OK;
}

/* Applies NX, INCR, GT and LT to an existing member whose score is cur:
 * *score becomes the score it should take. Returns 1 if the member
 * should be updated, 0 if the options say leave it (*out gets NOP), -1
 * if INCR produced NaN (*out gets NAN). */
static int zsetExistingScore(int flags, double cur, double *score,
                             int *out) {
    if (flags & ZADD_IN_NX) {
        *out |= ZADD_OUT_NOP;
        return 0;
    }
    if (flags & ZADD_IN_INCR) {
        *score += cur;
        if (isnan(*score)) {
            *out |= ZADD_OUT_NAN;
            return -1;
        }
    }
    if (((flags & ZADD_IN_LT) && *score >= cur) ||
        ((flags & ZADD_IN_GT) && *score <= cur)) {
        *out |= ZADD_OUT_NOP;
        return 0;
    }
    return 1;
}

/* Returns 1 if a new member of len bytes would not fit the listpack
 * encoding any more: one member too many, too long, or past the safety
 * size. */
static int zsetListpackFull(redisServer *s, unsigned char *lp, size_t len) {
    return (long long)zzlLength(lp) + 1 > s->cfg.zset_max_listpack_entries ||
           (long long)len > s->cfg.zset_max_listpack_value ||
           lpBytes(lp) + len > ZSET_LISTPACK_SAFETY_SIZE;
}

/* zsetAdd for a listpack. Returns 1 or 0 as zsetAdd, or -1 after
 * converting to a skiplist, which the caller must then add to. A changed
 * score is a delete and a sorted insert: the pair moves. */
static int zsetAddListpack(redisServer *s, robj *zobj, double score,
                           const sds ele, int flags, int *out,
                           double *newscore) {
    double cur;
    unsigned char *eptr = zzlFind(s, zobj->v.ptr, ele, &cur);
    int go;
    if (eptr != NULL) {
        if ((go = zsetExistingScore(flags, cur, &score, out)) <= 0)
            return go == 0;
        *newscore = score;
        if (score == cur) return 1;
        zobj->v.ptr = zzlDelete(s, zobj->v.ptr, eptr);
        zobj->v.ptr = zzlInsert(s, zobj->v.ptr, ele, score);
        *out |= ZADD_OUT_UPDATED;
        return 1;
    }
    if (flags & ZADD_IN_XX) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    if (zsetListpackFull(s, zobj->v.ptr, sdslen(ele))) {
        zsetConvert(s, zobj);
        return -1;
    }
    zobj->v.ptr = zzlInsert(s, zobj->v.ptr, ele, score);
    *newscore = score;
    *out |= ZADD_OUT_ADDED;
    return 1;
}

/* zsetAdd for a skiplist. A new member is copied; the copy is both the
 * node's ele and the dict's key, and the dict's value points at the
 * node's score, so the two views can never disagree. */
static int zsetAddSkiplist(redisServer *s, robj *zobj, double score,
                           const sds ele, int flags, int *out,
                           double *newscore) {
    zset *zs = zobj->v.ptr;
    dictEntry *de = dictFind(zs->dict, ele);
    zskiplistNode *node;
    int go;
    if (de != NULL) {
        double cur = *(double *)dictGetVal(de);
        if ((go = zsetExistingScore(flags, cur, &score, out)) <= 0)
            return go == 0;
        *newscore = score;
        if (score == cur) return 1;
        node = zslUpdateScore(s, zs->zsl, cur, ele, score);
        de->v.val = &node->score;
        *out |= ZADD_OUT_UPDATED;
        return 1;
    }
    if (flags & ZADD_IN_XX) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    node = zslInsert(s, zs->zsl, score, sdsdup(s->mem, ele));
    dictAdd(zs->dict, node->ele, &node->score);
    *newscore = score;
    *out |= ZADD_OUT_ADDED;
    return 1;
}

/* Adds ele with score, or updates its score, as the ZADD_IN_* flags say.
 * *out gets ZADD_OUT_* flags; *newscore the member's score afterwards
 * when it was added or updated (with INCR, the sum). Returns 1 on
 * success, including when the options made it a no-op, and 0 when the
 * score is or would become NaN, in which case nothing changed. ele stays
 * the caller's. */
int zsetAdd(redisServer *s, robj *zobj, double score, const sds ele,
            int flags, int *out, double *newscore) {
    *out = 0;
    if (isnan(score)) {
        *out = ZADD_OUT_NAN;
        return 0;
    }
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        int r = zsetAddListpack(s, zobj, score, ele, flags, out, newscore);
        if (r >= 0) return r;
    }
    return zsetAddSkiplist(s, zobj, score, ele, flags, out, newscore);
}

/* Removes ele. Returns 1 if it was a member. In a skiplist set the dict
 * entry goes first (it does not own the member), then the node, which
 * frees the member; a dict under 10% full is then shrunk. */
int zsetDel(redisServer *s, robj *zobj, const sds ele) {
    zset *zs = zobj->v.ptr;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFind(s, zobj->v.ptr, ele, NULL);
        if (eptr == NULL) return 0;
        zobj->v.ptr = zzlDelete(s, zobj->v.ptr, eptr);
        return 1;
    }
    if (!zsetRemoveFromSkiplist(s, zs, ele)) return 0;
    if (dictNeedsShrink(zs->dict)) dictResize(zs->dict);
    return 1;
}

/* Removes ele from a skiplist sorted set, dict entry then node, without
 * shrinking the dict: a caller removing many members resizes once at the
 * end. Returns 1 if it was a member. */
int zsetRemoveFromSkiplist(redisServer *s, zset *zs, const sds ele) {
    dictEntry *de = dictUnlink(zs->dict, ele);
    double score;
    if (de == NULL) return 0;
    score = *(double *)dictGetVal(de);
    dictFreeUnlinkedEntry(zs->dict, de);
    zslDelete(s, zs->zsl, score, ele);
    return 1;
}

/* Returns the 0-based rank of ele, counted from the highest score when
 * reverse is set, or -1 if it is not a member. */
static long zsetRank(redisServer *s, robj *zobj, const sds ele,
                     int reverse) {
    unsigned long llen = zsetLength(zobj), rank = 0;
    zset *zs = zobj->v.ptr;
    dictEntry *de;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = zobj->v.ptr, *eptr = lpFirst(lp);
        for (; eptr; eptr = lpNext(lp, lpNext(lp, eptr))) {
            rank++;
            if (lpCompare(eptr, (const unsigned char *)ele,
                          (uint32_t)sdslen(ele)))
                break;
        }
        memChargeNs(s->mem, 2 * rank * COST_LP_NEXT_NS);
        if (eptr == NULL) return -1;
        return reverse ? (long)(llen - rank) : (long)rank - 1;
    }
    if ((de = dictFind(zs->dict, ele)) == NULL) return -1;
    rank = zslGetRank(s, zs->zsl, *(double *)dictGetVal(de), ele, 0);
    return reverse ? (long)(llen - rank) : (long)rank - 1;
}

/* Converts a skiplist sorted set back into a listpack, in place, if it
 * now fits one: at most zset-max-listpack-entries members, none longer
 * than zset-max-listpack-value bytes (maxelelen) and all of them
 * (totelelen) within the listpack's safety size. The STORE commands call
 * this on the set they built, which is always a skiplist while being
 * built. The nodes are freed as the listpack grows, so the members are
 * never held twice. */
void zsetConvertToListpackIfNeeded(redisServer *s, robj *zobj,
                                   size_t maxelelen, size_t totelelen) {
    zset *zs = zobj->v.ptr;
    unsigned char *lp;
    zskiplistNode *node, *next;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) return;
    if ((long long)zs->zsl->length > s->cfg.zset_max_listpack_entries ||
        (long long)maxelelen > s->cfg.zset_max_listpack_value ||
        totelelen > ZSET_LISTPACK_SAFETY_SIZE)
        return;
    lp = lpCreate(s->mem, 0);
    dictRelease(zs->dict);
    node = zs->zsl->header->level[0].forward;
    memFree(s->mem, zs->zsl->header);
    memFree(s->mem, zs->zsl);
    for (; node != NULL; node = next) {
        lp = zzlInsertAt(s, lp, NULL, node->ele, node->score);
        next = node->level[0].forward;
        zslFreeNode(s, node);
    }
    memFree(s->mem, zs);
    zobj->v.ptr = lp;
    zobj->encoding = OBJ_ENCODING_LISTPACK;
}

/* ==== Removing ranges ====
 *
 * ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX find the first
 * member of the range as ZRANGE does and delete forward from there while
 * the members stay in range: O(log N + M) in a skiplist, with every node
 * also leaving the dict, and a single lpDeleteRange (by rank) or a walk
 * (by score or lex) in a listpack. A skiplist's dict is shrunk once at
 * the end if it fell under 10% full. */

/* Unlinks, forgets and frees the skiplist node x, whose predecessors are
 * in update. */
static void zslDeleteFromSet(redisServer *s, zset *zs, zskiplistNode *x,
                             zskiplistNode **update) {
    zslDeleteNode(zs->zsl, x, update);
    dictDelete(zs->dict, x->ele);
    zslFreeNode(s, x);
}

/* Deletes the skiplist nodes of 1-based ranks start to end, both
 * included. Returns how many went. */
static unsigned long zslDeleteRangeByRank(redisServer *s, zset *zs,
                                          unsigned long start,
                                          unsigned long end) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zs->zsl->header;
    unsigned long traversed = 0, removed = 0;
    uint64_t ns = 0;
    for (int i = zs->zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zs->zsl, i, 0);
        while (x->level[i].forward &&
               traversed + x->level[i].span < start) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
            ns += step;
        }
        update[i] = x;
    }
    zslCharge(s, ns);
    x = x->level[0].forward;
    for (traversed++; x && traversed <= end; traversed++, removed++) {
        zskiplistNode *next = x->level[0].forward;
        zslDeleteFromSet(s, zs, x, update);
        x = next;
    }
    return removed;
}

/* Deletes the skiplist nodes whose score is in range. */
static unsigned long zslDeleteRangeByScore(redisServer *s, zset *zs,
                                           const zrangespec *r) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zs->zsl->header;
    unsigned long removed = 0;
    uint64_t ns = 0;
    for (int i = zs->zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zs->zsl, i, 0);
        while (x->level[i].forward &&
               !zslValueGteMin(x->level[i].forward->score, r)) {
            x = x->level[i].forward;
            ns += step;
        }
        update[i] = x;
    }
    zslCharge(s, ns);
    x = x->level[0].forward;
    while (x && zslValueLteMax(x->score, r)) {
        zskiplistNode *next = x->level[0].forward;
        zslDeleteFromSet(s, zs, x, update);
        x = next;
        removed++;
    }
    return removed;
}

/* Deletes the skiplist nodes whose member is in the lex range. */
static unsigned long zslDeleteRangeByLex(redisServer *s, zset *zs,
                                         const zlexrangespec *r) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zs->zsl->header;
    unsigned long removed = 0;
    uint64_t ns = 0;
    for (int i = zs->zsl->level - 1; i >= 0; i--) {
        uint64_t step = zslStepNs(zs->zsl, i, 0);
        while (x->level[i].forward &&
               !zslNodeLexGteMin(x->level[i].forward, r)) {
            x = x->level[i].forward;
            ns += step;
        }
        update[i] = x;
    }
    zslCharge(s, ns);
    x = x->level[0].forward;
    while (x && zslNodeLexLteMax(x, r)) {
        zskiplistNode *next = x->level[0].forward;
        zslDeleteFromSet(s, zs, x, update);
        x = next;
        removed++;
    }
    return removed;
}

/* Deletes listpack pairs from eptr on while keep() says they are still
 * in range; a pair deleted leaves eptr on the next one. */
static unsigned char *zzlDeleteWhile(redisServer *s, unsigned char *lp,
                                     unsigned char *eptr,
                                     int (*keep)(unsigned char *,
                                                 const void *),
                                     const void *range,
                                     unsigned long *deleted) {
    while (eptr && keep(eptr, range)) {
        lp = lpDelete(s->mem, lp, eptr, &eptr);
        lp = lpDelete(s->mem, lp, eptr, &eptr);
        (*deleted)++;
    }
    return lp;
}

/* zzlDeleteWhile's tests: the score after the member, or the member. */
static int zzlScoreLteMax(unsigned char *eptr, const void *r) {
    return zslValueLteMax(zzlGetScore(lpNext(NULL, eptr)), r);
}
static int zzlMemberLteMax(unsigned char *eptr, const void *r) {
    return zzlLexLteMax(eptr, r);
}

/* Deletes the members of 1-based ranks start to end, both included,
 * from a sorted set of either encoding. The ranks must be in the set.
 * Returns how many went. */
unsigned long zsetDeleteRangeByRank(redisServer *s, robj *zobj,
                                    unsigned long start, unsigned long end) {
    unsigned long num = end - start + 1;
    zset *zs = zobj->v.ptr;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zobj->v.ptr = lpDeleteRange(s->mem, zobj->v.ptr,
                                    (long)(2 * (start - 1)), 2 * num);
        return num;
    }
    num = zslDeleteRangeByRank(s, zs, start, end);
    if (dictNeedsShrink(zs->dict)) dictResize(zs->dict);
    return num;
}

/* Deletes the members whose score is in range. */
unsigned long zsetDeleteRangeByScore(redisServer *s, robj *zobj,
                                     const zrangespec *range) {
    unsigned long num = 0;
    zset *zs = zobj->v.ptr;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFirstInRange(zobj->v.ptr, range);
        zobj->v.ptr = zzlDeleteWhile(s, zobj->v.ptr, eptr, zzlScoreLteMax,
                                     range, &num);
        return num;
    }
    num = zslDeleteRangeByScore(s, zs, range);
    if (dictNeedsShrink(zs->dict)) dictResize(zs->dict);
    return num;
}

/* Deletes the members in the lex range. */
unsigned long zsetDeleteRangeByLex(redisServer *s, robj *zobj,
                                   const zlexrangespec *range) {
    unsigned long num = 0;
    zset *zs = zobj->v.ptr;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFirstInLexRange(zobj->v.ptr, range);
        zobj->v.ptr = zzlDeleteWhile(s, zobj->v.ptr, eptr, zzlMemberLteMax,
                                     range, &num);
        return num;
    }
    num = zslDeleteRangeByLex(s, zs, range);
    if (dictNeedsShrink(zs->dict)) dictResize(zs->dict);
    return num;
}

/* ==== Commands: writes ==== */

/* Parses ZADD's options from argv[2] on, any order, any case. Returns
 * the index of the first score and ORs the options into *flags; *ch is
 * set by CH. */
static int zaddParseFlags(client *c, int *flags, int *ch) {
    int j = 2;
    for (; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "nx")) *flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) *flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) *ch = 1;
        else if (!strcasecmp(opt, "incr")) *flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) *flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) *flags |= ZADD_IN_LT;
        else break;
    }
    return j;
}

/* Checks ZADD's option combinations and the number of score-member
 * arguments, in Redis's order. Returns C_OK, or C_ERR after replying. */
static int zaddCheckArgs(client *c, int flags, int elements) {
    int nx = flags & ZADD_IN_NX, gt = flags & ZADD_IN_GT;
    int lt = flags & ZADD_IN_LT;
    if (elements % 2 || elements == 0) {
        addReplyError(c, "syntax error");
    } else if (nx && (flags & ZADD_IN_XX)) {
        addReplyError(c,
            "XX and NX options at the same time are not compatible");
    } else if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c,
            "GT, LT, and/or NX options at the same time are not compatible");
    } else if ((flags & ZADD_IN_INCR) && elements > 2) {
        addReplyError(c,
            "INCR option supports a single increment-element pair");
    } else {
        return C_OK;
    }
    return C_ERR;
}

/* Returns the sorted set at key for ZADD, creating it if missing. A new
 * set is a listpack unless listpacks are disabled or the first member is
 * already too long for one. Returns NULL after replying WRONGTYPE, and
 * NULL with *skip set when the key is missing and XX makes ZADD a no-op. */
static robj *zaddLookupOrCreate(client *c, int flags, const sds first,
                                int *skip) {
    redisServer *s = c->srv;
    robj *zobj = lookupKeyWrite(c, c->argv[1]);
    *skip = 0;
    if (checkType(c, zobj, OBJ_ZSET)) return NULL;
    if (zobj != NULL) return zobj;
    if (flags & ZADD_IN_XX) {
        *skip = 1;
        return NULL;
    }
    if (s->cfg.zset_max_listpack_entries == 0 ||
        s->cfg.zset_max_listpack_value < (long long)sdslen(first))
        zobj = createZsetObject(s);
    else
        zobj = createZsetListpackObject(s);
    dbAdd(s, c->db, c->argv[1], zobj);
    return zobj;
}

/* ZADD's reply: with INCR the new score, or null if the options left the
 * member alone; otherwise the number added (plus updated with CH). */
static void zaddReply(client *c, int incr, int ch, long long added,
                      long long updated, long long processed,
                      double score) {
    if (incr) {
        if (processed) addReplyDouble(c, score);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }
}

/* ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
 * and ZINCRBY (flags = ZADD_IN_INCR). Every score is parsed before the
 * key is touched, so one bad score changes nothing. */
static void zaddGenericCommand(client *c, int flags) {
    redisServer *s = c->srv;
    long long added = 0, updated = 0, processed = 0;
    int ch = 0, skip, scoreidx = zaddParseFlags(c, &flags, &ch);
    int elements = c->argc - scoreidx;
    double score = 0, *scores;
    robj *zobj;
    if (zaddCheckArgs(c, flags, elements) != C_OK) return;
    elements /= 2;
    scores = memAlloc(s->mem, sizeof(double) * (size_t)elements);
    for (int j = 0; j < elements; j++)
        if (getDoubleFromObjectOrReply(c, c->argv[scoreidx + j * 2],
                                       &scores[j], NULL) != C_OK)
            goto cleanup;
    zobj = zaddLookupOrCreate(c, flags, c->argv[scoreidx + 1]->v.ptr,
                              &skip);
    if (zobj == NULL && !skip) goto cleanup;
    for (int j = 0; zobj && j < elements; j++) {
        int out;
        sds ele = c->argv[scoreidx + 1 + j * 2]->v.ptr;
        if (!zsetAdd(s, zobj, scores[j], ele, flags, &out, &score)) {
            addReplyError(c, "resulting score is not a number (NaN)");
            goto cleanup;
        }
        added += (out & ZADD_OUT_ADDED) != 0;
        updated += (out & ZADD_OUT_UPDATED) != 0;
        processed += !(out & ZADD_OUT_NOP);
    }
    s->dirty += added + updated;
    zaddReply(c, flags & ZADD_IN_INCR, ch, added, updated, processed, score);
cleanup:
    memFree(s->mem, scores);
    if (added || updated) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_ZSET,
                            (flags & ZADD_IN_INCR) ? "zincr" : "zadd",
                            c->argv[1], c->db->id);
    }
}

/* ZADD key [options] score member [score member ...]. */
void zaddCommand(client *c) {
    zaddGenericCommand(c, ZADD_IN_NONE);
}

/* ZINCRBY key increment member: ZADD INCR, replying the new score. */
void zincrbyCommand(client *c) {
    zaddGenericCommand(c, ZADD_IN_INCR);
}

/* ZREM key member [member ...]: replies with the number removed. The key
 * goes away with its last member, and the rest are not looked at. */
void zremCommand(client *c) {
    removeMembersCommand(c, OBJ_ZSET, zsetDel, zsetLength);
}

/* ==== Commands: point reads ==== */

/* Looks key up for reading and checks it holds a sorted set. Returns it,
 * or NULL once the reply (given by reply, or WRONGTYPE) is written. */
static robj *zsetLookupRead(client *c, const char *reply) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], reply);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return NULL;
    return zobj;
}

/* ZSCORE key member: the score, or a null bulk. */
void zscoreCommand(client *c) {
    robj *zobj = zsetLookupRead(c, ZSET_REPLY_NULL);
    double score;
    if (zobj == NULL) return;
    if (zsetScore(c->srv, zobj, c->argv[2]->v.ptr, &score) == C_ERR)
        addReplyNull(c);
    else
        addReplyDouble(c, score);
}

/* ZMSCORE key member [member ...]: a score or null for each member; all
 * null for a missing key. */
void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c, c->argv[1]);
    double score;
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        if (zobj == NULL ||
            zsetScore(c->srv, zobj, c->argv[j]->v.ptr, &score) == C_ERR)
            addReplyNull(c);
        else
            addReplyDouble(c, score);
    }
}

/* ZCARD key: the number of members. */
void zcardCommand(client *c) {
    robj *zobj = zsetLookupRead(c, ZSET_REPLY_ZERO);
    if (zobj == NULL) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

/* ZRANK and ZREVRANK: the member's 0-based rank, or a null bulk. */
static void zrankGenericCommand(client *c, int reverse) {
    robj *zobj = zsetLookupRead(c, ZSET_REPLY_NULL);
    long rank;
    if (zobj == NULL) return;
    rank = zsetRank(c->srv, zobj, c->argv[2]->v.ptr, reverse);
    if (rank >= 0)
        addReplyLongLong(c, rank);
    else
        addReplyNull(c);
}

/* ZRANK key member. */
void zrankCommand(client *c) {
    zrankGenericCommand(c, 0);
}

/* ZREVRANK key member. */
void zrevrankCommand(client *c) {
    zrankGenericCommand(c, 1);
}

/* Counts the pairs from eptr on whose score is at most the range's max. */
static unsigned long zzlCountToMax(unsigned char *lp, unsigned char *eptr,
                                   const zrangespec *r) {
    unsigned char *sptr = lpNext(lp, eptr);
    unsigned long count = 0;
    while (eptr && zslValueLteMax(zzlGetScore(sptr), r)) {
        count++;
        zzlNext(lp, &eptr, &sptr);
    }
    return count;
}

/* Counts the nodes from first to last, both included, from their ranks.
 * Redis subtracts the nodes after last from those from first on, and
 * skips the subtraction when last is NULL: that can only happen for a
 * lex range over members with different scores (where BYLEX is not
 * meaningful), and then everything from first to the end is counted.
 * The walks to the two ranks, and the one to last, follow the walk that
 * found first to about the same place: warm. For a wide range the walk
 * to last ends among nodes the first did not pass, so a wide ZCOUNT is
 * charged a little less than it costs. */
static unsigned long zslCountBetween(redisServer *s, zskiplist *zsl,
                                     zskiplistNode *first,
                                     zskiplistNode *last) {
    unsigned long count;
    if (first == NULL) return 0;
    count = zsl->length - (zslGetRank(s, zsl, first->score, first->ele, 1) - 1);
    if (last != NULL)
        count -= zsl->length - zslGetRank(s, zsl, last->score, last->ele, 1);
    return count;
}

/* ZCOUNT key min max: the number of members with a score in range. A
 * skiplist answers from two ranks, without visiting the members between;
 * a listpack walks them. */
void zcountCommand(client *c) {
    robj *zobj;
    zrangespec r;
    unsigned long count = 0;
    if (zslParseRange(c->argv[2], c->argv[3], &r) != C_OK) {
        addReplyError(c, "min or max is not a float");
        return;
    }
    if ((zobj = zsetLookupRead(c, ZSET_REPLY_ZERO)) == NULL) return;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFirstInRange(zobj->v.ptr, &r);
        if (eptr) count = zzlCountToMax(zobj->v.ptr, eptr, &r);
    } else {
        zskiplist *zsl = ((zset *)zobj->v.ptr)->zsl;
        redisServer *s = c->srv;
        zskiplistNode *first = zslFirstInRange(s, zsl, &r);
        count = zslCountBetween(s, zsl, first,
                                first ? zslLastInRangeWalk(s, zsl, &r, 1)
                                      : NULL);
    }
    addReplyLongLong(c, (long long)count);
}

/* ZLEXCOUNT key min max: the number of members in the lex range. */
void zlexcountCommand(client *c) {
    robj *zobj;
    zlexrangespec r;
    unsigned long count = 0;
    if (zslParseLexRange(c->argv[2], c->argv[3], &r) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }
    if ((zobj = zsetLookupRead(c, ZSET_REPLY_ZERO)) == NULL) return;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = zobj->v.ptr;
        unsigned char *eptr = zzlFirstInLexRange(lp, &r);
        for (; eptr && zzlLexLteMax(eptr, &r);
             eptr = lpNext(lp, lpNext(lp, eptr)))
            count++;
    } else {
        zskiplist *zsl = ((zset *)zobj->v.ptr)->zsl;
        redisServer *s = c->srv;
        zskiplistNode *first = zslFirstInLexRange(s, zsl, &r);
        count = zslCountBetween(s, zsl, first,
                                first ? zslLastInLexRangeWalk(s, zsl, &r, 1)
                                      : NULL);
    }
    addReplyLongLong(c, (long long)count);
}

/* ZSCAN key cursor [MATCH pattern] [COUNT count]. The cursor is checked
 * before the key, so a bad cursor is reported even for a missing key. */
void zscanCommand(client *c) {
    uint64_t cursor;
    robj *zobj;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    if ((zobj = zsetLookupRead(c, ZSET_REPLY_EMPTY_SCAN)) == NULL) return;
    scanGenericCommand(c, zobj, cursor);
}

/* A copy of a sorted set with the same encoding, refcount 1 (COPY): a
 * listpack byte for byte; a skiplist rebuilt from its tail backwards, as
 * Redis does, each node with a fresh random level, into a presized dict. */
robj *zsetDup(redisServer *s, robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        size_t bytes = lpBytes(o->v.ptr);
        unsigned char *lp = memAlloc(s->mem, bytes);
        memcpy(lp, o->v.ptr, bytes);
        robj *z = createObject(s, OBJ_ZSET, lp);
        z->encoding = OBJ_ENCODING_LISTPACK;
        return z;
    }
    zset *zs = o->v.ptr;
    robj *z = createZsetObject(s);
    zset *copy = z->v.ptr;
    dictExpand(copy->dict, dictSize(zs->dict));
    for (zskiplistNode *ln = zs->zsl->tail; ln; ln = ln->backward) {
        sds ele = sdsdup(s->mem, ln->ele);
        zskiplistNode *node = zslInsert(s, copy->zsl, ln->score, ele);
        dictAdd(copy->dict, ele, &node->score);
    }
    return z;
}

/* SORT converts a listpack sorted set to a skiplist before reading it,
 * as 7.0 does (OBJECT ENCODING shows it afterwards). */
void zsetConvertToSkiplist(redisServer *s, robj *zobj) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) zsetConvert(s, zobj);
}
