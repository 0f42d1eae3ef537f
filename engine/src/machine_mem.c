/* machine_mem.c -- the memory of the machine under a Redis-style node,
 * and whether its kernel lets the process fork.
 *
 * fork(2) gives the child a copy-on-write view of the parent's memory.
 * Nothing is copied at first, but the kernel must promise the child its
 * private writable pages: if both processes wrote to every page, each
 * would need its own copy. Linux decides whether it can promise them in
 * __vm_enough_memory (mm/util.c; mm/mmap.c in older kernels), once for every
 * private writable mapping fork copies (dup_mmap), under the policy of
 * vm.overcommit_memory:
 *
 *   1 (always)     every promise is made. A fork never fails for memory;
 *                  if the pages are really written twice and do not fit,
 *                  the OOM killer picks a process later. This is what
 *                  Redis asks for at startup, and the seed's fix.
 *   2 (never)      strict accounting: the promises of every process
 *                  (Committed_AS) must stay under CommitLimit, that is
 *                  vm.overcommit_ratio percent of RAM (50 by default)
 *                  plus the swap. The parent's memory was promised when
 *                  it allocated it, and the child's comes on top: a
 *                  process holding more than a quarter of RAM plus half
 *                  the swap cannot fork at all.
 *   0 (heuristic)  the default. Here I model it as the kernels of the
 *                  seed's time had it (up to Linux 5.1): a promise is
 *                  refused if it is larger than what could still be had,
 *                  free memory plus the page cache (the kernel can drop
 *                  it) plus free swap, the reclaimable slab, less a few
 *                  reserves. A parent holding P bytes in a machine of R
 *                  bytes of RAM and S of swap leaves R + S - P of it;
 *                  its child needs P more, so the fork fails once the
 *                  dataset is larger than the free memory plus swap, as
 *                  the seed says: once P > (R + S) / 2.
 *                  Linux 5.2 (commit 8c7829b04c52, "mm: fix false-
 *                  positive OVERCOMMIT_GUESS failures") made the
 *                  heuristic refuse only a single promise larger than all
 *                  of RAM plus swap, whatever is in use: under a newer
 *                  kernel this fork would succeed, and mode 0 fails only
 *                  a process larger than the whole machine.
 *
 * What I leave out: the reserves (totalreserve_pages, and for a process
 * without CAP_SYS_ADMIN admin_reserve_kbytes, the smaller of 3% of free
 * memory and 8 MB; mode 2 also keeps user_reserve_kbytes), a few MB that
 * only move the edge; other processes on the machine (the node's process
 * is the only one); and the split of the promise by mapping: I weigh the
 * child's memory as one request, which is exact for a heap in one
 * mapping and a little stricter than the kernel for jemalloc's many. The
 * child's private writable memory is the process's resident memory as
 * memoryRss takes it (used_memory and the Lua heap); a real process's
 * virtual size is somewhat larger. In mode 2 the parent's own
 * allocations are not refused as they grow: only the fork is weighed.
 *
 * A refused fork fails with ENOMEM ("Cannot allocate memory"), and Redis
 * logs it at each fork site (rdb.c, aof_child.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "world.h"

#define MACHINE_RAM_DEFAULT (16ULL << 30)
#define MACHINE_RATIO_DEFAULT 50
#define MACHINE_SIZE_MAX (1ULL << 50)   /* 1 PB: no overflow below */
#define MACHINE_RATIO_MAX 10000

/* A machine of 16 GB of RAM, no swap, the kernel's default policy. */
void machineMemInit(machineMem *m) {
    m->ram = MACHINE_RAM_DEFAULT;
    m->swap = 0;
    m->overcommit = 0;
    m->ratio = MACHINE_RATIO_DEFAULT;
}

/* CommitLimit (mode 2): ratio percent of RAM, plus the swap. */
static uint64_t _commitLimit(const machineMem *m) {
    return m->ram / 100 * (uint64_t)m->ratio +
           m->ram % 100 * (uint64_t)m->ratio / 100 + m->swap;
}

/* Whether the kernel promises a child the rss bytes of its parent, which
 * holds them already (see the top of the file). */
