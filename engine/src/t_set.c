/* t_set.c -- the set type: SADD, SREM, SISMEMBER, SMEMBERS and friends,
 * SMOVE, SPOP and SRANDMEMBER, and the algebra of SINTER, SUNION, SDIFF,
 * their STORE forms and SINTERCARD.
 *
 * Redis 7.0 stores a set in one of two ways.
 *
 *   intset      every member is an integer (a string that string2ll
 *               accepts, so "12" but not "012", " 12" or "1.0") and there
 *               are at most set-max-intset-entries (512) of them. The
 *               members live in a sorted array of 2, 4 or 8 byte integers:
 *               a few bytes each, found by binary search.
 *   hashtable   anything else: a dict whose keys are the members as sds
 *               strings and whose values are all NULL.
 *
 * A set starts as an intset when the first member SADD sees is an integer
 * and moves to a hashtable, once and for good, when a non-integer member
 * arrives or the intset grows past the limit. Nothing ever converts it
 * back, even if every member is removed but one: that is how 7.0 behaves,
 * and OBJECT ENCODING shows it. 7.0 has no listpack sets (7.2 added them).
 *
 * Members arrive as the sds strings of the client's arguments; the dict
 * keeps its own copies, so the arguments stay owned by the client. */
#include <string.h>
#include "server.h"
#include "intset.h"

/* Replies that need no formatting, as the RESP2 bytes Redis sends (the
 * empty set, REPLY_EMPTY_SET, goes out in the client's protocol). */
#define SET_REPLY_ZERO ":0\r\n"
#define SET_REPLY_EMPTY_ARRAY "*0\r\n"
#define SET_REPLY_EMPTY_SCAN "*2\r\n$1\r\n0\r\n*0\r\n"

/* ---- The set type API ---- */

/* Returns 1 and sets *v if the member is an integer an intset could hold,
 * by the same rule Redis uses (string2ll: canonical decimal, no spaces,
 * no leading zeros, in range); returns 0 otherwise. */
static int setMemberToInt(const sds ele, long long *v) {
    return string2ll(ele, sdslen(ele), v);
}

/* Returns the number of members, O(1) for both encodings. */
unsigned long setTypeSize(const robj *subject) {
    if (subject->encoding == OBJ_ENCODING_INTSET)
        return intsetLen(subject->v.ptr);
    return (unsigned long)dictSize((const dict *)subject->v.ptr);
}

/* Returns a new empty set object able to hold first: an intset if first
 * is an integer, else a hashtable. The caller owns the object. */
static robj *setTypeCreate(redisServer *s, const sds first) {
    if (setMemberToInt(first, NULL)) return createIntsetObject(s);
    return createSetObject(s);
}

/* Converts an intset-encoded set into a hashtable in place, freeing the
 * intset. The dict is sized for every member up front, as Redis does, so
 * the conversion itself never triggers an incremental rehash: a set of 512
 * integers becomes a 512-bucket table, ready for the member that tipped
 * it over to land in. */
static void setTypeConvert(redisServer *s, robj *set) {
    intset *is = set->v.ptr;
    dict *d = dictCreate(&setDictType, &s->denv);
    int64_t v;
    dictExpand(d, intsetLen(is));
    for (uint32_t i = 0; intsetGet(is, i, &v); i++)
        dictAdd(d, sdsfromlonglong(s->mem, v), NULL);
    intsetRelease(s->mem, is);
    set->v.ptr = d;
    set->encoding = OBJ_ENCODING_HT;
}

/* The largest intset Redis allows whatever the configuration says: the
 * intset's length field and offsets stop being safe past 2^30 members. */
static unsigned long long setMaxIntsetEntries(const redisServer *s) {
    long long max = s->cfg.set_max_intset_entries;
    if (max >= (1LL << 30)) max = 1LL << 30;
    return max < 0 ? 0 : (unsigned long long)max;
}

/* Adds ele to a hashtable-encoded set. Returns 1 if it was new, 0 if it
 * was already there. The dict stores a copy; ele stays the caller's. */
static int setHashAdd(redisServer *s, dict *d, const sds ele) {
    dictEntry *de = dictAddRaw(d, ele, NULL);
    if (de == NULL) return 0;
    de->key = sdsdup(s->mem, ele);
    de->v.val = NULL;
    return 1;
}

/* Adds ele to the set, converting the encoding when it must. Returns 1 if
 * ele was added, 0 if it was already a member. */
