/* listpack.c -- see listpack.h.
 *
 * Layout. All multi-byte numbers are little-endian.
 *
 *     <total-bytes u32> <num-elements u16> <entry> ... <entry> <0xFF>
 *
 * total-bytes counts everything, header and terminator included, so an
 * empty listpack is the 7 bytes 07 00 00 00 00 00 ff. num-elements is the
 * entry count while it is below 65535; 65535 means "count them".
 *
 * Each entry is <encoding+data> <backlen>. The first byte says what
 * follows:
 *
 *     0xxxxxxx                    integer 0..127 in the low 7 bits
 *     10LLLLLL <data>             string of 0..63 bytes
 *     110xxxxx xxxxxxxx           13-bit signed integer, -4096..4095
 *     1110LLLL LLLLLLLL <data>    string of 64..4095 bytes
 *     11110000 <len u32> <data>   string of 4096 bytes or more
 *     11110001 <i16>              16-bit signed integer
 *     11110010 <i24>              24-bit signed integer
 *     11110011 <i32>              32-bit signed integer
 *     11110100 <i64>              64-bit signed integer
 *     11111111                    the terminator, not an entry
 *
 * Negative integers are two's complement within their width (13 bits
 * spread over two bytes, high bits first in the first byte; the wider ones
 * little-endian after the tag byte). A string is stored as an integer
 * whenever lpStringToInt64 accepts it, in the narrowest encoding that holds
 * it, so "1024" costs 2 bytes plus its backlen, not 5.
 *
 * backlen is the size of <encoding+data>, written so that it can be read
 * from its last byte leftwards: 7 bits per byte, least significant group in
 * the rightmost byte, and the high bit of every byte but the leftmost set to
 * say "another byte follows on the left". A 1024-byte string has
 * encoding+data of 1026 bytes = 8*128 + 2, stored as 08 82. lpPrev reads the
 * byte just before an entry, walks left while the high bit is set, and so
 * finds where the previous entry starts without any pointer. The sizes of
 * the five widths follow Redis exactly, including its strict bounds: a
 * length of exactly 16383 takes 3 bytes although 2 would do.
 *
 * Every change goes through _lpInsert, which moves the tail of the listpack
 * with one memmove: inserting into or deleting from the middle is O(size),
 * which is why Redis turns a hash or sorted set into a real table once it
 * passes hash-max-listpack-entries (512) or zset-max-listpack-entries
 * (128). */
#include <assert.h>
#include <string.h>
#include "cost.h"
#include "listpack.h"

#define LP_HDR_SIZE 6
#define LP_HDR_NUMELE_UNKNOWN 65535
#define LP_EOF 0xFF
#define LP_MAX_INT_ENCODING_LEN 9

#define LP_ENC_13BIT_INT 0xC0
#define LP_ENC_6BIT_STR 0x80
#define LP_ENC_12BIT_STR 0xE0
#define LP_ENC_32BIT_STR 0xF0
#define LP_ENC_16BIT_INT 0xF1
#define LP_ENC_24BIT_INT 0xF2
#define LP_ENC_32BIT_INT 0xF3
#define LP_ENC_64BIT_INT 0xF4

/* An element ready to be written: its encoding bytes (all of an integer,
 * or a string's header) and, for a string, the bytes that follow them. */
typedef struct lpElement {
    unsigned char head[LP_MAX_INT_ENCODING_LEN]; /* encoding bytes */
    uint32_t headlen;                            /* bytes used in head */
    const unsigned char *data;  /* string bytes after head, or NULL */
    uint32_t datalen;           /* length of data */
} lpElement;

/* ---- Little-endian fields and the header ---- */

/* Returns the n-byte little-endian number at b (n <= 8). */
static uint64_t _lpLoadLE(const unsigned char *b, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* Writes the low n bytes of v at b, little-endian. */
static void _lpStoreLE(unsigned char *b, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) b[i] = (v >> (8 * i)) & 0xFF;
}

/* Returns the total size of the listpack from its header. */
static uint32_t _lpGetTotalBytes(const unsigned char *lp) {
    return (uint32_t)_lpLoadLE(lp, 4);
}

/* Records the total size in the header. */
static void _lpSetTotalBytes(unsigned char *lp, uint32_t v) {
    _lpStoreLE(lp, v, 4);
}

