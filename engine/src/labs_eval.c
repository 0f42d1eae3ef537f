/* labs_eval.c -- the eval-vs-zcard lab of seed 004: a million sorted sets,
 * KEY0 .. KEY999999, each holding one member, DATA, at score 0; a redis-rb
 * client adds up their sizes twice.
 *
 *   run 1  one ZCARD per key on one connection, without a pipeline: write
 *          the command, read the reply line, next key. A million round
 *          trips, two million system calls on each side.
 *   run 2  one EVAL of a script that calls ZCARD on each of its keys and
 *          returns the sum, with all the keys as its arguments: one
 *          command of 15 MB, one reply of 10 bytes, and a server that
 *          serves nobody else while the script runs.
 *
 * The client's bytes are counted by its socket calls, as the seed's
 * benchmark counted the strings it wrote and read: 29,888,890 and
 * 4,000,000 bytes for run 1, 14,889,033 and 10 for run 2. Each run has a
 * monitor of its own that PINGs every 10 ms on its own connection; its
 * worst wait shows what the freeze (the longest a single command held the
 * server's event loop) does to everyone else.
 *
 * The dataset is loaded into the server directly, before anything is
 * measured, as the seed loads it before its benchmark starts: a million
 * ZADDs through the network would take the lab longer than the runs.
 *
 * The lab runs in steps (gkEvalLab, glasskv.h): a page shows its progress
 * between two steps and may stop it there, and gkLabRun takes the same
 * steps to the end at once. A step loads a slice of the dataset or runs
 * a number of the world's events; the runs end, and the next begins, at
 * the event after which their client has its last reply, so the figures
 * do not depend on how the lab was cut into steps. */
#include <string.h>
#include <stdio.h>
#include "world.h"
#include "labs.h"
#include "acl.h"
#include "t_zset.h"

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL

/* Keys of the dataset. */
#define EV_KEYS 1000000u

/* redis-rb's own CPU as the seed's benchmark measured it: 8.4 us to build
 * a ZCARD (two arguments), 1.1 s to build an EVAL of a million and three;
 * so about 1.1 us per argument formatted and 6 us per command, and as
 * much again to read and format a reply. */
#define EV_CLIENT_CMD_NS 12000
#define EV_CLIENT_ARG_NS 1100

/* The monitor's PING interval. */
#define EV_MONITOR_NS (10 * MS)

/* How many records the trace ring of a recorded run holds: the frozen
 * iteration alone writes one per command the script calls (a million),
 * and a step stops once EV_TRACE_STEP records wait to be read, so the
 * host drains the ring before the iteration that fills it most. */
#define EV_TRACE_CAP (1u << 20)
#define EV_TRACE_STEP (1u << 14)

/* The longest a run may take, in virtual time: a time box, so that a
 * client that never gets its reply cannot keep a step loop going. */
#define EV_TIME_BOX (3600 * SEC)

/* Room for the figures of the dataset and both runs. */
#define EV_FIGURES 4096

/* One run's figures taken before and after it. */
typedef struct evMark {
    gkNodeStats srv;
    long long calls, ns;
    uint64_t t;
} evMark;

/* The lab in progress. The dataset is loaded in slices and the runs go
 * one event at a time, so a step can end anywhere and the figures are
 * the same however the run was cut into steps. */
struct gkEvalLab {
    gkWorld *w;
    int srv;
    int part;               /* GK_EVLAB_* */
    uint64_t seed;
    int trace;              /* record the EVAL run's trace */
    uint32_t loaded;        /* keys of the dataset loaded so far */
    uint64_t load_from;     /* when loading began */
    size_t mem_from;        /* the world's memory then */
    gkWorkloadSpec spec;    /* the run's client program */
    int cl, mon;            /* its client and monitor (node ids) */
    int cmdid;              /* the id of its command */
    evMark a;               /* the figures when it began */
    uint64_t deadline;      /* its time box */
    uint64_t iters;         /* the server's iterations seen so far */
    uint64_t iter_max;      /* its longest iteration in the run, */
    uint64_t iter_at;       /* which began then */
    labOut out;             /* the figures written so far */
    char figures[EV_FIGURES];
};

