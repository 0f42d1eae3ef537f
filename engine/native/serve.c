/* serve.c -- the process of `glasskv server` (see serve.h): startup,
 * the main loop, signals, the log, and the exit.
 *
 * The loop is Redis's aeMain with the sleeping made explicit, because
 * the engine's loop never sleeps by itself (ae.h):
 *
 *     for (;;) {
 *         block in epoll_wait until a descriptor is ready, or until the
 *             loop's next timer (serverCron, hz times a second) or the
 *             rewrite child's next step is due;
 *         aeProcessEvents: handlers, timers, then beforeSleep (the AOF
 *             flush, then the replies);
 *         the rewrite child's step, if due;
 *         write out the log lines of the iteration;
 *     }
 *
 * so an idle server makes 10 system calls a second, and a busy one one
 * epoll_wait per iteration, as redis-server does. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "serve.h"

#define SERVE_MIN_RESERVED_FDS 32   /* CONFIG_MIN_RESERVED_FDS */
#define SERVE_MAX_ACCEPTS 1000      /* MAX_ACCEPTS_PER_CALL */

/* What the signal handler leaves for the loop: the signal not handled
 * yet, and whether a shutdown was asked for at all (a second SIGINT then
 * exits at once). A process has one set of signal handlers, hence these
 * two globals; the handler touches nothing else. */
static volatile sig_atomic_t pendingSignal;
static volatile sig_atomic_t shutdownAsked;
static int signalLogFd = STDOUT_FILENO;

static uint64_t _clockNs(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Virtual time: nanoseconds of CLOCK_MONOTONIC since the process
 * started. The bio threads call it too; it only reads. */
uint64_t serveClock(void *ctx) {
    return _clockNs(CLOCK_MONOTONIC) - ((serveHost *)ctx)->mono0;
}

/* ---- The log. ---- */

/* Writes the lines logged since the last call. */
static void _flushLog(serveHost *h) {
    char buf[1 << 16];
    uint64_t last;
    size_t n;
    while ((n = logRead(&h->log, h->log_seq, buf, sizeof(buf), &last)) > 0) {
        fwrite(buf, 1, n, h->logf);
        h->log_seq = last;
    }
    fflush(h->logf);
}

/* A line as Redis's signal handler writes it: no level, no milliseconds. */
static void _logFromHandler(serveHost *h, const char *msg) {
    _flushLog(h);
    fprintf(h->logf, "%d:signal-handler (%lld) %s\n", (int)getpid(),
            (long long)time(NULL), msg);
    fflush(h->logf);
}

/* Appends the decimal digits of v to *p (async-signal-safe). */
static void _catU64(char **p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n) *(*p)++ = tmp[--n];
}

/* SIGINT and SIGTERM: the loop shuts down at the next serverCron. A
 * second SIGINT means the user wants out now, as in Redis: exit 1
 * without persisting anything more. */
static void _onSignal(int sig) {
    if (shutdownAsked && sig == SIGINT) {
        static const char msg[] = ":signal-handler (";
        static const char tail[] = ") You insist... exiting now.\n";
        char line[128], *p = line;
        _catU64(&p, (uint64_t)getpid());
        memcpy(p, msg, sizeof(msg) - 1);
        p += sizeof(msg) - 1;
        _catU64(&p, (uint64_t)time(NULL));
        memcpy(p, tail, sizeof(tail) - 1);
        p += sizeof(tail) - 1;
        if (write(signalLogFd, line, (size_t)(p - line)) < 0) _exit(1);
        _exit(1);
    }
    shutdownAsked = 1;
    pendingSignal = sig;
}

/* The loop's side of a signal: Redis's log line, then shutdown_asap,
 * which serverCron acts on. */
static void _takeSignal(serveHost *h) {
    int sig = pendingSignal;
    pendingSignal = 0;
    _logFromHandler(h, sig == SIGINT ? "Received SIGINT scheduling "
                    "shutdown..." : "Received SIGTERM scheduling "
                    "shutdown...");
    h->s->shutdown_asap = 1;
}

