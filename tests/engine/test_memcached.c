/* Tests of the memcached-style node: the slab class ladder for default and
 * odd settings, page allocation and LIFO chunk reuse, eviction, chunked
 * items, memcached's error strings, expiry and flush in virtual time, and
 * the introspection and trace the slab view reads. Expected class tables
 * and replies were taken from Debian's memcached 1.6.18. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"
#include "mc_slabs.h"
#include "mc_items.h"

#define OUT_CAP (4u << 20)

typedef struct session {
    gkWorld *w;
    int node, conn;
    char *out;
} session;

/* A world with one memcached node started with opts, and a connection. */
static int open_(session *s, const char *opts) {
    s->out = malloc(OUT_CAP);
    return gktMemcachedOpen(opts, &s->w, &s->node, &s->conn);
}

static void close_(session *s) {
    gkWorldRelease(s->w);
    free(s->out);
}

/* Sends bytes, lets the node answer, returns what it sent back. */
static const char *raw(session *s, const char *bytes, size_t len) {
    return gktExchange(s->w, s->conn, bytes, len, s->out, OUT_CAP);
}

static const char *cmd(session *s, const char *text) {
    return raw(s, text, strlen(text));
}

/* Stores key with a value of n copies of c. Returns the reply. */
static const char *setN(session *s, const char *key, size_t n, char c) {
    size_t cap = n + 128;
    char *buf = malloc(cap);
    int h = snprintf(buf, cap, "set %s 0 0 %zu\r\n", key, n);
    memset(buf + h, c, n);
    memcpy(buf + h + n, "\r\n", 2);
    const char *r = raw(s, buf, (size_t)h + n + 2);
    free(buf);
    return r;
}

/* The value of "STAT name value" in the last reply, or -1. */
static long long statOf(session *s, const char *name) {
    char pat[128];
    snprintf(pat, sizeof(pat), "STAT %s ", name);
    const char *p = strstr(s->out, pat);
    return p ? atoll(p + strlen(pat)) : -1;
}

static gkMcClass classOf(session *s, uint32_t id) {
    gkMcClass rows[64];
    uint32_t n = 0;
    gkMemcachedClasses(s->w, s->node, rows, 64, &n, NULL);
    return rows[id - 1];
}

/* ---- The class ladder. ---- */

static const uint32_t defaultSizes[] = {
    96, 120, 152, 192, 240, 304, 384, 480, 600, 752, 944, 1184, 1480, 1856,
    2320, 2904, 3632, 4544, 5680, 7104, 8880, 11104, 13880, 17352, 21696,
    27120, 33904, 42384, 52984, 66232, 82792, 103496, 129376, 161720,
    202152, 252696, 315872, 394840, 524288
};

static void testDefaultLadder(void) {
    session s;
    CHECK_EQ_INT(open_(&s, ""), GK_OK);
    gkMcClass rows[64];
    gkMcTotals t;
    uint32_t n = 0;
    gkMemcachedClasses(s.w, s.node, rows, 64, &n, &t);
    CHECK_EQ_INT(n, 39);
    CHECK_EQ_INT(t.classes, 39);
    for (uint32_t i = 0; i < n && i < 39; i++) {
        CHECK_EQ_INT(rows[i].chunk_size, defaultSizes[i]);
        CHECK_EQ_INT(rows[i].perslab, 1048576 / defaultSizes[i]);
        CHECK_EQ_INT(rows[i].pages, 0);
    }
    CHECK_EQ_INT(rows[0].perslab, 10922);
    CHECK_EQ_INT(rows[37].perslab, 2);
    CHECK_EQ_INT(rows[38].perslab, 2);
    CHECK_EQ_INT(t.total_malloced, 0);
    CHECK_EQ_INT(t.limit, 64 << 20);
    close_(&s);
}

/* The class count and a few sizes for one option set, as memcached -vv
 * printed them. */
static void ladder(const char *opts, uint32_t count, uint32_t first,
                   uint32_t second, uint32_t last_but_one, uint32_t last) {
    session s;
    CHECK_EQ_INT(open_(&s, opts), GK_OK);
    gkMcClass rows[64];
    uint32_t n = 0;
    gkMemcachedClasses(s.w, s.node, rows, 64, &n, NULL);
    CHECK_EQ_INT(n, count);
    if (n >= 2) {
        CHECK_EQ_INT(rows[0].chunk_size, first);
        CHECK_EQ_INT(rows[1].chunk_size, second);
        CHECK_EQ_INT(rows[n - 2].chunk_size, last_but_one);
        CHECK_EQ_INT(rows[n - 1].chunk_size, last);
    }
    close_(&s);
}

static void testOddLadders(void) {
    ladder("-f 1.1", 63, 96, 112, 43008, 524288);
    ladder("-n 100", 37, 152, 192, 394840, 524288);
    ladder("-I 4m -m 128", 39, 96, 120, 394840, 524288);
    ladder("-o slab_chunk_max=262144", 36, 96, 120, 202152, 262144);
    ladder("-f 2 -n 8", 14, 56, 112, 229376, 524288);
    ladder("-o slab_sizes=100-200-300", 4, 104, 200, 304, 524288);
    ladder("-f inf", 1, 524288, 0, 0, 0);
}

/* -f 1.1 shows the truncating multiply and the 63-class cap: the ladder
 * stops at class 62 (43008 bytes), far below slab_chunk_max / 1.1. */
