/* Tests of the list type through the world: replies, the settings a list
 * keeps, what the AOF receives, the rewrite, restarts from either base,
 * the dataset digest, lazy freeing, DEBUG OBJECT and DEBUG RELOAD. The
 * replies of every command and error are compared with redis-server byte
 * for byte in tests/diff/scripts/lists*.redis; these check what a script
 * cannot. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* Where the value of a DEBUG OBJECT field starts in n->out, or "". */
static const char *debugField(node *n, const char *key, const char *field) {
    char line[128], want[64];
    snprintf(line, sizeof(line), "DEBUG OBJECT %s", key);
    nodeCmd(n, line);
    snprintf(want, sizeof(want), " %s:", field);
    const char *p = strstr(n->out, want);
    return p ? p + strlen(want) : "";
}

static long debugNum(node *n, const char *key, const char *field) {
    return atol(debugField(n, key, field));
}

/* A command of count elements named prefix0, prefix1... (each padded to
 * pad bytes with 'x'), built in buf. */
static const char *pushMany(char *buf, size_t cap, const char *verb,
                            const char *key, const char *prefix, int count,
                            int pad) {
    size_t n = (size_t)snprintf(buf, cap, "%s %s", verb, key);
    for (int i = 0; i < count && n + pad + 32 < cap; i++) {
        n += (size_t)snprintf(buf + n, cap - n, " %s%d", prefix, i);
        for (int k = 0; k < pad; k++) buf[n++] = 'x';
        buf[n] = '\0';
    }
    return buf;
}

static void testListRepliesAndEncoding(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "RPUSH l a b 3"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LPUSH l z"), ":4\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE l 0 -1"),
                 "*4\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING l"), "$9\r\nquicklist\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "TYPE l"), "+list\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LPOP nope 1"), "*-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LPOP nope"), "$-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LPOP l 0"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LMPOP 2 nope l RIGHT COUNT 2"),
                 "*2\r\n$1\r\nl\r\n*2\r\n$1\r\n3\r\n$1\r\nb\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET s v"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LLEN s"),
                 "-WRONGTYPE Operation against a key holding the wrong kind "
                 "of value\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LMOVE l l LEFT RIGHT"), "$1\r\nz\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE l 0 -1"),
                 "*2\r\n$1\r\na\r\n$1\r\nz\r\n");
    nodeClose(&n);
}

/* CONFIG SET changes the nodes of lists made afterwards only. */
static void testAListKeepsTheSettingsItWasCreatedWith(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET list-max-ziplist-size 2"),
                 "+OK\r\n");
    nodeCmd(&n, "RPUSH a 1 2 3");
    CHECK_EQ_INT(debugNum(&n, "a", "ql_nodes"), 2);
    CHECK_EQ_INT(debugNum(&n, "a", "ql_listpack_max"), 2);
    nodeCmd(&n, "CONFIG SET list-max-listpack-size -2");
    nodeCmd(&n, "CONFIG SET list-compress-depth 1");
    nodeCmd(&n, "RPUSH a 4 5");
    nodeCmd(&n, "RPUSH b 1 2 3 4 5");
    CHECK_EQ_INT(debugNum(&n, "a", "ql_nodes"), 3);
    CHECK_EQ_INT(debugNum(&n, "a", "ql_compressed"), 0);
    CHECK_EQ_INT(debugNum(&n, "b", "ql_nodes"), 1);
    CHECK_EQ_INT(debugNum(&n, "b", "ql_compressed"), 1);
    CHECK_EQ_STR(debugField(&n, "b", "ql_uncompressed_size"), "17\r\n");
    nodeCmd(&n, "DEBUG QUICKLIST-PACKED-THRESHOLD 3");
    nodeCmd(&n, "RPUSH b big");
    CHECK_EQ_INT(debugNum(&n, "b", "ql_nodes"), 2);
    nodeCmd(&n, "DEBUG QUICKLIST-PACKED-THRESHOLD 0");
    nodeClose(&n);
}

/* LPOP and RPOP with a count go to the AOF as written; LMPOP as the LPOP
 * or RPOP of what it popped; a pop of nothing, a trim of nothing and a
 * failed LINSERT not at all. */
