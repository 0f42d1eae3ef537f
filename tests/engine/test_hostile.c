/* Regression tests for input that once crashed the engine or was read
 * past a buffer: option values memcached accepts, protocol headers at the
 * edge of the limits, heap limits a share link can choose. Each is named
 * after what broke; the fuzz corpora under tests/fuzz/ keep the inputs
 * that found them. */
#include "gktest.h"
#include "gkworld.h"

static void testTinyChunkMaxRefusesALargeSet(void) {
    gkWorld *w;
    int node, conn;
    char out[4096];
    CHECK_EQ_INT(gktMemcachedOpen("-m 3 -I 1m -o slab_chunk_max=64", &w,
                                  &node, &conn), GK_OK);
    char req[2100];
    int n = snprintf(req, sizeof(req), "set k 0 0 2000\r\n");
    memset(req + n, 'y', 2000);
    memcpy(req + n + 2000, "\r\n", 2);
    CHECK_EQ_STR(gktExchange(w, conn, req, (size_t)n + 2002, out,
                             sizeof(out)),
                 "SERVER_ERROR out of memory storing object\r\n");
    CHECK_EQ_STR(gktExchange(w, conn, "set s 0 0 2\r\nok\r\nget s\r\n", 24,
                             out, sizeof(out)),
                 "STORED\r\nVALUE s 0 2\r\nok\r\nEND\r\n");
    gkWorldRelease(w);
}

static void testLongItemSizeArgumentIsReadWhole(void) {
    char opts[200] = "-I ";
    memset(opts + 3, '0', 120);
    strcpy(opts + 123, "2m");
    gkWorld *w;
    int node, conn;
    char out[8192];
    CHECK_EQ_INT(gktMemcachedOpen(opts, &w, &node, &conn), GK_OK);
    CHECK(strstr(gktExchange(w, conn, "stats settings\r\n", 16, out,
                             sizeof(out)),
                 "STAT item_size_max 2097152\r\n") != NULL);
    gkWorldRelease(w);
}

static void testHugeBulkLengthGetsItsOwedReplyFirst(void) {
    gkConfig cfg = gktConfig(1);
    gkWorld *w;
    int srv, conn;
    char out[256];
    CHECK_EQ_INT(gktServerOpen(&cfg, &w, &srv, &conn), GK_OK);
    CHECK_EQ_INT(gkServerConfigSet(w, srv, "proto-max-bulk-len", "4gb"),
                 GK_OK);
    const char *req = "SET a 1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n"
                      "$2000000000\r\n";
    CHECK_EQ_STR(gktExchange(w, conn, req, strlen(req), out, sizeof(out)),
                 "+OK\r\n");
    CHECK_EQ_INT(gkConnIsOpen(w, conn), 1);
    /* The announced bytes cost nothing until they come. */
    CHECK(gkWorldMemory(w) < 64u * 1024 * 1024);
    gkWorldRelease(w);
}

int main(void) {
    RUN("a set larger than a tiny slab_chunk_max is refused, not written "
        "past its chunk", testTinyChunkMaxRefusesALargeSet);
    RUN("an -I argument longer than 64 bytes is read whole",
        testLongItemSizeArgumentIsReadWhole);
    RUN("a bulk length past the query buffer limit still gets the reply "
        "owed before it", testHugeBulkLengthGetsItsOwedReplyFirst);
    return gkTestReport();
}
