/* labs_repl.c -- replication's labs: how long one write takes to reach
 * the replicas (seed 003), why adding a replica fails (seed 000), and a
 * replica back after a while continued from the backlog or synced again
 * in full.
 *
 * Seed 003's: a master and ten replicas on one machine, ports 5011 to
 * 5021.
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
 * master client); in the chain, also from the replica before it.
 *
 * The machine is one like this one: 2 CPUs shared by every process on it
 * (gkWorldSetCpus), a process woken on an idle CPU running 20 us later and
 * a CPU passed between two processes in 2.5 us (a pipe's ping-pong
 * between two processes measured here: 20-23 us one way across CPUs, 2.5
 * us on one). As in the seed, a redis-cli MONITOR reads every server
 * (its line costs the server the formatting and the write, and the
 * redis-cli 3.4 us of CPU to print it, measured here as its CPU time over
 * 200,000 lines); each run is made with them and without. What spreads
 * the delivery times: the master writes to its replicas one after the
 * other (each write a system call), eleven servers, eleven redis-cli and
 * the benchmark then share two CPUs, and a replica's turn comes when a
 * CPU is free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "world.h"
#include "labs.h"

#define REPL_REPLICAS 10
#define REPL_BASE_PORT 5011
#define REPL_SYNC_NS 120000000000ULL    /* every replica synced by then */
#define REPL_LOAD_NS 200000000ULL       /* the benchmark before the MSET */
#define REPL_WAIT_NS 500000000ULL       /* time given to deliver */
#define REPL_CPUS 2
#define REPL_WAKE_NS 20000              /* waking on an idle CPU */
#define REPL_SWITCH_NS 2500             /* a context switch */
#define REPL_PRINT_NS 3400

typedef struct replLab {
    gkWorld *w;
    int master;
    int node[REPL_REPLICAS];
    int conn;                           /* the host's, to the master */
    int monitor[REPL_REPLICAS + 1];     /* redis-cli MONITOR on each */
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
    if (st == GK_OK)
        st = gkWorldSetCpus(l->w, REPL_CPUS, REPL_WAKE_NS, REPL_SWITCH_NS);
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
                   int monitor, int first) {
    replLab l;
    int st = _build(&l, seed, chain);
    for (int i = 0; st == GK_OK && monitor && i <= REPL_REPLICAS; i++) {
        gkWorkloadSpec spec;
        gkWorkloadSpecInit(&spec);
        spec.clients = 1;
        spec.requests = 1;
        strcpy(spec.command, "MONITOR");
        spec.client_cmd_ns = REPL_PRINT_NS;
        st = gkWorkloadStart(l.w, i ? l.node[i - 1] : l.master, &spec,
                             &l.monitor[i]);
    }
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
    labEmit(o, "%s{\"name\":\"%s%s\",\"replicas\":%d,\"cpus\":%d,"
            "\"monitor\":%s,\"delivery_ms\":[", first ? "" : ",",
            loaded ? "loaded" : "idle", monitor ? "" : "-no-monitor",
            REPL_REPLICAS, REPL_CPUS, monitor ? "true" : "false");
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
    int st = GK_OK;
    for (int run = 0; run < 4 && st == GK_OK; run++)
        st = _runOne(o, seed, chain, run & 1, run < 2, run == 0);
    return st;
}

int labReplicationStar(labOut *o, uint64_t seed) { return _lab(o, seed, 0); }

/* ---- replication-failures (seed 000) ----
 *
 * Why adding a replica to a busy master fails, each cause, then its fix:
 *
 *   master-disk-full       disk-based sync (repl-diskless-sync no) on a
 *                          master whose disk is full: every BGSAVE fails
 *                          and the replica, dropped, asks again at once;
 *                          fixed by diskless sync, which writes no file
 *   master-dir-unwritable  the same with a directory the master cannot
 *                          write; the same fix
 *   replica-disk-full      the replica cannot write the RDB it receives;
 *                          fixed by freeing its disk
 *   diskless-default       7.0's default (diskless) on the full master
 *                          disk: the first cause never happens
 *   fork-fails             the seed's third cause: a master of some 24 MB
 *                          on a machine of 32 MB of RAM and 8 MB of swap
 *                          under vm.overcommit_memory=0, the kernel of the
 *                          seed's time (machine_mem.c): a dataset larger
 *                          than free memory plus swap. Every fork fails
 *                          ("Can't save in background: fork: Cannot
 *                          allocate memory"), the replica is told "-ERR
 *                          BGSAVE failed, replication can't continue" and
 *                          asks again at once: thousands of times a
 *                          second here, for the simulated handshake costs
 *                          less than redis-server's (about 1,500 a second
 *                          measured, with a fork failing for another
 *                          reason); fixed by sysctl vm.overcommit_memory=1
 *   fork-fails-diskless    the same under 7.0's default: a diskless sync
 *                          forks too (the child writes the RDB into a
 *                          pipe the parent sends to the sockets), so it
 *                          fails the same way, once per diskless delay;
 *                          the same fix
 *
 * For each: the failed syncs in the first 8 s (diskless sync waits 5 s
 * for more replicas before it starts), whether the replica was in sync
 * then, how long after the fix it was, and its keys; the forks refused,
 * the master's used_memory, and the first warning it logged once the
 * replica asked. */

