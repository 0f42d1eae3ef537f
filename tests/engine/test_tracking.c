/* Tests of client-side caching in the simulated world: CLIENT TRACKING
 * and its options, the messages a tracking client (or the client it
 * redirects to) receives when a key it read changes, is flushed, expires
 * or is evicted, BCAST prefixes, and the tracking table's limit. The same
 * sequences are compared with redis-server's bytes in
 * tests/server/tracking.test.mjs. */
#include "gktest.h"
#include "aofkit.h"

#define INV(key) ">2\r\n$10\r\ninvalidate\r\n*1\r\n" key
#define MSG(key) "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n" \
                 "*1\r\n" key

/* The client id of conn, as CLIENT ID answers it. */
static long long connId(node *n, int conn) {
    connSend(n, conn, "CLIENT ID");
    return atoll(connRead(n, conn) + 1);
}

/* A connection in RESP3 with tracking turned on with opts ("" for none),
 * its replies read. */
static int resp3Tracker(node *n, const char *opts) {
    char line[256];
    int c = connOpen(n);
    connSend(n, c, "HELLO 3");
    snprintf(line, sizeof(line), "CLIENT TRACKING on %s", opts);
    connSend(n, c, line);
    const char *r = connRead(n, c);
    CHECK(strlen(r) >= 5 && !strcmp(r + strlen(r) - 5, "+OK\r\n"));
    return c;
}

/* A RESP2 connection subscribed to __redis__:invalidate, and its id. */
static int redirectTarget(node *n, long long *id) {
    int r = connOpen(n);
    *id = connId(n, r);
    connSend(n, r, "SUBSCRIBE __redis__:invalidate");
    connRead(n, r);
    return r;
}

static void testErrors(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING"),
        "-ERR wrong number of arguments for 'client|tracking' command\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING maybe"),
        "-ERR syntax error\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on REDIRECT"),
        "-ERR syntax error\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on REDIRECT x"),
        "-ERR value is not an integer or out of range\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING off REDIRECT 12345"),
        "-ERR The client ID you want redirect to does not exist\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on PREFIX a"),
        "-ERR PREFIX option requires BCAST mode to be enabled\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on BCAST OPTOUT"),
        "-ERR OPTIN and OPTOUT are not compatible with BCAST\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on OPTIN OPTOUT"),
        "-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on BCAST PREFIX ab PREFIX a"),
        "-ERR Prefix 'ab' overlaps with another provided prefix 'a'. "
        "Prefixes for a single client must not overlap.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT CACHING yes"),
        "-ERR CLIENT CACHING can be called only when the client is in "
        "tracking mode with OPTIN or OPTOUT mode enabled\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT GETREDIR"), ":-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on OPTIN"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT GETREDIR"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on OPTOUT"),
        "-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking "
        "for this client, and then re-enabling it with a different mode."
        "\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on BCAST"),
        "-ERR You can't switch BCAST mode on/off before disabling tracking "
        "for this client, and then re-enabling it with a different mode."
        "\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT CACHING no"),
        "-ERR CLIENT CACHING NO is only valid when tracking is enabled in "
        "OPTOUT mode.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT CACHING maybe"),
        "-ERR syntax error\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT CACHING yes"), "+OK\r\n");
    /* CACHING lasts through the CLIENT commands that follow it (they
     * are all one command in Redis), so it is still there. */
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKINGINFO"),
        "*6\r\n$5\r\nflags\r\n*3\r\n$2\r\non\r\n$5\r\noptin\r\n"
        "$11\r\ncaching-yes\r\n$8\r\nredirect\r\n:0\r\n"
        "$8\r\nprefixes\r\n*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKINGINFO"),
        "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\noptin\r\n"
        "$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING off"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKINGINFO"),
        "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n"
        "$8\r\nprefixes\r\n*0\r\n");
    /* An overlap found past the first prefix is replied and then the
     * tracking is turned on anyway, with a second reply: 7.0.15's bug. */
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on BCAST PREFIX a PREFIX b "
                             "PREFIX bc"),
        "-ERR Prefix 'b' overlaps with another provided prefix 'bc'. "
        "Prefixes for a single client must not overlap.\r\n+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKING on BCAST PREFIX bcd"),
        "-ERR Prefix 'bcd' overlaps with an existing prefix 'b'. "
        "Prefixes for a single client must not overlap.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT TRACKINGINFO"),
        "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n"
        "$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*3\r\n$1\r\na\r\n"
        "$1\r\nb\r\n$2\r\nbc\r\n");
    nodeClose(&n);
}

