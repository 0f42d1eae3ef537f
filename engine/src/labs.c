/* labs.c -- the built-in labs of the event-loop lessons, runnable headless:
 * each builds its worlds, runs the workloads to completion in virtual time
 * and writes its figures as JSON.
 *
 *   pipelining         80 clients doing GETs, first one command per round
 *                      trip, then in batches of 1024 (seeds 001, 002)
 *   pipeline-vs-multi  a client pipelining big batches, with and without
 *                      MULTI/EXEC, while a monitor times INFO (seed 000)
 *   rtt                one client at 0.1 ms and at 250 ms round trip,
 *                      pipelined and not (seed 002)
 *   command-flushing   a Lettuce-like client flushing after every command
 *                      (its default, pipelined), every 50 or every 1000
 *                      commands (seed 002)
 *
 * It also holds the registry of every lab, these and those of labs_eval.c
 * (eval-vs-zcard, seed 004), labs_aof.c, labs_mc.c, labs_mem.c
 * (encodings-memory), labs_slow.c (slow-command) and labs_repl.c
 * (replication-star, replication-chain, replication-failures,
 * partial-vs-full-resync) and labs_net.c (ephemeral-port-clash), which
 * gkLabName and gkLabTopic enumerate. */
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
#include "world.h"
#include "labs.h"

/* Appends formatted text to a lab's output (labs.h). */
void labEmit(labOut *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(o->buf + o->len, room, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n;
}

/* Sends one command (inline) on conn, runs the world until it is
 * answered, and puts the reply, cut at cap - 1 bytes, into out. */
void labAsk(gkWorld *w, int conn, const char *cmd, char *out, size_t cap) {
    gkConnSend(w, conn, cmd, strlen(cmd));
    gkConnSend(w, conn, "\r\n", 2);
    gkWorldRunUntilIdle(w);
    size_t n = gkConnRecv(w, conn, out, cap - 1);
    out[n] = '\0';
}

/* Lines of the node's log that contain needle. */
uint64_t labLogCount(gkWorld *w, int node, const char *needle) {
    static char buf[256 * 1024];
    uint64_t seq = 0, count = 0, last;
    for (;;) {
        size_t n = gkServerLogRead(w, node, seq, buf, sizeof(buf) - 1, &last);
        if (n == 0) break;
        buf[n] = '\0';
        for (char *q = buf; (q = strstr(q, needle)) != NULL; q++) count++;
        seq = last;
    }
    return count;
}

/* A fresh world seeded with seed that keeps only the trace records in
 * trace_mask, in a ring of capacity records (16 when it keeps none).
 * NULL if the allocator refuses. */
gkWorld *labWorld(uint64_t seed, uint32_t trace_mask, uint32_t capacity) {
    gkConfig cfg;
    gkWorld *w;
    gkConfigInit(&cfg);
    cfg.seed = seed;
    cfg.trace_capacity = trace_mask ? capacity : 16;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return NULL;
    gkTraceEnable(w, trace_mask);
    return w;
}

typedef struct labRun {
    const char *name;
    int programs;           /* client programs (cores) */
    gkWorkloadSpec spec;    /* for each program */
    int monitor;            /* also run an INFO monitor */
    uint64_t monitor_ns;
    uint64_t max_ns;        /* stop after this much virtual time */
} labRun;

static gkWorkloadSpec _spec(uint32_t clients, uint32_t pipeline,
                            uint64_t requests, uint64_t rtt_ns,
                            uint32_t client_ns) {
    gkWorkloadSpec s;
    gkWorkloadSpecInit(&s);
    s.clients = clients;
    s.pipeline = pipeline;
    s.requests = requests;
    s.rtt_ns = rtt_ns;
    s.client_cmd_ns = client_ns;
    return s;
}

/* Runs one configuration in a fresh world and writes its figures. */
static int _runOne(const labRun *r, uint64_t seed, labOut *o) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = seed;
    gkWorld *w;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return GK_ENOMEM;
    gkTraceEnable(w, 0);
    int srv, ids[GK_MAX_NODES], mon = -1;
    gkServerAdd(w, &srv);
    for (int i = 0; i < r->programs; i++)
        gkWorkloadStart(w, srv, &r->spec, &ids[i]);
    if (r->monitor) {
        gkWorkloadSpec m = _spec(1, 1, 0, r->spec.rtt_ns, 200);
        strcpy(m.command, "INFO");
        m.interval_ns = r->monitor_ns;
        gkWorkloadStart(w, srv, &m, &mon);
    }
    gkWorkloadStats st, sum;
    memset(&sum, 0, sizeof(sum));
    uint64_t step = 1000000;                    /* 1 ms */
    for (;;) {
        gkWorldRunUntil(w, gkWorldNow(w) + step);
        int done = 1;
        for (int i = 0; i < r->programs; i++) {
            gkWorkloadGetStats(w, ids[i], &st);
            if (!st.done) done = 0;
        }
        if (done || gkWorldNow(w) >= r->max_ns) break;
        if (step < 100000000) step *= 2;
    }
    uint64_t start = UINT64_MAX, end = 0, maxlat = 0, p99 = 0, p50 = 0;
    for (int i = 0; i < r->programs; i++) {
        gkWorkloadGetStats(w, ids[i], &st);
        sum.completed += st.completed;
        sum.reads += st.reads;
        sum.writes += st.writes;
        if (st.start_ns && st.start_ns < start) start = st.start_ns;
        if (st.end_ns > end) end = st.end_ns;
        if (st.lat_max_ns > maxlat) maxlat = st.lat_max_ns;
        if (st.lat_p99_ns > p99) p99 = st.lat_p99_ns;
        if (st.lat_p50_ns > p50) p50 = st.lat_p50_ns;
    }
    gkNodeStats hs;
    gkNodeGetStats(w, srv, &hs);
    double secs = end > start ? (double)(end - start) / 1e9 : 0;
    double n = sum.completed ? (double)sum.completed : 1;
    labEmit(o, "{\"name\":\"%s\",\"clients\":%u,\"pipeline\":%u,"
          "\"flush\":%u,\"multi\":%u,\"rtt_ms\":%.3f,\"commands\":%llu,"
          "\"virtual_seconds\":%.6f,\"ops_per_sec\":%.1f,"
          "\"server_syscalls_per_cmd\":%.4f,"
          "\"client_syscalls_per_cmd\":%.4f,\"server_iterations\":%llu,"
          "\"batch_latency_ms\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}",
          r->name, r->spec.clients * (uint32_t)r->programs, r->spec.pipeline,
          r->spec.flush ? r->spec.flush : r->spec.pipeline, r->spec.multi, (double)r->spec.rtt_ns / 1e6,
          (unsigned long long)sum.completed, secs,
          secs > 0 ? (double)sum.completed / secs : 0,
          (double)(hs.reads + hs.writes + hs.polls) / n,
          (double)(sum.reads + sum.writes) / n,
          (unsigned long long)hs.iterations, (double)p50 / 1e6, (double)p99 / 1e6,
          (double)maxlat / 1e6);
    if (mon >= 0) {
        uint64_t t[64], l[64];
        size_t k = gkWorkloadSamples(w, mon, t, l, 64);
        gkWorkloadGetStats(w, mon, &st);
        labEmit(o, ",\"monitor\":{\"samples\":%zu,\"max_ms\":%.3f,"
              "\"latency_ms\":[", k, (double)st.lat_max_ns / 1e6);
        for (size_t i = 0; i < k; i++)
            labEmit(o, "%s%.3f", i ? "," : "", (double)l[i] / 1e6);
        labEmit(o, "]}");
    }
    labEmit(o, "}");
    gkWorldRelease(w);
    return GK_OK;
}

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL

/* The 80 python clients of seed 001 on an 8-core machine: 8 programs of 10
 * connections, 35 us of client work per command, 0.2 ms apart. */
static int _labPipelining(labOut *o, uint64_t seed) {
    labRun runs[2] = {
        { "no pipeline", 8, _spec(10, 1, 125000, 200 * US, 35 * US), 0, 0,
          60 * SEC },
        { "pipeline of 1024", 8, _spec(10, 1024, 125000, 200 * US, 35 * US),
          0, 0, 60 * SEC },
    };
    for (int i = 0; i < 2; i++) {
        if (i) labEmit(o, ",");
        int st = _runOne(&runs[i], seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}

/* One client sends batches of 20,000 GETs back to back; a monitor sends
 * INFO every 10 ms. Inside MULTI/EXEC the whole batch runs as one EXEC,
 * and the monitor waits for it; a plain pipeline is read 16 KB at a time
 * and the monitor slips in between. */
static int _labPipelineVsMulti(labOut *o, uint64_t seed) {
    labRun runs[2] = {
        { "MULTI/EXEC batches", 1, _spec(1, 20000, 0, 100 * US, 100), 1,
          10 * MS, 1 * SEC },
        { "plain pipeline", 1, _spec(1, 20000, 0, 100 * US, 100), 1,
          10 * MS, 1 * SEC },
    };
    runs[0].spec.multi = 1;
    for (int i = 0; i < 2; i++) {
        if (i) labEmit(o, ",");
        int st = _runOne(&runs[i], seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}

/* One client, one connection: every command waits a round trip unless
 * the commands are pipelined. */
static int _labRtt(labOut *o, uint64_t seed) {
    labRun runs[4] = {
        { "0.1 ms, no pipeline", 1, _spec(1, 1, 5000, 100 * US, 5 * US), 0,
          0, 60 * SEC },
        { "0.1 ms, pipeline of 100", 1, _spec(1, 100, 100000, 100 * US,
          5 * US), 0, 0, 60 * SEC },
        { "250 ms, no pipeline", 1, _spec(1, 1, 12, 250 * MS, 5 * US), 0, 0,
          60 * SEC },
        { "250 ms, pipeline of 100", 1, _spec(1, 100, 1200, 250 * MS, 5 * US),
          0, 0, 60 * SEC },
    };
    for (int i = 0; i < 4; i++) {
        if (i) labEmit(o, ",");
        int st = _runOne(&runs[i], seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}

/* A Lettuce-like client, 20,000 GETs on one connection. First as
 * Lettuce behaves by default: every command is written and flushed as
 * it is issued, without waiting for earlier replies (the application
 * issues 1,000 and then awaits them all). Then with auto-flush off: the
 * application issues 50, or 1,000, commands, calls flushCommands() once,
 * and awaits them. The default run is pipelined too, so the batches save
 * it no round trip; what they save is system calls and packets: one
 * write(2) on the client, and one epoll_wait, read and write on the
 * server, for a whole batch instead of for every command or two. */
static int _labCommandFlushing(labOut *o, uint64_t seed) {
    static const uint32_t batch[3] = { 1000, 50, 1000 };
    static const uint32_t flush[3] = { 1, 0, 0 };
    static const char *names[3] = { "flush after every command",
                                     "flush every 50", "flush every 1000" };
    for (int i = 0; i < 3; i++) {
        labRun r = { names[i], 1, _spec(1, batch[i], 20000, 100 * US,
                                        2 * US), 0, 0, 60 * SEC };
        r.spec.flush = flush[i];
        if (i) labEmit(o, ",");
        int st = _runOne(&r, seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}

/* Every lab, grouped by the part of the server it teaches: the event
 * loop, the AOF, memcached's slabs, memory, replication, the network. */
static const struct {
    const char *name;
    const char *topic;
    int (*run)(labOut *o, uint64_t seed);
} labs[] = {
    { "pipelining", "event-loop", _labPipelining },
    { "pipeline-vs-multi", "event-loop", _labPipelineVsMulti },
    { "rtt", "event-loop", _labRtt },
    { "command-flushing", "event-loop", _labCommandFlushing },
    { "eval-vs-zcard", "event-loop", labEvalVsZcard },
    { "aof-not-a-wal", "aof", labAofNotAWal },
    { "fsync-policies", "aof", labFsyncPolicies },
    { "disk-full", "aof", labDiskFull },
    { "aof-benchmark", "aof", labAofBenchmark },
    { "slab-classes", "memcached", labSlabClasses },
    { "item-placement", "memcached", labItemPlacement },
    { "slab-calcification", "memcached", labSlabCalcification },
    { "encodings-memory", "memory", labEncodingsMemory },
    { "slow-command", "event-loop", labSlowCommand },
    { "replication-star", "replication", labReplicationStar },
    { "replication-chain", "replication", labReplicationChain },
    { "replication-failures", "replication", labReplicationFailures },
    { "partial-vs-full-resync", "replication", labPartialVsFullResync },
    { "ephemeral-port-clash", "network", labEphemeralPortClash },
    { NULL, NULL, NULL }
};

/* Runs lab `name` and writes {"lab":..., "runs":[...]} into out (cut at
 * cap). Returns the JSON length (which may exceed cap: retry with more),
 * or a negative status: GK_ENOTFOUND for an unknown lab. */
long gkLabRun(const char *name, uint64_t seed, char *out, size_t cap) {
    for (int i = 0; labs[i].name; i++) {
        if (strcmp(labs[i].name, name)) continue;
        labOut o = { out, cap, 0 };
        labEmit(&o, "{\"lab\":\"%s\",\"seed\":%llu,\"runs\":[", name,
              (unsigned long long)seed);
        int st = labs[i].run(&o, seed);
        if (st != GK_OK) return st;
        labEmit(&o, "]}");
        return (long)o.len;
    }
    return GK_ENOTFOUND;
}

/* Runs one workload to completion in a fresh world (one program, as
 * redis-benchmark is one program) and writes its figures as JSON. Same
 * return convention as gkLabRun. */
long gkWorkloadRunJson(const gkWorkloadSpec *spec, uint64_t seed, char *out,
                       size_t cap) {
    if (spec->requests == 0) return GK_EINVAL;
    labRun r = { "benchmark", 1, *spec, 0, 0, 3600 * SEC };
    labOut o = { out, cap, 0 };
    int st = _runOne(&r, seed, &o);
    return st == GK_OK ? (long)o.len : st;
}

/* The name of lab i, or NULL past the last. */
const char *gkLabName(int i) {
    if (i < 0 || i >= (int)(sizeof(labs) / sizeof(labs[0])) - 1) return NULL;
    return labs[i].name;
}

/* The topic of lab i ("event-loop", "aof", "memcached"), or NULL past the
 * last. */
const char *gkLabTopic(int i) {
    if (i < 0 || i >= (int)(sizeof(labs) / sizeof(labs[0])) - 1) return NULL;
    return labs[i].topic;
}
