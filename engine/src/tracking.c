/* tracking.c -- client-side caching, as Redis 7.0.15 serves it: CLIENT
 * TRACKING, CACHING, GETREDIR and TRACKINGINFO, the table of the keys
 * clients may hold in their own memory, and the messages that tell them
 * to forget one.
 *
 * A client that turns tracking on may keep the values it reads, because
 * the server promises to say when one of them may have changed. By
 * default the server remembers, for each key a tracking client read with
 * a read-only command, the ids of the clients that read it: the tracking
 * table, a radix tree of key names in which every database is one (key
 * "a" of db 0 and key "a" of db 5 are the same entry). The first change
 * of such a key sends each of those clients a message naming it, and the
 * entry goes: a client must read the key again to hear of the next
 * change. That memory is the price, and tracking-table-max-keys bounds
 * it: past the limit, keys picked at random leave the table and their
 * clients are told as if the keys had changed.
 *
 * In BCAST mode the server remembers nothing per key. The client names
 * prefixes (none: the empty prefix, every key) and, at the end of each
 * iteration of the event loop, is told in one message per prefix every
 * key with that prefix that changed meanwhile, whoever read it. OPTIN
 * tracks only what the command after CLIENT CACHING yes reads; OPTOUT
 * everything but what the command after CLIENT CACHING no reads. NOLOOP
 * leaves out the changes the client made itself.
 *
 * A message is a RESP3 push, >2 "invalidate" [key ...], on the client's
 * own connection. A RESP2 connection cannot carry pushes among replies,
 * so a RESP2 client redirects its messages (REDIRECT id) to another
 * connection, one subscribed to something, where they arrive as Pub/Sub
 * messages of the channel __redis__:invalidate. FLUSHDB and FLUSHALL send
 * every tracking client one message with a null for the keys: forget
 * everything. When the connection messages are redirected to has gone, a
 * RESP3 client is told tracking-redir-broken instead.
 *
 * A message about a key the current client changes during its own
 * command waits in a list until the command is done, so that it never
 * lands in the middle of the command's reply (or of EXEC's).
 *
 * Where this differs from Redis: the clients of a prefix are told in the
 * order of their ids, where Redis goes by their addresses in memory; the
 * keys tracking-table-max-keys drops are drawn from the world's seeded
 * PRNG, where Redis calls rand(); a flush frees the table at once, ASYNC
 * or not, as this server's flushes do; and a client is found by id by
 * walking the table of connections, O(connections) where Redis keeps an
 * index, which a world of a few connections does not need. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "server.h"
#include "rax.h"
#include "script.h"
#include "command_keys.h"

#define TRACKING_CHANNEL "__redis__:invalidate"

/* A prefix of the BCAST clients: the keys with it changed since the last
 * broadcast, each with the client that changed it last (NULL for the
 * server itself: an expiry, an eviction), and the clients following the
 * prefix (8 bytes of id, big-endian, so in id order -> client). */
typedef struct trackingPrefix {
    rax *keys;
    rax *clients;
} trackingPrefix;

/* A client id as a key of the tracking table: 8 bytes little-endian, the
 * bytes Redis stores on the machines it runs on, so that the clients of a
 * key are told in the same order. */
static void _idToLE(uint64_t id, unsigned char *b) {
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(id >> (8 * i));
}

static uint64_t _idFromLE(const unsigned char *b) {
    uint64_t id = 0;
    for (int i = 0; i < 8; i++) id |= (uint64_t)b[i] << (8 * i);
    return id;
}

static void _idToBE(uint64_t id, unsigned char *b) {
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(id >> (56 - 8 * i));
}

/* ---- Turning tracking on and off. ---- */

static void _freeRax(void *ctx, void *val) {
    (void)ctx;
    raxFree(val);
}

static void _freePrefix(void *ctx, void *val) {
    trackingPrefix *tp = val;
    raxFree(tp->keys);
    raxFree(tp->clients);
    memFree(ctx, tp);
}

/* Turns tracking off: the client leaves its prefixes (a prefix no client
 * follows any more is dropped, with the changes it had gathered). Its id
 * stays in the tracking table's entries, to be skipped when one of those
 * keys changes: removing it now would cost a walk of the whole table. */
