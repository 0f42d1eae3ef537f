/* The recovery report, case by case: what a restart kept of the writes
 * clients were told succeeded. The regressions are named after what the
 * page's old report (a model of ten commands in TypeScript) got wrong
 * under appendfsync always. test_recovery_property.c checks the report
 * against a brute-force answer on random scripts. */
#include "gktest.h"
#include "aofkit.h"
#include "world.h"
#include "recovery.h"

typedef struct report {
    gkRecoveryInfo info;
    gkRecoveryRow rows[GK_RECOVERY_ROWS_MAX];
    uint32_t n;
} report;

/* A node that follows its acknowledged writes, past its startup. */
static void openFollowing(node *n, uint64_t seed, const char *conf) {
    nodeOpen(n, seed, conf);
    CHECK_EQ_INT(gkServerRecoveryFollow(n->w, n->srv, 1), GK_OK);
    nodeRun(n, 50 * MS);
}

/* Reads the node's report into r. */
static void readReport(node *n, report *r) {
    CHECK_EQ_INT(gkServerRecoveryInfo(n->w, n->srv, &r->info), GK_OK);
    CHECK_EQ_INT(gkServerRecoveryRows(n->w, n->srv, 0, r->rows,
                                      GK_RECOVERY_ROWS_MAX, &r->n), GK_OK);
    CHECK_EQ_INT(r->n, r->info.rows);
}

/* Crashes the node now, restarts it and reads the report. */
static void crashRestart(node *n, int kind, report *r) {
    CHECK_EQ_INT(gkServerCrash(n->w, n->srv, kind), GK_OK);
    CHECK_EQ_INT(nodeRestart(n), GK_OK);
    readReport(n, r);
    CHECK_EQ_INT(r->info.ready, 1);
}

static const gkRecoveryRow *rowOf(const report *r, int db, const char *key) {
    for (uint32_t i = 0; i < r->n; i++)
        if (r->rows[i].db == db && !strcmp(r->rows[i].key, key))
            return &r->rows[i];
    return NULL;
}

/* Checks that key's row says outcome, acked and found ("" when absent). */
static void expectRow(const report *r, int db, const char *key, int outcome,
                      const char *acked, const char *found) {
    const gkRecoveryRow *row = rowOf(r, db, key);
    CHECK(row != NULL);
    if (!row) {
        fprintf(stderr, "  no row for [%d] %s\n", db, key);
        return;
    }
    CHECK_EQ_INT(row->outcome, outcome);
    CHECK_EQ_STR(row->acked, acked);
    CHECK_EQ_STR(row->found, found);
    CHECK_EQ_INT(row->acked_present, acked[0] != 0);
    CHECK_EQ_INT(row->found_present, found[0] != 0);
}

/* Runs a script of inline commands (each must get the reply given, or
 * any reply for NULL) under appendfsync always, then for a kill -9 and a
 * power loss, checks that nothing acknowledged was lost; returns the
 * report of the power loss. */
static void underAlways(const char *const *script, report *r) {
    for (int kind = 0; kind < 2; kind++) {
        node n;
        openFollowing(&n, 11, "appendonly yes\nappendfsync always\n");
        for (int i = 0; script[i]; i += 2) {
            const char *got = nodeCmd(&n, script[i]);
            if (script[i + 1]) CHECK_EQ_STR(got, script[i + 1]);
        }
        crashRestart(&n, kind, r);
        CHECK_EQ_INT(r->info.lost, 0);
        CHECK_EQ_INT(r->info.older, 0);
        CHECK_EQ_INT(r->info.newer, 0);
        nodeClose(&n);
    }
}

/* ---- What the old report got wrong under always. ---- */

