/* mc_server.c -- the memcached-style node: creation from memcached's
 * command-line options, and each connection's state machine
 * (drive_machine in memcached.c).
 *
 * A connection reads up to 16 KB at a time, parses whole lines out of
 * that buffer and runs them; a storage command then switches the
 * connection to reading its value straight into the item, and a refused
 * value is swallowed. As in memcached, one read event runs at most
 * reqs_per_event (-R, 20) commands before the connection yields to the
 * others, and replies are written only at memcached's write points: after
 * a get, mn or quit, and when the connection runs out of input or yields.
 * Until then they can still be dropped (a get with an over-long key drops
 * them). A write the
 * network cannot take whole leaves the connection waiting to write the
 * rest before it reads anything more.
 *
 * Time. memcached counts time in whole seconds since it started, from 62
 * upward ("current_time"; it pretends to have started 62 seconds early so
 * that no item time is ever 0), and remembers the Unix time that
 * corresponds to 0. Here both come from the world: current_time is 62
 * plus whole seconds of virtual time since the node was added, and the
 * Unix time is the world's configured Unix time at virtual time 0 plus
 * virtual time. */
#include <string.h>
#include "mc_server.h"
#include "world.h"

#define READ_NONE 0
#define READ_DATA 1
#define READ_EOF 2

/* ---- Time. ---- */

/* Sets memcached's clock from the world's virtual time. */
void mcServerClock(mcServer *s) {
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    s->cache.current_time =
        MC_START_TIME + (uint32_t)((now - s->start_ns) / 1000000000ULL);
}

/* ---- Replies. ---- */

/* Appends reply bytes, to go out at the next write point. */
void mcConnOut(mcConn *c, const char *buf, size_t len) {
    c->out = sdscatlen(c->srv->mem, c->out, buf, len);
}

/* out_string: one reply line, unless the command said noreply. */
void mcConnOutString(mcConn *c, const char *str) {
    if (c->noreply) return;
    mcConnOut(c, str, strlen(str));
    mcConnOut(c, "\r\n", 2);
}

/* Drops the replies not yet written (conn_release_items). */
void mcConnCull(mcConn *c) { sdsclear(c->out); }

static int _pending(mcConn *c) { return sdslen(c->out) > 0; }

/* Moves to CLOSING: the connection reads nothing more, drops the replies
 * it had not written, and is closed at the end of the loop iteration. */
void mcConnClose(mcConn *c) {
    mcConnCull(c);
    aeDeleteFileEvent(c->srv->el, c->fd, AE_READABLE | AE_WRITABLE);
    c->state = MC_CONN_CLOSING;
}

/* ---- Reading. ---- */

/* Back to a 16 KB buffer after a long get line was handled. */
static void _rbufShrink(mcConn *c) {
    if (!c->rbuf_malloced || c->rbytes) return;
    c->rbuf = memRealloc(c->srv->mem, c->rbuf, MC_READ_BUFFER_SIZE);
    c->rsize = MC_READ_BUFFER_SIZE;
    c->rpos = 0;
    c->rbuf_malloced = 0;
}

/* read(2) on the connection: bytes, 0 at end of stream, -1 for none. */
static long _sockRead(mcConn *c, char *buf, size_t len) {
    aeBackend *be = &c->srv->el->backend;
    long n = be->read(be->ctx, c->fd, buf, len);
    if (n > 0) c->srv->cache.ts.bytes_read += (uint64_t)n;
    return n;
}

/* try_read_network: moves unparsed bytes to the front and reads what
 * fits. A buffer grown for a long get keeps doubling (4 times per event)
 * while reads fill it. */
static int _readNetwork(mcConn *c) {
    int got = READ_NONE, allocs = 0;
    _rbufShrink(c);
    if (c->rpos) {
        memmove(c->rbuf, c->rbuf + c->rpos, c->rbytes);
        c->rpos = 0;
    }
    for (;;) {
        if (c->rbytes >= c->rsize && c->rbuf_malloced) {
            if (allocs++ == 4) return got;
            c->rsize *= 2;
            c->rbuf = memRealloc(c->srv->mem, c->rbuf, c->rsize);
        }
        size_t avail = c->rsize - c->rbytes;
        if (avail == 0) return got;
        long n = _sockRead(c, c->rbuf + c->rbytes, avail);
        if (n == 0) return READ_EOF;
        if (n < 0) return got;
        c->rbytes += (size_t)n;
        got = READ_DATA;
        if (!((size_t)n == avail && c->rbuf_malloced)) return got;
    }
}

