/* net_epoll.c -- see net_epoll.h. */
#define _GNU_SOURCE                 /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "net_epoll.h"

/* Descriptors one epoll_wait(2) reports at most. The interest list is
 * level-triggered, so a descriptor left out is reported again by the
 * next wait: a bigger batch only saves system calls. */
#define NET_BATCH 1024

struct netEpoll {
    int epfd;
    struct epoll_event ready[NET_BATCH];
    int nready;                 /* found by the last wait, */
    int waited;                 /* and not yet handed to poll */
    netEpollClock *clock;
    void *clock_ctx;
};

/* A backend with an empty interest list, telling time with clock. NULL,
 * with errno set, if epoll_create1(2) or memory fails. */
netEpoll *netEpollCreate(netEpollClock *clock, void *clock_ctx) {
    netEpoll *n = calloc(1, sizeof(*n));
    if (!n) return NULL;
    n->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (n->epfd < 0) {
        free(n);
        return NULL;
    }
    n->clock = clock;
    n->clock_ctx = clock_ctx;
    return n;
}

/* Closes the epoll descriptor and frees the backend. The sockets are the
 * loop's and stay open. */
void netEpollRelease(netEpoll *n) {
    if (!n) return;
    close(n->epfd);
    free(n);
}

/* Blocks until a registered descriptor is ready or timeout_ms passes (-1:
 * no limit, 0: just look). What it finds waits for the loop's next poll.
 * Returns the number found; 0 also when a signal cut the wait short. */
int netEpollWait(netEpoll *n, int timeout_ms) {
    int got = epoll_wait(n->epfd, n->ready, NET_BATCH, timeout_ms);
    n->nready = got < 0 ? 0 : got;
    n->waited = 1;
    return n->nready;
}

/* The loop's poll: the readiness the host's wait found, or, if the host
 * did not wait since the last poll, what is ready now. An error or a
 * hang-up makes a descriptor both readable and writable, so that its
 * handler runs and meets the error in its read or write, as in Redis. */
static int _poll(void *ctx, aeEventLoop *el, aeFiredEvent *fired, int max) {
    netEpoll *n = ctx;
    if (!n->waited) netEpollWait(n, 0);
    n->waited = 0;
    int count = 0;
    for (int i = 0; i < n->nready && count < max; i++) {
        uint32_t ev = n->ready[i].events;
        int mask = 0;
        if (ev & EPOLLIN) mask |= AE_READABLE;
        if (ev & EPOLLOUT) mask |= AE_WRITABLE;
        if (ev & (EPOLLERR | EPOLLHUP)) mask |= AE_READABLE | AE_WRITABLE;
        fired[count].fd = n->ready[i].data.fd;
        fired[count].mask = mask;
        count++;
    }
    n->nready = 0;
    return count;
}

/* The loop's interest in fd changed: add, modify or remove it in the
 * epoll set. A failure (ENOMEM) leaves the descriptor unwatched; its
 * client then idles until it is closed. */
static void _watch(void *ctx, int fd, int oldmask, int newmask) {
    netEpoll *n = ctx;
    struct epoll_event ee = { 0 };
    ee.data.fd = fd;
    if (newmask & AE_READABLE) ee.events |= EPOLLIN;
    if (newmask & AE_WRITABLE) ee.events |= EPOLLOUT;
    int op = oldmask == AE_NONE ? EPOLL_CTL_ADD
             : newmask == AE_NONE ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    epoll_ctl(n->epfd, op, fd, &ee);
}

static uint64_t _now(void *ctx) {
    netEpoll *n = ctx;
    return n->clock(n->clock_ctx);
}

/* read(2) on a non-blocking socket, in ae.h's terms: a reset connection
 * reads as the end of the stream, which frees its client. */
static long _read(void *ctx, int fd, void *buf, size_t len) {
    ssize_t r;
    do r = read(fd, buf, len);
    while (r < 0 && errno == EINTR);
    if (r >= 0) return (long)r;
    return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : 0;
}

/* send(2) without SIGPIPE: -1 when the socket buffer is full, -2 when the
 * peer is gone. */
