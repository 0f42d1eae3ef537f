/* mem.h -- memory accounting over the host's allocator.
 *
 * Every allocation in the engine goes through a gkMem, which forwards to the
 * allocator the host gave gkWorldCreate and counts the bytes in use, as
 * Redis's zmalloc counts used_memory. A small header before each block keeps
 * its size, so memFree needs no size from the caller. */
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
} gkMem;

void memInit(gkMem *m, gkAllocFn fn, void *ud);
void *memTryAlloc(gkMem *m, size_t size);
void *memTryCalloc(gkMem *m, size_t size);
void *memTryRealloc(gkMem *m, void *ptr, size_t size);
void *memAlloc(gkMem *m, size_t size);
void *memCalloc(gkMem *m, size_t size);
void *memRealloc(gkMem *m, void *ptr, size_t size);
void memFree(gkMem *m, void *ptr);
size_t memSize(const void *ptr);
size_t memBlockSize(const void *ptr);
void *memDefaultAlloc(void *ud, void *ptr, size_t osize, size_t nsize);
void memPanic(const char *what);

#endif
