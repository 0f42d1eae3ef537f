/* The machine's TCP ports: every connection in a world takes a local port
 * from net.ipv4.ip_local_port_range as Linux's connect() picks it
 * (engine/src/ports.c), skipping net.ipv4.ip_local_reserved_ports and
 * listeners' ports, and gives it back once fully closed; a server told to
 * listen on a port a client's connection holds fails as redis-server
 * does (seed 000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"
#include "labjson.h"

#define RANGE "net.ipv4.ip_local_port_range"
#define RESERVED "net.ipv4.ip_local_reserved_ports"
#define SEC 1000000000ULL

static gkWorld *world(uint64_t seed, int *srv) {
    gkConfig cfg = gktConfig(seed);
    gkWorld *w;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    gkServerAdd(w, srv);
    return w;
}

/* Opens connections to node until one fails; their local ports go to
 * ports (at most max); returns how many opened. */
static int openAll(gkWorld *w, int node, int *ports, int *conns, int max) {
    int n = 0, c;
    while (n < max && gkConnOpen(w, node, &c) == GK_OK) {
        if (conns) conns[n] = c;
        ports[n++] = gkConnLocalPort(w, c);
    }
    return n;
}

static int logCount(gkWorld *w, int node, const char *needle) {
    static char buf[1 << 18];
    uint64_t last;
    size_t len = gkServerLogRead(w, node, 0, buf, sizeof(buf) - 1, &last);
    buf[len] = '\0';
    int count = 0;
    for (char *p = buf; (p = strstr(p, needle)) != NULL; p++) count++;
    return count;
}

static void testFromTheRange(void) {
    int srv, ports[64];
    gkWorld *w = world(1, &srv);
    char buf[64];
    CHECK_EQ_INT(gkWorldSysctlGet(w, RANGE, buf, sizeof(buf)), GK_OK);
    CHECK_EQ_STR(buf, "32768\t60999");
    int c, even = 0;
    for (int i = 0; i < 500; i++) {
        CHECK_EQ_INT(gkConnOpen(w, srv, &c), GK_OK);
        int p = gkConnLocalPort(w, c);
        CHECK(p >= 32768 && p <= 60999);
        even += p % 2 == 0;
    }
    /* the low end's parity first: 14,116 even ports before any odd one */
    CHECK_EQ_INT(even, 500);
    /* ten ports: the five even ones, then the five odd ones, then none */
    CHECK_EQ_INT(gkWorldSysctlSet(w, "ip_local_port_range", "40000 40009"),
                 GK_OK);
    CHECK_EQ_INT(openAll(w, srv, ports, NULL, 64), 10);
    int seen[10] = { 0 };
    for (int i = 0; i < 10; i++) {
        CHECK(ports[i] >= 40000 && ports[i] <= 40009);
        CHECK_EQ_INT(ports[i] % 2, i < 5 ? 0 : 1);
        if (ports[i] >= 40000 && ports[i] <= 40009) seen[ports[i] - 40000]++;
    }
    for (int i = 0; i < 10; i++) CHECK_EQ_INT(seen[i], 1);
    CHECK_EQ_STR(gkWorldLastError(w), "Cannot assign requested address");
    /* a second server is another destination: the same ports again */
    int other;
    CHECK_EQ_INT(gkServerAddConfig(w, "port 6380\n", &other), GK_OK);
    CHECK_EQ_INT(openAll(w, other, ports, NULL, 64), 10);
    gkWorldRelease(w);
}

