/* hyperloglog.c -- HyperLogLog in a string value, byte for byte as Redis
 * 7.0 stores it, and the commands PFADD, PFCOUNT, PFMERGE, PFDEBUG and
 * PFSELFTEST.
 *
 * How it counts. Each element is hashed to 64 bits (MurmurHash64A). The
 * low 14 bits pick one of 16384 registers; in the other 50, the position
 * of the first set bit (1 for "1", 2 for "10", up to 51) is a sample of
 * how many distinct elements that register has seen: a run of k zeros
 * turns up once in 2^k hashes. A register keeps the longest it saw. The
 * estimate combines the registers' histogram with Otmar Ertl's improved
 * estimator (the one Redis 4.0 adopted), whose two corrections, sigma and
 * tau, handle registers that are still zero and registers at the top.
 *
 * Two encodings. Dense keeps all 16384 registers in 6 bits each (12 KB):
 * register i is bits 6i..6i+5 of the array read as one little-endian
 * number, so a register can straddle two bytes. Most registers of a
 * small HLL are zero, so it starts sparse, as a run-length code of three
 * opcodes:
 *
 *   ZERO   00xxxxxx            xxxxxx+1 (1..64) zero registers
 *   XZERO  01xxxxxx yyyyyyyy   xxxxxxyyyyyyyy+1 (1..16384) zero registers
 *   VAL    1vvvvvxx            xx+1 (1..4) registers of value vvvvv+1
 *
 * An empty HLL is one XZERO opcode of 16384: 18 bytes in all. The sparse
 * code cannot hold a value over 32; a register that needs one, or a code
 * growing past hll-sparse-max-bytes (3000 by default), turns the value
 * dense for good. Updating the code splits the run holding the register
 * into at most three opcodes, then merges neighbouring VAL opcodes of
 * equal value, exactly as Redis does, so the bytes stay identical.
 *
 * A value can be any string a client SET, so every reader checks what it
 * walks: PFCOUNT answers "-INVALIDOBJ Corrupted HLL object detected"
 * rather than read past the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "server.h"
#include "hyperloglog.h"

#define HLL_RAW 255             /* one byte per register, internal only */
#define HLL_ALPHA_INF 0.721347520444481703680  /* 0.5 / ln(2) */

/* ---- Header fields. ---- */
#define HLL_OFF_ENCODING 4
#define HLL_OFF_CARD 8

/* ---- Sparse opcodes. ---- */
#define SPARSE_XZERO_BIT 0x40
#define SPARSE_VAL_BIT 0x80
#define SPARSE_IS_ZERO(b) (((b) & 0xc0) == 0)
#define SPARSE_IS_XZERO(b) (((b) & 0xc0) == SPARSE_XZERO_BIT)
#define SPARSE_IS_VAL(b) (((b) & SPARSE_VAL_BIT) != 0)
#define SPARSE_VAL_VALUE(b) ((((b) >> 2) & 0x1f) + 1)
#define SPARSE_VAL_LEN(b) (((b) & 0x3) + 1)

/* MurmurHash2, 64-bit version (Austin Appleby's MurmurHash64A), reading
 * its 8-byte blocks as little-endian numbers whatever the host, as Redis
 * does, so that an HLL means the same on every machine. */
