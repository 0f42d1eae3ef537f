/* siphash.h -- SipHash-1-2, the keyed hash Redis 7.0 uses for its dicts. */
#ifndef GK_SIPHASH_H
#define GK_SIPHASH_H
#include <stddef.h>
#include <stdint.h>

uint64_t siphash(const uint8_t *in, size_t inlen, const uint8_t *k);
uint64_t siphash_nocase(const uint8_t *in, size_t inlen, const uint8_t *k);

#endif