#define FAIL_KEYS 1000
#define FAIL_WATCH_NS 8000000000ULL     /* diskless sync's 5 s, and more */
#define FAIL_FIX_NS 20000000000ULL
#define FAIL_SLICE_NS 10000000ULL
/* fork-fails: a master of some 24 MB on a machine of 32 MB of RAM and
 * 8 MB of swap: 16 MB are left, less than its child needs. */
#define FORK_RAM "32mb"
#define FORK_SWAP "8mb"
#define FORK_POPULATE "DEBUG POPULATE 80000 key 250"

/* A field of INFO on conn, as a number (-1 if absent). */
static long long _infoField(gkWorld *w, int conn, const char *section,
                            const char *field) {
    char reply[8192], cmd[64], want[64];
    snprintf(cmd, sizeof(cmd), "INFO %s", section);
    labAsk(w, conn, cmd, reply, sizeof(reply));
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(reply, want);
    return p ? atoll(p + strlen(want)) : -1;
}

/* Runs until node's link to its master is up (or max_ns); the time it
 * took, -1 if it never was. */
static double _untilLinked(gkWorld *w, int conn, uint64_t max_ns) {
    char reply[4096];
    uint64_t t0 = gkWorldNow(w);
    while (gkWorldNow(w) - t0 < max_ns) {
        labAsk(w, conn, "INFO replication", reply, sizeof(reply));
        if (strstr(reply, "master_link_status:up"))
            return (double)(gkWorldNow(w) - t0) / 1e6;
        gkWorldRunUntil(w, gkWorldNow(w) + 10000000);
    }
    return -1;
}

/* Adds to count[i] the lines of node's log after seq that hold
 * needle[i] (a NULL-ended list; NULL for none) and returns the number of
 * its last line. Lines pushed out of the log's ring before they were
 * read are not counted. */
static uint64_t _logTally(gkWorld *w, int node, uint64_t seq,
                          const char *const *needle, uint64_t *count) {
    static char buf[64 * 1024];
    uint64_t last;
    size_t n;
    while ((n = gkServerLogRead(w, node, seq, buf, sizeof(buf) - 1, &last))
           > 0) {
        buf[n] = '\0';
        for (int i = 0; needle && needle[i]; i++)
            for (char *q = buf; (q = strstr(q, needle[i])) != NULL; q++)
                count[i]++;
        seq = last;
    }
    return seq;
}

/* The text of the first warning ('#') node logged after seq, JSON-safe,
 * into buf ("" if none). */
static const char *_firstWarning(gkWorld *w, int node, uint64_t seq,
                                 char *buf, size_t cap) {
    static char log[64 * 1024];
    uint64_t last;
    size_t n = gkServerLogRead(w, node, seq, log, sizeof(log) - 1, &last);
    log[n] = '\0';
    const char *p = strstr(log, " # ");
    size_t len = 0;
    if (p)
        for (p += 3; p[len] && p[len] != '\n' && len + 1 < cap; len++)
            buf[len] = p[len] == '"' || p[len] == '\\' ? '\'' : p[len];
    buf[len] = '\0';
    return buf;
}

