/* util.c -- see util.h. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <math.h>
#include <ctype.h>
#include <limits.h>
#include "glasskv.h"
#include "util.h"

/* Writes value in decimal; returns its length, or 0 if dst is too small. */
int ull2string(char *dst, size_t dstlen, unsigned long long value) {
    char tmp[LONG_STR_SIZE];
    int n = 0;
    do { tmp[n++] = (char)('0' + value % 10); value /= 10; } while (value);
    if ((size_t)n + 1 > dstlen) return 0;
    for (int i = 0; i < n; i++) dst[i] = tmp[n - 1 - i];
    dst[n] = '\0';
    return n;
}

/* As ull2string, for a signed value (LLONG_MIN included). Returns the
 * length, or 0, writing nothing, if dst is too small. */
int ll2string(char *dst, size_t dstlen, long long value) {
    if (value >= 0) return ull2string(dst, dstlen, (unsigned long long)value);
    if (dstlen < 2) return 0;
    unsigned long long u = (unsigned long long)(-(value + 1)) + 1;
    int n = ull2string(dst + 1, dstlen - 1, u);
    if (n == 0) return 0;
    dst[0] = '-';
    return n + 1;
}

/* Parses a strict decimal long long: no spaces, no '+', no leading zeros
 * (except "0" itself), no "-0", at most 20 digits, no overflow. This is the
 * rule Redis uses both to reject bad integers and to decide whether a string
 * can be stored in integer encoding. Returns 1 on success, 0 otherwise. */
int string2ll(const char *s, size_t slen, long long *value) {
    const char *p = s;
    size_t plen = 0;
    int negative = 0;
    unsigned long long v;
    if (slen == 0 || slen >= LONG_STR_SIZE) return 0;
    if (slen == 1 && p[0] == '0') { if (value) *value = 0; return 1; }
    if (p[0] == '-') {
        negative = 1; p++; plen++;
        if (plen == slen) return 0;
    }
    if (p[0] < '1' || p[0] > '9') return 0;
    v = (unsigned long long)(p[0] - '0');
    p++;
    plen++;
    while (plen < slen && p[0] >= '0' && p[0] <= '9') {
        if (v > (~0ULL) / 10) return 0;
        v *= 10;
        unsigned long long d = (unsigned long long)(p[0] - '0');
        if (v > (~0ULL) - d) return 0;
        v += d;
        p++; plen++;
    }
    if (plen < slen) return 0;
    if (negative) {
        if (v > ((unsigned long long)(-(LLONG_MIN + 1)) + 1)) return 0;
        if (value) *value = (long long)(0 - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        if (value) *value = (long long)v;
    }
    return 1;
}

/* strtoull semantics as SCAN's cursor parser uses them: a leading space is
 * rejected, trailing bytes are rejected, overflow is rejected, and a sign is
 * accepted (so "-1" is ULLONG_MAX). Returns 1 on success. */
int string2ull(const char *s, unsigned long long *value) {
    char *end;
    if (isspace((unsigned char)s[0])) return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE) return 0;
    *value = v;
    return 1;
}

/* Parses a double as Redis's getDoubleFromObject does: strtod over the whole
 * string, no leading space, no NaN, no overflow. Returns 1 on success. */
int string2d(const char *s, size_t slen, double *dp) {
    char small[MAX_D2STRING_CHARS];
    const char *p = s;
    char *end;
    if (slen == 0 || isspace((unsigned char)s[0])) return 0;
    if (s[slen] != '\0') {                  /* not terminated: copy */
        if (slen >= sizeof(small)) return 0;
        memcpy(small, s, slen);
        small[slen] = '\0';
        p = small;
    }
    errno = 0;
    double v = strtod(p, &end);
    if ((size_t)(end - p) != slen) return 0;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0))
        return 0;
    if (isnan(v)) return 0;
    *dp = v;
    return 1;
}

/* Formats a double the way Redis 7.0 replies with it: integral values that
 * a long long holds exactly are printed as integers ("3", "0"), infinities
 * as "inf"/"-inf", everything else with 17 significant digits. */
int d2string(char *buf, size_t len, double value) {
    if (isnan(value)) return snprintf(buf, len, "nan");
    if (isinf(value)) return snprintf(buf, len, value > 0 ? "inf" : "-inf");
    if (value == 0) return snprintf(buf, len, signbit(value) ? "-0" : "0");
    const double lim = 4503599627370496.0; /* 2^52 */
    if (value > -lim && value < lim && value == (double)(long long)value)
        return ll2string(buf, len, (long long)value);
    return snprintf(buf, len, "%.17g", value);
}

/* Parses a long double as INCRBYFLOAT and HINCRBYFLOAT read their
 * operands: the whole of s[0..slen) must be the number, with no leading
 * space, shorter than MAX_LONG_DOUBLE_CHARS, not NaN, and not so large or
 * so small that strtold gives up (an underflow to a subnormal value is
 * accepted, as it is by Redis). Returns 1 and sets *dp, or returns 0. */
int string2ld(const char *s, size_t slen, long double *dp) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    char *end;
    if (slen == 0 || slen >= sizeof(buf)) return 0;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    errno = 0;
    long double v = strtold(buf, &end);
    if (isspace((unsigned char)buf[0]) || (size_t)(end - buf) != slen)
        return 0;
    if (errno == ERANGE &&
        (v == HUGE_VALL || v == -HUGE_VALL || fpclassify(v) == FP_ZERO))
        return 0;
    if (errno == EINVAL || isnan(v)) return 0;
    *dp = v;
    return 1;
}

