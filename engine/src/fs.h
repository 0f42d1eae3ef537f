/* fs.h -- the file backend a server process runs on, as aeBackend is its
 * network backend: the system calls of one of its threads.
 *
 * Each call happens at the calling thread's current time and costs it
 * the system call's time: a write(2) into the page cache is quick unless
 * an fsync of the same file is in flight, an fsync(2) waits for the
 * device. Calls return 0 (or a count) on success and a negated errno on
 * failure, so no global errno is needed.
 *
 * A process has two: its main thread's (redisServer.fs) and that of the
 * child it forks for BGSAVE or BGREWRITEAOF (redisServer.child_fs), which
 * runs on a clock of its own. The background threads make their system calls
 * through the job backend (jobs.h). In the simulated world both file
 * backends act on the machine's disk (machine.c); natively they are
 * POSIX calls on a real directory. */
#ifndef GK_FS_H
#define GK_FS_H

#include <stdint.h>
#include <stddef.h>
#include "sds.h"

#define FS_O_RDONLY 0
#define FS_O_WRONLY 1
#define FS_O_CREAT 2
#define FS_O_TRUNC 4
#define FS_O_APPEND 8

#define FS_ENOENT 2
#define FS_EIO 5
#define FS_EBADF 9
#define FS_ENOMEM 12
#define FS_EACCES 13
#define FS_EEXIST 17
#define FS_EINVAL 22
#define FS_ENOSPC 28
#define FS_EROFS 30

/* Where the process is when it asks whether it may go on. */
#define FS_POINT_CALL 0         /* about to run a command */
#define FS_POINT_BEFORE_SLEEP 1 /* about to run beforeSleep */

typedef struct fsBackend {
    void *ctx;
    int (*open)(void *ctx, const char *path, int flags);
    long (*write)(void *ctx, int fd, const void *buf, size_t len);
    int (*fsync)(void *ctx, int fd);
    int (*ftruncate)(void *ctx, int fd, uint64_t len);
    int (*close)(void *ctx, int fd);
    int (*rename)(void *ctx, const char *from, const char *to);
    int (*unlink)(void *ctx, const char *path);
    int (*mkdir)(void *ctx, const char *path);
    int (*fsyncDir)(void *ctx, const char *path);
    long long (*size)(void *ctx, const char *path);
    /* Reads a whole file into *out, allocated with mem. */
    int (*readFile)(void *ctx, const char *path, gkMem *mem, sds *out);
    /* Lets the disk and the background threads catch up to now. */
    void (*catchUp)(void *ctx);
    /* The calling thread's clock (ns): where its calls have brought it.
     * A child learns from it when the fsync it asked for is done. */
    uint64_t (*now)(void *ctx);
    /* 0 if the process must stop here: it was killed, or the machine
     * lost power, at this point. */
    int (*alive)(void *ctx, int point);
    /* The process exits (exit(1) after a fatal error). */
    void (*exit)(void *ctx);
    /* The directory its paths are relative to, as Redis's logs name it
     * (getcwd(3)); NULL: ".", as on the simulated machine. */
    const char *(*root)(void *ctx);
} fsBackend;

static inline const char *fsRoot(const fsBackend *fs) {
    return fs->root ? fs->root(fs->ctx) : ".";
}

#endif
