/* t_list.c -- the list type: LPUSH, RPUSH, LPOP, RPOP, LRANGE, LINDEX,
 * LSET, LINSERT, LLEN, LREM, LTRIM, LPOS, LMOVE, RPOPLPUSH, LMPOP, and
 * the blocking BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP (blocked.c waits
 * for the keys; serveClientBlockedOnList below serves them).
 *
 * Redis 7.0 stores every list as a quicklist (quicklist.h): a linked list
 * of listpack nodes, each limited by list-max-listpack-size, the inner
 * ones LZF-compressed when list-compress-depth is set. A list takes both
 * settings when it is created and keeps them: changing the configuration
 * later only affects new lists. There is no other encoding in 7.0 (7.2
 * added listpack lists for small ones), so OBJECT ENCODING always says
 * "quicklist".
 *
 * A list never exists empty: the command that removes its last element
 * deletes the key.
 *
 * Elements are bytes; one that looks like a canonical integer ("42") is
 * stored by the listpack as an integer and reads back as the same text.
 * Commands that walk the list (LRANGE, LINDEX, LPOS, LREM, LINSERT) cost
 * virtual CPU per element visited, so a long walk stalls the simulated
 * server as it would the real one. */
#include <string.h>
#include <strings.h>
#include "cost.h"
#include "server.h"
#include "quicklist.h"

/* Ends of a list, as the commands name them (LEFT is the head). */
#define LIST_HEAD 0
#define LIST_TAIL 1

/* Replies that need no formatting, as the RESP2 bytes Redis sends. */
#define LIST_REPLY_ZERO ":0\r\n"
#define LIST_REPLY_NULL REPLY_NULL
#define LIST_REPLY_EMPTY_ARRAY "*0\r\n"
#define LIST_REPLY_OK "+OK\r\n"

/* Virtual CPU for each element a command walks over. */
#define LIST_NS_PER_ELEMENT COST_SEQ_NS

/* ---- The list type API ---- */

/* Returns the number of elements, O(1). */
unsigned long long listTypeLength(const robj *subject) {
    return quicklistCount(subject->v.ptr);
}

/* Charges the walk of n elements. */
static void listCharge(redisServer *s, unsigned long long n) {
    s->denv.cpu_ns += n * LIST_NS_PER_ELEMENT;
}

/* Pushes the bytes of the string object value at the head (LIST_HEAD)
 * or tail. The list keeps a copy. */
static void listTypePush(robj *subject, robj *value, int where) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(value, buf, &len);
    quicklistPush(subject->v.ptr, p, len,
                  where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL);
}

/* The saver listTypePop hands to the quicklist: the bytes as a new string
 * object. */
static void *listPopSaver(void *ctx, const unsigned char *data, size_t sz) {
    return createStringObject(ctx, (const char *)data, sz);
}

/* Removes and returns the element at an end, as a new string object (an
 * INT one for an element stored as an integer), or NULL if the list is
 * empty. The caller owns the object. */
static robj *listTypePop(redisServer *s, robj *subject, int where) {
    void *value = NULL;
    long long v = 0;
    int qwhere = where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL;
    if (!quicklistPopCustom(subject->v.ptr, qwhere, listPopSaver, s, &value,
                            &v))
        return NULL;
    return value ? value : createStringObjectFromLongLong(s, v);
}

/* Sets it at index, to walk towards the head (LIST_HEAD) or the tail
 * (LIST_TAIL). Returns 0 if index is out of range. */
static int listTypeInitIterator(robj *subject, long long index,
                                int direction, quicklistIter *it) {
    int dir = direction == LIST_HEAD ? AL_START_TAIL : AL_START_HEAD;
    return quicklistGetIteratorAtIdx(subject->v.ptr, dir, index, it);
}

/* Whether the entry reads as the bytes of the string object o. */
static int listTypeEqual(const quicklistEntry *entry, robj *o) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(o, buf, &len);
    return quicklistCompare(entry, (const unsigned char *)p, len);
}

/* Replies with one element. */
static void addReplyListEntry(client *c, const quicklistEntry *e) {
    if (e->value) addReplyBulkCBuffer(c, e->value, e->sz);
    else addReplyBulkLongLong(c, e->longval);
}