static int _failureRun(labOut *o, uint64_t seed, const char *name,
                       int first) {
    int no_fork = !strncmp(name, "fork-fails", 10);
    int disk_sync = strcmp(name, "diskless-default") != 0 &&
                    strcmp(name, "replica-disk-full") != 0 &&
                    strcmp(name, "fork-fails-diskless") != 0;
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int m, r, cm, cr;
    char reply[4096], line[256];
    int st = gkServerAddConfig(w, disk_sync ? "save \"\"\nrepl-diskless-"
                                              "sync no\n" : "save \"\"\n",
                               &m);
    if (st == GK_OK) st = gkServerAddConfig(w, "save \"\"\n", &r);
    if (st == GK_OK) st = gkConnOpen(w, m, &cm);
    if (st == GK_OK) st = gkConnOpen(w, r, &cr);
    if (st == GK_OK && no_fork)
        st = gkMachineSet(w, m, "mem-total", FORK_RAM);
    if (st == GK_OK && no_fork)
        st = gkMachineSet(w, m, "swap-total", FORK_SWAP);
    if (st != GK_OK) {
        gkWorldRelease(w);
        return st;
    }
    labAsk(w, cm, no_fork ? FORK_POPULATE : "DEBUG POPULATE 1000", reply,
           sizeof(reply));
    long long used = _infoField(w, cm, "memory", "used_memory");
    if (!strcmp(name, "master-dir-unwritable"))
        gkDiskSetReadOnly(w, m, "", 1);
    else if (!strcmp(name, "replica-disk-full"))
        gkDiskSetFree(w, r, 1000);
    else if (!no_fork)          /* the memory is short, not the disk */
        gkDiskSetFree(w, m, 0);
    static const char *const master_lines[] = {
        "SYNC failed. BGSAVE child returned an error",
        "BGSAVE for replication failed",
        "Can't save in background: fork: Cannot allocate memory",
        "Diskless rdb transfer, last replica dropped, killing fork child.",
        NULL };
    static const char *const replica_lines[] = {
        "Reconnecting to MASTER 127.0.0.1:6379 after failure", NULL };
    uint64_t mc[4] = { 0 }, rc[1] = { 0 };
    uint64_t log0 = _logTally(w, m, 0, NULL, NULL), mseq = log0;
    uint64_t rseq = _logTally(w, r, 0, NULL, NULL);
    labAsk(w, cr, "REPLICAOF 127.0.0.1 6379", reply, sizeof(reply));
    /* in slices, so the log's ring (1,024 lines) keeps every line until
     * it is counted: a master that cannot fork fails a sync in about a
     * millisecond */
    for (uint64_t t = 0; t < FAIL_WATCH_NS; t += FAIL_SLICE_NS) {
        gkWorldRunUntil(w, gkWorldNow(w) + FAIL_SLICE_NS);
        mseq = _logTally(w, m, mseq, master_lines, mc);
        rseq = _logTally(w, r, rseq, replica_lines, rc);
    }
    uint64_t master_fails = mc[0] + mc[1], fork_fails = mc[2];
    uint64_t killed = mc[3], replica_fails = rc[0];
    labAsk(w, cr, "INFO replication", reply, sizeof(reply));
    int synced = strstr(reply, "master_link_status:up") != NULL;
    const char *fix = "none";
    _firstWarning(w, m, log0, line, sizeof(line));
    if (!synced && no_fork) {
        fix = "sysctl vm.overcommit_memory=1";
        gkMachineSet(w, m, "vm.overcommit_memory", "1");
    } else if (!synced && disk_sync) {
        fix = "CONFIG SET repl-diskless-sync yes";
        labAsk(w, cm, fix, reply, sizeof(reply));
    } else if (!synced) {
        fix = "free the replica's disk";
        gkDiskSetFree(w, r, 1ULL << 30);
    }
    double after_fix = synced ? 0 : _untilLinked(w, cr, FAIL_FIX_NS);
    labAsk(w, cr, "DBSIZE", reply, sizeof(reply));
    long keys = reply[0] == ':' ? strtol(reply + 1, NULL, 10) : -1;
    labEmit(o, "%s{\"name\":\"%s\",\"failed_syncs\":%llu,"
            "\"replica_retries\":%llu,\"children_killed\":%llu,"
            "\"synced_before_fix\":%s,\"fix\":\"%s\",\"synced_ms_after_fix\":"
            "%.0f,\"replica_keys\":%ld,\"fork_failures\":%llu,"
            "\"master_used_memory\":%lld,\"master_log\":\"%s\"}",
            first ? "" : ",", name, (unsigned long long)master_fails,
            (unsigned long long)replica_fails, (unsigned long long)killed,
            synced ? "true" : "false", fix, after_fix, keys,
            (unsigned long long)fork_fails, used, line);
    gkWorldRelease(w);
    return GK_OK;
}

