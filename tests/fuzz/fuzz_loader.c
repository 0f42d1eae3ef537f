/* fuzz_loader.c -- libFuzzer harness for the AOF loader: the manifest,
 * the base file (an RDB snapshot or commands) and the incr files, read
 * back when a node restarts.
 *
 * The input is a flags byte and then up to five sections separated by
 * the line "\n@@\n":
 *
 *     <flags> manifest @@ base @@ incr 1 @@ incr 2 @@ commands
 *
 * flags:
 *     bit 0  aof-load-truncated no
 *     bit 1  the base is commands (appendonly.aof.1.base.aof), not an RDB
 *     bit 2  zero the last 8 bytes of the base: an RDB's checksum, where 0
 *            means "not computed" and is not checked, so mutated RDBs get
 *            past the CRC and into the values
 *     bit 3  name the base "appendonly.aof" (the pre-7.0 single file with
 *            an RDB preamble and a command tail)
 *     bit 4  after the start, BGREWRITEAOF, then crash and start again
 *     bit 5  aof-use-rdb-preamble no
 *
 * An empty manifest section stands for the manifest the server would
 * write for these files: the base, incr 1, and incr 2 if it is not
 * empty. The files are written to the node's simulated disk in place of
 * its own, the node is restarted, and if it came up the commands (RESP
 * or inline) are sent to it.
 *
 * Properties: no crash, no sanitizer report, no abort (the host allocator
 * refuses a gigabyte at once, as a WebAssembly heap would, so a size
 * taken from the file and allocated with a non-Try function aborts
 * here); a node that stays down has said why in its log; a node that is
 * up answers PING.
 *
 * Built with -DFUZZ_LOADER_MAKE_SEEDS it is instead a program that writes
 * seed inputs into the directory named by its argument: AOF directories
 * made by the engine itself, and RDB bases with each compact encoding. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glasskv.h"

#define SEP "\n@@\n"
#define NSECTIONS 5
#define DIR "appendonlydir/"

#define F_TRUNCATED_NO 1
#define F_BASE_AOF 2
#define F_ZERO_CRC 4
#define F_OLD_STYLE 8
#define F_REWRITE 16
#define F_NO_PREAMBLE 32

/* A section of the input: bytes inside it, not copied. */
typedef struct section {
    const uint8_t *p;
    size_t len;
} section;

/* Splits the input after the flags byte at each SEP. */
static void splitSections(const uint8_t *p, size_t len, section *out) {
    size_t seplen = strlen(SEP), start = 0;
    int n = 0;
    memset(out, 0, sizeof(section) * NSECTIONS);
    for (size_t i = 0; n < NSECTIONS - 1 && i + seplen <= len; i++) {
        if (memcmp(p + i, SEP, seplen)) continue;
        out[n].p = p + start;
        out[n++].len = i - start;
        start = i + seplen;
        i = start - 1;
    }
    out[n].p = p + start;
    out[n].len = len - start;
}

/* A host allocator that, like a 32-bit WebAssembly heap, cannot give a
 * gigabyte at once. */
static void *boundedAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return nsize >= (1u << 30) ? NULL : realloc(ptr, nsize);
}

/* The name the base file has for these flags. */
static const char *baseName(int flags) {
    if (flags & F_OLD_STYLE) return "appendonly.aof";
    return flags & F_BASE_AOF ? "appendonly.aof.1.base.aof"
                              : "appendonly.aof.1.base.rdb";
}

/* Writes one file of the AOF directory. */
static void writeFile(gkWorld *w, int srv, const char *name,
                      const uint8_t *p, size_t len) {
    char path[128];
    snprintf(path, sizeof(path), DIR "%s", name);
    gkDiskWriteFile(w, srv, path, p, len);
}

/* Writes the base, with its last 8 bytes zeroed when asked. */
static void writeBase(gkWorld *w, int srv, int flags, section base) {
    uint8_t *copy = malloc(base.len + 1);
    if (base.len) memcpy(copy, base.p, base.len);
    if ((flags & F_ZERO_CRC) && base.len >= 8)
        memset(copy + base.len - 8, 0, 8);
    writeFile(w, srv, baseName(flags), copy, base.len);
    free(copy);
}

