/* jobs_sim.c -- see jobs_sim.h. */
#include <string.h>
#include "jobs_sim.h"
#include "disk.h"

/* Idle lanes over disk; no thread runs until the backend is started. */
void simJobsInit(simJobs *sj, gkMem *mem, struct gkDisk *disk) {
    memset(sj, 0, sizeof(*sj));
    sj->mem = mem;
    sj->disk = disk;
}

static int _start(void *ctx, jobReportFn *report, void *rctx) {
    simJobs *sj = ctx;
    sj->report = report;
    sj->rctx = rctx;
    return 0;
}

/* Queues a job (the pending count grows at once); it starts when the
 * world's time reaches it. */
static void _submit(void *ctx, int queue, const job *j) {
    simJobs *sj = ctx;
    simLane *l = &sj->lanes[queue];
    if (l->njobs == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->jobs = memRealloc(sj->mem, l->jobs, sizeof(job) * (size_t)l->cap);
    }
    l->jobs[l->njobs++] = *j;
}

static unsigned long _pending(void *ctx, int queue) {
    return (unsigned long)((simJobs *)ctx)->lanes[queue].njobs;
}

/* The threads die with the process: queued jobs never run, the values
 * they were to free are freed, and the lanes are idle again. */
static void _kill(void *ctx) {
    simJobs *sj = ctx;
    for (int q = 0; q < JOB_QUEUES; q++) {
        simLane *l = &sj->lanes[q];
        for (int i = 0; i < l->njobs; i++)
            if (l->jobs[i].ops & JOB_FREE)
                l->jobs[i].free_fn(l->jobs[i].ctx, l->jobs[i].arg);
        memFree(sj->mem, l->jobs);
        memset(l, 0, sizeof(*l));
    }
    sj->report = NULL;
    sj->rctx = NULL;
}

/* The backend over sj. Events are reported as they happen, so it needs
 * no collect. */
jobBackend simJobsBackend(simJobs *sj) {
    jobBackend jb = { sj, _start, _submit, _pending, NULL, _kill };
    return jb;
}

static void _report(simJobs *sj, int queue, int what, uint64_t id,
                    uint64_t t, int fsynced, int err) {
    jobEvent ev = { queue, what, id, t, fsynced, err };
    if (sj->report) sj->report(sj->rctx, &ev);
}

/* When the lane next does something: its job ends, or its next job can
 * start. */
static uint64_t _laneNext(const simLane *l) {
    if (l->running) return l->end;
    if (l->njobs == 0) return DISK_NEVER;
    uint64_t q = l->jobs[0].queued;
    return q > l->free_at ? q : l->free_at;
}

/* When the first of the lanes next acts (DISK_NEVER: all idle). */
uint64_t simJobsNext(const simJobs *sj) {
    uint64_t t = DISK_NEVER;
    for (int i = 0; i < JOB_QUEUES; i++) {
        uint64_t n = _laneNext(&sj->lanes[i]);
        if (n < t) t = n;
    }
    return t;
}

/* Starts jobs[0] of a lane at t. An fsync lasts until the device has
 * done it, and its outcome is known as soon as the device has taken the
 * request; a free lasts as long as the job says. */
static void _laneStart(simJobs *sj, int queue, uint64_t t) {
    simLane *l = &sj->lanes[queue];
    job *j = &l->jobs[0];
    int err = 0, fsynced = 0;
    l->running = 1;
    l->start = t;
    l->end = t;
    if (j->ops & JOB_FSYNC) {
        l->end = diskFsync(sj->disk, j->fd, t, &err);
        fsynced = 1;
    } else if (j->ops & JOB_FREE) {
        l->end = t + j->free_ns;
    }
    _report(sj, queue, JOB_STARTED, j->id, t, fsynced, err);
}

/* Ends jobs[0] of a lane at t: the descriptor is closed or the value
 * freed, and the job leaves the queue. */
static void _laneFinish(simJobs *sj, int queue, uint64_t t) {
    simLane *l = &sj->lanes[queue];
    job j = l->jobs[0];
    if (j.ops & JOB_CLOSE) diskClose(sj->disk, j.fd);
    if (j.ops & JOB_FREE) j.free_fn(j.ctx, j.arg);
    memmove(l->jobs, l->jobs + 1, sizeof(job) * (size_t)(l->njobs - 1));
    l->njobs--;
    l->running = 0;
    l->free_at = t;
    l->done++;
    l->busy_ns += t - l->start;
    _report(sj, queue, JOB_DONE, j.id, t, 0, 0);
}

/* Runs whatever the lanes do at time t, which must be simJobsNext():
 * jobs ending at t end, then jobs that can start at t start. */
void simJobsRun(simJobs *sj, uint64_t t) {
    for (int q = 0; q < JOB_QUEUES; q++) {
        simLane *l = &sj->lanes[q];
        if (l->running && l->end <= t) _laneFinish(sj, q, t);
        if (!l->running && l->njobs && _laneNext(l) <= t)
            _laneStart(sj, q, t);
        if (l->running && l->end <= t) _laneFinish(sj, q, t);
    }
}