static void testResp3Invalidation(void) {
    node n;
    nodeOpen(&n, 2, NULL);
    int t = resp3Tracker(&n, "");
    nodeCmd(&n, "SET k v");
    connSend(&n, t, "GET k");
    CHECK_EQ_STR(connRead(&n, t), "$1\r\nv\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET k v2"), "+OK\r\n");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\nk\r\n"));
    /* Told once: the key must be read again to be tracked again. */
    nodeCmd(&n, "SET k v3");
    CHECK_EQ_STR(connRead(&n, t), "");
    /* Its own change: the message comes after the reply. */
    connSend(&n, t, "GET k");
    connSend(&n, t, "APPEND k x");
    CHECK_EQ_STR(connRead(&n, t), "$2\r\nv3\r\n:3\r\n" INV("$1\r\nk\r\n"));
    /* Keys of every database are one table, and a key read is tracked
     * even when the read fails. */
    nodeCmd(&n, "SELECT 3");
    nodeCmd(&n, "LPUSH l a");
    connSend(&n, t, "MGET k l nokey");
    connSend(&n, t, "HGET k f");
    connRead(&n, t);
    nodeCmd(&n, "SET l x");
    nodeCmd(&n, "DEL nokey");
    nodeCmd(&n, "SET nokey 1");
    nodeCmd(&n, "SELECT 0");
    nodeCmd(&n, "DEL k");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\nl\r\n") INV("$5\r\nnokey\r\n")
                                  INV("$1\r\nk\r\n"));
    nodeClose(&n);
}

static void testTransactionsAndScripts(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    int t = resp3Tracker(&n, "");
    nodeCmd(&n, "MSET a 1 b 2");
    connSend(&n, t, "GET a");
    connRead(&n, t);
    connSend(&n, t, "MULTI");
    connSend(&n, t, "INCR a");
    connSend(&n, t, "GET b");
    connSend(&n, t, "EXEC");
    CHECK_EQ_STR(connRead(&n, t), "+OK\r\n+QUEUED\r\n+QUEUED\r\n"
                 "*2\r\n:2\r\n$1\r\n2\r\n" INV("$1\r\na\r\n"));
    /* A script that reads tracks the keys it declares. */
    connSend(&n, t, "EVAL \"return redis.call('get', 'x')\" 2 c d");
    connSend(&n, t, "EVAL \"return redis.call('set', 'x', 1)\" 1 e");
    CHECK_EQ_STR(connRead(&n, t), "_\r\n+OK\r\n");
    nodeCmd(&n, "MSET e 1 d 1 c 1 b 1");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\nd\r\n") INV("$1\r\nc\r\n")
                                  INV("$1\r\nb\r\n"));
    /* NOLOOP: not told of its own changes, scripts' included. */
    connSend(&n, t, "CLIENT TRACKING on NOLOOP");
    connSend(&n, t, "MGET a b");
    connSend(&n, t, "EVAL \"return redis.call('set', KEYS[1], 3)\" 1 a");
    connSend(&n, t, "DEL b");
    CHECK_EQ_STR(connRead(&n, t),
        "+OK\r\n*2\r\n$1\r\n2\r\n$1\r\n1\r\n+OK\r\n:1\r\n");
    nodeClose(&n);
}

static void testRedirect(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    long long rid;
    int r = redirectTarget(&n, &rid);
    int t = connOpen(&n);
    char line[128];
    snprintf(line, sizeof(line), "CLIENT TRACKING on REDIRECT %lld", rid);
    connSend(&n, t, line);
    connSend(&n, t, "CLIENT GETREDIR");
    connSend(&n, t, "GET k");
    char want[128];
    snprintf(want, sizeof(want), "+OK\r\n:%lld\r\n$-1\r\n", rid);
    CHECK_EQ_STR(connRead(&n, t), want);
    nodeCmd(&n, "SET k 1");
    CHECK_EQ_STR(connRead(&n, r), MSG("$1\r\nk\r\n"));
    CHECK_EQ_STR(connRead(&n, t), "");
    /* A flush is a null: forget every key. */
    nodeCmd(&n, "FLUSHDB");
    CHECK_EQ_STR(connRead(&n, r),
        "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n");
    /* The target goes: a RESP2 client cannot be told, a RESP3 one is. */
    connSend(&n, t, "HELLO 3");
    connSend(&n, t, "GET k");
    connRead(&n, t);
    connSend(&n, r, "QUIT");
    nodeCmd(&n, "SET k 2");
    snprintf(want, sizeof(want), ">2\r\n$21\r\ntracking-redir-broken\r\n"
             ":%lld\r\n", rid);
    CHECK_EQ_STR(connRead(&n, t), want);
    connSend(&n, t, "CLIENT TRACKINGINFO");
    snprintf(want, sizeof(want), "%%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n"
             "$15\r\nbroken_redirect\r\n$8\r\nredirect\r\n:%lld\r\n"
             "$8\r\nprefixes\r\n*0\r\n", rid);
    CHECK_EQ_STR(connRead(&n, t), want);
    connSend(&n, t, "CLIENT INFO");
    CHECK(strstr(connRead(&n, t), " flags=tR ") != NULL);
    connSend(&n, t, "CLIENT INFO");
    snprintf(want, sizeof(want), " redir=%lld resp=3", rid);
    CHECK(strstr(connRead(&n, t), want) != NULL);
    nodeClose(&n);
}