/* Returns the header's element count (LP_HDR_NUMELE_UNKNOWN if too many). */
static uint32_t _lpGetNumElements(const unsigned char *lp) {
    return (uint32_t)_lpLoadLE(lp + 4, 2);
}

/* Records an element count in the header; v must be at most 65535. */
static void _lpSetNumElements(unsigned char *lp, uint32_t v) {
    _lpStoreLE(lp + 4, v, 2);
}

/* Adds delta to the header's count unless the count is unknown. Reaching
 * 65535 makes it unknown, which is right: 65535 entries are too many. */
static void _lpAdjustCount(unsigned char *lp, long delta) {
    uint32_t n = _lpGetNumElements(lp);
    if (n != LP_HDR_NUMELE_UNKNOWN) _lpSetNumElements(lp, n + delta);
}

/* Returns a pointer to the terminator. */
static unsigned char *_lpEof(unsigned char *lp) {
    return lp + _lpGetTotalBytes(lp) - 1;
}

/* ---- Encoding elements ---- */

/* Returns how many bytes after the tag an integer of v needs, for values
 * outside the 7-bit and 13-bit ranges. */
static unsigned _lpIntegerWidth(int64_t v) {
    if (v >= INT16_MIN && v <= INT16_MAX) return 2;
    if (v >= -8388608 && v <= 8388607) return 3;
    if (v >= INT32_MIN && v <= INT32_MAX) return 4;
    return 8;
}

/* Fills e with the narrowest integer encoding of v. */
static void _lpEncodeInteger(lpElement *e, int64_t v) {
    static const unsigned char tags[9] = {
        0, 0, LP_ENC_16BIT_INT, LP_ENC_24BIT_INT, LP_ENC_32BIT_INT,
        0, 0, 0, LP_ENC_64BIT_INT};
    uint64_t u = (uint64_t)v;
    e->data = NULL;
    e->datalen = 0;
    if (v >= 0 && v <= 127) {
        e->head[0] = (unsigned char)v;
        e->headlen = 1;
    } else if (v >= -4096 && v <= 4095) {
        u &= 0x1FFF;
        e->head[0] = LP_ENC_13BIT_INT | (unsigned char)(u >> 8);
        e->head[1] = u & 0xFF;
        e->headlen = 2;
    } else {
        unsigned width = _lpIntegerWidth(v);
        e->head[0] = tags[width];
        _lpStoreLE(e->head + 1, u, width);
        e->headlen = 1 + width;
    }
}

/* Fills e with the string encoding of the len bytes at s, which must stay
 * valid until e is written. */
static void _lpEncodeString(lpElement *e, const unsigned char *s,
                            uint32_t len) {
    e->data = s;
    e->datalen = len;
    if (len < 64) {
        e->head[0] = LP_ENC_6BIT_STR | (unsigned char)len;
        e->headlen = 1;
    } else if (len < 4096) {
        e->head[0] = LP_ENC_12BIT_STR | (unsigned char)(len >> 8);
        e->head[1] = len & 0xFF;
        e->headlen = 2;
    } else {
        e->head[0] = LP_ENC_32BIT_STR;
        _lpStoreLE(e->head + 1, len, 4);
        e->headlen = 5;
    }
}

/* Fills e for the string s: as an integer if it is a canonical one. */
static void _lpEncodeElement(lpElement *e, const unsigned char *s,
                             uint32_t slen) {
    int64_t v;
    if (lpStringToInt64((const char *)s, slen, &v)) _lpEncodeInteger(e, v);
    else _lpEncodeString(e, s, slen);
}

/* Returns how many bytes the backlen of an entry of size l takes. */
static unsigned _lpBacklenSize(uint64_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

/* Writes the backlen of an entry of size l at buf and returns its size:
 * groups of 7 bits, most significant first, every byte but the first
 * flagged with the high bit. */
static unsigned _lpEncodeBacklen(unsigned char *buf, uint64_t l) {
    unsigned n = _lpBacklenSize(l);
    for (unsigned i = 0; i < n; i++) {
        unsigned char b = (l >> (7 * (n - 1 - i))) & 127;
        buf[i] = i == 0 ? b : (b | 128);
    }
    return n;
}

/* Returns the value of the backlen whose last byte is at p, reading
 * leftwards. A backlen is at most 5 bytes; more means corruption. */
static uint64_t _lpDecodeBacklen(const unsigned char *p) {
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        v |= (uint64_t)(*p & 127) << shift;
        if (!(*p & 128)) return v;
        shift += 7;
        p--;
        assert(shift <= 28);
    }
}