void disableTracking(client *c) {
    redisServer *s = c->srv;
    if (c->tracking_prefixes) {
        unsigned char id[8];
        _idToBE(c->id, id);
        raxIterator ri;
        raxStart(&ri, c->tracking_prefixes);
        raxSeek(&ri, "^", NULL, 0);
        while (raxNext(&ri)) {
            void *val;
            if (!raxFind(s->tracking_prefixes, ri.key, ri.key_len, &val))
                continue;
            trackingPrefix *tp = val;
            raxRemove(tp->clients, id, sizeof(id), NULL);
            if (raxSize(tp->clients) == 0) {
                _freePrefix(s->mem, tp);
                raxRemove(s->tracking_prefixes, ri.key, ri.key_len, NULL);
            }
        }
        raxStop(&ri);
        raxFree(c->tracking_prefixes);
        c->tracking_prefixes = NULL;
    }
    if (c->flags & CLIENT_TRACKING) {
        s->tracking_clients--;
        c->flags &= ~(CLIENT_TRACKING | CLIENT_TRACKING_BROKEN_REDIR |
                      CLIENT_TRACKING_BCAST | CLIENT_TRACKING_OPTIN |
                      CLIENT_TRACKING_OPTOUT | CLIENT_TRACKING_CACHING |
                      CLIENT_TRACKING_NOLOOP);
    }
}

/* Whether one of two prefixes starts the other: then some key has both,
 * and would be told twice. */
static int _prefixesOverlap(const unsigned char *a, size_t alen,
                            const unsigned char *b, size_t blen) {
    return memcmp(a, b, alen < blen ? alen : blen) == 0;
}

/* Checks that no prefix given overlaps one the client follows, nor one
 * given after it. Returns 1 to go on; 0 with an error replied. Like
 * 7.0.15, an overlap among the prefixes given, found for a prefix other
 * than the first, is replied and then reported as no overlap (the check
 * returns the prefix's index), so the command goes on and also replies
 * +OK: two replies to one command, which a client reads as the replies
 * of two. */
static int _checkPrefixCollisionsOrReply(client *c, robj **prefix,
                                         size_t n) {
    for (size_t i = 0; i < n; i++) {
        sds p = prefix[i]->v.ptr;
        if (c->tracking_prefixes) {
            raxIterator ri;
            raxStart(&ri, c->tracking_prefixes);
            raxSeek(&ri, "^", NULL, 0);
            while (raxNext(&ri)) {
                if (!_prefixesOverlap(ri.key, ri.key_len,
                                      (unsigned char *)p, sdslen(p)))
                    continue;
                sds old = sdsnewlen(c->srv->mem, ri.key, ri.key_len);
                addReplyErrorFormat(c, "Prefix '%s' overlaps with an "
                    "existing prefix '%s'. Prefixes for a single client "
                    "must not overlap.", p, old);
                sdsfree(c->srv->mem, old);
                raxStop(&ri);
                return 0;
            }
            raxStop(&ri);
        }
        for (size_t j = i + 1; j < n; j++) {
            sds q = prefix[j]->v.ptr;
            if (!_prefixesOverlap((unsigned char *)p, sdslen(p),
                                  (unsigned char *)q, sdslen(q)))
                continue;
            addReplyErrorFormat(c, "Prefix '%s' overlaps with another "
                "provided prefix '%s'. Prefixes for a single client must "
                "not overlap.", p, q);
            return (int)i;
        }
    }
    return 1;
}

/* Makes c follow prefix p (len bytes); nothing if it does already. */
static void _followPrefix(client *c, const unsigned char *p, size_t len) {
    redisServer *s = c->srv;
    void *val;
    trackingPrefix *tp;
    if (raxFind(s->tracking_prefixes, p, len, &val)) {
        tp = val;
    } else {
        tp = memAlloc(s->mem, sizeof(*tp));
        tp->keys = raxNew(s->mem);
        tp->clients = raxNew(s->mem);
        raxInsert(s->tracking_prefixes, p, len, tp, NULL);
    }
    unsigned char id[8];
    _idToBE(c->id, id);
    if (raxTryInsert(tp->clients, id, sizeof(id), c, NULL)) {
        if (!c->tracking_prefixes) c->tracking_prefixes = raxNew(s->mem);
        raxInsert(c->tracking_prefixes, p, len, NULL, NULL);
    }
}