static int setTypeAdd(redisServer *s, robj *set, const sds ele) {
    long long v;
    int added = 0;
    if (set->encoding == OBJ_ENCODING_HT)
        return setHashAdd(s, set->v.ptr, ele);
    if (!setMemberToInt(ele, &v)) {
        /* A string can't live in an intset: move everything out first. */
        setTypeConvert(s, set);
        return setHashAdd(s, set->v.ptr, ele);
    }
    set->v.ptr = intsetAdd(s->mem, set->v.ptr, v, &added);
    if (added && intsetLen(set->v.ptr) > setMaxIntsetEntries(s))
        setTypeConvert(s, set);
    return added;
}

/* Removes ele. Returns 1 if it was a member, else 0. A hashtable that
 * falls under 10% full is shrunk right away, as Redis does after every
 * delete from a set, hash or sorted set. */
static int setTypeRemove(redisServer *s, robj *set, const sds ele) {
    long long v;
    int removed = 0;
    if (set->encoding == OBJ_ENCODING_HT) {
        dict *d = set->v.ptr;
        if (dictDelete(d, ele) != C_OK) return 0;
        if (dictNeedsShrink(d)) dictResize(d);
        return 1;
    }
    if (!setMemberToInt(ele, &v)) return 0;
    set->v.ptr = intsetRemove(s->mem, set->v.ptr, v, &removed);
    return removed;
}

/* Returns 1 if ele is a member of the set, else 0. */
static int setTypeIsMember(const robj *set, const sds ele) {
    long long v;
    if (set->encoding == OBJ_ENCODING_HT)
        return dictFind(set->v.ptr, ele) != NULL;
    return setMemberToInt(ele, &v) && intsetFind(set->v.ptr, v);
}

/* Virtual CPU of the set iterator's own steps for each member a command
 * walks over or draws (SINTER, SUNION, SDIFF and SPOP with a count are
 * O(N) and cost N times this), beside the memory it reads (dict.c). */
#define SET_NS_PER_MEMBER 20

/* Walks a set member by member: an intset smallest first, a hashtable in
 * bucket order. setIterNext returns the set's encoding and fills *ele
 * (hashtable: the set's own sds, borrowed) or *ll (intset), or returns -1
 * at the end. The set must not change while it is walked. */
typedef struct setIter {
    redisServer *srv;           /* charged for each member visited */
    robj *set;
    uint32_t ii;                /* intset: the next position */
    dictIterator *di;           /* hashtable: a plain iterator */
} setIter;

static void setIterInit(redisServer *s, setIter *it, robj *set) {
    it->srv = s;
    it->set = set;
    it->ii = 0;
    it->di = set->encoding == OBJ_ENCODING_HT ? dictGetIterator(set->v.ptr)
                                              : NULL;
}

static int setIterNext(setIter *it, sds *ele, int64_t *ll) {
    it->srv->denv.cpu_ns += SET_NS_PER_MEMBER;
    if (it->di) {
        dictEntry *de = dictNext(it->di);
        if (de == NULL) return -1;
        *ele = dictGetKey(de);
        return OBJ_ENCODING_HT;
    }
    if (!intsetGet(it->set->v.ptr, it->ii, ll)) return -1;
    it->ii++;
    return OBJ_ENCODING_INTSET;
}

/* As setIterNext, giving the member as a new sds the caller frees, or
 * NULL at the end. */
static sds setIterNextSds(redisServer *s, setIter *it) {
    sds ele;
    int64_t ll;
    int enc = setIterNext(it, &ele, &ll);
    if (enc == -1) return NULL;
    return enc == OBJ_ENCODING_INTSET ? sdsfromlonglong(s->mem, ll)
                                      : sdsdup(s->mem, ele);
}

static void setIterRelease(setIter *it) {
    if (it->di) dictReleaseIterator(it->di);
}

/* Picks a random member of a non-empty set, filling *ele (borrowed) or
 * *ll as setIterNext does, and returns the encoding. A hashtable is
 * sampled with dictGetFairRandomKey, as Redis does, so members of long
 * chains are not favoured; an intset position is uniform. */
static int setRandomElement(redisServer *s, robj *set, sds *ele,
                            int64_t *ll) {
    s->denv.cpu_ns += SET_NS_PER_MEMBER;
    if (set->encoding == OBJ_ENCODING_INTSET) {
        *ll = intsetRandom(set->v.ptr, rngNext(s->denv.rng));
        return OBJ_ENCODING_INTSET;
    }
    *ele = dictGetKey(dictGetFairRandomKey(set->v.ptr));
    return OBJ_ENCODING_HT;
}

/* A copy of a set with the same encoding, refcount 1 (COPY). An intset
 * is copied byte for byte; a hashtable is presized and refilled, so its
 * buckets are ordered as a fresh table of that size orders them. */
