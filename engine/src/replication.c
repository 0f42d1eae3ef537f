/* replication.c -- the master's side of Redis 7.0's replication, as far as
 * a replica that asks with SYNC or PSYNC gets a full copy and then the
 * stream of writes.
 *
 * A replica connects as a client and sends SYNC (or PSYNC replid offset).
 * It gets "+FULLRESYNC <replid> <offset>" (PSYNC only), then the dataset as
 * an RDB in one bulk ("$<len>\r\n" and the bytes, no CRLF after them),
 * then every write the server propagates, in the protocol, as the AOF gets
 * it: a SELECT whenever the db changes (and before the first command),
 * MULTI ... EXEC around an execution unit of more than one command, PING
 * every repl-ping-replica-period seconds. The stream also counts into
 * master_repl_offset and a backlog of repl-backlog-size bytes that exists
 * from the first replica on (INFO replication).
 *
 * Where Redis forks a child to write the RDB (to disk, or to the socket)
 * and sends the writes made meanwhile once it is done, the engine builds
 * the RDB in memory at once: the replica is online as soon as SYNC
 * returns, and the stream it gets after the RDB is the same. The backlog
 * is counted but not kept, so a PSYNC always gets a full resync. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "server.h"
#include "rdb.h"
#include "siphash.h"

/* The 40 hex digits of the replication id, from the server's hash seed and
 * its pid: fixed by the world's seed like everything random here, and new
 * for every process, as Redis draws a new one at each start. */
static void _makeReplid(redisServer *s) {
    static const char hex[] = "0123456789abcdef";
    uint64_t h = 0;
    for (int i = 0; i < 40; i++) {
        if (i % 16 == 0) {
            char in[48];
            int n = snprintf(in, sizeof(in), "replid:%d:%lld:%d", s->pid,
                             s->replid_gen, i);
            h = siphash((const uint8_t *)in, (size_t)n, s->denv.seed);
        }
        s->replid[i] = hex[h & 15];
        h >>= 4;
    }
    s->replid[40] = '\0';
    s->replid_gen++;
}

/* The replication id, made the first time it is asked for. */
const char *replicationId(redisServer *s) {
    if (!s->replid[0]) _makeReplid(s);
    return s->replid;
}

/* How the log names a replica: its address, and "<unknown-replica-port>"
 * for a replica that did not say with REPLCONF which port it listens on,
 * as Redis names it. */
#define REPLICA_NAME "127.0.0.1:<unknown-replica-port>"

/* Appends bytes to the stream: the backlog's count and every replica. */
static void _feed(redisServer *s, const char *p, size_t len) {
    if (!s->repl_backlog_active) return;
    s->master_repl_offset += (long long)len;
    s->repl_backlog_histlen += (long long)len;
    if (s->repl_backlog_histlen > s->cfg.repl_backlog_size)
        s->repl_backlog_histlen = s->cfg.repl_backlog_size;
    s->repl_backlog_off = s->master_repl_offset - s->repl_backlog_histlen + 1;
    for (int i = 0; i < s->nreplicas; i++)
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
    s->repl_backlog_active = 1;
    s->repl_backlog_histlen = 0;
    s->repl_backlog_off = s->master_repl_offset + 1;
}

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
    serverLog(s, LL_NOTICE, "Setting secondary replication ID to %s, valid "
              "up to offset: %lld. New replication ID is %s", s->replid2,
              s->second_replid_offset, s->replid);
}

/* disconnectSlaves: every replica's link is closed; they connect again
 * and learn the new history. */
void replicationDisconnectReplicas(redisServer *s) {
    for (int i = 0; i < s->nreplicas; i++) freeClientAsync(s->replicas[i]);
}

/* The replicas online whose last ACK is at most min-replicas-max-lag
 * seconds old. */