/* Turns tracking on, or changes it, with the options given (the
 * CLIENT_TRACKING_* flags of BCAST, OPTIN, OPTOUT, NOLOOP), messages
 * going to the client with id redirect (0: c itself). A BCAST client adds
 * the prefixes given to those it follows (none given: the empty prefix).
 * CACHING, once given, stays until the next command. */
static void _enableTracking(client *c, uint64_t redirect, uint64_t options,
                            robj **prefix, size_t n) {
    redisServer *s = c->srv;
    if (!(c->flags & CLIENT_TRACKING)) s->tracking_clients++;
    c->flags |= CLIENT_TRACKING;
    c->flags &= ~(CLIENT_TRACKING_BROKEN_REDIR | CLIENT_TRACKING_BCAST |
                  CLIENT_TRACKING_OPTIN | CLIENT_TRACKING_OPTOUT |
                  CLIENT_TRACKING_NOLOOP);
    c->tracking_redirect = redirect;
    if (!s->tracking_table) {
        s->tracking_table = raxNew(s->mem);
        s->tracking_prefixes = raxNew(s->mem);
    }
    if (options & CLIENT_TRACKING_BCAST) {
        c->flags |= CLIENT_TRACKING_BCAST;
        if (n == 0) _followPrefix(c, (const unsigned char *)"", 0);
        for (size_t j = 0; j < n; j++) {
            sds p = prefix[j]->v.ptr;
            _followPrefix(c, (unsigned char *)p, sdslen(p));
        }
    }
    c->flags |= options & (CLIENT_TRACKING_OPTIN | CLIENT_TRACKING_OPTOUT |
                           CLIENT_TRACKING_NOLOOP);
}

/* Checks the options of CLIENT TRACKING ON against each other and the
 * client's tracking as it is, in 7.0.15's order. C_OK, or C_ERR with
 * the error replied. */
static int _checkTrackingOn(client *c, uint64_t options, size_t nprefix) {
    const uint64_t in = CLIENT_TRACKING_OPTIN, out = CLIENT_TRACKING_OPTOUT;
    if (!(options & CLIENT_TRACKING_BCAST) && nprefix) {
        addReplyError(c, "PREFIX option requires BCAST mode to be enabled");
        return C_ERR;
    }
    if ((c->flags & CLIENT_TRACKING) &&
        !(c->flags & CLIENT_TRACKING_BCAST) !=
        !(options & CLIENT_TRACKING_BCAST)) {
        addReplyError(c, "You can't switch BCAST mode on/off before "
            "disabling tracking for this client, and then re-enabling it "
            "with a different mode.");
        return C_ERR;
    }
    if ((options & CLIENT_TRACKING_BCAST) && (options & (in | out))) {
        addReplyError(c, "OPTIN and OPTOUT are not compatible with BCAST");
        return C_ERR;
    }
    if ((options & in) && (options & out)) {
        addReplyError(c, "You can't specify both OPTIN mode and OPTOUT "
                      "mode");
        return C_ERR;
    }
    if (((options & in) && (c->flags & out)) ||
        ((options & out) && (c->flags & in))) {
        addReplyError(c, "You can't switch OPTIN/OPTOUT mode before "
            "disabling tracking for this client, and then re-enabling it "
            "with a different mode.");
        return C_ERR;
    }
    return C_OK;
}

/* CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
 * [OPTOUT] [NOLOOP]. The options are read first, whatever ON or OFF
 * says (REDIRECT must name a client connected now, even for OFF), then
 * ON checks them and turns tracking on; OFF turns it off. +OK. */
