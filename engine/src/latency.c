/* latency.c -- the latency monitor and the LATENCY command, as Redis 7.0
 * has them.
 *
 * An event is a named kind of stall. The engine measures those of Redis's
 * that it has: "command" (a command not flagged fast), "fast-command",
 * "expire-cycle" (an active expire cycle), "expire-del" (deleting an
 * expired key), "fork" (the AOF rewrite's), "aof-write" with one of
 * "aof-write-pending-fsync", "aof-write-active-child" and
 * "aof-write-alone" (what the write may have waited behind),
 * "aof-fsync-always", "aof-fstat" and "aof-rename" (AOF files' sizes
 * and renames), "command-unblocking" (serving a blocked client). Whoever measures one hands its milliseconds to
 * latencyAddSampleIfNeeded, which keeps it only if latency-monitor-
 * threshold is set and reached. Each event has a ring of 160 samples,
 * one per second in which it happened, holding that second's worst, and
 * its all-time high. Durations are the engine's own measure: a
 * command's is the virtual CPU time it cost (what INFO commandstats
 * adds up), so a DEBUG SLEEP of 0.3 s is a 300 ms "command" sample.
 *
 * Apart from events, every command call is counted in a histogram of its
 * durations in buckets doubling from 1024 ns, which LATENCY HISTOGRAM
 * reports as Redis reports its HdrHistogram walked by powers of two:
 * each bucket labelled with the highest value it holds, in microseconds,
 * and the count of calls up to it. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "server.h"

/* ==== Events ==== */

/* The current unix time in seconds, read now (a command may have moved
 * the clock since the event began). */
static int32_t _latencyNow(redisServer *s) {
    return (int32_t)((s->unix_ms_at_zero * 1000 +
                      (long long)(serverNow(s) / 1000)) / 1000000);
}

static latencyTimeSeries *_latencyFind(redisServer *s, const char *event) {
    for (int i = 0; i < s->latency.nevents; i++)
        if (!strcmp(s->latency.events[i]->event, event))
            return s->latency.events[i];
    return NULL;
}

/* Records latency_ms for event: a new second takes the next slot of the
 * ring; a second already sampled keeps the worse of the two. */
