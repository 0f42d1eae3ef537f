/* Tests of the AOF loader against files it did not write: listpacks and
 * intsets in the RDB base that lie about their sizes or order, commands
 * in an incr file with the wrong number of arguments, counts that ask for
 * more memory than the file could ever fill, and manifest sequence
 * numbers at the top of their range. Each file must either load or leave
 * the node down with its log saying why; never a crash.
 *
 * Run with a word as the first argument to run only the tests whose name
 * contains it. */
#include "gktest.h"
#include "aofkit.h"

#define MANIFEST "appendonlydir/appendonly.aof.manifest"
#define BASE_RDB "appendonlydir/appendonly.aof.1.base.rdb"
#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

#define SET_A "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"

/* ---- Building files by hand. ---- */

typedef struct buf {
    unsigned char b[4096];
    size_t len;
} buf;

static void put(buf *o, const void *p, size_t n) {
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

static void putByte(buf *o, int v) {
    unsigned char c = (unsigned char)v;
    put(o, &c, 1);
}

static void putLE(buf *o, uint64_t v, int n) {
    for (int i = 0; i < n; i++) putByte(o, (int)(v >> (8 * i)) & 0xff);
}

/* An RDB string: a 6- or 14-bit length and the bytes. */
static void putRdbString(buf *o, const void *p, size_t n) {
    if (n < 64) {
        putByte(o, (int)n);
    } else {
        putByte(o, 0x40 | (int)(n >> 8));
        putByte(o, (int)(n & 0xff));
    }
    put(o, p, n);
}

/* A listpack of short strings (each under 64 bytes), well formed. */
static void listpack(buf *o, const char **items, int n) {
    o->len = 6;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(items[i]);
        putByte(o, 0x80 | (int)l);
        put(o, items[i], l);
        putByte(o, (int)l + 1);             /* backlen: 1 + l < 128 */
    }
    putByte(o, 0xff);
    unsigned char *h = o->b;
    for (int i = 0; i < 4; i++) h[i] = (unsigned char)(o->len >> (8 * i));
    h[4] = (unsigned char)n;
    h[5] = (unsigned char)(n >> 8);
}

/* An intset of 16-bit members, in the given order, with the given
 * header length. */
static void intset16(buf *o, const int *v, int n, uint32_t hdrlen) {
    o->len = 0;
    putLE(o, 2, 4);
    putLE(o, hdrlen, 4);
    for (int i = 0; i < n; i++) putLE(o, (uint64_t)(uint16_t)v[i], 2);
}

/* An RDB file with one key of the given type whose value is a blob (a
 * listpack or intset as an RDB string). The checksum is 0: not checked. */
static void rdbWithBlob(buf *o, int type, const buf *blob) {
    o->len = 0;
    put(o, "REDIS0010", 9);
    putByte(o, 0xfe);
    putByte(o, 0);
    putByte(o, type);
    putRdbString(o, "k", 1);
    putRdbString(o, blob->b, blob->len);
    putByte(o, 0xff);
    putLE(o, 0, 8);
}

/* Crashes the node, puts a manifest with the base (an RDB) and the incr
 * file in place of its AOF, and restarts it. Returns the restart's
 * status. */
static int loadFiles(node *n, const char *conf, const buf *base,
                     const char *incr) {
    const char *m = "file appendonly.aof.1.base.rdb seq 1 type b\n"
                    "file appendonly.aof.1.incr.aof seq 1 type i\n";
    gkServerCrash(n->w, n->srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n->w, n->srv, MANIFEST, m, strlen(m));
    gkDiskWriteFile(n->w, n->srv, BASE_RDB, base ? base->b : NULL,
                    base ? base->len : 0);
    gkDiskWriteFile(n->w, n->srv, INCR1, incr, strlen(incr));
    int st = gkServerRestart(n->w, n->srv, conf);
    if (st == GK_OK) {
        gkConnOpen(n->w, n->srv, &n->conn);
        gkConnSetLink(n->w, n->conn, 20000, 0);
    }
    return st;
}

/* Loads an RDB base holding blob as a key of type; the node must stay
 * down and its log carry Redis's report of a corrupt RDB with reason. */
static void expectCorrupt(int type, const buf *blob, const char *reason) {
    node n;
    buf rdb;
    char want[256];
    nodeOpen(&n, 1, "appendonly yes\n");
    rdbWithBlob(&rdb, type, blob);
    CHECK(loadFiles(&n, NULL, &rdb, "") != GK_OK);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK(nodeLogHas(&n, "# Internal error in RDB reading offset 0, "
                     "function at rdb.c:"));
    snprintf(want, sizeof(want), " -> %s. Failure loading rdb format\n",
             reason);
    CHECK(nodeLogHas(&n, want));
    CHECK(nodeLogHas(&n, "# Terminating server after rdb file reading "
                     "failure.\n"));
    if (gkt_cur_failed) fputs(nodeLog(&n), stderr);
    nodeClose(&n);
}