robj *setTypeDup(redisServer *s, robj *o) {
    robj *set;
    if (o->encoding == OBJ_ENCODING_INTSET) {
        size_t size = intsetBlobLen(o->v.ptr);
        intset *is = memAlloc(s->mem, size);
        memcpy(is, o->v.ptr, size);
        set = createObject(s, OBJ_SET, is);
        set->encoding = OBJ_ENCODING_INTSET;
        return set;
    }
    setIter it;
    sds ele = NULL;
    int64_t ll = 0;
    set = createSetObject(s);
    dictExpand(set->v.ptr, dictSize((dict *)o->v.ptr));
    setIterInit(s, &it, o);
    while (setIterNext(&it, &ele, &ll) != -1) setTypeAdd(s, set, ele);
    setIterRelease(&it);
    return set;
}

/* ---- Commands ---- */

#define SET_OP_UNION 0
#define SET_OP_DIFF 1
static void sunionDiffGeneric(client *c, robj **keys, int n, robj *dstkey,
                              int op);

/* Looks key up for reading and checks it holds a set. Returns the set, or
 * NULL once the reply (empty, given by reply, or WRONGTYPE) is written. */
static robj *setLookupRead(client *c, robj *key, const char *reply) {
    robj *set = lookupKeyReadOrReply(c, key, reply);
    if (set == NULL || checkType(c, set, OBJ_SET)) return NULL;
    return set;
}

/* SADD key member [member ...]: replies with the number of members that
 * were not there before. A missing key is created with the encoding the
 * first member calls for. */
void saddCommand(client *c) {
    redisServer *s = c->srv;
    robj *set = lookupKeyWrite(c, c->argv[1]);
    long long added = 0;
    if (checkType(c, set, OBJ_SET)) return;
    if (set == NULL) {
        set = setTypeCreate(s, c->argv[2]->v.ptr);
        dbAdd(s, c->db, c->argv[1], set);
    }
    for (int j = 2; j < c->argc; j++)
        added += setTypeAdd(s, set, c->argv[j]->v.ptr);
    if (added) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_SET, "sadd", c->argv[1], c->db->id);
    }
    s->dirty += added;
    addReplyLongLong(c, added);
}

/* SREM key member [member ...]: replies with the number removed. The key
 * goes away with its last member; the remaining arguments are then not
 * looked at, since nothing is left to remove them from. */
void sremCommand(client *c) {
    removeMembersCommand(c, OBJ_SET, setTypeRemove, setTypeSize);
}

/* SISMEMBER key member: 1 or 0. */
void sismemberCommand(client *c) {
    robj *set = setLookupRead(c, c->argv[1], SET_REPLY_ZERO);
    if (set == NULL) return;
    addReplyLongLong(c, setTypeIsMember(set, c->argv[2]->v.ptr));
}

/* SMISMEMBER key member [member ...]: an array of 1s and 0s, one for each
 * member asked about; a missing key answers 0 for all of them. */
void smismemberCommand(client *c) {
    robj *set = lookupKeyRead(c, c->argv[1]);
    if (checkType(c, set, OBJ_SET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        int member = set && setTypeIsMember(set, c->argv[j]->v.ptr);
        addReplyLongLong(c, member);
    }
}

/* SCARD key: the number of members, 0 for a missing key. */
void scardCommand(client *c) {
    robj *set = setLookupRead(c, c->argv[1], SET_REPLY_ZERO);
    if (set == NULL) return;
    addReplyLongLong(c, (long long)setTypeSize(set));
}

/* Replies with every member of an intset, smallest first. */
static void setReplyIntset(client *c, const intset *is) {
    int64_t v;
    addReplySetLen(c, intsetLen(is));
    for (uint32_t i = 0; intsetGet(is, i, &v); i++)
        addReplyBulkLongLong(c, v);
}

/* Replies with every member of a hashtable set, in bucket order: the
 * order depends on the hash seed, so two servers list the same set in
 * different orders, and SMEMBERS promises none. */
static void setReplyDict(client *c, dict *d) {
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    addReplySetLen(c, (long)dictSize(d));
    while ((de = dictNext(di)) != NULL) {
        sds ele = dictGetKey(de);
        addReplyBulkCBuffer(c, ele, sdslen(ele));
    }
    dictReleaseIterator(di);
}

/* SMEMBERS key: every member; an empty array for a missing key. (Redis
 * runs it as a one-key SINTER, which replies the same way.) */
void smembersCommand(client *c) {
    robj *set = setLookupRead(c, c->argv[1], REPLY_EMPTY_SET);
    if (set == NULL) return;
    if (set->encoding == OBJ_ENCODING_INTSET)
        setReplyIntset(c, set->v.ptr);
    else
        setReplyDict(c, set->v.ptr);
}

/* SSCAN key cursor [MATCH pattern] [COUNT count]. The cursor is checked
 * before the key, so a bad cursor is reported even for a missing key. */
void sscanCommand(client *c) {
    uint64_t cursor;
    robj *set;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) == C_ERR) return;
    set = setLookupRead(c, c->argv[1], SET_REPLY_EMPTY_SCAN);
    if (set == NULL) return;
    scanGenericCommand(c, set, cursor);
}