static void testTruncatingMultiply(void) {
    session s;
    CHECK_EQ_INT(open_(&s, "-f 1.1"), GK_OK);
    gkMcClass rows[64];
    uint32_t n = 0;
    gkMemcachedClasses(s.w, s.node, rows, 64, &n, NULL);
    /* 96 * 1.1 = 105.6 -> 105 -> aligned 112; 112 * 1.1 = 123.2 -> 128 */
    CHECK_EQ_INT(rows[1].chunk_size, 112);
    CHECK_EQ_INT(rows[2].chunk_size, 128);
    CHECK_EQ_INT(n, 63);
    CHECK_EQ_INT(rows[61].chunk_size, 43008);
    CHECK_EQ_INT(rows[61].perslab, 24);
    CHECK_EQ_INT(rows[n - 1].chunk_size, 524288);
    close_(&s);
}

/* The what-if layout needs no world and gives the node's ladder. */
static void testLayoutWithoutAWorld(void) {
    gkMcClass rows[64];
    uint32_t n = 0;
    char err[256];
    CHECK_EQ_INT(gkMemcachedLayout("-f 2 -n 8", rows, 64, &n, err,
                                   sizeof(err)), GK_OK);
    CHECK_EQ_INT(n, 14);
    CHECK_EQ_INT(rows[0].chunk_size, 56);
    CHECK_EQ_INT(rows[0].perslab, 18724);
    CHECK_EQ_INT(rows[12].chunk_size, 229376);
    CHECK_EQ_INT(rows[13].chunk_size, 524288);
    CHECK_EQ_INT(rows[0].pages, 0);
    CHECK_EQ_INT(rows[0].free_head_page, UINT32_MAX);
    CHECK_EQ_INT(gkMemcachedLayout("-f 0.5", rows, 64, &n, err, sizeof(err)),
                 GK_EINVAL);
    CHECK_EQ_STR(err, "Factor must be greater than 1");
}

/* ---- Pages and chunks. ---- */

/* The chunk index of the last GK_TR_ITEM_STORE record, or -1. */
static long lastStoreChunk(session *s, uint32_t *cls, uint32_t *page) {
    gkTraceRecord r[256];
    size_t n = gkTraceRead(s->w, 0, r, 256);
    for (size_t i = n; i-- > 0;) {
        if (r[i].type != GK_TR_ITEM_STORE) continue;
        if (cls) *cls = r[i].a;
        if (page) *page = r[i].b;
        return (long)r[i].c;
    }
    return -1;
}

static void testChunksFromTheEndOfThePage(void) {
    session s;
    open_(&s, "");
    CHECK_EQ_STR(cmd(&s, "set foo 0 0 3\r\nbar\r\n"), "STORED\r\n");
    uint32_t cls = 0, page = 9;
    CHECK_EQ_INT(lastStoreChunk(&s, &cls, &page), 10921);
    CHECK_EQ_INT(cls, 1);
    CHECK_EQ_INT(page, 0);
    cmd(&s, "set baz 0 0 3\r\nqux\r\n");
    CHECK_EQ_INT(lastStoreChunk(&s, NULL, NULL), 10920);
    gkMcClass c = classOf(&s, 1);
    CHECK_EQ_INT(c.pages, 1);
    CHECK_EQ_INT(c.used_chunks, 2);
    CHECK_EQ_INT(c.free_chunks, 10920);
    CHECK_EQ_INT(c.free_head_page, 0);
    CHECK_EQ_INT(c.free_head_chunk, 10919);
    CHECK_EQ_INT(c.requested, 130);
    uint32_t *bytes = malloc(sizeof(uint32_t) * 10922), n = 0;
    gkMemcachedChunks(s.w, s.node, 1, 0, bytes, 10922, &n);
    CHECK_EQ_INT(n, 10922);
    CHECK_EQ_INT(bytes[10921], 65);
    CHECK_EQ_INT(bytes[10920], 65);
    CHECK_EQ_INT(bytes[0], 0);
    free(bytes);
    uint32_t used[4];
    gkMemcachedPages(s.w, s.node, 1, used, 4, &n);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(used[0], 2);
    close_(&s);
}

static void testFreedChunkIsReusedFirst(void) {
    session s;
    open_(&s, "");
    cmd(&s, "set a 0 0 1\r\n1\r\nset b 0 0 1\r\n2\r\nset c 0 0 1\r\n3\r\n");
    CHECK_EQ_INT(lastStoreChunk(&s, NULL, NULL), 10919);
    CHECK_EQ_STR(cmd(&s, "delete b\r\n"), "DELETED\r\n");
    CHECK_EQ_INT(classOf(&s, 1).free_head_chunk, 10920);
    cmd(&s, "set d 0 0 1\r\n4\r\n");
    CHECK_EQ_INT(lastStoreChunk(&s, NULL, NULL), 10920);
    cmd(&s, "set e 0 0 1\r\n5\r\n");
    CHECK_EQ_INT(lastStoreChunk(&s, NULL, NULL), 10918);
    /* Replacing a value takes a new chunk before the old one is freed. */
    cmd(&s, "set a 0 0 1\r\n6\r\n");
    CHECK_EQ_INT(lastStoreChunk(&s, NULL, NULL), 10917);
    CHECK_EQ_INT(classOf(&s, 1).free_head_chunk, 10921);
    close_(&s);
}

