/* gktest.h -- a minimal test harness for the engine's C tests.
 *
 * Each test file defines tests with TEST("sentence about behaviour") { ... }
 * blocks inside main() via RUN(), and ends with gkTestReport(). A failed
 * CHECK prints file, line and the expression, and marks the test failed. */
#ifndef GKTEST_H
#define GKTEST_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int gkt_failed = 0, gkt_checks = 0, gkt_tests = 0, gkt_cur_failed = 0;
static const char *gkt_name = "";

#define CHECK(expr) do { gkt_checks++; if (!(expr)) { \
    gkt_failed++; gkt_cur_failed = 1; \
    fprintf(stderr, "  FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, \
            gkt_name, #expr); } } while (0)

#define CHECK_EQ_INT(a, b) do { long long _a = (long long)(a), \
    _b = (long long)(b); gkt_checks++; if (_a != _b) { gkt_failed++; \
    gkt_cur_failed = 1; fprintf(stderr, \
    "  FAIL %s:%d [%s]: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
    gkt_name, #a, #b, _a, _b); } } while (0)

#define CHECK_EQ_STR(a, b) do { const char *_a = (a), *_b = (b); \
    gkt_checks++; if (strcmp(_a, _b) != 0) { gkt_failed++; \
    gkt_cur_failed = 1; fprintf(stderr, \
    "  FAIL %s:%d [%s]: %s == %s\n    got:  \"%s\"\n    want: \"%s\"\n", \
    __FILE__, __LINE__, gkt_name, #a, #b, _a, _b); } } while (0)

#define RUN(name, fn) do { gkt_name = (name); gkt_cur_failed = 0; \
    gkt_tests++; fn(); printf("%s %s\n", gkt_cur_failed ? "not ok" : "ok", \
    gkt_name); } while (0)

/* A small xorshift64* generator, so the randomized tests replay exactly
 * (and the same way in every test file that draws from it). */
static inline uint64_t gkTestRand(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ULL;
}

static int gkTestReport(void) {
    printf("%d tests, %d checks, %d failed\n", gkt_tests, gkt_checks,
           gkt_failed);
    return gkt_failed ? 1 : 0;
}
#endif