/* Replies with one member as setIterNext or setRandomElement gave it. */
static void setReplyMember(client *c, int enc, sds ele, int64_t ll) {
    if (enc == OBJ_ENCODING_INTSET) addReplyBulkLongLong(c, ll);
    else addReplyBulkCBuffer(c, ele, sdslen(ele));
}

/* SMOVE source destination member: 1 if member moved, else 0. A member
 * already in destination still leaves source (and counts as moved), but
 * only source is then changed: destination's watchers are told only when
 * the member was new there. A source equal to destination changes
 * nothing and replies whether member is in it. */
void smoveCommand(client *c) {
    redisServer *s = c->srv;
    robj *src = lookupKeyWrite(c, c->argv[1]);
    robj *dst = lookupKeyWrite(c, c->argv[2]);
    sds ele = c->argv[3]->v.ptr;
    if (src == NULL) { addReplyLongLong(c, 0); return; }
    if (checkType(c, src, OBJ_SET) || checkType(c, dst, OBJ_SET)) return;
    if (src == dst) {
        addReplyLongLong(c, setTypeIsMember(src, ele));
        return;
    }
    if (!setTypeRemove(s, src, ele)) { addReplyLongLong(c, 0); return; }
    notifyKeyspaceEvent(s, NOTIFY_SET, "srem", c->argv[1], c->db->id);
    if (setTypeSize(src) == 0) {
        dbDelete(s, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    if (dst == NULL) {
        dst = setTypeCreate(s, ele);
        dbAdd(s, c->db, c->argv[2], dst);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    s->dirty++;
    if (setTypeAdd(s, dst, ele)) {
        s->dirty++;
        signalModifiedKey(c, c->db, c->argv[2]);
        notifyKeyspaceEvent(s, NOTIFY_SET, "sadd", c->argv[2], c->db->id);
    }
    addReplyLongLong(c, 1);
}

/* ---- SPOP and SRANDMEMBER ---- */

/* SPOP with a count picks one of two ways by how many members stay: when
 * they are more than a fifth of those popped, it pops random members one
 * at a time; otherwise it draws the members that stay into a new set and
 * hands over the rest of the old one, which costs fewer draws. */
#define SPOP_MOVE_STRATEGY_MUL 5

/* Queues "SREM key member" for the AOF: how SPOP with a count is
 * propagated, one member at a time, since which members go is random. */
static void spopPropagateSrem(client *c, robj *srem, int enc, sds ele,
                              int64_t ll) {
    redisServer *s = c->srv;
    robj *argv[3] = { srem, c->argv[1], NULL };
    argv[2] = enc == OBJ_ENCODING_INTSET
        ? createStringObjectFromLongLong(s, ll)
        : createStringObject(s, ele, sdslen(ele));
    alsoPropagate(s, c->db->id, argv, 3);
    decrRefCount(s, argv[2]);
}

/* Pops count random members, one draw each (count < size). */
static void spopByDraws(client *c, robj *set, unsigned long long count,
                        robj *srem) {
    redisServer *s = c->srv;
    sds ele = NULL;
    int64_t ll = 0;
    while (count--) {
        int enc = setRandomElement(s, set, &ele, &ll);
        setReplyMember(c, enc, ele, ll);
        spopPropagateSrem(c, srem, enc, ele, ll);
        if (enc == OBJ_ENCODING_INTSET)
            set->v.ptr = intsetRemove(s->mem, set->v.ptr, ll, NULL);
        else
            setTypeRemove(s, set, ele);
    }
}

/* Moves remaining random members into a new set stored under the key and
 * pops everything left in the old one (0 < remaining < size). */
static void spopByKeeping(client *c, robj *set,
                          unsigned long long remaining,
                          robj *srem) {
    redisServer *s = c->srv;
    robj *kept = NULL;
    sds ele = NULL;
    int64_t ll = 0;
    int enc;
    while (remaining--) {
        enc = setRandomElement(s, set, &ele, &ll);
        sds copy = enc == OBJ_ENCODING_INTSET ? sdsfromlonglong(s->mem, ll)
                                              : sdsdup(s->mem, ele);
        if (kept == NULL) kept = setTypeCreate(s, copy);
        setTypeAdd(s, kept, copy);
        setTypeRemove(s, set, copy);
        sdsfree(s->mem, copy);
    }
    setIter it;
    setIterInit(s, &it, set);
    while ((enc = setIterNext(&it, &ele, &ll)) != -1) {
        setReplyMember(c, enc, ele, ll);
        spopPropagateSrem(c, srem, enc, ele, ll);
    }
    setIterRelease(&it);
    dbOverwrite(s, c->db, c->argv[1], kept);
}

/* SPOP key count: up to count random members, removed. The set goes
 * whole when count reaches its size (replied as SUNION of the key would
 * reply it, propagated as DEL); otherwise each member popped goes to the
 * AOF as its own SREM, the command itself never. */
static void spopWithCountCommand(client *c) {
    redisServer *s = c->srv;
    long long l;
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &l, NULL) != C_OK)
        return;
    unsigned long long count = (unsigned long long)l;
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], REPLY_EMPTY_SET);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReplySetLen(c, 0);
        return;
    }
    unsigned long long size = setTypeSize(set);
    notifyKeyspaceEvent(s, NOTIFY_SET, "spop", c->argv[1], c->db->id);
    s->dirty += (long long)(count >= size ? size : count);
    if (count >= size) {
        robj *del = createStringObject(s, "DEL", 3);
        sunionDiffGeneric(c, c->argv + 1, 1, NULL, SET_OP_UNION);
        dbDelete(s, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        rewriteClientCommandVector(c, 2, del, c->argv[1]);
        decrRefCount(s, del);
        signalModifiedKey(c, c->db, c->argv[1]);
        return;
    }
    robj *srem = createStringObject(s, "SREM", 4);
    unsigned long long remaining = size - count;
    addReplySetLen(c, (long)count);
    if (remaining * SPOP_MOVE_STRATEGY_MUL > count)
        spopByDraws(c, set, count, srem);
    else
        spopByKeeping(c, set, remaining, srem);
    decrRefCount(s, srem);
    preventCommandPropagation(c);
    signalModifiedKey(c, c->db, c->argv[1]);
}

