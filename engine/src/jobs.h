/* jobs.h -- the job backend a server process's background threads run
 * on, as aeBackend is its network backend and fsBackend its file backend.
 *
 * bio.c decides what goes to the background and keeps the books: it
 * numbers the jobs, records them in the trace and turns the outcome of an
 * fsync into aof_bio_fsync_status. The backend owns the threads: one per
 * queue, each running its jobs in the order they were submitted, and each
 * job doing what its ops say (fdatasync a descriptor, close it, free a
 * value). It tells bio.c when a job started and when it was done.
 *
 * Two backends exist. The simulated machine's (jobs_sim.c) runs each
 * thread as a lane in virtual time against the simulated disk and reports
 * every event at the moment it happens. The native one (pthreads) runs
 * real threads that make real system calls; they cannot touch the
 * engine's state, so their events wait until the main thread collects
 * them. Either way bio.c sees the events on the main thread, in order. */
#ifndef GK_JOBS_H
#define GK_JOBS_H

#include <stdint.h>

#define JOB_QUEUES 3            /* threads, one per queue */

/* What a job does, in this order. */
#define JOB_FSYNC 1             /* fdatasync(2) fd */
#define JOB_CLOSE 2             /* close(2) fd */
#define JOB_FREE 4              /* free_fn(ctx, arg) */

/* Events reported. */
#define JOB_STARTED 0
#define JOB_DONE 1

typedef void jobFreeFn(void *ctx, void *arg);

typedef struct job {
    uint64_t id;                /* bio.c's number for it */
    uint64_t queued;            /* when the main thread created it */
    int fd;                     /* JOB_FSYNC, JOB_CLOSE */
    int ops;                    /* JOB_* */
    jobFreeFn *free_fn;         /* JOB_FREE: what to call, */
    void *ctx, *arg;            /* with what, */
    uint64_t free_ns;           /* and how long it takes */
} job;

typedef struct jobEvent {
    int queue;                  /* the thread it ran on */
    int what;                   /* JOB_STARTED, JOB_DONE */
    uint64_t id;
    uint64_t t;                 /* when, on the thread's clock */
    int fsynced;                /* the fsync's outcome is known: */
    int err;                    /* 0, or the errno it failed with */
} jobEvent;

typedef void jobReportFn(void *ctx, const jobEvent *ev);

typedef struct jobBackend {
    void *ctx;
    /* Starts the threads. Every event is reported to report(rctx, ev)
     * on the main thread. 0, or a negated errno. */
    int (*start)(void *ctx, jobReportFn *report, void *rctx);
    /* Queues j on thread `queue`, behind the jobs queued before it. */
    void (*submit)(void *ctx, int queue, const job *j);
    /* Jobs of a queue submitted and not yet reported done, the running
     * one included. */
    unsigned long (*pending)(void *ctx, int queue);
    /* Reports the events that happened since the last call, if the
     * threads cannot report them as they happen. */
    void (*collect)(void *ctx);
    /* The process is gone and its threads with it: jobs not started never
     * run, and the values queued for freeing are freed (the memory
     * outlives the process). A running job is waited for. */
    void (*kill)(void *ctx);
} jobBackend;

#endif
