/* geo.c -- the GEO commands: a geospatial index is a sorted set whose
 * scores are 52-bit geohashes (geohash.c), so GEOADD is ZADD with the
 * coordinates encoded, GEOPOS, GEOHASH and GEODIST decode scores, and a
 * search (GEORADIUS, GEORADIUSBYMEMBER, their _RO forms, GEOSEARCH and
 * GEOSEARCHSTORE) reads the nine score intervals of the cells covering
 * its shape, keeps the members really inside it, sorts them by distance
 * if asked, and replies with them or stores them as a new sorted set.
 * Replies, errors, rounding and propagation are Redis 7.0's. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include "t_zset.h"
#include "geohash.h"

/* ==== Found points ==== */

/* A member found by a search. */
typedef struct geoPoint {
    double lon, lat;
    double dist;                /* from the centre, in metres, then units */
    double score;               /* its geohash */
    sds member;                 /* owned */
} geoPoint;

/* The points found so far, in the order found. */
typedef struct geoArray {
    geoPoint *p;
    size_t used, cap;
} geoArray;

static void geoArrayAppend(redisServer *s, geoArray *ga, const double *xy,
                           double dist, double score, sds member) {
    if (ga->used == ga->cap) {
        ga->cap = ga->cap ? ga->cap * 2 : 8;
        ga->p = memRealloc(s->mem, ga->p, sizeof(geoPoint) * ga->cap);
    }
    geoPoint *gp = &ga->p[ga->used++];
    gp->lon = xy[0];
    gp->lat = xy[1];
    gp->dist = dist;
    gp->score = score;
    gp->member = member;
}

/* Frees the array and the members still in it. */
static void geoArrayRelease(redisServer *s, geoArray *ga) {
    for (size_t i = 0; i < ga->used; i++) sdsfree(s->mem, ga->p[i].member);
    memFree(s->mem, ga->p);
}

/* Sorts all n points by distance, nearest first (or last with desc),
 * keeping the found order among equal distances: a merge sort, which is
 * what the C library's qsort behind Redis does for arrays of this size. */
static void geoSortAll(redisServer *s, geoPoint *p, size_t n, int desc) {
    if (n < 2) return;
    geoPoint *tmp = memAlloc(s->mem, sizeof(geoPoint) * n);
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int right_first = desc ? p[j].dist > p[i].dist
                                       : p[j].dist < p[i].dist;
                tmp[k++] = right_first ? p[j++] : p[i++];
            }
            while (i < mid) tmp[k++] = p[i++];
            while (j < hi) tmp[k++] = p[j++];
        }
        memcpy(p, tmp, sizeof(geoPoint) * n);
    }
    memFree(s->mem, tmp);
}

/* ---- The partial sort of COUNT ----
 *
 * When COUNT keeps fewer points than were found, Redis sorts only as
 * much as it takes to get the first count right, with its pqsort: the
 * quicksort of Bentley and McIlroy ("Engineering a Sort Function"), which
 * leaves alone any partition wholly past the last wanted position. It is
 * not stable, so which of several points at the same distance make the
 * cut, and in what order, is decided by its pivots and swaps; the sort
 * below makes the same choices, in the same order, on indexes. */

static int _distCmp(const geoPoint *a, const geoPoint *b, int desc) {
    int r = a->dist > b->dist ? 1 : a->dist == b->dist ? 0 : -1;
    return desc ? -r : r;
}

static void _swap(geoPoint *p, long i, long j) {
    geoPoint t = p[i];
    p[i] = p[j];
    p[j] = t;
}

/* Swaps the n points from i with the n from j, pair by pair. */
static void _swapRuns(geoPoint *p, long i, long j, long n) {
    for (long k = 0; k < n; k++) _swap(p, i + k, j + k);
}

