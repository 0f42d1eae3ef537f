/* bio.h -- Redis's background I/O threads.
 *
 * "Redis is single-threaded" is true of the thread that runs commands.
 * Next to it Redis 7.0 starts three more threads, one per job type, each
 * with its own FIFO queue: one closes files (close(2) of a big file that
 * was unlinked frees its blocks, which can take long), one runs the AOF's
 * fdatasync(2) under appendfsync everysec, and one frees big values
 * deleted with UNLINK or FLUSHALL ASYNC. None of them touches the
 * dataset's logic; they exist so that a slow system call never stalls
 * the main thread. Adding more of them would not make Redis serve
 * commands faster.
 *
 * The threads themselves belong to the job backend (jobs.h): in the
 * simulated world each is a lane in virtual time, where a job starts when
 * the thread is free and lasts as long as its work takes (an fsync waits
 * for the simulated device); natively they are pthreads. The pending
 * count of a type includes the job in progress, as in Redis, where a job
 * leaves its list only after it has run: this is what flushAppendOnlyFile
 * looks at to decide whether an fsync is still in progress. */
#ifndef GK_BIO_H
#define GK_BIO_H

#include <stdint.h>
#include "jobs.h"
#include "trace.h"
#include "slog.h"

#define BIO_CLOSE_FILE 0        /* deferred close(2), maybe after fsync */
#define BIO_AOF_FSYNC 1         /* deferred AOF fdatasync(2) */
#define BIO_LAZY_FREE 2         /* deferred freeing of a value */
#define BIO_NUM_OPS JOB_QUEUES

typedef jobFreeFn bioFreeFn;

typedef struct bioState {
    jobBackend jobs;            /* where the threads run */
    gkTrace *trace;
    uint16_t node;
    uint64_t next_id;
    int fsync_status;           /* aof_bio_fsync_status: 0 ok, -1 error */
    int fsync_errno;            /* aof_bio_fsync_errno */
    /* The bio thread logs "Fail to fsync the AOF file" itself. */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
} bioState;

void bioInit(bioState *b, jobBackend jobs, gkTrace *trace, uint16_t node);
void bioKill(bioState *b);
void bioCreateCloseJob(bioState *b, int fd, int need_fsync, uint64_t now);
void bioCreateFsyncJob(bioState *b, int fd, uint64_t now);
void bioCreateLazyFreeJob(bioState *b, bioFreeFn *fn, void *ctx, void *arg,
                          uint64_t cost_ns, uint64_t now);
unsigned long bioPendingJobsOfType(bioState *b, int type);
const char *bioTypeName(int type);

#endif
