/* machine.c -- the machine under a Redis-style node: its disk, the system
 * calls its process makes on it, the work that goes on while the process
 * sleeps (the device, the kernel's flusher, the bio threads, a forked
 * child), and what a crash leaves behind.
 *
 * The disk belongs to the machine and outlives the process. When the
 * process is killed (kill -9) its threads and its memory are gone, but
 * the kernel keeps the page cache and writes it back as usual. When the
 * machine loses power, the page cache is gone too. Either way the node
 * stays down until it is restarted; the restart starts a new process
 * with the startup configuration, which reads the AOF back from the disk.
 *
 * Time: the machine's background actors only ever act at their own
 * times, in time order. machineAdvance lets them all catch up to a time,
 * and the world runs it when the main thread makes a system call (at the
 * thread's local time) and at EV_MACHINE events (when the process
 * sleeps), so the disk is never asked about a moment it has not reached
 * yet. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include "world.h"
#include "aofhist.h"
#include "recovery.h"
#include "script.h"

/* When the process's bio threads next act (none if down). */
static uint64_t _jobsNext(gkNode *n) {
    if (n->down || !n->impl) return DISK_NEVER;
    return simJobsNext(&n->jobs);
}

/* When the process's forked child next acts (none if down). */
static uint64_t _childNext(gkNode *n) {
    if (n->down || !n->impl || !n->type->childNext) return DISK_NEVER;
    return n->type->childNext(n->impl);
}

/* When the process's background work next acts: the earlier of its
 * threads and its child. */
static uint64_t _threadsNext(gkNode *n) {
    uint64_t tj = _jobsNext(n), tc = _childNext(n);
    return tj < tc ? tj : tc;
}

/* Lets the disk, the process's bio threads and its child act, in time
 * order (and in that order when they act at the same time), up to t. */
void machineAdvance(gkWorld *w, int id, uint64_t t) {
    gkNode *n = &w->nodes[id];
    if (!n->disk) return;
    for (;;) {
        uint64_t td = diskNextEvent(n->disk), tj = _jobsNext(n);
        uint64_t tc = _childNext(n), tp = tj < tc ? tj : tc;
        uint64_t next = td < tp ? td : tp;
        if (next > t) break;
        if (td <= tp) {
            diskAdvance(n->disk, td);
        } else if (tj <= tc) {
            simJobsRun(&n->jobs, tj);
        } else {
            n->child_at = tc;
            n->type->childRun(n->impl, tc);
        }
    }
    diskAdvance(n->disk, t);
}

/* Makes sure the world wakes the machine when it next has something to
 * do by itself. */
void machineSchedule(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    if (!n->disk) return;
    uint64_t td = diskNextEvent(n->disk), tp = _threadsNext(n);
    uint64_t next = td < tp ? td : tp;
    if (next == DISK_NEVER) return;
    if (next < w->now) next = w->now;
    if (n->machine_seq && n->machine_at <= next && n->machine_at >= w->now)
        return;
    worldSchedule(w, EV_MACHINE, id, next);
    n->machine_seq = w->evseq;
    n->machine_at = next;
}

/* ---- The file backend of the node's main thread. ---- */

static void _charge(gkNode *n, uint64_t ns) { *n->cpu += ns; }

static int _owner(gkNode *n) { return n->id * 1000 + n->generation; }

/* Looks at the trace records written since the last look for the one a
 * gkServerCrashAtEvent waits for; once seen, the crash is due right after
 * it, as with GK_CRASH_AT_TRACE. */
static void _crashScan(gkWorld *w, gkNode *n) {
    gkTraceRecord r[32];
    size_t got;
    while ((got = gkTraceRead(w, n->crash_scan, r, 32)) > 0) {
        for (size_t i = 0; i < got; i++) {
            n->crash_scan = r[i].seq;
            if (r[i].node != n->id || r[i].type != n->crash_ev_type ||
                (n->crash_ev_a >= 0 && r[i].a != (uint32_t)n->crash_ev_a) ||
                (n->crash_ev_b >= 0 && r[i].b != (uint32_t)n->crash_ev_b))
                continue;
            n->crash_on_event = 0;
            if (n->crash_ev_flags & GK_CRASH_AT_BEFORE_SLEEP) {
                n->crash_before_sleep = 1;
                n->crash_at = r[i].time ? r[i].time : 1;
            } else {
                n->crash_on_trace = 1;
                n->crash_at = r[i].seq;
            }
            return;
        }
    }
}

/* Whether the running process must stop at this point: it was killed
 * (or the power failed) at or before the current local time. */
int machineCrashPoint(gkWorld *w, gkNode *n, int before_sleep) {
    if (n->dying) return 1;
    if (n->crash_on_event && w->running == n->id) _crashScan(w, n);
    if (!n->crash_at || w->running != n->id) return 0;
    if (n->crash_on_trace) {
        if (w->trace.seq < n->crash_at) return 0;
        n->dying = 1;
        n->died_at = worldLocalNow(w);
        return 1;
    }
    if (n->crash_before_sleep && !before_sleep) return 0;
    uint64_t now = worldLocalNow(w);
    if (now < n->crash_at) return 0;
    n->dying = 1;
    n->died_at = n->crash_before_sleep ? now : n->crash_at;
    return 1;
}

