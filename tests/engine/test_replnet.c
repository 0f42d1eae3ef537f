/* Replication between the simulated world's own nodes: every node is on
 * one machine, 127.0.0.1, listening on its port (the `port` directive,
 * 6379 by default); REPLICAOF connects one node to another through the
 * world's network. A port is one process's at a time, a connection to a
 * port nobody listens on is refused, an address of another machine never
 * answers, and a name that resolves to nothing fails at once, each with
 * redis-server 7.0.15's log line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"
#include "labjson.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define MAXN 8

typedef struct net {
    gkWorld *w;
    int n;
    int node[MAXN], conn[MAXN];
    char out[1 << 16];
} net;

static void netOpen(net *t, uint64_t seed) {
    memset(t, 0, sizeof(*t));
    gkConfig cfg = gktConfig(seed);
    gkWorldCreate(&t->w, &cfg, NULL, NULL);
}

/* Adds a node started with conf; returns its index in t, -1 if refused. */
static int netAdd(net *t, const char *conf) {
    int id;
    if (gkServerAddConfig(t->w, conf, &id) != GK_OK) return -1;
    t->node[t->n] = id;
    gkConnOpen(t->w, id, &t->conn[t->n]);
    return t->n++;
}

static const char *cmd(net *t, int i, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    gkConnSend(t->w, t->conn[i], line, strlen(line));
    return gktExchange(t->w, t->conn[i], "\r\n", 2, t->out, sizeof(t->out));
}

static void run(net *t, uint64_t ns) {
    gkWorldRunUntil(t->w, gkWorldNow(t->w) + ns);
}

/* A field of INFO replication on node i, as a string in buf. */
static const char *info(net *t, int i, const char *field, char *buf,
                        size_t cap) {
    char want[128];
    cmd(t, i, "INFO replication");
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(t->out, want);
    buf[0] = '\0';
    if (!p) return buf;
    p += strlen(want);
    size_t len = strcspn(p, "\r");
    if (len >= cap) len = cap - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

static long long infoInt(net *t, int i, const char *field) {
    char buf[128];
    return atoll(info(t, i, field, buf, sizeof(buf)));
}

static int logCount(net *t, int i, const char *needle) {
    static char buf[1 << 18];
    uint64_t last;
    size_t len = gkServerLogRead(t->w, t->node[i], 0, buf, sizeof(buf) - 1,
                                 &last);
    buf[len] = '\0';
    int count = 0;
    for (char *p = buf; (p = strstr(p, needle)) != NULL; p++) count++;
    return count;
}

static void testPorts(void) {
    net t;
    netOpen(&t, 1);
    int a = netAdd(&t, NULL);
    CHECK_EQ_INT(a, 0);
    CHECK_EQ_STR(cmd(&t, a, "CONFIG GET port"),
                 "*2\r\n$4\r\nport\r\n$4\r\n6379\r\n");
    /* a second process told the same port cannot bind it; one told no
     * port takes the next free one */
    int id;
    CHECK_EQ_INT(gkServerAddConfig(t.w, "port 6379\n", &id), GK_EINVAL);
    CHECK_EQ_STR(gkWorldLastError(t.w), "Could not create server TCP "
                 "listening socket *:6379: bind: Address already in use");
    int b = netAdd(&t, NULL);
    CHECK_EQ_INT(b, 1);
    CHECK(strstr(cmd(&t, b, "CONFIG GET port"), "6380") != NULL);
    CHECK_EQ_STR(cmd(&t, b, "CONFIG SET port 6379"),
                 "-ERR CONFIG SET failed (possibly related to argument "
                 "'port') - Unable to listen on this port. Check server "
                 "logs.\r\n");
    CHECK_EQ_INT(logCount(&t, b, "# Warning: Could not create server TCP "
                          "listening socket *:6379: bind: Address already "
                          "in use"), 1);
    CHECK_EQ_INT(logCount(&t, b, "Failed applying new configuration. "
                          "Possibly related to new port setting. Restoring "
                          "previous settings."), 1);
    CHECK(strstr(cmd(&t, b, "CONFIG GET port"), "6380") != NULL);
    /* a free port is taken, and the old one is free again */
    CHECK_EQ_STR(cmd(&t, b, "CONFIG SET port 7000"), "+OK\r\n");
    CHECK(netAdd(&t, "port 6380\n") == 2);
    CHECK(strstr(cmd(&t, netAdd(&t, NULL), "CONFIG GET port"), "6381"));
    CHECK_EQ_STR(cmd(&t, b, "CONFIG SET port 99999"),
                 "-ERR CONFIG SET failed (possibly related to argument "
                 "'port') - argument must be between 0 and 65535 "
                 "inclusive\r\n");
    gkWorldRelease(t.w);
}

/* A master, a replica of it and a replica of the replica. */
static void testChain(void) {
    net t;
    netOpen(&t, 2);
    int m = netAdd(&t, NULL), r1 = netAdd(&t, "port 6380\n"),
        r2 = netAdd(&t, "port 6381\n");
    cmd(&t, m, "SET before 1");
    CHECK_EQ_STR(cmd(&t, r1, "REPLICAOF 127.0.0.1 6379"), "+OK\r\n");
    CHECK_EQ_STR(cmd(&t, r2, "REPLICAOF localhost 6380"), "+OK\r\n");
    run(&t, 15 * SEC);
    cmd(&t, m, "SET after 2");
    run(&t, 10 * MS);
    CHECK_EQ_STR(cmd(&t, r1, "MGET before after"),
                 "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
    CHECK_EQ_STR(cmd(&t, r2, "MGET before after"),
                 "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
    char buf[128], top[128];
    CHECK_EQ_STR(info(&t, r1, "master_link_status", buf, sizeof(buf)),
                 "up");
    CHECK_EQ_STR(info(&t, r2, "master_link_status", buf, sizeof(buf)),
                 "up");
    CHECK_EQ_STR(info(&t, r2, "master_port", buf, sizeof(buf)), "6380");
    /* the sub-replica has the top master's history */
    info(&t, m, "master_replid", top, sizeof(top));
    CHECK_EQ_STR(info(&t, r2, "master_replid", buf, sizeof(buf)), top);
    long long off = infoInt(&t, m, "master_repl_offset");
    CHECK(off > 0);
    CHECK_EQ_INT(infoInt(&t, r1, "master_repl_offset"), off);
    CHECK_EQ_INT(infoInt(&t, r2, "master_repl_offset"), off);
    CHECK_EQ_INT(infoInt(&t, m, "connected_slaves"), 1);
    /* the replica's listening port, and its offset once it has acked */
    run(&t, 1100 * MS);
    char want[128];
    snprintf(want, sizeof(want), "ip=127.0.0.1,port=6380,state=online,"
             "offset=%lld,", off);
    CHECK(strstr(info(&t, m, "slave0", buf, sizeof(buf)), want) != NULL);
    CHECK_EQ_STR(cmd(&t, r1, "SET x 1"), "-READONLY You can't write "
                 "against a read only replica.\r\n");
    CHECK_EQ_INT(logCount(&t, r1, "Connecting to MASTER 127.0.0.1:6379"), 1);
    CHECK_EQ_INT(logCount(&t, r1, "MASTER <-> REPLICA sync: Finished with "
                          "success"), 1);
    gkWorldRelease(t.w);
}

/* One master and four replicas: one write reaches every one. */
static void testStar(void) {
    net t;
    netOpen(&t, 3);
    int m = netAdd(&t, "port 5011\n");
    for (int i = 0; i < 4; i++) {
        char conf[32];
        snprintf(conf, sizeof(conf), "port %d\n", 5012 + i);
        int r = netAdd(&t, conf);
        cmd(&t, r, "REPLICAOF 127.0.0.1 5011");
    }
    run(&t, 7 * SEC);
    CHECK_EQ_INT(infoInt(&t, m, "connected_slaves"), 4);
    cmd(&t, m, "SET key1 111111");
    run(&t, 10 * MS);
    for (int i = 1; i <= 4; i++)
        CHECK_EQ_STR(cmd(&t, i, "GET key1"), "$6\r\n111111\r\n");
    gkWorldRelease(t.w);
}

/* No one on the port: refused, and tried again every second until a
 * server starts there. */
static void testRefusedThenListening(void) {
    net t;
    netOpen(&t, 4);
    int r = netAdd(&t, "port 6380\n");
    cmd(&t, r, "REPLICAOF 127.0.0.1 7000");
    run(&t, 2500 * MS);
    CHECK(logCount(&t, r, "# Error condition on socket for SYNC: "
                   "Connection refused") >= 2);
    char buf[64];
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "down");
    int m = netAdd(&t, "port 7000\n");
    cmd(&t, m, "SET k v");
    run(&t, 7 * SEC);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "up");
    CHECK_EQ_STR(cmd(&t, r, "GET k"), "$1\r\nv\r\n");
    gkWorldRelease(t.w);
}

/* A name nobody knows, and an address of a machine that never answers. */
static void testUnknownAndUnanswered(void) {
    net t;
    netOpen(&t, 5);
    int a = netAdd(&t, NULL), b = netAdd(&t, "port 6380\n");
    cmd(&t, a, "REPLICAOF no-such-host.invalid 6379");
    cmd(&t, b, "CONFIG SET repl-timeout 5");
    cmd(&t, b, "REPLICAOF 10.1.2.3 6379");
    run(&t, 3 * SEC);
    CHECK(logCount(&t, a, "# Unable to connect to MASTER: Resource "
                   "temporarily unavailable") >= 2);
    CHECK_EQ_INT(logCount(&t, b, "Timeout connecting to the MASTER"), 0);
    run(&t, 4 * SEC);
    CHECK_EQ_INT(logCount(&t, b, "Timeout connecting to the MASTER..."), 1);
    char buf[64];
    CHECK_EQ_STR(info(&t, b, "master_link_status", buf, sizeof(buf)),
                 "down");
    gkWorldRelease(t.w);
}

/* A master without persistence that restarts comes back empty, and its
 * replica, resynchronized, is emptied too. */
static void testMasterRestartsEmpty(void) {
    net t;
    netOpen(&t, 6);
    int m = netAdd(&t, "save \"\"\n"), r = netAdd(&t, "port 6380\n");
    cmd(&t, m, "SET k v");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 7 * SEC);
    CHECK_EQ_STR(cmd(&t, r, "GET k"), "$1\r\nv\r\n");
    CHECK_EQ_INT(gkServerCrash(t.w, t.node[m], GK_CRASH_PROCESS), GK_OK);
    run(&t, 100 * MS);
    CHECK_EQ_INT(logCount(&t, r, "Connection with master lost."), 1);
    CHECK_EQ_STR(cmd(&t, r, "GET k"), "$1\r\nv\r\n");
    CHECK_EQ_INT(gkServerRestart(t.w, t.node[m], NULL), GK_OK);
    gkConnOpen(t.w, t.node[m], &t.conn[m]);
    run(&t, 7 * SEC);
    char buf[64];
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "up");
    CHECK_EQ_STR(cmd(&t, r, "GET k"), "$-1\r\n");
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":0\r\n");
    gkWorldRelease(t.w);
}

