/* Tests of SCAN walks (gkScanWalk*): a walk over a table that grows,
 * rehashes and shrinks between its calls returns every key present
 * throughout; the buckets it records are the ones the trace shows; keys
 * returned again are counted as duplicates; keys are kept byte for byte;
 * what is kept stays within its limits; a walk survives its connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gktest.h"
#include "gkworld.h"

typedef struct session { gkWorld *w; int srv, conn; char out[65536]; } session;

static void open_(session *s, uint64_t seed) {
    gkConfig cfg = gktConfig(seed);
    gktServerOpen(&cfg, &s->w, &s->srv, &s->conn);
}

static const char *cmd(session *s, const char *line) {
    return gktExchange(s->w, s->conn, line, strlen(line), s->out,
                       sizeof(s->out));
}

static gkScanWalkInfo info(session *s) {
    gkScanWalkInfo i;
    gkScanWalkGetInfo(s->w, s->srv, &i);
    return i;
}

/* The last call kept. */
static gkScanWalkCall lastCall(session *s) {
    gkScanWalkCall calls[GK_SCAN_WALK_RECENT];
    uint32_t n = 0;
    gkScanWalkCalls(s->w, s->srv, calls, GK_SCAN_WALK_RECENT, &n);
    return calls[n ? n - 1 : 0];
}

/* The keys (or duplicates) kept of call n, each NUL-terminated, one after
 * the other in out; returns how many. */
static int callKeys(session *s, uint64_t n, int dups, char *out,
                    size_t cap) {
    char raw[65536];
    size_t len = 0, at = 0, w = 0;
    int count = 0;
    gkScanWalkKeys(s->w, s->srv, n, dups, raw, sizeof(raw), &len);
    while (at + 4 <= len) {
        uint32_t k = (uint32_t)(unsigned char)raw[at] |
                     (uint32_t)(unsigned char)raw[at + 1] << 8 |
                     (uint32_t)(unsigned char)raw[at + 2] << 16 |
                     (uint32_t)(unsigned char)raw[at + 3] << 24;
        if (w + k + 1 > cap) break;
        memcpy(out + w, raw + at + 4, k);
        out[w + k] = '\0';
        w += k + 1;
        at += 4 + k;
        count++;
    }
    return count;
}

