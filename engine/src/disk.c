/* disk.c -- see disk.h. */
#include <string.h>
#include "disk.h"

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL

/* Rough figures for four kinds of disk. What matters for the lessons is
 * their order of magnitude: an fsync costs tens of microseconds on NVMe,
 * about a millisecond on a SATA SSD, a rotation and a seek on a spinning
 * disk, and on the "slow fsync" disk (a busy or throttled volume, a cloud
 * disk at its IOPS limit) longer than the two seconds Redis waits before
 * it stops postponing its AOF writes. */
static const diskPreset diskPresets[] = {
    { "nvme", 1500, 100, 10 * US, 40 * US, 2000000000ULL },
    { "ssd", 2000, 100, 80 * US, 1 * MS, 500000000ULL },
    { "hdd", 2000, 100, 8 * MS, 4 * MS, 150000000ULL },
    { "slow-fsync", 2000, 100, 80 * US, 3 * SEC, 100000000ULL },
    { NULL, 0, 0, 0, 0, 0 }
};

/* The name of preset i, or NULL past the last. */
const char *diskPresetName(int i) {
    int n = (int)(sizeof(diskPresets) / sizeof(diskPresets[0])) - 1;
    return i >= 0 && i < n ? diskPresets[i].name : NULL;
}

/* ---- Creation. ---- */

/* Adds an empty directory; the pointer is valid until the next add. */
static diskDir *_dirAdd(gkDisk *d, const char *path) {
    d->dirs = memRealloc(&d->mem, d->dirs,
                         sizeof(diskDir) * (size_t)(d->ndirs + 1));
    diskDir *dir = &d->dirs[d->ndirs++];
    memset(dir, 0, sizeof(*dir));
    strncpy(dir->path, path, DISK_NAME_MAX - 1);
    return dir;
}

/* Creates an empty disk (an SSD with 100 GB free) whose file bytes are
 * allocated with parent's allocator but counted apart from it. */
gkDisk *diskCreate(gkMem *parent, gkTrace *trace, uint16_t node) {
    gkMem m;
    memInit(&m, parent->fn, parent->ud);
    gkDisk *d = memCalloc(&m, sizeof(*d));
    d->mem = m;
    d->preset = diskPresets[1];
    d->capacity = 100ULL * 1024 * 1024 * 1024;
    d->next_flusher = DISK_WRITEBACK_PERIOD_NS;
    d->next_journal = DISK_JOURNAL_PERIOD_NS;
    d->trace = trace;
    d->node = node;
    _dirAdd(d, "");
    return d;
}

/* Frees an inode's bytes and gives its slot back. */
static void _inodeFree(gkDisk *d, diskInode *ino) {
    d->used -= sdslen(ino->data);
    sdsfree(&d->mem, ino->data);
    sdsfree(&d->mem, ino->durable);
    memFree(&d->mem, ino->dirty);
    memset(ino, 0, sizeof(*ino));
}

static void _inodeMaybeFree(gkDisk *d, int i);

/* Durable views hold their inodes: an unlinked file comes back after a
 * power loss if the unlink was never committed. */
static void _refEntries(gkDisk *d, diskEntry *e, int n, int delta) {
    for (int i = 0; i < n; i++) {
        d->inodes[e[i].inode].dlink += delta;
        if (delta < 0) _inodeMaybeFree(d, e[i].inode);
    }
}

/* Frees what a request owns (its extents, its snapshot). */
static void _opFree(gkDisk *d, diskOp *op) {
    memFree(&d->mem, op->ext);
    if (op->snap) _refEntries(d, op->snap, op->nsnap, -1);
    memFree(&d->mem, op->snap);
}

