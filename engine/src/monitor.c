/* monitor.c -- MONITOR: every command the server runs, as a line of text
 * sent to the clients that asked, in Redis 7.0's format:
 *
 *     +1700000000.123456 [0 127.0.0.1:50412] "set" "foo" "bar"
 *
 * the time the command ended (unix seconds and microseconds, on the
 * process's clock: virtual time in the simulated world), the db and the
 * client's address ("lua" for a script's calls, "unix:<path>" for a unix
 * socket), then each argument quoted as sdscatrepr quotes it. The line
 * shows the command as the client sent it, not as it was rewritten for
 * the AOF (SET ... EX 10 stays so, not PXAT), and with passwords
 * replaced by "(redacted)": a command that rewrites or redacts its argv
 * first keeps the original (networking.c), which the slow log shows too.
 *
 * Administrative commands (CLIENT LIST, CONFIG SET, DEBUG ...) are never
 * shown, as in Redis, nor commands that were refused before running. */
#include <string.h>
#include <stdio.h>
#include "server.h"

/* ---- MONITOR ---- */

/* MONITOR: from now on this connection receives the monitor lines and
 * nothing else it asks is answered with data (it is a replica-like
 * client in Redis: keyspace commands are refused). Inside EXEC it is
 * refused, as any client that must get one reply per command. A second
 * MONITOR is ignored, without a reply. */
void monitorCommand(client *c) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyError(c, "MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    if (c->flags & (CLIENT_SLAVE | CLIENT_MONITOR)) return;
    if (s->nmonitors == s->monitors_cap) {
        s->monitors_cap = s->monitors_cap ? s->monitors_cap * 2 : 4;
        s->monitors = memRealloc(s->mem, s->monitors,
                                 sizeof(client *) * (size_t)s->monitors_cap);
    }
    s->monitors[s->nmonitors++] = c;
    c->flags |= CLIENT_MONITOR;
    addReplyOK(c);
}

/* A MONITOR client closes, or leaves monitor mode (RESET). */
void monitorClientGone(client *c) {
    redisServer *s = c->srv;
    for (int j = 0; j < s->nmonitors; j++) {
        if (s->monitors[j] != c) continue;
        memmove(&s->monitors[j], &s->monitors[j + 1],
                sizeof(client *) * (size_t)(s->nmonitors - j - 1));
        s->nmonitors--;
        break;
    }
    c->flags &= ~(uint64_t)CLIENT_MONITOR;
}

/* The source of a monitor line: the db and who sent the command -- a
 * script's calls are "lua"; a script command itself (EVAL, FCALL: flagged
 * CMD_SKIP_MONITOR) feeds its own line before it runs, so that its calls
 * come after it, as in Redis. */
static sds _catSource(redisServer *s, client *c, int dictid, sds o) {
    if (c->flags & CLIENT_SCRIPT)
        return sdscatprintf(s->mem, o, "[%d lua] ", dictid);
    if (c->flags & CLIENT_UNIX_SOCKET) {
        /* The peer of a unix socket is "<path>:0"; the line names the
         * path. */
        const char *id = getClientPeerId(c);
        int len = (int)strlen(id);
        if (len >= 2 && !strcmp(id + len - 2, ":0")) len -= 2;
        return sdscatprintf(s->mem, o, "[%d unix:%.*s] ", dictid, len, id);
    }
    return sdscatprintf(s->mem, o, "[%d %s] ", dictid, getClientPeerId(c));
}

/* Sends the monitor line of argv, run by c in db dictid, to every
 * MONITOR client. Nothing while the AOF is loaded. */
void replicationFeedMonitors(client *c, int dictid, robj **argv, int argc) {
    redisServer *s = c->srv;
    if (s->nmonitors == 0 || s->loading) return;
    long long us = s->unix_ms_at_zero * 1000 +
                   (long long)(serverNow(s) / 1000);
    sds line = sdscatprintf(s->mem, sdsnew(s->mem, "+"), "%lld.%06lld ",
                            us / 1000000, us % 1000000);
    line = _catSource(s, c, dictid, line);
    for (int j = 0; j < argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(argv[j], buf, &len);
        if (j) line = sdscatlen(s->mem, line, " ", 1);
        line = sdscatrepr(s->mem, line, p, len);
    }
    line = sdscatlen(s->mem, line, "\r\n", 2);
    for (int j = 0; j < s->nmonitors; j++)
        addReplyProto(s->monitors[j], line, sdslen(line));
    sdsfree(s->mem, line);
}

/* call()'s share, once the command ran: its line, with the original
 * argv, unless the command is administrative or hidden from monitors. */
void monitorFeedCall(client *c) {
    if (c->cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN)) return;
    robj **argv = c->original_argv ? c->original_argv : c->argv;
    int argc = c->original_argv ? c->original_argc : c->argc;
    replicationFeedMonitors(c, c->db->id, argv, argc);
}