uint64_t hllMurmurHash64A(const void *key, size_t len, uint64_t seed) {
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    const uint8_t *data = key;
    size_t blocks = len / 8;
    uint64_t h = seed ^ ((uint64_t)len * m);
    for (size_t i = 0; i < blocks; i++, data += 8) {
        uint64_t k = 0;
        for (int b = 7; b >= 0; b--) k = (k << 8) | data[b];
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t rest = len & 7;
    if (rest) {
        for (size_t b = rest; b > 0; b--)
            h ^= (uint64_t)data[b - 1] << (8 * (b - 1));
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* The register an element falls in (*regp) and the length of the run
 * "00..01" that ends its hash above the index bits, 1 to HLL_Q + 1. */
int hllPatLen(const void *ele, size_t len, long *regp) {
    uint64_t hash = hllMurmurHash64A(ele, len, HLL_HASH_SEED);
    int count = 1;
    *regp = (long)(hash & HLL_P_MASK);
    hash >>= HLL_P;
    hash |= UINT64_C(1) << HLL_Q;       /* the run ends by bit Q at last */
    while (!(hash & 1)) {
        count++;
        hash >>= 1;
    }
    return count;
}

/* ---- The header. ---- */

int hllEncoding(const sds hll) {
    return (uint8_t)hll[HLL_OFF_ENCODING];
}

/* Whether p, len bytes, can be read as an HLL: long enough for the
 * header, "HYLL", a known encoding, and the exact size if dense. What the
 * sparse code holds is checked as it is walked. */
int hllIsValid(const unsigned char *p, size_t len) {
    if (len < HLL_HDR_SIZE || memcmp(p, "HYLL", 4) != 0) return 0;
    if (p[HLL_OFF_ENCODING] > HLL_MAX_ENCODING) return 0;
    return p[HLL_OFF_ENCODING] != HLL_DENSE || len == HLL_DENSE_SIZE;
}

int hllCacheValid(const sds hll) {
    return !((uint8_t)hll[HLL_OFF_CARD + 7] & 0x80);
}

uint64_t hllCacheGet(const sds hll) {
    uint64_t card = 0;
    for (int i = 7; i >= 0; i--)
        card = (card << 8) | (uint8_t)hll[HLL_OFF_CARD + i];
    return card;
}

void hllCacheSet(sds hll, uint64_t card) {
    for (int i = 0; i < 8; i++)
        hll[HLL_OFF_CARD + i] = (char)((card >> (8 * i)) & 0xff);
}

void hllCacheInvalidate(sds hll) {
    hll[HLL_OFF_CARD + 7] = (char)((uint8_t)hll[HLL_OFF_CARD + 7] | 0x80);
}

/* A new empty HLL: sparse, every register zero in XZERO runs, cached
 * cardinality 0 (valid). */
sds hllCreate(gkMem *m) {
    size_t runs = (HLL_REGISTERS + HLL_SPARSE_XZERO_MAX_LEN - 1) /
                  HLL_SPARSE_XZERO_MAX_LEN;
    sds hll = sdsnewlen(m, NULL, HLL_HDR_SIZE + runs * 2);
    uint8_t *p = (uint8_t *)hll + HLL_HDR_SIZE;
    memcpy(hll, "HYLL", 4);
    hll[HLL_OFF_ENCODING] = HLL_SPARSE;
    for (long left = HLL_REGISTERS; left > 0; p += 2) {
        long run = left < HLL_SPARSE_XZERO_MAX_LEN ? left
                                                   : HLL_SPARSE_XZERO_MAX_LEN;
        p[0] = (uint8_t)(SPARSE_XZERO_BIT | ((run - 1) >> 8));
        p[1] = (uint8_t)((run - 1) & 0xff);
        left -= run;
    }
    return hll;
}

/* ---- Dense registers. ---- */

unsigned hllDenseGetRegister(const uint8_t *regs, long idx) {
    unsigned long bit = (unsigned long)idx * HLL_BITS;
    unsigned long byte = bit >> 3, shift = bit & 7;
    unsigned v = regs[byte] >> shift;
    if (shift > 8 - HLL_BITS) v |= (unsigned)regs[byte + 1] << (8 - shift);
    return v & HLL_REGISTER_MAX;
}

void hllDenseSetRegister(uint8_t *regs, long idx, unsigned val) {
    unsigned long bit = (unsigned long)idx * HLL_BITS;
    unsigned long byte = bit >> 3, shift = bit & 7;
    regs[byte] = (uint8_t)((regs[byte] & ~(HLL_REGISTER_MAX << shift)) |
                           (val << shift));
    if (shift > 8 - HLL_BITS) {
        unsigned hi = 8 - (unsigned)shift;     /* bits in the first byte */
        regs[byte + 1] = (uint8_t)((regs[byte + 1] &
                                    ~(HLL_REGISTER_MAX >> hi)) |
                                   (val >> hi));
    }
}

/* ---- The sparse code. ---- */

/* Decodes the opcode at p, before end: the registers it covers (*run)
 * and their value (*val, 0 for the zero runs). Returns its size. An
 * XZERO cut short by the end reads its second byte as 0, as Redis reads
 * the string's terminator there. */
static int _sparseOp(const uint8_t *p, const uint8_t *end, long *run,
                     int *val) {
    if (SPARSE_IS_ZERO(*p)) {
        *run = (*p & 0x3f) + 1;
        *val = 0;
        return 1;
    }
    if (SPARSE_IS_XZERO(*p)) {
        long lo = p + 1 < end ? p[1] : 0;
        *run = (((long)(*p & 0x3f) << 8) | lo) + 1;
        *val = 0;
        return 2;
    }
    *run = SPARSE_VAL_LEN(*p);
    *val = SPARSE_VAL_VALUE(*p);
    return 1;
}

/* Writes the opcode(s) for a zero run of len registers at p: ZERO up to
 * 64, XZERO above. Returns the bytes written. */
static int _sparseWriteZeros(uint8_t *p, long len) {
    if (len > HLL_SPARSE_ZERO_MAX_LEN) {
        p[0] = (uint8_t)(SPARSE_XZERO_BIT | ((len - 1) >> 8));
        p[1] = (uint8_t)((len - 1) & 0xff);
        return 2;
    }
    p[0] = (uint8_t)(len - 1);
    return 1;
}

static uint8_t _sparseVal(int val, long len) {
    return (uint8_t)(SPARSE_VAL_BIT | ((val - 1) << 2) | (len - 1));
}

/* Calls fn(ctx, first register, registers, value) for each run of the
 * sparse code of hll. Returns C_OK if the runs cover exactly the 16384
 * registers; C_ERR, as soon as it is known, if the code ends short or a
 * run would pass the last register. The second rule is the fix Debian's
 * 7.0.15 carries for CVE-2025-32023: a run past the end, even a value
 * run after a complete code, makes the value corrupted. */
typedef void sparseRunFn(void *ctx, long first, long run, int val);
static int _sparseWalk(const sds hll, sparseRunFn *fn, void *ctx) {
    const uint8_t *p = (const uint8_t *)hll + HLL_HDR_SIZE;
    const uint8_t *end = (const uint8_t *)hll + sdslen(hll);
    long idx = 0, run;
    int val;
    while (p < end) {
        p += _sparseOp(p, end, &run, &val);
        if (idx + run > HLL_REGISTERS) return C_ERR;
        fn(ctx, idx, run, val);
        idx += run;
    }
    return idx == HLL_REGISTERS ? C_OK : C_ERR;
}

/* A run, written into the dense registers. */
static void _sparseToDenseRun(void *ctx, long first, long run, int val) {
    for (long i = first; val && i < first + run; i++)
        hllDenseSetRegister(ctx, i, (unsigned)val);
}

/* Converts a sparse *hll to dense, keeping magic and cached cardinality.
 * Returns C_ERR, leaving *hll alone, if the code is corrupted
 * (_sparseWalk). A dense *hll is left as it is. */
int hllSparseToDense(gkMem *m, sds *hll) {
    if (hllEncoding(*hll) == HLL_DENSE) return C_OK;
    sds dense = sdsnewlen(m, NULL, HLL_DENSE_SIZE);
    memcpy(dense, *hll, HLL_HDR_SIZE);
    dense[HLL_OFF_ENCODING] = HLL_DENSE;
    uint8_t *regs = (uint8_t *)dense + HLL_HDR_SIZE;
    if (_sparseWalk(*hll, _sparseToDenseRun, regs) != C_OK) {
        sdsfree(m, dense);
        return C_ERR;
    }
    sdsfree(m, *hll);
    *hll = dense;
    return C_OK;
}

/* Merges each VAL opcode with the next one when both hold the same
 * value and their runs fit one opcode, for at most five opcodes from
 * p. Returns the bytes removed. */
static size_t _sparseMergeVals(uint8_t *p, uint8_t *end) {
    size_t removed = 0;
    for (int scan = 5; p < end && scan > 0; scan--) {
        if (SPARSE_IS_XZERO(*p)) { p += 2; continue; }
        if (SPARSE_IS_ZERO(*p)) { p++; continue; }
        if (p + 1 < end && SPARSE_IS_VAL(p[1]) &&
            SPARSE_VAL_VALUE(*p) == SPARSE_VAL_VALUE(p[1])) {
            long len = SPARSE_VAL_LEN(*p) + SPARSE_VAL_LEN(p[1]);
            if (len <= HLL_SPARSE_VAL_MAX_LEN) {
                p[1] = _sparseVal(SPARSE_VAL_VALUE(*p), len);
                memmove(p, p + 1, (size_t)(end - p - 1));
                end--;
                removed++;
                continue;
            }
        }
        p++;
    }
    return removed;
}

/* The opcodes that replace the run [first, first + span) holding idx
 * (value cur, 0 for zeros) once idx holds count: the run before idx,
 * idx itself, the run after. Returns their size (at most 5 bytes). */
static int _sparseSplit(uint8_t *seq, long first, long span, long idx,
                        int cur, int count) {
    long last = first + span - 1;
    int n = 0;
    if (idx != first) {
        if (cur == 0) n += _sparseWriteZeros(seq + n, idx - first);
        else seq[n++] = _sparseVal(cur, idx - first);
    }
    seq[n++] = _sparseVal(count, 1);
    if (idx != last) {
        if (cur == 0) n += _sparseWriteZeros(seq + n, last - idx);
        else seq[n++] = _sparseVal(cur, last - idx);
    }
    return n;
}

/* Raises register idx of a sparse *hll to count. Returns 1 if it
 * changed, 0 if it already held as much, -1 if the code is corrupted.
 * The value turns dense if count does not fit a VAL opcode or the code
 * would grow past sparse_max bytes. */
static int _sparseSet(gkMem *m, sds *hll, long idx, uint8_t count,
                      size_t sparse_max) {
    if (count > HLL_SPARSE_VAL_MAX_VALUE) goto promote;
    *hll = sdsMakeRoomFor(m, *hll, 5);
    uint8_t *start = (uint8_t *)*hll + HLL_HDR_SIZE;
    uint8_t *end = (uint8_t *)*hll + sdslen(*hll);
    uint8_t *p = start, *prev = NULL;
    long first = 0, span = 0;
    int val = 0, oplen = 0;
    while (p < end) {
        oplen = _sparseOp(p, end, &span, &val);
        if (idx <= first + span - 1) break;
        prev = p;
        p += oplen;
        first += span;
    }
    if (span == 0 || p >= end) return -1;
    if (val >= count && val != 0) return 0;
    if (oplen == 1 && span == 1) {
        *p = _sparseVal(count, 1);
    } else {
        uint8_t seq[5];
        int seqlen = _sparseSplit(seq, first, span, idx, val, count);
        long delta = seqlen - oplen;
        uint8_t *next = p + oplen < end ? p + oplen : NULL;
        if (delta > 0 && sdslen(*hll) + (size_t)delta > sparse_max)
            goto promote;
        if (delta && next) memmove(next + delta, next, (size_t)(end - next));
        memcpy(p, seq, (size_t)seqlen);
        sdsIncrLen(*hll, (size_t)delta);
        end += delta;
    }
    size_t removed = _sparseMergeVals(prev ? prev : start, end);
    if (removed) sdsIncrLen(*hll, (size_t)0 - removed);
    hllCacheInvalidate(*hll);
    return 1;
promote:
    if (hllSparseToDense(m, hll) != C_OK) return -1;
    hllDenseSetRegister((uint8_t *)*hll + HLL_HDR_SIZE, idx, count);
    return 1;
}

/* Raises register idx of *hll (which may move) to count. Returns 1 if
 * it changed, 0 if not, -1 if the value is corrupted. */
int hllSet(gkMem *m, sds *hll, long idx, uint8_t count, size_t sparse_max) {
    uint8_t *regs = (uint8_t *)*hll + HLL_HDR_SIZE;
    switch (hllEncoding(*hll)) {
    case HLL_DENSE:
        if (hllDenseGetRegister(regs, idx) >= count) return 0;
        hllDenseSetRegister(regs, idx, count);
        return 1;
    case HLL_SPARSE:
        return _sparseSet(m, hll, idx, count, sparse_max);
    default:
        return -1;
    }
}

/* Adds one element: 1 if a register changed (the estimate may have). */
int hllAdd(gkMem *m, sds *hll, const void *ele, size_t len,
           size_t sparse_max) {
    long idx;
    int count = hllPatLen(ele, len, &idx);
    return hllSet(m, hll, idx, (uint8_t)count, sparse_max);
}

/* ---- Estimating. ---- */

/* Ertl's sigma(x) = x + sum over k >= 1 of x^(2^k) * 2^(k-1), to the
 * double's precision: the correction for the registers still zero. */
static double _hllSigma(double x) {
    if (x == 1.) return INFINITY;
    double y = 1, z = x, prev;
    do {
        x *= x;
        prev = z;
        z += x * y;
        y += y;
    } while (prev != z);
    return z;
}

/* Ertl's tau(x), the correction for the registers at the top (a run no
 * hash could exceed). */
static double _hllTau(double x) {
    if (x == 0. || x == 1.) return 0.;
    double y = 1.0, z = 1 - x, prev;
    do {
        x = sqrt(x);
        prev = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (prev != z);
    return z / 3;
}

/* The estimate from the histogram of register values. The order of the
 * floating-point steps is Redis's, so cached cardinalities match. */
static uint64_t _hllEstimate(const int *histo) {
    double m = HLL_REGISTERS;
    double z = m * _hllTau((m - histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; j--) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * _hllSigma(histo[0] / m);
    return (uint64_t)llround(HLL_ALPHA_INF * m * m / z);
}

static void _sparseHistoRun(void *ctx, long first, long run, int val) {
    ((int *)ctx)[val] += (int)run;
}

/* The estimate of hll; *invalid (if given) is set when a sparse code
 * does not cover exactly the registers (the estimate means nothing
 * then). */
uint64_t hllCount(const sds hll, int *invalid) {
    int histo[64] = { 0 };
    const uint8_t *regs = (const uint8_t *)hll + HLL_HDR_SIZE;
    if (hllEncoding(hll) == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++)
            histo[hllDenseGetRegister(regs, i)]++;
    } else {
        if (_sparseWalk(hll, _sparseHistoRun, histo) != C_OK && invalid)
            *invalid = 1;
    }
    return _hllEstimate(histo);
}

/* The estimate of registers held one per byte (PFCOUNT of several keys
 * merges them so). */
uint64_t hllCountRegisters(const uint8_t *max) {
    int histo[256] = { 0 };
    for (long i = 0; i < HLL_REGISTERS; i++) histo[max[i]]++;
    return _hllEstimate(histo);
}

static void _mergeRun(void *ctx, long first, long run, int val) {
    uint8_t *max = ctx;
    for (long i = first; i < first + run; i++)
        if (val > max[i]) max[i] = (uint8_t)val;
}

/* Raises each of the 16384 bytes of max to the matching register of hll.
 * Returns C_ERR if a sparse code is corrupted (max may be partly updated
 * then). */
int hllMerge(uint8_t *max, const sds hll) {
    const uint8_t *regs = (const uint8_t *)hll + HLL_HDR_SIZE;
    if (hllEncoding(hll) == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t v = (uint8_t)hllDenseGetRegister(regs, i);
            if (v > max[i]) max[i] = v;
        }
        return C_OK;
    }
    return _sparseWalk(hll, _mergeRun, max);
}

/* PFDEBUG DECODE's text: "z:N" for ZERO, "Z:N" for XZERO, "v:V,N" for
 * VAL, space separated. */
sds hllSparseDecode(gkMem *m, const sds hll) {
    const uint8_t *p = (const uint8_t *)hll + HLL_HDR_SIZE;
    const uint8_t *end = (const uint8_t *)hll + sdslen(hll);
    sds out = sdsempty(m);
    while (p < end) {
        long run;
        int val, kind = SPARSE_IS_XZERO(*p) ? 'Z' : SPARSE_IS_ZERO(*p) ? 'z'
                                                                      : 'v';
        p += _sparseOp(p, end, &run, &val);
        if (sdslen(out)) out = sdscatlen(m, out, " ", 1);
        if (kind == 'v') out = sdscatprintf(m, out, "v:%d,%ld", val, run);
        else out = sdscatprintf(m, out, "%c:%ld", kind, run);
    }
    return out;
}

/* ---- Commands. ---- */

/* Whether o can be used as an HLL; replies WRONGTYPE (for another type,
 * or for a string that is no HLL: Redis's "Key is not a valid
 * HyperLogLog string value.") if not. */
static int _isHLLObjectOrReply(client *c, robj *o) {
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    if (!sdsEncodedObject(o) ||
        !hllIsValid((const unsigned char *)o->v.ptr, sdslen(o->v.ptr))) {
        addReplyError(c, HLL_WRONGTYPE_ERR);
        return C_ERR;
    }
    return C_OK;
}

static size_t _sparseMax(redisServer *s) {
    return (size_t)s->cfg.hll_sparse_max_bytes;
}

/* PFADD key [element ...]: 1 if the key was created or a register
 * changed, 0 otherwise. Each changed register counts in the dirty
 * counter. */
void pfaddCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    int updated = 0;
    if (o == NULL) {
        o = createObject(s, OBJ_STRING, hllCreate(s->mem));
        dbAdd(s, c->db, c->argv[1], o);
        updated++;
    } else {
        if (_isHLLObjectOrReply(c, o) != C_OK) return;
        o = dbUnshareStringValue(c, c->argv[1], o);
    }
    for (int j = 2; j < c->argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *ele = objectStrBytes(c->argv[j], buf, &len);
        sds hll = o->v.ptr;
        int r = hllAdd(s->mem, &hll, ele, len, _sparseMax(s));
        o->v.ptr = hll;
        if (r == -1) {
            /* A corrupted code can take the first elements and refuse a
             * later one. Redis 7.0 propagates nothing then, though the
             * value changed; I propagate the command, whose replay on
             * the same bytes changes them alike and fails alike. */
            if (updated) forceCommandPropagation(c);
            addReplyError(c, HLL_INVALID_ERR);
            return;
        }
        updated += r;
    }
    if (updated) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(s, NOTIFY_STRING, "pfadd", c->argv[1],
                            c->db->id);
        s->dirty += updated;
        hllCacheInvalidate(o->v.ptr);
    }
    addReplyLongLong(c, updated ? 1 : 0);
}

/* PFCOUNT of several keys: their registers merged one per byte, counted,
 * nothing written. A missing key is an empty HLL. */
static void _pfcountMany(client *c) {
    uint8_t *max = memCalloc(c->srv->mem, HLL_REGISTERS);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c, c->argv[j]);
        if (o == NULL) continue;
        if (_isHLLObjectOrReply(c, o) != C_OK) goto done;
        if (hllMerge(max, o->v.ptr) != C_OK) {
            addReplyError(c, HLL_INVALID_ERR);
            goto done;
        }
    }
    addReplyLongLong(c, (long long)hllCountRegisters(max));
