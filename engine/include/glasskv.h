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
                               memory-growing commands with -OOM (0 = none,
                               or gkHeapLimitMax() where there is one) */
    uint32_t trace_capacity;/* records kept in the trace ring (power of 2) */
} gkConfig;

typedef struct gkWorld gkWorld;

/* A yes/no field of a struct: 0 or 1 (a boolean in TypeScript). */
typedef int32_t gkBool;

/* The largest heap_limit of a 32-bit build (see gkHeapLimitMax). */
#define GK_HEAP_LIMIT_MAX_32 ((size_t)1024 * 1024 * 1024)

/* Hosts a world holds (servers and client programs): ids 0 .. 15. */
#define GK_MAX_NODES 32

/* ---- Trace records: fixed 40-byte binary records in a bounded ring. ---- */
#define GK_TR_CMD 1          /* a command ran: a=db b=conn c=argc, d=cmd id */
#define GK_TR_REHASH_STEP 2  /* a=db b=dict kind c=bucket of ht0 moved, d=n */
#define GK_TR_TABLE_NEW 3    /* a=db b=dict kind c=table (0/1), d=size */
#define GK_TR_TABLE_FREE 4   /* a=db b=dict kind c=table, d=size */
#define GK_TR_SCAN_BUCKET 5  /* a=db b=dict kind c=table, d=bucket index */
#define GK_TR_SCAN_CALL 6    /* a=db b=conn c=0, d=cursor in; (d2=out) */
#define GK_TR_CRON 7         /* serverCron ran: a=cronloops */
#define GK_TR_EXPIRE 8       /* a key expired: a=db, b=1 active 0 lazy */
#define GK_TR_SYSCALL 9      /* a=GK_SYS_* b=fd c=bytes, d=duration ns */
#define GK_TR_LOOP 10        /* a=GK_LOOP_* phase, d=iteration number */
#define GK_TR_CLIENT 11      /* a workload: a=GK_CL_* b=fd c=commands,
                                d=bytes sent (SEND) or latency ns (DONE) */
/* memcached-style nodes: a=slab class, b=page index in the class. */
#define GK_TR_SLAB_PAGE 12   /* a page was taken: c=perslab,
                                d=total_malloced after it */
#define GK_TR_ITEM_STORE 13  /* an item was linked: c=chunk in the page,
                                d=ntotal (a, b, c: where its header is) */
#define GK_TR_ITEM_EVICT 14  /* an item was evicted from its LRU tail:
                                c=chunk, d=ntotal */
#define GK_TR_ITEM_FREE 15   /* an item's chunks went back to the free
                                lists (delete, expiry, flush, replace):
                                c=chunk, d=ntotal */
/* Redis-style persistence: the AOF, the background threads, the disk. */
#define GK_TR_AOF 16         /* a=GK_AOF_* (see there for b, c, d) */
#define GK_TR_BIO 17         /* a=GK_BIO_* job type, b=GK_JOB_* event,
                                c=jobs of the type pending after it (the
                                running one included), d=job id */
#define GK_TR_DISK 18        /* a=GK_DISK_* b=inode c=bytes
                                d=durable size of the file after it */
#define GK_TR_CRASH 19       /* a=GK_CRASH_* b=1 if at a chosen point,
                                c=the policy in force when the process
                                died: 256 if appendonly was yes, plus
                                appendfsync as gkAofInfo.fsync numbers it
                                (0 at a restart), d=pid of the process
                                that died or began */
#define GK_TR_REWRITE 20     /* AOF rewrite: a=GK_RW_* c=keys, d=bytes */
#define GK_TR_ACK 21         /* a workload was told a write succeeded:
                                a=key number (key:N, db 0), b=fd,
                                c=GK_ACK_*, d=INCR's new value or the
                                length of SET's value (that many "x") */
#define GK_TR_REFUSED 22     /* a command was refused before it ran (a
                                script busy, OOM, READONLY ...): a=cmd id
                                b=conn, d=the error's code as a number
                                (see GK_ERROR_CODE_BASE) */
/* An error's code (BUSY, OOM ...) as a number that a double holds
 * exactly: its first 10 characters, each A-Z as 1-26 and 0-9 as 27-36,
 * the first one the most significant digit in base 37. */
#define GK_ERROR_CODE_BASE 37
#define GK_ERROR_CODE_MAX 10

/* Acknowledged writes in GK_TR_ACK records. */
#define GK_ACK_SET 0         /* SET answered +OK */
#define GK_ACK_INCR 1        /* INCR answered :<d> */

/* Workload events in GK_TR_CLIENT records. */
#define GK_CL_SEND 0         /* a batch was written (with a spec's flush,
                                one flush of it: c its commands) */
#define GK_CL_DONE 1         /* a batch's last reply arrived */
#define GK_CL_ERRORS 2       /* just after its DONE: c of the batch's
                                replies were errors, d=the first one's
                                code as in GK_TR_REFUSED */

/* System calls in GK_TR_SYSCALL records. */
#define GK_SYS_READ 0
#define GK_SYS_WRITE 1
#define GK_SYS_POLL 2
#define GK_SYS_FWRITE 3      /* write(2) to a file: b=file descriptor */
#define GK_SYS_FSYNC 4       /* fdatasync(2) (d includes the wait) */
#define GK_SYS_FTRUNCATE 5
#define GK_SYS_OPEN 6
#define GK_SYS_CLOSE 7
#define GK_SYS_RENAME 8
#define GK_SYS_UNLINK 9
#define GK_SYS_FREAD 10      /* reading a whole file (AOF loading) */

/* AOF events in GK_TR_AOF records. Offsets count the bytes of the
 * append-only files as INFO's aof_current_size does. */
#define GK_AOF_FEED 0        /* a command went into aof_buf: b=db,
                                c=bytes, d=aof_buf length after */
#define GK_AOF_WRITE 1       /* aof_buf written: c=bytes, d=size after */
#define GK_AOF_POSTPONE 2    /* everysec: write postponed, an fsync is in
                                flight: c=seconds so far, d=aof_buf length */
#define GK_AOF_FORCED 3      /* written after 2 s of postponing:
                                d=aof_delayed_fsync */
#define GK_AOF_WRITE_ERR 4   /* b=errno c=bytes written, d=bytes wanted */
#define GK_AOF_FSYNC 5       /* always: fsynced in the main thread,
                                d=aof_fsync_offset */
#define GK_AOF_FSYNC_QUEUED 6 /* everysec: fsync job queued for bio,
                                d=aof_fsync_offset */
#define GK_AOF_LOADED 7      /* a file was replayed: c=commands, d=bytes */
#define GK_AOF_TRUNCATED 8   /* its last command was cut: d=valid bytes */

