/* labs_repl.c -- how long one write takes to reach the replicas (seed
 * 003): a master and ten replicas on one machine, ports 5011 to 5021.
 *
 *   replication-star   every replica replicates the master (5011)
 *   replication-chain  each replicates the one before it: 5012 the
 *                      master, 5013 that replica, and so on
 *
 * Each lab has two runs: "idle", one SET key1 111111 on a quiet master,
 * and "loaded", an MSET of ten keys sent while 50 clients keep the master
 * busy with SETs, as the last command of a redis-benchmark run. A
 * replica's delivery time is from the end of the command on the master
 * to the end of the same command on the replica (the trace's GK_TR_CMD
 * records: the master's call() and the replica's applying it from its
 * master client); in the chain, also from the replica before it. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "labs.h"

#define REPL_REPLICAS 10
#define REPL_BASE_PORT 5011
#define REPL_SYNC_NS 120000000000ULL    /* every replica synced by then */
#define REPL_LOAD_NS 200000000ULL       /* the benchmark before the MSET */
#define REPL_WAIT_NS 500000000ULL       /* time given to deliver */

typedef struct replLab {
    gkWorld *w;
    int master;
    int node[REPL_REPLICAS];
    int conn;                           /* the host's, to the master */
} replLab;

/* The world: the master and its replicas, star or chain, synced. */
static int _build(replLab *l, uint64_t seed, int chain) {
    l->w = labWorld(seed, 1u << GK_TR_CMD, 1u << 20);
    if (!l->w) return GK_ENOMEM;
    char conf[64], reply[4096];
    snprintf(conf, sizeof(conf), "port %d\n", REPL_BASE_PORT);
    int st = gkServerAddConfig(l->w, conf, &l->master);
    for (int i = 0; st == GK_OK && i < REPL_REPLICAS; i++) {
        int port = REPL_BASE_PORT + 1 + i, conn;
        snprintf(conf, sizeof(conf), "port %d\n", port);
        st = gkServerAddConfig(l->w, conf, &l->node[i]);
        if (st != GK_OK) break;
        st = gkConnOpen(l->w, l->node[i], &conn);
        if (st != GK_OK) break;
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "REPLICAOF 127.0.0.1 %d",
                 chain && i > 0 ? port - 1 : REPL_BASE_PORT);
        labAsk(l->w, conn, cmd, reply, sizeof(reply));
        gkConnClose(l->w, conn);
    }
    if (st == GK_OK) st = gkConnOpen(l->w, l->master, &l->conn);
    if (st != GK_OK) return st;
    /* A replica of a replica is refused until its master is synced
     * (-NOMASTERLINK) and tries again a second later: a chain syncs
     * link by link. */
    for (uint64_t waited = 0; waited < REPL_SYNC_NS; waited += 100000000) {
        gkWorldRunUntil(l->w, gkWorldNow(l->w) + 100000000);
        labAsk(l->w, l->conn, "INFO replication", reply, sizeof(reply));
        char want[64];
        snprintf(want, sizeof(want), "connected_slaves:%d",
                 chain ? 1 : REPL_REPLICAS);
        if (!strstr(reply, want)) continue;
        int up = 1;
        for (int i = 0; i < REPL_REPLICAS && up; i++) {
            int conn;
            if (gkConnOpen(l->w, l->node[i], &conn) != GK_OK) return GK_ERR;
            labAsk(l->w, conn, "INFO replication", reply, sizeof(reply));
            up = strstr(reply, "master_link_status:up") != NULL;
            gkConnClose(l->w, conn);
        }
        if (up) return GK_OK;
    }
    return GK_ERR;
}

/* When node first ran a command of argc arguments after trace sequence
 * `after` (0 if it did not). */
static uint64_t _ranAt(gkWorld *w, uint64_t after, int node, uint32_t argc) {
    static gkTraceRecord rec[4096];
    uint64_t at = 0;
    size_t n;
    while ((n = gkTraceRead(w, after, rec, 4096)) > 0) {
        for (size_t i = 0; i < n; i++)
            if (rec[i].type == GK_TR_CMD && rec[i].node == node &&
                rec[i].c == argc && !at)
                at = rec[i].time;
        after = rec[n - 1].seq;
    }
    return at;
}

/* One run: the load (if any), the command, the delivery times. */
static int _runOne(labOut *o, uint64_t seed, int chain, int loaded,
                   int first) {
    replLab l;
    int st = _build(&l, seed, chain);
    if (st != GK_OK) {
        gkWorldRelease(l.w);
        return st;
    }
    int load = -1;
    if (loaded) {
        gkWorkloadSpec spec;
        gkWorkloadSpecInit(&spec);
        spec.clients = 50;
        strcpy(spec.command, "SET");
        spec.keyspace = 100000;
        spec.rtt_ns = 100000;
        gkWorkloadStart(l.w, l.master, &spec, &load);
        gkWorldRunUntil(l.w, gkWorldNow(l.w) + REPL_LOAD_NS);
    }
    const char *cmd = loaded
        ? "MSET m:0 v m:1 v m:2 v m:3 v m:4 v m:5 v m:6 v m:7 v m:8 v m:9 v"
        : "SET key1 111111";
    uint32_t argc = loaded ? 21 : 3;
    uint64_t mark = gkTraceLastSeq(l.w);
    gkConnSend(l.w, l.conn, cmd, strlen(cmd));
    gkConnSend(l.w, l.conn, "\r\n", 2);
    gkWorldRunUntil(l.w, gkWorldNow(l.w) + REPL_WAIT_NS);
    if (load >= 0) gkWorkloadStop(l.w, load);
    uint64_t t0 = _ranAt(l.w, mark, l.master, argc);
    labEmit(o, "%s{\"name\":\"%s\",\"replicas\":%d,\"delivery_ms\":[",
            first ? "" : ",", loaded ? "loaded" : "idle", REPL_REPLICAS);
    double min = 0, max = 0, sum = 0;
    int got = 0;
    for (int i = 0; i < REPL_REPLICAS; i++) {
        uint64_t at = _ranAt(l.w, mark, l.node[i], argc);
        double ms = at && t0 ? (double)(at - t0) / 1e6 : -1;
        labEmit(o, "%s%.3f", i ? "," : "", ms);
        if (ms >= 0) {
            if (!got || ms < min) min = ms;
            if (ms > max) max = ms;
            sum += ms;
            got++;
        }
    }
    labEmit(o, "],\"delivered\":%d,\"min_ms\":%.3f,\"avg_ms\":%.3f,"
            "\"max_ms\":%.3f", got, min, got ? sum / got : 0, max);
    if (chain) {
        labEmit(o, ",\"hop_ms\":[");
        uint64_t prev = t0;
        for (int i = 0; i < REPL_REPLICAS; i++) {
            uint64_t at = _ranAt(l.w, mark, l.node[i], argc);
            labEmit(o, "%s%.3f", i ? "," : "",
                    at && prev ? (double)(at - prev) / 1e6 : -1.0);
            prev = at;
        }
        labEmit(o, "]");
    }
    labEmit(o, "}");
    gkWorldRelease(l.w);
    return GK_OK;
}

static int _lab(labOut *o, uint64_t seed, int chain) {
    int st = _runOne(o, seed, chain, 0, 1);
    if (st == GK_OK) st = _runOne(o, seed, chain, 1, 0);
    return st;
}

int labReplicationStar(labOut *o, uint64_t seed) { return _lab(o, seed, 0); }

int labReplicationChain(labOut *o, uint64_t seed) {
    return _lab(o, seed, 1);
}