static void testListWritesReachTheAofAsRedisPropagatesThem(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    const char *script[] = { "rpush l a b c d e f", "lpop l 2",
        "lpop l 0", "lmpop 2 nope l right count 10", "lmpop 1 l left",
        "rpush l x", "ltrim l 0 -1", "linsert l before nope y",
        "rpoplpush l m", "lmove m m left right", NULL };
    for (int i = 0; script[i]; i++) nodeCmd(&n, script[i]);
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK_EQ_STR(f ? f : "",
        "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
        "*8\r\n$5\r\nrpush\r\n$1\r\nl\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"
        "$1\r\nd\r\n$1\r\ne\r\n$1\r\nf\r\n"
        "*3\r\n$4\r\nlpop\r\n$1\r\nl\r\n$1\r\n2\r\n"
        "*3\r\n$4\r\nRPOP\r\n$1\r\nl\r\n$1\r\n4\r\n"
        "*3\r\n$5\r\nrpush\r\n$1\r\nl\r\n$1\r\nx\r\n"
        "*3\r\n$9\r\nrpoplpush\r\n$1\r\nl\r\n$1\r\nm\r\n"
        "*5\r\n$5\r\nlmove\r\n$1\r\nm\r\n$1\r\nm\r\n$4\r\nleft\r\n"
        "$5\r\nright\r\n");
    free(f);
    nodeClose(&n);
}

/* How many times needle occurs in hay. */
static int occurrences(const char *hay, const char *needle) {
    int k = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) k++;
    return k;
}

static void testRewriteWritesListsAsRpushOf64(void) {
    node n;
    static char buf[1 << 15];
    nodeOpen(&n, 1, "appendonly yes\naof-use-rdb-preamble no\n");
    nodeCmd(&n, pushMany(buf, sizeof(buf), "RPUSH", "l", "e", 130, 0));
    nodeCmd(&n, "BGREWRITEAOF");
    nodeRun(&n, 500 * MS);
    char *f = nodeFile(&n, "appendonlydir/appendonly.aof.2.base.aof", 0,
                       NULL);
    CHECK(f != NULL);
    CHECK_EQ_INT(occurrences(f ? f : "", "*66\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n"
                                        "$2\r\ne0\r\n"), 1);
    CHECK_EQ_INT(occurrences(f ? f : "", "*66\r\n$5\r\nRPUSH\r\n"), 2);
    CHECK_EQ_INT(occurrences(f ? f : "", "*4\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n"
                                        "$4\r\ne128\r\n$4\r\ne129\r\n"), 1);
    free(f);
    nodeClose(&n);
}

/* Every list, its elements in order, as one string. */
static void describeLists(node *n, char *out, size_t cap) {
    const char *keys[] = { "small", "long", "plain", "nums", NULL };
    size_t len = 0;
    for (int i = 0; keys[i]; i++) {
        char c[64];
        snprintf(c, sizeof(c), "LRANGE %s 0 -1", keys[i]);
        len += (size_t)snprintf(out + len, cap - len, "%s=%s|", keys[i],
                                nodeCmd(n, c));
    }
}

/* A restart from an RDB base (lists as type 18, compressed nodes as LZF
 * strings, plain nodes) or a command base, then the incr file, holds the
 * same lists. */
static void restartKeepsLists(const char *conf) {
    node n;
    static char buf[1 << 16], before[1 << 17], after[1 << 17];
    nodeOpen(&n, 1, conf);
    nodeCmd(&n, "CONFIG SET list-max-listpack-size 4");
    nodeCmd(&n, "CONFIG SET list-compress-depth 1");
    nodeCmd(&n, "RPUSH small a");
    nodeCmd(&n, pushMany(buf, sizeof(buf), "RPUSH", "long", "v", 40, 60));
    nodeCmd(&n, "RPUSH nums 1 -2 300000 9223372036854775807 007");
    nodeCmd(&n, "DEBUG QUICKLIST-PACKED-THRESHOLD 50");
    nodeCmd(&n, pushMany(buf, sizeof(buf), "LPUSH", "plain", "p", 5, 60));
    nodeCmd(&n, "RPUSH plain s");
    nodeCmd(&n, "DEBUG QUICKLIST-PACKED-THRESHOLD 0");
    CHECK(debugNum(&n, "long", "ql_nodes") == 10);
    nodeCmd(&n, "BGREWRITEAOF");
    nodeRun(&n, 500 * MS);
    nodeCmd(&n, "LSET long 20 changed");
    nodeCmd(&n, "LPOP small");
    describeLists(&n, before, sizeof(before));
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    describeLists(&n, after, sizeof(after));
    CHECK_EQ_STR(after, before);
    CHECK(strstr(after, "small=*0\r\n|") != NULL);
    nodeClose(&n);
}