/* Background threads in GK_TR_BIO records (bio.h's job types). */
#define GK_BIO_CLOSE_FILE 0
#define GK_BIO_AOF_FSYNC 1
#define GK_BIO_LAZY_FREE 2
#define GK_JOB_QUEUED 0
#define GK_JOB_START 1
#define GK_JOB_DONE 2

/* Disk events in GK_TR_DISK records. */
#define GK_DISK_SYNCED 0     /* an fsync reached the device */
#define GK_DISK_WRITTEN_BACK 1 /* the flusher wrote dirty pages back */
#define GK_DISK_POWER_LOSS 2 /* the page cache was lost */

/* Crashes and restarts (GK_TR_CRASH records, gkServerCrash). */
#define GK_CRASH_PROCESS 0   /* kill -9: the page cache survives */
#define GK_CRASH_POWER 1     /* power loss: only durable bytes survive */
#define GK_CRASH_RESTART 2   /* (trace only) a new process started */

/* AOF rewrite events in GK_TR_REWRITE records. */
#define GK_RW_START 0        /* the fork: c=keys in the snapshot */
#define GK_RW_CHILD_DONE 1   /* the child wrote and fsynced its file */
#define GK_RW_DONE 2         /* the parent switched the manifest */
#define GK_RW_FAILED 3

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
    int64_t d;      /* signed, for INCR's acknowledged value (GK_TR_ACK);
                       counts, sizes and times stay below 2^63 */
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
    gkBool active;        /* 1 while an audit is running */
    int32_t db;
} gkScanAudit;

/* ---- The key inspector: how one key's value is stored. ----
 * gkKeyInspect describes it as parts, parents before their parts, and
 * copies the encoded bytes of its blobs (a string's bytes, a listpack, an
 * intset, a plain quicklist node, a skiplist node's member) into a byte
 * area the parts point into. Kinds, with what their fields hold: */
#define GK_PART_STRING 1    /* a = OBJ_ENCODING (1 int, 0 raw, 8 embstr);
                               value = the integer, or the bytes; b = the
                               object's allocation (an embstr's holds its
                               bytes too), c = a raw string's sds's */
#define GK_PART_LISTPACK 2  /* value = entries; a = the header's count */
#define GK_PART_LP_ENTRY 3  /* a = GK_LP_*; b = bytes of its encoding (the
                               7 and 13 bit integers' value included);
                               c = bytes of data after it; the rest of
                               size is the backlen; value = the integer,
                               or the string's length */
#define GK_PART_QUICKLIST 4 /* value = elements; a = nodes; b = fill;
                               c = compress depth */
#define GK_PART_QL_NODE 5   /* value = elements; a = 1 raw, 2 LZF; b = 1
                               plain, 2 packed; c = bytes uncompressed;
                               size = bytes stored; a raw packed node's
                               listpack is its part */
#define GK_PART_INTSET 6    /* a = bytes per element; value = elements */
#define GK_PART_DICT 7      /* value = entries; a, b = log2 of each
                               table's size (-1: none); extra = rehashidx */
#define GK_PART_BUCKET 8    /* a bucket holding entries: a = table;
                               b = chain length; value = its index */
#define GK_PART_SKIPLIST 9  /* value = length; a = levels in use */
#define GK_PART_SL_NODE 10  /* a = height; score; value = rank; its bytes:
                               the member */
#define GK_PART_SL_LEVEL 11 /* one level of a node: a = level; value =
                               span; extra = rank it points to (0: none) */
/* A listpack entry's encoding. */
#define GK_LP_UINT7 0
#define GK_LP_STR6 1
#define GK_LP_INT13 2
#define GK_LP_STR12 3
#define GK_LP_INT16 4
#define GK_LP_INT24 5
#define GK_LP_INT32 6
#define GK_LP_INT64 7
#define GK_LP_STR32 8
/* gkKeyPart.offset of a part whose bytes were not copied (no room). */
#define GK_PART_NOT_COPIED 4294967295

typedef struct gkKeyInfo {
    int32_t type;           /* as TYPE: 0 string, 1 list, 2 set, 3 zset,
                               4 hash, 6 stream */
    int32_t encoding;       /* OBJ_ENCODING_* */
    char encoding_name[16]; /* as OBJECT ENCODING prints it */
    uint64_t length;        /* elements (a string: its bytes, 0 for int) */
    uint64_t memory_usage;  /* MEMORY USAGE key SAMPLES 0 */
    int64_t expire_ms;      /* Unix ms it expires at; -1: never */
    int64_t limit_entries;  /* the threshold that converts it:
                               list-max-listpack-size,
                               set-max-intset-entries,
                               hash- and zset-max-listpack-entries */
    int64_t limit_value;    /* hash- and zset-max-listpack-value; for a
                               list, list-compress-depth */
    uint32_t nparts;        /* parts written */
    uint32_t total_parts;   /* parts it has (more: cut at max_parts) */
    uint32_t nbytes;        /* bytes written to the byte area */
    uint32_t total_bytes;   /* bytes there were to copy */
} gkKeyInfo;

typedef struct gkKeyPart {
    int32_t kind;           /* GK_PART_* */
    int32_t parent;         /* index of the part it belongs to; -1: none */
    uint32_t offset;        /* its bytes in the byte area, or
                               GK_PART_NOT_COPIED */
    uint32_t size;          /* its bytes in the engine's memory */
    int32_t a, b, c;        /* by kind, see GK_PART_* */
    int32_t pad;
    int64_t value;          /* by kind */
    int64_t extra;
    double score;
} gkKeyPart;

/* Describes key (keylen bytes) of db on node into info, up to max_parts
 * parts and max_bytes bytes. GK_ENOTFOUND for an unknown node, db or
 * key. Reads only: the key's LRU clock is not touched, nor is it expired. */
int gkKeyInspect(gkWorld *w, int node, int db, const char *key,
                 size_t keylen, gkKeyInfo *info, gkKeyPart *parts,
                 uint32_t max_parts, uint8_t *bytes, uint32_t max_bytes);

/* ---- Workloads: client programs that load a server. ----
 * Fill a spec with gkWorkloadSpecInit, then override. A batch of
 * `pipeline` commands is written at once and the next one is written when
 * all its replies are in (or, with interval_ns, one batch per interval:
 * a monitor). With `flush`, the batch leaves in writes of that many
 * commands each, one after another without waiting for replies, as a
 * client that flushes after every write does (Lettuce's default).
 *
 * The command is sent with its name as the spec spells it (redis-rb sends
 * "zcard", redis-benchmark "GET"). GET, INCR and any other name take one
 * key; SET a value of value_size bytes; MSET ten keys, each with such a
 * value (redis-benchmark's MSET); PING and INFO no argument. Two
 * names build seed 004's commands over sorted sets: ZADD (any case) sends
 * ZADD key 0 DATA, and EVAL sends one EVAL of a script that sums ZCARD of
 * every key it is given, with the whole keyspace as its keys, in order
 * (EVAL script N key0 .. keyN-1). */
