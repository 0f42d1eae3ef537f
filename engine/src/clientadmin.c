/* clientadmin.c -- administering connections, as Redis 7.0 does it:
 * CLIENT KILL, CLIENT PAUSE / UNPAUSE, CLIENT REPLY, CLIENT NO-EVICT,
 * CLIENT HELP and RESET (the tracking subcommands are in tracking.c).
 *
 * CLIENT PAUSE <ms> [WRITE|ALL] stops the server from running commands
 * for a while without stopping it from reading them. A paused client's
 * next command is parsed and then held (the client is "blocked", flag b
 * in CLIENT LIST, counted in blocked_clients); whatever it sent after it
 * stays unread in its query buffer. A WRITE pause holds only what may
 * change the dataset or propagate (write commands, and an EXEC queueing
 * one); an ALL pause holds everything. Replicas and MONITOR clients are
 * never held. While any pause lasts the dataset is frozen: keys past
 * their TTL read as missing but are not deleted, and the active expiry
 * cycle does nothing, so no DEL reaches the AOF or a replica. (Redis also
 * stops evicting; this server does not evict.) The pause ends when
 * CLIENT UNPAUSE runs, or at the first check after its end time -- every
 * serverCron, and every key lookup of an expired key -- and the held
 * clients are then queued to run their command from the start, in the
 * order they were held. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "server.h"
#include "acl.h"

/* ---- Addresses. ---- */

/* A client's address as "ip:port", from the host's sockets if it has
 * them, otherwise made up from the connection id (the simulated world's
 * connections have no addresses of their own). */
static const char *_clientAddr(client *c, int remote) {
    char *out = remote ? c->peerid : c->sockname;
    size_t cap = remote ? sizeof(c->peerid) : sizeof(c->sockname);
    if (out[0]) return out;
    aeBackend *be = &c->srv->el->backend;
    int kind = be->sockName ? be->sockName(be->ctx, c->fd, remote, out, cap)
                            : 0;
    if (kind == 2) c->flags |= CLIENT_UNIX_SOCKET;
    if (kind == 0)
        snprintf(out, cap, "127.0.0.1:%d",
                 remote ? 40000 + c->fd : c->srv->port);
    return out;
}

/* The client's peer, "ip:port" (CLIENT LIST's addr, MONITOR's source). */
const char *getClientPeerId(client *c) { return _clientAddr(c, 1); }

/* The server's end of the client's connection (CLIENT LIST's laddr). */
const char *getClientSockName(client *c) { return _clientAddr(c, 0); }

/* ---- CLIENT KILL ---- */

/* CLIENT LIST TYPE and CLIENT KILL TYPE's names; -1 if unknown. */
static int _clientTypeByName(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica"))
        return CLIENT_TYPE_SLAVE;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (!strcasecmp(name, "master")) return CLIENT_TYPE_MASTER;
    return -1;
}

/* What CLIENT KILL's filters select; NULL or -1 or 0: any. */
typedef struct killFilter {
    const char *addr, *laddr;
    int type;
    uint64_t id;
    struct user *user;
    int skipme;
} killFilter;

/* Parses the filter form's option-value pairs from argv[2]. C_ERR after
 * replying with 7.0's error. */
static int _parseKillFilter(client *c, killFilter *f) {
    for (int i = 2; i < c->argc; i += 2) {
        const char *opt = c->argv[i]->v.ptr;
        if (i + 1 >= c->argc) goto syntax;
        const char *val = c->argv[i + 1]->v.ptr;
        if (!strcasecmp(opt, "id")) {
            long long id;
            if (getRangeLongFromObjectOrReply(c, c->argv[i + 1], 1,
                    LONG_MAX, &id, "client-id should be greater than 0")
                != C_OK) return C_ERR;
            f->id = (uint64_t)id;
        } else if (!strcasecmp(opt, "type")) {
            f->type = _clientTypeByName(val);
            if (f->type == -1) {
                addReplyErrorFormat(c, "Unknown client type '%s'", val);
                return C_ERR;
            }
        } else if (!strcasecmp(opt, "addr")) {
            f->addr = val;
        } else if (!strcasecmp(opt, "laddr")) {
            f->laddr = val;
        } else if (!strcasecmp(opt, "user")) {
            f->user = aclGetUser(c->srv, val, strlen(val));
            if (!f->user) {
                addReplyErrorFormat(c, "No such user '%s'", val);
                return C_ERR;
            }
        } else if (!strcasecmp(opt, "skipme")) {
            if (!strcasecmp(val, "yes")) f->skipme = 1;
            else if (!strcasecmp(val, "no")) f->skipme = 0;
            else goto syntax;
        } else {
            goto syntax;
        }
    }
    return C_OK;
syntax:
    addReplyError(c, "syntax error");
    return C_ERR;
}

