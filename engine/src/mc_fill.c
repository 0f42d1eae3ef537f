/* mc_fill.c -- a fill workload for memcached-style nodes (gkMemcachedFill):
 * many `set` commands whose value sizes follow a chosen distribution, sent
 * over a connection of the host's own as a pipelining client sends them,
 * and the replies counted.
 *
 * Set i of a workload is a pure function of (spec, i): its key is i modulo
 * the keyspace, written as a zero-padded decimal number of key_bytes
 * digits, and its value size is drawn from a hash of (seed, i) rather than
 * from a running random stream. Sending sets 0..999 at once or as 0..499
 * then 500..999 therefore sends the very same bytes, which lets the app
 * run a long workload in slices between frames.
 *
 * The distributions (all sizes in value bytes, before memcached adds its
 * 48-byte header, the key and the CAS):
 *   fixed    size_a every time.
 *   uniform  any size in [size_a, size_b], equally likely.
 *   normal   mean size_a, standard deviation size_b, rounded and cut at 0
 *            (and at GK_MC_FILL_MAX_VALUE). The normal deviate is the sum
 *            of 12 uniforms minus 6 (Irwin-Hall): plain arithmetic, so the
 *            native build and WebAssembly draw identical sizes, where
 *            log() and cos() may differ in the last bit between libms.
 *            It never strays past 6 deviations, which a fill does not miss.
 *   shift    the mean moves linearly from size_a at set 0 to size_b at set
 *            total, and each size is spread uniformly over +-12.5% of the
 *            mean: the workload whose slab classes calcify. */
#include <stdio.h>
#include <string.h>
#include "glasskv.h"
#include "world.h"
#include "mc_server.h"

#define FILL_BATCH_SETS 100         /* sets per pipelined write */
#define FILL_BATCH_BYTES (256u << 10) /* or fewer once this many bytes */
#define FILL_STAGE (64u << 10)      /* bytes staged before a send */

/* ---- Sizes. ---- */

/* A 64-bit hash of (seed, i, k): splitmix64's finaliser over a counter
 * that mixes the three. k numbers the draws one set needs. */
