/* t_stream.c -- the stream data structure of Redis 7.0: a radix tree of
 * listpack nodes, with the delta encoding 7.0 lays them out in.
 *
 * Each node is a listpack that starts with a master entry:
 *
 *   count | deleted | num-fields | field_1 | ... | field_N | 0
 *
 * count live entries and deleted tombstones follow it; the master's fields
 * are those of the entry that created the node. Each entry is
 *
 *   flags | ms-diff | seq-diff | num-fields | f_1 | v_1 | ... | lp-count
 *
 * its ID stored as the difference from the node's master ID (the radix
 * tree key), so a node of entries added close in time stores small
 * integers. An entry with exactly the master's fields has the SAMEFIELDS
 * flag and keeps only its values (no num-fields, no field names). lp-count
 * is how many elements the entry has before it (3 + values, plus the
 * fields and num-fields without SAMEFIELDS), so the node can be walked
 * back to front: the master's trailing 0 is the lp-count that says "no
 * entry before". Deleting an entry only sets its DELETED flag and moves it
 * from count to deleted; a node whose last live entry goes is removed
 * from the tree whole. Trimming removes whole nodes from the head, and
 * unless "~" asked for whole nodes only, marks entries of the next one.
 *
 * A new entry goes into the last node unless that node has reached
 * stream-node-max-bytes or stream-node-max-entries (live and deleted
 * entries together); then it opens a new node whose master entry takes
 * the new entry's fields. */
#include <errno.h>
#include <string.h>
#include "server.h"
#include "stream.h"

/* A node's listpack is allocated this big at first, so appends seldom
 * reallocate; it is shrunk to its size when the next node opens. */
#define STREAM_LISTPACK_MAX_PRE_ALLOCATE 4096
/* No node grows past this, whatever stream-node-max-bytes says. */
#define STREAM_LISTPACK_MAX_SIZE (1 << 30)

/* ---- IDs ---- */

/* Writes id as 16 bytes, ms then seq, big-endian: memcmp order is then
 * ID order, which the radix trees rely on. */
void streamEncodeID(void *buf, const streamID *id) {
    unsigned char *p = buf;
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(id->ms >> (56 - 8 * i));
        p[8 + i] = (unsigned char)(id->seq >> (56 - 8 * i));
    }
}

void streamDecodeID(const void *buf, streamID *id) {
    const unsigned char *p = buf;
    id->ms = id->seq = 0;
    for (int i = 0; i < 8; i++) {
        id->ms = (id->ms << 8) | p[i];
        id->seq = (id->seq << 8) | p[8 + i];
    }
}

/* -1, 0 or 1 as a is smaller than, equal to or greater than b. */
int streamCompareID(const streamID *a, const streamID *b) {
    if (a->ms != b->ms) return a->ms > b->ms ? 1 : -1;
    if (a->seq != b->seq) return a->seq > b->seq ? 1 : -1;
    return 0;
}

/* Makes id its successor. C_ERR (and 0-0) if id was the last ID. */
int streamIncrID(streamID *id) {
    if (id->seq != UINT64_MAX) {
        id->seq++;
    } else if (id->ms != UINT64_MAX) {
        id->ms++;
        id->seq = 0;
    } else {
        id->ms = id->seq = 0;
        return C_ERR;
    }
    return C_OK;
}

/* Makes id its predecessor. C_ERR (and the last ID) if id was 0-0. */
int streamDecrID(streamID *id) {
    if (id->seq != 0) {
        id->seq--;
    } else if (id->ms != 0) {
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->ms = id->seq = UINT64_MAX;
        return C_ERR;
    }
    return C_OK;
}

int streamIDEqZero(const streamID *id) {
    return id->ms == 0 && id->seq == 0;
}

/* Writes "<ms>-<seq>" and a NUL into buf (STREAM_ID_STR_LEN bytes);
 * returns its length. */
int streamIDToString(char *buf, const streamID *id) {
    int n = ull2string(buf, STREAM_ID_STR_LEN, id->ms);
    buf[n++] = '-';
    n += ull2string(buf + n, STREAM_ID_STR_LEN - (size_t)n, id->seq);
    return n;
}

/* ---- Listpack helpers ---- */

/* The integer at p, which a stream node always stores as one (a string
 * element holding a number is read as the number, as Redis does). */
static int64_t _lpInt(unsigned char *p) {
    int64_t v;
    if (lpGetInteger(p, &v)) return v;
    unsigned char *s = lpGet(p, &v, NULL);
    long long ll = 0;
    string2ll((const char *)s, (size_t)v, &ll);
    return ll;
}

/* Replaces the element at *p with the integer v. */
static unsigned char *_lpReplaceInt(gkMem *m, unsigned char *lp,
                                    unsigned char **p, int64_t v) {
    char buf[LONG_STR_SIZE];
    int n = ll2string(buf, sizeof(buf), v);
    return lpReplace(m, lp, p, (unsigned char *)buf, (uint32_t)n);
}

/* The first (first=1) or last entry ID of node lp whose master ID is
 * master; 0 if the node has no entry. Tombstones count. */
