/* sort.c -- SORT and SORT_RO, as Redis 7.0 runs them.
 *
 * SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET ...]]
 *      [ASC|DESC] [ALPHA] [STORE destination]
 *
 * The elements of a list, set or sorted set (a missing key is an empty
 * list) are loaded into a vector, given a weight -- the element itself,
 * or the value found by substituting it for the first '*' of the BY
 * pattern ("w_*" or, for a hash field, "h_*->field") -- and sorted by it,
 * as numbers (doubles) or with ALPHA as strings. Equal numbers are
 * ordered by the elements' bytes, so a numeric SORT is one total order.
 * A BY pattern without '*' skips the sort: a list or sorted set comes out
 * in its own order (reversed by DESC), a set in its table's order -- but
 * a set sorted into STORE is always sorted ALPHA, so that the command
 * replays to the same list in the AOF. LIMIT picks a range of the result;
 * GET replies, for each element, the value its pattern finds ("#" is the
 * element itself) instead of the element. STORE writes the result as a
 * list (deleting the destination when it is empty) and replies its
 * length; it is propagated as written.
 *
 * Redis sorts with the C library's qsort, which glibc implements as a
 * merge sort: elements whose weights compare equal (possible only with
 * ALPHA and BY) keep the order they were loaded in. I sort with a merge
 * sort of my own for the same result. With BY and LIMIT Redis uses a
 * partial quicksort instead, which may order such ties differently.
 *
 * Without STORE, ALPHA compares as strcoll does in the C locale (up to
 * the first NUL byte); with STORE, as binary strings. A sorted set is
 * converted to a skiplist first, as 7.0 does. */
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <errno.h>
#include <math.h>
#include "cost.h"
#include "server.h"
#include "acl.h"
#include "intset.h"

/* Virtual CPU per element loaded or compared. */
#define SORT_NS_PER_ELEMENT 30

/* One element and its weight. */
typedef struct sortObject {
    robj *obj;                  /* the element (a string object) */
    double score;               /* numeric weight */
    robj *cmpobj;               /* ALPHA BY weight, NULL if none found */
} sortObject;

/* How elements compare. */
typedef struct sortOpts {
    int desc, alpha, bypattern, store;
} sortOpts;

/* Finds what pattern names for element subst: subst itself for "#", a
 * string key's value, or a hash field's ("key_*->field"). A new reference,
 * or NULL when there is no such key or field, the type is not the one
 * asked for, or the pattern has no '*'. */
static robj *lookupKeyByPattern(client *c, robj *pattern, robj *subst) {
    redisServer *s = c->srv;
    sds spat = pattern->v.ptr;
    if (spat[0] == '#' && spat[1] == '\0') {
        incrRefCount(subst);
        return subst;
    }
    char *p = strchr(spat, '*');
    if (!p) return NULL;
    char buf[LONG_STR_SIZE];
    size_t sublen;
    const char *sub = objectStrBytes(subst, buf, &sublen);
    const char *f = strstr(p + 1, "->");
    size_t fieldlen = 0;
    if (f && f[2] != '\0') fieldlen = sdslen(spat) - (size_t)(f - spat) - 2;
    size_t prefixlen = (size_t)(p - spat);
    size_t postfixlen = sdslen(spat) - (prefixlen + 1) -
                        (fieldlen ? fieldlen + 2 : 0);
    sds name = sdsnewlen(s->mem, spat, prefixlen);
    name = sdscatlen(s->mem, name, sub, sublen);
    name = sdscatlen(s->mem, name, p + 1, postfixlen);
    robj *keyobj = createObject(s, OBJ_STRING, name);
    robj *o = lookupKeyRead(c, keyobj), *val = NULL;
    if (o && fieldlen) {
        if (o->type == OBJ_HASH) {
            sds field = sdsnewlen(s->mem, f + 2, fieldlen);
            val = hashTypeGetValueObject(s, o, field);
            sdsfree(s->mem, field);
        }
    } else if (o && o->type == OBJ_STRING) {
        incrRefCount(o);
        val = o;
    }
    decrRefCount(s, keyobj);
    return val;
}

/* Binary comparison of two string objects (compareStringObjects). */
static int _compareBinary(robj *a, robj *b) {
    char ba[LONG_STR_SIZE], bb[LONG_STR_SIZE];
    size_t la, lb;
    const char *pa = objectStrBytes(a, ba, &la);
    const char *pb = objectStrBytes(b, bb, &lb);
    int cmp = memcmp(pa, pb, la < lb ? la : lb);
    if (cmp) return cmp;
    return la < lb ? -1 : la > lb;
}