/* The allocator alone: pages of a class and the list that holds them. */
static void testSlabListGrowsFromSixteenByDoubling(void) {
    gkMem mem;
    memInit(&mem, NULL, NULL);
    mcSlabConfig cfg = { 48, 1.25, 1 << 20, 1 << 19, 1 << 20, 64ULL << 20,
                         1, NULL };
    mcSlabs s;
    slabsInit(&s, &mem, &cfg, NULL, 0);
    unsigned id = slabsClsid(&s, 524288);
    CHECK_EQ_INT(id, 39);
    CHECK_EQ_INT(s.cls[id].list_size, 0);
    for (int i = 0; i < 17 * 2; i++) CHECK(slabsAlloc(&s, 524288, id, 0));
    CHECK_EQ_INT(s.cls[id].slabs, 17);
    CHECK_EQ_INT(s.cls[id].list_size, 32);
    CHECK_EQ_INT(s.mem_malloced, 17ULL << 20);
    CHECK(slabsAlloc(&s, 100, 2, MC_SLABS_ALLOC_NO_NEWPAGE) == NULL);
    CHECK_EQ_INT(s.cls[2].slabs, 0);
    CHECK_EQ_INT(slabsClsid(&s, 0), 0);
    CHECK_EQ_INT(slabsClsid(&s, 96), 1);
    CHECK_EQ_INT(slabsClsid(&s, 97), 2);
    CHECK_EQ_INT(slabsClsid(&s, 1 << 20), 39);
    CHECK_EQ_INT(slabsClsid(&s, (1 << 20) + 1), 0);
    slabsRelease(&s);
    CHECK_EQ_INT(mem.used, 0);
}

/* No chunk is both free and used, and the counts add up to the pages. */
static void checkClassInvariants(session *s) {
    gkMcClass rows[64];
    gkMcTotals t;
    uint32_t n = 0;
    gkMemcachedClasses(s->w, s->node, rows, 64, &n, &t);
    uint64_t bytes_of_pages = 0;
    for (uint32_t i = 0; i < n; i++) {
        gkMcClass *c = &rows[i];
        bytes_of_pages += c->allocated;
        CHECK_EQ_INT(c->used_chunks + c->free_chunks,
                     (uint64_t)c->pages * c->perslab);
        uint32_t used = 0, *bytes = malloc(sizeof(uint32_t) * c->perslab);
        for (uint32_t p = 0; p < c->pages; p++) {
            uint32_t m = 0;
            gkMemcachedChunks(s->w, s->node, c->id, p, bytes, c->perslab, &m);
            for (uint32_t x = 0; x < m; x++) {
                CHECK(bytes[x] <= c->chunk_size);
                if (bytes[x]) used++;
            }
        }
        free(bytes);
        CHECK_EQ_INT(used, c->used_chunks);
    }
    CHECK_EQ_INT(bytes_of_pages, t.total_malloced);
}

static void testEveryClassGetsItsFirstPagePastTheLimit(void) {
    session s;
    open_(&s, "-m 2");
    setN(&s, "a", 10, 'a');
    setN(&s, "b", 1000, 'b');
    CHECK_EQ_STR(setN(&s, "c", 100000, 'c'), "STORED\r\n");
    CHECK_EQ_STR(setN(&s, "d", 400000, 'd'), "STORED\r\n");
    cmd(&s, "stats slabs\r\n");
    CHECK_EQ_INT(statOf(&s, "active_slabs"), 4);
    CHECK_EQ_INT(statOf(&s, "total_malloced"), 4 << 20);
    checkClassInvariants(&s);
    close_(&s);
}

static void testEvictionFromTheTailOfTheClass(void) {
    session s;
    open_(&s, "-m 2");
    gkTraceEnable(s.w, 1u << GK_TR_ITEM_EVICT);
    char key[16];
    for (int i = 1; i <= 22; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        CHECK_EQ_STR(setN(&s, key, 100000, 'v'), "STORED\r\n");
    }
    /* 100062-byte items: class 32, 10 a page, 2 pages under -m 2. */
    gkMcClass c = classOf(&s, 32);
    CHECK_EQ_INT(c.pages, 2);
    CHECK_EQ_INT(c.items, 20);
    CHECK_EQ_INT(c.evicted, 2);
    CHECK_EQ_STR(cmd(&s, "get k1\r\nget k2\r\n"), "END\r\nEND\r\n");
    CHECK(strncmp(cmd(&s, "get k3\r\n"), "VALUE k3 0 100000\r\n", 19) == 0);
    gkTraceRecord r[8];
    size_t n = gkTraceRead(s.w, 0, r, 8);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(r[0].type, GK_TR_ITEM_EVICT);
    CHECK_EQ_INT(r[0].a, 32);
    CHECK_EQ_INT(r[0].d, 100061);     /* 48 + 2 + 1 + 100002 + 8 */
    cmd(&s, "stats items\r\n");
    CHECK_EQ_INT(statOf(&s, "items:32:evicted"), 2);
    CHECK_EQ_INT(statOf(&s, "items:32:evicted_unfetched"), 2);
    checkClassInvariants(&s);
    close_(&s);
}