/* Every call starts here: 0 if the process is dead (the call then does
 * nothing), else the machine is brought up to the local time. */
static int _enter(gkNode *n) {
    if (machineCrashPoint(n->w, n, 0)) return 0;
    machineAdvance(n->w, n->id, worldLocalNow(n->w));
    return 1;
}

/* The calling thread waits until `until` (a write behind an fsync, an
 * fsync). 0 if a crash scheduled before then kills the process while it
 * waits: the machine must not be advanced past the crash. */
static int _block(gkNode *n, uint64_t until) {
    uint64_t now = worldLocalNow(n->w);
    if (until <= now) return 1;
    if (n->crash_at && !n->crash_before_sleep && !n->crash_on_trace &&
        n->crash_at <= until) {
        n->dying = 1;
        n->died_at = n->crash_at > now ? n->crash_at : now;
        return 0;
    }
    _charge(n, until - now);
    machineAdvance(n->w, n->id, until);
    return 1;
}

/* A GK_TR_SYSCALL record for a call that began at t0. */
static void _traceCall(gkNode *n, int sys, int fd, long bytes, uint64_t t0) {
    gkWorld *w = n->w;
    TRACE(&w->trace, GK_TR_SYSCALL, (uint16_t)n->id, (uint32_t)sys,
          (uint32_t)fd, bytes > 0 ? (uint32_t)bytes : 0,
          worldLocalNow(w) - t0);
}

/* open(2). A descriptor, or a negated errno. */
static int _fsOpen(void *ctx, const char *path, int flags) {
    gkNode *n = ctx;
    if (!_enter(n)) return -FS_EIO;
    uint64_t t0 = worldLocalNow(n->w);
    int fd = diskOpen(n->disk, path, flags, _owner(n), t0);
    _charge(n, n->disk->preset.write_ns);
    _traceCall(n, GK_SYS_OPEN, fd, 0, t0);
    return fd;
}

/* write(2): waits for an fsync of the same file in flight, then copies
 * into the page cache. */
static long _fsWrite(void *ctx, int fd, const void *buf, size_t len) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    if (!_enter(n)) return (long)len;
    uint64_t t0 = worldLocalNow(w), until = diskSyncUntil(n->disk, fd);
    if (!_block(n, until)) return (long)len;
    long r = diskWrite(n->disk, fd, buf, len, worldLocalNow(w));
    _charge(n, n->disk->preset.write_ns +
               (r > 0 ? (uint64_t)r * n->disk->preset.copy_ns_per_kb / 1024
                      : 0));
    _traceCall(n, GK_SYS_FWRITE, fd, r, t0);
    return r;
}

/* fdatasync(2) in the main thread: the thread waits for the device. */
static int _fsFsync(void *ctx, int fd) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    if (!_enter(n)) return 0;
    int err;
    uint64_t t0 = worldLocalNow(w);
    uint64_t done = diskFsync(n->disk, fd, t0, &err);
    if (!_block(n, done + n->disk->preset.write_ns)) return 0;
    _traceCall(n, GK_SYS_FSYNC, fd, 0, t0);
    return -err;
}

/* ftruncate(2). 0 or a negated errno. */
static int _fsFtruncate(void *ctx, int fd, uint64_t len) {
    gkNode *n = ctx;
    if (!_enter(n)) return 0;
    uint64_t t0 = worldLocalNow(n->w);
    int r = diskFtruncate(n->disk, fd, len, t0);
    _charge(n, n->disk->preset.write_ns);
    _traceCall(n, GK_SYS_FTRUNCATE, fd, 0, t0);
    return r;
}

/* close(2). 0 or a negated errno. */
static int _fsClose(void *ctx, int fd) {
    gkNode *n = ctx;
    if (!_enter(n)) return 0;
    uint64_t t0 = worldLocalNow(n->w);
    int r = diskClose(n->disk, fd);
    _charge(n, n->disk->preset.write_ns);
    _traceCall(n, GK_SYS_CLOSE, fd, 0, t0);
    return r;
}

/* rename(2). 0 or a negated errno. */
static int _fsRename(void *ctx, const char *from, const char *to) {
    gkNode *n = ctx;
    if (!_enter(n)) return 0;
    uint64_t t0 = worldLocalNow(n->w);
    int r = diskRename(n->disk, from, to, t0);
    _charge(n, n->disk->preset.write_ns * 4);
    _traceCall(n, GK_SYS_RENAME, -1, 0, t0);
    return r;
}

/* unlink(2). 0 or a negated errno. */
static int _fsUnlink(void *ctx, const char *path) {
    gkNode *n = ctx;
    if (!_enter(n)) return 0;
    uint64_t t0 = worldLocalNow(n->w);
    int r = diskUnlink(n->disk, path, t0);
    _charge(n, n->disk->preset.write_ns * 2);
    _traceCall(n, GK_SYS_UNLINK, -1, 0, t0);
    return r;
}

/* mkdir(2). 0, or -FS_EEXIST if it exists. */
static int _fsMkdir(void *ctx, const char *path) {
    gkNode *n = ctx;
    if (!_enter(n)) return 0;
    _charge(n, n->disk->preset.write_ns * 2);
    return diskMkdir(n->disk, path);
}

