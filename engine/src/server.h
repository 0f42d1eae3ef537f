/* server.h -- the Redis-style server node: objects, databases, clients,
 * commands and the server state they share. */
#ifndef GK_SERVER_H
#define GK_SERVER_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <limits.h>
#include "glasskv.h"
#include "mem.h"
#include "sds.h"
#include "dict.h"
#include "ae.h"
#include "rng.h"
#include "trace.h"
#include "util.h"
#include "fs.h"
#include "slog.h"
#include "bio.h"
#include "aof.h"
#include "child.h"
#include "status.h"
#include "quicklist.h"
#include "slowlog.h"
#include "latency.h"

/* ---- Limits and defaults (Redis 7.0 values). ---- */
#define PROTO_IOBUF_LEN (1024 * 16)        /* read size */
/* Fixed replies passed around as text (addReplyFixed, lookupKey...OrReply):
 * written as RESP2 has them, the nulls and the empty map and set go out in
 * the client's protocol. */
#define REPLY_NULL "$-1\r\n"
#define REPLY_NULL_ARRAY "*-1\r\n"
#define REPLY_EMPTY_MAP "%0\r\n"
#define REPLY_EMPTY_SET "~0\r\n"

/* The classes of client-output-buffer-limit, in Redis's order. */
#define CLIENT_TYPE_NORMAL 0
#define CLIENT_TYPE_SLAVE 1
#define CLIENT_TYPE_PUBSUB 2
#define CLIENT_TYPE_OBUF_COUNT 3
#define CLIENT_TYPE_MASTER 3       /* no limits of its own: normal's */

/* One class's limits: close a client whose output buffer reaches hard
 * bytes, or stays at soft bytes or more for over soft_seconds. 0: none. */
typedef struct clientBufferLimits {
    long long hard, soft, soft_seconds;
} clientBufferLimits;

/* enable-debug-command: who may run DEBUG. */
#define PROTECTED_ACTION_ALLOWED_NO 0
#define PROTECTED_ACTION_ALLOWED_YES 1
#define PROTECTED_ACTION_ALLOWED_LOCAL 2

/* The release of Redis whose behaviour the engine follows. */
#define REDIS_VERSION "7.0.15"
#define REDIS_VERSION_NUM 0x0007000f
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024) /* reply buffer and blocks */
#define PROTO_INLINE_MAX_SIZE (1024 * 64)  /* inline request line */
#define PROTO_MBULK_BIG_ARG (1024 * 32)
#define PROTO_BIG_READ_MAX (4 * 1024 * 1024) /* a big argument's read */
#define NET_MAX_WRITES_PER_EVENT (1024 * 64)
#define CONFIG_DEFAULT_HZ 10
#define CONFIG_MIN_HZ 1
#define CONFIG_MAX_HZ 500
#define CONFIG_DEFAULT_DBNUM 16
#define CRON_DBS_PER_CALL 16
#define CONFIG_MAX_SAVE_POINTS 16
#define CONFIG_MAX_PERCENTILES 128
#define CONFIG_FDSET_INCR 128     /* 32 reserved descriptors and 96 more */
#define OBJ_SHARED_BULKHDR_LEN 32
#define OBJ_ENCODING_EMBSTR_SIZE_LIMIT 44
#define OBJ_SHARED_INTEGERS 10000
#define OBJ_SHARED_REFCOUNT INT_MAX     /* never counted up or down */

#define LOOKUP_NONE 0
#define LOOKUP_NOTOUCH (1 << 0)
#define LOOKUP_NONOTIFY (1 << 1)
#define LOOKUP_WRITE (1 << 3)

/* ---- Objects. ---- */
#define OBJ_STRING 0
#define OBJ_LIST 1
#define OBJ_SET 2
#define OBJ_ZSET 3
#define OBJ_HASH 4
#define OBJ_STREAM 6

#define OBJ_ENCODING_RAW 0
#define OBJ_ENCODING_INT 1
#define OBJ_ENCODING_HT 2
#define OBJ_ENCODING_INTSET 6
#define OBJ_ENCODING_SKIPLIST 7
#define OBJ_ENCODING_EMBSTR 8
#define OBJ_ENCODING_QUICKLIST 9
#define OBJ_ENCODING_STREAM 10
#define OBJ_ENCODING_LISTPACK 11

/* The access clock of Redis 7.0: 24 bits of seconds (LRU), or under an LFU
 * policy 16 bits of minutes and an 8-bit logarithmic counter. */
#define LRU_BITS 24
#define LRU_CLOCK_MAX ((1 << LRU_BITS) - 1)
#define LRU_CLOCK_RESOLUTION 1000   /* ms per tick */
#define LFU_INIT_VAL 5

typedef struct robj {
    unsigned type : 4;      /* OBJ_* */
    unsigned encoding : 4;  /* OBJ_ENCODING_* */
    unsigned lru : LRU_BITS;/* LRU clock of the last access, or LFU data
                               (minutes << 8 | counter) */
    int32_t refcount;
    union {
        void *ptr;      /* sds, dict, intset, listpack, zset, quicklist */
        int64_t ll;     /* OBJ_ENCODING_INT strings */
    } v;
} robj;

/* A robj on the stack that only names p (a key, say) for a lookup. */
#define OBJ_VIEW(t, e, p) \
    { .type = (t), .encoding = (e), .refcount = 1, .v = { (p) } }

#define sdsEncodedObject(o) ((o)->encoding == OBJ_ENCODING_RAW || \
                             (o)->encoding == OBJ_ENCODING_EMBSTR)

/* ---- Sorted sets (skiplist encoding). ---- */
#define ZSKIPLIST_MAXLEVEL 32
#define ZSKIPLIST_P 0.25

typedef struct zskiplistNode {
    sds ele;
    double score;
    struct zskiplistNode *backward;
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span;
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    struct zskiplistNode *header, *tail;
    unsigned long length;
    int level;
} zskiplist;

typedef struct zset {
    dict *dict;         /* member -> pointer to its score in the node */
    zskiplist *zsl;
} zset;

/* ---- Databases. ---- */
typedef struct redisDb {
    dict *dict;                 /* the keyspace: sds key -> robj */
    dict *expires;              /* sds key (shared with dict) -> int64 ms */
    int id;
    long long avg_ttl;
    uint64_t expires_cursor;    /* active expire's SCAN cursor */
    dict *watched_keys;         /* WATCHed key -> clients watching it */
    dict *blocking_keys;        /* key -> queue of clients blocked on it */
    dict *ready_keys;           /* keys queued in the server's ready_keys */
} redisDb;

/* ---- Replies: the client's fixed buffer, then a list of blocks. ---- */
typedef struct clientReplyBlock {
    struct clientReplyBlock *next;
    size_t size, used;
    char buf[];
} clientReplyBlock;

/* ---- Clients. ---- */
#define CLIENT_CLOSE_AFTER_REPLY (1 << 6)
#define CLIENT_SLAVE (1 << 0)          /* a replica (SYNC) */
#define CLIENT_MASTER (1 << 1)         /* this replica's link to its master */
#define CLIENT_MASTER_FORCE_REPLY (1 << 13) /* the master gets this reply */
#define CLIENT_MULTI (1 << 3)
#define CLIENT_PENDING_WRITE (1 << 21)
#define CLIENT_CLOSE_ASAP (1 << 10)
#define CLIENT_SCAN_AUDIT (1 << 30)
#define CLIENT_DIRTY_CAS (1 << 5)
#define CLIENT_DIRTY_EXEC (1 << 12)
#define CLIENT_FORCE_PROP (1ULL << 31)  /* propagate even if not dirty */
#define CLIENT_PREVENT_PROP (1ULL << 19) /* the command itself is not
                                            propagated, though dirty */
#define CLIENT_FAKE (1ULL << 32)        /* the AOF loader: no replies */
#define CLIENT_BLOCKED (1 << 4)         /* waiting in a blocking command */
#define CLIENT_UNBLOCKED (1 << 7)       /* queued to read its input again */
#define CLIENT_DENY_BLOCKING (1ULL << 41) /* blocking commands never block */
#define CLIENT_MONITOR (1 << 2)         /* MONITOR: fed every command run */
#define CLIENT_SCRIPT (1 << 8)          /* a script's client (its calls are
                                           "lua" to MONITOR) */
#define CLIENT_UNIX_SOCKET (1 << 11)    /* connected on a unix socket */
#define CLIENT_PUBSUB (1 << 18)         /* subscribed to something */
#define CLIENT_REPLY_OFF (1 << 22)      /* CLIENT REPLY OFF */
#define CLIENT_REPLY_SKIP_NEXT (1 << 23) /* CLIENT REPLY SKIP: skip the
                                            next command's reply */
#define CLIENT_REPLY_SKIP (1 << 24)     /* the current one's, that is */
#define CLIENT_FORCE_REPL (1ULL << 42)  /* send to the replicas, though
                                           not dirty (PUBLISH) */
#define CLIENT_NO_EVICT (1ULL << 43)    /* CLIENT NO-EVICT ON */
#define CLIENT_PUSHING (1ULL << 44)     /* writing a Pub/Sub message,
                                           which CLIENT REPLY lets by */
#define CLIENT_PROTECTED (1ULL << 47)     /* a busy script's caller: not
                                              read until the script ends */
#define CLIENT_ERROR_NO_STATS (1ULL << 46) /* its error replies are not
                                              counted (counted already) */
#define CLIENT_PENDING_COMMAND (1ULL << 45) /* argv holds a command held by a
                                               pause, to run once resumed */
#define CLIENT_CLOSE_AFTER_COMMAND (1ULL << 40) /* closed once the command
                                                   running is done and its
                                                   reply written (its user
                                                   was deleted) */
/* Client-side caching (tracking.c). */
#define CLIENT_TRACKING (1ULL << 48)    /* CLIENT TRACKING ON */
#define CLIENT_TRACKING_BROKEN_REDIR (1ULL << 49) /* the client its messages
                                                     go to has gone */
