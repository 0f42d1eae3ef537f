/* aof_child.c -- BGREWRITEAOF: the fork, the child on its own lane, and
 * what the parent does when the child is done (see aof_rewrite.c for the
 * overview).
 *
 * The child's life, in virtual time:
 *   fork       the parent pays for copying its page tables (about 10 ms
 *              per GB of memory), then goes on serving;
 *   serialize  the child walks the dataset: CPU time per key and byte;
 *   write      it writes its temp file into the page cache;
 *   fsync      and waits for the device;
 *   exit       after renaming the file; the parent reaps it at its next
 *              serverCron and switches the manifest.
 * The parent never waits for any of it. The child makes its system calls
 * through a file backend of its own (redisServer.child_fs), whose clock is
 * the child's: its write costs the child the copy, and its fsync returns
 * once the clock says the device is done. */
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
#include "server.h"

#define FORK_NS_PER_MB 10000ULL     /* page tables: ~10 ms per GB */
#define CHILD_NS_PER_KEY 300ULL
#define CHILD_NS_PER_KB 250ULL

static long long _unixtime(redisServer *s) { return s->mstime / 1000; }

/* A line of the child's log (role C, its own pid and time). */
static void _childLog(redisServer *s, uint64_t t, int level,
                      const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    serverLogV(s, s->aof.child.pid, 'C', t, level, fmt, ap);
    va_end(ap);
}

/* The child's memory goes, whatever state it was in. */
void aofChildRelease(redisServer *s) {
    aofChild *ch = &s->aof.child;
    if (ch->data) sdsfree(&ch->mem, ch->data);
    ch->data = NULL;
    ch->active = 0;
    ch->fd = -1;
    ch->step = AOF_CHILD_EXITED;
}

/* The child ends at t with code (0: success); its memory goes. */
static void _childExit(redisServer *s, uint64_t t, int code) {
    aofChild *ch = &s->aof.child;
    if (ch->fd >= 0) s->child_fs.close(s->child_fs.ctx, ch->fd);
    ch->fd = -1;
    if (ch->data) sdsfree(&ch->mem, ch->data);
    ch->data = NULL;
    ch->exitcode = code;
    ch->step = AOF_CHILD_EXITED;
    ch->next = AE_NEVER;
    TRACE_AT(s->denv.trace, t, GK_TR_REWRITE, (uint16_t)s->node,
             code ? GK_RW_FAILED : GK_RW_CHILD_DONE, 0,
             (uint32_t)ch->keys, 0);
}

/* The child's temp file name: temp-rewriteaof[-bg]-<pid>.aof. */
static void _tmpName(char *buf, size_t cap, int pid, int bg) {
    snprintf(buf, cap, bg ? "temp-rewriteaof-bg-%d.aof"
                          : "temp-rewriteaof-%d.aof", pid);
}

/* The child gives up after a failed write or fsync: the temp file goes,
 * and it exits with 1. */
static void _childWriteError(redisServer *s, uint64_t t, const char *tmp,
                             int err) {
    aofChild *ch = &s->aof.child;
    fsBackend *fs = &s->child_fs;
    _childLog(s, t, LL_WARNING, "Write error writing append only file on "
              "disk: %s", aofStrerror(err));
    fs->close(fs->ctx, ch->fd);
    ch->fd = -1;
    fs->unlink(fs->ctx, tmp);
    _childExit(s, t, 1);
}

/* Serialized: write the temp file and fsync it; the child goes on when
 * its clock says the fsync is done. */
static void _childWrite(redisServer *s, uint64_t t) {
    aofChild *ch = &s->aof.child;
    fsBackend *fs = &s->child_fs;
    char tmp[64];
    _tmpName(tmp, sizeof(tmp), ch->pid, 0);
    ch->fd = fs->open(fs->ctx, tmp, FS_O_WRONLY | FS_O_CREAT | FS_O_TRUNC);
    if (ch->fd < 0) {
        _childLog(s, t, LL_WARNING, "Opening the temp file for AOF rewrite "
                  "in rewriteAppendOnlyFile(): %s", aofStrerror(-ch->fd));
        _childExit(s, t, 1);
        return;
    }
    long n = fs->write(fs->ctx, ch->fd, ch->data, sdslen(ch->data));
    if (n != (long)sdslen(ch->data)) {
        _childWriteError(s, t, tmp, n < 0 ? (int)-n : FS_ENOSPC);
        return;
    }
    int r = fs->fsync(fs->ctx, ch->fd);
    if (r < 0) {
        _childWriteError(s, fs->now(fs->ctx), tmp, -r);
        return;
    }
    ch->next = fs->now(fs->ctx);
    ch->step = AOF_CHILD_FSYNC;
}

