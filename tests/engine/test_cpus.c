/* The machine's CPUs shared by every host of a world (gkWorldSetCpus):
 * hosts with work beyond the CPUs wait their turn, a host woken on an idle
 * CPU runs after the wake-up's time, a host that keeps having work gives
 * its CPU up when its slice is over and others wait, and a process gone
 * leaves its CPU to the next. Without CPUs set, every host has its own. */
#include <stdio.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

#define US 1000ULL
#define MS 1000000ULL

typedef struct pair {
    gkWorld *w;
    int node[3], conn[3];
} pair;

static void pairOpen(pair *p, int nodes, int cpus, uint64_t wake,
                     uint64_t sw) {
    memset(p, 0, sizeof(*p));
    gkConfig cfg = gktConfig(7);
    cfg.trace_capacity = 1u << 16;
    gkWorldCreate(&p->w, &cfg, NULL, NULL);
    gkTraceEnable(p->w, 1u << GK_TR_CMD);
    for (int i = 0; i < nodes; i++) {
        gkServerAdd(p->w, &p->node[i]);
        gkConnOpen(p->w, p->node[i], &p->conn[i]);
    }
    gkWorldRunUntil(p->w, gkWorldNow(p->w) + 10 * MS);
    CHECK_EQ_INT(gkWorldSetCpus(p->w, cpus, wake, sw), GK_OK);
}

/* When node last ended a command of argc arguments after seq `after`. */
static uint64_t ranAt(gkWorld *w, uint64_t after, int node, uint32_t argc) {
    static gkTraceRecord rec[1024];
    uint64_t at = 0;
    size_t n;
    while ((n = gkTraceRead(w, after, rec, 1024)) > 0) {
        for (size_t i = 0; i < n; i++)
            if (rec[i].type == GK_TR_CMD && rec[i].node == node &&
                rec[i].c == argc)
                at = rec[i].time;
        after = rec[n - 1].seq;
    }
    return at;
}

static void send(pair *p, int i, const char *line) {
    gkConnSend(p->w, p->conn[i], line, strlen(line));
}

/* Two servers each given DEBUG POPULATE at the same moment: on two CPUs
 * (or a CPU each) they end together; on one, the second ends a whole
 * command later. */
static void testOneCpuSerializes(void) {
    uint64_t end[3][2];
    int cpus[3] = { 0, 2, 1 };
    for (int k = 0; k < 3; k++) {
        pair p;
        pairOpen(&p, 2, cpus[k], 0, 0);
        uint64_t mark = gkTraceLastSeq(p.w), t0 = gkWorldNow(p.w);
        send(&p, 0, "DEBUG POPULATE 20000\r\n");
        send(&p, 1, "DEBUG POPULATE 20000\r\n");
        gkWorldRunUntil(p.w, t0 + 500 * MS);
        for (int i = 0; i < 2; i++) {
            uint64_t at = ranAt(p.w, mark, p.node[i], 3);
            CHECK(at > t0);
            end[k][i] = at - t0;
        }
        gkWorldRelease(p.w);
    }
    uint64_t one = end[0][0];
    CHECK(one > 1 * MS);
    CHECK_EQ_INT(end[0][1], one);
    CHECK_EQ_INT(end[1][0], one);
    CHECK_EQ_INT(end[1][1], one);
    uint64_t first = end[2][0] < end[2][1] ? end[2][0] : end[2][1];
    uint64_t second = end[2][0] < end[2][1] ? end[2][1] : end[2][0];
    CHECK_EQ_INT(first, one);
    CHECK(second >= 2 * one - one / 10);
}

/* A sleeping server woken by a command runs sched_wake later. */
static void testWakeUp(void) {
    uint64_t took[2];
    for (int k = 0; k < 2; k++) {
        pair p;
        pairOpen(&p, 1, 1, k ? 20 * US : 0, 0);
        gkWorldRunUntil(p.w, gkWorldNow(p.w) + 5 * MS);
        uint64_t mark = gkTraceLastSeq(p.w), t0 = gkWorldNow(p.w);
        send(&p, 0, "SET k v\r\n");
        gkWorldRunUntil(p.w, t0 + 5 * MS);
        uint64_t at = ranAt(p.w, mark, p.node[0], 3);
        CHECK(at > t0);
        took[k] = at - t0;
        gkWorldRelease(p.w);
    }
    CHECK_EQ_INT(took[1], took[0] + 20 * US);
}

/* Three servers loaded by three benchmarks on one CPU: each gets its
 * turn (none starves), and all of them together do about what one does
 * alone on its CPU. */