/* Frees the disk and every file on it. */
void diskRelease(gkDisk *d) {
    if (!d) return;
    for (int i = 0; i < d->ninodes; i++)
        if (d->inodes[i].used) _inodeFree(d, &d->inodes[i]);
    for (int i = 0; i < d->ndirs; i++) {
        memFree(&d->mem, d->dirs[i].live);
        memFree(&d->mem, d->dirs[i].durable);
    }
    for (int i = 0; i < d->nops; i++) _opFree(d, &d->ops[i]);
    memFree(&d->mem, d->ops);
    memFree(&d->mem, d->inodes);
    memFree(&d->mem, d->dirs);
    memFree(&d->mem, d->fds);
    gkMem m = d->mem;
    memFree(&m, d);
}

/* Switches to a preset by name. DISK_EINVAL (negated) if unknown. */
int diskSetPreset(gkDisk *d, const char *name) {
    for (int i = 0; diskPresets[i].name; i++) {
        if (strcmp(diskPresets[i].name, name)) continue;
        d->preset = diskPresets[i];
        return 0;
    }
    return -DISK_EINVAL;
}

/* Leaves exactly free_bytes free: a scenario's "disk full". */
void diskSetFree(gkDisk *d, uint64_t free_bytes) {
    d->capacity = d->used + free_bytes;
}

/* Makes a directory read-only (or writable again), creating it if it
 * does not exist yet. */
int diskSetReadOnly(gkDisk *d, const char *dir, int readonly) {
    diskDir *dd = diskFindDir(d, dir);
    if (!dd) dd = _dirAdd(d, dir);
    dd->readonly = readonly;
    return 0;
}

/* ---- Paths. ---- */

/* The directory with this path, or NULL. */
diskDir *diskFindDir(gkDisk *d, const char *path) {
    for (int i = 0; i < d->ndirs; i++)
        if (!strcmp(d->dirs[i].path, path)) return &d->dirs[i];
    return NULL;
}

/* Splits "dir/name" (or "name", in the working directory). Returns the
 * directory, or NULL if it does not exist; *name points into path. */
static diskDir *_splitPath(gkDisk *d, const char *path, const char **name) {
    const char *slash = strrchr(path, '/');
    char dir[DISK_NAME_MAX];
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= DISK_NAME_MAX) return NULL;
    memcpy(dir, path, n);
    dir[n] = '\0';
    *name = slash ? slash + 1 : path;
    if (strlen(*name) >= DISK_NAME_MAX || !**name) return NULL;
    return diskFindDir(d, dir);
}

/* The entry named name in list, or NULL. */
static diskEntry *_entryFind(diskEntry *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i].name, name)) return &list[i];
    return NULL;
}

/* Links name to inode in the live view of dir. */
static void _entryAdd(gkDisk *d, diskDir *dir, const char *name, int inode) {
    if (dir->nlive == dir->caplive) {
        dir->caplive = dir->caplive ? dir->caplive * 2 : 8;
        dir->live = memRealloc(&d->mem, dir->live,
                               sizeof(diskEntry) * (size_t)dir->caplive);
    }
    diskEntry *e = &dir->live[dir->nlive++];
    memset(e, 0, sizeof(*e));
    strncpy(e->name, name, DISK_NAME_MAX - 1);
    e->inode = inode;
    dir->meta_dirty = 1;
}

/* Unlinks an entry of the live view (order is not kept). */
static void _entryRemove(diskDir *dir, diskEntry *e) {
    *e = dir->live[--dir->nlive];
    dir->meta_dirty = 1;
}

/* The inode a path names in the live view, or NULL. */
diskInode *diskLookup(gkDisk *d, const char *path) {
    const char *name;
    diskDir *dir = _splitPath(d, path, &name);
    if (!dir) return NULL;
    diskEntry *e = _entryFind(dir->live, dir->nlive, name);
    return e ? &d->inodes[e->inode] : NULL;
}

/* Creates a directory (durable at once: the lessons never lose one). */
int diskMkdir(gkDisk *d, const char *path) {
    if (diskFindDir(d, path)) return -DISK_EEXIST;
    if (strlen(path) >= DISK_NAME_MAX) return -DISK_EINVAL;
    _dirAdd(d, path);
    return 0;
}

/* ---- Inodes and descriptors. ---- */