done:
    memFree(c->srv->mem, max);
}

/* PFCOUNT key [key ...]: the estimated cardinality. For one key the
 * estimate is cached in the header: a stale cache is recomputed and
 * written back, which makes this read a write (the key is signalled,
 * dirty rises and PFCOUNT is propagated, as in Redis). */
void pfcountCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc > 2) { _pfcountMany(c); return; }
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (o == NULL) { addReplyLongLong(c, 0); return; }
    if (_isHLLObjectOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(c, c->argv[1], o);
    if (hllCacheValid(o->v.ptr)) {
        addReplyLongLong(c, (long long)hllCacheGet(o->v.ptr));
        return;
    }
    int invalid = 0;
    uint64_t card = hllCount(o->v.ptr, &invalid);
    if (invalid) { addReplyError(c, HLL_INVALID_ERR); return; }
    /* The value changes in place: tell whoever follows key changes. */
    if (s->keyhook) s->keyhook(s->keyhook_ctx, c->db, c->argv[1]->v.ptr);
    hllCacheSet(o->v.ptr, card);
    signalModifiedKey(c, c->db, c->argv[1]);
    s->dirty++;
    addReplyLongLong(c, (long long)card);
}

/* Merges the registers of the sources (argv[1] on, destkey among them)
 * into max. Returns C_ERR after replying; *dense says a source is
 * dense. */
