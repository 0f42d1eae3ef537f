/* serve.h -- `glasskv server`: the server core as a real process, on a
 * TCP port, with the native backends behind its interfaces.
 *
 *   glasskv server [/path/to/redis.conf] [--option value ...] [-]
 *
 * takes what redis-server takes: a configuration file, then options
 * that are appended to it as lines ("--port 7000" is "port 7000"), and
 * "-" to read configuration from stdin. The engine's own parameters go
 * to its CONFIG table (config.c); the options only a process has (port,
 * bind, dir, logfile, pidfile ...) are the host's (serve_config.c).
 * Anything else is refused with redis-server's fatal config error.
 *
 * One serveHost is the whole process: the engine's allocator and log,
 * the epoll backend (net_epoll.c), the POSIX file backends and the bio
 * threads (fs_posix.c, jobs_pthread.c), the server, and the loop that
 * sleeps in epoll_wait until the next timer (serve.c). Virtual time is
 * CLOCK_MONOTONIC since the process started; its Unix time at zero is
 * CLOCK_REALTIME then, so expiry and INFO's clocks are real ones. */
#ifndef GK_SERVE_H
#define GK_SERVE_H

#include <stdint.h>
#include <stdio.h>
#include "server.h"
#include "net_epoll.h"
#include "fs_posix.h"
#include "jobs_pthread.h"

#define SERVE_MAX_BIND 16       /* addresses bind takes (Redis's limit) */

typedef struct serveHost {
    /* The host's options, with redis-server's defaults (but loopback
     * only, whatever protected-mode says). */
    int port;                   /* 0: no TCP listener */
    char *bind[SERVE_MAX_BIND]; /* addresses; "-" prefix: optional */
    int nbind;
    int tcp_backlog;
    int tcp_keepalive;          /* seconds, 0: off */
    char *logfile;              /* NULL: standard output */
    char *pidfile;              /* NULL: none */
    char *configfile;           /* absolute path of the file started
                                   with (CONFIG REWRITE); NULL: none */
    /* The process. */
    uint64_t mono0;             /* CLOCK_MONOTONIC at virtual time 0, ns */
    gkMem mem;
    gkRng rng;
    gkLog log;
    uint64_t log_seq;           /* last log line written out */
    FILE *logf;
    netEpoll *net;
    fsPosix *fs, *child_fs;
    jobsPthread *jobs;
    redisServer *s;
    int lfd[SERVE_MAX_BIND];    /* listening sockets */
    int nlfd;
    /* What CONFIG GET shows of the options above (server.host_config):
     * name, value, ..., NULL, the values formatted into the buffers. */
    const char *params[24];
    char port_text[12], backlog_text[12], keepalive_text[12];
    char bind_text[1024], dir_text[1024];
} serveHost;

int serveMain(int argc, char **argv);
uint64_t serveClock(void *ctx);
int serveRelisten(serveHost *h, char *const *bind, int nbind, int port);
void servePublishParams(serveHost *h);

/* serve_config.c */
int serveLoadConfig(serveHost *h, int argc, char **argv);
void serveConfigRelease(serveHost *h);

/* serve_rewrite.c: CONFIG REWRITE of h->configfile (server.config_rewrite). */
int serveConfigRewrite(void *ctx, redisServer *s, int force_all, sds *err);
/* serve_config.c: CONFIG SET of the host's options (server.host_config_set). */
int serveConfigSet(void *ctx, const char *name, const char *value,
                   const char **why);

#endif