/* A new empty inode (no links yet); returns its index. */
static int _inodeNew(gkDisk *d) {
    int i;
    for (i = 0; i < d->ninodes; i++) if (!d->inodes[i].used) break;
    if (i == d->ninodes) {
        d->inodes = memRealloc(&d->mem, d->inodes,
                               sizeof(diskInode) * (size_t)(d->ninodes + 1));
        d->ninodes++;
    }
    diskInode *ino = &d->inodes[i];
    memset(ino, 0, sizeof(*ino));
    ino->used = 1;
    ino->data = sdsempty(&d->mem);
    ino->durable = sdsempty(&d->mem);
    return i;
}

/* Frees an inode nobody names or holds open any more. */
static void _inodeMaybeFree(gkDisk *d, int i) {
    diskInode *ino = &d->inodes[i];
    if (ino->used && ino->nlink == 0 && ino->nopen == 0 &&
        ino->dlink == 0 && ino->sync_until == 0) _inodeFree(d, ino);
}

/* A descriptor on inode for owner; returns its number. */
static int _fdNew(gkDisk *d, int inode, int flags, int owner) {
    int i;
    for (i = 0; i < d->nfds; i++) if (d->fds[i].inode < 0) break;
    if (i == d->nfds) {
        d->fds = memRealloc(&d->mem, d->fds,
                            sizeof(diskFd) * (size_t)(d->nfds + 1));
        d->nfds++;
    }
    d->fds[i].inode = inode;
    d->fds[i].flags = flags;
    d->fds[i].owner = owner;
    d->fds[i].pos = 0;
    d->inodes[inode].nopen++;
    return i;
}

/* The open descriptor fd, or NULL. */
static diskFd *_fd(gkDisk *d, int fd) {
    if (fd < 0 || fd >= d->nfds || d->fds[fd].inode < 0) return NULL;
    return &d->fds[fd];
}

/* The inode an open descriptor refers to, or -1. */
int diskFdInode(gkDisk *d, int fd) {
    diskFd *f = _fd(d, fd);
    return f ? f->inode : -1;
}

/* The bytes of fd's file in the page cache (*size) and on the device
 * (*durable). 0, or -DISK_EBADF if fd is not open. */
int diskFdSizes(gkDisk *d, int fd, uint64_t *size, uint64_t *durable) {
    diskFd *f = _fd(d, fd);
    if (!f) return -DISK_EBADF;
    *size = sdslen(d->inodes[f->inode].data);
    *durable = sdslen(d->inodes[f->inode].durable);
    return 0;
}

/* ---- Dirty extents. ---- */

/* Records bytes [off, off+len) as dirty, merging with the last extent
 * when they follow it (an append-only file stays one extent). */
static void _dirty(gkDisk *d, diskInode *ino, uint64_t off, uint64_t len,
                   int truncate, uint64_t now) {
    if (ino->ndirty == 0) ino->dirtied_when = now;
    diskExtent *last = ino->ndirty ? &ino->dirty[ino->ndirty - 1] : NULL;
    if (last && !truncate && !last->truncate &&
        last->off + last->len == off) {
        last->len += len;
        return;
    }
    if (ino->ndirty == ino->capdirty) {
        ino->capdirty = ino->capdirty ? ino->capdirty * 2 : 4;
        ino->dirty = memRealloc(&d->mem, ino->dirty, sizeof(diskExtent) *
                                (size_t)ino->capdirty);
    }
    diskExtent *e = &ino->dirty[ino->ndirty++];
    e->off = off;
    e->len = len;
    e->truncate = truncate;
}

/* Copies the bytes an extent names from the page cache to the device. */
static void _applyExtent(gkDisk *d, diskInode *ino, const diskExtent *e) {
    if (e->truncate) {
        if (sdslen(ino->durable) > e->off)
            sdsrange(ino->durable, 0, (long)e->off - 1);
        if (e->off == 0) sdsclear(ino->durable);
        return;
    }
    uint64_t end = e->off + e->len, have = sdslen(ino->data);
    if (end > have) end = have;
    if (e->off >= end) return;
    size_t dl = sdslen(ino->durable);
    if (dl < end) {
        ino->durable = sdsMakeRoomFor(&d->mem, ino->durable, end - dl);
        memset(ino->durable + dl, 0, end - dl);
        sdsIncrLen(ino->durable, end - dl);
    }
    memcpy(ino->durable + e->off, ino->data + e->off, end - e->off);
    d->stat_durable += end - e->off;
}

