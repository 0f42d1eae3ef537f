/* t_stream_cmd.c -- the stream commands that add, read and remove
 * entries: XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID, XREAD and
 * XREADGROUP (blocking too), as Redis 7.0 replies and propagates them.
 *
 * Propagation: XADD with an ID to generate ("*" or "<ms>-*") is written to
 * the AOF with the ID it chose, and an approximate trim ("~") with the
 * exact threshold it reached ("=" and the length or first ID left), so a
 * replay gives the same stream. XREAD is never propagated; XREADGROUP is
 * not either, but what it changes is: each entry it delivers is an XCLAIM
 * of it to the consumer, with the group's last ID (XCLAIM ... LASTID), and
 * under NOACK the group's new position is an XGROUP SETID, and a consumer
 * it creates an XGROUP CREATECONSUMER. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include "t_stream_cmd.h"

/* Virtual CPU an entry costs to reply with, as the other collections
 * charge per element: XRANGE over a big stream stalls the server. */
#define STREAM_NS_PER_ENTRY 20

/* XREAD ... BLOCK without COUNT serves a client at most this many. */
#define XREAD_BLOCKED_DEFAULT_COUNT 1000
/* ---- Replies and arguments ---- */

void addReplyStreamID(client *c, streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int n = streamIDToString(buf, id);
    addReplyBulkCBuffer(c, buf, (size_t)n);
}

robj *createObjectFromStreamID(redisServer *s, streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int n = streamIDToString(buf, id);
    return createStringObject(s, buf, (size_t)n);
}

/* Parses "<ms>-<seq>", "<ms>" (seq missing_seq), "-" (0-0) or "+" (the
 * maximal ID); strict refuses "-" and "+". With seq_given, "<ms>-*" is
 * accepted and *seq_given tells whether the seq was given. C_ERR, after
 * replying if c is not NULL, for anything else. */
static int _streamGenericParseIDOrReply(client *c, const robj *o,
                                        streamID *id, uint64_t missing_seq,
                                        int strict, int *seq_given) {
    char buf[128];
    sds p = o->v.ptr;
    size_t len = sdslen(p);
    if (len > sizeof(buf) - 1) goto invalid;
    memcpy(buf, p, len + 1);
    if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0')
        goto invalid;
    if (seq_given) *seq_given = 1;
    if (buf[0] == '-' && buf[1] == '\0') {
        id->ms = id->seq = 0;
        return C_OK;
    }
    if (buf[0] == '+' && buf[1] == '\0') {
        id->ms = id->seq = UINT64_MAX;
        return C_OK;
    }
    unsigned long long ms, seq;
    char *dash = strchr(buf, '-');
    if (dash) *dash = '\0';
    if (!string2ull(buf, &ms)) goto invalid;
    if (!dash) {
        seq = missing_seq;
    } else if (seq_given && dash[1] == '*' && dash[2] == '\0') {
        seq = 0;
        *seq_given = 0;
    } else if (!string2ull(dash + 1, &seq)) {
        goto invalid;
    }
    id->ms = ms;
    id->seq = seq;
    return C_OK;
invalid:
    if (c) addReplyError(c, "Invalid stream ID specified as stream command "
                         "argument");
    return C_ERR;
}

int streamParseIDOrReply(client *c, robj *o, streamID *id,
                         uint64_t missing_seq) {
    return _streamGenericParseIDOrReply(c, o, id, missing_seq, 0, NULL);
}

int streamParseStrictIDOrReply(client *c, robj *o, streamID *id,
                               uint64_t missing_seq, int *seq_given) {
    return _streamGenericParseIDOrReply(c, o, id, missing_seq, 1,
                                        seq_given);
}

/* A range bound: an ID, or "(" and a strict ID to exclude (*exclude). */
int streamParseIntervalIDOrReply(client *c, robj *o, streamID *id,
                                 int *exclude, uint64_t missing_seq) {
    sds p = o->v.ptr;
    size_t len = sdslen(p);
    *exclude = len > 1 && p[0] == '(';
    if (!*exclude) return streamParseIDOrReply(c, o, id, missing_seq);
    robj *t = createStringObject(c->srv, p + 1, len - 1);
    int ret = streamParseStrictIDOrReply(c, t, id, missing_seq, NULL);
    decrRefCount(c->srv, t);
    return ret;
}

