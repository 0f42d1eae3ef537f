/* Tests of the event loop in the simulated world: the order of phases in
 * one iteration, pipelined requests split across reads, workloads and
 * labs (by shape, never exact timings), and determinism. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "glasskv.h"

static gkWorld *newWorld(uint64_t seed, int *srv) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = seed;
    cfg.trace_capacity = 1u << 20;
    gkWorld *w;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, srv);
    return w;
}

/* Replies are written in beforeSleep, after every command of the read
 * has run: poll, read, commands, beforeSleep, write. */
static void testIterationOrder(void) {
    int srv, conn;
    gkWorld *w = newWorld(1, &srv);
    gkConnOpen(w, srv, &conn);
    uint64_t from = gkTraceLastSeq(w);
    const char *req = "SET a 1\r\nGET a\r\nINCR a\r\n";
    gkConnSend(w, conn, req, strlen(req));
    gkWorldRunUntilIdle(w);
    gkTraceRecord rec[64];
    size_t n = gkTraceRead(w, from, rec, 64);
    char seq[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof(seq) - 1; i++) {
        if (rec[i].node != srv) continue;
        if (rec[i].type == GK_TR_LOOP)
            seq[k++] = "B.EC"[rec[i].a];     /* begin, beforeSleep, end */
        else if (rec[i].type == GK_TR_SYSCALL)
            seq[k++] = "rwp"[rec[i].a];      /* read, write, poll */
        else if (rec[i].type == GK_TR_CMD)
            seq[k++] = 'x';
    }
    seq[k] = '\0';
    /* The first iteration may be a cron tick; find the one that read. */
    CHECK(strstr(seq, "Bprxxx.wE") != NULL);
    char out[128];
    size_t len = gkConnRecv(w, conn, out, sizeof(out) - 1);
    out[len] = '\0';
    CHECK_EQ_STR(out, "+OK\r\n$1\r\n1\r\n:2\r\n");
    gkWorldRelease(w);
}

/* 2,000 SETs are far more than one 16 KB read: the server reads chunk by
 * chunk, runs the complete commands of each, and keeps the partial one
 * for the next read. */
static void testPipelineAcrossReads(void) {
    int srv, conn;
    gkWorld *w = newWorld(1, &srv);
    gkConnOpen(w, srv, &conn);
    size_t cap = 2000 * 64, len = 0;
    char *buf = malloc(cap);
    for (int i = 0; i < 2000; i++)
        len += (size_t)snprintf(buf + len, cap - len,
                                "*3\r\n$3\r\nSET\r\n$7\r\nk:%05d\r\n$3\r\nv%02d\r\n",
                                i, i % 100);
    uint64_t from = gkTraceLastSeq(w);
    gkConnSend(w, conn, buf, len);
    gkWorldRunUntilIdle(w);
    gkTraceRecord *rec = malloc(sizeof(gkTraceRecord) * 100000);
    size_t n = gkTraceRead(w, from, rec, 100000);
    size_t reads = 0, full = 0, cmds = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        if (rec[i].node != srv) continue;
        if (rec[i].type == GK_TR_SYSCALL && rec[i].a == GK_SYS_READ &&
            rec[i].c > 0) {
            reads++;
            total += rec[i].c;
            if (rec[i].c == 16384) full++;
        }
        if (rec[i].type == GK_TR_CMD) cmds++;
    }
    CHECK_EQ_INT(total, len);
    CHECK_EQ_INT(reads, (len + 16383) / 16384);
    CHECK_EQ_INT(full, len / 16384);
    CHECK_EQ_INT(cmds, 2000);
    size_t got = 0;
    char out[4096];
    size_t r;
    int ok = 1;
    while ((r = gkConnRecv(w, conn, out, sizeof(out))) > 0) {
        for (size_t i = 0; i < r; i++)
            if (out[i] != "+OK\r\n"[(got + i) % 5]) ok = 0;
        got += r;
    }
    CHECK_EQ_INT(got, 2000 * 5);
    CHECK(ok);
    free(rec);
    free(buf);
    gkWorldRelease(w);
}

/* The round trip is paid once per batch, not once per command. */
static void testRttPerBatch(void) {
    int srv, wl;
    gkWorld *w = newWorld(1, &srv);
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = 20;
    sp.pipeline = 1;
    sp.rtt_ns = 10000000;                   /* 10 ms */
    gkWorkloadStart(w, srv, &sp, &wl);
    gkWorldRunUntil(w, 1000000000ULL);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, wl, &st);
    CHECK(st.done);
    double secs = (double)(st.end_ns - st.start_ns) / 1e9;
    CHECK(secs >= 0.200 && secs < 0.220);   /* 20 round trips */
    CHECK(st.lat_max_ns >= 10000000);
    gkWorldRelease(w);
}

