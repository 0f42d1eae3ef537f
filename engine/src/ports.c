/* ports.c -- the machine's TCP ports: which local port an outgoing
 * connection takes, and which ports a listener can no longer bind.
 *
 * Every node of the world is on one machine, 127.0.0.1. A connection from
 * a node to another, from a client program, or from the host is a
 * connect() on that machine without a bind() first, so the kernel picks
 * its local port -- an ephemeral port -- from net.ipv4.ip_local_port_range
 * (32768 to 60999 by default). Seed 000 tells what follows: a server that
 * starts on a port inside that range can find it taken by a client's
 * connection, and fail to bind it.
 *
 * The choice, as Linux 6.x makes it (__inet_hash_connect in
 * net/ipv4/inet_hashtables.c):
 *
 *   1. A 64-bit keyed hash of (source address, destination address,
 *      destination port) with a secret drawn at boot. Its low 16 bits pick
 *      a slot of a table of 65,536 counters filled with random numbers at
 *      the first connect; the start is (that counter + the hash's high 32
 *      bits) modulo the range's size, rounded down to an even offset. So
 *      every destination has its own start, unguessable from outside.
 *   2. From the start, every second port, wrapping at the end of the
 *      range: the ports of the range's low end's parity first (the even
 *      ones by default). Only when all of those are unusable, the others.
 *      (bind() to port 0 does the opposite, odd first, so that the two
 *      kinds of users get in each other's way less.)
 *   3. A port is skipped if it is in ip_local_reserved_ports, or if a
 *      socket bound it explicitly (a listener: its bind bucket allows no
 *      sharing), or if a connection from it to the same destination
 *      exists (the 4-tuple would not be unique). A port used only by
 *      connections to other destinations is shared: two connections to
 *      6379 and 6380 may both have local port 40000.
 *   4. After a pick, the slot's counter moves on by the ports tried plus
 *      two, or by a random even step below 16 if that is more, so the
 *      next connection to the same destination starts past this one and
 *      scans little.
 *
 * Faithful here: the range and the reserved ports as the sysctls take
 * them, the even-first order, the per-destination start and the table's
 * counters, the skipping of listeners' and reserved ports, sharing a port
 * between destinations, and EADDRNOTAVAIL once no port is left. Simplified:
 * the hash is SipHash-1-2 keyed from the world's seed (the kernel's is
 * SipHash-2-4 keyed at boot), the table's random first contents and the
 * random steps come from a PRNG of the ports' own, split from the seed,
 * so that opening a connection draws nothing the servers' hash seeds draw
 * from; the table is kept as the slots touched so far, each one's first
 * value computed from its index. No TIME_WAIT: a port is free again as soon
 * as both ends of its connection are closed, where Linux keeps the side
 * that closed first in TIME_WAIT for 60 seconds (still holding the port
 * against bind(), though connect() to loopback may reuse it). A refused
 * connect() gives its port back at once, as the kernel does on the RST.
 *
 * The clash: a Redis listener sets SO_REUSEADDR, and Linux lets it bind a
 * port that connected sockets hold only if every one of them set
 * SO_REUSEADDR too (inet_bind_conflict). Redis's own outgoing connections
 * (a replica's to its master: anetTcpGenericConnect) set it; redis-cli,
 * redis-benchmark (hiredis 1.x sets it only when binding a source address)
 * and most client libraries do not. So a port held by a client program's
 * or the host's connection stops a node from listening there, one held by
 * a replica's link does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "world.h"
#include "siphash.h"

#define PORTS_TABLE_SLOTS 65536u

static void _key(gkRng *r, uint8_t *k) {
    uint64_t a = rngNext(r), b = rngNext(r);
    memcpy(k, &a, 8);
    memcpy(k + 8, &b, 8);
}

/* The defaults (32768 60999, nothing reserved), and the secrets drawn
 * from seed. */
void portsInit(gkPorts *p, uint64_t seed) {
    memset(p, 0, sizeof(*p));
    p->lo = PORTS_RANGE_LO;
    p->hi = PORTS_RANGE_HI;
    rngSeed(&p->rng, seed ^ 0x706f727473000000ULL);     /* "ports" */
    _key(&p->rng, p->secret);
    _key(&p->rng, p->table_key);
}

void portsFree(gkPorts *p, gkMem *m) {
    memFree(m, p->hold);
    memFree(m, p->touched);
    p->hold = NULL;
    p->touched = NULL;
    p->ntouched = p->captouched = 0;
}

static int _isReserved(const gkPorts *p, int port) {
    return p->reserved[port >> 3] & (1u << (port & 7));
}

/* The keyed hash of the destination, as secure_ipv4_port_ephemeral's:
 * its low bits choose the table's slot, its high 32 bits shift the
 * start. */
