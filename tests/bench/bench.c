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

/* A benchmarked command and how each request of its stream is built. In
 * an argument, "%k" stands for key:<i>, i being the request's place in
 * the stream modulo the keyspace (in order, as the SET/GET stream has
 * always gone); "%v" for value-<i mod 100, two digits>; and "%r" for a
 * 12-digit number drawn in [0, keyspace), anew at each occurrence, as
 * redis-benchmark -r <keyspace> expands __rand_int__. The draws come from
 * a PRNG with a fixed seed, so every run and both builds send the same
 * bytes. */
typedef struct benchCmd {
    const char *name;       /* the row's name (redis-benchmark's test name) */
    const char *args[6];    /* the request's arguments, NULL after the last */
    long share;             /* runs total / share requests of it */
} benchCmd;

/* SET, GET and EVAL, on the keys key:0 .. key:<keyspace - 1>. */
static const benchCmd STRING_CMDS[] = {
    { "SET", { "SET", "%k", "%v", NULL }, 1 },
    { "GET", { "GET", "%k", NULL }, 1 },
    { "EVAL", { "EVAL", EVAL_SCRIPT, "1", "%k", NULL }, 10 },  /* one read */
};
#define STRING_NCMDS (int)(sizeof(STRING_CMDS) / sizeof(STRING_CMDS[0]))

/* The data types, with redis-benchmark 7.0's requests where it has the
 * test: its keys (mylist, myset, myhash, myzset), its 3-byte value "xxx"
 * (-d 3) and -r's random members and ZADD scores. They run in this
 * order, so LRANGE_100 reads the first 100 elements of the list LPUSH has
 * just filled, as redis-benchmark runs LPUSH before it, and LPOP then
 * empties it again. 7.0 has no XADD or PFADD test: XADD is written as
 * later redis-benchmarks write it, and PFADD adds SADD's members to one
 * HyperLogLog. */
static const benchCmd TYPE_CMDS[] = {
    { "LPUSH", { "LPUSH", "mylist", "xxx", NULL }, 1 },
    { "LRANGE_100", { "LRANGE", "mylist", "0", "99", NULL }, 10 },
    { "LPOP", { "LPOP", "mylist", NULL }, 1 },
    { "SADD", { "SADD", "myset", "element:%r", NULL }, 1 },
    { "HSET", { "HSET", "myhash", "element:%r", "xxx", NULL }, 1 },
    { "ZADD", { "ZADD", "myzset", "%r", "element:%r", NULL }, 1 },
    { "XADD", { "XADD", "mystream", "*", "myfield", "xxx", NULL }, 1 },
    { "PFADD", { "PFADD", "myhll", "element:%r", NULL }, 1 },
};
#define TYPE_NCMDS (int)(sizeof(TYPE_CMDS) / sizeof(TYPE_CMDS[0]))

/* The bytes one request may take, at most (EVAL's is the longest). */
#define REQUEST_MAX 128

/* xorshift64*: the random numbers of the "%r" arguments. */
static uint64_t nextRandom(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Writes argument template t, expanded for request i, into dst (of
 * REQUEST_MAX bytes); returns its length. */
static int expandArg(char *dst, const char *t, long i, long keys,
                     uint64_t *rng) {
    int n = 0;
    for (; *t && n < REQUEST_MAX - 24; t++) {
        if (t[0] != '%') { dst[n++] = *t; continue; }
        t++;
        if (*t == 'k')
            n += sprintf(dst + n, "key:%ld", i % keys);
        else if (*t == 'v')
            n += sprintf(dst + n, "value-%02ld", i % 100);
        else
            n += sprintf(dst + n, "%012llu",
                         (unsigned long long)(nextRandom(rng) %
                                              (uint64_t)keys));
    }
    return n;
}

/* Builds one pipelined batch of cmd's requests in RESP, for i in
 * [from, from + BATCH); returns its length. */
static size_t buildBatch(char *buf, const benchCmd *cmd, long from,
                         long keys, uint64_t *rng) {
    size_t n = 0;
    for (long i = from; i < from + BATCH; i++) {
        char arg[6][REQUEST_MAX];
        int len[6], argc = 0;
        for (; argc < 6 && cmd->args[argc]; argc++)
            len[argc] = expandArg(arg[argc], cmd->args[argc], i, keys, rng);
        size_t need = 8;    /* "*<argc>\r\n", then each "$<len>\r\n..\r\n" */
        for (int a = 0; a < argc; a++) need += (size_t)len[a] + 16;
        if (need > REQUEST_MAX) {   /* the table asks for a longer one */
            puts("{}");
            exit(1);
        }
        n += (size_t)sprintf(buf + n, "*%d\r\n", argc);
        for (int a = 0; a < argc; a++)
            n += (size_t)sprintf(buf + n, "$%d\r\n%.*s\r\n", len[a], len[a],
                                 arg[a]);
    }
    return n;
}

/* The command stream, built before timing so only the engine is measured:
 * the batches for requests [0, keys) in order, cycled. */
typedef struct stream { char **batch; size_t *len; long n; } stream;

static stream buildStream(const benchCmd *cmd, long keys) {
    stream st;
    uint64_t rng = 0x9E3779B97F4A7C15ULL;   /* the fixed seed */
    st.n = (keys + BATCH - 1) / BATCH;
    st.batch = malloc(sizeof(char *) * (size_t)st.n);
    st.len = malloc(sizeof(size_t) * (size_t)st.n);
    for (long b = 0; b < st.n; b++) {
        st.batch[b] = malloc(BATCH * REQUEST_MAX);
        st.len[b] = buildBatch(st.batch[b], cmd, b * BATCH, keys, &rng);
    }
    return st;
}

static void freeStream(stream *st) {
    for (long b = 0; b < st->n; b++) free(st->batch[b]);
    free(st->batch);
    free(st->len);
}

/* Runs total commands in pipelined batches; returns commands per second.
 * A batch whose first reply is an error stops the benchmark: it would
 * otherwise time the engine refusing the requests. */
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
        size_t got = gkConnRecv(w, conn, out, 1 << 20);
        if (got > 0 && out[0] == '-') {
            fprintf(stderr, "bench: %.*s\n", (int)strcspn(out, "\r"), out);
            puts("{}");
            exit(1);
        }
        while (got > 0) got = gkConnRecv(w, conn, out, 1 << 20);
    }
    return (double)total / (nowSeconds() - t0);
}

