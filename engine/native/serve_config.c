/* serve_config.c -- redis-server's command line and configuration file,
 * for `glasskv server` (see serve.h).
 *
 * redis-server turns its command line into configuration lines and
 * appends them to the file's text, after a newline: `--port 7000
 * --appendonly yes` becomes the lines `port "7000"` and `appendonly
 * "yes"`, values quoted as sdscatrepr quotes them. The text is then read
 * line by line; the first bad line stops the process with
 *
 *     *** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***
 *     Reading the configuration file, at line N
 *     >>> 'the line'
 *     the reason
 *
 * on stderr and exit status 1. Line numbers count the file's lines, the
 * newline, then the options', exactly as redis-server counts them, so
 * the same mistake gets the same message from both. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "serve.h"

#define SERVE_NOT_MINE ((const char *)1)   /* a directive of the engine's */

/* A warning logged before the server is initialized, which redis-server
 * writes with the role C, as its startup banner. */
static void _earlyWarning(serveHost *h, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    int64_t ms = h->s->unix_ms_at_zero + (int64_t)(serveClock(h) / 1000000);
    logAppend(&h->log, (int)getpid(), 'C', LL_WARNING, ms, msg);
}

/* Appends the whole of f to text. */
static sds _catStream(gkMem *m, sds text, FILE *f) {
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        text = sdscatlen(m, text, chunk, n);
    return text;
}

/* The configuration lines argv[from..] stand for, as redis-server's main
 * builds them. "--name" starts a line; the words after it are its values,
 * quoted; a bare "--save" (last, or followed by another option) means
 * save "". Sets *from_stdin when "-" asks for stdin. */
static sds _optionLines(redisServer *s, int argc, char **argv, int from,
                        int *from_stdin) {
    gkMem *m = s->mem;
    sds opts = sdsempty(m);
    int handled = 1;    /* the last option has at least one value */
    for (int j = from; j < argc; j++) {
        const char *a = argv[j];
        int next_is_opt = j + 1 < argc && !strncmp(argv[j + 1], "--", 2);
        if (!strcmp(a, "-") && (j == 0 || j == argc - 1)) {
            *from_stdin = 1;
        } else if (handled && !strncmp(a, "--", 2)) {
            if (sdslen(opts)) opts = sdscat(m, opts, "\n");
            opts = sdscat(m, opts, a + 2);
            opts = sdscat(m, opts, " ");
            /* "--port 6380" as one word carries its value already. */
            sds *words;
            int n = splitArgs(s, a, &words);
            if (n >= 0) splitArgsRelease(s, words, n);
            handled = n > 1;
            if (!handled && !strcasecmp(a, "--save") &&
                (next_is_opt || j == argc - 1)) {
                opts = sdscat(m, opts, "\"\"");
                handled = 1;
            }
        } else {
            opts = sdscatrepr(m, opts, a, strlen(a));
            opts = sdscat(m, opts, " ");
            handled = 1;
        }
    }
    return opts;
}

/* ---- The host's own directives. ---- */

static const char *_parseInt(const char *v, long long min, long long max,
                             long long *out, char *errbuf, size_t errlen) {
    if (!string2ll(v, strlen(v), out))
        return "argument couldn't be parsed into an integer";
    if (*out < min || *out > max) {
        snprintf(errbuf, errlen, "argument must be between %lld and %lld "
                 "inclusive", min, max);
        return errbuf;
    }
    return NULL;
}

static const char *_parseBool(const char *v, int *out) {
    if (!strcasecmp(v, "yes")) *out = 1;
    else if (!strcasecmp(v, "no")) *out = 0;
    else return "argument must be 'yes' or 'no'";
    return NULL;
}

/* Replaces *slot with a copy of v ("" clears it). */
static void _setString(char **slot, const char *v) {
    free(*slot);
    *slot = v[0] ? strdup(v) : NULL;
}

static const char *_bind(serveHost *h, int argc, char **argv) {
    if (argc - 1 > SERVE_MAX_BIND) return "Too many bind addresses specified.";
    for (int i = 0; i < h->nbind; i++) free(h->bind[i]);
    h->nbind = 0;
    for (int i = 1; i < argc; i++) h->bind[h->nbind++] = strdup(argv[i]);
    return NULL;
}

/* dir: the process moves there, as redis-server does, and the AOF
 * directory is found relative to it. */
static const char *_dir(const char *path) {
    return chdir(path) < 0 ? strerror(errno) : NULL;
}