/* Replies with the elements from start to end inclusive, as LRANGE
 * counts them (negative: from the tail; out-of-range ends clamped; an
 * empty array when start is past end or the list); from end to start
 * with reverse. */
static void addListRangeReply(client *c, robj *o, long long start,
                              long long end, int reverse) {
    long long llen = (long long)listTypeLength(o);
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        addReplyProto(c, LIST_REPLY_EMPTY_ARRAY, 4);
        return;
    }
    if (end >= llen) end = llen - 1;
    long long rangelen = end - start + 1;
    addReplyArrayLen(c, rangelen);
    listCharge(c->srv, (unsigned long long)rangelen);
    quicklistIter it;
    quicklistEntry entry;
    listTypeInitIterator(o, reverse ? end : start,
                         reverse ? LIST_HEAD : LIST_TAIL, &it);
    while (rangelen--) {
        if (!quicklistNext(&it, &entry))
            memPanic("list: fewer elements than its length");
        addReplyListEntry(c, &entry);
    }
    quicklistReleaseIterator(&it);
}

/* After count elements were popped from the where end of key's list o:
 * the pop is notified, the key goes if the list is empty ("del"),
 * watchers are told, the server is count writes dirtier. Returns 1 if
 * the key was deleted. */
static int listElementsRemoved(client *c, robj *key, int where, robj *o,
                               long long count) {
    int deleted = 0;
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST,
                        where == LIST_HEAD ? "lpop" : "rpop", key, c->db->id);
    if (listTypeLength(o) == 0) {
        dbDelete(c->srv, c->db, key);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", key, c->db->id);
        deleted = 1;
    }
    signalModifiedKey(c, c->db, key);
    c->srv->dirty += count;
    return deleted;
}

/* Pops up to count elements from one end of key's list o and replies
 * [key, [elements]] in the order they were popped, as LMPOP does. */
static void listPopRangeAndReplyWithKey(client *c, robj *o, robj *key,
                                        int where, long long count) {
    long long llen = (long long)listTypeLength(o);
    long long rangelen = count > llen ? llen : count;
    long long rangestart = where == LIST_HEAD ? 0 : -rangelen;
    long long rangeend = where == LIST_HEAD ? rangelen - 1 : -1;
    addReplyArrayLen(c, 2);
    addReplyBulk(c, key);
    addListRangeReply(c, o, rangestart, rangeend, where == LIST_TAIL);
    quicklistDelRange(o->v.ptr, rangestart, rangelen);
    listElementsRemoved(c, key, where, o, rangelen);
}

/* ---- Pushing ---- */

/* LPUSH, RPUSH, LPUSHX, RPUSHX key element [element ...]: pushes each
 * element in turn (so LPUSH a b c leaves c first) and replies the new
 * length. The X forms only push onto an existing list, replying 0
 * otherwise. */
static void pushGenericCommand(client *c, int where, int xx) {
    redisServer *s = c->srv;
    robj *lobj = lookupKeyWrite(c, c->argv[1]);
    if (checkType(c, lobj, OBJ_LIST)) return;
    if (!lobj) {
        if (xx) {
            addReplyProto(c, LIST_REPLY_ZERO, 4);
            return;
        }
        lobj = createQuicklistObject(s);
        dbAdd(s, c->db, c->argv[1], lobj);
    }
    for (int j = 2; j < c->argc; j++) {
        listTypePush(lobj, c->argv[j], where);
        s->dirty++;
    }
    addReplyLongLong(c, (long long)listTypeLength(lobj));
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_LIST, where == LIST_HEAD ? "lpush"
                                                           : "rpush",
                        c->argv[1], c->db->id);
}

void lpushCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 0); }
void rpushCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 0); }
void lpushxCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 1); }
void rpushxCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 1); }

/* LINSERT key BEFORE|AFTER pivot element: inserts next to the first
 * element equal to pivot, from the head. Replies the new length, -1 if
 * no element is pivot, 0 if there is no list. */