static int _pfmergeSources(client *c, uint8_t *max, int *dense) {
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c, c->argv[j]);
        if (o == NULL) continue;
        if (_isHLLObjectOrReply(c, o) != C_OK) return C_ERR;
        if (hllEncoding(o->v.ptr) == HLL_DENSE) *dense = 1;
        if (hllMerge(max, o->v.ptr) != C_OK) {
            addReplyError(c, HLL_INVALID_ERR);
            return C_ERR;
        }
    }
    return C_OK;
}

/* PFMERGE destkey [sourcekey ...]: destkey becomes the union of itself
 * and the sources. It stays sparse unless a source is dense (or the
 * sparse code outgrows its limit). Always a write: +OK, "pfadd"
 * notified. */
void pfmergeCommand(client *c) {
    redisServer *s = c->srv;
    int dense = 0;
    uint8_t *max = memCalloc(s->mem, HLL_REGISTERS);
    if (_pfmergeSources(c, max, &dense) != C_OK) goto done;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (o == NULL) {
        o = createObject(s, OBJ_STRING, hllCreate(s->mem));
        dbAdd(s, c->db, c->argv[1], o);
    } else {
        o = dbUnshareStringValue(c, c->argv[1], o);
    }
    sds hll = o->v.ptr;
    if (dense && hllSparseToDense(s->mem, &hll) != C_OK) {
        addReplyError(c, HLL_INVALID_ERR);
        goto done;
    }
    for (long j = 0; j < HLL_REGISTERS; j++)
        if (max[j]) hllSet(s->mem, &hll, j, max[j], _sparseMax(s));
    o->v.ptr = hll;
    hllCacheInvalidate(hll);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(s, NOTIFY_STRING, "pfadd", c->argv[1], c->db->id);
    s->dirty++;
    addReplyOK(c);
done:
    memFree(s->mem, max);
}

