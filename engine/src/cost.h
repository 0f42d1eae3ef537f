/* What the server's work costs, in virtual nanoseconds of its CPU.
 *
 * A command's time is the sum of the units of work it does, each charged
 * where it is done:
 *   - reading and dispatching it (outside its call, so outside INFO
 *     commandstats, as in Redis): server.h's cmd_cost_ns and its arguments'
 *     bytes, except the big ones Redis keeps as they were read;
 *   - its call: COST_CALL_NS;
 *   - each dict operation (dict.c): hashing the key, then the bucket, the
 *     entry and the key compared, which are random accesses;
 *   - each entry an iterator visits: the entry and its key, the buckets
 *     being read in memory order; a scan's cursor visits the buckets out
 *     of order, so there the bucket is a random access too;
 *   - each allocation (COST_ALLOC_NS) and each free (COST_FREE_NS), a free
 *     of a value counted from its shape when its last reference goes
 *     (freeObjectCost), on the thread that frees it; a block of 4 KB or
 *     more, a share of its slab's return to the arena (costFreeSlabNs);
 *   - each skiplist node a walk down the list passes (an insert's, a
 *     rank's, a range's first node), a random access into the nodes of
 *     its level (the top levels stay in the cache), paid in full, as one
 *     of a chain (COST_CHAIN), or at the L2's price when a walk to about
 *     the same place has just passed them (ZCOUNT's later walks);
 *   - each element a listpack search passes (COST_LP_FIND_NS, or
 *     COST_LP_NEXT_NS stepping with lpNext);
 *   - each reply item added to a client's buffer, and its bytes;
 *   - elements walked in memory order (listpacks, quicklist nodes, a
 *     skiplist's level 0): COST_SEQ_NS each.
 *
 * A random access costs what the memory level holding it costs, and which
 * level that is depends on how big the data is: below the L2 cache it is a
 * few nanoseconds, beyond the L3 cache a trip to DRAM. costMissNs takes the
 * server's used_memory as its working set and spreads its accesses evenly
 * over it: a share L2/W hits the L2, a share L3/W the L3, the rest DRAM.
 * That is why KEYS on a million keys costs more per key than on ten
 * thousand, and why ZUNIONSTORE's skiplist inserts grow faster than n log n
 * once the sets outgrow the cache. The constants were fitted to Debian's
 * redis-server 7.0 on an AMD EPYC virtual machine with 1 MB of L2 per core
 * and a 32 MB L3 shared with other machines, whose share behaves as about
 * 8 MB, and a DRAM access of about 140 ns with the walk of the page
 * table that a TLB of 2,048 entries needs past 8 MB (a skiplist's upper
 * levels, one node in 4 or 16 scattered over every page, walk sooner:
 * redis-server's ZUNIONSTORE takes 3 us a member at a million, three
 * times what it takes at 100k), and checked
 * against an Intel Xeon one with 2 MB of L2 and a 480 MB L3, where
 * redis-server runs most rows faster, by up to 3x (freeing a big set)
 * (tests/bench/costs.json keeps both tables; tests/bench/costs.mjs
 * measures the real server and the engine side by side). */
#ifndef GK_COST_H
#define GK_COST_H

#include <stddef.h>
#include <stdint.h>
#include "mem.h"

#define COST_CALL_NS 40         /* call() around the command, timed */
#define COST_CALL_AFTER_NS 125  /* and after its timing: stats, latency
                                   histogram, slow log, propagation */
#define COST_HASH_NS 18         /* SipHash of a short key */
#define COST_ALLOC_NS 18        /* one allocation (an allocator cache hit) */
#define COST_FREE_NS 35         /* one free of a block anywhere, and */
#define COST_FREE_NEAR_NS 10    /* of one beside the block freed before */
#define COST_REPLY_NS 13        /* one reply item into a client's buffer */
#define COST_REPLY_NS_PER_KB 80 /* and its bytes copied */
#define COST_SEQ_NS 8           /* one element walked in memory order */
#define COST_MOVE_NS_PER_KB 15  /* memmove within a block */
#define COST_FORMAT_NS 70       /* a number printed with snprintf */
#define COST_LARGE_NS 500       /* a block above jemalloc's small classes
                                   (14 KB): whole pages, an extent to find */
