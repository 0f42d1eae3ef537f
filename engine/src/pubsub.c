/* pubsub.c -- Pub/Sub as Redis 7.0 has it: channels, patterns and the
 * shard channels of a server that is not a cluster.
 *
 * Nothing is stored: PUBLISH hands the message to whoever listens at that
 * moment, by appending it to each subscriber's reply like any reply, and
 * forgets it. A subscriber that is slow to read therefore keeps the
 * message in its output buffer, which is why a subscribed client counts
 * in the pubsub class of client-output-buffer-limit (getClientType).
 *
 * The server maps each channel (and each pattern) to the clients that
 * subscribed, in the order they did; each client keeps its own channels
 * and patterns, so that a client leaving is cheap to undo. PUBLISH costs
 * the channel's subscribers plus one glob match per distinct pattern of
 * the whole server -- the O(N+M) of Redis's documentation.
 *
 * In RESP2 a subscribed connection only carries messages, so the server
 * refuses every command but the (un)subscriptions, PING, QUIT and RESET
 * (processCommand); in RESP3 messages are push replies (">") that cannot
 * be mistaken for replies, and any command may be sent. */
#include <string.h>
#include <strings.h>
#include "server.h"

/* The clients subscribed to one channel or pattern, in subscription
 * order: the order they receive a message in. */
typedef struct pubsubClients {
    client **v;
    int n, cap;
} pubsubClients;

static void _pubsubClientsDestructor(dict *d, void *val) {
    pubsubClients *pc = val;
    memFree(d->env->mem, pc->v);
    memFree(d->env->mem, pc);
}

static void _sdsKeyDestructor(dict *d, void *key) {
    sdsfree(d->env->mem, key);
}

/* channel or pattern (sds) -> pubsubClients */
static const dictType pubsubServerDictType = {
    dictSdsHash, dictSdsKeyCompare, _sdsKeyDestructor,
    _pubsubClientsDestructor, NULL };
/* a client's channels: sds -> nothing */
static const dictType pubsubClientDictType = {
    dictSdsHash, dictSdsKeyCompare, _sdsKeyDestructor, NULL, NULL };

/* The two kinds of channel: global ones (SUBSCRIBE, PUBLISH), which
 * patterns also reach, and shard ones (SSUBSCRIBE, SPUBLISH), which they
 * do not. */
typedef struct pubsubKind {
    int shard;
    const char *subscribe, *unsubscribe, *message;
} pubsubKind;

static const pubsubKind kindGlobal = { 0, "subscribe", "unsubscribe",
                                       "message" };
static const pubsubKind kindShard = { 1, "ssubscribe", "sunsubscribe",
                                      "smessage" };

void pubsubInit(redisServer *s) {
    s->pubsub_channels = dictCreate(&pubsubServerDictType, &s->denv);
    s->pubsub_patterns = dictCreate(&pubsubServerDictType, &s->denv);
    s->pubsubshard_channels = dictCreate(&pubsubServerDictType, &s->denv);
}

/* Frees the server's tables; the clients have been freed already. */
void pubsubRelease(redisServer *s) {
    dictRelease(s->pubsub_channels);
    dictRelease(s->pubsub_patterns);
    dictRelease(s->pubsubshard_channels);
}

static dict *_serverChannels(redisServer *s, const pubsubKind *k) {
    return k->shard ? s->pubsubshard_channels : s->pubsub_channels;
}

/* The client's channels of kind k; created on first use if create. */
static dict *_clientChannels(client *c, const pubsubKind *k, int create) {
    dict **d = k->shard ? &c->pubsubshard_channels : &c->pubsub_channels;
    if (!*d && create) *d = dictCreate(&pubsubClientDictType, &c->srv->denv);
    return *d;
}

/* ---- Counting. ---- */

/* Channels and patterns: the count SUBSCRIBE and PSUBSCRIBE reply. */
int clientSubscriptionsCount(client *c) {
    return (c->pubsub_channels ? (int)dictSize(c->pubsub_channels) : 0) +
           c->pubsub_npatterns;
}

/* Shard channels: the count SSUBSCRIBE replies. */
int clientShardSubscriptionsCount(client *c) {
    return c->pubsubshard_channels ? (int)dictSize(c->pubsubshard_channels)
                                   : 0;
}

