/* networking.c -- clients: reading and parsing requests, buffering and
 * writing replies, as Redis 7.0's networking.c.
 *
 * A client's bytes arrive in its query buffer, up to 16 KB per read.
 * processInputBuffer then parses and executes every complete command in the
 * buffer back to back -- this is why a pipeline of 100 commands costs one
 * read and one write instead of 100 round trips. Replies accumulate in the
 * client's 16 KB buffer (then in a list of blocks) and are only written to
 * the socket in beforeSleep, after the AOF has been flushed. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <ctype.h>
#include "server.h"
#include "cost.h"
#include "recovery.h"
#include "rax.h"

static void _setProtocolError(client *c);

/* Creates the server side of a new connection and starts reading it. */
client *createClient(redisServer *s, int fd) {
    client *c = memCallocAs(s->mem, sizeof(*c), MEM64_CLIENT);
    c->srv = s;
    c->id = s->next_client_id++;
    c->fd = fd;
    c->db = &s->db[0];
    c->querybuf = sdsempty(s->mem);
    c->bulklen = -1;
    c->resp = 2;
    clientSetDefaultAuth(c);
    c->buf = memAlloc(s->mem, PROTO_REPLY_CHUNK_BYTES);
    c->buf_usable_size = PROTO_REPLY_CHUNK_BYTES;
    c->ctime_ms = c->lastinteraction_ms = (uint64_t)s->mstime;
    if (fd >= s->el->setsize)
        aeResizeSetSize(s->el, fd < 1024 ? 1024 : fd * 2);
    aeCreateFileEvent(s->el, fd, AE_READABLE, readQueryFromClient, c);
    if (fd >= s->clients_cap) {
        int cap = fd < 16 ? 16 : fd * 2;
        s->clients = memRealloc(s->mem, s->clients,
                                sizeof(client *) * (size_t)cap);
        for (int i = s->clients_cap; i < cap; i++) s->clients[i] = NULL;
        s->clients_cap = cap;
    }
    s->clients[fd] = c;
    s->numclients++;
    s->stat_numconnections++;
    return c;
}

/* A connection the host accepted on fd (Redis's acceptCommonHandler).
 * With maxclients clients connected already it is refused as Redis
 * refuses it: the error goes straight to the socket, without a client,
 * and the descriptor is closed. Returns the new client, or NULL if
 * refused. The simulated world hands its connections to createClient
 * directly; a native host comes through here. */
client *acceptCommonHandler(redisServer *s, int fd) {
    if (s->numclients >= s->cfg.maxclients) {
        static const char err[] = "-ERR max number of clients reached\r\n";
        aeBackend *be = &s->el->backend;
        be->write(be->ctx, fd, err, sizeof(err) - 1);
        s->stat_rejected_conn++;
        be->close(be->ctx, fd);
        return NULL;
    }
    return createClient(s, fd);
}

/* Drops the client's reference to each argument and forgets the command;
 * the argv array itself is kept for the next request. */
void freeClientArgv(client *c) {
    freeClientOriginalArgv(c);
    for (int j = 0; j < c->argc; j++) decrRefCount(c->srv, c->argv[j]);
    c->argc = 0;
    c->cmd = NULL;
}

static void _unlinkPendingWrite(client *c) {
    client **p = &c->srv->pending_write;
    while (*p) {
        if (*p == c) { *p = c->next_pending; break; }
        p = &(*p)->next_pending;
    }
    c->flags &= ~(uint64_t)CLIENT_PENDING_WRITE;
}

static void _freeReplyList(client *c) {
    clientReplyBlock *b = c->reply;
    while (b) {
        clientReplyBlock *next = b->next;
        memFree(c->srv->mem, b);
        b = next;
    }
    c->reply = c->reply_tail = NULL;
    c->reply_bytes = 0;
    c->reply_blocks = 0;
}

/* Frees what a client owns besides its connection. */
static void _freeClientState(client *c) {
    redisServer *s = c->srv;
    freeClientMultiState(c);
    unwatchAllKeys(c);
    pubsubClientRelease(c);
    freeClientArgv(c);
    memFree(s->mem, c->argv);
    sdsfree(s->mem, c->querybuf);
    sdsfree(s->mem, c->name);
    _freeReplyList(c);
    memFree(s->mem, c->buf);
    memFree(s->mem, c);
}

/* Closes the connection and frees everything the client owns. */
void freeClient(client *c) {
    redisServer *s = c->srv;
    if (s->current_client == c) s->current_client = NULL;
    if (c->flags & CLIENT_SLAVE) replicationRemoveReplica(s, c);
    if (c->flags & CLIENT_MASTER) replicationHandleMasterDisconnection(s);
    if (c->flags & CLIENT_MONITOR) monitorClientGone(c);
    if (c->flags & CLIENT_TRACKING) disableTracking(c);
    if (s->recovery) recoveryClientGone(s, c);
    if (s->audit.active && s->audit.client_id == c->id)
        s->audit.client_id = UINT64_MAX;
    aeDeleteFileEvent(s->el, c->fd, AE_READABLE | AE_WRITABLE);
    s->el->backend.close(s->el->backend.ctx, c->fd);
    if (c->flags & CLIENT_PENDING_WRITE) _unlinkPendingWrite(c);
    if (c->flags & CLIENT_CLOSE_ASAP) s->clients_to_close--;
    blockedClientGone(c);
    s->clients[c->fd] = NULL;
    s->numclients--;
    _freeClientState(c);
}

/* The connected client with this id, or NULL. O(connections), where
 * Redis keeps an index of its clients by id: the world has a handful. */
client *lookupClientByID(redisServer *s, uint64_t id) {
    for (int fd = 0; fd < s->clients_cap; fd++)
        if (s->clients[fd] && s->clients[fd]->id == id) return s->clients[fd];
    return NULL;
}

/* A client without a connection, with flags: the loaders' (CLIENT_FAKE:
 * no replies) and the ones scripts run their commands as (CLIENT_SCRIPT:
 * its replies are read back by the script, clientReplyTake). It is
 * authenticated, in db 0, and not in the server's table of clients. With
 * take_id it takes the next client id, as Redis's AOF and script clients
 * do (so a fresh server's first connection is client 3). */
client *createDetachedClient(redisServer *s, uint64_t flags, int take_id) {
    client *c = memCallocAs(s->mem, sizeof(*c), MEM64_CLIENT);
    c->srv = s;
    if (take_id) c->id = s->next_client_id++;
    c->fd = -1;
    c->db = &s->db[0];
    c->querybuf = sdsempty(s->mem);
    c->bulklen = -1;
    c->resp = 2;
    c->authenticated = 1;
    c->flags = flags;
    if (!(flags & CLIENT_FAKE)) {
        c->buf = memAlloc(s->mem, PROTO_REPLY_CHUNK_BYTES);
        c->buf_usable_size = PROTO_REPLY_CHUNK_BYTES;
    }
    c->ctime_ms = c->lastinteraction_ms = (uint64_t)s->mstime;
    return c;
}

void freeDetachedClient(client *c) { _freeClientState(c); }

/* The replies c has queued, as one string; c's buffers are emptied. */
sds clientReplyTake(client *c) {
    redisServer *s = c->srv;
    sds r = sdsnewlen(s->mem, c->buf, c->bufpos);
    for (clientReplyBlock *b = c->reply; b; b = b->next)
        r = sdscatlen(s->mem, r, b->buf, b->used);
    c->bufpos = 0;
    _freeReplyList(c);
    return r;
}

/* Marks the client to be freed at a safe point (beforeSleep), because the
 * caller may still be using it. */
void freeClientAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    c->srv->clients_to_close++;
}