/* One client, one connection, no pipeline, over a link of round trip
 * rtt_ns: the server's system calls and loop iterations per command, and
 * the client's iterations per command, counted until the last reply. The
 * few serverCron iterations of the run (hz 10) are left in: 2,000
 * commands take well under a second, so they add less than 0.01 per
 * command. */
static void shapeOf(uint64_t rtt_ns, double *syscalls, double *polls,
                    double *iters, double *client_iters) {
    int srv, wl;
    gkWorld *w = newWorld(1, &srv);
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = 2000;
    sp.pipeline = 1;
    sp.rtt_ns = rtt_ns;
    gkWorkloadStart(w, srv, &sp, &wl);
    gkWorkloadStats st;
    do {
        gkWorldRunUntil(w, gkWorldNow(w) + 1000000);
        gkWorkloadGetStats(w, wl, &st);
    } while (!st.done && gkWorldNow(w) < 2000000000ULL);
    CHECK(st.done);
    gkNodeStats s, c;
    gkNodeGetStats(w, srv, &s);
    gkNodeGetStats(w, wl, &c);
    double n = (double)st.completed;
    *syscalls = (double)(s.reads + s.writes + s.polls) / n;
    *polls = (double)s.polls / n;
    *iters = (double)s.iterations / n;
    *client_iters = (double)c.iterations / n;
    gkWorldRelease(w);
}

/* strace -f -c of redis-server 7.0.15 under redis-benchmark -c 1 -P 1
 * counts one epoll_wait, one read and one write per GET: the loop sleeps
 * until the request arrives, reads it, runs it and writes the reply in the
 * same iteration. The client reading a reply makes room in a socket
 * buffer that was nowhere near full, which wakes nobody. */
static void testOneClientCommandShape(void) {
    uint64_t rtts[2] = { 0, 100000 };
    for (int i = 0; i < 2; i++) {
        double sys, polls, iters, citers;
        shapeOf(rtts[i], &sys, &polls, &iters, &citers);
        CHECK(sys >= 3.0 && sys < 3.01);
        CHECK(polls >= 1.0 && polls < 1.01);
        CHECK(iters >= 1.0 && iters < 1.01);
        CHECK(citers >= 1.0 && citers < 1.01);
    }
}

/* With a flush size, a batch leaves in writes of that many commands, all
 * before the first reply: 1,000 GETs in batches of 100 flushed every 10
 * commands are 100 writes, and a batch takes about one round trip, not
 * ten. */
static void testFlushWritesEachGroup(void) {
    int srv, wl;
    gkWorld *w = newWorld(1, &srv);
    gkTraceEnable(w, 1u << GK_TR_CLIENT);
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = 1000;
    sp.pipeline = 100;
    sp.flush = 10;
    sp.rtt_ns = 1000000;                    /* 1 ms */
    uint64_t from = gkTraceLastSeq(w);
    gkWorkloadStart(w, srv, &sp, &wl);
    gkWorldRunUntil(w, 1000000000ULL);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, wl, &st);
    CHECK(st.done);
    CHECK_EQ_INT(st.batches, 10);
    CHECK_EQ_INT(st.writes, 100);
    CHECK(st.lat_max_ns < 2000000);
    gkTraceRecord rec[256];
    size_t n = gkTraceRead(w, from, rec, 256), sends = 0, dones = 0;
    for (size_t i = 0; i < n; i++) {
        if (rec[i].type != GK_TR_CLIENT) continue;
        if (rec[i].a == GK_CL_SEND) {
            sends++;
            CHECK_EQ_INT(rec[i].c, 10);
        } else {
            dones++;
            CHECK_EQ_INT(rec[i].c, 100);
        }
    }
    CHECK_EQ_INT(sends, 100);
    CHECK_EQ_INT(dones, 10);
    gkWorldRelease(w);
}

/* A workload answers with the spec it runs with, defaults filled in, when
 * it was started and whether it was stopped. */
static void testWorkloadSpecAndStop(void) {
    int srv, wl;
    gkWorld *w = newWorld(1, &srv);
    gkWorldRunUntil(w, 5000);
    gkWorkloadSpec sp, got;
    gkWorkloadSpecInit(&sp);
    sp.clients = 2;
    sp.requests = 0;
    sp.pipeline = 4;
    CHECK_EQ_INT(gkWorkloadStart(w, srv, &sp, &wl), GK_OK);
    CHECK_EQ_INT(gkWorkloadGetSpec(w, wl, &got), GK_OK);
    CHECK_EQ_INT(got.clients, 2);
    CHECK_EQ_INT(got.pipeline, 4);
    CHECK_EQ_INT(got.keyspace, 10000);      /* gkWorkloadSpecInit's */
    CHECK(!strcmp(got.command, "GET"));
    CHECK_EQ_INT(gkWorkloadGetSpec(w, srv, &got), GK_ENOTFOUND);
    gkWorldRunUntil(w, 1000000);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, wl, &st);
    CHECK(st.started_ns == 5000);
    CHECK(!st.stopped);
    CHECK(st.start_ns >= st.started_ns);
    gkWorkloadStop(w, wl);
    gkWorkloadGetStats(w, wl, &st);
    CHECK(st.stopped);
    gkWorldRelease(w);
}