/* The stream at key for a write, created unless no_create (then a null
 * reply); NULL after replying (wrong type, or no_create). */
static robj *_streamTypeLookupWriteOrCreate(client *c, robj *key,
                                            int no_create) {
    robj *o = lookupKeyWrite(c, key);
    if (checkType(c, o, OBJ_STREAM)) return NULL;
    if (!o) {
        if (no_create) {
            addReplyNull(c);
            return NULL;
        }
        o = createStreamObject(c->srv);
        dbAdd(c->srv, c->db, key, o);
    }
    return o;
}

/* ---- Consumers and propagation ---- */

/* Creates consumer name in cg now: a write (dirty) and an
 * "xgroup-createconsumer" event unless flags say not. NULL if it exists. */
streamConsumer *streamCreateConsumer(client *c, streamCG *cg, sds name,
                                     robj *key, int dbid, int flags) {
    if (!cg) return NULL;
    redisServer *s = c->srv;
    streamConsumer *sc = streamNewConsumer(s, cg, name, sdslen(name),
                                           s->mstime);
    if (!sc) return NULL;
    if (!(flags & SCC_NO_DIRTIFY)) s->dirty++;
    if (!(flags & SCC_NO_NOTIFY))
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xgroup-createconsumer", key,
                            dbid);
    return sc;
}

/* Propagates a delivery or claim of id (an ID string object) as
 *   XCLAIM key group consumer 0 id TIME <ms> RETRYCOUNT <n> FORCE JUSTID
 *   LASTID <group's last ID>
 * which sets the NACK exactly as it is now, and the group's last ID. */
void streamPropagateXCLAIM(client *c, robj *key, streamCG *group,
                           robj *groupname, robj *id, streamNACK *nack) {
    redisServer *s = c->srv;
    robj *argv[14];
    argv[0] = createStringObject(s, "XCLAIM", 6);
    argv[1] = key;
    argv[2] = groupname;
    argv[3] = createStringObject(s, nack->consumer->name,
                                 sdslen(nack->consumer->name));
    argv[4] = createStringObject(s, "0", 1);
    argv[5] = id;
    argv[6] = createStringObject(s, "TIME", 4);
    argv[7] = createStringObjectFromLongLong(s, nack->delivery_time);
    argv[8] = createStringObject(s, "RETRYCOUNT", 10);
    argv[9] = createStringObjectFromLongLong(s,
                  (long long)nack->delivery_count);
    argv[10] = createStringObject(s, "FORCE", 5);
    argv[11] = createStringObject(s, "JUSTID", 6);
    argv[12] = createStringObject(s, "LASTID", 6);
    argv[13] = createObjectFromStreamID(s, &group->last_id);
    alsoPropagate(s, c->db->id, argv, 14);
    for (int j = 0; j < 14; j++)
        if (j != 1 && j != 2 && j != 5) decrRefCount(s, argv[j]);
}

/* Propagates the group's position: XGROUP SETID key group <last ID>
 * ENTRIESREAD <entries_read>. */
void streamPropagateGroupID(client *c, robj *key, streamCG *group,
                            robj *groupname) {
    redisServer *s = c->srv;
    robj *argv[7];
    argv[0] = createStringObject(s, "XGROUP", 6);
    argv[1] = createStringObject(s, "SETID", 5);
    argv[2] = key;
    argv[3] = groupname;
    argv[4] = createObjectFromStreamID(s, &group->last_id);
    argv[5] = createStringObject(s, "ENTRIESREAD", 11);
    argv[6] = createStringObjectFromLongLong(s, group->entries_read);
    alsoPropagate(s, c->db->id, argv, 7);
    for (int j = 0; j < 7; j++)
        if (j != 2 && j != 3) decrRefCount(s, argv[j]);
}