static int _forkAllowed(const machineMem *m, uint64_t rss) {
    if (m->overcommit == 1) return 1;
    if (m->overcommit == 2) return rss * 2 < _commitLimit(m);
    uint64_t total = m->ram + m->swap;
    uint64_t left = total > rss ? total - rss : 0;
    return left > rss;
}

/* The process's fork_check (server.h; ctx: its gkNode): 0, or -FS_ENOMEM
 * when the machine's kernel refuses the child. */
int machineForkCheck(void *ctx, uint64_t rss) {
    gkNode *n = ctx;
    return _forkAllowed(&n->sysmem, rss) ? 0 : -FS_ENOMEM;
}

/* The machine of a Redis-style node, NULL (with the world's error set)
 * if node is not one. */
static machineMem *_machine(gkWorld *w, int node) {
    if (!worldIsRedisNode(w, node)) {
        worldFail(w, GK_ENOTFOUND, "no such server node");
        return NULL;
    }
    return &w->nodes[node].sysmem;
}

/* A size in bytes, or with Redis's units; 0 if it is none or past 1 PB. */
static int _parseSize(const char *value, uint64_t *out) {
    long long v;
    if (!configParseMemory(value, &v) || v < 0 ||
        (uint64_t)v > MACHINE_SIZE_MAX)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* An integer from lo to hi, the whole of value; 0 if it is not one. */
static int _parseInt(const char *value, long lo, long hi, int *out) {
    char *end;
    long v = strtol(value, &end, 10);
    if (!*value || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* Sets one of the machine's parameters (glasskv.h). */
int gkMachineSet(gkWorld *w, int node, const char *name, const char *value) {
    machineMem *m = _machine(w, node);
    if (!m) return GK_ENOTFOUND;
    uint64_t size;
    int v;
    if (!strcasecmp(name, "mem-total")) {
        if (!_parseSize(value, &size) || size == 0)
            return worldFail(w, GK_EINVAL, "mem-total must be a size in "
                             "bytes above 0 and at most 1 PB (512mb, 4gb)");
        m->ram = size;
    } else if (!strcasecmp(name, "swap-total")) {
        if (!_parseSize(value, &size))
            return worldFail(w, GK_EINVAL, "swap-total must be a size in "
                             "bytes, at most 1 PB (0, 512mb, 4gb)");
        m->swap = size;
    } else if (!strcasecmp(name, "vm.overcommit_memory")) {
        if (!_parseInt(value, 0, 2, &v))
            return worldFail(w, GK_EINVAL, "vm.overcommit_memory must be 0 "
                             "(heuristic), 1 (always) or 2 (never)");
        m->overcommit = v;
    } else if (!strcasecmp(name, "vm.overcommit_ratio")) {
        if (!_parseInt(value, 0, MACHINE_RATIO_MAX, &v))
            return worldFail(w, GK_EINVAL, "vm.overcommit_ratio must be a "
                             "percentage from 0 to 10000");
        m->ratio = v;
    } else {
        return worldFail(w, GK_EINVAL, "unknown machine parameter: "
                         "mem-total, swap-total, vm.overcommit_memory or "
                         "vm.overcommit_ratio");
    }
    return GK_OK;
}

/* One of the machine's parameters, as text (sizes in bytes). */
int gkMachineGet(gkWorld *w, int node, const char *name, char *buf,
                 size_t cap) {
    machineMem *m = _machine(w, node);
    if (!m) return GK_ENOTFOUND;
    unsigned long long v;
    if (!strcasecmp(name, "mem-total")) v = m->ram;
    else if (!strcasecmp(name, "swap-total")) v = m->swap;
    else if (!strcasecmp(name, "vm.overcommit_memory"))
        v = (unsigned)m->overcommit;
    else if (!strcasecmp(name, "vm.overcommit_ratio"))
        v = (unsigned)m->ratio;
    else return worldFail(w, GK_EINVAL, "unknown machine parameter");
    if (cap) snprintf(buf, cap, "%llu", v);
    return GK_OK;
}
