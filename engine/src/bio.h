/* bio.h -- Redis's background I/O threads, simulated.
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
 * Here each thread is a lane in virtual time: a job starts when the
 * thread is free and the job has been queued, and it lasts as long as
 * its work takes (an fsync waits for the simulated device). The pending
 * count of a type includes the job in progress, as in Redis, where a job
 * leaves its list only after it has run: this is what flushAppendOnlyFile
 * looks at to decide whether an fsync is still in progress. */
#ifndef GK_BIO_H
#define GK_BIO_H

#include <stdint.h>
#include "mem.h"
#include "trace.h"
#include "slog.h"

struct gkDisk;

#define BIO_CLOSE_FILE 0        /* deferred close(2), maybe after fsync */
#define BIO_AOF_FSYNC 1         /* deferred AOF fdatasync(2) */
#define BIO_LAZY_FREE 2         /* deferred freeing of a value */
#define BIO_NUM_OPS 3

typedef void bioFreeFn(void *ctx, void *arg);

typedef struct bioJob {
    uint64_t id;
    uint64_t queued;            /* when the main thread created it */
    int fd;                     /* CLOSE_FILE, AOF_FSYNC */
    int need_fsync;             /* CLOSE_FILE: fsync before closing */
    bioFreeFn *free_fn;         /* LAZY_FREE: what to call, */
    void *ctx, *arg;            /* with what, */
    uint64_t free_ns;           /* and how long it takes */
} bioJob;

typedef struct bioThread {
    bioJob *jobs;               /* FIFO; jobs[0] runs once started */
    int njobs, cap;
    int running;                /* jobs[0] has started */
    uint64_t start, end;        /* of jobs[0], when running */
    uint64_t free_at;           /* when the last job ended */
    uint64_t done;              /* jobs completed */
    uint64_t busy_ns;           /* time spent running jobs */
} bioThread;

typedef struct bioState {
    gkMem *mem;
    struct gkDisk *disk;
    gkTrace *trace;
    uint16_t node;
    bioThread threads[BIO_NUM_OPS];
    uint64_t next_id;
    int fsync_status;           /* aof_bio_fsync_status: 0 ok, -1 error */
    int fsync_errno;            /* aof_bio_fsync_errno */
    /* The bio thread logs "Fail to fsync the AOF file" itself. */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
} bioState;

void bioInit(bioState *b, gkMem *mem, struct gkDisk *disk, gkTrace *trace,
             uint16_t node);
void bioKill(bioState *b);
void bioCreateCloseJob(bioState *b, int fd, int need_fsync, uint64_t now);
void bioCreateFsyncJob(bioState *b, int fd, uint64_t now);
void bioCreateLazyFreeJob(bioState *b, bioFreeFn *fn, void *ctx, void *arg,
                          uint64_t cost_ns, uint64_t now);
unsigned long bioPendingJobsOfType(const bioState *b, int type);
uint64_t bioNextEvent(const bioState *b);
void bioRun(bioState *b, uint64_t t);
const char *bioTypeName(int type);

#endif