/* Writes the manifest: the input's, or the one these files imply. */
static void writeManifest(gkWorld *w, int srv, int flags, section m,
                          int incr2) {
    char buf[512];
    if (m.len) {
        writeFile(w, srv, "appendonly.aof.manifest", m.p, m.len);
        return;
    }
    int n = snprintf(buf, sizeof(buf), "file %s seq 1 type b\n"
                     "file appendonly.aof.1.incr.aof seq 1 type i\n",
                     baseName(flags));
    if (incr2) n += snprintf(buf + n, sizeof(buf) - (size_t)n,
                             "file appendonly.aof.2.incr.aof seq 2 type i\n");
    writeFile(w, srv, "appendonly.aof.manifest", (const uint8_t *)buf,
              (size_t)n);
}

/* The node's configuration for these flags. */
static void configFor(int flags, char *conf, size_t cap) {
    snprintf(conf, cap, "appendonly yes\n%s%s",
             flags & F_TRUNCATED_NO ? "aof-load-truncated no\n" : "",
             flags & F_NO_PREAMBLE ? "aof-use-rdb-preamble no\n" : "");
}

/* Runs the node's world for ms of virtual time. */
static void runFor(gkWorld *w, uint64_t ms) {
    gkWorldRunUntil(w, gkWorldNow(w) + ms * 1000000ULL);
}

/* Sends bytes to the node and runs until they are answered; returns the
 * reply's first bytes in out (the rest is read and dropped). */
static size_t exchange(gkWorld *w, int conn, const void *p, size_t len,
                       char *out, size_t cap) {
    char drop[4096];
    gkConnSend(w, conn, p, len);
    runFor(w, 50);
    size_t n = gkConnRecv(w, conn, out, cap - 1);
    out[n] = '\0';
    while (gkConnRecv(w, conn, drop, sizeof(drop)) > 0) {}
    return n;
}

/* The sequence number of the node's last log line (buf is scratch). */
static uint64_t logEnd(gkWorld *w, int srv, char *buf, size_t cap) {
    uint64_t seq = 0, last;
    while (gkServerLogRead(w, srv, seq, buf, cap, &last) > 0) seq = last;
    return seq;
}

/* A property did not hold: stop, so libFuzzer keeps the input. */
static void fail(const char *what, gkWorld *w, int srv) {
    static char log[1 << 16];
    uint64_t last;
    size_t n = gkServerLogRead(w, srv, 0, log, sizeof(log) - 1, &last);
    log[n] = '\0';
    fprintf(stderr, "fuzz_loader: %s\n--- log ---\n%s\n", what, log);
    abort();
}

/* Whether the last line the node logged after seq is a warning of its
 * own, not one of the start-up banner's lines (also warnings). */
static int saidWhy(gkWorld *w, int srv, uint64_t seq, char *buf,
                   size_t cap) {
    static const char *const banner[] = { "Redis is starting",
        "Redis version=", "Configuration loaded", "Server initialized" };
    uint64_t last;
    size_t n, len = 0;
    while ((n = gkServerLogRead(w, srv, seq, buf, cap - 1, &last)) > 0) {
        seq = last;
        len = n;
    }
    if (len == 0) return 0;
    buf[0] = '\0';                  /* re-read the last line alone */
    gkServerLogRead(w, srv, seq - 1, buf, cap - 1, &last);
    if (!strstr(buf, " # ")) return 0;
    for (size_t i = 0; i < sizeof(banner) / sizeof(banner[0]); i++)
        if (strstr(buf, banner[i])) return 0;
    return 1;
}

/* Restarts the node and checks what it says: up and answering, or down
 * with a warning in the log since log_seq. Returns the connection, or -1
 * if the node is down. */
