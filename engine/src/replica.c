/* replica.c -- the replica's side of Redis 7.0's replication: REPLICAOF,
 * the link to the master, the full copy and the stream that follows.
 *
 * REPLICAOF host port makes the server a replica at once: writes from its
 * own clients get -READONLY (replica-read-only), and while the link is not
 * up, with replica-serve-stale-data no, most commands get -MASTERDOWN. The
 * link then goes through Redis's states, one step per event:
 *
 *   CONNECT      a connection is to be made (now, then once a second)
 *   CONNECTING   the non-blocking connect is under way
 *   handshake    PING; then AUTH (masterauth), REPLCONF listening-port
 *                and REPLCONF capa eof capa psync2 sent together, their
 *                replies read one by one; then PSYNC <replid> <offset>
 *                (PSYNC ? -1 with nothing to continue from)
 *   TRANSFER     after +FULLRESYNC <replid> <offset>: the RDB, announced
 *                as "$<len>" or, diskless, as "$EOF:<40 chars>" and ended
 *                by the same 40 characters; lone newlines before it are
 *                the master's keepalives. It goes to temp-<unixtime>.<pid>
 *                .rdb in the server's directory, renamed to dump.rdb, and
 *                is loaded from there after the dataset is flushed
 *   CONNECTED    the link is the master client: its commands run without
 *                replies, and every byte it applied advances the offset,
 *                is fed as it came to this server's own replicas and is
 *                acknowledged with REPLCONF ACK once a second
 *
 * +CONTINUE (a partial resynchronization) skips the transfer. A link lost
 * goes back to CONNECT, remembering the master's replid and the offset
 * applied so that the next PSYNC can continue; REPLICAOF NO ONE makes the
 * server a master again with a new replid, the old one kept as replid2.
 * Time limits are repl-timeout's. The connection itself is the host's
 * (aeBackend.connect); a host that makes none stays in CONNECT. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include "server.h"
#include "script.h"
#include "rdb.h"

#define EOFMARK_LEN 40
#define REPL_READ_LEN (16 * 1024)

static void _syncWithMaster(aeEventLoop *el, int fd, void *data, int mask);

/* ---- The link before it is a client. ---- */

static int _inHandshake(redisServer *s) {
    return s->repl_state >= REPL_STATE_RECEIVE_PING_REPLY &&
           s->repl_state <= REPL_STATE_RECEIVE_PSYNC_REPLY;
}

/* Closes the link of a handshake or a transfer under way, and the temp
 * file, and goes back to CONNECT. */
static void _cancelHandshake(redisServer *s) {
    aeBackend *be = &s->el->backend;
    if (s->repl_transfer_fd >= 0) {
        aeDeleteFileEvent(s->el, s->repl_transfer_fd,
                          AE_READABLE | AE_WRITABLE);
        be->close(be->ctx, s->repl_transfer_fd);
        s->repl_transfer_fd = -1;
    }
    sdsfree(s->mem, s->repl_transfer_in);
    s->repl_transfer_in = NULL;
    /* replicationAbortSyncTransfer: the temp file goes. */
    if (s->repl_transfer_tmpfd >= 0) {
        s->fs.close(s->fs.ctx, s->repl_transfer_tmpfd);
        s->fs.unlink(s->fs.ctx, s->repl_transfer_tmpfile);
        s->repl_transfer_tmpfd = -1;
    }
    if (s->repl_state == REPL_STATE_CONNECTING || _inHandshake(s) ||
        s->repl_state == REPL_STATE_TRANSFER)
        s->repl_state = REPL_STATE_CONNECT;
}

static int _connectWithMaster(redisServer *s);

/* cancelReplicationHandshake(1): the transfer failed; the replica tries
 * again at once (a master whose every BGSAVE fails sees it back as soon
 * as it dropped it). */
static void _retryTransfer(redisServer *s) {
    _cancelHandshake(s);
    serverLog(s, LL_NOTICE, "Reconnecting to MASTER %s:%d after failure",
              s->masterhost, s->masterport);
    _connectWithMaster(s);
}

/* connectWithMaster: starts the connection. C_ERR, logged, if it cannot
 * even start; the cron tries again. */
static int _connectWithMaster(redisServer *s) {
    aeBackend *be = &s->el->backend;
    char err[256] = "Network is unreachable";
    int fd = be->connect ? be->connect(be->ctx, s->masterhost,
                                       s->masterport, err, sizeof(err))
                         : -1;
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Unable to connect to MASTER: %s", err);
        return C_ERR;
    }
    if (fd >= s->el->setsize) aeResizeSetSize(s->el, fd * 2);
    aeCreateFileEvent(s->el, fd, AE_WRITABLE, _syncWithMaster, s);
    s->repl_transfer_fd = fd;
    s->repl_transfer_in = sdsempty(s->mem);
    s->repl_transfer_lastio = s->mstime / 1000;
    s->repl_state = REPL_STATE_CONNECTING;
    serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync started");
    return C_OK;
}

