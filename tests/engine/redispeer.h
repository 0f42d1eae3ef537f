/* redispeer.h -- talking to a real redis-server from the C tests: byte
 * buffers, RESP requests and replies, running Debian's tools, and a
 * redis-server started on a directory and reached on a unix socket. */
#ifndef REDISPEER_H
#define REDISPEER_H
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- Byte buffers and RESP replies. ---- */

typedef struct buf {
    char *p;
    size_t len, pos, cap;       /* pos: the bytes before it are consumed */
} buf;

static inline void bufAppend(buf *b, const void *data, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static inline void bufPrintf(buf *b, const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    bufAppend(b, line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static inline void bufFree(buf *b) {
    free(b->p);
    memset(b, 0, sizeof(*b));
}

typedef struct reply {
    char type;                  /* + - : $ *, or 0 for a null */
    long long num;              /* ':' */
    char *str;                  /* '+' '-' '$' */
    size_t len;
    struct reply **el;          /* '*' */
    size_t nel;
} reply;

static inline void replyFree(reply *r) {
    if (!r) return;
    for (size_t i = 0; i < r->nel; i++) replyFree(r->el[i]);
    free(r->el);
    free(r->str);
    free(r);
}

/* One RESP2 reply at p[0, len): the reply, with *used set to its bytes,
 * or NULL if it is not complete yet. */
static inline reply *respParse(const char *p, size_t len, size_t *used) {
    if (len == 0) return NULL;
    const char *crlf = memchr(p, '\r', len);
    if (!crlf || (size_t)(crlf - p) + 2 > len) return NULL;
    size_t head = (size_t)(crlf - p) + 2;
    reply *r = calloc(1, sizeof(*r));
    r->type = p[0];
    if (p[0] == '+' || p[0] == '-') {
        r->len = (size_t)(crlf - p) - 1;
        r->str = strndup(p + 1, r->len);
        *used = head;
        return r;
    }
    long long n = strtoll(p + 1, NULL, 10);
    r->num = n;
    *used = head;
    if (p[0] == '$' && n >= 0) {
        if (head + (size_t)n + 2 > len) { replyFree(r); return NULL; }
        r->str = strndup(p + head, (size_t)n);
        r->len = (size_t)n;
        *used = head + (size_t)n + 2;
    } else if (p[0] == '*' && n >= 0) {
        r->el = calloc((size_t)n + 1, sizeof(reply *));
        for (long long i = 0; i < n; i++) {
            size_t u;
            r->el[i] = respParse(p + *used, len - *used, &u);
            if (!r->el[i]) { r->nel = (size_t)i; replyFree(r); return NULL; }
            r->nel++;
            *used += u;
        }
    } else if (p[0] == '$' || p[0] == '*') {
        r->type = 0;
    }
    return r;
}

/* argv as a RESP multibulk request. */
static inline void respRequest(buf *b, int argc, const char **argv) {
    bufPrintf(b, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        bufPrintf(b, "$%zu\r\n%s\r\n", strlen(argv[i]), argv[i]);
}

/* ---- Debian's programs. ---- */

/* Where a program is on PATH, else NULL (a static buffer). */
static inline const char *onPath(const char *prog) {
    static char found[1024];
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(found, sizeof(found), "%.*s/%s", (int)n, path, prog);
        if (access(found, X_OK) == 0) return found;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* Runs argv with stdout and stderr going to the file out; its exit
 * status, or -1 if it could not run or died. */
static inline int runTool(char *const argv[], const char *out) {
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT |
                                     O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (r != 0 || waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- A redis-server of its own. ---- */

typedef struct peer {
    pid_t pid;
    int fd;                     /* a connection on its unix socket */
    buf in;
} peer;

/* A connection to the unix socket at path, or -1. */
static inline int unixConnect(const char *path) {
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        close(fd);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) return fd;
    close(fd);
    return -1;
}

/* Sends argv to the peer and reads its reply; NULL if the connection
 * fails. */
static inline reply *peerCmd(peer *p, int argc, const char **argv) {
    buf req = { 0 };
    respRequest(&req, argc, argv);
    size_t off = 0;
    while (off < req.len) {
        ssize_t n = write(p->fd, req.p + off, req.len - off);
        if (n <= 0) { bufFree(&req); return NULL; }
        off += (size_t)n;
    }
    bufFree(&req);
    for (;;) {
        size_t used;
        reply *r = p->in.len > p->in.pos
                   ? respParse(p->in.p + p->in.pos, p->in.len - p->in.pos,
                               &used) : NULL;
        if (r) {
            p->in.pos += used;
            return r;
        }
        char chunk[16384];
        ssize_t n = read(p->fd, chunk, sizeof(chunk));
        if (n <= 0) return NULL;
        bufAppend(&p->in, chunk, (size_t)n);
    }
}

/* Starts redis-server on dir with appendonly yes, listening only on a
 * unix socket in dir, and connects once it answers PING with PONG (polled
 * for up to 10 s each). 0, or -1. */
static inline int peerStart(peer *p, const char *dir) {
    char sock[100], log[256];
    snprintf(sock, sizeof(sock), "%s/redis.sock", dir);
    snprintf(log, sizeof(log), "%s/redis-server.log", dir);
    char *argv[] = { "redis-server", "--port", "0", "--unixsocket", sock,
                     "--dir", (char *)dir, "--appendonly", "yes",
                     "--save", "", "--daemonize", "no", "--logfile", log,
                     NULL };
    memset(p, 0, sizeof(*p));
    p->fd = -1;
    if (posix_spawnp(&p->pid, argv[0], NULL, NULL, argv, environ) != 0)
        return -1;
    struct timespec ms = { 0, 10000000 };
    const char *ping[] = { "PING" };
    for (int i = 0; i < 1000 && p->fd < 0; i++) {
        if (waitpid(p->pid, NULL, WNOHANG) == p->pid) { p->pid = 0; break; }
        p->fd = unixConnect(sock);
        if (p->fd < 0) nanosleep(&ms, NULL);
    }
    /* It accepts connections while it loads, answering -LOADING. */
    for (int i = 0; i < 1000 && p->fd >= 0; i++) {
        reply *r = peerCmd(p, 1, ping);
        int pong = r && r->type == '+' && !strcmp(r->str, "PONG");
        int loading = r && r->type == '-' && !strncmp(r->str, "LOADING", 7);
        replyFree(r);
        if (pong) return 0;
        if (!loading) break;
        nanosleep(&ms, NULL);
    }
    return -1;
}

/* Stops it (SIGTERM) and waits for it. */
static inline void peerStop(peer *p) {
    if (p->fd >= 0) close(p->fd);
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        waitpid(p->pid, NULL, 0);
    }
    bufFree(&p->in);
}

#endif
