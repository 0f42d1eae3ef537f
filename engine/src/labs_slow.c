/* labs_slow.c -- slow-command: one slow command stops every client.
 *
 * Redis runs one command at a time. 50 clients do GETs, one at a time
 * each, on a keyspace of 1,000,000 keys; 50 ms in, another client sends
 * one command, and the run goes on 50 ms after its reply. The runs:
 *
 *   KEYS *                  the whole keyspace in one call
 *   SCAN ... COUNT 1000     the same walk in a thousand calls, cursor by
 *                           cursor, the GETs served between them
 *   DEL of a big set        a set of 1,000,000 members freed by the main
 *                           thread
 *   UNLINK of the same set  freed by the lazy-free bio thread
 *   FLUSHALL                the 1,000,000 keys freed by the main thread
 *   FLUSHALL ASYNC          by the lazy-free thread
 *
 * For each: how long the command ran (INFO commandstats; for SCAN every
 * call and the longest), how long the GET clients waited at worst against
 * their usual wait, the slow log's newest entry (slowlog-log-slower-than
 * is 10 ms) and how long the lazy-free thread worked. The times are the
 * engine's virtual CPU (cost.h), fitted to Debian's redis-server 7.0 by
 * tests/bench/costs.mjs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "world.h"
#include "labs.h"
#include "sds.h"

#define SLOW_KEYS 1000000
#define SLOW_BEFORE_NS 50000000ULL      /* the GETs alone, then the command */
#define SLOW_AFTER_NS 50000000ULL       /* and after its last reply */
#define SLOW_STEP_NS 20000ULL           /* how often the client looks */

typedef struct slowRun {
    const char *name;
    const char *stat;           /* its line in INFO commandstats */
    const char *command;        /* what the slow client sends */
    int set;                    /* 1: the data is one set of SLOW_KEYS */
    int scan;                   /* 1: walk the cursor to its end */
} slowRun;

static const slowRun slowRuns[] = {
    { "KEYS", "keys", "KEYS *", 0, 0 },
    { "SCAN", "scan", "SCAN %s COUNT 1000", 0, 1 },
    { "DEL of a big set", "del", "DEL bigset", 1, 0 },
    { "UNLINK of a big set", "unlink", "UNLINK bigset", 1, 0 },
    { "FLUSHALL", "flushall", "FLUSHALL", 0, 0 },
    { "FLUSHALL ASYNC", "flushall", "FLUSHALL ASYNC", 0, 0 },
};

/* Fills the server: SLOW_KEYS strings, or one set of SLOW_KEYS members
 * (with as many strings for the GETs to find), and a first call of the
 * run's command on an empty db, so that its latency histogram is made
 * before the run. */
static void _fill(gkWorld *w, int conn, const slowRun *r) {
    static char reply[1 << 16];
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "DEBUG POPULATE %d", SLOW_KEYS);
    labAsk(w, conn, cmd, reply, sizeof(reply));
    if (!r->set) return;
    static char batch[1000 * 16 + 64];
    for (int i = 0; i < SLOW_KEYS; i += 1000) {
        int n = snprintf(batch, sizeof(batch), "SADD bigset");
        for (int j = i; j < i + 1000; j++)
            n += snprintf(batch + n, sizeof(batch) - (size_t)n, " m:%d", j);
        labAsk(w, conn, batch, reply, sizeof(reply));
    }
}

/* One field of INFO's reply in buf, as a number (-1 if absent). */
static double _field(const char *buf, const char *name) {
    const char *p = strstr(buf, name);
    return p ? atof(p + strlen(name)) : -1;
}

/* How far _respMore has read one RESP2 reply: the bytes before at are
 * whole elements, and left[d] elements remain in the array open at depth
 * d. Reading on from there keeps a 17 MB reply from being parsed again
 * from its start each time a few more bytes of it arrive. */
typedef struct respCursor {
    size_t at;
    int depth;
    long long left[8];
} respCursor;

