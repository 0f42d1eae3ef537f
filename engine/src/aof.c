/* aof.c -- writing the AOF: feeding aof_buf after each write command,
 * flushing it in beforeSleep under the three fsync policies, write errors
 * and the MISCONF they cause, turning appendonly on and off, the cron's
 * part, and INFO persistence. Loading is in aof_load.c, rewriting and the
 * manifest in aof_rewrite.c. See aof.h for the whole picture. */
#include <string.h>
#include <stdio.h>
#include "server.h"

/* strerror(3) for the errors the file backend returns. */
const char *aofStrerror(int err) {
    switch (err) {
    case FS_ENOENT: return "No such file or directory";
    case FS_EIO: return "Input/output error";
    case FS_EBADF: return "Bad file descriptor";
    case FS_ENOMEM: return "Cannot allocate memory";
    case FS_EACCES: return "Permission denied";
    case FS_EEXIST: return "File exists";
    case FS_EINVAL: return "Invalid argument";
    case FS_ENOSPC: return "No space left on device";
    case FS_EROFS: return "Read-only file system";
    default: return "Unknown error";
    }
}

/* appenddirname/name, a new sds the caller frees. */
sds aofPath(redisServer *s, const char *name) {
    return sdscatprintf(s->mem, sdsempty(s->mem), "%s/%s",
                        s->cfg.appenddirname, name);
}

static long long _unixtime(redisServer *s) { return s->mstime / 1000; }

/* The AOF of a new process: off, no file, an empty manifest. */
void aofInit(redisServer *s) {
    aofState *a = &s->aof;
    memset(a, 0, sizeof(*a));
    a->state = AOF_OFF;
    a->fd = -1;
    a->buf = sdsempty(s->mem);
    a->selected_db = -1;
    a->last_write_status = C_OK;
    a->lastbgrewrite_status = C_OK;
    a->rewrite_time_start = -1;
    a->rewrite_time_last = -1;
    a->manifest = aofManifestCreate(s);
}

/* The process is going away: its memory is freed. Its files were closed
 * by the kernel (or will be by the world). */
void aofRelease(redisServer *s) {
    childRelease(s);
    sdsfree(s->mem, s->aof.buf);
    s->aof.buf = NULL;
    aofManifestRelease(s, s->aof.manifest);
    s->aof.manifest = NULL;
}

/* ---- Feeding aof_buf. ---- */

/* Appends argv as a RESP multibulk to dst; returns dst. The AOF and the
 * replication stream write commands this way. */
sds catCommandProtocol(redisServer *s, sds dst, int argc, robj **argv) {
    char buf[LONG_STR_SIZE];
    dst = sdscatprintf(s->mem, dst, "*%d\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len;
        const char *p = objectStrBytes(argv[j], buf, &len);
        dst = sdscatprintf(s->mem, dst, "$%zu\r\n", len);
        dst = sdscatlen(s->mem, dst, p, len);
        dst = sdscatlen(s->mem, dst, "\r\n", 2);
    }
    return dst;
}

/* Appends SELECT dbid as a RESP multibulk to dst; returns dst. */
sds catSelectProtocol(redisServer *s, sds dst, int dbid) {
    char id[LONG_STR_SIZE];
    int len = ll2string(id, sizeof(id), dbid);
    return sdscatprintf(s->mem, dst, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n",
                        len, id);
}

/* feedAppendOnlyFile: appends the command, as RESP, to aof_buf -- after
 * a SELECT if it targets another db than the last one written (and after
 * a #TS annotation with aof-timestamp-enabled). The arguments are what
 * the command left in argv: integer-encoded ones are written in decimal.
 * While appendonly waits for its first rewrite the bytes are kept only if
 * the rewrite child exists. */
void feedAppendOnlyFile(redisServer *s, int dictid, robj **argv, int argc) {
    aofState *a = &s->aof;
    sds buf = sdsempty(s->mem);
    if (s->cfg.aof_timestamp_enabled && a->cur_timestamp < _unixtime(s)) {
        a->cur_timestamp = _unixtime(s);
        buf = sdscatprintf(s->mem, buf, "#TS:%lld\r\n", a->cur_timestamp);
    }
    if (dictid != -1 && dictid != a->selected_db) {
        buf = catSelectProtocol(s, buf, dictid);
        a->selected_db = dictid;
    }
    buf = catCommandProtocol(s, buf, argc, argv);
    if (a->state == AOF_ON ||
        (a->state == AOF_WAIT_REWRITE && s->child.type == CHILD_TYPE_AOF)) {
        a->buf = sdscatsds(s->mem, a->buf, buf);
        a->fed_bytes += (long long)sdslen(buf);
        TRACE(s->denv.trace, GK_TR_AOF, (uint16_t)s->node, GK_AOF_FEED,
              (uint32_t)(dictid < 0 ? 0 : dictid), (uint32_t)sdslen(buf),
              sdslen(a->buf));
    }
    sdsfree(s->mem, buf);
}

