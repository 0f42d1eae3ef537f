/* bio.c -- see bio.h. */
#include <string.h>
#include <stdio.h>
#include "bio.h"
#include "fs.h"

/* The thread name of a job type, as Redis names its threads. */
const char *bioTypeName(int type) {
    static const char *names[BIO_NUM_OPS] = { "bio_close_file",
                                              "bio_aof_fsync",
                                              "bio_lazy_free" };
    return type >= 0 && type < BIO_NUM_OPS ? names[type] : "?";
}

static void _report(void *ctx, const jobEvent *ev);

/* Three idle threads, started on the job backend. */
void bioInit(bioState *b, jobBackend jobs, gkTrace *trace, uint16_t node) {
    memset(b, 0, sizeof(*b));
    b->jobs = jobs;
    b->trace = trace;
    b->node = node;
    if (b->jobs.start) b->jobs.start(b->jobs.ctx, _report, b);
}

/* The process died: its threads die with it (see jobBackend.kill). A
 * bioState that was never started has nothing to stop. */
void bioKill(bioState *b) {
    if (b->jobs.kill) b->jobs.kill(b->jobs.ctx);
    memset(&b->jobs, 0, sizeof(b->jobs));
}

/* Queues a job at time now (the pending count grows at once). */
static void _push(bioState *b, int type, job j, uint64_t now) {
    j.id = ++b->next_id;
    j.queued = now;
    b->jobs.submit(b->jobs.ctx, type, &j);
    TRACE_AT(b->trace, now, GK_TR_BIO, b->node, (uint32_t)type,
             GK_JOB_QUEUED, (uint32_t)b->jobs.pending(b->jobs.ctx, type),
             j.id);
}

/* bioCreateCloseJob: close fd in the background, fsyncing it first if
 * need_fsync (a rewrite hands the old incr file over this way). */
void bioCreateCloseJob(bioState *b, int fd, int need_fsync, uint64_t now) {
    job j = { 0 };
    j.fd = fd;
    j.ops = need_fsync ? JOB_FSYNC | JOB_CLOSE : JOB_CLOSE;
    _push(b, BIO_CLOSE_FILE, j, now);
}

/* bioCreateFsyncJob: fdatasync fd in the background. */
void bioCreateFsyncJob(bioState *b, int fd, uint64_t now) {
    job j = { 0 };
    j.fd = fd;
    j.ops = JOB_FSYNC;
    _push(b, BIO_AOF_FSYNC, j, now);
}

/* bioCreateLazyFreeJob: call fn(ctx, arg) in the background; it takes
 * cost_ns of the thread's time. A server whose threads were never started
 * (the recovery ledger's shadow) has no queue: it frees at once. */
void bioCreateLazyFreeJob(bioState *b, bioFreeFn *fn, void *ctx, void *arg,
                          uint64_t cost_ns, uint64_t now) {
    if (!b->jobs.submit) {
        fn(ctx, arg);
        return;
    }
    job j = { 0 };
    j.ops = JOB_FREE;
    j.free_fn = fn;
    j.ctx = ctx;
    j.arg = arg;
    j.free_ns = cost_ns;
    _push(b, BIO_LAZY_FREE, j, now);
}

/* Jobs of a type queued and not finished, the running one included, as
 * far as the main thread has been told. */
unsigned long bioPendingJobsOfType(bioState *b, int type) {
    if (!b->jobs.pending) return 0;
    if (b->jobs.collect) b->jobs.collect(b->jobs.ctx);
    return b->jobs.pending(b->jobs.ctx, type);
}

/* aof_bio_fsync_status after an fsync: EBADF and EINVAL are
 * ignored; the first failure is logged. */
static void _fsyncStatus(bioState *b, int err) {
    char msg[128];
    if (err && err != FS_EBADF && err != FS_EINVAL) {
        int was_ok = b->fsync_status == 0;
        b->fsync_status = -1;
        b->fsync_errno = err;
        if (was_ok && b->log) {
            snprintf(msg, sizeof(msg), "Fail to fsync the AOF file: %s",
                     err == FS_ENOSPC ? "No space left on device"
                                      : "Input/output error");
            b->log(b->log_ctx, LL_WARNING, msg);
        }
    } else {
        b->fsync_status = 0;
    }
}

/* What the backend tells of a job: the outcome of an AOF fsync becomes
 * aof_bio_fsync_status, and the event goes to the trace with the queue's
 * pending count after it. */
static void _report(void *ctx, const jobEvent *ev) {
    bioState *b = ctx;
    if (ev->queue == BIO_AOF_FSYNC && ev->fsynced) _fsyncStatus(b, ev->err);
    TRACE_AT(b->trace, ev->t, GK_TR_BIO, b->node, (uint32_t)ev->queue,
             ev->what == JOB_STARTED ? GK_JOB_START : GK_JOB_DONE,
             (uint32_t)b->jobs.pending(b->jobs.ctx, ev->queue), ev->id);
}
