/* The memory accesses of the cost model (cost.h), by shape: a working set
 * that fits the L2 costs an L2 hit; a packed one walks the page table
 * only once it outgrows the TLB's 8 MB; objects scattered one to a page
 * (a skiplist's upper levels) walk sooner than their bytes alone would
 * say; a skiplist search that meets a tie on the score reads the
 * member too, and every walk down a skiplist pays the nodes it passes; a
 * sorted set's free reads its dict's entries among themselves; a
 * listpack search pays each element it passes; a list's nodes are freed
 * in order, an 8 KB listpack emptying its slab; and a command's own accesses after a big request meet the
 * lines it pushed out of the caches. The figures themselves are held to redis-server's by
 * tests/bench/costs.mjs. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "aofkit.h"
#include "cost.h"

#define MB (1u << 20)

static void testPackedAndScattered(void) {
    CHECK_EQ_INT((long long)costMissNs(512u << 10), COST_L2_NS);
    /* dearer as the working set grows */
    uint64_t last = 0;
    for (size_t w = 64u << 10; w <= 512u * MB; w *= 2) {
        CHECK(costMissNs(w) >= last);
        last = costMissNs(w);
    }
    /* packed: no walk within the TLB's reach, a walk for most accesses
     * far beyond it */
    CHECK_EQ_INT((long long)costMissNs(8 * MB), (long long)costAccessNs(8 * MB, 0));
    CHECK(costMissNs(96 * MB) > costAccessNs(96 * MB, 0) + COST_TLB_NS / 2);
    /* a quarter of a million nodes of 96 bytes, one in four of a 96 MB
     * list: 24 MB of lines but pages all over the 96 MB */
    CHECK(costScatteredNs(250000, 96, 96 * MB) > costMissNs(250000 * 96));
    CHECK_EQ_INT((long long)costScatteredNs(250000, 96, 96 * MB),
                 (long long)costMissNs(96 * MB) -
                 (long long)costAccessNs(96 * MB, 0) +
                 (long long)costAccessNs(250000 * 96, 0));
    /* a thousand of them lie on 4 MB of pages: as cheap as packed */
    CHECK_EQ_INT((long long)costScatteredNs(1000, 96, 96 * MB),
                 (long long)costMissNs(1000 * 96));
}

/* INFO commandstats' usec for ZADD after adding members m:00000 ... in
 * order, all at score 0 (tied) or each at its own score, to a skiplist. */
static double zaddUsec(int tied) {
    node n;
    nodeOpen(&n, 7, "zset-max-listpack-entries 0\n");
    char line[4096];
    for (int i = 0; i < 5000; i += 200) {
        int len = snprintf(line, sizeof(line), "ZADD z");
        for (int j = i; j < i + 200; j++)
            len += snprintf(line + len, sizeof(line) - (size_t)len,
                            " %d m:%05d", tied ? 0 : j, j);
        nodeCmd(&n, line);
    }
    nodeCmd(&n, "INFO commandstats");
    const char *p = strstr(n.out, "cmdstat_zadd:calls=25,usec=");
    double usec = p ? atof(p + strlen("cmdstat_zadd:calls=25,usec=")) : -1;
    nodeCmd(&n, "ZCARD z");
    CHECK(strstr(n.out, ":5000\r\n") != NULL);
    nodeClose(&n);
    return usec;
}

static void testTiesReadTheMember(void) {
    /* the same inserts at the same places: the same levels from the same
     * seed, the same nodes passed; tied, each node met reads its member */
    double tied = zaddUsec(1), apart = zaddUsec(0);
    CHECK(apart > 0);
    CHECK(tied > apart);
}

/* The number after key (its ':' or '=' included) in n.out, -1 if key is
 * not there. */
static double infoField(node *n, const char *key) {
    const char *p = strstr(n->out, key);
    return p ? atof(p + strlen(key)) : -1;
}

/* A node holding a skiplist sorted set z of members m:0 ... at scores 0
 * ... (count of them), added a thousand to a command. */
static void zsetOpen(node *n, int count) {
    nodeOpen(n, 7, "zset-max-listpack-entries 0\n");
    static char line[32768];
    for (int i = 0; i < count; i += 1000) {
        int len = snprintf(line, sizeof(line), "ZADD z");
        for (int j = i; j < i + 1000 && j < count; j++)
            len += snprintf(line + len, sizeof(line) - (size_t)len,
                            " %d m:%d", j, j);
        nodeCmd(n, line);
    }
    nodeCmd(n, "ZCARD z");
    char want[32];
    snprintf(want, sizeof(want), ":%d\r\n", count);
    CHECK(strcmp(n->out, want) == 0);
}

