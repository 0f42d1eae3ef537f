/* test_quicklist.c -- the quicklist and LZF: node sizes at the fill limits,
 * splits and merges, plain nodes, compression of inner nodes, and random
 * operations checked against a plain array of strings. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "gktest.h"
#include "mem.h"
#include "lzf.h"
#include "listpack.h"
#include "quicklist.h"

/* ---- LZF ---- */

/* Compresses n bytes, checks the result decompresses to them, and returns
 * the compressed size (0: did not fit in n + n/32 + 1 bytes). */
static size_t lzfRoundTrip(const unsigned char *in, size_t n) {
    static uint32_t htab[LZF_HTAB_SLOTS];
    size_t cap = n + n / 32 + 16;
    unsigned char *c = malloc(cap), *d = malloc(n + 1);
    size_t clen = lzfCompress(in, n, c, cap, htab);
    CHECK(clen > 0 && clen <= n + n / 32 + 1);
    CHECK_EQ_INT(lzfDecompress(c, clen, d, n), n);
    CHECK(memcmp(in, d, n) == 0);
    /* One byte too little room for the output: the stream is refused. */
    if (clen > 1) CHECK_EQ_INT(lzfDecompress(c, clen, d, n - 1), 0);
    free(c);
    free(d);
    return clen;
}

static void testLzfRoundTrips(void) {
    uint64_t seed = 42;
    unsigned char *buf = malloc(70000);
    for (size_t n = 1; n < 70000; n = n * 3 + 1) {
        /* Random bytes: nothing repeats, the output is a little longer. */
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)gkTestRand(&seed);
        CHECK(lzfRoundTrip(buf, n) >= n);
        /* Text from a small alphabet: repeats everywhere. */
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)("abcab"[gkTestRand(&seed) % 5]);
        size_t c = lzfRoundTrip(buf, n);
        if (n > 1000) CHECK(c < n * 3 / 4);
        /* One byte repeated: copies of 264 bytes back to back. */
        memset(buf, 'z', n);
        c = lzfRoundTrip(buf, n);
        if (n > 1000) CHECK(c < n / 40);
    }
    free(buf);
}

static void testLzfKnownStreams(void) {
    static uint32_t htab[LZF_HTAB_SLOTS];
    unsigned char out[64];
    /* "abc", then a copy of 6 from 3 back: "abcabcabc". */
    const unsigned char s1[] = { 2, 'a', 'b', 'c', 4 << 5, 2 };
    CHECK_EQ_INT(lzfDecompress(s1, sizeof(s1), out, sizeof(out)), 9);
    CHECK(memcmp(out, "abcabcabc", 9) == 0);
    /* What the compressor makes of "abc" six times, as liblzf does: no
     * copy from position 0, so "abca" goes literally, then 12 bytes from
     * 3 back (7 << 5 | 0, 12 - 9, 3 - 1), then "bc". */
    const unsigned char s2[] = { 3, 'a', 'b', 'c', 'a', 7 << 5, 3, 2, 1, 'b',
                                 'c' };
    unsigned char c[64];
    CHECK_EQ_INT(lzfCompress("abcabcabcabcabcabc", 18, c, sizeof(c), htab),
                 sizeof(s2));
    CHECK(memcmp(c, s2, sizeof(s2)) == 0);
    /* A copy from before the start, a run past the input, a copy with
     * its offset byte missing: all refused. */
    const unsigned char bad1[] = { 0, 'a', 1 << 5, 5 };
    const unsigned char bad2[] = { 5, 'a', 'b' };
    const unsigned char bad3[] = { 0, 'a', 1 << 5 };
    CHECK_EQ_INT(lzfDecompress(bad1, sizeof(bad1), out, sizeof(out)), 0);
    CHECK_EQ_INT(lzfDecompress(bad2, sizeof(bad2), out, sizeof(out)), 0);
    CHECK_EQ_INT(lzfDecompress(bad3, sizeof(bad3), out, sizeof(out)), 0);
    /* Output that does not fit the room given: 0. */
    CHECK_EQ_INT(lzfCompress("abcdefgh", 8, c, 4, htab), 0);
    CHECK_EQ_INT(lzfCompress("", 0, c, sizeof(c), htab), 0);
}

/* ---- Quicklist helpers ---- */