/* ---- Flushing aof_buf. ---- */

/* write(2) until everything is written or an error: the bytes written,
 * or a negated errno if there were none. */
static long _aofWrite(redisServer *s, int fd, const char *buf, size_t len) {
    long total = 0;
    while (len) {
        long n = s->fs.write(s->fs.ctx, fd, buf, len);
        if (n < 0) return total ? total : n;
        if (n == 0) return total;
        len -= (size_t)n;
        buf += n;
        total += n;
    }
    return total;
}

/* Whether a background fsync of the AOF is queued or running. */
int aofFsyncInProgress(redisServer *s) {
    s->fs.catchUp(s->fs.ctx);
    return bioPendingJobsOfType(&s->bio, BIO_AOF_FSYNC) != 0;
}

/* A GK_TR_AOF record of event ev. */
static void _trace(redisServer *s, int ev, uint32_t b, uint32_t c,
                   uint64_t d) {
    TRACE(s->denv.trace, GK_TR_AOF, (uint16_t)s->node, (uint32_t)ev, b, c,
          d);
}

/* everysec with a background fsync still running: postpone the write up
 * to two seconds, then write anyway. Returns 1 if the write must wait. */
static int _postpone(redisServer *s) {
    aofState *a = &s->aof;
    long long now = _unixtime(s);
    if (a->flush_postponed_start == 0) {
        a->flush_postponed_start = now;
        _trace(s, GK_AOF_POSTPONE, 0, 0, sdslen(a->buf));
        return 1;
    }
    if (now - a->flush_postponed_start < 2) {
        _trace(s, GK_AOF_POSTPONE, 0,
               (uint32_t)(now - a->flush_postponed_start), sdslen(a->buf));
        return 1;
    }
    a->delayed_fsync++;
    serverLog(s, LL_NOTICE, "Asynchronous AOF fsync is taking too long (disk "
              "is busy?). Writing the AOF buffer without waiting for fsync "
              "to complete, this may slow down Redis.");
    _trace(s, GK_AOF_FORCED, 0, 0, (uint64_t)a->delayed_fsync);
    return 0;
}

/* A short or failed write. The part of a short write is removed with
 * ftruncate when possible, so the file never ends in half a command.
 * With appendfsync always the process exits: a reply may already have
 * been promised. Otherwise aof_buf keeps what was not written and writes
 * are refused (MISCONF) until a later flush succeeds. */
static void _writeError(redisServer *s, long n) {
    aofState *a = &s->aof;
    long long now = _unixtime(s);
    int can_log = now - a->last_write_error_log > AOF_WRITE_LOG_ERROR_RATE;
    if (can_log) a->last_write_error_log = now;
    _trace(s, GK_AOF_WRITE_ERR, (uint32_t)(n < 0 ? -n : FS_ENOSPC),
           n > 0 ? (uint32_t)n : 0, sdslen(a->buf));
    if (n < 0) {
        if (can_log) serverLog(s, LL_WARNING, "Error writing to the AOF "
                               "file: %s", aofStrerror((int)-n));
        a->last_write_errno = (int)-n;
    } else {
        if (can_log) serverLog(s, LL_WARNING, "Short write while writing to "
                               "the AOF file: (nwritten=%lld, expected=%lld)",
                               (long long)n, (long long)sdslen(a->buf));
        int r = s->fs.ftruncate(s->fs.ctx, a->fd,
                                (uint64_t)a->last_incr_size);
        if (r < 0) {
            if (can_log) serverLog(s, LL_WARNING, "Could not remove short "
                "write from the append-only file.  Redis may refuse to load "
                "the AOF the next time it starts.  ftruncate: %s",
                aofStrerror(-r));
        } else {
            n = -1;
        }
        a->last_write_errno = FS_ENOSPC;
    }
    if (s->cfg.appendfsync == AOF_FSYNC_ALWAYS) {
        serverLog(s, LL_WARNING, "Can't recover from AOF write error when the "
                  "AOF fsync policy is 'always'. Exiting...");
        s->fs.exit(s->fs.ctx);
        return;
    }
    a->last_write_status = C_ERR;
    if (n > 0) {
        a->current_size += n;
        a->last_incr_size += n;
        a->written_bytes += n;
        sdsrange(a->buf, n, -1);
    }
}