static void testGrowingTable(void) {
    session s;
    open_(&s, 3);
    cmd(&s, "DEBUG POPULATE 2000\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 20, "*", 1), GK_OK);
    int rehashing = 0, grown = 0;
    for (int call = 0; !info(&s).done && call < 10000; call++) {
        CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
        gkScanWalkCall c = lastCall(&s);
        if (c.rehashidx >= 0 && c.size[1] > 0) rehashing++;
        if (c.size[0] > 2048 || c.size[1] > 2048) grown = 1;
        if (call % 3 == 0 && call < 60) {
            char line[64];
            snprintf(line, sizeof(line), "DEBUG POPULATE 1500 p%d\r\n", call);
            cmd(&s, line);
        }
    }
    gkScanWalkInfo i = info(&s);
    gkScanAudit a;
    gkScanWalkAudit(s.w, s.srv, &a);
    CHECK(i.done && !i.failed);
    CHECK(rehashing > 0);
    CHECK(grown);
    CHECK_EQ_INT(a.tracked, 2000);
    CHECK_EQ_INT(a.returned, 2000);
    CHECK_EQ_INT(a.missing, 0);
    CHECK_EQ_INT(i.missing_kept, 0);
    CHECK(i.distinct >= 2000);
    CHECK_EQ_INT(i.duplicates, 0);
    CHECK_EQ_INT(i.cursor, 0);
    gkWorldRelease(s.w);
}

static void testBucketsMatchTheTrace(void) {
    session s;
    open_(&s, 5);
    gkTraceEnable(s.w, 1u << GK_TR_SCAN_BUCKET);
    cmd(&s, "DEBUG POPULATE 600\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 5, NULL, 0), GK_OK);
    static gkTraceRecord rec[8192];
    int compared = 0, both_tables = 0;
    for (int call = 0; !info(&s).done && call < 2000; call++) {
        uint64_t mark = gkTraceLastSeq(s.w);
        gkScanWalkStep(s.w, s.srv);
        size_t n = gkTraceRead(s.w, mark, rec, 8192);
        gkScanWalkCall c = lastCall(&s);
        gkScanWalkBucket b[GK_SCAN_WALK_BUCKETS];
        uint32_t kept = 0;
        CHECK_EQ_INT(gkScanWalkBuckets(s.w, s.srv, c.n, b,
                                       GK_SCAN_WALK_BUCKETS, &kept), GK_OK);
        uint64_t seen = 0;
        int tables = 0;
        for (size_t r = 0; r < n; r++) {
            if (rec[r].type != GK_TR_SCAN_BUCKET || rec[r].a != 0 ||
                rec[r].b != GK_DICT_KEYS) continue;
            if (seen < kept) {
                CHECK_EQ_INT(b[seen].table, rec[r].c);
                CHECK_EQ_INT(b[seen].index, rec[r].d);
                CHECK(b[seen].index < c.size[b[seen].table]);
                tables |= 1 << b[seen].table;
            }
            seen++;
        }
        CHECK_EQ_INT(seen, c.buckets);
        CHECK_EQ_INT(kept, c.buckets < GK_SCAN_WALK_BUCKETS
                               ? c.buckets : GK_SCAN_WALK_BUCKETS);
        if (tables == 3) both_tables++;
        compared++;
        /* Grow the table now and then, so calls meet a rehash. */
        if (call % 7 == 0 && call < 100) {
            char line[64];
            snprintf(line, sizeof(line), "DEBUG POPULATE 400 g%d\r\n", call);
            cmd(&s, line);
        }
    }
    CHECK(info(&s).done);
    CHECK(compared > 10);
    CHECK(both_tables > 0);
    gkWorldRelease(s.w);
}

/* The length-prefixed keys of one bucket, appended NUL-separated to keep
 * (at *len); returns how many. */
static int bucketKeys(session *s, uint64_t bucket, char *keep, size_t *len) {
    char raw[4096];
    size_t got = 0, at = 0;
    int n = 0;
    gkDictGetBucketKeys(s->w, s->srv, 0, GK_DICT_KEYS, 0, bucket, raw,
                        sizeof(raw), &got);
    while (at + 4 <= got) {
        uint32_t k = (uint32_t)(unsigned char)raw[at] |
                     (uint32_t)(unsigned char)raw[at + 1] << 8;
        memcpy(keep + *len, raw + at + 4, k);
        keep[*len + k] = '\0';
        *len += k + 1;
        at += 4 + k;
        n++;
    }
    return n;
}

static int inKeep(const char *keep, size_t len, const char *key) {
    for (size_t at = 0; at < len; at += strlen(keep + at) + 1)
        if (!strcmp(keep + at, key)) return 1;
    return 0;
}

/* A shrink folds eight buckets into one. The walk is halfway: of the big
 * buckets that fold into the one its cursor points at, some were visited.
 * The test keeps the keys of those (and a few others, so the table is
 * small enough to shrink), lets serverCron shrink the table, and steps
 * on: the next call visits the small bucket and returns them again. */
static void testShrinkGivesDuplicates(void) {
    session s;
    open_(&s, 7);
    cmd(&s, "DEBUG POPULATE 3000\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 40, NULL, 0), GK_OK);
    for (int i = 0; i < 25; i++) gkScanWalkStep(s.w, s.srv);
    gkScanWalkInfo i = info(&s);
    CHECK(!i.done);
    static uint8_t visited[4096];
    CHECK_EQ_INT(gkScanWalkVisited(s.w, s.srv, 4096, 4096, visited), GK_OK);
    static char keep[65536];
    size_t klen = 0;
    int again = 0;
    uint64_t small = i.cursor & 511;
    for (uint64_t b = small; b < 4096; b += 512)
        if (visited[b] == 255) again += bucketKeys(&s, b, keep, &klen);
    CHECK(again > 0);
    /* 300 keys shrink 4096 buckets to 512 (fill below 10%). */
    int keys = again;
    static char req[3000 * 24];
    size_t rlen = 0;
    for (int k = 0; k < 3000; k++) {
        char name[32];
        snprintf(name, sizeof(name), "key:%d", k);
        if (inKeep(keep, klen, name)) continue;
        if (keys < 300) { keys++; continue; }
        rlen += (size_t)sprintf(req + rlen, "DEL %s\r\n", name);
    }
    gkConnSend(s.w, s.conn, req, rlen);
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 2000000000ULL);
    gkConnRecv(s.w, s.conn, s.out, sizeof(s.out));
    gkDictInfo d;
    gkDictGetInfo(s.w, s.srv, 0, GK_DICT_KEYS, &d);
    CHECK_EQ_INT(d.size[0], 512);
    CHECK_EQ_INT(d.rehashidx, -1);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    gkScanWalkCall c = lastCall(&s);
    CHECK(c.duplicates >= (uint32_t)again);
    static char dups[65536];
    int nd = callKeys(&s, c.n, 1, dups, sizeof(dups));
    CHECK_EQ_INT(nd, c.duplicates_kept);
    for (size_t at = 0; at < sizeof(dups) && nd-- > 0;
         at += strlen(dups + at) + 1)
        CHECK(inKeep(keep, klen, dups + at));
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 100000), GK_OK);
    i = info(&s);
    gkScanAudit a;
    gkScanWalkAudit(s.w, s.srv, &a);
    CHECK(i.done);
    CHECK(i.duplicates >= (uint64_t)again);
    CHECK_EQ_INT(a.duplicates, i.duplicates);
    CHECK_EQ_INT(a.missing, 0);
    CHECK_EQ_INT(a.throughout, 300);
    gkWorldRelease(s.w);
}

