/* t_zset.h -- the sorted set type's internals, shared by the files of its
 * commands: t_zset.c (the two encodings, ZADD, ZREM and the point
 * reads), t_zrange.c (ZRANGE in all its forms and ZRANGESTORE),
 * t_zsetops.c (ZUNION, ZINTER, ZDIFF, their STORE forms, ZINTERCARD and
 * ZRANDMEMBER) and t_zpop.c (ZREMRANGEBY*, ZPOPMIN, ZPOPMAX and ZMPOP). */
#ifndef GK_T_ZSET_H
#define GK_T_ZSET_H

#include "server.h"
#include "listpack.h"

/* ZADD's options, as zsetAdd takes them. */
#define ZADD_IN_NONE 0
#define ZADD_IN_INCR (1 << 0)   /* add to the score instead of setting it */
#define ZADD_IN_NX (1 << 1)     /* only add new members */
#define ZADD_IN_XX (1 << 2)     /* only update existing members */
#define ZADD_IN_GT (1 << 3)     /* only update to a greater score */
#define ZADD_IN_LT (1 << 4)     /* only update to a lesser score */

/* What zsetAdd did, as it reports it. */
#define ZADD_OUT_NOP (1 << 0)      /* nothing, because of the options */
#define ZADD_OUT_NAN (1 << 1)      /* nothing: the score would be NaN */
#define ZADD_OUT_ADDED (1 << 2)    /* the member is new */
#define ZADD_OUT_UPDATED (1 << 3)  /* the member's score changed */

/* A score interval, as ZRANGE BYSCORE and ZCOUNT take it. */
typedef struct zrangespec {
    double min, max;
    int minex, maxex;       /* 1 if that end is exclusive: "(1.5" */
} zrangespec;

/* One end of a lexicographic interval: "[abc", "(abc", "-" or "+". The
 * bytes point into the client's argument, which outlives the command. */
typedef struct zlexbound {
    const unsigned char *s;
    size_t len;
    int inf;                /* -1 for "-", +1 for "+", 0 for a string */
} zlexbound;

/* A lexicographic interval, as ZRANGE BYLEX and ZLEXCOUNT take it. */
typedef struct zlexrangespec {
    zlexbound min, max;
    int minex, maxex;       /* 1 if that end is exclusive */
} zlexrangespec;

/* Ranges. */
int zslParseRange(robj *min, robj *max, zrangespec *spec);
int zslParseLexRange(robj *min, robj *max, zlexrangespec *spec);
int zslValueGteMin(double value, const zrangespec *spec);
int zslValueLteMax(double value, const zrangespec *spec);

/* The skiplist. */
zskiplistNode *zslInsert(redisServer *s, zskiplist *zsl, double score,
                         sds ele);
/* The walks down the list: each charges the server the nodes it passes. */
zskiplistNode *zslGetElementByRank(redisServer *s, zskiplist *zsl,
                                   unsigned long rank);
zskiplistNode *zslFirstInRange(redisServer *s, zskiplist *zsl,
                               const zrangespec *r);
zskiplistNode *zslLastInRange(redisServer *s, zskiplist *zsl,
                              const zrangespec *r);
zskiplistNode *zslFirstInLexRange(redisServer *s, zskiplist *zsl,
                                  const zlexrangespec *r);
zskiplistNode *zslLastInLexRange(redisServer *s, zskiplist *zsl,
                                 const zlexrangespec *r);
int zslNodeLexGteMin(const zskiplistNode *x, const zlexrangespec *r);
int zslNodeLexLteMax(const zskiplistNode *x, const zlexrangespec *r);

/* The listpack. */
const unsigned char *zzlText(unsigned char *p, unsigned char *buf,
                             size_t *len);
double zzlGetScore(unsigned char *sptr);
double zzlStrtod(const unsigned char *s, size_t len);
void zzlNext(unsigned char *lp, unsigned char **eptr, unsigned char **sptr);
void zzlPrev(unsigned char *lp, unsigned char **eptr, unsigned char **sptr);
unsigned char *zzlFirstInRange(unsigned char *lp, const zrangespec *r);
unsigned char *zzlLastInRange(unsigned char *lp, const zrangespec *r);
unsigned char *zzlFirstInLexRange(unsigned char *lp,
                                  const zlexrangespec *r);
unsigned char *zzlLastInLexRange(unsigned char *lp, const zlexrangespec *r);
int zzlLexGteMin(unsigned char *p, const zlexrangespec *r);
int zzlLexLteMax(unsigned char *p, const zlexrangespec *r);

/* Replies (t_zrange.c): whether a member and its score go in an array
 * of their own (RESP3); the array of n members, with their scores when
 * withscores; each member in it. */
int zsetReplyNested(client *c);
void zsetReplyArrayOfMembers(client *c, long n, int withscores);
void zsetReplyMember(client *c, const char *ele, size_t len, double score,
                     int withscores);

/* The sorted set type, either encoding. */
int zsetAdd(redisServer *s, robj *zobj, double score, const sds ele,
            int flags, int *out, double *newscore);
int zsetDel(redisServer *s, robj *zobj, const sds ele);
int zsetScore(redisServer *s, robj *zobj, const sds member,
              double *score);
int zsetRemoveFromSkiplist(redisServer *s, zset *zs, const sds ele);
void zsetConvertToListpackIfNeeded(redisServer *s, robj *zobj,
                                   size_t maxelelen, size_t totelelen);
unsigned long zsetDeleteRangeByRank(redisServer *s, robj *zobj,
                                    unsigned long start, unsigned long end);
unsigned long zsetDeleteRangeByScore(redisServer *s, robj *zobj,
                                     const zrangespec *range);
unsigned long zsetDeleteRangeByLex(redisServer *s, robj *zobj,
                                   const zlexrangespec *range);

#endif
