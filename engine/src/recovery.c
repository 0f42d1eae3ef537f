/* recovery.c -- the recovery ledger of a running Redis-style process: the
 * units it propagated, which of them its clients were told about, and the
 * shadow keyspace those build. See recovery.h for the whole picture; the
 * comparison with a restarted process is in recovery_report.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include "server.h"
#include "script.h"
#include "rdb.h"
#include "recovery.h"

/* ---- The shadow: a scratch server of the ledger's own. ---- */

/* The shadow's clock: it never runs an event loop, so it never asks. */
static uint64_t _shadowNow(void *ctx) { (void)ctx; return 0; }

static void _sdsFree(dict *d, void *p) { sdsfree(d->env->mem, p); }
static void _metaFree(dict *d, void *p) { memFree(d->env->mem, p); }
static void _imageFree(dict *d, void *p) { rlImageRelease(d->env->mem, p); }

static dictType metaDictType = { dictSdsHash, dictSdsKeyCompare, _sdsFree,
                                 _metaFree, NULL };
static dictType overlayDictType = { dictSdsHash, dictSdsKeyCompare,
                                    _sdsFree, _imageFree, NULL };

static void _keyhook(void *ctx, redisDb *db, sds key);

/* A server that only ever runs propagated commands as the AOF loader
 * does: loading (nothing expires, nothing propagates), untraced, with
 * the real server's configuration but no lazy freeing (it has no bio
 * threads), its hash seed and PRNG its own. */
static redisServer *_shadowCreate(recoveryLedger *l, redisServer *s) {
    aeBackend be = { l, NULL, _shadowNow, NULL, NULL, NULL };
    redisServer *sh = serverCreate(&l->mem, s->node, be, &l->rng, NULL,
                                   s->unix_ms_at_zero, 0);
    sh->cfg = s->cfg;
    sh->cfg.appendonly = 0;
    sh->cfg.lazyfree_lazy_user_del = 0;
    sh->cfg.lazyfree_lazy_user_flush = 0;
    sh->cfg.lazyfree_lazy_expire = 0;
    sh->loading = 1;
    sh->keyhook = _keyhook;
    sh->keyhook_ctx = l;
    return sh;
}

/* Runs one command in the shadow, in db dbid; argv is the shadow's and
 * is freed here. UNLINK runs as DEL: the same keys go, and the shadow has
 * no thread to free them later. */
static void _run(recoveryLedger *l, int dbid, int argc, robj **argv) {
    redisServer *sh = l->shadow;
    client *c = l->fake;
    const redisCommand *cmd = NULL;
    if (!strcasecmp(argv[0]->v.ptr, "unlink")) {
        robj *del = createStringObject(sh, "DEL", 3);
        cmd = lookupCommand(sh, &del, 1);
        decrRefCount(sh, del);
    } else {
        cmd = lookupCommand(sh, argv, argc);
    }
    c->db = &sh->db[dbid];
    c->argv = argv;
    c->argc = c->argv_len = argc;
    if (cmd) {
        c->cmd = c->lastcmd = cmd;
        cmd->proc(c);
    }
    if (c->argv) {                      /* a command may have replaced it */
        freeClientArgv(c);
        memFree(sh->mem, c->argv);
    }
    c->argv = NULL;
    c->argc = c->argv_len = 0;
}

/* rdbLoadCommands hands the starting dataset over key by key. */
static int _loadKey(void *ctx, int dbid, int argc, robj **argv) {
    recoveryLedger *l = ctx;
    redisServer *sh = l->shadow;
    robj **copy = memAlloc(sh->mem, sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++) copy[j] = dupStringObject(sh, argv[j]);
    _run(l, dbid, argc, copy);
    return C_OK;
}

/* Copies s's dataset into the shadow through an RDB image of it, as the
 * dataset digest takes one: without changing s (rehashing of the
 * expires dicts paused, the memory peak put back, no CPU charged). */
