/* child.h -- the server's forked child (child.c): one at a time, as in
 * Redis, whether it writes an RDB snapshot (BGSAVE) or a new AOF base
 * (BGREWRITEAOF). */
#ifndef GK_CHILD_H
#define GK_CHILD_H

#include <stdint.h>
#include "sds.h"
#include "mem.h"

/* What the child is for (server.child_type in Redis). */
#define CHILD_TYPE_NONE 0
#define CHILD_TYPE_RDB 1
#define CHILD_TYPE_AOF 2

/* Where the child is in its life, each step on its own lane. */
#define CHILD_SERIALIZE 0       /* walking the dataset (its CPU) */
#define CHILD_FSYNC 1           /* waiting for the fsync of its file */
#define CHILD_EXITED 2          /* done: the parent reaps it in cron */

/* The signal Redis kills its children with when the kill is no failure. */
#define GK_SIGUSR1 10

/* The child: a forked process on its own lane. It gets a copy-on-write
 * view of the dataset at fork time -- here, the bytes of its file, made
 * at once from the dataset as it is then -- and spends its own CPU and
 * disk time writing them. */
typedef struct serverChild {
    int type;                   /* CHILD_TYPE_*; NONE: no child */
    int pid;
    int step;                   /* CHILD_* */
    uint64_t next;              /* when it next acts (virtual ns) */
    uint64_t fork_at;
    int exitcode;
    int bysignal;               /* killed by this signal, or 0 */
    int fd;                     /* its temp file */
    gkMem mem;                  /* its memory, not the server's */
    sds data;                   /* the file it writes */
    long long keys;
    uint64_t cpu_ns;            /* its CPU time */
    char tmp[64];               /* the file it writes */
    char dst[160];              /* the name it renames it to */
    /* An RDB for replicas' sockets (diskless sync): no file; the parent
     * takes what the child made, framed by the EOF mark, once it is
     * done (Redis's child writes it into a pipe the parent reads). */
    int socket;
    char eofmark[41];
} serverChild;

#endif
