/* quicklist.c -- see quicklist.h.
 *
 * How full a node may get. A push or insert goes into an existing node
 * only if the node would then stay within the list's fill:
 *
 *   fill -1..-5  the listpack, plus the new element, plus 8 bytes of slack
 *                for its encoding, fits 4, 8, 16, 32 or 64 KB;
 *   fill N > 0   the node has fewer than N elements, and (whatever N is)
 *                its bytes stay within 8 KB, so a count of 10,000 cannot
 *                make a node of 10,000 large strings.
 *
 * A node never takes an element of packed_threshold bytes or more: that
 * element gets a plain node of its own, and a plain node never takes a
 * second one.
 *
 * Where a push goes. LPUSH and RPUSH try the head or tail node and start
 * a new node when it is full. LINSERT finds its pivot and, if that node
 * is full, looks at the neighbour on the side of the insert when the
 * pivot is at the node's edge; failing that, a new node between them,
 * or, for a pivot inside the node, a split of the node at the pivot, the
 * new element going to the start or end of the split-off half. After a
 * split the quicklist tries to merge the split node with its neighbours
 * (two on each side), since splitting can leave half-empty nodes beside
 * each other. Two nodes merge when their listpacks together (less 11
 * bytes of header) meet the same fill rule, with <= for the count.
 *
 * Compression. With list-compress-depth d, the d nodes at each end stay
 * raw and every node in between is kept compressed. Each time the list's
 * node structure changes, the d nodes at each end are decompressed if
 * they were not (a deletion can bring a compressed node within reach of
 * an end) and the first node past the depth on each side is compressed,
 * along with the node that changed if it is not within the depth. Nodes
 * smaller than 48 bytes are never compressed, and a compression that
 * saves fewer than 8 bytes is thrown away. When an operation needs an
 * inner node it decompresses it "for use" and compresses it back when it
 * is done, as iterators do when they leave a node; a read of the middle
 * of a compressed list (LINDEX, LRANGE) pays for a decompression and a
 * compression of every node it touches.
 *
 * All this mirrors Redis 7.0.15's quicklist.c, rule for rule, so the same
 * commands leave the same nodes (count, size, compression) as there; the
 * code is written here from those rules. */
#include <assert.h>
#include <string.h>
#include "quicklist.h"
#include "listpack.h"
#include "lzf.h"

/* The byte limits of fill -1 .. -5. */
static const size_t qlSizeClass[] = { 4096, 8192, 16384, 32768, 65536 };

#define SIZE_SAFETY_LIMIT 8192      /* bytes of a node with a count fill */
#define SIZE_ESTIMATE_OVERHEAD 8    /* an element's encoding, at most */
#define MIN_COMPRESS_BYTES 48       /* smaller nodes are not compressed */
#define MIN_COMPRESS_IMPROVE 8      /* or if compression saves less */

static void _qlDelNode(quicklist *ql, quicklistNode *node);

/* ---- The environment and the list ---- */

/* Sets env up for a server whose lists allocate from mem, with the
 * default plain-node threshold. */
void quicklistEnvInit(quicklistEnv *env, gkMem *mem) {
    env->mem = mem;
    env->packed_threshold = QUICKLIST_PACKED_THRESHOLD_DEFAULT;
}

/* DEBUG QUICKLIST-PACKED-THRESHOLD: elements of sz bytes or more get a
 * plain node from now on, in every list of env; 0 restores 1 GB. Returns
 * 0, changing nothing, for a size above 4 GB less 1 MB. */
int quicklistSetPackedThreshold(quicklistEnv *env, unsigned long long sz) {
    if (sz > (1ULL << 32) - (1 << 20)) return 0;
    env->packed_threshold = sz ? (size_t)sz
                               : QUICKLIST_PACKED_THRESHOLD_DEFAULT;
    return 1;
}

/* Returns a new empty list (from env's memory) whose nodes follow fill,
 * clamped to -5..32767, and whose inner nodes are compressed beyond
 * compress nodes from each end, clamped to 0..65535 (0: never). */
quicklist *quicklistCreate(quicklistEnv *env, int fill, int compress) {
    quicklist *ql = memCallocAs(env->mem, sizeof(*ql), MEM64_QUICKLIST);
    if (fill > QUICKLIST_FILL_MAX) fill = QUICKLIST_FILL_MAX;
    if (fill < QUICKLIST_FILL_MIN) fill = QUICKLIST_FILL_MIN;
    if (compress > QUICKLIST_COMPRESS_MAX) compress = QUICKLIST_COMPRESS_MAX;
    if (compress < 0) compress = 0;
    ql->fill = fill;
    ql->compress = (unsigned int)compress;
    ql->env = env;
    return ql;
}

/* Frees the list, its nodes and their data. */
void quicklistRelease(quicklist *ql) {
    gkMem *m = ql->env->mem;
    quicklistNode *node = ql->head;
    while (node) {
        quicklistNode *next = node->next;
        memFree(m, node->entry);
        memFree(m, node);
        node = next;
    }
    memFree(m, ql);
}

/* A copy of the list with the same nodes (COPY): each node's bytes are
 * copied as they are, compressed or not, so the copy is laid out exactly
 * as the original. The caller owns the copy. */
