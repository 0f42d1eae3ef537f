/* main.c -- the native `glasskv` command line.
 *
 *   glasskv cli [--seed N] [--unix-ms MS]
 *
 * reads commands on stdin, one per line in redis-cli syntax, runs them on
 * one simulated server and prints what `redis-cli --no-raw` prints when
 * its stdin is not a terminal. That mode of redis-cli is its interactive
 * loop fed by a pipe: no prompt, blank lines ignored, "Invalid
 * argument(s)" for bad quoting, a leading count repeats a command, quit
 * and exit stop, a few words (help, :set, clear, connect, restart) never
 * reach the server, and a command that takes 500 ms or more is followed
 * by its duration. Here the duration is virtual time, so it is exact.
 *
 * `glasskv cli --memcached` and `glasskv slabs` run a memcached-style
 * node instead (mccli.c). `glasskv server` runs the same server core on
 * a real TCP port, as redis-server (engine/native/serve.c).
 *
 * The world is deterministic: a fixed seed unless --seed says otherwise.
 * Its Unix clock starts at the real time, as a fresh redis-server's
 * would, so absolute expire times compare the same; --unix-ms pins it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "aofcli.h"
#include "cliopts.h"
#include "cliformat.h"
#include "glasskv.h"
#include "mccli.h"
#include "run.h"
#include "serve.h"

/* How long a command may wait for its reply in virtual time. Without
 * another client nothing can wake a command blocked with no timeout, and
 * redis-cli would wait forever; I stop after an hour of simulated time,
 * which costs about 36,000 serverCron runs at hz 10. */
#define CLI_WAIT_LIMIT_NS (3600ULL * 1000000000ULL)

/* redis-cli prints the duration of commands that took at least this. */
#define CLI_SLOW_MS 500

/* What one line asks the loop to do next. */
#define CLI_NEXT 0      /* read the next line */
#define CLI_STOP 1      /* stop reading: quit, or redis-cli would hang */

/* One simulated server and the one client connection redis-cli keeps. */
typedef struct cliSession {
    gkWorld *w;         /* the world */
    int node;           /* the server node */
    int conn;           /* the connection, -1 when not connected */
    char *in;           /* reply bytes received and not yet printed */
    size_t inlen;       /* bytes in `in` */
    size_t incap;       /* bytes allocated for `in` */
    int shutdown;       /* the command sent is SHUTDOWN: a closed
                           connection is its expected answer */
} cliSession;

/* Prints the usage to stderr and exits with status 2. */
static void _usage(void) {
    fprintf(stderr,
        "usage: glasskv cli [--seed N] [--unix-ms MS] [--aof DIR]\n"
        "       glasskv run <lab> [--seed N]\n"
        "       glasskv server [redis.conf] [--port N] [--option value ...]\n"
        "\n"
        "  cli   read commands in redis-cli syntax on stdin, run them on one\n"
        "        simulated server, print the replies as redis-cli --no-raw\n"
        "        --seed N      world seed (default: the engine's fixed "
        "seed)\n"
        "        --unix-ms MS  Unix time in ms when the world starts\n"
        "                      (default: now)\n"
        "        --aof DIR     appendonly yes, appendfsync always; write the\n"
        "                      AOF directory into DIR at the end\n"
        "  run   run a lab headless and print its figures as JSON\n"
        "        (pipelining, pipeline-vs-multi, rtt, command-flushing,\n"
        "        eval-vs-zcard, slow-command, aof-not-a-wal, fsync-policies,\n"
        "        disk-full, aof-benchmark, slab-classes, item-placement,\n"
        "        slab-calcification, encodings-memory, replication-star,\n"
        "        replication-chain, replication-failures,\n"
        "        partial-vs-full-resync, ephemeral-port-clash)\n"
        "  cli --memcached [--seed N] [--unix-ms MS] [memcached options]\n"
        "        send stdin's protocol lines to one memcached-style node,\n"
        "        print its raw replies\n"
        "  slabs [memcached options]\n"
        "        print the slab class table memcached -vv prints\n"
        "  server  the server on a real TCP port (127.0.0.1:6379 unless\n"
        "        told), taking redis-server's options for what the engine\n"
        "        implements; glasskv server --help says more\n");
    exit(2);
}

/* Exits with status 1 after a message on stderr; for failures the host
 * cannot recover from (the allocator refused, the engine failed). */
static void _die(const char *msg) {
    fflush(stdout);
    fprintf(stderr, "glasskv: %s\n", msg);
    exit(1);
}

/* ---- The connection. ---- */

/* Opens the connection redis-cli would (re)open. Returns 1, or 0 after
 * printing redis-cli's connection error to stderr. */