/* Writes e and its backlen at dst; the room was made by the caller. */
static void _lpWriteElement(unsigned char *dst, const lpElement *e) {
    uint32_t enclen = e->headlen + e->datalen;
    memcpy(dst, e->head, e->headlen);
    if (e->datalen) memcpy(dst + e->headlen, e->data, e->datalen);
    _lpEncodeBacklen(dst + enclen, enclen);
}

/* ---- Decoding entries ---- */

/* Returns 1 if the entry at p is a string, 0 if it is an integer. */
static int _lpIsString(const unsigned char *p) {
    return (p[0] & 0xC0) == LP_ENC_6BIT_STR ||
           (p[0] & 0xF0) == LP_ENC_12BIT_STR || p[0] == LP_ENC_32BIT_STR;
}

/* For the string entry at p, sets *len and returns its first byte. */
static unsigned char *_lpStringAt(unsigned char *p, uint32_t *len) {
    if ((p[0] & 0xC0) == LP_ENC_6BIT_STR) {
        *len = p[0] & 0x3F;
        return p + 1;
    }
    if ((p[0] & 0xF0) == LP_ENC_12BIT_STR) {
        *len = (uint32_t)(p[0] & 0x0F) << 8 | p[1];
        return p + 2;
    }
    *len = (uint32_t)_lpLoadLE(p + 1, 4);
    return p + 5;
}

/* Returns the bits-wide two's complement number in the low bits of u. */
static int64_t _lpSignExtend(uint64_t u, unsigned bits) {
    if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~(uint64_t)0 << bits;
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)~u - 1;
}

/* Returns the value of the integer entry at p. */
static int64_t _lpIntegerAt(const unsigned char *p) {
    if ((p[0] & 0x80) == 0) return p[0];
    if ((p[0] & 0xE0) == LP_ENC_13BIT_INT)
        return _lpSignExtend((uint64_t)(p[0] & 0x1F) << 8 | p[1], 13);
    switch (p[0]) {
    case LP_ENC_16BIT_INT: return _lpSignExtend(_lpLoadLE(p + 1, 2), 16);
    case LP_ENC_24BIT_INT: return _lpSignExtend(_lpLoadLE(p + 1, 3), 24);
    case LP_ENC_32BIT_INT: return _lpSignExtend(_lpLoadLE(p + 1, 4), 32);
    case LP_ENC_64BIT_INT: return _lpSignExtend(_lpLoadLE(p + 1, 8), 64);
    }
    assert(0 && "listpack: invalid entry encoding");
    return 0;
}

/* Returns the size of the encoding and data of the entry at p, without its
 * backlen. Only entries this file wrote are expected. */
static uint64_t _lpEncodedSize(const unsigned char *p) {
    if ((p[0] & 0x80) == 0) return 1;
    if ((p[0] & 0xC0) == LP_ENC_6BIT_STR) return 1 + (p[0] & 0x3F);
    if ((p[0] & 0xE0) == LP_ENC_13BIT_INT) return 2;
    if ((p[0] & 0xF0) == LP_ENC_12BIT_STR)
        return 2 + ((uint64_t)(p[0] & 0x0F) << 8 | p[1]);
    switch (p[0]) {
    case LP_ENC_32BIT_STR: return 5 + _lpLoadLE(p + 1, 4);
    case LP_ENC_16BIT_INT: return 3;
    case LP_ENC_24BIT_INT: return 4;
    case LP_ENC_32BIT_INT: return 5;
    case LP_ENC_64BIT_INT: return 9;
    }
    assert(0 && "listpack: invalid entry encoding");
    return 1;
}

/* Returns the whole size of the entry at p, backlen included. */
static uint64_t _lpEntrySize(const unsigned char *p) {
    uint64_t enclen = _lpEncodedSize(p);
    return enclen + _lpBacklenSize(enclen);
}

/* Returns the entry after p, which may be the terminator. */
static unsigned char *_lpSkip(unsigned char *p) {
    return p + _lpEntrySize(p);
}

/* Writes v in decimal, NUL-terminated, into buf (LP_INTBUF_SIZE bytes) and
 * returns its length. */
