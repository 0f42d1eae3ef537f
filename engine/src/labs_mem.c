/* labs_mem.c -- encodings-memory: what each encoding costs a key and an
 * element, as Redis 7.0 reports it (used_memory's growth).
 *
 * 100,000 keys of each kind are written into an empty server and its
 * used_memory read before and after: hashes of 10 fields as a listpack
 * and forced to a hash table (hash-max-listpack-entries 0), sets of 10
 * small integers as an intset and forced to a hash table
 * (set-max-intset-entries 0), and strings of 10, 44 and 45 bytes (the
 * last embstr, the first raw) and of 100 bytes. The figures per element
 * show why Redis keeps small collections packed: a field in a listpack
 * costs its bytes and a couple of bytes of header, a field in a hash
 * table a 24-byte dict entry and two sds blocks on top. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "world.h"
#include "labs.h"

#define MEM_LAB_KEYS 100000
#define MEM_LAB_BATCH 1000

typedef struct memLabRun {
    const char *name;
    const char *config;         /* CONFIG SET before the keys, or NULL */
    const char *key;            /* the keys' prefix */
    int elements;               /* per key (1 for a string) */
    int value_bytes;            /* a string's length */
} memLabRun;

static const memLabRun memLabRuns[] = {
    { "hash-listpack", NULL, "h", 10, 0 },
    { "hash-hashtable", "hash-max-listpack-entries 0", "h", 10, 0 },
    { "set-intset", NULL, "s", 10, 0 },
    { "set-hashtable", "set-max-intset-entries 0", "s", 10, 0 },
    { "string-10", NULL, "k", 1, 10 },
    { "string-44", NULL, "k", 1, 44 },
    { "string-45", NULL, "k", 1, 45 },
    { "string-100", NULL, "k", 1, 100 },
};

static long long _usedMemory(gkWorld *w, int conn) {
    static char reply[8192];
    labAsk(w, conn, "INFO memory", reply, sizeof(reply));
    const char *p = strstr(reply, "\r\nused_memory:");
    return p ? atoll(p + 14) : -1;
}

/* Key i of run r as one inline command into buf. */
static int _command(const memLabRun *r, int i, char *buf, size_t cap) {
    if (r->elements == 1) {
        char v[128];
        memset(v, 'x', (size_t)r->value_bytes);
        v[r->value_bytes] = '\0';
        return snprintf(buf, cap, "SET %s:%d %s\r\n", r->key, i, v);
    }
    int n = snprintf(buf, cap, "%s %s:%d", r->key[0] == 'h' ? "HSET" : "SADD",
                     r->key, i);
    for (int f = 0; f < r->elements; f++)
        n += r->key[0] == 'h'
            ? snprintf(buf + n, cap - (size_t)n, " f%d v%d", f, f)
            : snprintf(buf + n, cap - (size_t)n, " %d", f * 7);
    return n + snprintf(buf + n, cap - (size_t)n, "\r\n");
}

static int _runOne(const memLabRun *r, uint64_t seed, labOut *o) {
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int node, conn;
    static char reply[1 << 16];
    if (gkServerAdd(w, &node) != GK_OK || gkConnOpen(w, node, &conn) != GK_OK) {
        gkWorldRelease(w);
        return GK_ERR;
    }
    if (r->config) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "CONFIG SET %s", r->config);
        labAsk(w, conn, cmd, reply, sizeof(reply));
    }
    /* The commands' first calls make their latency histograms: not the
     * keys' memory. */
    labAsk(w, conn, r->elements == 1 ? "SET warm 1" : r->key[0] == 'h'
         ? "HSET warm f v" : "SADD warm 1", reply, sizeof(reply));
    labAsk(w, conn, "DEL warm", reply, sizeof(reply));
    _usedMemory(w, conn);
    long long before = _usedMemory(w, conn);
    char cmd[256];
    for (int i = 0; i < MEM_LAB_KEYS; i++) {
        int n = _command(r, i, cmd, sizeof(cmd));
        gkConnSend(w, conn, cmd, (size_t)n);
        if ((i + 1) % MEM_LAB_BATCH == 0) {
            gkWorldRunUntilIdle(w);
            while (gkConnRecv(w, conn, reply, sizeof(reply)) > 0) {}
        }
    }
    gkWorldRunUntilIdle(w);
    while (gkConnRecv(w, conn, reply, sizeof(reply)) > 0) {}
    long long grew = _usedMemory(w, conn) - before;
    char enc[64];
    snprintf(cmd, sizeof(cmd), "OBJECT ENCODING %s:0", r->key);
    labAsk(w, conn, cmd, enc, sizeof(enc));
    char *e = strchr(enc, '\n');
    labEmit(o, "{\"name\":\"%s\",\"encoding\":\"%.*s\",\"keys\":%d,"
            "\"elements\":%lld,\"used_memory_grew\":%lld,"
            "\"bytes_per_key\":%.1f,\"bytes_per_element\":%.1f}",
            r->name, e ? (int)strcspn(e + 1, "\r") : 0, e ? e + 1 : "",
            MEM_LAB_KEYS, (long long)MEM_LAB_KEYS * r->elements, grew,
            (double)grew / MEM_LAB_KEYS,
            (double)grew / ((double)MEM_LAB_KEYS * r->elements));
    gkWorldRelease(w);
    return GK_OK;
}

/* The lab: one run per encoding, each in a fresh world. */
int labEncodingsMemory(labOut *o, uint64_t seed) {
    for (size_t i = 0; i < sizeof(memLabRuns) / sizeof(memLabRuns[0]); i++) {
        if (i) labEmit(o, ",");
        int st = _runOne(&memLabRuns[i], seed, o);
        if (st != GK_OK) return st;
    }
    return GK_OK;
}