static void _mark(gkWorld *w, int srv, int cmdid, evMark *m) {
    redisServer *s = worldServer(w, srv);
    gkNodeGetStats(w, srv, &m->srv);
    m->calls = s->cmdstats[cmdid].calls;
    m->ns = s->cmdstats[cmdid].ns;
    m->t = gkWorldNow(w);
}

static double _ms(uint64_t ns) { return (double)ns / 1e6; }

/* Loads the next n sorted sets of the dataset, KEY<loaded> on, into db 0:
 * each a listpack holding DATA at score 0, as ZADD KEYi 0 DATA leaves it.
 * The work is the server's own, charged to its clock as one piece of
 * work however many slices it is cut into: nothing else runs between
 * two slices (the world waits for the next step), so the node is entered
 * once, left between slices without ending the piece, and left for good
 * after the last key, when the world runs to the moment the server is
 * free again. GK_ENOMEM if the heap limit is reached first. */
static int _loadSlice(gkEvalLab *l, uint32_t n) {
    gkWorld *w = l->w;
    redisServer *s = worldServer(w, l->srv);
    redisDb *db = &s->db[0];
    if (l->loaded == 0) {
        if (dictTryExpand(db->dict, EV_KEYS) != C_OK) return GK_ENOMEM;
        l->load_from = gkWorldNow(w);
        l->mem_from = gkWorldMemory(w);
        worldEnterNode(w, l->srv);
    } else {
        w->running = l->srv;
    }
    if (n > EV_KEYS - l->loaded) n = EV_KEYS - l->loaded;
    /* the one member every set gets, made once a slice: scaffolding that
     * costs the server nothing, so that slices of any size load alike */
    s->denv.quiet++;
    sds member = sdsnew(s->mem, "DATA");
    s->denv.quiet--;
    char name[32];
    int st = GK_OK;
    for (uint32_t i = 0; i < n; i++, l->loaded++) {
        if (serverHeapExceeded(s)) { st = GK_ENOMEM; break; }
        int len = snprintf(name, sizeof(name), "KEY%u", l->loaded);
        robj *key = createStringObject(s, name, (size_t)len);
        robj *zobj = createZsetListpackObject(s);
        int out;
        double score;
        zsetAdd(s, zobj, 0, member, ZADD_IN_NONE, &out, &score);
        dbAdd(s, db, key, zobj);
        decrRefCount(s, key);
    }
    sdsfree(s->mem, member);    /* frees cost nothing but a value's */
    if (st != GK_OK || l->loaded < EV_KEYS) {
        w->running = -1;
        return st;
    }
    worldLeaveNode(w, l->srv);
    gkWorldRunUntil(w, w->nodes[l->srv].busy_until);
    return GK_OK;
}

/* Writes the figures of the run just ended: the client's bytes and system
 * calls, its time per phase, the server's system calls, its longest
 * iteration (the freeze, for the EVAL) and the command's time as INFO
 * commandstats gives it, and what the monitor saw. */
