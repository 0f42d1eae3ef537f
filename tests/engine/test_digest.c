/* Tests of gkWorldDigest: equal for worlds built alike, different for any
 * change of data, time or table shape, and free of side effects. */
#include <stdio.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"
#include "world.h"
#include "mc_server.h"

typedef struct session { gkWorld *w; int srv, conn; char out[4096]; } session;

static void open_(session *s, uint64_t seed) {
    gkConfig cfg = gktConfig(seed);
    gktServerOpen(&cfg, &s->w, &s->srv, &s->conn);
}

static const char *cmd(session *s, const char *line) {
    return gktExchange(s->w, s->conn, line, strlen(line), s->out,
                       sizeof(s->out));
}

static uint64_t digest(session *s) {
    uint64_t d = 0;
    gkWorldDigest(s->w, &d);
    return d;
}

static void build(session *s, uint64_t seed) {
    open_(s, seed);
    cmd(s, "SET a 1\r\n");
    cmd(s, "HSET h f v\r\n");
    cmd(s, "SET t x PX 500000\r\n");
    cmd(s, "DEBUG POPULATE 300\r\n");
}

static void testSameWorldsSameDigest(void) {
    session a, b;
    build(&a, 9);
    build(&b, 9);
    CHECK(digest(&a) == digest(&b));
    CHECK(digest(&a) == digest(&a));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

static void testAnyChangeChangesIt(void) {
    session a, b;
    build(&a, 9);
    build(&b, 9);
    cmd(&b, "SET a 2\r\n");
    CHECK(digest(&a) != digest(&b));
    cmd(&a, "SET a 2\r\n");
    CHECK(digest(&a) == digest(&b));
    /* Same key, same value, other TTL. */
    cmd(&a, "PEXPIRE a 1000000\r\n");
    cmd(&b, "PEXPIRE a 1000001\r\n");
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);

    build(&a, 9);
    build(&b, 10);   /* another seed: another PRNG state and hash seed */
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(b.w);
    /* Same seed, same keys; one more incremental rehash step in one. */
    build(&b, 9);
    gkDictInfo info;
    gkDictGetInfo(b.w, b.srv, 0, GK_DICT_KEYS, &info);
    if (info.rehashidx == -1) {     /* start a rehash in both */
        cmd(&a, "DEBUG POPULATE 1000 more\r\n");
        cmd(&b, "DEBUG POPULATE 1000 more\r\n");
        gkDictGetInfo(b.w, b.srv, 0, GK_DICT_KEYS, &info);
    }
    CHECK(info.rehashidx != -1);
    CHECK(digest(&a) == digest(&b));
    gkDictRehashSteps(b.w, b.srv, 0, GK_DICT_KEYS, 1);
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
    build(&a, 9);
    build(&b, 9);
    gkWorldRunUntil(b.w, gkWorldNow(b.w) + 1);
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* The RDB writer looks expires up, which would take a rehash step: the
 * digest must leave a rehashing dict exactly where it was. */
static void testNoSideEffectsWhileRehashing(void) {
    session a, b;
    build(&a, 3);
    build(&b, 3);
    cmd(&a, "CONFIG SET activerehashing no\r\n");
    cmd(&b, "CONFIG SET activerehashing no\r\n");
    char line[64];
    for (int i = 0; i < 40; i++) {
        snprintf(line, sizeof(line), "SET e%d v PX 900000\r\n", i);
        cmd(&a, line);
        cmd(&b, line);
    }
    gkDictInfo before, after;
    int rehashing = 0;
    for (int i = 40; i < 4000 && !rehashing; i++) {
        snprintf(line, sizeof(line), "SET e%d v PX 900000\r\n", i);
        cmd(&a, line);
        cmd(&b, line);
        gkDictGetInfo(a.w, a.srv, 0, GK_DICT_EXPIRES, &before);
        rehashing = before.rehashidx >= 0;
    }
    CHECK(rehashing);
    size_t mem = gkWorldMemory(a.w);
    uint64_t d1 = digest(&a);
    gkDictGetInfo(a.w, a.srv, 0, GK_DICT_EXPIRES, &after);
    CHECK_EQ_INT(after.rehashidx, before.rehashidx);
    CHECK_EQ_INT(after.pauserehash, 0);
    CHECK_EQ_INT(gkWorldMemory(a.w), mem);
    CHECK(digest(&a) == d1);
    CHECK(digest(&b) == d1);
    /* used_memory_peak included: b never computed a digest. */
    CHECK_EQ_STR(cmd(&a, "INFO memory\r\n"), cmd(&b, "INFO memory\r\n"));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* ---- memcached-style nodes. ---- */

typedef struct mcWorld { gkWorld *w; int node, conn; char out[4096]; } mcWorld;

static const char *mcSay(mcWorld *m, const char *bytes) {
    return gktExchange(m->w, m->conn, bytes, strlen(bytes), m->out,
                       sizeof(m->out));
}

/* A world with a Redis-style server (host 0) and a memcached node at host
 * 3, holding a few items, one of them large enough to be chunked. */
static void mcBuild(mcWorld *m, const char *opts) {
    int srv, conn;
    gkConfig cfg = gktConfig(5);
    gktServerOpen(&cfg, &m->w, &srv, &conn);
    m->node = 3;
    CHECK_EQ_INT(gkMemcachedStart(m->w, m->node, opts), GK_OK);
    gkConnOpen(m->w, m->node, &m->conn);
    CHECK_EQ_STR(mcSay(m, "set a 0 0 5\r\nhello\r\n"), "STORED\r\n");
    CHECK_EQ_STR(mcSay(m, "set b 7 100 3\r\nabc\r\n"), "STORED\r\n");
    static char big[600100];
    int h = snprintf(big, sizeof(big), "set big 0 0 600000\r\n");
    memset(big + h, 'z', 600000);
    memcpy(big + h + 600000, "\r\n", 3);
    CHECK_EQ_STR(mcSay(m, big), "STORED\r\n");
    CHECK_EQ_STR(mcSay(m, "delete b\r\n"), "DELETED\r\n");
    CHECK_EQ_STR(mcSay(m, "set b 7 100 3\r\nabc\r\n"), "STORED\r\n");
}

static uint64_t worldDigest(gkWorld *w) {
    uint64_t d = 0;
    gkWorldDigest(w, &d);
    return d;
}

/* The item's header, found through the node's hash table. */
static mcItem *mcFind(mcWorld *m, const char *key) {
    mcCache *k = &mcServerOf(m->w, m->node)->cache;
    uint32_t hv = assocHash(&k->assoc, key, strlen(key));
    return assocFind(&k->assoc, key, strlen(key), hv);
}

static void testMemcachedItemsAreFolded(void) {
    mcWorld a, b;
    mcBuild(&a, "-m 8");
    mcBuild(&b, "-m 8");
    CHECK(worldDigest(a.w) == worldDigest(b.w));
    /* One byte of one value, nothing else. */
    mcItem *it = mcFind(&b, "a");
    CHECK(it != NULL);
    itemData(it)[1] ^= 1;
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    itemData(it)[1] ^= 1;
    CHECK(worldDigest(a.w) == worldDigest(b.w));
    /* The expiry, then the client flags, of one item. */
    it->exptime++;
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    it->exptime--;
    mcItem *ib = mcFind(&b, "b");
    CHECK(ib != NULL && itemFlags(ib) == 7);
    itemSuffix(ib)[0] ^= 2;
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    itemSuffix(ib)[0] ^= 2;
    /* A byte deep in a chunked value. */
    mcItem *big = mcFind(&b, "big");
    CHECK(big != NULL && (big->it_flags & MC_ITEM_CHUNKED));
    mcChunk *last = itemFirstChunk(big);
    while (last && last->next) last = last->next;
    CHECK(last != NULL);
    chunkData(last)[last->used - 3] ^= 1;
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    chunkData(last)[last->used - 3] ^= 1;
    CHECK(worldDigest(a.w) == worldDigest(b.w));
    /* The same change through the protocol. */
    mcSay(&a, "set a 0 0 5\r\nhellp\r\n");
    mcSay(&b, "set a 0 0 5\r\nhello\r\n");
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* Without CAS, two nodes that stored the same items in another order
 * hold the same bytes in other chunks, with another LRU order. */
static void testWhereItemsSitIsFolded(void) {
    mcWorld a, b;
    int srv, conn;
    gkConfig cfg = gktConfig(5);
    gktServerOpen(&cfg, &a.w, &srv, &conn);
    gktServerOpen(&cfg, &b.w, &srv, &conn);
    a.node = b.node = 1;
    gkMemcachedStart(a.w, 1, "-C");
    gkMemcachedStart(b.w, 1, "-C");
    gkConnOpen(a.w, 1, &a.conn);
    gkConnOpen(b.w, 1, &b.conn);
    mcSay(&a, "set x 0 0 1\r\n1\r\nset y 0 0 1\r\n1\r\n");
    mcSay(&b, "set y 0 0 1\r\n1\r\nset x 0 0 1\r\n1\r\n");
    gkMcTotals ta, tb;
    gkMemcachedClasses(a.w, 1, NULL, 0, NULL, &ta);
    gkMemcachedClasses(b.w, 1, NULL, 0, NULL, &tb);
    CHECK(ta.curr_items == 2 && tb.curr_items == 2);
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* The free list is folded by place: freeing the same two chunks in the
 * other order gives another digest. */
static void testFreeListOrderIsFolded(void) {
    mcWorld a, b;
    mcBuild(&a, "-C");
    mcBuild(&b, "-C");
    mcSay(&a, "delete a\r\ndelete b\r\n");
    mcSay(&b, "delete b\r\ndelete a\r\n");
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    mcSay(&a, "set p 0 0 1\r\n1\r\n");
    mcSay(&b, "set p 0 0 1\r\n1\r\n");
    CHECK(worldDigest(a.w) != worldDigest(b.w));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

static void testMemcachedDigestChangesNothing(void) {
    mcWorld a, b;
    mcBuild(&a, "-m 8");
    mcBuild(&b, "-m 8");
    size_t mem = gkWorldMemory(a.w);
    uint64_t d = worldDigest(a.w);
    CHECK(worldDigest(a.w) == d);
    CHECK_EQ_INT(gkWorldMemory(a.w), mem);
    CHECK_EQ_STR(mcSay(&a, "stats\r\n"), mcSay(&b, "stats\r\n"));
    CHECK(worldDigest(a.w) == worldDigest(b.w));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* ---- Disks. ---- */

/* A server writing an AOF with appendfsync no: the incr file's last
 * bytes are in the page cache only, its first ones on the device too. */
static void diskBuild(session *s) {
    gkConfig cfg = gktConfig(9);
    gkWorldCreate(&s->w, &cfg, NULL, NULL);
    gkServerAddConfig(s->w, "appendonly yes\nappendfsync no\n", &s->srv);
    gkConnOpen(s->w, s->srv, &s->conn);
    cmd(s, "SET a 1\r\n");
    gkWorldRunUntil(s->w, gkWorldNow(s->w) + 40000000000ULL);
    cmd(s, "SET b 2\r\n");
}

static diskInode *incrFile(session *s) {
    return diskLookup(s->w->nodes[s->srv].disk,
                      "appendonlydir/appendonly.aof.1.incr.aof");
}

static void testDiskBytesAreFolded(void) {
    session a, b;
    diskBuild(&a);
    diskBuild(&b);
    CHECK(digest(&a) == digest(&b));
    diskInode *ino = incrFile(&b);
    CHECK(ino != NULL);
    size_t durable = sdslen(ino->durable), cached = sdslen(ino->data);
    CHECK(durable > 0 && cached > durable);
    /* A byte that is on the device, changed there only. */
    ino->durable[durable - 1] ^= 1;
    CHECK(digest(&a) != digest(&b));
    ino->durable[durable - 1] ^= 1;
    CHECK(digest(&a) == digest(&b));
    /* A byte only the page cache has. */
    ino->data[cached - 1] ^= 1;
    CHECK(digest(&a) != digest(&b));
    ino->data[cached - 1] ^= 1;
    CHECK(digest(&a) == digest(&b));
    /* Looking at the disk brings it up to the world's time: that is not
     * a difference. */
    gkWorldRunUntil(a.w, gkWorldNow(a.w) + 7000000000ULL);
    gkWorldRunUntil(b.w, gkWorldNow(b.w) + 7000000000ULL);
    gkDiskInfo info;
    CHECK_EQ_INT(gkDiskGetInfo(b.w, b.srv, &info), GK_OK);
    CHECK(digest(&a) == digest(&b));
    /* A file written through the API, one byte apart. */
    gkDiskWriteFile(a.w, a.srv, "notes.txt", "abc", 3);
    gkDiskWriteFile(b.w, b.srv, "notes.txt", "abd", 3);
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

/* The page's record of the session lives in the world: a new world's says
 * nothing is open yet, and any field of it is in the digest. */
static void testSessionRecordIsFolded(void) {
    session a, b;
    build(&a, 9);
    build(&b, 9);
    gkSession *r = gkWorldSession(a.w);
    CHECK(r == gkWorldSession(a.w));
    CHECK_EQ_INT(r->console_conn, -1);
    CHECK_EQ_INT(r->control_conn, -1);
    CHECK_EQ_INT(r->lab, -1);
    CHECK_EQ_INT(r->mc_node, -1);
    CHECK_EQ_INT(r->programs, 0);
    CHECK(digest(&a) == digest(&b));
    r->console_db = 3;
    CHECK(digest(&a) != digest(&b));
    gkWorldSession(b.w)->console_db = 3;
    CHECK(digest(&a) == digest(&b));
    r->program_part[GK_SESSION_PROGRAMS_MAX - 1] = 1;
    CHECK(digest(&a) != digest(&b));
    gkWorldRelease(a.w);
    gkWorldRelease(b.w);
}

int main(void) {
    RUN("worlds built alike have the same digest", testSameWorldsSameDigest);
    RUN("a value, a TTL, the hash seed or a nanosecond changes the digest",
        testAnyChangeChangesIt);
    RUN("the digest leaves a rehashing dict and memory as they were",
        testNoSideEffectsWhileRehashing);
    RUN("one byte of a memcached item's value, its expiry or its flags "
        "changes the digest", testMemcachedItemsAreFolded);
    RUN("the same items in other chunks give another digest",
        testWhereItemsSitIsFolded);
    RUN("a memcached class's free-list order is in the digest",
        testFreeListOrderIsFolded);
    RUN("the digest of a memcached node changes neither it nor memory",
        testMemcachedDigestChangesNothing);
    RUN("one byte of a file, in the page cache or on the device, changes "
        "the digest", testDiskBytesAreFolded);
    RUN("the session's record is in the world, and in its digest",
        testSessionRecordIsFolded);
    return gkTestReport();
}