/* After a successful write: the sizes grow and aof_buf is emptied. */
static void _written(redisServer *s, long n) {
    aofState *a = &s->aof;
    if (a->last_write_status == C_ERR) {
        serverLog(s, LL_WARNING, "AOF write error looks solved, Redis can "
                  "write again.");
        a->last_write_status = C_OK;
    }
    a->current_size += n;
    a->last_incr_size += n;
    a->written_bytes += n;
    _trace(s, GK_AOF_WRITE, 0, (uint32_t)n, (uint64_t)a->current_size);
    if (sdslen(a->buf) + sdsavail(a->buf) < 4000) {
        sdsclear(a->buf);
    } else {
        sdsfree(s->mem, a->buf);
        a->buf = sdsempty(s->mem);
    }
}

/* The fsync part of a flush. always: fdatasync right here, before any
 * reply is written; a failure ends the process. everysec: at most once a
 * second, hand the fsync to a bio thread, unless one is still running. */
static void _tryFsync(redisServer *s, int sync_in_progress) {
    aofState *a = &s->aof;
    if (s->cfg.aof_no_fsync_on_rewrite && hasActiveChildProcess(s)) return;
    if (s->cfg.appendfsync == AOF_FSYNC_ALWAYS) {
        uint64_t cpu0 = s->denv.cpu_ns;
        int r = s->fs.fsync(s->fs.ctx, a->fd);
        if (r < 0) {
            serverLog(s, LL_WARNING, "Can't persist AOF for fsync error when "
                      "the AOF fsync policy is 'always': %s. Exiting...",
                      aofStrerror(-r));
            s->fs.exit(s->fs.ctx);
            return;
        }
        latencyAddSampleIfNeeded(s, "aof-fsync-always",
                                 latencyMsSince(s, cpu0));
        a->fsync_offset = a->current_size;
        a->last_fsync = _unixtime(s);
        _trace(s, GK_AOF_FSYNC, 0, 0, (uint64_t)a->fsync_offset);
    } else if (s->cfg.appendfsync == AOF_FSYNC_EVERYSEC &&
               _unixtime(s) > a->last_fsync) {
        if (!sync_in_progress) {
            bioCreateFsyncJob(&s->bio, a->fd, serverNow(s));
            a->fsync_offset = a->current_size;
            _trace(s, GK_AOF_FSYNC_QUEUED, 0, 0, (uint64_t)a->fsync_offset);
        }
        a->last_fsync = _unixtime(s);
    }
}

/* The write's latency samples: "aof-write", and one naming what it may
 * have waited behind -- a background fsync of the file (everysec), the
 * rewrite child's disk traffic, or nothing. */
static void _writeLatency(redisServer *s, int sync_in_progress,
                          long long ms) {
    const char *event = sync_in_progress ? "aof-write-pending-fsync" :
                        hasActiveChildProcess(s) ? "aof-write-active-child" :
                        "aof-write-alone";
    latencyAddSampleIfNeeded(s, event, ms);
    latencyAddSampleIfNeeded(s, "aof-write", ms);
}

/* flushAppendOnlyFile: writes aof_buf to the incr file, then fsyncs as
 * the policy says. force writes even while a background fsync runs.
 *
 * Called in beforeSleep, before the replies are written: with
 * appendfsync always a client is told OK only once its write is on the
 * device. With everysec, a write(2) issued while the bio thread is
 * inside fdatasync on the same file would block the main thread, so the
 * write is postponed instead -- but only for two seconds: after that
 * Redis writes anyway and counts aof_delayed_fsync. Meanwhile the replies
 * go out: the commands are acknowledged while their bytes are only in
 * aof_buf, which is how everysec can lose about two seconds of
 * acknowledged writes when the machine fails. */