static void _emitRun(gkEvalLab *l, const char *name, const evMark *b) {
    gkWorld *w = l->w;
    const evMark *a = &l->a;
    const gkWorkloadSpec *sp = &l->spec;
    redisServer *s = worldServer(w, l->srv);
    labOut *o = &l->out;
    gkWorkloadStats st, ms;
    gkNodeStats cs;
    gkWorkloadGetStats(w, l->cl, &st);
    gkWorkloadGetStats(w, l->mon, &ms);
    gkNodeGetStats(w, l->cl, &cs);
    long long calls = b->calls - a->calls;
    labEmit(o, ",{\"name\":\"%s\",\"command\":\"%s\",\"keys\":%u,"
            "\"start_ns\":%llu,\"end_ns\":%llu,"
            "\"commands\":%llu,\"result\":%lld,\"virtual_seconds\":%.6f,"
            "\"client\":{\"node\":%d,\"bytes_written\":%llu,"
            "\"bytes_read\":%llu,\"reads\":%llu,\"writes\":%llu,"
            "\"polls\":%llu,\"phases_ms\":{\"build\":%.3f,\"write\":%.3f,"
            "\"wait_read\":%.3f}},", name, sp->command, sp->keyspace,
            (unsigned long long)a->t, (unsigned long long)b->t,
            (unsigned long long)st.completed, (long long)st.int_sum,
            (double)(st.end_ns - st.start_ns) / 1e9, l->cl,
            (unsigned long long)cs.bytes_written,
            (unsigned long long)cs.bytes_read, (unsigned long long)cs.reads,
            (unsigned long long)cs.writes, (unsigned long long)cs.polls,
            _ms(st.build_ns), _ms(st.write_ns), _ms(st.wait_ns));
    labEmit(o, "\"server\":{\"reads\":%llu,\"writes\":%llu,\"polls\":%llu,"
            "\"iterations\":%llu,\"longest_iteration\":{\"ms\":%.6f,"
            "\"start_ns\":%llu,\"end_ns\":%llu}},\"server_calls\":%lld,"
            "\"server_usec_per_call\":%.3f,\"freeze_ms\":%.6f,",
            (unsigned long long)(b->srv.reads - a->srv.reads),
            (unsigned long long)(b->srv.writes - a->srv.writes),
            (unsigned long long)(b->srv.polls - a->srv.polls),
            (unsigned long long)(b->srv.iterations - a->srv.iterations),
            _ms(l->iter_max), (unsigned long long)l->iter_at,
            (unsigned long long)(l->iter_at + l->iter_max),
            calls, calls ? (double)(b->ns - a->ns) / 1e3 / (double)calls : 0,
            _ms((uint64_t)s->cmdstats[l->cmdid].max_ns));
    labEmit(o, "\"monitor\":{\"node\":%d,\"command\":\"PING\","
            "\"interval_ms\":%.0f,\"replies\":%llu,\"max_ms\":%.3f,"
            "\"p50_ms\":%.3f}}", l->mon, _ms(EV_MONITOR_NS),
            (unsigned long long)ms.completed, _ms(ms.lat_max_ns),
            _ms(ms.lat_p50_ns));
}

/* redis-rb on loopback: one connection, its CPU per command and per
 * argument, no link delay beyond the system calls (the calibration of
 * tests/bench/calibrate.mjs models loopback so). */
static gkWorkloadSpec _rubySpec(const char *command, uint64_t requests) {
    gkWorkloadSpec sp;
    gkWorkloadSpecInit(&sp);
    sp.clients = 1;
    sp.pipeline = 1;
    sp.requests = requests;
    sp.keyspace = EV_KEYS;
    sp.sequential = 1;
    sp.client_cmd_ns = EV_CLIENT_CMD_NS;
    sp.client_arg_ns = EV_CLIENT_ARG_NS;
    strcpy(sp.key_prefix, "KEY");
    strcpy(sp.command, command);
    return sp;
}

/* Starts the client program of part (ZCARD per key, or one EVAL) against
 * the loaded server, with a monitor of its own started with it. */
