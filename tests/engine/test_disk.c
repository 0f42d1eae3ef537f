/* Tests of the simulated disk under a Redis-style node: page cache and
 * durable bytes, fsync through the device queue, the kernel's 30 s
 * writeback, power loss against process crash, torn writebacks, read-only
 * directories, and the host's view of the files. */
#include "gktest.h"
#include "aofkit.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

static gkDiskFile fileInfo(node *n, const char *path) {
    gkDiskFile fi;
    memset(&fi, 0, sizeof(fi));
    gkDiskFileInfo(n->w, n->srv, path, &fi);
    return fi;
}

/* appendfsync no: write(2) fills the page cache, nothing reaches the
 * device; appendfsync always: the reply comes after the fsync. */
static void testWriteIsPageCacheFsyncIsDevice(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync no\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    gkDiskFile fi = fileInfo(&n, INCR1);
    CHECK(fi.size > 0);
    CHECK_EQ_INT(fi.durable, 0);
    CHECK_EQ_INT(fi.dirty, fi.size);
    nodeClose(&n);
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET a 1"), "+OK\r\n");
    fi = fileInfo(&n, INCR1);
    CHECK(fi.size > 0);
    CHECK_EQ_INT(fi.durable, fi.size);
    CHECK_EQ_INT(fi.dirty, 0);
    nodeClose(&n);
}

/* Linux writes back pages dirty for 30 s (dirty_expire_centisecs),
 * checking every 5 s: not at 29 s, by 36 s. */
static void testKernelWritesBackAfter30Seconds(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync no\n");
    nodeCmd(&n, "SET a 1");
    uint64_t from = gkTraceLastSeq(n.w);
    nodeRun(&n, 29 * SEC);
    CHECK_EQ_INT(fileInfo(&n, INCR1).durable, 0);
    nodeRun(&n, 7 * SEC);
    gkDiskFile fi = fileInfo(&n, INCR1);
    CHECK(fi.durable > 0);
    CHECK_EQ_INT(fi.durable, fi.size);
    gkTraceRecord rec[4096];
    size_t k = gkTraceRead(n.w, from, rec, 4096), wb = 0;
    for (size_t i = 0; i < k; i++)
        if (rec[i].type == GK_TR_DISK && rec[i].a == GK_DISK_WRITTEN_BACK)
            wb++;
    CHECK(wb >= 1);
    nodeClose(&n);
}

/* kill -9 keeps the page cache (the kernel still has it); a power loss
 * keeps only what reached the device. */
static void testPowerLossDropsPageCacheProcessCrashKeepsIt(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync no\n");
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_INT(gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS), GK_OK);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$1\r\n1\r\n");
    nodeClose(&n);
    nodeOpen(&n, 1, "appendonly yes\nappendfsync no\n");
    nodeCmd(&n, "SET a 1");
    CHECK_EQ_INT(gkServerCrash(n.w, n.srv, GK_CRASH_POWER), GK_OK);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK_EQ_STR(nodeCmd(&n, "GET a"), "$-1\r\n");
    nodeClose(&n);
}

/* A connection to a node that is down is refused; the host's connection
 * sees the close. */
static void testCrashClosesConnectionsAndRefusesNewOnes(void) {
    node n;
    int c;
    nodeOpen(&n, 1, "appendonly yes\n");
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    gkWorldRunUntilIdle(n.w);
    CHECK_EQ_INT(gkConnIsOpen(n.w, n.conn), 0);
    CHECK(gkConnOpen(n.w, n.srv, &c) != GK_OK);
    CHECK(gkServerCrash(n.w, n.srv, GK_CRASH_POWER) != GK_OK);
    nodeClose(&n);
}

/* Virtual time from a SET's request to its reply under always. */
static uint64_t alwaysLatency(const char *preset) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    gkDiskSetPreset(n.w, n.srv, preset);
    nodeRun(&n, 10 * MS);
    uint64_t t0 = gkWorldNow(n.w);
    nodeCmd(&n, "SET a 1");
    uint64_t dt = gkWorldNow(n.w) - t0;
    nodeClose(&n);
    return dt;
}

/* An fsync costs what the device costs: a seek and a cache flush. */
static void testFsyncTakesTheDevicesTime(void) {
    uint64_t nvme = alwaysLatency("nvme"), hdd = alwaysLatency("hdd");
    CHECK(nvme < 1 * MS);
    CHECK(hdd >= 12 * MS);
    CHECK_EQ_INT(alwaysLatency("slow-fsync") >= 3 * SEC, 1);
}

/* Creating a file in a read-only directory fails with EACCES: the
 * rewrite cannot open its new incr file. */