/* strcoll in the C locale: bytes up to the first NUL. */
static int _compareCollate(robj *a, robj *b) {
    char ba[LONG_STR_SIZE], bb[LONG_STR_SIZE];
    size_t la, lb;
    const unsigned char *pa = (const unsigned char *)objectStrBytes(a, ba,
                                                                    &la);
    const unsigned char *pb = (const unsigned char *)objectStrBytes(b, bb,
                                                                    &lb);
    for (size_t i = 0;; i++) {
        int ca = i < la ? pa[i] : 0, cb = i < lb ? pb[i] : 0;
        if (ca != cb) return ca - cb;
        if (ca == 0) return 0;
    }
}

static int sortCompare(const sortObject *a, const sortObject *b,
                       const sortOpts *o) {
    int cmp;
    if (!o->alpha) {
        if (a->score > b->score) cmp = 1;
        else if (a->score < b->score) cmp = -1;
        else cmp = _compareBinary(a->obj, b->obj);
    } else if (o->bypattern) {
        if (!a->cmpobj || !b->cmpobj)
            cmp = a->cmpobj == b->cmpobj ? 0 : (!a->cmpobj ? -1 : 1);
        else
            cmp = o->store ? _compareBinary(a->cmpobj, b->cmpobj)
                           : _compareCollate(a->cmpobj, b->cmpobj);
    } else {
        cmp = o->store ? _compareBinary(a->obj, b->obj)
                       : _compareCollate(a->obj, b->obj);
    }
    return o->desc ? -cmp : cmp;
}

/* A stable merge sort of v[0..n), tmp holding n more. */
static void _mergeSort(sortObject *v, sortObject *tmp, long n,
                       const sortOpts *o) {
    if (n < 2) return;
    long mid = n / 2, i = 0, j = mid, k = 0;
    _mergeSort(v, tmp, mid, o);
    _mergeSort(v + mid, tmp, n - mid, o);
    while (i < mid && j < n)
        tmp[k++] = sortCompare(&v[j], &v[i], o) < 0 ? v[j++] : v[i++];
    while (i < mid) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, sizeof(*v) * (size_t)n);
}

/* SORT's options, from argv[2]. C_ERR after replying. */
typedef struct sortArgs {
    int desc, alpha, dontsort, ngets;
    long long limit_start, limit_count;
    robj *sortby, *storekey;
    robj **gets;                /* the GET patterns, argv's */
} sortArgs;

static int sortParse(client *c, int readonly, sortArgs *a) {
    memset(a, 0, sizeof(*a));
    a->limit_count = -1;
    a->gets = memAlloc(c->srv->mem, sizeof(robj *) * (size_t)c->argc);
    /* BY and GET read keys the command line does not name: the user
     * needs read access to every key, in a selector allowing SORT. */
    int full_access = aclUserCheckCmdWithUnrestrictedKeyAccess(c->srv,
        c->user, c->cmd, c->argv, c->argc, ACL_READ_PERMISSION);
    for (int j = 2; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int left = c->argc - j - 1;
        if (!strcasecmp(opt, "asc")) {
            a->desc = 0;
        } else if (!strcasecmp(opt, "desc")) {
            a->desc = 1;
        } else if (!strcasecmp(opt, "alpha")) {
            a->alpha = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1],
                    &a->limit_start, NULL) != C_OK ||
                getLongLongFromObjectOrReply(c, c->argv[j + 2],
                    &a->limit_count, NULL) != C_OK)
                return C_ERR;
            j += 2;
        } else if (!readonly && !strcasecmp(opt, "store") && left >= 1) {
            a->storekey = c->argv[++j];
        } else if (!strcasecmp(opt, "by") && left >= 1) {
            a->sortby = c->argv[++j];
            /* A constant weight: nothing to sort. */
            a->dontsort = strchr(a->sortby->v.ptr, '*') == NULL;
            if (!a->dontsort && !full_access) {
                addReplyError(c, "BY option of SORT denied due to "
                              "insufficient ACL permissions.");
                return C_ERR;
            }
        } else if (!strcasecmp(opt, "get") && left >= 1) {
            if (!full_access) {
                addReplyError(c, "GET option of SORT denied due to "
                              "insufficient ACL permissions.");
                return C_ERR;
            }
            a->gets[a->ngets++] = c->argv[++j];
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    return C_OK;
}

/* The string objects of a list from index start, count of them, towards
 * the tail (or the head with desc), into v. */
