/* inspect.c -- the key inspector's reading of one key: how the engine
 * stores its value, as a list of parts (a string, a listpack and its
 * entries, a quicklist and its nodes, an intset, a hashtable and its
 * buckets, a skiplist with its nodes and their levels), each naming the
 * part it belongs to, and the encoded bytes of the blobs (listpacks,
 * intsets, strings, plain nodes) copied out for the page to draw.
 * Nothing here changes the server: the key is found without touching its
 * LRU clock or expiring it, as MEMORY USAGE and OBJECT do. */
#include <string.h>
#include "world.h"
#include "intset.h"
#include "listpack.h"
#include "quicklist.h"
#include "stream.h"

typedef struct {
    gkKeyInfo *info;
    gkKeyPart *parts;
    uint32_t max_parts;
    uint8_t *bytes;
    uint32_t max_bytes;
} inspectOut;

/* The index of a part left out for want of room (and of its parts). */
#define DROPPED -2

/* Adds a part (counted even when there is no room for it); returns its
 * index, or DROPPED if it was left out, as it is when its parent was. */
static int _part(inspectOut *o, int kind, int parent, gkKeyPart **out) {
    uint32_t i = o->info->total_parts++;
    *out = NULL;
    if (i >= o->max_parts || parent == DROPPED) return DROPPED;
    gkKeyPart *p = &o->parts[i];
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->parent = parent;
    p->offset = GK_PART_NOT_COPIED;
    o->info->nparts = i + 1;
    *out = p;
    return (int)i;
}

/* Copies n bytes into the byte area if they fit; the part records where. */
static void _copy(inspectOut *o, gkKeyPart *p, const void *src, size_t n) {
    o->info->total_bytes += (uint32_t)n;
    if (!p) return;
    p->size = (uint32_t)n;
    if ((uint64_t)o->info->nbytes + n > o->max_bytes) return;
    memcpy(o->bytes + o->info->nbytes, src, n);
    p->offset = o->info->nbytes;
    o->info->nbytes += (uint32_t)n;
}

/* The encoding of the listpack entry at e: its GK_LP_* kind, the bytes of
 * its encoding (type bits and length; the value too for the 7 and 13 bit
 * integers), the bytes of data after them, and the integer or string
 * length it holds. Read from the first byte, per the listpack format. */
static void _lpEntryShape(const unsigned char *e, int *kind, int *enc,
                          int *data, int64_t *value) {
    unsigned b = e[0];
    int64_t v = 0;
    lpGetInteger((unsigned char *)e, &v);
    if ((b & 0x80) == 0) {
        *kind = GK_LP_UINT7; *enc = 1; *data = 0;
    } else if ((b & 0xC0) == 0x80) {
        *kind = GK_LP_STR6; *enc = 1; *data = (int)(b & 0x3F); v = *data;
    } else if ((b & 0xE0) == 0xC0) {
        *kind = GK_LP_INT13; *enc = 2; *data = 0;
    } else if ((b & 0xF0) == 0xE0) {
        *kind = GK_LP_STR12; *enc = 2;
        *data = (int)(((b & 0x0F) << 8) | e[1]); v = *data;
    } else if (b == 0xF0) {
        *kind = GK_LP_STR32; *enc = 5;
        *data = (int)((uint32_t)e[1] | (uint32_t)e[2] << 8 |
                      (uint32_t)e[3] << 16 | (uint32_t)e[4] << 24);
        v = *data;
    } else {
        static const int widths[] = { 2, 3, 4, 8 };
        static const int kinds[] = { GK_LP_INT16, GK_LP_INT24,
                                     GK_LP_INT32, GK_LP_INT64 };
        int i = (int)(b - 0xF1);
        if (i < 0 || i > 3) i = 3;
        *kind = kinds[i]; *enc = 1; *data = widths[i];
    }
    *value = v;
}

/* A listpack and each of its entries. */
static void _listpack(inspectOut *o, int parent, unsigned char *lp) {
    gkKeyPart *p;
    int at = _part(o, GK_PART_LISTPACK, parent, &p);
    size_t total = lpBytes(lp);
    if (p) {
        p->value = (int64_t)lpLength(lp);
        p->a = (int32_t)((unsigned)lp[4] | (unsigned)lp[5] << 8);
        _copy(o, p, lp, total);
    } else {
        o->info->total_bytes += (uint32_t)total;
    }
    for (unsigned char *e = lpFirst(lp); e; e = lpNext(lp, e)) {
        gkKeyPart *q;
        _part(o, GK_PART_LP_ENTRY, at, &q);
        if (!q) continue;
        unsigned char *next = lpNext(lp, e);
        q->size = (uint32_t)((next ? next : lp + total - 1) - e);
        if (p && p->offset != GK_PART_NOT_COPIED)
            q->offset = p->offset + (uint32_t)(e - lp);
        int kind, enc, data;
        _lpEntryShape(e, &kind, &enc, &data, &q->value);
        q->a = kind;
        q->b = enc;
        q->c = data;
    }
}

