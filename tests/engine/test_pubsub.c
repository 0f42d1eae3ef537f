/* Tests of Pub/Sub and keyspace notifications in the simulated world: two
 * clients of one server, one subscribed, the other publishing or writing.
 * The bytes a subscriber receives are compared with redis-server's in
 * tests/server/pubsub.test.ts. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* An integer field of INFO stats, or -1. */
static long long statsInfo(node *n, const char *field) {
    char want[64];
    nodeCmd(n, "INFO stats");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

static void testSubscribePublish(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "SUBSCRIBE chan1 chan2 chan1");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$9\r\nsubscribe\r\n$5\r\nchan1\r\n:1\r\n"
        "*3\r\n$9\r\nsubscribe\r\n$5\r\nchan2\r\n:2\r\n"
        "*3\r\n$9\r\nsubscribe\r\n$5\r\nchan1\r\n:2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH chan1 hello"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH nobody hello"), ":0\r\n");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$7\r\nmessage\r\n$5\r\nchan1\r\n$5\r\nhello\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB NUMSUB chan1 other"),
        "*4\r\n$5\r\nchan1\r\n:1\r\n$5\r\nother\r\n:0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB CHANNELS chan2"),
        "*1\r\n$5\r\nchan2\r\n");
    /* In RESP2 the subscribed connection only takes (un)subscriptions,
     * PING and QUIT; PING answers as a message would. */
    connSend(&n, sub, "GET k");
    connSend(&n, sub, "PING");
    connSend(&n, sub, "PING hi");
    CHECK_EQ_STR(connRead(&n, sub),
        "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE "
        "/ PING / QUIT / RESET are allowed in this context\r\n"
        "*2\r\n$4\r\npong\r\n$0\r\n\r\n"
        "*2\r\n$4\r\npong\r\n$2\r\nhi\r\n");
    connSend(&n, sub, "UNSUBSCRIBE chan1 nope");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$11\r\nunsubscribe\r\n$5\r\nchan1\r\n:1\r\n"
        "*3\r\n$11\r\nunsubscribe\r\n$4\r\nnope\r\n:1\r\n");
    connSend(&n, sub, "UNSUBSCRIBE");
    connSend(&n, sub, "UNSUBSCRIBE");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$11\r\nunsubscribe\r\n$5\r\nchan2\r\n:0\r\n"
        "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n");
    connSend(&n, sub, "PING");
    CHECK_EQ_STR(connRead(&n, sub), "+PONG\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB CHANNELS"), "*0\r\n");
    nodeClose(&n);
}

static void testPatterns(void) {
    node n;
    nodeOpen(&n, 2, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "PSUBSCRIBE foo.* foo.[ab]");
    connSend(&n, sub, "SUBSCRIBE foo.a");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$10\r\npsubscribe\r\n$5\r\nfoo.*\r\n:1\r\n"
        "*3\r\n$10\r\npsubscribe\r\n$8\r\nfoo.[ab]\r\n:2\r\n"
        "*3\r\n$9\r\nsubscribe\r\n$5\r\nfoo.a\r\n:3\r\n");
    /* The channel, then each pattern that matches: three deliveries. */
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH foo.a x"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH foo.c y"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH foox z"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB NUMPAT"), ":2\r\n");
    const char *got = connRead(&n, sub);
    /* The channel's message first, then the patterns' in table order. */
    const char *msg = "*3\r\n$7\r\nmessage\r\n$5\r\nfoo.a\r\n$1\r\nx\r\n";
    CHECK(!strncmp(got, msg, strlen(msg)));
    CHECK(strstr(got, "*4\r\n$8\r\npmessage\r\n$5\r\nfoo.*\r\n$5\r\nfoo.a"
                      "\r\n$1\r\nx\r\n") != NULL);
    CHECK(strstr(got, "*4\r\n$8\r\npmessage\r\n$8\r\nfoo.[ab]\r\n$5\r\n"
                      "foo.a\r\n$1\r\nx\r\n") != NULL);
    CHECK(strstr(got, "*4\r\n$8\r\npmessage\r\n$5\r\nfoo.*\r\n$5\r\nfoo.c"
                      "\r\n$1\r\ny\r\n") != NULL);
    /* PUNSUBSCRIBE with no argument leaves them in subscription order. */
    connSend(&n, sub, "PUNSUBSCRIBE");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$12\r\npunsubscribe\r\n$5\r\nfoo.*\r\n:2\r\n"
        "*3\r\n$12\r\npunsubscribe\r\n$8\r\nfoo.[ab]\r\n:1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB NUMPAT"), ":0\r\n");
    nodeClose(&n);
}

