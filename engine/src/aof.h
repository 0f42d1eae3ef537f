/* aof.h -- the append-only file, as Redis 7.0 writes it.
 *
 * The AOF is not a write-ahead log. A write command first changes the
 * dataset in memory and queues its reply; only then is it propagated
 * (call() -> propagatePendingCommands -> feedAppendOnlyFile), which
 * appends its RESP bytes to aof_buf, a buffer in memory. Nothing reaches
 * the file until the event loop is about to sleep: beforeSleep calls
 * flushAppendOnlyFile, which write(2)s aof_buf into the page cache, and
 * then writes the replies. So every command run in one iteration -- a
 * whole pipeline of them -- is in memory only until that beforeSleep.
 *
 * What reaches the device depends on appendfsync:
 *   always    fdatasync in beforeSleep itself, before any reply goes out;
 *   everysec  the fdatasync is handed to a bio thread at most once a
 *             second; while it runs, writes are postponed for up to two
 *             seconds, after which Redis writes anyway (aof_delayed_fsync);
 *   no        never fsynced by Redis: the kernel writes dirty pages back
 *             after about 30 s.
 *
 * The files: a directory (appendonlydir) holding a base file (an RDB
 * snapshot, or commands with aof-use-rdb-preamble no), incr files with
 * the commands since, and a manifest naming them. A rewrite (BGREWRITEAOF)
 * forks a child that writes a new base from a snapshot of the dataset
 * while the parent appends to a new incr file; when the child is done the
 * manifest switches to the new base and the old files are deleted. */
#ifndef GK_AOF_H
#define GK_AOF_H

#include <stdint.h>
#include "sds.h"
#include "mem.h"

#define AOF_OFF 0
#define AOF_ON 1
#define AOF_WAIT_REWRITE 2      /* appendonly just turned on: waiting for
                                   the first rewrite to create the files */

#define AOF_FSYNC_NO 0
#define AOF_FSYNC_ALWAYS 1
#define AOF_FSYNC_EVERYSEC 2

/* Results of loading. */
#define AOF_OK 0
#define AOF_NOT_EXIST 1
#define AOF_EMPTY 2
#define AOF_OPEN_ERR 3
#define AOF_FAILED 4
#define AOF_TRUNCATED 5

#define AOF_FILE_TYPE_BASE 'b'
#define AOF_FILE_TYPE_HIST 'h'
#define AOF_FILE_TYPE_INCR 'i'

#define AOF_REWRITE_ITEMS_PER_CMD 64
#define AOF_WRITE_LOG_ERROR_RATE 30     /* seconds between error lines */

/* One file named by the manifest. */
typedef struct aofInfo {
    sds file_name;
    long long file_seq;
    char file_type;             /* AOF_FILE_TYPE_* */
} aofInfo;

typedef struct aofManifest {
    aofInfo *base;              /* NULL if there is none */
    aofInfo *incr;              /* in sequence order */
    int nincr;
    aofInfo *hist;              /* to be deleted */
    int nhist;
    long long curr_base_file_seq;
    long long curr_incr_file_seq;
    int dirty;                  /* differs from the file on disk */
} aofManifest;

typedef struct aofState {
    int state;                  /* AOF_OFF, AOF_ON, AOF_WAIT_REWRITE */
    int fd;                     /* the incr file being appended, or -1 */
    sds buf;                    /* aof_buf: fed, not yet written */
    int selected_db;            /* db of the last SELECT written, or -1 */
    long long current_size;     /* bytes in the base and incr files */
    long long last_incr_size;   /* bytes in the current incr file */
    long long rewrite_base_size;/* current_size after the last rewrite */
    long long fsync_offset;     /* current_size at the last fsync */
    long long last_fsync;       /* unix seconds of the last fsync */
    long long flush_postponed_start; /* unix seconds, 0 if none */
    long long delayed_fsync;    /* writes done despite a running fsync */
    int last_write_status;      /* C_OK or C_ERR */
    int last_write_errno;
    long long last_write_error_log;
    int rewrite_scheduled;
    long long rewrite_time_start;   /* unix seconds, -1 if none */
    long long rewrite_time_last;
    int lastbgrewrite_status;
    long long stat_rewrites;
    long long rewrites_consecutive_failures;
    long long cur_timestamp;    /* last #TS annotation */
    int limit_delay_minutes;    /* aofRewriteLimited's back-off */
    long long limit_next_time;
    aofManifest *manifest;
    /* For the views: bytes fed since start, and how many of them had
     * their replies written when the last beforeSleep ended. */
    long long fed_bytes;
    long long acked_bytes;
    long long written_bytes;    /* fed bytes written to a file */
} aofState;

#endif
