/* Tests of the string and hash commands added for Redis 7.0's type/string
 * and type/hash units that a differential script cannot check: MEMORY
 * USAGE's figures (jemalloc's size classes; tests/server/memory.test.mjs
 * holds them to a running redis-server's), long
 * float results read back, writes that change nothing, and HRANDFIELD's
 * reproducibility from the world's seed. Replies and errors are compared
 * with redis-server in tests/diff/scripts/strings_more.redis. */
#include "gktest.h"
#include "aofkit.h"

/* The integer of a ":N\r\n" reply, or -1. */
static long long intReply(const char *r) {
    return r[0] == ':' ? atoll(r + 1) : -1;
}

/* MEMORY USAGE adds up blocks as Redis 7.0 on jemalloc does, each at its
 * size class: the key "k" is a type-5 sds (1 + 1 + 1 bytes: an 8-byte
 * class) with a 24-byte dict entry; an INT value is a bare 16-byte object;
 * the "1.5" INCRBYFLOAT stores is an embstr, object and string in one
 * block (16 + 3 + 3 + 1: a 32-byte class). redis-server 7.0.15 answers
 * 48 and 64. */
static void testMemoryUsageAddsUpTheAllocatorsBlocks(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "SET k 12345");
    CHECK_EQ_INT(intReply(nodeCmd(&n, "MEMORY USAGE k")), 16 + 8 + 24);
    nodeCmd(&n, "DEL k");
    nodeCmd(&n, "INCRBYFLOAT k 1.5");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING k"), "$6\r\nembstr\r\n");
    CHECK_EQ_INT(intReply(nodeCmd(&n, "MEMORY USAGE k")), 32 + 8 + 24);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY USAGE nokey"), "$-1\r\n");
    /* The allocator is not jemalloc: MALLOC-STATS says what a Redis built
     * without it says. */
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY MALLOC-STATS"),
                 "$45\r\nStats not supported for the current allocator\r\n");
    nodeClose(&n);
}

/* A hashtable hash is estimated from its first fields: when all fields
 * and values have the same length, five samples give the exact figure
 * SAMPLES 0 (all of them) gives, which for these 600 fields is what
 * redis-server 7.0.15 answers: object, dict and 1024 buckets (16 + 56 +
 * 8192), 600 entries of a dictEntry and two 8-byte sds blocks, and the
 * key's sds and entry (8 + 24). */
static void testMemoryUsageScalesTheSampledAverage(void) {
    node n;
    char cmd[128];
    nodeOpen(&n, 1, NULL);
    for (int i = 0; i < 600; i++) {
        snprintf(cmd, sizeof(cmd), "HSET h f%04d v%04d", i, i);
        nodeCmd(&n, cmd);
    }
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING h"), "$9\r\nhashtable\r\n");
    long long all = intReply(nodeCmd(&n, "MEMORY USAGE h SAMPLES 0"));
    long long five = intReply(nodeCmd(&n, "MEMORY USAGE h"));
    CHECK_EQ_INT(all, 16 + 56 + 8192 + 600 * (24 + 8 + 8) + 8 + 24);
    CHECK_EQ_INT(five, all);
    nodeCmd(&n, "CONFIG SET hash-max-listpack-entries 1");
    nodeCmd(&n, "HSET small a 1 b 2");
    long long ht = intReply(nodeCmd(&n, "MEMORY USAGE small"));
    nodeCmd(&n, "DEL small");
    nodeCmd(&n, "CONFIG SET hash-max-listpack-entries 128");
    nodeCmd(&n, "HSET small a 1 b 2");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING small"),
                 "$8\r\nlistpack\r\n");
    CHECK(intReply(nodeCmd(&n, "MEMORY USAGE small")) < ht);
    nodeClose(&n);
}

/* Regression: INCRBYFLOAT read its value through a 128-byte buffer, so
 * after 1e308 + 1e308 (stored as 309 digits and 17 decimals' worth of
 * text) the next INCRBYFLOAT said "value is not a valid float". */
static void testIncrbyfloatReadsBackA300DigitFloat(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "SET f 1e308");
    const char *r = nodeCmd(&n, "INCRBYFLOAT f 1e308");
    CHECK_EQ_INT(atoi(r + 1), 309);
    r = nodeCmd(&n, "INCRBYFLOAT f 1");
    CHECK(r[0] == '$' && atoi(r + 1) == 309);
    r = nodeCmd(&n, "HINCRBYFLOAT h f 1e308");
    r = nodeCmd(&n, "HINCRBYFLOAT h f 1e308");
    CHECK(r[0] == '$' && atoi(r + 1) == 309);
    CHECK_EQ_INT(intReply(nodeCmd(&n, "HSTRLEN h f")), 309);
    nodeClose(&n);
}