/* The index of the median of p[a], p[b], p[c]. */
static long _median3(geoPoint *p, long a, long b, long c, int desc) {
    if (_distCmp(&p[a], &p[b], desc) < 0) {
        if (_distCmp(&p[b], &p[c], desc) < 0) return b;
        return _distCmp(&p[a], &p[c], desc) < 0 ? c : a;
    }
    if (_distCmp(&p[b], &p[c], desc) > 0) return b;
    return _distCmp(&p[a], &p[c], desc) < 0 ? a : c;
}

/* Sorts p[lo, lo + n) enough that positions up to last hold what a full
 * sort would put there. Small runs get an insertion sort; larger ones a
 * pivot (median of three, or of three medians past 40 points), a split
 * into less, equal and greater (the equal gathered at both ends while
 * scanning, then swapped to the middle), and the two sides sorted the
 * same way unless they start past last. */
static void _partialSort(geoPoint *p, long lo, long n, long last,
                         int desc) {
    for (;;) {
        if (n < 7) {
            for (long m = lo + 1; m < lo + n; m++)
                for (long l = m; l > lo &&
                     _distCmp(&p[l - 1], &p[l], desc) > 0; l--)
                    _swap(p, l, l - 1);
            return;
        }
        long m = lo + n / 2;
        if (n > 7) {
            long l = lo, r = lo + n - 1;
            if (n > 40) {
                long d = n / 8;
                l = _median3(p, l, l + d, l + 2 * d, desc);
                m = _median3(p, m - d, m, m + d, desc);
                r = _median3(p, r - 2 * d, r - d, r, desc);
            }
            m = _median3(p, l, m, r, desc);
        }
        _swap(p, lo, m);
        long a = lo + 1, b = lo + 1, c = lo + n - 1, d = lo + n - 1;
        for (;;) {
            int cr;
            while (b <= c && (cr = _distCmp(&p[b], &p[lo], desc)) <= 0) {
                if (cr == 0) _swap(p, a++, b);
                b++;
            }
            while (b <= c && (cr = _distCmp(&p[c], &p[lo], desc)) >= 0) {
                if (cr == 0) _swap(p, c, d--);
                c--;
            }
            if (b > c) break;
            _swap(p, b++, c--);
        }
        long end = lo + n;
        long r = a - lo < b - a ? a - lo : b - a;
        _swapRuns(p, lo, b - r, r);
        r = d - c < end - d - 1 ? d - c : end - d - 1;
        _swapRuns(p, b, end - r, r);
        if ((r = b - a) > 1 && lo <= last) _partialSort(p, lo, r, last, desc);
        if ((r = d - c) <= 1 || end - r > last) return;
        lo = end - r;
        n = r;
    }
}

/* Sorts the points by distance as Redis does: all of them when all are
 * kept, the first keep of them otherwise. */
static void geoSort(redisServer *s, geoPoint *p, size_t n, size_t keep,
                    int desc) {
    if (keep == n) geoSortAll(s, p, n, desc);
    else if (keep > 0) _partialSort(p, 0, (long)n, (long)keep - 1, desc);
}

/* ==== Arguments ==== */

/* Parses a longitude and a latitude from argv[0], argv[1] into xy.
 * Returns C_OK, or C_ERR after replying. The range error carries its own
 * "-ERR" prefix, as Redis writes it, and prints the values with %f. */