static int _kindCount(client *c, const pubsubKind *k) {
    return k->shard ? clientShardSubscriptionsCount(c)
                    : clientSubscriptionsCount(c);
}

/* A client with no subscription left leaves the subscribed state. */
static void _updatePubsubFlag(client *c) {
    if (clientSubscriptionsCount(c) + clientShardSubscriptionsCount(c) == 0)
        c->flags &= ~(uint64_t)CLIENT_PUBSUB;
}

/* ---- The subscriber list of one channel or pattern. ---- */

static void _subscribersAdd(redisServer *s, dict *d, sds name, client *c) {
    dictEntry *de = dictFind(d, name);
    pubsubClients *pc;
    if (de) {
        pc = dictGetVal(de);
    } else {
        pc = memCalloc(s->mem, sizeof(*pc));
        dictAdd(d, sdsdup(s->mem, name), pc);
    }
    if (pc->n == pc->cap) {
        pc->cap = pc->cap ? pc->cap * 2 : 4;
        pc->v = memRealloc(s->mem, pc->v, sizeof(client *) * (size_t)pc->cap);
    }
    pc->v[pc->n++] = c;
}

/* Removes c, keeping the others' order; the entry goes with the last
 * subscriber, so that a million channels used once cost nothing after. */
static void _subscribersRemove(dict *d, sds name, client *c) {
    dictEntry *de = dictFind(d, name);
    if (!de) return;
    pubsubClients *pc = dictGetVal(de);
    for (int i = 0; i < pc->n; i++) {
        if (pc->v[i] != c) continue;
        memmove(pc->v + i, pc->v + i + 1,
                sizeof(client *) * (size_t)(pc->n - i - 1));
        pc->n--;
        break;
    }
    if (pc->n == 0) dictDelete(d, name);
}

/* ---- Replies. ----
 *
 * Every message and every (un)subscription confirmation is a three or
 * four element array in RESP2 and a push in RESP3. */

static void _addReplyPubsubHeader(client *c, long n) {
    if (c->resp == 2) addReplyArrayLen(c, n);
    else addReplyPushLen(c, n);
}

/* Brackets each message, so that CLIENT REPLY OFF does not silence it. */
static uint64_t _pushBegin(client *c) {
    uint64_t old = c->flags & CLIENT_PUSHING;
    c->flags |= CLIENT_PUSHING;
    return old;
}

static void _pushEnd(client *c, uint64_t old) {
    if (!old) c->flags &= ~CLIENT_PUSHING;
}

/* [kind, name, count]; a NULL name is the null of "unsubscribed from
 * nothing". */
static void _addReplyConfirm(client *c, const char *what, const char *name,
                             size_t len, int count) {
    uint64_t old = _pushBegin(c);
    _addReplyPubsubHeader(c, 3);
    addReplyBulkCString(c, what);
    if (name) addReplyBulkCBuffer(c, name, len);
    else addReplyNull(c);
    addReplyLongLong(c, count);
    _pushEnd(c, old);
}

/* ---- Channels. ---- */

/* Subscribes c to channel (once; a repeat only confirms again). Returns 1
 * if it was a new subscription. */
static int _subscribeChannel(client *c, robj *channel, const pubsubKind *k) {
    redisServer *s = c->srv;
    sds name = channel->v.ptr;
    dict *mine = _clientChannels(c, k, 1);
    int added = 0;
    if (!dictFind(mine, name)) {
        dictAdd(mine, sdsdup(s->mem, name), NULL);
        _subscribersAdd(s, _serverChannels(s, k), name, c);
        added = 1;
    }
    _addReplyConfirm(c, k->subscribe, name, sdslen(name), _kindCount(c, k));
    return added;
}

/* Unsubscribes c from the channel name; confirms it if notify. Returns 1
 * if c was subscribed. */
static int _unsubscribeChannel(client *c, sds name, int notify,
                               const pubsubKind *k) {
    redisServer *s = c->srv;
    dict *mine = _clientChannels(c, k, 0);
    /* The name may be the client's own copy, freed by the delete. */
    sds copy = sdsdup(s->mem, name);
    int removed = 0;
    if (mine && dictFind(mine, copy)) {
        dictDelete(mine, copy);
        _subscribersRemove(_serverChannels(s, k), copy, c);
        removed = 1;
    }
    if (notify)
        _addReplyConfirm(c, k->unsubscribe, copy, sdslen(copy),
                         _kindCount(c, k));
    sdsfree(s->mem, copy);
    return removed;
}

