/* fuzz_cli.c -- the native command line's input: its argument vectors
 * (`glasskv cli` and `glasskv cli --memcached` / `glasskv slabs`, whose
 * joined options go on to memcached's parser), the redis-cli line syntax
 * it reads on stdin, and the reply formatter that prints what a server
 * sent -- the same C the page's console uses for every reply it shows.
 *
 * Property: nothing crashes or reads out of bounds; a line that splits
 * becomes a request whose length is what cliArgvToResp says; the
 * formatter consumes no more bytes than it was given.
 *
 * Input: a selector byte, then the bytes for that part: NUL-separated
 * arguments, a line, or a reply. */
#include "fuzzkit.h"
#include "cliformat.h"
#include "cliopts.h"

#define MAX_ARGS 64

/* Splits the rest of the input at NULs into at most MAX_ARGS arguments,
 * pointing into one copy that the caller frees. */
static int _argv(fuzzInput *in, char **argv, char **copy) {
    size_t n = in->len - in->pos;
    *copy = fuzzRestString(in);
    int argc = 0;
    char *p = *copy, *end = *copy + n;
    while (p < end && argc < MAX_ARGS) {
        argv[argc++] = p;
        p += strlen(p) + 1;
    }
    return argc;
}

static void _args(fuzzInput *in, int memcached) {
    char *argv[MAX_ARGS], *copy;
    int argc = _argv(in, argv, &copy);
    gkConfig cfg;
    if (memcached) {
        char opts[CLI_MC_OPTIONS_MAX];
        static gkMcClass rows[256];
        uint32_t n;
        char err[512];
        if (mcCliArgs(argc, argv, &cfg, opts, sizeof(opts)))
            gkMemcachedLayout(opts, rows, 256, &n, err, sizeof(err));
    } else {
        const char *aofdir = NULL;
        cliParseOptions(argc, argv, &cfg, &aofdir);
    }
    free(copy);
}

static void _line(const uint8_t *p, size_t len) {
    cliArgs a;
    int argc = cliSplitLine((const char *)p, len, &a);
    if (argc <= 0) return;
    long long repeat;
    cliRepeatPrefix(a.argc, a.argv, &repeat);
    cliArgvWantsRaw(a.argc, a.argv);
    char *req;
    size_t reqlen;
    if (cliArgvToResp(a.argc, a.argv, a.lens, &req, &reqlen) > 0) {
        FUZZ_CHECK(req[0] == '*' && req[reqlen - 1] == '\n',
                   "request of %zu bytes is not a multibulk", reqlen);
        free(req);
    }
    cliArgsRelease(&a);
}

static void _reply(const uint8_t *p, size_t len, int raw) {
    char *text = NULL;
    size_t textlen = 0;
    long used = raw ? cliFormatReplyRaw((const char *)p, len, &text, &textlen)
                    : cliFormatReply((const char *)p, len, &text, &textlen);
    FUZZ_CHECK(used <= (long)len, "formatter used %ld of %zu bytes", used,
               len);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInput in = fuzzInputOf(data, size);
    uint8_t which = fuzzByte(&in) % 5;
    const uint8_t *rest = data + in.pos;
    size_t n = size - in.pos;
    switch (which) {
    case 0: _args(&in, 0); break;
    case 1: _args(&in, 1); break;
    case 2: _line(rest, n); break;
    case 3: _reply(rest, n, 0); break;
    default: _reply(rest, n, 1); break;
    }
    return 0;
}
