/* world.c -- the simulated world: hosts, the network between them, and the
 * event queue that drives everything in virtual time.
 *
 * A host (a server node, or a client program such as a benchmark) never
 * runs on its own. It runs one event-loop iteration whenever the world
 * wakes it: when bytes arrive on one of its connections, or when its
 * nearest timer is due. Between wakes no time passes for it -- that is the
 * sleep in epoll_wait. During an iteration its clock moves with the CPU
 * time it spends: every system call and every command costs virtual
 * nanoseconds, and the bytes it writes leave at that moment. The other
 * hosts are other machines (or threads): they run in parallel, so an event
 * for them may be processed "before" a long iteration here has ended.
 *
 * The network: each connection is two pipes. A write puts bytes on the
 * link, which serializes them at its bandwidth; they arrive one latency
 * later in the receiver's kernel buffer, where the receiver's read finds
 * them. The sender can have only a window of bytes in flight or unread:
 * past it, its write would block (EAGAIN), as with full socket buffers. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "scanwalk.h"

/* Fills cfg with the defaults: seed 1, time zero at 2026-01-01T00:00:00Z,
 * no heap limit, room for 65536 trace records, every other field zero. */
void gkConfigInit(gkConfig *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->seed = 1;
    cfg->unix_ms_at_zero = 1767225600000LL;  /* 2026-01-01T00:00:00Z */
    cfg->heap_limit = 0;
    cfg->trace_capacity = 1u << 16;
}

/* The largest heap limit a world takes, 0 if there is none: where
 * pointers are 32 bits wide (WebAssembly), all the engine holds must fit
 * in 4 GB of linear memory -- the servers' data, and also the disk's files
 * (a rewrite can hold the dataset twice over), the client programs'
 * buffers and the allocator's own overhead -- so a server may hold at most
 * GK_HEAP_LIMIT_MAX_32 there. Natively the host's memory is the limit. */
size_t gkHeapLimitMax(void) {
    return sizeof(void *) == 4 ? GK_HEAP_LIMIT_MAX_32 : 0;
}

/* A short English name for a GK_* status, "unknown status" for any other
 * value. A static string; never NULL. */
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

/* Records msg (truncated to the error buffer) as the world's last error, if
 * w is not NULL, and returns status, so that a caller can write
 * `return worldFail(w, GK_EINVAL, "...")`. msg must not be NULL. */
int worldFail(gkWorld *w, int status, const char *msg) {
    if (w) {
        strncpy(w->err, msg, sizeof(w->err) - 1);
        w->err[sizeof(w->err) - 1] = '\0';
    }
    return status;
}

/* The message of the last failure a gk* call recorded ("" if none). The
 * buffer is the world's: the next failure overwrites it, and the pointer
 * lives until gkWorldRelease. */
const char *gkWorldLastError(gkWorld *w) { return w->err; }

/* Loopback costs measured on this kind of machine: see
 * tests/bench/calibrate.mjs and the table in tests/bench/calibration.json. */
static const gkSyscallCost defaultCost = { 7000, 15000, 1500, 100, 60 };

static uint64_t _traceNow(void *ctx) { return worldLocalNow(ctx); }

/* Creates a world with no nodes. The world itself is allocated with the
 * host's allocator (NULL means libc). GK_ENOMEM if that fails; GK_EINVAL
 * for a heap limit past gkHeapLimitMax(). A heap limit of 0 becomes that
 * maximum where there is one. */
int gkWorldCreate(gkWorld **out, const gkConfig *cfg, gkAllocFn alloc,
                  void *ud) {
    gkAllocFn fn = alloc ? alloc : memDefaultAlloc;
    *out = NULL;
    size_t ceiling = gkHeapLimitMax();
    if (ceiling && cfg->heap_limit > ceiling) return GK_EINVAL;
    gkWorld *w = fn(ud, NULL, 0, sizeof(*w));
    if (!w) return GK_ENOMEM;
    memset(w, 0, sizeof(*w));
    memInit(&w->mem, fn, ud);
    w->cfg = *cfg;
    if (w->cfg.heap_limit == 0) w->cfg.heap_limit = ceiling;
    w->running = -1;
    /* A loopback socket's buffers after Linux's autotuning: a few MB. */
    w->link_window = 4 * 1024 * 1024;
    rngSeed(&w->rng, cfg->seed);
    portsInit(&w->ports, cfg->seed);
    w->session.console_conn = w->session.control_conn = -1;
    w->session.lab = -1;
    w->session.mc_node = w->session.mc_conn = -1;
    for (int i = 0; i < GK_MAX_NODES; i++) {
        w->nodes[i].w = w;
        w->nodes[i].id = i;
    }
    if (traceInit(&w->trace, &w->mem, cfg->trace_capacity, _traceNow,
                  w) != GK_OK) {
        fn(ud, w, sizeof(*w), 0);
        return GK_ENOMEM;
    }
    *out = w;
    return GK_OK;
}

static void _pipeFree(gkWorld *w, gkPipe *p) {
    gkSegment *s = p->head;
    while (s) {
        gkSegment *next = s->next;
        memFree(&w->mem, s);
        s = next;
    }
    sdsfree(&w->mem, p->buf);
}

static void _connFree(gkWorld *w, gkConn *c) {
    _pipeFree(w, &c->up);
    _pipeFree(w, &c->down);
    memFree(&w->mem, c);
}

/* Frees the world and everything in it: nodes, their SCAN walks,
 * connections, events, the trace. NULL is a no-op; w is dead afterwards. */
void gkWorldRelease(gkWorld *w) {
    if (!w) return;
    for (int i = w->nnodes - 1; i >= 0; i--) {
        if (!w->nodes[i].type) continue;
        if (w->nodes[i].impl) w->nodes[i].type->release(w->nodes[i].impl);
        machineRelease(w, &w->nodes[i]);
        scanWalkRelease(w, &w->nodes[i]);
    }
    for (int i = 0; i < w->nconns; i++)
        if (w->conns[i]) _connFree(w, w->conns[i]);
    memFree(&w->mem, w->conns);
    portsFree(&w->ports, &w->mem);
    memFree(&w->mem, w->events);
    traceRelease(&w->trace, &w->mem);
    w->mem.fn(w->mem.ud, w, sizeof(*w), 0);
}

uint64_t gkWorldNow(gkWorld *w) { return w->now; }
size_t gkWorldMemory(gkWorld *w) { return w->mem.used; }
gkSession *gkWorldSession(gkWorld *w) { return &w->session; }

/* The time as seen by whoever is running: the running host's local clock
 * during an iteration, otherwise the time of the current event. */