void latencyAddSample(redisServer *s, const char *event,
                      long long latency_ms) {
    latencyState *l = &s->latency;
    latencyTimeSeries *ts = _latencyFind(s, event);
    int32_t now = _latencyNow(s);
    uint32_t ms = (uint32_t)latency_ms;
    if (ts == NULL) {
        if (l->nevents == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 8;
            l->events = memRealloc(s->mem, l->events,
                                   sizeof(*l->events) * (size_t)l->cap);
        }
        ts = memCalloc(s->mem, sizeof(*ts));
        snprintf(ts->event, sizeof(ts->event), "%s", event);
        l->events[l->nevents++] = ts;
    }
    if (ms > ts->max) ts->max = ms;
    latencySample *prev =
        &ts->samples[(ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN];
    if (prev->time == now) {
        if (ms > prev->latency) prev->latency = ms;
        return;
    }
    ts->samples[ts->idx].time = now;
    ts->samples[ts->idx].latency = ms;
    ts->idx = (ts->idx + 1) % LATENCY_TS_LEN;
}

/* Records the sample if the monitor is on and it reaches the threshold. */
void latencyAddSampleIfNeeded(redisServer *s, const char *event,
                              long long latency_ms) {
    if (s->cfg.latency_monitor_threshold &&
        latency_ms >= s->cfg.latency_monitor_threshold)
        latencyAddSample(s, event, latency_ms);
}

/* Forgets event (any case), or every event when event is NULL. Returns
 * how many were forgotten. */
static int latencyResetEvent(redisServer *s, const char *event) {
    latencyState *l = &s->latency;
    int resets = 0, kept = 0;
    for (int i = 0; i < l->nevents; i++) {
        if (event == NULL || !strcasecmp(l->events[i]->event, event)) {
            memFree(s->mem, l->events[i]);
            resets++;
        } else {
            l->events[kept++] = l->events[i];
        }
    }
    l->nevents = kept;
    return resets;
}

/* ==== Command histograms ==== */

/* Counts one call of command cmdid that took duration_ns (in whole
 * microseconds, clamped to 1 ns .. 1 s, as Redis records it) in the
 * command's HDR histogram, made at its first call. */
void latencyRecordCommand(redisServer *s, int cmdid, long long duration_ns) {
    latencyState *l = &s->latency;
    if (!s->cfg.latency_tracking) return;
    /* Redis times a call in whole microseconds (ustime), then records
     * them as nanoseconds. */
    duration_ns = duration_ns / 1000 * 1000;
    if (duration_ns < HDR_LOWEST) duration_ns = HDR_LOWEST;
    if (duration_ns > HDR_HIGHEST) duration_ns = HDR_HIGHEST;
    if (l->hist == NULL)
        l->hist = memCallocAs(s->mem, sizeof(*l->hist) * (size_t)s->ncommands,
                              MEM64_PTR * (size_t)s->ncommands);
    if (l->hist[cmdid] == NULL) l->hist[cmdid] = hdrCreate(s->mem);
    hdrRecord(l->hist[cmdid], duration_ns);
}

/* Drops every command's histogram (CONFIG RESETSTAT). */
void latencyResetHistograms(redisServer *s) {
    latencyState *l = &s->latency;
    if (l->hist == NULL) return;
    for (int i = 0; i < s->ncommands; i++) {
        hdrRelease(s->mem, l->hist[i]);
        l->hist[i] = NULL;
    }
}

/* Frees the monitor's state (the server is going away). */
void latencyRelease(redisServer *s) {
    latencyResetEvent(s, NULL);
    latencyResetHistograms(s);
    memFree(s->mem, s->latency.events);
    memFree(s->mem, s->latency.hist);
}

/* The reporting levels of LATENCY HISTOGRAM: 1024 ns, then each double
 * of it, until every call is counted. At each, the calls counted in its
 * slot and below; the level is labelled with its slot's highest value in
 * microseconds (1, 2, 4, 8 ... 1,000,000). Fills labels and cums (room
 * for 64) and returns how many levels show a count that grew. */
static int _histogramLevels(const hdrHistogram *h, long long *labels,
                            long long *cums) {
    int n = 0;
    int64_t prev = 0;
    for (int64_t level = 1024; n < 64; level *= 2) {
        int64_t cum = hdrCountUpTo(h, level);
        if (cum > prev) {
            labels[n] = hdrHighestEquivalent(level) / 1000;
            cums[n++] = cum;
        }
        prev = cum;
        if (cum >= h->total || level > HDR_HIGHEST) break;
    }
    return n;
}

/* One line of INFO latencystats for a command that has a histogram:
 * latency_percentiles_usec_<name>:p50=2.007,p99=4.015,p99.9=4.015, the
 * configured percentiles' values in microseconds. */
sds latencyInfoLine(redisServer *s, sds info, const redisCommand *cmd) {
    const hdrHistogram *h = s->latency.hist ? s->latency.hist[cmd->id] : NULL;
    if (!h) return info;
    info = sdscatprintf(s->mem, info, "latency_percentiles_usec_%s:",
                        cmd->fullname);
    for (int j = 0; j < s->cfg.latency_percentiles_n; j++) {
        char p[64];
        double pc = s->cfg.latency_percentiles[j];
        configPercentileString(p, sizeof(p), pc);
        info = sdscatprintf(s->mem, info, "%sp%s=%.3f", j ? "," : "", p,
                            (double)hdrValueAtPercentile(h, pc) / 1000.0);
    }
    return sdscat(s->mem, info, "\r\n");
}

/* Replies with a command's histogram: {calls, histogram_usec: {label:
 * cumulative count}} over the levels where the count grows, as Redis's
 * logarithmic walk of its HDR histogram gives them. */
static void _replyHistogram(client *c, const hdrHistogram *h) {
    long long labels[64], cums[64];
    int n = _histogramLevels(h, labels, cums);
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "calls");
    addReplyLongLong(c, h->total);
    addReplyBulkCString(c, "histogram_usec");
    addReplyMapLen(c, n);
    for (int i = 0; i < n; i++) {
        addReplyLongLong(c, labels[i]);
        addReplyLongLong(c, cums[i]);
    }
}