quicklist *quicklistDup(const quicklist *orig) {
    gkMem *m = orig->env->mem;
    quicklist *copy = quicklistCreate(orig->env, orig->fill,
                                      (int)orig->compress);
    for (const quicklistNode *cur = orig->head; cur; cur = cur->next) {
        quicklistNode *node = memAllocAs(m, sizeof(*node),
                                         MEM64_QUICKLIST_NODE);
        size_t bytes = cur->sz, as = cur->sz;
        *node = *cur;
        if (quicklistNodeIsCompressed(cur)) {
            size_t lzf = ((quicklistLZF *)cur->entry)->sz;
            bytes = sizeof(quicklistLZF) + lzf;
            as = MEM64_QUICKLIST_LZF + lzf;
        }
        node->entry = memAllocAs(m, bytes ? bytes : 1, as);
        memcpy(node->entry, cur->entry, bytes);
        node->prev = copy->tail;
        node->next = NULL;
        if (copy->tail) copy->tail->next = node;
        else copy->head = node;
        copy->tail = node;
    }
    copy->count = orig->count;
    copy->len = orig->len;
    return copy;
}

/* Returns the number of elements, O(1). */
unsigned long long quicklistCount(const quicklist *ql) { return ql->count; }

/* Returns the bytes the list holds: its header, its nodes and their data
 * as stored (compressed or not). O(nodes). */
size_t quicklistAllocSize(const quicklist *ql) {
    size_t n = memSize(ql);
    for (const quicklistNode *node = ql->head; node; node = node->next)
        n += memSize(node) + memSize(node->entry);
    return n;
}

static quicklistNode *_qlNodeCreate(quicklist *ql) {
    quicklistNode *node = memCallocAs(ql->env->mem, sizeof(*node),
                                      MEM64_QUICKLIST_NODE);
    node->encoding = QUICKLIST_NODE_ENCODING_RAW;
    node->container = QUICKLIST_NODE_CONTAINER_PACKED;
    return node;
}

static int _qlIsLarge(const quicklist *ql, size_t sz) {
    return sz >= ql->env->packed_threshold;
}

static void _qlUpdateSz(quicklistNode *node) {
    node->sz = lpBytes(node->entry);
}

/* ---- Compression ---- */

/* Compresses an inner node in place. Returns 1 if it is now compressed;
 * 0 if it is marked dont_compress, too small, or did not compress by at
 * least MIN_COMPRESS_IMPROVE bytes (then it stays raw, as it was). The
 * compressor's 256 KB hash table comes from the host's allocator, not
 * from the list's account: it is scratch, as Redis keeps it on its
 * stack, and it is freed before returning. */
static int _qlCompressNode(quicklist *ql, quicklistNode *node) {
    gkMem *m = ql->env->mem, scratch;
    node->attempted_compress = 1;
    if (node->dont_compress) return 0;
    assert(node->prev && node->next);
    node->recompress = 0;
    if (node->sz < MIN_COMPRESS_BYTES) return 0;
    memInit(&scratch, m->fn, m->ud);
    uint32_t *htab = memTryAlloc(&scratch, sizeof(*htab) * LZF_HTAB_SLOTS);
    quicklistLZF *lzf = memTryAllocAs(m, sizeof(*lzf) + node->sz,
                                      MEM64_QUICKLIST_LZF + node->sz);
    if (htab && lzf)
        lzf->sz = lzfCompress(node->entry, node->sz, lzf->compressed,
                              node->sz, htab);
    memFree(&scratch, htab);
    if (!htab || !lzf || lzf->sz == 0 ||
        lzf->sz + MIN_COMPRESS_IMPROVE >= node->sz) {
        memFree(m, lzf);
        return 0;
    }
    lzf = memReallocAs(m, lzf, sizeof(*lzf) + lzf->sz,
                       MEM64_QUICKLIST_LZF + lzf->sz);
    memFree(m, node->entry);
    node->entry = (unsigned char *)lzf;
    node->encoding = QUICKLIST_NODE_ENCODING_LZF;
    return 1;
}

/* Turns a compressed node back into its raw bytes. */
static void _qlDecompressNode(quicklist *ql, quicklistNode *node) {
    gkMem *m = ql->env->mem;
    quicklistLZF *lzf = (quicklistLZF *)node->entry;
    unsigned char *raw = memAlloc(m, node->sz ? node->sz : 1);
    node->attempted_compress = 0;
    node->recompress = 0;
    if (lzfDecompress(lzf->compressed, lzf->sz, raw, node->sz) != node->sz)
        memPanic("quicklist: a compressed node does not decompress");
    memFree(m, lzf);
    node->entry = raw;
    node->encoding = QUICKLIST_NODE_ENCODING_RAW;
}

static void _qlCompressIfRaw(quicklist *ql, quicklistNode *node) {
    if (node && node->encoding == QUICKLIST_NODE_ENCODING_RAW)
        _qlCompressNode(ql, node);
}

static void _qlDecompressIfLzf(quicklist *ql, quicklistNode *node) {
    if (node && node->encoding == QUICKLIST_NODE_ENCODING_LZF)
        _qlDecompressNode(ql, node);
}

