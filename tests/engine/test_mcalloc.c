/* Invariants of the memcached-style node's allocator, checked by walking
 * its memory after varied workloads (fills of every distribution, large
 * chunked items, evictions, deletes, refusals under -M):
 *   - every chunk of every page is either on its class's free list or part
 *     of exactly one linked item, never both and never neither;
 *   - the free lists and LRU lists are well formed and their counts match
 *     sl_curr, the LRU sizes and the bytes memcached reports;
 *   - pages add up to total_malloced, and only a class's first page is
 *     ever taken past -m;
 *   - each LRU is ordered by last access, and eviction takes its tail. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"
#include "world.h"
#include "mc_server.h"

#define FREE 1
#define USED 2

typedef struct session {
    gkWorld *w;
    int node, conn;
    char out[4096];
} session;

static void open_(session *s, const char *opts) {
    CHECK_EQ_INT(gktMemcachedOpen(opts, &s->w, &s->node, &s->conn), GK_OK);
}

static void close_(session *s) { gkWorldRelease(s->w); }

static const char *cmd(session *s, const char *text) {
    return gktExchange(s->w, s->conn, text, strlen(text), s->out,
                       sizeof(s->out));
}

/* ---- The audit. ---- */

/* Chunk states of every page of every class: marks[cls][page*perslab+x]. */
typedef struct audit {
    mcCache *k;
    uint8_t *marks[MC_MAX_CLASSES];
    uint64_t used[MC_MAX_CLASSES];
} audit;

/* Marks the chunk at ptr in class cls as `state`. Fails the test if it is
 * not the start of a chunk of that class, or was already marked. */
static void mark(audit *a, const void *ptr, unsigned cls, int state) {
    const mcSlabs *s = &a->k->slabs;
    uint32_t page, chunk;
    int found = slabsLocate(s, ptr, cls, &page, &chunk) == GK_OK;
    CHECK(found);
    if (!found) return;
    const char *base = s->cls[cls].slab_list[page];
    CHECK_EQ_INT(((const char *)ptr - base) % s->cls[cls].size, 0);
    uint8_t *m = &a->marks[cls][(size_t)page * s->cls[cls].perslab + chunk];
    CHECK_EQ_INT(*m, 0);
    *m = (uint8_t)state;
    if (state == USED) a->used[cls]++;
}

/* Walks class id's free list: SLABBED chunks of this class, linked both
 * ways, as many as sl_curr. */
static void walkFree(audit *a, unsigned id) {
    const mcSlabClass *p = &a->k->slabs.cls[id];
    uint32_t n = 0;
    mcItem *prev = NULL;
    for (mcItem *it = p->slots; it && n <= p->sl_curr; it = it->next, n++) {
        CHECK(it->it_flags & MC_ITEM_SLABBED);
        CHECK_EQ_INT(it->slabs_clsid, id);
        CHECK(it->prev == prev);
        mark(a, it, id, FREE);
        prev = it;
    }
    CHECK_EQ_INT(n, p->sl_curr);
}

/* Marks a linked item's chunks: its header, and a large item's pieces. */
static void markItem(audit *a, mcItem *it) {
    mark(a, it, itemChunkClass(it), USED);
    if (!(it->it_flags & MC_ITEM_CHUNKED)) return;
    mcChunk *prev = NULL;
    for (mcChunk *ch = itemFirstChunk(it); ch; ch = ch->next) {
        CHECK(ch->it_flags & MC_ITEM_CHUNK);
        CHECK(!(ch->it_flags & MC_ITEM_SLABBED));
        CHECK(ch->head == it);
        CHECK(ch->prev == prev);
        CHECK(ch->used <= ch->size);
        mark(a, ch, ch->slabs_clsid, USED);
        prev = ch;
    }
}

/* Walks class id's LRU from head to tail: linked, not free, of this
 * class, last access never newer than the item before; its count and
 * bytes are what the class reports. */