static uint64_t _destHash(const gkPorts *p, uint32_t saddr, uint32_t daddr,
                          int dport) {
    uint8_t in[12];
    uint32_t v[3] = { saddr, daddr, (uint32_t)dport };
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 4; b++) in[i * 4 + b] = (uint8_t)(v[i] >> (8 * b));
    return siphash(in, sizeof(in), p->secret);
}

/* The slot's entry among those touched, or -1. */
static int _touched(const gkPorts *p, uint32_t index) {
    for (int i = 0; i < p->ntouched; i++)
        if (p->touched[i].index == index) return i;
    return -1;
}

/* The counter in slot index: its random first value plus what picks
 * through it have added. */
static uint32_t _perturb(const gkPorts *p, uint32_t index) {
    uint8_t in[4] = { (uint8_t)index, (uint8_t)(index >> 8),
                      (uint8_t)(index >> 16), (uint8_t)(index >> 24) };
    uint32_t v = (uint32_t)siphash(in, sizeof(in), p->table_key);
    int t = _touched(p, index);
    return t < 0 ? v : v + p->touched[t].added;
}

static void _perturbAdd(gkPorts *p, gkMem *m, uint32_t index,
                        uint32_t add) {
    int t = _touched(p, index);
    if (t < 0) {
        if (p->ntouched == p->captouched) {
            p->captouched = p->captouched ? p->captouched * 2 : 8;
            p->touched = memRealloc(m, p->touched, sizeof(portsTouched) *
                                    (size_t)p->captouched);
        }
        t = p->ntouched++;
        p->touched[t].index = index;
        p->touched[t].added = 0;
    }
    p->touched[t].added += add;
}

/* Whether a connection to daddr:dport may take port: no live
 * connection from it goes to the same destination. */
static int _tupleFree(gkWorld *w, int port, uint32_t daddr, int dport) {
    const portsHold *h = &w->ports.hold[port];
    if (h->first < 0) return 1;
    if (h->count == 1) return h->daddr != daddr || h->dport != dport;
    for (int id = h->first; id >= 0;) {
        gkConn *o = w->conns[id];
        if (o->daddr == daddr && o->dport == dport) return 0;
        id = o->lport_next;
    }
    return 1;
}

static void _hold(gkWorld *w, gkConn *c, int port) {
    portsHold *h = &w->ports.hold[port];
    c->lport = port;
    c->lport_next = h->first;
    h->first = c->id;
    h->daddr = c->daddr;
    h->dport = (uint16_t)c->dport;
    h->count++;
}

/* The ports listeners hold now, into lp (room for GK_MAX_NODES); their
 * count. */
static int _listening(gkWorld *w, int *lp) {
    int n = 0;
    for (int i = 0; i < w->nnodes; i++) {
        int port = worldNodePort(w, i);
        if (port > 0) lp[n++] = port;
    }
    return n;
}

/* Picks the local port of c, a new connection from 127.0.0.1 to
 * daddr:dport, as connect() does (see the top of this file), and binds c
 * to it; reuseaddr says whether its socket set SO_REUSEADDR. GK_OK, or
 * GK_ERR when every port of the range is unusable (connect's
 * EADDRNOTAVAIL), with c left unbound. */
int portsConnect(gkWorld *w, gkConn *c, uint32_t daddr, int dport,
                 int reuseaddr) {
    gkPorts *p = &w->ports;
    if (!p->hold) {
        p->hold = memCalloc(&w->mem, sizeof(portsHold) * PORTS_MAX);
        for (int i = 0; i < PORTS_MAX; i++) p->hold[i].first = -1;
    }
    c->daddr = daddr;
    c->dport = dport;
    c->reuseaddr = reuseaddr;
    int lp[GK_MAX_NODES], nl = _listening(w, lp);
    uint32_t high = (uint32_t)p->hi + 1, remaining = high - (uint32_t)p->lo;
    if (remaining > 1) remaining &= ~1u;
    uint64_t h = _destHash(p, PORTS_LOOPBACK, daddr, dport);
    uint32_t index = (uint32_t)h & (PORTS_TABLE_SLOTS - 1);
    uint32_t offset = _perturb(p, index) + (uint32_t)(h >> 32);
    offset = (offset % remaining) & ~1u;
    for (;;) {
        uint32_t port = (uint32_t)p->lo + offset, i;
        for (i = 0; i < remaining; i += 2, port += 2) {
            if (port >= high) port -= remaining;
            if (_isReserved(p, (int)port)) continue;
            int listened = 0;
            for (int k = 0; k < nl && !listened; k++)
                listened = lp[k] == (int)port;
            if (listened || !_tupleFree(w, (int)port, daddr, dport))
                continue;
            uint32_t step = 2 * (uint32_t)rngBelow(&p->rng, 8);
            _perturbAdd(p, &w->mem, index, (i > step ? i : step) + 2);
            _hold(w, c, (int)port);
            return GK_OK;
        }
        offset++;
        if (!(offset & 1) || remaining <= 1) break;
    }
    return GK_ERR;
}

