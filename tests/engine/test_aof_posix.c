/* test_aof_posix.c -- the server core's AOF on real files.
 *
 * The same server code that runs in the simulated world runs here on the
 * native backends: its files are POSIX files in a temporary directory
 * (fs_posix.c) and its bio threads are pthreads (jobs_pthread.c) running
 * real fdatasync(2) calls. Virtual time is a clock the test moves. The
 * server writes Redis 7's multi-part AOF (appendonlydir, the manifest, a
 * base and incr files) and rewrites it with BGREWRITEAOF while writes go
 * on; then Debian's redis-check-aof must accept the directory, and
 * Debian's redis-server 7.0 must load it and hold the dataset the engine
 * held, key by key.
 *
 * Skipped, with a message, when redis-server or redis-check-aof is not
 * installed (scripts/setup.mjs installs both). */
#define _XOPEN_SOURCE 700           /* nftw */
#include <ftw.h>
#include <stdatomic.h>
#include "gktest.h"
#include "redispeer.h"
#include "server.h"
#include "fs_posix.h"
#include "jobs_pthread.h"

#define MS 1000000ULL
#define CONN 0                  /* the one client's descriptor */

/* ---- The native host: one server process on the real backends. ---- */

typedef struct host {
    gkMem mem;
    gkRng rng;
    gkTrace trace;
    gkLog log;
    _Atomic uint64_t now;       /* virtual ns; only the test moves it */
    buf in, out;                /* the client's bytes each way */
    fsPosix *fs, *child_fs;
    jobsPthread *jobs;
    redisServer *s;
} host;

static uint64_t hostClock(void *ctx) {
    return atomic_load(&((host *)ctx)->now);
}

/* The network backend: one client, on CONN, whose requests are already
 * in h->in and whose replies go to h->out. */
static int _poll(void *ctx, aeEventLoop *el, aeFiredEvent *fired, int max) {
    host *h = ctx;
    int mask = aeGetFileEvents(el, CONN), ready = 0;
    if ((mask & AE_READABLE) && h->in.pos < h->in.len) ready |= AE_READABLE;
    if (mask & AE_WRITABLE) ready |= AE_WRITABLE;
    if (!ready || max < 1) return 0;
    fired[0].fd = CONN;
    fired[0].mask = ready;
    return 1;
}

static long _read(void *ctx, int fd, void *out, size_t len) {
    host *h = ctx;
    size_t avail = h->in.len - h->in.pos;
    if (avail == 0) return -1;
    if (len > avail) len = avail;
    memcpy(out, h->in.p + h->in.pos, len);
    h->in.pos += len;
    return (long)len;
}

static long _write(void *ctx, int fd, const void *data, size_t len) {
    bufAppend(&((host *)ctx)->out, data, len);
    return (long)len;
}

static void _close(void *ctx, int fd) { (void)ctx; (void)fd; }

/* Starts a server process on dir with conf, as serverCreate and main
 * would, and connects the client. 0, or -1 (with the reason printed). */
static int hostOpen(host *h, const char *dir, const char *conf) {
    struct timespec ts;
    memset(h, 0, sizeof(*h));
    memInit(&h->mem, NULL, NULL);
    rngSeed(&h->rng, 1);
    traceInit(&h->trace, &h->mem, 1u << 16, hostClock, h);
    h->trace.enabled = 1u << GK_TR_BIO;
    logInit(&h->log, &h->mem, 4096);
    h->fs = fsPosixCreate(dir, hostClock, h);
    h->child_fs = fsPosixCreate(dir, hostClock, h);
    h->jobs = jobsPthreadCreate(hostClock, h);
    if (!h->fs || !h->child_fs || !h->jobs) return -1;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t unix_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    aeBackend be = { h, _poll, hostClock, _read, _write, _close };
    redisServer *s = serverCreate(&h->mem, 0, be, &h->rng, &h->trace,
                                  unix_ms, 0);
    h->s = s;
    s->fs = fsPosixBackend(h->fs);
    s->child_fs = fsPosixBackend(h->child_fs);
    s->jobs = jobsPthreadBackend(h->jobs);
    s->log = &h->log;
    s->pid = (int)getpid();
    sds err = NULL;
    if (serverLoadConfig(s, conf, &err) != C_OK) {
        fprintf(stderr, "  config refused: %s\n", err);
        return -1;
    }
    serverStartup(s);
    if (fsPosixExited(h->fs)) return -1;
    return createClient(s, CONN) ? 0 : -1;
}

