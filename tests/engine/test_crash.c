/* Property tests of crash and recovery over many seeds and random crash
 * instants. A client numbers its writes (SET k:<i> <i>), in pipelined
 * batches, some inside MULTI/EXEC, and records when each was
 * acknowledged; the machine crashes (kill -9 or power loss) at a random
 * instant, sometimes exactly before a beforeSleep; the server restarts
 * and loads its AOF. Then:
 *   - recovery is a prefix of the command stream: k:0 .. k:m-1, nothing
 *     after;
 *   - always never loses an acknowledged write;
 *   - everysec loses only writes acknowledged in the last ~2 s;
 *   - no loses only what the page cache held: on a process crash
 *     nothing acknowledged, on a power loss only writes acknowledged in
 *     the last ~35 s (30 s dirty expiry, 5 s flusher period). */
#include "gktest.h"
#include "aofkit.h"

#if defined(__SANITIZE_ADDRESS__)
#define SEEDS 6
#else
#define SEEDS 30
#endif

typedef struct crashRun {
    const char *policy;
    const char *disk;
    int kind;                   /* GK_CRASH_* */
    int at_before_sleep;
    uint64_t seed, crash_at;
    uint64_t sent, acked;
    uint64_t *ack_at;           /* per write, 0 if never acknowledged */
    long long recovered;
    int prefix;                 /* recovery was exactly k:0 .. k:m-1 */
} crashRun;

static uint64_t mix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The bytes the replies of a batch take when all of them arrive. */
static size_t batchReplyLen(int b, int multi) {
    char arr[16];
    if (!multi) return (size_t)b * 5;
    return 5 + (size_t)b * 9 + (size_t)snprintf(arr, sizeof(arr), "*%d\r\n",
                                                b) + (size_t)b * 5;
}

/* Sends one batch and records which of its writes were acknowledged. */
static void sendBatch(node *n, crashRun *r, int b, int multi) {
    char cmd[128];
    if (multi) gkConnSend(n->w, n->conn, "MULTI\r\n", 7);
    for (int i = 0; i < b; i++) {
        int len = snprintf(cmd, sizeof(cmd), "SET k:%llu %llu\r\n",
                           (unsigned long long)(r->sent + (uint64_t)i),
                           (unsigned long long)(r->sent + (uint64_t)i));
        gkConnSend(n->w, n->conn, cmd, (size_t)len);
    }
    const char *got = nodeRaw(n, multi ? "EXEC\r\n" : "", multi ? 6 : 0);
    size_t len = strlen(got), want = batchReplyLen(b, multi);
    uint64_t acked = multi ? (len == want ? (uint64_t)b : 0) : len / 5;
    for (uint64_t i = 0; i < (uint64_t)b; i++)
        r->ack_at[r->sent + i] = i < acked ? gkWorldNow(n->w) : 0;
    r->acked += acked;
    r->sent += (uint64_t)b;
}

/* EXISTS over k:from .. k:to-1, in chunks. */
static long long countKeys(node *n, uint64_t from, uint64_t to) {
    long long total = 0;
    for (uint64_t i = from; i < to; i += 500) {
        char *req = malloc(500 * 24 + 16);
        size_t len = (size_t)sprintf(req, "EXISTS");
        for (uint64_t k = i; k < to && k < i + 500; k++)
            len += (size_t)sprintf(req + len, " k:%llu", (unsigned long long)k);
        total += atoll(nodeCmd(n, req) + 1);
        free(req);
    }
    return total;
}

/* One run: load until the crash, restart, inspect. */
static void crashOnce(crashRun *r, uint64_t horizon) {
    node n;
    char conf[96];
    uint64_t x = r->seed;
    snprintf(conf, sizeof(conf), "appendonly yes\nappendfsync %s\n",
             r->policy);
    nodeOpen(&n, r->seed, conf);
    gkDiskSetPreset(n.w, n.srv, r->disk);
    r->crash_at = 50 * MS + mix(&x) % horizon;
    r->at_before_sleep = mix(&x) % 4 == 0;
    gkServerCrashAt(n.w, n.srv, r->crash_at, r->kind,
                    r->at_before_sleep ? GK_CRASH_AT_BEFORE_SLEEP : 0);
    r->ack_at = malloc(sizeof(uint64_t) * 8 * 4096 * 8);
    r->sent = r->acked = 0;
    while (gkServerIsUp(n.w, n.srv) == 1 && r->sent < 8 * 4096 * 8 - 8) {
        sendBatch(&n, r, 1 + (int)(mix(&x) % 8), mix(&x) % 5 == 0);
        nodeRun(&n, mix(&x) % (20 * MS));
    }
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    r->recovered = atoll(nodeCmd(&n, "DBSIZE") + 1);
    r->prefix = countKeys(&n, 0, (uint64_t)r->recovered) == r->recovered;
    nodeClose(&n);
}