/* Unsubscribes c from every channel of kind k, in the order of its table.
 * With nothing to leave, notify still confirms once, with a null name.
 * Returns the number left. */
static int _unsubscribeAllChannels(client *c, int notify,
                                   const pubsubKind *k) {
    dict *mine = _clientChannels(c, k, 0);
    int count = 0;
    if (mine && dictSize(mine)) {
        dictIterator *di = dictGetSafeIterator(mine);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL)
            count += _unsubscribeChannel(c, dictGetKey(de), notify, k);
        dictReleaseIterator(di);
    }
    if (notify && count == 0)
        _addReplyConfirm(c, k->unsubscribe, NULL, 0, _kindCount(c, k));
    return count;
}

/* ---- Patterns. ---- */

static int _patternIndex(client *c, sds pattern) {
    for (int i = 0; i < c->pubsub_npatterns; i++)
        if (sdscmp(c->pubsub_patterns[i], pattern) == 0) return i;
    return -1;
}

static int _subscribePattern(client *c, robj *pattern) {
    redisServer *s = c->srv;
    sds name = pattern->v.ptr;
    int added = 0;
    if (_patternIndex(c, name) < 0) {
        if (c->pubsub_npatterns == c->pubsub_patterns_cap) {
            c->pubsub_patterns_cap = c->pubsub_patterns_cap
                                     ? c->pubsub_patterns_cap * 2 : 4;
            c->pubsub_patterns = memRealloc(s->mem, c->pubsub_patterns,
                sizeof(sds) * (size_t)c->pubsub_patterns_cap);
        }
        c->pubsub_patterns[c->pubsub_npatterns++] = sdsdup(s->mem, name);
        _subscribersAdd(s, s->pubsub_patterns, name, c);
        added = 1;
    }
    _addReplyConfirm(c, "psubscribe", name, sdslen(name),
                     clientSubscriptionsCount(c));
    return added;
}

static int _unsubscribePattern(client *c, sds name, int notify) {
    redisServer *s = c->srv;
    sds copy = sdsdup(s->mem, name);
    int i = _patternIndex(c, copy), removed = 0;
    if (i >= 0) {
        sdsfree(s->mem, c->pubsub_patterns[i]);
        memmove(c->pubsub_patterns + i, c->pubsub_patterns + i + 1,
                sizeof(sds) * (size_t)(c->pubsub_npatterns - i - 1));
        c->pubsub_npatterns--;
        _subscribersRemove(s->pubsub_patterns, copy, c);
        removed = 1;
    }
    if (notify)
        _addReplyConfirm(c, "punsubscribe", copy, sdslen(copy),
                         clientSubscriptionsCount(c));
    sdsfree(s->mem, copy);
    return removed;
}

/* Leaves every pattern, in the order they were subscribed. */
static int _unsubscribeAllPatterns(client *c, int notify) {
    int count = 0;
    while (c->pubsub_npatterns > 0)
        count += _unsubscribePattern(c, c->pubsub_patterns[0], notify);
    if (notify && count == 0)
        _addReplyConfirm(c, "punsubscribe", NULL, 0,
                         clientSubscriptionsCount(c));
    return count;
}

/* Leaves every channel, shard channel and pattern, confirming each (or
 * each kind's "nothing") if notify, and leaves the subscribed state.
 * RESET calls it with notify 0. */
void pubsubUnsubscribeAll(client *c, int notify) {
    _unsubscribeAllChannels(c, notify, &kindGlobal);
    _unsubscribeAllChannels(c, notify, &kindShard);
    _unsubscribeAllPatterns(c, notify);
    c->flags &= ~(uint64_t)CLIENT_PUBSUB;
}

/* A client being freed: its subscriptions go, nothing is replied. */
void pubsubClientRelease(client *c) {
    pubsubUnsubscribeAll(c, 0);
    if (c->pubsub_channels) dictRelease(c->pubsub_channels);
    if (c->pubsubshard_channels) dictRelease(c->pubsubshard_channels);
    memFree(c->srv->mem, c->pubsub_patterns);
    c->pubsub_channels = c->pubsubshard_channels = NULL;
    c->pubsub_patterns = NULL;
    c->pubsub_patterns_cap = 0;
}

