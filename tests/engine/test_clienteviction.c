/* Tests of maxmemory-clients (client eviction) and of the parameters that
 * came with it: its bytes-or-percent values and their errors, the
 * eviction of the largest clients (never the exempt ones) with 7.0's log
 * line and INFO's evicted_clients, and CONFIG GET of key-load-delay (a
 * hidden parameter) and of replicaof/slaveof. */
#include "gktest.h"
#include "aofkit.h"
#include "server.h"

/* CONFIG SET maxmemory-clients value is refused for why. */
static void checkRefused(node *n, const char *value, const char *why) {
    char want[256];
    snprintf(want, sizeof(want), "-ERR CONFIG SET failed (possibly related "
             "to argument 'maxmemory-clients') - %s\r\n", why);
    CHECK_EQ_STR(nodeCmdf(n, "CONFIG SET maxmemory-clients %s", value), want);
}

static void testValues(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET maxmemory-clients"),
                 "*2\r\n$17\r\nmaxmemory-clients\r\n$1\r\n0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 10%"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET maxmemory-clients"),
                 "*2\r\n$17\r\nmaxmemory-clients\r\n$3\r\n10%\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 1mb"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET maxmemory-clients"),
                 "*2\r\n$17\r\nmaxmemory-clients\r\n$7\r\n1048576\r\n");
    checkRefused(&n, "101%", "percentage argument must be less or equal "
                 "to 100");
    checkRefused(&n, "-1%", "argument must be a memory or percent value");
    checkRefused(&n, "lots", "argument must be a memory or percent value");
    /* the value it had stays */
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET maxmemory-clients"),
                 "*2\r\n$17\r\nmaxmemory-clients\r\n$7\r\n1048576\r\n");
    nodeClose(&n);
}

static void testHiddenAndReplicaof(void) {
    node n;
    nodeOpen(&n, 2, NULL);
    /* key-load-delay answers to its name only */
    CHECK(!strstr(nodeCmd(&n, "CONFIG GET *"), "key-load-delay"));
    CHECK(!strstr(nodeCmd(&n, "CONFIG GET key-*"), "key-load-delay"));
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET key-load-delay"),
                 "*2\r\n$14\r\nkey-load-delay\r\n$1\r\n0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET key-load-delay -10"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET key-load-delay"),
                 "*2\r\n$14\r\nkey-load-delay\r\n$3\r\n-10\r\n");
    /* replicaof and its alias: empty on a master, immutable */
    /* both names (in an order of their own: Redis's is its hash
     * table's) */
    const char *of = nodeCmd(&n, "CONFIG GET *of");
    CHECK(!strncmp(of, "*4\r\n", 4));
    CHECK(strstr(of, "$9\r\nreplicaof\r\n$0\r\n\r\n") != NULL);
    CHECK(strstr(of, "$7\r\nslaveof\r\n$0\r\n\r\n") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET replicaof \"127.0.0.1 7000\""),
                 "-ERR CONFIG SET failed (possibly related to argument "
                 "'replicaof') - can't set immutable config\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "REPLICAOF 127.0.0.1 7000"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET slaveof"),
                 "*2\r\n$7\r\nslaveof\r\n$14\r\n127.0.0.1 7000\r\n");
    nodeClose(&n);
}

/* key-load-delay holds the loader: a DEBUG RELOAD of 1,000 keys takes
 * 1,000 x 100 us longer. */
static void testKeyLoadDelay(void) {
    uint64_t took[2];
    for (int k = 0; k < 2; k++) {
        node n;
        nodeOpen(&n, 3, NULL);
        nodeCmd(&n, "DEBUG POPULATE 1000");
        if (k) nodeCmd(&n, "CONFIG SET key-load-delay 100");
        uint64_t t0 = gkWorldNow(n.w);
        CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD"), "+OK\r\n");
        took[k] = gkWorldNow(n.w) - t0;
        CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":1000\r\n");
        nodeClose(&n);
    }
    CHECK(took[1] >= took[0] + 1000 * 100 * 1000ULL);
    CHECK(took[1] < took[0] + 1000 * 100 * 1000ULL + 10 * MS);
}

