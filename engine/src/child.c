/* child.c -- the forked child, shared by BGSAVE (rdb.c) and BGREWRITEAOF
 * (aof_child.c). Redis runs one child at a time (hasActiveChildProcess):
 * a BGREWRITEAOF asked for while a BGSAVE runs is scheduled, and a BGSAVE
 * asked for during a rewrite is refused or scheduled.
 *
 * The child's life, in virtual time:
 *   fork       the parent pays for copying its page tables (about 10 ms
 *              per GB of memory), then goes on serving;
 *   serialize  the child walks the dataset: CPU time per key and byte;
 *   write      it writes its temp file into the page cache;
 *   fsync      and waits for the device;
 *   exit       after renaming the file; the parent reaps it at its next
 *              serverCron (checkChildrenDone) and finishes the job: a new
 *              AOF base, or the RDB's lastsave and dirty counter.
 * The parent never waits for any of it. The child makes its system calls
 * through a file backend of its own (redisServer.child_fs), whose clock is
 * the child's: its write costs the child the copy, and its fsync returns
 * once the clock says the device is done.
 *
 * What differs between the two kinds is only what they write and say: the
 * bytes (made by the caller's snapshot function at fork time), the two
 * file names, and the log lines, which are Redis 7.0's for each. */
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
#include "server.h"

#define FORK_NS_PER_MB 10000ULL     /* page tables: ~10 ms per GB */
#define CHILD_NS_PER_KEY 300ULL
#define CHILD_NS_PER_KB 250ULL

/* 1 while a child exists, running or waiting to be reaped. */
int hasActiveChildProcess(redisServer *s) {
    return s->child.type != CHILD_TYPE_NONE;
}

/* A line of the child's log (role C, its own pid and time). */
static void _log(redisServer *s, uint64_t t, int level, const char *fmt,
                 ...) {
    va_list ap;
    va_start(ap, fmt);
    serverLogV(s, s->child.pid, 'C', t, level, fmt, ap);
    va_end(ap);
}

/* resetChildState: the child's memory goes, whatever state it was in. */
void childRelease(redisServer *s) {
    serverChild *ch = &s->child;
    if (ch->data) sdsfree(&ch->mem, ch->data);
    ch->data = NULL;
    ch->type = CHILD_TYPE_NONE;
    ch->fd = -1;
    ch->step = CHILD_EXITED;
}

/* The child's process ends: its file is closed, its memory goes. */
static void _childEnd(serverChild *ch, redisServer *s) {
    if (ch->fd >= 0) s->child_fs.close(s->child_fs.ctx, ch->fd);
    ch->fd = -1;
    if (ch->data) sdsfree(&ch->mem, ch->data);
    ch->data = NULL;
    ch->step = CHILD_EXITED;
    ch->next = AE_NEVER;
}

/* The child ends at t with code (0: success). */
static void _childExit(redisServer *s, uint64_t t, int code) {
    serverChild *ch = &s->child;
    _childEnd(ch, s);
    ch->exitcode = code;
    if (ch->type == CHILD_TYPE_AOF)
        TRACE_AT(s->denv.trace, t, GK_TR_REWRITE, (uint16_t)s->node,
                 code ? GK_RW_FAILED : GK_RW_CHILD_DONE, 0,
                 (uint32_t)ch->keys, 0);
}

/* What each kind says when a step fails (op: the call that failed). */
static void _logError(redisServer *s, uint64_t t, const char *op, int err) {
    serverChild *ch = &s->child;
    const char *why = aofStrerror(err);
    if (ch->type == CHILD_TYPE_AOF) {
        if (!strcmp(op, "open"))
            _log(s, t, LL_WARNING, "Opening the temp file for AOF rewrite "
                 "in rewriteAppendOnlyFile(): %s", why);
        else if (!strcmp(op, "rename"))
            _log(s, t, LL_WARNING, "Error moving temp append only file on "
                 "the final destination: %s", why);
        else
            _log(s, t, LL_WARNING, "Write error writing append only file "
                 "on disk: %s", why);
    } else if (!strcmp(op, "open")) {
        _log(s, t, LL_WARNING, "Failed opening the temp RDB file %s (in "
             "server root dir %s) for saving: %s", ch->tmp,
             fsRoot(&s->child_fs), why);
    } else if (!strcmp(op, "rename")) {
        _log(s, t, LL_WARNING, "Error moving temp DB file %s on the final "
             "destination %s (in server root dir %s): %s", ch->tmp, ch->dst,
             fsRoot(&s->child_fs), why);
    } else {
        _log(s, t, LL_WARNING, "Write error saving DB on disk(%s): %s", op,
             why);
    }
}

