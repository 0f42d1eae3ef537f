/* labs_net.c -- the network's labs. ephemeral-port-clash (seed 000): a
 * server that would not start, because a client's connection to another
 * server on the same machine had taken its port as its local port.
 *
 * Every connection a client opens takes an ephemeral port from
 * net.ipv4.ip_local_port_range (32768 to 60999), as Linux's connect()
 * picks it (ports.c says how, and what is simplified). A server told to
 * listen on a port inside that range can find it held. How likely that is
 * depends on how the kernel walks the range: since Linux 4.6 connect()
 * takes the ports of the range's low end's parity first (the even ones)
 * and turns to the others only when every one of those is in use for the
 * destination. The seed's kernel (3.14) walked every port in turn, so
 * there any port was as likely to go as the next.
 *
 * Run "clash": in each trial (a world of its own, seeded anew, so the
 * kernel's secret and the start of the walk differ), the host opens
 * connections one by one to a server on 6379, up to 20,000, and notes
 * after how many the seed's port 48121 (odd) and its neighbour 48120
 * (even) were taken. For N connections open, the share of trials in which
 * each was taken, against the simple estimate N / 28,232 (the range's
 * size) and the parity-aware one. Then a server is started on 48121: it
 * fails, in exactly the trials that show it taken, with redis-server's
 * message; one started on 7000, below the range, never does.
 *
 * Run "reserved": the same, with 48120 and 48121 in
 * net.ipv4.ip_local_reserved_ports: after 20,000 connections neither is
 * ever taken and the server on 48121 starts. */
#include <stdio.h>
#include <string.h>
#include "world.h"
#include "labs.h"

#define CLASH_TRIALS 8
#define CLASH_RESERVED_TRIALS 2
#define CLASH_PORT 48121
#define CLASH_EVEN 48120
#define CLASH_BELOW 7000

static const int clashN[] = { 100, 1000, 5000, 10000, 14000, 20000 };
#define CLASH_NS ((int)(sizeof(clashN) / sizeof(clashN[0])))
#define CLASH_MAX 20000

typedef struct clashTrial {
    int odd_at, even_at;        /* connections open when 48121 / 48120
                                   was taken (0: never) */
    int opened;
    int bind_failed;            /* the server on 48121 did not start */
    int below_started;          /* the one on 7000 did */
    char err[160];              /* the failure's message */
} clashTrial;

/* One trial in a fresh world: connections until both ports are taken
 * (or CLASH_MAX; all of them if stop_early is 0), then the two servers. */
static int _trial(uint64_t seed, const char *reserved, int stop_early,
                  clashTrial *t) {
    memset(t, 0, sizeof(*t));
    gkWorld *w = labWorld(seed, 0, 0);
    if (!w) return GK_ENOMEM;
    int srv, conn, node;
    int st = reserved ? gkWorldSysctlSet(w, "net.ipv4.ip_local_reserved_ports",
                                         reserved) : GK_OK;
    if (st == GK_OK) st = gkServerAddConfig(w, "port 6379\n", &srv);
    while (st == GK_OK && t->opened < CLASH_MAX) {
        if ((st = gkConnOpen(w, srv, &conn)) != GK_OK) break;
        int port = gkConnLocalPort(w, conn);
        t->opened++;
        if (port == CLASH_PORT) t->odd_at = t->opened;
        if (port == CLASH_EVEN) t->even_at = t->opened;
        if (stop_early && t->odd_at && t->even_at) break;
    }
    if (st == GK_OK) {
        char conf[32];
        snprintf(conf, sizeof(conf), "port %d\n", CLASH_PORT);
        if (gkServerAddConfig(w, conf, &node) != GK_OK) {
            t->bind_failed = 1;
            snprintf(t->err, sizeof(t->err), "%s", gkWorldLastError(w));
        }
        snprintf(conf, sizeof(conf), "port %d\n", CLASH_BELOW);
        t->below_started = gkServerAddConfig(w, conf, &node) == GK_OK;
    }
    gkWorldRelease(w);
    return st;
}

/* The trials' figures: per N, how many trials had each port taken with N
 * connections open. */
static void _emitRun(labOut *o, const char *name, const char *reserved,
                     const clashTrial *t, int trials) {
    int failed = 0, below = 0, opened = 0;
    const char *err = "";
    for (int i = 0; i < trials; i++) {
        failed += t[i].bind_failed;
        below += t[i].below_started;
        if (t[i].opened > opened) opened = t[i].opened;
        if (t[i].bind_failed) err = t[i].err;
    }
    double range = 60999 - 32768 + 1, half = range / 2;
    labEmit(o, "{\"name\":\"%s\",\"reserved\":\"%s\",\"trials\":%d,"
            "\"range\":\"32768-60999\",\"port\":%d,\"even_port\":%d,"
            "\"max_connections\":%d,\"taken\":[", name, reserved, trials,
            CLASH_PORT, CLASH_EVEN, opened);
    for (int k = 0; k < CLASH_NS; k++) {
        int n = clashN[k], odd = 0, even = 0;
        for (int i = 0; i < trials; i++) {
            odd += t[i].odd_at && t[i].odd_at <= n;
            even += t[i].even_at && t[i].even_at <= n;
        }
        double parity_even = n < half ? n / half : 1;
        double parity_odd = n > half ? (n - half) / half : 0;
        labEmit(o, "%s{\"connections\":%d,\"port_taken_trials\":%d,"
                "\"port_taken_fraction\":%.3f,\"even_port_taken_trials\":%d,"
                "\"even_port_taken_fraction\":%.3f,"
                "\"simple_estimate\":%.4f,\"even_first_estimate_odd\":%.4f,"
                "\"even_first_estimate_even\":%.4f}", k ? "," : "", n, odd,
                (double)odd / trials, even, (double)even / trials,
                n / range, parity_odd, parity_even);
    }
    labEmit(o, "],\"server_on_port_failed\":%d,\"error\":\"%s\","
            "\"server_below_range_started\":%d,\"note\":\"%s\"}", failed,
            err, below, reserved[0]
            ? "connect() skips reserved ports: neither is ever taken"
            : "the simple estimate N/28232 assumes any port of the range "
              "is as likely as the next (the seed's kernel); Linux 4.6 and "
              "later take the even ports first, so the odd 48121 goes only "
              "once the 14116 even ones are used, and an even port twice "
              "as fast as the estimate says");
}

/* ephemeral-port-clash: the two runs described at the top. */
int labEphemeralPortClash(labOut *o, uint64_t seed) {
    clashTrial t[CLASH_TRIALS];
    for (int i = 0; i < CLASH_TRIALS; i++) {
        int st = _trial(seed * 1000 + (uint64_t)i, NULL, 1, &t[i]);
        if (st != GK_OK) return st;
    }
    _emitRun(o, "clash", "", t, CLASH_TRIALS);
    for (int i = 0; i < CLASH_RESERVED_TRIALS; i++) {
        int st = _trial(seed * 1000 + (uint64_t)i, "48120-48121", 0, &t[i]);
        if (st != GK_OK) return st;
    }
    labEmit(o, ",");
    _emitRun(o, "reserved", "48120-48121", t, CLASH_RESERVED_TRIALS);
    return GK_OK;
}