static void testShardChannels(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "SSUBSCRIBE s1");
    connSend(&n, sub, "PSUBSCRIBE *");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$10\r\nssubscribe\r\n$2\r\ns1\r\n:1\r\n"
        "*3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:1\r\n");
    /* Patterns do not reach shard channels. */
    CHECK_EQ_STR(nodeCmd(&n, "SPUBLISH s1 m"), ":1\r\n");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$8\r\nsmessage\r\n$2\r\ns1\r\n$1\r\nm\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB SHARDNUMSUB s1"),
        "*2\r\n$2\r\ns1\r\n:1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB SHARDCHANNELS"), "*1\r\n$2\r\ns1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB CHANNELS"), "*0\r\n");
    /* SSUBSCRIBE may not be queued in MULTI: EXEC runs it as a client
     * that must get one reply per command. */
    CHECK_EQ_STR(nodeCmd(&n, "MULTI"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SSUBSCRIBE s2"), "+QUEUED\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"),
        "*1\r\n-ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client\r\n");
    nodeClose(&n);
}

static void testResp3Pushes(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "HELLO 3");
    connRead(&n, sub);
    connSend(&n, sub, "SUBSCRIBE c");
    connSend(&n, sub, "SET k v");
    connSend(&n, sub, "PING");
    CHECK_EQ_STR(connRead(&n, sub),
        ">3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n+OK\r\n+PONG\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH c hi"), ":1\r\n");
    CHECK_EQ_STR(connRead(&n, sub),
        ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\nhi\r\n");
    connSend(&n, sub, "UNSUBSCRIBE x");
    connSend(&n, sub, "PUNSUBSCRIBE");
    CHECK_EQ_STR(connRead(&n, sub),
        ">3\r\n$11\r\nunsubscribe\r\n$1\r\nx\r\n:1\r\n"
        ">3\r\n$12\r\npunsubscribe\r\n_\r\n:1\r\n");
    nodeClose(&n);
}

static void testClientStateAndRelease(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "SUBSCRIBE a b");
    connSend(&n, sub, "PSUBSCRIBE p*");
    connSend(&n, sub, "SSUBSCRIBE s");
    connRead(&n, sub);
    const char *list = nodeCmd(&n, "CLIENT LIST TYPE pubsub");
    CHECK(strstr(list, "flags=P ") != NULL);
    CHECK(strstr(list, "sub=2 psub=1 ssub=1 ") != NULL);
    /* One line: the other client is a normal one. */
    const char *line = strstr(list, " resp=");
    CHECK(line && strstr(line + 1, " resp=") == NULL);
    CHECK(strstr(nodeCmd(&n, "CLIENT LIST TYPE normal"), "flags=P") == NULL);
    CHECK_EQ_INT(statsInfo(&n, "pubsub_channels"), 2);
    CHECK_EQ_INT(statsInfo(&n, "pubsub_patterns"), 1);
    CHECK_EQ_INT(statsInfo(&n, "pubsubshard_channels"), 1);
    /* A client that goes takes its subscriptions with it. */
    gkConnClose(n.w, sub);
    gkWorldRunUntilIdle(n.w);
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH a x"), ":0\r\n");
    CHECK_EQ_INT(statsInfo(&n, "pubsub_channels"), 0);
    CHECK_EQ_INT(statsInfo(&n, "pubsub_patterns"), 0);
    CHECK_EQ_INT(statsInfo(&n, "pubsubshard_channels"), 0);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT LIST TYPE pubsub"), "$0\r\n\r\n");
    nodeClose(&n);
}

static void testReplyOffLetsMessagesThrough(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    int sub = connOpen(&n);
    connSend(&n, sub, "CLIENT REPLY OFF");
    connSend(&n, sub, "SUBSCRIBE c");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n");
    nodeCmd(&n, "PUBLISH c m");
    CHECK_EQ_STR(connRead(&n, sub),
        "*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nm\r\n");
    nodeClose(&n);
}

static void testPublishStaysOutOfTheAof(void) {
    node n;
    nodeOpen(&n, 7, "appendonly yes\n");
    nodeCmd(&n, "PUBLISH c m");
    nodeCmd(&n, "SET k v");
    nodeRun(&n, 2 * SEC);
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f && strstr(f, "PUBLISH") == NULL && strstr(f, "SET") != NULL);
    free(f);
    nodeClose(&n);
}

