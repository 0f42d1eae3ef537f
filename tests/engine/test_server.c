/* Tests of the server node through the embedding API: RESP parsing and
 * every protocol error, pipelining, expiry in virtual time, the cron's
 * rehashing, the trace, determinism and the heap limit. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

typedef struct session { gkWorld *w; int srv, conn; char out[1 << 16]; } session;

static void open_(session *s, uint64_t seed) {
    gkConfig cfg = gktConfig(seed);
    gktServerOpen(&cfg, &s->w, &s->srv, &s->conn);
}

/* Sends raw bytes, runs what is due, returns every reply byte. */
static const char *raw(session *s, const char *bytes, size_t len) {
    return gktExchange(s->w, s->conn, bytes, len, s->out, sizeof(s->out));
}

static const char *cmd(session *s, const char *line) {
    return raw(s, line, strlen(line));
}

static void close_(session *s) { gkWorldRelease(s->w); }

static void testPipelinedCommands(void) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(cmd(&s, "PING\r\nPING\r\n*1\r\n$4\r\nPING\r\n"),
                 "+PONG\r\n+PONG\r\n+PONG\r\n");
    CHECK_EQ_STR(cmd(&s, "\r\n*0\r\n*-1\r\nECHO \"a b\"\n"), "$3\r\na b\r\n");
    close_(&s);
}

static void testByteByByte(void) {
    session s;
    open_(&s, 1);
    const char *req = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n";
    for (size_t i = 0; i + 1 < strlen(req); i++)
        CHECK_EQ_STR(raw(&s, req + i, 1), "");
    CHECK_EQ_STR(raw(&s, req + strlen(req) - 1, 1), "+OK\r\n");
    CHECK_EQ_STR(cmd(&s, "GET k\r\n"), "$5\r\nhello\r\n");
    close_(&s);
}

/* Each protocol error replies once and closes the connection. */
static void protoError(const char *in, size_t len, const char *want) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(raw(&s, in, len), want);
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.conn), 0);
    close_(&s);
}

static void testProtocolErrors(void) {
    protoError("SET \"a b\r\n", 10,
               "-ERR Protocol error: unbalanced quotes in request\r\n");
    protoError("*abc\r\n", 6, "-ERR Protocol error: invalid multibulk "
               "length\r\n");
    protoError("*2147483648\r\n", 13, "-ERR Protocol error: invalid "
               "multibulk length\r\n");
    protoError("*1\r\n:1\r\n", 8, "-ERR Protocol error: expected '$', got "
               "':'\r\n");
    protoError("*1\r\n$-1\r\n", 9, "-ERR Protocol error: invalid bulk "
               "length\r\n");
    protoError("*1\r\n$536870913\r\n", 16, "-ERR Protocol error: invalid "
               "bulk length\r\n");
    size_t big = 70000;
    char *buf = malloc(big + 8);
    if (!buf) { CHECK(buf != NULL); return; }
    memset(buf, 'a', big);
    protoError(buf, big, "-ERR Protocol error: too big inline request\r\n");
    buf[0] = '*';
    memset(buf + 1, '1', big - 1);
    protoError(buf, big, "-ERR Protocol error: too big mbulk count "
               "string\r\n");
    memcpy(buf, "*1\r\n$", 5);
    protoError(buf, big, "-ERR Protocol error: too big bulk count "
               "string\r\n");
    free(buf);
}

static void testCommandErrors(void) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(cmd(&s, "FOO a b\r\n"), "-ERR unknown command 'FOO', with "
                 "args beginning with: 'a' 'b' \r\n");
    CHECK_EQ_STR(cmd(&s, "GET\r\n"), "-ERR wrong number of arguments for "
                 "'get' command\r\n");
    CHECK_EQ_STR(cmd(&s, "CONFIG GET\r\n"), "-ERR wrong number of arguments "
                 "for 'config|get' command\r\n");
    CHECK_EQ_STR(cmd(&s, "CONFIG no-such\r\n"), "-ERR unknown subcommand "
                 "'no-such'. Try CONFIG HELP.\r\n");
    CHECK_EQ_STR(cmd(&s, "SET k v\r\nINCR k\r\n"), "+OK\r\n-ERR value is not "
                 "an integer or out of range\r\n");
    CHECK_EQ_STR(cmd(&s, "SCAN abc\r\nSCAN 0 COUNT 0\r\n"), "-ERR invalid "
                 "cursor\r\n-ERR syntax error\r\n");
    close_(&s);
}

