/* failover.c -- FAILOVER: a master hands its role to one of its replicas
 * without losing a write, as Redis 7.0 coordinates it.
 *
 *   FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]
 *
 * 1. The master pauses writes (its clients' writes wait, as under CLIENT
 *    PAUSE WRITE) and is "waiting-for-sync".
 * 2. In beforeSleep (and its replicationCron runs every 100 ms meanwhile)
 *    it looks for the target, or any replica, whose REPLCONF ACK has
 *    reached its whole stream.
 * 3. Then it becomes a replica of that one ("failover-in-progress") and
 *    sends it PSYNC <replid> <offset> FAILOVER: the replica, if the replid
 *    is the one it follows, turns master and continues the old master's
 *    stream for it (+CONTINUE), and the pause ends.
 * The timeout aborts the wait, or with FORCE fails over to the target even
 * though it has not caught up. FAILOVER ABORT stops it at any point (a
 * master already on its way to be a replica becomes a master again). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "server.h"

const char *failoverStateString(redisServer *s) {
    switch (s->failover_state) {
    case FAILOVER_WAIT_FOR_SYNC: return "waiting-for-sync";
    case FAILOVER_IN_PROGRESS: return "failover-in-progress";
    default: return "no-failover";
    }
}

/* The failover is over, done or not: its target forgotten, the pause of
 * writes lifted. */
void clearFailoverState(redisServer *s) {
    s->failover_end_time = 0;
    s->failover_force = 0;
    sdsfree(s->mem, s->failover_host);
    s->failover_host = NULL;
    s->failover_port = 0;
    s->failover_state = NO_FAILOVER;
    pauseForFailover(s, 0);
}

void abortFailover(redisServer *s, const char *why) {
    if (s->failover_state == NO_FAILOVER) return;
    if (s->failover_host)
        serverLog(s, LL_NOTICE, "FAILOVER to %s:%d aborted: %s",
                  s->failover_host, s->failover_port, why);
    else
        serverLog(s, LL_NOTICE, "FAILOVER to any replica aborted: %s", why);
    if (s->failover_state == FAILOVER_IN_PROGRESS)
        replicationUnsetMaster(s);
    clearFailoverState(s);
}

/* The replica listening on host:port (its address as the master sees it,
 * and the port it said with REPLCONF listening-port), or NULL. */
static client *_findReplica(redisServer *s, const char *host,
                            long long port) {
    for (int i = 0; i < s->nreplicas; i++) {
        client *r = s->replicas[i];
        char ip[64];
        if (r->slave_listening_port == port &&
            !strcasecmp(replicaIp(r, ip, sizeof(ip)), host))
            return r;
    }
    return NULL;
}

void failoverCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc == 2 && !strcasecmp(c->argv[1]->v.ptr, "abort")) {
        if (s->failover_state == NO_FAILOVER) {
            addReplyError(c, "No failover in progress.");
            return;
        }
        abortFailover(s, "Failover manually aborted");
        addReplyOK(c);
        return;
    }
    long long timeout = 0, port = 0;
    int force = 0;
    const char *host = NULL;
    for (int j = 1; j < c->argc; j++) {
        const char *a = c->argv[j]->v.ptr;
        if (!strcasecmp(a, "timeout") && j + 1 < c->argc && timeout == 0) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &timeout,
                                             NULL) != C_OK) return;
            if (timeout <= 0) {
                addReplyError(c, "FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (!strcasecmp(a, "to") && j + 2 < c->argc && !host) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 2], &port,
                                             NULL) != C_OK) return;
            host = c->argv[j + 1]->v.ptr;
            j += 2;
        } else if (!strcasecmp(a, "force") && !force) {
            force = 1;
        } else {
            addReplyError(c, "syntax error");
            return;
        }
    }
    if (s->failover_state != NO_FAILOVER) {
        addReplyError(c, "FAILOVER already in progress.");
        return;
    }
    if (s->masterhost) {
        addReplyError(c, "FAILOVER is not valid when server is a replica.");
        return;
    }
    if (s->nreplicas == 0) {
        addReplyError(c, "FAILOVER requires connected replicas.");
        return;
    }
    if (force && (!timeout || !host)) {
        addReplyError(c, "FAILOVER with force option requires both a "
                      "timeout and target HOST and IP.");
        return;
    }
    if (host) {
        client *r = _findReplica(s, host, port);
        if (!r) {
            addReplyError(c, "FAILOVER target HOST and PORT is not a "
                          "replica.");
            return;
        }
        if (r->replstate != SLAVE_STATE_ONLINE) {
            addReplyError(c, "FAILOVER target replica is not online.");
            return;
        }
        s->failover_host = sdsnew(s->mem, host);
        s->failover_port = (int)port;
        serverLog(s, LL_NOTICE, "FAILOVER requested to %s:%lld.", host,
                  port);
    } else {
        serverLog(s, LL_NOTICE, "FAILOVER requested to any replica.");
    }
    if (timeout)
        s->failover_end_time = timeout > LLONG_MAX - s->mstime
                               ? LLONG_MAX : s->mstime + timeout;
    s->failover_force = force;
    s->failover_state = FAILOVER_WAIT_FOR_SYNC;
    pauseForFailover(s, 1);
    addReplyOK(c);
}

