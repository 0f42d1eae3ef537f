/* t_stream_info.c -- XINFO STREAM [FULL [COUNT n]], XINFO GROUPS and
 * XINFO CONSUMERS, with the fields and order of Redis 7.0 (maps in
 * RESP3, flat arrays in RESP2). */
#include <string.h>
#include <strings.h>
#include "t_stream_cmd.h"

static const char *xinfoHelp[] = {
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    NULL
};

/* A group's lag: entries added past its position, when the counters can
 * tell; a null when they cannot (an entry deleted in between). */
static void _streamReplyWithCGLag(client *c, stream *st, streamCG *cg) {
    long long lag = 0;
    int valid = 0;
    if (!st->entries_added) {
        valid = 1;
    } else if (cg->entries_read != SCG_INVALID_ENTRIES_READ &&
               !streamRangeHasTombstones(st, &cg->last_id, NULL)) {
        lag = (long long)st->entries_added - cg->entries_read;
        valid = 1;
    } else {
        long long read = streamEstimateDistanceFromFirstEverEntry(st,
                                                             &cg->last_id);
        if (read != SCG_INVALID_ENTRIES_READ) {
            lag = (long long)st->entries_added - read;
            valid = 1;
        }
    }
    if (valid) addReplyLongLong(c, lag);
    else addReplyNull(c);
}

static void _replyEntriesRead(client *c, streamCG *cg) {
    if (cg->entries_read != SCG_INVALID_ENTRIES_READ)
        addReplyLongLong(c, cg->entries_read);
    else
        addReplyNull(c);
}

/* A PEL's entries, at most count (0: all): [id, consumer, time, count]
 * for the group's, [id, time, count] for a consumer's. */
static void _replyPEL(client *c, rax *pel, long long count, int group) {
    raxIterator ri;
    long long n = 0;
    void *lenptr = addReplyDeferredLen(c);
    raxStart(&ri, pel);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri) && (!count || n < count)) {
        streamNACK *nack = ri.data;
        streamID id;
        streamDecodeID(ri.key, &id);
        addReplyArrayLen(c, group ? 4 : 3);
        addReplyStreamID(c, &id);
        if (group)
            addReplyBulkCBuffer(c, nack->consumer->name,
                                sdslen(nack->consumer->name));
        addReplyLongLong(c, nack->delivery_time);
        addReplyLongLong(c, (long long)nack->delivery_count);
        n++;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, lenptr, n);
}

/* FULL's groups: each with its PEL and its consumers with theirs. */
static void _xinfoFullGroups(client *c, stream *st, long long count) {
    if (!st->cgroups) {
        addReplyArrayLen(c, 0);
        return;
    }
    raxIterator ri;
    addReplyArrayLen(c, (long)raxSize(st->cgroups));
    raxStart(&ri, st->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        addReplyMapLen(c, 7);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        _replyEntriesRead(c, cg);
        addReplyBulkCString(c, "lag");
        _streamReplyWithCGLag(c, st, cg);
        addReplyBulkCString(c, "pel-count");
        addReplyLongLong(c, (long long)raxSize(cg->pel));
        addReplyBulkCString(c, "pending");
        _replyPEL(c, cg->pel, count, 1);
        addReplyBulkCString(c, "consumers");
        addReplyArrayLen(c, (long)raxSize(cg->consumers));
        raxIterator ci;
        raxStart(&ci, cg->consumers);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            streamConsumer *sc = ci.data;
            addReplyMapLen(c, 4);
            addReplyBulkCString(c, "name");
            addReplyBulkCBuffer(c, sc->name, sdslen(sc->name));
            addReplyBulkCString(c, "seen-time");
            addReplyLongLong(c, sc->seen_time);
            addReplyBulkCString(c, "pel-count");
            addReplyLongLong(c, (long long)raxSize(sc->pel));
            addReplyBulkCString(c, "pending");
            _replyPEL(c, sc->pel, count, 0);
        }
        raxStop(&ci);
    }
    raxStop(&ri);
}