/* ---- Rewriting what a command propagates. ----
 *
 * The AOF (and a replica) receive the command's argv as it is after the
 * command ran, and commands may rewrite it so that replaying it gives the
 * same result at any later time: SET k v EX 10 becomes SET k v PXAT
 * <absolute ms>, EXPIRE becomes PEXPIREAT, INCRBYFLOAT becomes a SET of
 * its result. The command being run (c->cmd) stays what it was. */

/* Keeps the arguments as the client sent them before the first rewrite
 * of a command, for the slow log (new references). */
static void _retainOriginalArgv(client *c) {
    if (c->original_argv) return;
    c->original_argc = c->argc;
    c->original_argv = memAllocAs(c->srv->mem,
                                  sizeof(robj *) * (size_t)(c->argc + 1),
                                  MEM64_PTR * (size_t)(c->argc + 1));
    for (int j = 0; j < c->argc; j++) {
        c->original_argv[j] = c->argv[j];
        incrRefCount(c->argv[j]);
    }
}

/* Drops the arguments _retainOriginalArgv kept, if any. */
void freeClientOriginalArgv(client *c) {
    if (!c->original_argv) return;
    for (int j = 0; j < c->original_argc; j++)
        decrRefCount(c->srv, c->original_argv[j]);
    memFree(c->srv->mem, c->original_argv);
    c->original_argv = NULL;
    c->original_argc = 0;
}

/* Hides argument i of the command being run from the slow log, which
 * shows "(redacted)" in its place (HELLO's AUTH password, say). */
void redactClientCommandArgument(client *c, int i) {
    _retainOriginalArgv(c);
    decrRefCount(c->srv, c->original_argv[i]);
    c->original_argv[i] = createStringObject(c->srv, "(redacted)", 10);
}

/* Replaces argv with argc objects, which the client now owns. */
void replaceClientCommandVector(client *c, int argc, robj **argv) {
    _retainOriginalArgv(c);
    for (int j = 0; j < c->argc; j++) decrRefCount(c->srv, c->argv[j]);
    memFree(c->srv->mem, c->argv);
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
}

/* Replaces argv with argc objects given as arguments (new references). */
void rewriteClientCommandVector(client *c, int argc, ...) {
    va_list ap;
    robj **argv = memAllocAs(c->srv->mem, sizeof(robj *) * (size_t)argc,
                             MEM64_PTR * (size_t)argc);
    va_start(ap, argc);
    for (int j = 0; j < argc; j++) {
        argv[j] = va_arg(ap, robj *);
        incrRefCount(argv[j]);
    }
    va_end(ap);
    replaceClientCommandVector(c, argc, argv);
}

/* Replaces argument i (appending it if i == argc) with a new reference to
 * newval. */
void rewriteClientCommandArgument(client *c, int i, robj *newval) {
    _retainOriginalArgv(c);
    if (i >= c->argc) {
        if (i >= c->argv_len) {
            c->argv = memReallocAs(c->srv->mem, c->argv,
                                   sizeof(robj *) * (size_t)(i + 1),
                                   MEM64_PTR * (size_t)(i + 1));
            c->argv_len = i + 1;
        }
        c->argc = i + 1;
        c->argv[i] = NULL;
    }
    robj *old = c->argv[i];
    c->argv[i] = newval;
    incrRefCount(newval);
    if (old) decrRefCount(c->srv, old);
}

/* Ready for the next command: argv freed, parser state cleared. The
 * command that CLIENT REPLY SKIP silences is the one after it: the skip
 * is armed once CLIENT REPLY SKIP itself is done, and disarmed after the
 * next. */
void resetClient(client *c) {
    trackingResetCaching(c);
    freeClientArgv(c);
    /* Redis frees the argv array after every command. I keep it for the
     * next one, unless a command of over 1024 arguments made it big: a
     * SADD of 100,000 members must not hold 800 KB once it is done. */
    if (c->argv_len > 1024) {
        memFree(c->srv->mem, c->argv);
        c->argv = NULL;
        c->argv_len = 0;
    }
    c->reqtype = 0;
    c->multibulklen = 0;
    c->bulklen = -1;
    /* CLIENT REPLY SKIP silences the command after itself only. */
    c->flags &= ~(uint64_t)CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~(uint64_t)CLIENT_REPLY_SKIP_NEXT;
    }
}

/* ---- Request parsing. ---- */

/* Splits a line shell-style, as sdssplitargs: "..." with \n \r \t \b \a
 * \\ \" and \xHH escapes, '...' with \' only; a closing quote must be
 * followed by a space or the end. Returns the number of arguments, with the
 * sds array in *argvp (free it with splitArgsRelease), or -1 on unbalanced
 * quotes. Inline requests and the AOF manifest's lines are read with it,
 * as Redis reads both with sdssplitargs. */
int splitArgs(redisServer *s, const char *line, sds **argvp) {
    const char *p = line;
    int argc = 0, cap = 0;
    sds *argv = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' ||
               *p == '\v' || *p == '\f') p++;
        if (!*p) break;
        int inq = 0, insq = 0, done = 0;
        sds cur = sdsempty(s->mem);
        while (!done) {
            if (inq) {
                if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2])
                    && isxdigit((unsigned char)p[3])) {
                    char hex[3] = { p[2], p[3], 0 };
                    char byte = (char)strtol(hex, NULL, 16);
                    cur = sdscatlen(s->mem, cur, &byte, 1);
                    p += 3;
                } else if (p[0] == '\\' && p[1]) {
                    char ch;
                    p++;
                    switch (*p) {
                    case 'n': ch = '\n'; break;
                    case 'r': ch = '\r'; break;
                    case 't': ch = '\t'; break;
                    case 'b': ch = '\b'; break;
                    case 'a': ch = '\a'; break;
                    default: ch = *p; break;
                    }
                    cur = sdscatlen(s->mem, cur, &ch, 1);
                } else if (*p == '"') {
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err;
                } else {
                    cur = sdscatlen(s->mem, cur, p, 1);
                }
            } else if (insq) {
                if (p[0] == '\\' && p[1] == '\'') {
                    p++;
                    cur = sdscatlen(s->mem, cur, "'", 1);
                } else if (*p == '\'') {
                    if (p[1] && !isspace((unsigned char)p[1])) goto err;
                    done = 1;
                } else if (!*p) {
                    goto err;
                } else {
                    cur = sdscatlen(s->mem, cur, p, 1);
                }
            } else {
                switch (*p) {
                case ' ': case '\n': case '\r': case '\t': case '\0':
                    done = 1; break;
                case '"': inq = 1; break;
                case '\'': insq = 1; break;
                default: cur = sdscatlen(s->mem, cur, p, 1); break;
                }
            }
            if (*p) p++;
        }
        if (argc == cap) {
            cap = cap ? cap * 2 : 4;
            argv = memRealloc(s->mem, argv, sizeof(sds) * (size_t)cap);
        }
        argv[argc++] = cur;
        continue;
err:
        sdsfree(s->mem, cur);
        splitArgsRelease(s, argv, argc);
        *argvp = NULL;
        return -1;
    }
    *argvp = argv;
    return argc;
}

/* Frees what splitArgs returned. */
void splitArgsRelease(redisServer *s, sds *argv, int argc) {
    for (int j = 0; j < argc; j++) sdsfree(s->mem, argv[j]);
    memFree(s->mem, argv);
}

static void _ensureArgv(client *c, int want) {
    if (want <= c->argv_len) return;
    c->argv = memReallocAs(c->srv->mem, c->argv, sizeof(robj *) * (size_t)want,
                           MEM64_PTR * (size_t)want);
    c->argv_len = want;
}

/* Parses one inline command ("SET k v\r\n", as typed in telnet). Returns
 * C_OK when a whole line was consumed, C_ERR when more bytes are needed or
 * on a protocol error. */