/* Writes a command in the protocol on the link. C_ERR if the socket did
 * not take it all. */
static int _sendCommand(redisServer *s, int argc, const char **argv) {
    sds o = sdscatprintf(s->mem, sdsempty(s->mem), "*%d\r\n", argc);
    for (int j = 0; j < argc; j++)
        o = sdscatprintf(s->mem, o, "$%zu\r\n%s\r\n", strlen(argv[j]),
                         argv[j]);
    aeBackend *be = &s->el->backend;
    long n = be->write(be->ctx, s->repl_transfer_fd, o, sdslen(o));
    int ok = n == (long)sdslen(o);
    sdsfree(s->mem, o);
    return ok ? C_OK : C_ERR;
}

/* Reads what the link has into repl_transfer_in. Returns the bytes read,
 * 0 if none are there yet, -1 when the master closed the link. */
static long _readLink(redisServer *s) {
    aeBackend *be = &s->el->backend;
    sds in = sdsMakeRoomFor(s->mem, s->repl_transfer_in, REPL_READ_LEN);
    s->repl_transfer_in = in;
    long n = be->read(be->ctx, s->repl_transfer_fd, in + sdslen(in),
                      REPL_READ_LEN);
    if (n == 0) return -1;
    if (n < 0) return 0;
    sdsIncrLen(in, (size_t)n);
    s->repl_transfer_lastio = s->mstime / 1000;
    s->stat_net_input_bytes += n;
    return n;
}

/* Takes one line (without its CRLF) off the front of what was read, into
 * line. 1 if there was a whole line. */
static int _takeLine(redisServer *s, char *line, size_t cap) {
    sds in = s->repl_transfer_in;
    char *nl = memchr(in, '\n', sdslen(in));
    if (!nl) return 0;
    size_t len = (size_t)(nl - in);
    size_t keep = len && in[len - 1] == '\r' ? len - 1 : len;
    if (keep >= cap) keep = cap - 1;
    memcpy(line, in, keep);
    line[keep] = '\0';
    sdsrange(in, (long)len + 1, -1);
    return 1;
}

/* receiveSynchronousResponse: the next reply line of the handshake. 1 if
 * line has it, 0 to wait for more bytes, -1 if the link closed. */
static int _receiveLine(redisServer *s, char *line, size_t cap) {
    if (_takeLine(s, line, cap)) return 1;
    if (_readLink(s) < 0) return -1;
    return _takeLine(s, line, cap);
}

/* ---- The full copy. ---- */

/* replicationDiscardCachedMaster: the history a PSYNC could continue is
 * given up, logged as 7.0 logs it. 7.0 keeps it through a full sync
 * until the new RDB is about to be loaded, so that a transfer that fails
 * (a master killed mid-stream, a BGSAVE that fails) is followed by PSYNC
 * again, not by PSYNC ? -1. */
static void _discardCachedMaster(redisServer *s) {
    if (s->cached_offset < 0) return;
    serverLog(s, LL_NOTICE, "Discarding previously cached master state.");
    s->cached_offset = -1;
}

/* The RDB arrived whole in the temp file: fsync it, rename it to
 * dump.rdb, flush the dataset and load it. */
static int _loadTransfer(redisServer *s) {
    int fd = s->repl_transfer_tmpfd;
    int r = s->fs.fsync(s->fs.ctx, fd);
    s->fs.close(s->fs.ctx, fd);
    s->repl_transfer_tmpfd = -1;
    if (r < 0) {
        serverLog(s, LL_WARNING, "Write error or short write writing to the "
                  "DB dump file needed for MASTER <-> REPLICA "
                  "synchronization: %s", aofStrerror(-r));
        s->fs.unlink(s->fs.ctx, s->repl_transfer_tmpfile);
        return C_ERR;
    }
    r = s->fs.rename(s->fs.ctx, s->repl_transfer_tmpfile, s->cfg.dbfilename);
    if (r < 0) {
        serverLog(s, LL_WARNING, "Failed trying to rename the temp DB into "
                  "%s in MASTER <-> REPLICA synchronization: %s",
                  s->cfg.dbfilename, aofStrerror(-r));
        s->fs.unlink(s->fs.ctx, s->repl_transfer_tmpfile);
        return C_ERR;
    }
    int aof_was_on = s->aof.state != AOF_OFF;
    if (aof_was_on) stopAppendOnly(s);
    /* replicationAttachToNewMaster: the old history goes, and our
     * replicas must sync again, since the dataset changes under them. */
    _discardCachedMaster(s);
    replicationDisconnectReplicas(s);
    serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: Flushing old data");
    emptyData(s, -1);
    functionsClear(s);
    serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory");
    long long dirty = s->dirty;
    int st = rdbLoadFile(s, s->cfg.dbfilename, 0);
    s->dirty = dirty;
    if (st != C_OK) {
        serverLog(s, LL_WARNING, "Failed trying to load the MASTER "
                  "synchronization DB from disk, check server logs.");
        emptyData(s, -1);
        functionsClear(s);
        if (aof_was_on) startAppendOnly(s);
        return C_ERR;
    }
    if (aof_was_on) startAppendOnly(s);
    return C_OK;
}