/* Drops n parsed bytes from the front of the read buffer. */
static void _consume(mcConn *c, size_t n) {
    c->rpos += n;
    c->rbytes -= n;
}

/* A line of over 2 KB without its newline yet: only a multi-key get may
 * be that long (its buffer grows); anything else closes the connection.
 * Returns 1 if it closed. */
static int _longLine(mcConn *c) {
    const char *p = c->rbuf + c->rpos;
    size_t i = 0;
    while (i < c->rbytes && p[i] == ' ') i++;
    if (i > 100 || (strncmp(p + i, "get ", 4) && strncmp(p + i, "gets ", 5))) {
        mcConnClose(c);
        return 1;
    }
    if (!c->rbuf_malloced) {
        memmove(c->rbuf, p, c->rbytes);
        c->rpos = 0;
        c->rsize *= 2;
        c->rbuf = memRealloc(c->srv->mem, c->rbuf, c->rsize);
        c->rbuf_malloced = 1;
    }
    return 0;
}

/* try_read_command_ascii: runs the next whole line, if there is one
 * (its "\r\n" or "\n" cut off). Returns 0 if more bytes are needed. */
static int _tryReadCommand(mcConn *c) {
    if (c->rbytes == 0) return 0;
    char *cur = c->rbuf + c->rpos;
    char *el = memchr(cur, '\n', c->rbytes);
    if (!el) return c->rbytes > 2048 ? _longLine(c) : 0;
    size_t linelen = (size_t)(el - cur) + 1;
    if (el - cur > 1 && el[-1] == '\r') el--;
    *el = '\0';
    c->state = MC_CONN_NEW_CMD;
    mcServerClock(c->srv);
    mcProcessCommand(c, cur);
    _consume(c, linelen);
    return 1;
}

/* conn_nread for an ordinary item: leftovers first, then the socket. */
static int _nreadPlain(mcConn *c) {
    if (c->rbytes > 0) {
        size_t n = c->rbytes < c->rlbytes ? c->rbytes : c->rlbytes;
        memmove(c->ritem, c->rbuf + c->rpos, n);
        c->ritem += n;
        c->rlbytes -= n;
        _consume(c, n);
        if (c->rlbytes == 0) return 1;
    }
    long n = _sockRead(c, c->ritem, c->rlbytes);
    if (n == 0) mcConnClose(c);
    if (n <= 0) return 0;
    c->ritem += n;
    c->rlbytes -= (size_t)n;
    return 1;
}

/* conn_nread for a large item: chunks are added as they fill. A chunk
 * that cannot be had fails the store and the rest is swallowed. */
static int _nreadChunked(mcConn *c) {
    long used = itemFillChunks(&c->srv->cache, c->item, &c->rch,
                               c->rbuf + c->rpos, c->rbytes, &c->rlbytes);
    if (used < 0) {
        mcConnOutString(c, "SERVER_ERROR Out of memory during read");
        c->sbytes = c->rlbytes;
        c->state = MC_CONN_SWALLOW;
        return 1;
    }
    _consume(c, (size_t)used);
    if (c->rlbytes == 0 || c->rbytes > 0) return 1;
    size_t want = c->rlbytes < c->rsize ? c->rlbytes : c->rsize;
    c->rpos = 0;
    long n = _sockRead(c, c->rbuf, want);
    if (n == 0) mcConnClose(c);
    if (n <= 0) return 0;
    c->rbytes = (size_t)n;
    return 1;
}

/* conn_nread: reads the value, then stores it. 0 to wait for bytes. */
static int _nread(mcConn *c) {
    if (c->rlbytes == 0) {
        mcCompleteNread(c);
        return 1;
    }
    if (c->item->it_flags & MC_ITEM_CHUNKED) return _nreadChunked(c);
    return _nreadPlain(c);
}

