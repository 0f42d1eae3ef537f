/* scanwalk.c -- SCAN walks: a client calling SCAN until the cursor is 0
 * again, and what each of its calls did.
 *
 * SCAN keeps no state on the server: the cursor a client sends back is all
 * of it, the next bucket to visit, counted in reverse binary (dictScan in
 * dict.c increments the cursor's highest masked bit first). When the
 * table doubles or halves between two calls, the buckets already visited
 * then map onto buckets the cursor has passed too. That is why a full
 * walk returns every key present from its start to its end, and why it
 * may return a key twice: a shrink folds visited and unvisited buckets
 * together. The walker is the client side of that lesson. It sends one
 * call per step, on a connection of its own, and records per call the
 * cursors, both tables' sizes and the rehash index when SCAN ran, the
 * buckets visited in order, the keys returned and which of them an
 * earlier call had returned; over the walk, the set of keys seen and, per
 * table size, a bit for each bucket visited.
 *
 * The buckets come from the server as it visits them: a hook (scanHook in
 * server.h) observes the walk's client, and dictScan tells it of each
 * bucket with the dict at hand, so each one comes with the size its table
 * had at that moment. The trace holds the same buckets (GK_TR_SCAN_BUCKET,
 * test_scanwalk.c checks that both agree), but a walk read back from it
 * would depend on what the trace keeps: its ring is bounded (one call with
 * a large COUNT visits more buckets than the ring holds), the host chooses
 * which record types it keeps, a build can compile the probes out, and a
 * record does not say whose SCAN visited the bucket.
 *
 * A walk lives in the world's memory, allocated through the world's
 * allocator and hung on its node (gkNode.walk), so a copy of that memory
 * holds it whole and gkWorldDigest folds it (scanWalkDigest). It is the
 * world's memory and not the server's: the walker is a client, and what
 * it keeps counts against no maxmemory. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "scanwalk.h"
#include "rdb.h"
#include "util.h"

/* Virtual time a call waits for its reply after sending it, as
 * wasm/driver.ts waits: a reply that never comes fails the call rather
 * than running the world on for ever. */
#define WALK_WAIT_NS 10000000000ULL

typedef struct walkCall {
    gkScanWalkCall info;
    gkScanWalkBucket *buckets;  /* the first info.buckets_kept visited */
    sds keys;                   /* the kept keys, each a 4-byte
                                   little-endian length then the bytes */
    sds dups;                   /* the kept duplicates, the same way */
} walkCall;

typedef struct scanWalk {
    gkScanWalkInfo info;
    gkScanAudit audit;          /* the audit's counters after the last call */
    int conn_db;                /* the db selected on info.conn */
    uint64_t client_id;         /* the server's id of info.conn's client */
    dictEnv env;                /* the seen set's */
    dict *seen;                 /* every key returned (sds), no values */
    walkCall recent[GK_SCAN_WALK_RECENT]; /* a ring, the oldest at first */
    uint32_t first;
    walkCall pending;           /* the call in flight (the hook fills it) */
    int hooked;                 /* a step waits for its SCAN to run */
    uint8_t *visited[64];       /* per table size 1 << i: a bit per bucket */
    sds missing;                /* once done: the kept missing keys */
} scanWalk;

static void _seenKeyFree(dict *d, void *key) { sdsfree(d->env->mem, key); }

static const dictType seenDictType = {
    dictSdsHash, dictSdsKeyCompare, _seenKeyFree, NULL, NULL
};

/* ---- Lifetime. ---- */

/* The walk of node, created empty the first time. The seen set's dicts
 * get a fixed hash seed and no PRNG: drawing from the world's would change
 * what the servers draw after it. */
static scanWalk *_walkOf(gkWorld *w, int node) {
    gkNode *n = &w->nodes[node];
    if (n->walk) return n->walk;
    scanWalk *wk = memCalloc(&w->mem, sizeof(*wk));
    wk->info.conn = -1;
    wk->env.mem = &w->mem;
    memcpy(wk->env.seed, "glasskv scanwalk", sizeof(wk->env.seed));
    wk->env.resize_policy = DICT_RESIZE_ENABLE;
    wk->pending.buckets = memAlloc(&w->mem, sizeof(gkScanWalkBucket) *
                                            GK_SCAN_WALK_BUCKETS);
    n->walk = wk;
    return wk;
}

