/* replication.c -- the master's side of Redis 7.0's replication: a replica
 * that asks with PSYNC (or SYNC) continues from the backlog or gets a full
 * copy, and then the stream of writes.
 *
 * A replica connects as a client and sends PSYNC replid offset (or SYNC).
 * If this server's history is the one asked for and the backlog still
 * holds the offset, it gets "+CONTINUE <replid>" and the backlog's bytes
 * from there. Otherwise it joins the replicas waiting for a BGSAVE: with
 * repl-diskless-sync (7.0's default) the fork waits repl-diskless-sync-
 * delay seconds for more replicas to join, then a child makes the RDB
 * for their sockets, sent as "$EOF:<40 chars>\r\n" ... "<40 chars>";
 * without it, a child writes dump.rdb and the file is sent as "$<len>\r\n"
 * and its bytes. Each gets "+FULLRESYNC <replid> <offset>" at the fork.
 * The writes made meanwhile wait in its output buffer and follow the RDB:
 * at once for a disk sync, from its first REPLCONF ACK for a diskless one.
 * The stream is every write the server propagates, as the AOF gets it: a
 * SELECT whenever the db changes, MULTI ... EXEC around an execution unit
 * of more than one command, PING every repl-ping-replica-period seconds.
 * It counts into master_repl_offset and a backlog of repl-backlog-size
 * bytes that exists from the first replica on (INFO replication). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "server.h"
#include "rdb.h"
#include "siphash.h"

/* 40 hex digits drawn for `what` (its n-th), from the server's hash seed
 * and its pid: fixed by the world's seed like everything random here, and
 * new for every process, as Redis draws them at random. */
static void _hexId(redisServer *s, const char *what, long long n,
                   char *out) {
    static const char hex[] = "0123456789abcdef";
    uint64_t h = 0;
    for (int i = 0; i < 40; i++) {
        if (i % 16 == 0) {
            char in[64];
            int len = snprintf(in, sizeof(in), "%s:%d:%lld:%d", what, s->pid,
                               n, i);
            h = siphash((const uint8_t *)in, (size_t)len, s->denv.seed);
        }
        out[i] = hex[h & 15];
        h >>= 4;
    }
    out[40] = '\0';
}

/* A new replication id, as Redis draws one at each start. */
static void _makeReplid(redisServer *s) {
    _hexId(s, "replid", s->replid_gen++, s->replid);
}

/* The replication id, made the first time it is asked for. */
const char *replicationId(redisServer *s) {
    if (!s->replid[0]) _makeReplid(s);
    return s->replid;
}

/* The RDB a full sync sends, shared by the replicas of one BGSAVE: the
 * bulk's header, the file's bytes (and the EOF mark). It lives outside
 * the server's memory, as Redis reads the file (or the child's pipe) a
 * buffer at a time. */
typedef struct replRdb {
    gkMem mem;
    sds data;
    int refs;
    int socket;                 /* diskless: online at the first ACK */
    /* Diskless: the child writes the RDB into its pipe while it works,
     * from start_ns for span_ns, so its bytes can be sent only as they
     * come; the header at once, the EOF mark once the child is done. */
    uint64_t start_ns, span_ns;
    size_t head_len;
    int done;
} replRdb;

#define REPL_BULK_CHUNK (16 * 1024)     /* PROTO_IOBUF_LEN */

static replRdb *_rdbNew(redisServer *s, int socket);
static void _sendBulk(aeEventLoop *el, int fd, void *data, int mask);

/* The replica's IP address (INFO's ip=), from its connection's peer
 * "ip:port" or "[ip]:port". */
const char *replicaIp(client *c, char *buf, size_t cap) {
    const char *peer = getClientPeerId(c);
    const char *colon = strrchr(peer, ':');
    size_t len = colon ? (size_t)(colon - peer) : strlen(peer);
    if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']') {
        peer++;
        len -= 2;
    }
    if (len >= cap) len = cap - 1;
    memcpy(buf, peer, len);
    buf[len] = '\0';
    return buf;
}

/* The backlog's capacity: repl-backlog-size, at least 16 KB, as 7.0
 * raises a smaller setting. */
#define REPL_BACKLOG_MIN_SIZE (16 * 1024)
static size_t _backlogSize(redisServer *s) {
    long long size = s->cfg.repl_backlog_size;
    return size < REPL_BACKLOG_MIN_SIZE ? REPL_BACKLOG_MIN_SIZE
                                        : (size_t)size;
}

/* The backlog's newest bytes move to a buffer of cap bytes (linear, the
 * next byte at the end). */
static void _backlogMove(redisServer *s, size_t cap) {
    size_t keep = (size_t)s->repl_backlog_histlen;
    if (keep > cap) keep = cap;
    char *buf = memAlloc(s->mem, cap);
    size_t from = s->repl_backlog_cap
        ? (s->repl_backlog_idx + s->repl_backlog_cap - keep) %
          s->repl_backlog_cap : 0;
    for (size_t done = 0; done < keep;) {
        size_t n = keep - done;
        if (n > s->repl_backlog_cap - from) n = s->repl_backlog_cap - from;
        memcpy(buf + done, s->repl_backlog_buf + from, n);
        done += n;
        from = (from + n) % s->repl_backlog_cap;
    }
    memFree(s->mem, s->repl_backlog_buf);
    s->repl_backlog_buf = buf;
    s->repl_backlog_cap = cap;
    s->repl_backlog_idx = keep;
    s->repl_backlog_histlen = (long long)keep;
}

/* Keeps len more bytes of the stream in the backlog: the oldest go once
 * it holds its size. It grows by doubling (16 KB at first) while it is
 * smaller, so an idle master's backlog costs little memory. */