/* conn_swallow: discards a refused value, leftovers first. */
static int _swallow(mcConn *c) {
    if (c->sbytes == 0) {
        c->state = MC_CONN_NEW_CMD;
        return 1;
    }
    if (c->rbytes > 0) {
        size_t n = c->rbytes < c->sbytes ? c->rbytes : c->sbytes;
        c->sbytes -= n;
        _consume(c, n);
        return 1;
    }
    size_t want = c->sbytes < c->rsize ? c->sbytes : c->rsize;
    c->rpos = 0;
    long n = _sockRead(c, c->rbuf, want);
    if (n == 0) mcConnClose(c);
    if (n <= 0) return 0;
    c->sbytes -= (size_t)n;
    return 1;
}

/* ---- The state machine. ---- */

static void _connWritable(aeEventLoop *el, int fd, void *data, int mask);

/* conn_new_cmd: the command budget of this event, then the next step. */
static int _newCmd(mcConn *c, int *nreqs) {
    if (--*nreqs >= 0) {
        c->cmd = 0;
        if (c->item) {
            itemRemove(&c->srv->cache, c->item);
            c->item = NULL;
        }
        if (c->rbytes > 0) c->state = MC_CONN_PARSE;
        else if (_pending(c)) c->state = MC_CONN_MWRITE;
        else { c->state = MC_CONN_READ; return 0; }
        return 1;
    }
    if (_pending(c)) {
        c->state = MC_CONN_MWRITE;
        return 1;
    }
    c->srv->cache.ts.conn_yields++;
    if (c->rbytes > 0)
        aeCreateFileEvent(c->srv->el, c->fd, AE_WRITABLE, _connWritable, c);
    return 0;
}

/* transmit: writes the pending replies. Returns 1 when all are out, 0
 * (waiting for a writable event) when the network took only part. */
static int _transmit(mcConn *c) {
    aeBackend *be = &c->srv->el->backend;
    while (sdslen(c->out)) {
        long n = be->write(be->ctx, c->fd, c->out, sdslen(c->out));
        if (n <= 0) {
            aeCreateFileEvent(c->srv->el, c->fd, AE_WRITABLE, _connWritable,
                              c);
            return 0;
        }
        c->srv->cache.ts.bytes_written += (uint64_t)n;
        sdsrange(c->out, n, -1);
    }
    return 1;
}

/* One step of the machine. Returns 0 when the connection must wait. */
static int _step(mcConn *c, int *nreqs) {
    switch (c->state) {
    case MC_CONN_READ: {
        int r = _readNetwork(c);
        if (r == READ_EOF) mcConnClose(c);
        if (r != READ_DATA) return 0;
        c->state = MC_CONN_PARSE;
        return 1;
    }
    case MC_CONN_PARSE:
        c->noreply = 0;
        if (_tryReadCommand(c)) return 1;
        c->state = _pending(c) ? MC_CONN_MWRITE : MC_CONN_READ;
        return c->state == MC_CONN_MWRITE;
    case MC_CONN_NEW_CMD: return _newCmd(c, nreqs);
    case MC_CONN_NREAD: return _nread(c);
    case MC_CONN_SWALLOW: return _swallow(c);
    case MC_CONN_MWRITE:
        if (!_transmit(c)) return 0;
        if (c->close_after_write) mcConnClose(c);
        else c->state = MC_CONN_NEW_CMD;
        return c->state != MC_CONN_CLOSING;
    default: return 0;
    }
}

/* Runs the connection until it has to wait for its client. */
static void _drive(mcConn *c) {
    int nreqs = c->srv->settings.reqs_per_event;
    mcServerClock(c->srv);
    while (_step(c, &nreqs)) {}
}

static void _connReadable(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el; (void)fd; (void)mask;
    _drive(data);
}

/* A connection waiting to write the rest of its replies, or one that
 * yielded with input left (memcached asks libevent for a write event to
 * come back to it), continues here. */
static void _connWritable(aeEventLoop *el, int fd, void *data, int mask) {
    (void)mask;
    aeDeleteFileEvent(el, fd, AE_WRITABLE);
    _drive(data);
}

/* ---- Connections. ---- */

/* Accepts the world's connection fd as a new client. C_ERR-style -1 if
 * the descriptor table cannot grow. */