#define CLIENT_TRACKING_BCAST (1ULL << 50)  /* told of prefixes' changes */
#define CLIENT_TRACKING_OPTIN (1ULL << 51)  /* tracks after CACHING yes */
#define CLIENT_TRACKING_OPTOUT (1ULL << 52) /* unless after CACHING no */
#define CLIENT_TRACKING_CACHING (1ULL << 53) /* CACHING yes/no was given
                                                for the next command */
#define CLIENT_TRACKING_NOLOOP (1ULL << 54) /* not told of its own changes */
#define CLIENT_PRE_PSYNC (1ULL << 55)   /* a replica that sent SYNC: no
                                           +FULLRESYNC, no +CONTINUE */

/* Where a propagated command goes. */
#define PROPAGATE_AOF 1
#define PROPAGATE_REPL 2

#define PROTO_REQ_INLINE 1
#define PROTO_REQ_MULTIBULK 2

struct redisCommand;
struct redisServer;
struct user;
struct rax;

/* A command queued by MULTI, and the queue. */
typedef struct multiCmd {
    robj **argv;
    int argc;
    const struct redisCommand *cmd;
} multiCmd;

typedef struct multiState {
    multiCmd *commands;
    int count, cap;
    uint64_t cmd_flags;         /* union of the queued commands' flags */
    uint64_t cmd_inv_flags;     /* union of their complements */
} multiState;

/* ---- Blocking operations (blocked.c). ---- */
#define BLOCKED_NONE 0
#define BLOCKED_LIST 1          /* BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP */
#define BLOCKED_ZSET 2          /* the sorted-set pops */
#define BLOCKED_STREAM 3        /* XREAD and XREADGROUP */
#define BLOCKED_POSTPONE 4      /* held by CLIENT PAUSE (clientadmin.c) */
#define BLOCKED_WAIT 5          /* WAIT, for the replicas' acks */
#define BLOCKED_NUM 6

struct bkEntry;

/* What a client blocked on keys waits for (Redis's bpop). */
typedef struct blockingState {
    long long timeout;          /* unix ms it times out after, 0: never */
    robj **keys;                /* each key once, in the order given */
    struct bkEntry **entries;   /* its place in each key's queue */
    int nkeys;
    robj *target;               /* BLMOVE's destination, or NULL */
    int wherefrom, whereto;     /* LIST_HEAD / LIST_TAIL, ZSET_MIN/MAX */
    long long count;            /* elements wanted, -1: the plain form;
                                   WAIT: the replicas wanted */
    long long reploffset;       /* WAIT: the offset they must ack */
    int in_timeout_table;
    /* XREAD and XREADGROUP: per key (in keys' order) the ID entries must
     * be past, and the group, consumer and NOACK of XREADGROUP. */
    struct streamID *xread_ids;
    struct robj *xread_group, *xread_consumer;
    int xread_group_noack;
} blockingState;

typedef struct client {
    uint64_t id;
    int fd;                     /* the connection id in the world */
    struct redisServer *srv;
    redisDb *db;
    sds name;
    sds querybuf;               /* bytes read, not yet parsed */
    size_t qb_pos;              /* parse position in querybuf */
    size_t querybuf_peak;
    int reqtype;                /* PROTO_REQ_* of the request being read */
    int multibulklen;           /* arguments left to read */
    long long bulklen;          /* length of the argument being read */
    size_t request_bytes;       /* the arguments of the command being
                                   dispatched, just read (cost.h's
                                   costDisplacedNs) */
    int argc, argv_len;
    robj **argv;
    /* The arguments as the client sent them, kept when a command rewrites
     * argv (GEOADD runs as ZADD ...) for the slow log; NULL if not. */
    robj **original_argv;
    int original_argc;
    const struct redisCommand *cmd, *lastcmd;
    uint64_t flags;
    /* The ACL user (acl.h) it is logged in as, NULL for the server's own
     * clients (which may run anything); and whether it has logged in. */
    struct user *user;
    int authenticated;
    int resp;                   /* protocol version: 2 or 3 (HELLO) */
    char *buf;                  /* first reply bytes go here */
    size_t buf_usable_size, bufpos, sentlen;
    clientReplyBlock *reply, *reply_tail;  /* then here, in order */
    size_t reply_bytes;
    uint64_t ctime_ms;          /* creation, virtual unix ms */
    uint64_t lastinteraction_ms;
    uint64_t net_input_bytes, net_output_bytes, commands_processed;
    struct client *next_pending;  /* clients_pending_write list */
    multiState mstate;          /* MULTI queue */
    void *watched;              /* watchedKey array (multi.c) */
    int watched_count, watched_cap;
    /* Reply bytes, counted for the recovery ledger (recovery.c): queued
     * since the connection opened, and of those, written to the socket
     * while the process was alive (a write after its death never left). */
    uint64_t reply_queued, reply_delivered;
    /* A replica's last acknowledged offset and when (INFO replication),
     * and what it said of itself with REPLCONF. */
    long long repl_ack_off, repl_ack_time_ms;
    long long woff;             /* master_repl_offset after the last of
                                   its commands that propagated (WAIT) */
    int slave_listening_port;
    int slave_capa;             /* SLAVE_CAPA_* */
    /* A replica's full sync (replication.c): where it is (SLAVE_STATE_*),
     * the offset its RDB stands for, the RDB being sent and how much of
     * it went; a diskless replica streams from its first ACK on. */
    int replstate;
    int repl_start_cmd_stream_on_ack;
    long long psync_initial_offset;
    struct replRdb *repl_rdb;
    size_t repl_rdb_pos;
    /* unix seconds of the last write of a diskless RDB its socket did not
     * take in full, 0 once it took all there was: the full sync's
     * timeout counts from it */
    long long repl_last_partial_write;
    /* The master's link on a replica: the stream offset read so far, and
     * applied (the commands executed) so far. */
    long long read_reploff, reploff;
    long reply_blocks;          /* blocks in the reply list */
    long long obuf_soft_limit_reached_time;  /* unix seconds, 0: not */
    int btype;                  /* BLOCKED_* while CLIENT_BLOCKED */
    blockingState bpop;
    struct client *next_unblocked;  /* the server's unblocked queue */
    /* Pub/Sub (pubsub.c): channels and shard channels subscribed (sds ->
     * nothing, NULL until the first), patterns in subscription order. */
    dict *pubsub_channels, *pubsubshard_channels;
    sds *pubsub_patterns;
    int pubsub_npatterns, pubsub_patterns_cap;
    /* "ip:port" of the peer and of this end, found when first asked for
     * (getClientPeerId, getClientSockName); "" until then. */
    char peerid[64], sockname[64];
    /* Client-side caching (tracking.c): the id of the client that gets
     * this one's invalidation messages (0: itself), and in BCAST mode
     * its prefixes (prefix -> nothing, NULL until the first). */
    uint64_t tracking_redirect;
    struct rax *tracking_prefixes;
} client;

/* ---- Commands. ---- */
typedef void redisCommandProc(client *c);

#define CMD_WRITE (1 << 0)
#define CMD_READONLY (1 << 1)
#define CMD_DENYOOM (1 << 2)
#define CMD_ADMIN (1 << 4)
#define CMD_FAST (1 << 14)
#define CMD_NOSCRIPT (1 << 6)   /* not from scripts */
#define CMD_SKIP_MONITOR (1 << 11) /* never shown to MONITOR */
#define CMD_NO_AUTH (1 << 15)   /* allowed before AUTH */
#define CMD_MAY_REPLICATE (1 << 16) /* may propagate, so a WRITE pause
                                       holds it */
#define CMD_LOADING (1 << 9)
#define CMD_STALE (1 << 10)
#define CMD_NO_MULTI (1 << 24)  /* refused inside MULTI */
#define CMD_SKIP_SLOWLOG (1 << 12) /* not logged (EXEC: what it runs is) */
#define CMD_ALLOW_BUSY (1ULL << 26) /* runs while a script is busy */
#define CMD_TOUCHES_ARBITRARY_KEYS (1ULL << 28) /* its lazy expiries go
                                                 * out without MULTI */
#define CMD_PROTECTED (1ULL << 29) /* DEBUG, MODULE LOAD: refused unless
                                    * enable-debug-command or
                                    * enable-module-command allows it */

/* SHUTDOWN's flags (prepareForShutdown). */
#define SHUTDOWN_NOFLAGS 0
#define SHUTDOWN_SAVE 1
#define SHUTDOWN_NOSAVE 2
#define SHUTDOWN_NOW 4
#define SHUTDOWN_FORCE 8

typedef struct redisCommand {
    const char *declared_name;  /* lower case, as the table declares it */
    redisCommandProc *proc;
    int arity;                  /* >0 exact argc, <0 at least -arity */
    uint64_t flags;             /* CMD_* */
    const struct redisCommand *subcommands; /* NULL-terminated, or NULL */
    const char *fullname;       /* "config|get" for subcommands */
    int id;                     /* 0 .. redisCommandCount - 1 */
} redisCommand;

/* The error replies of one code (INFO errorstats). */
#define ERROR_STATS_NUMBER 128
typedef struct errorStat {
    char code[48];
    long long count;
} errorStat;

/* Per-server statistics of one command (INFO commandstats). */
typedef struct cmdStats {
    long long calls, ns, rejected, failed;  /* ns: virtual CPU time */
    long long max_ns;           /* the longest call: how long one held
                                   the event loop (the labs' freeze) */
} cmdStats;

/* maxmemory-policy: which keys an eviction would pick, and whether keys
 * keep LRU or LFU access data (Redis 7.0's values). */
#define MAXMEMORY_FLAG_LRU (1 << 0)
#define MAXMEMORY_FLAG_LFU (1 << 1)
#define MAXMEMORY_FLAG_ALLKEYS (1 << 2)
#define MAXMEMORY_FLAG_NO_SHARED_INTEGERS \
    (MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_LFU)