/* One event-loop iteration, then the rewrite child if it is due. */
static void hostStep(host *h) {
    aeProcessEvents(h->s->el);
    uint64_t t = serverChildNext(h->s);
    if (t <= hostClock(h)) serverChildRun(h->s, t);
}

/* Moves the clock ahead by ns, an iteration every 10 ms (serverCron runs
 * every 100 ms). */
static void hostAdvance(host *h, uint64_t ns) {
    for (uint64_t t = 0; t < ns; t += 10 * MS) {
        atomic_fetch_add(&h->now, 10 * MS);
        hostStep(h);
    }
}

/* Sends argv and runs the loop until its reply is back; NULL if it never
 * comes. The caller frees the reply. */
static reply *hostCmd(host *h, int argc, const char **argv) {
    respRequest(&h->in, argc, argv);
    for (int i = 0; i < 1000; i++) {
        size_t used;
        reply *r = h->out.len > h->out.pos
                   ? respParse(h->out.p + h->out.pos, h->out.len - h->out.pos,
                               &used) : NULL;
        if (r) {
            h->out.pos += used;
            return r;
        }
        hostStep(h);
    }
    return NULL;
}

/* The bio queues' pending counts, after collecting what the threads
 * did. */
static unsigned long hostPending(host *h) {
    unsigned long n = 0;
    for (int t = 0; t < BIO_NUM_OPS; t++)
        n += bioPendingJobsOfType(&h->s->bio, t);
    return n;
}

/* Waits (in real time, up to 10 s) until the bio threads are idle. */
static int hostWaitIdle(host *h) {
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 10000; i++) {
        if (hostPending(h) == 0) return 0;
        nanosleep(&ms, NULL);
    }
    return -1;
}

/* Prints the server's log (after a failure). */
static void hostPrintLog(host *h) {
    static char text[1 << 20];
    uint64_t last;
    size_t n = logRead(&h->log, 0, text, sizeof(text) - 1, &last);
    text[n] = '\0';
    fprintf(stderr, "  the server's log:\n%s", text);
}

/* What SHUTDOWN does with the AOF before the process exits, as Redis's
 * prepareForShutdown does it: aof_buf is written even if an everysec
 * fsync still runs (a flush postponed behind a slow one would otherwise
 * be lost), and the file is fsynced. 0 once the bio threads are idle
 * too, -1 if they never were. */
static int hostShutdown(host *h) {
    redisServer *s = h->s;
    flushAppendOnlyFile(s, 1);
    if (s->aof.fd >= 0) s->fs.fsync(s->fs.ctx, s->aof.fd);
    return hostWaitIdle(h);
}

/* The process exits: the kernel would close its AOF; its memory goes.
 * Returns the bytes the engine's allocator still had out (0 expected). */
static size_t hostClose(host *h) {
    if (h->s) {
        if (h->s->aof.fd >= 0) close(h->s->aof.fd);
        serverRelease(h->s);
    }
    jobsPthreadRelease(h->jobs);
    fsPosixRelease(h->fs);
    fsPosixRelease(h->child_fs);
    logRelease(&h->log);
    traceRelease(&h->trace, &h->mem);
    bufFree(&h->in);
    bufFree(&h->out);
    return h->mem.used;
}

/* ---- The dataset, as text both servers must agree on. ---- */

typedef reply *cmdFn(void *conn, int argc, const char **argv);

static reply *hostCmdFn(void *conn, int argc, const char **argv) {
    return hostCmd(conn, argc, argv);
}

static reply *peerCmdFn(void *conn, int argc, const char **argv) {
    return peerCmd(conn, argc, argv);
}

