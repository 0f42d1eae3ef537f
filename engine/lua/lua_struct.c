/* lua_struct.c -- the "struct" library: binary records for scripts.
 *
 *   struct.pack(fmt, v1, v2, ...)        -> string
 *   struct.unpack(fmt, data [, offset])  -> v1, v2, ..., next offset
 *   struct.size(fmt)                     -> bytes a record takes
 *
 * A format is read left to right, one option character at a time:
 *
 *   >  <     big / little endian from here on (little at the start)
 *   !n       align items to at most n bytes (n a power of 2, default 8);
 *            the format starts with alignment 1, i.e. packed
 *   x        one zero byte of padding
 *   b B      signed / unsigned 1-byte integer
 *   h H      2-byte integers          l L  8-byte integers
 *   T        8-byte unsigned integer  i In signed / unsigned integer of n
 *                                          bytes (default 4, at most 32)
 *   f d      4-byte float / 8-byte double
 *   cn       n raw bytes. Packing c0 takes the whole string; unpacking c0
 *            takes as many bytes as the previous result said, and that
 *            result is replaced by the bytes
 *   s        a zero-terminated string
 *   space    ignored
 *
 * The sizes are those of C's types in the Redis 7.0 build on x86-64 (long
 * and size_t are 8 bytes), whatever the host, so that a script packs the
 * same bytes here as in Redis. The same goes for the corner cases: numbers
 * too large for the integer type, integers wider than 8 bytes and the
 * checks done on the unpacking offset all behave as that build does.
 *
 * Alignment. With "!n" in effect, an item of size s (other than c and s
 * strings, which never align) starts at a multiple of min(s, n): before it
 * go as many zero bytes as needed. The padding is computed with the mask
 * (u - (pos & (u - 1))) & (u - 1), u = min(s, n), which is exact when u is a
 * power of two. For odd sizes such as "i3" it gives other amounts (one byte
 * at position 1 under "!4", not three), and I keep that rather than
 * "correct" it, because it is what scripts get from Redis. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualibs.h"
#include "lualibs_conv.h"

#define STRUCT_INT_DEFAULT 4   /* bytes of "i" and "I" without a count */
#define STRUCT_INT_LIMIT 32    /* largest count "i" and "I" accept */
#define STRUCT_ALIGN_DEFAULT 8 /* "!" without a count: a double's alignment */

/* Where a format is being read, and the settings it has made so far. */
typedef struct structFormat {
    const char *next; /* next option character (the format ends at NUL) */
    int little;       /* 1 while little-endian is in effect */
    size_t maxAlign;  /* largest alignment honoured ("!n"; 1 = packed) */
} structFormat;

static void _structFormatInit(structFormat *f, const char *fmt) {
    f->next = fmt;
    f->little = 1;
    f->maxAlign = 1;
}

static int _structIsDigit(int c) { return c >= '0' && c <= '9'; }

