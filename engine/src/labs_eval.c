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
 * ZADDs through the network would take the lab longer than the runs. */
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

/* Loads `keys` sorted sets KEY0 .. into db 0 of server node srv: each a
 * listpack holding DATA at score 0, as ZADD KEYi 0 DATA leaves it. The
 * work is charged to the server's clock, as its own; the world is then
 * run to the moment the server is free again. GK_ENOMEM if the heap limit
 * is reached first. */
int labLoadZsets(gkWorld *w, int srv, uint32_t keys) {
    redisServer *s = worldServer(w, srv);
    if (!s) return GK_ENOTFOUND;
    redisDb *db = &s->db[0];
    if (dictTryExpand(db->dict, keys) != C_OK) return GK_ENOMEM;
    sds member = sdsnew(s->mem, "DATA");
    char name[32];
    int st = GK_OK;
    worldEnterNode(w, srv);
    for (uint32_t i = 0; i < keys; i++) {
        if (serverHeapExceeded(s)) { st = GK_ENOMEM; break; }
        int len = snprintf(name, sizeof(name), "KEY%u", i);
        robj *key = createStringObject(s, name, (size_t)len);
        robj *zobj = createZsetListpackObject(s);
        int out;
        double score;
        zsetAdd(s, zobj, 0, member, ZADD_IN_NONE, &out, &score);
        dbAdd(s, db, key, zobj);
        decrRefCount(s, key);
    }
    worldLeaveNode(w, srv);
    sdsfree(s->mem, member);
    gkWorldRunUntil(w, w->nodes[srv].busy_until);
    return st;
}

/* One run's figures taken before and after it. */
typedef struct evMark {
    gkNodeStats srv;
    long long calls, ns;
    uint64_t t;
} evMark;

static void _mark(gkWorld *w, int srv, int cmdid, evMark *m) {
    redisServer *s = worldServer(w, srv);
    gkNodeGetStats(w, srv, &m->srv);
    m->calls = s->cmdstats[cmdid].calls;
    m->ns = s->cmdstats[cmdid].ns;
    m->t = gkWorldNow(w);
}

/* Runs the world until workload id has all its replies, or max_ns of
 * virtual time has passed. */
static void _runUntilDone(gkWorld *w, int id, uint64_t max_ns) {
    uint64_t end = gkWorldNow(w) + max_ns, step = MS;
    gkWorkloadStats st;
    for (;;) {
        gkWorldRunUntil(w, gkWorldNow(w) + step);
        gkWorkloadGetStats(w, id, &st);
        if (st.done || gkWorldNow(w) >= end) return;
        if (step < 100 * MS) step *= 2;
    }
}

static double _ms(uint64_t ns) { return (double)ns / 1e6; }

/* Writes the figures of one run: the client's bytes and system calls,
 * its time per phase, the server's system calls and the command's time
 * as INFO commandstats would give it, the freeze and the monitor. */