uint64_t worldLocalNow(gkWorld *w) {
    if (w->running < 0) return w->now;
    gkNode *n = &w->nodes[w->running];
    return n->iter_start + (*n->cpu - n->cpu_at_start);
}

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
        if (l < n && _evLess(&w->events[l], best)) {
            m = l;
            best = &w->events[l];
        }
        if (r < n && _evLess(&w->events[r], best)) m = r;
        if (m == i) break;
        w->events[i] = w->events[m];
        i = m;
    }
    if (n) w->events[i] = last;
    return top;
}

static void _evSchedule(gkWorld *w, int kind, int target, uint64_t when) {
    gkEvent ev = { when, ++w->evseq, kind, target };
    _evPush(w, ev);
}

/* Queues an event; its seq is w->evseq afterwards. */
void worldSchedule(gkWorld *w, int kind, int target, uint64_t when) {
    _evSchedule(w, kind, target, when);
}

/* Makes sure node runs no later than when -- but not before it has
 * finished its previous iteration. A node has at most one live wake; an
 * earlier request replaces it (the old one goes stale). */
void worldWake(gkWorld *w, int node, uint64_t when) {
    gkNode *n = &w->nodes[node];
    if (n->down || !n->el || n->runnable) return;
    if (when < n->busy_until) when = n->busy_until;
    if (n->wake_seq && n->wake_at <= when) return;
    _evSchedule(w, EV_WAKE, node, when);
    n->wake_seq = w->evseq;
    n->wake_at = when;
}

static int _evStale(gkWorld *w, const gkEvent *ev) {
    if (ev->kind == EV_WAKE)
        return w->nodes[ev->target].wake_seq != ev->seq;
    if (ev->kind == EV_MACHINE)
        return w->nodes[ev->target].machine_seq != ev->seq;
    if (ev->kind == EV_CRASH)
        return w->nodes[ev->target].crash_seq != ev->seq;
    return 0;
}

static void _evSkipStale(gkWorld *w) {
    while (w->nevents && _evStale(w, &w->events[0])) _evPop(w);
}

/* The world's own loop: the time of the next live event, UINT64_MAX if
 * none is queued, the stale events (a wake, machine step or crash since
 * replaced) at the queue's head popped on the way. */
static uint64_t _nextEventTime(gkWorld *w) {
    _evSkipStale(w);
    return w->nevents ? w->events[0].when : UINT64_MAX;
}

/* Virtual time of the next live event, UINT64_MAX if none is queued.
 * Asking changes nothing: a stale event at the queue's head is looked
 * past, not popped, so that a host asking between two actions (every
 * snapshot does) leaves the world, its digest included, as it would be
 * had it not asked. */
uint64_t gkWorldNextEventTime(gkWorld *w) {
    if (!w->nevents) return UINT64_MAX;
    if (!_evStale(w, &w->events[0])) return w->events[0].when;
    uint64_t next = UINT64_MAX;
    for (size_t i = 1; i < w->nevents; i++)
        if (!_evStale(w, &w->events[i]) && w->events[i].when < next)
            next = w->events[i].when;
    return next;
}

/* ---- Pipes. ---- */

static size_t _pipeUnread(const gkPipe *p) { return sdslen(p->buf) - p->pos; }

/* Moves the segments that have arrived by `now` into the receive buffer. */
static void _pipeDeliver(gkWorld *w, gkPipe *p, uint64_t now) {
    while (p->head && p->head->arrive <= now) {
        gkSegment *s = p->head;
        p->buf = sdscatlen(&w->mem, p->buf, s->data, s->len);
        p->inflight -= s->len;
        p->head = s->next;
        if (!p->head) p->tail = NULL;
        memFree(&w->mem, s);
    }
}

/* Puts up to len bytes on the link at time now. Returns the bytes
 * accepted (fewer if the window is nearly full), or -1 if none fit. With
 * no latency and no bandwidth limit the bytes arrive at once -- at once
 * after `now`, that is, which for a node is its own clock: a node runs
 * an iteration ahead of the world's (it began at w->now and has spent CPU
 * since), and another node woken in between must not read what it has
 * not written yet. So only bytes that arrive by the world's time (the
 * host's, sent between events) go straight into the receiver's buffer;
 * the others travel as a segment delivered by an event at their time,
 * as bytes on a slower link do. */
static long _pipeWrite(gkWorld *w, gkConn *c, int down, const void *data,
                       size_t len, uint64_t now) {
    gkPipe *p = down ? &c->down : &c->up;
    if (p->window) {
        size_t used = p->inflight + _pipeUnread(p);
        if (used >= p->window) return -1;
        if (len > p->window - used) len = p->window - used;
    }
    if (len == 0) return 0;
    uint64_t depart = p->link_free > now ? p->link_free : now;
    if (p->bandwidth)
        depart += (uint64_t)len * 1000000000ULL / p->bandwidth;
    p->link_free = depart;
    uint64_t arrive = depart + p->latency;
    if (arrive <= w->now && !p->head) {
        sds b = sdsTryMakeRoomFor(&w->mem, p->buf, len);
        if (!b) return -2;
        p->buf = sdscatlen(&w->mem, b, data, len);
    } else {
        gkSegment *s = memTryAlloc(&w->mem, sizeof(*s) + len);
        if (!s) return -2;
        s->next = NULL;
        s->arrive = arrive;
        s->len = len;
        memcpy(s->data, data, len);
        if (p->tail) p->tail->next = s;
        else p->head = s;
        p->tail = s;
        p->inflight += len;
        _evSchedule(w, EV_DELIVER, c->id * 2 + down, arrive);
        return (long)len;
    }
    int receiver = down ? c->client_node : c->node;
    if (receiver >= 0) worldWake(w, receiver, now);
    return (long)len;
}

static long _pipeRead(gkPipe *p, void *buf, size_t len) {
    size_t avail = _pipeUnread(p);
    if (avail == 0) return (p->eof && !p->head) ? 0 : -1;
    if (len > avail) len = avail;
    memcpy(buf, p->buf + p->pos, len);
    p->pos += len;
    if (p->pos == sdslen(p->buf)) {
        sdsclear(p->buf);
        p->pos = 0;
    }
    return (long)len;
}

static int _pipeReadable(const gkPipe *p) {
    return _pipeUnread(p) > 0 || (p->eof && !p->head);
}

static int _pipeHasRoom(const gkPipe *p) {
    return !p->window || p->inflight + _pipeUnread(p) < p->window;
}

static void _deliver(gkWorld *w, int target) {
    gkConn *c = worldConn(w, target / 2);
    if (!c) return;
    int down = target % 2;
    _pipeDeliver(w, down ? &c->down : &c->up, w->now);
    int receiver = down ? c->client_node : c->node;
    if (receiver >= 0) worldWake(w, receiver, w->now);
}

/* ---- The backend the hosts run on: ctx is the gkNode. ---- */

