/* glasskv.h -- the embedding API of the glasskv engine.
 *
 * The engine is a simulated world: a virtual clock, an event queue, a seeded
 * PRNG, Redis-style server nodes and client connections that carry bytes.
 * Everything lives behind one opaque handle, passed first to every call, and
 * every byte of memory comes from the allocator the host supplies. There are
 * no globals, no threads, no wall clock and no I/O: a world is a pure
 * function of its configuration, its seed and the bytes sent to it.
 *
 * Typical use:
 *
 *     gkConfig cfg; gkConfigInit(&cfg); cfg.seed = 42;
 *     gkWorld *w; gkWorldCreate(&w, &cfg, NULL);
 *     int srv; gkServerAdd(w, &srv);
 *     int conn; gkConnOpen(w, srv, &conn);
 *     gkConnSend(w, conn, "PING\r\n", 6);
 *     gkWorldRunUntilIdle(w);            (runs what is due now)
 *     char buf[64]; size_t n = gkConnRecv(w, conn, buf, sizeof(buf));
 *     gkWorldRelease(w);
 */
#ifndef GLASSKV_H
#define GLASSKV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes. Every call that can fail returns one of these. ---- */
#define GK_OK 0            /* success */
#define GK_ERR -1          /* generic failure */
#define GK_ENOMEM -2       /* the host allocator refused */
#define GK_EINVAL -3       /* a bad argument (unknown id, bad size) */
#define GK_ENOTFOUND -4    /* no such node, connection or database */
#define GK_ECLOSED -5      /* the connection was closed by the server */

/* ---- Allocator. ----
 * One function in the style of lua_Alloc: called with nsize == 0 to free
 * (returning NULL), otherwise to allocate or resize ptr from osize to nsize
 * bytes. It returns NULL when it cannot satisfy the request; the engine turns
 * that into an error, never a crash. osize is the size the engine asked for
 * before (0 for a fresh block), so the host can account memory exactly. */
typedef void *(*gkAllocFn)(void *ud, void *ptr, size_t osize, size_t nsize);

/* ---- World configuration. Fill it with gkConfigInit, then override. ---- */
typedef struct gkConfig {
    uint64_t seed;          /* seeds the world's PRNG (and so the hash seed) */
    int64_t unix_ms_at_zero;/* Unix time in ms at virtual time 0 */
    size_t heap_limit;      /* bytes the engine may hold before it refuses
                               memory-growing commands with -OOM (0 = none) */
    uint32_t trace_capacity;/* records kept in the trace ring (power of 2) */
} gkConfig;

typedef struct gkWorld gkWorld;

/* ---- Trace records: fixed 40-byte binary records in a bounded ring. ---- */
#define GK_TR_CMD 1          /* a command ran: a=db b=conn c=argc, d=cmd id */
#define GK_TR_REHASH_STEP 2  /* a=db b=dict kind c=bucket of ht0 moved, d=n */
#define GK_TR_TABLE_NEW 3    /* a=db b=dict kind c=table (0/1), d=size */
#define GK_TR_TABLE_FREE 4   /* a=db b=dict kind c=table, d=size */
#define GK_TR_SCAN_BUCKET 5  /* a=db b=dict kind c=table, d=bucket index */
#define GK_TR_SCAN_CALL 6    /* a=db b=conn c=0, d=cursor in; (d2=out) */
#define GK_TR_CRON 7         /* serverCron ran: a=cronloops */
#define GK_TR_EXPIRE 8       /* a key expired: a=db, b=1 active 0 lazy */
/* memcached-style nodes: a=slab class, b=page index in the class. */
#define GK_TR_SLAB_PAGE 9    /* a page was taken: c=perslab,
                                d=total_malloced after it */
#define GK_TR_ITEM_STORE 10  /* an item was linked: c=chunk in the page,
                                d=ntotal (a, b, c: where its header is) */
#define GK_TR_ITEM_EVICT 11  /* an item was evicted from its LRU tail:
                                c=chunk, d=ntotal */
#define GK_TR_ITEM_FREE 12   /* an item's chunks went back to the free
                                lists (delete, expiry, flush, replace):
                                c=chunk, d=ntotal */
