/* Tests of MEMORY STATS and MEMORY DOCTOR: STATS answers Redis 7.0's
 * fields in Redis's order and its figures add up the way INFO memory's
 * do; DOCTOR gives redis-server 7.0.15's texts from Redis's thresholds.
 * tests/server/memory.test.mjs holds both to a running redis-server. */
#include <stdlib.h>
#include "gktest.h"
#include "aofkit.h"

/* A reply's fields: names and values as text. A value that is itself a
 * map (db.N) is kept as its own fields, flattened "db.N/name". */
#define MAX_FIELDS 96
typedef struct fields {
    int n;
    char name[MAX_FIELDS][64];
    char value[MAX_FIELDS][64];
} fields;

/* Reads one RESP2 line at *p into out; advances *p past its CRLF. */
static void _line(const char **p, char *out, size_t cap) {
    if (cap == 0) return;
    const char *eol = strstr(*p, "\r\n");
    size_t len = eol ? (size_t)(eol - *p) : strlen(*p);
    if (len >= cap) len = cap - 1;
    memcpy(out, *p, len);
    out[len] = '\0';
    *p = eol ? eol + 2 : *p + strlen(*p);
}

/* Reads a bulk string or an integer at *p as text into out. */
static void _scalar(const char **p, char *out, size_t cap) {
    char head[64];
    _line(p, head, sizeof(head));
    if (head[0] == '$') {
        _line(p, out, cap);
    } else {
        snprintf(out, cap, "%s", head + 1);
    }
}

/* Parses the RESP2 reply of MEMORY STATS (an array of name, value
 * pairs, db.N's value an array of pairs itself); returns f->n. */
static int _parseStats(const char *r, fields *f) {
    char head[64], name[64];
    f->n = 0;
    if (r[0] != '*') return 0;
    _line(&r, head, sizeof(head));
    int pairs = atoi(head + 1) / 2;
    for (int i = 0; i < pairs && f->n < MAX_FIELDS; i++) {
        _scalar(&r, name, sizeof(name));
        if (r[0] == '*') {
            _line(&r, head, sizeof(head));
            snprintf(f->name[f->n], 64, "%s", name);
            snprintf(f->value[f->n], 64, "%s", head);
            f->n++;
            int inner = atoi(head + 1) / 2;
            for (int j = 0; j < inner && f->n < MAX_FIELDS; j++) {
                char sub[64];
                _scalar(&r, sub, sizeof(sub));
                snprintf(f->name[f->n], 64, "%.15s/%.47s", name, sub);
                _scalar(&r, f->value[f->n], 64);
                f->n++;
            }
        } else {
            snprintf(f->name[f->n], 64, "%s", name);
            _scalar(&r, f->value[f->n], 64);
            f->n++;
        }
    }
    return f->n;
}

static const char *_get(const fields *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->name[i], name)) return f->value[i];
    return NULL;
}

static long long _num(const fields *f, const char *name) {
    const char *v = _get(f, name);
    return v ? atoll(v) : -1;
}

static double _dbl(const fields *f, const char *name) {
    const char *v = _get(f, name);
    return v ? atof(v) : -1;
}