static void testRenameUnderAlwaysIsNotLost(void) {
    static const char *const script[] = {
        "SET a 1", "+OK\r\n", "RENAME a b", "+OK\r\n",
        "SET c 3", "+OK\r\n", "RENAME c b", "+OK\r\n", NULL };
    report r;
    underAlways(script, &r);
    CHECK_EQ_INT(r.info.keys, 3);
    expectRow(&r, 0, "b", GK_RECOVERY_KEPT, "3", "3");
    CHECK_EQ_STR(rowOf(&r, 0, "b")->command, "RENAME");
    CHECK_EQ_INT(rowOf(&r, 0, "b")->writes, 2);
    /* The old names: their last acknowledged write deleted them. */
    expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "", "");
    expectRow(&r, 0, "c", GK_RECOVERY_KEPT, "", "");
    CHECK_EQ_INT(rowOf(&r, 0, "c")->writes, 2);
}

static void testExpireUnderAlwaysIsNotLost(void) {
    static const char *const script[] = {
        "SET long v", "+OK\r\n", "EXPIRE long 7200", ":1\r\n",
        "SET short v", "+OK\r\n", "EXPIRE short 60", ":1\r\n",
        "SET past v", "+OK\r\n", "PEXPIRE past -1", ":1\r\n",
        "SET kept v", "+OK\r\n", "EXPIRE kept 60", ":1\r\n",
        "PERSIST kept", ":1\r\n", NULL };
    report r;
    underAlways(script, &r);
    /* short expires before the cutoff: absent on both sides, as past. */
    CHECK_EQ_INT(r.info.keys, 4);
    expectRow(&r, 0, "long", GK_RECOVERY_KEPT, "v", "v");
    const gkRecoveryRow *row = rowOf(&r, 0, "long");
    CHECK(row && row->acked_expire > 0);
    CHECK(row && row->acked_expire == row->found_expire);
    CHECK(row && row->acked_expire >= 1767225600000LL + 7200 * 1000LL);
    expectRow(&r, 0, "kept", GK_RECOVERY_KEPT, "v", "v");
    CHECK(rowOf(&r, 0, "kept")->acked_expire == -1);
    expectRow(&r, 0, "short", GK_RECOVERY_KEPT, "", "");
    expectRow(&r, 0, "past", GK_RECOVERY_KEPT, "", "");
    CHECK_EQ_STR(rowOf(&r, 0, "past")->command, "PEXPIRE");
}

static void testSetGetUnderAlwaysIsNotLost(void) {
    static const char *const script[] = {
        "SET g old", "+OK\r\n", "SET g new GET", "$3\r\nold\r\n",
        "SET h v NX", "+OK\r\n", "SET h w NX GET", "$1\r\nv\r\n", NULL };
    report r;
    underAlways(script, &r);
    expectRow(&r, 0, "g", GK_RECOVERY_KEPT, "new", "new");
    expectRow(&r, 0, "h", GK_RECOVERY_KEPT, "v", "v");
}

static void testAppendUnderAlwaysIsNotLost(void) {
    static const char *const script[] = {
        "SET a x", "+OK\r\n", "APPEND a yz", ":3\r\n",
        "APPEND fresh new", ":3\r\n", "INCR n", ":1\r\n",
        "APPEND n 0", ":2\r\n", NULL };
    report r;
    underAlways(script, &r);
    expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "xyz", "xyz");
    expectRow(&r, 0, "fresh", GK_RECOVERY_KEPT, "new", "new");
    expectRow(&r, 0, "n", GK_RECOVERY_KEPT, "10", "10");
}

