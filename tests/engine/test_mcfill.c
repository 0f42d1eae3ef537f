/* Tests of the memcached fill workload (gkMemcachedFill): slices send the
 * same sets as one run, each distribution draws the sizes it promises, the
 * counts agree with what the node says, and bad specs are refused with a
 * reason. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

typedef struct session {
    gkWorld *w;
    int node;
} session;

static void open_(session *s, const char *opts) {
    CHECK_EQ_INT(gktMemcachedOpen(opts, &s->w, &s->node, NULL), GK_OK);
}

static void close_(session *s) { gkWorldRelease(s->w); }

static gkMcFillSpec spec_(uint32_t dist, uint32_t a, uint32_t b,
                          uint64_t keyspace, uint64_t total) {
    return gktFillSpec(dist, a, b, keyspace, total, 10, 7);
}

/* One command on a fresh connection; the reply in out (cap bytes). The
 * world then runs 1 ms, so that the node has closed its side. */
static const char *ask(session *s, const char *cmd, char *out, size_t cap) {
    int conn;
    gkConnOpen(s->w, s->node, &conn);
    gktExchange(s->w, conn, cmd, strlen(cmd), out, cap);
    gkConnClose(s->w, conn);
    gkWorldRunUntil(s->w, gkWorldNow(s->w) + 1000000);  /* node sees it */
    return out;
}

/* The value of "STAT name value" in the node's `stats` reply, or -1. */
static long long stat_(session *s, const char *name) {
    static char buf[1 << 16];
    char pat[96];
    ask(s, "stats\r\n", buf, sizeof(buf));
    snprintf(pat, sizeof(pat), "STAT %s ", name);
    const char *p = strstr(buf, pat);
    return p ? atoll(p + strlen(pat)) : -1;
}

/* ---- Slices. ---- */

/* Runs the shift workload on a small node in slices of `slice` sets and
 * writes the result and the node's class rows. */
static void runSliced(uint64_t slice, gkMcFillResult *r, gkMcClass *rows,
                      uint32_t *n) {
    session s;
    open_(&s, "-m 3");
    gkMcFillSpec sp = spec_(GK_MC_DIST_SHIFT, 100, 20000, 3000, 6000);
    memset(r, 0, sizeof(*r));
    for (uint64_t i = 0; i < sp.total; i += slice) {
        uint64_t k = sp.total - i < slice ? sp.total - i : slice;
        CHECK_EQ_INT(gkMemcachedFill(s.w, s.node, &sp, i, k, r), GK_OK);
    }
    gkMemcachedClasses(s.w, s.node, rows, 64, n, NULL);
    close_(&s);
}

static void testSlicesSendTheSameSetsAsOneRun(void) {
    gkMcFillResult one, sliced, odd;
    gkMcClass a[64], b[64], c[64];
    uint32_t na = 0, nb = 0, nc = 0;
    runSliced(6000, &one, a, &na);
    runSliced(1000, &sliced, b, &nb);
    runSliced(777, &odd, c, &nc);
    CHECK_EQ_INT(one.sent, 6000);
    CHECK(one.evictions > 0);
    CHECK(memcmp(&one, &sliced, sizeof(one)) == 0);
    CHECK(memcmp(&one, &odd, sizeof(one)) == 0);
    CHECK_EQ_INT(na, nb);
    CHECK(memcmp(a, b, sizeof(gkMcClass) * na) == 0);
    CHECK(memcmp(a, c, sizeof(gkMcClass) * na) == 0);
}

/* ---- Sizes. ---- */

typedef struct moments {
    double mean, sd;
    uint32_t min, max;
} moments;

static moments momentsOf(const gkMcFillSpec *sp, uint64_t from, uint64_t n) {
    moments m = { 0, 0, UINT32_MAX, 0 };
    double sum = 0, sq = 0;
    for (uint64_t i = from; i < from + n; i++) {
        uint32_t v = gkMcFillValueSize(sp, i);
        sum += v;
        sq += (double)v * v;
        if (v < m.min) m.min = v;
        if (v > m.max) m.max = v;
    }
    m.mean = sum / (double)n;
    m.sd = sqrt(sq / (double)n - m.mean * m.mean);
    return m;
}