/* Reads on from c over buf[0, len): 1 once the reply is whole (it ends at
 * c->at), 0 while it needs more bytes, -1 if it nests too deep. */
static int _respMore(respCursor *c, const char *buf, size_t len) {
    for (;;) {
        const char *nl = c->at < len ? memchr(buf + c->at, '\n', len - c->at)
                                     : NULL;
        if (!nl) return 0;
        size_t end = (size_t)(nl - buf) + 1;
        char type = buf[c->at];
        long long n = 0;
        if (type == '*' || type == '$') n = strtoll(buf + c->at + 1, NULL, 10);
        if (type == '$' && n >= 0) {
            if (len < end + (size_t)n + 2) return 0;
            end += (size_t)n + 2;
        }
        c->at = end;
        if (type == '*' && n > 0) {
            if (c->depth == 8) return -1;
            c->left[c->depth++] = n;
            continue;
        }
        /* one element whole: so are the arrays it was the last of */
        while (c->depth > 0 && --c->left[c->depth - 1] == 0) c->depth--;
        if (c->depth == 0) return 1;
    }
}

/* Runs the world until conn has one whole reply (KEYS's is 17 MB),
 * which replaces *buf. Returns its length, 0 if none came in max_ns, -1
 * if it cannot be read. */
static long _await(gkWorld *w, int conn, sds *buf, uint64_t max_ns) {
    respCursor rc = { 0 };
    sdsclear(*buf);
    uint64_t until = gkWorldNow(w) + max_ns;
    while (gkWorldNow(w) < until) {
        gkWorldRunUntil(w, gkWorldNow(w) + SLOW_STEP_NS);
        size_t n = gkConnPending(w, conn);
        if (n == 0) continue;
        *buf = sdsMakeRoomFor(&w->mem, *buf, n);
        sdsIncrLen(*buf, gkConnRecv(w, conn, *buf + sdslen(*buf), n));
        int st = _respMore(&rc, *buf, sdslen(*buf));
        if (st != 0) return st > 0 ? (long)rc.at : -1;
    }
    return 0;
}

/* Whether the lazy-free thread is working or has jobs queued; *busy_ns
 * gets how long it has worked. */
static int _lazyFreeBusy(gkWorld *w, int node, uint64_t *busy_ns) {
    gkThreadInfo th[8];
    int n = 0;
    gkServerThreads(w, node, th, 8, &n);
    for (int i = 0; i < n && i < 8; i++) {
        if (strcmp(th[i].name, "bio_lazy_free")) continue;
        *busy_ns = th[i].busy_ns;
        return th[i].busy || th[i].pending;
    }
    return 0;
}