static int _lpGetEdgeStreamID(unsigned char *lp, int first,
                              streamID *master, streamID *edge) {
    unsigned char *p;
    if (first) {
        p = lpNext(lp, lpNext(lp, lpFirst(lp)));   /* num-fields */
        int64_t nfields = _lpInt(p);
        p = lpNext(lp, p);
        for (int64_t i = 0; i < nfields; i++) p = lpNext(lp, p);
        p = lpNext(lp, p);          /* past the master's 0 */
        if (!p) return 0;
    } else {
        p = lpLast(lp);
        int64_t lp_count = _lpInt(p);
        if (lp_count == 0) return 0;
        while (lp_count--) p = lpPrev(lp, p);
    }
    p = lpNext(lp, p);              /* from flags to ms-diff */
    *edge = *master;
    edge->ms += (uint64_t)_lpInt(p);
    p = lpNext(lp, p);
    edge->seq += (uint64_t)_lpInt(p);
    return 1;
}

/* ---- The stream ---- */

stream *streamNew(redisServer *s) {
    stream *st = memCalloc(s->mem, sizeof(*st));
    st->rax = raxNew(s->mem);
    return st;
}

static void _freeListpack(void *ctx, void *lp) {
    lpRelease(ctx, lp);
}

static void _freeNACK(void *ctx, void *nack) {
    memFree(ctx, nack);
}

static void _freeConsumer(void *ctx, void *p) {
    redisServer *s = ctx;
    streamConsumer *sc = p;
    raxFree(sc->pel);       /* its NACKs are the group's */
    sdsfree(s->mem, sc->name);
    memFree(s->mem, sc);
}

static void _freeCG(void *ctx, void *cg) {
    streamFreeCG(ctx, cg);
}

/* Frees a group: its PEL (and the NACKs) and its consumers. */
void streamFreeCG(redisServer *s, streamCG *cg) {
    raxFreeWithCallback(cg->pel, _freeNACK, s->mem);
    raxFreeWithCallback(cg->consumers, _freeConsumer, s);
    memFree(s->mem, cg);
}

/* Frees the stream, its nodes and its groups. */
void freeStream(redisServer *s, stream *st) {
    raxFreeWithCallback(st->rax, _freeListpack, s->mem);
    if (st->cgroups) raxFreeWithCallback(st->cgroups, _freeCG, s);
    memFree(s->mem, st);
}

/* ID generation: the current ms if it is past the last ID's, else the
 * last ID's successor, so IDs never go back even if the clock does. */
static void _streamNextID(redisServer *s, streamID *last, streamID *id) {
    uint64_t ms = (uint64_t)s->mstime;
    if (ms > last->ms) {
        id->ms = ms;
        id->seq = 0;
    } else {
        *id = *last;
        streamIncrID(id);
    }
}

/* Opens a node for id whose master entry has the fields of argv. */
static unsigned char *_streamNewNode(redisServer *s, robj **argv,
                                     int64_t numfields) {
    size_t prealloc = STREAM_LISTPACK_MAX_PRE_ALLOCATE;
    long long maxbytes = s->cfg.stream_node_max_bytes;
    if (maxbytes > 0 && (size_t)maxbytes < prealloc)
        prealloc = (size_t)maxbytes;
    unsigned char *lp = lpCreate(s->mem, prealloc);
    lp = lpAppendInteger(s->mem, lp, 1);    /* count: this entry */
    lp = lpAppendInteger(s->mem, lp, 0);    /* deleted */
    lp = lpAppendInteger(s->mem, lp, numfields);
    for (int64_t i = 0; i < numfields; i++) {
        sds f = argv[i * 2]->v.ptr;
        lp = lpAppend(s->mem, lp, (unsigned char *)f, (uint32_t)sdslen(f));
    }
    return lpAppendInteger(s->mem, lp, 0);  /* the master's terminator */
}

/* Whether the last node lp (lp_bytes long) takes no more entries. */
static int _streamNodeIsFull(redisServer *s, unsigned char *lp,
                             size_t totelelen) {
    size_t maxbytes = (size_t)s->cfg.stream_node_max_bytes;
    if (maxbytes == 0 || maxbytes > STREAM_LISTPACK_MAX_SIZE)
        maxbytes = STREAM_LISTPACK_MAX_SIZE;
    if (lpBytes(lp) + totelelen >= maxbytes) return 1;
    if (s->cfg.stream_node_max_entries) {
        unsigned char *p = lpFirst(lp);
        int64_t count = _lpInt(p) + _lpInt(lpNext(lp, p));
        if (count >= s->cfg.stream_node_max_entries) return 1;
    }
    return 0;
}

/* Bumps the node's live count and tells whether argv has exactly the
 * master entry's fields, in order. */
static int _streamNodeSameFields(redisServer *s, unsigned char **lpp,
                                 robj **argv, int64_t numfields) {
    unsigned char *lp = *lpp, *p = lpFirst(lp);
    lp = _lpReplaceInt(s->mem, lp, &p, _lpInt(p) + 1);
    *lpp = lp;
    p = lpNext(lp, lpNext(lp, p));          /* num-fields */
    if (_lpInt(p) != numfields) return 0;
    p = lpNext(lp, p);
    for (int64_t i = 0; i < numfields; i++, p = lpNext(lp, p)) {
        sds f = argv[i * 2]->v.ptr;
        if (!lpCompare(p, (unsigned char *)f, (uint32_t)sdslen(f)))
            return 0;
    }
    return 1;
}

