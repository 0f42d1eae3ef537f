/* sha1.c -- SHA-1 as FIPS 180-4 defines it: 512-bit blocks, 80 rounds
 * over five 32-bit words, the message padded with a 1 bit, zeros and its
 * length in bits, big-endian throughout. */
#include <string.h>
#include "sha1.h"

#define ROL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

/* Folds one 64-byte block into the state. */
static void _sha1Block(uint32_t h[5], const unsigned char *p) {
    uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = ROL32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
        else if (t < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
        else if (t < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
        else { f = b ^ c ^ d; k = 0xCA62C1D6; }
        uint32_t tmp = ROL32(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = ROL32(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void sha1Init(sha1Ctx *ctx) {
    static const uint32_t iv[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE,
                                    0x10325476, 0xC3D2E1F0 };
    memcpy(ctx->h, iv, sizeof(iv));
    ctx->bytes = 0;
    ctx->used = 0;
}

void sha1Update(sha1Ctx *ctx, const void *data, size_t len) {
    const unsigned char *p = data;
    ctx->bytes += len;
    while (len > 0) {
        size_t n = 64 - ctx->used;
        if (n > len) n = len;
        memcpy(ctx->block + ctx->used, p, n);
        ctx->used += n;
        p += n;
        len -= n;
        if (ctx->used == 64) {
            _sha1Block(ctx->h, ctx->block);
            ctx->used = 0;
        }
    }
}

/* Pads, folds the last block(s) and writes the 20-byte digest. */
void sha1Final(sha1Ctx *ctx, unsigned char out[SHA1_DIGEST_LEN]) {
    uint64_t bits = ctx->bytes * 8;
    unsigned char pad = 0x80, zero = 0, len[8];
    sha1Update(ctx, &pad, 1);
    while (ctx->used != 56) sha1Update(ctx, &zero, 1);
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1Update(ctx, len, 8);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(ctx->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(ctx->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(ctx->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)ctx->h[i];
    }
}
