/* test_streams.c -- the radix tree (checked against a sorted array under
 * random inserts, deletes and seeks) and the stream's listpack nodes:
 * the master entry, delta-encoded entries, SAMEFIELDS, tombstones, node
 * limits and trimming, element by element. */
#include <stdlib.h>
#include "gktest.h"
#include "server.h"
#include "stream.h"

/* ---- The radix tree against a sorted array ---- */

typedef struct key {
    unsigned char b[20];
    size_t len;
} key;

static int keyCmp(const key *a, const key *b) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->b, b->b, n);
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int keyCmpQ(const void *a, const void *b) {
    return keyCmp(a, b);
}

/* A random key over a small alphabet, so that keys share prefixes and
 * nodes get split and merged; sometimes a 16-byte stream ID. */
static void randomKey(uint64_t *st, key *k) {
    if (gkTestRand(st) % 4 == 0) {
        streamID id = { 1700000000000ULL + gkTestRand(st) % 50,
                        gkTestRand(st) % 3 };
        streamEncodeID(k->b, &id);
        k->len = 16;
        return;
    }
    k->len = gkTestRand(st) % 6;
    for (size_t i = 0; i < k->len; i++)
        k->b[i] = (unsigned char)("abc\x00\xff"[gkTestRand(st) % 5]);
}

/* Index of k in the sorted model, or -1. */
static int modelFind(key *m, int n, const key *k) {
    for (int i = 0; i < n; i++)
        if (keyCmp(&m[i], k) == 0) return i;
    return -1;
}

/* The model's answer to a seek: the index of the key op names, or -1. */
static int modelSeek(key *m, int n, const char *op, const key *k) {
    if (n == 0) return -1;
    if (!strcmp(op, "^")) return 0;
    if (!strcmp(op, "$")) return n - 1;
    int best = -1;
    for (int i = 0; i < n; i++) {
        int c = keyCmp(&m[i], k);
        if (!strcmp(op, "=") && c == 0) return i;
        if (!strcmp(op, ">=") && c >= 0) return i;
        if (!strcmp(op, ">") && c > 0) return i;
        if (!strcmp(op, "<=") && c <= 0) best = i;
        if (!strcmp(op, "<") && c < 0) best = i;
    }
    return best;
}

/* The iterator is on model key i (or at EOF for -1). */
static int itIs(raxIterator *it, key *m, int i) {
    if (i < 0) return raxEOF(it);
    return !raxEOF(it) && it->key_len == m[i].len &&
           (m[i].len == 0 || !memcmp(it->key, m[i].b, m[i].len)) &&
           it->data == (void *)(uintptr_t)(keyCmp(&m[i], &m[i]) + 1 +
                                            m[i].len);
}

static void testRaxAgainstSortedArray(void) {
    gkMem mem;
    memInit(&mem, NULL, NULL);
    rax *rt = raxNew(&mem);
    key *model = calloc(4000, sizeof(key));
    int n = 0;
    uint64_t st = 12345;
    static const char *ops[] = { "^", "$", "=", ">=", ">", "<=", "<" };
    for (int step = 0; step < 6000; step++) {
        key k;
        randomKey(&st, &k);
        void *val = (void *)(uintptr_t)(1 + k.len);
        int at = modelFind(model, n, &k);
        if (gkTestRand(&st) % 3) {
            int added = raxInsert(rt, k.b, k.len, val, NULL);
            CHECK_EQ_INT(added, at < 0);
            if (at < 0) {
                model[n++] = k;
                qsort(model, (size_t)n, sizeof(key), keyCmpQ);
            }
        } else {
            void *old = NULL;
            int removed = raxRemove(rt, k.b, k.len, &old);
            CHECK_EQ_INT(removed, at >= 0);
            if (at >= 0) {
                CHECK(old == val);
                model[at] = model[--n];
                qsort(model, (size_t)n, sizeof(key), keyCmpQ);
            }
        }
        CHECK_EQ_INT(raxSize(rt), n);
        /* A seek of every kind near a random key lands where the model
         * says, and a step from there too. */
        key probe;
        randomKey(&st, &probe);
        const char *op = ops[gkTestRand(&st) % 7];
        raxIterator it;
        raxStart(&it, rt);
        int want = modelSeek(model, n, op, &probe);
        raxSeek(&it, op, probe.b, probe.len);
        CHECK(itIs(&it, model, want));
        if (want >= 0) {
            int back = gkTestRand(&st) % 2;
            if (back) raxPrev(&it);
            else raxNext(&it);
            CHECK(itIs(&it, model, want));
            int next = back ? want - 1 : want + 1;
            int more = back ? raxPrev(&it) : raxNext(&it);
            CHECK_EQ_INT(more, next >= 0 && next < n);
            if (more) CHECK(itIs(&it, model, next));
        }
        raxStop(&it);
    }
    /* A whole walk each way gives the model in order. */
    raxIterator it;
    raxStart(&it, rt);
    raxSeek(&it, "^", NULL, 0);
    int i = 0;
    while (raxNext(&it)) CHECK(i < n && itIs(&it, model, i++));
    CHECK_EQ_INT(i, n);
    raxSeek(&it, "$", NULL, 0);
    i = n - 1;
    while (raxPrev(&it)) CHECK(i >= 0 && itIs(&it, model, i--));
    CHECK_EQ_INT(i, -1);
    raxStop(&it);
    for (i = 0; i < n; i++) CHECK(raxFind(rt, model[i].b, model[i].len, NULL));
    raxFree(rt);
    free(model);
    CHECK_EQ_INT(mem.used, 0);
}