/* The pipe node reads from on connection fd (NULL if not its end). */
static gkPipe *_inPipe(gkNode *n, gkConn *c) {
    if (!c) return NULL;
    if (c->node == n->id && !c->server_closed) return &c->up;
    if (c->client_node == n->id && !c->client_closed) return &c->down;
    return NULL;
}

/* The pipe node writes to on connection fd. */
static gkPipe *_outPipe(gkNode *n, gkConn *c) {
    return c->node == n->id ? &c->down : &c->up;
}

/* Whether the pipe's window is full: its writer's next write would block
 * (EAGAIN), so a writer with more to send waits for a writable event. */
static int _pipeFull(const gkPipe *p) { return !_pipeHasRoom(p); }

/* A reader took bytes from pipe `down` of c, whose window was full before
 * the read (was_full): the writer, blocked, may go on, so it is woken, as
 * the kernel wakes a process waiting for EPOLLOUT. A read from a pipe that
 * had room wakes nobody: its writer was never held back, and waking it
 * would cost it an epoll_wait and a loop iteration that redis-server does
 * not spend (one client without a pipeline costs it one epoll_wait, one
 * read and one write per command under strace). */
static void _roomMade(gkWorld *w, gkConn *c, int down, int was_full) {
    int writer = down ? c->node : c->client_node;
    if (was_full && writer >= 0) worldWake(w, writer, worldLocalNow(w));
}

static void _charge(gkNode *n, uint64_t ns) { *n->cpu += ns; }

static uint64_t _beNow(void *ctx) { return worldLocalNow(((gkNode *)ctx)->w); }

static int _bePoll(void *ctx, aeEventLoop *el, aeFiredEvent *fired, int max) {
    gkNode *n = ctx;
    int count = 0;
    if (machineCrashPoint(n->w, n, 0)) return 0;
    for (int fd = 0; fd <= el->maxfd && count < max; fd++) {
        int mask = aeGetFileEvents(el, fd), ready = 0;
        gkConn *c = worldConn(n->w, fd);
        gkPipe *in = _inPipe(n, c);
        if (!in || c->unanswered) continue;
        if ((mask & AE_READABLE) && _pipeReadable(in)) ready |= AE_READABLE;
        if ((mask & AE_WRITABLE) && _pipeHasRoom(_outPipe(n, c)))
            ready |= AE_WRITABLE;
        if (ready) {
            fired[count].fd = fd;
            fired[count].mask = ready;
            count++;
        }
    }
    uint64_t t0 = worldLocalNow(n->w);
    _charge(n, n->cost.poll_ns + (uint64_t)count * n->cost.poll_event_ns);
    n->stats.polls++;
    TRACE(&n->w->trace, GK_TR_SYSCALL, (uint16_t)n->id, GK_SYS_POLL,
          (uint32_t)-1, (uint32_t)count, worldLocalNow(n->w) - t0);
    return count;
}

static long _beRead(void *ctx, int fd, void *buf, size_t len) {
    gkNode *n = ctx;
    if (machineCrashPoint(n->w, n, 0)) return -1;
    gkConn *c = worldConn(n->w, fd);
    gkPipe *in = _inPipe(n, c);
    if (!in) return 0;
    int was_full = _pipeFull(in);
    long r = _pipeRead(in, buf, len);
    if (r > 0) _roomMade(n->w, c, in == &c->down, was_full);
    uint64_t t0 = worldLocalNow(n->w);
    _charge(n, n->cost.read_ns +
               (r > 0 ? (uint64_t)r * n->cost.ns_per_kb / 1024 : 0));
    n->stats.reads++;
    if (r > 0) n->stats.bytes_read += (uint64_t)r;
    TRACE(&n->w->trace, GK_TR_SYSCALL, (uint16_t)n->id, GK_SYS_READ,
          (uint32_t)fd, r > 0 ? (uint32_t)r : 0, worldLocalNow(n->w) - t0);
    return r;
}

/* The bytes leave when the call returns, after its cost. */
static long _beWrite(void *ctx, int fd, const void *buf, size_t len) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    gkConn *c = worldConn(w, fd);
    if (machineCrashPoint(w, n, 0)) return (long)len;   /* never sent */
    if (!_inPipe(n, c)) return (long)len;          /* peer gone: dropped */
    int down = c->node == n->id;
    gkPipe *out = down ? &c->down : &c->up;
    if ((down && c->client_closed) || (!down && c->server_closed))
        return (long)len;
    uint64_t t0 = worldLocalNow(w);
    size_t want = len;
    if (out->window) {
        size_t used = out->inflight + _pipeUnread(out);
        size_t room = used >= out->window ? 0 : out->window - used;
        if (want > room) want = room;
    }
    _charge(n, n->cost.write_ns + (uint64_t)want * n->cost.ns_per_kb / 1024);
    long r = want ? _pipeWrite(w, c, down, buf, want, worldLocalNow(w)) : -1;
    n->stats.writes++;
    if (r > 0) n->stats.bytes_written += (uint64_t)r;
    TRACE(&w->trace, GK_TR_SYSCALL, (uint16_t)n->id, GK_SYS_WRITE,
          (uint32_t)fd, r > 0 ? (uint32_t)r : 0, worldLocalNow(w) - t0);
    return r;
}

static void _beClose(void *ctx, int fd) {
    gkNode *n = ctx;
    gkConn *c = worldConn(n->w, fd);
    if (!c) return;
    worldConnClose(n->w, c, c->client_node == n->id);
}

static gkConn *_connNew(gkWorld *w, int client_node, int server_node);

/* Whether host is a name or address of the one machine every node of
 * the world runs on (its clients are 127.0.0.1 too). */
static int _isThisHost(const char *host) {
    return !strncmp(host, "127.", 4) || !strcmp(host, "localhost") ||
           !strcmp(host, "::1");
}

/* Whether host is an IPv4 address in dotted form. */
static int _isIpv4(const char *host) {
    int dots = 0, digits = 0;
    for (const char *p = host; *p; p++) {
        if (*p == '.') {
            if (!digits) return 0;
            dots++;
            digits = 0;
        } else if (*p >= '0' && *p <= '9' && digits < 3) {
            digits++;
        } else {
            return 0;
        }
    }
    return dots == 3 && digits;
}

/* The dotted IPv4 address host (checked by _isIpv4) as a number. */
static uint32_t _ipv4(const char *host) {
    uint32_t a = 0, part = 0;
    for (const char *p = host;; p++) {
        if (*p >= '0' && *p <= '9') {
            part = part * 10 + (uint32_t)(*p - '0');
        } else {
            a = (a << 8) | (part & 0xff);
            part = 0;
            if (!*p) break;
        }
    }
    return a;
}

static void _connDrop(gkWorld *w, gkConn *c);

