/* Tests of DUMP and RESTORE that a differential script cannot check: what
 * RESTORE propagates to the AOF (the ttl made absolute, a past ttl as a
 * DEL or nothing), that it counts one change, that the AOF brings
 * RESTOREd keys back with their ttls (at a restart and by DEBUG
 * LOADAOF), and that DUMP gives the same bytes after an RDB round trip.
 * The payloads themselves are compared with redis-server's in
 * tests/diff/scripts/dump_restore.redis and tests/server. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* A DUMP payload copied out of a reply. */
typedef struct payload {
    char bytes[4096];
    size_t len;
} payload;

/* DUMP key into p; 0 if the reply is not a bulk string. */
static int dumpKey(node *n, const char *key, payload *p) {
    char cmd[256];
    int len = snprintf(cmd, sizeof(cmd), "*2\r\n$4\r\nDUMP\r\n$%zu\r\n%s\r\n",
                       strlen(key), key);
    const char *r = nodeRaw(n, cmd, (size_t)len);
    if (r[0] != '$' || atoi(r + 1) < 0) return 0;
    const char *body = strstr(r, "\r\n") + 2;
    p->len = (size_t)atoi(r + 1);
    if (p->len > sizeof(p->bytes)) return 0;
    memcpy(p->bytes, body, p->len);
    return 1;
}

/* RESTORE key ttl payload [opts...]: the reply. */
static const char *restoreKey(node *n, const char *key, const char *ttl,
                              const payload *p, const char *opt1,
                              const char *opt2) {
    static char cmd[8192];
    const char *opts[2] = { opt1, opt2 };
    int argc = 4 + (opt1 != NULL) + (opt2 != NULL);
    size_t len = (size_t)snprintf(cmd, sizeof(cmd), "*%d\r\n$7\r\nRESTORE"
                                  "\r\n$%zu\r\n%s\r\n$%zu\r\n%s\r\n$%zu\r\n",
                                  argc, strlen(key), key, strlen(ttl), ttl,
                                  p->len);
    memcpy(cmd + len, p->bytes, p->len);
    len += p->len;
    memcpy(cmd + len, "\r\n", 2);
    len += 2;
    for (int i = 0; i < 2 && opts[i]; i++)
        len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "$%zu\r\n%s"
                                "\r\n", strlen(opts[i]), opts[i]);
    return nodeRaw(n, cmd, len);
}

/* Whether the len bytes at hay hold needle (payloads hold NUL bytes, so
 * the AOF is searched by length, not as a C string). */
static int holds(const char *hay, size_t len, const char *needle) {
    size_t nl = strlen(needle);
    for (size_t i = 0; hay && i + nl <= len; i++)
        if (!memcmp(hay + i, needle, nl)) return 1;
    return 0;
}

/* The integer of a ":N\r\n" reply, or -1. */
static long long intReply(const char *r) {
    return r[0] == ':' ? atoll(r + 1) : -1;
}

/* A relative ttl reaches the AOF as the unix time in ms it ends at, with
 * ABSTTL appended; an absolute one as given. */
static void testRestorePropagatesAnAbsoluteTtl(void) {
    node n;
    payload p;
    char want[256];
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "SET src hello");
    CHECK(dumpKey(&n, "src", &p));
    CHECK_EQ_STR(restoreKey(&n, "rel", "100000", &p, NULL, NULL), "+OK\r\n");
    long long when = intReply(nodeCmd(&n, "PEXPIRETIME rel"));
    CHECK(when > 100000);
    CHECK_EQ_STR(restoreKey(&n, "abs", "33177600000000", &p, "absttl",
                            NULL), "+OK\r\n");
    CHECK_EQ_STR(restoreKey(&n, "none", "0", &p, NULL, NULL), "+OK\r\n");
    size_t len;
    char *aof = nodeFile(&n, INCR1, 0, &len);
    snprintf(want, sizeof(want), "*5\r\n$7\r\nRESTORE\r\n$3\r\nrel\r\n$%d\r\n"
             "%lld\r\n$%zu\r\n", snprintf(NULL, 0, "%lld", when), when, p.len);
    CHECK(holds(aof, len, want));
    CHECK(holds(aof, len, "\r\n$6\r\nABSTTL\r\n*5\r\n$7\r\nRESTORE\r\n$3"
                             "\r\nabs\r\n$14\r\n33177600000000\r\n"));
    CHECK(holds(aof, len, "$6\r\nabsttl\r\n*4\r\n$7\r\nRESTORE\r\n$4\r\n"
                             "none\r\n$1\r\n0\r\n"));
    free(aof);
    nodeClose(&n);
}

/* A ttl already past creates nothing: without a key to replace nothing
 * is propagated or counted; with REPLACE the old key goes, as a DEL. */
static void testRestoreWithAPastTtl(void) {
    node n;
    payload p;
    size_t before, after;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "SET src hello");
    CHECK(dumpKey(&n, "src", &p));
    free(nodeFile(&n, INCR1, 0, &before));
    long long changes = nodeInfo(&n, "rdb_changes_since_last_save");
    CHECK_EQ_STR(restoreKey(&n, "gone", "1", &p, "ABSTTL", NULL), "+OK\r\n");
    CHECK_EQ_INT(intReply(nodeCmd(&n, "EXISTS gone")), 0);
    free(nodeFile(&n, INCR1, 0, &after));
    CHECK_EQ_INT(after, before);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), changes);
    CHECK_EQ_STR(restoreKey(&n, "src", "1", &p, "ABSTTL", "REPLACE"),
                 "+OK\r\n");
    CHECK_EQ_INT(intReply(nodeCmd(&n, "EXISTS src")), 0);
    char *aof = nodeFile(&n, INCR1, 0, NULL);
    CHECK(aof && !strcmp(aof + before, "*2\r\n$3\r\nDEL\r\n$3\r\nsrc\r\n"));
    free(aof);
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), changes + 1);
    nodeClose(&n);
}