static void testFlushallInAnotherDbUnderAlwaysIsNotLost(void) {
    static const char *const script[] = {
        "SET zero 0", "+OK\r\n", "SELECT 1", "+OK\r\n", "SET one 1", "+OK\r\n",
        "SELECT 2", "+OK\r\n", "FLUSHALL", "+OK\r\n", "SET two 2", "+OK\r\n",
        "SELECT 3", "+OK\r\n", "SET three 3", "+OK\r\n", "SELECT 2", "+OK\r\n",
        "FLUSHDB", "+OK\r\n", "SET after 4", "+OK\r\n", NULL };
    report r;
    underAlways(script, &r);
    CHECK_EQ_INT(r.info.keys, 2);
    expectRow(&r, 3, "three", GK_RECOVERY_KEPT, "3", "3");
    expectRow(&r, 2, "after", GK_RECOVERY_KEPT, "4", "4");
    CHECK(rowOf(&r, 0, "zero") == NULL);
    CHECK(rowOf(&r, 1, "one") == NULL);
    CHECK(rowOf(&r, 2, "two") == NULL);
}

/* FLUSHALL ASYNC and FLUSHDB ASYNC reach the ledger's shadow server as
 * they were sent. The shadow has no threads to hand the old dicts to, so
 * it frees them at once (it called the lazy-free thread's missing job
 * queue, a crash in WebAssembly). */
static void testAsyncFlushesAreFollowed(void) {
    static const char *const script[] = {
        "SET a 1", "+OK\r\n", "SADD s x y z", ":3\r\n",
        "FLUSHALL ASYNC", "+OK\r\n", "SET b 2", "+OK\r\n",
        "SELECT 1", "+OK\r\n", "SET c 3", "+OK\r\n",
        "FLUSHDB ASYNC", "+OK\r\n", "SET d 4", "+OK\r\n", NULL };
    report r;
    underAlways(script, &r);
    CHECK_EQ_INT(r.info.keys, 2);
    expectRow(&r, 0, "b", GK_RECOVERY_KEPT, "2", "2");
    expectRow(&r, 1, "d", GK_RECOVERY_KEPT, "4", "4");
    CHECK(rowOf(&r, 0, "a") == NULL);
    CHECK(rowOf(&r, 1, "c") == NULL);
}

/* ---- What is acknowledged, what is lost. ---- */

/* always: a crash between the AOF's write and the replies. The write
 * reached the page cache but no client was told: after a kill -9 the
 * restart holds it (newer, not lost); after a power loss it does not
 * (and the acknowledged value is kept). */
static void testAnUnacknowledgedWriteOnFileIsNewer(void) {
    for (int kind = 0; kind < 2; kind++) {
        node n;
        report r;
        openFollowing(&n, 5, "appendonly yes\nappendfsync always\n");
        CHECK_EQ_STR(nodeCmd(&n, "SET a old"), "+OK\r\n");
        CHECK_EQ_INT(gkServerCrashAtEvent(n.w, n.srv, kind, GK_TR_AOF,
                                          GK_AOF_WRITE, -1, 0), GK_OK);
        CHECK_EQ_STR(nodeCmd(&n, "SET a new"), "");
        CHECK_EQ_INT(nodeRestart(&n), GK_OK);
        readReport(&n, &r);
        CHECK_EQ_INT(r.info.writes, 1);
        CHECK_EQ_INT(r.info.unacked, 1);
        CHECK_EQ_INT(r.info.lost + r.info.older, 0);
        if (kind == GK_CRASH_PROCESS)
            expectRow(&r, 0, "a", GK_RECOVERY_NEWER, "old", "new");
        else
            expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "old", "old");
        nodeClose(&n);
    }
}

/* A pipeline run in one iteration and crashed before its beforeSleep:
 * every command ran, none was acknowledged, none is lost. */
static void testAPipelineCrashedBeforeItsRepliesIsNotAcknowledged(void) {
    node n;
    report r;
    char req[64 * 100];
    size_t len = 0;
    openFollowing(&n, 7, "appendonly yes\nappendfsync everysec\n");
    for (int i = 0; i < 100; i++)
        len += (size_t)sprintf(req + len, "SET k:%d %d\r\n", i, i);
    gkServerCrashAt(n.w, n.srv, gkWorldNow(n.w), GK_CRASH_POWER,
                    GK_CRASH_AT_BEFORE_SLEEP);
    CHECK_EQ_STR(nodeRaw(&n, req, len), "");
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    readReport(&n, &r);
    CHECK_EQ_INT(r.info.units, 100);
    CHECK_EQ_INT(r.info.unacked, 100);
    CHECK_EQ_INT(r.info.writes, 0);
    CHECK_EQ_INT(r.info.keys, 0);
    CHECK_EQ_INT(r.info.units_restored, 0);
    nodeClose(&n);
}