/* aeBackend.connect: a node's own connection to host:port (a replica to
 * its master). Every node is on one machine, 127.0.0.1: the node
 * listening on port accepts at once, as on loopback, and with no node
 * listening the connection is refused, which connectError tells once the
 * descriptor turns writable (redis-server logs "Error condition on
 * socket for SYNC: Connection refused"). An address of another machine
 * is one nobody answers: the connection never completes, and the
 * replica's repl-timeout ends it. A name that resolves to nothing fails
 * at once, with the error redis-server 7.0.15 logs for it here. */
static int _beConnect(void *ctx, const char *host, int port, char *err,
                      size_t errlen) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    _charge(n, n->cost.write_ns);
    if (!_isThisHost(host) && !_isIpv4(host)) {
        snprintf(err, errlen, "Resource temporarily unavailable");
        return -1;
    }
    int target = _isThisHost(host) ? worldListener(w, port) : -1;
    int id;
    /* A listener that refuses, or no port left: the same port search
     * below fails again, or the connection is refused. */
    if (target >= 0 && worldConnect(w, n->id, target, &id) == GK_OK)
        return id;
    gkConn *c = _connNew(w, n->id, -1);
    if (!c) {
        snprintf(err, errlen, "Cannot allocate memory");
        return -1;
    }
    uint32_t daddr = _isThisHost(host) ? PORTS_LOOPBACK : _ipv4(host);
    if (portsConnect(w, c, daddr, port, 1) != GK_OK) {
        _connDrop(w, c);
        snprintf(err, errlen, "Cannot assign requested address");
        return -1;
    }
    c->server_closed = 1;
    if (_isThisHost(host)) {
        /* The RST frees the port at once. */
        portsRelease(w, c);
        c->refused = 1;
        c->down.eof = 1;
    } else {
        c->unanswered = 1;
    }
    return c->id;
}

/* aeBackend.connectError: 0 once a connection is made, -1 if refused. */
static int _beConnectError(void *ctx, int fd, char *err, size_t errlen) {
    gkNode *n = ctx;
    gkConn *c = worldConn(n->w, fd);
    if (c && !c->refused && !c->unanswered) return 0;
    snprintf(err, errlen, "Connection refused");
    return -1;
}

static void _bePump(void *ctx);

/* getsockname/getpeername of a node's end of connection fd: every node is
 * on 127.0.0.1; a server's end has the port it listens on, a client's end
 * the local port its connect took (ports.c). 1 (TCP), or 0 if the
 * connection holds no port. */
static int _beSockName(void *ctx, int fd, int remote, char *buf,
                       size_t len) {
    gkNode *n = ctx;
    gkConn *c = worldConn(n->w, fd);
    if (!c || !c->lport) return 0;
    int server_end = c->node == n->id;
    int port = server_end == !remote ? c->dport : c->lport;
    snprintf(buf, len, "127.0.0.1:%d", port);
    return 1;
}

static aeBackend _nodeBackend(gkNode *n) {
    aeBackend be = { n, _bePoll, _beNow, _beRead, _beWrite, _beClose };
    be.sockName = _beSockName;
    be.pump = _bePump;
    be.connect = _beConnect;
    be.connectError = _beConnectError;
    return be;
}

/* The backend of node id (a restarted process gets its node's). */
aeBackend worldNodeBackend(gkWorld *w, int id) {
    return _nodeBackend(&w->nodes[id]);
}

/* Runs host code (a CONFIG SET, a startup) as the node's main thread: its
 * clock moves with the CPU the code uses. Pair with worldLeaveNode. */
void worldEnterNode(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    n->iter_start = n->busy_until > w->now ? n->busy_until : w->now;
    n->cpu_at_start = *n->cpu;
    w->running = id;
}

/* Ends what worldEnterNode began: the node stays busy until its local
 * clock, and its next timer and machine work are scheduled, unless the
 * node is dying (a scheduled crash fell due while it ran). */
void worldLeaveNode(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    n->busy_until = worldLocalNow(w);
    w->running = -1;
    if (n->dying) return;
    if (n->el) worldWake(w, id, aeNextWake(n->el));
    machineSchedule(w, id);
}

/* The lowest id no host has, or -1 if the world is full. Hosts usually
 * take ids in the order they are added; a host added at a chosen id
 * (worldAddNodeAt) leaves the ids below it to the next ones. */
int worldFreeNode(gkWorld *w) {
    for (int i = 0; i < GK_MAX_NODES; i++)
        if (!w->nodes[i].type) return i;
    return -1;
}

/* The backend for the next node to be added: create its event loop with
 * this, then call worldAddNode. */
aeBackend worldBackend(gkWorld *w) {
    int id = worldFreeNode(w);
    return _nodeBackend(&w->nodes[id >= 0 ? id : 0]);
}

/* Fills *env with what a host built at id is given (world.h). The seed
 * mixes the world's seed, the id and the processes the host has had, so
 * a host started anew draws other numbers, and the same ones in every
 * replay. */
void worldHostEnv(gkWorld *w, int id, gkHostEnv *env) {
    gkRng r;
    rngSeed(&r, w->cfg.seed ^ 0x686f737400000000ULL ^
                ((uint64_t)id << 24) ^ (uint64_t)w->nodes[id].generation);
    env->id = id;
    env->backend = _nodeBackend(&w->nodes[id]);
    env->alloc = w->mem.fn;
    env->alloc_ud = w->mem.ud;
    env->trace = &w->trace;
    env->unix_ms_at_zero = w->cfg.unix_ms_at_zero;
    env->seed = rngNext(&r);
}

/* Registers a host at id, which no host may have yet, and schedules its
 * first timer. Its event loop runs on id's backend. GK_EINVAL if id is
 * out of range or taken. */
int worldAddNodeAt(gkWorld *w, int id, const gkNodeType *type, void *impl,
                   aeEventLoop *el) {
    if (id < 0 || id >= GK_MAX_NODES)
        return worldFail(w, GK_EINVAL, "too many nodes");
    gkNode *n = &w->nodes[id];
    if (n->type) return worldFail(w, GK_EINVAL, "the host id is taken");
    if (id >= w->nnodes) w->nnodes = id + 1;
    n->type = type;
    n->cost = defaultCost;
    n->busy_until = w->now;
    worldNodeResume(w, id, impl, el);
    return GK_OK;
}

/* Registers a host whose event loop was created on worldBackend(w) at the
 * lowest free id, and schedules its first timer. */
int worldAddNode(gkWorld *w, const gkNodeType *type, void *impl,
                 aeEventLoop *el, int *node_id) {
    int id = worldFreeNode(w);
    int st = worldAddNodeAt(w, id, type, impl, el);
    if (st == GK_OK && node_id) *node_id = id;
    return st;
}

