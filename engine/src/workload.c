/* workload.c -- client programs that load a server: a redis-benchmark-like
 * benchmark, a redis-py-like pipeline (with or without MULTI/EXEC around
 * each batch), a Lettuce-like client that flushes after every command (its
 * default) or every B commands, and a monitor that sends INFO every few
 * seconds and records how long it waits.
 *
 * Each workload is a host of its own in the world: one single-threaded
 * program with an event loop over its connections, like redis-benchmark.
 * It writes a batch of commands, waits for all the replies, writes the
 * next one; its system calls and its per-command work cost it virtual CPU,
 * and its bytes cross the same simulated network as everyone else's.
 *
 * The batch is the whole point: with a batch of 1, every command pays a
 * read and a write on both sides and a round trip on the wire; with a
 * batch of 100, those costs are shared by 100 commands. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "world.h"
#include "labs.h"

#define WL_HIST_BUCKETS 256     /* latency histogram: 4 buckets per octave */
#define WL_SAMPLES 4096         /* recent (time, latency) samples kept */

typedef struct wlConn {
    int fd;
    uint64_t write_start;       /* a write of the batch began then, if */
    int writing;                /* bytes of it are still to go */
    uint64_t written_at;        /* the batch's last byte left then */
    sds rbuf;                   /* bytes received, not yet parsed */
    uint32_t expect;            /* replies still due for the batch */
    uint32_t batch_cmds;        /* commands in the batch in flight */
    uint64_t batch_sent;        /* when the batch was written */
    sds wbuf;                   /* batch bytes not written yet */
    size_t wpos;
    uint32_t *keys;             /* key numbers of the batch's writes */
    uint32_t keys_cap;
    uint32_t replies;           /* replies of the batch read so far */
    uint32_t errors;            /* how many of them were errors */
    uint64_t error_code;        /* the first one's (errorCodeNumber) */
} wlConn;

typedef struct workload {
    gkWorld *w;
    int node, server;
    gkWorkloadSpec spec;
    gkWorkloadStats st;
    aeEventLoop *el;
    uint64_t cpu;
    gkRng rng;
    wlConn *conns;
    uint64_t hist[WL_HIST_BUCKETS];
    uint64_t sample_time[WL_SAMPLES], sample_lat[WL_SAMPLES];
    uint64_t nsamples;
    int stopped;
    int ack;                    /* GK_ACK_* if the command writes, or -1 */
    int kind;                   /* WL_* below: how commands are built */
    uint32_t next_key;          /* the next key of a sequential spec */
} workload;

/* How a workload builds its commands (gkWorkloadSpec's command). */
#define WL_KEY 0                /* name key (GET, INCR, ZCARD, ...) */
#define WL_SET 1                /* SET key value */
#define WL_NOARG 2              /* PING, INFO, SCRIPT KILL: its words */
#define WL_ZADD 3               /* ZADD key 0 DATA */
#define WL_EVAL 4               /* EVAL <sum of ZCARD> N key0 .. keyN-1 */
#define WL_MONITOR 5            /* MONITOR, then every line it is sent,
                                   each printed as redis-cli does (its
                                   client_cmd_ns) */
#define WL_MSET 6               /* MSET of WL_MSET_KEYS keys, values of
                                   value_size bytes (redis-benchmark's
                                   MSET: ten keys) */
#define WL_MSET_KEYS 10

/* The script of seed 004's EVAL, as its Ruby source wrote it (102 bytes):
 * the sum of ZCARD of every key it is given, one redis.call per key. */
static const char wlSumScript[] =
    "\nlocal sum = 0\nfor index, key in pairs(KEYS) do\n"
    "  sum = sum + redis.call('zcard', key);\nend\nreturn sum";

static int _wlKind(const char *cmd) {
    if (!strcmp(cmd, "SET")) return WL_SET;
    if (!strcmp(cmd, "PING") || !strcmp(cmd, "INFO") ||
        !strcmp(cmd, "SCRIPT KILL"))
        return WL_NOARG;
    if (!strcasecmp(cmd, "ZADD")) return WL_ZADD;
    if (!strcasecmp(cmd, "EVAL")) return WL_EVAL;
    if (!strcmp(cmd, "MONITOR")) return WL_MONITOR;
    if (!strcmp(cmd, "MSET")) return WL_MSET;
    return WL_KEY;
}