/* ---- The RDB base. ---- */

/* A valid listpack or intset of each type still loads, so the checks
 * below refuse only what is broken. */
static void testWellFormedCompactValuesLoad(void) {
    node n;
    buf blob, rdb;
    const char *hash[] = { "f", "v", "g", "w" }, *zset[] = { "m", "1.5",
                                                             "n", "2" };
    const int members[] = { -3, 5, 100 };
    nodeOpen(&n, 1, "appendonly yes\n");
    listpack(&blob, hash, 4);
    rdbWithBlob(&rdb, 16, &blob);
    CHECK_EQ_INT(loadFiles(&n, NULL, &rdb, ""), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "HGET k g"), "$1\r\nw\r\n");
    listpack(&blob, zset, 4);
    rdbWithBlob(&rdb, 17, &blob);
    CHECK_EQ_INT(loadFiles(&n, NULL, &rdb, ""), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "ZSCORE k m"), "$3\r\n1.5\r\n");
    intset16(&blob, members, 3, 3);
    rdbWithBlob(&rdb, 11, &blob);
    CHECK_EQ_INT(loadFiles(&n, NULL, &rdb, ""), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "SISMEMBER k 100"), ":1\r\n");
    nodeClose(&n);
}

/* A hash listpack holds field, value, field, value...: an odd count
 * leaves a field without its value. */
static void testHashListpackWithOddCountIsRefused(void) {
    buf blob;
    const char *items[] = { "f1", "v1", "f2" };
    listpack(&blob, items, 3);
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
}

/* The same field twice would make HLEN and the fields disagree. */
static void testHashListpackWithDuplicateFieldIsRefused(void) {
    buf blob;
    const char *items[] = { "f", "a", "f", "b" };
    listpack(&blob, items, 4);
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
}

/* A sorted set listpack holds member, score...: a score that is not a
 * number, or a count that is odd, is corruption. */
static void testZsetListpackWithBadScoreIsRefused(void) {
    buf blob;
    const char *bad[] = { "m", "abc" }, *odd[] = { "m", "1", "n" };
    listpack(&blob, bad, 2);
    expectCorrupt(17, &blob, "Zset listpack integrity check failed.");
    listpack(&blob, odd, 3);
    expectCorrupt(17, &blob, "Zset listpack integrity check failed.");
}

/* An entry whose length runs past the end of the blob: the header's
 * total is the blob's length, but the last entry says 60 bytes follow. */
static void testListpackEntryPastTheEndIsRefused(void) {
    buf blob;
    const char *items[] = { "f", "v" };
    listpack(&blob, items, 2);
    blob.b[blob.len - 4] = 0x80 | 60;       /* "v" now claims 60 bytes */
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
}

/* The header's total bytes must be the blob's length; a larger total
 * would send lpLast and lpPrev past the end. */
static void testListpackTotalBytesMustMatchTheBlob(void) {
    buf blob;
    const char *items[] = { "f", "v" };
    listpack(&blob, items, 2);
    blob.b[0] += 40;
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
    listpack(&blob, items, 2);
    blob.b[4] = 4;                          /* count says 4, there are 2 */
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
    listpack(&blob, items, 2);
    blob.b[9] = 5;                          /* a backlen that lies */
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
    listpack(&blob, items, 2);
    blob.b[blob.len - 1] = 0x81;            /* no terminator */
    expectCorrupt(16, &blob, "Hash listpack integrity check failed.");
}

/* An intset whose length says more members than the blob holds. */
static void testIntsetWithLyingLengthIsRefused(void) {
    buf blob;
    const int v[] = { 1, 2 };
    intset16(&blob, v, 2, 100);
    expectCorrupt(11, &blob, "Intset integrity check failed.");
    intset16(&blob, v, 2, 1);
    expectCorrupt(11, &blob, "Intset integrity check failed.");
}

/* Members out of order or repeated break every binary search; an
 * encoding that is not 2, 4 or 8 bytes is not an intset. */
static void testIntsetOutOfOrderOrBadEncodingIsRefused(void) {
    buf blob;
    const int unsorted[] = { 5, 1 }, repeated[] = { 1, 1 };
    intset16(&blob, unsorted, 2, 2);
    expectCorrupt(11, &blob, "Intset integrity check failed.");
    intset16(&blob, repeated, 2, 2);
    expectCorrupt(11, &blob, "Intset integrity check failed.");
    intset16(&blob, unsorted, 2, 2);
    blob.b[0] = 3;
    expectCorrupt(11, &blob, "Intset integrity check failed.");
}

