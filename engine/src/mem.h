/* mem.h -- memory accounting over the host's allocator.
 *
 * Every allocation in the engine goes through a gkMem, which forwards to the
 * allocator the host gave gkWorldCreate and counts the bytes in use, as
 * Redis's zmalloc counts used_memory. A small header before each block keeps
 * its size, so memFree needs no size from the caller.
 *
 * The count is what Redis 7.0 on a 64-bit Linux would report, whatever the
 * host: Redis's used_memory is jemalloc's usable size of each block, the
 * request rounded up to a jemalloc 5 size class (memClassSize), and a block
 * holding pointers is charged the size it has with 8-byte pointers (the
 * MEM64_* sizes below, passed to the *As functions), so the WebAssembly
 * build, whose pointers are 4 bytes, shows the same figures as a native
 * one. */
#ifndef GK_MEM_H
#define GK_MEM_H

#include <stddef.h>
#include "glasskv.h"

typedef struct gkMem {
    gkAllocFn fn;       /* the host's allocator */
    void *ud;           /* its opaque argument */
    size_t used;        /* bytes handed out, headers included */
    size_t peak;        /* highest value of used */
    size_t failures;    /* allocations the host refused */
    struct gkMem *parent;/* also counts this one's blocks (NULL: none) */
    uint64_t *cpu_ns;   /* a server's CPU, charged alloc_ns an allocation */
    const int *quiet;   /* while *quiet > 0, nothing (see cost.h) */
    uint32_t alloc_ns;
    uint32_t large_ns;  /* and more for a block above MEM_SMALL_MAX */
    size_t startup;     /* used once its server was up (0: not yet) */
} gkMem;

#define MEM_SMALL_MAX 14336     /* jemalloc 5's largest small class */

/* Redis 7.0's structs on a 64-bit machine, in bytes: what the blocks that
 * hold the engine's own versions of them are charged. */
#define MEM64_PTR 8             /* a pointer: one bucket of a dict table */
#define MEM64_ROBJ 16           /* robj */
#define MEM64_DICT_ENTRY 24     /* dictEntry */
#define MEM64_DICT 56           /* dict (7.0: no privdata, 2 tables) */
#define MEM64_QUICKLIST 40      /* quicklist without bookmarks */
#define MEM64_QUICKLIST_NODE 40 /* quicklistNode (its sz is a size_t) */
#define MEM64_QUICKLIST_LZF 8   /* quicklistLZF before its bytes */
#define MEM64_ZSET 16           /* zset: its dict and skiplist */
#define MEM64_ZSKIPLIST 32      /* zskiplist */
#define MEM64_ZSL_NODE 24       /* zskiplistNode without its levels */
#define MEM64_ZSL_LEVEL 16      /* one level: forward pointer and span */
#define MEM64_CLIENT 768        /* client: its class in 7.0.15 (tot-mem) */
#define MEM64_MULTI_CMD 24      /* multiCmd: argv, argv_len, argc, cmd */
#define MEM64_LIST_NODE 24      /* adlist's listNode */
#define MEM64_LUA_SCRIPT 16     /* luaScript: flags and body */
#define MEM64_AE_FILE_EVENT 32  /* aeFileEvent */
#define MEM64_AE_FIRED_EVENT 8  /* aeFiredEvent */
#define MEM64_EPOLL_STATE 16    /* ae_epoll.c's aeApiState */
#define MEM64_EPOLL_EVENT 12    /* struct epoll_event (packed on x86-64) */

void memInit(gkMem *m, gkAllocFn fn, void *ud);
void memInitChild(gkMem *m, gkMem *parent);
size_t memTotalUsed(const gkMem *m);
size_t memClassSize(size_t size);
void *memTryAllocAs(gkMem *m, size_t size, size_t as);
void *memAllocAs(gkMem *m, size_t size, size_t as);
void *memCallocAs(gkMem *m, size_t size, size_t as);
void *memReallocAs(gkMem *m, void *ptr, size_t size, size_t as);
void *memAllocStatic(gkMem *m, size_t size);
void *memTryAlloc(gkMem *m, size_t size);
void *memTryCalloc(gkMem *m, size_t size);
void *memTryRealloc(gkMem *m, void *ptr, size_t size);
void *memAlloc(gkMem *m, size_t size);
void *memCalloc(gkMem *m, size_t size);
void *memRealloc(gkMem *m, void *ptr, size_t size);
void memFree(gkMem *m, void *ptr);
void memChargeNs(gkMem *m, uint64_t ns);
size_t memSize(const void *ptr);
size_t memBlockSize(const void *ptr);
void *memDefaultAlloc(void *ud, void *ptr, size_t osize, size_t nsize);
void memPanic(const char *what);

#endif