typedef struct qlt {
    gkMem mem;
    quicklistEnv env;
    quicklist *ql;
} qlt;

static void qltOpen(qlt *t, int fill, int depth) {
    memInit(&t->mem, NULL, NULL);
    quicklistEnvInit(&t->env, &t->mem);
    t->ql = quicklistCreate(&t->env, fill, depth);
}

static void qltClose(qlt *t) {
    quicklistRelease(t->ql);
    CHECK_EQ_INT(t->mem.used, 0);
}

static void pushStr(quicklist *ql, const char *s, int where) {
    quicklistPush(ql, s, strlen(s), where);
}

/* A string of n copies of ch (at most 70000), in a static buffer. */
static const char *rep(char ch, size_t n) {
    static char buf[70001];
    memset(buf, ch, n);
    buf[n] = '\0';
    return buf;
}

/* Writes the node counts, head to tail, as "a,b,c" into out. */
static const char *nodeCounts(const quicklist *ql, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (quicklistNode *node = ql->head; node && n + 8 < cap;
         node = node->next)
        n += (size_t)snprintf(out + n, cap - n, "%s%u", n ? "," : "",
                              node->count);
    return out;
}

/* The encodings, head to tail: R raw, Z compressed, P raw plain, Q
 * compressed plain. */
static const char *nodeShapes(const quicklist *ql, char *out, size_t cap) {
    size_t n = 0;
    for (quicklistNode *node = ql->head; node && n + 1 < cap;
         node = node->next) {
        int z = quicklistNodeIsCompressed(node);
        out[n++] = QL_NODE_IS_PLAIN(node) ? (z ? 'Q' : 'P') : (z ? 'Z' : 'R');
    }
    out[n] = '\0';
    return out;
}

/* Collects the elements as "a b c" (integers as their text). */
typedef struct joined { char buf[4096]; size_t n; } joined;

static void joinElement(void *ctx, const unsigned char *p, size_t len,
                        long long v) {
    joined *j = ctx;
    char num[32];
    if (!p) {
        len = (size_t)snprintf(num, sizeof(num), "%lld", v);
        p = (const unsigned char *)num;
    }
    if (j->n && j->n + 1 < sizeof(j->buf)) j->buf[j->n++] = ' ';
    if (j->n + len < sizeof(j->buf)) {
        memcpy(j->buf + j->n, p, len);
        j->n += len;
    }
    j->buf[j->n] = '\0';
}

static const char *elements(quicklist *ql, joined *j) {
    j->n = 0;
    j->buf[0] = '\0';
    quicklistForEach(ql, joinElement, j);
    return j->buf;
}

/* ---- Fill rules ---- */

static void testSizeFillSplitsAt8Kb(void) {
    qlt t;
    char counts[256];
    qltOpen(&t, -2, 0);
    /* A 100-byte string costs 103 bytes in a listpack (2 of encoding, 1
     * of backlen): a push is allowed while 7 + 103n + 100 + 8 <= 8192, so
     * a node stops at 79 elements (8144 bytes). */
    for (int i = 0; i < 200; i++)
        pushStr(t.ql, rep('a', 100), QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "79,79,42");
    CHECK_EQ_INT(t.ql->head->sz, 7 + 79 * 103);
    CHECK_EQ_INT(t.ql->len, 3);
    CHECK_EQ_INT(quicklistCount(t.ql), 200);
    /* At the head a new node opens the same way. */
    for (int i = 0; i < 80; i++)
        pushStr(t.ql, rep('b', 100), QUICKLIST_HEAD);
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "1,79,79,79,42");
    qltClose(&t);
}

static void testEachSizeClass(void) {
    static const int limits[] = { 4096, 8192, 16384, 32768, 65536 };
    for (int k = 1; k <= 5; k++) {
        qlt t;
        qltOpen(&t, -k, 0);
        for (int i = 0; i < 2000; i++)
            pushStr(t.ql, rep('c', 100), QUICKLIST_TAIL);
        long per = (limits[k - 1] - 7 - 108) / 103 + 1;
        CHECK_EQ_INT(t.ql->head->count, per);
        CHECK(t.ql->head->sz <= (size_t)limits[k - 1]);
        qltClose(&t);
    }
    /* Past -5 the fill is clamped to -5, past 32767 to 32767. */
    qlt t;
    qltOpen(&t, -9, 0);
    CHECK_EQ_INT(t.ql->fill, -5);
    qltClose(&t);
    qltOpen(&t, 100000, 70000);
    CHECK_EQ_INT(t.ql->fill, 32767);
    CHECK_EQ_INT(t.ql->compress, 65535);
    qltClose(&t);
}