void gkWorkloadSpecInit(gkWorkloadSpec *spec) {
    memset(spec, 0, sizeof(*spec));
    spec->clients = 50;
    spec->requests = 100000;
    spec->pipeline = 1;
    spec->keyspace = 10000;
    spec->value_size = 3;
    strcpy(spec->command, "GET");
    spec->client_cmd_ns = 200;
}

/* ---- Replies. ---- */

/* Length of the complete RESP2 reply at p, 0 if it is incomplete, -1 if it
 * is not RESP. */
long respLen(const char *p, size_t len) {
    const char *nl = len ? memchr(p, '\n', len) : NULL;
    if (!nl) return 0;
    size_t hdr = (size_t)(nl - p) + 1;
    long long n = 0;
    if (p[0] == '$' || p[0] == '*') {
        if (!string2ll(p + 1, hdr - 3, &n)) return -1;
    }
    switch (p[0]) {
    case '+': case '-': case ':': return (long)hdr;
    case '$':
        if (n < 0) return (long)hdr;
        return hdr + (size_t)n + 2 > len ? 0 : (long)(hdr + (size_t)n + 2);
    case '*': {
        size_t off = hdr;
        for (long long i = 0; i < n; i++) {
            long r = respLen(p + off, len - off);
            if (r <= 0) return r;
            off += (size_t)r;
        }
        return (long)off;
    }
    default: return -1;
    }
}

/* ---- Latency accounting. ---- */

/* Bucket b holds latencies whose top three bits are 1ff: b = 4 * log2(ns)
 * + ff, so each octave is split in four (a 19% resolution). */
static int _histBucket(uint64_t ns) {
    if (ns < 8) return (int)ns;
    int k = 63;
    while (!(ns >> k)) k--;
    return 4 * k + (int)((ns >> (k - 2)) & 3);
}

static uint64_t _histValue(int b) {
    if (b < 8) return (uint64_t)b;
    return (uint64_t)(4 + b % 4) << (b / 4 - 2);
}

/* The latency below which a fraction p of the batches completed: the
 * middle of the histogram bucket it falls in, but never more than the
 * largest latency seen, which is exact (a bucket's middle can lie past
 * every latency the bucket holds). */
static uint64_t _percentile(const workload *wl, double p) {
    uint64_t want = (uint64_t)((double)wl->st.lat_count * p), seen = 0;
    for (int b = 0; b < WL_HIST_BUCKETS; b++) {
        seen += wl->hist[b];
        if (seen <= want) continue;
        uint64_t mid = (_histValue(b) + _histValue(b + 1)) / 2;
        return mid < wl->st.lat_max_ns ? mid : wl->st.lat_max_ns;
    }
    return wl->st.lat_max_ns;
}

static void _recordLatency(workload *wl, uint64_t now, uint64_t lat) {
    wl->st.lat_count++;
    wl->st.lat_sum_ns += lat;
    if (lat > wl->st.lat_max_ns) wl->st.lat_max_ns = lat;
    wl->hist[_histBucket(lat)]++;
    uint64_t i = wl->nsamples++ % WL_SAMPLES;
    wl->sample_time[i] = now;
    wl->sample_lat[i] = lat;
}

/* ---- Sending batches. ---- */

static uint64_t _now(workload *wl) {
    return wl->el->backend.now(wl->el->backend.ctx);
}

/* The name of key n: the spec's prefix ("key:" by default) and n. */
static int _keyName(const workload *wl, uint32_t n, char *buf, size_t cap) {
    const char *prefix = wl->spec.key_prefix[0] ? wl->spec.key_prefix
                                                : "key:";
    return snprintf(buf, cap, "%s%u", prefix, n);
}

/* The key the next command names: the next one in order for a
 * sequential spec, else one at random. */
static uint32_t _nextKey(workload *wl) {
    uint32_t space = wl->spec.keyspace ? wl->spec.keyspace : 1;
    if (!wl->spec.sequential) return (uint32_t)rngBelow(&wl->rng, space);
    uint32_t n = wl->next_key;
    wl->next_key = n + 1 >= space ? 0 : n + 1;
    return n;
}

/* Appends a bulk string of len bytes. */
static sds _appendBulk(gkMem *m, sds b, const char *p, size_t len) {
    char hdr[32];
    int n = snprintf(hdr, sizeof(hdr), "$%zu\r\n", len);
    b = sdscatlen(m, b, hdr, (size_t)n);
    b = sdscatlen(m, b, p, len);
    return sdscatlen(m, b, "\r\n", 2);
}

