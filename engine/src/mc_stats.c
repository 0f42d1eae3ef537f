/* mc_stats.c -- memcached 1.6.18's stats commands: `stats`, `stats
 * settings`, `stats slabs`, `stats items`, `stats sizes`, `stats
 * cachedump`, `stats detail` and `stats reset`, line for line in the order
 * Debian's memcached 1.6.18 prints them (it is built with extstore and
 * TLS, so their settings appear too).
 *
 * A few numbers describe the process rather than the cache, and here they
 * are made deterministic:
 *   pid            drawn from the world's PRNG when the node is created;
 *   uptime, time   from the world's virtual clock: uptime counts virtual
 *                  seconds since the node started (+2, as memcached's
 *                  does), time is the world's Unix time (its start time
 *                  from the configuration, plus virtual time);
 *   rusage_*       0.000000: the node spends no virtual CPU time;
 *   connection and buffer counts describe the node's own connections,
 *                  with one listening socket, and one 16 KB read buffer
 *                  and one response object per request in flight;
 *   reserved_fds   5 per (nominal) worker thread, as memcached reserves. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "mc_server.h"

/* Appends "STAT name value\r\n" ("STAT name\r\n" for an empty value). */
static void _stat(mcConn *c, const char *name, const char *fmt, ...) {
    char val[128], line[320];
    va_list ap;
    va_start(ap, fmt);
    int vlen = vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    int n = vlen > 0 ? snprintf(line, sizeof(line), "STAT %s %s\r\n", name,
                                val)
                     : snprintf(line, sizeof(line), "STAT %s\r\n", name);
    mcConnOut(c, line, (size_t)n);
}

static void _end(mcConn *c) { mcConnOut(c, "END\r\n", 5); }

static const char *_yesno(int b) { return b ? "yes" : "no"; }

/* A counter line: its name after the block's prefix, and its value. */
typedef struct statRow {
    const char *f;
    unsigned long long v;
} statRow;

/* Appends "STAT <prefix><f> <v>" for each row: the printer of `stats`'
 * counters and of every per-class block of `stats slabs` and `stats
 * items` ("3:" or "items:3:" as the prefix). */
static void _statRows(mcConn *c, const char *prefix, const statRow *rows,
                      size_t n) {
    char name[96];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "%s%s", prefix, rows[i].f);
        _stat(c, name, "%llu", rows[i].v);
    }
}

#define ROWS(r) (r), sizeof(r) / sizeof((r)[0])

/* The sum over every class of one uint64_t field at offset `off` of an
 * array of MC_MAX_CLASSES per-class structs of `stride` bytes. The totals
 * of `stats` are such sums (memcached's threadlocal_stats_aggregate and
 * item_stats_totals). */
static unsigned long long _classSum(const void *arr, size_t stride,
                                    size_t off) {
    const char *p = arr;
    uint64_t sum = 0, v;
    for (size_t i = 0; i < MC_MAX_CLASSES; i++) {
        memcpy(&v, p + i * stride + off, sizeof(v));
        sum += v;
    }
    return sum;
}

#define SLAB_SUM(k, field) _classSum((k)->slab_stats, sizeof(mcSlabStats), \
                                     offsetof(mcSlabStats, field))
#define ITEM_SUM(k, field) _classSum((k)->itemstats, sizeof(mcItemStats), \
                                     offsetof(mcItemStats, field))

/* ---- stats ---- */