static void testBinaryKeys(void) {
    session s;
    open_(&s, 9);
    static const char set[] =
        "*3\r\n$3\r\nSET\r\n$5\r\nb\0i\xffn\r\n$1\r\nv\r\n";
    gktExchange(s.w, s.conn, set, sizeof(set) - 1, s.out, sizeof(s.out));
    cmd(&s, "SET plain 1\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 100, NULL, 0), GK_OK);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    gkScanWalkCall c = lastCall(&s);
    CHECK_EQ_INT(c.keys, 2);
    CHECK_EQ_INT(c.keys_bytes, 4 + 5 + 4 + 5);
    char raw[64];
    size_t len = 0;
    gkScanWalkKeys(s.w, s.srv, c.n, 0, raw, sizeof(raw), &len);
    CHECK_EQ_INT(len, 18);
    int found = 0;
    for (size_t at = 0; at + 4 <= len; at += 4 + (size_t)raw[at])
        if (raw[at] == 5 && !memcmp(raw + at + 4, "b\0i\xffn", 5)) found++;
    CHECK_EQ_INT(found, 1);
    CHECK(info(&s).done);
    CHECK_EQ_INT(info(&s).distinct, 2);
    /* A pattern with a NUL byte, or too long, is refused. */
    char long_[200];
    memset(long_, 'a', sizeof(long_));
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 10, "a\0b", 3), GK_EINVAL);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 10, long_, 128), GK_EINVAL);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 10, long_, 127), GK_OK);
    CHECK_EQ_INT(strlen(info(&s).match), 127);
    gkWorldRelease(s.w);
}