static void _setupSignals(void) {
    struct sigaction act;
    memset(&act, 0, sizeof(act));
    sigemptyset(&act.sa_mask);
    act.sa_handler = _onSignal;    /* no SA_RESTART: epoll_wait returns */
    sigaction(SIGINT, &act, NULL);
    sigaction(SIGTERM, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
}

/* ---- The exit. ---- */

/* exit_proc: the server is ready to exit (prepareForShutdown is done).
 * Does not return. */
static void _exitProc(void *ctx, int status) {
    serveHost *h = ctx;
    _flushLog(h);
    if (h->pidfile) unlink(h->pidfile);
    exit(status);
}

/* ---- Connections. ---- */

/* The listening socket is readable: accept what waits, up to 1000 at a
 * time, and hand each to the server as a new client. */
static void _acceptHandler(aeEventLoop *el, int fd, void *privdata,
                           int mask) {
    serveHost *h = privdata;
    for (int i = 0; i < SERVE_MAX_ACCEPTS; i++) {
        char ip[64];
        int port;
        int cfd = netAccept(fd, h->tcp_keepalive, ip, sizeof(ip), &port);
        if (cfd == -1) return;
        if (cfd < 0) {
            serverLog(h->s, LL_WARNING, "Accepting client connection: "
                      "accept: %s", strerror(errno));
            return;
        }
        serverLog(h->s, LL_VERBOSE, "Accepted %s:%d", ip, port);
        acceptCommonHandler(h->s, cfd);
    }
}

/* Listens on every bind address, as redis-server's listenToPort: an
 * address the machine does not have is skipped (with a warning) when it
 * is marked optional ("-::1") or its protocol is unsupported; any other
 * failure stops the process. 0, or -1 after logging. */
static int _listen(serveHost *h) {
    redisServer *s = h->s;
    for (int i = 0; h->port && i < h->nbind; i++) {
        const char *addr = h->bind[i];
        int optional = addr[0] == '-';
        char err[256];
        if (optional) addr++;
        int fd = netListen(addr, h->port, h->tcp_backlog, err, sizeof(err));
        if (fd < 0) {
            int e = errno;
            serverLog(s, LL_WARNING, "Warning: Could not create server TCP "
                      "listening socket %s:%d: %s", addr, h->port, err);
            if ((e == EADDRNOTAVAIL && optional) || e == EAFNOSUPPORT ||
                e == EPROTONOSUPPORT || e == ENOPROTOOPT) continue;
            serverLog(s, LL_WARNING, "Failed listening on port %d (tcp), "
                      "aborting.", h->port);
            return -1;
        }
        h->lfd[h->nlfd++] = fd;
        aeCreateFileEvent(s->el, fd, AE_READABLE, _acceptHandler, h);
    }
    if (h->nlfd == 0) {
        serverLog(s, LL_WARNING, "Configured to not listen anywhere, "
                  "exiting.");
        return -1;
    }
    return 0;
}

/* Opens listening sockets on port at every address of bind[0..nbind)
 * into fds (an optional address the machine lacks is skipped, as at
 * startup). Returns how many, or -1 with none left open. */
static int _listenAll(serveHost *h, char *const *bind, int nbind, int port,
                      int *fds) {
    int n = 0;
    for (int i = 0; port && i < nbind; i++) {
        const char *addr = bind[i];
        int optional = addr[0] == '-';
        char err[256];
        int fd = netListen(optional ? addr + 1 : addr, port, h->tcp_backlog,
                           err, sizeof(err));
        if (fd >= 0) {
            fds[n++] = fd;
            continue;
        }
        if ((errno == EADDRNOTAVAIL && optional) || errno == EAFNOSUPPORT ||
            errno == EPROTONOSUPPORT || errno == ENOPROTOOPT) continue;
        while (n) close(fds[--n]);
        return -1;
    }
    return n;
}

static void _closeListeners(serveHost *h) {
    for (int i = 0; i < h->nlfd; i++) {
        aeDeleteFileEvent(h->s->el, h->lfd[i], AE_READABLE);
        close(h->lfd[i]);
    }
    h->nlfd = 0;
}

static void _watchListeners(serveHost *h, const int *fds, int n) {
    for (int i = 0; i < n; i++) {
        h->lfd[i] = fds[i];
        aeCreateFileEvent(h->s->el, fds[i], AE_READABLE, _acceptHandler, h);
    }
    h->nlfd = n;
}

/* CONFIG SET port and bind: the listening sockets are closed and opened
 * again on port at bind[0..nbind), as Redis's changeBindAddr; if that
 * fails, the old ones (h->bind, h->port) are opened again and -1 is
 * returned. 0 on success; h's options are the caller's to update. */
int serveRelisten(serveHost *h, char *const *bind, int nbind, int port) {
    int fds[SERVE_MAX_BIND];
    _closeListeners(h);
    int n = _listenAll(h, bind, nbind, port, fds);
    if (n >= 0 && (n > 0 || port == 0)) {
        _watchListeners(h, fds, n);
        return 0;
    }
    serverLog(h->s, LL_WARNING, "Failed to bind, trying to restore old "
              "listening sockets.");
    n = _listenAll(h, h->bind, h->nbind, h->port, fds);
    if (n > 0) _watchListeners(h, fds, n);
    return -1;
}

/* Raises the descriptor limit to what maxclients needs, or lowers
 * maxclients to what the limit allows, as Redis's adjustOpenFilesLimit.
 * -1 (after logging) if not even one client would fit. */
static int _adjustOpenFilesLimit(serveHost *h) {
    redisServer *s = h->s;
    rlim_t want = (rlim_t)s->cfg.maxclients + SERVE_MIN_RESERVED_FDS;
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur >= want)
        return 0;
    rlim_t old = lim.rlim_cur, best = want;
    int err = 0;
    while (best > old) {
        struct rlimit attempt = { best, lim.rlim_max > best ? lim.rlim_max
                                                        : best };
        if (setrlimit(RLIMIT_NOFILE, &attempt) == 0) break;
        err = errno;
        best = best < 16 ? old : best - 16;
    }
    if (best < old) best = old;
    if (best >= want) {
        serverLog(s, LL_NOTICE, "Increased maximum number of open files to "
                  "%llu (it was originally set to %llu).",
                  (unsigned long long)want, (unsigned long long)old);
        return 0;
    }
    if (best <= SERVE_MIN_RESERVED_FDS) {
        serverLog(s, LL_WARNING, "Your current 'ulimit -n' of %llu is not "
                  "enough for the server to start. Please increase your open "
                  "file limit to at least %llu. Exiting.",
                  (unsigned long long)old, (unsigned long long)want);
        return -1;
    }
    long long asked = s->cfg.maxclients;
    s->cfg.maxclients = (long long)best - SERVE_MIN_RESERVED_FDS;
    serverLog(s, LL_WARNING, "You requested maxclients of %lld requiring at "
              "least %llu max file descriptors.", asked,
              (unsigned long long)want);
    serverLog(s, LL_WARNING, "Server can't set maximum open files to %llu "
              "because of OS error: %s.", (unsigned long long)want,
              strerror(err));
    serverLog(s, LL_WARNING, "Current maximum open files is %llu. maxclients "
              "has been reduced to %lld to compensate for low ulimit. If you "
              "need higher maxclients increase 'ulimit -n'.",
              (unsigned long long)best, s->cfg.maxclients);
    return 0;
}

