/* migrate.c -- MIGRATE: keys moved to another server, as Redis 7.0 moves
 * them.
 *
 *   MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 *           [AUTH password | AUTH2 username password] [KEYS key ...]
 *
 * The exchange is synchronous: the server connects to host:port (waiting
 * up to timeout ms), writes AUTH, SELECT and one RESTORE per key with the
 * key's DUMP payload and remaining ttl, all in one buffer, then reads one
 * reply line for each. Nothing else runs meanwhile, exactly as in Redis,
 * where a MIGRATE of a big value stalls the whole server. The keys the
 * target acknowledged are deleted here (unless COPY), and the command
 * reaches the AOF and the replicas as a DEL of those keys only.
 *
 * The connection is kept for the next MIGRATE to the same host:port, with
 * the db it last selected, and closed once it has not been used for 10
 * seconds (serverCron) or when an exchange on it fails. A failure to write
 * or read on a kept connection is most often the target having closed it
 * meanwhile, so the exchange is tried once more on a new connection --
 * unless the time ran out, or some key was already acknowledged.
 *
 * Waiting needs the host's aeBackend.wait. The simulated world has none:
 * a node cannot stop in the middle of a command while another node runs
 * and answers, and a server node there has no route to open connections
 * (aeBackend.connect is NULL too). So in the simulated world MIGRATE with
 * a key to move fails as a Redis whose target cannot be reached does:
 * "-IOERR error or timeout connecting to the client". Everything before
 * the connection -- the parsing, its errors, +NOKEY when no key exists,
 * the redaction of passwords -- is the same everywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rdb.h"

#define MIGRATE_SOCKET_CACHE_ITEMS 64  /* connections kept at most */
#define MIGRATE_SOCKET_CACHE_TTL 10    /* closed after 10 s unused */
#define MIGRATE_WRITE_CHUNK (64 * 1024)
#define MIGRATE_LINE_MAX 1024          /* a reply line, as Redis reads it */

/* One connection kept for reuse. */
typedef struct migrateSocket {
    sds name;                   /* "host:port", as the arguments spell it */
    int fd;
    long long last_dbid;        /* selected on the target, -1 not known */
    long long last_use;         /* unix seconds */
} migrateSocket;

/* The options of one MIGRATE. */
typedef struct migrateArgs {
    int copy, replace;
    sds username, password;     /* argv's, or NULL */
    int first_key, num_keys;    /* where the keys are in argv */
    long long timeout, dbid;
} migrateArgs;

/* An exchange's outcome, for the caller to retry or report. */
#define MIGRATE_DONE 0          /* replied */
#define MIGRATE_WRITE_ERR 1     /* the connection failed writing, */
#define MIGRATE_READ_ERR 2      /* or reading; it is closed */

/* ---- The connection cache. ---- */

static void _closeSocket(redisServer *s, migrateSocket *cs) {
    aeBackend *be = &s->el->backend;
    be->close(be->ctx, cs->fd);
    sdsfree(s->mem, cs->name);
    *cs = s->migrate_sockets[--s->nmigrate_sockets];
}

/* Closes the connections unused for more than MIGRATE_SOCKET_CACHE_TTL
 * seconds; serverCron calls it once a second. */
void migrateCloseTimedoutSockets(redisServer *s) {
    long long now = s->mstime / 1000;
    for (int i = s->nmigrate_sockets - 1; i >= 0; i--)
        if (now - s->migrate_sockets[i].last_use > MIGRATE_SOCKET_CACHE_TTL)
            _closeSocket(s, &s->migrate_sockets[i]);
}

/* Closes every kept connection and frees the cache (serverRelease). */
void migrateCloseAllSockets(redisServer *s) {
    while (s->nmigrate_sockets)
        _closeSocket(s, &s->migrate_sockets[0]);
    memFree(s->mem, s->migrate_sockets);
    s->migrate_sockets = NULL;
}

