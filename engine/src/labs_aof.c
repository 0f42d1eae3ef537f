/* labs_aof.c -- the AOF labs, runnable headless (glasskv run <lab>):
 *
 *   aof-not-a-wal   a burst of writes run in one event-loop iteration and
 *                   a crash before that iteration's beforeSleep: the
 *                   dataset had them, the AOF did not, and no client had
 *                   a reply yet. Then the real risk: everysec on a disk
 *                   whose fsync takes seconds, the postponement, the
 *                   "Asynchronous AOF fsync is taking too long" line, and
 *                   acknowledged writes lost at a power loss.
 *   fsync-policies  always, everysec and no under the same load:
 *                   throughput, fsyncs per second, and the worst loss
 *                   over many crash instants.
 *   disk-full       writes get -MISCONF when the disk fills, GET still
 *                   works, and writes come back once space is freed.
 *   aof-benchmark   SET throughput under each policy on each disk, and
 *                   the bytes and virtual time of rewriting 1,000,000
 *                   keys.
 *
 * The labs drive the engine only through glasskv.h, as a host would. A
 * probe client numbers its writes (SET k:<i> <i>) so that after a crash
 * and a restart the dataset says exactly which writes survived. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "glasskv.h"
#include "labs.h"
#include "mem.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

/* ---- A client that numbers its writes. ---- */

typedef struct probe {
    gkWorld *w;
    int node, conn;
    gkMem mem;
    uint64_t sent, acked, refused;  /* writes sent, +OK, -errors */
    uint64_t *ack_at;               /* when write i got its +OK */
    uint64_t cap;
} probe;

static gkWorld *_world(uint64_t seed, uint32_t trace_mask) {
    return labWorld(seed, trace_mask, 1u << 16);
}

/* A probe connected to node. */
static void _probeInit(probe *p, gkWorld *w, int node) {
    memset(p, 0, sizeof(*p));
    memInit(&p->mem, memDefaultAlloc, NULL);
    p->w = w;
    p->node = node;
    gkConnOpen(w, node, &p->conn);
    /* A 20 us round trip: a reply then arrives when the server wrote it,
     * not when its iteration began. */
    gkConnSetLink(w, p->conn, 20000, 0);
}

static void _probeFree(probe *p) { memFree(&p->mem, p->ack_at); }

/* Counts the single-line replies that arrived (+OK or -ERR ...). */
static void _probeReplies(probe *p, uint64_t base, uint64_t n) {
    char buf[4096];
    size_t got;
    uint64_t seen = 0;
    while ((got = gkConnRecv(p->w, p->conn, buf, sizeof(buf))) > 0) {
        for (size_t i = 0; i < got; i++) {
            if (buf[i] == '+' || buf[i] == '-') {
                if (seen < n && buf[i] == '+') {
                    p->ack_at[base + seen] = gkWorldNow(p->w);
                    p->acked++;
                } else if (buf[i] == '-') {
                    p->refused++;
                }
                seen++;
            }
            while (i < got && buf[i] != '\n') i++;
        }
    }
}

/* Sends n numbered SETs in one write (a pipeline) with values of vsize
 * bytes and waits until they are answered or the server is gone. */
static void _probeBatch(probe *p, int n, size_t vsize) {
    char cmd[256], val[64 * 1024];
    if (p->sent + (uint64_t)n > p->cap) {
        p->cap = (p->cap + (uint64_t)n) * 2;
        p->ack_at = memRealloc(&p->mem, p->ack_at, sizeof(uint64_t) * p->cap);
    }
    if (vsize > sizeof(val)) vsize = sizeof(val);
    memset(val, 'v', vsize);
    uint64_t base = p->sent;
    for (int i = 0; i < n; i++, p->sent++) {
        char key[32], num[32];
        int kl = snprintf(key, sizeof(key), "k:%llu",
                          (unsigned long long)p->sent);
        int nl = snprintf(num, sizeof(num), "%llu",
                          (unsigned long long)p->sent);
        size_t vl = vsize ? vsize : (size_t)nl;
        int cl = snprintf(cmd, sizeof(cmd), "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n"
                          "$%zu\r\n", kl, key, vl);
        gkConnSend(p->w, p->conn, cmd, (size_t)cl);
        gkConnSend(p->w, p->conn, vsize ? val : num, vl);
        gkConnSend(p->w, p->conn, "\r\n", 2);
        p->ack_at[p->sent] = 0;
    }
    gkWorldRunUntilIdle(p->w);
    _probeReplies(p, base, (uint64_t)n);
}