static int _cliConnect(cliSession *s) {
    if (gkConnOpen(s->w, s->node, &s->conn) == GK_OK) return 1;
    s->conn = -1;
    fprintf(stderr, "Could not connect to Redis at 127.0.0.1:6379: "
                    "Connection refused\n");
    return 0;
}

/* Forgets the connection and any bytes left unread on it, as redis-cli
 * frees its context after an I/O error; the next command reconnects. */
static void _cliDrop(cliSession *s) {
    if (s->conn >= 0) gkConnClose(s->w, s->conn);
    s->conn = -1;
    s->inlen = 0;
}

/* Moves every byte the server has written into s->in. */
static void _cliFill(cliSession *s) {
    size_t n;
    while ((n = gkConnPending(s->w, s->conn)) > 0) {
        if (s->inlen + n > s->incap) {
            size_t cap = s->incap ? s->incap : 4096;
            while (cap < s->inlen + n) cap *= 2;
            char *p = realloc(s->in, cap);
            if (p == NULL) _die("out of memory");
            s->in = p;
            s->incap = cap;
        }
        s->inlen += gkConnRecv(s->w, s->conn, s->in + s->inlen, n);
    }
}

/* Removes the first n bytes of s->in. */
static void _cliConsume(cliSession *s, size_t n) {
    memmove(s->in, s->in + n, s->inlen - n);
    s->inlen -= n;
}

/* Formats the reply at the front of s->in, raw or not. Returns what the
 * formatter returns (see cliformat.h). */
static long _cliFormat(cliSession *s, int raw, char **text, size_t *len) {
    return raw ? cliFormatReplyRaw(s->in, s->inlen, text, len)
               : cliFormatReply(s->in, s->inlen, text, len);
}

/* Runs the world until a whole reply sits at the front of s->in: first
 * whatever is due now, then one event at a time, so the clock stops at the
 * moment the reply arrives. Returns the formatter's result for it (with
 * *text set when positive), or CLI_INCOMPLETE when the server closed the
 * connection first. Exits after the wait limit. */
static long _cliAwait(cliSession *s, int raw, char **text, size_t *len) {
    uint64_t start = gkWorldNow(s->w);
    for (;;) {
        gkWorldRunUntilIdle(s->w);
        _cliFill(s);
        long used = _cliFormat(s, raw, text, len);
        if (used != CLI_INCOMPLETE) return used;
        if (gkConnIsOpen(s->w, s->conn) != 1) return CLI_INCOMPLETE;
        uint64_t next = gkWorldNextEventTime(s->w);
        if (next == UINT64_MAX || next - start > CLI_WAIT_LIMIT_NS)
            _die("no reply within an hour of simulated time: the command "
                 "blocks and nothing can wake it");
        gkWorldRunUntil(s->w, next);
    }
}

/* ---- Printing replies. ---- */

/* Outcomes of reading one reply. */
#define CLI_REPLY_LOST 0    /* the connection died; it has been dropped */
#define CLI_REPLY_OK 1      /* printed */
#define CLI_REPLY_ERROR 2   /* printed, and it was an error reply */
#define CLI_REPLY_PUSH 3    /* a RESP3 push message, dropped unprinted */

/* Takes the formatter's result for the front reply: prints the text and
 * drops the reply's bytes, or exits as redis-cli does on bytes hiredis
 * rejects. Pushes are printed only when `pushes` is set: redis-cli's push
 * handler stays quiet when its output is not a terminal, while in pubsub
 * mode the pushes are the replies. Returns a CLI_REPLY_* other than
 * LOST. */
static int _cliEmit(cliSession *s, long used, char *text, size_t len,
                    int pushes) {
    if (used == CLI_ENOMEM) _die("out of memory");
    if (used < 0) {
        fflush(stdout);
        fprintf(stderr, "Error: Protocol error, got \"%c\" as reply type "
                        "byte\n", s->in[0]);
        exit(1);
    }
    char type = s->in[0];
    if (type != '>' || pushes) {
        fwrite(text, 1, len, stdout);
        fflush(stdout);
    }
    free(text);
    _cliConsume(s, (size_t)used);
    if (type == '>' && !pushes) return CLI_REPLY_PUSH;
    return type == '-' ? CLI_REPLY_ERROR : CLI_REPLY_OK;
}

/* Reads and prints the next reply, skipping pushes outside pubsub mode.
 * When the connection dies first, prints redis-cli's error and drops the
 * connection. Returns a CLI_REPLY_* other than PUSH. */