void linsertCommand(client *c) {
    int after;
    if (!strcasecmp(c->argv[2]->v.ptr, "after")) after = 1;
    else if (!strcasecmp(c->argv[2]->v.ptr, "before")) after = 0;
    else { addReplyError(c, "syntax error"); return; }
    robj *subject = lookupKeyWriteOrReply(c, c->argv[1], LIST_REPLY_ZERO);
    if (!subject || checkType(c, subject, OBJ_LIST)) return;
    quicklistIter it;
    quicklistEntry entry;
    int inserted = 0;
    unsigned long long visited = 0;
    listTypeInitIterator(subject, 0, LIST_TAIL, &it);
    while (quicklistNext(&it, &entry)) {
        visited++;
        if (!listTypeEqual(&entry, c->argv[3])) continue;
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(c->argv[4], buf, &len);
        if (after) quicklistInsertAfter(&it, &entry, p, len);
        else quicklistInsertBefore(&it, &entry, p, len);
        inserted = 1;
        break;
    }
    quicklistReleaseIterator(&it);
    listCharge(c->srv, visited);
    if (!inserted) {
        addReplyLongLong(c, -1);
        return;
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST, "linsert", c->argv[1],
                        c->db->id);
    c->srv->dirty++;
    addReplyLongLong(c, (long long)listTypeLength(subject));
}

/* ---- Reading ---- */

/* LLEN key: the length, 0 if there is no list. */
void llenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], LIST_REPLY_ZERO);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    addReplyLongLong(c, (long long)listTypeLength(o));
}

/* LINDEX key index: the element (negative index: from the tail), or null.
 * The key is looked at before the index is parsed, so a missing key
 * replies null even to a bad index. */
void lindexCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], LIST_REPLY_NULL);
    long long index;
    if (!o || checkType(c, o, OBJ_LIST)) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK)
        return;
    quicklistIter it;
    quicklistEntry entry;
    if (quicklistGetIteratorEntryAtIdx(o->v.ptr, index, &it, &entry)) {
        addReplyListEntry(c, &entry);
        quicklistReleaseIterator(&it);
    } else {
        addReplyNull(c);
    }
}

/* LRANGE key start stop: see addListRangeReply. */
void lrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], LIST_REPLY_EMPTY_ARRAY);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    addListRangeReply(c, o, start, end, 0);
}

/* Where LPOS is. */
typedef struct lposOpts {
    long long rank;             /* 1: the first match; negative: from the
                                   tail */
    long long count;            /* -1: not given (reply one index) */
    long long maxlen;           /* elements to look at, 0: all */
} lposOpts;

/* LPOS's options, left to right. C_ERR after replying. */
static int lposParse(client *c, lposOpts *o) {
    o->rank = 1;
    o->count = -1;
    o->maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int more = c->argc - 1 - j;
        if (!strcasecmp(opt, "rank") && more) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &o->rank,
                                             NULL) != C_OK) return C_ERR;
            if (o->rank == 0) {
                addReplyError(c, "RANK can't be zero: use 1 to start from "
                              "the first match, 2 from the second ... or "
                              "use negative to start from the end of the "
                              "list");
                return C_ERR;
            }
        } else if (!strcasecmp(opt, "count") && more) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &o->count,
                    "COUNT can't be negative") != C_OK) return C_ERR;
        } else if (!strcasecmp(opt, "maxlen") && more) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j],
                    &o->maxlen, "MAXLEN can't be negative") != C_OK)
                return C_ERR;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    return C_OK;
}

/* LPOS key element [RANK rank] [COUNT num] [MAXLEN len]: the index (as
 * LINDEX counts) of the rank-th match, or with COUNT an array of up to
 * num matches from there (0: all of them). A negative rank searches from
 * the tail. Null, or an empty array with COUNT, when nothing matches.
 *
 * Redis negates a negative rank in a C long; RANK -9223372036854775808
 * stays negative there, so every match counts as past the rank. I do the
 * same arithmetic on unsigned numbers, which wraps without undefined
 * behaviour and gives the same replies. */