/* Batches of `batch` writes, `think` apart, until `until` or until the
 * server is down. */
static void _probeRun(probe *p, uint64_t until, int batch, uint64_t think) {
    while (gkWorldNow(p->w) < until && gkServerIsUp(p->w, p->node) == 1) {
        _probeBatch(p, batch, 0);
        gkWorldRunUntil(p->w, gkWorldNow(p->w) + think);
    }
}

/* Restarts a crashed server and returns how many keys it recovered. */
static long long _recover(gkWorld *w, int node) {
    char reply[256];
    int conn;
    if (gkServerRestart(w, node, NULL) != GK_OK) return -1;
    gkConnOpen(w, node, &conn);
    labAsk(w, conn, "DBSIZE", reply, sizeof(reply));
    return reply[0] == ':' ? atoll(reply + 1) : -1;
}

/* Writes acknowledged and then lost, and how long before the crash the
 * first of them was acknowledged (its age at the crash). */
static void _loss(const probe *p, long long recovered, uint64_t crash_at,
                  uint64_t *lost, double *window_ms) {
    *lost = 0;
    *window_ms = 0;
    for (uint64_t i = recovered < 0 ? 0 : (uint64_t)recovered; i < p->sent;
         i++) {
        if (!p->ack_at[i]) continue;
        if (*lost == 0) *window_ms = (double)(crash_at - p->ack_at[i]) / 1e6;
        (*lost)++;
    }
}

/* ---- aof-not-a-wal ---- */

/* Counts what the trace says happened on node after seq `from`: commands
 * run, bytes fed to aof_buf, bytes written to the AOF. */
static void _traceCounts(gkWorld *w, int node, uint64_t from,
                         uint64_t *cmds, uint64_t *fed, uint64_t *written) {
    gkTraceRecord rec[512];
    size_t n;
    *cmds = *fed = *written = 0;
    while ((n = gkTraceRead(w, from, rec, 512)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (rec[i].node != node) continue;
            if (rec[i].type == GK_TR_CMD) (*cmds)++;
            if (rec[i].type == GK_TR_AOF && rec[i].a == GK_AOF_FEED)
                *fed += rec[i].c;
            if (rec[i].type == GK_TR_AOF && rec[i].a == GK_AOF_WRITE)
                *written += rec[i].c;
        }
        from = rec[n - 1].seq;
    }
}

/* A pipeline of 400 SETs (13 KB: one 16 KB read) run in one iteration,
 * then the process dies at that iteration's beforeSleep. */
static int _labBurst(labOut *o, uint64_t seed, const char *policy) {
    char conf[96];
    int srv;
    probe p;
    gkWorld *w = _world(seed, (1u << GK_TR_CMD) | (1u << GK_TR_AOF));
    if (!w) return GK_ENOMEM;
    snprintf(conf, sizeof(conf), "appendonly yes\nappendfsync %s\n", policy);
    gkServerAddConfig(w, conf, &srv);
    _probeInit(&p, w, srv);
    gkWorldRunUntil(w, 100 * MS);
    uint64_t from = gkTraceLastSeq(w);
    gkServerCrashAt(w, srv, gkWorldNow(w), GK_CRASH_PROCESS,
                    GK_CRASH_AT_BEFORE_SLEEP);
    _probeBatch(&p, 400, 0);
    uint64_t cmds, fed, written;
    _traceCounts(w, srv, from, &cmds, &fed, &written);
    gkDiskFile fi;
    gkDiskFileInfo(w, srv, "appendonlydir/appendonly.aof.1.incr.aof", &fi);
    long long rec = _recover(w, srv);
    labEmit(o, "{\"name\":\"burst, crash before beforeSleep\","
            "\"appendfsync\":\"%s\",\"commands_sent\":400,"
            "\"commands_run_in_memory\":%llu,\"aof_buf_bytes\":%llu,"
            "\"aof_bytes_written\":%llu,\"aof_file_bytes\":%llu,"
            "\"replies_received\":%llu,\"keys_after_restart\":%lld}",
            policy, (unsigned long long)cmds, (unsigned long long)fed,
            (unsigned long long)written, (unsigned long long)fi.size,
            (unsigned long long)p.acked, rec);
    _probeFree(&p);
    gkWorldRelease(w);
    return GK_OK;
}