/* A full sync as 7.0 makes it: diskless by default, the fork delayed
 * repl-diskless-sync-delay seconds for more replicas to join, the replica
 * online once it acknowledged the RDB; and to disk without
 * repl-diskless-sync, the file sent once the child wrote it. The writes
 * made while it waited follow the RDB. */
static void testFullSync(void) {
    net t;
    netOpen(&t, 8);
    int m = netAdd(&t, NULL), r = netAdd(&t, NULL), d = netAdd(&t, NULL);
    cmd(&t, m, "SET k1 v1");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 2 * SEC);
    char buf[256];
    CHECK(strstr(info(&t, m, "slave0", buf, sizeof(buf)),
                 "state=wait_bgsave") != NULL);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "down");
    CHECK_EQ_STR(cmd(&t, m, "ROLE"), "*3\r\n$6\r\nmaster\r\n:14\r\n"
                 "*0\r\n");
    cmd(&t, m, "SET k2 v2");                 /* while it waits */
    run(&t, 5 * SEC);
    CHECK_EQ_STR(cmd(&t, r, "MGET k1 k2"),
                 "*2\r\n$2\r\nv1\r\n$2\r\nv2\r\n");
    CHECK(strstr(info(&t, m, "slave0", buf, sizeof(buf)), "state=online"));
    CHECK_EQ_INT(logCount(&t, m, "Delay next BGSAVE for diskless SYNC"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Starting BGSAVE for SYNC with target: "
                          "replicas sockets"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Streamed RDB transfer with replica "
                          "127.0.0.1:6380 succeeded (socket). Waiting for "
                          "REPLCONF ACK from slave to enable streaming"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Synchronization with replica "
                          "127.0.0.1:6380 succeeded"), 1);
    CHECK_EQ_INT(logCount(&t, r, "MASTER <-> REPLICA sync: receiving "
                          "streamed RDB from master with EOF to disk"), 1);
    /* to disk: the file is written, then sent; no waiting */
    cmd(&t, m, "CONFIG SET repl-diskless-sync no");
    cmd(&t, d, "REPLICAOF 127.0.0.1 6379");
    run(&t, 500 * MS);
    CHECK_EQ_STR(cmd(&t, d, "MGET k1 k2"),
                 "*2\r\n$2\r\nv1\r\n$2\r\nv2\r\n");
    CHECK_EQ_INT(logCount(&t, m, "Starting BGSAVE for SYNC with target: "
                          "disk"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Background saving started by pid"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Synchronization with replica "
                          "127.0.0.1:6381 succeeded"), 1);
    CHECK_EQ_INT(logCount(&t, d, "MASTER <-> REPLICA sync: receiving "), 1);
    /* an offset that is no number */
    CHECK_EQ_STR(cmd(&t, m, "PSYNC ? abc"), "-ERR value is not an integer "
                 "or out of range\r\n");
    CHECK_EQ_INT(logCount(&t, m, "asks for synchronization but with a "
                          "wrong offset"), 1);
    cmd(&t, m, "INFO stats");
    CHECK(strstr(t.out, "\r\nsync_full:2\r\n") != NULL);
    CHECK(strstr(t.out, "\r\nsync_partial_err:2\r\n") != NULL);
    gkWorldRelease(t.w);
}