static void testCountFillAndItsSafetyLimit(void) {
    qlt t;
    char counts[256];
    qltOpen(&t, 4, 0);
    for (int i = 0; i < 10; i++) pushStr(t.ql, "x", QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "4,4,2");
    qltClose(&t);
    /* 1000 elements a node, but never past 8 KB: a 1000-byte string
     * costs 1004 bytes, so 8 fit (7 + 7 * 1004 + 1008 <= 8192). */
    qltOpen(&t, 1000, 0);
    for (int i = 0; i < 20; i++)
        pushStr(t.ql, rep('d', 1000), QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "8,8,4");
    qltClose(&t);
}

/* ---- Plain nodes ---- */

static void testLargeElementsGetPlainNodes(void) {
    qlt t;
    char shapes[64];
    joined j;
    qltOpen(&t, -2, 0);
    CHECK(quicklistSetPackedThreshold(&t.env, 10));
    CHECK(!quicklistSetPackedThreshold(&t.env, (1ULL << 32)));
    pushStr(t.ql, "small", QUICKLIST_TAIL);
    pushStr(t.ql, "tiny", QUICKLIST_TAIL);
    pushStr(t.ql, "0123456789", QUICKLIST_TAIL);
    pushStr(t.ql, "after", QUICKLIST_TAIL);
    pushStr(t.ql, "abcdefghijkl", QUICKLIST_HEAD);
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "PRPR");
    CHECK_EQ_STR(elements(t.ql, &j),
                 "abcdefghijkl small tiny 0123456789 after");
    /* A large value set into a listpack splits it around the element. */
    CHECK(quicklistReplaceAtIndex(t.ql, 1, "LARGEVALUE!", 11));
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "PPRPR");
    CHECK_EQ_STR(elements(t.ql, &j),
                 "abcdefghijkl LARGEVALUE! tiny 0123456789 after");
    /* A small value set into a plain node goes into a listpack. */
    CHECK(quicklistReplaceAtIndex(t.ql, 0, "s", 1));
    CHECK_EQ_STR(elements(t.ql, &j),
                 "s LARGEVALUE! tiny 0123456789 after");
    CHECK_EQ_INT(t.ql->head->container, QUICKLIST_NODE_CONTAINER_PACKED);
    CHECK(quicklistSetPackedThreshold(&t.env, 0));
    CHECK_EQ_INT(t.env.packed_threshold, 1 << 30);
    qltClose(&t);
}

/* ---- Splits and merges ---- */

/* Inserts value after (or before) the first element equal to pivot. */
static int insertAt(quicklist *ql, const char *pivot, const char *value,
                    int after) {
    quicklistIter it;
    quicklistEntry e;
    int done = 0;
    quicklistGetIterator(ql, AL_START_HEAD, &it);
    while (quicklistNext(&it, &e)) {
        if (!quicklistCompare(&e, (const unsigned char *)pivot,
                              strlen(pivot))) continue;
        if (after) quicklistInsertAfter(&it, &e, value, strlen(value));
        else quicklistInsertBefore(&it, &e, value, strlen(value));
        done = 1;
        break;
    }
    quicklistReleaseIterator(&it);
    return done;
}

static void testInsertSplitsAFullNodeAndMerges(void) {
    qlt t;
    char counts[256];
    joined j;
    qltOpen(&t, 4, 0);
    const char *items[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
                            "k", "l" };
    for (int i = 0; i < 12; i++) pushStr(t.ql, items[i], QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "4,4,4");
    /* The middle node down to one element. */
    CHECK(quicklistDelRange(t.ql, 4, 3));
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "4,1,4");
    /* Insert after "b": the full first node splits into [a b] and
     * [x c d]; that one merges with the [h] on its right. */
    CHECK(insertAt(t.ql, "b", "x", 1));
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "2,4,4");
    CHECK_EQ_STR(elements(t.ql, &j), "a b x c d h i j k l");
    /* At the edge of a full node, a neighbour with room takes it. */
    CHECK(insertAt(t.ql, "a", "y", 0));
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "3,4,4");
    /* A full node at its edge with a full neighbour: a node between. */
    CHECK(insertAt(t.ql, "h", "z", 1));
    CHECK_EQ_STR(nodeCounts(t.ql, counts, sizeof(counts)), "3,4,1,4");
    CHECK_EQ_STR(elements(t.ql, &j), "y a b x c d h z i j k l");
    qltClose(&t);
}