/* Appends a bulk string of n bytes 'x': a SET's or MSET's value. */
static sds _appendValue(gkMem *m, sds b, size_t n) {
    char hdr[32];
    int h = snprintf(hdr, sizeof(hdr), "$%zu\r\n", n);
    b = sdscatlen(m, b, hdr, (size_t)h);
    size_t len = sdslen(b);
    b = sdsMakeRoomFor(m, b, n);
    memset(b + len, 'x', n);
    sdsIncrLen(b, n);
    return sdscatlen(m, b, "\r\n", 2);
}

/* Appends seed 004's EVAL: the script, then every key of the keyspace as
 * its keys, in order. Returns its argument count. */
static uint64_t _appendEval(workload *wl, sds b0, sds *out) {
    gkMem *m = &wl->w->mem;
    uint32_t nkeys = wl->spec.keyspace;
    char buf[48];
    int n = snprintf(buf, sizeof(buf), "*%llu\r\n",
                     (unsigned long long)nkeys + 3);
    sds b = sdscatlen(m, b0, buf, (size_t)n);
    b = _appendBulk(m, b, wl->spec.command, strlen(wl->spec.command));
    b = _appendBulk(m, b, wlSumScript, sizeof(wlSumScript) - 1);
    n = snprintf(buf, sizeof(buf), "%u", nkeys);
    b = _appendBulk(m, b, buf, (size_t)n);
    for (uint32_t i = 0; i < nkeys; i++) {
        n = _keyName(wl, i, buf, sizeof(buf));
        b = _appendBulk(m, b, buf, (size_t)n);
    }
    *out = b;
    return (uint64_t)nkeys + 3;
}

/* Appends the next command to b (*keynum: the key it names) and returns
 * its argument count. */
static uint64_t _appendCommand(workload *wl, sds *b, uint32_t *keynum) {
    gkMem *m = &wl->w->mem;
    const char *cmd = wl->spec.command;
    size_t cl = strlen(cmd);
    char key[48];
    if (wl->kind == WL_EVAL) {
        *keynum = 0;
        return _appendEval(wl, *b, b);
    }
    if (wl->kind == WL_NOARG || wl->kind == WL_MONITOR) {
        *keynum = 0;
        int argc = 1;
        for (const char *p = cmd; *p; p++) argc += *p == ' ';
        *b = sdscatprintf(m, *b, "*%d\r\n", argc);
        for (const char *p = cmd;;) {
            const char *sp = strchr(p, ' ');
            *b = _appendBulk(m, *b, p, sp ? (size_t)(sp - p) : strlen(p));
            if (!sp) break;
            p = sp + 1;
        }
        return argc;
    }
    if (wl->kind == WL_MSET) {
        *b = sdscatprintf(m, *b, "*%d\r\n$4\r\nMSET\r\n",
                          1 + 2 * WL_MSET_KEYS);
        for (int i = 0; i < WL_MSET_KEYS; i++) {
            uint32_t k = _nextKey(wl);
            if (!i) *keynum = k;
            int kl = _keyName(wl, k, key, sizeof(key));
            *b = _appendBulk(m, *b, key, (size_t)kl);
            *b = _appendValue(m, *b, wl->spec.value_size);
        }
        return 1 + 2 * WL_MSET_KEYS;
    }
    *keynum = _nextKey(wl);
    int kl = _keyName(wl, *keynum, key, sizeof(key));
    if (wl->kind == WL_SET) {
        *b = sdscatlen(m, *b, "*3\r\n$3\r\nSET\r\n", 13);
        *b = _appendBulk(m, *b, key, (size_t)kl);
        *b = _appendValue(m, *b, wl->spec.value_size);
        return 3;
    }
    int zadd = wl->kind == WL_ZADD;
    *b = sdscatlen(m, *b, zadd ? "*4\r\n" : "*2\r\n", 4);
    *b = _appendBulk(m, *b, cmd, cl);
    *b = _appendBulk(m, *b, key, (size_t)kl);
    if (!zadd) return 2;
    *b = sdscatlen(m, *b, "$1\r\n0\r\n$4\r\nDATA\r\n", 17);
    return 4;
}

static void _connWrite(workload *wl, wlConn *wc);

static void _writable(aeEventLoop *el, int fd, void *privdata, int mask) {
    workload *wl = el->privdata;
    _connWrite(wl, privdata);
}