void lposCommand(client *c) {
    lposOpts opt;
    if (lposParse(c, &opt) != C_OK) return;
    int direction = LIST_TAIL;
    long long rank = opt.rank;
    if (rank < 0) {
        rank = (long long)(0ULL - (unsigned long long)rank);
        direction = LIST_HEAD;
    }
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (!o) {
        if (opt.count != -1) addReplyProto(c, LIST_REPLY_EMPTY_ARRAY, 4);
        else addReplyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    void *lenptr = opt.count != -1 ? addReplyDeferredLen(c) : NULL;
    quicklistIter it;
    quicklistEntry entry;
    long long llen = (long long)listTypeLength(o), index = 0, matches = 0;
    long long matchindex = -1, arraylen = 0;
    listTypeInitIterator(o, direction == LIST_HEAD ? -1 : 0, direction, &it);
    while (quicklistNext(&it, &entry) &&
           (opt.maxlen == 0 || index < opt.maxlen)) {
        if (listTypeEqual(&entry, c->argv[2])) {
            matches++;
            matchindex = direction == LIST_TAIL ? index : llen - index - 1;
            if (matches >= rank) {
                if (!lenptr) break;
                arraylen++;
                addReplyLongLong(c, matchindex);
                long long got = (long long)((unsigned long long)matches -
                                            (unsigned long long)rank + 1);
                if (opt.count && got >= opt.count) break;
            }
        }
        index++;
        matchindex = -1;        /* the walk ended without a match */
    }
    quicklistReleaseIterator(&it);
    listCharge(c->srv, (unsigned long long)index + 1);
    if (lenptr) setDeferredArrayLen(c, lenptr, arraylen);
    else if (matchindex != -1) addReplyLongLong(c, matchindex);
    else addReplyNull(c);
}

/* ---- Changing elements ---- */

/* LSET key index element: replaces the element at index. Errors: no such
 * key, index out of range (the key is looked at first). */
void lsetCommand(client *c) {
    robj *o = lookupKeyWrite(c, c->argv[1]);
    long long index;
    if (!o) {
        addReplyError(c, "no such key");
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &index, NULL) != C_OK)
        return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(c->argv[3], buf, &len);
    if (!quicklistReplaceAtIndex(o->v.ptr, index, p, len)) {
        addReplyError(c, "index out of range");
        return;
    }
    addReplyOK(c);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST, "lset", c->argv[1], c->db->id);
    c->srv->dirty++;
}

/* LREM key count element: removes the first count elements equal to
 * element (count < 0: the last -count; 0: all) and replies how many went.
 * The key goes with its last element. */
void lremCommand(client *c) {
    long long toremove, removed = 0;
    unsigned long long visited = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &toremove, NULL) != C_OK)
        return;
    robj *subject = lookupKeyWriteOrReply(c, c->argv[1], LIST_REPLY_ZERO);
    if (!subject || checkType(c, subject, OBJ_LIST)) return;
    quicklistIter it;
    quicklistEntry entry;
    if (toremove < 0) {
        toremove = (long long)(0ULL - (unsigned long long)toremove);
        listTypeInitIterator(subject, -1, LIST_HEAD, &it);
    } else {
        listTypeInitIterator(subject, 0, LIST_TAIL, &it);
    }
    while (quicklistNext(&it, &entry)) {
        visited++;
        if (!listTypeEqual(&entry, c->argv[3])) continue;
        quicklistDelEntry(&it, &entry);
        c->srv->dirty++;
        removed++;
        if (toremove && removed == toremove) break;
    }
    quicklistReleaseIterator(&it);
    listCharge(c->srv, visited);
    if (removed) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, NOTIFY_LIST, "lrem", c->argv[1],
                            c->db->id);
    }
    if (listTypeLength(subject) == 0) {
        dbDelete(c->srv, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", c->argv[1],
                            c->db->id);
    }
    addReplyLongLong(c, removed);
}

/* LTRIM key start stop: keeps only the range LRANGE would reply; an
 * empty range deletes the key. Replies +OK, also for a missing key. */
