/* Tests of seed 004's lab, eval-vs-zcard, and of the client programs it
 * is made of: a redis-rb-like client sending ZCARD of every key in turn,
 * and one EVAL carrying every key. The byte counts are the seed's, exact;
 * times are checked by shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

#define RUN_MARK "{\"name\":"

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

/* Seed 004's figures: the bytes its benchmark printed, computed from
 * what the simulated client wrote and read; and the freeze. ZCARD holds
 * the loop for a fraction of a microsecond, and the monitor hardly waits;
 * the EVAL holds it for seconds, and the monitor's worst wait is that
 * freeze, give or take the PING interval. */
static char *wholeLab;

static void testEvalVsZcardLab(void) {
    char *j = wholeLab = gktLab("eval-vs-zcard");
    const char *data = gktLabRun(j, 0, RUN_MARK);
    const char *zc = gktLabRun(j, 1, RUN_MARK);
    const char *ev = gktLabRun(j, 2, RUN_MARK);
    CHECK_EQ_INT(gktLabNum(data, "preloaded_keys", RUN_MARK), 1000000);
    CHECK_EQ_INT(gktLabNum(zc, "bytes_written", RUN_MARK), 29888890);
    CHECK_EQ_INT(gktLabNum(zc, "bytes_read", RUN_MARK), 4000000);
    CHECK_EQ_INT(gktLabNum(ev, "bytes_written", RUN_MARK), 14889033);
    CHECK_EQ_INT(gktLabNum(ev, "bytes_read", RUN_MARK), 10);
    CHECK_EQ_INT(gktLabNum(zc, "result", RUN_MARK), 1000000);
    CHECK_EQ_INT(gktLabNum(ev, "result", RUN_MARK), 1000000);
    CHECK_EQ_INT(gktLabNum(zc, "commands", RUN_MARK), 1000000);
    CHECK_EQ_INT(gktLabNum(ev, "commands", RUN_MARK), 1);
    /* A round trip per key: a write and a read on each side per key. */
    CHECK_EQ_INT(gktLabNum(zc, "writes", RUN_MARK), 1000000);
    CHECK_EQ_INT(gktLabNum(zc, "reads", RUN_MARK), 1000000);
    const char *srvZc = strstr(zc, "\"server\":");
    CHECK(gktLabNum(srvZc, "reads", RUN_MARK) >= 1000000);
    /* The EVAL's 14.9 MB go out in socket-sized writes, paced by the
     * server's reads (and the million argument objects it makes): about a
     * thousand writes, against ZCARD's million. */
    CHECK(gktLabNum(ev, "writes", RUN_MARK) < 2000);
    double fz = gktLabNum(zc, "freeze_ms", RUN_MARK);
    double fe = gktLabNum(ev, "freeze_ms", RUN_MARK);
    double mz = gktLabNum(zc, "max_ms", RUN_MARK);
    double me = gktLabNum(ev, "max_ms", RUN_MARK);
    double interval = gktLabNum(ev, "interval_ms", RUN_MARK);
    CHECK(fz > 0 && fz < 0.01);
    CHECK(fe > 1000);                        /* seconds, as in the seed */
    CHECK(fe < 5000);                        /* under busy-reply-threshold */
    CHECK(me >= fe - interval && me <= fe + interval);
    CHECK(mz < 1);
    CHECK(gktLabNum(ev, "server_usec_per_call", RUN_MARK) >= fe * 1000 - 1);
    /* The EVAL saves the round trips: its run is far shorter. */
    CHECK(gktLabNum(ev, "virtual_seconds", RUN_MARK) * 5 <
          gktLabNum(zc, "virtual_seconds", RUN_MARK));
}

/* The lab a step at a time, as a page runs it: odd-sized steps, the
 * trace of the EVAL run read after each one. The parts come in order and
 * each one's work is counted up to its total; the figures are gkLabRun's
 * to the byte; the trace begins with the EVAL run, loses nothing, and
 * holds the frozen iteration where the figures say it was, with every
 * command the script called inside it. */