/* ---- Compression ---- */

static void testInnerNodesAreCompressed(void) {
    qlt t;
    char shapes[64];
    joined j;
    qltOpen(&t, 4, 1);
    for (int i = 0; i < 12; i++)
        pushStr(t.ql, rep((char)('a' + i), 100), QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RZR");
    quicklistNode *mid = t.ql->head->next;
    CHECK(((quicklistLZF *)mid->entry)->sz + 8 < mid->sz);
    CHECK_EQ_INT(mid->sz, 7 + 4 * 103);
    /* Reading every element leaves it compressed. */
    quicklistIter it;
    quicklistEntry e;
    int n = 0;
    quicklistGetIterator(t.ql, AL_START_HEAD, &it);
    while (quicklistNext(&it, &e)) n++;
    quicklistReleaseIterator(&it);
    CHECK_EQ_INT(n, 12);
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RZR");
    /* So does an index lookup in it, and a replace. */
    CHECK(quicklistGetIteratorEntryAtIdx(t.ql, 5, &it, &e));
    CHECK(e.sz == 100 && e.value[0] == 'f');
    quicklistReleaseIterator(&it);
    CHECK(quicklistReplaceAtIndex(t.ql, 5, rep('q', 90), 90));
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RZR");
    /* Five nodes at depth 2: only the middle one. */
    for (int i = 0; i < 8; i++)
        pushStr(t.ql, rep('m', 100), QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RZZZR");
    /* Deleting the head brings the next node to the end: raw again. */
    CHECK(quicklistDelRange(t.ql, 0, 4));
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RZZR");
    elements(t.ql, &j);
    CHECK(j.buf[0] == 'e' && strstr(j.buf, rep('q', 90)) != NULL);
    qltClose(&t);
}

static void testSmallOrIncompressibleNodesStayRaw(void) {
    qlt t;
    char shapes[64];
    uint64_t seed = 7;
    qltOpen(&t, 2, 1);
    /* Three nodes of two 1-byte elements: 11 bytes, under 48. */
    for (int i = 0; i < 6; i++) pushStr(t.ql, "s", QUICKLIST_TAIL);
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RRR");
    CHECK(t.ql->head->next->attempted_compress);
    qltClose(&t);
    /* Random bytes do not compress by 8 bytes: kept raw. */
    qltOpen(&t, 2, 1);
    for (int i = 0; i < 6; i++) {
        char r[200];
        for (int k = 0; k < 200; k++) r[k] = (char)gkTestRand(&seed);
        quicklistPush(t.ql, r, sizeof(r), QUICKLIST_TAIL);
    }
    CHECK_EQ_STR(nodeShapes(t.ql, shapes, sizeof(shapes)), "RRR");
    qltClose(&t);
}

/* ---- Random operations against a plain array ---- */

typedef struct model {
    char **el;
    size_t *len;
    long n, cap;
} model;

static void modelInsert(model *m, long at, const char *s, size_t len) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->el = realloc(m->el, sizeof(char *) * (size_t)m->cap);
        m->len = realloc(m->len, sizeof(size_t) * (size_t)m->cap);
    }
    memmove(m->el + at + 1, m->el + at, sizeof(char *) * (size_t)(m->n - at));
    memmove(m->len + at + 1, m->len + at,
            sizeof(size_t) * (size_t)(m->n - at));
    m->el[at] = malloc(len + 1);
    memcpy(m->el[at], s, len);
    m->len[at] = len;
    m->n++;
}

static void modelDelete(model *m, long at, long count) {
    for (long i = at; i < at + count; i++) free(m->el[i]);
    memmove(m->el + at, m->el + at + count,
            sizeof(char *) * (size_t)(m->n - at - count));
    memmove(m->len + at, m->len + at + count,
            sizeof(size_t) * (size_t)(m->n - at - count));
    m->n -= count;
}