static void testNoEvictionsMeansOutOfMemory(void) {
    session s;
    open_(&s, "-m 2 -M");
    char key[16];
    for (int i = 1; i <= 20; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        setN(&s, key, 100000, 'v');
    }
    CHECK_EQ_STR(setN(&s, "k21", 100000, 'v'),
                 "SERVER_ERROR out of memory storing object\r\n");
    CHECK_EQ_STR(cmd(&s, "get k21\r\n"), "END\r\n");
    /* A refused set removes the key's old value. */
    CHECK_EQ_STR(setN(&s, "k1", 100000, 'w'),
                 "SERVER_ERROR out of memory storing object\r\n");
    CHECK_EQ_STR(cmd(&s, "get k1\r\n"), "END\r\n");
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "store_no_memory"), 2);
    CHECK_EQ_INT(statOf(&s, "evictions"), 0);
    close_(&s);
}

/* ---- Item sizes and chunked items. ---- */

static void testItemSize(void) {
    session s;
    open_(&s, "");
    uint32_t cls = 0;
    uint64_t ntotal = 0;
    gkMemcachedItemClass(s.w, s.node, 3, 0, 3, &cls, &ntotal);
    CHECK_EQ_INT(ntotal, 65);
    CHECK_EQ_INT(cls, 1);
    gkMemcachedItemClass(s.w, s.node, 2, 5, 100, &cls, &ntotal);
    CHECK_EQ_INT(ntotal, 165);
    CHECK_EQ_INT(cls, 4);
    gkMemcachedItemClass(s.w, s.node, 1, 0, 1048516, &cls, &ntotal);
    CHECK_EQ_INT(ntotal, 1048576);
    CHECK_EQ_INT(cls, 39);
    gkMemcachedItemClass(s.w, s.node, 1, 0, 1048517, &cls, &ntotal);
    CHECK_EQ_INT(cls, 0);
    close_(&s);
    open_(&s, "-C");
    gkMemcachedItemClass(s.w, s.node, 3, 0, 3, &cls, &ntotal);
    CHECK_EQ_INT(ntotal, 57);
    close_(&s);
}

static void testChunkedItem(void) {
    session s;
    open_(&s, "");
    CHECK_EQ_STR(setN(&s, "big", 600000, 'x'), "STORED\r\n");
    CHECK_EQ_INT(classOf(&s, 2).used_chunks, 1);   /* the header */
    CHECK_EQ_INT(classOf(&s, 39).used_chunks, 1);  /* 524240 bytes */
    CHECK_EQ_INT(classOf(&s, 31).used_chunks, 1);  /* the last 75762 */
    CHECK_EQ_INT(classOf(&s, 39).items, 1);
    CHECK_EQ_INT(classOf(&s, 39).requested, 600062);
    const char *r = cmd(&s, "get big\r\n");
    CHECK(strncmp(r, "VALUE big 0 600000\r\n", 20) == 0);
    CHECK_EQ_INT(strlen(r), 20 + 600002 + 5);
    CHECK(r[20] == 'x' && r[20 + 599999] == 'x');
    CHECK_EQ_STR(r + 20 + 600000, "\r\nEND\r\n");
    checkClassInvariants(&s);
    CHECK_EQ_STR(cmd(&s, "incr big 1\r\n"), "CLIENT_ERROR cannot increment "
                 "or decrement non-numeric value\r\n");
    CHECK_EQ_STR(cmd(&s, "delete big\r\n"), "DELETED\r\n");
    CHECK_EQ_INT(classOf(&s, 39).used_chunks, 0);
    CHECK_EQ_INT(classOf(&s, 31).used_chunks, 0);
    CHECK_EQ_INT(classOf(&s, 2).used_chunks, 0);
    CHECK_EQ_STR(setN(&s, "k", 1048516, 'm'), "STORED\r\n");
    CHECK_EQ_STR(setN(&s, "k", 1048517, 'm'),
                 "SERVER_ERROR object too large for cache\r\n");
    CHECK_EQ_STR(cmd(&s, "get k\r\n"), "END\r\n");
    close_(&s);
}

static void testChunkedAppend(void) {
    session s;
    open_(&s, "");
    setN(&s, "big", 600000, 'a');
    CHECK_EQ_STR(cmd(&s, "append big 0 0 3\r\nxyz\r\n"), "STORED\r\n");
    CHECK_EQ_STR(cmd(&s, "prepend big 0 0 2\r\n12\r\n"), "STORED\r\n");
    const char *r = cmd(&s, "get big\r\n");
    CHECK(strncmp(r, "VALUE big 0 600005\r\n12aaa", 25) == 0);
    CHECK(strncmp(r + 20 + 600002, "xyz\r\nEND\r\n", 10) == 0);
    checkClassInvariants(&s);
    close_(&s);
}

/* ---- The protocol's replies and errors. ---- */

typedef struct exchange { const char *in, *out; } exchange;

/* Every reply string of the text protocol, as memcached 1.6.18 sent
 * them for the same input. */