/* fsync(2) of a directory: waits for the device. */
static int _fsFsyncDir(void *ctx, const char *path) {
    gkNode *n = ctx;
    gkWorld *w = n->w;
    if (!_enter(n)) return 0;
    int err;
    uint64_t t0 = worldLocalNow(w);
    uint64_t done = diskFsyncDir(n->disk, path, t0, &err);
    if (!_block(n, done + n->disk->preset.write_ns)) return 0;
    _traceCall(n, GK_SYS_FSYNC, -1, 0, t0);
    return -err;
}

/* stat(2)'s size, or -1 if the file does not exist. */
static long long _fsSize(void *ctx, const char *path) {
    gkNode *n = ctx;
    if (!_enter(n)) return -1;
    _charge(n, n->disk->preset.write_ns / 2);
    return diskSize(n->disk, path);
}

/* Reads a whole file: the device time if it is not cached (after a power
 * loss), then the copy. */
static int _fsReadFile(void *ctx, const char *path, gkMem *mem, sds *out) {
    gkNode *n = ctx;
    if (!_enter(n)) return -FS_EIO;
    uint64_t t0 = worldLocalNow(n->w), cost;
    int r = diskRead(n->disk, path, mem, out, &cost);
    size_t len = r == 0 ? sdslen(*out) : 0;
    _charge(n, cost + n->disk->preset.write_ns +
               (uint64_t)len * n->disk->preset.copy_ns_per_kb / 1024);
    _traceCall(n, GK_SYS_FREAD, -1, (long)len, t0);
    return r;
}

static void _fsCatchUp(void *ctx) { _enter(ctx); }

static uint64_t _fsNow(void *ctx) { return worldLocalNow(((gkNode *)ctx)->w); }

/* Whether the process may go on at this point. */
static int _fsAlive(void *ctx, int point) {
    gkNode *n = ctx;
    return !machineCrashPoint(n->w, n, point == FS_POINT_BEFORE_SLEEP);
}

/* exit(1): the process ends here, as a kill would end it. */
static void _fsExit(void *ctx) {
    gkNode *n = ctx;
    if (n->dying) return;
    n->dying = 1;
    n->crash_kind = GK_CRASH_PROCESS;
    n->died_at = worldLocalNow(n->w);
}

/* The process's exit_proc: SHUTDOWN has written and fsynced what it had
 * to, and the process exits at this point. Its files close and the page
 * cache keeps them, as after any exit. */
static void _processExit(void *ctx, int status) {
    (void)status;
    _fsExit(ctx);
}

/* The file backend of node id's process. */
fsBackend machineFsBackend(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    fsBackend fs = { .ctx = n, .open = _fsOpen, .write = _fsWrite,
                     .fsync = _fsFsync, .ftruncate = _fsFtruncate,
                     .close = _fsClose, .rename = _fsRename,
                     .unlink = _fsUnlink, .mkdir = _fsMkdir,
                     .fsyncDir = _fsFsyncDir, .size = _fsSize,
                     .readFile = _fsReadFile, .catchUp = _fsCatchUp,
                     .now = _fsNow, .alive = _fsAlive, .exit = _fsExit };
    return fs;
}

/* ---- The file backend of the process's forked child. ----
 *
 * The child runs on a lane of its own: machineAdvance sets its clock
 * (child_at) to the time it acts, and its calls happen at that clock
 * without touching the main thread's. The child writes into the page
 * cache at the disk's copy speed, and its fsync queues the request and
 * moves the clock to when the device will be done; the world wakes the
 * child then, in time order with everything else on the machine. */

static int _childOpen(void *ctx, const char *path, int flags) {
    gkNode *n = ctx;
    return diskOpen(n->disk, path, flags, _owner(n), n->child_at);
}

/* write(2): the copy of each whole KB costs the child's clock. */
static long _childWrite(void *ctx, int fd, const void *buf, size_t len) {
    gkNode *n = ctx;
    long r = diskWrite(n->disk, fd, buf, len, n->child_at);
    if (r > 0)
        n->child_at += (uint64_t)r / 1024 * n->disk->preset.copy_ns_per_kb;
    return r;
}

static int _childFsync(void *ctx, int fd) {
    gkNode *n = ctx;
    int err;
    n->child_at = diskFsync(n->disk, fd, n->child_at, &err);
    return -err;
}

/* fsync(2) of a directory: its names become durable. */
static int _childFsyncDir(void *ctx, const char *path) {
    gkNode *n = ctx;
    int err;
    n->child_at = diskFsyncDir(n->disk, path, n->child_at, &err);
    return err ? -err : 0;
}

static int _childClose(void *ctx, int fd) {
    return diskClose(((gkNode *)ctx)->disk, fd);
}

static int _childRename(void *ctx, const char *from, const char *to) {
    gkNode *n = ctx;
    return diskRename(n->disk, from, to, n->child_at);
}

static int _childUnlink(void *ctx, const char *path) {
    gkNode *n = ctx;
    return diskUnlink(n->disk, path, n->child_at);
}

static uint64_t _childNow(void *ctx) { return ((gkNode *)ctx)->child_at; }

/* The forked child's file backend on machine id: the calls a child
 * makes. The child never reads, truncates or exits through it. */
static fsBackend _childFsBackend(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    fsBackend fs = { .ctx = n, .open = _childOpen, .write = _childWrite,
                     .fsync = _childFsync, .fsyncDir = _childFsyncDir,
                     .close = _childClose,
                     .rename = _childRename, .unlink = _childUnlink,
                     .now = _childNow };
    return fs;
}