/* A random element: an integer, a short string, or a long compressible
 * or random one. */
static size_t randomElement(uint64_t *seed, char *buf) {
    uint64_t k = gkTestRand(seed) % 10;
    size_t len;
    if (k < 3) return (size_t)snprintf(buf, 32, "%lld",
                                       (long long)(gkTestRand(seed) % 200000)
                                       - 100000);
    len = k < 6 ? 1 + gkTestRand(seed) % 20 : 50 + gkTestRand(seed) % 3000;
    char ch = (char)('a' + gkTestRand(seed) % 26);
    for (size_t i = 0; i < len; i++)
        buf[i] = k == 9 ? (char)('a' + gkTestRand(seed) % 26) : ch;
    return len;
}

/* The list holds what the model holds, in both directions; every node
 * count and size agrees with its listpack, the ends are raw, the nodes
 * within the depth are raw, nothing is left decompressed for use. */
static int sameAsModel(quicklist *ql, const model *m) {
    quicklistIter it;
    quicklistEntry e;
    long i = 0;
    int ok = quicklistCount(ql) == (unsigned long long)m->n;
    quicklistGetIterator(ql, AL_START_HEAD, &it);
    while (ok && quicklistNext(&it, &e)) {
        char num[32];
        const unsigned char *p = e.value;
        size_t len = e.sz;
        if (!p) {
            len = (size_t)snprintf(num, sizeof(num), "%lld", e.longval);
            p = (const unsigned char *)num;
        }
        ok = i < m->n && len == m->len[i] && !memcmp(p, m->el[i], len);
        i++;
    }
    quicklistReleaseIterator(&it);
    ok = ok && i == m->n;
    quicklistGetIterator(ql, AL_START_TAIL, &it);
    for (i = m->n - 1; ok && quicklistNext(&it, &e); i--)
        ok = i >= 0 && quicklistCompare(&e, (const unsigned char *)m->el[i],
                                        m->len[i]);
    quicklistReleaseIterator(&it);
    unsigned long long nodes = 0, count = 0;
    for (quicklistNode *n = ql->head; ok && n; n = n->next) {
        nodes++;
        count += n->count;
        ok = !n->recompress && n->count > 0;
        if (ok && !quicklistNodeIsCompressed(n) && !QL_NODE_IS_PLAIN(n))
            ok = n->sz == lpBytes(n->entry) && n->count == lpLength(n->entry);
        if (ok && ql->compress && ql->len >= 2ULL * ql->compress &&
            (nodes <= ql->compress || nodes > ql->len - ql->compress))
            ok = !quicklistNodeIsCompressed(n);
    }
    return ok && nodes == ql->len && count == ql->count &&
           (!ql->head || !quicklistNodeIsCompressed(ql->head)) &&
           (!ql->tail || !quicklistNodeIsCompressed(ql->tail));
}

/* The saver of randomOp's pops: the popped bytes are not kept. */
static void *dropSaver(void *ctx, const unsigned char *data, size_t sz) {
    (void)ctx; (void)data; (void)sz;
    return NULL;
}