/* The process and connection lines of server_stats. */
static void _serverProcess(mcConn *c) {
    mcServer *s = c->srv;
    uint32_t now = s->cache.current_time;
    _stat(c, "pid", "%lu", (unsigned long)s->pid);
    _stat(c, "uptime", "%u", now - MC_ITEM_UPDATE_INTERVAL);
    _stat(c, "time", "%lld", (long long)now + s->cache.process_started);
    _stat(c, "version", "%s", MC_VERSION);
    _stat(c, "libevent", "%s", MC_LIBEVENT_VERSION);
    _stat(c, "pointer_size", "%d", 64);
    _stat(c, "rusage_user", "%ld.%06ld", 0L, 0L);
    _stat(c, "rusage_system", "%ld.%06ld", 0L, 0L);
    _stat(c, "max_connections", "%d", s->settings.maxconns);
    _stat(c, "curr_connections", "%llu", (unsigned long long)s->curr_conns);
    _stat(c, "total_connections", "%llu",
          (unsigned long long)s->total_conns);
    if (s->settings.maxconns_fast) _stat(c, "rejected_connections", "0");
    _stat(c, "connection_structures", "%u", (unsigned)s->conn_structs);
    _stat(c, "response_obj_oom", "0");
    _stat(c, "response_obj_count", "1");
    _stat(c, "response_obj_bytes", "16384");
    _stat(c, "read_buf_count", "%llu", (unsigned long long)s->curr_conns);
    _stat(c, "read_buf_bytes", "%llu",
          (unsigned long long)s->curr_conns * MC_READ_BUFFER_SIZE);
    _stat(c, "read_buf_bytes_free", "0");
    _stat(c, "read_buf_oom", "0");
    _stat(c, "reserved_fds", "%d", 5 * s->settings.num_threads);
}

/* The command counters of server_stats. */
static void _serverCommands(mcConn *c) {
    const mcCache *k = &c->srv->cache;
    const mcThreadStats *ts = &k->ts;
    const statRow rows[] = {
        {"cmd_get", ts->get_cmds}, {"cmd_set", SLAB_SUM(k, set_cmds)},
        {"cmd_flush", ts->flush_cmds}, {"cmd_touch", ts->touch_cmds},
        {"cmd_meta", ts->meta_cmds}, {"get_hits", SLAB_SUM(k, get_hits)},
        {"get_misses", ts->get_misses}, {"get_expired", ts->get_expired},
        {"get_flushed", ts->get_flushed},
        {"delete_misses", ts->delete_misses},
        {"delete_hits", SLAB_SUM(k, delete_hits)},
        {"incr_misses", ts->incr_misses},
        {"incr_hits", SLAB_SUM(k, incr_hits)},
        {"decr_misses", ts->decr_misses},
        {"decr_hits", SLAB_SUM(k, decr_hits)},
        {"cas_misses", ts->cas_misses}, {"cas_hits", SLAB_SUM(k, cas_hits)},
        {"cas_badval", SLAB_SUM(k, cas_badval)},
        {"touch_hits", SLAB_SUM(k, touch_hits)},
        {"touch_misses", ts->touch_misses},
        {"store_too_large", ts->store_too_large},
        {"store_no_memory", ts->store_no_memory},
        {"auth_cmds", ts->auth_cmds}, {"auth_errors", ts->auth_errors},
    };
    const statRow bytes[] = {
        {"bytes_read", ts->bytes_read}, {"bytes_written", ts->bytes_written},
    };
    _statRows(c, "", ROWS(rows));
    if (c->srv->settings.idle_timeout) _stat(c, "idle_kicks", "0");
    _statRows(c, "", ROWS(bytes));
}

/* The memory, thread, hash and background-task lines of server_stats.
 * The background tasks never run here, so their counters stay 0. */
