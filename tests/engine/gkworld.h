/* gkworld.h -- the worlds, exchanges and lab figures the engine's C tests
 * build again and again, kept here so that each test file says only what
 * it checks. Include after gktest.h. */
#ifndef GKWORLD_H
#define GKWORLD_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "glasskv.h"

/* gkConfigInit's settings with the given seed. */
static inline gkConfig gktConfig(uint64_t seed) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = seed;
    return cfg;
}

/* Creates a world from cfg with one Redis-style server and one connection
 * to it. Returns the first status that is not GK_OK, else GK_OK. */
static inline int gktServerOpen(const gkConfig *cfg, gkWorld **w,
                                int *srv, int *conn) {
    int rc = gkWorldCreate(w, cfg, NULL, NULL);
    if (rc == GK_OK) rc = gkServerAdd(*w, srv);
    if (rc == GK_OK) rc = gkConnOpen(*w, *srv, conn);
    return rc;
}

/* Creates a world with default settings and one memcached-style node
 * started with opts, and, when conn is not NULL and the node started, a
 * connection to it. Returns the first status that is not GK_OK (the
 * node's refusal of opts among them), else GK_OK. */
static inline int gktMemcachedOpen(const char *opts, gkWorld **w,
                                   int *node, int *conn) {
    gkConfig cfg;
    gkConfigInit(&cfg);
    int rc = gkWorldCreate(w, &cfg, NULL, NULL);
    if (rc == GK_OK) rc = gkMemcachedAdd(*w, opts, node);
    if (rc == GK_OK && conn) rc = gkConnOpen(*w, *node, conn);
    return rc;
}

/* Sends len bytes on conn, runs what is due, and returns every reply byte
 * in out (at most cap - 1 of them, then a NUL). */
static inline const char *gktExchange(gkWorld *w, int conn,
                                      const char *bytes, size_t len,
                                      char *out, size_t cap) {
    gkConnSend(w, conn, bytes, len);
    gkWorldRunUntilIdle(w);
    size_t n = gkConnRecv(w, conn, out, cap - 1);
    out[n] = '\0';
    return out;
}

/* A fill workload spec: sizes drawn by dist from a and b, keys of
 * key_bytes over keyspace, total sets, seeded with seed. */
static inline gkMcFillSpec gktFillSpec(uint32_t dist, uint32_t a,
                                       uint32_t b, uint64_t keyspace,
                                       uint64_t total, uint32_t key_bytes,
                                       uint64_t seed) {
    gkMcFillSpec sp;
    memset(&sp, 0, sizeof(sp));
    sp.dist = dist;
    sp.size_a = a;
    sp.size_b = b;
    sp.key_bytes = key_bytes;
    sp.keyspace = keyspace;
    sp.total = total;
    sp.seed = seed;
    return sp;
}

/* Runs the whole of a fill workload (sets 0 to sp->total) against node,
 * its outcome in r from zero. Returns gkMemcachedFill's status, for the
 * caller to check where the line number says which fill it was. */
static inline int gktFill(gkWorld *w, int node, const gkMcFillSpec *sp,
                          gkMcFillResult *r) {
    memset(r, 0, sizeof(*r));
    return gkMemcachedFill(w, node, sp, 0, sp->total, r);
}

/* Runs a lab with seed 1 and returns its JSON (from malloc, released with
 * free; empty if the lab failed, which is also a failed check). */
static inline char *gktLab(const char *name) {
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    long n = gkLabRun(name, 1, buf, cap);
    CHECK(n > 0 && (size_t)n < cap);
    if (n <= 0) buf[0] = '\0';
    return buf;
}

/* The start of the run-th run (0-based) of a lab's JSON, or NULL. A run
 * begins where mark (the text that opens its "name" field) stands. */
static inline const char *gktLabRun(const char *json, int run,
                                    const char *mark) {
    const char *p = json;
    for (int i = 0; i <= run && p; i++) {
        p = strstr(p, mark);
        if (p && i < run) p++;
    }
    return p;
}

/* The number after "key": within [from, the next mark), true as 1 and
 * false as 0, or -1e300 if absent. */
static inline double gktLabNum(const char *from, const char *key,
                               const char *mark) {
    char want[128];
    if (!from) return -1e300;
    snprintf(want, sizeof(want), "\"%s\":", key);
    const char *next = strstr(from + 1, mark);
    const char *q = strstr(from, want);
    if (!q || (next && q > next)) return -1e300;
    q += strlen(want);
    if (!strncmp(q, "true", 4)) return 1;
    if (!strncmp(q, "false", 5)) return 0;
    return strtod(q, NULL);
}
#endif