/* Returns the i-th value of "key":<number> in json, or -1. */
static double jsonNum(const char *json, const char *key, int i) {
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = json;
    for (int k = 0; k <= i; k++) {
        p = strstr(p, pat);
        if (!p) return -1;
        p += strlen(pat);
    }
    return atof(p);
}

static char *lab(const char *name) {
    static char buf[1 << 16];
    long n = gkLabRun(name, 1, buf, sizeof(buf));
    CHECK(n > 0 && (size_t)n < sizeof(buf));
    return buf;
}

static void testLabsHaveTheSeedsShape(void) {
    char *j = lab("pipelining");
    double plain = jsonNum(j, "ops_per_sec", 0);
    double piped = jsonNum(j, "ops_per_sec", 1);
    CHECK(piped > 2.5 * plain);             /* seed: ~60k vs ~200k */
    CHECK(jsonNum(j, "server_syscalls_per_cmd", 0) > 1.5);
    CHECK(jsonNum(j, "server_syscalls_per_cmd", 1) < 0.1);
    j = lab("rtt");
    double slow = jsonNum(j, "ops_per_sec", 2);
    CHECK(slow > 3 && slow < 5);            /* 250 ms: about 4 per second */
    CHECK(jsonNum(j, "ops_per_sec", 3) > 50 * slow);
    CHECK(jsonNum(j, "ops_per_sec", 0) > 100 * slow);
    /* Seed 002: Lettuce's default flush-after-write is pipelined (about
     * 100 Kops/s there); batches of 50 to 1,000 per flush gain "up to
     * 5x". Stop-and-wait at a 0.1 ms round trip could not pass 10,000 a
     * second; the default run writes each command with its own write. */
    j = lab("command-flushing");
    double b1 = jsonNum(j, "ops_per_sec", 0), b50 = jsonNum(j, "ops_per_sec", 1);
    double b1000 = jsonNum(j, "ops_per_sec", 2);
    CHECK(b1 > 2 * 10000);
    CHECK(jsonNum(j, "client_syscalls_per_cmd", 0) >= 1.0);
    CHECK(b50 >= 2 * b1 && b50 <= 8 * b1);
    CHECK(b1000 >= 2 * b1 && b1000 <= 8 * b1);
    CHECK(b1000 > b50);
    for (int i = 0; i < 3; i++) {           /* read from a histogram */
        CHECK(jsonNum(j, "p50", i) <= jsonNum(j, "max", i));
        CHECK(jsonNum(j, "p99", i) <= jsonNum(j, "max", i));
    }
    j = lab("pipeline-vs-multi");
    double withMulti = jsonNum(j, "max_ms", 0);
    double without = jsonNum(j, "max_ms", 1);
    CHECK(withMulti > 4 * without);         /* the EXEC holds INFO back */
}

static size_t traceOf(uint64_t seed, gkTraceRecord **out) {
    int srv, wl;
    gkWorld *w = newWorld(seed, &srv);
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 5;
    sp.requests = 3000;
    sp.pipeline = 7;
    sp.rtt_ns = 200000;
    strcpy(sp.command, "SET");
    gkWorkloadStart(w, srv, &sp, &wl);
    gkWorldRunUntil(w, 2000000000ULL);
    *out = malloc(sizeof(gkTraceRecord) * (1u << 20));
    size_t n = gkTraceRead(w, 0, *out, 1u << 20);
    gkWorldRelease(w);
    return n;
}

static void testSameScenarioSameTrace(void) {
    gkTraceRecord *a, *b, *c;
    size_t na = traceOf(7, &a), nb = traceOf(7, &b), nc = traceOf(8, &c);
    CHECK(na > 10000);
    CHECK_EQ_INT(na, nb);
    CHECK(memcmp(a, b, sizeof(gkTraceRecord) * na) == 0);
    CHECK(na != nc || memcmp(a, c, sizeof(gkTraceRecord) * na) != 0);
    free(a);
    free(b);
    free(c);
}

/* Bytes written on connection fd by node `writer` with a write that ended
 * by time t (the bytes leave when the call returns). */
