/* t_set.c -- the set type: SADD, SREM, SISMEMBER, SMEMBERS and friends.
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

/* Replies that need no formatting, as the RESP2 bytes Redis sends. */
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

/* ---- Commands ---- */

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
    if (added) signalModifiedKey(c, c->db, c->argv[1]);
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
    addReplyArrayLen(c, intsetLen(is));
    for (uint32_t i = 0; intsetGet(is, i, &v); i++)
        addReplyBulkLongLong(c, v);
}

/* Replies with every member of a hashtable set, in bucket order: the
 * order depends on the hash seed, so two servers list the same set in
 * different orders, and SMEMBERS promises none. */
static void setReplyDict(client *c, dict *d) {
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    addReplyArrayLen(c, (long)dictSize(d));
    while ((de = dictNext(di)) != NULL) {
        sds ele = dictGetKey(de);
        addReplyBulkCBuffer(c, ele, sdslen(ele));
    }
    dictReleaseIterator(di);
}

/* SMEMBERS key: every member; an empty array for a missing key. (Redis
 * runs it as a one-key SINTER, which replies the same way.) */
void smembersCommand(client *c) {
    robj *set = setLookupRead(c, c->argv[1], SET_REPLY_EMPTY_ARRAY);
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