static void _backlogAppend(redisServer *s, const char *p, size_t len) {
    size_t size = _backlogSize(s);
    if (s->repl_backlog_cap > size) _backlogMove(s, size);
    if (len > size) {
        p += len - size;
        len = size;
    }
    if (s->repl_backlog_cap < size &&
        s->repl_backlog_idx + len > s->repl_backlog_cap) {
        size_t cap = s->repl_backlog_cap ? s->repl_backlog_cap * 2
                                         : REPL_BACKLOG_MIN_SIZE;
        while (cap < s->repl_backlog_idx + len) cap *= 2;
        _backlogMove(s, cap < size ? cap : size);
    }
    while (len) {
        if (s->repl_backlog_idx == s->repl_backlog_cap)
            s->repl_backlog_idx = 0;        /* full size: a ring now */
        size_t n = s->repl_backlog_cap - s->repl_backlog_idx;
        if (n > len) n = len;
        memcpy(s->repl_backlog_buf + s->repl_backlog_idx, p, n);
        s->repl_backlog_idx += n;
        p += n;
        len -= n;
        s->repl_backlog_histlen += (long long)n;
    }
    if (s->repl_backlog_histlen > (long long)s->repl_backlog_cap)
        s->repl_backlog_histlen = (long long)s->repl_backlog_cap;
}

/* The bytes the backlog holds from offset on, to the client c. */
static long long _backlogSend(redisServer *s, client *c, long long offset) {
    long long skip = offset - s->repl_backlog_off;
    long long left = s->repl_backlog_histlen - skip;
    if (left <= 0) return 0;
    size_t cap = s->repl_backlog_cap;
    size_t at = (s->repl_backlog_idx + cap - (size_t)left) % cap;
    for (long long done = 0; done < left;) {
        size_t n = (size_t)(left - done);
        if (n > cap - at) n = cap - at;
        addReplyProto(c, s->repl_backlog_buf + at, n);
        done += (long long)n;
        at = (at + n) % cap;
    }
    return left;
}

/* The memory the backlog holds (INFO's mem_replication_backlog). */
size_t replicationBacklogMemory(redisServer *s) {
    return s->repl_backlog_buf ? memBlockSize(s->repl_backlog_buf) : 0;
}

/* freeReplicationBacklog. */
void replicationReleaseBacklog(redisServer *s) {
    memFree(s->mem, s->repl_backlog_buf);
    s->repl_backlog_buf = NULL;
    s->repl_backlog_cap = s->repl_backlog_idx = 0;
    s->repl_backlog_histlen = 0;
}

/* Appends bytes to the stream: the backlog and every replica. */
static void _feed(redisServer *s, const char *p, size_t len) {
    if (!s->repl_backlog_active) return;
    s->master_repl_offset += (long long)len;
    _backlogAppend(s, p, len);
    s->repl_backlog_off = s->master_repl_offset - s->repl_backlog_histlen + 1;
    /* Not to those waiting for a BGSAVE to start: theirs will hold it. */
    for (int i = 0; i < s->nreplicas; i++)
        if (s->replicas[i]->replstate != SLAVE_STATE_WAIT_BGSAVE_START)
            addReplyProto(s->replicas[i], p, len);
}

/* replicationFeedSlaves: a propagated command, preceded by a SELECT when
 * it is for another db than the last one fed. dbid -1 (EXEC) needs none.
 * Nothing is fed before the first replica created the backlog. */
void replicationFeed(redisServer *s, int dbid, robj **argv, int argc) {
    /* A replica feeds its replicas its master's bytes instead. */
    if (!s->repl_backlog_active || s->masterhost) return;
    sds o = sdsempty(s->mem);
    if (dbid >= 0 && dbid != s->repl_seldb) {
        o = catSelectProtocol(s, o, dbid);
        s->repl_seldb = dbid;
    }
    o = catCommandProtocol(s, o, argc, argv);
    _feed(s, o, sdslen(o));
    sdsfree(s->mem, o);
}

/* replicationFeedStreamFromMasterStream: on a replica, the bytes of its
 * master's stream it applied, to its own backlog and replicas as they
 * came. */
void replicationFeedRaw(redisServer *s, const char *p, size_t len) {
    if (s->repl_backlog_active) _feed(s, p, len);
    else s->master_repl_offset += (long long)len;
}

/* Whether anything listens to the propagated stream besides the AOF. */
int replicationActive(redisServer *s) {
    return s->repl_backlog_active && !s->masterhost;
}

/* The backlog, from the current offset on, if there is none yet. */
static void _createBacklog(redisServer *s) {
    if (s->repl_backlog_active) return;
    replicationReleaseBacklog(s);
    s->repl_backlog_active = 1;
    s->repl_backlog_off = s->master_repl_offset + 1;
}

/* A replica that continued its master's stream (+CONTINUE) without a
 * backlog yet (restarted from its RDB) makes one now, for its own
 * replicas to continue from. */
void replicationCreateBacklog(redisServer *s) { _createBacklog(s); }

/* After a full sync from a master: its replid and offset are this
 * server's, with no second history, and a backlog from there on. */
void replicationAdoptHistory(redisServer *s, const char *replid,
                             long long offset) {
    memcpy(s->replid, replid, 41);
    memset(s->replid2, '0', 40);
    s->replid2[40] = '\0';
    s->second_replid_offset = -1;
    s->master_repl_offset = offset;
    s->repl_backlog_active = 0;
    _createBacklog(s);
    s->repl_seldb = -1;
}

/* A master answered +CONTINUE with a new replid: the old history is the
 * second one, valid up to here. */
void replicationAdoptNewId(redisServer *s, const char *replid) {
    memcpy(s->replid2, replicationId(s), 41);
    s->second_replid_offset = s->master_repl_offset + 1;
    memcpy(s->replid, replid, 41);
    replicationDisconnectReplicas(s);
}

/* DEBUG CHANGE-REPL-ID: a new replid, and no second history. */
void replicationChangeId(redisServer *s) {
    _makeReplid(s);
    memset(s->replid2, '0', 40);
    s->replid2[40] = '\0';
    s->second_replid_offset = -1;
}

/* shiftReplicationId: a replica turned master starts a new history; the
 * one it followed stays valid, as replid2, up to its offset. */