#define MAXMEMORY_VOLATILE_LRU ((0 << 8) | MAXMEMORY_FLAG_LRU)
#define MAXMEMORY_VOLATILE_LFU ((1 << 8) | MAXMEMORY_FLAG_LFU)
#define MAXMEMORY_VOLATILE_TTL (2 << 8)
#define MAXMEMORY_VOLATILE_RANDOM (3 << 8)
#define MAXMEMORY_ALLKEYS_LRU ((4 << 8) | MAXMEMORY_FLAG_LRU | \
                               MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_LFU ((5 << 8) | MAXMEMORY_FLAG_LFU | \
                               MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_RANDOM ((6 << 8) | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_NO_EVICTION (7 << 8)

/* ---- Configuration parameters the server uses. ---- */
typedef struct serverConfig {
    int hz;
    int dynamic_hz;
    int activerehashing;
    int active_expire_effort;
    long long maxmemory;
    int maxmemory_policy;       /* MAXMEMORY_* */
    int lfu_log_factor;
    int lfu_decay_time;         /* minutes per halving period */
    int maxmemory_samples;      /* keys sampled per eviction round */
    long long maxmemory_clients; /* clients' memory limit: bytes, or -N
                                   for N% of maxmemory; 0 none */
    int key_load_delay;         /* loading: us per key, or (negative) 1 us
                                   every -N keys */
    int maxmemory_eviction_tenacity; /* 0-100: how long a round may run */
    int repl_slave_ignore_maxmemory; /* a replica evicts nothing itself */
    long long proto_max_bulk_len;
    long long hll_sparse_max_bytes; /* a sparse HLL's limit */
    long long client_max_querybuf_len;
    long long set_max_intset_entries;
    long long hash_max_listpack_entries;
    long long hash_max_listpack_value;
    long long zset_max_listpack_entries;
    long long zset_max_listpack_value;
    long long stream_node_max_bytes;    /* a stream node's bytes at most */
    long long stream_node_max_entries;  /* and its entries */
    long long list_max_listpack_size;   /* a new list's fill */
    long long list_compress_depth;      /* a new list's compress depth */
    int lazyfree_lazy_user_del;
    int lazyfree_lazy_user_flush;
    int lazyfree_lazy_expire;
    int lazyfree_lazy_eviction;
    int notify_keyspace_events; /* NOTIFY_* classes enabled */
    long long maxclients;
    long long timeout;
    int databases;
    int loglevel;               /* LL_* (slog.h) */
    /* The slow log and the latency monitor (slowlog.c, latency.c). */
    long long slowlog_log_slower_than;  /* microseconds, -1: off */
    long long slowlog_max_len;
    long long busy_reply_threshold;     /* ms a script runs before -BUSY */
    long long latency_monitor_threshold; /* milliseconds, 0: off */
    int latency_tracking;               /* LATENCY HISTOGRAM's figures */
    double latency_percentiles[CONFIG_MAX_PERCENTILES]; /* INFO's */
    int latency_percentiles_n;
    int enable_debug_cmd;       /* PROTECTED_ACTION_ALLOWED_* */
    int enable_module_cmd;      /* PROTECTED_ACTION_ALLOWED_* */
    long long repl_ping_period; /* repl-ping-replica-period, seconds */
    clientBufferLimits obuf_limits[CLIENT_TYPE_OBUF_COUNT];
    long long repl_backlog_size;
    int repl_slave_ro;          /* replica-read-only */
    int repl_serve_stale_data;  /* replica-serve-stale-data */
    long long repl_min_slaves_to_write; /* min-replicas-to-write */
    long long repl_min_slaves_max_lag;  /* min-replicas-max-lag */
    int repl_diskless_sync;     /* repl-diskless-sync */
    long long repl_diskless_sync_delay;        /* seconds */
    long long repl_diskless_sync_max_replicas; /* 0: no limit */
    long long repl_timeout;     /* seconds */
    long long replica_priority;
    int replica_announced;
    char masterauth[128];
    char masteruser[128];
    /* The AOF (aof.h). */
    int appendonly;             /* appendonly yes/no */
    int appendfsync;            /* AOF_FSYNC_* */
    int aof_use_rdb_preamble;
    int aof_load_truncated;
    int aof_timestamp_enabled;
    int aof_no_fsync_on_rewrite;    /* no-appendfsync-on-rewrite */
    int aof_rewrite_incremental_fsync;
    int aof_disable_auto_gc;
    int stop_writes_on_bgsave_err;  /* MISCONF after a failed BGSAVE */
    int rdb_key_save_delay;     /* a child's extra us per key (tests) */
    long long auto_aof_rewrite_perc;
    long long auto_aof_rewrite_min_size;
    char appendfilename[128];
    char appenddirname[128];
    /* save: the RDB save points, kept and reported as Redis does. The
     * engine takes no RDB snapshots on a schedule, so nothing acts on
     * them; the suite and tools set and read them. At most
     * CONFIG_MAX_SAVE_POINTS (Redis has no limit). */
    int save_n;
    long long save_seconds[CONFIG_MAX_SAVE_POINTS];
    int save_changes[CONFIG_MAX_SAVE_POINTS];
    char dbfilename[128];       /* the RDB file, in the server's dir */
    /* ACL (acl.c). */
    long long acllog_max_len;   /* ACL LOG entries kept */
    int acl_pubsub_default;     /* a new user's channels: 0 (none) or
                                   SELECTOR_FLAG_ALLCHANNELS */
    char aclfile[128];          /* the ACL file, "" for none */
    long long tracking_table_max_keys;  /* 0: no limit */
} serverConfig;

/* ---- SCAN audit (observation only; see glasskv.h). ---- */
typedef struct scanAudit {
    int active;
    int dbid;
    uint64_t client_id;
    dict *keys;                 /* sds key -> flags (u64) */
    gkScanAudit counts;
    gkMem mem;                  /* the records' memory: the world's, not
                                   the server's used_memory */
    dictEnv env;                /* keys's: that memory, charging nothing */
} scanAudit;

#define AUDIT_PRESENT_THROUGHOUT 1
#define AUDIT_RETURNED 2

/* ---- SCAN hook (observation only): what the world's SCAN walker
 * (scanwalk.c) is told of the SCANs of the keyspace one client sends. ---- */
typedef struct scanHook {
    uint64_t client_id;         /* the client observed, 0 for none */
    void (*call)(void *ctx, dict *d);   /* a SCAN of d begins */
    void (*bucket)(void *ctx, dict *d, int table, uint64_t idx);
                                /* it visits this bucket, in this order */
    void *ctx;
} scanHook;

/* ---- The server. ---- */
typedef struct redisServer {
    int node;
    gkMem *mem;                 /* &own */
    gkMem own;                  /* this server's memory: used_memory */
    dictEnv denv;               /* shared by every dict of this server */
    quicklistEnv qlenv;         /* shared by every list of this server */
    aeEventLoop *el;
    dict *commands;             /* name (nocase) -> redisCommand */
    cmdStats *cmdstats;         /* indexed by redisCommand.id */
    /* INFO errorstats: error replies by their code ("ERR", "WRONGTYPE"),
     * in the codes' order; Redis keeps at most 128 codes. */
    struct errorStat *errstats;
    int nerrstats;
    slowlog slowlog;            /* slowlog.c */
    latencyState latency;       /* latency.c */
    int ncommands;
    const redisCommand *cmdtable;
    redisDb *db;
    serverConfig cfg;
    client **clients;           /* indexed by fd */
    int clients_cap;
    int numclients;
    client *pending_write;      /* clients with replies to write */
    int clients_to_close;       /* clients flagged CLOSE_ASAP */
    uint64_t next_client_id;
    client *current_client;
    /* Time, cached at the start of each event (virtual). */
    long long mstime;           /* unix ms */
    unsigned int lruclock;      /* LRU clock, refreshed by serverCron */
    long long ustime;           /* unix us */
    /* Cron state. */
    int hz;                     /* effective hz (dynamic-hz may raise it) */
    long long cronloops;
    int resize_db, rehash_db;
    unsigned int expire_db;
    int expire_timelimit_exit;
    int active_expire_disabled; /* DEBUG SET-ACTIVE-EXPIRE 0 */
    int pause_cron;             /* DEBUG PAUSE-CRON 1: the cron does nothing */
    int script_disable_deny_script; /* DEBUG SET-DISABLE-DENY-SCRIPTS 1:
                                     * scripts may call noscript commands */
    uint64_t last_fast_expire_ns;
    uint64_t start_ns;
    /* Statistics (INFO stats). */
    long long dirty;
    /* The RDB file (SAVE, LASTSAVE, INFO persistence). */
    long long lastsave;         /* unix seconds of the last good save */
    int lastbgsave_status;      /* C_OK or C_ERR */
    long long stat_rdb_saves;
    long long dirty_before_bgsave;  /* dirty when the BGSAVE child forked */
    long long lastbgsave_try;   /* unix seconds of the last BGSAVE fork */
    long long rdb_save_time_start;  /* unix seconds, -1 if none running */
    long long rdb_save_time_last;   /* seconds the last BGSAVE took, or -1 */
    int rdb_bgsave_scheduled;   /* BGSAVE once no child is running */
    long long rdb_last_load_keys_loaded, rdb_last_load_keys_expired;
    long long stat_numcommands, stat_numconnections;
    long long stat_expiredkeys, stat_keyspace_hits, stat_keyspace_misses;
    long long stat_evictedkeys; /* keys evicted for maxmemory */
    long long stat_evictedclients; /* clients evicted, maxmemory-clients */
    /* maxmemory (evict.c): whether the last command found no room (a
     * script's denyoom commands are refused then), the candidates' pool,
     * the random policies' next database, the timer finishing a round. */
    int pre_command_oom_state;
    void *evict_pool;
    unsigned evict_next_db;
    long long evict_timer_id;
    long long stat_net_input_bytes, stat_net_output_bytes;
    long long stat_rejected_conn, stat_total_error_replies;
    long long stat_sync_full, stat_sync_partial_ok, stat_sync_partial_err;
    /* stat_total_error_replies when the last call began or ended, or a
     * script's command was refused: a call failed if errors came since
     * (an error a script's redis.pcall caught is not its failure). */
    long long stat_errors_seen;
    long long stat_unexpected_error_replies;
    long long stat_expired_stale_perc_x100;
    long long stat_inst_last_ns, stat_inst_last_cmds;
    long long stat_inst_ops_per_sec;
    size_t heap_limit;
    uint32_t cmd_cost_ns;       /* virtual CPU per command (dispatch) */
    uint32_t cmd_cost_ns_per_kb;/* and per KB of arguments */
    int64_t unix_ms_at_zero;    /* wall clock at virtual time 0 */
    int run_id_set;
    char runid[41];
    scanAudit audit;
    scanHook scan_hook;
    /* Persistence. */
    fsBackend fs;               /* the main thread's file backend */
    fsBackend child_fs;         /* the forked child's (child.c) */
    jobBackend jobs;            /* the background threads' (bio.c) */
    gkLog *log;                 /* the machine's log (slog.h) */
    int pid;                    /* process id in the log and INFO */
    int loading;                /* replaying the AOF at startup */
    bioState bio;               /* the background threads (bio.c) */
    aofState aof;               /* the append-only file (aof.c) */
    serverChild child;          /* the forked child (child.c) */
    /* Blocking operations (blocked.c). */
    struct readyKey *ready_keys;    /* keys written with clients waiting */
    int ready_keys_n, ready_keys_cap;
    int blocked_clients;
    int blocked_clients_by_type[BLOCKED_NUM];
    client *unblocked_head, *unblocked_tail;  /* to read input again */
    struct blockTimeout *timeouts;  /* sorted by (timeout, client id) */
    int timeouts_n, timeouts_cap;
    /* Propagation: what the current execution unit (a command, an EXEC)
     * will feed to the AOF when it ends. */
    struct redisOp *also_propagate;
    robj **shared_integers;     /* 0 .. OBJ_SHARED_INTEGERS - 1 */
    size_t initial_memory_usage;/* used_memory_startup */
    int also_propagate_n, also_propagate_cap;
    /* Replication, the replica's side (replica.c): the master it
     * follows (NULL: this server is a master), the state of its link, the
     * link's client once synchronized, the transfer under way. */
    sds masterhost;
    int masterport;
    int repl_state;             /* REPL_STATE_* */
    client *master;
    int repl_transfer_fd;       /* the link before it is the master client */
    sds repl_transfer_in;       /* bytes read from it, not yet used */
    long long repl_transfer_size;   /* RDB bytes announced, -1 EOF-marked */
    long long repl_transfer_read;   /* RDB bytes received */
    char repl_eofmark[41];      /* the diskless RDB's end mark */
    /* The RDB being received goes to a temp file as it comes (tmpfd,
     * -1 none); the last bytes read are kept to find a diskless RDB's
     * EOF mark. */
    int repl_transfer_tmpfd;
    char repl_transfer_tmpfile[96];
    char repl_transfer_tail[40];
    int repl_transfer_header;   /* its "$<len>" line was read */
    long long repl_transfer_lastio; /* unix seconds */
    long long repl_down_since;  /* unix seconds, 0 never connected */
    char master_replid[41];     /* the master's, from +FULLRESYNC */
    long long master_initial_offset;
    /* What a PSYNC can continue from: the replid and offset of the link
     * lost, or of this server's own history when it turned replica. */
    char cached_replid[41];
    long long cached_offset;    /* -1 none */
    /* The replication history of the last RDB file loaded (its aux
     * fields; an empty id if it had none). */
    char rdb_repl_id[41];
    long long rdb_repl_offset;
    int rdb_repl_stream_db;
    int cached_dbid;            /* the link's db then, -1 unknown */
    char replid2[41];           /* the history before the last switch */
    long long second_replid_offset;
    /* Replication, the master's side (replication.c). */
    char replid[41];            /* made when first asked for */
    long long replid_gen;       /* replids made so far */
    long long master_repl_offset;
    int repl_backlog_active;    /* from the first replica on */
    long long repl_backlog_off, repl_backlog_histlen;
    /* The backlog's bytes: a ring of up to repl-backlog-size (at least
     * 16 KB) grown as the stream comes, as 7.0 allocates its blocks;
     * the next byte goes at repl_backlog_idx. */
    char *repl_backlog_buf;
    size_t repl_backlog_cap, repl_backlog_idx;
    int repl_seldb;             /* db of the last SELECT fed, -1 none */
    long long repl_cron_loops;
    int get_ack_from_replicas;  /* a WAIT blocked: GETACK in beforeSleep */
    struct replRdb *repl_socket_rdb; /* the diskless transfer under way */
    long long repl_stream_timer;    /* its time event, -1 none */
    client **replicas;          /* in the order they came */
    int nreplicas, replicas_cap;
    int execution_nesting;      /* call() depth */
    int in_exec;                /* EXEC is running its queue */
    long long stat_total_forks;
    long long stat_fork_time_us;
    /* The ledger of acknowledged writes (recovery.c), NULL when the node
     * does not follow them. In a ledger's own scratch server instead:
     * keyhook, told of every key about to change (key NULL: a whole db
     * about to be emptied). */
    struct recoveryLedger *recovery;
    void (*keyhook)(void *ctx, redisDb *db, sds key);
    void *keyhook_ctx;
    /* The process's host. A native host listens on port (the simulated
     * world leaves the default, 6379, for the log and INFO), sets
     * shutdown_asap when SIGTERM or SIGINT arrives, for serverCron to
     * shut down as Redis's does, and ends the process through exit_proc
     * once prepareForShutdown is done. The simulated machine's exit_proc
     * ends the process as an exit does: the node goes down at the end of
     * the iteration and stays down until it is restarted. */
    int port;
    int shutdown_asap;
    int releasing;              /* serverRelease runs: the process is gone
                                   and logs nothing more */
    void (*exit_proc)(void *ctx, int status);
    void *exit_ctx;
    /* The host's own parameters (port, bind, dir, save ...) as name,
     * value, ..., NULL: CONFIG GET lists those that match after the
     * engine's. NULL for none. */
    const char *const *host_config;
    /* CONFIG SET of one of those: C_OK, or C_ERR with *why set to the
     * reason (a constant). NULL: all are immutable. */
    int (*host_config_set)(void *ctx, const char *name, const char *value,
                           const char **why);
    void *host_config_ctx;
    /* fork(2) on the process's machine: 0, or a negated errno
     * (-FS_ENOMEM) when its kernel refuses a child holding rss bytes.
     * NULL: every fork succeeds. */
    int (*fork_check)(void *ctx, uint64_t rss);
    void *fork_ctx;
    /* The machine's vm.overcommit_memory when the process started (the
     * startup warning); 1 where nobody says otherwise. */
    int vm_overcommit_memory;
    int save_loaded;            /* a save directive was read at startup */
    /* Pub/Sub (pubsub.c): channel, pattern or shard channel (sds) ->
     * the clients subscribed, in the order they did. */
    dict *pubsub_channels, *pubsub_patterns, *pubsubshard_channels;
    /* >0 while a value is rebuilt from RDB data (RESTORE, an RDB load):
     * the commands that rebuild it are not events (notify.c). */
    int notify_suppressed;
    /* CONFIG REWRITE: the host rewrites its configuration file with the
     * lines the engine gives it (config_rewrite.c); NULL: the server was
     * started without one. Returns C_OK, or C_ERR with *err set. */
    int (*config_rewrite)(void *ctx, struct redisServer *s, int force_all,
                          sds *err);
    void *config_rewrite_ctx;
    /* MONITOR clients, in the order they asked (monitor.c). */
    client **monitors;
    int nmonitors, monitors_cap;
    /* CLIENT PAUSE (clientadmin.c): the pause in force, CLIENT_PAUSE_*,
     * until unix ms pause_end; the clients it holds, in order. */
    int client_pause_type;
    long long client_pause_end;
    int failover_pause;         /* FAILOVER holds writes (failover.c) */
    /* FAILOVER (failover.c): FAILOVER_*, the replica it goes to (NULL:
     * the first to catch up), when it gives up (unix ms, 0 never) and
     * whether it then fails over anyway. */
    int failover_state;
    sds failover_host;
    int failover_port;
    long long failover_end_time;
    int failover_force;
    client **postponed;
    int npostponed, postponed_cap;
    int clients_cron_fd;        /* where clientsCron goes on from */
    unsigned long lazyfree_objects;         /* with the lazy-free thread */
    unsigned long long stat_lazyfreed_objects;  /* it freed since RESETSTAT */
    /* requirepass: the default user's password, NULL for nopass (acl.c). */
    sds requirepass;
    struct aclState *acl;       /* users and the ACL log (acl.h) */
    /* Scripting (eval.c, script.c, script_lua.c): the interpreter and its
     * memory, the scripts EVAL and SCRIPT LOAD compiled (sha1 sds ->
     * luaScript), the client their commands run as, the script running
     * and who called it, and the state of math.random. */
    struct lua_State *lua;
    gkMem lua_mem;
    /* Functions (functions.c): their interpreter and its memory, the
     * libraries (name -> functionLib) and every function (name, case
     * ignored -> functionInfo). */
    struct lua_State *lua_fn;
    gkMem lua_fn_mem;
    dict *fn_libraries, *fn_functions;
    client *fn_client;
    dict *lua_scripts;
    size_t lua_scripts_mem;
    client *lua_client;
    struct scriptRunCtx *script_run;
    uint64_t lua_rand48;
    uint64_t lua_ns_per_instr;  /* virtual CPU of one Lua instruction */
    uint64_t lua_call_ns;       /* of redis.call's own work, around the
                                   command it calls */
    uint64_t lua_arg_ns;        /* of one KEYS or ARGV element put into
                                   the script's table */
    uint64_t lua_hook_calls;
    int lua_gc_count;
    int lua_call_inuse;         /* in redis.call: no recursion */
    int events_while_blocked;   /* in processEventsWhileBlocked */
    long long script_time_box_ms;   /* a script is stopped after this
                                       long (0: never), see script.h */
    int script_box_killable;    /* ... by a host that could also have
                                   sent SCRIPT KILL meanwhile */
    /* MIGRATE's connections kept for reuse (migrate.c): up to
     * MIGRATE_SOCKET_CACHE_ITEMS, in no order. */
    struct migrateSocket *migrate_sockets;
    int nmigrate_sockets;
    /* Client-side caching (tracking.c). NULL until a client first turns
     * tracking on: the keys tracking clients read (key -> the ids of the
     * clients, each 8 bytes little-endian -> nothing), and the prefixes
     * of the BCAST clients (prefix -> trackingPrefix). */
    struct rax *tracking_table, *tracking_prefixes;
    uint64_t tracking_items;    /* ids in the table, all keys together */
    int tracking_clients;       /* clients with tracking on */
    unsigned tracking_limit_runs; /* runs in a row that found the table
                                     still over tracking-table-max-keys */
    /* Messages about keys the current client changed during its own
     * command, sent once its reply is written (a NULL: a flush). */
    robj **tracking_pending;
    int tracking_pending_n, tracking_pending_cap;
} redisServer;

/* CLIENT PAUSE's kinds, least restrictive first. */
#define NO_FAILOVER 0
#define FAILOVER_WAIT_FOR_SYNC 1
#define FAILOVER_IN_PROGRESS 2

#define CLIENT_PAUSE_OFF 0
#define CLIENT_PAUSE_WRITE 1
#define CLIENT_PAUSE_ALL 2

/* A command waiting to be propagated: its argv (counted references). */
typedef struct redisOp {
    robj **argv;
    int argc;
    int dbid;
    int target;                 /* PROPAGATE_AOF | PROPAGATE_REPL */
} redisOp;

/* ---- object.c ---- */
robj *createObject(redisServer *s, int type, void *ptr);
robj *createStringObject(redisServer *s, const char *ptr, size_t len);
robj *tryCreateStringObject(redisServer *s, const char *ptr, size_t len);
robj *tryCreateEmbeddedStringObject(redisServer *s, const char *ptr,
                                    size_t len);
robj *createRawStringObject(redisServer *s, const char *ptr, size_t len);
robj *createStringObjectFromLongLong(redisServer *s, long long value);
robj *createStringObjectFromLongLongForValue(redisServer *s,
                                             long long value);
void createSharedIntegers(redisServer *s);
void releaseSharedIntegers(redisServer *s);
robj *createStringObjectFromDouble(redisServer *s, double value);
robj *tryObjectEncoding(redisServer *s, robj *o);
robj *dupStringObject(redisServer *s, const robj *o);
robj *getDecodedObject(redisServer *s, robj *o);
robj *createSetObject(redisServer *s);
robj *createIntsetObject(redisServer *s);
robj *createHashObject(redisServer *s);
robj *createZsetObject(redisServer *s);
robj *createZsetListpackObject(redisServer *s);
robj *createQuicklistObject(redisServer *s);
robj *createStreamObject(redisServer *s);
void incrRefCount(robj *o);
void decrRefCount(redisServer *s, robj *o);
void freeObjectValue(redisServer *s, robj *o);
size_t freeObjectEffort(const robj *o);
uint64_t freeObjectCost(redisServer *s, const robj *o);
size_t stringObjectLen(const robj *o);
const char *strEncoding(int encoding);
size_t memoryUsageOf(dictEntry *de, size_t samples);
sds memoryInfoSection(redisServer *s, sds info);
size_t memoryNotCountedForEvict(redisServer *s);
size_t memoryRss(redisServer *s);
const char *typeName(const robj *o);
int getLongLongFromObject(const robj *o, long long *target);
int getLongLongFromObjectOrReply(client *c, robj *o, long long *target,
                                 const char *msg);
int getLongFromObjectOrReply(client *c, robj *o, long long *target,
                             const char *msg);
int getPositiveLongFromObjectOrReply(client *c, robj *o, long long *target,
                                     const char *msg);
int getRangeLongFromObjectOrReply(client *c, robj *o, long long min,
                                  long long max, long long *target,
                                  const char *msg);
int getDoubleFromObjectOrReply(client *c, robj *o, double *target,
                               const char *msg);
int getDoubleFromObject(const robj *o, double *target);
int checkType(client *c, robj *o, int type);
int equalStringObjects(robj *a, robj *b);
/* The bytes of a string object; integer encodings are written into buf,
 * which must hold LONG_STR_SIZE bytes. */
const char *objectStrBytes(const robj *o, char *buf, size_t *len);
void objectCommand(client *c);
unsigned int getLRUClock(redisServer *s);
unsigned int LRU_CLOCK(redisServer *s);
void objectSetLRUOrLFU(redisServer *s, robj *o, long long lfu_freq,
                       long long lru_idle, long long lru_clock,
                       int multiplier);
unsigned long long estimateObjectIdleTime(redisServer *s, const robj *o);
void objectTouch(redisServer *s, robj *o);
unsigned long LFUDecrAndReturn(redisServer *s, const robj *o);

/* ---- networking.c ---- */
void rewriteClientCommandVector(client *c, int argc, ...);
void replaceClientCommandVector(client *c, int argc, robj **argv);
void rewriteClientCommandArgument(client *c, int i, robj *newval);
client *createClient(redisServer *s, int fd);
client *acceptCommonHandler(redisServer *s, int fd);
void freeClient(client *c);
int splitArgs(redisServer *s, const char *line, sds **argvp);
void splitArgsRelease(redisServer *s, sds *argv, int argc);
void freeClientAsync(client *c);
void readQueryFromClient(aeEventLoop *el, int fd, void *privdata, int mask);
void sendReplyToClient(aeEventLoop *el, int fd, void *privdata, int mask);
int handleClientsWithPendingWrites(redisServer *s);
void processInputBuffer(client *c);
void processClientInput(client *c);
void resetClient(client *c);
void freeClientArgv(client *c);
int clientHasPendingReplies(client *c);
void addReply(client *c, robj *obj);
void addReplyProto(client *c, const char *s, size_t len);
void addReplyBulk(client *c, robj *obj);
void addReplyBulkCBuffer(client *c, const void *p, size_t len);
void addReplyBulkCString(client *c, const char *s);
void addReplyBulkSds(client *c, sds s);
void addReplyBulkLongLong(client *c, long long ll);
void addReplyErrorObject(client *c, robj *err);
void addReplyError(client *c, const char *err);
void addReplyErrorFormat(client *c, const char *fmt, ...);
void addReplyErrorSds(client *c, sds err);
void addReplyErrorSdsNoStats(client *c, sds err);
client *lookupClientByID(redisServer *s, uint64_t id);
client *createDetachedClient(redisServer *s, uint64_t flags, int take_id);
void freeDetachedClient(client *c);
sds clientReplyTake(client *c);
void addReplyErrorArity(client *c);
void addReplyErrorExpireTime(client *c);
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyLongLong(client *c, long long ll);
void addReplyDouble(client *c, double d);
void addReplyArrayLen(client *c, long length);
void addReplyNull(client *c);
void addReplyNullArray(client *c);
void addReplyMapLen(client *c, long length);
void addReplySetLen(client *c, long length);
void addReplyAttributeLen(client *c, long length);
void addReplyPushLen(client *c, long length);
void addReplyBool(client *c, int b);
void addReplyFixed(client *c, const char *proto);
void addReplyBigNum(client *c, const char *num, size_t len);
void addReplyOK(client *c);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext);
void addReplyHelp(client *c, const char **help);
void addReplySubcommandSyntaxError(client *c);
void addReplyBulkOrNil(client *c, robj *o);
void *addReplyDeferredLen(client *c);
void setDeferredArrayLen(client *c, void *node, long length);
void setDeferredMapLen(client *c, void *node, long length);
void setDeferredSetLen(client *c, void *node, long length);

/* ---- db.c ---- */
robj *lookupKeyRead(client *c, robj *key);
robj *lookupKeyWrite(client *c, robj *key);
robj *lookupKeyReadOrReply(client *c, robj *key, const char *reply);
robj *lookupKeyWriteOrReply(client *c, robj *key, const char *reply);
robj *lookupKeyReadWithFlags(redisDb *db, client *c, robj *key, int flags);
void dbAdd(redisServer *s, redisDb *db, robj *key, robj *val);
void dbOverwrite(redisServer *s, redisDb *db, robj *key, robj *val);
void setKey(client *c, redisDb *db, robj *key, robj *val, int keepttl);
int dbDelete(redisServer *s, redisDb *db, robj *key);
int dbAsyncDelete(redisServer *s, redisDb *db, robj *key);
int dbExists(redisDb *db, robj *key);
long long emptyData(redisServer *s, int dbnum);
long long emptyDataFlags(redisServer *s, int dbnum, int async);
void serverCreateDbDicts(redisServer *s, redisDb *db);
int selectDb(client *c, int id);
void setExpire(client *c, redisDb *db, robj *key, long long when);
long long getExpire(redisDb *db, robj *key);
int removeExpire(redisDb *db, robj *key);
int expireIfNeeded(redisServer *s, redisDb *db, robj *key);
int expireIfNeededForce(redisServer *s, redisDb *db, robj *key,
                        int force_delete);
int keyIsExpired(redisServer *s, redisDb *db, robj *key);
void deleteExpiredKeyAndPropagate(redisServer *s, redisDb *db, robj *key);
void activeExpireCycle(redisServer *s, int type);
void tryResizeHashTables(redisServer *s, int dbid);
int incrementallyRehash(redisServer *s, int dbid);
int parseScanCursorOrReply(client *c, robj *o, uint64_t *cursor);
void scanGenericCommand(client *c, robj *o, uint64_t cursor);
void signalModifiedKey(client *c, redisDb *db, robj *key);
void signalModifiedKeyByServer(redisServer *s, redisDb *db, robj *key);
/* Keyspace notifications (notify.c): the classes of
 * notify-keyspace-events, Redis 7.0's bits. */
#define NOTIFY_KEYSPACE (1 << 0)    /* K */
#define NOTIFY_KEYEVENT (1 << 1)    /* E */
#define NOTIFY_GENERIC (1 << 2)     /* g */
#define NOTIFY_STRING (1 << 3)      /* $ */
#define NOTIFY_LIST (1 << 4)        /* l */
#define NOTIFY_SET (1 << 5)         /* s */
#define NOTIFY_HASH (1 << 6)        /* h */
#define NOTIFY_ZSET (1 << 7)        /* z */
#define NOTIFY_EXPIRED (1 << 8)     /* x */
#define NOTIFY_EVICTED (1 << 9)     /* e */
#define NOTIFY_STREAM (1 << 10)     /* t */
#define NOTIFY_KEY_MISS (1 << 11)   /* m */
#define NOTIFY_LOADED (1 << 12)     /* module only */
#define NOTIFY_MODULE (1 << 13)     /* d */
#define NOTIFY_NEW (1 << 14)        /* n */
#define NOTIFY_ALL (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | \
                    NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | \
                    NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | \
                    NOTIFY_MODULE)  /* A */