/* The link becomes the master client, at offset off of replid's history,
 * which is now this server's own: its replicas get the same ids and
 * offsets (chained replication). */
static void _createMasterClient(redisServer *s, const char *replid,
                                long long off) {
    int fd = s->repl_transfer_fd;
    aeDeleteFileEvent(s->el, fd, AE_READABLE | AE_WRITABLE);
    s->repl_transfer_fd = -1;
    client *m = createClient(s, fd);
    m->flags |= CLIENT_MASTER;
    m->user = NULL;             /* the master may run anything */
    m->authenticated = 1;
    m->read_reploff = m->reploff = off;
    m->querybuf = sdscatlen(s->mem, m->querybuf, s->repl_transfer_in,
                            sdslen(s->repl_transfer_in));
    m->read_reploff += (long long)sdslen(s->repl_transfer_in);
    sdsfree(s->mem, s->repl_transfer_in);
    s->repl_transfer_in = NULL;
    s->master = m;
    memcpy(s->master_replid, replid, 41);
    s->repl_state = REPL_STATE_CONNECTED;
    s->repl_down_since = 0;
    s->cached_offset = -1;
    /* What the link read with the handshake is already the stream. */
    if (sdslen(m->querybuf)) processClientInput(m);
}

/* The RDB is whole: load it and follow the stream. */
static void _finishTransfer(redisServer *s) {
    if (_loadTransfer(s) != C_OK) {
        _retryTransfer(s);
        return;
    }
    replicationAdoptHistory(s, s->master_replid, s->master_initial_offset);
    int eof = s->repl_transfer_size < 0;
    _createMasterClient(s, s->master_replid, s->master_initial_offset);
    serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: Finished with "
              "success");
    /* A diskless master puts the replica online at its first ACK. */
    if (eof && s->master) replicationSendAck(s);
}

/* Writes len bytes of the RDB to the temp file, and keeps the last 40
 * bytes read. C_ERR, logged, if the disk did not take them all. */
static int _writeTransfer(redisServer *s, const char *p, size_t len) {
    long n = s->fs.write(s->fs.ctx, s->repl_transfer_tmpfd, p, len);
    if (n != (long)len) {
        serverLog(s, LL_WARNING, "Write error or short write writing to the "
                  "DB dump file needed for MASTER <-> REPLICA "
                  "synchronization: %s", n < 0 ? aofStrerror((int)-n)
                                               : "short write");
        return C_ERR;
    }
    if (len >= EOFMARK_LEN) {
        memcpy(s->repl_transfer_tail, p + len - EOFMARK_LEN, EOFMARK_LEN);
    } else {
        memmove(s->repl_transfer_tail, s->repl_transfer_tail + len,
                EOFMARK_LEN - len);
        memcpy(s->repl_transfer_tail + EOFMARK_LEN - len, p, len);
    }
    s->repl_transfer_read += (long long)len;
    return C_OK;
}

/* readSyncBulkPayload: the transfer's bytes, into the temp file as they
 * come. */