/* Decompresses a node an operation is about to read or change, marking
 * it to be compressed back afterwards. */
static void _qlDecompressForUse(quicklist *ql, quicklistNode *node) {
    if (node && node->encoding == QUICKLIST_NODE_ENCODING_LZF) {
        _qlDecompressNode(ql, node);
        node->recompress = 1;
    }
}

/* Enforces the compress depth after a change at node (NULL: after a node
 * was deleted): the depth nodes at each end raw, the first node past it
 * on each side compressed, and node too unless it lies within the depth.
 * A list of fewer than 2 * depth nodes is left as it is. */
static void _qlCompressDepth(quicklist *ql, quicklistNode *node) {
    if (ql->len == 0) return;
    assert(!ql->head->recompress && !ql->tail->recompress);
    if (ql->compress == 0 ||
        ql->len < (unsigned long long)ql->compress * 2) return;
    quicklistNode *fwd = ql->head, *rev = ql->tail;
    int in_depth = 0;
    for (unsigned int depth = 0; depth < ql->compress; depth++) {
        _qlDecompressIfLzf(ql, fwd);
        _qlDecompressIfLzf(ql, rev);
        if (fwd == node || rev == node) in_depth = 1;
        /* The two ends met: every node is within the depth. */
        if (fwd == rev || fwd->next == rev) return;
        fwd = fwd->next;
        rev = rev->prev;
    }
    if (!in_depth) _qlCompressIfRaw(ql, node);
    _qlCompressIfRaw(ql, fwd);
    _qlCompressIfRaw(ql, rev);
}

/* After using node: compresses it back if it was decompressed for use,
 * else enforces the depth around it. */
static void _qlCompress(quicklist *ql, quicklistNode *node) {
    if (node->recompress) _qlCompressIfRaw(ql, node);
    else _qlCompressDepth(ql, node);
}

/* Compresses node back only if it was decompressed for use. */
static void _qlRecompressOnly(quicklist *ql, quicklistNode *node) {
    if (node->recompress) _qlCompressIfRaw(ql, node);
}

/* ---- Linking nodes ---- */

/* Links new_node after old (after = 1) or before it (0); old NULL only
 * for the first node of an empty list. new_node is raw. Then applies the
 * compress depth around both. */
static void _qlInsertNode(quicklist *ql, quicklistNode *old,
                          quicklistNode *new_node, int after) {
    if (after) {
        new_node->prev = old;
        if (old) {
            new_node->next = old->next;
            if (old->next) old->next->prev = new_node;
            old->next = new_node;
        }
        if (ql->tail == old) ql->tail = new_node;
    } else {
        new_node->next = old;
        if (old) {
            new_node->prev = old->prev;
            if (old->prev) old->prev->next = new_node;
            old->prev = new_node;
        }
        if (ql->head == old) ql->head = new_node;
    }
    if (ql->len == 0) ql->head = ql->tail = new_node;
    ql->len++;
    if (old) _qlCompress(ql, old);
    _qlCompress(ql, new_node);
}

/* Unlinks and frees node, its elements leaving the count; then the depth
 * is enforced, as a node within reach of an end may be compressed. */
static void _qlDelNode(quicklist *ql, quicklistNode *node) {
    gkMem *m = ql->env->mem;
    if (node->next) node->next->prev = node->prev;
    if (node->prev) node->prev->next = node->next;
    if (node == ql->tail) ql->tail = node->prev;
    if (node == ql->head) ql->head = node->next;
    ql->len--;
    ql->count -= node->count;
    _qlCompressDepth(ql, NULL);
    memFree(m, node->entry);
    memFree(m, node);
}

/* Deletes the element at *p of a raw node (all of a plain node), *p then
 * pointing at the element that followed. Returns 1 if the node went with
 * it (it was its last element). */
static int _qlDelIndex(quicklist *ql, quicklistNode *node, unsigned char **p) {
    if (QL_NODE_IS_PLAIN(node)) {
        _qlDelNode(ql, node);
        return 1;
    }
    node->entry = lpDelete(ql->env->mem, node->entry, *p, p);
    node->count--;
    int gone = node->count == 0;
    if (gone) _qlDelNode(ql, node);
    else _qlUpdateSz(node);
    ql->count--;
    return gone;
}

/* ---- Fill rules ---- */

/* Whether sz bytes fit the size class of a negative fill. */
static int _qlSizeMeetsClass(size_t sz, int fill) {
    if (fill >= 0) return 0;
    size_t i = (size_t)(-fill) - 1;
    return i < sizeof(qlSizeClass) / sizeof(qlSizeClass[0]) &&
           sz <= qlSizeClass[i];
}

/* Whether node (may be NULL) can take one more element of sz bytes. */
static int _qlNodeAllowInsert(const quicklist *ql, const quicklistNode *node,
                              size_t sz) {
    if (!node || QL_NODE_IS_PLAIN(node) || _qlIsLarge(ql, sz)) return 0;
    /* An overestimate of the listpack after the insert: at worst a node
     * ends a few bytes short of its class. */
    size_t new_sz = node->sz + sz + SIZE_ESTIMATE_OVERHEAD;
    if (_qlSizeMeetsClass(new_sz, ql->fill)) return 1;
    if (new_sz > SIZE_SAFETY_LIMIT) return 0;
    return (int)node->count < ql->fill;
}

