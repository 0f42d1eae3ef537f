/* Tests of the AOF as Redis 7.0 writes it: what propagation feeds it,
 * the beforeSleep flush before the replies, the fsync policies and the
 * bio thread, write errors and MISCONF, the multi-part layout and the
 * rewrite, CONFIG SET appendonly, loading (truncated files included),
 * INFO persistence and the server log. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* The incr file with every 13-digit number (absolute ms) masked. */
static char *incrMasked(node *n, const char *path) {
    char *f = nodeFile(n, path, 0, NULL);
    if (!f) return NULL;
    for (char *p = f; *p; p++) {
        size_t d = strspn(p, "0123456789");
        if (d == 13 && p > f && p[-1] == '\n') memset(p, 'T', 13);
        p += d ? d - 1 : 0;
    }
    return f;
}

/* Each command's own rewrite: SET EX and SETEX become SET PXAT, EXPIRE
 * becomes PEXPIREAT, a past expire a DEL, INCRBYFLOAT a SET KEEPTTL,
 * GETSET a SET; SET GET drops its GET; a failed or no-op write is not
 * propagated; the first command carries a SELECT. */
static void testCommandsAreRewrittenForTheAof(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    const char *script[] = { "set a 1", "SET b 2 EX 100", "setex c 100 v",
        "expire a 100", "expireat a 1", "incrbyfloat f 1.5", "getset b x",
        "set d v NX GET", "set d w nx", "expire nosuch 10", "del nosuch",
        "lpush b x", NULL };
    for (int i = 0; script[i]; i++) nodeCmd(&n, script[i]);
    char *f = incrMasked(&n, INCR1);
    CHECK_EQ_STR(f,
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
        "*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"
        "*5\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n$4\r\nPXAT\r\n$13\r\n"
        "TTTTTTTTTTTTT\r\n"
        "*5\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\nv\r\n$4\r\nPXAT\r\n$13\r\n"
        "TTTTTTTTTTTTT\r\n"
        "*3\r\n$9\r\nPEXPIREAT\r\n$1\r\na\r\n$13\r\nTTTTTTTTTTTTT\r\n"
        "*2\r\n$3\r\nDEL\r\n$1\r\na\r\n"
        "*4\r\n$3\r\nSET\r\n$1\r\nf\r\n$3\r\n1.5\r\n$7\r\nKEEPTTL\r\n"
        "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\nx\r\n"
        "*4\r\n$3\r\nset\r\n$1\r\nd\r\n$1\r\nv\r\n$2\r\nNX\r\n");
    free(f);
    nodeClose(&n);
}

/* One command, one unit: several writes of an EXEC, or a write and the
 * DEL of a key it found expired, are wrapped in MULTI ... EXEC; a single
 * write is not; an expire found by the cycle is its own DEL. */
static void testExecutionUnitsAreWrappedInMulti(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "MULTI"); nodeCmd(&n, "SET a 1"); nodeCmd(&n, "INCR a");
    nodeCmd(&n, "EXEC");
    nodeCmd(&n, "MULTI"); nodeCmd(&n, "SET b 1"); nodeCmd(&n, "EXEC");
    nodeCmd(&n, "MULTI"); nodeCmd(&n, "GET b"); nodeCmd(&n, "EXEC");
    nodeCmd(&n, "SET x 1 PX 5");
    nodeCmd(&n, "SET y 1 PX 5");
    nodeRun(&n, 20 * MS);
    nodeCmd(&n, "SET x 2");
    nodeCmd(&n, "GET y");
    nodeCmd(&n, "SELECT 3");
    nodeCmd(&n, "SET z 1");
    char *f = incrMasked(&n, INCR1);
    const char *want =
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
        "*1\r\n$5\r\nMULTI\r\n"
        "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
        "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n"
        "*1\r\n$4\r\nEXEC\r\n"
        "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n1\r\n";
    CHECK(f && !strncmp(f, want, strlen(want)));
    CHECK(f && strstr(f, "*1\r\n$5\r\nMULTI\r\n*2\r\n$3\r\nDEL\r\n$1\r\nx\r\n"
                         "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n2\r\n"
                         "*1\r\n$4\r\nEXEC\r\n*2\r\n$3\r\nDEL\r\n$1\r\ny\r\n"
                         "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n"
                         "*3\r\n$3\r\nSET\r\n$1\r\nz\r\n$1\r\n1\r\n"));
    free(f);
    nodeClose(&n);
}