static int geoParseLonLat(client *c, robj **argv, double *xy) {
    for (int i = 0; i < 2; i++)
        if (getDoubleFromObjectOrReply(c, argv[i], &xy[i], NULL) != C_OK)
            return C_ERR;
    if (xy[0] < GEO_LONG_MIN || xy[0] > GEO_LONG_MAX ||
        xy[1] < GEO_LAT_MIN || xy[1] > GEO_LAT_MAX) {
        addReplyErrorFormat(c,
            "-ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
        return C_ERR;
    }
    return C_OK;
}

/* The position of member in the sorted set zobj into xy. Returns C_OK,
 * or C_ERR if it is not a member. */
static int geoMemberPosition(redisServer *s, robj *zobj, robj *member,
                             double *xy) {
    double score;
    if (zsetScore(s, zobj, member->v.ptr, &score) != C_OK) return C_ERR;
    return geohashDecodeScore(score, xy) ? C_OK : C_ERR;
}

/* Metres per unit of the unit argument (m, km, ft, mi, any case).
 * Returns it, or -1 after replying. */
static double geoParseUnit(client *c, robj *unit) {
    const char *u = unit->v.ptr;
    if (!strcasecmp(u, "m")) return 1;
    if (!strcasecmp(u, "km")) return 1000;
    if (!strcasecmp(u, "ft")) return 0.3048;
    if (!strcasecmp(u, "mi")) return 1609.34;
    addReplyError(c, "unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* Parses "radius unit" at argv into the shape. Returns C_OK, or C_ERR
 * after replying. */
static int geoParseRadius(client *c, robj **argv, geoShape *shape) {
    double radius;
    if (getDoubleFromObjectOrReply(c, argv[0], &radius,
                                   "need numeric radius") != C_OK)
        return C_ERR;
    if (radius < 0) {
        addReplyError(c, "radius cannot be negative");
        return C_ERR;
    }
    shape->radius = radius;
    if ((shape->conversion = geoParseUnit(c, argv[1])) < 0) return C_ERR;
    return C_OK;
}

/* Parses "width height unit" at argv into the shape. Returns C_OK, or
 * C_ERR after replying. */
static int geoParseBox(client *c, robj **argv, geoShape *shape) {
    double w, h;
    if (getDoubleFromObjectOrReply(c, argv[0], &w,
                                   "need numeric width") != C_OK ||
        getDoubleFromObjectOrReply(c, argv[1], &h,
                                   "need numeric height") != C_OK)
        return C_ERR;
    if (h < 0 || w < 0) {
        addReplyError(c, "height or width cannot be negative");
        return C_ERR;
    }
    shape->width = w;
    shape->height = h;
    if ((shape->conversion = geoParseUnit(c, argv[2])) < 0) return C_ERR;
    return C_OK;
}

/* ==== Replies ==== */

/* A distance with four decimals, rounded to nearest (even on a tie),
 * as a bulk string in either protocol. */
static void geoReplyDistance(client *c, double d) {
    char buf[64];
    long long v = llrint(d * 10000.0);
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
                                 : (unsigned long long)v;
    int len = snprintf(buf, sizeof(buf), "%s%llu.%04llu", v < 0 ? "-" : "",
                       u / 10000, u % 10000);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

/* A coordinate in Redis's human long double form (17 decimals, trailing
 * zeros dropped): a bulk string in RESP2, a double in RESP3. */
static void geoReplyCoord(client *c, double v) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof(buf), (long double)v);
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, buf, (size_t)len);
        return;
    }
    addReplyProto(c, ",", 1);
    addReplyProto(c, buf, (size_t)len);
    addReplyProto(c, "\r\n", 2);
}

/* ==== GEOADD ==== */

/* GEOADD key [NX|XX] [CH] longitude latitude member [...]: every
 * position is checked first, then the command becomes ZADD with the
 * encoded scores (as text, the way ZADD reads its arguments) and runs
 * as ZADD, which is also what propagates. */