/* The child gives up at t after op failed: the temp file goes, and it
 * exits with 1. */
static void _fail(redisServer *s, uint64_t t, const char *op, int err) {
    serverChild *ch = &s->child;
    fsBackend *fs = &s->child_fs;
    _logError(s, t, op, err);
    if (ch->fd >= 0) fs->close(fs->ctx, ch->fd);
    ch->fd = -1;
    fs->unlink(fs->ctx, ch->tmp);
    _childExit(s, t, 1);
}

/* Serialized: write the temp file and fsync it; the child goes on when
 * its clock says the fsync is done. */
static void _write(redisServer *s, uint64_t t) {
    serverChild *ch = &s->child;
    fsBackend *fs = &s->child_fs;
    ch->fd = fs->open(fs->ctx, ch->tmp, FS_O_WRONLY | FS_O_CREAT |
                                        FS_O_TRUNC);
    if (ch->fd < 0) {
        int err = -ch->fd;
        ch->fd = -1;
        _logError(s, t, "open", err);
        _childExit(s, t, 1);
        return;
    }
    long n = fs->write(fs->ctx, ch->fd, ch->data, sdslen(ch->data));
    if (n != (long)sdslen(ch->data)) {
        _fail(s, t, "rdbSaveRio", n < 0 ? (int)-n : FS_ENOSPC);
        return;
    }
    int r = fs->fsync(fs->ctx, ch->fd);
    if (r < 0) {
        _fail(s, fs->now(fs->ctx), "fsync", -r);
        return;
    }
    ch->next = fs->now(fs->ctx);
    ch->step = CHILD_FSYNC;
}

/* Fsynced: close, rename the file to its destination and exit. */
static void _rename(redisServer *s, uint64_t t) {
    serverChild *ch = &s->child;
    fsBackend *fs = &s->child_fs;
    fs->close(fs->ctx, ch->fd);
    ch->fd = -1;
    int r = fs->rename(fs->ctx, ch->tmp, ch->dst);
    if (r < 0) {
        _fail(s, t, "rename", -r);
        return;
    }
    /* rdbSave makes the new name durable too (fsyncFileDir). */
    if (ch->type == CHILD_TYPE_RDB &&
        (r = fs->fsyncDir(fs->ctx, "")) < 0) {
        _fail(s, fs->now(fs->ctx), "fsyncFileDir", -r);
        return;
    }
    t = fs->now(fs->ctx);
    if (ch->type == CHILD_TYPE_AOF) {
        _log(s, t, LL_NOTICE, "Successfully created the temporary AOF base "
             "file %s", ch->dst);
        _log(s, t, LL_NOTICE, "Fork CoW for AOF rewrite: current 0 MB, "
             "peak 0 MB, average 0 MB");
    } else {
        _log(s, t, LL_NOTICE, "DB saved on disk");
        _log(s, t, LL_NOTICE, "Fork CoW for RDB: current 0 MB, peak 0 MB, "
             "average 0 MB");
    }
    _childExit(s, t, 0);
}

/* When the child next acts (AE_NEVER: none, or it exited). */
uint64_t childNext(redisServer *s) {
    serverChild *ch = &s->child;
    if (!hasActiveChildProcess(s) || ch->step == CHILD_EXITED)
        return AE_NEVER;
    return ch->next;
}

/* A diskless sync's child is done at t: the parent has sent what it
 * made as it made it (replication.c took its bytes at the fork). */
static void _streamed(redisServer *s, uint64_t t) {
    serverChild *ch = &s->child;
    _log(s, t, LL_NOTICE, "Fork CoW for RDB: current 0 MB, peak 0 MB, "
         "average 0 MB");
    ch->exitcode = 0;
    ch->step = CHILD_EXITED;
    ch->next = AE_NEVER;
}

