/* t_stream_cg.c -- consumer groups and introspection: XGROUP, XACK,
 * XPENDING, XCLAIM, XAUTOCLAIM and XINFO, as Redis 7.0 replies and
 * propagates them.
 *
 * XCLAIM and XAUTOCLAIM are not propagated as given: what they changed
 * is, one XCLAIM ... FORCE JUSTID LASTID per entry claimed (the NACK's
 * exact new time and count), also for a pending entry found deleted from
 * the stream, which the claim drops from the PEL; and XCLAIM's LASTID
 * alone as XGROUP SETID. */
#include <string.h>
#include <strings.h>
#include "t_stream_cmd.h"

/* ---- XGROUP ---- */

static const char *xgroupHelp[] = {
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    NULL
};

/* XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]. */
static void _xgroupCreate(client *c, robj *o, stream *st, sds grpname,
                          int mkstream, long long entries_read) {
    redisServer *s = c->srv;
    streamID id;
    if (!strcmp(c->argv[4]->v.ptr, "$")) {
        if (st) id = st->last_id;
        else id.ms = id.seq = 0;
    } else if (streamParseStrictIDOrReply(c, c->argv[4], &id, 0, NULL) !=
               C_OK) {
        return;
    }
    if (!st) {
        (void)mkstream;
        o = createStreamObject(s);
        dbAdd(s, c->db, c->argv[2], o);
        st = o->v.ptr;
        signalModifiedKey(c, c->db, c->argv[2]);
    }
    if (streamCreateCG(s, st, grpname, sdslen(grpname), &id, entries_read)) {
        addReplyOK(c);
        s->dirty++;
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xgroup-create", c->argv[2],
                            c->db->id);
    } else {
        addReplyError(c, "-BUSYGROUP Consumer Group name already exists");
    }
}