static void testLazyExpiryInVirtualTime(void) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(cmd(&s, "SET k v EX 10\r\nTTL k\r\n"), "+OK\r\n:10\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 4500000000ULL);
    CHECK_EQ_STR(cmd(&s, "TTL k\r\nPTTL k\r\n"), ":6\r\n:5500\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 6000000000ULL);
    CHECK_EQ_STR(cmd(&s, "GET k\r\nTTL k\r\n"), "$-1\r\n:-2\r\n");
    close_(&s);
}

/* DEBUG PAUSE-CRON 1 stops the cron's work: keys nobody reads stay past
 * their expiry until it is 0 again. */
static void testPauseCronStopsTheActiveExpiry(void) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(cmd(&s, "DEBUG PAUSE-CRON 1\r\n"), "+OK\r\n");
    CHECK_EQ_STR(cmd(&s, "SET k v PX 100\r\n"), "+OK\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 2000000000ULL);
    CHECK_EQ_STR(cmd(&s, "DBSIZE\r\n"), ":1\r\n");
    CHECK_EQ_STR(cmd(&s, "DEBUG PAUSE-CRON 0\r\n"), "+OK\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 2000000000ULL);
    CHECK_EQ_STR(cmd(&s, "DBSIZE\r\n"), ":0\r\n");
    close_(&s);
}

static void testActiveExpiry(void) {
    session s;
    open_(&s, 1);
    CHECK_EQ_STR(cmd(&s, "DEBUG POPULATE 1000\r\n"), "+OK\r\n");
    char line[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(line, sizeof(line), "PEXPIRE key:%d 100\r\n", i);
        cmd(&s, line);
    }
    CHECK_EQ_STR(cmd(&s, "DBSIZE\r\n"), ":1000\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 5000000000ULL);
    /* Nobody touched the keys: only the active cycle can have removed
     * them. DBSIZE does not look keys up, so it sees what is left. */
    CHECK_EQ_STR(cmd(&s, "DBSIZE\r\n"), ":0\r\n");
    close_(&s);
}

static void testCronFinishesRehash(void) {
    session s;
    open_(&s, 1);
    cmd(&s, "DEBUG POPULATE 5000\r\n");
    cmd(&s, "DEBUG POPULATE 20000 more\r\n");   /* expands: a rehash */
    gkDictInfo info;
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &info);
    CHECK(info.rehashidx == -1 || info.size[1] > 0);
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 2000000000ULL);
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &info);
    CHECK_EQ_INT(info.rehashidx, -1);
    CHECK_EQ_INT(info.size[0], 32768);
    CHECK_EQ_INT(info.used[0], 25000);
    close_(&s);
}

static void testTraceRecordsRehashAndScan(void) {
    session s;
    open_(&s, 1);
    cmd(&s, "CONFIG SET activerehashing no\r\n");
    for (int i = 0; i < 5; i++) {
        char line[32];
        snprintf(line, sizeof(line), "SET k%d v\r\n", i);
        cmd(&s, line);
    }
    gkDictInfo info;
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &info);
    CHECK_EQ_INT(info.size[0], 4);
    CHECK_EQ_INT(info.size[1], 8);
    uint64_t from = gkTraceLastSeq(s.w);
    cmd(&s, "SCAN 0 COUNT 1\r\n");
    gkTraceRecord rec[64];
    size_t n = gkTraceRead(s.w, from, rec, 64);
    int buckets = 0, cmds = 0;
    for (size_t i = 0; i < n; i++) {
        if (rec[i].type == GK_TR_SCAN_BUCKET) buckets++;
        if (rec[i].type == GK_TR_CMD) cmds++;
    }
    CHECK(buckets >= 3);                 /* small bucket + 2 expansions */
    CHECK_EQ_INT(cmds, 1);
    while (gkDictRehashSteps(s.w, s.srv, 0, GK_DICT_KEYS, 1) == 1) { }
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &info);
    CHECK_EQ_INT(info.rehashidx, -1);
    CHECK_EQ_INT(info.size[0], 8);
    close_(&s);
}

static void testSameSeedSameWorld(void) {
    session a, b, c;
    open_(&a, 42);
    open_(&b, 42);
    open_(&c, 43);
    const char *script = "DEBUG POPULATE 300\r\nSCAN 0\r\nRANDOMKEY\r\n";
    char ra[1 << 16];
    strcpy(ra, cmd(&a, script));
    CHECK_EQ_STR(cmd(&b, script), ra);
    CHECK(strcmp(cmd(&c, script), ra) != 0);
    close_(&a);
    close_(&b);
    close_(&c);
}