static int _processInlineBuffer(client *c) {
    redisServer *s = c->srv;
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *newline = memchr(start, '\n', avail);
    size_t lf = 1;
    if (!newline) {
        if (avail > PROTO_INLINE_MAX_SIZE) {
            addReplyError(c, "Protocol error: too big inline request");
            _setProtocolError(c);
        }
        return C_ERR;
    }
    if (newline != start && newline[-1] == '\r') { newline--; lf++; }
    size_t querylen = (size_t)(newline - start);
    sds aux = sdsnewlen(s->mem, start, querylen);
    sds *argv;
    int argc = splitArgs(s, aux, &argv);
    sdsfree(s->mem, aux);
    if (argc < 0) {
        addReplyError(c, "Protocol error: unbalanced quotes in request");
        _setProtocolError(c);
        return C_ERR;
    }
    c->qb_pos += querylen + lf;
    _ensureArgv(c, argc);
    /* Inline arguments keep the strings splitArgs made (raw), as in
     * Redis; a command that stores one re-encodes it. */
    for (int j = 0; j < argc; j++)
        c->argv[j] = createObject(s, OBJ_STRING, argv[j]);
    c->argc = argc;
    memFree(s->mem, argv);
    return C_OK;
}

static int _protoError(client *c, const char *msg) {
    addReplyError(c, msg);
    _setProtocolError(c);
    return C_ERR;
}

/* Reads "<prefix><integer>\r\n" at qb_pos, the header line that both the
 * multibulk count and each bulk length use. Returns C_OK with *ll, *ok
 * (whether the integer parsed) and *next (where the line ends) set;
 * C_ERR if the line is not complete yet, or if no \r came within the
 * inline limit, which is then replied as the protocol error too_big. */
static int _readCountLine(client *c, const char *too_big, long long *ll,
                          int *ok, size_t *next) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *nl = strchr(start, '\r');
    if (!nl) {
        if (avail > PROTO_INLINE_MAX_SIZE) return _protoError(c, too_big);
        return C_ERR;
    }
    if ((size_t)(nl - start) + 2 > avail) return C_ERR;
    *ok = string2ll(start + 1, (size_t)(nl - (start + 1)), ll);
    *next = (size_t)(nl - c->querybuf) + 2;
    return C_OK;
}

/* Parses the "*<count>\r\n" header of a multibulk request. */
static int _readMultibulkHeader(client *c) {
    long long ll;
    int ok;
    size_t next;
    if (_readCountLine(c, "Protocol error: too big mbulk count string", &ll,
                       &ok, &next) != C_OK)
        return C_ERR;
    if (!ok || ll > INT_MAX)
        return _protoError(c, "Protocol error: invalid multibulk length");
    if (ll > 10 && authRequired(c))
        return _protoError(c, "Protocol error: unauthenticated multibulk "
                              "length");
    c->qb_pos = next;
    if (ll <= 0) return C_OK;
    c->multibulklen = (int)ll;
    _ensureArgv(c, c->multibulklen < 1024 ? c->multibulklen : 1024);
    return C_OK;
}

/* Parses one "$<len>\r\n" argument header. */
static int _readBulkHeader(client *c) {
    long long ll;
    int ok;
    size_t next;
    if (_readCountLine(c, "Protocol error: too big bulk count string", &ll,
                       &ok, &next) != C_OK)
        return C_ERR;
    if (c->querybuf[c->qb_pos] != '$') {
        addReplyErrorFormat(c, "Protocol error: expected '$', got '%c'",
                            c->querybuf[c->qb_pos]);
        _setProtocolError(c);
        return C_ERR;
    }
    if (!ok || ll < 0 || ll > c->srv->cfg.proto_max_bulk_len)
        return _protoError(c, "Protocol error: invalid bulk length");
    /* A length this build cannot even address (4 GB in WebAssembly) would
     * exceed the query buffer limit long before it arrived: close. A
     * length that is merely past the limit is taken, as Redis takes it:
     * the client is closed once its bytes really fill the buffer, and the
     * replies it is owed are sent first. */
    if ((unsigned long long)ll > (unsigned long long)(SIZE_MAX - 2)) {
        freeClientAsync(c);
        return C_ERR;
    }
    if (ll > 16384 && authRequired(c))
        return _protoError(c, "Protocol error: unauthenticated bulk length");
    c->qb_pos = next;
    c->bulklen = ll;
    return C_OK;
}

/* Parses a RESP multibulk request ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"),
 * possibly across several reads: the state (arguments left, length of the
 * current one) lives in the client. C_OK when the command is complete. */
static int _processMultibulkBuffer(client *c) {
    redisServer *s = c->srv;
    if (c->multibulklen == 0) {
        if (_readMultibulkHeader(c) != C_OK) return C_ERR;
        if (c->multibulklen == 0) return C_OK;
    }
    while (c->multibulklen) {
        if (c->bulklen == -1 && _readBulkHeader(c) != C_OK) return C_ERR;
        if (sdslen(c->querybuf) - c->qb_pos < (size_t)c->bulklen + 2)
            return C_ERR;
        if (c->argc >= c->argv_len) {
            long want = (long)c->argv_len * 2;
            if (want > c->argc + c->multibulklen)
                want = c->argc + c->multibulklen;
            _ensureArgv(c, (int)want);
        }
        robj *o = tryCreateStringObject(s, c->querybuf + c->qb_pos,
                                        (size_t)c->bulklen);
        if (!o) { freeClientAsync(c); return C_ERR; }
        c->argv[c->argc++] = o;
        c->qb_pos += (size_t)c->bulklen + 2;
        c->bulklen = -1;
        c->multibulklen--;
    }
    return C_OK;
}

/* A protocol error closes the client once the error reply is written. */
static void _setProtocolError(client *c) {
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* Runs what c's buffer holds, c being the current client meanwhile; the
 * client current before is restored after, since a busy script serves
 * other clients from inside a command, and the command's own client must
 * not then look freed and leave the rest of its pipeline unread. */
void processClientInput(client *c) {
    redisServer *s = c->srv;
    client *old = s->current_client;
    s->current_client = c;
    processInputBuffer(c);
    s->current_client = old;
}

/* Executes every complete command in the query buffer, in order; first
 * the command a pause held, if the client was resumed. */
void processInputBuffer(client *c) {
    redisServer *s = c->srv;
    if ((c->flags & CLIENT_PENDING_COMMAND) && !(c->flags & CLIENT_BLOCKED)) {
        processCommand(c);  /* it clears CLIENT_PENDING_COMMAND */
        if (s->current_client == NULL) return; /* freed */
        if (!(c->flags & CLIENT_BLOCKED)) resetClient(c);
    }
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) break;
        /* A blocked client reads on, but runs nothing until unblocked. */
        if (c->flags & CLIENT_BLOCKED) break;
        if (!c->reqtype)
            c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK
                                                      : PROTO_REQ_INLINE;
        int r = c->reqtype == PROTO_REQ_INLINE ? _processInlineBuffer(c)
                                               : _processMultibulkBuffer(c);
        if (r != C_OK) break;
        if (c->argc == 0) {
            resetClient(c);
        } else {
            processCommand(c);
            if (s->current_client == NULL) return; /* freed */
            /* A command held (a pause) is not applied yet. */
            if ((c->flags & CLIENT_MASTER) && !(c->flags & CLIENT_BLOCKED))
                replicationMasterApplied(c);
            /* A client that blocked keeps its command until unblocked. */
            if (!(c->flags & CLIENT_BLOCKED)) resetClient(c);
        }
    }
    /* A master's bytes read but not applied yet (a transaction until its
     * EXEC) are kept: they go to this server's replicas as they came. */
    size_t keep = 0;
    if (c->flags & CLIENT_MASTER)
        keep = (size_t)(c->read_reploff - c->reploff) -
               (sdslen(c->querybuf) - c->qb_pos);
    if (c->qb_pos > keep) {
        sdsrange(c->querybuf, (long)(c->qb_pos - keep), -1);
        c->qb_pos = keep;
    }
}

