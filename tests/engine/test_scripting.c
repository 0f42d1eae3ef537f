/* Tests of EVAL and functions in the simulated world: what reaches the
 * AOF (a script's effects wrapped in MULTI/EXEC, never the script; what
 * redis.set_repl keeps out; FUNCTION LOAD as sent), functions across a
 * restart and DEBUG RELOAD, the interpreter's memory bound, and scripts
 * that misbehave (deep recursion, huge tables, errors in every place).
 * The replies themselves are compared with redis-server's by
 * tests/diff/scripts/scripting.redis and functions.redis. */
#include "gktest.h"
#include "aofkit.h"
#include "world.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* A script's writes go to the AOF as one transaction; the EVAL does not. */
static void testEffectsReachTheAof(void) {
    node n;
    nodeOpen(&n, 3, "appendonly yes\n");
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"redis.call('set','a','1') "
                             "redis.call('incr','a') return 1\" 0"),
                 ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"return redis.call('set','b','2')\" 0"),
                 "+OK\r\n");
    /* redis.set_repl(redis.REPL_NONE) keeps the next writes out. */
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"redis.set_repl(redis.REPL_NONE) "
                             "redis.call('set','hidden','x') "
                             "redis.set_repl(redis.REPL_ALL) "
                             "redis.call('set','shown','y')\" 0"),
                 "$-1\r\n");
    nodeRun(&n, 2 * SEC);
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f != NULL);
    if (f) {
        CHECK(strstr(f, "EVAL") == NULL && strstr(f, "eval") == NULL);
        CHECK(strstr(f, "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\na\r\n"
                        "$1\r\n1\r\n*2\r\n$4\r\nincr\r\n$1\r\na\r\n"
                        "*1\r\n$4\r\nEXEC\r\n") != NULL);
        /* One write alone is not wrapped. */
        CHECK(strstr(f, "$4\r\nEXEC\r\n*3\r\n$3\r\nset\r\n$1\r\nb\r\n") !=
              NULL);
        CHECK(strstr(f, "hidden") == NULL && strstr(f, "shown") != NULL);
    }
    free(f);
    CHECK_EQ_STR(nodeCmd(&n, "GET hidden"), "$1\r\nx\r\n");
    nodeClose(&n);
}

/* A library is in the AOF as FUNCTION LOAD, and comes back at restart;
 * DEBUG RELOAD keeps it through the RDB. */
static void testFunctionsPersist(void) {
    node n;
    nodeOpen(&n, 5, "appendonly yes\n");
    CHECK_EQ_STR(nodeCmd(&n, "FUNCTION LOAD \"#!lua name=lib\\n"
                             "redis.register_function('f', function(k, a) "
                             "return a[1] end)\""),
                 "$3\r\nlib\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FCALL f 0 hi"), "$2\r\nhi\r\n");
    nodeRun(&n, 2 * SEC);
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f && strstr(f, "FUNCTION") && strstr(f, "LOAD"));
    free(f);
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK(nodeRestart(&n) == GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "FCALL f 0 back"), "$4\r\nback\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FCALL f 0 again"), "$5\r\nagain\r\n");
    /* NOFLUSH loads the RDB over the library that is there: an error,
     * as in Redis; MERGE replaces it. */
    CHECK(strstr(nodeCmd(&n, "DEBUG RELOAD NOFLUSH"),
                 "Error trying to load the RDB") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD NOFLUSH MERGE"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FUNCTION FLUSH"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FCALL f 0 x"), "-ERR Function not found\r\n");
    nodeClose(&n);
}

/* FUNCTION DUMP and RESTORE round trip, and a corrupt payload is refused. */
static void testDumpRestore(void) {
    node n;
    nodeOpen(&n, 9, NULL);
    nodeCmd(&n, "FUNCTION LOAD \"#!lua name=l1\\n"
                "redis.register_function('one', function() return 1 end)\"");
    const char *dump = nodeCmd(&n, "FUNCTION DUMP");
    CHECK(dump[0] == '$');
    /* The payload's bytes, hex-escaped for an inline command. */
    long len = strtol(dump + 1, NULL, 10);
    const char *body = strstr(dump, "\r\n") + 2;
    char cmd[4096];
    int at = snprintf(cmd, sizeof(cmd), "FUNCTION RESTORE \"");
    for (long i = 0; i < len && at < (int)sizeof(cmd) - 16; i++)
        at += snprintf(cmd + at, sizeof(cmd) - (size_t)at, "\\x%02x",
                       (unsigned char)body[i]);
    snprintf(cmd + at, sizeof(cmd) - (size_t)at, "\" REPLACE");
    CHECK_EQ_STR(nodeCmd(&n, "FUNCTION FLUSH"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, cmd), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FCALL one 0"), ":1\r\n");
    /* Appended again without REPLACE: the library is there. */
    cmd[at] = '\0';
    strcat(cmd, "\"");
    CHECK_EQ_STR(nodeCmd(&n, cmd), "-ERR Library l1 already exists\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "FUNCTION RESTORE \"\\x01\\x02\""),
                 "-ERR DUMP payload version or checksum are wrong\r\n");
    nodeClose(&n);
}

