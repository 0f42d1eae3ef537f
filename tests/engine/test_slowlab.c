/* What one slow command does to everyone (the slow-command lab,
 * labs_slow.c, and the cost model of cost.h), by shape: KEYS visits every
 * key, so its time grows at least in proportion to the keyspace; while it
 * runs no GET is answered; SCAN does the same walk in short calls; UNLINK
 * and FLUSHALL ASYNC return at once and leave the freeing to the lazy-free
 * thread, which takes what DEL and FLUSHALL take the main thread. The
 * figures themselves are held to redis-server's by tests/bench/costs.mjs. */
#include <string.h>
#include <stdlib.h>
#include "gktest.h"
#include "labjson.h"
#include "glasskv.h"
#include "aofkit.h"

static char out[1 << 16];

static double field(const char *run, const char *name) {
    return labField(out, run, name);
}

static double keysUsec(node *n, int keys) {
    nodeCmd(n, "FLUSHALL");
    nodeCmdf(n, "DEBUG POPULATE %d", keys);
    nodeCmd(n, "CONFIG RESETSTAT");
    nodeCmd(n, "KEYS nomatch*");
    nodeCmd(n, "INFO commandstats");
    const char *p = strstr(n->out, "cmdstat_keys:calls=1,usec=");
    return p ? atof(p + strlen("cmdstat_keys:calls=1,usec=")) : -1;
}

static void testKeysGrowsWithTheKeyspace(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    nodeCmd(&n, "KEYS nomatch*");             /* its histogram, first */
    double k10 = keysUsec(&n, 10000), k100 = keysUsec(&n, 100000);
    double k1m = keysUsec(&n, 1000000);
    CHECK(k10 > 0);
    /* ten times the keys, at least ten times the time: more, once the
     * keys no longer fit in the CPU's caches */
    CHECK(k100 >= 10 * k10);
    CHECK(k1m >= 10 * k100);
    CHECK(k1m > 100000);                      /* over 100 ms */
    nodeClose(&n);
}

static void testOneSlowCommandStopsEveryone(void) {
    long len = gkLabRun("slow-command", 1, out, sizeof(out));
    CHECK(len > 0 && len < (long)sizeof(out));
    /* KEYS: one call, in the slow log for its whole time; every GET
     * client waits as long at worst, and waited ~1 ms before it */
    double keys = field("KEYS", "usec");
    CHECK(keys > 100000);
    CHECK_EQ_INT((long long)field("KEYS", "calls"), 1);
    CHECK_EQ_INT((long long)field("KEYS", "slowlog_usec"), (long long)keys);
    CHECK(field("KEYS", "max_ms") * 1000 >= keys);
    CHECK(field("KEYS", "max_ms_before") < 5);
    /* SCAN: about a thousand calls of 1,000 keys to the end of the same
     * keyspace, none in the slow log, no GET delayed by more than a few
     * ms, however long the whole walk takes */
    CHECK(field("SCAN", "calls") >= 900 && field("SCAN", "calls") <= 1100);
    CHECK(field("SCAN", "usec") > keys / 2);
    CHECK_EQ_INT((long long)field("SCAN", "slowlog_usec"), -1);
    CHECK(field("SCAN", "max_ms") < 5);
    CHECK(field("SCAN", "wall_ms") * 1000 > keys);
    /* DEL frees a million members on the main thread; UNLINK returns in
     * microseconds and the lazy-free thread spends the same time */
    double del = field("DEL of a big set", "usec");
    CHECK(del > 100000);
    CHECK(field("DEL of a big set", "max_ms") * 1000 >= del);
    CHECK(field("UNLINK of a big set", "usec") < 100);
    CHECK(field("UNLINK of a big set", "max_ms") < 5);
    CHECK_EQ_INT((long long)(field("UNLINK of a big set", "lazyfree_ms") *
                             1000), (long long)del);
    CHECK_EQ_INT((long long)field("DEL of a big set", "lazyfree_ms"), 0);
    /* FLUSHALL and FLUSHALL ASYNC alike, with the whole keyspace */
    double flush = field("FLUSHALL", "usec");
    CHECK(flush > 100000);
    CHECK(field("FLUSHALL", "max_ms") * 1000 >= flush);
    CHECK_EQ_INT((long long)field("FLUSHALL", "dbsize_after"), 0);
    CHECK(field("FLUSHALL ASYNC", "usec") < 100);
    CHECK(field("FLUSHALL ASYNC", "max_ms") < 5);
    CHECK_EQ_INT((long long)field("FLUSHALL ASYNC", "dbsize_after"), 0);
    CHECK_EQ_INT((long long)(field("FLUSHALL ASYNC", "lazyfree_ms") * 1000),
                 (long long)flush);
}

int main(void) {
    RUN("KEYS takes at least ten times as long on ten times the keys",
        testKeysGrowsWithTheKeyspace);
    RUN("one slow command stops every client; SCAN, UNLINK and FLUSHALL "
        "ASYNC do not", testOneSlowCommandStopsEveryone);
    return gkTestReport();
}