static int restartAndCheck(gkWorld *w, int srv, const char *conf) {
    static char log[1 << 16];
    char reply[256];
    uint64_t before = logEnd(w, srv, log, sizeof(log)), last;
    int up = gkServerRestart(w, srv, conf) == GK_OK && gkServerIsUp(w, srv);
    if (getenv("FUZZ_LOADER_VERBOSE")) {      /* to see what a seed does */
        log[gkServerLogRead(w, srv, before, log, sizeof(log) - 1, &last)] = 0;
        fprintf(stderr, "--- %s ---\n%s\n", up ? "up" : "down", log);
    }
    if (!up) {
        if (!saidWhy(w, srv, before, log, sizeof(log)))
            fail("down without a warning", w, srv);
        return -1;
    }
    int conn;
    gkConnOpen(w, srv, &conn);
    exchange(w, conn, "PING\r\n", 6, reply, sizeof(reply));
    if (strcmp(reply, "+PONG\r\n") != 0) fail("no PONG after start", w, srv);
    return conn;
}

/* One input: build the files, restart, talk to the node. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    section sec[NSECTIONS];
    char conf[128], reply[4096];
    int flags = size ? data[0] : 0;
    splitSections(data + (size ? 1 : 0), size ? size - 1 : 0, sec);
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = 1;
    gkWorld *w;
    int srv;
    if (gkWorldCreate(&w, &cfg, boundedAlloc, NULL) != GK_OK) abort();
    configFor(flags, conf, sizeof(conf));
    gkServerAddConfig(w, conf, &srv);
    gkServerCrash(w, srv, GK_CRASH_PROCESS);
    writeManifest(w, srv, flags, sec[0], sec[3].len > 0);
    writeBase(w, srv, flags, sec[1]);
    writeFile(w, srv, "appendonly.aof.1.incr.aof", sec[2].p, sec[2].len);
    if (sec[3].len)
        writeFile(w, srv, "appendonly.aof.2.incr.aof", sec[3].p, sec[3].len);
    int conn = restartAndCheck(w, srv, conf);
    if (conn >= 0 && sec[4].len)
        exchange(w, conn, sec[4].p, sec[4].len > 4096 ? 4096 : sec[4].len,
                 reply, sizeof(reply));
    if (conn >= 0 && (flags & F_REWRITE) && gkServerIsUp(w, srv)) {
        exchange(w, conn, "BGREWRITEAOF\r\n", 14, reply, sizeof(reply));
        runFor(w, 2000);
        gkServerCrash(w, srv, GK_CRASH_PROCESS);
        restartAndCheck(w, srv, conf);
    }
    gkWorldRelease(w);
    return 0;
}

#ifdef FUZZ_LOADER_MAKE_SEEDS
/* ---- Seeds. ---- */

/* An input being assembled. */
typedef struct seed {
    uint8_t *p;
    size_t len;
} seed;

static void seedAdd(seed *s, const void *p, size_t len) {
    s->p = realloc(s->p, s->len + len + 1);
    if (len) memcpy(s->p + s->len, p, len);
    s->len += len;
}

static void seedWrite(const char *dir, const char *name, const seed *s) {
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fwrite(s->p, 1, s->len, f);
    fclose(f);
}

/* A file of the node's disk, appended to s (nothing if it is missing). */
static void seedAddFile(seed *s, gkWorld *w, int srv, const char *name) {
    char path[256];
    size_t size;
    snprintf(path, sizeof(path), DIR "%s", name);
    if (gkDiskReadFile(w, srv, path, 0, NULL, 0, &size) != GK_OK) return;
    char *buf = malloc(size + 1);
    gkDiskReadFile(w, srv, path, 0, buf, size, &size);
    seedAdd(s, buf, size);
    free(buf);
}

/* Runs commands (inline, one per line) on a new node with conf, then
 * splits its AOF directory into a seed: the manifest as the engine wrote
 * it, the base and the incr file named in it. */