/* The order the lesson shows: the commands of a read run and feed
 * aof_buf; beforeSleep writes aof_buf to the file (and fsyncs under
 * always); only then are the replies written to the socket. */
static void testBeforeSleepFlushesTheAofBeforeReplies(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeRun(&n, 10 * MS);
    uint64_t from = gkTraceLastSeq(n.w);
    nodeCmd(&n, "SET a 1\r\nSET b 2\r\nINCR a");
    gkTraceRecord rec[256];
    size_t k = gkTraceRead(n.w, from, rec, 256);
    char seq[64];
    size_t m = 0;
    for (size_t i = 0; i < k && m < sizeof(seq) - 1; i++) {
        gkTraceRecord *r = &rec[i];
        if (r->node != n.srv) continue;
        if (r->type == GK_TR_CMD) seq[m++] = 'c';
        else if (r->type == GK_TR_AOF && r->a == GK_AOF_FEED) seq[m++] = 'f';
        else if (r->type == GK_TR_LOOP && r->a == GK_LOOP_BEFORE_SLEEP)
            seq[m++] = 'B';
        else if (r->type == GK_TR_AOF && r->a == GK_AOF_WRITE) seq[m++] = 'W';
        else if (r->type == GK_TR_AOF && r->a == GK_AOF_FSYNC) seq[m++] = 'S';
        else if (r->type == GK_TR_SYSCALL && r->a == GK_SYS_WRITE)
            seq[m++] = 'r';
    }
    seq[m] = '\0';
    CHECK(strstr(seq, "fcfcfcBWSr") != NULL);
    nodeClose(&n);
}

/* everysec: the fsync runs on the bio thread, whose pending count
 * includes the running job; while it runs, writes are postponed for up
 * to two seconds, then forced, logged and counted. */
static void testEverysecPostponesBehindASlowFsync(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync everysec\n");
    gkDiskSetPreset(n.w, n.srv, "slow-fsync");
    nodeRun(&n, 1100 * MS);
    uint64_t from = gkTraceLastSeq(n.w);
    nodeCmd(&n, "SET a 1");
    nodeRun(&n, 100 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "aof_pending_bio_fsync"), 1);
    nodeCmd(&n, "SET b 1");
    CHECK(nodeInfo(&n, "aof_buffer_length") > 0);
    for (int i = 0; i < 30; i++) {
        nodeCmd(&n, "INCR c");
        nodeRun(&n, 100 * MS);
    }
    CHECK(nodeInfo(&n, "aof_delayed_fsync") >= 1);
    CHECK(nodeLogHas(&n, "* Asynchronous AOF fsync is taking too long (disk "
                     "is busy?). Writing the AOF buffer without waiting for "
                     "fsync to complete, this may slow down Redis."));
    gkTraceRecord rec[4096];
    size_t k = gkTraceRead(n.w, from, rec, 4096);
    int q = 0, st = 0, done = 0, post = 0;
    for (size_t i = 0; i < k; i++) {
        if (rec[i].type == GK_TR_AOF && rec[i].a == GK_AOF_POSTPONE) post++;
        if (rec[i].type != GK_TR_BIO || rec[i].a != GK_BIO_AOF_FSYNC) continue;
        if (rec[i].b == GK_JOB_QUEUED && rec[i].c == 1) q++;
        if (rec[i].b == GK_JOB_START && rec[i].c == 1) st++;
        if (rec[i].b == GK_JOB_DONE && rec[i].c == 0) done++;
    }
    CHECK(q >= 1 && st >= 1 && done >= 1 && post >= 1);
    nodeClose(&n);
}

/* A full disk: the write that does not fit is short and undone with
 * ftruncate, its command was already acknowledged, later writes and
 * PING get MISCONF, reads still work; once space is freed the next
 * flush succeeds and writes are accepted again. */
