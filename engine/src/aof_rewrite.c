/* aof_rewrite.c -- the manifest and the AOF rewrite (BGREWRITEAOF).
 *
 * The manifest (appendonlydir/appendonly.aof.manifest) names the files
 * that make up the AOF, one line each:
 *
 *     file appendonly.aof.2.base.rdb seq 2 type b
 *     file appendonly.aof.3.incr.aof seq 3 type i
 *
 * the base first, then history files (about to be deleted), then the
 * incr files in order. It is replaced atomically: written to a temp
 * file, fsynced, renamed over, and the directory fsynced.
 *
 * A rewrite forks. At that instant the parent switches its appends to a
 * new incr file (and records it in the manifest), so nothing written from
 * then on depends on the child. The child sees the dataset as it was at
 * the fork -- copy-on-write, which I get here by serializing the dataset
 * at once, the bytes it would write -- and spends its own CPU and disk
 * time writing them to a temp file, fsyncing, renaming it. When the
 * parent notices (in serverCron) that the child exited, it renames the
 * temp file to the next base, marks the old base and the old incr files
 * as history, persists the manifest and deletes the history in the
 * background. 7.0 has no rewrite buffer: the new incr file is the
 * rewrite buffer. */
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <stdarg.h>
#include <ctype.h>
#include "script.h"
#include "server.h"
#include "rdb.h"
#include "stream.h"

static long long _unixtime(redisServer *s) { return s->mstime / 1000; }

/* ---- The manifest. ---- */

/* An empty manifest. */
aofManifest *aofManifestCreate(redisServer *s) {
    return memCalloc(s->mem, sizeof(aofManifest));
}

/* Frees n manifest entries and their array. */
static void _freeInfos(redisServer *s, aofInfo *list, int n) {
    for (int i = 0; i < n; i++) sdsfree(s->mem, list[i].file_name);
    memFree(s->mem, list);
}

/* Frees a manifest (NULL is fine). */
void aofManifestRelease(redisServer *s, aofManifest *am) {
    if (!am) return;
    _freeInfos(s, am->base, am->base ? 1 : 0);
    _freeInfos(s, am->incr, am->nincr);
    _freeInfos(s, am->hist, am->nhist);
    memFree(s->mem, am);
}

/* A deep copy of n manifest entries (NULL for none). */
static aofInfo *_dupInfos(redisServer *s, const aofInfo *list, int n) {
    if (!n) return NULL;
    aofInfo *d = memAlloc(s->mem, sizeof(aofInfo) * (size_t)n);
    for (int i = 0; i < n; i++) {
        d[i] = list[i];
        d[i].file_name = sdsdup(s->mem, list[i].file_name);
    }
    return d;
}

/* A deep copy: changes are made on a copy and swapped in only once they
 * are on disk. */
aofManifest *aofManifestDup(redisServer *s, aofManifest *am) {
    aofManifest *d = aofManifestCreate(s);
    *d = *am;
    d->base = _dupInfos(s, am->base, am->base ? 1 : 0);
    d->incr = _dupInfos(s, am->incr, am->nincr);
    d->hist = _dupInfos(s, am->hist, am->nhist);
    return d;
}

/* Whether a file name must be quoted in the manifest. */
static int _needsRepr(const char *p) {
    for (; *p; p++)
        if (!isprint((unsigned char)*p) || isspace((unsigned char)*p) ||
            *p == '"' || *p == '\'' || *p == '\\') return 1;
    return 0;
}

/* Appends one manifest line for ai; returns buf. */
static sds _catInfo(redisServer *s, sds buf, const aofInfo *ai) {
    sds name = _needsRepr(ai->file_name)
               ? sdscatrepr(s->mem, sdsempty(s->mem), ai->file_name,
                            sdslen(ai->file_name))
               : sdsdup(s->mem, ai->file_name);
    buf = sdscatprintf(s->mem, buf, "file %s seq %lld type %c\n", name,
                       ai->file_seq, ai->file_type);
    sdsfree(s->mem, name);
    return buf;
}

