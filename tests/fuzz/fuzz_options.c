/* fuzz_options.c -- the option parsers: memcached's command line (what
 * `glasskv slabs` and gkMemcachedAdd read) and a Redis-style server's
 * configuration (redis.conf text at startup, CONFIG SET afterwards).
 *
 * Property: nothing crashes or reads out of bounds; an option string the
 * layout call accepts also starts a node, and one it refuses does not; a
 * configuration the server refuses leaves no node behind.
 *
 * Input: a selector byte, then the text (the rest of the input). For a
 * CONFIG SET the text is split at its first space into name and value. */
#include "fuzzkit.h"

static void _memcachedOptions(const char *text) {
    static gkMcClass rows[256];
    uint32_t n = 0;
    char err[512];
    int layout = gkMemcachedLayout(text, rows, 256, &n, err, sizeof(err));
    gkConfig cfg;
    gkConfigInit(&cfg);
    gkWorld *w;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return;
    int node;
    int st = gkMemcachedAdd(w, text, &node);
    FUZZ_CHECK((layout == GK_OK) == (st == GK_OK),
               "layout says %d, the node %d, for \"%s\"", layout, st, text);
    gkWorldRelease(w);
}

static void _redisConfig(const char *text, int at_runtime) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.heap_limit = 64u << 20;
    cfg.trace_capacity = 1u << 10;
    gkWorld *w;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return;
    int node;
    if (!at_runtime) {
        gkServerAddConfig(w, text, &node);
    } else if (gkServerAdd(w, &node) == GK_OK) {
        char name[256];
        const char *sp = strchr(text, ' ');
        size_t len = sp ? (size_t)(sp - text) : strlen(text);
        if (len >= sizeof(name)) len = sizeof(name) - 1;
        memcpy(name, text, len);
        name[len] = '\0';
        gkServerConfigSet(w, node, name, sp ? sp + 1 : "");
        char buf[4096];
        gkServerConfigGet(w, node, name, buf, sizeof(buf));
        gkWorldRunUntil(w, gkWorldNow(w) + 300 * 1000 * 1000ull);
    }
    gkWorldRelease(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInput in = fuzzInputOf(data, size);
    uint8_t which = fuzzByte(&in) % 3;
    char *text = fuzzRestString(&in);
    if (which == 0) _memcachedOptions(text);
    else _redisConfig(text, which == 2);
    free(text);
    return 0;
}
