/* listpack.h -- Redis 7.0's listpack, byte for byte.
 *
 * A listpack is a list of strings and integers serialized into one
 * allocation: a 6-byte header, the entries, and a 0xFF terminator. Redis 7.0
 * uses it for small hashes and sorted sets (and inside quicklist nodes). An
 * entry that looks like a canonical decimal integer is stored as an integer
 * in 1 to 9 bytes; any other entry as its length and bytes. Each entry ends
 * with its own length, so the list can be walked both ways. listpack.c has
 * the full layout.
 *
 * An element is addressed by a pointer to its first byte inside the
 * listpack. Functions that change the listpack may move it: they return the
 * new pointer, and every element pointer taken before the change is invalid
 * unless the function hands back a fresh one through newp. */
#ifndef GK_LISTPACK_H
#define GK_LISTPACK_H

#include <stddef.h>
#include <stdint.h>
#include "mem.h"

/* Where lpInsertString puts the new element relative to p. */
#define LP_BEFORE 0
#define LP_AFTER 1
#define LP_REPLACE 2

/* Room lpGet needs to print an integer: "-9223372036854775808" and a NUL. */
#define LP_INTBUF_SIZE 21

/* Called by lpValidateIntegrity with each entry once it is known to lie
 * whole inside the listpack; returns 0 to declare the listpack invalid. */
typedef int lpEntryCheck(unsigned char *p, void *ctx);

unsigned char *lpCreate(gkMem *m, size_t capacity);
void lpRelease(gkMem *m, unsigned char *lp);
unsigned char *lpAppend(gkMem *m, unsigned char *lp, const unsigned char *s,
                        uint32_t slen);
unsigned char *lpPrepend(gkMem *m, unsigned char *lp, const unsigned char *s,
                         uint32_t slen);
unsigned char *lpAppendInteger(gkMem *m, unsigned char *lp, int64_t v);
unsigned char *lpInsertString(gkMem *m, unsigned char *lp,
                              const unsigned char *s, uint32_t slen,
                              unsigned char *p, int where,
                              unsigned char **newp);
unsigned char *lpReplace(gkMem *m, unsigned char *lp, unsigned char **p,
                         const unsigned char *s, uint32_t slen);
unsigned char *lpDelete(gkMem *m, unsigned char *lp, unsigned char *p,
                        unsigned char **newp);
unsigned char *lpDeleteRange(gkMem *m, unsigned char *lp, long index,
                             unsigned long num);
unsigned char *lpMerge(gkMem *m, unsigned char **first,
                       unsigned char **second);
unsigned char *lpFirst(unsigned char *lp);
unsigned char *lpLast(unsigned char *lp);
unsigned char *lpNext(unsigned char *lp, unsigned char *p);
unsigned char *lpPrev(unsigned char *lp, unsigned char *p);
unsigned char *lpSeek(unsigned char *lp, long index);
unsigned char *lpGet(unsigned char *p, int64_t *count,
                     unsigned char *intbuf);
int lpGetInteger(unsigned char *p, int64_t *v);
int lpCompare(unsigned char *p, const unsigned char *s, uint32_t slen);
unsigned char *lpFind(gkMem *m, unsigned char *lp, unsigned char *p,
                      const unsigned char *s, uint32_t slen,
                      unsigned int skip);
unsigned long lpLength(unsigned char *lp);
size_t lpBytes(unsigned char *lp);
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep,
                        lpEntryCheck *cb, void *ctx);
int lpStringToInt64(const char *s, unsigned long slen, int64_t *value);

#endif