/* One random operation on both. */
static void randomOp(quicklist *ql, model *m, uint64_t *seed, char *buf) {
    size_t len = randomElement(seed, buf);
    uint64_t op = gkTestRand(seed) % 8;
    long at = m->n ? (long)(gkTestRand(seed) % (uint64_t)m->n) : 0;
    if (op <= 1 || m->n == 0) {
        quicklistPush(ql, buf, len, op ? QUICKLIST_TAIL : QUICKLIST_HEAD);
        modelInsert(m, op ? m->n : 0, buf, len);
    } else if (op == 2) {
        void *data;
        long long v;
        int head = gkTestRand(seed) & 1;
        CHECK_EQ_INT(quicklistPopCustom(ql, head ? QUICKLIST_HEAD
                                                 : QUICKLIST_TAIL,
                                        dropSaver, NULL, &data, &v), 1);
        modelDelete(m, head ? 0 : m->n - 1, 1);
    } else if (op == 3) {
        quicklistIter it;
        quicklistEntry e;
        int after = gkTestRand(seed) & 1;
        CHECK(quicklistGetIteratorEntryAtIdx(ql, at, &it, &e));
        if (after) quicklistInsertAfter(&it, &e, buf, len);
        else quicklistInsertBefore(&it, &e, buf, len);
        quicklistReleaseIterator(&it);
        modelInsert(m, after ? at + 1 : at, buf, len);
    } else if (op == 4) {
        CHECK(quicklistReplaceAtIndex(ql, at - m->n, buf, len));
        modelDelete(m, at, 1);
        modelInsert(m, at, buf, len);
    } else if (op == 5) {
        long count = 1 + (long)(gkTestRand(seed) % 6);
        if (count > m->n - at) count = m->n - at;
        CHECK(quicklistDelRange(ql, at, count));
        modelDelete(m, at, count);
    } else {
        /* Delete every element equal to the one at a random index,
         * walking from one end. */
        quicklistIter it;
        quicklistEntry e;
        char *target = malloc(m->len[at] + 1);
        size_t tlen = m->len[at];
        int fwd = op == 6;
        memcpy(target, m->el[at], tlen);
        quicklistGetIterator(ql, fwd ? AL_START_HEAD : AL_START_TAIL, &it);
        while (quicklistNext(&it, &e))
            if (quicklistCompare(&e, (const unsigned char *)target, tlen))
                quicklistDelEntry(&it, &e);
        quicklistReleaseIterator(&it);
        for (long i = m->n - 1; i >= 0; i--)
            if (m->len[i] == tlen && !memcmp(m->el[i], target, tlen))
                modelDelete(m, i, 1);
        free(target);
    }
}

/* ops random operations on a list of the given settings, checked against
 * the model after each. */
static void randomRun(int fill, int depth, size_t threshold, uint64_t seed,
                      int ops) {
    qlt t;
    model m = { NULL, NULL, 0, 0 };
    char *buf = malloc(4096);
    int bad = 0;
    qltOpen(&t, fill, depth);
    if (threshold) quicklistSetPackedThreshold(&t.env, threshold);
    for (int i = 0; i < ops && !bad; i++) {
        randomOp(t.ql, &m, &seed, buf);
        if (!sameAsModel(t.ql, &m)) {
            fprintf(stderr, "  fill %d depth %d threshold %zu: differs "
                    "after op %d\n", fill, depth, threshold, i);
            bad = 1;
        }
    }
    CHECK(!bad);
    modelDelete(&m, 0, m.n);
    free(m.el);
    free(m.len);
    free(buf);
    qltClose(&t);
}

static void testRandomOperationsKeepTheListRight(void) {
    static const int fills[] = { -1, -2, -5, 1, 2, 5, 128 };
    static const int depths[] = { 0, 1, 2, 4 };
    static const size_t thresholds[] = { 0, 100, 1000 };
    uint64_t seed = 1;
    for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++)
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
            for (size_t h = 0; h < 3; h++)
                randomRun(fills[f], depths[d], thresholds[h], seed++, 400);
}

int main(void) {
    RUN("LZF compresses and decompresses random, repetitive and "
        "incompressible data back to the same bytes", testLzfRoundTrips);
    RUN("LZF reads a hand-made stream, compresses as liblzf does, and "
        "refuses damaged streams", testLzfKnownStreams);
    RUN("with fill -2 a node takes pushes while its listpack stays within "
        "8 KB", testSizeFillSplitsAt8Kb);
    RUN("fills -1 to -5 hold 4 to 64 KB a node, and fills are clamped",
        testEachSizeClass);
    RUN("a count fill limits elements a node, and bytes to 8 KB",
        testCountFillAndItsSafetyLimit);
    RUN("elements at the packed threshold get plain nodes of their own",
        testLargeElementsGetPlainNodes);
    RUN("an insert into a full node splits it and merges small "
        "neighbours", testInsertSplitsAFullNodeAndMerges);
    RUN("inner nodes beyond the compress depth are kept LZF-compressed",
        testInnerNodesAreCompressed);
    RUN("nodes under 48 bytes or that compress by less than 8 stay raw",
        testSmallOrIncompressibleNodesStayRaw);
    RUN("random pushes, pops, inserts, replaces and deletes keep the list "
        "equal to a plain array", testRandomOperationsKeepTheListRight);
    return gkTestReport();
}
