/* recovery_report.c -- the recovery report: the acknowledged dataset a
 * dead process's ledger holds (recovery.c), compared key by key with the
 * dataset its restart loaded, and the API that reads the result.
 *
 * For every key either side holds, the report says:
 *   kept   the restarted server holds the acknowledged value;
 *   newer  it holds a value the key took after it: writes that ran after
 *          the last acknowledged one reached the file, though no client
 *          was told (a crash between the AOF's write and the replies);
 *   lost   the acknowledged write left the key, the restart lacks it;
 *   older  the restart holds another value from before the acknowledged
 *          write (or holds a key the write deleted).
 * Values are compared exactly: type, every element, the expire time.
 * A key whose expire time is at or before the cutoff -- an hour after
 * the death, as gkServerDeathDigest takes it -- counts as absent on both
 * sides, so a key that merely expired during the restart is not lost.
 *
 * Telling newer from older needs to know which of the dead process's
 * writes the restart holds; values alone cannot say (a key set to 1, 2 and
 * 1 again). Its AOF files can. The restart read what its manifest names:
 * a base -- the one the process started from, which holds the dataset it
 * started with, or one a rewrite of the process made, which holds every
 * unit up to the rewrite -- and incr files, each some stretch of the
 * stream the process fed, of which the restart kept a prefix (a power
 * loss cuts what was not durable, the loader cuts a torn command). A
 * unit is in the restarted dataset if the base holds it or a file it
 * went to was read past its end. That is normally a prefix of the units;
 * not always: a rewrite hands the old incr file to a background thread
 * to fsync and close, and a power loss before that thread is done leaves
 * it short while the new file goes on.
 *
 * A key then is newer only if its last acknowledged write is in the
 * restart and writes no client was told about changed it after (the
 * ledger's overlay holds its value from before them). If the restart
 * holds neither the process's files nor its base (an AOF turned off, a
 * restart with appendonly no) none of its writes are there, and any
 * difference is a loss. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include "world.h"
#include "rdb.h"
#include "recovery.h"
#include "stream.h"

/* ---- Images: a key's value, comparable across servers. ---- */

typedef struct imgFill {
    gkMem *m;
    rlImage *img;
} imgFill;

static void _collect(void *ctx, const char *a, size_t alen, const char *b,
                     size_t blen, double score) {
    imgFill *f = ctx;
    rlElem *e = &f->img->el[f->img->n++];
    e->a = sdsnewlen(f->m, a, alen);
    e->b = b ? sdsnewlen(f->m, b, blen) : NULL;
    e->score = score;
}

static int _cmpSds(const sds a, const sds b) {
    size_t la = sdslen(a), lb = sdslen(b), n = la < lb ? la : lb;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (la > lb) - (la < lb);
}

static int _cmpElem(const void *x, const void *y) {
    return _cmpSds(((const rlElem *)x)->a, ((const rlElem *)y)->a);
}

/* A new image of key in db (from m), NULL if db has no such key or its
 * expire time is at or before cutoff_ms. Only looks: the caller pauses
 * rehashing if a lookup must not take a rehash step. */
rlImage *rlImageCreate(gkMem *m, redisDb *db, sds key, long long cutoff_ms) {
    dictEntry *de = dictFind(db->dict, key);
    if (!de || !dictGetVal(de)) return NULL;
    robj k = OBJ_VIEW(OBJ_STRING, OBJ_ENCODING_RAW, key);
    long long when = getExpire(db, &k);
    if (when != -1 && when <= cutoff_ms) return NULL;
    robj *o = dictGetVal(de);
    rlImage *img = memCalloc(m, sizeof(*img));
    img->type = o->type;
    img->expire = when;
    if (o->type == OBJ_STRING) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = objectStrBytes(o, buf, &len);
        img->str = sdsnewlen(m, p, len);
        return img;
    }
    size_t n = o->type == OBJ_LIST ? (size_t)listTypeLength(o)
               : o->type == OBJ_SET ? setTypeSize(o) : o->type == OBJ_HASH
               ? hashTypeLength(o) : o->type == OBJ_STREAM
               ? (size_t)((stream *)o->v.ptr)->length : zsetLength(o);
    img->el = memAlloc(m, sizeof(rlElem) * (n ? n : 1));
    imgFill f = { m, img };
    rdbForEachElement(o, _collect, &f);
    if (o->type != OBJ_LIST)        /* a list's order is its value */
        qsort(img->el, img->n, sizeof(rlElem), _cmpElem);
    return img;
}