typedef struct gkWorkloadSpec {
    uint32_t clients;       /* connections, one program (default 50) */
    uint32_t pipeline;      /* commands per batch (default 1) */
    uint64_t requests;      /* commands in all; 0 = until stopped */
    gkBool multi;           /* 1: MULTI ... EXEC around every batch */
    uint32_t keyspace;      /* keys key:0 .. key:N-1, picked at random */
    uint32_t value_size;    /* bytes of SET values (default 3) */
    uint32_t client_cmd_ns; /* client CPU per command (default 400) */
    char command[16];       /* GET, SET, INCR, PING, INFO, SCRIPT KILL,
                               MONITOR or MSET (default GET) */
    uint64_t interval_ns;   /* 0: back to back; else one batch each */
    uint64_t rtt_ns;        /* round trip of each connection */
    uint64_t bandwidth;     /* bytes per second each way, 0 = unlimited */
    uint32_t flush;         /* commands per write(2) within a batch;
                               0 = the whole batch in one write */
    uint32_t client_arg_ns; /* client CPU per argument it formats, on top
                               of half of client_cmd_ns (default 0) */
    gkBool sequential;      /* 1: command i names key i of the keyspace,
                               in order, as a loop over a list of keys;
                               0: keys at random */
    char key_prefix[16];    /* key i is named prefix + i; "" = "key:" */
} gkWorkloadSpec;

typedef struct gkWorkloadStats {
    uint64_t sent, completed;   /* commands */
    uint64_t batches;
    uint64_t start_ns, end_ns;  /* first batch written, last reply */
    uint64_t lat_count;         /* batches timed */
    uint64_t lat_sum_ns, lat_max_ns, lat_p50_ns, lat_p99_ns;
    uint64_t reads, writes;     /* the program's system calls */
    gkBool done;                /* all requests answered */
    gkBool stopped;             /* gkWorkloadStop was called */
    uint64_t started_ns;        /* when gkWorkloadStart ran */
    uint64_t build_ns;          /* time spent building commands */
    uint64_t write_ns;          /* from each write's start until its last
                                   byte was taken, blocked time included,
                                   as a blocking socket write takes */
    uint64_t wait_ns;           /* from a batch's last byte written until
                                   its last reply was read and parsed */
    int64_t int_sum;            /* the sum of the integer replies read */
    uint64_t errors;            /* error replies read (-BUSY ...) */
} gkWorkloadStats;

/* ---- The session: what the page that drives a world keeps in it. ----
 * The console's connection, its command count and the db redis-cli shows
 * in its prompt; the connection the page's buttons use and its db; how
 * many Populate runs added keys; the lab running and the client programs
 * the page started, with its own names for them (indexes into its tables
 * of presets and labs). The record lives in the world's memory, so that a
 * checkpoint, a rewind and the digest cover it with everything else; the
 * engine itself never acts on it. Read and write it in place at the
 * address gkWorldSession returns. */
#define GK_SESSION_PROGRAMS_MAX 16

typedef struct gkSession {
    int32_t console_conn;       /* the console's connection, -1 none */
    uint32_t console_seq;       /* transcript entries printed so far */
    int32_t console_db;         /* the db in redis-cli's prompt */
    int32_t control_conn;       /* the buttons' connection, -1 none */
    int32_t control_db;         /* the db it has SELECTed */
    uint32_t populated;         /* Populate runs so far */
    int32_t lab;                /* the lab running (page's index), -1 */
    int32_t lab_part;           /* its part running */
    int32_t mc_node;            /* the memcached node, -1 before it starts */
    int32_t mc_conn;            /* the console's connection to it, -1 */
    uint32_t programs;          /* client programs started */
    int32_t program_id[GK_SESSION_PROGRAMS_MAX];     /* workload ids */
    uint8_t program_preset[GK_SESSION_PROGRAMS_MAX]; /* page's preset */
    int8_t program_lab[GK_SESSION_PROGRAMS_MAX];     /* lab, -1 none */
    uint8_t program_part[GK_SESSION_PROGRAMS_MAX];   /* the lab's part */
    uint8_t pad[GK_SESSION_PROGRAMS_MAX];            /* zero */
    int32_t console_port;       /* the port redis-cli's CONNECT chose, 0:
                                   the page's first server */
} gkSession;

/* A host's system calls and event-loop iterations (any node: a server or
 * a workload's client program). */
typedef struct gkNodeStats {
    uint64_t reads, writes, polls;  /* system calls on sockets */
    uint64_t bytes_read, bytes_written; /* bytes those calls moved */
    uint64_t iterations;            /* event-loop iterations */
} gkNodeStats;

/* A server node's replication, as the network view draws it
 * (gkReplInspect): its place in the topology, its offsets, its backlog. */
#define GK_LINK_NONE 0          /* a master: it follows nobody */
#define GK_LINK_CONNECTING 1    /* a replica connecting to its master */
#define GK_LINK_HANDSHAKE 2     /* PING, REPLCONF, PSYNC under way */
#define GK_LINK_TRANSFER 3      /* receiving the master's RDB */
#define GK_LINK_UP 4            /* following the master's stream */

typedef struct gkReplNode {
    int32_t port;               /* the port it listens on */
    int32_t link;               /* GK_LINK_*: its link to its master */
    int32_t master_port;        /* its master's port, 0 for a master */
    int32_t replicas;           /* replicas connected to it (gkReplLink) */
    int64_t offset;             /* master_repl_offset: the stream so far */
    int64_t applied_offset;     /* a replica's: of its master's stream,
                                   what it applied (slave_repl_offset) */
    int64_t read_offset;        /* and what it read (applied or not) */
    int64_t sync_total;         /* a transfer's RDB bytes, -1 unknown
                                   (diskless: until its end mark) */
    int64_t sync_read;          /* and the bytes received so far */
    int64_t backlog_size;       /* repl-backlog-size */
    int64_t backlog_histlen;    /* bytes of the stream the backlog holds */
    int64_t backlog_first;      /* the offset of its first byte */
    int64_t rdb_child;          /* a child making an RDB: 1 to disk, 2 to
                                   replicas' sockets, 0 none */
    char replid[48];            /* its replication id (40 hex digits) */
} gkReplNode;