static void testRestartRebuildsLists(void) {
    restartKeepsLists("appendonly yes\n");
    restartKeepsLists("appendonly yes\naof-use-rdb-preamble no\n");
}

static uint64_t datasetDigest(node *n) {
    uint64_t d = 0;
    CHECK_EQ_INT(gkServerDatasetDigest(n->w, n->srv, 0, &d), GK_OK);
    return d;
}

/* The dataset digest sees a list's elements in order and nothing of its
 * nodes: the same elements under another fill or compression digest the
 * same, the same elements in another order do not. */
static void testTheDatasetDigestFollowsOrderNotNodes(void) {
    node a, b;
    static char buf[1 << 15];
    nodeOpen(&a, 1, NULL);
    nodeOpen(&b, 2, NULL);
    nodeCmd(&b, "CONFIG SET list-max-listpack-size 3");
    nodeCmd(&b, "CONFIG SET list-compress-depth 1");
    nodeCmd(&a, pushMany(buf, sizeof(buf), "RPUSH", "l", "e", 50, 40));
    nodeCmd(&b, pushMany(buf, sizeof(buf), "RPUSH", "l", "e", 50, 40));
    CHECK(debugNum(&b, "l", "ql_nodes") == 17);
    CHECK(datasetDigest(&a) == datasetDigest(&b));
    nodeCmd(&a, "LMOVE l l LEFT RIGHT");
    CHECK(datasetDigest(&a) != datasetDigest(&b));
    nodeCmd(&b, "LMOVE l l LEFT RIGHT");
    CHECK(datasetDigest(&a) == datasetDigest(&b));
    /* A list and a set of the same members are different values. */
    nodeCmd(&a, "RPUSH t x");
    nodeCmd(&b, "SADD t x");
    CHECK(datasetDigest(&a) != datasetDigest(&b));
    nodeClose(&a);
    nodeClose(&b);
}

/* Two worlds given the same commands on compressed lists are the same
 * world, and reading a compressed list leaves its nodes as they were. */