/* Connects to host:port the way Redis's connBlockingConnect does: a
 * non-blocking connect, then a wait of ms at most for the socket to turn
 * writable. Only a connect that cannot even start fails here (a name that
 * does not resolve, no route in the simulated world): a refused or slow
 * connection is found by the first write or read, as in Redis, which
 * does not look at the outcome of the wait either. The descriptor, or
 * -1. */
static int _connect(redisServer *s, const char *host, int port,
                    long long ms) {
    aeBackend *be = &s->el->backend;
    char err[256];
    if (!be->connect || !be->wait) return -1;
    int fd = be->connect(be->ctx, host, port, err, sizeof(err));
    if (fd >= 0) be->wait(be->ctx, fd, AE_WRITABLE, ms);
    return fd;
}

/* migrateGetSocket: the kept connection to host:port, or a new one (the
 * least recently used is closed if the cache is full; Redis drops one
 * at random, which a deterministic server cannot). NULL, with the error
 * replied, if the connection cannot be made within ms. */
static migrateSocket *_getSocket(client *c, robj *host, robj *port,
                                 long long ms) {
    redisServer *s = c->srv;
    sds name = sdscatprintf(s->mem, sdsempty(s->mem), "%s:%s",
                            (char *)host->v.ptr, (char *)port->v.ptr);
    long long now = s->mstime / 1000;
    for (int i = 0; i < s->nmigrate_sockets; i++) {
        migrateSocket *cs = &s->migrate_sockets[i];
        if (!strcmp(cs->name, name)) {
            sdsfree(s->mem, name);
            cs->last_use = now;
            return cs;
        }
    }
    if (!s->migrate_sockets)
        s->migrate_sockets = memCalloc(s->mem, MIGRATE_SOCKET_CACHE_ITEMS *
                                       sizeof(migrateSocket));
    if (s->nmigrate_sockets == MIGRATE_SOCKET_CACHE_ITEMS) {
        int oldest = 0;
        for (int i = 1; i < s->nmigrate_sockets; i++)
            if (s->migrate_sockets[i].last_use <
                s->migrate_sockets[oldest].last_use) oldest = i;
        _closeSocket(s, &s->migrate_sockets[oldest]);
    }
    int fd = _connect(s, host->v.ptr, atoi(port->v.ptr), ms);
    if (fd < 0) {
        addReplyError(c, "-IOERR error or timeout connecting to the client");
        sdsfree(s->mem, name);
        return NULL;
    }
    migrateSocket *cs = &s->migrate_sockets[s->nmigrate_sockets++];
    cs->name = name;
    cs->fd = fd;
    cs->last_dbid = -1;
    cs->last_use = now;
    return cs;
}

/* ---- Synchronous I/O (Redis's syncio.c). ----
 *
 * Each call tries the socket first and waits only when it has nothing
 * to give or take; the time limit is counted from the start of the call
 * on the host's clock. *timedout tells a limit reached from a failure. */

static long long _nowMs(redisServer *s) {
    aeBackend *be = &s->el->backend;
    return (long long)(be->now(be->ctx) / 1000000);
}

/* Writes len bytes. C_ERR if the peer failed or the time ran out. */
static int _syncWrite(redisServer *s, int fd, const char *p, size_t len,
                      long long ms, int *timedout) {
    aeBackend *be = &s->el->backend;
    long long start = _nowMs(s);
    while (len) {
        long n = be->write(be->ctx, fd, p, len);
        if (n == -2) return C_ERR;
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        long long left = ms - (_nowMs(s) - start);
        if (left <= 0 || be->wait(be->ctx, fd, AE_WRITABLE, left) == 0) {
            *timedout = 1;
            return C_ERR;
        }
    }
    return C_OK;
}