#define GK_REPLICA_WAIT_BGSAVE 0    /* its full sync waits for an RDB */
#define GK_REPLICA_SEND_BULK 1      /* the RDB is being sent */
#define GK_REPLICA_ONLINE 2         /* it gets the stream */

/* One replica connected to a node, seen from the master's side. */
typedef struct gkReplLink {
    int32_t port;               /* its listening port (REPLCONF) */
    int32_t state;              /* GK_REPLICA_* */
    int32_t node;               /* the world's node listening there, -1 */
    int32_t pad;                /* zero */
    int64_t ack_offset;         /* its last REPLCONF ACK */
    int64_t ack_age_ms;         /* how long ago (INFO's lag) */
    int64_t buffered;           /* bytes in its output buffer, not yet
                                   written to the socket */
    int64_t in_flight;          /* bytes written, on the wire or not yet
                                   read by the replica */
} gkReplLink;

/* ---- Functions. ---- */
void gkConfigInit(gkConfig *cfg);
size_t gkHeapLimitMax(void);
int gkWorldCreate(gkWorld **out, const gkConfig *cfg, gkAllocFn alloc,
                  void *ud);
void gkWorldRelease(gkWorld *w);
const char *gkStatusString(int status);
const char *gkWorldLastError(gkWorld *w);

uint64_t gkWorldNow(gkWorld *w);
size_t gkWorldMemory(gkWorld *w);
/* The machine's CPUs, shared by every host of the world; 0 (the default):
 * each host runs on a CPU of its own. wake_ns: a sleeping process woken on
 * an idle CPU runs that much later; switch_ns: a CPU passed to the next
 * process in the run queue. GK_EINVAL past 64 CPUs or while hosts hold
 * or wait for CPUs. */
int gkWorldSetCpus(gkWorld *w, int cpus, uint64_t wake_ns,
                   uint64_t switch_ns);

/* The id a command's GK_TR_CMD records carry (d), by its name in any
 * case ("set", "MSET"); -1 for a name that is no command. Subcommands
 * have ids of their own, not found here. */
int gkCommandId(const char *name);
int gkWorldStep(gkWorld *w, uint64_t *next_time);
int gkWorldRunUntil(gkWorld *w, uint64_t time_ns);
int gkWorldRunUntilIdle(gkWorld *w);
uint64_t gkWorldNextEventTime(gkWorld *w);
void gkWorldDigest(gkWorld *w, uint64_t *out);
gkSession *gkWorldSession(gkWorld *w);
int gkServerDatasetDigest(gkWorld *w, int node, long long cutoff_ms,
                          uint64_t *out);

int gkServerAdd(gkWorld *w, int *node_id);
int gkServerConfigSet(gkWorld *w, int node, const char *name,
                      const char *value);
/* How long a busy script may run on node's simulated server before the
 * world stops it, in ms after busy-reply-threshold (0: never). It starts
 * at GK_SCRIPT_TIME_BOX_MS, for a host that cannot send while the world
 * runs; a host that can (it polls the world while a node is held in a busy
 * script, see worldSetHostPoll) may allow longer, with console_can_kill
 * set, and the stopped script's error then says it was the box. */
#define GK_SCRIPT_TIME_BOX_MS 2000
int gkServerSetScriptTimeBox(gkWorld *w, int node, int32_t ms,
                             gkBool console_can_kill);
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
int gkConnLocalPort(gkWorld *w, int conn);

/* The machine's sysctls (every node of a world is on one machine), named
 * as sysctl names them: net.ipv4.ip_local_port_range ("32768 60999", the
 * ephemeral ports connections take) and net.ipv4.ip_local_reserved_ports
 * ("" or a list such as "8080,30000-30100", ports connections never
 * take). */
int gkWorldSysctlSet(gkWorld *w, const char *name, const char *value);
int gkWorldSysctlGet(gkWorld *w, const char *name, char *buf, size_t cap);

uint64_t gkTraceLastSeq(gkWorld *w);
size_t gkTraceRead(gkWorld *w, uint64_t after_seq, gkTraceRecord *out,
                   size_t max);
void gkTraceEnable(gkWorld *w, uint32_t type_mask);

/* The dict calls return GK_ENOTFOUND for an unknown node or db and
 * GK_EINVAL for a bad kind, table, bucket or count, with the reason in
 * gkWorldLastError. */
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
int gkWorkloadGetSpec(gkWorld *w, int id, gkWorkloadSpec *out);
size_t gkWorkloadSamples(gkWorld *w, int id, uint64_t *times,
                         uint64_t *latencies, size_t max);
int gkNodeGetStats(gkWorld *w, int node, gkNodeStats *out);
/* Node's replication (GK_ENOTFOUND: no server runs there), and its i-th
 * replica in the order they came (GK_ENOTFOUND past the last). */
int gkReplInspect(gkWorld *w, int node, gkReplNode *out);
int gkReplInspectLink(gkWorld *w, int node, int i, gkReplLink *out);

long gkLabRun(const char *name, uint64_t seed, char *out, size_t cap);
const char *gkLabName(int i);
const char *gkLabTopic(int i);
long gkWorkloadRunJson(const gkWorkloadSpec *spec, uint64_t seed, char *out,
                       size_t cap);

/* ---- eval-vs-zcard a step at a time. ----
 * Seed 004's lab (gkLabRun "eval-vs-zcard") as a run its host advances in
 * steps of bounded work, so that a page can show how far it is and stop
 * it: a million sorted sets loaded into a server of its own world, then
 * a redis-rb-like client sending ZCARD of every key, one round trip each,
 * then the same client sending one EVAL over every key; a PING monitor
 * beside each run. However the run is cut into steps, its figures are
 * gkLabRun's, byte for byte. */
#define GK_EVLAB_LOAD 0     /* loading the dataset */
#define GK_EVLAB_ZCARD 1    /* the ZCARD run */
#define GK_EVLAB_EVAL 2     /* the EVAL run */
#define GK_EVLAB_DONE 3     /* the figures are ready */

typedef struct gkEvalLab gkEvalLab;

typedef struct gkEvalLabProgress {
    int32_t part;           /* GK_EVLAB_* */
    uint32_t keys;          /* keys of the dataset */
    uint64_t done;          /* the part's work done: keys loaded, or
                               replies the run's client has had */
    uint64_t total;         /* the part's work in all */
    uint64_t now_ns;        /* the lab world's clock */
    uint64_t part_from_ns;  /* when the run in progress began */
} gkEvalLabProgress;