/* The handler of every XGROUP subcommand. */
void xgroupCommand(client *c) {
    redisServer *s = c->srv;
    const char *opt = c->argv[1]->v.ptr;
    stream *st = NULL;
    sds grpname = NULL;
    streamCG *cg = NULL;
    robj *o = NULL;
    int mkstream = 0;
    long long entries_read = SCG_INVALID_ENTRIES_READ;
    if (c->argc >= 4) {
        int create = !strcasecmp(opt, "CREATE");
        int setid = !strcasecmp(opt, "SETID");
        for (int i = 5; i < c->argc;) {
            if (create && !strcasecmp(c->argv[i]->v.ptr, "MKSTREAM")) {
                mkstream = 1;
                i++;
            } else if ((create || setid) &&
                       !strcasecmp(c->argv[i]->v.ptr, "ENTRIESREAD") &&
                       i + 1 < c->argc) {
                if (getLongLongFromObjectOrReply(c, c->argv[i + 1],
                                                 &entries_read, NULL) != C_OK)
                    return;
                if (entries_read < 0 &&
                    entries_read != SCG_INVALID_ENTRIES_READ) {
                    addReplyError(c, "value for ENTRIESREAD must be "
                                  "positive or -1");
                    return;
                }
                i += 2;
            } else {
                addReplySubcommandSyntaxError(c);
                return;
            }
        }
        o = lookupKeyWrite(c, c->argv[2]);
        if (o) {
            if (checkType(c, o, OBJ_STREAM)) return;
            st = o->v.ptr;
        }
        grpname = c->argv[3]->v.ptr;
    }
    if (c->argc >= 4 && !mkstream) {
        if (!st) {
            addReplyError(c, "The XGROUP subcommand requires the key to "
                "exist. Note that for CREATE you may want to use the "
                "MKSTREAM option to create an empty stream automatically.");
            return;
        }
        if ((cg = streamLookupCG(st, grpname)) == NULL &&
            (!strcasecmp(opt, "SETID") ||
             !strcasecmp(opt, "CREATECONSUMER") ||
             !strcasecmp(opt, "DELCONSUMER"))) {
            addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for "
                                "key name '%s'", grpname,
                                (char *)c->argv[2]->v.ptr);
            return;
        }
    }
    if (c->argc == 2 && !strcasecmp(opt, "HELP")) {
        addReplyHelp(c, xgroupHelp);
    } else if (!strcasecmp(opt, "CREATE") && c->argc >= 5 && c->argc <= 8) {
        _xgroupCreate(c, o, st, grpname, mkstream, entries_read);
    } else if (!strcasecmp(opt, "SETID") && (c->argc == 5 || c->argc == 7)) {
        streamID id;
        if (!strcmp(c->argv[4]->v.ptr, "$")) id = st->last_id;
        else if (streamParseIDOrReply(c, c->argv[4], &id, 0) != C_OK) return;
        cg->last_id = id;
        cg->entries_read = entries_read;
        addReplyOK(c);
        s->dirty++;
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xgroup-setid", c->argv[2],
                            c->db->id);
    } else if (!strcasecmp(opt, "DESTROY") && c->argc == 4) {
        if (!cg) {
            addReplyLongLong(c, 0);
            return;
        }
        raxRemove(st->cgroups, (unsigned char *)grpname, sdslen(grpname),
                  NULL);
        streamFreeCG(s, cg);
        addReplyLongLong(c, 1);
        s->dirty++;
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xgroup-destroy", c->argv[2],
                            c->db->id);
        /* Clients blocked in XREADGROUP on it learn it is gone. */
        signalKeyAsReady(s, c->db, c->argv[2], OBJ_STREAM);
    } else if (!strcasecmp(opt, "CREATECONSUMER") && c->argc == 5) {
        streamConsumer *created = streamCreateConsumer(c, cg,
            c->argv[4]->v.ptr, c->argv[2], c->db->id, SCC_DEFAULT);
        addReplyLongLong(c, created ? 1 : 0);
    } else if (!strcasecmp(opt, "DELCONSUMER") && c->argc == 5) {
        long long pending = 0;
        streamConsumer *consumer = streamLookupConsumer(s, cg,
            c->argv[4]->v.ptr, SLC_NO_REFRESH);
        if (consumer) {
            pending = (long long)raxSize(consumer->pel);
            streamDelConsumer(s, cg, consumer);
            s->dirty++;
            notifyKeyspaceEvent(s, NOTIFY_STREAM, "xgroup-delconsumer",
                                c->argv[2], c->db->id);
        }
        addReplyLongLong(c, pending);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ---- XACK ---- */

/* XACK key group id [id ...]: the pending entries acknowledged. */
void xackCommand(client *c) {
    redisServer *s = c->srv;
    streamCG *group = NULL;
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (o) {
        if (checkType(c, o, OBJ_STREAM)) return;
        group = streamLookupCG(o->v.ptr, c->argv[2]->v.ptr);
    }
    if (!o || !group) {
        addReplyLongLong(c, 0);
        return;
    }
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    streamID *ids = streamParseIDsOrReply(c, 3, static_ids, 1);
    if (!ids) return;
    int acknowledged = 0;
    for (int j = 3; j < c->argc; j++) {
        unsigned char buf[16];
        void *p;
        streamEncodeID(buf, &ids[j - 3]);
        if (!raxFind(group->pel, buf, 16, &p)) continue;
        streamNACK *nack = p;
        raxRemove(group->pel, buf, 16, NULL);
        raxRemove(nack->consumer->pel, buf, 16, NULL);
        memFree(s->mem, nack);
        acknowledged++;
        s->dirty++;
    }
    addReplyLongLong(c, acknowledged);
    if (ids != static_ids) memFree(s->mem, ids);
}

/* ---- XPENDING ---- */

/* The summary: count, smallest and greatest ID, and per consumer with
 * pending entries its count. */
static void _xpendingSummary(client *c, streamCG *group) {
    addReplyArrayLen(c, 4);
    addReplyLongLong(c, (long long)raxSize(group->pel));
    if (raxSize(group->pel) == 0) {
        addReplyNull(c);
        addReplyNull(c);
        addReplyNullArray(c);
        return;
    }
    raxIterator ri;
    streamID id;
    raxStart(&ri, group->pel);
    raxSeek(&ri, "^", NULL, 0);
    raxNext(&ri);
    streamDecodeID(ri.key, &id);
    addReplyStreamID(c, &id);
    raxSeek(&ri, "$", NULL, 0);
    raxNext(&ri);
    streamDecodeID(ri.key, &id);
    addReplyStreamID(c, &id);
    raxStop(&ri);
    raxStart(&ri, group->consumers);
    raxSeek(&ri, "^", NULL, 0);
    void *lenptr = addReplyDeferredLen(c);
    long n = 0;
    while (raxNext(&ri)) {
        streamConsumer *consumer = ri.data;
        if (raxSize(consumer->pel) == 0) continue;
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkLongLong(c, (long long)raxSize(consumer->pel));
        n++;
    }
    setDeferredArrayLen(c, lenptr, n);
    raxStop(&ri);
}

/* The extended form: [id, consumer, idle ms, deliveries] for each pending
 * entry from start to end, at most count, at least minidle idle. */
static void _xpendingRange(client *c, rax *pel, streamID *start,
                           streamID *end, long long count,
                           long long minidle) {
    unsigned char startkey[16], endkey[16];
    long long now = c->srv->mstime;
    raxIterator ri;
    long n = 0;
    streamEncodeID(startkey, start);
    streamEncodeID(endkey, end);
    raxStart(&ri, pel);
    raxSeek(&ri, ">=", startkey, 16);
    void *lenptr = addReplyDeferredLen(c);
    while (count && raxNext(&ri) && memcmp(ri.key, endkey, 16) <= 0) {
        streamNACK *nack = ri.data;
        if (minidle && now - nack->delivery_time < minidle) continue;
        n++;
        count--;
        streamID id;
        streamDecodeID(ri.key, &id);
        addReplyArrayLen(c, 4);
        addReplyStreamID(c, &id);
        addReplyBulkCBuffer(c, nack->consumer->name,
                            sdslen(nack->consumer->name));
        long long elapsed = now - nack->delivery_time;
        addReplyLongLong(c, elapsed < 0 ? 0 : elapsed);
        addReplyLongLong(c, (long long)nack->delivery_count);
    }
    raxStop(&ri);
    setDeferredArrayLen(c, lenptr, n);
}

/* The consumer group argv[2] of the stream o (argv[1], NULL if missing),
 * or NULL after replying WRONGTYPE or -NOGROUP. */
static streamCG *_groupOrReply(client *c, robj *o) {
    if (checkType(c, o, OBJ_STREAM)) return NULL;
    streamCG *group = o ? streamLookupCG(o->v.ptr, c->argv[2]->v.ptr) : NULL;
    if (!group)
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group "
                            "'%s'", (char *)c->argv[1]->v.ptr,
                            (char *)c->argv[2]->v.ptr);
    return group;
}

