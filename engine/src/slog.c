/* slog.c -- see slog.h. */
#include <stdio.h>
#include <string.h>
#include "slog.h"

/* An empty ring of cap lines. */
void logInit(gkLog *l, gkMem *mem, uint32_t cap) {
    l->mem = mem;
    l->cap = cap ? cap : 1;
    l->lines = memCalloc(mem, sizeof(sds) * l->cap);
    l->seq = 0;
}

/* Frees the lines and the ring. */
void logRelease(gkLog *l) {
    if (!l->lines) return;
    for (uint32_t i = 0; i < l->cap; i++)
        if (l->lines[i]) sdsfree(l->mem, l->lines[i]);
    memFree(l->mem, l->lines);
    l->lines = NULL;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), so the
 * timestamps never depend on the host's time zone. */
static void _civil(int64_t days, int *y, int *m, int *d) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t doe = days - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* Writes "22 Nov 2026 10:51:30.349" for unix_ms. Returns its length. */
int logFormatTime(char *buf, size_t cap, int64_t unix_ms) {
    static const char *mon[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    int64_t secs = unix_ms / 1000, ms = unix_ms % 1000;
    int64_t days = secs / 86400, rem = secs % 86400;
    int y, m, d;
    _civil(days, &y, &m, &d);
    return snprintf(buf, cap, "%02d %s %d %02d:%02d:%02d.%03d", d,
                    mon[m - 1], y, (int)(rem / 3600), (int)(rem / 60 % 60),
                    (int)(rem % 60), (int)ms);
}

/* Appends one line. */
void logAppend(gkLog *l, int pid, char role, int level, int64_t unix_ms,
               const char *msg) {
    char ts[64];
    logFormatTime(ts, sizeof(ts), unix_ms);
    sds line = sdscatprintf(l->mem, sdsempty(l->mem), "%d:%c %s %c %s", pid,
                            role, ts, ".-*#"[level & 3], msg);
    uint32_t slot = (uint32_t)(++l->seq % l->cap);
    if (l->lines[slot]) sdsfree(l->mem, l->lines[slot]);
    l->lines[slot] = line;
}

/* Copies the lines newer than `after`, each ending in '\n', as many as
 * fit in cap bytes (a NUL follows them when there is room). *last gets
 * the number of the last line copied (after, if none). Lines already
 * pushed out of the ring are skipped. Returns the bytes written. */
size_t logRead(const gkLog *l, uint64_t after, char *out, size_t cap,
               uint64_t *last) {
    uint64_t first = after + 1;
    if (l->seq > l->cap && first <= l->seq - l->cap)
        first = l->seq - l->cap + 1;
    size_t n = 0;
    *last = after;
    for (uint64_t s = first; s <= l->seq; s++) {
        sds line = l->lines[s % l->cap];
        size_t len = sdslen(line);
        if (n + len + 1 > cap) break;
        memcpy(out + n, line, len);
        out[n + len] = '\n';
        n += len + 1;
        *last = s;
    }
    if (n < cap) out[n] = '\0';
    return n;
}
