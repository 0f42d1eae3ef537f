/* world.c -- the simulated world and the embedding API's core: creation,
 * the event queue that drives the server nodes in virtual time, and the
 * connections that carry bytes between the host and the servers.
 *
 * A server node never runs on its own. It runs one event-loop iteration
 * whenever the world wakes it: when bytes arrive on one of its connections,
 * or when its nearest timer (serverCron) is due. Between wakes, no virtual
 * time passes for it -- that is the "sleep" in epoll_wait. */
#include <string.h>
#include "world.h"

void gkConfigInit(gkConfig *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->seed = 1;
    cfg->unix_ms_at_zero = 1767225600000LL;  /* 2026-01-01T00:00:00Z */
    cfg->heap_limit = 0;
    cfg->trace_capacity = 1u << 16;
}

const char *gkStatusString(int status) {
    switch (status) {
    case GK_OK: return "ok";
    case GK_ERR: return "error";
    case GK_ENOMEM: return "out of memory";
    case GK_EINVAL: return "invalid argument";
    case GK_ENOTFOUND: return "not found";
    case GK_ECLOSED: return "connection closed";
    default: return "unknown status";
    }
}

int worldFail(gkWorld *w, int status, const char *msg) {
    if (w) {
        strncpy(w->err, msg, sizeof(w->err) - 1);
        w->err[sizeof(w->err) - 1] = '\0';
    }
    return status;
}

const char *gkWorldLastError(gkWorld *w) { return w->err; }

/* Creates a world with no nodes. The world itself is allocated with the
 * host's allocator (NULL means libc). GK_ENOMEM if that fails. */
int gkWorldCreate(gkWorld **out, const gkConfig *cfg, gkAllocFn alloc,
                  void *ud) {
    gkAllocFn fn = alloc ? alloc : memDefaultAlloc;
    gkWorld *w = fn(ud, NULL, 0, sizeof(*w));
    *out = NULL;
    if (!w) return GK_ENOMEM;
    memset(w, 0, sizeof(*w));
    memInit(&w->mem, fn, ud);
    w->cfg = *cfg;
    rngSeed(&w->rng, cfg->seed);
    if (traceInit(&w->trace, &w->mem, cfg->trace_capacity, &w->now) != GK_OK) {
        fn(ud, w, sizeof(*w), 0);
        return GK_ENOMEM;
    }
    *out = w;
    return GK_OK;
}

static void _connFree(gkWorld *w, gkConn *c) {
    sdsfree(&w->mem, c->to_server);
    sdsfree(&w->mem, c->to_client);
    memFree(&w->mem, c);
}

void gkWorldRelease(gkWorld *w) {
    if (!w) return;
    for (int i = 0; i < w->nnodes; i++)
        w->nodes[i].type->release(w->nodes[i].impl);
    for (int i = 0; i < w->nconns; i++)
        if (w->conns[i]) _connFree(w, w->conns[i]);
    memFree(&w->mem, w->conns);
    memFree(&w->mem, w->events);
    traceFree(&w->trace, &w->mem);
    w->mem.fn(w->mem.ud, w, sizeof(*w), 0);
}

uint64_t gkWorldNow(gkWorld *w) { return w->now; }
size_t gkWorldMemory(gkWorld *w) { return w->mem.used; }

/* ---- The event queue. ---- */

static int _evLess(const gkEvent *a, const gkEvent *b) {
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void _evPush(gkWorld *w, gkEvent ev) {
    if (w->nevents == w->capevents) {
        w->capevents = w->capevents ? w->capevents * 2 : 16;
        w->events = memRealloc(&w->mem, w->events,
                               sizeof(gkEvent) * w->capevents);
    }
    size_t i = w->nevents++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!_evLess(&ev, &w->events[p])) break;
        w->events[i] = w->events[p];
        i = p;
    }
    w->events[i] = ev;
}