/* ---- Publishing. ---- */

/* Writes one message to c: [kind, channel, message], or, when it came
 * through pattern pat, [pmessage, pat, channel, message]. */
static void _deliver(client *c, const char *kind, sds pat,
                     const char *channel, size_t len, robj *message) {
    uint64_t old = _pushBegin(c);
    _addReplyPubsubHeader(c, pat ? 4 : 3);
    addReplyBulkCString(c, pat ? "pmessage" : kind);
    if (pat) addReplyBulkCBuffer(c, pat, sdslen(pat));
    addReplyBulkCBuffer(c, channel, len);
    addReplyBulk(c, message);
    _pushEnd(c, old);
}

/* Sends message to the subscribers of channel (kind k), then, for global
 * channels, to the subscribers of every pattern that matches it. Returns
 * the number of messages sent: a client with a channel and two patterns
 * that match receives three. */
static int _publish(redisServer *s, robj *channel, robj *message,
                    const pubsubKind *k) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *name = objectStrBytes(channel, buf, &len);
    sds key = sdsnewlen(s->mem, name, len);
    int receivers = 0;
    pubsubClients *pc = dictFetchValue(_serverChannels(s, k), key);
    for (int i = 0; pc && i < pc->n; i++, receivers++)
        _deliver(pc->v[i], k->message, NULL, name, len, message);
    sdsfree(s->mem, key);
    if (k->shard || dictSize(s->pubsub_patterns) == 0) return receivers;
    /* Every distinct pattern is matched once, whoever subscribed to it. */
    dictIterator *di = dictGetIterator(s->pubsub_patterns);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds pat = dictGetKey(de);
        if (!stringmatchlen(pat, (int)sdslen(pat), name, (int)len, 0))
            continue;
        pc = dictGetVal(de);
        for (int i = 0; i < pc->n; i++, receivers++)
            _deliver(pc->v[i], NULL, pat, name, len, message);
    }
    dictReleaseIterator(di);
    return receivers;
}

/* Publishes message on a global channel (shard 0) or a shard channel.
 * Keyspace notifications come through here. Returns the receivers. */
int pubsubPublishMessage(redisServer *s, robj *channel, robj *message,
                         int shard) {
    return _publish(s, channel, message, shard ? &kindShard : &kindGlobal);
}

/* ---- The commands. ---- */

/* A client that must get one reply per command (the AOF loader, a
 * command queued by MULTI for SSUBSCRIBE) cannot enter the subscribed
 * state. Replies the error and returns 1 if so. */
static int _denySubscribe(client *c, const char *name, int multi_ok) {
    if (!(c->flags & CLIENT_DENY_BLOCKING)) return 0;
    if (multi_ok && (c->flags & CLIENT_MULTI)) return 0;
    addReplyErrorFormat(c, "%s isn't allowed for a DENY BLOCKING client",
                        name);
    return 1;
}

/* SUBSCRIBE channel [channel ...]: one confirmation per argument, each
 * with the client's count of channels and patterns. */
void subscribeCommand(client *c) {
    if (_denySubscribe(c, "SUBSCRIBE", 1)) return;
    for (int j = 1; j < c->argc; j++)
        _subscribeChannel(c, c->argv[j], &kindGlobal);
    c->flags |= CLIENT_PUBSUB;
}

/* UNSUBSCRIBE [channel ...]: one confirmation per argument (subscribed
 * or not), or, without arguments, per channel left. */
void unsubscribeCommand(client *c) {
    if (c->argc == 1) {
        _unsubscribeAllChannels(c, 1, &kindGlobal);
    } else {
        for (int j = 1; j < c->argc; j++)
            _unsubscribeChannel(c, c->argv[j]->v.ptr, 1, &kindGlobal);
    }
    _updatePubsubFlag(c);
}

/* PSUBSCRIBE pattern [pattern ...] */
void psubscribeCommand(client *c) {
    if (_denySubscribe(c, "PSUBSCRIBE", 1)) return;
    for (int j = 1; j < c->argc; j++) _subscribePattern(c, c->argv[j]);
    c->flags |= CLIENT_PUBSUB;
}

