/* jobs_pthread.h -- the job backend on real threads (jobs.h): one pthread
 * per queue, each running its jobs in order with real system calls, as
 * Redis's bio.c runs its threads.
 *
 * The threads never touch the engine's state. What they did waits in a
 * list until the main thread collects it (jobBackend.collect), which is
 * when bio.c hears of it and when the pending count of a queue goes down:
 * the main thread never sees a job done before its outcome. A lazy free
 * is run then too, on the main thread: the engine's allocator keeps one
 * account of the memory in use, which only the main thread may change,
 * so the thread only holds the job's place in its queue. */
#ifndef GK_JOBS_PTHREAD_H
#define GK_JOBS_PTHREAD_H

#include <stdint.h>
#include "jobs.h"

typedef uint64_t jobsPthreadClock(void *ctx);

typedef struct jobsPthread jobsPthread;

jobsPthread *jobsPthreadCreate(jobsPthreadClock *clock, void *clock_ctx);
void jobsPthreadRelease(jobsPthread *p);
jobBackend jobsPthreadBackend(jobsPthread *p);
uint64_t jobsPthreadDone(jobsPthread *p, int queue);

#endif
