/* Tests of blocking commands in the simulated world: clients blocked on
 * one key are served in the order they blocked, timeouts fire on virtual
 * time, MULTI never blocks, a client that goes away while blocked is
 * forgotten, and what the served pops propagate to the AOF. The replies
 * that need no second client are compared with redis-server in
 * tests/diff/scripts/blocking.redis. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* An integer field of INFO clients, or -1. */
static long long clientsInfo(node *n, const char *field) {
    char want[64];
    nodeCmd(n, "INFO clients");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

static void testServedInOrder(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    int a = connOpen(&n), b = connOpen(&n), c = connOpen(&n);
    connSend(&n, a, "BLPOP q 0");
    connSend(&n, b, "BLPOP other q 0");
    connSend(&n, c, "BRPOP q 0");
    CHECK_EQ_STR(connRead(&n, a), "");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 3);
    CHECK_EQ_INT(clientsInfo(&n, "clients_in_timeout_table"), 0);
    CHECK_EQ_STR(nodeCmd(&n, "RPUSH q x y"), ":2\r\n");
    CHECK_EQ_STR(connRead(&n, a), "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
    CHECK_EQ_STR(connRead(&n, b), "*2\r\n$1\r\nq\r\n$1\r\ny\r\n");
    CHECK_EQ_STR(connRead(&n, c), "");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS q"), ":0\r\n");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 1);
    CHECK(strstr(nodeCmd(&n, "CLIENT LIST"), "flags=b ") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "LPUSH q 1 2 3"), ":3\r\n");
    CHECK_EQ_STR(connRead(&n, c), "*2\r\n$1\r\nq\r\n$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE q 0 -1"),
                 "*2\r\n$1\r\n3\r\n$1\r\n2\r\n");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 0);
    nodeClose(&n);
}

static void testPipelinedAfterBlock(void) {
    node n;
    nodeOpen(&n, 2, NULL);
    int a = connOpen(&n);
    connSend(&n, a, "BLPOP q 0\r\nPING\r\nLLEN q");
    CHECK_EQ_STR(connRead(&n, a), "");
    nodeCmd(&n, "RPUSH q 1 2");
    CHECK_EQ_STR(connRead(&n, a),
                 "*2\r\n$1\r\nq\r\n$1\r\n1\r\n+PONG\r\n:1\r\n");
    nodeClose(&n);
}

static void testTimeoutOnVirtualTime(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    int a = connOpen(&n), b = connOpen(&n);
    uint64_t t0 = gkWorldNow(n.w);
    connSend(&n, a, "BLPOP q 2");
    connSend(&n, b, "BLMOVE q d LEFT RIGHT 0.5");
    CHECK_EQ_INT(clientsInfo(&n, "clients_in_timeout_table"), 2);
    gkWorldRunUntil(n.w, t0 + 499 * MS);
    CHECK_EQ_STR(connRead(&n, b), "");
    /* A timeout is checked in beforeSleep: at most one cron period (100
     * ms at hz 10) after it passed. */
    gkWorldRunUntil(n.w, t0 + 610 * MS);
    CHECK_EQ_STR(connRead(&n, b), "*-1\r\n");
    gkWorldRunUntil(n.w, t0 + 1990 * MS);
    CHECK_EQ_STR(connRead(&n, a), "");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 1);
    gkWorldRunUntil(n.w, t0 + 2110 * MS);
    CHECK_EQ_STR(connRead(&n, a), "*-1\r\n");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 0);
    CHECK_EQ_INT(clientsInfo(&n, "clients_in_timeout_table"), 0);
    /* Zero blocks for ever. */
    connSend(&n, a, "BRPOP q 0");
    nodeRun(&n, 3600 * SEC);
    CHECK_EQ_STR(connRead(&n, a), "");
    nodeCmd(&n, "LPUSH q late");
    CHECK_EQ_STR(connRead(&n, a), "*2\r\n$1\r\nq\r\n$4\r\nlate\r\n");
    nodeClose(&n);
}

static void testMultiNeverBlocks(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "BLPOP q 0");
    nodeCmd(&n, "BLMOVE q d LEFT LEFT 0");
    nodeCmd(&n, "BLMPOP 0 1 q LEFT");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*3\r\n*-1\r\n$-1\r\n*-1\r\n");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 0);
    /* A transaction's push serves a client blocked outside it, once the
     * transaction is done. */
    int a = connOpen(&n);
    connSend(&n, a, "BLPOP q 0");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "RPUSH q 1");
    nodeCmd(&n, "RPUSH q 2");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*2\r\n:1\r\n:2\r\n");
    CHECK_EQ_STR(connRead(&n, a), "*2\r\n$1\r\nq\r\n$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE q 0 -1"), "*1\r\n$1\r\n2\r\n");
    nodeClose(&n);
}

