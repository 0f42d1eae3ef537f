/* Tests of connection administration in the simulated world: CLIENT KILL's
 * two forms, CLIENT PAUSE holding writers on virtual time and freezing
 * expiry, CLIENT REPLY, MONITOR's lines, RESET, AUTH with requirepass, and
 * CONFIG REWRITE's text. The replies that need no second client are
 * compared with redis-server in tests/diff/scripts/clientadmin.redis;
 * tests/server/clientadmin.test.mjs compares the socket-level ones. */
#include "gktest.h"
#include "aofkit.h"
#include "server.h"

/* The id of connection conn, from CLIENT ID. */
static long long connId(node *n, int conn) {
    connSend(n, conn, "CLIENT ID");
    return atoll(connRead(n, conn) + 1);
}

static void testKillForms(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    int a = connOpen(&n), b = connOpen(&n);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "CLIENT KILL ID %lld", connId(&n, a));
    CHECK_EQ_STR(nodeCmd(&n, cmd), ":1\r\n");
    CHECK(!gkConnIsOpen(n.w, a));
    CHECK_EQ_STR(nodeCmd(&n, cmd), ":0\r\n");
    /* The old form names an address and may close the caller itself. */
    const char *line2 = strstr(nodeCmd(&n, "CLIENT LIST"), "\nid=");
    CHECK(line2 && (line2 = strstr(line2 + 1, "\nid=")) != NULL);
    if (!line2) return;
    const char *p = strstr(line2, "addr=") + 5;
    int len = (int)strcspn(p, " ");
    snprintf(cmd, sizeof(cmd), "CLIENT KILL %.*s", len, p);
    CHECK_EQ_STR(nodeCmd(&n, cmd), "+OK\r\n");
    CHECK(!gkConnIsOpen(n.w, b));
    CHECK_EQ_STR(nodeCmd(&n, cmd),
                 "-ERR No such client\r\n");
    /* SKIPME defaults to yes in the filter form. */
    a = connOpen(&n);
    b = connOpen(&n);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT KILL TYPE normal"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    CHECK(!gkConnIsOpen(n.w, a) && !gkConnIsOpen(n.w, b));
    /* The caller itself is closed once its reply is written (what the
     * reply says is checked on a real socket, tests/server). */
    nodeCmd(&n, "CLIENT KILL TYPE normal SKIPME no");
    CHECK(!gkConnIsOpen(n.w, n.conn));
    nodeClose(&n);
}

static void testPauseHoldsWriters(void) {
    node n;
    nodeOpen(&n, 2, NULL);
    int a = connOpen(&n);
    uint64_t t0 = gkWorldNow(n.w);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT PAUSE 500 WRITE"), "+OK\r\n");
    connSend(&n, a, "SET k v\r\nPING");
    CHECK_EQ_STR(connRead(&n, a), "");
    /* Reads go on; the held client shows as blocked, PING unread. */
    CHECK_EQ_STR(nodeCmd(&n, "GET k"), "$-1\r\n");
    const char *list = nodeCmd(&n, "CLIENT LIST");
    CHECK(strstr(list, "flags=b ") != NULL);
    CHECK(strstr(list, "qbuf=6 ") != NULL);
    CHECK(strstr(list, "cmd=set ") != NULL);
    gkWorldRunUntil(n.w, t0 + 490 * MS);
    CHECK_EQ_STR(connRead(&n, a), "");
    /* The pause ends at the first serverCron after its end time. */
    gkWorldRunUntil(n.w, t0 + 620 * MS);
    CHECK_EQ_STR(connRead(&n, a), "+OK\r\n+PONG\r\n");
    /* ALL holds reads too, and CLIENT UNPAUSE itself: both run, in the
     * order they were held, when the time is up. */
    nodeCmd(&n, "CLIENT PAUSE 300 ALL");
    connSend(&n, a, "GET k");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT UNPAUSE"), "");
    CHECK_EQ_STR(connRead(&n, a), "");
    nodeRun(&n, 400 * MS);
    CHECK_EQ_STR(connRead(&n, a), "$1\r\nv\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+OK\r\n+PONG\r\n");
    /* WRITE pauses end at once with CLIENT UNPAUSE. */
    nodeCmd(&n, "CLIENT PAUSE 100000 WRITE");
    connSend(&n, a, "DEL k");
    CHECK_EQ_STR(connRead(&n, a), "");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT UNPAUSE"), "+OK\r\n");
    CHECK_EQ_STR(connRead(&n, a), ":1\r\n");
    nodeClose(&n);
}