/* Acknowledged writes lost, counting only those acknowledged at least
 * `grace` before the crash (those must survive). */
static uint64_t lostOlderThan(const crashRun *r, uint64_t grace) {
    uint64_t lost = 0;
    for (uint64_t i = (uint64_t)r->recovered; i < r->sent; i++)
        if (r->ack_at[i] && r->ack_at[i] + grace <= r->crash_at) lost++;
    return lost;
}

static void property(const char *policy, int kind, uint64_t horizon,
                     uint64_t grace) {
    static const char *disks[] = { "nvme", "ssd", "hdd" };
    int failures = 0;
    for (uint64_t s = 1; s <= SEEDS; s++) {
        crashRun r = { policy, disks[s % 3], kind, 0, s * 7919 + (uint64_t)
                       kind, 0, 0, 0, NULL, 0, 0 };
        crashOnce(&r, horizon);
        CHECK(r.prefix);
        CHECK(r.recovered >= 0 && (uint64_t)r.recovered <= r.sent);
        uint64_t lost = lostOlderThan(&r, grace);
        if (lost && failures++ < 3)
            fprintf(stderr, "  %s/%s kind %d seed %llu crash %.3f s: %llu "
                    "acknowledged writes older than %.1f s lost\n", policy,
                    r.disk, kind, (unsigned long long)r.seed,
                    (double)r.crash_at / 1e9, (unsigned long long)lost,
                    (double)grace / 1e9);
        CHECK_EQ_INT(lost, 0);
        free(r.ack_at);
    }
}

static void testAlwaysNeverLosesAnAcknowledgedWrite(void) {
    property("always", GK_CRASH_PROCESS, 6 * SEC, 0);
    property("always", GK_CRASH_POWER, 6 * SEC, 0);
}

static void testEverysecLosesAtMostTheLastTwoSeconds(void) {
    property("everysec", GK_CRASH_PROCESS, 6 * SEC, 2500 * MS);
    property("everysec", GK_CRASH_POWER, 6 * SEC, 2500 * MS);
}

static void testNoLosesAtMostThePageCache(void) {
    property("no", GK_CRASH_PROCESS, 45 * SEC, 0);
    property("no", GK_CRASH_POWER, 45 * SEC, 36 * SEC);
}

/* everysec does lose recent acknowledged writes on a power loss (the
 * properties above are not vacuous). */
static void testEverysecDoesLoseRecentWritesOnPowerLoss(void) {
    uint64_t total = 0;
    for (uint64_t s = 1; s <= 4; s++) {
        crashRun r = { "everysec", "ssd", GK_CRASH_POWER, 0, s, 0, 0, 0,
                       NULL, 0, 0 };
        crashOnce(&r, 4 * SEC);
        for (uint64_t i = (uint64_t)r.recovered; i < r.sent; i++)
            total += r.ack_at[i] != 0;
        free(r.ack_at);
    }
    CHECK(total > 0);
}

/* The same seed gives the same crash, the same recovery. */
static void testCrashAndRecoveryAreDeterministic(void) {
    crashRun a = { "everysec", "hdd", GK_CRASH_POWER, 0, 42, 0, 0, 0, NULL,
                   0, 0 };
    crashRun b = a;
    crashOnce(&a, 5 * SEC);
    crashOnce(&b, 5 * SEC);
    CHECK_EQ_INT(a.sent, b.sent);
    CHECK_EQ_INT(a.acked, b.acked);
    CHECK_EQ_INT(a.recovered, b.recovered);
    free(a.ack_at);
    free(b.ack_at);
}

/* A pipeline run in one iteration, a crash before its beforeSleep: the
 * commands ran (the trace shows them) but no byte reached the AOF and no
 * client got a reply: after the restart none of them exist. */
