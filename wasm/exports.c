/* exports.c -- the thin layer between glasskv.h and JavaScript.
 *
 * Most of glasskv.h is called from JavaScript as it is (ints and pointers
 * cross the boundary unchanged). This file covers the rest: calls that take
 * or return 64-bit integers, which this Emscripten (without BigInt
 * integration) would split into pairs of 32-bit halves, and calls that fill
 * structs, whose layout JavaScript should not have to know. 64-bit values
 * cross as doubles: virtual time in nanoseconds stays exact for 104 days of
 * simulated time, sequence numbers and bucket indexes far longer. Structs
 * are copied into flat arrays of doubles in the order documented on each
 * function, which wasm/engine.ts mirrors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <emscripten.h>
#include "glasskv.h"
#include "cliformat.h"
#include "exportkit.h"

#define GKW_TRACE_FIELDS 8       /* doubles per trace record */
#define GKW_READ_CHUNK 256       /* trace records converted per batch */

/* Creates a world from plain numbers. The seed crosses as two 32-bit halves
 * so every uint64 seed is reachable; unix_ms and heap_limit are whole
 * numbers carried in doubles; trace_capacity 0 keeps the default. Returns
 * the world, or NULL with the reason in *status. */
EMSCRIPTEN_KEEPALIVE
gkWorld *gkwWorldCreate(uint32_t seed_hi, uint32_t seed_lo, double unix_ms,
                        double heap_limit, uint32_t trace_capacity,
                        int *status) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = gkwSeed(seed_hi, seed_lo);
    cfg.unix_ms_at_zero = (int64_t)unix_ms;
    cfg.heap_limit = (size_t)gkwU64(heap_limit);
    if (trace_capacity) cfg.trace_capacity = trace_capacity;
    gkWorld *w = NULL;
    *status = gkWorldCreate(&w, &cfg, NULL, NULL);
    return *status == GK_OK ? w : NULL;
}

EMSCRIPTEN_KEEPALIVE
double gkwWorldNow(gkWorld *w) {
    return (double)gkWorldNow(w);
}

/* The virtual time of the next queued event, as a double; UINT64_MAX (as
 * 1.8e19) when the engine reports nothing queued that way. */
EMSCRIPTEN_KEEPALIVE
double gkwWorldNextEventTime(gkWorld *w) {
    return (double)gkWorldNextEventTime(w);
}

EMSCRIPTEN_KEEPALIVE
int gkwWorldRunUntil(gkWorld *w, double time_ns) {
    return gkWorldRunUntil(w, gkwU64(time_ns));
}

/* Runs the next event; *next_time receives what gkWorldStep reports. */
EMSCRIPTEN_KEEPALIVE
int gkwWorldStep(gkWorld *w, double *next_time) {
    uint64_t next = 0;
    int status = gkWorldStep(w, &next);
    *next_time = (double)next;
    return status;
}

EMSCRIPTEN_KEEPALIVE
double gkwTraceLastSeq(gkWorld *w) {
    return (double)gkTraceLastSeq(w);
}

/* Reads up to max records newer than after_seq into out, GKW_TRACE_FIELDS
 * doubles each: seq, time, type, node, a, b, c, d. Returns the number of
 * records written. A d above 2^53 loses its low bits. */
