/* Tests of the memcached slab labs by the shape of their figures: what the
 * lessons claim about classes, placement and calcification must be what
 * the engine measures. Also the lab registry the CLI and the app list. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

/* Runs begin with their "name" field; items and rows have none. */
#define RUN_MARK "{\"name\":"

/* The start of the run-th run (0-based) of a lab's JSON, or NULL. */
static const char *run_(const char *json, int run) {
    return gktLabRun(json, run, RUN_MARK);
}

/* The number after "key": within [from, the next run), or -1e300 if
 * absent. */
static double numIn(const char *from, const char *key) {
    return gktLabNum(from, key, RUN_MARK);
}

static double num(const char *json, const char *key, int run) {
    return numIn(run_(json, run), key);
}

/* A field of the row {"id":id,...} (a class) of run `run`; -1e300 if
 * absent. */
static double row(const char *json, int run, int id, const char *key) {
    char want[32], one[1024];
    const char *p = run_(json, run);
    if (!p) return -1e300;
    const char *next = strstr(p + 1, "{\"name\":");
    snprintf(want, sizeof(want), "{\"id\":%d,", id);
    const char *q = strstr(p, want);
    if (!q || (next && q > next)) return -1e300;
    const char *end = strchr(q, '}');
    size_t len = (size_t)(end - q) + 1;
    if (len >= sizeof(one)) return -1e300;
    memcpy(one, q, len);
    one[len] = '\0';
    return numIn(one, key);
}

/* The n-th (0-based) item object of item-placement: from its start. */
static const char *item(const char *json, int n) {
    const char *p = strstr(json, "\"items\":[");
    for (int i = 0; i <= n && p; i++) p = strstr(p + 1, "{\"key_bytes\":");
    return p;
}

/* A field of an item, before the next item; -1e300 if absent. */
static double itemNum(const char *json, int n, const char *key) {
    char want[64];
    const char *p = item(json, n), *next = item(json, n + 1);
    if (!p) return -1e300;
    snprintf(want, sizeof(want), "\"%s\":", key);
    const char *q = strstr(p, want);
    if (!q || (next && q > next)) return -1e300;
    q += strlen(want);
    if (!strncmp(q, "true", 4)) return 1;
    if (!strncmp(q, "false", 5)) return 0;
    return strtod(q, NULL);
}

/* Whether item n took a chunk of class cls. */
static int itemTook(const char *json, int n, int cls) {
    char want[48];
    const char *p = item(json, n), *next = item(json, n + 1);
    snprintf(want, sizeof(want), "{\"class\":%d,\"chunk_size\":", cls);
    const char *q = p ? strstr(p, want) : NULL;
    return q && (!next || q < next);
}

static void testSlabClasses(void) {
    char *j = gktLab("slab-classes");
    CHECK_EQ_INT(num(j, "classes", 0), 39);
    CHECK_EQ_INT(row(j, 0, 1, "chunk_size"), 96);
    CHECK_EQ_INT(row(j, 0, 1, "perslab"), 10922);
    CHECK_EQ_INT(row(j, 0, 1, "page_tail_bytes"), 64);
    CHECK_EQ_INT(row(j, 0, 1, "smallest_item"), 60);
    CHECK_EQ_INT(row(j, 0, 31, "chunk_size"), 82792);
    CHECK_EQ_INT(row(j, 0, 38, "page_tail_bytes"), 258896);
    CHECK_EQ_INT(row(j, 0, 39, "chunk_size"), 524288);
    CHECK_EQ_INT(row(j, 0, 39, "perslab"), 2);
    CHECK(row(j, 0, 40, "chunk_size") < -1e299);
    /* Above class 1, the smallest item in a class is one byte more than
     * the class below holds, so factor 1.25 wastes at most about 20%. */
    for (int id = 2; id <= 39; id++) {
        double size = row(j, 0, id, "chunk_size");
        double below = row(j, 0, id - 1, "chunk_size");
        CHECK_EQ_INT(row(j, 0, id, "smallest_item"), below + 1);
        CHECK_EQ_INT(row(j, 0, id, "max_waste_bytes"), size - below - 1);
        CHECK_EQ_INT(row(j, 0, id, "perslab"), (int)(1048576 / size));
        if (id < 39) CHECK(row(j, 0, id, "max_waste_pct") <= 21.0);
    }
    /* A factor of 2 draws fewer classes that waste more. */
    CHECK(num(j, "classes", 1) < 20);
    CHECK_EQ_INT(row(j, 1, 2, "chunk_size"), 192);
    CHECK(num(j, "worst_waste_pct", 1) > 45);
    CHECK(num(j, "worst_waste_pct", 0) < num(j, "worst_waste_pct", 1));
    free(j);
}