/* Writes what is left of the batch; waits for the socket when full. */
static void _connWrite(workload *wl, wlConn *wc) {
    aeBackend *be = &wl->el->backend;
    while (wc->wpos < sdslen(wc->wbuf)) {
        long n = be->write(be->ctx, wc->fd, wc->wbuf + wc->wpos,
                           sdslen(wc->wbuf) - wc->wpos);
        if (n <= 0) break;
        wc->wpos += (size_t)n;
    }
    if (wc->wpos < sdslen(wc->wbuf)) {
        aeCreateFileEvent(wl->el, wc->fd, AE_WRITABLE, _writable, wc);
    } else {
        aeDeleteFileEvent(wl->el, wc->fd, AE_WRITABLE);
        sdsclear(wc->wbuf);
        wc->wpos = 0;
        wc->written_at = _now(wl);
        wl->st.write_ns += wc->written_at - wc->write_start;
        wc->writing = 0;
    }
}

/* Appends commands first .. first+n-1 of the batch of k on wc to its
 * write buffer (MULTI before the first, EXEC after the last when the spec
 * asks for a transaction), charges the client the CPU of building them,
 * and writes them: one write(2), unless earlier bytes still wait for room
 * in the socket, in which case they go out together when it has some. */
static void _flushCommands(workload *wl, wlConn *wc, uint32_t first,
                           uint32_t n, uint32_t k) {
    gkWorkloadSpec *sp = &wl->spec;
    gkMem *m = &wl->w->mem;
    size_t before = sdslen(wc->wbuf);
    uint64_t t0 = _now(wl), args = 0;
    if (sp->multi && first == 0)
        wc->wbuf = sdscat(m, wc->wbuf, "*1\r\n$5\r\nMULTI\r\n");
    for (uint32_t i = first; i < first + n; i++) {
        uint32_t key;
        args += _appendCommand(wl, &wc->wbuf, &key);
        if (wl->ack >= 0) wc->keys[i] = key;
    }
    if (sp->multi && first + n == k)
        wc->wbuf = sdscat(m, wc->wbuf, "*1\r\n$4\r\nEXEC\r\n");
    wl->cpu += (uint64_t)n * sp->client_cmd_ns / 2 + args * sp->client_arg_ns;
    uint64_t t1 = _now(wl);
    wl->st.build_ns += t1 - t0;
    if (first == 0) wc->batch_sent = t0;
    TRACE(&wl->w->trace, GK_TR_CLIENT, (uint16_t)wl->node, GK_CL_SEND,
          (uint32_t)wc->fd, n, sdslen(wc->wbuf) - before);
    if (!wc->writing) {
        wc->writing = 1;
        wc->write_start = t1;
    }
    if (!(aeGetFileEvents(wl->el, wc->fd) & AE_WRITABLE)) _connWrite(wl, wc);
}

/* Starts the next batch on wc, if commands remain. Without a flush size
 * the batch leaves in one write (redis-benchmark's -P, a redis-py
 * pipeline, Lettuce with auto-flush off and one flushCommands per batch).
 * With one, it leaves in writes of `flush` commands, back to back, none
 * waiting for a reply: Lettuce's default writes and flushes every command
 * as it is issued. Either way the client then waits for the batch's
 * replies. What a flush costs is the write(2) itself, and on the wire
 * one packet per write: the server, finding a command or two in each
 * read, pays its epoll_wait, read and write for each of them, where a
 * batch of 1,000 shares them. */
static void _sendBatch(workload *wl, wlConn *wc) {
    gkWorkloadSpec *sp = &wl->spec;
    if (wl->stopped || wc->expect) return;
    uint64_t left = sp->requests ? sp->requests - wl->st.sent : UINT64_MAX;
    if (left == 0) return;
    uint32_t k = sp->pipeline ? sp->pipeline : 1;
    if (k > left) k = (uint32_t)left;
    uint32_t f = sp->flush && sp->flush < k ? sp->flush : k;
    gkMem *m = &wl->w->mem;
    if (wl->ack >= 0 && wc->keys_cap < k) {
        wc->keys = memRealloc(m, wc->keys, sizeof(uint32_t) * k);
        wc->keys_cap = k;
    }
    wc->replies = 0;
    wc->errors = 0;
    wc->expect = sp->multi ? k + 2 : k;
    wc->batch_cmds = k;
    wl->st.sent += k;
    wl->st.batches++;
    for (uint32_t i = 0; i < k; i += f) {
        _flushCommands(wl, wc, i, k - i < f ? k - i : f, k);
        if (!wl->st.start_ns) wl->st.start_ns = wc->batch_sent;
    }
}