/* logfile: "" is standard output; a file must open for appending. */
static const char *_logfile(serveHost *h, char **argv, char *errbuf,
                            size_t errlen) {
    if (argv[1][0]) {
        FILE *f = fopen(argv[1], "a");
        if (!f) {
            snprintf(errbuf, errlen, "Can't open the log file: %s",
                     strerror(errno));
            return errbuf;
        }
        fclose(f);
    }
    _setString(&h->logfile, argv[1]);
    return NULL;
}

/* A yes/no option the host accepts and has nothing to do for. */
static int _isIgnoredBool(const char *name) {
    static const char *const names[] = { "protected-mode",
        "always-show-logo", "set-proc-title", NULL };
    for (int i = 0; names[i]; i++)
        if (!strcmp(name, names[i])) return 1;
    return 0;
}

/* enable-protected-configs: checked as redis-server checks it, with
 * nothing to allow here (no protected config that CONFIG SET may
 * change). enable-module-command is the engine's. */
static int _isEnableOption(const char *name) {
    return !strcmp(name, "enable-protected-configs");
}

/* Applies one of the host's directives. Returns NULL when done, the
 * reason when the line is wrong, or SERVE_NOT_MINE for the engine's. */
static const char *_hostDirective(serveHost *h, int argc, char **argv,
                                  char *errbuf, size_t errlen) {
    const char *name = argv[0], *why;
    long long v;
    int b;
    if (!strcmp(name, "bind")) return argc < 2 ? SERVE_NOT_MINE
                                               : _bind(h, argc, argv);
    if (argc != 2) return SERVE_NOT_MINE;
    const char *val = argv[1];
    if (!strcmp(name, "port")) {
        why = _parseInt(val, 0, 65535, &v, errbuf, errlen);
        if (!why) h->port = (int)v;
        return why;
    }
    if (!strcmp(name, "tcp-backlog") || !strcmp(name, "tcp-keepalive")) {
        why = _parseInt(val, 0, INT_MAX, &v, errbuf, errlen);
        if (!why && name[4] == 'b') h->tcp_backlog = (int)v;
        else if (!why) h->tcp_keepalive = (int)v;
        return why;
    }
    if (!strcmp(name, "dir")) return _dir(val);
    if (!strcmp(name, "logfile")) return _logfile(h, argv, errbuf, errlen);
    if (!strcmp(name, "pidfile")) {
        _setString(&h->pidfile, val);
        return NULL;
    }
    if (!strcmp(name, "daemonize")) {
        why = _parseBool(val, &b);
        if (!why && b) why = "daemonize yes is not supported: run glasskv "
                             "server under a supervisor instead";
        return why;
    }
    if (_isIgnoredBool(name)) return _parseBool(val, &b);
    if (_isEnableOption(name)) {
        if (!strcasecmp(val, "yes") || !strcasecmp(val, "no") ||
            !strcasecmp(val, "local")) return NULL;
        return "argument(s) must be one of the following: no, yes, local";
    }
    return SERVE_NOT_MINE;
}

/* ---- Reading the text. ---- */

/* Prints redis-server's fatal configuration error. */
static void _fatal(int linenum, const char *line, const char *why) {
    fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n");
    fprintf(stderr, "Reading the configuration file, at line %d\n", linenum);
    fprintf(stderr, ">>> '%s'\n", line);
    fprintf(stderr, "%s\n", why);
}

/* One trimmed, non-comment line: the reason it is refused, or NULL. */
static const char *_applyLine(serveHost *h, const char *line, char *errbuf,
                              size_t errlen) {
    redisServer *s = h->s;
    sds *argv;
    int argc = splitArgs(s, line, &argv);
    if (argc < 0) return "Unbalanced quotes in configuration line";
    if (argc == 0) {
        splitArgsRelease(s, argv, argc);
        return NULL;
    }
    sdstolower(argv[0]);
    const char *why = _hostDirective(h, argc, argv, errbuf, errlen);
    if (why == SERVE_NOT_MINE)
        why = serverLoadConfigDirective(s, argc, argv, errbuf, errlen);
    /* The reason is a constant, strerror's or errbuf: never in argv. */
    splitArgsRelease(s, argv, argc);
    return why;
}

static int _isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Applies every line of text, each trimmed of blanks at both ends; empty
 * lines and '#' comments are skipped. 0, or -1 after printing the
 * error. */
static int _applyText(serveHost *h, sds text) {
    const char *p = text, *end = text + sdslen(text);
    for (int linenum = 1;; linenum++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *a = p, *b = eol ? eol : end;
        while (a < b && _isBlank(*a)) a++;
        while (b > a && _isBlank(b[-1])) b--;
        sds line = sdsnewlen(&h->mem, a, (size_t)(b - a));
        char errbuf[256];
        const char *why = NULL;
        if (line[0] != '#' && line[0] != '\0')
            why = _applyLine(h, line, errbuf, sizeof(errbuf));
        if (why) _fatal(linenum, line, why);
        sdsfree(&h->mem, line);
        if (why) return -1;
        if (!eol) return 0;
        p = eol + 1;
    }
}

