/* Tests of the HyperLogLog representation (hyperloglog.c) that a
 * differential script cannot reach: the register accessors at every
 * alignment, the sparse code against the dense array it stands for,
 * both conversions to dense, the estimator against cardinalities whose
 * redis-server 7.0.15 estimates are known, PFCOUNT's cache as a
 * propagated write, and corrupted values that must be refused, never
 * read past. Replies and the stored bytes are compared with
 * redis-server in tests/diff/scripts/hyperloglog.redis. */
#include "gktest.h"
#include "aofkit.h"
#include "hyperloglog.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

static gkMem mem;

static void memSetup(void) {
    memInit(&mem, memDefaultAlloc, NULL);
}

/* The 16384 registers of hll, one per byte (a sparse hll is converted
 * on a copy). Returns 0 if the copy cannot be converted. */
static int registersOf(sds hll, uint8_t *out) {
    sds d = sdsdup(&mem, hll);
    if (hllSparseToDense(&mem, &d) != 0) { sdsfree(&mem, d); return 0; }
    for (long i = 0; i < HLL_REGISTERS; i++)
        out[i] = (uint8_t)hllDenseGetRegister((uint8_t *)d + HLL_HDR_SIZE,
                                              i);
    sdsfree(&mem, d);
    return 1;
}

