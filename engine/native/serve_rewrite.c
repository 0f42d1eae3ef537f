/* serve_rewrite.c -- CONFIG REWRITE for `glasskv server` started with a
 * configuration file: the file is read, rewritten by the engine's rules
 * (config_rewrite.c) with the engine's parameters and the host's own
 * (port, bind, dir ...), and replaced atomically, as redis-server
 * replaces it: the new text goes to "<file>.XXXXXX" in the same
 * directory, which is fsynced, given mode 0644 (less the umask) and
 * renamed over the file, and the directory is fsynced. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "serve.h"

/* The host's directives that CONFIG REWRITE writes. */
static const char *const hostRewritten[] = { "port", "bind", "dir",
    "logfile", "pidfile", "tcp-backlog", "tcp-keepalive", "daemonize",
    NULL };

/* Directives read but written back as they were: the host's ignored
 * options, and those Redis keeps without rewriting them. */
static const char *const hostKept[] = { "protected-mode",
    "always-show-logo", "set-proc-title", "enable-protected-configs",
    "include", "rename-command", "user",
    "loadmodule", "sentinel", NULL };

static int _inList(const char *const *list, const char *name) {
    for (int i = 0; list[i]; i++)
        if (!strcasecmp(list[i], name)) return 1;
    return 0;
}

/* rewriteKnownFn: the engine's directives, then the host's. */
static int _known(void *ctx, const char *name, const char **canon) {
    if (configKnownDirective(name, canon)) return 1;
    *canon = NULL;
    return _inList(hostRewritten, name) || _inList(hostKept, name);
}

static void _numeric(gkMem *m, rewriteState *st, const char *name,
                     long long v, long long dflt) {
    rewriteLine(st, name, sdscatprintf(m, sdsempty(m), "%s %lld", name, v),
                v != dflt);
}

/* A string option: quoted; NULL means absent from the file. */
static void _string(gkMem *m, rewriteState *st, const char *name,
                    const char *v, const char *dflt) {
    if (!v) {
        rewriteMarkProcessed(st, name);
        return;
    }
    sds line = sdscatprintf(m, sdsempty(m), "%s ", name);
    line = sdscatrepr(m, line, v, strlen(v));
    rewriteLine(st, name, line, !dflt || strcmp(v, dflt) != 0);
}

/* bind: not written when it is Redis's default, "* -::*". */
static void _bind(serveHost *h, rewriteState *st) {
    gkMem *m = &h->mem;
    if (h->nbind == 2 && !strcmp(h->bind[0], "*") &&
        !strcmp(h->bind[1], "-::*")) {
        rewriteMarkProcessed(st, "bind");
        return;
    }
    sds line = sdsnew(m, "bind");
    for (int i = 0; i < h->nbind; i++)
        line = sdscatprintf(m, line, " %s", h->bind[i]);
    rewriteLine(st, "bind", line, 1);
}

/* The host's options into st, with redis-server's defaults. */
static void _hostOptions(serveHost *h, rewriteState *st) {
    gkMem *m = &h->mem;
    char cwd[4096];
    _numeric(m, st, "port", h->port, 6379);
    _bind(h, st);
    if (getcwd(cwd, sizeof(cwd))) _string(m, st, "dir", cwd, NULL);
    else rewriteMarkProcessed(st, "dir");
    _string(m, st, "logfile", h->logfile ? h->logfile : "", "");
    _string(m, st, "pidfile", h->pidfile, NULL);
    _numeric(m, st, "tcp-backlog", h->tcp_backlog, 511);
    _numeric(m, st, "tcp-keepalive", h->tcp_keepalive, 300);
    rewriteLine(st, "daemonize", sdsnew(m, "daemonize no"), 0);
}

/* Reads path into *out ("" if it does not exist). 0, or -1 with errno. */
static int _readFile(gkMem *m, const char *path, sds *out) {
    *out = sdsempty(m);
    FILE *f = fopen(path, "r");
    if (!f) return errno == ENOENT ? 0 : -1;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        *out = sdscatlen(m, *out, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) errno = EIO;
    return bad ? -1 : 0;
}

/* fsync of the directory holding path, so the rename is durable. */
static int _fsyncDir(const char *path) {
    char *copy = strdup(path);
    if (!copy) return -1;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0) return -1;
    int r = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return r;
}

/* Replaces path with content atomically. 0, or -1 with errno set and the
 * temporary file removed. */
static int _overwrite(serveHost *h, const char *path, sds content) {
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp) return -1;
    snprintf(tmp, n, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC), r = -1;
    if (fd < 0) {
        serverLog(h->s, LL_WARNING, "Could not create tmp config file (%s)",
                  strerror(errno));
        free(tmp);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    size_t off = 0;
    while (off < sdslen(content)) {
        ssize_t w = write(fd, content + off, sdslen(content) - off);
        if (w <= 0 && errno == EINTR) continue;
        if (w <= 0) goto done;
        off += (size_t)w;
    }
    if (fsync(fd) == 0 && fchmod(fd, 0644 & ~mask) == 0 &&
        rename(tmp, path) == 0 && _fsyncDir(path) == 0) r = 0;
done:;
    int saved = errno;
    close(fd);
    if (r) unlink(tmp);
    free(tmp);
    errno = saved;
    return r;
}

/* server.config_rewrite: rewrites h->configfile. C_OK, or C_ERR with
 * *err the reason (strerror's). */
int serveConfigRewrite(void *ctx, redisServer *s, int force_all, sds *err) {
    serveHost *h = ctx;
    sds old;
    if (_readFile(&h->mem, h->configfile, &old) != 0) {
        *err = sdsnew(s->mem, strerror(errno));
        sdsfree(&h->mem, old);
        return C_ERR;
    }
    rewriteState *st = rewriteStateCreate(&h->mem, old, sdslen(old),
                                          force_all, _known, h);
    sdsfree(&h->mem, old);
    configRewriteEngineOptions(s, st);
    _hostOptions(h, st);
    sds text = rewriteStateFinish(st);
    int r = _overwrite(h, h->configfile, text);
    sdsfree(&h->mem, text);
    if (r != 0) {
        *err = sdsnew(s->mem, strerror(errno));
        return C_ERR;
    }
    return C_OK;
}