static void _callFree(gkMem *m, walkCall *c) {
    memFree(m, c->buckets);
    sdsfree(m, c->keys);
    sdsfree(m, c->dups);
    memset(c, 0, sizeof(*c));
}

/* Forgets the walk: everything but its connection and the walks counted.
 * The pending call keeps its bucket array for the next walk. */
static void _walkClear(gkWorld *w, scanWalk *wk) {
    gkMem *m = &w->mem;
    if (wk->seen) dictRelease(wk->seen);
    wk->seen = NULL;
    for (int i = 0; i < GK_SCAN_WALK_RECENT; i++)
        _callFree(m, &wk->recent[i]);
    for (int i = 0; i < 64; i++) {
        memFree(m, wk->visited[i]);
        wk->visited[i] = NULL;
    }
    sdsfree(m, wk->pending.keys);
    sdsfree(m, wk->pending.dups);
    wk->pending.keys = wk->pending.dups = NULL;
    sdsfree(m, wk->missing);
    wk->missing = NULL;
    int conn = wk->info.conn;
    uint64_t serial = wk->info.serial;
    memset(&wk->info, 0, sizeof(wk->info));
    wk->info.conn = conn;
    wk->info.serial = serial;
    memset(&wk->audit, 0, sizeof(wk->audit));
    wk->first = 0;
    wk->hooked = 0;
}

/* Frees node n's walk, if it has one (gkWorldRelease). Its connection is
 * the world's and goes with the other connections. */
void scanWalkRelease(gkWorld *w, gkNode *n) {
    scanWalk *wk = n->walk;
    if (!wk) return;
    _walkClear(w, wk);
    memFree(&w->mem, wk->pending.buckets);
    memFree(&w->mem, wk);
    n->walk = NULL;
}

/* ---- The server's hook: the call's dict and the buckets it visits. ---- */

static void _tables(gkScanWalkCall *c, const dict *d) {
    for (int t = 0; t < 2; t++) c->size[t] = DICTHT_SIZE(d->ht_size_exp[t]);
    c->rehashidx = d->rehashidx;
}

static void _hookCall(void *ctx, dict *d) {
    scanWalk *wk = ctx;
    if (wk->hooked) _tables(&wk->pending.info, d);
}

static void _markVisited(scanWalk *wk, int exp, uint64_t idx) {
    if (exp < 0 || exp > 63) return;
    if (!wk->visited[exp]) {
        uint64_t size = (uint64_t)1 << exp;
        wk->visited[exp] = memCalloc(wk->env.mem, (size_t)((size + 7) / 8));
    }
    wk->visited[exp][idx >> 3] |= (uint8_t)(1u << (idx & 7));
}

static void _hookBucket(void *ctx, dict *d, int table, uint64_t idx) {
    scanWalk *wk = ctx;
    if (!wk->hooked) return;
    walkCall *c = &wk->pending;
    if (c->info.buckets_kept < GK_SCAN_WALK_BUCKETS) {
        gkScanWalkBucket *b = &c->buckets[c->info.buckets_kept++];
        b->table = (uint32_t)table;
        b->pad = 0;
        b->index = idx;
    }
    c->info.buckets++;
    _markVisited(wk, d->ht_size_exp[table], idx);
}

/* ---- Replies (RESP2). ---- */

/* One value's header at p[at]: its type byte and line, for a bulk string
 * its length and bytes, for an array its count. end is past the whole
 * value for all but arrays, past the header line for those. */
typedef struct respItem {
    char type;
    const char *line;
    size_t line_len;
    long long n;
    const char *bulk;
    size_t end;
} respItem;

/* 1 if the header at p[at] was read into *it, 0 if p ends before it does,
 * -1 if it is not RESP2. */
static int _respItem(const char *p, size_t len, size_t at, respItem *it) {
    if (at >= len) return 0;
    size_t cr = at + 1;
    while (cr + 1 < len && !(p[cr] == '\r' && p[cr + 1] == '\n')) cr++;
    if (cr + 1 >= len) return 0;
    memset(it, 0, sizeof(*it));
    it->type = p[at];
    it->line = p + at + 1;
    it->line_len = cr - at - 1;
    it->end = cr + 2;
    switch (it->type) {
    case '+': case '-': case ':':
        return 1;
    case '$': case '*':
        if (!string2ll(it->line, it->line_len, &it->n) || it->n < -1)
            return -1;
        if (it->type == '$' && it->n >= 0) {
            if (it->end + (size_t)it->n + 2 > len) return 0;
            it->bulk = p + it->end;
            it->end += (size_t)it->n + 2;
        }
        return 1;
    default:
        return -1;
    }
}

