/* rdb.h -- the RDB format (version 10, Redis 7.0), as much of it as the
 * AOF needs: the AOF's base file is an RDB snapshot unless
 * aof-use-rdb-preamble is no.
 *
 * An RDB file is "REDIS0010", auxiliary fields (0xFA name value: the
 * version that wrote it, the time, the memory used, "aof-base 1" for an
 * AOF base), then for each non-empty database a SELECTDB (0xFE) and a
 * RESIZEDB (0xFB) opcode and its keys -- each an optional expire (0xFC
 * and 8 bytes of unix ms), a type byte, the key and the value -- then
 * 0xFF and a CRC-64 of everything before it, little-endian.
 *
 * Lengths take 1, 2, 5 or 9 bytes (the top two bits of the first byte
 * say which); strings that are small integers are stored as 1, 2 or 4
 * byte integers, and strings longer than 20 bytes are LZF-compressed
 * when that saves space (Redis's default rdbcompression yes). The writer
 * stores values as Redis 7.0 does: an intset set (type 11), a listpack
 * hash or sorted set (16, 17) as one string holding the whole blob; a
 * hashtable set or hash (2, 4) element by element; a skiplist sorted set
 * (5) from the highest score down with binary scores; a list as a
 * quicklist of listpack and plain nodes (18), compressed nodes left
 * LZF-compressed. The reader also takes plain lists (type 1), text
 * scores (type 3) and the ziplists of RDB 9 and older (types 10, 12, 13
 * and 14), not the zipmap of Redis 2.x (type 9). DUMP's payload is one value in this encoding (rdbDumpPayload),
 * and RESTORE reads it back with the same reader (rdbLoadValue). */
#ifndef GK_RDB_H
#define GK_RDB_H

#include <stdint.h>
#include "server.h"

#define RDB_VERSION 10

/* Why a load failed: the kinds Redis reports differently. */
#define RDB_ERR_OTHER 0         /* err is the whole log line */
#define RDB_ERR_SHORT 1         /* the file ended early (rdbReportReadError) */
#define RDB_ERR_CORRUPT 2       /* bad data (rdbReportCorruptRDB) */

/* What a load found, for the log and the caller. */
typedef struct rdbLoadInfo {
    char version[32];           /* aux redis-ver */
    long long ctime;            /* aux ctime, unix seconds (-1 none) */
    long long used_mem;         /* aux used-mem (-1 none) */
    int aof_base;               /* aux aof-base 1 */
    /* The replication history the file stands for (aux repl-id,
     * repl-offset, repl-stream-db), if its writer had one. */
    char repl_id[41];
    long long repl_offset;
    int repl_stream_db;
    long long keys;             /* keys loaded */
    size_t bytes;               /* bytes the RDB took, checksum included */
    int err_kind;               /* RDB_ERR_* */
    char err[256];              /* why it failed */
} rdbLoadInfo;

/* Receives the dataset as commands, argv[0] first; returns C_ERR to
 * stop the load. */
typedef int rdbExecFn(void *ctx, int dbid, int argc, robj **argv);

uint64_t crc64(uint64_t crc, const unsigned char *s, uint64_t l);
sds rdbSaveSnapshot(redisServer *s, gkMem *mem, long long *keys);
size_t rdbSavedValueLen(gkMem *m, const robj *o);
int rdbSaveFile(redisServer *s, const char *filename);
int rdbLoadFile(redisServer *s, const char *filename, int replace);
int rdbLoadCommands(redisServer *s, const char *buf, size_t len,
                    rdbExecFn *fn, void *ctx, rdbLoadInfo *info);
sds rdbDumpPayload(gkMem *m, const robj *o);
int rdbPayloadValid(const unsigned char *p, size_t len);
sds rdbFunctionsPayload(redisServer *s);
int rdbFunctionsFromPayload(redisServer *s, const char *p, size_t len,
                            sds **codes, int *n, sds *err);
int rdbLoadValue(redisServer *s, const char *buf, size_t len, robj *key,
                 int *argc, robj ***argv);
void rdbFreeCommand(redisServer *s, int argc, robj **argv);
int rdbIsStreamPayload(const char *buf, size_t len);
int rdbLoadStreamObject(redisServer *s, const char *buf, size_t len,
                        robj **out);
void rdbForEachElement(const robj *o, void (*fn)(void *ctx, const char *a,
                       size_t alen, const char *b, size_t blen,
                       double score), void *ctx);

#endif