void replicationShiftId(redisServer *s) {
    memcpy(s->replid2, replicationId(s), 41);
    s->second_replid_offset = s->master_repl_offset + 1;
    _makeReplid(s);
    serverLog(s, LL_WARNING, "Setting secondary replication ID to %s, valid "
              "up to offset: %lld. New replication ID is %s", s->replid2,
              s->second_replid_offset, s->replid);
}

/* disconnectSlaves: every replica's link is closed; they connect again
 * and learn the new history. Each leaves the list now, logged, as 7.0's
 * freeClient does it (before the flush of a full sync, before MASTER
 * MODE enabled); its socket and memory go when the event loop frees the
 * clients marked to close, since the caller may be running a command. */
void replicationDisconnectReplicas(redisServer *s) {
    while (s->nreplicas) {
        client *c = s->replicas[0];
        replicationRemoveReplica(s, c);
        freeClientAsync(c);
    }
}

/* The replicas online whose last ACK is at most min-replicas-max-lag
 * seconds old. */
static int _goodReplicas(redisServer *s) {
    int good = 0;
    for (int i = 0; i < s->nreplicas; i++)
        if (s->replicas[i]->replstate == SLAVE_STATE_ONLINE &&
            (s->mstime - s->replicas[i]->repl_ack_time_ms) / 1000 <=
            s->cfg.repl_min_slaves_max_lag)
            good++;
    return good;
}

/* Whether writes may go on under min-replicas-to-write. */
int checkGoodReplicasStatus(redisServer *s) {
    return s->masterhost || !s->cfg.repl_min_slaves_max_lag ||
           !s->cfg.repl_min_slaves_to_write ||
           _goodReplicas(s) >= s->cfg.repl_min_slaves_to_write;
}

/* replicationGetSlaveName: the replica's address and the port it listens
 * on ("127.0.0.1:6380"), or "<unknown-replica-port>" before it said. */
static const char *_replicaName(client *c, char *buf, size_t cap) {
    char ip[64];
    replicaIp(c, ip, sizeof(ip));
    const char *fmt = strchr(ip, ':') ? "[%s]:" : "%s:";
    int n = snprintf(buf, cap, fmt, ip);
    if (n < 0 || (size_t)n >= cap) return buf;
    if (c->slave_listening_port)
        snprintf(buf + n, cap - (size_t)n, "%d", c->slave_listening_port);
    else
        snprintf(buf + n, cap - (size_t)n, "<unknown-replica-port>");
    return buf;
}

/* The caller joins the replicas in state st. */
static void _addReplica(redisServer *s, client *c, int st) {
    c->flags |= CLIENT_SLAVE;
    c->replstate = st;
    c->repl_ack_time_ms = s->mstime;
    if (s->nreplicas == s->replicas_cap) {
        s->replicas_cap = s->replicas_cap ? s->replicas_cap * 2 : 4;
        s->replicas = memRealloc(s->mem, s->replicas,
                                 sizeof(client *) * (size_t)s->replicas_cap);
    }
    s->replicas[s->nreplicas++] = c;
}

/* masterTryPartialResynchronization: PSYNC replid offset continues the
 * stream from offset if this server's history is the one asked for (its
 * replid, or its previous one up to where that ended) and the backlog
 * still holds offset. C_OK once the replica got +CONTINUE and the
 * backlog's bytes; C_ERR, logged as 7.0 logs why, for a full resync. */
static int _tryPartialResync(client *c, const char *name) {
    redisServer *s = c->srv;
    const char *want = c->argv[1]->v.ptr;
    long long offset;
    if (getLongLongFromObject(c->argv[2], &offset) != C_OK) return C_ERR;
    const char *replid = replicationId(s);
    if (strcasecmp(want, replid) &&
        (strcasecmp(want, s->replid2) || offset > s->second_replid_offset)) {
        if (want[0] != '?') {
            if (strcasecmp(want, replid) && strcasecmp(want, s->replid2))
                serverLog(s, LL_NOTICE, "Partial resynchronization not "
                          "accepted: Replication ID mismatch (Replica asked "
                          "for '%s', my replication IDs are '%s' and '%s')",
                          want, replid, s->replid2);
            else
                serverLog(s, LL_NOTICE, "Partial resynchronization not "
                          "accepted: Requested offset for second ID was "
                          "%lld, but I can reply up to %lld", offset,
                          s->second_replid_offset);
        } else {
            serverLog(s, LL_NOTICE, "Full resync requested by replica %s",
                      name);
        }
        return C_ERR;
    }
    if (!s->repl_backlog_active || offset < s->repl_backlog_off ||
        offset > s->repl_backlog_off + s->repl_backlog_histlen) {
        serverLog(s, LL_NOTICE, "Unable to partial resync with replica %s "
                  "for lack of backlog (Replica request was: %lld).", name,
                  offset);
        if (offset > s->master_repl_offset)
            serverLog(s, LL_WARNING, "Warning: replica %s tried to PSYNC "
                      "with an offset that is greater than the master "
                      "replication offset.", name);
        return C_ERR;
    }
    _addReplica(s, c, SLAVE_STATE_ONLINE);
    char line[64];
    int n = (c->slave_capa & SLAVE_CAPA_PSYNC2)
        ? snprintf(line, sizeof(line), "+CONTINUE %s\r\n", replid)
        : snprintf(line, sizeof(line), "+CONTINUE\r\n");
    addReplyProto(c, line, (size_t)n);
    long long sent = _backlogSend(s, c, offset);
    serverLog(s, LL_NOTICE, "Partial resynchronization request from %s "
              "accepted. Sending %lld bytes of backlog starting from offset "
              "%lld.", name, sent, offset);
    return C_OK;
}

/* replicationSetupSlaveForFullResync: the replica's RDB will stand for
 * offset; a PSYNC replica is told so at once, on its socket. */