static void testFullDiskRefusesWritesUntilSpaceIsFreed(void) {
    node n;
    char buf[64], req[10100];
    nodeOpen(&n, 1, "appendonly yes\nappendfsync everysec\n");
    nodeCmd(&n, "SET k:0 small");
    gkDiskSetFree(n.w, n.srv, 64 * 1024);
    int oks = 0, refused = 0;
    for (int i = 1; i <= 9; i++) {
        int hl = snprintf(req, sizeof(req), "SET k:%d ", i);
        memset(req + hl, 'x', 10000);
        req[hl + 10000] = '\0';
        const char *r = nodeCmd(&n, req);
        if (!strcmp(r, "+OK\r\n")) oks++;
        else if (!strcmp(r, "-MISCONF Errors writing to the AOF file: No "
                            "space left on device\r\n")) refused++;
        nodeRun(&n, 5 * MS);
    }
    CHECK_EQ_INT(oks, 7);
    CHECK_EQ_INT(refused, 2);
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "-MISCONF Errors writing to the AOF "
                 "file: No space left on device\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GET k:0"), "$5\r\nsmall\r\n");
    nodeCmd(&n, "MULTI");
    CHECK_EQ_STR(nodeCmd(&n, "SET q 1"), "-MISCONF Errors writing to the "
                 "AOF file: No space left on device\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "-EXECABORT Transaction discarded "
                 "because of previous errors.\r\n");
    CHECK_EQ_STR(nodeInfoStr(&n, "aof_last_write_status", buf, sizeof(buf)),
                 "err");
    CHECK(nodeInfo(&n, "aof_buffer_length") > 10000);
    CHECK(nodeLogHas(&n, "# Short write while writing to the AOF file: "
                     "(nwritten="));
    gkDiskSetFree(n.w, n.srv, 10 * 1024 * 1024);
    nodeRun(&n, 1100 * MS);
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    CHECK_EQ_STR(nodeInfoStr(&n, "aof_last_write_status", buf, sizeof(buf)),
                 "ok");
    CHECK(nodeLogHas(&n, "# AOF write error looks solved, Redis can write "
                     "again."));
    CHECK_EQ_STR(nodeCmd(&n, "SET after 1"), "+OK\r\n");
    nodeClose(&n);
}

/* Under always a failed write cannot be taken back: the process exits. */
static void testAlwaysExitsOnAWriteError(void) {
    node n;
    char req[10100];
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    gkDiskSetFree(n.w, n.srv, 4096);
    memcpy(req, "SET k ", 6);
    memset(req + 6, 'x', 10000);
    req[10006] = '\0';
    CHECK_EQ_STR(nodeCmd(&n, req), "");
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK(nodeLogHas(&n, "# Can't recover from AOF write error when the AOF "
                     "fsync policy is 'always'. Exiting..."));
    nodeClose(&n);
}

/* BGREWRITEAOF: a new incr file at once, the child on its lane, the
 * manifest switched in serverCron, the history deleted in the
 * background. */
static void testRewriteSwitchesTheManifest(void) {
    node n;
    char names[1024];
    size_t len;
    nodeOpen(&n, 1, "appendonly yes\n");
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "+Background append only file "
                 "rewriting started\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "-ERR Background append only "
                 "file rewriting already in progress\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_in_progress"), 1);
    nodeCmd(&n, "SET b 2");
    nodeRun(&n, 500 * MS);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_in_progress"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrites"), 1);
    char *m = nodeFile(&n, "appendonlydir/appendonly.aof.manifest", 1, NULL);
    CHECK_EQ_STR(m, "file appendonly.aof.2.base.rdb seq 2 type b\n"
                    "file appendonly.aof.2.incr.aof seq 2 type i\n");
    free(m);
    nodeRun(&n, 100 * MS);
    gkDiskList(n.w, n.srv, "appendonlydir", names, sizeof(names), &len);
    int files = 0;
    for (size_t off = 0; off < len; off += strlen(names + off) + 1) files++;
    CHECK_EQ_INT(files, 3);
    CHECK(nodeLogHas(&n, "* Creating AOF incr file appendonly.aof.2.incr.aof "
                     "on background rewrite"));
    CHECK(nodeLogHas(&n, ":C 01 Jan 2026 00:00:00."));
    CHECK(nodeLogHas(&n, "* Successfully renamed the temporary AOF base file "
                     "temp-rewriteaof-bg-"));
    CHECK(nodeLogHas(&n, "* Removing the history file "
                     "appendonly.aof.1.base.rdb in the background"));
    CHECK(nodeLogHas(&n, "* Background AOF rewrite finished successfully"));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    nodeRestart(&n);
    CHECK_EQ_STR(nodeCmd(&n, "MGET a b"), "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
    nodeClose(&n);
}