static const exchange errorCases[] = {
    {"bogus\r\n", "ERROR\r\n"},
    {"x\r\n", "ERROR\r\n"},
    {"\r\n", "ERROR\r\n"},
    {"GET k\r\n", "ERROR\r\n"},
    {"get\r\n", "ERROR\r\n"},
    {"set k 0 0\r\n", "ERROR\r\n"},
    {"set k 0 0 1 noreply extra\r\n", "ERROR\r\n"},
    {"cas k 0 0 1\r\n", "ERROR\r\n"},
    {"delete a b c d\r\n", "ERROR\r\n"},
    {"set k abc 0 1\r\nx\r\n",
     "CLIENT_ERROR bad command line format\r\nERROR\r\n"},
    {"set k 0 0 -1\r\n", "CLIENT_ERROR bad command line format\r\n"},
    {"set k -1 0 1\r\nx\r\n",
     "CLIENT_ERROR bad command line format\r\nERROR\r\n"},
    {"cas k 0 0 1 abc\r\nx\r\n",
     "CLIENT_ERROR bad command line format\r\nERROR\r\n"},
    {"set k 0 0 3\r\nabcd\r\n", "CLIENT_ERROR bad data chunk\r\nERROR\r\n"},
    {"incr k abc\r\n", "CLIENT_ERROR invalid numeric delta argument\r\n"},
    {"decr k -1\r\n", "CLIENT_ERROR invalid numeric delta argument\r\n"},
    {"touch k abc\r\n", "CLIENT_ERROR invalid exptime argument\r\n"},
    {"gat abc k\r\n", "CLIENT_ERROR invalid exptime argument\r\n"},
    {"flush_all abc\r\n", "CLIENT_ERROR invalid exptime argument\r\n"},
    {"delete k 1\r\n", "CLIENT_ERROR bad command line format.  Usage: "
     "delete <key> [noreply]\r\n"},
    {"verbosity abc\r\n", "CLIENT_ERROR bad command line format\r\n"},
    {"verbosity 1\r\n", "OK\r\n"},
    {"stats detail\r\n", "CLIENT_ERROR usage: stats detail on|off|dump\r\n"},
    {"stats cachedump 1\r\n", "CLIENT_ERROR bad command line\r\n"},
    {"stats cachedump x 0\r\n", "CLIENT_ERROR bad command line format\r\n"},
    {"stats cachedump 64 0\r\n", "CLIENT_ERROR Illegal slab id\r\n"},
    {"stats bogus\r\n", "ERROR\r\n"},
    {"cache_memlimit 2\r\n", "MEMLIMIT_TOO_SMALL cannot set maxbytes to "
     "less than 8m\r\n"},
    {"cache_memlimit 2000000000\r\n", "MEMLIMIT_ADJUST_FAILED input value "
     "is megabytes not bytes\r\n"},
    {"shutdown\r\n", "ERROR: shutdown not enabled\r\n"},
    {"version\r\n", "VERSION 1.6.18\r\n"},
    {"mn\r\n", "MN\r\n"},
    {"incr nope 1\r\n", "NOT_FOUND\r\n"},
    {"set n 0 0 2\r\nab\r\nincr n 1\r\n", "STORED\r\nCLIENT_ERROR cannot "
     "increment or decrement non-numeric value\r\n"},
    {"set n 0 0 2 noreply\r\nab\r\nincr n 1 noreply\r\n", ""},
    {"set k 0 abc 1 noreply\r\nx\r\n", "ERROR\r\n"},
};

static void testEveryErrorString(void) {
    for (size_t i = 0; i < sizeof(errorCases) / sizeof(*errorCases); i++) {
        session s;
        open_(&s, "");
        CHECK_EQ_STR(cmd(&s, errorCases[i].in), errorCases[i].out);
        close_(&s);
    }
}

static void testKeyLengthLimit(void) {
    session s;
    open_(&s, "");
    char line[600], key[260];
    memset(key, 'k', 251);
    key[251] = '\0';
    snprintf(line, sizeof(line), "set %s 0 0 1\r\nx\r\n", key);
    CHECK_EQ_STR(cmd(&s, line), "CLIENT_ERROR bad command line format\r\n"
                 "ERROR\r\n");
    key[250] = '\0';
    snprintf(line, sizeof(line), "set %s 0 0 1\r\nx\r\n", key);
    CHECK_EQ_STR(cmd(&s, line), "STORED\r\n");
    /* A too-long key in a get drops the replies not yet written: not
     * those of an earlier get, which wrote them, but those after it. */
    key[250] = 'k';
    snprintf(line, sizeof(line), "get b\r\nversion\r\nget a %s\r\n", key);
    CHECK_EQ_STR(cmd(&s, line), "END\r\n"
                 "CLIENT_ERROR bad command line format\r\n");
    close_(&s);
}

static void testRefusedValueIsSwallowed(void) {
    session s;
    open_(&s, "-I 1k -o slab_chunk_max=1024");
    char buf[4096];
    int n = snprintf(buf, sizeof(buf), "set k 0 0 2000\r\n");
    for (int i = 0; i < 2000; i += 10)
        memcpy(buf + n + i, "get k\r\n\r\n\r\n", 10);
    memcpy(buf + n + 2000, "\r\nget k\r\n", 9);
    CHECK_EQ_STR(raw(&s, buf, (size_t)n + 2009),
                 "SERVER_ERROR object too large for cache\r\nEND\r\n");
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "store_too_large"), 1);
    close_(&s);
}