#define COST_BIO_WAKE_NS 13000  /* a job handed to a sleeping bio thread:
                                   the futex wake-up */
#define COST_BIO_QUEUE_NS 1000  /* one queued behind others: the lock
                                   the woken thread now contends for */
#define COST_CMP_NS 6           /* one comparison of two short values */
#define COST_LP_FIND_NS 3       /* one element a listpack search passes:
                                   its length decoded, a field compared;
                                   redis-server's HGET takes 0.46 to 0.52
                                   us in a listpack of 128 fields, 0.13 to
                                   0.15 in one of 16, 0.09 in a hashtable
                                   of 128 */
#define COST_LP_NEXT_NS 6       /* one element stepped over with lpNext,
                                   which also checks that the next lies
                                   within the listpack: ZRANK takes 0.90
                                   to 0.97 us in a listpack of 128 */
#define COST_MATCH_NS_PER_BYTE 2/* a glob pattern against a key */

/* The memory hierarchy a random access meets: the caches hold lines, and
 * the TLB maps pages; beyond its reach an access first walks the page
 * table (whose entries sit in the caches). */
#define COST_L2_BYTES (1u << 20)
#define COST_L3_BYTES (8u << 20)
#define COST_L2_NS 4
#define COST_L3_NS 40
#define COST_DRAM_NS 80
#define COST_PAGE_BYTES 4096u
#define COST_TLB_BYTES (8u << 20)  /* 2,048 entries of 4 KB pages */
#define COST_TLB_NS 60

/* A server's working set: what it added since startup, on top of what an
 * idle Redis holds. Not used_memory itself: the startup tables of the
 * engine built for WebAssembly (4-byte pointers) are not the same size,
 * and virtual time must be the same in both builds. */
#define COST_STARTUP_BYTES (876u << 10)
static inline size_t costWorkingSet(const gkMem *m) {
    if (!m->startup) return m->used;
    return (m->used > m->startup ? m->used - m->startup : 0) +
           COST_STARTUP_BYTES;
}

/* The cost of one random access to a line among those of a footprint of
 * lines bytes, which lie on pages bytes of pages: a share L2/lines hits
 * the L2, a share L3/lines the L3, the rest goes to DRAM; and the share
 * of the pages beyond the TLB's reach walks the page table first. */
static inline uint64_t costAccessNs(size_t lines, size_t pages) {
    /* in units of 1/1024 of the accesses */
    uint64_t kb = (uint64_t)(lines >> 10) + 1;
    uint64_t l2 = COST_L2_BYTES >> 10, l3 = COST_L3_BYTES >> 10;
    uint64_t in_l2 = kb <= l2 ? 1024 : l2 * 1024 / kb;
    uint64_t in_l3 = (kb <= l3 ? 1024 : l3 * 1024 / kb) - in_l2;
    uint64_t in_dram = 1024 - in_l2 - in_l3;
    uint64_t pkb = (uint64_t)(pages >> 10) + 1, reach = COST_TLB_BYTES >> 10;
    uint64_t walks = pkb <= reach ? 0 : 1024 - reach * 1024 / pkb;
    return (in_l2 * COST_L2_NS + in_l3 * COST_L3_NS + in_dram * COST_DRAM_NS +
            walks * COST_TLB_NS + 512) / 1024;
}

/* A random access into a working set of w bytes, packed: its lines and
 * its pages are the same bytes. */
static inline uint64_t costMissNs(size_t w) {
    return costAccessNs(w, w);
}

/* A random access to one of n objects of size bytes each, scattered one
 * to a page or more among total bytes of memory (the nodes of a
 * skiplist's upper levels, a random quarter, a sixteenth... of all):
 * their lines fit the caches sooner than their pages fit the TLB. */