/* The manifest's text: base, history, incr. */
sds aofManifestString(redisServer *s, aofManifest *am) {
    sds buf = sdsempty(s->mem);
    if (am->base) buf = _catInfo(s, buf, am->base);
    for (int i = 0; i < am->nhist; i++) buf = _catInfo(s, buf, &am->hist[i]);
    for (int i = 0; i < am->nincr; i++) buf = _catInfo(s, buf, &am->incr[i]);
    return buf;
}

/* writeAofManifestFile: temp file, write, fsync, rename, fsync dir. */
static int _writeManifest(redisServer *s, sds buf) {
    char name[300], tmpname[320];
    snprintf(name, sizeof(name), "%s.manifest", s->cfg.appendfilename);
    snprintf(tmpname, sizeof(tmpname), "temp-%s", name);
    sds path = aofPath(s, name), tmp = aofPath(s, tmpname);
    int ret = C_ERR, r;
    int fd = s->fs.open(s->fs.ctx, tmp, FS_O_WRONLY | FS_O_TRUNC |
                                        FS_O_CREAT);
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Can't open the AOF manifest file %s: %s",
                  tmpname, aofStrerror(-fd));
        goto cleanup;
    }
    for (size_t off = 0; off < sdslen(buf); off += (size_t)r) {
        r = (int)s->fs.write(s->fs.ctx, fd, buf + off, sdslen(buf) - off);
        if (r <= 0) {
            serverLog(s, LL_WARNING, "Error trying to write the temporary "
                      "AOF manifest file %s: %s", tmpname,
                      aofStrerror(r < 0 ? -r : FS_ENOSPC));
            goto cleanup;
        }
    }
    if ((r = s->fs.fsync(s->fs.ctx, fd)) < 0) {
        serverLog(s, LL_WARNING, "Fail to fsync the temp AOF file %s: %s.",
                  tmpname, aofStrerror(-r));
        goto cleanup;
    }
    if ((r = s->fs.rename(s->fs.ctx, tmp, path)) < 0) {
        serverLog(s, LL_WARNING, "Error trying to rename the temporary AOF "
                  "manifest file %s into %s: %s", tmpname, name,
                  aofStrerror(-r));
        goto cleanup;
    }
    if ((r = s->fs.fsyncDir(s->fs.ctx, s->cfg.appenddirname)) < 0) {
        serverLog(s, LL_WARNING, "Fail to fsync AOF directory %s: %s.", path,
                  aofStrerror(-r));
        goto cleanup;
    }
    ret = C_OK;
cleanup:
    if (fd >= 0) s->fs.close(s->fs.ctx, fd);
    sdsfree(s->mem, path);
    sdsfree(s->mem, tmp);
    return ret;
}

/* Writes the manifest if it changed. C_OK, or C_ERR with the
 * reason logged (the manifest stays dirty). */
int persistAofManifest(redisServer *s, aofManifest *am) {
    if (!am->dirty) return C_OK;
    sds buf = aofManifestString(s, am);
    int ret = _writeManifest(s, buf);
    sdsfree(s->mem, buf);
    if (ret == C_OK) am->dirty = 0;
    return ret;
}

/* Puts ai at the head of the history list. */
static void _prependHist(redisServer *s, aofManifest *am, aofInfo ai) {
    am->hist = memRealloc(s->mem, am->hist,
                          sizeof(aofInfo) * (size_t)(am->nhist + 1));
    memmove(am->hist + 1, am->hist, sizeof(aofInfo) * (size_t)am->nhist);
    am->nhist++;
    ai.file_type = AOF_FILE_TYPE_HIST;
    am->hist[0] = ai;
}