static int cmpStr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the strings of an array reply, sorted; with pairs, each field
 * with its value. */
static void dumpSorted(buf *out, reply *r, int pairs) {
    size_t n = r && r->type == '*' ? r->nel : 0, step = pairs ? 2 : 1;
    char **items = calloc(n + 1, sizeof(char *));
    for (size_t i = 0; i + step <= n; i += step) {
        buf item = { 0 };
        bufPrintf(&item, "%s", r->el[i]->str ? r->el[i]->str : "(nil)");
        if (pairs) bufPrintf(&item, "=%s", r->el[i + 1]->str);
        items[i / step] = item.p;
    }
    qsort(items, n / step, sizeof(char *), cmpStr);
    for (size_t i = 0; i < n / step; i++) {
        bufPrintf(out, " %s", items[i]);
        free(items[i]);
    }
    free(items);
}

/* One key: its type and value; its PTTL goes to *ttl. */
static void dumpKey(cmdFn *cmd, void *conn, buf *out, const char *key,
                    long long *ttl) {
    const char *type[] = { "TYPE", key }, *pttl[] = { "PTTL", key };
    const char *get[] = { "GET", key }, *smembers[] = { "SMEMBERS", key };
    const char *hgetall[] = { "HGETALL", key };
    const char *zrange[] = { "ZRANGE", key, "0", "-1", "WITHSCORES" };
    reply *t = cmd(conn, 2, type), *v = NULL;
    const char *tn = t && t->str ? t->str : "?";
    bufPrintf(out, "%s %s:", key, tn);
    if (!strcmp(tn, "string")) {
        v = cmd(conn, 2, get);
        bufPrintf(out, " %s", v && v->str ? v->str : "(nil)");
    } else if (!strcmp(tn, "set")) {
        dumpSorted(out, v = cmd(conn, 2, smembers), 0);
    } else if (!strcmp(tn, "hash")) {
        dumpSorted(out, v = cmd(conn, 2, hgetall), 1);
    } else if (!strcmp(tn, "zset")) {
        v = cmd(conn, 5, zrange);
        for (size_t i = 0; v && i < v->nel; i++)
            bufPrintf(out, " %s", v->el[i]->str);
    }
    replyFree(v);
    replyFree(t);
    reply *p = cmd(conn, 2, pttl);
    *ttl = p ? p->num : -3;
    bufPrintf(out, " ttl:%s\n", *ttl >= 0 ? "yes" : "no");
    replyFree(p);
}

/* Every key of the 16 databases, sorted, as text in out; their PTTLs in
 * ttls (up to max of them). Returns the number of keys. */
static size_t dumpDataset(cmdFn *cmd, void *conn, buf *out,
                          long long *ttls, size_t max) {
    size_t nkeys = 0;
    for (int db = 0; db < 16; db++) {
        char dbs[16];
        snprintf(dbs, sizeof(dbs), "%d", db);
        const char *select[] = { "SELECT", dbs }, *keys[] = { "KEYS", "*" };
        replyFree(cmd(conn, 2, select));
        reply *k = cmd(conn, 2, keys);
        size_t n = k ? k->nel : 0;
        char **names = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++) names[i] = k->el[i]->str;
        qsort(names, n, sizeof(char *), cmpStr);
        if (n) bufPrintf(out, "db%d\n", db);
        for (size_t i = 0; i < n; i++, nkeys++) {
            long long ttl;
            dumpKey(cmd, conn, out, names[i], &ttl);
            if (nkeys < max) ttls[nkeys] = ttl;
        }
        free(names);
        replyFree(k);
    }
    const char *select0[] = { "SELECT", "0" };
    replyFree(cmd(conn, 2, select0));
    return nkeys;
}

/* ---- The workload. ---- */

/* Sends argv to the engine; 1 if the reply is not an error. */
static int engineWrite(host *h, int argc, const char **argv) {
    reply *r = hostCmd(h, argc, argv);
    int ok = r && r->type != '-';
    if (r && r->type == '-')
        fprintf(stderr, "  %s: -%s\n", argv[0], r->str);
    replyFree(r);
    return ok;
}

