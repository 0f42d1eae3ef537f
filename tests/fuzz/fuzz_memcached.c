/* fuzz_memcached.c -- a memcached-style node started with options the
 * input chooses (well-formed numbers picked from the ranges memcached
 * accepts, or raw option text), then memcached text-protocol bytes on one
 * or two connections, split where the input says, and a fill workload now
 * and then; the slab introspection calls are read at the end.
 *
 * Property: nothing crashes, leaks, reads or writes out of bounds, and a
 * node that started answers its introspection calls consistently (every
 * page of a class has as many chunks as the class says fit in a page).
 *
 * Input: a settings byte (raw options or not, connections), the options
 * (raw: a chunk of text; else bytes picking -m, -f, -n, -I, slab_chunk_max,
 * -C), then chunks: a byte naming the connection and the pause after the
 * chunk (a fill instead when its top bits are all set), a length byte,
 * the bytes. */
#include "fuzzkit.h"

#define PAUSE_NS 100000ull

static const char *const item_max[] = {
    "1k", "2k", "4k", "16k", "64k", "100k", "512k", "1m", "2m", "4m",
    "16m", "64m", "1023k", "5000", "1025", "129m",
};

/* Builds "-m M -f F -n N -I I [-o slab_chunk_max=C] [-C]" from the input. */
static void _options(fuzzInput *in, char *buf, size_t cap) {
    unsigned m = 1 + fuzzByte(in) % 16;
    double f = 1.01 + fuzzByte(in) / 64.0;
    unsigned n = 1 + fuzzU16(in) % 2048;
    const char *i = item_max[fuzzByte(in) % 16];
    uint8_t c = fuzzByte(in);
    int len = snprintf(buf, cap, "-m %u -f %.3f -n %u -I %s", m, f, n, i);
    if (c & 1)
        len += snprintf(buf + len, cap - (size_t)len,
                        " -o slab_chunk_max=%u", 1u << (4 + (c >> 1) % 17));
    if (c & 0x40) snprintf(buf + len, cap - (size_t)len, " -C");
}

/* Reads every class, page and chunk the node reports. */
static void _introspect(gkWorld *w, int node) {
    static gkMcClass rows[256];
    static uint32_t used[4096], bytes[1 << 16];
    uint32_t n = 0, pages, chunks;
    gkMcTotals totals;
    if (gkMemcachedClasses(w, node, rows, 256, &n, &totals) != GK_OK) return;
    for (uint32_t c = 1; c <= n && c < 256; c++) {
        if (gkMemcachedPages(w, node, c, used, 4096, &pages) != GK_OK)
            continue;
        for (uint32_t p = 0; p < pages && p < 4; p++) {
            if (gkMemcachedChunks(w, node, c, p, bytes, 1 << 16, &chunks)
                != GK_OK)
                continue;
            uint32_t seen = chunks < (1u << 16) ? chunks : (1u << 16);
            uint32_t busy = 0;
            for (uint32_t k = 0; k < seen; k++) busy += bytes[k] != 0;
            FUZZ_CHECK(chunks < (1u << 16) ? busy == used[p] : 1,
                       "class %u page %u: %u chunks in use, pages say %u",
                       c, p, busy, used[p]);
        }
    }
}

static void _fill(gkWorld *w, int node, fuzzInput *in) {
    gkMcFillSpec sp;
    memset(&sp, 0, sizeof(sp));
    sp.dist = fuzzByte(in) % 4;
    sp.size_a = fuzzU16(in) * 4u;
    sp.size_b = fuzzU16(in) * 4u;
    sp.key_bytes = 1 + fuzzByte(in) % 250;
    sp.keyspace = 1 + fuzzU16(in);
    sp.total = 1 + fuzzU16(in) % 50;
    sp.seed = fuzzByte(in);
    gkMcFillResult r;
    memset(&r, 0, sizeof(r));
    gkMemcachedFill(w, node, &sp, 0, sp.total, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInput in = fuzzInputOf(data, size);
    uint8_t settings = fuzzByte(&in);
    char opts[512];
    if (settings & 1) {
        const uint8_t *p;
        size_t n = fuzzChunk(&in, 255, &p);
        memcpy(opts, p, n);
        opts[n] = '\0';
    } else {
        _options(&in, opts, sizeof(opts));
    }
    static gkMcClass rows[256];
    uint32_t nrows;
    char err[512];
    gkMemcachedLayout(opts, rows, 256, &nrows, err, sizeof(err));
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.heap_limit = 512u << 20;
    cfg.trace_capacity = 1u << 10;   /* a big ring costs each run its pages */
    gkWorld *w;
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK) return 0;
    int node, conns[2], nconns = 1 + (settings >> 1 & 1);
    if (gkMemcachedAdd(w, opts, &node) != GK_OK) {
        gkWorldRelease(w);
        return 0;
    }
    for (int i = 0; i < nconns; i++) gkConnOpen(w, node, &conns[i]);
    while (fuzzMore(&in)) {
        uint8_t h = fuzzByte(&in);
        if ((h & 0xf8) == 0xf8) {
            _fill(w, node, &in);
            continue;
        }
        const uint8_t *bytes;
        size_t n = fuzzChunk(&in, 255, &bytes);
        gkConnSend(w, conns[h % nconns], bytes, n);
        gkWorldRunUntil(w, gkWorldNow(w) + PAUSE_NS * (h >> 3));
        for (int i = 0; i < nconns; i++) fuzzDrain(w, conns[i]);
    }
    gkWorldRunUntilIdle(w);
    _introspect(w, node);
    gkWorldRelease(w);
    return 0;
}