static int _cliReadReply(cliSession *s, int raw, int pubsub) {
    int rc;
    do {
        char *text = NULL;
        size_t len = 0;
        long used = _cliAwait(s, raw, &text, &len);
        if (used == CLI_INCOMPLETE) {
            /* redis-cli says nothing when SHUTDOWN worked. */
            if (!s->shutdown)
                fprintf(stderr, "Error: Server closed the connection\n");
            _cliDrop(s);
            return CLI_REPLY_LOST;
        }
        rc = _cliEmit(s, used, text, len, pubsub);
    } while (rc == CLI_REPLY_PUSH);
    return rc;
}

/* Prints every complete reply already received, for SUBSCRIBE and
 * MONITOR, after which redis-cli would wait for more forever. */
static void _cliDrainReplies(cliSession *s) {
    char *text = NULL;
    size_t len = 0;
    long used;
    gkWorldRunUntilIdle(s->w);
    _cliFill(s);
    while ((used = _cliFormat(s, 0, &text, &len)) != CLI_INCOMPLETE)
        _cliEmit(s, used, text, len, 1);
}

/* ---- Commands. ---- */

/* The modes redis-cli enters for commands whose replies never end. */
#define CLI_MODE_NORMAL 0
#define CLI_MODE_PUBSUB 1   /* SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE */
#define CLI_MODE_MONITOR 2  /* MONITOR */

/* Returns the CLI_MODE_* a command puts redis-cli in. */
static int _cliMode(const char *cmd) {
    if (!strcasecmp(cmd, "subscribe") || !strcasecmp(cmd, "psubscribe") ||
        !strcasecmp(cmd, "ssubscribe"))
        return CLI_MODE_PUBSUB;
    return strcasecmp(cmd, "monitor") ? CLI_MODE_NORMAL : CLI_MODE_MONITOR;
}

/* Prints redis-cli's help. Without a topic that is its generic text; a
 * topic is looked up in the command docs redis-cli fetches from the
 * server, which this server does not provide, so a topic prints what
 * redis-cli prints for one it does not know: an empty CRLF line. */
static void _cliHelp(int argc) {
    if (argc > 1) {
        fputs("\r\n", stdout);
        return;
    }
    fputs("redis-cli 7.0.15\n"
          "To get help about Redis commands type:\n"
          "      \"help @<group>\" to get a list of commands in <group>\n"
          "      \"help <command>\" for help on <command>\n"
          "      \"help <tab>\" to get a list of possible help topics\n"
          "      \"quit\" to exit\n"
          "\n"
          "To set redis-cli preferences:\n"
          "      \":set hints\" enable online hints\n"
          "      \":set nohints\" disable online hints\n"
          "Set your preferences in ~/.redisclirc\n", stdout);
}

/* Sends the request once and prints its reply, or, for SUBSCRIBE and
 * MONITOR, every reply until redis-cli would block for good. Returns
 * CLI_NEXT, or CLI_STOP when redis-cli would be stuck reading messages,
 * or -1 when the connection was lost (the error is printed). */
static int _cliRoundTrip(cliSession *s, const char *req, size_t reqlen,
                         int mode, int raw) {
    gkConnSend(s->w, s->conn, req, reqlen);    /* GK_ECLOSED shows below */
    if (mode == CLI_MODE_PUBSUB)
        fputs("Reading messages... (press Ctrl-C to quit)\n", stdout);
    int rc = _cliReadReply(s, raw, mode == CLI_MODE_PUBSUB);
    if (rc == CLI_REPLY_LOST) return -1;
    if (mode == CLI_MODE_NORMAL || rc == CLI_REPLY_ERROR) return CLI_NEXT;
    _cliDrainReplies(s);
    return CLI_STOP;
}

/* Runs one command `repeat` times as redis-cli's issueCommandRepeat does:
 * HELP is answered locally, a missing connection is reopened first, and a
 * lost connection abandons the remaining repetitions. Returns CLI_NEXT or
 * CLI_STOP. */
static int _cliIssue(cliSession *s, int argc, char **argv, size_t *lens,
                     long long repeat) {
    if (!strcasecmp(argv[0], "help") || !strcasecmp(argv[0], "?")) {
        _cliHelp(argc);
        return CLI_NEXT;
    }
    if (s->conn < 0 && !_cliConnect(s)) return CLI_NEXT;
    char *req;
    size_t reqlen;
    if (cliArgvToResp(argc, argv, lens, &req, &reqlen) < 0)
        _die("out of memory");
    int mode = _cliMode(argv[0]), raw = cliArgvWantsRaw(argc, argv);
    int rc = CLI_NEXT;
    s->shutdown = !strcasecmp(argv[0], "shutdown");
    while (repeat-- > 0 && rc == CLI_NEXT)
        rc = _cliRoundTrip(s, req, reqlen, mode, raw);
    s->shutdown = 0;
    free(req);
    return rc < 0 ? CLI_NEXT : rc;
}

/* Handles a ":..." line: redis-cli's preferences, which only change
 * interactive hints, so only the complaints are visible. */