/* XPENDING key group [[IDLE min-idle] start end count [consumer]]. */
void xpendingCommand(client *c) {
    int justinfo = c->argc == 3;
    robj *consumername = NULL;
    streamID start, end;
    long long count = 0, minidle = 0;
    int startex = 0, endex = 0;
    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        addReplyError(c, "syntax error");
        return;
    }
    if (c->argc >= 6) {
        int startidx = 3;
        if (!strcasecmp(c->argv[3]->v.ptr, "IDLE")) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle,
                                             NULL) != C_OK)
                return;
            if (c->argc < 8) {
                addReplyError(c, "syntax error");
                return;
            }
            startidx += 2;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[startidx + 2], &count,
                                         NULL) != C_OK)
            return;
        if (count < 0) count = 0;
        if (streamParseIntervalIDOrReply(c, c->argv[startidx], &start,
                                         &startex, 0) != C_OK)
            return;
        if (startex && streamIncrID(&start) != C_OK) {
            addReplyError(c, "invalid start ID for the interval");
            return;
        }
        if (streamParseIntervalIDOrReply(c, c->argv[startidx + 1], &end,
                                         &endex, UINT64_MAX) != C_OK)
            return;
        if (endex && streamDecrID(&end) != C_OK) {
            addReplyError(c, "invalid end ID for the interval");
            return;
        }
        if (startidx + 3 < c->argc) consumername = c->argv[startidx + 3];
    }
    robj *o = lookupKeyRead(c, c->argv[1]);
    streamCG *group = _groupOrReply(c, o);
    if (!group) return;
    if (justinfo) {
        _xpendingSummary(c, group);
        return;
    }
    rax *pel = group->pel;
    if (consumername) {
        streamConsumer *consumer = streamLookupConsumer(c->srv, group,
            consumername->v.ptr, SLC_NO_REFRESH);
        if (!consumer) {
            addReplyArrayLen(c, 0);
            return;
        }
        pel = consumer->pel;
    }
    _xpendingRange(c, pel, &start, &end, count, minidle);
}