/* An RDB base that ends early: Redis's short-read lines, then the AOF
 * loader's. */
static void testShortRdbBaseLogsRedisShortRead(void) {
    node n;
    buf blob, rdb;
    const char *items[] = { "f", "v" };
    listpack(&blob, items, 2);
    rdbWithBlob(&rdb, 16, &blob);
    rdb.len -= 14;                          /* inside the blob */
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK(loadFiles(&n, NULL, &rdb, "") != GK_OK);
    CHECK(nodeLogHas(&n, "# Short read or OOM loading DB. Unrecoverable "
                     "error, aborting now.\n"));
    CHECK(nodeLogHas(&n, " -> Unexpected EOF reading RDB file. Failure "
                     "loading rdb format from socket, assuming connection "
                     "error, resuming operation.\n"));
    CHECK(nodeLogHas(&n, "# Error reading the RDB base file "
                     "appendonly.aof.1.base.rdb, AOF loading aborted\n"));
    nodeClose(&n);
}

/* ---- The incr files. ---- */

/* SET with only a key would have the command read an argument that is
 * not there; the load stops instead, naming the command and the file. */
static void testWrongArityInIncrFileStopsTheLoad(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK(loadFiles(&n, NULL, NULL, SET_A "*2\r\n$3\r\nSET\r\n$1\r\nb\r\n")
          != GK_OK);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK(nodeLogHas(&n, "# Wrong number of arguments for 'set' command "
                     "reading the append only file "
                     "appendonly.aof.1.incr.aof\n"));
    CHECK(loadFiles(&n, NULL, NULL, "*2\r\n$4\r\nHSET\r\n$1\r\nh\r\n")
          != GK_OK);
    CHECK(nodeLogHas(&n, "# Wrong number of arguments for 'hset' command"));
    nodeClose(&n);
}

/* An unknown command stops the load with Redis's line. */
static void testUnknownCommandInIncrFileStopsTheLoad(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK(loadFiles(&n, NULL, NULL, SET_A "*1\r\n$5\r\nNOSUC\r\n") != GK_OK);
    CHECK(nodeLogHas(&n, "# Unknown command 'NOSUC' reading the append only "
                     "file appendonly.aof.1.incr.aof\n"));
    nodeClose(&n);
}

/* A host allocator that, like a 32-bit WebAssembly heap, cannot give
 * a gigabyte at once. */
static void *boundedAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) { free(ptr); return NULL; }
    return nsize >= (1u << 30) ? NULL : realloc(ptr, nsize);
}

/* "*2000000000" at the end of the file is a command cut short, not a
 * request for 16 GB: the argument array grows as arguments arrive, so
 * the file is truncated (aof-load-truncated yes) or refused (no). */
static void testHugeMultibulkCountIsATruncatedTail(void) {
    node n;
    gkConfig cfg = gktConfig(1);
    gkWorldCreate(&n.w, &cfg, boundedAlloc, NULL);
    gkServerAddConfig(n.w, "appendonly yes\n", &n.srv);
    CHECK_EQ_INT(loadFiles(&n, NULL, NULL, SET_A "*2000000000\r\n$3\r\n"
                           "SET\r\n"), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    CHECK(nodeLogHas(&n, "# !!! Truncating the AOF appendonly.aof.1.incr.aof"
                     " at offset 27 !!!"));
    CHECK(loadFiles(&n, NULL, NULL, SET_A "*3\r\n$2000000000\r\nab\r\n")
          == GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    CHECK(loadFiles(&n, "appendonly yes\naof-load-truncated no\n", NULL,
                    SET_A "*2147483647\r\n") != GK_OK);
    CHECK(nodeLogHas(&n, "# Unexpected end of file reading the append only "
                     "file appendonly.aof.1.incr.aof."));
    nodeClose(&n);
}

/* ---- The manifest. ---- */

/* A sequence number at LLONG_MAX loads (as in Redis); the rewrite that
 * would need the next number is refused instead of overflowing, so the
 * node keeps serving and starts again from the same manifest. */
static void testManifestSeqAtLlongMaxSurvivesRewrite(void) {
    node n;
    const char *m = "file appendonly.aof.9223372036854775807.base.rdb seq "
                    "9223372036854775807 type b\n"
                    "file appendonly.aof.9223372036854775807.incr.aof seq "
                    "9223372036854775807 type i\n";
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, m, strlen(m));
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/appendonly.aof."
                    "9223372036854775807.base.rdb", "", 0);
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/appendonly.aof."
                    "9223372036854775807.incr.aof", SET_A, strlen(SET_A));
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "-ERR Can't execute an AOF "
                 "background rewriting. Please check the server logs for "
                 "more information.\r\n");
    CHECK(nodeLogHas(&n, "# Can't rewrite the AOF: the sequence numbers of "
                     "the manifest are exhausted"));
    nodeCmd(&n, "SET b 2");
    nodeRun(&n, 2 * SEC);
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "MGET a b"), "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
    nodeClose(&n);
}

