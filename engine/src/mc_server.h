/* mc_server.h -- the memcached-style node: its connections and the state
 * machine that reads requests and values from them (memcached.c's
 * drive_machine), shared by the text protocol (mc_proto.c) and the stats
 * commands (mc_stats.c). */
#ifndef GK_MC_SERVER_H
#define GK_MC_SERVER_H

#include <stdint.h>
#include <stddef.h>
#include "glasskv.h"
#include "mem.h"
#include "sds.h"
#include "ae.h"
#include "trace.h"
#include "mc_options.h"
#include "mc_items.h"

#define MC_VERSION "1.6.18"
#define MC_LIBEVENT_VERSION "2.1.12-stable"  /* what Debian's build links */
#define MC_READ_BUFFER_SIZE 16384
#define MC_MAX_TOKENS 24
#define MC_START_TIME 62        /* ITEM_UPDATE_INTERVAL + 2 */

/* Where a connection is in its request cycle (memcached's conn_states,
 * without the states that only exist to write or wait on a socket). */
#define MC_CONN_READ 0          /* needs more bytes to parse a command */
#define MC_CONN_PARSE 1         /* try to parse a command line */
#define MC_CONN_NEW_CMD 2       /* a command finished */
#define MC_CONN_NREAD 3         /* reading a value into c->item */
#define MC_CONN_SWALLOW 4       /* discarding a refused value */
#define MC_CONN_MWRITE 5        /* write the replies so far */
#define MC_CONN_CLOSING 6       /* closed at the end of the iteration */

/* Which storage command a value is for. */
#define MC_NREAD_ADD 1
#define MC_NREAD_SET 2
#define MC_NREAD_REPLACE 3
#define MC_NREAD_APPEND 4
#define MC_NREAD_PREPEND 5
#define MC_NREAD_CAS 6

typedef struct mcServer mcServer;

/* One client connection. */
typedef struct mcConn {
    mcServer *srv;
    int fd;                 /* the world's connection id */
    int state;              /* MC_CONN_* */
    char *rbuf;             /* bytes read and not yet parsed */
    size_t rsize;           /* its size: 16 KB, larger for long gets */
    size_t rpos;            /* where unparsed bytes start */
    size_t rbytes;          /* how many there are */
    int rbuf_malloced;      /* rbuf was grown for a long get line */
    sds out;                /* replies not yet written: they go out at
                               the next write point (MWRITE) */
    int close_after_write;  /* quit: close once out is written */
    int noreply;            /* this command's reply is suppressed */
    mcItem *item;           /* the value being read, one reference */
    int cmd;                /* MC_NREAD_* for item */
    char *ritem;            /* where the next value byte goes (plain) */
    mcChunk *rch;           /* the chunk being filled (large items) */
    size_t rlbytes;         /* value bytes still to come */
    size_t sbytes;          /* bytes still to swallow */
} mcConn;

/* A memcached-style node. */
struct mcServer {
    gkMem own;              /* the node's memory: items, pages, buffers */
    gkMem *mem;             /* &own */
    int node;               /* node id in the world */
    aeEventLoop *el;        /* runs on the world's backend */
    gkTrace *trace;
    mcSettings settings;
    mcCache cache;
    mcConn **conns;         /* indexed by fd */
    int conns_cap;
    uint64_t start_ns;      /* virtual time the node started */
    uint32_t pid;           /* a stand-in process id, from the PRNG */
    uint64_t curr_conns;    /* open client connections */
    uint64_t total_conns;   /* connections ever, counting the listener */
    uint64_t conn_structs;  /* most connections open at once + 1 */
};

/* A token of a command line (memcached's token_t). */
typedef struct mcToken {
    char *value;
    size_t length;
} mcToken;

/* mc_server.c */
void mcServerClock(mcServer *s);
void mcConnOut(mcConn *c, const char *buf, size_t len);
void mcConnOutString(mcConn *c, const char *str);
void mcConnCull(mcConn *c);
void mcConnClose(mcConn *c);
mcServer *mcServerOf(gkWorld *w, int node);
void mcSlabConfigOf(const mcSettings *st, mcSlabConfig *cfg);

/* mc_proto.c */
size_t mcTokenize(char *command, mcToken *tokens, size_t max_tokens);
void mcProcessCommand(mcConn *c, char *command);
void mcCompleteNread(mcConn *c);

/* mc_stats.c */
void mcProcessStats(mcConn *c, mcToken *tokens, size_t ntokens);

#endif