static void testPauseFreezesExpiry(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    nodeCmd(&n, "SET k v PX 100");
    nodeCmd(&n, "CLIENT PAUSE 2000 WRITE");
    nodeRun(&n, 500 * MS);
    /* Past its TTL the key reads as gone, yet stays in the keyspace. */
    CHECK_EQ_STR(nodeCmd(&n, "GET k"), "$-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":1\r\n");
    /* RANDOMKEY, drawing only expired keys, gives up after 100 draws. */
    CHECK_EQ_STR(nodeCmd(&n, "RANDOMKEY"), "$1\r\nk\r\n");
    nodeRun(&n, 2000 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":0\r\n");
    nodeClose(&n);
}

static void testReplyModes(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT REPLY OFF"), "");
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT REPLY ON"), "+OK\r\n");
    CHECK_EQ_STR(nodeRaw(&n, "CLIENT REPLY SKIP\r\nPING a\r\nPING b\r\n",
                         36), "$1\r\nb\r\n");
    nodeClose(&n);
}

static void testMonitorLines(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    int m = connOpen(&n);
    connSend(&n, m, "MONITOR");
    CHECK_EQ_STR(connRead(&n, m), "+OK\r\n");
    nodeCmd(&n, "SET k \"a\\x01 b\"");
    nodeCmd(&n, "CLIENT LIST");
    nodeCmd(&n, "AUTH default secret");
    const char *lines = connRead(&n, m);
    /* +<secs>.<usecs> [<db> <addr>] "arg" ... as sdscatrepr quotes. */
    CHECK(lines[0] == '+');
    CHECK(strstr(lines, " [0 127.0.0.1:") != NULL);
    CHECK(strstr(lines, "] \"SET\" \"k\" \"a\\x01 b\"\r\n") != NULL);
    CHECK(strstr(lines, "CLIENT") == NULL);
    CHECK(strstr(lines, "\"AUTH\" \"(redacted)\" \"(redacted)\"") != NULL);
    CHECK(strstr(nodeCmd(&n, "CLIENT LIST"), "flags=O ") != NULL);
    /* MONITOR inside EXEC is refused; RESET ends monitoring. */
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "MONITOR");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*1\r\n-ERR MONITOR isn't allowed "
                 "for DENY BLOCKING client\r\n");
    connSend(&n, m, "RESET");
    connRead(&n, m);
    nodeCmd(&n, "PING");
    CHECK_EQ_STR(connRead(&n, m), "");
    nodeClose(&n);
}

static void testResetAndAuth(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    nodeCmd(&n, "SELECT 3");
    nodeCmd(&n, "CLIENT SETNAME x");
    nodeCmd(&n, "HELLO 3");
    nodeCmd(&n, "MULTI");
    CHECK_EQ_STR(nodeCmd(&n, "RESET"), "+RESET\r\n");
    CHECK(strstr(nodeCmd(&n, "CLIENT INFO"),
                 "name= age=") != NULL);
    CHECK(strstr(n.out, " db=0 ") != NULL && strstr(n.out, "resp=2") &&
          strstr(n.out, "multi=-1"));
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET requirepass s3cret"), "+OK\r\n");
    /* Already authenticated connections stay so, until RESET. */
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    nodeCmd(&n, "RESET");
    CHECK_EQ_STR(nodeCmd(&n, "PING"),
                 "-NOAUTH Authentication required.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "AUTH nope"), "-WRONGPASS invalid "
                 "username-password pair or user is disabled.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "AUTH s3cret"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL LIST"), "*1\r\n$93\r\nuser default on "
        "#1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0"
        " ~* &* +@all\r\n");
    int b = connOpen(&n);
    connSend(&n, b, "HELLO 3 AUTH default s3cret");
    CHECK(connRead(&n, b)[0] == '%');
    nodeClose(&n);
}

/* known(): the engine's directives, and "port" as a host's would be. */
static int _known(void *ctx, const char *name, const char **canon) {
    if (configKnownDirective(name, canon)) return 1;
    *canon = NULL;
    return !strcmp(name, "port");
}

/* A server with the defaults, on memory m, for CONFIG REWRITE's text. */
static void rewriteServer(redisServer *s, gkMem *m) {
    memInit(m, NULL, NULL);
    memset(s, 0, sizeof(*s));
    s->mem = m;
    serverConfigDefaults(&s->cfg);
}