void notifyKeyspaceEvent(redisServer *s, int type, const char *event,
                         robj *key, int dbid);
int keyspaceEventsStringToFlags(const char *classes);
sds keyspaceEventsFlagsToString(redisServer *s, int flags);

/* ---- pubsub.c ---- */
void pubsubInit(redisServer *s);
void pubsubRelease(redisServer *s);
void pubsubClientRelease(client *c);
void pubsubUnsubscribeAll(client *c, int notify);
int pubsubPublishMessage(redisServer *s, robj *channel, robj *message,
                         int shard);
int clientSubscriptionsCount(client *c);
int clientShardSubscriptionsCount(client *c);
void subscribeCommand(client *c);
void unsubscribeCommand(client *c);
void psubscribeCommand(client *c);
void punsubscribeCommand(client *c);
void ssubscribeCommand(client *c);
void sunsubscribeCommand(client *c);
void publishCommand(client *c);
void spublishCommand(client *c);
void pubsubChannelsCommand(client *c);
void pubsubShardChannelsCommand(client *c);
void pubsubNumsubCommand(client *c);
void pubsubShardNumsubCommand(client *c);
void pubsubNumpatCommand(client *c);
void pubsubHelpCommand(client *c);
typedef int memberRemoveFn(redisServer *s, robj *o, const sds member);
typedef unsigned long memberCountFn(const robj *o);
void removeMembersCommand(client *c, int type, memberRemoveFn *remove,
                          memberCountFn *count);