/* An integer field of INFO memory, or -1. */
static long long _infoMemory(node *n, const char *field) {
    char want[128];
    nodeCmd(n, "INFO memory");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

/* Redis 7.0.15's names, in its order, db.N's maps where they stand. */
static const char *const TOP_HEAD[] = {
    "peak.allocated", "total.allocated", "startup.allocated",
    "replication.backlog", "clients.slaves", "clients.normal",
    "cluster.links", "aof.buffer", "lua.caches", "functions.caches", NULL };
static const char *const TOP_TAIL[] = {
    "overhead.total", "keys.count", "keys.bytes-per-key", "dataset.bytes",
    "dataset.percentage", "peak.percentage", "allocator.allocated",
    "allocator.active", "allocator.resident",
    "allocator-fragmentation.ratio", "allocator-fragmentation.bytes",
    "allocator-rss.ratio", "allocator-rss.bytes", "rss-overhead.ratio",
    "rss-overhead.bytes", "fragmentation", "fragmentation.bytes", NULL };

/* Whether f's name at i is want; reports the first that is not. */
static int _nameAt(const fields *f, int i, const char *want) {
    if (i < f->n && !strcmp(f->name[i], want)) return 1;
    CHECK_EQ_STR(i < f->n ? f->name[i] : "(none)", want);
    return 0;
}

/* Checks f's names against Redis's, with a db.N map for each of the
 * dbs listed (ending with -1). */
static void _checkShape(const fields *f, const int *dbs) {
    static const char *const sub[] = { "overhead.hashtable.main",
        "overhead.hashtable.expires", "overhead.hashtable.slot-to-keys" };
    char want[64];
    int i = 0;
    for (int k = 0; TOP_HEAD[k]; k++, i++)
        if (!_nameAt(f, i, TOP_HEAD[k])) return;
    for (int d = 0; dbs[d] >= 0; d++) {
        snprintf(want, sizeof(want), "db.%d", dbs[d]);
        if (!_nameAt(f, i, want)) return;
        CHECK_EQ_STR(f->value[i], "*6");
        i++;
        for (int k = 0; k < 3; k++, i++) {
            snprintf(want, sizeof(want), "db.%d/%s", dbs[d], sub[k]);
            if (!_nameAt(f, i, want)) return;
        }
    }
    for (int k = 0; TOP_TAIL[k]; k++, i++)
        if (!_nameAt(f, i, TOP_TAIL[k])) return;
    CHECK_EQ_INT(f->n, i);
}

/* An empty server answers the 27 fields and no db.N; a db gets its map
 * once it holds a key, and loses it when emptied, whatever its table
 * still holds. */
static void testStatsHasRedisFieldsInRedisOrder(void) {
    node n;
    fields f;
    nodeOpen(&n, 1, NULL);
    const char *r = nodeCmd(&n, "MEMORY STATS");
    CHECK_EQ_INT(strncmp(r, "*54\r\n", 5), 0);
    _parseStats(r, &f);
    _checkShape(&f, (const int[]){ -1 });
    nodeCmd(&n, "SET a 1");
    nodeCmd(&n, "SELECT 3");
    nodeCmd(&n, "SET b 2");
    nodeCmd(&n, "SELECT 11");
    nodeCmd(&n, "SET c 3");
    nodeCmd(&n, "DEL c");
    r = nodeCmd(&n, "MEMORY STATS");
    CHECK_EQ_INT(strncmp(r, "*58\r\n", 5), 0);
    _parseStats(r, &f);
    _checkShape(&f, (const int[]){ 0, 3, -1 });
    nodeClose(&n);
}

/* The figures are INFO memory's, split as Redis's getMemoryOverheadData
 * splits them: the overheads add up to overhead.total, the rest of
 * used_memory is the dataset, and a db's main table costs an entry and
 * an object per key and a pointer per bucket. */
static void testStatsFiguresAddUpAsInfoMemory(void) {
    node n;
    fields f;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "DEBUG POPULATE 1000");
    for (int i = 0; i < 10; i++) nodeCmdf(&n, "EXPIRE key:%d 1000", i);
    nodeCmd(&n, "SCRIPT LOAD \"return 1\"");
    nodeRun(&n, 200 * MS);      /* the cron ends the tables' rehashing */
    long long startup = _infoMemory(&n, "used_memory_startup");
    /* The command line counts in the client's memory: apart from it,
     * INFO's overhead is MEMORY STATS's. */
    long long overhead = _infoMemory(&n, "used_memory_overhead") -
                         _infoMemory(&n, "mem_clients_normal");
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    CHECK_EQ_INT(_num(&f, "startup.allocated"), startup);
    CHECK_EQ_INT(_num(&f, "overhead.total") - _num(&f, "clients.normal"),
                 overhead);
    long long sum = 0;
    for (int k = 2; k < 10; k++) sum += _num(&f, TOP_HEAD[k]);
    long long main = _num(&f, "db.0/overhead.hashtable.main");
    long long exp = _num(&f, "db.0/overhead.hashtable.expires");
    CHECK_EQ_INT(main, 1000 * (24 + 16) + 1024 * 8);
    CHECK_EQ_INT(exp, 10 * 24 + 16 * 8);
    CHECK_EQ_INT(_num(&f, "db.0/overhead.hashtable.slot-to-keys"), 0);
    CHECK_EQ_INT(_num(&f, "overhead.total"), sum + main + exp);
    CHECK(_num(&f, "lua.caches") > 0);
    long long total = _num(&f, "total.allocated");
    CHECK_EQ_INT(_num(&f, "dataset.bytes"),
                 total - _num(&f, "overhead.total"));
    CHECK_EQ_INT(_num(&f, "keys.count"), 1000);
    CHECK_EQ_INT(_num(&f, "keys.bytes-per-key"), (total - startup) / 1000);
    CHECK(_num(&f, "peak.allocated") >= total);
    /* As Redis computes them, in single precision. */
    float dperc = (float)_num(&f, "dataset.bytes") * 100 /
                  (float)(total - startup);
    float pperc = (float)total * 100 / (float)_num(&f, "peak.allocated");
    CHECK(_dbl(&f, "dataset.percentage") == (double)dperc);
    CHECK(_dbl(&f, "peak.percentage") == (double)pperc);
    nodeClose(&n);
}

