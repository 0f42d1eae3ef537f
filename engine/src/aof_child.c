/* aof_child.c -- BGREWRITEAOF: the parent's side of the rewrite (see
 * aof_rewrite.c for the overview, child.c for the child's life). Before
 * the fork the parent starts a new incr file; the child writes the new
 * base as temp-rewriteaof-<pid>.aof and renames it to
 * temp-rewriteaof-bg-<pid>.aof; when the parent reaps it, it renames
 * that to the new base and switches the manifest. */
#include <string.h>
#include <stdio.h>
#include "server.h"

static long long _unixtime(redisServer *s) { return s->mstime / 1000; }

/* The child's temp file name: temp-rewriteaof[-bg]-<pid>.aof. */
static void _tmpName(char *buf, size_t cap, int pid, int bg) {
    snprintf(buf, cap, bg ? "temp-rewriteaof-bg-%d.aof"
                          : "temp-rewriteaof-%d.aof", pid);
}

/* ---- The parent. ---- */

/* openNewIncrAofForAppend: from now on the parent appends to a new incr
 * file (a temp one while waiting for the first rewrite); the old one is
 * fsynced and closed by a bio thread. */
static int _openNewIncr(redisServer *s) {
    aofState *a = &s->aof;
    aofManifest *temp_am = NULL;
    sds name;
    if (a->state == AOF_OFF) return C_OK;
    if (a->state == AOF_WAIT_REWRITE) {
        name = sdscatprintf(s->mem, sdsempty(s->mem), "temp-%s.incr",
                            s->cfg.appendfilename);
    } else {
        temp_am = aofManifestDup(s, a->manifest);
        name = aofNewIncrName(s, temp_am);
    }
    sds path = aofPath(s, name);
    int fd = s->fs.open(s->fs.ctx, path, FS_O_WRONLY | FS_O_TRUNC |
                                         FS_O_CREAT);
    sdsfree(s->mem, path);
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Can't open the append-only file %s: %s",
                  name, aofStrerror(-fd));
    } else if (!temp_am || persistAofManifest(s, temp_am) == C_OK) {
        serverLog(s, LL_NOTICE, "Creating AOF incr file %s on background "
                  "rewrite", name);
        sdsfree(s->mem, name);
        if (a->fd != -1) {
            bioCreateCloseJob(&s->bio, a->fd, 1, serverNow(s));
            a->fsync_offset = a->current_size;
            a->last_fsync = _unixtime(s);
        }
        a->fd = fd;
        a->last_incr_size = 0;
        if (temp_am) {
            aofManifestRelease(s, a->manifest);
            a->manifest = temp_am;
        }
        return C_OK;
    }
    if (fd >= 0) s->fs.close(s->fs.ctx, fd);
    aofManifestRelease(s, temp_am);
    sdsfree(s->mem, name);
    return C_ERR;
}

/* rewriteAppendOnlyFileBackground. C_ERR (and a log line) if it could
 * not start. */
int rewriteAppendOnlyFileBackground(redisServer *s) {
    aofState *a = &s->aof;
    if (hasActiveChildProcess(s)) return C_ERR;
    int r = s->fs.mkdir(s->fs.ctx, s->cfg.appenddirname);
    if (r < 0 && r != -FS_EEXIST) {
        serverLog(s, LL_WARNING, "Can't open or create append-only dir %s: "
                  "%s", s->cfg.appenddirname, aofStrerror(-r));
        a->lastbgrewrite_status = C_ERR;
        return C_ERR;
    }
    if (a->manifest && aofSeqExhausted(a->manifest)) {
        serverLog(s, LL_WARNING, "Can't rewrite the AOF: the sequence "
                  "numbers of the manifest are exhausted");
        a->lastbgrewrite_status = C_ERR;
        return C_ERR;
    }
    a->selected_db = -1;
    flushAppendOnlyFile(s, 1);
    if (_openNewIncr(s) != C_OK) {
        a->lastbgrewrite_status = C_ERR;
        return C_ERR;
    }
    a->stat_rewrites++;
    int pid = redisFork(s, CHILD_TYPE_AOF, aofRewriteToSds);
    if (pid < 0) {
        a->lastbgrewrite_status = C_ERR;
        serverLog(s, LL_WARNING, "Can't rewrite append only file in "
                  "background: fork: %s", aofStrerror(-pid));
        return C_ERR;
    }
    _tmpName(s->child.tmp, sizeof(s->child.tmp), pid, 0);
    _tmpName(s->child.dst, sizeof(s->child.dst), pid, 1);
    TRACE(s->denv.trace, GK_TR_REWRITE, (uint16_t)s->node, GK_RW_START, 0,
          (uint32_t)s->child.keys, sdslen(s->child.data));
    serverLog(s, LL_NOTICE, "Background append only file rewriting started by "
              "pid %ld", (long)pid);
    a->rewrite_scheduled = 0;
    a->rewrite_time_start = _unixtime(s);
    return C_OK;
}