/* CONFIG SET appendonly yes waits for a rewrite (WAIT_REWRITE) that
 * creates the files; appendonly no stops appending. */
static void testConfigSetAppendonly(void) {
    node n;
    char buf[64];
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET appendonly yes"), "+OK\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "aof_enabled"), 1);
    CHECK_EQ_INT(nodeInfo(&n, "aof_rewrite_in_progress"), 1);
    nodeCmd(&n, "SET b 2");
    nodeRun(&n, 500 * MS);
    CHECK(nodeLogHas(&n, "* Successfully renamed the temporary AOF incr file "
                     "temp-appendonly.aof.incr into "
                     "appendonly.aof.1.incr.aof"));
    char *m = nodeFile(&n, "appendonlydir/appendonly.aof.manifest", 1, NULL);
    CHECK_EQ_STR(m, "file appendonly.aof.1.base.rdb seq 1 type b\n"
                    "file appendonly.aof.1.incr.aof seq 1 type i\n");
    free(m);
    nodeCmd(&n, "SET c 3");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET appendonly no"), "+OK\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "aof_enabled"), 0);
    CHECK_EQ_INT(nodeInfo(&n, "aof_current_size"), -1);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET appendfsync bogus"), "-ERR CONFIG "
                 "SET failed (possibly related to argument 'appendfsync') - "
                 "argument(s) must be one of the following: everysec, "
                 "always, no\r\n");
    CHECK_EQ_STR(nodeInfoStr(&n, "aof_last_bgrewrite_status", buf,
                             sizeof(buf)), "ok");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkServerRestart(n.w, n.srv, "appendonly yes\n");
    gkConnOpen(n.w, n.srv, &n.conn);
    CHECK_EQ_STR(nodeCmd(&n, "MGET a b c"), "*3\r\n$1\r\n1\r\n$1\r\n2\r\n"
                 "$1\r\n3\r\n");
    nodeClose(&n);
}

/* Writes a small dataset of every type, with TTLs, over two dbs. */
static void fillTypes(node *n) {
    nodeCmd(n, "SET s1 hello");
    nodeCmd(n, "SET s2 12345");
    nodeCmd(n, "SET s3 v PX 1000000");
    nodeCmd(n, "SADD small 1 2 3");
    nodeCmd(n, "SADD big a b c 1");
    nodeCmd(n, "HSET h1 f v g 7");
    nodeCmd(n, "HSET h2 f 0123456789012345678901234567890123456789"
               "012345678901234567890123456789");
    nodeCmd(n, "ZADD z1 1 a 2.5 b -3 c");
    nodeCmd(n, "CONFIG SET zset-max-listpack-entries 1");
    nodeCmd(n, "ZADD z2 1 a inf b");
    nodeCmd(n, "CONFIG SET zset-max-listpack-entries 128");
    nodeCmd(n, "EXPIRE h1 5000");
    nodeCmd(n, "SELECT 4");
    nodeCmd(n, "SET other db4");
    nodeCmd(n, "SELECT 0");
}