/* everysec, one write every 10 ms, the power goes at `at`: how many
 * acknowledged writes were lost, and how old the oldest of them was. */
typedef struct slowRun {
    uint64_t acked, lost, delayed, log_lines;
    double window_ms;
} slowRun;

/* One such run in a fresh world, its figures into r. */
static void _slowOnce(uint64_t seed, const char *disk, uint64_t at,
                      slowRun *r) {
    int srv;
    probe p;
    gkAofInfo ai;
    gkWorld *w = _world(seed, 0);
    gkServerAddConfig(w, "appendonly yes\nappendfsync everysec\n", &srv);
    gkDiskSetPreset(w, srv, disk);
    _probeInit(&p, w, srv);
    _probeRun(&p, at - SEC, 1, 10 * MS);
    gkAofGetInfo(w, srv, &ai);
    r->delayed = ai.delayed_fsync;
    r->log_lines = labLogCount(w, srv, "Asynchronous AOF fsync is taking too "
                             "long");
    gkServerCrashAt(w, srv, at, GK_CRASH_POWER, 0);
    _probeRun(&p, at + SEC, 1, 10 * MS);
    _loss(&p, _recover(w, srv), at, &r->lost, &r->window_ms);
    r->acked = p.acked;
    _probeFree(&p);
    gkWorldRelease(w);
}

/* Ten power losses between 8 and 12 s; the worst one is reported. */
static int _labSlowFsync(labOut *o, uint64_t seed, const char *disk) {
    slowRun worst = { 0 }, r;
    uint64_t delayed = 0, lines = 0, acked = 0;
    for (int i = 0; i < 10; i++) {
        _slowOnce(seed, disk, 8 * SEC + (uint64_t)i * 400 * MS, &r);
        if (r.window_ms > worst.window_ms) worst = r;
        delayed += r.delayed;
        lines += r.log_lines;
        acked += r.acked;
    }
    labEmit(o, "{\"name\":\"everysec, power loss\",\"disk\":\"%s\","
            "\"writes_per_sec_offered\":100,\"crashes\":10,"
            "\"mean_acknowledged\":%.1f,\"max_lost_acknowledged\":%llu,"
            "\"max_loss_window_ms\":%.1f,\"mean_aof_delayed_fsync\":%.1f,"
            "\"mean_log_fsync_too_long\":%.1f}", disk, (double)acked / 10,
            (unsigned long long)worst.lost, worst.window_ms,
            (double)delayed / 10, (double)lines / 10);
    return GK_OK;
}

/* The aof-not-a-wal lab (see the top of this file). */
int labAofNotAWal(labOut *o, uint64_t seed) {
    int st = _labBurst(o, seed, "always");
    labEmit(o, ",");
    if (st == GK_OK) st = _labBurst(o, seed, "everysec");
    labEmit(o, ",");
    if (st == GK_OK) st = _labSlowFsync(o, seed, "ssd");
    labEmit(o, ",");
    if (st == GK_OK) st = _labSlowFsync(o, seed, "slow-fsync");
    return st;
}

/* ---- fsync-policies ---- */

static const char *const policies[3] = { "always", "everysec", "no" };

/* Throughput of 50 clients doing SETs (redis-benchmark -c 50), and the
 * fsyncs the disk completed meanwhile. */
static int _throughputOn(labOut *o, uint64_t seed, const char *policy,
                         const char *disk, uint64_t requests) {
    char conf[96];
    int srv, wl;
    gkWorkloadSpec spec;
    gkWorkloadStats st;
    gkDiskInfo di;
    gkWorld *w = _world(seed, 0);
    if (!w) return GK_ENOMEM;
    snprintf(conf, sizeof(conf), "appendonly yes\nappendfsync %s\n", policy);
    gkServerAddConfig(w, conf, &srv);
    gkDiskSetPreset(w, srv, disk);
    gkWorkloadSpecInit(&spec);
    strcpy(spec.command, "SET");
    spec.requests = requests;
    spec.rtt_ns = 100000;
    gkWorkloadStart(w, srv, &spec, &wl);
    for (int i = 0; i < 6000; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 100 * MS);
        gkWorkloadGetStats(w, wl, &st);
        if (st.done) break;
    }
    gkDiskGetInfo(w, srv, &di);
    double secs = (double)(st.end_ns - st.start_ns) / 1e9;
    labEmit(o, "\"ops_per_sec\":%.1f,\"fsyncs_per_sec\":%.1f,"
            "\"p99_latency_ms\":%.3f", secs > 0 ? st.completed / secs : 0,
            secs > 0 ? di.syncs / secs : 0, (double)st.lat_p99_ns / 1e6);
    gkWorldRelease(w);
    return GK_OK;
}