/* Whether nodes a and b (either may be NULL) can become one. */
static int _qlNodeAllowMerge(const quicklist *ql, const quicklistNode *a,
                             const quicklistNode *b) {
    if (!a || !b || QL_NODE_IS_PLAIN(a) || QL_NODE_IS_PLAIN(b)) return 0;
    size_t merge_sz = a->sz + b->sz - 11;
    if (_qlSizeMeetsClass(merge_sz, ql->fill)) return 1;
    if (merge_sz > SIZE_SAFETY_LIMIT) return 0;
    return (int)(a->count + b->count) <= ql->fill;
}

/* ---- Pushing ---- */

/* A plain node holding a copy of the sz bytes at value. */
static quicklistNode *_qlCreatePlainNode(quicklist *ql, const void *value,
                                         size_t sz) {
    quicklistNode *node = _qlNodeCreate(ql);
    node->entry = memAlloc(ql->env->mem, sz ? sz : 1);
    node->container = QUICKLIST_NODE_CONTAINER_PLAIN;
    memcpy(node->entry, value, sz);
    node->sz = sz;
    node->count = 1;
    return node;
}

static void _qlInsertPlainNode(quicklist *ql, quicklistNode *old,
                               const void *value, size_t sz, int after) {
    _qlInsertNode(ql, old, _qlCreatePlainNode(ql, value, sz), after);
    ql->count++;
}

/* A new raw node holding one element. */
static quicklistNode *_qlCreateNodeWith(quicklist *ql, const void *value,
                                        size_t sz) {
    gkMem *m = ql->env->mem;
    quicklistNode *node = _qlNodeCreate(ql);
    node->entry = lpPrepend(m, lpCreate(m, 0), value, (uint32_t)sz);
    _qlUpdateSz(node);
    return node;
}

/* Pushes the sz bytes at value at the head. Returns 1 if a new head node
 * was made for it, 0 if the old head took it. */
int quicklistPushHead(quicklist *ql, const void *value, size_t sz) {
    quicklistNode *orig = ql->head;
    if (_qlIsLarge(ql, sz)) {
        _qlInsertPlainNode(ql, ql->head, value, sz, 0);
        return 1;
    }
    if (_qlNodeAllowInsert(ql, ql->head, sz)) {
        ql->head->entry = lpPrepend(ql->env->mem, ql->head->entry, value,
                                    (uint32_t)sz);
        _qlUpdateSz(ql->head);
    } else {
        _qlInsertNode(ql, ql->head, _qlCreateNodeWith(ql, value, sz), 0);
    }
    ql->count++;
    ql->head->count++;
    return orig != ql->head;
}

/* Pushes the sz bytes at value at the tail. Returns as quicklistPushHead. */
int quicklistPushTail(quicklist *ql, const void *value, size_t sz) {
    quicklistNode *orig = ql->tail;
    if (_qlIsLarge(ql, sz)) {
        _qlInsertPlainNode(ql, ql->tail, value, sz, 1);
        return 1;
    }
    if (_qlNodeAllowInsert(ql, ql->tail, sz)) {
        ql->tail->entry = lpAppend(ql->env->mem, ql->tail->entry, value,
                                   (uint32_t)sz);
        _qlUpdateSz(ql->tail);
    } else {
        _qlInsertNode(ql, ql->tail, _qlCreateNodeWith(ql, value, sz), 1);
    }
    ql->count++;
    ql->tail->count++;
    return orig != ql->tail;
}

/* Pushes at QUICKLIST_HEAD or QUICKLIST_TAIL. */
void quicklistPush(quicklist *ql, const void *value, size_t sz, int where) {
    assert(!ql->head || !quicklistNodeIsCompressed(ql->head));
    assert(!ql->tail || !quicklistNodeIsCompressed(ql->tail));
    if (where == QUICKLIST_HEAD) quicklistPushHead(ql, value, sz);
    else quicklistPushTail(ql, value, sz);
}

/* ---- Popping ---- */

/* Removes the element at QUICKLIST_HEAD or QUICKLIST_TAIL. Its bytes go
 * through saver, whose result lands in *data; an element stored as an
 * integer sets *data to NULL and *sval to the value instead. Returns 0
 * for an empty list, else 1. */
int quicklistPopCustom(quicklist *ql, int where, quicklistSaver *saver,
                       void *ctx, void **data, long long *sval) {
    quicklistNode *node = where == QUICKLIST_HEAD ? ql->head : ql->tail;
    *data = NULL;
    if (ql->count == 0 || !node) return 0;
    assert(!quicklistNodeIsCompressed(node));
    if (QL_NODE_IS_PLAIN(node)) {
        *data = saver(ctx, node->entry, node->sz);
        _qlDelIndex(ql, node, NULL);
        return 1;
    }
    unsigned char *p = lpSeek(node->entry, where == QUICKLIST_HEAD ? 0 : -1);
    int64_t v;
    unsigned char *s = lpGet(p, &v, NULL);
    if (s) *data = saver(ctx, s, (size_t)v);
    else *sval = v;
    _qlDelIndex(ql, node, &p);
    return 1;
}