/* The replies that describe the dataset. */
static void describe(node *n, char *out, size_t cap) {
    static const char *q[] = { "GET s1", "GET s2", "OBJECT ENCODING s2",
        "SCARD small", "SISMEMBER small 2", "OBJECT ENCODING small",
        "SCARD big", "SISMEMBER big b", "HGET h1 g", "HLEN h2",
        "ZSCORE z1 c", "ZSCORE z2 b", "ZCARD z2", "ZRANGE z1 0 -1",
        "SELECT 4", "GET other", "SELECT 0", "DBSIZE", NULL };
    size_t len = 0;
    for (int i = 0; q[i] && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s", nodeCmd(n, q[i]));
    nodeCmd(n, "PTTL s3");
    CHECK(atoll(n->out + 1) > 900000);
    nodeCmd(n, "PTTL h1");
    CHECK(atoll(n->out + 1) > 4000000);
}

/* A restart rebuilds the same dataset from the base (RDB or commands)
 * and the incr file. */
static void restartKeepsDataset(const char *conf) {
    node n;
    char before[4096], after[4096];
    nodeOpen(&n, 1, conf);
    fillTypes(&n);
    nodeCmd(&n, "BGREWRITEAOF");
    nodeRun(&n, 500 * MS);
    nodeCmd(&n, "SADD big d");
    nodeCmd(&n, "HSET h1 x y");
    describe(&n, before, sizeof(before));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    describe(&n, after, sizeof(after));
    CHECK_EQ_STR(after, before);
    nodeClose(&n);
}

static void testRestartRebuildsEveryType(void) {
    restartKeepsDataset("appendonly yes\n");
    restartKeepsDataset("appendonly yes\naof-use-rdb-preamble no\n");
}

/* Replaces the node's AOF with the given files, then restarts it. */
static int loadPrepared(node *n, const char *conf, const char *incr) {
    const char *manifest = "file appendonly.aof.1.base.aof seq 1 type b\n"
                           "file appendonly.aof.1.incr.aof seq 1 type i\n";
    gkServerCrash(n->w, n->srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n->w, n->srv, "appendonlydir/appendonly.aof.manifest",
                    manifest, strlen(manifest));
    gkDiskWriteFile(n->w, n->srv, "appendonlydir/appendonly.aof.1.base.aof",
                    "", 0);
    gkDiskWriteFile(n->w, n->srv, INCR1, incr, strlen(incr));
    int st = gkServerRestart(n->w, n->srv, conf);
    if (st == GK_OK) gkConnOpen(n->w, n->srv, &n->conn);
    return st;
}

#define SET_A "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"

/* A last command cut short is dropped and the file truncated to the last
 * whole command; an unfinished MULTI is dropped whole; with
 * aof-load-truncated no the server refuses to start. */
static void testTruncatedTailIsDroppedOnLoad(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK_EQ_INT(loadPrepared(&n, NULL, SET_A "*3\r\n$3\r\nSET\r\n$1\r\nb\r"
                              "\n$3\r\n12"), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "MGET a b"), "*2\r\n$1\r\n1\r\n$-1\r\n");
    CHECK(nodeLogHas(&n, "# !!! Truncating the AOF appendonly.aof.1.incr.aof"
                     " at offset 27 !!!"));
    size_t len;
    free(nodeFile(&n, INCR1, 0, &len));
    CHECK_EQ_INT(len, 27);
    CHECK_EQ_INT(loadPrepared(&n, NULL, SET_A "*1\r\n$5\r\nMULTI\r\n"
                              "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"),
                 GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "MGET a b"), "*2\r\n$1\r\n1\r\n$-1\r\n");
    CHECK(nodeLogHas(&n, "# Revert incomplete MULTI/EXEC transaction in AOF "
                     "file appendonly.aof.1.incr.aof"));
    CHECK(loadPrepared(&n, "appendonly yes\naof-load-truncated no\n",
                       SET_A "*3\r\n$3\r\nSET") != GK_OK);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK(nodeLogHas(&n, "# Unexpected end of file reading the append only "
                     "file appendonly.aof.1.incr.aof. You can: 1) Make a "
                     "backup of your AOF file, then use ./redis-check-aof "
                     "--fix <filename.manifest>."));
    CHECK(loadPrepared(&n, "appendonly yes\n", SET_A "garbage\r\n") != GK_OK);
    CHECK(nodeLogHas(&n, "# Bad file format reading the append only file "
                     "appendonly.aof.1.incr.aof: make a backup of your AOF "
                     "file, then use ./redis-check-aof --fix "
                     "<filename.manifest>"));
    nodeClose(&n);
}

