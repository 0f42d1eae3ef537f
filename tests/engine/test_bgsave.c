/* test_bgsave.c -- BGSAVE: the forked child writing dump.rdb, one child
 * at a time with BGREWRITEAOF, a failed save and -MISCONF, and the save
 * points of serverCron. */
#include "gktest.h"
#include "aofkit.h"

/* An integer field of INFO stats, or -1. */
static long long statsInfo(node *n, const char *field) {
    char want[128];
    nodeCmd(n, "INFO stats");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

/* The dataset's digest (DEBUG DIGEST) into buf. */
static const char *digest(node *n, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", nodeCmd(n, "DEBUG DIGEST"));
    return buf;
}

/* Whether the node's disk has a file whose name starts with prefix. */
static int diskHasPrefix(node *n, const char *prefix) {
    char names[4096];
    size_t len;
    gkDiskList(n->w, n->srv, "", names, sizeof(names), &len);
    for (size_t off = 0; off < len; off += strlen(names + off) + 1)
        if (!strncmp(names + off, prefix, strlen(prefix))) return 1;
    return 0;
}

static void testBgsaveWritesTheForkTimeDataset(void) {
    node n;
    char before[128], after[128], st[16];
    nodeOpen(&n, 1, "save \"\"\n");
    nodeCmd(&n, "SET a 1");
    nodeCmd(&n, "HSET h f v g w");
    nodeCmd(&n, "RPUSH l x y z");
    digest(&n, before, sizeof(before));
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), 6);
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "-ERR Background save already in "
                 "progress\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE SCHEDULE"), "-ERR Background save "
                 "already in progress\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SAVE"), "-ERR Background save already in "
                 "progress\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE NOW"), "-ERR syntax error\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_bgsave_in_progress"), 1);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_current_bgsave_time_sec"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "current_save_keys_total"), 3);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 1);
    /* A write after the fork: not in the file, still dirty after. */
    nodeCmd(&n, "SET late 1");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), 7);
    nodeRun(&n, 500 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_bgsave_in_progress"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_current_bgsave_time_sec"), -1);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_last_bgsave_time_sec"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "current_save_keys_total"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), 1);
    CHECK_EQ_STR(nodeInfoStr(&n, "rdb_last_bgsave_status", st, sizeof(st)),
                 "ok");
    CHECK_EQ_INT(statsInfo(&n, "total_forks"), 1);
    CHECK(nodeLogHas(&n, "* Background saving started by pid "));
    CHECK(nodeLogHas(&n, ":C 01 Jan 2026 00:00:00."));
    CHECK(nodeLogHas(&n, "* DB saved on disk"));
    CHECK(nodeLogHas(&n, "* Fork CoW for RDB: current 0 MB, peak 0 MB, "
                     "average 0 MB"));
    CHECK(nodeLogHas(&n, "* Background saving terminated with success"));
    /* The file is durable, under its final name; the temp file is gone. */
    size_t len;
    char *rdb = nodeFile(&n, "dump.rdb", 1, &len);
    CHECK(rdb != NULL && len > 9 && !memcmp(rdb, "REDIS0010", 9));
    free(rdb);
    CHECK(!diskHasPrefix(&n, "temp-"));
    /* A restart loads the file: the dataset at the fork. */
    gkServerCrash(n.w, n.srv, GK_CRASH_POWER);
    nodeRestart(&n);
    CHECK_EQ_STR(digest(&n, after, sizeof(after)), before);
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS late"), ":0\r\n");
    nodeClose(&n);
}

static void testDebugReloadAfterBgsave(void) {
    node n;
    char before[128], after[128];
    nodeOpen(&n, 2, "save \"\"\n");
    nodeCmd(&n, "ZADD z 1 a 2 b");
    nodeCmd(&n, "SADD s 1 2 3");
    digest(&n, before, sizeof(before));
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    nodeRun(&n, 500 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD"), "+OK\r\n");
    CHECK_EQ_STR(digest(&n, after, sizeof(after)), before);
    nodeClose(&n);
}

static void testOneChildAtATime(void) {
    node n;
    nodeOpen(&n, 3, "save \"\"\nrdb-key-save-delay 200000\n");
    nodeCmd(&n, "SET a 1");
    /* A rewrite asked for during a BGSAVE waits for it. */
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "+Background append only file "
                 "rewriting scheduled\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_scheduled"), 1);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_in_progress"), 0);
    /* Reaped at the first cron past the child's exit; the rewrite starts
     * at the next one. */
    nodeRun(&n, 350 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_bgsave_in_progress"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_scheduled"), 1);
    nodeRun(&n, 100 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_in_progress"), 1);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_scheduled"), 0);
    /* A BGSAVE during a rewrite is refused, or scheduled. */
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "-ERR Another child process is "
                 "active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE "
                 "in order to schedule a BGSAVE whenever possible.\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 1);
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE SCHEDULE"), "+Background saving "
                 "scheduled\r\n");
    nodeRun(&n, 400 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrites"), 1);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 2);
    nodeRun(&n, 400 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_bgsave_in_progress"), 0);
    CHECK_EQ_INT(statsInfo(&n, "total_forks"), 3);
    CHECK_EQ_INT(nodeLogCount(&n, "Background saving terminated with "
                              "success"), 2);
    /* In a transaction BGSAVE is only scheduled. */
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "BGSAVE");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*1\r\n+Background saving "
                 "scheduled\r\n");
    nodeClose(&n);
}

