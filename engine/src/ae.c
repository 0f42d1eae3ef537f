/* ae.c -- see ae.h.
 *
 * One iteration, as Redis 7.0's aeProcessEvents runs it after its poll:
 *   1. ask the backend which descriptors are ready;
 *   2. for each, the readable handler then the writable one (reversed when
 *      the descriptor has AE_BARRIER, so a reply is never written in the
 *      same iteration as its command was read without the AOF flush that
 *      beforeSleep performs between them);
 *   3. run the time events that are due;
 *   4. call beforesleep, which flushes the AOF and writes replies;
 * then the loop "sleeps" until the nearest timer or until a descriptor
 * becomes ready, whichever comes first. */
#include <string.h>
#include "ae.h"

/* A loop for descriptors 0..setsize-1 (aeResizeSetSize grows it) that
 * polls, reads, writes and tells time through backend, copied by value.
 * Never returns NULL: memory comes from m, whose refusal stops the engine.
 * Freed by aeDeleteEventLoop. */
aeEventLoop *aeCreateEventLoop(gkMem *m, int setsize, aeBackend backend) {
    aeEventLoop *el = memCalloc(m, sizeof(*el));
    el->mem = m;
    el->setsize = setsize;
    el->maxfd = -1;
    el->events = memCallocAs(m, sizeof(aeFileEvent) * (size_t)setsize,
                             MEM64_AE_FILE_EVENT * (size_t)setsize);
    el->fired = memCallocAs(m, sizeof(aeFiredEvent) * (size_t)setsize,
                            MEM64_AE_FIRED_EVENT * (size_t)setsize);
    /* Redis's epoll backend allocates its state and an array of setsize
     * epoll_events for epoll_wait to fill. The backends here keep what
     * they need themselves, so these two blocks hold nothing: they are
     * charged what Redis's are, so that an idle server's used_memory is
     * Redis's (a server with maxclients 10000 spends about 540 KB of its
     * 850 KB on these tables). */
    el->apistate = memAllocAs(m, 1, MEM64_EPOLL_STATE);
    el->apievents = memAllocAs(m, 1, MEM64_EPOLL_EVENT * (size_t)setsize);
    el->timeEventNextId = 0;
    el->backend = backend;
    return el;
}

/* Frees the loop, its tables and its pending timers. Client data, the
 * descriptors and the backend are the caller's and are left alone. */
void aeDeleteEventLoop(aeEventLoop *el) {
    aeTimeEvent *te = el->timeEventHead;
    while (te) {
        aeTimeEvent *next = te->next;
        memFree(el->mem, te);
        te = next;
    }
    memFree(el->mem, el->events);
    memFree(el->mem, el->fired);
    memFree(el->mem, el->apistate);
    memFree(el->mem, el->apievents);
    memFree(el->mem, el);
}

/* Resizes the descriptor table; C_ERR if a registered fd would not fit. */
int aeResizeSetSize(aeEventLoop *el, int setsize) {
    if (setsize == el->setsize) return C_OK;
    if (el->maxfd >= setsize) return C_ERR;
    el->events = memReallocAs(el->mem, el->events,
                              sizeof(aeFileEvent) * (size_t)setsize,
                              MEM64_AE_FILE_EVENT * (size_t)setsize);
    el->fired = memReallocAs(el->mem, el->fired,
                             sizeof(aeFiredEvent) * (size_t)setsize,
                             MEM64_AE_FIRED_EVENT * (size_t)setsize);
    el->apievents = memReallocAs(el->mem, el->apievents, 1,
                                 MEM64_EPOLL_EVENT * (size_t)setsize);
    for (int i = el->setsize; i < setsize; i++)
        memset(&el->events[i], 0, sizeof(aeFileEvent));
    el->setsize = setsize;
    return C_OK;
}

/* Tells the backend, if it wants to know, that fd's readable/writable
 * interest went from old to next (AE_BARRIER is the loop's business). */
static void _aeWatch(aeEventLoop *el, int fd, int old, int next) {
    int rw = AE_READABLE | AE_WRITABLE;
    if (el->backend.watch && (old & rw) != (next & rw))
        el->backend.watch(el->backend.ctx, fd, old & rw, next & rw);
}

/* Adds mask (AE_READABLE, AE_WRITABLE, AE_BARRIER) to fd's events with
 * proc as the handler of the bits given. One clientData serves both
 * handlers: the last call sets it. C_ERR, nothing changed, if fd is
 * outside the table. */
int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc,
                      void *clientData) {
    if (fd < 0 || fd >= el->setsize) return C_ERR;
    aeFileEvent *fe = &el->events[fd];
    int old = fe->mask;
    fe->mask |= mask;
    _aeWatch(el, fd, old, fe->mask);
    if (mask & AE_READABLE) fe->rfileProc = proc;
    if (mask & AE_WRITABLE) fe->wfileProc = proc;
    fe->clientData = clientData;
    if (fd > el->maxfd) el->maxfd = fd;
    return C_OK;
}

/* Removes the bits of mask from fd's events; removing AE_WRITABLE drops
 * AE_BARRIER as well. A no-op for an fd out of range or not registered.
 * The descriptor itself is not closed. */