static int _runOne(const slowRun *r, uint64_t seed, labOut *o) {
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int node, conn, get = -1;
    static char reply[1 << 20];
    if (gkServerAdd(w, &node) != GK_OK || gkConnOpen(w, node, &conn) != GK_OK) {
        gkWorldRelease(w);
        return GK_ERR;
    }
    /* the first call of each command makes its histogram: not timed */
    labAsk(w, conn, "SELECT 9", reply, sizeof(reply));
    char first[64];
    snprintf(first, sizeof(first), r->command, "0");
    labAsk(w, conn, first, reply, sizeof(reply));
    labAsk(w, conn, "SELECT 0", reply, sizeof(reply));
    _fill(w, conn, r);
    labAsk(w, conn, "CONFIG RESETSTAT", reply, sizeof(reply));
    labAsk(w, conn, "SLOWLOG RESET", reply, sizeof(reply));
    gkWorkloadSpec g;
    gkWorkloadSpecInit(&g);
    g.clients = 50;
    g.pipeline = 1;
    g.requests = 0;
    g.keyspace = SLOW_KEYS;
    g.rtt_ns = 100000;
    gkWorkloadStart(w, node, &g, &get);
    gkWorldRunUntil(w, gkWorldNow(w) + SLOW_BEFORE_NS);
    gkWorkloadStats before;
    gkWorkloadGetStats(w, get, &before);
    uint64_t t0 = gkWorldNow(w), t1 = t0;
    char cursor[32] = "0";
    sds got = sdsempty(&w->mem);
    do {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), r->command, cursor);
        gkConnSend(w, conn, cmd, strlen(cmd));
        gkConnSend(w, conn, "\r\n", 2);
        long len = _await(w, conn, &got, 60000000000ULL);
        t1 = gkWorldNow(w);
        if (len <= 0) break;
        if (r->scan) {      /* *2 $n cursor ... */
            const char *p = strstr(got, "\r\n$");
            p = p ? strstr(p + 3, "\r\n") : NULL;
            size_t k = p ? strcspn(p + 2, "\r") : 0;
            if (!p || k == 0 || k >= sizeof(cursor)) break;
            memcpy(cursor, p + 2, k);
            cursor[k] = '\0';
        }
    } while (r->scan && strcmp(cursor, "0") != 0);
    sdsfree(&w->mem, got);
    /* and on until the lazy-free thread is done, if it has work */
    uint64_t lazy_ns = 0;
    gkWorldRunUntil(w, gkWorldNow(w) + SLOW_AFTER_NS);
    for (int k = 0; k < 600 && _lazyFreeBusy(w, node, &lazy_ns); k++)
        gkWorldRunUntil(w, gkWorldNow(w) + 10000000ULL);
    gkWorkloadStop(w, get);
    gkWorkloadStats st;
    gkWorkloadGetStats(w, get, &st);
    char name[64];
    snprintf(name, sizeof(name), "cmdstat_%s:calls=", r->stat);
    labAsk(w, conn, "INFO commandstats", reply, sizeof(reply));
    double ncalls = _field(reply, name);
    const char *line = strstr(reply, name);
    double usec = line ? _field(line, "usec=") : -1;
    static char slow[4096];
    labAsk(w, conn, "SLOWLOG GET 1", slow, sizeof(slow));
    /* *1 *6 :id :time :duration *argc ... : the duration's line */
    double slow_us = -1;
    const char *d = slow;
    for (int k = 0; k < 3 && d; k++) d = strchr(d + 1, ':');
    if (d) slow_us = atof(d + 1);
    labAsk(w, conn, "DBSIZE", reply, sizeof(reply));
    double seconds = (double)(st.end_ns > st.start_ns ?
                              st.end_ns - st.start_ns : 1) / 1e9;
    labEmit(o, "{\"name\":\"%s\",\"command\":\"%s\",\"calls\":%.0f,"
            "\"usec\":%.0f,\"usec_per_call\":%.2f,\"wall_ms\":%.3f,"
            "\"slowlog_usec\":%.0f,\"lazyfree_ms\":%.3f,\"dbsize_after\":%ld,"
            "\"get\":{\"clients\":%u,\"commands\":%llu,\"ops_per_sec\":%.0f,"
            "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
            "\"max_ms_before\":%.3f}}",
            r->name, r->scan ? "SCAN <cursor> COUNT 1000" : r->command, ncalls,
            usec, ncalls > 0 ? usec / ncalls : 0, (double)(t1 - t0) / 1e6,
            slow_us, (double)lazy_ns / 1e6,
            reply[0] == ':' ? atol(reply + 1) : -1L, g.clients,
            (unsigned long long)st.completed,
            (double)st.completed / seconds, (double)st.lat_p50_ns / 1e6,
            (double)st.lat_p99_ns / 1e6, (double)st.lat_max_ns / 1e6,
            (double)before.lat_max_ns / 1e6);
    gkWorldRelease(w);
    return GK_OK;
}

/* The lab: one run per command, each in a fresh world. */
int labSlowCommand(labOut *o, uint64_t seed) {
    for (size_t i = 0; i < sizeof(slowRuns) / sizeof(slowRuns[0]); i++) {
        if (i) labEmit(o, ",");
        int st = _runOne(&slowRuns[i], seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}