static void _setupFullResync(client *c, long long offset) {
    redisServer *s = c->srv;
    c->psync_initial_offset = offset;
    c->replstate = SLAVE_STATE_WAIT_BGSAVE_END;
    /* The stream after the RDB must say which db it is for. */
    s->repl_seldb = -1;
    if (c->flags & CLIENT_PRE_PSYNC) return;
    char line[128];
    int n = snprintf(line, sizeof(line), "+FULLRESYNC %s %lld\r\n",
                     replicationId(s), offset);
    aeBackend *be = &s->el->backend;
    if (be->write(be->ctx, c->fd, line, (size_t)n) != n)
        freeClientAsync(c);
}

/* 40 characters that end a diskless RDB. */
static void _makeEofMark(redisServer *s, char *mark) {
    _hexId(s, "eofmark", s->stat_total_forks, mark);
}

/* startBgsaveForReplication: a BGSAVE for the replicas waiting for one,
 * to their sockets (diskless, when every one of them can take an EOF-
 * marked RDB) or to disk. If it cannot start, they are told and
 * dropped. */
static void _startBgsaveForReplication(redisServer *s, int mincapa) {
    int socket = s->cfg.repl_diskless_sync && (mincapa & SLAVE_CAPA_EOF);
    serverLog(s, LL_NOTICE, "Starting BGSAVE for SYNC with target: %s",
              socket ? "replicas sockets" : "disk");
    int st;
    if (socket) {
        char mark[41];
        _makeEofMark(s, mark);
        for (int i = 0; i < s->nreplicas; i++)
            if (s->replicas[i]->replstate == SLAVE_STATE_WAIT_BGSAVE_START)
                _setupFullResync(s->replicas[i], s->master_repl_offset);
        st = rdbSaveToReplicasSockets(s, mark);
    } else {
        st = rdbSaveBackground(s);
    }
    if (st != C_OK) {
        /* Those waiting for it leave the replicas, told why (those set up
         * for a diskless one waited for it too). */
        serverLog(s, LL_WARNING, "BGSAVE for replication failed");
        int kept = 0;
        for (int i = 0; i < s->nreplicas; i++) {
            client *r = s->replicas[i];
            if (r->replstate != SLAVE_STATE_WAIT_BGSAVE_START &&
                (r->replstate != SLAVE_STATE_WAIT_BGSAVE_END || r->repl_rdb)) {
                s->replicas[kept++] = r;
                continue;
            }
            r->replstate = 0;
            r->flags &= ~(uint64_t)CLIENT_SLAVE;
            addReplyError(r, "BGSAVE failed, replication can't continue");
            r->flags |= CLIENT_CLOSE_AFTER_REPLY;
        }
        s->nreplicas = kept;
        return;
    }
    if (!socket) {
        for (int i = 0; i < s->nreplicas; i++)
            if (s->replicas[i]->replstate == SLAVE_STATE_WAIT_BGSAVE_START)
                _setupFullResync(s->replicas[i], s->master_repl_offset);
        return;
    }
    /* The child's RDB, framed, sent to each as the child makes it. */
    serverChild *ch = &s->child;
    replRdb *r = _rdbNew(s, 1);
    r->data = sdscatprintf(&r->mem, sdsempty(&r->mem), "$EOF:%s\r\n",
                           ch->eofmark);
    r->head_len = sdslen(r->data);
    r->data = sdscatsds(&r->mem, r->data, ch->data);
    r->data = sdscatlen(&r->mem, r->data, ch->eofmark, 40);
    r->span_ns = ch->cpu_ns ? ch->cpu_ns : 1;
    r->start_ns = ch->next - r->span_ns;
    r->refs = 1;                        /* the transfer's own */
    s->repl_socket_rdb = r;
    for (int i = 0; i < s->nreplicas; i++) {
        client *c = s->replicas[i];
        if (c->replstate != SLAVE_STATE_WAIT_BGSAVE_END || c->repl_rdb)
            continue;
        c->repl_rdb = r;
        c->repl_rdb_pos = 0;
        r->refs++;
        aeCreateFileEvent(s->el, c->fd, AE_WRITABLE, _sendBulk, c);
    }
}

/* replicationStartPendingFork, once a second and when a child is done:
 * the replicas waiting for a BGSAVE get one when no child runs and,
 * diskless, once the longest waiting has waited repl-diskless-sync-delay
 * seconds (or repl-diskless-sync-max-replicas are waiting). */
void replicationStartPendingFork(redisServer *s) {
    if (hasActiveChildProcess(s)) return;
    long long max_idle = 0;
    int waiting = 0, mincapa = -1;
    for (int i = 0; i < s->nreplicas; i++) {
        client *r = s->replicas[i];
        if (r->replstate != SLAVE_STATE_WAIT_BGSAVE_START) continue;
        long long idle = (long long)(s->mstime - r->lastinteraction_ms) /
                         1000;
        if (idle > max_idle) max_idle = idle;
        waiting++;
        mincapa = mincapa == -1 ? r->slave_capa : (mincapa & r->slave_capa);
    }
    if (!waiting) return;
    if (!s->cfg.repl_diskless_sync ||
        max_idle >= s->cfg.repl_diskless_sync_delay ||
        (s->cfg.repl_diskless_sync_max_replicas &&
         waiting >= s->cfg.repl_diskless_sync_max_replicas))
        _startBgsaveForReplication(s, mincapa);
}

static void _rdbUnref(redisServer *s, replRdb *r) {
    if (!r || --r->refs) return;
    sdsfree(&r->mem, r->data);
    memFree(s->mem, r);
}

static void _rdbRelease(redisServer *s, client *c) {
    replRdb *r = c->repl_rdb;
    c->repl_rdb = NULL;
    _rdbUnref(s, r);
}

/* How much of the RDB can be sent now: all of a file; of a diskless
 * one, what the child has written into its pipe so far. */
static size_t _rdbAvailable(redisServer *s, replRdb *r) {
    size_t len = sdslen(r->data);
    if (!r->socket || r->done) return len;
    uint64_t now = serverNow(s);
    size_t body = len - r->head_len - 40;
    if (now <= r->start_ns) return r->head_len;
    uint64_t el = now - r->start_ns;
    if (el >= r->span_ns) return len - 40;
    return r->head_len + (size_t)((double)body * (double)el /
                                  (double)r->span_ns);
}