/* ---- Iterating ---- */

/* Sets it at the head (AL_START_HEAD) or tail (AL_START_TAIL). */
void quicklistGetIterator(quicklist *ql, int direction, quicklistIter *it) {
    it->ql = ql;
    it->direction = direction;
    it->current = direction == AL_START_HEAD ? ql->head : ql->tail;
    it->offset = direction == AL_START_HEAD ? 0 : -1;
    it->zi = NULL;
}

/* Sets it at element idx (negative: from the tail, -1 the last), to walk
 * in direction. The node is found from whichever end is nearer, counting
 * elements node by node. Returns 0 if idx is out of range (it is then
 * at no element, and releasing it does nothing). */
int quicklistGetIteratorAtIdx(quicklist *ql, int direction, long long idx,
                              quicklistIter *it) {
    int forward = idx >= 0;
    unsigned long long index = forward ? (unsigned long long)idx
                                       : (unsigned long long)(-(idx + 1));
    quicklistGetIterator(ql, direction, it);
    it->current = NULL;
    if (index >= ql->count) return 0;
    int seek_forward = forward;
    unsigned long long seek_index = index, accum = 0;
    if (index > (ql->count - 1) / 2) {
        seek_forward = !forward;
        seek_index = ql->count - 1 - index;
    }
    quicklistNode *n = seek_forward ? ql->head : ql->tail;
    while (n && accum + n->count <= seek_index) {
        accum += n->count;
        n = seek_forward ? n->next : n->prev;
    }
    if (!n) return 0;
    /* accum as if the seek had come from the side idx counts from. */
    if (seek_forward != forward) accum = ql->count - n->count - accum;
    it->current = n;
    it->offset = forward ? (long)(index - accum)
                         : (long)accum - (long)index - 1;
    return 1;
}

/* Sets it at element idx and reads it into entry. Returns 0 if idx is out
 * of range. */
int quicklistGetIteratorEntryAtIdx(quicklist *ql, long long idx,
                                   quicklistIter *it, quicklistEntry *entry) {
    if (!quicklistGetIteratorAtIdx(ql, AL_START_TAIL, idx, it)) return 0;
    int found = quicklistNext(it, entry);
    assert(found);
    return found;
}

void quicklistSetDirection(quicklistIter *it, int direction) {
    it->direction = direction;
}

static void _qlEntryInit(quicklistEntry *e, quicklist *ql) {
    memset(e, 0, sizeof(*e));
    e->ql = ql;
}

/* Fills entry's value from the element (or plain node) at it->zi. */
static void _qlEntryRead(quicklistEntry *entry) {
    if (QL_NODE_IS_PLAIN(entry->node)) {
        entry->value = entry->node->entry;
        entry->sz = entry->node->sz;
        return;
    }
    int64_t v;
    entry->value = lpGet(entry->zi, &v, NULL);
    if (entry->value) entry->sz = (size_t)v;
    else entry->longval = v;
}

/* Moves it one element on and reads that element into entry. Returns 0
 * at the end. The list must not change while iterating, except through
 * quicklistDelEntry. A node is decompressed when the walk enters it and
 * compressed back when it leaves. */
int quicklistNext(quicklistIter *it, quicklistEntry *entry) {
    _qlEntryInit(entry, it->ql);
    while (it->current) {
        quicklistNode *node = it->current;
        int plain = QL_NODE_IS_PLAIN(node);
        entry->node = node;
        if (!it->zi) {
            _qlDecompressForUse(it->ql, node);
            it->zi = plain ? node->entry : lpSeek(node->entry, it->offset);
        } else if (plain) {
            it->zi = NULL;
        } else if (it->direction == AL_START_HEAD) {
            it->zi = lpNext(node->entry, it->zi);
            it->offset++;
        } else {
            it->zi = lpPrev(node->entry, it->zi);
            it->offset--;
        }
        entry->zi = it->zi;
        entry->offset = it->offset;
        if (it->zi) {
            _qlEntryRead(entry);
            return 1;
        }
        /* This node is done: the next one, from its first element on
         * the side the walk enters it. */
        _qlCompress(it->ql, node);
        it->current = it->direction == AL_START_HEAD ? node->next
                                                     : node->prev;
        it->offset = it->direction == AL_START_HEAD ? 0 : -1;
        it->zi = NULL;
    }
    entry->node = NULL;
    return 0;
}

/* Ends a walk: the node it stopped in is compressed back. */
void quicklistReleaseIterator(quicklistIter *it) {
    if (it->current) _qlCompress(it->ql, it->current);
    it->current = NULL;
}

/* After an insert or replace the iterator must not be used again. */
static void _qlResetIterator(quicklistIter *it) {
    it->current = NULL;
    it->zi = NULL;
}

/* ---- Splitting and merging ---- */

/* Splits node at offset. With after = 1, node keeps [0, offset] and the
 * returned new node holds (offset, end]; with after = 0, the new node
 * holds [0, offset) and node keeps [offset, end]. The new node is not
 * linked yet. */