void flushAppendOnlyFile(redisServer *s, int force) {
    aofState *a = &s->aof;
    int sync_in_progress = 0;
    int everysec = s->cfg.appendfsync == AOF_FSYNC_EVERYSEC;
    if (a->fd < 0) return;
    if (sdslen(a->buf) == 0) {
        if ((everysec && a->fsync_offset != a->current_size &&
             _unixtime(s) > a->last_fsync &&
             !(sync_in_progress = aofFsyncInProgress(s))) ||
            (s->cfg.appendfsync == AOF_FSYNC_ALWAYS &&
             a->fsync_offset != a->current_size))
            _tryFsync(s, sync_in_progress);
        return;
    }
    if (everysec) sync_in_progress = aofFsyncInProgress(s);
    if (everysec && !force && sync_in_progress && _postpone(s)) return;
    uint64_t cpu0 = s->denv.cpu_ns;
    long n = _aofWrite(s, a->fd, a->buf, sdslen(a->buf));
    _writeLatency(s, sync_in_progress, latencyMsSince(s, cpu0));
    a->flush_postponed_start = 0;
    if (n != (long)sdslen(a->buf)) {
        _writeError(s, n);
        return;
    }
    _written(s, n);
    _tryFsync(s, sync_in_progress);
}

/* End of beforeSleep: the replies of every command fed so far are
 * written (the acknowledged offset of the views). */
void aofBeforeSleepDone(redisServer *s) {
    s->aof.acked_bytes = s->aof.fed_bytes;
}

/* ---- Turning appendonly on and off (CONFIG SET appendonly). ---- */

/* appendonly yes at runtime: nothing can be appended until a base file
 * exists, so the state waits for a rewrite (AOF_WAIT_REWRITE), which
 * starts now unless a transaction is running. */
int startAppendOnly(redisServer *s) {
    aofState *a = &s->aof;
    a->state = AOF_WAIT_REWRITE;
    if (hasActiveChildProcess(s) && s->child.type != CHILD_TYPE_AOF) {
        a->rewrite_scheduled = 1;
        serverLog(s, LL_WARNING, "AOF was enabled but there is already "
                  "another background operation. An AOF background was "
                  "scheduled to start when possible.");
    } else if (s->in_exec) {
        a->rewrite_scheduled = 1;
        serverLog(s, LL_WARNING, "AOF was enabled during a transaction. An "
                  "AOF background was scheduled to start when possible.");
    } else {
        if (s->child.type == CHILD_TYPE_AOF) {
            serverLog(s, LL_WARNING, "AOF was enabled but there is already "
                      "an AOF rewriting in background. Stopping background "
                      "AOF and starting a rewrite now.");
            aofKillChild(s);
        }
        if (rewriteAppendOnlyFileBackground(s) == C_ERR) {
            a->state = AOF_OFF;
            serverLog(s, LL_WARNING, "Redis needs to enable the AOF but "
                      "can't trigger a background AOF rewrite operation. "
                      "Check the above logs for more info about the error.");
            return C_ERR;
        }
    }
    a->last_fsync = _unixtime(s);
    if (s->bio.fsync_status != 0) {
        serverLog(s, LL_WARNING, "AOF reopen, just ignore the AOF fsync "
                  "error in bio job");
        s->bio.fsync_status = 0;
    }
    if (a->last_write_status == C_ERR) {
        serverLog(s, LL_WARNING, "AOF reopen, just ignore the last error.");
        a->last_write_status = C_OK;
    }
    return C_OK;
}

/* appendonly no at runtime: flush and fsync what is buffered, close. */
void stopAppendOnly(redisServer *s) {
    aofState *a = &s->aof;
    flushAppendOnlyFile(s, 1);
    if (a->fd >= 0) {
        int r = s->fs.fsync(s->fs.ctx, a->fd);
        if (r < 0) {
            serverLog(s, LL_WARNING, "Fail to fsync the AOF file: %s",
                      aofStrerror(-r));
        } else {
            a->fsync_offset = a->current_size;
            a->last_fsync = _unixtime(s);
        }
        s->fs.close(s->fs.ctx, a->fd);
    }
    a->fd = -1;
    a->selected_db = -1;
    a->state = AOF_OFF;
    a->rewrite_scheduled = 0;
    a->last_incr_size = 0;
    aofKillChild(s);
    sdsclear(a->buf);
}

/* bg_unlink: unlink now, but let a bio thread close the last descriptor,
 * since freeing a big file's blocks can take long. */
void aofBackgroundUnlink(redisServer *s, const char *path) {
    int fd = s->fs.open(s->fs.ctx, path, FS_O_RDONLY);
    if (fd < 0) {
        s->fs.unlink(s->fs.ctx, path);
        return;
    }
    if (s->fs.unlink(s->fs.ctx, path) < 0) {
        s->fs.close(s->fs.ctx, fd);
        return;
    }
    bioCreateCloseJob(&s->bio, fd, 0, serverNow(s));
}

