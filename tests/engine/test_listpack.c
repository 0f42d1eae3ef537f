/* test_listpack.c -- the listpack: exact bytes, encodings, edits, walking. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include "gktest.h"
#include "mem.h"
#include "listpack.h"

/* Builds a listpack by appending the NUL-terminated strings in order. */
static unsigned char *lpBuild(gkMem *m, const char *const *items, int n) {
    unsigned char *lp = lpCreate(m, 0);
    for (int i = 0; i < n; i++)
        lp = lpAppend(m, lp, (const unsigned char *)items[i],
                      (uint32_t)strlen(items[i]));
    return lp;
}

/* Returns 1 if lp is exactly the n bytes at want. */
static int lpIsBytes(unsigned char *lp, const unsigned char *want, size_t n) {
    return lpBytes(lp) == n && memcmp(lp, want, n) == 0;
}

/* Returns 1 if a and b are the same bytes. */
static int lpSame(unsigned char *a, unsigned char *b) {
    return lpBytes(a) == lpBytes(b) && memcmp(a, b, lpBytes(a)) == 0;
}

/* Returns 1 if the element at p reads as the NUL-terminated text s. */
static int lpIs(unsigned char *p, const char *s) {
    return p && lpCompare(p, (const unsigned char *)s, (uint32_t)strlen(s));
}

/* Returns the integer at p, or a sentinel if p is NULL or a string. */
static int64_t lpInt(unsigned char *p) {
    int64_t v;
    if (!p || !lpGetInteger(p, &v)) return INT64_MIN + 1;
    return v;
}

static void testEmptyListpack(void) {
    static const unsigned char want[] = {0x07, 0, 0, 0, 0, 0, 0xFF};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpCreate(&m, 0);
    unsigned char *big = lpCreate(&m, 100);
    CHECK(lpIsBytes(lp, want, sizeof(want)));
    CHECK(lpIsBytes(big, want, sizeof(want)));
    CHECK_EQ_INT(memSize(lp), 7);
    CHECK_EQ_INT(memSize(big), 100);
    CHECK_EQ_INT(lpLength(lp), 0);
    CHECK(lpFirst(lp) == NULL);
    CHECK(lpLast(lp) == NULL);
    CHECK(lpSeek(lp, 0) == NULL);
    CHECK(lpSeek(lp, -1) == NULL);
    big = lpAppend(&m, big, (const unsigned char *)"hello", 5);
    CHECK_EQ_INT(memSize(big), 100);
    CHECK_EQ_INT(lpBytes(big), 14);
    lpRelease(&m, lp);
    lpRelease(&m, big);
    CHECK_EQ_INT(m.used, 0);
}

static void testHelloAnd1024(void) {
    static const unsigned char want[] = {
        0x11, 0x00, 0x00, 0x00, 0x02, 0x00,       /* 17 bytes, 2 entries */
        0x85, 'h', 'e', 'l', 'l', 'o', 0x06,      /* 6-bit string */
        0xC4, 0x00, 0x02,                         /* 13-bit int 1024 */
        0xFF};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *a = lpAppend(&m, lpCreate(&m, 0),
                                (const unsigned char *)"hello", 5);
    unsigned char *b = lpAppend(&m, lpCreate(&m, 0),
                                (const unsigned char *)"hello", 5);
    a = lpAppendInteger(&m, a, 1024);
    b = lpAppend(&m, b, (const unsigned char *)"1024", 4);
    CHECK(lpIsBytes(a, want, sizeof(want)));
    CHECK(lpIsBytes(b, want, sizeof(want)));
    CHECK_EQ_INT(memSize(a), sizeof(want));
    lpRelease(&m, a);
    lpRelease(&m, b);
    CHECK_EQ_INT(m.used, 0);
}