static void testDisconnectWhileBlocked(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    int a = connOpen(&n), b = connOpen(&n);
    connSend(&n, a, "BLPOP q 5");
    connSend(&n, b, "BLPOP q 0");
    gkConnClose(n.w, a);
    gkWorldRunUntilIdle(n.w);
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 1);
    CHECK_EQ_INT(clientsInfo(&n, "clients_in_timeout_table"), 0);
    gkConnClose(n.w, b);
    gkWorldRunUntilIdle(n.w);
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 0);
    CHECK_EQ_STR(nodeCmd(&n, "RPUSH q x"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LLEN q"), ":1\r\n");
    nodeRun(&n, 6 * SEC);
    CHECK_EQ_STR(nodeCmd(&n, "LLEN q"), ":1\r\n");
    nodeClose(&n);
}

static void testClientUnblock(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    int a = connOpen(&n);
    connSend(&n, a, "CLIENT ID");
    long long id = atoll(connRead(&n, a) + 1);
    char line[64];
    connSend(&n, a, "BLPOP q 0");
    snprintf(line, sizeof(line), "CLIENT UNBLOCK %lld", id);
    CHECK_EQ_STR(nodeCmd(&n, line), ":1\r\n");
    CHECK_EQ_STR(connRead(&n, a), "*-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, line), ":0\r\n");
    connSend(&n, a, "BRPOPLPUSH q d 0");
    snprintf(line, sizeof(line), "CLIENT UNBLOCK %lld ERROR", id);
    CHECK_EQ_STR(nodeCmd(&n, line), ":1\r\n");
    CHECK_EQ_STR(connRead(&n, a),
                 "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
    snprintf(line, sizeof(line), "CLIENT UNBLOCK %lld MAYBE", id);
    CHECK_EQ_STR(nodeCmd(&n, line),
                 "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n");
    nodeClose(&n);
}

static void testServedPopsPropagateAsPlainOnes(void) {
    node n;
    nodeOpen(&n, 7, "appendonly yes\nappendfsync always\n");
    int a = connOpen(&n), b = connOpen(&n), c = connOpen(&n);
    connSend(&n, a, "BLPOP q 0");
    connSend(&n, b, "BLMOVE q d RIGHT LEFT 0");
    connSend(&n, c, "BLMPOP 0 2 x q LEFT COUNT 5");
    nodeCmd(&n, "RPUSH q a b c d");
    CHECK_EQ_STR(connRead(&n, a), "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    CHECK_EQ_STR(connRead(&n, b), "$1\r\nd\r\n");
    CHECK_EQ_STR(connRead(&n, c),
                 "*2\r\n$1\r\nq\r\n*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
    /* Not blocking: the command is rewritten as it replays. */
    nodeCmd(&n, "BRPOPLPUSH d e 0");
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK_EQ_STR(f ? f : "",
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
        "*6\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"
        "$1\r\nd\r\n"
        "*2\r\n$4\r\nLPOP\r\n$1\r\nq\r\n"
        "*5\r\n$5\r\nLMOVE\r\n$1\r\nq\r\n$1\r\nd\r\n$5\r\nright\r\n"
        "$4\r\nleft\r\n"
        "*3\r\n$4\r\nLPOP\r\n$1\r\nq\r\n$1\r\n2\r\n"
        "*3\r\n$9\r\nRPOPLPUSH\r\n$1\r\nd\r\n$1\r\ne\r\n");
    free(f);
    nodeClose(&n);
}

static void testChainedMoves(void) {
    node n;
    nodeOpen(&n, 8, NULL);
    int a = connOpen(&n), b = connOpen(&n);
    /* a waits on l1 to move into l2, where b waits: one push serves
     * both, in one round. */
    connSend(&n, a, "BRPOPLPUSH l1 l2 0");
    connSend(&n, b, "BLPOP l2 0");
    nodeCmd(&n, "RPUSH l1 v");
    CHECK_EQ_STR(connRead(&n, a), "$1\r\nv\r\n");
    CHECK_EQ_STR(connRead(&n, b), "*2\r\n$2\r\nl2\r\n$1\r\nv\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS l1 l2"), ":0\r\n");
    /* A destination of another type: WRONGTYPE, and nothing moves. */
    nodeCmd(&n, "SET l2 str");
    connSend(&n, a, "BLMOVE l1 l2 LEFT LEFT 0");
    nodeCmd(&n, "RPUSH l1 w");
    CHECK_EQ_STR(connRead(&n, a),
                 "-WRONGTYPE Operation against a key holding the wrong kind "
                 "of value\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE l1 0 -1"), "*1\r\n$1\r\nw\r\n");
    nodeClose(&n);
}

static void testSwapdbWakes(void) {
    node n;
    nodeOpen(&n, 9, "appendonly yes\nappendfsync always\n");
    int a = connOpen(&n), b = connOpen(&n);
    connSend(&n, a, "SELECT 9");
    connSend(&n, a, "BRPOP k 0");
    CHECK_EQ_STR(connRead(&n, a), "+OK\r\n");
    connSend(&n, b, "SELECT 9");
    connSend(&n, b, "BLPOP gone 0");
    CHECK_EQ_STR(connRead(&n, b), "+OK\r\n");
    nodeCmd(&n, "SELECT 1");
    nodeCmd(&n, "RPUSH k hello");
    nodeCmd(&n, "RPUSH gone x");
    nodeCmd(&n, "PEXPIRE gone 100");
    nodeCmd(&n, "DEBUG SET-ACTIVE-EXPIRE 0");
    nodeRun(&n, 200 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "SWAPDB 1 9"), "+OK\r\n");
    CHECK_EQ_STR(connRead(&n, a), "*2\r\n$1\r\nk\r\n$5\r\nhello\r\n");
    /* The key that came expired is deleted when its turn comes, and its
     * client waits on. */
    CHECK_EQ_STR(connRead(&n, b), "");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 1);
    char *f = nodeFile(&n, INCR1, 0, NULL);
    const char *tail = f ? strstr(f, "*3\r\n$6\r\nSWAPDB\r\n") : NULL;
    /* The two keys are ready in the order the db's table of blocked keys
     * lists them, as in Redis: either may come first. */
    const char *swap = "*3\r\n$6\r\nSWAPDB\r\n$1\r\n1\r\n$1\r\n9\r\n"
                       "*2\r\n$6\r\nSELECT\r\n$1\r\n9\r\n";
    const char *pop = "*2\r\n$4\r\nRPOP\r\n$1\r\nk\r\n";
    const char *del = "*2\r\n$3\r\nDEL\r\n$4\r\ngone\r\n";
    CHECK(tail && !strncmp(tail, swap, strlen(swap)));
    CHECK(tail && strlen(tail) == strlen(swap) + strlen(pop) + strlen(del));
    CHECK(tail && strstr(tail, pop) && strstr(tail, del));
    free(f);
    nodeClose(&n);
}

static void testSortedSetPops(void) {
    node n;
    nodeOpen(&n, 11, "appendonly yes\nappendfsync always\n");
    int a = connOpen(&n), b = connOpen(&n), c = connOpen(&n);
    connSend(&n, a, "BZPOPMIN z 0");
    connSend(&n, b, "BZMPOP 0 2 other z MAX COUNT 9");
    connSend(&n, c, "BZPOPMAX z 1.5");
    CHECK_EQ_INT(clientsInfo(&n, "blocked_clients"), 3);
    nodeCmd(&n, "ZADD z 1 a 2 b 3 c");
    CHECK_EQ_STR(connRead(&n, a),
                 "*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n");
    CHECK_EQ_STR(connRead(&n, b),
                 "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n"
                 "*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS z"), ":0\r\n");
    /* The third waits out its 1.5 s of virtual time. */
    CHECK_EQ_STR(connRead(&n, c), "");
    gkWorldRunUntil(n.w, gkWorldNow(n.w) + 2000 * MS);
    CHECK_EQ_STR(connRead(&n, c), "*-1\r\n");
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK_EQ_STR(f ? f : "",
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
        "*8\r\n$4\r\nZADD\r\n$1\r\nz\r\n$1\r\n1\r\n$1\r\na\r\n"
        "$1\r\n2\r\n$1\r\nb\r\n$1\r\n3\r\n$1\r\nc\r\n"
        "*2\r\n$7\r\nZPOPMIN\r\n$1\r\nz\r\n"
        "*3\r\n$7\r\nZPOPMAX\r\n$1\r\nz\r\n$1\r\n2\r\n");
    free(f);
    nodeClose(&n);
}

int main(void) {
    RUN("clients blocked on one key are served first blocked first, each "
        "with one element", testServedInOrder);
    RUN("commands pipelined after a blocking one wait until it is served",
        testPipelinedAfterBlock);
    RUN("a blocking timeout fires on virtual time with a null array, and "
        "zero waits for ever", testTimeoutOnVirtualTime);
    RUN("inside MULTI a blocking command acts as its non-blocking form",
        testMultiNeverBlocks);
    RUN("a client that disconnects while blocked leaves its queue and the "
        "timeout table", testDisconnectWhileBlocked);
    RUN("CLIENT UNBLOCK unblocks as a timeout or with an error",
        testClientUnblock);
    RUN("served blocking pops reach the AOF as the plain pops they amount "
        "to", testServedPopsPropagateAsPlainOnes);
    RUN("BRPOPLPUSH serves a client blocked on its destination in the same "
        "round", testChainedMoves);
    RUN("SWAPDB serves the clients blocked on keys that arrive with the "
        "swapped db, expired ones aside", testSwapdbWakes);
    RUN("sorted set pops are served in order on ZADD, as ZPOPMIN/ZPOPMAX "
        "in the AOF, and time out on virtual time", testSortedSetPops);
    return gkTestReport();
}
