/* mem.c -- see mem.h. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "mem.h"

/* Each block carries a 16-byte header, so the payload stays aligned for
 * any scalar type (16 bytes also suits long double): the size asked for,
 * which the host's allocator is told, and the size charged to used. */
#define MEM_PREFIX 16

typedef struct memHeader {
    size_t size;        /* bytes asked for */
    size_t charged;     /* what used counts for the block */
} memHeader;

#define MEM_HDR(ptr) ((memHeader *)((char *)(ptr) - MEM_PREFIX))

/* Sets up an accounting allocator over fn (libc when NULL); ud is passed to
 * every call of fn. Counters start at zero. Nothing is allocated. */
void memInit(gkMem *m, gkAllocFn fn, void *ud) {
    m->fn = fn ? fn : memDefaultAlloc;
    m->ud = ud;
    m->used = m->peak = m->failures = 0;
    m->parent = NULL;
    m->cpu_ns = NULL;
    m->quiet = NULL;
    m->alloc_ns = m->large_ns = 0;
    m->startup = 0;
}

/* Sets up m as an account within parent: the same allocator, its own
 * counters (a server's used_memory), and every change to them made to
 * parent's too (the world's total), and so on up. */
void memInitChild(gkMem *m, gkMem *parent) {
    memInit(m, parent->fn, parent->ud);
    m->parent = parent;
}

/* The bytes in use in the outermost account m belongs to. */
size_t memTotalUsed(const gkMem *m) {
    while (m->parent) m = m->parent;
    return m->used;
}

/* The allocator used when the host passes none: plain libc. */
void *memDefaultAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)osize;
    if (nsize == 0) { free(ptr); return NULL; }
    if (ptr == NULL) return malloc(nsize);
    return realloc(ptr, nsize);
}

/* A block must be freed on the account it was allocated on; were one
 * freed on another, the count stops at 0 rather than wrap around. */
static void _memAccount(gkMem *m, size_t add, size_t sub) {
    for (; m; m = m->parent) {
        m->used += add;
        m->used -= sub < m->used ? sub : m->used;
        if (m->used > m->peak) m->peak = m->used;
    }
}

/* Charges the owning server's CPU ns for work on a block (cost.h). */
void memChargeNs(gkMem *m, uint64_t ns) {
    if (m->cpu_ns && !(m->quiet && *m->quiet)) *m->cpu_ns += ns;
}

/* The CPU an allocation of a block of class bytes costs the server that
 * owns the account: more for one beyond jemalloc's small classes. */
static void _memCharge(gkMem *m, size_t class) {
    if (m->cpu_ns && !(m->quiet && *m->quiet))
        *m->cpu_ns += m->alloc_ns + (class > MEM_SMALL_MAX ? m->large_ns : 0);
}

/* The usable size jemalloc 5 gives a request of size bytes on x86-64,
 * which is what Redis adds to used_memory. Its size classes: 8, then
 * steps of 16 up to 128, then four classes to each doubling, evenly
 * spaced (160 192 224 256, 320 384 448 512, ...). The small classes end at
 * 14336; the large ones go on by the same rule (16384 20480 24576 28672
 * 32768 40960 ...), so one rule serves every size. */
size_t memClassSize(size_t size) {
    if (size <= 8) return 8;
    if (size <= 128) return (size + 15) & ~(size_t)15;
    if (size > (size_t)-1 / 2) return size;
    int lg = 63 - __builtin_clzll((unsigned long long)(size - 1));
    size_t step = (size_t)1 << (lg - 2);
    return (size + step - 1) & ~(step - 1);
}

/* Allocates size bytes and charges used the size class of as bytes: the
 * size the block would have in Redis on a 64-bit machine (see mem.h).
 * Returns NULL, and changes nothing, when the host refuses or the size
 * would overflow. */