/* SPOP key [count]: one random member, removed, or null for a missing
 * key. Propagated as "SREM key member". */
void spopCommand(client *c) {
    redisServer *s = c->srv;
    sds ele = NULL;
    int64_t ll = 0;
    if (c->argc == 3) { spopWithCountCommand(c); return; }
    if (c->argc > 3) { addReplyError(c, "syntax error"); return; }
    robj *set = lookupKeyWrite(c, c->argv[1]);
    if (set == NULL) { addReplyNull(c); return; }
    if (checkType(c, set, OBJ_SET)) return;
    robj *member;
    if (setRandomElement(s, set, &ele, &ll) == OBJ_ENCODING_INTSET) {
        member = createStringObjectFromLongLong(s, ll);
        set->v.ptr = intsetRemove(s->mem, set->v.ptr, ll, NULL);
    } else {
        member = createStringObject(s, ele, sdslen(ele));
        setTypeRemove(s, set, member->v.ptr);
    }
    robj *srem = createStringObject(s, "SREM", 4);
    rewriteClientCommandVector(c, 3, srem, c->argv[1], member);
    decrRefCount(s, srem);
    addReplyBulk(c, member);
    decrRefCount(s, member);
    notifyKeyspaceEvent(s, NOTIFY_SET, "spop", c->argv[1], c->db->id);
    if (setTypeSize(set) == 0) {
        dbDelete(s, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    s->dirty++;
}

/* SRANDMEMBER with a positive count below the size builds its answer in
 * a scratch set: from the whole set minus random members when the count
 * is more than a third of the size, else by drawing until count distinct
 * members are in. */
#define SRANDMEMBER_SUB_STRATEGY_MUL 3

/* Fills d with count distinct random members (count < size). */
static void srandmemberSample(redisServer *s, robj *set, dict *d,
                              unsigned long long count,
                              unsigned long long size) {
    sds ele = NULL;
    int64_t ll = 0;
    if (count * SRANDMEMBER_SUB_STRATEGY_MUL > size) {
        setIter it;
        sds copy;
        dictExpand(d, size);
        setIterInit(s, &it, set);
        while ((copy = setIterNextSds(s, &it)) != NULL) dictAdd(d, copy, NULL);
        setIterRelease(&it);
        while (size-- > count)
            dictDelete(d, dictGetKey(dictGetFairRandomKey(d)));
        return;
    }
    dictExpand(d, count);
    while (dictSize(d) < count) {
        int enc = setRandomElement(s, set, &ele, &ll);
        sds copy = enc == OBJ_ENCODING_INTSET ? sdsfromlonglong(s->mem, ll)
                                              : sdsdup(s->mem, ele);
        if (dictAdd(d, copy, NULL) != C_OK) sdsfree(s->mem, copy);
    }
}

/* SRANDMEMBER key count: count distinct random members (all of them when
 * count reaches the size), or with a negative count, |count| independent
 * draws that may repeat. An array, empty for a missing key or count 0. */
static void srandmemberWithCountCommand(client *c) {
    redisServer *s = c->srv;
    long long l;
    sds ele = NULL;
    int64_t ll = 0;
    int enc;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], -LLONG_MAX, LLONG_MAX,
                                      &l, NULL) != C_OK) return;
    int uniq = l >= 0;
    unsigned long long count = uniq ? (unsigned long long)l
                                    : (unsigned long long)-l;
    robj *set = setLookupRead(c, c->argv[1], SET_REPLY_EMPTY_ARRAY);
    if (set == NULL) return;
    unsigned long long size = setTypeSize(set);
    if (count == 0) {
        addReplyProto(c, SET_REPLY_EMPTY_ARRAY, strlen(SET_REPLY_EMPTY_ARRAY));
        return;
    }
    if (!uniq || count == 1) {
        addReplyArrayLen(c, (long)count);
        while (count--) {
            enc = setRandomElement(s, set, &ele, &ll);
            setReplyMember(c, enc, ele, ll);
            if (c->flags & CLIENT_CLOSE_ASAP) break;
        }
        return;
    }
    if (count >= size) {
        setIter it;
        addReplyArrayLen(c, (long)size);
        setIterInit(s, &it, set);
        while ((enc = setIterNext(&it, &ele, &ll)) != -1)
            setReplyMember(c, enc, ele, ll);
        setIterRelease(&it);
        return;
    }
    dict *d = dictCreate(&setDictType, &s->denv);
    srandmemberSample(s, set, d, count, size);
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    addReplyArrayLen(c, (long)count);
    while ((de = dictNext(di)) != NULL) {
        sds m = dictGetKey(de);
        addReplyBulkCBuffer(c, m, sdslen(m));
    }
    dictReleaseIterator(di);
    dictRelease(d);
}

