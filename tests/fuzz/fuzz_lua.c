/* fuzz_lua.c -- scripts: Lua source and arguments through EVAL, FUNCTION
 * LOAD and FCALL on a simulated server, in RESP2 or RESP3.
 *
 * Property: nothing crashes, leaks or reads out of bounds; every script
 * gets a reply (a value or an error), an endless one included (the
 * simulation stops a script busy for busy-reply-threshold, 20 ms here,
 * plus a time box of 1 ms: the default box, 2 s of virtual time, is some
 * 300 million Lua instructions, 10 s or more under the sanitizers); the
 * server still answers PING afterwards.
 *
 * Input: a settings byte (which command, the protocol, how many keys),
 * then the script's source up to a NUL, then its arguments separated by
 * NULs. */
#include "fuzzkit.h"

#define MAX_ARGS 16

/* Appends one RESP bulk string to buf at *at (buf holds cap bytes). */
static void _bulk(char *buf, size_t cap, size_t *at, const char *p,
                  size_t len) {
    int n = snprintf(buf + *at, cap - *at, "$%zu\r\n", len);
    *at += (size_t)n;
    memcpy(buf + *at, p, len);
    *at += len;
    memcpy(buf + *at, "\r\n", 2);
    *at += 2;
}

/* Sends argv as one RESP request and runs the world until the server has
 * replied; returns whether a reply came. */
static int _request(gkWorld *w, int conn, int argc, const char **argv,
                    const size_t *lens) {
    size_t cap = 64;
    for (int i = 0; i < argc; i++) cap += lens[i] + 32;
    char *req = malloc(cap);
    size_t at = (size_t)snprintf(req, cap, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) _bulk(req, cap, &at, argv[i], lens[i]);
    gkConnSend(w, conn, req, at);
    free(req);
    char buf[4096];
    for (int round = 0; round < 64; round++) {
        gkWorldRunUntil(w, gkWorldNow(w) + 50000000ull);
        long n = gkConnRecv(w, conn, buf, sizeof(buf));
        if (n > 0) {
            fuzzDrain(w, conn);
            return 1;
        }
    }
    return 0;
}

static int _send(gkWorld *w, int conn, const char *line) {
    const char *argv[8];
    size_t lens[8];
    int argc = 0;
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", line);
    for (char *tok = strtok(copy, " "); tok && argc < 8;
         tok = strtok(NULL, " ")) {
        argv[argc] = tok;
        lens[argc++] = strlen(tok);
    }
    return _request(w, conn, argc, argv, lens);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInput in = fuzzInputOf(data, size);
    uint8_t settings = fuzzByte(&in);
    int which = settings % 3;           /* EVAL, FUNCTION LOAD, both+FCALL */
    int resp3 = (settings >> 2) & 1;
    /* The source, then the arguments. */
    size_t rest = in.len - in.pos;
    const char *p = (const char *)in.p + in.pos;
    const char *nul = memchr(p, '\0', rest);
    size_t srclen = nul ? (size_t)(nul - p) : rest;
    const char *args[MAX_ARGS];
    size_t arglens[MAX_ARGS];
    int nargs = 0;
    if (nul) {
        const char *a = nul + 1, *end = p + rest;
        while (a <= end && nargs < MAX_ARGS) {
            const char *e = memchr(a, '\0', (size_t)(end - a));
            if (!e) e = end;
            args[nargs] = a;
            arglens[nargs++] = (size_t)(e - a);
            a = e + 1;
        }
    }
    int numkeys = nargs ? (settings >> 3) % (nargs + 1) : 0;

    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = 11;
    cfg.unix_ms_at_zero = 1700000000000LL;
    cfg.heap_limit = 256u << 20;
    cfg.trace_capacity = 1u << 12;
    gkWorld *w;
    int srv, conn;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return 0;
    FUZZ_CHECK(gkServerAddConfig(w, "busy-reply-threshold 20\n", &srv) ==
               GK_OK, "server did not start");
    FUZZ_CHECK(gkServerSetScriptTimeBox(w, srv, 1, 1) == GK_OK,
               "time box refused");
    gkConnOpen(w, srv, &conn);
    gkConnSetLink(w, conn, 20000, 0);
    if (resp3) _send(w, conn, "HELLO 3");
    _send(w, conn, "SET k v");

    const char *argv[MAX_ARGS + 4];
    size_t lens[MAX_ARGS + 4];
    char nk[16];
    snprintf(nk, sizeof(nk), "%d", numkeys);
    if (which == 0) {
        argv[0] = "EVAL";
        lens[0] = 4;
        argv[1] = p;
        lens[1] = srclen;
        argv[2] = nk;
        lens[2] = strlen(nk);
        for (int i = 0; i < nargs; i++) {
            argv[3 + i] = args[i];
            lens[3 + i] = arglens[i];
        }
        FUZZ_CHECK(_request(w, conn, 3 + nargs, argv, lens),
                   "no reply to EVAL of %zu bytes", srclen);
    } else {
        /* The source as a library's code, after its shebang. */
        size_t codelen = srclen + 32;
        char *code = malloc(codelen);
        int hl = snprintf(code, codelen, "#!lua name=fz\n");
        memcpy(code + hl, p, srclen);
        argv[0] = "FUNCTION";
        lens[0] = 8;
        argv[1] = "LOAD";
        lens[1] = 4;
        argv[2] = code;
        lens[2] = (size_t)hl + srclen;
        FUZZ_CHECK(_request(w, conn, 3, argv, lens),
                   "no reply to FUNCTION LOAD of %zu bytes", srclen);
        free(code);
        if (which == 2 && nargs > 0) {
            argv[0] = "FCALL";
            lens[0] = 5;
            argv[1] = args[0];
            lens[1] = arglens[0];
            argv[2] = nk;
            lens[2] = strlen(nk);
            for (int i = 1; i < nargs; i++) {
                argv[2 + i] = args[i];
                lens[2 + i] = arglens[i];
            }
            FUZZ_CHECK(_request(w, conn, 2 + nargs, argv, lens),
                       "no reply to FCALL");
        }
    }
    FUZZ_CHECK(_send(w, conn, "PING"), "no reply to PING after a script");
    gkWorldRelease(w);
    return 0;
}