/* The bytes n extents cover. */
static uint64_t _extentBytes(const diskExtent *e, int n) {
    uint64_t b = 0;
    for (int i = 0; i < n; i++) b += e[i].len;
    return b;
}

/* ---- The device queue. ---- */

/* Queues a request starting no earlier than `now`; returns its
 * completion time. */
static diskOp *_opQueue(gkDisk *d, int kind, int target, uint64_t bytes,
                        uint64_t now) {
    if (d->nops == d->capops) {
        d->capops = d->capops ? d->capops * 2 : 8;
        d->ops = memRealloc(&d->mem, d->ops,
                            sizeof(diskOp) * (size_t)d->capops);
    }
    diskOp *op = &d->ops[d->nops++];
    memset(op, 0, sizeof(*op));
    uint64_t start = d->device_free > now ? d->device_free : now;
    uint64_t dur = d->preset.seek_ns +
                   bytes * 1000000000ULL / d->preset.bandwidth;
    if (kind != DISK_OP_WRITEBACK) dur += d->preset.flush_ns;
    op->kind = kind;
    op->target = target;
    op->bytes = bytes;
    op->start = start + d->preset.seek_ns;
    op->done = start + dur;
    d->device_free = op->done;
    return op;
}

/* Moves the inode's dirty extents into a request of the given kind. */
static diskOp *_opTakeDirty(gkDisk *d, int kind, int i, uint64_t now) {
    diskInode *ino = &d->inodes[i];
    diskOp *op = _opQueue(d, kind, i, _extentBytes(ino->dirty, ino->ndirty),
                          now);
    op->ext = ino->dirty;
    op->next = ino->ndirty;
    ino->dirty = NULL;
    ino->ndirty = ino->capdirty = 0;
    if (op->done > ino->sync_until) ino->sync_until = op->done;
    return op;
}

/* A counted copy of n entries. */
static diskEntry *_copyEntries(gkDisk *d, const diskEntry *e, int n) {
    diskEntry *s = memAlloc(&d->mem, sizeof(diskEntry) * (size_t)(n + 1));
    if (n) memcpy(s, e, sizeof(diskEntry) * (size_t)n);
    _refEntries(d, s, n, 1);
    return s;
}

/* Makes snap the directory's durable view. */
static void _commitDir(gkDisk *d, diskDir *dir, diskEntry *snap, int n) {
    diskEntry *old = dir->durable;
    int nold = dir->ndurable;
    dir->durable = _copyEntries(d, snap, n);
    dir->ndurable = n;
    dir->capdurable = n + 1;
    if (old) _refEntries(d, old, nold, -1);
    memFree(&d->mem, old);
}

/* A counted copy of the live view of dir. */
static diskEntry *_snapshotDir(gkDisk *d, diskDir *dir) {
    return _copyEntries(d, dir->live, dir->nlive);
}

/* Completes the oldest request. */
static void _opComplete(gkDisk *d) {
    diskOp op = d->ops[0];
    memmove(d->ops, d->ops + 1, sizeof(diskOp) * (size_t)(d->nops - 1));
    d->nops--;
    if (op.kind == DISK_OP_DIRSYNC) {
        _commitDir(d, &d->dirs[op.target], op.snap, op.nsnap);
    } else {
        diskInode *ino = &d->inodes[op.target];
        for (int i = 0; i < op.next; i++) _applyExtent(d, ino, &op.ext[i]);
        if (ino->sync_until <= op.done) ino->sync_until = 0;
        if (op.kind == DISK_OP_SYNC) d->stat_syncs++;
        else d->stat_writebacks++;
        int ev = op.kind == DISK_OP_SYNC ? GK_DISK_SYNCED
                                         : GK_DISK_WRITTEN_BACK;
        TRACE_AT(d->trace, op.done, GK_TR_DISK, d->node, (uint32_t)ev,
                 (uint32_t)op.target, (uint32_t)op.bytes,
                 sdslen(ino->durable));
        _inodeMaybeFree(d, op.target);
    }
    _opFree(d, &op);
}