/* Frees an image; NULL is fine. */
void rlImageRelease(gkMem *m, rlImage *img) {
    if (!img) return;
    for (size_t i = 0; i < img->n; i++) {
        sdsfree(m, img->el[i].a);
        if (img->el[i].b) sdsfree(m, img->el[i].b);
    }
    memFree(m, img->el);
    sdsfree(m, img->str);
    memFree(m, img);
}

/* Whether two images (NULL: absent) hold the same thing. */
static int _same(const rlImage *x, const rlImage *y) {
    if (!x || !y) return x == y;
    if (x->type != y->type || x->expire != y->expire) return 0;
    if (x->type == OBJ_STRING) return _cmpSds(x->str, y->str) == 0;
    if (x->n != y->n) return 0;
    for (size_t i = 0; i < x->n; i++) {
        const rlElem *a = &x->el[i], *b = &y->el[i];
        if (_cmpSds(a->a, b->a) || a->score != b->score) return 0;
        if ((a->b == NULL) != (b->b == NULL)) return 0;
        if (a->b && _cmpSds(a->b, b->b)) return 0;
    }
    return 1;
}

/* The size a row shows: a string's bytes, a collection's elements. */
static uint64_t _size(const rlImage *img) {
    if (!img) return 0;
    return img->type == OBJ_STRING ? sdslen(img->str) : img->n;
}

/* ---- Text for the rows. ---- */

typedef struct textBuf {
    char *p;
    size_t cap, len;
    int full;
} textBuf;

/* Appends bytes, control characters and backslashes escaped as
 * redis-cli escapes them; once the buffer would overflow, ends it with
 * "..." (never inside a UTF-8 sequence) and ignores the rest. */
static void _put(textBuf *t, const char *s, size_t n) {
    for (size_t i = 0; i < n && !t->full; i++) {
        unsigned char ch = (unsigned char)s[i];
        char esc[8];
        size_t k = 1;
        esc[0] = (char)ch;
        if (ch == '\\') { esc[1] = '\\'; k = 2; }
        else if (ch < 0x20 || ch == 0x7f)
            k = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", ch);
        if (t->len + k + 4 > t->cap) {
            while (t->len && ((unsigned char)t->p[t->len] & 0xc0) == 0x80)
                t->len--;
            memcpy(t->p + t->len, "...", 4);
            t->len += 3;
            t->full = 1;
            return;
        }
        memcpy(t->p + t->len, esc, k);
        t->len += k;
        t->p[t->len] = '\0';
    }
}

static void _puts(textBuf *t, const char *s) { _put(t, s, strlen(s)); }

/* A value as a row shows it: a string as it is, a list as [a, b] from
 * head to tail, a set as {a, b}, a hash as {f: v}, a sorted set as
 * {m: score}; "" for an absent key. */
static void _summary(const rlImage *img, char *out, size_t cap) {
    textBuf t = { out, cap, 0, 0 };
    out[0] = '\0';
    if (!img) return;
    if (img->type == OBJ_STRING) {
        _put(&t, img->str, sdslen(img->str));
        return;
    }
    int list = img->type == OBJ_LIST;
    _puts(&t, list ? "[" : "{");
    for (size_t i = 0; i < img->n && !t.full; i++) {
        const rlElem *e = &img->el[i];
        if (i) _puts(&t, ", ");
        _put(&t, e->a, sdslen(e->a));
        if (e->b) {
            _puts(&t, ": ");
            _put(&t, e->b, sdslen(e->b));
        } else if (img->type == OBJ_ZSET) {
            char num[MAX_D2STRING_CHARS];
            d2string(num, sizeof(num), e->score);
            _puts(&t, ": ");
            _puts(&t, num);
        }
    }
    _puts(&t, list ? "]" : "}");
}

/* ---- Choosing the rows. ----
 *
 * A report may compare millions of keys; it keeps the GK_RECOVERY_ROWS_MAX
 * that tell most: lost and older first, then newer, then kept, each the
 * latest acknowledged first. A heap holds the rows chosen so far with the
 * least telling on top, so each key costs O(log N), and a key's values
 * are summarized only if it makes it in. */

static int _rank(int outcome) {
    switch (outcome) {
    case GK_RECOVERY_LOST: return 0;
    case GK_RECOVERY_OLDER: return 1;
    case GK_RECOVERY_NEWER: return 2;
    default: return 3;
    }
}