static int _goodReplicas(redisServer *s) {
    int good = 0;
    for (int i = 0; i < s->nreplicas; i++)
        if ((s->mstime - s->replicas[i]->repl_ack_time_ms) / 1000 <=
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

/* SYNC, and PSYNC replid offset: the caller becomes a replica, gets a full
 * copy of the dataset and from then on the stream. */
void syncCommand(client *c) {
    redisServer *s = c->srv;
    const char *name = REPLICA_NAME;
    if (c->flags & CLIENT_SLAVE) return;
    if (s->masterhost && s->repl_state != REPL_STATE_CONNECTED) {
        addReplyError(c, "-NOMASTERLINK Can't SYNC while not connected with "
                      "my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    serverLog(s, LL_NOTICE, "Replica %s asks for synchronization", name);
    int psync = !strcasecmp(c->argv[0]->v.ptr, "psync");
    if (psync) {
        const char *want = c->argv[1]->v.ptr;
        if (strcasecmp(want, "?") != 0)
            serverLog(s, LL_NOTICE, "Partial resynchronization not accepted: "
                      "Replication ID mismatch (Replica asked for '%s', my "
                      "replication IDs are '%s' and "
                      "'0000000000000000000000000000000000000000')", want,
                      replicationId(s));
        else
            serverLog(s, LL_NOTICE, "Full resync requested by replica %s",
                      name);
    }
    if (!s->repl_backlog_active) {
        _createBacklog(s);
        serverLog(s, LL_NOTICE, "Replication backlog created, my new "
                  "replication IDs are '%s' and '%s'", replicationId(s),
                  s->replid2);
    }
    if (psync) {
        char line[128];
        int n = snprintf(line, sizeof(line), "+FULLRESYNC %s %lld\r\n",
                         replicationId(s), s->master_repl_offset);
        addReplyProto(c, line, (size_t)n);
    }
    /* The next command fed must say which db it is for. */
    s->repl_seldb = -1;
    long long keys;
    serverLog(s, LL_NOTICE, "Starting BGSAVE for SYNC with target: disk");
    /* a forked child's work in Redis: not the main thread's CPU */
    s->denv.quiet++;
    sds rdb = rdbSaveForReplica(s, &keys);
    s->denv.quiet--;
    char head[LONG_STR_SIZE + 3];
    int n = snprintf(head, sizeof(head), "$%zu\r\n", sdslen(rdb));
    addReplyProto(c, head, (size_t)n);
    addReplyProto(c, rdb, sdslen(rdb));
    sdsfree(s->mem, rdb);
    c->flags |= CLIENT_SLAVE;
    c->repl_ack_time_ms = s->mstime;
    if (s->nreplicas == s->replicas_cap) {
        s->replicas_cap = s->replicas_cap ? s->replicas_cap * 2 : 4;
        s->replicas = memRealloc(s->mem, s->replicas,
                                 sizeof(client *) * (size_t)s->replicas_cap);
    }
    s->replicas[s->nreplicas++] = c;
    serverLog(s, LL_NOTICE, "Synchronization with replica %s succeeded",
              name);
}

/* A replica's client is going away: it leaves the list. */
void replicationRemoveReplica(redisServer *s, client *c) {
    for (int i = 0; i < s->nreplicas; i++) {
        if (s->replicas[i] != c) continue;
        memmove(&s->replicas[i], &s->replicas[i + 1],
                sizeof(client *) * (size_t)(s->nreplicas - i - 1));
        s->nreplicas--;
        serverLog(s, LL_NOTICE, "Connection with replica %s lost.",
                  REPLICA_NAME);
        return;
    }
}

/* Once a second (replicationCron): a PING into the stream every
 * repl-ping-replica-period seconds while there are replicas, so they can
 * tell a quiet master from a dead link. */
void replicationCron(redisServer *s) {
    replicaCron(s);
    if (s->nreplicas && !s->masterhost &&
        s->repl_cron_loops % s->cfg.repl_ping_period == 0) {
        robj *ping = createStringObject(s, "PING", 4);
        replicationFeed(s, s->repl_seldb, &ping, 1);
        decrRefCount(s, ping);
    }
    s->repl_cron_loops++;
}

/* How many replicas have acknowledged the stream up to offset. */
int replicationAcked(redisServer *s, long long offset) {
    int n = 0;
    for (int i = 0; i < s->nreplicas; i++)
        n += s->replicas[i]->repl_ack_off >= offset;
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
    if (s->get_ack_from_replicas) {
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
        addReplyArrayLen(c, s->nreplicas);
        for (int i = 0; i < s->nreplicas; i++) {
            client *r = s->replicas[i];
            addReplyArrayLen(c, 3);
            addReplyBulkCString(c, "127.0.0.1");
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
        info = sdscatprintf(s->mem, info,
            "slave%d:ip=127.0.0.1,port=%d,state=online,offset=%lld,lag=%lld"
            "\r\n", i, r->slave_listening_port, r->repl_ack_off,
            (s->mstime - r->repl_ack_time_ms) / 1000);
    }
    return sdscatprintf(s->mem, info,
        "master_failover_state:no-failover\r\n"
        "master_replid:%s\r\n"
        "master_replid2:%s\r\n"
        "master_repl_offset:%lld\r\n"
        "second_repl_offset:%lld\r\n"
        "repl_backlog_active:%d\r\n"
        "repl_backlog_size:%lld\r\n"
        "repl_backlog_first_byte_offset:%lld\r\n"
        "repl_backlog_histlen:%lld\r\n",
        replicationId(s), s->replid2, s->master_repl_offset,
        s->second_replid_offset, s->repl_backlog_active,
        s->cfg.repl_backlog_size,
        s->repl_backlog_active ? s->repl_backlog_off : 0,
        s->repl_backlog_histlen);
}