void geoaddCommand(client *c) {
    redisServer *s = c->srv;
    int xx = 0, nx = 0, lonidx = 2;
    for (; lonidx < c->argc; lonidx++) {
        const char *opt = c->argv[lonidx]->v.ptr;
        if (!strcasecmp(opt, "nx")) nx = 1;
        else if (!strcasecmp(opt, "xx")) xx = 1;
        else if (strcasecmp(opt, "ch")) break;
    }
    if ((c->argc - lonidx) % 3 || (xx && nx)) {
        addReplyError(c, "syntax error");
        return;
    }
    int elements = (c->argc - lonidx) / 3;
    int argc = lonidx + elements * 2;
    robj **argv = memAlloc(s->mem, sizeof(robj *) * (size_t)argc);
    argv[0] = createRawStringObject(s, "zadd", 4);
    for (int i = 1; i < lonidx; i++) {
        argv[i] = c->argv[i];
        incrRefCount(argv[i]);
    }
    for (int i = 0; i < elements; i++) {
        double xy[2];
        geoHashBits hash;
        char score[LONG_STR_SIZE];
        if (geoParseLonLat(c, c->argv + lonidx + i * 3, xy) != C_OK) {
            for (int j = 0; j < lonidx + i * 2; j++)
                decrRefCount(s, argv[j]);
            memFree(s->mem, argv);
            return;
        }
        geohashEncodeWGS84(xy[0], xy[1], GEO_STEP_MAX, &hash);
        int len = ll2string(score, sizeof(score),
                            (long long)geohashAlign52Bits(hash));
        argv[lonidx + i * 2] = createRawStringObject(s, score, (size_t)len);
        argv[lonidx + i * 2 + 1] = c->argv[lonidx + i * 3 + 2];
        incrRefCount(argv[lonidx + i * 2 + 1]);
    }
    replaceClientCommandVector(c, argc, argv);
    zaddCommand(c);
}

/* ==== Searches ==== */

#define GEO_SORT_NONE 0
#define GEO_SORT_ASC 1
#define GEO_SORT_DESC 2

#define GEO_FROM_COORDS (1 << 0)    /* GEORADIUS: centre from arguments */
#define GEO_FROM_MEMBER (1 << 1)    /* GEORADIUSBYMEMBER: from a member */
#define GEO_NOSTORE (1 << 2)        /* the _RO forms: no STORE */
#define GEO_SEARCH (1 << 3)         /* GEOSEARCH's arguments */
#define GEO_SEARCHSTORE (1 << 4)    /* GEOSEARCHSTORE: STOREDIST alone */

/* A parsed search. */
typedef struct geoSearch {
    geoShape shape;
    robj *storekey;             /* STORE's or GEOSEARCHSTORE's key */
    int storedist;              /* store distances, not geohashes */
    int withdist, withhash, withcoord;
    int frommember, fromloc, byradius, bybox;
    int sort;                   /* GEO_SORT_* */
    int any;                    /* stop at count found, unsorted */
    long long count;            /* 0: all */
} geoSearch;

/* Appends to ga the members of zobj with scores in [min, max) that lie
 * inside the shape, stopping once ga holds limit points (0: no limit). */
static void geoPointsInRange(client *c, robj *zobj, double min, double max,
                             const geoShape *shape, geoArray *ga,
                             unsigned long limit) {
    redisServer *s = c->srv;
    zrangespec range = { min, max, 0, 1 };
    double xy[2], dist = 0;
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = zobj->v.ptr, *eptr, *sptr;
        if ((eptr = zzlFirstInRange(lp, &range)) == NULL) return;
        sptr = lpNext(lp, eptr);
        while (eptr) {
            double score = zzlGetScore(sptr);
            if (!zslValueLteMax(score, &range)) break;
            if (geohashDecodeScore(score, xy) &&
                geohashInShape(shape, xy[0], xy[1], &dist)) {
                unsigned char buf[LP_INTBUF_SIZE];
                size_t len;
                const unsigned char *m = zzlText(eptr, buf, &len);
                geoArrayAppend(s, ga, xy, dist, score,
                               sdsnewlen(s->mem, m, len));
            }
            if (ga->used && limit && ga->used >= limit) break;
            zzlNext(lp, &eptr, &sptr);
        }
        return;
    }
    zskiplistNode *x = zslFirstInRange(s, ((zset *)zobj->v.ptr)->zsl,
                                       &range);
    for (; x != NULL; x = x->level[0].forward) {
        if (!zslValueLteMax(x->score, &range)) break;
        if (geohashDecodeScore(x->score, xy) &&
            geohashInShape(shape, xy[0], xy[1], &dist))
            geoArrayAppend(s, ga, xy, dist, x->score, sdsdup(s->mem, x->ele));
        if (ga->used && limit && ga->used >= limit) break;
    }
}