void ltrimCommand(client *c) {
    long long start, end, llen, ltrim, rtrim;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
        getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], LIST_REPLY_OK);
    if (!o || checkType(c, o, OBJ_LIST)) return;
    llen = (long long)listTypeLength(o);
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        ltrim = llen;           /* nothing is kept */
        rtrim = 0;
    } else {
        if (end >= llen) end = llen - 1;
        ltrim = start;
        rtrim = llen - end - 1;
    }
    quicklistDelRange(o->v.ptr, 0, ltrim);
    quicklistDelRange(o->v.ptr, -rtrim, rtrim);
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST, "ltrim", c->argv[1], c->db->id);
    if (listTypeLength(o) == 0) {
        dbDelete(c->srv, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", c->argv[1],
                            c->db->id);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    c->srv->dirty += ltrim + rtrim;
    addReplyOK(c);
}

/* ---- Popping ---- */

/* LPOP and RPOP key [count]. Without count: the element, or null. With
 * count: an array of up to count elements in the order popped; a null
 * array (*-1) if there is no list, an empty one for count 0. The count is
 * checked before the key. Propagated as written. */
static void popGenericCommand(client *c, int where) {
    int hascount = c->argc == 3;
    long long count = 0;
    if (c->argc > 3) {
        addReplyErrorArity(c);
        return;
    }
    if (hascount &&
        getPositiveLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK)
        return;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (!o) {
        if (hascount) addReplyNullArray(c);
        else addReplyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;
    if (hascount && !count) {
        addReplyProto(c, LIST_REPLY_EMPTY_ARRAY, 4);
        return;
    }
    if (!count) {
        robj *value = listTypePop(c->srv, o, where);
        if (!value) memPanic("list: an empty list in the keyspace");
        addReplyBulk(c, value);
        decrRefCount(c->srv, value);
        listElementsRemoved(c, c->argv[1], where, o, 1);
        return;
    }
    long long llen = (long long)listTypeLength(o);
    long long rangelen = count > llen ? llen : count;
    long long rangestart = where == LIST_HEAD ? 0 : -rangelen;
    long long rangeend = where == LIST_HEAD ? rangelen - 1 : -1;
    addListRangeReply(c, o, rangestart, rangeend, where == LIST_TAIL);
    quicklistDelRange(o->v.ptr, rangestart, rangelen);
    listElementsRemoved(c, c->argv[1], where, o, rangelen);
}

void lpopCommand(client *c) { popGenericCommand(c, LIST_HEAD); }
void rpopCommand(client *c) { popGenericCommand(c, LIST_TAIL); }

/* LEFT or RIGHT (any case) as LIST_HEAD or LIST_TAIL; C_ERR after
 * replying a syntax error. */
static int getListPositionFromObjectOrReply(client *c, robj *arg,
                                            int *where) {
    if (!strcasecmp(arg->v.ptr, "right")) *where = LIST_TAIL;
    else if (!strcasecmp(arg->v.ptr, "left")) *where = LIST_HEAD;
    else {
        addReplyError(c, "syntax error");
        return C_ERR;
    }
    return C_OK;
}

/* Pops up to count elements from the first of keys[0..numkeys) that holds
 * a list, replying [key, [elements]]; a null array if none does. A key of
 * another type before it is WRONGTYPE. Propagated as LPOP or RPOP of
 * that key with the number popped, which replays the same. */
static void mpopGenericCommand(client *c, robj **keys, long long numkeys,
                               int where, long long count) {
    redisServer *s = c->srv;
    for (long long j = 0; j < numkeys; j++) {
        robj *key = keys[j];
        robj *o = lookupKeyWrite(c, key);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        long long llen = (long long)listTypeLength(o);
        if (llen == 0) continue;
        listPopRangeAndReplyWithKey(c, o, key, where, count);
        robj *verb = createStringObject(s, where == LIST_HEAD ? "LPOP"
                                                              : "RPOP", 4);
        robj *n = createStringObjectFromLongLong(s, count > llen ? llen
                                                                 : count);
        rewriteClientCommandVector(c, 3, verb, key, n);
        decrRefCount(s, verb);
        decrRefCount(s, n);
        return;
    }
    addReplyNullArray(c);
}

/* Parses LMPOP's arguments from numkeys at argv[numkeys_idx] (BLMPOP's
 * come after its timeout): the key count, the end and the count (1 if
 * not given). C_ERR after replying. */
static int lmpopParse(client *c, int numkeys_idx, long long *numkeys,
                      int *where, long long *count) {
    *count = -1;
    if (getRangeLongFromObjectOrReply(c, c->argv[numkeys_idx], 1, LLONG_MAX,
            numkeys, "numkeys should be greater than 0") != C_OK)
        return C_ERR;
    /* Where LEFT|RIGHT must be; counted so that no numkeys overflows. */
    if (*numkeys >= c->argc - numkeys_idx - 1) {
        addReplyError(c, "syntax error");
        return C_ERR;
    }
    int where_idx = numkeys_idx + 1 + (int)*numkeys;
    if (getListPositionFromObjectOrReply(c, c->argv[where_idx], where)
        != C_OK) return C_ERR;
    for (int j = where_idx + 1; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int more = c->argc - 1 - j;
        if (*count == -1 && !strcasecmp(opt, "count") && more) {
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

/* LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]. */
void lmpopCommand(client *c) {
    long long numkeys, count;
    int where;
    if (lmpopParse(c, 1, &numkeys, &where, &count) != C_OK) return;
    mpopGenericCommand(c, c->argv + 2, numkeys, where, count);
}

/* ---- Moving ---- */

/* Pushes value onto dstkey's list dstobj (created if NULL) and replies
 * with it. */
static void lmoveHandlePush(client *c, robj *dstkey, robj *dstobj,
                            robj *value, int where) {
    if (!dstobj) {
        dstobj = createQuicklistObject(c->srv);
        dbAdd(c->srv, c->db, dstkey, dstobj);
    }
    signalModifiedKey(c, c->db, dstkey);
    listTypePush(dstobj, value, where);
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST,
                        where == LIST_HEAD ? "lpush" : "rpush", dstkey,
                        c->db->id);
    addReplyBulk(c, value);
}

/* Pops from argv[1]'s list at wherefrom and pushes onto argv[2]'s at
 * whereto (the same list is fine: a rotation). Replies the element, or
 * null if there is no source list; WRONGTYPE for either key, checked
 * before anything moves. */
static void lmoveGenericCommand(client *c, int wherefrom, int whereto) {
    robj *sobj = lookupKeyWriteOrReply(c, c->argv[1], LIST_REPLY_NULL);
    if (!sobj || checkType(c, sobj, OBJ_LIST)) return;
    if (listTypeLength(sobj) == 0) {    /* only from very old RDB files */
        addReplyNull(c);
        return;
    }
    robj *dobj = lookupKeyWrite(c, c->argv[2]);
    robj *touchedkey = c->argv[1];
    if (checkType(c, dobj, OBJ_LIST)) return;
    robj *value = listTypePop(c->srv, sobj, wherefrom);
    lmoveHandlePush(c, c->argv[2], dobj, value, whereto);
    decrRefCount(c->srv, value);
    notifyKeyspaceEvent(c->srv, NOTIFY_LIST,
                        wherefrom == LIST_HEAD ? "lpop" : "rpop", touchedkey,
                        c->db->id);
    if (listTypeLength(sobj) == 0) {
        dbDelete(c->srv, c->db, touchedkey);
        notifyKeyspaceEvent(c->srv, NOTIFY_GENERIC, "del", touchedkey,
                            c->db->id);
    }
    signalModifiedKey(c, c->db, touchedkey);
    c->srv->dirty++;
    /* The blocking forms that did not block replay as the plain ones. */
    if (c->cmd->proc == blmoveCommand) {
        robj *verb = createStringObject(c->srv, "LMOVE", 5);
        rewriteClientCommandVector(c, 5, verb, c->argv[1], c->argv[2],
                                   c->argv[3], c->argv[4]);
        decrRefCount(c->srv, verb);
    } else if (c->cmd->proc == brpoplpushCommand) {
        robj *verb = createStringObject(c->srv, "RPOPLPUSH", 9);
        rewriteClientCommandVector(c, 3, verb, c->argv[1], c->argv[2]);
        decrRefCount(c->srv, verb);
    }
}

/* LMOVE source destination LEFT|RIGHT LEFT|RIGHT */
void lmoveCommand(client *c) {
    int wherefrom, whereto;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK ||
        getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK)
        return;
    lmoveGenericCommand(c, wherefrom, whereto);
}

/* RPOPLPUSH source destination: LMOVE source destination RIGHT LEFT. */
void rpoplpushCommand(client *c) {
    lmoveGenericCommand(c, LIST_TAIL, LIST_HEAD);
}

/* A copy of a list, node for node, refcount 1 (COPY). */
robj *listTypeDup(redisServer *s, robj *o) {
    robj *l = createObject(s, OBJ_LIST, quicklistDup(o->v.ptr));
    l->encoding = OBJ_ENCODING_QUICKLIST;
    return l;
}

/* ---- Blocking ---- */

/* LPOP or RPOP as a new string object, for propagation. */
static robj *listPopVerb(redisServer *s, int where) {
    return createStringObject(s, where == LIST_HEAD ? "LPOP" : "RPOP", 4);
}

/* "left" or "right" as a new string object, for propagation. */
static robj *listPositionObject(redisServer *s, int where) {
    return where == LIST_HEAD ? createStringObject(s, "left", 4)
                              : createStringObject(s, "right", 5);
}

/* Serves BLMOVE and BRPOPLPUSH: pops from key's list o and pushes onto
 * the destination, replying the element, propagated as the LMOVE (or
 * RPOPLPUSH) it amounts to. A destination of another type is WRONGTYPE
 * for the receiver, and nothing moves. */
static void serveBlockedMove(client *rc, robj *o, robj *key, redisDb *db) {
    redisServer *s = rc->srv;
    robj *dstkey = rc->bpop.target;
    robj *dstobj = lookupKeyWrite(rc, dstkey);
    if (dstobj && checkType(rc, dstobj, OBJ_LIST)) return;
    robj *value = listTypePop(s, o, rc->bpop.wherefrom);
    if (!value) memPanic("list: an empty list in the keyspace");
    lmoveHandlePush(rc, dstkey, dstobj, value, rc->bpop.whereto);
    decrRefCount(s, value);
    notifyKeyspaceEvent(s, NOTIFY_LIST, rc->bpop.wherefrom == LIST_HEAD
                                        ? "lpop" : "rpop", key, db->id);
    int isbrpoplpush = rc->lastcmd && rc->lastcmd->proc == brpoplpushCommand;
    robj *argv[5];
    argv[0] = isbrpoplpush ? createStringObject(s, "RPOPLPUSH", 9)
                           : createStringObject(s, "LMOVE", 5);
    argv[1] = key;
    argv[2] = dstkey;
    argv[3] = listPositionObject(s, rc->bpop.wherefrom);
    argv[4] = listPositionObject(s, rc->bpop.whereto);
    alsoPropagate(s, db->id, argv, isbrpoplpush ? 3 : 5);
    decrRefCount(s, argv[0]);
    decrRefCount(s, argv[3]);
    decrRefCount(s, argv[4]);
}

/* The blockServeProc of lists (blocked.c): serves one client blocked on
 * key, whose list o is not empty, as Redis 7.0 does -- BLPOP and BRPOP
 * reply [key, element], propagated as LPOP/RPOP key; BLMPOP replies [key,
 * [elements]], propagated as LPOP/RPOP key count; BLMOVE see above. No
 * WATCH is touched for a plain pop (the push that made the key ready
 * did), and only BLMPOP counts its elements as dirty, as in 7.0. Returns
 * 1 if the list was emptied and deleted. */
int serveClientBlockedOnList(client *rc, robj *o, robj *key, redisDb *db) {
    redisServer *s = rc->srv;
    int where = rc->bpop.wherefrom;
    if (rc->bpop.target) {
        serveBlockedMove(rc, o, key, db);
    } else if (rc->lastcmd && rc->lastcmd->proc == blmpopCommand) {
        long long count = rc->bpop.count;
        long long llen = (long long)listTypeLength(o);
        robj *argv[3] = { listPopVerb(s, where), key,
            createStringObjectFromLongLong(s, count > llen ? llen : count) };
        alsoPropagate(s, db->id, argv, 3);
        decrRefCount(s, argv[0]);
        decrRefCount(s, argv[2]);
        listPopRangeAndReplyWithKey(rc, o, key, where, count);
        return !dictFind(db->dict, key->v.ptr);
    } else {
        robj *argv[2] = { listPopVerb(s, where), key };
        alsoPropagate(s, db->id, argv, 2);
        decrRefCount(s, argv[0]);
        robj *value = listTypePop(s, o, where);
        if (!value) memPanic("list: an empty list in the keyspace");
        addReplyArrayLen(rc, 2);
        addReplyBulk(rc, key);
        addReplyBulk(rc, value);
        decrRefCount(s, value);
        notifyKeyspaceEvent(s, NOTIFY_LIST,
                            where == LIST_HEAD ? "lpop" : "rpop", key, db->id);
    }
    if (listTypeLength(o) != 0) return 0;
    dbDelete(s, db, key);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", key, db->id);
    return 1;
}

/* BLPOP, BRPOP and BLMPOP: pops from the first of keys[0..numkeys) that
 * holds a list, as LPOP/RPOP (count -1) or LMPOP would, propagated as
 * LPOP/RPOP key [count]; a key of another type first is WRONGTYPE. If
 * none does, the client blocks on all of them until timeout -- or, where
 * it may not block, replies a null array at once. */
static void blockingPopGenericCommand(client *c, robj **keys, int numkeys,
                                      int where, int timeout_idx,
                                      long long count) {
    redisServer *s = c->srv;
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[timeout_idx], &timeout)
        != C_OK) return;
    for (int j = 0; j < numkeys; j++) {
        robj *key = keys[j];
        robj *o = lookupKeyWrite(c, key);
        if (!o) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        if (listTypeLength(o) == 0) continue;
        if (count != -1) {
            mpopGenericCommand(c, keys + j, 1, where, count);
            return;
        }
        robj *value = listTypePop(s, o, where);
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        addReplyBulk(c, value);
        decrRefCount(s, value);
        listElementsRemoved(c, key, where, o, 1);
        robj *verb = listPopVerb(s, where);
        rewriteClientCommandVector(c, 2, verb, key);
        decrRefCount(s, verb);
        return;
    }
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, BLOCKED_LIST, keys, numkeys, count, timeout, NULL, where,
                 LIST_HEAD);
}

