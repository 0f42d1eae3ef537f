/* slowlog.c -- the slow log and the SLOWLOG command, as Redis 7.0 has
 * them. After every command call() hands its duration here (the virtual
 * CPU time the command cost, the figure INFO commandstats adds up, which
 * DEBUG SLEEP raises by the time it sleeps). A command that took at
 * least slowlog-log-slower-than microseconds (never if negative) goes at
 * the head of the log, and the log is cut to slowlog-max-len from the
 * tail. An entry keeps a trimmed copy of the arguments: at most 32, the
 * last of them then saying how many more there were, each at most 128
 * bytes followed by how many more there were. Rewritten commands (GEOADD
 * run as ZADD, SPOP as DEL ...) are logged as the client sent them; EXEC
 * is not logged, the commands it runs are. */
#include <string.h>
#include <strings.h>
#include "server.h"

/* The argument j of argv as it is kept: its first 128 bytes and a note
 * of the rest, or a copy. */
static robj *_slowlogArg(redisServer *s, robj *arg) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(arg, buf, &len);
    if (len <= SLOWLOG_ENTRY_MAX_STRING)
        return createRawStringObject(s, p, len);
    sds t = sdsnewlen(s->mem, p, SLOWLOG_ENTRY_MAX_STRING);
    t = sdscatprintf(s->mem, t, "... (%lu more bytes)",
                     (unsigned long)(len - SLOWLOG_ENTRY_MAX_STRING));
    return createObject(s, OBJ_STRING, t);
}

/* A new entry for client c's command argv (argc arguments) that took
 * duration microseconds. The arguments are copied, never shared with the
 * client or the dataset. */
static slowlogEntry *slowlogCreateEntry(client *c, robj **argv, int argc,
                                        long long duration) {
    redisServer *s = c->srv;
    slowlogEntry *se = memCalloc(s->mem, sizeof(*se));
    int kept = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    se->argc = kept;
    se->argv = memAllocAs(s->mem, sizeof(robj *) * (size_t)kept,
                          MEM64_PTR * (size_t)kept);
    for (int j = 0; j < kept; j++) {
        if (kept != argc && j == kept - 1) {
            sds t = sdscatprintf(s->mem, sdsempty(s->mem),
                                 "... (%d more arguments)", argc - kept + 1);
            se->argv[j] = createObject(s, OBJ_STRING, t);
        } else {
            se->argv[j] = _slowlogArg(s, argv[j]);
        }
    }
    se->time = (s->unix_ms_at_zero * 1000 +
                (long long)(serverNow(s) / 1000)) / 1000000;
    se->duration = duration;
    se->id = s->slowlog.next_id++;
    se->peerid = sdsnew(s->mem, getClientPeerId(c));
    se->cname = sdsnew(s->mem, c->name ? c->name : "");
    return se;
}

static void slowlogFreeEntry(redisServer *s, slowlogEntry *se) {
    for (int j = 0; j < se->argc; j++) decrRefCount(s, se->argv[j]);
    memFree(s->mem, se->argv);
    sdsfree(s->mem, se->peerid);
    sdsfree(s->mem, se->cname);
    memFree(s->mem, se);
}

/* Drops the oldest entry. */
static void _slowlogDropOldest(redisServer *s) {
    slowlogEntry *se = s->slowlog.oldest;
    s->slowlog.oldest = se->newer;
    if (se->newer) se->newer->older = NULL;
    else s->slowlog.newest = NULL;
    s->slowlog.len--;
    slowlogFreeEntry(s, se);
}

/* Logs client c's command argv if it took at least the threshold, then
 * cuts the log to slowlog-max-len (a lowered limit takes effect here, at
 * the next command, as in Redis). */
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc,
                              long long duration) {
    redisServer *s = c->srv;
    if (s->cfg.slowlog_log_slower_than < 0) return;
    if (duration >= s->cfg.slowlog_log_slower_than) {
        slowlogEntry *se = slowlogCreateEntry(c, argv, argc, duration);
        se->older = s->slowlog.newest;
        if (se->older) se->older->newer = se;
        else s->slowlog.oldest = se;
        s->slowlog.newest = se;
        s->slowlog.len++;
    }
    while (s->slowlog.len > (unsigned long)s->cfg.slowlog_max_len)
        _slowlogDropOldest(s);
}

/* Logs client c's command cmd, which took duration microseconds, unless
 * cmd is one the slow log leaves out (EXEC): with the arguments as the
 * client sent them if the command rewrote them. */
void slowlogPushCurrentCommand(client *c, const redisCommand *cmd,
                               long long duration) {
    if (cmd->flags & CMD_SKIP_SLOWLOG) return;
    if (c->original_argv)
        slowlogPushEntryIfNeeded(c, c->original_argv, c->original_argc,
                                 duration);
    else
        slowlogPushEntryIfNeeded(c, c->argv, c->argc, duration);
}

/* Empties the log; ids go on from where they were. */
void slowlogReset(redisServer *s) {
    while (s->slowlog.len) _slowlogDropOldest(s);
}

/* SLOWLOG GET [count]: the newest count entries (10 by default, -1 for
 * all), each [id, unix time, microseconds, arguments, "ip:port", name]. */
void slowlogGetCommand(client *c) {
    redisServer *s = c->srv;
    long long count = 10;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -1, LONG_MAX,
                &count, "count should be greater than or equal to -1")
            != C_OK)
            return;
        if (count == -1) count = (long long)s->slowlog.len;
    }
    long long sent = 0;
    addReplyArrayLen(c, count < (long long)s->slowlog.len ?
                        count : (long long)s->slowlog.len);
    for (slowlogEntry *se = s->slowlog.newest; se && sent < count;
         se = se->older, sent++) {
        addReplyArrayLen(c, 6);
        addReplyLongLong(c, se->id);
        addReplyLongLong(c, se->time);
        addReplyLongLong(c, se->duration);
        addReplyArrayLen(c, se->argc);
        for (int j = 0; j < se->argc; j++) addReplyBulk(c, se->argv[j]);
        addReplyBulkCBuffer(c, se->peerid, sdslen(se->peerid));
        addReplyBulkCBuffer(c, se->cname, sdslen(se->cname));
    }
}

/* SLOWLOG LEN. */
void slowlogLenCommand(client *c) {
    addReplyLongLong(c, (long long)c->srv->slowlog.len);
}

/* SLOWLOG RESET. */
void slowlogResetCommand(client *c) {
    slowlogReset(c->srv);
    addReplyOK(c);
}

/* SLOWLOG HELP. */
void slowlogHelpCommand(client *c) {
    static const char *help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 "
        "mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP "
        "and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL
    };
    addReplyHelp(c, help);
}