void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask) {
    if (fd < 0 || fd >= el->setsize) return;
    aeFileEvent *fe = &el->events[fd];
    if (fe->mask == AE_NONE) return;
    /* Removing the writable handler always drops the barrier too. */
    if (mask & AE_WRITABLE) mask |= AE_BARRIER;
    int old = fe->mask;
    fe->mask &= ~mask;
    _aeWatch(el, fd, old, fe->mask);
    if (fd == el->maxfd && fe->mask == AE_NONE) {
        int j;
        for (j = el->maxfd - 1; j >= 0; j--)
            if (el->events[j].mask != AE_NONE) break;
        el->maxfd = j;
    }
}

/* The event mask registered for fd; 0 if none or out of range. */
int aeGetFileEvents(aeEventLoop *el, int fd) {
    if (fd < 0 || fd >= el->setsize) return 0;
    return el->events[fd].mask;
}

/* Schedules proc to run ms milliseconds from now; returns its id. */
long long aeCreateTimeEvent(aeEventLoop *el, long long ms, aeTimeProc *proc,
                            void *clientData) {
    aeTimeEvent *te = memAlloc(el->mem, sizeof(*te));
    te->id = el->timeEventNextId++;
    te->when = el->backend.now(el->backend.ctx) + (uint64_t)ms * 1000000;
    te->timeProc = proc;
    te->clientData = clientData;
    te->next = el->timeEventHead;
    el->timeEventHead = te;
    return te->id;
}

/* Marks the event deleted; it is unlinked and freed by the next pass of
 * the timer loop, so a timer may delete any timer, itself included,
 * while the loop walks the list. */
int aeDeleteTimeEvent(aeEventLoop *el, long long id) {
    for (aeTimeEvent *te = el->timeEventHead; te; te = te->next) {
        if (te->id == id) {
            te->id = AE_DELETED_EVENT_ID;
            return C_OK;
        }
    }
    return C_ERR;
}

/* Sets the function run at the end of every iteration, before the loop
 * sleeps (NULL for none). */
void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *proc) {
    el->beforesleep = proc;
}

/* Runs every time event due now. A handler returns its next interval in
 * ms, or AE_NOMORE to be deleted. Events created by handlers during this
 * pass wait for the next one. */
static int _aeProcessTimeEvents(aeEventLoop *el) {
    int processed = 0;
    long long maxId = el->timeEventNextId - 1;
    uint64_t now = el->backend.now(el->backend.ctx);
    aeTimeEvent **link = &el->timeEventHead;
    while (*link) {
        aeTimeEvent *te = *link;
        if (te->id == AE_DELETED_EVENT_ID) {
            *link = te->next;
            memFree(el->mem, te);
            continue;
        }
        if (te->id <= maxId && te->when <= now) {
            long long id = te->id;
            long long retval = te->timeProc(el, id, te->clientData);
            processed++;
            now = el->backend.now(el->backend.ctx);
            if (retval == AE_NOMORE) aeDeleteTimeEvent(el, id);
            else if (te->id != AE_DELETED_EVENT_ID)
                te->when = now + (uint64_t)retval * 1000000;
        }
        link = &te->next;
    }
    return processed;
}

static void _aeFire(aeEventLoop *el, int fd, int mask) {
    aeFileEvent *fe = &el->events[fd];
    int fired = 0;
    int invert = fe->mask & AE_BARRIER;
    if (!invert && fe->mask & mask & AE_READABLE) {
        fe->rfileProc(el, fd, fe->clientData, mask);
        fired++;
        fe = &el->events[fd];
    }
    if (fe->mask & mask & AE_WRITABLE) {
        if (!fired || fe->wfileProc != fe->rfileProc) {
            fe->wfileProc(el, fd, fe->clientData, mask);
            fired++;
        }
    }
    fe = &el->events[fd];
    if (invert && fe->mask & mask & AE_READABLE) {
        if (!fired || fe->wfileProc != fe->rfileProc)
            fe->rfileProc(el, fd, fe->clientData, mask);
    }
}

/* One iteration (see the top of this file). Returns the number of file and
 * time events processed. */
int aeProcessEvents(aeEventLoop *el) {
    int numevents = el->backend.poll(el->backend.ctx, el, el->fired,
                                     el->setsize);
    for (int j = 0; j < numevents; j++)
        _aeFire(el, el->fired[j].fd, el->fired[j].mask);
    int processed = numevents + _aeProcessTimeEvents(el);
    if (el->beforesleep) el->beforesleep(el);
    el->iterations++;
    return processed;
}

/* Only the file events ready now, without timers or beforeSleep (what a
 * busy script lets run between its instructions). Returns how many. */
int aeProcessFileEvents(aeEventLoop *el) {
    int numevents = el->backend.poll(el->backend.ctx, el, el->fired,
                                     el->setsize);
    for (int j = 0; j < numevents; j++)
        _aeFire(el, el->fired[j].fd, el->fired[j].mask);
    return numevents;
}

/* When the loop next has a timer to run: AE_NEVER if it has none. */
uint64_t aeNextWake(aeEventLoop *el) {
    uint64_t when = AE_NEVER;
    for (aeTimeEvent *te = el->timeEventHead; te; te = te->next)
        if (te->id != AE_DELETED_EVENT_ID && te->when < when)
            when = te->when;
    return when;
}