/* A bad manifest stops the server with Redis's message. */
static void testBadManifestStopsTheServer(void) {
    node n;
    const char *bad = "file a seq 1 type b\nfile b seq 2 type b\n";
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/appendonly.aof.manifest", bad,
                    strlen(bad));
    CHECK(gkServerRestart(n.w, n.srv, NULL) != GK_OK);
    CHECK(nodeLogHas(&n, "# \n*** FATAL AOF MANIFEST FILE ERROR ***\n"));
    CHECK(nodeLogHas(&n, "Reading the manifest file, at line 2\n"));
    CHECK(nodeLogHas(&n, "Found duplicate base file information\n"));
    nodeClose(&n);
}

/* INFO persistence: 7.0's aof fields in order; the last six only with
 * appendonly yes. */
static void testInfoPersistenceFields(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    nodeCmd(&n, "SET a 1");
    nodeCmd(&n, "INFO persistence");
    const char *keys[] = { "aof_enabled:1", "aof_rewrite_in_progress:0",
        "aof_rewrite_scheduled:0", "aof_last_rewrite_time_sec:-1",
        "aof_current_rewrite_time_sec:-1", "aof_last_bgrewrite_status:ok",
        "aof_rewrites:0", "aof_rewrites_consecutive_failures:0",
        "aof_last_write_status:ok", "aof_last_cow_size:0",
        "module_fork_in_progress:0", "module_fork_last_cow_size:0",
        "aof_current_size:", "aof_base_size:0", "aof_pending_rewrite:0",
        "aof_buffer_length:0", "aof_pending_bio_fsync:", "aof_delayed_fsync:0",
        NULL };
    const char *p = n.out;
    for (int i = 0; keys[i]; i++) {
        const char *q = strstr(p, keys[i]);
        CHECK(q != NULL);
        if (q) p = q;
    }
    nodeClose(&n);
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "INFO persistence");
    CHECK(strstr(n.out, "aof_enabled:0\r\n") != NULL);
    CHECK(strstr(n.out, "aof_current_size") == NULL);
    nodeClose(&n);
}

/* The log's lines have Redis's format, with virtual timestamps. */
static void testStartupLogLines(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK(nodeLogHas(&n, "1:C 01 Jan 2026 00:00:00.000 # oO0OoO0OoO0Oo Redis "
                     "is starting oO0OoO0OoO0Oo\n"));
    CHECK(nodeLogHas(&n, "1:M 01 Jan 2026 00:00:00.001 * Creating AOF base "
                     "file appendonly.aof.1.base.rdb on server start\n"));
    CHECK(nodeLogHas(&n, "* Creating AOF incr file appendonly.aof.1.incr.aof "
                     "on server start\n"));
    CHECK(nodeLogHas(&n, "* Ready to accept connections\n"));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    nodeRestart(&n);
    CHECK(nodeLogHas(&n, "1001:M 01 Jan 2026 00:00:00.0"));
    CHECK(nodeLogHas(&n, "* Reading RDB base file on AOF loading...\n"));
    CHECK(nodeLogHas(&n, "* RDB is base AOF\n"));
    CHECK(nodeLogHas(&n, "* DB loaded from base file "
                     "appendonly.aof.1.base.rdb: "));
    CHECK(nodeLogHas(&n, "* Opening AOF incr file appendonly.aof.1.incr.aof "
                     "on server start\n"));
    CHECK_EQ_INT(nodeLogCount(&n, "Ready to accept connections"), 2);
    nodeClose(&n);
}

/* The introspection the AOF panel reads. */
static void testAofInfoAndThreads(void) {
    node n;
    gkAofInfo ai;
    gkThreadInfo th[8];
    int k;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync everysec\n");
    nodeRun(&n, 1100 * MS);
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_INT(gkAofGetInfo(n.w, n.srv, &ai), GK_OK);
    CHECK_EQ_INT(ai.state, 1);
    CHECK_EQ_INT(ai.fsync, 2);
    CHECK(ai.fed > 0 && ai.written == ai.fed && ai.acked == ai.fed);
    CHECK_EQ_STR(ai.incr_file, "appendonly.aof.1.incr.aof");
    CHECK_EQ_INT(gkServerThreads(n.w, n.srv, th, 8, &k), GK_OK);
    CHECK_EQ_INT(k, 4);
    CHECK_EQ_STR(th[2].name, "bio_aof_fsync");
    nodeRun(&n, 1100 * MS);
    gkAofGetInfo(n.w, n.srv, &ai);
    CHECK_EQ_INT(ai.durable, ai.written);
    gkServerThreads(n.w, n.srv, th, 8, &k);
    CHECK(th[2].jobs_done >= 1);
    nodeClose(&n);
}

