/* siphash.c -- SipHash with one compression round and two finalization
 * rounds (SipHash-1-2), keyed by a 16-byte seed.
 *
 * Redis picks 1-2 rather than the textbook 2-4: the dict only needs
 * resistance to hash flooding from clients who cannot see the seed, and
 * fewer rounds make every lookup cheaper. The nocase variant folds ASCII
 * A-Z to lower case before mixing, for case-insensitive tables such as the
 * command table. */
#include "siphash.h"

static inline uint64_t _rotl(uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

static inline uint64_t _load64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

typedef struct sipState { uint64_t v0, v1, v2, v3; } sipState;

static inline void _round(sipState *s) {
    s->v0 += s->v1; s->v1 = _rotl(s->v1, 13); s->v1 ^= s->v0;
    s->v0 = _rotl(s->v0, 32);
    s->v2 += s->v3; s->v3 = _rotl(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = _rotl(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = _rotl(s->v1, 17); s->v1 ^= s->v2;
    s->v2 = _rotl(s->v2, 32);
}

static inline void _compress(sipState *s, uint64_t m) {
    s->v3 ^= m;
    _round(s);              /* c = 1 */
    s->v0 ^= m;
}

static inline uint8_t _fold(uint8_t c) {
    return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + ('a' - 'A')) : c;
}

static uint64_t _siphash(const uint8_t *in, size_t len, const uint8_t *k,
                         int nocase) {
    uint64_t k0 = _load64(k), k1 = _load64(k + 8);
    sipState s = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                   k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
    size_t full = len - (len % 8);
    uint8_t block[8];
    for (size_t i = 0; i < full; i += 8) {
        if (nocase) {
            for (int j = 0; j < 8; j++) block[j] = _fold(in[i + j]);
            _compress(&s, _load64(block));
        } else {
            _compress(&s, _load64(in + i));
        }
    }
    uint64_t last = (uint64_t)len << 56;
    for (size_t j = 0; j < len % 8; j++) {
        uint8_t c = nocase ? _fold(in[full + j]) : in[full + j];
        last |= (uint64_t)c << (8 * j);
    }
    _compress(&s, last);
    s.v2 ^= 0xff;
    _round(&s);             /* d = 2 */
    _round(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

/* SipHash-1-2 of inlen bytes at in, keyed by the 16 bytes at k. */
uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k) {
    return _siphash(in, inlen, k, 0);
}

/* As siphash with ASCII A-Z folded to lower case, so strings that differ
 * only in case hash alike. */
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k) {
    return _siphash(in, inlen, k, 1);
}