/* ---- XCLAIM and XAUTOCLAIM ---- */

/* Drops a pending entry whose stream entry was deleted, propagating the
 * claim that drops it on a replica too. */
static void _streamDropDeletedNACK(client *c, streamCG *group,
                                   robj *groupname, robj *idarg,
                                   unsigned char *buf, streamNACK *nack) {
    streamPropagateXCLAIM(c, c->argv[1], group, groupname, idarg, nack);
    c->srv->dirty++;
    raxRemove(group->pel, buf, 16, NULL);
    raxRemove(nack->consumer->pel, buf, 16, NULL);
    memFree(c->srv->mem, nack);
}

/* Moves nack (of buf) to consumer. */
static void _streamNACKChangeOwner(streamNACK *nack, streamConsumer *consumer,
                                   unsigned char *buf) {
    if (nack->consumer == consumer) return;
    if (nack->consumer) raxRemove(nack->consumer->pel, buf, 16, NULL);
    raxInsert(consumer->pel, buf, 16, nack, NULL);
    nack->consumer = consumer;
}

/* XCLAIM's options after the IDs. */
typedef struct xclaimArgs {
    long long minidle, retrycount, deliverytime;
    int force, justid;
    streamID last_id;
} xclaimArgs;

/* Parses the options from argv[j]; C_ERR after replying. */
static int _xclaimParseOptions(client *c, int j, long long now,
                               xclaimArgs *a) {
    for (; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "FORCE")) {
            a->force = 1;
        } else if (!strcasecmp(opt, "JUSTID")) {
            a->justid = 1;
        } else if (!strcasecmp(opt, "IDLE") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &a->deliverytime,
                    "Invalid IDLE option argument for XCLAIM") != C_OK)
                return C_ERR;
            a->deliverytime = now - a->deliverytime;
        } else if (!strcasecmp(opt, "TIME") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &a->deliverytime,
                    "Invalid TIME option argument for XCLAIM") != C_OK)
                return C_ERR;
        } else if (!strcasecmp(opt, "RETRYCOUNT") && moreargs) {
            j++;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &a->retrycount,
                    "Invalid RETRYCOUNT option argument for XCLAIM") != C_OK)
                return C_ERR;
        } else if (!strcasecmp(opt, "LASTID") && moreargs) {
            j++;
            if (streamParseStrictIDOrReply(c, c->argv[j], &a->last_id, 0,
                                           NULL) != C_OK)
                return C_ERR;
        } else {
            addReplyErrorFormat(c, "Unrecognized XCLAIM option '%s'", opt);
            return C_ERR;
        }
    }
    return C_OK;
}

/* XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
 * [TIME unix-ms] [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id]: the entries
 * (or IDs) now pending for consumer. */
void xclaimCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyRead(c, c->argv[1]);
    xclaimArgs a = { 0, -1, -1, 0, 0, { 0, 0 } };
    streamCG *group = _groupOrReply(c, o);
    if (!group) return;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &a.minidle,
            "Invalid min-idle-time argument for XCLAIM") != C_OK)
        return;
    if (a.minidle < 0) a.minidle = 0;
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    streamID *ids = c->argc - 5 > STREAMID_STATIC_VECTOR_LEN
        ? memAlloc(s->mem, sizeof(streamID) * (size_t)(c->argc - 5))
        : static_ids;
    int j;
    for (j = 5; j < c->argc; j++)
        if (streamParseStrictIDOrReply(NULL, c->argv[j], &ids[j - 5], 0,
                                       NULL) != C_OK)
            break;
    int last_id_arg = j - 1;
    long long now = s->mstime;
    if (_xclaimParseOptions(c, j, now, &a) != C_OK) goto cleanup;
    int propagate_last_id = 0;
    if (streamCompareID(&a.last_id, &group->last_id) > 0) {
        group->last_id = a.last_id;
        propagate_last_id = 1;
    }
    if (a.deliverytime != -1) {
        if (a.deliverytime < 0 || a.deliverytime > now) a.deliverytime = now;
    } else {
        a.deliverytime = now;
    }
    streamConsumer *consumer = NULL;
    void *lenptr = addReplyDeferredLen(c);
    long arraylen = 0;
    sds name = c->argv[3]->v.ptr;
    stream *st = o->v.ptr;
    for (j = 5; j <= last_id_arg; j++) {
        streamID id = ids[j - 5];
        unsigned char buf[16];
        void *p = NULL;
        streamEncodeID(buf, &id);
        int pending = raxFind(group->pel, buf, 16, &p);
        streamNACK *nack = pending ? p : NULL;
        if (!streamEntryExists(st, &id)) {
            if (nack) {
                _streamDropDeletedNACK(c, group, c->argv[2], c->argv[j], buf,
                                       nack);
                propagate_last_id = 0;
            }
            continue;
        }
        if (a.force && !nack) {
            nack = streamCreateNACK(s, NULL);
            raxInsert(group->pel, buf, 16, nack, NULL);
        }
        if (!nack) continue;
        if (nack->consumer && a.minidle &&
            now - nack->delivery_time < a.minidle)
            continue;
        if (!consumer && !(consumer = streamLookupConsumer(s, group, name,
                                                           SLC_DEFAULT)))
            consumer = streamCreateConsumer(c, group, name, c->argv[1],
                                            c->db->id, SCC_DEFAULT);
        if (nack->consumer != consumer && nack->consumer)
            raxRemove(nack->consumer->pel, buf, 16, NULL);
        nack->delivery_time = a.deliverytime;
        if (a.retrycount >= 0) nack->delivery_count =
            (uint64_t)a.retrycount;
        else if (!a.justid) nack->delivery_count++;
        if (nack->consumer != consumer) {
            raxInsert(consumer->pel, buf, 16, nack, NULL);
            nack->consumer = consumer;
        }
        if (a.justid) addReplyStreamID(c, &id);
        else streamReplyWithRange(c, st, &id, &id, 1, 0, NULL, NULL,
                                  STREAM_RWR_RAWENTRIES, NULL);
        arraylen++;
        streamPropagateXCLAIM(c, c->argv[1], group, c->argv[2], c->argv[j],
                              nack);
        propagate_last_id = 0;
        s->dirty++;
    }
    if (propagate_last_id) {
        streamPropagateGroupID(c, c->argv[1], group, c->argv[2]);
        s->dirty++;
    }
    setDeferredArrayLen(c, lenptr, arraylen);
    preventCommandPropagation(c);
cleanup:
    if (ids != static_ids) memFree(s->mem, ids);
}

/* XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID]:
 * claims up to count pending entries idle for min-idle-time from start,
 * looking at most 10 times count entries. Replies [next start ID,
 * claimed entries (or IDs), IDs found deleted and dropped]. */
