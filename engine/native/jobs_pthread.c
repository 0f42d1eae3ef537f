/* jobs_pthread.c -- see jobs_pthread.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jobs_pthread.h"

typedef struct jpJob {
    struct jpJob *next;
    job j;
} jpJob;

/* What a thread did, waiting for the main thread to collect it. */
typedef struct jpEvent {
    struct jpEvent *next;
    jobEvent ev;
    job j;                      /* JOB_DONE: the job, for its free */
} jpEvent;

typedef struct jpQueue {
    struct jobsPthread *p;
    int index;
    jpJob *head, *tail;         /* head runs once taken, then leaves */
    pthread_cond_t cond;        /* a job was queued, or stop */
    pthread_t thread;
    unsigned long pending;      /* main thread only: not reported done */
    uint64_t done;              /* main thread only: reported done */
} jpQueue;

struct jobsPthread {
    pthread_mutex_t lock;       /* the queues and the events */
    jpQueue q[JOB_QUEUES];
    jpEvent *events, *events_tail;
    int started;
    int stopping;               /* the threads must exit */
    jobReportFn *report;
    void *rctx;
    jobsPthreadClock *clock;
    void *clock_ctx;
};

/* Idle, not yet started, reading time from clock (which the threads call
 * too, so it must be safe to call from any thread). NULL if memory is
 * short. The caller frees it with jobsPthreadRelease. */
jobsPthread *jobsPthreadCreate(jobsPthreadClock *clock, void *clock_ctx) {
    jobsPthread *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    pthread_mutex_init(&p->lock, NULL);
    for (int i = 0; i < JOB_QUEUES; i++) {
        p->q[i].p = p;
        p->q[i].index = i;
        pthread_cond_init(&p->q[i].cond, NULL);
    }
    p->clock = clock;
    p->clock_ctx = clock_ctx;
    return p;
}

/* Jobs of a queue the main thread has heard were done. */
uint64_t jobsPthreadDone(jobsPthread *p, int queue) {
    return p->q[queue].done;
}

/* Appends an event for the main thread; the lock is held. */
static void _event(jobsPthread *p, const jobEvent *ev, const job *j) {
    jpEvent *e = calloc(1, sizeof(*e));
    if (!e) abort();
    e->ev = *ev;
    e->j = *j;
    if (p->events_tail) p->events_tail->next = e;
    else p->events = e;
    p->events_tail = e;
}

/* Runs the job's system calls: the fsync's errno, or 0. */
static int _work(const job *j) {
    int err = 0;
    if ((j->ops & JOB_FSYNC) && fdatasync(j->fd) < 0) err = errno;
    if (j->ops & JOB_CLOSE) close(j->fd);
    return err;
}

/* A thread: takes the job at the head of its queue, runs it, takes it off
 * and records what happened, until told to stop. A job still queued when
 * it stops never runs. */
static void *_thread(void *arg) {
    jpQueue *q = arg;
    jobsPthread *p = q->p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!q->head && !p->stopping)
            pthread_cond_wait(&q->cond, &p->lock);
        if (p->stopping) break;
        jpJob *jj = q->head;
        pthread_mutex_unlock(&p->lock);
        jobEvent start = { q->index, JOB_STARTED, jj->j.id,
                           p->clock(p->clock_ctx), 0, 0 };
        int err = _work(&jj->j);
        jobEvent done = { q->index, JOB_DONE, jj->j.id,
                          p->clock(p->clock_ctx),
                          (jj->j.ops & JOB_FSYNC) != 0, err };
        pthread_mutex_lock(&p->lock);
        q->head = jj->next;
        if (!q->head) q->tail = NULL;
        _event(p, &start, &jj->j);
        _event(p, &done, &jj->j);
        free(jj);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Starts one thread per queue. 0, or the negated error of
 * pthread_create (the threads started are stopped again). */
