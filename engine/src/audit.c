/* audit.c -- the SCAN audit: evidence for SCAN's guarantee.
 *
 * SCAN promises that every key present from the start to the end of a full
 * iteration is returned at least once. To check it, the audit records the
 * keys present when it begins; then every deletion of a recorded key (DEL,
 * expiry, FLUSHDB...) marks that key as not present throughout, and every
 * key returned to the audited client's SCAN calls is marked returned. At
 * the end, a key present throughout and never returned would disprove the
 * guarantee. This is observation only: it does not change what the server
 * does, and it lives in the engine so that the numbers the page shows come
 * from the engine's own state. */
#include <string.h>
#include "server.h"

static const dictType auditDictType = {
    dictSdsHash, dictSdsKeyCompare, NULL, NULL, NULL
};

static void _auditFreeKeys(redisServer *s) {
    if (!s->audit.keys) return;
    dictIterator *di = dictGetIterator(s->audit.keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL)
        sdsfree(&s->audit.mem, dictGetKey(de));
    dictReleaseIterator(di);
    dictRelease(s->audit.keys);
    s->audit.keys = NULL;
}

/* The audit's memory and its dict's environment. An audit of a million
 * keys holds some 50 MB: counted in used_memory, it would make every
 * random access of the server dearer (cost.h) and show in INFO memory,
 * so its blocks are counted in the world's total only (the heap limit
 * still sees them), and its dict, whose hashes must be the keyspace's,
 * has the server's seed but charges the server nothing. */
static void _auditEnv(redisServer *s) {
    if (!s->audit.mem.fn) {
        if (s->mem->parent) memInitChild(&s->audit.mem, s->mem->parent);
        else memInit(&s->audit.mem, s->mem->fn, s->mem->ud);
    }
    s->audit.env = s->denv;
    s->audit.env.mem = &s->audit.mem;
    s->audit.env.trace = NULL;
    s->audit.env.cpu_ns = 0;
    s->audit.env.quiet = 1;
}

/* Starts an audit of db for the client on connection fd. */
static int _auditBegin(redisServer *s, int dbid, int fd) {
    if (dbid < 0 || dbid >= s->cfg.databases) return GK_EINVAL;
    if (fd < 0 || fd >= s->clients_cap || !s->clients[fd])
        return GK_ENOTFOUND;
    _auditFreeKeys(s);
    memset(&s->audit.counts, 0, sizeof(s->audit.counts));
    _auditEnv(s);
    s->audit.keys = dictCreate(&auditDictType, &s->audit.env);
    s->audit.dbid = dbid;
    s->audit.client_id = s->clients[fd]->id;
    dictIterator *di = dictGetIterator(s->db[dbid].dict);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds k = sdsdup(&s->audit.mem, dictGetKey(de));
        dictEntry *ae = dictAddRaw(s->audit.keys, k, NULL);
        ae->v.u64 = AUDIT_PRESENT_THROUGHOUT;
    }
    dictReleaseIterator(di);
    s->audit.counts.tracked = dictSize(s->audit.keys);
    s->audit.counts.throughout = s->audit.counts.tracked;
    s->audit.counts.missing = s->audit.counts.tracked;
    s->audit.counts.active = 1;
    s->audit.counts.db = dbid;
    s->audit.active = 1;
    return GK_OK;
}

/* Stops the audit and frees the recorded keys. The counters stay, with
 * active = 0, for a last auditGet, which then reads missing as 0. Safe when
 * no audit is running. */
static void _auditEnd(redisServer *s) {
    _auditFreeKeys(s);
    s->audit.active = 0;
    s->audit.counts.active = 0;
    s->audit.counts.missing = 0;
}

/* Called by every deletion from db while an audit is active: a recorded
 * key of the audited db stops counting as present throughout. key is
 * borrowed. */
static void _auditKeyDeleted(redisServer *s, redisDb *db, const sds key) {
    if (db->id != s->audit.dbid) return;
    dictEntry *de = dictFind(s->audit.keys, key);
    if (de && (de->v.u64 & AUDIT_PRESENT_THROUGHOUT)) {
        if (!(de->v.u64 & AUDIT_RETURNED)) s->audit.counts.missing--;
        de->v.u64 &= ~(uint64_t)AUDIT_PRESENT_THROUGHOUT;
        s->audit.counts.throughout--;
    }
}

/* A FLUSHDB of the audited db, or a FLUSHALL, deletes every recorded key
 * at once. */