void clientTrackingCommand(client *c) {
    redisServer *s = c->srv;
    long long redir = 0;
    uint64_t options = 0;
    size_t n = 0;
    robj **prefix = memAlloc(s->mem, sizeof(robj *) * (size_t)c->argc);
    for (int j = 3; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "redirect") && more) {
            j++;
            if (redir != 0) {
                addReplyError(c, "A client can only redirect to a single "
                              "other client");
                goto done;
            }
            if (getLongLongFromObjectOrReply(c, c->argv[j], &redir, NULL) !=
                C_OK)
                goto done;
            if (!lookupClientByID(s, (uint64_t)redir)) {
                addReplyError(c, "The client ID you want redirect to does "
                              "not exist");
                goto done;
            }
        } else if (!strcasecmp(opt, "bcast")) {
            options |= CLIENT_TRACKING_BCAST;
        } else if (!strcasecmp(opt, "optin")) {
            options |= CLIENT_TRACKING_OPTIN;
        } else if (!strcasecmp(opt, "optout")) {
            options |= CLIENT_TRACKING_OPTOUT;
        } else if (!strcasecmp(opt, "noloop")) {
            options |= CLIENT_TRACKING_NOLOOP;
        } else if (!strcasecmp(opt, "prefix") && more) {
            prefix[n++] = c->argv[++j];
        } else {
            addReplyError(c, "syntax error");
            goto done;
        }
    }
    const char *mode = c->argv[2]->v.ptr;
    if (!strcasecmp(mode, "on")) {
        if (_checkTrackingOn(c, options, n) != C_OK) goto done;
        if ((options & CLIENT_TRACKING_BCAST) &&
            !_checkPrefixCollisionsOrReply(c, prefix, n))
            goto done;
        _enableTracking(c, (uint64_t)redir, options, prefix, n);
    } else if (!strcasecmp(mode, "off")) {
        disableTracking(c);
    } else {
        addReplyError(c, "syntax error");
        goto done;
    }
    addReplyOK(c);
done:
    memFree(s->mem, prefix);
}

/* CLIENT CACHING YES|NO: whether the next command's keys are tracked, in
 * OPTIN mode (YES) or OPTOUT mode (NO). The flag holds for the next
 * command, a whole transaction if that is MULTI, and through any CLIENT
 * command before it (see trackingResetCaching). */
void clientCachingCommand(client *c) {
    if (!(c->flags & CLIENT_TRACKING)) {
        addReplyError(c, "CLIENT CACHING can be called only when the client "
                      "is in tracking mode with OPTIN or OPTOUT mode "
                      "enabled");
        return;
    }
    const char *opt = c->argv[2]->v.ptr;
    if (!strcasecmp(opt, "yes")) {
        if (!(c->flags & CLIENT_TRACKING_OPTIN)) {
            addReplyError(c, "CLIENT CACHING YES is only valid when "
                          "tracking is enabled in OPTIN mode.");
            return;
        }
    } else if (!strcasecmp(opt, "no")) {
        if (!(c->flags & CLIENT_TRACKING_OPTOUT)) {
            addReplyError(c, "CLIENT CACHING NO is only valid when "
                          "tracking is enabled in OPTOUT mode.");
            return;
        }
    } else {
        addReplyError(c, "syntax error");
        return;
    }
    c->flags |= CLIENT_TRACKING_CACHING;
    addReplyOK(c);
}

/* Called as each command is done with (resetClient): CLIENT CACHING
 * covers the command after it and no more. Every CLIENT subcommand is
 * one command in Redis (clientCommand), which does not end it, nor does
 * a command queued in MULTI. */
void trackingResetCaching(client *c) {
    if (!(c->flags & CLIENT_TRACKING_CACHING) || (c->flags & CLIENT_MULTI))
        return;
    if (c->cmd && !strncmp(c->cmd->fullname, "client|", 7)) return;
    c->flags &= ~CLIENT_TRACKING_CACHING;
}

/* CLIENT GETREDIR: the id messages are redirected to, 0 for none, -1
 * when tracking is off. */
void clientGetredirCommand(client *c) {
    addReplyLongLong(c, (c->flags & CLIENT_TRACKING)
                        ? (long long)c->tracking_redirect : -1);
}