static void testSlices(void) {
    uint64_t done[2][3];
    for (int k = 0; k < 2; k++) {
        pair p;
        pairOpen(&p, 3, k ? 1 : 0, 0, 0);
        int wl[3];
        for (int i = 0; i < 3; i++) {
            gkWorkloadSpec spec;
            gkWorkloadSpecInit(&spec);
            spec.clients = 10;
            spec.requests = 0;
            strcpy(spec.command, "SET");
            CHECK_EQ_INT(gkWorkloadStart(p.w, p.node[i], &spec, &wl[i]),
                         GK_OK);
        }
        gkWorldRunUntil(p.w, gkWorldNow(p.w) + 200 * MS);
        for (int i = 0; i < 3; i++) {
            gkWorkloadStats st;
            gkWorkloadGetStats(p.w, wl[i], &st);
            done[k][i] = st.completed;
        }
        gkWorldRelease(p.w);
    }
    uint64_t own = 0, shared = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(done[1][i] > done[0][i] / 6);     /* none starves */
        own += done[0][i];
        shared += done[1][i];
    }
    /* six processes on one CPU instead of one each */
    CHECK(shared < own / 3);
    CHECK(shared > own / 8);
}

/* A server that crashes on its CPU gives it up: the one waiting for it
 * runs at once, with nothing else to wake it. */
static void testCrashLeavesCpu(void) {
    pair p;
    pairOpen(&p, 2, 1, 0, 0);
    uint64_t start = gkTraceLastSeq(p.w);
    send(&p, 0, "DEBUG POPULATE 20000\r\n");
    send(&p, 1, "DEBUG POPULATE 20000\r\n");
    gkWorldRunUntil(p.w, gkWorldNow(p.w) + 1 * MS);
    CHECK_EQ_INT(gkServerCrash(p.w, p.node[0], GK_CRASH_PROCESS), GK_OK);
    gkWorldRunUntil(p.w, gkWorldNow(p.w) + 500 * MS);
    CHECK(ranAt(p.w, start, p.node[1], 3) > 0);
    uint64_t mark = gkTraceLastSeq(p.w), t0 = gkWorldNow(p.w);
    send(&p, 1, "SET after crash\r\n");
    gkWorldRunUntil(p.w, t0 + 500 * MS);
    CHECK(ranAt(p.w, mark, p.node[1], 3) > 0);
    gkWorldRelease(p.w);
}

/* A server killed while it holds the CPU, another waiting for it with
 * its whole command read: that one runs, with nothing else to wake it. */
static void testKilledHolderHandsOver(void) {
    pair p;
    pairOpen(&p, 2, 1, 0, 0);
    gkWorkloadSpec spec;
    gkWorkloadSpecInit(&spec);
    spec.clients = 10;
    spec.requests = 0;
    spec.pipeline = 20;
    strcpy(spec.command, "SET");
    int wl;
    CHECK_EQ_INT(gkWorkloadStart(p.w, p.node[0], &spec, &wl), GK_OK);
    gkWorldRunUntil(p.w, gkWorldNow(p.w) + 5 * MS);
    uint64_t start = gkTraceLastSeq(p.w);
    send(&p, 1, "DEBUG POPULATE 20000\r\n");
    gkWorldRunUntil(p.w, gkWorldNow(p.w) + 10 * US);
    CHECK_EQ_INT(gkServerCrash(p.w, p.node[0], GK_CRASH_PROCESS), GK_OK);
    gkWorkloadStop(p.w, wl);
    gkWorldRunUntil(p.w, gkWorldNow(p.w) + 50 * MS);
    CHECK(ranAt(p.w, start, p.node[1], 3) > 0);
    gkWorldRelease(p.w);
}

static void testBadCpus(void) {
    pair p;
    pairOpen(&p, 1, 0, 0, 0);
    CHECK_EQ_INT(gkWorldSetCpus(p.w, 65, 0, 0), GK_EINVAL);
    CHECK(strstr(gkWorldLastError(p.w), "cpus") != NULL);
    CHECK_EQ_INT(gkWorldSetCpus(p.w, -1, 0, 0), GK_EINVAL);
    gkWorldRelease(p.w);
}

int main(void) {
    RUN("one CPU runs two servers' commands one after the other",
        testOneCpuSerializes);
    RUN("a server woken on an idle CPU runs after the wake-up", testWakeUp);
    RUN("loaded servers on one CPU take turns", testSlices);
    RUN("a crashed server leaves its CPU to the others",
        testCrashLeavesCpu);
    RUN("a server killed on its CPU hands it to the one waiting",
        testKilledHolderHandsOver);
    RUN("a number of CPUs past 64 is refused", testBadCpus);
    return gkTestReport();
}
