/* test_serve.c -- the server core on the epoll backend, and the hooks a
 * native host has into it: real loopback sockets, a real epoll set, the
 * loop driven by hand as `glasskv server` drives it (epoll_wait, then
 * aeProcessEvents). tests/server runs the whole process against Debian's
 * clients; this file pins the pieces. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "gktest.h"
#include "server.h"
#include "net_epoll.h"

typedef struct host {
    gkMem mem;
    gkRng rng;
    gkLog log;
    netEpoll *net;
    redisServer *s;
    int lfd, port;
    int exits, status;          /* exit_proc calls, and the last status */
} host;

static uint64_t hostClock(void *ctx) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void hostExit(void *ctx, int status) {
    host *h = ctx;
    h->exits++;
    h->status = status;
}

/* A server on the epoll backend with a listener on a free loopback port. */
static void hostOpen(host *h) {
    char err[256];
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    memset(h, 0, sizeof(*h));
    memInit(&h->mem, NULL, NULL);
    rngSeed(&h->rng, 7);
    logInit(&h->log, &h->mem, 256);
    h->net = netEpollCreate(hostClock, h);
    h->s = serverCreate(&h->mem, 0, netEpollBackend(h->net), &h->rng, NULL,
                        1700000000000LL, 0);
    h->s->log = &h->log;
    /* This host has no disk: no save points, so SHUTDOWN saves nothing. */
    h->s->cfg.save_n = 0;
    h->lfd = netListen("127.0.0.1", 0, 16, err, sizeof(err));
    getsockname(h->lfd, (struct sockaddr *)&sa, &len);
    h->port = ntohs(sa.sin_port);
}

static size_t hostClose(host *h) {
    serverRelease(h->s);
    netEpollRelease(h->net);
    close(h->lfd);
    logRelease(&h->log);
    return h->mem.used;
}

/* A client socket connected to the listener, and the server's side of it
 * accepted and handed to the server (NULL client if refused). */
static int connectClient(host *h, client **c) {
    struct sockaddr_in sa = { 0 };
    char ip[64];
    int port, fd = socket(AF_INET, SOCK_STREAM, 0), sfd = -1;
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)h->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    for (int i = 0; i < 1000 && sfd < 0; i++) {
        sfd = netAccept(h->lfd, 0, ip, sizeof(ip), &port);
        if (sfd < 0) usleep(1000);
    }
    CHECK(sfd >= 0);
    *c = acceptCommonHandler(h->s, sfd);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

/* Runs loop iterations until the client has received want (for up to
 * 2 s), or, with want NULL, a few; the bytes received go to out. */
static void pump(host *h, int fd, char *out, size_t cap, const char *want) {
    size_t n = strlen(out);
    for (int i = 0; i < (want ? 200 : 5); i++) {
        netEpollWait(h->net, 10);
        aeProcessEvents(h->s->el);
        ssize_t r = recv(fd, out + n, cap - 1 - n, 0);
        if (r > 0) n += (size_t)r;
        out[n] = '\0';
        if (want && strstr(out, want)) return;
    }
}

/* The log as one string (into buf). */
static const char *logText(host *h, char *buf, size_t cap) {
    uint64_t last;
    size_t n = logRead(&h->log, 0, buf, cap - 1, &last);
    buf[n] = '\0';
    return buf;
}