/* Each integer's expected encoding bytes, without the backlen. */
static const struct {
    int64_t v;
    unsigned char enc[9];
    unsigned len;
} intCases[] = {
    {0, {0x00}, 1},
    {127, {0x7F}, 1},
    {128, {0xC0, 0x80}, 2},
    {-1, {0xDF, 0xFF}, 2},
    {4095, {0xCF, 0xFF}, 2},
    {-4096, {0xD0, 0x00}, 2},
    {4096, {0xF1, 0x00, 0x10}, 3},
    {-4097, {0xF1, 0xFF, 0xEF}, 3},
    {32767, {0xF1, 0xFF, 0x7F}, 3},
    {-32768, {0xF1, 0x00, 0x80}, 3},
    {32768, {0xF2, 0x00, 0x80, 0x00}, 4},
    {-32769, {0xF2, 0xFF, 0x7F, 0xFF}, 4},
    {8388607, {0xF2, 0xFF, 0xFF, 0x7F}, 4},
    {-8388608, {0xF2, 0x00, 0x00, 0x80}, 4},
    {8388608, {0xF3, 0x00, 0x00, 0x80, 0x00}, 5},
    {-8388609, {0xF3, 0xFF, 0xFF, 0x7F, 0xFF}, 5},
    {INT32_MAX, {0xF3, 0xFF, 0xFF, 0xFF, 0x7F}, 5},
    {INT32_MIN, {0xF3, 0x00, 0x00, 0x00, 0x80}, 5},
    {(int64_t)INT32_MAX + 1, {0xF4, 0, 0, 0, 0x80, 0, 0, 0, 0}, 9},
    {(int64_t)INT32_MIN - 1,
     {0xF4, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF}, 9},
    {INT64_MAX, {0xF4, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 9},
    {INT64_MIN, {0xF4, 0, 0, 0, 0, 0, 0, 0, 0x80}, 9},
};

/* Checks one single-entry listpack against intCases[i]. */
static void checkIntEntry(unsigned char *lp, size_t i) {
    unsigned char want[6 + 9 + 2], buf[LP_INTBUF_SIZE], text[32];
    unsigned len = intCases[i].len;
    int64_t count = 0;
    memcpy(want, "\0\0\0\0\x01\0", 6);
    want[0] = (unsigned char)(6 + len + 2);
    memcpy(want + 6, intCases[i].enc, len);
    want[6 + len] = (unsigned char)len;
    want[7 + len] = 0xFF;
    CHECK(lpIsBytes(lp, want, 8 + len));
    CHECK(lpGet(lpFirst(lp), &count, NULL) == NULL);
    CHECK_EQ_INT(count, intCases[i].v);
    snprintf((char *)text, sizeof(text), "%lld", (long long)intCases[i].v);
    CHECK(lpGet(lpFirst(lp), &count, buf) == buf);
    CHECK_EQ_STR((const char *)buf, (const char *)text);
    CHECK_EQ_INT(count, strlen((const char *)text));
}

static void testIntegerBoundaries(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    for (size_t i = 0; i < sizeof(intCases) / sizeof(intCases[0]); i++) {
        char text[32];
        int n = snprintf(text, sizeof(text), "%lld",
                         (long long)intCases[i].v);
        unsigned char *a = lpAppendInteger(&m, lpCreate(&m, 0), intCases[i].v);
        unsigned char *b = lpAppend(&m, lpCreate(&m, 0),
                                    (const unsigned char *)text, (uint32_t)n);
        checkIntEntry(a, i);
        checkIntEntry(b, i);
        lpRelease(&m, a);
        lpRelease(&m, b);
    }
    CHECK_EQ_INT(m.used, 0);
}

static void testNonCanonicalStaysString(void) {
    static const char *const strs[] = {
        "007", "+1", "-0", " 1", "1 ", "", "-", "00", "1e3", "0x10",
        "9223372036854775808", "-9223372036854775809",
        "12345678901234567890", "123456789012345678901"};
    gkMem m;
    memInit(&m, NULL, NULL);
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        uint32_t len = (uint32_t)strlen(strs[i]);
        int64_t v = 0, count = 0;
        unsigned char *lp = lpBuild(&m, &strs[i], 1);
        CHECK(!lpStringToInt64(strs[i], len, &v));
        CHECK(!lpGetInteger(lpFirst(lp), &v));
        CHECK_EQ_INT(lp[6], 0x80 | len);
        CHECK(lpGet(lpFirst(lp), &count, NULL) == lp + 7);
        CHECK_EQ_INT(count, len);
        CHECK(lpIs(lpFirst(lp), strs[i]));
        lpRelease(&m, lp);
    }
    CHECK_EQ_INT(m.used, 0);
}

static void testStringToInt64(void) {
    int64_t v = 0;
    CHECK(lpStringToInt64("0", 1, &v) && v == 0);
    CHECK(lpStringToInt64("-1", 2, &v) && v == -1);
    CHECK(lpStringToInt64("9223372036854775807", 19, &v) && v == INT64_MAX);
    CHECK(lpStringToInt64("-9223372036854775808", 20, &v) &&
          v == INT64_MIN);
    CHECK(lpStringToInt64("12abc", 2, &v) && v == 12);
    CHECK(lpStringToInt64("5", 1, NULL));
    CHECK(!lpStringToInt64("12abc", 3, &v));
    CHECK(!lpStringToInt64("18446744073709551616", 20, &v));
}