static int _killMatches(client *c, client *cl, const killFilter *f) {
    if (f->addr && strcmp(getClientPeerId(cl), f->addr)) return 0;
    if (f->laddr && strcmp(getClientSockName(cl), f->laddr)) return 0;
    if (f->type != -1 && getClientType(cl) != f->type) return 0;
    if (f->id && cl->id != f->id) return 0;
    if (f->user && cl->user != f->user) return 0;
    if (cl == c && f->skipme) return 0;
    return 1;
}

/* CLIENT KILL <ip:port> | CLIENT KILL <filter> <value> ...: closes the
 * matching connections at once. The old form replies +OK, or "No such
 * client", and may close the caller itself; the filter form (ID, TYPE,
 * ADDR, LADDR, USER, SKIPME, which is YES by default) replies how many
 * it closed. The caller, when it matches, is closed once this reply is
 * written. */
void clientKillCommand(client *c) {
    redisServer *s = c->srv;
    killFilter f = { NULL, NULL, -1, 0, NULL, 1 };
    if (c->argc == 3) {
        f.addr = c->argv[2]->v.ptr;
        f.skipme = 0;
    } else if (_parseKillFilter(c, &f) != C_OK) {
        return;
    }
    int killed = 0, close_self = 0;
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *cl = s->clients[fd];
        if (!cl || !_killMatches(c, cl, &f)) continue;
        if (cl == c) close_self = 1;
        else freeClient(cl);
        killed++;
    }
    if (c->argc == 3) {
        if (killed == 0) addReplyError(c, "No such client");
        else addReplyOK(c);
    } else {
        addReplyLongLong(c, killed);
    }
    if (close_self) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* ---- CLIENT PAUSE ---- */

/* Queues every held client to run its command again (it may be held
 * again, by a pause of the other kind). */
static void _unblockPostponedClients(redisServer *s) {
    while (s->npostponed) unblockClient(s->postponed[0]);
}

/* Whether clients are paused: by CLIENT PAUSE, or for a FAILOVER (which
 * pauses writes until it ends, as 7.0's pause purposes add up). */
int clientsArePaused(redisServer *s) {
    return s->client_pause_type != CLIENT_PAUSE_OFF || s->failover_pause;
}

/* Ends CLIENT PAUSE if its time is up. Returns whether clients are paused
 * now. */
int checkClientPauseTimeoutAndReturnIfPaused(redisServer *s) {
    if (s->client_pause_type != CLIENT_PAUSE_OFF &&
        s->client_pause_end < s->mstime) {
        s->client_pause_type = CLIENT_PAUSE_OFF;
        s->client_pause_end = 0;
        _unblockPostponedClients(s);
    }
    return clientsArePaused(s);
}

/* FAILOVER's pause of writes, on or off; held clients are let go when it
 * ends (to be held again if CLIENT PAUSE still holds them). */
void pauseForFailover(redisServer *s, int on) {
    if (s->failover_pause == on) return;
    s->failover_pause = on;
    if (!on) _unblockPostponedClients(s);
}