EMSCRIPTEN_KEEPALIVE
uint32_t gkwTraceRead(gkWorld *w, double after_seq, double *out,
                      uint32_t max) {
    gkTraceRecord chunk[GKW_READ_CHUNK];
    uint64_t after = gkwU64(after_seq);
    uint32_t total = 0;
    while (total < max) {
        size_t want = max - total;
        if (want > GKW_READ_CHUNK) want = GKW_READ_CHUNK;
        size_t got = gkTraceRead(w, after, chunk, want);
        for (size_t i = 0; i < got; i++) {
            double *o = out + (size_t)(total + i) * GKW_TRACE_FIELDS;
            o[0] = (double)chunk[i].seq;
            o[1] = (double)chunk[i].time;
            o[2] = chunk[i].type;
            o[3] = chunk[i].node;
            o[4] = chunk[i].a;
            o[5] = chunk[i].b;
            o[6] = chunk[i].c;
            /* INCR's acknowledged value is signed: a negative one must
             * not cross as 2^64 - n, which a double cannot tell apart. */
            o[7] = chunk[i].type == GK_TR_ACK && chunk[i].c == GK_ACK_INCR
                   ? (double)(int64_t)chunk[i].d : (double)chunk[i].d;
        }
        total += (uint32_t)got;
        if (got < want) break;
        after = chunk[got - 1].seq;
    }
    return total;
}

/* Fills out with rehashidx, size[0], size[1], used[0], used[1],
 * pauserehash, resize_policy, version. Returns gkDictGetInfo's status.
 * The version is a change counter: it stays exact in a double until 2^53
 * changes, far more than any session makes. */
EMSCRIPTEN_KEEPALIVE
int gkwDictGetInfo(gkWorld *w, int node, int db, int kind, double *out) {
    gkDictInfo info;
    int status = gkDictGetInfo(w, node, db, kind, &info);
    if (status != GK_OK) return status;
    out[0] = (double)info.rehashidx;
    out[1] = (double)info.size[0];
    out[2] = (double)info.size[1];
    out[3] = (double)info.used[0];
    out[4] = (double)info.used[1];
    out[5] = info.pauserehash;
    out[6] = info.resize_policy;
    out[7] = (double)info.version;
    return GK_OK;
}

/* Fills out with tracked, throughout, returned, missing, duplicates,
 * foreign, calls, active, db. Returns gkScanAuditGet's status. */
EMSCRIPTEN_KEEPALIVE
int gkwScanAuditGet(gkWorld *w, int node, double *out) {
    gkScanAudit a;
    int status = gkScanAuditGet(w, node, &a);
    if (status != GK_OK) return status;
    out[0] = (double)a.tracked;
    out[1] = (double)a.throughout;
    out[2] = (double)a.returned;
    out[3] = (double)a.missing;
    out[4] = (double)a.duplicates;
    out[5] = (double)a.foreign;
    out[6] = (double)a.calls;
    out[7] = a.active;
    out[8] = a.db;
    return GK_OK;
}

EMSCRIPTEN_KEEPALIVE
int gkwDictGetBucketKeys(gkWorld *w, int node, int db, int kind, int table,
                         double bucket, char *out, size_t cap,
                         size_t *written) {
    return gkDictGetBucketKeys(w, node, db, kind, table, gkwU64(bucket),
                               out, cap, written);
}

/* ---- Workloads, host statistics and labs. ---- */

#define GKW_SPEC_FIELDS 10       /* doubles in a workload spec */
#define GKW_STATS_FIELDS 13      /* doubles in workload statistics */

/* A workload spec from flat doubles, in this order: clients, pipeline,
 * requests, multi, keyspace, value_size, client_cmd_ns, interval_ns,
 * rtt_ns, bandwidth. A NaN keeps gkWorkloadSpecInit's default, so the
 * defaults live in one place; an empty command keeps GET. Fields the
 * engine keeps in 32 bits are clamped to them. */
static void _gkwSpec(const double *f, const char *command,
                     gkWorkloadSpec *s) {
    gkWorkloadSpecInit(s);
#define GKW_SET(i, field, conv) if (f[i] == f[i]) s->field = conv(f[i])
    GKW_SET(0, clients, gkwU32);
    GKW_SET(1, pipeline, gkwU32);
    GKW_SET(2, requests, gkwU64);
    GKW_SET(3, multi, gkwU32);
    GKW_SET(4, keyspace, gkwU32);
    GKW_SET(5, value_size, gkwU32);
    GKW_SET(6, client_cmd_ns, gkwU32);
    GKW_SET(7, interval_ns, gkwU64);
    GKW_SET(8, rtt_ns, gkwU64);
    GKW_SET(9, bandwidth, gkwU64);
#undef GKW_SET
    if (s->multi) s->multi = 1;
    if (command && command[0]) {
        strncpy(s->command, command, sizeof(s->command) - 1);
        s->command[sizeof(s->command) - 1] = '\0';
    }
}