/* ---- Processes: start, crash, restart. ---- */

/* The node whose running process listens on port, -1 if none. Every node
 * of the world is on one machine (see _beConnect in world.c), so a port
 * is one process's at a time. */
int worldListener(gkWorld *w, int port) {
    for (int i = 0; i < w->nnodes; i++) {
        gkNode *n = &w->nodes[i];
        if (n->type != worldRedisNodeType() || n->down || !n->impl) continue;
        if (((redisServer *)n->impl)->port == port) return i;
    }
    return -1;
}

/* Whether port is taken for a listener of node id: another process
 * listens on it, or a connection holds it as its local port without
 * SO_REUSEADDR (ports.c says when Linux refuses the bind). */
static int _portTaken(gkWorld *w, int id, int port) {
    int holder = worldListener(w, port);
    return (holder >= 0 && holder != id) || portsBindConflict(w, port);
}

/* Binds the process s to port on its machine: C_OK, or C_ERR when
 * another process or a client's connection holds it, with
 * redis-server's log line. */
static int _bindPort(gkWorld *w, redisServer *s, int port) {
    if (_portTaken(w, s->node, port)) {
        serverLog(s, LL_WARNING, "Warning: Could not create server TCP "
                  "listening socket *:%d: bind: Address already in use",
                  port);
        return C_ERR;
    }
    gkNode *n = &w->nodes[s->node];
    s->port = port;
    snprintf(n->port_str, sizeof(n->port_str), "%d", port);
    return C_OK;
}

/* server.host_config_set of a simulated process (ctx: the server): its
 * port, which listens anew, or refuses a port another process holds as
 * CONFIG SET port does. */
static int _hostConfigSet(void *ctx, const char *name, const char *value,
                          const char **why) {
    redisServer *s = ctx;
    gkNode *n = s->el->backend.ctx;
    *why = "can't set immutable config";
    if (strcasecmp(name, "port")) return C_ERR;
    char *end;
    long v = strtol(value, &end, 10);
    if (!*value || *end || v < 0 || v > 65535) {
        *why = "argument must be between 0 and 65535 inclusive";
        return C_ERR;
    }
    if (n->impl != s) {
        /* The configuration file: the process binds once it is read. */
        s->port = (int)v;
        n->port_given = 1;
        return C_OK;
    }
    if (v == s->port) return C_OK;
    if (_bindPort(n->w, s, (int)v) != C_OK) {
        *why = "Unable to listen on this port. Check server logs.";
        serverLog(s, LL_WARNING, "Failed applying new configuration. "
                  "Possibly related to new port setting. Restoring "
                  "previous settings.");
        return C_ERR;
    }
    return C_OK;
}

/* A new server process on machine id (not yet a node of the world). */
static redisServer *_newProcess(gkWorld *w, int id, const char *conf,
                                sds *err) {
    gkNode *n = &w->nodes[id];
    redisServer *s = serverCreate(&w->mem, id, worldNodeBackend(w, id),
                                  &w->rng, &w->trace, w->cfg.unix_ms_at_zero,
                                  w->cfg.heap_limit);
    s->fs = machineFsBackend(w, id);
    s->child_fs = _childFsBackend(w, id);
    s->jobs = simJobsBackend(&n->jobs);
    s->exit_proc = _processExit;
    s->exit_ctx = n;
    s->log = &n->log;
    s->pid = 1000 * n->generation + id + 1;
    /* A simulated server belongs to its reader, who may look inside it:
     * it starts as with enable-debug-command yes (its config may say no). */
    s->cfg.enable_debug_cmd = PROTECTED_ACTION_ALLOWED_YES;
    /* Nothing reaches a simulated server while a script runs, not even
     * SCRIPT KILL: the world stops a script after this long. */
    s->script_time_box_ms = SCRIPT_SIM_TIME_BOX_MS;
    snprintf(n->port_str, sizeof(n->port_str), "%d", s->port);
    n->host_config[0] = "port";
    n->host_config[1] = n->port_str;
    n->host_config[2] = NULL;
    s->host_config = n->host_config;
    s->host_config_set = _hostConfigSet;
    s->host_config_ctx = s;
    s->fork_check = machineForkCheck;
    s->fork_ctx = n;
    s->vm_overcommit_memory = n->sysmem.overcommit;
    n->port_given = 0;
    if (conf && serverLoadConfig(s, conf, err) != C_OK) {
        serverRelease(s);
        return NULL;
    }
    /* A process told no port takes the first free one from 6379 up, as
     * a test harness starting several servers would: only a port that
     * was asked for can be found taken. */
    if (!n->port_given)
        while (s->port < 65535 && _portTaken(w, id, s->port)) s->port++;
    if (_bindPort(w, s, s->port) != C_OK) {
        serverLog(s, LL_WARNING, "Failed listening on port %d (TCP), "
                  "aborting.", s->port);
        *err = sdscatprintf(&w->mem, sdsempty(&w->mem), "Could not create "
                            "server TCP listening socket *:%d: bind: "
                            "Address already in use", s->port);
        serverRelease(s);
        return NULL;
    }
    serverSizeEventLoop(s, 0);
    serverStartupDone(s);
    return s;
}