static void _readTransfer(redisServer *s) {
    char line[256];
    if (!s->repl_transfer_header) {
        /* The header: "$<len>" or "$EOF:<mark>"; lone newlines before it
         * keep the link alive while the master prepares the RDB. */
        for (;;) {
            int got = _receiveLine(s, line, sizeof(line));
            if (got < 0) {
                /* Redis reads the count with a blocking read whose end of
                 * stream sets no errno: it says "Success". */
                serverLog(s, LL_WARNING, "I/O error reading bulk count from "
                          "MASTER: Success");
                _retryTransfer(s);
                return;
            }
            if (got == 0) return;
            if (line[0] == '\0') continue;
            if (line[0] == '-') {
                serverLog(s, LL_WARNING, "MASTER aborted replication with an "
                          "error: %s", line + 1);
                _retryTransfer(s);
                return;
            }
            if (line[0] != '$') {
                serverLog(s, LL_WARNING, "Bad protocol from MASTER, the "
                          "first byte is not '$' (we received '%s'), are you "
                          "sure the host and port are right?", line);
                _retryTransfer(s);
                return;
            }
            break;
        }
        if (!strncmp(line + 1, "EOF:", 4) &&
            strlen(line + 5) >= EOFMARK_LEN) {
            memcpy(s->repl_eofmark, line + 5, EOFMARK_LEN);
            s->repl_eofmark[EOFMARK_LEN] = '\0';
            s->repl_transfer_size = -1;
            serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: receiving "
                      "streamed RDB from master with EOF to disk");
        } else {
            s->repl_transfer_size = strtoll(line + 1, NULL, 10);
            serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: receiving %lld "
                      "bytes from master to disk", s->repl_transfer_size);
        }
        s->repl_transfer_read = 0;
        memset(s->repl_transfer_tail, 0, EOFMARK_LEN);
        s->repl_transfer_header = 1;
    } else if (_readLink(s) < 0) {
        goto lost;
    }
    /* What was read goes to the file; with a length, no further than
     * its end (the stream may follow in the same read). */
    sds in = s->repl_transfer_in;
    size_t take = sdslen(in);
    if (s->repl_transfer_size >= 0) {
        long long left = s->repl_transfer_size - s->repl_transfer_read;
        if ((long long)take > left) take = (size_t)left;
    }
    if (take && _writeTransfer(s, in, take) != C_OK) {
        _retryTransfer(s);
        return;
    }
    sdsrange(in, (long)take, -1);
    if (s->repl_transfer_size >= 0) {
        if (s->repl_transfer_read < s->repl_transfer_size) return;
    } else {
        if (s->repl_transfer_read < EOFMARK_LEN ||
            memcmp(s->repl_transfer_tail, s->repl_eofmark, EOFMARK_LEN))
            return;
        /* The mark went to the file with the rest: cut it off. */
        int r = s->fs.ftruncate(s->fs.ctx, s->repl_transfer_tmpfd,
                                (uint64_t)(s->repl_transfer_read -
                                           EOFMARK_LEN));
        if (r < 0) {
            serverLog(s, LL_WARNING, "Error truncating the RDB file "
                      "received from the master for SYNC: %s",
                      aofStrerror(-r));
            _retryTransfer(s);
            return;
        }
    }
    _finishTransfer(s);
    return;
lost:
    serverLog(s, LL_WARNING, "I/O error trying to sync with MASTER: "
              "connection lost");
    _retryTransfer(s);
}

/* ---- The handshake. ---- */

/* slaveTryPartialResynchronization, the asking half. */
static int _sendPsync(redisServer *s) {
    char off[32];
    const char *argv[4] = { "PSYNC", "?", "-1", "FAILOVER" };
    if (s->cached_offset >= 0) {
        snprintf(off, sizeof(off), "%lld", s->cached_offset + 1);
        argv[1] = s->cached_replid;
        argv[2] = off;
        serverLog(s, LL_NOTICE, "Trying a partial resynchronization "
                  "(request %s:%s).", argv[1], argv[2]);
    } else {
        serverLog(s, LL_NOTICE, "Partial resynchronization not possible (no "
                  "cached master)");
    }
    /* A master failing over asks its target to take over. */
    return _sendCommand(s, s->failover_state == FAILOVER_IN_PROGRESS ? 4 : 3,
                        argv);
}

/* The end of syncWithMaster: a temp file for the RDB to come, and the
 * link reads it from now on (readSyncBulkPayload). */
static void _startTransfer(redisServer *s) {
    snprintf(s->repl_transfer_tmpfile, sizeof(s->repl_transfer_tmpfile),
             "temp-%lld.%d.rdb", s->mstime / 1000, s->pid);
    int fd = s->fs.open(s->fs.ctx, s->repl_transfer_tmpfile,
                        FS_O_WRONLY | FS_O_TRUNC | FS_O_CREAT);
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Opening the temp file needed for "
                  "MASTER <-> REPLICA synchronization: %s",
                  aofStrerror(-fd));
        _cancelHandshake(s);
        return;
    }
    s->repl_transfer_tmpfd = fd;
    s->repl_state = REPL_STATE_TRANSFER;
    s->repl_transfer_header = 0;
    s->repl_transfer_size = -1;
    s->repl_transfer_read = 0;
}

/* PSYNC_NOT_SUPPORTED: an -ERR to PSYNC is an old master's, or one in
 * error (-ERR BGSAVE failed, replication can't continue); any other
 * reply is unexpected. Either way the replica falls back to SYNC on the
 * same link and waits for the RDB. A master in error has closed the
 * link, so the wait ends at once in "I/O error reading bulk count", and
 * the replica connects again. */
static void _retryWithSync(redisServer *s, const char *reply) {
    aeBackend *be = &s->el->backend;
    if (!strncmp(reply, "-ERR", 4))
        serverLog(s, LL_NOTICE, "Master does not support PSYNC or is in "
                  "error state (reply: %s)", reply);
    else
        serverLog(s, LL_WARNING, "Unexpected reply to PSYNC from master: "
                  "%s", reply);
    serverLog(s, LL_NOTICE, "Retrying with SYNC...");
    if (be->write(be->ctx, s->repl_transfer_fd, "SYNC\r\n", 6) != 6) {
        serverLog(s, LL_WARNING, "I/O error writing to MASTER: %s",
                  "Broken pipe");
        _cancelHandshake(s);
        return;
    }
    _startTransfer(s);
}