void auditKeyDeleted(redisServer *s, redisDb *db, const sds key);
void auditKeyReturned(client *c, const char *key, size_t len);
void auditClear(redisServer *s);
int auditBegin(redisServer *s, int dbid, int fd);
void auditEnd(redisServer *s);
void auditGet(redisServer *s, gkScanAudit *out);
size_t auditMissing(redisServer *s, char *out, size_t cap);
sds auditMissingAppend(redisServer *s, gkMem *m, sds out, size_t max,
                       size_t *n);
#define ACTIVE_EXPIRE_CYCLE_SLOW 0
#define ACTIVE_EXPIRE_CYCLE_FAST 1

/* ---- clientadmin.c ---- */
void clientKillCommand(client *c);
void clientPauseCommand(client *c);
void clientUnpauseCommand(client *c);
void clientReplyCommand(client *c);
void clientNoEvictCommand(client *c);
void clientHelpCommand(client *c);
void resetCommand(client *c);
int clientPauseHolds(client *c);
void postponeClient(client *c);
void postponedClientGone(client *c);
int checkClientPauseTimeoutAndReturnIfPaused(redisServer *s);
int clientsArePaused(redisServer *s);
void pauseForFailover(redisServer *s, int on);
const char *failoverStateString(redisServer *s);
void clearFailoverState(redisServer *s);
void abortFailover(redisServer *s, const char *why);
void updateFailoverStatus(redisServer *s);
int failoverRequestReceived(client *c);
void failoverCommand(client *c);
const char *replicaIp(client *c, char *buf, size_t cap);
void clientAdminRelease(redisServer *s);
const char *getClientPeerId(client *c);
const char *getClientSockName(client *c);