/* 1 with *end past the whole value at p[at], 0 if p ends first, -1 if it
 * is not RESP2. */
static int _respSkip(const char *p, size_t len, size_t at, size_t *end) {
    respItem it;
    int r = _respItem(p, len, at, &it);
    if (r <= 0) return r;
    size_t off = it.end;
    if (it.type == '*')
        for (long long i = 0; i < it.n; i++)
            if ((r = _respSkip(p, len, off, &off)) <= 0) return r;
    *end = off;
    return 1;
}

/* ---- Sending a request and waiting for its reply. ---- */

static void _recvAll(gkWorld *w, int conn, sds *buf) {
    size_t n = gkConnPending(w, conn);
    if (n == 0) return;
    *buf = sdsMakeRoomFor(&w->mem, *buf, n);
    sdsIncrLen(*buf, gkConnRecv(w, conn, *buf + sdslen(*buf), n));
}

/* Sends req on conn and runs the world until one whole reply is in, the
 * server closed the connection, or WALK_WAIT_NS passed: what arrives
 * within the instant, then the world's own events one by one. Bytes left
 * unread from before are dropped first. Returns what arrived (an sds the
 * caller frees), possibly not a whole reply. */
static sds _roundTrip(gkWorld *w, int conn, const char *req, size_t len) {
    sds buf = sdsempty(&w->mem);
    _recvAll(w, conn, &buf);
    sdsclear(buf);
    if (gkConnSend(w, conn, req, len) != GK_OK) return buf;
    gkWorldRunUntilIdle(w);
    _recvAll(w, conn, &buf);
    uint64_t deadline = gkWorldNow(w) + WALK_WAIT_NS;
    size_t end;
    while (_respSkip(buf, sdslen(buf), 0, &end) == 0 &&
           gkConnIsOpen(w, conn) == 1) {
        uint64_t next = gkWorldNextEventTime(w);
        if (next == UINT64_MAX || next > deadline) break;
        gkWorldStep(w, NULL);
        _recvAll(w, conn, &buf);
    }
    return buf;
}

static sds _arg(gkMem *m, sds req, const char *p, size_t len) {
    char hdr[32];
    int n = snprintf(hdr, sizeof(hdr), "$%zu\r\n", len);
    req = sdscatlen(m, req, hdr, (size_t)n);
    req = sdscatlen(m, req, p, len);
    return sdscatlen(m, req, "\r\n", 2);
}

static sds _argNum(gkMem *m, sds req, uint64_t v) {
    char num[24];
    int n = ull2string(num, sizeof(num), v);
    return _arg(m, req, num, (size_t)n);
}

/* SCAN cursor [MATCH pattern] COUNT count; no MATCH for "" or "*". */
static sds _scanRequest(gkMem *m, const scanWalk *wk) {
    const char *pat = wk->info.match;
    int match = pat[0] && strcmp(pat, "*") != 0;
    sds req = sdscatprintf(m, sdsempty(m), "*%d\r\n", match ? 6 : 4);
    req = _arg(m, req, "SCAN", 4);
    req = _argNum(m, req, wk->info.cursor);
    if (match) {
        req = _arg(m, req, "MATCH", 5);
        req = _arg(m, req, pat, strlen(pat));
    }
    req = _arg(m, req, "COUNT", 5);
    return _argNum(m, req, wk->info.count);
}

/* SELECT db on the walk's connection. GK_OK if it answered +OK. */
static int _select(gkWorld *w, scanWalk *wk) {
    sds req = sdscatprintf(&w->mem, sdsempty(&w->mem), "*2\r\n");
    req = _arg(&w->mem, req, "SELECT", 6);
    req = _argNum(&w->mem, req, (uint64_t)wk->info.db);
    sds reply = _roundTrip(w, wk->info.conn, req, sdslen(req));
    int ok = sdslen(reply) == 5 && memcmp(reply, "+OK\r\n", 5) == 0;
    sdsfree(&w->mem, req);
    sdsfree(&w->mem, reply);
    if (!ok) return worldFail(w, GK_ERR, "SELECT of the walk's db failed");
    wk->conn_db = wk->info.db;
    return GK_OK;
}