static void _serverInternals(mcConn *c) {
    mcServer *s = c->srv;
    static const char *const reassign[] = {
        "slab_reassign_rescues", "slab_reassign_chunk_rescues",
        "slab_reassign_evictions_nomem", "slab_reassign_inline_reclaim",
        "slab_reassign_busy_items", "slab_reassign_busy_deletes",
        "slab_reassign_running", "slabs_moved"
    };
    static const char *const logs[] = {
        "malloc_fails", "log_worker_dropped", "log_worker_written",
        "log_watcher_skipped", "log_watcher_sent", "log_watchers"
    };
    _stat(c, "limit_maxbytes", "%llu",
          (unsigned long long)s->settings.maxbytes);
    _stat(c, "accepting_conns", "1");
    _stat(c, "listen_disabled_num", "0");
    _stat(c, "time_in_listen_disabled_us", "0");
    _stat(c, "threads", "%d", s->settings.num_threads);
    _stat(c, "conn_yields", "%llu",
          (unsigned long long)s->cache.ts.conn_yields);
    _stat(c, "hash_power_level", "%u", s->cache.assoc.hashpower);
    _stat(c, "hash_bytes", "%llu",
          (unsigned long long)8 << s->cache.assoc.hashpower);
    _stat(c, "hash_is_expanding", "0");
    if (s->settings.slab_reassign)
        for (size_t i = 0; i < sizeof(reassign) / sizeof(*reassign); i++)
            _stat(c, reassign[i], "0");
    if (s->settings.lru_crawler) {
        _stat(c, "lru_crawler_running", "0");
        _stat(c, "lru_crawler_starts", "0");
    }
    for (size_t i = 0; i < sizeof(logs) / sizeof(*logs); i++)
        _stat(c, logs[i], "0");
    _stat(c, "unexpected_napi_ids", "0");
    _stat(c, "round_robin_fallback", "0");
}

/* get_stats(NULL): the cache's totals. */
static void _cacheTotals(mcConn *c) {
    const mcCache *k = &c->srv->cache;
    const statRow rows[] = {
        {"bytes", k->curr_bytes}, {"curr_items", k->curr_items},
        {"total_items", k->total_items},
        {"slab_global_page_pool", k->slabs.cls[MC_GLOBAL_PAGE_POOL].slabs},
        {"expired_unfetched", ITEM_SUM(k, expired_unfetched)},
        {"evicted_unfetched", ITEM_SUM(k, evicted_unfetched)},
        {"evictions", ITEM_SUM(k, evicted)},
        {"reclaimed", ITEM_SUM(k, reclaimed)},
        {"crawler_reclaimed", ITEM_SUM(k, crawler_reclaimed)},
        {"crawler_items_checked", ITEM_SUM(k, crawler_items_checked)},
        {"lrutail_reflocked", ITEM_SUM(k, lrutail_reflocked)},
    };
    _statRows(c, "", ROWS(rows));
}

/* ---- stats settings ---- */

/* The settings before the item size. */
static void _settingsFirst(mcConn *c, const mcSettings *s) {
    _stat(c, "maxbytes", "%llu", (unsigned long long)s->maxbytes);
    _stat(c, "maxconns", "%d", s->maxconns);
    _stat(c, "tcpport", "%d", s->port);
    _stat(c, "udpport", "%d", s->udpport);
    _stat(c, "inter", "%s", *s->inter ? s->inter : "NULL");
    _stat(c, "verbosity", "%d", s->verbose);
    _stat(c, "oldest", "%lu", (unsigned long)s->oldest_live);
    _stat(c, "evictions", "%s", s->evict_to_free ? "on" : "off");
    _stat(c, "domain_socket", "%s", *s->socketpath ? s->socketpath : "NULL");
    _stat(c, "umask", "%o", (unsigned)s->access);
    _stat(c, "shutdown_command", "%s", _yesno(s->shutdown_command));
    _stat(c, "growth_factor", "%.2f", s->factor);
    _stat(c, "chunk_size", "%d", s->chunk_size);
    _stat(c, "num_threads", "%d", s->num_threads);
    _stat(c, "num_threads_per_udp", "%d", s->num_threads_per_udp);
    _stat(c, "stat_key_prefix", "%c", s->prefix_delimiter);
    _stat(c, "detail_enabled", "%s", _yesno(s->detail_enabled));
    _stat(c, "reqs_per_event", "%d", s->reqs_per_event);
    _stat(c, "cas_enabled", "%s", _yesno(s->use_cas));
    _stat(c, "tcp_backlog", "%d", s->backlog);
    _stat(c, "binding_protocol", "%s", s->binding_protocol == MC_PROT_ASCII
                                       ? "ascii" : "auto-negotiate");
    _stat(c, "auth_enabled_sasl", "no");
    _stat(c, "auth_enabled_ascii", "no");
}