static void testSkiplistWalksPayTheirNodes(void) {
    /* ZRANK and ZSCORE find the member in the dict alike; ZRANK then
     * walks down the list to it, as ZRANGEBYSCORE does to its range and
     * ZCOUNT too (its three other walks follow the first: warm). A walk
     * passes a few nodes on each level, those of the lower levels a
     * chain's accesses among all 200k: more than four of the bottom
     * level's */
    enum { N = 200000, CALLS = 1000 };
    node n;
    zsetOpen(&n, N);
    nodeCmd(&n, "CONFIG RESETSTAT");
    for (int i = 0; i < CALLS; i++) {
        int m = (int)((uint64_t)i * 7919 % N);
        nodeCmdf(&n, "ZRANK z m:%d", m);
        nodeCmdf(&n, "ZSCORE z m:%d", m);
        nodeCmdf(&n, "ZCOUNT z %d %d", m, m + 10);
        nodeCmdf(&n, "ZRANGEBYSCORE z %d %d", m, m);
    }
    nodeCmd(&n, "INFO commandstats");
    double rank = infoField(&n, "cmdstat_zrank:calls=1000,usec=");
    double score = infoField(&n, "cmdstat_zscore:calls=1000,usec=");
    double count = infoField(&n, "cmdstat_zcount:calls=1000,usec=");
    double range = infoField(&n, "cmdstat_zrangebyscore:calls=1000,usec=");
    double bottom = (double)(COST_CHAIN * costScatteredNs(N, 96, (size_t)N * 96));
    CHECK(score > 0);
    CHECK(rank - score > 4 * CALLS * bottom / 1000);
    CHECK(count - score > 4 * CALLS * bottom / 1000);
    CHECK(count < rank + range - score);
    CHECK(range - score > 4 * CALLS * bottom / 1000);
    nodeClose(&n);
}

static void testZsetFreeReadsItsEntries(void) {
    /* the dict of a sorted set frees its entries alone, packed among
     * themselves: a member costs less than a free anywhere in the
     * working set */
    enum { N = 200000 };
    node n;
    zsetOpen(&n, N);
    nodeCmd(&n, "INFO memory");
    double used = infoField(&n, "used_memory:");
    double startup = infoField(&n, "used_memory_startup:");
    CHECK(used > startup && startup > 0);
    nodeCmd(&n, "CONFIG RESETSTAT");
    nodeCmd(&n, "DEL z");
    CHECK(strcmp(n.out, ":1\r\n") == 0);
    nodeCmd(&n, "INFO commandstats");
    double usec = infoField(&n, "cmdstat_del:calls=1,usec=");
    double anywhere = (double)costFreeFarNs((size_t)(used - startup) +
                                            COST_STARTUP_BYTES);
    CHECK(usec > (double)N * COST_FREE_NS / 1000);
    CHECK(usec * 1000 / N < anywhere);
    nodeClose(&n);
}

/* INFO commandstats' usec for 100 calls of cmd (its stat name stat) on
 * key with member m:<i>. */
static double hundredCalls(node *n, const char *cmd, const char *stat, int i) {
    char key[64];
    nodeCmd(n, "CONFIG RESETSTAT");
    for (int k = 0; k < 100; k++) nodeCmdf(n, "%s k m:%d", cmd, i);
    nodeCmd(n, "INFO commandstats");
    snprintf(key, sizeof(key), "cmdstat_%s:calls=100,usec=", stat);
    return infoField(n, key);
}

static void testListpackSearchesPayTheirElements(void) {
    /* the first field of a listpack of 128 pairs is found at once, the
     * last after passing the 254 elements before it */
    node n;
    nodeOpen(&n, 7, "");
    char line[8192];
    int len = snprintf(line, sizeof(line), "HSET k");
    for (int j = 0; j < 128; j++)
        len += snprintf(line + len, sizeof(line) - (size_t)len, " m:%d v", j);
    nodeCmd(&n, line);
    nodeCmd(&n, "OBJECT ENCODING k");
    CHECK(strstr(n.out, "listpack") != NULL);
    double first = hundredCalls(&n, "HGET", "hget", 0);
    double last = hundredCalls(&n, "HGET", "hget", 127);
    CHECK(first > 0);
    CHECK(last - first >= 100 * 254 * COST_LP_FIND_NS / 1000.0 - 1);
    nodeCmd(&n, "DEL k");
    len = snprintf(line, sizeof(line), "ZADD k");
    for (int j = 0; j < 128; j++)
        len += snprintf(line + len, sizeof(line) - (size_t)len, " %d m:%d", j, j);
    nodeCmd(&n, line);
    nodeCmd(&n, "OBJECT ENCODING k");
    CHECK(strstr(n.out, "listpack") != NULL);
    first = hundredCalls(&n, "ZSCORE", "zscore", 0);
    last = hundredCalls(&n, "ZSCORE", "zscore", 127);
    CHECK(last - first >= 100 * 254 * COST_LP_FIND_NS / 1000.0 - 1);
    /* ZRANK steps over each with lpNext, dearer */
    first = hundredCalls(&n, "ZRANK", "zrank", 0);
    last = hundredCalls(&n, "ZRANK", "zrank", 127);
    CHECK(last - first >= 100 * 254 * COST_LP_NEXT_NS / 1000.0 - 1);
    nodeClose(&n);
}

/* INFO commandstats' usec for DEL of a list of 1000 nodes of 8 elements
 * of bytes bytes each. */