static gkEvent _evPop(gkWorld *w) {
    gkEvent top = w->events[0], last = w->events[--w->nevents];
    size_t i = 0, n = w->nevents;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const gkEvent *best = &last;
        if (l < n && _evLess(&w->events[l], best)) { m = l; best = &w->events[l]; }
        if (r < n && _evLess(&w->events[r], best)) m = r;
        if (m == i) break;
        w->events[i] = w->events[m];
        i = m;
    }
    if (n) w->events[i] = last;
    return top;
}

/* Makes sure node runs no later than when. A node has at most one live
 * wake event; an earlier request replaces it (the old one goes stale). */
void worldWake(gkWorld *w, int node, uint64_t when) {
    gkNode *n = &w->nodes[node];
    if (when < w->now) when = w->now;
    if (n->wake_seq && n->wake_at <= when) return;
    gkEvent ev = { when, ++w->evseq, node };
    n->wake_seq = ev.seq;
    n->wake_at = when;
    _evPush(w, ev);
}

/* Drops stale events from the top of the heap. */
static void _evSkipStale(gkWorld *w) {
    while (w->nevents) {
        gkEvent *top = &w->events[0];
        if (w->nodes[top->node].wake_seq == top->seq) return;
        _evPop(w);
    }
}

uint64_t gkWorldNextEventTime(gkWorld *w) {
    _evSkipStale(w);
    return w->nevents ? w->events[0].when : UINT64_MAX;
}

/* Whether the node has input waiting on a connection it reads, or output
 * waiting behind a writable handler: then it must run again at once. */
static int _nodeHasWork(gkWorld *w, int node) {
    aeEventLoop *el = w->nodes[node].el;
    for (int fd = 0; fd <= el->maxfd; fd++) {
        int mask = aeGetFileEvents(el, fd);
        if (mask & AE_WRITABLE) return 1;
        gkConn *c = worldConn(w, fd);
        if ((mask & AE_READABLE) && c &&
            (sdslen(c->to_server) > c->to_server_pos || c->client_closed))
            return 1;
    }
    return 0;
}

/* Processes the earliest event: time jumps to it and the node runs one
 * event-loop iteration, then is scheduled again. GK_ENOTFOUND if the
 * queue is empty. next_time, if given, receives the time processed. */
int gkWorldStep(gkWorld *w, uint64_t *next_time) {
    _evSkipStale(w);
    if (!w->nevents) return GK_ENOTFOUND;
    gkEvent ev = _evPop(w);
    gkNode *n = &w->nodes[ev.node];
    n->wake_seq = 0;
    if (ev.when > w->now) w->now = ev.when;
    if (next_time) *next_time = w->now;
    aeProcessEvents(n->el);
    uint64_t next = _nodeHasWork(w, ev.node) ? w->now : aeNextWake(n->el);
    if (next != AE_NEVER) worldWake(w, ev.node, next);
    return GK_OK;
}

/* Runs every event due at or before time_ns, then sets the clock to it. */
int gkWorldRunUntil(gkWorld *w, uint64_t time_ns) {
    while (gkWorldNextEventTime(w) <= time_ns) gkWorldStep(w, NULL);
    if (time_ns > w->now) w->now = time_ns;
    return GK_OK;
}

/* Runs what is due now, without moving the clock. */
int gkWorldRunUntilIdle(gkWorld *w) {
    while (gkWorldNextEventTime(w) <= w->now) gkWorldStep(w, NULL);
    return GK_OK;
}

/* ---- The backend the server nodes run on. ---- */

typedef struct nodeCtx { gkWorld *w; int node; } nodeCtx;

static uint64_t _beNow(void *ctx) { return ((gkWorld *)ctx)->now; }

static int _bePoll(void *ctx, aeEventLoop *el, aeFiredEvent *fired, int max) {
    gkWorld *w = ctx;
    int n = 0;
    for (int fd = 0; fd <= el->maxfd && n < max; fd++) {
        int mask = aeGetFileEvents(el, fd), ready = 0;
        gkConn *c = worldConn(w, fd);
        if (!c) continue;
        if ((mask & AE_READABLE) &&
            (sdslen(c->to_server) > c->to_server_pos || c->client_closed))
            ready |= AE_READABLE;
        if (mask & AE_WRITABLE) ready |= AE_WRITABLE;
        if (ready) { fired[n].fd = fd; fired[n].mask = ready; n++; }
    }
    return n;
}