/* The size of a file on node n's disk (a gkNode *), -1 if it does not
 * exist: the disk's own answer, no system call of the process. */
long long machineFileSize(void *ctx, const char *path) {
    gkNode *n = ctx;
    return diskSize(n->disk, path);
}

/* Of the bytes the process has written to its AOF, how many are on the
 * device: the page cache is the simulated disk's to know, not the
 * server's, so this asks the disk about the server's descriptor. */
uint64_t machineAofDurable(gkNode *n) {
    redisServer *s = n->impl;
    uint64_t size, dur;
    if (s->aof.fd < 0 || diskFdSizes(n->disk, s->aof.fd, &size, &dur) < 0)
        return (uint64_t)s->aof.written_bytes;
    uint64_t lag = size > dur ? size - dur : 0;
    uint64_t wr = (uint64_t)s->aof.written_bytes;
    return wr > lag ? wr - lag : 0;
}

/* Adds the AOF offsets of node id's process as of time t to its history
 * (aofhist.h). The world calls it after each iteration of the process's
 * event loop (t: where its clock got to) and each time the machine acts
 * on its own, a background fsync or a write-back (t: now). Nothing is
 * kept while appendonly is off. */
void machineObserve(gkWorld *w, int id, uint64_t t) {
    gkNode *n = &w->nodes[id];
    if (!n->aof_hist || n->down || !n->impl) return;
    redisServer *s = n->impl;
    if (s->aof.state == AOF_OFF) return;
    gkAofSample v = {
        .time = t, .fed = (uint64_t)s->aof.fed_bytes,
        .written = (uint64_t)s->aof.written_bytes,
        .acked = (uint64_t)s->aof.acked_bytes, .durable = machineAofDurable(n),
    };
    aofHistRecord(n->aof_hist, &v);
}

/* Runs the process's startup (loading the AOF) in the node's time.
 * Returns GK_OK, or GK_ERR if the process exited during it. */
int machineStart(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    if (n->aof_hist) aofHistReset(n->aof_hist);
    worldEnterNode(w, id);
    serverStartup(n->impl);
    worldLeaveNode(w, id);
    if (n->dying) {
        machineCrash(w, id);
        return worldFail(w, GK_ERR, "the server exited during startup: see "
                                    "its log");
    }
    if (n->recovery_on) {
        redisServer *s = n->impl;
        s->recovery = recoveryCreate(s, machineFileSize, n);
    }
    return GK_OK;
}

/* Adds a Redis-style server node started with a configuration in
 * redis.conf syntax ("appendonly yes\nappendfsync always\n"; NULL for
 * the defaults). Its machine gets an empty disk. GK_EINVAL with Redis's
 * message if the configuration is refused. */
int gkServerAddConfig(gkWorld *w, const char *conf, int *node_id) {
    int id = worldFreeNode(w);
    if (id < 0) return worldFail(w, GK_EINVAL, "too many nodes");
    gkNode *n = &w->nodes[id];
    sds err = NULL;
    n->disk = diskCreate(&w->mem, &w->trace, (uint16_t)id);
    machineMemInit(&n->sysmem);
    n->aof_hist = memTryCalloc(&w->mem, sizeof(aofHist));
    simJobsInit(&n->jobs, &w->mem, n->disk);
    logInit(&n->log, &w->mem, 1024);
    n->conf = sdsnew(&w->mem, conf ? conf : "");
    redisServer *s = _newProcess(w, id, conf, &err);
    if (!s) {
        worldFail(w, GK_EINVAL, err);
        sdsfree(&w->mem, err);
        machineRelease(w, n);
        return GK_EINVAL;
    }
    worldAddNode(w, worldRedisNodeType(), s, s->el, &id);
    if (node_id) *node_id = id;
    return machineStart(w, id);
}

/* Adds a Redis-style node with the default configuration. */
int gkServerAdd(gkWorld *w, int *node_id) {
    return gkServerAddConfig(w, NULL, node_id);
}

/* Frees what the machine owns (the process is released elsewhere). */
void machineRelease(gkWorld *w, gkNode *n) {
    diskRelease(n->disk);
    n->disk = NULL;
    logRelease(&n->log);
    if (n->conf) sdsfree(&w->mem, n->conf);
    n->conf = NULL;
    recoveryRelease(n->recovery_dead);
    n->recovery_dead = NULL;
    recoveryReportRelease(n->recovery_report);
    n->recovery_report = NULL;
    if (n->aof_hist) memFree(&w->mem, n->aof_hist);
    n->aof_hist = NULL;
}

/* Keys that expire within this long after a crash are left out of the
 * dead process's dataset digest, so the time a restart takes to load does
 * not tell two otherwise equal datasets apart (gkServerDeathDigest). */
#define MACHINE_DEATH_CUTOFF_MS (3600 * 1000LL)

/* The process dies at n->died_at: its threads get up to that moment,
 * then everything it held in memory is gone and its connections close.
 * A power loss also takes the page cache. The dataset's digest is kept:
 * what it held is what a restart is compared with. */