/* <0 if row a tells more than row b. */
static int _cmpRow(const gkRecoveryRow *a, const gkRecoveryRow *b) {
    int ra = _rank(a->outcome), rb = _rank(b->outcome);
    if (ra != rb) return ra - rb;
    if (a->acked_at != b->acked_at) return a->acked_at > b->acked_at ? -1 : 1;
    if (a->db != b->db) return a->db - b->db;
    int c = strcmp(a->key, b->key);
    if (c) return c;
    return (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

static int _cmpRowQ(const void *a, const void *b) { return _cmpRow(a, b); }

static void _swap(gkRecoveryRow *a, gkRecoveryRow *b) {
    gkRecoveryRow t = *a;
    *a = *b;
    *b = t;
}

/* Restores the heap (least telling on top) below index i. */
static void _siftDown(gkRecoveryRow *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, top = i;
        if (l < n && _cmpRow(&h[l], &h[top]) > 0) top = l;
        if (r < n && _cmpRow(&h[r], &h[top]) > 0) top = r;
        if (top == i) return;
        _swap(&h[i], &h[top]);
        i = top;
    }
}

static void _siftUp(gkRecoveryRow *h, size_t i) {
    while (i && _cmpRow(&h[(i - 1) / 2], &h[i]) < 0) {
        _swap(&h[(i - 1) / 2], &h[i]);
        i = (i - 1) / 2;
    }
}

/* ---- The comparison. ---- */

typedef struct cmpState {
    recoveryLedger *l;
    redisServer *r;
    recoveryReport *rep;
    gkMem scratch;              /* the images of the key at hand */
    const char **names;         /* command names by id */
    /* What the restart read of the dead process's stream. */
    long long base_seq;         /* units its base holds, -1 none */
    int start_kept;             /* it holds the dataset the process
                                   started with */
    int nread;
    struct { long long from, to; } read[RL_FILES];  /* stream offsets */
} cmpState;

/* Whether the unit seq, ending at aof_end in the stream (-1: the AOF did
 * not get it), is in the restarted dataset; seq 0 stands for the dataset
 * the process started with. */
static int _holds(const cmpState *x, uint64_t seq, long long aof_end) {
    if (x->base_seq >= 0 && (long long)seq <= x->base_seq) return 1;
    if (seq == 0) return x->start_kept;
    for (int i = 0; aof_end >= 0 && i < x->nread; i++)
        if (aof_end > x->read[i].from && aof_end <= x->read[i].to) return 1;
    return 0;
}

/* The ledger's record of the file name in r's AOF directory, or NULL. */
static rlFile *_fileOf(recoveryLedger *l, redisServer *r, const char *name) {
    char path[300];
    snprintf(path, sizeof(path), "%s/%s", r->cfg.appenddirname, name);
    for (int i = 0; i < l->nfiles; i++)
        if (!strcmp(l->files[i].path, path)) return &l->files[i];
    return NULL;
}

/* Finds what the restart r read of the process's files: its manifest's
 * base, and how much of each incr file (their sizes now, after the
 * loader cut what it could not use). */
static void _whatWasRead(cmpState *x, redisServer *r,
                         recoveryFileSize *size, void *ctx) {
    recoveryLedger *l = x->l;
    aofManifest *am = r->aof.manifest;
    x->base_seq = -1;
    x->start_kept = 0;
    if (r->aof.state != AOF_ON || !am) return;
    int start_base = 0, start_incrs = 0, incrs_whole = 1;
    if (am->base) {
        rlFile *f = _fileOf(l, r, am->base->file_name);
        if (f && f->kind == RL_FILE_BASE && !f->startup)
            x->base_seq = (long long)f->seq;
        start_base = f && f->startup;
    }
    for (int j = 0; j < am->nincr; j++) {
        rlFile *f = _fileOf(l, r, am->incr[j].file_name);
        if (!f || f->kind != RL_FILE_INCR) continue;
        long long got = size(ctx, f->path);
        if (got < 0) got = 0;
        if (f->startup) {
            start_incrs++;
            if (got < f->size0) incrs_whole = 0;
        }
        x->read[x->nread].from = f->fed_start;
        x->read[x->nread].to = f->fed_start + got;
        x->nread++;
    }
    int startups = 0;
    for (int i = 0; i < l->nfiles; i++)
        startups += l->files[i].startup && l->files[i].kind == RL_FILE_INCR;
    x->start_kept = x->base_seq >= 0 ||
                    (startups > 0 && start_incrs == startups && incrs_whole &&
                     (start_base || !am->base));
}

/* The key's text for a row: its first bytes, escaped. */
static void _keyText(gkRecoveryRow *row, sds key) {
    textBuf t = { row->key, sizeof(row->key), 0, 0 };
    row->key[0] = '\0';
    _put(&t, key, sdslen(key));
    row->key_len = (uint32_t)sdslen(key);
}

/* Offers a key's row to the heap of rows kept. */
static void _offer(cmpState *x, gkRecoveryRow *row, const rlImage *a,
                   const rlImage *b, int cmd) {
    recoveryReport *rep = x->rep;
    size_t n = (size_t)rep->info.rows;
    if (n == GK_RECOVERY_ROWS_MAX && _cmpRow(row, &rep->rows[0]) >= 0)
        return;
    _summary(a, row->acked, sizeof(row->acked));
    _summary(b, row->found, sizeof(row->found));
    const char *name = cmd >= 0 && cmd < x->l->shadow->ncommands
                       ? x->names[cmd] : NULL;
    for (size_t i = 0; name && name[i] && i + 1 < sizeof(row->command); i++)
        row->command[i] = (char)(name[i] >= 'a' && name[i] <= 'z'
                                 ? name[i] - 'a' + 'A' : name[i]);
    if (n < GK_RECOVERY_ROWS_MAX) {
        rep->rows[n] = *row;
        _siftUp(rep->rows, n);
        rep->info.rows++;
    } else {
        rep->rows[0] = *row;
        _siftDown(rep->rows, n, 0);
    }
}

/* One key: a is its acknowledged image, b the restart's (NULL: absent,
 * after the cutoff). Counts it and offers its row. A key absent on both
 * sides is one only if a write to it was acknowledged (a DEL, a RENAME
 * away, a TTL that ran out): that write was kept. */
static void _compareKey(cmpState *x, int dbid, sds key, const rlImage *a,
                        const rlImage *b) {
    gkRecoveryInfo *in = &x->rep->info;
    if (!a && !b && !dictFind(x->l->meta[dbid], key)) return;
    rlMeta m = recoveryLastWrite(x->l, dbid, key);
    gkRecoveryRow row;
    memset(&row, 0, sizeof(row));
    if (_same(a, b)) row.outcome = GK_RECOVERY_KEPT;
    else if (_holds(x, m.seq, m.aof_end) && dictFind(x->l->overlay[dbid], key))
        row.outcome = GK_RECOVERY_NEWER;
    else row.outcome = b ? GK_RECOVERY_OLDER : GK_RECOVERY_LOST;
    in->keys++;
    in->acked_keys += a != NULL;
    in->dbsize += b != NULL;
    in->followed += m.count;
    if (row.outcome == GK_RECOVERY_KEPT) {
        in->kept++;
        in->carried += m.count == 0;
    } else if (row.outcome == GK_RECOVERY_NEWER) {
        in->newer++;
    } else if (row.outcome == GK_RECOVERY_LOST) {
        in->lost++;
    } else {
        in->older++;
    }
    row.db = dbid;
    row.writes = m.count;
    row.acked_at = m.at;
    row.acked_present = a != NULL;
    row.found_present = b != NULL;
    row.acked_expire = a ? a->expire : -1;
    row.found_expire = b ? b->expire : -1;
    row.acked_size = _size(a);
    row.found_size = _size(b);
    _keyText(&row, key);
    _offer(x, &row, a, b, m.cmd);
}

/* Compares db dbid: the shadow's keys the overlay does not override, the
 * overlay's, the restart's keys neither has, then the keys with an
 * acknowledged write that no side holds. */
static void _compareDb(cmpState *x, int dbid) {
    recoveryLedger *l = x->l;
    redisDb *ad = &l->shadow->db[dbid], *rd = &x->r->db[dbid];
    dict *ov = l->overlay[dbid];
    long long cut = l->cutoff_ms;
    dictIterator *di = dictGetSafeIterator(ad->dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        if (dictFind(ov, key)) continue;
        rlImage *a = rlImageCreate(&x->scratch, ad, key, cut);
        rlImage *b = rlImageCreate(&x->scratch, rd, key, cut);
        _compareKey(x, dbid, key, a, b);
        rlImageRelease(&x->scratch, a);
        rlImageRelease(&x->scratch, b);
    }
    dictReleaseIterator(di);
    di = dictGetSafeIterator(ov);
    while ((de = dictNext(di)) != NULL) {
        rlImage *a = dictGetVal(de);
        if (a && a->expire != -1 && a->expire <= cut) a = NULL;
        rlImage *b = rlImageCreate(&x->scratch, rd, dictGetKey(de), cut);
        _compareKey(x, dbid, dictGetKey(de), a, b);
        rlImageRelease(&x->scratch, b);
    }
    dictReleaseIterator(di);
    di = dictGetIterator(rd->dict);
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        if (dictFind(ad->dict, key) || dictFind(ov, key)) continue;
        rlImage *b = rlImageCreate(&x->scratch, rd, key, cut);
        _compareKey(x, dbid, key, NULL, b);
        rlImageRelease(&x->scratch, b);
    }
    dictReleaseIterator(di);
    di = dictGetIterator(l->meta[dbid]);
    while ((de = dictNext(di)) != NULL) {
        sds key = dictGetKey(de);
        if (dictFind(ad->dict, key) || dictFind(ov, key) ||
            dictFind(rd->dict, key)) continue;
        _compareKey(x, dbid, key, NULL, NULL);
    }
    dictReleaseIterator(di);
}