/* Makes sure the walk has an open connection, the server's hook on its
 * client and its db selected. A connection the server closed (a restart,
 * CLIENT KILL) is closed on this side too and another one opened, as a
 * client library reconnects; an audit of the walk's db that lost its
 * client to that follows the new one. GK_OK, or the status of what
 * failed. The world runs only for the SELECT, last. */
static int _connect(gkWorld *w, int node, scanWalk *wk) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no running server node");
    int conn = wk->info.conn;
    if (conn < 0 || gkConnIsOpen(w, conn) != 1) {
        if (conn >= 0) gkConnClose(w, conn);
        wk->info.conn = -1;
        int st = gkConnOpen(w, node, &conn);
        if (st != GK_OK) return st;
        wk->info.conn = conn;
        wk->conn_db = 0;
        wk->client_id = s->clients[conn]->id;
        if (wk->info.active && s->audit.active &&
            s->audit.client_id == UINT64_MAX &&
            s->audit.dbid == wk->info.db)
            s->audit.client_id = wk->client_id;
    }
    s->scan_hook.client_id = wk->client_id;
    s->scan_hook.call = _hookCall;
    s->scan_hook.bucket = _hookBucket;
    s->scan_hook.ctx = wk;
    return wk->conn_db == wk->info.db ? GK_OK : _select(w, wk);
}

/* ---- Recording a call. ---- */

static sds _keyAppend(gkMem *m, sds list, const char *p, size_t len) {
    unsigned char le[4];
    for (int b = 0; b < 4; b++) le[b] = (unsigned char)(len >> (8 * b));
    list = sdscatlen(m, list, le, 4);
    return sdscatlen(m, list, p, len);
}

/* Starts the pending call: its number and cursor, and the tables as they
 * are now, which the hook replaces with what they are when SCAN runs. */
static void _pendingBegin(gkWorld *w, int node, scanWalk *wk) {
    walkCall *c = &wk->pending;
    memset(&c->info, 0, sizeof(c->info));
    c->info.n = wk->info.calls + 1;
    c->info.cursor_in = wk->info.cursor;
    c->info.rehashidx = -1;
    redisServer *s = worldServer(w, node);
    if (s) _tables(&c->info, s->db[wk->info.db].dict);
    sdsfree(&w->mem, c->keys);
    sdsfree(&w->mem, c->dups);
    c->keys = sdsempty(&w->mem);
    c->dups = sdsempty(&w->mem);
}

static void _keyReturned(gkWorld *w, scanWalk *wk, const char *p,
                         size_t len) {
    walkCall *c = &wk->pending;
    sds k = sdsnewlen(&w->mem, p, len);
    dictEntry *existing;
    c->info.keys++;
    if (dictAddRaw(wk->seen, k, &existing) == NULL) {
        sdsfree(&w->mem, k);
        wk->info.duplicates++;
        c->info.duplicates++;
        if (c->info.duplicates_kept < GK_SCAN_WALK_KEYS) {
            c->dups = _keyAppend(&w->mem, c->dups, p, len);
            c->info.duplicates_kept++;
        }
    } else {
        wk->info.distinct++;
    }
    if (c->info.keys_kept < GK_SCAN_WALK_KEYS) {
        c->keys = _keyAppend(&w->mem, c->keys, p, len);
        c->info.keys_kept++;
    }
}

/* Moves the pending call into the ring of recent calls, dropping the
 * oldest when it is full. */
static void _remember(gkWorld *w, scanWalk *wk) {
    walkCall *c = &wk->pending, *slot;
    if (wk->info.recent < GK_SCAN_WALK_RECENT) {
        slot = &wk->recent[(wk->first + wk->info.recent++) %
                           GK_SCAN_WALK_RECENT];
    } else {
        slot = &wk->recent[wk->first];
        wk->first = (wk->first + 1) % GK_SCAN_WALK_RECENT;
        _callFree(&w->mem, slot);
    }
    slot->info = c->info;
    slot->info.keys_bytes = (uint32_t)sdslen(c->keys);
    slot->info.duplicates_bytes = (uint32_t)sdslen(c->dups);
    size_t bytes = sizeof(gkScanWalkBucket) * c->info.buckets_kept;
    slot->buckets = memAlloc(&w->mem, bytes ? bytes : 1);
    memcpy(slot->buckets, c->buckets, bytes);
    slot->keys = c->keys;
    slot->dups = c->dups;
    c->keys = c->dups = NULL;
}