/* Readable handler: reads up to 16 KB (or exactly the rest of a big bulk
 * argument), enforces the query buffer limit and processes the buffer.
 * The buffer grows by exactly what is asked for while it is smaller than
 * one read, as in Redis 7.0 (so a new client's buffer is 16 KB), and
 * with room to spare otherwise. Redis also sizes a big argument exactly,
 * at once; here its room grows with the bytes that arrive (see below),
 * which only doubling keeps from costing quadratic copying. (Redis then
 * reads all the spare room at once; here a read stays at most 16 KB.) */
void readQueryFromClient(aeEventLoop *el, int fd, void *privdata, int mask) {
    client *c = privdata;
    redisServer *s = c->srv;
    size_t readlen = PROTO_IOBUF_LEN;
    int big_arg = 0;
    if (c->reqtype == PROTO_REQ_MULTIBULK && c->multibulklen &&
        c->bulklen >= PROTO_MBULK_BIG_ARG) {
        big_arg = 1;
        size_t have = sdslen(c->querybuf) - c->qb_pos;
        size_t want = (size_t)c->bulklen + 2;
        if (want > have) readlen = want - have;
        /* Redis makes room for the whole argument at once, and the kernel
         * backs it page by page as bytes come. Here the room is real
         * memory, so it grows by at most what one read can return (a
         * socket holds at most PROTO_BIG_READ_MAX): an announced length
         * costs nothing until its bytes arrive. */
        if (readlen > PROTO_BIG_READ_MAX) readlen = PROTO_BIG_READ_MAX;
    }
    size_t alloc = sdslen(c->querybuf) + sdsavail(c->querybuf);
    /* The buffer's growth is charged once the read returns, with the
     * processing of what it brought: a loop iteration's phases then
     * follow each other without a gap before the read. */
    uint64_t cpu = s->denv.cpu_ns;
    sds qb = !big_arg && alloc < PROTO_IOBUF_LEN
             ? sdsTryMakeRoomForNonGreedy(s->mem, c->querybuf, readlen)
             : sdsTryMakeRoomFor(s->mem, c->querybuf, readlen);
    uint64_t grow_ns = s->denv.cpu_ns - cpu;
    s->denv.cpu_ns = cpu;
    if (!qb) { freeClientAsync(c); return; }
    c->querybuf = qb;
    size_t qblen = sdslen(qb);
    long nread = el->backend.read(el->backend.ctx, fd, qb + qblen, readlen);
    s->denv.cpu_ns += grow_ns;
    if (nread < 0) return;
    if (nread == 0) { freeClientAsync(c); return; }
    sdsIncrLen(c->querybuf, (size_t)nread);
    if (sdslen(c->querybuf) > c->querybuf_peak)
        c->querybuf_peak = sdslen(c->querybuf);
    c->lastinteraction_ms = (uint64_t)s->mstime;
    c->net_input_bytes += (uint64_t)nread;
    s->stat_net_input_bytes += nread;
    if (c->flags & CLIENT_MASTER) c->read_reploff += nread;
    if (!(c->flags & CLIENT_MASTER) &&
        (long long)sdslen(c->querybuf) > s->cfg.client_max_querybuf_len) {
        freeClientAsync(c);
        return;
    }
    processClientInput(c);
}

/* ---- Reply buffering. ---- */

int clientHasPendingReplies(client *c) {
    return c->bufpos || c->reply != NULL;
}

/* Queues the client for a write in beforeSleep. C_ERR if no reply should
 * be produced (the client is about to be closed). */
static int _prepareClientToWrite(client *c) {
    /* A script's client keeps its replies for the script to read. */
    if (c->flags & CLIENT_SCRIPT) return C_OK;
    if (c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP |
                    CLIENT_FAKE))
        return C_ERR;
    /* The master gets no replies, only what the replica sends it. */
    if ((c->flags & CLIENT_MASTER) &&
        !(c->flags & CLIENT_MASTER_FORCE_REPLY))
        return C_ERR;
    /* CLIENT REPLY OFF or SKIP silence replies, not Pub/Sub messages. */
    if ((c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) &&
        !(c->flags & CLIENT_PUSHING))
        return C_ERR;
    /* A replica's stream waits in its buffers until it is online (its
     * RDB first) and, when diskless, has acknowledged. */
    if (c->replstate && (c->replstate != SLAVE_STATE_ONLINE ||
                         c->repl_start_cmd_stream_on_ack))
        return C_OK;
    clientInstallWriteHandler(c);
    return C_OK;
}

/* putClientInPendingWriteQueue: the client's buffers are written at the
 * next beforeSleep (or when its socket turns writable, if it waits for
 * that already). */
void clientInstallWriteHandler(client *c) {
    if (!(c->flags & CLIENT_PENDING_WRITE) &&
        !(aeGetFileEvents(c->srv->el, c->fd) & AE_WRITABLE)) {
        c->flags |= CLIENT_PENDING_WRITE;
        c->next_pending = c->srv->pending_write;
        c->srv->pending_write = c;
    }
}

static size_t _addReplyToBuffer(client *c, const char *s, size_t len) {
    if (c->reply) return 0;     /* once the list is used, keep order */
    size_t avail = c->buf_usable_size - c->bufpos;
    if (len > avail) len = avail;
    memcpy(c->buf + c->bufpos, s, len);
    c->bufpos += len;
    return len;
}

static void _addReplyProtoToList(client *c, const char *s, size_t len) {
    clientReplyBlock *tail = c->reply_tail;
    if (tail && tail->size > tail->used) {
        size_t n = tail->size - tail->used;
        if (n > len) n = len;
        memcpy(tail->buf + tail->used, s, n);
        tail->used += n;
        s += n;
        len -= n;
    }
    if (len == 0) return;
    size_t size = len < PROTO_REPLY_CHUNK_BYTES ? PROTO_REPLY_CHUNK_BYTES : len;
    clientReplyBlock *b = memTryAlloc(c->srv->mem, sizeof(*b) + size);
    if (!b) {                   /* a reply too big to hold: drop the client */
        freeClientAsync(c);
        return;
    }
    b->size = size;
    b->used = len;
    b->next = NULL;
    memcpy(b->buf, s, len);
    if (tail) tail->next = b;
    else c->reply = b;
    c->reply_tail = b;
    c->reply_bytes += size;
    c->reply_blocks++;
    closeClientOnOutputBufferLimitReached(c, 1);
}

/* Appends len raw bytes of RESP to the client's reply: into its 16 KB
 * buffer, then into the block list. This contract holds for every addReply*
 * below: nothing reaches the socket before beforeSleep; no status is
 * returned; for a fake client (AOF loading) or one about to be closed the
 * reply is dropped silently; if the host refuses a reply block the client
 * is dropped (freeClientAsync; addReplyDeferredLen instead stops the
 * engine). Arguments are borrowed: I copy the bytes and keep no reference,
 * except the *Sds variants, which free their sds. */
void addReplyProto(client *c, const char *s, size_t len) {
    if (_prepareClientToWrite(c) != C_OK) return;
    c->srv->denv.cpu_ns += COST_REPLY_NS +
                           (uint64_t)len * COST_REPLY_NS_PER_KB / 1024;
    c->reply_queued += len;
    size_t n = _addReplyToBuffer(c, s, len);
    if (n < len) _addReplyProtoToList(c, s + n, len - n);
}

/* copyReplicaOutputBuffer: dst, a replica joining a BGSAVE that src
 * waits for, gets the stream src has buffered since the fork. */
void copyReplicaOutputBuffer(client *dst, client *src) {
    addReplyProto(dst, src->buf, src->bufpos);
    for (clientReplyBlock *b = src->reply; b; b = b->next)
        addReplyProto(dst, b->buf, b->used);
}

/* Appends the bytes of a string object as raw protocol (no framing). */
void addReply(client *c, robj *obj) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(obj, buf, &len);
    addReplyProto(c, p, len);
}