/* SRANDMEMBER key [count]: one random member, or null for a missing key. */
void srandmemberCommand(client *c) {
    sds ele = NULL;
    int64_t ll = 0;
    if (c->argc == 3) { srandmemberWithCountCommand(c); return; }
    if (c->argc > 3) { addReplyError(c, "syntax error"); return; }
    robj *set = lookupKeyRead(c, c->argv[1]);
    if (set == NULL) { addReplyNull(c); return; }
    if (checkType(c, set, OBJ_SET)) return;
    int enc = setRandomElement(c->srv, set, &ele, &ll);
    setReplyMember(c, enc, ele, ll);
}

/* ---- SINTER, SUNION, SDIFF and their STORE forms ---- */

/* Sorts sets by size, smallest first (or largest first with desc; NULL
 * counts as empty). An insertion sort, stable as the C library's merge
 * sort is, so sets of equal size keep the order their keys were named
 * in: the first one is walked, and its order is the reply's. */
static void setSortBySize(robj **sets, unsigned long n, int desc) {
    for (unsigned long i = 1; i < n; i++) {
        robj *o = sets[i];
        unsigned long size = o ? setTypeSize(o) : 0, j = i;
        while (j > 0) {
            unsigned long prev = sets[j - 1] ? setTypeSize(sets[j - 1]) : 0;
            if (desc ? prev >= size : prev <= size) break;
            sets[j] = sets[j - 1];
            j--;
        }
        sets[j] = o;
    }
}

/* Looks up every key as a set for reading: missing keys are NULL. Returns
 * the array (the caller frees it) and counts the missing in *missing, or
 * returns NULL once WRONGTYPE is replied. */
static robj **setLookupAll(client *c, robj **keys, unsigned long n,
                           unsigned long *missing) {
    robj **sets = memAlloc(c->srv->mem, sizeof(robj *) * (n ? n : 1));
    *missing = 0;
    for (unsigned long j = 0; j < n; j++) {
        sets[j] = lookupKeyRead(c, keys[j]);
        if (sets[j] == NULL) { (*missing)++; continue; }
        if (checkType(c, sets[j], OBJ_SET)) {
            memFree(c->srv->mem, sets);
            return NULL;
        }
    }
    return sets;
}

/* Stores result under dstkey and replies its size (notifying event), or,
 * when it is empty, deletes dstkey ("del") and replies 0. The result's
 * reference stays the caller's. */
static void setStoreResult(client *c, robj *dstkey, robj *result,
                           const char *event) {
    redisServer *s = c->srv;
    if (setTypeSize(result) > 0) {
        setKey(c, c->db, dstkey, result, 0);
        addReplyLongLong(c, (long long)setTypeSize(result));
        notifyKeyspaceEvent(s, NOTIFY_SET, event, dstkey, c->db->id);
        s->dirty++;
        return;
    }
    addReplyLongLong(c, 0);
    if (dbDelete(s, c->db, dstkey)) {
        s->dirty++;
        signalModifiedKey(c, c->db, dstkey);
        notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", dstkey, c->db->id);
    }
}