static void _auditClear(redisServer *s) {
    dictIterator *di = dictGetIterator(s->audit.keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL)
        de->v.u64 &= ~(uint64_t)AUDIT_PRESENT_THROUGHOUT;
    dictReleaseIterator(di);
    s->audit.counts.throughout = 0;
    s->audit.counts.missing = 0;
}

/* Called for each key a SCAN of the audited client returns: marks it
 * returned, or counts a duplicate, or a foreign key (one not present when
 * the audit began). key is borrowed; I copy it only for the lookup. */
static void _auditKeyReturned(client *c, const char *key, size_t len) {
    redisServer *s = c->srv;
    sds k = sdsnewlen(&s->audit.mem, key, len);
    dictEntry *de = dictFind(s->audit.keys, k);
    sdsfree(&s->audit.mem, k);
    if (!de) { s->audit.counts.foreign++; return; }
    if (de->v.u64 & AUDIT_RETURNED) {
        s->audit.counts.duplicates++;
    } else {
        if (de->v.u64 & AUDIT_PRESENT_THROUGHOUT) s->audit.counts.missing--;
        de->v.u64 |= AUDIT_RETURNED;
        s->audit.counts.returned++;
    }
}

/* Fills out with the counters; missing = present throughout, not
 * returned. Each deletion and each return keeps missing up to date, so
 * this is O(1): the SCAN walker reads it after every call, and counting
 * the recorded keys each time made a walk of N keys cost O(N^2). */
void auditGet(redisServer *s, gkScanAudit *out) {
    *out = s->audit.counts;
}

/* Writes the missing keys, each as a 4-byte little-endian length then the
 * bytes, as many as fit in cap. */
static size_t _auditMissing(redisServer *s, char *out, size_t cap) {
    size_t w = 0;
    if (!s->audit.keys) return 0;
    dictIterator *di = dictGetIterator(s->audit.keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        if (de->v.u64 != AUDIT_PRESENT_THROUGHOUT) continue;
        sds k = dictGetKey(de);
        size_t len = sdslen(k);
        if (w + 4 + len > cap) break;
        for (int b = 0; b < 4; b++) out[w++] = (char)((len >> (8 * b)) & 0xff);
        memcpy(out + w, k, len);
        w += len;
    }
    dictReleaseIterator(di);
    return w;
}

/* Appends to out the first max missing keys, in the format auditMissing
 * writes, and returns the grown sds (allocated with m); *n gets how many
 * were appended. Nothing without an audit's records. */
static sds _auditMissingAppend(redisServer *s, gkMem *m, sds out,
                               size_t max, size_t *n) {
    *n = 0;
    if (!s->audit.keys) return out;
    dictIterator *di = dictGetIterator(s->audit.keys);
    dictEntry *de;
    while (*n < max && (de = dictNext(di)) != NULL) {
        if (de->v.u64 != AUDIT_PRESENT_THROUGHOUT) continue;
        sds k = dictGetKey(de);
        uint32_t len = (uint32_t)sdslen(k);
        unsigned char le[4];
        for (int b = 0; b < 4; b++) le[b] = (unsigned char)(len >> (8 * b));
        out = sdscatlen(m, out, le, 4);
        out = sdscatlen(m, out, k, len);
        (*n)++;
    }
    dictReleaseIterator(di);
    return out;
}

/* ---- The server's side: the audit is an observer, and what it does
 * costs the server nothing (cost.h). ---- */

int auditBegin(redisServer *s, int dbid, int fd) {
    s->denv.quiet++;
    int r = _auditBegin(s, dbid, fd);
    s->denv.quiet--;
    return r;
}

void auditEnd(redisServer *s) {
    s->denv.quiet++;
    _auditEnd(s);
    s->denv.quiet--;
}

void auditKeyDeleted(redisServer *s, redisDb *db, const sds key) {
    s->denv.quiet++;
    _auditKeyDeleted(s, db, key);
    s->denv.quiet--;
}

void auditClear(redisServer *s) {
    s->denv.quiet++;
    _auditClear(s);
    s->denv.quiet--;
}

void auditKeyReturned(client *c, const char *key, size_t len) {
    c->srv->denv.quiet++;
    _auditKeyReturned(c, key, len);
    c->srv->denv.quiet--;
}

size_t auditMissing(redisServer *s, char *out, size_t cap) {
    s->denv.quiet++;
    size_t r = _auditMissing(s, out, cap);
    s->denv.quiet--;
    return r;
}

sds auditMissingAppend(redisServer *s, gkMem *m, sds out, size_t max,
                       size_t *n) {
    s->denv.quiet++;
    sds r = _auditMissingAppend(s, m, out, max, n);
    s->denv.quiet--;
    return r;
}
