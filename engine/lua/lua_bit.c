/* lua_bit.c -- the "bit" library: 32-bit integer operations for scripts.
 *
 * Lua 5.1 has only double numbers, so every function first turns its
 * arguments into 32-bit integers, operates on them as unsigned words, and
 * returns the result as a signed 32-bit value (so bit.bnot(0) is -1, not
 * 4294967295). Behaviour matches LuaBitOp 1.0.2 as bundled with Redis 7.0.
 *
 * Turning a double into 32 bits. I add 2^52 + 2^51 to the number. Every
 * double in [2^52, 2^53) has an exponent that makes the unit in the last
 * place exactly 1, so the addition rounds the number to an integer (to
 * nearest, ties to even: 2.5 becomes 2, 3.5 becomes 4) and leaves that
 * integer, plus a constant, in the low bits of the mantissa. The low 32 bits
 * of the double's bit pattern are then the integer modulo 2^32, negative
 * numbers included, because the extra 2^51 keeps the sum in that binade for
 * every |n| below 2^51. Larger numbers still give a definite answer (the
 * addition just rounds more coarsely), and NaN and the infinities give 0.
 * This is the exact conversion scripts observe in Redis, which is why I do
 * it this way rather than with fmod. */
#include <stdint.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualibs.h"

#define BIT_ROUNDER 6755399441055744.0  /* 2^52 + 2^51 */

/* Returns argument idx as a 32-bit word. Strings that look like numbers are
 * accepted, as everywhere in Lua 5.1; anything else raises "number
 * expected". */
static uint32_t _bitArg(lua_State *L, int idx) {
    double d = (double)lua_tonumber(L, idx) + BIT_ROUNDER;
    uint64_t pattern;
    uint32_t word;

    memcpy(&pattern, &d, sizeof(pattern));
    word = (uint32_t)pattern;
    /* lua_tonumber gives 0 for a non-number, which converts to 0: only then
     * is it worth asking whether the argument was a number at all. */
    if (word == 0 && !lua_isnumber(L, idx)) luaL_typerror(L, idx, "number");
    return word;
}

/* Pushes a word as the signed 32-bit number it stands for. */
static int _bitReturn(lua_State *L, uint32_t word) {
    double v = word <= INT32_MAX ? (double)word : (double)word - 4294967296.0;
    lua_pushnumber(L, (lua_Number)v);
    return 1;
}

static int _bitToBit(lua_State *L) {
    return _bitReturn(L, _bitArg(L, 1));
}

static int _bitNot(lua_State *L) {
    return _bitReturn(L, ~_bitArg(L, 1));
}

/* band, bor and bxor take one or more arguments. The first is converted
 * first and the others from the last one backwards, so with two bad
 * arguments after the first the error names the later one, as in Redis. */
enum bitFold { BIT_AND, BIT_OR, BIT_XOR };

static int _bitFold(lua_State *L, enum bitFold op) {
    uint32_t acc = _bitArg(L, 1);

    for (int i = lua_gettop(L); i >= 2; i--) {
        uint32_t w = _bitArg(L, i);
        if (op == BIT_AND) acc &= w;
        else if (op == BIT_OR) acc |= w;
        else acc ^= w;
    }
    return _bitReturn(L, acc);
}

static int _bitAnd(lua_State *L) { return _bitFold(L, BIT_AND); }
static int _bitOr(lua_State *L) { return _bitFold(L, BIT_OR); }
static int _bitXor(lua_State *L) { return _bitFold(L, BIT_XOR); }

/* Shifts and rotations use only the low five bits of the count, so a count
 * of 33 shifts by 1 and a count of -1 by 31. */
enum bitShift { BIT_SHL, BIT_SHR, BIT_SAR, BIT_ROL, BIT_ROR };

static int _bitShift(lua_State *L, enum bitShift op) {
    uint32_t w = _bitArg(L, 1);
    unsigned n = _bitArg(L, 2) & 31;
    uint32_t r;

    switch (op) {
    case BIT_SHL: r = w << n; break;
    case BIT_SHR: r = w >> n; break;
    case BIT_SAR:
        /* Arithmetic shift: a negative word keeps its sign bits. Shifting
         * the complement and complementing back avoids shifting a negative
         * signed value, whose result C leaves to the implementation. */
        r = (w & 0x80000000u) ? ~(~w >> n) : w >> n;
        break;
    case BIT_ROL: r = n ? (w << n) | (w >> (32 - n)) : w; break;
    default: r = n ? (w >> n) | (w << (32 - n)) : w; break;
    }
    return _bitReturn(L, r);
}

static int _bitLshift(lua_State *L) { return _bitShift(L, BIT_SHL); }
static int _bitRshift(lua_State *L) { return _bitShift(L, BIT_SHR); }
static int _bitArshift(lua_State *L) { return _bitShift(L, BIT_SAR); }
static int _bitRol(lua_State *L) { return _bitShift(L, BIT_ROL); }
static int _bitRor(lua_State *L) { return _bitShift(L, BIT_ROR); }

static int _bitBswap(lua_State *L) {
    uint32_t w = _bitArg(L, 1);
    uint32_t r = (w >> 24) | ((w >> 8) & 0xff00u) |
                 ((w & 0xff00u) << 8) | (w << 24);
    return _bitReturn(L, r);
}

/* bit.tohex(x [, n]): the low |n| hex digits of x (n defaults to 8 and is
 * capped at 8), upper case when n is negative. n = 0 gives "". The width
 * goes through the same 32-bit conversion as x, so -2^31 (whose magnitude
 * does not fit in 32 signed bits) means eight upper-case digits. */
static int _bitToHex(lua_State *L) {
    static const char lower[] = "0123456789abcdef";
    static const char upper[] = "0123456789ABCDEF";
    uint32_t w = _bitArg(L, 1);
    int64_t width = 8;
    const char *digits = lower;
    char out[8];

    if (!lua_isnone(L, 2)) {
        uint32_t raw = _bitArg(L, 2);
        width = raw <= INT32_MAX ? (int64_t)raw : (int64_t)raw - 4294967296;
    }
    if (width < 0) {
        width = -width;
        digits = upper;
    }
    if (width > 8) width = 8;
    for (int64_t i = width - 1; i >= 0; i--) {
        out[i] = digits[w & 15];
        w >>= 4;
    }
    lua_pushlstring(L, out, (size_t)width);
    return 1;
}

/* Registered in LuaBitOp's order: the order in which names go into the
 * table decides the order pairs() visits them in. */
static const luaL_Reg bitFunctions[] = {
    {"tobit", _bitToBit},
    {"bnot", _bitNot},
    {"band", _bitAnd},
    {"bor", _bitOr},
    {"bxor", _bitXor},
    {"lshift", _bitLshift},
    {"rshift", _bitRshift},
    {"arshift", _bitArshift},
    {"rol", _bitRol},
    {"ror", _bitRor},
    {"bswap", _bitBswap},
    {"tohex", _bitToHex},
    {NULL, NULL}
};

/* Creates the global table "bit" (also recorded in the registry's _LOADED,
 * as luaL_register does) and leaves it on the stack. */
int luaopen_bit(lua_State *L) {
    luaL_register(L, "bit", bitFunctions);
    return 1;
}