/* The writes the workload draws from: a key prefix, then the command,
 * where K stands for the key, F a field, M a set member, V a value and S
 * a score. Their AOF forms cover Redis 7's rewriting of commands: SET EX
 * goes to the file as SET PXAT, INCRBYFLOAT as SET KEEPTTL, EXPIRE as
 * PEXPIREAT. */
static const char *writes[][7] = {
    { "s:", "SET", "K", "V" },
    { "e:", "SET", "K", "V", "EX", "7200" },
    { "c:", "INCR", "K" },
    { "fl:", "INCRBYFLOAT", "K", "1.5" },
    { "s:", "APPEND", "K", "-x" },
    { "set:", "SADD", "K", "M", "V" },
    { "set:", "SREM", "K", "M" },
    { "h:", "HSET", "K", "F", "V" },
    { "h:", "HINCRBY", "K", "n", "3" },
    { "z:", "ZADD", "K", "S", "F" },
    { "s:", "DEL", "K" },
    { "s:", "EXPIRE", "K", "9000" },
};

/* One write drawn from writes[], in db 0 or (one time in four) db 3. */
static int randomWrite(host *h, uint64_t *rnd) {
    char key[32], field[16], member[16], value[16], score[16];
    uint64_t x = gkTestRand(rnd);
    const char **w = writes[x % (sizeof(writes) / sizeof(writes[0]))];
    const char *select[] = { "SELECT", (x >> 40) % 4 == 0 ? "3" : "0" };
    const char *argv[6];
    int argc = 0;
    snprintf(key, sizeof(key), "%s%u", w[0], (unsigned)(x >> 8) % 40);
    snprintf(field, sizeof(field), "f%u", (unsigned)(x >> 16) % 12);
    snprintf(member, sizeof(member), "%u", (unsigned)(x >> 16) % 12);
    snprintf(value, sizeof(value), "v%u", (unsigned)(x >> 24) % 100000);
    snprintf(score, sizeof(score), "%u.5", (unsigned)(x >> 30) % 50);
    for (const char **a = w + 1; a < w + 7 && *a; a++) {
        const char *arg = *a;
        if (!strcmp(arg, "K")) arg = key;
        else if (!strcmp(arg, "F")) arg = field;
        else if (!strcmp(arg, "M")) arg = member;
        else if (!strcmp(arg, "V")) arg = value;
        else if (!strcmp(arg, "S")) arg = score;
        argv[argc++] = arg;
    }
    return engineWrite(h, 2, select) && engineWrite(h, argc, argv);
}

/* A set big enough to be freed by the lazy-free thread, then UNLINK. */
static int lazyFreeBigSet(host *h) {
    const char *del[] = { "UNLINK", "big" }, *sel[] = { "SELECT", "0" };
    int ok = engineWrite(h, 2, sel);
    for (int i = 0; i < 200 && ok; i++) {
        char m[16];
        snprintf(m, sizeof(m), "m%d", i);
        const char *a[] = { "SADD", "big", m };
        ok = engineWrite(h, 3, a);
    }
    return ok && engineWrite(h, 2, del);
}

/* Whether INFO persistence has the line "field:value". */
static int infoIs(host *h, const char *field, const char *value) {
    const char *a[] = { "INFO", "persistence" };
    char line[128];
    snprintf(line, sizeof(line), "\n%s:%s\r\n", field, value);
    reply *r = hostCmd(h, 2, a);
    int found = r && r->str && strstr(r->str, line) != NULL;
    replyFree(r);
    return found;
}

/* BGREWRITEAOF, with writes going on while the child works, until the
 * parent has switched to the new base. */
static int rewriteWhileWriting(host *h, uint64_t *rnd) {
    const char *a[] = { "BGREWRITEAOF" };
    if (!engineWrite(h, 1, a)) return 0;
    for (int i = 0; i < 100; i++) {
        for (int w = 0; w < 5; w++)
            if (!randomWrite(h, rnd)) return 0;
        hostAdvance(h, 100 * MS);
        if (infoIs(h, "aof_rewrite_in_progress", "0"))
            return infoIs(h, "aof_last_bgrewrite_status", "ok");
    }
    return 0;
}