/* A crash at one instant: what was acknowledged and lost. */
static void _crashOnce(uint64_t seed, const char *policy, uint64_t at,
                       int kind, uint64_t *lost, double *window) {
    char conf[96];
    int srv;
    probe p;
    gkWorld *w = _world(seed, 0);
    snprintf(conf, sizeof(conf), "appendonly yes\nappendfsync %s\n", policy);
    gkServerAddConfig(w, conf, &srv);
    _probeInit(&p, w, srv);
    gkServerCrashAt(w, srv, at, kind, 0);
    _probeRun(&p, at + SEC, 4, 10 * MS);
    long long rec = _recover(w, srv);
    _loss(&p, rec, at, lost, window);
    _probeFree(&p);
    gkWorldRelease(w);
}

/* splitmix64: the crash instants of a lab, from its seed. */
static uint64_t _mix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Worst and mean loss over 8 crash instants of each kind. */
static void _losses(labOut *o, uint64_t seed, const char *policy) {
    uint64_t x = seed * 2654435761ULL + 7;
    for (int kind = 0; kind < 2; kind++) {
        uint64_t worst = 0, sum = 0;
        double worst_ms = 0;
        for (int i = 0; i < 8; i++) {
            uint64_t at = SEC + _mix(&x) % (40 * SEC), lost;
            double ms;
            _crashOnce(seed + (uint64_t)i, policy, at, kind, &lost, &ms);
            sum += lost;
            if (lost > worst) worst = lost;
            if (ms > worst_ms) worst_ms = ms;
        }
        labEmit(o, ",\"%s\":{\"crashes\":8,\"max_lost_acknowledged\":%llu,"
                "\"mean_lost_acknowledged\":%.1f,\"max_loss_window_ms\":%.1f}",
                kind == GK_CRASH_POWER ? "power_loss" : "process_crash",
                (unsigned long long)worst, (double)sum / 8, worst_ms);
    }
}

/* Throughput on the SATA SSD preset. */
static int _throughput(labOut *o, uint64_t seed, const char *policy) {
    return _throughputOn(o, seed, policy, "ssd", 100000);
}

/* The fsync-policies lab. */
int labFsyncPolicies(labOut *o, uint64_t seed) {
    for (int i = 0; i < 3; i++) {
        if (i) labEmit(o, ",");
        labEmit(o, "{\"name\":\"appendfsync %s\",\"disk\":\"ssd\",",
                policies[i]);
        int st = _throughput(o, seed, policies[i]);
        if (st != GK_OK) return st;
        _losses(o, seed, policies[i]);
        labEmit(o, "}");
    }
    return GK_OK;
}

/* ---- disk-full ---- */

/* GET of a key written before the disk filled: does it still answer? */
static int _getWorks(gkWorld *w, int node) {
    char reply[256];
    int conn;
    gkConnOpen(w, node, &conn);
    labAsk(w, conn, "GET k:0", reply, sizeof(reply));
    gkConnClose(w, conn);
    return reply[0] == '$' && reply[1] != '-';
}

/* The disk-full lab: 10 KB SETs every 5 ms into 64 KB of free
 * space, then space is freed. */