/* Propagates XGROUP CREATECONSUMER key group consumer. */
void streamPropagateConsumerCreation(client *c, robj *key, robj *groupname,
                                     sds name) {
    redisServer *s = c->srv;
    robj *argv[5];
    argv[0] = createStringObject(s, "XGROUP", 6);
    argv[1] = createStringObject(s, "CREATECONSUMER", 14);
    argv[2] = key;
    argv[3] = groupname;
    argv[4] = createStringObject(s, name, sdslen(name));
    alsoPropagate(s, c->db->id, argv, 5);
    decrRefCount(s, argv[0]);
    decrRefCount(s, argv[1]);
    decrRefCount(s, argv[4]);
}

/* ---- Replying with ranges ---- */

/* Replies with one entry: [id, [field, value, ...]]. */
static void _streamReplyEntry(client *c, streamIterator *si, streamID *id,
                              int64_t numfields) {
    addReplyArrayLen(c, 2);
    addReplyStreamID(c, id);
    addReplyArrayLen(c, numfields * 2);
    while (numfields--) {
        unsigned char *f, *v;
        int64_t flen, vlen;
        streamIteratorGetField(si, &f, &v, &flen, &vlen);
        addReplyBulkCBuffer(c, f, (size_t)flen);
        addReplyBulkCBuffer(c, v, (size_t)vlen);
    }
}

/* The group's position moves to id, just delivered: entries_read counts
 * one more when the count is known and nothing was deleted past the old
 * position, else it is estimated again. */
static void _streamGroupAdvance(stream *st, streamCG *group, streamID *id) {
    if (group->entries_read != SCG_INVALID_ENTRIES_READ &&
        !streamRangeHasTombstones(st, id, NULL))
        group->entries_read++;
    else if (st->entries_added)
        group->entries_read = streamEstimateDistanceFromFirstEverEntry(st,
                                                                       id);
    group->last_id = *id;
}

/* Records the delivery of id to consumer in the group's PEL: a new NACK,
 * or the existing one (another consumer's, or its own) taken over, with a
 * delivery count of 1 as in 7.0. */
static streamNACK *_streamDeliver(redisServer *s, streamCG *group,
                                  streamConsumer *consumer, streamID *id) {
    unsigned char buf[16];
    streamEncodeID(buf, id);
    streamNACK *nack = streamCreateNACK(s, consumer);
    int group_inserted = raxTryInsert(group->pel, buf, 16, nack, NULL);
    raxTryInsert(consumer->pel, buf, 16, nack, NULL);
    if (!group_inserted) {
        memFree(s->mem, nack);
        void *old;
        raxFind(group->pel, buf, 16, &old);
        nack = old;
        raxRemove(nack->consumer->pel, buf, 16, NULL);
        nack->consumer = consumer;
        nack->delivery_time = s->mstime;
        nack->delivery_count = 1;
        raxInsert(consumer->pel, buf, 16, nack, NULL);
    }
    return nack;
}

static size_t _streamReplyWithRangeFromConsumerPEL(client *c, stream *st,
        streamID *start, streamID *end, size_t count,
        streamConsumer *consumer);

/* Replies with the entries from start to end (at most count, 0: all),
 * last first with rev. With a group (XREADGROUP) each entry delivered
 * past the group's last ID moves it, and unless NOACK is recorded in the
 * PEL of consumer and propagated (spi). HISTORY replies from the
 * consumer's own PEL instead. RAWENTRIES leaves out the array header.
 * Returns the entries replied. */
