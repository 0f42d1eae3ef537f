/* world.h -- the simulated world: virtual clock, event queue, seeded PRNG,
 * hosts (server nodes and client programs) and the network between them. */
#ifndef GK_WORLD_H
#define GK_WORLD_H

#include "glasskv.h"
#include "mem.h"
#include "sds.h"
#include "rng.h"
#include "trace.h"
#include "server.h"
#include "disk.h"
#include "jobs_sim.h"
#include "slog.h"
#include "fs.h"
#include "ports.h"

/* Bytes in flight on a link, arriving together at `arrive`. */
typedef struct gkSegment {
    struct gkSegment *next;
    uint64_t arrive;
    size_t len;
    char data[];
} gkSegment;

/* One direction of a connection: a link with latency and bandwidth, and
 * the receiver's kernel buffer. The sender may have at most `window`
 * bytes in flight or unread (its send buffer plus the receiver's receive
 * buffer); beyond that its write would block. */
typedef struct gkPipe {
    uint64_t latency;       /* one-way delay, ns */
    uint64_t bandwidth;     /* bytes per second, 0 = unlimited */
    uint64_t link_free;     /* when the link finishes its last segment */
    size_t window;          /* 0 = unlimited */
    gkSegment *head, *tail; /* in flight, in arrival order */
    size_t inflight;
    sds buf;                /* arrived, not yet read */
    size_t pos;
    int eof;                /* the sender closed: end of stream after buf */
} gkPipe;

/* A connection between a client end (a client program, or the host when
 * client_node is -1) and a server node. Both ends use the id as their
 * descriptor. */
typedef struct gkConn {
    int id;
    int node;               /* the server end */
    int client_node;        /* the client end, or -1 for the host */
    gkPipe up;              /* client -> server */
    gkPipe down;            /* server -> client */
    int client_closed;      /* the client end was closed */
    int server_closed;      /* the server end was closed */
    int refused;            /* a node's connect found no listener */
    int unanswered;         /* a node's connect to an address nobody
                               answers: it never completes */
    int lport;              /* the client end's local port (ports.c), 0
                               if it holds none */
    int lport_next;         /* the next connection holding lport, -1 */
    uint32_t daddr;         /* the address and port it connected to */
    int dport;
    int reuseaddr;          /* its client socket set SO_REUSEADDR */
} gkConn;

#define GK_MAX_CPUS 64

#define EV_WAKE 0           /* run one iteration of a host's event loop */
#define EV_DELIVER 1        /* segments arrive at a receiver */
#define EV_MACHINE 2        /* a node's disk or background threads act */
#define EV_CRASH 3          /* a scheduled crash of a node's process */

typedef struct gkEvent {
    uint64_t when;          /* virtual ns */
    uint64_t seq;           /* tie-breaker: insertion order */
    int kind;               /* EV_* */
    int target;             /* node (EV_WAKE) or connection (EV_DELIVER) */
} gkEvent;

/* What every kind of host gives the world: how to accept a connection,
 * where its CPU time is counted, and how to free it. */
typedef struct gkNodeType {
    const char *name;                       /* "redis", "memcached" */
    int (*accept)(void *impl, int fd);      /* C_OK, or C_ERR to refuse */
    void (*release)(void *impl);
    uint64_t *(*cpu)(void *impl);           /* NULL: the node's own */
    /* The process's forked child (NULL: none): when it next acts, and
     * acting at that time. */
    uint64_t (*childNext)(void *impl);
    void (*childRun)(void *impl, uint64_t t);
    int (*port)(void *impl);                /* the TCP port it listens
                                               on (NULL: none) */
} gkNodeType;

/* What the world gives a host it builds at an id: the host's event-loop
 * backend, the world's allocator (a host that keeps its own account of
 * memory opens it over this), the trace, the Unix time at virtual time 0,
 * and a seed for a PRNG of the host's own, split from the world's seed by
 * the id and the process count, so that starting a host draws nothing
 * from the PRNG the others share. */
typedef struct gkHostEnv {
    int id;
    aeBackend backend;
    gkAllocFn alloc;
    void *alloc_ud;
    gkTrace *trace;
    int64_t unix_ms_at_zero;
    uint64_t seed;
} gkHostEnv;

/* The virtual CPU cost of the system calls a host makes. */
typedef struct gkSyscallCost {
    uint32_t read_ns;       /* read(2), fixed part */
    uint32_t write_ns;      /* write(2), fixed part */
    uint32_t poll_ns;       /* epoll_wait(2), fixed part */
    uint32_t poll_event_ns; /* per ready descriptor */
    uint32_t ns_per_kb;     /* copying, per KB read or written */
} gkSyscallCost;