/* A new RDB to send, data taken over. */
static replRdb *_rdbNew(redisServer *s, int socket) {
    replRdb *r = memCalloc(s->mem, sizeof(*r));
    memInit(&r->mem, s->mem->fn, s->mem->ud);
    r->socket = socket;
    return r;
}

/* putSlaveOnline: the RDB went; the stream buffered since follows. */
static void _putOnline(redisServer *s, client *c) {
    char name[96];
    c->replstate = SLAVE_STATE_ONLINE;
    c->repl_ack_time_ms = s->mstime;
    if (clientHasPendingReplies(c)) clientInstallWriteHandler(c);
    serverLog(s, LL_NOTICE, "Synchronization with replica %s succeeded",
              _replicaName(c, name, sizeof(name)));
}

/* A diskless replica has its whole RDB, the child is done: it is online
 * from its first ACK. */
static void _streamedOk(redisServer *s, client *c) {
    char name[96];
    _rdbRelease(s, c);
    c->replstate = SLAVE_STATE_ONLINE;
    c->repl_start_cmd_stream_on_ack = 1;
    c->repl_ack_time_ms = s->mstime;
    serverLog(s, LL_NOTICE, "Streamed RDB transfer with replica %s "
              "succeeded (socket). Waiting for REPLCONF ACK from slave to "
              "enable streaming", _replicaName(c, name, sizeof(name)));
    /* replicaPutOnline: online now, its stream held until the ACK */
    serverLog(s, LL_NOTICE, "Synchronization with replica %s succeeded",
              name);
}

/* Every millisecond while a diskless transfer runs: the replicas that
 * sent all the child had written so far get what it wrote since; it
 * stops when none is waiting for the child. */
static long long _streamTimer(aeEventLoop *el, long long id, void *data) {
    (void)id;
    redisServer *s = data;
    int pending = 0;
    for (int i = 0; i < s->nreplicas; i++) {
        client *c = s->replicas[i];
        replRdb *r = c->repl_rdb;
        if (!r || !r->socket || c->repl_rdb_pos == sdslen(r->data)) continue;
        /* one whose socket is full is woken by the socket instead */
        if (aeGetFileEvents(el, c->fd) & AE_WRITABLE) continue;
        if (c->repl_rdb_pos < _rdbAvailable(s, r))
            aeCreateFileEvent(el, c->fd, AE_WRITABLE, _sendBulk, c);
        else
            pending++;
    }
    if (pending) return 1;
    s->repl_stream_timer = -1;
    return AE_NOMORE;
}

/* sendBulkToSlave (and, diskless, rdbPipeWriteHandler): the RDB, a
 * buffer at a time as the socket takes it and the child makes it. */
static void _sendBulk(aeEventLoop *el, int fd, void *data, int mask) {
    (void)mask;
    client *c = data;
    redisServer *s = c->srv;
    replRdb *r = c->repl_rdb;
    aeBackend *be = &el->backend;
    size_t avail = _rdbAvailable(s, r);
    if (c->repl_rdb_pos >= avail) {
        /* all the child wrote so far went: wait for more */
        c->repl_last_partial_write = 0;
        aeDeleteFileEvent(el, fd, AE_WRITABLE);
        if (c->repl_rdb_pos < sdslen(r->data) && s->repl_stream_timer < 0)
            s->repl_stream_timer = aeCreateTimeEvent(el, 1, _streamTimer, s);
        return;
    }
    size_t left = avail - c->repl_rdb_pos;
    size_t want = left < REPL_BULK_CHUNK ? left : REPL_BULK_CHUNK;
    long n = be->write(be->ctx, fd, r->data + c->repl_rdb_pos, want);
    if (r->socket && (n == -1 || (n >= 0 && (size_t)n < want)))
        c->repl_last_partial_write = s->mstime / 1000;
    if (n == -1) return;                /* the socket is full: later */
    if (n < 0) {
        serverLog(s, LL_WARNING, "Write error sending DB to replica: %s",
                  "Connection reset by peer");
        freeClientAsync(c);
        return;
    }
    c->repl_rdb_pos += (size_t)n;
    s->stat_net_output_bytes += n;
    if (c->repl_rdb_pos < sdslen(r->data)) return;
    aeDeleteFileEvent(el, fd, AE_WRITABLE);
    if (!r->socket) {
        _rdbRelease(s, c);
        _putOnline(s, c);
    } else if (r->done) {
        _streamedOk(s, c);
    }
    /* else the child has yet to be reaped: updateSlavesWaitingBgsave */
}

/* updateSlavesWaitingBgsave: a BGSAVE child ended (ok: with success).
 * Those of a disk BGSAVE get the file; those of a diskless one, which
 * had its bytes as the child made them, are done (or get the rest); if
 * it failed, they are dropped. Those that came meanwhile wait for the
 * next BGSAVE (replicationStartPendingFork, once the child is gone). */
void updateSlavesWaitingBgsave(redisServer *s, int ok, int socket) {
    replRdb *rdb = NULL, *streamed = socket ? s->repl_socket_rdb : NULL;
    if (streamed) {
        streamed->done = 1;
        s->repl_socket_rdb = NULL;
    }
    for (int i = 0; i < s->nreplicas; i++) {
        client *c = s->replicas[i];
        if (c->replstate != SLAVE_STATE_WAIT_BGSAVE_END) continue;
        if (!ok) {
            serverLog(s, LL_WARNING, "SYNC failed. BGSAVE child returned "
                      "an error");
            freeClientAsync(c);
            continue;
        }
        if (socket) {
            if (c->repl_rdb && c->repl_rdb_pos == sdslen(c->repl_rdb->data))
                _streamedOk(s, c);
            else if (c->repl_rdb)
                aeCreateFileEvent(s->el, c->fd, AE_WRITABLE, _sendBulk, c);
            continue;
        }
        if (!rdb) {
            sds body = NULL;
            rdb = _rdbNew(s, 0);
            rdb->refs = 1;              /* this loop's, dropped below */
            if (!s->fs.readFile ||
                s->fs.readFile(s->fs.ctx, s->cfg.dbfilename, &rdb->mem,
                               &body) != 0) {
                _rdbUnref(s, rdb);
                rdb = NULL;
                serverLog(s, LL_WARNING, "SYNC failed. Can't open/stat DB "
                          "after BGSAVE: %s", "No such file or directory");
                freeClientAsync(c);
                continue;
            }
            rdb->data = sdscatprintf(&rdb->mem, sdsempty(&rdb->mem),
                                     "$%zu\r\n", sdslen(body));
            rdb->data = sdscatsds(&rdb->mem, rdb->data, body);
            sdsfree(&rdb->mem, body);
        }
        c->repl_rdb = rdb;
        c->repl_rdb_pos = 0;
        rdb->refs++;
        c->replstate = SLAVE_STATE_SEND_BULK;
        aeCreateFileEvent(s->el, c->fd, AE_WRITABLE, _sendBulk, c);
    }
    _rdbUnref(s, rdb);
    _rdbUnref(s, streamed);
}