/* PUNSUBSCRIBE [pattern ...] */
void punsubscribeCommand(client *c) {
    if (c->argc == 1) {
        _unsubscribeAllPatterns(c, 1);
    } else {
        for (int j = 1; j < c->argc; j++)
            _unsubscribePattern(c, c->argv[j]->v.ptr, 1);
    }
    _updatePubsubFlag(c);
}

/* SSUBSCRIBE shardchannel [shardchannel ...]: as SUBSCRIBE, counting
 * shard channels only; refused inside MULTI too (7.0 has no exception
 * for it). */
void ssubscribeCommand(client *c) {
    if (_denySubscribe(c, "SSUBSCRIBE", 0)) return;
    for (int j = 1; j < c->argc; j++)
        _subscribeChannel(c, c->argv[j], &kindShard);
    c->flags |= CLIENT_PUBSUB;
}

/* SUNSUBSCRIBE [shardchannel ...] */
void sunsubscribeCommand(client *c) {
    if (c->argc == 1) {
        _unsubscribeAllChannels(c, 1, &kindShard);
    } else {
        for (int j = 1; j < c->argc; j++)
            _unsubscribeChannel(c, c->argv[j]->v.ptr, 1, &kindShard);
    }
    _updatePubsubFlag(c);
}

/* PUBLISH channel message: the number of clients that received it. A
 * server that is not a cluster sends it on to its replicas (not to the
 * AOF: it changes no data), so that their subscribers hear it too. */
void publishCommand(client *c) {
    int n = pubsubPublishMessage(c->srv, c->argv[1], c->argv[2], 0);
    forceCommandReplication(c);
    addReplyLongLong(c, n);
}

/* SPUBLISH shardchannel message: as PUBLISH, on the shard channels. */
void spublishCommand(client *c) {
    int n = pubsubPublishMessage(c->srv, c->argv[1], c->argv[2], 1);
    forceCommandReplication(c);
    addReplyLongLong(c, n);
}

/* The channels of d matching pattern (every channel if NULL), in table
 * order. */
static void _channelList(client *c, dict *d, sds pattern) {
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds ch = dictGetKey(de);
        if (pattern && !stringmatchlen(pattern, (int)sdslen(pattern), ch,
                                       (int)sdslen(ch), 0)) continue;
        addReplyBulkCBuffer(c, ch, sdslen(ch));
        n++;
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, n);
}

/* name, count, name, count ... for the channels asked (patterns not
 * counted). */
static void _numsub(client *c, dict *d) {
    addReplyArrayLen(c, (long)(c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        pubsubClients *pc = dictFetchValue(d, c->argv[j]->v.ptr);
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, pc ? pc->n : 0);
    }
}

/* PUBSUB CHANNELS [pattern]; a third argument is a syntax error, as in
 * 7.0 (the subcommand's arity lets it through). */
void pubsubChannelsCommand(client *c) {
    if (c->argc > 3) { addReplySubcommandSyntaxError(c); return; }
    _channelList(c, c->srv->pubsub_channels,
                 c->argc == 3 ? c->argv[2]->v.ptr : NULL);
}

/* PUBSUB SHARDCHANNELS [pattern] */
void pubsubShardChannelsCommand(client *c) {
    if (c->argc > 3) { addReplySubcommandSyntaxError(c); return; }
    _channelList(c, c->srv->pubsubshard_channels,
                 c->argc == 3 ? c->argv[2]->v.ptr : NULL);
}

/* PUBSUB NUMSUB [channel ...] */
void pubsubNumsubCommand(client *c) { _numsub(c, c->srv->pubsub_channels); }

/* PUBSUB SHARDNUMSUB [shardchannel ...] */
void pubsubShardNumsubCommand(client *c) {
    _numsub(c, c->srv->pubsubshard_channels);
}

/* PUBSUB NUMPAT: distinct patterns, however many clients use each. */
void pubsubNumpatCommand(client *c) {
    addReplyLongLong(c, (long long)dictSize(c->srv->pubsub_patterns));
}

void pubsubHelpCommand(client *c) {
    static const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> "
        "(default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, "
        "excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a "
        "<pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level "
        "channel(s)",
        NULL };
    addReplyHelp(c, help);
}