/* The memory of the machine under a Redis-style node, as its kernel
 * weighs a fork (machine_mem.c). It belongs to the machine: a restarted
 * process finds it as it was. */
typedef struct machineMem {
    uint64_t ram;           /* MemTotal, bytes */
    uint64_t swap;          /* SwapTotal, bytes */
    int overcommit;         /* vm.overcommit_memory: 0 heuristic, 1 always,
                               2 never (strict) */
    int ratio;              /* vm.overcommit_ratio, percent of RAM that
                               mode 2 lets be committed, besides swap */
} machineMem;

/* A host. While it runs an iteration its local clock is iter_start plus
 * the CPU time it has consumed since; the world's other hosts go on in
 * parallel. */
typedef struct gkNode {
    gkWorld *w;
    int id;
    const gkNodeType *type;
    void *impl;
    aeEventLoop *el;
    uint64_t wake_seq;      /* seq of the live wake event, 0 none */
    uint64_t wake_at;
    uint64_t busy_until;    /* local time at the end of the last iteration */
    int in_iteration;       /* inside aeProcessEvents (a busy script may
                               run other nodes meanwhile, see _bePump) */
    uint64_t iter_start;
    uint64_t cpu_at_start;
    uint64_t own_cpu;       /* CPU counter for types without one */
    uint64_t *cpu;
    gkSyscallCost cost;
    gkNodeStats stats;
    struct scanWalk *walk;  /* the SCAN walk on a Redis-style node
                               (scanwalk.c), NULL until the first */
    /* The machine under a Redis-style node (machine.c). */
    gkDisk *disk;           /* survives crashes of the process */
    simJobs jobs;           /* the process's bio threads (jobs_sim.c) */
    uint64_t child_at;      /* its rewrite child's clock */
    gkLog log;              /* the server log, across restarts */
    sds conf;               /* the startup configuration (a restart's) */
    char port_str[8];       /* the process's port, for CONFIG GET */
    int port_given;         /* its configuration named the port */
    const char *host_config[3]; /* its host parameters: port */
    machineMem sysmem;      /* its RAM, swap and overcommit policy */
    int generation;         /* processes started on the machine */
    int down;               /* the process died and was not restarted */
    int dying;              /* the process hit its crash point */
    int crash_kind;         /* GK_CRASH_* of the pending crash */
    int crash_before_sleep; /* crash at a beforeSleep, not any point */
    int crash_on_trace;     /* crash_at is a trace sequence number */
    int crash_on_event;     /* waiting for a trace record like this one: */
    uint32_t crash_ev_type;
    int64_t crash_ev_a, crash_ev_b; /* (-1: any) */
    int crash_ev_flags;     /* GK_CRASH_AT_BEFORE_SLEEP: at the first
                               beforeSleep after the record */
    uint64_t crash_scan;    /* records up to this seq were looked at */
    uint64_t crash_at;      /* a crash is due then (0: none) */
    uint64_t died_at;       /* when the process died */
    int died_with_digest;   /* death_digest is set (a process has died) */
    uint64_t death_digest;  /* its dataset's digest when it died, keys
                               expiring before death_cutoff_ms left out */
    long long death_cutoff_ms;
    /* The recovery ledger (recovery.h): whether the node keeps one, the
     * last dead process's (until a restart is compared with it), and the
     * report of that comparison. */
    int recovery_on;
    struct recoveryLedger *recovery_dead;
    struct recoveryReport *recovery_report;
    uint64_t machine_seq;   /* seq of the live EV_MACHINE event, 0 none */
    uint64_t machine_at;
    uint64_t crash_seq;     /* seq of the live EV_CRASH event, 0 none */
    struct aofHist *aof_hist; /* the process's AOF offsets over its life
                                 (aofhist.h), NULL if none is kept */
    /* Its place on the machine's CPUs, when the world has a number of
     * them (gkWorldSetCpus). */
    int on_cpu;             /* the CPU it holds, plus 1; 0 none */
    int runnable;           /* waiting in the run queue for a CPU */
    uint64_t slice_end;     /* its time slice ends then */
} gkNode;

/* Called while a node is held inside one iteration (a busy script
 * serving other clients), once the rest of the world has caught up with
 * the node's clock `now`, which is also the world's clock during the
 * call: the host may open connections, send and receive on them then, as
 * a second redis-cli would while the first waits for its script. */
typedef void (*gkHostPoll)(gkWorld *w, void *ctx, uint64_t now);