/* BLPOP key [key ...] timeout */
void blpopCommand(client *c) {
    blockingPopGenericCommand(c, c->argv + 1, c->argc - 2, LIST_HEAD,
                              c->argc - 1, -1);
}

/* BRPOP key [key ...] timeout */
void brpopCommand(client *c) {
    blockingPopGenericCommand(c, c->argv + 1, c->argc - 2, LIST_TAIL,
                              c->argc - 1, -1);
}

/* BLMOVE and BRPOPLPUSH once parsed: LMOVE if the source holds a list;
 * otherwise block on the source (a null bulk where blocking is not
 * allowed). */
static void blmoveGenericCommand(client *c, int wherefrom, int whereto,
                                 long long timeout) {
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (o) {
        lmoveGenericCommand(c, wherefrom, whereto);
    } else if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyNull(c);
    } else {
        blockForKeys(c, BLOCKED_LIST, c->argv + 1, 1, -1, timeout,
                     c->argv[2], wherefrom, whereto);
    }
}

/* BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
void blmoveCommand(client *c) {
    int wherefrom, whereto;
    long long timeout;
    if (getListPositionFromObjectOrReply(c, c->argv[3], &wherefrom) != C_OK ||
        getListPositionFromObjectOrReply(c, c->argv[4], &whereto) != C_OK ||
        getTimeoutFromObjectOrReply(c, c->argv[5], &timeout) != C_OK)
        return;
    blmoveGenericCommand(c, wherefrom, whereto, timeout);
}

/* BRPOPLPUSH source destination timeout */
void brpoplpushCommand(client *c) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[3], &timeout) != C_OK) return;
    blmoveGenericCommand(c, LIST_TAIL, LIST_HEAD, timeout);
}

/* BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void blmpopCommand(client *c) {
    long long numkeys, count;
    int where;
    if (lmpopParse(c, 2, &numkeys, &where, &count) != C_OK) return;
    blockingPopGenericCommand(c, c->argv + 3, (int)numkeys, where, 1, count);
}