static long _write(void *ctx, int fd, const void *buf, size_t len) {
    ssize_t r;
    do r = send(fd, buf, len, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    if (r >= 0) return (long)r;
    return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
}

/* close(2). The loop has already removed the descriptor's events, which
 * took it out of the epoll set. */
static void _close(void *ctx, int fd) {
    (void)ctx;
    close(fd);
}

/* The process sleeps for ns, signals or not (DEBUG SLEEP). */
static void _stall(void *ctx, uint64_t ns) {
    (void)ctx;
    struct timespec ts = { (time_t)(ns / 1000000000ULL),
                           (long)(ns % 1000000000ULL) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Whether fd's peer is on this machine: a loopback address or a unix
 * socket (Redis's connIsLocal). */
static int _isLocal(void *ctx, int fd) {
    (void)ctx;
    struct sockaddr_storage sa;
    socklen_t len = sizeof(sa);
    if (getpeername(fd, (struct sockaddr *)&sa, &len) != 0) return 0;
    if (sa.ss_family == AF_UNIX) return 1;
    if (sa.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&sa;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return 0;
}

/* A non-blocking connect(2) to host:port, trying each address the name
 * resolves to until one starts (Redis's anetTcpNonBlockConnect). */
static int _connect(void *ctx, const char *host, int port, char *err,
                    size_t errlen) {
    (void)ctx;
    struct addrinfo hints, *res, *ai;
    char portstr[16];
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(portstr, sizeof(portstr), "%d", port);
    int rv = getaddrinfo(host, portstr, &hints, &res);
    if (rv != 0) {
        snprintf(err, errlen, "%s", gai_strerror(rv));
        return -1;
    }
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
                    SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
            errno == EINPROGRESS)
            break;
        snprintf(err, errlen, "connect: %s", strerror(errno));
        close(fd);
        fd = -1;
    }
    if (fd < 0 && !ai && !res) snprintf(err, errlen, "no address");
    freeaddrinfo(res);
    if (fd >= 0) {
        int yes = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    }
    return fd;
}

/* How the connection started on fd ended: SO_ERROR. */
static int _connectError(void *ctx, int fd, char *err, size_t errlen) {
    (void)ctx;
    int e = 0;
    socklen_t len = sizeof(e);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0) e = errno;
    if (!e) return 0;
    snprintf(err, errlen, "%s", strerror(e));
    return -1;
}

/* fd's peer address (remote) or its own, as Redis prints a client's
 * addr and laddr: "ip:port", "[ip]:port" for IPv6, "<path>:0" for
 * a unix socket. 1 for TCP, 2 for unix, 0 if the kernel says nothing. */
static int _sockName(void *ctx, int fd, int remote, char *buf, size_t len) {
    (void)ctx;
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    char ip[INET6_ADDRSTRLEN];
    int r = remote ? getpeername(fd, (struct sockaddr *)&sa, &salen)
                   : getsockname(fd, (struct sockaddr *)&sa, &salen);
    if (r != 0) return 0;
    if (sa.ss_family == AF_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
        inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
        snprintf(buf, len, "%s:%d", ip, ntohs(s4->sin_port));
        return 1;
    }
    if (sa.ss_family == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
        inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
        snprintf(buf, len, "[%s]:%d", ip, ntohs(s6->sin6_port));
        return 1;
    }
    if (sa.ss_family == AF_UNIX) {
        /* Redis names both ends by the listening socket's path. */
        struct sockaddr_un un;
        socklen_t unlen = sizeof(un);
        memset(&un, 0, sizeof(un));
        if (getsockname(fd, (struct sockaddr *)&un, &unlen) != 0) return 0;
        snprintf(buf, len, "%s:0", un.sun_path);
        return 2;
    }
    return 0;
}

static uint64_t _tvUs(struct timeval tv) {
    return (uint64_t)tv.tv_sec * 1000000ULL + (uint64_t)tv.tv_usec;
}

/* getrusage of the process, its children and this (the main) thread:
 * sys, user for each, as INFO cpu lists them. */
static void _cpuTimes(void *ctx, uint64_t us[6]) {
    (void)ctx;
    static const int who[3] = { RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD };
    for (int i = 0; i < 3; i++) {
        struct rusage ru;
        memset(&ru, 0, sizeof(ru));
        getrusage(who[i], &ru);
        us[2 * i] = _tvUs(ru.ru_stime);
        us[2 * i + 1] = _tvUs(ru.ru_utime);
    }
}

/* poll(2) on fd alone, for ms at most (Redis's aeWait): the loop's
 * epoll set is left alone, so the wait can happen inside a command. A
 * signal restarts the wait for the whole time again, as it would cut
 * it short otherwise. */
static int _wait(void *ctx, int fd, int mask, long long ms) {
    (void)ctx;
    struct pollfd pfd = { .fd = fd };
    if (mask & AE_READABLE) pfd.events |= POLLIN;
    if (mask & AE_WRITABLE) pfd.events |= POLLOUT;
    int r;
    do r = poll(&pfd, 1, ms > INT32_MAX ? INT32_MAX : (int)ms);
    while (r < 0 && errno == EINTR);
    if (r <= 0) return r;
    int ready = 0;
    if (pfd.revents & POLLIN) ready |= AE_READABLE;
    if (pfd.revents & POLLOUT) ready |= AE_WRITABLE;
    if (pfd.revents & (POLLERR | POLLHUP)) ready |= AE_WRITABLE;
    return ready;
}

/* The backend over n. */
aeBackend netEpollBackend(netEpoll *n) {
    aeBackend be = { .ctx = n, .poll = _poll, .now = _now, .read = _read,
                     .write = _write, .close = _close, .watch = _watch,
                     .stall = _stall, .isLocal = _isLocal,
                     .connect = _connect, .connectError = _connectError,
                     .sockName = _sockName, .cpuTimes = _cpuTimes,
                     .wait = _wait };
    return be;
}

/* ---- Listening and accepting. ---- */

/* Records what failed, closes fd, and returns -1 with errno as the
 * failure left it (the caller tells optional addresses by it). */
static int _fail(char *err, size_t errlen, const char *what, int fd) {
    int saved = errno;
    snprintf(err, errlen, "%s: %s", what, strerror(saved));
    if (fd >= 0) close(fd);
    errno = saved;
    return -1;
}

/* One listening socket for an address getaddrinfo found. */
static int _listenOn(const struct addrinfo *ai, int backlog, char *err,
                     size_t errlen) {
    int yes = 1;
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
                    SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return _fail(err, errlen, "socket", -1);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes)) < 0)
        return _fail(err, errlen, "setsockopt SO_REUSEADDR", fd);
    if (ai->ai_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes)) < 0)
        return _fail(err, errlen, "setsockopt IPV6_V6ONLY", fd);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0)
        return _fail(err, errlen, "bind", fd);
    if (listen(fd, backlog) < 0) return _fail(err, errlen, "listen", fd);
    return fd;
}

