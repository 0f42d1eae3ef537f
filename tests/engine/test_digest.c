/* Tests of gkWorldDigest: equal for worlds built alike, different for any
 * change of data, time or table shape, and free of side effects. */
#include <stdio.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

typedef struct session { gkWorld *w; int srv, conn; char out[4096]; } session;

static void open_(session *s, uint64_t seed) {
    gkConfig cfg = gktConfig(seed);
    gktServerOpen(&cfg, &s->w, &s->srv, &s->conn);
}

static const char *cmd(session *s, const char *line) {
    return gktExchange(s->w, s->conn, line, strlen(line), s->out,
                       sizeof(s->out));
}

static uint64_t digest(session *s) {
    uint64_t d = 0;
    gkWorldDigest(s->w, &d);
    return d;
}

static void build(session *s, uint64_t seed) {
    open_(s, seed);
    cmd(s, "SET a 1\r\n");
    cmd(s, "HSET h f v\r\n");
    cmd(s, "SET t x PX 500000\r\n");
    cmd(s, "DEBUG POPULATE 300\r\n");
}

static void testSameWorldsSameDigest(void) {
    session a, b;
    build(&a, 9);
    build(&b, 9);
    CHECK(digest(&a) == digest(&b));
    CHECK(digest(&a) == digest(&a));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

static void testAnyChangeChangesIt(void) {
    session a, b;
    build(&a, 9);
    build(&b, 9);
    cmd(&b, "SET a 2\r\n");
    CHECK(digest(&a) != digest(&b));
    cmd(&a, "SET a 2\r\n");
    CHECK(digest(&a) == digest(&b));
    /* Same key, same value, other TTL. */
    cmd(&a, "PEXPIRE a 1000000\r\n");
    cmd(&b, "PEXPIRE a 1000001\r\n");
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);

    build(&a, 9);
    build(&b, 10);   /* another seed: another PRNG state and hash seed */
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(b.w);
    /* Same seed, same keys; one more incremental rehash step in one. */
    build(&b, 9);
    gkDictInfo info;
    gkDictGetInfo(b.w, b.srv, 0, GK_DICT_KEYS, &info);
    if (info.rehashidx == -1) {     /* start a rehash in both */
        cmd(&a, "DEBUG POPULATE 1000 more\r\n");
        cmd(&b, "DEBUG POPULATE 1000 more\r\n");
        gkDictGetInfo(b.w, b.srv, 0, GK_DICT_KEYS, &info);
    }
    CHECK(info.rehashidx != -1);
    CHECK(digest(&a) == digest(&b));
    gkDictRehashSteps(b.w, b.srv, 0, GK_DICT_KEYS, 1);
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
    build(&a, 9);
    build(&b, 9);
    gkWorldRunUntil(b.w, gkWorldNow(b.w) + 1);
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* The RDB writer looks expires up, which would take a rehash step: the
 * digest must leave a rehashing dict exactly where it was. */
static void testNoSideEffectsWhileRehashing(void) {
    session a, b;
    build(&a, 3);
    build(&b, 3);
    cmd(&a, "CONFIG SET activerehashing no\r\n");
    cmd(&b, "CONFIG SET activerehashing no\r\n");
    char line[64];
    for (int i = 0; i < 40; i++) {
        snprintf(line, sizeof(line), "SET e%d v PX 900000\r\n", i);
        cmd(&a, line);
        cmd(&b, line);
    }
    gkDictInfo before, after;
    int rehashing = 0;
    for (int i = 40; i < 4000 && !rehashing; i++) {
        snprintf(line, sizeof(line), "SET e%d v PX 900000\r\n", i);
        cmd(&a, line);
        cmd(&b, line);
        gkDictGetInfo(a.w, a.srv, 0, GK_DICT_EXPIRES, &before);
        rehashing = before.rehashidx >= 0;
    }
    CHECK(rehashing);
    size_t mem = gkWorldMemory(a.w);
    uint64_t d1 = digest(&a);
    gkDictGetInfo(a.w, a.srv, 0, GK_DICT_EXPIRES, &after);
    CHECK_EQ_INT(after.rehashidx, before.rehashidx);
    CHECK_EQ_INT(after.pauserehash, 0);
    CHECK_EQ_INT(gkWorldMemory(a.w), mem);
    CHECK(digest(&a) == d1);
    CHECK(digest(&b) == d1);
    /* used_memory_peak included: b never computed a digest. */
    CHECK_EQ_STR(cmd(&a, "INFO memory\r\n"), cmd(&b, "INFO memory\r\n"));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

int main(void) {
    RUN("worlds built alike have the same digest", testSameWorldsSameDigest);
    RUN("a value, a TTL, the hash seed or a nanosecond changes the digest",
        testAnyChangeChangesIt);
    RUN("the digest leaves a rehashing dict and memory as they were",
        testNoSideEffectsWhileRehashing);
    return gkTestReport();
}