/* A replica that comes while a disk BGSAVE for another runs shares it: it
 * copies the other's buffer (the writes since the fork) and gets the same
 * file -- one fork for both. */
static void testAttachToRunningBgsave(void) {
    net t;
    netOpen(&t, 12);
    int m = netAdd(&t, "repl-diskless-sync no\nrdb-key-save-delay 2000\n");
    int r1 = netAdd(&t, NULL), r2 = netAdd(&t, NULL);
    cmd(&t, m, "DEBUG POPULATE 200");           /* 0.4 s to save */
    cmd(&t, r1, "REPLICAOF 127.0.0.1 6379");
    run(&t, 100 * MS);
    CHECK_EQ_INT(logCount(&t, m, "Starting BGSAVE for SYNC with target: "
                          "disk"), 1);
    cmd(&t, m, "SET during fork");              /* in r1's buffer */
    cmd(&t, r2, "REPLICAOF 127.0.0.1 6379");
    run(&t, 50 * MS);
    CHECK_EQ_INT(logCount(&t, m, "Waiting for end of BGSAVE for SYNC"), 1);
    cmd(&t, m, "SET after attach");
    run(&t, 2 * SEC);
    for (int i = 1; i <= 2; i++) {
        int r = i == 1 ? r1 : r2;
        CHECK_EQ_STR(cmd(&t, r, "MGET during after key:199"),
                     "*3\r\n$4\r\nfork\r\n$6\r\nattach\r\n$9\r\nvalue:199\r\n");
    }
    cmd(&t, m, "INFO stats");
    CHECK(strstr(t.out, "\r\ntotal_forks:1\r\n") != NULL);
    CHECK(strstr(t.out, "\r\nsync_full:2\r\n") != NULL);
    CHECK_EQ_INT(logCount(&t, m, "Background saving started by pid"), 1);
    gkWorldRelease(t.w);
}

/* Seed 000's failures. A master whose disk is full cannot write the RDB
 * of a disk sync: every try fails and the replica, dropped, asks again at
 * once -- the loop stops when diskless sync makes no file. A replica
 * whose disk is full drops a diskless transfer, and the master kills the
 * child that had no one left to send to. A directory the master cannot
 * write fails the same way as a full disk. */
static void testSyncFailures(void) {
    net t;
    netOpen(&t, 9);
    int m = netAdd(&t, "save \"\"\nrepl-diskless-sync no\n"),
        r = netAdd(&t, NULL);
    cmd(&t, m, "DEBUG POPULATE 1000");
    CHECK_EQ_INT(gkDiskSetFree(t.w, t.node[m], 0), GK_OK);
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 1 * SEC);
    int fails = logCount(&t, m, "# SYNC failed. BGSAVE child returned an "
                         "error");
    CHECK(fails >= 5);
    CHECK(logCount(&t, m, "# Write error saving DB on disk(rdbSaveRio): "
                   "No space left on device") >= fails);
    CHECK(logCount(&t, m, "# Background saving error") >= fails);
    CHECK(logCount(&t, r, "# I/O error reading bulk count from MASTER: "
                   "Success") >= fails);
    CHECK(logCount(&t, r, "* Reconnecting to MASTER 127.0.0.1:6379 after "
                   "failure") >= fails);
    char buf[64];
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "rdb_last_bgsave_status:err") != NULL);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "down");
    /* the fix: no file to write */
    cmd(&t, m, "CONFIG SET repl-diskless-sync yes");
    run(&t, 7 * SEC);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)), "up");
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":1000\r\n");
    gkWorldRelease(t.w);

    /* the replica's disk is full */
    netOpen(&t, 10);
    m = netAdd(&t, NULL);
    r = netAdd(&t, NULL);
    cmd(&t, m, "DEBUG POPULATE 1000");
    CHECK_EQ_INT(gkDiskSetFree(t.w, t.node[r], 1000), GK_OK);
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 6 * SEC);
    CHECK(logCount(&t, r, "# Write error or short write writing to the DB "
                   "dump file needed for MASTER <-> REPLICA "
                   "synchronization: short write") >= 1);
    CHECK(logCount(&t, m, "# Diskless rdb transfer, last replica dropped, "
                   "killing fork child.") >= 1);
    CHECK(logCount(&t, m, "# Background transfer terminated by signal 10")
          >= 1);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "down");
    gkWorldRelease(t.w);

    /* a directory the master cannot write */
    netOpen(&t, 11);
    m = netAdd(&t, "repl-diskless-sync no\n");
    r = netAdd(&t, NULL);
    CHECK_EQ_INT(gkDiskSetReadOnly(t.w, t.node[m], "", 1), GK_OK);
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 50 * MS);
    CHECK(logCount(&t, m, "# Failed opening the temp RDB file temp-") >= 1);
    CHECK(logCount(&t, m, ".rdb (in server root dir .) for saving: "
                   "Permission denied") >= 1);
    CHECK(logCount(&t, m, "# SYNC failed. BGSAVE child returned an error")
          >= 1);
    gkWorldRelease(t.w);
}

/* A field of INFO <section> on node i, as a number (-1 if absent). */
static long long infoField(net *t, int i, const char *section,
                           const char *field) {
    char want[128];
    cmd(t, i, "INFO %s", section);
    snprintf(want, sizeof(want), "\r\n%s:", field);
    const char *p = strstr(t->out, want);
    return p ? atoll(p + strlen(want)) : -1;
}

static int machineSet(net *t, int i, const char *name, const char *value) {
    return gkMachineSet(t->w, t->node[i], name, value);
}

#define FORK_ERR "# Can't save in background: fork: Cannot allocate memory"