/* CLIENT TRACKINGINFO: a map of flags (a set), redirect and prefixes. */
void clientTrackinginfoCommand(client *c) {
    static const struct { uint64_t flag; const char *name; } names[] = {
        { CLIENT_TRACKING_BCAST, "bcast" },
        { CLIENT_TRACKING_OPTIN, "optin" },
        { CLIENT_TRACKING_OPTOUT, "optout" },
        { CLIENT_TRACKING_NOLOOP, "noloop" },
        { CLIENT_TRACKING_BROKEN_REDIR, "broken_redirect" },
    };
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "flags");
    void *len = addReplyDeferredLen(c);
    long nflags = 1;
    addReplyBulkCString(c, (c->flags & CLIENT_TRACKING) ? "on" : "off");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(c->flags & names[i].flag)) continue;
        addReplyBulkCString(c, names[i].name);
        nflags++;
        /* CACHING shows under the mode it was given in. */
        if ((names[i].flag & (CLIENT_TRACKING_OPTIN |
                              CLIENT_TRACKING_OPTOUT)) &&
            (c->flags & CLIENT_TRACKING_CACHING)) {
            addReplyBulkCString(c, names[i].flag == CLIENT_TRACKING_OPTIN
                                   ? "caching-yes" : "caching-no");
            nflags++;
        }
    }
    setDeferredSetLen(c, len, nflags);
    addReplyBulkCString(c, "redirect");
    addReplyLongLong(c, (c->flags & CLIENT_TRACKING)
                        ? (long long)c->tracking_redirect : -1);
    addReplyBulkCString(c, "prefixes");
    if (!c->tracking_prefixes) {
        addReplyArrayLen(c, 0);
        return;
    }
    addReplyArrayLen(c, (long)raxSize(c->tracking_prefixes));
    raxIterator ri;
    raxStart(&ri, c->tracking_prefixes);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) addReplyBulkCBuffer(c, ri.key, ri.key_len);
    raxStop(&ri);
}

/* ---- Remembering what clients read. ---- */

/* Adds c's id to the entries of the keys its command (the command it
 * runs now, or the script it runs) reads: unless OPTIN without CACHING
 * yes, or OPTOUT with CACHING no, said otherwise. The keys are found as
 * Redis's getKeysFromCommand finds them. */
static void _rememberKeys(client *c) {
    redisServer *s = c->srv;
    uint64_t optin = c->flags & CLIENT_TRACKING_OPTIN;
    uint64_t optout = c->flags & CLIENT_TRACKING_OPTOUT;
    uint64_t caching = c->flags & CLIENT_TRACKING_CACHING;
    if ((optin && !caching) || (optout && caching)) return;
    const commandMeta *m = commandMetaLookup(c->cmd->fullname);
    /* Shard channels are keys only to find their node: not tracked. */
    if (m && (commandInfoFlags(m) & CMDI_PUBSUB)) return;
    getKeysResult r;
    getKeysInit(&r);
    int n = getKeysFromCommandLegacy(s->mem, m, c->argv, c->argc, &r);
    unsigned char id[8];
    _idToLE(c->id, id);
    for (int j = 0; j < n; j++) {
        sds key = c->argv[r.keys[j].pos]->v.ptr;
        void *val;
        rax *ids;
        if (raxFind(s->tracking_table, (unsigned char *)key, sdslen(key),
                    &val)) {
            ids = val;
        } else {
            ids = raxNew(s->mem);
            raxInsert(s->tracking_table, (unsigned char *)key, sdslen(key),
                      ids, NULL);
        }
        if (raxTryInsert(ids, id, sizeof(id), NULL, NULL)) s->tracking_items++;
    }
    getKeysFree(s->mem, &r);
}

/* Called by call() once a command has run: a read-only command of a
 * tracking client (not in BCAST mode) has its keys remembered. A
 * read-only command of a script remembers the keys the script's caller
 * declared, so a script is tracked when it reads anything; EVAL_RO,
 * EVALSHA_RO and FCALL_RO themselves are not, for the same reason. */