/* Writes that change nothing are not counted as changes (so they are not
 * propagated either): SETBIT of the bit already there, GETEX without
 * options, GETEX PERSIST of a key without TTL, GETDEL of a missing key,
 * SETRANGE of an empty string. Those that change something count one. */
static void testWritesThatChangeNothingAreNotCounted(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "SETBIT b 9 1");
    nodeCmd(&n, "SET s v");
    long long before = nodeInfo(&n, "rdb_changes_since_last_save");
    nodeCmd(&n, "SETBIT b 9 1");
    nodeCmd(&n, "GETEX s");
    nodeCmd(&n, "GETEX s PERSIST");
    nodeCmd(&n, "GETDEL nokey");
    nodeCmd(&n, "SETRANGE s 0 \"\"");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), before);
    nodeCmd(&n, "SETBIT b 9 0");
    nodeCmd(&n, "GETEX s EX 100");
    nodeCmd(&n, "GETEX s PERSIST");
    nodeCmd(&n, "SETRANGE s 1 x");
    nodeCmd(&n, "GETDEL s");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), before + 5);
    nodeClose(&n);
}

/* The replies of HRANDFIELD key n for every sampling path, concatenated
 * into buf, in a world of the given seed. */
static void hrandSamples(uint64_t seed, char *buf, size_t cap) {
    static const char *const cmds[] = {
        "HRANDFIELD h", "HRANDFIELD h -5 WITHVALUES", "HRANDFIELD h 9",
        "HRANDFIELD h 2", "HRANDFIELD big 30", "HRANDFIELD big 2",
        "HRANDFIELD big -4", NULL
    };
    node n;
    char cmd[64];
    nodeOpen(&n, seed, NULL);
    nodeCmd(&n, "HSET h a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10");
    for (int i = 0; i < 300; i++) {
        snprintf(cmd, sizeof(cmd), "HSET big f%d %d", i, i);
        nodeCmd(&n, cmd);
    }
    buf[0] = '\0';
    for (int i = 0; cmds[i]; i++)
        strncat(buf, nodeCmd(&n, cmds[i]), cap - strlen(buf) - 1);
    nodeClose(&n);
}

/* HRANDFIELD draws from the world's PRNG, so one seed gives the same
 * samples every time and another seed gives others. */
static void testHrandfieldIsReproducibleFromTheSeed(void) {
    static char a[1 << 14], b[1 << 14], c[1 << 14];
    hrandSamples(7, a, sizeof(a));
    hrandSamples(7, b, sizeof(b));
    hrandSamples(8, c, sizeof(c));
    CHECK(strlen(a) > 100);
    CHECK_EQ_STR(a, b);
    CHECK(strcmp(a, c) != 0);
}

/* In RESP3 HRANDFIELD's WITHVALUES reply is an array of [field, value]
 * pairs, LCS IDX answers a map and a missing key is RESP3's null; the
 * bytes are redis-server 7.0.15's. */
static void testResp3ShapesOfHrandfieldAndLcs(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "HELLO 3");
    nodeCmd(&n, "HSET one only 1");
    CHECK_EQ_STR(nodeCmd(&n, "HRANDFIELD one -2 WITHVALUES"),
                 "*2\r\n*2\r\n$4\r\nonly\r\n$1\r\n1\r\n"
                 "*2\r\n$4\r\nonly\r\n$1\r\n1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "HRANDFIELD one 1"), "*1\r\n$4\r\nonly\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "HRANDFIELD one 5 WITHVALUES"),
                 "*1\r\n*2\r\n$4\r\nonly\r\n$1\r\n1\r\n");
    nodeCmd(&n, "SET v1 ohmytext");
    nodeCmd(&n, "SET v2 mynewtext");
    CHECK_EQ_STR(nodeCmd(&n, "LCS v1 v2 IDX MINMATCHLEN 4 WITHMATCHLEN"),
                 "%2\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n"
                 "*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "HRANDFIELD nokey"), "_\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GETEX nokey"), "_\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY USAGE nokey"), "_\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("MEMORY USAGE adds up the allocator's blocks of a value, its key "
        "and its dict entry", testMemoryUsageAddsUpTheAllocatorsBlocks);
    RUN("MEMORY USAGE scales the sampled average of a hashtable to every "
        "field", testMemoryUsageScalesTheSampledAverage);
    RUN("INCRBYFLOAT and HINCRBYFLOAT read back the 309-digit result of "
        "1e308 + 1e308", testIncrbyfloatReadsBackA300DigitFloat);
    RUN("writes that change nothing are not counted as changes",
        testWritesThatChangeNothingAreNotCounted);
    RUN("HRANDFIELD samples are reproducible from the world's seed",
        testHrandfieldIsReproducibleFromTheSeed);
    RUN("HRANDFIELD WITHVALUES answers pairs and LCS IDX a map in RESP3",
        testResp3ShapesOfHrandfieldAndLcs);
    return gkTestReport();
}
