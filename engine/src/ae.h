/* ae.h -- the event loop, as Redis's ae.c, over a pluggable backend.
 *
 * The loop keeps file events (handlers for readable/writable descriptors)
 * and time events (serverCron). It never sleeps by itself: the backend's
 * poll reports which descriptors are ready *now*, and after beforesleep the
 * loop tells the caller when it next needs to run. In the simulated world
 * the world's event queue does the sleeping in virtual time; a real backend
 * (epoll) would block in poll instead. The core cannot tell the difference. */
#ifndef GK_AE_H
#define GK_AE_H

#include <stdint.h>
#include "mem.h"
#include "status.h"

#define AE_NONE 0
#define AE_READABLE 1
#define AE_WRITABLE 2
#define AE_BARRIER 4       /* run the writable handler before the readable */

#define AE_NOMORE -1       /* a time event returning this is deleted */
#define AE_DELETED_EVENT_ID -1  /* id of a deleted, not yet freed event */
#define AE_NEVER UINT64_MAX

struct aeEventLoop;

typedef void aeFileProc(struct aeEventLoop *el, int fd, void *clientData,
                        int mask);
typedef long long aeTimeProc(struct aeEventLoop *el, long long id,
                             void *clientData);
typedef void aeBeforeSleepProc(struct aeEventLoop *el);

typedef struct aeFileEvent {
    int mask;                  /* AE_READABLE | AE_WRITABLE | AE_BARRIER */
    aeFileProc *rfileProc;
    aeFileProc *wfileProc;
    void *clientData;
} aeFileEvent;

typedef struct aeFiredEvent { int fd; int mask; } aeFiredEvent;

typedef struct aeTimeEvent {
    long long id;
    uint64_t when;             /* virtual time in ns */
    aeTimeProc *timeProc;
    void *clientData;
    struct aeTimeEvent *next;
} aeTimeEvent;

/* What the loop needs from the platform. */
typedef struct aeBackend {
    void *ctx;
    /* Fills fired[] with the registered descriptors ready now; returns
     * their number. */
    int (*poll)(void *ctx, struct aeEventLoop *el, aeFiredEvent *fired,
                int max);
    uint64_t (*now)(void *ctx);    /* current time in ns */
    /* Socket-like I/O on a descriptor: read returns bytes read, 0 at end
     * of stream, -1 if nothing is available; write returns bytes
     * accepted, -1 if none can be now (EAGAIN), -2 on a hard error; close
     * releases the descriptor. */
    long (*read)(void *ctx, int fd, void *buf, size_t len);
    long (*write)(void *ctx, int fd, const void *buf, size_t len);
    void (*close)(void *ctx, int fd);
    /* Optional: told whenever the events registered on fd change, from
     * oldmask to newmask (AE_READABLE | AE_WRITABLE), as Redis's ae.c
     * tells epoll (aeApiAddEvent, aeApiDelEvent). A backend that keeps
     * no interest list of its own leaves it NULL and reads the loop's
     * table in poll instead. */
    void (*watch)(void *ctx, int fd, int oldmask, int newmask);
    /* Optional: the process stops for ns of real time (DEBUG SLEEP). A
     * simulated backend leaves it NULL: there the node is busy for its
     * virtual CPU time instead. */
    void (*stall)(void *ctx, uint64_t ns);
    /* Optional: whether the peer of fd is on this machine (loopback or a
     * unix socket). NULL: every peer is. */
    int (*isLocal)(void *ctx, int fd);
    /* Optional: starts a connection to host:port (a replica to its
     * master) and returns its descriptor, which turns writable once the
     * connection is made or failed; -1 with err filled if it cannot even
     * start. connectError then tells: 0 if it was made, else -1 with
     * err filled. NULL: this platform makes no connections. */
    int (*connect)(void *ctx, const char *host, int port, char *err,
                   size_t errlen);
    int (*connectError)(void *ctx, int fd, char *err, size_t errlen);
    /* Optional: the address of fd's peer (remote 1) or of its own end
     * (remote 0) as Redis prints it, "ip:port" ("[ip]:port" for IPv6,
     * "<path>:0" for a unix socket), into buf. Returns 1 for a TCP socket,
     * 2 for a unix socket, 0 if unknown. NULL: the simulated world, whose
     * connections have made-up addresses. */
    int (*sockName)(void *ctx, int fd, int remote, char *buf, size_t len);
    /* Optional: the CPU the process used, in microseconds: system and
     * user time of the process, of its waited-for children, and of its
     * main thread (INFO cpu). NULL: the simulated world, where the
     * server's virtual CPU time is all user time. */
    void (*cpuTimes)(void *ctx, uint64_t us[6]);
    /* Optional: blocks until fd is ready for mask (AE_READABLE or
     * AE_WRITABLE) or ms milliseconds pass, as Redis's aeWait does for
     * the synchronous exchanges of MIGRATE. Returns the mask found ready
     * (an error or a hang-up counts as writable), 0 if the time ran out,
     * -1 on an error of the wait itself. NULL: the simulated world, where
     * no other node runs while a command does, so nothing can be waited
     * for. */
    int (*wait)(void *ctx, int fd, int mask, long long ms);
    /* Optional: lets the rest of the world catch up with a process held
     * inside one iteration (a busy script serving other clients, as
     * Redis's processEventsWhileBlocked): what has reached its sockets by
     * its clock is delivered and the other hosts run. NULL on real
     * sockets, where the kernel keeps delivering by itself. */
    void (*pump)(void *ctx);
} aeBackend;

typedef struct aeEventLoop {
    gkMem *mem;
    int setsize;               /* descriptors that fit in events[] */
    int maxfd;                 /* highest registered descriptor, or -1 */
    aeFileEvent *events;
    aeFiredEvent *fired;
    void *apistate;            /* stands for epoll's aeApiState ... */
    void *apievents;           /* ... and its epoll_event[setsize] */
    aeTimeEvent *timeEventHead;
    long long timeEventNextId;
    aeBeforeSleepProc *beforesleep;
    aeBackend backend;
    uint64_t iterations;       /* aeProcessEvents calls so far */
    void *privdata;
} aeEventLoop;

aeEventLoop *aeCreateEventLoop(gkMem *m, int setsize, aeBackend backend);
void aeDeleteEventLoop(aeEventLoop *el);
int aeResizeSetSize(aeEventLoop *el, int setsize);
int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc,
                      void *clientData);
void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask);
int aeGetFileEvents(aeEventLoop *el, int fd);
long long aeCreateTimeEvent(aeEventLoop *el, long long ms, aeTimeProc *proc,
                            void *clientData);
int aeDeleteTimeEvent(aeEventLoop *el, long long id);
void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *proc);
int aeProcessEvents(aeEventLoop *el);
int aeProcessFileEvents(aeEventLoop *el);
uint64_t aeNextWake(aeEventLoop *el);

#endif