static void testEachDistributionDrawsItsSizes(void) {
    gkMcFillSpec fx = spec_(GK_MC_DIST_FIXED, 123, 999, 10, 100000);
    moments m = momentsOf(&fx, 0, 100000);
    CHECK_EQ_INT(m.min, 123);
    CHECK_EQ_INT(m.max, 123);

    gkMcFillSpec un = spec_(GK_MC_DIST_UNIFORM, 100, 1100, 10, 100000);
    m = momentsOf(&un, 0, 100000);
    CHECK_EQ_INT(m.min, 100);
    CHECK_EQ_INT(m.max, 1100);
    CHECK(fabs(m.mean - 600) < 600 * 0.01);
    CHECK(fabs(m.sd - 1001 / sqrt(12)) < 289 * 0.02);

    gkMcFillSpec no = spec_(GK_MC_DIST_NORMAL, 5000, 500, 10, 100000);
    m = momentsOf(&no, 0, 100000);
    CHECK(fabs(m.mean - 5000) < 5000 * 0.005);
    CHECK(fabs(m.sd - 500) < 500 * 0.02);
    CHECK(m.min >= 5000 - 6 * 500 && m.max <= 5000 + 6 * 500);
    /* Cut at 0: a mean of 10 and a deviation of 100 gives no negative. */
    gkMcFillSpec lo = spec_(GK_MC_DIST_NORMAL, 10, 100, 10, 1000);
    m = momentsOf(&lo, 0, 1000);
    CHECK_EQ_INT(m.min, 0);

    gkMcFillSpec sh = spec_(GK_MC_DIST_SHIFT, 100, 10000, 10, 100000);
    moments head = momentsOf(&sh, 0, 1000), tail = momentsOf(&sh, 99000,
                                                               1000);
    CHECK(fabs(head.mean - 149.5) < 149.5 * 0.02);
    CHECK(fabs(tail.mean - 9950.5) < 9950.5 * 0.02);
    for (uint64_t i = 0; i < 100000; i += 37) {
        double mean = 100 + 9900.0 * (double)i / 100000.0;
        uint32_t v = gkMcFillValueSize(&sh, i);
        CHECK(v >= floor(mean * 0.875) && v <= ceil(mean * 1.125));
    }

    /* Another seed, other sizes; the same seed, the same sizes. */
    gkMcFillSpec un2 = un;
    un2.seed = 8;
    int differ = 0;
    for (uint64_t i = 0; i < 100; i++) {
        if (gkMcFillValueSize(&un, i) != gkMcFillValueSize(&un2, i))
            differ++;
        CHECK_EQ_INT(gkMcFillValueSize(&un, i), gkMcFillValueSize(&un, i));
    }
    CHECK(differ > 90);
}

/* ---- Accounting. ---- */

static void testCountsAgreeWithTheNode(void) {
    session s;
    open_(&s, "");
    gkMcFillSpec sp = spec_(GK_MC_DIST_FIXED, 100, 0, 1000, 3000);
    gkMcFillResult r;
    long long conns = stat_(&s, "curr_connections");
    CHECK_EQ_INT(gktFill(s.w, s.node, &sp, &r), GK_OK);
    CHECK_EQ_INT(r.sent, 3000);
    CHECK_EQ_INT(r.stored, 3000);
    CHECK_EQ_INT(r.out_of_memory + r.too_large + r.evictions, 0);
    CHECK_EQ_INT(r.value_bytes, 300000);
    /* Key i % 1000: 1000 items of 48 + 11 + 102 + 8 = 169 bytes, class 4. */
    gkMcClass rows[64];
    gkMcTotals t;
    uint32_t n = 0;
    gkMemcachedClasses(s.w, s.node, rows, 64, &n, &t);
    CHECK_EQ_INT(t.curr_items, 1000);
    CHECK_EQ_INT(rows[3].items, 1000);
    CHECK_EQ_INT(rows[3].requested, 169000);
    CHECK_EQ_INT(stat_(&s, "cmd_set"), 3000);
    CHECK_EQ_INT(stat_(&s, "curr_connections"), conns);
    char buf[256];
    CHECK(strncmp(ask(&s, "get 0000000999\r\n", buf, sizeof(buf)),
                  "VALUE 0000000999 0 100\r\n9999", 28) == 0);
    CHECK_EQ_STR(ask(&s, "get 0000001000\r\n", buf, sizeof(buf)), "END\r\n");
    /* The result is added to, not overwritten. */
    CHECK_EQ_INT(gkMemcachedFill(s.w, s.node, &sp, 0, 10, &r), GK_OK);
    CHECK_EQ_INT(r.sent, 3010);
    CHECK_EQ_INT(r.stored, 3010);
    close_(&s);
}

static void testTooLargeAndOutOfMemoryAreCounted(void) {
    session s;
    open_(&s, "-m 2 -M");
    gkMcFillSpec big = spec_(GK_MC_DIST_FIXED, 2 << 20, 0, 5, 5);
    gkMcFillResult r;
    CHECK_EQ_INT(gktFill(s.w, s.node, &big, &r), GK_OK);
    CHECK_EQ_INT(r.too_large, 5);
    CHECK_EQ_INT(r.stored, 0);
    CHECK_EQ_INT(stat_(&s, "curr_items"), 0);
    /* 100000-byte values: class 32 takes 10 a page; under -m 2 it has its
     * first page and one more, so 20 fit and -M refuses the other 10. */
    gkMcFillSpec mid = spec_(GK_MC_DIST_FIXED, 100000, 0, 30, 30);
    CHECK_EQ_INT(gktFill(s.w, s.node, &mid, &r), GK_OK);
    CHECK_EQ_INT(r.stored, 20);
    CHECK_EQ_INT(r.out_of_memory, 10);
    CHECK_EQ_INT(r.evictions, 0);
    CHECK_EQ_INT(stat_(&s, "store_no_memory"), 10);
    close_(&s);
    /* Chunked items whose chunks run out: "Out of memory during read". */
    open_(&s, "-m 2 -M");
    gkMcFillSpec large = spec_(GK_MC_DIST_FIXED, 600000, 0, 6, 6);
    CHECK_EQ_INT(gktFill(s.w, s.node, &large, &r), GK_OK);
    CHECK_EQ_INT(r.stored, 2);
    CHECK_EQ_INT(r.out_of_memory, 4);
    close_(&s);
}

