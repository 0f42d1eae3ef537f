/* Tests of the dict: invariants under random operations, incremental
 * rehashing, and the SCAN cursor's order and guarantee. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "dict.h"
#include "sds.h"
#include "siphash.h"
#include "util.h"

static uint64_t hashKey(const dict *d, const void *k) {
    return siphash((const uint8_t *)k, sdslen((sds)k), d->env->seed);
}
static int cmpKey(const dict *d, const void *a, const void *b) {
    return sdslen((sds)a) == sdslen((sds)b) &&
           memcmp(a, b, sdslen((sds)a)) == 0;
}
static void freeKey(dict *d, void *k) { sdsfree(d->env->mem, k); }
static dictType keyType = { hashKey, cmpKey, freeKey, NULL, NULL };

typedef struct fixture { gkMem mem; gkRng rng; dictEnv env; } fixture;

static void fxInit(fixture *f, uint64_t seed) {
    memInit(&f->mem, NULL, NULL);
    rngSeed(&f->rng, seed);
    memset(&f->env, 0, sizeof(f->env));
    f->env.mem = &f->mem;
    f->env.rng = &f->rng;
    for (int i = 0; i < 16; i++) f->env.seed[i] = (uint8_t)rngNext(&f->rng);
    f->env.ns_per_bucket = 4;
    f->env.ns_per_entry = 40;
}

static sds mk(fixture *f, int i) {
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "k%d", i);
    return sdsnewlen(&f->mem, buf, (size_t)n);
}

static void addKey(fixture *f, dict *d, int i) {
    sds k = mk(f, i);
    if (dictAdd(d, k, NULL) != C_OK) sdsfree(&f->mem, k);
}

static void delKey(fixture *f, dict *d, int i) {
    sds k = mk(f, i);
    dictDelete(d, k);
    sdsfree(&f->mem, k);
}

static int hasKey(fixture *f, dict *d, int i) {
    sds k = mk(f, i);
    int r = dictFind(d, k) != NULL;
    sdsfree(&f->mem, k);
    return r;
}

/* Every structural invariant the rest of the engine relies on. */
static int dictInvariantsHold(dict *d) {
    for (int t = 0; t < 2; t++) {
        uint64_t size = DICTHT_SIZE(d->ht_size_exp[t]), n = 0;
        if ((size & (size - 1)) != 0) return 0;
        for (uint64_t i = 0; i < size; i++)
            for (dictEntry *he = d->ht_table[t][i]; he; he = he->next) {
                if ((dictHashKey(d, he->key) & (size - 1)) != i) return 0;
                if (t == 0 && dictIsRehashing(d) &&
                    i < (uint64_t)d->rehashidx) return 0;
                n++;
            }
        if (n != d->ht_used[t]) return 0;
    }
    if (!dictIsRehashing(d) && d->ht_table[1] != NULL) return 0;
    if (dictIsRehashing(d) && d->ht_table[1] == NULL) return 0;
    return 1;
}

static void testRandomOperations(void) {
    for (uint64_t seed = 1; seed <= 40; seed++) {
        fixture f;
        fxInit(&f, seed);
        dict *d = dictCreate(&keyType, &f.env);
        char model[600] = { 0 };
        int ok = 1;
        for (int op = 0; op < 3000 && ok; op++) {
            int k = (int)rngBelow(&f.rng, 600), what = (int)rngBelow(&f.rng, 10);
            if (what < 5) { addKey(&f, d, k); model[k] = 1; }
            else if (what < 8) { delKey(&f, d, k); model[k] = 0; }
            else if (what == 8) { if (dictNeedsShrink(d)) dictResize(d); }
            else dictRehash(d, 1 + (int)rngBelow(&f.rng, 3));
            if (op % 97 == 0 || op == 2999) {
                ok = dictInvariantsHold(d);
                uint64_t count = 0;
                for (int i = 0; i < 600; i++) {
                    count += model[i];
                    if (hasKey(&f, d, i) != model[i]) ok = 0;
                }
                if (count != dictSize(d)) ok = 0;
            }
        }
        CHECK(ok);
        dictRelease(d);
        CHECK_EQ_INT(f.mem.used, 0);
    }
}

