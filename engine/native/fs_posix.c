/* fs_posix.c -- see fs_posix.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fs_posix.h"

struct fsPosix {
    int dirfd;                  /* the directory paths are relative to */
    fsPosixClock *clock;
    void *clock_ctx;
    int exited;                 /* the process called exit */
    char root[4096];            /* the directory's absolute path */
};

/* A backend on dir (which must exist), reading time from clock. NULL,
 * with errno set, if dir cannot be opened or memory is short. The caller
 * releases it with fsPosixRelease. */
fsPosix *fsPosixCreate(const char *dir, fsPosixClock *clock,
                       void *clock_ctx) {
    fsPosix *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    if (!realpath(dir, p->root)) snprintf(p->root, sizeof(p->root), "%s", dir);
    p->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->dirfd < 0) {
        free(p);
        return NULL;
    }
    p->clock = clock;
    p->clock_ctx = clock_ctx;
    return p;
}

/* Frees the backend. Descriptors opened through it stay open: they are
 * the process's, and the process outlives this. */
void fsPosixRelease(fsPosix *p) {
    if (!p) return;
    close(p->dirfd);
    free(p);
}

int fsPosixExited(const fsPosix *p) { return p->exited; }

/* -errno of the last failed call. */
static int _err(void) { return -errno; }

static int _open(void *ctx, const char *path, int flags) {
    fsPosix *p = ctx;
    int f = O_CLOEXEC;
    f |= (flags & FS_O_WRONLY) ? O_WRONLY : O_RDONLY;
    if (flags & FS_O_CREAT) f |= O_CREAT;
    if (flags & FS_O_TRUNC) f |= O_TRUNC;
    if (flags & FS_O_APPEND) f |= O_APPEND;
    int fd;
    do fd = openat(p->dirfd, path, f, 0644);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? _err() : fd;
}

/* One write(2): a short count is the caller's to handle, as it is in
 * Redis's aofWrite loop. */
static long _write(void *ctx, int fd, const void *buf, size_t len) {
    ssize_t n;
    do n = write(fd, buf, len);
    while (n < 0 && errno == EINTR);
    return n < 0 ? _err() : (long)n;
}

static int _fsync(void *ctx, int fd) {
    return fdatasync(fd) < 0 ? _err() : 0;
}

static int _ftruncate(void *ctx, int fd, uint64_t len) {
    return ftruncate(fd, (off_t)len) < 0 ? _err() : 0;
}

static int _close(void *ctx, int fd) {
    return close(fd) < 0 ? _err() : 0;
}

static int _rename(void *ctx, const char *from, const char *to) {
    fsPosix *p = ctx;
    return renameat(p->dirfd, from, p->dirfd, to) < 0 ? _err() : 0;
}

static int _unlink(void *ctx, const char *path) {
    fsPosix *p = ctx;
    return unlinkat(p->dirfd, path, 0) < 0 ? _err() : 0;
}

static int _mkdir(void *ctx, const char *path) {
    fsPosix *p = ctx;
    return mkdirat(p->dirfd, path, 0755) < 0 ? _err() : 0;
}

/* fsync(2) of a directory, which makes its entries (a rename, a new
 * file) durable. */
static int _fsyncDir(void *ctx, const char *path) {
    fsPosix *p = ctx;
    /* "" is the server's directory, as on the simulated disk. */
    int fd = openat(p->dirfd, *path ? path : ".",
                    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return _err();
    int r = fsync(fd) < 0 ? _err() : 0;
    close(fd);
    return r;
}

static long long _size(void *ctx, const char *path) {
    fsPosix *p = ctx;
    struct stat st;
    if (fstatat(p->dirfd, path, &st, 0) < 0) return -1;
    return (long long)st.st_size;
}

/* Reads the file into a new sds from mem: 0, or -errno (and *out
 * untouched). */
static int _readFile(void *ctx, const char *path, gkMem *mem, sds *out) {
    fsPosix *p = ctx;
    struct stat st;
    int fd = openat(p->dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return _err();
    if (fstat(fd, &st) < 0) {
        int r = _err();
        close(fd);
        return r;
    }
    sds data = sdsnewlen(mem, NULL, (size_t)st.st_size);
    size_t got = 0;
    while (got < sdslen(data)) {
        ssize_t n = read(fd, data + got, sdslen(data) - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    int r = got < sdslen(data) ? -EIO : 0;
    close(fd);
    if (r < 0) {
        sdsfree(mem, data);
        return r;
    }
    *out = data;
    return 0;
}

/* The kernel is always caught up with itself. */
static void _catchUp(void *ctx) { (void)ctx; }

static uint64_t _now(void *ctx) {
    fsPosix *p = ctx;
    return p->clock(p->clock_ctx);
}

static int _alive(void *ctx, int point) {
    (void)point;
    return !((fsPosix *)ctx)->exited;
}

static void _exit1(void *ctx) { ((fsPosix *)ctx)->exited = 1; }

static const char *_root(void *ctx) { return ((fsPosix *)ctx)->root; }

/* The backend over p, for a main thread or a child alike. */
fsBackend fsPosixBackend(fsPosix *p) {
    fsBackend fs = { .ctx = p, .open = _open, .write = _write,
                     .fsync = _fsync, .ftruncate = _ftruncate,
                     .close = _close, .rename = _rename, .unlink = _unlink,
                     .mkdir = _mkdir, .fsyncDir = _fsyncDir, .size = _size,
                     .readFile = _readFile, .catchUp = _catchUp, .now = _now,
                     .alive = _alive, .exit = _exit1, .root = _root };
    return fs;
}