/* The type of host id, NULL if no host has that id. */
const gkNodeType *worldNodeKind(gkWorld *w, int id) {
    return id >= 0 && id < w->nnodes ? w->nodes[id].type : NULL;
}

/* The process of host id if the host is of this type and runs one, else
 * NULL. */
void *worldNodeImpl(gkWorld *w, int id, const gkNodeType *type) {
    if (!type || worldNodeKind(w, id) != type) return NULL;
    return w->nodes[id].impl;
}

/* Ends the process of host id (released by its type: its connections
 * close) and keeps the host, its id, counters and clock, for a new
 * process that worldNodeResume puts in its place. */
void worldNodeStop(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    worldCpuDrop(w, id, n->busy_until > w->now ? n->busy_until : w->now);
    if (n->impl) n->type->release(n->impl);
    n->impl = NULL;
    n->el = NULL;
    n->wake_seq = 0;
    n->generation++;
}

/* Puts a process (impl, its event loop el) on host id, whose type it has,
 * and schedules its first timer. */
void worldNodeResume(gkWorld *w, int id, void *impl, aeEventLoop *el) {
    gkNode *n = &w->nodes[id];
    n->impl = impl;
    n->el = el;
    el->backend = _nodeBackend(n);
    n->cpu = n->type->cpu ? n->type->cpu(impl) : &n->own_cpu;
    if (n->busy_until < w->now) n->busy_until = w->now;
    uint64_t first = aeNextWake(el);
    if (first != AE_NEVER) worldWake(w, id, first);
}

/* When host id runs next: its pending wake-up, or now if none is due
 * later. */
uint64_t worldNodeWakeAt(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    return n->wake_seq && n->wake_at > w->now ? n->wake_at : w->now;
}

/* Opens an account of memory over the world's allocator that is no host's
 * and not the world's (gkWorldMemory does not count it): buffers a call
 * holds only while it runs. */
void worldScratchMem(gkWorld *w, gkMem *m) {
    memInit(m, w->mem.fn, w->mem.ud);
}

/* ---- Running. ---- */

/* Whether the node has input waiting on a connection it reads, or output
 * waiting behind a writable handler: then it must run again at once. */
static int _nodeHasWork(gkNode *n) {
    aeEventLoop *el = n->el;
    for (int fd = 0; fd <= el->maxfd; fd++) {
        int mask = aeGetFileEvents(el, fd);
        gkConn *c = worldConn(n->w, fd);
        gkPipe *in = _inPipe(n, c);
        if (!in) continue;
        if ((mask & AE_WRITABLE) && _pipeHasRoom(_outPipe(n, c))) return 1;
        if ((mask & AE_READABLE) && _pipeReadable(in)) return 1;
    }
    return 0;
}

/* ---- Sharing the CPUs. ----
 *
 * By default every host runs on a CPU of its own: hosts go on in parallel
 * however many there are. gkWorldSetCpus gives the machine a number of
 * CPUs instead, shared by every host of the world (they are all on one
 * machine, 127.0.0.1: servers, client programs, redis-cli), scheduled as
 * Linux's scheduler does it in the large:
 *   - a host that wakes (its timer, bytes arriving) takes an idle CPU and
 *     runs after sched_wake, the time a sleeping process takes to be
 *     running again (the wake-up, the CPU leaving its idle state);
 *   - with no CPU idle it waits in the run queue, oldest first;
 *   - a host keeps its CPU while it has work; once others wait and its
 *     slice is over (CFS's minimum granularity, 0.75 ms times 1 + log2 of
 *     the CPUs), it goes to the back of the queue; a host with nothing
 *     left to do gives its CPU up at once; the next in the queue has it
 *     after sched_switch, a context switch.
 * Simplified: a host is never preempted inside an event-loop iteration
 * (an iteration is one step of the simulation), the queue is one queue
 * for all CPUs, every process has the same weight, and the processes'
 * threads (bio, a forked child) run on CPUs of their own. */

static uint64_t _schedSlice(int cpus) {
    int log2 = 0;
    while ((cpus >> (log2 + 1)) > 0) log2++;
    return 750000ULL * (uint64_t)(1 + log2);
}

int gkWorldSetCpus(gkWorld *w, int cpus, uint64_t wake_ns,
                   uint64_t switch_ns) {
    if (cpus < 0 || cpus > GK_MAX_CPUS)
        return worldFail(w, GK_EINVAL, "cpus must be 0 to 64");
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].on_cpu || w->nodes[i].runnable)
            return worldFail(w, GK_EINVAL,
                             "the CPUs cannot change while hosts use them");
    w->cpus = cpus;
    w->sched_slice = cpus ? _schedSlice(cpus) : 0;
    w->sched_wake = wake_ns;
    w->sched_switch = switch_ns;
    for (int c = 0; c < GK_MAX_CPUS; c++) {
        w->cpu_node[c] = -1;
        w->cpu_free[c] = 0;
    }
    return GK_OK;
}

/* Host id has CPU c from `at` (its slice starts then), and is woken then
 * unless the caller runs it now. */
static void _cpuGive(gkWorld *w, int c, int id, uint64_t at, int run_now) {
    gkNode *n = &w->nodes[id];
    w->cpu_node[c] = id;
    n->on_cpu = c + 1;
    n->slice_end = at + w->sched_slice;
    if (run_now) return;
    if (n->busy_until < at) n->busy_until = at;
    n->wake_seq = 0;
    worldWake(w, id, at);
}

static void _runqPush(gkWorld *w, gkNode *n) {
    n->runnable = 1;
    w->runq[w->runq_len++] = n->id;
    n->wake_seq = 0;
}

/* Host n leaves its CPU at `at`: the oldest host waiting has it next. */
static void _cpuLeave(gkWorld *w, gkNode *n, uint64_t at) {
    if (!n->on_cpu) return;
    int c = n->on_cpu - 1;
    n->on_cpu = 0;
    w->cpu_node[c] = -1;
    w->cpu_free[c] = at;
    if (!w->runq_len) return;
    int next = w->runq[0];
    memmove(w->runq, w->runq + 1, sizeof(int) * (size_t)--w->runq_len);
    gkNode *m = &w->nodes[next];
    m->runnable = 0;
    uint64_t start = at + w->sched_switch;
    _cpuGive(w, c, next, start, 0);
}

/* Host id's process is gone (a crash, a restart): off its CPU and out of
 * the queue. */
void worldCpuDrop(gkWorld *w, int id, uint64_t at) {
    gkNode *n = &w->nodes[id];
    if (n->runnable) {
        int j = 0;
        for (int i = 0; i < w->runq_len; i++)
            if (w->runq[i] != id) w->runq[j++] = w->runq[i];
        w->runq_len = j;
        n->runnable = 0;
    }
    _cpuLeave(w, n, at);
}