static void testCrashBeforeBeforeSleepLosesTheWholeIteration(void) {
    node n;
    char req[64 * 400];
    size_t len = 0;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeRun(&n, 50 * MS);
    for (int i = 0; i < 400; i++)
        len += (size_t)sprintf(req + len, "SET k:%d %d\r\n", i, i);
    uint64_t from = gkTraceLastSeq(n.w);
    gkServerCrashAt(n.w, n.srv, gkWorldNow(n.w), GK_CRASH_PROCESS,
                    GK_CRASH_AT_BEFORE_SLEEP);
    CHECK_EQ_STR(nodeRaw(&n, req, len), "");
    gkTraceRecord rec[4096];
    size_t k = gkTraceRead(n.w, from, rec, 4096), cmds = 0, writes = 0;
    for (size_t i = 0; i < k; i++) {
        cmds += rec[i].type == GK_TR_CMD;
        writes += rec[i].type == GK_TR_AOF && rec[i].a == GK_AOF_WRITE;
    }
    CHECK_EQ_INT(cmds, 400);
    CHECK_EQ_INT(writes, 0);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":0\r\n");
    nodeClose(&n);
}

/* The sequence number of the first GK_AOF_WRITE record after a SET, in
 * a world of the given seed (the same seed gives the same numbers). */
static uint64_t aofWriteSeq(uint64_t seed) {
    node n;
    nodeOpen(&n, seed, "appendonly yes\nappendfsync always\n");
    uint64_t from = gkTraceLastSeq(n.w), seq = 0;
    nodeCmd(&n, "SET a 1");
    gkTraceRecord rec[256];
    size_t k = gkTraceRead(n.w, from, rec, 256);
    for (size_t i = 0; i < k && !seq; i++)
        if (rec[i].type == GK_TR_AOF && rec[i].a == GK_AOF_WRITE)
            seq = rec[i].seq;
    nodeClose(&n);
    return seq;
}

/* A crash between the write of aof_buf and its fsync (always): no reply
 * was sent; a process crash keeps the write (the page cache has it), a
 * power loss does not. */
static void testCrashBetweenWriteAndFsync(void) {
    uint64_t seq = aofWriteSeq(3);
    CHECK(seq > 0);
    for (int kind = 0; kind < 2; kind++) {
        node n;
        nodeOpen(&n, 3, "appendonly yes\nappendfsync always\n");
        gkServerCrashAt(n.w, n.srv, seq, kind, GK_CRASH_AT_TRACE);
        CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "");
        CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
        CHECK_EQ_INT(nodeRestart(&n), GK_OK);
        CHECK_EQ_STR(nodeCmd(&n, "EXISTS a"), kind == GK_CRASH_PROCESS
                     ? ":1\r\n" : ":0\r\n");
        nodeClose(&n);
    }
}

/* gkServerCrashAtEvent finds the record by itself: a crash right after
 * the next write(2) of aof_buf behaves as the crash at its sequence
 * number above, with no sequence number known in advance. */
static void testCrashAtTheNextAofWrite(void) {
    for (int kind = 0; kind < 2; kind++) {
        node n;
        nodeOpen(&n, 5, "appendonly yes\nappendfsync always\n");
        nodeRun(&n, 50 * MS);
        CHECK_EQ_STR(nodeCmd(&n, "SET before 1"), "+OK\r\n");
        CHECK_EQ_INT(gkServerCrashAtEvent(n.w, n.srv, kind, GK_TR_AOF,
                                          GK_AOF_WRITE, -1, 0), GK_OK);
        CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "");
        CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
        CHECK_EQ_INT(nodeRestart(&n), GK_OK);
        CHECK_EQ_STR(nodeCmd(&n, "EXISTS before"), ":1\r\n");
        CHECK_EQ_STR(nodeCmd(&n, "EXISTS a"), kind == GK_CRASH_PROCESS
                     ? ":1\r\n" : ":0\r\n");
        nodeClose(&n);
    }
}

/* everysec: the write was acknowledged, then the power fails while the
 * bio thread's fsync of it runs: the acknowledged write is lost. The
 * main thread notices the record at its next point (the next serverCron
 * at the latest), so the fsync must outlast that: the slow-fsync disk. */