/* Scripts that misbehave get errors, and the server goes on. */
static void testMisbehaviour(void) {
    node n;
    nodeOpen(&n, 11, NULL);
    /* Endless recursion: Lua's own stack overflow, caught. */
    CHECK(strstr(nodeCmd(&n, "EVAL \"local function f() return f() + 1 end "
                            "return f()\" 0"), "stack overflow") != NULL);
    /* More memory than the interpreter may have. */
    CHECK(strstr(nodeCmd(&n, "EVAL \"return string.rep('x', 600000000)\" 0"),
                 "not enough memory") != NULL);
    /* A reply nested past what the stack holds. */
    CHECK(nodeCmd(&n, "EVAL \"local t = {} local c = t for i=1,10000 do "
                      "c[1] = {} c = c[1] end return t\" 0")[0] != '\0');
    CHECK(strstr(nodeCmd(&n, "EVAL \"return cjson.decode('[[[[[[[[[[[[[[["
                             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['"
                             ")\" 0"), "-ERR") != NULL);
    CHECK(strstr(nodeCmd(&n, "EVAL \"return cmsgpack.unpack('\\xdd\\xff"
                             "\\xff\\xff\\xff')\" 0"), "-ERR") != NULL);
    /* redis.call from a non-script place. */
    CHECK(strstr(nodeCmd(&n, "FUNCTION LOAD \"#!lua name=x\\n"
                             "redis.register_function('g', function() "
                             "return 1 end)\\nredis.call('ping')\""),
                 "-ERR Error registering functions") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    nodeClose(&n);
}

/* Starts a client program on srv that sends command alone every ms
 * milliseconds, until stopped; returns its id. */
static int _every(gkWorld *w, int srv, const char *command, uint64_t ms) {
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = 0;
    strcpy(sp.command, command);
    sp.interval_ns = ms * 1000000ULL;
    int wl = -1;
    CHECK_EQ_INT(gkWorkloadStart(w, srv, &sp, &wl), GK_OK);
    return wl;
}

/* A script busy past busy-reply-threshold serves the other clients: a
 * client pinging every 100 ms gets -BUSY from then on, its pings before
 * that wait, and the reader's console, which cannot send while the world
 * runs, sees the script stopped at the simulation's time box. */
static void testBusyScriptServesOthers(void) {
    node n;
    nodeOpen(&n, 13, NULL);
    int wl = _every(n.w, n.srv, "PING", 100);
    nodeRun(&n, 50 * 1000000ULL);
    uint64_t from = gkTraceLastSeq(n.w);
    CHECK(strstr(nodeCmd(&n, "EVAL \"while true do end\" 0"),
                 "-ERR Script stopped by the simulation after 7000 ms") ==
          n.out);
    /* The busy script answered the pings of its last 2 s, and only them:
     * the pings of its first 5 s waited and were read as one batch. */
    const char *busy = strstr(nodeCmd(&n, "INFO errorstats"),
                              "errorstat_BUSY:count=");
    CHECK(busy != NULL);
    long count = busy ? strtol(strchr(busy, '=') + 1, NULL, 10) : 0;
    printf("# BUSY replies: %ld\n", count);
    CHECK(count >= 19 && count <= 21);
    CHECK(nodeLogHas(&n, "Slow script detected: still in execution after "
                         "5000 milliseconds"));
    gkWorkloadStats st;
    gkWorkloadGetStats(n.w, wl, &st);
    CHECK(st.lat_max_ns >= 4900 * 1000000ULL);
    CHECK_EQ_INT(st.errors, count);
    /* The trace shows each refusal on the server and each -BUSY reply at
     * the client, with the error's code. */
    static gkTraceRecord rec[1 << 17];
    size_t nrec = gkTraceRead(n.w, from, rec, 1 << 17);
    const int64_t busy_code = ((2 * 37 + 21) * 37 + 19) * 37 + 25; /* BUSY */
    long refused = 0, errors = 0;
    for (size_t i = 0; i < nrec; i++) {
        if (rec[i].type == GK_TR_REFUSED && rec[i].d == busy_code)
            refused++;
        if (rec[i].type == GK_TR_CLIENT && rec[i].a == GK_CL_ERRORS &&
            rec[i].c == 1 && rec[i].d == busy_code)
            errors++;
    }
    CHECK(nrec < (1 << 17));
    CHECK_EQ_INT(refused, count);
    CHECK_EQ_INT(errors, count);
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    nodeClose(&n);
}

/* Another client's SCRIPT KILL reaches a busy script and stops it; the
 * same client's SCRIPT KILL before the script turned busy got -NOTBUSY. */
static void testScriptKilledByAnotherClient(void) {
    node n;
    nodeOpen(&n, 17, NULL);
    _every(n.w, n.srv, "SCRIPT KILL", 1000);
    nodeRun(&n, 100 * 1000000ULL);
    uint64_t t0 = gkWorldNow(n.w);
    CHECK(strstr(nodeCmd(&n, "EVAL \"while true do end\" 0"),
                 "-ERR Script killed by user with SCRIPT KILL...") == n.out);
    uint64_t took = gkWorldNow(n.w) - t0;
    CHECK(took > 5000 * 1000000ULL && took < 6100 * 1000000ULL);
    CHECK(nodeLogHas(&n, "Lua script killed by user with SCRIPT KILL."));
    const char *stats = nodeCmd(&n, "INFO errorstats");
    CHECK(strstr(stats, "errorstat_NOTBUSY:count=") != NULL);
    CHECK(strstr(stats, "errorstat_BUSY:") == NULL);
    nodeClose(&n);
}

/* Two servers busy with scripts at once: while the first lets the world
 * catch up, the second runs and turns busy too; neither is run again
 * from inside the other, and both scripts end at their time box. */
static void testTwoBusyServers(void) {
    gkConfig cfg = gktConfig(19);
    cfg.trace_capacity = 1u << 18;
    gkWorld *w;
    int a, b, ca, cb;
    CHECK_EQ_INT(gktServerOpen(&cfg, &w, &a, &ca), GK_OK);
    CHECK_EQ_INT(gkServerAdd(w, &b), GK_OK);
    CHECK_EQ_INT(gkConnOpen(w, b, &cb), GK_OK);
    /* A client pings the first server, so that its wakes are queued
     * while the second one is busy inside the first one's. */
    int wl = _every(w, a, "PING", 100);
    gkWorldRunUntil(w, gkWorldNow(w) + 50 * 1000000ULL);
    const char *eval = "EVAL \"while true do end\" 0\r\n";
    uint64_t from = gkTraceLastSeq(w);
    gkConnSend(w, ca, eval, strlen(eval));
    gkConnSend(w, cb, eval, strlen(eval));
    gkWorldRunUntilIdle(w);
    gkWorkloadStop(w, wl);
    /* No iteration of either server began inside one of its own. */
    static gkTraceRecord rec[1 << 18];
    size_t nrec = gkTraceRead(w, from, rec, 1 << 18);
    CHECK(nrec > 0 && nrec < (1 << 18));
    int open[2] = { 0, 0 }, nested = 0;
    for (size_t i = 0; i < nrec; i++) {
        if (rec[i].type != GK_TR_LOOP || (rec[i].node != a && rec[i].node != b))
            continue;
        int k = rec[i].node == a ? 0 : 1;
        if (rec[i].a == GK_LOOP_BEGIN) nested += open[k]++ > 0;
        else if (rec[i].a == GK_LOOP_END) open[k]--;
    }
    CHECK_EQ_INT(nested, 0);
    char out[512];
    const char *want = "-ERR Script stopped by the simulation after 7000 ms";
    size_t n = gkConnRecv(w, ca, out, sizeof(out) - 1);
    out[n] = '\0';
    CHECK(strncmp(out, want, strlen(want)) == 0);
    n = gkConnRecv(w, cb, out, sizeof(out) - 1);
    out[n] = '\0';
    CHECK(strncmp(out, want, strlen(want)) == 0);
    CHECK_EQ_STR(gktExchange(w, ca, "PING\r\n", 6, out, sizeof(out)),
                 "+PONG\r\n");
    CHECK_EQ_STR(gktExchange(w, cb, "PING\r\n", 6, out, sizeof(out)),
                 "+PONG\r\n");
    gkWorldRelease(w);
}

/* What a second redis-cli does while the first waits for its script: the
 * host polls the world while the server is held in the busy script, and
 * 1 s after the script turned busy opens a connection of its own and
 * sends PING, then SCRIPT KILL. */
typedef struct {
    int srv, conn, polls, sent;
    uint64_t start, clock_ok;
    char got[256];
    size_t ngot;
} secondCli;

static void _secondPoll(gkWorld *w, void *ctx, uint64_t now) {
    secondCli *cli = ctx;
    cli->polls++;
    cli->clock_ok += gkWorldNow(w) == now;
    if (!cli->sent && now >= cli->start + 6000 * 1000000ULL) {
        CHECK_EQ_INT(gkConnOpen(w, cli->srv, &cli->conn), GK_OK);
        const char *cmds = "PING\r\nSCRIPT KILL\r\n";
        CHECK_EQ_INT(gkConnSend(w, cli->conn, cmds, strlen(cmds)), GK_OK);
        cli->sent = 1;
    }
    if (cli->sent)
        cli->ngot += gkConnRecv(w, cli->conn, cli->got + cli->ngot,
                                sizeof(cli->got) - 1 - cli->ngot);
}

static void testSecondConnectionWhileBusy(void) {
    node n;
    nodeOpen(&n, 23, NULL);
    /* The box is long enough for the second client, and says so. */
    CHECK_EQ_INT(gkServerSetScriptTimeBox(n.w, n.srv, 20000, 1), GK_OK);
    secondCli cli = { .srv = n.srv, .conn = -1, .start = gkWorldNow(n.w) };
    worldSetHostPoll(n.w, _secondPoll, &cli);
    CHECK(strstr(nodeCmd(&n, "EVAL \"while true do end\" 0"),
                 "-ERR Script killed by user with SCRIPT KILL...") == n.out);
    worldSetHostPoll(n.w, NULL, NULL);
    uint64_t took = gkWorldNow(n.w) - cli.start;
    printf("# polls %d, killed after %.3f s\n", cli.polls, took / 1e9);
    CHECK(took > 6000 * 1000000ULL && took < 6200 * 1000000ULL);
    CHECK(cli.polls > 10);
    CHECK_EQ_INT(cli.clock_ok, cli.polls);
    cli.ngot += gkConnRecv(n.w, cli.conn, cli.got + cli.ngot,
                           sizeof(cli.got) - 1 - cli.ngot);
    cli.got[cli.ngot] = '\0';
    CHECK_EQ_STR(cli.got, "-BUSY Redis is busy running a script. You can "
                 "only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n+OK\r\n");
    /* Nobody kills it: the box stops it, and its error names the box. */
    CHECK_EQ_INT(gkServerSetScriptTimeBox(n.w, n.srv, 500, 1), GK_OK);
    CHECK(strstr(nodeCmd(&n, "EVAL \"while true do end\" 0"),
                 "-ERR Script stopped by the simulation after 5500 ms "
                 "(its time box for a busy script)") == n.out);
    CHECK_EQ_INT(gkServerSetScriptTimeBox(n.w, n.srv + 7, 500, 1),
                 GK_ENOTFOUND);
    CHECK_EQ_INT(gkServerSetScriptTimeBox(n.w, n.srv, -1, 1), GK_EINVAL);
    nodeClose(&n);
}

int main(void) {
    RUN("a script's writes reach the AOF as one transaction, and the "
        "script does not", testEffectsReachTheAof);
    RUN("a library survives a restart through the AOF and DEBUG RELOAD "
        "through the RDB", testFunctionsPersist);
    RUN("FUNCTION DUMP restores, and a bad payload is refused",
        testDumpRestore);
    RUN("scripts that misbehave get errors and the server goes on",
        testMisbehaviour);
    RUN("a busy script answers the other clients -BUSY until it is "
        "stopped", testBusyScriptServesOthers);
    RUN("another client's SCRIPT KILL stops a busy script",
        testScriptKilledByAnotherClient);
    RUN("a second connection the host opens while a script is busy is "
        "answered -BUSY, and its SCRIPT KILL stops the script",
        testSecondConnectionWhileBusy);
    RUN("two servers busy with scripts at once each end theirs",
        testTwoBusyServers);
    return gkTestReport();
}
