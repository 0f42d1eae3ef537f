/* mccli.c -- see mccli.h.
 *
 *   glasskv cli --memcached [--seed N] [--unix-ms MS] [memcached options]
 *
 * starts one memcached-style node with the given memcached options and one
 * client connection, then sends stdin to it a line at a time (a value
 * block is just more lines), letting the world run until the node has
 * answered before the next line, as a client that waits for each reply
 * would. Replies are printed exactly as the node sends them. A quit, or
 * any close by the node, ends the run.
 *
 *   glasskv slabs [memcached options]
 *
 * prints the slab class table memcached prints on stderr at start-up with
 * -vv: "slab class %3d: chunk size %9u perslab %7u", one line a class.
 * Options memcached refuses print its message on stderr and exit 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glasskv.h"
#include "cliopts.h"
#include "mccli.h"

/* Prints msg on stderr and returns the exit status 1. */
static int _mcDie(const char *msg) {
    fflush(stdout);
    fprintf(stderr, "%s\n", msg);
    return 1;
}

/* Copies every byte that has arrived to stdout; returns how many. */
static size_t _mcDrain(gkWorld *w, int conn) {
    char buf[65536];
    size_t n, total = 0;
    while ((n = gkConnRecv(w, conn, buf, sizeof(buf))) > 0) {
        fwrite(buf, 1, n, stdout);
        total += n;
    }
    return total;
}

/* Sends one line, lets the node answer, prints the answer. A reply larger
 * than the connection's window arrives in parts: reading one lets the
 * node write the next. Returns 0 once the node has closed the
 * connection. */
static int _mcLine(gkWorld *w, int conn, const char *line, size_t len) {
    if (gkConnSend(w, conn, line, len) != GK_OK) return 0;
    do gkWorldRunUntilIdle(w);
    while (_mcDrain(w, conn) > 0);
    return gkConnIsOpen(w, conn) == 1;
}

/* Feeds stdin to the connection line by line until EOF or a close. */
static void _mcFeed(gkWorld *w, int conn) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0)
        if (!_mcLine(w, conn, line, (size_t)n)) break;
    free(line);
}

/* glasskv cli --memcached: returns the exit status. */
int mcCliMain(int argc, char **argv) {
    gkConfig cfg;
    gkWorld *w;
    char opts[CLI_MC_OPTIONS_MAX];
    int node, conn;
    if (!mcCliArgs(argc, argv, &cfg, opts, sizeof(opts)))
        return _mcDie("glasskv: the memcached options are too long");
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK)
        return _mcDie("glasskv: cannot create the world");
    if (gkMemcachedAdd(w, opts, &node) != GK_OK ||
        gkConnOpen(w, node, &conn) != GK_OK) {
        int rc = _mcDie(gkWorldLastError(w));
        gkWorldRelease(w);
        return rc;
    }
    _mcFeed(w, conn);
    fflush(stdout);
    gkWorldRelease(w);
    return 0;
}

/* glasskv slabs: returns the exit status. */
int mcSlabsMain(int argc, char **argv) {
    gkConfig cfg;
    gkWorld *w;
    char opts[CLI_MC_OPTIONS_MAX];
    int node;
    gkMcClass rows[64];
    uint32_t n = 0;
    if (!mcCliArgs(argc, argv, &cfg, opts, sizeof(opts)))
        return _mcDie("glasskv: the memcached options are too long");
    if (gkWorldCreate(&w, &cfg, NULL, NULL) != GK_OK)
        return _mcDie("glasskv: cannot create the world");
    if (gkMemcachedAdd(w, opts, &node) != GK_OK ||
        gkMemcachedClasses(w, node, rows, 64, &n, NULL) != GK_OK) {
        int rc = _mcDie(gkWorldLastError(w));
        gkWorldRelease(w);
        return rc;
    }
    for (uint32_t i = 0; i < n && i < 64; i++)
        printf("slab class %3u: chunk size %9u perslab %7u\n", rows[i].id,
               rows[i].chunk_size, rows[i].perslab);
    gkWorldRelease(w);
    return 0;
}