void trackingCommandDone(client *c) {
    redisServer *s = c->srv;
    if (!s->tracking_clients) return;
    /* Read-only as COMMAND INFO says it, which is Redis's flag. */
    const commandMeta *m = commandMetaLookup(c->cmd->fullname);
    if (m ? !(commandInfoFlags(m) & CMDI_READONLY)
          : !(c->cmd->flags & CMD_READONLY))
        return;
    if (c->cmd->proc == evalRoCommand || c->cmd->proc == evalShaRoCommand ||
        c->cmd->proc == fcallroCommand)
        return;
    client *caller = c;
    if ((c->flags & CLIENT_SCRIPT) && s->script_run &&
        s->script_run->original_client)
        caller = s->script_run->original_client;
    if ((caller->flags & CLIENT_TRACKING) &&
        !(caller->flags & CLIENT_TRACKING_BCAST))
        _rememberKeys(caller);
}

/* ---- Sending messages. ---- */

/* Sends c the message about one key (proto 0: name/len are the key) or
 * about several, or a flush (proto 1: they are RESP already: an array of
 * keys, or a null). A message goes to c's redirection if it has one: a
 * RESP3 client gets a push, a RESP2 client subscribed to something a
 * Pub/Sub message; a RESP2 client told directly gets nothing, having no
 * way to take it. When the redirection has gone c is marked broken and,
 * in RESP3, told so. Messages get through CLIENT REPLY OFF. */
static void _sendTrackingMessage(client *c, const char *name, size_t len,
                                 int proto) {
    redisServer *s = c->srv;
    int redirected = 0;
    if (c->tracking_redirect) {
        client *to = lookupClientByID(s, c->tracking_redirect);
        if (!to) {
            c->flags |= CLIENT_TRACKING_BROKEN_REDIR;
            if (c->resp > 2) {
                uint64_t old = c->flags & CLIENT_PUSHING;
                c->flags |= CLIENT_PUSHING;
                addReplyPushLen(c, 2);
                addReplyBulkCBuffer(c, "tracking-redir-broken", 21);
                addReplyLongLong(c, (long long)c->tracking_redirect);
                if (!old) c->flags &= ~CLIENT_PUSHING;
            }
            return;
        }
        c = to;
        redirected = 1;
    }
    uint64_t old = c->flags & CLIENT_PUSHING;
    if (c->resp > 2) {
        c->flags |= CLIENT_PUSHING;
        addReplyPushLen(c, 2);
        addReplyBulkCBuffer(c, "invalidate", 10);
    } else if (redirected && (c->flags & CLIENT_PUBSUB)) {
        c->flags |= CLIENT_PUSHING;
        addReplyArrayLen(c, 3);
        addReplyBulkCBuffer(c, "message", 7);
        addReplyBulkCBuffer(c, TRACKING_CHANNEL, strlen(TRACKING_CHANNEL));
    } else {
        return;
    }
    if (proto) {
        addReplyProto(c, name, len);
    } else {
        addReplyArrayLen(c, 1);
        addReplyBulkCBuffer(c, name, len);
    }
    if (!old) c->flags &= ~CLIENT_PUSHING;
}

/* The null a flush message carries, in c's protocol. */
static const char *_nullOf(client *c) {
    return c->resp > 2 ? "_\r\n" : "$-1\r\n";
}

/* Queues key for the current client's message after its command. */
static void _pendingAdd(redisServer *s, robj *key) {
    if (s->tracking_pending_n == s->tracking_pending_cap) {
        s->tracking_pending_cap = s->tracking_pending_cap
                                  ? s->tracking_pending_cap * 2 : 4;
        s->tracking_pending = memRealloc(s->mem, s->tracking_pending,
            sizeof(robj *) * (size_t)s->tracking_pending_cap);
    }
    if (key) incrRefCount(key);
    s->tracking_pending[s->tracking_pending_n++] = key;
}

/* Sends the messages that waited for the current client's command to be
 * done (call() at its outermost level, a blocked client once served),
 * in the order they came. A client freed meanwhile is told nothing. */
void trackingHandlePendingKeyInvalidations(redisServer *s) {
    if (s->tracking_pending_n == 0 || s->execution_nesting > 0) return;
    client *c = s->current_client;
    for (int i = 0; i < s->tracking_pending_n; i++) {
        robj *key = s->tracking_pending[i];
        if (c && key) {
            sds k = key->v.ptr;
            _sendTrackingMessage(c, k, sdslen(k), 0);
        } else if (c) {
            _sendTrackingMessage(c, _nullOf(c), strlen(_nullOf(c)), 1);
        }
        if (key) decrRefCount(s, key);
    }
    s->tracking_pending_n = 0;
}

