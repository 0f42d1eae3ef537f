/* cliformat.c -- redis-cli's line syntax and reply formatting.
 *
 * Two halves. The first splits a typed line the way redis-cli 7.0 does
 * (its sdssplitargs) and encodes the arguments as a RESP multibulk. The
 * second reads one reply, RESP2 or RESP3, and renders it exactly as
 * `redis-cli --no-raw` renders it: cliFormatReplyTTY's numbering, padding
 * and nesting, sdscatrepr's quoting, and for the few commands redis-cli
 * prints verbatim (INFO, DEBUG HTSTATS, CLIENT LIST...) its raw rendering.
 *
 * Everything here is pure C with no stdio, so the same file is compiled
 * into the WebAssembly build and the browser console prints the same bytes
 * as the native command line. */
#include "cliformat.h"

#include <stdlib.h>
#include <string.h>

#define CLI_MAX_DEPTH 128   /* deeper nesting is rejected, not recursed */

/* ---- A growable byte buffer, NUL-terminated once allocated. ---- */

typedef struct cliBuf {
    char *p;        /* bytes, malloc'd */
    size_t len;     /* bytes in use */
    size_t cap;     /* bytes allocated */
    int oom;        /* set once an allocation failed; appends then no-op */
} cliBuf;

/* Makes room for n more bytes and a NUL, and keeps the bytes in use
 * NUL-terminated. Returns 0, or -1 after marking the buffer out of memory,
 * so callers may append freely and check once. */
static int _bufReserve(cliBuf *b, size_t n) {
    if (b->oom) return -1;
    if (n > (size_t)-1 / 2 - b->len) { b->oom = 1; return -1; }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) { b->oom = 1; return -1; }
        b->p = p;
        b->cap = cap;
    }
    b->p[b->len] = '\0';
    return 0;
}