/* PFDEBUG GETREG key: the 16384 registers (a sparse value turns dense,
 * a change that is propagated). */
static void _pfdebugGetreg(client *c, robj *o) {
    sds hll = o->v.ptr;
    if (hllEncoding(hll) == HLL_SPARSE) {
        if (hllSparseToDense(c->srv->mem, &hll) != C_OK) {
            addReplyError(c, HLL_INVALID_ERR);
            return;
        }
        o->v.ptr = hll;
        c->srv->dirty++;
    }
    const uint8_t *regs = (const uint8_t *)hll + HLL_HDR_SIZE;
    addReplyArrayLen(c, HLL_REGISTERS);
    for (long j = 0; j < HLL_REGISTERS; j++)
        addReplyLongLong(c, hllDenseGetRegister(regs, j));
}

/* PFDEBUG TODENSE key: 1 if a sparse value was converted, 0 if it was
 * dense already. */
static void _pfdebugTodense(client *c, robj *o) {
    sds hll = o->v.ptr;
    if (hllEncoding(hll) == HLL_DENSE) { addReplyLongLong(c, 0); return; }
    if (hllSparseToDense(c->srv->mem, &hll) != C_OK) {
        addReplyError(c, HLL_INVALID_ERR);
        return;
    }
    o->v.ptr = hll;
    c->srv->dirty++;
    addReplyLongLong(c, 1);
}

