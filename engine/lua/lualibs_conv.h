/* lualibs_conv.h -- number conversions shared by struct and cmsgpack.
 *
 * Lua 5.1 numbers are doubles. Where Redis's libraries turn one into a
 * 64-bit integer they use a plain C cast, which the C standard leaves
 * undefined for NaN and for values out of range. Redis 7.0 runs on x86-64,
 * where the cast compiles to the CVTTSD2SI instruction: it truncates toward
 * zero and, when the result does not fit, yields 0x8000000000000000 (the
 * "integer indefinite" value). The cast to an unsigned 64-bit integer is
 * compiled as two signed ones: values below 2^63 (and NaN) convert
 * directly; the others convert after subtracting 2^63 and get the top bit
 * back, so anything at or past 2^64 ends up 0.
 *
 * These helpers compute the same results with defined behaviour on every
 * host, so a script sees the numbers it sees in Redis whether this code
 * runs natively or in 32-bit WebAssembly (where lua_Integer is 32 bits
 * wide, which is also why no result goes through lua_pushinteger). */
#ifndef GK_LUALIBS_CONV_H
#define GK_LUALIBS_CONV_H

#include <stdint.h>

#define LUACONV_TWO63 9223372036854775808.0  /* 2^63 */

/* The signed conversion: trunc(d) when it fits in int64_t, else INT64_MIN
 * (NaN included). */
static inline int64_t luaconvToInt64(double d) {
    if (d >= -LUACONV_TWO63 && d < LUACONV_TWO63) return (int64_t)d;
    return INT64_MIN;
}

/* The unsigned conversion, as the two-step sequence described above. */
static inline uint64_t luaconvToUint64(double d) {
    if (!(d >= LUACONV_TWO63)) return (uint64_t)luaconvToInt64(d);
    return (uint64_t)luaconvToInt64(d - LUACONV_TWO63) ^ ((uint64_t)1 << 63);
}

/* Reads 64 bits as two's complement, without an implementation-defined
 * conversion. */
static inline int64_t luaconvSigned(uint64_t u) {
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* Keeps the low 32 bits as a signed int, as a cast to int does on the
 * hosts Redis runs on (used where Redis prints a 64-bit value with %d). */
static inline int luaconvLow32(int64_t v) {
    uint32_t u = (uint32_t)(uint64_t)v;
    return u <= INT32_MAX ? (int)u : -(int)~u - 1;
}

#endif
