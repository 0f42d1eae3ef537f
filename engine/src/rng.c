/* rng.c -- see rng.h. */
#include "rng.h"

static uint64_t _splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Seeds the xoshiro256** state from seed through splitmix64, so any seed,
 * 0 included, gives a well-mixed state. Same seed, same sequence. */
void rngSeed(gkRng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = _splitmix(&seed);
}

static inline uint64_t _rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits (xoshiro256**). */
uint64_t rngNext(gkRng *r) {
    uint64_t *s = r->s;
    uint64_t result = _rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = _rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) without modulo bias; 0 when n is 0. */
uint64_t rngBelow(gkRng *r, uint64_t n) {
    if (n == 0) return 0;
    uint64_t limit = (uint64_t)-1 - ((uint64_t)-1 % n);
    uint64_t x;
    do { x = rngNext(r); } while (x >= limit);
    return x % n;
}

/* Uniform in [0, 1). */
double rngDouble(gkRng *r) {
    return (double)(rngNext(r) >> 11) * (1.0 / 9007199254740992.0);
}