/* A fresh world with one server, a host connection to it and no trace. */
static gkWorld *benchWorld(int *conn) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    gkWorld *w;
    int srv;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, &srv);
    gkConnOpen(w, srv, conn);
    gkTraceEnable(w, 0);
    return w;
}

/* Runs the n commands' streams in turn on a fresh world, three times over,
 * and keeps each command's best rate in best[]. Best of three: the machine
 * is shared, and the fastest run is the one least disturbed by others. */
static void bestOfThree(const benchCmd *cmds, const stream *st, int n,
                        long total, double *best, char *out) {
    int conn;
    gkWorld *w = benchWorld(&conn);
    for (int c = 0; c < n; c++) best[c] = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int c = 0; c < n; c++) {
            double r = run(w, conn, &st[c], total / cmds[c].share, out);
            if (r > best[c]) best[c] = r;
        }
    gkWorldRelease(w);
}

/* Prints a command's request for a reader, "%r" as redis-benchmark's
 * __rand_int__. (The data types' arguments hold no character JSON would
 * have to escape.) */
static void printRequest(const benchCmd *cmd) {
    for (int a = 0; a < 6 && cmd->args[a]; a++) {
        if (a) putchar(' ');
        for (const char *t = cmd->args[a]; *t; t++)
            if (t[0] == '%' && t[1] == 'r') {
                fputs("__rand_int__", stdout);
                t++;
            } else {
                putchar(*t);
            }
    }
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
    stream strings[STRING_NCMDS];
    for (int c = 0; c < STRING_NCMDS; c++)
        strings[c] = buildStream(&STRING_CMDS[c], 100000);
    stream load_sets = buildStream(&STRING_CMDS[0], load);
    double rate[STRING_NCMDS];
    bestOfThree(STRING_CMDS, strings, STRING_NCMDS, total, rate, out);

    int conn;
    gkWorld *w = benchWorld(&conn);
    double t0 = nowSeconds();
    run(w, conn, &load_sets, load, out);
    double loadSecs = nowSeconds() - t0;
    size_t mem = gkWorldMemory(w);
    double snap_ms, restore_ms, heap_mb;
    snapshotCost(&snap_ms, &restore_ms, &heap_mb);
    gkWorldRelease(w);
    double lab = labSeconds();
    mcFigures mc = mcFill();
    /* The data types last, so the figures above (the wasm memory's size
     * among them) stay those of a heap they have not grown. */
    stream types[TYPE_NCMDS];
    for (int c = 0; c < TYPE_NCMDS; c++)
        types[c] = buildStream(&TYPE_CMDS[c], 100000);
    double typeRate[TYPE_NCMDS];
    bestOfThree(TYPE_CMDS, types, TYPE_NCMDS, total, typeRate, out);
    printf("{\"set_per_sec\":%.0f,\"get_per_sec\":%.0f,\"eval_per_sec\":%.0f,"
           "\"commands\":%ld,"
           "\"load_keys\":%ld,\"load_seconds\":%.3f,\"load_memory\":%zu,"
           "\"snapshot_ms\":%.1f,\"restore_ms\":%.1f,\"heap_mb\":%.0f,"
           "\"lab_seconds\":%.3f,\"mc\":{\"options\":\"%s\","
           "\"value_bytes\":%d,\"slice\":%d,\"sets_per_sec\":%.0f,"
           "\"sets\":%llu,\"stored\":%llu,\"evictions\":%llu,"
           "\"curr_items\":%llu,\"total_malloced\":%llu,"
           "\"world_memory\":%zu},\"types\":[", rate[0], rate[1], rate[2],
           total, load, loadSecs, mem,
           snap_ms, restore_ms, heap_mb, lab, MC_OPTIONS, MC_VALUE, MC_SLICE,
           mc.sets_per_sec, (unsigned long long)mc.sets,
           (unsigned long long)mc.stored, (unsigned long long)mc.evictions,
           (unsigned long long)mc.curr_items,
           (unsigned long long)mc.total_malloced, mc.world_memory);
    for (int c = 0; c < TYPE_NCMDS; c++) {
        printf("%s{\"name\":\"%s\",\"per_sec\":%.0f,\"requests\":%ld,"
               "\"request\":\"", c ? "," : "", TYPE_CMDS[c].name,
               typeRate[c], total / TYPE_CMDS[c].share);
        printRequest(&TYPE_CMDS[c]);
        fputs("\"}", stdout);
    }
    puts("]}");
    for (int c = 0; c < STRING_NCMDS; c++) freeStream(&strings[c]);
    for (int c = 0; c < TYPE_NCMDS; c++) freeStream(&types[c]);
    freeStream(&load_sets);
    free(out);
    return 0;
}