static void testStepsGiveTheSameFigures(void) {
    const char *whole = wholeLab;
    gkEvalLab *l;
    CHECK_EQ_INT(gkEvalLabCreate(&l, 1, 1), GK_OK);
    gkWorld *w = gkEvalLabWorld(l);
    gkEvalLabProgress p;
    gkEvalLabGetProgress(l, &p);
    CHECK_EQ_INT(p.part, GK_EVLAB_LOAD);
    CHECK_EQ_INT(p.total, 1000000);
    size_t cap = 1 << 16;
    gkTraceRecord *rec = malloc(sizeof(*rec) * cap);
    uint64_t seq = 0, lost = 0, cmds = 0, begin = 0, end = 0, first = 0;
    uint64_t it0 = 0, itCmds = 0;
    int part = GK_EVLAB_LOAD, disorder = 0, steps = 0, st = GK_OK;
    while (p.part != GK_EVLAB_DONE && st == GK_OK) {
        st = gkEvalLabStep(l, 7777, &p);
        steps++;
        if (p.part < part || p.done > p.total) disorder++;
        part = p.part;
        size_t n;
        while ((n = gkTraceRead(w, seq, rec, cap)) > 0) {
            for (size_t i = 0; i < n; i++) {
                const gkTraceRecord *r = &rec[i];
                if (r->seq != seq + 1) lost++;
                seq = r->seq;
                if (!first) first = r->time;
                if (r->node != 0) continue;
                if (r->type == GK_TR_LOOP && r->a == GK_LOOP_BEGIN) {
                    it0 = r->time;
                    itCmds = 0;
                } else if (r->type == GK_TR_CMD) {
                    itCmds++;
                } else if (r->type == GK_TR_LOOP && r->a == GK_LOOP_END &&
                           r->time - it0 > 1000000000ULL) {
                    begin = it0;
                    end = r->time;
                    cmds = itCmds;
                }
            }
        }
    }
    /* The frozen iteration: the EVAL and the million ZCARDs it called. */
    CHECK_EQ_INT(cmds, 1000001);
    CHECK_EQ_INT(st, GK_OK);
    CHECK_EQ_INT(disorder, 0);
    CHECK(steps > 100);
    CHECK_EQ_INT(lost, 0);
    char *stepped = malloc(1 << 20);
    long len = gkEvalLabFigures(l, stepped, 1 << 20);
    CHECK(len > 0 && len < (1 << 20));
    CHECK_EQ_STR(stepped, whole);
    const char *ev = gktLabRun(stepped, 2, RUN_MARK);
    const char *it = strstr(ev, "\"longest_iteration\":");
    CHECK(it != NULL);
    CHECK_EQ_INT(gktLabNum(it, "start_ns", RUN_MARK), (double)begin);
    CHECK_EQ_INT(gktLabNum(it, "end_ns", RUN_MARK), (double)end);
    /* Nothing before the EVAL run is recorded. */
    CHECK(first >= gktLabNum(gktLabRun(stepped, 1, RUN_MARK),
                             "virtual_seconds", RUN_MARK) * 1e9);
    gkEvalLabRelease(l);
    free(rec);
    free(stepped);
}

/* Stopping a lab half-way is releasing it: in the middle of the load and
 * in the middle of the ZCARD run (under ASan, nothing leaks). A lab not
 * done has no figures yet. */
static void testStopHalfWay(void) {
    gkEvalLab *l;
    gkEvalLabProgress p;
    CHECK_EQ_INT(gkEvalLabCreate(&l, 1, 0), GK_OK);
    CHECK_EQ_INT(gkEvalLabStep(l, 1000, &p), GK_OK);
    CHECK_EQ_INT(p.part, GK_EVLAB_LOAD);
    CHECK_EQ_INT(p.done, 1000);
    char buf[64];
    CHECK_EQ_INT(gkEvalLabFigures(l, buf, sizeof(buf)), GK_EINVAL);
    gkEvalLabRelease(l);
    CHECK_EQ_INT(gkEvalLabCreate(&l, 1, 1), GK_OK);
    while (p.part != GK_EVLAB_ZCARD || p.done < 1000)
        CHECK_EQ_INT(gkEvalLabStep(l, 100000, &p), GK_OK);
    CHECK(p.done < p.total);
    CHECK(p.part_from_ns > 0 && p.now_ns > p.part_from_ns);
    CHECK_EQ_INT(gkTraceLastSeq(gkEvalLabWorld(l)), 0);
    gkEvalLabRelease(l);
}

int main(void) {
    RUN("a sequential client names KEY0, KEY1, ... in order and sends "
        "command names as spelled", testSequentialZaddThenZcard);
    RUN("building, writing and waiting add up to a stop-and-wait client's "
        "whole run", testPhasesAddUpToTheRun);
    RUN("one EVAL carries every key of the keyspace and returns their "
        "ZCARD sum", testOneEvalOverEveryKey);
    RUN("eval-vs-zcard prints seed 004's byte counts exactly, and the "
        "EVAL's freeze is the monitor's worst wait", testEvalVsZcardLab);
    RUN("the lab taken a step at a time gives the same figures, and the "
        "trace of its EVAL run holds the frozen iteration whole",
        testStepsGiveTheSameFigures);
    RUN("a lab stopped half-way is released, and has no figures",
        testStopHalfWay);
    free(wholeLab);
    return gkTestReport();
}