static void testNoreplySuppressesEveryReply(void) {
    session s;
    open_(&s, "");
    CHECK_EQ_STR(cmd(&s, "set a 0 0 1 noreply\r\n1\r\n"
                         "add a 0 0 1 noreply\r\n2\r\n"
                         "append a 0 0 1 noreply\r\n3\r\n"
                         "incr a 5 noreply\r\ntouch a 0 noreply\r\n"
                         "verbosity x noreply\r\nflush_all noreply\r\n"
                         "delete a noreply\r\n"), "");
    CHECK_EQ_STR(cmd(&s, "get a\r\n"), "END\r\n");
    close_(&s);
}

static void testQuitClosesAfterItsReplies(void) {
    session s;
    open_(&s, "");
    CHECK_EQ_STR(cmd(&s, "set a 0 0 1\r\n1\r\nquit\r\nget a\r\n"),
                 "STORED\r\n");
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.conn), 0);
    close_(&s);
}

static void testLongLineWithoutNewline(void) {
    session s;
    open_(&s, "");
    char buf[3000];
    memcpy(buf, "get ", 4);
    for (size_t i = 4; i < sizeof(buf); i += 2) memcpy(buf + i, "k ", 2);
    CHECK_EQ_STR(raw(&s, buf, sizeof(buf)), "");
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.conn), 1);
    CHECK_EQ_STR(cmd(&s, " a\r\n"), "END\r\n");
    buf[0] = 's';
    CHECK_EQ_STR(raw(&s, buf, sizeof(buf)), "");
    CHECK_EQ_INT(gkConnIsOpen(s.w, s.conn), 0);
    close_(&s);
}

static void testArithmetic(void) {
    session s;
    open_(&s, "");
    cmd(&s, "set n 0 0 3\r\n100\r\n");
    CHECK_EQ_STR(cmd(&s, "decr n 1\r\nget n\r\n"),
                 "99\r\nVALUE n 0 3\r\n99 \r\nEND\r\n");
    CHECK_EQ_STR(cmd(&s, "decr n 1000\r\n"), "0\r\n");
    CHECK_EQ_STR(cmd(&s, "incr n 18446744073709551615\r\n"),
                 "18446744073709551615\r\n");
    CHECK_EQ_STR(cmd(&s, "incr n 2\r\n"), "1\r\n");
    /* "10" does not fit in place: a new item, with the next CAS (7). */
    CHECK_EQ_STR(cmd(&s, "set m 0 0 1\r\n9\r\nincr m 1\r\ngets m\r\n"),
                 "STORED\r\n10\r\nVALUE m 0 2 7\r\n10\r\nEND\r\n");
    close_(&s);
}

static void testCasUniques(void) {
    session s;
    open_(&s, "");
    CHECK_EQ_STR(cmd(&s, "set a 0 0 1\r\n1\r\nset b 0 0 1\r\n2\r\n"
                         "gets a b\r\n"), "STORED\r\nSTORED\r\n"
                 "VALUE a 0 1 1\r\n1\r\nVALUE b 0 1 2\r\n2\r\nEND\r\n");
    CHECK_EQ_STR(cmd(&s, "cas a 0 0 1 2\r\nx\r\n"), "EXISTS\r\n");
    CHECK_EQ_STR(cmd(&s, "cas a 0 0 1 1\r\nx\r\n"), "STORED\r\n");
    CHECK_EQ_STR(cmd(&s, "cas z 0 0 1 1\r\nx\r\n"), "NOT_FOUND\r\n");
    /* flush_all takes a CAS unique too: the next store gets 5. */
    CHECK_EQ_STR(cmd(&s, "flush_all\r\nset c 0 0 1\r\n3\r\ngets a c\r\n"),
                 "OK\r\nSTORED\r\nVALUE c 0 1 5\r\n3\r\nEND\r\n");
    close_(&s);
    open_(&s, "-C");
    CHECK_EQ_STR(cmd(&s, "set a 0 0 1\r\n1\r\ngets a\r\n"
                         "cas a 0 0 1 0\r\nx\r\n"), "STORED\r\n"
                 "VALUE a 0 1 0\r\n1\r\nEND\r\nEXISTS\r\n");
    close_(&s);
}

/* ---- Time. ---- */

static void advance(session *s, uint64_t seconds) {
    gkWorldRunUntil(s->w, gkWorldNow(s->w) + seconds * 1000000000ULL);
}

static void testExpiryInVirtualTime(void) {
    session s;
    open_(&s, "");
    /* Unix time of the world: 1767225600 at virtual 0. */
    cmd(&s, "set rel 0 3 1\r\nr\r\nset abs 0 1767225610 1\r\na\r\n"
            "set neg 0 -1 1\r\nn\r\nset old 0 1000000000 1\r\no\r\n");
    CHECK_EQ_STR(cmd(&s, "get neg old\r\n"), "END\r\n");
    advance(&s, 2);
    CHECK_EQ_STR(cmd(&s, "get rel\r\n"), "VALUE rel 0 1\r\nr\r\nEND\r\n");
    advance(&s, 2);
    CHECK_EQ_STR(cmd(&s, "get rel abs\r\n"), "VALUE abs 0 1\r\na\r\nEND\r\n");
    advance(&s, 7);
    CHECK_EQ_STR(cmd(&s, "get abs\r\n"), "END\r\n");
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "get_expired"), 4);
    CHECK_EQ_INT(statOf(&s, "uptime"), 13);
    CHECK_EQ_INT(statOf(&s, "time"), 1767225611);
    close_(&s);
}