static long _beRead(void *ctx, int fd, void *buf, size_t len) {
    gkConn *c = worldConn(ctx, fd);
    if (!c) return 0;
    size_t avail = sdslen(c->to_server) - c->to_server_pos;
    if (avail == 0) return c->client_closed ? 0 : -1;
    if (len > avail) len = avail;
    memcpy(buf, c->to_server + c->to_server_pos, len);
    c->to_server_pos += len;
    if (c->to_server_pos == sdslen(c->to_server)) {
        sdsclear(c->to_server);
        c->to_server_pos = 0;
    }
    return (long)len;
}

static long _beWrite(void *ctx, int fd, const void *buf, size_t len) {
    gkWorld *w = ctx;
    gkConn *c = worldConn(w, fd);
    if (!c || c->client_closed) return (long)len;   /* dropped */
    sds s = sdsTryMakeRoomFor(&w->mem, c->to_client, len);
    if (!s) return -1;
    c->to_client = sdscatlen(&w->mem, s, buf, len);
    return (long)len;
}

static void _connMaybeFree(gkWorld *w, gkConn *c) {
    if (!c->client_closed || !c->server_closed) return;
    w->conns[c->id] = NULL;
    _connFree(w, c);
}

static void _beClose(void *ctx, int fd) {
    gkWorld *w = ctx;
    gkConn *c = worldConn(w, fd);
    if (!c) return;
    c->server_closed = 1;
    _connMaybeFree(w, c);
}

aeBackend worldBackend(gkWorld *w) {
    aeBackend be = { w, _bePoll, _beNow, _beRead, _beWrite, _beClose };
    return be;
}

/* Registers a node whose event loop runs on worldBackend(w), and schedules
 * its first timer. */
int worldAddNode(gkWorld *w, const gkNodeType *type, void *impl,
                 aeEventLoop *el, int *node_id) {
    if (w->nnodes == GK_MAX_NODES)
        return worldFail(w, GK_EINVAL, "too many nodes");
    int id = w->nnodes++;
    gkNode *n = &w->nodes[id];
    n->type = type;
    n->impl = impl;
    n->el = el;
    n->wake_seq = 0;
    uint64_t first = aeNextWake(el);
    if (first != AE_NEVER) worldWake(w, id, first);
    if (node_id) *node_id = id;
    return GK_OK;
}

static int _redisAccept(void *impl, int fd) {
    return createClient(impl, fd) ? C_OK : C_ERR;
}

static void _redisRelease(void *impl) { serverRelease(impl); }

static const gkNodeType redisNodeType = { "redis", _redisAccept,
                                          _redisRelease };

/* Adds a Redis-style server node. Its hash seed comes from the world's
 * PRNG, so the world's seed decides every bucket index. */
int gkServerAdd(gkWorld *w, int *node_id) {
    if (w->nnodes == GK_MAX_NODES)
        return worldFail(w, GK_EINVAL, "too many nodes");
    redisServer *s = serverCreate(&w->mem, w->nnodes, worldBackend(w),
                                  &w->rng, &w->trace, w->cfg.unix_ms_at_zero,
                                  w->cfg.heap_limit);
    return worldAddNode(w, &redisNodeType, s, s->el, node_id);
}

/* The Redis-style server of node, or NULL if node is not one. */
redisServer *worldServer(gkWorld *w, int node) {
    if (node < 0 || node >= w->nnodes) return NULL;
    if (w->nodes[node].type != &redisNodeType) return NULL;
    return w->nodes[node].impl;
}

/* Writes the value of a configuration parameter, as CONFIG GET shows it,
 * into buf. GK_ENOTFOUND for an unknown node or parameter. */