/* The command table's names (subcommands as "config|set") by id. */
static const char **_commandNames(gkMem *m, redisServer *s) {
    const char **names = memCalloc(m, sizeof(char *) * (size_t)s->ncommands);
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        if (c->id >= 0 && c->id < s->ncommands) names[c->id] = c->declared_name;
        for (const redisCommand *sub = c->subcommands;
             sub && sub->declared_name; sub++)
            if (sub->id >= 0 && sub->id < s->ncommands)
                names[sub->id] = sub->fullname;
    }
    return names;
}

/* How many of the dead process's units, from the first on, the restart
 * holds; *beyond gets how many more it holds after the first it lacks
 * (a hole, see above). From the base and the marks: a unit without a
 * mark never reached the AOF, so only a base can hold it. -1 if the marks
 * no longer reach back far enough to tell. */
static int64_t _unitsHeld(const cmpState *x, int64_t *beyond) {
    const recoveryLedger *l = x->l;
    uint64_t prefix = x->base_seq > 0 ? (uint64_t)x->base_seq : 0;
    int open = x->start_kept;
    *beyond = 0;
    if (!open) prefix = 0;
    for (size_t i = 0; i < l->nmarks; i++) {
        const rlMark *m = &l->marks[(l->marks_head + i) % l->marks_cap];
        if (m->seq <= prefix) continue;
        if (i == 0 && l->marks_dropped && open && m->seq > prefix + 1)
            return -1;
        int held = _holds(x, m->seq, m->aof_end);
        if (open && (m->seq != prefix + 1 || !held)) open = 0;
        if (open) prefix = m->seq;
        else if (held) (*beyond)++;
    }
    return (int64_t)prefix;
}