/* A hash's or zset's listpack: field and value (member and score) in
 * turn, so it holds half as many elements as entries. */
static void _pairs(inspectOut *o, unsigned char *lp) {
    o->info->length = lpLength(lp) / 2;
    _listpack(o, -1, lp);
}

static void _string(inspectOut *o, robj *v) {
    gkKeyPart *p;
    _part(o, GK_PART_STRING, -1, &p);
    if (!p) return;
    p->a = (int32_t)v->encoding;
    if (v->encoding == OBJ_ENCODING_INT) {
        p->value = v->v.ll;
        p->b = (int32_t)memBlockSize(v);
        return;
    }
    sds s = v->v.ptr;
    p->value = (int64_t)sdslen(s);
    p->b = (int32_t)memBlockSize(v);
    if (v->encoding == OBJ_ENCODING_RAW)
        p->c = (int32_t)memBlockSize(sdsAllocPtr(s));
    _copy(o, p, s, sdslen(s));
}

static void _quicklist(inspectOut *o, quicklist *ql) {
    gkKeyPart *p;
    int at = _part(o, GK_PART_QUICKLIST, -1, &p);
    if (p) {
        p->value = (int64_t)ql->count;
        p->a = (int32_t)ql->len;
        p->b = ql->fill;
        p->c = (int32_t)ql->compress;
    }
    for (quicklistNode *n = ql->head; n; n = n->next) {
        gkKeyPart *q;
        int node = _part(o, GK_PART_QL_NODE, at, &q);
        if (q) {
            q->value = n->count;
            q->a = (int32_t)n->encoding;
            q->b = (int32_t)n->container;
            q->c = (int32_t)n->sz;
            q->size = n->encoding == QUICKLIST_NODE_ENCODING_LZF
                ? (uint32_t)((quicklistLZF *)n->entry)->sz : (uint32_t)n->sz;
        }
        if (n->encoding == QUICKLIST_NODE_ENCODING_LZF) continue;
        if (n->container == QUICKLIST_NODE_CONTAINER_PLAIN)
            _copy(o, q, n->entry, n->sz);
        else
            _listpack(o, node, n->entry);
    }
}

static void _intset(inspectOut *o, intset *is) {
    gkKeyPart *p;
    _part(o, GK_PART_INTSET, -1, &p);
    if (!p) return;
    p->a = (int32_t)is->encoding;
    p->value = is->length;
    _copy(o, p, is, sizeof(intset) + (size_t)is->encoding * is->length);
}

/* A hashtable and, with buckets, each bucket that holds entries: its
 * table, index and chain length. */
static void _dict(inspectOut *o, dict *d, int buckets) {
    gkKeyPart *p;
    int at = _part(o, GK_PART_DICT, -1, &p);
    if (p) {
        p->value = (int64_t)dictSize(d);
        p->a = d->ht_size_exp[0];
        p->b = d->ht_size_exp[1];
        p->extra = d->rehashidx;
    }
    if (!buckets) return;
    for (int t = 0; t < 2; t++) {
        uint64_t size = DICTHT_SIZE(d->ht_size_exp[t]);
        for (uint64_t i = 0; i < size; i++) {
            dictEntry *e = d->ht_table[t][i];
            if (!e) continue;
            int chain = 0;
            for (; e; e = e->next) chain++;
            gkKeyPart *q;
            _part(o, GK_PART_BUCKET, at, &q);
            if (!q) continue;
            q->a = t;
            q->b = chain;
            q->value = (int64_t)i;
        }
    }
}

/* A skiplist: each node in order with its score, member and height, and
 * each of its levels with the span to the next node there. */
static void _skiplist(inspectOut *o, zskiplist *zsl) {
    gkKeyPart *p;
    int at = _part(o, GK_PART_SKIPLIST, -1, &p);
    if (p) {
        p->value = (int64_t)zsl->length;
        p->a = zsl->level;
    }
    long rank = 0;
    for (zskiplistNode *n = zsl->header->level[0].forward; n;
         n = n->level[0].forward) {
        rank++;
        gkKeyPart *q;
        int node = _part(o, GK_PART_SL_NODE, at, &q);
        if (!q) o->info->total_bytes += (uint32_t)sdslen(n->ele);
        /* A node's height is the number of levels it was allocated. */
        int height = (int)((memSize(n) - sizeof(zskiplistNode)) /
                           sizeof(struct zskiplistLevel));
        if (q) {
            q->a = height;
            q->score = n->score;
            q->value = rank;
            _copy(o, q, n->ele, sdslen(n->ele));
        }
        for (int l = 0; l < height; l++) {
            gkKeyPart *lv;
            _part(o, GK_PART_SL_LEVEL, node, &lv);
            if (!lv) continue;
            lv->a = l;
            lv->value = (int64_t)n->level[l].span;
            lv->extra = n->level[l].forward
                ? rank + (int64_t)n->level[l].span : 0;
        }
    }
}