static uint32_t _lpFormatInt64(int64_t v, unsigned char *buf) {
    unsigned char digits[20];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    uint32_t n = 0, len = 0;
    do {
        digits[n++] = (unsigned char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) buf[len++] = '-';
    while (n) buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

/* ---- Changing the listpack ---- */

/* Replaces the gone bytes at offset off with add bytes of room, keeping
 * what follows, and updates total-bytes. Like Redis, I grow the allocation
 * before moving the tail and shrink it after, always to the exact size;
 * growth skips the realloc when lpCreate's capacity already has room. Returns
 * the listpack, possibly moved. */
static unsigned char *_lpResizeGap(gkMem *m, unsigned char *lp, size_t off,
                                   size_t gone, size_t add) {
    size_t oldbytes = _lpGetTotalBytes(lp);
    size_t newbytes = oldbytes - gone + add;
    if (newbytes > oldbytes && newbytes > memSize(lp))
        lp = memRealloc(m, lp, newbytes);
    memmove(lp + off + add, lp + off + gone, oldbytes - off - gone);
    memChargeNs(m, (uint64_t)(oldbytes - off - gone) * COST_MOVE_NS_PER_KB /
                   1024);
    if (newbytes < oldbytes) lp = memRealloc(m, lp, newbytes);
    _lpSetTotalBytes(lp, (uint32_t)newbytes);
    return lp;
}

/* The one routine behind every insert, replace and delete: writes e before
 * p (LP_BEFORE), after it (LP_AFTER) or in its place (LP_REPLACE); e == NULL
 * deletes p. p may be the terminator for LP_BEFORE (an append). If newp is
 * not NULL it receives the element written or, for a delete, the element
 * that followed p (NULL if p was the last). Returns the listpack, possibly
 * moved, or NULL, with lp unchanged, if it would exceed 2^32-1 bytes. The
 * bytes of e must not lie inside lp. */
static unsigned char *_lpInsert(gkMem *m, unsigned char *lp,
                                const lpElement *e, unsigned char *p,
                                int where, unsigned char **newp) {
    uint64_t enclen = e ? (uint64_t)e->headlen + e->datalen : 0;
    uint64_t add = e ? enclen + _lpBacklenSize(enclen) : 0;
    uint64_t gone;
    if (!e) where = LP_REPLACE;
    if (where == LP_AFTER) {
        p = _lpSkip(p);
        where = LP_BEFORE;
    }
    gone = where == LP_REPLACE ? _lpEntrySize(p) : 0;
    if ((uint64_t)_lpGetTotalBytes(lp) - gone + add > UINT32_MAX) return NULL;
    size_t off = (size_t)(p - lp);
    lp = _lpResizeGap(m, lp, off, (size_t)gone, (size_t)add);
    if (e) _lpWriteElement(lp + off, e);
    if (newp) *newp = (!e && lp[off] == LP_EOF) ? NULL : lp + off;
    if (!e) _lpAdjustCount(lp, -1);
    else if (where == LP_BEFORE) _lpAdjustCount(lp, 1);
    return lp;
}

/* Reallocates lp to exactly its size if lpCreate or an earlier operation left
 * spare capacity. Returns the listpack, possibly moved. */
static unsigned char *_lpShrinkToFit(gkMem *m, unsigned char *lp) {
    size_t bytes = _lpGetTotalBytes(lp);
    if (memSize(lp) > bytes) lp = memRealloc(m, lp, bytes);
    return lp;
}

/* Returns a new empty listpack whose allocation has room for capacity
 * bytes (at least its 7), owned by the caller and released with lpRelease. */
unsigned char *lpCreate(gkMem *m, size_t capacity) {
    size_t size = capacity > LP_HDR_SIZE + 1 ? capacity : LP_HDR_SIZE + 1;
    unsigned char *lp = memAlloc(m, size);
    _lpSetTotalBytes(lp, LP_HDR_SIZE + 1);
    _lpSetNumElements(lp, 0);
    lp[LP_HDR_SIZE] = LP_EOF;
    return lp;
}

/* Releases the listpack. NULL is allowed. */
void lpRelease(gkMem *m, unsigned char *lp) {
    memFree(m, lp);
}

/* Inserts the slen bytes at s before or after p (LP_BEFORE, LP_AFTER), or
 * in its place (LP_REPLACE); as an integer if s is a canonical one. *newp,
 * if newp is not NULL, gets the new element. Returns the listpack, possibly
 * moved, or NULL with lp unchanged if it would pass 2^32-1 bytes. */
unsigned char *lpInsertString(gkMem *m, unsigned char *lp,
                              const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where,
                              unsigned char **newp) {
    lpElement e;
    _lpEncodeElement(&e, s, slen);
    return _lpInsert(m, lp, &e, p, where, newp);
}

/* Appends the slen bytes at s. Returns as lpInsertString. */
unsigned char *lpAppend(gkMem *m, unsigned char *lp, const unsigned char *s,
                        uint32_t slen) {
    return lpInsertString(m, lp, s, slen, _lpEof(lp), LP_BEFORE, NULL);
}

/* Inserts the slen bytes at s before the first element (appends to an
 * empty listpack). Returns as lpInsertString. */
unsigned char *lpPrepend(gkMem *m, unsigned char *lp, const unsigned char *s,
                         uint32_t slen) {
    unsigned char *p = lpFirst(lp);
    if (!p) return lpAppend(m, lp, s, slen);
    return lpInsertString(m, lp, s, slen, p, LP_BEFORE, NULL);
}

/* Appends the integer v. Returns as lpInsertString. */
unsigned char *lpAppendInteger(gkMem *m, unsigned char *lp, int64_t v) {
    lpElement e;
    _lpEncodeInteger(&e, v);
    return _lpInsert(m, lp, &e, _lpEof(lp), LP_BEFORE, NULL);
}

/* Replaces the element at *p with the slen bytes at s and points *p at the
 * new element. Returns as lpInsertString. */
unsigned char *lpReplace(gkMem *m, unsigned char *lp, unsigned char **p,
                         const unsigned char *s, uint32_t slen) {
    return lpInsertString(m, lp, s, slen, *p, LP_REPLACE, p);
}

/* Deletes the element at p. *newp, if newp is not NULL, gets the element
 * that followed it, or NULL if p was the last. Returns the listpack,
 * reallocated to its new exact size. */
unsigned char *lpDelete(gkMem *m, unsigned char *lp, unsigned char *p,
                        unsigned char **newp) {
    return _lpInsert(m, lp, NULL, p, LP_REPLACE, newp);
}

/* Cuts the listpack at p, the first of the elements to drop, when they run
 * to the end; the count in the header becomes index, the number kept. */
static void _lpTruncate(unsigned char *lp, unsigned char *p, uint32_t index) {
    p[0] = LP_EOF;
    _lpSetTotalBytes(lp, (uint32_t)(p - lp + 1));
    _lpSetNumElements(lp, index);
}

/* Removes the elements from first up to num of them, fewer if the end
 * comes first, with one memmove of the tail. */
static void _lpCutRun(unsigned char *lp, unsigned char *first,
                      unsigned long num) {
    unsigned char *p = first, *eof = _lpEof(lp);
    unsigned long gone = 0;
    while (gone < num && p[0] != LP_EOF) {
        p = _lpSkip(p);
        gone++;
    }
    memmove(first, p, (size_t)(eof - p) + 1);
    _lpSetTotalBytes(lp, _lpGetTotalBytes(lp) - (uint32_t)(p - first));
    _lpAdjustCount(lp, -(long)gone);
}

/* Deletes num elements starting at index (negative counts from the end).
 * Nothing happens if index is out of range or num is 0. When the count is
 * known and the range reaches the end, the listpack is cut without walking
 * the doomed entries, as Redis does. Returns the listpack, reallocated to
 * its exact size. */
unsigned char *lpDeleteRange(gkMem *m, unsigned char *lp, long index,
                             unsigned long num) {
    uint32_t numele = _lpGetNumElements(lp);
    unsigned char *p;
    if (num == 0 || (p = lpSeek(lp, index)) == NULL) return lp;
    if (numele != LP_HDR_NUMELE_UNKNOWN) {
        unsigned long first = index < 0 ? (unsigned long)(numele + index)
                                        : (unsigned long)index;
        if (numele - first <= num) {
            _lpTruncate(lp, p, (uint32_t)first);
            return _lpShrinkToFit(m, lp);
        }
    }
    _lpCutRun(lp, p, num);
    return _lpShrinkToFit(m, lp);
}

/* Joins two listpacks, *first's elements then *second's, into the larger
 * of the two allocations (so the copy is the smaller one's bytes, as in
 * Redis: the quicklist merges a small node into a big neighbour). The
 * other listpack is freed and its pointer set to NULL; the kept one's
 * pointer is updated. The count becomes unknown (65535) if it reaches
 * that. Returns the merged listpack, or NULL with nothing changed if
 * either is NULL, they are the same, or the result would pass 2^32-1
 * bytes. */
unsigned char *lpMerge(gkMem *m, unsigned char **first,
                       unsigned char **second) {
    if (!first || !*first || !second || !*second || *first == *second)
        return NULL;
    size_t fbytes = _lpGetTotalBytes(*first);
    size_t sbytes = _lpGetTotalBytes(*second);
    uint64_t total = (uint64_t)fbytes + sbytes - LP_HDR_SIZE - 1;
    if (total > UINT32_MAX) return NULL;
    unsigned long n = lpLength(*first) + lpLength(*second);
    if (n > LP_HDR_NUMELE_UNKNOWN) n = LP_HDR_NUMELE_UNKNOWN;
    int append = fbytes >= sbytes;          /* keep first, add second */
    unsigned char *target = append ? *first : *second;
    unsigned char *source = append ? *second : *first;
    size_t tbytes = append ? fbytes : sbytes;
    size_t sobytes = append ? sbytes : fbytes;
    target = memRealloc(m, target, (size_t)total);
    if (append) {
        /* [target entries][source entries, terminator] */
        memcpy(target + tbytes - 1, source + LP_HDR_SIZE,
               sobytes - LP_HDR_SIZE);
    } else {
        /* [source header and entries][target entries, terminator] */
        memmove(target + sobytes - 1, target + LP_HDR_SIZE,
                tbytes - LP_HDR_SIZE);
        memcpy(target, source, sobytes - 1);
    }
    _lpSetTotalBytes(target, (uint32_t)total);
    _lpSetNumElements(target, (uint32_t)n);
    memFree(m, source);
    *first = append ? target : NULL;
    *second = append ? NULL : target;
    return target;
}

/* ---- Walking ---- */

/* Returns the first element, or NULL if the listpack is empty. */
unsigned char *lpFirst(unsigned char *lp) {
    unsigned char *p = lp + LP_HDR_SIZE;
    return p[0] == LP_EOF ? NULL : p;
}

/* Returns the element after p, or NULL if p is the last. */
unsigned char *lpNext(unsigned char *lp, unsigned char *p) {
    (void)lp;
    p = _lpSkip(p);
    return p[0] == LP_EOF ? NULL : p;
}

/* Returns the element before p, or NULL if p is the first. p may be the
 * terminator, which gives the last element. The previous entry's backlen
 * ends at p[-1]; its value plus its own size is how far back the entry
 * starts. */
unsigned char *lpPrev(unsigned char *lp, unsigned char *p) {
    uint64_t prevlen;
    if (p - lp == LP_HDR_SIZE) return NULL;
    prevlen = _lpDecodeBacklen(p - 1);
    return p - prevlen - _lpBacklenSize(prevlen);
}

/* Returns the last element, or NULL if the listpack is empty. */
unsigned char *lpLast(unsigned char *lp) {
    return lpPrev(lp, _lpEof(lp));
}

/* Returns the element steps places after the first, or NULL. */
static unsigned char *_lpSeekForward(unsigned char *lp, unsigned long steps) {
    unsigned char *p = lpFirst(lp);
    while (p && steps > 0) {
        p = lpNext(lp, p);
        steps--;
    }
    return p;
}

/* Returns the rank-th element from the end (1 is the last), or NULL. */
static unsigned char *_lpSeekBackward(unsigned char *lp, unsigned long rank) {
    unsigned char *p = lpLast(lp);
    while (p && rank > 1) {
        p = lpPrev(lp, p);
        rank--;
    }
    return p;
}

/* Returns the element at index, where -1 is the last, or NULL if out of
 * range. With a known count, I walk from whichever end is nearer; without
 * one, forwards for index >= 0 and backwards for a negative index. */
unsigned char *lpSeek(unsigned char *lp, long index) {
    long n = (long)_lpGetNumElements(lp);
    if (n == LP_HDR_NUMELE_UNKNOWN) {
        if (index >= 0) return _lpSeekForward(lp, (unsigned long)index);
        return _lpSeekBackward(lp, 0UL - (unsigned long)index);
    }
    if (index < 0) index = index < -n ? -1 : index + n;
    if (index < 0 || index >= n) return NULL;
    if (index > n / 2) return _lpSeekBackward(lp, (unsigned long)(n - index));
    return _lpSeekForward(lp, (unsigned long)index);
}

/* ---- Reading elements ---- */

/* Reads the element at p. A string: returns a pointer to its bytes inside
 * the listpack and sets *count to its length. An integer: with intbuf
 * (LP_INTBUF_SIZE bytes) writes its decimal text there, NUL-terminated,
 * returns intbuf and sets *count to the text's length; without intbuf
 * returns NULL and sets *count to the value itself. */
unsigned char *lpGet(unsigned char *p, int64_t *count,
                     unsigned char *intbuf) {
    int64_t v;
    if (_lpIsString(p)) {
        uint32_t len;
        unsigned char *s = _lpStringAt(p, &len);
        *count = len;
        return s;
    }
    v = _lpIntegerAt(p);
    if (!intbuf) {
        *count = v;
        return NULL;
    }
    *count = _lpFormatInt64(v, intbuf);
    return intbuf;
}

/* Returns 1 and sets *v if the element at p is stored as an integer, else
 * returns 0 and leaves *v alone. */
int lpGetInteger(unsigned char *p, int64_t *v) {
    if (_lpIsString(p)) return 0;
    *v = _lpIntegerAt(p);
    return 1;
}

/* Returns 1 if the element at p, read as text, equals the slen bytes at
 * s; 0 otherwise, and 0 for the terminator. */
int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen) {
    unsigned char buf[LP_INTBUF_SIZE];
    unsigned char *v;
    int64_t len;
    if (p[0] == LP_EOF) return 0;
    v = lpGet(p, &len, buf);
    return len == (int64_t)slen && (slen == 0 || memcmp(v, s, slen) == 0);
}

/* Returns 1 if the element at p equals s. A string entry is compared byte
 * for byte; an integer entry can only equal s if s parses to it, and since
 * only canonical text parses, that is the same as comparing text. s is
 * parsed at most once per search: *sint is -1 until then, then 1 with *sv
 * set if s is an integer, else 0. */
static int _lpMatches(unsigned char *p, const unsigned char *s,
                      uint32_t slen, int *sint, int64_t *sv) {
    if (_lpIsString(p)) {
        uint32_t len;
        unsigned char *v = _lpStringAt(p, &len);
        return len == slen && (slen == 0 || memcmp(v, s, slen) == 0);
    }
    if (*sint < 0) *sint = lpStringToInt64((const char *)s, slen, sv);
    return *sint && _lpIntegerAt(p) == *sv;
}

/* Searches from p (inclusive) for an element equal to s, comparing one
 * element and then skipping skip of them: with skip = 1 on a hash's
 * field, value, field, value... only fields are compared. Returns the
 * element, or NULL if none matches or p is NULL. Each element passed is
 * charged to m's server (cost.h), unless m is NULL. */
unsigned char *lpFind(gkMem *m, unsigned char *lp, unsigned char *p,
                      const unsigned char *s, uint32_t slen,
                      unsigned int skip) {
    unsigned int skipcnt = 0;
    int sint = -1;
    int64_t sv = 0;
    uint64_t passed = 0;
    while (p) {
        passed++;
        if (skipcnt == 0) {
            if (_lpMatches(p, s, slen, &sint, &sv)) break;
            skipcnt = skip;
        } else {
            skipcnt--;
        }
        p = lpNext(lp, p);
    }
    if (m) memChargeNs(m, passed * COST_LP_FIND_NS);
    return p;
}

/* Returns the number of elements: from the header when it knows, else by
 * walking them all, O(N), and writing the count back if it fits again. */
unsigned long lpLength(unsigned char *lp) {
    uint32_t n = _lpGetNumElements(lp);
    unsigned long count = 0;
    if (n != LP_HDR_NUMELE_UNKNOWN) return n;
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) count++;
    if (count < LP_HDR_NUMELE_UNKNOWN) _lpSetNumElements(lp, (uint32_t)count);
    return count;
}

