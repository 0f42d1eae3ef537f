/* Tests of the set commands that combine or sample sets and of the
 * keyspace commands that copy, move and swap keys, through the world:
 * what the AOF receives, restarts, WATCH, and the access clock in virtual
 * time. The replies are compared with redis-server byte for byte in
 * tests/diff/scripts/sets_more.redis and keyspace_more.redis; these check
 * what a script cannot (random members, propagation, time). */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* How many times needle occurs in hay. */
static int occurrences(const char *hay, const char *needle) {
    int k = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) k++;
    return k;
}

/* DEBUG DIGEST's reply, copied into buf. */
static const char *digestOf(node *n, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", nodeCmd(n, "DEBUG DIGEST"));
    return buf;
}

/* SPOP with a count that leaves members goes to the AOF as one SREM per
 * member popped, in one MULTI/EXEC; one that takes the whole set as DEL;
 * SPOP without a count as one SREM. A restart replays them into the same
 * sets. */
static void testSpopReachesTheAofAsSremsOrDel(void) {
    node n;
    char before[64], after[64];
    nodeOpen(&n, 7, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "SADD s 1 2 3 4 5 6 7 8 9 10");
    nodeCmd(&n, "SADD h a b c d e f g h i j");
    nodeCmd(&n, "SADD all 1 2 3");
    CHECK(strncmp(nodeCmd(&n, "SPOP s 3"), "*3\r\n", 4) == 0);
    CHECK(strncmp(nodeCmd(&n, "SPOP h 8"), "*8\r\n", 4) == 0);
    nodeCmd(&n, "SPOP s");
    CHECK_EQ_STR(nodeCmd(&n, "SPOP all 5"),
                 "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SPOP s 0"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SCARD s"), ":6\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SCARD h"), ":2\r\n");
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(occurrences(f, "$4\r\nSREM\r\n"), 3 + 8 + 1);
        CHECK_EQ_INT(occurrences(f, "MULTI"), 2);
        CHECK_EQ_INT(occurrences(f, "EXEC"), 2);
        CHECK_EQ_INT(occurrences(f, "*2\r\n$3\r\nDEL\r\n$3\r\nall\r\n"), 1);
        CHECK_EQ_INT(occurrences(f, "spop"), 0);
    }
    free(f);
    digestOf(&n, before, sizeof(before));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(digestOf(&n, after, sizeof(after)), before);
    nodeClose(&n);
}

/* SPOP with a count close to the size keeps the few members that stay
 * in a new set under the same key, with the encoding they call for, and
 * its TTL. */
static void testSpopOfMostMembersKeepsTheRest(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    nodeCmd(&n, "SADD s 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
    nodeCmd(&n, "EXPIRE s 1000");
    CHECK(strncmp(nodeCmd(&n, "SPOP s 18"), "*18\r\n", 5) == 0);
    CHECK_EQ_STR(nodeCmd(&n, "SCARD s"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING s"), "$6\r\nintset\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "TTL s"), ":1000\r\n");
    nodeCmd(&n, "SADD h a b c d e f g h i j");
    CHECK(strncmp(nodeCmd(&n, "SPOP h 9"), "*9\r\n", 4) == 0);
    CHECK_EQ_STR(nodeCmd(&n, "SCARD h"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING h"),
                 "$9\r\nhashtable\r\n");
    nodeClose(&n);
}

/* SRANDMEMBER with a count below the size gives distinct members, by
 * either of its ways; a negative count repeats them. */
static void testSrandmemberSamplesDistinctMembers(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    nodeCmd(&n, "SADD s a b c d e f g h i j k l m n o p q r s t");
    for (int count = 2; count <= 19; count += 17) {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "SRANDMEMBER s %d", count);
        const char *r = nodeCmd(&n, cmd);
        char want[16];
        snprintf(want, sizeof(want), "*%d\r\n", count);
        CHECK(strncmp(r, want, strlen(want)) == 0);
        int seen[26] = { 0 }, dup = 0;
        for (const char *p = strstr(r, "$1\r\n"); p; p = strstr(p + 1,
                                                             "$1\r\n"))
            if (seen[p[4] - 'a']++) dup = 1;
        CHECK(!dup);
    }
    const char *r = nodeCmd(&n, "SRANDMEMBER s -100");
    CHECK(strncmp(r, "*100\r\n", 6) == 0);
    CHECK_EQ_STR(nodeCmd(&n, "SCARD s"), ":20\r\n");
    nodeClose(&n);
}

/* COPY, MOVE and SWAPDB reach the AOF as written (each after a SELECT of
 * the client's db) and a restart rebuilds the same dataset. */
static void testCopyMoveSwapdbReplay(void) {
    node n;
    char before[64], after[64];
    nodeOpen(&n, 2, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "RPUSH l a b c");
    nodeCmd(&n, "SADD s 1 2 x");
    nodeCmd(&n, "SET t v EX 1000");
    CHECK_EQ_STR(nodeCmd(&n, "COPY l l2 DB 3"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "COPY s s2"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "MOVE t 4"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SWAPDB 0 3"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE l2 0 -1"),
                 "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
    nodeCmd(&n, "SELECT 4");
    CHECK_EQ_STR(nodeCmd(&n, "TTL t"), ":1000\r\n");
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(occurrences(f, "$4\r\nCOPY\r\n"), 2);
        CHECK_EQ_INT(occurrences(f, "$4\r\nMOVE\r\n"), 1);
        CHECK_EQ_INT(occurrences(f, "$6\r\nSWAPDB\r\n"), 1);
    }
    free(f);
    digestOf(&n, before, sizeof(before));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(digestOf(&n, after, sizeof(after)), before);
    nodeClose(&n);
}

/* SWAPDB dooms a transaction watching a key that exists in either db,
 * and no other. */
static void testSwapdbTouchesWatchedKeys(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    nodeCmd(&n, "SELECT 1");
    nodeCmd(&n, "SET here v");
    nodeCmd(&n, "SELECT 0");
    nodeCmd(&n, "WATCH here");
    nodeCmd(&n, "SWAPDB 0 1");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "PING");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*-1\r\n");
    nodeCmd(&n, "WATCH nowhere");
    nodeCmd(&n, "SWAPDB 0 1");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "PING");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*1\r\n+PONG\r\n");
    nodeClose(&n);
}