/* What the replication side of a process holds, freed with it. */
void replicationRelease(redisServer *s) {
    replicationReleaseBacklog(s);
    _rdbUnref(s, s->repl_socket_rdb);
    s->repl_socket_rdb = NULL;
}

/* SYNC, and PSYNC replid offset: the caller becomes a replica; it
 * continues from the backlog if it can (PSYNC), else gets a full copy of
 * the dataset and from then on the stream. */
void syncCommand(client *c) {
    redisServer *s = c->srv;
    char name[96];
    if (c->flags & CLIENT_SLAVE) return;
    /* A master failing over to this replica asks it to take over. */
    if (c->argc > 3 && !strcasecmp(c->argv[0]->v.ptr, "psync") &&
        !strcasecmp(c->argv[3]->v.ptr, "failover") &&
        failoverRequestReceived(c) != C_OK) return;
    if (s->failover_state != NO_FAILOVER) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (s->masterhost && s->repl_state != REPL_STATE_CONNECTED) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while not connected with "
                      "my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    _replicaName(c, name, sizeof(name));
    serverLog(s, LL_NOTICE, "Replica %s asks for synchronization", name);
    int psync = !strcasecmp(c->argv[0]->v.ptr, "psync");
    if (psync) {
        long long offset;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &offset, NULL) !=
            C_OK) {
            serverLog(s, LL_WARNING, "Replica %s asks for synchronization "
                      "but with a wrong offset", name);
            return;
        }
        if (_tryPartialResync(c, name) == C_OK) {
            s->stat_sync_partial_ok++;
            return;
        }
        if (((const char *)c->argv[1]->v.ptr)[0] != '?')
            s->stat_sync_partial_err++;
    } else {
        c->flags |= CLIENT_PRE_PSYNC;
    }
    s->stat_sync_full++;
    _addReplica(s, c, SLAVE_STATE_WAIT_BGSAVE_START);
    if (!s->repl_backlog_active) {
        /* The first replica starts a new history: a new replid, none
         * before it. */
        replicationChangeId(s);
        _createBacklog(s);
        serverLog(s, LL_NOTICE, "Replication backlog created, my new "
                  "replication IDs are '%s' and '%s'", replicationId(s),
                  s->replid2);
    }
    if (s->child.type == CHILD_TYPE_RDB && !s->child.socket) {
        /* A disk BGSAVE runs: a replica waiting for its end has the
         * stream since the fork in its buffer, which this one copies. */
        client *other = NULL;
        for (int i = 0; i < s->nreplicas && !other; i++)
            if (s->replicas[i] != c &&
                s->replicas[i]->replstate == SLAVE_STATE_WAIT_BGSAVE_END)
                other = s->replicas[i];
        if (other && (other->slave_capa & c->slave_capa) ==
                     other->slave_capa) {
            copyReplicaOutputBuffer(c, other);
            _setupFullResync(c, other->psync_initial_offset);
            serverLog(s, LL_NOTICE, "Waiting for end of BGSAVE for SYNC");
        } else {
            serverLog(s, LL_NOTICE, "Can't attach the replica to the "
                      "current BGSAVE. Waiting for next BGSAVE for SYNC");
        }
    } else if (s->child.type == CHILD_TYPE_RDB) {
        serverLog(s, LL_NOTICE, "Current BGSAVE has socket target. Waiting "
                  "for next BGSAVE for SYNC");
    } else if (s->cfg.repl_diskless_sync &&
               (c->slave_capa & SLAVE_CAPA_EOF) &&
               s->cfg.repl_diskless_sync_delay) {
        serverLog(s, LL_NOTICE, "Delay next BGSAVE for diskless SYNC");
    } else if (!hasActiveChildProcess(s)) {
        _startBgsaveForReplication(s, c->slave_capa);
    } else {
        serverLog(s, LL_NOTICE, "No BGSAVE in progress, but another BG "
                  "operation is active. BGSAVE for replication delayed");
    }
}

/* A replica's client is going away: it leaves the list. */
void replicationRemoveReplica(redisServer *s, client *c) {
    for (int i = 0; i < s->nreplicas; i++) {
        if (s->replicas[i] != c) continue;
        memmove(&s->replicas[i], &s->replicas[i + 1],
                sizeof(client *) * (size_t)(s->nreplicas - i - 1));
        s->nreplicas--;
        char name[96];
        int was_waiting = c->replstate == SLAVE_STATE_WAIT_BGSAVE_END;
        _rdbRelease(s, c);
        c->replstate = 0;
        serverLog(s, LL_WARNING, "Connection with replica %s lost.",
                  _replicaName(c, name, sizeof(name)));
        /* A diskless transfer with no replica left to take it is over. */
        if (was_waiting && s->child.type == CHILD_TYPE_RDB &&
            s->child.socket && s->child.step != CHILD_EXITED) {
            int left = 0;
            for (int j = 0; j < s->nreplicas; j++)
                left += s->replicas[j]->replstate ==
                        SLAVE_STATE_WAIT_BGSAVE_END;
            if (!left) {
                serverLog(s, LL_WARNING, "Diskless rdb transfer, last "
                          "replica dropped, killing fork child.");
                killRDBChild(s);
            }
        }
        return;
    }
}