/* ---- Startup. ---- */

/* The engine's side of the process: allocator, log, epoll, the server
 * with its hash seed drawn at random (as Redis draws it per process),
 * on a clock whose zero is now. 0, or -1 if the kernel refused. */
static int _createServer(serveHost *h) {
    uint64_t seed;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = _clockNs(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32);
    /* The engine's clock starts at a whole unix millisecond: its zero is
     * put that far back, so unix time read from it is the wall clock's and
     * not up to 1 ms behind. */
    uint64_t real = _clockNs(CLOCK_REALTIME);
    h->mono0 = _clockNs(CLOCK_MONOTONIC) - real % 1000000ULL;
    int64_t unix_ms = (int64_t)(real / 1000000ULL);
    memInit(&h->mem, NULL, NULL);
    rngSeed(&h->rng, seed);
    logInit(&h->log, &h->mem, 4096);
    h->logf = stdout;
    h->net = netEpollCreate(serveClock, h);
    if (!h->net) return -1;
    redisServer *s = serverCreate(&h->mem, 0, netEpollBackend(h->net),
                                  &h->rng, NULL, unix_ms, 0);
    h->s = s;
    s->log = &h->log;
    s->pid = (int)getpid();
    s->exit_proc = _exitProc;
    s->exit_ctx = h;
    return 0;
}