size_t streamReplyWithRange(client *c, stream *st, streamID *start,
                            streamID *end, size_t count, int rev,
                            streamCG *group, streamConsumer *consumer,
                            int flags, streamPropInfo *spi) {
    if (group && (flags & STREAM_RWR_HISTORY))
        return _streamReplyWithRangeFromConsumerPEL(c, st, start, end, count,
                                                    consumer);
    redisServer *s = c->srv;
    void *lenptr = NULL;
    size_t arraylen = 0;
    int noack = flags & STREAM_RWR_NOACK, propagate_last_id = 0;
    streamIterator si;
    streamID id;
    int64_t numfields;
    if (!(flags & STREAM_RWR_RAWENTRIES)) lenptr = addReplyDeferredLen(c);
    streamIteratorStart(&si, st, start, end, rev);
    while (streamIteratorGetID(&si, &id, &numfields)) {
        if (group && streamCompareID(&id, &group->last_id) > 0) {
            _streamGroupAdvance(st, group, &id);
            if (noack) propagate_last_id = 1;
        }
        _streamReplyEntry(c, &si, &id, numfields);
        s->denv.cpu_ns += STREAM_NS_PER_ENTRY + (uint64_t)numfields * 10;
        if (group && !noack) {
            streamNACK *nack = _streamDeliver(s, group, consumer, &id);
            if (spi) {
                robj *idarg = createObjectFromStreamID(s, &id);
                streamPropagateXCLAIM(c, spi->keyname, group,
                                      spi->groupname, idarg, nack);
                decrRefCount(s, idarg);
            }
        }
        arraylen++;
        if (count && count == arraylen) break;
    }
    if (spi && propagate_last_id)
        streamPropagateGroupID(c, spi->keyname, group, spi->groupname);
    streamIteratorStop(&si);
    if (lenptr) setDeferredArrayLen(c, lenptr, (long)arraylen);
    return arraylen;
}

/* XREADGROUP with an ID: the consumer's pending entries from start (at
 * most count), each delivered once more; one deleted from the stream
 * since comes as [id, nil]. */
static size_t _streamReplyWithRangeFromConsumerPEL(client *c, stream *st,
        streamID *start, streamID *end, size_t count,
        streamConsumer *consumer) {
    unsigned char startkey[16], endkey[16];
    size_t arraylen = 0;
    raxIterator ri;
    streamEncodeID(startkey, start);
    if (end) streamEncodeID(endkey, end);
    void *lenptr = addReplyDeferredLen(c);
    raxStart(&ri, consumer->pel);
    raxSeek(&ri, ">=", startkey, 16);
    while (raxNext(&ri) && (!count || arraylen < count)) {
        if (end && memcmp(ri.key, endkey, ri.key_len) > 0) break;
        streamID id;
        streamDecodeID(ri.key, &id);
        if (streamReplyWithRange(c, st, &id, &id, 1, 0, NULL, NULL,
                                 STREAM_RWR_RAWENTRIES, NULL) == 0) {
            addReplyArrayLen(c, 2);
            addReplyStreamID(c, &id);
            addReplyNullArray(c);
        } else {
            streamNACK *nack = ri.data;
            nack->delivery_time = c->srv->mstime;
            nack->delivery_count++;
        }
        arraylen++;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, lenptr, (long)arraylen);
    return arraylen;
}

/* ---- XADD and XTRIM ---- */

/* Parses XADD's options (then its ID) or XTRIM's from argv[2]: MAXLEN or
 * MINID with "=" or "~", LIMIT, and for XADD NOMKSTREAM. Returns the
 * index of XADD's ID, or -1 after replying with the error. */
