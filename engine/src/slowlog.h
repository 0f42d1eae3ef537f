/* slowlog.h -- the slow log: the last slowlog-max-len commands that took
 * at least slowlog-log-slower-than microseconds, newest first, as Redis
 * 7.0 keeps them (slowlog.c). */
#ifndef GK_SLOWLOG_H
#define GK_SLOWLOG_H

#include "sds.h"

#define SLOWLOG_ENTRY_MAX_ARGC 32   /* arguments kept per entry */
#define SLOWLOG_ENTRY_MAX_STRING 128 /* bytes kept per argument */

struct client;
struct redisServer;
struct robj;
struct redisCommand;

/* One logged command. */
typedef struct slowlogEntry {
    struct robj **argv;         /* trimmed copies (see slowlogCreateEntry) */
    int argc;
    long long id;               /* unique, increasing from 0 */
    long long duration;         /* microseconds */
    long long time;             /* unix seconds when logged */
    sds peerid;                 /* the client's "ip:port" */
    sds cname;                  /* its name, "" for none */
    struct slowlogEntry *newer, *older;
} slowlogEntry;

/* The log: a list from the newest entry to the oldest. */
typedef struct slowlog {
    slowlogEntry *newest, *oldest;
    unsigned long len;
    long long next_id;
} slowlog;

void slowlogPushCurrentCommand(struct client *c,
                               const struct redisCommand *cmd,
                               long long duration);
void slowlogPushEntryIfNeeded(struct client *c, struct robj **argv, int argc,
                              long long duration);
void slowlogReset(struct redisServer *s);

#endif