/* Seed 000's third cause. The kernel weighs a fork as Linux does: under
 * vm.overcommit_memory=0 (the kernels of the seed's time) it refuses a
 * child larger than the free memory plus swap its parent leaves; under 2
 * the parent and the child must fit in vm.overcommit_ratio percent of the
 * RAM plus the swap; under 1 it never refuses. A refused BGSAVE replies a
 * bare -ERR and logs 7.0's line; a refused BGREWRITEAOF says so too. */
static void testForkRefused(void) {
    net t;
    netOpen(&t, 12);
    int m = netAdd(&t, "save \"\"\n");
    char buf[64];
    const char *defaults[][2] = { { "mem-total", "17179869184" },
                                  { "swap-total", "0" },
                                  { "vm.overcommit_memory", "0" },
                                  { "vm.overcommit_ratio", "50" } };
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(gkMachineGet(t.w, t.node[m], defaults[i][0], buf,
                                  sizeof(buf)), GK_OK);
        CHECK_EQ_STR(buf, defaults[i][1]);
    }
    /* bad values are refused with what is wanted */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "3"), GK_EINVAL);
    CHECK_EQ_STR(gkWorldLastError(t.w), "vm.overcommit_memory must be 0 "
                 "(heuristic), 1 (always) or 2 (never)");
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", ""), GK_EINVAL);
    CHECK_EQ_INT(machineSet(&t, m, "mem-total", "0"), GK_EINVAL);
    CHECK_EQ_INT(machineSet(&t, m, "mem-total", "lots"), GK_EINVAL);
    CHECK_EQ_INT(machineSet(&t, m, "swap-total", "-1"), GK_EINVAL);
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_ratio", "5x"), GK_EINVAL);
    CHECK_EQ_INT(machineSet(&t, m, "vm.swappiness", "1"), GK_EINVAL);
    CHECK_EQ_INT(gkMachineSet(t.w, 99, "mem-total", "1gb"), GK_ENOTFOUND);
    CHECK_EQ_INT(gkMachineGet(t.w, t.node[m], "mem-total", buf,
                              sizeof(buf)), GK_OK);
    CHECK_EQ_STR(buf, "17179869184");
    /* the process warned at startup, as redis-server does under 0 */
    CHECK_EQ_INT(logCount(&t, m, "# WARNING Memory overcommit must be "
                          "enabled! Without it, a background save or "
                          "replication may fail under low memory "
                          "condition. Being disabled, it can can also cause "
                          "failures without low memory condition, see "
                          "https://github.com/jemalloc/jemalloc/issues/1328. "
                          "To fix this issue add 'vm.overcommit_memory = 1' "
                          "to /etc/sysctl.conf and then reboot or run the "
                          "command 'sysctl vm.overcommit_memory=1' for this "
                          "to take effect."), 1);
    /* some 14 MB on a machine of 16 MB and 4 MB of swap: 6 MB are left */
    CHECK_EQ_INT(machineSet(&t, m, "mem-total", "16mb"), GK_OK);
    CHECK_EQ_INT(machineSet(&t, m, "swap-total", "4mb"), GK_OK);
    cmd(&t, m, "DEBUG POPULATE 40000 key 250");
    long long used = infoField(&t, m, "memory", "used_memory");
    CHECK(used > 12 * 1024 * 1024 && used < 16 * 1024 * 1024);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "-ERR\r\n");
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 1);
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "\r\nrdb_last_bgsave_status:err\r\n") != NULL);
    CHECK(strstr(t.out, "\r\nrdb_bgsave_in_progress:0\r\n") != NULL);
    CHECK(strstr(t.out, "\r\nrdb_saves:1\r\n") != NULL);
    CHECK_EQ_INT(infoField(&t, m, "stats", "total_forks"), 0);
    CHECK_EQ_STR(cmd(&t, m, "BGREWRITEAOF"), "-ERR Can't execute an AOF "
                 "background rewriting. Please check the server logs for "
                 "more information.\r\n");
    CHECK_EQ_INT(logCount(&t, m, "# Can't rewrite append only file in "
                          "background: fork: Cannot allocate memory"), 1);
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "\r\naof_last_bgrewrite_status:err\r\n") != NULL);
    /* always: the seed's fix */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "1"), GK_OK);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "+Background saving started\r\n");
    run(&t, 2 * SEC);
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "\r\nrdb_last_bgsave_status:ok\r\n") != NULL);
    CHECK_EQ_INT(infoField(&t, m, "stats", "total_forks"), 1);
    /* never: 8 MB + 4 MB may be committed, parent and child need 28 */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "2"), GK_OK);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "-ERR\r\n");
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 2);
    /* 32 MB + 4 MB may */
    CHECK_EQ_INT(machineSet(&t, m, "mem-total", "64mb"), GK_OK);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "+Background saving started\r\n");
    run(&t, 2 * SEC);
    /* 20% of it, 12.8 MB + 4 MB, may not */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_ratio", "20"), GK_OK);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "-ERR\r\n");
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 3);
    /* the heuristic on 64 MB leaves 54 MB: enough */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "0"), GK_OK);
    CHECK_EQ_STR(cmd(&t, m, "BGSAVE"), "+Background saving started\r\n");
    run(&t, 2 * SEC);
    CHECK_EQ_INT(infoField(&t, m, "stats", "total_forks"), 3);
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 3);
    /* the machine outlives its process; a process started under 1 does
     * not warn */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "1"), GK_OK);
    CHECK_EQ_INT(gkServerCrash(t.w, t.node[m], GK_CRASH_PROCESS), GK_OK);
    CHECK_EQ_INT(gkServerRestart(t.w, t.node[m], NULL), GK_OK);
    CHECK_EQ_INT(logCount(&t, m, "Ready to accept connections"), 2);
    CHECK_EQ_INT(logCount(&t, m, "# WARNING Memory overcommit must be "
                          "enabled!"), 1);
    CHECK_EQ_INT(gkMachineGet(t.w, t.node[m], "mem-total", buf,
                              sizeof(buf)), GK_OK);
    CHECK_EQ_STR(buf, "67108864");
    gkWorldRelease(t.w);
}

/* A replica added to a master that cannot fork: the full sync's BGSAVE
 * fails, the replica is told "-ERR BGSAVE failed, replication can't
 * continue" and dropped, and asks again at once, with 7.0's lines on both
 * sides; a diskless sync forks too, and fails the same way once its delay
 * is over. vm.overcommit_memory=1 ends both. */