static void _fail(scanWalk *wk, const char *why, size_t len) {
    wk->info.failed = 1;
    if (len > sizeof(wk->info.error) - 1) len = sizeof(wk->info.error) - 1;
    memset(wk->info.error, 0, sizeof(wk->info.error));
    memcpy(wk->info.error, why, len);
}

/* Reads the reply to the pending call and records it: a cursor and keys,
 * or the reason there are none. */
static void _record(gkWorld *w, scanWalk *wk, const char *p, size_t len) {
    static const char bad[] = "unexpected SCAN reply";
    respItem top, cur, keys;
    size_t end;
    int whole = _respSkip(p, len, 0, &end);
    if (whole == 0) { _fail(wk, "no reply", 8); return; }
    if (whole < 0 || _respItem(p, len, 0, &top) != 1) {
        _fail(wk, bad, sizeof(bad) - 1);
        return;
    }
    if (top.type == '-') { _fail(wk, top.line, top.line_len); return; }
    char num[24];
    unsigned long long cursor;
    if (top.type != '*' || top.n != 2 ||
        _respItem(p, len, top.end, &cur) != 1 || cur.type != '$' ||
        cur.n < 1 || cur.n >= (long long)sizeof(num) ||
        _respItem(p, len, cur.end, &keys) != 1 || keys.type != '*' ||
        keys.n < 0) {
        _fail(wk, bad, sizeof(bad) - 1);
        return;
    }
    memcpy(num, cur.bulk, (size_t)cur.n);
    num[cur.n] = '\0';
    if (!string2ull(num, &cursor)) {
        _fail(wk, bad, sizeof(bad) - 1);
        return;
    }
    size_t at = keys.end;
    for (long long i = 0; i < keys.n; i++) {
        respItem k;
        _respItem(p, len, at, &k);
        if (k.type == '$' && k.n >= 0)
            _keyReturned(w, wk, k.bulk, (size_t)k.n);
        _respSkip(p, len, at, &at);
    }
    wk->info.failed = 0;
    memset(wk->info.error, 0, sizeof(wk->info.error));
    wk->pending.info.cursor_out = cursor;
    wk->info.cursor = cursor;
    wk->info.done = cursor == 0;
    _remember(w, wk);
}

/* Once the walk is done: the first missing keys of the audit, if any. */
static void _keepMissing(gkWorld *w, scanWalk *wk, redisServer *s) {
    size_t n = 0;
    sdsfree(&w->mem, wk->missing);
    wk->missing = sdsempty(&w->mem);
    if (s && wk->audit.missing > 0)
        wk->missing = auditMissingAppend(s, &w->mem, wk->missing,
                                         GK_SCAN_WALK_MISSING, &n);
    wk->info.missing_kept = (uint32_t)n;
    wk->info.missing_bytes = (uint32_t)sdslen(wk->missing);
}

/* ---- The API. ---- */

/* The walk of a Redis-style node that can take another call. GK_ENOTFOUND
 * for another node or one whose process is down, GK_EINVAL with no walk or
 * a walk that is done. */
static int _stepping(gkWorld *w, int node, scanWalk **out) {
    if (!worldIsRedisNode(w, node))
        return worldFail(w, GK_ENOTFOUND, "no such server node");
    scanWalk *wk = w->nodes[node].walk;
    if (!wk || !wk->info.active)
        return worldFail(w, GK_EINVAL, "no SCAN walk: begin one first");
    if (wk->info.done)
        return worldFail(w, GK_EINVAL,
                         "the SCAN walk is finished: begin another");
    if (!worldServer(w, node))
        return worldFail(w, GK_ENOTFOUND, "no running server node");
    *out = wk;
    return GK_OK;
}

/* Begins a walk of db on node with COUNT count and MATCH match (match_len
 * bytes; none if 0 or "*"), forgetting the node's last walk, and begins
 * the SCAN audit of db for the walk's connection (ending the audit that
 * was running). The first walk opens the connection; the next ones keep
 * it. GK_ENOTFOUND for an unknown node or db or a node whose process is
 * down; GK_EINVAL for a COUNT of 0 or a pattern longer than
 * GK_SCAN_WALK_MATCH bytes or holding a NUL byte; a connection's failure
 * otherwise (then there is no walk). */