static void testCompressedListsAreDeterministic(void) {
    node a, b;
    uint64_t da, db;
    static char buf[1 << 15];
    for (int k = 0; k < 2; k++) {
        node *n = k ? &b : &a;
        nodeOpen(n, 5, NULL);
        nodeCmd(n, "CONFIG SET list-compress-depth 1");
        nodeCmd(n, "CONFIG SET list-max-listpack-size 8");
        nodeCmd(n, pushMany(buf, sizeof(buf), "RPUSH", "l", "e", 80, 30));
        nodeCmd(n, "LINSERT l AFTER e40xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx mid");
        nodeCmd(n, "LREM l 1 e3xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    }
    gkWorldDigest(a.w, &da);
    gkWorldDigest(b.w, &db);
    CHECK(da == db);
    long nodes = debugNum(&a, "l", "ql_nodes");
    for (int k = 0; k < 2; k++) {
        node *n = k ? &b : &a;
        nodeCmd(n, "LRANGE l 0 -1");
        CHECK(strstr(n->out, "$3\r\nmid\r\n") != NULL);
        nodeCmd(n, "LINDEX l 40");
        CHECK_EQ_STR(n->out, "$3\r\nmid\r\n");
    }
    CHECK_EQ_INT(debugNum(&a, "l", "ql_nodes"), nodes);
    CHECK_EQ_INT(debugNum(&b, "l", "ql_nodes"), nodes);
    debugNum(&b, "l", "ql_nodes");      /* as many commands as a had */
    gkWorldDigest(a.w, &da);
    gkWorldDigest(b.w, &db);
    CHECK(da == db);
    nodeClose(&a);
    nodeClose(&b);
}

/* Jobs of the lazy-free thread the trace shows queued since seq from. */
static int lazyFreeJobs(node *n, uint64_t from) {
    gkTraceRecord rec[4096];
    size_t k = gkTraceRead(n->w, from, rec, 4096);
    int q = 0;
    for (size_t i = 0; i < k; i++)
        q += rec[i].type == GK_TR_BIO && rec[i].a == GK_BIO_LAZY_FREE &&
             rec[i].b == GK_JOB_QUEUED;
    return q;
}

/* A list's freeing effort is its node count, as in Redis: UNLINK of a
 * list of more than 64 nodes goes to the lazy-free thread, UNLINK of a
 * long list in one node does not. */
static void testUnlinkOfAListOfManyNodesIsLazy(void) {
    node n;
    static char buf[1 << 15];
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, pushMany(buf, sizeof(buf), "RPUSH", "onenode", "e", 500, 0));
    nodeCmd(&n, "CONFIG SET list-max-listpack-size 1");
    nodeCmd(&n, pushMany(buf, sizeof(buf), "RPUSH", "many", "e", 65, 0));
    CHECK_EQ_INT(debugNum(&n, "many", "ql_nodes"), 65);
    /* UNLINK's first call makes its latency histogram (24 KB). */
    nodeCmd(&n, "UNLINK nosuchkey");
    uint64_t from = gkTraceLastSeq(n.w);
    size_t used = gkWorldMemory(n.w);
    CHECK_EQ_STR(nodeCmd(&n, "UNLINK onenode"), ":1\r\n");
    CHECK_EQ_INT(lazyFreeJobs(&n, from), 0);
    CHECK(gkWorldMemory(n.w) < used);
    CHECK_EQ_STR(nodeCmd(&n, "UNLINK many"), ":1\r\n");
    CHECK_EQ_INT(lazyFreeJobs(&n, from), 1);
    nodeClose(&n);
}

/* DEBUG RELOAD writes dump.rdb (RDB 10, no aof-base), empties the
 * dataset and loads the file back: lists, TTLs and all; nothing reaches
 * the AOF. NOSAVE loads the file as it is, MERGE NOFLUSH lets its keys
 * replace those still there, NOFLUSH alone refuses a key found twice. */
static void testDebugReloadRoundTripsTheDataset(void) {
    node n;
    static char before[1 << 15], after[1 << 15];
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "CONFIG SET list-compress-depth 1");
    nodeCmd(&n, "CONFIG SET list-max-listpack-size 2");
    nodeCmd(&n, "RPUSH long "
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 "
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2 "
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa3 x y z");
    nodeCmd(&n, "RPUSH small 1 2 3");
    nodeCmd(&n, "SET s v EX 100");
    nodeCmd(&n, "HSET h f v");
    size_t aof0 = 0, aof1 = 0;
    free(nodeFile(&n, INCR1, 0, &aof0));
    snprintf(before, sizeof(before), "%s", nodeCmd(&n, "LRANGE long 0 -1"));
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD"), "+OK\r\n");
    snprintf(after, sizeof(after), "%s", nodeCmd(&n, "LRANGE long 0 -1"));
    CHECK_EQ_STR(after, before);
    CHECK_EQ_STR(nodeCmd(&n, "LRANGE small 0 -1"),
                 "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "TTL s"), ":100\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "HGET h f"), "$1\r\nv\r\n");
    CHECK(nodeLogHas(&n, "DB saved on disk"));
    CHECK(nodeLogHas(&n, "DB reloaded by DEBUG RELOAD"));
    size_t len = 0;
    char *dump = nodeFile(&n, "dump.rdb", 0, &len);
    CHECK(dump && len > 9 && !memcmp(dump, "REDIS0010", 9));
    free(dump);
    free(nodeFile(&n, INCR1, 0, &aof1));
    CHECK_EQ_INT(aof1, aof0);
    nodeCmd(&n, "LPUSH small 0");
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD NOSAVE NOFLUSH"),
                 "-ERR Error trying to load the RDB dump\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD NOSAVE NOFLUSH MERGE"),
                 "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LLEN small"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD NOSAVE FOO"),
                 "-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and "
                 "NOSAVE options.\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("list commands reply as Redis 7.0 and OBJECT ENCODING says "
        "quicklist", testListRepliesAndEncoding);
    RUN("a list keeps the fill and compress depth it was created with",
        testAListKeepsTheSettingsItWasCreatedWith);
    RUN("list writes reach the AOF as Redis 7.0 propagates them",
        testListWritesReachTheAofAsRedisPropagatesThem);
    RUN("the AOF rewrite writes a list as RPUSH commands of 64 elements",
        testRewriteWritesListsAsRpushOf64);
    RUN("a restart from an RDB or command base rebuilds lists, compressed "
        "and plain nodes included", testRestartRebuildsLists);
    RUN("the dataset digest follows a list's order, not its nodes",
        testTheDatasetDigestFollowsOrderNotNodes);
    RUN("compressed lists replay identically and reads leave their nodes "
        "as they were", testCompressedListsAreDeterministic);
    RUN("UNLINK of a list of more than 64 nodes frees it on the lazy-free "
        "thread", testUnlinkOfAListOfManyNodesIsLazy);
    RUN("DEBUG RELOAD saves dump.rdb and loads it back, lists included, "
        "with nothing propagated", testDebugReloadRoundTripsTheDataset);
    return gkTestReport();
}