/* A host woken now without a CPU: it takes an idle one (and runs after
 * the wake-up), or waits in the queue. 1 if it may run now. */
static int _cpuTake(gkWorld *w, gkNode *n) {
    if (n->on_cpu) return 1;
    if (n->runnable) return 0;
    /* The CPU left first (an iteration that ran ahead of the world's
     * clock leaves its CPU at its end). */
    int best = -1;
    for (int c = 0; c < w->cpus; c++)
        if (w->cpu_node[c] < 0 &&
            (best < 0 || w->cpu_free[c] < w->cpu_free[best]))
            best = c;
    if (best < 0) {
        _runqPush(w, n);
        return 0;
    }
    uint64_t start = w->now + w->sched_wake;
    if (w->cpu_free[best] + w->sched_switch > start)
        start = w->cpu_free[best] + w->sched_switch;
    _cpuGive(w, best, n->id, start, start <= w->now);
    return start <= w->now;
}

/* After an iteration that ended at busy_until: a host with nothing to do
 * gives its CPU up; one with work keeps it, unless others wait and its
 * slice is over. 1 if it was put back in the queue. */
static int _cpuAfter(gkWorld *w, gkNode *n, int has_work) {
    if (has_work && (!w->runq_len || n->busy_until < n->slice_end))
        return 0;
    _cpuLeave(w, n, n->busy_until);
    if (!has_work) return 0;
    _runqPush(w, n);
    return 1;
}

static void _runNode(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    n->wake_seq = 0;
    if (n->down) return;
    if (w->cpus && !_cpuTake(w, n)) return;
    n->iter_start = w->now;
    n->cpu_at_start = *n->cpu;
    w->running = id;
    n->in_iteration = 1;
    TRACE(&w->trace, GK_TR_LOOP, (uint16_t)id, GK_LOOP_BEGIN, 0, 0,
          n->el->iterations);
    aeProcessEvents(n->el);
    n->in_iteration = 0;
    TRACE(&w->trace, GK_TR_LOOP, (uint16_t)id, GK_LOOP_END, 0, 0,
          n->el->iterations);
    n->busy_until = worldLocalNow(w);
    n->stats.iterations++;
    w->running = -1;
    if (n->dying) {                 /* killed during the iteration */
        machineCrash(w, id);
        return;
    }
    int work = _nodeHasWork(n);
    if (w->cpus && _cpuAfter(w, n, work)) {
        machineObserve(w, id, n->busy_until);
        machineSchedule(w, id);
        return;
    }
    uint64_t next = work ? n->busy_until : aeNextWake(n->el);
    if (next != AE_NEVER) worldWake(w, id, next);
    machineObserve(w, id, n->busy_until);
    machineSchedule(w, id);
}

/* Processes the earliest event. GK_ENOTFOUND if the queue is empty.
 * next_time, if given, receives the time processed. */
static void _evRun(gkWorld *w, gkEvent ev) {
    if (ev.kind == EV_WAKE) {
        _runNode(w, ev.target);
    } else if (ev.kind == EV_MACHINE) {
        w->nodes[ev.target].machine_seq = 0;
        machineAdvance(w, ev.target, w->now);
        machineObserve(w, ev.target, w->now);
        machineSchedule(w, ev.target);
    } else if (ev.kind == EV_CRASH) {
        machineCrashEvent(w, ev.target, ev.seq);
    } else {
        _deliver(w, ev.target);
    }
}

int gkWorldStep(gkWorld *w, uint64_t *next_time) {
    _evSkipStale(w);
    if (!w->nevents) return GK_ENOTFOUND;
    gkEvent ev = _evPop(w);
    w->now = ev.when;
    if (next_time) *next_time = w->now;
    _evRun(w, ev);
    return GK_OK;
}

/* The running node is held inside one iteration (a busy script): every
 * event due by its clock happens now -- segments arrive, other hosts run
 * their iterations -- except those of a node inside an iteration (this
 * one, and the one whose busy script ran this, if any). Such a node's
 * wake is spent (it is running, and looks for work when its iteration
 * ends); its disk, threads and a scheduled crash wait for the end of the
 * iteration, as they always do. Then the host has its turn, if it polls
 * (worldSetHostPoll), with the world's clock at the node's. */
static void _bePump(void *ctx) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    int self = n->id;
    uint64_t until = worldLocalNow(w);
    gkEvent held[8];
    int nheld = 0;
    for (;;) {
        _evSkipStale(w);
        if (!w->nevents || w->events[0].when > until) break;
        gkEvent ev = _evPop(w);
        if (ev.kind != EV_DELIVER && w->nodes[ev.target].in_iteration) {
            if (ev.kind == EV_WAKE) {
                w->nodes[ev.target].wake_seq = 0;
                continue;
            }
            if (nheld == (int)(sizeof held / sizeof held[0])) {
                _evPush(w, ev);
                break;
            }
            held[nheld++] = ev;
            continue;
        }
        if (ev.when > w->now) w->now = ev.when;
        w->running = -1;
        _evRun(w, ev);
        w->running = self;
    }
    for (int i = 0; i < nheld; i++) _evPush(w, held[i]);
    if (w->host_poll && !w->host_polling) {
        uint64_t was = w->now;
        w->now = until;
        w->host_polling = 1;
        w->host_poll(w, w->host_poll_ctx, until);
        w->host_polling = 0;
        w->now = was;
    }
}

void worldSetHostPoll(gkWorld *w, gkHostPoll fn, void *ctx) {
    w->host_poll = fn;
    w->host_poll_ctx = ctx;
}

/* Runs every event due at or before time_ns, then sets the clock to it. */
int gkWorldRunUntil(gkWorld *w, uint64_t time_ns) {
    while (_nextEventTime(w) <= time_ns)
        if (gkWorldStep(w, NULL) != GK_OK) break;
    if (time_ns > w->now && time_ns != UINT64_MAX) w->now = time_ns;
    return GK_OK;
}

/* Whether a connection opened by the host still has work in progress:
 * bytes in flight either way, a request not yet read by the server, or a
 * reply the server has not finished writing. A reply in flight counts
 * even when the server has closed its end since: it was written before
 * the close and reaches the host before the end of the stream does. */
static int _hostIoPending(gkWorld *w) {
    for (int i = 0; i < w->nconns; i++) {
        gkConn *c = w->conns[i];
        if (!c || c->client_node != -1 || c->client_closed) continue;
        if (c->down.head) return 1;
        if (c->server_closed) continue;
        if (c->up.head) return 1;
        if (_pipeReadable(&c->up)) return 1;
        if (aeGetFileEvents(w->nodes[c->node].el, c->id) & AE_WRITABLE)
            return 1;
    }
    return 0;
}