static void testOptinOptout(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    int t = resp3Tracker(&n, "OPTIN");
    connSend(&n, t, "GET a");
    connSend(&n, t, "CLIENT CACHING yes");
    connSend(&n, t, "GET b");
    connSend(&n, t, "GET c");
    connRead(&n, t);
    nodeCmd(&n, "MSET a 1 b 1 c 1");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\nb\r\n"));
    /* In a transaction CACHING covers every command of it. */
    connSend(&n, t, "CLIENT CACHING yes");
    connSend(&n, t, "MULTI");
    connSend(&n, t, "GET a");
    connSend(&n, t, "GET c");
    connSend(&n, t, "EXEC");
    connSend(&n, t, "GET b");
    connRead(&n, t);
    nodeCmd(&n, "MSET a 2 b 2 c 2");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\na\r\n") INV("$1\r\nc\r\n"));
    connSend(&n, t, "CLIENT TRACKING off");
    connSend(&n, t, "CLIENT TRACKING on OPTOUT");
    connSend(&n, t, "CLIENT CACHING no");
    connSend(&n, t, "GET a");
    connSend(&n, t, "GET b");
    connRead(&n, t);
    nodeCmd(&n, "MSET a 3 b 3");
    CHECK_EQ_STR(connRead(&n, t), INV("$1\r\nb\r\n"));
    nodeClose(&n);
}

static void testBroadcast(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    int t = resp3Tracker(&n, "BCAST PREFIX user: PREFIX obj:");
    int all = resp3Tracker(&n, "BCAST NOLOOP");
    /* One message per prefix at the end of the loop's iteration, keys
     * in order, each once. */
    nodeRaw(&n, "MULTI\r\nSET user:2 a\r\nSET user:1 a\r\nINCR obj:9\r\n"
                "SET other 1\r\nSET user:2 b\r\nEXEC\r\n",
            strlen("MULTI\r\nSET user:2 a\r\nSET user:1 a\r\nINCR obj:9\r\n"
                   "SET other 1\r\nSET user:2 b\r\nEXEC\r\n"));
    CHECK_EQ_STR(connRead(&n, t),
        ">2\r\n$10\r\ninvalidate\r\n*1\r\n$5\r\nobj:9\r\n"
        ">2\r\n$10\r\ninvalidate\r\n*2\r\n$6\r\nuser:1\r\n$6\r\nuser:2\r\n");
    CHECK_EQ_STR(connRead(&n, all),
        ">2\r\n$10\r\ninvalidate\r\n*4\r\n$5\r\nobj:9\r\n$5\r\nother\r\n"
        "$6\r\nuser:1\r\n$6\r\nuser:2\r\n");
    /* NOLOOP leaves out the keys the client itself changed last. */
    connSend(&n, all, "SET mine 1");
    CHECK_EQ_STR(connRead(&n, all), "+OK\r\n");
    nodeCmd(&n, "INFO stats");
    CHECK(strstr(n.out, "\r\ntracking_total_prefixes:3\r\n") != NULL);
    connSend(&n, t, "CLIENT TRACKING off");
    connRead(&n, t);
    nodeCmd(&n, "INFO");
    CHECK(strstr(n.out, "\r\ntracking_total_prefixes:1\r\n") != NULL);
    CHECK(strstr(n.out, "\r\ntracking_clients:1\r\n") != NULL);
    connSend(&n, all, "CLIENT INFO");
    CHECK(strstr(connRead(&n, all), " flags=tB ") != NULL);
    nodeClose(&n);
}