static long _loadList(redisServer *s, robj *o, long long start,
                      long long count, int desc, sortObject *v) {
    quicklistIter it;
    quicklistEntry e;
    long n = 0;
    long long len = (long long)listTypeLength(o);
    if (count <= 0) return 0;
    quicklistGetIteratorAtIdx(o->v.ptr, desc ? AL_START_TAIL : AL_START_HEAD,
                              desc ? len - start - 1 : start, &it);
    while (n < count && quicklistNext(&it, &e))
        v[n++].obj = e.value
            ? createStringObject(s, (const char *)e.value, e.sz)
            : createStringObjectFromLongLong(s, e.longval);
    quicklistReleaseIterator(&it);
    return n;
}

/* The members of a set, in its own order, into v. */
static long _loadSet(redisServer *s, robj *o, sortObject *v) {
    long n = 0;
    if (o->encoding == OBJ_ENCODING_INTSET) {
        int64_t x;
        for (uint32_t i = 0; intsetGet(o->v.ptr, i, &x); i++)
            v[n++].obj = createStringObjectFromLongLong(s, x);
        return n;
    }
    dictIterator *di = dictGetIterator(o->v.ptr);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds m = dictGetKey(de);
        v[n++].obj = createStringObject(s, m, sdslen(m));
    }
    dictReleaseIterator(di);
    return n;
}

/* The members of a (skiplist) sorted set: count of them in rank order
 * from start (from the top with desc), or with all, every member in its
 * dict's order. */
static long _loadZset(redisServer *s, robj *o, long long start,
                      long long count, int desc, int all, sortObject *v) {
    zset *zs = o->v.ptr;
    long n = 0;
    if (all) {
        dictIterator *di = dictGetIterator(zs->dict);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            sds m = dictGetKey(de);
            v[n++].obj = createStringObject(s, m, sdslen(m));
        }
        dictReleaseIterator(di);
        return n;
    }
    zskiplistNode *ln = desc ? zs->zsl->tail
                             : zs->zsl->header->level[0].forward;
    for (long long i = 0; ln && i < start; i++)
        ln = desc ? ln->backward : ln->level[0].forward;
    while (ln && n < count) {
        v[n++].obj = createStringObject(s, ln->ele, sdslen(ln->ele));
        ln = desc ? ln->backward : ln->level[0].forward;
    }
    return n;
}

/* Gives each element its weight. Returns 1 if a numeric weight is not a
 * number. */
static int _loadWeights(client *c, const sortArgs *a, sortObject *v,
                        long n) {
    int error = 0;
    for (long j = 0; j < n; j++) {
        robj *byval = a->sortby ? lookupKeyByPattern(c, a->sortby, v[j].obj)
                                : v[j].obj;
        if (!byval) continue;
        if (a->alpha) {
            if (a->sortby) {
                incrRefCount(byval);
                v[j].cmpobj = byval;
            }
        } else {
            char buf[LONG_STR_SIZE];
            size_t len;
            const char *p = objectStrBytes(byval, buf, &len);
            char *end;
            errno = 0;
            v[j].score = strtod(p, &end);
            if (*end != '\0' || errno == ERANGE || isnan(v[j].score))
                error = 1;
        }
        if (a->sortby) decrRefCount(c->srv, byval);
    }
    return error;
}

/* The result, from v[start..end]: replied, or stored as a list. */
static void _sortOutput(client *c, const sortArgs *a, sortObject *v,
                        long long start, long long end) {
    redisServer *s = c->srv;
    long long count = end - start + 1;
    long long outputlen = a->ngets ? a->ngets * count : count;
    if (!a->storekey) {
        addReplyArrayLen(c, outputlen);
        for (long long j = start; j <= end; j++) {
            if (!a->ngets) addReplyBulk(c, v[j].obj);
            for (int g = 0; g < a->ngets; g++) {
                robj *val = lookupKeyByPattern(c, a->gets[g], v[j].obj);
                if (!val) {
                    addReplyNull(c);
                } else {
                    addReplyBulk(c, val);
                    decrRefCount(s, val);
                }
            }
        }
        return;
    }
    robj *sobj = createQuicklistObject(s);
    for (long long j = start; j <= end; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        if (!a->ngets) {
            const char *p = objectStrBytes(v[j].obj, buf, &len);
            quicklistPush(sobj->v.ptr, p, len, QUICKLIST_TAIL);
        }
        for (int g = 0; g < a->ngets; g++) {
            robj *val = lookupKeyByPattern(c, a->gets[g], v[j].obj);
            const char *p = val ? objectStrBytes(val, buf, &len) : "";
            quicklistPush(sobj->v.ptr, p, val ? len : 0, QUICKLIST_TAIL);
            if (val) decrRefCount(s, val);
        }
    }
    if (outputlen) {
        setKey(c, c->db, a->storekey, sobj, 0);
        notifyKeyspaceEvent(s, NOTIFY_LIST, "sortstore", a->storekey,
                            c->db->id);
        s->dirty += outputlen;
    } else if (dbDelete(s, c->db, a->storekey)) {
        signalModifiedKey(c, c->db, a->storekey);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", a->storekey,
                            c->db->id);
        s->dirty++;
    }
    decrRefCount(s, sobj);
    addReplyLongLong(c, outputlen);
}