/* Fsynced: rename the file to its final temp name and exit. */
static void _childRename(redisServer *s, uint64_t t) {
    aofChild *ch = &s->aof.child;
    fsBackend *fs = &s->child_fs;
    char tmp[64], bg[64];
    _tmpName(tmp, sizeof(tmp), ch->pid, 0);
    _tmpName(bg, sizeof(bg), ch->pid, 1);
    fs->close(fs->ctx, ch->fd);
    ch->fd = -1;
    int r = fs->rename(fs->ctx, tmp, bg);
    if (r < 0) {
        _childLog(s, t, LL_WARNING, "Error moving temp append only file on "
                  "the final destination: %s", aofStrerror(-r));
        fs->unlink(fs->ctx, tmp);
        _childExit(s, t, 1);
        return;
    }
    _childLog(s, t, LL_NOTICE, "Successfully created the temporary AOF base "
              "file %s", bg);
    _childLog(s, t, LL_NOTICE, "Fork CoW for AOF rewrite: current 0 MB, peak "
              "0 MB, average 0 MB");
    _childExit(s, t, 0);
}

/* When the child next acts. */
uint64_t aofChildNext(redisServer *s) {
    aofChild *ch = &s->aof.child;
    if (!ch->active || ch->step == AOF_CHILD_EXITED) return AE_NEVER;
    return ch->next;
}

/* The child acts at t (aofChildNext's time). */
void aofChildRun(redisServer *s, uint64_t t) {
    aofChild *ch = &s->aof.child;
    if (ch->step == AOF_CHILD_SERIALIZE) _childWrite(s, t);
    else if (ch->step == AOF_CHILD_FSYNC) _childRename(s, t);
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

/* The fork: the child's snapshot is made now, its work is scheduled on
 * its lane; the parent pays only the fork itself. */
static void _fork(redisServer *s) {
    aofChild *ch = &s->aof.child;
    uint64_t now = serverNow(s);
    uint64_t fork_ns = 50000 + (uint64_t)s->mem->used / (1024 * 1024) *
                               FORK_NS_PER_MB;
    s->denv.cpu_ns += fork_ns;
    s->stat_total_forks++;
    s->stat_fork_time_us = (long long)(fork_ns / 1000);
    s->latency.fork_rate = (double)s->mem->used * 1000000000.0 /
                           (double)fork_ns / (1024.0 * 1024 * 1024);
    latencyAddSampleIfNeeded(s, "fork", (long long)(fork_ns / 1000000));
    memset(ch, 0, sizeof(*ch));
    memInit(&ch->mem, s->mem->fn, s->mem->ud);
    ch->active = 1;
    ch->fd = -1;
    ch->pid = s->pid + (int)s->stat_total_forks;
    ch->fork_at = now;
    ch->data = aofRewriteToSds(s, &ch->mem, &ch->keys);
    ch->cpu_ns = (uint64_t)ch->keys * CHILD_NS_PER_KEY +
                 sdslen(ch->data) / 1024 * CHILD_NS_PER_KB;
    ch->next = now + fork_ns + ch->cpu_ns;
    ch->step = AOF_CHILD_SERIALIZE;
    TRACE(s->denv.trace, GK_TR_REWRITE, (uint16_t)s->node, GK_RW_START, 0,
          (uint32_t)ch->keys, sdslen(ch->data));
}

/* rewriteAppendOnlyFileBackground. C_ERR (and a log line) if it could
 * not start. */
int rewriteAppendOnlyFileBackground(redisServer *s) {
    aofState *a = &s->aof;
    if (a->child.active) return C_ERR;
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
    _fork(s);
    serverLog(s, LL_NOTICE, "Background append only file rewriting started by "
              "pid %ld", (long)a->child.pid);
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

/* killAppendOnlyChild (appendonly switched off or on again). */
void aofKillChild(redisServer *s) {
    aofChild *ch = &s->aof.child;
    if (!ch->active) return;
    if (s->log && s->fs.alive && s->fs.alive(s->fs.ctx, FS_POINT_CALL)) {
        serverLog(s, LL_NOTICE, "Killing running AOF rewrite child: %ld",
                  (long)ch->pid);
        if (ch->fd >= 0) s->child_fs.close(s->child_fs.ctx, ch->fd);
        ch->fd = -1;
        _removeTempFiles(s, ch->pid);
        s->aof.rewrite_time_start = -1;
    }
    aofChildRelease(s);
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
    _tmpName(tmp, sizeof(tmp), a->child.pid, 1);
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
          (uint32_t)a->child.keys, (uint64_t)a->current_size);
}

/* backgroundRewriteDoneHandler and its cleanup. */
static void _childDone(redisServer *s) {
    aofState *a = &s->aof;
    int pid = a->child.pid;
    if (a->child.exitcode == 0) {
        _rewriteDone(s);
    } else {
        a->lastbgrewrite_status = C_ERR;
        a->rewrites_consecutive_failures++;
        serverLog(s, LL_WARNING, "Background AOF rewrite terminated with "
                  "error");
    }
    aofChildRelease(s);
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

/* checkChildrenDone, in serverCron: has the child exited? */
void aofCheckChildDone(redisServer *s) {
    s->fs.catchUp(s->fs.ctx);
    if (s->aof.child.active && s->aof.child.step == AOF_CHILD_EXITED)
        _childDone(s);
}

/* BGREWRITEAOF */
void bgrewriteaofCommand(client *c) {
    redisServer *s = c->srv;
    if (s->aof.child.active) {
        addReplyError(c, "Background append only file rewriting already in "
                      "progress");
    } else if (s->in_exec) {
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