int gkServerConfigGet(gkWorld *w, int node, const char *name, char *buf,
                      size_t cap) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such node");
    if (serverConfigGet(s, name, buf, cap) != C_OK)
        return worldFail(w, GK_ENOTFOUND, "unknown configuration parameter");
    return GK_OK;
}

int gkServerConfigSet(gkWorld *w, int node, const char *name,
                      const char *value) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such node");
    sds err = NULL;
    if (serverConfigSet(s, name, value, &err) != C_OK) {
        worldFail(w, GK_EINVAL, err);
        sdsfree(&w->mem, err);
        return GK_EINVAL;
    }
    return GK_OK;
}

/* ---- Connections. ---- */

gkConn *worldConn(gkWorld *w, int id) {
    if (id < 0 || id >= w->nconns) return NULL;
    return w->conns[id];
}

/* Opens a connection to node; the server accepts it at once. */
int gkConnOpen(gkWorld *w, int node, int *conn_id) {
    if (node < 0 || node >= w->nnodes)
        return worldFail(w, GK_ENOTFOUND, "no such node");
    if (w->nconns == w->capconns) {
        int cap = w->capconns ? w->capconns * 2 : 8;
        gkConn **n = memTryRealloc(&w->mem, w->conns, sizeof(gkConn *) *
                                   (size_t)cap);
        if (!n) return worldFail(w, GK_ENOMEM, "out of memory");
        w->conns = n;
        w->capconns = cap;
    }
    gkConn *c = memCalloc(&w->mem, sizeof(*c));
    c->id = w->nconns++;
    c->node = node;
    c->to_server = sdsempty(&w->mem);
    c->to_client = sdsempty(&w->mem);
    w->conns[c->id] = c;
    if (w->nodes[node].type->accept(w->nodes[node].impl, c->id) != C_OK) {
        c->server_closed = 1;
        return worldFail(w, GK_ERR, "the node refused the connection");
    }
    if (conn_id) *conn_id = c->id;
    return GK_OK;
}

static gkConn *_hostConn(gkWorld *w, int conn) {
    gkConn *c = worldConn(w, conn);
    if (!c || c->client_closed) return NULL;
    return c;
}

/* Closes the host's end. The server reads end-of-stream and frees its
 * client on its next iteration. */
int gkConnClose(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    c->client_closed = 1;
    if (!c->server_closed) worldWake(w, c->node, w->now);
    _connMaybeFree(w, c);
    return GK_OK;
}

/* Queues bytes for the server; they are read on its next iteration, which
 * is scheduled now. GK_ECLOSED if the server closed the connection. */
int gkConnSend(gkWorld *w, int conn, const void *buf, size_t len) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    if (c->server_closed) return worldFail(w, GK_ECLOSED, "connection closed");
    sds s = sdsTryMakeRoomFor(&w->mem, c->to_server, len);
    if (!s) return worldFail(w, GK_ENOMEM, "out of memory");
    c->to_server = sdscatlen(&w->mem, s, buf, len);
    worldWake(w, c->node, w->now);
    return GK_OK;
}

size_t gkConnPending(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    return c ? sdslen(c->to_client) - c->to_client_pos : 0;
}

/* Copies up to cap reply bytes out; returns how many. */
size_t gkConnRecv(gkWorld *w, int conn, void *buf, size_t cap) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return 0;
    size_t avail = sdslen(c->to_client) - c->to_client_pos;
    if (cap > avail) cap = avail;
    memcpy(buf, c->to_client + c->to_client_pos, cap);
    c->to_client_pos += cap;
    if (c->to_client_pos == sdslen(c->to_client)) {
        sdsclear(c->to_client);
        c->to_client_pos = 0;
    }
    return cap;
}

/* 1 if open, 0 if the server closed it (its replies may still be read),
 * GK_ENOTFOUND if unknown or closed by the host. */
int gkConnIsOpen(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return GK_ENOTFOUND;
    return c->server_closed ? 0 : 1;
}