/* Collects into ga the members inside the shape from the nine cells.
 * A zero cell is skipped, and so is a cell equal to the last one read
 * (huge radii make neighbours coincide) -- unless that was the centre,
 * which Redis's check never compares with. */
static void geoSearchBoxes(client *c, robj *zobj, geoShape *shape,
                           geoArray *ga, unsigned long limit) {
    geoHashBits boxes[GEO_BOXES];
    int last = 0;
    geohashSearchBoxes(shape, boxes);
    for (int i = 0; i < GEO_BOXES; i++) {
        geoHashBits b = boxes[i];
        if (b.bits == 0 && b.step == 0) continue;
        if (last && b.bits == boxes[last].bits &&
            b.step == boxes[last].step)
            continue;
        if (ga->used && limit && ga->used >= limit) break;
        geoHashBits next = b;
        next.bits++;
        geoPointsInRange(c, zobj, (double)geohashAlign52Bits(b),
                         (double)geohashAlign52Bits(next), shape, ga, limit);
        last = i;
    }
}

/* Parses GEOSEARCH's centre and shape options at argv[i] into q: one
 * FROMMEMBER or FROMLONLAT, one BYRADIUS or BYBOX (a second of a kind is
 * not recognized, so a syntax error). Returns how many arguments it
 * took, 0 if argv[i] is none of them, or -1 after replying. zobj is the
 * source set, NULL if missing (FROMMEMBER is then only noted). */
static int geoParseArea(client *c, int i, int remaining, robj *zobj,
                        geoSearch *q) {
    const char *arg = c->argv[i]->v.ptr;
    robj **next = c->argv + i + 1;
    if (!strcasecmp(arg, "frommember") && remaining > 1 && !q->fromloc) {
        if (zobj && geoMemberPosition(c->srv, zobj, *next, q->shape.xy) != C_OK) {
            addReplyError(c, "could not decode requested zset member");
            return -1;
        }
        q->frommember = 1;
        return 2;
    }
    if (!strcasecmp(arg, "fromlonlat") && remaining > 2 && !q->frommember) {
        if (geoParseLonLat(c, next, q->shape.xy) != C_OK) return -1;
        q->fromloc = 1;
        return 3;
    }
    if (!strcasecmp(arg, "byradius") && remaining > 2 && !q->bybox) {
        if (geoParseRadius(c, next, &q->shape) != C_OK) return -1;
        q->shape.type = GEO_SHAPE_CIRCLE;
        q->byradius = 1;
        return 3;
    }
    if (!strcasecmp(arg, "bybox") && remaining > 3 && !q->byradius) {
        if (geoParseBox(c, next, &q->shape) != C_OK) return -1;
        q->shape.type = GEO_SHAPE_BOX;
        q->bybox = 1;
        return 4;
    }
    return 0;
}

/* Parses the option at argv[i] (of remaining arguments from there) into
 * q. Returns how many arguments it took, or -1 after replying. */
static int geoParseOption(client *c, int i, int remaining, int flags,
                          robj *zobj, geoSearch *q) {
    const char *arg = c->argv[i]->v.ptr;
    int search = flags & GEO_SEARCH, took;
    if (!strcasecmp(arg, "withdist")) q->withdist = 1;
    else if (!strcasecmp(arg, "withhash")) q->withhash = 1;
    else if (!strcasecmp(arg, "withcoord")) q->withcoord = 1;
    else if (!strcasecmp(arg, "any")) q->any = 1;
    else if (!strcasecmp(arg, "asc")) q->sort = GEO_SORT_ASC;
    else if (!strcasecmp(arg, "desc")) q->sort = GEO_SORT_DESC;
    else if (!strcasecmp(arg, "count") && remaining > 1) {
        if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &q->count,
                                         NULL) != C_OK)
            return -1;
        if (q->count <= 0) {
            addReplyError(c, "COUNT must be > 0");
            return -1;
        }
        return 2;
    } else if ((!strcasecmp(arg, "store") || !strcasecmp(arg, "storedist"))
               && remaining > 1 && !(flags & GEO_NOSTORE) && !search) {
        q->storekey = c->argv[i + 1];
        q->storedist = !strcasecmp(arg, "storedist");
        return 2;
    } else if (!strcasecmp(arg, "storedist") && (flags & GEO_SEARCHSTORE)) {
        q->storedist = 1;
    } else if (search && (took = geoParseArea(c, i, remaining, zobj, q))) {
        return took;
    } else {
        addReplyError(c, "syntax error");
        return -1;
    }
    return 1;
}