static void testHeapLimitGivesOom(void) {
    gkConfig cfg = gktConfig(1);
    cfg.heap_limit = 16 * 1024 * 1024;
    session s;
    gktServerOpen(&cfg, &s.w, &s.srv, &s.conn);
    const char *r = cmd(&s, "DEBUG POPULATE 1000000\r\n");
    CHECK_EQ_STR(r, "-OOM command not allowed when used memory > "
                 "'maxmemory'.\r\n");
    CHECK_EQ_STR(cmd(&s, "SET x y\r\n"), "-OOM command not allowed when "
                 "used memory > 'maxmemory'.\r\n");
    CHECK_EQ_STR(cmd(&s, "GET key:0\r\n"), "$7\r\nvalue:0\r\n");
    CHECK_EQ_STR(cmd(&s, "DEL key:0\r\n"), ":1\r\n");
    close_(&s);
}

static void testScanAudit(void) {
    session s;
    open_(&s, 1);
    cmd(&s, "DEBUG POPULATE 2000\r\n");
    CHECK_EQ_INT(gkScanAuditBegin(s.w, s.srv, 0, s.conn), GK_OK);
    char cursor[32] = "0";
    int calls = 0;
    do {
        char line[96];
        snprintf(line, sizeof(line), "SCAN %s COUNT 50\r\nDEBUG POPULATE "
                 "%d extra%d\r\n", cursor, 20, calls);
        const char *r = cmd(&s, line);
        /* "*2\r\n$<n>\r\n<cursor>\r\n..." */
        const char *p = strchr(r + 4, '\n') + 1;
        size_t len = strcspn(p, "\r");
        memcpy(cursor, p, len);
        cursor[len] = '\0';
        calls++;
    } while (strcmp(cursor, "0") != 0 && calls < 1000);
    CHECK_EQ_STR(cursor, "0");
    gkScanAudit a;
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.tracked, 2000);
    CHECK_EQ_INT(a.throughout, 2000);
    CHECK_EQ_INT(a.returned, 2000);
    CHECK_EQ_INT(a.missing, 0);
    CHECK_EQ_INT(a.calls, calls);
    CHECK(a.foreign > 0);                /* keys added during the walk */
    close_(&s);
}

static void testConfigGetAndDictVersion(void) {
    session s;
    open_(&s, 1);
    char buf[32];
    CHECK_EQ_INT(gkServerConfigGet(s.w, s.srv, "hz", buf, sizeof(buf)), GK_OK);
    CHECK_EQ_STR(buf, "10");
    cmd(&s, "CONFIG SET activerehashing no\r\n");
    gkServerConfigGet(s.w, s.srv, "activerehashing", buf, sizeof(buf));
    CHECK_EQ_STR(buf, "no");
    CHECK_EQ_INT(gkServerConfigGet(s.w, s.srv, "nope", buf, sizeof(buf)),
                 GK_ENOTFOUND);
    gkDictInfo a, b;
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &a);
    cmd(&s, "GET missing\r\n");
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &b);
    CHECK(a.version == b.version);
    cmd(&s, "SET k v\r\n");
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &b);
    CHECK(a.version != b.version);
    close_(&s);
}

/* A second connection on the same world. */
static const char *cmd2(session *s, int conn, const char *line) {
    gkConnSend(s->w, conn, line, strlen(line));
    gkWorldRunUntilIdle(s->w);
    size_t n = gkConnRecv(s->w, conn, s->out, sizeof(s->out) - 1);
    s->out[n] = '\0';
    return s->out;
}

