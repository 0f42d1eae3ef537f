/* fuzz_protocol.c -- Redis protocol bytes from one to three connections,
 * split at the points the input chooses, into a server that runs with
 * appendonly yes and appendfsync always; then kill -9 or a power loss at
 * a moment the input chooses, and a restart from the AOF.
 *
 * Properties, besides "nothing crashes, leaks or reads out of bounds":
 *   - the node always comes back up;
 *   - killed (or unplugged) right after an iteration of its event loop,
 *     once that iteration's writes and fsyncs are done and its replies
 *     sent, the restarted server holds exactly the dataset the dead one
 *     held (gkServerDeathDigest): under always every acknowledged write
 *     is there, and nothing else.
 * An input that sends CONFIG or DEBUG may change the policy or write
 * behind the AOF's back (DEBUG POPULATE is not propagated, in Redis
 * either), so for those the second property is not checked.
 *
 * The crash falls, as the input says, after the chunk it numbers:
 *   - at the end of the next event-loop iteration (the exact property);
 *   - in the beforeSleep of the iteration that runs the next command:
 *     those commands ran, their AOF write never happens;
 *   - as a power loss right after the next write(2) of aof_buf: written,
 *     not yet fsynced;
 *   - at a virtual time the input picks, wherever the process is.
 *
 * Input: one byte of settings (connections, crash kind and moment, a
 * first connection that never reads its replies), one byte numbering the
 * chunk after which the crash is armed, one byte for the delay of a timed
 * crash, then chunks: a byte naming the connection and the pause after
 * the chunk, a length byte, the bytes. The largest pause instead sends a
 * filler: two bytes of length, one byte repeated that many times (so a
 * small input can carry a big argument or a long inline line). */
#include "fuzzkit.h"

#define MAX_CONNS 3
#define PAUSE_NS 50000ull
#define DELAY_NS 20000ull
#define FILLER 63               /* the pause that means a filler chunk */

enum { AT_LOOP_END, AT_BEFORE_SLEEP, AFTER_WRITE, AT_TIME };

typedef struct protoRun {
    gkWorld *w;
    int srv, conns[MAX_CONNS], nconns;
    unsigned chunks, crash_chunk;
    int kind, moment, deaf;     /* deaf: conns[0] never reads replies */
    uint64_t delay;
} protoRun;

/* Arms the crash the input chose. */
static void _arm(protoRun *r) {
    gkWorld *w = r->w;
    switch (r->moment) {
    case AT_LOOP_END:
        gkServerCrashAtEvent(w, r->srv, r->kind, GK_TR_LOOP, GK_LOOP_END,
                             -1, 0);
        break;
    case AT_BEFORE_SLEEP:
        gkServerCrashAtEvent(w, r->srv, r->kind, GK_TR_CMD, -1, -1,
                             GK_CRASH_AT_BEFORE_SLEEP);
        break;
    case AFTER_WRITE:
        gkServerCrashAtEvent(w, r->srv, GK_CRASH_POWER, GK_TR_AOF,
                             GK_AOF_WRITE, -1, 0);
        break;
    default:
        gkServerCrashAt(w, r->srv, gkWorldNow(w) + r->delay, r->kind, 0);
    }
}

/* Runs the world for ns of virtual time, reading replies as they come. */
static void _run(protoRun *r, uint64_t ns) {
    uint64_t until = gkWorldNow(r->w) + ns;
    while (gkWorldNextEventTime(r->w) <= until) {
        if (gkWorldStep(r->w, NULL) != GK_OK) break;
        for (int i = r->deaf; i < r->nconns; i++)
            fuzzDrain(r->w, r->conns[i]);
    }
    gkWorldRunUntil(r->w, until);
}

/* Restarts the dead node and checks what it loaded. */
static void _checkRestart(protoRun *r, const uint8_t *data, size_t size) {
    uint64_t died, now;
    long long cutoff;
    FUZZ_CHECK(gkServerDeathDigest(r->w, r->srv, &died, &cutoff) == GK_OK,
               "a dead node has no digest");
    int st = gkServerRestart(r->w, r->srv, NULL);
    char log[4096] = "";
    uint64_t last;
    gkServerLogRead(r->w, r->srv, 0, log, sizeof(log), &last);
    FUZZ_CHECK(st == GK_OK && gkServerIsUp(r->w, r->srv),
               "restart failed (%d): %s", st, log);
    gkWorldRunUntil(r->w, gkWorldNow(r->w) + 1000000);
    if (r->moment != AT_LOOP_END || fuzzHasWord(data, size, "config") ||
        fuzzHasWord(data, size, "debug"))
        return;
    gkServerDatasetDigest(r->w, r->srv, cutoff, &now);
    FUZZ_CHECK(now == died, "restarted with %016llx, died with %016llx",
               (unsigned long long)now, (unsigned long long)died);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzzInput in = fuzzInputOf(data, size);
    uint8_t settings = fuzzByte(&in);
    protoRun r;
    memset(&r, 0, sizeof(r));
    r.nconns = 1 + settings % MAX_CONNS;
    r.kind = settings & 4 ? GK_CRASH_POWER : GK_CRASH_PROCESS;
    r.moment = (settings >> 3) & 3;
    r.deaf = (settings >> 5) & 1;
    r.crash_chunk = fuzzByte(&in);
    r.delay = DELAY_NS * fuzzByte(&in);
    gkConfig cfg;
    gkConfigInit(&cfg);
    cfg.seed = 7;
    cfg.unix_ms_at_zero = 1700000000000LL;
    cfg.heap_limit = 256u << 20;
    cfg.trace_capacity = 1u << 12;   /* a big ring costs each run its pages */
    if (gkWorldCreate(&r.w, &cfg, NULL, NULL) != GK_OK) return 0;
    FUZZ_CHECK(gkServerAddConfig(r.w, "appendonly yes\nappendfsync always\n",
                                 &r.srv) == GK_OK, "server did not start");
    /* An endless script sent as EVAL is stopped after busy-reply-threshold
     * and 1 ms, not the default box's 2 s (seconds of real time here). */
    gkServerSetScriptTimeBox(r.w, r.srv, 1, 1);
    for (int i = 0; i < r.nconns; i++)
        gkConnOpen(r.w, r.srv, &r.conns[i]);
    while (fuzzMore(&in)) {
        uint8_t h = fuzzByte(&in);
        int conn = r.conns[h % r.nconns];
        if (h >> 2 == FILLER) {
            size_t n = fuzzU16(&in) * 4u;
            uint8_t *fill = malloc(n ? n : 1);
            memset(fill, fuzzByte(&in), n);
            gkConnSend(r.w, conn, fill, n);
            free(fill);
        } else {
            const uint8_t *bytes;
            size_t n = fuzzChunk(&in, 255, &bytes);
            gkConnSend(r.w, conn, bytes, n);
        }
        if (r.chunks++ == r.crash_chunk) _arm(&r);
        _run(&r, h >> 2 == FILLER ? 0 : PAUSE_NS * (h >> 2));
    }
    _run(&r, 200 * 1000 * 1000ull);
    if (gkServerIsUp(r.w, r.srv)) {
        /* The crash never came: the moment it waited for did not. */
        gkServerCrash(r.w, r.srv, r.kind);
        r.moment = AT_LOOP_END;
    }
    _checkRestart(&r, data, size);
    gkWorldRelease(r.w);
    return 0;
}
