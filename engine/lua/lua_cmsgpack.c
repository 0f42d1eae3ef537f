/* lua_cmsgpack.c -- the "cmsgpack" library: MessagePack for scripts.
 *
 *   cmsgpack.pack(v1, v2, ...)                   -> the values, encoded
 *                                                   one after the other
 *   cmsgpack.unpack(s)                           -> every value in s
 *   cmsgpack.unpack_one(s [, offset])            -> next offset, 1 value
 *   cmsgpack.unpack_limit(s, limit [, offset])   -> next offset, <= limit
 *                                                   values
 *
 * Offsets are 0-based byte positions; the offset returned is where the
 * next value starts, or -1 once s is used up. Behaviour matches
 * lua-cmsgpack 0.4.0 as bundled with Redis 7.0.
 *
 * How Lua values are encoded:
 *
 * - A number that is a whole number in [-2^63, 2^63) (-0 included) is an
 *   integer, in the shortest form: positive fixint 0..127, uint8/16/32/64
 *   (0xcc-0xcf) above that, negative fixint -32..-1, int8/16/32/64
 *   (0xd0-0xd3) below. Any other number is a float32 (0xca) when the
 *   conversion to float and back gives the same number (0.5 and the
 *   infinities do, 0.1 does not), else a float64 (0xcb); NaN is always a
 *   float64.
 * - A string is a fixstr under 32 bytes, then str8 (0xd9), str16 (0xda)
 *   and str32 (0xdb). Strings are never encoded as bin types.
 * - true and false are 0xc3 and 0xc2. nil, functions, coroutines and
 *   userdata are all nil (0xc0).
 * - A table is an array when its keys are exactly the integers 1..n (the
 *   empty table included), else a map whose pairs come in the order next()
 *   visits them. Tables nested 16 deep are cut: a table found at depth 16
 *   (the argument itself being depth 0) is encoded as nil, which also ends
 *   the recursion on a table that contains itself.
 *
 * Decoding understands nil, booleans, every integer and float form, the
 * fixstr/str8/str16/str32 strings and the array and map forms; bin, ext
 * and the reserved byte 0xc1 are "Bad data format in input.". Integers
 * come back as Lua numbers (uint64 values past 2^63 wrap to negative, as
 * in Redis). Arrays become tables with keys 1..n; a map whose key decodes
 * to nil or NaN raises Lua's own "table index is nil/NaN".
 *
 * Stack use. Decoded values stay on the Lua stack until they are returned,
 * and nested containers each keep their table (and the pending key) there
 * while their elements are decoded, so the number of values and the
 * nesting depth are bounded by the 8000 slots a C function may use. The
 * library checks the stack at the same points as Redis's, with the same
 * messages, so a script that goes too far gets the very same error. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualibs.h"
#include "lualibs_conv.h"

#define MP_MAX_NESTING 16 /* a table at this depth is encoded as nil */

/* The texts of the stack checks, as scripts see them in Redis. */
#define MP_MSG_TOO_MANY \
    "too many return values at once; use unpack_one or unpack_limit instead."
#define MP_MSG_PACK_ARG "in function mp_check"
#define MP_MSG_IS_ARRAY "in function table_is_an_array"
#define MP_MSG_AS_ARRAY "in function mp_encode_lua_table_as_array"
#define MP_MSG_AS_MAP "in function mp_encode_lua_table_as_map"
#define MP_MSG_DECODE_ARRAY "in function mp_decode_to_lua_array"
#define MP_MSG_UNPACK "in function mp_unpack_full"

/* ----------------------------- Encoding -------------------------------- */

/* A growable byte buffer, in memory from the Lua state's allocator. */
typedef struct mpBuffer {
    lua_State *L;
    unsigned char *bytes; /* NULL until the first append */
    size_t len;           /* bytes used */
    size_t cap;           /* bytes allocated */
} mpBuffer;

static void *_mpAlloc(lua_State *L, void *p, size_t osize, size_t nsize) {
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    return alloc(ud, p, osize, nsize);
}

/* Gives the buffer's memory back to the allocator. */
static void _mpRelease(mpBuffer *b) {
    _mpAlloc(b->L, b->bytes, b->cap, 0);
    b->bytes = NULL;
    b->len = b->cap = 0;
}

/* Makes room for n more stack slots, or releases the buffer and raises
 * "stack overflow (msg)", as luaL_checkstack would without the release. */
static void _mpCheckStack(mpBuffer *b, int n, const char *msg) {
    if (!lua_checkstack(b->L, n)) {
        _mpRelease(b);
        luaL_error(b->L, "stack overflow (%s)", msg);
    }
}

