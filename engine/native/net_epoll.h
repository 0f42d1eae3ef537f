/* net_epoll.h -- the event-loop backend on real sockets (ae.h): epoll(7)
 * for readiness, read(2) and send(2) on non-blocking descriptors, as
 * Redis's ae_epoll.c and its connection layer do.
 *
 * The loop itself never sleeps (ae.h): the host blocks in netEpollWait
 * until a descriptor is ready or the loop's next timer is due, and the
 * readiness found there is what the loop's next poll reports. The
 * interest list follows the loop's table through aeBackend.watch, so a
 * poll costs one epoll_wait(2) whatever the number of connections.
 *
 * Listening and accepting are here too: they are the host's business,
 * since the engine only ever sees a connection once it is a descriptor
 * (acceptCommonHandler). Errors are reported as Redis words them, with
 * strerror's text. */
#ifndef GK_NET_EPOLL_H
#define GK_NET_EPOLL_H

#include <stddef.h>
#include <stdint.h>
#include "ae.h"

typedef uint64_t netEpollClock(void *ctx);

typedef struct netEpoll netEpoll;

netEpoll *netEpollCreate(netEpollClock *clock, void *clock_ctx);
void netEpollRelease(netEpoll *n);
aeBackend netEpollBackend(netEpoll *n);
int netEpollWait(netEpoll *n, int timeout_ms);

int netListen(const char *addr, int port, int backlog, char *err,
              size_t errlen);
int netAccept(int lfd, int keepalive, char *ip, size_t iplen, int *port);

#endif