/* Compares the dead process's acknowledged dataset (l, finished) with
 * the dataset of r, its restart, which it leaves as it found it:
 * rehashing is paused and the memory peak put back. now is the restart's
 * time. NULL if the host refused the memory. */
recoveryReport *recoveryCompare(recoveryLedger *l, redisServer *r,
                                recoveryFileSize *size, void *ctx,
                                uint64_t now) {
    gkAllocFn fn = l->mem.fn;
    recoveryReport *rep = fn(l->mem.ud, NULL, 0, sizeof(*rep));
    if (!rep) return NULL;
    memset(rep, 0, sizeof(*rep));
    memInit(&rep->mem, fn, l->mem.ud);
    gkRecoveryInfo *in = &rep->info;
    in->ready = 1;
    in->stopped = l->broken;
    in->crash_kind = l->crash_kind;
    in->policy = l->policy;
    in->died_at = l->died_at;
    in->restarted_at = now;
    in->cutoff_ms = l->cutoff_ms;
    in->writes = l->writes;
    in->unacked = l->unacked;
    in->assumed = l->assumed;
    in->units = l->seq;
    cmpState x;
    memset(&x, 0, sizeof(x));
    x.l = l;
    x.r = r;
    x.rep = rep;
    memInit(&x.scratch, fn, l->mem.ud);
    _whatWasRead(&x, r, size, ctx);
    int64_t beyond;
    in->units_restored = _unitsHeld(&x, &beyond);
    in->units_beyond = beyond;
    if (l->broken) return rep;
    rep->rows = memAlloc(&rep->mem, sizeof(gkRecoveryRow) *
                                    GK_RECOVERY_ROWS_MAX);
    x.names = _commandNames(&x.scratch, l->shadow);
    size_t peak = r->mem->peak;
    for (int j = 0; j < l->dbnum && j < r->cfg.databases; j++) {
        r->db[j].dict->pauserehash++;
        r->db[j].expires->pauserehash++;
        _compareDb(&x, j);
        r->db[j].dict->pauserehash--;
        r->db[j].expires->pauserehash--;
    }
    r->mem->peak = peak;
    memFree(&x.scratch, x.names);
    qsort(rep->rows, (size_t)in->rows, sizeof(gkRecoveryRow), _cmpRowQ);
    return rep;
}