static void _addReplyLongLongWithPrefix(client *c, long long ll, char pre) {
    char buf[LONG_STR_SIZE + 3];
    buf[0] = pre;
    int len = ll2string(buf + 1, sizeof(buf) - 1, ll);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    addReplyProto(c, buf, (size_t)len + 3);
}

/* An integer reply, ":<ll>\r\n". */
void addReplyLongLong(client *c, long long ll) {
    _addReplyLongLongWithPrefix(c, ll, ':');
}

/* An array header, "*<length>\r\n"; the caller adds the elements. */
void addReplyArrayLen(client *c, long length) {
    _addReplyLongLongWithPrefix(c, length, '*');
}

/* A map of length field-value pairs: "%<length>" in RESP3, an array of
 * twice as many elements in RESP2. The caller adds field, value, ... */
void addReplyMapLen(client *c, long length) {
    if (c->resp == 2) _addReplyLongLongWithPrefix(c, length * 2, '*');
    else _addReplyLongLongWithPrefix(c, length, '%');
}

/* A set of length elements: "~<length>" in RESP3, an array in RESP2. */
void addReplySetLen(client *c, long length) {
    _addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '~');
}

/* An attribute of length pairs ("|<length>"), RESP3 only. */
void addReplyAttributeLen(client *c, long length) {
    _addReplyLongLongWithPrefix(c, length, '|');
}

/* A push of length elements (">"), RESP3 only: out-of-band data. */
void addReplyPushLen(client *c, long length) {
    _addReplyLongLongWithPrefix(c, length, '>');
}

/* A bulk string of len bytes from p, binary safe. */
void addReplyBulkCBuffer(client *c, const void *p, size_t len) {
    _addReplyLongLongWithPrefix(c, (long long)len, '$');
    addReplyProto(c, p, len);
    addReplyProto(c, "\r\n", 2);
}

/* A bulk string holding the value of a string object (INT as decimal). */
void addReplyBulk(client *c, robj *obj) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(obj, buf, &len);
    addReplyBulkCBuffer(c, p, len);
}

/* A bulk string of the C string s; the null bulk string if s is NULL. */
void addReplyBulkCString(client *c, const char *s) {
    if (!s) addReplyNull(c);
    else addReplyBulkCBuffer(c, s, strlen(s));
}

/* Replies with s and frees it. */
void addReplyBulkSds(client *c, sds s) {
    addReplyBulkCBuffer(c, s, sdslen(s));
    sdsfree(c->srv->mem, s);
}

/* ll in decimal, as a bulk string (not an integer reply). */
void addReplyBulkLongLong(client *c, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), ll);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

/* addReplyBulk of o, or the null bulk string when o is NULL. */
void addReplyBulkOrNil(client *c, robj *o) {
    if (o) addReplyBulk(c, o);
    else addReplyNull(c);
}