/* RESTORE counts one change however many elements it creates (the
 * command that rebuilds the value runs uncounted). */
static void testRestoreCountsOneChange(void) {
    node n;
    payload p;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "HSET h a 1 b 2 c 3 d 4");
    CHECK(dumpKey(&n, "h", &p));
    long long changes = nodeInfo(&n, "rdb_changes_since_last_save");
    CHECK_EQ_STR(restoreKey(&n, "h2", "0", &p, NULL, NULL), "+OK\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), changes + 1);
    CHECK_EQ_STR(nodeCmd(&n, "HGET h2 c"), "$1\r\n3\r\n");
    nodeClose(&n);
}

/* The AOF brings RESTOREd keys back with the same absolute ttls, at a
 * restart and by DEBUG LOADAOF, after time has passed. */
static void testRestoredKeysComeBackFromTheAof(void) {
    node n;
    payload p;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n"
                    "enable-debug-command yes\n");
    nodeCmd(&n, "ZADD z 1 a 2 b");
    CHECK(dumpKey(&n, "z", &p));
    CHECK_EQ_STR(restoreKey(&n, "z2", "100000", &p, NULL, NULL), "+OK\r\n");
    long long when = intReply(nodeCmd(&n, "PEXPIRETIME z2"));
    nodeRun(&n, 2 * SEC);
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG LOADAOF"), "+OK\r\n");
    CHECK(nodeLogHas(&n, "Append Only File loaded by DEBUG LOADAOF"));
    CHECK_EQ_INT(intReply(nodeCmd(&n, "PEXPIRETIME z2")), when);
    CHECK_EQ_STR(nodeCmd(&n, "ZSCORE z2 b"), "$1\r\n2\r\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_INT(intReply(nodeCmd(&n, "PEXPIRETIME z2")), when);
    nodeClose(&n);
}

/* Every compact encoding DUMPs to the same bytes after DEBUG RELOAD has
 * written it to an RDB file and read it back. */
static void testDumpIsStableAcrossAnRdbRoundTrip(void) {
    static const char *const keys[] = { "s", "l", "is", "h", "z", NULL };
    payload before[5], after;
    node n;
    nodeOpen(&n, 1, "enable-debug-command yes\n");
    nodeCmd(&n, "SET s aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    nodeCmd(&n, "RPUSH l a b c 1 2 3");
    nodeCmd(&n, "SADD is 1 2 3 70000");
    nodeCmd(&n, "HSET h f v n 1");
    nodeCmd(&n, "ZADD z 1 a 2 b");
    for (int i = 0; keys[i]; i++) CHECK(dumpKey(&n, keys[i], &before[i]));
    CHECK_EQ_STR(nodeCmd(&n, "DEBUG RELOAD"), "+OK\r\n");
    for (int i = 0; keys[i]; i++) {
        CHECK(dumpKey(&n, keys[i], &after));
        CHECK(after.len == before[i].len &&
              !memcmp(after.bytes, before[i].bytes, after.len));
    }
    nodeClose(&n);
}

/* In the simulated world a node has no route to another server:
 * MIGRATE answers +NOKEY when it has nothing to move, and otherwise the
 * error of a target that cannot be reached, leaving the key in place and
 * counting no change. */
static void testMigrateInTheSimulatedWorld(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "MIGRATE 10.0.0.2 6379 k 0 1000"),
                 "+NOKEY\r\n");
    nodeCmd(&n, "SET k v");
    long long changes = nodeInfo(&n, "rdb_changes_since_last_save");
    CHECK_EQ_STR(nodeCmd(&n, "MIGRATE 10.0.0.2 6379 k 0 1000"),
                 "-IOERR error or timeout connecting to the client\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GET k"), "$1\r\nv\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), changes);
    CHECK(strstr(nodeCmd(&n, "INFO stats"),
                 "\r\nmigrate_cached_sockets:0\r\n"));
    nodeClose(&n);
}

int main(void) {
    RUN("RESTORE with a relative ttl is propagated with the absolute time "
        "and ABSTTL", testRestorePropagatesAnAbsoluteTtl);
    RUN("RESTORE with a past ttl creates nothing, and with REPLACE "
        "propagates the old key's deletion as DEL", testRestoreWithAPastTtl);
    RUN("RESTORE counts one change however many elements it creates",
        testRestoreCountsOneChange);
    RUN("RESTOREd keys come back from the AOF with the same absolute ttls",
        testRestoredKeysComeBackFromTheAof);
    RUN("DUMP gives the same bytes after an RDB round trip",
        testDumpIsStableAcrossAnRdbRoundTrip);
    RUN("MIGRATE in the simulated world answers NOKEY, or that the target "
        "cannot be reached, and keeps the key", testMigrateInTheSimulatedWorld);
    return gkTestReport();
}