/* Appends n bytes; on allocation failure releases the buffer and raises a
 * memory error. */
static void _mpAppend(mpBuffer *b, const void *src, size_t n) {
    if (b->cap - b->len < n) {
        size_t want = b->len + n;
        size_t cap = b->cap ? b->cap : 64;
        void *p = NULL;
        while (cap < want && cap <= SIZE_MAX / 2) cap *= 2;
        if (want >= b->len && cap >= want)
            p = _mpAlloc(b->L, b->bytes, b->cap, cap);
        if (p == NULL) {
            _mpRelease(b);
            lua_pushliteral(b->L, "not enough memory");
            lua_error(b->L);
        }
        b->bytes = p;
        b->cap = cap;
    }
    memcpy(b->bytes + b->len, src, n);
    b->len += n;
}

/* Appends a type byte followed by the low `width` bytes of v, big-endian
 * as MessagePack wants. */
static void _mpAppendTagged(mpBuffer *b, unsigned char tag, uint64_t v,
                            int width) {
    unsigned char out[9];

    out[0] = tag;
    for (int i = 0; i < width; i++)
        out[1 + i] = (unsigned char)(v >> (8 * (width - 1 - i)));
    _mpAppend(b, out, (size_t)width + 1);
}

static void _mpEncodeInteger(mpBuffer *b, int64_t n) {
    uint64_t u = (uint64_t)n; /* two's complement bits, for the payload */

    if (n >= 0) {
        if (n <= 127) _mpAppendTagged(b, (unsigned char)n, 0, 0);
        else if (n <= UINT8_MAX) _mpAppendTagged(b, 0xcc, u, 1);
        else if (n <= UINT16_MAX) _mpAppendTagged(b, 0xcd, u, 2);
        else if (n <= UINT32_MAX) _mpAppendTagged(b, 0xce, u, 4);
        else _mpAppendTagged(b, 0xcf, u, 8);
    } else {
        if (n >= -32) _mpAppendTagged(b, (unsigned char)(u & 0xff), 0, 0);
        else if (n >= INT8_MIN) _mpAppendTagged(b, 0xd0, u, 1);
        else if (n >= INT16_MIN) _mpAppendTagged(b, 0xd1, u, 2);
        else if (n >= INT32_MIN) _mpAppendTagged(b, 0xd2, u, 4);
        else _mpAppendTagged(b, 0xd3, u, 8);
    }
}

/* Returns 1 when d converts to float and back unchanged. Finite values
 * past FLT_MAX would become infinite, so they never do; infinities do. */
static int _mpFitsFloat(double d) {
    if (isinf(d)) return 1;
    if (isnan(d) || fabs(d) > FLT_MAX) return 0;
    return (double)(float)d == d;
}

static void _mpEncodeNumber(mpBuffer *b, double d) {
    if (isfinite(d) && d == floor(d) && d >= -LUACONV_TWO63 &&
        d < LUACONV_TWO63) {
        _mpEncodeInteger(b, (int64_t)d);
    } else if (_mpFitsFloat(d)) {
        float f = (float)d;
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        _mpAppendTagged(b, 0xca, bits, 4);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, sizeof(bits));
        _mpAppendTagged(b, 0xcb, bits, 8);
    }
}

static void _mpEncodeString(mpBuffer *b, const char *s, size_t len) {
    if (len < 32) _mpAppendTagged(b, (unsigned char)(0xa0 | len), 0, 0);
    else if (len <= UINT8_MAX) _mpAppendTagged(b, 0xd9, len, 1);
    else if (len <= UINT16_MAX) _mpAppendTagged(b, 0xda, len, 2);
    else _mpAppendTagged(b, 0xdb, len, 4);
    _mpAppend(b, s, len);
}

/* Writes the header of an array (isMap 0) or map of n elements. Counts
 * past 32 bits keep their low 32 bits, which no Lua table reaches. */
static void _mpEncodeHeader(mpBuffer *b, uint64_t n, int isMap) {
    if (n <= 15)
        _mpAppendTagged(b, (unsigned char)((isMap ? 0x80 : 0x90) | n), 0, 0);
    else if (n <= UINT16_MAX)
        _mpAppendTagged(b, isMap ? 0xde : 0xdc, n, 2);
    else
        _mpAppendTagged(b, isMap ? 0xdf : 0xdd, n, 4);
}

/* Returns n > 0 when the table on top of the stack has exactly the keys
 * 1..n, 0 when it is empty, -1 when it is not an array. A key counts as
 * an index when it is a whole number from 1 to INT_MAX. */