static const hdrHistogram *_histOf(redisServer *s,
                                       const redisCommand *cmd) {
    return s->latency.hist ? s->latency.hist[cmd->id] : NULL;
}

/* Replies with cmd's histogram under its full name if it has one, and
 * with its subcommands' when subs. Returns how many were replied. */
static int _replyCommandHistograms(client *c, const redisCommand *cmd,
                                   int subs) {
    int n = 0;
    const hdrHistogram *h = _histOf(c->srv, cmd);
    if (h) {
        addReplyBulkCString(c, cmd->fullname);
        _replyHistogram(c, h);
        n++;
    }
    if (subs && cmd->subcommands)
        for (const redisCommand *sub = cmd->subcommands; sub->declared_name;
             sub++)
            n += _replyCommandHistograms(c, sub, 0);
    return n;
}

/* The command named name ("get", or "client|id" for a subcommand), or
 * NULL. */
static const redisCommand *_lookupByFullName(redisServer *s,
                                             const char *name) {
    const char *bar = strchr(name, '|');
    sds top = sdsnewlen(s->mem, name, bar ? (size_t)(bar - name)
                                          : strlen(name));
    const redisCommand *cmd = dictFetchValue(s->commands, top);
    sdsfree(s->mem, top);
    if (cmd == NULL || bar == NULL) return cmd;
    if (cmd->subcommands == NULL) return NULL;
    for (const redisCommand *sub = cmd->subcommands; sub->declared_name;
         sub++)
        if (!strcasecmp(sub->declared_name, bar + 1)) return sub;
    return NULL;
}

/* LATENCY HISTOGRAM [command ...]: a map from command name to its
 * histogram, for every command called since the last CONFIG RESETSTAT,
 * or for the named ones (a container brings its subcommands; unknown
 * names are skipped). */
void latencyHistogramCommand(client *c) {
    redisServer *s = c->srv;
    void *len = addReplyDeferredLen(c);
    int n = 0;
    if (c->argc == 2) {
        for (const redisCommand *cmd = s->cmdtable; cmd->declared_name; cmd++)
            n += _replyCommandHistograms(c, cmd, 1);
    } else {
        for (int j = 2; j < c->argc; j++) {
            const redisCommand *cmd = _lookupByFullName(s, c->argv[j]->v.ptr);
            if (cmd) n += _replyCommandHistograms(c, cmd, 1);
        }
    }
    setDeferredMapLen(c, len, n);
}

/* ==== LATENCY's other subcommands ==== */

/* LATENCY LATEST: for each event [name, time of the latest sample, its
 * latency, all-time high]. */
void latencyLatestCommand(client *c) {
    latencyState *l = &c->srv->latency;
    addReplyArrayLen(c, l->nevents);
    for (int i = 0; i < l->nevents; i++) {
        latencyTimeSeries *ts = l->events[i];
        latencySample *last =
            &ts->samples[(ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN];
        addReplyArrayLen(c, 4);
        addReplyBulkCString(c, ts->event);
        addReplyLongLong(c, last->time);
        addReplyLongLong(c, last->latency);
        addReplyLongLong(c, ts->max);
    }
}

/* LATENCY HISTORY event: its samples, oldest first, as [time, latency]. */
void latencyHistoryCommand(client *c) {
    latencyTimeSeries *ts = _latencyFind(c->srv, c->argv[2]->v.ptr);
    if (ts == NULL) {
        addReplyArrayLen(c, 0);
        return;
    }
    void *len = addReplyDeferredLen(c);
    int n = 0;
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        latencySample *sm = &ts->samples[(ts->idx + j) % LATENCY_TS_LEN];
        if (sm->time == 0) continue;
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, sm->time);
        addReplyLongLong(c, sm->latency);
        n++;
    }
    setDeferredArrayLen(c, len, n);
}

/* LATENCY RESET [event ...]: forgets the events (all without names) and
 * replies how many were forgotten. */
void latencyResetCommand(client *c) {
    int resets = 0;
    if (c->argc == 2) {
        resets = latencyResetEvent(c->srv, NULL);
    } else {
        for (int j = 2; j < c->argc; j++)
            resets += latencyResetEvent(c->srv, c->argv[j]->v.ptr);
    }
    addReplyLongLong(c, resets);
}