/* path made absolute against the current directory, as Redis keeps its
 * configuration file's path (dir may move the process elsewhere). */
static char *_absolutePath(const char *path) {
    char cwd[4096];
    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd))) return strdup(path);
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *abs = malloc(n);
    if (abs) snprintf(abs, n, "%s/%s", cwd, path);
    return abs;
}

/* Reads the configuration the arguments name (the file, stdin, the
 * options) into h and the engine's parameters. argv holds what follows
 * `server`. 0, or -1 after printing why the process cannot start. */
int serveLoadConfig(serveHost *h, int argc, char **argv) {
    int from = 0, from_stdin = 0;
    sds text = sdsempty(&h->mem);
    if (argc > 0 && argv[0][0] != '-') {
        FILE *f = fopen(argv[0], "r");
        if (!f) {
            _earlyWarning(h, "Fatal error, can't open config file '%s': %s",
                          argv[0], strerror(errno));
            sdsfree(&h->mem, text);
            return -1;
        }
        text = _catStream(&h->mem, text, f);
        fclose(f);
        from = 1;
        h->configfile = _absolutePath(argv[0]);
    }
    sds opts = _optionLines(h->s, argc, argv, from, &from_stdin);
    if (from_stdin) {
        _earlyWarning(h, "Reading config from stdin");
        text = _catStream(&h->mem, text, stdin);
    }
    text = sdscat(&h->mem, text, "\n");
    text = sdscatsds(&h->mem, text, opts);
    sdsfree(&h->mem, opts);
    int r = _applyText(h, text);
    sdsfree(&h->mem, text);
    return r;
}

/* Frees the strings the options left in h. */
void serveConfigRelease(serveHost *h) {
    for (int i = 0; i < h->nbind; i++) free(h->bind[i]);
    h->nbind = 0;
    free(h->logfile);
    free(h->pidfile);
    free(h->configfile);
    h->logfile = h->pidfile = h->configfile = NULL;
}

/* ---- CONFIG SET of the host's options. ---- */

/* CONFIG SET bind "<addr> ...": the value's words (split at each space,
 * as Redis splits a multi-word parameter; "" for none), listened on at
 * once, the old sockets closed. */
static const char *_setBind(serveHost *h, const char *value) {
    char *argv[SERVE_MAX_BIND + 2], *copy = strdup(value);
    int argc = 1;
    argv[0] = "bind";
    if (!copy) return strerror(errno);
    for (char *p = copy; *value && argc < SERVE_MAX_BIND + 2; ) {
        argv[argc++] = p;
        char *sp = strchr(p, ' ');
        if (!sp) break;
        *sp = '\0';
        p = sp + 1;
    }
    const char *why = NULL;
    if (argc - 1 > SERVE_MAX_BIND)
        why = "Too many bind addresses specified.";
    else if (serveRelisten(h, argv + 1, argc - 1, h->port) != 0)
        why = "Failed to bind to specified addresses.";
    else
        why = _bind(h, argc, argv);
    free(copy);
    return why;
}

/* server.host_config_set: port and bind listen anew (the old sockets
 * stay if that fails), tcp-keepalive applies to new connections; dir is
 * a protected parameter (enable-protected-configs is not honoured here,
 * so it stays refused); the rest cannot change while running. */
int serveConfigSet(void *ctx, const char *name, const char *value,
                   const char **why) {
    static char errbuf[128];
    serveHost *h = ctx;
    long long v;
    *why = NULL;
    if (!strcasecmp(name, "port")) {
        *why = _parseInt(value, 0, 65535, &v, errbuf, sizeof(errbuf));
        if (!*why && v != h->port) {
            if (serveRelisten(h, h->bind, h->nbind, (int)v) != 0)
                *why = "Unable to listen on this port. Check server logs.";
            else h->port = h->s->port = (int)v;
        }
    } else if (!strcasecmp(name, "bind")) {
        *why = _setBind(h, value);
    } else if (!strcasecmp(name, "tcp-keepalive")) {
        *why = _parseInt(value, 0, INT_MAX, &v, errbuf, sizeof(errbuf));
        if (!*why) h->tcp_keepalive = (int)v;
    } else if (!strcasecmp(name, "dir")) {
        *why = "can't set protected config";
    } else {
        *why = "can't set immutable config";
    }
    if (*why) return C_ERR;
    servePublishParams(h);
    return C_OK;
}