static int _keyInspect(gkWorld *w, redisServer *s, int db, const char *key,
                       size_t keylen, gkKeyInfo *info, gkKeyPart *parts,
                       uint32_t max_parts, uint8_t *bytes,
                       uint32_t max_bytes) {
    if (db < 0 || db >= s->cfg.databases)
        return worldFail(w, GK_ENOTFOUND, "no such database");
    redisDb *d = &s->db[db];
    /* The name is held outside the server's memory account. */
    gkMem scratch;
    worldScratchMem(w, &scratch);
    sds k = sdsnewlen(&scratch, key, keylen);
    if (!k) return worldFail(w, GK_ENOMEM, "out of memory");
    dictEntry *de = dictPeek(d->dict, k);
    dictEntry *ex = de ? dictPeek(d->expires, k) : NULL;
    sdsfree(&scratch, k);
    if (!de) return worldFail(w, GK_ENOTFOUND, "no such key");
    robj *v = dictGetVal(de);
    memset(info, 0, sizeof(*info));
    info->type = v->type;
    info->encoding = v->encoding;
    strncpy(info->encoding_name, strEncoding(v->encoding),
            sizeof(info->encoding_name) - 1);
    info->memory_usage = memoryUsageOf(de, SIZE_MAX);
    info->expire_ms = ex ? ex->v.s64 : -1;
    inspectOut o = { info, parts, max_parts, bytes, max_bytes };
    switch (v->type) {
    case OBJ_STRING:
        info->length = v->encoding == OBJ_ENCODING_INT
            ? 0 : sdslen(v->v.ptr);
        _string(&o, v);
        break;
    case OBJ_LIST:
        info->length = ((quicklist *)v->v.ptr)->count;
        info->limit_entries = s->cfg.list_max_listpack_size;
        info->limit_value = s->cfg.list_compress_depth;
        _quicklist(&o, v->v.ptr);
        break;
    case OBJ_SET:
        info->limit_entries = s->cfg.set_max_intset_entries;
        if (v->encoding == OBJ_ENCODING_INTSET) {
            info->length = ((intset *)v->v.ptr)->length;
            _intset(&o, v->v.ptr);
        } else {
            info->length = dictSize((dict *)v->v.ptr);
            _dict(&o, v->v.ptr, 1);
        }
        break;
    case OBJ_HASH:
        info->limit_entries = s->cfg.hash_max_listpack_entries;
        info->limit_value = s->cfg.hash_max_listpack_value;
        if (v->encoding == OBJ_ENCODING_LISTPACK) {
            _pairs(&o, v->v.ptr);
        } else {
            info->length = dictSize((dict *)v->v.ptr);
            _dict(&o, v->v.ptr, 1);
        }
        break;
    case OBJ_ZSET:
        info->limit_entries = s->cfg.zset_max_listpack_entries;
        info->limit_value = s->cfg.zset_max_listpack_value;
        if (v->encoding == OBJ_ENCODING_LISTPACK) {
            _pairs(&o, v->v.ptr);
        } else {
            zset *zs = v->v.ptr;
            info->length = zs->zsl->length;
            _dict(&o, zs->dict, 0);
            _skiplist(&o, zs->zsl);
        }
        break;
    case OBJ_STREAM:
        /* Streams are described by their type and length for now. */
        info->length = ((stream *)v->v.ptr)->length;
        break;
    default:
        break;
    }
    return GK_OK;
}

int gkKeyInspect(gkWorld *w, int node, int db, const char *key,
                 size_t keylen, gkKeyInfo *info, gkKeyPart *parts,
                 uint32_t max_parts, uint8_t *bytes, uint32_t max_bytes) {
    redisServer *s = worldServer(w, node);
    if (!s) return worldFail(w, GK_ENOTFOUND, "no such server node");
    s->denv.quiet++;            /* looking costs the server nothing */
    int st = _keyInspect(w, s, db, key, keylen, info, parts, max_parts,
                         bytes, max_bytes);
    s->denv.quiet--;
    return st;
}