/* ---- LATENCY GRAPH: Redis's sparkline, 4 rows of 80 columns. ---- */

#define GRAPH_COLS 80
#define GRAPH_ROWS 4

/* Appends the rows of samples [off, off + len) of vals: GRAPH_ROWS rows
 * of "_o#" fill characters ('|' below the top of a bar), values scaled
 * between min and max, then one blank row and the labels written
 * downwards, one character per row. */
static sds _graphRange(redisServer *s, sds out, const uint32_t *vals,
                       char labels[][16], int off, int len, double min,
                       double max) {
    static const char fill[] = "_o#";
    const int charset_len = 3, steps = charset_len * GRAPH_ROWS;
    double relmax = max - min == 0 ? 1 : max - min;
    char chars[GRAPH_COLS];
    for (int row = 0;; row++) {
        int more = 0;
        memset(chars, ' ', sizeof(chars));
        for (int j = 0; j < len; j++) {
            int step = (int)(((double)vals[off + j] - min) * steps) /
                       relmax;
            if (step < 0) step = 0;
            if (step >= steps) step = steps - 1;
            if (row < GRAPH_ROWS) {
                int idx = step - (GRAPH_ROWS - row - 1) * charset_len;
                more = 1;
                if (idx >= 0 && idx < charset_len) chars[j] = fill[idx];
                else if (idx >= charset_len) chars[j] = '|';
            } else if (row == GRAPH_ROWS) {
                more = 1;       /* the blank row above the labels */
                break;
            } else {
                const char *label = labels[off + j];
                int at = row - GRAPH_ROWS - 1;
                if ((int)strlen(label) > at) {
                    more = 1;
                    chars[j] = label[at];
                }
            }
        }
        if (!more) break;
        out = sdscatlen(s->mem, out, chars, (size_t)len);
        out = sdscatlen(s->mem, out, "\n", 1);
    }
    return out;
}

/* LATENCY GRAPH event: the event's samples as an ASCII graph, labelled
 * with how long ago each happened. */
void latencyGraphCommand(client *c) {
    redisServer *s = c->srv;
    latencyTimeSeries *ts = _latencyFind(s, c->argv[2]->v.ptr);
    if (ts == NULL) {
        addReplyErrorFormat(c, "No samples available for event '%s'",
                            (char *)c->argv[2]->v.ptr);
        return;
    }
    uint32_t vals[LATENCY_TS_LEN], min = 0, max = 0;
    char labels[LATENCY_TS_LEN][16];
    int n = 0;
    int32_t now = _latencyNow(s);
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        latencySample *sm = &ts->samples[(ts->idx + j) % LATENCY_TS_LEN];
        if (sm->time == 0) continue;
        if (n == 0 || sm->latency > max) max = sm->latency;
        if (n == 0 || sm->latency < min) min = sm->latency;
        int ago = now - sm->time;
        if (ago < 60) snprintf(labels[n], 16, "%ds", ago);
        else if (ago < 3600) snprintf(labels[n], 16, "%dm", ago / 60);
        else if (ago < 86400) snprintf(labels[n], 16, "%dh", ago / 3600);
        else snprintf(labels[n], 16, "%dd", ago / 86400);
        vals[n++] = sm->latency;
    }
    sds g = sdscatprintf(s->mem, sdsempty(s->mem),
        "%s - high %lu ms, low %lu ms (all time high %lu ms)\n", ts->event,
        (unsigned long)max, (unsigned long)min, (unsigned long)ts->max);
    for (int j = 0; j < GRAPH_COLS; j++) g = sdscatlen(s->mem, g, "-", 1);
    g = sdscatlen(s->mem, g, "\n", 1);
    for (int j = 0; j < n; j += GRAPH_COLS) {
        int len = n - j < GRAPH_COLS ? n - j : GRAPH_COLS;
        if (j) g = sdscatlen(s->mem, g, "\n", 1);
        g = _graphRange(s, g, vals, labels, j, len, min, max);
    }
    addReplyVerbatim(c, g, sdslen(g), "txt");
    sdsfree(s->mem, g);
}

/* ---- LATENCY DOCTOR ---- */