static quicklistNode *_qlSplitNode(quicklist *ql, quicklistNode *node,
                                   long offset, int after) {
    gkMem *m = ql->env->mem;
    quicklistNode *new_node = _qlNodeCreate(ql);
    new_node->entry = memAlloc(m, node->sz);
    memcpy(new_node->entry, node->entry, node->sz);
    if (offset < 0) offset += node->count;
    /* Each side deletes what the other keeps; -1: to the end. */
    long orig_start = after ? offset + 1 : 0;
    long orig_extent = after ? -1 : offset;
    long new_start = after ? 0 : offset;
    long new_extent = after ? offset + 1 : -1;
    node->entry = lpDeleteRange(m, node->entry, orig_start,
                                (unsigned long)orig_extent);
    node->count = lpLength(node->entry);
    _qlUpdateSz(node);
    new_node->entry = lpDeleteRange(m, new_node->entry, new_start,
                                    (unsigned long)new_extent);
    new_node->count = lpLength(new_node->entry);
    _qlUpdateSz(new_node);
    return new_node;
}

/* Merges b into a or a into b (a is left of b), whichever listpack is
 * larger being kept; the other node is deleted. Returns the node kept,
 * or NULL if the listpacks could not be merged. */
static quicklistNode *_qlListpackMerge(quicklist *ql, quicklistNode *a,
                                       quicklistNode *b) {
    _qlDecompressIfLzf(ql, a);
    _qlDecompressIfLzf(ql, b);
    if (!lpMerge(ql->env->mem, &a->entry, &b->entry)) return NULL;
    quicklistNode *keep = a->entry ? a : b, *nokeep = a->entry ? b : a;
    keep->count = lpLength(keep->entry);
    _qlUpdateSz(keep);
    nokeep->count = 0;
    _qlDelNode(ql, nokeep);
    _qlCompress(ql, keep);
    return keep;
}

/* After a split at center: merges, where the fill allows, center's two
 * left neighbours, its two right neighbours, center with its left one,
 * and the result with its right one. */
static void _qlMergeNodes(quicklist *ql, quicklistNode *center) {
    quicklistNode *prev = center->prev, *next = center->next;
    quicklistNode *prev_prev = prev ? prev->prev : NULL;
    quicklistNode *next_next = next ? next->next : NULL;
    quicklistNode *target = center;
    if (_qlNodeAllowMerge(ql, prev, prev_prev))
        _qlListpackMerge(ql, prev_prev, prev);
    if (_qlNodeAllowMerge(ql, next, next_next))
        _qlListpackMerge(ql, next, next_next);
    if (_qlNodeAllowMerge(ql, center, center->prev))
        target = _qlListpackMerge(ql, center->prev, center);
    if (target && _qlNodeAllowMerge(ql, target, target->next))
        _qlListpackMerge(ql, target, target->next);
}

/* ---- Inserting next to an element ---- */

/* Where _qlInsert stands. */
typedef struct qlInsertPlace {
    int full;                   /* the entry's node cannot take it */
    int at_tail, at_head;       /* the entry is its node's last / first */
    int avail_next, avail_prev; /* the neighbour on that side can */
} qlInsertPlace;

static void _qlInsertPlaceOf(quicklist *ql, const quicklistEntry *entry,
                             size_t sz, int after, qlInsertPlace *pl) {
    quicklistNode *node = entry->node;
    long count = node->count;
    memset(pl, 0, sizeof(*pl));
    pl->full = !_qlNodeAllowInsert(ql, node, sz);
    if (after && (entry->offset == count - 1 || entry->offset == -1)) {
        pl->at_tail = 1;
        pl->avail_next = _qlNodeAllowInsert(ql, node->next, sz);
    }
    if (!after && (entry->offset == 0 || entry->offset == -count)) {
        pl->at_head = 1;
        pl->avail_prev = _qlNodeAllowInsert(ql, node->prev, sz);
    }
}

/* Inserts an element of packed_threshold bytes or more next to entry: a
 * plain node beside entry's node if entry is at that edge (or is plain
 * itself), else entry's node is split around entry and the plain node
 * goes between the halves. */
static void _qlInsertLarge(quicklist *ql, quicklistEntry *entry,
                           const qlInsertPlace *pl, const void *value,
                           size_t sz, int after) {
    quicklistNode *node = entry->node;
    if (QL_NODE_IS_PLAIN(node) || (pl->at_tail && after) ||
        (pl->at_head && !after)) {
        _qlInsertPlainNode(ql, node, value, sz, after);
        return;
    }
    _qlDecompressForUse(ql, node);
    quicklistNode *new_node = _qlSplitNode(ql, node, entry->offset, after);
    quicklistNode *plain = _qlCreatePlainNode(ql, value, sz);
    _qlInsertNode(ql, node, plain, after);
    _qlInsertNode(ql, plain, new_node, after);
    ql->count++;
}

/* Adds the element at the start (head = 1) or end of an existing node
 * that has room, decompressing it for the moment. */
static void _qlAddToNode(quicklist *ql, quicklistNode *node,
                         const void *value, size_t sz, int head) {
    gkMem *m = ql->env->mem;
    _qlDecompressForUse(ql, node);
    node->entry = head ? lpPrepend(m, node->entry, value, (uint32_t)sz)
                       : lpAppend(m, node->entry, value, (uint32_t)sz);
    node->count++;
    _qlUpdateSz(node);
    _qlRecompressOnly(ql, node);
}