static int _connAccept(void *impl, int fd) {
    mcServer *s = impl;
    if (fd >= s->el->setsize &&
        aeResizeSetSize(s->el, fd < 1024 ? 1024 : fd * 2) != C_OK)
        return -1;
    if (fd >= s->conns_cap) {
        int cap = fd < 16 ? 16 : fd * 2;
        s->conns = memRealloc(s->mem, s->conns, sizeof(mcConn *) * (size_t)cap);
        memset(s->conns + s->conns_cap, 0,
               sizeof(mcConn *) * (size_t)(cap - s->conns_cap));
        s->conns_cap = cap;
    }
    mcConn *c = memCalloc(s->mem, sizeof(*c));
    c->srv = s;
    c->fd = fd;
    c->state = MC_CONN_READ;
    c->rsize = MC_READ_BUFFER_SIZE;
    c->rbuf = memAlloc(s->mem, c->rsize);
    c->out = sdsempty(s->mem);
    s->conns[fd] = c;
    aeCreateFileEvent(s->el, fd, AE_READABLE, _connReadable, c);
    s->curr_conns++;
    s->total_conns++;
    if (s->curr_conns + 1 > s->conn_structs)
        s->conn_structs = s->curr_conns + 1;
    return 0;
}

/* Closes the socket and frees the connection, releasing a value it was
 * reading. */
static void _connFree(mcConn *c) {
    mcServer *s = c->srv;
    aeDeleteFileEvent(s->el, c->fd, AE_READABLE | AE_WRITABLE);
    s->el->backend.close(s->el->backend.ctx, c->fd);
    if (c->item) itemRemove(&s->cache, c->item);
    s->conns[c->fd] = NULL;
    s->curr_conns--;
    sdsfree(s->mem, c->out);
    memFree(s->mem, c->rbuf);
    memFree(s->mem, c);
}

/* Frees the connections that closed during this iteration. */
static void _beforeSleep(aeEventLoop *el) {
    mcServer *s = el->privdata;
    for (int fd = 0; fd < s->conns_cap; fd++)
        if (s->conns[fd] && s->conns[fd]->state == MC_CONN_CLOSING)
            _connFree(s->conns[fd]);
}

/* ---- The node. ---- */

/* Frees the node: connections first (they may hold items), then the
 * cache with its pages, then the loop. */
static void _serverRelease(void *impl) {
    mcServer *s = impl;
    for (int fd = 0; fd < s->conns_cap; fd++)
        if (s->conns[fd]) _connFree(s->conns[fd]);
    memFree(s->mem, s->conns);
    cacheRelease(&s->cache);
    aeDeleteEventLoop(s->el);
    gkMem mem = s->own;     /* the account lives in what is freed */
    memFree(&mem, s);
}

static int _serverPort(void *impl) {
    return ((mcServer *)impl)->settings.port;
}

static const gkNodeType mcNodeType = { "memcached", _connAccept,
                                       _serverRelease, NULL, NULL, NULL,
                                       _serverPort };

/* The memcached node of node, or NULL if node is not one. */
mcServer *mcServerOf(gkWorld *w, int node) {
    return worldNodeImpl(w, node, &mcNodeType);
}

/* The slab layout the settings ask for. */
void mcSlabConfigOf(const mcSettings *st, mcSlabConfig *cfg) {
    cfg->chunk_size = st->chunk_size;
    cfg->factor = st->factor;
    cfg->page_size = st->slab_page_size;
    cfg->chunk_max = st->slab_chunk_size_max;
    cfg->item_size_max = st->item_size_max;
    cfg->limit = st->maxbytes;
    cfg->slab_reassign = st->slab_reassign;
    cfg->sizes = st->use_slab_sizes ? st->slab_sizes : NULL;
}

/* Builds the cache and its clock for a server whose settings are set:
 * the hash key and the pid come from the host's own PRNG, the Unix time
 * of memcached's relative time 0 from the host's clock. */
