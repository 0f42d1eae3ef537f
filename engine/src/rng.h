/* rng.h -- the world's seeded PRNG (xoshiro256**, seeded by splitmix64).
 * Every random choice in the engine draws from one of these, so a world is
 * reproducible from its seed. */
#ifndef GK_RNG_H
#define GK_RNG_H
#include <stdint.h>

typedef struct gkRng { uint64_t s[4]; } gkRng;

void rngSeed(gkRng *r, uint64_t seed);
uint64_t rngNext(gkRng *r);
uint64_t rngBelow(gkRng *r, uint64_t n);
double rngDouble(gkRng *r);

#endif