void *memTryAllocAs(gkMem *m, size_t size, size_t as) {
    if (size > (size_t)-1 - MEM_PREFIX) return NULL;
    char *p = m->fn(m->ud, NULL, 0, size + MEM_PREFIX);
    if (!p) { m->failures++; return NULL; }
    memHeader *h = (memHeader *)p;
    h->size = size;
    h->charged = memClassSize(as);
    _memAccount(m, h->charged, 0);
    _memCharge(m, h->charged);
    return p + MEM_PREFIX;
}

/* A block for what Redis keeps in static data, outside its heap: not
 * counted in used (it is charged nothing), freed with memFree. */
void *memAllocStatic(gkMem *m, size_t size) {
    void *p = memAllocAs(m, size, 0);
    _memAccount(m, 0, MEM_HDR(p)->charged);
    MEM_HDR(p)->charged = 0;
    return p;
}

/* A block of size bytes holding no pointers: charged its own size class. */
void *memTryAlloc(gkMem *m, size_t size) {
    return memTryAllocAs(m, size, size);
}

/* As memTryAlloc, with the block zeroed. */
void *memTryCalloc(gkMem *m, size_t size) {
    void *p = memTryAlloc(m, size);
    if (p) memset(p, 0, size);
    return p;
}

/* Resizes ptr to size bytes, charged as as bytes (see memTryAllocAs). On
 * failure returns NULL and leaves ptr valid and unchanged. */
static void *_memTryReallocAs(gkMem *m, void *ptr, size_t size, size_t as) {
    if (!ptr) return memTryAllocAs(m, size, as);
    if (size > (size_t)-1 - MEM_PREFIX) return NULL;
    memHeader old = *MEM_HDR(ptr);
    char *p = m->fn(m->ud, MEM_HDR(ptr), old.size + MEM_PREFIX,
                    size + MEM_PREFIX);
    if (!p) { m->failures++; return NULL; }
    memHeader *h = (memHeader *)p;
    h->size = size;
    h->charged = memClassSize(as);
    _memAccount(m, h->charged, old.charged);
    if (h->charged != old.charged) _memCharge(m, h->charged);
    return p + MEM_PREFIX;
}

/* On failure returns NULL and leaves ptr valid and unchanged. */
void *memTryRealloc(gkMem *m, void *ptr, size_t size) {
    return _memTryReallocAs(m, ptr, size, size);
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

/* memAllocAs, memCallocAs and memReallocAs: memTryAllocAs and its kin that
 * never return NULL (see memAlloc), for blocks whose size depends on the
 * width of a pointer; as is their size in Redis on a 64-bit machine. */
void *memAllocAs(gkMem *m, size_t size, size_t as) {
    void *p = memTryAllocAs(m, size, as);
    if (!p) memPanic("out of memory");
    return p;
}

/* See memAllocAs; the block is zeroed. */
void *memCallocAs(gkMem *m, size_t size, size_t as) {
    void *p = memAllocAs(m, size, as);
    memset(p, 0, size);
    return p;
}

/* See memAllocAs. ptr (which may be NULL) is dead once this returns. */
void *memReallocAs(gkMem *m, void *ptr, size_t size, size_t as) {
    void *p = _memTryReallocAs(m, ptr, size, as);
    if (!p) memPanic("out of memory");
    return p;
}

/* Frees a block from this m's alloc functions and takes it off the count;
 * NULL is a no-op. */
void memFree(gkMem *m, void *ptr) {
    if (!ptr) return;
    memHeader *h = MEM_HDR(ptr);
    _memAccount(m, 0, h->charged);
    m->fn(m->ud, h, h->size + MEM_PREFIX, 0);
}

/* The size asked for when ptr (not NULL, from mem*Alloc) was allocated. */
size_t memSize(const void *ptr) {
    return MEM_HDR(ptr)->size;
}

/* The bytes ptr (not NULL, from mem*Alloc) counts for in used: jemalloc's
 * usable size of the block it stands for, what Redis's zmalloc_size
 * reports and MEMORY USAGE adds up. */
size_t memBlockSize(const void *ptr) {
    return MEM_HDR(ptr)->charged;
}
