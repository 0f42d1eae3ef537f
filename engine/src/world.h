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

#define GK_MAX_NODES 16

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
} gkConn;

#define EV_WAKE 0           /* run one iteration of a host's event loop */
#define EV_DELIVER 1        /* segments arrive at a receiver */

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
} gkNodeType;

/* The virtual CPU cost of the system calls a host makes. */
typedef struct gkSyscallCost {
    uint32_t read_ns;       /* read(2), fixed part */
    uint32_t write_ns;      /* write(2), fixed part */
    uint32_t poll_ns;       /* epoll_wait(2), fixed part */
    uint32_t poll_event_ns; /* per ready descriptor */
    uint32_t ns_per_kb;     /* copying, per KB read or written */
} gkSyscallCost;

typedef struct gkNodeStats {
    uint64_t reads, writes, polls;  /* system calls */
    uint64_t bytes_read, bytes_written;
    uint64_t iterations;
} gkNodeStats;

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
    uint64_t iter_start;
    uint64_t cpu_at_start;
    uint64_t own_cpu;       /* CPU counter for types without one */
    uint64_t *cpu;
    gkSyscallCost cost;
    gkNodeStats stats;
} gkNode;

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
    uint64_t link_latency;  /* defaults for new connections */
    uint64_t link_bandwidth;
    size_t link_window;
    char err[256];
};

gkConn *worldConn(gkWorld *w, int id);
aeBackend worldBackend(gkWorld *w);
int worldAddNode(gkWorld *w, const gkNodeType *type, void *impl,
                 aeEventLoop *el, int *node_id);
int worldFail(gkWorld *w, int status, const char *msg);
void worldWake(gkWorld *w, int node, uint64_t when);
uint64_t worldLocalNow(gkWorld *w);
redisServer *worldServer(gkWorld *w, int node);
int worldConnect(gkWorld *w, int client_node, int server_node, int *conn_id);
void worldConnClose(gkWorld *w, gkConn *c, int client_side);

#endif