/* Formats a long double the "human friendly" way INCRBYFLOAT stores its
 * result: fixed point with 17 decimals, then trailing zeros (and a bare
 * point) removed, "-0" written "0", infinities as "inf"/"-inf". 1e308 is
 * written out in full, 309 digits, which is why the buffer of a caller is
 * MAX_LONG_DOUBLE_CHARS long. Returns the length, or 0 if buf is too
 * small. */
int ld2string(char *buf, size_t len, long double value) {
    if (isinf(value)) {
        if (len < 5) return 0;
        return snprintf(buf, len, value > 0 ? "inf" : "-inf");
    }
    int l = snprintf(buf, len, "%.17Lf", value);
    if (l < 0 || (size_t)l + 1 > len) return 0;
    if (strchr(buf, '.')) {
        char *p = buf + l - 1;
        while (*p == '0') { p--; l--; }
        if (*p == '.') l--;
    }
    if (l == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; l = 1; }
    buf[l] = '\0';
    return l;
}

static int _matchClass(const char **pp, int *plen, char c, int nocase) {
    const char *p = *pp + 1;
    int len = *plen - 1, not = 0, match = 0;
    if (len > 0 && *p == '^') { not = 1; p++; len--; }
    while (len > 0) {
        if (*p == '\\' && len >= 2) {
            p++; len--;
            if (*p == c) match = 1;
        } else if (*p == ']') {
            break;
        } else if (len >= 3 && p[1] == '-') {
            int start = (unsigned char)p[0], end = (unsigned char)p[2];
            int ch = (unsigned char)c;
            if (start > end) { int t = start; start = end; end = t; }
            if (nocase) {
                start = tolower(start); end = tolower(end);
                ch = tolower(ch);
            }
            p += 2; len -= 2;
            if (ch >= start && ch <= end) match = 1;
        } else {
            if (nocase ? tolower((unsigned char)*p) ==
                         tolower((unsigned char)c) : *p == c) match = 1;
        }
        p++; len--;
    }
    if (len == 0) { p--; len++; } /* no closing bracket: stay on the end */
    *pp = p;
    *plen = len;
    return not ? !match : match;
}

/* Glob matching with two guards against abusive patterns, as Redis 7.0
 * has them: recursion stops at 1000 nested stars, and once the rest of
 * the pattern after a star has failed to match at every position of the
 * rest of the string, no earlier star can make it match either (it could
 * only push the rest further right), so the whole match fails at once.
 * Without this, "a*a*a*...*b" against a long string of a's takes
 * exponential time. */
static int _globMatch(const char *pattern, int patternLen, const char *string,
                      int stringLen, int nocase, int *skip, int nesting) {
    if (nesting > 1000) return 0;
    while (patternLen && stringLen) {
        switch (pattern[0]) {
        case '*':
            while (patternLen > 1 && pattern[1] == '*') {
                pattern++; patternLen--;
            }
            if (patternLen == 1) return 1;
            while (stringLen) {
                if (_globMatch(pattern + 1, patternLen - 1, string,
                               stringLen, nocase, skip, nesting + 1))
                    return 1;
                if (*skip) return 0;
                string++; stringLen--;
            }
            *skip = 1;
            return 0;
        case '?':
            string++; stringLen--;
            break;
        case '[':
            if (!_matchClass(&pattern, &patternLen, string[0], nocase))
                return 0;
            string++; stringLen--;
            break;
        case '\\':
            if (patternLen >= 2) { pattern++; patternLen--; }
            /* fall through */
        default:
            if (nocase ? tolower((unsigned char)pattern[0]) !=
                         tolower((unsigned char)string[0])
                       : pattern[0] != string[0]) return 0;
            string++; stringLen--;
            break;
        }
        pattern++; patternLen--;
        if (stringLen == 0) {
            while (patternLen && *pattern == '*') { pattern++; patternLen--; }
            break;
        }
    }
    return patternLen == 0 && stringLen == 0;
}

/* Glob-style matching: * ? [abc] [^a] [a-z] and \\ escapes, as the KEYS and
 * SCAN MATCH patterns work. Returns 1 on a match. */
int stringmatchlen(const char *pattern, int patternLen, const char *string,
                   int stringLen, int nocase) {
    int skip = 0;
    return _globMatch(pattern, patternLen, string, stringLen, nocase, &skip,
                      0);
}

/* v with its 64 bits in reverse order: dictScan's cursor increments the
 * high bits of the reversed index (see the comment on dictScan). */
uint64_t reverseBits64(uint64_t v) {
    uint64_t s = 64, mask = ~0ULL;
    while ((s >>= 1) > 0) {
        mask ^= (mask << s);
        v = ((v >> s) & mask) | ((v << s) & ~mask);
    }
    return v;
}

/* The code of the error reply err ("-BUSY Redis is busy ..." or "BUSY
 * ..." -> BUSY) as GK_ERROR_CODE_BASE says: its letters and digits up to
 * the first other character, at most GK_ERROR_CODE_MAX of them. */
uint64_t errorCodeNumber(const char *err, size_t len) {
    uint64_t v = 0;
    size_t i = len && err[0] == '-' ? 1 : 0;
    for (int k = 0; k < GK_ERROR_CODE_MAX && i < len; k++, i++) {
        char ch = err[i];
        int digit = ch >= 'A' && ch <= 'Z' ? ch - 'A' + 1
                  : ch >= '0' && ch <= '9' ? ch - '0' + 27 : 0;
        if (!digit) break;
        v = v * GK_ERROR_CODE_BASE + (uint64_t)digit;
    }
    return v;
}