/* ---- tracking.c: client-side caching ---- */
void clientTrackingCommand(client *c);
void clientCachingCommand(client *c);
void clientGetredirCommand(client *c);
void clientTrackinginfoCommand(client *c);
void disableTracking(client *c);
void trackingCommandDone(client *c);
void trackingInvalidateKey(redisServer *s, client *c, robj *key, int bcast);
void trackingHandlePendingKeyInvalidations(redisServer *s);
void trackingInvalidateKeysOnFlush(redisServer *s);
void trackingLimitUsedSlots(redisServer *s);
void trackingBroadcastInvalidationMessages(redisServer *s);
void trackingResetCaching(client *c);
uint64_t trackingGetTotalKeys(redisServer *s);
uint64_t trackingGetTotalPrefixes(redisServer *s);
void trackingRelease(redisServer *s);

/* ---- cluster.c: a server without cluster support ---- */
void clusterCommand(client *c);
void askingCommand(client *c);
void readonlyCommand(client *c);
void readwriteCommand(client *c);

/* ---- monitor.c ---- */
void monitorCommand(client *c);
void replicationFeedMonitors(client *c, int dictid, robj **argv, int argc);
void monitorFeedCall(client *c);
void monitorClientGone(client *c);

/* ---- acl.c, acl_cmd.c (acl.h has the rest) ---- */
int authRequired(client *c);
void clientSetDefaultAuth(client *c);
int aclSetRequirePass(redisServer *s, const char *pass);
void authCommand(client *c);
void aclWhoamiCommand(client *c);
void aclUsersCommand(client *c);
void aclListCommand(client *c);
void aclCatCommand(client *c);
void aclHelpCommand(client *c);
void aclSetuserCommand(client *c);
void aclDeluserCommand(client *c);
void aclGetuserCommand(client *c);
void aclGenpassCommand(client *c);
void aclDryrunCommand(client *c);
void aclLogCommand(client *c);
void aclLoadCommand(client *c);
void aclSaveCommand(client *c);

/* ---- config_rewrite.c ---- */
/* A configuration file being rewritten: its lines, which option each
 * holds, and what the rewrite has done so far. */
typedef struct rewriteState rewriteState;
typedef int rewriteKnownFn(void *ctx, const char *name, const char **canon);
rewriteState *rewriteStateCreate(gkMem *m, const char *old, size_t len,
                                 int force_all, rewriteKnownFn *known,
                                 void *ctx);
void rewriteLine(rewriteState *st, const char *option, sds line, int force);
void rewriteMarkProcessed(rewriteState *st, const char *option);
sds rewriteStateFinish(rewriteState *st);
sds rewriteFormatMemory(gkMem *m, sds o, long long bytes);
void configRewriteCommand(client *c);
/* config.c's share: the engine's parameters. */
int configKnownDirective(const char *name, const char **canon);
void configRewriteEngineOptions(redisServer *s, rewriteState *st);
void serverConfigDefaults(serverConfig *cfg);


/* ---- multi.c ---- */
void initClientMultiState(client *c);
void freeClientMultiState(client *c);
void queueMultiCommand(client *c);
void flagTransaction(client *c);
void discardTransaction(client *c);
void unwatchAllKeys(client *c);
void touchWatchedKey(redisServer *s, redisDb *db, robj *key);
void touchAllWatchedKeysInDb(redisServer *s, redisDb *emptied,
                             redisDb *replaced_with);
void multiCommand(client *c);
void execCommand(client *c);
void discardCommand(client *c);
void watchCommand(client *c);
void unwatchCommand(client *c);

/* ---- blocked.c ---- */
/* Serves one client blocked on key, whose value o (of the object type
 * the hook was registered for) has something for it: replies, changes
 * the dataset, propagates what it did with alsoPropagate. Returns 1 if
 * the key was deleted (nothing is left for the next client). */
typedef int blockServeProc(client *receiver, robj *o, robj *key,
                           redisDb *db);
/* What a serve function returns when the value has nothing for that
 * client yet (XREAD waiting for IDs past the last): it stays blocked. */
#define BLOCK_STILL_WAITING -1
int getTimeoutMsFromObjectOrReply(client *c, robj *object,
                                  long long *timeout);
int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout);
void blockForKeys(client *c, int btype, robj **keys, int numkeys,
                  long long count, long long timeout, robj *target,
                  int wherefrom, int whereto);
void unblockClient(client *c);
void replyToBlockedClientTimedOut(client *c);
void signalKeyAsReady(redisServer *s, redisDb *db, robj *key, int type);
void scanDatabaseForReadyKeys(redisServer *s, redisDb *db);
void handleClientsBlockedOnKeys(redisServer *s);
void handleBlockedClientsTimeout(redisServer *s);
void processUnblockedClients(redisServer *s);
void blockedClientGone(client *c);
void blockedRelease(redisServer *s);
int serveClientBlockedOnList(client *receiver, robj *o, robj *key,
                             redisDb *db);
void clientUnblockCommand(client *c);

/* ---- sort.c ---- */
void sortCommand(client *c);
void sortroCommand(client *c);
robj *hashTypeGetValueObject(redisServer *s, robj *o, const sds field);
void zsetConvertToSkiplist(redisServer *s, robj *zobj);

/* ---- aof.c ---- */
void aofInit(redisServer *s);
void aofRelease(redisServer *s);
void feedAppendOnlyFile(redisServer *s, int dictid, robj **argv, int argc);
void flushAppendOnlyFile(redisServer *s, int force);
int startAppendOnly(redisServer *s);
void stopAppendOnly(redisServer *s);
void aofCron(redisServer *s);
void aofBeforeSleepDone(redisServer *s);
#define DISK_ERROR_TYPE_NONE 0
#define DISK_ERROR_TYPE_AOF 1
#define DISK_ERROR_TYPE_RDB 2
int writeCommandsDeniedByDiskError(redisServer *s);
sds writeCommandsGetDiskErrorMessage(redisServer *s);
sds aofInfoPersistence(redisServer *s, sds info);
const char *aofStrerror(int err);
sds aofPath(redisServer *s, const char *name);
void aofBackgroundUnlink(redisServer *s, const char *path);
int aofFsyncInProgress(redisServer *s);
/* aof_load.c */
void aofLoadOnStartup(redisServer *s);
int aofReloadFromDisk(redisServer *s);
/* aof_rewrite.c */
aofManifest *aofManifestCreate(redisServer *s);
void aofManifestRelease(redisServer *s, aofManifest *am);
aofManifest *aofManifestDup(redisServer *s, aofManifest *am);
sds aofManifestString(redisServer *s, aofManifest *am);
int persistAofManifest(redisServer *s, aofManifest *am);
sds aofNewBaseName(redisServer *s, aofManifest *am);
sds aofNewIncrName(redisServer *s, aofManifest *am);
int aofSeqExhausted(const aofManifest *am);
const char *aofLastIncrName(redisServer *s, aofManifest *am);
int aofDelHistoryFiles(redisServer *s);
int rewriteAppendOnlyFileBackground(redisServer *s);
sds aofRewriteToSds(redisServer *s, gkMem *mem, long long *keys);
int aofRewriteSync(redisServer *s, const char *path);
void aofKillChild(redisServer *s);
void backgroundRewriteDoneHandler(redisServer *s, int exitcode,
                                  int bysignal);
