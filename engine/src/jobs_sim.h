/* jobs_sim.h -- the job backend of a simulated machine: the background
 * threads of its server process, each a lane in virtual time.
 *
 * A job starts when its thread is free and the job has been queued, and
 * it lasts as long as its work takes: an fsync until the simulated device
 * has done it, a lazy free the time the caller said freeing takes. The
 * world runs the lanes in time order with the disk (machine.c), and each
 * lane reports its events to bio.c the moment they happen. */
#ifndef GK_JOBS_SIM_H
#define GK_JOBS_SIM_H

#include <stdint.h>
#include "jobs.h"
#include "mem.h"

struct gkDisk;

typedef struct simLane {
    job *jobs;                  /* FIFO; jobs[0] runs once started */
    int njobs, cap;
    int running;                /* jobs[0] has started */
    uint64_t start, end;        /* of jobs[0], when running */
    uint64_t free_at;           /* when the last job ended */
    uint64_t done;              /* jobs completed */
    uint64_t busy_ns;           /* time spent running jobs */
} simLane;

typedef struct simJobs {
    gkMem *mem;                 /* the lanes' queues */
    struct gkDisk *disk;        /* what their fsyncs and closes act on */
    simLane lanes[JOB_QUEUES];
    jobReportFn *report;        /* NULL: the threads are not started */
    void *rctx;
} simJobs;

void simJobsInit(simJobs *sj, gkMem *mem, struct gkDisk *disk);
jobBackend simJobsBackend(simJobs *sj);
uint64_t simJobsNext(const simJobs *sj);
void simJobsRun(simJobs *sj, uint64_t t);

#endif