/* Appends n bytes of s. */
static void _bufCat(cliBuf *b, const char *s, size_t n) {
    if (_bufReserve(b, n) != 0) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* Appends s up to its first NUL, as C's "%s" would print it. */
static void _bufCatStr(cliBuf *b, const char *s) {
    _bufCat(b, s, strlen(s));
}

/* Appends s[0..n) up to its first NUL: what redis-cli prints for status
 * and error replies, which it handles as C strings. */
static void _bufCatCStr(cliBuf *b, const char *s, size_t n) {
    const char *nul = memchr(s, '\0', n);
    _bufCat(b, s, nul ? (size_t)(nul - s) : n);
}

/* Appends one byte. */
static void _bufCatChar(cliBuf *b, char c) {
    _bufCat(b, &c, 1);
}

/* Appends n spaces. */
static void _bufCatSpaces(cliBuf *b, size_t n) {
    if (_bufReserve(b, n) != 0) return;
    memset(b->p + b->len, ' ', n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* Appends the decimal digits of v, right-aligned in width columns with
 * spaces, like printf("%*llu"). */
static void _bufCatPadded(cliBuf *b, unsigned long long v, unsigned width) {
    char tmp[24];
    unsigned n = 0;
    do {
        tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (width > n) _bufCatSpaces(b, width - n);
    _bufCat(b, tmp + sizeof(tmp) - n, n);
}

/* Appends v in decimal, like printf("%lld"). */
static void _bufCatLL(cliBuf *b, long long v) {
    unsigned long long u = (unsigned long long)v;
    if (v < 0) {
        _bufCatChar(b, '-');
        u = 0 - u;
    }
    _bufCatPadded(b, u, 0);
}

/* Hands the buffer's bytes to the caller: *text gets a NUL-terminated
 * malloc'd string (never NULL on success, "" for no bytes). Returns 0, or
 * CLI_ENOMEM after freeing the buffer. */
static int _bufDetach(cliBuf *b, char **text, size_t *textlen) {
    if (!b->oom && b->p == NULL) _bufReserve(b, 0);
    if (b->oom) {
        free(b->p);
        return CLI_ENOMEM;
    }
    b->p[b->len] = '\0';
    *text = b->p;
    if (textlen) *textlen = b->len;
    return 0;
}

/* ---- Character classes of the C locale, which redis-cli runs in. ---- */

/* Returns 1 for the bytes isspace() accepts in the C locale. */
static int _isSpace(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

/* Returns 1 for printable ASCII, isprint() in the C locale. */
static int _isPrint(int c) {
    return c >= 0x20 && c < 0x7f;
}

/* Returns the value of a hex digit, or -1 for any other byte. */
static int _hexValue(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Compares two C strings ignoring ASCII case, as strcasecmp does in the C
 * locale. Returns 1 when they are equal. */
static int _eqNoCase(const char *a, const char *b) {
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
        if (x == 0) return 1;
    }
}

/* ---- Splitting a line as sdssplitargs does. ---- */

/* The line being split. sdssplitargs walks a C string, so the line ends at
 * its first NUL even when len says otherwise. */
typedef struct cliSplitter {
    const char *s;  /* the line */
    size_t n;       /* its length up to the first NUL */
    size_t i;       /* read position */
} cliSplitter;

/* Returns the byte k places ahead of the read position, 0 past the end. */
static int _peek(const cliSplitter *sp, size_t k) {
    return sp->i + k < sp->n ? (unsigned char)sp->s[sp->i + k] : 0;
}

/* Consumes one byte inside quotes that is not an escape: the closing
 * quote (which sets *done) or a plain byte. Returns 0, or CLI_INVALID for
 * an unterminated quote or a closing quote glued to the next argument.
 * Both kinds of quote end this way; only their escapes differ. */
static int _splitQuoted(cliSplitter *sp, cliBuf *tok, int quote, int *done) {
    int c = _peek(sp, 0);
    if (c == quote) {
        if (_peek(sp, 1) && !_isSpace(_peek(sp, 1))) return CLI_INVALID;
        *done = 1;
    } else if (c == 0) {
        return CLI_INVALID;
    } else {
        _bufCatChar(tok, (char)c);
    }
    sp->i++;
    return 0;
}

/* Consumes one byte inside "double quotes": a \xHH escape, a backslash
 * escape (\n \r \t \b \a, any other byte stands for itself), or what
 * _splitQuoted consumes, with its contract. */
static int _splitDouble(cliSplitter *sp, cliBuf *tok, int *done) {
    int c = _peek(sp, 0), h1, h2;
    if (c == '\\' && _peek(sp, 1) == 'x' &&
        (h1 = _hexValue(_peek(sp, 2))) >= 0 &&
        (h2 = _hexValue(_peek(sp, 3))) >= 0) {
        _bufCatChar(tok, (char)(h1 * 16 + h2));
        sp->i += 4;
    } else if (c == '\\' && _peek(sp, 1)) {
        static const char from[] = "nrtba", to[] = "\n\r\t\b\a";
        int e = _peek(sp, 1);
        const char *k = memchr(from, e, 5);
        _bufCatChar(tok, k ? to[k - from] : (char)e);
        sp->i += 2;
    } else {
        return _splitQuoted(sp, tok, '"', done);
    }
    return 0;
}

/* Consumes one byte inside 'single quotes', where only \' is an escape.
 * Same contract as _splitDouble. */
static int _splitSingle(cliSplitter *sp, cliBuf *tok, int *done) {
    if (_peek(sp, 0) == '\\' && _peek(sp, 1) == '\'') {
        _bufCatChar(tok, '\'');
        sp->i += 2;
        return 0;
    }
    return _splitQuoted(sp, tok, '\'', done);
}

/* Reads one argument into tok. Outside quotes an argument ends at a space,
 * tab, CR or LF (not at \v or \f, which only count as blanks between
 * arguments); a quote may open in the middle of an argument. Returns 0 or
 * CLI_INVALID. */
static int _splitToken(cliSplitter *sp, cliBuf *tok) {
    int quote = 0, done = 0, rc = 0;
    while (!done && rc == 0) {
        int c = _peek(sp, 0);
        if (quote == '"') {
            rc = _splitDouble(sp, tok, &done);
        } else if (quote == '\'') {
            rc = _splitSingle(sp, tok, &done);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
                   c == 0) {
            done = 1;
        } else {
            if (c == '"' || c == '\'') quote = c;
            else _bufCatChar(tok, (char)c);
            sp->i++;
        }
    }
    if (rc == 0 && _bufReserve(tok, 0) != 0) rc = CLI_ENOMEM;
    return rc;
}

/* Appends a finished argument to args, taking ownership of tok's bytes.
 * Returns 0 or CLI_ENOMEM. */
static int _argsPush(cliArgs *args, cliBuf *tok) {
    size_t n = (size_t)args->argc + 1;
    char **argv = realloc(args->argv, n * sizeof(char *));
    if (argv == NULL) return CLI_ENOMEM;
    args->argv = argv;
    size_t *lens = realloc(args->lens, n * sizeof(size_t));
    if (lens == NULL) return CLI_ENOMEM;
    args->lens = lens;
    argv[args->argc] = tok->p;
    lens[args->argc] = tok->len;
    args->argc++;
    return 0;
}

/* Splits line[0..len) into arguments with redis-cli's rules (see the
 * header). On success fills *out, which the caller releases with
 * cliArgsRelease, and returns the argument count (0 for a blank line, with
 * out->argv NULL). Returns CLI_INVALID for unbalanced quotes or a closing
 * quote not followed by a blank, CLI_ENOMEM if malloc fails; *out is then
 * empty and needs no release. */
int cliSplitLine(const char *line, size_t len, cliArgs *out) {
    const char *nul = memchr(line, '\0', len);
    cliSplitter sp = { line, nul ? (size_t)(nul - line) : len, 0 };
    int rc = 0;
    memset(out, 0, sizeof(*out));
    for (;;) {
        while (_isSpace(_peek(&sp, 0))) sp.i++;
        if (_peek(&sp, 0) == 0) break;
        cliBuf tok = { 0 };
        rc = _splitToken(&sp, &tok);
        if (rc == 0) rc = _argsPush(out, &tok);
        if (rc != 0) {
            free(tok.p);
            cliArgsRelease(out);
            return rc;
        }
    }
    return out->argc;
}

/* Frees what cliSplitLine allocated and empties args. Safe to call on an
 * empty or already released cliArgs. */
void cliArgsRelease(cliArgs *args) {
    for (int j = 0; j < args->argc; j++) free(args->argv[j]);
    free(args->argv);
    free(args->lens);
    memset(args, 0, sizeof(*args));
}

/* ---- Encoding a request. ---- */

/* Encodes argv as one RESP multibulk ("*N\r\n" then "$len\r\nbytes\r\n"
 * per argument), the bytes redis-cli writes. Returns argc with *out a
 * malloc'd buffer of *outlen bytes (NUL-terminated for convenience), or 0
 * with *out NULL when argc is 0, or CLI_ENOMEM. */
int cliArgvToResp(int argc, char *const *argv, const size_t *lens,
                  char **out, size_t *outlen) {
    cliBuf b = { 0 };
    *out = NULL;
    *outlen = 0;
    if (argc <= 0) return 0;
    _bufCatChar(&b, '*');
    _bufCatLL(&b, argc);
    _bufCat(&b, "\r\n", 2);
    for (int j = 0; j < argc; j++) {
        _bufCatChar(&b, '$');
        _bufCatLL(&b, (long long)lens[j]);
        _bufCat(&b, "\r\n", 2);
        _bufCat(&b, argv[j], lens[j]);
        _bufCat(&b, "\r\n", 2);
    }
    if (_bufDetach(&b, out, outlen) != 0) return CLI_ENOMEM;
    return argc;
}

/* Splits one line and encodes it as a RESP request. Returns the argument
 * count with *out malloc'd (free() it), 0 for a blank line with *out NULL,
 * CLI_INVALID (-1) for unbalanced quotes or an invalid line, CLI_ENOMEM
 * (-2) if malloc fails. */
int cliLineToResp(const char *line, size_t len, char **out, size_t *outlen) {
    cliArgs args;
    *out = NULL;
    *outlen = 0;
    int rc = cliSplitLine(line, len, &args);
    if (rc <= 0) return rc;
    rc = cliArgvToResp(args.argc, args.argv, args.lens, out, outlen);
    cliArgsRelease(&args);
    return rc;
}

/* ---- What the interactive loop decides from the arguments. ---- */

/* Parses s as glibc's strtol(s, &end, 10) would: leading blanks, a sign,
 * digits. Returns 1 when the whole string was consumed (which includes
 * the empty string, as strtol leaves end at s then), else 0. *v gets the
 * value; *overflow is set when it does not fit in 64 bits. */
static int _parseStrtol(const char *s, long long *v, int *overflow) {
    const char *p = s;
    unsigned long long acc = 0, lim;
    int neg = 0, digits = 0;
    *overflow = 0;
    while (_isSpace((unsigned char)*p)) p++;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    lim = neg ? 9223372036854775808ULL : 9223372036854775807ULL;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        unsigned d = (unsigned)(*p - '0');
        if (acc > (lim - d) / 10) *overflow = 1;
        else acc = acc * 10 + d;
    }
    if (digits == 0) p = s;
    *v = neg ? (long long)(0 - acc) : (long long)acc;
    return *p == '\0';
}

/* redis-cli runs "N cmd args..." N times. Decides whether argv starts with
 * such a count: returns 1 (skip one argument) with *repeat = N, 0 when the
 * first argument is the command itself (*repeat = 1), or -1 when the
 * count is zero, negative or too large, where redis-cli prints "Invalid
 * redis-cli repeat command option value." and runs nothing. A lone
 * number ("5") is a command, and so is "0x5". */
int cliRepeatPrefix(int argc, char *const *argv, long long *repeat) {
    long long v;
    int overflow;
    *repeat = 1;
    if (argc < 2 || !_parseStrtol(argv[0], &v, &overflow)) return 0;
    if (overflow || v <= 0) return -1;
    *repeat = v;
    return 1;
}

/* Returns 1 when redis-cli 7.0 prints this command's reply raw (its text
 * as is, errors without "(error) ", no final newline added) even with
 * --no-raw: INFO, LOLWUT, DEBUG HTSTATS / HTSTATS-KEY / CLIENT-EVICTION,
 * MEMORY MALLOC-STATS / DOCTOR, CLUSTER NODES / INFO, CLIENT LIST / INFO,
 * LATENCY GRAPH / DOCTOR and PROXY INFO, with its argument-count rules. */
int cliArgvWantsRaw(int argc, char *const *argv) {
    if (argc < 1) return 0;
    const char *c = argv[0], *a = argc >= 2 ? argv[1] : "";
    if (_eqNoCase(c, "info") || _eqNoCase(c, "lolwut")) return 1;
    if (argc < 2) return 0;
    if (_eqNoCase(c, "debug"))
        return _eqNoCase(a, "htstats") || _eqNoCase(a, "htstats-key") ||
               _eqNoCase(a, "client-eviction");
    if (_eqNoCase(c, "memory"))
        return _eqNoCase(a, "malloc-stats") || _eqNoCase(a, "doctor");
    if (_eqNoCase(c, "cluster"))
        return argc == 2 && (_eqNoCase(a, "nodes") || _eqNoCase(a, "info"));
    if (_eqNoCase(c, "client"))
        return _eqNoCase(a, "list") || _eqNoCase(a, "info");
    if (_eqNoCase(c, "latency"))
        return (argc == 3 && _eqNoCase(a, "graph")) ||
               (argc == 2 && _eqNoCase(a, "doctor"));
    return _eqNoCase(c, "proxy") && _eqNoCase(a, "info");
}

/* ---- Reading a reply as hiredis reads it. ---- */

/* One reply element, read but not yet printed. */
typedef struct cliItem {
    char type;          /* the RESP type byte: + - : , # _ $ = * % ~ > */
    const char *str;    /* payload of string-like items, in the input */
    size_t len;         /* payload length */
    long long num;      /* integer, boolean, or element count of an
                           aggregate (a map counts keys and values) */
    int isnull;         /* $-1 or *-1 */
} cliItem;

/* The input being read and the text being written. */
typedef struct cliReader {
    const char *buf;    /* input bytes */
    size_t len;         /* input length */
    size_t pos;         /* read position */
    int depth;          /* aggregate nesting of the current element */
    cliBuf out;         /* formatted text */
} cliReader;

/* Parses buf[0..n) as a strict decimal long long, the way Redis and
 * hiredis string2ll do (no sign on zero, no leading zeros, no blanks).
 * Returns 1 and sets *v, or 0. */
static int _string2ll(const char *p, size_t n, long long *v) {
    unsigned long long acc = 0, lim = 9223372036854775807ULL;
    size_t i = 0;
    int neg = 0;
    if (n == 1 && p[0] == '0') { *v = 0; return 1; }
    if (n > 0 && p[0] == '-') { neg = 1; i = 1; lim++; }
    if (i >= n || p[i] < '1' || p[i] > '9') return 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        unsigned d = (unsigned)(p[i] - '0');
        if (acc > (lim - d) / 10) return 0;
        acc = acc * 10 + d;
    }
    *v = neg ? (long long)(0 - acc) : (long long)acc;
    return 1;
}

/* Accepts what hiredis accepts as a RESP3 double: "inf", "-inf", or a
 * finite number strtod would consume whole. Returns 1 or 0. */
static int _isDouble(const char *p, size_t n) {
    size_t i = 0, digits = 0, frac = 0;
    if ((n == 3 && (p[0] | 32) == 'i' && (p[1] | 32) == 'n' &&
         (p[2] | 32) == 'f') ||
        (n == 4 && p[0] == '-' && _isDouble(p + 1, 3)))
        return 1;
    if (n == 0 || n > 325) return 0;
    if (p[i] == '+' || p[i] == '-') i++;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++, digits++;
    if (i < n && p[i] == '.')
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) frac++;
    if (digits + frac == 0) return 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        size_t e = 0;
        if (++i < n && (p[i] == '+' || p[i] == '-')) i++;
        while (i < n && p[i] >= '0' && p[i] <= '9') i++, e++;
        if (e == 0) return 0;
    }
    return i == n;
}

/* Reads one CRLF-terminated line. Returns 1 with *p and *n set to the bytes
 * before the CRLF, or 0 when the CRLF has not arrived yet. */
static int _readLine(cliReader *r, const char **p, size_t *n) {
    for (size_t i = r->pos; i + 1 < r->len; i++) {
        if (r->buf[i] == '\r' && r->buf[i + 1] == '\n') {
            *p = r->buf + r->pos;
            *n = i - r->pos;
            r->pos = i + 2;
            return 1;
        }
    }
    return 0;
}

/* Reads the payload of a length-prefixed item ($ or =) whose length line
 * is p[0..n). Returns 1, 0 if incomplete, CLI_MALFORMED. */
static int _readBlob(cliReader *r, cliItem *it, const char *p, size_t n) {
    long long blen;
    if (!_string2ll(p, n, &blen) || blen < -1) return CLI_MALFORMED;
    if (blen == -1) {
        it->isnull = 1;
        return 1;
    }
    if ((unsigned long long)blen > r->len - r->pos ||
        r->len - r->pos - (size_t)blen < 2)
        return 0;
    it->str = r->buf + r->pos;
    it->len = (size_t)blen;
    r->pos += (size_t)blen + 2;
    if (it->type != '=') return 1;
    /* A verbatim string starts with its format, "txt:"; redis-cli prints
     * only what follows. */
    if (it->len < 4 || it->str[3] != ':') return CLI_MALFORMED;
    it->str += 4;
    it->len -= 4;
    return 1;
}

/* Checks and decodes a one-line item (+ - : , # _ or an aggregate's
 * count) whose line is p[0..n). Returns 1 or CLI_MALFORMED. */
static int _decodeLine(cliItem *it, const char *p, size_t n) {
    switch (it->type) {
    case '+': case '-': return 1;
    case ':': return _string2ll(p, n, &it->num) ? 1 : CLI_MALFORMED;
    case ',': return _isDouble(p, n) ? 1 : CLI_MALFORMED;
    case '_': it->isnull = 1; return n == 0 ? 1 : CLI_MALFORMED;
    case '#':
        if (n != 1 || ((p[0] | 32) != 't' && (p[0] | 32) != 'f'))
            return CLI_MALFORMED;
        it->num = (p[0] | 32) == 't';
        return 1;
    }
    /* Aggregates: a count, or -1 for a null array. */
    if (!_string2ll(p, n, &it->num) || it->num < -1) return CLI_MALFORMED;
    if (it->num == -1) it->isnull = 1;
    else if (it->type == '%') {
        if (it->num > 4611686018427387903LL) return CLI_MALFORMED;
        it->num *= 2;
    }
    return 1;
}

/* Reads the header of the next element (and the whole of a scalar).
 * Returns 1, 0 when more bytes are needed, or CLI_MALFORMED for a type
 * redis-cli 7.0 cannot print: its hiredis rejects blob errors (!) and
 * attributes (|), and it has no rendering for big numbers ((). */
static int _readItem(cliReader *r, cliItem *it) {
    const char *p;
    size_t n;
    memset(it, 0, sizeof(*it));
    if (r->pos >= r->len) return 0;
    it->type = r->buf[r->pos];
    if (!memchr("+-:,#_$=*%~>", it->type, 12)) return CLI_MALFORMED;
    size_t start = r->pos++;
    if (!_readLine(r, &p, &n)) {
        r->pos = start;
        return 0;
    }
    it->str = p;
    it->len = n;
    if (it->type == '$' || it->type == '=')
        return _readBlob(r, it, p, n);
    return _decodeLine(it, p, n);
}

/* ---- The --no-raw rendering, cliFormatReplyTTY. ---- */

static int _ttyElement(cliReader *r, size_t prefix);

/* Appends s[0..n) quoted the way sdscatrepr quotes it: backslash escapes
 * for \\ \" \n \r \t \a \b, printable ASCII as is, any other byte as \xhh
 * with lowercase hex. */
static void _catRepr(cliBuf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    _bufCatChar(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *k = memchr("\\\"\n\r\t\a\b", c, 7);
        if (c != 0 && k) {
            char esc[2] = { '\\', "\\\"nrtab"[k - "\\\"\n\r\t\a\b"] };
            _bufCat(b, esc, 2);
        } else if (_isPrint(c)) {
            _bufCatChar(b, (char)c);
        } else {
            char x[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
            _bufCat(b, x, 4);
        }
    }
    _bufCatChar(b, '"');
}

/* Returns 1 for the types that hold elements: arrays, maps, sets, pushes. */
static int _isAggregate(const cliItem *it) {
    return memchr("*%~>", it->type, 4) != NULL;
}

/* Reads past the next element without printing it. Returns 1, 0 or
 * CLI_MALFORMED. */
static int _skipElement(cliReader *r) {
    cliItem it;
    int rc = _readItem(r, &it);
    if (rc != 1 || !_isAggregate(&it) || it.isnull) return rc;
    if (++r->depth > CLI_MAX_DEPTH) return CLI_MALFORMED;
    for (long long i = 0; i < it.num && rc == 1; i++) rc = _skipElement(r);
    r->depth--;
    return rc;
}

/* Looks ahead at the next element, as cliIsMultilineValueTTY does before
 * printing a map's value: an aggregate is multi-line when it has more than
 * one entry, or one entry that is itself multi-line. Returns 1 or 0; bytes
 * that are missing or malformed answer 0 and are reported by the pass that
 * prints them. */
static int _nextIsMultiline(const cliReader *from) {
    cliReader r = *from;
    cliItem it;
    for (;;) {
        if (_readItem(&r, &it) != 1) return 0;
        if (!_isAggregate(&it) || it.isnull || it.num == 0) return 0;
        if (it.num > 2 || (it.num == 2 && it.type != '%')) return 1;
        if (it.type == '%' && _skipElement(&r) != 1) return 0;
    }
}

/* Returns the line redis-cli prints for an empty aggregate of this type. */
static const char *_emptyName(char type) {
    switch (type) {
    case '%': return "(empty hash)\n";
    case '~': return "(empty set)\n";
    case '>': return "(empty push)\n";
    default: return "(empty array)\n";
    }
}

/* Prints the elements of a non-empty aggregate. Each starts with its
 * 1-based index right-aligned to the width of the largest index and the
 * separator (")" for arrays and pushes, "~" for sets, "#" for maps); the
 * first sits on the parent's line, the others are indented by the
 * parent's prefix. Nested elements get a prefix widened by the index
 * width plus two. A map prints "key => value" per entry, and starts a
 * multi-line value on a line of its own, indented like its siblings.
 * Returns 1, 0 or CLI_MALFORMED. */
static int _ttyAggregate(cliReader *r, const cliItem *it, size_t prefix) {
    unsigned long long count = (unsigned long long)it->num, i;
    unsigned long long entries = it->type == '%' ? count / 2 : count;
    unsigned width = 0;
    char sep = it->type == '~' ? '~' : it->type == '%' ? '#' : ')';
    for (unsigned long long v = entries; v; v /= 10) width++;
    for (i = 0; i < count; i++) {
        int rc;
        if (i > 0) _bufCatSpaces(&r->out, prefix);
        _bufCatPadded(&r->out, (it->type == '%' ? i / 2 : i) + 1, width);
        _bufCatChar(&r->out, sep);
        _bufCatChar(&r->out, ' ');
        if ((rc = _ttyElement(r, prefix + width + 2)) != 1) return rc;
        if (it->type != '%') continue;
        if (r->out.len) r->out.len--;   /* the key's newline gives way */
        _bufCat(&r->out, " => ", 4);
        if (_nextIsMultiline(r)) {
            _bufCatChar(&r->out, '\n');
            _bufCatSpaces(&r->out, prefix + width + 2);
        }
        if ((rc = _ttyElement(r, prefix + width + 2)) != 1) return rc;
        i++;
    }
    return 1;
}

/* Prints one scalar item as cliFormatReplyTTY does. */
static void _ttyScalar(cliBuf *b, const cliItem *it) {
    if (it->isnull) {
        _bufCatStr(b, "(nil)");
    } else if (it->type == '+') {
        _bufCatCStr(b, it->str, it->len);
    } else if (it->type == '-') {
        _bufCatStr(b, "(error) ");
        _bufCatCStr(b, it->str, it->len);
    } else if (it->type == ':') {
        _bufCatStr(b, "(integer) ");
        _bufCatLL(b, it->num);
    } else if (it->type == ',') {
        _bufCatStr(b, "(double) ");
        _bufCat(b, it->str, it->len);
    } else if (it->type == '#') {
        _bufCatStr(b, it->num ? "(true)" : "(false)");
    } else if (it->type == '$') {
        _catRepr(b, it->str, it->len);
    } else {
        _bufCat(b, it->str, it->len);     /* verbatim: printed as is */
    }
    _bufCatChar(b, '\n');
}

/* Reads and prints the next element with the given indentation for the
 * lines after its first. Returns 1, 0 (incomplete) or CLI_MALFORMED. */
static int _ttyElement(cliReader *r, size_t prefix) {
    cliItem it;
    int rc = _readItem(r, &it);
    if (rc != 1) return rc;
    if (!_isAggregate(&it) || it.isnull) {
        _ttyScalar(&r->out, &it);
        return 1;
    }
    if (it.num == 0) {
        _bufCatStr(&r->out, _emptyName(it.type));
        return 1;
    }
    if (++r->depth > CLI_MAX_DEPTH) return CLI_MALFORMED;
    rc = _ttyAggregate(r, &it, prefix);
    r->depth--;
    return rc;
}

/* ---- The raw rendering, cliFormatReplyRaw. ---- */

static int _rawElement(cliReader *r);

/* Prints an aggregate raw: elements one per line, a map's key and value
 * separated by one space, no newline after the last. Returns 1, 0 or
 * CLI_MALFORMED. */
static int _rawAggregate(cliReader *r, const cliItem *it) {
    for (long long i = 0; i < it->num; i++) {
        int rc;
        if (i > 0) _bufCatChar(&r->out, it->type == '%' && i % 2 ? ' '
                                                                  : '\n');
        if ((rc = _rawElement(r)) != 1) return rc;
    }
    return 1;
}

/* Reads and prints the next element raw: strings as their bytes, errors
 * with a newline, integers and doubles as their digits, nulls as nothing.
 * Returns 1, 0 or CLI_MALFORMED. */
static int _rawElement(cliReader *r) {
    cliItem it;
    int rc = _readItem(r, &it);
    if (rc != 1) return rc;
    if (it.isnull) return 1;
    if (_isAggregate(&it)) {
        if (++r->depth > CLI_MAX_DEPTH) return CLI_MALFORMED;
        rc = _rawAggregate(r, &it);
        r->depth--;
        return rc;
    }
    if (it.type == ':') _bufCatLL(&r->out, it.num);
    else if (it.type == '#') _bufCatStr(&r->out, it.num ? "(true)"
                                                        : "(false)");
    else _bufCat(&r->out, it.str, it.len);
    if (it.type == '-') _bufCatChar(&r->out, '\n');
    return 1;
}

/* ---- Entry points. ---- */

/* Runs one formatter over buf and hands back its text. Returns the bytes
 * consumed, CLI_INCOMPLETE, CLI_MALFORMED or CLI_ENOMEM; *text is only set
 * on success. */
static long _format(const char *buf, size_t len, int raw, char **text,
                    size_t *textlen) {
    cliReader r = { buf, len, 0, 0, { 0 } };
    int rc = raw ? _rawElement(&r) : _ttyElement(&r, 0);
    if (rc == 1 && r.out.oom) rc = CLI_ENOMEM;
    if (rc != 1) {
        free(r.out.p);
        return rc;
    }
    if (_bufDetach(&r.out, text, textlen) != 0) return CLI_ENOMEM;
    return (long)r.pos;
}

/* Parses one complete reply at buf[0..len) and renders it as
 * `redis-cli --no-raw` prints it, final newline included. Returns the
 * bytes consumed with *text a malloc'd NUL-terminated string (free() it),
 * CLI_INCOMPLETE (0) when the reply has not fully arrived, CLI_MALFORMED
 * (-1) for bytes hiredis would reject or redis-cli cannot print, or
 * CLI_ENOMEM (-2). Reads RESP2 and RESP3 alike. */
long cliFormatReply(const char *buf, size_t len, char **text,
                    size_t *textlen) {
    return _format(buf, len, 0, text, textlen);
}

/* The same for the commands cliArgvWantsRaw names: redis-cli prints their
 * reply raw and adds no newline of its own (INFO's text already ends in
 * CRLF; an error reply prints as "ERR ...\n" without "(error)"). */
long cliFormatReplyRaw(const char *buf, size_t len, char **text,
                       size_t *textlen) {
    return _format(buf, len, 1, text, textlen);
}