/* Adds an entry of numfields field-value pairs (argv[0..2*numfields)).
 * The ID is generated, or use_id (whose seq, unless seq_given, is
 * generated: 0 for a new ms, else the last seq + 1). Sets *added_id.
 * Returns C_ERR with errno EDOM if the ID is not greater than the last
 * one, ERANGE if the entry is too big for a node. */
int streamAppendItem(redisServer *s, stream *st, robj **argv,
                     int64_t numfields, streamID *added_id,
                     streamID *use_id, int seq_given) {
    streamID id;
    if (!use_id) {
        _streamNextID(s, &st->last_id, &id);
    } else if (seq_given || st->last_id.ms != use_id->ms) {
        id = *use_id;
    } else {
        if (st->last_id.seq == UINT64_MAX) {
            errno = EDOM;
            return C_ERR;
        }
        id = st->last_id;
        id.seq++;
    }
    if (streamCompareID(&id, &st->last_id) <= 0) {
        errno = EDOM;
        return C_ERR;
    }
    size_t totelelen = 0;
    for (int64_t i = 0; i < numfields * 2; i++)
        totelelen += sdslen(argv[i]->v.ptr);
    if (totelelen > STREAM_LISTPACK_MAX_SIZE) {
        errno = ERANGE;
        return C_ERR;
    }
    raxIterator ri;
    unsigned char key[16];
    unsigned char *lp = NULL;
    raxStart(&ri, st->rax);
    if (raxSeek(&ri, "$", NULL, 0)) {
        lp = ri.data;
        memcpy(key, ri.key, 16);
    }
    raxStop(&ri);
    if (lp && _streamNodeIsFull(s, lp, totelelen)) {
        unsigned char *shrunk = memRealloc(s->mem, lp, lpBytes(lp));
        if (shrunk != lp) raxInsert(st->rax, key, 16, shrunk, NULL);
        lp = NULL;
    }
    streamID master;
    int flags = STREAM_ITEM_FLAG_NONE;
    if (!lp) {
        master = id;
        streamEncodeID(key, &id);
        lp = _streamNewNode(s, argv, numfields);
        flags |= STREAM_ITEM_FLAG_SAMEFIELDS;
    } else {
        streamDecodeID(key, &master);
        if (_streamNodeSameFields(s, &lp, argv, numfields))
            flags |= STREAM_ITEM_FLAG_SAMEFIELDS;
    }
    int same = flags & STREAM_ITEM_FLAG_SAMEFIELDS;
    lp = lpAppendInteger(s->mem, lp, flags);
    lp = lpAppendInteger(s->mem, lp, (int64_t)(id.ms - master.ms));
    lp = lpAppendInteger(s->mem, lp, (int64_t)(id.seq - master.seq));
    if (!same) lp = lpAppendInteger(s->mem, lp, numfields);
    for (int64_t i = 0; i < numfields; i++) {
        sds f = argv[i * 2]->v.ptr, v = argv[i * 2 + 1]->v.ptr;
        if (!same)
            lp = lpAppend(s->mem, lp, (unsigned char *)f,
                          (uint32_t)sdslen(f));
        lp = lpAppend(s->mem, lp, (unsigned char *)v, (uint32_t)sdslen(v));
    }
    int64_t lp_count = numfields + 3 + (same ? 0 : numfields + 1);
    lp = lpAppendInteger(s->mem, lp, lp_count);
    raxInsert(st->rax, key, 16, lp, NULL);
    st->length++;
    st->entries_added++;
    st->last_id = id;
    if (st->length == 1) st->first_id = id;
    if (added_id) *added_id = id;
    return C_OK;
}

/* ---- Iteration ---- */

/* Starts a walk over the entries from start to end (NULL: the stream's
 * edges), first to last or, with rev, last to first. Tombstones are
 * skipped unless si->skip_tombstones is cleared. */
void streamIteratorStart(streamIterator *si, stream *st, streamID *start,
                         streamID *end, int rev) {
    streamID zero = { 0, 0 }, max = { UINT64_MAX, UINT64_MAX };
    streamEncodeID(si->start_key, start ? start : &zero);
    streamEncodeID(si->end_key, end ? end : &max);
    raxStart(&si->ri, st->rax);
    streamID *from = rev ? end : start;
    if (from && !streamIDEqZero(from)) {
        if (!raxSeek(&si->ri, "<=", rev ? si->end_key : si->start_key, 16))
            raxSeek(&si->ri, rev ? "$" : "^", NULL, 0);
    } else {
        raxSeek(&si->ri, rev ? "$" : "^", NULL, 0);
    }
    si->stream = st;
    si->lp = NULL;
    si->lp_ele = NULL;
    si->rev = rev;
    si->skip_tombstones = 1;
}

/* Enters the next node of the walk: its master fields are noted and the
 * cursor put before its first entry (or on its last lp-count). */