static void testExpandOnFifthKey(void) {
    fixture f;
    fxInit(&f, 7);
    dict *d = dictCreate(&keyType, &f.env);
    for (int i = 0; i < 4; i++) addKey(&f, d, i);
    CHECK_EQ_INT(DICTHT_SIZE(d->ht_size_exp[0]), 4);
    CHECK(!dictIsRehashing(d));
    dictPauseRehashing(d);
    addKey(&f, d, 4);
    CHECK(dictIsRehashing(d));
    CHECK_EQ_INT(DICTHT_SIZE(d->ht_size_exp[1]), 8);
    CHECK_EQ_INT(d->ht_used[1], 1);     /* the new key went to table 1 */
    dictResumeRehashing(d);
    while (dictRehash(d, 1)) { }
    CHECK(!dictIsRehashing(d));
    CHECK_EQ_INT(DICTHT_SIZE(d->ht_size_exp[0]), 8);
    CHECK_EQ_INT(d->ht_used[0], 5);
    dictRelease(d);
}

static void testShrinkRule(void) {
    fixture f;
    fxInit(&f, 9);
    dict *d = dictCreate(&keyType, &f.env);
    for (int i = 0; i < 17; i++) addKey(&f, d, i);
    while (dictRehash(d, 10)) { }
    CHECK_EQ_INT(DICTHT_SIZE(d->ht_size_exp[0]), 32);
    for (int i = 4; i < 17; i++) delKey(&f, d, i);
    CHECK(!dictNeedsShrink(d));          /* 4/32 = 12.5% */
    delKey(&f, d, 3);
    CHECK(dictNeedsShrink(d));           /* 3/32 = 9% */
    CHECK_EQ_INT(dictResize(d), C_OK);
    while (dictRehash(d, 10)) { }
    CHECK_EQ_INT(DICTHT_SIZE(d->ht_size_exp[0]), 4);
    dictRelease(d);
}

static void noop(void *pd, const dictEntry *de) { (void)pd; (void)de; }

static void testCursorSequences(void) {
    static const uint64_t seq8[] = { 4, 2, 6, 1, 5, 3, 7, 0 };
    static const uint64_t seq16[] = { 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13,
                                      3, 11, 7, 15, 0 };
    fixture f;
    fxInit(&f, 3);
    dict *d = dictCreate(&keyType, &f.env);
    addKey(&f, d, 0);
    dictExpand(d, 8);
    while (dictRehash(d, 10)) { }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = dictScan(d, v, noop, NULL, NULL);
        CHECK_EQ_INT(v, seq8[i]);
    }
    dictExpand(d, 16);
    while (dictRehash(d, 10)) { }
    v = 0;
    for (int i = 0; i < 16; i++) {
        v = dictScan(d, v, noop, NULL, NULL);
        CHECK_EQ_INT(v, seq16[i]);
    }
    dictRelease(d);
}

static uint64_t visited[64][2];
static int nvisited;
static void recordBucket(dict *d, int table, uint64_t bucket) {
    visited[nvisited][0] = DICTHT_SIZE(d->ht_size_exp[table]);
    visited[nvisited][1] = bucket;
    nvisited++;
}

/* The 8 -> 16 table of the fact sheet: each call visits the small bucket
 * and both of its expansions. */
static void testCursorWhileRehashing(void) {
    static const uint64_t small[] = { 0, 4, 2, 6, 1, 5, 3, 7 };
    static const uint64_t next[] = { 4, 2, 6, 1, 5, 3, 7, 0 };
    fixture f;
    fxInit(&f, 5);
    dict *d = dictCreate(&keyType, &f.env);
    for (int i = 0; i < 8; i++) addKey(&f, d, i);
    dictExpand(d, 8);
    while (dictRehash(d, 10)) { }
    dictPauseRehashing(d);
    addKey(&f, d, 8);                   /* 9th key: 8 -> 16 */
    CHECK(dictIsRehashing(d));
    uint64_t v = 0;
    for (int call = 0; call < 8; call++) {
        nvisited = 0;
        v = dictScan(d, v, noop, recordBucket, NULL);
        CHECK_EQ_INT(nvisited, 3);
        CHECK_EQ_INT(visited[0][0], 8);
        CHECK_EQ_INT(visited[0][1], small[call]);
        CHECK_EQ_INT(visited[1][0], 16);
        CHECK_EQ_INT(visited[1][1], small[call]);
        CHECK_EQ_INT(visited[2][1], small[call] + 8);
        CHECK_EQ_INT(v, next[call]);
    }
    dictResumeRehashing(d);
    dictRelease(d);
}