/* Parses the fixed arguments of a search (the centre and radius of
 * GEORADIUS and GEORADIUSBYMEMBER). Returns the index of the first
 * option, or -1 after replying. */
static int geoParseFixed(client *c, int flags, robj *zobj, geoSearch *q) {
    if (flags & GEO_FROM_COORDS) {
        q->shape.type = GEO_SHAPE_CIRCLE;
        if (geoParseLonLat(c, c->argv + 2, q->shape.xy) != C_OK ||
            geoParseRadius(c, c->argv + 4, &q->shape) != C_OK)
            return -1;
        return 6;
    }
    if (flags & GEO_FROM_MEMBER) {
        if (zobj == NULL) return 5;
        q->shape.type = GEO_SHAPE_CIRCLE;
        if (geoMemberPosition(c->srv, zobj, c->argv[2], q->shape.xy) != C_OK) {
            addReplyError(c, "could not decode requested zset member");
            return -1;
        }
        if (geoParseRadius(c, c->argv + 3, &q->shape) != C_OK) return -1;
        return 5;
    }
    if (flags & GEO_SEARCHSTORE) {
        q->storekey = c->argv[1];
        return 3;
    }
    return 2;
}

/* Checks the combinations Redis rejects, in its order. Returns C_OK, or
 * C_ERR after replying. */
static int geoCheckSearch(client *c, int flags, const geoSearch *q) {
    if (q->storekey && (q->withdist || q->withhash || q->withcoord)) {
        addReplyErrorFormat(c, "%s is not compatible with WITHDIST, "
                            "WITHHASH and WITHCOORD options",
                            flags & GEO_SEARCHSTORE ? "GEOSEARCHSTORE" :
                            "STORE option in GEORADIUS");
        return C_ERR;
    }
    if ((flags & GEO_SEARCH) && !(q->frommember || q->fromloc)) {
        addReplyErrorFormat(c, "exactly one of FROMMEMBER or FROMLONLAT "
                            "can be specified for %s",
                            (char *)c->argv[0]->v.ptr);
        return C_ERR;
    }
    if ((flags & GEO_SEARCH) && !(q->byradius || q->bybox)) {
        addReplyErrorFormat(c, "exactly one of BYRADIUS and BYBOX can be "
                            "specified for %s", (char *)c->argv[0]->v.ptr);
        return C_ERR;
    }
    if (q->any && !q->count) {
        addReplyError(c, "the ANY argument requires COUNT argument");
        return C_ERR;
    }
    return C_OK;
}

/* Deletes the store key of a search that found nothing, as a change only
 * if it existed. */
static void geoStoreNothing(client *c, robj *storekey) {
    if (dbDelete(c->srv, c->db, storekey)) {
        signalModifiedKey(c, c->db, storekey);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", storekey,
                            c->db->id);
        c->srv->dirty++;
    }
}

/* Replies with the first n points: members alone, or each an array of
 * the member and what WITHDIST, WITHHASH and WITHCOORD ask for. */
static void geoReplyPoints(client *c, const geoSearch *q, geoArray *ga,
                           long n) {
    int options = q->withdist + q->withhash + q->withcoord;
    addReplyArrayLen(c, n);
    for (long i = 0; i < n; i++) {
        geoPoint *gp = &ga->p[i];
        gp->dist /= q->shape.conversion;
        if (options) addReplyArrayLen(c, options + 1);
        addReplyBulkCBuffer(c, gp->member, sdslen(gp->member));
        if (q->withdist) geoReplyDistance(c, gp->dist);
        if (q->withhash) addReplyLongLong(c, (long long)gp->score);
        if (q->withcoord) {
            addReplyArrayLen(c, 2);
            geoReplyCoord(c, gp->lon);
            geoReplyCoord(c, gp->lat);
        }
    }
}