int labReplicationFailures(labOut *o, uint64_t seed) {
    static const char *runs[] = { "master-disk-full", "master-dir-unwritable",
                                  "replica-disk-full", "diskless-default",
                                  "fork-fails", "fork-fails-diskless" };
    for (int i = 0; i < 6; i++) {
        int st = _failureRun(o, seed, runs[i], i == 0);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}

int labReplicationChain(labOut *o, uint64_t seed) {
    return _lab(o, seed, 1);
}

/* ---- partial-vs-full-resync ----
 *
 * A replica of a master holding 100,000 keys goes down (kill -9) while
 * the master takes N bytes of writes, then starts again. Its dump.rdb,
 * from its full sync, says where the master's stream stood: if the
 * master's backlog (repl-backlog-size, 1 MB) still holds that offset,
 * the replica continues with PSYNC and gets those bytes; past it, it gets
 * the whole dataset again. For 64 KB, 512 KB and 2 MB of writes: which it
 * was, the bytes the master sent the replica, and how long until it was
 * in sync. */

static int _resyncRun(labOut *o, uint64_t seed, size_t bytes, int first) {
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int m, r, cm, cr;
    char reply[4096];
    int st = gkServerAddConfig(w, "save \"\"\n", &m);
    if (st == GK_OK)
        st = gkServerAddConfig(w, "replicaof 127.0.0.1 6379\n", &r);
    if (st == GK_OK) st = gkConnOpen(w, m, &cm);
    if (st == GK_OK) st = gkConnOpen(w, r, &cr);
    if (st == GK_OK) {
        labAsk(w, cm, "DEBUG POPULATE 100000 key 100", reply, sizeof(reply));
        if (_untilLinked(w, cr, 60000000000ULL) < 0) st = GK_ERR;
    }
    if (st == GK_OK) st = gkServerCrash(w, r, GK_CRASH_PROCESS);
    if (st != GK_OK) {
        gkWorldRelease(w);
        return st;
    }
    /* Writes of 1,000-byte values, about 1,040 bytes each in the stream,
     * while the replica is down. */
    size_t n = bytes / 1040;
    long long off0 = _infoField(w, cm, "replication", "master_repl_offset");
    static char value[1001];
    memset(value, 'v', 1000);
    for (size_t i = 0; i < n; i += 100) {
        sds batch = sdsempty(&w->mem);
        for (size_t j = i; j < n && j < i + 100; j++)
            batch = sdscatprintf(&w->mem, batch, "SET w:%zu %s\r\n", j,
                                 value);
        gkConnSend(w, cm, batch, sdslen(batch));
        sdsfree(&w->mem, batch);
        gkWorldRunUntilIdle(w);
        while (gkConnRecv(w, cm, reply, sizeof(reply)) > 0) {}
    }
    long long written =
        _infoField(w, cm, "replication", "master_repl_offset") - off0;
    long long out0 = _infoField(w, cm, "stats", "total_net_output_bytes");
    uint64_t t0 = gkWorldNow(w);
    st = gkServerRestart(w, r, NULL);
    if (st == GK_OK) st = gkConnOpen(w, r, &cr);
    if (st != GK_OK) {
        gkWorldRelease(w);
        return st;
    }
    /* in sync: the replica's offset is the master's */
    double ms = -1;
    for (int i = 0; i < 6000 && ms < 0; i++) {
        long long want = _infoField(w, cm, "replication", "master_repl_offset");
        labAsk(w, cr, "INFO replication", reply, sizeof(reply));
        const char *p = strstr(reply, "\r\nmaster_repl_offset:");
        if (strstr(reply, "master_link_status:up") && p &&
            atoll(p + 21) == want)
            ms = (double)(gkWorldNow(w) - t0) / 1e6;
        if (ms < 0) gkWorldRunUntil(w, gkWorldNow(w) + 10000000);
    }
    /* what the master sent, less the replies to these INFO calls */
    long long out1 = _infoField(w, cm, "stats", "total_net_output_bytes");
    int partial = labLogCount(w, m, "Partial resynchronization request "
                                    "from") > 0;
    labAsk(w, cr, "DBSIZE", reply, sizeof(reply));
    labEmit(o, "%s{\"name\":\"%zu KB\",\"written_bytes\":%lld,"
            "\"resync\":\"%s\",\"sent_bytes\":%lld,\"in_sync_ms\":%.0f,"
            "\"replica_keys\":%ld}", first ? "" : ",", bytes / 1024,
            written, partial ? "partial" : "full", out1 - out0, ms,
            reply[0] == ':' ? strtol(reply + 1, NULL, 10) : -1);
    gkWorldRelease(w);
    return GK_OK;
}

int labPartialVsFullResync(labOut *o, uint64_t seed) {
    static const size_t sizes[] = { 64 * 1024, 512 * 1024, 2048 * 1024 };
    for (int i = 0; i < 3; i++) {
        int st = _resyncRun(o, seed, sizes[i], i == 0);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}
