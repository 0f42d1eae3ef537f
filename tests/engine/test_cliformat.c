/* test_cliformat.c -- redis-cli's line syntax and reply formatting.
 *
 * Every expected string here was produced by Debian's redis-cli 7.0.15.
 * The replies were captured from redis-server 7.0.15 (a few RESP3 corners
 * were written by hand) and fed to redis-cli --no-raw through a stub
 * server that answered with exactly these bytes; the expected requests
 * are the bytes redis-cli sent for each typed line. */
#include <stdlib.h>
#include <string.h>

#include "cliformat.h"
#include "gktest.h"

#define LIT(s) s, sizeof(s) - 1

/* ---- Helpers. ---- */

/* Prints len bytes with non-printables escaped, for failure messages. */
static void _dump(const char *label, const char *p, size_t len) {
    fprintf(stderr, "    %s: \"", label);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n') fputs("\\n", stderr);
        else if (c >= 0x20 && c < 0x7f) fputc(c, stderr);
        else fprintf(stderr, "\\x%02x", c);
    }
    fputs("\"\n", stderr);
}

/* Checks that a text equals the expected bytes, dumping both if not. */
static void _checkBytes(const char *got, size_t gotlen, const char *want,
                        size_t wantlen) {
    int same = gotlen == wantlen && memcmp(got, want, wantlen) == 0;
    CHECK(same);
    if (!same) {
        _dump("got ", got, gotlen);
        _dump("want", want, wantlen);
    }
}

/* Formats in[0..inlen) and checks the text against want, that the whole
 * reply and nothing after it is consumed, and that every shorter prefix
 * reports the reply as incomplete. */
static void _expectFormat(const char *in, size_t inlen, int raw,
                          const char *want, size_t wantlen) {
    long (*fmt)(const char *, size_t, char **, size_t *) =
        raw ? cliFormatReplyRaw : cliFormatReply;
    char *text = NULL, *buf = malloc(inlen + 7);
    size_t textlen = 0;
    memcpy(buf, in, inlen);
    memcpy(buf + inlen, "+next\r\n", 7);
    CHECK_EQ_INT(fmt(buf, inlen + 7, &text, &textlen), inlen);
    if (text) {
        _checkBytes(text, textlen, want, wantlen);
        CHECK_EQ_INT(text[textlen], '\0');
        free(text);
    }
    for (size_t n = 0; n < inlen; n++) {
        text = NULL;
        long rc = fmt(buf, n, &text, &textlen);
        if (rc != CLI_INCOMPLETE) {
            CHECK_EQ_INT(rc, CLI_INCOMPLETE);
            fprintf(stderr, "    at prefix length %zu\n", n);
            free(text);
            break;
        }
    }
    free(buf);
}

/* Checks that the formatter refuses the bytes, raw or not. */
static void _expectMalformed(const char *in, size_t inlen) {
    char *text = NULL;
    size_t textlen;
    CHECK_EQ_INT(cliFormatReply(in, inlen, &text, &textlen), CLI_MALFORMED);
    CHECK_EQ_INT(cliFormatReplyRaw(in, inlen, &text, &textlen),
                 CLI_MALFORMED);
    CHECK(text == NULL);
}

/* Splits and encodes a line, checking the request against want. */
static void _expectRequest(const char *line, size_t len, int argc,
                           const char *want, size_t wantlen) {
    char *out = NULL;
    size_t outlen = 0;
    CHECK_EQ_INT(cliLineToResp(line, len, &out, &outlen), argc);
    if (out) _checkBytes(out, outlen, want, wantlen);
    free(out);
}

/* Checks that a line is refused as invalid, with nothing allocated. */
static void _expectInvalid(const char *line, size_t len) {
    char *out = NULL;
    size_t outlen = 0;
    CHECK_EQ_INT(cliLineToResp(line, len, &out, &outlen), CLI_INVALID);
    CHECK(out == NULL);
}

/* Returns what cliRepeatPrefix says for up to three arguments, storing
 * the repeat count in *repeat. */
static int _repeat(int argc, const char *a0, const char *a1,
                   long long *repeat) {
    char *argv[2] = { (char *)a0, (char *)a1 };
    return cliRepeatPrefix(argc, argv, repeat);
}

/* Returns cliArgvWantsRaw for a line split on spaces. */
static int _wantsRaw(const char *line) {
    cliArgs a;
    CHECK(cliSplitLine(line, strlen(line), &a) > 0);
    int raw = cliArgvWantsRaw(a.argc, a.argv);
    cliArgsRelease(&a);
    return raw;
}

/* ---- Splitting a line as redis-cli does. ---- */

/* Runs of blanks separate arguments and surround the line freely. */
static void test_blanks(void) {
    _expectRequest(LIT("  set   a    b  "), 3,
                   LIT("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"));
}

/* Quotes of either kind keep spaces inside one argument. */
static void test_quotes(void) {
    _expectRequest(LIT("set \"a b\" c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\na b\r\n$1\r\nc\r\n"));
    _expectRequest(LIT("set 'a b' c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\na b\r\n$1\r\nc\r\n"));
}

/* Double quotes understand \n \r \t \b \a; any other escaped byte stands
 * for itself. */
static void test_escapes(void) {
    _expectRequest(LIT("set \"\\n\\r\\t\\b\\a\\q\\\\\" x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$7\r\n\n\r\t\b\aq\\\r\n"
                       "$1\r\nx\r\n"));
    _expectRequest(LIT("set \"a\\\"b\" c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\na\"b\r\n$1\r\nc\r\n"));
}

/* \xHH takes exactly two hex digits of either case; an incomplete one is
 * just the letter x. */