static double delListUsec(int bytes) {
    node n;
    nodeOpen(&n, 7, "list-max-listpack-size 8\n");
    static char line[16 * 1024];
    for (int i = 0; i < 8000; i += 8) {
        int len = snprintf(line, sizeof(line), "RPUSH l");
        for (int j = 0; j < 8; j++)
            len += snprintf(line + len, sizeof(line) - (size_t)len, " %0*d",
                            bytes, i + j);
        nodeCmd(&n, line);
    }
    nodeCmd(&n, "CONFIG RESETSTAT");
    nodeCmd(&n, "DEL l");
    CHECK(strcmp(n.out, ":1\r\n") == 0);
    nodeCmd(&n, "INFO commandstats");
    double usec = infoField(&n, "cmdstat_del:calls=1,usec=");
    nodeClose(&n);
    return usec;
}

static void testListNodesFreeInOrder(void) {
    /* a list's nodes and listpacks are freed in the order they were
     * allocated, two frees next to the ones before; a listpack of 8 KB
     * (8 elements of 1000 bytes) also empties its slab */
    double tiny = delListUsec(4), big = delListUsec(1000);
    CHECK(tiny > 0);
    CHECK(tiny < 1000 * (2 * COST_FREE_NEAR_NS + 5) / 1000.0);
    CHECK(big - tiny > 1000 * 0.9 * COST_FREE_SLAB_NS / 1000.0);
}

/* INFO commandstats' usec for ten SETs of a value of size bytes, each
 * its own request (held by a pause of paused_ms first, if not 0). */
static double setUsec(size_t size, int paused_ms) {
    node n;
    nodeOpen(&n, 7, "");
    size_t cap = size + 64;
    char *req = malloc(cap);
    for (int i = 0; i < 10; i++) {
        if (paused_ms) nodeCmdf(&n, "CLIENT PAUSE %d WRITE", paused_ms);
        int head = snprintf(req, cap, "*3\r\n$3\r\nSET\r\n$1\r\n%d\r\n$%zu\r\n", i, size);
        memset(req + head, 'x', size);
        memcpy(req + head + size, "\r\n", 2);
        nodeRaw(&n, req, (size_t)head + size + 2);
        if (paused_ms && !n.out[0]) {   /* held: its reply comes later */
            nodeRun(&n, (uint64_t)(paused_ms + 200) * MS);
            nodeRaw(&n, "", 0);
        }
        CHECK(strcmp(n.out, "+OK\r\n") == 0);
    }
    free(req);
    nodeCmd(&n, "INFO commandstats");
    const char *p = strstr(n.out, "cmdstat_set:calls=10,usec=");
    double usec = p ? atof(p + strlen("cmdstat_set:calls=10,usec=")) : -1;
    nodeClose(&n);
    return usec;
}

static void testBigRequestsDisplaceTheCaches(void) {
    /* from 1 MB to 16 MB, what a SET does grows little (the value is
     * kept as it was read; its lookups meet a working set of 160 MB
     * instead of 10), and what the request pushed out of the caches
     * grows from all of the L2's share and 1/8 of the L3's to all of
     * both */
    CHECK_EQ_INT((long long)costDisplacedNs(0), 0);
    CHECK_EQ_INT((long long)costDisplacedNs(COST_L2_BYTES),
                 (long long)(COST_CMD_LINES * (COST_L3_NS - COST_L2_NS) +
                             COST_CMD_LINES * (COST_DRAM_NS - COST_L3_NS) *
                                 COST_L2_BYTES / COST_L3_BYTES));
    double one = setUsec(MB, 0), sixteen = setUsec(16 * MB, 0);
    CHECK(one > 0);
    double want = 10.0 * (double)(costDisplacedNs(16 * MB) - costDisplacedNs(MB)) / 1000;
    CHECK(want > 20);
    CHECK(sixteen - one > want - 2 && sixteen - one < 1.5 * want);
    /* held by a pause, a SET runs after other work has gone through the
     * caches: its request's bytes are no longer the last read */
    double held = setUsec(MB, 20);
    CHECK(held > 0);
    CHECK(held < one - 0.8 * 10.0 * (double)costDisplacedNs(MB) / 1000);
}

int main(void) {
    RUN("a random access costs its cache level, and a page-table walk "
        "beyond the TLB's reach, sooner for objects scattered one to a page",
        testPackedAndScattered);
    RUN("a skiplist search that meets a tie on the score reads the member",
        testTiesReadTheMember);
    RUN("a walk down a skiplist (ZRANK, ZCOUNT, ZRANGEBYSCORE) pays each "
        "node it passes, as a chain", testSkiplistWalksPayTheirNodes);
    RUN("freeing a sorted set reads its dict's entries among themselves",
        testZsetFreeReadsItsEntries);
    RUN("a search in a listpack (HGET, ZSCORE, ZRANK) pays each element "
        "it passes", testListpackSearchesPayTheirElements);
    RUN("a list's nodes are freed in the order they were allocated, and "
        "a listpack of 8 KB empties its slab", testListNodesFreeInOrder);
    RUN("a command after a big request meets its own lines further away, "
        "pushed out of the caches by the bytes just read",
        testBigRequestsDisplaceTheCaches);
    return gkTestReport();
}