static void testLimits(void) {
    session s;
    open_(&s, 11);
    cmd(&s, "DEBUG POPULATE 5000\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 300, "key:1*", 6), GK_OK);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    gkScanWalkCall c = lastCall(&s);
    CHECK(c.buckets > GK_SCAN_WALK_BUCKETS);
    CHECK_EQ_INT(c.buckets_kept, GK_SCAN_WALK_BUCKETS);
    /* MATCH filters after collection: fewer keys than COUNT. */
    CHECK(c.keys > 0 && c.keys < 300);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 1000, NULL, 0), GK_OK);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    c = lastCall(&s);
    CHECK(c.keys >= 1000);
    CHECK_EQ_INT(c.keys_kept, GK_SCAN_WALK_KEYS);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 10, NULL, 0), GK_OK);
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 40), GK_OK);
    gkScanWalkInfo i = info(&s);
    CHECK_EQ_INT(i.calls, 40);
    CHECK_EQ_INT(i.recent, GK_SCAN_WALK_RECENT);
    gkScanWalkCall calls[GK_SCAN_WALK_RECENT];
    uint32_t n = 0;
    gkScanWalkCalls(s.w, s.srv, calls, GK_SCAN_WALK_RECENT, &n);
    CHECK_EQ_INT(calls[0].n, 40 - GK_SCAN_WALK_RECENT + 1);
    CHECK_EQ_INT(calls[n - 1].n, 40);
    CHECK_EQ_INT(calls[1].cursor_in, calls[0].cursor_out);
    gkScanWalkBucket b[4];
    CHECK_EQ_INT(gkScanWalkBuckets(s.w, s.srv, 3, b, 4, &n), GK_ENOTFOUND);
    CHECK_EQ_INT(i.serial, 3);
    gkWorldRelease(s.w);
}

static void testErrorsAndVisited(void) {
    session s;
    open_(&s, 13);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_EINVAL);
    CHECK_EQ_INT(info(&s).active, 0);
    CHECK_EQ_INT(info(&s).conn, -1);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 16, 10, NULL, 0), GK_ENOTFOUND);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 0, NULL, 0), GK_EINVAL);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, 5, 0, 10, NULL, 0), GK_ENOTFOUND);
    cmd(&s, "DEBUG POPULATE 100\r\n");
    /* A COUNT SCAN refuses comes back as the call's error. */
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, (uint64_t)1 << 63, NULL, 0),
                 GK_OK);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    gkScanWalkInfo i = info(&s);
    CHECK(i.failed && !i.done);
    CHECK_EQ_STR(i.error, "ERR value is not an integer or out of range");
    CHECK_EQ_INT(i.calls, 1);
    CHECK_EQ_INT(i.recent, 0);
    /* A failed walk is left as it is by Finish. */
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 10), GK_OK);
    CHECK_EQ_INT(info(&s).calls, 1);

    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 7, NULL, 0), GK_OK);
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 1000), GK_OK);
    i = info(&s);
    CHECK(i.done && !i.failed && i.error[0] == '\0');
    CHECK_EQ_INT(i.distinct, 100);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_EINVAL);
    CHECK_EQ_STR(gkWorldLastError(s.w),
                 "the SCAN walk is finished: begin another");
    /* A full walk over a table that kept its size visited all of it. */
    uint8_t bins[32];
    CHECK_EQ_INT(gkScanWalkVisited(s.w, s.srv, 128, 32, bins), GK_OK);
    int all = 1;
    for (int k = 0; k < 32; k++) all &= bins[k] == 255;
    CHECK(all);
    CHECK_EQ_INT(gkScanWalkVisited(s.w, s.srv, 256, 32, bins), GK_OK);
    CHECK_EQ_INT(bins[0] | bins[31], 0);
    CHECK_EQ_INT(gkScanWalkVisited(s.w, s.srv, 100, 32, bins), GK_EINVAL);
    CHECK_EQ_INT(gkScanWalkEnd(s.w, s.srv), GK_OK);
    CHECK_EQ_INT(info(&s).active, 0);
    CHECK(info(&s).conn >= 0);
    gkScanAudit a;
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.active, 0);
    gkWorldRelease(s.w);
}

