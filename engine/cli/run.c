/* run.c -- `glasskv run <lab> [--seed N]` runs one of the engine's labs in
 * virtual time; `glasskv run benchmark [options]` runs one redis-benchmark
 * like workload. Both print their figures as JSON on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glasskv.h"
#include "run.h"

static int _runUsage(void) {
    fprintf(stderr,
        "usage: glasskv run <lab> [--seed N]\n"
        "       glasskv run benchmark [--clients C] [--pipeline P]\n"
        "           [--requests N] [--command GET|SET|INCR|PING]\n"
        "           [--value-size B] [--rtt-us U] [--multi] [--seed N]\n"
        "\nlabs:\n");
    for (int i = 0; gkLabName(i); i++)
        fprintf(stderr, "  %-20s (%s)\n", gkLabName(i), gkLabTopic(i));
    return 2;
}

static int _num(const char *s, uint64_t *out) {
    char *end;
    if (*s < '0' || *s > '9') return 0;
    *out = strtoull(s, &end, 10);
    return *end == '\0';
}

/* Parses the options after the lab name. Returns 0 on a usage error. */
static int _options(int argc, char **argv, uint64_t *seed,
                    gkWorkloadSpec *sp) {
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        uint64_t v = 0;
        if (!strcmp(o, "--multi")) { sp->multi = 1; continue; }
        if (i + 1 >= argc) return 0;
        const char *a = argv[++i];
        if (!strcmp(o, "--command")) {
            if (strlen(a) >= sizeof(sp->command)) return 0;
            strcpy(sp->command, a);
            continue;
        }
        if (!_num(a, &v)) return 0;
        if (!strcmp(o, "--seed")) *seed = v;
        else if (!strcmp(o, "--clients")) sp->clients = (uint32_t)v;
        else if (!strcmp(o, "--pipeline")) sp->pipeline = (uint32_t)v;
        else if (!strcmp(o, "--requests")) sp->requests = v;
        else if (!strcmp(o, "--value-size")) sp->value_size = (uint32_t)v;
        else if (!strcmp(o, "--rtt-us")) sp->rtt_ns = v * 1000;
        else return 0;
    }
    return 1;
}

static long _run(const char *name, uint64_t seed, const gkWorkloadSpec *sp,
                 char *buf, size_t cap) {
    if (!strcmp(name, "benchmark"))
        return gkWorkloadRunJson(sp, seed, buf, cap);
    return gkLabRun(name, seed, buf, cap);
}

/* argv[0] is the lab name. Exits 2 on a usage error, 1 if the run fails. */
int runMain(int argc, char **argv) {
    uint64_t seed = 1;
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    if (argc < 1 || !_options(argc, argv, &seed, &sp)) return _runUsage();
    for (size_t cap = 1 << 16;;) {
        char *buf = malloc(cap);
        if (!buf) { fprintf(stderr, "glasskv: out of memory\n"); return 1; }
        long n = _run(argv[0], seed, &sp, buf, cap);
        if (n >= 0 && (size_t)n < cap) {
            puts(buf);
            free(buf);
            return 0;
        }
        free(buf);
        if (n == GK_ENOTFOUND) {
            fprintf(stderr, "glasskv: unknown lab '%s'\n", argv[0]);
            return _runUsage();
        }
        if (n < 0) {
            fprintf(stderr, "glasskv: the run failed: %s\n",
                    gkStatusString((int)n));
            return 1;
        }
        cap = (size_t)n + 1;
    }
}