/* Runs what is due now, then keeps going -- moving the clock -- until the
 * host's connections are quiet: everything sent has been read and
 * answered, and every reply has arrived. A command typed at a console
 * therefore takes the virtual time its round trip really takes. */
int gkWorldRunUntilIdle(gkWorld *w) {
    for (;;) {
        uint64_t next = _nextEventTime(w);
        if (next == UINT64_MAX) break;
        if (next > w->now && !_hostIoPending(w)) break;
        if (gkWorldStep(w, NULL) != GK_OK) break;
    }
    return GK_OK;
}

/* ---- Redis-style server nodes. ---- */

static int _redisAccept(void *impl, int fd) {
    return createClient(impl, fd) ? C_OK : C_ERR;
}

static void _redisRelease(void *impl) { serverRelease(impl); }

static uint64_t *_redisCpu(void *impl) {
    return &((redisServer *)impl)->denv.cpu_ns;
}

static uint64_t _redisChildNext(void *impl) { return serverChildNext(impl); }

static void _redisChildRun(void *impl, uint64_t t) { serverChildRun(impl, t); }

static int _redisPort(void *impl) { return ((redisServer *)impl)->port; }

static const gkNodeType redisNodeType = { "redis", _redisAccept,
                                          _redisRelease, _redisCpu,
                                          _redisChildNext, _redisChildRun,
                                          _redisPort };

/* Redis-style nodes are created in machine.c (gkServerAdd): their hash
 * seed comes from the world's PRNG, so the seed decides every bucket. */
const gkNodeType *worldRedisNodeType(void) { return &redisNodeType; }

/* 1 if node exists and is a Redis-style node (whether its process is up or
 * down), else 0. */
int worldIsRedisNode(gkWorld *w, int node) {
    return node >= 0 && node < w->nnodes &&
           w->nodes[node].type == &redisNodeType;
}

/* The Redis-style server of node, or NULL if node is not one or its
 * process is down. */
redisServer *worldServer(gkWorld *w, int node) {
    if (!worldIsRedisNode(w, node) || w->nodes[node].down) return NULL;
    return w->nodes[node].impl;
}

/* CONFIG SET name value on node, run as its main thread (the CPU it takes
 * moves its clock). GK_ENOTFOUND if node is not a running Redis node;
 * GK_EINVAL with the server's message as the last error if the parameter
 * or value is refused. A scheduled crash that falls due while the setting
 * runs takes effect before this returns. */
int gkServerConfigSet(gkWorld *w, int node, const char *name,
                      const char *value) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such node");
    sds err = NULL;
    worldEnterNode(w, node);
    int st = serverConfigSet(s, name, value, &err);
    worldLeaveNode(w, node);
    if (w->nodes[node].dying) machineCrash(w, node);
    if (st != C_OK) {
        worldFail(w, GK_EINVAL, err);
        sdsfree(&w->mem, err);
        return GK_EINVAL;
    }
    return GK_OK;
}

int gkServerSetScriptTimeBox(gkWorld *w, int node, int32_t ms,
                             gkBool console_can_kill) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such node");
    if (ms < 0) return worldFail(w, GK_EINVAL, "negative time box");
    s->script_time_box_ms = ms;
    s->script_box_killable = console_can_kill ? 1 : 0;
    return GK_OK;
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

/* ---- Connections. ---- */

gkConn *worldConn(gkWorld *w, int id) {
    if (id < 0 || id >= w->nconns) return NULL;
    return w->conns[id];
}

static void _pipeInit(gkWorld *w, gkPipe *p) {
    memset(p, 0, sizeof(*p));
    p->latency = w->link_latency;
    p->bandwidth = w->link_bandwidth;
    p->window = w->link_window;
    p->buf = sdsempty(&w->mem);
}

/* A new connection from client_node (-1: the host) to server_node (-1:
 * none, a refused connection), with the world's default links; NULL if
 * memory ran out. */
static gkConn *_connNew(gkWorld *w, int client_node, int server_node) {
    /* The lowest free id, as the kernel hands out the lowest free
     * descriptor: tables indexed by id stay as small as the number of
     * connections open at once. */
    int id = w->conn_free;
    while (id < w->nconns && w->conns[id]) id++;
    if (id == w->nconns && w->nconns == w->capconns) {
        int cap = w->capconns ? w->capconns * 2 : 8;
        gkConn **n = memTryRealloc(&w->mem, w->conns, sizeof(gkConn *) *
                                   (size_t)cap);
        if (!n) return NULL;
        w->conns = n;
        w->capconns = cap;
    }
    gkConn *c = memCalloc(&w->mem, sizeof(*c));
    c->id = id;
    w->conn_free = id + 1;
    if (id == w->nconns) w->nconns++;
    c->node = server_node;
    c->client_node = client_node;
    c->lport_next = -1;
    _pipeInit(w, &c->up);
    _pipeInit(w, &c->down);
    w->conns[c->id] = c;
    return c;
}

/* Takes a connection that never got going out of the table. */
static void _connDrop(gkWorld *w, gkConn *c) {
    portsRelease(w, c);
    w->conns[c->id] = NULL;
    if (c->id < w->conn_free) w->conn_free = c->id;
    _connFree(w, c);
}

/* The port the process of host id listens on, 0 if it listens on none
 * (a client program, a process that is down). */
int worldNodePort(gkWorld *w, int id) {
    if (id < 0 || id >= w->nnodes) return 0;
    gkNode *n = &w->nodes[id];
    if (!n->type || !n->type->port || n->down || !n->impl) return 0;
    return n->type->port(n->impl);
}

/* Whether the client end of a connection from client_node sets
 * SO_REUSEADDR: a Redis-style node's own connections do (Redis's anet
 * sets it on every socket it connects), a client program's and the
 * host's do not (hiredis 1.x, redis-cli and redis-benchmark do not). */
static int _reuseAddr(gkWorld *w, int client_node) {
    return client_node >= 0 && worldIsRedisNode(w, client_node);
}

/* Connects client_node (-1: the host) to server_node, which accepts at
 * once. The client end takes a local port first, as connect() does
 * (ports.c); GK_ERR "Cannot assign requested address" if none is left.
 * The links get the world's default latency and bandwidth. */