/* Stores the first n points at the store key as a sorted set scored by
 * geohash or, with STOREDIST, by distance in the unit; none deletes the
 * key. Replies n. */
static void geoStorePoints(client *c, int flags, const geoSearch *q,
                           geoArray *ga, long n) {
    redisServer *s = c->srv;
    size_t maxelelen = 0, totelelen = 0;
    if (n == 0) {
        geoStoreNothing(c, q->storekey);
        addReplyLongLong(c, 0);
        return;
    }
    robj *zobj = createZsetObject(s);
    for (long i = 0; i < n; i++) {
        geoPoint *gp = &ga->p[i];
        int out;
        double newscore;
        gp->dist /= q->shape.conversion;
        size_t len = sdslen(gp->member);
        if (len > maxelelen) maxelelen = len;
        totelelen += len;
        zsetAdd(s, zobj, q->storedist ? gp->dist : gp->score, gp->member,
                ZADD_IN_NONE, &out, &newscore);
    }
    zsetConvertToListpackIfNeeded(s, zobj, maxelelen, totelelen);
    setKey(c, c->db, q->storekey, zobj, 0);
    decrRefCount(s, zobj);
    notifyKeyspaceEvent(s, NOTIFY_ZSET, flags & GEO_SEARCH ?
                        "geosearchstore" : "georadiusstore",
                        q->storekey, c->db->id);
    s->dirty += n;
    addReplyLongLong(c, n);
}

/* Every search command: the source set is argv[srcidx], flags say which
 * command's arguments to expect (GEO_*). A missing source replies an
 * empty array, or for a store deletes the store key and replies 0. COUNT
 * without ASC, DESC or ANY sorts nearest first. */
static void geoSearchGeneric(client *c, int srcidx, int flags) {
    redisServer *s = c->srv;
    geoSearch q;
    memset(&q, 0, sizeof(q));
    robj *zobj = lookupKeyRead(c, c->argv[srcidx]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    int i = geoParseFixed(c, flags, zobj, &q);
    if (i < 0) return;
    while (i < c->argc) {
        int took = geoParseOption(c, i, c->argc - i, flags, zobj, &q);
        if (took < 0) return;
        i += took;
    }
    if (geoCheckSearch(c, flags, &q) != C_OK) return;
    if (zobj == NULL) {
        if (q.storekey) {
            geoStoreNothing(c, q.storekey);
            addReplyLongLong(c, 0);
        } else {
            addReplyArrayLen(c, 0);
        }
        return;
    }
    if (q.count && q.sort == GEO_SORT_NONE && !q.any) q.sort = GEO_SORT_ASC;
    geoArray ga = { NULL, 0, 0 };
    geoSearchBoxes(c, zobj, &q.shape, &ga,
                   q.any ? (unsigned long)q.count : 0);
    long found = (long)ga.used;
    long n = q.count == 0 || found < q.count ? found : (long)q.count;
    if (q.sort != GEO_SORT_NONE)
        geoSort(s, ga.p, ga.used, (size_t)n, q.sort == GEO_SORT_DESC);
    if (q.storekey) geoStorePoints(c, flags, &q, &ga, n);
    else geoReplyPoints(c, &q, &ga, n);
    geoArrayRelease(s, &ga);
}

/* GEORADIUS key longitude latitude radius unit [options]. */
void georadiusCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_FROM_COORDS);
}

/* GEORADIUSBYMEMBER key member radius unit [options]. */
void georadiusbymemberCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_FROM_MEMBER);
}

/* GEORADIUS_RO: GEORADIUS without STORE. */
void georadiusroCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_FROM_COORDS | GEO_NOSTORE);
}