/* replicationCron's timeouts, with 7.0's rules and in its whole seconds:
 * an online replica that has not acknowledged for more than repl-timeout
 * seconds is let go (a replica sends REPLCONF ACK every second; one that
 * came with the old SYNC never does, and is spared), and so is one of a
 * diskless transfer whose socket has not taken all it was given for that
 * long (a disk sync's replica holds up no child, and is not timed out
 * while it waits). */
static void _disconnectTimedOut(redisServer *s) {
    long long now = s->mstime / 1000, timeout = s->cfg.repl_timeout;
    char name[96];
    for (int i = 0; i < s->nreplicas; i++) {
        client *r = s->replicas[i];
        const char *kind = NULL;
        if (r->replstate == SLAVE_STATE_ONLINE &&
            !(r->flags & CLIENT_PRE_PSYNC) &&
            now - r->repl_ack_time_ms / 1000 > timeout)
            kind = "streaming sync";
        else if (r->replstate == SLAVE_STATE_WAIT_BGSAVE_END &&
                 s->child.type == CHILD_TYPE_RDB && s->child.socket &&
                 r->repl_last_partial_write &&
                 now - r->repl_last_partial_write > timeout)
            kind = "full sync";
        if (!kind) continue;
        serverLog(s, LL_WARNING, "Disconnecting timedout replica (%s): %s",
                  kind, _replicaName(r, name, sizeof(name)));
        freeClient(r);                  /* it leaves the list */
        i--;
    }
}

/* Once a second (replicationCron): a PING into the stream every
 * repl-ping-replica-period seconds while there are replicas, so they can
 * tell a quiet master from a dead link; the replicas that went silent
 * are let go; a BGSAVE for those waiting starts when due. */
void replicationCron(redisServer *s) {
    replicaCron(s);
    /* No PING while a FAILOVER with a timeout holds writes: the stream
     * must stay where the replicas are to catch up with it. */
    int failover_waits = s->failover_end_time && clientsArePaused(s);
    if (s->nreplicas && !s->masterhost && !failover_waits &&
        s->repl_cron_loops % s->cfg.repl_ping_period == 0) {
        robj *ping = createStringObject(s, "PING", 4);
        replicationFeed(s, s->repl_seldb, &ping, 1);
        decrRefCount(s, ping);
    }
    /* A newline to the replicas waiting for a disk BGSAVE, so that their
     * link does not time out before the RDB comes (a diskless one sends
     * its own while the child works). */
    aeBackend *be = &s->el->backend;
    for (int i = 0; i < s->nreplicas; i++) {
        client *r = s->replicas[i];
        int presync = r->replstate == SLAVE_STATE_WAIT_BGSAVE_START ||
                      (r->replstate == SLAVE_STATE_WAIT_BGSAVE_END &&
                       !s->child.socket);
        if (presync) be->write(be->ctx, r->fd, "\n", 1);
    }
    _disconnectTimedOut(s);
    replicationStartPendingFork(s);
    s->repl_cron_loops++;
}

/* How many replicas have acknowledged the stream up to offset. */
int replicationAcked(redisServer *s, long long offset) {
    int n = 0;
    for (int i = 0; i < s->nreplicas; i++)
        n += s->replicas[i]->replstate == SLAVE_STATE_ONLINE &&
             s->replicas[i]->repl_ack_off >= offset;
    return n;
}

/* WAIT numreplicas timeout: replies at once how many replicas have
 * acknowledged the client's writes if that is enough (or if the client
 * may not block: in MULTI), else blocks until enough have or the
 * timeout (ms, 0: never) passes, and has the replicas asked for an
 * acknowledgement before the loop sleeps. */
void waitCommand(client *c) {
    redisServer *s = c->srv;
    if (s->masterhost) {
        addReplyError(c, "WAIT cannot be used with replica instances. "
                      "Please also note that since Redis 4.0 if a replica "
                      "is configured to be writable (which is not the "
                      "default) writes to replicas are just local and are "
                      "not propagated.");
        return;
    }
    long long numreplicas, timeout;
    if (getLongLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) !=
            C_OK ||
        getTimeoutMsFromObjectOrReply(c, c->argv[2], &timeout) != C_OK)
        return;
    int acked = replicationAcked(s, c->woff);
    if (acked >= numreplicas || (c->flags & CLIENT_DENY_BLOCKING)) {
        addReplyLongLong(c, acked);
        return;
    }
    c->bpop.reploffset = c->woff;
    blockForKeys(c, BLOCKED_WAIT, NULL, 0, numreplicas, timeout, NULL, 0, 0);
    s->get_ack_from_replicas = 1;
}

/* beforeSleep: REPLCONF GETACK * to the replicas if a WAIT blocked, then
 * every WAIT whose replicas have acknowledged enough is answered. */
void replicationBeforeSleep(redisServer *s) {
    /* Not while clients are paused (a FAILOVER waiting for its replica):
     * the GETACK would add to the stream the replicas must catch up
     * with. It goes once the pause ends. */
    if (s->get_ack_from_replicas && !clientsArePaused(s)) {
        s->get_ack_from_replicas = 0;
        robj *argv[3] = {
            createStringObject(s, "REPLCONF", 8),
            createStringObject(s, "GETACK", 6),
            createStringObject(s, "*", 1),
        };
        replicationFeed(s, s->repl_seldb, argv, 3);
        for (int i = 0; i < 3; i++) decrRefCount(s, argv[i]);
    }
    if (!s->blocked_clients_by_type[BLOCKED_WAIT]) return;
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (!c || !(c->flags & CLIENT_BLOCKED) || c->btype != BLOCKED_WAIT)
            continue;
        int acked = replicationAcked(s, c->bpop.reploffset);
        if (acked < c->bpop.count) continue;
        addReplyLongLong(c, acked);
        unblockClient(c);
    }
}