/* The flusher: inodes dirty for 30 s or more are written back. */
static void _flusherPass(gkDisk *d, uint64_t now) {
    for (int i = 0; i < d->ninodes; i++) {
        diskInode *ino = &d->inodes[i];
        if (!ino->used || ino->ndirty == 0) continue;
        if (ino->dirtied_when + DISK_WRITEBACK_EXPIRE_NS > now) continue;
        _opTakeDirty(d, DISK_OP_WRITEBACK, i, now);
    }
}

/* The journal: directory changes older than a commit interval. */
static void _journalCommit(gkDisk *d) {
    for (int i = 0; i < d->ndirs; i++) {
        diskDir *dir = &d->dirs[i];
        if (!dir->meta_dirty) continue;
        _commitDir(d, dir, dir->live, dir->nlive);
        dir->meta_dirty = 0;
    }
}

/* When something happens next by itself: a request completes, the
 * flusher or the journal wakes up. */
uint64_t diskNextEvent(const gkDisk *d) {
    uint64_t t = DISK_NEVER;
    for (int i = 0; i < d->ninodes && t == DISK_NEVER; i++)
        if (d->inodes[i].used && d->inodes[i].ndirty) t = d->next_flusher;
    for (int i = 0; i < d->ndirs; i++)
        if (d->dirs[i].meta_dirty && d->next_journal < t)
            t = d->next_journal;
    if (d->nops && d->ops[0].done < t) t = d->ops[0].done;
    return t;
}

/* The flusher and the journal tick every 5 s whether or not there is
 * work; ticks with nothing to do are skipped, keeping the phase. */
static uint64_t _realign(uint64_t next, uint64_t now, uint64_t period) {
    return next > now ? next : (now / period + 1) * period;
}

/* Lets the device, the flusher and the journal catch up to `now`, in
 * time order. Time never goes back: an earlier `now` does nothing. */
void diskAdvance(gkDisk *d, uint64_t now) {
    for (;;) {
        uint64_t t = diskNextEvent(d);
        if (t > now) break;
        if (d->nops && d->ops[0].done == t) {
            _opComplete(d);
        } else if (d->next_flusher == t) {
            _flusherPass(d, t);
            d->next_flusher += DISK_WRITEBACK_PERIOD_NS;
        } else {
            _journalCommit(d);
            d->next_journal += DISK_JOURNAL_PERIOD_NS;
        }
    }
    if (now > d->now) d->now = now;
    d->next_flusher = _realign(d->next_flusher, d->now,
                               DISK_WRITEBACK_PERIOD_NS);
    d->next_journal = _realign(d->next_journal, d->now,
                               DISK_JOURNAL_PERIOD_NS);
}

/* ---- System calls. ---- */

/* open(2). Returns a descriptor, or a negated DISK_E* error. */
int diskOpen(gkDisk *d, const char *path, int flags, int owner,
             uint64_t now) {
    const char *name;
    diskDir *dir = _splitPath(d, path, &name);
    if (!dir) return -DISK_ENOENT;
    diskEntry *e = _entryFind(dir->live, dir->nlive, name);
    int inode;
    if (!e) {
        if (!(flags & DISK_O_CREAT)) return -DISK_ENOENT;
        if (dir->readonly) return -DISK_EACCES;
        inode = _inodeNew(d);
        d->inodes[inode].nlink = 1;
        _entryAdd(d, dir, name, inode);
    } else {
        inode = e->inode;
        diskInode *ino = &d->inodes[inode];
        if ((flags & DISK_O_TRUNC) && sdslen(ino->data)) {
            d->used -= sdslen(ino->data);
            sdsclear(ino->data);
            _dirty(d, ino, 0, 0, 1, now);
        }
    }
    return _fdNew(d, inode, flags, owner);
}