int gkEvalLabCreate(gkEvalLab **out, uint64_t seed, gkBool trace);
int gkEvalLabStep(gkEvalLab *lab, uint32_t work, gkEvalLabProgress *p);
void gkEvalLabGetProgress(gkEvalLab *lab, gkEvalLabProgress *p);
long gkEvalLabFigures(gkEvalLab *lab, char *out, size_t cap);
gkWorld *gkEvalLabWorld(gkEvalLab *lab);
void gkEvalLabRelease(gkEvalLab *lab);

int gkScanAuditBegin(gkWorld *w, int node, int db, int conn);
int gkScanAuditGet(gkWorld *w, int node, gkScanAudit *out);
int gkScanAuditMissing(gkWorld *w, int node, char *out, size_t cap,
                       size_t *written);
int gkScanAuditEnd(gkWorld *w, int node);

/* ---- SCAN walks: a client calling SCAN until the cursor is 0 again. ----
 *
 * A Redis-style node has at most one walk, on a connection the engine
 * opens for it and keeps from walk to walk (it opens another, selecting
 * the walk's db, when the server closed it). A step sends one
 * SCAN cursor [MATCH pattern] COUNT count, runs the world until the reply
 * is in (at most 10 s of virtual time after sending) and records the call:
 * the cursors, the tables' sizes and rehashidx when SCAN ran, the buckets
 * it visited in order (as the server visits them), the keys it returned
 * and which of those an earlier call had returned. Beginning a walk also
 * begins the SCAN audit of its db for its connection; the walk keeps the
 * audit's counters as they were after its last call. The walk lives in
 * the world, so a copy of the world's memory holds all of it.
 *
 * The lists below are kept in part; their counts cover everything. */
#define GK_SCAN_WALK_RECENT 32    /* calls kept: the most recent */
#define GK_SCAN_WALK_BUCKETS 256  /* buckets kept per call: the first */
#define GK_SCAN_WALK_KEYS 200     /* keys kept per call, and duplicates */
#define GK_SCAN_WALK_MISSING 200  /* keys the audit found missing, kept
                                     when the walk is done */
#define GK_SCAN_WALK_MATCH 127    /* bytes of a MATCH pattern, at most */

/* A node's walk as a whole. */
typedef struct gkScanWalkInfo {
    gkBool active;          /* a walk was begun (the rest is 0 if not) */
    gkBool done;            /* the cursor came back to 0 */
    gkBool failed;          /* the last call got no cursor: see error */
    int32_t db;             /* the database walked */
    int32_t conn;           /* the walk's connection, -1 if none is open */
    uint32_t recent;        /* calls kept (gkScanWalkCalls) */
    uint64_t serial;        /* walks begun on the node, this one too */
    uint64_t count;         /* COUNT of every call */
    uint64_t cursor;        /* the cursor the next call sends */
    uint64_t calls;         /* SCAN calls sent, failed ones too */
    uint64_t distinct;      /* distinct keys returned */
    uint64_t duplicates;    /* returns of a key an earlier call returned */
    uint32_t missing_kept;  /* once done: missing keys kept (at most
                               GK_SCAN_WALK_MISSING) */
    uint32_t missing_bytes; /* bytes gkScanWalkMissing writes for them */
    char match[128];        /* the MATCH pattern, "" for none */
    char error[128];        /* the last call's error reply (without the
                               "-"), or why none came; "" if it had none */
} gkScanWalkInfo;

/* One call of a walk. */
typedef struct gkScanWalkCall {
    uint64_t n;             /* its number in the walk, from 1 */
    uint64_t cursor_in;     /* the cursor it sent */
    uint64_t cursor_out;    /* the cursor SCAN returned */
    uint64_t size[2];       /* both tables' sizes when SCAN ran (0: none) */
    int64_t rehashidx;      /* the rehash index then, -1 if none */
    uint64_t buckets;       /* buckets SCAN visited */
    uint32_t buckets_kept;  /* of those, kept (gkScanWalkBuckets) */
    uint32_t keys;          /* keys returned */
    uint32_t keys_kept;     /* of those, kept (gkScanWalkKeys) */
    uint32_t keys_bytes;    /* bytes gkScanWalkKeys writes for them */
    uint32_t duplicates;    /* returned keys an earlier call returned */
    uint32_t duplicates_kept;  /* of those, kept */
    uint32_t duplicates_bytes; /* bytes gkScanWalkKeys writes for them */
    uint32_t pad;
} gkScanWalkCall;

/* A bucket a call visited. Its table's size is the call's size[table]. */
typedef struct gkScanWalkBucket {
    uint32_t table;         /* 0 or 1 */
    uint32_t pad;
    uint64_t index;         /* the bucket's index in that table */
} gkScanWalkBucket;

int gkScanWalkBegin(gkWorld *w, int node, int db, uint64_t count,
                    const char *match, size_t match_len);
int gkScanWalkStep(gkWorld *w, int node);
int gkScanWalkFinish(gkWorld *w, int node, uint64_t max_calls);
int gkScanWalkEnd(gkWorld *w, int node);
int gkScanWalkGetInfo(gkWorld *w, int node, gkScanWalkInfo *out);
int gkScanWalkAudit(gkWorld *w, int node, gkScanAudit *out);
int gkScanWalkCalls(gkWorld *w, int node, gkScanWalkCall *out, uint32_t max,
                    uint32_t *n);
int gkScanWalkBuckets(gkWorld *w, int node, uint64_t call,
                      gkScanWalkBucket *out, uint32_t max, uint32_t *n);
int gkScanWalkKeys(gkWorld *w, int node, uint64_t call, int duplicates,
                   char *out, size_t cap, size_t *written);
int gkScanWalkMissing(gkWorld *w, int node, char *out, size_t cap,
                      size_t *written);
int gkScanWalkVisited(gkWorld *w, int node, uint64_t size, uint32_t bins,
                      uint8_t *out);

/* ---- Redis-style persistence: the machine's disk, crashes, the AOF. ----
 *
 * Every Redis-style node runs on a machine with a simulated disk: files
 * with a page cache (written, not durable) and durable bytes, a device
 * with a latency and a bandwidth, free space and read-only directories a
 * scenario can set. Paths are "name" in the working directory or
 * "dir/name" (the AOF lives in "appendonlydir/"). */

/* The disk as a whole. */
typedef struct gkDiskInfo {
    char preset[16];            /* "nvme", "ssd", "hdd", "slow-fsync" */
    uint64_t capacity;          /* bytes the file system holds */
    uint64_t used;              /* bytes of file data */
    uint64_t free_bytes;
    uint64_t device_busy_until; /* the device queue drains then (ns) */
    uint32_t queued;            /* requests in the device queue */
    uint32_t files;             /* files, open or named */
    uint64_t written;           /* bytes written into the page cache */
    uint64_t durable_bytes;     /* bytes that reached the device */
    uint64_t syncs;             /* fsyncs completed */
    uint64_t writebacks;        /* writebacks by the kernel's flusher */
} gkDiskInfo;