/* ---- The directory. ---- */

/* Whether dir/appendonlydir holds a manifest naming one base and at
 * least one incr file, each of them present, and nothing else but them. */
static int checkDir(const char *dir, char *manifest, size_t cap) {
    char path[512];
    snprintf(path, sizeof(path), "%s/appendonlydir/appendonly.aof.manifest",
             dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(manifest, 1, cap - 1, f);
    manifest[n] = '\0';
    fclose(f);
    int bases = 0, incrs = 0;
    char name[256], type;
    for (char *line = manifest; line && *line;) {
        long long seq;
        if (sscanf(line, "file %255s seq %lld type %c", name, &seq,
                   &type) != 3) return 0;
        snprintf(path, sizeof(path), "%s/appendonlydir/%s", dir, name);
        if (access(path, R_OK) != 0) return 0;
        bases += type == 'b';
        incrs += type == 'i';
        line = strchr(line, '\n');
        if (line) line++;
    }
    return bases == 1 && incrs >= 1;
}

static int _rmEntry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw) {
    return remove(path);
}

/* ---- The test. ---- */

/* The first line where a and b differ, into la and lb (cut to cap);
 * both empty if there is none. */
static void firstDiff(const char *a, const char *b, char *la, char *lb,
                      size_t cap) {
    a = a ? a : "";
    b = b ? b : "";
    la[0] = lb[0] = '\0';
    while (*a || *b) {
        size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
        if (na != nb || memcmp(a, b, na)) {
            snprintf(la, cap, "%.*s", (int)na, a);
            snprintf(lb, cap, "%.*s", (int)nb, b);
            if (!la[0] && !lb[0]) snprintf(la, cap, "(end)");
            return;
        }
        a += na + (a[na] == '\n');
        b += nb + (b[nb] == '\n');
    }
}

#define MAX_KEYS 4096
static long long ttlsEngine[MAX_KEYS], ttlsRedis[MAX_KEYS];

/* Writes a dataset with the engine on real files, rewriting on the way,
 * then has Debian's tools check and load what it wrote. */
