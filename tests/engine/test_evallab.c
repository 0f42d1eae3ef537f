/* Tests of seed 004's lab, eval-vs-zcard, and of the client programs it
 * is made of: a redis-rb-like client sending ZCARD of every key in turn,
 * and one EVAL carrying every key. The byte counts are the seed's, exact;
 * times are checked by shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

/* A world with one server and a client program of spec that has run to
 * completion (at most 600 s of virtual time). */
static gkWorld *runSpec(const gkWorkloadSpec *sp, int *srv, int *id) {
    gkConfig cfg = gktConfig(1);
    gkWorld *w;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, srv);
    CHECK_EQ_INT(gkWorkloadStart(w, *srv, sp, id), GK_OK);
    gkWorkloadStats st;
    for (int i = 0; i < 6000; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 100000000ULL);
        gkWorkloadGetStats(w, *id, &st);
        if (st.done) break;
    }
    CHECK(st.done);
    return w;
}

static gkWorkloadSpec rubySpec(const char *cmd, uint32_t keys,
                               uint64_t requests) {
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = requests;
    sp.keyspace = keys;
    sp.sequential = 1;
    sp.client_cmd_ns = 12000;
    sp.client_arg_ns = 1100;
    strcpy(sp.key_prefix, "KEY");
    strcpy(sp.command, cmd);
    return sp;
}

/* Bytes of the decimal digits of 0 .. n-1. */
static uint64_t digitsUpTo(uint32_t n) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        char b[16];
        sum += (uint64_t)snprintf(b, sizeof(b), "%u", i);
    }
    return sum;
}

/* ZADD KEYi 0 DATA for i in order, then ZCARD of each: the keys are
 * named in order, lower-case names go out as they are spelled, and every
 * reply is counted into the sum. */
static void testSequentialZaddThenZcard(void) {
    const uint32_t n = 1200;
    int srv, id;
    gkWorkloadSpec load = rubySpec("zadd", n, n);
    load.pipeline = 100;
    gkWorld *w = runSpec(&load, &srv, &id);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, id, &st);
    CHECK_EQ_INT(st.int_sum, n);            /* each ZADD added one */
    gkNodeStats cs;
    gkNodeGetStats(w, id, &cs);
    /* *4 $4 zadd $L KEYi $1 0 $4 DATA: 4+4+6+4+(L+2)+4+3+4+6, L=3+d */
    CHECK_EQ_INT(cs.bytes_written, 40ull * n + digitsUpTo(n));
    gkWorkloadSpec zc = rubySpec("zcard", n, n);
    int zid;
    CHECK_EQ_INT(gkWorkloadStart(w, srv, &zc, &zid), GK_OK);
    for (int i = 0; i < 100; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 100000000ULL);
        gkWorkloadGetStats(w, zid, &st);
        if (st.done) break;
    }
    CHECK(st.done);
    CHECK_EQ_INT(st.int_sum, n);
    gkNodeGetStats(w, zid, &cs);
    /* *2 $5 zcard $L KEYi: 4+4+7+4+(L+2) */
    CHECK_EQ_INT(cs.bytes_written, 24ull * n + digitsUpTo(n));
    CHECK_EQ_INT(cs.bytes_read, 4ull * n);  /* ":1\r\n" each */
    CHECK_EQ_INT(cs.writes, n);
    CHECK_EQ_INT(cs.reads, n);
    gkWorldRelease(w);
}

/* Without a pipeline, one connection: each command is built, written,
 * then waited for, and the next one built at once, so the three phases
 * add up to the whole run, and building costs what the spec says. */
static void testPhasesAddUpToTheRun(void) {
    int srv, id;
    gkWorkloadSpec sp = rubySpec("zcard", 500, 500);
    gkWorld *w = runSpec(&sp, &srv, &id);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, id, &st);
    CHECK_EQ_INT(st.build_ns + st.write_ns + st.wait_ns,
                 st.end_ns - st.start_ns);
    CHECK_EQ_INT(st.build_ns, 500ull * (12000 / 2 + 2 * 1100));
    CHECK(st.write_ns > 0 && st.wait_ns > 0);
    gkWorldRelease(w);
}

/* One EVAL with every key as its keys: the script's sum comes back, and
 * the command is as long as the arithmetic of its RESP says. */
static void testOneEvalOverEveryKey(void) {
    const uint32_t n = 3000;
    int srv, id;
    gkWorkloadSpec load = rubySpec("ZADD", n, n);
    load.pipeline = 1000;
    gkWorld *w = runSpec(&load, &srv, &id);
    gkWorkloadSpec ev = rubySpec("eval", n, 1);
    int eid;
    gkWorkloadStats st;
    CHECK_EQ_INT(gkWorkloadStart(w, srv, &ev, &eid), GK_OK);
    for (int i = 0; i < 100; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 100000000ULL);
        gkWorkloadGetStats(w, eid, &st);
        if (st.done) break;
    }
    CHECK(st.done);
    CHECK_EQ_INT(st.int_sum, n);
    gkNodeStats cs;
    gkNodeGetStats(w, eid, &cs);
    /* *3003 $4 eval $102 <script> $4 3000, then $L KEYi for each key */
    uint64_t head = 7 + 10 + (6 + 102 + 2) + (4 + 4 + 2);
    CHECK_EQ_INT(cs.bytes_written, head + 9ull * n + digitsUpTo(n));
    CHECK_EQ_INT(cs.bytes_read, 7);          /* ":3000\r\n" */
    CHECK_EQ_INT(st.build_ns, 12000 / 2 + (n + 3) * 1100ull);
    gkWorldRelease(w);
}

int main(void) {
    RUN("a sequential client names KEY0, KEY1, ... in order and sends "
        "command names as spelled", testSequentialZaddThenZcard);
    RUN("building, writing and waiting add up to a stop-and-wait client's "
        "whole run", testPhasesAddUpToTheRun);
    RUN("one EVAL carries every key of the keyspace and returns their "
        "ZCARD sum", testOneEvalOverEveryKey);
    return gkTestReport();
}