static void testFailedBgsaveDeniesWrites(void) {
    node n;
    char st[16];
    nodeOpen(&n, 4, "");
    for (int i = 0; i < 50; i++)
        nodeCmdf(&n, "SET key:%d %0200d", i, i);
    gkDiskSetFree(n.w, n.srv, 1024);
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    nodeRun(&n, 500 * MS);
    CHECK(nodeLogHas(&n, "# Write error saving DB on disk(rdbSaveRio): No "
                     "space left on device"));
    CHECK(nodeLogHas(&n, "# Background saving error"));
    CHECK_EQ_STR(nodeInfoStr(&n, "rdb_last_bgsave_status", st, sizeof(st)),
                 "err");
    CHECK(!diskHasPrefix(&n, "temp-"));
    CHECK(!diskHasPrefix(&n, "dump.rdb"));
    /* The save points are set and stop-writes-on-bgsave-error is yes. */
    CHECK_EQ_STR(nodeCmd(&n, "SET x 1"), "-MISCONF Redis is configured to "
                 "save RDB snapshots, but it's currently unable to persist to "
                 "disk. Commands that may modify the data set are disabled, "
                 "because this instance is configured to report errors "
                 "during writes if RDB snapshotting fails "
                 "(stop-writes-on-bgsave-error option). Please check the "
                 "Redis logs for details about the RDB error.\r\n");
    CHECK(!strncmp(nodeCmd(&n, "GET key:1"), "$200\r\n", 6));
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET stop-writes-on-bgsave-error no"),
                 "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET x 1"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET stop-writes-on-bgsave-error yes"),
                 "+OK\r\n");
    /* Space again: a good BGSAVE clears the error. */
    gkDiskSetFree(n.w, n.srv, 10 * 1024 * 1024);
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    nodeRun(&n, 500 * MS);
    CHECK_EQ_STR(nodeInfoStr(&n, "rdb_last_bgsave_status", st, sizeof(st)),
                 "ok");
    CHECK_EQ_STR(nodeCmd(&n, "SET y 1"), "+OK\r\n");
    nodeClose(&n);
}

static void testFlushallKillsTheBgsaveChild(void) {
    node n;
    char st[16];
    nodeOpen(&n, 5, "save \"\"\nrdb-key-save-delay 200000\n");
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_STR(nodeCmd(&n, "BGSAVE"), "+Background saving started\r\n");
    nodeRun(&n, 50 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "FLUSHALL"), "+OK\r\n");
    nodeRun(&n, 300 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_bgsave_in_progress"), 0);
    CHECK(nodeLogHas(&n, "# Background saving terminated by signal 10"));
    CHECK_EQ_STR(nodeInfoStr(&n, "rdb_last_bgsave_status", st, sizeof(st)),
                 "ok");
    CHECK(!diskHasPrefix(&n, "dump.rdb"));
    nodeClose(&n);
}

static void testSavePointsStartABgsave(void) {
    node n;
    nodeOpen(&n, 6, "save 5 3\n");
    nodeCmd(&n, "SET a 1");
    nodeCmd(&n, "SET b 1");
    nodeRun(&n, 7 * SEC);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 0);
    nodeCmd(&n, "SET c 1");
    nodeRun(&n, 500 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 1);
    CHECK(nodeLogHas(&n, "* 3 changes in 5 seconds. Saving..."));
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), 0);
    /* Then the seconds count from that save. */
    nodeCmd(&n, "SET d 1");
    nodeCmd(&n, "SET e 1");
    nodeCmd(&n, "SET f 1");
    nodeRun(&n, 3 * SEC);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 1);
    nodeRun(&n, 3 * SEC);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_saves"), 2);
    nodeClose(&n);
}

int main(void) {
    RUN("BGSAVE writes the dataset as it was at the fork; later writes stay "
        "dirty", testBgsaveWritesTheForkTimeDataset);
    RUN("DEBUG RELOAD after a BGSAVE gives the same digest",
        testDebugReloadAfterBgsave);
    RUN("one child at a time: BGSAVE and BGREWRITEAOF wait for each other",
        testOneChildAtATime);
    RUN("a failed BGSAVE sets the status to err and refuses writes",
        testFailedBgsaveDeniesWrites);
    RUN("FLUSHALL kills the BGSAVE child without an error",
        testFlushallKillsTheBgsaveChild);
    RUN("the save points start a BGSAVE from serverCron",
        testSavePointsStartABgsave);
    return gkTestReport();
}