/* XINFO STREAM key [FULL [COUNT n]]. */
static void _xinfoStream(client *c, stream *st) {
    long long count = 10;
    int full = c->argc > 3;
    robj **optv = c->argv + 3;
    int optc = c->argc - 3;
    if (full) {
        if ((optc != 1 && optc != 3) || strcasecmp(optv[0]->v.ptr, "full") ||
            (optc == 3 && strcasecmp(optv[1]->v.ptr, "count"))) {
            addReplySubcommandSyntaxError(c);
            return;
        }
        if (optc == 3) {
            if (getLongLongFromObjectOrReply(c, optv[2], &count, NULL) !=
                C_OK)
                return;
            if (count < 0) count = 10;
        }
    }
    addReplyMapLen(c, full ? 9 : 10);
    addReplyBulkCString(c, "length");
    addReplyLongLong(c, (long long)st->length);
    addReplyBulkCString(c, "radix-tree-keys");
    addReplyLongLong(c, (long long)raxSize(st->rax));
    addReplyBulkCString(c, "radix-tree-nodes");
    addReplyLongLong(c, (long long)raxNodesAsRedis(st->rax));
    addReplyBulkCString(c, "last-generated-id");
    addReplyStreamID(c, &st->last_id);
    addReplyBulkCString(c, "max-deleted-entry-id");
    addReplyStreamID(c, &st->max_deleted_entry_id);
    addReplyBulkCString(c, "entries-added");
    addReplyLongLong(c, (long long)st->entries_added);
    addReplyBulkCString(c, "recorded-first-entry-id");
    addReplyStreamID(c, &st->first_id);
    if (!full) {
        streamID start = { 0, 0 }, end = { UINT64_MAX, UINT64_MAX };
        addReplyBulkCString(c, "groups");
        addReplyLongLong(c, st->cgroups ? (long long)raxSize(st->cgroups)
                                        : 0);
        addReplyBulkCString(c, "first-entry");
        if (!streamReplyWithRange(c, st, &start, &end, 1, 0, NULL, NULL,
                                  STREAM_RWR_RAWENTRIES, NULL))
            addReplyNull(c);
        addReplyBulkCString(c, "last-entry");
        if (!streamReplyWithRange(c, st, &start, &end, 1, 1, NULL, NULL,
                                  STREAM_RWR_RAWENTRIES, NULL))
            addReplyNull(c);
        return;
    }
    addReplyBulkCString(c, "entries");
    streamReplyWithRange(c, st, NULL, NULL, (size_t)count, 0, NULL, NULL, 0,
                         NULL);
    addReplyBulkCString(c, "groups");
    _xinfoFullGroups(c, st, count);
}

/* XINFO CONSUMERS key group. */
static void _xinfoConsumers(client *c, stream *st) {
    streamCG *cg = streamLookupCG(st, c->argv[3]->v.ptr);
    if (!cg) {
        addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for "
                            "key name '%s'", (char *)c->argv[3]->v.ptr,
                            (char *)c->argv[2]->v.ptr);
        return;
    }
    raxIterator ri;
    long long now = c->srv->mstime;
    addReplyArrayLen(c, (long)raxSize(cg->consumers));
    raxStart(&ri, cg->consumers);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamConsumer *sc = ri.data;
        long long idle = now - sc->seen_time;
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, sc->name, sdslen(sc->name));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)raxSize(sc->pel));
        addReplyBulkCString(c, "idle");
        addReplyLongLong(c, idle < 0 ? 0 : idle);
    }
    raxStop(&ri);
}

/* XINFO GROUPS key. */
static void _xinfoGroups(client *c, stream *st) {
    if (!st->cgroups) {
        addReplyArrayLen(c, 0);
        return;
    }
    raxIterator ri;
    addReplyArrayLen(c, (long)raxSize(st->cgroups));
    raxStart(&ri, st->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        addReplyMapLen(c, 6);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkCString(c, "consumers");
        addReplyLongLong(c, (long long)raxSize(cg->consumers));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)raxSize(cg->pel));
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        _replyEntriesRead(c, cg);
        addReplyBulkCString(c, "lag");
        _streamReplyWithCGLag(c, st, cg);
    }
    raxStop(&ri);
}

/* The handler of every XINFO subcommand. */
void xinfoCommand(client *c) {
    const char *opt = c->argv[1]->v.ptr;
    if (!strcasecmp(opt, "HELP")) {
        if (c->argc != 2) addReplySubcommandSyntaxError(c);
        else addReplyHelp(c, xinfoHelp);
        return;
    }
    if (c->argc < 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    robj *o = lookupKeyRead(c, c->argv[2]);
    if (!o) {
        addReplyError(c, "no such key");   /* an error, counted as one */
        return;
    }
    if (checkType(c, o, OBJ_STREAM)) return;
    stream *st = o->v.ptr;
    if (!strcasecmp(opt, "CONSUMERS") && c->argc == 4)
        _xinfoConsumers(c, st);
    else if (!strcasecmp(opt, "GROUPS") && c->argc == 3)
        _xinfoGroups(c, st);
    else if (!strcasecmp(opt, "STREAM"))
        _xinfoStream(c, st);
    else
        addReplySubcommandSyntaxError(c);
}