/* A non-blocking socket listening on addr:port, as redis-server's bind
 * takes addresses: "*" is every IPv4 address, "::*" every IPv6 one.
 * Returns the descriptor, or -1 with the reason in err ("bind: Address
 * already in use") and errno set. */
int netListen(const char *addr, int port, int backlog, char *err,
              size_t errlen) {
    struct addrinfo hints, *res, *ai;
    char portstr[16];
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (!strcmp(addr, "*")) {
        hints.ai_family = AF_INET;
        addr = NULL;
    } else if (!strcmp(addr, "::*")) {
        hints.ai_family = AF_INET6;
        addr = NULL;
    } else {
        hints.ai_family = AF_UNSPEC;
    }
    snprintf(portstr, sizeof(portstr), "%d", port);
    int rv = getaddrinfo(addr, portstr, &hints, &res);
    if (rv != 0) {
        snprintf(err, errlen, "%s", gai_strerror(rv));
        errno = EINVAL;
        return -1;
    }
    int fd = -1;
    for (ai = res; ai && fd < 0; ai = ai->ai_next)
        fd = _listenOn(ai, backlog, err, errlen);
    int saved = errno;
    freeaddrinfo(res);
    errno = saved;
    return fd;
}

/* TCP keepalive probes after `interval` idle seconds, as Redis's
 * anetKeepAlive sets them (then every interval/3, three of them). */
static void _keepAlive(int fd, int interval) {
    int yes = 1, idle = interval, intvl = interval / 3, cnt = 3;
    if (intvl == 0) intvl = 1;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* Accepts one connection on lfd: a non-blocking descriptor with
 * TCP_NODELAY (and keepalive, if keepalive > 0), its peer's address in ip
 * and *port. -1 when none is waiting; -2 on another error, with errno
 * set. */
int netAccept(int lfd, int keepalive, char *ip, size_t iplen, int *port) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    int fd;
    do fd = accept4(lfd, (struct sockaddr *)&sa, &salen,
                    SOCK_NONBLOCK | SOCK_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
    int yes = 1;
    if (sa.ss_family == AF_INET || sa.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    if (keepalive > 0) _keepAlive(fd, keepalive);
    if (sa.ss_family == AF_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
        inet_ntop(AF_INET, &s4->sin_addr, ip, (socklen_t)iplen);
        *port = ntohs(s4->sin_port);
    } else if (sa.ss_family == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
        inet_ntop(AF_INET6, &s6->sin6_addr, ip, (socklen_t)iplen);
        *port = ntohs(s6->sin6_port);
    } else {
        snprintf(ip, iplen, "?");
        *port = 0;
    }
    return fd;
}