static void testEvictionsAreCounted(void) {
    session s;
    open_(&s, "-m 2");
    gkMcFillSpec mid = spec_(GK_MC_DIST_FIXED, 100000, 0, 30, 30);
    gkMcFillResult r;
    CHECK_EQ_INT(gktFill(s.w, s.node, &mid, &r), GK_OK);
    CHECK_EQ_INT(r.stored, 30);
    CHECK_EQ_INT(r.evictions, 10);
    CHECK_EQ_INT(stat_(&s, "evictions"), 10);
    CHECK_EQ_INT(stat_(&s, "curr_items"), 20);
    close_(&s);
}

/* ---- Bad specs. ---- */

static void refused(session *s, const gkMcFillSpec *sp, uint64_t first,
                    uint64_t count, const char *why) {
    gkMcFillResult r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(gkMemcachedFill(s->w, s->node, sp, first, count, &r),
                 GK_EINVAL);
    const char *err = gkWorldLastError(s->w);
    if (!strstr(err, why)) {
        CHECK_EQ_STR(err, why);
    }
    CHECK_EQ_INT(r.sent, 0);
}

static void testBadSpecsAreRefusedWithAReason(void) {
    session s;
    open_(&s, "");
    gkMcFillSpec sp = spec_(GK_MC_DIST_FIXED, 100, 0, 10, 100), b;
    b = sp; b.key_bytes = 0;
    refused(&s, &b, 0, 1, "key_bytes is 0");
    b = sp; b.key_bytes = 251;
    refused(&s, &b, 0, 1, "key limit of 250 bytes");
    b = sp; b.keyspace = 0;
    refused(&s, &b, 0, 1, "keyspace is 0");
    b = sp; b.key_bytes = 2; b.keyspace = 101;
    refused(&s, &b, 0, 1, "keyspace too large for key_bytes");
    b = sp; b.dist = 4;
    refused(&s, &b, 0, 1, "unknown value-size distribution");
    b = sp; b.total = 0;
    refused(&s, &b, 0, 0, "total is 0");
    refused(&s, &sp, 90, 11, "past the workload's total");
    refused(&s, &sp, UINT64_MAX, 2, "past the workload's total");
    b = sp; b.total = UINT64_MAX;
    refused(&s, &b, 0, UINT64_MAX, "send the workload in slices");
    b = sp; b.dist = GK_MC_DIST_UNIFORM; b.size_a = 10; b.size_b = 9;
    refused(&s, &b, 0, 1, "size_a <= size_b");
    b = sp; b.size_a = GK_MC_FILL_MAX_VALUE + 1;
    refused(&s, &b, 0, 1, "limited to 16777216 bytes");
    b = sp; b.dist = GK_MC_DIST_SHIFT; b.size_b = GK_MC_FILL_MAX_VALUE + 1;
    refused(&s, &b, 0, 1, "limited to 16777216 bytes");
    b = sp; b.size_a = 1 << 20; b.total = 4096;
    refused(&s, &b, 0, 4096, "value bytes");
    /* 250-byte keys are memcached's limit, and fine. */
    gkMcFillResult r;
    memset(&r, 0, sizeof(r));
    b = sp; b.key_bytes = 250;
    CHECK_EQ_INT(gkMemcachedFill(s.w, s.node, &b, 0, 5, &r), GK_OK);
    CHECK_EQ_INT(r.stored, 5);
    /* A Redis-style node is no memcached node. */
    int redis;
    gkServerAdd(s.w, &redis);
    CHECK_EQ_INT(gkMemcachedFill(s.w, redis, &sp, 0, 1, &r), GK_ENOTFOUND);
    CHECK_EQ_INT(gkMemcachedFill(s.w, s.node, NULL, 0, 1, &r), GK_EINVAL);
    close_(&s);
}

int main(void) {
    RUN("a fill sent in slices sends the same sets as one run",
        testSlicesSendTheSameSetsAsOneRun);
    RUN("fixed, uniform, normal and shift draw the sizes they promise",
        testEachDistributionDrawsItsSizes);
    RUN("a fill's counts agree with the node's items and stats",
        testCountsAgreeWithTheNode);
    RUN("values over -I count as too large, a full node under -M as out of "
        "memory", testTooLargeAndOutOfMemoryAreCounted);
    RUN("evictions during a fill are counted", testEvictionsAreCounted);
    RUN("bad fill specs are refused with a reason",
        testBadSpecsAreRefusedWithAReason);
    return gkTestReport();
}