static int _copyDataset(recoveryLedger *l, redisServer *s) {
    gkMem scratch;
    memInit(&scratch, l->mem.fn, l->mem.ud);
    size_t peak = s->mem->peak;
    long long keys;
    for (int j = 0; j < s->cfg.databases; j++) s->db[j].expires->pauserehash++;
    s->denv.quiet++;            /* nor its CPU */
    sds rdb = rdbSaveSnapshot(s, &scratch, &keys);
    s->denv.quiet--;
    for (int j = 0; j < s->cfg.databases; j++) s->db[j].expires->pauserehash--;
    s->mem->peak = peak;
    rdbLoadInfo info;
    l->applying = NULL;
    int st = rdbLoadCommands(l->shadow, rdb, sdslen(rdb), _loadKey, l, &info);
    sdsfree(&scratch, rdb);
    return st;
}

/* ---- The files of the AOF stream. ----
 *
 * A restart reads the files its manifest names: a base, then incr files.
 * Which of the dead process's units it holds follows from which of these
 * files the process wrote, and where in its stream each began: the
 * ledger notes every file it sees the manifest name (at each unit's end
 * and each beforeSleep), which is soon enough, since files only change
 * between commands. */

/* The ledger's record of path, NULL if it has none. */
static rlFile *_file(recoveryLedger *l, const char *path) {
    for (int i = 0; i < l->nfiles; i++)
        if (!strcmp(l->files[i].path, path)) return &l->files[i];
    return NULL;
}

/* A new record (the oldest goes when there are RL_FILES). */
static rlFile *_addFile(recoveryLedger *l, const char *path, int kind) {
    if (l->nfiles == RL_FILES) {
        sdsfree(&l->mem, l->files[0].path);
        memmove(l->files, l->files + 1, sizeof(rlFile) * (RL_FILES - 1));
        l->nfiles--;
    }
    rlFile *f = &l->files[l->nfiles++];
    memset(f, 0, sizeof(*f));
    f->path = sdsnew(&l->mem, path);
    f->kind = kind;
    f->size0 = -1;
    return f;
}

/* "dir/name" of a manifest entry into buf. */
static const char *_path(redisServer *s, const aofInfo *ai, char *buf,
                         size_t cap) {
    snprintf(buf, cap, "%s/%s", s->cfg.appenddirname, ai->file_name);
    return buf;
}

/* The units that ran before the stream reached offset fed_start: all of
 * them but those the AOF got past it (the marks say which). */
static uint64_t _seqBefore(recoveryLedger *l, long long fed_start) {
    for (size_t i = 0; i < l->nmarks; i++) {
        const rlMark *m = &l->marks[(l->marks_head + i) % l->marks_cap];
        if (m->aof_end > fed_start) return m->seq - 1;
    }
    return l->seq;
}

/* The files the dataset the ledger starts from came from, when the AOF
 * is on: the base and the incr files, the last of which the process goes
 * on appending to (the bytes still in aof_buf belong to it, and to that
 * dataset, too). In the stream's offsets the incr files end where the
 * process's writes stand now: at a start, at 0. */
static void _startupFiles(recoveryLedger *l, redisServer *s,
                          recoveryFileSize *size, void *ctx) {
    aofManifest *am = s->aof.manifest;
    char path[300];
    if (s->aof.state != AOF_ON || !am) return;
    if (am->base) {
        rlFile *f = _addFile(l, _path(s, am->base, path, sizeof(path)),
                             RL_FILE_BASE);
        f->startup = 1;
    }
    long long end = s->aof.written_bytes;
    for (int i = am->nincr - 1; i >= 0 && l->nfiles < RL_FILES; i--) {
        int last = i == am->nincr - 1;
        _path(s, &am->incr[i], path, sizeof(path));
        long long sz = last ? s->aof.last_incr_size : size(ctx, path);
        if (sz < 0) sz = 0;
        rlFile *f = _addFile(l, path, RL_FILE_INCR);
        f->startup = 1;
        f->fed_start = end - sz;
        f->size0 = last ? sz + (long long)sdslen(s->aof.buf) : sz;
        end -= sz;
    }
}