static int _streamIteratorEnterNode(streamIterator *si) {
    if (si->rev ? !raxPrev(&si->ri) : !raxNext(&si->ri)) return 0;
    streamDecodeID(si->ri.key, &si->master_id);
    si->lp = si->ri.data;
    unsigned char *p = lpNext(si->lp, lpNext(si->lp, lpFirst(si->lp)));
    si->master_fields_count = (uint64_t)_lpInt(p);
    p = lpNext(si->lp, p);
    si->master_fields_start = p;
    if (!si->rev) {
        for (uint64_t i = 0; i < si->master_fields_count; i++)
            p = lpNext(si->lp, p);
        si->lp_ele = p;             /* on the master's 0 */
    } else {
        si->lp_ele = lpLast(si->lp);
    }
    return 1;
}

/* Whether the entry with encoded ID buf is to be emitted, going the
 * walk's way; *stop is set when the walk is past its range. */
static int _streamIteratorInRange(streamIterator *si, unsigned char *buf,
                                  int64_t flags, int *stop) {
    *stop = 0;
    if (si->skip_tombstones && (flags & STREAM_ITEM_FLAG_DELETED)) return 0;
    if (!si->rev) {
        if (memcmp(buf, si->start_key, 16) < 0) return 0;
        if (memcmp(buf, si->end_key, 16) > 0) *stop = 1;
    } else {
        if (memcmp(buf, si->end_key, 16) > 0) return 0;
        if (memcmp(buf, si->start_key, 16) < 0) *stop = 1;
    }
    return !*stop;
}

/* The next entry of the walk: 1 with its ID and field count, or 0 when
 * the walk is over. Its fields are then read with GetField. */
int streamIteratorGetID(streamIterator *si, streamID *id,
                        int64_t *numfields) {
    for (;;) {
        if (!si->lp || !si->lp_ele) {
            if (!_streamIteratorEnterNode(si)) return 0;
        } else if (si->rev) {
            /* Back from the entry just emitted to the lp-count before. */
            int64_t lp_count = _lpInt(si->lp_ele);
            while (lp_count--) si->lp_ele = lpPrev(si->lp, si->lp_ele);
            si->lp_ele = lpPrev(si->lp, si->lp_ele);
        }
        for (;;) {
            if (!si->rev) {
                si->lp_ele = lpNext(si->lp, si->lp_ele);
                if (!si->lp_ele) break;
            } else {
                int64_t lp_count = _lpInt(si->lp_ele);
                if (lp_count == 0) {
                    si->lp = si->lp_ele = NULL;
                    break;
                }
                while (lp_count--) si->lp_ele = lpPrev(si->lp, si->lp_ele);
            }
            si->lp_flags = si->lp_ele;
            int64_t flags = _lpInt(si->lp_ele);
            si->lp_ele = lpNext(si->lp, si->lp_ele);
            *id = si->master_id;
            id->ms += (uint64_t)_lpInt(si->lp_ele);
            si->lp_ele = lpNext(si->lp, si->lp_ele);
            id->seq += (uint64_t)_lpInt(si->lp_ele);
            si->lp_ele = lpNext(si->lp, si->lp_ele);
            if (flags & STREAM_ITEM_FLAG_SAMEFIELDS) {
                *numfields = (int64_t)si->master_fields_count;
            } else {
                *numfields = _lpInt(si->lp_ele);
                si->lp_ele = lpNext(si->lp, si->lp_ele);
            }
            unsigned char buf[16];
            int stop;
            streamEncodeID(buf, id);
            if (_streamIteratorInRange(si, buf, flags, &stop)) {
                si->entry_flags = (int)flags;
                if (flags & STREAM_ITEM_FLAG_SAMEFIELDS)
                    si->master_fields_ptr = si->master_fields_start;
                return 1;
            }
            if (stop) return 0;
            if (!si->rev) {
                int64_t skip = (flags & STREAM_ITEM_FLAG_SAMEFIELDS)
                               ? *numfields : *numfields * 2;
                while (skip--) si->lp_ele = lpNext(si->lp, si->lp_ele);
            } else {
                /* Back to the lp-count of the entry before. */
                int back = (flags & STREAM_ITEM_FLAG_SAMEFIELDS) ? 4 : 5;
                while (back--) si->lp_ele = lpPrev(si->lp, si->lp_ele);
            }
        }
    }
}

/* The next field and value of the current entry (pointers valid until
 * the iterator moves). */
void streamIteratorGetField(streamIterator *si, unsigned char **fieldptr,
                            unsigned char **valueptr, int64_t *fieldlen,
                            int64_t *valuelen) {
    if (si->entry_flags & STREAM_ITEM_FLAG_SAMEFIELDS) {
        *fieldptr = lpGet(si->master_fields_ptr, fieldlen, si->field_buf);
        si->master_fields_ptr = lpNext(si->lp, si->master_fields_ptr);
    } else {
        *fieldptr = lpGet(si->lp_ele, fieldlen, si->field_buf);
        si->lp_ele = lpNext(si->lp, si->lp_ele);
    }
    *valueptr = lpGet(si->lp_ele, valuelen, si->value_buf);
    si->lp_ele = lpNext(si->lp, si->lp_ele);
}

/* Deletes the entry the walk is on (current, its ID): flags it DELETED
 * and moves it from count to deleted, or removes the node if it was its
 * last live entry. The walk goes on from the entry after. */