/* Removing every key leaves only the root: the tree keeps no dead
 * nodes, and a node with one child is merged into it. */
static void testRaxCompressesAfterRemovals(void) {
    gkMem mem;
    memInit(&mem, NULL, NULL);
    rax *rt = raxNew(&mem);
    const char *words[] = { "consumer-1", "consumer-2", "consumer-10",
                            "con", "c", "alice", "alicia" };
    for (int i = 0; i < 7; i++)
        raxInsert(rt, (const unsigned char *)words[i], strlen(words[i]),
                  (void *)(uintptr_t)(i + 1), NULL);
    void *v = NULL;
    CHECK(raxFind(rt, (const unsigned char *)"consumer-2", 10, &v));
    CHECK(v == (void *)2);
    CHECK(!raxFind(rt, (const unsigned char *)"consumer-", 9, NULL));
    for (int i = 0; i < 7; i++)
        CHECK(raxRemove(rt, (const unsigned char *)words[i],
                        strlen(words[i]), NULL));
    CHECK_EQ_INT(rt->numnodes, 1);
    CHECK_EQ_INT(raxSize(rt), 0);
    raxIterator it;
    raxStart(&it, rt);
    CHECK(!raxSeek(&it, "^", NULL, 0));
    CHECK(!raxNext(&it));
    raxStop(&it);
    raxFree(rt);
    CHECK_EQ_INT(mem.used, 0);
}

/* ---- Stream nodes ---- */

/* A server struct holding only what the stream code reads. */
static void fakeServer(redisServer *s, gkMem *mem) {
    memset(s, 0, sizeof(*s));
    memInit(mem, NULL, NULL);
    s->mem = mem;
    s->mstime = 1700000000000LL;
    s->cfg.stream_node_max_bytes = 4096;
    s->cfg.stream_node_max_entries = 100;
}

/* Adds an entry of the NUL-terminated field/value strings. */
static int addEntry(redisServer *s, stream *st, streamID *id, int n,
                    const char *const *fv) {
    robj objs[16], *argv[16];
    sds strs[16];
    for (int i = 0; i < n * 2; i++) {
        strs[i] = sdsnew(s->mem, fv[i]);
        objs[i] = (robj)OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, strs[i]);
        argv[i] = &objs[i];
    }
    int r = streamAppendItem(s, st, argv, n, NULL, id, 1);
    for (int i = 0; i < n * 2; i++) sdsfree(s->mem, strs[i]);
    return r;
}

/* The elements of node lp as text, space separated. */
static void nodeText(unsigned char *lp, char *out, size_t cap) {
    size_t used = 0;
    out[0] = '\0';
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        unsigned char buf[LP_INTBUF_SIZE];
        int64_t len;
        unsigned char *e = lpGet(p, &len, buf);
        used += (size_t)snprintf(out + used, cap - used, "%s%.*s",
                                 used ? " " : "", (int)len, e);
    }
}

static unsigned char *firstNode(stream *st) {
    raxIterator it;
    raxStart(&it, st->rax);
    raxSeek(&it, "^", NULL, 0);
    raxNext(&it);
    unsigned char *lp = it.data;
    raxStop(&it);
    return lp;
}

static void testNodeLayout(void) {
    redisServer s;
    gkMem mem;
    char text[512];
    fakeServer(&s, &mem);
    stream *st = streamNew(&s);
    streamID a = { 1000, 5 }, b = { 1002, 1 }, c = { 1002, 7 };
    const char *e1[] = { "name", "ann", "age", "30" };
    const char *e2[] = { "name", "bob", "age", "41" };
    const char *e3[] = { "city", "x" };
    CHECK_EQ_INT(addEntry(&s, st, &a, 2, e1), C_OK);
    CHECK_EQ_INT(addEntry(&s, st, &b, 2, e2), C_OK);
    CHECK_EQ_INT(addEntry(&s, st, &c, 1, e3), C_OK);
    /* Master: count deleted num-fields fields 0; then flags ms-diff
     * seq-diff [num-fields fields] values lp-count. */
    nodeText(firstNode(st), text, sizeof(text));
    CHECK_EQ_STR(text, "3 0 2 name age 0 "
                       "2 0 0 ann 30 5 "
                       "2 2 -4 bob 41 5 "
                       "0 2 2 1 city x 6");
    CHECK_EQ_INT(st->length, 3);
    CHECK_EQ_INT(st->entries_added, 3);
    CHECK(streamCompareID(&st->first_id, &a) == 0);
    CHECK(streamCompareID(&st->last_id, &c) == 0);
    /* An ID not past the last one is refused. */
    CHECK_EQ_INT(addEntry(&s, st, &b, 2, e2), C_ERR);
    /* Deleting flags the entry and moves it from count to deleted. */
    CHECK(streamDeleteItem(&s, st, &b));
    CHECK(!streamDeleteItem(&s, st, &b));
    nodeText(firstNode(st), text, sizeof(text));
    CHECK_EQ_STR(text, "2 1 2 name age 0 "
                       "2 0 0 ann 30 5 "
                       "3 2 -4 bob 41 5 "
                       "0 2 2 1 city x 6");
    CHECK(!streamEntryExists(st, &b));
    CHECK(streamEntryExists(st, &c));
    /* The last live entries going takes the node with them. */
    CHECK(streamDeleteItem(&s, st, &a));
    CHECK(streamDeleteItem(&s, st, &c));
    CHECK_EQ_INT(raxSize(st->rax), 0);
    CHECK_EQ_INT(st->length, 0);
    freeStream(&s, st);
    CHECK_EQ_INT(mem.used, 0);
}