static void walkLru(audit *a, unsigned id) {
    mcCache *k = a->k;
    uint32_t n = 0;
    uint64_t bytes = 0;
    mcItem *prev = NULL;
    for (mcItem *it = k->heads[id]; it && n <= k->sizes[id];
         it = it->next, n++) {
        CHECK(it->it_flags & MC_ITEM_LINKED);
        CHECK(!(it->it_flags & MC_ITEM_SLABBED));
        CHECK_EQ_INT(it->slabs_clsid, id);
        CHECK(it->prev == prev);
        if (prev) CHECK(it->time <= prev->time);
        bytes += itemNtotal(it);
        markItem(a, it);
        prev = it;
    }
    CHECK(k->tails[id] == prev);
    CHECK_EQ_INT(n, k->sizes[id]);
    CHECK_EQ_INT(bytes, k->sizes_bytes[id]);
}

/* Every invariant of the node's memory. Call it when no connection is
 * in the middle of reading a value. */
static void auditNode(session *s) {
    audit a;
    memset(&a, 0, sizeof(a));
    a.k = &mcServerOf(s->w, s->node)->cache;
    const mcSlabs *sl = &a.k->slabs;
    uint64_t malloced = 0, later_pages = 0, items = 0;
    for (int id = 1; id <= sl->power_largest; id++) {
        const mcSlabClass *p = &sl->cls[id];
        a.marks[id] = calloc((size_t)p->slabs * p->perslab + 1, 1);
        malloced += (uint64_t)p->slabs * slabsPageLen(sl, (unsigned)id);
        if (p->slabs > 1)
            later_pages += (uint64_t)(p->slabs - 1) *
                           slabsPageLen(sl, (unsigned)id);
        CHECK(p->slabs <= p->list_size);
    }
    CHECK_EQ_INT(malloced, sl->mem_malloced);
    /* A page past a class's first is taken only within the limit. */
    CHECK(later_pages <= sl->mem_limit);
    for (int id = 1; id <= sl->power_largest; id++) walkFree(&a, (unsigned)id);
    for (int id = 1; id <= sl->power_largest; id++) {
        walkLru(&a, (unsigned)id);
        items += a.k->sizes[id];
    }
    CHECK_EQ_INT(items, a.k->curr_items);
    gkMcClass rows[MC_MAX_CLASSES];
    uint32_t n = 0;
    gkMemcachedClasses(s->w, s->node, rows, MC_MAX_CLASSES, &n, NULL);
    for (int id = 1; id <= sl->power_largest; id++) {
        const mcSlabClass *p = &sl->cls[id];
        size_t chunks = (size_t)p->slabs * p->perslab, unmarked = 0;
        for (size_t x = 0; x < chunks; x++)
            if (!a.marks[id][x]) unmarked++;
        CHECK_EQ_INT(unmarked, 0);
        CHECK_EQ_INT(rows[id - 1].used_chunks, a.used[id]);
        free(a.marks[id]);
    }
}

/* ---- Workloads. ---- */

static gkMcFillSpec spec_(uint32_t dist, uint32_t a, uint32_t b,
                          uint64_t keyspace, uint64_t total) {
    return gktFillSpec(dist, a, b, keyspace, total, 6, 11);
}

static void fill(session *s, const gkMcFillSpec *sp, gkMcFillResult *r) {
    CHECK_EQ_INT(gktFill(s->w, s->node, sp, r), GK_OK);
}

static void testEveryChunkIsFreeOrInOneItem(void) {
    static const struct {
        const char *opts;
        uint32_t dist, a, b;
        uint64_t keyspace, total;
    } runs[] = {
        { "-m 8", GK_MC_DIST_UNIFORM, 0, 700000, 400, 2000 }, /* chunked */
        { "-m 4", GK_MC_DIST_NORMAL, 3000, 1500, 3000, 6000 },
        { "-m 2", GK_MC_DIST_SHIFT, 50, 2000, 3000, 6000 },
        { "-m 4 -M", GK_MC_DIST_UNIFORM, 100, 300000, 400, 2000 },
        { "-m 8 -f 2 -n 16", GK_MC_DIST_UNIFORM, 0, 20000, 2000, 4000 },
        { "-m 8 -I 2m -o slab_chunk_max=65536", GK_MC_DIST_UNIFORM, 0,
          1500000, 100, 600 },
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        session s;
        gkMcFillResult r;
        open_(&s, runs[i].opts);
        gkMcFillSpec sp = spec_(runs[i].dist, runs[i].a, runs[i].b,
                                runs[i].keyspace, runs[i].total);
        fill(&s, &sp, &r);
        CHECK(r.evictions + r.out_of_memory > 0);
        auditNode(&s);
        /* Deletes free chunks back into the lists. */
        char line[64];
        int deleted = 0;
        for (int k = 0; k < 400; k += 3) {
            snprintf(line, sizeof(line), "delete %06d\r\n", k);
            if (!strcmp(cmd(&s, line), "DELETED\r\n")) deleted++;
        }
        CHECK(deleted > 0);
        auditNode(&s);
        close_(&s);
    }
}