/* Starts a workload (spec as _gkwSpec reads it) against node; its id goes
 * to *id. Returns gkWorkloadStart's status. */
EMSCRIPTEN_KEEPALIVE
int gkwWorkloadStart(gkWorld *w, int node, const double *spec,
                     const char *command, int *id) {
    gkWorkloadSpec s;
    _gkwSpec(spec, command, &s);
    return gkWorkloadStart(w, node, &s, id);
}

/* Fills out with sent, completed, batches, start_ns, end_ns, lat_count,
 * lat_sum_ns, lat_max_ns, lat_p50_ns, lat_p99_ns, reads, writes, done. */
EMSCRIPTEN_KEEPALIVE
int gkwWorkloadGetStats(gkWorld *w, int id, double *out) {
    gkWorkloadStats st;
    int status = gkWorkloadGetStats(w, id, &st);
    if (status != GK_OK) return status;
    const uint64_t v[GKW_STATS_FIELDS - 1] = {
        st.sent, st.completed, st.batches, st.start_ns, st.end_ns,
        st.lat_count, st.lat_sum_ns, st.lat_max_ns, st.lat_p50_ns,
        st.lat_p99_ns, st.reads, st.writes };
    gkwDoubles(v, GKW_STATS_FIELDS - 1, out);
    out[GKW_STATS_FIELDS - 1] = st.done;
    return GK_OK;
}

/* Copies up to max of the workload's most recent latency samples, oldest
 * first, into times and latencies (ns, as doubles). Returns how many, or
 * a negative status if the scratch arrays cannot be allocated. The engine
 * keeps 4,096 samples, so max beyond that changes nothing. */
EMSCRIPTEN_KEEPALIVE
int gkwWorkloadSamples(gkWorld *w, int id, double *times, double *latencies,
                       uint32_t max) {
    if (max == 0) return 0;
    uint64_t *t = malloc(sizeof(uint64_t) * max);
    uint64_t *l = malloc(sizeof(uint64_t) * max);
    if (!t || !l) {
        free(t);
        free(l);
        return GK_ENOMEM;
    }
    size_t n = gkWorkloadSamples(w, id, t, l, max);
    gkwDoubles(t, n, times);
    gkwDoubles(l, n, latencies);
    free(t);
    free(l);
    return (int)n;
}

/* Fills out with the host's reads, writes, polls and loop iterations. */
EMSCRIPTEN_KEEPALIVE
int gkwNodeGetStats(gkWorld *w, int node, double *out) {
    uint64_t v[4];
    int status = gkNodeGetStats(w, node, &v[0], &v[1], &v[2], &v[3]);
    if (status != GK_OK) return status;
    gkwDoubles(v, 4, out);
    return GK_OK;
}

EMSCRIPTEN_KEEPALIVE
int gkwConnSetLink(gkWorld *w, int conn, double rtt_ns, double bytes_per_sec) {
    return gkConnSetLink(w, conn, gkwU64(rtt_ns), gkwU64(bytes_per_sec));
}

/* gkLabRun with the seed in two 32-bit halves. */
EMSCRIPTEN_KEEPALIVE
long gkwLabRun(const char *name, uint32_t seed_hi, uint32_t seed_lo,
               char *out, size_t cap) {
    return gkLabRun(name, gkwSeed(seed_hi, seed_lo), out, cap);
}