static void seedFromEngine(const char *dir, const char *name, int flags,
                           const char *const *cmds, int rewrite) {
    gkConfig cfg;
    char conf[128], reply[4096], man[1024];
    gkConfigInit(&cfg);
    gkWorld *w;
    int srv, conn;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    configFor(flags, conf, sizeof(conf));
    gkServerAddConfig(w, conf, &srv);
    gkConnOpen(w, srv, &conn);
    for (int i = 0; cmds[i]; i++)
        exchange(w, conn, cmds[i], strlen(cmds[i]), reply, sizeof(reply));
    if (rewrite) {
        exchange(w, conn, "BGREWRITEAOF\r\n", 14, reply, sizeof(reply));
        runFor(w, 2000);
        exchange(w, conn, "SET after rewrite\r\nSADD s2 x y\r\n", 32, reply,
                 sizeof(reply));
    }
    runFor(w, 1500);
    size_t mlen;
    gkDiskReadFile(w, srv, DIR "appendonly.aof.manifest", 0, man,
                   sizeof(man) - 1, &mlen);
    man[mlen] = '\0';
    char base[128] = "", incr[128] = "";
    for (char *l = strtok(man, "\n"); l; l = strtok(NULL, "\n")) {
        char fname[128], type;
        long long seq;
        if (sscanf(l, "file %127s seq %lld type %c", fname, &seq, &type) != 3)
            continue;
        if (type == 'b') snprintf(base, sizeof(base), "%s", fname);
        if (type == 'i') snprintf(incr, sizeof(incr), "%s", fname);
    }
    seed s = { NULL, 0 };
    uint8_t f = (uint8_t)flags;
    seedAdd(&s, &f, 1);             /* the harness's manifest and names */
    seedAdd(&s, SEP, strlen(SEP));
    seedAddFile(&s, w, srv, base);
    seedAdd(&s, SEP, strlen(SEP));
    seedAddFile(&s, w, srv, incr);
    seedAdd(&s, SEP, strlen(SEP));
    seedAdd(&s, SEP, strlen(SEP));
    const char *probe = "GET s\r\nHGETALL h\r\nZRANGE z 0 -1 WITHSCORES\r\n"
                        "SMEMBERS is\r\nTTL e\r\n";
    seedAdd(&s, probe, strlen(probe));
    seedWrite(dir, name, &s);
    free(s.p);
    gkWorldRelease(w);
}

/* A listpack of short strings (each under 64 bytes). */
static size_t listpackOf(uint8_t *o, const char *const *items, int n) {
    size_t len = 6;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(items[i]);
        o[len++] = (uint8_t)(0x80 | l);
        memcpy(o + len, items[i], l);
        len += l;
        o[len++] = (uint8_t)(l + 1);
    }
    o[len++] = 0xff;
    for (int i = 0; i < 4; i++) o[i] = (uint8_t)(len >> (8 * i));
    o[4] = (uint8_t)n;
    o[5] = 0;
    return len;
}

/* A seed whose base is an RDB with one key of a compact type. */
static void seedCompact(const char *dir, const char *name, int type,
                        const uint8_t *blob, size_t blen) {
    seed s = { NULL, 0 };
    uint8_t f = F_ZERO_CRC | F_REWRITE, b;
    seedAdd(&s, &f, 1);
    seedAdd(&s, SEP, strlen(SEP));
    seedAdd(&s, "REDIS0010\xfe\x00", 11);
    b = (uint8_t)type;
    seedAdd(&s, &b, 1);
    seedAdd(&s, "\x01k", 2);
    b = (uint8_t)blen;
    seedAdd(&s, &b, 1);
    seedAdd(&s, blob, blen);
    seedAdd(&s, "\xff\0\0\0\0\0\0\0\0", 9);
    seedAdd(&s, SEP, strlen(SEP));
    seedAdd(&s, "*3\r\n$4\r\nSADD\r\n$2\r\nis\r\n$1\r\n7\r\n", 29);
    seedWrite(dir, name, &s);
    free(s.p);
}

/* A seed from its sections, written as they are. */
static void seedSections(const char *dir, const char *name, int flags,
                         const char *const *parts, const size_t *lens) {
    seed s = { NULL, 0 };
    uint8_t f = (uint8_t)flags;
    seedAdd(&s, &f, 1);
    for (int i = 0; i < NSECTIONS; i++) {
        if (i) seedAdd(&s, SEP, strlen(SEP));
        seedAdd(&s, parts[i], lens[i]);
    }
    seedWrite(dir, name, &s);
    free(s.p);
}

#define EMPTY_RDB "REDIS0010\xfa\x09redis-ver\x06" "7.0.15\xff" \
                  "\0\0\0\0\0\0\0\0"