/* aofRemoveTempFile. */
static void _removeTempFiles(redisServer *s, int pid) {
    char tmp[64];
    _tmpName(tmp, sizeof(tmp), pid, 1);
    aofBackgroundUnlink(s, tmp);
    _tmpName(tmp, sizeof(tmp), pid, 0);
    aofBackgroundUnlink(s, tmp);
}

/* killAppendOnlyChild (appendonly switched off or on again): the parent
 * waits for the killed child, so it is gone at once. */
void aofKillChild(redisServer *s) {
    serverChild *ch = &s->child;
    if (ch->type != CHILD_TYPE_AOF) return;
    if (s->log && s->fs.alive && s->fs.alive(s->fs.ctx, FS_POINT_CALL)) {
        serverLog(s, LL_NOTICE, "Killing running AOF rewrite child: %ld",
                  (long)ch->pid);
        childKill(s, GK_SIGUSR1);
        _removeTempFiles(s, ch->pid);
        s->aof.rewrite_time_start = -1;
    }
    childRelease(s);
}

/* Renames the child's file to the new base (and, when appendonly was
 * just turned on, the temp incr file to the first incr file), then
 * persists the manifest. C_ERR after logging, the manifest unchanged. */
static int _switchFiles(redisServer *s, aofManifest *am, const char *tmp,
                        sds base) {
    sds bpath = aofPath(s, base);
    uint64_t cpu0 = s->denv.cpu_ns;
    int r = s->fs.rename(s->fs.ctx, tmp, bpath);
    if (r < 0) {
        serverLog(s, LL_WARNING, "Error trying to rename the temporary AOF "
                  "base file %s into %s: %s", tmp, bpath, aofStrerror(-r));
        sdsfree(s->mem, bpath);
        return C_ERR;
    }
    latencyAddSampleIfNeeded(s, "aof-rename", latencyMsSince(s, cpu0));
    serverLog(s, LL_NOTICE, "Successfully renamed the temporary AOF base file "
              "%s into %s", tmp, base);
    if (s->aof.state == AOF_WAIT_REWRITE) {
        char tname[300];
        snprintf(tname, sizeof(tname), "temp-%s.incr", s->cfg.appendfilename);
        sds tpath = aofPath(s, tname), incr = aofNewIncrName(s, am);
        sds ipath = aofPath(s, incr);
        cpu0 = s->denv.cpu_ns;
        r = s->fs.rename(s->fs.ctx, tpath, ipath);
        if (r < 0) {
            serverLog(s, LL_WARNING, "Error trying to rename the temporary "
                      "AOF incr file %s into %s: %s", tpath, ipath,
                      aofStrerror(-r));
        } else {
            latencyAddSampleIfNeeded(s, "aof-rename",
                                     latencyMsSince(s, cpu0));
            serverLog(s, LL_NOTICE, "Successfully renamed the temporary AOF "
                      "incr file %s into %s", tname, incr);
        }
        sdsfree(s->mem, tpath);
        sdsfree(s->mem, incr);
        sdsfree(s->mem, ipath);
        if (r < 0) {
            aofBackgroundUnlink(s, bpath);
            sdsfree(s->mem, bpath);
            return C_ERR;
        }
    }
    aofMarkIncrAsHistory(s, am);
    if (persistAofManifest(s, am) != C_OK) {
        aofBackgroundUnlink(s, bpath);
        sdsfree(s->mem, bpath);
        return C_ERR;
    }
    sdsfree(s->mem, bpath);
    return C_OK;
}