static int _streamParseAddOrTrimArgsOrReply(client *c,
                                            streamAddTrimArgs *args,
                                            int xadd) {
    int i = 2, limit_given = 0;
    memset(args, 0, sizeof(*args));
    for (; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        const char *opt = c->argv[i]->v.ptr;
        int maxlen = !strcasecmp(opt, "maxlen");
        if (xadd && opt[0] == '*' && opt[1] == '\0') {
            break;
        } else if ((maxlen || !strcasecmp(opt, "minid")) && moreargs) {
            if (args->trim_strategy != TRIM_STRATEGY_NONE) {
                addReplyError(c, "syntax error, MAXLEN and MINID options at "
                              "the same time are not compatible");
                return -1;
            }
            args->approx_trim = 0;
            const char *next = c->argv[i + 1]->v.ptr;
            if (moreargs >= 2 && next[0] == '~' && next[1] == '\0') {
                args->approx_trim = 1;
                i++;
            } else if (moreargs >= 2 && next[0] == '=' && next[1] == '\0') {
                i++;
            }
            if (maxlen) {
                if (getLongLongFromObjectOrReply(c, c->argv[i + 1],
                                                 &args->maxlen, NULL) != C_OK)
                    return -1;
                if (args->maxlen < 0) {
                    addReplyError(c, "The MAXLEN argument must be >= 0.");
                    return -1;
                }
            } else if (streamParseStrictIDOrReply(c, c->argv[i + 1],
                                                  &args->minid, 0,
                                                  NULL) != C_OK) {
                return -1;
            }
            i++;
            args->trim_strategy = maxlen ? TRIM_STRATEGY_MAXLEN
                                         : TRIM_STRATEGY_MINID;
            args->trim_strategy_arg_idx = i;
        } else if (!strcasecmp(opt, "limit") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &args->limit,
                                             NULL) != C_OK)
                return -1;
            if (args->limit < 0) {
                addReplyError(c, "The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && !strcasecmp(opt, "nomkstream")) {
            args->no_mkstream = 1;
        } else if (xadd) {
            if (streamParseStrictIDOrReply(c, c->argv[i], &args->id, 0,
                                           &args->seq_given) != C_OK)
                return -1;
            args->id_given = 1;
            break;
        } else {
            addReplyError(c, "syntax error");
            return -1;
        }
    }
    if (args->limit && args->trim_strategy == TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, LIMIT cannot be used without "
                      "specifying a trimming strategy");
        return -1;
    }
    if (!xadd && args->trim_strategy == TRIM_STRATEGY_NONE) {
        addReplyError(c, "syntax error, XTRIM must be called with a "
                      "trimming strategy");
        return -1;
    }
    if (c->flags & CLIENT_FAKE) {
        /* The AOF's thresholds were rewritten exact: no limit. */
        args->limit = 0;
    } else if (limit_given) {
        if (!args->approx_trim) {
            addReplyError(c, "syntax error, LIMIT cannot be used without "
                          "the special ~ option");
            return -1;
        }
    } else if (args->approx_trim) {
        args->limit = 100 * c->srv->cfg.stream_node_max_entries;
        if (args->limit <= 0) args->limit = 10000;
        if (args->limit > 1000000) args->limit = 1000000;
    } else {
        args->limit = 0;
    }
    return i;
}

/* An approximate trim is propagated as the exact one it did: "~" becomes
 * "=" and the threshold the length left (MAXLEN) or the first ID left,
 * tombstones included (MINID). */
static void _streamRewriteTrim(client *c, stream *st,
                               streamAddTrimArgs *args) {
    redisServer *s = c->srv;
    int idx = args->trim_strategy_arg_idx;
    robj *eq = createStringObject(s, "=", 1), *arg;
    rewriteClientCommandArgument(c, idx - 1, eq);
    decrRefCount(s, eq);
    if (args->trim_strategy == TRIM_STRATEGY_MAXLEN) {
        arg = createStringObjectFromLongLong(s, (long long)st->length);
    } else {
        streamID first;
        streamGetEdgeID(st, 1, 0, &first);
        arg = createObjectFromStreamID(s, &first);
    }
    rewriteClientCommandArgument(c, idx, arg);
    decrRefCount(s, arg);
}

/* XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]]
 *      *|id field value [field value ...]: the ID of the entry added. */