/* Notes the files the manifest names now that the ledger has not seen:
 * the incr file being appended to -- its first byte is the stream offset
 * written_bytes - last_incr_size, the two growing together -- and a base
 * a rewrite made, which holds the units before that incr file. */
static void _trackFiles(recoveryLedger *l, redisServer *s) {
    aofManifest *am = s->aof.manifest;
    char path[300];
    if (s->aof.state != AOF_ON || s->aof.fd < 0 || !am || am->nincr == 0)
        return;
    _path(s, &am->incr[am->nincr - 1], path, sizeof(path));
    rlFile *incr = _file(l, path);
    if (!incr) {
        incr = _addFile(l, path, RL_FILE_INCR);
        incr->fed_start = s->aof.written_bytes - s->aof.last_incr_size;
        incr->seq = _seqBefore(l, incr->fed_start);
    }
    if (am->base && !_file(l, _path(s, am->base, path, sizeof(path)))) {
        /* The rewrite began with the first incr file the manifest still
         * names (the later ones began with later rewrites). */
        uint64_t seq = incr->seq;
        rlFile *first = _file(l, _path(s, &am->incr[0], path, sizeof(path)));
        if (first) seq = first->seq;
        rlFile *base = _addFile(l, _path(s, am->base, path, sizeof(path)),
                                RL_FILE_BASE);
        base->seq = seq;
    }
}

/* Starts following s: the shadow begins as a copy of s's dataset. NULL
 * if the host refused the memory. The ledger is freed with
 * recoveryRelease. */
recoveryLedger *recoveryCreate(redisServer *s, recoveryFileSize *size,
                               void *ctx) {
    gkAllocFn fn = s->mem->fn;
    recoveryLedger *l = fn(s->mem->ud, NULL, 0, sizeof(*l));
    if (!l) return NULL;
    memset(l, 0, sizeof(*l));
    memInit(&l->mem, fn, s->mem->ud);
    rngSeed(&l->rng, 0x6c6564676572ULL ^ (uint64_t)s->node);
    l->limit = s->heap_limit / 2;
    l->shadow = _shadowCreate(l, s);
    /* The client units run as in the shadow: no replies. */
    l->fake = createDetachedClient(l->shadow, CLIENT_FAKE |
                                              CLIENT_DENY_BLOCKING, 0);
    l->dbnum = s->cfg.databases;
    l->meta = memCalloc(&l->mem, sizeof(dict *) * (size_t)l->dbnum);
    l->overlay = memCalloc(&l->mem, sizeof(dict *) * (size_t)l->dbnum);
    l->flushed = memCalloc(&l->mem, sizeof(rlMeta) * (size_t)l->dbnum);
    for (int j = 0; j < l->dbnum; j++) {
        l->meta[j] = dictCreate(&metaDictType, &l->shadow->denv);
        l->overlay[j] = dictCreate(&overlayDictType, &l->shadow->denv);
    }
    _copyDataset(l, s);
    _startupFiles(l, s, size, ctx);
    return l;
}

/* Frees a unit's arguments and operations; the unit stays. */
static void _unitClear(recoveryLedger *l, rlUnit *u) {
    for (int i = 0; i < u->nops; i++) {
        for (int j = 0; j < u->ops[i].argc; j++)
            sdsfree(&l->mem, u->ops[i].argv[j]);
        memFree(&l->mem, u->ops[i].argv);
    }
    memFree(&l->mem, u->ops);
    u->ops = NULL;
    u->nops = 0;
}