/* The file old rewritten for s, with "port 7000" as the host writes it. */
static sds rewriteText(redisServer *s, const char *old) {
    rewriteState *st = rewriteStateCreate(s->mem, old, strlen(old), 0,
                                          _known, NULL);
    configRewriteEngineOptions(s, st);
    rewriteLine(st, "port", sdsnew(s->mem, "port 7000"), 1);
    return rewriteStateFinish(st);
}

static void testRewriteText(void) {
    gkMem m;
    redisServer s;
    rewriteServer(&s, &m);
    s.cfg.hash_max_listpack_entries = 300;
    s.cfg.maxmemory = 2 * 1024 * 1024;
    s.cfg.save_n = 1;
    s.cfg.save_seconds[0] = 10;
    s.cfg.save_changes[0] = 5;
    sds text = rewriteText(&s, "# mine\nport 7000\n\nhash-max-ziplist-entries "
                           "9\nsave 1 1\nsave 2 2\nbogus 1\nappendonly no\n");
    CHECK_EQ_STR(text, "# mine\nport 7000\n\nhash-max-listpack-entries 300\n"
                 "save 10 5\n\n# ??? bogus 1\nappendonly no\n\n"
                 "# Generated by CONFIG REWRITE\nmaxmemory 2mb\n");
    sdsfree(&m, text);
}

#define SAVES "save 3600 1\nsave 300 100\nsave 60 10000\n"

/* replicaof, as redis-server 7.0.15 rewrites it (checked here, with the
 * default save lines it adds to a file that has none): a
 * replica's slaveof line becomes "replicaof <host> <port>" in its place;
 * a master's is blanked; a replica whose file had none gets one at the
 * end, after the users and the rest. */
static void testRewriteReplicaof(void) {
    gkMem m;
    redisServer s;
    rewriteServer(&s, &m);
    const char *old = "port 7000\nslaveof 127.0.0.1 26999\n";
    s.masterhost = sdsnew(&m, "127.0.0.1");
    s.masterport = 26998;
    sds text = rewriteText(&s, old);
    CHECK_EQ_STR(text, "port 7000\nreplicaof 127.0.0.1 26998\n\n"
                 "# Generated by CONFIG REWRITE\n" SAVES);
    sdsfree(&m, text);
    sdsfree(&m, s.masterhost);
    s.masterhost = NULL;
    text = rewriteText(&s, old);
    CHECK_EQ_STR(text, "port 7000\n\n# Generated by CONFIG REWRITE\n" SAVES);
    sdsfree(&m, text);
    s.masterhost = sdsnew(&m, "127.0.0.1");
    text = rewriteText(&s, "port 7000\n");
    CHECK_EQ_STR(text, "port 7000\n\n# Generated by CONFIG REWRITE\n" SAVES
                 "replicaof 127.0.0.1 26998\n");
    sdsfree(&m, text);
    sdsfree(&m, s.masterhost);
}

/* qbuf + qbuf-free of the calling connection, from CLIENT INFO. */
static long long queryBufferSize(node *n) {
    const char *info = nodeCmd(n, "CLIENT INFO");
    const char *q = strstr(info, " qbuf="), *f = strstr(info, " qbuf-free=");
    return q && f ? atoll(q + 6) + atoll(f + 11) : -1;
}

static void testQueryBufferResize(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    /* A new client's buffer is one read, 16 KB, not twice that, with
     * what jemalloc's 20 KB class leaves spare (16 KB, a 5-byte sds
     * header and the NUL ask for 16390 bytes): redis-server 7.0.15 shows
     * qbuf=26 qbuf-free=20448 for its first command. */
    CHECK_EQ_INT(queryBufferSize(&n), 20474);
    /* Another client, idle for over 2 seconds, is left with none. */
    int b = connOpen(&n);
    connSend(&n, b, "CLIENT SETNAME idler");
    CHECK(strstr(nodeCmd(&n, "CLIENT LIST"),
                 "name=idler age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 "
                 "multi=-1 qbuf=0 qbuf-free=20474 ") != NULL);
    nodeRun(&n, 3500 * MS);
    CHECK(strstr(nodeCmd(&n, "CLIENT LIST"), "qbuf=0 qbuf-free=0 ") !=
          NULL);
    /* A big argument takes its own size; then the buffer is cut to its
     * recent peak at the next checks, though the client is not idle. */
    static char big[4 + 400000 + 64];
    int len = snprintf(big, sizeof(big), "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n"
                       "$400000\r\n");
    memset(big + len, 'A', 400000);
    memcpy(big + len + 400000, "\r\n", 2);
    CHECK_EQ_STR(nodeRaw(&n, big, (size_t)len + 400002), "+OK\r\n");
    CHECK(queryBufferSize(&n) > 400000);
    nodeRun(&n, 300 * MS);
    long long after = queryBufferSize(&n);
    CHECK(after > 0 && after < 32768);
    /* INFO cpu: the virtual CPU the server used, as user time. */
    const char *cpu = nodeCmd(&n, "INFO cpu");
    CHECK(strstr(cpu, "# CPU\r\nused_cpu_sys:0.000000\r\nused_cpu_user:")
          != NULL);
    CHECK(strstr(cpu, "used_cpu_user_main_thread:") != NULL);
    nodeClose(&n);
}

