/* test_inspect.c -- the key inspector's reading of keys: a string of
 * each encoding, a list's quicklist and its listpack entries byte for
 * byte, a zset crossing zset-max-listpack-entries into a skiplist whose
 * levels and spans agree with the order of its nodes, a set growing from
 * a 2-byte intset to a hashtable, and a reading cut short by its limits. */
#include "gktest.h"
#include "aofkit.h"

#define MAXP 4096
static gkKeyInfo info;
static gkKeyPart parts[MAXP];
static uint8_t bytes[1 << 16];

static int inspect(node *n, const char *key, uint32_t max_parts,
                   uint32_t max_bytes) {
    return gkKeyInspect(n->w, n->srv, 0, key, strlen(key), &info, parts,
                        max_parts, bytes, max_bytes);
}

static int count(int kind) {
    int k = 0;
    for (uint32_t i = 0; i < info.nparts; i++) k += parts[i].kind == kind;
    return k;
}

static void testStrings(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    nodeCmd(&n, "SET n 12345");
    nodeCmd(&n, "SET s hello");
    nodeCmd(&n, "SET r 0123456789012345678901234567890123456789012345");
    CHECK_EQ_INT(inspect(&n, "n", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "int");
    CHECK_EQ_INT(info.nparts, 1);
    CHECK_EQ_INT(parts[0].kind, GK_PART_STRING);
    CHECK_EQ_INT(parts[0].value, 12345);
    CHECK_EQ_INT(inspect(&n, "s", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "embstr");
    CHECK_EQ_INT(info.length, 5);
    CHECK(parts[0].offset != GK_PART_NOT_COPIED &&
          !memcmp(bytes + parts[0].offset, "hello", 5));
    CHECK_EQ_INT(inspect(&n, "r", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "raw");
    /* MEMORY USAGE says the same. */
    char want[64];
    snprintf(want, sizeof(want), ":%llu\r\n",
             (unsigned long long)info.memory_usage);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY USAGE r SAMPLES 0"), want);
    CHECK_EQ_INT(inspect(&n, "nosuchkey", MAXP, sizeof(bytes)),
                 GK_ENOTFOUND);
    nodeClose(&n);
}

static void testListEntries(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    nodeCmd(&n, "RPUSH l a 1 1000 -5 100000");
    CHECK_EQ_INT(inspect(&n, "l", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "quicklist");
    CHECK_EQ_INT(info.length, 5);
    CHECK_EQ_INT(info.limit_entries, -2);
    CHECK_EQ_INT(parts[0].kind, GK_PART_QUICKLIST);
    CHECK_EQ_INT(parts[0].a, 1);
    CHECK_EQ_INT(parts[1].kind, GK_PART_QL_NODE);
    CHECK_EQ_INT(parts[1].parent, 0);
    CHECK_EQ_INT(parts[2].kind, GK_PART_LISTPACK);
    CHECK_EQ_INT(parts[2].parent, 1);
    CHECK_EQ_INT(parts[2].value, 5);
    const uint8_t *lp = bytes + parts[2].offset;
    /* The header: total bytes, then the count, little-endian. */
    CHECK_EQ_INT(lp[0] | lp[1] << 8 | lp[2] << 16, parts[2].size);
    CHECK_EQ_INT(lp[4], 5);
    CHECK_EQ_INT(lp[parts[2].size - 1], 0xFF);
    /* Each entry: its encoding, data and backlen, at its place. */
    static const struct { int kind, enc, data, size; long long value; }
        want[] = {
            { GK_LP_STR6, 1, 1, 3, 1 },        /* a: 0x81 'a' 0x02 */
            { GK_LP_UINT7, 1, 0, 2, 1 },       /* 1: 0x01 0x01 */
            { GK_LP_INT13, 2, 0, 3, 1000 },
            { GK_LP_INT13, 2, 0, 3, -5 },
            { GK_LP_INT24, 1, 3, 5, 100000 },
        };
    CHECK_EQ_INT(count(GK_PART_LP_ENTRY), 5);
    uint32_t at = 6;
    for (int i = 0; i < 5; i++) {
        gkKeyPart *e = &parts[3 + i];
        CHECK_EQ_INT(e->kind, GK_PART_LP_ENTRY);
        CHECK_EQ_INT(e->parent, 2);
        CHECK_EQ_INT(e->a, want[i].kind);
        CHECK_EQ_INT(e->b, want[i].enc);
        CHECK_EQ_INT(e->c, want[i].data);
        CHECK_EQ_INT(e->size, want[i].size);
        CHECK_EQ_INT(e->value, want[i].value);
        CHECK_EQ_INT(e->offset, parts[2].offset + at);
        /* The backlen, the entry's last byte here, is its length
         * without the backlen. */
        CHECK_EQ_INT(bytes[e->offset + e->size - 1], e->size - 1);
        at += e->size;
    }
    CHECK_EQ_INT(bytes[parts[3].offset], 0x81);
    CHECK_EQ_INT(bytes[parts[3].offset + 1], 'a');
    CHECK_EQ_INT(at + 1, parts[2].size);
    nodeClose(&n);
}

/* Each level of each node points where the spans say: the node at rank
 * r + span is linked at that level, and nothing in between is as high. */
static void checkSkiplist(int length) {
    int first = -1;
    for (uint32_t i = 0; i < info.nparts && first < 0; i++)
        if (parts[i].kind == GK_PART_SL_NODE) first = (int)i;
    CHECK(first > 0);
    int height[1024] = { 0 };
    long long ranks = 0;
    for (uint32_t i = first; i < info.nparts; i++) {
        if (parts[i].kind != GK_PART_SL_NODE) continue;
        ranks++;
        CHECK_EQ_INT(parts[i].value, ranks);
        height[ranks] = parts[i].a;
    }
    CHECK_EQ_INT(ranks, length);
    int bad = 0, levels = 0;
    for (uint32_t i = first; i < info.nparts; i++) {
        if (parts[i].kind != GK_PART_SL_LEVEL) continue;
        levels++;
        const gkKeyPart *nodep = &parts[parts[i].parent];
        long long from = nodep->value, to = parts[i].extra;
        int l = parts[i].a;
        if (!to) continue;
        if (to != from + parts[i].value || to > length || height[to] <= l)
            bad++;
        for (long long r = from + 1; r < to; r++) bad += height[r] > l;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(levels >= length);
}

static void testZsetCrossesIntoSkiplist(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    for (int i = 1; i <= 128; i++) nodeCmdf(&n, "ZADD z %d m%d", i, i);
    CHECK_EQ_INT(inspect(&n, "z", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "listpack");
    CHECK_EQ_INT(info.limit_entries, 128);
    CHECK_EQ_INT(count(GK_PART_LP_ENTRY), 256);
    nodeCmd(&n, "ZADD z 129 m129");
    CHECK_EQ_INT(inspect(&n, "z", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "skiplist");
    CHECK_EQ_INT(info.length, 129);
    CHECK_EQ_INT(parts[0].kind, GK_PART_DICT);
    CHECK_EQ_INT(parts[0].value, 129);
    CHECK_EQ_INT(parts[1].kind, GK_PART_SKIPLIST);
    CHECK_EQ_INT(count(GK_PART_SL_NODE), 129);
    checkSkiplist(129);
    /* Nodes in score order, with their members' bytes. */
    int k = 0;
    for (uint32_t i = 0; i < info.nparts; i++) {
        if (parts[i].kind != GK_PART_SL_NODE) continue;
        k++;
        char m[16];
        snprintf(m, sizeof(m), "m%d", k);
        CHECK(parts[i].score == k);
        CHECK(parts[i].size == strlen(m) &&
              !memcmp(bytes + parts[i].offset, m, strlen(m)));
    }
    nodeClose(&n);
}

static void testSetGrows(void) {
    node n;
    nodeOpen(&n, 9, NULL);
    nodeCmd(&n, "SADD s 3 1 2");
    CHECK_EQ_INT(inspect(&n, "s", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "intset");
    CHECK_EQ_INT(parts[0].kind, GK_PART_INTSET);
    CHECK_EQ_INT(parts[0].a, 2);
    CHECK_EQ_INT(parts[0].size, 8 + 2 * 3);
    /* Sorted, little-endian, after the 8-byte header. */
    const uint8_t *is = bytes + parts[0].offset;
    CHECK(is[8] == 1 && is[10] == 2 && is[12] == 3);
    nodeCmd(&n, "SADD s 100000");
    CHECK_EQ_INT(inspect(&n, "s", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_INT(parts[0].a, 4);
    nodeCmd(&n, "SADD s x");
    CHECK_EQ_INT(inspect(&n, "s", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "hashtable");
    CHECK_EQ_INT(parts[0].kind, GK_PART_DICT);
    long long chained = 0;
    for (uint32_t i = 1; i < info.nparts; i++) {
        CHECK_EQ_INT(parts[i].kind, GK_PART_BUCKET);
        chained += parts[i].b;
    }
    CHECK_EQ_INT(chained, 5);
    nodeClose(&n);
}

/* A reading cut short: parts past max_parts are counted, not written, and
 * so are the parts of a part left out; bytes that do not fit are not
 * copied. */
static void testLimits(void) {
    node n;
    nodeOpen(&n, 11, NULL);
    nodeCmd(&n, "CONFIG SET list-max-listpack-size 4");
    for (int i = 0; i < 40; i++) nodeCmdf(&n, "RPUSH l element-%d", i);
    CHECK_EQ_INT(inspect(&n, "l", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_INT(count(GK_PART_QL_NODE), 10);
    uint32_t all = info.total_parts;
    CHECK_EQ_INT(all, 1 + 10 * (1 + 1 + 4));
    CHECK_EQ_INT(inspect(&n, "l", 8, 20), GK_OK);
    CHECK_EQ_INT(info.nparts, 8);
    CHECK_EQ_INT(info.total_parts, all);
    CHECK(info.nbytes <= 20 && info.total_bytes > 20);
    for (uint32_t i = 0; i < info.nparts; i++)
        CHECK(parts[i].parent < (int32_t)i);
    CHECK_EQ_INT(parts[2].offset, GK_PART_NOT_COPIED);
    nodeClose(&n);
}

/* A reading moves nothing: not a bucket of a keyspace being rehashed. */
static void testReadsOnly(void) {
    node n;
    nodeOpen(&n, 13, NULL);
    nodeCmd(&n, "CONFIG SET activerehashing no");
    gkDictInfo before, after;
    int rehashing = 0;
    for (int i = 0; i < 200 && !rehashing; i++) {
        nodeCmdf(&n, "SET key:%d %d", i, i);
        gkDictGetInfo(n.w, n.srv, 0, GK_DICT_KEYS, &before);
        rehashing = before.rehashidx != -1;
    }
    CHECK(rehashing);
    CHECK_EQ_INT(inspect(&n, "key:0", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_INT(inspect(&n, "key:1", MAXP, sizeof(bytes)), GK_OK);
    gkDictGetInfo(n.w, n.srv, 0, GK_DICT_KEYS, &after);
    CHECK_EQ_INT(after.version, before.version);
    CHECK_EQ_INT(after.rehashidx, before.rehashidx);
    nodeClose(&n);
}

/* A stream is not drawn yet, but its length is the stream's: XLEN. */
static void testStreamLength(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    nodeCmd(&n, "XADD st 1-1 a 1");
    nodeCmd(&n, "XADD st 1-2 b 2");
    nodeCmd(&n, "XADD st 1-3 c 3");
    nodeCmd(&n, "XDEL st 1-2");
    CHECK_EQ_INT(inspect(&n, "st", MAXP, sizeof(bytes)), GK_OK);
    CHECK_EQ_STR(info.encoding_name, "stream");
    CHECK_EQ_INT(info.type, 6);
    CHECK_EQ_INT(info.length, 2);
    CHECK_EQ_STR(nodeCmd(&n, "XLEN st"), ":2\r\n");
    CHECK_EQ_INT(info.nparts, 0);
    nodeClose(&n);
}

int main(void) {
    RUN("strings of each encoding, with what MEMORY USAGE says",
        testStrings);
    RUN("a list's quicklist node and listpack entries, byte for byte",
        testListEntries);
    RUN("a zset crosses 128 members into a skiplist whose spans agree "
        "with its order", testZsetCrossesIntoSkiplist);
    RUN("a set grows from a 2-byte intset to 4 bytes to a hashtable",
        testSetGrows);
    RUN("a reading cut short by its limits", testLimits);
    RUN("a reading moves nothing, not even a rehash step", testReadsOnly);
    RUN("a stream's length is its XLEN", testStreamLength);
    return gkTestReport();
}