/* everysec, power loss: a write made after the second's fsync was
 * acknowledged and is lost; the one before it is kept. */
static void testEverysecLosesTheWritesOfTheLastSecond(void) {
    node n;
    report r;
    openFollowing(&n, 3, "appendonly yes\nappendfsync everysec\n");
    nodeRun(&n, 1200 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    nodeRun(&n, 100 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "HSET b f v"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 2"), "+OK\r\n");
    crashRestart(&n, GK_CRASH_POWER, &r);
    CHECK_EQ_INT(r.info.keys, 2);
    CHECK_EQ_INT(r.info.lost, 1);
    CHECK_EQ_INT(r.info.older, 1);
    CHECK_EQ_INT(r.info.writes, 3);
    CHECK_EQ_INT(r.info.units_restored, 1);
    expectRow(&r, 0, "a", GK_RECOVERY_OLDER, "2", "1");
    expectRow(&r, 0, "b", GK_RECOVERY_LOST, "{f: v}", "");
    CHECK_EQ_STR(rowOf(&r, 0, "b")->command, "HSET");
    /* The lost and older keys come first, the latest acknowledged first. */
    CHECK(r.rows[0].outcome == GK_RECOVERY_LOST);
    CHECK(r.rows[0].acked_at > 0);
    nodeClose(&n);
}

/* A transaction is acknowledged by EXEC's reply, as one write. */
static void testATransactionIsAcknowledgedByExec(void) {
    node n;
    report r;
    openFollowing(&n, 4, "appendonly yes\nappendfsync everysec\n");
    nodeRun(&n, 1200 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "SET warm 1"), "+OK\r\n");
    nodeRun(&n, 100 * MS);
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "SET t 1");
    nodeCmd(&n, "SADD s x y");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*2\r\n+OK\r\n:2\r\n");
    crashRestart(&n, GK_CRASH_POWER, &r);
    CHECK_EQ_INT(r.info.writes, 3);
    CHECK_EQ_INT(r.info.units, 2);
    expectRow(&r, 0, "t", GK_RECOVERY_LOST, "1", "");
    expectRow(&r, 0, "s", GK_RECOVERY_LOST, "{x, y}", "");
    CHECK_EQ_STR(rowOf(&r, 0, "s")->command, "EXEC");
    CHECK_EQ_INT(rowOf(&r, 0, "t")->acked_at, rowOf(&r, 0, "s")->acked_at);
    expectRow(&r, 0, "warm", GK_RECOVERY_KEPT, "1", "1");
    nodeClose(&n);
}

/* With the AOF off nothing reaches the disk: a restart holds nothing. */
static void testWithTheAofOffEveryAcknowledgedKeyIsLost(void) {
    node n;
    report r;
    openFollowing(&n, 8, "appendonly no\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZADD z 1 m"), ":1\r\n");
    crashRestart(&n, GK_CRASH_PROCESS, &r);
    CHECK_EQ_INT(r.info.lost, 2);
    CHECK_EQ_INT(r.info.dbsize, 0);
    expectRow(&r, 0, "z", GK_RECOVERY_LOST, "{m: 1}", "");
    nodeClose(&n);
}

/* After a restart the dataset it loaded counts as acknowledged: a second
 * crash compares with it, its keys carried with no write since. */