/* Gives c's local port back (its connection is fully closed). */
void portsRelease(gkWorld *w, gkConn *c) {
    if (!c->lport) return;
    portsHold *h = &w->ports.hold[c->lport];
    int32_t *link = &h->first;
    while (*link >= 0 && *link != c->id) link = &w->conns[*link]->lport_next;
    if (*link == c->id) {
        *link = c->lport_next;
        h->count--;
    }
    if (h->first >= 0) {
        h->daddr = w->conns[h->first]->daddr;
        h->dport = (uint16_t)w->conns[h->first]->dport;
    }
    c->lport = 0;
    c->lport_next = -1;
}

/* Whether a listener with SO_REUSEADDR (a Redis node's) would fail to
 * bind port because live connections hold it: 1 if one of them did not
 * set SO_REUSEADDR, else 0. */
int portsBindConflict(gkWorld *w, int port) {
    if (port <= 0 || port >= PORTS_MAX || !w->ports.hold) return 0;
    for (int id = w->ports.hold[port].first; id >= 0;) {
        gkConn *c = w->conns[id];
        if (!c->reuseaddr) return 1;
        id = c->lport_next;
    }
    return 0;
}

/* Reads a decimal number of at most 10 digits at *s, moving past it. */
static int _number(const char **s, long *out) {
    const char *q = *s;
    long v = 0;
    int digits = 0;
    while (isdigit((unsigned char)*q) && digits < 10) {
        v = v * 10 + (*q++ - '0');
        digits++;
    }
    if (!digits || isdigit((unsigned char)*q)) return 0;
    *s = q;
    *out = v;
    return 1;
}

static const char *_skipSpace(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    return s;
}

/* ip_local_port_range: "low high", as the sysctl takes it: both between
 * 1 and 65535, high not below low, low not below
 * ip_unprivileged_port_start (1024). GK_OK, or GK_EINVAL (the setting is
 * unchanged), as the kernel refuses with EINVAL. */
int portsSetRange(gkPorts *p, const char *value) {
    const char *s = _skipSpace(value);
    long lo, hi;
    if (!_number(&s, &lo)) return GK_EINVAL;
    s = _skipSpace(s);
    if (!_number(&s, &hi) || *_skipSpace(s)) return GK_EINVAL;
    if (lo < 1 || hi > 65535 || hi < lo || lo < PORTS_UNPRIVILEGED)
        return GK_EINVAL;
    p->lo = (int)lo;
    p->hi = (int)hi;
    return GK_OK;
}

/* ip_local_reserved_ports: a comma-separated list of ports and ranges
 * ("8080,30000-30100"; "" for none), which replaces the set. GK_EINVAL
 * (the set unchanged) for anything else, a port past 65535 or a range
 * that ends before it starts. */
int portsSetReserved(gkPorts *p, const char *value) {
    uint8_t set[PORTS_MAX / 8];
    memset(set, 0, sizeof(set));
    const char *s = _skipSpace(value);
    while (*s) {
        long a, b;
        if (!_number(&s, &a)) return GK_EINVAL;
        b = a;
        if (*s == '-') {
            s++;
            if (!_number(&s, &b)) return GK_EINVAL;
        }
        if (a >= PORTS_MAX || b >= PORTS_MAX || b < a) return GK_EINVAL;
        for (long port = a; port <= b; port++)
            set[port >> 3] |= (uint8_t)(1u << (port & 7));
        s = _skipSpace(s);
        if (*s == ',') {
            s = _skipSpace(s + 1);
            if (!*s) return GK_EINVAL;
        } else if (*s) {
            return GK_EINVAL;
        }
    }
    memcpy(p->reserved, set, sizeof(set));
    return GK_OK;
}

/* The reserved set as the sysctl prints it: runs of ports as "a-b",
 * single ports as "a", comma-separated; "" if none. Cut at cap - 1. */
void portsFormatReserved(const gkPorts *p, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int port = 0; port < PORTS_MAX; port++) {
        if (!_isReserved(p, port)) continue;
        int end = port;
        while (end + 1 < PORTS_MAX && _isReserved(p, end + 1)) end++;
        int n = end > port
            ? snprintf(buf + len, len < cap ? cap - len : 0, "%s%d-%d",
                       len ? "," : "", port, end)
            : snprintf(buf + len, len < cap ? cap - len : 0, "%s%d",
                       len ? "," : "", port);
        if (n > 0) len += (size_t)n;
        if (len >= cap) {
            buf[cap - 1] = '\0';
            return;
        }
        port = end;
    }
}