/* Whether the pause in force holds c's command (processCommand). */
int clientPauseHolds(client *c) {
    redisServer *s = c->srv;
    int type = s->client_pause_type;
    if (s->failover_pause && type == CLIENT_PAUSE_OFF)
        type = CLIENT_PAUSE_WRITE;
    if (type == CLIENT_PAUSE_OFF) return 0;
    if (c->flags & (CLIENT_SLAVE | CLIENT_MONITOR)) return 0;
    if (type == CLIENT_PAUSE_ALL) return 1;
    uint64_t f = c->cmd->flags;
    if (c->cmd->proc == execCommand) f |= c->mstate.cmd_flags;
    return (f & (CMD_WRITE | CMD_MAY_REPLICATE)) != 0;
}

/* Holds c, its parsed command kept, until the pause ends. */
void postponeClient(client *c) {
    redisServer *s = c->srv;
    if (s->npostponed == s->postponed_cap) {
        s->postponed_cap = s->postponed_cap ? s->postponed_cap * 2 : 4;
        s->postponed = memRealloc(s->mem, s->postponed,
                                  sizeof(client *) * (size_t)s->postponed_cap);
    }
    s->postponed[s->npostponed++] = c;
    c->bpop.timeout = 0;
    c->flags |= CLIENT_BLOCKED | CLIENT_PENDING_COMMAND;
    c->btype = BLOCKED_POSTPONE;
    s->blocked_clients++;
    s->blocked_clients_by_type[BLOCKED_POSTPONE]++;
}

/* c, held by a pause, is let go (unblockClient) or closed. */
void postponedClientGone(client *c) {
    redisServer *s = c->srv;
    for (int j = 0; j < s->npostponed; j++) {
        if (s->postponed[j] != c) continue;
        memmove(&s->postponed[j], &s->postponed[j + 1],
                sizeof(client *) * (size_t)(s->npostponed - j - 1));
        s->npostponed--;
        return;
    }
}

/* Frees what the pause machinery owns (serverRelease). */
void clientAdminRelease(redisServer *s) {
    memFree(s->mem, s->postponed);
    memFree(s->mem, s->monitors);
    s->postponed = NULL;
    s->monitors = NULL;
    s->npostponed = s->nmonitors = 0;
    sdsfree(s->mem, s->requirepass);
    s->requirepass = NULL;
}

/* CLIENT PAUSE <timeout ms> [WRITE|ALL]: pauses clients until now +
 * timeout. A pause already in force is extended, never shortened, and
 * becomes the more restrictive of the two kinds; a pause that becomes
 * less restrictive lets its held clients go, to be held again or run. */
void clientPauseCommand(client *c) {
    redisServer *s = c->srv;
    int type = CLIENT_PAUSE_ALL;
    long long end;
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 4) {
        if (!strcasecmp(c->argv[3]->v.ptr, "write")) {
            type = CLIENT_PAUSE_WRITE;
        } else if (strcasecmp(c->argv[3]->v.ptr, "all")) {
            addReplyError(c, "CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &end,
            "timeout is not an integer or out of range") != C_OK) return;
    if (end < 0) {
        addReplyError(c, "timeout is negative");
        return;
    }
    if (end > 0) end += s->mstime;
    if (s->client_pause_type == CLIENT_PAUSE_OFF) {
        s->client_pause_type = type;
        s->client_pause_end = end;
    } else {
        if (type > s->client_pause_type) s->client_pause_type = type;
        if (end > s->client_pause_end) s->client_pause_end = end;
    }
    checkClientPauseTimeoutAndReturnIfPaused(s);
    addReplyOK(c);
}

/* CLIENT UNPAUSE: ends the pause; held clients run in beforeSleep. */
void clientUnpauseCommand(client *c) {
    redisServer *s = c->srv;
    if (s->client_pause_type != CLIENT_PAUSE_OFF) {
        s->client_pause_type = CLIENT_PAUSE_OFF;
        s->client_pause_end = 0;
        _unblockPostponedClients(s);
    }
    addReplyOK(c);
}

/* ---- CLIENT REPLY, NO-EVICT, HELP ---- */

/* CLIENT REPLY ON|OFF|SKIP: ON replies +OK and turns replies back on;
 * OFF silences every reply from now on (its own too); SKIP silences the
 * next command's reply only (resetClient arms it). */