static void testForkFailsReplica(void) {
    net t;
    netOpen(&t, 13);
    int m = netAdd(&t, "save \"\"\nrepl-diskless-sync no\n"),
        r = netAdd(&t, NULL);
    machineSet(&t, m, "mem-total", "16mb");
    machineSet(&t, m, "swap-total", "4mb");
    cmd(&t, m, "DEBUG POPULATE 40000 key 250");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 1 * SEC);
    int fails = logCount(&t, m, FORK_ERR);
    CHECK(fails >= 50);
    CHECK(logCount(&t, m, "# BGSAVE for replication failed") >= fails - 1);
    CHECK(logCount(&t, m, "* Starting BGSAVE for SYNC with target: disk")
          >= fails - 1);
    /* the replica left the list before its link closed: no "lost" */
    CHECK_EQ_INT(logCount(&t, m, "Connection with replica"), 0);
    CHECK(infoField(&t, m, "stats", "sync_full") > 1000);
    CHECK(logCount(&t, r, "* Master does not support PSYNC or is in error "
                   "state (reply: -ERR BGSAVE failed, replication can't "
                   "continue)") >= 50);
    CHECK(logCount(&t, r, "* Retrying with SYNC...") >= 50);
    CHECK(logCount(&t, r, "# I/O error reading bulk count from MASTER: "
                   "Success") >= 50);
    CHECK(logCount(&t, r, "* Reconnecting to MASTER 127.0.0.1:6379 after "
                   "failure") >= 50);
    char buf[64];
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)),
                 "down");
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "\r\nrdb_last_bgsave_status:err\r\n") != NULL);
    CHECK_EQ_INT(infoField(&t, m, "stats", "total_forks"), 0);
    /* the fix */
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "1"), GK_OK);
    run(&t, 2 * SEC);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)), "up");
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":40000\r\n");
    gkWorldRelease(t.w);

    /* diskless, 7.0's default: the replica had +FULLRESYNC before the
     * fork, and reads the error where the RDB should be */
    netOpen(&t, 14);
    m = netAdd(&t, "save \"\"\n");
    r = netAdd(&t, NULL);
    machineSet(&t, m, "mem-total", "16mb");
    machineSet(&t, m, "swap-total", "4mb");
    cmd(&t, m, "DEBUG POPULATE 40000 key 250");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 7 * SEC);
    CHECK_EQ_INT(logCount(&t, m, "* Starting BGSAVE for SYNC with target: "
                          "replicas sockets"), 1);
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 1);
    CHECK_EQ_INT(logCount(&t, m, "# BGSAVE for replication failed"), 1);
    CHECK_EQ_INT(logCount(&t, r, "* Full resync from master: "), 1);
    CHECK_EQ_INT(logCount(&t, r, "# MASTER aborted replication with an "
                          "error: ERR BGSAVE failed, replication can't "
                          "continue"), 1);
    CHECK_EQ_INT(logCount(&t, r, "* Reconnecting to MASTER 127.0.0.1:6379 "
                          "after failure"), 1);
    CHECK_EQ_INT(logCount(&t, m, "Delay next BGSAVE for diskless SYNC"), 2);
    /* a diskless BGSAVE that cannot fork leaves the status as it was */
    cmd(&t, m, "INFO persistence");
    CHECK(strstr(t.out, "\r\nrdb_last_bgsave_status:ok\r\n") != NULL);
    CHECK_EQ_INT(machineSet(&t, m, "vm.overcommit_memory", "1"), GK_OK);
    run(&t, 6 * SEC);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)), "up");
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":40000\r\n");
    CHECK_EQ_INT(logCount(&t, m, FORK_ERR), 1);
    gkWorldRelease(t.w);
}

/* A replica of the host's own making: a connection that does the
 * handshake with listening port `port` and `sync` ("PSYNC ? -1" or the
 * old "SYNC"), then reads what comes and never acknowledges -- as a
 * replica stopped by SIGSTOP, or one too old to send REPLCONF ACK. */
static int silentReplica(net *t, int m, int port, const char *sync) {
    int conn;
    char line[128], reply[64];
    gkConnOpen(t->w, t->node[m], &conn);
    /* (P)SYNC is refused while a reply is pending: one at a time */
    int n = snprintf(line, sizeof(line), "REPLCONF listening-port %d\r\n",
                     port);
    CHECK_EQ_STR(gktExchange(t->w, conn, line, (size_t)n, reply,
                             sizeof(reply)), "+OK\r\n");
    n = snprintf(line, sizeof(line), "%s\r\n", sync);
    gkConnSend(t->w, conn, line, (size_t)n);
    return conn;
}

/* Runs for ns, the silent replicas' bytes read and dropped. */
static void runDraining(net *t, uint64_t ns, const int *conns, int n) {
    static char sink[1 << 16];
    uint64_t end = gkWorldNow(t->w) + ns;
    while (gkWorldNow(t->w) < end) {
        uint64_t step = end - gkWorldNow(t->w);
        gkWorldRunUntil(t->w, gkWorldNow(t->w) +
                              (step < 100 * MS ? step : 100 * MS));
        for (int i = 0; i < n; i++)
            while (gkConnRecv(t->w, conns[i], sink, sizeof(sink)) > 0) {}
    }
}

/* 7.0's replicationCron lets go of an online replica that has not sent
 * REPLCONF ACK for more than repl-timeout seconds (whole seconds: between
 * 6 and 7 after its last with repl-timeout 5), logging it as the real
 * server did with its replica stopped by SIGSTOP. A replica that ACKs
 * every second stays, and so does one that came with the old SYNC,
 * which never ACKs. */
static void testReplicaTimeout(void) {
    net t;
    netOpen(&t, 15);
    int m = netAdd(&t, "save \"\"\nrepl-timeout 5\n"
                       "repl-diskless-sync no\n"),
        r = netAdd(&t, NULL);
    cmd(&t, m, "SET k v");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    int quiet[2];
    quiet[0] = silentReplica(&t, m, 7777, "PSYNC ? -1");
    quiet[1] = silentReplica(&t, m, 7778, "SYNC");
    /* until all three are online */
    char buf[512];
    uint64_t online = 0;
    for (int i = 0; i < 500 && !online; i++) {
        runDraining(&t, 10 * MS, quiet, 2);
        cmd(&t, m, "INFO replication");
        if (strstr(t.out, "port=7777,state=online") &&
            strstr(t.out, "port=7778,state=online") &&
            strstr(t.out, "port=6380,state=online"))
            online = gkWorldNow(t.w);
    }
    CHECK(online > 0);
    CHECK_EQ_INT(infoField(&t, m, "replication", "connected_slaves"), 3);
    runDraining(&t, 4900 * MS, quiet, 2);
    CHECK_EQ_INT(logCount(&t, m, "Disconnecting timedout replica"), 0);
    CHECK_EQ_INT(infoField(&t, m, "replication", "connected_slaves"), 3);
    runDraining(&t, 2100 * MS, quiet, 2);
    CHECK_EQ_INT(logCount(&t, m, "# Disconnecting timedout replica "
                          "(streaming sync): 127.0.0.1:7777"), 1);
    CHECK_EQ_INT(logCount(&t, m, "# Connection with replica 127.0.0.1:7777 "
                          "lost."), 1);
    CHECK_EQ_INT(gkConnIsOpen(t.w, quiet[0]), 0);
    /* the others stay, however long */
    runDraining(&t, 20 * SEC, quiet, 2);
    CHECK_EQ_INT(logCount(&t, m, "Disconnecting timedout replica"), 1);
    CHECK_EQ_INT(infoField(&t, m, "replication", "connected_slaves"), 2);
    CHECK(strstr(info(&t, m, "slave0", buf, sizeof(buf)), "port=6380") ||
          strstr(info(&t, m, "slave1", buf, sizeof(buf)), "port=6380"));
    CHECK_EQ_INT(gkConnIsOpen(t.w, quiet[1]), 1);
    CHECK_EQ_STR(info(&t, r, "master_link_status", buf, sizeof(buf)), "up");
    gkWorldRelease(t.w);
}