/* Whether a rewrite would need a sequence number past LLONG_MAX: it
 * takes the next base and the next incr number. Redis 7.0 reads any
 * number atoll gives into the manifest and then just adds one, which
 * overflows at LLONG_MAX (and the negative name it writes then fails the
 * next start as a non-monotonic sequence). I check before the rewrite
 * starts instead, so the rewrite is refused and the manifest, and the
 * node's next start, stay as they were. */
int aofSeqExhausted(const aofManifest *am) {
    return am->curr_base_file_seq == LLONG_MAX ||
           am->curr_incr_file_seq == LLONG_MAX;
}

/* getNewBaseFileNameAndMarkPreAsHistory: the next base name (a copy the
 * caller frees); the current base becomes history. */
sds aofNewBaseName(redisServer *s, aofManifest *am) {
    if (am->base) {
        _prependHist(s, am, *am->base);
        memFree(s->mem, am->base);
    }
    am->base = memCalloc(s->mem, sizeof(aofInfo));
    am->base->file_seq = ++am->curr_base_file_seq;
    am->base->file_type = AOF_FILE_TYPE_BASE;
    am->base->file_name = sdscatprintf(s->mem, sdsempty(s->mem),
        "%s.%lld.base.%s", s->cfg.appendfilename, am->base->file_seq,
        s->cfg.aof_use_rdb_preamble ? "rdb" : "aof");
    am->dirty = 1;
    return sdsdup(s->mem, am->base->file_name);
}

/* getNewIncrAofName: a new incr file at the end of the list (a copy of
 * its name, for the caller to free). */
sds aofNewIncrName(redisServer *s, aofManifest *am) {
    am->incr = memRealloc(s->mem, am->incr,
                          sizeof(aofInfo) * (size_t)(am->nincr + 1));
    aofInfo *ai = &am->incr[am->nincr++];
    ai->file_seq = ++am->curr_incr_file_seq;
    ai->file_type = AOF_FILE_TYPE_INCR;
    ai->file_name = sdscatprintf(s->mem, sdsempty(s->mem), "%s.%lld.incr.aof",
                                 s->cfg.appendfilename, ai->file_seq);
    am->dirty = 1;
    return sdsdup(s->mem, ai->file_name);
}

/* getLastIncrAofName: the last incr file, created if there is none. */
const char *aofLastIncrName(redisServer *s, aofManifest *am) {
    if (am->nincr == 0) sdsfree(s->mem, aofNewIncrName(s, am));
    return am->incr[am->nincr - 1].file_name;
}

/* markRewrittenIncrAofAsHistory: every incr file but the one being
 * written (if the AOF is on) becomes history. */
void aofMarkIncrAsHistory(redisServer *s, aofManifest *am) {
    int keep = s->aof.fd != -1 ? 1 : 0;
    if (am->nincr == 0) return;
    for (int i = am->nincr - 1 - keep; i >= 0; i--)
        _prependHist(s, am, am->incr[i]);
    int left = am->nincr - (am->nincr - keep);
    memmove(am->incr, am->incr + am->nincr - left,
            sizeof(aofInfo) * (size_t)left);
    am->nincr = left;
    am->dirty = 1;
}

/* aofDelHistoryFiles: deletes history files in the background. */
int aofDelHistoryFiles(redisServer *s) {
    aofManifest *am = s->aof.manifest;
    if (!am || s->cfg.aof_disable_auto_gc || am->nhist == 0) return C_OK;
    for (int i = 0; i < am->nhist; i++) {
        serverLog(s, LL_NOTICE, "Removing the history file %s in the "
                  "background", am->hist[i].file_name);
        sds path = aofPath(s, am->hist[i].file_name);
        aofBackgroundUnlink(s, path);
        sdsfree(s->mem, path);
    }
    _freeInfos(s, am->hist, am->nhist);
    am->hist = NULL;
    am->nhist = 0;
    am->dirty = 1;
    return persistAofManifest(s, am);
}

/* ---- The rewrite's content. ---- */