void xautoclaimCommand(client *c) {
    redisServer *s = c->srv;
    streamCG *group = NULL;
    robj *o = lookupKeyRead(c, c->argv[1]);
    long long minidle, count = 100;
    const long long attempts_factor = 10;
    streamID startid;
    int startex, justid = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle,
            "Invalid min-idle-time argument for XAUTOCLAIM") != C_OK)
        return;
    if (minidle < 0) minidle = 0;
    if (streamParseIntervalIDOrReply(c, c->argv[5], &startid, &startex, 0) !=
        C_OK)
        return;
    if (startex && streamIncrID(&startid) != C_OK) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    for (int j = 6; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "COUNT") && moreargs) {
            long long max_count = LONG_MAX / 16;
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], 1,
                    max_count, &count, "COUNT must be > 0") != C_OK)
                return;
            j++;
        } else if (!strcasecmp(opt, "JUSTID")) {
            justid = 1;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    group = _groupOrReply(c, o);
    if (!group) return;
    stream *st = o->v.ptr;
    streamID *claimed = memTryAlloc(s->mem, sizeof(streamID) *
                                    (size_t)count);
    streamID *deleted = memTryAlloc(s->mem, sizeof(streamID) *
                                    (size_t)count);
    if (!claimed || !deleted) {
        memFree(s->mem, claimed);
        memFree(s->mem, deleted);
        addReplyError(c, "Insufficient memory, failed allocating transient "
                      "memory, COUNT too high.");
        return;
    }
    streamConsumer *consumer = NULL;
    long long attempts = count * attempts_factor, now = s->mstime;
    long nclaimed = 0, ndeleted = 0;
    unsigned char startkey[16];
    raxIterator ri;
    sds name = c->argv[3]->v.ptr;
    streamEncodeID(startkey, &startid);
    raxStart(&ri, group->pel);
    raxSeek(&ri, ">=", startkey, 16);
    while (attempts-- && count && raxNext(&ri)) {
        streamNACK *nack = ri.data;
        streamID id;
        unsigned char buf[16];
        memcpy(buf, ri.key, 16);
        streamDecodeID(buf, &id);
        if (!streamEntryExists(st, &id)) {
            robj *idstr = createObjectFromStreamID(s, &id);
            _streamDropDeletedNACK(c, group, c->argv[2], idstr, buf, nack);
            decrRefCount(s, idstr);
            deleted[ndeleted++] = id;
            raxSeek(&ri, ">=", buf, 16);
            count--;
            continue;
        }
        if (minidle && now - nack->delivery_time < minidle) continue;
        if (!consumer && !(consumer = streamLookupConsumer(s, group, name,
                                                           SLC_DEFAULT)))
            consumer = streamCreateConsumer(c, group, name, c->argv[1],
                                            c->db->id, SCC_DEFAULT);
        nack->delivery_time = now;
        if (!justid) nack->delivery_count++;
        _streamNACKChangeOwner(nack, consumer, buf);
        claimed[nclaimed++] = id;
        count--;
        robj *idstr = createObjectFromStreamID(s, &id);
        streamPropagateXCLAIM(c, c->argv[1], group, c->argv[2], idstr, nack);
        decrRefCount(s, idstr);
        s->dirty++;
    }
    streamID endid = { 0, 0 };
    if (raxNext(&ri)) streamDecodeID(ri.key, &endid);
    raxStop(&ri);
    addReplyArrayLen(c, 3);
    addReplyStreamID(c, &endid);
    addReplyArrayLen(c, nclaimed);
    for (long i = 0; i < nclaimed; i++) {
        if (justid) addReplyStreamID(c, &claimed[i]);
        else streamReplyWithRange(c, st, &claimed[i], &claimed[i], 1, 0,
                                  NULL, NULL, STREAM_RWR_RAWENTRIES, NULL);
    }
    addReplyArrayLen(c, ndeleted);
    for (long i = 0; i < ndeleted; i++) addReplyStreamID(c, &deleted[i]);
    memFree(s->mem, claimed);
    memFree(s->mem, deleted);
    preventCommandPropagation(c);
}