#define LONG_TEXT "0123456789abcdefghijklmnopqrstuvwxyz" \
                  "0123456789abcdefghijklmnopqrstuvwxyz"
#define SET_A "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"

/* Hand-made seeds: a manifest with comments, history and quoted names
 * over two incr files (the second ending inside a MULTI); a pre-7.0
 * single file with an RDB preamble and a command tail. */
static void seedsByHand(const char *dir) {
    const char *const m[NSECTIONS] = {
        "# made by hand\nfile appendonly.aof.1.base.rdb seq 1 type b\n"
        "file \"old\\x20file\" seq 1 type h\n"
        "file appendonly.aof.1.incr.aof seq 1 type i\n"
        "file appendonly.aof.2.incr.aof seq 2 type i\n",
        EMPTY_RDB, (SET_A "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"),
        "*1\r\n$5\r\nMULTI\r\n" SET_A, "GET a\r\n" };
    const size_t ml[NSECTIONS] = { strlen(m[0]), sizeof(EMPTY_RDB) - 1,
        strlen(m[2]), strlen(m[3]), strlen(m[4]) };
    seedSections(dir, "manifest-history-multi", F_ZERO_CRC, m, ml);
    const char *const o[NSECTIONS] = { "", EMPTY_RDB SET_A "#TS:1\r\n",
        "", "", "GET a\r\n" };
    const size_t ol[NSECTIONS] = { 0, sizeof(EMPTY_RDB) - 1 +
        strlen(SET_A "#TS:1\r\n"), 0, 0, 7 };
    seedSections(dir, "old-style-preamble", F_OLD_STYLE, o, ol);
}

/* A seed whose base holds a string stored LZF-compressed: twenty 'a's
 * as one literal and one back-reference of nineteen. */
static void seedLzf(const char *dir) {
    static const char rdb[] = "REDIS0010\xfe\x00\x00\x01s"
        "\xc3\x05\x14" "\x00" "a" "\xe0\x0a\x00"
        "\xff\0\0\0\0\0\0\0\0";
    const char *const parts[NSECTIONS] = { "", rdb, "", "", "GET s\r\n" };
    const size_t lens[NSECTIONS] = { 0, sizeof(rdb) - 1, 0, 0, 7 };
    seedSections(dir, "rdb-lzf-string", F_REWRITE, parts, lens);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    const char *const cmds[] = { "SET s hello\r\n", "SET n 12345\r\n",
        "SADD is 1 2 3 -40000 5000000000\r\n", "SADD ss a b c\r\n",
        "HSET h f v g 17\r\n", "ZADD z 1.5 a 2 b -inf c\r\n",
        "SET e x PX 100000\r\n", "SELECT 3\r\n", "SET other db\r\n",
        "MULTI\r\n", "INCR n3\r\n", "EXEC\r\n",
        "SADD many 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\r\n",
        "HSET hbig f " LONG_TEXT "\r\n", "ZADD zbig 3 " LONG_TEXT "\r\n",
        "PEXPIRE hbig 900000\r\n", NULL };
    seedFromEngine(dir, "engine-rdb-base", F_ZERO_CRC | F_REWRITE, cmds, 1);
    seedFromEngine(dir, "engine-aof-base", F_NO_PREAMBLE | F_BASE_AOF, cmds,
                   1);
    seedFromEngine(dir, "engine-incr-only", 0, cmds, 0);
    uint8_t blob[256];
    const char *const hash[] = { "f", "v", "g", "17" };
    const char *const zset[] = { "a", "1.5", "b", "2" };
    seedCompact(dir, "rdb-hash-listpack", 16, blob, listpackOf(blob, hash,
                                                               4));
    seedCompact(dir, "rdb-zset-listpack", 17, blob, listpackOf(blob, zset,
                                                               4));
    const uint8_t is[] = { 4, 0, 0, 0, 3, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff,
                           7, 0, 0, 0, 0x40, 0x0d, 0x03, 0 };
    seedCompact(dir, "rdb-intset", 11, is, sizeof(is));
    seedsByHand(dir);
    seedLzf(dir);
    return 0;
}
#endif