/* ---- serverCron's part. ---- */

/* aofRewriteLimited: after three failed rewrites in a row, automatic
 * ones wait 1, 2, 4 ... up to 60 minutes. */
static int _rewriteLimited(redisServer *s) {
    aofState *a = &s->aof;
    if (a->rewrites_consecutive_failures < 3) {
        a->limit_delay_minutes = 0;
        a->limit_next_time = 0;
        return 0;
    }
    if (a->limit_next_time) {
        if (_unixtime(s) < a->limit_next_time) return 1;
        a->limit_next_time = 0;
        return 0;
    }
    a->limit_delay_minutes = a->limit_delay_minutes ? a->limit_delay_minutes
                                                      * 2 : 1;
    if (a->limit_delay_minutes > 60) a->limit_delay_minutes = 60;
    a->limit_next_time = _unixtime(s) + a->limit_delay_minutes * 60;
    serverLog(s, LL_WARNING, "Background AOF rewrite has repeatedly failed "
              "and triggered the limit, will retry in %d minutes",
              a->limit_delay_minutes);
    return 1;
}

/* auto-aof-rewrite-percentage: rewrite once the AOF has grown that much
 * over its size after the last rewrite (and is past the minimum size). */
void aofAutoRewrite(redisServer *s) {
    aofState *a = &s->aof;
    if (a->state != AOF_ON || hasActiveChildProcess(s) ||
        !s->cfg.auto_aof_rewrite_perc ||
        a->current_size <= s->cfg.auto_aof_rewrite_min_size) return;
    long long base = a->rewrite_base_size ? a->rewrite_base_size : 1;
    long long growth = a->current_size * 100 / base - 100;
    if (growth >= s->cfg.auto_aof_rewrite_perc && !_rewriteLimited(s)) {
        serverLog(s, LL_NOTICE, "Starting automatic rewriting of AOF on "
                  "%lld%% growth", growth);
        rewriteAppendOnlyFileBackground(s);
    }
}

/* In serverCron, before the child is reaped: a rewrite asked for while
 * another child ran (or during a transaction) starts once none runs. */
void aofStartScheduledRewrite(redisServer *s) {
    if (!hasActiveChildProcess(s) && s->aof.rewrite_scheduled &&
        !_rewriteLimited(s))
        rewriteAppendOnlyFileBackground(s);
}

/* In serverCron, after the child's part (childCron): a postponed flush,
 * and -- once a second while the last write failed -- another try, which
 * is what lets the server accept writes again once space is freed. */
void aofCron(redisServer *s) {
    aofState *a = &s->aof;
    int on = a->state == AOF_ON || a->state == AOF_WAIT_REWRITE;
    if (on && a->flush_postponed_start) flushAppendOnlyFile(s, 0);
    if (serverRunWithPeriod(s, 1000) && on &&
        a->last_write_status == C_ERR)
        flushAppendOnlyFile(s, 0);
}

/* ---- Refusing writes. ---- */

/* Nonzero when writes (and PING) get -MISCONF: DISK_ERROR_TYPE_RDB after
 * a failed BGSAVE while save points are set and
 * stop-writes-on-bgsave-error is yes; DISK_ERROR_TYPE_AOF while the AOF
 * is on and its last write, or the last background fsync, failed. */
int writeCommandsDeniedByDiskError(redisServer *s) {
    aofState *a = &s->aof;
    if (s->cfg.stop_writes_on_bgsave_err && s->cfg.save_n > 0 &&
        s->lastbgsave_status == C_ERR) return DISK_ERROR_TYPE_RDB;
    if (a->state == AOF_OFF) return 0;
    if (a->last_write_status == C_ERR) return DISK_ERROR_TYPE_AOF;
    s->fs.catchUp(s->fs.ctx);
    if (s->bio.fsync_status != 0) {
        a->last_write_errno = s->bio.fsync_errno;
        return DISK_ERROR_TYPE_AOF;
    }
    return DISK_ERROR_TYPE_NONE;
}