static int _structIsAlnum(int c) {
    return _structIsDigit(c) || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

/* Reads the decimal count that may follow an option; returns dflt when
 * there is none. A count above INT_MAX raises an error. */
static int _structCount(lua_State *L, structFormat *f, int dflt) {
    int64_t n = 0;

    if (!_structIsDigit((unsigned char)*f->next)) return dflt;
    while (_structIsDigit((unsigned char)*f->next)) {
        n = n * 10 + (*f->next++ - '0');
        if (n > INT_MAX) luaL_error(L, "integral size overflow");
    }
    return (int)n;
}

/* Returns the number of bytes option opt stands for, reading its count if
 * it takes one. Options that are not items (and "s", whose size depends on
 * the data) are 0. */
static size_t _structItemSize(lua_State *L, int opt, structFormat *f) {
    switch (opt) {
    case 'b': case 'B': case 'x': return 1;
    case 'h': case 'H': return 2;
    case 'f': return 4;
    case 'l': case 'L': case 'T': case 'd': return 8;
    case 'c': return (size_t)_structCount(L, f, 1);
    case 'i': case 'I': {
        int n = _structCount(L, f, STRUCT_INT_DEFAULT);
        if (n > STRUCT_INT_LIMIT)
            luaL_error(L, "integral size %d is larger than limit of %d", n,
                       STRUCT_INT_LIMIT);
        return (size_t)n;
    }
    default: return 0;
    }
}

/* Returns the zero bytes that go before an item of the given size when it
 * would start at pos (see the comment at the top of the file). */
static size_t _structPadding(const structFormat *f, int opt, size_t size,
                             uint64_t pos) {
    size_t unit = size < f->maxAlign ? size : f->maxAlign;

    if (size == 0 || opt == 'c') return 0;
    return (unit - (size_t)(pos & (unit - 1))) & (unit - 1);
}

/* Applies an option that is not an item: endianness, alignment or a space.
 * Anything else is not a valid option and raises an argument error. */
static void _structControl(lua_State *L, int opt, structFormat *f) {
    switch (opt) {
    case ' ': return;
    case '<': f->little = 1; return;
    case '>': f->little = 0; return;
    case '!': {
        int a = _structCount(L, f, STRUCT_ALIGN_DEFAULT);
        if (a <= 0 || (a & (a - 1)) != 0)
            luaL_error(L, "alignment %d is not a power of 2", a);
        f->maxAlign = (size_t)a;
        return;
    }
    default:
        luaL_argerror(L, 1,
                      lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

/* Writes the low `size` bytes of v in the format's byte order. Counts past
 * 8 bytes are padded with zeros on the high side, not sign-extended: "<i9"
 * of -1 is eight 0xff bytes and one 0x00. */
static void _structPutBits(luaL_Buffer *b, const structFormat *f,
                           uint64_t v, size_t size) {
    unsigned char bytes[STRUCT_INT_LIMIT];

    for (size_t i = 0; i < size; i++) {
        unsigned char byte = i < 8 ? (unsigned char)(v >> (8 * i)) : 0;
        bytes[f->little ? i : size - 1 - i] = byte;
    }
    luaL_addlstring(b, (const char *)bytes, size);
}

/* Reads `size` bytes in the format's byte order. Past 8 bytes only the
 * least significant 8 count. */
static uint64_t _structGetBits(const structFormat *f, const char *data,
                               size_t size) {
    uint64_t v = 0;

    for (size_t i = 0; i < size; i++) {
        size_t at = f->little ? size - 1 - i : i;
        v = (v << 8) | (unsigned char)data[at];
    }
    return v;
}

/* Turns the bytes of an integer item into a number. For a signed item the
 * sign is extended from its top bit; Redis computes that bit's position
 * modulo 64 (x86-64 shifts count modulo 64), which for sizes over 8 selects
 * a bit inside the low 8 bytes: "<i9" of 200 reads back as -56. */
static lua_Number _structInteger(const structFormat *f, const char *data,
                                 size_t size, int isSigned) {
    uint64_t v = _structGetBits(f, data, size);

    if (!isSigned) return (lua_Number)v;
    uint64_t mask = ~(uint64_t)0 << ((size * 8 - 1) & 63);
    if (v & mask) v |= mask;
    return (lua_Number)luaconvSigned(v);
}

/* Appends the "c" or "s" item for argument arg and returns its size in the
 * record. A fixed count larger than the string raises "string too short",
 * naming the argument after arg, as Redis does. */
static size_t _structPutString(lua_State *L, luaL_Buffer *b, int opt,
                               size_t size, int arg) {
    size_t len;
    const char *s = luaL_checklstring(L, arg, &len);

    if (size == 0) size = len;
    luaL_argcheck(L, len >= size, arg + 1, "string too short");
    luaL_addlstring(b, s, size);
    if (opt == 's') {
        luaL_addchar(b, '\0');
        size++;
    }
    return size;
}

/* struct.pack(fmt, ...): the record as a string. */
static int _structPack(lua_State *L) {
    structFormat f;
    luaL_Buffer b;
    uint64_t pos = 0;
    int arg = 2;

    _structFormatInit(&f, luaL_checkstring(L, 1));
    /* The slot just past the arguments holds nil while the record is built:
     * a missing argument then reads as nil, so the error for one says "got
     * nil", as it does in Redis, not "got no value". */
    lua_pushnil(L);
    luaL_buffinit(L, &b);
    while (*f.next != '\0') {
        int opt = *f.next++;
        size_t size = _structItemSize(L, opt, &f);
        size_t pad = _structPadding(&f, opt, size, pos);

        pos += pad;
        while (pad-- > 0) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L':
        case 'T': case 'i': case 'I': {
            double n = (double)luaL_checknumber(L, arg++);
            _structPutBits(&b, &f, luaconvToUint64(n), size);
            break;
        }
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float x = (float)luaL_checknumber(L, arg++);
            uint32_t bits;
            memcpy(&bits, &x, sizeof(bits));
            _structPutBits(&b, &f, bits, 4);
            break;
        }
        case 'd': {
            double x = (double)luaL_checknumber(L, arg++);
            uint64_t bits;
            memcpy(&bits, &x, sizeof(bits));
            _structPutBits(&b, &f, bits, 8);
            break;
        }
        case 'c': case 's':
            size = _structPutString(L, &b, opt, size, arg++);
            break;
        default:
            _structControl(L, opt, &f);
        }
        pos += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Handles "c0" while unpacking: the previous result, which must be a
 * number (or a string that reads as one), is replaced by that many bytes.
 * Returns the byte count; *n is the number of results so far. */
static size_t _structPrefixedLength(lua_State *L, int *n, uint64_t pos,
                                    size_t dataLen) {
    if (*n == 0 || !lua_isnumber(L, -1))
        luaL_error(L, "format 'c0' needs a previous size");
    uint64_t size = luaconvToUint64((double)lua_tonumber(L, -1));
    lua_pop(L, 1);
    (*n)--;
    luaL_argcheck(L, size <= dataLen && pos <= dataLen - size, 2,
                  "data string too short");
    return (size_t)size;
}

/* struct.unpack(fmt, data [, offset]): the items of the record starting at
 * offset (1-based, default 1), then the offset just past it. The offset is
 * taken as an unsigned 64-bit count, so a negative one passes the "1 or
 * greater" check and only fails if an item has to be read. */
static int _structUnpack(lua_State *L) {
    structFormat f;
    size_t len;
    const char *fmt = luaL_checkstring(L, 1);
    const char *data = luaL_checklstring(L, 2, &len);
    double start = (double)luaL_optnumber(L, 3, 1);
    uint64_t pos = (uint64_t)luaconvToInt64(start);
    int n = 0;

    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    pos--;
    _structFormatInit(&f, fmt);
    while (*f.next != '\0') {
        int opt = *f.next++;
        size_t size = _structItemSize(L, opt, &f);

        pos += _structPadding(&f, opt, size, pos);
        luaL_argcheck(L, size <= len && pos <= len - size, 2,
                      "data string too short");
        luaL_checkstack(L, 2, "too many results");
        const char *at = data + (size_t)pos;
        switch (opt) {
        case 'b': case 'h': case 'l': case 'i':
        case 'B': case 'H': case 'L': case 'T': case 'I':
            lua_pushnumber(L, _structInteger(&f, at, size, opt >= 'a'));
            n++;
            break;
        case 'x':
            break;
        case 'f': {
            uint32_t bits = (uint32_t)_structGetBits(&f, at, 4);
            float x;
            memcpy(&x, &bits, sizeof(x));
            lua_pushnumber(L, (lua_Number)x);
            n++;
            break;
        }
        case 'd': {
            uint64_t bits = _structGetBits(&f, at, 8);
            double x;
            memcpy(&x, &bits, sizeof(x));
            lua_pushnumber(L, (lua_Number)x);
            n++;
            break;
        }
        case 'c':
            if (size == 0) size = _structPrefixedLength(L, &n, pos, len);
            lua_pushlstring(L, at, size);
            n++;
            break;
        case 's': {
            const char *end = memchr(at, '\0', len - (size_t)pos);
            if (end == NULL) luaL_error(L, "unfinished string in data");
            size = (size_t)(end - at) + 1;
            lua_pushlstring(L, at, size - 1);
            n++;
            break;
        }
        default:
            _structControl(L, opt, &f);
        }
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)luaconvSigned(pos + 1));
    return n + 1;
}

/* struct.size(fmt): the bytes a record takes, padding included. Letters
 * and digits that are not options count as nothing here (packing rejects
 * them); "s" and "c0" have no fixed size and raise an error. */
static int _structSize(lua_State *L) {
    structFormat f;
    uint64_t pos = 0;

    _structFormatInit(&f, luaL_checkstring(L, 1));
    while (*f.next != '\0') {
        int opt = *f.next++;
        size_t size = _structItemSize(L, opt, &f);

        pos += _structPadding(&f, opt, size, pos);
        if (opt == 's')
            luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0)
            luaL_argerror(L, 1, "option 'c0' has no fixed size");
        if (!_structIsAlnum(opt)) _structControl(L, opt, &f);
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)luaconvSigned(pos));
    return 1;
}

static const luaL_Reg structFunctions[] = {
    {"pack", _structPack},
    {"unpack", _structUnpack},
    {"size", _structSize},
    {NULL, NULL}
};

/* Creates the global table "struct" (also recorded in the registry's
 * _LOADED, as luaL_register does) and leaves it on the stack. */
int luaopen_struct(lua_State *L) {
    luaL_register(L, "struct", structFunctions);
    return 1;
}