/* The same walk in two worlds built alike gives the same digest; one more
 * call changes it. */
static void testDigest(void) {
    session a, b;
    uint64_t da, db;
    open_(&a, 15);
    open_(&b, 15);
    cmd(&a, "DEBUG POPULATE 500\r\n");
    cmd(&b, "DEBUG POPULATE 500\r\n");
    gkScanWalkBegin(a.w, a.srv, 0, 10, NULL, 0);
    gkScanWalkBegin(b.w, b.srv, 0, 10, NULL, 0);
    for (int i = 0; i < 3; i++) {
        gkScanWalkStep(a.w, a.srv);
        gkScanWalkStep(b.w, b.srv);
    }
    gkWorldDigest(a.w, &da);
    gkWorldDigest(b.w, &db);
    CHECK(da == db);
    gkScanWalkStep(b.w, b.srv);
    gkWorldDigest(b.w, &db);
    CHECK(da != db);
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* The server dies and comes back from its AOF: the walk's connection is
 * gone, and its next call opens another, selects the walk's db again (the
 * only one with keys) and goes on from its cursor. */
static void testReconnects(void) {
    gkConfig cfg = gktConfig(17);
    session s;
    gkWorldCreate(&s.w, &cfg, NULL, NULL);
    const char *conf = "appendonly yes\nappendfsync always\n";
    gkServerAddConfig(s.w, conf, &s.srv);
    gkConnOpen(s.w, s.srv, &s.conn);
    gkWorldRunUntil(s.w, gkWorldNow(s.w) + 1000000000ULL);
    cmd(&s, "SELECT 3\r\n");
    for (int k = 0; k < 300; k += 10) {
        char line[256];
        int n = snprintf(line, sizeof(line), "MSET");
        for (int j = k; j < k + 10; j++)
            n += snprintf(line + n, sizeof(line) - (size_t)n, " k%d v", j);
        snprintf(line + n, sizeof(line) - (size_t)n, "\r\n");
        cmd(&s, line);
    }
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 3, 10, NULL, 0), GK_OK);
    gkScanWalkStep(s.w, s.srv);
    gkScanWalkStep(s.w, s.srv);
    int before = info(&s).conn;
    uint64_t distinct = info(&s).distinct;
    CHECK(distinct > 0 && distinct < 300);
    CHECK_EQ_INT(gkServerCrash(s.w, s.srv, GK_CRASH_PROCESS), GK_OK);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_ENOTFOUND);
    CHECK_EQ_INT(info(&s).conn, before);
    CHECK_EQ_INT(gkServerRestart(s.w, s.srv, conf), GK_OK);
    gkWorldRunUntilIdle(s.w);
    CHECK_EQ_INT(gkScanWalkStep(s.w, s.srv), GK_OK);
    gkScanWalkInfo i = info(&s);
    CHECK(!i.failed);
    CHECK(i.distinct > distinct);
    CHECK(lastCall(&s).buckets > 0);
    /* The new process hashes with a seed of its own, so the cursor goes
     * on over other buckets: the guarantee does not span the restart. */
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 1000), GK_OK);
    CHECK(info(&s).done);
    CHECK(info(&s).distinct <= 300);
    gkWorldRelease(s.w);
}

/* The audit's count of keys present throughout and not yet returned
 * follows every return and every deletion, and a call of a walk over
 * 200,000 keys costs what the call does, not a pass over every key the
 * audit records: 2,000 calls of COUNT 1 took 22 s of CPU when the count
 * was recounted after each call, and take a small fraction of a second
 * now (the bound leaves room for sanitizers and a busy machine). */
