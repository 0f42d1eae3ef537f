/* run.c -- `glasskv run <lab> [--seed N]`: runs one of the engine's labs in
 * virtual time and prints its figures as JSON on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glasskv.h"
#include "run.h"

static int _runUsage(void) {
    fprintf(stderr, "usage: glasskv run <lab> [--seed N]\n\nlabs:\n");
    for (int i = 0; gkLabName(i); i++) fprintf(stderr, "  %s\n", gkLabName(i));
    return 2;
}

/* argv[0] is the lab name. Exits 2 on a usage error, 1 if the lab fails. */
int runMain(int argc, char **argv) {
    uint64_t seed = 1;
    if (argc < 1) return _runUsage();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 10);
            if (*end) return _runUsage();
        } else {
            return _runUsage();
        }
    }
    size_t cap = 1 << 16;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf) { fprintf(stderr, "glasskv: out of memory\n"); return 1; }
        long n = gkLabRun(argv[0], seed, buf, cap);
        if (n == GK_ENOTFOUND) {
            free(buf);
            fprintf(stderr, "glasskv: unknown lab '%s'\n", argv[0]);
            return _runUsage();
        }
        if (n < 0) {
            free(buf);
            fprintf(stderr, "glasskv: the lab failed: %s\n",
                    gkStatusString((int)n));
            return 1;
        }
        if ((size_t)n < cap) {
            puts(buf);
            free(buf);
            return 0;
        }
        free(buf);
        cap = (size_t)n + 1;
    }
}