void streamIteratorRemoveEntry(redisServer *s, streamIterator *si,
                               streamID *current) {
    unsigned char *lp = si->lp;
    int64_t flags = _lpInt(si->lp_flags) | STREAM_ITEM_FLAG_DELETED;
    lp = _lpReplaceInt(s->mem, lp, &si->lp_flags, flags);
    unsigned char *p = lpFirst(lp);
    int64_t count = _lpInt(p);
    if (count == 1) {
        lpRelease(s->mem, lp);
        raxRemove(si->stream->rax, si->ri.key, si->ri.key_len, NULL);
    } else {
        lp = _lpReplaceInt(s->mem, lp, &p, count - 1);
        p = lpNext(lp, p);
        lp = _lpReplaceInt(s->mem, lp, &p, _lpInt(p) + 1);
        if (lp != si->lp)
            raxInsert(si->stream->rax, si->ri.key, si->ri.key_len, lp, NULL);
    }
    si->stream->length--;
    streamID start, end;
    if (si->rev) {
        streamDecodeID(si->start_key, &start);
        end = *current;
    } else {
        start = *current;
        streamDecodeID(si->end_key, &end);
    }
    stream *st = si->stream;
    int rev = si->rev;
    streamIteratorStop(si);
    streamIteratorStart(si, st, &start, &end, rev);
}

void streamIteratorStop(streamIterator *si) {
    raxStop(&si->ri);
}

/* Whether a live entry id is in the stream. */
int streamEntryExists(stream *st, streamID *id) {
    streamIterator si;
    streamID found;
    int64_t numfields;
    streamIteratorStart(&si, st, id, id, 0);
    int exists = streamIteratorGetID(&si, &found, &numfields);
    streamIteratorStop(&si);
    return exists;
}

/* Deletes entry id; 1 if it was there. */
int streamDeleteItem(redisServer *s, stream *st, streamID *id) {
    streamIterator si;
    streamID found;
    int64_t numfields;
    int deleted = 0;
    streamIteratorStart(&si, st, id, id, 0);
    if (streamIteratorGetID(&si, &found, &numfields)) {
        streamIteratorRemoveEntry(s, &si, &found);
        deleted = 1;
    }
    streamIteratorStop(&si);
    return deleted;
}

/* The first or last entry's ID (tombstones too unless skipped); with no
 * entry, the maximal ID for first, 0-0 for last. */
void streamGetEdgeID(stream *st, int first, int skip_tombstones,
                     streamID *edge_id) {
    streamIterator si;
    int64_t numfields;
    streamIteratorStart(&si, st, NULL, NULL, !first);
    si.skip_tombstones = skip_tombstones;
    if (!streamIteratorGetID(&si, edge_id, &numfields)) {
        edge_id->ms = edge_id->seq = first ? UINT64_MAX : 0;
    }
    streamIteratorStop(&si);
}

/* The last live entry's ID (0-0 for an empty stream). */
void streamLastValidID(stream *st, streamID *maxid) {
    streamIterator si;
    int64_t numfields;
    streamIteratorStart(&si, st, NULL, NULL, 1);
    if (!streamIteratorGetID(&si, maxid, &numfields))
        maxid->ms = maxid->seq = 0;
    streamIteratorStop(&si);
}

/* ---- Trimming ---- */

/* Marks deleted the entries of node lp (at the head of the stream) that
 * the trim wants gone; returns how many it marked. */
static int64_t _streamTrimNode(redisServer *s, stream *st,
                               unsigned char **lpp, streamID *master,
                               streamAddTrimArgs *args) {
    unsigned char *lp = *lpp;
    unsigned char *p = lpNext(lp, lpNext(lp, lpFirst(lp)));
    int64_t master_fields = _lpInt(p);
    int64_t deleted = 0;
    p = lpNext(lp, p);
    for (int64_t j = 0; j < master_fields; j++) p = lpNext(lp, p);
    p = lpNext(lp, p);              /* the first entry's flags */
    while (p) {
        unsigned char *flagp = p;
        int64_t flags = _lpInt(p);
        p = lpNext(lp, p);
        streamID cur = *master;
        cur.ms += (uint64_t)_lpInt(p);
        p = lpNext(lp, p);
        cur.seq += (uint64_t)_lpInt(p);
        p = lpNext(lp, p);
        int stop = args->trim_strategy == TRIM_STRATEGY_MAXLEN
                   ? st->length <= (uint64_t)args->maxlen
                   : streamCompareID(&cur, &args->minid) >= 0;
        if (stop) break;
        int64_t skip;
        if (flags & STREAM_ITEM_FLAG_SAMEFIELDS) {
            skip = master_fields;
        } else {
            skip = _lpInt(p) * 2;
            p = lpNext(lp, p);
        }
        while (skip--) p = lpNext(lp, p);
        p = lpNext(lp, p);          /* past lp-count */
        if (!(flags & STREAM_ITEM_FLAG_DELETED)) {
            ptrdiff_t off = p ? p - lp : -1;
            lp = _lpReplaceInt(s->mem, lp, &flagp,
                               flags | STREAM_ITEM_FLAG_DELETED);
            p = off >= 0 ? lp + off : NULL;
            deleted++;
            st->length--;
        }
    }
    *lpp = lp;
    return deleted;
}