/* The engine keeps no figure of the process's resident memory nor of an
 * allocator's pages, so the allocator fields are what Redis built with
 * libc malloc reports (allocated = used_memory, active = resident = the
 * process's RSS less the Lua heap), the resident set taken as used_memory
 * plus the Lua heap: no fragmentation at all, and the Lua heap as the
 * RSS overhead. */
static void testStatsAllocatorFieldsAreThoseOfLibcMalloc(void) {
    node n;
    fields f;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "SET k v");
    long long lua = _infoMemory(&n, "used_memory_lua");
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    long long total = _num(&f, "total.allocated");
    CHECK(lua > 0);
    CHECK_EQ_INT(_num(&f, "allocator.allocated"), total);
    CHECK_EQ_INT(_num(&f, "allocator.active"), total);
    CHECK_EQ_INT(_num(&f, "allocator.resident"), total);
    CHECK_EQ_STR(_get(&f, "allocator-fragmentation.ratio"), "1");
    CHECK_EQ_INT(_num(&f, "allocator-fragmentation.bytes"), 0);
    CHECK_EQ_STR(_get(&f, "allocator-rss.ratio"), "1");
    CHECK_EQ_INT(_num(&f, "allocator-rss.bytes"), 0);
    float extra = (float)(total + lua) / (float)total;
    CHECK(_dbl(&f, "rss-overhead.ratio") == (double)extra);
    CHECK_EQ_INT(_num(&f, "rss-overhead.bytes"), lua);
    CHECK(_dbl(&f, "fragmentation") == (double)extra);
    CHECK_EQ_INT(_num(&f, "fragmentation.bytes"), lua);
    nodeClose(&n);
}

/* FUNCTION LOAD's code as one RESP command. */
static const char *_functionLoad(node *n, const char *code) {
    static char buf[1024];
    int len = snprintf(buf, sizeof(buf), "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD"
                       "\r\n$%zu\r\n%s\r\n", strlen(code), code);
    return nodeRaw(n, buf, (size_t)len);
}

/* functions.caches counts the Lua engine's registration, each library
 * and each function as Redis 7.0 does: redis-server 7.0.15 answers 200,
 * then 736 with these two functions (one described), then 960. They are
 * overhead, and INFO's used_memory_overhead counts them too. */