typedef struct rwBatch {
    gkMem *mem;
    sds buf;
    const char *verb;
    sds key;
    unsigned long items;        /* elements left */
    int count;                  /* in the current command */
    int pairs;
} rwBatch;

/* Appends a RESP bulk string; returns b. */
static sds _bulk(gkMem *m, sds b, const char *p, size_t len) {
    b = sdscatprintf(m, b, "$%zu\r\n", len);
    b = sdscatlen(m, b, p, len);
    return sdscatlen(m, b, "\r\n", 2);
}

/* Appends an integer as a RESP bulk string; returns b. */
static sds _bulkLL(gkMem *m, sds b, long long v) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof(buf), v);
    return _bulk(m, b, buf, (size_t)len);
}

/* One element of an RPUSH / SADD / HMSET / ZADD batch of at most 64. */
static void _rwElement(void *ctx, const char *a, size_t alen, const char *b,
                       size_t blen, double score) {
    rwBatch *r = ctx;
    if (r->count == 0) {
        unsigned long n = r->items > AOF_REWRITE_ITEMS_PER_CMD
                          ? AOF_REWRITE_ITEMS_PER_CMD : r->items;
        r->buf = sdscatprintf(r->mem, r->buf, "*%lu\r\n", 2 + n *
                              (unsigned long)(r->pairs ? 2 : 1));
        r->buf = _bulk(r->mem, r->buf, r->verb, strlen(r->verb));
        r->buf = _bulk(r->mem, r->buf, r->key, sdslen(r->key));
    }
    if (!strcmp(r->verb, "ZADD")) {
        char num[MAX_D2STRING_CHARS];
        int len = snprintf(num, sizeof(num), "%.17g", score);
        r->buf = _bulk(r->mem, r->buf, num, (size_t)len);
    }
    r->buf = _bulk(r->mem, r->buf, a, alen);
    if (b) r->buf = _bulk(r->mem, r->buf, b, blen);
    if (++r->count == AOF_REWRITE_ITEMS_PER_CMD) r->count = 0;
    r->items--;
}

static sds _bulkID(gkMem *m, sds b, const streamID *id) {
    char buf[STREAM_ID_STR_LEN];
    int n = streamIDToString(buf, id);
    return _bulk(m, b, buf, (size_t)n);
}

/* A stream as 7.0 rewrites it: an XADD per entry (an empty stream as
 * XADD key MAXLEN 0 0-1 x y), XSETID with its counters, then per group
 * XGROUP CREATE ... ENTRIESREAD, and per consumer an XCLAIM ... FORCE of
 * each pending entry, or XGROUP CREATECONSUMER if it has none. */