static void testAuditCountsAsItGoes(void) {
    session s;
    open_(&s, 21);
    cmd(&s, "DEBUG POPULATE 200000 k\r\n");
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 1, NULL, 0), GK_OK);
    clock_t t0 = clock();
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 2000), GK_OK);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 2.0);
    gkScanAudit a;
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.tracked, 200000);
    CHECK(a.returned > 0);
    CHECK_EQ_INT(a.missing, a.tracked - a.returned);
    /* Deleting a returned key leaves missing as it is; deleting one not
     * yet returned takes it out. */
    char line[4200], keys[4096];
    int n = callKeys(&s, info(&s).calls, 0, keys, sizeof(keys));
    CHECK(n > 0);
    snprintf(line, sizeof(line), "DEL %s\r\n", keys);
    cmd(&s, line);
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.throughout, 199999);
    CHECK_EQ_INT(a.missing, a.tracked - a.returned);
    cmd(&s, "DEL k:199999 k:0\r\n");
    gkScanAudit b;
    gkScanAuditGet(s.w, s.srv, &b);
    CHECK_EQ_INT(b.throughout, 199997);
    uint64_t unreturned = a.missing - b.missing;    /* of those two */
    CHECK(unreturned <= 2);
    CHECK_EQ_INT(b.missing, b.throughout - (b.returned - 1 - (2 - unreturned)));
    CHECK_EQ_INT(gkScanWalkFinish(s.w, s.srv, 1000000), GK_OK);
    gkScanAuditGet(s.w, s.srv, &b);
    CHECK_EQ_INT(b.missing, 0);
    CHECK_EQ_INT(b.returned + unreturned, b.tracked);
    cmd(&s, "FLUSHALL\r\n");
    gkScanAuditGet(s.w, s.srv, &b);
    CHECK_EQ_INT(b.missing, 0);
    gkWorldRelease(s.w);
}

/* used_memory as INFO memory says. */
static long long usedMemory(session *s) {
    const char *info = cmd(s, "INFO memory\r\n");
    const char *p = strstr(info, "used_memory:");
    return p ? atoll(p + strlen("used_memory:")) : -1;
}

/* The audit records every key of the walked db. Counted in the server's
 * used_memory, its 50,000 keys made every random access of the server
 * dearer (cost.h), and its SCANs slower than those of a walk of another
 * db, whose audit records nothing. */
static void testAuditCostsTheServerNothing(void) {
    session s;
    open_(&s, 5);
    cmd(&s, "DEBUG POPULATE 50000\r\n");
    usedMemory(&s);             /* its reply buffer grows once */
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 1, 1000, NULL, 0), GK_OK);
    long long other = usedMemory(&s);
    CHECK_EQ_INT(gkScanWalkBegin(s.w, s.srv, 0, 1000, NULL, 0), GK_OK);
    long long walked = usedMemory(&s);
    CHECK(other > 0);
    CHECK_EQ_INT(walked, other);
    gkScanAudit a;
    gkScanAuditGet(s.w, s.srv, &a);
    CHECK_EQ_INT(a.tracked, 50000);
    gkWorldRelease(s.w);
}

int main(void) {
    RUN("a walk returns every key present throughout while the table grows "
        "and rehashes between its calls", testGrowingTable);
    RUN("the buckets a walk records are those the trace shows, in order",
        testBucketsMatchTheTrace);
    RUN("keys a shrink brings back under the cursor are counted as "
        "duplicates", testShrinkGivesDuplicates);
    RUN("keys are kept byte for byte; MATCH patterns are bounded",
        testBinaryKeys);
    RUN("a walk keeps the first buckets and keys of its most recent calls",
        testLimits);
    RUN("errors, a failed call, the visited bins and the end of a walk",
        testErrorsAndVisited);
    RUN("the world digest covers the walk", testDigest);
    RUN("a walk opens another connection when the server closed its own",
        testReconnects);
    RUN("the audit counts the keys not yet returned as they are returned "
        "and deleted, in constant time per call", testAuditCountsAsItGoes);
    RUN("the audit's records are not the server's memory: used_memory is "
        "the same whichever db a walk audits", testAuditCostsTheServerNothing);
    return gkTestReport();
}
