/* exportkit.h -- the conversions every wasm export layer makes.
 *
 * exports.c, aofexports.c and mcexports.c all cross the same boundary:
 * this Emscripten (without BigInt integration) would split a 64-bit value
 * into two 32-bit halves, so 64-bit values cross as doubles, structs as
 * flat arrays of doubles, and strings inside structs as NUL-terminated
 * copies in a caller's buffer. The helpers are static inline so each layer
 * stays one translation unit with nothing exported but its gkw* calls. */
#ifndef GK_EXPORTKIT_H
#define GK_EXPORTKIT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A double from JavaScript as a uint64, clamping what does not fit: NaN
 * and negatives become 0, values past the range become UINT64_MAX. */
static inline uint64_t gkwU64(double v) {
    if (!(v > 0)) return 0;
    if (v >= 18446744073709551616.0) return UINT64_MAX;
    return (uint64_t)v;
}

/* A double from JavaScript as a uint32, clamped as gkwU64 clamps. */
static inline uint32_t gkwU32(double v) {
    uint64_t u = gkwU64(v);
    return u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
}

/* A uint64 seed from the two 32-bit halves JavaScript passes, so every
 * seed is reachable. */
static inline uint64_t gkwSeed(uint32_t hi, uint32_t lo) {
    return ((uint64_t)hi << 32) | lo;
}

/* Copies n uint64 values into out as doubles; a value above 2^53 loses
 * its low bits. */
static inline void gkwDoubles(const uint64_t *v, size_t n, double *out) {
    for (size_t i = 0; i < n; i++) out[i] = (double)v[i];
}

/* Copies a fixed-size name field of size bytes into out and ends it with a
 * NUL, so a name that filled its field still reads as a C string. */
static inline void gkwName(char *out, const char *name, size_t size) {
    memcpy(out, name, size);
    out[size - 1] = '\0';
}

#endif