static sds _rwStream(gkMem *m, sds b, sds key, robj *o) {
    stream *st = o->v.ptr;
    streamIterator si;
    streamID id;
    int64_t numfields;
    size_t klen = sdslen(key);
    if (st->length) {
        streamIteratorStart(&si, st, NULL, NULL, 0);
        while (streamIteratorGetID(&si, &id, &numfields)) {
            b = sdscatprintf(m, b, "*%lld\r\n", 3 + (long long)numfields * 2);
            b = _bulk(m, b, "XADD", 4);
            b = _bulk(m, b, key, klen);
            b = _bulkID(m, b, &id);
            while (numfields--) {
                unsigned char *f, *v;
                int64_t flen, vlen;
                streamIteratorGetField(&si, &f, &v, &flen, &vlen);
                b = _bulk(m, b, (char *)f, (size_t)flen);
                b = _bulk(m, b, (char *)v, (size_t)vlen);
            }
        }
        streamIteratorStop(&si);
    } else {
        b = sdscat(m, b, "*7\r\n$4\r\nXADD\r\n");
        b = _bulk(m, b, key, klen);
        b = sdscat(m, b, "$6\r\nMAXLEN\r\n$1\r\n0\r\n$3\r\n0-1\r\n"
                   "$1\r\nx\r\n$1\r\ny\r\n");
    }
    b = sdscat(m, b, "*7\r\n$6\r\nXSETID\r\n");
    b = _bulk(m, b, key, klen);
    b = _bulkID(m, b, &st->last_id);
    b = _bulk(m, b, "ENTRIESADDED", 12);
    b = _bulkLL(m, b, (long long)st->entries_added);
    b = _bulk(m, b, "MAXDELETEDID", 12);
    b = _bulkID(m, b, &st->max_deleted_entry_id);
    if (!st->cgroups) return b;
    raxIterator ri, ci, pi;
    raxStart(&ri, st->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        b = sdscat(m, b, "*7\r\n$6\r\nXGROUP\r\n$6\r\nCREATE\r\n");
        b = _bulk(m, b, key, klen);
        b = _bulk(m, b, (char *)ri.key, ri.key_len);
        b = _bulkID(m, b, &cg->last_id);
        b = _bulk(m, b, "ENTRIESREAD", 11);
        b = _bulkLL(m, b, cg->entries_read);
        raxStart(&ci, cg->consumers);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            streamConsumer *sc = ci.data;
            if (raxSize(sc->pel) == 0) {
                b = sdscat(m, b, "*5\r\n$6\r\nXGROUP\r\n"
                           "$14\r\nCREATECONSUMER\r\n");
                b = _bulk(m, b, key, klen);
                b = _bulk(m, b, (char *)ri.key, ri.key_len);
                b = _bulk(m, b, sc->name, sdslen(sc->name));
                continue;
            }
            raxStart(&pi, sc->pel);
            raxSeek(&pi, "^", NULL, 0);
            while (raxNext(&pi)) {
                streamNACK *nack = pi.data;
                streamDecodeID(pi.key, &id);
                b = sdscat(m, b, "*12\r\n$6\r\nXCLAIM\r\n");
                b = _bulk(m, b, key, klen);
                b = _bulk(m, b, (char *)ri.key, ri.key_len);
                b = _bulk(m, b, sc->name, sdslen(sc->name));
                b = _bulk(m, b, "0", 1);
                b = _bulkID(m, b, &id);
                b = _bulk(m, b, "TIME", 4);
                b = _bulkLL(m, b, nack->delivery_time);
                b = _bulk(m, b, "RETRYCOUNT", 10);
                b = _bulkLL(m, b, (long long)nack->delivery_count);
                b = _bulk(m, b, "JUSTID", 6);
                b = _bulk(m, b, "FORCE", 5);
            }
            raxStop(&pi);
        }
        raxStop(&ci);
    }
    raxStop(&ri);
    return b;
}

/* The commands that rebuild one key (and its TTL); returns b. */
static sds _rwKey(redisServer *s, gkMem *m, sds b, redisDb *db, sds key,
                  robj *o) {
    if (o->type == OBJ_STRING) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(o, buf, &len);
        b = sdscat(m, b, "*3\r\n$3\r\nSET\r\n");
        b = _bulk(m, b, key, sdslen(key));
        b = _bulk(m, b, p, len);
    } else if (o->type == OBJ_LIST) {
        rwBatch r = { m, b, "RPUSH", key, 0, 0, 0 };
        r.items = (unsigned long)listTypeLength(o);
        rdbForEachElement(o, _rwElement, &r);
        b = r.buf;
    } else if (o->type == OBJ_STREAM) {
        b = _rwStream(m, b, key, o);
    } else {
        rwBatch r = { m, b, o->type == OBJ_SET ? "SADD" : o->type == OBJ_HASH
                      ? "HMSET" : "ZADD", key, 0, 0, o->type != OBJ_SET };
        r.items = o->type == OBJ_SET ? setTypeSize(o) : o->type == OBJ_HASH
                  ? hashTypeLength(o) : zsetLength(o);
        rdbForEachElement(o, _rwElement, &r);
        b = r.buf;
    }
    robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
    long long when = getExpire(db, &k);
    if (when != -1) {
        b = sdscat(m, b, "*3\r\n$9\r\nPEXPIREAT\r\n");
        b = _bulk(m, b, key, sdslen(key));
        b = _bulkLL(m, b, when);
    }
    return b;
}

