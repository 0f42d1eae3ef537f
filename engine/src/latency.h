/* latency.h -- the latency monitor (Redis 7.0's latency.c): per event
 * ("command", "fast-command", "expire-cycle" ...) a ring of the last
 * LATENCY_TS_LEN seconds that had a sample at or over
 * latency-monitor-threshold milliseconds, keeping each second's worst;
 * and per command the histogram LATENCY HISTOGRAM reports. */
#ifndef GK_LATENCY_H
#define GK_LATENCY_H

#include <stdint.h>
#include "hdr.h"

#define LATENCY_TS_LEN 160          /* samples kept per event */
#define LATENCY_EVENT_NAME_LEN 32   /* longest event name, NUL included */
struct redisServer;

/* The milliseconds of virtual CPU time server s spent since its clock
 * read cpu0 (s->denv.cpu_ns when the measured work began): what the
 * engine's latency samples measure. */
#define latencyMsSince(s, cpu0) \
    ((long long)(((s)->denv.cpu_ns - (cpu0)) / 1000000))

/* One second's worst sample. time 0: an empty slot. */
typedef struct latencySample {
    int32_t time;               /* unix seconds */
    uint32_t latency;           /* milliseconds */
} latencySample;

/* An event's samples, a ring whose next slot is idx. */
typedef struct latencyTimeSeries {
    char event[LATENCY_EVENT_NAME_LEN];
    int idx;
    uint32_t max;               /* all-time high, milliseconds */
    latencySample samples[LATENCY_TS_LEN];
} latencyTimeSeries;

/* The monitor's state. */
typedef struct latencyState {
    latencyTimeSeries **events; /* in the order they first happened */
    int nevents, cap;
    hdrHistogram **hist;        /* by command id, NULL until first call */
    double fork_rate;           /* GB/s of the last fork, for the doctor */
} latencyState;

void latencyAddSample(struct redisServer *s, const char *event,
                      long long latency_ms);
void latencyAddSampleIfNeeded(struct redisServer *s, const char *event,
                              long long latency_ms);
void latencyRecordCommand(struct redisServer *s, int cmdid,
                          long long duration_ns);
void latencyResetHistograms(struct redisServer *s);
void latencyRelease(struct redisServer *s);

#endif