/* Frees a report; NULL is fine. */
void recoveryReportRelease(recoveryReport *rep) {
    if (!rep) return;
    memFree(&rep->mem, rep->rows);
    rep->mem.fn(rep->mem.ud, rep, sizeof(*rep), 0);
}

/* ---- The API. ---- */

/* The node if it is a Redis-style one, else NULL. */
static gkNode *_node(gkWorld *w, int node) {
    return worldIsRedisNode(w, node) ? &w->nodes[node] : NULL;
}

/* Whether node keeps a ledger of its acknowledged writes, from now on
 * and in every process it starts after (on = 1), or stops (on = 0). A
 * ledger that starts now takes the dataset as it is as acknowledged.
 * GK_ENOTFOUND if node is not a Redis-style node, GK_ENOMEM if the host
 * refused the memory. */
int gkServerRecoveryFollow(gkWorld *w, int node, int on) {
    gkNode *n = _node(w, node);
    if (!n) return worldFail(w, GK_ENOTFOUND, "no such server node");
    n->recovery_on = on != 0;
    redisServer *s = n->down ? NULL : n->impl;
    if (!s) return GK_OK;
    if (!on) {
        recoveryRelease(s->recovery);
        s->recovery = NULL;
    } else if (!s->recovery) {
        s->recovery = recoveryCreate(s, machineFileSize, n);
        if (!s->recovery) {
            n->recovery_on = 0;
            return worldFail(w, GK_ENOMEM, "out of memory");
        }
    }
    return GK_OK;
}

/* Fills out with node's last recovery report (ready 0 if there is none:
 * no crash was followed by a restart yet) and whether its ledger follows
 * the running process. GK_ENOTFOUND if node is not a Redis-style node. */
int gkServerRecoveryInfo(gkWorld *w, int node, gkRecoveryInfo *out) {
    gkNode *n = _node(w, node);
    if (!n) return worldFail(w, GK_ENOTFOUND, "no such server node");
    memset(out, 0, sizeof(*out));
    if (n->recovery_report) *out = n->recovery_report->info;
    redisServer *s = n->down ? NULL : n->impl;
    recoveryLedger *l = s ? s->recovery : NULL;
    out->following = l && !l->broken;
    out->ledger_bytes = recoveryMemory(l) + recoveryMemory(n->recovery_dead);
    if (n->down) l = n->recovery_dead;
    if (!l || l->broken) return GK_OK;
    out->acked_now = l->writes;
    for (int j = 0; j < l->dbnum; j++)
        out->keys_now += dictSize(l->shadow->db[j].dict);
    return GK_OK;
}

/* Copies rows first .. first+max-1 of node's last report, most telling
 * first (see gkRecoveryRow); *n gets how many were copied. GK_ENOTFOUND
 * if node is not a Redis-style node. */
int gkServerRecoveryRows(gkWorld *w, int node, uint32_t first,
                         gkRecoveryRow *rows, uint32_t max, uint32_t *n) {
    gkNode *nd = _node(w, node);
    *n = 0;
    if (!nd) return worldFail(w, GK_ENOTFOUND, "no such server node");
    recoveryReport *rep = nd->recovery_report;
    if (!rep || first >= rep->info.rows) return GK_OK;
    uint64_t left = rep->info.rows - first;
    uint32_t k = left < max ? (uint32_t)left : max;
    memcpy(rows, rep->rows + first, sizeof(gkRecoveryRow) * k);
    *n = k;
    return GK_OK;
}