static int64_t _mpArrayLength(mpBuffer *b) {
    lua_State *L = b->L;
    int64_t count = 0, max = 0;
    int isArray = 1;

    _mpCheckStack(b, 2, MP_MSG_IS_ARRAY);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        double k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        if (!(k >= 1 && k <= INT_MAX && k == floor(k))) {
            isArray = 0;
            lua_pop(L, 1);
            break;
        }
        if ((int64_t)k > max) max = (int64_t)k;
        count++;
    }
    return isArray && max == count ? count : -1;
}

static void _mpEncodeValue(mpBuffer *b, int depth);

/* Encodes the table on top of the stack (left there) and its contents. */
static void _mpEncodeTable(mpBuffer *b, int depth) {
    lua_State *L = b->L;
    int64_t n = _mpArrayLength(b);

    if (n >= 0) {
        _mpEncodeHeader(b, (uint64_t)n, 0);
        _mpCheckStack(b, 1, MP_MSG_AS_ARRAY);
        for (int64_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (int)i);
            _mpEncodeValue(b, depth + 1);
        }
        return;
    }

    /* A map: next() gives no count, so I walk the table twice. */
    uint64_t pairs = 0;
    _mpCheckStack(b, 3, MP_MSG_AS_MAP);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        pairs++;
    }
    _mpEncodeHeader(b, pairs, 1);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        _mpEncodeValue(b, depth + 1); /* the key's copy */
        _mpEncodeValue(b, depth + 1); /* the value */
    }
}

/* Encodes the value on top of the stack and pops it. */
static void _mpEncodeValue(mpBuffer *b, int depth) {
    lua_State *L = b->L;
    static const unsigned char nil = 0xc0, no = 0xc2, yes = 0xc3;

    switch (lua_type(L, -1)) {
    case LUA_TNUMBER:
        _mpEncodeNumber(b, (double)lua_tonumber(L, -1));
        break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        _mpEncodeString(b, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        _mpAppend(b, lua_toboolean(L, -1) ? &yes : &no, 1);
        break;
    case LUA_TTABLE:
        if (depth < MP_MAX_NESTING) _mpEncodeTable(b, depth);
        else _mpAppend(b, &nil, 1); /* too deep */
        break;
    default:
        _mpAppend(b, &nil, 1);
        break;
    }
    lua_pop(L, 1);
}

/* cmsgpack.pack(...): each argument encoded in turn. Each encoding is
 * pushed as a string and the pieces joined at the end, so the arguments
 * and their pieces must fit the stack together: more than about 4000
 * arguments are refused, as in Redis. */
static int _mpPack(lua_State *L) {
    int nargs = lua_gettop(L);
    mpBuffer b = {L, NULL, 0, 0};

    if (nargs == 0)
        return luaL_argerror(L, 0, "MessagePack pack needs input.");
    if (!lua_checkstack(L, nargs))
        return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
    for (int i = 1; i <= nargs; i++) {
        _mpCheckStack(&b, 1, MP_MSG_PACK_ARG);
        lua_pushvalue(L, i);
        _mpEncodeValue(&b, 0);
        lua_pushlstring(L, (const char *)b.bytes, b.len);
        b.len = 0;
    }
    _mpRelease(&b);
    lua_concat(L, nargs);
    return 1;
}

/* ----------------------------- Decoding -------------------------------- */

enum { MP_OK = 0, MP_TRUNCATED, MP_BAD_FORMAT };

/* The part of the input not decoded yet. */
typedef struct mpReader {
    const unsigned char *p; /* next byte */
    size_t left;            /* bytes from p to the end of the input */
    int err;                /* MP_OK, or why decoding stopped */
} mpReader;

/* Returns the big-endian unsigned integer in the `width` bytes at p. */
static uint64_t _mpLoad(const unsigned char *p, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; i++) v = (v << 8) | p[i];
    return v;
}

/* Consumes a type byte and `width` bytes of payload, returned in *v.
 * Returns 0 (and flags the reader) if the input ends first. */
static int _mpTake(mpReader *r, int width, uint64_t *v) {
    if (r->left < (size_t)width + 1) {
        r->err = MP_TRUNCATED;
        return 0;
    }
    *v = _mpLoad(r->p + 1, width);
    r->p += width + 1;
    r->left -= (size_t)width + 1;
    return 1;
}

/* Reads the low `bits` bits of v (bits < 64) as two's complement. */
static int64_t _mpSignExtend(uint64_t v, int bits) {
    int64_t n = (int64_t)v;
    return v >> (bits - 1) ? n - ((int64_t)1 << bits) : n;
}

