/* disk.h -- the simulated disk of one machine: a file system with a page
 * cache in front of a device.
 *
 * Every file has two versions of its bytes. `data` is the page cache, what
 * read(2) returns and what write(2) changes at once. `durable` is what the
 * device holds, what is left after a power loss. write(2) only dirties the
 * page cache; the bytes reach the device when someone calls fsync(2) on
 * the file, or when the kernel's flusher writes back pages that have been
 * dirty for 30 s (Linux's dirty_expire_centisecs = 3000, checked every 5 s
 * by dirty_writeback_centisecs = 500). Directory entries (a new file, a
 * rename, an unlink) become durable when the directory is fsynced or when
 * the journal commits (every 5 s, ext4's default commit=5).
 *
 * The device is one queue: an fsync or a writeback waits for the requests
 * before it, then takes a seek, its bytes at the device's bandwidth and,
 * for fsync, a cache flush. While an fsync of a file is in flight, a
 * write(2) to the same file waits for it: this is why Redis postpones its
 * AOF writes while the background fsync runs.
 *
 * A process crash (kill -9) closes the process's descriptors and keeps
 * the page cache: the kernel still writes it back later. A power loss
 * throws away the page cache, the requests in flight and the directory
 * changes not yet committed.
 *
 * Nothing here knows the time by itself: every call that can change
 * state takes the time at which it happens, and diskAdvance lets the
 * device and the flusher catch up to a time. */
#ifndef GK_DISK_H
#define GK_DISK_H

#include <stdint.h>
#include "mem.h"
#include "sds.h"
#include "trace.h"

/* open(2) flags. */
#define DISK_O_RDONLY 0
#define DISK_O_WRONLY 1
#define DISK_O_CREAT 2
#define DISK_O_TRUNC 4
#define DISK_O_APPEND 8

/* Errors, as Linux numbers them; calls return them negated. */
#define DISK_ENOENT 2
#define DISK_EBADF 9
#define DISK_EACCES 13
#define DISK_EEXIST 17
#define DISK_EINVAL 22
#define DISK_ENOSPC 28

#define DISK_NAME_MAX 128       /* bytes of a path, NUL included */
#define DISK_PAGE 4096          /* the unit a torn write is cut at */
#define DISK_NEVER UINT64_MAX

#define DISK_WRITEBACK_EXPIRE_NS (30ULL * 1000000000ULL)
#define DISK_WRITEBACK_PERIOD_NS (5ULL * 1000000000ULL)
#define DISK_JOURNAL_PERIOD_NS (5ULL * 1000000000ULL)

/* How fast a kind of disk is. */
typedef struct diskPreset {
    const char *name;
    uint32_t write_ns;          /* write(2) into the page cache, fixed */
    uint32_t copy_ns_per_kb;    /* and per KB copied */
    uint64_t seek_ns;           /* per device request */
    uint64_t flush_ns;          /* the cache flush that ends an fsync */
    uint64_t bandwidth;         /* device bytes per second */
} diskPreset;

/* Bytes of a file that are dirty: [off, off + len), or, for a truncate
 * record, the file was cut to `off` bytes. */
typedef struct diskExtent {
    uint64_t off, len;
    int truncate;
} diskExtent;

typedef struct diskInode {
    int used;                   /* 0: a free slot */
    int nlink;                  /* names in the live directories */
    int nopen;                  /* open descriptors */
    int dlink;                  /* names in durable views (directories and
                                   directory syncs in flight) */
    int cold;                   /* not in the page cache (after a power
                                   loss): the first read goes to the device */
    sds data;                   /* the page cache: what read(2) sees */
    sds durable;                /* what survives a power loss */
    diskExtent *dirty;          /* not yet durable, in order */
    int ndirty, capdirty;
    uint64_t dirtied_when;      /* when the inode last went from clean to
                                   dirty (the flusher's clock for it) */
    uint64_t sync_until;        /* an fsync of it is in flight until then */
} diskInode;

typedef struct diskEntry {
    char name[DISK_NAME_MAX];   /* file name within the directory */
    int inode;
} diskEntry;