/* Notes key, changed by c (NULL: by the server), in every prefix it has,
 * for the broadcast at the end of the loop's iteration. */
static void _rememberKeyToBroadcast(redisServer *s, client *c, sds key) {
    size_t len = sdslen(key);
    raxIterator ri;
    raxStart(&ri, s->tracking_prefixes);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        if (ri.key_len > len) continue;
        if (ri.key_len && memcmp(ri.key, key, ri.key_len)) continue;
        trackingPrefix *tp = ri.data;
        raxInsert(tp->keys, (unsigned char *)key, len, c, NULL);
    }
    raxStop(&ri);
}

/* A key changed (signalModifiedKey), c being the client that changed it,
 * NULL for the server itself (an expiry, an eviction), or it left the
 * table to keep it within its limit (bcast 0: not a change, so BCAST
 * clients are not told). Every client whose id the key's entry holds,
 * still tracking and not in BCAST mode since, is told -- after its
 * command, if it is the one running; not at all if in NOLOOP mode it
 * made the change -- and the entry goes. */
void trackingInvalidateKey(redisServer *s, client *c, robj *keyobj,
                           int bcast) {
    if (!s->tracking_table) return;
    sds key = keyobj->v.ptr;
    if (bcast && raxSize(s->tracking_prefixes) > 0)
        _rememberKeyToBroadcast(s, c, key);
    void *val;
    if (!raxFind(s->tracking_table, (unsigned char *)key, sdslen(key), &val))
        return;
    rax *ids = val;
    raxIterator ri;
    raxStart(&ri, ids);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        client *target = lookupClientByID(s, _idFromLE(ri.key));
        if (!target || !(target->flags & CLIENT_TRACKING) ||
            (target->flags & CLIENT_TRACKING_BCAST))
            continue;
        if ((target->flags & CLIENT_TRACKING_NOLOOP) &&
            target == s->current_client)
            continue;
        if (target == s->current_client && s->execution_nesting > 0)
            _pendingAdd(s, keyobj);
        else
            _sendTrackingMessage(target, key, sdslen(key), 0);
    }
    raxStop(&ri);
    s->tracking_items -= raxSize(ids);
    raxFree(ids);
    raxRemove(s->tracking_table, (unsigned char *)key, sdslen(key), NULL);
}