/* 1 if the member at hand (as setIterNext gave it) is in set. An integer
 * against an intset is a binary search; against a hashtable it is looked
 * up by its decimal text. */
static int setHasMember(redisServer *s, robj *set, int enc, sds ele,
                        int64_t ll) {
    if (enc == OBJ_ENCODING_HT) return setTypeIsMember(set, ele);
    if (set->encoding == OBJ_ENCODING_INTSET)
        return intsetFind(set->v.ptr, ll);
    sds tmp = sdsfromlonglong(s->mem, ll);
    int found = setTypeIsMember(set, tmp);
    sdsfree(s->mem, tmp);
    return found;
}

/* Walks the smallest set and keeps what every other set has: into dstset
 * (SINTERSTORE), the reply (SINTER), or only a count (SINTERCARD, which
 * stops at limit unless limit is 0). Returns the count. */
static unsigned long long sinterWalk(client *c, robj **sets,
                                     unsigned long n, robj *dstset,
                                     int cardonly,
                                     unsigned long long limit) {
    redisServer *s = c->srv;
    unsigned long long card = 0;
    unsigned long j;
    sds ele = NULL;
    int64_t ll = 0;
    int enc;
    setIter it;
    setIterInit(s, &it, sets[0]);
    while ((enc = setIterNext(&it, &ele, &ll)) != -1) {
        for (j = 1; j < n; j++) {
            if (sets[j] == sets[0]) continue;
            if (!setHasMember(s, sets[j], enc, ele, ll)) break;
        }
        if (j < n) continue;
        card++;
        if (cardonly) {
            if (limit && card >= limit) break;
        } else if (dstset == NULL) {
            setReplyMember(c, enc, ele, ll);
        } else if (enc == OBJ_ENCODING_INTSET) {
            sds tmp = sdsfromlonglong(s->mem, ll);
            setTypeAdd(s, dstset, tmp);
            sdsfree(s->mem, tmp);
        } else {
            setTypeAdd(s, dstset, ele);
        }
    }
    setIterRelease(&it);
    return card;
}

/* The body of SINTER, SINTERSTORE and SINTERCARD. Any missing key makes
 * the intersection empty at once. The result of a STORE starts as an
 * intset and converts as members arrive, so intersecting two hashtables
 * that share only integers stores an intset. */
static void sinterGeneric(client *c, robj **keys, unsigned long n,
                          robj *dstkey, int cardonly,
                          unsigned long long limit) {
    redisServer *s = c->srv;
    unsigned long missing;
    robj **sets = setLookupAll(c, keys, n, &missing);
    if (sets == NULL) return;
    if (missing) {
        memFree(s->mem, sets);
        if (dstkey) {
            if (dbDelete(s, c->db, dstkey)) {
                signalModifiedKey(c, c->db, dstkey);
                notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", dstkey,
                                    c->db->id);
                s->dirty++;
            }
            addReplyLongLong(c, 0);
        } else if (cardonly) {
            addReplyLongLong(c, 0);
        } else {
            addReplySetLen(c, 0);
        }
        return;
    }
    setSortBySize(sets, n, 0);
    robj *dstset = dstkey ? createIntsetObject(s) : NULL;
    void *replylen = !dstkey && !cardonly ? addReplyDeferredLen(c) : NULL;
    unsigned long long card = sinterWalk(c, sets, n, dstset, cardonly,
                                         limit);
    if (cardonly) {
        addReplyLongLong(c, (long long)card);
    } else if (dstkey) {
        setStoreResult(c, dstkey, dstset, "sinterstore");
        decrRefCount(s, dstset);
    } else {
        setDeferredSetLen(c, replylen, (long)card);
    }
    memFree(s->mem, sets);
}

/* SINTER key [key ...] */
void sinterCommand(client *c) {
    sinterGeneric(c, c->argv + 1, (unsigned long)c->argc - 1, NULL, 0, 0);
}

/* SINTERSTORE destination key [key ...] */
void sinterstoreCommand(client *c) {
    sinterGeneric(c, c->argv + 2, (unsigned long)c->argc - 2, c->argv[1],
                  0, 0);
}

/* SINTERCARD numkeys key [key ...] [LIMIT limit]: the size of the
 * intersection, counting no further than limit (0: no limit). */