static void testNewHllIsOneXzeroRun(void) {
    sds h = hllCreate(&mem);
    CHECK_EQ_INT(sdslen(h), HLL_HDR_SIZE + 2);
    CHECK(memcmp(h, "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18) == 0);
    CHECK(hllIsValid((unsigned char *)h, sdslen(h)));
    CHECK(hllCacheValid(h));
    CHECK_EQ_INT(hllCount(h, NULL), 0);
    sds text = hllSparseDecode(&mem, h);
    CHECK_EQ_STR(text, "Z:16384");
    sdsfree(&mem, text);
    sdsfree(&mem, h);
}

/* Registers straddle bytes at three alignments out of four; writing one
 * must leave its neighbours alone. */
static void testDenseRegistersRoundTrip(void) {
    uint8_t regs[HLL_DENSE_SIZE - HLL_HDR_SIZE] = { 0 };
    static uint8_t want[HLL_REGISTERS];
    uint64_t seed = 42;
    for (int round = 0; round < 20; round++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            want[i] = (uint8_t)(gkTestRand(&seed) & HLL_REGISTER_MAX);
            hllDenseSetRegister(regs, i, want[i]);
        }
        int bad = 0;
        for (long i = 0; i < HLL_REGISTERS; i++)
            bad += hllDenseGetRegister(regs, i) != want[i];
        CHECK_EQ_INT(bad, 0);
    }
    memset(regs, 0, sizeof(regs));
    hllDenseSetRegister(regs, 1, 63);
    CHECK_EQ_INT(regs[0], 0xc0);
    CHECK_EQ_INT(regs[1], 0x0f);
    CHECK_EQ_INT(hllDenseGetRegister(regs, 0), 0);
    CHECK_EQ_INT(hllDenseGetRegister(regs, 2), 0);
    hllDenseSetRegister(regs, HLL_REGISTERS - 1, 63);
    CHECK_EQ_INT(regs[sizeof(regs) - 1], 0xfc);
}

/* The elements "a", "b", "c" land where redis-server puts them (PFDEBUG
 * DECODE there prints exactly this code), which pins the hash. */
static void testHashPlacesElementsAsRedisDoes(void) {
    sds h = hllCreate(&mem);
    CHECK_EQ_INT(hllAdd(&mem, &h, "a", 1, 3000), 1);
    CHECK_EQ_INT(hllAdd(&mem, &h, "b", 1, 3000), 1);
    CHECK_EQ_INT(hllAdd(&mem, &h, "c", 1, 3000), 1);
    CHECK_EQ_INT(hllAdd(&mem, &h, "a", 1, 3000), 0);
    sds text = hllSparseDecode(&mem, h);
    CHECK_EQ_STR(text, "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
    CHECK(!hllCacheValid(h));
    CHECK_EQ_INT(hllCount(h, NULL), 3);
    sdsfree(&mem, text);
    sdsfree(&mem, h);
}

/* Fed the same elements, a sparse HLL (never allowed to turn dense)
 * holds exactly the registers of a dense one, and estimates the same. */
static void testSparseCodeMatchesDenseRegisters(void) {
    static uint8_t a[HLL_REGISTERS], b[HLL_REGISTERS];
    sds sparse = hllCreate(&mem);
    sds dense = hllCreate(&mem);
    CHECK_EQ_INT(hllSparseToDense(&mem, &dense), 0);
    CHECK_EQ_INT(sdslen(dense), HLL_DENSE_SIZE);
    uint64_t seed = 7;
    int failed = 0;
    for (int n = 1; n <= 3000; n++) {
        uint64_t ele = gkTestRand(&seed);
        hllAdd(&mem, &sparse, &ele, 8, (size_t)1 << 30);
        hllAdd(&mem, &dense, &ele, 8, (size_t)1 << 30);
        if (n % 250) continue;
        failed += hllEncoding(sparse) != HLL_SPARSE;
        failed += !registersOf(sparse, a) || !registersOf(dense, b) ||
                  memcmp(a, b, HLL_REGISTERS) != 0;
        failed += hllCount(sparse, NULL) != hllCount(dense, NULL);
    }
    CHECK_EQ_INT(failed, 0);
    sdsfree(&mem, sparse);
    sdsfree(&mem, dense);
}

/* A register over 32 does not fit a VAL opcode: the value turns dense,
 * keeping every other register. */
static void testLargeRegisterTurnsSparseDense(void) {
    static uint8_t regs[HLL_REGISTERS];
    sds h = hllCreate(&mem);
    CHECK_EQ_INT(hllSet(&mem, &h, 5, 32, 3000), 1);
    CHECK_EQ_INT(hllEncoding(h), HLL_SPARSE);
    CHECK_EQ_INT(hllSet(&mem, &h, 9, 33, 3000), 1);
    CHECK_EQ_INT(hllEncoding(h), HLL_DENSE);
    CHECK_EQ_INT(sdslen(h), HLL_DENSE_SIZE);
    CHECK(registersOf(h, regs));
    CHECK_EQ_INT(regs[5], 32);
    CHECK_EQ_INT(regs[9], 33);
    CHECK_EQ_INT(regs[0] + regs[6] + regs[HLL_REGISTERS - 1], 0);
    sdsfree(&mem, h);
}

/* The sparse code never grows past the limit: the write that would
 * make it pass turns the value dense instead. Equal neighbouring
 * values share one VAL opcode. */
static void testSparseLimitTurnsDense(void) {
    sds h = hllCreate(&mem);
    long idx = 0;
    int grew_past = 0;
    while (hllEncoding(h) == HLL_SPARSE) {
        hllSet(&mem, &h, idx, 1, 300);
        if (hllEncoding(h) == HLL_SPARSE) grew_past += sdslen(h) > 300;
        idx += 3;
    }
    CHECK_EQ_INT(grew_past, 0);
    CHECK_EQ_INT(sdslen(h), HLL_DENSE_SIZE);
    sdsfree(&mem, h);
    h = hllCreate(&mem);
    for (long i = 100; i < 104; i++) hllSet(&mem, &h, i, 3, 3000);
    sds text = hllSparseDecode(&mem, h);
    CHECK_EQ_STR(text, "Z:100 v:3,4 Z:16280");
    sdsfree(&mem, text);
    sdsfree(&mem, h);
}

/* A run passing the last register makes a sparse code corrupted, even
 * a value run after a complete code (Debian's 7.0.15 carries the fix for
 * CVE-2025-32023): no conversion, no merge, no count. */
static void testRunPastTheLastRegisterIsCorrupted(void) {
    static uint8_t max[HLL_REGISTERS];
    sds h = hllCreate(&mem);
    h = sdscatlen(&mem, h, "\x80", 1);
    CHECK(hllIsValid((unsigned char *)h, sdslen(h)));
    CHECK_EQ_INT(hllSparseToDense(&mem, &h), -1);
    CHECK_EQ_INT(hllEncoding(h), HLL_SPARSE);
    CHECK_EQ_INT(hllMerge(max, h), -1);
    int invalid = 0;
    hllCount(h, &invalid);
    CHECK(invalid);
    sdsfree(&mem, h);
    h = hllCreate(&mem);
    h[HLL_HDR_SIZE + 1] = (char)0xfe;       /* XZERO of 16383: one short */
    invalid = 0;
    hllCount(h, &invalid);
    CHECK(invalid);
    CHECK_EQ_INT(hllSet(&mem, &h, HLL_REGISTERS - 1, 3, 3000), -1);
    CHECK_EQ_INT(hllSet(&mem, &h, 0, 3, 3000), 1);
    sdsfree(&mem, h);
}

/* The estimates redis-server 7.0.15 gives for the elements "m0" ..
 * "m<n-1>" (PFADD then PFCOUNT there), and the error bound the estimator
 * keeps for random elements. */
static void testEstimatorOnKnownCardinalities(void) {
    static const struct { int n; uint64_t redis; } known[] = {
        { 1, 1 }, { 3, 3 }, { 2500, 2515 } };
    for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
        sds h = hllCreate(&mem);
        char ele[16];
        for (int i = 0; i < known[k].n; i++) {
            int len = snprintf(ele, sizeof(ele), "m%d", i);
            hllAdd(&mem, &h, ele, (size_t)len, 3000);
        }
        CHECK_EQ_INT(hllCount(h, NULL), known[k].redis);
        sdsfree(&mem, h);
    }
    sds h = hllCreate(&mem);
    uint64_t seed = 99, checkpoint = 10;
    for (uint64_t n = 1; n <= 1000000; n++) {
        uint64_t ele = gkTestRand(&seed);
        hllAdd(&mem, &h, &ele, 8, 3000);
        if (n != checkpoint) continue;
        long long err = llabs((long long)hllCount(h, NULL) - (long long)n);
        CHECK(err <= (long long)(n * 0.0081 * 3) + 1);
        checkpoint *= 10;
    }
    sdsfree(&mem, h);
}

/* A stale cache is recomputed by PFCOUNT and written back: the key
 * changes, so the server counts a change and propagates PFCOUNT. A
 * fresh cache is only read. */
static void testPfcountCacheIsAPropagatedWrite(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\n");
    CHECK_EQ_STR(nodeCmd(&n, "PFADD h a b c"), ":1\r\n");
    long long dirty = nodeInfo(&n, "rdb_changes_since_last_save");
    CHECK_EQ_STR(nodeCmd(&n, "GETRANGE h 15 15"), "$1\r\n\x80\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PFCOUNT h"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GETRANGE h 8 15"),
                 "$8\r\n\x03\0\0\0\0\0\0\0\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), dirty + 1);
    CHECK_EQ_STR(nodeCmd(&n, "PFCOUNT h"), ":3\r\n");
    CHECK_EQ_INT(nodeInfo(&n, "rdb_changes_since_last_save"), dirty + 1);
    CHECK_EQ_STR(nodeCmd(&n, "PFCOUNT h nosuch"), ":3\r\n");
    nodeRun(&n, 2 * SEC);
    char *aof = nodeFile(&n, INCR1, 0, NULL);
    CHECK(aof != NULL);
    if (aof) {
        const char *once = "$7\r\nPFCOUNT\r\n$1\r\nh\r\n";
        const char *p = strstr(aof, once);
        CHECK(p != NULL);
        CHECK(p && strstr(p + strlen(once), "PFCOUNT") == NULL);
        free(aof);
    }
    nodeClose(&n);
}

/* Random bytes written over a stored HLL, then every HLL command on it:
 * each answers (a value or an error), and the server stays up. */
static void testCorruptedValuesNeverCrash(void) {
    node n;
    char cmd[256];
    uint64_t seed = 2024;
    nodeOpen(&n, 1, NULL);
    for (int round = 0; round < 300; round++) {
        nodeCmd(&n, "DEL h");
        int items = (int)(gkTestRand(&seed) % 400);
        for (int i = 0; i < items; i += 20) {
            snprintf(cmd, sizeof(cmd), "PFADD h r%d-%d r%d-%d r%d-%d",
                     round, i, round, i + 1, round, i + 2);
            nodeCmd(&n, cmd);
        }
        long long len = atoll(nodeCmd(&n, "STRLEN h") + 1);
        for (int k = 0; k < 3 && len > 0; k++) {
            char raw[128], at[24];
            int atlen = snprintf(at, sizeof(at), "%d",
                                 (int)(gkTestRand(&seed) % (uint64_t)len));
            int bytes = snprintf(raw, sizeof(raw),
                                 "*4\r\n$8\r\nSETRANGE\r\n$1\r\nh\r\n"
                                 "$%d\r\n%s\r\n$1\r\n", atlen, at);
            raw[bytes++] = (char)(gkTestRand(&seed) & 0xff);
            memcpy(raw + bytes, "\r\n", 2);
            nodeRaw(&n, raw, (size_t)bytes + 2);
        }
        const char *r = nodeCmd(&n, "PFCOUNT h");
        CHECK(r[0] == ':' || !strncmp(r, "-INVALIDOBJ", 11) ||
              !strncmp(r, "-WRONGTYPE", 10));
        nodeCmd(&n, "PFCOUNT h h2");
        nodeCmd(&n, "PFADD h x y z");
        nodeCmd(&n, "PFMERGE h2 h");
        nodeCmd(&n, "PFDEBUG DECODE h");
        nodeCmd(&n, "PFDEBUG TODENSE h");
    }
    CHECK_EQ_STR(nodeCmd(&n, "PING"), "+PONG\r\n");
    nodeClose(&n);
}

int main(void) {
    memSetup();
    RUN("a new HLL is a single XZERO run of 16384 registers, 18 bytes, "
        "counting 0", testNewHllIsOneXzeroRun);
    RUN("dense registers read back what was written at every alignment",
        testDenseRegistersRoundTrip);
    RUN("the hash places a, b and c in the registers redis-server does",
        testHashPlacesElementsAsRedisDoes);
    RUN("a sparse HLL holds exactly the registers of a dense one fed the "
        "same elements", testSparseCodeMatchesDenseRegisters);
    RUN("a register over 32 turns a sparse HLL dense",
        testLargeRegisterTurnsSparseDense);
    RUN("the sparse code turns dense instead of passing its byte limit",
        testSparseLimitTurnsDense);
    RUN("a run passing the last register makes a sparse code corrupted",
        testRunPastTheLastRegisterIsCorrupted);
    RUN("the estimator gives redis-server's estimates and stays within "
        "three standard errors", testEstimatorOnKnownCardinalities);
    RUN("PFCOUNT writes a stale cache back and is propagated once",
        testPfcountCacheIsAPropagatedWrite);
    RUN("corrupted HLL values are refused by every command, never read "
        "past", testCorruptedValuesNeverCrash);
    return gkTestReport();
}