int gkScanWalkBegin(gkWorld *w, int node, int db, uint64_t count,
                    const char *match, size_t match_len) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no running server node");
    if (db < 0 || db >= s->cfg.databases)
        return worldFail(w, GK_ENOTFOUND, "no such database");
    if (count == 0) return worldFail(w, GK_EINVAL, "COUNT must be positive");
    if (match_len > GK_SCAN_WALK_MATCH ||
        (match_len && memchr(match, '\0', match_len)))
        return worldFail(w, GK_EINVAL, "a MATCH pattern has at most 127 "
                                       "bytes, none of them NUL");
    scanWalk *wk = _walkOf(w, node);
    _walkClear(w, wk);
    wk->info.active = 1;
    wk->info.db = db;
    wk->info.count = count;
    wk->info.serial++;
    if (match_len) memcpy(wk->info.match, match, match_len);
    wk->seen = dictCreate(&seenDictType, &wk->env);
    int st = _connect(w, node, wk);
    if (st == GK_OK && !(s = worldServer(w, node)))
        st = worldFail(w, GK_ENOTFOUND, "no running server node");
    if (st != GK_OK) {
        _walkClear(w, wk);
        return st;
    }
    auditEnd(s);
    if ((st = auditBegin(s, db, wk->info.conn)) != GK_OK) {
        _walkClear(w, wk);
        return worldFail(w, st, "no such connection");
    }
    auditGet(s, &wk->audit);
    return GK_OK;
}

/* Sends the walk's next SCAN call, waits for its reply and records the
 * call: a cursor and keys, or, with failed set, the error reply or why no
 * reply came ("no reply" after 10 s of virtual time or a closed
 * connection). Either way the call is counted and the audit's counters
 * are read again; a call that failed is not kept among the recent ones.
 * GK_OK if the call was sent; errors as _stepping, or a connection's
 * failure (then nothing was sent, and failed is set too). */
int gkScanWalkStep(gkWorld *w, int node) {
    scanWalk *wk;
    int st = _stepping(w, node, &wk);
    if (st != GK_OK) return st;
    if ((st = _connect(w, node, wk)) != GK_OK) {
        const char *why = gkWorldLastError(w);
        _fail(wk, why, strlen(why));
        return st;
    }
    sds req = _scanRequest(&w->mem, wk);
    _pendingBegin(w, node, wk);
    wk->hooked = 1;
    sds reply = _roundTrip(w, wk->info.conn, req, sdslen(req));
    wk->hooked = 0;
    wk->info.calls++;
    _record(w, wk, reply, sdslen(reply));
    sdsfree(&w->mem, req);
    sdsfree(&w->mem, reply);
    redisServer *s = worldServer(w, node);
    if (s) auditGet(s, &wk->audit);
    if (wk->info.done) _keepMissing(w, wk, s);
    return GK_OK;
}

/* Steps the walk until its cursor is 0, a call fails, or max_calls calls
 * were sent; a walk whose last call failed is left as it is. Errors as
 * gkScanWalkStep, from the call that met them. */
int gkScanWalkFinish(gkWorld *w, int node, uint64_t max_calls) {
    scanWalk *wk;
    int st = _stepping(w, node, &wk);
    for (uint64_t i = 0; st == GK_OK && i < max_calls && !wk->info.done &&
                         !wk->info.failed; i++)
        st = gkScanWalkStep(w, node);
    return st;
}

/* Forgets node's walk and ends the SCAN audit if it was the walk's; the
 * connection stays open for the next walk. GK_ENOTFOUND for a node that is
 * not Redis-style; GK_OK if there was no walk. */
int gkScanWalkEnd(gkWorld *w, int node) {
    if (!worldIsRedisNode(w, node))
        return worldFail(w, GK_ENOTFOUND, "no such server node");
    scanWalk *wk = w->nodes[node].walk;
    if (!wk || !wk->info.active) return GK_OK;
    redisServer *s = worldServer(w, node);
    if (s && s->scan_hook.ctx == wk)
        memset(&s->scan_hook, 0, sizeof(s->scan_hook));
    if (s && s->audit.active && s->audit.client_id == wk->client_id)
        auditEnd(s);
    _walkClear(w, wk);
    return GK_OK;
}