static int _runStart(gkEvalLab *l, int part) {
    gkWorld *w = l->w;
    redisServer *s = worldServer(w, l->srv);
    l->spec = part == GK_EVLAB_ZCARD ? _rubySpec("zcard", EV_KEYS)
                                     : _rubySpec("eval", 1);
    const redisCommand *cmd = aclLookupCommand(s, l->spec.command);
    if (!cmd) return GK_EINVAL;
    l->cmdid = cmd->id;
    gkWorkloadSpec m;
    gkWorkloadSpecInit(&m);
    m.clients = 1;
    m.requests = 0;
    m.rtt_ns = l->spec.rtt_ns;
    m.client_cmd_ns = 200;
    m.interval_ns = EV_MONITOR_NS;
    strcpy(m.command, "PING");
    if (part == GK_EVLAB_EVAL && l->trace)
        gkTraceEnable(w, (1u << GK_TR_CMD) | (1u << GK_TR_SYSCALL) |
                         (1u << GK_TR_LOOP) | (1u << GK_TR_CLIENT) |
                         (1u << GK_TR_CRON));
    _mark(w, l->srv, l->cmdid, &l->a);
    l->iters = w->nodes[l->srv].stats.iterations;
    l->iter_max = l->iter_at = 0;
    l->deadline = gkWorldNow(w) + EV_TIME_BOX;
    int st = gkWorkloadStart(w, l->srv, &m, &l->mon);
    if (st == GK_OK) st = gkWorkloadStart(w, l->srv, &l->spec, &l->cl);
    if (st == GK_OK) l->part = part;
    return st;
}

/* Ends the run: the monitor is stopped and its PING in flight, if any,
 * waited for; the figures are written; the next part begins. */
static int _runEnd(gkEvalLab *l) {
    gkWorld *w = l->w;
    gkWorkloadStop(w, l->mon);
    gkWorldRunUntil(w, gkWorldNow(w) + 2 * EV_MONITOR_NS);
    evMark b;
    _mark(w, l->srv, l->cmdid, &b);
    int zcard = l->part == GK_EVLAB_ZCARD;
    _emitRun(l, zcard ? "ZCARD per key" : "one EVAL", &b);
    if (zcard) return _runStart(l, GK_EVLAB_EVAL);
    gkTraceEnable(w, 0);
    l->part = GK_EVLAB_DONE;
    return GK_OK;
}

/* Runs up to `events` events of the run in progress, one at a time,
 * keeping the server's longest iteration; ends the run once its client
 * has all its replies (or its time box is spent). */
static int _runSlice(gkEvalLab *l, uint32_t events) {
    gkWorld *w = l->w;
    gkNode *n = &w->nodes[l->srv];
    uint64_t seq0 = gkTraceLastSeq(w);
    for (uint32_t i = 0; i < events; i++) {
        if (gkWorldStep(w, NULL) != GK_OK) return _runEnd(l);
        if (n->stats.iterations != l->iters) {
            l->iters = n->stats.iterations;
            uint64_t d = n->busy_until - n->iter_start;
            if (d > l->iter_max) {
                l->iter_max = d;
                l->iter_at = n->iter_start;
            }
        }
        if (workloadDone(w, l->cl) || gkWorldNow(w) >= l->deadline)
            return _runEnd(l);
        if (gkTraceLastSeq(w) - seq0 >= EV_TRACE_STEP) break;
    }
    return GK_OK;
}

/* Creates the lab: a world of its own with one server, the dataset not
 * yet loaded. With trace, the world records the EVAL run (its client,
 * monitor and server: loops, system calls, commands) in a ring large
 * enough for its frozen iteration; nothing else is recorded. *out is
 * released with gkEvalLabRelease. GK_ENOMEM if the allocator refuses. */
int gkEvalLabCreate(gkEvalLab **out, uint64_t seed, gkBool trace) {
    *out = NULL;
    gkWorld *w = trace ? labWorld(seed, 1, EV_TRACE_CAP) : labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    gkTraceEnable(w, 0);
    gkEvalLab *l = memTryAlloc(&w->mem, sizeof(*l));
    if (!l) {
        gkWorldRelease(w);
        return GK_ENOMEM;
    }
    memset(l, 0, sizeof(*l));
    l->w = w;
    l->seed = seed;
    l->trace = trace != 0;
    l->part = GK_EVLAB_LOAD;
    l->cl = l->mon = -1;
    l->out.buf = l->figures;
    l->out.cap = sizeof(l->figures);
    int st = gkServerAdd(w, &l->srv);
    if (st != GK_OK) {
        gkEvalLabRelease(l);
        return st;
    }
    *out = l;
    return GK_OK;
}