static void testTouchAndGatMoveExpiry(void) {
    session s;
    open_(&s, "");
    cmd(&s, "set a 0 2 1\r\n1\r\nset b 0 2 1\r\n2\r\n");
    CHECK_EQ_STR(cmd(&s, "touch a 100\r\n"), "TOUCHED\r\n");
    CHECK_EQ_STR(cmd(&s, "gat 100 b\r\n"), "VALUE b 0 1\r\n2\r\nEND\r\n");
    advance(&s, 5);
    CHECK_EQ_STR(cmd(&s, "get a b\r\n"),
                 "VALUE a 0 1\r\n1\r\nVALUE b 0 1\r\n2\r\nEND\r\n");
    CHECK_EQ_STR(cmd(&s, "gats -1 a\r\n"), "VALUE a 0 1 1\r\n1\r\nEND\r\n");
    CHECK_EQ_STR(cmd(&s, "get a\r\n"), "END\r\n");
    close_(&s);
}

static void testDelayedFlush(void) {
    session s;
    open_(&s, "");
    cmd(&s, "set a 0 0 1\r\n1\r\n");
    CHECK_EQ_STR(cmd(&s, "flush_all 5\r\nget a\r\n"),
                 "OK\r\nVALUE a 0 1\r\n1\r\nEND\r\n");
    advance(&s, 6);
    CHECK_EQ_STR(cmd(&s, "get a\r\n"), "END\r\n");
    cmd(&s, "set b 0 0 1\r\n2\r\n");
    CHECK_EQ_STR(cmd(&s, "get b\r\n"), "VALUE b 0 1\r\n2\r\nEND\r\n");
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "get_flushed"), 1);
    close_(&s);
}

/* ---- Options. ---- */

static const exchange badOptions[] = {
    {"-f 1", "Factor must be greater than 1"},
    {"-n 0", "Chunk size must be greater than 0"},
    {"-I 512", "Item max size cannot be less than 1024 bytes."},
    {"-I 2g", "Item max size cannot be less than 1024 bytes."},
    {"-m 2 -I 2m", "Cannot set item size limit higher than 1/2 of memory "
     "max."},
    {"-I 128k", "slab_chunk_max (bytes: 524288) cannot be larger than -I "
     "(item_size_max 131072)"},
    {"-o slab_chunk_max=1000", "-I (item_size_max: 1048576) must be evenly "
     "divisible by slab_chunk_max (bytes: 1000)"},
    {"-I 3m -m 64 -o slab_chunk_max=393216", "slab_chunk_max (bytes: "
     "393216) must divide evenly into 1048576 (slab_page_size)"},
    {"-o bogus,slab_chunk_max=1", "Illegal suboption \"bogus\""},
    {"-o slab_sizes=100-104", "slab size 104 must be at least 8 bytes "
     "larger than previous class"},
    {"-x", "memcached: invalid option -- 'x'\nIllegal argument \"?\""},
    {"-m", "memcached: option requires an argument -- 'm'\n"
     "Illegal argument \"?\""},
    {"--foo", "memcached: unrecognized option '--foo'\n"
     "Illegal argument \"?\""},
    {"-o temporary_ttl=10", "temporary_ttl requires lru_maintainer to be "
     "enabled"},
};

static void testBadOptionsGiveMemcachedsMessages(void) {
    for (size_t i = 0; i < sizeof(badOptions) / sizeof(*badOptions); i++) {
        session s;
        CHECK_EQ_INT(open_(&s, badOptions[i].in), GK_EINVAL);
        CHECK_EQ_STR(gkWorldLastError(s.w), badOptions[i].out);
        close_(&s);
    }
}

static void testOptionsReachStatsSettings(void) {
    session s;
    CHECK_EQ_INT(open_(&s, "-vv -m 128 --slab-growth-factor=1.5 -n64 -C -M "
                       "-c 100 -t 2 -o slab_chunk_max=262144,hashpower=12"),
                 GK_OK);
    cmd(&s, "stats settings\r\n");
    CHECK_EQ_INT(statOf(&s, "maxbytes"), 128 << 20);
    CHECK_EQ_INT(statOf(&s, "verbosity"), 2);
    CHECK(strstr(s.out, "STAT growth_factor 1.50\r\n") != NULL);
    CHECK_EQ_INT(statOf(&s, "chunk_size"), 64);
    CHECK(strstr(s.out, "STAT cas_enabled no\r\n") != NULL);
    CHECK(strstr(s.out, "STAT evictions off\r\n") != NULL);
    CHECK_EQ_INT(statOf(&s, "maxconns"), 100);
    CHECK_EQ_INT(statOf(&s, "num_threads"), 2);
    CHECK_EQ_INT(statOf(&s, "slab_chunk_max"), 262144);
    CHECK(strstr(s.out, "STAT lru_segmented no\r\n") != NULL);
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "hash_power_level"), 12);
    CHECK_EQ_INT(statOf(&s, "limit_maxbytes"), 128 << 20);
    close_(&s);
}

/* ---- Trace, scheduling and determinism. ---- */