/* The reply to PSYNC. */
static void _psyncReply(redisServer *s, const char *reply) {
    /* A FAILOVER is done once its target continues the stream (or even
     * sends it all again); anything else aborts it. */
    if (s->failover_state == FAILOVER_IN_PROGRESS) {
        if (strncmp(reply, "+CONTINUE", 9) &&
            strncmp(reply, "+FULLRESYNC", 11)) {
            abortFailover(s, "Failover target rejected psync request");
            return;
        }
        clearFailoverState(s);
    }
    if (!strncmp(reply, "+FULLRESYNC", 11)) {
        const char *id = reply + 12;
        if (strlen(reply) < 12 + EOFMARK_LEN || id[EOFMARK_LEN] != ' ') {
            serverLog(s, LL_WARNING, "Master replied with wrong +FULLRESYNC "
                      "syntax.");
            memset(s->master_replid, 0, sizeof(s->master_replid));
            s->master_initial_offset = -1;
        } else {
            memcpy(s->master_replid, id, EOFMARK_LEN);
            s->master_replid[EOFMARK_LEN] = '\0';
            s->master_initial_offset = strtoll(id + EOFMARK_LEN + 1, NULL, 10);
            serverLog(s, LL_NOTICE, "Full resync from master: %s:%lld",
                      s->master_replid, s->master_initial_offset);
        }
        _startTransfer(s);
        return;
    }
    if (!strncmp(reply, "+CONTINUE", 9)) {
        const char *newid = reply + 9;
        while (*newid == ' ') newid++;
        serverLog(s, LL_NOTICE, "Successful partial resynchronization with "
                  "master.");
        char replid[41];
        memcpy(replid, s->cached_replid, 41);
        if (strlen(newid) >= EOFMARK_LEN &&
            memcmp(newid, replid, EOFMARK_LEN) != 0) {
            memcpy(replid, newid, EOFMARK_LEN);
            replid[EOFMARK_LEN] = '\0';
            serverLog(s, LL_WARNING, "Master replication ID changed to %s",
                      replid);
            replicationAdoptNewId(s, replid);
        }
        int dbid = s->cached_dbid;
        _createMasterClient(s, replid, s->cached_offset);
        replicationCreateBacklog(s);
        /* The stream goes on in the db the link was in: no SELECT comes
         * again after a partial resynchronization. */
        if (s->master && dbid > 0) s->master->db = &s->db[dbid];
        serverLog(s, LL_NOTICE, "MASTER <-> REPLICA sync: Master accepted a "
                  "Partial Resynchronization.");
        return;
    }
    if (!strncmp(reply, "-NOMASTERLINK", 13) ||
        !strncmp(reply, "-LOADING", 8)) {
        serverLog(s, LL_NOTICE, "Master is currently unable to PSYNC but "
                  "should be in the future: %s", reply);
        _cancelHandshake(s);
        return;
    }
    _retryWithSync(s, reply);
}