/* An integer field of INFO stats, or -1. */
static long long statsField(node *n, const char *field) {
    char want[64];
    nodeCmd(n, "INFO stats");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

/* 300 KB of a SET whose value is not all there yet: the client holds it
 * in its query buffer. */
static int bigArg(char *buf, size_t cap, size_t bytes) {
    int len = snprintf(buf, cap, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                       "$%d\r\n", 1000000);
    memset(buf + len, 'x', bytes);
    return len + (int)bytes;
}

/* With a limit of 256 KB, a client holding a 300 KB query buffer is
 * evicted and a small one stays. When a client with CLIENT NO-EVICT holds
 * as much, every evictable client goes, small ones too, and the server
 * says it is still over. The page's own connection is exempt here too,
 * to ask INFO. */
static void testEviction(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    int big = connOpen(&n), small = connOpen(&n), exempt = connOpen(&n);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT NO-EVICT on"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 256kb"), "+OK\r\n");
    static char buf[400 * 1024];
    int len = bigArg(buf, sizeof(buf), 300 * 1024);
    gkConnSend(n.w, big, buf, (size_t)len);
    nodeRun(&n, 10 * MS);
    CHECK(!gkConnIsOpen(n.w, big));
    CHECK(gkConnIsOpen(n.w, small));
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 1);
    CHECK_EQ_INT(nodeLogCount(&n, "* Evicting client: id="), 1);
    CHECK(nodeLogHas(&n, "qbuf=307200 "));
    connSend(&n, exempt, "CLIENT NO-EVICT on");
    CHECK_EQ_STR(connRead(&n, exempt), "+OK\r\n");
    gkConnSend(n.w, exempt, buf, (size_t)len);
    nodeRun(&n, 10 * MS);
    CHECK(gkConnIsOpen(n.w, exempt));
    CHECK(!gkConnIsOpen(n.w, small));
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 2);
    CHECK(nodeLogHas(&n, "# Over client maxmemory after evicting all "
                         "evictable clients"));
    /* with no limit nothing goes; CONFIG RESETSTAT zeroes the count */
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 0"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG RESETSTAT"), "+OK\r\n");
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 0);
    int other = connOpen(&n);
    gkConnSend(n.w, other, buf, (size_t)len);
    nodeRun(&n, 10 * MS);
    CHECK(gkConnIsOpen(n.w, other));
    nodeClose(&n);
}

/* The client that crosses the limit with the command it sends is
 * evicted before that command runs, and the rest of its pipeline never
 * runs; a limit below 128 KB counts as 128 KB. */
static void testEvictsItself(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT NO-EVICT on"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 1"), "+OK\r\n");
    int c = connOpen(&n);
    static char buf[300 * 1024];
    int len = snprintf(buf, sizeof(buf), "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n"
                       "$%d\r\n", 200 * 1024);
    memset(buf + len, 'x', 200 * 1024);
    len += 200 * 1024;
    len += snprintf(buf + len, sizeof(buf) - (size_t)len,
                    "\r\n*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$1\r\n1\r\n");
    gkConnSend(n.w, c, buf, (size_t)len);
    nodeRun(&n, 10 * MS);
    CHECK(!gkConnIsOpen(n.w, c));
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS big after"), ":0\r\n");
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 1);
    /* a small client under the same limit is served */
    int d = connOpen(&n);
    connSend(&n, d, "SET small 1");
    CHECK_EQ_STR(connRead(&n, d), "+OK\r\n");
    nodeClose(&n);
}

/* A MONITOR client counts, and may be evicted, as a normal one. */
static void testMonitorEvicted(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT NO-EVICT on"), "+OK\r\n");
    int mon = connOpen(&n);
    connSend(&n, mon, "MONITOR");
    CHECK_EQ_STR(connRead(&n, mon), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 128kb"), "+OK\r\n");
    /* lines the monitor does not read fill its socket, then pile up in
     * its output buffer */
    static char buf[70 * 1024];
    int len = snprintf(buf, sizeof(buf), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                       "$%d\r\n", 64 * 1024);
    memset(buf + len, 'v', 64 * 1024);
    len += 64 * 1024;
    len += snprintf(buf + len, sizeof(buf) - (size_t)len, "\r\n");
    for (int i = 0; i < 256 && gkConnIsOpen(n.w, mon); i++) {
        gkConnSend(n.w, n.conn, buf, (size_t)len);
        nodeRun(&n, 1 * MS);
        char ok[64];
        gkConnRecv(n.w, n.conn, ok, sizeof(ok));
    }
    CHECK(!gkConnIsOpen(n.w, mon));
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 1);
    nodeClose(&n);
}

/* A percentage is of maxmemory, and none without maxmemory; the largest
 * client goes first, a small one stays. */
static void testPercentAndLargestFirst(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    int small = connOpen(&n), big = connOpen(&n);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory-clients 50%"), "+OK\r\n");
    static char buf[200 * 1024];
    int len = bigArg(buf, sizeof(buf), 150 * 1024);
    gkConnSend(n.w, big, buf, (size_t)len);
    nodeRun(&n, 10 * MS);
    CHECK(gkConnIsOpen(n.w, big));      /* no maxmemory: no limit */
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET maxmemory 400kb"), "+OK\r\n");
    connSend(&n, small, "PING");
    CHECK_EQ_STR(connRead(&n, small), "+PONG\r\n");
    nodeRun(&n, 10 * MS);
    CHECK(!gkConnIsOpen(n.w, big));     /* over 200 KB, half of 400 KB */
    CHECK(gkConnIsOpen(n.w, small));
    CHECK_EQ_INT(statsField(&n, "evicted_clients"), 1);
    nodeClose(&n);
}

int main(void) {
    RUN("maxmemory-clients takes bytes or a percentage, with 7.0's errors",
        testValues);
    RUN("key-load-delay answers only to its name; replicaof and slaveof "
        "show the master, and cannot be set", testHiddenAndReplicaof);
    RUN("key-load-delay holds the loader for every key", testKeyLoadDelay);
    RUN("a client over maxmemory-clients is evicted, logged and counted; "
        "one with CLIENT NO-EVICT is not", testEviction);
    RUN("a percentage is of maxmemory; the largest client goes first",
        testPercentAndLargestFirst);
    RUN("a client crossing the limit is evicted before its command runs, "
        "and its pipeline with it", testEvictsItself);
    RUN("a MONITOR client counts and goes as a normal one",
        testMonitorEvicted);
    return gkTestReport();
}
