/* Tests of the AOF history the views draw the offsets chart from: a
 * fixed number of samples over a process's whole life, the staircase of
 * everysec's fsyncs in it, and a new history for a new process. */
#include "gktest.h"
#include "aofkit.h"
#include "aofhist.h"

static gkAofSample sample(uint64_t t, uint64_t written, uint64_t durable) {
    gkAofSample v = { .time = t, .fed = written, .written = written,
                      .acked = written, .durable = durable };
    return v;
}

/* A long life in few samples: never more than the maximum, times in
 * order and one to two gaps apart, the first sample kept as it came, the last
 * offsets those of the last change, and every change shown less than two
 * gaps early. */
static void testALongLifeFitsInTheSamples(void) {
    static aofHist h;
    aofHistReset(&h);
    const uint64_t steps = 200000, every = 7000;
    for (uint64_t i = 0; i < steps; i++) {
        gkAofSample v = sample(1000 + i * every, 100 * i, 100 * (i / 1000));
        aofHistRecord(&h, &v);
        CHECK(h.n <= GK_AOF_HISTORY_MAX);
    }
    CHECK(h.n > GK_AOF_HISTORY_MAX / 3);
    CHECK_EQ_INT(h.s[0].time, 1000);
    CHECK_EQ_INT(h.s[0].written, 0);
    CHECK_EQ_INT(h.s[h.n - 1].written, 100 * (steps - 1));
    int spaced = 1, early = 0;
    for (uint32_t i = 1; i < h.n; i++) {
        uint64_t d = h.s[i].time - h.s[i - 1].time;
        if (i > 1 && (d < h.gap || d >= 2 * h.gap + 2 * every)) spaced = 0;
        /* written = 100 i at time 1000 + 7000 i. */
        uint64_t reached = 1000 + h.s[i].written / 100 * every;
        if (reached < h.s[i].time || reached - h.s[i].time >= 2 * h.gap)
            early++;
    }
    CHECK(spaced);
    CHECK_EQ_INT(early, 0);
    /* The gap follows the life's length over the samples. */
    uint64_t life = h.s[h.n - 1].time - h.s[0].time;
    CHECK(h.gap <= 2 * life / GK_AOF_HISTORY_MAX);
}

/* An unchanged sample is not kept; one stamped before the last is taken
 * as of the last one's time. */
static void testUnchangedAndEarlierSamples(void) {
    static aofHist h;
    aofHistReset(&h);
    gkAofSample a = sample(5000, 10, 0), b = sample(9000, 10, 0);
    aofHistRecord(&h, &a);
    aofHistRecord(&h, &b);
    CHECK_EQ_INT(h.n, 1);
    gkAofSample c = sample(4000, 20, 10);
    aofHistRecord(&h, &c);
    CHECK_EQ_INT(h.n, 2);
    CHECK_EQ_INT(h.s[1].time, 5000);
    CHECK_EQ_INT(h.s[1].durable, 10);
}

/* The count of times durable went up in node n's history. */
static int durableSteps(const gkAofSample *s, int n) {
    int steps = 0;
    for (int i = 1; i < n; i++) steps += s[i].durable > s[i - 1].durable;
    return steps;
}

/* A write every 50 ms for 3.5 s under everysec: the history goes back to
 * the first write, written climbs with every write, and durable in steps,
 * one per background fsync, about one a second. */
static void testEverysecMakesAStaircase(void) {
    node n;
    nodeOpen(&n, 3, "appendonly yes\nappendfsync everysec\n");
    uint64_t first = gkWorldNow(n.w);
    for (int i = 0; i < 70; i++) {
        nodeCmdf(&n, "SET key:%d %0120d", i, i);
        nodeRun(&n, 50 * MS);
    }
    static gkAofSample s[GK_AOF_HISTORY_MAX];
    int k = 0;
    CHECK_EQ_INT(gkAofHistory(n.w, n.srv, s, GK_AOF_HISTORY_MAX, &k), GK_OK);
    CHECK(k > 70);
    /* It starts with the first write, before the second. */
    CHECK(s[0].time < first + 50 * MS);
    CHECK(s[0].written > 0 && s[0].written < 200);
    int climbs = 0;
    for (int i = 1; i < k; i++) {
        CHECK(s[i].time >= s[i - 1].time);
        CHECK(s[i].written >= s[i - 1].written);
        CHECK(s[i].durable <= s[i].written);
        climbs += s[i].written > s[i - 1].written;
    }
    /* Once in a while a write is postponed behind an fsync and goes with
     * the next one. */
    CHECK(climbs >= 65);
    int steps = durableSteps(s, k);
    CHECK(steps >= 3 && steps <= 5);
    gkAofInfo ai;
    gkAofGetInfo(n.w, n.srv, &ai);
    CHECK_EQ_INT(s[k - 1].written, ai.written);
    /* Fewer samples asked for: the newest of them. */
    gkAofSample last[4];
    int four = 0;
    gkAofHistory(n.w, n.srv, last, 4, &four);
    CHECK_EQ_INT(four, 4);
    CHECK_EQ_INT(last[3].time, s[k - 1].time);
    CHECK_EQ_INT(last[0].time, s[k - 4].time);
    nodeClose(&n);
}

/* A crashed process's offsets are gone with it; the restarted one's
 * history starts at its own start, from the offsets it counts from. */
static void testARestartStartsANewHistory(void) {
    node n;
    nodeOpen(&n, 4, "appendonly yes\nappendfsync always\n");
    for (int i = 0; i < 5; i++) nodeCmdf(&n, "SET k%d v", i);
    CHECK_EQ_INT(gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS), GK_OK);
    gkAofSample s[8];
    int k = -1;
    CHECK_EQ_INT(gkAofHistory(n.w, n.srv, s, 8, &k), GK_ENOTFOUND);
    uint64_t restart = gkWorldNow(n.w);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    nodeCmd(&n, "SET after 1");
    CHECK_EQ_INT(gkAofHistory(n.w, n.srv, s, 8, &k), GK_OK);
    CHECK(k >= 1);
    CHECK(s[0].time >= restart);
    CHECK(s[0].written < 64);
    nodeClose(&n);
}

int main(void) {
    RUN("a long life fits in the samples, a change less than two gaps early",
        testALongLifeFitsInTheSamples);
    RUN("an unchanged sample is not kept, an earlier one is taken as later",
        testUnchangedAndEarlierSamples);
    RUN("everysec's fsyncs make a staircase of durable under the writes",
        testEverysecMakesAStaircase);
    RUN("a restart starts a new history", testARestartStartsANewHistory);
    return gkTestReport();
}