static void testSysctlValues(void) {
    int srv;
    gkWorld *w = world(1, &srv);
    char buf[128];
    CHECK_EQ_INT(gkWorldSysctlGet(w, RESERVED, buf, sizeof(buf)), GK_OK);
    CHECK_EQ_STR(buf, "");
    CHECK_EQ_INT(gkWorldSysctlSet(w, RESERVED, "9148,8080, 30000-30100\n"),
                 GK_OK);
    gkWorldSysctlGet(w, RESERVED, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "8080,9148,30000-30100");
    static const char *badReserved[] = { "70000", "5-3", "8080,", "a",
                                         "1;2", "80-" };
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(gkWorldSysctlSet(w, RESERVED, badReserved[i]),
                     GK_EINVAL);
        CHECK_EQ_STR(gkWorldLastError(w), "sysctl: setting key "
                     "\"net.ipv4.ip_local_reserved_ports\": Invalid "
                     "argument");
    }
    gkWorldSysctlGet(w, RESERVED, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "8080,9148,30000-30100");
    CHECK_EQ_INT(gkWorldSysctlSet(w, RESERVED, ""), GK_OK);
    gkWorldSysctlGet(w, RESERVED, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "");
    static const char *badRange[] = { "60999 32768", "500 600", "0 100",
                                      "32768 65536", "32768", "1 2 3",
                                      "x y" };
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(gkWorldSysctlSet(w, RANGE, badRange[i]), GK_EINVAL);
        CHECK_EQ_STR(gkWorldLastError(w), "sysctl: setting key "
                     "\"net.ipv4.ip_local_port_range\": Invalid argument");
    }
    gkWorldSysctlGet(w, RANGE, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "32768\t60999");
    CHECK_EQ_INT(gkWorldSysctlSet(w, RANGE, "1024 1024"), GK_OK);
    CHECK_EQ_INT(gkWorldSysctlSet(w, "net.ipv4.tcp_fin_timeout", "30"),
                 GK_ENOTFOUND);
    gkWorldRelease(w);
}

static void testReservedSkipped(void) {
    int srv, ports[64];
    gkWorld *w = world(2, &srv);
    gkWorldSysctlSet(w, RANGE, "40000 40009");
    gkWorldSysctlSet(w, RESERVED, "40000-40004,40006");
    int n = openAll(w, srv, ports, NULL, 64);
    CHECK_EQ_INT(n, 4);
    int sum = 0;
    for (int i = 0; i < n; i++) {
        CHECK(ports[i] == 40005 || ports[i] >= 40007);
        sum += ports[i];
    }
    CHECK_EQ_INT(sum, 40005 + 40007 + 40008 + 40009);
    gkWorldRelease(w);
}

static void testListenerSkipped(void) {
    int srv, other, ports[64];
    gkWorld *w = world(3, &srv);
    gkWorldSysctlSet(w, RANGE, "40000 40003");
    CHECK_EQ_INT(gkServerAddConfig(w, "port 40002\n", &other), GK_OK);
    int n = openAll(w, srv, ports, NULL, 64);
    CHECK_EQ_INT(n, 3);
    for (int i = 0; i < n; i++) CHECK(ports[i] != 40002);
    /* the listener moves away: its old port is free for connections */
    int c, oc;
    char out[64];
    gkWorldSysctlSet(w, RANGE, "40000 40009");
    gkConnOpen(w, other, &oc);
    gkWorldSysctlSet(w, RANGE, "40000 40003");
    gktExchange(w, oc, "CONFIG SET port 7000\r\n", 22, out, sizeof(out));
    CHECK_EQ_STR(out, "+OK\r\n");
    CHECK_EQ_INT(gkConnOpen(w, srv, &c), GK_OK);
    CHECK_EQ_INT(gkConnLocalPort(w, c), 40002);
    gkWorldRelease(w);
}

static void testFreedOnClose(void) {
    int srv, ports[8], conns[8], c;
    gkWorld *w = world(4, &srv);
    gkWorldSysctlSet(w, RANGE, "40000 40001");
    CHECK_EQ_INT(openAll(w, srv, ports, conns, 8), 2);
    /* the host's end closed, the server's not yet: the port is held */
    gkConnClose(w, conns[0]);
    CHECK_EQ_INT(gkConnOpen(w, srv, &c), GK_ERR);
    /* the server reads the end of the stream and closes its end */
    gkWorldRunUntil(w, gkWorldNow(w) + SEC);
    CHECK_EQ_INT(gkConnOpen(w, srv, &c), GK_OK);
    CHECK_EQ_INT(gkConnLocalPort(w, c), ports[0]);
    gkWorldRelease(w);
}

