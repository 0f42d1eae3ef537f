/* aofkit.h -- helpers for the persistence tests: one Redis-style node on
 * its machine, a host connection to it, its log, its disk. */
#ifndef AOFKIT_H
#define AOFKIT_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gkworld.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

typedef struct node {
    gkWorld *w;
    int srv, conn;
    char out[1 << 16];
} node;

/* A world with one node started with conf (redis.conf syntax). */
static inline void nodeOpen(node *n, uint64_t seed, const char *conf) {
    gkConfig cfg = gktConfig(seed);
    cfg.trace_capacity = 1u << 18;
    gkWorldCreate(&n->w, &cfg, NULL, NULL);
    gkServerAddConfig(n->w, conf, &n->srv);
    gkConnOpen(n->w, n->srv, &n->conn);
    gkConnSetLink(n->w, n->conn, 20000, 0);     /* replies arrive when sent */
}

static inline void nodeClose(node *n) { gkWorldRelease(n->w); }

/* Sends bytes, runs until the connection is quiet, returns the replies. */
static inline const char *nodeRaw(node *n, const char *bytes, size_t len) {
    return gktExchange(n->w, n->conn, bytes, len, n->out, sizeof(n->out));
}

/* One inline command (CRLF added). */
static inline const char *nodeCmd(node *n, const char *line) {
    gkConnSend(n->w, n->conn, line, strlen(line));
    return nodeRaw(n, "\r\n", 2);
}

/* One inline command built with printf-style arguments. */
static inline const char *nodeCmdf(node *n, const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    return nodeCmd(n, line);
}

static inline void nodeRun(node *n, uint64_t ns) {
    gkWorldRunUntil(n->w, gkWorldNow(n->w) + ns);
}

/* Restarts a node that is down and reconnects. */
static inline int nodeRestart(node *n) {
    int st = gkServerRestart(n->w, n->srv, NULL);
    if (st == GK_OK) {
        gkConnOpen(n->w, n->srv, &n->conn);
        gkConnSetLink(n->w, n->conn, 20000, 0);
    }
    return st;
}

/* The node's whole log (its first 1 MB), NUL-terminated, in a static
 * buffer that the next call overwrites. */
static inline char *nodeLog(node *n) {
    static char buf[1 << 20];
    uint64_t last;
    size_t len = gkServerLogRead(n->w, n->srv, 0, buf, sizeof(buf) - 1,
                                 &last);
    buf[len] = '\0';
    return buf;
}

/* Whether any line of the node's log contains needle. */
static inline int nodeLogHas(node *n, const char *needle) {
    return strstr(nodeLog(n), needle) != NULL;
}

/* How many lines of the log contain needle. */
static inline int nodeLogCount(node *n, const char *needle) {
    int count = 0;
    for (char *p = nodeLog(n); (p = strstr(p, needle)) != NULL; p++)
        count++;
    return count;
}

/* A malloc'd copy of a file of the node's disk (NUL-terminated), NULL if
 * it does not exist. */
static inline char *nodeFile(node *n, const char *path, int durable,
                             size_t *len) {
    size_t size;
    if (gkDiskReadFile(n->w, n->srv, path, durable, NULL, 0, &size) != GK_OK)
        return NULL;
    char *buf = malloc(size + 1);
    gkDiskReadFile(n->w, n->srv, path, durable, buf, size, &size);
    buf[size] = '\0';
    if (len) *len = size;
    return buf;
}

/* Where the value of a field of INFO persistence starts in n->out, or
 * NULL if the field is absent. */
static inline const char *nodeInfoValue(node *n, const char *field) {
    char want[128];
    nodeCmd(n, "INFO persistence");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? p + strlen(want) : NULL;
}

/* An integer field of INFO, or -1. */
static inline long long nodeInfo(node *n, const char *field) {
    const char *p = nodeInfoValue(n, field);
    return p ? atoll(p) : -1;
}

/* A string field of INFO into buf ("" if absent). */
static inline const char *nodeInfoStr(node *n, const char *field, char *buf,
                                      size_t cap) {
    const char *p = nodeInfoValue(n, field);
    buf[0] = '\0';
    if (!p) return buf;
    size_t len = strcspn(p, "\r");
    if (len >= cap) len = cap - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* ---- Other connections to the node's server. ---- */

/* A second connection to n's server, its replies arriving when sent. */
static inline int connOpen(node *n) {
    int conn;
    gkConnOpen(n->w, n->srv, &conn);
    gkConnSetLink(n->w, conn, 20000, 0);
    gkWorldRunUntilIdle(n->w);
    return conn;
}

/* Sends one inline command on conn and runs what is due, reading
 * nothing. */
static inline void connSend(node *n, int conn, const char *line) {
    gkConnSend(n->w, conn, line, strlen(line));
    gkConnSend(n->w, conn, "\r\n", 2);
    gkWorldRunUntilIdle(n->w);
}

/* What arrived on conn since the last read, in a static buffer ("" for
 * nothing). */
static inline const char *connRead(node *n, int conn) {
    static char buf[8192];
    gkWorldRunUntilIdle(n->w);
    size_t len = gkConnRecv(n->w, conn, buf, sizeof(buf) - 1);
    buf[len] = '\0';
    return buf;
}

#endif