/* The null bulk string in RESP2, RESP3's null "_" otherwise. */
void addReplyNull(client *c) {
    if (c->resp == 2) addReplyProto(c, "$-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

/* The null array in RESP2; RESP3 has one null, "_". */
void addReplyNullArray(client *c) {
    if (c->resp == 2) addReplyProto(c, "*-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

/* Replies with one of the fixed replies commands pass around as text
 * (REPLY_NULL, REPLY_EMPTY_MAP, ":0\r\n" ...): the nulls and the empty map
 * and set take the shape of the client's protocol; anything else goes out
 * as it is. */
void addReplyFixed(client *c, const char *proto) {
    if (!strcmp(proto, REPLY_NULL)) addReplyNull(c);
    else if (!strcmp(proto, REPLY_NULL_ARRAY)) addReplyNullArray(c);
    else if (!strcmp(proto, REPLY_EMPTY_MAP)) addReplyMapLen(c, 0);
    else if (!strcmp(proto, REPLY_EMPTY_SET)) addReplySetLen(c, 0);
    else addReplyProto(c, proto, strlen(proto));
}

/* A boolean: the integers 1 and 0 in RESP2, "#t" and "#f" in RESP3. */
void addReplyBool(client *c, int b) {
    if (c->resp == 2) addReplyProto(c, b ? ":1\r\n" : ":0\r\n", 4);
    else addReplyProto(c, b ? "#t\r\n" : "#f\r\n", 4);
}

/* A number too big for an integer reply: a bulk string in RESP2, RESP3's
 * big number "(" otherwise. num must hold only the digits and a sign. */
void addReplyBigNum(client *c, const char *num, size_t len) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, num, len);
    } else {
        addReplyProto(c, "(", 1);
        addReplyProto(c, num, len);
        addReplyProto(c, "\r\n", 2);
    }
}
void addReplyOK(client *c) { addReplyProto(c, "+OK\r\n", 5); }

/* A status reply, "+<s>\r\n"; s must not hold CR or LF. */
void addReplyStatusLength(client *c, const char *s, size_t len) {
    addReplyProto(c, "+", 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

/* addReplyStatusLength of a C string. */
void addReplyStatus(client *c, const char *status) {
    addReplyStatusLength(c, status, strlen(status));
}

/* Doubles go out in Redis's format ("1.5", "inf"): as bulk strings in
 * RESP2, as RESP3 doubles (",1.5") otherwise. */
void addReplyDouble(client *c, double d) {
    char buf[MAX_D2STRING_CHARS + 3];
    if (c->resp == 2) {
        int len = d2string(buf, sizeof(buf), d);
        addReplyBulkCBuffer(c, buf, (size_t)len);
        return;
    }
    buf[0] = ',';
    int len = d2string(buf + 1, sizeof(buf) - 3, d);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    addReplyProto(c, buf, (size_t)len + 3);
}

/* An error reply: "-ERR <err>" unless err carries its own "-CODE". Every
 * error counts in INFO's total_error_replies. */
static void _addReplyErrorLength(client *c, const char *s, size_t len) {
    if (!len || s[0] != '-') addReplyProto(c, "-ERR ", 5);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
    if (c->flags & CLIENT_ERROR_NO_STATS) {
        /* Counted already where it happened; the command still failed. */
        if (c->cmd) c->srv->cmdstats[c->cmd->id].failed++;
        return;
    }
    c->srv->stat_total_error_replies++;
    /* The code is the first word of the error. */
    if (!len || s[0] != '-') {
        incrementErrorCount(c->srv, "ERR", 3);
    } else {
        const char *sp = memchr(s, ' ', len);
        incrementErrorCount(c->srv, s + 1, (sp ? (size_t)(sp - s) : len) - 1);
    }
}

/* One more error reply with this code. A code beyond the 128th is not
 * counted, as in Redis. */
void incrementErrorCount(redisServer *s, const char *code, size_t len) {
    if (len >= sizeof(((errorStat *)0)->code))
        len = sizeof(((errorStat *)0)->code) - 1;
    int lo = 0, hi = s->nerrstats;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        int cmp = strncmp(s->errstats[mid].code, code, len);
        if (cmp == 0 && s->errstats[mid].code[len]) cmp = 1;
        if (cmp == 0) {
            s->errstats[mid].count++;
            return;
        }
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
    }
    if (s->nerrstats >= ERROR_STATS_NUMBER) return;
    if (!s->errstats)
        s->errstats = memCalloc(s->mem,
                                ERROR_STATS_NUMBER * sizeof(errorStat));
    memmove(&s->errstats[lo + 1], &s->errstats[lo],
            sizeof(errorStat) * (size_t)(s->nerrstats - lo));
    memcpy(s->errstats[lo].code, code, len);
    s->errstats[lo].code[len] = '\0';
    s->errstats[lo].count = 1;
    s->nerrstats++;
}

/* An error reply, "-ERR <err>\r\n", or err as is when it starts with its
 * own "-CODE". err must not hold CR or LF. Counts in total_error_replies. */
void addReplyError(client *c, const char *err) {
    _addReplyErrorLength(c, err, strlen(err));
}

/* Takes ownership of err. Newlines would break the protocol, so they become
 * spaces, as Redis does for formatted errors. */
void addReplyErrorSds(client *c, sds err) {
    for (size_t i = 0; i < sdslen(err); i++)
        if (err[i] == '\r' || err[i] == '\n') err[i] = ' ';
    _addReplyErrorLength(c, err, sdslen(err));
    sdsfree(c->srv->mem, err);
}

/* addReplyErrorSds for an error counted already: a script's reply of the
 * error a command inside it replied (and was counted for). */
void addReplyErrorSdsNoStats(client *c, sds err) {
    uint64_t had = c->flags & CLIENT_ERROR_NO_STATS;
    c->flags |= CLIENT_ERROR_NO_STATS;
    addReplyErrorSds(c, err);
    if (!had) c->flags &= ~CLIENT_ERROR_NO_STATS;
}

/* A printf-formatted error, as addReplyErrorSds (CR and LF become
 * spaces). */
void addReplyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(c->srv->mem, sdsempty(c->srv->mem), fmt, ap);
    va_end(ap);
    addReplyErrorSds(c, s);
}

/* "wrong number of arguments for '<command>' command"; c->cmd must be set. */
void addReplyErrorArity(client *c) {
    addReplyErrorFormat(c, "wrong number of arguments for '%s' command",
                        c->cmd->fullname);
}

/* "invalid expire time in '<command>' command"; c->cmd must be set. */
void addReplyErrorExpireTime(client *c) {
    addReplyErrorFormat(c, "invalid expire time in '%s' command",
                        c->cmd->fullname);
}

/* The error a container command (OBJECT, CONFIG, ...) replies to an
 * unknown subcommand in argv[1], as 7.0 words it; argc must be >= 2. */
void addReplySubcommandSyntaxError(client *c) {
    sds cmd = sdsnew(c->srv->mem, c->argv[0]->v.ptr);
    sdstoupper(cmd);
    addReplyErrorFormat(c, "unknown subcommand or wrong number of arguments "
                        "for '%.128s'. Try %s HELP.",
                        (char *)c->argv[1]->v.ptr, cmd);
    sdsfree(c->srv->mem, cmd);
}

/* A verbatim string: a plain bulk string in RESP2, "=<len>\r\n" then
 * a three-letter format ("txt", "mkd"), a colon and the text in RESP3. */
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, s, len);
        return;
    }
    char fmt[4] = "   ";
    for (int i = 0; i < 3 && ext[i]; i++) fmt[i] = ext[i];
    _addReplyLongLongWithPrefix(c, (long long)len + 4, '=');
    addReplyProto(c, fmt, 3);
    addReplyProto(c, ":", 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

/* Replies with the help text of a container command, as an array of
 * status lines framed the way Redis frames them. */
void addReplyHelp(client *c, const char **help) {
    sds cmd = sdsnew(c->srv->mem, c->argv[0]->v.ptr);
    sdstoupper(cmd);
    long n = 0;
    while (help[n]) n++;
    addReplyArrayLen(c, n + 3);
    sds head = sdscatprintf(c->srv->mem, sdsempty(c->srv->mem),
        "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    addReplyStatusLength(c, head, sdslen(head));
    for (long i = 0; i < n; i++) addReplyStatus(c, help[i]);
    addReplyStatus(c, "HELP");
    addReplyStatus(c, "    Prints this help.");
    sdsfree(c->srv->mem, head);
    sdsfree(c->srv->mem, cmd);
}

/* Reserves room for an array length not known yet: everything after it
 * goes to the reply list, and setDeferredArrayLen fills the marker. */
void *addReplyDeferredLen(client *c) {
    if (_prepareClientToWrite(c) != C_OK) return NULL;
    clientReplyBlock *b = memAlloc(c->srv->mem, sizeof(*b) + LONG_STR_SIZE + 3);
    b->size = 0;                /* nothing may be appended into it */
    b->used = 0;
    b->next = NULL;
    if (c->reply_tail) c->reply_tail->next = b;
    else c->reply = b;
    c->reply_tail = b;
    c->reply_blocks++;
    return b;
}

/* Fills the marker that addReplyDeferredLen returned with a header:
 * prefix then length. A NULL node (the reply was being dropped) is
 * ignored. */
static void _setDeferredAggregateLen(client *c, void *node, long length,
                                     char prefix) {
    if (!node) return;
    clientReplyBlock *b = node;
    b->buf[0] = prefix;
    int len = ll2string(b->buf + 1, LONG_STR_SIZE, length);
    b->buf[len + 1] = '\r';
    b->buf[len + 2] = '\n';
    b->used = b->size = (size_t)len + 3;
    c->reply_bytes += b->size;
    c->reply_queued += b->size;
}

/* Fills the marker with "*<length>\r\n". */
void setDeferredArrayLen(client *c, void *node, long length) {
    _setDeferredAggregateLen(c, node, length, '*');
}

/* Fills the marker with a map of length pairs (an array in RESP2). */
void setDeferredMapLen(client *c, void *node, long length) {
    if (c->resp == 2) _setDeferredAggregateLen(c, node, length * 2, '*');
    else _setDeferredAggregateLen(c, node, length, '%');
}

/* Fills the marker with a set of length elements (an array in RESP2). */
void setDeferredSetLen(client *c, void *node, long length) {
    _setDeferredAggregateLen(c, node, length, c->resp == 2 ? '*' : '~');
}

/* ---- Writing replies. ---- */

/* Writes as much as allowed of the client's pending replies: the buffer
 * first, then the blocks in order, stopping after 64 KB so one client with
 * a huge reply cannot starve the others. Frees the client if it was to be
 * closed after its reply. Returns C_ERR if the client was freed. */
static int _writeToClient(client *c) {
    redisServer *s = c->srv;
    aeBackend *be = &s->el->backend;
    size_t total = 0;
    while (clientHasPendingReplies(c)) {
        const char *p;
        size_t len;
        if (c->bufpos > 0) {
            p = c->buf + c->sentlen;
            len = c->bufpos - c->sentlen;
        } else {
            p = c->reply->buf + c->sentlen;
            len = c->reply->used - c->sentlen;
        }
        /* Whether these bytes will really leave: a process killed at this
         * point goes on to the end of its iteration, and its writes are
         * then never sent. The write asks the same question first. */
        int live = !s->recovery || !s->fs.alive ||
                   s->fs.alive(s->fs.ctx, FS_POINT_CALL);
        long n = len ? be->write(be->ctx, c->fd, p, len) : 0;
        if (n == -2) {              /* a hard error, not "try later" */
            aeDeleteFileEvent(s->el, c->fd, AE_WRITABLE);
            freeClientAsync(c);
            return C_ERR;
        }
        if (n < 0) break;
        c->sentlen += (size_t)n;
        total += (size_t)n;
        if (live) c->reply_delivered += (uint64_t)n;
        if (c->bufpos > 0 && c->sentlen == c->bufpos) {
            c->bufpos = c->sentlen = 0;
        } else if (c->bufpos == 0 && c->sentlen == c->reply->used) {
            clientReplyBlock *b = c->reply;
            c->reply = b->next;
            if (!c->reply) c->reply_tail = NULL;
            c->reply_bytes -= b->size;
            c->reply_blocks--;
            memFree(s->mem, b);
            c->sentlen = 0;
        }
        if ((size_t)n < len) break;     /* the socket buffer is full */
        if (total > NET_MAX_WRITES_PER_EVENT) break;
    }
    c->net_output_bytes += total;
    s->stat_net_output_bytes += (long long)total;
    if (!clientHasPendingReplies(c)) {
        aeDeleteFileEvent(s->el, c->fd, AE_WRITABLE);
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            freeClient(c);
            return C_ERR;
        }
    }
    return C_OK;
}

/* Writable handler, installed when replies did not fit in one write. */
void sendReplyToClient(aeEventLoop *el, int fd, void *privdata, int mask) {
    _writeToClient(privdata);
}

/* beforeSleep: writes every queued client's replies; a client with more
 * left gets a writable handler for the next iterations. Returns how many
 * clients were processed. */
int handleClientsWithPendingWrites(redisServer *s) {
    int processed = 0;
    while (s->pending_write) {
        client *c = s->pending_write;
        s->pending_write = c->next_pending;
        c->flags &= ~(uint64_t)CLIENT_PENDING_WRITE;
        processed++;
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        if (_writeToClient(c) == C_ERR) continue;
        if (!clientHasPendingReplies(c)) continue;
        /* With appendfsync always the rest is written before the next
         * read of this client (AE_BARRIER): a reply never leaves in the
         * same iteration as a new command was read, without the fsync of
         * beforeSleep between them. */
        int mask = AE_WRITABLE;
        if (s->aof.state == AOF_ON &&
            s->cfg.appendfsync == AOF_FSYNC_ALWAYS) mask |= AE_BARRIER;
        aeCreateFileEvent(s->el, c->fd, mask, sendReplyToClient, c);
    }
    return processed;
}

/* ---- Output buffer limits (client-output-buffer-limit). ----
 *
 * Each class of client (normal, replica, pub/sub) has a hard limit and a
 * soft limit with a number of seconds. A client whose replies waiting in
 * its list reach the hard limit, or stay at the soft limit or above for
 * longer than the seconds, is closed: asynchronously when a reply makes it
 * cross a limit, at once when serverCron finds the soft limit held too
 * long. The fixed 16 KB buffer does not count; each block of the list
 * counts with the 40 bytes Redis's list node and block header take. A
 * replica's stream is held in its own reply list here (Redis shares one
 * buffer between replicas), so it counts the same way. */

#define REPLY_LIST_ITEM_BYTES 40

/* The class of client c: a MONITOR client counts as a normal one, as
 * in Redis 7.0 (which marks it a replica internally). */
int getClientType(client *c) {
    if (c->flags & CLIENT_MASTER) return CLIENT_TYPE_MASTER;
    if (c->flags & CLIENT_SLAVE) return CLIENT_TYPE_SLAVE;
    if (c->flags & CLIENT_PUBSUB) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

size_t getClientOutputBufferMemoryUsage(client *c) {
    return c->reply_bytes + REPLY_LIST_ITEM_BYTES * (size_t)c->reply_blocks;
}

/* The bytes of the strings among argv[0..argc) (argv-mem, multi-mem). */
size_t clientArgvBytes(robj **argv, int argc) {
    size_t n = 0;
    for (int j = 0; j < argc; j++)
        if (sdsEncodedObject(argv[j])) n += sdslen(argv[j]->v.ptr);
    return n;
}

/* What a client holds, as Redis 7.0 estimates it for CLIENT LIST's
 * tot-mem and for INFO memory: the output buffer (also put in *obuf),
 * the query buffer's block, the client struct and its reply buffer, the
 * arguments' bytes and their pointers, MULTI's queued commands, and the
 * tables of its subscriptions (Redis counts patterns as list nodes). */
size_t getClientMemoryUsage(client *c, size_t *obuf) {
    size_t mem = getClientOutputBufferMemoryUsage(c);
    if (obuf) *obuf = mem;
    mem += memBlockSize(sdsAllocPtr(c->querybuf));
    mem += MEM64_CLIENT + c->buf_usable_size;
    mem += clientArgvBytes(c->argv, c->argc) + MEM64_PTR * (size_t)c->argc;
    for (int j = 0; j < c->mstate.count; j++)
        mem += clientArgvBytes(c->mstate.commands[j].argv,
                               c->mstate.commands[j].argc);
    mem += MEM64_MULTI_CMD * (size_t)c->mstate.cap;
    mem += MEM64_LIST_NODE * (size_t)c->pubsub_npatterns;
    if (c->pubsub_channels)
        mem += MEM64_DICT_ENTRY * dictSize(c->pubsub_channels) +
               MEM64_PTR * dictSlots(c->pubsub_channels);
    if (c->pubsubshard_channels)
        mem += MEM64_DICT_ENTRY * dictSize(c->pubsubshard_channels) +
               MEM64_PTR * dictSlots(c->pubsubshard_channels);
    /* BCAST prefixes, as Redis reckons them (an underestimate: four
     * bytes of node header times a pointer's eight, per node). */
    if (c->tracking_prefixes)
        mem += 32 * (size_t)raxNodesAsRedis(c->tracking_prefixes);
    return mem;
}

/* ---- Client eviction (maxmemory-clients). ----
 *
 * When the normal and pub/sub clients together hold maxmemory-clients or
 * more, the largest evictable ones are closed until they hold less: before
 * each command and in beforeSleep, as in 7.0. Redis keeps clients in
 * buckets by log2 of their memory (32 KB and below share the first, 8 GB
 * and above the last) and takes them from the top bucket, in the order
 * they joined it; here the sums are taken afresh each time, and within a
 * bucket the client on the lowest descriptor goes first. Masters,
 * replicas and clients with CLIENT NO-EVICT are never evicted; a MONITOR
 * client counts, and goes, as a normal one. A client already closing
 * (its memory goes at the end of the iteration) is left out of the sum,
 * where Redis, which frees its victims at once, would count one closing
 * for another reason until then. */

#define CLIENT_MEM_BUCKET_MIN_LOG 15
#define CLIENT_MEM_BUCKET_MAX_LOG 33

/* The limit in bytes, 0 for none: a percentage of maxmemory when the
 * parameter is negative (none without maxmemory), and never less than
 * 128 KB, so that a bad value cannot cut every client off. */
static size_t _clientEvictionLimit(redisServer *s) {
    long long v = s->cfg.maxmemory_clients;
    double limit;
    if (v < 0 && s->cfg.maxmemory > 0)
        limit = (double)s->cfg.maxmemory * (double)-v / 100;
    else if (v > 0)
        limit = (double)v;
    else
        return 0;
    if (limit < 128 * 1024) limit = 128 * 1024;
    return limit >= (double)SIZE_MAX ? SIZE_MAX : (size_t)limit;
}

static int _clientMemBucket(size_t mem) {
    int bits = mem ? 64 - __builtin_clzll((unsigned long long)mem) : 0;
    if (bits < CLIENT_MEM_BUCKET_MIN_LOG) bits = CLIENT_MEM_BUCKET_MIN_LOG;
    if (bits > CLIENT_MEM_BUCKET_MAX_LOG) bits = CLIENT_MEM_BUCKET_MAX_LOG;
    return bits - CLIENT_MEM_BUCKET_MIN_LOG;
}

/* Closes clients while the evictable kinds are over the limit: the
 * current client at once (its command is then not run: processCommand's
 * caller sees it gone), any other at the end of the iteration, so that a
 * command running for it (a busy script) finishes first. */
void evictClients(redisServer *s) {
    size_t limit = _clientEvictionLimit(s);
    if (!limit) return;
    for (;;) {
        size_t total = 0;
        client *victim = NULL;
        int top = -1;
        for (int fd = 0; fd < s->clients_cap; fd++) {
            client *c = s->clients[fd];
            if (!c || (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_FAKE)))
                continue;
            int type = (c->flags & CLIENT_MONITOR) ? CLIENT_TYPE_NORMAL
                                                   : getClientType(c);
            if (type != CLIENT_TYPE_NORMAL && type != CLIENT_TYPE_PUBSUB)
                continue;
            size_t mem = getClientMemoryUsage(c, NULL);
            total += mem;
            if (c->flags & CLIENT_NO_EVICT) continue;
            int b = _clientMemBucket(mem);
            if (b > top) {
                top = b;
                victim = c;
            }
        }
        if (total < limit) return;
        if (!victim) {
            serverLog(s, LL_WARNING, "Over client maxmemory after evicting "
                      "all evictable clients");
            return;
        }
        sds info = catClientInfoString(s, victim, sdsempty(s->mem));
        serverLog(s, LL_NOTICE, "Evicting client: %s", info);
        sdsfree(s->mem, info);
        s->stat_evictedclients++;
        if (victim == s->current_client) freeClient(victim);
        else freeClientAsync(victim);
    }
}

/* Whether c is past its class's hard limit, or past the soft limit for
 * longer than allowed (the first time it is seen past the soft limit, the
 * time is noted). */
static int _checkOutputBufferLimits(client *c) {
    redisServer *s = c->srv;
    int class = getClientType(c);
    if (class == CLIENT_TYPE_MASTER) class = CLIENT_TYPE_NORMAL;
    const clientBufferLimits *l = &s->cfg.obuf_limits[class];
    unsigned long long used = getClientOutputBufferMemoryUsage(c);
    long long hard_bytes = l->hard;
    /* A replica's limit below the backlog would cut off a partial sync:
     * the backlog's size is used instead. */
    if (class == CLIENT_TYPE_SLAVE && hard_bytes &&
        hard_bytes < s->cfg.repl_backlog_size)
        hard_bytes = s->cfg.repl_backlog_size;
    int hard = l->hard && used >= (unsigned long long)hard_bytes;
    int soft = l->soft && used >= (unsigned long long)l->soft;
    long long now = s->mstime / 1000;
    if (!soft) {
        c->obuf_soft_limit_reached_time = 0;
    } else if (c->obuf_soft_limit_reached_time == 0) {
        c->obuf_soft_limit_reached_time = now;
        soft = 0;
    } else if (now - c->obuf_soft_limit_reached_time <= l->soft_seconds) {
        soft = 0;
    }
    return soft || hard;
}

/* Closes c (async: marks it to be freed in beforeSleep, since the caller
 * may be in the middle of writing to it) if it is past its limits,
 * logging as Redis does. Returns 1 if it was closed or marked. */
int closeClientOnOutputBufferLimitReached(client *c, int async) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_FAKE) return 0;
    if ((c->reply_bytes == 0 && getClientType(c) != CLIENT_TYPE_SLAVE) ||
        (c->flags & CLIENT_CLOSE_ASAP)) return 0;
    if (!_checkOutputBufferLimits(c)) return 0;
    sds info = catClientInfoString(s, c, sdsempty(s->mem));
    if (async) {
        freeClientAsync(c);
        serverLog(s, LL_WARNING, "Client %s scheduled to be closed ASAP for "
                  "overcoming of output buffer limits.", info);
    } else {
        freeClient(c);
        serverLog(s, LL_WARNING, "Client %s closed for overcoming of output "
                  "buffer limits.", info);
    }
    sdsfree(s->mem, info);
    return 1;
}