/* PFDEBUG GETREG|DECODE|ENCODING|TODENSE key: looks at (and may convert)
 * an HLL. The key is checked before the subcommand, as in Redis. */
void pfdebugCommand(client *c) {
    const char *cmd = c->argv[1]->v.ptr;
    robj *o = lookupKeyWrite(c, c->argv[2]);
    if (o == NULL) {
        addReplyError(c, "The specified key does not exist");
        return;
    }
    if (_isHLLObjectOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(c, c->argv[2], o);
    if (!strcasecmp(cmd, "getreg")) {
        _pfdebugGetreg(c, o);
    } else if (!strcasecmp(cmd, "decode")) {
        if (hllEncoding(o->v.ptr) != HLL_SPARSE) {
            addReplyError(c, "HLL encoding is not sparse");
            return;
        }
        addReplyBulkSds(c, hllSparseDecode(c->srv->mem, o->v.ptr));
    } else if (!strcasecmp(cmd, "encoding")) {
        addReplyStatus(c, hllEncoding(o->v.ptr) == HLL_DENSE ? "dense"
                                                             : "sparse");
    } else if (!strcasecmp(cmd, "todense")) {
        _pfdebugTodense(c, o);
    } else {
        addReplyErrorFormat(c, "Unknown PFDEBUG subcommand '%s'", cmd);
    }
}

/* ---- PFSELFTEST. ---- */

/* Every register of a dense array set to random values reads back, 1000
 * times over. Returns C_ERR after replying. */
static int _selftestRegisters(client *c, uint8_t *regs) {
    uint8_t *want = memAlloc(c->srv->mem, HLL_REGISTERS);
    int ok = 1;
    for (int round = 0; ok && round < 1000; round++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            want[i] = (uint8_t)(rngNext(c->srv->denv.rng) & HLL_REGISTER_MAX);
            hllDenseSetRegister(regs, i, want[i]);
        }
        for (long i = 0; ok && i < HLL_REGISTERS; i++) {
            unsigned v = hllDenseGetRegister(regs, i);
            if (v == want[i]) continue;
            addReplyErrorFormat(c, "TESTFAILED Register %ld should be %d "
                                "but is %u", i, want[i], v);
            ok = 0;
        }
    }
    memFree(c->srv->mem, want);
    return ok ? C_OK : C_ERR;
}