/* Pushes a 64-bit integer as a Lua number. */
static void _mpPushInt(lua_State *L, int64_t v) {
    lua_pushnumber(L, (lua_Number)v);
}

static void _mpDecodeValue(lua_State *L, mpReader *r);

/* Pushes a string of len bytes found right after the header just taken. */
static void _mpDecodeString(lua_State *L, mpReader *r, uint64_t len) {
    if (r->left < len) {
        r->err = MP_TRUNCATED;
        return;
    }
    lua_pushlstring(L, (const char *)r->p, (size_t)len);
    r->p += len;
    r->left -= (size_t)len;
}

/* Pushes a table with n elements (isMap 0: array, keys 1..n) or n pairs.
 * While an element is decoded, the table and the key it goes under are on
 * the stack. On a decoding error the partial table is left behind for the
 * caller to discard. */
static void _mpDecodeContainer(lua_State *L, mpReader *r, uint64_t n,
                               int isMap) {
    lua_newtable(L);
    if (!isMap) luaL_checkstack(L, 1, MP_MSG_DECODE_ARRAY);
    for (uint64_t i = 1; i <= n; i++) {
        if (isMap) {
            _mpDecodeValue(L, r);
            if (r->err) return;
        } else {
            lua_pushnumber(L, (lua_Number)i);
        }
        _mpDecodeValue(L, r);
        if (r->err) return;
        lua_settable(L, -3);
    }
}

/* Pushes the Lua value of the MessagePack object at r->p and moves past
 * it. On malformed or truncated input sets r->err; what it pushed by then
 * is left for the caller to discard. */
static void _mpDecodeValue(lua_State *L, mpReader *r) {
    uint64_t v;

    if (r->left < 1) {
        r->err = MP_TRUNCATED;
        return;
    }
    luaL_checkstack(L, 1, MP_MSG_TOO_MANY);

    unsigned char tag = r->p[0];
    if (tag <= 0x7f || tag >= 0xe0) {           /* fixint, either sign */
        _mpTake(r, 0, &v);
        _mpPushInt(L, tag <= 0x7f ? tag : (int)tag - 256);
        return;
    }
    if (tag <= 0x8f || (tag >= 0x90 && tag <= 0x9f)) { /* fixmap/fixarray */
        _mpTake(r, 0, &v);
        _mpDecodeContainer(L, r, tag & 0x0f, tag <= 0x8f);
        return;
    }
    if (tag <= 0xbf) {                          /* fixstr */
        _mpTake(r, 0, &v);
        _mpDecodeString(L, r, tag & 0x1f);
        return;
    }
    switch (tag) {
    case 0xc0: _mpTake(r, 0, &v); lua_pushnil(L); break;
    case 0xc2: _mpTake(r, 0, &v); lua_pushboolean(L, 0); break;
    case 0xc3: _mpTake(r, 0, &v); lua_pushboolean(L, 1); break;
    case 0xcc: if (_mpTake(r, 1, &v)) _mpPushInt(L, (int64_t)v); break;
    case 0xcd: if (_mpTake(r, 2, &v)) _mpPushInt(L, (int64_t)v); break;
    case 0xce: if (_mpTake(r, 4, &v)) _mpPushInt(L, (int64_t)v); break;
    case 0xcf: if (_mpTake(r, 8, &v)) _mpPushInt(L, luaconvSigned(v)); break;
    case 0xd0:
        if (_mpTake(r, 1, &v)) _mpPushInt(L, _mpSignExtend(v, 8));
        break;
    case 0xd1:
        if (_mpTake(r, 2, &v)) _mpPushInt(L, _mpSignExtend(v, 16));
        break;
    case 0xd2:
        if (_mpTake(r, 4, &v)) _mpPushInt(L, _mpSignExtend(v, 32));
        break;
    case 0xd3: if (_mpTake(r, 8, &v)) _mpPushInt(L, luaconvSigned(v)); break;
    case 0xca:
        if (_mpTake(r, 4, &v)) {
            uint32_t bits = (uint32_t)v;
            float f;
            memcpy(&f, &bits, sizeof(f));
            lua_pushnumber(L, (lua_Number)f);
        }
        break;
    case 0xcb:
        if (_mpTake(r, 8, &v)) {
            double d;
            memcpy(&d, &v, sizeof(d));
            lua_pushnumber(L, (lua_Number)d);
        }
        break;
    case 0xd9: if (_mpTake(r, 1, &v)) _mpDecodeString(L, r, v); break;
    case 0xda: if (_mpTake(r, 2, &v)) _mpDecodeString(L, r, v); break;
    case 0xdb: if (_mpTake(r, 4, &v)) _mpDecodeString(L, r, v); break;
    case 0xdc: if (_mpTake(r, 2, &v)) _mpDecodeContainer(L, r, v, 0); break;
    case 0xdd: if (_mpTake(r, 4, &v)) _mpDecodeContainer(L, r, v, 0); break;
    case 0xde: if (_mpTake(r, 2, &v)) _mpDecodeContainer(L, r, v, 1); break;
    case 0xdf: if (_mpTake(r, 4, &v)) _mpDecodeContainer(L, r, v, 1); break;
    default: r->err = MP_BAD_FORMAT; break;    /* 0xc1, bin, ext */
    }
}