static void test_hex(void) {
    _expectRequest(LIT("set \"\\x41\\x4a\\x4A\" x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\nAJJ\r\n$1\r\nx\r\n"));
    _expectRequest(LIT("set \"\\xZZ\" x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\nxZZ\r\n$1\r\nx\r\n"));
    _expectRequest(LIT("set \"\\x4\" x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$2\r\nx4\r\n$1\r\nx\r\n"));
    _expectRequest(LIT("set \"\\x00a\" b"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$2\r\n\0a\r\n$1\r\nb\r\n"));
}

/* Single quotes only escape a single quote; backslashes stay. */
static void test_single(void) {
    _expectRequest(LIT("set 'a\\'b' c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\na'b\r\n$1\r\nc\r\n"));
    _expectRequest(LIT("set 'a\\\\b' c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$4\r\na\\\\b\r\n$1\r\nc\r\n"));
}

/* A quote may open in the middle of an argument. */
static void test_midquote(void) {
    _expectRequest(LIT("set a'b c'"), 2,
                   LIT("*2\r\n$3\r\nset\r\n$4\r\nab c\r\n"));
}

/* A closing quote glued to more text makes the line invalid. */
static void test_glued(void) {
    _expectInvalid(LIT("set \"a\"b c"));
    _expectInvalid(LIT("set 'a'b c"));
    _expectInvalid(LIT("get \"\\x41\"x"));
    _expectInvalid(LIT("echo 'it''s'"));
    _expectInvalid(LIT("echo \"\"\"\""));
}

/* An unterminated quote makes the line invalid, even after an escaped
 * closing quote or a trailing backslash. */
static void test_unterminated(void) {
    _expectInvalid(LIT("set \"abc"));
    _expectInvalid(LIT("set 'abc"));
    _expectInvalid(LIT("set \"a\\"));
    _expectInvalid(LIT("set \"a\\\""));
    _expectInvalid(LIT("set 'a\\'"));
}

/* Empty quotes make an empty argument. */
static void test_emptyarg(void) {
    _expectRequest(LIT("set \"\" x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$0\r\n\r\n$1\r\nx\r\n"));
    _expectRequest(LIT("set '' x"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$0\r\n\r\n$1\r\nx\r\n"));
}

/* A blank line is no request at all. */
static void test_blankline(void) {
    _expectRequest(LIT(""), 0, NULL, 0);
    _expectRequest(LIT("   "), 0, NULL, 0);
    _expectRequest(LIT("\t"), 0, NULL, 0);
}

/* Tab and CR end an argument; \v and \f are blanks only between
 * arguments and stay inside one. */
static void test_separators(void) {
    _expectRequest(LIT("set \"a\"\tb"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"));
    _expectRequest(LIT("set a\rb"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"));
    _expectRequest(LIT("set a\vb c"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$3\r\na\vb\r\n$1\r\nc\r\n"));
    _expectRequest(LIT("\vset a b"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\nb\r\n"));
}

/* The line ends at its first NUL byte, as a C string does. */
static void test_nulline(void) {
    _expectRequest(LIT("set a\0 b"), 2, LIT("*2\r\n$3\r\nset\r\n$1\r\na\r\n"));
}

/* Bytes above 0x7f pass through untouched. */
static void test_highbytes(void) {
    _expectRequest(LIT("set \"\xc3\xa9\" \xff"), 3,
                   LIT("*3\r\n$3\r\nset\r\n$2\r\n\xc3\xa9\r\n$1\r\n\xff\r\n"));
}

/* cliSplitLine hands back the arguments with their lengths. */
static void test_splitargs(void) {
    cliArgs a;
    CHECK_EQ_INT(cliSplitLine(LIT("set \"a\\x00b\" ''"), &a), 3);
    CHECK_EQ_STR(a.argv[0], "set");
    CHECK_EQ_INT(a.lens[1], 3);
    CHECK(memcmp(a.argv[1], "a\0b", 3) == 0);
    CHECK_EQ_INT(a.lens[2], 0);
    CHECK_EQ_STR(a.argv[2], "");
    cliArgsRelease(&a);
    CHECK_EQ_INT(a.argc, 0);
    CHECK_EQ_INT(cliSplitLine(LIT("x \"y"), &a), CLI_INVALID);
    CHECK(a.argv == NULL);
}

/* ---- What the interactive loop decides from the arguments. ---- */

/* A leading count repeats the command, with strtol's sign and blanks. */
static void test_repeat(void) {
    long long n;
    CHECK_EQ_INT(_repeat(2, "3", "ping", &n), 1);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(_repeat(2, "+2", "ping", &n), 1);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(_repeat(2, " 2", "ping", &n), 1);
    CHECK_EQ_INT(n, 2);
}

/* Zero, negative, overflowing and empty counts are invalid. */
static void test_badrepeat(void) {
    long long n;
    CHECK_EQ_INT(_repeat(2, "0", "ping", &n), -1);
    CHECK_EQ_INT(_repeat(2, "-1", "ping", &n), -1);
    CHECK_EQ_INT(_repeat(2, "99999999999999999999", "ping", &n), -1);
    CHECK_EQ_INT(_repeat(2, "", "ping", &n), -1);
}

/* A lone number, or a number with trailing text, is the command. */
static void test_norepeat(void) {
    long long n;
    CHECK_EQ_INT(_repeat(1, "5", NULL, &n), 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(_repeat(2, "0x10", "ping", &n), 0);
    CHECK_EQ_INT(_repeat(2, "ping", "3", &n), 0);
}

/* INFO, DEBUG HTSTATS and their kin print raw, by redis-cli's rules on
 * names and argument counts. */
static void test_rawcommands(void) {
    CHECK(_wantsRaw("info"));
    CHECK(_wantsRaw("INFO keyspace"));
    CHECK(_wantsRaw("lolwut"));
    CHECK(_wantsRaw("debug htstats 0"));
    CHECK(_wantsRaw("DEBUG HTSTATS-KEY k"));
    CHECK(_wantsRaw("debug client-eviction"));
    CHECK(_wantsRaw("memory doctor"));
    CHECK(_wantsRaw("client list"));
    CHECK(_wantsRaw("client info"));
    CHECK(_wantsRaw("cluster info"));
    CHECK(_wantsRaw("latency doctor"));
    CHECK(_wantsRaw("latency graph command"));
    CHECK(!_wantsRaw("get info"));
    CHECK(!_wantsRaw("debug"));
    CHECK(!_wantsRaw("debug sleep 0"));
    CHECK(!_wantsRaw("cluster info extra"));
    CHECK(!_wantsRaw("latency doctor extra"));
    CHECK(!_wantsRaw("memory usage k"));
}

/* ---- Formatting replies as redis-cli --no-raw does. ---- */

/* ---- Replies as redis-cli prints them. ---- */

/* One reply and the text redis-cli printed for it (raw: with --raw, as
 * INFO and its kin print). in and want may hold NUL bytes: their lengths
 * come from the literals. */
typedef struct formatCase {
    const char *name;       /* the sentence the test reports */
    int raw;
    const char *in, *want;
    size_t inlen, wantlen;
} formatCase;

#define FORMAT(name, raw, in, want) \
    { name, raw, in, want, sizeof(in) - 1, sizeof(want) - 1 }

static const formatCase formatCases[] = {
    FORMAT("a status reply prints bare with a newline", 0,
        "+OK\r\n",
        "OK\n"),
    FORMAT("an integer prints as (integer) N", 0,
        ":1\r\n",
        "(integer) 1\n"),
    FORMAT("a negative integer keeps its sign", 0,
        ":-99\r\n",
        "(integer) -99\n"),
    FORMAT("the smallest 64-bit integer prints in full", 0,
        ":-9223372036854775808\r\n",
        "(integer) -9223372036854775808\n"),
    FORMAT("a nil bulk string prints (nil)", 0,
        "$-1\r\n",
        "(nil)\n"),
    FORMAT("an error prints as (error) and its text", 0,
        "-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n",
        "(error) ERR unknown command 'FOO', with args beginning with: "
        "'bar' \n"),
    FORMAT("a bulk string prints in double quotes", 0,
        "$5\r\n"
        "hello\r\n",
        "\"hello\"\n"),
    FORMAT("a binary bulk string is escaped as sdscatrepr escapes it", 0,
        "$42\r\n"
        "\000\001\002\003\004\005\006\007\010\t\n\013\014\r\016\017\020\021"
        "\022\023\024\025\026\027\030\031\032\033\034\035\036\037 \"\\'~\177"
        "\200\303\251\377\r\n",
        "\"\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\a\\b\\t\\n\\x0b\\x0c\\r\\x0e\\"
        "x0f\\x10\\x11\\x12\\x13\\x14\\x15\\x16\\x17\\x18\\x19\\x1a\\x1b\\x1c"
        "\\x1d\\x1e\\x1f \\\"\\\\'~\\x7f\\x80\\xc3\\xa9\\xff\"\n"),
    FORMAT("an empty bulk string prints as two quotes", 0,
        "$0\r\n"
        "\r\n",
        "\"\"\n"),
    FORMAT("a bulk string holding CRLFs is read by its length", 0,
        "$4\r\n"
        "\r\n"
        "\r\n"
        "\r\n",
        "\"\\r\\n\\r\\n\"\n"),
    FORMAT("array elements are numbered from 1) on their own lines", 0,
        "*3\r\n"
        "$1\r\n"
        "a\r\n"
        "$3\r\n"
        "b c\r\n"
        "$0\r\n"
        "\r\n",
        "1) \"a\"\n"
        "2) \"b c\"\n"
        "3) \"\"\n"),
    FORMAT("nine elements need one column for the index", 0,
        "*9\r\n"
        "$1\r\n"
        "0\r\n"
        "$1\r\n"
        "1\r\n"
        "$1\r\n"
        "2\r\n"
        "$1\r\n"
        "3\r\n"
        "$1\r\n"
        "4\r\n"
        "$1\r\n"
        "5\r\n"
        "$1\r\n"
        "6\r\n"
        "$1\r\n"
        "7\r\n"
        "$1\r\n"
        "8\r\n",
        "1) \"0\"\n"
        "2) \"1\"\n"
        "3) \"2\"\n"
        "4) \"3\"\n"
        "5) \"4\"\n"
        "6) \"5\"\n"
        "7) \"6\"\n"
        "8) \"7\"\n"
        "9) \"8\"\n"),
    FORMAT("ten elements pad every index to two columns", 0,
        "*10\r\n"
        "$1\r\n"
        "0\r\n"
        "$1\r\n"
        "1\r\n"
        "$1\r\n"
        "2\r\n"
        "$1\r\n"
        "3\r\n"
        "$1\r\n"
        "4\r\n"
        "$1\r\n"
        "5\r\n"
        "$1\r\n"
        "6\r\n"
        "$1\r\n"
        "7\r\n"
        "$1\r\n"
        "8\r\n"
        "$1\r\n"
        "9\r\n",
        " 1) \"0\"\n"
        " 2) \"1\"\n"
        " 3) \"2\"\n"
        " 4) \"3\"\n"
        " 5) \"4\"\n"
        " 6) \"5\"\n"
        " 7) \"6\"\n"
        " 8) \"7\"\n"
        " 9) \"8\"\n"
        "10) \"9\"\n"),
    FORMAT("more than a hundred elements pad every index to three columns", 0,
        "*101\r\n$2\r\nv0\r\n$2\r\nv1\r\n$2\r\nv2\r\n$2\r\nv3\r\n$2\r\nv4\r\n$"
        "2\r\nv5\r\n$2\r\nv6\r\n$2\r\nv7\r\n$2\r\nv8\r\n$2\r\nv9\r\n$3\r\nv10"
        "\r\n$3\r\nv11\r\n$3\r\nv12\r\n$3\r\nv13\r\n$3\r\nv14\r\n$3\r\nv15\r\n"
        "$3\r\nv16\r\n$3\r\nv17\r\n$3\r\nv18\r\n$3\r\nv19\r\n$3\r\nv20\r\n$3\r"
        "\nv21\r\n$3\r\nv22\r\n$3\r\nv23\r\n$3\r\nv24\r\n$3\r\nv25\r\n$3\r\nv2"
        "6\r\n$3\r\nv27\r\n$3\r\nv28\r\n$3\r\nv29\r\n$3\r\nv30\r\n$3\r\nv31\r"
        "\n$3\r\nv32\r\n$3\r\nv33\r\n$3\r\nv34\r\n$3\r\nv35\r\n$3\r\nv36\r\n$3"
        "\r\nv37\r\n$3\r\nv38\r\n$3\r\nv39\r\n$3\r\nv40\r\n$3\r\nv41\r\n$3\r\n"
        "v42\r\n$3\r\nv43\r\n$3\r\nv44\r\n$3\r\nv45\r\n$3\r\nv46\r\n$3\r\nv47"
        "\r\n$3\r\nv48\r\n$3\r\nv49\r\n$3\r\nv50\r\n$3\r\nv51\r\n$3\r\nv52\r\n"
        "$3\r\nv53\r\n$3\r\nv54\r\n$3\r\nv55\r\n$3\r\nv56\r\n$3\r\nv57\r\n$3\r"
        "\nv58\r\n$3\r\nv59\r\n$3\r\nv60\r\n$3\r\nv61\r\n$3\r\nv62\r\n$3\r\nv6"
        "3\r\n$3\r\nv64\r\n$3\r\nv65\r\n$3\r\nv66\r\n$3\r\nv67\r\n$3\r\nv68\r"
        "\n$3\r\nv69\r\n$3\r\nv70\r\n$3\r\nv71\r\n$3\r\nv72\r\n$3\r\nv73\r\n$3"
        "\r\nv74\r\n$3\r\nv75\r\n$3\r\nv76\r\n$3\r\nv77\r\n$3\r\nv78\r\n$3\r\n"
        "v79\r\n$3\r\nv80\r\n$3\r\nv81\r\n$3\r\nv82\r\n$3\r\nv83\r\n$3\r\nv84"
        "\r\n$3\r\nv85\r\n$3\r\nv86\r\n$3\r\nv87\r\n$3\r\nv88\r\n$3\r\nv89\r\n"
        "$3\r\nv90\r\n$3\r\nv91\r\n$3\r\nv92\r\n$3\r\nv93\r\n$3\r\nv94\r\n$3\r"
        "\nv95\r\n$3\r\nv96\r\n$3\r\nv97\r\n$3\r\nv98\r\n$3\r\nv99\r\n$4\r\nv1"
        "00\r\n",
        "  1) \"v0\"\n"
        "  2) \"v1\"\n"
        "  3) \"v2\"\n"
        "  4) \"v3\"\n"
        "  5) \"v4\"\n"
        "  6) \"v5\"\n"
        "  7) \"v6\"\n"
        "  8) \"v7\"\n"
        "  9) \"v8\"\n"
        " 10) \"v9\"\n"
        " 11) \"v10\"\n"
        " 12) \"v11\"\n"
        " 13) \"v12\"\n"
        " 14) \"v13\"\n"
        " 15) \"v14\"\n"
        " 16) \"v15\"\n"
        " 17) \"v16\"\n"
        " 18) \"v17\"\n"
        " 19) \"v18\"\n"
        " 20) \"v19\"\n"
        " 21) \"v20\"\n"
        " 22) \"v21\"\n"
        " 23) \"v22\"\n"
        " 24) \"v23\"\n"
        " 25) \"v24\"\n"
        " 26) \"v25\"\n"
        " 27) \"v26\"\n"
        " 28) \"v27\"\n"
        " 29) \"v28\"\n"
        " 30) \"v29\"\n"
        " 31) \"v30\"\n"
        " 32) \"v31\"\n"
        " 33) \"v32\"\n"
        " 34) \"v33\"\n"
        " 35) \"v34\"\n"
        " 36) \"v35\"\n"
        " 37) \"v36\"\n"
        " 38) \"v37\"\n"
        " 39) \"v38\"\n"
        " 40) \"v39\"\n"
        " 41) \"v40\"\n"
        " 42) \"v41\"\n"
        " 43) \"v42\"\n"
        " 44) \"v43\"\n"
        " 45) \"v44\"\n"
        " 46) \"v45\"\n"
        " 47) \"v46\"\n"
        " 48) \"v47\"\n"
        " 49) \"v48\"\n"
        " 50) \"v49\"\n"
        " 51) \"v50\"\n"
        " 52) \"v51\"\n"
        " 53) \"v52\"\n"
        " 54) \"v53\"\n"
        " 55) \"v54\"\n"
        " 56) \"v55\"\n"
        " 57) \"v56\"\n"
        " 58) \"v57\"\n"
        " 59) \"v58\"\n"
        " 60) \"v59\"\n"
        " 61) \"v60\"\n"
        " 62) \"v61\"\n"
        " 63) \"v62\"\n"
        " 64) \"v63\"\n"
        " 65) \"v64\"\n"
        " 66) \"v65\"\n"
        " 67) \"v66\"\n"
        " 68) \"v67\"\n"
        " 69) \"v68\"\n"
        " 70) \"v69\"\n"
        " 71) \"v70\"\n"
        " 72) \"v71\"\n"
        " 73) \"v72\"\n"
        " 74) \"v73\"\n"
        " 75) \"v74\"\n"
        " 76) \"v75\"\n"
        " 77) \"v76\"\n"
        " 78) \"v77\"\n"
        " 79) \"v78\"\n"
        " 80) \"v79\"\n"
        " 81) \"v80\"\n"
        " 82) \"v81\"\n"
        " 83) \"v82\"\n"
        " 84) \"v83\"\n"
        " 85) \"v84\"\n"
        " 86) \"v85\"\n"
        " 87) \"v86\"\n"
        " 88) \"v87\"\n"
        " 89) \"v88\"\n"
        " 90) \"v89\"\n"
        " 91) \"v90\"\n"
        " 92) \"v91\"\n"
        " 93) \"v92\"\n"
        " 94) \"v93\"\n"
        " 95) \"v94\"\n"
        " 96) \"v95\"\n"
        " 97) \"v96\"\n"
        " 98) \"v97\"\n"
        " 99) \"v98\"\n"
        "100) \"v99\"\n"
        "101) \"v100\"\n"),
    FORMAT("an empty array prints (empty array)", 0,
        "*0\r\n",
        "(empty array)\n"),
    FORMAT("a null array prints (nil)", 0,
        "*-1\r\n",
        "(nil)\n"),
    FORMAT("nils inside an array print (nil) after their index", 0,
        "*3\r\n"
        "$5\r\n"
        "hello\r\n"
        "$-1\r\n"
        "$3\r\n"
        "-99\r\n",
        "1) \"hello\"\n"
        "2) (nil)\n"
        "3) \"-99\"\n"),
    FORMAT("a nested array starts on its parent index line and indents "
           "the rest",
        0,
        "*2\r\n"
        "$1\r\n"
        "0\r\n"
        "*20\r\n"
        "$1\r\n"
        "n\r\n"
        "$2\r\n"
        "k9\r\n"
        "$2\r\n"
        "k1\r\n"
        "$2\r\n"
        "k6\r\n"
        "$2\r\n"
        "l9\r\n"
        "$2\r\n"
        "k3\r\n"
        "$3\r\n"
        "k11\r\n"
        "$1\r\n"
        "s\r\n"
        "$1\r\n"
        "e\r\n"
        "$3\r\n"
        "bin\r\n"
        "$2\r\n"
        "k8\r\n"
        "$2\r\n"
        "k0\r\n"
        "$2\r\n"
        "k7\r\n"
        "$2\r\n"
        "k2\r\n"
        "$2\r\n"
        "k4\r\n"
        "$3\r\n"
        "k10\r\n"
        "$4\r\n"
        "l101\r\n"
        "$3\r\n"
        "l10\r\n"
        "$2\r\n"
        "k5\r\n"
        "$1\r\n"
        "l\r\n",
        "1) \"0\"\n"
        "2)  1) \"n\"\n"
        "    2) \"k9\"\n"
        "    3) \"k1\"\n"
        "    4) \"k6\"\n"
        "    5) \"l9\"\n"
        "    6) \"k3\"\n"
        "    7) \"k11\"\n"
        "    8) \"s\"\n"
        "    9) \"e\"\n"
        "   10) \"bin\"\n"
        "   11) \"k8\"\n"
        "   12) \"k0\"\n"
        "   13) \"k7\"\n"
        "   14) \"k2\"\n"
        "   15) \"k4\"\n"
        "   16) \"k10\"\n"
        "   17) \"l101\"\n"
        "   18) \"l10\"\n"
        "   19) \"k5\"\n"
        "   20) \"l\"\n"),
    FORMAT("an empty nested array prints (empty array) on its index line", 0,
        "*2\r\n"
        "$1\r\n"
        "1\r\n"
        "*0\r\n",
        "1) \"1\"\n"
        "2) (empty array)\n"),
    FORMAT("nested empty arrays print at every depth", 0,
        "*3\r\n"
        "*0\r\n"
        "*1\r\n"
        "*0\r\n"
        "*2\r\n"
        "*1\r\n"
        "*0\r\n"
        ":5\r\n",
        "1) (empty array)\n"
        "2) 1) (empty array)\n"
        "3) 1) 1) (empty array)\n"
        "   2) (integer) 5\n"),
    FORMAT("a null array inside an array prints (nil)", 0,
        "*2\r\n"
        "*-1\r\n"
        "$-1\r\n",
        "1) (nil)\n"
        "2) (nil)\n"),
    FORMAT("each nesting level pads to the width of its own largest index", 0,
        "*10\r\n"
        "*11\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":1\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n"
        ":2\r\n",
        " 1)  1) (integer) 1\n"
        "     2) (integer) 1\n"
        "     3) (integer) 1\n"
        "     4) (integer) 1\n"
        "     5) (integer) 1\n"
        "     6) (integer) 1\n"
        "     7) (integer) 1\n"
        "     8) (integer) 1\n"
        "     9) (integer) 1\n"
        "    10) (integer) 1\n"
        "    11) (integer) 1\n"
        " 2) (integer) 2\n"
        " 3) (integer) 2\n"
        " 4) (integer) 2\n"
        " 5) (integer) 2\n"
        " 6) (integer) 2\n"
        " 7) (integer) 2\n"
        " 8) (integer) 2\n"
        " 9) (integer) 2\n"
        "10) (integer) 2\n"),
    FORMAT("deep nesting indents by each parent index width plus two", 0,
        "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1"
        "\r\n:1\r\n*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5"
        "\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4"
        "\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$"
        "9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6"
        "\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r"
        "\n*0\r\n",
        "1)  1) \"get\"\n"
        "    2) (integer) 2\n"
        "    3) 1) readonly\n"
        "       2) fast\n"
        "    4) (integer) 1\n"
        "    5) (integer) 1\n"
        "    6) (integer) 1\n"
        "    7) 1) @read\n"
        "       2) @string\n"
        "       3) @fast\n"
        "    8) (empty array)\n"
        "    9) 1) 1) \"flags\"\n"
        "          2) 1) RO\n"
        "             2) access\n"
        "          3) \"begin_search\"\n"
        "          4) 1) \"type\"\n"
        "             2) \"index\"\n"
        "             3) \"spec\"\n"
        "             4) 1) \"index\"\n"
        "                2) (integer) 1\n"
        "          5) \"find_keys\"\n"
        "          6) 1) \"type\"\n"
        "             2) \"range\"\n"
        "             3) \"spec\"\n"
        "             4) 1) \"lastkey\"\n"
        "                2) (integer) 0\n"
        "                3) \"keystep\"\n"
        "                4) (integer) 1\n"
        "                5) \"limit\"\n"
        "                6) (integer) 0\n"
        "   10) (empty array)\n"),
    FORMAT("errors, nils and arrays mix inside one array", 0,
        "*4\r\n"
        ":-98\r\n"
        "*3\r\n"
        "$1\r\n"
        "a\r\n"
        "$3\r\n"
        "b c\r\n"
        "$0\r\n"
        "\r\n"
        "$-1\r\n"
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r"
        "\n",
        "1) (integer) -98\n"
        "2) 1) \"a\"\n"
        "   2) \"b c\"\n"
        "   3) \"\"\n"
        "3) (nil)\n"
        "4) (error) WRONGTYPE Operation against a key holding the wrong kind o"
        "f value\n"),
    FORMAT("a status reply prints only up to its first NUL byte", 0,
        "+a\000b\r\n",
        "a\n"),
    FORMAT("an error reply prints only up to its first NUL byte", 0,
        "-ERR a\000b\r\n",
        "(error) ERR a\n"),
    FORMAT("a RESP3 map prints key => value with # indexes", 0,
        "%7\r\n"
        "$6\r\n"
        "server\r\n"
        "$5\r\n"
        "redis\r\n"
        "$7\r\n"
        "version\r\n"
        "$6\r\n"
        "7.0.15\r\n"
        "$5\r\n"
        "proto\r\n"
        ":3\r\n"
        "$2\r\n"
        "id\r\n"
        ":158\r\n"
        "$4\r\n"
        "mode\r\n"
        "$10\r\n"
        "standalone\r\n"
        "$4\r\n"
        "role\r\n"
        "$6\r\n"
        "master\r\n"
        "$7\r\n"
        "modules\r\n"
        "*0\r\n",
        "1# \"server\" => \"redis\"\n"
        "2# \"version\" => \"7.0.15\"\n"
        "3# \"proto\" => (integer) 3\n"
        "4# \"id\" => (integer) 158\n"
        "5# \"mode\" => \"standalone\"\n"
        "6# \"role\" => \"master\"\n"
        "7# \"modules\" => (empty array)\n"),
    FORMAT("a RESP3 double prints (double) and its text", 0,
        ",3.141\r\n",
        "(double) 3.141\n"),
    FORMAT("a RESP3 double keeps the server exponent notation", 0,
        ",1.5e10\r\n",
        "(double) 1.5e10\n"),
    FORMAT("a RESP3 negative infinity prints as -inf", 0,
        ",-inf\r\n",
        "(double) -inf\n"),
    FORMAT("a RESP3 true prints (true)", 0,
        "#t\r\n",
        "(true)\n"),
    FORMAT("a RESP3 false prints (false)", 0,
        "#f\r\n",
        "(false)\n"),
    FORMAT("a RESP3 null prints (nil)", 0,
        "_\r\n",
        "(nil)\n"),
    FORMAT("a RESP3 set numbers its elements with ~", 0,
        "~3\r\n"
        ":0\r\n"
        ":1\r\n"
        ":2\r\n",
        "1~ (integer) 0\n"
        "2~ (integer) 1\n"
        "3~ (integer) 2\n"),
    FORMAT("a RESP3 set pads its indexes like an array", 0,
        "~12\r\n"
        "$1\r\n"
        "a\r\n"
        "$1\r\n"
        "b\r\n"
        "$1\r\n"
        "c\r\n"
        "$1\r\n"
        "d\r\n"
        "$1\r\n"
        "e\r\n"
        "$1\r\n"
        "f\r\n"
        "$1\r\n"
        "g\r\n"
        "$1\r\n"
        "h\r\n"
        "$1\r\n"
        "i\r\n"
        "$1\r\n"
        "j\r\n"
        "$1\r\n"
        "k\r\n"
        "$1\r\n"
        "l\r\n",
        " 1~ \"a\"\n"
        " 2~ \"b\"\n"
        " 3~ \"c\"\n"
        " 4~ \"d\"\n"
        " 5~ \"e\"\n"
        " 6~ \"f\"\n"
        " 7~ \"g\"\n"
        " 8~ \"h\"\n"
        " 9~ \"i\"\n"
        "10~ \"j\"\n"
        "11~ \"k\"\n"
        "12~ \"l\"\n"),
    FORMAT("an empty RESP3 set prints (empty set)", 0,
        "~0\r\n",
        "(empty set)\n"),
    FORMAT("an empty RESP3 map prints (empty hash)", 0,
        "%0\r\n",
        "(empty hash)\n"),
    FORMAT("a RESP3 verbatim string prints raw without its format", 0,
        "=29\r\n"
        "txt:This is a verbatim\nstring\r\n",
        "This is a verbatim\n"
        "string\n"),
    FORMAT("a verbatim string drops any four-byte format prefix", 0,
        "=7\r\n"
        "mkd:a\nb\r\n",
        "a\n"
        "b\n"),
    FORMAT("RESP3 pairs of member and double nest one level", 0,
        "*3\r\n"
        "*2\r\n"
        "$1\r\n"
        "c\r\n"
        ",-inf\r\n"
        "*2\r\n"
        "$1\r\n"
        "a\r\n"
        ",1\r\n"
        "*2\r\n"
        "$1\r\n"
        "b\r\n"
        ",2.5\r\n",
        "1) 1) \"c\"\n"
        "   2) (double) -inf\n"
        "2) 1) \"a\"\n"
        "   2) (double) 1\n"
        "3) 1) \"b\"\n"
        "   2) (double) 2.5\n"),
    FORMAT("a map pads its indexes to the number of entries not elements", 0,
        "%10\r\n"
        "+k0\r\n"
        ":0\r\n"
        "+k1\r\n"
        ":1\r\n"
        "+k2\r\n"
        ":2\r\n"
        "+k3\r\n"
        ":3\r\n"
        "+k4\r\n"
        ":4\r\n"
        "+k5\r\n"
        ":5\r\n"
        "+k6\r\n"
        ":6\r\n"
        "+k7\r\n"
        ":7\r\n"
        "+k8\r\n"
        ":8\r\n"
        "+k9\r\n"
        ":9\r\n",
        " 1# k0 => (integer) 0\n"
        " 2# k1 => (integer) 1\n"
        " 3# k2 => (integer) 2\n"
        " 4# k3 => (integer) 3\n"
        " 5# k4 => (integer) 4\n"
        " 6# k5 => (integer) 5\n"
        " 7# k6 => (integer) 6\n"
        " 8# k7 => (integer) 7\n"
        " 9# k8 => (integer) 8\n"
        "10# k9 => (integer) 9\n"),
    FORMAT("a map value spanning lines starts on its own line", 0,
        "%9\r\n"
        "$6\r\n"
        "length\r\n"
        ":1\r\n"
        "$15\r\n"
        "radix-tree-keys\r\n"
        ":1\r\n"
        "$16\r\n"
        "radix-tree-nodes\r\n"
        ":2\r\n"
        "$17\r\n"
        "last-generated-id\r\n"
        "$3\r\n"
        "1-1\r\n"
        "$20\r\n"
        "max-deleted-entry-id\r\n"
        "$3\r\n"
        "0-0\r\n"
        "$13\r\n"
        "entries-added\r\n"
        ":1\r\n"
        "$23\r\n"
        "recorded-first-entry-id\r\n"
        "$3\r\n"
        "1-1\r\n"
        "$7\r\n"
        "entries\r\n"
        "*1\r\n"
        "*2\r\n"
        "$3\r\n"
        "1-1\r\n"
        "*4\r\n"
        "$1\r\n"
        "f\r\n"
        "$1\r\n"
        "v\r\n"
        "$1\r\n"
        "g\r\n"
        "$1\r\n"
        "w\r\n"
        "$6\r\n"
        "groups\r\n"
        "*0\r\n",
        "1# \"length\" => (integer) 1\n"
        "2# \"radix-tree-keys\" => (integer) 1\n"
        "3# \"radix-tree-nodes\" => (integer) 2\n"
        "4# \"last-generated-id\" => \"1-1\"\n"
        "5# \"max-deleted-entry-id\" => \"0-0\"\n"
        "6# \"entries-added\" => (integer) 1\n"
        "7# \"recorded-first-entry-id\" => \"1-1\"\n"
        "8# \"entries\" => \n"
        "   1) 1) \"1-1\"\n"
        "      2) 1) \"f\"\n"
        "         2) \"v\"\n"
        "         3) \"g\"\n"
        "         4) \"w\"\n"
        "9# \"groups\" => (empty array)\n"),
    FORMAT("a map value is multi-line only with more than one entry somewhere",
        0,
        "%5\r\n"
        "+a\r\n"
        "*1\r\n"
        ":1\r\n"
        "+b\r\n"
        "*1\r\n"
        "*2\r\n"
        ":1\r\n"
        ":2\r\n"
        "+c\r\n"
        "%1\r\n"
        "+k\r\n"
        "*2\r\n"
        ":1\r\n"
        ":2\r\n"
        "+d\r\n"
        "%1\r\n"
        "*3\r\n"
        ":1\r\n"
        ":2\r\n"
        ":3\r\n"
        ":4\r\n"
        "+e\r\n"
        "~2\r\n"
        ":1\r\n"
        ":2\r\n",
        "1# a => 1) (integer) 1\n"
        "2# b => \n"
        "   1) 1) (integer) 1\n"
        "      2) (integer) 2\n"
        "3# c => \n"
        "   1# k => \n"
        "      1) (integer) 1\n"
        "      2) (integer) 2\n"
        "4# d => 1# 1) (integer) 1\n"
        "      2) (integer) 2\n"
        "      3) (integer) 3 => (integer) 4\n"
        "5# e => \n"
        "   1~ (integer) 1\n"
        "   2~ (integer) 2\n"),
    FORMAT("a multi-line map value nested in an array is indented to its "
           "siblings",
        0,
        "*11\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        ":0\r\n"
        "%2\r\n"
        "+k\r\n"
        "*2\r\n"
        "+a\r\n"
        "+b\r\n"
        "+j\r\n"
        "*-1\r\n",
        " 1) (integer) 0\n"
        " 2) (integer) 0\n"
        " 3) (integer) 0\n"
        " 4) (integer) 0\n"
        " 5) (integer) 0\n"
        " 6) (integer) 0\n"
        " 7) (integer) 0\n"
        " 8) (integer) 0\n"
        " 9) (integer) 0\n"
        "10) (integer) 0\n"
        "11) 1# k => \n"
        "       1) a\n"
        "       2) b\n"
        "    2# j => (nil)\n"),
    FORMAT("an aggregate map key keeps the value on its last line", 0,
        "%1\r\n"
        "*2\r\n"
        "+a\r\n"
        "+b\r\n"
        "%1\r\n"
        "+k\r\n"
        "*2\r\n"
        ":1\r\n"
        ":2\r\n",
        "1# 1) a\n"
        "   2) b => \n"
        "   1# k => \n"
        "      1) (integer) 1\n"
        "      2) (integer) 2\n"),
    FORMAT("raw mode prints a bulk string as its bytes without a newline", 1,
        "$394\r\n[Dictionary HT]\nHash table 0 stats (main hash table):\n tabl"
        "e size: 32\n number of elements: 21\n different slots: 17\n max chain"
        " length: 3\n avg chain length (counted): 1.24\n avg chain length (com"
        "puted): 1.24\n Chain length distribution:\n   0: 15 (46.88%)\n   1: 1"
        "4 (43.75%)\n   2: 2 (6.25%)\n   3: 1 (3.12%)\n[Expires HT]\nHash tabl"
        "e 0 stats (main hash table):\nNo stats available for empty dictionari"
        "es\n\r\n",
        "[Dictionary HT]\n"
        "Hash table 0 stats (main hash table):\n"
        " table size: 32\n"
        " number of elements: 21\n"
        " different slots: 17\n"
        " max chain length: 3\n"
        " avg chain length (counted): 1.24\n"
        " avg chain length (computed): 1.24\n"
        " Chain length distribution:\n"
        "   0: 15 (46.88%)\n"
        "   1: 14 (43.75%)\n"
        "   2: 2 (6.25%)\n"
        "   3: 1 (3.12%)\n"
        "[Expires HT]\n"
        "Hash table 0 stats (main hash table):\n"
        "No stats available for empty dictionaries\n"),
    FORMAT("raw mode prints an error without (error) and with a newline", 1,
        "-ERR value is not an integer or out of range\r\n",
        "ERR value is not an integer or out of range\n"),
    FORMAT("raw mode keeps the CRLFs of INFO text", 1,
        "$45\r\n"
        "# Keyspace\r\n"
        "db9:keys=21,expires=0,avg_ttl=0\r\n"
        "\r\n",
        "# Keyspace\r\n"
        "db9:keys=21,expires=0,avg_ttl=0\r\n"),
    FORMAT("raw mode prints an empty bulk string as nothing", 1,
        "$0\r\n"
        "\r\n",
        ""),
    FORMAT("raw mode prints an error in full, NUL bytes included", 1,
        "-ERR a\000b\r\n",
        "ERR a\000b\n"),
    FORMAT("raw mode puts one element per line and a space inside map entries",
        1,
        "*3\r\n"
        "*2\r\n"
        "+a\r\n"
        "$-1\r\n"
        ":7\r\n"
        "%2\r\n"
        "+k\r\n"
        "+v\r\n"
        "+k2\r\n"
        "*0\r\n",
        "a\n"
        "\n"
        "7\n"
        "k v\n"
        "k2 "),
    FORMAT("raw mode prints booleans, doubles and nulls as redis-cli does", 1,
        "*3\r\n"
        "#t\r\n"
        ",2.5\r\n"
        "_\r\n",
        "(true)\n"
        "2.5\n"),
    FORMAT("raw mode prints a verbatim string without its format", 1,
        "=7\r\n"
        "txt:a\nb\r\n",
        "a\n"
        "b"),
};

static const formatCase *current;

static void _runFormatCase(void) {
    _expectFormat(current->in, current->inlen, current->raw, current->want,
                  current->wantlen);
}

/* Blob errors and attributes, which redis-cli's hiredis rejects, and big
 * numbers, which it cannot print, are refused. */
static void test_unsupported(void) {
    _expectMalformed(LIT("!5\r\nERR a\r\n"));
    _expectMalformed(LIT("(123\r\n"));
    _expectMalformed(LIT("|1\r\n+a\r\n+b\r\n+c\r\n"));
    _expectMalformed(LIT("?x\r\n"));
    _expectMalformed(LIT("*2\r\n:1\r\n(1\r\n"));
}

/* Integers, lengths, doubles and booleans must be well formed. */
static void test_malformed(void) {
    _expectMalformed(LIT(":12a\r\n"));
    _expectMalformed(LIT(":-0\r\n"));
    _expectMalformed(LIT(":+1\r\n"));
    _expectMalformed(LIT(":01\r\n"));
    _expectMalformed(LIT(":\r\n"));
    _expectMalformed(LIT("$-2\r\n"));
    _expectMalformed(LIT("*-2\r\n"));
    _expectMalformed(LIT("$x\r\n"));
    _expectMalformed(LIT(",nan\r\n"));
    _expectMalformed(LIT(",1.5x\r\n"));
    _expectMalformed(LIT("#x\r\n"));
    _expectMalformed(LIT("_x\r\n"));
    _expectMalformed(LIT("=3\r\ntxt\r\n"));
}

/* Nesting deeper than 128 levels is refused instead of recursed into. */
static void test_depth(void) {
    char buf[4 * 200 + 4];
    for (int i = 0; i < 200; i++) memcpy(buf + 4 * i, "*1\r\n", 4);
    memcpy(buf + 800, ":1\r\n", 4);
    _expectMalformed(buf, sizeof(buf));
}

/* Only the first of two pipelined replies is consumed. */
static void test_pipelined(void) {
    char *text;
    size_t len;
    CHECK_EQ_INT(cliFormatReply(LIT("+OK\r\n:1\r\n"), &text, &len), 5);
    _checkBytes(text, len, LIT("OK\n"));
    free(text);
}

int main(void) {
    RUN("runs of blanks separate arguments and surround the line freely",
        test_blanks);
    RUN("quotes of either kind keep spaces inside one argument",
        test_quotes);
    RUN("double quotes understand \\n \\r \\t \\b \\a and escape any byte",
        test_escapes);
    RUN("\\xHH takes exactly two hex digits, else it is the letter x",
        test_hex);
    RUN("single quotes only escape a single quote", test_single);
    RUN("a quote may open in the middle of an argument", test_midquote);
    RUN("a closing quote glued to more text makes the line invalid",
        test_glued);
    RUN("an unterminated quote makes the line invalid", test_unterminated);
    RUN("empty quotes make an empty argument", test_emptyarg);
    RUN("a blank line is no request at all", test_blankline);
    RUN("tab and CR end an argument while \\v and \\f only lead one",
        test_separators);
    RUN("the line ends at its first NUL byte", test_nulline);
    RUN("bytes above 0x7f pass through untouched", test_highbytes);
    RUN("splitting hands back binary-safe arguments with their lengths",
        test_splitargs);
    RUN("a leading count repeats the command", test_repeat);
    RUN("zero, negative, overflowing and empty counts are invalid",
        test_badrepeat);
    RUN("a lone number or a number with trailing text is the command",
        test_norepeat);
    RUN("INFO, DEBUG HTSTATS and their kin print raw", test_rawcommands);
    for (size_t i = 0; i < sizeof(formatCases) / sizeof(formatCases[0]);
         i++) {
        current = &formatCases[i];
        RUN(current->name, _runFormatCase);
    }
    RUN("blob errors, attributes and big numbers are refused",
        test_unsupported);
    RUN("malformed integers, lengths, doubles and booleans are refused",
        test_malformed);
    RUN("nesting deeper than 128 levels is refused", test_depth);
    RUN("only the first of two pipelined replies is consumed",
        test_pipelined);
    return gkTestReport();
}