/* Appends a string of len copies of c and checks its header and backlen. */
static void checkStringEntry(gkMem *m, uint32_t len,
                             const unsigned char *head, unsigned headlen,
                             const unsigned char *back, unsigned backlen) {
    unsigned char *s = memAlloc(m, len + 1);
    unsigned char *lp, *p;
    int64_t count = 0;
    memset(s, 'x', len);
    lp = lpAppend(m, lpCreate(m, 0), s, len);
    p = lpFirst(lp);
    CHECK_EQ_INT(lpBytes(lp), 6 + headlen + len + backlen + 1);
    CHECK(memcmp(p, head, headlen) == 0);
    CHECK(memcmp(p + headlen + len, back, backlen) == 0);
    CHECK(lpGet(p, &count, NULL) == p + headlen);
    CHECK_EQ_INT(count, len);
    CHECK(lpLast(lp) == p);
    CHECK(lpNext(lp, p) == NULL && lpPrev(lp, p) == NULL);
    lpRelease(m, lp);
    memFree(m, s);
}

static void testStringBoundaries(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    checkStringEntry(&m, 0, (const unsigned char *)"\x80", 1,
                     (const unsigned char *)"\x01", 1);
    checkStringEntry(&m, 63, (const unsigned char *)"\xBF", 1,
                     (const unsigned char *)"\x40", 1);
    checkStringEntry(&m, 64, (const unsigned char *)"\xE0\x40", 2,
                     (const unsigned char *)"\x42", 1);
    checkStringEntry(&m, 4095, (const unsigned char *)"\xEF\xFF", 2,
                     (const unsigned char *)"\x20\x81", 2);
    checkStringEntry(&m, 4096, (const unsigned char *)"\xF0\x00\x10\x00\x00",
                     5, (const unsigned char *)"\x20\x85", 2);
    CHECK_EQ_INT(m.used, 0);
}

/* String lengths whose entries sit on each side of a backlen width change,
 * with the backlen bytes Redis writes for them. */
static const struct {
    uint32_t len;
    unsigned char back[5];
    unsigned backlen;
} backCases[] = {
    {125, {0x7F}, 1},                     /* entry of 127 bytes */
    {126, {0x01, 0x80}, 2},               /* 128 */
    {16377, {0x7F, 0xFE}, 2},             /* 16382 */
    {16378, {0x00, 0xFF, 0xFF}, 3},       /* 16383: Redis's strict bound */
    {2097145, {0x7F, 0xFF, 0xFE}, 3},     /* 2097150 */
    {2097146, {0x00, 0xFF, 0xFF, 0xFF}, 4}, /* 2097151 */
};
#define BACK_CASES (sizeof(backCases) / sizeof(backCases[0]))

/* Checks that the element at p is the i-th long string, with its backlen. */
static void checkLongEntry(unsigned char *p, size_t i) {
    int64_t count = 0;
    unsigned char *s = lpGet(p, &count, NULL);
    unsigned headlen = backCases[i].len < 4096 ? 2 : 5;
    CHECK_EQ_INT(count, backCases[i].len);
    CHECK(s == p + headlen && s[0] == 'a' + i && s[count - 1] == 'a' + i);
    CHECK(memcmp(s + count, backCases[i].back, backCases[i].backlen) == 0);
}

static void testLongBacklens(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *buf = memAlloc(&m, 2097146);
    unsigned char *lp = lpAppendInteger(&m, lpCreate(&m, 0), -1);
    unsigned char *p;
    size_t i;
    for (i = 0; i < BACK_CASES; i++) {
        memset(buf, (int)('a' + i), backCases[i].len);
        lp = lpAppend(&m, lp, buf, backCases[i].len);
    }
    lp = lpAppendInteger(&m, lp, 7);
    CHECK_EQ_INT(lpLength(lp), BACK_CASES + 2);
    p = lpLast(lp);
    CHECK_EQ_INT(lpInt(p), 7);
    for (i = BACK_CASES; i-- > 0;) {
        p = lpPrev(lp, p);
        if (p) checkLongEntry(p, i);
    }
    p = p ? lpPrev(lp, p) : NULL;
    CHECK_EQ_INT(lpInt(p), -1);
    CHECK(p == lpFirst(lp) && lpPrev(lp, p) == NULL);
    for (i = 0, p = lpNext(lp, p); p && i < BACK_CASES; i++) {
        checkLongEntry(p, i);
        p = lpNext(lp, p);
    }
    CHECK_EQ_INT(lpInt(p), 7);
    lpRelease(&m, lp);
    memFree(&m, buf);
    CHECK_EQ_INT(m.used, 0);
}

