/* exportkit.h -- the conversions the generated wrappers make.
 *
 * This Emscripten (without BigInt integration) would split a 64-bit
 * argument into two 32-bit halves, so the wrappers wasm/seam.mjs generates
 * for the calls of glasskv.h that take 64-bit integers receive them as
 * doubles (a seed as its two halves, so every seed is reachable). Virtual
 * time in nanoseconds stays exact in a double for 104 days of simulated
 * time, sequence numbers and byte counts far longer. */
#ifndef GK_EXPORTKIT_H
#define GK_EXPORTKIT_H

#include <stdint.h>

/* A double from JavaScript as a uint64, clamping what does not fit: NaN
 * and negatives become 0, values past the range become UINT64_MAX. */
static inline uint64_t gkwU64(double v) {
    if (!(v > 0)) return 0;
    if (v >= 18446744073709551616.0) return UINT64_MAX;
    return (uint64_t)v;
}

/* A double from JavaScript as an int64, clamped to the range; NaN is 0. */
static inline int64_t gkwI64(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775808.0) return INT64_MAX;
    if (v < -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

/* A uint64 seed from the two 32-bit halves JavaScript passes. */
static inline uint64_t gkwSeed(uint32_t hi, uint32_t lo) {
    return ((uint64_t)hi << 32) | lo;
}

#endif
