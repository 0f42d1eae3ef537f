/* slog.h -- a server's log: a bounded ring of lines in Redis 7.0's format
 *
 *     pid:role dd Mon yyyy HH:MM:SS.mmm <level> message
 *
 * where role is M (the server), C (a forked child) and level is one of
 * '.' debug, '-' verbose, '*' notice, '#' warning. The timestamp is the
 * virtual time, as UTC. The ring belongs to the machine, not to the
 * process, so the lines of a process that crashed stay readable after
 * the restart, as a log file would. */
#ifndef GK_SLOG_H
#define GK_SLOG_H

#include <stdint.h>
#include <stddef.h>
#include "mem.h"
#include "sds.h"

#define LL_DEBUG 0
#define LL_VERBOSE 1
#define LL_NOTICE 2
#define LL_WARNING 3

typedef struct gkLog {
    gkMem *mem;
    sds *lines;             /* cap lines, a ring */
    uint32_t cap;
    uint64_t seq;           /* number of the newest line, from 1 */
} gkLog;

void logInit(gkLog *l, gkMem *mem, uint32_t cap);
void logRelease(gkLog *l);
void logAppend(gkLog *l, int pid, char role, int level, int64_t unix_ms,
               const char *msg);
size_t logRead(const gkLog *l, uint64_t after, char *out, size_t cap,
               uint64_t *last);
int logFormatTime(char *buf, size_t cap, int64_t unix_ms);

#endif
