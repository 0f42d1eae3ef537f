/* sha1.h -- SHA-1 (FIPS 180-4), for DEBUG DIGEST and DEBUG DIGEST-VALUE,
 * whose replies are defined as SHA-1 mixes of a dataset's contents. Not
 * for anything that needs a secure hash. */
#ifndef GK_SHA1_H
#define GK_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_LEN 20

typedef struct sha1Ctx {
    uint32_t h[5];              /* the chaining state */
    uint64_t bytes;             /* message length so far */
    unsigned char block[64];    /* a partial block */
    size_t used;                /* bytes of block filled */
} sha1Ctx;

void sha1Init(sha1Ctx *ctx);
void sha1Update(sha1Ctx *ctx, const void *data, size_t len);
void sha1Final(sha1Ctx *ctx, unsigned char out[SHA1_DIGEST_LEN]);

#endif