/* write(2) at the descriptor's position (at the end with O_APPEND). Only
 * the page cache changes. When the file system is nearly full the write
 * is short; when it is full it fails with ENOSPC. */
long diskWrite(gkDisk *d, int fd, const void *buf, size_t len,
               uint64_t now) {
    diskFd *f = _fd(d, fd);
    if (!f || !(f->flags & DISK_O_WRONLY)) return -DISK_EBADF;
    diskInode *ino = &d->inodes[f->inode];
    if (f->flags & DISK_O_APPEND) f->pos = sdslen(ino->data);
    uint64_t end = f->pos + len, size = sdslen(ino->data);
    uint64_t grow = end > size ? end - size : 0;
    uint64_t room = d->capacity > d->used ? d->capacity - d->used : 0;
    if (grow > room) {
        if (room == 0 || f->pos >= size + room) return -DISK_ENOSPC;
        len = (size_t)(size + room - f->pos);
        end = f->pos + len;
        grow = end > size ? end - size : 0;
    }
    if (len == 0) return 0;
    if (grow) {
        sds n = sdsTryMakeRoomFor(&d->mem, ino->data, grow);
        if (!n) return -DISK_ENOSPC;
        ino->data = n;
        memset(ino->data + size, 0, grow);
        sdsIncrLen(ino->data, grow);
        d->used += grow;
    }
    memcpy(ino->data + f->pos, buf, len);
    _dirty(d, ino, f->pos, len, 0, now);
    f->pos = end;
    d->stat_written += len;
    return (long)len;
}

/* ftruncate(2): cuts (or extends with zeros) the file. */
int diskFtruncate(gkDisk *d, int fd, uint64_t len, uint64_t now) {
    diskFd *f = _fd(d, fd);
    if (!f || !(f->flags & DISK_O_WRONLY)) return -DISK_EINVAL;
    diskInode *ino = &d->inodes[f->inode];
    uint64_t size = sdslen(ino->data);
    if (len < size) {
        if (len == 0) sdsclear(ino->data);
        else sdsrange(ino->data, 0, (long)len - 1);
        d->used -= size - len;
        _dirty(d, ino, len, 0, 1, now);
    } else if (len > size) {
        ino->data = sdsMakeRoomFor(&d->mem, ino->data, len - size);
        memset(ino->data + size, 0, len - size);
        sdsIncrLen(ino->data, len - size);
        d->used += len - size;
        _dirty(d, ino, size, len - size, 0, now);
    }
    return 0;
}

/* close(2): 0, or -DISK_EBADF. The file goes when unnamed and
 * unopened. */
int diskClose(gkDisk *d, int fd) {
    diskFd *f = _fd(d, fd);
    if (!f) return -DISK_EBADF;
    int inode = f->inode;
    f->inode = -1;
    d->inodes[inode].nopen--;
    _inodeMaybeFree(d, inode);
    return 0;
}

/* fsync(2) (fdatasync: the data and the size). The request joins the
 * device queue at `now`; returns when it completes, which is when the
 * caller's fsync returns. */
uint64_t diskFsync(gkDisk *d, int fd, uint64_t now, int *err) {
    diskFd *f = _fd(d, fd);
    *err = 0;
    if (!f) { *err = DISK_EBADF; return now; }
    diskInode *ino = &d->inodes[f->inode];
    if (ino->ndirty == 0) {
        /* Nothing dirty: it still waits for a sync already in flight. */
        return ino->sync_until > now ? ino->sync_until : now;
    }
    return _opTakeDirty(d, DISK_OP_SYNC, f->inode, now)->done;
}