static void testClash(void) {
    int srv, b, c, node;
    gkWorld *w = world(5, &srv);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 6380\n", &b), GK_OK);
    gkWorldSysctlSet(w, RANGE, "48121 48121");
    CHECK_EQ_INT(gkConnOpen(w, srv, &c), GK_OK);
    CHECK_EQ_INT(gkConnLocalPort(w, c), 48121);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 48121\n", &node), GK_EINVAL);
    CHECK_EQ_STR(gkWorldLastError(w), "Could not create server TCP "
                 "listening socket *:48121: bind: Address already in use");
    int bc;
    char out[512];
    gkConnOpen(w, b, &bc);
    CHECK_EQ_INT(gkConnLocalPort(w, bc), 48121);  /* another destination */
    gktExchange(w, bc, "CONFIG SET port 48121\r\n", 23, out, sizeof(out));
    CHECK_EQ_STR(out, "-ERR CONFIG SET failed (possibly related to argument "
                 "'port') - Unable to listen on this port. Check server "
                 "logs.\r\n");
    CHECK_EQ_INT(logCount(w, b, "# Warning: Could not create server TCP "
                          "listening socket *:48121: bind: Address already "
                          "in use"), 1);
    gktExchange(w, bc, "CONFIG GET port\r\n", 17, out, sizeof(out));
    CHECK_EQ_STR(out, "*2\r\n$4\r\nport\r\n$4\r\n6380\r\n");
    /* both connections gone: the port binds */
    gkConnClose(w, c);
    gkConnClose(w, bc);
    gkWorldRunUntil(w, gkWorldNow(w) + SEC);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 48121\n", &node), GK_OK);
    gkWorldRelease(w);
}

/* Redis's own connections set SO_REUSEADDR, as its listeners do: Linux
 * lets a listener bind a port only such sockets hold. */
static void testReplicaLinkDoesNotClash(void) {
    int srv, r, node, rc;
    char out[512];
    gkWorld *w = world(6, &srv);
    gkWorldSysctlSet(w, RANGE, "48121 48121");
    CHECK_EQ_INT(gkServerAddConfig(w, "port 6380\n", &r), GK_OK);
    gkConnOpen(w, r, &rc);          /* the host's: takes 48121 */
    CHECK_EQ_INT(gkConnLocalPort(w, rc), 48121);
    gktExchange(w, rc, "REPLICAOF 127.0.0.1 6379\r\n", 26, out, sizeof(out));
    CHECK_EQ_STR(out, "+OK\r\n");
    gkWorldRunUntil(w, gkWorldNow(w) + 8 * SEC);
    /* the replica's link to 6379 shares 48121 (another destination)
     * but the host's connection to 6380 still blocks the bind */
    CHECK_EQ_INT(gkServerAddConfig(w, "port 48121\n", &node), GK_EINVAL);
    gkConnClose(w, rc);
    gkWorldRunUntil(w, gkWorldNow(w) + SEC);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 48121\n", &node), GK_OK);
    int mc;
    /* 48121, the range's only port, is a listener's now */
    CHECK_EQ_INT(gkConnOpen(w, srv, &mc), GK_ERR);
    gkWorldSysctlSet(w, RANGE, "32768 60999");
    CHECK_EQ_INT(gkConnOpen(w, srv, &mc), GK_OK);
    gktExchange(w, mc, "INFO replication\r\n", 18, out, sizeof(out));
    CHECK(strstr(out, "connected_slaves:1") != NULL);
    gkWorldRelease(w);
}

/* The server sees a client at 127.0.0.1 and its connection's local port
 * (CLIENT LIST's addr, the slow log's client), itself at its own port
 * (laddr); a replica's link shows the master's port from its side. */
static const char *ask(gkWorld *w, int conn, const char *line, char *out) {
    return gktExchange(w, conn, line, strlen(line), out, 2048);
}