static void testWatchAcrossClients(void) {
    session s;
    open_(&s, 1);
    int other;
    gkConnOpen(s.w, s.srv, &other);
    CHECK_EQ_STR(cmd(&s, "SET k 1\r\nWATCH k\r\nMULTI\r\nINCR k\r\n"),
                 "+OK\r\n+OK\r\n+OK\r\n+QUEUED\r\n");
    CHECK_EQ_STR(cmd2(&s, other, "SET k 10\r\n"), "+OK\r\n");
    CHECK_EQ_STR(cmd(&s, "EXEC\r\nGET k\r\n"), "*-1\r\n$2\r\n10\r\n");
    /* Untouched: the transaction runs. */
    CHECK_EQ_STR(cmd(&s, "WATCH k\r\nMULTI\r\nINCR k\r\nEXEC\r\n"),
                 "+OK\r\n+OK\r\n+QUEUED\r\n*1\r\n:11\r\n");
    /* A key that expires after WATCH also aborts. */
    cmd(&s, "SET t 1 PX 50\r\nWATCH t\r\nMULTI\r\nPING\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 100000000ULL);
    CHECK_EQ_STR(cmd(&s, "EXEC\r\n"), "*-1\r\n");
    /* A client closed while watching leaves no dangling watcher. */
    cmd2(&s, other, "WATCH k\r\nMULTI\r\n");
    gkConnClose(s.w, other);
    gkWorldRunUntilIdle(s.w);
    CHECK_EQ_STR(cmd(&s, "SET k 1\r\n"), "+OK\r\n");
    close_(&s);
}

/* Redis 7.0 (checked against redis-server 7.0.15): a key already expired
 * when WATCHed is watched as absent. Deleting it (DEL expires it first
 * and answers 0) or reading it changes nothing; writing it does, even
 * after such a delete. */
static void testWatchOfAnAlreadyExpiredKey(void) {
    static const struct { const char *other, *exec; } cases[] = {
        { "DEL k\r\n", "*1\r\n+PONG\r\n" },
        { "EXISTS k\r\n", "*1\r\n+PONG\r\n" },
        { "", "*1\r\n+PONG\r\n" },
        { "SET k v2\r\n", "*-1\r\n" },
        { "DEL k\r\nSET k v2\r\n", "*-1\r\n" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        session s;
        open_(&s, 1);
        int other;
        gkConnOpen(s.w, s.srv, &other);
        cmd2(&s, other, "SET k v PX 1\r\n");
        gkWorldRunUntil(s.w, gkWorldNow(s.w) + 50000000ULL);
        CHECK_EQ_STR(cmd(&s, "WATCH k\r\n"), "+OK\r\n");
        if (cases[i].other[0]) cmd2(&s, other, cases[i].other);
        char want[64];
        snprintf(want, sizeof(want), "+OK\r\n+QUEUED\r\n%s", cases[i].exec);
        CHECK_EQ_STR(cmd(&s, "MULTI\r\nPING\r\nEXEC\r\n"), want);
        close_(&s);
    }
    /* Live when watched, expired since: a read that deletes it aborts. */
    session s;
    open_(&s, 1);
    int other;
    gkConnOpen(s.w, s.srv, &other);
    cmd(&s, "SET k v PX 100\r\nWATCH k\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 200000000ULL);
    CHECK_EQ_STR(cmd2(&s, other, "EXISTS k\r\n"), ":0\r\n");
    CHECK_EQ_STR(cmd(&s, "MULTI\r\nPING\r\nEXEC\r\n"),
                 "+OK\r\n+QUEUED\r\n*-1\r\n");
    close_(&s);
}

/* Regression: a FLUSHDB of another db cleared the audited db's keys from
 * the audit, so a walk that missed keys would have passed. */
static void testScanAuditIgnoresFlushOfAnotherDb(void) {
    session s;
    open_(&s, 1);
    cmd(&s, "DEBUG POPULATE 100\r\n");
    CHECK_EQ_INT(gkScanAuditBegin(s.w, s.srv, 0, s.conn), GK_OK);
    int other;
    gkConnOpen(s.w, s.srv, &other);
    cmd2(&s, other, "SELECT 1\r\nSET x 1\r\nFLUSHDB\r\n");
    gkScanAudit a;
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.throughout, 100);
    cmd(&s, "FLUSHALL\r\n");
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.throughout, 0);
    close_(&s);
}

static void testResetStatClearsCommandstats(void) {
    session s;
    open_(&s, 1);
    cmd(&s, "SET a 1\r\nGET a\r\nGET\r\nCONFIG RESETSTAT\r\n");
    const char *info = cmd(&s, "INFO commandstats\r\n");
    CHECK(strstr(info, "cmdstat_config|resetstat:calls=1,") != NULL);
    CHECK(strstr(info, "failed_calls=0\r\n") != NULL);
    CHECK(strstr(info, "cmdstat_set:") == NULL);
    CHECK(strstr(info, "cmdstat_get:") == NULL);
    info = cmd(&s, "INFO stats\r\n");
    CHECK(strstr(info, "total_commands_processed:2\r\n") != NULL);
    close_(&s);
}

static void testIntrospectionStatuses(void) {
    session s;
    open_(&s, 1);
    gkDictInfo info;
    uint32_t e[4], f[4];
    CHECK(gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &info) == GK_OK);
    CHECK(gkDictGetInfo(s.w, 99, 0, GK_DICT_KEYS, &info) == GK_ENOTFOUND);
    CHECK_EQ_STR(gkWorldLastError(s.w), "no such server node");
    CHECK(gkDictGetInfo(s.w, s.srv, 16, GK_DICT_KEYS, &info) == GK_ENOTFOUND);
    CHECK(gkDictGetBuckets(s.w, 99, 0, GK_DICT_KEYS, 0, 4, e, f)
          == GK_ENOTFOUND);
    CHECK(gkDictGetBuckets(s.w, s.srv, 0, GK_DICT_KEYS, 2, 4, e, f)
          == GK_EINVAL);
    CHECK(gkDictGetInfo(s.w, s.srv, 0, 7, &info) == GK_EINVAL);
    CHECK(gkDictRehashSteps(s.w, s.srv, 0, GK_DICT_KEYS, 0) == GK_EINVAL);
    CHECK(gkScanAuditEnd(s.w, 99) == GK_ENOTFOUND);
    CHECK(gkScanAuditBegin(s.w, s.srv, 16, s.conn) == GK_ENOTFOUND);
    CHECK_EQ_STR(gkWorldLastError(s.w), "no such database");
    CHECK(gkScanAuditBegin(s.w, s.srv, 0, 999) == GK_ENOTFOUND);
    CHECK_EQ_STR(gkWorldLastError(s.w), "no such connection");
    close_(&s);
}

