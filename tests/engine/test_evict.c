/* Tests of maxmemory's evictions: each policy evicts the keys Redis 7.0
 * would pick (the least recently used, the nearest to expire, only keys
 * with a TTL for the volatile ones), noeviction refuses writes instead,
 * CONFIG SET maxmemory evicts at once, and every eviction is counted,
 * announced as an "evicted" event and written to the AOF as a DEL. */
#include "gktest.h"
#include "aofkit.h"

/* An integer field of INFO's section, or -1. */
static long long infoField(node *n, const char *section, const char *field) {
    char want[128];
    nodeCmdf(n, "INFO %s", section);
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(n->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

static long long usedMemory(node *n) {
    return infoField(n, "memory", "used_memory");
}

static int exists(node *n, const char *key) {
    return strcmp(nodeCmdf(n, "EXISTS %s", key), ":1\r\n") == 0;
}

/* Calls each command the test will use once, with no effect: a
 * command's first call makes its latency histogram, 24 KB of used_memory
 * (as in Redis), which would otherwise be evicted for. */
static void _warmUp(node *n) {
    nodeCmd(n, "SET warm 1");
    nodeCmd(n, "EXISTS warm");
    nodeCmd(n, "DEL warm");
    nodeCmd(n, "PING");
    nodeCmd(n, "DEBUG SLEEP 0");
    nodeCmd(n, "CONFIG SET maxmemory 0");
    nodeCmd(n, "INFO memory");
}

/* 100 keys written, two seconds pass, 100 more written: lowering
 * maxmemory so that about 30 keys must go evicts old ones only. */
static void testAllkeysLruEvictsTheLeastRecentlyUsed(void) {
    node n;
    nodeOpen(&n, 7, "maxmemory-policy allkeys-lru\n");
    _warmUp(&n);
    long long used0 = usedMemory(&n);
    for (int i = 0; i < 100; i++) nodeCmdf(&n, "SET old:%d %0200d", i, i);
    nodeCmd(&n, "DEBUG SLEEP 2");
    for (int i = 0; i < 100; i++) nodeCmdf(&n, "SET new:%d %0200d", i, i);
    long long used = usedMemory(&n);
    long long per_key = (used - used0) / 200;
    nodeCmdf(&n, "CONFIG SET maxmemory %lld", used - 30 * per_key);
    nodeCmd(&n, "PING");
    CHECK(usedMemory(&n) <= used - 30 * per_key);
    /* (Each command here may evict one more, as its reply takes room.) */
    int old_left = 0, new_left = 0;
    for (int i = 0; i < 100; i++) {
        char k[32];
        snprintf(k, sizeof(k), "old:%d", i);
        old_left += exists(&n, k);
        snprintf(k, sizeof(k), "new:%d", i);
        new_left += exists(&n, k);
    }
    long long evicted = infoField(&n, "stats", "evicted_keys");
    CHECK(evicted >= 25);
    CHECK_EQ_INT(new_left, 100);
    CHECK_EQ_INT(old_left, 100 - (int)evicted);
    /* Writes go on: each SET evicts what it needs. */
    for (int i = 0; i < 20; i++)
        CHECK_EQ_STR(nodeCmdf(&n, "SET more:%d %0200d", i, i), "+OK\r\n");
    CHECK(infoField(&n, "stats", "evicted_keys") > evicted);
    nodeClose(&n);
}

/* volatile-ttl evicts the keys nearest to expiring, never a key without
 * a TTL; with none left to evict, a write gets -OOM. noeviction refuses
 * writes (reads still run). */
static void testVolatileTtlAndNoeviction(void) {
    node n;
    nodeOpen(&n, 7, "maxmemory-policy volatile-ttl\n");
    _warmUp(&n);
    for (int i = 0; i < 50; i++) nodeCmdf(&n, "SET keep:%d %0200d", i, i);
    for (int i = 0; i < 20; i++)
        nodeCmdf(&n, "SET ttl:%d %0200d EX %d", i, i, 1000 + i * 100);
    long long used = usedMemory(&n);
    nodeCmdf(&n, "CONFIG SET maxmemory %lld", used - 2000);
    nodeCmd(&n, "PING");
    /* Sampled, as in Redis: the nearest expiries go, not strictly in
     * order. (Each command here may evict one more, as its reply takes
     * room.) */
    int gone_near = 0, gone_far = 0;
    for (int i = 0; i < 20; i++) {
        char k[32];
        snprintf(k, sizeof(k), "ttl:%d", i);
        if (!exists(&n, k)) *(i < 10 ? &gone_near : &gone_far) += 1;
    }
    long long evicted = infoField(&n, "stats", "evicted_keys");
    CHECK(evicted > 0 && evicted < 20);
    CHECK_EQ_INT(gone_near + gone_far, evicted);
    CHECK(gone_near > gone_far);
    for (int i = 0; i < 50; i++) {
        char k[32];
        snprintf(k, sizeof(k), "keep:%d", i);
        CHECK(exists(&n, k));
    }
    /* Nothing volatile enough left to free: refused. */
    nodeCmdf(&n, "CONFIG SET maxmemory %lld", usedMemory(&n) / 4);
    CHECK_EQ_STR(nodeCmd(&n, "SET x y"),
                 "-OOM command not allowed when used memory > "
                 "'maxmemory'.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS ttl:0"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "DBSIZE"), ":50\r\n");
    nodeCmd(&n, "CONFIG SET maxmemory-policy noeviction");
    CHECK_EQ_STR(nodeCmd(&n, "SET x y"),
                 "-OOM command not allowed when used memory > "
                 "'maxmemory'.\r\n");
    CHECK(strncmp(nodeCmd(&n, "GET keep:0"), "$200\r\n", 6) == 0);
    nodeClose(&n);
}

/* An eviction is announced to subscribers and propagated as a DEL. */
static void testEvictionsAreAnnouncedAndPropagated(void) {
    node n;
    nodeOpen(&n, 7, "appendonly yes\nappendfsync always\n"
                    "notify-keyspace-events Ee\n"
                    "maxmemory-policy allkeys-random\n");
    int sub = connOpen(&n);
    connSend(&n, sub, "SUBSCRIBE __keyevent@0__:evicted");
    connRead(&n, sub);
    nodeCmd(&n, "SET victim value");
    nodeCmd(&n, "CONFIG SET maxmemory 1");
    nodeCmd(&n, "CONFIG SET maxmemory 0");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS victim"), ":0\r\n");
    CHECK(strstr(connRead(&n, sub), "__keyevent@0__:evicted\r\n$6\r\nvictim")
          != NULL);
    char *aof = nodeFile(&n, "appendonlydir/appendonly.aof.1.incr.aof", 0,
                         NULL);
    CHECK(aof != NULL);
    if (aof)
        CHECK(strstr(aof, "*2\r\n$3\r\nDEL\r\n$6\r\nvictim\r\n") != NULL);
    free(aof);
    CHECK_EQ_INT(infoField(&n, "stats", "evicted_keys"), 1);
    nodeCmd(&n, "CONFIG RESETSTAT");
    CHECK_EQ_INT(infoField(&n, "stats", "evicted_keys"), 0);
    nodeClose(&n);
}

int main(void) {
    RUN("allkeys-lru evicts the keys unused the longest",
        testAllkeysLruEvictsTheLeastRecentlyUsed);
    RUN("volatile-ttl evicts the nearest expiries, noeviction refuses "
        "writes", testVolatileTtlAndNoeviction);
    RUN("an eviction is announced and written to the AOF as a DEL",
        testEvictionsAreAnnouncedAndPropagated);
    return gkTestReport();
}