/* The error a refused write gets, "-MISCONF ...". */
sds writeCommandsGetDiskErrorMessage(redisServer *s) {
    if (writeCommandsDeniedByDiskError(s) == DISK_ERROR_TYPE_RDB)
        return sdsnew(s->mem, "-MISCONF Redis is configured to save RDB "
                      "snapshots, but it's currently unable to persist to "
                      "disk. Commands that may modify the data set are "
                      "disabled, because this instance is configured to "
                      "report errors during writes if RDB snapshotting "
                      "fails (stop-writes-on-bgsave-error option). Please "
                      "check the Redis logs for details about the RDB "
                      "error.");
    return sdscatprintf(s->mem, sdsempty(s->mem), "-MISCONF Errors writing "
                        "to the AOF file: %s",
                        aofStrerror(s->aof.last_write_errno));
}

/* ---- INFO persistence. ---- */

/* The RDB part of INFO persistence. Copy-on-write is not simulated: the
 * child's file is made at fork time, so its COW figures are 0. */
static sds _infoRdb(redisServer *s, sds info) {
    int bgsave = s->child.type == CHILD_TYPE_RDB;
    long long cur = bgsave ? s->mstime / 1000 - s->rdb_save_time_start : -1;
    return sdscatprintf(s->mem, info,
        "# Persistence\r\n"
        "loading:%d\r\n"
        "async_loading:0\r\n"
        "current_cow_peak:0\r\n"
        "current_cow_size:0\r\n"
        "current_cow_size_age:0\r\n"
        "current_fork_perc:0.00\r\n"
        "current_save_keys_processed:0\r\n"
        "current_save_keys_total:%lld\r\n"
        "rdb_changes_since_last_save:%lld\r\n"
        "rdb_bgsave_in_progress:%d\r\n"
        "rdb_last_save_time:%lld\r\n"
        "rdb_last_bgsave_status:%s\r\n"
        "rdb_last_bgsave_time_sec:%lld\r\n"
        "rdb_current_bgsave_time_sec:%lld\r\n"
        "rdb_saves:%lld\r\n"
        "rdb_last_cow_size:0\r\n"
        "rdb_last_load_keys_expired:%lld\r\n"
        "rdb_last_load_keys_loaded:%lld\r\n",
        s->loading, hasActiveChildProcess(s) ? s->child.keys : 0, s->dirty,
        bgsave, s->lastsave, s->lastbgsave_status == C_OK ? "ok" : "err",
        s->rdb_save_time_last, cur, s->stat_rdb_saves,
        s->rdb_last_load_keys_expired, s->rdb_last_load_keys_loaded);
}

/* The aof_* fields, in 7.0's order; the last six only with appendonly
 * yes. aof_last_write_status is ok only if the last write and the last
 * background fsync both were. */
sds aofInfoPersistence(redisServer *s, sds info) {
    aofState *a = &s->aof;
    s->fs.catchUp(s->fs.ctx);
    long long cur = a->rewrite_time_start == -1 ? -1
                    : _unixtime(s) - a->rewrite_time_start;
    int wok = a->last_write_status == C_OK && s->bio.fsync_status == 0;
    info = _infoRdb(s, info);
    info = sdscatprintf(s->mem, info,
        "aof_enabled:%d\r\n"
        "aof_rewrite_in_progress:%d\r\n"
        "aof_rewrite_scheduled:%d\r\n"
        "aof_last_rewrite_time_sec:%lld\r\n"
        "aof_current_rewrite_time_sec:%lld\r\n"
        "aof_last_bgrewrite_status:%s\r\n"
        "aof_rewrites:%lld\r\n"
        "aof_rewrites_consecutive_failures:%lld\r\n"
        "aof_last_write_status:%s\r\n"
        "aof_last_cow_size:0\r\n"
        "module_fork_in_progress:0\r\n"
        "module_fork_last_cow_size:0\r\n",
        a->state != AOF_OFF, s->child.type == CHILD_TYPE_AOF,
        a->rewrite_scheduled,
        a->rewrite_time_last, cur,
        a->lastbgrewrite_status == C_OK ? "ok" : "err", a->stat_rewrites,
        a->rewrites_consecutive_failures, wok ? "ok" : "err");
    if (!s->cfg.appendonly) return info;
    return sdscatprintf(s->mem, info,
        "aof_current_size:%lld\r\n"
        "aof_base_size:%lld\r\n"
        "aof_pending_rewrite:%d\r\n"
        "aof_buffer_length:%zu\r\n"
        "aof_pending_bio_fsync:%lu\r\n"
        "aof_delayed_fsync:%lld\r\n",
        a->current_size, a->rewrite_base_size, a->rewrite_scheduled,
        sdslen(a->buf), bioPendingJobsOfType(&s->bio, BIO_AOF_FSYNC),
        a->delayed_fsync);
}