static int _serverInitCache(mcServer *s, const gkHostEnv *env) {
    mcSlabConfig cfg;
    uint8_t seed[16];
    gkRng rng;
    rngSeed(&rng, env->seed);
    uint64_t r0 = rngNext(&rng), r1 = rngNext(&rng);
    memcpy(seed, &r0, 8);
    memcpy(seed + 8, &r1, 8);
    s->pid = 1000 + (uint32_t)rngBelow(&rng, 30000);
    mcSlabConfigOf(&s->settings, &cfg);
    uint32_t hp = s->settings.hashpower_init ? (uint32_t)s->settings
                  .hashpower_init : MC_HASHPOWER_DEFAULT;
    int rc = cacheInit(&s->cache, s->mem, &cfg, hp, seed, s->trace,
                       (uint16_t)s->node);
    if (rc != GK_OK) return rc;
    s->cache.use_cas = s->settings.use_cas;
    s->cache.evict_to_free = s->settings.evict_to_free;
    s->cache.current_time = MC_START_TIME;
    int64_t unix_ms = env->unix_ms_at_zero + (int64_t)(s->start_ns / 1000000);
    s->cache.process_started = unix_ms / 1000 - MC_START_TIME;
    if (s->settings.track_sizes) return itemSizesEnable(&s->cache);
    return GK_OK;
}

/* A memcached process for the host env describes, with these settings:
 * its memory is an account of its own over the world's allocator (the
 * items are the node's, not the world's), its loop runs on the host's
 * backend, its clock starts now. NULL if memory runs out. */
static mcServer *_serverCreate(const gkHostEnv *env, const mcSettings *st) {
    gkMem mem;
    memInit(&mem, env->alloc, env->alloc_ud);
    mcServer *s = memTryCalloc(&mem, sizeof(*s));
    if (!s) return NULL;
    s->own = mem;
    s->mem = &s->own;
    s->node = env->id;
    s->trace = env->trace;
    s->settings = *st;
    s->el = aeCreateEventLoop(s->mem, 1024, env->backend);
    s->el->privdata = s;
    aeSetBeforeSleepProc(s->el, _beforeSleep);
    s->start_ns = env->backend.now(env->backend.ctx);
    s->total_conns = s->conn_structs = 1;     /* the listening socket */
    if (_serverInitCache(s, env) != GK_OK) {
        _serverRelease(s);
        return NULL;
    }
    return s;
}

/* Parses options into *st; GK_EINVAL with memcached's message as the
 * world's last error if it would refuse them. */
static int _parseOptions(gkWorld *w, const char *options, mcSettings *st) {
    char err[256];
    mcSettingsInit(st);
    if (mcOptionsParse(st, options, err, sizeof(err)) != GK_OK)
        return worldFail(w, GK_EINVAL, err);
    return GK_OK;
}

/* gkMemcachedStart (glasskv.h): a new host at a free id, or a new process
 * on a memcached host. */
int gkMemcachedStart(gkWorld *w, int node, const char *options) {
    mcSettings st;
    gkHostEnv env;
    if (node < 0 || node >= GK_MAX_NODES)
        return worldFail(w, GK_EINVAL, "no such host id");
    int restart = worldNodeKind(w, node) == &mcNodeType;
    if (_parseOptions(w, options, &st) != GK_OK) return GK_EINVAL;
    if (restart) worldNodeStop(w, node);
    worldHostEnv(w, node, &env);
    mcServer *s = _serverCreate(&env, &st);
    if (!s)
        return worldFail(w, GK_ENOMEM, "out of memory for the hash table");
    if (restart) {
        worldNodeResume(w, node, s, s->el);
        return GK_OK;
    }
    int rc = worldAddNodeAt(w, node, &mcNodeType, s, s->el);
    if (rc != GK_OK) _serverRelease(s);
    return rc;
}

/* Adds a memcached-style node configured by options, memcached's command
 * line without the program name ("-m 64 -f 1.25 -o slab_chunk_max=..."),
 * at the lowest free host id. GK_EINVAL for options memcached would
 * refuse, with its message in gkWorldLastError; GK_ENOMEM if the node
 * cannot be allocated. */
int gkMemcachedAdd(gkWorld *w, const char *options, int *node_id) {
    int id = worldFreeNode(w);
    if (id < 0) return worldFail(w, GK_EINVAL, "too many nodes");
    int rc = gkMemcachedStart(w, id, options);
    if (rc == GK_OK && node_id) *node_id = id;
    return rc;
}