/* syncWithMaster: one step of the link per event. */
static void _syncWithMaster(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el; (void)fd; (void)mask;
    redisServer *s = data;
    aeBackend *be = &s->el->backend;
    char line[256];             /* receiveSynchronousResponse's buf */
    int got;
    if (s->repl_state == REPL_STATE_TRANSFER) {
        _readTransfer(s);
        return;
    }
    if (s->repl_state == REPL_STATE_CONNECTING) {
        char err[256] = "";
        if (be->connectError &&
            be->connectError(be->ctx, s->repl_transfer_fd, err,
                             sizeof(err)) != 0) {
            serverLog(s, LL_WARNING, "Error condition on socket for SYNC: %s",
                      err);
            _cancelHandshake(s);
            return;
        }
        serverLog(s, LL_NOTICE, "Non blocking connect for SYNC fired the "
                  "event.");
        aeDeleteFileEvent(s->el, s->repl_transfer_fd, AE_WRITABLE);
        aeCreateFileEvent(s->el, s->repl_transfer_fd, AE_READABLE,
                          _syncWithMaster, s);
        const char *ping[1] = { "PING" };
        if (_sendCommand(s, 1, ping) != C_OK) goto write_error;
        s->repl_state = REPL_STATE_RECEIVE_PING_REPLY;
        return;
    }
    /* The replies, one state each; several may be in one read. */
    while (_inHandshake(s)) {
        if (s->repl_state == REPL_STATE_SEND_PSYNC) {
            if (_sendPsync(s) != C_OK) {
                abortFailover(s, "Write error to failover target");
                goto write_error;
            }
            s->repl_state = REPL_STATE_RECEIVE_PSYNC_REPLY;
            continue;
        }
        got = _receiveLine(s, line, sizeof(line));
        if (got < 0) {
            serverLog(s, LL_WARNING, "Master did not respond to command "
                      "during SYNC handshake");
            _cancelHandshake(s);
            return;
        }
        if (got == 0) return;
        switch (s->repl_state) {
        case REPL_STATE_RECEIVE_PING_REPLY:
            if (line[0] == '-' && strncmp(line, "-NOAUTH", 7) &&
                strncmp(line, "-NOPERM", 7) &&
                strncmp(line, "-ERR operation not permitted", 28)) {
                serverLog(s, LL_WARNING, "Error reply to PING from master: "
                          "'%s'", line);
                _cancelHandshake(s);
                return;
            }
            serverLog(s, LL_NOTICE, "Master replied to PING, replication can "
                      "continue...");
            if (s->cfg.masterauth[0]) {
                const char *auth[3] = { "AUTH", s->cfg.masteruser,
                                        s->cfg.masterauth };
                int n = 3;
                if (!s->cfg.masteruser[0]) { auth[1] = auth[2]; n = 2; }
                if (_sendCommand(s, n, auth) != C_OK) goto write_error;
            }
            char port[16];
            snprintf(port, sizeof(port), "%d", s->port);
            const char *lp[3] = { "REPLCONF", "listening-port", port };
            const char *capa[5] = { "REPLCONF", "capa", "eof", "capa",
                                    "psync2" };
            if (_sendCommand(s, 3, lp) != C_OK ||
                _sendCommand(s, 5, capa) != C_OK)
                goto write_error;
            s->repl_state = s->cfg.masterauth[0]
                            ? REPL_STATE_RECEIVE_AUTH_REPLY
                            : REPL_STATE_RECEIVE_PORT_REPLY;
            break;
        case REPL_STATE_RECEIVE_AUTH_REPLY:
            if (line[0] == '-') {
                serverLog(s, LL_WARNING, "Unable to AUTH to MASTER: %s",
                          line);
                _cancelHandshake(s);
                return;
            }
            s->repl_state = REPL_STATE_RECEIVE_PORT_REPLY;
            break;
        case REPL_STATE_RECEIVE_PORT_REPLY:
            if (line[0] == '-')
                serverLog(s, LL_NOTICE, "(Non critical) Master does not "
                          "understand REPLCONF listening-port: %s", line);
            s->repl_state = REPL_STATE_RECEIVE_CAPA_REPLY;
            break;
        case REPL_STATE_RECEIVE_CAPA_REPLY:
            if (line[0] == '-')
                serverLog(s, LL_NOTICE, "(Non critical) Master does not "
                          "understand REPLCONF capa: %s", line);
            s->repl_state = REPL_STATE_SEND_PSYNC;
            break;
        case REPL_STATE_RECEIVE_PSYNC_REPLY:
            /* Newlines may come first while the master is busy. */
            if (line[0] == '\0') break;
            _psyncReply(s, line);
            if (s->repl_state == REPL_STATE_TRANSFER &&
                sdslen(s->repl_transfer_in))
                _readTransfer(s);
            return;
        default:
            return;
        }
    }
    return;
write_error:
    serverLog(s, LL_WARNING, "Sending command to master in replication "
              "handshake: Write error");
    _cancelHandshake(s);
}

/* ---- The master client. ---- */

/* Sends REPLCONF ACK <offset applied> to the master. */
void replicationSendAck(redisServer *s) {
    client *m = s->master;
    if (!m) return;
    char off[32];
    int n = snprintf(off, sizeof(off), "%lld", m->reploff);
    char buf[96];
    int len = snprintf(buf, sizeof(buf), "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK"
                       "\r\n$%d\r\n%s\r\n", n, off);
    m->flags |= CLIENT_MASTER_FORCE_REPLY;
    addReplyProto(m, buf, (size_t)len);
    m->flags &= ~(uint64_t)CLIENT_MASTER_FORCE_REPLY;
}

/* After a command of the master ran (outside MULTI: a transaction counts
 * at its EXEC): the bytes it took are applied, go to this server's
 * backlog and replicas exactly as they came, and advance the offset. */
void replicationMasterApplied(client *c) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_MULTI) return;
    long long applied = c->read_reploff -
                        (long long)(sdslen(c->querybuf) - c->qb_pos);
    long long n = applied - c->reploff;
    if (n <= 0) return;
    replicationFeedRaw(s, c->querybuf + c->qb_pos - n, (size_t)n);
    c->reploff = applied;
}

/* The master's link broke (its client is being freed): remember where
 * the stream stopped, to continue from there, and connect again now. */