/* serverCron's share of clientsCron: a client held at the soft limit
 * with no new reply to notice it is closed here. */
void clientsCronOutputBufferLimits(redisServer *s) {
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (c && c->reply_bytes) closeClientOnOutputBufferLimitReached(c, 0);
    }
}

/* clientsCron's query buffer resizing, Redis 7.0's rules: a buffer
 * wasting more than 4 KB is emptied of its spare room when the client
 * has been idle for over 2 seconds, or, past 32 KB, cut down to the
 * larger of its content, its peak since the last check and the bulk
 * being read, when that peak is under half its size. The peak then
 * restarts from what the buffer holds now. */
#define PROTO_RESIZE_THRESHOLD (1024 * 32)
static void _clientsCronResizeQueryBuffer(client *c) {
    redisServer *s = c->srv;
    size_t len = sdslen(c->querybuf), size = len + sdsavail(c->querybuf);
    long long idle = s->mstime / 1000 -
                     (long long)(c->lastinteraction_ms / 1000);
    if (sdsavail(c->querybuf) > 1024 * 4) {
        if (idle > 2) {
            c->querybuf = sdsRemoveFreeSpace(s->mem, c->querybuf);
        } else if (size > PROTO_RESIZE_THRESHOLD &&
                   size / 2 > c->querybuf_peak) {
            size_t resize = len;
            if (resize < c->querybuf_peak) resize = c->querybuf_peak;
            if (c->bulklen != -1 && resize < (size_t)c->bulklen)
                resize = (size_t)c->bulklen;
            c->querybuf = sdsResize(s->mem, c->querybuf, resize);
        }
    }
    c->querybuf_peak = sdslen(c->querybuf);
    if (c->bulklen != -1 && (size_t)c->bulklen > c->querybuf_peak)
        c->querybuf_peak = (size_t)c->bulklen;
}

