/* aofcli.c -- `glasskv cli --aof DIR`: the cli subcommand on a server
 * started with appendonly yes and appendfsync always, whose AOF
 * directory (manifest, base and incr files, as the page cache holds them)
 * is written into DIR at the end, so that redis-check-aof and a real
 * redis-server can read it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aofcli.h"

/* The configuration the server starts with. */
const char *aofCliConfig(void) {
    return "appendonly yes\nappendfsync always\n";
}

/* Writes one file of the simulated disk to dir/name. Returns 0 or -1
 * after a message on stderr. */
static int _exportFile(gkWorld *w, int node, const char *dir,
                       const char *name) {
    char src[512], dst[4096];
    size_t size = 0;
    snprintf(src, sizeof(src), "appendonlydir/%s", name);
    if (gkDiskReadFile(w, node, src, 0, NULL, 0, &size) != GK_OK) return -1;
    char *buf = malloc(size ? size : 1);
    if (!buf) return -1;
    gkDiskReadFile(w, node, src, 0, buf, size, &size);
    snprintf(dst, sizeof(dst), "%s/%s", dir, name);
    FILE *f = fopen(dst, "wb");
    int ok = f && fwrite(buf, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    free(buf);
    if (!ok) fprintf(stderr, "glasskv: cannot write %s: %s\n", dst,
                     strerror(errno));
    return ok ? 0 : -1;
}

/* Lets a rewrite in progress finish (up to a minute of virtual time),
 * so the directory is the one an idle server would leave. */
static void _awaitRewrite(gkWorld *w, int node) {
    gkAofInfo ai;
    uint64_t limit = gkWorldNow(w) + 60ULL * 1000000000ULL;
    while (gkAofGetInfo(w, node, &ai) == GK_OK && ai.rewrite_in_progress &&
           gkWorldNow(w) < limit)
        gkWorldRunUntil(w, gkWorldNow(w) + 100000000ULL);
}

/* Copies every file of the node's simulated appendonlydir into dir
 * (created if missing), once a rewrite in progress is done. Returns 0,
 * or -1 after a message on stderr. */
int aofCliExport(gkWorld *w, int node, const char *dir) {
    char names[64 * 1024];
    size_t len = 0;
    _awaitRewrite(w, node);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "glasskv: cannot create %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    if (gkDiskList(w, node, "appendonlydir", names, sizeof(names), &len) !=
        GK_OK) {
        fprintf(stderr, "glasskv: the server has no appendonlydir\n");
        return -1;
    }
    for (size_t off = 0; off < len; off += strlen(names + off) + 1)
        if (_exportFile(w, node, dir, names + off) != 0) return -1;
    return 0;
}