/* GEORADIUSBYMEMBER_RO: GEORADIUSBYMEMBER without STORE. */
void georadiusbymemberroCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_FROM_MEMBER | GEO_NOSTORE);
}

/* GEOSEARCH key FROMMEMBER member|FROMLONLAT lon lat
 * BYRADIUS radius unit|BYBOX width height unit [options]. */
void geosearchCommand(client *c) {
    geoSearchGeneric(c, 1, GEO_SEARCH);
}

/* GEOSEARCHSTORE destination source ... [STOREDIST]. */
void geosearchstoreCommand(client *c) {
    geoSearchGeneric(c, 2, GEO_SEARCH | GEO_SEARCHSTORE);
}

/* ==== Reading positions ==== */

/* Looks key up for reading; NULL if missing, or NULL with *wrong set
 * after replying WRONGTYPE. */
static robj *geoLookup(client *c, int *wrong) {
    robj *zobj = lookupKeyRead(c, c->argv[1]);
    *wrong = checkType(c, zobj, OBJ_ZSET);
    return *wrong ? NULL : zobj;
}

/* GEOHASH key member [...]: each member's position as an 11-character
 * standard geohash, null for a missing member. Scores are encoded over
 * latitudes -85..85; a standard geohash covers -90..90, so each position
 * is decoded and encoded again over those ranges. Only 52 bits exist,
 * so the eleventh character is always '0'. */
void geohashCommand(client *c) {
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    const geoHashRange lon = { -180, 180 }, lat = { -90, 90 };
    int wrong;
    robj *zobj = geoLookup(c, &wrong);
    if (wrong) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double score, xy[2];
        geoHashBits hash;
        char buf[11];
        if (!zobj || zsetScore(c->srv, zobj, c->argv[j]->v.ptr, &score) != C_OK ||
            !geohashDecodeScore(score, xy)) {
            addReplyNull(c);
            continue;
        }
        geohashEncode(&lon, &lat, xy[0], xy[1], 26, &hash);
        for (int i = 0; i < 10; i++)
            buf[i] = alphabet[(hash.bits >> (52 - (i + 1) * 5)) & 0x1f];
        buf[10] = alphabet[0];
        addReplyBulkCBuffer(c, buf, 11);
    }
}

/* GEOPOS key member [...]: each member's longitude and latitude, a null
 * array for a missing member. */
void geoposCommand(client *c) {
    int wrong;
    robj *zobj = geoLookup(c, &wrong);
    if (wrong) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double score, xy[2];
        if (!zobj || zsetScore(c->srv, zobj, c->argv[j]->v.ptr, &score) != C_OK ||
            !geohashDecodeScore(score, xy)) {
            addReplyNullArray(c);
            continue;
        }
        addReplyArrayLen(c, 2);
        geoReplyCoord(c, xy[0]);
        geoReplyCoord(c, xy[1]);
    }
}

/* GEODIST key member1 member2 [unit]: the distance between two members
 * in the unit (metres by default), null if either is missing. */
void geodistCommand(client *c) {
    double to_meter = 1, s1, s2, a[2], b[2];
    if (c->argc == 5) {
        if ((to_meter = geoParseUnit(c, c->argv[4])) < 0) return;
    } else if (c->argc > 5) {
        addReplyError(c, "syntax error");
        return;
    }
    robj *zobj = lookupKeyRead(c, c->argv[1]);
    if (zobj == NULL) {
        addReplyNull(c);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    if (zsetScore(c->srv, zobj, c->argv[2]->v.ptr, &s1) != C_OK ||
        zsetScore(c->srv, zobj, c->argv[3]->v.ptr, &s2) != C_OK ||
        !geohashDecodeScore(s1, a) || !geohashDecodeScore(s2, b)) {
        addReplyNull(c);
        return;
    }
    geoReplyDistance(c, geohashDistance(a[0], a[1], b[0], b[1]) / to_meter);
}