typedef struct diskDir {
    char path[DISK_NAME_MAX];   /* "" is the working directory */
    int readonly;               /* creating, renaming, unlinking: EACCES */
    diskEntry *live;            /* what the file system shows */
    int nlive, caplive;
    diskEntry *durable;         /* what a power loss leaves */
    int ndurable, capdurable;
    int meta_dirty;             /* live differs from durable */
} diskDir;

typedef struct diskFd {
    int inode;                  /* -1: a free slot */
    int flags;                  /* DISK_O_* */
    int owner;                  /* the process that opened it */
    uint64_t pos;
} diskFd;

#define DISK_OP_SYNC 0          /* fsync(2) of a file */
#define DISK_OP_WRITEBACK 1     /* the flusher writing back a file */
#define DISK_OP_DIRSYNC 2       /* fsync(2) of a directory */

/* A request in the device queue. Requests complete in queue order. */
typedef struct diskOp {
    int kind;                   /* DISK_OP_* */
    int target;                 /* inode, or directory for DIRSYNC */
    uint64_t start;             /* when the device begins its transfer */
    uint64_t done;              /* when it completes */
    uint64_t bytes;
    diskExtent *ext;            /* what it makes durable (owned) */
    int next;
    diskEntry *snap;            /* DIRSYNC: the entries it commits */
    int nsnap;
} diskOp;

typedef struct gkDisk {
    gkMem mem;                  /* file bytes: not the server's memory */
    diskPreset preset;
    uint64_t capacity;          /* bytes the file system can hold */
    uint64_t used;              /* bytes of file data in it */
    uint64_t now;               /* the disk has caught up to here */
    uint64_t device_free;       /* the device is busy until then */
    uint64_t next_flusher;      /* next writeback pass */
    uint64_t next_journal;      /* next journal commit */
    diskInode *inodes;
    int ninodes;
    diskDir *dirs;
    int ndirs;
    diskFd *fds;
    int nfds;
    diskOp *ops;                /* the device queue, oldest first */
    int nops, capops;
    uint64_t stat_written;      /* bytes written into the page cache */
    uint64_t stat_durable;      /* bytes made durable */
    uint64_t stat_syncs;        /* fsyncs completed */
    uint64_t stat_writebacks;   /* writebacks completed */
    gkTrace *trace;
    uint16_t node;
} gkDisk;

gkDisk *diskCreate(gkMem *parent, gkTrace *trace, uint16_t node);
void diskRelease(gkDisk *d);
int diskSetPreset(gkDisk *d, const char *name);
const char *diskPresetName(int i);
void diskSetFree(gkDisk *d, uint64_t free_bytes);
int diskSetReadOnly(gkDisk *d, const char *dir, int readonly);

void diskAdvance(gkDisk *d, uint64_t now);
uint64_t diskNextEvent(const gkDisk *d);

int diskMkdir(gkDisk *d, const char *path);
int diskOpen(gkDisk *d, const char *path, int flags, int owner,
             uint64_t now);
long diskWrite(gkDisk *d, int fd, const void *buf, size_t len,
               uint64_t now);
int diskFtruncate(gkDisk *d, int fd, uint64_t len, uint64_t now);
int diskClose(gkDisk *d, int fd);
uint64_t diskFsync(gkDisk *d, int fd, uint64_t now, int *err);
uint64_t diskFsyncDir(gkDisk *d, const char *path, uint64_t now, int *err);
int diskRename(gkDisk *d, const char *from, const char *to, uint64_t now);
int diskUnlink(gkDisk *d, const char *path, uint64_t now);
long long diskSize(gkDisk *d, const char *path);
long long diskFdSize(gkDisk *d, int fd);
int diskRead(gkDisk *d, const char *path, gkMem *mem, sds *out,
             uint64_t *cost_ns);
uint64_t diskSyncUntil(gkDisk *d, int fd);
int diskFdInode(gkDisk *d, int fd);
int diskFdSizes(gkDisk *d, int fd, uint64_t *size, uint64_t *durable);
diskDir *diskFindDir(gkDisk *d, const char *path);
diskInode *diskLookup(gkDisk *d, const char *path);

int diskWriteFile(gkDisk *d, const char *path, const void *buf,
                  size_t len, int owner, uint64_t now);
void diskCloseOwner(gkDisk *d, int owner);
void diskPowerLoss(gkDisk *d);

#endif