/* fsync(2) of a directory: its entries as they are now become durable. */
uint64_t diskFsyncDir(gkDisk *d, const char *path, uint64_t now, int *err) {
    diskDir *dir = diskFindDir(d, path);
    *err = 0;
    if (!dir) { *err = DISK_ENOENT; return now; }
    diskOp *op = _opQueue(d, DISK_OP_DIRSYNC, (int)(dir - d->dirs), 0, now);
    op->snap = _snapshotDir(d, dir);
    op->nsnap = dir->nlive;
    dir->meta_dirty = 0;
    return op->done;
}

/* rename(2): replaces `to` if it exists. */
int diskRename(gkDisk *d, const char *from, const char *to, uint64_t now) {
    const char *fn, *tn;
    diskDir *fd = _splitPath(d, from, &fn), *td = _splitPath(d, to, &tn);
    if (!fd || !td) return -DISK_ENOENT;
    diskEntry *fe = _entryFind(fd->live, fd->nlive, fn);
    if (!fe) return -DISK_ENOENT;
    if (fd->readonly || td->readonly) return -DISK_EACCES;
    int inode = fe->inode;
    if (fd == td && !strcmp(fn, tn)) return 0;
    _entryRemove(fd, fe);
    diskEntry *te = _entryFind(td->live, td->nlive, tn);
    if (te) {
        int old = te->inode;
        te->inode = inode;
        td->meta_dirty = 1;
        d->inodes[old].nlink--;
        _inodeMaybeFree(d, old);
    } else {
        _entryAdd(d, td, tn, inode);
    }
    return 0;
}

/* unlink(2): the bytes go when the last descriptor is closed. */
int diskUnlink(gkDisk *d, const char *path, uint64_t now) {
    const char *name;
    diskDir *dir = _splitPath(d, path, &name);
    if (!dir) return -DISK_ENOENT;
    diskEntry *e = _entryFind(dir->live, dir->nlive, name);
    if (!e) return -DISK_ENOENT;
    if (dir->readonly) return -DISK_EACCES;
    int inode = e->inode;
    _entryRemove(dir, e);
    d->inodes[inode].nlink--;
    _inodeMaybeFree(d, inode);
    return 0;
}

/* The size of a file, or -1 if it does not exist. */
long long diskSize(gkDisk *d, const char *path) {
    diskInode *ino = diskLookup(d, path);
    return ino ? (long long)sdslen(ino->data) : -1;
}

/* The size of the file behind a descriptor, or -1. */
long long diskFdSize(gkDisk *d, int fd) {
    diskFd *f = _fd(d, fd);
    return f ? (long long)sdslen(d->inodes[f->inode].data) : -1;
}

/* Reads a whole file into a new sds allocated with mem. *cost_ns gets
 * the device time when the file was not in the page cache. Returns 0 or
 * a negated error. */
int diskRead(gkDisk *d, const char *path, gkMem *mem, sds *out,
             uint64_t *cost_ns) {
    diskInode *ino = diskLookup(d, path);
    *cost_ns = 0;
    if (!ino) return -DISK_ENOENT;
    sds s = sdsTryNewlen(mem, ino->data, sdslen(ino->data));
    if (!s) return -DISK_ENOSPC;
    if (ino->cold) {
        *cost_ns = d->preset.seek_ns + sdslen(ino->data) * 1000000000ULL /
                                       d->preset.bandwidth;
        ino->cold = 0;
    }
    *out = s;
    return 0;
}

/* When the fsync in flight on the descriptor's file completes (0: none).
 * A write(2) to the file waits until then. */
uint64_t diskSyncUntil(gkDisk *d, int fd) {
    diskFd *f = _fd(d, fd);
    return f ? d->inodes[f->inode].sync_until : 0;
}

/* Creates (or replaces) a file with the given bytes, already durable: a
 * scenario's prepared file, an imported directory. */