/* 100,000-byte values land in class 32, ten to a page; -m 2 gives that
 * class its first page and one more, so 20 fit. */
static void setBig(session *s, const char *key) {
    static char buf[100100];
    int h = snprintf(buf, sizeof(buf), "set %s 0 0 100000\r\n", key);
    memset(buf + h, 'v', 100000);
    memcpy(buf + h + 100000, "\r\n", 2);
    gkConnSend(s->w, s->conn, buf, (size_t)h + 100002);
    gkWorldRunUntilIdle(s->w);
    size_t n = gkConnRecv(s->w, s->conn, s->out, sizeof(s->out) - 1);
    s->out[n] = '\0';
    CHECK_EQ_STR(s->out, "STORED\r\n");
}

static int present(session *s, const char *key) {
    char line[64];
    snprintf(line, sizeof(line), "get %s\r\n", key);
    gkConnSend(s->w, s->conn, line, strlen(line));
    gkWorldRunUntilIdle(s->w);
    static char big[200000];
    size_t n = gkConnRecv(s->w, s->conn, big, sizeof(big) - 1);
    big[n] = '\0';
    return strncmp(big, "VALUE", 5) == 0;
}

/* Runs the world for `seconds` of virtual time. */
static void advance(session *s, uint64_t seconds) {
    gkWorldRunUntil(s->w, gkWorldNow(s->w) + seconds * 1000000000ULL);
}

static void testEvictionFollowsLastAccess(void) {
    session s;
    char key[16];
    open_(&s, "-m 2");
    for (int i = 1; i <= 20; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        setBig(&s, key);
    }
    /* A hit less than 60 s after the item was stored leaves it where it
     * is (ITEM_UPDATE_INTERVAL): k1 is still the tail and goes first. */
    CHECK(present(&s, "k1"));
    setBig(&s, "k21");
    CHECK(!present(&s, "k1"));
    /* A minute later a hit moves k3 to the head: k2 goes, then k4, and
     * k3 stays. */
    advance(&s, 61);
    CHECK(present(&s, "k3"));
    setBig(&s, "k22");
    CHECK(!present(&s, "k2"));
    CHECK(present(&s, "k3"));
    setBig(&s, "k23");
    CHECK(!present(&s, "k4"));
    CHECK(present(&s, "k3"));
    auditNode(&s);
    mcCache *k = &mcServerOf(s.w, s.node)->cache;
    CHECK_EQ_INT(k->itemstats[32].evicted, 3);
    /* From the tail: k5 .. k21 in the order they were stored, then k3
     * (moved by its hit), then k22 and k23. */
    char order[256] = "", want[256] = "";
    for (mcItem *it = k->tails[32]; it; it = it->prev) {
        strncat(order, itemKey(it), it->nkey);
        strcat(order, " ");
    }
    for (int i = 5; i <= 21; i++) {
        snprintf(key, sizeof(key), "k%d ", i);
        strcat(want, key);
    }
    strcat(want, "k3 k22 k23 ");
    CHECK_EQ_STR(order, want);
    close_(&s);
}

int main(void) {
    RUN("after fills, deletes, evictions and refusals every chunk is free "
        "or in exactly one item, and the counts add up",
        testEveryChunkIsFreeOrInOneItem);
    RUN("eviction takes the least recently used item, and a hit moves an "
        "item at most once a minute", testEvictionFollowsLastAccess);
    return gkTestReport();
}