void sintercardCommand(client *c) {
    long long numkeys, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LLONG_MAX, &numkeys,
            "numkeys should be greater than 0") != C_OK) return;
    if (numkeys > c->argc - 2) {
        addReplyError(c, "Number of keys can't be greater than number of "
                      "args");
        return;
    }
    for (long long j = 2 + numkeys; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int moreargs = (int)((c->argc - 1) - j);
        if (!strcasecmp(opt, "LIMIT") && moreargs) {
            j++;
            if (getPositiveLongFromObjectOrReply(c, c->argv[j], &limit,
                    "LIMIT can't be negative") != C_OK) return;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    sinterGeneric(c, c->argv + 2, (unsigned long)numkeys, NULL, 1,
                  (unsigned long long)limit);
}

/* SDIFF computes its result one of two ways, whichever looks cheaper:
 * (1) walk the first set and keep each member no other set has, about
 * size(first) * number of sets lookups, halved because it stops at the
 * first set that has the member; (2) copy the first set and remove every
 * member of the others, about the sum of all sizes. With (1) the other
 * sets are tried largest first, to find a member early. */
static int sdiffAlgorithm(robj **sets, int n) {
    long long one = 0, two = 0;
    for (int j = 0; j < n; j++) {
        if (sets[j] == NULL) continue;
        one += (long long)setTypeSize(sets[0]);
        two += (long long)setTypeSize(sets[j]);
    }
    one /= 2;
    if (one > two) return 2;
    if (n > 1) setSortBySize(sets + 1, (unsigned long)n - 1, 1);
    return 1;
}

/* SDIFF's first way: members of sets[0] no later set has. */
static long sdiffWalk(redisServer *s, robj **sets, int n, robj *dstset) {
    long card = 0;
    int j;
    sds ele;
    setIter it;
    setIterInit(s, &it, sets[0]);
    while ((ele = setIterNextSds(s, &it)) != NULL) {
        for (j = 1; j < n; j++) {
            if (sets[j] == NULL) continue;
            if (sets[j] == sets[0] || setTypeIsMember(sets[j], ele)) break;
        }
        if (j == n) {
            setTypeAdd(s, dstset, ele);
            card++;
        }
        sdsfree(s->mem, ele);
    }
    setIterRelease(&it);
    return card;
}

/* SUNION, or SDIFF's second way: adds every member of sets[0] to dstset,
 * then adds (union) or removes (diff) those of the others. A diff stops
 * once nothing is left. */
static long sunionDiffAll(redisServer *s, robj **sets, int n, robj *dstset,
                          int op) {
    long card = 0;
    sds ele;
    setIter it;
    for (int j = 0; j < n; j++) {
        if (sets[j] == NULL) continue;
        setIterInit(s, &it, sets[j]);
        while ((ele = setIterNextSds(s, &it)) != NULL) {
            if (op == SET_OP_UNION || j == 0)
                card += setTypeAdd(s, dstset, ele);
            else
                card -= setTypeRemove(s, dstset, ele);
            sdsfree(s->mem, ele);
        }
        setIterRelease(&it);
        if (op == SET_OP_DIFF && card == 0) break;
    }
    return card;
}

/* The body of SUNION, SDIFF and their STORE forms. The result is built
 * in a new set that starts as an intset; missing keys are empty sets. A
 * diff where a later key names the first set again is empty. */
static void sunionDiffGeneric(client *c, robj **keys, int n, robj *dstkey,
                              int op) {
    redisServer *s = c->srv;
    unsigned long missing;
    int sameset = 0, algo = 1;
    robj **sets = setLookupAll(c, keys, (unsigned long)n, &missing);
    if (sets == NULL) return;
    for (int j = 1; j < n; j++)
        if (sets[j] && sets[j] == sets[0]) sameset = 1;
    if (op == SET_OP_DIFF && sets[0] && !sameset)
        algo = sdiffAlgorithm(sets, n);
    robj *dstset = createIntsetObject(s);
    long card = 0;
    if (op == SET_OP_UNION)
        card = sunionDiffAll(s, sets, n, dstset, op);
    else if (sets[0] && !sameset)
        card = algo == 1 ? sdiffWalk(s, sets, n, dstset)
                         : sunionDiffAll(s, sets, n, dstset, op);
    if (dstkey) {
        setStoreResult(c, dstkey, dstset, op == SET_OP_UNION ? "sunionstore"
                                                             : "sdiffstore");
    } else {
        sds ele;
        setIter it;
        addReplySetLen(c, card);
        setIterInit(s, &it, dstset);
        while ((ele = setIterNextSds(s, &it)) != NULL)
            addReplyBulkSds(c, ele);
        setIterRelease(&it);
    }
    decrRefCount(s, dstset);
    memFree(s->mem, sets);
}

/* SUNION key [key ...] */
void sunionCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION);
}

/* SUNIONSTORE destination key [key ...] */
void sunionstoreCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION);
}

/* SDIFF key [key ...] */
void sdiffCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF);
}

/* SDIFFSTORE destination key [key ...] */
void sdiffstoreCommand(client *c) {
    sunionDiffGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF);
}