/* Returns the listpack's size in bytes, header and terminator included. */
size_t lpBytes(unsigned char *lp) {
    return _lpGetTotalBytes(lp);
}

/* Accumulates the decimal digits s[i..slen) onto *v, failing (returning 0)
 * on a non-digit or if the value would pass limit. */
static int _lpParseDigits(const char *s, unsigned long i, unsigned long slen,
                          uint64_t limit, uint64_t *v) {
    for (; i < slen; i++) {
        unsigned d;
        if (s[i] < '0' || s[i] > '9') return 0;
        d = (unsigned)(s[i] - '0');
        if (*v > (limit - d) / 10) return 0;
        *v = *v * 10 + d;
    }
    return 1;
}

/* Returns 1 and sets *value (when not NULL) if the slen bytes at s are an
 * integer in canonical form, exactly what Redis's string2ll accepts: an
 * optional '-', then "0" alone or a digit 1-9 followed by digits, at most
 * 20 bytes, within int64. No spaces, '+', leading zeros or "-0", so the
 * text of any accepted value prints back identically. Returns 0 otherwise. */
int lpStringToInt64(const char *s, unsigned long slen, int64_t *value) {
    unsigned long i = 0;
    int negative = 0;
    uint64_t v = 0;
    if (slen == 0 || slen > 20) return 0;
    if (slen == 1 && s[0] == '0') {
        if (value) *value = 0;
        return 1;
    }
    if (s[0] == '-') {
        negative = 1;
        i = 1;
    }
    if (i == slen || s[i] < '1' || s[i] > '9') return 0;
    if (!_lpParseDigits(s, i, slen,
                        negative ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &v))
        return 0;
    if (value) *value = negative ? -(int64_t)(v - 1) - 1 : (int64_t)v;
    return 1;
}