/* While waiting for a replica to catch up: gives up (or, forced, fails
 * over) when the time is up; else fails over to the target, or to the
 * first replica, whose acknowledged offset is the whole stream. */
void updateFailoverStatus(redisServer *s) {
    if (s->failover_state != FAILOVER_WAIT_FOR_SYNC) return;
    if (s->failover_end_time && s->failover_end_time <= s->mstime) {
        if (s->failover_force) {
            serverLog(s, LL_NOTICE, "FAILOVER to %s:%d time out exceeded, "
                      "failing over.", s->failover_host, s->failover_port);
            s->failover_state = FAILOVER_IN_PROGRESS;
            replicationSetMaster(s, s->failover_host, s->failover_port);
        } else {
            abortFailover(s, "Replica never caught up before timeout");
        }
        return;
    }
    client *r = NULL;
    if (s->failover_host) {
        r = _findReplica(s, s->failover_host, s->failover_port);
    } else {
        for (int i = 0; i < s->nreplicas && !r; i++) {
            if (s->replicas[i]->repl_ack_off != s->master_repl_offset)
                continue;
            r = s->replicas[i];
            char ip[64];
            s->failover_host = sdsnew(s->mem, replicaIp(r, ip, sizeof(ip)));
            s->failover_port = r->slave_listening_port;
        }
    }
    if (!r || r->repl_ack_off != s->master_repl_offset) return;
    s->failover_state = FAILOVER_IN_PROGRESS;
    serverLog(s, LL_NOTICE, "Failover target %s:%d is synced, failing over.",
              s->failover_host, s->failover_port);
    replicationSetMaster(s, s->failover_host, s->failover_port);
}

/* The replica's side: PSYNC replid offset FAILOVER from its master, which
 * asks it to take over. C_OK to go on with the PSYNC (it is a master
 * now), C_ERR when refused (the reply is sent). */
int failoverRequestReceived(client *c) {
    redisServer *s = c->srv;
    const char *replid = c->argv[1]->v.ptr;
    serverLog(s, LL_WARNING, "Failover request received for replid %s.",
              replid);
    if (!s->masterhost) {
        addReplyError(c, "PSYNC FAILOVER can't be sent to a master.");
        return C_ERR;
    }
    if (strcasecmp(replid, replicationId(s))) {
        addReplyError(c, "PSYNC FAILOVER replid must match my replid.");
        return C_ERR;
    }
    replicationUnsetMaster(s);
    sds who = catClientInfoString(s, c, sdsempty(s->mem));
    serverLog(s, LL_NOTICE, "MASTER MODE enabled (failover request from "
              "'%s')", who);
    sdsfree(s->mem, who);
    return C_OK;
}