/* Trims the head of the stream as args says (MAXLEN: to that length;
 * MINID: the entries below that ID), removing whole nodes while it can;
 * with approx it stops at the first node it cannot remove whole, else it
 * marks that node's entries deleted. Stops before passing args->limit
 * entries (0: no limit). Returns the entries removed. */
int64_t streamTrim(redisServer *s, stream *st, streamAddTrimArgs *args) {
    if (args->trim_strategy == TRIM_STRATEGY_NONE) return 0;
    raxIterator ri;
    int64_t deleted = 0;
    uint64_t work = 0;
    raxStart(&ri, st->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        if (args->trim_strategy == TRIM_STRATEGY_MAXLEN &&
            st->length <= (uint64_t)args->maxlen)
            break;
        unsigned char *lp = ri.data, *p = lpFirst(lp);
        int64_t entries = _lpInt(p);
        if (args->limit && deleted + entries > args->limit) break;
        streamID master;
        streamDecodeID(ri.key, &master);
        int remove_node;
        if (args->trim_strategy == TRIM_STRATEGY_MAXLEN) {
            remove_node = st->length - (uint64_t)entries >=
                          (uint64_t)args->maxlen;
        } else {
            streamID last = { 0, 0 };
            _lpGetEdgeStreamID(lp, 0, &master, &last);
            remove_node = streamCompareID(&last, &args->minid) < 0;
        }
        if (remove_node) {
            unsigned char key[16];
            memcpy(key, ri.key, 16);
            lpRelease(s->mem, lp);
            raxRemove(st->rax, key, 16, NULL);
            raxSeek(&ri, ">=", key, 16);
            st->length -= (uint64_t)entries;
            deleted += entries;
            work++;
            continue;
        }
        if (args->approx_trim) break;
        int64_t marked = _streamTrimNode(s, st, &lp, &master, args);
        deleted += marked;
        work += (uint64_t)marked;
        p = lpFirst(lp);
        lp = _lpReplaceInt(s->mem, lp, &p, entries - marked);
        p = lpNext(lp, p);
        lp = _lpReplaceInt(s->mem, lp, &p, _lpInt(p) + marked);
        raxInsert(st->rax, ri.key, ri.key_len, lp, NULL);
        break;
    }
    raxStop(&ri);
    s->denv.cpu_ns += work * 20;    /* per node freed, per entry flagged */
    if (st->length == 0) {
        st->first_id.ms = st->first_id.seq = 0;
    } else if (deleted) {
        streamGetEdgeID(st, 1, 1, &st->first_id);
    }
    return deleted;
}

/* ---- Consumer group bookkeeping (7.0's lag and entries-read) ---- */

/* Whether a tombstone may lie between start and end (NULL: the edges):
 * only the greatest deleted ID is known, so this is a guess that errs
 * towards yes. */
int streamRangeHasTombstones(stream *st, streamID *start, streamID *end) {
    if (!st->length || streamIDEqZero(&st->max_deleted_entry_id)) return 0;
    if (streamCompareID(&st->first_id, &st->max_deleted_entry_id) > 0)
        return 0;
    streamID lo = { 0, 0 }, hi = { UINT64_MAX, UINT64_MAX };
    if (start) lo = *start;
    if (end) hi = *end;
    return streamCompareID(&lo, &st->max_deleted_entry_id) <= 0 &&
           streamCompareID(&st->max_deleted_entry_id, &hi) <= 0;
}

/* How many entries were added up to id, counted from the first ever, if
 * the stream's counters tell; SCG_INVALID_ENTRIES_READ if they cannot. */
long long streamEstimateDistanceFromFirstEverEntry(stream *st,
                                                   streamID *id) {
    if (!st->entries_added) return 0;
    if (!st->length && streamCompareID(id, &st->last_id) < 1)
        return (long long)st->entries_added;
    int cmp_last = streamCompareID(id, &st->last_id);
    if (cmp_last == 0) return (long long)st->entries_added;
    if (cmp_last > 0) return SCG_INVALID_ENTRIES_READ;
    int cmp_first = streamCompareID(id, &st->first_id);
    if (streamIDEqZero(&st->max_deleted_entry_id) ||
        streamCompareID(&st->max_deleted_entry_id, &st->first_id) < 0) {
        if (cmp_first < 0)
            return (long long)(st->entries_added - st->length);
        if (cmp_first == 0)
            return (long long)(st->entries_added - st->length + 1);
    }
    return SCG_INVALID_ENTRIES_READ;
}

/* ---- Groups, consumers, NACKs ---- */

/* A new group name -> (id, entries_read); NULL if the name is taken. */
streamCG *streamCreateCG(redisServer *s, stream *st, const char *name,
                         size_t namelen, streamID *id,
                         long long entries_read) {
    if (!st->cgroups) st->cgroups = raxNew(s->mem);
    if (raxFind(st->cgroups, (const unsigned char *)name, namelen, NULL))
        return NULL;
    streamCG *cg = memAlloc(s->mem, sizeof(*cg));
    cg->pel = raxNew(s->mem);
    cg->consumers = raxNew(s->mem);
    cg->last_id = *id;
    cg->entries_read = entries_read;
    raxInsert(st->cgroups, (const unsigned char *)name, namelen, cg, NULL);
    return cg;
}

