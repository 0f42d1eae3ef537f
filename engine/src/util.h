/* util.h -- number/string conversions and glob matching, as Redis does
 * them, so replies and error decisions match byte for byte. */
#ifndef GK_UTIL_H
#define GK_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define LONG_STR_SIZE 21        /* bytes for any long long plus NUL */
#define MAX_D2STRING_CHARS 128  /* bytes for any double as text */
#define MAX_LONG_DOUBLE_CHARS (5 * 1024) /* a long double as text */

int ll2string(char *dst, size_t dstlen, long long value);
int ull2string(char *dst, size_t dstlen, unsigned long long value);
int string2ll(const char *s, size_t slen, long long *value);
int string2ull(const char *s, unsigned long long *value);
int string2d(const char *s, size_t slen, double *dp);
int d2string(char *buf, size_t len, double value);
int string2ld(const char *s, size_t slen, long double *dp);
int ld2string(char *buf, size_t len, long double value);
int stringmatchlen(const char *pattern, int patternLen, const char *string,
                   int stringLen, int nocase);
uint64_t reverseBits64(uint64_t v);
uint64_t errorCodeNumber(const char *err, size_t len);

#endif