/* Decodes from byte `offset` of argument 1, at most `limit` values.
 * limit and offset both 0 means "everything, and no offset in the reply"
 * (cmsgpack.unpack); otherwise the next offset comes first. */
static int _mpUnpack(lua_State *L, int64_t limit, int64_t offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int wantOffset = limit != 0 || offset != 0;
    int count = 0;
    mpReader r;

    /* Redis reports the input length where the limit belongs. */
    if (offset < 0 || limit < 0)
        return luaL_error(L,
            "Invalid request to unpack with offset of %d and limit of %d.",
            luaconvLow32(offset), luaconvLow32((int64_t)len));
    if ((uint64_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.",
                          luaconvLow32(offset), luaconvLow32((int64_t)len));
    if (!wantOffset) limit = INT_MAX;

    r.p = (const unsigned char *)s + offset;
    r.left = len - (size_t)offset;
    r.err = MP_OK;
    while (r.left > 0 && count < limit) {
        _mpDecodeValue(L, &r);
        if (r.err == MP_TRUNCATED)
            return luaL_error(L, "Missing bytes in input.");
        if (r.err == MP_BAD_FORMAT)
            return luaL_error(L, "Bad data format in input.");
        count++;
    }
    if (!wantOffset) return count;

    luaL_checkstack(L, 1, MP_MSG_UNPACK);
    lua_pushnumber(L, r.left == 0 ? -1 : (lua_Number)(len - r.left));
    lua_insert(L, 2);
    return count + 1;
}

/* Reads optional argument idx as a 64-bit integer, converting the number
 * as Redis's luaL_optinteger does on x86-64. */
static int64_t _mpOptInteger(lua_State *L, int idx, int64_t dflt) {
    if (lua_isnoneornil(L, idx)) return dflt;
    return luaconvToInt64((double)luaL_checknumber(L, idx));
}

static int _mpUnpackAll(lua_State *L) {
    return _mpUnpack(L, 0, 0);
}

/* The string must end up as the only argument, so that the offset can be
 * inserted right after it. With no argument at all the stack stays empty,
 * so the error says "got no value". */
static int _mpUnpackOne(lua_State *L) {
    int64_t offset = _mpOptInteger(L, 2, 0);
    if (lua_gettop(L) > 1) lua_settop(L, 1);
    return _mpUnpack(L, 1, offset);
}

static int _mpUnpackLimit(lua_State *L) {
    int64_t limit = luaconvToInt64((double)luaL_checknumber(L, 2));
    int64_t offset = _mpOptInteger(L, 3, 0);
    if (lua_gettop(L) > 1) lua_settop(L, 1);
    return _mpUnpack(L, limit, offset);
}

/* Creates the table, registers it as the global "cmsgpack" (not in
 * _LOADED) and leaves it on the stack. The fields go in the order Redis's
 * library sets them, which is the order pairs() sees. */
int luaopen_cmsgpack(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"pack", _mpPack},
        {"unpack", _mpUnpackAll},
        {"unpack_one", _mpUnpackOne},
        {"unpack_limit", _mpUnpackLimit},
        {NULL, NULL}
    };
    /* The name and version scripts can read. Redis's copy also carries
     * its author's copyright line and description, which are not this
     * project's to carry: here they are absent (nil). */
    static const char *const about[][2] = {
        {"_NAME", "cmsgpack"},
        {"_VERSION", "lua-cmsgpack 0.4.0"},
    };

    lua_newtable(L);
    for (const luaL_Reg *f = functions; f->name != NULL; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    for (size_t i = 0; i < sizeof(about) / sizeof(about[0]); i++) {
        lua_pushstring(L, about[i][1]);
        lua_setfield(L, -2, about[i][0]);
    }
    lua_pushvalue(L, -1);
    lua_setglobal(L, "cmsgpack");
    return 1;
}