static void testPingOverEpoll(void) {
    host h;
    client *c;
    char out[256] = "";
    hostOpen(&h);
    int fd = connectClient(&h, &c);
    CHECK(c != NULL);
    CHECK_EQ_INT(h.s->numclients, 1);
    send(fd, "*1\r\n$4\r\nPI", 10, 0);
    pump(&h, fd, out, sizeof(out), NULL);
    CHECK_EQ_STR(out, "");
    send(fd, "NG\r\nPING\r\n", 10, 0);
    pump(&h, fd, out, sizeof(out), "+PONG\r\n+PONG\r\n");
    CHECK_EQ_STR(out, "+PONG\r\n+PONG\r\n");
    close(fd);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testMaxclients(void) {
    host h;
    client *c1, *c2;
    char out[256] = "";
    hostOpen(&h);
    h.s->cfg.maxclients = 1;
    int fd1 = connectClient(&h, &c1);
    int fd2 = connectClient(&h, &c2);
    CHECK(c1 != NULL);
    CHECK(c2 == NULL);
    CHECK_EQ_INT(h.s->numclients, 1);
    CHECK_EQ_INT(h.s->stat_rejected_conn, 1);
    usleep(10000);
    CHECK_EQ_INT(recv(fd2, out, sizeof(out) - 1, 0), 36);
    out[36] = '\0';
    CHECK_EQ_STR(out, "-ERR max number of clients reached\r\n");
    CHECK_EQ_INT(recv(fd2, out, sizeof(out), 0), 0);     /* closed */
    close(fd1);
    close(fd2);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testVanishedClientIsFreed(void) {
    host h;
    client *c;
    char out[64] = "";
    hostOpen(&h);
    int fd = connectClient(&h, &c);
    send(fd, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nonly some", 36, 0);
    pump(&h, fd, out, sizeof(out), NULL);
    CHECK_EQ_INT(h.s->numclients, 1);
    close(fd);
    for (int i = 0; i < 100 && h.s->numclients; i++) {
        netEpollWait(h.net, 10);
        aeProcessEvents(h.s->el);
    }
    CHECK_EQ_INT(h.s->numclients, 0);
    CHECK_EQ_INT(h.s->clients_to_close, 0);
    CHECK_EQ_INT(dictSize(h.s->db[0].dict), 0);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testShutdownThroughTheHost(void) {
    host h;
    client *c;
    char out[256] = "", log[8192];
    hostOpen(&h);
    int fd = connectClient(&h, &c);
    /* No way to exit: Redis's error, and the server goes on. */
    send(fd, "SHUTDOWN\r\nPING\r\n", 16, 0);
    pump(&h, fd, out, sizeof(out), "+PONG\r\n");
    CHECK_EQ_STR(out, "-ERR Errors trying to SHUTDOWN. Check logs.\r\n"
                      "+PONG\r\n");
    /* Inside MULTI it is refused, as 7.0 refuses it. */
    out[0] = '\0';
    send(fd, "MULTI\r\nSHUTDOWN\r\nEXEC\r\n", 23, 0);
    pump(&h, fd, out, sizeof(out), "EXECABORT");
    CHECK_EQ_STR(out, "+OK\r\n-ERR Command not allowed inside a "
                 "transaction\r\n-EXECABORT Transaction discarded because "
                 "of previous errors.\r\n");
    out[0] = '\0';
    send(fd, "SHUTDOWN NOSAVE SAVE\r\nSHUTDOWN ABORT\r\n", 38, 0);
    pump(&h, fd, out, sizeof(out), "progress");
    CHECK_EQ_STR(out, "-ERR syntax error\r\n-ERR No shutdown in "
                      "progress.\r\n");
    /* With the host's exit: no reply, the host is asked for status 0. */
    h.s->exit_proc = hostExit;
    h.s->exit_ctx = &h;
    out[0] = '\0';
    send(fd, "SHUTDOWN\r\n", 10, 0);
    for (int i = 0; i < 100 && !h.exits; i++) pump(&h, fd, out, 2, NULL);
    CHECK_EQ_INT(h.exits, 1);
    CHECK_EQ_INT(h.status, 0);
    CHECK(strstr(logText(&h, log, sizeof(log)), "# User requested "
                 "shutdown...\n") != NULL);
    CHECK(strstr(log, "# Redis is now ready to exit, bye bye...\n") != NULL);
    close(fd);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testShutdownAsap(void) {
    host h;
    hostOpen(&h);
    h.s->exit_proc = hostExit;
    h.s->exit_ctx = &h;
    h.s->shutdown_asap = 1;
    for (int i = 0; i < 100 && !h.exits; i++) {
        netEpollWait(h.net, 10);
        aeProcessEvents(h.s->el);
    }
    CHECK_EQ_INT(h.exits, 1);
    CHECK_EQ_INT(h.s->shutdown_asap, 0);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testHostConfigGet(void) {
    /* Host parameters: save is the engine's own (CONFIG SET save). */
    static const char *const params[] = { "port", "7000", "logfile", "",
                                          NULL };
    host h;
    client *c;
    char out[512] = "";
    hostOpen(&h);
    h.s->host_config = params;
    int fd = connectClient(&h, &c);
    send(fd, "CONFIG GET port\r\nCONFIG GET logf* appendonly\r\n", 46, 0);
    pump(&h, fd, out, sizeof(out), "logfile");
    CHECK_EQ_STR(out, "*2\r\n$4\r\nport\r\n$4\r\n7000\r\n"
                      "*4\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"
                      "$7\r\nlogfile\r\n$0\r\n\r\n");
    close(fd);
    CHECK_EQ_INT(hostClose(&h), 0);
}

static void testBackendCalls(void) {
    host h;
    int sv[2];
    char buf[16];
    hostOpen(&h);
    aeBackend be = netEpollBackend(h.net);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    CHECK_EQ_INT(be.read(be.ctx, sv[0], buf, sizeof(buf)), -1);
    CHECK_EQ_INT(be.write(be.ctx, sv[1], "abc", 3), 3);
    CHECK_EQ_INT(be.read(be.ctx, sv[0], buf, sizeof(buf)), 3);
    close(sv[1]);
    CHECK_EQ_INT(be.read(be.ctx, sv[0], buf, sizeof(buf)), 0);
    CHECK_EQ_INT(be.write(be.ctx, sv[0], "abc", 3), -2);
    be.close(be.ctx, sv[0]);
    char err[256];
    CHECK_EQ_INT(netListen("127.0.0.1", h.port, 16, err, sizeof(err)), -1);
    CHECK_EQ_INT(errno, EADDRINUSE);
    CHECK_EQ_STR(err, "bind: Address already in use");
    char ip[64];
    int port;
    CHECK_EQ_INT(netAccept(h.lfd, 0, ip, sizeof(ip), &port), -1);
    CHECK_EQ_INT(hostClose(&h), 0);
}

/* The simulated machine is a host too: SHUTDOWN ends its process, with
 * no reply and the connection closed, and PING sent behind it is never
 * read. */
static void testWorldShutsDown(void) {
    gkConfig cfg;
    gkWorld *w;
    int node, conn;
    char out[128];
    gkConfigInit(&cfg);
    CHECK_EQ_INT(gkWorldCreate(&w, &cfg, NULL, NULL), GK_OK);
    CHECK_EQ_INT(gkServerAdd(w, &node), GK_OK);
    CHECK_EQ_INT(gkConnOpen(w, node, &conn), GK_OK);
    gkConnSend(w, conn, "SHUTDOWN\r\nPING\r\n", 16);
    gkWorldRunUntilIdle(w);
    size_t n = gkConnRecv(w, conn, out, sizeof(out) - 1);
    out[n] = '\0';
    CHECK_EQ_STR(out, "");
    CHECK_EQ_INT(gkConnIsOpen(w, conn), 0);
    CHECK_EQ_INT(gkServerIsUp(w, node), 0);
    gkWorldRelease(w);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    RUN("the epoll backend carries a command split across two reads and "
        "a pipeline in one", testPingOverEpoll);
    RUN("past maxclients a connection gets Redis's error, is closed and "
        "counts as rejected", testMaxclients);
    RUN("a client whose peer vanished in the middle of a command is freed",
        testVanishedClientIsFreed);
    RUN("SHUTDOWN asks the host to exit with status 0 after preparing as "
        "Redis 7.0 does, and fails without a host to exit through",
        testShutdownThroughTheHost);
    RUN("a signal the host reports (shutdown_asap) shuts down at the next "
        "serverCron", testShutdownAsap);
    RUN("CONFIG GET lists the host's own parameters after the engine's",
        testHostConfigGet);
    RUN("the backend's read, write and listen report as ae.h and Redis "
        "say", testBackendCalls);
    RUN("in the simulated world SHUTDOWN ends the process without a reply",
        testWorldShutsDown);
    return gkTestReport();
}