static uint64_t _hash(uint64_t seed, uint64_t i, uint64_t k) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (i * 8 + k + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1) from 53 bits of a hash. */
static double _unit(uint64_t h) {
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* Rounds x to the nearest size, cut to [0, GK_MC_FILL_MAX_VALUE]. */
static uint32_t _clampSize(double x) {
    if (!(x > 0)) return 0;
    if (x >= (double)GK_MC_FILL_MAX_VALUE) return GK_MC_FILL_MAX_VALUE;
    return (uint32_t)(x + 0.5);
}

/* A standard normal deviate for set i: 12 uniforms (two per hash) summed,
 * minus 6. */
static double _normal(uint64_t seed, uint64_t i) {
    double sum = 0;
    for (uint64_t k = 0; k < 6; k++) {
        uint64_t h = _hash(seed, i, k);
        sum += (double)(h >> 32) * (1.0 / 4294967296.0);
        sum += (double)(h & 0xffffffffULL) * (1.0 / 4294967296.0);
    }
    return sum - 6.0;
}

/* The value size of set i (glasskv.h). Any spec gives some size; the
 * checks live in gkMemcachedFill. */
uint32_t gkMcFillValueSize(const gkMcFillSpec *spec, uint64_t i) {
    uint32_t a = spec->size_a, b = spec->size_b;
    switch (spec->dist) {
    case GK_MC_DIST_UNIFORM:
        if (b <= a) return _clampSize(a);
        return _clampSize((double)a + (double)(_hash(spec->seed, i, 0) %
                                              ((uint64_t)b - a + 1)));
    case GK_MC_DIST_NORMAL:
        return _clampSize((double)a + (double)b * _normal(spec->seed, i));
    case GK_MC_DIST_SHIFT: {
        double t = spec->total && i < spec->total
                   ? (double)i / (double)spec->total : 1.0;
        double mean = (double)a + ((double)b - (double)a) * t;
        double u = _unit(_hash(spec->seed, i, 0)) * 2.0 - 1.0;
        return _clampSize(mean * (1.0 + u / 8.0));
    }
    default:
        return _clampSize(a);
    }
}

/* ---- Checks. ---- */

/* 10^d, or UINT64_MAX once it does not fit. */
static uint64_t _pow10(uint32_t d) {
    uint64_t p = 1;
    while (d--) {
        if (p > UINT64_MAX / 10) return UINT64_MAX;
        p *= 10;
    }
    return p;
}

/* GK_OK if the workload and the range can be sent, else GK_EINVAL with
 * the reason in the world's last error. Sums the range's value bytes,
 * which costs a hash or six per set: cheap next to sending them. */
static int _check(gkWorld *w, const gkMcFillSpec *sp, uint64_t first,
                  uint64_t count) {
    char msg[200];
    const char *why = NULL;
    if (sp->dist > GK_MC_DIST_SHIFT)
        why = "unknown value-size distribution (0 fixed, 1 uniform, "
              "2 normal, 3 shift)";
    else if (sp->key_bytes == 0)
        why = "key_bytes is 0: a key needs at least one byte";
    else if (sp->key_bytes > MC_KEY_MAX_LENGTH)
        why = "key_bytes is over memcached's key limit of 250 bytes";
    else if (sp->keyspace == 0)
        why = "keyspace is 0: the workload needs at least one key";
    else if (sp->keyspace > _pow10(sp->key_bytes))
        why = "keyspace too large for key_bytes: keys are decimal numbers "
              "of key_bytes digits";
    else if (sp->total == 0)
        why = "total is 0: the workload has no sets";
    else if (first > sp->total || count > sp->total - first)
        why = "the range runs past the workload's total sets";
    else if (count > GK_MC_FILL_MAX_COUNT)
        why = "count is over the 1048576 sets one fill may send: send the "
              "workload in slices";
    else if (sp->dist == GK_MC_DIST_UNIFORM && sp->size_a > sp->size_b)
        why = "uniform sizes need size_a <= size_b";
    else if (sp->size_a > GK_MC_FILL_MAX_VALUE ||
             (sp->dist != GK_MC_DIST_FIXED &&
              sp->size_b > GK_MC_FILL_MAX_VALUE))
        why = "value sizes are limited to 16777216 bytes";
    if (why) return worldFail(w, GK_EINVAL, why);
    uint64_t bytes = 0;
    for (uint64_t i = first; i < first + count; i++)
        bytes += gkMcFillValueSize(sp, i);
    if (bytes > GK_MC_FILL_MAX_BYTES) {
        snprintf(msg, sizeof(msg), "the range carries %llu value bytes, over "
                 "the 1073741824 one fill may send: send it in slices",
                 (unsigned long long)bytes);
        return worldFail(w, GK_EINVAL, msg);
    }
    return GK_OK;
}

/* ---- Sending and counting. ---- */

/* A fill in progress: the staging buffer and the reply parser. */
typedef struct fill {
    gkWorld *w;
    int conn;
    const gkMcFillSpec *sp;
    char *stage;            /* FILL_STAGE bytes not yet sent */
    size_t staged;
    char line[64];          /* the reply line being read (its start) */
    size_t linelen;
    uint64_t replies;       /* reply lines read */
    gkMcFillResult got;
} fill;

/* Sends the staged bytes. */
static int _flush(fill *f) {
    int st = f->staged ? gkConnSend(f->w, f->conn, f->stage, f->staged)
                       : GK_OK;
    f->staged = 0;
    return st;
}

/* Stages len bytes, sending whenever the stage fills. */
static int _put(fill *f, const char *buf, size_t len) {
    while (len) {
        size_t n = FILL_STAGE - f->staged;
        if (n > len) n = len;
        memcpy(f->stage + f->staged, buf, n);
        f->staged += n;
        buf += n;
        len -= n;
        if (f->staged == FILL_STAGE && _flush(f) != GK_OK) return GK_ERR;
    }
    return GK_OK;
}

/* Stages `set <key> 0 0 <n>\r\n<n value bytes>\r\n` for set i and returns
 * the bytes it takes, or 0 if the connection failed. The value's bytes
 * spell the key's last digit over and over: any byte would do. */
static uint64_t _stageSet(fill *f, uint64_t i) {
    char head[300], fillbuf[512];
    uint32_t kb = f->sp->key_bytes, n = gkMcFillValueSize(f->sp, i);
    uint64_t key = i % f->sp->keyspace;
    memcpy(head, "set ", 4);
    for (uint32_t d = kb; d > 0; d--, key /= 10)
        head[4 + d - 1] = (char)('0' + key % 10);
    int hl = 4 + (int)kb;
    hl += snprintf(head + hl, sizeof(head) - (size_t)hl, " 0 0 %u\r\n", n);
    if (_put(f, head, (size_t)hl) != GK_OK) return 0;
    memset(fillbuf, head[4 + kb - 1], sizeof(fillbuf));
    for (uint32_t left = n; left > 0;) {
        uint32_t k = left < sizeof(fillbuf) ? left : sizeof(fillbuf);
        if (_put(f, fillbuf, k) != GK_OK) return 0;
        left -= k;
    }
    if (_put(f, "\r\n", 2) != GK_OK) return 0;
    f->got.sent++;
    f->got.value_bytes += n;
    return (uint64_t)hl + n + 2;
}

/* Counts one whole reply line (its first 63 bytes are enough). A large
 * item whose chunks run out partway gets memcached's other out-of-memory
 * reply, and counts as out of memory too. */
static void _reply(fill *f) {
    f->line[f->linelen] = '\0';
    f->replies++;
    if (!strcmp(f->line, "STORED\r"))
        f->got.stored++;
    else if (!strcmp(f->line, "SERVER_ERROR out of memory storing object\r")
             || !strcmp(f->line, "SERVER_ERROR Out of memory during read\r"))
        f->got.out_of_memory++;
    else if (!strcmp(f->line, "SERVER_ERROR object too large for cache\r"))
        f->got.too_large++;
}

/* Reads every reply byte that arrived and counts the lines. */
static void _readReplies(fill *f) {
    char buf[4096];
    size_t n;
    while ((n = gkConnRecv(f->w, f->conn, buf, sizeof(buf))) > 0) {
        for (size_t k = 0; k < n; k++) {
            if (buf[k] == '\n') {
                _reply(f);
                f->linelen = 0;
            } else if (f->linelen < sizeof(f->line) - 1) {
                f->line[f->linelen++] = buf[k];
            }
        }
    }
}

/* Sends one pipelined batch starting at set i, runs the world until the
 * node has answered it, and counts the answers. *next gets the first set
 * of the next batch. */
static int _batch(fill *f, uint64_t i, uint64_t end, uint64_t *next) {
    uint64_t bytes = 0, sets = 0, want = f->replies;
    while (i < end && sets < FILL_BATCH_SETS && bytes < FILL_BATCH_BYTES) {
        uint64_t b = _stageSet(f, i++);
        if (b == 0) return GK_ECLOSED;
        bytes += b;
        sets++;
    }
    if (_flush(f) != GK_OK) return GK_ECLOSED;
    want += sets;
    gkWorldRunUntilIdle(f->w);
    _readReplies(f);
    *next = i;
    return f->replies == want ? GK_OK : GK_ECLOSED;
}

/* Closes the fill's connection and runs the world until the node has
 * seen the end of the stream and freed its side: its next iteration,
 * which may come a few microseconds after the last reply arrived, when
 * the node finishes the work of the iteration that sent it. */
static void _close(gkWorld *w, int node, int conn) {
    gkConnClose(w, conn);
    gkWorldRunUntil(w, worldNodeWakeAt(w, node));
}

/* Items evicted so far, all classes of the node. */
static uint64_t _evictions(gkWorld *w, int node) {
    gkMcTotals t;
    if (gkMemcachedClasses(w, node, NULL, 0, NULL, &t) != GK_OK) return 0;
    return t.evictions;
}

/* gkMemcachedFillCheck (glasskv.h). */
int gkMemcachedFillCheck(gkWorld *w, const gkMcFillSpec *spec,
                         uint64_t first, uint64_t count) {
    if (!spec) return worldFail(w, GK_EINVAL, "no fill spec");
    return _check(w, spec, first, count);
}

/* Sends sets first .. first+count-1 of the workload `spec` to memcached
 * node `node` and adds what the replies said to *out (glasskv.h). The
 * sets go in pipelined batches of up to 100 sets or 256 KB, each sent at
 * once and then answered before the next: the world runs in between, so
 * virtual time advances as the node works. The connection is closed
 * before returning.
 *
 * out_of_memory also counts "SERVER_ERROR Out of memory during read",
 * memcached's reply when a chunked item cannot get all its chunks, so
 * stored + out_of_memory + too_large = sent unless the node said
 * something else.
 *
 * Work is bounded: GK_EINVAL if count exceeds GK_MC_FILL_MAX_COUNT sets,
 * the range's values exceed GK_MC_FILL_MAX_BYTES or one value's size
 * bound exceeds GK_MC_FILL_MAX_VALUE, and for a bad spec (the reason is in
 * gkWorldLastError). GK_ENOTFOUND if node is not a memcached-style node,
 * GK_ENOMEM if the staging buffer cannot be had, GK_ECLOSED if the node
 * closed the connection or left a set unanswered: what was counted up to
 * then is still added to *out. */
int gkMemcachedFill(gkWorld *w, int node, const gkMcFillSpec *spec,
                    uint64_t first, uint64_t count, gkMcFillResult *out) {
    if (!spec || !out) return worldFail(w, GK_EINVAL, "no fill spec");
    if (!mcServerOf(w, node))
        return worldFail(w, GK_ENOTFOUND, "no such memcached node");
    int st = _check(w, spec, first, count);
    if (st != GK_OK || count == 0) return st;
    fill f;
    gkMem stage;
    memset(&f, 0, sizeof(f));
    f.w = w;
    f.sp = spec;
    /* The host's buffer: neither the node's memory nor the world's. */
    worldScratchMem(w, &stage);
    f.stage = memTryAlloc(&stage, FILL_STAGE);
    if (!f.stage) return worldFail(w, GK_ENOMEM, "out of memory");
    st = gkConnOpen(w, node, &f.conn);
    if (st != GK_OK) {
        memFree(&stage, f.stage);
        return st;
    }
    uint64_t evicted = _evictions(w, node);
    for (uint64_t i = first; i < first + count && st == GK_OK;)
        st = _batch(&f, i, first + count, &i);
    memFree(&stage, f.stage);
    _close(w, node, f.conn);
    f.got.evictions = _evictions(w, node) - evicted;
    out->sent += f.got.sent;
    out->stored += f.got.stored;
    out->out_of_memory += f.got.out_of_memory;
    out->too_large += f.got.too_large;
    out->evictions += f.got.evictions;
    out->value_bytes += f.got.value_bytes;
    if (st != GK_OK)
        return worldFail(w, GK_ECLOSED, "the node closed the connection or "
                         "left a set unanswered");
    return GK_OK;
}