static void testStatsCountsTheFunctionsAsRedisDoes(void) {
    node n;
    fields f;
    nodeOpen(&n, 1, NULL);
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    CHECK_EQ_INT(_num(&f, "functions.caches"), 200);
    CHECK_EQ_STR(_functionLoad(&n, "#!lua name=mylib\n"
        "redis.register_function('myfunc', function(keys, args) return 1 "
        "end)\nredis.register_function{function_name='other', callback="
        "function() return 2 end, description='a description of it', "
        "flags={'no-writes'}}"), "$5\r\nmylib\r\n");
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    CHECK_EQ_INT(_num(&f, "functions.caches"), 736);
    _functionLoad(&n, "#!lua name=lib2\n"
        "redis.register_function('f3', function(keys, args) return 1 end)");
    long long overhead = _infoMemory(&n, "used_memory_overhead") -
                         _infoMemory(&n, "mem_clients_normal");
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    CHECK_EQ_INT(_num(&f, "functions.caches"), 960);
    CHECK_EQ_INT(_num(&f, "overhead.total") - _num(&f, "clients.normal"),
                 overhead);
    nodeCmd(&n, "FUNCTION FLUSH");
    _parseStats(nodeCmd(&n, "MEMORY STATS"), &f);
    CHECK_EQ_INT(_num(&f, "functions.caches"), 200);
    nodeClose(&n);
}

/* In RESP3 the reply is a map, db.N's value a map, the percentages
 * doubles. */
static void testStatsIsAMapInResp3(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "HELLO 3");
    nodeCmd(&n, "SET k v");
    const char *r = nodeCmd(&n, "MEMORY STATS");
    CHECK_EQ_INT(strncmp(r, "%28\r\n", 5), 0);
    CHECK(strstr(r, "$4\r\ndb.0\r\n%3\r\n") != NULL);
    CHECK(strstr(r, "$18\r\ndataset.percentage\r\n,") != NULL);
    nodeClose(&n);
}

#define DOCTOR_EMPTY "Hi Sam, this instance is empty or is using very " \
    "little memory, my issues detector can't be used in these conditions. " \
    "Please, leave for your mission on Earth and fill it with some data. " \
    "The new Sam and I will be back to our programming as soon as I " \
    "finished rebooting.\n"
#define DOCTOR_FINE "Hi Sam, I can't find any memory issue in your " \
    "instance. I can only account for what occurs on this base.\n"
#define DOCTOR_HEAD "Sam, I detected a few issues in this Redis instance " \
    "memory implants:\n\n"
#define DOCTOR_TAIL "I'm here to keep you safe, Sam. I want to help you.\n"
#define DOCTOR_PEAK " * Peak memory: In the past this instance used more " \
    "than 150% the memory that is currently using. The allocator is " \
    "normally not able to release memory after a peak, so you can expect " \
    "to see a big fragmentation ratio, however this is actually harmless " \
    "and is only due to the memory peak, and if the Redis instance " \
    "Resident Set Size (RSS) is currently bigger than expected, the memory " \
    "will be used as soon as you fill the Redis instance with more data. " \
    "If the memory peak was only occasional and you want to try to reclaim " \
    "memory, please try the MEMORY PURGE command, otherwise the only other " \
    "option is to shutdown and restart the instance.\n\n"
#define DOCTOR_CLIENTS " * Big client buffers: The clients output buffers " \
    "in this instance are greater than 200K per client (on average). This " \
    "may result from different causes, like Pub/Sub clients subscribed to " \
    "channels bot not receiving data fast enough, so that data piles on " \
    "the Redis instance output buffer, or clients sending commands with " \
    "large replies or very large sequences of commands in the same " \
    "pipeline. Please use the CLIENT LIST command in order to investigate " \
    "the issue if it causes problems in your instance, or to understand " \
    "better why certain clients are using a big amount of memory.\n\n"
#define DOCTOR_SCRIPTS " * Many scripts: There seem to be many cached " \
    "scripts in this instance (more than 1000). This may be because " \
    "scripts are generated and `EVAL`ed, instead of being parameterized " \
    "(with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT " \
    "FLUSH` is called periodically, the scripts' caches may end up " \
    "consuming most of your memory.\n\n"

/* The bulk string of a DOCTOR report. */
static const char *_bulk(const char *text) {
    static char buf[8192];
    snprintf(buf, sizeof(buf), "$%zu\r\n%s\r\n", strlen(text), text);
    return buf;
}