/* ---- Validating a listpack that came from outside ----
 *
 * Everything above trusts the listpack: it was built here. One read from
 * a file may lie anywhere, and every walk would then step outside the
 * blob. So before a loaded listpack is used I check it whole, as Redis
 * does with sanitize-dump-payload yes: the header's total is the blob's
 * size, each entry's encoding is known and its data and backlen lie
 * inside the blob, each backlen is the one this file would write, the
 * terminator comes right after the last entry, and the header's count is
 * the real count (or 65535). This costs one pass over the bytes. */

/* Returns the size of the encoding and data of the entry at p (without
 * backlen), or 0 if its encoding is unknown or its header does not fit
 * in the avail bytes before the terminator. */
static uint64_t _lpCheckedEncodedSize(const unsigned char *p, size_t avail) {
    static const unsigned char widths[] = { 5, 3, 4, 5, 9 };
    if ((p[0] & 0x80) == 0) return 1;
    if ((p[0] & 0xC0) == LP_ENC_6BIT_STR) return 1 + (p[0] & 0x3F);
    if ((p[0] & 0xE0) == LP_ENC_13BIT_INT) return 2;
    if ((p[0] & 0xF0) == LP_ENC_12BIT_STR)
        return avail < 2 ? 0 : 2 + ((uint64_t)(p[0] & 0x0F) << 8 | p[1]);
    if (p[0] < LP_ENC_32BIT_STR || p[0] > LP_ENC_64BIT_INT) return 0;
    if (p[0] == LP_ENC_32BIT_STR)
        return avail < 5 ? 0 : 5 + _lpLoadLE(p + 1, 4);
    return widths[p[0] - LP_ENC_32BIT_STR];
}