static int _byId(const void *a, const void *b) {
    uint64_t x = (*(client *const *)a)->id, y = (*(client *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* FLUSHDB, FLUSHALL or another emptying of the data: every tracking
 * client is told to forget all (the current one after its command), and
 * the table is emptied. Keys are not per database, so even a FLUSHDB of
 * an empty database does this. */
void trackingInvalidateKeysOnFlush(redisServer *s) {
    if (s->tracking_clients) {
        client **all = memAlloc(s->mem, sizeof(client *) *
                                        (size_t)s->tracking_clients);
        int n = 0;
        for (int fd = 0; fd < s->clients_cap; fd++) {
            client *c = s->clients[fd];
            if (c && (c->flags & CLIENT_TRACKING) &&
                n < s->tracking_clients)
                all[n++] = c;
        }
        /* In the order they connected, as Redis's list of clients. */
        qsort(all, (size_t)n, sizeof(client *), _byId);
        for (int i = 0; i < n; i++) {
            client *c = all[i];
            if (c == s->current_client)
                _pendingAdd(s, NULL);
            else
                _sendTrackingMessage(c, _nullOf(c), strlen(_nullOf(c)), 1);
        }
        memFree(s->mem, all);
    }
    if (s->tracking_table) {
        raxFreeWithCallback(s->tracking_table, _freeRax, NULL);
        s->tracking_table = raxNew(s->mem);
        s->tracking_items = 0;
    }
}

/* tracking-table-max-keys: while the table holds more keys than that,
 * drops keys found by random walks, telling their clients as if the
 * keys had changed. Each run tries 100 keys more than the last one that
 * still left the table over the limit, so a table far over it (the limit
 * lowered with CONFIG SET) comes back within a few runs: called before
 * every command and by serverCron. */
void trackingLimitUsedSlots(redisServer *s) {
    if (!s->tracking_table || s->cfg.tracking_table_max_keys == 0) return;
    uint64_t max = (uint64_t)s->cfg.tracking_table_max_keys;
    if (raxSize(s->tracking_table) <= max) {
        s->tracking_limit_runs = 0;
        return;
    }
    int effort = 100 * (int)(s->tracking_limit_runs + 1);
    raxIterator ri;
    raxStart(&ri, s->tracking_table);
    while (effort-- > 0) {
        raxSeek(&ri, "^", NULL, 0);
        if (!raxRandomWalk(&ri, 0, s->denv.rng)) break;
        robj *key = createStringObject(s, (char *)ri.key, ri.key_len);
        trackingInvalidateKey(s, NULL, key, 0);
        decrRefCount(s, key);
        if (raxSize(s->tracking_table) <= max) {
            s->tracking_limit_runs = 0;
            raxStop(&ri);
            return;
        }
    }
    raxStop(&ri);
    s->tracking_limit_runs++;
}

/* The RESP array of the keys of a prefix's broadcast, leaving out those
 * c changed last (c NULL: all of them); NULL if none is left. */
static sds _broadcastReply(redisServer *s, client *c, rax *keys) {
    uint64_t count = 0;
    raxIterator ri;
    raxStart(&ri, keys);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri))
        if (!c || ri.data != c) count++;
    if (count == 0) {
        raxStop(&ri);
        return NULL;
    }
    sds proto = sdscatprintf(s->mem, sdsempty(s->mem), "*%llu\r\n",
                             (unsigned long long)count);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        if (c && ri.data == c) continue;
        proto = sdscatprintf(s->mem, proto, "$%zu\r\n", ri.key_len);
        proto = sdscatlen(s->mem, proto, ri.key, ri.key_len);
        proto = sdscatlen(s->mem, proto, "\r\n", 2);
    }
    raxStop(&ri);
    return proto;
}

/* beforeSleep: each prefix with changed keys tells its clients, one
 * message per prefix, and starts gathering again. */
void trackingBroadcastInvalidationMessages(redisServer *s) {
    if (!s->tracking_table || !s->tracking_clients) return;
    raxIterator ri;
    raxStart(&ri, s->tracking_prefixes);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        trackingPrefix *tp = ri.data;
        if (raxSize(tp->keys) == 0) continue;
        sds all = _broadcastReply(s, NULL, tp->keys);
        raxIterator ci;
        raxStart(&ci, tp->clients);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            client *c = ci.data;
            if (!(c->flags & CLIENT_TRACKING_NOLOOP)) {
                _sendTrackingMessage(c, all, sdslen(all), 1);
                continue;
            }
            sds mine = _broadcastReply(s, c, tp->keys);
            if (!mine) continue;
            _sendTrackingMessage(c, mine, sdslen(mine), 1);
            sdsfree(s->mem, mine);
        }
        raxStop(&ci);
        sdsfree(s->mem, all);
        raxFree(tp->keys);
        tp->keys = raxNew(s->mem);
    }
    raxStop(&ri);
}

/* ---- INFO and release. ---- */

uint64_t trackingGetTotalKeys(redisServer *s) {
    return s->tracking_table ? raxSize(s->tracking_table) : 0;
}

uint64_t trackingGetTotalPrefixes(redisServer *s) {
    return s->tracking_prefixes ? raxSize(s->tracking_prefixes) : 0;
}

/* Frees the tables and the pending messages (serverRelease). */
void trackingRelease(redisServer *s) {
    for (int i = 0; i < s->tracking_pending_n; i++)
        if (s->tracking_pending[i]) decrRefCount(s, s->tracking_pending[i]);
    memFree(s->mem, s->tracking_pending);
    s->tracking_pending = NULL;
    s->tracking_pending_n = s->tracking_pending_cap = 0;
    if (s->tracking_table) raxFreeWithCallback(s->tracking_table, _freeRax,
                                               NULL);
    if (s->tracking_prefixes)
        raxFreeWithCallback(s->tracking_prefixes, _freePrefix, s->mem);
    s->tracking_table = s->tracking_prefixes = NULL;
}