/* The child acts at t (childNext's time). */
void childRun(redisServer *s, uint64_t t) {
    serverChild *ch = &s->child;
    if (ch->step == CHILD_SERIALIZE && ch->socket) _streamed(s, t);
    else if (ch->step == CHILD_SERIALIZE) _write(s, t);
    else if (ch->step == CHILD_FSYNC) _rename(s, t);
}

/* rdb-key-save-delay, which Redis's tests use to make a child slow: the
 * child sleeps that many us after each key; a negative -N sleeps 1 us
 * after one key in N on average. */
static uint64_t _keyDelayNs(redisServer *s, long long keys) {
    long long d = s->cfg.rdb_key_save_delay;
    if (d > 0) return (uint64_t)keys * (uint64_t)d * 1000;
    if (d < 0) return (uint64_t)keys * 1000 / (uint64_t)-d;
    return 0;
}

/* redisFork: a child of the given type. Its snapshot, made now by snap
 * in the child's own memory, is the file it will write; its work is
 * scheduled on its lane, and the parent pays only the fork itself. The
 * caller names the child's files (child.tmp, child.dst) before the child
 * first acts. Returns the child's pid; there must be no child yet. If the
 * machine's kernel refuses the child its memory (machine_mem.c), returns
 * the negated errno (-FS_ENOMEM) and nothing changed: as in Redis, a
 * failed fork counts in neither total_forks nor latest_fork_usec. */
int redisFork(redisServer *s, int type, childSnapshotFn snap) {
    serverChild *ch = &s->child;
    uint64_t now = serverNow(s);
    if (s->fork_check) {
        int err = s->fork_check(s->fork_ctx, memoryRss(s));
        if (err < 0) return err;
    }
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
    ch->type = type;
    ch->fd = -1;
    ch->pid = s->pid + (int)s->stat_total_forks;
    ch->fork_at = now;
    /* the child's work, not the parent's (its time is cpu_ns below) */
    s->denv.quiet++;
    ch->data = snap(s, &ch->mem, &ch->keys);
    s->denv.quiet--;
    ch->cpu_ns = (uint64_t)ch->keys * CHILD_NS_PER_KEY +
                 sdslen(ch->data) / 1024 * CHILD_NS_PER_KB +
                 _keyDelayNs(s, ch->keys);
    ch->next = now + fork_ns + ch->cpu_ns;
    ch->step = CHILD_SERIALIZE;
    return ch->pid;
}

/* Kills the child with signal sig, as kill(2) would: a child still at
 * work stops where it is (its temp file stays for the parent to remove);
 * one that already exited is unchanged. The parent reaps it in cron. */
void childKill(redisServer *s, int sig) {
    serverChild *ch = &s->child;
    if (!hasActiveChildProcess(s) || ch->step == CHILD_EXITED) return;
    _childEnd(ch, s);
    ch->bysignal = sig;
}

/* checkChildrenDone, in serverCron: if the child has exited, the parent
 * finishes its job and the child is gone. */
void checkChildrenDone(redisServer *s) {
    serverChild *ch = &s->child;
    s->fs.catchUp(s->fs.ctx);
    if (!hasActiveChildProcess(s) || ch->step != CHILD_EXITED) return;
    if (ch->type == CHILD_TYPE_RDB)
        backgroundSaveDoneHandler(s, ch->exitcode, ch->bysignal);
    else
        backgroundRewriteDoneHandler(s, ch->exitcode, ch->bysignal);
    childRelease(s);
    /* Replicas waiting for a BGSAVE may have one now. */
    replicationStartPendingFork(s);
}

/* The forking part of serverCron, in Redis 7.0's order: a rewrite asked
 * for while another child ran, then either the reaping of the child or
 * the automatic snapshot (save points) and rewrite (growth). */
void childCron(redisServer *s) {
    aofStartScheduledRewrite(s);
    if (hasActiveChildProcess(s)) {
        checkChildrenDone(s);
    } else {
        rdbSavePointsCron(s);
        aofAutoRewrite(s);
    }
}
