/* exports.c -- the calls JavaScript makes that glasskv.h does not declare.
 *
 * glasskv.h crosses the boundary by itself: wasm/seam.mjs generates the
 * TypeScript readers of its structs and the wrappers of its calls that
 * take 64-bit integers. What is left here belongs to the module, not to a
 * world: the end of the heap (for memory images), the redis-cli side of
 * the console, and a deliberate trap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <emscripten.h>
#include "glasskv.h"
#include "cliformat.h"
#include "exports.h"
#include "world.h"

/* ---- The module's memory, for snapshots. ---- */

/* The end of the heap: everything the program has ever allocated (static
 * data, the stack and every malloc'd block, live or free) lies below it.
 * A copy of linear memory up to here, written back later, restores every
 * world in the module exactly; bytes above it were never handed out. */
EMSCRIPTEN_KEEPALIVE
size_t gkwHeapTop(void) {
    return (size_t)sbrk(0);
}

/* ---- The redis-cli side of the console. ---- */

#define GKW_MAX_REPEAT 1000000   /* most copies of one command sent */

/* Splits one console line the way redis-cli's interactive loop does: a
 * leading count ("3 INCR x") is taken off as the repeat count, and the
 * command is checked against the list of commands whose replies redis-cli
 * prints raw. On success *req holds the RESP request for one copy of the
 * command, whether its reply prints raw, and the count (capped at
 * GKW_MAX_REPEAT). Returns argc, 0 for a blank line, CLI_INVALID for
 * unbalanced quotes, GKW_CLI_BAD_REPEAT for a count that is zero, negative
 * or too large, or CLI_ENOMEM. */
EMSCRIPTEN_KEEPALIVE
int gkwCliLine(const char *line, size_t len, gkwCliRequest *req) {
    cliArgs args;
    long long count = 1;
    char *out = NULL;
    size_t outlen = 0;
    memset(req, 0, sizeof(*req));
    req->repeat = 1;
    int rc = cliSplitLine(line, len, &args);
    if (rc <= 0) return rc;
    int skip = cliRepeatPrefix(args.argc, args.argv, &count);
    if (skip < 0) {
        cliArgsRelease(&args);
        return GKW_CLI_BAD_REPEAT;
    }
    int argc = args.argc - skip;
    char *const *argv = args.argv + skip;
    req->raw = cliArgvWantsRaw(argc, argv);
    req->repeat = count > GKW_MAX_REPEAT ? GKW_MAX_REPEAT : (int)count;
    rc = cliArgvToResp(argc, argv, args.lens + skip, &out, &outlen);
    cliArgsRelease(&args);
    if (rc < 0) return rc;
    req->resp = (uint32_t)(uintptr_t)out;
    req->resp_len = (uint32_t)outlen;
    return argc;
}

/* Formats the first reply in buf as redis-cli prints it: raw (raw != 0)
 * for the commands gkwCliLine flagged, else as --no-raw does. Returns the
 * bytes consumed, 0 if incomplete, CLI_MALFORMED; out gets the text. */
EMSCRIPTEN_KEEPALIVE
long gkwCliFormatReply(const char *buf, size_t len, int raw,
                       gkwCliText *out) {
    char *text = NULL;
    size_t textlen = 0;
    long rc = raw ? cliFormatReplyRaw(buf, len, &text, &textlen)
                  : cliFormatReply(buf, len, &text, &textlen);
    out->text = (uint32_t)(uintptr_t)text;
    out->len = (uint32_t)textlen;
    return rc;
}

/* Executes an unreachable instruction. It exists so that the worker's trap
 * handling (a WebAssembly RuntimeError becoming a message, then a restart
 * from the input log) can be exercised on demand. */
EMSCRIPTEN_KEEPALIVE
void gkwDebugTrap(void) {
    __builtin_trap();
}

/* ---- The host's turn while a script is busy. ---- */

/* Module.onHostPoll(world, now), if the page's side set one: the host's
 * turn while a node of the world is held in a busy script (see
 * worldSetHostPoll). `now` is in ns, exact below 2^53. */
EM_JS(void, gkwHostPollJs, (gkWorld *w, double now), {
    var poll = Module['onHostPoll'];
    if (poll) poll(w, now);
});

static void _hostPoll(gkWorld *w, void *ctx, uint64_t now) {
    (void)ctx;
    gkwHostPollJs(w, (double)now);
}

/* Starts (on) or stops the world's calls to Module.onHostPoll. */
EMSCRIPTEN_KEEPALIVE
void gkwSetHostPoll(gkWorld *w, int on) {
    worldSetHostPoll(w, on ? _hostPoll : NULL, NULL);
}