/* Reads one byte. C_ERR at the end of the stream or when time runs out. */
static int _syncReadByte(redisServer *s, int fd, char *ch, long long ms,
                         int *timedout) {
    aeBackend *be = &s->el->backend;
    long long start = _nowMs(s);
    for (;;) {
        long n = be->read(be->ctx, fd, ch, 1);
        if (n == 1) return C_OK;
        if (n == 0) return C_ERR;
        long long left = ms - (_nowMs(s) - start);
        if (left <= 0 || be->wait(be->ctx, fd, AE_READABLE, left) == 0) {
            *timedout = 1;
            return C_ERR;
        }
    }
}

/* Reads a line into buf (size bytes, the line cut to fit), without its
 * CRLF. Its length; 0 or less is a failure, an empty line included, as
 * for Redis's syncReadLine callers. */
static long _syncReadLine(redisServer *s, int fd, char *buf, size_t size,
                          long long ms, int *timedout) {
    size_t n = 0;
    char ch;
    buf[0] = '\0';
    while (n + 1 < size) {
        if (_syncReadByte(s, fd, &ch, ms, timedout) != C_OK) return -1;
        if (ch == '\n') {
            if (n && buf[n - 1] == '\r') buf[--n] = '\0';
            return (long)n;
        }
        buf[n++] = ch;
        buf[n] = '\0';
    }
    return (long)n;
}

/* ---- The command. ---- */

static sds _catBulk(redisServer *s, sds out, const char *p, size_t len) {
    out = sdscatprintf(s->mem, out, "$%zu\r\n", len);
    out = sdscatlen(s->mem, out, p, len);
    return sdscatlen(s->mem, out, "\r\n", 2);
}

static sds _catLongLong(redisServer *s, sds out, long long v) {
    char buf[LONG_STR_SIZE];
    int len = snprintf(buf, sizeof(buf), "%lld", v);
    return _catBulk(s, out, buf, (size_t)len);
}

static sds _catBulkObject(redisServer *s, sds out, const robj *o) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(o, buf, &len);
    return _catBulk(s, out, p, len);
}

/* Parses the options from argument 6 on, then the timeout and the db.
 * The passwords are redacted for MONITOR and the slow log as soon as they
 * are met. C_ERR once the error is replied. */
