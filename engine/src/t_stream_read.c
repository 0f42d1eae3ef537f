/* t_stream_read.c -- XREAD and XREADGROUP, which read new entries of one
 * or more streams, and block for them with BLOCK, as Redis 7.0 does.
 *
 * XREAD asks for the entries past an ID per stream ("$": past the last
 * one now). XREADGROUP asks past the group's last delivered ID (">"), or
 * with any other ID for the consumer's own pending entries from there.
 * When no stream has anything past its ID and BLOCK was given, the client
 * blocks (blocked.c, BLOCKED_STREAM) with its IDs; each XADD makes the
 * key ready, and a blocked client is served only once the stream's last
 * ID is past its ID (for a group: past the group's last ID at that
 * moment, since other consumers of the group may have been served). A
 * group that disappears meanwhile (XGROUP DESTROY, the key deleted or
 * overwritten) unblocks its clients with an error. */
#include <string.h>
#include <strings.h>
#include "t_stream_cmd.h"

#define XREAD_BLOCKED_DEFAULT_COUNT 1000

/* XREAD/XREADGROUP's options. */
typedef struct xreadArgs {
    long long timeout;          /* -1: no BLOCK */
    long long count;
    int streams_arg, streams_count;
    int noack;
    robj *groupname, *consumername;
} xreadArgs;

/* Parses the options before STREAMS; C_ERR after replying. */
static int _xreadParseArgs(client *c, int xreadgroup, xreadArgs *a) {
    memset(a, 0, sizeof(*a));
    a->timeout = -1;
    for (int i = 1; i < c->argc; i++) {
        int moreargs = c->argc - i - 1;
        const char *o = c->argv[i]->v.ptr;
        if (!strcasecmp(o, "BLOCK") && moreargs) {
            /* A script may not block, and says so rather than not block
             * as MULTI does. */
            if (c->flags & CLIENT_SCRIPT) {
                addReplyErrorFormat(c, "%s command is not allowed with "
                                    "BLOCK option from scripts",
                                    (char *)c->argv[0]->v.ptr);
                return C_ERR;
            }
            i++;
            if (getTimeoutMsFromObjectOrReply(c, c->argv[i], &a->timeout) !=
                C_OK)
                return C_ERR;
        } else if (!strcasecmp(o, "COUNT") && moreargs) {
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &a->count,
                                             NULL) != C_OK)
                return C_ERR;
            if (a->count < 0) a->count = 0;
        } else if (!strcasecmp(o, "STREAMS") && moreargs) {
            a->streams_arg = i + 1;
            a->streams_count = c->argc - a->streams_arg;
            if (a->streams_count % 2 != 0) {
                addReplyError(c, "Unbalanced XREAD list of streams: for each "
                              "stream key an ID or '$' must be specified.");
                return C_ERR;
            }
            a->streams_count /= 2;
            break;
        } else if (!strcasecmp(o, "GROUP") && moreargs >= 2) {
            if (!xreadgroup) {
                addReplyError(c, "The GROUP option is only supported by "
                              "XREADGROUP. You called XREAD instead.");
                return C_ERR;
            }
            a->groupname = c->argv[i + 1];
            a->consumername = c->argv[i + 2];
            i += 2;
        } else if (!strcasecmp(o, "NOACK")) {
            if (!xreadgroup) {
                addReplyError(c, "The NOACK option is only supported by "
                              "XREADGROUP. You called XREAD instead.");
                return C_ERR;
            }
            a->noack = 1;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    if (a->streams_arg == 0) {
        addReplyError(c, "syntax error");
        return C_ERR;
    }
    if (xreadgroup && !a->groupname) {
        addReplyError(c, "Missing GROUP option for XREADGROUP");
        return C_ERR;
    }
    return C_OK;
}

/* Resolves each stream's ID (and group) into ids[i] (groups[i]); C_ERR
 * after replying. */
