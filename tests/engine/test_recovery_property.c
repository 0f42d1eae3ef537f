/* A property test of the recovery report (gkServerRecoveryFollow,
 * gkServerRecoveryInfo, gkServerRecoveryRows): what a restart kept of the
 * writes clients were told succeeded. test_recovery.c has its cases.
 *
 * The test drives several clients with random scripts over every
 * command family the engine has -- strings (SET with its options, GETSET,
 * MSET, APPEND, the INCR family, GETEX, GETDEL, SETRANGE, SETBIT), hashes
 * (HINCRBYFLOAT among them), sets, sorted sets, lists (pushes,
 * pops with counts, LMOVE, LSET, LINSERT, LREM, LTRIM, LMPOP), the keyspace
 * (DEL, UNLINK, RENAME, EXPIREAT, PERSIST, FLUSHDB and FLUSHALL in other
 * dbs), MULTI/EXEC, BGREWRITEAOF -- crashes the machine at a random point
 * (kill -9 or power loss, now or at a beforeSleep or right after a write
 * of aof_buf), restarts it, and checks the report against a brute-force
 * answer built without the ledger:
 *   - the clients' own view: a command was acknowledged if its whole reply
 *     arrived;
 *   - the order the server ran the commands in, from the trace (GK_TR_CMD);
 *   - a fresh node in another world runs them again in that order; after
 *     each write it changed its AOF with (the commands it fed), the keys
 *     those commands name get their value read back, and so the value of
 *     each key right after its last acknowledged write is known, and the
 *     digest of the whole dataset after each write;
 *   - the restart holds the first p writes: its dataset digest is the
 *     fresh node's after p writes (p is the report's units_restored);
 *   - a key is kept if the restart holds the acknowledged value; else newer
 *     if its last acknowledged write is among the first p, lost if the
 *     restart lacks it, older otherwise.
 * Under appendfsync always nothing acknowledged may be lost or older. */
#include <stdarg.h>
#include <strings.h>
#include "gktest.h"
#include "aofkit.h"

#if defined(__SANITIZE_ADDRESS__)
#define SEEDS 5
#else
#define SEEDS 30
#endif

/* ---- RESP, as a client reads it. ---- */

/* The length of the one reply at p (n bytes available), 0 if it is not
 * complete yet. */
static size_t respLen(const char *p, size_t n) {
    const char *nl = memchr(p, '\n', n);
    if (!nl || n < 3) return 0;
    size_t head = (size_t)(nl - p) + 1;
    long long v = atoll(p + 1);
    if (p[0] == '+' || p[0] == '-' || p[0] == ':') return head;
    if (p[0] == '$') {
        if (v < 0) return head;
        return n >= head + (size_t)v + 2 ? head + (size_t)v + 2 : 0;
    }
    size_t at = head;
    for (long long i = 0; i < v; i++) {
        size_t k = respLen(p + at, n - at);
        if (!k) return 0;
        at += k;
    }
    return at;
}

/* The bulk strings of the array at p (nested arrays flattened, integers
 * and statuses as text) into items; returns how many, -1 for a null or a
 * non-array reply. */
static int respItems(const char *p, size_t n, char items[][256], int max) {
    if (p[0] != '*') return -1;
    long long v = atoll(p + 1);
    if (v < 0) return -1;
    size_t at = (size_t)((const char *)memchr(p, '\n', n) - p) + 1;
    int got = 0;
    for (long long i = 0; i < v; i++) {
        const char *q = p + at;
        size_t len = respLen(q, n - at);
        if (q[0] == '*') {
            got += respItems(q, len, items + got, max - got);
        } else if (got < max) {
            const char *body = (const char *)memchr(q, '\n', len) + 1;
            size_t blen = q[0] == '$' ? (size_t)atoll(q + 1)
                                      : (size_t)(body - q) - 3;
            if (q[0] == '$' && atoll(q + 1) < 0) blen = 0;
            if (q[0] != '$') body = q + 1;
            if (blen > 255) blen = 255;
            memcpy(items[got], body, blen);
            items[got][blen] = '\0';
            got++;
        }
        at += len;
    }
    return got;
}

