/* intset.c -- see intset.h.
 *
 * An intset is one allocation: an 8-byte header (encoding, length) followed
 * by the elements, sorted ascending, each exactly `encoding` bytes wide.
 *
 *     encoding=2 length=3 | 0xFFFD 0x0005 0x0064     (-3, 5, 100)
 *
 * Upgrades. When a value arrives that does not fit the current width (say
 * 70000 into the set above), every element is widened to the new width.
 * I grow the allocation first and then move the elements from the back to
 * the front: element i moves from offset i*old to offset i*new (or one slot
 * further when the new value goes first), which is never below where any
 * element not yet moved still lies, so nothing is overwritten before it is
 * read. The new value needs no search: it is wider than every member, so it
 * is either smaller than all of them (it is negative) or larger (positive),
 * and goes at the front or the back. An upgrade costs O(N), but it happens
 * at most twice in the life of a set, because Redis never downgrades: after
 * the wide value is removed the set keeps its width.
 *
 * Every add and remove reallocates to the exact size, so the allocation is
 * always as large as intsetBlobLen says; that is Redis's trade of CPU for
 * memory on small sets. */
#include <assert.h>
#include <string.h>
#include "intset.h"

/* Reads a little-endian header field, whatever the host's byte order. */
static uint32_t _intsetLoad32(const uint32_t *field) {
    const unsigned char *b = (const unsigned char *)field;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 |
           (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Writes a header field little-endian. */
static void _intsetStore32(uint32_t *field, uint32_t v) {
    unsigned char *b = (unsigned char *)field;
    b[0] = v & 0xFF;
    b[1] = (v >> 8) & 0xFF;
    b[2] = (v >> 16) & 0xFF;
    b[3] = (v >> 24) & 0xFF;
}

/* Returns the narrowest encoding that holds v. */
static uint32_t _intsetValueEncoding(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) return INTSET_ENC_INT64;
    if (v < INT16_MIN || v > INT16_MAX) return INTSET_ENC_INT32;
    return INTSET_ENC_INT16;
}

/* Returns element pos read as enc bytes, little-endian and sign-extended.
 * The caller keeps pos inside the allocation. */
static int64_t _intsetGetEncoded(const intset *is, uint32_t pos,
                                 uint32_t enc) {
    const unsigned char *b = (const unsigned char *)is->contents;
    uint64_t u = 0;
    b += (size_t)pos * enc;
    for (uint32_t i = 0; i < enc; i++) u |= (uint64_t)b[i] << (8 * i);
    if (enc < 8 && (u >> (8 * enc - 1)) & 1) u |= ~(uint64_t)0 << (8 * enc);
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* Returns element pos in the set's current encoding. */
static int64_t _intsetGet(const intset *is, uint32_t pos) {
    return _intsetGetEncoded(is, pos, _intsetLoad32(&is->encoding));
}

/* Writes value at pos in the current encoding; the value must fit it. */
static void _intsetSet(intset *is, uint32_t pos, int64_t value) {
    uint32_t enc = _intsetLoad32(&is->encoding);
    unsigned char *b = (unsigned char *)is->contents + (size_t)pos * enc;
    uint64_t u = (uint64_t)value;
    for (uint32_t i = 0; i < enc; i++) b[i] = (u >> (8 * i)) & 0xFF;
}

/* Reallocates to hold exactly len elements of the current encoding and
 * returns the set, possibly moved. The header's length is left to the
 * caller. Stops the engine if the host refuses, as zrealloc does. */
static intset *_intsetResize(gkMem *m, intset *is, uint32_t len) {
    uint64_t bytes = (uint64_t)len * _intsetLoad32(&is->encoding);
    assert(bytes <= SIZE_MAX - sizeof(intset));
    return memRealloc(m, is, sizeof(intset) + (size_t)bytes);
}

/* Binary search over the len elements. Returns 1 and the position of value
 * if present, else 0 and the position that would keep the order. */
static int _intsetBisect(const intset *is, uint32_t len, int64_t value,
                         uint32_t *pos) {
    uint32_t lo = 0, hi = len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int64_t cur = _intsetGet(is, mid);
        if (cur == value) {
            *pos = mid;
            return 1;
        }
        if (cur < value) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return 0;
}

/* Like _intsetBisect over the whole set, but a value beyond either end is
 * answered without searching, as Redis does: appending ascending values,
 * the common way sets are built, then costs no search at all. */
static int _intsetSearch(const intset *is, int64_t value, uint32_t *pos) {
    uint32_t len = _intsetLoad32(&is->length);
    if (len == 0 || value < _intsetGet(is, 0)) {
        *pos = 0;
        return 0;
    }
    if (value > _intsetGet(is, len - 1)) {
        *pos = len;
        return 0;
    }
    return _intsetBisect(is, len, value, pos);
}

/* Moves the elements from position from to the end so that they start at
 * to, opening (to > from) or closing (to < from) a gap. The allocation must
 * already hold the larger of the two layouts; length is not changed. */
static void _intsetMoveTail(intset *is, uint32_t from, uint32_t to) {
    uint32_t enc = _intsetLoad32(&is->encoding);
    uint32_t len = _intsetLoad32(&is->length);
    unsigned char *b = (unsigned char *)is->contents;
    memmove(b + (size_t)to * enc, b + (size_t)from * enc,
            (size_t)(len - from) * enc);
}

/* Widens every element to value's encoding and adds value, which lies
 * outside the current range (see the comment at the top of this file).
 * Returns the set, possibly moved. */
static intset *_intsetUpgradeAndAdd(gkMem *m, intset *is, int64_t value) {
    uint32_t oldenc = _intsetLoad32(&is->encoding);
    uint32_t len = _intsetLoad32(&is->length);
    uint32_t prepend = value < 0 ? 1 : 0;
    _intsetStore32(&is->encoding, _intsetValueEncoding(value));
    is = _intsetResize(m, is, len + 1);
    for (uint32_t i = len; i-- > 0;)
        _intsetSet(is, i + prepend, _intsetGetEncoded(is, i, oldenc));
    _intsetSet(is, prepend ? 0 : len, value);
    _intsetStore32(&is->length, len + 1);
    return is;
}

/* Returns a new empty set in the 16-bit encoding, owned by the caller and
 * released with intsetRelease. */
intset *intsetCreate(gkMem *m) {
    intset *is = memAlloc(m, sizeof(intset));
    _intsetStore32(&is->encoding, INTSET_ENC_INT16);
    _intsetStore32(&is->length, 0);
    return is;
}

/* Adds value, upgrading the encoding first if value needs more bytes.
 * Sets *added (when not NULL) to 1 if value was new, 0 if already present.
 * Returns the set, possibly moved: the pointer passed in is then invalid. */
intset *intsetAdd(gkMem *m, intset *is, int64_t value, int *added) {
    uint32_t pos, len = _intsetLoad32(&is->length);
    if (added) *added = 1;
    if (_intsetValueEncoding(value) > _intsetLoad32(&is->encoding))
        return _intsetUpgradeAndAdd(m, is, value);
    if (_intsetSearch(is, value, &pos)) {
        if (added) *added = 0;
        return is;
    }
    is = _intsetResize(m, is, len + 1);
    if (pos < len) _intsetMoveTail(is, pos, pos + 1);
    _intsetSet(is, pos, value);
    _intsetStore32(&is->length, len + 1);
    return is;
}

/* Removes value and shrinks the allocation by one element; the encoding is
 * kept. Sets *removed (when not NULL) to 1 if value was present, else 0.
 * Returns the set, possibly moved. */
intset *intsetRemove(gkMem *m, intset *is, int64_t value, int *removed) {
    uint32_t pos, len = _intsetLoad32(&is->length);
    if (removed) *removed = 0;
    if (_intsetValueEncoding(value) > _intsetLoad32(&is->encoding))
        return is;
    if (!_intsetSearch(is, value, &pos)) return is;
    if (removed) *removed = 1;
    if (pos < len - 1) _intsetMoveTail(is, pos + 1, pos);
    is = _intsetResize(m, is, len - 1);
    _intsetStore32(&is->length, len - 1);
    return is;
}

/* Returns 1 if value is a member, else 0. A value wider than the encoding
 * cannot be a member, so it is rejected without a search. */
int intsetFind(const intset *is, int64_t value) {
    uint32_t pos;
    if (_intsetValueEncoding(value) > _intsetLoad32(&is->encoding)) return 0;
    return _intsetSearch(is, value, &pos);
}

/* Stores the element at pos (0 = smallest) in *value and returns 1, or
 * returns 0 and leaves *value alone if pos is out of range. */
int intsetGet(const intset *is, uint32_t pos, int64_t *value) {
    if (pos >= _intsetLoad32(&is->length)) return 0;
    *value = _intsetGet(is, pos);
    return 1;
}

/* Returns the element at rnd modulo the length. rnd comes from the caller's
 * seeded PRNG, where Redis calls rand(). The set must not be empty. */
int64_t intsetRandom(const intset *is, uint64_t rnd) {
    uint32_t len = _intsetLoad32(&is->length);
    assert(len > 0);
    return _intsetGet(is, (uint32_t)(rnd % len));
}

/* Returns the number of elements. */
uint32_t intsetLen(const intset *is) {
    return _intsetLoad32(&is->length);
}

/* Returns the size in bytes of the whole blob, header included: what
 * Redis serializes, and what the allocation holds. */
size_t intsetBlobLen(const intset *is) {
    return sizeof(intset) + (size_t)_intsetLoad32(&is->length) *
           _intsetLoad32(&is->encoding);
}

/* Releases the set. NULL is allowed. */
void intsetRelease(gkMem *m, intset *is) {
    memFree(m, is);
}

/* Returns the n-byte little-endian two's complement number at b. */
static int64_t _intsetLoadSigned(const unsigned char *b, uint32_t n) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < n; i++) u |= (uint64_t)b[i] << (8 * i);
    if (n < 8 && (u >> (8 * n - 1)) & 1) u |= ~(uint64_t)0 << (8 * n);
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* Returns 1 if the size bytes at p are a valid intset, else 0: a known
 * encoding, a length that accounts for every byte, at least one member,
 * and (with deep) members strictly increasing. An intset read from a
 * file must pass this before any other function here sees it: they all
 * trust the header and the order, so a length that lies would read past
 * the blob and an unsorted one would defeat every binary search. Redis
 * refuses an empty intset too, since it never writes one. p need not be
 * aligned: it is read byte by byte. */
int intsetValidateIntegrity(const unsigned char *p, size_t size, int deep) {
    if (size < sizeof(intset)) return 0;
    uint32_t enc = (uint32_t)_intsetLoadSigned(p, 4);
    uint32_t len = (uint32_t)_intsetLoadSigned(p + 4, 4);
    if (enc != INTSET_ENC_INT16 && enc != INTSET_ENC_INT32 &&
        enc != INTSET_ENC_INT64)
        return 0;
    if (sizeof(intset) + (uint64_t)len * enc != size || len == 0) return 0;
    if (!deep) return 1;
    const unsigned char *v = p + sizeof(intset);
    for (uint32_t i = 1; i < len; i++)
        if (_intsetLoadSigned(v + (size_t)(i - 1) * enc, enc) >=
            _intsetLoadSigned(v + (size_t)i * enc, enc))
            return 0;
    return 1;
}
