/* mem.c -- see mem.h. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "mem.h"

/* Each block carries its size in a 16-byte header, so the payload stays
 * aligned for any scalar type (16 bytes also suits long double). */
#define MEM_PREFIX 16

/* Sets up an accounting allocator over fn (libc when NULL); ud is passed to
 * every call of fn. Counters start at zero. Nothing is allocated. */
void memInit(gkMem *m, gkAllocFn fn, void *ud) {
    m->fn = fn ? fn : memDefaultAlloc;
    m->ud = ud;
    m->used = m->peak = m->failures = 0;
}

/* The allocator used when the host passes none: plain libc. */
void *memDefaultAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)osize;
    if (nsize == 0) { free(ptr); return NULL; }
    if (ptr == NULL) return malloc(nsize);
    return realloc(ptr, nsize);
}

static void _memAccount(gkMem *m, size_t add, size_t sub) {
    m->used += add;
    m->used -= sub;
    if (m->used > m->peak) m->peak = m->used;
}

/* Returns NULL, and changes nothing, when the host refuses or the size would
 * overflow. */
void *memTryAlloc(gkMem *m, size_t size) {
    if (size > (size_t)-1 - MEM_PREFIX) return NULL;
    char *p = m->fn(m->ud, NULL, 0, size + MEM_PREFIX);
    if (!p) { m->failures++; return NULL; }
    *(size_t *)p = size;
    _memAccount(m, size + MEM_PREFIX, 0);
    return p + MEM_PREFIX;
}

/* As memTryAlloc, with the block zeroed. */
void *memTryCalloc(gkMem *m, size_t size) {
    void *p = memTryAlloc(m, size);
    if (p) memset(p, 0, size);
    return p;
}

/* On failure returns NULL and leaves ptr valid and unchanged. */
void *memTryRealloc(gkMem *m, void *ptr, size_t size) {
    if (!ptr) return memTryAlloc(m, size);
    if (size > (size_t)-1 - MEM_PREFIX) return NULL;
    char *old = (char *)ptr - MEM_PREFIX;
    size_t osize = *(size_t *)old;
    char *p = m->fn(m->ud, old, osize + MEM_PREFIX, size + MEM_PREFIX);
    if (!p) { m->failures++; return NULL; }
    *(size_t *)p = size;
    _memAccount(m, size + MEM_PREFIX, osize + MEM_PREFIX);
    return p + MEM_PREFIX;
}

/* The engine checks its heap limit before running memory-growing commands,
 * so the non-Try variants fail only if the host runs out below that limit.
 * There is no sane way to continue from inside a half-done data structure
 * update, so they stop the engine, as zmalloc's out-of-memory handler does. */
void memPanic(const char *what) {
    fprintf(stderr, "glasskv: fatal: %s\n", what);
    abort();
}

/* memAlloc, memCalloc and memRealloc are memTry* that never return NULL:
 * see memPanic above. The block is the caller's, freed with memFree on the
 * same m. */
void *memAlloc(gkMem *m, size_t size) {
    void *p = memTryAlloc(m, size);
    if (!p) memPanic("out of memory");
    return p;
}

/* See memAlloc. */
void *memCalloc(gkMem *m, size_t size) {
    void *p = memTryCalloc(m, size);
    if (!p) memPanic("out of memory");
    return p;
}

/* See memAlloc. ptr (which may be NULL) is dead once this returns. */
void *memRealloc(gkMem *m, void *ptr, size_t size) {
    void *p = memTryRealloc(m, ptr, size);
    if (!p) memPanic("out of memory");
    return p;
}

/* Frees a block from this m's alloc functions and takes it off the count;
 * NULL is a no-op. */
void memFree(gkMem *m, void *ptr) {
    if (!ptr) return;
    char *old = (char *)ptr - MEM_PREFIX;
    size_t osize = *(size_t *)old;
    _memAccount(m, 0, osize + MEM_PREFIX);
    m->fn(m->ud, old, osize + MEM_PREFIX, 0);
}

/* The size asked for when ptr (not NULL, from mem*Alloc) was allocated,
 * without the 16-byte prefix that the used counter includes. */
size_t memSize(const void *ptr) {
    return *(const size_t *)((const char *)ptr - MEM_PREFIX);
}

/* The bytes ptr (not NULL, from mem*Alloc) counts for in used: its size
 * plus the 16-byte prefix. This is what Redis's zmalloc_size reports when
 * the allocator keeps no sizes of its own (zmalloc's PREFIX_SIZE), and
 * what MEMORY USAGE adds up. */
size_t memBlockSize(const void *ptr) {
    return memSize(ptr) + MEM_PREFIX;
}