int labDiskFull(labOut *o, uint64_t seed) {
    int srv;
    probe p;
    char reply[256];
    gkWorld *w = _world(seed, 0);
    if (!w) return GK_ENOMEM;
    gkServerAddConfig(w, "appendonly yes\nappendfsync everysec\n", &srv);
    _probeInit(&p, w, srv);
    gkDiskSetFree(w, srv, 64 * 1024);
    uint64_t first_refused = 0;
    for (int i = 0; i < 12; i++) {
        _probeBatch(&p, 1, 10000);
        if (p.refused && !first_refused) first_refused = p.sent;
        gkWorldRunUntil(w, gkWorldNow(w) + 5 * MS);
    }
    labAsk(w, p.conn, "PING", reply, sizeof(reply));
    int ping_refused = reply[0] == '-';
    int get_ok = _getWorks(w, srv);
    uint64_t refused = p.refused, freed_at = gkWorldNow(w), back_at = 0;
    gkDiskSetFree(w, srv, 100 * 1024 * 1024);
    for (int i = 0; i < 400 && !back_at; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 5 * MS);
        uint64_t before = p.acked;
        _probeBatch(&p, 1, 10);
        if (p.acked > before) back_at = gkWorldNow(w);
    }
    labEmit(o, "{\"name\":\"disk full\",\"free_bytes\":65536,"
            "\"value_bytes\":10000,\"writes_sent\":12,"
            "\"first_refused_write\":%llu,\"refused\":%llu,"
            "\"ping_refused\":%s,\"get_still_works\":%s,"
            "\"log_short_write\":%llu,\"log_write_error_solved\":%llu,"
            "\"writes_accepted_again_after_ms\":%.1f}",
            (unsigned long long)first_refused, (unsigned long long)refused,
            ping_refused ? "true" : "false", get_ok ? "true" : "false",
            (unsigned long long)labLogCount(w, srv, "Short write while writing"),
            (unsigned long long)labLogCount(w, srv, "AOF write error looks "
                                          "solved"),
            back_at ? (double)(back_at - freed_at) / 1e6 : -1.0);
    _probeFree(&p);
    gkWorldRelease(w);
    return GK_OK;
}

/* ---- aof-benchmark ---- */

/* BGREWRITEAOF of 1,000,000 keys: the size of the new base, the fork's
 * cost to the parent, and the child's lane from fork to exit. */
static int _rewriteMillion(labOut *o, uint64_t seed) {
    char reply[256];
    gkThreadInfo th[8];
    int srv, conn, k;
    gkWorld *w = _world(seed, 0);
    if (!w) return GK_ENOMEM;
    gkServerAddConfig(w, "appendonly yes\n", &srv);
    gkConnOpen(w, srv, &conn);
    labAsk(w, conn, "DEBUG POPULATE 1000000", reply, sizeof(reply));
    uint64_t child_ns = 0;
    labAsk(w, conn, "BGREWRITEAOF", reply, sizeof(reply));
    char info[4096];
    labAsk(w, conn, "INFO stats", info, sizeof(info));
    const char *f = strstr(info, "latest_fork_usec:");
    double fork_ms = f ? atof(f + 17) / 1000 : -1;
    gkServerThreads(w, srv, th, 8, &k);
    if (k > 4) child_ns = th[4].busy_until - th[4].busy_since;
    for (int i = 0; i < 600; i++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 100 * MS);
        gkServerThreads(w, srv, th, 8, &k);
        if (k == 4) break;
    }
    gkDiskFile fi;
    gkDiskFileInfo(w, srv, "appendonlydir/appendonly.aof.2.base.rdb", &fi);
    labEmit(o, "{\"name\":\"rewrite of 1000000 keys\",\"base_bytes\":%llu,"
            "\"fork_ms\":%.3f,\"child_ms\":%.3f}",
            (unsigned long long)fi.size, fork_ms,
            (double)child_ns / 1e6);
    gkWorldRelease(w);
    return GK_OK;
}

/* The aof-benchmark run: SET throughput for each policy on each
 * disk, then a rewrite of a million keys. */
int labAofBenchmark(labOut *o, uint64_t seed) {
    for (int p = 0; p < 3; p++) {
        for (int d = 0; gkDiskPresetName(d); d++) {
            labEmit(o, "{\"name\":\"SET, appendfsync %s\",\"disk\":\"%s\",",
                    policies[p], gkDiskPresetName(d));
            int st = _throughputOn(o, seed, policies[p], gkDiskPresetName(d),
                                   !strcmp(gkDiskPresetName(d), "slow-fsync")
                                   && p == 0 ? 200 : 50000);
            if (st != GK_OK) return st;
            labEmit(o, "},");
        }
    }
    return _rewriteMillion(o, seed);
}