static uint64_t writtenBy(const gkTraceRecord *rec, size_t n, int writer,
                          uint32_t fd, uint64_t t) {
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (rec[i].type == GK_TR_SYSCALL && rec[i].a == GK_SYS_WRITE &&
            rec[i].node == writer && rec[i].b == fd && rec[i].time <= t)
            sum += rec[i].c;
    return sum;
}

/* A client program that spends 10 ms building each GET, on a link with
 * no delay, while a monitor's PING wakes the server every millisecond:
 * the server must not see a request before the client has written it.
 * Every read the server makes on the client's connection starts after
 * the client's writes of all the bytes read so far have returned. */
static void testNoReadBeforeTheWrite(void) {
    int srv, mon, cl;
    gkWorld *w = newWorld(1, &srv);
    gkWorkloadSpec m;
    gkWorkloadSpecInit(&m);
    m.clients = 1;
    m.requests = 0;
    m.interval_ns = 1000000;
    strcpy(m.command, "PING");
    gkWorkloadStart(w, srv, &m, &mon);
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.requests = 5;
    sp.client_cmd_ns = 20000000;            /* 10 ms to build each */
    gkWorkloadStart(w, srv, &sp, &cl);
    gkWorldRunUntil(w, 200000000ULL);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, cl, &st);
    CHECK(st.done);
    gkTraceRecord *rec = malloc(sizeof(gkTraceRecord) * (1u << 20));
    size_t n = gkTraceRead(w, 0, rec, 1u << 20);
    uint32_t fd = UINT32_MAX;
    for (size_t i = 0; i < n && fd == UINT32_MAX; i++)
        if (rec[i].type == GK_TR_SYSCALL && rec[i].a == GK_SYS_WRITE &&
            rec[i].node == cl)
            fd = rec[i].b;
    uint64_t read = 0, early = 0, reads = 0;
    for (size_t i = 0; i < n; i++) {
        const gkTraceRecord *r = &rec[i];
        if (r->type != GK_TR_SYSCALL || r->a != GK_SYS_READ ||
            r->node != srv || r->b != fd || r->c == 0) continue;
        reads++;
        read += r->c;
        if (read > writtenBy(rec, n, cl, fd, r->time - (uint64_t)r->d))
            early++;
    }
    CHECK_EQ_INT(reads, 5);
    CHECK_EQ_INT(early, 0);
    free(rec);
    gkWorldRelease(w);
}

/* A protocol error: the server replies and closes at once. Over a link
 * with a delay the reply is still on its way when the close happens; the
 * host must get it, then the end of the stream. */
static void testReplyBeforeCloseArrives(void) {
    int srv, conn;
    gkWorld *w = newWorld(1, &srv);
    gkConnOpen(w, srv, &conn);
    gkConnSetLink(w, conn, 2000000, 0);     /* 1 ms each way */
    uint64_t t0 = gkWorldNow(w);
    gkConnSend(w, conn, "*abc\r\n", 6);
    gkWorldRunUntilIdle(w);
    char out[128];
    size_t n = gkConnRecv(w, conn, out, sizeof(out) - 1);
    out[n] = '\0';
    CHECK_EQ_STR(out, "-ERR Protocol error: invalid multibulk length\r\n");
    CHECK_EQ_INT(gkConnIsOpen(w, conn), 0);
    CHECK(gkWorldNow(w) >= t0 + 2000000);   /* a whole round trip */
    gkWorldRelease(w);
}

int main(void) {
    RUN("one iteration polls, reads, runs every command, then writes the "
        "replies in beforeSleep", testIterationOrder);
    RUN("a pipeline longer than one read is parsed across 16 KB chunk "
        "boundaries", testPipelineAcrossReads);
    RUN("without a pipeline every command waits a full round trip",
        testRttPerBatch);
    RUN("one client without a pipeline costs the server an epoll_wait, a "
        "read and a write per command, in one iteration",
        testOneClientCommandShape);
    RUN("a batch with a flush size leaves in one write per flush, none "
        "waiting for a reply", testFlushWritesEachGroup);
    RUN("the labs reproduce the seeds' shapes", testLabsHaveTheSeedsShape);
    RUN("the same scenario twice gives byte-identical traces",
        testSameScenarioSameTrace);
    RUN("a workload gives its spec, its start time and whether it stopped",
        testWorkloadSpecAndStop);
    RUN("over a link with no delay the server reads no byte before the "
        "client's write of it has returned", testNoReadBeforeTheWrite);
    RUN("a reply the server wrote just before it closed the connection "
        "reaches the host over a link with a delay",
        testReplyBeforeCloseArrives);
    return gkTestReport();
}