static void testItemPlacement(void) {
    char *j = gktLab("item-placement");
    /* set foo 0 0 3: 48 + 4 + 5 + 8 = 65 bytes in a 96-byte chunk taken
     * from the end of class 1's first page. */
    CHECK_EQ_INT(itemNum(j, 0, "ntotal"), 65);
    CHECK_EQ_INT(itemNum(j, 0, "class"), 1);
    CHECK_EQ_INT(itemNum(j, 0, "waste"), 31);
    CHECK_EQ_INT(itemNum(j, 0, "bytes_used"), 65);
    CHECK_EQ_INT(itemNum(j, 0, "chunk"), 10921);
    CHECK(itemTook(j, 0, 1));
    /* Flags take 4 bytes: set k2 5 0 100 is 165 bytes, class 4. */
    CHECK_EQ_INT(itemNum(j, 1, "ntotal"), 165);
    CHECK_EQ_INT(itemNum(j, 1, "class"), 4);
    /* Every stored item's header chunk holds exactly its ntotal, unless
     * it is chunked. */
    for (int n = 0; n < 6; n++) {
        CHECK_EQ_INT(itemNum(j, n, "stored"), 1);
        CHECK_EQ_INT(itemNum(j, n, "bytes_used"), itemNum(j, n, "ntotal"));
        CHECK_EQ_INT(itemNum(j, n, "lru_class"), itemNum(j, n, "class"));
        CHECK(itemNum(j, n, "waste") >= 0);
    }
    /* 600,000 bytes: a 108-byte header in class 2, a full chunk of class
     * 39 and the rest in class 31; the item sits in class 39's LRU. */
    CHECK_EQ_INT(itemNum(j, 6, "ntotal"), 600062);
    CHECK_EQ_INT(itemNum(j, 6, "lru_class"), 39);
    CHECK_EQ_INT(itemNum(j, 6, "bytes_used"), 108);
    CHECK(itemTook(j, 6, 2) && itemTook(j, 6, 31) && itemTook(j, 6, 39));
    CHECK_EQ_INT(itemNum(j, 6, "allocated"), 120 + 82792 + 524288);
    /* 1,048,516 bytes is the most a 1-byte key can hold; one more is
     * refused. */
    CHECK_EQ_INT(itemNum(j, 7, "ntotal"), 1048576);
    CHECK_EQ_INT(itemNum(j, 7, "stored"), 1);
    CHECK_EQ_INT(itemNum(j, 8, "stored"), 0);
    CHECK_EQ_INT(itemNum(j, 8, "class"), 0);
    CHECK(strstr(item(j, 8), "SERVER_ERROR object too large for cache"));
    free(j);
}

static void testSlabCalcification(void) {
    char *j = gktLab("slab-calcification");
    int target = (int)num(j, "target_class", 0);
    CHECK(target > 1);
    CHECK(num(j, "target_evicted", 0) > 0);
    CHECK_EQ_INT(row(j, 0, target, "evicted"), num(j, "target_evicted", 0));
    CHECK_EQ_INT(row(j, 0, target, "free_chunks"), 0);
    /* An earlier class holds pages whose chunks are all free. */
    int idle = 0;
    for (int id = 1; id < target; id++)
        if (row(j, 0, id, "pages") > 0 && row(j, 0, id, "free_chunks") > 0 &&
            row(j, 0, id, "items") == 0)
            idle++;
    CHECK(idle > 0);
    CHECK(num(j, "idle_bytes", 0) > 4 << 20);
    CHECK(num(j, "idle_pct_of_malloced", 0) > 50);
    CHECK_EQ_INT(num(j, "out_of_memory", 0), 0);
    /* The same large sets on a fresh node keep several times the items. */
    CHECK(num(j, "curr_items", 1) > 3 * num(j, "curr_items", 0));
    CHECK(num(j, "idle_pct_of_malloced", 1) < 20);
    free(j);
}

static void testLabRegistry(void) {
    static const char *mc[] = { "slab-classes", "item-placement",
                                "slab-calcification" };
    int found = 0, i;
    for (i = 0; gkLabName(i); i++) {
        CHECK(gkLabTopic(i) != NULL);
        for (int k = 0; k < 3; k++)
            if (!strcmp(gkLabName(i), mc[k])) {
                CHECK_EQ_STR(gkLabTopic(i), "memcached");
                found++;
            }
    }
    CHECK_EQ_INT(found, 3);
    CHECK(gkLabTopic(i) == NULL);
    CHECK(gkLabTopic(-1) == NULL);
    CHECK_EQ_STR(gkLabTopic(0), "event-loop");
}

static void testSameSeedSameFigures(void) {
    char *a = gktLab("slab-calcification");
    char *b = gktLab("slab-calcification");
    CHECK_EQ_STR(a, b);
    free(a);
    free(b);
}

int main(void) {
    RUN("slab-classes draws memcached's 39 default classes and the waste of "
        "each", testSlabClasses);
    RUN("item-placement puts items in the classes memcached would, a large "
        "one over three", testItemPlacement);
    RUN("slab-calcification evicts in the large class while small classes "
        "hold free chunks", testSlabCalcification);
    RUN("every lab has a topic and the slab labs are listed",
        testLabRegistry);
    RUN("a lab run twice with one seed gives the same figures",
        testSameSeedSameFigures);
    return gkTestReport();
}