static void _batchDone(workload *wl, wlConn *wc) {
    uint64_t now = _now(wl), lat = now - wc->batch_sent;
    wl->st.wait_ns += now - wc->written_at;
    wl->st.completed += wc->batch_cmds;
    wl->st.end_ns = now;
    _recordLatency(wl, now, lat);
    TRACE(&wl->w->trace, GK_TR_CLIENT, (uint16_t)wl->node, GK_CL_DONE,
          (uint32_t)wc->fd, wc->batch_cmds, lat);
    if (wc->errors)
        TRACE(&wl->w->trace, GK_TR_CLIENT, (uint16_t)wl->node, GK_CL_ERRORS,
              (uint32_t)wc->fd, wc->errors, wc->error_code);
    if (wl->spec.requests && wl->st.completed >= wl->spec.requests)
        wl->st.done = 1;
    if (!wl->spec.interval_ns) _sendBatch(wl, wc);
}

/* ---- Acknowledged writes. ----
 * A write counts as acknowledged when its reply says it was done: +OK for
 * SET, an integer for INCR. Each one becomes a GK_TR_ACK record, so that
 * a crash's recovery can be compared with what the clients were told,
 * write by write, as the console's writes are. */

static void _ackOne(workload *wl, wlConn *wc, uint32_t key, const char *p,
                    long len) {
    long long v = 0;
    if (wl->ack == GK_ACK_SET) {
        if (len != 5 || memcmp(p, "+OK\r\n", 5)) return;
        v = wl->spec.value_size;
    } else if (len < 4 || p[0] != ':' ||
               !string2ll(p + 1, (size_t)len - 3, &v)) {
        return;
    }
    TRACE(&wl->w->trace, GK_TR_ACK, (uint16_t)wl->node, key,
          (uint32_t)wc->fd, (uint32_t)wl->ack, (uint64_t)v);
}

/* One complete reply of the batch in flight. Without MULTI reply i answers
 * command i; with it, MULTI's +OK and the +QUEUED replies acknowledge
 * nothing and EXEC's array holds the commands' replies in order (an
 * -EXECABORT holds none). */
static void _ackReply(workload *wl, wlConn *wc, const char *p, long len) {
    uint32_t i = wc->replies++;
    if (wl->ack < 0) return;
    if (!wl->spec.multi) {
        if (i < wc->batch_cmds) _ackOne(wl, wc, wc->keys[i], p, len);
        return;
    }
    if (i != wc->batch_cmds + 1 || p[0] != '*') return;
    const char *nl = memchr(p, '\n', (size_t)len);
    long long n = 0;
    if (!string2ll(p + 1, (size_t)(nl - p) - 2, &n)) return;
    long off = nl - p + 1;
    for (long long j = 0; j < n && j < wc->batch_cmds; j++) {
        long r = respLen(p + off, (size_t)(len - off));
        if (r <= 0) return;
        _ackOne(wl, wc, wc->keys[j], p + off, r);
        off += r;
    }
}

/* Adds an integer reply's value to the workload's sum (what a client
 * adding up ZCARD's replies, or taking EVAL's sum, ends with). */
static void _sumReply(workload *wl, const char *p, long len) {
    long long v;
    if (len >= 4 && p[0] == ':' && string2ll(p + 1, (size_t)len - 3, &v))
        wl->st.int_sum += v;
}