void xaddCommand(client *c) {
    redisServer *s = c->srv;
    streamAddTrimArgs args;
    int idpos = _streamParseAddOrTrimArgsOrReply(c, &args, 1);
    if (idpos < 0) return;
    int field_pos = idpos + 1;
    if (c->argc - field_pos < 2 || (c->argc - field_pos) % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    if (args.id_given && args.seq_given && args.id.ms == 0 &&
        args.id.seq == 0) {
        addReplyError(c, "The ID specified in XADD must be greater than 0-0");
        return;
    }
    robj *o = _streamTypeLookupWriteOrCreate(c, c->argv[1], args.no_mkstream);
    if (!o) return;
    stream *st = o->v.ptr;
    if (st->last_id.ms == UINT64_MAX && st->last_id.seq == UINT64_MAX) {
        addReplyError(c, "The stream has exhausted the last possible ID, "
                      "unable to add more items");
        return;
    }
    streamID id;
    if (streamAppendItem(s, st, c->argv + field_pos,
                         (c->argc - field_pos) / 2, &id,
                         args.id_given ? &args.id : NULL,
                         args.seq_given) == C_ERR) {
        if (errno == EDOM)
            addReplyError(c, "The ID specified in XADD is equal or smaller "
                          "than the target stream top item");
        else
            addReplyError(c, "Elements are too large to be stored");
        return;
    }
    robj *idobj = createObjectFromStreamID(s, &id);
    addReplyBulk(c, idobj);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STREAM, "xadd", c->argv[1], c->db->id);
    s->dirty++;
    if (args.trim_strategy != TRIM_STRATEGY_NONE) {
        if (streamTrim(s, st, &args))
            notifyKeyspaceEvent(s, NOTIFY_STREAM, "xtrim", c->argv[1],
                                c->db->id);
        if (args.approx_trim) _streamRewriteTrim(c, st, &args);
    }
    if (!args.id_given || !args.seq_given)
        rewriteClientCommandArgument(c, idpos, idobj);
    decrRefCount(s, idobj);
    signalKeyAsReady(s, c->db, c->argv[1], OBJ_STREAM);
}

/* XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]: the entries
 * removed. */
void xtrimCommand(client *c) {
    redisServer *s = c->srv;
    streamAddTrimArgs args;
    if (_streamParseAddOrTrimArgsOrReply(c, &args, 0) < 0) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_STREAM)) return;
    stream *st = o->v.ptr;
    int64_t deleted = streamTrim(s, st, &args);
    if (deleted) {
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xtrim", c->argv[1],
                            c->db->id);
        if (args.approx_trim) _streamRewriteTrim(c, st, &args);
        signalModifiedKey(c, c->db, c->argv[1]);
        s->dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

/* ---- XRANGE, XREVRANGE, XLEN ---- */

static void _xrangeGenericCommand(client *c, int rev) {
    streamID start, end;
    long long count = -1;
    int startex, endex;
    robj *startarg = rev ? c->argv[3] : c->argv[2];
    robj *endarg = rev ? c->argv[2] : c->argv[3];
    if (streamParseIntervalIDOrReply(c, startarg, &start, &startex, 0) !=
        C_OK)
        return;
    if (startex && streamIncrID(&start) != C_OK) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    if (streamParseIntervalIDOrReply(c, endarg, &end, &endex, UINT64_MAX) !=
        C_OK)
        return;
    if (endex && streamDecrID(&end) != C_OK) {
        addReplyError(c, "invalid end ID for the interval");
        return;
    }
    for (int j = 4; j < c->argc; j++) {
        if (!strcasecmp(c->argv[j]->v.ptr, "COUNT") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &count,
                                             NULL) != C_OK)
                return;
            if (count < 0) count = 0;
            j++;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], "*0\r\n");
    if (!o || checkType(c, o, OBJ_STREAM)) return;
    if (count == 0) {
        addReplyNullArray(c);
        return;
    }
    streamReplyWithRange(c, o->v.ptr, &start, &end,
                         count == -1 ? 0 : (size_t)count, rev, NULL, NULL,
                         0, NULL);
}

/* XRANGE key start end [COUNT n]. */
void xrangeCommand(client *c) {
    _xrangeGenericCommand(c, 0);
}

/* XREVRANGE key end start [COUNT n]. */
void xrevrangeCommand(client *c) {
    _xrangeGenericCommand(c, 1);
}

/* XLEN key. */
void xlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_STREAM)) return;
    addReplyLongLong(c, (long long)((stream *)o->v.ptr)->length);
}

/* ---- XDEL, XSETID ---- */

/* Parses argv[from..argc) as strict IDs into a vector (static_ids if it
 * fits, else allocated: free it with _freeIDs). NULL after replying. */