static void _cliPreferences(int argc, char **argv) {
    if (!strcasecmp(argv[0], ":set") && argc >= 2) {
        if (strcasecmp(argv[1], "hints") && strcasecmp(argv[1], "nohints"))
            printf("unknown redis-cli preference '%s'\n", argv[1]);
    } else {
        printf("unknown redis-cli internal command '%s'\n", argv[0]);
    }
}

/* Clears the screen as linenoise does: the escape sequence goes straight
 * to file descriptor 1, ahead of anything still in stdout's buffer. That
 * order is visible in a pipe, and redis-cli produces it, because it
 * flushes stdout only after replies, "Invalid argument(s)" and the
 * restart notice, not after help or its other local messages. */
static void _cliClearScreen(void) {
    if (write(STDOUT_FILENO, "\x1b[H\x1b[2J", 7) != 7) return;
}

/* Runs one split line through redis-cli's interactive loop: the words it
 * handles itself, then the command, then the duration of a slow one.
 * Returns CLI_NEXT or CLI_STOP. */
static int _cliDispatch(cliSession *s, cliArgs *a) {
    long long repeat;
    int skip = cliRepeatPrefix(a->argc, a->argv, &repeat), rc = CLI_NEXT;
    char **argv = a->argv;
    if (skip < 0) {
        fputs("Invalid redis-cli repeat command option value.\n", stdout);
    } else if (!strcasecmp(argv[0], "quit") || !strcasecmp(argv[0], "exit")) {
        rc = CLI_STOP;
    } else if (argv[0][0] == ':') {
        _cliPreferences(a->argc, argv);
    } else if (!strcasecmp(argv[0], "restart")) {
        fputs("Use 'restart' only in Lua debugging mode.\n", stdout);
        fflush(stdout);
    } else if (a->argc == 3 && !strcasecmp(argv[0], "connect")) {
        _cliDrop(s);        /* every address leads to the one server */
        _cliConnect(s);
    } else if (a->argc == 1 && !strcasecmp(argv[0], "clear")) {
        _cliClearScreen();
    } else {
        uint64_t start = gkWorldNow(s->w);
        rc = _cliIssue(s, a->argc - skip, argv + skip, a->lens + skip,
                       repeat);
        uint64_t ms = (gkWorldNow(s->w) - start) / 1000000;
        if (ms >= CLI_SLOW_MS) printf("(%.2fs)\n", (double)ms / 1000);
    }
    return rc;
}

/* Handles one input line (without its newline). Returns CLI_NEXT or
 * CLI_STOP. */
static int _cliLine(cliSession *s, const char *line, size_t len) {
    cliArgs a;
    if (len == 0) return CLI_NEXT;
    int argc = cliSplitLine(line, len, &a);
    if (argc == CLI_ENOMEM) _die("out of memory");
    if (argc < 0) {
        fputs("Invalid argument(s)\n", stdout);
        fflush(stdout);
        return CLI_NEXT;
    }
    if (argc == 0) return CLI_NEXT;
    int rc = _cliDispatch(s, &a);
    cliArgsRelease(&a);
    return rc;
}

/* The cli subcommand: creates the world and its server, connects, then
 * feeds stdin to _cliLine until EOF or a stop. Returns the exit status. */
static int _cliMain(int argc, char **argv) {
    gkConfig cfg;
    cliSession s = { 0 };
    const char *aofdir = NULL;
    if (cliParseOptions(argc, argv, &cfg, &aofdir) != 0) _usage();
    if (gkWorldCreate(&s.w, &cfg, NULL, NULL) != GK_OK)
        _die("cannot create the world");
    if (gkServerAddConfig(s.w, aofdir ? aofCliConfig() : NULL, &s.node) !=
        GK_OK)
        _die(gkWorldLastError(s.w));
    _cliConnect(&s);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        if (n > 0 && line[n - 1] == '\n') n--;
        if (_cliLine(&s, line, (size_t)n) == CLI_STOP) break;
    }
    free(line);
    free(s.in);
    fflush(stdout);
    int rc = aofdir && aofCliExport(s.w, s.node, aofdir) != 0 ? 1 : 0;
    gkWorldRelease(s.w);
    return rc;
}

/* Dispatches on the subcommand; anything else is a usage error. */
int main(int argc, char **argv) {
    for (int i = 2; argc >= 2 && !strcmp(argv[1], "cli") && i < argc; i++)
        if (!strcmp(argv[i], "--memcached"))
            return mcCliMain(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "cli"))
        return _cliMain(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "slabs"))
        return mcSlabsMain(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "run"))
        return runMain(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "server"))
        return serveMain(argc - 2, argv + 2);
    _usage();
    return 2;
}