/* OBJECT IDLETIME counts virtual seconds since the last access, which
 * TOUCH and reads reset and OBJECT itself does not; OBJECT FREQ starts at
 * 5 under an LFU policy and grows with accesses. The clock has a second's
 * resolution and serverCron refreshes it, so 5 s of idleness reads as 4
 * or 5. */
static long long idletime(node *n, const char *key) {
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "OBJECT IDLETIME %s", key);
    const char *r = nodeCmd(n, cmd);
    return r[0] == ':' ? atoll(r + 1) : -1;
}

static void testTheAccessClockRunsInVirtualTime(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    nodeCmd(&n, "SET k v");
    nodeRun(&n, 5000 * MS);
    long long idle = idletime(&n, "k");
    CHECK(idle == 4 || idle == 5);
    CHECK_EQ_INT(idletime(&n, "k"), idle);
    CHECK_EQ_STR(nodeCmd(&n, "TOUCH k nokey"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT IDLETIME k"), ":0\r\n");
    nodeRun(&n, 3000 * MS);
    nodeCmd(&n, "GET k");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT IDLETIME k"), ":0\r\n");
    CHECK(strncmp(nodeCmd(&n, "OBJECT FREQ k"), "-ERR An LFU maxmemory",
                  21) == 0);
    nodeCmd(&n, "CONFIG SET maxmemory-policy allkeys-lfu");
    nodeCmd(&n, "SET f v");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT FREQ f"), ":5\r\n");
    for (int i = 0; i < 100; i++) nodeCmd(&n, "GET f");
    CHECK(atoi(nodeCmd(&n, "OBJECT FREQ f") + 1) > 5);
    CHECK(strncmp(nodeCmd(&n, "OBJECT IDLETIME f"), "-ERR An LFU", 11) == 0);
    nodeClose(&n);
}

/* In RESP3 the sets SMEMBERS, SINTER, SUNION, SDIFF and SPOP with a count
 * reply are sets ("~"), empty ones included; SRANDMEMBER with a count
 * stays an array; the nulls are "_". */
static void testSetRepliesInResp3(void) {
    node n;
    nodeOpen(&n, 8, NULL);
    nodeCmd(&n, "SADD a 1 2 3");
    nodeCmd(&n, "SADD b 2 3 4");
    nodeCmd(&n, "HELLO 3");
    CHECK_EQ_STR(nodeCmd(&n, "SMEMBERS a"),
                 "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SMEMBERS nokey"), "~0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SINTER a b"),
                 "~2\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SINTER a nokey"), "~0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SUNION a nokey"),
                 "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SDIFF a b"), "~1\r\n$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SPOP nokey 2"), "~0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SPOP a 0"), "~0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SPOP nokey"), "_\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SRANDMEMBER nokey"), "_\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SRANDMEMBER nokey 3"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SRANDMEMBER a 5"),
                 "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT FREQ nokey"), "_\r\n");
    CHECK(strncmp(nodeCmd(&n, "SPOP b 2"), "~2\r\n", 4) == 0);
    nodeClose(&n);
}

int main(void) {
    RUN("SPOP reaches the AOF as SREMs in a MULTI, or DEL when it empties "
        "the set, and replays into the same sets",
        testSpopReachesTheAofAsSremsOrDel);
    RUN("SPOP of most members keeps the rest under the key, TTL included",
        testSpopOfMostMembersKeepsTheRest);
    RUN("SRANDMEMBER with a count gives distinct members, a negative count "
        "repeats them", testSrandmemberSamplesDistinctMembers);
    RUN("COPY, MOVE and SWAPDB reach the AOF as written and replay into the "
        "same dataset", testCopyMoveSwapdbReplay);
    RUN("SWAPDB dooms the transactions watching a key on either side",
        testSwapdbTouchesWatchedKeys);
    RUN("the access clock of OBJECT IDLETIME and FREQ runs in virtual time",
        testTheAccessClockRunsInVirtualTime);
    RUN("set replies take RESP3's set shape after HELLO 3",
        testSetRepliesInResp3);
    return gkTestReport();
}