static void testASecondCrashComparesWithWhatTheRestartHeld(void) {
    node n;
    report r;
    openFollowing(&n, 9, "appendonly yes\nappendfsync always\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    crashRestart(&n, GK_CRASH_PROCESS, &r);
    expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "1", "1");
    CHECK_EQ_INT(nodeCmd(&n, "SET b 2")[0], '+');
    crashRestart(&n, GK_CRASH_POWER, &r);
    CHECK_EQ_INT(r.info.keys, 2);
    CHECK_EQ_INT(r.info.carried, 1);
    expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "1", "1");
    CHECK_EQ_INT(rowOf(&r, 0, "a")->writes, 0);
    expectRow(&r, 0, "b", GK_RECOVERY_KEPT, "2", "2");
    nodeClose(&n);
}

/* appendfsync no: a kill -9 loses nothing, the restart reads the page
 * cache; a power loss after it takes what the page cache held, which the
 * second process never wrote but had loaded: it counts as lost. */
static void testAPowerLossAfterARestartLosesWhatItLoaded(void) {
    node n;
    report r;
    openFollowing(&n, 10, "appendonly yes\nappendfsync no\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    crashRestart(&n, GK_CRASH_PROCESS, &r);
    expectRow(&r, 0, "a", GK_RECOVERY_KEPT, "1", "1");
    crashRestart(&n, GK_CRASH_POWER, &r);
    expectRow(&r, 0, "a", GK_RECOVERY_LOST, "1", "");
    CHECK_EQ_INT(rowOf(&r, 0, "a")->writes, 0);
    CHECK_EQ_INT(r.info.units_restored, 0);
    nodeClose(&n);
}

/* Following can start on a running node: what it holds then counts as
 * acknowledged. */
static void testFollowingStartedLateTakesTheDatasetAsItIs(void) {
    node n;
    report r;
    gkRecoveryInfo in;
    nodeOpen(&n, 12, "appendonly yes\nappendfsync always\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET before 1"), "+OK\r\n");
    CHECK_EQ_INT(gkServerRecoveryFollow(n.w, n.srv, 1), GK_OK);
    gkServerRecoveryInfo(n.w, n.srv, &in);
    CHECK_EQ_INT(in.following, 1);
    CHECK_EQ_INT(in.ready, 0);
    CHECK(in.ledger_bytes > 0);
    CHECK_EQ_INT(in.acked_now, 0);
    CHECK_EQ_INT(in.keys_now, 1);
    CHECK_EQ_STR(nodeCmd(&n, "SET after 2"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET after 3"), "+OK\r\n");
    gkServerRecoveryInfo(n.w, n.srv, &in);
    CHECK_EQ_INT(in.acked_now, 2);
    CHECK_EQ_INT(in.keys_now, 2);
    /* Down, the counts are the dead process's. */
    CHECK_EQ_INT(gkServerCrash(n.w, n.srv, GK_CRASH_POWER), GK_OK);
    gkServerRecoveryInfo(n.w, n.srv, &in);
    CHECK_EQ_INT(in.following, 0);
    CHECK_EQ_INT(in.acked_now, 2);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    readReport(&n, &r);
    expectRow(&r, 0, "before", GK_RECOVERY_KEPT, "1", "1");
    expectRow(&r, 0, "after", GK_RECOVERY_KEPT, "3", "3");
    CHECK_EQ_INT(r.info.carried, 1);
    CHECK_EQ_INT(r.info.writes, 2);
    CHECK_EQ_INT(r.info.acked_now, 0);
    CHECK_EQ_INT(r.info.following, 1);
    CHECK_EQ_INT(gkServerRecoveryFollow(n.w, n.srv, 0), GK_OK);
    gkServerRecoveryInfo(n.w, n.srv, &in);
    CHECK_EQ_INT(in.following, 0);
    CHECK_EQ_INT(in.ready, 1);
    CHECK_EQ_INT(gkServerRecoveryFollow(n.w, 99, 1), GK_ENOTFOUND);
    nodeClose(&n);
}

/* ---- The rows. ---- */

#define X50 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

/* Every type is summarized (a list in its order, the others sorted);
 * control bytes are escaped, long values cut. */
static void testRowsSummarizeEveryType(void) {
    static const char *const script[] = {
        "HSET h g w f v", ":2\r\n", "SADD s b a 10", ":3\r\n",
        "ZADD z 2 n 1.5 m", ":2\r\n", "RPUSH l b a 10", ":3\r\n",
        "LPUSH l c", ":4\r\n", "LMPOP 1 l RIGHT",
        "*2\r\n$1\r\nl\r\n*1\r\n$2\r\n10\r\n",
        "SET bin \"x\\ny\\\\\"", "+OK\r\n",
        "SET big " X50 X50 X50 "xxxxxxxxxxxxxxxxxxxx", "+OK\r\n", NULL };
    report r;
    underAlways(script, &r);
    expectRow(&r, 0, "h", GK_RECOVERY_KEPT, "{f: v, g: w}", "{f: v, g: w}");
    expectRow(&r, 0, "s", GK_RECOVERY_KEPT, "{10, a, b}", "{10, a, b}");
    expectRow(&r, 0, "z", GK_RECOVERY_KEPT, "{m: 1.5, n: 2}",
              "{m: 1.5, n: 2}");
    expectRow(&r, 0, "l", GK_RECOVERY_KEPT, "[c, b, a]", "[c, b, a]");
    expectRow(&r, 0, "bin", GK_RECOVERY_KEPT, "x\\x0ay\\\\", "x\\x0ay\\\\");
    const gkRecoveryRow *big = rowOf(&r, 0, "big");
    CHECK(big != NULL);
    CHECK_EQ_INT(big->acked_size, 170);
    CHECK_EQ_INT(big->found_size, 170);
    CHECK(strlen(big->acked) < sizeof(big->acked));
    CHECK(!strcmp(big->acked + strlen(big->acked) - 3, "..."));
    CHECK_EQ_INT(rowOf(&r, 0, "s")->acked_size, 3);
}

/* A report keeps GK_RECOVERY_ROWS_MAX rows, the lost first; its counts
 * cover every key. */
static void testAReportKeepsTheMostTellingRows(void) {
    node n;
    report *r = malloc(sizeof(*r));
    char req[40 * 900];
    size_t len = 0;
    openFollowing(&n, 13, "appendonly yes\nappendfsync everysec\n");
    for (int i = 0; i < 600; i++)
        len += (size_t)sprintf(req + len, "SET old:%d %d\r\n", i, i);
    nodeRaw(&n, req, len);
    nodeRun(&n, 2100 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "SET warm 1"), "+OK\r\n");
    nodeRun(&n, 100 * MS);
    len = 0;
    for (int i = 0; i < 900; i++)
        len += (size_t)sprintf(req + len, "SET new:%d %d\r\n", i, i);
    nodeRaw(&n, req, len);
    crashRestart(&n, GK_CRASH_POWER, r);
    CHECK_EQ_INT(r->info.keys, 1501);
    CHECK_EQ_INT(r->info.lost, 900);
    CHECK_EQ_INT(r->info.kept, 601);
    CHECK_EQ_INT(r->n, GK_RECOVERY_ROWS_MAX);
    int order = 1;
    for (uint32_t i = 0; i < r->n; i++) {
        int lost = r->rows[i].outcome == GK_RECOVERY_LOST;
        if (lost != (i < 900)) order = 0;
        if (i && r->rows[i].outcome == r->rows[i - 1].outcome &&
            r->rows[i].acked_at > r->rows[i - 1].acked_at) order = 0;
    }
    CHECK(order);
    CHECK_EQ_STR(r->rows[900].key, "warm");
    gkRecoveryRow tail[8];
    uint32_t got;
    gkServerRecoveryRows(n.w, n.srv, GK_RECOVERY_ROWS_MAX - 2, tail, 8, &got);
    CHECK_EQ_INT(got, 2);
    CHECK(!memcmp(&tail[1], &r->rows[GK_RECOVERY_ROWS_MAX - 1],
                  sizeof(tail[1])));
    free(r);
    nodeClose(&n);
}

/* ---- The ledger itself. ---- */

/* A script with every kind of crash point, run with and without the
 * ledger: the worlds end the same (digest, datasets, logs). */
static uint64_t scriptedWorld(int follow, report *r) {
    node n;
    nodeOpen(&n, 21, "appendonly yes\nappendfsync everysec\n");
    if (follow) gkServerRecoveryFollow(n.w, n.srv, 1);
    for (int round = 0; round < 3; round++) {
        char cmd[64];
        for (int i = 0; i < 40; i++) {
            sprintf(cmd, "SET k:%d %d", i % 7, round * 100 + i);
            nodeCmd(&n, cmd);
            sprintf(cmd, "HINCRBY h f%d %d", i % 3, i);
            nodeCmd(&n, cmd);
            nodeRun(&n, 37 * MS);
        }
        nodeCmd(&n, "BGREWRITEAOF");
        nodeRun(&n, 5 * MS);
        nodeCmd(&n, "SADD s a b c");
        gkServerCrashAtEvent(n.w, n.srv, round == 1 ? GK_CRASH_POWER
                             : GK_CRASH_PROCESS, GK_TR_AOF, GK_AOF_WRITE,
                             -1, 0);
        nodeCmd(&n, "DEL k:1");
        nodeRestart(&n);
    }
    uint64_t d;
    gkWorldDigest(n.w, &d);
    if (r) readReport(&n, r);
    nodeClose(&n);
    return d;
}

static void testTheLedgerChangesNothingItWatches(void) {
    report *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    CHECK(scriptedWorld(0, NULL) == scriptedWorld(1, a));
    CHECK(scriptedWorld(1, b) == scriptedWorld(1, NULL));
    CHECK(!memcmp(&a->info, &b->info, sizeof(a->info)));
    CHECK_EQ_INT(a->n, b->n);
    CHECK(!memcmp(a->rows, b->rows, sizeof(gkRecoveryRow) * a->n));
    CHECK(a->info.keys > 0);
    free(a);
    free(b);
}

/* Past half the node's heap limit the ledger stops and lets its memory
 * go; the report then says so and has no rows. */
static void testTheLedgerStopsPastTheHeapLimit(void) {
    node n;
    gkConfig cfg = gktConfig(14);
    cfg.heap_limit = 8 * 1024 * 1024;     /* the whole world's memory */
    cfg.trace_capacity = 1024;
    gkWorldCreate(&n.w, &cfg, NULL, NULL);
    gkServerAddConfig(n.w, "appendonly no\n", &n.srv);
    gkConnOpen(n.w, n.srv, &n.conn);
    gkServerRecoveryFollow(n.w, n.srv, 1);
    static char req[40000];
    int oom = 0;
    for (int i = 0; i < 400 && !oom; i++) {
        int len = sprintf(req, "SET k:%d ", i);
        memset(req + len, 'x', 32000);
        memcpy(req + len + 32000, "\r\n", 3);
        oom = !strncmp(nodeRaw(&n, req, (size_t)len + 32002), "-OOM", 4);
    }
    gkRecoveryInfo in;
    gkServerRecoveryInfo(n.w, n.srv, &in);
    CHECK(oom);
    CHECK_EQ_INT(in.following, 0);
    CHECK(in.ledger_bytes < 1024 * 1024);
    report r;
    crashRestart(&n, GK_CRASH_PROCESS, &r);
    CHECK_EQ_INT(r.info.stopped, 1);
    CHECK_EQ_INT(r.n, 0);
    CHECK(r.info.writes > 0);
    nodeClose(&n);
}

/* A client that stops reading its replies: once the window holds
 * RL_WINDOW_UNITS writes, the oldest are taken as acknowledged. (The
 * host's own connections never stop reading, so the ledger is driven
 * directly here.) */
static void testAClientThatStopsReadingBoundsTheWindow(void) {
    node n;
    openFollowing(&n, 15, "appendonly no\n");
    redisServer *s = worldServer(n.w, n.srv);
    client c;
    memset(&c, 0, sizeof(c));
    c.id = 1u << 30;
    c.fd = -1;
    robj *argv[3];
    argv[0] = createStringObject(s, "SET", 3);
    argv[1] = createStringObject(s, "k", 1);
    argv[2] = createStringObject(s, "v", 1);
    for (int i = 0; i < RL_WINDOW_UNITS + 100; i++) {
        recoveryOp(s, 0, argv, 3);
        c.reply_queued += 5;
        recoveryUnitEnd(s, &c);
    }
    CHECK_EQ_INT(s->recovery->assumed, 100);
    CHECK_EQ_INT(s->recovery->count, RL_WINDOW_UNITS);
    for (int j = 0; j < 3; j++) decrRefCount(s, argv[j]);
    nodeClose(&n);
}

int main(void) {
    RUN("RENAME under appendfsync always: the new name is kept, the old "
        "one is gone on both sides", testRenameUnderAlwaysIsNotLost);
    RUN("EXPIRE under appendfsync always: a TTL is kept, a key that expires "
        "before the cutoff is absent on both sides",
        testExpireUnderAlwaysIsNotLost);
    RUN("SET ... GET under appendfsync always keeps the value it set",
        testSetGetUnderAlwaysIsNotLost);
    RUN("APPEND under appendfsync always keeps the appended value",
        testAppendUnderAlwaysIsNotLost);
    RUN("FLUSHALL and FLUSHDB typed while another db is selected, under "
        "appendfsync always: nothing acknowledged is lost",
        testFlushallInAnotherDbUnderAlwaysIsNotLost);
    RUN("FLUSHALL ASYNC and FLUSHDB ASYNC are followed: the ledger's shadow, "
        "which has no threads, frees the old dicts at once",
        testAsyncFlushesAreFollowed);
    RUN("a write on file whose reply was never written is newer after a "
        "kill -9 and absent after a power loss, never lost",
        testAnUnacknowledgedWriteOnFileIsNewer);
    RUN("a pipeline crashed before its beforeSleep was never acknowledged",
        testAPipelineCrashedBeforeItsRepliesIsNotAcknowledged);
    RUN("appendfsync everysec loses the writes acknowledged after the "
        "second's fsync", testEverysecLosesTheWritesOfTheLastSecond);
    RUN("a transaction is acknowledged by the reply of its EXEC",
        testATransactionIsAcknowledgedByExec);
    RUN("with the AOF off every acknowledged key is lost",
        testWithTheAofOffEveryAcknowledgedKeyIsLost);
    RUN("a second crash is compared with what the first restart held",
        testASecondCrashComparesWithWhatTheRestartHeld);
    RUN("a power loss after a restart loses what it loaded from the page "
        "cache", testAPowerLossAfterARestartLosesWhatItLoaded);
    RUN("following started on a running node takes its dataset as "
        "acknowledged", testFollowingStartedLateTakesTheDatasetAsItIs);
    RUN("rows summarize every type, escaped and cut",
        testRowsSummarizeEveryType);
    RUN("a report keeps the most telling rows, the lost first",
        testAReportKeepsTheMostTellingRows);
    RUN("the ledger changes nothing in the world it watches, and its report "
        "is a function of the seed", testTheLedgerChangesNothingItWatches);
    RUN("the ledger stops past half the heap limit and the report says so",
        testTheLedgerStopsPastTheHeapLimit);
    RUN("a client that stops reading its replies bounds the window",
        testAClientThatStopsReadingBoundsTheWindow);
    return gkTestReport();
}
