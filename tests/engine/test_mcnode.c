/* Tests of the memcached-style node as a host of a world it shares with a
 * Redis-style server: started at a chosen host id, started anew in place,
 * on the world's clock, with memory and random numbers of its own. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

#define MC (GK_MAX_NODES - 1)

typedef struct shared {
    gkWorld *w;
    int srv, conn, mc, mconn;
    char out[8192];
} shared;

static void open_(shared *s, uint64_t seed) {
    gkConfig cfg = gktConfig(seed);
    CHECK_EQ_INT(gktServerOpen(&cfg, &s->w, &s->srv, &s->conn), GK_OK);
    s->mc = MC;
}

static void startMc(shared *s, const char *opts) {
    CHECK_EQ_INT(gkMemcachedStart(s->w, MC, opts), GK_OK);
    CHECK_EQ_INT(gkConnOpen(s->w, MC, &s->mconn), GK_OK);
}

static const char *redis(shared *s, const char *line) {
    return gktExchange(s->w, s->conn, line, strlen(line), s->out,
                       sizeof(s->out));
}

static const char *mc(shared *s, const char *bytes) {
    return gktExchange(s->w, s->mconn, bytes, strlen(bytes), s->out,
                       sizeof(s->out));
}

static void testIdsBelowStayFree(void) {
    shared s;
    open_(&s, 1);
    startMc(&s, "");
    gkWorkloadSpec spec;
    gkWorkloadSpecInit(&spec);
    spec.clients = 1;
    spec.requests = 10;
    int a = -1, b = -1;
    CHECK_EQ_INT(gkWorkloadStart(s.w, s.srv, &spec, &a), GK_OK);
    CHECK_EQ_INT(gkWorkloadStart(s.w, s.srv, &spec, &b), GK_OK);
    CHECK_EQ_INT(a, 1);
    CHECK_EQ_INT(b, 2);
    gkNodeStats st;
    CHECK_EQ_INT(gkNodeGetStats(s.w, 7, &st), GK_ENOTFOUND);
    int conn;
    CHECK_EQ_INT(gkConnOpen(s.w, 7, &conn), GK_ENOTFOUND);
    CHECK_EQ_INT(gkMemcachedStart(s.w, s.srv, ""), GK_EINVAL);
    CHECK_EQ_INT(gkMemcachedStart(s.w, GK_MAX_NODES, ""), GK_EINVAL);
    CHECK_EQ_INT(gkMemcachedStart(s.w, -1, ""), GK_EINVAL);
    /* The ids left fill up, then the world is full. */
    for (int i = 3; i < MC; i++) {
        int id = -1;
        CHECK_EQ_INT(gkWorkloadStart(s.w, s.srv, &spec, &id), GK_OK);
        CHECK_EQ_INT(id, i);
    }
    CHECK_EQ_INT(gkWorkloadStart(s.w, s.srv, &spec, &a), GK_EINVAL);
    CHECK_EQ_INT(gkMemcachedAdd(s.w, "", &a), GK_EINVAL);
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 100000000ULL);
    CHECK_EQ_STR(mc(&s, "version\r\n"), "VERSION 1.6.18\r\n");
    gkWorldRelease(s.w);
}

static void testStartedAnewInPlace(void) {
    shared s;
    open_(&s, 1);
    startMc(&s, "");
    CHECK_EQ_STR(mc(&s, "set k 0 0 1\r\nx\r\n"), "STORED\r\n");
    gkNodeStats before, after;
    gkNodeGetStats(s.w, MC, &before);
    /* Refused options leave it running, with memcached's message. */
    CHECK_EQ_INT(gkMemcachedStart(s.w, MC, "-f 1"), GK_EINVAL);
    CHECK(strstr(gkWorldLastError(s.w), "Factor must be greater than 1"));
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.mconn), 1);
    CHECK_EQ_STR(mc(&s, "get k\r\n"), "VALUE k 0 1\r\nx\r\nEND\r\n");
    CHECK_EQ_INT(gkMemcachedStart(s.w, MC, "-m 8"), GK_OK);
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.mconn), 0);
    gkConnClose(s.w, s.mconn);
    CHECK_EQ_INT(gkConnOpen(s.w, MC, &s.mconn), GK_OK);
    CHECK_EQ_STR(mc(&s, "get k\r\n"), "END\r\n");
    mc(&s, "stats settings\r\n");
    CHECK(strstr(s.out, "STAT maxbytes 8388608\r\n") != NULL);
    gkNodeGetStats(s.w, MC, &after);
    CHECK(after.iterations > before.iterations);
    gkWorldRelease(s.w);
}

/* RANDOMKEY draws from the PRNG the server shares with the world: a
 * memcached node started in between must not move it. */
static void testDrawsNothingFromTheWorldsPrng(void) {
    shared a, b;
    char ra[4096] = "", rb[4096] = "";
    open_(&a, 3);
    open_(&b, 3);
    redis(&a, "DEBUG POPULATE 1000\r\n");
    redis(&b, "DEBUG POPULATE 1000\r\n");
    startMc(&b, "-m 16");
    mc(&b, "set k 0 0 1\r\nx\r\n");
    for (int i = 0; i < 20; i++) {
        strncat(ra, redis(&a, "RANDOMKEY\r\n"), 100);
        strncat(rb, redis(&b, "RANDOMKEY\r\n"), 100);
    }
    CHECK_EQ_STR(ra, rb);
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

static void testExpiryFollowsTheWorldsClock(void) {
    shared s;
    open_(&s, 1);
    startMc(&s, "");
    CHECK_EQ_STR(mc(&s, "set t 0 2 1\r\nx\r\n"), "STORED\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 1500000000ULL);
    CHECK_EQ_STR(mc(&s, "get t\r\n"), "VALUE t 0 1\r\nx\r\nEND\r\n");
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 1500000000ULL);
    CHECK_EQ_STR(mc(&s, "get t\r\n"), "END\r\n");
    gkWorldRelease(s.w);
}

/* The items are the node's memory: the Redis server's used_memory (the
 * world's) is the same after a fill as before it. */
static void testItemsAreTheNodesMemory(void) {
    shared s;
    open_(&s, 1);
    startMc(&s, "-m 64");
    gkMcFillSpec sp = gktFillSpec(GK_MC_DIST_FIXED, 100, 0, 20000, 20000,
                                  10, 1);
    gkMcFillResult r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(gkMemcachedFill(s.w, MC, &sp, 0, 100, &r), GK_OK);
    size_t mem = gkWorldMemory(s.w);
    CHECK_EQ_INT(gkMemcachedFill(s.w, MC, &sp, 100, 19900, &r), GK_OK);
    CHECK_EQ_INT(r.stored, 20000);
    CHECK_EQ_INT(gkWorldMemory(s.w), mem);
    gkWorldRelease(s.w);
}

int main(void) {
    RUN("a memcached node at the last host id leaves the ids below it to client "
        "programs", testIdsBelowStayFree);
    RUN("starting the node again replaces its process in place; refused "
        "options leave it running", testStartedAnewInPlace);
    RUN("starting a memcached node draws nothing from the PRNG the server "
        "shares", testDrawsNothingFromTheWorldsPrng);
    RUN("memcached expiry follows the world's clock",
        testExpiryFollowsTheWorldsClock);
    RUN("a memcached node's items are its own memory, not the world's",
        testItemsAreTheNodesMemory);
    return gkTestReport();
}
