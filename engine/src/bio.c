/* bio.c -- see bio.h. */
#include <string.h>
#include <stdio.h>
#include "bio.h"
#include "disk.h"

/* The thread name of a job type, as Redis names its threads. */
const char *bioTypeName(int type) {
    static const char *names[BIO_NUM_OPS] = { "bio_close_file",
                                              "bio_aof_fsync",
                                              "bio_lazy_free" };
    return type >= 0 && type < BIO_NUM_OPS ? names[type] : "?";
}

/* Three idle threads working on disk. */
void bioInit(bioState *b, gkMem *mem, struct gkDisk *disk, gkTrace *trace,
             uint16_t node) {
    memset(b, 0, sizeof(*b));
    b->mem = mem;
    b->disk = disk;
    b->trace = trace;
    b->node = node;
}

/* The process died: its threads die with it. Jobs not run yet never run,
 * but the values queued for lazy freeing are given back to the allocator
 * (the engine's memory outlives the simulated process). */
void bioKill(bioState *b) {
    for (int t = 0; t < BIO_NUM_OPS; t++) {
        bioThread *th = &b->threads[t];
        for (int i = 0; i < th->njobs; i++)
            if (th->jobs[i].free_fn)
                th->jobs[i].free_fn(th->jobs[i].ctx, th->jobs[i].arg);
        memFree(b->mem, th->jobs);
        memset(th, 0, sizeof(*th));
    }
}

/* Queues a job at time now (the pending count grows at once). */
static void _push(bioState *b, int type, bioJob job, uint64_t now) {
    bioThread *th = &b->threads[type];
    if (th->njobs == th->cap) {
        th->cap = th->cap ? th->cap * 2 : 4;
        th->jobs = memRealloc(b->mem, th->jobs,
                              sizeof(bioJob) * (size_t)th->cap);
    }
    job.id = ++b->next_id;
    job.queued = now;
    th->jobs[th->njobs++] = job;
    TRACE_AT(b->trace, now, GK_TR_BIO, b->node, (uint32_t)type,
             GK_JOB_QUEUED, (uint32_t)th->njobs, job.id);
}

/* bioCreateCloseJob: close fd in the background, fsyncing it first if
 * need_fsync (a rewrite hands the old incr file over this way). */
void bioCreateCloseJob(bioState *b, int fd, int need_fsync, uint64_t now) {
    bioJob job = { 0 };
    job.fd = fd;
    job.need_fsync = need_fsync;
    _push(b, BIO_CLOSE_FILE, job, now);
}

/* bioCreateFsyncJob: fdatasync fd in the background. */
void bioCreateFsyncJob(bioState *b, int fd, uint64_t now) {
    bioJob job = { 0 };
    job.fd = fd;
    _push(b, BIO_AOF_FSYNC, job, now);
}

/* bioCreateLazyFreeJob: call fn(ctx, arg) in the background; it takes
 * cost_ns of the thread's time. */
void bioCreateLazyFreeJob(bioState *b, bioFreeFn *fn, void *ctx, void *arg,
                          uint64_t cost_ns, uint64_t now) {
    bioJob job = { 0 };
    job.free_fn = fn;
    job.ctx = ctx;
    job.arg = arg;
    job.free_ns = cost_ns;
    _push(b, BIO_LAZY_FREE, job, now);
}

/* Jobs of a type queued and not finished, the running one included. */
unsigned long bioPendingJobsOfType(const bioState *b, int type) {
    return (unsigned long)b->threads[type].njobs;
}

/* When the thread next does something: its job ends, or its next job
 * can start. */
static uint64_t _threadNext(const bioThread *th) {
    if (th->running) return th->end;
    if (th->njobs == 0) return DISK_NEVER;
    uint64_t q = th->jobs[0].queued;
    return q > th->free_at ? q : th->free_at;
}

/* When the first of the threads next acts (DISK_NEVER: idle). */
uint64_t bioNextEvent(const bioState *b) {
    uint64_t t = DISK_NEVER;
    for (int i = 0; i < BIO_NUM_OPS; i++) {
        uint64_t n = _threadNext(&b->threads[i]);
        if (n < t) t = n;
    }
    return t;
}

/* aof_bio_fsync_status after an fsync: EBADF and EINVAL are
 * ignored; the first failure is logged. */
static void _fsyncStatus(bioState *b, int err) {
    char msg[128];
    if (err && err != DISK_EBADF && err != DISK_EINVAL) {
        int was_ok = b->fsync_status == 0;
        b->fsync_status = -1;
        b->fsync_errno = err;
        if (was_ok && b->log) {
            snprintf(msg, sizeof(msg), "Fail to fsync the AOF file: %s",
                     err == DISK_ENOSPC ? "No space left on device"
                                        : "Input/output error");
            b->log(b->log_ctx, LL_WARNING, msg);
        }
    } else {
        b->fsync_status = 0;
    }
}

/* Starts jobs[0] of thread `type` at t: its end is when its work is
 * done. */
static void _start(bioState *b, int type, uint64_t t) {
    bioThread *th = &b->threads[type];
    bioJob *job = &th->jobs[0];
    int err = 0;
    th->running = 1;
    th->start = t;
    th->end = t;
    if (type == BIO_AOF_FSYNC || (type == BIO_CLOSE_FILE && job->need_fsync))
        th->end = diskFsync(b->disk, job->fd, t, &err);
    else if (type == BIO_LAZY_FREE)
        th->end = t + job->free_ns;
    if (type == BIO_AOF_FSYNC) _fsyncStatus(b, err);
    TRACE_AT(b->trace, t, GK_TR_BIO, b->node, (uint32_t)type, GK_JOB_START,
             (uint32_t)th->njobs, job->id);
}

/* Ends jobs[0] of thread `type` at t and takes it off the queue. */
static void _finish(bioState *b, int type, uint64_t t) {
    bioThread *th = &b->threads[type];
    bioJob job = th->jobs[0];
    if (type == BIO_CLOSE_FILE) diskClose(b->disk, job.fd);
    if (type == BIO_LAZY_FREE) job.free_fn(job.ctx, job.arg);
    memmove(th->jobs, th->jobs + 1, sizeof(bioJob) * (size_t)(th->njobs - 1));
    th->njobs--;
    th->running = 0;
    th->free_at = t;
    th->done++;
    th->busy_ns += t - th->start;
    TRACE_AT(b->trace, t, GK_TR_BIO, b->node, (uint32_t)type, GK_JOB_DONE,
             (uint32_t)th->njobs, job.id);
}

/* Runs whatever the threads do at time t, which must be bioNextEvent():
 * jobs ending at t end, then jobs that can start at t start. */
void bioRun(bioState *b, uint64_t t) {
    for (int type = 0; type < BIO_NUM_OPS; type++) {
        bioThread *th = &b->threads[type];
        if (th->running && th->end <= t) _finish(b, type, t);
        if (!th->running && th->njobs && _threadNext(th) <= t)
            _start(b, type, t);
        if (th->running && th->end <= t) _finish(b, type, t);
    }
}