#define GK_TR_SYSCALL 9      /* a=GK_SYS_* b=fd c=bytes, d=duration ns */
#define GK_TR_LOOP 10        /* a=GK_LOOP_* phase, d=iteration number */
#define GK_TR_CLIENT 11      /* a workload: a=GK_CL_* b=fd c=commands,
                                d=bytes sent (SEND) or latency ns (DONE) */

/* Workload events in GK_TR_CLIENT records. */
#define GK_CL_SEND 0         /* a batch was written */
#define GK_CL_DONE 1         /* its last reply arrived */

/* System calls in GK_TR_SYSCALL records. */
#define GK_SYS_READ 0
#define GK_SYS_WRITE 1
#define GK_SYS_POLL 2

/* Event-loop phases in GK_TR_LOOP records. */
#define GK_LOOP_BEGIN 0      /* the host wakes up (epoll_wait returns) */
#define GK_LOOP_BEFORE_SLEEP 1
#define GK_LOOP_END 2        /* about to sleep again */
#define GK_LOOP_CRON 3       /* serverCron starts */

/* Dict kinds in trace records and introspection. */
#define GK_DICT_KEYS 0       /* db->dict, the keyspace */
#define GK_DICT_EXPIRES 1    /* db->expires */

typedef struct gkTraceRecord {
    uint64_t seq;   /* increasing sequence number, starting at 1 */
    uint64_t time;  /* virtual time in ns */
    uint16_t type;  /* GK_TR_* */
    uint16_t node;  /* node id */
    uint32_t a;     /* type-specific fields, see above */
    uint32_t b;
    uint32_t c;
    uint64_t d;
} gkTraceRecord;

/* ---- Introspection of one dict. ---- */
typedef struct gkDictInfo {
    int64_t rehashidx;  /* -1 when not rehashing */
    uint64_t size[2];   /* buckets in ht[0] and ht[1] (0 = no table) */
    uint64_t used[2];   /* entries in each table */
    int32_t pauserehash;/* >0 while a safe iterator or a scan holds it */
    int32_t resize_policy; /* 0 enable, 1 avoid, 2 forbid */
    uint64_t version;   /* changes whenever an entry or a bucket moves */
} gkDictInfo;

/* ---- SCAN audit: proves or disproves SCAN's guarantee. ----
 * Begin records every key present in the db; then every key the audited
 * connection receives from SCAN is counted, and every recorded key that is
 * deleted (by any means) stops counting as present for the whole walk. */
typedef struct gkScanAudit {
    uint64_t tracked;     /* keys present when the audit began */
    uint64_t throughout;  /* of those, still never deleted */
    uint64_t returned;    /* distinct tracked keys SCAN returned */
    uint64_t missing;     /* present throughout but never returned */
    uint64_t duplicates;  /* returns of a key already returned */
    uint64_t foreign;     /* returned keys not present at the start */
    uint64_t calls;       /* SCAN calls seen */
    int32_t active;       /* 1 while an audit is running */
    int32_t db;
} gkScanAudit;

/* ---- Workloads: client programs that load a server. ----
 * Fill a spec with gkWorkloadSpecInit, then override. A batch of
 * `pipeline` commands is written at once and the next one is written when
 * all its replies are in (or, with interval_ns, one batch per interval:
 * a monitor). */
typedef struct gkWorkloadSpec {
    uint32_t clients;       /* connections, one program (default 50) */
    uint32_t pipeline;      /* commands per batch (default 1) */
    uint64_t requests;      /* commands in all; 0 = until stopped */
    uint32_t multi;         /* 1: MULTI ... EXEC around every batch */
    uint32_t keyspace;      /* keys key:0 .. key:N-1, picked at random */
    uint32_t value_size;    /* bytes of SET values (default 3) */
    uint32_t client_cmd_ns; /* client CPU per command (default 400) */
    char command[16];       /* GET, SET, INCR, PING or INFO (default GET) */
    uint64_t interval_ns;   /* 0: back to back; else one batch each */
    uint64_t rtt_ns;        /* round trip of each connection */
    uint64_t bandwidth;     /* bytes per second each way, 0 = unlimited */
} gkWorkloadSpec;