/* Checks lp against a listpack built by appending items, then frees it. */
static void checkAgainst(gkMem *m, unsigned char *lp,
                         const char *const *items, int n) {
    unsigned char *ref = lpBuild(m, items, n);
    CHECK(lpSame(lp, ref));
    CHECK_EQ_INT(lpLength(lp), n);
    CHECK_EQ_INT(memSize(lp), lpBytes(lp));
    lpRelease(m, ref);
}

static void testInsertInTheMiddle(void) {
    static const char *const start[] = {"a", "b", "c"};
    static const char *const want1[] = {"a", "b", "x", "c"};
    static const char *const want2[] = {"42", "a", "b", "x", "c"};
    static const char *const want3[] = {"42", "a", "b", "x", "c", "-70000"};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpBuild(&m, start, 3), *p = NULL;
    lp = lpInsertString(&m, lp, (const unsigned char *)"x", 1,
                        lpSeek(lp, 1), LP_AFTER, &p);
    CHECK(lpIs(p, "x") && p == lpSeek(lp, 2));
    checkAgainst(&m, lp, want1, 4);
    lp = lpInsertString(&m, lp, (const unsigned char *)"42", 2,
                        lpFirst(lp), LP_BEFORE, &p);
    CHECK(p == lpFirst(lp) && lpInt(p) == 42);
    checkAgainst(&m, lp, want2, 5);
    lp = lpInsertString(&m, lp, (const unsigned char *)"-70000", 6,
                        lpLast(lp), LP_AFTER, &p);
    CHECK(p == lpLast(lp) && lpInt(p) == -70000);
    checkAgainst(&m, lp, want3, 6);
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testReplaceInTheMiddle(void) {
    static char longstr[301];
    static const char *const start[] = {"a", "b", "c"};
    const char *const want1[] = {"a", longstr, "c"};
    static const char *const want2[] = {"a", "-5", "c"};
    gkMem m;
    memInit(&m, NULL, NULL);
    memset(longstr, 'q', 300);
    unsigned char *lp = lpBuild(&m, start, 3);
    unsigned char *p = lpSeek(lp, 1);
    lp = lpReplace(&m, lp, &p, (const unsigned char *)longstr, 300);
    CHECK(p == lpSeek(lp, 1) && lpIs(p, longstr));
    checkAgainst(&m, lp, want1, 3);
    lp = lpReplace(&m, lp, &p, (const unsigned char *)"-5", 2);
    CHECK(p == lpSeek(lp, 1) && lpInt(p) == -5);
    checkAgainst(&m, lp, want2, 3);
    p = lpLast(lp);
    lp = lpReplace(&m, lp, &p, (const unsigned char *)"c", 1);
    checkAgainst(&m, lp, want2, 3);
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testDeleteInTheMiddle(void) {
    static const char *const start[] = {"a", "1000", "b", "c"};
    static const char *const want1[] = {"a", "b", "c"};
    static const char *const want2[] = {"a", "b"};
    static const unsigned char empty[] = {0x07, 0, 0, 0, 0, 0, 0xFF};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpBuild(&m, start, 4), *p = NULL;
    lp = lpDelete(&m, lp, lpSeek(lp, 1), &p);
    CHECK(lpIs(p, "b") && p == lpSeek(lp, 1));
    checkAgainst(&m, lp, want1, 3);
    lp = lpDelete(&m, lp, lpLast(lp), &p);
    CHECK(p == NULL);
    checkAgainst(&m, lp, want2, 2);
    lp = lpDelete(&m, lp, lpFirst(lp), &p);
    CHECK(lpIs(p, "b") && p == lpFirst(lp));
    lp = lpDelete(&m, lp, lpFirst(lp), NULL);
    CHECK(lpIsBytes(lp, empty, sizeof(empty)));
    CHECK_EQ_INT(memSize(lp), sizeof(empty));
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testDeleteRange(void) {
    static const char *const digits[] = {"0", "1", "2", "3", "4",
                                         "5", "6", "7", "8", "9"};
    static const char *const want1[] = {"0", "1", "5", "6", "7", "8", "9"};
    static const char *const want2[] = {"0", "1", "5", "6", "7"};
    static const char *const want3[] = {"0", "7"};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpCreate(&m, 256);
    for (int i = 0; i < 10; i++)
        lp = lpAppend(&m, lp, (const unsigned char *)digits[i], 1);
    lp = lpDeleteRange(&m, lp, 2, 3);
    checkAgainst(&m, lp, want1, 7);
    lp = lpDeleteRange(&m, lp, -2, 5);
    checkAgainst(&m, lp, want2, 5);
    lp = lpDeleteRange(&m, lp, 5, 1);
    lp = lpDeleteRange(&m, lp, -6, 1);
    lp = lpDeleteRange(&m, lp, 0, 0);
    checkAgainst(&m, lp, want2, 5);
    lp = lpDeleteRange(&m, lp, -4, 3);
    checkAgainst(&m, lp, want3, 2);
    lp = lpDeleteRange(&m, lp, 0, 100);
    checkAgainst(&m, lp, NULL, 0);
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testSeek(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpCreate(&m, 0);
    for (int i = 0; i < 10; i++) lp = lpAppendInteger(&m, lp, i * 1000);
    for (long i = -12; i <= 11; i++) {
        unsigned char *p = lpSeek(lp, i);
        long want = i < 0 ? i + 10 : i;
        if (want < 0 || want >= 10) CHECK(p == NULL);
        else CHECK_EQ_INT(lpInt(p), want * 1000);
    }
    CHECK(lpSeek(lp, LONG_MIN) == NULL);
    CHECK(lpSeek(lp, LONG_MAX) == NULL);
    CHECK(lpSeek(lp, -10) == lpFirst(lp));
    CHECK(lpSeek(lp, 9) == lpLast(lp));
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testFind(void) {
    static const char *const pairs[] = {"f1", "v1", "10", "f1", "", "10"};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpBuild(&m, pairs, 6);
    const unsigned char *s;
#define FIND(from, str, skip) \
    (s = (const unsigned char *)(str), \
     lpFind(&m, lp, (from), s, (uint32_t)strlen((const char *)s), (skip)))
    CHECK(FIND(lpFirst(lp), "f1", 1) == lpSeek(lp, 0));
    CHECK(FIND(lpFirst(lp), "10", 1) == lpSeek(lp, 2));
    CHECK(FIND(lpFirst(lp), "v1", 1) == NULL);
    CHECK(FIND(lpFirst(lp), "v1", 0) == lpSeek(lp, 1));
    CHECK(FIND(lpSeek(lp, 1), "10", 1) == lpSeek(lp, 5));
    CHECK(FIND(lpSeek(lp, 1), "f1", 1) == lpSeek(lp, 3));
    CHECK(FIND(lpFirst(lp), "", 1) == lpSeek(lp, 4));
    CHECK(FIND(lpFirst(lp), "010", 0) == NULL);
    CHECK(FIND(lpFirst(lp), "1", 0) == NULL);
    CHECK(FIND(lpFirst(lp), "10", 5) == NULL);
    CHECK(FIND(lpSeek(lp, 2), "10", 5) == lpSeek(lp, 2));
    CHECK(FIND(lpFirst(lp), "f1", 5) == lpFirst(lp));
    CHECK(FIND(lpSeek(lp, 1), "f1", 5) == NULL);
    CHECK(FIND(NULL, "f1", 0) == NULL);
#undef FIND
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testCompareAndGetInteger(void) {
    static const char *const items[] = {"1024", "abc", "12a", "-0"};
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpBuild(&m, items, 4);
    int64_t v = 5;
    CHECK(lpIs(lpSeek(lp, 0), "1024"));
    CHECK(!lpIs(lpSeek(lp, 0), "01024") && !lpIs(lpSeek(lp, 0), "1024 "));
    CHECK(!lpIs(lpSeek(lp, 0), "102"));
    CHECK(lpIs(lpSeek(lp, 1), "abc") && !lpIs(lpSeek(lp, 1), "ab"));
    CHECK(!lpCompare(lp + lpBytes(lp) - 1, (const unsigned char *)"", 0));
    CHECK(lpGetInteger(lpSeek(lp, 0), &v) && v == 1024);
    CHECK(!lpGetInteger(lpSeek(lp, 1), &v) && v == 1024);
    CHECK(!lpGetInteger(lpSeek(lp, 2), &v));
    CHECK(!lpGetInteger(lpSeek(lp, 3), &v));
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

static void testUnknownCount(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpCreate(&m, 140000);
    for (long i = 0; i < 65535; i++) lp = lpAppendInteger(&m, lp, i % 128);
    CHECK(lp[4] == 0xFF && lp[5] == 0xFF);
    CHECK_EQ_INT(lpLength(lp), 65535);
    lp = lpAppendInteger(&m, lp, 99);
    CHECK(lp[4] == 0xFF && lp[5] == 0xFF);
    CHECK_EQ_INT(lpLength(lp), 65536);
    CHECK_EQ_INT(lpInt(lpSeek(lp, -1)), 99);
    CHECK_EQ_INT(lpInt(lpSeek(lp, 65535)), 99);
    CHECK_EQ_INT(lpInt(lpSeek(lp, -65536)), 0);
    CHECK_EQ_INT(lpInt(lpSeek(lp, 130)), 2);
    CHECK(lpSeek(lp, 65536) == NULL && lpSeek(lp, -65537) == NULL);
    lp = lpDeleteRange(&m, lp, 1, 2);
    CHECK(lp[4] == 0xFF && lp[5] == 0xFF);
    CHECK_EQ_INT(lpInt(lpSeek(lp, 1)), 3);
    CHECK_EQ_INT(memSize(lp), lpBytes(lp));
    CHECK_EQ_INT(lpLength(lp), 65534);
    CHECK(lp[4] == 0xFE && lp[5] == 0xFF);
    lp = lpDeleteRange(&m, lp, -65534, 65534);
    CHECK_EQ_INT(lpBytes(lp), 7);
    CHECK_EQ_INT(lpLength(lp), 0);
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
}

/* ---- Randomized edits against an array of strings ---- */

#define MODEL_MAX 512
#define TEXT_MAX 16400

typedef struct modelItem {
    unsigned char *s;   /* the element's text, allocated from mem */
    uint32_t len;       /* its length */
} modelItem;

typedef struct model {
    gkMem mem;                     /* the model's own allocations */
    modelItem items[MODEL_MAX];    /* the elements, in order */
    uint32_t n;                    /* how many */
} model;

/* Inserts the len bytes at s as element at. */
static void modelInsert(model *md, uint32_t at, const unsigned char *s,
                        uint32_t len) {
    modelItem *it = md->items;
    memmove(it + at + 1, it + at, (md->n - at) * sizeof(*it));
    it[at].s = memAlloc(&md->mem, len + 1);
    memcpy(it[at].s, s, len);
    it[at].len = len;
    md->n++;
}

/* Deletes element at. */
static void modelDelete(model *md, uint32_t at) {
    modelItem *it = md->items;
    memFree(&md->mem, it[at].s);
    memmove(it + at, it + at + 1, (md->n - at - 1) * sizeof(*it));
    md->n--;
}

/* Writes a random element's text into buf and returns its length: integers
 * of every width, non-canonical numbers, short and long strings. */
static uint32_t randomText(uint64_t *st, unsigned char *buf) {
    static const char *const tricky[] = {
        "007", "+1", "-0", " 7", "", "-", "9223372036854775808",
        "-9223372036854775809", "12345678901234567890"};
    uint64_t r = gkTestRand(st), len;
    int64_t v = (int64_t)(gkTestRand(st) >> (1 + r % 63));
    switch (r % 8) {
    case 0: case 1: case 2:
        if (r & 64) v = -v - 1;
        return (uint32_t)snprintf((char *)buf, 24, "%lld", (long long)v);
    case 3:
        len = strlen(tricky[(r >> 8) % 9]);
        memcpy(buf, tricky[(r >> 8) % 9], len);
        return (uint32_t)len;
    case 7:
        len = (r >> 8) % 10 ? 4000 + (r >> 16) % 200
                            : 16370 + (r >> 16) % 20;
        break;
    default:
        len = (r >> 8) % 80;
    }
    for (uint64_t i = 0; i < len; i++) buf[i] = 'a' + gkTestRand(st) % 26;
    return (uint32_t)len;
}

/* Returns 1 if lp holds the model's elements, walking both ways. */
static int lpMatchesModel(unsigned char *lp, model *md) {
    unsigned char buf[LP_INTBUF_SIZE], *p, *v;
    int64_t len, iv;
    uint32_t i = 0;
    for (p = lpFirst(lp); p; p = lpNext(lp, p), i++) {
        modelItem *it;
        if (i >= md->n) return 0;
        it = &md->items[i];
        v = lpGet(p, &len, buf);
        if (len != it->len || memcmp(v, it->s, it->len) != 0) return 0;
        if (lpGetInteger(p, &iv) !=
            lpStringToInt64((const char *)it->s, it->len, NULL))
            return 0;
    }
    if (i != md->n) return 0;
    for (p = lpLast(lp); p; p = lpPrev(lp, p)) {
        if (i == 0) return 0;
        i--;
        if (!lpCompare(p, md->items[i].s, md->items[i].len)) return 0;
    }
    return i == 0;
}

/* Returns 1 if lp is byte for byte what appending the model would give. */
static int lpIsCanonical(gkMem *m, unsigned char *lp, model *md) {
    unsigned char *ref = lpCreate(m, 0);
    int same;
    for (uint32_t i = 0; i < md->n; i++)
        ref = lpAppend(m, ref, md->items[i].s, md->items[i].len);
    same = lpSame(lp, ref);
    lpRelease(m, ref);
    return same;
}

/* Inserts a random text at a random place, checking newp. */
static unsigned char *opInsert(gkMem *m, unsigned char *lp, model *md,
                               uint64_t *st, unsigned char *text) {
    uint32_t len = randomText(st, text), at;
    uint64_t r = gkTestRand(st);
    unsigned char *p, *newp = NULL;
    if (md->n == 0 || r % 4 == 0) {
        if (r & 16) {
            int64_t v;
            if (!lpStringToInt64((const char *)text, len, &v)) v = 0;
            len = (uint32_t)snprintf((char *)text, 24, "%lld",
                                     (long long)v);
            lp = lpAppendInteger(m, lp, v);
        } else {
            lp = lpAppend(m, lp, text, len);
        }
        modelInsert(md, md->n, text, len);
        return lp;
    }
    at = (uint32_t)((r >> 8) % md->n);
    p = lpSeek(lp, (r & 1) ? (long)at : (long)at - (long)md->n);
    lp = lpInsertString(m, lp, text, len, p, (r & 2) ? LP_AFTER : LP_BEFORE,
                        &newp);
    at += (r & 2) ? 1 : 0;
    modelInsert(md, at, text, len);
    CHECK(newp == lpSeek(lp, at) && lpCompare(newp, text, len));
    return lp;
}

/* Replaces or deletes one element, or deletes a range. */
static unsigned char *opChange(gkMem *m, unsigned char *lp, model *md,
                               uint64_t *st, unsigned char *text) {
    uint64_t r = gkTestRand(st);
    uint32_t at = (uint32_t)((r >> 8) % md->n);
    unsigned char *p = lpSeek(lp, at), *newp = NULL;
    if (r % 5 == 0) {
        uint32_t len = randomText(st, text);
        lp = lpReplace(m, lp, &p, text, len);
        modelDelete(md, at);
        modelInsert(md, at, text, len);
        CHECK(p == lpSeek(lp, at) && lpCompare(p, text, len));
    } else if (r % 5 == 1) {
        uint32_t num = (uint32_t)((r >> 32) % 6);
        lp = lpDeleteRange(m, lp, (r & 1) ? (long)at : (long)at - (long)md->n,
                           num);
        while (num-- > 0 && at < md->n) modelDelete(md, at);
    } else {
        lp = lpDelete(m, lp, p, &newp);
        modelDelete(md, at);
        CHECK(newp == (at < md->n ? lpSeek(lp, at) : NULL));
    }
    return lp;
}

/* Runs ops random edits from seed, checking the listpack after each. */
static void runRandomEdits(uint64_t seed, int ops) {
    static model md;
    static unsigned char text[TEXT_MAX];
    uint64_t st = seed;
    gkMem m;
    memInit(&m, NULL, NULL);
    memInit(&md.mem, NULL, NULL);
    md.n = 0;
    unsigned char *lp = lpCreate(&m, 0);
    for (int i = 0; i < ops; i++) {
        int grow = md.n == 0 || (md.n < 300 && gkTestRand(&st) % 10 < 6);
        if (grow) lp = opInsert(&m, lp, &md, &st, text);
        else lp = opChange(&m, lp, &md, &st, text);
        CHECK_EQ_INT(lpLength(lp), md.n);
        CHECK_EQ_INT(memSize(lp), lpBytes(lp));
        CHECK(lpMatchesModel(lp, &md));
        if (i % 50 == 0) CHECK(lpIsCanonical(&m, lp, &md));
    }
    CHECK(lpIsCanonical(&m, lp, &md));
    while (md.n) modelDelete(&md, 0);
    lpRelease(&m, lp);
    CHECK_EQ_INT(m.used, 0);
    CHECK_EQ_INT(md.mem.used, 0);
}

static void testRandomizedAgainstModel(void) {
    runRandomEdits(1, 3000);
    runRandomEdits(0x9E3779B97F4A7C15ULL, 3000);
    runRandomEdits(20240501, 3000);
}

/* lpPrepend puts an element first, also into an empty listpack. */
static void testPrepend(void) {
    static const char *const want[] = { "b", "a", "300", "c" };
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *lp = lpPrepend(&m, lpCreate(&m, 0),
                                  (const unsigned char *)"c", 1);
    lp = lpPrepend(&m, lp, (const unsigned char *)"300", 3);
    lp = lpPrepend(&m, lp, (const unsigned char *)"a", 1);
    lp = lpPrepend(&m, lp, (const unsigned char *)"b", 1);
    unsigned char *built = lpBuild(&m, want, 4);
    CHECK(lpSame(lp, built));
    CHECK_EQ_INT(lpInt(lpSeek(lp, 2)), 300);
    lpRelease(&m, lp);
    lpRelease(&m, built);
    CHECK_EQ_INT(m.used, 0);
}

/* lpMerge joins two listpacks into the larger one's allocation: the same
 * bytes as appending every element to one listpack, whichever is kept. */
static void testMerge(void) {
    static const char *const all[] = { "a", "bb", "-7", "ccc", "1024",
                                       "ddddddddddddddd", "e" };
    gkMem m;
    memInit(&m, NULL, NULL);
    unsigned char *whole = lpBuild(&m, all, 7);
    for (int cut = 0; cut <= 7; cut++) {
        unsigned char *a = lpBuild(&m, all, cut);
        unsigned char *b = lpBuild(&m, all + cut, 7 - cut);
        int keep_first = lpBytes(a) >= lpBytes(b);
        unsigned char *first = a, *second = b;
        unsigned char *merged = lpMerge(&m, &first, &second);
        CHECK(merged != NULL && lpSame(merged, whole));
        CHECK_EQ_INT(lpLength(merged), 7);
        CHECK(keep_first ? (first == merged && second == NULL)
                         : (second == merged && first == NULL));
        lpRelease(&m, merged);
    }
    unsigned char *a = lpBuild(&m, all, 2);
    unsigned char *none = NULL;
    CHECK(lpMerge(&m, &a, &none) == NULL);
    CHECK(lpMerge(&m, &a, &a) == NULL);
    lpRelease(&m, a);
    lpRelease(&m, whole);
    CHECK_EQ_INT(m.used, 0);
}

int main(void) {
    RUN("an empty listpack is the 7 bytes 07 00 00 00 00 00 ff",
        testEmptyListpack);
    RUN("appending hello and 1024 writes the exact bytes Redis writes",
        testHelloAnd1024);
    RUN("integers take the narrowest encoding at every width boundary",
        testIntegerBoundaries);
    RUN("numbers that are not canonical integers are stored as strings",
        testNonCanonicalStaysString);
    RUN("lpStringToInt64 accepts exactly what string2ll accepts",
        testStringToInt64);
    RUN("strings of 63/64 and 4095/4096 bytes switch string encodings",
        testStringBoundaries);
    RUN("long entries get 2-4 byte backlens that walk back correctly",
        testLongBacklens);
    RUN("inserting before and after middle elements matches appending",
        testInsertInTheMiddle);
    RUN("replacing a middle element grows or shrinks the listpack in place",
        testReplaceInTheMiddle);
    RUN("deleting returns the next element, or NULL after the last",
        testDeleteInTheMiddle);
    RUN("lpDeleteRange removes middle runs, tails and ignores bad indexes",
        testDeleteRange);
    RUN("lpSeek counts negative indexes from the end, NULL past either end",
        testSeek);
    RUN("lpFind compares every skip+1-th element, integers as text",
        testFind);
    RUN("lpCompare and lpGetInteger read integers as their decimal text",
        testCompareAndGetInteger);
    RUN("past 65534 elements the count is unknown and lpLength recounts",
        testUnknownCount);
    RUN("lpPrepend puts an element first, also into an empty listpack",
        testPrepend);
    RUN("lpMerge joins two listpacks into the larger one's allocation",
        testMerge);
    RUN("thousands of random edits agree with an array of strings",
        testRandomizedAgainstModel);
    return gkTestReport();
}