/* The child succeeded: switch to its base. */
static void _rewriteDone(redisServer *s) {
    aofState *a = &s->aof;
    char tmp[64];
    serverLog(s, LL_NOTICE, "Background AOF rewrite terminated with success");
    _tmpName(tmp, sizeof(tmp), s->child.pid, 1);
    aofManifest *am = aofManifestDup(s, a->manifest);
    sds base = aofNewBaseName(s, am);
    if (_switchFiles(s, am, tmp, base) != C_OK) {
        aofManifestRelease(s, am);
        sdsfree(s->mem, base);
        a->lastbgrewrite_status = C_ERR;
        a->rewrites_consecutive_failures++;
        return;
    }
    aofManifestRelease(s, a->manifest);
    a->manifest = am;
    if (a->fd != -1) {
        sds bpath = aofPath(s, base);
        a->selected_db = -1;
        uint64_t cpu0 = s->denv.cpu_ns;
        a->current_size = s->fs.size(s->fs.ctx, bpath) + a->last_incr_size;
        latencyAddSampleIfNeeded(s, "aof-fstat", latencyMsSince(s, cpu0));
        a->rewrite_base_size = a->current_size;
        a->fsync_offset = a->current_size;
        a->last_fsync = _unixtime(s);
        sdsfree(s->mem, bpath);
    }
    sdsfree(s->mem, base);
    aofDelHistoryFiles(s);
    a->lastbgrewrite_status = C_OK;
    a->rewrites_consecutive_failures = 0;
    serverLog(s, LL_NOTICE, "Background AOF rewrite finished successfully");
    if (a->state == AOF_WAIT_REWRITE) a->state = AOF_ON;
    TRACE(s->denv.trace, GK_TR_REWRITE, (uint16_t)s->node, GK_RW_DONE, 0,
          (uint32_t)s->child.keys, (uint64_t)a->current_size);
}

/* backgroundRewriteDoneHandler, in checkChildrenDone: the rewrite child
 * exited with exitcode, or was killed by bysignal. */
void backgroundRewriteDoneHandler(redisServer *s, int exitcode,
                                  int bysignal) {
    aofState *a = &s->aof;
    int pid = s->child.pid;
    if (!bysignal && exitcode == 0) {
        _rewriteDone(s);
    } else {
        a->lastbgrewrite_status = C_ERR;
        a->rewrites_consecutive_failures++;
        serverLog(s, LL_WARNING, "Background AOF rewrite terminated with "
                  "error");
    }
    _removeTempFiles(s, pid);
    if (a->state == AOF_WAIT_REWRITE) {
        char tname[300];
        sdsclear(a->buf);
        snprintf(tname, sizeof(tname), "temp-%s.incr", s->cfg.appendfilename);
        serverLog(s, LL_NOTICE, "Removing the temp incr aof file %s in the "
                  "background", tname);
        sds tpath = aofPath(s, tname);
        aofBackgroundUnlink(s, tpath);
        sdsfree(s->mem, tpath);
    }
    a->rewrite_time_last = _unixtime(s) - a->rewrite_time_start;
    a->rewrite_time_start = -1;
    if (a->state == AOF_WAIT_REWRITE) a->rewrite_scheduled = 1;
}

/* BGREWRITEAOF */
void bgrewriteaofCommand(client *c) {
    redisServer *s = c->srv;
    if (s->child.type == CHILD_TYPE_AOF) {
        addReplyError(c, "Background append only file rewriting already in "
                      "progress");
    } else if (hasActiveChildProcess(s) || s->in_exec) {
        s->aof.rewrite_scheduled = 1;
        s->aof.rewrites_consecutive_failures = 0;
        addReplyStatus(c, "Background append only file rewriting scheduled");
    } else if (rewriteAppendOnlyFileBackground(s) == C_OK) {
        addReplyStatus(c, "Background append only file rewriting started");
    } else {
        addReplyError(c, "Can't execute an AOF background rewriting. Please "
                      "check the server logs for more information.");
    }
}