/* argv as a RESP multibulk into out; returns its length. */
static size_t respEncode(int argc, const char argv[][64], char *out) {
    size_t len = (size_t)sprintf(out, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        len += (size_t)sprintf(out + len, "$%zu\r\n%s\r\n", strlen(argv[i]),
                               argv[i]);
    return len;
}

/* ---- Scripts. ---- */

#define CLIENTS 3
#define MAXCMDS 4096
#define T0_MS 1767225600000LL       /* gkConfigInit's unix time at zero */

typedef struct cmd {
    int argc;
    char argv[8][64];
} cmd;

typedef struct script {
    cmd *cmds;                  /* what the client sent, in order */
    int n;
    int replies;                /* whole replies it received */
    char *in;                   /* reply bytes received */
    size_t inlen, incap;
    int conn;
    int waiting;                /* replies still due for its last batch */
} script;

static void add(script *s, int argc, ...) {
    va_list ap;
    va_start(ap, argc);
    cmd *c = &s->cmds[s->n++];
    c->argc = argc;
    for (int i = 0; i < argc; i++)
        snprintf(c->argv[i], sizeof(c->argv[i]), "%s", va_arg(ap, char *));
    va_end(ap);
}

static uint64_t rnd(uint64_t *x, uint64_t n) { return gkTestRand(x) % n; }

/* A key of the given family: s strings, h hashes, t sets, z sorted sets,
 * l lists. */
static void key(uint64_t *x, char fam, char *out) {
    sprintf(out, "%c%d", fam, (int)rnd(x, 4));
}

/* One of the string and hash writes Redis propagates as other commands
 * (GETEX as PEXPIREAT, DEL or PERSIST, GETDEL as DEL, HINCRBYFLOAT as
 * HSET) or as themselves (SETRANGE, SETBIT). */
static void randomStringOrHashWrite(uint64_t *x, script *s, const char *k,
                                    const char *v, const char *n) {
    char t[32];
    switch (rnd(x, 8)) {
    case 0:                         /* past the cutoff */
        sprintf(t, "%lld", T0_MS + 3 * 3600 * 1000LL + (long long)rnd(x, 99));
        add(s, 4, "GETEX", k, "PXAT", t);
        break;
    case 1:                         /* already past: a DEL */
        sprintf(t, "%lld", T0_MS / 1000 - 10);
        add(s, 4, "GETEX", k, "EXAT", t);
        break;
    case 2: add(s, 3, "GETEX", k, "PERSIST"); break;
    case 3: add(s, 2, "GETDEL", k); break;
    case 4: add(s, 4, "HINCRBYFLOAT", k, "fl", "1.25"); break;
    case 5: add(s, 4, "SETRANGE", k, rnd(x, 2) ? "2" : "0", v); break;
    case 6: add(s, 4, "SETBIT", k, n[0] == '-' ? "3" : n, "1"); break;
    default: add(s, 4, "SETBIT", k, "9", rnd(x, 2) ? "1" : "0"); break;
    }
}

/* One random write, read or keyspace command. */
static void randomCommand(uint64_t *x, script *s, int *counter) {
    char k[16], k2[16], v[32], n[32], t[32], z[16];
    const char fams[] = "shtzl";
    char fam = fams[rnd(x, 5)];
    key(x, fam, k);
    key(x, fams[rnd(x, 5)], k2);
    sprintf(v, "v%d", (*counter)++);
    sprintf(n, "%d", (int)rnd(x, 21) - 10);
    key(x, 'z', z);
    switch (rnd(x, 48)) {
    case 0: add(s, 3, "SET", k, v); break;
    case 1: add(s, 4, "SET", k, v, "GET"); break;
    case 2: add(s, 4, "SET", k, v, rnd(x, 2) ? "NX" : "XX"); break;
    case 3:
        sprintf(t, "%lld", T0_MS + 3 * 3600 * 1000LL + (long long)rnd(x, 9999));
        add(s, 5, "SET", k, v, "PXAT", t);
        break;
    case 4: add(s, 3, "GETSET", k, v); break;
    case 5: add(s, 5, "MSET", k, v, k2, "w"); break;
    case 6: add(s, 5, "MSETNX", k, v, k2, "w"); break;
    case 7: add(s, 3, "APPEND", k, v); break;
    case 8: add(s, 2, rnd(x, 2) ? "INCR" : "DECR", k); break;
    case 9: add(s, 3, rnd(x, 2) ? "INCRBY" : "DECRBY", k, n); break;
    case 10: add(s, 3, "INCRBYFLOAT", k, "1.25"); break;
    case 11: add(s, 3, "SETNX", k, v); break;
    case 12: add(s, 6, "HSET", k, "f", v, rnd(x, 2) ? "g" : "f", n); break;
    case 13: add(s, 4, "HSETNX", k, rnd(x, 2) ? "f" : "g", v); break;
    case 14: add(s, 4, "HINCRBY", k, "n", n); break;
    case 15: add(s, 3, "HDEL", k, rnd(x, 2) ? "f" : "g"); break;
    case 16: add(s, 4, "SADD", k, v, rnd(x, 2) ? "a" : "b"); break;
    case 17: add(s, 3, "SREM", k, rnd(x, 2) ? "a" : "b"); break;
    case 18: add(s, 6, "ZADD", k, n, v, "1.5", rnd(x, 2) ? "a" : "b"); break;
    case 19: add(s, 4, "ZINCRBY", k, "2", rnd(x, 2) ? "a" : "b"); break;
    case 20: add(s, 3, "ZREM", k, rnd(x, 2) ? "a" : "b"); break;
    case 21: add(s, 3, "DEL", k, k2); break;
    case 22: add(s, 2, "UNLINK", k); break;
    case 23: add(s, 3, rnd(x, 2) ? "RENAME" : "RENAMENX", k, k2); break;
    case 24:                        /* past the cutoff: compared with it */
        sprintf(t, "%lld", T0_MS / 1000 + 3 * 3600 + (long long)rnd(x, 99));
        add(s, 3, "EXPIREAT", k, t);
        break;
    case 25:                        /* before the cutoff: absent after it */
        sprintf(t, "%lld", T0_MS + 900 * 1000LL + (long long)rnd(x, 999));
        add(s, 3, "PEXPIREAT", k, t);
        break;
    case 26:                        /* already past: a DEL */
        sprintf(t, "%lld", T0_MS / 1000 - 10);
        add(s, 3, "EXPIREAT", k, t);
        break;
    case 27: add(s, 2, "PERSIST", k); break;
    case 28: add(s, 2, "GET", k); break;
    case 29: add(s, 2, "HGETALL", k); break;
    case 30:
        sprintf(t, "%d", (int)rnd(x, 3));
        add(s, 2, "SELECT", t);
        break;
    case 31: add(s, 1, rnd(x, 4) ? "FLUSHDB" : "FLUSHALL"); break;
    case 32: add(s, 1, "BGREWRITEAOF"); break;
    case 33: randomStringOrHashWrite(x, s, k, v, n); break;
    case 34: add(s, 4, rnd(x, 2) ? "RPUSH" : "LPUSH", k, v, "a"); break;
    case 35: add(s, 3, rnd(x, 2) ? "LPOP" : "RPOP", k, rnd(x, 2) ? "2"
                                                               : "1"); break;
    case 36: add(s, 5, "LMOVE", k, k2, rnd(x, 2) ? "LEFT" : "RIGHT",
                 rnd(x, 2) ? "LEFT" : "RIGHT"); break;
    case 37: add(s, 4, "LSET", k, n, v); break;
    case 38: add(s, 5, "LINSERT", k, rnd(x, 2) ? "BEFORE" : "AFTER", "a",
                 v); break;
    case 39: add(s, 4, "LREM", k, n, "a"); break;
    case 40: add(s, 4, "LTRIM", k, "1", n); break;
    case 41: add(s, 5, "LMPOP", "2", k, k2, rnd(x, 2) ? "LEFT" : "RIGHT");
        break;
    case 42: {
        static const char *op[] = { "ZUNIONSTORE", "ZINTERSTORE",
                                    "ZDIFFSTORE" };
        add(s, 5, op[rnd(x, 3)], k, "2", z, k2);
        break;
    }
    case 43: add(s, 5, "ZRANGESTORE", k, z, "0", n); break;
    case 44: add(s, 3, rnd(x, 2) ? "ZPOPMIN" : "ZPOPMAX", z, "2"); break;
    case 45: add(s, 7, "ZMPOP", "2", k, z, rnd(x, 2) ? "MIN" : "MAX",
                 "COUNT", "2"); break;
    case 46: add(s, 4, rnd(x, 2) ? "ZREMRANGEBYSCORE" : "ZREMRANGEBYRANK",
                 z, "0", n); break;
    case 47: add(s, 4, "ZREMRANGEBYLEX", z, "-", "[b"); break;
    default: add(s, 3, "SET", k, v); break;
    }
}

/* A batch: one to six commands, sometimes a transaction. */
static int randomBatch(uint64_t *x, script *s, int *counter) {
    int from = s->n, multi = rnd(x, 5) == 0, k = 1 + (int)rnd(x, 6);
    if (s->n + k + 2 >= MAXCMDS) return 0;
    if (multi) add(s, 1, "MULTI");
    for (int i = 0; i < k; i++) {
        randomCommand(x, s, counter);
        /* Inside MULTI, BGREWRITEAOF and SELECT are fine, but keep the
         * transaction about data. */
        if (multi && !strcmp(s->cmds[s->n - 1].argv[0], "BGREWRITEAOF"))
            s->n--;
    }
    if (multi) add(s, 1, "EXEC");
    return s->n - from;
}

/* ---- The run: clients, a crash, a restart. ---- */

typedef struct run {
    const char *policy;
    int appendonly;
    int kind;                   /* GK_CRASH_* */
    int how;                    /* 0 at a time, 1 its beforeSleep, 2 after
                                   the next write of aof_buf */
    uint64_t seed;
    node n;
    script c[CLIENTS];
    gkTraceRecord *recs;
    size_t nrecs;
    gkRecoveryInfo info;
    gkRecoveryRow rows[GK_RECOVERY_ROWS_MAX];
    uint32_t nrows;
} run;

static void receive(run *r) {
    for (int i = 0; i < CLIENTS; i++) {
        script *s = &r->c[i];
        for (;;) {
            if (s->incap - s->inlen < 4096) {
                s->incap = s->incap * 2 + 8192;
                s->in = realloc(s->in, s->incap);
            }
            size_t got = gkConnRecv(r->n.w, s->conn, s->in + s->inlen,
                                    s->incap - s->inlen);
            if (!got) break;
            s->inlen += got;
        }
        size_t at = 0;
        int count = 0;
        while (at < s->inlen) {
            size_t k = respLen(s->in + at, s->inlen - at);
            if (!k) break;
            at += k;
            count++;
        }
        s->waiting -= count - s->replies;
        s->replies = count;
    }
}

static void sendBatch(run *r, script *s, int from) {
    char buf[1024];
    for (int i = from; i < s->n; i++) {
        size_t len = respEncode(s->cmds[i].argc, s->cmds[i].argv, buf);
        gkConnSend(r->n.w, s->conn, buf, len);
    }
    s->waiting += s->n - from;
}

/* Runs the clients until the crash, then restarts the node. */
static void load(run *r, uint64_t horizon) {
    uint64_t x = r->seed;
    char conf[96];
    snprintf(conf, sizeof(conf), "appendonly %s\nappendfsync %s\n",
             r->appendonly ? "yes" : "no", r->policy);
    nodeOpen(&r->n, r->seed, conf);
    gkWorld *w = r->n.w;
    static const char *disks[] = { "nvme", "ssd", "hdd" };
    gkDiskSetPreset(w, r->n.srv, disks[rnd(&x, 3)]);
    gkTraceEnable(w, (1u << GK_TR_CMD) | (1u << GK_TR_AOF) |
                     (1u << GK_TR_CRASH));
    CHECK_EQ_INT(gkServerRecoveryFollow(w, r->n.srv, 1), GK_OK);
    for (int i = 0; i < CLIENTS; i++) {
        script *s = &r->c[i];
        memset(s, 0, sizeof(*s));
        s->cmds = calloc(MAXCMDS, sizeof(cmd));
        gkConnOpen(w, r->n.srv, &s->conn);
        gkConnSetLink(w, s->conn, 20000 + 10000 * (uint64_t)i, 0);
    }
    uint64_t crash_at = 20 * MS + rnd(&x, horizon);
    if (r->how == 2) {
        crash_at = 20 * MS + rnd(&x, horizon / 2);
    } else {
        gkServerCrashAt(w, r->n.srv, crash_at, r->kind,
                        r->how ? GK_CRASH_AT_BEFORE_SLEEP : 0);
    }
    int armed = r->how != 2, counter = 0;
    while (gkServerIsUp(w, r->n.srv) == 1) {
        for (int i = 0; i < CLIENTS; i++) {
            script *s = &r->c[i];
            if (s->waiting || rnd(&x, 3) == 0) continue;
            int from = s->n;
            if (randomBatch(&x, s, &counter)) sendBatch(r, s, from);
        }
        gkWorldRunUntil(w, gkWorldNow(w) + rnd(&x, 3 * MS));
        receive(r);
        if (!armed && gkWorldNow(w) >= crash_at) {
            gkServerCrashAtEvent(w, r->n.srv, r->kind, GK_TR_AOF,
                                 GK_AOF_WRITE, -1, 0);
            armed = 1;
        }
        if (gkWorldNow(w) > 120 * SEC) gkServerCrash(w, r->n.srv, r->kind);
    }
    gkWorldRunUntil(w, gkWorldNow(w) + 100 * MS);
    receive(r);
    r->recs = malloc(sizeof(gkTraceRecord) * (1u << 18));
    r->nrecs = gkTraceRead(w, 0, r->recs, 1u << 18);
    CHECK(r->nrecs < (1u << 18));
    CHECK_EQ_INT(gkServerRestart(w, r->n.srv, NULL), GK_OK);
    CHECK_EQ_INT(gkServerRecoveryInfo(w, r->n.srv, &r->info), GK_OK);
    CHECK_EQ_INT(gkServerRecoveryRows(w, r->n.srv, 0, r->rows,
                                      GK_RECOVERY_ROWS_MAX, &r->nrows),
                 GK_OK);
    gkConnOpen(w, r->n.srv, &r->n.conn);
    gkConnSetLink(w, r->n.conn, 20000, 0);
}

static void freeRun(run *r) {
    for (int i = 0; i < CLIENTS; i++) {
        free(r->c[i].cmds);
        free(r->c[i].in);
    }
    free(r->recs);
    nodeClose(&r->n);
}

/* ---- Reading a key back, on any node. ---- */

/* Sends argv on conn and returns the reply bytes (in out). */
static const char *ask(gkWorld *w, int conn, int argc, const char argv[][64],
                       char *out, size_t cap) {
    char buf[1024];
    size_t len = respEncode(argc, argv, buf);
    return gktExchange(w, conn, buf, len, out, cap);
}

static int cmpStr(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The value of key in db as one comparable line ("" if absent or its
 * expire time is at or before cutoff): type, absolute expire time, then
 * the value (a set's members and a hash's pairs sorted; a sorted set in
 * its own order, scores included). */
static void readKey(gkWorld *w, int conn, int db, const char *key,
                    long long cutoff, char *out, size_t cap) {
    static char reply[1 << 16];
    static char items[512][256];
    char a[5][64];
    out[0] = '\0';
    strcpy(a[0], "SELECT");
    sprintf(a[1], "%d", db);
    ask(w, conn, 2, a, reply, sizeof(reply));
    /* TYPE, TIME and PTTL at one instant: the absolute expire time. */
    char req[512];
    int len = snprintf(req, sizeof(req), "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\n"
                       "TYPE\r\n$%zu\r\n%s\r\n*1\r\n$4\r\nTIME\r\n*2\r\n$4\r\n"
                       "PTTL\r\n$%zu\r\n%s\r\n*1\r\n$4\r\nEXEC\r\n",
                       strlen(key), key, strlen(key), key);
    gktExchange(w, conn, req, (size_t)len, reply, sizeof(reply));
    const char *p = reply;
    for (int i = 0; i < 4; i++) p += respLen(p, strlen(p));   /* OK, QUEUED */
    int n = respItems(p, strlen(p), items, 8);
    if (n != 4 || !strcmp(items[0], "none")) return;
    long long pttl = atoll(items[3]), exp = -1;
    if (pttl >= 0) exp = atoll(items[1]) * 1000 + atoll(items[2]) / 1000 + pttl;
    if (exp != -1 && exp <= cutoff) return;
    char type[16];
    snprintf(type, sizeof(type), "%.15s", items[0]);
    int argc = 2;
    strcpy(a[1], key);
    if (!strcmp(type, "string")) {
        strcpy(a[0], "GET");
    } else if (!strcmp(type, "hash")) {
        strcpy(a[0], "HGETALL");
    } else if (!strcmp(type, "set")) {
        strcpy(a[0], "SMEMBERS");
    } else if (!strcmp(type, "list")) {
        strcpy(a[0], "LRANGE");
        strcpy(a[2], "0");
        strcpy(a[3], "-1");
        argc = 4;
    } else {
        strcpy(a[0], "ZRANGE");
        strcpy(a[2], "0");
        strcpy(a[3], "-1");
        strcpy(a[4], "WITHSCORES");
        argc = 5;
    }
    ask(w, conn, argc, a, reply, sizeof(reply));
    size_t at = (size_t)snprintf(out, cap, "%s|%lld|", type, exp);
    if (!strcmp(type, "string")) {
        const char *body = strchr(reply, '\n') + 1;
        snprintf(out + at, cap - at, "%.*s", (int)atoll(reply + 1), body);
        return;
    }
    n = respItems(reply, strlen(reply), items, 512);
    if (!strcmp(type, "hash")) {
        for (int i = 0; i + 1 < n; i += 2) {       /* "f=v" pairs */
            char pair[256];
            snprintf(pair, sizeof(pair), "%.120s=%.120s", items[i],
                     items[i + 1]);
            strcpy(items[i / 2], pair);
        }
        n /= 2;
    }
    if (strcmp(type, "zset") && strcmp(type, "list"))   /* ordered ones */
        qsort(items, (size_t)n, sizeof(items[0]), cmpStr);
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s,", items[i]);
}

/* A malloc'd copy of a file of node srv's disk, *size its length. */
static char *readFile(gkWorld *w, int srv, const char *path, size_t *size) {
    if (gkDiskReadFile(w, srv, path, 0, NULL, 0, size) != GK_OK) {
        *size = 0;
        return calloc(1, 1);
    }
    char *buf = malloc(*size + 1);
    gkDiskReadFile(w, srv, path, 0, buf, *size, size);
    return buf;
}

/* ---- The brute force. ---- */

#define MAXKEYS 512

typedef struct keyState {
    int db;
    char key[32];
    int last_ack;               /* unit of the last acknowledged write that
                                   named it */
    long last_ev;               /* and that write's place among them */
    char acked[1024];           /* its value after that unit ("" absent) */
} keyState;

typedef struct brute {
    keyState keys[MAXKEYS];
    int nkeys;
    int units;                  /* writes the fresh node fed its AOF */
    uint64_t *digests;          /* its dataset's digest after each */
    long ev;                    /* acknowledged writes seen, in order */
    int flush_unit[16];         /* the last acknowledged flush of each db */
    long flush_ev[16];
} brute;

static keyState *keyOf(brute *b, int db, const char *key) {
    for (int i = 0; i < b->nkeys; i++)
        if (b->keys[i].db == db && !strcmp(b->keys[i].key, key))
            return &b->keys[i];
    keyState *k = &b->keys[b->nkeys++];
    memset(k, 0, sizeof(*k));
    k->db = db;
    snprintf(k->key, sizeof(k->key), "%s", key);
    return k;
}

/* A key's last acknowledged write is a flush of its db if one came after
 * every write naming it: the key is then absent as acknowledged. */
static int byFlush(const brute *b, const keyState *k) {
    return b->flush_ev[k->db] && b->flush_ev[k->db] > k->last_ev;
}

static int lastAck(const brute *b, const keyState *k) {
    return byFlush(b, k) ? b->flush_unit[k->db] : k->last_ack;
}

static const char *ackedValue(const brute *b, const keyState *k) {
    return byFlush(b, k) ? "" : k->acked;
}

/* What a written command does to keys, from the AOF bytes: names a key,
 * or empties its db (flush 1) or every db (flush 2). */
typedef struct named {
    int db;
    int flush;
    char key[32];
} named;

static int namedKeys(const char *bytes, size_t len, named *out, int max,
                     int *db) {
    static char items[64][256];
    int n = 0;
    size_t at = 0;
    while (at < len && n < max) {
        size_t k = respLen(bytes + at, len - at);
        if (!k) break;
        int argc = respItems(bytes + at, k, items, 64);
        at += k;
        const char *c = items[0];
        int first = 1, last = argc - 1, step = 1;
        if (!strcasecmp(c, "SELECT")) { *db = atoi(items[1]); continue; }
        if (!strcasecmp(c, "MULTI") || !strcasecmp(c, "EXEC")) continue;
        if (!strcasecmp(c, "FLUSHDB") || !strcasecmp(c, "FLUSHALL")) {
            out[n].db = *db;
            out[n].flush = !strcasecmp(c, "FLUSHALL") ? 2 : 1;
            out[n++].key[0] = '\0';
            continue;
        }
        if (!strcasecmp(c, "MSET") || !strcasecmp(c, "MSETNX")) step = 2;
        else if (!strcasecmp(c, "RENAME") || !strcasecmp(c, "RENAMENX") ||
                 !strcasecmp(c, "LMOVE") || !strcasecmp(c, "RPOPLPUSH"))
            last = 2;
        else if (strcasecmp(c, "DEL") && strcasecmp(c, "UNLINK")) last = 1;
        for (int i = first; i <= last && n < max; i += step) {
            out[n].db = *db;
            out[n].flush = 0;
            snprintf(out[n].key, sizeof(out[n].key), "%.31s", items[i]);
            n++;
        }
    }
    return n;
}

/* Every key the fresh node holds, in all dbs. */
static int heldKeys(gkWorld *w, int conn, named *out, int max) {
    static char reply[1 << 16];
    static char items[512][256];
    char a[2][64];
    int n = 0;
    for (int db = 0; db < 3; db++) {
        strcpy(a[0], "SELECT");
        sprintf(a[1], "%d", db);
        ask(w, conn, 2, a, reply, sizeof(reply));
        strcpy(a[0], "KEYS");
        strcpy(a[1], "*");
        ask(w, conn, 2, a, reply, sizeof(reply));
        int k = respItems(reply, strlen(reply), items, 512);
        for (int i = 0; i < k && n < max; i++) {
            out[n].db = db;
            snprintf(out[n].key, sizeof(out[n].key), "%.31s", items[i]);
            n++;
        }
    }
    return n;
}

/* Whether command i of client s was acknowledged: its reply arrived. */
static int acked(const script *s, int i) { return i < s->replies; }

/* Records an acknowledged write's effects, in order; the keys it names
 * get their value read once the write is done. */
static void ackedWrite(brute *b, const named *e, int n, gkWorld *w, int obs,
                       long long cutoff) {
    for (int t = 0; t < n; t++) {
        b->ev++;
        if (e[t].flush) {
            for (int d = 0; d < 16; d++) {
                if (e[t].flush == 1 && d != e[t].db) continue;
                b->flush_unit[d] = b->units;
                b->flush_ev[d] = b->ev;
            }
            continue;
        }
        keyState *k = keyOf(b, e[t].db, e[t].key);
        k->last_ack = b->units;
        k->last_ev = b->ev;
    }
    for (int i = 0; i < b->nkeys; i++) {
        keyState *k = &b->keys[i];
        if (k->last_ack == b->units && !byFlush(b, k))
            readKey(w, obs, k->db, k->key, cutoff, k->acked,
                    sizeof(k->acked));
    }
}

/* Runs the commands again, in the order the server ran them, on a fresh
 * node of another world, and records what brute needs. */
static void replay(run *r, brute *b, long long cutoff) {
    gkWorld *w;
    gkConfig cfg = gktConfig(r->seed + 1);
    int srv, obs, conns[CLIENTS], next[CLIENTS] = { 0 };
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAddConfig(w, "appendonly yes\nappendfsync always\n", &srv);
    for (int i = 0; i < CLIENTS; i++) gkConnOpen(w, srv, &conns[i]);
    gkConnOpen(w, srv, &obs);
    b->digests = calloc(r->nrecs + 1, sizeof(uint64_t));
    gkServerDatasetDigest(w, srv, cutoff, &b->digests[0]);
    static char reply[1 << 16];
    static named touched[4096];
    int db = -1;
    uint64_t fed = 0;
    size_t filepos = 0;
    for (size_t i = 0; i < r->nrecs; i++) {
        const gkTraceRecord *rec = &r->recs[i];
        if (rec->type != GK_TR_CMD || rec->node != r->n.srv) continue;
        int ci = -1;
        for (int k = 0; k < CLIENTS; k++)
            if ((uint32_t)r->c[k].conn == rec->b) ci = k;
        if (ci < 0) continue;
        script *s = &r->c[ci];
        int idx = next[ci]++;
        cmd *c = &s->cmds[idx];
        if (!strcmp(c->argv[0], "BGREWRITEAOF")) continue;
        ask(w, conns[ci], c->argc, c->argv, reply, sizeof(reply));
        gkAofInfo ai;
        gkAofGetInfo(w, srv, &ai);
        if (ai.fed == fed) continue;
        fed = ai.fed;
        /* A write: what its AOF bytes do. */
        char path[128];
        snprintf(path, sizeof(path), "appendonlydir/%s", ai.incr_file);
        size_t size;
        char *file = readFile(w, srv, path, &size);
        int nt = namedKeys(file + filepos, size - filepos, touched, 4096,
                           &db);
        filepos = size;
        free(file);
        b->units++;
        gkServerDatasetDigest(w, srv, cutoff, &b->digests[b->units]);
        if (acked(s, idx)) ackedWrite(b, touched, nt, w, obs, cutoff);
    }
    gkWorldRelease(w);
}

/* The outcome brute force gives key k, f the restart's value of it, p
 * the writes the restart holds (-1: none known). */
static int outcomeOf(const brute *b, const keyState *k, const char *f,
                     long long p) {
    if (!strcmp(ackedValue(b, k), f)) return GK_RECOVERY_KEPT;
    if (p >= 0 && lastAck(b, k) <= p) return GK_RECOVERY_NEWER;
    return f[0] ? GK_RECOVERY_OLDER : GK_RECOVERY_LOST;
}

static const gkRecoveryRow *rowOf(const run *r, int db, const char *key) {
    for (uint32_t i = 0; i < r->nrows; i++)
        if (r->rows[i].db == db && !strcmp(r->rows[i].key, key))
            return &r->rows[i];
    return NULL;
}

typedef struct tally {
    int runs, keys, lost, older, newer, kept, failures;
    int units, units_lost;
} tally;

/* One run's report against the brute-force answer. */
static void check(run *r, tally *t) {
    brute *b = calloc(1, sizeof(*b));
    long long cutoff = r->info.cutoff_ms;
    replay(r, b, cutoff);
    long long p = r->info.units_restored;
    int fail = 0;
    CHECK_EQ_INT(r->info.ready, 1);
    CHECK_EQ_INT(r->info.units, b->units);
    if (r->info.units != (uint64_t)b->units) fail = 1;
    /* The restart holds the first p writes: its dataset is the fresh
     * node's after them. With the AOF off it holds none. */
    CHECK(p >= 0 && p <= b->units);
    if (!r->appendonly) CHECK_EQ_INT(p, 0);
    CHECK_EQ_INT(r->info.units_beyond, 0);
    uint64_t got;
    gkServerDatasetDigest(r->n.w, r->n.srv, cutoff, &got);
    if (p >= 0 && p <= b->units && got != b->digests[p]) {
        fail = 1;
        CHECK(got == b->digests[p]);
        fprintf(stderr, "  seed %llu %s kind %d how %d: the restart is not "
                "the first %lld of %d writes\n", (unsigned long long)r->seed,
                r->policy, r->kind, r->how, p, b->units);
    }
    /* Every key the restart holds is compared too. */
    static named held[1024];
    int nheld = heldKeys(r->n.w, r->n.conn, held, 1024);
    for (int i = 0; i < nheld; i++) keyOf(b, held[i].db, held[i].key);
    int keys = 0;
    char found[1024];
    for (int i = 0; i < b->nkeys; i++) {
        keyState *k = &b->keys[i];
        readKey(r->n.w, r->n.conn, k->db, k->key, cutoff, found,
                sizeof(found));
        /* Absent on both sides: a key only if its last acknowledged
         * write named it (a flush forgets the keys of its db). */
        const char *want_acked = ackedValue(b, k);
        if (!want_acked[0] && !found[0] && (!k->last_ack || byFlush(b, k))) {
            CHECK(rowOf(r, k->db, k->key) == NULL);
            continue;
        }
        keys++;
        int want = outcomeOf(b, k, found, r->appendonly ? p : -1);
        const gkRecoveryRow *row = rowOf(r, k->db, k->key);
        CHECK(row != NULL);
        if (!row || row->outcome != want) {
            fail = 1;
            if (t->failures < 5)
                fprintf(stderr, "  seed %llu %s [%d] %s: report %d, brute "
                        "force %d (acked '%s' at write %d, found '%s', "
                        "p %lld)\n",
                        (unsigned long long)r->seed, r->policy, k->db, k->key,
                        row ? row->outcome : -1, want, want_acked,
                        lastAck(b, k),
                        found, p);
            continue;
        }
        CHECK_EQ_INT(row->acked_present, want_acked[0] != 0);
        CHECK_EQ_INT(row->found_present, found[0] != 0);
        t->kept += want == GK_RECOVERY_KEPT;
        t->newer += want == GK_RECOVERY_NEWER;
        t->lost += want == GK_RECOVERY_LOST;
        t->older += want == GK_RECOVERY_OLDER;
    }
    CHECK_EQ_INT(r->info.keys, keys);
    CHECK_EQ_INT(r->nrows, keys);
    if (fail) t->failures++;
    t->runs++;
    t->keys += keys;
    t->units += b->units;
    if (p >= 0) t->units_lost += b->units - (int)p;
    free(b->digests);
    free(b);
}

static void property(const char *policy, int appendonly, tally *t) {
    for (uint64_t s = 1; s <= SEEDS; s++) {
        run *r = calloc(1, sizeof(*r));
        r->policy = policy;
        r->appendonly = appendonly;
        r->seed = s * 7919 + (uint64_t)strlen(policy) * 31 +
                  (uint64_t)appendonly;
        uint64_t x = r->seed;
        r->kind = rnd(&x, 2) ? GK_CRASH_POWER : GK_CRASH_PROCESS;
        r->how = (int)rnd(&x, appendonly ? 3 : 2);
        load(r, 3 * SEC);
        check(r, t);
        if (!strcmp(policy, "always") && appendonly)
            CHECK_EQ_INT(r->info.lost + r->info.older, 0);
        freeRun(r);
        free(r);
    }
}

static void report(const char *what, const tally *t) {
    printf("  %s: %d runs, %d keys (%d kept, %d newer, %d lost, %d older), "
           "%d units, %d of them not restored\n", what, t->runs, t->keys,
           t->kept, t->newer, t->lost, t->older, t->units, t->units_lost);
}

static void testAlwaysLosesNothingAcknowledged(void) {
    tally t = { 0 };
    property("always", 1, &t);
    report("always", &t);
    CHECK_EQ_INT(t.failures, 0);
    CHECK_EQ_INT(t.lost + t.older, 0);
    CHECK(t.newer > 0);             /* crashes between write and reply */
}

static void testEverysecAgreesWithBruteForce(void) {
    tally t = { 0 };
    property("everysec", 1, &t);
    report("everysec", &t);
    CHECK_EQ_INT(t.failures, 0);
}

static void testNoAgreesWithBruteForce(void) {
    tally t = { 0 };
    property("no", 1, &t);
    report("no", &t);
    CHECK_EQ_INT(t.failures, 0);
    CHECK(t.lost + t.older > 0);    /* power losses do lose writes */
}

static void testAofOffLosesEverything(void) {
    tally t = { 0 };
    property("everysec", 0, &t);
    report("appendonly no", &t);
    CHECK_EQ_INT(t.failures, 0);
    /* Only the deletions are kept: the restart holds nothing. */
    CHECK_EQ_INT(t.newer + t.older, 0);
    CHECK(t.lost > 0);
}

int main(void) {
    RUN("under appendfsync always random scripts crashed anywhere lose no "
        "acknowledged write, and the report says so key by key",
        testAlwaysLosesNothingAcknowledged);
    RUN("under appendfsync everysec the report agrees with a brute-force "
        "replay of the acknowledged commands",
        testEverysecAgreesWithBruteForce);
    RUN("under appendfsync no the report agrees with a brute-force replay "
        "of the acknowledged commands", testNoAgreesWithBruteForce);
    RUN("with the AOF off a restart keeps nothing and the report says every "
        "key the acknowledged dataset held was lost",
        testAofOffLosesEverything);
    return gkTestReport();
}
