/* The engine benchmark driver. The same file is compiled natively and
 * with Emscripten, so both builds run the same command stream through the
 * same API calls. Prints one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "glasskv.h"
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#define BATCH 1000

static double nowSeconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define EVAL_SCRIPT "return redis.call('get', KEYS[1])"

/* Builds one pipelined batch of RESP commands: SET key:<i> <value> or
 * GET key:<i>, for i in [from, from + BATCH). */
static size_t buildBatch(char *buf, const char *cmd, long from, long keys) {
    size_t n = 0;
    for (long i = from; i < from + BATCH; i++) {
        char key[32];
        int kl = snprintf(key, sizeof(key), "key:%ld", i % keys);
        if (cmd[0] == 'S')
            n += (size_t)sprintf(buf + n, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n"
                                 "$8\r\nvalue-%02ld\r\n", kl, key, i % 100);
        else if (cmd[0] == 'E')     /* a script of one read */
            n += (size_t)sprintf(buf + n, "*4\r\n$4\r\nEVAL\r\n$%d\r\n%s"
                                 "\r\n$1\r\n1\r\n$%d\r\n%s\r\n",
                                 (int)strlen(EVAL_SCRIPT), EVAL_SCRIPT, kl,
                                 key);
        else
            n += (size_t)sprintf(buf + n, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n",
                                 kl, key);
    }
    return n;
}

/* The command stream, built before timing so only the engine is measured:
 * the batches for keys [0, keys) in order, cycled. */
typedef struct stream { char **batch; size_t *len; long n; } stream;

static stream buildStream(const char *cmd, long keys) {
    stream st;
    st.n = (keys + BATCH - 1) / BATCH;
    st.batch = malloc(sizeof(char *) * (size_t)st.n);
    st.len = malloc(sizeof(size_t) * (size_t)st.n);
    for (long b = 0; b < st.n; b++) {
        st.batch[b] = malloc(BATCH * 128);
        st.len[b] = buildBatch(st.batch[b], cmd, b * BATCH, keys);
    }
    return st;
}

static void freeStream(stream *st) {
    for (long b = 0; b < st->n; b++) free(st->batch[b]);
    free(st->batch);
    free(st->len);
}

/* Runs total commands in pipelined batches; returns commands per second. */
static double run(gkWorld *w, int conn, const stream *st, long total,
                  char *out) {
    double t0 = nowSeconds();
    for (long b = 0; b * BATCH < total; b++) {
        long i = b % st->n;
        if (gkConnSend(w, conn, st->batch[i], st->len[i]) != GK_OK) {
            puts("{}");
            exit(1);
        }
        gkWorldRunUntilIdle(w);
        while (gkConnRecv(w, conn, out, 1 << 20) > 0) { }
    }
    return (double)total / (nowSeconds() - t0);
}

/* Copies the whole WebAssembly memory out and back in, as the worker's
 * snapshots and rewinds do, and times both (ms). Natively there is no
 * single linear memory to copy: -1. */
static void snapshotCost(double *take_ms, double *restore_ms, double *mb) {
#ifdef __EMSCRIPTEN__
    *take_ms = EM_ASM_DOUBLE({
        var t0 = performance.now();
        Module.benchCopy = HEAPU8.slice();
        return performance.now() - t0;
    });
    *restore_ms = EM_ASM_DOUBLE({
        var t0 = performance.now();
        HEAPU8.set(Module.benchCopy);
        var dt = performance.now() - t0;
        Module.benchCopy = null;
        return dt;
    });
    *mb = EM_ASM_DOUBLE({ return HEAPU8.length / 1048576; });
#else
    *take_ms = *restore_ms = *mb = -1;
#endif
}

/* Wall time of the pipelining lab: two runs of 1,000,000 simulated
 * commands. */
static double labSeconds(void) {
    static char json[1 << 16];
    double t0 = nowSeconds();
    if (gkLabRun("pipelining", 1, json, sizeof(json)) < 0) return -1;
    return nowSeconds() - t0;
}

/* The memcached fill the benchmark runs everywhere (here, through wasm/mc.ts
 * and against the real memcached): 100-byte values under distinct
 * 10-digit keys, sent in slices of MC_SLICE sets until a slice evicts. */
#define MC_OPTIONS "-m 64"
#define MC_VALUE 100
#define MC_SLICE 10000

typedef struct mcFigures {
    double sets_per_sec;    /* sets until memory is full, per wall second */
    uint64_t sets;          /* sets sent, through the slice that evicted */
    uint64_t stored, evictions, curr_items, total_malloced;
    size_t world_memory;    /* every byte the world holds */
} mcFigures;