struct gkWorld {
    gkMem mem;
    gkConfig cfg;
    uint64_t now;           /* time of the event being processed, ns */
    int running;            /* node running an iteration, or -1 */
    gkRng rng;
    gkTrace trace;
    gkEvent *events;        /* binary min-heap on (when, seq) */
    size_t nevents, capevents;
    uint64_t evseq;
    gkNode nodes[GK_MAX_NODES];
    int nnodes;
    gkConn **conns;         /* indexed by id; NULL once fully closed */
    int nconns, capconns;
    int conn_free;          /* no id below it is free */
    uint64_t link_latency;  /* defaults for new connections */
    uint64_t link_bandwidth;
    size_t link_window;
    gkSession session;      /* the page's record (gkWorldSession) */
    /* The machine's CPUs, which every host shares (world.c: "Sharing the
     * CPUs"); cpus 0: each host runs on a CPU of its own. */
    int cpus;
    uint64_t sched_slice;   /* a process keeps its CPU this long while
                               others wait */
    uint64_t sched_wake;    /* a process woken on an idle CPU runs after */
    uint64_t sched_switch;  /* a CPU passed from one process to the next */
    int cpu_node[GK_MAX_CPUS]; /* the host on each CPU, -1 none */
    uint64_t cpu_free[GK_MAX_CPUS]; /* when each was last left */
    int runq[GK_MAX_NODES]; /* runnable hosts waiting, oldest first */
    int runq_len;
    gkHostPoll host_poll;   /* see worldSetHostPoll */
    void *host_poll_ctx;
    int host_polling;       /* inside host_poll */
    gkPorts ports;          /* the machine's TCP ports (ports.c) */
    char err[256];
};

gkConn *worldConn(gkWorld *w, int id);
void worldCpuDrop(gkWorld *w, int id, uint64_t at);
aeBackend worldBackend(gkWorld *w);
int worldAddNode(gkWorld *w, const gkNodeType *type, void *impl,
                 aeEventLoop *el, int *node_id);
int worldFreeNode(gkWorld *w);
void worldHostEnv(gkWorld *w, int id, gkHostEnv *env);
int worldAddNodeAt(gkWorld *w, int id, const gkNodeType *type, void *impl,
                   aeEventLoop *el);
const gkNodeType *worldNodeKind(gkWorld *w, int id);
void *worldNodeImpl(gkWorld *w, int id, const gkNodeType *type);
void worldNodeStop(gkWorld *w, int id);
void worldNodeResume(gkWorld *w, int id, void *impl, aeEventLoop *el);
uint64_t worldNodeWakeAt(gkWorld *w, int id);
void worldScratchMem(gkWorld *w, gkMem *m);
int worldFail(gkWorld *w, int status, const char *msg);
void worldWake(gkWorld *w, int node, uint64_t when);
uint64_t worldLocalNow(gkWorld *w);
redisServer *worldServer(gkWorld *w, int node);
uint64_t serverDatasetDigest(redisServer *s, long long cutoff_ms);
int worldConnect(gkWorld *w, int client_node, int server_node, int *conn_id);
void worldConnClose(gkWorld *w, gkConn *c, int client_side);
aeBackend worldNodeBackend(gkWorld *w, int id);
void worldSchedule(gkWorld *w, int kind, int target, uint64_t when);
void worldEnterNode(gkWorld *w, int id);
void worldLeaveNode(gkWorld *w, int id);
int worldIsRedisNode(gkWorld *w, int id);
int worldListener(gkWorld *w, int port);
int worldNodePort(gkWorld *w, int id);
void worldSetHostPoll(gkWorld *w, gkHostPoll fn, void *ctx);

/* machine.c */
fsBackend machineFsBackend(gkWorld *w, int id);
void machineAdvance(gkWorld *w, int id, uint64_t t);
void machineSchedule(gkWorld *w, int id);
int machineCrashPoint(gkWorld *w, gkNode *n, int before_sleep);
void machineCrash(gkWorld *w, int id);
void machineRelease(gkWorld *w, gkNode *n);
int machineStart(gkWorld *w, int id);
void machineCrashEvent(gkWorld *w, int id, uint64_t seq);
long long machineFileSize(void *ctx, const char *path);
uint64_t machineAofDurable(gkNode *n);
void machineObserve(gkWorld *w, int id, uint64_t t);

/* machine_mem.c */
void machineMemInit(machineMem *m);
int machineForkCheck(void *ctx, uint64_t rss);
const gkNodeType *worldRedisNodeType(void);

#endif