/* An event's figures: samples, their average and mean absolute
 * deviation (ms), and the seconds since the oldest (at least 1). */
typedef struct latencyStats {
    int samples;
    unsigned long avg, mad;
    long long period;
} latencyStats;

static void _analyze(redisServer *s, latencyTimeSeries *ts,
                     latencyStats *st) {
    unsigned long long sum = 0;
    int32_t oldest = 0;
    memset(st, 0, sizeof(*st));
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        if (ts->samples[j].time == 0) continue;
        st->samples++;
        sum += ts->samples[j].latency;
        if (oldest == 0 || ts->samples[j].time < oldest)
            oldest = ts->samples[j].time;
    }
    if (st->samples == 0) return;
    st->avg = (unsigned long)(sum / (unsigned long long)st->samples);
    st->period = _latencyNow(s) - oldest;
    if (st->period == 0) st->period = 1;
    sum = 0;
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        if (ts->samples[j].time == 0) continue;
        long long d = (long long)st->avg - ts->samples[j].latency;
        sum += (unsigned long long)(d < 0 ? -d : d);
    }
    st->mad = (unsigned long)(sum / (unsigned long long)st->samples);
}

/* The doctor's advice, in the order it is given. */
enum {
    ADV_BETTER_VM = 1 << 0, ADV_SLOWLOG_ENABLE = 1 << 1,
    ADV_SLOWLOG_TUNE = 1 << 2, ADV_SLOWLOG_INSPECT = 1 << 3,
    ADV_SCHEDULER = 1 << 4, ADV_LOCAL_DISK = 1 << 5, ADV_SSD = 1 << 6,
    ADV_DATA_WRITEBACK = 1 << 7, ADV_DISK_CONTENTION = 1 << 8,
    ADV_NO_APPENDFSYNC = 1 << 9, ADV_RELAX_FSYNC = 1 << 10,
    ADV_WRITE_LOAD = 1 << 11, ADV_HZ = 1 << 12, ADV_LARGE_OBJECTS = 1 << 13,
    ADV_MASS_EVICTION = 1 << 14
};

/* What each event calls for, as Redis's doctor decides ("command" and
 * "fork" also depend on the configuration; see _adviseFor). */
static const struct {
    const char *event;
    int advise;
} eventAdvice[] = {
    { "command", ADV_SLOWLOG_INSPECT | ADV_LARGE_OBJECTS },
    { "fast-command", ADV_SCHEDULER },
    { "aof-write-pending-fsync", ADV_LOCAL_DISK | ADV_DISK_CONTENTION |
                                 ADV_SSD | ADV_DATA_WRITEBACK },
    { "aof-write-active-child", ADV_NO_APPENDFSYNC | ADV_DATA_WRITEBACK |
                                ADV_SSD },
    { "aof-write-alone", ADV_LOCAL_DISK | ADV_DATA_WRITEBACK | ADV_SSD },
    { "aof-fsync-always", ADV_RELAX_FSYNC },
    { "aof-fstat", ADV_DISK_CONTENTION | ADV_LOCAL_DISK },
    { "rdb-unlink-temp-file", ADV_DISK_CONTENTION | ADV_LOCAL_DISK },
    { "aof-rewrite-diff-write", ADV_WRITE_LOAD | ADV_DATA_WRITEBACK |
                                ADV_SSD | ADV_LOCAL_DISK },
    { "aof-rename", ADV_WRITE_LOAD | ADV_DATA_WRITEBACK | ADV_SSD |
                    ADV_LOCAL_DISK },
    { "expire-cycle", ADV_HZ | ADV_LARGE_OBJECTS },
    { "eviction-del", ADV_LARGE_OBJECTS },
    { "eviction-cycle", ADV_MASS_EVICTION },
};

