/* Tests of the commands' latency histograms (hdr.c, latency.c): the HDR
 * histogram's slots, its percentiles, LATENCY HISTOGRAM's levels and INFO
 * latencystats, and the 24,688 bytes a command's first call costs (the
 * figure redis-server 7.0.15's used_memory grows by; tests/server checks
 * the two side by side). */
#include <string.h>
#include "gktest.h"
#include "aofkit.h"
#include "hdr.h"

/* Slots are exact below 256 ns, then 128 to a power of two: 2,000 ns is
 * in a slot 8 ns wide (bucket 3: 2^11 > 2000 | 255), 32,000 in one 128
 * wide, 143,000 in one 1,024 wide, the last from 142,336. These are the
 * values INFO latencystats shows for calls of 2, 32 and 143 us. */
static void testSlotsKeepTwoSignificantDigits(void) {
    CHECK_EQ_INT(hdrHighestEquivalent(5), 5);
    CHECK_EQ_INT(hdrHighestEquivalent(255), 255);
    CHECK_EQ_INT(hdrHighestEquivalent(1000), 1003);
    CHECK_EQ_INT(hdrHighestEquivalent(2000), 2007);
    CHECK_EQ_INT(hdrHighestEquivalent(32000), 32127);
    CHECK_EQ_INT(hdrHighestEquivalent(143000), 143359);
    CHECK_EQ_INT(hdrIndexOf(5), 5);
    CHECK_EQ_INT(hdrIndexOf(256), 256);
    CHECK(hdrIndexOf(HDR_HIGHEST) < HDR_COUNTS_LEN);
    CHECK_EQ_INT(HDR_COUNTS_LEN, 3072);
}

/* 1 to 100 us, one call each: the median is the slot of 50 us (49,920 to
 * 50,175 ns), p0 the lowest value of the first slot and p100 the top of
 * the last (99,840 to 100,351). */
static void testPercentilesAnswerTheTopOfTheirSlot(void) {
    gkMem m;
    memInit(&m, NULL, NULL);
    hdrHistogram *h = hdrCreate(&m);
    CHECK_EQ_INT(hdrValueAtPercentile(h, 50), 0);
    for (int us = 1; us <= 100; us++) hdrRecord(h, us * 1000LL);
    hdrRecord(h, HDR_HIGHEST + 1);
    CHECK_EQ_INT(h->total, 100);
    CHECK_EQ_INT(hdrValueAtPercentile(h, 50), 50175);
    CHECK_EQ_INT(hdrValueAtPercentile(h, 0), 1000);
    CHECK_EQ_INT(hdrValueAtPercentile(h, 100), 100351);
    CHECK_EQ_INT(hdrValueAtPercentile(h, 99.9), 100351);
    CHECK_EQ_INT(hdrCountUpTo(h, 1024), 1);
    CHECK_EQ_INT(hdrCountUpTo(h, 2048), 2);
    /* Its header and counters are charged what Redis's are. */
    CHECK_EQ_INT(m.used, 112 + 24576);
    hdrRelease(&m, h);
    CHECK_EQ_INT(m.used, 0);
}

static long long usedMemory(node *n) {
    const char *p = strstr(nodeCmd(n, "INFO memory"), "\r\nused_memory:");
    return p ? atoll(p + 14) : -1;
}

/* A command's first call makes its histogram: 24,688 bytes; the next
 * calls add nothing. INFO latencystats reports the configured percentiles
 * of each command called, and CONFIG SET changes them. */
static void testFirstCallAddsAHistogram(void) {
    node n;
    nodeOpen(&n, 3, NULL);
    nodeCmd(&n, "CONFIG RESETSTAT");
    usedMemory(&n);
    long long before = usedMemory(&n);
    nodeCmd(&n, "ECHO a");
    long long after = usedMemory(&n);
    CHECK_EQ_INT(after - before, 24688);
    nodeCmd(&n, "ECHO a");
    CHECK_EQ_INT(usedMemory(&n), after);
    const char *info = nodeCmd(&n, "INFO latencystats");
    CHECK(strstr(info, "# Latencystats\r\n") != NULL);
    CHECK(strstr(info, "\r\nlatency_percentiles_usec_echo:p50=") != NULL);
    CHECK(strstr(info, ",p99=") != NULL && strstr(info, ",p99.9=") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET latency-tracking-info-percentiles "
                         "\"0 50 100\""), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG GET latency-tracking-info-percentiles"),
                 "*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n"
                 "$8\r\n0 50 100\r\n");
    CHECK(strstr(nodeCmd(&n, "INFO latencystats"),
                 "latency_percentiles_usec_echo:p0=") != NULL);
    CHECK(strstr(nodeCmd(&n, "INFO"), "Latencystats") == NULL);
    nodeClose(&n);
}

int main(void) {
    RUN("the histogram's slots keep two significant digits",
        testSlotsKeepTwoSignificantDigits);
    RUN("a percentile is the top of the slot where the count reaches it",
        testPercentilesAnswerTheTopOfTheirSlot);
    RUN("a command's first call adds its 24,688-byte histogram, and INFO "
        "latencystats reports it", testFirstCallAddsAHistogram);
    return gkTestReport();
}