/* The walk of a Redis-style node, or NULL with *status set. */
static scanWalk *_reading(gkWorld *w, int node, int *status) {
    *status = GK_OK;
    if (!worldIsRedisNode(w, node)) {
        *status = worldFail(w, GK_ENOTFOUND, "no such server node");
        return NULL;
    }
    scanWalk *wk = w->nodes[node].walk;
    return wk && wk->info.active ? wk : NULL;
}

/* Fills out with node's walk: all zeros but conn and serial when there is
 * none. Readable while the node's process is down. GK_ENOTFOUND for a
 * node that is not Redis-style. */
int gkScanWalkGetInfo(gkWorld *w, int node, gkScanWalkInfo *out) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    if (st != GK_OK) return st;
    if (wk) {
        *out = wk->info;
        return GK_OK;
    }
    const scanWalk *idle = w->nodes[node].walk;
    memset(out, 0, sizeof(*out));
    out->conn = idle ? idle->info.conn : -1;
    out->serial = idle ? idle->info.serial : 0;
    return GK_OK;
}

/* Fills out with the audit's counters as the walk's last call (or its
 * beginning) left them; zeros without a walk. Errors as gkScanWalkGetInfo. */
int gkScanWalkAudit(gkWorld *w, int node, gkScanAudit *out) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    if (st != GK_OK) return st;
    if (wk) *out = wk->audit;
    else memset(out, 0, sizeof(*out));
    return GK_OK;
}

static const walkCall *_call(const scanWalk *wk, uint64_t n) {
    for (uint32_t i = 0; wk && i < wk->info.recent; i++) {
        const walkCall *c = &wk->recent[(wk->first + i) % GK_SCAN_WALK_RECENT];
        if (c->info.n == n) return c;
    }
    return NULL;
}

/* Copies the recent calls kept, oldest first, at most max of them, into
 * out; *n gets how many are kept. Errors as gkScanWalkGetInfo. */
int gkScanWalkCalls(gkWorld *w, int node, gkScanWalkCall *out, uint32_t max,
                    uint32_t *n) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    if (st != GK_OK) return st;
    *n = wk ? wk->info.recent : 0;
    for (uint32_t i = 0; i < *n && i < max; i++)
        out[i] = wk->recent[(wk->first + i) % GK_SCAN_WALK_RECENT].info;
    return GK_OK;
}

/* Copies the buckets kept of call number `call` (gkScanWalkCall.n), in the
 * order SCAN visited them, at most max, into out; *n gets how many are
 * kept. GK_ENOTFOUND if that call is not among the recent ones. */
int gkScanWalkBuckets(gkWorld *w, int node, uint64_t call,
                      gkScanWalkBucket *out, uint32_t max, uint32_t *n) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    if (st != GK_OK) return st;
    const walkCall *c = _call(wk, call);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such call kept");
    *n = c->info.buckets_kept;
    memcpy(out, c->buckets, sizeof(*out) * (*n < max ? *n : max));
    return GK_OK;
}

/* Writes as many whole entries of list (4-byte length, bytes) as fit in
 * cap; returns the bytes written. */
static size_t _copyKeys(const sds list, char *out, size_t cap) {
    size_t at = 0, len = list ? sdslen(list) : 0;
    while (at + 4 <= len) {
        const unsigned char *p = (const unsigned char *)list + at;
        size_t k = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
                   (size_t)p[3] << 24;
        if (at + 4 + k > cap) break;
        at += 4 + k;
    }
    memcpy(out, list, at);
    return at;
}

/* Writes the keys kept of call number `call` (its duplicates instead if
 * duplicates is not 0), in the order SCAN returned them, each as a 4-byte
 * little-endian length then its bytes, as many as fit in cap (the call's
 * keys_bytes and duplicates_bytes say how many bytes all take); *written
 * gets the bytes used. GK_ENOTFOUND as gkScanWalkBuckets. */
int gkScanWalkKeys(gkWorld *w, int node, uint64_t call, int duplicates,
                   char *out, size_t cap, size_t *written) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    *written = 0;
    if (st != GK_OK) return st;
    const walkCall *c = _call(wk, call);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such call kept");
    *written = _copyKeys(duplicates ? c->dups : c->keys, out, cap);
    return GK_OK;
}

/* Writes the missing keys kept when the walk was done, as gkScanWalkKeys
 * writes keys (missing_bytes in the walk's info says how many bytes they
 * take). Nothing before the walk is done. Errors as gkScanWalkGetInfo. */