/* The link breaks (the master drops its replica) while writes go on:
 * the replica asks to continue from where it was, and the master sends
 * what its backlog kept since; with writes past the backlog's size it
 * cannot, and the replica gets a full copy. */
static void testPartialResync(void) {
    net t;
    netOpen(&t, 7);
    int m = netAdd(&t, "repl-backlog-size 16kb\n"),
        r = netAdd(&t, "port 6380\n");
    cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
    run(&t, 7 * SEC);
    cmd(&t, m, "SET a 1");
    run(&t, 10 * MS);
    long long before = infoInt(&t, m, "master_repl_offset");
    /* the kill and two writes reach the master together, before the
     * replica can connect again */
    const char *batch = "CLIENT KILL TYPE replica\r\nSET b 2\r\n"
                        "SET c 3\r\n";
    gktExchange(t.w, t.conn[m], batch, strlen(batch), t.out,
                sizeof(t.out));
    CHECK_EQ_STR(t.out, ":1\r\n+OK\r\n+OK\r\n");
    long long after = infoInt(&t, m, "master_repl_offset");
    run(&t, 2 * SEC);
    CHECK_EQ_STR(cmd(&t, r, "MGET a b c"),
                 "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
    char want[160];
    snprintf(want, sizeof(want), "Partial resynchronization request from "
             "127.0.0.1:6380 accepted. Sending %lld bytes of backlog "
             "starting from offset %lld.", after - before, before + 1);
    CHECK_EQ_INT(logCount(&t, m, want), 1);
    CHECK_EQ_INT(logCount(&t, r, "Successful partial resynchronization "
                          "with master."), 1);
    CHECK_EQ_INT(logCount(&t, m, "Starting BGSAVE for SYNC"), 1);
    CHECK_EQ_INT(infoInt(&t, r, "master_repl_offset"), after);
    CHECK_EQ_INT(infoInt(&t, m, "repl_backlog_histlen"), after);
    /* 40 KB of writes while the link is down: past the 16 KB backlog */
    static char big[64 * 1024];
    int n = snprintf(big, sizeof(big), "CLIENT KILL TYPE replica\r\n");
    for (int i = 0; i < 40; i++)
        n += snprintf(big + n, sizeof(big) - (size_t)n, "SET big:%d %01000d"
                      "\r\n", i, i);
    gktExchange(t.w, t.conn[m], big, (size_t)n, t.out, sizeof(t.out));
    run(&t, 7 * SEC);
    CHECK_EQ_INT(logCount(&t, m, "Unable to partial resync with replica "
                          "127.0.0.1:6380 for lack of backlog (Replica "
                          "request was: "), 1);
    CHECK_EQ_INT(logCount(&t, m, "Starting BGSAVE for SYNC"), 2);
    CHECK_EQ_INT(infoInt(&t, m, "repl_backlog_histlen"), 16384);
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":43\r\n");
    CHECK_EQ_INT(infoInt(&t, r, "master_repl_offset"),
                 infoInt(&t, m, "master_repl_offset"));
    gkWorldRelease(t.w);
}

/* A replica restarted after a full sync finds in its dump.rdb where the
 * master's stream stood (repl-id, repl-offset) and continues from there
 * with PSYNC; once the master's backlog no longer holds that offset, it
 * gets the whole dataset again. */