/* Reads replies and counts them against the batch in flight. */
static void _readable(aeEventLoop *el, int fd, void *privdata, int mask) {
    workload *wl = el->privdata;
    wlConn *wc = privdata;
    gkMem *m = &wl->w->mem;
    char buf[16 * 1024];
    long n = el->backend.read(el->backend.ctx, fd, buf, sizeof(buf));
    if (n <= 0) {
        if (n == 0) { aeDeleteFileEvent(el, fd, AE_READABLE); wc->expect = 0; }
        return;
    }
    wc->rbuf = sdscatlen(m, wc->rbuf, buf, (size_t)n);
    size_t off = 0;
    long r = 0;
    while (wc->expect && (r = respLen(wc->rbuf + off,
                                       sdslen(wc->rbuf) - off)) > 0) {
        _ackReply(wl, wc, wc->rbuf + off, r);
        _sumReply(wl, wc->rbuf + off, r);
        if (wc->rbuf[off] == '-') {
            if (!wc->errors++)
                wc->error_code = errorCodeNumber(wc->rbuf + off, (size_t)r);
            wl->st.errors++;
        }
        off += (size_t)r;
        wl->cpu += wl->spec.client_cmd_ns / 2;
        if (--wc->expect == 0) _batchDone(wl, wc);
    }
    /* A monitor's connection, once MONITOR was answered: a line for each
     * command the server runs, read and printed. */
    while (wl->kind == WL_MONITOR && !wc->expect &&
           (r = respLen(wc->rbuf + off, sdslen(wc->rbuf) - off)) > 0) {
        off += (size_t)r;
        wl->cpu += wl->spec.client_cmd_ns;
    }
    sdsrange(wc->rbuf, (long)off, -1);
    if (off == 0 && r < 0) sdsclear(wc->rbuf);
}

/* The start timer (interval 0) or the monitor's timer: one batch on each
 * idle connection. */
static long long _tick(aeEventLoop *el, long long id, void *clientData) {
    workload *wl = clientData;
    for (uint32_t i = 0; i < wl->spec.clients; i++)
        _sendBatch(wl, &wl->conns[i]);
    if (!wl->spec.interval_ns || wl->stopped) return AE_NOMORE;
    long long ms = (long long)(wl->spec.interval_ns / 1000000);
    return ms > 0 ? ms : 1;
}

/* ---- The node type. ---- */

static int _wlAccept(void *impl, int fd) { return C_ERR; }

static void _wlRelease(void *impl) {
    workload *wl = impl;
    gkMem *m = &wl->w->mem;
    for (uint32_t i = 0; i < wl->spec.clients; i++) {
        sdsfree(m, wl->conns[i].rbuf);
        sdsfree(m, wl->conns[i].wbuf);
        memFree(m, wl->conns[i].keys);
    }
    memFree(m, wl->conns);
    aeDeleteEventLoop(wl->el);
    memFree(m, wl);
}

static uint64_t *_wlCpu(void *impl) { return &((workload *)impl)->cpu; }

static const gkNodeType workloadNodeType = { "workload", _wlAccept,
                                             _wlRelease, _wlCpu };

static workload *_getWorkload(gkWorld *w, int id) {
    if (id < 0 || id >= w->nnodes) return NULL;
    if (w->nodes[id].type != &workloadNodeType) return NULL;
    return w->nodes[id].impl;
}

static int _wlOpenConns(workload *wl) {
    gkWorld *w = wl->w;
    for (uint32_t i = 0; i < wl->spec.clients; i++) {
        wlConn *wc = &wl->conns[i];
        wc->rbuf = sdsempty(&w->mem);
        wc->wbuf = sdsempty(&w->mem);
        int st = worldConnect(w, wl->node, wl->server, &wc->fd);
        if (st != GK_OK) return st;
        gkConnSetLink(w, wc->fd, wl->spec.rtt_ns, wl->spec.bandwidth);
        if (wc->fd >= wl->el->setsize)
            aeResizeSetSize(wl->el, wc->fd * 2 + 16);
        aeCreateFileEvent(wl->el, wc->fd, AE_READABLE, _readable, wc);
    }
    return GK_OK;
}

/* Starts a workload against server_node now. Its id (a node id) goes to
 * *id. GK_EINVAL for a bad spec. */
/* What the client programs hold at once when every client has a batch in
 * its write buffer: each command's header and key with the value, MULTI
 * and EXEC around it. The buffers live in the world's memory, so a
 * workload whose batches could not fit under the heap limit is refused
 * before it starts, not when the allocator gives out. */
static uint64_t _batchBytes(const gkWorkloadSpec *spec) {
    uint64_t cmd = 64 + (uint64_t)spec->value_size;
    if (!strcasecmp(spec->command, "EVAL"))
        cmd = 256 + 40 * (uint64_t)spec->keyspace;
    return (uint64_t)spec->clients * (32 + cmd * spec->pipeline);
}