static void testConnectionIdsReused(void) {
    session s;
    open_(&s, 1);
    size_t before = 0;
    int maxid = 0;
    for (int i = 0; i < 2000; i++) {
        int c;
        gkConnOpen(s.w, s.srv, &c);
        if (c > maxid) maxid = c;
        CHECK_EQ_STR(cmd2(&s, c, "PING\r\n"), "+PONG\r\n");
        gkConnClose(s.w, c);
        gkWorldRunUntilIdle(s.w);
        if (i == 10) before = gkWorldMemory(s.w);
    }
    /* The server frees its end on its next iteration, so at most one
     * closed connection is still waiting for it when the next opens. */
    CHECK(maxid <= 2);
    CHECK_EQ_INT(gkWorldMemory(s.w), before);
    close_(&s);
}

int main(void) {
    RUN("every complete command in one buffer runs, in order",
        testPipelinedCommands);
    RUN("a command split into single bytes runs once its last byte arrives",
        testByteByByte);
    RUN("each protocol error replies Redis's text and closes the connection",
        testProtocolErrors);
    RUN("unknown commands, arity and syntax errors use Redis's strings",
        testCommandErrors);
    RUN("keys expire lazily as virtual time passes", testLazyExpiryInVirtualTime);
    RUN("the active expire cycle removes keys nobody reads", testActiveExpiry);
    RUN("DEBUG PAUSE-CRON stops the active expire cycle until it is 0",
        testPauseCronStopsTheActiveExpiry);
    RUN("serverCron finishes a rehash on an idle server", testCronFinishesRehash);
    RUN("the trace records SCAN buckets and commands; rehash steps can be "
        "driven one by one", testTraceRecordsRehashAndScan);
    RUN("the same seed gives the same world, another seed another",
        testSameSeedSameWorld);
    RUN("past the heap limit memory-growing commands get -OOM",
        testHeapLimitGivesOom);
    RUN("the SCAN audit sees every original key returned while keys are "
        "added", testScanAudit);
    RUN("a FLUSHDB of another db leaves the audited keys present",
        testScanAuditIgnoresFlushOfAnotherDb);
    RUN("configuration can be read back; the dict version moves only when "
        "the table changes", testConfigGetAndDictVersion);
    RUN("a write by another client makes a watching client's EXEC return a "
        "null array", testWatchAcrossClients);
    RUN("a key already expired when watched and then deleted or read "
        "leaves the transaction alone; writing it aborts it",
        testWatchOfAnAlreadyExpiredKey);
    RUN("CONFIG RESETSTAT clears every command's commandstats line",
        testResetStatClearsCommandstats);
    RUN("introspection calls say not found for an unknown node or db and "
        "invalid for a bad argument", testIntrospectionStatuses);
    RUN("closed connections give their id back and leave no memory behind",
        testConnectionIdsReused);
    return gkTestReport();
}