static void testReadOnlyDirectoryRefusesNewFiles(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK_EQ_INT(gkDiskIsReadOnly(n.w, n.srv, "appendonlydir"), 0);
    gkDiskSetReadOnly(n.w, n.srv, "appendonlydir", 1);
    CHECK_EQ_INT(gkDiskIsReadOnly(n.w, n.srv, "appendonlydir"), 1);
    CHECK_EQ_INT(gkDiskIsReadOnly(n.w, n.srv, ""), 0);
    CHECK_EQ_INT(gkDiskIsReadOnly(n.w, 9, ""), GK_ENOTFOUND);
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "-ERR Can't execute an AOF "
                 "background rewriting. Please check the server logs for "
                 "more information.\r\n");
    CHECK(nodeLogHas(&n, "Can't open the append-only file "
                     "appendonly.aof.2.incr.aof: Permission denied"));
    char buf[32];
    CHECK_EQ_STR(nodeInfoStr(&n, "aof_last_bgrewrite_status", buf,
                             sizeof(buf)), "err");
    gkDiskSetReadOnly(n.w, n.srv, "appendonlydir", 0);
    CHECK_EQ_INT(gkDiskIsReadOnly(n.w, n.srv, "appendonlydir"), 0);
    CHECK_EQ_STR(nodeCmd(&n, "BGREWRITEAOF"), "+Background append only file "
                 "rewriting started\r\n");
    nodeClose(&n);
}

/* The host sees the directory and the bytes of each file. */
static void testHostListsAndReadsFiles(void) {
    node n;
    char names[1024];
    size_t len;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK_EQ_INT(gkDiskList(n.w, n.srv, "appendonlydir", names,
                            sizeof(names), &len), GK_OK);
    int found = 0;
    for (size_t off = 0; off < len; off += strlen(names + off) + 1)
        found += !strcmp(names + off, "appendonly.aof.manifest") ||
                 !strcmp(names + off, "appendonly.aof.1.base.rdb") ||
                 !strcmp(names + off, "appendonly.aof.1.incr.aof");
    CHECK_EQ_INT(found, 3);
    char *m = nodeFile(&n, "appendonlydir/appendonly.aof.manifest", 1, NULL);
    CHECK_EQ_STR(m, "file appendonly.aof.1.base.rdb seq 1 type b\n"
                    "file appendonly.aof.1.incr.aof seq 1 type i\n");
    free(m);
    gkDiskInfo di;
    CHECK_EQ_INT(gkDiskGetInfo(n.w, n.srv, &di), GK_OK);
    CHECK_EQ_STR(di.preset, "ssd");
    CHECK(di.files >= 3);
    nodeClose(&n);
}

/* A writeback cut by a power loss leaves the pages already transferred:
 * the AOF then ends inside a command, and loading cuts it back to the
 * last whole one (aof-load-truncated yes). */
static void testTornWritebackIsTruncatedOnLoad(void) {
    node n;
    char req[256];
    static char big[300000];
    nodeOpen(&n, 1, "appendonly yes\nappendfsync no\n");
    gkDiskSetPreset(n.w, n.srv, "hdd");
    memset(big, 'x', sizeof(big));
    for (int i = 0; i < 8; i++) {
        int hl = snprintf(req, sizeof(req), "*3\r\n$3\r\nSET\r\n$2\r\nk%d\r\n"
                          "$%zu\r\n", i, sizeof(big));
        gkConnSend(n.w, n.conn, req, (size_t)hl);
        gkConnSend(n.w, n.conn, big, sizeof(big));
        nodeRaw(&n, "\r\n", 2);
    }
    /* Dirty since 1 ms: the flusher pass at 35 s (the one at 30 s is a
     * millisecond early) starts the writeback of 2.4 MB, which takes
     * 8 ms of seek and 16 ms of transfer on this disk. */
    gkServerCrashAt(n.w, n.srv, 35 * SEC + 20 * MS, GK_CRASH_POWER, 0);
    nodeRun(&n, 36 * SEC);
    CHECK_EQ_INT(gkServerIsUp(n.w, n.srv), 0);
    size_t len;
    char *f = nodeFile(&n, INCR1, 1, &len);
    CHECK(f && len > 0 && len < 8 * sizeof(big) && len % 4096 == 0);
    free(f);
    CHECK_EQ_INT(nodeRestart(&n), GK_OK);
    CHECK(nodeLogHas(&n, "!!! Warning: short read while loading the AOF "
                     "file appendonly.aof.1.incr.aof!!!"));
    CHECK(nodeLogHas(&n, "AOF appendonly.aof.1.incr.aof loaded anyway "
                     "because aof-load-truncated is enabled"));
    long long keys = atoll(nodeCmd(&n, "DBSIZE") + 1);
    CHECK(keys >= 1 && keys < 8);
    char want[32];
    snprintf(want, sizeof(want), ":%lld\r\n", keys);
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS k0 k1 k2 k3 k4 k5 k6 k7"), want);
    nodeClose(&n);
}

int main(void) {
    RUN("write(2) fills the page cache and only fsync reaches the device",
        testWriteIsPageCacheFsyncIsDevice);
    RUN("the kernel writes dirty pages back after 30 seconds",
        testKernelWritesBackAfter30Seconds);
    RUN("a power loss drops the page cache and a process crash keeps it",
        testPowerLossDropsPageCacheProcessCrashKeepsIt);
    RUN("a crash closes connections and a down node refuses new ones",
        testCrashClosesConnectionsAndRefusesNewOnes);
    RUN("an fsync takes the device's seek and cache flush",
        testFsyncTakesTheDevicesTime);
    RUN("a read-only directory refuses new files with EACCES",
        testReadOnlyDirectoryRefusesNewFiles);
    RUN("the host lists the AOF directory and reads its files",
        testHostListsAndReadsFiles);
    RUN("a torn writeback is cut back to the last whole command on load",
        testTornWritebackIsTruncatedOnLoad);
    return gkTestReport();
}
