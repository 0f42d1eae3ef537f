/* recovery.h -- the recovery ledger: what a Redis-style process told its
 * clients it had done, kept so that after a crash and a restart the engine
 * can say which acknowledged writes the new process kept, lost, or holds
 * an older value of.
 *
 * What "acknowledged" means. A write command runs, queues its reply, and
 * at the end of its execution unit (a command, or an EXEC with its queue)
 * is propagated: the AOF gets its argv as the command left it (EXPIRE as
 * PEXPIREAT, INCRBYFLOAT as SET ...). The ledger takes the same argv at
 * the same moment, AOF or not, and remembers the unit together with where
 * its reply ends in the client's reply stream. The unit is acknowledged
 * once the client's socket has been written that far -- bytes written are
 * bytes the client will read, even if the process dies right after.
 *
 * The acknowledged dataset. The ledger keeps a second keyspace of its own,
 * the shadow: the dataset as the process loaded it at start, then every
 * unit applied in execution order, with the AOF loader's rules (a fake
 * client, nothing expires while loading). A unit is applied once its fate
 * is known -- acknowledged, or never to be (its client went away with the
 * reply unwritten) -- and units wait in a window until then, so the shadow
 * lags the real dataset by the replies still in flight: normally the
 * commands of the current iteration. Applying a unit never acknowledged
 * first saves, in an overlay, the value each key it changes had (the
 * scratch server's keyhook says which keys a write is about to change);
 * a later acknowledged write to the key drops the saved value again. So
 * for every key the acknowledged value is the overlay's, if it has one,
 * else the shadow's: the value right after the last acknowledged write to
 * the key, with whatever unacknowledged writes before it did.
 *
 * At a crash the replies are final: the window is applied whole, and the
 * ledger (the shadow plus the overlay) outlives the process on its
 * machine until the next restart compares it with the new dataset.
 *
 * Memory. The shadow is a second copy of the dataset, in the ledger's own
 * gkMem over the host's allocator (not counted in the server's
 * used_memory nor in gkWorldMemory). On top of it: the window, at most
 * RL_WINDOW_UNITS units or RL_WINDOW_BYTES bytes of arguments -- past
 * that (a client that stops reading its replies) the oldest unit is
 * applied as if acknowledged and counted as assumed; one small record per
 * key written since start, with at most RL_TOMBSTONES records of keys
 * deleted since (older ones are dropped, the latest of them remembered);
 * and the overlay, the size of the keys unacknowledged writes changed.
 * All of it may take half the node's heap limit (the whole engine must
 * fit in 4 GB in WebAssembly, the disk's files included): past that the
 * ledger stops, lets its memory go, and the report says so. */
#ifndef GK_RECOVERY_H
#define GK_RECOVERY_H

#include "server.h"

#define RL_WINDOW_UNITS 65536
#define RL_WINDOW_BYTES (32u * 1024 * 1024)
#define RL_TOMBSTONES 65536
#define RL_MARKS 65536          /* (unit, offset) pairs kept for counting
                                   the units a restart holds */
#define RL_FILES 64             /* AOF files remembered, the latest */

/* A unit's fate. */
#define RL_PENDING 0            /* its reply is not written yet */
#define RL_ACKED 1              /* written (or nobody waits for a reply) */
#define RL_UNACKED 2            /* its client went away without it */

/* One propagated command of a unit. */
typedef struct rlOp {
    int dbid;
    int argc;
    sds *argv;
} rlOp;

/* An execution unit, as the AOF gets it. */
typedef struct rlUnit {
    uint64_t seq;               /* 1, 2, ... in execution order */
    uint64_t client;            /* client id; 0 for the server's own */
    int fd;                     /* the client's connection */
    int cmd;                    /* id of the command it ran, -1 none */
    int status;                 /* RL_* */
    int nops;
    rlOp *ops;
    uint64_t reply_end;         /* the client's reply_queued after it */
    uint64_t acked_at;          /* virtual ns, once acknowledged */
    long long mstime;           /* when it ran (unix ms) */
    long long aof_end;          /* AOF stream offset after it, -1 if the
                                   AOF did not get it */
    size_t bytes;               /* its arguments' bytes */
} rlUnit;

/* The last acknowledged write to a key (or to a whole db: a flush). */
typedef struct rlMeta {
    uint64_t seq;               /* its unit; 0: none since start */
    uint64_t op;                /* its command (recoveryLedger.op) */
    long long aof_end;          /* its unit's aof_end */
    uint64_t at;                /* when it was acknowledged (ns) */
    uint32_t count;             /* acknowledged writes to the key */
    int cmd;                    /* command id, -1 none */
} rlMeta;

/* An AOF file the process's stream went to. An incr file holds the
 * stream from offset fed_start on (negative for the bytes it already held
 * when the process started), and every unit up to seq ran before it
 * began. A base file a rewrite of the process made holds the dataset
 * after unit seq; the base the process started from holds seq 0. */