/* Subscribes conn to every channel, and swallows the confirmation. */
static void subscribeAll(node *n, int conn) {
    connSend(n, conn, "PSUBSCRIBE *");
    connRead(n, conn);
}

/* A keyspace message: channel __keyspace@0__:<key> (len) carries event. */
static void expectSpace(node *n, int conn, const char *key,
                        const char *event) {
    char want[256];
    snprintf(want, sizeof(want),
             "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$%zu\r\n__keyspace@0__:%s"
             "\r\n$%zu\r\n%s\r\n", 15 + strlen(key), key, strlen(event),
             event);
    const char *got = connRead(n, conn);
    CHECK_EQ_STR(got, want);
}

static void testKeyspaceEvents(void) {
    node n;
    nodeOpen(&n, 8, NULL);
    int sub = connOpen(&n);
    subscribeAll(&n, sub);
    /* Nothing by default. */
    nodeCmd(&n, "SET k v");
    CHECK_EQ_STR(connRead(&n, sub), "");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET notify-keyspace-events KEA"),
                 "+OK\r\n");
    nodeCmd(&n, "SET k v2");
    CHECK_EQ_STR(connRead(&n, sub),
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$16\r\n__keyspace@0__:k\r\n"
        "$3\r\nset\r\n"
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$18\r\n__keyevent@0__:set\r\n"
        "$1\r\nk\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET notify-keyspace-events Kg$lshz"),
                 "+OK\r\n");
    nodeCmd(&n, "RPUSH l a b");
    expectSpace(&n, sub, "l", "rpush");
    nodeCmd(&n, "LPOP l 2");
    CHECK_EQ_STR(connRead(&n, sub),
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$16\r\n__keyspace@0__:l\r\n"
        "$4\r\nlpop\r\n"
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$16\r\n__keyspace@0__:l\r\n"
        "$3\r\ndel\r\n");
    nodeCmd(&n, "HSET h f 1");
    expectSpace(&n, sub, "h", "hset");
    nodeCmd(&n, "HINCRBY h f 2");
    expectSpace(&n, sub, "h", "hincrby");
    nodeCmd(&n, "SADD s a");
    expectSpace(&n, sub, "s", "sadd");
    nodeCmd(&n, "SREM s nope");
    CHECK_EQ_STR(connRead(&n, sub), "");
    nodeCmd(&n, "ZADD z 1 a");
    expectSpace(&n, sub, "z", "zadd");
    nodeCmd(&n, "ZINCRBY z 1 a");
    expectSpace(&n, sub, "z", "zincr");
    nodeCmd(&n, "INCR n");
    expectSpace(&n, sub, "n", "incrby");
    nodeCmd(&n, "RENAME n m");
    CHECK_EQ_STR(connRead(&n, sub),
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$16\r\n__keyspace@0__:n\r\n"
        "$11\r\nrename_from\r\n"
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$16\r\n__keyspace@0__:m\r\n"
        "$9\r\nrename_to\r\n");
    nodeCmd(&n, "EXPIRE m 100");
    expectSpace(&n, sub, "m", "expire");
    nodeCmd(&n, "PERSIST m");
    expectSpace(&n, sub, "m", "persist");
    nodeCmd(&n, "SETBIT b 3 1");
    expectSpace(&n, sub, "b", "setbit");
    nodeCmd(&n, "SETBIT b 3 1");
    CHECK_EQ_STR(connRead(&n, sub), "");
    nodeClose(&n);
}

static void testExpiredNewAndMiss(void) {
    node n;
    nodeOpen(&n, 9, NULL);
    int sub = connOpen(&n);
    subscribeAll(&n, sub);
    nodeCmd(&n, "CONFIG SET notify-keyspace-events Exnm");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET notify-keyspace-events"),
        "*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\nxnEm\r\n");
    nodeCmd(&n, "SET k v PX 100");
    nodeCmd(&n, "SET k v2 PX 100");
    nodeCmd(&n, "GET missing");
    CHECK_EQ_STR(connRead(&n, sub),
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$18\r\n__keyevent@0__:new\r\n"
        "$1\r\nk\r\n"
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$22\r\n__keyevent@0__:keymiss"
        "\r\n$7\r\nmissing\r\n");
    /* Active expiry finds it on virtual time. */
    nodeRun(&n, 2 * SEC);
    CHECK_EQ_STR(connRead(&n, sub),
        "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$22\r\n__keyevent@0__:expired"
        "\r\n$1\r\nk\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET notify-keyspace-events KQ"),
        "-ERR CONFIG SET failed (possibly related to argument "
        "'notify-keyspace-events') - Invalid event class character. Use "
        "'Ag$lshzxeKEtmdn'.\r\n");
    nodeCmd(&n, "CONFIG SET notify-keyspace-events KEA");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET notify-keyspace-events"),
        "*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nAKE\r\n");
    nodeClose(&n);
}