int gkWorkloadStart(gkWorld *w, int server_node, const gkWorkloadSpec *spec,
                    int *id) {
    if (!worldServer(w, server_node)) return GK_ENOTFOUND;
    if (spec->clients == 0 || spec->clients > 10000 || spec->pipeline == 0 ||
        spec->pipeline > 1000000 || spec->value_size > 64 * 1024 * 1024)
        return worldFail(w, GK_EINVAL, "invalid workload");
    if (w->cfg.heap_limit && _batchBytes(spec) > w->cfg.heap_limit) {
        char msg[160];
        snprintf(msg, sizeof(msg), "a batch of every client of this "
                 "workload takes %llu bytes, past the heap limit (%llu)",
                 (unsigned long long)_batchBytes(spec),
                 (unsigned long long)w->cfg.heap_limit);
        return worldFail(w, GK_EINVAL, msg);
    }
    if (worldFreeNode(w) < 0)
        return worldFail(w, GK_EINVAL, "too many nodes");
    workload *wl = memCalloc(&w->mem, sizeof(*wl));
    wl->w = w;
    wl->server = server_node;
    wl->spec = *spec;
    wl->spec.command[sizeof(wl->spec.command) - 1] = '\0';
    wl->ack = !strcmp(wl->spec.command, "SET") ? GK_ACK_SET :
              !strcmp(wl->spec.command, "INCR") ? GK_ACK_INCR : -1;
    wl->kind = _wlKind(wl->spec.command);
    wl->spec.key_prefix[sizeof(wl->spec.key_prefix) - 1] = '\0';
    wl->st.started_ns = w->now;
    rngSeed(&wl->rng, rngNext(&w->rng));
    wl->conns = memCalloc(&w->mem, sizeof(wlConn) * spec->clients);
    wl->el = aeCreateEventLoop(&w->mem, 1024, worldBackend(w));
    wl->el->privdata = wl;
    aeCreateTimeEvent(wl->el, 0, _tick, wl);
    int st = worldAddNode(w, &workloadNodeType, wl, wl->el, &wl->node);
    if (st != GK_OK) { _wlRelease(wl); return st; }
    st = _wlOpenConns(wl);
    if (id) *id = wl->node;
    return st;
}

/* Stops sending; batches in flight still complete. */
int gkWorkloadStop(gkWorld *w, int id) {
    workload *wl = _getWorkload(w, id);
    if (!wl) return GK_ENOTFOUND;
    wl->stopped = 1;
    return GK_OK;
}

int gkWorkloadGetStats(gkWorld *w, int id, gkWorkloadStats *out) {
    workload *wl = _getWorkload(w, id);
    if (!wl) return GK_ENOTFOUND;
    *out = wl->st;
    out->lat_p50_ns = _percentile(wl, 0.50);
    out->lat_p99_ns = _percentile(wl, 0.99);
    gkNode *n = &w->nodes[id];
    out->reads = n->stats.reads;
    out->writes = n->stats.writes;
    out->stopped = wl->stopped;
    return GK_OK;
}

/* Whether workload id has had every reply it asked for: gkWorkloadGetStats's
 * done, without the percentiles (a lab asks after every event). 0 for an
 * unknown id. */
int workloadDone(gkWorld *w, int id) {
    workload *wl = _getWorkload(w, id);
    return wl ? wl->st.done : 0;
}

int gkWorkloadGetSpec(gkWorld *w, int id, gkWorkloadSpec *out) {
    workload *wl = _getWorkload(w, id);
    if (!wl) return GK_ENOTFOUND;
    *out = wl->spec;
    return GK_OK;
}

/* Copies the most recent latency samples, oldest first: when each batch
 * completed and how long it took. Returns how many. */
size_t gkWorkloadSamples(gkWorld *w, int id, uint64_t *times,
                         uint64_t *latencies, size_t max) {
    workload *wl = _getWorkload(w, id);
    if (!wl) return 0;
    uint64_t have = wl->nsamples < WL_SAMPLES ? wl->nsamples : WL_SAMPLES;
    if (max > have) max = (size_t)have;
    for (size_t i = 0; i < max; i++) {
        uint64_t k = (wl->nsamples - max + i) % WL_SAMPLES;
        times[i] = wl->sample_time[k];
        latencies[i] = wl->sample_lat[k];
    }
    return max;
}

/* System calls made by a host so far (any node: server or workload). */
int gkNodeGetStats(gkWorld *w, int node, gkNodeStats *out) {
    if (node < 0 || node >= w->nnodes || !w->nodes[node].type)
        return GK_ENOTFOUND;
    *out = w->nodes[node].stats;
    return GK_OK;
}