void replicationHandleMasterDisconnection(redisServer *s) {
    client *m = s->master;
    if (!m) return;
    s->master = NULL;
    memcpy(s->cached_replid, s->master_replid, 41);
    s->cached_offset = m->reploff;
    s->cached_dbid = m->db->id;
    s->repl_state = REPL_STATE_CONNECT;
    s->repl_down_since = s->mstime / 1000;
    serverLog(s, LL_WARNING, "Connection with master lost.");
    serverLog(s, LL_NOTICE, "Caching the disconnected master state.");
    /* At once rather than at the next cron: the master's backlog may not
     * wait. */
    if (s->masterhost) {
        serverLog(s, LL_NOTICE, "Reconnecting to MASTER %s:%d",
                  s->masterhost, s->masterport);
        _connectWithMaster(s);
    }
}

/* loadDataFromDisk: a replica (replicaof in its configuration) whose RDB
 * file says where its master's stream stood takes that history as its
 * own and as the cached master, so its first PSYNC may continue from
 * there (a replica restarted after a full sync resyncs partially). */
void replicationRestoreFromRdb(redisServer *s) {
    if (!s->masterhost || !s->rdb_repl_id[0] || s->rdb_repl_offset < 0)
        return;
    memcpy(s->replid, s->rdb_repl_id, 41);
    s->master_repl_offset = s->rdb_repl_offset;
    memcpy(s->cached_replid, s->rdb_repl_id, 41);
    s->cached_offset = s->rdb_repl_offset;
    s->cached_dbid = s->rdb_repl_stream_db;
}

/* ---- Becoming a replica, and a master again. ---- */

/* Clients blocked on keys while this server was a master are told it
 * changed, as Redis's disconnectAllBlockedClients tells them. */