/* Under 5 MB the instance counts as empty; with data and nothing wrong
 * the report says so. */
static void testDoctorEmptyThenFine(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"), _bulk(DOCTOR_EMPTY));
    nodeCmd(&n, "DEBUG POPULATE 20000 key 64");
    CHECK(_infoMemory(&n, "used_memory") < 5 << 20);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"), _bulk(DOCTOR_EMPTY));
    nodeCmd(&n, "DEBUG POPULATE 60000 key 64");
    CHECK(_infoMemory(&n, "used_memory") >= 5 << 20);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"), _bulk(DOCTOR_FINE));
    nodeCmd(&n, "HELLO 3");
    char want[1024];
    snprintf(want, sizeof(want), "=%zu\r\ntxt:%s\r\n",
             strlen(DOCTOR_FINE) + 4, DOCTOR_FINE);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"), want);
    nodeClose(&n);
}

/* A peak over 150% of what is used now is reported. */
static void testDoctorReportsABigPeak(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "DEBUG POPULATE 200000 big 64");
    nodeCmd(&n, "FLUSHALL");
    nodeCmd(&n, "DEBUG POPULATE 60000 key 64");
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"),
                 _bulk(DOCTOR_HEAD DOCTOR_PEAK DOCTOR_TAIL));
    nodeClose(&n);
}

/* More than 1,000 cached scripts are reported; so is an average of over
 * 200 KB of buffers per client, here a 1 MB argument half received. */
static void testDoctorReportsScriptsAndClientBuffers(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "DEBUG POPULATE 60000 key 64");
    for (int i = 0; i < 1000; i++) nodeCmdf(&n, "SCRIPT LOAD \"return %d\"", i);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"), _bulk(DOCTOR_FINE));
    nodeCmd(&n, "SCRIPT LOAD \"return 1000\"");
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"),
                 _bulk(DOCTOR_HEAD DOCTOR_SCRIPTS DOCTOR_TAIL));
    nodeCmd(&n, "SCRIPT FLUSH");
    int other = connOpen(&n);
    static char big[600000];
    int len = snprintf(big, sizeof(big),
                       "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1000000\r\n");
    memset(big + len, 'a', sizeof(big) - (size_t)len);
    gkConnSend(n.w, other, big, sizeof(big));
    gkWorldRunUntilIdle(n.w);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR"),
                 _bulk(DOCTOR_HEAD DOCTOR_CLIENTS DOCTOR_TAIL));
    nodeClose(&n);
}

/* The subcommands' arity is checked before they run. */
static void testStatsAndDoctorTakeNoArgument(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY STATS x"),
                 "-ERR wrong number of arguments for 'memory|stats' "
                 "command\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "MEMORY DOCTOR x"),
                 "-ERR wrong number of arguments for 'memory|doctor' "
                 "command\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("MEMORY STATS answers Redis 7.0's fields in its order, a db.N map "
        "for each db holding keys", testStatsHasRedisFieldsInRedisOrder);
    RUN("MEMORY STATS's figures add up as INFO memory's do",
        testStatsFiguresAddUpAsInfoMemory);
    RUN("MEMORY STATS's allocator fields are those of a Redis on libc "
        "malloc", testStatsAllocatorFieldsAreThoseOfLibcMalloc);
    RUN("MEMORY STATS counts the function libraries as Redis does",
        testStatsCountsTheFunctionsAsRedisDoes);
    RUN("MEMORY STATS is a map in RESP3", testStatsIsAMapInResp3);
    RUN("MEMORY DOCTOR calls an instance under 5 MB empty and one with "
        "data fine", testDoctorEmptyThenFine);
    RUN("MEMORY DOCTOR reports a peak over 150% of the memory used",
        testDoctorReportsABigPeak);
    RUN("MEMORY DOCTOR reports over 1,000 cached scripts and over 200 KB "
        "of buffers per client", testDoctorReportsScriptsAndClientBuffers);
    RUN("MEMORY STATS and DOCTOR take no argument",
        testStatsAndDoctorTakeNoArgument);
    return gkTestReport();
}