/* The slab, LRU and logging settings. */
static void _settingsMiddle(mcConn *c, const mcSettings *s) {
    _stat(c, "item_size_max", "%d", s->item_size_max);
    _stat(c, "maxconns_fast", "%s", _yesno(s->maxconns_fast));
    _stat(c, "hashpower_init", "%d", s->hashpower_init);
    _stat(c, "slab_reassign", "%s", _yesno(s->slab_reassign));
    _stat(c, "slab_automove", "%d", s->slab_automove);
    _stat(c, "slab_automove_ratio", "%.2f", s->slab_automove_ratio);
    _stat(c, "slab_automove_window", "%u", s->slab_automove_window);
    _stat(c, "slab_chunk_max", "%d", s->slab_chunk_size_max);
    _stat(c, "lru_crawler", "%s", _yesno(s->lru_crawler));
    _stat(c, "lru_crawler_sleep", "%d", s->lru_crawler_sleep);
    _stat(c, "lru_crawler_tocrawl", "%lu",
          (unsigned long)s->lru_crawler_tocrawl);
    _stat(c, "tail_repair_time", "%d", s->tail_repair_time);
    _stat(c, "flush_enabled", "%s", _yesno(s->flush_enabled));
    _stat(c, "dump_enabled", "%s", _yesno(s->dump_enabled));
    _stat(c, "hash_algorithm", "%s", s->hash_algorithm);
    _stat(c, "lru_maintainer_thread", "%s", _yesno(s->lru_maintainer_thread));
    _stat(c, "lru_segmented", "%s", _yesno(s->lru_segmented));
    _stat(c, "hot_lru_pct", "%d", s->hot_lru_pct);
    _stat(c, "warm_lru_pct", "%d", s->warm_lru_pct);
    _stat(c, "hot_max_factor", "%.2f", s->hot_max_factor);
    _stat(c, "warm_max_factor", "%.2f", s->warm_max_factor);
    _stat(c, "temp_lru", "%s", _yesno(s->temp_lru));
    _stat(c, "temporary_ttl", "%u", s->temporary_ttl);
    _stat(c, "idle_timeout", "%d", s->idle_timeout);
    _stat(c, "watcher_logbuf_size", "%u", s->logger_watcher_buf_size);
    _stat(c, "worker_logbuf_size", "%u", s->logger_buf_size);
    _stat(c, "read_buf_mem_limit", "%u", s->read_buf_mem_limit);
    _stat(c, "track_sizes", "%s", _yesno(c->srv->cache.sizes_hist != NULL));
    _stat(c, "inline_ascii_response", "no");
}

/* The extstore and TLS settings Debian's build prints, at their
 * defaults since neither can be enabled here. */