/* Inserts the sz bytes at value after (after = 1) or before entry, which
 * the iterator it returned; see the top of the file for where it goes.
 * The iterator must not be used again, only released. */
static void _qlInsert(quicklistIter *it, quicklistEntry *entry,
                      const void *value, size_t sz, int after) {
    quicklist *ql = it->ql;
    gkMem *m = ql->env->mem;
    quicklistNode *node = entry->node, *new_node;
    qlInsertPlace pl;
    if (!node) {                /* no element to stand by: an empty list */
        if (_qlIsLarge(ql, sz)) {
            _qlInsertPlainNode(ql, ql->tail, value, sz, after);
            return;
        }
        new_node = _qlCreateNodeWith(ql, value, sz);
        _qlInsertNode(ql, NULL, new_node, after);
        new_node->count++;
        ql->count++;
        return;
    }
    _qlInsertPlaceOf(ql, entry, sz, after, &pl);
    if (_qlIsLarge(ql, sz)) {
        _qlInsertLarge(ql, entry, &pl, value, sz, after);
        return;
    }
    if (!pl.full) {
        _qlDecompressForUse(ql, node);
        node->entry = lpInsertString(m, node->entry, value, (uint32_t)sz,
                                     entry->zi, after ? LP_AFTER : LP_BEFORE,
                                     NULL);
        node->count++;
        _qlUpdateSz(node);
        _qlRecompressOnly(ql, node);
    } else if (pl.at_tail && pl.avail_next && after) {
        _qlAddToNode(ql, node->next, value, sz, 1);
        _qlRecompressOnly(ql, node);
    } else if (pl.at_head && pl.avail_prev && !after) {
        _qlAddToNode(ql, node->prev, value, sz, 0);
        _qlRecompressOnly(ql, node);
    } else if ((pl.at_tail && !pl.avail_next && after) ||
               (pl.at_head && !pl.avail_prev && !after)) {
        new_node = _qlCreateNodeWith(ql, value, sz);
        new_node->count++;
        _qlInsertNode(ql, node, new_node, after);
    } else {
        /* Full, with the pivot inside the node: split it there. */
        _qlDecompressForUse(ql, node);
        new_node = _qlSplitNode(ql, node, entry->offset, after);
        new_node->entry = after
            ? lpPrepend(m, new_node->entry, value, (uint32_t)sz)
            : lpAppend(m, new_node->entry, value, (uint32_t)sz);
        new_node->count++;
        _qlUpdateSz(new_node);
        _qlInsertNode(ql, node, new_node, after);
        _qlMergeNodes(ql, node);
    }
    ql->count++;
    _qlResetIterator(it);
}

void quicklistInsertBefore(quicklistIter *it, quicklistEntry *entry,
                           const void *value, size_t sz) {
    _qlInsert(it, entry, value, sz, 0);
}

void quicklistInsertAfter(quicklistIter *it, quicklistEntry *entry,
                          const void *value, size_t sz) {
    _qlInsert(it, entry, value, sz, 1);
}

/* ---- Replacing and deleting ---- */

/* Replaces entry (returned by it) with the sz bytes at data. Within a
 * listpack, in place; a plain node takes a large value in place, and a
 * small one goes in after it, the plain node then deleted; a large value
 * for a listpack element goes in after it (as a plain node, splitting the
 * listpack if needed) and the old element is deleted. The iterator must
 * not be used again, only released. */
void quicklistReplaceEntry(quicklistIter *it, quicklistEntry *entry,
                           const void *data, size_t sz) {
    quicklist *ql = it->ql;
    gkMem *m = ql->env->mem;
    quicklistNode *node = entry->node;
    if (!QL_NODE_IS_PLAIN(node) && !_qlIsLarge(ql, sz)) {
        node->entry = lpReplace(m, node->entry, &entry->zi, data,
                                (uint32_t)sz);
        _qlUpdateSz(node);
        _qlCompress(ql, node);
    } else if (QL_NODE_IS_PLAIN(node)) {
        if (_qlIsLarge(ql, sz)) {
            memFree(m, node->entry);
            node->entry = memAlloc(m, sz ? sz : 1);
            node->sz = sz;
            memcpy(node->entry, data, sz);
            _qlCompress(ql, node);
        } else {
            quicklistInsertAfter(it, entry, data, sz);
            _qlDelNode(ql, node);
        }
    } else {
        node->dont_compress = 1;    /* the insert must leave it raw */
        quicklistInsertAfter(it, entry, data, sz);
        if (node->count == 1) {
            _qlDelNode(ql, node);
        } else {
            unsigned char *p = lpSeek(node->entry, -1);
            _qlDelIndex(ql, node, &p);
            node->dont_compress = 0;
            _qlCompress(ql, node);
            _qlCompress(ql, node->next);
        }
    }
    _qlResetIterator(it);
}

/* Replaces the element at index (as LINDEX counts) with the sz bytes at
 * data. Returns 0, changing nothing, if index is out of range. */
