/* cliformat.h -- redis-cli's line syntax and reply formatting.
 *
 * The native `glasskv cli` and the browser console both turn a typed line
 * into a RESP request and a RESP reply into text with this module, so what a
 * person reads is byte for byte what `redis-cli --no-raw` (Redis 7.0) prints
 * for the same reply. The code is pure C: no stdio, no globals; it only
 * allocates with malloc/free, and every string it returns is the caller's
 * to free().
 *
 * Typical use:
 *
 *     char *req; size_t reqlen;
 *     if (cliLineToResp(line, len, &req, &reqlen) > 0) send(req, reqlen);
 *     ...
 *     char *text; size_t textlen;
 *     long used = cliFormatReply(in, inlen, &text, &textlen);
 *     (used > 0: print text, drop `used` bytes; 0: wait for more bytes)
 */
#ifndef CLIFORMAT_H
#define CLIFORMAT_H

#include <stddef.h>

/* Status values returned instead of a count. */
#define CLI_INCOMPLETE 0    /* formatters: the reply has not fully arrived */
#define CLI_MALFORMED -1    /* formatters: not a reply redis-cli can print */
#define CLI_INVALID -1      /* splitter: unbalanced or glued quotes */
#define CLI_ENOMEM -2       /* malloc refused */

/* One line split into arguments, as redis-cli's sdssplitargs splits it. */
typedef struct cliArgs {
    int argc;       /* number of arguments */
    char **argv;    /* argument bytes, each also NUL-terminated */
    size_t *lens;   /* byte length of each argument (may hold NULs) */
} cliArgs;

/* Line syntax. */
int cliSplitLine(const char *line, size_t len, cliArgs *out);
void cliArgsRelease(cliArgs *args);
int cliArgvToResp(int argc, char *const *argv, const size_t *lens,
                  char **out, size_t *outlen);
int cliLineToResp(const char *line, size_t len, char **out, size_t *outlen);

/* What redis-cli's interactive loop decides from the arguments. */
int cliRepeatPrefix(int argc, char *const *argv, long long *repeat);
int cliArgvWantsRaw(int argc, char *const *argv);

/* Reply formatting. */
long cliFormatReply(const char *buf, size_t len, char **text,
                    size_t *textlen);
long cliFormatReplyRaw(const char *buf, size_t len, char **text,
                       size_t *textlen);

#endif