streamCG *streamLookupCG(stream *st, sds groupname) {
    void *cg;
    if (!st->cgroups) return NULL;
    if (!raxFind(st->cgroups, (unsigned char *)groupname, sdslen(groupname),
                 &cg))
        return NULL;
    return cg;
}

/* A NACK delivered now, once, to consumer. */
streamNACK *streamCreateNACK(redisServer *s, streamConsumer *consumer) {
    streamNACK *nack = memAlloc(s->mem, sizeof(*nack));
    nack->delivery_time = s->mstime;
    nack->delivery_count = 1;
    nack->consumer = consumer;
    return nack;
}

/* Adds consumer name to cg, seen at seen_time; NULL if it exists. */
streamConsumer *streamNewConsumer(redisServer *s, streamCG *cg,
                                  const char *name, size_t len,
                                  long long seen_time) {
    streamConsumer *sc = memAlloc(s->mem, sizeof(*sc));
    if (!raxTryInsert(cg->consumers, (const unsigned char *)name, len, sc,
                      NULL)) {
        memFree(s->mem, sc);
        return NULL;
    }
    sc->name = sdsnewlen(s->mem, name, len);
    sc->pel = raxNew(s->mem);
    sc->seen_time = seen_time;
    return sc;
}

/* The consumer name of cg, or NULL; unless SLC_NO_REFRESH, it is seen
 * now. */
streamConsumer *streamLookupConsumer(redisServer *s, streamCG *cg, sds name,
                                     int flags) {
    void *sc;
    if (!cg || !raxFind(cg->consumers, (unsigned char *)name, sdslen(name),
                        &sc))
        return NULL;
    if (!(flags & SLC_NO_REFRESH))
        ((streamConsumer *)sc)->seen_time = s->mstime;
    return sc;
}

/* Removes consumer from cg with its pending entries. */
void streamDelConsumer(redisServer *s, streamCG *cg,
                       streamConsumer *consumer) {
    raxIterator ri;
    raxStart(&ri, consumer->pel);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        raxRemove(cg->pel, ri.key, ri.key_len, NULL);
        memFree(s->mem, ri.data);
    }
    raxStop(&ri);
    raxRemove(cg->consumers, (unsigned char *)consumer->name,
              sdslen(consumer->name), NULL);
    _freeConsumer(s, consumer);
}

/* ---- Copies ---- */

/* A copy of cg's PEL and consumers into ncg. */
static void _streamDupGroup(redisServer *s, streamCG *cg, streamCG *ncg) {
    raxIterator ri;
    raxStart(&ri, cg->pel);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamNACK *nack = ri.data;
        streamNACK *copy = streamCreateNACK(s, NULL);
        copy->delivery_time = nack->delivery_time;
        copy->delivery_count = nack->delivery_count;
        raxInsert(ncg->pel, ri.key, ri.key_len, copy, NULL);
    }
    raxStop(&ri);
    raxStart(&ri, cg->consumers);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamConsumer *sc = ri.data;
        streamConsumer *nsc = streamNewConsumer(s, ncg, sc->name,
                                                sdslen(sc->name),
                                                sc->seen_time);
        raxIterator pi;
        raxStart(&pi, sc->pel);
        raxSeek(&pi, "^", NULL, 0);
        while (raxNext(&pi)) {
            void *nack;
            raxFind(ncg->pel, pi.key, pi.key_len, &nack);
            ((streamNACK *)nack)->consumer = nsc;
            raxInsert(nsc->pel, pi.key, pi.key_len, nack, NULL);
        }
        raxStop(&pi);
    }
    raxStop(&ri);
}

/* A deep copy of stream object o (COPY), refcount 1. */
robj *streamDup(redisServer *s, robj *o) {
    stream *st = o->v.ptr, *nst = streamNew(s);
    raxIterator ri;
    raxStart(&ri, st->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        size_t bytes = lpBytes(ri.data);
        unsigned char *lp = memAlloc(s->mem, bytes);
        memcpy(lp, ri.data, bytes);
        raxInsert(nst->rax, ri.key, ri.key_len, lp, NULL);
    }
    raxStop(&ri);
    nst->length = st->length;
    nst->first_id = st->first_id;
    nst->last_id = st->last_id;
    nst->max_deleted_entry_id = st->max_deleted_entry_id;
    nst->entries_added = st->entries_added;
    if (st->cgroups) {
        raxStart(&ri, st->cgroups);
        raxSeek(&ri, "^", NULL, 0);
        while (raxNext(&ri)) {
            streamCG *cg = ri.data;
            streamCG *ncg = streamCreateCG(s, nst, (char *)ri.key,
                                           ri.key_len, &cg->last_id,
                                           cg->entries_read);
            _streamDupGroup(s, cg, ncg);
        }
        raxStop(&ri);
    }
    robj *n = createObject(s, OBJ_STREAM, nst);
    n->encoding = OBJ_ENCODING_STREAM;
    return n;
}

/* ---- Validation (RESTORE and the RDB loader) ---- */