typedef struct seen { char flags[4000]; int dups; } seen;
static void markSeen(void *pd, const dictEntry *de) {
    seen *s = pd;
    int i = atoi((char *)de->key + 1);
    if (s->flags[i] & 2) s->dups++;
    s->flags[i] |= 2;
}

/* Adds and deletes keys between SCAN calls (forcing growth, shrinking and
 * rehashing mid-walk) and checks that every key present for the whole walk
 * was returned. */
static void scanGuarantee(int grow) {
    for (uint64_t seed = 1; seed <= 30; seed++) {
        fixture f;
        fxInit(&f, seed * 31 + (uint64_t)grow);
        dict *d = dictCreate(&keyType, &f.env);
        seen s;
        memset(&s, 0, sizeof(s));
        int start = grow ? 200 : 3000;
        for (int i = 0; i < start; i++) { addKey(&f, d, i); s.flags[i] = 1; }
        uint64_t v = 0;
        int next = start;
        do {
            v = dictScan(d, v, markSeen, NULL, &s);
            for (int j = 0; j < 40; j++) {
                if (grow && next < 4000) { addKey(&f, d, next++); }
                else if (!grow) {
                    int k = (int)rngBelow(&f.rng, 3000);
                    if (k % 10 != 0) { delKey(&f, d, k); s.flags[k] &= ~1; }
                }
            }
            if (dictNeedsShrink(d)) dictResize(d);
            dictRehash(d, (int)rngBelow(&f.rng, 4));
        } while (v != 0);
        int missing = 0;
        for (int i = 0; i < 4000; i++)
            if ((s.flags[i] & 1) && !(s.flags[i] & 2)) missing++;
        CHECK_EQ_INT(missing, 0);
        dictRelease(d);
    }
}

static void testScanWhileGrowing(void) { scanGuarantee(1); }
static void testScanWhileShrinking(void) { scanGuarantee(0); }

static void testStatsText(void) {
    fixture f;
    fxInit(&f, 11);
    dict *d = dictCreate(&keyType, &f.env);
    char buf[4096];
    dictGetStats(buf, sizeof(buf), d);
    CHECK_EQ_STR(buf, "Hash table 0 stats (main hash table):\n"
                      "No stats available for empty dictionaries\n");
    addKey(&f, d, 1);
    dictGetStats(buf, sizeof(buf), d);
    CHECK_EQ_STR(buf, "Hash table 0 stats (main hash table):\n"
                      " table size: 4\n number of elements: 1\n"
                      " different slots: 1\n max chain length: 1\n"
                      " avg chain length (counted): 1.00\n"
                      " avg chain length (computed): 1.00\n"
                      " Chain length distribution:\n"
                      "   0: 3 (75.00%)\n   1: 1 (25.00%)\n");
    dictRelease(d);
}

int main(void) {
    RUN("dict invariants hold under random operation sequences with many "
        "seeds", testRandomOperations);
    RUN("the fifth key turns a 4-bucket table into a rehash to 8, and new "
        "keys go to table 1", testExpandOnFifthKey);
    RUN("a table shrinks only under 10% fill, to the next power of two",
        testShrinkRule);
    RUN("the SCAN cursor follows the reverse-binary order for sizes 8 and 16",
        testCursorSequences);
    RUN("while rehashing 8 -> 16 each SCAN call visits a small bucket and "
        "both of its expansions", testCursorWhileRehashing);
    RUN("SCAN returns every key present for the whole iteration while the "
        "table grows", testScanWhileGrowing);
    RUN("SCAN returns every key present for the whole iteration while the "
        "table shrinks", testScanWhileShrinking);
    RUN("dictGetStats prints Redis 7.0's DEBUG HTSTATS text", testStatsText);
    return gkTestReport();
}