int gkScanWalkMissing(gkWorld *w, int node, char *out, size_t cap,
                      size_t *written) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    *written = 0;
    if (st != GK_OK) return st;
    if (wk) *written = _copyKeys(wk->missing, out, cap);
    return GK_OK;
}

/* The bits set in map from bit `from` up to bit `to`, excluded. */
static uint64_t _bitsSet(const uint8_t *map, uint64_t from, uint64_t to) {
    uint64_t n = 0;
    for (; from < to && (from & 7); from++)
        n += (map[from >> 3] >> (from & 7)) & 1;
    for (; from + 8 <= to; from += 8)
        n += (uint64_t)__builtin_popcount(map[from >> 3]);
    for (; from < to; from++)
        n += (map[from >> 3] >> (from & 7)) & 1;
    return n;
}

/* Fills out[0..bins) with the share of each bin's buckets the walk visited
 * while a table of node's db had `size` buckets, 0 (none) to 255 (all),
 * rounded. Bin k holds buckets [k * size / bins, (k + 1) * size / bins):
 * gkDictGetBuckets's folding, so the two line up. All zeros without a
 * walk or for a size it never saw. GK_EINVAL for 0 bins or a size that is
 * not a power of two; GK_ENOTFOUND as gkScanWalkGetInfo. */
int gkScanWalkVisited(gkWorld *w, int node, uint64_t size, uint32_t bins,
                      uint8_t *out) {
    int st;
    scanWalk *wk = _reading(w, node, &st);
    if (st != GK_OK) return st;
    if (bins == 0 || (size & (size - 1)))
        return worldFail(w, GK_EINVAL, "bins must be positive and the size "
                                       "a power of two");
    memset(out, 0, bins);
    int exp = 0;
    while (size >> exp > 1) exp++;
    const uint8_t *map = wk && size ? wk->visited[exp] : NULL;
    if (!map) return GK_OK;
    uint64_t q = size / bins, r = size % bins;
    for (uint32_t k = 0; k < bins; k++) {
        uint64_t from = q * k + r * k / bins;
        uint64_t to = q * (k + 1) + r * (k + 1) / bins;
        if (to <= from) continue;
        uint64_t n = to - from, hit = _bitsSet(map, from, to);
        out[k] = (uint8_t)((510 * hit + n) / (2 * n));
    }
    return GK_OK;
}

/* ---- The digest. ---- */

static uint64_t _mixBytes(uint64_t crc, const void *p, size_t len) {
    return crc64(crc, (const unsigned char *)p, len);
}

static uint64_t _mixU64(uint64_t crc, uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    return crc64(crc, b, sizeof(b));
}

/* Folds node n's walk into crc: its info and audit counters, the keys it
 * has seen (a sum over them, as a set has no order), the recent calls with
 * their buckets and keys, the buckets visited per table size and the
 * missing keys. A node without a walk leaves crc as it is. */
uint64_t scanWalkDigest(const gkNode *n, uint64_t crc) {
    const scanWalk *wk = n->walk;
    if (!wk) return crc;
    crc = _mixBytes(crc, &wk->info, sizeof(wk->info));
    crc = _mixBytes(crc, &wk->audit, sizeof(wk->audit));
    crc = _mixU64(crc, (uint64_t)wk->conn_db);
    uint64_t seen = 0;
    if (wk->seen) {
        dictIterator *di = dictGetIterator(wk->seen);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL)
            seen += _mixBytes(0, dictGetKey(de), sdslen(dictGetKey(de)));
        dictReleaseIterator(di);
    }
    crc = _mixU64(crc, seen);
    for (uint32_t i = 0; i < wk->info.recent; i++) {
        const walkCall *c = &wk->recent[(wk->first + i) % GK_SCAN_WALK_RECENT];
        crc = _mixBytes(crc, &c->info, sizeof(c->info));
        crc = _mixBytes(crc, c->buckets,
                        sizeof(*c->buckets) * c->info.buckets_kept);
        crc = _mixBytes(crc, c->keys, sdslen(c->keys));
        crc = _mixBytes(crc, c->dups, sdslen(c->dups));
    }
    for (int i = 0; i < 64; i++) {
        if (!wk->visited[i]) continue;
        crc = _mixU64(crc, (uint64_t)i);
        crc = _mixBytes(crc, wk->visited[i], (((size_t)1 << i) + 7) / 8);
    }
    return wk->missing ? _mixBytes(crc, wk->missing, sdslen(wk->missing))
                       : crc;
}