static int _parseArgs(client *c, migrateArgs *a) {
    memset(a, 0, sizeof(*a));
    a->first_key = 3;
    a->num_keys = 1;
    for (int j = 6; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int more = c->argc - 1 - j;
        if (!strcasecmp(opt, "copy")) {
            a->copy = 1;
        } else if (!strcasecmp(opt, "replace")) {
            a->replace = 1;
        } else if (!strcasecmp(opt, "auth") && more >= 1) {
            a->password = c->argv[++j]->v.ptr;
            redactClientCommandArgument(c, j);
        } else if (!strcasecmp(opt, "auth2") && more >= 2) {
            a->username = c->argv[++j]->v.ptr;
            redactClientCommandArgument(c, j);
            a->password = c->argv[++j]->v.ptr;
            redactClientCommandArgument(c, j);
        } else if (!strcasecmp(opt, "keys")) {
            if (sdslen(c->argv[3]->v.ptr) != 0) {
                addReplyError(c, "When using MIGRATE KEYS option, the key "
                              "argument must be set to the empty string");
                return C_ERR;
            }
            a->first_key = j + 1;
            a->num_keys = c->argc - j - 1;
            break;
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    if (getLongFromObjectOrReply(c, c->argv[5], &a->timeout, NULL) != C_OK ||
        getLongFromObjectOrReply(c, c->argv[4], &a->dbid, NULL) != C_OK)
        return C_ERR;
    if (a->timeout <= 0) a->timeout = 1000;
    return C_OK;
}

/* The requests of one exchange: AUTH if asked, SELECT unless the
 * connection has the db selected, then a RESTORE for each key still
 * alive, its ttl relative (at least 1 ms). The keys that expired since
 * they were looked up are dropped from kv and their values from ov, *n
 * counting those left. */
static sds _requests(client *c, const migrateArgs *a, migrateSocket *cs,
                     robj **kv, robj **ov, int *n, int *select) {
    redisServer *s = c->srv;
    sds out = sdsempty(s->mem);
    if (a->password) {
        out = sdscatprintf(s->mem, out, "*%d\r\n", a->username ? 3 : 2);
        out = _catBulk(s, out, "AUTH", 4);
        if (a->username)
            out = _catBulk(s, out, a->username, sdslen(a->username));
        out = _catBulk(s, out, a->password, sdslen(a->password));
    }
    *select = cs->last_dbid != a->dbid;
    if (*select) {
        out = sdscatlen(s->mem, out, "*2\r\n", 4);
        out = _catBulk(s, out, "SELECT", 6);
        out = _catLongLong(s, out, a->dbid);
    }
    int alive = 0;
    for (int j = 0; j < *n; j++) {
        long long ttl = 0, when = getExpire(c->db, kv[j]);
        if (when != -1) {
            ttl = when - s->mstime;
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        kv[alive] = kv[j];
        ov[alive++] = ov[j];
        sds payload = rdbDumpPayload(s->mem, ov[j]);
        out = sdscatprintf(s->mem, out, "*%d\r\n", a->replace ? 5 : 4);
        out = _catBulk(s, out, "RESTORE", 7);
        out = _catBulkObject(s, out, kv[j]);
        out = _catLongLong(s, out, ttl);
        out = _catBulk(s, out, payload, sdslen(payload));
        sdsfree(s->mem, payload);
        if (a->replace) out = _catBulk(s, out, "REPLACE", 7);
    }
    *n = alive;
    return out;
}

/* Deletes a key the target acknowledged, as DEL would. */
static void _deleteMoved(client *c, robj *key) {
    redisServer *s = c->srv;
    dbDelete(s, c->db, key);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", key, c->db->id);
    s->dirty++;
}

/* The command now stands as DEL of the moved keys for the AOF and the
 * replicas. */
static void _rewriteAsDel(client *c, robj **moved, int n) {
    robj **argv = memAlloc(c->srv->mem, sizeof(robj *) * (size_t)(n + 1));
    argv[0] = createStringObject(c->srv, "DEL", 3);
    for (int j = 0; j < n; j++) {
        argv[j + 1] = moved[j];
        incrRefCount(moved[j]);
    }
    replaceClientCommandVector(c, n + 1, argv);
}

/* Reads the replies of one exchange: AUTH's and SELECT's if sent, one
 * per RESTORE. The first error the target gave is replied (the rest are
 * read and dropped); every key acknowledged is deleted unless COPY. */
static int _readReplies(client *c, const migrateArgs *a, migrateSocket *cs,
                        robj **kv, int n, int select, int *may_retry,
                        int *timedout) {
    redisServer *s = c->srv;
    char auth[MIGRATE_LINE_MAX], sel[MIGRATE_LINE_MAX];
    char line[MIGRATE_LINE_MAX];
    long long ms = a->timeout;
    int fd = cs->fd;
    if (a->password &&
        _syncReadLine(s, fd, auth, sizeof(auth), ms, timedout) <= 0)
        return MIGRATE_READ_ERR;
    if (select && _syncReadLine(s, fd, sel, sizeof(sel), ms, timedout) <= 0)
        return MIGRATE_READ_ERR;
    int failed = 0, broken = 0, nmoved = 0, j;
    robj **moved = memAlloc(s->mem, sizeof(robj *) * (size_t)(n + 1));
    for (j = 0; j < n; j++) {
        if (_syncReadLine(s, fd, line, sizeof(line), ms, timedout) <= 0) {
            broken = 1;
            break;
        }
        const char *err = a->password && auth[0] == '-' ? auth
                          : select && sel[0] == '-' ? sel
                          : line[0] == '-' ? line : NULL;
        if (err) {
            if (!failed) {
                cs->last_dbid = -1;
                addReplyErrorFormat(c, "Target instance replied with "
                                    "error: %s", err + 1);
            }
            failed = 1;
        } else if (!a->copy) {
            _deleteMoved(c, kv[j]);
            moved[nmoved++] = kv[j];
        }
    }
    /* Nothing was taken yet: the kept connection was likely closed by
     * the target, so a new one may be tried. */
    if (broken && !failed && j == 0 && !*timedout) {
        memFree(s->mem, moved);
        return MIGRATE_READ_ERR;
    }
    if (broken) _closeSocket(s, cs);
    if (nmoved) _rewriteAsDel(c, moved, nmoved);
    memFree(s->mem, moved);
    if (broken && !failed) {
        *may_retry = 0;
        return MIGRATE_READ_ERR;
    }
    if (!failed) {
        cs->last_dbid = a->dbid;
        addReplyOK(c);
    }
    return MIGRATE_DONE;
}

/* One exchange with the target. A failure closes the connection (if
 * _readReplies has not) and returns MIGRATE_WRITE_ERR or READ_ERR for
 * the caller to retry or report. */
static int _exchange(client *c, const migrateArgs *a, robj **kv,
                     robj **ov, int *n, int *may_retry, int *timedout) {
    redisServer *s = c->srv;
    migrateSocket *cs = _getSocket(c, c->argv[1], c->argv[2], a->timeout);
    if (!cs) return MIGRATE_DONE;
    int select;
    sds out = _requests(c, a, cs, kv, ov, n, &select);
    int r = MIGRATE_DONE, still_kept = 1;
    for (size_t pos = 0; pos < sdslen(out); pos += MIGRATE_WRITE_CHUNK) {
        size_t len = sdslen(out) - pos;
        if (len > MIGRATE_WRITE_CHUNK) len = MIGRATE_WRITE_CHUNK;
        if (_syncWrite(s, cs->fd, out + pos, len, a->timeout,
                       timedout) != C_OK) {
            r = MIGRATE_WRITE_ERR;
            break;
        }
    }
    sdsfree(s->mem, out);
    if (r == MIGRATE_DONE) {
        int kept = s->nmigrate_sockets;
        r = _readReplies(c, a, cs, kv, *n, select, may_retry, timedout);
        still_kept = s->nmigrate_sockets == kept;
    }
    if (r != MIGRATE_DONE && still_kept) _closeSocket(s, cs);
    return r;
}

/* MIGRATE (see the top of the file). Replies +OK once every key is moved,
 * +NOKEY if none of the keys exists (nothing is sent then), the first
 * error the target gave, or -IOERR when the connection failed. */
void migrateCommand(client *c) {
    redisServer *s = c->srv;
    migrateArgs a;
    if (_parseArgs(c, &a) != C_OK) return;
    size_t size = sizeof(robj *) * (size_t)(a.num_keys + 1);
    robj **kv = memAlloc(s->mem, size), **ov = memAlloc(s->mem, size);
    int n = 0;
    for (int j = 0; j < a.num_keys; j++) {
        kv[n] = c->argv[a.first_key + j];
        if ((ov[n] = lookupKeyRead(c, kv[n])) != NULL) n++;
    }
    if (n == 0) {
        memFree(s->mem, kv);
        memFree(s->mem, ov);
        addReplyStatus(c, "NOKEY");
        return;
    }
    int may_retry = 1;
    for (;;) {
        int timedout = 0;
        int r = _exchange(c, &a, kv, ov, &n, &may_retry, &timedout);
        if (r == MIGRATE_DONE) break;
        if (!timedout && may_retry) {
            may_retry = 0;
            continue;
        }
        addReplyErrorFormat(c, "-IOERR error or timeout %s to target "
                            "instance", r == MIGRATE_WRITE_ERR ? "writing"
                                                                : "reading");
        break;
    }
    memFree(s->mem, kv);
    memFree(s->mem, ov);
}