/* Checks the entry at p, which has avail bytes before the terminator.
 * Returns its whole size, or 0 if it is not a valid entry. */
static uint64_t _lpCheckEntry(const unsigned char *p, size_t avail) {
    unsigned char want[5];
    uint64_t enclen = _lpCheckedEncodedSize(p, avail);
    if (enclen == 0 || enclen > avail) return 0;
    unsigned blen = _lpEncodeBacklen(want, enclen);
    if (blen > avail - enclen || memcmp(p + enclen, want, blen) != 0)
        return 0;
    return enclen + blen;
}

/* Returns 1 if the size bytes at lp are a valid listpack (see above),
 * else 0. With deep 0 only the header and terminator are checked. Each
 * entry is passed to cb (when not NULL) once it is known to be whole;
 * cb returning 0 makes the listpack invalid. */
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep,
                        lpEntryCheck *cb, void *ctx) {
    if (size < LP_HDR_SIZE + 1 || _lpGetTotalBytes(lp) != size ||
        lp[size - 1] != LP_EOF)
        return 0;
    if (!deep) return 1;
    size_t pos = LP_HDR_SIZE, end = size - 1;
    unsigned long count = 0;
    while (pos < end) {
        uint64_t n = _lpCheckEntry(lp + pos, end - pos);
        if (n == 0 || (cb && !cb(lp + pos, ctx))) return 0;
        pos += (size_t)n;
        count++;
    }
    uint32_t hdr = _lpGetNumElements(lp);
    return hdr == LP_HDR_NUMELE_UNKNOWN || hdr == count;
}