/* Advances the lab by at most `work`: keys loaded while the dataset
 * loads, events run during the runs (a step also ends where a part
 * begins, and, while the trace records, once a batch of records waits
 * to be read). Fills *p (may be NULL) with where the lab is. Returns
 * GK_OK, or a failing status after which the lab stays where it was. */
int gkEvalLabStep(gkEvalLab *l, uint32_t work, gkEvalLabProgress *p) {
    int st = GK_OK;
    if (work == 0) work = 1;
    if (l->part == GK_EVLAB_LOAD) {
        st = _loadSlice(l, work);
        if (st == GK_OK && l->loaded == EV_KEYS) {
            labEmit(&l->out, "{\"name\":\"dataset\",\"preloaded_keys\":%u,"
                    "\"load_virtual_ms\":%.3f,\"memory_mb\":%.1f}",
                    EV_KEYS, _ms(gkWorldNow(l->w) - l->load_from),
                    (double)(gkWorldMemory(l->w) - l->mem_from) / 1048576);
            st = _runStart(l, GK_EVLAB_ZCARD);
        }
    } else if (l->part != GK_EVLAB_DONE) {
        st = _runSlice(l, work);
    }
    if (p) gkEvalLabGetProgress(l, p);
    return st;
}

/* Where the lab is: its part, the part's work done and in all (keys
 * loaded, replies the run's client has had), and the world's clock. */
void gkEvalLabGetProgress(gkEvalLab *l, gkEvalLabProgress *p) {
    memset(p, 0, sizeof(*p));
    p->part = l->part;
    p->now_ns = gkWorldNow(l->w);
    p->keys = EV_KEYS;
    if (l->part == GK_EVLAB_LOAD) {
        p->done = l->loaded;
        p->total = EV_KEYS;
    } else if (l->part != GK_EVLAB_DONE) {
        gkWorkloadStats st;
        gkWorkloadGetStats(l->w, l->cl, &st);
        p->done = st.completed;
        p->total = l->spec.requests;
        p->part_from_ns = l->a.t;
    }
}

/* Writes the lab's figures, as gkLabRun writes them, once it is done:
 * the JSON's length (which may exceed cap: retry with more), GK_EINVAL
 * before the end. */
long gkEvalLabFigures(gkEvalLab *l, char *out, size_t cap) {
    if (l->part != GK_EVLAB_DONE) return GK_EINVAL;
    labOut o = { out, cap, 0 };
    labEmit(&o, "{\"lab\":\"eval-vs-zcard\",\"seed\":%llu,\"runs\":[%.*s]}",
            (unsigned long long)l->seed, (int)l->out.len, l->figures);
    return (long)o.len;
}

/* The lab's world, to read its trace (never to change it). */
gkWorld *gkEvalLabWorld(gkEvalLab *l) { return l->w; }

/* Releases the lab and its world. */
void gkEvalLabRelease(gkEvalLab *l) {
    if (!l) return;
    gkWorld *w = l->w;
    memFree(&w->mem, l);
    gkWorldRelease(w);
}

/* Seed 004 headless: both runs against one server, one after the other,
 * as the seed's benchmark ran them; the same lab a page runs step by
 * step, taken to its end in one call. */
int labEvalVsZcard(labOut *o, uint64_t seed) {
    gkEvalLab *l;
    int st = gkEvalLabCreate(&l, seed, 0);
    if (st != GK_OK) return st;
    while (st == GK_OK && l->part != GK_EVLAB_DONE)
        st = gkEvalLabStep(l, 1u << 20, NULL);
    if (st == GK_OK) labEmit(o, "%.*s", (int)l->out.len, l->figures);
    gkEvalLabRelease(l);
    return st;
}