static void _settingsLast(mcConn *c) {
    static const char *const rows[][2] = {
        {"ext_item_size", "512"}, {"ext_item_age", "4294967295"},
        {"ext_low_ttl", "0"}, {"ext_recache_rate", "2000"},
        {"ext_wbuf_size", "4194304"}, {"ext_compact_under", "0"},
        {"ext_drop_under", "0"}, {"ext_max_sleep", "1000000"},
        {"ext_max_frag", "0.80"}, {"slab_automove_freeratio", "0.010"},
        {"ext_drop_unread", "no"}, {"ssl_enabled", "no"},
        {"ssl_chain_cert", "(null)"}, {"ssl_key", "(null)"},
        {"ssl_verify_mode", "0"}, {"ssl_keyformat", "1"},
        {"ssl_ciphers", "NULL"}, {"ssl_ca_cert", "NULL"},
        {"ssl_wbuf_size", "16384"}, {"ssl_session_cache", "no"},
        {"ssl_kernel_tls", "no"}, {"ssl_min_version", "tlsv1.2"},
        {"num_napi_ids", "(null)"}, {"memory_file", "(null)"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        _stat(c, rows[i][0], "%s", rows[i][1]);
}

/* ---- stats slabs, stats items ---- */

/* do_slabs_stats: one block per class that has pages. */
static void _slabsStats(mcConn *c) {
    mcCache *k = &c->srv->cache;
    int total = 0;
    for (int i = MC_POWER_SMALLEST; i <= k->slabs.power_largest; i++) {
        const mcSlabClass *p = &k->slabs.cls[i];
        const mcSlabStats *ss = &k->slab_stats[i];
        if (p->slabs == 0) continue;
        char prefix[16];
        const statRow rows[] = {
            {"chunk_size", p->size}, {"chunks_per_page", p->perslab},
            {"total_pages", p->slabs},
            {"total_chunks", (uint32_t)(p->slabs * p->perslab)},
            {"used_chunks", (uint32_t)(p->slabs * p->perslab - p->sl_curr)},
            {"free_chunks", p->sl_curr}, {"free_chunks_end", 0},
            {"get_hits", ss->get_hits}, {"cmd_set", ss->set_cmds},
            {"delete_hits", ss->delete_hits}, {"incr_hits", ss->incr_hits},
            {"decr_hits", ss->decr_hits}, {"cas_hits", ss->cas_hits},
            {"cas_badval", ss->cas_badval}, {"touch_hits", ss->touch_hits},
        };
        snprintf(prefix, sizeof(prefix), "%d:", i);
        _statRows(c, prefix, ROWS(rows));
        total++;
    }
    _stat(c, "active_slabs", "%d", total);
    _stat(c, "total_malloced", "%llu",
          (unsigned long long)k->slabs.mem_malloced);
    _end(c);
}

/* item_stats for one class that holds items (flat LRU: no hot/warm). */
static void _itemsClass(mcConn *c, int n) {
    mcCache *k = &c->srv->cache;
    const mcItemStats *t = &k->itemstats[n];
    uint32_t age = k->tails[n] ? k->current_time - k->tails[n]->time : 0;
    const statRow rows[] = {
        {"number", k->sizes[n]}, {"age", age},
        {"mem_requested", k->sizes_bytes[n]}, {"evicted", t->evicted},
        {"evicted_nonzero", t->evicted_nonzero},
        {"evicted_time", t->evicted_time}, {"outofmemory", t->outofmemory},
        {"tailrepairs", t->tailrepairs}, {"reclaimed", t->reclaimed},
        {"expired_unfetched", t->expired_unfetched},
        {"evicted_unfetched", t->evicted_unfetched},
        {"crawler_reclaimed", t->crawler_reclaimed},
        {"crawler_items_checked", t->crawler_items_checked},
        {"lrutail_reflocked", t->lrutail_reflocked},
    };
    char prefix[24];
    snprintf(prefix, sizeof(prefix), "items:%d:", n);
    _statRows(c, prefix, ROWS(rows));
}

/* stats items: the classes whose LRU holds items. */
static void _itemsStats(mcConn *c) {
    for (int n = 0; n < MC_MAX_CLASSES; n++)
        if (c->srv->cache.sizes[n]) _itemsClass(c, n);
    _end(c);
}

/* ---- stats sizes, cachedump, detail, reset ---- */

/* stats sizes: the -o track_sizes histogram, or that it is off. */
static void _sizesStats(mcConn *c) {
    mcCache *k = &c->srv->cache;
    if (!k->sizes_hist) {
        _stat(c, "sizes_status", "disabled");
    } else {
        for (uint32_t i = 0; i < k->sizes_buckets; i++) {
            char name[16];
            snprintf(name, sizeof(name), "%u", i * 32);
            if (k->sizes_hist[i]) _stat(c, name, "%u", k->sizes_hist[i]);
        }
    }
    _end(c);
}

/* stats sizes_enable / sizes_disable. memcached ends neither with END. */
static void _sizesSwitch(mcConn *c, int enable) {
    mcCache *k = &c->srv->cache;
    if (!enable) {
        itemSizesDisable(k);
        _stat(c, "sizes_status", "disabled");
    } else if (!k->use_cas) {
        _stat(c, "sizes_status", "error");
        _stat(c, "sizes_error", "cas_support_disabled");
    } else if (itemSizesEnable(k) == GK_OK) {
        _stat(c, "sizes_status", "enabled");
    } else {
        _stat(c, "sizes_status", "error");
        _stat(c, "sizes_error", "no_memory");
    }
}

/* stats cachedump <class> <limit>: keys from the head of a class's LRU,
 * with their value sizes and absolute expiry times; at most 2 MB. */
static void _cachedump(mcConn *c, mcToken *tokens, size_t ntokens) {
    mcCache *k = &c->srv->cache;
    uint32_t id, limit, shown = 0;
    size_t bytes = 0;
    if (!c->srv->settings.dump_enabled) {
        mcConnOutString(c, "CLIENT_ERROR stats cachedump not allowed");
        return;
    }
    if (ntokens < 5) {
        mcConnOutString(c, "CLIENT_ERROR bad command line");
        return;
    }
    if (!mcSafeStrtoul(tokens[2].value, &id) ||
        !mcSafeStrtoul(tokens[3].value, &limit)) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    if (id >= MC_MAX_CLASSES) {
        mcConnOutString(c, "CLIENT_ERROR Illegal slab id");
        return;
    }
    for (mcItem *it = k->heads[id]; it && (limit == 0 || shown < limit);
         it = it->next, shown++) {
        char line[MC_KEY_MAX_LENGTH + 64];
        unsigned long long exp = it->exptime == 0 ? 0 :
            (unsigned long long)(it->exptime + k->process_started);
        int n = snprintf(line, sizeof(line), "ITEM %.*s [%d b; %llu s]\r\n",
                         (int)it->nkey, itemKey(it), it->nbytes - 2, exp);
        if (bytes + (size_t)n + 6 > 2 * 1024 * 1024) break;
        mcConnOut(c, line, (size_t)n);
        bytes += (size_t)n;
    }
    _end(c);
}

/* stats detail on|off|dump. Per-prefix counters are not kept, so a dump
 * is empty. */
static void _detail(mcConn *c, mcToken *tokens, size_t ntokens) {
    const char *arg = ntokens < 4 ? "" : tokens[2].value;
    if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
        c->srv->settings.detail_enabled = !strcmp(arg, "on");
        mcConnOutString(c, "OK");
    } else if (!strcmp(arg, "dump")) {
        _end(c);
    } else {
        mcConnOutString(c, "CLIENT_ERROR usage: stats detail on|off|dump");
    }
}

/* stats reset: the counters, not the state (items, bytes, connections). */
static void _reset(mcConn *c) {
    mcServer *s = c->srv;
    mcCache *k = &s->cache;
    k->total_items = 0;
    s->total_conns = 0;
    memset(&k->ts, 0, sizeof(k->ts));
    memset(k->slab_stats, 0, sizeof(k->slab_stats));
    memset(k->itemstats, 0, sizeof(k->itemstats));
    mcConnOutString(c, "RESET");
}

/* process_stat: dispatches on the word after "stats". Subcommands it
 * does not know, and `stats conns` and `stats extstore`, answer ERROR. */
void mcProcessStats(mcConn *c, mcToken *tokens, size_t ntokens) {
    const char *sub = tokens[1].value;
    mcServerClock(c->srv);
    if (ntokens == 2) {
        _serverProcess(c);
        _serverCommands(c);
        _serverInternals(c);
        _cacheTotals(c);
        _end(c);
    } else if (!strcmp(sub, "reset")) _reset(c);
    else if (!strcmp(sub, "detail")) _detail(c, tokens, ntokens);
    else if (!strcmp(sub, "settings")) {
        _settingsFirst(c, &c->srv->settings);
        _settingsMiddle(c, &c->srv->settings);
        _settingsLast(c);
        _end(c);
    } else if (!strcmp(sub, "cachedump")) _cachedump(c, tokens, ntokens);
    else if (!strcmp(sub, "items")) _itemsStats(c);
    else if (!strcmp(sub, "slabs")) _slabsStats(c);
    else if (!strcmp(sub, "sizes")) _sizesStats(c);
    else if (!strcmp(sub, "sizes_enable")) _sizesSwitch(c, 1);
    else if (!strcmp(sub, "sizes_disable")) _sizesSwitch(c, 0);
    else mcConnOutString(c, "ERROR");
}