static void testRestoreIsOneEvent(void) {
    node n;
    nodeOpen(&n, 10, NULL);
    int sub = connOpen(&n);
    nodeCmd(&n, "RPUSH l a b c");
    /* The payload, binary, goes back as a multibulk argument. */
    const char *d = nodeCmd(&n, "DUMP l");
    const char *nl = strstr(d, "\r\n");
    long len = atol(d + 1);
    char req[512];
    int m = snprintf(req, sizeof(req), "*4\r\n$7\r\nRESTORE\r\n$2\r\nl2\r\n"
                     "$1\r\n0\r\n$%ld\r\n", len);
    memcpy(req + m, nl + 2, (size_t)len);
    memcpy(req + m + len, "\r\n", 2);
    subscribeAll(&n, sub);
    nodeCmd(&n, "CONFIG SET notify-keyspace-events KA");
    CHECK_EQ_STR(nodeRaw(&n, req, (size_t)(m + len + 2)), "+OK\r\n");
    expectSpace(&n, sub, "l2", "restore");
    nodeClose(&n);
}

/* An AOF that subscribes its loading client inside a MULTI, then writes
 * with keyspace notifications on: the client is gone once loaded, and
 * nothing is published to it afterwards. */
static void testAofLoaderLeavesNoSubscriber(void) {
    node n;
    nodeOpen(&n, 11, "appendonly yes\n");
    const char *manifest = "file appendonly.aof.1.base.aof seq 1 type b\n"
                           "file appendonly.aof.1.incr.aof seq 1 type i\n";
    const char *incr = "*1\r\n$5\r\nMULTI\r\n"
                       "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nx\r\n"
                       "*2\r\n$10\r\nPSUBSCRIBE\r\n$1\r\n*\r\n"
                       "*1\r\n$4\r\nEXEC\r\n"
                       "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n";
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/appendonly.aof.manifest",
                    manifest, strlen(manifest));
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/appendonly.aof.1.base.aof",
                    "", 0);
    gkDiskWriteFile(n.w, n.srv, INCR1, incr, strlen(incr));
    CHECK_EQ_INT(gkServerRestart(n.w, n.srv,
                 "appendonly yes\nnotify-keyspace-events KA\n"), GK_OK);
    gkConnOpen(n.w, n.srv, &n.conn);
    gkConnSetLink(n.w, n.conn, 20000, 0);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH x m"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBSUB NUMPAT"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 2"), "+OK\r\n");
    CHECK_EQ_INT(statsInfo(&n, "pubsub_channels"), 0);
    nodeClose(&n);
}

int main(void) {
    RUN("SUBSCRIBE, PUBLISH and UNSUBSCRIBE reply as 7.0, and a RESP2 "
        "subscriber may only (un)subscribe, PING and QUIT",
        testSubscribePublish);
    RUN("a message reaches the channel's subscribers and every matching "
        "pattern's, each delivery counted", testPatterns);
    RUN("shard channels are apart from channels and patterns, and refused "
        "inside MULTI", testShardChannels);
    RUN("in RESP3 messages are pushes and a subscriber may run anything",
        testResp3Pushes);
    RUN("a subscribed client is of the pubsub class, listed with its "
        "counts, and its subscriptions go when it goes",
        testClientStateAndRelease);
    RUN("CLIENT REPLY OFF silences replies but not Pub/Sub messages",
        testReplyOffLetsMessagesThrough);
    RUN("PUBLISH goes to replicas only, never to the AOF",
        testPublishStaysOutOfTheAof);
    RUN("writes of every type notify their event on the keyspace and "
        "keyevent channels of the classes enabled", testKeyspaceEvents);
    RUN("new keys, misses and active expiry notify, and the class string "
        "is parsed and printed as 7.0 does", testExpiredNewAndMiss);
    RUN("RESTORE notifies restore, not the commands that rebuild the value",
        testRestoreIsOneEvent);
    RUN("the AOF's loading client leaves no subscription behind",
        testAofLoaderLeavesNoSubscriber);
    return gkTestReport();
}
