/* Tests of the sorted set commands that remove ranges, combine sets and
 * pop: the two encodings must agree member for member, the skiplist's
 * spans must stay right through range deletions, and a stored result
 * takes the encoding its size calls for. */
#include "gktest.h"
#include "aofkit.h"

/* Creates "lp" (a listpack) and "sk" (a skiplist) with the same 100
 * members m0..m99, scores drawn from *rnd in 0..49 (many ties), or all
 * 0 with lexonly: a lex range means something only then. */
static void fillPair(node *n, uint64_t *rnd, int lexonly) {
    nodeCmd(n, "DEL lp sk");
    nodeCmd(n, "CONFIG SET zset-max-listpack-entries 0");
    nodeCmd(n, "ZADD sk 0 seed");
    nodeCmd(n, "CONFIG SET zset-max-listpack-entries 128");
    nodeCmd(n, "ZADD lp 0 seed");
    for (int i = 0; i < 100; i++) {
        int score = lexonly ? 0 : (int)(gkTestRand(rnd) % 50);
        nodeCmdf(n, "ZADD lp %d m%d", score, i);
        nodeCmdf(n, "ZADD sk %d m%d", score, i);
    }
    nodeCmd(n, "ZREM lp seed");
    nodeCmd(n, "ZREM sk seed");
}

/* Checks that lp and sk hold the same members, scores and ranks. */
static void checkPairAgrees(node *n) {
    static char lp[1 << 16];
    snprintf(lp, sizeof(lp), "%s", nodeCmd(n, "ZRANGE lp 0 -1 WITHSCORES"));
    CHECK_EQ_STR(nodeCmd(n, "ZRANGE sk 0 -1 WITHSCORES"), lp);
    for (int i = 0; i < 100; i += 7) {
        char want[256];
        snprintf(want, sizeof(want), "%.200s", nodeCmdf(n, "ZRANK lp m%d", i));
        CHECK_EQ_STR(nodeCmdf(n, "ZRANK sk m%d", i), want);
    }
}

/* Random ZREMRANGEBYRANK, BYSCORE and BYLEX calls on both encodings
 * remove the same members and leave ranks (the skiplist's spans) right.
 * BYLEX goes to sets whose scores are all equal, the only ones where
 * Redis defines it; the others get BYRANK and BYSCORE. */
static void testRangeRemovalsAgreeAcrossEncodings(void) {
    node n;
    uint64_t rnd = 0x5eed;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING lp"), "$-1\r\n");
    for (int round = 0; round < 30; round++) {
        int lexonly = round % 3 == 2;
        fillPair(&n, &rnd, lexonly);
        CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING sk"), "$8\r\nskiplist\r\n");
        CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING lp"), "$8\r\nlistpack\r\n");
        for (int op = 0; op < 6; op++) {
            int a = (int)(gkTestRand(&rnd) % 60) - 10;
            int b = a + (int)(gkTestRand(&rnd) % 20);
            char want[256];
            const char *fmt[] = { "ZREMRANGEBYRANK %s %d %d",
                                  "ZREMRANGEBYSCORE %s (%d %d",
                                  "ZREMRANGEBYLEX %s [m%d (m%d" };
            const char *f = fmt[lexonly ? 2 : gkTestRand(&rnd) % 2];
            snprintf(want, sizeof(want), "%.200s", nodeCmdf(&n, f, "lp", a, b));
            CHECK_EQ_STR(nodeCmdf(&n, f, "sk", a, b), want);
            checkPairAgrees(&n);
        }
    }
    nodeClose(&n);
}

/* ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE and ZRANGESTORE store a listpack
 * when the result fits one and a skiplist when it does not, whatever the
 * inputs' encodings; an empty result deletes the destination. */
static void testStoredResultsTakeTheEncodingTheirSizeCallsFor(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "CONFIG SET zset-max-listpack-entries 0");
    nodeCmd(&n, "ZADD a 1 x 2 y 3 z");
    nodeCmd(&n, "CONFIG SET zset-max-listpack-entries 2");
    nodeCmd(&n, "ZADD b 1 y");
    CHECK_EQ_STR(nodeCmd(&n, "ZUNIONSTORE u 2 a b"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING u"), "$8\r\nskiplist\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZINTERSTORE i 2 a b"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING i"), "$8\r\nlistpack\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZDIFFSTORE d 2 a b"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING d"), "$8\r\nlistpack\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZRANGE d 0 -1 WITHSCORES"),
                 "*4\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\nz\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZRANGESTORE r a 0 1"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING r"), "$8\r\nlistpack\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZRANGESTORE r a 0 -1"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING r"), "$8\r\nskiplist\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZINTERSTORE u 2 b nosuch"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS u"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZRANGESTORE r a 5 6"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS r"), ":0\r\n");
    nodeClose(&n);
}

/* Popping every member of a skiplist one at a time, from alternate ends,
 * returns them in order and deletes the key with the last. */
static void testPopsDrainBothEndsInOrder(void) {
    node n;
    nodeOpen(&n, 1, "zset-max-listpack-entries 0\n");
    for (int i = 0; i < 50; i++) nodeCmdf(&n, "ZADD z %d m%02d", i, i);
    for (int lo = 0, hi = 49; lo <= hi;) {
        char want[64];
        snprintf(want, sizeof(want), "*2\r\n$3\r\nm%02d\r\n$%d\r\n%d\r\n",
                 lo, lo < 10 ? 1 : 2, lo);
        CHECK_EQ_STR(nodeCmd(&n, "ZPOPMIN z"), want);
        lo++;
        if (lo > hi) break;
        snprintf(want, sizeof(want), "*2\r\n$1\r\nz\r\n*1\r\n"
                 "*2\r\n$3\r\nm%02d\r\n$%d\r\n%d\r\n",
                 hi, hi < 10 ? 1 : 2, hi);
        CHECK_EQ_STR(nodeCmd(&n, "ZMPOP 1 z MAX"), want);
        hi--;
    }
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS z"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZMPOP 1 z MAX"), "*-1\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("range removals leave a listpack and a skiplist with the same "
        "members and ranks", testRangeRemovalsAgreeAcrossEncodings);
    RUN("a stored result takes the encoding its size calls for",
        testStoredResultsTakeTheEncodingTheirSizeCallsFor);
    RUN("pops drain both ends of a skiplist in order",
        testPopsDrainBothEndsInOrder);
    return gkTestReport();
}