static void aofOnRealFiles(const char *conf, int rdb_base) {
    char dir[] = "/tmp/glasskv-aof-XXXXXX", out[512], manifest[4096];
    host h;
    peer p = { 0 };
    buf mine = { 0 }, theirs = { 0 };
    uint64_t rnd = 0x5eed;
    int keep = 0;
    CHECK(mkdtemp(dir) != NULL);
    if (hostOpen(&h, dir, conf) != 0) {
        CHECK(!"the server started on the directory");
        if (h.s) hostPrintLog(&h);
        hostClose(&h);
        return;
    }
    int ok = 1;
    for (int round = 0; ok && round < 60; round++) {
        for (int i = 0; ok && i < 10; i++) ok = randomWrite(&h, &rnd);
        if (ok && round == 10) ok = lazyFreeBigSet(&h);
        if (ok && (round == 20 || round == 40))
            ok = rewriteWhileWriting(&h, &rnd);
        hostAdvance(&h, 300 * MS);
    }
    CHECK(ok);
    CHECK(infoIs(&h, "aof_rewrites", "2"));
    CHECK_EQ_INT(hostShutdown(&h), 0);
    /* The fsyncs ran on the bio threads, and bio.c heard of each. How
     * many everysec queued depends on how long the real ones took: the
     * virtual clock runs far ahead of the wall clock here. */
    if (strstr(conf, "everysec"))
        CHECK(jobsPthreadDone(h.jobs, BIO_AOF_FSYNC) >= 1);
    CHECK(jobsPthreadDone(h.jobs, BIO_CLOSE_FILE) >= 2);
    CHECK_EQ_INT(jobsPthreadDone(h.jobs, BIO_LAZY_FREE), 1);
    gkTraceRecord rec[4096];
    size_t nrec = traceRead(&h.trace, 0, rec, 4096), done = 0;
    for (size_t i = 0; i < nrec; i++)
        done += rec[i].b == GK_JOB_DONE;
    CHECK_EQ_INT(done, jobsPthreadDone(h.jobs, 0) +
                       jobsPthreadDone(h.jobs, 1) +
                       jobsPthreadDone(h.jobs, 2));
    size_t nkeys = dumpDataset(hostCmdFn, &h, &mine, ttlsEngine, MAX_KEYS);
    CHECK(nkeys > 100);
    if (gkt_cur_failed) hostPrintLog(&h);
    CHECK_EQ_INT(hostClose(&h), 0);

    CHECK(checkDir(dir, manifest, sizeof(manifest)));
    CHECK(strstr(manifest, rdb_base ? ".base.rdb " : ".base.aof ") != NULL);
    snprintf(out, sizeof(out), "%s/check-aof.txt", dir);
    char mpath[512];
    snprintf(mpath, sizeof(mpath), "%s/appendonlydir/appendonly.aof.manifest",
             dir);
    char *check[] = { "redis-check-aof", mpath, NULL };
    CHECK_EQ_INT(runTool(check, out), 0);
    FILE *f = fopen(out, "r");
    char line[512];
    int valid = 0;
    while (f && fgets(line, sizeof(line), f)) {
        printf("  redis-check-aof: %s", line);
        valid |= strstr(line, "is valid") != NULL;
    }
    if (f) fclose(f);
    CHECK(valid);

    CHECK_EQ_INT(peerStart(&p, dir), 0);
    if (p.fd >= 0) {
        size_t n = dumpDataset(peerCmdFn, &p, &theirs, ttlsRedis, MAX_KEYS);
        CHECK_EQ_INT(n, nkeys);
        char ours[256], redis[256];
        firstDiff(mine.p, theirs.p, ours, redis, sizeof(ours));
        CHECK_EQ_STR(redis, ours);
        /* The clocks differ by the virtual time the test moved ahead. */
        for (size_t i = 0; i < n && i < nkeys && i < MAX_KEYS; i++)
            if (ttlsEngine[i] >= 0)
                CHECK(llabs(ttlsEngine[i] - ttlsRedis[i]) < 120000);
        printf("  redis-server 7.0 holds %zu keys after loading the "
               "directory; the engine held %zu\n", n, nkeys);
    }
    peerStop(&p);
    snprintf(out, sizeof(out), "%s/redis-server.log", dir);
    f = fopen(out, "r");
    int loaded = 0;
    while (f && fgets(line, sizeof(line), f))
        loaded |= strstr(line, "DB loaded from append only file") != NULL;
    if (f) fclose(f);
    CHECK(loaded);
    keep = gkt_cur_failed;
    if (keep) fprintf(stderr, "  the files are kept in %s\n", dir);
    else nftw(dir, _rmEntry, 16, FTW_DEPTH | FTW_PHYS);
    bufFree(&mine);
    bufFree(&theirs);
}

static void testEverysecRdbBase(void) {
    aofOnRealFiles("appendonly yes\nappendfsync everysec\n", 1);
}

static void testAlwaysAofBase(void) {
    aofOnRealFiles("appendonly yes\nappendfsync always\n"
                   "aof-use-rdb-preamble no\naof-timestamp-enabled yes\n", 0);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const char *missing = !onPath("redis-server") ? "redis-server"
                          : !onPath("redis-check-aof") ? "redis-check-aof"
                          : NULL;
    if (missing) {
        printf("skip: %s is not installed (node scripts/setup.mjs installs "
               "redis-server and redis-tools)\n", missing);
        return 0;
    }
    RUN("an everysec AOF written on real files, its fsyncs on a bio "
        "thread and rewritten with an RDB base, is valid for "
        "redis-check-aof and loads in redis-server 7.0 with the same "
        "dataset", testEverysecRdbBase);
    RUN("an always AOF with an AOF base and timestamps, written on real "
        "files and rewritten, is valid for redis-check-aof and loads in "
        "redis-server 7.0 with the same dataset", testAlwaysAofBase);
    return gkTestReport();
}