void aofStartScheduledRewrite(redisServer *s);
void aofAutoRewrite(redisServer *s);
/* child.c */
typedef sds (*childSnapshotFn)(redisServer *s, gkMem *mem,
                               long long *keys);
int hasActiveChildProcess(redisServer *s);
int redisFork(redisServer *s, int type, childSnapshotFn snap);
uint64_t childNext(redisServer *s);
void childRun(redisServer *s, uint64_t t);
void childKill(redisServer *s, int sig);
void childRelease(redisServer *s);
void checkChildrenDone(redisServer *s);
void childCron(redisServer *s);
void aofMarkIncrAsHistory(redisServer *s, aofManifest *am);
void bgrewriteaofCommand(client *c);

/* ---- server.c ---- */
void alsoPropagate(redisServer *s, int dbid, robj **argv, int argc);
void propagatePendingCommands(redisServer *s);
void forceCommandPropagation(client *c);
void forceCommandReplication(client *c);
void preventCommandPropagation(client *c);
void serverLogV(redisServer *s, int pid, char role, uint64_t t, int level,
                const char *fmt, va_list ap);
void serverLog(redisServer *s, int level, const char *fmt, ...);
int serverLoadConfig(redisServer *s, const char *conf, sds *err);
const char *serverLoadConfigDirective(redisServer *s, int argc,
                                      char **argv, char *errbuf,
                                      size_t errlen);
void serverStartup(redisServer *s);
int prepareForShutdown(redisServer *s, int flags);
uint64_t serverChildNext(redisServer *s);
void serverChildRun(redisServer *s, uint64_t t);
uint64_t serverNow(redisServer *s);
int serverSizeEventLoop(redisServer *s, int grow_only);
void serverStartupDone(redisServer *s);
int serverRunWithPeriod(redisServer *s, int ms);
redisServer *serverCreate(gkMem *mem, int node, aeBackend backend,
                          gkRng *rng, gkTrace *trace,
                          int64_t unix_ms_at_zero, size_t heap_limit);
void serverRelease(redisServer *s);
void serverUpdateTime(redisServer *s);
const redisCommand *lookupCommand(redisServer *s, robj **argv, int argc);
int processCommand(client *c);
void call(client *c);
int serverConfigSet(redisServer *s, const char *name, const char *value,
                    sds *err);
int serverConfigGet(redisServer *s, const char *name, char *buf, size_t cap);
int configParseMemory(const char *s, long long *out);
uint64_t dictSdsHash(const dict *d, const void *key);
uint64_t dictSdsCaseHash(const dict *d, const void *key);
int dictSdsKeyCompare(const dict *d, const void *k1, const void *k2);
int dictSdsKeyCaseCompare(const dict *d, const void *k1, const void *k2);
extern const dictType dbDictType, keyptrDictType, setDictType;
extern const dictType hashDictType, zsetDictType, commandTableDictType;
extern const dictType keylistDictType;
extern const redisCommand redisCommandTable[];
extern const int redisCommandCount;
void beforeSleep(aeEventLoop *el);
void evalCommand(client *c);
void evalRoCommand(client *c);
void evalShaCommand(client *c);
void evalShaRoCommand(client *c);
void scriptCommand(client *c);
void fcallCommand(client *c);
void fcallroCommand(client *c);
void functionLoadCommand(client *c);
void functionDeleteCommand(client *c);
void functionKillCommand(client *c);
void functionStatsCommand(client *c);
void functionListCommand(client *c);
void functionDumpCommand(client *c);
void functionRestoreCommand(client *c);
void functionHelpCommand(client *c);
long long serverCron(aeEventLoop *el, long long id, void *clientData);
int serverHeapExceeded(redisServer *s);
int serverOutOfMemory(redisServer *s);

/* ---- the command procs ---- */
void pingCommand(client *c);
void echoCommand(client *c);
void selectCommand(client *c);
void dbsizeCommand(client *c);
void flushdbCommand(client *c);
void flushallCommand(client *c);
void existsCommand(client *c);
void delCommand(client *c);
void unlinkCommand(client *c);
void typeCommand(client *c);
void keysCommand(client *c);
void randomkeyCommand(client *c);
void renameCommand(client *c);
void scanCommand(client *c);
void expireCommand(client *c);
void pexpireCommand(client *c);
void expireatCommand(client *c);
void pexpireatCommand(client *c);
void ttlCommand(client *c);
void pttlCommand(client *c);
void expiretimeCommand(client *c);
void pexpiretimeCommand(client *c);
void dumpCommand(client *c);
void restoreCommand(client *c);
/* migrate.c */
void migrateCommand(client *c);
void migrateCloseTimedoutSockets(redisServer *s);
void migrateCloseAllSockets(redisServer *s);
void persistCommand(client *c);
void setCommand(client *c);
void getCommand(client *c);
void getsetCommand(client *c);
void msetCommand(client *c);
void mgetCommand(client *c);
void msetnxCommand(client *c);
void setnxCommand(client *c);
void setexCommand(client *c);
void psetexCommand(client *c);
void incrCommand(client *c);
void incrbyCommand(client *c);
void decrCommand(client *c);
void decrbyCommand(client *c);
void incrbyfloatCommand(client *c);
void appendCommand(client *c);
void strlenCommand(client *c);
void getexCommand(client *c);
void getdelCommand(client *c);
void getrangeCommand(client *c);
void setrangeCommand(client *c);
void lcsCommand(client *c);
void setbitCommand(client *c);
void getbitCommand(client *c);
void bitcountCommand(client *c);
void bitposCommand(client *c);
void bitopCommand(client *c);
void bitfieldCommand(client *c);
void bitfieldroCommand(client *c);
void pfaddCommand(client *c);
void pfcountCommand(client *c);
void pfmergeCommand(client *c);
void pfdebugCommand(client *c);
void pfselftestCommand(client *c);
robj *dbUnshareStringValue(client *c, robj *key, robj *o);
sds sdsGrowZero(gkMem *m, sds s, size_t len);
int checkStringLength(client *c, long long size, long long append);
void saddCommand(client *c);
void sremCommand(client *c);
void sismemberCommand(client *c);
void smembersCommand(client *c);
void scardCommand(client *c);
void sscanCommand(client *c);
void smoveCommand(client *c);
void spopCommand(client *c);
void srandmemberCommand(client *c);
void sinterCommand(client *c);
void sinterstoreCommand(client *c);
void sintercardCommand(client *c);
void sunionCommand(client *c);
void sunionstoreCommand(client *c);
void sdiffCommand(client *c);
void sdiffstoreCommand(client *c);
void hsetCommand(client *c);
void hgetCommand(client *c);
void hdelCommand(client *c);
void hgetallCommand(client *c);
void hlenCommand(client *c);
void hexistsCommand(client *c);
void hscanCommand(client *c);
void zaddCommand(client *c);
void zremCommand(client *c);
void zscoreCommand(client *c);
void zcardCommand(client *c);
void zrangeCommand(client *c);
void zscanCommand(client *c);
void smismemberCommand(client *c);
void hmsetCommand(client *c);
void hsetnxCommand(client *c);
void hincrbyCommand(client *c);
void hmgetCommand(client *c);
void hstrlenCommand(client *c);
void hkeysCommand(client *c);
void hvalsCommand(client *c);
void hincrbyfloatCommand(client *c);
void hrandfieldCommand(client *c);
void memoryUsageCommand(client *c);
void memoryMallocStatsCommand(client *c);
void memoryPurgeCommand(client *c);
void memoryStatsCommand(client *c);
void memoryDoctorCommand(client *c);
void memoryHelpCommand(client *c);
void zincrbyCommand(client *c);
void zmscoreCommand(client *c);
void zrankCommand(client *c);
void zrevrankCommand(client *c);
void zcountCommand(client *c);
void zlexcountCommand(client *c);
void zrevrangeCommand(client *c);
void zrangebyscoreCommand(client *c);
void zrevrangebyscoreCommand(client *c);
void zrangebylexCommand(client *c);
void zrevrangebylexCommand(client *c);
void zremrangebyscoreCommand(client *c);
void zremrangebyrankCommand(client *c);
void zremrangebylexCommand(client *c);
void zunionstoreCommand(client *c);
void zinterstoreCommand(client *c);
void zdiffstoreCommand(client *c);
void zunionCommand(client *c);
void zinterCommand(client *c);
void zdiffCommand(client *c);
void zintercardCommand(client *c);
void zrangestoreCommand(client *c);
void zpopminCommand(client *c);
void zpopmaxCommand(client *c);
void zmpopCommand(client *c);
void bzpopminCommand(client *c);
void bzpopmaxCommand(client *c);
void bzmpopCommand(client *c);
int serveClientBlockedOnSortedSet(client *receiver, robj *o, robj *key,
                                  redisDb *db);
void zrandmemberCommand(client *c);
void geoaddCommand(client *c);
void geodistCommand(client *c);
void geohashCommand(client *c);
void geoposCommand(client *c);
void georadiusCommand(client *c);
void georadiusbymemberCommand(client *c);
void georadiusroCommand(client *c);
void georadiusbymemberroCommand(client *c);
void geosearchCommand(client *c);
void geosearchstoreCommand(client *c);
/* The pop the blocking BZPOPMIN, BZPOPMAX and BZMPOP run once a key is
 * ready (t_zpop.c): where is ZSET_MIN or ZSET_MAX. */