/* Where the log goes once the configuration is read, and the pid file.
 * 0, or -1 after a message. */
static int _openOutputs(serveHost *h) {
    if (h->logfile) {
        FILE *f = fopen(h->logfile, "a");
        if (!f) {
            fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
            return -1;
        }
        h->logf = f;
    }
    signalLogFd = fileno(h->logf);
    if (h->pidfile) {
        FILE *f = fopen(h->pidfile, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        } else {
            serverLog(h->s, LL_WARNING, "Failed to write PID file: %s",
                      strerror(errno));
        }
    }
    return 0;
}

/* Appends "a b c" of the bind addresses to buf. */
static void _joinBind(serveHost *h, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < h->nbind && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? " " : "",
                              h->bind[i]);
}

/* Lets CONFIG GET show the host's options, as redis-server shows them
 * (redis-benchmark, for one, asks for save, which the engine keeps). */
void servePublishParams(serveHost *h) {
    const char **p = h->params;
    snprintf(h->port_text, sizeof(h->port_text), "%d", h->port);
    snprintf(h->backlog_text, sizeof(h->backlog_text), "%d", h->tcp_backlog);
    snprintf(h->keepalive_text, sizeof(h->keepalive_text), "%d",
             h->tcp_keepalive);
    _joinBind(h, h->bind_text, sizeof(h->bind_text));
    if (!getcwd(h->dir_text, sizeof(h->dir_text))) h->dir_text[0] = '\0';
    *p++ = "port"; *p++ = h->port_text;
    *p++ = "bind"; *p++ = h->bind_text;
    *p++ = "dir"; *p++ = h->dir_text;
    *p++ = "logfile"; *p++ = h->logfile ? h->logfile : "";
    *p++ = "pidfile"; *p++ = h->pidfile ? h->pidfile : "";
    *p++ = "tcp-backlog"; *p++ = h->backlog_text;
    *p++ = "tcp-keepalive"; *p++ = h->keepalive_text;
    *p++ = "daemonize"; *p++ = "no";
    *p = NULL;
    h->s->host_config = h->params;
}

/* The native backends behind the server's file and job interfaces, on
 * the directory the configuration moved to. 0, or -1. */
static int _attachBackends(serveHost *h) {
    redisServer *s = h->s;
    h->fs = fsPosixCreate(".", serveClock, h);
    h->child_fs = fsPosixCreate(".", serveClock, h);
    h->jobs = jobsPthreadCreate(serveClock, h);
    if (!h->fs || !h->child_fs || !h->jobs) {
        serverLog(s, LL_WARNING, "Can't set up the working directory: %s",
                  strerror(errno));
        return -1;
    }
    s->fs = fsPosixBackend(h->fs);
    s->child_fs = fsPosixBackend(h->child_fs);
    s->jobs = jobsPthreadBackend(h->jobs);
    s->port = h->port;
    s->host_config_set = serveConfigSet;
    s->host_config_ctx = h;
    if (h->configfile) {
        s->config_rewrite = serveConfigRewrite;
        s->config_rewrite_ctx = h;
    }
    servePublishParams(h);
    return 0;
}