/* A sequence number past LLONG_MAX reads as LLONG_MAX (strtoll's
 * saturation, what glibc's atoll does for Redis), never as garbage. */
static void testManifestSeqPastLlongMaxSaturates(void) {
    node n;
    const char *m = "file b.rdb seq 99999999999999999999999 type b\n";
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, m, strlen(m));
    gkDiskWriteFile(n.w, n.srv, "appendonlydir/b.rdb", "", 0);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    char *f = nodeFile(&n, MANIFEST, 0, NULL);
    CHECK(f && strstr(f, "file b.rdb seq 9223372036854775807 type b\n"));
    free(f);
    nodeClose(&n);
}

/* Redis reads a manifest line with any even number of words (at least
 * six), so that later versions can add keys; a line with more keys than
 * these three still loads. A quoted name must end at a space. */
static void testManifestLineWithUnknownKeysLoads(void) {
    node n;
    const char *m = "file \"appendonly.aof.1.base.rdb\" seq 1 type b "
                    "startoffset 0 endoffset 100 k1 v1 k2 v2\n"
                    "file appendonly.aof.1.incr.aof seq 1 type i\n";
    const char *bad = "file \"appendonly.aof.1.base.rdb\"x seq 1 type b\n";
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, m, strlen(m));
    gkDiskWriteFile(n.w, n.srv, INCR1, SET_A, strlen(SET_A));
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, bad, strlen(bad));
    CHECK(nodeRestart(&n) != GK_OK);
    CHECK(nodeLogHas(&n, "# Invalid AOF manifest file format\n"));
    nodeClose(&n);
}

/* The manifest's lines are split as Redis splits them (sdssplitargs):
 * single quotes too, and a quote that opens inside a bare word. */
static void testManifestReadsSingleQuotesAsRedisDoes(void) {
    node n;
    const char *m = "file 'appendonly.aof.1.incr.aof' seq 1 type i\n";
    const char *mid = "file appendonly\".aof.1.incr.aof\" seq 1 type i\n";
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, m, strlen(m));
    gkDiskWriteFile(n.w, n.srv, INCR1, SET_A, strlen(SET_A));
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkDiskWriteFile(n.w, n.srv, MANIFEST, mid, strlen(mid));
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    nodeClose(&n);
}

static const char *filter;

#define RUNF(name, fn) do { if (!filter || strstr(name, filter)) \
    RUN(name, fn); } while (0)

int main(int argc, char **argv) {
    filter = argc > 1 ? argv[1] : NULL;
    RUNF("valid listpacks and intsets in the RDB base still load",
         testWellFormedCompactValuesLoad);
    RUNF("a hash listpack with an odd count stops the load",
         testHashListpackWithOddCountIsRefused);
    RUNF("a hash listpack with a duplicate field stops the load",
         testHashListpackWithDuplicateFieldIsRefused);
    RUNF("a zset listpack with a score that is not a number stops the load",
         testZsetListpackWithBadScoreIsRefused);
    RUNF("a listpack entry running past the blob stops the load",
         testListpackEntryPastTheEndIsRefused);
    RUNF("a listpack header, backlen or terminator that lies stops the load",
         testListpackTotalBytesMustMatchTheBlob);
    RUNF("an intset whose length lies stops the load",
         testIntsetWithLyingLengthIsRefused);
    RUNF("an intset out of order or with a bad encoding stops the load",
         testIntsetOutOfOrderOrBadEncodingIsRefused);
    RUNF("a short RDB base logs Redis's short-read lines",
         testShortRdbBaseLogsRedisShortRead);
    RUNF("a command with the wrong arity in an incr file stops the load",
         testWrongArityInIncrFileStopsTheLoad);
    RUNF("an unknown command in an incr file stops the load",
         testUnknownCommandInIncrFileStopsTheLoad);
    RUNF("a huge multibulk count at the tail is a truncated command",
         testHugeMultibulkCountIsATruncatedTail);
    RUNF("a manifest seq at LLONG_MAX survives a rewrite and a restart",
         testManifestSeqAtLlongMaxSurvivesRewrite);
    RUNF("a manifest seq past LLONG_MAX saturates",
         testManifestSeqPastLlongMaxSaturates);
    RUNF("a manifest line with keys the engine does not know still loads",
         testManifestLineWithUnknownKeysLoads);
    RUNF("a manifest's quotes are read as Redis reads them",
         testManifestReadsSingleQuotesAsRedisDoes);
    return gkTestReport();
}