/* rewriteAppendOnlyFileRio: the dataset as commands (a .base.aof). */
/* The base's FUNCTION LOAD of one library. */
typedef struct rwLibraries {
    gkMem *m;
    sds b;
} rwLibraries;

static void _rwLibrary(void *ctx, functionLib *lib) {
    rwLibraries *rw = ctx;
    rw->b = sdscat(rw->m, rw->b, "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n");
    rw->b = _bulk(rw->m, rw->b, lib->code, sdslen(lib->code));
}

static sds _rewriteCommands(redisServer *s, gkMem *m, long long *keys) {
    sds b = sdsempty(m);
    if (s->cfg.aof_timestamp_enabled)
        b = sdscatprintf(m, b, "#TS:%lld\r\n", _unixtime(s));
    rwLibraries rw = { m, b };
    functionsForEachLibrary(s, _rwLibrary, &rw);
    b = rw.b;
    for (int j = 0; j < s->cfg.databases; j++) {
        redisDb *db = &s->db[j];
        if (dictSize(db->dict) == 0) continue;
        b = sdscat(m, b, "*2\r\n$6\r\nSELECT\r\n");
        b = _bulkLL(m, b, j);
        dictIterator *di = dictGetIterator(db->dict);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            b = _rwKey(s, m, b, db, dictGetKey(de), dictGetVal(de));
            (*keys)++;
        }
        dictReleaseIterator(di);
    }
    return b;
}

/* The bytes of a new base file: an RDB (aof-use-rdb-preamble yes) or
 * commands, allocated with mem. */
sds aofRewriteToSds(redisServer *s, gkMem *mem, long long *keys) {
    *keys = 0;
    if (s->cfg.aof_use_rdb_preamble) return rdbSaveSnapshot(s, mem, keys);
    return _rewriteCommands(s, mem, keys);
}

/* rewriteAppendOnlyFile, in the server itself (the startup base): temp
 * file, write, fsync, rename to path. */
int aofRewriteSync(redisServer *s, const char *path) {
    char tmp[64];
    long long keys;
    snprintf(tmp, sizeof(tmp), "temp-rewriteaof-%d.aof", s->pid);
    int fd = s->fs.open(s->fs.ctx, tmp, FS_O_WRONLY | FS_O_TRUNC |
                                        FS_O_CREAT), r = 0;
    if (fd < 0) {
        serverLog(s, LL_WARNING, "Opening the temp file for AOF rewrite in "
                  "rewriteAppendOnlyFile(): %s", aofStrerror(-fd));
        return C_ERR;
    }
    sds data = aofRewriteToSds(s, s->mem, &keys);
    long n = s->fs.write(s->fs.ctx, fd, data, sdslen(data));
    if (n != (long)sdslen(data)) r = n < 0 ? (int)n : -FS_ENOSPC;
    if (r == 0) r = s->fs.fsync(s->fs.ctx, fd);
    s->fs.close(s->fs.ctx, fd);
    sdsfree(s->mem, data);
    if (r < 0) {
        serverLog(s, LL_WARNING, "Write error writing append only file on "
                  "disk: %s", aofStrerror(-r));
        s->fs.unlink(s->fs.ctx, tmp);
        return C_ERR;
    }
    if ((r = s->fs.rename(s->fs.ctx, tmp, path)) < 0) {
        serverLog(s, LL_WARNING, "Error moving temp append only file on the "
                  "final destination: %s", aofStrerror(-r));
        s->fs.unlink(s->fs.ctx, tmp);
        return C_ERR;
    }
    return C_OK;
}