static inline uint64_t costScatteredNs(size_t n, size_t size, size_t total) {
    size_t pages = n < total / COST_PAGE_BYTES ? n * COST_PAGE_BYTES : total;
    return costAccessNs(n * size, pages);
}

/* A chain of accesses, each to an address read by the one before (the
 * nodes a skiplist walk passes), has one in flight at a time: each pays
 * its level's whole latency. The constants above are what loops over
 * independent entries pay per access, with several in flight at once;
 * a chain pays COST_CHAIN times as much. A pointer chase over 96 MB of
 * 4 KB pages on the second machine takes 214 ns a load (32 MB: 184;
 * 256 MB: 247), where costMissNs charges 131 (114; 137). The factor is
 * fitted to ZUNIONSTORE's inserts at a million members on both machines
 * (3.2 and 3.4 s; 3.2 charged); ZRANK, whose walk is alone, took 2.75
 * to 4.69 us at a million in six runs here (3.75 charged). */
#define COST_CHAIN 2

/* What a command's own work (its client, its arguments, the dict buckets
 * and entries it reads, its code: about COST_CMD_LINES lines in all) pays
 * more after a request of b bytes: read() has just copied those bytes
 * through the caches, and each line of the command's that they pushed out
 * is met one level further away: a share b/L2 of them in the L3 instead
 * of the L2, a share b/L3 in DRAM instead of the L3. Redis keeps a big
 * argument as the buffer it was read into, so SET of a 1 MB value copies
 * nothing, yet takes 4.4 and 4.7 us in redis-server on the two machines
 * of tests/bench/costs.json (ten SETs from costs.mjs), against 0.3 for a
 * small SET among many, spread over lookupKey, dictFind, touchWatchedKey
 * and the like (perf), each a few nanoseconds after a small request.
 * COST_CMD_LINES is fitted to that row. One SET at a time, each after
 * its round trip, from a Python client on the second machine: 0.9 us
 * for 100 bytes, 2.7 for 256 KB, 3.1 for 1 MB, 4.1 for 2 MB, 7.5 for
 * 16 MB: the charge's shape, within a factor of two. */
#define COST_CMD_LINES 95
static inline uint64_t costDisplacedNs(size_t b) {
    uint64_t kb = b >> 10;
    uint64_t l2 = COST_L2_BYTES >> 10, l3 = COST_L3_BYTES >> 10;
    uint64_t out_l2 = kb >= l2 ? 1024 : kb * 1024 / l2;
    uint64_t out_l3 = kb >= l3 ? 1024 : kb * 1024 / l3;
    return COST_CMD_LINES * (out_l2 * (COST_L3_NS - COST_L2_NS) +
                             out_l3 * (COST_DRAM_NS - COST_L3_NS)) / 1024;
}

/* jemalloc keeps the blocks of a class from 4 KB up in slabs of a few
 * pages each, lcm(class, page) bytes: one block in a slab for a class
 * that is a whole number of pages (8 KB), two for 6 KB, four for 5 KB.
 * A free that empties its slab hands the slab back to its arena. Spread
 * over the blocks of a slab, that is COST_FREE_SLAB_NS / blocks each.
 * redis-server frees a list of 12,500 nodes of 8 KB in 1.1 to 1.5 ms
 * and one of 12,500 nodes of 130 bytes in 0.28 to 0.36: about 75 ns
 * more a node; one of 6,250 nodes of 6 KB in 0.38 to 0.43, about 40
 * more a node than small ones. */
#define COST_FREE_SLAB_NS 110
static inline uint64_t costFreeSlabNs(size_t class) {
    if (class < COST_PAGE_BYTES || class > MEM_SMALL_MAX) return 0;
    size_t a = class, b = COST_PAGE_BYTES;
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return COST_FREE_SLAB_NS * a / COST_PAGE_BYTES;    /* / (page / gcd) */
}

/* A free of a block anywhere in a working set of w bytes: the block is
 * read first (a pointer in it, an sds header, a refcount). */
static inline uint64_t costFreeFarNs(size_t w) {
    return COST_FREE_NS + costMissNs(w);
}

#endif