void machineCrash(gkWorld *w, int id) {
    gkNode *n = &w->nodes[id];
    uint64_t at = n->died_at;
    int kind = n->crash_kind;
    machineAdvance(w, id, at);
    redisServer *s = n->impl;
    /* The record says which policy was in force: a crash armed earlier
     * happens under whatever CONFIG SET made it since. */
    uint32_t policy = (s->cfg.appendonly ? 256u : 0u) |
                      (uint32_t)s->cfg.appendfsync;
    TRACE_AT(&w->trace, at, GK_TR_CRASH, (uint16_t)id, (uint32_t)kind,
             n->crash_at ? 1 : 0, policy, (uint64_t)s->pid);
    n->death_cutoff_ms = s->mstime + MACHINE_DEATH_CUTOFF_MS;
    n->death_digest = serverDatasetDigest(s, n->death_cutoff_ms);
    n->died_with_digest = 1;
    if (s->recovery) {
        /* What the clients were told outlives the process. */
        recoveryFinish(s->recovery, s, kind, at, n->death_cutoff_ms);
        recoveryRelease(n->recovery_dead);
        n->recovery_dead = s->recovery;
        s->recovery = NULL;
    }
    serverRelease(s);
    n->impl = NULL;
    n->el = NULL;
    n->down = 1;
    worldCpuDrop(w, id, at);
    n->dying = 0;
    n->crash_at = 0;
    n->crash_on_trace = 0;
    n->crash_on_event = 0;
    n->crash_before_sleep = 0;
    n->crash_seq = 0;
    n->wake_seq = 0;
    if (at > n->busy_until) n->busy_until = at;
    diskCloseOwner(n->disk, _owner(n));
    if (kind == GK_CRASH_POWER) {
        diskPowerLoss(n->disk);
        TRACE_AT(&w->trace, at, GK_TR_DISK, (uint16_t)id, GK_DISK_POWER_LOSS,
                 0, 0, 0);
    }
    machineSchedule(w, id);
}

/* The node if it is a Redis-style one, else NULL. */
static gkNode *_redisNode(gkWorld *w, int node) {
    if (!worldIsRedisNode(w, node)) return NULL;
    return &w->nodes[node];
}

/* What every way of arming a crash checks first: the node is a
 * Redis-style server and it is up. Returns GK_OK with the node in *out,
 * or the world's error (GK_ENOTFOUND, GK_EINVAL) with its message set. */
static int _crashTarget(gkWorld *w, int node, gkNode **out) {
    *out = _redisNode(w, node);
    if (!*out) return worldFail(w, GK_ENOTFOUND, "no such server node");
    if ((*out)->down) return worldFail(w, GK_EINVAL, "the server is down");
    return GK_OK;
}

/* A crash kind from the API: power loss, or else a process kill. */
static int _crashKind(int kind) {
    return kind == GK_CRASH_POWER ? GK_CRASH_POWER : GK_CRASH_PROCESS;
}

/* Kills the node's process now (GK_CRASH_PROCESS, kill -9) or cuts the
 * machine's power (GK_CRASH_POWER). "Now" is after the iteration the
 * node may still be running in its own time. */
int gkServerCrash(gkWorld *w, int node, int kind) {
    gkNode *n;
    int status = _crashTarget(w, node, &n);
    if (status != GK_OK) return status;
    n->crash_kind = _crashKind(kind);
    n->crash_at = 0;
    n->dying = 1;
    n->died_at = n->busy_until > w->now ? n->busy_until : w->now;
    machineCrash(w, node);
    return GK_OK;
}

/* Schedules a crash at virtual time at_ns: the process stops at the first
 * point at or after it (before a command, a system call, a write of
 * replies), in the middle of an iteration if it is running one. With
 * GK_CRASH_AT_BEFORE_SLEEP it stops at the first beforeSleep that starts
 * at or after at_ns instead: after the commands of that iteration ran,
 * before their AOF flush and their replies. With GK_CRASH_AT_TRACE,
 * at_ns is a trace sequence number: the process stops at its first point
 * after that record (say, between the write of aof_buf and its fsync). */
int gkServerCrashAt(gkWorld *w, int node, uint64_t at_ns, int kind,
                    int flags) {
    gkNode *n;
    int status = _crashTarget(w, node, &n);
    if (status != GK_OK) return status;
    n->crash_kind = _crashKind(kind);
    n->crash_on_trace = (flags & GK_CRASH_AT_TRACE) != 0;
    n->crash_on_event = 0;
    n->crash_before_sleep = (flags & GK_CRASH_AT_BEFORE_SLEEP) != 0;
    n->crash_at = at_ns;
    if (!n->crash_on_trace && n->crash_at < w->now) n->crash_at = w->now;
    if (n->crash_at == 0) n->crash_at = 1;
    n->crash_seq = 0;
    if (n->crash_on_trace) return GK_OK;
    worldSchedule(w, EV_CRASH, node, n->crash_at);
    n->crash_seq = w->evseq;
    return GK_OK;
}

/* Arms a crash right after the next trace record of this node with this
 * type, a and b (-1: any), written from now on: say, right after the next
 * write(2) of aof_buf (GK_TR_AOF, GK_AOF_WRITE), or after the next
 * background fsync starts (GK_TR_BIO, GK_BIO_AOF_FSYNC, GK_JOB_START). The
 * process stops at its first point after the record -- the main thread's:
 * a record a background thread writes is seen there, so a job that
 * started may have finished by then (a fast disk's fsync does; the
 * slow-fsync preset's still runs, which is how a test or lab catches a
 * crash during it); with
 * GK_CRASH_AT_BEFORE_SLEEP, at the first beforeSleep after it instead
 * (after a GK_TR_CMD record: the commands of that iteration ran, their
 * AOF flush and their replies never happen). If the record never comes,
 * the process never stops. The records are looked for at the process's
 * points, so the trace type must be enabled. */