static mcFigures mcFillOnce(void) {
    mcFigures f;
    memset(&f, 0, sizeof(f));
    gkConfig cfg;
    gkConfigInit(&cfg);
    gkWorld *w;
    int node;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkTraceEnable(w, 0);
    if (gkMemcachedAdd(w, MC_OPTIONS, &node) != GK_OK) exit(1);
    gkMcFillSpec sp;
    memset(&sp, 0, sizeof(sp));
    sp.dist = GK_MC_DIST_FIXED;
    sp.size_a = MC_VALUE;
    sp.key_bytes = 10;
    sp.keyspace = 1000000000;
    sp.total = 1000000000;
    sp.seed = 1;
    gkMcFillResult r;
    memset(&r, 0, sizeof(r));
    double t0 = nowSeconds();
    while (r.evictions == 0 && r.out_of_memory == 0 && r.sent < 10000000)
        if (gkMemcachedFill(w, node, &sp, r.sent, MC_SLICE, &r) != GK_OK)
            exit(1);
    f.sets_per_sec = (double)r.sent / (nowSeconds() - t0);
    gkMcTotals t;
    gkMemcachedClasses(w, node, NULL, 0, NULL, &t);
    f.sets = r.sent;
    f.stored = r.stored;
    f.evictions = r.evictions;
    f.curr_items = t.curr_items;
    f.total_malloced = t.total_malloced;
    f.world_memory = gkWorldMemory(w);
    gkWorldRelease(w);
    return f;
}

/* Best of three, as above; the figures other than the rate are the same
 * in every run (the world is deterministic). */
static mcFigures mcFill(void) {
    mcFigures best = mcFillOnce();
    for (int rep = 1; rep < 3; rep++) {
        mcFigures f = mcFillOnce();
        if (f.sets_per_sec > best.sets_per_sec) best = f;
    }
    return best;
}

int main(int argc, char **argv) {
    long total = argc > 1 ? atol(argv[1]) : 2000000;
    long load = argc > 2 ? atol(argv[2]) : 1000000;
    char *out = malloc(1 << 20);
    stream sets = buildStream("SET", 100000), gets = buildStream("GET", 100000);
    stream evals = buildStream("EVAL", 100000);
    stream load_sets = buildStream("SET", load);
    gkConfig cfg;
    gkConfigInit(&cfg);
    gkWorld *w;
    int srv, conn;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, &srv);
    gkConnOpen(w, srv, &conn);
    gkTraceEnable(w, 0);
    /* Best of three: the machine is shared, and the fastest run is the one
     * least disturbed by others. */
    double set = 0, get = 0, eval = 0;
    for (int rep = 0; rep < 3; rep++) {
        double s1 = run(w, conn, &sets, total, out);
        double g1 = run(w, conn, &gets, total, out);
        double e1 = run(w, conn, &evals, total / 10, out);
        if (s1 > set) set = s1;
        if (g1 > get) get = g1;
        if (e1 > eval) eval = e1;
    }
    gkWorldRelease(w);

    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, &srv);
    gkConnOpen(w, srv, &conn);
    gkTraceEnable(w, 0);
    double t0 = nowSeconds();
    run(w, conn, &load_sets, load, out);
    double loadSecs = nowSeconds() - t0;
    size_t mem = gkWorldMemory(w);
    double snap_ms, restore_ms, heap_mb;
    snapshotCost(&snap_ms, &restore_ms, &heap_mb);
    gkWorldRelease(w);
    double lab = labSeconds();
    mcFigures mc = mcFill();
    printf("{\"set_per_sec\":%.0f,\"get_per_sec\":%.0f,\"eval_per_sec\":%.0f,"
           "\"commands\":%ld,"
           "\"load_keys\":%ld,\"load_seconds\":%.3f,\"load_memory\":%zu,"
           "\"snapshot_ms\":%.1f,\"restore_ms\":%.1f,\"heap_mb\":%.0f,"
           "\"lab_seconds\":%.3f,\"mc\":{\"options\":\"%s\","
           "\"value_bytes\":%d,\"slice\":%d,\"sets_per_sec\":%.0f,"
           "\"sets\":%llu,\"stored\":%llu,\"evictions\":%llu,"
           "\"curr_items\":%llu,\"total_malloced\":%llu,"
           "\"world_memory\":%zu}}\n", set, get, eval, total, load, loadSecs, mem,
           snap_ms, restore_ms, heap_mb, lab, MC_OPTIONS, MC_VALUE, MC_SLICE,
           mc.sets_per_sec, (unsigned long long)mc.sets,
           (unsigned long long)mc.stored, (unsigned long long)mc.evictions,
           (unsigned long long)mc.curr_items,
           (unsigned long long)mc.total_malloced, mc.world_memory);
    freeStream(&sets);
    freeStream(&gets);
    freeStream(&evals);
    freeStream(&load_sets);
    free(out);
    return 0;
}
