/* replview.c -- what the network view draws of a server node: its place in
 * the topology (master, replica of which port, its link's state), the
 * offsets of the stream, the backlog, and for each replica connected to
 * it, its sync state, its acknowledged offset and the bytes on their way
 * to it (in its output buffer, then on the wire). Read only. */
#include <string.h>
#include "world.h"
#include "child.h"

static int32_t _link(const redisServer *s) {
    if (!s->masterhost) return GK_LINK_NONE;
    switch (s->repl_state) {
    case REPL_STATE_CONNECT:
    case REPL_STATE_CONNECTING: return GK_LINK_CONNECTING;
    case REPL_STATE_TRANSFER: return GK_LINK_TRANSFER;
    case REPL_STATE_CONNECTED: return GK_LINK_UP;
    default: return GK_LINK_HANDSHAKE;
    }
}

int gkReplInspect(gkWorld *w, int node, gkReplNode *out) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no server runs on that node");
    memset(out, 0, sizeof(*out));
    out->port = s->port;
    out->link = _link(s);
    out->master_port = s->masterhost ? s->masterport : 0;
    out->replicas = s->nreplicas;
    out->offset = s->master_repl_offset;
    if (s->masterhost) {
        client *m = s->master;
        out->applied_offset = m ? m->reploff : s->cached_offset;
        out->read_offset = m ? m->read_reploff : out->applied_offset;
    }
    if (s->repl_state == REPL_STATE_TRANSFER) {
        out->sync_total = s->repl_transfer_size;
        out->sync_read = s->repl_transfer_read;
    }
    out->backlog_size = s->cfg.repl_backlog_size;
    if (s->repl_backlog_active) {
        out->backlog_histlen = s->repl_backlog_histlen;
        out->backlog_first = s->repl_backlog_off;
    }
    if (s->child.type == CHILD_TYPE_RDB)
        out->rdb_child = s->child.socket ? 2 : 1;
    memcpy(out->replid, s->replid, sizeof(s->replid));
    return GK_OK;
}

static int32_t _state(int replstate) {
    if (replstate == SLAVE_STATE_ONLINE) return GK_REPLICA_ONLINE;
    if (replstate == SLAVE_STATE_SEND_BULK) return GK_REPLICA_SEND_BULK;
    return GK_REPLICA_WAIT_BGSAVE;
}

int gkReplInspectLink(gkWorld *w, int node, int i, gkReplLink *out) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no server runs on that node");
    if (i < 0 || i >= s->nreplicas)
        return worldFail(w, GK_ENOTFOUND, "no such replica");
    client *c = s->replicas[i];
    memset(out, 0, sizeof(*out));
    out->port = c->slave_listening_port;
    out->state = _state(c->replstate);
    out->node = c->slave_listening_port
        ? worldListener(w, c->slave_listening_port) : -1;
    out->ack_offset = c->repl_ack_off;
    out->ack_age_ms = c->repl_ack_time_ms
        ? (int64_t)(s->mstime - c->repl_ack_time_ms) : -1;
    out->buffered = (int64_t)(c->bufpos - c->sentlen + c->reply_bytes);
    gkConn *conn = worldConn(w, c->fd);
    if (conn) {
        const gkPipe *p = &conn->down;
        out->in_flight = (int64_t)(p->inflight + sdslen(p->buf) - p->pos);
    }
    return GK_OK;
}
