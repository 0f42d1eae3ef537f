/* fs_posix.h -- the file backend on a real directory: the same calls the
 * simulated machine answers (fs.h), made as POSIX system calls.
 *
 * Paths are relative to the directory given at creation (Redis's `dir`),
 * which is reached through a descriptor, so the process never changes
 * its working directory. Errors are returned as negated errno values,
 * which on Linux are the numbers fs.h names. fsync is fdatasync(2), as
 * Redis's redis_fsync is on Linux. The backend's clock is the host's, and
 * a call takes the real time it takes. exit(1) after a fatal error is
 * the host's to carry out: the backend only records it. */
#ifndef GK_FS_POSIX_H
#define GK_FS_POSIX_H

#include <stdint.h>
#include "fs.h"

typedef uint64_t fsPosixClock(void *ctx);

typedef struct fsPosix fsPosix;

fsPosix *fsPosixCreate(const char *dir, fsPosixClock *clock, void *clock_ctx);
void fsPosixRelease(fsPosix *p);
fsBackend fsPosixBackend(fsPosix *p);
int fsPosixExited(const fsPosix *p);

#endif