static void sortCommandGeneric(client *c, int readonly) {
    redisServer *s = c->srv;
    sortArgs a;
    if (sortParse(c, readonly, &a) != C_OK) {
        memFree(s->mem, a.gets);
        return;
    }
    robj *sortval = lookupKeyRead(c, c->argv[1]);
    if (sortval && sortval->type != OBJ_SET && sortval->type != OBJ_LIST &&
        sortval->type != OBJ_ZSET) {
        memFree(s->mem, a.gets);
        addReplyError(c, "-WRONGTYPE Operation against a key holding the "
                      "wrong kind of value");
        return;
    }
    if (sortval) incrRefCount(sortval);
    else sortval = createQuicklistObject(s);
    /* A set in no order would replay differently (stored, or given to a
     * script whose effects are replicated): sort it ALPHA. */
    if (a.dontsort && sortval->type == OBJ_SET &&
        (a.storekey || (c->flags & CLIENT_SCRIPT))) {
        a.dontsort = 0;
        a.alpha = 1;
        a.sortby = NULL;
    }
    if (sortval->type == OBJ_ZSET) zsetConvertToSkiplist(s, sortval);
    long long vectorlen = sortval->type == OBJ_LIST
        ? (long long)listTypeLength(sortval)
        : sortval->type == OBJ_SET ? (long long)setTypeSize(sortval)
                                   : (long long)zsetLength(sortval);
    /* LIMIT, clamped to the vector. */
    long long start = a.limit_start < 0 ? 0 : a.limit_start;
    if (start > vectorlen) start = vectorlen;
    long long lcount = a.limit_count < -1 ? -1 : a.limit_count;
    if (lcount > vectorlen) lcount = vectorlen;
    long long end = lcount < 0 ? vectorlen - 1 : start + lcount - 1;
    if (start >= vectorlen) {
        start = vectorlen - 1;
        end = vectorlen - 2;
    }
    if (end >= vectorlen) end = vectorlen - 1;
    /* A list or sorted set in its own order loads only the range. */
    int ranged = (sortval->type == OBJ_ZSET || sortval->type == OBJ_LIST) &&
                 a.dontsort;
    if (ranged && (start != 0 || end != vectorlen - 1))
        vectorlen = end - start + 1;
    sortObject *v = memCalloc(s->mem, sizeof(*v) * (size_t)(vectorlen + 1));
    long n;
    if (sortval->type == OBJ_LIST) {
        n = ranged ? _loadList(s, sortval, start, end - start + 1, a.desc, v)
                   : _loadList(s, sortval, 0, vectorlen, 0, v);
    } else if (sortval->type == OBJ_SET) {
        n = _loadSet(s, sortval, v);
    } else {
        n = _loadZset(s, sortval, start, end - start + 1, a.desc, !ranged, v);
    }
    if (ranged) {
        end -= start;
        start = 0;
    }
    s->denv.cpu_ns += (uint64_t)n * SORT_NS_PER_ELEMENT;
    int conversion_error = 0;
    if (!a.dontsort) {
        conversion_error = _loadWeights(c, &a, v, n);
        sortOpts o = { a.desc, a.alpha, a.sortby != NULL,
                       a.storekey != NULL };
        sortObject *tmp = memAlloc(s->mem, sizeof(*v) * (size_t)(n + 1));
        _mergeSort(v, tmp, n, &o);
        memFree(s->mem, tmp);
        /* about n log2 n comparisons */
        uint64_t lg = 0;
        while ((1ULL << lg) < (uint64_t)n) lg++;
        s->denv.cpu_ns += (uint64_t)n * lg * COST_CMP_NS;
    }
    if (conversion_error)
        addReplyError(c, "One or more scores can't be converted into double");
    else
        _sortOutput(c, &a, v, start, end);
    for (long j = 0; j < n; j++) {
        decrRefCount(s, v[j].obj);
        if (v[j].cmpobj) decrRefCount(s, v[j].cmpobj);
    }
    memFree(s->mem, v);
    memFree(s->mem, a.gets);
    decrRefCount(s, sortval);
}

/* SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
 * [ALPHA] [STORE destination] */
void sortCommand(client *c) { sortCommandGeneric(c, 0); }

/* SORT_RO: SORT without STORE. */
void sortroCommand(client *c) { sortCommandGeneric(c, 1); }