static void _emitRun(gkWorld *w, int srv, int cl, int mon, int cmdid,
                     const char *name, const gkWorkloadSpec *sp,
                     const evMark *a, const evMark *b, labOut *o) {
    redisServer *s = worldServer(w, srv);
    gkWorkloadStats st, ms;
    gkNodeStats cs;
    gkWorkloadGetStats(w, cl, &st);
    gkWorkloadGetStats(w, mon, &ms);
    gkNodeGetStats(w, cl, &cs);
    long long calls = b->calls - a->calls;
    labEmit(o, "{\"name\":\"%s\",\"command\":\"%s\",\"keys\":%u,"
            "\"commands\":%llu,\"result\":%lld,\"virtual_seconds\":%.6f,"
            "\"client\":{\"bytes_written\":%llu,\"bytes_read\":%llu,"
            "\"reads\":%llu,\"writes\":%llu,\"polls\":%llu,"
            "\"phases_ms\":{\"build\":%.3f,\"write\":%.3f,"
            "\"wait_read\":%.3f}},", name, sp->command, sp->keyspace,
            (unsigned long long)st.completed, (long long)st.int_sum,
            (double)(st.end_ns - st.start_ns) / 1e9,
            (unsigned long long)cs.bytes_written,
            (unsigned long long)cs.bytes_read, (unsigned long long)cs.reads,
            (unsigned long long)cs.writes, (unsigned long long)cs.polls,
            _ms(st.build_ns), _ms(st.write_ns), _ms(st.wait_ns));
    labEmit(o, "\"server\":{\"reads\":%llu,\"writes\":%llu,\"polls\":%llu,"
            "\"iterations\":%llu},\"server_calls\":%lld,"
            "\"server_usec_per_call\":%.3f,\"freeze_ms\":%.6f,",
            (unsigned long long)(b->srv.reads - a->srv.reads),
            (unsigned long long)(b->srv.writes - a->srv.writes),
            (unsigned long long)(b->srv.polls - a->srv.polls),
            (unsigned long long)(b->srv.iterations - a->srv.iterations),
            calls, calls ? (double)(b->ns - a->ns) / 1e3 / (double)calls : 0,
            _ms((uint64_t)s->cmdstats[cmdid].max_ns));
    labEmit(o, "\"monitor\":{\"command\":\"PING\",\"interval_ms\":%.0f,"
            "\"replies\":%llu,\"max_ms\":%.3f,\"p50_ms\":%.3f}}",
            _ms(EV_MONITOR_NS), (unsigned long long)ms.completed,
            _ms(ms.lat_max_ns), _ms(ms.lat_p50_ns));
}

/* One run: the client program of spec against the loaded server, with a
 * monitor started with it and stopped once the client is done (its PING
 * in flight, if any, is waited for). */
static int _evRun(gkWorld *w, int srv, const char *name,
                  const gkWorkloadSpec *sp, labOut *o) {
    redisServer *s = worldServer(w, srv);
    const redisCommand *cmd = aclLookupCommand(s, sp->command);
    if (!cmd) return GK_EINVAL;
    gkWorkloadSpec m;
    gkWorkloadSpecInit(&m);
    m.clients = 1;
    m.requests = 0;
    m.rtt_ns = sp->rtt_ns;
    m.client_cmd_ns = 200;
    m.interval_ns = EV_MONITOR_NS;
    strcpy(m.command, "PING");
    evMark a, b;
    _mark(w, srv, cmd->id, &a);
    int cl, mon, st;
    if ((st = gkWorkloadStart(w, srv, &m, &mon)) != GK_OK) return st;
    if ((st = gkWorkloadStart(w, srv, sp, &cl)) != GK_OK) return st;
    _runUntilDone(w, cl, 3600 * SEC);
    gkWorkloadStop(w, mon);
    gkWorldRunUntil(w, gkWorldNow(w) + 2 * EV_MONITOR_NS);
    _mark(w, srv, cmd->id, &b);
    _emitRun(w, srv, cl, mon, cmd->id, name, sp, &a, &b, o);
    return GK_OK;
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

/* Seed 004: both runs against one server, one after the other, as the
 * seed's benchmark ran them. */
int labEvalVsZcard(labOut *o, uint64_t seed) {
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int srv, st;
    if ((st = gkServerAdd(w, &srv)) != GK_OK) goto done;
    uint64_t t0 = gkWorldNow(w);
    if ((st = labLoadZsets(w, srv, EV_KEYS)) != GK_OK) goto done;
    labEmit(o, "{\"name\":\"dataset\",\"preloaded_keys\":%u,"
            "\"load_virtual_ms\":%.3f,\"memory_mb\":%.1f},", EV_KEYS,
            _ms(gkWorldNow(w) - t0), (double)gkWorldMemory(w) / 1048576);
    gkWorkloadSpec zcard = _rubySpec("zcard", EV_KEYS);
    if ((st = _evRun(w, srv, "ZCARD per key", &zcard, o)) != GK_OK)
        goto done;
    labEmit(o, ",");
    gkWorkloadSpec eval = _rubySpec("eval", 1);
    st = _evRun(w, srv, "one EVAL", &eval, o);
done:
    gkWorldRelease(w);
    return st;
}