/* Frees everything the ledger holds, and the ledger. NULL is fine. */
void recoveryRelease(recoveryLedger *l) {
    if (!l) return;
    for (size_t i = 0; i < l->count; i++)
        _unitClear(l, &l->units[(l->head + i) % l->cap]);
    _unitClear(l, &l->open);
    memFree(&l->mem, l->units);
    if (l->shadow) {
        for (int j = 0; j < l->dbnum; j++) {
            dictRelease(l->meta[j]);
            dictRelease(l->overlay[j]);
        }
        freeDetachedClient(l->fake);
        serverRelease(l->shadow);
    }
    memFree(&l->mem, l->meta);
    memFree(&l->mem, l->overlay);
    memFree(&l->mem, l->flushed);
    memFree(&l->mem, l->marks);
    for (int i = 0; i < l->nfiles; i++) sdsfree(&l->mem, l->files[i].path);
    l->mem.fn(l->mem.ud, l, sizeof(*l), 0);
}

/* Bytes the ledger holds, its own struct included. */
size_t recoveryMemory(const recoveryLedger *l) {
    return l ? l->mem.used + sizeof(*l) : 0;
}

/* ---- What keyhook hears: the keys each applied unit changes. ---- */

/* The meta record of key in db, created (count 0) if need be. */
static rlMeta *_meta(recoveryLedger *l, int dbid, sds key) {
    dictEntry *de = dictFind(l->meta[dbid], key);
    if (de) return dictGetVal(de);
    rlMeta *m = memCalloc(&l->mem, sizeof(*m));
    m->cmd = -1;
    dictAdd(l->meta[dbid], sdsdup(&l->mem, key), m);
    return m;
}

/* An acknowledged unit writes key: its value from now on is the
 * shadow's, and this is its last acknowledged write. Each of its
 * commands that writes the key counts once (a RENAME or a SET looks the
 * key up, then writes it). */
static void _ackedWrite(recoveryLedger *l, rlUnit *u, int dbid, sds key) {
    dictDelete(l->overlay[dbid], key);
    rlMeta *m = _meta(l, dbid, key);
    if (m->op == l->op) return;
    m->op = l->op;
    m->seq = u->seq;
    m->aof_end = u->aof_end;
    m->at = u->acked_at;
    m->cmd = u->cmd;
    m->count++;
}

/* A unit never acknowledged writes key: the first time since the last
 * acknowledged write, the value it replaces is the acknowledged one. */
static void _unackedWrite(recoveryLedger *l, int dbid, sds key) {
    if (dictFind(l->overlay[dbid], key)) return;
    rlImage *img = rlImageCreate(&l->mem, &l->shadow->db[dbid], key, LLONG_MIN);
    dictAdd(l->overlay[dbid], sdsdup(&l->mem, key), img);
}

/* A whole db is about to be emptied. */
static void _flush(recoveryLedger *l, rlUnit *u, redisDb *db) {
    int dbid = db->id;
    if (u->status == RL_ACKED) {
        /* Every key's last acknowledged write is now this flush: the
         * records before it say nothing more. */
        dictEmpty(l->overlay[dbid]);
        dictEmpty(l->meta[dbid]);
        rlMeta *f = &l->flushed[dbid];
        f->seq = u->seq;
        f->aof_end = u->aof_end;
        f->at = u->acked_at;
        f->cmd = u->cmd;
        f->op = l->op;
        f->count = 1;
        return;
    }
    dictIterator *di = dictGetSafeIterator(db->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) _unackedWrite(l, dbid, dictGetKey(de));
    dictReleaseIterator(di);
}

/* The shadow's keyhook. Changes made outside a unit (the starting copy)
 * are nobody's writes. */
static void _keyhook(void *ctx, redisDb *db, sds key) {
    recoveryLedger *l = ctx;
    rlUnit *u = l->applying;
    if (!u) return;
    if (!key) _flush(l, u, db);
    else if (u->status == RL_ACKED) _ackedWrite(l, u, db->id, key);
    else _unackedWrite(l, db->id, key);
}