/* One file. */
typedef struct gkDiskFileInfo {
    uint64_t size;              /* bytes in the page cache (read(2) sees) */
    uint64_t durable;           /* bytes on the device */
    uint64_t dirty;             /* bytes written, not yet on the device */
    uint64_t syncing_until;     /* an fsync in flight completes then, or 0 */
    uint64_t dirty_since;       /* dirty since then (the flusher writes
                                   it back 30 s later), 0 if clean */
    int32_t inode;
    int32_t open;               /* open descriptors */
} gkDiskFile;

/* A crash at a chosen point (gkServerCrashAt flags). */
#define GK_CRASH_AT_BEFORE_SLEEP 1  /* at the next beforeSleep */
#define GK_CRASH_AT_TRACE 2         /* at_ns is a trace sequence number:
                                       right after that record */

/* Adds a Redis-style node started with a redis.conf-style configuration
 * ("appendonly yes\nappendfsync always\n"; NULL: defaults). */
int gkServerAddConfig(gkWorld *w, const char *conf, int *node_id);
int gkServerCrash(gkWorld *w, int node, int kind);
int gkServerCrashAt(gkWorld *w, int node, uint64_t at_ns, int kind,
                    int flags);
int gkServerCrashAtEvent(gkWorld *w, int node, int kind, int type,
                         int64_t a, int64_t b, int flags);
int gkServerRestart(gkWorld *w, int node, const char *conf);
int gkServerIsUp(gkWorld *w, int node);
int gkServerDeathDigest(gkWorld *w, int node, uint64_t *digest,
                        long long *cutoff_ms);
size_t gkServerLogRead(gkWorld *w, int node, uint64_t after_seq, char *out,
                       size_t cap, uint64_t *last_seq);
/* The number of node's newest log line (lines count from 1; 0: none, or
 * not a Redis-style node). */
uint64_t gkServerLogLast(gkWorld *w, int node);

/* The memory of node's machine, as its kernel weighs a fork: "mem-total"
 * and "swap-total" (bytes, or with Redis's units: 512mb, 4gb),
 * "vm.overcommit_memory" (0 heuristic, the default; 1 always; 2 never)
 * and "vm.overcommit_ratio" (percent, 50 by default). A machine starts
 * with 16 GB of RAM and no swap. GK_EINVAL, with a message, for an
 * unknown name or a bad value. A process reads vm.overcommit_memory for
 * its startup warning when it starts; every fork is weighed anew. */
int gkMachineSet(gkWorld *w, int node, const char *name, const char *value);
int gkMachineGet(gkWorld *w, int node, const char *name, char *buf,
                 size_t cap);

int gkDiskSetPreset(gkWorld *w, int node, const char *name);
const char *gkDiskPresetName(int i);
int gkDiskSetFree(gkWorld *w, int node, uint64_t bytes);
int gkDiskSetReadOnly(gkWorld *w, int node, const char *dir, int readonly);
int gkDiskIsReadOnly(gkWorld *w, int node, const char *dir);
int gkDiskGetInfo(gkWorld *w, int node, gkDiskInfo *out);
int gkDiskFileInfo(gkWorld *w, int node, const char *path,
                   gkDiskFile *out);
int gkDiskList(gkWorld *w, int node, const char *dir, char *out, size_t cap,
               size_t *written);
int gkDiskReadFile(gkWorld *w, int node, const char *path, int durable,
                   char *out, size_t cap, size_t *size);
int gkDiskWriteFile(gkWorld *w, int node, const char *path, const void *buf,
                    size_t len);

/* The AOF of a Redis-style node. Offsets in fed/written/acked/durable
 * count the bytes of every command fed to aof_buf since the process
 * started: the same stream seen at four stages. */
typedef struct gkAofInfo {
    int32_t state;              /* 0 off, 1 on, 2 waiting for a rewrite */
    int32_t fsync;              /* appendfsync: 0 no, 1 always, 2 everysec */
    int32_t last_write_status;  /* 0 ok, -1 the last write failed */
    int32_t last_write_errno;
    int32_t bio_fsync_status;   /* 0 ok, -1 the last bio fsync failed */
    gkBool rewrite_in_progress;
    int32_t selected_db;        /* db of the last SELECT written, or -1 */
    int32_t pad;
    uint64_t buffer_length;     /* aof_buf bytes */
    uint64_t current_size;      /* aof_current_size */
    uint64_t base_size;         /* aof_base_size */
    uint64_t fsync_offset;      /* current_size at the last fsync */
    uint64_t pending_bio_fsync; /* BIO_AOF_FSYNC jobs, running included */
    uint64_t delayed_fsync;     /* aof_delayed_fsync */
    int64_t flush_postponed_start; /* unix s of the postponement, or 0 */
    int64_t last_fsync;         /* unix s */
    uint64_t fed;               /* bytes fed to aof_buf */
    uint64_t written;           /* of those, written into the file */
    uint64_t acked;             /* whose replies have been written */
    uint64_t durable;           /* on the device */
    char incr_file[64];         /* the incr file being appended */
    char base_file[64];
} gkAofInfo;

/* A thread (or the rewrite child) of a Redis-style node's process. */
typedef struct gkThreadInfo {
    char name[24];              /* "main", "bio_close_file", "bio_aof_fsync",
                                   "bio_lazy_free", "aof-rewrite" */
    gkBool busy;                /* working at the current time */
    uint32_t pending;           /* jobs queued, the running one included */
    uint64_t busy_since;        /* start of the current job */
    uint64_t busy_until;        /* its end, when known */
    uint64_t jobs_done;
    uint64_t busy_ns;           /* time spent working */
} gkThreadInfo;

/* The AOF stream's four offsets at one moment of a Redis-style node's
 * process (gkAofHistory): as gkAofInfo counts them. */
typedef struct gkAofSample {
    uint64_t time;              /* virtual ns */
    uint64_t fed;               /* bytes fed to aof_buf */
    uint64_t written;           /* of those, written into the file */
    uint64_t acked;             /* whose replies have been written */
    uint64_t durable;           /* on the device */
} gkAofSample;

/* Samples gkAofHistory keeps at most over a process's life. */
#define GK_AOF_HISTORY_MAX 1024

int gkAofGetInfo(gkWorld *w, int node, gkAofInfo *out);
int gkAofHistory(gkWorld *w, int node, gkAofSample *out, int max, int *n);
int gkServerThreads(gkWorld *w, int node, gkThreadInfo *out, int max,
                    int *n);