static void testRestartedReplica(void) {
    net t;
    netOpen(&t, 12);
    int m = netAdd(&t, "save \"\"\nrepl-backlog-size 16kb\n"),
        r = netAdd(&t, "port 6380\nreplicaof 127.0.0.1 6379\n");
    cmd(&t, m, "SET a 1");
    run(&t, 7 * SEC);
    CHECK_EQ_STR(cmd(&t, r, "GET a"), "$1\r\n1\r\n");
    CHECK_EQ_INT(logCount(&t, r, "Partial resynchronization not possible "
                          "(no cached master)"), 1);
    /* the replica dies; the master takes writes meanwhile */
    CHECK_EQ_INT(gkServerCrash(t.w, t.node[r], GK_CRASH_PROCESS), GK_OK);
    cmd(&t, m, "SET b 2");
    run(&t, 100 * MS);
    CHECK_EQ_INT(gkServerRestart(t.w, t.node[r], NULL), GK_OK);
    gkConnOpen(t.w, t.node[r], &t.conn[r]);
    run(&t, 1 * SEC);
    CHECK_EQ_STR(cmd(&t, r, "MGET a b"),
                 "*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
    CHECK_EQ_INT(logCount(&t, m, "Partial resynchronization request from "
                          "127.0.0.1:6380 accepted."), 1);
    CHECK_EQ_INT(infoInt(&t, r, "master_repl_offset"),
                 infoInt(&t, m, "master_repl_offset"));
    /* and keeps a backlog again, for replicas of its own */
    CHECK_EQ_INT(infoInt(&t, r, "repl_backlog_active"), 1);
    /* again, with more written while it is down than the backlog holds */
    CHECK_EQ_INT(gkServerCrash(t.w, t.node[r], GK_CRASH_PROCESS), GK_OK);
    for (int i = 0; i < 40; i++) cmd(&t, m, "SET big:%d %01000d", i, i);
    CHECK_EQ_INT(gkServerRestart(t.w, t.node[r], NULL), GK_OK);
    gkConnOpen(t.w, t.node[r], &t.conn[r]);
    run(&t, 7 * SEC);
    CHECK_EQ_INT(logCount(&t, m, "for lack of backlog"), 1);
    CHECK_EQ_STR(cmd(&t, r, "DBSIZE"), ":42\r\n");
    gkWorldRelease(t.w);
}

/* The n numbers of array `field` of run `run` of a lab's JSON. */
static int labArray(const char *json, const char *run, const char *field,
                    double *v, int n) {
    char key[64];
    snprintf(key, sizeof(key), "\"name\":\"%s\"", run);
    const char *p = strstr(json, key);
    snprintf(key, sizeof(key), "\"%s\":[", field);
    p = p ? strstr(p, key) : NULL;
    if (!p) return 0;
    p += strlen(key);
    int i = 0;
    for (; i < n && *p != ']'; i++) {
        char *end;
        v[i] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
    }
    return i;
}

/* Seed 003's labs by shape: every replica gets the write; a replica of a
 * replica gets it after the one before it, so the chain's deliveries grow
 * hop by hop; a busy master delivers later than an idle one. */
static void testReplicationLabs(void) {
    static char out[1 << 14];
    double d[10], hop[10];
    CHECK(gkLabRun("replication-star", 1, out, sizeof(out)) > 0);
    CHECK_EQ_INT(labField(out, "idle", "delivered"), 10);
    CHECK_EQ_INT(labField(out, "loaded", "delivered"), 10);
    CHECK_EQ_INT(labArray(out, "idle", "delivery_ms", d, 10), 10);
    for (int i = 0; i < 10; i++) CHECK(d[i] > 0);
    CHECK(labField(out, "idle", "min_ms") > 0);
    CHECK(labField(out, "loaded", "avg_ms") > labField(out, "idle", "avg_ms"));
    CHECK(gkLabRun("replication-chain", 1, out, sizeof(out)) > 0);
    CHECK_EQ_INT(labField(out, "idle", "delivered"), 10);
    CHECK_EQ_INT(labArray(out, "idle", "delivery_ms", d, 10), 10);
    CHECK_EQ_INT(labArray(out, "idle", "hop_ms", hop, 10), 10);
    for (int i = 0; i < 10; i++) {
        CHECK(hop[i] > 0);
        if (i) CHECK(d[i] > d[i - 1]);
    }
    CHECK(labField(out, "loaded", "max_ms") > labField(out, "idle", "max_ms"));
    /* seed 000: each cause fails every try until its fix; 7.0's default
     * (diskless) never meets the first */
    CHECK(gkLabRun("replication-failures", 1, out, sizeof(out)) > 0);
    CHECK(labField(out, "master-disk-full", "failed_syncs") >= 10);
    CHECK(labField(out, "master-dir-unwritable", "failed_syncs") >= 10);
    CHECK(labField(out, "replica-disk-full", "children_killed") >= 1);
    CHECK_EQ_INT(labField(out, "diskless-default", "failed_syncs"), 0);
    CHECK(strstr(out, "\"name\":\"diskless-default\",\"failed_syncs\":0,"
                 "\"replica_retries\":0,\"children_killed\":0,"
                 "\"synced_before_fix\":true") != NULL);
    const char *runs[] = { "master-disk-full", "master-dir-unwritable",
                           "replica-disk-full", "diskless-default" };
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(labField(out, runs[i], "replica_keys"), 1000);
    CHECK(labField(out, "master-disk-full", "synced_ms_after_fix") > 0);
    /* the third cause: a master that cannot fork fails every sync, disk
     * or diskless, until vm.overcommit_memory=1 */
    const char *forks[] = { "fork-fails", "fork-fails-diskless" };
    for (int i = 0; i < 2; i++) {
        char key[64];
        snprintf(key, sizeof(key), "\"name\":\"%s\"", forks[i]);
        const char *at = strstr(out, key);
        CHECK(at && strstr(at, "\"synced_before_fix\":false,\"fix\":"
                           "\"sysctl vm.overcommit_memory=1\""));
        CHECK(at && strstr(at, "\"master_log\":\"Can't save in "
                           "background: fork: Cannot allocate memory\""));
        CHECK(labField(out, forks[i], "fork_failures") >= 1);
        CHECK_EQ_INT(labField(out, forks[i], "fork_failures"),
                     labField(out, forks[i], "failed_syncs"));
        CHECK_EQ_INT(labField(out, forks[i], "replica_keys"), 80000);
        CHECK(labField(out, forks[i], "synced_ms_after_fix") > 0);
        CHECK(labField(out, forks[i], "master_used_memory") > 20 << 20);
    }
    CHECK(labField(out, "fork-fails", "failed_syncs") > 1000);
    CHECK(labField(out, "fork-fails", "replica_retries") > 1000);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(labField(out, runs[i], "fork_failures"), 0);
    /* a replica back after a while: what the 1 MB backlog still holds is
     * all it gets; past it, the whole dataset */
    CHECK(gkLabRun("partial-vs-full-resync", 1, out, sizeof(out)) > 0);
    CHECK(strstr(out, "\"name\":\"64 KB\",\"written_bytes\"") != NULL);
    const char *kinds[][2] = { { "64 KB", "partial" }, { "512 KB", "partial" },
                               { "2048 KB", "full" } };
    for (int i = 0; i < 3; i++) {
        char key[32];
        snprintf(key, sizeof(key), "\"name\":\"%s\"", kinds[i][0]);
        const char *run = strstr(out, key);
        const char *resync = run ? strstr(run, "\"resync\":\"") : NULL;
        CHECK(resync && !strncmp(resync + 10, kinds[i][1],
                                 strlen(kinds[i][1])));
        double written = labField(out, kinds[i][0], "written_bytes");
        double sent = labField(out, kinds[i][0], "sent_bytes");
        if (i < 2) CHECK(sent >= written && sent < written + 4096);
        else CHECK(sent > written + 1000000);       /* 100,000 keys too */
        CHECK(labField(out, kinds[i][0], "replica_keys") > 100000);
    }
    CHECK(labField(out, "2048 KB", "in_sync_ms") >
          labField(out, "512 KB", "in_sync_ms"));
}

/* FAILOVER: the master holds writes until its replica has the whole
 * stream, then the two swap roles and the old master continues the new
 * one's stream from where it was; the write held meanwhile runs on what
 * is now a replica and is refused. */
static void testFailover(void) {
    net t;
    netOpen(&t, 31);
    int m = netAdd(&t, "port 6379\nrepl-diskless-sync-delay 0\n");
    int r = netAdd(&t, "port 6380\n");
    char buf[64];
    CHECK_EQ_STR(cmd(&t, r, "REPLICAOF 127.0.0.1 6379"), "+OK\r\n");
    CHECK_EQ_STR(cmd(&t, m, "SET a 1"), "+OK\r\n");
    run(&t, 2 * SEC);
    CHECK_EQ_STR(cmd(&t, m, "FAILOVER TO 127.0.0.1 6381"),
                 "-ERR FAILOVER target HOST and PORT is not a replica.\r\n");
    /* a write the replica has not acknowledged yet: the master waits */
    CHECK_EQ_STR(cmd(&t, m, "SET b 2"), "+OK\r\n");
    CHECK_EQ_STR(cmd(&t, m, "FAILOVER TO 127.0.0.1 6380 TIMEOUT 5000"),
                 "+OK\r\n");
    CHECK_EQ_STR(info(&t, m, "master_failover_state", buf, sizeof(buf)),
                 "waiting-for-sync");
    CHECK_EQ_STR(cmd(&t, m, "REPLICAOF NO ONE"),
                 "-ERR REPLICAOF not allowed while failing over.\r\n");
    int writer;
    gkConnOpen(t.w, t.node[m], &writer);
    gkConnSend(t.w, writer, "SET held 1\r\n", 12);
    run(&t, 3 * SEC);
    CHECK_EQ_STR(info(&t, m, "role", buf, sizeof(buf)), "slave");
    CHECK_EQ_INT(infoInt(&t, m, "master_port"), 6380);
    CHECK_EQ_STR(info(&t, m, "master_link_status", buf, sizeof(buf)), "up");
    CHECK_EQ_STR(info(&t, r, "role", buf, sizeof(buf)), "master");
    CHECK_EQ_STR(info(&t, m, "master_failover_state", buf, sizeof(buf)),
                 "no-failover");
    CHECK_EQ_INT(logCount(&t, m, "* Failover target 127.0.0.1:6380 is "
                              "synced, failing over."), 1);
    CHECK_EQ_INT(logCount(&t, m, "* Successful partial resynchronization "
                              "with master."), 1);
    CHECK_EQ_INT(logCount(&t, r, "* MASTER MODE enabled (failover request "
                              "from 'id="), 1);
    char reply[256];
    CHECK_EQ_STR(gktExchange(t.w, writer, "", 0, reply, sizeof(reply)),
                 "-READONLY You can't write against a read only replica.\r\n");
    CHECK_EQ_STR(cmd(&t, r, "GET b"), "$1\r\n2\r\n");
    CHECK_EQ_STR(cmd(&t, r, "SET c 3"), "+OK\r\n");
    run(&t, 100 * MS);
    CHECK_EQ_STR(cmd(&t, m, "GET c"), "$1\r\n3\r\n");
    gkWorldRelease(t.w);
}

/* A replica that cannot acknowledge (asleep in DEBUG SLEEP): FAILOVER
 * gives up at its timeout; with FORCE it fails over all the same, and the
 * replica takes over once it wakes. Any replica will do without TO. */
static void testFailoverTimeoutAndForce(void) {
    for (int force = 0; force < 2; force++) {
        net t;
        netOpen(&t, 32 + (uint64_t)force);
        int m = netAdd(&t, "port 6379\nrepl-diskless-sync-delay 0\n");
        int r = netAdd(&t, "port 6380\n");
        char buf[64];
        cmd(&t, r, "REPLICAOF 127.0.0.1 6379");
        run(&t, 2 * SEC);
        int sleeper;
        gkConnOpen(t.w, t.node[r], &sleeper);
        gkConnSend(t.w, sleeper, "DEBUG SLEEP 2\r\n", 15);
        run(&t, 10 * MS);
        CHECK_EQ_STR(cmd(&t, m, "SET k v"), "+OK\r\n");
        CHECK_EQ_STR(cmd(&t, m, force
                         ? "FAILOVER TO 127.0.0.1 6380 FORCE TIMEOUT 300"
                         : "FAILOVER TIMEOUT 300"), "+OK\r\n");
        run(&t, 500 * MS);
        if (!force) {
            CHECK_EQ_INT(logCount(&t, m, "* FAILOVER to any replica aborted: "
                                      "Replica never caught up before "
                                      "timeout"), 1);
            CHECK_EQ_STR(info(&t, m, "role", buf, sizeof(buf)), "master");
            CHECK_EQ_STR(cmd(&t, m, "SET after 1"), "+OK\r\n");
        } else {
            CHECK_EQ_INT(logCount(&t, m, "* FAILOVER to 127.0.0.1:6380 time "
                                      "out exceeded, failing over."), 1);
            run(&t, 3 * SEC);
            CHECK_EQ_STR(info(&t, r, "role", buf, sizeof(buf)), "master");
            CHECK_EQ_STR(info(&t, m, "role", buf, sizeof(buf)), "slave");
            CHECK_EQ_STR(info(&t, m, "master_link_status", buf, sizeof(buf)),
                         "up");
            CHECK_EQ_STR(cmd(&t, r, "GET k"), "$1\r\nv\r\n");
        }
        gkWorldRelease(t.w);
    }
}

int main(void) {
    RUN("a port is one process's: the second bind fails as Redis's does",
        testPorts);
    RUN("FAILOVER holds writes until the replica has them, then the two "
        "swap roles", testFailover);
    RUN("FAILOVER gives up at its timeout, or with FORCE fails over anyway",
        testFailoverTimeoutAndForce);
    RUN("a chain: the sub-replica gets the top master's stream",
        testChain);
    RUN("a star of four replicas gets one write", testStar);
    RUN("a refused connection is tried again until a master listens",
        testRefusedThenListening);
    RUN("an unknown name fails at once, an unanswered address times out",
        testUnknownAndUnanswered);
    RUN("a master restarted empty empties its replica",
        testMasterRestartsEmpty);
    RUN("a full sync waits for diskless sync's delay, or goes through "
        "the disk", testFullSync);
    RUN("a replica that comes during another's disk BGSAVE shares it",
        testAttachToRunningBgsave);
    RUN("a master that cannot write its RDB, a replica that cannot write "
        "it: 7.0's log lines, and the fix", testSyncFailures);
    RUN("a fork the kernel refuses under overcommit 0 or 2 fails BGSAVE "
        "and BGREWRITEAOF with 7.0's lines; overcommit 1 allows it",
        testForkRefused);
    RUN("a master that cannot fork drops each replica that asks, which "
        "asks again, disk or diskless, until vm.overcommit_memory=1",
        testForkFailsReplica);
    RUN("a master lets go of a replica silent for repl-timeout seconds; "
        "one that acknowledges, or came with SYNC, stays",
        testReplicaTimeout);
    RUN("a broken link continues from the backlog, or resyncs in full "
        "once the backlog lost its offset", testPartialResync);
    RUN("a restarted replica continues from its RDB's offset while the "
        "backlog holds it", testRestartedReplica);
    RUN("the replication labs: a write reaches every replica, hop by hop "
        "down a chain; each of seed 000's failures until its fix (a full "
        "disk, an unwritable directory, a fork refused); a replica back in "
        "time for the backlog, and too late",
        testReplicationLabs);
    return gkTestReport();
}