static void testAddressesSeen(void) {
    int srv, r, c, rc;
    char out[2048], want[128];
    gkWorld *w = world(9, &srv);
    gkConnOpen(w, srv, &c);
    int lport = gkConnLocalPort(w, c);
    CHECK(lport >= 32768 && lport <= 60999);
    ask(w, c, "CLIENT INFO\r\n", out);
    snprintf(want, sizeof(want), " addr=127.0.0.1:%d laddr=127.0.0.1:6379 ",
             lport);
    CHECK(strstr(out, want) != NULL);
    ask(w, c, "CONFIG SET slowlog-log-slower-than 0\r\n", out);
    ask(w, c, "SLOWLOG GET 1\r\n", out);
    snprintf(want, sizeof(want), "$15\r\n127.0.0.1:%d\r\n", lport);
    CHECK(strstr(out, want) != NULL);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 6380\n", &r), GK_OK);
    gkConnOpen(w, r, &rc);
    ask(w, rc, "REPLICAOF 127.0.0.1 6379\r\n", out);
    gkWorldRunUntil(w, gkWorldNow(w) + 8 * SEC);
    ask(w, rc, "CLIENT LIST TYPE master\r\n", out);
    CHECK(strstr(out, " addr=127.0.0.1:6379 laddr=127.0.0.1:") != NULL);
    gkWorldRelease(w);
}

static void testBelowRangeNeverHit(void) {
    int srv, node;
    static int ports[20000];
    gkWorld *w = world(7, &srv);
    int n = openAll(w, srv, ports, NULL, 20000);
    CHECK_EQ_INT(n, 20000);
    int low = 0;
    for (int i = 0; i < n; i++) low += ports[i] < 32768;
    CHECK_EQ_INT(low, 0);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 7000\n", &node), GK_OK);
    CHECK_EQ_INT(gkServerAddConfig(w, "port 32767\n", &node), GK_OK);
    gkWorldRelease(w);
}

static void testDeterministic(void) {
    int s1, s2, s3, a[50], b[50], c[50];
    gkWorld *w1 = world(42, &s1), *w2 = world(42, &s2), *w3 = world(43, &s3);
    openAll(w1, s1, a, NULL, 50);
    openAll(w2, s2, b, NULL, 50);
    openAll(w3, s3, c, NULL, 50);
    CHECK(memcmp(a, b, sizeof(a)) == 0);
    CHECK(memcmp(a, c, sizeof(a)) != 0);
    /* ports follow the destination's start: consecutive picks are close */
    int near = 0;
    for (int i = 1; i < 50; i++)
        near += a[i] > a[i - 1] && a[i] - a[i - 1] < 40;
    CHECK(near >= 40);
    gkWorldRelease(w1);
    gkWorldRelease(w2);
    gkWorldRelease(w3);
}

int main(void) {
    RUN("connections take even ports of ip_local_port_range first, then "
        "the odd ones, then fail with EADDRNOTAVAIL", testFromTheRange);
    RUN("the sysctls take and show values as Linux does, and refuse bad "
        "ones with sysctl's message", testSysctlValues);
    RUN("ports in ip_local_reserved_ports are never taken",
        testReservedSkipped);
    RUN("a listener's port is never handed to a connection",
        testListenerSkipped);
    RUN("a port is given back once both ends of its connection are closed",
        testFreedOnClose);
    RUN("a server told a port a client's connection holds fails as "
        "redis-server does, at start and at CONFIG SET port", testClash);
    RUN("a replica's own link (SO_REUSEADDR) does not stop a listener",
        testReplicaLinkDoesNotClash);
    RUN("a server sees its clients at their local ports, and a replica its "
        "master at its port", testAddressesSeen);
    RUN("a server below the range is never hit by 20,000 connections",
        testBelowRangeNeverHit);
    RUN("one seed gives the same ports, another seed others",
        testDeterministic);
    return gkTestReport();
}