static int _xreadResolveIDs(client *c, int xreadgroup, xreadArgs *a,
                            streamID *ids, streamCG **groups) {
    for (int i = 0; i < a->streams_count; i++) {
        robj *key = c->argv[a->streams_arg + i];
        robj *arg = c->argv[a->streams_arg + a->streams_count + i];
        robj *o = lookupKeyRead(c, key);
        if (checkType(c, o, OBJ_STREAM)) return C_ERR;
        if (a->groupname) {
            streamCG *group = o ? streamLookupCG(o->v.ptr,
                                                 a->groupname->v.ptr) : NULL;
            if (!group) {
                addReplyErrorFormat(c, "-NOGROUP No such key '%s' or "
                    "consumer group '%s' in XREADGROUP with GROUP option",
                    (char *)key->v.ptr, (char *)a->groupname->v.ptr);
                return C_ERR;
            }
            groups[i] = group;
        }
        const char *p = arg->v.ptr;
        if (!strcmp(p, "$")) {
            if (xreadgroup) {
                addReplyError(c, "The $ ID is meaningless in the context of "
                    "XREADGROUP: you want to read the history of this "
                    "consumer by specifying a proper ID, or use the > ID to "
                    "get new messages. The $ ID would just return an empty "
                    "result set.");
                return C_ERR;
            }
            if (o) ids[i] = ((stream *)o->v.ptr)->last_id;
            else ids[i].ms = ids[i].seq = 0;
        } else if (!strcmp(p, ">")) {
            if (!xreadgroup) {
                addReplyError(c, "The > ID can be specified only when "
                    "calling XREADGROUP using the GROUP <group> <consumer> "
                    "option.");
                return C_ERR;
            }
            ids[i].ms = ids[i].seq = UINT64_MAX;
        } else if (streamParseStrictIDOrReply(c, arg, &ids[i], 0, NULL) !=
                   C_OK) {
            return C_ERR;
        }
    }
    return C_OK;
}

/* The consumer of a group read, created (and, under NOACK, propagated,
 * since no XCLAIM will carry it) if new. */
static streamConsumer *_xreadConsumer(client *c, streamCG *group,
                                      robj *key, robj *groupname,
                                      robj *consumername, int noack) {
    streamConsumer *consumer = streamLookupConsumer(c->srv, group,
        consumername->v.ptr, SLC_DEFAULT);
    if (consumer) return consumer;
    consumer = streamCreateConsumer(c, group, consumername->v.ptr, key,
                                    c->db->id, SCC_DEFAULT);
    if (noack)
        streamPropagateConsumerCreation(c, key, groupname, consumer->name);
    return consumer;
}

/* Serves what each stream has past its ID now; returns how many streams
 * had something (the reply is then written). */
static size_t _xreadServe(client *c, xreadArgs *a, streamID *ids,
                          streamCG **groups) {
    size_t arraylen = 0;
    void *lenptr = NULL;
    for (int i = 0; i < a->streams_count; i++) {
        robj *key = c->argv[a->streams_arg + i];
        robj *o = lookupKeyRead(c, key);
        if (!o) continue;
        stream *st = o->v.ptr;
        streamID *gt = &ids[i];
        int serve = 0, history = 0;
        if (groups) {
            if (gt->ms != UINT64_MAX || gt->seq != UINT64_MAX) {
                serve = history = 1;
            } else if (st->length) {
                streamID maxid;
                streamLastValidID(st, &maxid);
                serve = streamCompareID(&maxid, &groups[i]->last_id) > 0;
                /* ">": the entries past the group's last delivered. */
                if (serve) *gt = groups[i]->last_id;
            }
        } else if (st->length) {
            streamID maxid;
            streamLastValidID(st, &maxid);
            serve = streamCompareID(&maxid, gt) > 0;
        }
        if (!serve) continue;
        if (++arraylen == 1) lenptr = addReplyDeferredLen(c);
        streamID start = *gt;
        streamIncrID(&start);
        if (c->resp == 2) addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        streamConsumer *consumer = NULL;
        streamPropInfo spi = { key, a->groupname };
        if (groups)
            consumer = _xreadConsumer(c, groups[i], key, a->groupname,
                                      a->consumername, a->noack);
        int flags = (a->noack ? STREAM_RWR_NOACK : 0) |
                    (history ? STREAM_RWR_HISTORY : 0);
        streamReplyWithRange(c, st, &start, NULL, (size_t)a->count, 0,
                             groups ? groups[i] : NULL, consumer, flags,
                             &spi);
        if (groups) c->srv->dirty++;
    }
    if (arraylen) {
        if (c->resp == 2) setDeferredArrayLen(c, lenptr, (long)arraylen);
        else setDeferredMapLen(c, lenptr, (long)arraylen);
    }
    return arraylen;
}

