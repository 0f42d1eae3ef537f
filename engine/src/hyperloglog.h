/* hyperloglog.h -- Redis 7.0's HyperLogLog: the representation stored in
 * a string value, and the operations PFADD, PFCOUNT and PFMERGE build on.
 *
 * A value is a 16-byte header followed by the registers:
 *
 *   +------+---+-----+----------+--------------------------------+
 *   | HYLL | E | N/U | Cardin.  | registers                      |
 *   +------+---+-----+----------+--------------------------------+
 *     4     1    3     8 bytes
 *
 * E is the encoding (0 dense, 1 sparse), N/U three zero bytes, and the
 * cardinality the last PFCOUNT computed, little endian, whose top bit
 * says the cache is stale. Dense: 16384 registers of 6 bits, 12288 bytes.
 * Sparse: a run-length code of the registers (see hyperloglog.c). */
#ifndef GK_HYPERLOGLOG_H
#define GK_HYPERLOGLOG_H

#include <stdint.h>
#include <stddef.h>
#include "mem.h"
#include "sds.h"

#define HLL_P 14                        /* index bits of the hash */
#define HLL_Q (64 - HLL_P)              /* bits left for the zero run */
#define HLL_REGISTERS (1 << HLL_P)      /* 16384 */
#define HLL_P_MASK (HLL_REGISTERS - 1)
#define HLL_BITS 6                      /* a register counts up to 63 */
#define HLL_REGISTER_MAX ((1 << HLL_BITS) - 1)
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)
#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_MAX_ENCODING 1
#define HLL_HASH_SEED 0xadc83b19ULL

/* The sparse code's limits: a VAL opcode holds a value of 1..32 for 1..4
 * registers, ZERO a run of 1..64 zero registers, XZERO 1..16384. */
#define HLL_SPARSE_VAL_MAX_VALUE 32
#define HLL_SPARSE_VAL_MAX_LEN 4
#define HLL_SPARSE_ZERO_MAX_LEN 64
#define HLL_SPARSE_XZERO_MAX_LEN 16384
#define HLL_SPARSE_MAX_BYTES_DEFAULT 3000   /* hll-sparse-max-bytes */

#define HLL_INVALID_ERR "-INVALIDOBJ Corrupted HLL object detected"
#define HLL_WRONGTYPE_ERR \
    "-WRONGTYPE Key is not a valid HyperLogLog string value."

uint64_t hllMurmurHash64A(const void *key, size_t len, uint64_t seed);
int hllPatLen(const void *ele, size_t len, long *regp);
sds hllCreate(gkMem *m);
int hllIsValid(const unsigned char *p, size_t len);
int hllEncoding(const sds hll);
unsigned hllDenseGetRegister(const uint8_t *regs, long idx);
void hllDenseSetRegister(uint8_t *regs, long idx, unsigned val);
int hllSparseToDense(gkMem *m, sds *hll);
int hllSet(gkMem *m, sds *hll, long idx, uint8_t count, size_t sparse_max);
int hllAdd(gkMem *m, sds *hll, const void *ele, size_t len,
           size_t sparse_max);
int hllMerge(uint8_t *max, const sds hll);
uint64_t hllCount(const sds hll, int *invalid);
uint64_t hllCountRegisters(const uint8_t *max);
int hllCacheValid(const sds hll);
uint64_t hllCacheGet(const sds hll);
void hllCacheSet(sds hll, uint64_t card);
void hllCacheInvalidate(sds hll);
sds hllSparseDecode(gkMem *m, const sds hll);

#endif