int diskWriteFile(gkDisk *d, const char *path, const void *buf,
                  size_t len, int owner, uint64_t now) {
    int fd = diskOpen(d, path, DISK_O_WRONLY | DISK_O_CREAT | DISK_O_TRUNC,
                      owner, now);
    if (fd < 0) return fd;
    long n = len ? diskWrite(d, fd, buf, len, now) : 0;
    diskInode *ino = &d->inodes[d->fds[fd].inode];
    for (int i = 0; i < ino->ndirty; i++) _applyExtent(d, ino, &ino->dirty[i]);
    ino->ndirty = 0;
    diskClose(d, fd);
    const char *name;
    diskDir *dir = _splitPath(d, path, &name);
    _commitDir(d, dir, dir->live, dir->nlive);
    dir->meta_dirty = 0;
    return n == (long)len ? 0 : -DISK_ENOSPC;
}

/* ---- Crashes. ---- */

/* After a power loss a file holds its durable bytes, none of them cached;
 * a file no durable directory names is gone. */
static void _powerLossInode(gkDisk *d, int i) {
    diskInode *ino = &d->inodes[i];
    if (!ino->used) return;
    if (ino->nlink == 0) { _inodeMaybeFree(d, i); return; }
    d->used -= sdslen(ino->data);
    sdsfree(&d->mem, ino->data);
    ino->data = sdsdup(&d->mem, ino->durable);
    d->used += sdslen(ino->data);
    memFree(&d->mem, ino->dirty);
    ino->dirty = NULL;
    ino->ndirty = ino->capdirty = 0;
    ino->cold = 1;
}

/* The process `owner` died: its descriptors are closed by the kernel. */
void diskCloseOwner(gkDisk *d, int owner) {
    for (int i = 0; i < d->nfds; i++)
        if (d->fds[i].inode >= 0 && d->fds[i].owner == owner)
            diskClose(d, i);
}

/* The writeback the device was in the middle of when the power went:
 * the pages it had already transferred are on the medium, the rest is
 * not, so a file can end in the middle of what its writer wrote (a torn
 * write). An fsync is all or nothing: its data sits in the device's
 * volatile cache until the cache flush that ends it. */
static void _tornWrite(gkDisk *d, diskOp *op) {
    if (op->kind != DISK_OP_WRITEBACK || d->now <= op->start) return;
    uint64_t bytes = (d->now - op->start) * d->preset.bandwidth /
                     1000000000ULL;
    diskInode *ino = &d->inodes[op->target];
    for (int i = 0; i < op->next && bytes; i++) {
        diskExtent e = op->ext[i];
        if (!e.truncate && e.len <= bytes) {
            bytes -= e.len;
        } else if (!e.truncate) {
            uint64_t end = (e.off + bytes) / DISK_PAGE * DISK_PAGE;
            if (end <= e.off) break;
            e.len = end - e.off;
            bytes = 0;
        }
        _applyExtent(d, ino, &e);
    }
}

/* Power loss: only the durable state is left. Requests in flight never
 * complete (but a writeback may be torn), directories revert to their
 * last commit, and every file's bytes are what the device holds. */
void diskPowerLoss(gkDisk *d) {
    if (d->nops) _tornWrite(d, &d->ops[0]);
    for (int i = 0; i < d->nops; i++) _opFree(d, &d->ops[i]);
    d->nops = 0;
    d->device_free = d->now;
    for (int i = 0; i < d->nfds; i++) d->fds[i].inode = -1;
    for (int i = 0; i < d->ninodes; i++) {
        d->inodes[i].nlink = d->inodes[i].nopen = 0;
        d->inodes[i].sync_until = 0;
    }
    for (int i = 0; i < d->ndirs; i++) {
        diskDir *dir = &d->dirs[i];
        dir->live = memRealloc(&d->mem, dir->live, sizeof(diskEntry) *
                               (size_t)(dir->ndurable + 1));
        if (dir->ndurable)
            memcpy(dir->live, dir->durable,
                   sizeof(diskEntry) * (size_t)dir->ndurable);
        dir->nlive = dir->ndurable;
        dir->caplive = dir->ndurable + 1;
        dir->meta_dirty = 0;
        for (int k = 0; k < dir->nlive; k++)
            d->inodes[dir->live[k].inode].nlink++;
    }
    for (int i = 0; i < d->ninodes; i++) _powerLossInode(d, i);
}