void clientReplyCommand(client *c) {
    const char *mode = c->argv[2]->v.ptr;
    if (!strcasecmp(mode, "on")) {
        c->flags &= ~(uint64_t)(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        addReplyOK(c);
    } else if (!strcasecmp(mode, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (!strcasecmp(mode, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        addReplyError(c, "syntax error");
    }
}

/* CLIENT NO-EVICT ON|OFF: exempts the connection from client eviction
 * (maxmemory-clients; flag e in CLIENT LIST). This server evicts no
 * clients, so only the flag changes. */
void clientNoEvictCommand(client *c) {
    const char *mode = c->argv[2]->v.ptr;
    if (!strcasecmp(mode, "on")) {
        c->flags |= CLIENT_NO_EVICT;
        addReplyOK(c);
    } else if (!strcasecmp(mode, "off")) {
        c->flags &= ~(uint64_t)CLIENT_NO_EVICT;
        addReplyOK(c);
    } else {
        addReplyError(c, "syntax error");
    }
}

/* CLIENT HELP: 7.0's text. */
void clientHelpCommand(client *c) {
    static const char *help[] = {
"CACHING (YES|NO)",
"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT "
"modes.",
"GETREDIR",
"    Return the client ID we are redirecting to when tracking is enabled.",
"GETNAME",
"    Return the name of the current connection.",
"ID",
"    Return the ID of the current connection.",
"INFO",
"    Return information about the current client connection.",
"KILL <ip:port>",
"    Kill connection made from <ip:port>.",
"KILL <option> <value> [<option> <value> [...]]",
"    Kill connections. Options are:",
"    * ADDR (<ip:port>|<unixsocket>:0)",
"      Kill connections made from the specified address",
"    * LADDR (<ip:port>|<unixsocket>:0)",
"      Kill connections made to specified local address",
"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
"      Kill connections by type.",
"    * USER <username>",
"      Kill connections authenticated by <username>.",
"    * SKIPME (YES|NO)",
"      Skip killing current connection (default: yes).",
"LIST [options ...]",
"    Return information about client connections. Options:",
"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
"      Return clients of specified type.",
"UNPAUSE",
"    Stop the current client pause, resuming traffic.",
"PAUSE <timeout> [WRITE|ALL]",
"    Suspend all, or just write, clients for <timeout> milliseconds.",
"REPLY (ON|OFF|SKIP)",
"    Control the replies sent to the current connection.",
"SETNAME <name>",
"    Assign the name <name> to the current connection.",
"UNBLOCK <clientid> [TIMEOUT|ERROR]",
"    Unblock the specified blocked client.",
"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
"         [OPTIN] [OPTOUT] [NOLOOP]",
"    Control server assisted client side caching.",
"TRACKINGINFO",
"    Report tracking status for the current connection.",
"NO-EVICT (ON|OFF)",
"    Protect current client connection from eviction.",
        NULL };
    addReplyHelp(c, help);
}

/* ---- RESET ---- */

/* RESET: the connection as it was when it connected. MONITOR ends, the
 * transaction and its WATCHes are discarded, db 0, RESP2, the default
 * user's authentication as a new connection gets it (so with a
 * requirepass the client must AUTH again), no name, replies back on,
 * no subscriptions, no tracking. A replica's connection, or a master's,
 * cannot be reset. Replies +RESET. */
void resetCommand(client *c) {
    if (c->flags & (CLIENT_SLAVE | CLIENT_MASTER)) {
        addReplyError(c, "can only reset normal client connections");
        return;
    }
    if (c->flags & CLIENT_MONITOR) monitorClientGone(c);
    if (c->flags & CLIENT_TRACKING) disableTracking(c);
    selectDb(c, 0);
    c->resp = 2;
    clientSetDefaultAuth(c);
    discardTransaction(c);
    pubsubUnsubscribeAll(c, 0);
    sdsfree(c->srv->mem, c->name);
    c->name = NULL;
    c->flags &= ~(uint64_t)(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP_NEXT);
    addReplyStatus(c, "RESET");
}