/* An integer field of INFO memory, or -1. */
static long long memoryInfo(node *n, const char *field) {
    char want[64];
    nodeCmd(n, "INFO memory");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

static void testLazyfreeAndBigArgv(void) {
    node n;
    nodeOpen(&n, 8, NULL);
    static char cmd[16 + 5000 * 7];
    /* The same bytes in one argument first, so that the buffers a command
     * of this size needs on its way are there already. */
    memset(cmd, 'x', sizeof(cmd) - 1);
    memcpy(cmd, "ECHO ", 5);
    nodeCmd(&n, cmd);
    /* The commands' first calls, which make their latency histograms
     * (24 KB each, as in Redis). */
    nodeCmd(&n, "SADD warm x");
    nodeCmd(&n, "UNLINK warm");
    memoryInfo(&n, "used_memory");
    nodeRun(&n, 4 * SEC);
    long long before = memoryInfo(&n, "used_memory");
    int len = snprintf(cmd, sizeof(cmd), "SADD s");
    for (int i = 0; i < 5000; i++)
        len += snprintf(cmd + len, sizeof(cmd) - (size_t)len, " m%d", i);
    CHECK_EQ_STR(nodeCmd(&n, cmd), ":5000\r\n");
    CHECK_EQ_INT(memoryInfo(&n, "lazyfree_pending_objects"), 0);
    /* UNLINK hands the set to the lazy free thread. */
    const char *pipe = "UNLINK s\r\nINFO memory\r\n";
    nodeRaw(&n, pipe, strlen(pipe));
    CHECK(strstr(n.out, "\r\nlazyfree_pending_objects:1\r\n") != NULL);
    nodeRun(&n, 100 * MS);
    CHECK_EQ_INT(memoryInfo(&n, "lazyfree_pending_objects"), 0);
    CHECK_EQ_INT(memoryInfo(&n, "lazyfreed_objects"), 1);
    /* Neither the set nor the 5002 arguments' array is held any more
     * (nor, once idle, the query buffer the command needed). */
    nodeRun(&n, 4 * SEC);
    CHECK(memoryInfo(&n, "used_memory") < before + 4096);
    nodeCmd(&n, "CONFIG RESETSTAT");
    CHECK_EQ_INT(memoryInfo(&n, "lazyfreed_objects"), 0);
    nodeClose(&n);
}

int main(void) {
    RUN("CLIENT KILL closes by id, by address (old form, itself included) "
        "and by type, skipping the caller unless SKIPME no",
        testKillForms);
    RUN("CLIENT PAUSE WRITE holds a writer with its input unread until the "
        "pause ends on virtual time; ALL holds reads until UNPAUSE",
        testPauseHoldsWriters);
    RUN("while clients are paused expired keys read as gone but are not "
        "deleted, and RANDOMKEY does not spin on them",
        testPauseFreezesExpiry);
    RUN("CLIENT REPLY OFF silences everything, SKIP the next command only",
        testReplyModes);
    RUN("MONITOR lines quote arguments, redact passwords, hide admin "
        "commands; refused in EXEC, ended by RESET", testMonitorLines);
    RUN("RESET returns a connection to db 0, RESP2, no name, no MULTI; with "
        "requirepass it must AUTH again", testResetAndAuth);
    RUN("CONFIG REWRITE writes a replica's replicaof and drops a master's",
        testRewriteReplicaof);
    RUN("CONFIG REWRITE keeps comments and order, reuses and blanks lines, "
        "comments unknown ones and appends changed parameters once",
        testRewriteText);
    RUN("the query buffer starts at 16 KB, is emptied after 2 idle seconds, "
        "holds a big argument whole and shrinks back to its recent peak; "
        "INFO cpu reports virtual CPU time",
        testQueryBufferResize);
    RUN("UNLINK's lazy free shows in lazyfree_pending_objects then "
        "lazyfreed_objects, and a huge command's argv is not kept",
        testLazyfreeAndBigArgv);
    return gkTestReport();
}