/* Fills a stream with n entries 1-1 .. n-1 of one field. */
static stream *filled(redisServer *s, int n) {
    stream *st = streamNew(s);
    const char *fv[] = { "f", "v" };
    for (int i = 1; i <= n; i++) {
        streamID id = { (uint64_t)i, 1 };
        addEntry(s, st, &id, 1, fv);
    }
    return st;
}

static void testNodeLimits(void) {
    redisServer s;
    gkMem mem;
    fakeServer(&s, &mem);
    stream *st = filled(&s, 250);
    /* stream-node-max-entries 100: nodes of 100, 100 and 50. */
    CHECK_EQ_INT(raxSize(st->rax), 3);
    freeStream(&s, st);
    /* A small stream-node-max-bytes closes nodes by size instead. */
    s.cfg.stream_node_max_bytes = 64;
    st = filled(&s, 20);
    CHECK(raxSize(st->rax) > 3);
    streamIterator si;
    streamID id;
    int64_t nf;
    int count = 0;
    streamIteratorStart(&si, st, NULL, NULL, 1);
    while (streamIteratorGetID(&si, &id, &nf)) {
        unsigned char *f, *v;
        int64_t flen, vlen;
        CHECK_EQ_INT(id.ms, 20 - count);
        CHECK_EQ_INT(nf, 1);
        /* Going backwards the walk needs the fields read first. */
        streamIteratorGetField(&si, &f, &v, &flen, &vlen);
        CHECK(flen == 1 && f[0] == 'f' && vlen == 1 && v[0] == 'v');
        count++;
    }
    streamIteratorStop(&si);
    CHECK_EQ_INT(count, 20);
    freeStream(&s, st);
    CHECK_EQ_INT(mem.used, 0);
}

static void testTrimming(void) {
    redisServer s;
    gkMem mem;
    fakeServer(&s, &mem);
    stream *st = filled(&s, 250);
    /* "~" removes whole nodes only: 250 -> 150 for MAXLEN 120. */
    streamAddTrimArgs args;
    memset(&args, 0, sizeof(args));
    args.trim_strategy = TRIM_STRATEGY_MAXLEN;
    args.maxlen = 120;
    args.approx_trim = 1;
    CHECK_EQ_INT(streamTrim(&s, st, &args), 100);
    CHECK_EQ_INT(st->length, 150);
    CHECK_EQ_INT(st->first_id.ms, 101);
    /* Exact: the rest of the head node is flagged deleted. */
    args.approx_trim = 0;
    CHECK_EQ_INT(streamTrim(&s, st, &args), 30);
    CHECK_EQ_INT(st->length, 120);
    CHECK_EQ_INT(st->first_id.ms, 131);
    CHECK_EQ_INT(raxSize(st->rax), 2);
    /* MINID: every entry below the ID goes. */
    args.trim_strategy = TRIM_STRATEGY_MINID;
    args.minid = (streamID){ 210, 0 };
    CHECK_EQ_INT(streamTrim(&s, st, &args), 79);
    CHECK_EQ_INT(st->length, 41);
    CHECK_EQ_INT(st->first_id.ms, 210);
    CHECK_EQ_INT(raxSize(st->rax), 1);
    CHECK_EQ_INT(st->entries_added, 250);
    freeStream(&s, st);
    CHECK_EQ_INT(mem.used, 0);
}

int main(void) {
    RUN("the radix tree agrees with a sorted array under random inserts, "
        "deletes and seeks", testRaxAgainstSortedArray);
    RUN("the radix tree merges and frees nodes as keys are removed",
        testRaxCompressesAfterRemovals);
    RUN("a stream node holds a master entry and delta-encoded entries, "
        "SAMEFIELDS when the fields match, tombstones when deleted",
        testNodeLayout);
    RUN("nodes close at stream-node-max-entries or stream-node-max-bytes",
        testNodeLimits);
    RUN("trimming removes whole nodes with ~ and flags entries when exact",
        testTrimming);
    return gkTestReport();
}