/* Jobs of a bio type that the trace shows queued since seq from. */
static int bioJobs(node *n, uint64_t from, int type) {
    gkTraceRecord rec[4096];
    size_t k = gkTraceRead(n->w, from, rec, 4096);
    int q = 0;
    for (size_t i = 0; i < k; i++)
        q += rec[i].type == GK_TR_BIO && rec[i].a == (uint32_t)type &&
             rec[i].b == GK_JOB_QUEUED;
    return q;
}

/* UNLINK leaves the freeing of a big value to the BIO_LAZY_FREE
 * thread; DEL frees it in the main thread, as does UNLINK of a small
 * value. */
static void testUnlinkFreesBigValuesOnTheBioThread(void) {
    node n;
    char req[4096];
    gkThreadInfo th[8];
    int k;
    nodeOpen(&n, 1, NULL);
    for (int key = 0; key < 2; key++) {
        size_t len = (size_t)sprintf(req, "SADD big%d", key);
        for (int i = 0; i < 200; i++)
            len += (size_t)sprintf(req + len, " m%d", i);
        nodeCmd(&n, req);
    }
    nodeCmd(&n, "SADD small a b c");
    uint64_t from = gkTraceLastSeq(n.w);
    CHECK_EQ_STR(nodeCmd(&n, "DEL big0"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "UNLINK small"), ":1\r\n");
    CHECK_EQ_INT(bioJobs(&n, from, GK_BIO_LAZY_FREE), 0);
    CHECK_EQ_STR(nodeCmd(&n, "UNLINK big1"), ":1\r\n");
    CHECK_EQ_INT(bioJobs(&n, from, GK_BIO_LAZY_FREE), 1);
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS big1"), ":0\r\n");
    nodeRun(&n, 10 * MS);
    gkServerThreads(n.w, n.srv, th, 8, &k);
    CHECK_EQ_STR(th[3].name, "bio_lazy_free");
    CHECK_EQ_INT(th[3].jobs_done, 1);
    CHECK(th[3].busy_ns >= 200 * 40);
    nodeClose(&n);
}

int main(void) {
    RUN("write commands reach the AOF rewritten as Redis 7.0 rewrites them",
        testCommandsAreRewrittenForTheAof);
    RUN("an EXEC or a write that expired a key is wrapped in MULTI/EXEC",
        testExecutionUnitsAreWrappedInMulti);
    RUN("beforeSleep flushes the AOF before it writes the replies",
        testBeforeSleepFlushesTheAofBeforeReplies);
    RUN("everysec postpones writes behind a slow bio fsync, then forces them",
        testEverysecPostponesBehindASlowFsync);
    RUN("a full disk refuses writes and PING until space is freed",
        testFullDiskRefusesWritesUntilSpaceIsFreed);
    RUN("appendfsync always exits on an AOF write error",
        testAlwaysExitsOnAWriteError);
    RUN("BGREWRITEAOF switches the manifest to a new base and incr file",
        testRewriteSwitchesTheManifest);
    RUN("CONFIG SET appendonly yes creates the AOF through a rewrite",
        testConfigSetAppendonly);
    RUN("a restart rebuilds every type from the base and incr files",
        testRestartRebuildsEveryType);
    RUN("a truncated AOF tail is dropped on load, or refused",
        testTruncatedTailIsDroppedOnLoad);
    RUN("a bad manifest stops the server with Redis's message",
        testBadManifestStopsTheServer);
    RUN("INFO persistence has 7.0's aof fields in order",
        testInfoPersistenceFields);
    RUN("the server log has Redis's format with virtual timestamps",
        testStartupLogLines);
    RUN("the AOF panel reads offsets and thread lanes",
        testAofInfoAndThreads);
    RUN("UNLINK frees a big value on the bio lazy-free thread",
        testUnlinkFreesBigValuesOnTheBioThread);
    return gkTestReport();
}