int gkServerCrashAtEvent(gkWorld *w, int node, int kind, int type,
                         int64_t a, int64_t b, int flags) {
    gkNode *n;
    int status = _crashTarget(w, node, &n);
    if (status != GK_OK) return status;
    if (type <= 0 || type >= 32 || !(w->trace.enabled & (1u << type)))
        return worldFail(w, GK_EINVAL, "trace type not enabled");
    n->crash_kind = _crashKind(kind);
    n->crash_at = 0;
    n->crash_seq = 0;
    n->crash_on_trace = 0;
    n->crash_before_sleep = 0;
    n->crash_on_event = 1;
    n->crash_ev_type = (uint32_t)type;
    n->crash_ev_a = a;
    n->crash_ev_b = b;
    n->crash_ev_flags = flags;
    n->crash_scan = w->trace.seq;
    return GK_OK;
}

/* EV_CRASH: a scheduled crash whose time has come while the process
 * slept (a crash inside an iteration was handled there). */
void machineCrashEvent(gkWorld *w, int id, uint64_t seq) {
    gkNode *n = &w->nodes[id];
    if (n->down || n->crash_seq != seq || !n->crash_at) return;
    if (n->crash_before_sleep || n->crash_on_trace) return;
    n->dying = 1;
    n->died_at = n->crash_at;
    machineCrash(w, id);
}

/* Starts a new process on a node that is down, with conf (NULL: the
 * startup configuration). The process loads its AOF, if appendonly is on,
 * before it serves anyone. */
int gkServerRestart(gkWorld *w, int node, const char *conf) {
    gkNode *n = _redisNode(w, node);
    if (!n) return worldFail(w, GK_ENOTFOUND, "no such server node");
    if (!n->down) return worldFail(w, GK_EINVAL, "the server is running");
    sds err = NULL;
    if (conf) {
        sdsfree(&w->mem, n->conf);
        n->conf = sdsnew(&w->mem, conf);
    }
    n->generation++;
    redisServer *s = _newProcess(w, node, n->conf, &err);
    if (!s) {
        worldFail(w, GK_EINVAL, err);
        sdsfree(&w->mem, err);
        return GK_EINVAL;
    }
    n->impl = s;
    n->el = s->el;
    n->cpu = n->type->cpu(s);
    n->down = 0;
    if (n->busy_until < w->now) n->busy_until = w->now;
    TRACE(&w->trace, GK_TR_CRASH, (uint16_t)node, GK_CRASH_RESTART, 0, 0,
          (uint64_t)s->pid);
    int st = machineStart(w, node);
    if (st == GK_OK && !n->down) worldWake(w, node, aeNextWake(n->el));
    if (st == GK_OK && !n->down && n->recovery_dead) {
        recoveryReport *rep = recoveryCompare(n->recovery_dead, n->impl,
                                              machineFileSize, n, w->now);
        if (rep) {
            recoveryReportRelease(n->recovery_report);
            n->recovery_report = rep;
            recoveryRelease(n->recovery_dead);
            n->recovery_dead = NULL;
        }
    }
    return st;
}

/* 1 if the node's process is running, 0 if it is down. */
int gkServerIsUp(gkWorld *w, int node) {
    gkNode *n = _redisNode(w, node);
    if (!n) return GK_ENOTFOUND;
    return !n->down;
}

/* ---- The disk, seen from the host. ---- */

/* The disk of a Redis-style node, caught up to the world's time. */
static gkDisk *_disk(gkWorld *w, int node) {
    gkNode *n = _redisNode(w, node);
    if (!n) return NULL;
    machineAdvance(w, node, w->now);
    return n->disk;
}

/* Switches the node's disk to a preset ("nvme", "ssd", "hdd",
 * "slow-fsync"). */
int gkDiskSetPreset(gkWorld *w, int node, const char *name) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    if (diskSetPreset(d, name) != 0)
        return worldFail(w, GK_EINVAL, "unknown disk preset");
    return GK_OK;
}

const char *gkDiskPresetName(int i) { return diskPresetName(i); }

/* Leaves exactly `bytes` free on the node's disk. */
int gkDiskSetFree(gkWorld *w, int node, uint64_t bytes) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskSetFree(d, bytes);
    return GK_OK;
}

/* Makes a directory of the node's disk read-only (1) or not (0). */
int gkDiskSetReadOnly(gkWorld *w, int node, const char *dir, int readonly) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskSetReadOnly(d, dir, readonly);
    return GK_OK;
}

/* Whether dir on the node's disk is read-only: 1 or 0 (a directory that
 * does not exist is not). Reads only: the disk is not caught up. */
int gkDiskIsReadOnly(gkWorld *w, int node, const char *dir) {
    gkNode *n = _redisNode(w, node);
    if (!n || !n->disk) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskDir *dd = diskFindDir(n->disk, dir);
    return dd && dd->readonly;
}