/* Checks one checkpoint of the estimator test: sparse still sparse while
 * small, sparse and dense agreeing, the error within 6 standard errors
 * (exact at 10). Returns C_ERR after replying. */
static int _selftestCheckpoint(client *c, sds dense, sds sparse,
                               long long n) {
    double relerr = 1.04 / sqrt(HLL_REGISTERS);
    if (n < c->srv->cfg.hll_sparse_max_bytes / 2 &&
        hllEncoding(sparse) != HLL_SPARSE) {
        addReplyError(c, "TESTFAILED sparse encoding not used");
        return C_ERR;
    }
    uint64_t card = hllCount(dense, NULL);
    if (card != hllCount(sparse, NULL)) {
        addReplyError(c, "TESTFAILED dense/sparse disagree");
        return C_ERR;
    }
    long long abserr = llabs(n - (long long)card);
    long long maxerr = n == 10 ? 1 : (long long)ceil(relerr * 6 * n);
    if (abserr > maxerr) {
        addReplyErrorFormat(c, "TESTFAILED Too big error. card:%lld "
                            "abserr:%lld", n, abserr);
        return C_ERR;
    }
    return C_OK;
}

/* PFSELFTEST: the register accessors, then ten million elements added
 * to a dense and a sparse HLL side by side, checked at 1, 10, 100 ...
 * elements. +OK, or a "TESTFAILED ..." error. */
void pfselftestCommand(client *c) {
    gkMem *m = c->srv->mem;
    sds dense = sdsnewlen(m, NULL, HLL_DENSE_SIZE);
    sds sparse = NULL;
    memcpy(dense, "HYLL", 4);
    uint8_t *regs = (uint8_t *)dense + HLL_HDR_SIZE;
    if (_selftestRegisters(c, regs) != C_OK) goto done;
    memset(regs, 0, HLL_DENSE_SIZE - HLL_HDR_SIZE);
    sparse = hllCreate(m);
    uint64_t seed = rngNext(c->srv->denv.rng);
    long long checkpoint = 1;
    for (long long j = 1; j <= 10000000; j++) {
        uint8_t ele[8];
        uint64_t v = (uint64_t)j ^ seed;
        memcpy(ele, &v, 8);
        hllAdd(m, &dense, ele, 8, _sparseMax(c->srv));
        hllAdd(m, &sparse, ele, 8, _sparseMax(c->srv));
        if (j != checkpoint) continue;
        if (_selftestCheckpoint(c, dense, sparse, j) != C_OK) goto done;
        checkpoint *= 10;
    }
    addReplyOK(c);
done:
    sdsfree(m, dense);
    if (sparse) sdsfree(m, sparse);
}