static void testPowerLossDuringTheBackgroundFsync(void) {
    node n;
    nodeOpen(&n, 6, "appendonly yes\nappendfsync everysec\n");
    nodeRun(&n, 50 * MS);
    gkDiskSetPreset(n.w, n.srv, "slow-fsync");
    CHECK_EQ_INT(gkServerCrashAtEvent(n.w, n.srv, GK_CRASH_POWER, GK_TR_BIO,
                                      GK_BIO_AOF_FSYNC, GK_JOB_START, 0),
                 GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    for (int i = 0; i < 40 && gkServerIsUp(n.w, n.srv) == 1; i++)
        nodeRun(&n, 100 * MS);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS a"), ":0\r\n");
    nodeClose(&n);
}

/* SHUTDOWN writes and fsyncs the AOF, then the process exits: no reply,
 * the node is down until restarted, and what was acknowledged under
 * appendfsync no is on the device. While the first AOF is being written
 * it refuses, as 7.0 does. */
static void testShutdownFsyncsAndExits(void) {
    node n;
    nodeOpen(&n, 8, "appendonly yes\nappendfsync no\n");
    nodeRun(&n, 50 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    char *durable = nodeFile(&n, "appendonlydir/appendonly.aof.1.incr.aof",
                             1, NULL);
    CHECK(durable && !strstr(durable, "$1\r\na\r\n"));
    free(durable);
    CHECK_EQ_STR(nodeCmd(&n, "SHUTDOWN"), "");
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK(nodeLogHas(&n, "User requested shutdown..."));
    CHECK(nodeLogHas(&n, "Calling fsync() on the AOF file."));
    CHECK(nodeLogHas(&n, "Redis is now ready to exit, bye bye..."));
    durable = nodeFile(&n, "appendonlydir/appendonly.aof.1.incr.aof", 1,
                       NULL);
    CHECK(durable && strstr(durable, "$1\r\na\r\n$1\r\n1\r\n"));
    free(durable);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    nodeClose(&n);

    nodeOpen(&n, 8, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET appendonly yes"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SHUTDOWN"),
                 "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
    CHECK(nodeLogHas(&n, "Writing initial AOF, can't exit."));
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 1);
    CHECK_EQ_STR(nodeCmd(&n, "SHUTDOWN ABORT"),
                 "-ERR No shutdown in progress.\r\n");
    nodeClose(&n);
}

/* Armed with GK_CRASH_AT_BEFORE_SLEEP on the next command, the crash
 * waits through idle iterations (serverCron's) and stops the iteration
 * that runs the burst before its beforeSleep. */
static void testCrashBeforeTheBeforeSleepOfTheNextBusyIteration(void) {
    node n;
    char req[64 * 100];
    size_t len = 0;
    nodeOpen(&n, 7, "appendonly yes\nappendfsync always\n");
    nodeRun(&n, 50 * MS);
    CHECK_EQ_INT(gkServerCrashAtEvent(n.w, n.srv, GK_CRASH_PROCESS, GK_TR_CMD,
                                      -1, -1, GK_CRASH_AT_BEFORE_SLEEP),
                 GK_OK);
    nodeRun(&n, 1000 * MS);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 1);
    for (int i = 0; i < 100; i++)
        len += (size_t)sprintf(req + len, "SET k:%d %d\r\n", i, i);
    CHECK_EQ_STR(nodeRaw(&n, req, len), "");
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":0\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("appendfsync always never loses an acknowledged write",
        testAlwaysNeverLosesAnAcknowledgedWrite);
    RUN("appendfsync everysec loses at most the last ~2 s of writes",
        testEverysecLosesAtMostTheLastTwoSeconds);
    RUN("appendfsync no loses at most what the page cache held",
        testNoLosesAtMostThePageCache);
    RUN("appendfsync everysec does lose recent writes on a power loss",
        testEverysecDoesLoseRecentWritesOnPowerLoss);
    RUN("a crash and its recovery are a function of the seed",
        testCrashAndRecoveryAreDeterministic);
    RUN("a crash before beforeSleep loses the whole iteration's writes",
        testCrashBeforeBeforeSleepLosesTheWholeIteration);
    RUN("a crash between write and fsync keeps an unacknowledged write "
        "only while the page cache survives", testCrashBetweenWriteAndFsync);
    RUN("a crash armed for the next write of aof_buf happens right after it",
        testCrashAtTheNextAofWrite);
    RUN("a power loss while the background fsync runs loses an "
        "acknowledged write", testPowerLossDuringTheBackgroundFsync);
    RUN("a crash armed for the beforeSleep after the next command skips "
        "idle iterations", testCrashBeforeTheBeforeSleepOfTheNextBusyIteration);
    RUN("SHUTDOWN fsyncs the AOF and the process exits until restarted",
        testShutdownFsyncsAndExits);
    return gkTestReport();
}
