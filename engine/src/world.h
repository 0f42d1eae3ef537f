/* world.h -- the simulated world: virtual clock, event queue, seeded PRNG,
 * server nodes and the connections between clients and servers. */
#ifndef GK_WORLD_H
#define GK_WORLD_H

#include "glasskv.h"
#include "mem.h"
#include "sds.h"
#include "rng.h"
#include "trace.h"
#include "server.h"

#define GK_MAX_NODES 8

/* A connection: a byte stream in each direction. The server side reads
 * to_server; the host reads to_client. */
typedef struct gkConn {
    int id;                 /* also the descriptor the server sees */
    int node;
    int client_closed;      /* the host closed its end: EOF for the server */
    int server_closed;      /* the server closed its end */
    sds to_server;          /* bytes sent, not yet read by the server */
    size_t to_server_pos;
    sds to_client;          /* bytes written by the server, not yet read */
    size_t to_client_pos;
} gkConn;

typedef struct gkEvent {
    uint64_t when;          /* virtual ns */
    uint64_t seq;           /* tie-breaker: insertion order */
    int node;               /* the node to wake */
} gkEvent;

/* What every kind of node gives the world: its event loop, and how to
 * accept a connection and free the node. */
typedef struct gkNodeType {
    const char *name;                       /* "redis", "memcached" */
    int (*accept)(void *impl, int fd);      /* C_OK, or C_ERR to refuse */
    void (*release)(void *impl);
} gkNodeType;

typedef struct gkNode {
    const gkNodeType *type;
    void *impl;             /* redisServer *, ... */
    aeEventLoop *el;        /* the node's event loop */
    uint64_t wake_seq;      /* seq of the node's live wake event, 0 none */
    uint64_t wake_at;
} gkNode;

struct gkWorld {
    gkMem mem;
    gkConfig cfg;
    uint64_t now;           /* virtual time in ns */
    gkRng rng;
    gkTrace trace;
    gkEvent *events;        /* binary min-heap on (when, seq) */
    size_t nevents, capevents;
    uint64_t evseq;
    gkNode nodes[GK_MAX_NODES];
    int nnodes;
    gkConn **conns;         /* indexed by id; NULL once fully closed */
    int nconns, capconns;
    char err[256];
};

gkConn *worldConn(gkWorld *w, int id);
aeBackend worldBackend(gkWorld *w);
int worldAddNode(gkWorld *w, const gkNodeType *type, void *impl,
                 aeEventLoop *el, int *node_id);
int worldFail(gkWorld *w, int status, const char *msg);
void worldWake(gkWorld *w, int node, uint64_t when);
redisServer *worldServer(gkWorld *w, int node);

#endif