/* Steps *p to the next element, 0 if there is none. */
static int _lpStep(unsigned char *lp, unsigned char **p) {
    if (!*p) return 0;
    *p = lpNext(lp, *p);
    return *p != NULL;
}

/* Whether the element at p is an integer (or a string of one). */
static int _lpIsInt(unsigned char *p, int64_t *v) {
    if (lpGetInteger(p, v)) return 1;
    unsigned char *s = lpGet(p, v, NULL);
    long long ll;
    if (!string2ll((const char *)s, (size_t)*v, &ll)) return 0;
    *v = ll;
    return 1;
}

/* Checks a node's listpack: whole, and with deep, laid out as a stream
 * node (master entry, entries whose lp-count matches their shape).
 * Returns 1 if it is. */
int streamValidateListpackIntegrity(unsigned char *lp, size_t size,
                                    int deep) {
    if (!lpValidateIntegrity(lp, size, 1, NULL, NULL)) return 0;
    if (!deep) return 1;
    unsigned char *p = lpFirst(lp);
    int64_t count, deleted, master_fields, v;
    if (!p || !_lpIsInt(p, &count)) return 0;
    if (!_lpStep(lp, &p) || !_lpIsInt(p, &deleted)) return 0;
    if (!_lpStep(lp, &p) || !_lpIsInt(p, &master_fields)) return 0;
    for (int64_t j = 0; j < master_fields; j++)
        if (!_lpStep(lp, &p)) return 0;
    if (!_lpStep(lp, &p) || !_lpIsInt(p, &v) || v != 0) return 0;
    _lpStep(lp, &p);
    int64_t entries = count + deleted;
    while (entries--) {
        int64_t flags, fields = master_fields, extra = 3;
        if (!p || !_lpIsInt(p, &flags)) return 0;
        if (!_lpStep(lp, &p) || !_lpIsInt(p, &v)) return 0;
        if (!_lpStep(lp, &p) || !_lpIsInt(p, &v)) return 0;
        if (!_lpStep(lp, &p)) return 0;
        if (!(flags & STREAM_ITEM_FLAG_SAMEFIELDS)) {
            if (!_lpIsInt(p, &fields) || fields < 0) return 0;
            for (int64_t j = 0; j < fields; j++)
                if (!_lpStep(lp, &p)) return 0;
            if (!_lpStep(lp, &p)) return 0;
            extra += fields + 1;
        }
        for (int64_t j = 0; j < fields; j++) {
            p = lpNext(lp, p);
            if (!p) return 0;
        }
        if (!_lpIsInt(p, &v) || v != fields + extra) return 0;
        p = lpNext(lp, p);
    }
    return p == NULL;
}

/* ---- MEMORY USAGE ---- */

/* Redis 7.0's stream structs on a 64-bit machine, as MEMORY USAGE adds
 * them up whatever the host's pointers. */
#define MEM64_LONG 8
#define MEM64_STREAM 80             /* stream */
#define MEM64_STREAM_CG 40          /* streamCG */
#define MEM64_STREAM_NACK 24        /* streamNACK */
#define MEM64_STREAM_CONSUMER 24    /* streamConsumer */

/* A radix tree's bytes as 7.0 estimates them: 16 bytes a key, and per
 * node (counted as Redis's tree would have them) its header and a fixed
 * overhead of 30 words. */
static size_t _raxMemoryUsage(const rax *rt) {
    uint64_t nodes = raxNodesAsRedis(rt);
    return (size_t)rt->numele * sizeof(streamID) +
           (size_t)nodes * (4 + MEM64_LONG * 30);
}

/* The estimate of MEMORY USAGE for a stream, as 7.0 makes it: the
 * first samples nodes measured, their average taken for all but the last
 * node, the last (often not full) measured; then each group's PEL and
 * consumers. */
size_t streamMemoryUsage(robj *o, long long samples) {
    stream *st = o->v.ptr;
    size_t asize = MEM64_ROBJ + MEM64_STREAM + _raxMemoryUsage(st->rax);
    raxIterator ri;
    size_t lpsize = 0, n = 0;
    raxStart(&ri, st->rax);
    raxSeek(&ri, "^", NULL, 0);
    while ((long long)n < samples && raxNext(&ri)) {
        lpsize += memBlockSize(ri.data);
        n++;
    }
    if (st->rax->numele <= n) {
        asize += lpsize;
    } else {
        if (n) lpsize /= n;
        asize += lpsize * (size_t)(st->rax->numele - 1);
        raxSeek(&ri, "$", NULL, 0);
        raxNext(&ri);
        asize += memBlockSize(ri.data);
    }
    raxStop(&ri);
    if (!st->cgroups) return asize;
    raxStart(&ri, st->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        asize += MEM64_STREAM_CG + _raxMemoryUsage(cg->pel) +
                 MEM64_STREAM_NACK * (size_t)raxSize(cg->pel);
        raxIterator ci;
        raxStart(&ci, cg->consumers);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            streamConsumer *sc = ci.data;
            asize += MEM64_STREAM_CONSUMER + sdslen(sc->name) +
                     _raxMemoryUsage(sc->pel);
        }
        raxStop(&ci);
    }
    raxStop(&ri);
    return asize;
}