/* gkWorkloadRunJson with the spec as gkwWorkloadStart takes it. */
EMSCRIPTEN_KEEPALIVE
long gkwWorkloadRunJson(const double *spec, const char *command,
                        uint32_t seed_hi, uint32_t seed_lo, char *out,
                        size_t cap) {
    gkWorkloadSpec s;
    _gkwSpec(spec, command, &s);
    return gkWorkloadRunJson(&s, gkwSeed(seed_hi, seed_lo), out, cap);
}

/* Writes the world's digest (gkWorldDigest) as 16 lowercase hex digits
 * and a NUL into out (17 bytes): a 64-bit number does not cross as a
 * double. */
EMSCRIPTEN_KEEPALIVE
void gkwWorldDigest(gkWorld *w, char *out) {
    uint64_t d = 0;
    gkWorldDigest(w, &d);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) out[i] = hex[(d >> (60 - 4 * i)) & 15];
    out[16] = '\0';
}

/* ---- The module's memory, for snapshots. ---- */

/* The end of the heap: everything the program has ever allocated (static
 * data, the stack and every malloc'd block, live or free) lies below it.
 * A copy of linear memory up to here, written back later, restores every
 * world in the module exactly; bytes above it were never handed out. */
EMSCRIPTEN_KEEPALIVE
size_t gkwHeapTop(void) {
    return (size_t)sbrk(0);
}

/* ---- The redis-cli side of the console. ---- */

#define GKW_CLI_BAD_REPEAT -3    /* "Invalid redis-cli repeat command
                                    option value." */
#define GKW_MAX_REPEAT 1000000   /* most copies of one command sent */

/* Splits one console line the way redis-cli's interactive loop does: a
 * leading count ("3 INCR x") is taken off as the repeat count, and the
 * command is checked against the list of commands whose replies redis-cli
 * prints raw. On success *out (from malloc, released with free) holds the
 * RESP request for one copy of the command, *raw is 1 or 0 and *repeat the
 * count (capped at GKW_MAX_REPEAT). Returns argc, 0 for a blank line,
 * CLI_INVALID for unbalanced quotes, GKW_CLI_BAD_REPEAT for a count that
 * is zero, negative or too large, or CLI_ENOMEM. */
EMSCRIPTEN_KEEPALIVE
int gkwCliLine(const char *line, size_t len, char **out, size_t *outlen,
               int *raw, int *repeat) {
    cliArgs args;
    long long count = 1;
    *out = NULL;
    *outlen = 0;
    *raw = 0;
    *repeat = 1;
    int rc = cliSplitLine(line, len, &args);
    if (rc <= 0) return rc;
    int skip = cliRepeatPrefix(args.argc, args.argv, &count);
    if (skip < 0) {
        cliArgsRelease(&args);
        return GKW_CLI_BAD_REPEAT;
    }
    int argc = args.argc - skip;
    char *const *argv = args.argv + skip;
    *raw = cliArgvWantsRaw(argc, argv);
    *repeat = count > GKW_MAX_REPEAT ? GKW_MAX_REPEAT : (int)count;
    rc = cliArgvToResp(argc, argv, args.lens + skip, out, outlen);
    cliArgsRelease(&args);
    return rc < 0 ? rc : argc;
}

/* Formats the first reply in buf as redis-cli prints it: raw (raw != 0)
 * for the commands gkwCliLine flagged, else as --no-raw does. Returns the
 * bytes consumed, 0 if incomplete, CLI_MALFORMED; *text is from malloc. */
EMSCRIPTEN_KEEPALIVE
long gkwCliFormatReply(const char *buf, size_t len, int raw, char **text,
                       size_t *textlen) {
    return raw ? cliFormatReplyRaw(buf, len, text, textlen)
               : cliFormatReply(buf, len, text, textlen);
}

/* Executes an unreachable instruction. It exists so that the worker's trap
 * handling (a WebAssembly RuntimeError becoming a message, then a restart
 * from the input log) can be exercised on demand. */
EMSCRIPTEN_KEEPALIVE
void gkwDebugTrap(void) {
    __builtin_trap();
}
