/* cliopts.c -- see cliopts.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cliopts.h"

/* The real time in Unix ms: a world starts there, as a fresh server's
 * clock would. */
static int64_t _unixMs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A decimal unsigned number, all of s. 0 with *v set, or -1. */
static int _number(const char *s, unsigned long long *v) {
    char *end;
    if (*s < '0' || *s > '9') return -1;
    *v = strtoull(s, &end, 10);
    return *end ? -1 : 0;
}

/* Fills cfg (and *aofdir, left alone if there is no --aof) from the cli
 * subcommand's options: --seed N, --unix-ms MS, --aof DIR. Returns 0, or
 * -1 for anything unknown, a missing value or a value that is not a
 * decimal number. *aofdir points into argv. */
int cliParseOptions(int argc, char **argv, gkConfig *cfg,
                    const char **aofdir) {
    gkConfigInit(cfg);
    cfg->unix_ms_at_zero = _unixMs();
    for (int i = 0; i < argc; i++) {
        unsigned long long v;
        if (i + 1 < argc && !strcmp(argv[i], "--aof")) {
            *aofdir = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
            if (_number(argv[++i], &v) != 0) return -1;
            cfg->seed = v;
        } else if (i + 1 < argc && !strcmp(argv[i], "--unix-ms")) {
            if (_number(argv[++i], &v) != 0) return -1;
            cfg->unix_ms_at_zero = (int64_t)v;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Appends word to the options string of cap bytes, space separated.
 * 0 if it does not fit. */
static int _addOption(char *opts, size_t cap, const char *word) {
    size_t len = strlen(opts), n = strlen(word);
    if (len + n + 2 > cap) return 0;
    if (len) opts[len++] = ' ';
    memcpy(opts + len, word, n + 1);
    return 1;
}

/* Splits `cli --memcached` and `slabs` arguments into the world's settings
 * (--seed, --unix-ms) and memcached's options, joined by spaces into opts
 * (cap bytes, at most CLI_MC_OPTIONS_MAX). Returns 0 when they do not fit,
 * else 1. */
int mcCliArgs(int argc, char **argv, gkConfig *cfg, char *opts, size_t cap) {
    gkConfigInit(cfg);
    cfg->unix_ms_at_zero = _unixMs();
    opts[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--memcached")) continue;
        if (i + 1 < argc && !strcmp(argv[i], "--seed"))
            cfg->seed = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--unix-ms"))
            cfg->unix_ms_at_zero = strtoll(argv[++i], NULL, 10);
        else if (!_addOption(opts, cap, argv[i]))
            return 0;
    }
    return 1;
}