/* The last acknowledged write to key in db: its own, or a flush of the
 * db after it; the latest dropped tombstone's for a deleted key the
 * ledger no longer follows; seq 0 if none since start. */
rlMeta recoveryLastWrite(recoveryLedger *l, int dbid, sds key) {
    rlMeta none = { 0, 0, -1, 0, 0, -1 };
    dictEntry *de = dictFind(l->meta[dbid], key);
    rlMeta m = de ? *(rlMeta *)dictGetVal(de) : none;
    if (l->flushed[dbid].seq > m.seq) m = l->flushed[dbid];
    if (!de && l->purged.seq > m.seq &&
        !dictFind(l->shadow->db[dbid].dict, key)) {
        m = l->purged;
        m.count = 0;
    }
    return m;
}

/* ---- Applying units to the shadow. ---- */

static int _cmpSeq(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Keeps the meta records of deleted keys to about RL_TOMBSTONES: when
 * there are twice that many, the older half of them goes, and the latest
 * of those is remembered (recoveryLastWrite). */
static void _pruneTombstones(recoveryLedger *l) {
    size_t records = 0, present = 0;
    for (int j = 0; j < l->dbnum; j++) {
        records += dictSize(l->meta[j]);
        present += dictSize(l->shadow->db[j].dict);
    }
    if (records < present + 2 * RL_TOMBSTONES) return;
    uint64_t *seqs = memAlloc(&l->mem, sizeof(uint64_t) * records);
    size_t n = 0;
    for (int j = 0; j < l->dbnum; j++) {
        dictIterator *di = dictGetIterator(l->meta[j]);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL)
            if (!dictFind(l->shadow->db[j].dict, dictGetKey(de)))
                seqs[n++] = ((rlMeta *)dictGetVal(de))->seq;
        dictReleaseIterator(di);
    }
    /* A sort for the median: O(N log N) once per RL_TOMBSTONES
     * deletions or so. */
    qsort(seqs, n, sizeof(uint64_t), _cmpSeq);
    uint64_t cut = n ? seqs[n / 2] : 0;
    memFree(&l->mem, seqs);
    for (int j = 0; j < l->dbnum; j++) {
        dictIterator *di = dictGetSafeIterator(l->meta[j]);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            rlMeta *m = dictGetVal(de);
            if (m->seq > cut || dictFind(l->shadow->db[j].dict,
                                         dictGetKey(de)))
                continue;
            if (m->seq > l->purged.seq) l->purged = *m;
            dictDelete(l->meta[j], dictGetKey(de));
        }
        dictReleaseIterator(di);
    }
}

/* Runs a unit's commands in the shadow. Its status says what keyhook
 * makes of the keys they change. */
static void _apply(recoveryLedger *l, rlUnit *u) {
    redisServer *sh = l->shadow;
    sh->mstime = u->mstime;
    sh->ustime = u->mstime * 1000;
    l->applying = u;
    for (int i = 0; i < u->nops; i++) {
        rlOp *op = &u->ops[i];
        l->op++;
        robj **argv = memAlloc(sh->mem, sizeof(robj *) * (size_t)op->argc);
        for (int j = 0; j < op->argc; j++)
            argv[j] = createStringObject(sh, op->argv[j],
                                         sdslen(op->argv[j]));
        _run(l, op->dbid, op->argc, argv);
    }
    l->applying = NULL;
}

/* Stops following: the ledger outgrew the node's heap limit. What it
 * held goes; the counters stay, and the report will say it stopped. */
static void _break(recoveryLedger *l) {
    for (size_t i = 0; i < l->count; i++)
        _unitClear(l, &l->units[(l->head + i) % l->cap]);
    l->count = l->head = 0;
    l->window_bytes = 0;
    for (int j = 0; j < l->dbnum; j++) {
        dictEmpty(l->meta[j]);
        dictEmpty(l->overlay[j]);
    }
    emptyData(l->shadow, -1);
    functionsClear(l->shadow);
    l->broken = 1;
}