static void testTraceRecordsPagesStoresAndFrees(void) {
    session s;
    open_(&s, "");
    gkTraceEnable(s.w, (1u << GK_TR_SLAB_PAGE) | (1u << GK_TR_ITEM_STORE) |
                       (1u << GK_TR_ITEM_FREE));
    cmd(&s, "set a 0 0 1\r\n1\r\nset a 0 0 1\r\n2\r\n");
    gkTraceRecord r[8];
    size_t n = gkTraceRead(s.w, 0, r, 8);
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(r[0].type, GK_TR_SLAB_PAGE);
    CHECK_EQ_INT(r[0].a, 1);
    CHECK_EQ_INT(r[0].c, 10922);
    CHECK_EQ_INT(r[0].d, 1 << 20);
    CHECK_EQ_INT(r[1].type, GK_TR_ITEM_STORE);
    CHECK_EQ_INT(r[1].d, 61);
    /* The new value is linked before the old one's chunk is freed. */
    CHECK_EQ_INT(r[2].type, GK_TR_ITEM_STORE);
    CHECK_EQ_INT(r[2].c, 10920);
    CHECK_EQ_INT(r[3].type, GK_TR_ITEM_FREE);
    CHECK_EQ_INT(r[3].c, 10921);
    close_(&s);
}

static void testCommandsPerEventAreLimited(void) {
    session s;
    open_(&s, "-R 5");
    char buf[256] = "";
    for (int i = 0; i < 12; i++) strcat(buf, "get a\r\n");
    const char *r = cmd(&s, buf);
    CHECK_EQ_INT(strlen(r), 12 * 5);
    cmd(&s, "stats\r\n");
    CHECK_EQ_INT(statOf(&s, "conn_yields"), 2);
    close_(&s);
}

/* Runs a fixed script and returns a copy of `stats slabs` + `stats
 * items`. */
static char *runScript(const char *opts) {
    session s;
    open_(&s, opts);
    char key[32];
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof(key), "key:%d", i * 7919 % 1000);
        setN(&s, key, (size_t)(i * 37 % 5000), 'v');
        if (i % 3 == 0) cmd(&s, "delete key:0\r\n");
    }
    cmd(&s, "stats slabs\r\nstats items\r\n");
    char *copy = strdup(s.out);
    close_(&s);
    return copy;
}

static void testSameScriptSameSlabs(void) {
    char *a = runScript("-m 2"), *b = runScript("-m 2");
    CHECK_EQ_STR(a, b);
    CHECK(strstr(a, "STAT active_slabs") != NULL);
    free(a);
    free(b);
}

int main(void) {
    RUN("the default options draw memcached's 39 classes, 96 to 524288 "
        "bytes", testDefaultLadder);
    RUN("other -f, -n, -I, slab_chunk_max and slab_sizes draw the ladders "
        "memcached -vv prints", testOddLadders);
    RUN("class sizes grow by a truncating multiply and stop at 63 classes",
        testTruncatingMultiply);
    RUN("the what-if layout draws a ladder without a world",
        testLayoutWithoutAWorld);
    RUN("a class's first page comes with its first store, and chunks are "
        "handed out from the end of the page", testChunksFromTheEndOfThePage);
    RUN("a freed chunk is the next one handed out",
        testFreedChunkIsReusedFirst);
    RUN("a class's page list starts at 16 and doubles",
        testSlabListGrowsFromSixteenByDoubling);
    RUN("every class gets its first page even past -m",
        testEveryClassGetsItsFirstPagePastTheLimit);
    RUN("a class that cannot get a page evicts from its LRU tail",
        testEvictionFromTheTailOfTheClass);
    RUN("with -M a full class refuses with SERVER_ERROR out of memory",
        testNoEvictionsMeansOutOfMemory);
    RUN("an item's size is 48 + key + 1 + flags + value + 2, + 8 with CAS",
        testItemSize);
    RUN("an item over slab_chunk_max is stored in chunks of several classes",
        testChunkedItem);
    RUN("append and prepend to a chunked item keep every byte",
        testChunkedAppend);
    RUN("every error reply is memcached's string", testEveryErrorString);
    RUN("keys of 251 bytes are refused, and a get with one drops its replies",
        testKeyLengthLimit);
    RUN("a value refused as too large is swallowed, not run as commands",
        testRefusedValueIsSwallowed);
    RUN("noreply suppresses replies, errors included",
        testNoreplySuppressesEveryReply);
    RUN("quit closes the connection after the replies before it",
        testQuitClosesAfterItsReplies);
    RUN("a line of 2 KB without its newline closes the connection unless it "
        "is a get", testLongLineWithoutNewline);
    RUN("incr and decr wrap, stop at 0 and pad in place with spaces",
        testArithmetic);
    RUN("CAS uniques count up per store and flush_all takes one",
        testCasUniques);
    RUN("relative, absolute and negative expiry follow virtual time",
        testExpiryInVirtualTime);
    RUN("touch and gat move an item's expiry", testTouchAndGatMoveExpiry);
    RUN("flush_all with a delay removes items when its time comes",
        testDelayedFlush);
    RUN("options memcached refuses give memcached's messages",
        testBadOptionsGiveMemcachedsMessages);
    RUN("options show up in stats settings as memcached shows them",
        testOptionsReachStatsSettings);
    RUN("the trace records page allocations, stores and frees",
        testTraceRecordsPagesStoresAndFrees);
    RUN("a read event runs at most -R commands before yielding",
        testCommandsPerEventAreLimited);
    RUN("the same script and options give the same slabs",
        testSameScriptSameSlabs);
    return gkTestReport();
}