/* ---- memcached-style nodes: slab classes and pages. ---- */

/* One slab class of a memcached-style node. */
typedef struct gkMcClass {
    uint32_t id;            /* class id, 1 .. totals.classes */
    uint32_t chunk_size;    /* bytes per chunk */
    uint32_t perslab;       /* chunks per page */
    uint32_t pages;         /* pages the class holds */
    uint32_t used_chunks;   /* chunks holding an item or part of one */
    uint32_t free_chunks;   /* chunks on the class's free list */
    uint32_t items;         /* items in the class's LRU */
    uint32_t free_head_page;  /* page of the free list's head chunk, */
    uint32_t free_head_chunk; /* and its index there; UINT32_MAX if none */
    uint32_t pad;
    uint64_t requested;     /* ntotal of the items in its LRU: memcached's
                               mem_requested (a large item counts whole
                               in the largest class) */
    uint64_t allocated;     /* bytes of its pages (pages * 1 MB, except
                               with -o no_modern) */
    uint64_t evicted;       /* items evicted from its LRU */
    uint64_t out_of_memory; /* stores refused for want of memory */
} gkMcClass;

/* Node-wide slab figures. */
typedef struct gkMcTotals {
    uint32_t classes;       /* number of classes: the largest id */
    uint32_t active_slabs;  /* classes with at least one page */
    uint32_t page_size;     /* bytes per page (1 MB) */
    uint32_t chunk_max;     /* slab_chunk_max: the largest class */
    uint32_t item_size_max; /* -I: larger items are refused */
    uint32_t pad;
    uint64_t limit;         /* -m in bytes */
    uint64_t total_malloced;/* bytes of pages taken */
    uint64_t requested;     /* sum of the classes' requested */
    uint64_t used_bytes;    /* sum of used chunks * chunk size */
    uint64_t curr_items;    /* items stored */
    uint64_t evictions;     /* items evicted, all classes */
} gkMcTotals;

/* Adds a memcached-style node, configured as memcached 1.6.18 is by its
 * command line (without the program name), e.g. "-m 64 -f 1.25 -n 48
 * -I 1m -o slab_chunk_max=524288 -C". GK_EINVAL with memcached's message
 * in gkWorldLastError for options it would refuse. */
int gkMemcachedAdd(gkWorld *w, const char *options, int *node_id);

/* Starts a memcached-style node with these options at host id `node`: on
 * an id no host has, a new host there (the ids below it stay free for
 * others); on a memcached-style node, a new process in place of the one
 * running, whose items and connections are gone, as after a restart. The
 * options are checked first: GK_EINVAL with memcached's message if it
 * would refuse them (a running node is left alone), GK_EINVAL if the id
 * is out of range or another kind of host's, GK_ENOMEM if the node cannot
 * be allocated. */
int gkMemcachedStart(gkWorld *w, int node, const char *options);

/* Fills rows[0..max) with the node's slab classes (*n gets how many there
 * are) and *totals, if not NULL. */
int gkMemcachedClasses(gkWorld *w, int node, gkMcClass *rows, uint32_t max,
                       uint32_t *n, gkMcTotals *totals);

/* For slab class cls, used[i] = used chunks in page i, in the order the
 * pages were taken; *n gets the class's page count. */
int gkMemcachedPages(gkWorld *w, int node, uint32_t cls, uint32_t *used,
                     uint32_t max, uint32_t *n);

/* For page `page` of class cls, bytes[i] = bytes chunk i uses (its header
 * included), 0 if the chunk is free; *n gets the chunks per page. The
 * rest of each chunk, up to the chunk size, is padding. */
int gkMemcachedChunks(gkWorld *w, int node, uint32_t cls, uint32_t page,
                      uint32_t *bytes, uint32_t max, uint32_t *n);

/* Where an item with a key of nkey bytes, these client flags and a value
 * of vlen bytes would go: *ntotal its size as memcached counts it, *cls
 * its class (the largest class for an item stored in chunks), 0 if it is
 * too large to store. */
int gkMemcachedItemClass(gkWorld *w, int node, uint32_t nkey, uint32_t flags,
                         uint64_t vlen, uint32_t *cls, uint64_t *ntotal);

/* The class ladder options would give, without a world or a node (for
 * what-if sliders): rows and *n as gkMemcachedClasses. GK_EINVAL with
 * memcached's message in err (cap bytes, NUL-terminated) for options it
 * would refuse. */
int gkMemcachedLayout(const char *options, gkMcClass *rows, uint32_t max,
                      uint32_t *n, char *err, size_t cap);

/* How memcached-style nodes differ from memcached 1.6.18 (English text,
 * for the UI to show next to the slab view). */
const char *gkMemcachedNotes(void);

/* ---- memcached fill workloads: many sets of chosen value sizes. ---- */

/* Value sizes of a memcached fill workload. */
enum { GK_MC_DIST_FIXED = 0, GK_MC_DIST_UNIFORM = 1, GK_MC_DIST_NORMAL = 2,
       GK_MC_DIST_SHIFT = 3 };

typedef struct gkMcFillSpec {
    uint32_t dist;        /* GK_MC_DIST_* */
    uint32_t size_a;      /* value bytes. fixed: the size; uniform: the
                             least; normal: the mean; shift: at the start */
    uint32_t size_b;      /* uniform: the most; normal: the standard
                             deviation; shift: the size at the end */
    uint32_t key_bytes;   /* bytes per key */
    uint64_t keyspace;    /* distinct keys: set i writes key i % keyspace */
    uint64_t total;       /* sets in the whole workload (a shift moves
                             from size_a to size_b over them) */
    uint64_t seed;        /* the sizes' random stream */
} gkMcFillSpec;

typedef struct gkMcFillResult {
    uint64_t sent;          /* sets sent */
    uint64_t stored;        /* replied STORED */
    uint64_t out_of_memory; /* SERVER_ERROR out of memory storing object */
    uint64_t too_large;     /* SERVER_ERROR object too large for cache */
    uint64_t evictions;     /* items the node evicted meanwhile */
    uint64_t value_bytes;   /* value bytes sent */
} gkMcFillResult;

/* Limits of one gkMemcachedFill call (GK_EINVAL beyond them): the sets it
 * sends, the value bytes they carry in all, and one value's size. A call
 * at the count limit takes seconds of real time: larger workloads go in
 * slices. */
#define GK_MC_FILL_MAX_COUNT 1048576u
#define GK_MC_FILL_MAX_BYTES 1073741824u
#define GK_MC_FILL_MAX_VALUE 16777216u

