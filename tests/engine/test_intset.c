/* test_intset.c -- the intset: encodings, upgrades, order, memory. */
#include <stdint.h>
#include "gktest.h"
#include "mem.h"
#include "intset.h"

/* Builds a set from n values, in the order given. */
static intset *buildSet(gkMem *m, const int64_t *values, int n) {
    intset *is = intsetCreate(m);
    for (int i = 0; i < n; i++) is = intsetAdd(m, is, values[i], NULL);
    return is;
}

/* Returns 1 if the set holds exactly the n values in want, in order. */
static int setEquals(const intset *is, const int64_t *want, uint32_t n) {
    int64_t v;
    if (intsetLen(is) != n) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (!intsetGet(is, i, &v) || v != want[i]) return 0;
    return 1;
}

static void testNewSetIsEmpty(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    intset *is = intsetCreate(&m);
    int64_t v = 99;
    CHECK_EQ_INT(intsetLen(is), 0);
    CHECK_EQ_INT(is->encoding, INTSET_ENC_INT16);
    CHECK_EQ_INT(intsetBlobLen(is), 8);
    CHECK_EQ_INT(memSize(is), 8);
    CHECK(!intsetGet(is, 0, &v));
    CHECK_EQ_INT(v, 99);
    CHECK(!intsetFind(is, 0));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testSmallValuesSorted(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {5, -3, 100, 0, 32767, -32768, 7};
    const int64_t want[] = {-32768, -3, 0, 5, 7, 100, 32767};
    intset *is = buildSet(&m, in, 7);
    CHECK(setEquals(is, want, 7));
    CHECK_EQ_INT(is->encoding, INTSET_ENC_INT16);
    CHECK_EQ_INT(intsetBlobLen(is), 8 + 7 * 2);
    CHECK_EQ_INT(memSize(is), intsetBlobLen(is));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testDuplicateAdd(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {1, 2, 3};
    intset *is = buildSet(&m, in, 3);
    int added = -1;
    is = intsetAdd(&m, is, 2, &added);
    CHECK_EQ_INT(added, 0);
    CHECK(setEquals(is, in, 3));
    is = intsetAdd(&m, is, 4, &added);
    CHECK_EQ_INT(added, 1);
    CHECK_EQ_INT(intsetLen(is), 4);
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testUpgradePositiveAppends(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {-2, 1, 3};
    const int64_t want[] = {-2, 1, 3, 65536};
    intset *is = buildSet(&m, in, 3);
    int added = 0;
    is = intsetAdd(&m, is, 65536, &added);
    CHECK_EQ_INT(added, 1);
    CHECK_EQ_INT(is->encoding, INTSET_ENC_INT32);
    CHECK(setEquals(is, want, 4));
    CHECK_EQ_INT(intsetBlobLen(is), 8 + 4 * 4);
    CHECK_EQ_INT(memSize(is), intsetBlobLen(is));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testUpgradeNegativePrepends(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {-2, 1, 3};
    const int64_t want[] = {-40000, -2, 1, 3};
    intset *is = buildSet(&m, in, 3);
    is = intsetAdd(&m, is, -40000, NULL);
    CHECK_EQ_INT(is->encoding, INTSET_ENC_INT32);
    CHECK(setEquals(is, want, 4));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testUpgradeTo64(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {-7, 0, 9};
    const int64_t want16[] = {INT64_MIN, -7, 0, 9};
    const int64_t want32[] = {-7, 0, 9, 70000, INT64_MAX};
    intset *a = buildSet(&m, in, 3);
    a = intsetAdd(&m, a, INT64_MIN, NULL);
    CHECK_EQ_INT(a->encoding, INTSET_ENC_INT64);
    CHECK(setEquals(a, want16, 4));
    intset *b = buildSet(&m, in, 3);
    b = intsetAdd(&m, b, 70000, NULL);
    CHECK_EQ_INT(b->encoding, INTSET_ENC_INT32);
    b = intsetAdd(&m, b, INT64_MAX, NULL);
    CHECK_EQ_INT(b->encoding, INTSET_ENC_INT64);
    CHECK(setEquals(b, want32, 5));
    CHECK_EQ_INT(intsetBlobLen(b), 8 + 5 * 8);
    intsetRelease(&m, a);
    intsetRelease(&m, b);
    CHECK_EQ_INT(m.used, 0);
}

static void testEncodingBoundaries(void) {
    static const struct { int64_t v; uint32_t enc; } cases[] = {
        {INT16_MAX, 2}, {INT16_MIN, 2}, {(int64_t)INT16_MAX + 1, 4},
        {(int64_t)INT16_MIN - 1, 4}, {INT32_MAX, 4}, {INT32_MIN, 4},
        {(int64_t)INT32_MAX + 1, 8}, {(int64_t)INT32_MIN - 1, 8},
    };
    gkMem m;
    memInit(&m, NULL, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        intset *is = intsetAdd(&m, intsetCreate(&m), cases[i].v, NULL);
        int64_t v = 0;
        CHECK_EQ_INT(is->encoding, cases[i].enc);
        CHECK(intsetGet(is, 0, &v) && v == cases[i].v);
        CHECK(intsetFind(is, cases[i].v));
        intsetRelease(&m, is);
    }
    CHECK_EQ_INT(m.used, 0);
}

static void testLittleEndianBytes(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const unsigned char want16[] = {2, 0, 0, 0, 2, 0, 0, 0,
                                    0xFE, 0xFF, 0x34, 0x12};
    const unsigned char want32[] = {4, 0, 0, 0, 3, 0, 0, 0,
                                    0xFE, 0xFF, 0xFF, 0xFF,
                                    0x34, 0x12, 0x00, 0x00,
                                    0x78, 0x56, 0x34, 0x12};
    intset *is = intsetAdd(&m, intsetCreate(&m), 0x1234, NULL);
    is = intsetAdd(&m, is, -2, NULL);
    CHECK_EQ_INT(intsetBlobLen(is), sizeof(want16));
    CHECK(memcmp(is, want16, sizeof(want16)) == 0);
    is = intsetAdd(&m, is, 0x12345678, NULL);
    CHECK_EQ_INT(intsetBlobLen(is), sizeof(want32));
    CHECK(memcmp(is, want32, sizeof(want32)) == 0);
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testRemoveShrinks(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {1, 2, 3, 100000};
    const int64_t want[] = {1, 3};
    intset *is = buildSet(&m, in, 4);
    int removed = 0;
    is = intsetRemove(&m, is, 100000, &removed);
    CHECK_EQ_INT(removed, 1);
    CHECK_EQ_INT(is->encoding, INTSET_ENC_INT32);
    CHECK_EQ_INT(intsetBlobLen(is), 8 + 3 * 4);
    CHECK_EQ_INT(memSize(is), intsetBlobLen(is));
    is = intsetRemove(&m, is, 2, &removed);
    CHECK_EQ_INT(removed, 1);
    CHECK(setEquals(is, want, 2));
    CHECK_EQ_INT(memSize(is), 8 + 2 * 4);
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testRemoveMissing(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {1, 2, 3};
    intset *is = buildSet(&m, in, 3);
    int removed = -1;
    is = intsetRemove(&m, is, 70000, &removed);
    CHECK_EQ_INT(removed, 0);
    is = intsetRemove(&m, is, 4, &removed);
    CHECK_EQ_INT(removed, 0);
    is = intsetRemove(&m, is, 0, &removed);
    CHECK_EQ_INT(removed, 0);
    CHECK(setEquals(is, in, 3));
    CHECK_EQ_INT(memSize(is), intsetBlobLen(is));
    is = intsetRemove(&m, is, 1, NULL);
    is = intsetRemove(&m, is, 2, NULL);
    is = intsetRemove(&m, is, 3, &removed);
    CHECK_EQ_INT(removed, 1);
    CHECK_EQ_INT(intsetLen(is), 0);
    CHECK_EQ_INT(memSize(is), 8);
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testFind(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    intset *is = intsetCreate(&m);
    for (int64_t v = -1000; v <= 1000; v += 10)
        is = intsetAdd(&m, is, v, NULL);
    CHECK_EQ_INT(intsetLen(is), 201);
    for (int64_t v = -1005; v <= 1005; v++)
        CHECK_EQ_INT(intsetFind(is, v), v % 10 == 0 && v >= -1000 &&
                                        v <= 1000);
    CHECK(!intsetFind(is, 100000));
    CHECK(!intsetFind(is, INT64_MIN));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testRandomAndGet(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    const int64_t in[] = {30, 10, 20};
    intset *is = buildSet(&m, in, 3);
    int64_t v = 0;
    CHECK_EQ_INT(intsetRandom(is, 0), 10);
    CHECK_EQ_INT(intsetRandom(is, 4), 20);
    CHECK_EQ_INT(intsetRandom(is, UINT64_MAX), 10);
    CHECK(intsetGet(is, 2, &v) && v == 30);
    CHECK(!intsetGet(is, 3, &v));
    CHECK(!intsetGet(is, UINT32_MAX, &v));
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

/* A value from one of several ranges, so the run crosses every encoding. */
static int64_t randomValue(uint64_t *state, int phase) {
    uint64_t r = gkTestRand(state);
    switch (phase == 0 ? 0 : r % (uint64_t)(phase + 1)) {
    case 0: return (int64_t)(r % 200) - 100;
    case 1: return (int64_t)(r % 131072) - 65536;
    default: return (int64_t)r;
    }
}

/* Adds (or removes) v in the sorted model array; returns 1 on change. */
static int modelEdit(int64_t *model, uint32_t *n, int64_t v, int add) {
    uint32_t i = 0;
    while (i < *n && model[i] < v) i++;
    int present = i < *n && model[i] == v;
    if (add == present) return 0;
    if (add) {
        memmove(model + i + 1, model + i, (*n - i) * sizeof(*model));
        model[i] = v;
        (*n)++;
    } else {
        memmove(model + i, model + i + 1, (*n - i - 1) * sizeof(*model));
        (*n)--;
    }
    return 1;
}

/* Runs ops random adds and removes with a seed against the model. */
static void runRandomOps(uint64_t seed, int ops) {
    static int64_t model[4096];
    uint32_t n = 0;
    uint64_t state = seed;
    gkMem m;
    memInit(&m, NULL, NULL);
    intset *is = intsetCreate(&m);
    for (int i = 0; i < ops; i++) {
        int phase = i * 3 / ops, add = gkTestRand(&state) % 3 != 0, did;
        int64_t v = randomValue(&state, phase);
        if (!add && n > 0 && gkTestRand(&state) % 2)
            v = model[gkTestRand(&state) % n];
        int changed = modelEdit(model, &n, v, add);
        if (add) is = intsetAdd(&m, is, v, &did);
        else is = intsetRemove(&m, is, v, &did);
        CHECK_EQ_INT(did, changed);
        CHECK_EQ_INT(intsetLen(is), n);
        CHECK_EQ_INT(memSize(is), intsetBlobLen(is));
        if (i % 97 == 0 || i == ops - 1) CHECK(setEquals(is, model, n));
    }
    intsetRelease(&m, is);
    CHECK_EQ_INT(m.used, 0);
}

static void testRandomizedAgainstModel(void) {
    runRandomOps(1, 4000);
    runRandomOps(0x9E3779B97F4A7C15ULL, 4000);
    runRandomOps(20240501, 4000);
}

int main(void) {
    RUN("a new intset is empty, 16-bit wide and only its 8-byte header",
        testNewSetIsEmpty);
    RUN("values that fit 16 bits keep the 16-bit encoding, sorted",
        testSmallValuesSorted);
    RUN("adding a value already present reports not added, changes nothing",
        testDuplicateAdd);
    RUN("a positive value past 16 bits upgrades the set and is appended",
        testUpgradePositiveAppends);
    RUN("a negative value past 16 bits upgrades the set and is prepended",
        testUpgradeNegativePrepends);
    RUN("a value past 32 bits upgrades to 64 bits from 16 or 32 bits",
        testUpgradeTo64);
    RUN("each value takes the narrowest encoding at the int16/int32 edges",
        testEncodingBoundaries);
    RUN("the blob is little-endian header and elements at the set's width",
        testLittleEndianBytes);
    RUN("remove shrinks the allocation by one element and keeps the width",
        testRemoveShrinks);
    RUN("removing an absent or too-wide value reports not removed",
        testRemoveMissing);
    RUN("find answers members, non-members and too-wide values",
        testFind);
    RUN("random picks rnd modulo length and get refuses positions past end",
        testRandomAndGet);
    RUN("thousands of random adds and removes agree with a sorted array",
        testRandomizedAgainstModel);
    return gkTestReport();
}