typedef struct gkWorkloadStats {
    uint64_t sent, completed;   /* commands */
    uint64_t batches;
    uint64_t start_ns, end_ns;  /* first batch written, last reply */
    uint64_t lat_count;         /* batches timed */
    uint64_t lat_sum_ns, lat_max_ns, lat_p50_ns, lat_p99_ns;
    uint64_t reads, writes;     /* the program's system calls */
    int32_t done;               /* all requests answered */
} gkWorkloadStats;

/* ---- Functions. ---- */
void gkConfigInit(gkConfig *cfg);
int gkWorldCreate(gkWorld **out, const gkConfig *cfg, gkAllocFn alloc,
                  void *ud);
void gkWorldRelease(gkWorld *w);
const char *gkStatusString(int status);
const char *gkWorldLastError(gkWorld *w);

uint64_t gkWorldNow(gkWorld *w);
size_t gkWorldMemory(gkWorld *w);
int gkWorldStep(gkWorld *w, uint64_t *next_time);
int gkWorldRunUntil(gkWorld *w, uint64_t time_ns);
int gkWorldRunUntilIdle(gkWorld *w);
uint64_t gkWorldNextEventTime(gkWorld *w);

int gkServerAdd(gkWorld *w, int *node_id);
int gkServerConfigSet(gkWorld *w, int node, const char *name,
                      const char *value);
int gkServerConfigGet(gkWorld *w, int node, const char *name, char *buf,
                      size_t cap);

int gkConnOpen(gkWorld *w, int node, int *conn_id);
int gkConnClose(gkWorld *w, int conn);
int gkConnSend(gkWorld *w, int conn, const void *buf, size_t len);
size_t gkConnPending(gkWorld *w, int conn);
size_t gkConnRecv(gkWorld *w, int conn, void *buf, size_t cap);
int gkConnIsOpen(gkWorld *w, int conn);
int gkConnSetLink(gkWorld *w, int conn, uint64_t rtt_ns,
                  uint64_t bytes_per_sec);

uint64_t gkTraceLastSeq(gkWorld *w);
size_t gkTraceRead(gkWorld *w, uint64_t after_seq, gkTraceRecord *out,
                   size_t max);
void gkTraceEnable(gkWorld *w, uint32_t type_mask);

int gkDictGetInfo(gkWorld *w, int node, int db, int kind, gkDictInfo *out);
int gkDictGetBuckets(gkWorld *w, int node, int db, int kind, int table,
                     uint32_t bins, uint32_t *entries, uint32_t *filled);
int gkDictGetBucketKeys(gkWorld *w, int node, int db, int kind, int table,
                        uint64_t bucket, char *out, size_t cap,
                        size_t *written);
int gkDictRehashSteps(gkWorld *w, int node, int db, int kind, int steps);

void gkWorkloadSpecInit(gkWorkloadSpec *spec);
int gkWorkloadStart(gkWorld *w, int server_node, const gkWorkloadSpec *spec,
                    int *id);
int gkWorkloadStop(gkWorld *w, int id);
int gkWorkloadGetStats(gkWorld *w, int id, gkWorkloadStats *out);
size_t gkWorkloadSamples(gkWorld *w, int id, uint64_t *times,
                         uint64_t *latencies, size_t max);
int gkNodeGetStats(gkWorld *w, int node, uint64_t *reads, uint64_t *writes,
                   uint64_t *polls, uint64_t *iterations);

long gkLabRun(const char *name, uint64_t seed, char *out, size_t cap);
const char *gkLabName(int i);
long gkWorkloadRunJson(const gkWorkloadSpec *spec, uint64_t seed, char *out,
                       size_t cap);

int gkScanAuditBegin(gkWorld *w, int node, int db, int conn);
int gkScanAuditGet(gkWorld *w, int node, gkScanAudit *out);
int gkScanAuditMissing(gkWorld *w, int node, char *out, size_t cap,
                       size_t *written);
int gkScanAuditEnd(gkWorld *w, int node);

#ifdef __cplusplus
}
#endif
#endif