streamID *streamParseIDsOrReply(client *c, int from, streamID *static_ids,
                                int reply) {
    int n = c->argc - from;
    streamID *ids = n > STREAMID_STATIC_VECTOR_LEN
                    ? memAlloc(c->srv->mem, sizeof(streamID) * (size_t)n)
                    : static_ids;
    for (int j = from; j < c->argc; j++) {
        if (streamParseStrictIDOrReply(reply ? c : NULL, c->argv[j],
                                       &ids[j - from], 0, NULL) != C_OK) {
            if (ids != static_ids) memFree(c->srv->mem, ids);
            return NULL;
        }
    }
    return ids;
}

/* XDEL key id [id ...]: the entries deleted. */
void xdelCommand(client *c) {
    redisServer *s = c->srv;
    streamID static_ids[STREAMID_STATIC_VECTOR_LEN];
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], ":0\r\n");
    if (!o || checkType(c, o, OBJ_STREAM)) return;
    stream *st = o->v.ptr;
    streamID *ids = streamParseIDsOrReply(c, 2, static_ids, 1);
    if (!ids) return;
    int deleted = 0, first_entry = 0;
    for (int j = 2; j < c->argc; j++) {
        streamID *id = &ids[j - 2];
        if (!streamDeleteItem(s, st, id)) continue;
        if (streamCompareID(id, &st->first_id) == 0) first_entry = 1;
        if (streamCompareID(id, &st->max_deleted_entry_id) > 0)
            st->max_deleted_entry_id = *id;
        deleted++;
    }
    if (deleted) {
        if (st->length == 0)
            st->first_id.ms = st->first_id.seq = 0;
        else if (first_entry)
            streamGetEdgeID(st, 1, 1, &st->first_id);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_STREAM, "xdel", c->argv[1], c->db->id);
        s->dirty += deleted;
    }
    addReplyLongLong(c, deleted);
    if (ids != static_ids) memFree(s->mem, ids);
}

/* XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]. */
void xsetidCommand(client *c) {
    redisServer *s = c->srv;
    streamID id, max_xdel_id = { 0, 0 };
    long long entries_added = -1;
    if (streamParseStrictIDOrReply(c, c->argv[2], &id, 0, NULL) != C_OK)
        return;
    for (int i = 3; i < c->argc; i += 2) {
        int moreargs = c->argc - 1 - i;
        const char *opt = c->argv[i]->v.ptr;
        if (!strcasecmp(opt, "ENTRIESADDED") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1],
                                             &entries_added, NULL) != C_OK)
                return;
            if (entries_added < 0) {
                addReplyError(c, "entries_added must be positive");
                return;
            }
        } else if (!strcasecmp(opt, "MAXDELETEDID") && moreargs) {
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], &max_xdel_id,
                                           0, NULL) != C_OK)
                return;
            if (streamCompareID(&id, &max_xdel_id) < 0) {
                addReplyError(c, "The ID specified in XSETID is smaller than "
                              "the provided max_deleted_entry_id");
                return;
            }
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (!o) {
        addReplyError(c, "no such key");   /* an error, counted as one */
        return;
    }
    if (checkType(c, o, OBJ_STREAM)) return;
    stream *st = o->v.ptr;
    if (st->length > 0) {
        streamID maxid;
        streamLastValidID(st, &maxid);
        if (streamCompareID(&id, &maxid) < 0) {
            addReplyError(c, "The ID specified in XSETID is smaller than the "
                          "target stream top item");
            return;
        }
        if (entries_added != -1 && st->length > (uint64_t)entries_added) {
            addReplyError(c, "The entries_added specified in XSETID is "
                          "smaller than the target stream length");
            return;
        }
    }
    st->last_id = id;
    if (entries_added != -1) st->entries_added = (uint64_t)entries_added;
    if (!streamIDEqZero(&max_xdel_id)) st->max_deleted_entry_id = max_xdel_id;
    addReplyOK(c);
    s->dirty++;
    notifyKeyspaceEvent(s, NOTIFY_STREAM, "xsetid", c->argv[1], c->db->id);
}