/* serverCron's clientsCron: numclients/hz clients per call, at least 5
 * (all of them if fewer), round-robin, as Redis walks its client list,
 * so that each client is looked at about once a second. */
#define CLIENTS_CRON_MIN_ITERATIONS 5
void clientsCron(redisServer *s) {
    int n = s->numclients / s->hz;
    if (n < CLIENTS_CRON_MIN_ITERATIONS)
        n = s->numclients < CLIENTS_CRON_MIN_ITERATIONS
            ? s->numclients : CLIENTS_CRON_MIN_ITERATIONS;
    for (int seen = 0; n > 0 && seen < s->clients_cap; seen++) {
        s->clients_cron_fd = (s->clients_cron_fd + 1) % s->clients_cap;
        client *c = s->clients[s->clients_cron_fd];
        if (!c) continue;
        n--;
        _clientsCronResizeQueryBuffer(c);
    }
}

/* client-output-buffer-limit's value: <class> <hard> <soft> <seconds>,
 * any number of times, checked all before any is taken, into limits.
 * Returns 1, or 0 with *why set to Redis's reason. */
int obufLimitsParse(clientBufferLimits *limits, int argc, char **argv,
                    const char **why) {
    clientBufferLimits v[CLIENT_TYPE_OBUF_COUNT];
    int set[CLIENT_TYPE_OBUF_COUNT] = { 0 };
    if (argc % 4) {
        *why = "Wrong number of arguments in buffer limit configuration.";
        return 0;
    }
    for (int j = 0; j < argc; j += 4) {
        int class = !strcasecmp(argv[j], "normal") ? CLIENT_TYPE_NORMAL
            : !strcasecmp(argv[j], "slave") ||
              !strcasecmp(argv[j], "replica") ? CLIENT_TYPE_SLAVE
            : !strcasecmp(argv[j], "pubsub") ? CLIENT_TYPE_PUBSUB : -1;
        if (class < 0) {
            *why = "Invalid client class specified in buffer limit "
                   "configuration.";
            return 0;
        }
        long long hard, soft;
        char *end;
        long long secs = strtoll(argv[j + 3], &end, 10);
        if (!configParseMemory(argv[j + 1], &hard) ||
            !configParseMemory(argv[j + 2], &soft) || secs < 0 || *end) {
            *why = "Error in hard, soft or soft_seconds setting in buffer "
                   "limit configuration.";
            return 0;
        }
        v[class] = (clientBufferLimits){ hard, soft, (int)secs };
        set[class] = 1;
    }
    for (int k = 0; k < CLIENT_TYPE_OBUF_COUNT; k++)
        if (set[k]) limits[k] = v[k];
    return 1;
}

/* The value as CONFIG GET shows it. */
sds obufLimitsString(redisServer *s, const clientBufferLimits *limits) {
    static const char *const names[] = { "normal", "slave", "pubsub" };
    sds o = sdsempty(s->mem);
    for (int k = 0; k < CLIENT_TYPE_OBUF_COUNT; k++)
        o = sdscatprintf(s->mem, o, "%s%s %llu %llu %ld", k ? " " : "",
                         names[k], (unsigned long long)limits[k].hard,
                         (unsigned long long)limits[k].soft,
                         (long)limits[k].soft_seconds);
    return o;
}