/* The node's disk as a whole. */
int gkDiskGetInfo(gkWorld *w, int node, gkDiskInfo *out) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    memset(out, 0, sizeof(*out));
    strncpy(out->preset, d->preset.name, sizeof(out->preset) - 1);
    out->capacity = d->capacity;
    out->used = d->used;
    out->free_bytes = d->capacity > d->used ? d->capacity - d->used : 0;
    out->device_busy_until = d->device_free;
    out->queued = (uint32_t)d->nops;
    for (int i = 0; i < d->ninodes; i++) out->files += d->inodes[i].used;
    out->written = d->stat_written;
    out->durable_bytes = d->stat_durable;
    out->syncs = d->stat_syncs;
    out->writebacks = d->stat_writebacks;
    return GK_OK;
}

/* One file of the node's disk. GK_ENOTFOUND if it does not exist. */
int gkDiskFileInfo(gkWorld *w, int node, const char *path,
                   gkDiskFile *out) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskInode *ino = diskLookup(d, path);
    if (!ino) return worldFail(w, GK_ENOTFOUND, "no such file");
    memset(out, 0, sizeof(*out));
    out->size = sdslen(ino->data);
    out->durable = sdslen(ino->durable);
    for (int i = 0; i < ino->ndirty; i++) out->dirty += ino->dirty[i].len;
    out->syncing_until = ino->sync_until;
    out->dirty_since = ino->ndirty ? ino->dirtied_when : 0;
    out->inode = (int32_t)(ino - d->inodes);
    out->open = ino->nopen;
    return GK_OK;
}

/* The names in a directory ("" is the working one), each followed by a
 * NUL, as many as fit; *written gets the bytes used. */
int gkDiskList(gkWorld *w, int node, const char *dir, char *out, size_t cap,
               size_t *written) {
    gkDisk *d = _disk(w, node);
    *written = 0;
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskDir *dd = diskFindDir(d, dir);
    if (!dd) return worldFail(w, GK_ENOTFOUND, "no such directory");
    size_t n = 0;
    for (int i = 0; i < dd->nlive; i++) {
        size_t len = strlen(dd->live[i].name) + 1;
        if (n + len > cap) break;
        memcpy(out + n, dd->live[i].name, len);
        n += len;
    }
    *written = n;
    return GK_OK;
}

/* Copies a file's bytes, as the page cache has them (durable = 0) or as
 * the device does (durable = 1), up to cap; *size gets the full size. */
int gkDiskReadFile(gkWorld *w, int node, const char *path, int durable,
                   char *out, size_t cap, size_t *size) {
    gkDisk *d = _disk(w, node);
    *size = 0;
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    diskInode *ino = diskLookup(d, path);
    if (!ino) return worldFail(w, GK_ENOTFOUND, "no such file");
    sds src = durable ? ino->durable : ino->data;
    *size = sdslen(src);
    if (cap) memcpy(out, src, *size < cap ? *size : cap);
    return GK_OK;
}

/* Writes a file on the node's disk, durable at once (a prepared AOF, an
 * imported directory). The directory is created if needed. */
int gkDiskWriteFile(gkWorld *w, int node, const char *path, const void *buf,
                    size_t len) {
    gkDisk *d = _disk(w, node);
    if (!d) return worldFail(w, GK_ENOTFOUND, "no such server node");
    const char *slash = strrchr(path, '/');
    if (slash) {
        char dir[DISK_NAME_MAX];
        size_t n = (size_t)(slash - path);
        if (n >= sizeof(dir)) return worldFail(w, GK_EINVAL, "path too long");
        memcpy(dir, path, n);
        dir[n] = '\0';
        diskMkdir(d, dir);
    }
    int r = diskWriteFile(d, path, buf, len, -1, w->now);
    if (r == -DISK_ENOSPC) return worldFail(w, GK_ENOMEM, "disk full");
    if (r < 0) return worldFail(w, GK_EINVAL, "cannot write the file");
    return GK_OK;
}

/* Copies the server log lines newer than after_seq (see slog.h). */
size_t gkServerLogRead(gkWorld *w, int node, uint64_t after_seq, char *out,
                       size_t cap, uint64_t *last_seq) {
    gkNode *n = _redisNode(w, node);
    *last_seq = after_seq;
    if (!n || cap == 0) return 0;
    return logRead(&n->log, after_seq, out, cap, last_seq);
}

/* The number of node's newest log line (0: none yet, or not a server). */
uint64_t gkServerLogLast(gkWorld *w, int node) {
    gkNode *n = _redisNode(w, node);
    return n ? n->log.seq : 0;
}

/* The digest of the dataset (as gkServerDatasetDigest) that node's last
 * process held when it died, and the cutoff it was taken with: keys
 * expiring at or before *cutoff_ms (Unix ms, an hour after the death)
 * left out. Compare a restarted server with gkServerDatasetDigest at the
 * same cutoff. GK_ENOTFOUND if node is not a Redis-style node or no
 * process of it has died. */
int gkServerDeathDigest(gkWorld *w, int node, uint64_t *digest,
                        long long *cutoff_ms) {
    gkNode *n = _redisNode(w, node);
    if (!n || !n->died_with_digest) return GK_ENOTFOUND;
    *digest = n->death_digest;
    *cutoff_ms = n->death_cutoff_ms;
    return GK_OK;
}
