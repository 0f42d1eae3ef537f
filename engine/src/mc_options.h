/* mc_options.h -- memcached 1.6.18's settings and its command-line
 * options, parsed and checked as memcached's main() does, with the same
 * messages for bad values. */
#ifndef GK_MC_OPTIONS_H
#define GK_MC_OPTIONS_H

#include <stdint.h>
#include <stddef.h>
#include "mc_slabs.h"

#define MC_PROT_ASCII 0
#define MC_PROT_AUTO 2

/* The settings `stats settings` prints (memcached's struct settings). */
typedef struct mcSettings {
    uint64_t maxbytes;          /* -m, in bytes */
    int32_t maxconns;           /* -c */
    int32_t port, udpport;      /* -p, -U: shown, never bound */
    char inter[128];            /* -l, "" when not given */
    int32_t verbose;            /* -v, and the verbosity command */
    uint32_t oldest_live;       /* flush_all's cutoff, mirrored here */
    int evict_to_free;          /* -M clears it */
    char socketpath[128];       /* -s, "" when not given */
    int32_t access;             /* -a */
    int shutdown_command;       /* -A */
    double factor;              /* -f */
    int32_t chunk_size;         /* -n */
    int32_t num_threads;        /* -t: shown only; the node has none */
    int32_t num_threads_per_udp;
    char prefix_delimiter;      /* -D */
    int detail_enabled;
    int32_t reqs_per_event;     /* -R: commands per read event */
    int use_cas;                /* -C clears it */
    int32_t backlog;            /* -b */
    int binding_protocol;       /* -B: MC_PROT_* */
    int32_t item_size_max;      /* -I */
    uint32_t slab_page_size;    /* 1 MB */
    int32_t slab_chunk_size_max;/* -o slab_chunk_max */
    int maxconns_fast;
    int32_t hashpower_init;     /* -o hashpower */
    int slab_reassign;
    int32_t slab_automove;
    double slab_automove_ratio;
    uint32_t slab_automove_window;
    int lru_crawler;
    int32_t lru_crawler_sleep;
    uint32_t lru_crawler_tocrawl;
    int32_t tail_repair_time;
    int flush_enabled;          /* -F clears it */
    int dump_enabled;           /* -X clears it */
    int watch_enabled;          /* -W clears it */
    const char *hash_algorithm;
    int lru_maintainer_thread;  /* always 0 here: see mc_items.c */
    int lru_segmented;          /* always 0 here */
    int32_t hot_lru_pct, warm_lru_pct;
    double hot_max_factor, warm_max_factor;
    int temp_lru;
    uint32_t temporary_ttl;
    int32_t idle_timeout;
    uint32_t logger_watcher_buf_size, logger_buf_size;
    uint32_t read_buf_mem_limit;
    int track_sizes;            /* -o track_sizes */
    int use_slab_sizes;         /* -o slab_sizes was given */
    uint32_t slab_sizes[MC_MAX_CLASSES]; /* its sizes, 0-terminated */
} mcSettings;

void mcSettingsInit(mcSettings *s);
int mcSafeStrtol(const char *s, int32_t *out);
int mcSafeStrtoul(const char *s, uint32_t *out);
int mcSafeStrtoull(const char *s, uint64_t *out);
int mcOptionsParse(mcSettings *s, const char *options, char *err,
                   size_t errcap);

#endif