/* Applies the oldest unit of the window and drops it. */
static void _applyHead(recoveryLedger *l) {
    rlUnit *u = &l->units[l->head];
    if (!l->broken) _apply(l, u);
    l->window_bytes -= u->bytes;
    _unitClear(l, u);
    l->head = (l->head + 1) % l->cap;
    l->count--;
    if (!l->broken && l->limit && l->mem.used > l->limit) _break(l);
}

/* A unit's fate is known: its reply was written at now (acked), or
 * never will be. Counted here, as it happens. */
static void _settle(recoveryLedger *l, rlUnit *u, int acked, uint64_t now) {
    u->status = acked ? RL_ACKED : RL_UNACKED;
    if (acked) u->acked_at = now;
    if (acked) l->writes += (uint64_t)u->nops;
    else l->unacked += (uint64_t)u->nops;
}

/* Applies the units whose fate is known, oldest first, stopping at the
 * first still waiting for its reply -- unless the window is full: then
 * that one is taken as acknowledged. */
static void _drain(recoveryLedger *l, uint64_t now) {
    while (l->count) {
        rlUnit *u = &l->units[l->head];
        if (u->status == RL_PENDING) {
            if (l->count <= RL_WINDOW_UNITS &&
                l->window_bytes <= RL_WINDOW_BYTES) break;
            _settle(l, u, 1, now);
            l->assumed += (uint64_t)u->nops;
        }
        _applyHead(l);
    }
    if (!l->broken) _pruneTombstones(l);
}

/* The client of unit u if it is still connected, else NULL. */
static client *_clientOf(redisServer *s, const rlUnit *u) {
    if (u->fd < 0 || u->fd >= s->clients_cap) return NULL;
    client *c = s->clients[u->fd];
    return c && c->id == u->client ? c : NULL;
}

/* Marks as acknowledged, at now, the waiting units whose replies have
 * been written; with final set, the others as never acknowledged. */
static void _resolve(recoveryLedger *l, redisServer *s, uint64_t now,
                     int final) {
    for (size_t i = 0; i < l->count; i++) {
        rlUnit *u = &l->units[(l->head + i) % l->cap];
        if (u->status != RL_PENDING) continue;
        client *c = _clientOf(s, u);
        if (c && c->reply_delivered >= u->reply_end) _settle(l, u, 1, now);
        else if (final) _settle(l, u, 0, now);
    }
}

/* ---- The running process's side. ---- */

/* Copies one propagated command into the open unit (alsoPropagate). */
void recoveryOp(redisServer *s, int dbid, robj **argv, int argc) {
    recoveryLedger *l = s->recovery;
    rlUnit *u = &l->open;
    if (l->broken) return;
    if (u->nops == 0) l->open_fed = s->aof.fed_bytes;
    if (u->nops == l->open_cap) {
        l->open_cap = l->open_cap ? l->open_cap * 2 : 4;
        u->ops = memRealloc(&l->mem, u->ops,
                            sizeof(rlOp) * (size_t)l->open_cap);
    }
    rlOp *op = &u->ops[u->nops++];
    op->dbid = dbid;
    op->argc = argc;
    op->argv = memAlloc(&l->mem, sizeof(sds) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(argv[j], buf, &len);
        op->argv[j] = sdsnewlen(&l->mem, p, len);
        u->bytes += len;
    }
}

/* Makes room for one more unit in the window (a ring). */
static void _grow(recoveryLedger *l) {
    if (l->count < l->cap) return;
    size_t cap = l->cap ? l->cap * 2 : 64;
    rlUnit *units = memAlloc(&l->mem, sizeof(rlUnit) * cap);
    for (size_t i = 0; i < l->count; i++)
        units[i] = l->units[(l->head + i) % l->cap];
    memFree(&l->mem, l->units);
    l->units = units;
    l->cap = cap;
    l->head = 0;
}