int quicklistReplaceAtIndex(quicklist *ql, long long index, const void *data,
                            size_t sz) {
    quicklistIter it;
    quicklistEntry entry;
    if (!quicklistGetIteratorEntryAtIdx(ql, index, &it, &entry)) return 0;
    quicklistReplaceEntry(&it, &entry, data, sz);
    quicklistReleaseIterator(&it);
    return 1;
}

/* Deletes entry, which it just returned; the walk can go on. The offset
 * stays: after a delete the next element in the walk's direction sits
 * where the deleted one was (counting from the node's start when walking
 * forward, from its end when walking backward). */
void quicklistDelEntry(quicklistIter *it, quicklistEntry *entry) {
    quicklistNode *prev = entry->node->prev, *next = entry->node->next;
    int gone = _qlDelIndex(entry->ql, entry->node, &entry->zi);
    it->zi = NULL;
    if (gone) {
        it->current = it->direction == AL_START_HEAD ? next : prev;
        it->offset = it->direction == AL_START_HEAD ? 0 : -1;
    }
}

/* How many of extent elements to delete from node, starting at offset
 * (negative only for the first node: from its end). */
static unsigned long long _qlDelCount(const quicklistNode *node, long offset,
                                      unsigned long long extent,
                                      int *entire) {
    unsigned long long del;
    *entire = 0;
    if (offset == 0 && extent >= node->count) {
        *entire = 1;
        return node->count;
    }
    if (offset >= 0 && extent + (unsigned long long)offset >= node->count)
        return node->count - (unsigned long long)offset;
    if (offset < 0) {
        del = (unsigned long long)(-offset);
        return del > extent ? extent : del;
    }
    return extent;
}

/* Deletes count elements from index start (negative: from the tail), or
 * as many as there are up to the end. Whole nodes are unlinked without
 * touching their listpacks. Returns 1 if anything was deleted. */
int quicklistDelRange(quicklist *ql, long long start, long long count) {
    if (count <= 0) return 0;
    unsigned long long extent = (unsigned long long)count;
    if (start >= 0 && extent > ql->count - (unsigned long long)start)
        extent = ql->count - (unsigned long long)start;
    else if (start < 0 && extent > (unsigned long long)(-(start + 1)) + 1)
        extent = (unsigned long long)(-(start + 1)) + 1;
    quicklistIter it;
    if (!quicklistGetIteratorAtIdx(ql, AL_START_TAIL, start, &it)) return 0;
    quicklistNode *node = it.current;
    long offset = it.offset;
    quicklistReleaseIterator(&it);
    while (extent) {
        quicklistNode *next = node->next;
        int entire;
        unsigned long long del = _qlDelCount(node, offset, extent, &entire);
        if (entire || QL_NODE_IS_PLAIN(node)) {
            _qlDelNode(ql, node);
        } else {
            _qlDecompressForUse(ql, node);
            node->entry = lpDeleteRange(ql->env->mem, node->entry, offset,
                                        (unsigned long)del);
            _qlUpdateSz(node);
            node->count -= del;
            ql->count -= del;
            if (node->count == 0) _qlDelNode(ql, node);
            else _qlRecompressOnly(ql, node);
        }
        extent -= del;
        node = next;
        offset = 0;
    }
    return 1;
}

/* Returns 1 if entry's element reads as the len bytes at p. */
int quicklistCompare(const quicklistEntry *entry, const unsigned char *p,
                     size_t len) {
    if (QL_NODE_IS_PLAIN(entry->node))
        return entry->sz == len && (len == 0 || !memcmp(entry->value, p,
                                                        len));
    if (len > UINT32_MAX) return 0;
    return lpCompare(entry->zi, p, (uint32_t)len);
}

/* ---- Reading without changing ---- */

/* Calls fn for every element, head to tail, changing nothing: a
 * compressed node is decompressed into a scratch copy (from the host's
 * allocator, not the list's account) and left compressed. For the
 * digests, the AOF rewrite and the RDB writer, which must not disturb
 * what they read. */
void quicklistForEach(quicklist *ql, quicklistElementFn *fn, void *ctx) {
    gkMem *m = ql->env->mem, scratch;
    memInit(&scratch, m->fn, m->ud);
    for (quicklistNode *node = ql->head; node; node = node->next) {
        unsigned char *bytes = node->entry, *copy = NULL;
        if (quicklistNodeIsCompressed(node)) {
            quicklistLZF *lzf = (quicklistLZF *)node->entry;
            copy = memAlloc(&scratch, node->sz ? node->sz : 1);
            if (lzfDecompress(lzf->compressed, lzf->sz, copy, node->sz) !=
                node->sz)
                memPanic("quicklist: a compressed node does not decompress");
            bytes = copy;
        }
        if (QL_NODE_IS_PLAIN(node)) {
            fn(ctx, bytes, node->sz, 0);
        } else {
            for (unsigned char *p = lpFirst(bytes); p; p = lpNext(bytes, p)) {
                int64_t v;
                unsigned char *s = lpGet(p, &v, NULL);
                fn(ctx, s, s ? (size_t)v : 0, s ? 0 : v);
            }
        }
        memFree(&scratch, copy);
    }
}