#define ZSET_MIN 0
#define ZSET_MAX 1
robj *genericZpopCommand(client *c, robj **keyv, int keyc, int where,
                         int emitkey, long long count, int use_nested_array,
                         int reply_nil_when_empty, long long *popped,
                         int *deleted);
void zpopRewriteForPropagation(client *c, robj *key, int where,
                               long long count);
int zmpopParseArgs(client *c, int idx, long long *numkeys, int *where,
                   long long *count);
/* t_stream*.c */
void xaddCommand(client *c);
void xrangeCommand(client *c);
void xrevrangeCommand(client *c);
void xlenCommand(client *c);
void xdelCommand(client *c);
void xtrimCommand(client *c);
void xsetidCommand(client *c);
void xreadCommand(client *c);
void xackCommand(client *c);
void xpendingCommand(client *c);
void xclaimCommand(client *c);
void xautoclaimCommand(client *c);
void xgroupCommand(client *c);
void xinfoCommand(client *c);
int serveClientBlockedOnStream(client *receiver, robj *o, robj *key,
                               redisDb *db);
void unblockStreamReadgroupClients(redisServer *s, redisDb *db, robj *key);
void scanDatabaseForDeletedStreams(redisServer *s, redisDb *emptied,
                                   redisDb *replaced_with);
void renamenxCommand(client *c);
void copyCommand(client *c);
void moveCommand(client *c);
void touchCommand(client *c);
void swapdbCommand(client *c);
void configGetCommand(client *c);
void configSetCommand(client *c);
void configHelpCommand(client *c);
void configResetStatCommand(client *c);
void infoCommand(client *c);
void debugCommand(client *c);
/* evict.c */
#define EVICT_OK 0
#define EVICT_RUNNING 1
#define EVICT_FAIL 2
int performEvictions(redisServer *s);
void evictionMaxmemoryChanged(redisServer *s);
void evictionRelease(redisServer *s);
/* module.c */
void moduleHelpCommand(client *c);
void moduleListCommand(client *c);
void moduleLoadCommand(client *c);
void moduleUnloadCommand(client *c);
void debugDigestCommand(client *c);
void debugDigestValueCommand(client *c);
void objectEncodingCommand(client *c);
void objectHelpCommand(client *c);
void objectRefcountCommand(client *c);
void objectFreqCommand(client *c);
void objectIdletimeCommand(client *c);
void commandCountCommand(client *c);
void commandCommand(client *c);
void commandDocsCommand(client *c);
void commandGetKeysCommand(client *c);
void commandGetKeysAndFlagsCommand(client *c);
void commandHelpCommand(client *c);
void commandInfoCommand(client *c);
void commandListCommand(client *c);
void timeCommand(client *c);
void lolwutCommand(client *c);
void lastsaveCommand(client *c);
void saveCommand(client *c);
int rdbSaveDataset(redisServer *s);
void bgsaveCommand(client *c);
int rdbSaveBackground(redisServer *s);
int rdbSaveToReplicasSockets(redisServer *s, const char *eofmark);
void killRDBChild(redisServer *s);
void rdbRemoveTempFile(redisServer *s, int pid);
void backgroundSaveDoneHandler(redisServer *s, int exitcode, int bysignal);
void rdbSavePointsCron(redisServer *s);
void rdbStartScheduledSave(redisServer *s);
void clientIdCommand(client *c);
void clientSetNameCommand(client *c);
int clientSetNameOrReply(client *c, robj *name);
void helloCommand(client *c);
sds catClientInfoString(redisServer *s, client *cl, sds o);
int getClientType(client *c);
size_t getClientOutputBufferMemoryUsage(client *c);
size_t getClientMemoryUsage(client *c, size_t *obuf);
void evictClients(redisServer *s);
void debugKeyLoadDelay(redisServer *s);
size_t clientArgvBytes(robj **argv, int argc);
int closeClientOnOutputBufferLimitReached(client *c, int async);
void clientsCronOutputBufferLimits(redisServer *s);
void clientsCron(redisServer *s);
int obufLimitsParse(clientBufferLimits *limits, int argc, char **argv,
                    const char **why);
sds obufLimitsString(redisServer *s, const clientBufferLimits *limits);

/* Commands as RESP, as the AOF and the replication stream carry them
 * (aof.c). */
sds catCommandProtocol(redisServer *s, sds dst, int argc, robj **argv);
sds catSelectProtocol(redisServer *s, sds dst, int dbid);

/* replication.c */
void syncCommand(client *c);
void replicationFeed(redisServer *s, int dbid, robj **argv, int argc);
int replicationActive(redisServer *s);
void replicationRemoveReplica(redisServer *s, client *c);
void replicationCron(redisServer *s);
const char *replicationId(redisServer *s);
void replicationChangeId(redisServer *s);
sds replicationInfo(redisServer *s, sds info);
int checkGoodReplicasStatus(redisServer *s);
int replicationAcked(redisServer *s, long long offset);
void replicationBeforeSleep(redisServer *s);
void incrementErrorCount(redisServer *s, const char *code, size_t len);
void replicationFeedRaw(redisServer *s, const char *p, size_t len);
void replconfCommand(client *c);
void roleCommand(client *c);
void waitCommand(client *c);
/* replica.c: the replica's side. */
#define REPL_STATE_NONE 0           /* a master */
#define REPL_STATE_CONNECT 1        /* to connect */
#define REPL_STATE_CONNECTING 2     /* connecting */
#define REPL_STATE_RECEIVE_PING_REPLY 3  /* the handshake: */
#define REPL_STATE_SEND_HANDSHAKE 4
#define REPL_STATE_RECEIVE_AUTH_REPLY 5
#define REPL_STATE_RECEIVE_PORT_REPLY 6
#define REPL_STATE_RECEIVE_IP_REPLY 7
#define REPL_STATE_RECEIVE_CAPA_REPLY 8
#define REPL_STATE_SEND_PSYNC 9
#define REPL_STATE_RECEIVE_PSYNC_REPLY 10
#define REPL_STATE_TRANSFER 11      /* receiving the RDB */
#define REPL_STATE_CONNECTED 12     /* following the stream */
/* A replica's states on its master, as Redis numbers them. */
#define SLAVE_STATE_WAIT_BGSAVE_START 6 /* waits for a BGSAVE to start */
#define SLAVE_STATE_WAIT_BGSAVE_END 7   /* its BGSAVE runs */
#define SLAVE_STATE_SEND_BULK 8         /* the RDB is being sent */
#define SLAVE_STATE_ONLINE 9            /* gets the stream */
#define SLAVE_CAPA_EOF (1 << 0)
#define SLAVE_CAPA_PSYNC2 (1 << 1)
void replicaofCommand(client *c);
void replicationSetMaster(redisServer *s, const char *host, int port);
void replicationUnsetMaster(redisServer *s);
void replicaCron(redisServer *s);
void replicaRelease(redisServer *s);
void replicationHandleMasterDisconnection(redisServer *s);
void replicationMasterApplied(client *c);
void replicationSendAck(redisServer *s);
void replicationAdoptHistory(redisServer *s, const char *replid,
                             long long offset);
void replicationAdoptNewId(redisServer *s, const char *replid);
void replicationReleaseBacklog(redisServer *s);
void replicationRelease(redisServer *s);
void clientInstallWriteHandler(client *c);
void copyReplicaOutputBuffer(client *dst, client *src);
void updateSlavesWaitingBgsave(redisServer *s, int ok, int socket);
void replicationStartPendingFork(redisServer *s);
void replicationRestoreFromRdb(redisServer *s);
void replicationCreateBacklog(redisServer *s);
size_t replicationBacklogMemory(redisServer *s);
void replicationShiftId(redisServer *s);
void replicationDisconnectReplicas(redisServer *s);
sds replicaInfo(redisServer *s, sds info);
void clientGetNameCommand(client *c);
void clientReplyCommand(client *c);
void clientInfoCommand(client *c);
void clientListCommand(client *c);
void quitCommand(client *c);
void shutdownCommand(client *c);
void functionFlushCommand(client *c);
void slowlogGetCommand(client *c);
void slowlogLenCommand(client *c);
void slowlogResetCommand(client *c);
void slowlogHelpCommand(client *c);
void latencyLatestCommand(client *c);
void latencyHistoryCommand(client *c);
void latencyResetCommand(client *c);
void latencyGraphCommand(client *c);
void latencyDoctorCommand(client *c);
void latencyHistogramCommand(client *c);
sds latencyInfoLine(redisServer *s, sds info, const redisCommand *cmd);
int configPercentileString(char *buf, size_t cap, double p);
void latencyHelpCommand(client *c);
void freeClientOriginalArgv(client *c);
void redactClientCommandArgument(client *c, int i);
void lpushCommand(client *c);
void rpushCommand(client *c);
void lpushxCommand(client *c);
void rpushxCommand(client *c);
void linsertCommand(client *c);
void llenCommand(client *c);
void lindexCommand(client *c);
void lsetCommand(client *c);
void lpopCommand(client *c);
void rpopCommand(client *c);
void lmpopCommand(client *c);
void lrangeCommand(client *c);
void ltrimCommand(client *c);
void lposCommand(client *c);
void lremCommand(client *c);
void lmoveCommand(client *c);
void rpoplpushCommand(client *c);
void blpopCommand(client *c);
void brpopCommand(client *c);
void brpoplpushCommand(client *c);
void blmoveCommand(client *c);
void blmpopCommand(client *c);

/* ---- t_set.c / t_hash.c / t_zset.c helpers used elsewhere ---- */
unsigned long setTypeSize(const robj *subject);
robj *setTypeDup(redisServer *s, robj *o);
robj *hashTypeDup(redisServer *s, robj *o);
robj *zsetDup(redisServer *s, robj *o);
robj *listTypeDup(redisServer *s, robj *o);
unsigned long hashTypeLength(const robj *o);
unsigned long zsetLength(const robj *zobj);
unsigned long long listTypeLength(const robj *subject);
void freeZsetObject(redisServer *s, robj *o);
zskiplist *zslCreate(redisServer *s);
void zslRelease(redisServer *s, zskiplist *zsl);

#endif