/* Remembers where a unit ends in the AOF stream: a ring of the latest
 * RL_MARKS, grown as needed up to that. */
static void _mark(recoveryLedger *l, uint64_t seq, long long aof_end) {
    if (l->nmarks == l->marks_cap && l->marks_cap < RL_MARKS) {
        size_t cap = l->marks_cap ? l->marks_cap * 2 : 256;
        l->marks = memRealloc(&l->mem, l->marks, sizeof(rlMark) * cap);
        l->marks_cap = cap;
    }
    rlMark m = { seq, aof_end };
    if (l->nmarks < l->marks_cap) {
        l->marks[l->nmarks++] = m;
        return;
    }
    l->marks[l->marks_head] = m;
    l->marks_head = (l->marks_head + 1) % l->marks_cap;
    l->marks_dropped = 1;
}

/* The execution unit ended (c ran it; NULL: the server expired a key):
 * it joins the window, waiting for its reply. */
void recoveryUnitEnd(redisServer *s, client *c) {
    recoveryLedger *l = s->recovery;
    rlUnit u = l->open;
    if (u.nops == 0) return;
    /* A switch of incr file since the last look happened before this
     * unit ran (only a command or the cron switches, never one inside
     * it): the unit is in the new file. */
    _trackFiles(l, s);
    memset(&l->open, 0, sizeof(l->open));
    l->open_cap = 0;
    u.seq = ++l->seq;
    u.client = c ? c->id : 0;
    u.fd = c ? c->fd : -1;
    u.cmd = c && c->cmd ? c->cmd->id : -1;
    u.reply_end = c ? c->reply_queued : 0;
    u.status = c ? RL_PENDING : RL_ACKED;
    u.acked_at = c ? 0 : serverNow(s);
    u.mstime = s->mstime;
    u.aof_end = s->aof.fed_bytes > l->open_fed ? s->aof.fed_bytes : -1;
    if (u.aof_end >= 0) _mark(l, u.seq, u.aof_end);
    _grow(l);
    l->units[(l->head + l->count) % l->cap] = u;
    l->count++;
    l->window_bytes += u.bytes;
    if (l->count > RL_WINDOW_UNITS || l->window_bytes > RL_WINDOW_BYTES)
        _drain(l, serverNow(s));
}

/* End of beforeSleep: the replies written so far acknowledge their
 * units, and the shadow catches up. */
void recoveryAdvance(redisServer *s) {
    recoveryLedger *l = s->recovery;
    uint64_t now = serverNow(s);
    _resolve(l, s, now, 0);
    _drain(l, now);
    _trackFiles(l, s);
}

/* A client is being freed: whatever it was sent is acknowledged, the
 * rest never will be. */
void recoveryClientGone(redisServer *s, client *c) {
    recoveryLedger *l = s->recovery;
    uint64_t now = serverNow(s);
    for (size_t i = 0; i < l->count; i++) {
        rlUnit *u = &l->units[(l->head + i) % l->cap];
        if (u->status != RL_PENDING || u->client != c->id) continue;
        _settle(l, u, c->reply_delivered >= u->reply_end, now);
    }
}

/* ---- The crash. ---- */

/* The process s dies at died_at: every reply is as written as it will
 * ever be, so the whole window is applied. The ledger, detached from s
 * by the caller, is then the acknowledged dataset (recoveryCompare). */
void recoveryFinish(recoveryLedger *l, redisServer *s, int kind,
                    uint64_t died_at, long long cutoff_ms) {
    _resolve(l, s, died_at, 1);
    _trackFiles(l, s);
    while (l->count) _applyHead(l);
    _unitClear(l, &l->open);
    l->finished = 1;
    l->crash_kind = kind;
    l->policy = (s->cfg.appendonly ? 256 : 0) | s->cfg.appendfsync;
    l->died_at = died_at;
    l->cutoff_ms = cutoff_ms;
}