static int _start(void *ctx, jobReportFn *report, void *rctx) {
    jobsPthread *p = ctx;
    p->report = report;
    p->rctx = rctx;
    p->stopping = 0;
    for (int i = 0; i < JOB_QUEUES; i++) {
        int r = pthread_create(&p->q[i].thread, NULL, _thread, &p->q[i]);
        if (r == 0) continue;
        pthread_mutex_lock(&p->lock);
        p->stopping = 1;
        for (int k = 0; k < i; k++) pthread_cond_signal(&p->q[k].cond);
        pthread_mutex_unlock(&p->lock);
        for (int k = 0; k < i; k++) pthread_join(p->q[k].thread, NULL);
        return -r;
    }
    p->started = 1;
    return 0;
}

/* Queues a job; the queue's thread wakes up for it. */
static void _submit(void *ctx, int queue, const job *j) {
    jobsPthread *p = ctx;
    jpQueue *q = &p->q[queue];
    jpJob *jj = calloc(1, sizeof(*jj));
    if (!jj) abort();
    jj->j = *j;
    pthread_mutex_lock(&p->lock);
    if (q->tail) q->tail->next = jj;
    else q->head = jj;
    q->tail = jj;
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&p->lock);
    q->pending++;
}

static unsigned long _pending(void *ctx, int queue) {
    return ((jobsPthread *)ctx)->q[queue].pending;
}

/* Takes the events recorded so far off the list. */
static jpEvent *_takeEvents(jobsPthread *p) {
    pthread_mutex_lock(&p->lock);
    jpEvent *e = p->events;
    p->events = p->events_tail = NULL;
    pthread_mutex_unlock(&p->lock);
    return e;
}

/* Reports what the threads did since the last call, in order. A job
 * done leaves the pending count first, as it leaves its list in Redis;
 * a lazy free runs here. */
static void _collect(void *ctx) {
    jobsPthread *p = ctx;
    jpEvent *e = _takeEvents(p);
    while (e) {
        jpEvent *next = e->next;
        if (e->ev.what == JOB_DONE) {
            jpQueue *q = &p->q[e->ev.queue];
            if (e->j.ops & JOB_FREE) e->j.free_fn(e->j.ctx, e->j.arg);
            q->pending--;
            q->done++;
        }
        if (p->report) p->report(p->rctx, &e->ev);
        free(e);
        e = next;
    }
}

/* The process is gone: the threads finish the job they are running and
 * exit. Jobs never started are dropped, their descriptors closed as the
 * kernel closes a dead process's, and every value still to be freed is
 * freed, whether its job ran or not. Nothing more is reported; the
 * backend can be started again for a new process. */
static void _kill(void *ctx) {
    jobsPthread *p = ctx;
    if (!p->started) return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    for (int i = 0; i < JOB_QUEUES; i++) pthread_cond_signal(&p->q[i].cond);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < JOB_QUEUES; i++) pthread_join(p->q[i].thread, NULL);
    for (jpEvent *e = _takeEvents(p), *next; e; e = next) {
        next = e->next;
        if (e->ev.what == JOB_DONE && (e->j.ops & JOB_FREE))
            e->j.free_fn(e->j.ctx, e->j.arg);
        free(e);
    }
    for (int i = 0; i < JOB_QUEUES; i++) {
        jpQueue *q = &p->q[i];
        for (jpJob *jj = q->head, *next; jj; jj = next) {
            next = jj->next;
            if (jj->j.ops & JOB_CLOSE) close(jj->j.fd);
            if (jj->j.ops & JOB_FREE) jj->j.free_fn(jj->j.ctx, jj->j.arg);
            free(jj);
        }
        q->head = q->tail = NULL;
        q->pending = 0;
    }
    p->started = 0;
    p->report = NULL;
}

/* The backend over p. */
jobBackend jobsPthreadBackend(jobsPthread *p) {
    jobBackend jb = { .ctx = p, .start = _start, .submit = _submit,
                      .pending = _pending, .collect = _collect,
                      .kill = _kill };
    return jb;
}

/* Stops the threads if they run (as _kill) and frees the backend. */
void jobsPthreadRelease(jobsPthread *p) {
    if (!p) return;
    _kill(p);
    for (int i = 0; i < JOB_QUEUES; i++) pthread_cond_destroy(&p->q[i].cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