/* Sends sets first .. first+count-1 of the workload to a memcached-style
 * node over a connection of its own, pipelined as a client would, runs
 * the world until every reply arrived, and ADDS what they said to *out.
 * The same spec and range give the same sets, so a workload can run in
 * slices. */
int gkMemcachedFill(gkWorld *w, int node, const gkMcFillSpec *spec,
                    uint64_t first, uint64_t count, gkMcFillResult *out);

/* GK_OK if gkMemcachedFill would send this range of this workload, else
 * GK_EINVAL with the reason it would give (a range run in several calls
 * is then refused as a whole). Sends nothing. */
int gkMemcachedFillCheck(gkWorld *w, const gkMcFillSpec *spec,
                         uint64_t first, uint64_t count);

/* The value size of set i of a fill workload, as gkMemcachedFill sends it
 * (for drawing the distribution). The spec is not checked here. */
uint32_t gkMcFillValueSize(const gkMcFillSpec *spec, uint64_t i);

/* ---- Recovery: what a restart kept of the writes clients were told
 * succeeded. ----
 *
 * A Redis-style node asked to (gkServerRecoveryFollow) keeps a ledger of
 * the writes its process acknowledged: a write is acknowledged once its
 * reply has been written to the client's socket, and the ledger keeps the
 * dataset those writes built, in the engine's memory beside the real one.
 * When the process dies the ledger outlives it; the next restart that
 * starts compares it, key by key, with the dataset the new process loaded
 * and keeps the report until the next one. */

/* What the restarted server holds of a key (gkRecoveryRow.outcome). */
#define GK_RECOVERY_KEPT 0   /* the value the last acknowledged write left */
#define GK_RECOVERY_NEWER 1  /* a value from later writes no client was
                                told about, which reached the AOF */
#define GK_RECOVERY_LOST 2   /* nothing: the acknowledged key is gone */
#define GK_RECOVERY_OLDER 3  /* a value from before the acknowledged write
                                (or a key that write deleted) */

/* Rows a report keeps at most: the most telling ones (see
 * gkServerRecoveryRows); its counts cover every key. */
#define GK_RECOVERY_ROWS_MAX 1024

/* A report: the keys compared and what became of them. Keys whose expire
 * time is at or before cutoff_ms count as absent on both sides. */
typedef struct gkRecoveryInfo {
    gkBool following;           /* the ledger follows the running process */
    gkBool ready;               /* a report exists (a crash, a restart) */
    gkBool stopped;             /* the ledger had stopped following (it
                                   outgrew half the heap limit): counts
                                   only, no rows */
    int32_t crash_kind;         /* GK_CRASH_PROCESS or GK_CRASH_POWER */
    int32_t policy;             /* at the death, as GK_TR_CRASH's c: 256 if
                                   appendonly was yes, plus appendfsync */
    int32_t pad;
    uint64_t died_at;           /* virtual ns of the death */
    uint64_t restarted_at;      /* virtual ns of the restart compared */
    int64_t cutoff_ms;          /* Unix ms: an hour after the death */
    uint64_t keys;              /* keys in either dataset, and keys a write
                                   was acknowledged to that neither holds */
    uint64_t kept;              /* of those, GK_RECOVERY_KEPT */
    uint64_t newer;             /* GK_RECOVERY_NEWER */
    uint64_t lost;              /* GK_RECOVERY_LOST */
    uint64_t older;             /* GK_RECOVERY_OLDER */
    uint64_t acked_keys;        /* keys of the acknowledged dataset */
    uint64_t dbsize;            /* keys the restarted server holds */
    uint64_t carried;           /* kept keys with no acknowledged write
                                   since the dead process started */
    uint64_t followed;          /* acknowledged writes to the keys compared */
    uint64_t writes;            /* write commands the process acknowledged
                                   (a transaction's count one by one) */
    uint64_t unacked;           /* write commands it ran and never
                                   acknowledged */
    uint64_t assumed;           /* write commands counted as acknowledged
                                   before their reply was (a client that
                                   stopped reading let the ledger fall
                                   behind) */
    uint64_t units;             /* execution units it propagated (a write
                                   command, or an EXEC), acknowledged or
                                   not */
    int64_t units_restored;     /* of those, how many from the first on
                                   the restart holds; -1 if unknown */
    int64_t units_beyond;       /* units it holds after the first one it
                                   lacks: 0 unless a power loss cut an
                                   incr file a rewrite had left to a
                                   background thread to fsync */
    uint64_t rows;              /* rows kept, at most GK_RECOVERY_ROWS_MAX */
    uint64_t ledger_bytes;      /* memory the node's ledgers hold now */
    uint64_t acked_now;         /* write commands the running process
                                   acknowledged so far -- while the node is
                                   down, the dead one's (0 when not
                                   following) */
    uint64_t keys_now;          /* keys its acknowledged dataset holds so
                                   far, expired ones included until the
                                   ledger applies their deletion */
} gkRecoveryInfo;

/* One key of a report. Texts are NUL-terminated, cut with "..." when
 * long; control bytes and backslashes are escaped as redis-cli does. */
typedef struct gkRecoveryRow {
    int32_t db;                 /* database index */
    int32_t outcome;            /* GK_RECOVERY_* */
    uint32_t key_len;           /* bytes in the key (key holds its text) */
    uint32_t writes;            /* acknowledged write commands to it since
                                   the dead process started (or its db's
                                   last flush) */
    gkBool acked_present;       /* the acknowledged dataset holds it */
    gkBool found_present;       /* the restarted server holds it */
    uint64_t acked_at;          /* virtual ns of its last acknowledged
                                   write, 0 if none */
    int64_t acked_expire;       /* acknowledged expire time, Unix ms, -1 */
    int64_t found_expire;       /* the restarted server's, -1 none */
    uint64_t acked_size;        /* a string's bytes or a collection's
                                   elements, acknowledged */
    uint64_t found_size;        /* the same, after the restart */
    char key[64];               /* the key */
    char command[24];           /* its last acknowledged write's command
                                   (EXEC for a transaction), "" if none */
    char acked[96];             /* the acknowledged value: a string as it
                                   is, {a, b} a set, {f: v} a hash,
                                   {m: score} a sorted set */
    char found[96];             /* the restarted server's, the same way */
} gkRecoveryRow;

int gkServerRecoveryFollow(gkWorld *w, int node, int on);
int gkServerRecoveryInfo(gkWorld *w, int node, gkRecoveryInfo *out);
int gkServerRecoveryRows(gkWorld *w, int node, uint32_t first,
                         gkRecoveryRow *rows, uint32_t max, uint32_t *n);

#ifdef __cplusplus
}
#endif
#endif