static void _unblockAll(redisServer *s) {
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (!c || !(c->flags & CLIENT_BLOCKED)) continue;
        if (c->btype == BLOCKED_POSTPONE) continue;     /* a pause's */
        addReplyError(c, "-UNBLOCKED force unblock from blocking operation, "
                      "instance state changed (master -> replica?)");
        unblockClient(c);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

void replicationSetMaster(redisServer *s, const char *host, int port) {
    int was_master = s->masterhost == NULL;
    sdsfree(s->mem, s->masterhost);
    s->masterhost = NULL;
    if (s->master) freeClient(s->master);
    _unblockAll(s);
    s->masterhost = sdsnew(s->mem, host);
    s->masterport = port;
    _cancelHandshake(s);
    /* Its own history is what a PSYNC to the new master can continue. */
    if (was_master) {
        _discardCachedMaster(s);
        serverLog(s, LL_NOTICE, "Before turning into a replica, using my "
                  "own master parameters to synthesize a cached master: I "
                  "may be able to synchronize with the new master with just "
                  "a partial transfer.");
        memcpy(s->cached_replid, replicationId(s), 41);
        s->cached_offset = s->master_repl_offset;
        s->cached_dbid = -1;
    }
    s->repl_state = REPL_STATE_CONNECT;
    serverLog(s, LL_NOTICE, "Connecting to MASTER %s:%d", s->masterhost,
              s->masterport);
    _connectWithMaster(s);
}

void replicationUnsetMaster(redisServer *s) {
    if (!s->masterhost) return;
    sdsfree(s->mem, s->masterhost);
    s->masterhost = NULL;
    if (s->master) freeClient(s->master);
    _discardCachedMaster(s);
    _cancelHandshake(s);
    replicationShiftId(s);
    replicationDisconnectReplicas(s);
    s->repl_state = REPL_STATE_NONE;
    s->repl_seldb = -1;
    s->repl_down_since = 0;
}

/* The server goes away: the link and the master's address with it. */
void replicaRelease(redisServer *s) {
    /* A process that ends leaves its temp file where it is. */
    if (s->repl_transfer_tmpfd >= 0)
        s->fs.close(s->fs.ctx, s->repl_transfer_tmpfd);
    s->repl_transfer_tmpfd = -1;
    _cancelHandshake(s);
    sdsfree(s->mem, s->masterhost);
    s->masterhost = NULL;
    sdsfree(s->mem, s->failover_host);  /* a FAILOVER under way */
    s->failover_host = NULL;
}

/* REPLICAOF host port | NO ONE (and SLAVEOF). */
void replicaofCommand(client *c) {
    redisServer *s = c->srv;
    if (s->failover_state != NO_FAILOVER) {
        addReplyError(c, "REPLICAOF not allowed while failing over.");
        return;
    }
    if (!strcasecmp(c->argv[1]->v.ptr, "no") &&
        !strcasecmp(c->argv[2]->v.ptr, "one")) {
        if (s->masterhost) {
            replicationUnsetMaster(s);
            sds who = catClientInfoString(s, c, sdsempty(s->mem));
            serverLog(s, LL_NOTICE, "MASTER MODE enabled (user request from "
                      "'%s')", who);
            sdsfree(s->mem, who);
        }
        addReplyOK(c);
        return;
    }
    if (c->flags & CLIENT_SLAVE) {
        addReplyError(c, "Command is not valid when client is a replica.");
        return;
    }
    long long port;
    if (getLongLongFromObject(c->argv[2], &port) != C_OK || port < 0 ||
        port > 65535) {
        addReplyError(c, "Invalid master port");
        return;
    }
    if (s->masterhost && !strcasecmp(s->masterhost, c->argv[1]->v.ptr) &&
        s->masterport == port) {
        serverLog(s, LL_NOTICE, "REPLICAOF would result into synchronization "
                  "with the master we are already connected with. No "
                  "operation performed.");
        addReplyStatus(c, "OK Already connected to specified master");
        return;
    }
    replicationSetMaster(s, c->argv[1]->v.ptr, (int)port);
    sds who = catClientInfoString(s, c, sdsempty(s->mem));
    serverLog(s, LL_NOTICE, "REPLICAOF %s:%d enabled (user request from "
              "'%s')", s->masterhost, s->masterport, who);
    sdsfree(s->mem, who);
    addReplyOK(c);
}

/* Once a second: connect when due, time out a silent link, ACK. */
void replicaCron(redisServer *s) {
    if (!s->masterhost) return;
    long long now = s->mstime / 1000;
    if ((s->repl_state == REPL_STATE_CONNECTING || _inHandshake(s)) &&
        now - s->repl_transfer_lastio > s->cfg.repl_timeout) {
        serverLog(s, LL_WARNING, "Timeout connecting to the MASTER...");
        _cancelHandshake(s);
    }
    if (s->repl_state == REPL_STATE_TRANSFER &&
        now - s->repl_transfer_lastio > s->cfg.repl_timeout) {
        serverLog(s, LL_WARNING, "Timeout receiving bulk data from MASTER... "
                  "If the problem persists try to set the 'repl-timeout' "
                  "parameter in redis.conf to a larger value.");
        _cancelHandshake(s);
    }
    if (s->master && s->repl_state == REPL_STATE_CONNECTED &&
        now - (long long)(s->master->lastinteraction_ms / 1000) >
        s->cfg.repl_timeout) {
        serverLog(s, LL_WARNING, "MASTER timeout: no data nor PING "
                  "received...");
        freeClient(s->master);
    }
    if (s->repl_state == REPL_STATE_CONNECT) {
        serverLog(s, LL_NOTICE, "Connecting to MASTER %s:%d", s->masterhost,
                  s->masterport);
        _connectWithMaster(s);
    }
    if (s->master) replicationSendAck(s);
}

/* INFO replication's lines for a replica. */
sds replicaInfo(redisServer *s, sds info) {
    client *m = s->master;
    long long now = s->mstime / 1000;
    long long off = m ? m->reploff : s->cached_offset >= 0
                                     ? s->cached_offset : 1;
    long long roff = m ? m->read_reploff : off;
    info = sdscatprintf(s->mem, info,
        "master_host:%s\r\n"
        "master_port:%d\r\n"
        "master_link_status:%s\r\n"
        "master_last_io_seconds_ago:%d\r\n"
        "master_sync_in_progress:%d\r\n"
        "slave_read_repl_offset:%lld\r\n"
        "slave_repl_offset:%lld\r\n",
        s->masterhost, s->masterport,
        s->repl_state == REPL_STATE_CONNECTED ? "up" : "down",
        m ? (int)(now - (long long)(m->lastinteraction_ms / 1000)) : -1,
        s->repl_state == REPL_STATE_TRANSFER, roff, off);
    if (s->repl_state == REPL_STATE_TRANSFER) {
        double perc = s->repl_transfer_size > 0
            ? (double)s->repl_transfer_read / (double)s->repl_transfer_size *
              100 : 0;
        info = sdscatprintf(s->mem, info,
            "master_sync_total_bytes:%lld\r\n"
            "master_sync_read_bytes:%lld\r\n"
            "master_sync_left_bytes:%lld\r\n"
            "master_sync_perc:%.2f\r\n"
            "master_sync_last_io_seconds_ago:%d\r\n",
            s->repl_transfer_size, s->repl_transfer_read,
            s->repl_transfer_size - s->repl_transfer_read, perc,
            (int)(now - s->repl_transfer_lastio));
    }
    if (s->repl_state != REPL_STATE_CONNECTED)
        info = sdscatprintf(s->mem, info,
            "master_link_down_since_seconds:%lld\r\n",
            s->repl_down_since ? now - s->repl_down_since : -1LL);
    return sdscatprintf(s->mem, info,
        "slave_priority:%lld\r\n"
        "slave_read_only:%d\r\n"
        "replica_announced:%d\r\n",
        s->cfg.replica_priority, s->cfg.repl_slave_ro,
        s->cfg.replica_announced);
}