static int _bits(int v) {
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* ORs into *advise what event calls for and returns how many pieces of
 * advice that is (Redis counts them even when one is then not given). */
static int _adviseFor(redisServer *s, const char *event, int *advise) {
    int add = 0;
    if (!strcasecmp(event, "fork") && s->latency.fork_rate < 25)
        add |= ADV_BETTER_VM;
    if (!strcasecmp(event, "command")) {
        if (s->cfg.slowlog_log_slower_than < 0)
            add |= ADV_SLOWLOG_ENABLE;
        else if (s->cfg.slowlog_log_slower_than / 1000 >
                 s->cfg.latency_monitor_threshold)
            add |= ADV_SLOWLOG_TUNE;
    }
    for (size_t i = 0; i < sizeof(eventAdvice) / sizeof(*eventAdvice); i++)
        if (!strcasecmp(event, eventAdvice[i].event))
            add |= eventAdvice[i].advise;
    *advise |= add;
    return _bits(add);
}

/* The fork's quality as the doctor words it. */
static const char *_forkQuality(double rate) {
    return rate < 10 ? "terrible" : rate < 25 ? "poor" :
           rate < 100 ? "good" : "excellent";
}

/* The texts of the advice, in ADV_* order. */
static const char *const adviceText[] = {
    "- If you are using a virtual machine, consider upgrading it with a "
    "faster one using a hypervisior that provides less latency during "
    "fork() calls. Xen is known to have poor fork() performance. Even in "
    "the context of the same VM provider, certain kinds of instances can "
    "execute fork faster than others.\n",
    "- There are latency issues with potentially slow commands you are "
    "using. Try to enable the Slow Log Redis feature using the command "
    "'CONFIG SET slowlog-log-slower-than %llu'. If the Slow log is "
    "disabled Redis is not able to log slow commands execution for you.\n",
    "- Your current Slow Log configuration only logs events that are "
    "slower than your configured latency monitor threshold. Please use "
    "'CONFIG SET slowlog-log-slower-than %llu'.\n",
    "- Check your Slow Log to understand what are the commands you are "
    "running which are too slow to execute. Please check "
    "https://redis.io/commands/slowlog for more information.\n",
    "- The system is slow to execute Redis code paths not containing "
    "system calls. This usually means the system does not provide Redis "
    "CPU time to run for long periods. You should try to:\n"
    "  1) Lower the system load.\n"
    "  2) Use a computer / VM just for Redis if you are running other "
    "software in the same system.\n"
    "  3) Check if you have a \"noisy neighbour\" problem.\n"
    "  4) Check with 'redis-cli --intrinsic-latency 100' what is the "
    "intrinsic latency in your system.\n"
    "  5) Check if the problem is allocator-related by recompiling Redis "
    "with MALLOC=libc, if you are using Jemalloc. However this may create "
    "fragmentation problems.\n",
    "- It is strongly advised to use local disks for persistence, "
    "especially if you are using AOF. Remote disks provided by "
    "platform-as-a-service providers are known to be slow.\n",
    "- SSD disks are able to reduce fsync latency, and total time needed "
    "for snapshotting and AOF log rewriting (resulting in smaller memory "
    "usage). With extremely high write load SSD disks can be a good "
    "option. However Redis should perform reasonably with high load using "
    "normal disks. Use this advice as a last resort.\n",
    "- Mounting ext3/4 filesystems with data=writeback can provide a "
    "performance boost compared to data=ordered, however this mode of "
    "operation provides less guarantees, and sometimes it can happen that "
    "after a hard crash the AOF file will have a half-written command at "
    "the end and will require to be repaired before Redis restarts.\n",
    "- Try to lower the disk contention. This is often caused by other "
    "disk intensive processes running in the same computer (including "
    "other Redis instances).\n",
    "- Assuming from the point of view of data safety this is viable in "
    "your environment, you could try to enable the "
    "'no-appendfsync-on-rewrite' option, so that fsync will not be "
    "performed while there is a child rewriting the AOF file or producing "
    "an RDB file (the moment where there is high disk contention).\n",
    "- Your fsync policy is set to 'always'. It is very hard to get good "
    "performances with such a setup, if possible try to relax the fsync "
    "policy to 'onesec'.\n",
    "- Latency during the AOF atomic rename operation or when the final "
    "difference is flushed to the AOF file at the end of the rewrite, "
    "sometimes is caused by very high write load, causing the AOF buffer "
    "to get very large. If possible try to send less commands to "
    "accomplish the same work, or use Lua scripts to group multiple "
    "operations into a single EVALSHA call.\n",
    "- In order to make the Redis keys expiring process more incremental, "
    "try to set the 'hz' configuration parameter to 100 using 'CONFIG SET "
    "hz 100'.\n",
    "- Deleting, expiring or evicting (because of maxmemory policy) large "
    "objects is a blocking operation. If you have very large objects that "
    "are often deleted, expired, or evicted, try to fragment those objects "
    "into multiple smaller objects.\n",
    "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or "
    "allocation of large objects via sets or sorted sets intersections, "
    "STORE option of SORT, Redis Cluster large keys migrations (RESTORE "
    "command), may create sudden memory pressure forcing the server to "
    "block trying to evict keys. \n",
};

/* Appends the advice in advise. Two pieces are given only when they
 * still apply: relaxing the fsync policy, and raising hz. */
static sds _doctorAdvice(redisServer *s, sds r, int advise) {
    unsigned long long t = (unsigned long long)
                           s->cfg.latency_monitor_threshold * 1000;
    if (s->cfg.appendfsync != AOF_FSYNC_ALWAYS) advise &= ~ADV_RELAX_FSYNC;
    if (s->cfg.hz >= 100) advise &= ~ADV_HZ;
    r = sdscat(s->mem, r, "\nI have a few advices for you:\n\n");
    for (size_t i = 0; i < sizeof(adviceText) / sizeof(*adviceText); i++) {
        if (!(advise & (1 << i))) continue;
        if ((1 << i) == ADV_SLOWLOG_ENABLE || (1 << i) == ADV_SLOWLOG_TUNE)
            r = sdscatprintf(s->mem, r, adviceText[i], t);
        else
            r = sdscat(s->mem, r, adviceText[i]);
    }
    return r;
}

/* LATENCY DOCTOR: Redis's report, event by event, then its advice. */
void latencyDoctorCommand(client *c) {
    redisServer *s = c->srv;
    gkMem *m = s->mem;
    sds r = sdsempty(m);
    int advise = 0, advices = 0;
    if (s->latency.nevents == 0 && s->cfg.latency_monitor_threshold == 0) {
        r = sdscat(m, r, "I'm sorry, Dave, I can't do that. Latency "
            "monitoring is disabled in this Redis instance. You may use "
            "\"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
            "order to enable it. If we weren't in a deep space mission I'd "
            "suggest to take a look at "
            "https://redis.io/topics/latency-monitor.\n");
    } else {
        for (int i = 0; i < s->latency.nevents; i++) {
            latencyTimeSeries *ts = s->latency.events[i];
            latencyStats st;
            if (i == 0)
                r = sdscat(m, r, "Dave, I have observed latency spikes in "
                    "this Redis instance. You don't mind talking about it, "
                    "do you Dave?\n\n");
            _analyze(s, ts, &st);
            r = sdscatprintf(m, r, "%d. %s: %d latency spikes (average "
                "%lums, mean deviation %lums, period %.2f sec). Worst all "
                "time event %lums.", i + 1, ts->event, st.samples,
                st.avg, st.mad, (double)st.period / st.samples,
                (unsigned long)ts->max);
            if (!strcasecmp(ts->event, "fork"))
                r = sdscatprintf(m, r, " Fork rate is %.2f GB/sec (%s).",
                                 s->latency.fork_rate,
                                 _forkQuality(s->latency.fork_rate));
            r = sdscatlen(m, r, "\n", 1);
            advices += _adviseFor(s, ts->event, &advise);
        }
        if (s->latency.nevents == 0 && advices == 0)
            r = sdscat(m, r, "Dave, no latency spike was observed during "
                "the lifetime of this Redis instance, not in the slightest "
                "bit. I honestly think you ought to sit down calmly, take a "
                "stress pill, and think things over.\n");
        else if (advices == 0)
            r = sdscat(m, r, "\nWhile there are latency events logged, I'm "
                "not able to suggest any easy fix. Please use the Redis "
                "community to get some help, providing this report in your "
                "help request.\n");
        else
            r = _doctorAdvice(s, r, advise);
    }
    addReplyVerbatim(c, r, sdslen(r), "txt");
    sdsfree(m, r);
}

/* LATENCY HELP. */
void latencyHelpCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of "
        "a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
        NULL
    };
    addReplyHelp(c, help);
}