/* REPLCONF <option> <value> ...: what a replica says of itself, and its
 * acknowledgements. */
void replconfCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc % 2 == 0) {
        addReplyError(c, "syntax error");
        return;
    }
    for (int j = 1; j < c->argc; j += 2) {
        const char *opt = c->argv[j]->v.ptr, *val = c->argv[j + 1]->v.ptr;
        long long v;
        if (!strcasecmp(opt, "listening-port")) {
            if (getLongLongFromObject(c->argv[j + 1], &v) != C_OK) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
            c->slave_listening_port = (int)v;
        } else if (!strcasecmp(opt, "ip-address")) {
            /* The address is the connection's here. */
        } else if (!strcasecmp(opt, "capa")) {
            if (!strcasecmp(val, "eof")) c->slave_capa |= SLAVE_CAPA_EOF;
            else if (!strcasecmp(val, "psync2"))
                c->slave_capa |= SLAVE_CAPA_PSYNC2;
        } else if (!strcasecmp(opt, "ack")) {
            /* From a replica: no reply. */
            if (!(c->flags & CLIENT_SLAVE)) return;
            if (getLongLongFromObject(c->argv[j + 1], &v) != C_OK) return;
            if (v > c->repl_ack_off) c->repl_ack_off = v;
            c->repl_ack_time_ms = s->mstime;
            /* replicaStartCommandStream: a diskless replica loaded its
             * RDB; the stream buffered since the fork follows. */
            if (c->repl_start_cmd_stream_on_ack &&
                c->replstate == SLAVE_STATE_ONLINE) {
                c->repl_start_cmd_stream_on_ack = 0;
                if (clientHasPendingReplies(c)) clientInstallWriteHandler(c);
            }
            return;
        } else if (!strcasecmp(opt, "getack")) {
            if (s->masterhost && s->master) replicationSendAck(s);
            return;
        } else if (!strcasecmp(opt, "rdb-only")) {
            if (getLongLongFromObject(c->argv[j + 1], &v) != C_OK ||
                (v != 0 && v != 1)) {
                addReplyError(c, "value is not an integer or out of range");
                return;
            }
        } else {
            addReplyErrorFormat(c, "Unrecognized REPLCONF option: %s", opt);
            return;
        }
    }
    addReplyOK(c);
}

/* ROLE: master, its offset and its replicas; or slave, its master and the
 * state of the link. */
void roleCommand(client *c) {
    redisServer *s = c->srv;
    if (!s->masterhost) {
        addReplyArrayLen(c, 3);
        addReplyBulkCBuffer(c, "master", 6);
        addReplyLongLong(c, s->master_repl_offset);
        int online = 0;
        for (int i = 0; i < s->nreplicas; i++)
            online += s->replicas[i]->replstate == SLAVE_STATE_ONLINE;
        addReplyArrayLen(c, online);
        for (int i = 0; i < s->nreplicas; i++) {
            client *r = s->replicas[i];
            if (r->replstate != SLAVE_STATE_ONLINE) continue;
            char ip[64];
            addReplyArrayLen(c, 3);
            addReplyBulkCString(c, replicaIp(r, ip, sizeof(ip)));
            addReplyBulkLongLong(c, r->slave_listening_port);
            addReplyBulkLongLong(c, r->repl_ack_off);
        }
        return;
    }
    const char *state = "unknown";
    switch (s->repl_state) {
    case REPL_STATE_NONE: state = "none"; break;
    case REPL_STATE_CONNECT: state = "connect"; break;
    case REPL_STATE_CONNECTING: state = "connecting"; break;
    case REPL_STATE_TRANSFER: state = "sync"; break;
    case REPL_STATE_CONNECTED: state = "connected"; break;
    default: state = "handshake"; break;
    }
    addReplyArrayLen(c, 5);
    addReplyBulkCBuffer(c, "slave", 5);
    addReplyBulkCString(c, s->masterhost);
    addReplyLongLong(c, s->masterport);
    addReplyBulkCString(c, state);
    addReplyLongLong(c, s->master ? s->master->reploff : -1);
}

/* INFO replication. */
sds replicationInfo(redisServer *s, sds info) {
    info = sdscatprintf(s->mem, info, "# Replication\r\nrole:%s\r\n",
                        s->masterhost ? "slave" : "master");
    if (s->masterhost) info = replicaInfo(s, info);
    info = sdscatprintf(s->mem, info, "connected_slaves:%d\r\n",
                        s->nreplicas);
    if (s->cfg.repl_min_slaves_to_write && s->cfg.repl_min_slaves_max_lag)
        info = sdscatprintf(s->mem, info, "min_slaves_good_slaves:%d\r\n",
                            _goodReplicas(s));
    for (int i = 0; i < s->nreplicas; i++) {
        client *r = s->replicas[i];
        char ip[64];
        replicaIp(r, ip, sizeof(ip));
        const char *state = r->replstate == SLAVE_STATE_SEND_BULK
            ? "send_bulk" : r->replstate == SLAVE_STATE_ONLINE
            ? "online" : "wait_bgsave";
        info = sdscatprintf(s->mem, info,
            "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld"
            "\r\n", i, ip, r->slave_listening_port, state, r->repl_ack_off,
            (s->mstime - r->repl_ack_time_ms) / 1000);
    }
    return sdscatprintf(s->mem, info,
        "master_failover_state:%s\r\n"
        "master_replid:%s\r\n"
        "master_replid2:%s\r\n"
        "master_repl_offset:%lld\r\n"
        "second_repl_offset:%lld\r\n"
        "repl_backlog_active:%d\r\n"
        "repl_backlog_size:%lld\r\n"
        "repl_backlog_first_byte_offset:%lld\r\n"
        "repl_backlog_histlen:%lld\r\n",
        failoverStateString(s), replicationId(s), s->replid2,
        s->master_repl_offset,
        s->second_replid_offset, s->repl_backlog_active,
        s->cfg.repl_backlog_size,
        s->repl_backlog_active ? s->repl_backlog_off : 0,
        s->repl_backlog_histlen);
}