#define RL_FILE_INCR 0
#define RL_FILE_BASE 1

typedef struct rlFile {
    sds path;                   /* "dir/name" */
    int kind;                   /* RL_FILE_* */
    int startup;                /* it was in the manifest at start */
    long long fed_start;
    long long size0;            /* a startup incr file's size then */
    uint64_t seq;
} rlFile;

/* Where a unit the AOF got ends in its stream. */
typedef struct rlMark {
    uint64_t seq;
    long long aof_end;
} rlMark;

/* A key's value in a form two servers can be compared in: its type, its
 * expire time and its elements, sorted (a list's in their order). */
typedef struct rlElem {
    sds a, b;                   /* member (field); a hash's value */
    double score;               /* a sorted set's */
} rlElem;

typedef struct rlImage {
    int type;                   /* OBJ_* */
    long long expire;           /* unix ms, -1 none */
    sds str;                    /* a string's bytes */
    size_t n;                   /* elements of a collection */
    rlElem *el;
} rlImage;

typedef struct recoveryLedger {
    gkMem mem;                  /* all it holds but this struct */
    gkRng rng;                  /* the shadow's, never the world's */
    redisServer *shadow;        /* the acknowledged dataset */
    client *fake;               /* runs units in the shadow */
    int dbnum;
    int broken;                 /* stopped: past its limit */
    size_t limit;               /* half the heap limit (0: none) */
    /* The window: units run but not yet applied, oldest first. */
    rlUnit *units;
    size_t head, count, cap;
    size_t window_bytes;
    rlUnit open;                /* the unit being propagated */
    int open_cap;
    long long open_fed;         /* the AOF's fed bytes when it opened */
    uint64_t seq;               /* units so far */
    rlUnit *applying;           /* the unit keyhook hears about */
    uint64_t op;                /* commands applied so far: a command
                                   naming a key twice writes it once */
    /* Per db: the last acknowledged write of each key written since
     * start, the values unacknowledged writes replaced, and the last
     * acknowledged flush. */
    dict **meta;                /* sds key -> rlMeta */
    dict **overlay;             /* sds key -> rlImage (NULL: absent) */
    rlMeta *flushed;
    rlMeta purged;              /* latest of the dropped tombstones */
    /* The files of the process's AOF stream, oldest first. */
    rlFile files[RL_FILES];
    int nfiles;
    /* The latest units the AOF got, oldest first (a ring). */
    rlMark *marks;
    size_t marks_head, nmarks, marks_cap;
    int marks_dropped;          /* older ones were overwritten */
    /* Counters of commands (a transaction's one by one), as the fates of
     * their units become known. */
    uint64_t writes;            /* of clients, acknowledged */
    uint64_t unacked;           /* of clients, never acknowledged */
    uint64_t assumed;           /* taken as acknowledged before they were */
    /* Set when the process dies. */
    int finished;
    int crash_kind;
    int policy;                 /* as GK_TR_CRASH's c */
    uint64_t died_at;           /* virtual ns */
    long long cutoff_ms;        /* keys expiring by then count as absent */
} recoveryLedger;

/* The report of one restart (recovery_report.c). */
typedef struct recoveryReport {
    gkMem mem;
    gkRecoveryInfo info;
    gkRecoveryRow *rows;        /* info.rows of them, most telling first */
} recoveryReport;

/* The size of a file on the machine's disk, -1 if there is none: asked
 * of the disk directly, not through the process's system calls. */
typedef long long recoveryFileSize(void *ctx, const char *path);

/* The running process (server.c, networking.c, db.c). */
recoveryLedger *recoveryCreate(redisServer *s, recoveryFileSize *size,
                               void *ctx);
void recoveryRelease(recoveryLedger *l);
void recoveryOp(redisServer *s, int dbid, robj **argv, int argc);
void recoveryUnitEnd(redisServer *s, client *c);
void recoveryAdvance(redisServer *s);
void recoveryClientGone(redisServer *s, client *c);
size_t recoveryMemory(const recoveryLedger *l);
/* The machine (machine.c). */
void recoveryFinish(recoveryLedger *l, redisServer *s, int kind,
                    uint64_t died_at, long long cutoff_ms);
rlMeta recoveryLastWrite(recoveryLedger *l, int dbid, sds key);
/* Images and the report (recovery_report.c). */
rlImage *rlImageCreate(gkMem *m, redisDb *db, sds key, long long cutoff_ms);
void rlImageRelease(gkMem *m, rlImage *img);
recoveryReport *recoveryCompare(recoveryLedger *l, redisServer *r,
                                recoveryFileSize *size, void *ctx,
                                uint64_t now);
void recoveryReportRelease(recoveryReport *rep);

#endif
