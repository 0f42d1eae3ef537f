/* lzf.c -- see lzf.h.
 *
 * The compressor. LZF finds repeats with a hash table of the last place
 * each 3-byte sequence was seen: at every input position it hashes the 3
 * bytes there, looks up the slot, and stores the current position in it.
 * If the slot held a position less than 8193 bytes back whose 3 bytes are
 * really the same (the hash may collide), the repeat is extended as far
 * as it goes (at most 264 bytes) and written as a copy; otherwise the
 * byte joins the current literal run. It is greedy and never looks for a
 * longer match elsewhere: one table probe per position, which is why LZF
 * is fast and compresses less than gzip.
 *
 * I follow the choices Redis's liblzf makes (16-bit table, the same hash
 * of the 3 bytes, no match against position 0, after a copy the two last
 * positions it covered are put in the table and the others skipped), so
 * that a node compresses to the same size here as there and the "saved
 * at least 8 bytes" rule of the quicklist decides the same way. One
 * difference: liblzf leaves its table uninitialized on the stack, and a
 * stale slot can then point at an old match by luck; I clear the table,
 * so the output depends on the input alone.
 *
 * The decompressor checks every run against both buffers and fails
 * (returns 0) instead of reading or writing outside them, so it can be
 * handed bytes from a file. */
#include <string.h>
#include "lzf.h"

#define LZF_MAX_LIT 32          /* bytes in one literal run */
#define LZF_MAX_OFF 8192        /* how far back a copy may reach */
#define LZF_MAX_REF 264         /* bytes in one copy */

/* The table slot of the 3 bytes at p: a cheap multiplicative-style hash
 * of their 24 bits, the one liblzf uses with 16-bit tables. */
static unsigned _lzfSlot(const unsigned char *p) {
    uint32_t h = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return ((h >> 8) - h * 5) & (LZF_HTAB_SLOTS - 1);
}

/* How many bytes at in+ip repeat those at in+ref, given that the first 3
 * do and that at most maxlen should be taken. Like liblzf, when more than
 * 16 may be taken I compare the next 16 without looking at maxlen (the
 * caller's bounds leave room for them), so near the end of the input a
 * copy can run up to 2 bytes past maxlen, never past the input. */
static size_t _lzfMatchLength(const unsigned char *in, size_t ref, size_t ip,
                              size_t maxlen) {
    size_t len = 2;
    if (maxlen > 16) {
        for (int k = 0; k < 16; k++) {
            len++;
            if (in[ref + len] != in[ip + len]) return len;
        }
    }
    do len++;
    while (len < maxlen && in[ref + len] == in[ip + len]);
    return len;
}

/* Writes a copy of count bytes from off+1 bytes back at out+op; returns
 * the new op. */
static size_t _lzfPutCopy(unsigned char *out, size_t op, size_t count,
                          size_t off) {
    size_t len = count - 2;
    if (len < 7) {
        out[op++] = (unsigned char)((off >> 8) + (len << 5));
    } else {
        out[op++] = (unsigned char)((off >> 8) + (7 << 5));
        out[op++] = (unsigned char)(len - 7);
    }
    out[op++] = (unsigned char)(off & 0xff);
    return op;
}

/* Appends one literal byte to the open run; a full run gets its control
 * byte (its length - 1) and the next run's control byte is reserved. */
static void _lzfLiteral(unsigned char *out, size_t *op, size_t *lit,
                        unsigned char byte) {
    ++*lit;
    out[(*op)++] = byte;
    if (*lit == LZF_MAX_LIT) {
        out[*op - *lit - 1] = (unsigned char)(*lit - 1);
        *lit = 0;
        ++*op;
    }
}

/* Compresses in_len bytes at in into out, which has out_len bytes, using
 * htab (LZF_HTAB_SLOTS entries, cleared here) as scratch. Returns the
 * compressed size, or 0 if it would not fit in out_len (or the input is
 * empty, or 4 GB or more). The output always fits in
 * in_len + in_len / 32 + 1 bytes. */
size_t lzfCompress(const void *in_data, size_t in_len, void *out_data,
                   size_t out_len, uint32_t *htab) {
    const unsigned char *in = in_data;
    unsigned char *out = out_data;
    size_t ip = 0, op = 1, lit = 0;   /* out[0]: the first run's control */
    if (in_len == 0 || out_len == 0 || in_len >= UINT32_MAX) return 0;
    memset(htab, 0, sizeof(*htab) * LZF_HTAB_SLOTS);
    while (ip + 2 < in_len) {
        unsigned slot = _lzfSlot(in + ip);
        size_t ref = htab[slot];        /* a position + 1; 0: none yet */
        htab[slot] = (uint32_t)(ip + 1);
        if (ref >= 2 && ip - (ref - 1) - 1 < LZF_MAX_OFF &&
            !memcmp(in + ref - 1, in + ip, 3)) {
            size_t r = ref - 1, off = ip - r - 1;
            size_t maxlen = in_len - ip - 2;
            if (maxlen > LZF_MAX_REF) maxlen = LZF_MAX_REF;
            if (op - (lit == 0) + 4 >= out_len) return 0;
            if (lit) out[op - lit - 1] = (unsigned char)(lit - 1);
            else op--;                  /* the empty run takes no byte */
            size_t count = _lzfMatchLength(in, r, ip, maxlen);
            op = _lzfPutCopy(out, op, count, off);
            lit = 0;
            op++;                       /* the next run's control byte */
            ip += count;
            if (ip >= in_len - 2) break;
            /* The copy's last two positions go in the table. */
            htab[_lzfSlot(in + ip - 2)] = (uint32_t)(ip - 1);
            htab[_lzfSlot(in + ip - 1)] = (uint32_t)ip;
            continue;
        }
        if (op >= out_len) return 0;
        _lzfLiteral(out, &op, &lit, in[ip++]);
    }
    if (op + 3 > out_len) return 0;     /* room for what is left */
    while (ip < in_len) _lzfLiteral(out, &op, &lit, in[ip++]);
    if (lit) out[op - lit - 1] = (unsigned char)(lit - 1);
    else op--;
    return op;
}

/* Decompresses in_len bytes at in into out, which has out_len bytes.
 * Returns the decompressed size, or 0 if the stream is damaged: a run
 * that reads past the input, writes past out_len or copies from before
 * the start of the output. */
size_t lzfDecompress(const void *in_data, size_t in_len, void *out_data,
                     size_t out_len) {
    const unsigned char *in = in_data;
    unsigned char *out = out_data;
    size_t ip = 0, op = 0;
    while (ip < in_len) {
        size_t ctrl = in[ip++];
        if (ctrl < LZF_MAX_LIT) {
            size_t n = ctrl + 1;
            if (n > out_len - op || n > in_len - ip) return 0;
            memcpy(out + op, in + ip, n);
            op += n;
            ip += n;
            continue;
        }
        size_t len = ctrl >> 5, back = (ctrl & 0x1f) << 8;
        if (ip >= in_len) return 0;
        if (len == 7) {
            len += in[ip++];
            if (ip >= in_len) return 0;
        }
        back += (size_t)in[ip++] + 1;
        len += 2;
        if (back > op || len > out_len - op) return 0;
        /* Byte by byte: a copy may overlap what it writes ("abcabcabc"
         * is "abc" and a copy of 6 from 3 back). */
        for (size_t i = 0; i < len; i++, op++) out[op] = out[op - back];
    }
    return op;
}