static void testExpiryEvictionAndLimit(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    int t = resp3Tracker(&n, "");
    nodeCmd(&n, "SET soon v PX 50");
    connSend(&n, t, "GET soon");
    connRead(&n, t);
    nodeRun(&n, 300 * MS);
    CHECK_EQ_STR(connRead(&n, t), INV("$4\r\nsoon\r\n"));
    /* An eviction is a change too. */
    nodeCmd(&n, "SET ev v");
    connSend(&n, t, "GET ev");
    connRead(&n, t);
    nodeCmd(&n, "CONFIG SET maxmemory-policy allkeys-random");
    nodeCmd(&n, "CONFIG SET maxmemory 1");
    nodeCmd(&n, "PING");
    nodeCmd(&n, "CONFIG SET maxmemory 0");
    CHECK_EQ_STR(connRead(&n, t), INV("$2\r\nev\r\n"));
    /* Past tracking-table-max-keys keys are dropped from the table, and
     * their clients told as if they had changed. */
    connSend(&n, t, "MGET k1 k2 k3 k4 k5");
    connRead(&n, t);
    nodeCmd(&n, "INFO stats");
    CHECK(strstr(n.out, "\r\ntracking_total_keys:5\r\n") != NULL);
    CHECK(strstr(n.out, "\r\ntracking_total_items:5\r\n") != NULL);
    nodeCmd(&n, "CONFIG SET tracking-table-max-keys 2");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET tracking-table-max-keys"),
        "*2\r\n$23\r\ntracking-table-max-keys\r\n$1\r\n2\r\n");
    nodeCmd(&n, "PING");
    const char *got = connRead(&n, t);
    int msgs = 0;
    for (const char *p = got; (p = strstr(p, "invalidate")); p++) msgs++;
    CHECK_EQ_INT(msgs, 3);
    nodeCmd(&n, "INFO stats");
    CHECK(strstr(n.out, "\r\ntracking_total_keys:2\r\n") != NULL);
    /* A flush empties the table and tells every tracking client. */
    nodeCmd(&n, "FLUSHALL");
    CHECK_EQ_STR(connRead(&n, t), ">2\r\n$10\r\ninvalidate\r\n_\r\n");
    nodeCmd(&n, "INFO stats");
    CHECK(strstr(n.out, "\r\ntracking_total_keys:0\r\n") != NULL);
    /* The flushing client itself is told after its reply. */
    connSend(&n, t, "FLUSHDB");
    CHECK_EQ_STR(connRead(&n, t), "+OK\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n");
    nodeClose(&n);
}

static void testResetAndGone(void) {
    node n;
    nodeOpen(&n, 8, NULL);
    int t = resp3Tracker(&n, "BCAST");
    int u = resp3Tracker(&n, "");
    nodeCmd(&n, "INFO clients");
    CHECK(strstr(n.out, "\r\ntracking_clients:2\r\n") != NULL);
    connSend(&n, t, "RESET");
    CHECK_EQ_STR(connRead(&n, t), "+RESET\r\n");
    connSend(&n, u, "QUIT");
    nodeCmd(&n, "INFO");
    CHECK(strstr(n.out, "\r\ntracking_clients:0\r\n") != NULL);
    CHECK(strstr(n.out, "\r\ntracking_total_prefixes:0\r\n") != NULL);
    nodeClose(&n);
}

int main(void) {
    RUN("CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO reply as "
        "7.0.15 does, errors and all", testErrors);
    RUN("a RESP3 client is told once of a change to a key it read, after "
        "the reply of its own command", testResp3Invalidation);
    RUN("transactions tell after EXEC's reply, scripts track their "
        "declared keys, NOLOOP is silent about the client's own changes",
        testTransactionsAndScripts);
    RUN("a RESP2 client's messages go to the client it redirects to, as "
        "Pub/Sub messages, until that client goes", testRedirect);
    RUN("OPTIN tracks only after CACHING yes, OPTOUT all but after CACHING "
        "no", testOptinOptout);
    RUN("BCAST tells each prefix's changes once per loop iteration",
        testBroadcast);
    RUN("expiry, eviction, tracking-table-max-keys and flushes invalidate",
        testExpiryEvictionAndLimit);
    RUN("RESET and a closed connection turn tracking off",
        testResetAndGone);
    return gkTestReport();
}