int worldConnect(gkWorld *w, int client_node, int server_node, int *conn_id) {
    if (server_node < 0 || server_node >= w->nnodes ||
        !w->nodes[server_node].type)
        return worldFail(w, GK_ENOTFOUND, "no such node");
    gkConn *c = _connNew(w, client_node, server_node);
    if (!c) return worldFail(w, GK_ENOMEM, "out of memory");
    if (portsConnect(w, c, PORTS_LOOPBACK, worldNodePort(w, server_node),
                     _reuseAddr(w, client_node)) != GK_OK) {
        _connDrop(w, c);
        return worldFail(w, GK_ERR, "Cannot assign requested address");
    }
    gkNode *n = &w->nodes[server_node];
    if (n->down || !n->impl || n->type->accept(n->impl, c->id) != C_OK) {
        c->server_closed = 1;
        worldConnClose(w, c, 1);
        return worldFail(w, GK_ERR, "the node refused the connection");
    }
    if (conn_id) *conn_id = c->id;
    return GK_OK;
}

/* Opens a connection from the host to node. The host reads replies only
 * between runs, so its end never applies back-pressure: the server's
 * writes to it are never held back by a full window. */
int gkConnOpen(gkWorld *w, int node, int *conn_id) {
    int id, st = worldConnect(w, -1, node, &id);
    if (st != GK_OK) return st;
    w->conns[id]->up.window = 0;
    w->conns[id]->down.window = 0;
    if (conn_id) *conn_id = id;
    return GK_OK;
}

/* Closes one end. The other end reads end-of-stream once the bytes in
 * flight have arrived; the connection is freed when both ends are closed. */
void worldConnClose(gkWorld *w, gkConn *c, int client_side) {
    if (client_side) {
        if (c->client_closed) return;
        c->client_closed = 1;
        c->up.eof = 1;
        if (!c->server_closed) worldWake(w, c->node, worldLocalNow(w));
    } else {
        if (c->server_closed) return;
        c->server_closed = 1;
        c->down.eof = 1;
        if (!c->client_closed && c->client_node >= 0)
            worldWake(w, c->client_node, worldLocalNow(w));
    }
    if (c->client_closed && c->server_closed) _connDrop(w, c);
}

static gkConn *_hostConn(gkWorld *w, int conn) {
    gkConn *c = worldConn(w, conn);
    if (!c || c->client_node != -1 || c->client_closed) return NULL;
    return c;
}

/* Closes the host's end of conn: the server reads end-of-stream after the
 * bytes in flight. Replies not yet received are lost to the host. Returns
 * GK_ENOTFOUND if conn is unknown, not the host's, or already closed. */
int gkConnClose(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    worldConnClose(w, c, 1);
    return GK_OK;
}

/* Sends bytes to the server now; they arrive after the link's latency.
 * GK_ECLOSED if the server closed the connection. The host's writes never
 * block: its window is unlimited. */
int gkConnSend(gkWorld *w, int conn, const void *buf, size_t len) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    if (c->server_closed) return worldFail(w, GK_ECLOSED, "connection closed");
    long r = _pipeWrite(w, c, 0, buf, len, w->now);
    if (r < (long)len) return worldFail(w, GK_ENOMEM, "out of memory");
    return GK_OK;
}

/* Reply bytes that have arrived on the host's end of conn and are not yet
 * received; 0 for an unknown or closed connection. */
size_t gkConnPending(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    return c ? _pipeUnread(&c->down) : 0;
}

/* Copies up to cap arrived reply bytes out; returns how many. */
size_t gkConnRecv(gkWorld *w, int conn, void *buf, size_t cap) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return 0;
    int was_full = _pipeFull(&c->down);
    long r = _pipeRead(&c->down, buf, cap);
    if (r > 0 && !c->server_closed) _roomMade(w, c, 1, was_full);
    return r > 0 ? (size_t)r : 0;
}

/* 1 if open, 0 if the server closed it (its replies may still be read),
 * GK_ENOTFOUND if unknown or closed by the host. */
int gkConnIsOpen(gkWorld *w, int conn) {
    gkConn *c = _hostConn(w, conn);
    if (!c) return GK_ENOTFOUND;
    return c->server_closed ? 0 : 1;
}

/* Sets the round-trip time and bandwidth of one connection (both ways). */
int gkConnSetLink(gkWorld *w, int conn, uint64_t rtt_ns,
                  uint64_t bytes_per_sec) {
    gkConn *c = worldConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    c->up.latency = c->down.latency = rtt_ns / 2;
    c->up.bandwidth = c->down.bandwidth = bytes_per_sec;
    return GK_OK;
}

/* The local port of the client end of conn (the ephemeral port connect()
 * gave it, ports.c), 0 if it holds none (a refused connection), or
 * GK_ENOTFOUND for an unknown connection. */
int gkConnLocalPort(gkWorld *w, int conn) {
    gkConn *c = worldConn(w, conn);
    if (!c) return worldFail(w, GK_ENOTFOUND, "no such connection");
    return c->lport;
}

/* The sysctl's short name if name is one of the machine's (with or
 * without "net.ipv4."), else NULL. */
static const char *_sysctlName(const char *name) {
    if (!strncmp(name, "net.ipv4.", 9)) name += 9;
    if (!strcmp(name, "ip_local_port_range") ||
        !strcmp(name, "ip_local_reserved_ports"))
        return name;
    return NULL;
}

/* Sets one of the machine's sysctls (glasskv.h). Connections open keep
 * their ports; the next ones follow the new setting. GK_ENOTFOUND for an
 * unknown name; GK_EINVAL for a value the kernel refuses, with sysctl's
 * message ("sysctl: setting key "net.ipv4.ip_local_port_range": Invalid
 * argument") as the last error, the setting unchanged. */
int gkWorldSysctlSet(gkWorld *w, const char *name, const char *value) {
    const char *leaf = _sysctlName(name);
    char msg[160];
    if (!leaf) {
        snprintf(msg, sizeof(msg), "sysctl: cannot stat /proc/sys/%s: No "
                 "such file or directory", name);
        return worldFail(w, GK_ENOTFOUND, msg);
    }
    int st = !strcmp(leaf, "ip_local_port_range")
                 ? portsSetRange(&w->ports, value)
                 : portsSetReserved(&w->ports, value);
    if (st == GK_OK) return GK_OK;
    snprintf(msg, sizeof(msg), "sysctl: setting key \"net.ipv4.%s\": "
             "Invalid argument", leaf);
    return worldFail(w, GK_EINVAL, msg);
}

/* Writes a sysctl's value as /proc/sys shows it into buf (cut at cap - 1):
 * the range as "32768\t60999", the reserved ports as "8080,30000-30100".
 * GK_ENOTFOUND for an unknown name. */
int gkWorldSysctlGet(gkWorld *w, const char *name, char *buf, size_t cap) {
    const char *leaf = _sysctlName(name);
    if (!leaf) return worldFail(w, GK_ENOTFOUND, "no such sysctl");
    if (!strcmp(leaf, "ip_local_port_range"))
        snprintf(buf, cap, "%d\t%d", w->ports.lo, w->ports.hi);
    else
        portsFormatReserved(&w->ports, buf, cap);
    return GK_OK;
}