/* Blocks the client on the streams, each with its ID. */
static void _xreadBlock(client *c, xreadArgs *a, streamID *ids) {
    redisServer *s = c->srv;
    robj **keys = c->argv + a->streams_arg;
    blockForKeys(c, BLOCKED_STREAM, keys, a->streams_count,
                 a->count ? a->count : XREAD_BLOCKED_DEFAULT_COUNT,
                 a->timeout, NULL, 0, 0);
    blockingState *b = &c->bpop;
    b->xread_ids = memAlloc(s->mem, sizeof(streamID) * (size_t)b->nkeys);
    /* A key named twice waits for the ID given first. */
    for (int k = 0; k < b->nkeys; k++) {
        for (int i = 0; i < a->streams_count; i++) {
            if (!equalStringObjects(b->keys[k], keys[i])) continue;
            b->xread_ids[k] = ids[i];
            break;
        }
    }
    if (a->groupname) {
        incrRefCount(a->groupname);
        incrRefCount(a->consumername);
        b->xread_group = a->groupname;
        b->xread_consumer = a->consumername;
        b->xread_group_noack = a->noack;
    }
}

/* XREAD [COUNT n] [BLOCK ms] STREAMS key [key ...] id [id ...] and
 * XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS
 * key [key ...] id [id ...]: the entries of each stream that has some,
 * as [[key, entries], ...] (a map in RESP3); a null array if none and
 * no BLOCK; else the client blocks. */
void xreadCommand(client *c) {
    redisServer *s = c->srv;
    int xreadgroup = sdslen(c->argv[0]->v.ptr) == 10;
    xreadArgs a;
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    streamID *ids = static_ids;
    streamCG **groups = NULL;
    if (_xreadParseArgs(c, xreadgroup, &a) != C_OK) goto cleanup;
    if (a.streams_count > STREAMID_STATIC_VECTOR_LEN)
        ids = memAlloc(s->mem, sizeof(streamID) * (size_t)a.streams_count);
    if (a.groupname)
        groups = memAlloc(s->mem,
                          sizeof(streamCG *) * (size_t)a.streams_count);
    if (_xreadResolveIDs(c, xreadgroup, &a, ids, groups) != C_OK)
        goto cleanup;
    if (_xreadServe(c, &a, ids, groups)) goto cleanup;
    if (a.timeout != -1) {
        if (c->flags & CLIENT_DENY_BLOCKING) addReplyNullArray(c);
        else _xreadBlock(c, &a, ids);
        goto cleanup;
    }
    addReplyNullArray(c);
cleanup:
    preventCommandPropagation(c);
    if (ids != static_ids) memFree(s->mem, ids);
    memFree(s->mem, groups);
}

/* blocked.c, when a stream a client waits on was written: serves it if
 * the stream now has entries past its ID (for a group, past the group's
 * last ID), replying as XREAD would for that one stream; a group gone
 * meanwhile is an error. Else the client keeps waiting. */
int serveClientBlockedOnStream(client *receiver, robj *o, robj *key,
                               redisDb *db) {
    blockingState *b = &receiver->bpop;
    stream *st = o->v.ptr;
    streamID *gt = NULL;
    for (int k = 0; k < b->nkeys && !gt; k++)
        if (equalStringObjects(b->keys[k], key)) gt = &b->xread_ids[k];
    if (!gt) return BLOCK_STILL_WAITING;
    streamCG *group = NULL;
    if (b->xread_group) {
        group = streamLookupCG(st, b->xread_group->v.ptr);
        if (!group) {
            addReplyError(receiver, "-NOGROUP the consumer group this client "
                          "was blocked on no longer exists");
            return 0;
        }
        *gt = group->last_id;
    }
    if (streamCompareID(&st->last_id, gt) <= 0) return BLOCK_STILL_WAITING;
    streamID start = *gt;
    streamIncrID(&start);
    streamConsumer *consumer = NULL;
    int noack = 0;
    if (group) {
        noack = b->xread_group_noack;
        consumer = _xreadConsumer(receiver, group, key, b->xread_group,
                                  b->xread_consumer, noack);
    }
    if (receiver->resp == 2) {
        addReplyArrayLen(receiver, 1);
        addReplyArrayLen(receiver, 2);
    } else {
        addReplyMapLen(receiver, 1);
    }
    addReplyBulk(receiver, key);
    streamPropInfo spi = { key, b->xread_group };
    streamReplyWithRange(receiver, st, &start, NULL, (size_t)b->count, 0,
                         group, consumer, noack ? STREAM_RWR_NOACK : 0,
                         &spi);
    (void)db;
    return 0;
}