/* ---- The loop. ---- */

/* How long epoll_wait may sleep: until the next timer or the child's
 * next step, in whole milliseconds rounded up; -1 if nothing is due. */
static int _timeoutMs(serveHost *h) {
    uint64_t wake = aeNextWake(h->s->el), child = serverChildNext(h->s);
    if (child < wake) wake = child;
    if (wake == AE_NEVER) return -1;
    uint64_t now = serveClock(h);
    if (wake <= now) return 0;
    uint64_t ms = (wake - now + 999999) / 1000000;
    return ms > 3600000 ? 3600000 : (int)ms;
}

/* Lets the rewrite child take the steps that are due. */
static void _runChild(serveHost *h) {
    uint64_t now = serveClock(h);
    for (int i = 0; i < 16; i++) {
        uint64_t t = serverChildNext(h->s);
        if (t > now) break;
        serverChildRun(h->s, t);
    }
}

static void _loop(serveHost *h) {
    for (;;) {
        if (pendingSignal) _takeSignal(h);
        netEpollWait(h->net, _timeoutMs(h));
        aeProcessEvents(h->s->el);
        /* What the bio threads finished reaches the engine at every
         * iteration, as their atomic counters reach Redis's main thread:
         * a lazy free is done here (jobs_pthread.h says why), so memory
         * an UNLINK gave away comes back even when nothing else asks the
         * threads how they are doing. */
        bioPendingJobsOfType(&h->s->bio, BIO_LAZY_FREE);
        _runChild(h);
        _flushLog(h);
        /* A fatal AOF error: the engine asked for exit(1). */
        if (fsPosixExited(h->fs)) _exitProc(h, 1);
    }
}

static void _usage(void) {
    fprintf(stderr,
        "Usage: glasskv server [/path/to/redis.conf] [options] [-]\n"
        "       glasskv server - (read config from stdin)\n"
        "       glasskv server -v or --version\n"
        "       glasskv server -h or --help\n"
        "\n"
        "Examples:\n"
        "       glasskv server (loopback, port 6379)\n"
        "       glasskv server --port 7777 --appendonly yes --dir /tmp/d\n"
        "       glasskv server /etc/redis/6379.conf --loglevel verbose -\n"
        "\n"
        "Options are redis-server's, for what the engine implements.\n");
}

/* `glasskv server ...`, argv being what follows "server". Returns only
 * when the server cannot start (1) or after -h / -v. */
int serveMain(int argc, char **argv) {
    static serveHost host;
    serveHost *h = &host;
    if (argc == 1 && (!strcmp(argv[0], "-v") ||
                      !strcmp(argv[0], "--version"))) {
        printf("glasskv server v=7.0.15 (the Redis it follows) malloc=libc "
               "bits=%d\n", (int)(sizeof(long) * 8));
        return 0;
    }
    if (argc == 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
        _usage();
        return 0;
    }
    h->port = 6379;
    h->tcp_backlog = 511;
    h->tcp_keepalive = 300;
    h->bind[h->nbind++] = strdup("127.0.0.1");
    _setupSignals();
    if (_createServer(h) != 0) {
        fprintf(stderr, "glasskv server: epoll: %s\n", strerror(errno));
        return 1;
    }
    int ok = serveLoadConfig(h, argc, argv) == 0 && _openOutputs(h) == 0 &&
             _attachBackends(h) == 0 && _adjustOpenFilesLimit(h) == 0 &&
             _listen(h) == 0;
    if (ok) {
        serverSizeEventLoop(h->s, 0);
        serverStartupDone(h->s);
        serverStartup(h->s);
        ok = !fsPosixExited(h->fs);
    }
    _flushLog(h);
    if (!ok) {
        if (h->pidfile) unlink(h->pidfile);
        return 1;
    }
    _loop(h);
    return 0;
}
