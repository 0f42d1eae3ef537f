/* config.c -- CONFIG GET / SET / RESETSTAT for the parameters the engine
 * uses, with Redis 7.0's names, aliases, ranges and error strings. */
#include <string.h>
#include <strings.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "server.h"
#include "acl.h"

enum { CFG_BOOL, CFG_INT, CFG_MEMORY, CFG_ENUM, CFG_STRING, CFG_SAVE,
       CFG_OBUF, CFG_NOTIFY, CFG_PASS, CFG_PERCENTILES,
       CFG_MEMPCT,          /* bytes, or "N%" (stored as -N) of maxmemory */
       CFG_REPLICAOF };     /* "host port" of the master, "" for none */

/* Room for one value as CONFIG GET writes it (a number, a name, or a
 * master's "host port"). */
#define CFG_VALUE_CAP 512

typedef struct configDef {
    const char *name, *alias;
    int kind;                   /* CFG_* */
    size_t offset;              /* field in serverConfig */
    int is_ll;                  /* field is long long (else int) */
    long long min, max;
    int immutable;
    const char *const *enums;   /* CFG_ENUM: names, in Redis's order */
    const int *enum_values;     /* and their values (NULL: 0, 1, ...) */
    /* Called after a change at runtime; C_ERR (with *why) undoes it. */
    int (*apply)(redisServer *s, long long prev, const char **why);
    int hidden;                 /* CONFIG GET gives it by its name only */
} configDef;

static const char *const fsyncEnum[] = { "everysec", "always", "no",
                                         NULL };
static const int fsyncValues[] = { AOF_FSYNC_EVERYSEC, AOF_FSYNC_ALWAYS,
                                   AOF_FSYNC_NO };
static const char *const maxmemoryPolicyEnum[] = {
    "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
    "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction", NULL };
static const int maxmemoryPolicyValues[] = {
    MAXMEMORY_VOLATILE_LRU, MAXMEMORY_VOLATILE_LFU, MAXMEMORY_VOLATILE_RANDOM,
    MAXMEMORY_VOLATILE_TTL, MAXMEMORY_ALLKEYS_LRU, MAXMEMORY_ALLKEYS_LFU,
    MAXMEMORY_ALLKEYS_RANDOM, MAXMEMORY_NO_EVICTION };
static const char *const protectedEnum[] = { "no", "yes", "local", NULL };
static const char *const loglevelEnum[] = { "debug", "verbose", "notice",
                                            "warning", NULL };
static const char *const aclPubsubEnum[] = { "allchannels", "resetchannels",
                                             NULL };
static const int aclPubsubValues[] = { SELECTOR_FLAG_ALLCHANNELS, 0 };

/* updateMaxmemory: a lower limit starts the evictions at once. */
static int _applyMaxmemory(redisServer *s, long long prev, const char **why) {
    (void)prev;
    (void)why;
    evictionMaxmemoryChanged(s);
    return C_OK;
}

/* updateMaxclients: the event loop's tables grow to fit. */
static int _applyMaxclients(redisServer *s, long long prev,
                            const char **why) {
    (void)prev;
    if (serverSizeEventLoop(s, 1) == C_OK) return C_OK;
    *why = "The event loop API used by Redis is not able to handle the "
           "specified number of clients";
    return C_ERR;
}

/* updateAppendonly: appendonly yes starts the AOF (with a rewrite),
 * appendonly no stops it. */
static int _applyAppendonly(redisServer *s, long long prev,
                            const char **why) {
    if (!s->cfg.appendonly && s->aof.state != AOF_OFF) {
        stopAppendOnly(s);
    } else if (s->cfg.appendonly && s->aof.state == AOF_OFF) {
        if (startAppendOnly(s) == C_ERR) {
            *why = "Unable to turn on AOF. Check server logs.";
            return C_ERR;
        }
    }
    return C_OK;
}

#define OFF(f) offsetof(serverConfig, f)
static const configDef configs[] = {
    { "hz", NULL, CFG_INT, OFF(hz), 0, 0, INT_MAX, 0 },
    { "dynamic-hz", NULL, CFG_BOOL, OFF(dynamic_hz), 0, 0, 1, 0 },
    { "activerehashing", NULL, CFG_BOOL, OFF(activerehashing), 0, 0, 1, 0 },
    { "active-expire-effort", NULL, CFG_INT, OFF(active_expire_effort), 0,
      1, 10, 0 },
    { "maxmemory", NULL, CFG_MEMORY, OFF(maxmemory), 1, 0, LLONG_MAX, 0,
      NULL, NULL, _applyMaxmemory },
    { "maxmemory-policy", NULL, CFG_ENUM, OFF(maxmemory_policy), 0, 0, 7, 0,
      maxmemoryPolicyEnum, maxmemoryPolicyValues },
    { "lfu-log-factor", NULL, CFG_INT, OFF(lfu_log_factor), 0, 0, INT_MAX,
      0 },
    { "lfu-decay-time", NULL, CFG_INT, OFF(lfu_decay_time), 0, 0, INT_MAX,
      0 },
    { "maxmemory-samples", NULL, CFG_INT, OFF(maxmemory_samples), 0, 1, 64,
      0 },
    { "maxmemory-clients", NULL, CFG_MEMPCT, OFF(maxmemory_clients), 1, -100,
      LLONG_MAX, 0 },
    { "key-load-delay", NULL, CFG_INT, OFF(key_load_delay), 0, INT_MIN,
      INT_MAX, 0, NULL, NULL, NULL, 1 },
    { "replicaof", "slaveof", CFG_REPLICAOF, 0, 0, 0, 0, 1 },
    { "maxmemory-eviction-tenacity", NULL, CFG_INT,
      OFF(maxmemory_eviction_tenacity), 0, 0, 100, 0 },
    { "replica-ignore-maxmemory", "slave-ignore-maxmemory", CFG_BOOL,
      OFF(repl_slave_ignore_maxmemory), 0, 0, 1, 0 },
    { "proto-max-bulk-len", NULL, CFG_MEMORY, OFF(proto_max_bulk_len), 1,
      1024 * 1024, LLONG_MAX, 0 },
    { "hll-sparse-max-bytes", NULL, CFG_MEMORY, OFF(hll_sparse_max_bytes), 1,
      0, LLONG_MAX, 0 },
    { "client-query-buffer-limit", NULL, CFG_MEMORY,
      OFF(client_max_querybuf_len), 1, 1024 * 1024, LLONG_MAX, 0 },
    { "set-max-intset-entries", NULL, CFG_INT, OFF(set_max_intset_entries),
      1, 0, LLONG_MAX, 0 },
    { "hash-max-listpack-entries", "hash-max-ziplist-entries", CFG_INT,
      OFF(hash_max_listpack_entries), 1, 0, LLONG_MAX, 0 },
    { "hash-max-listpack-value", "hash-max-ziplist-value", CFG_INT,
      OFF(hash_max_listpack_value), 1, 0, LLONG_MAX, 0 },
    { "zset-max-listpack-entries", "zset-max-ziplist-entries", CFG_INT,
      OFF(zset_max_listpack_entries), 1, 0, LLONG_MAX, 0 },
    { "zset-max-listpack-value", "zset-max-ziplist-value", CFG_INT,
      OFF(zset_max_listpack_value), 1, 0, LLONG_MAX, 0 },
    { "stream-node-max-bytes", NULL, CFG_MEMORY,
      OFF(stream_node_max_bytes), 1, 0, LLONG_MAX, 0 },
    { "stream-node-max-entries", NULL, CFG_INT,
      OFF(stream_node_max_entries), 1, 0, LLONG_MAX, 0 },
    { "list-max-listpack-size", "list-max-ziplist-size", CFG_INT,
      OFF(list_max_listpack_size), 1, INT_MIN, INT_MAX, 0 },
    { "list-compress-depth", NULL, CFG_INT, OFF(list_compress_depth), 1, 0,
      INT_MAX, 0 },
    { "lazyfree-lazy-user-del", NULL, CFG_BOOL, OFF(lazyfree_lazy_user_del),
      0, 0, 1, 0 },
    { "lazyfree-lazy-user-flush", NULL, CFG_BOOL,
      OFF(lazyfree_lazy_user_flush), 0, 0, 1, 0 },
    { "lazyfree-lazy-eviction", NULL, CFG_BOOL,
      OFF(lazyfree_lazy_eviction), 0, 0, 1, 0 },
    { "lazyfree-lazy-expire", NULL, CFG_BOOL, OFF(lazyfree_lazy_expire), 0,
      0, 1, 0 },
    { "maxclients", NULL, CFG_INT, OFF(maxclients), 1, 1, UINT_MAX, 0,
      NULL, NULL, _applyMaxclients },
    { "timeout", NULL, CFG_INT, OFF(timeout), 1, 0, INT_MAX, 0 },
    { "databases", NULL, CFG_INT, OFF(databases), 0, 1, INT_MAX, 1 },
    { "loglevel", NULL, CFG_ENUM, OFF(loglevel), 0, 0, 3, 0, loglevelEnum },
    { "enable-debug-command", NULL, CFG_ENUM, OFF(enable_debug_cmd), 0, 0,
      2, 1, protectedEnum },
    { "enable-module-command", NULL, CFG_ENUM, OFF(enable_module_cmd), 0, 0,
      2, 1, protectedEnum },
    { "repl-ping-replica-period", "repl-ping-slave-period", CFG_INT,
      OFF(repl_ping_period), 1, 1, INT_MAX, 0 },
    { "repl-backlog-size", NULL, CFG_MEMORY, OFF(repl_backlog_size), 1, 1,
      LLONG_MAX, 0 },
    { "replica-read-only", "slave-read-only", CFG_BOOL, OFF(repl_slave_ro),
      0, 0, 1, 0 },
    { "replica-serve-stale-data", "slave-serve-stale-data", CFG_BOOL,
      OFF(repl_serve_stale_data), 0, 0, 1, 0 },
    { "min-replicas-to-write", "min-slaves-to-write", CFG_INT,
      OFF(repl_min_slaves_to_write), 1, 0, INT_MAX, 0 },
    { "min-replicas-max-lag", "min-slaves-max-lag", CFG_INT,
      OFF(repl_min_slaves_max_lag), 1, 0, INT_MAX, 0 },
    { "repl-timeout", NULL, CFG_INT, OFF(repl_timeout), 1, 1, INT_MAX, 0 },
    { "repl-diskless-sync", NULL, CFG_BOOL, OFF(repl_diskless_sync), 0, 0, 1,
      0 },
    { "repl-diskless-sync-delay", NULL, CFG_INT,
      OFF(repl_diskless_sync_delay), 1, 0, INT_MAX, 0 },
    { "repl-diskless-sync-max-replicas", NULL, CFG_INT,
      OFF(repl_diskless_sync_max_replicas), 1, 0, INT_MAX, 0 },
    { "replica-priority", "slave-priority", CFG_INT, OFF(replica_priority),
      1, 0, INT_MAX, 0 },
    { "replica-announced", NULL, CFG_BOOL, OFF(replica_announced), 0, 0, 1,
      0 },
    { "masterauth", NULL, CFG_STRING, OFF(masterauth), 0, 0, 0, 0 },
    { "masteruser", NULL, CFG_STRING, OFF(masteruser), 0, 0, 0, 0 },
    { "appendonly", NULL, CFG_BOOL, OFF(appendonly), 0, 0, 1, 0, NULL, NULL,
      _applyAppendonly },
    { "appendfsync", NULL, CFG_ENUM, OFF(appendfsync), 0, 0, 2, 0,
      fsyncEnum, fsyncValues },
    { "appendfilename", NULL, CFG_STRING, OFF(appendfilename), 0, 0, 0, 1 },
    { "appenddirname", NULL, CFG_STRING, OFF(appenddirname), 0, 0, 0, 1 },
    { "aof-use-rdb-preamble", NULL, CFG_BOOL, OFF(aof_use_rdb_preamble), 0,
      0, 1, 0 },
    { "aof-load-truncated", NULL, CFG_BOOL, OFF(aof_load_truncated), 0, 0,
      1, 0 },
    { "aof-timestamp-enabled", NULL, CFG_BOOL, OFF(aof_timestamp_enabled),
      0, 0, 1, 0 },
    { "no-appendfsync-on-rewrite", NULL, CFG_BOOL,
      OFF(aof_no_fsync_on_rewrite), 0, 0, 1, 0 },
    { "aof-rewrite-incremental-fsync", NULL, CFG_BOOL,
      OFF(aof_rewrite_incremental_fsync), 0, 0, 1, 0 },
    { "aof-disable-auto-gc", NULL, CFG_BOOL, OFF(aof_disable_auto_gc), 0, 0,
      1, 0 },
    { "auto-aof-rewrite-percentage", NULL, CFG_INT,
      OFF(auto_aof_rewrite_perc), 1, 0, INT_MAX, 0 },
    { "auto-aof-rewrite-min-size", NULL, CFG_MEMORY,
      OFF(auto_aof_rewrite_min_size), 1, 0, LLONG_MAX, 0 },
    { "slowlog-log-slower-than", NULL, CFG_INT,
      OFF(slowlog_log_slower_than), 1, -1, LLONG_MAX, 0 },
    { "slowlog-max-len", NULL, CFG_INT, OFF(slowlog_max_len), 1, 0,
      LONG_MAX, 0 },
    { "busy-reply-threshold", "lua-time-limit", CFG_INT,
      OFF(busy_reply_threshold), 1, 0, LONG_MAX, 0 },
    { "latency-monitor-threshold", NULL, CFG_INT,
      OFF(latency_monitor_threshold), 1, 0, LLONG_MAX, 0 },
    { "latency-tracking-info-percentiles", NULL, CFG_PERCENTILES, 0, 0, 0, 0,
      0 },
    { "latency-tracking", NULL, CFG_BOOL, OFF(latency_tracking), 0, 0, 1,
      0 },
    { "save", NULL, CFG_SAVE, 0, 0, 0, 0, 0 },
    { "stop-writes-on-bgsave-error", NULL, CFG_BOOL,
      OFF(stop_writes_on_bgsave_err), 0, 0, 1, 0 },
    { "rdb-key-save-delay", NULL, CFG_INT, OFF(rdb_key_save_delay), 0,
      INT_MIN, INT_MAX, 0 },
    { "dbfilename", NULL, CFG_STRING, OFF(dbfilename), 0, 0, 0, 0 },
    { "client-output-buffer-limit", NULL, CFG_OBUF, 0, 0, 0, 0, 0 },
    { "notify-keyspace-events", NULL, CFG_NOTIFY,
      OFF(notify_keyspace_events), 0, 0, INT_MAX, 0 },
    { "requirepass", NULL, CFG_PASS, 0, 0, 0, 0, 0 },
    { "acllog-max-len", NULL, CFG_INT, OFF(acllog_max_len), 1, 0, LONG_MAX,
      0 },
    { "acl-pubsub-default", NULL, CFG_ENUM, OFF(acl_pubsub_default), 0, 0,
      SELECTOR_FLAG_ALLCHANNELS, 0, aclPubsubEnum, aclPubsubValues },
    { "aclfile", NULL, CFG_STRING, OFF(aclfile), 0, 0, 0, 1 },
    { "tracking-table-max-keys", NULL, CFG_INT,
      OFF(tracking_table_max_keys), 1, 0, LLONG_MAX, 0 },
    { NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL }
};

static long long _getValue(const serverConfig *cfg, const configDef *d) {
    const char *p = (const char *)cfg + d->offset;
    return d->is_ll ? *(const long long *)p : *(const int *)p;
}

static void _setValue(serverConfig *cfg, const configDef *d, long long v) {
    char *p = (char *)cfg + d->offset;
    if (d->is_ll) *(long long *)p = v;
    else *(int *)p = (int)v;
}

static const configDef *_lookup(const char *name) {
    for (const configDef *d = configs; d->name; d++)
        if (!strcasecmp(d->name, name) ||
            (d->alias && !strcasecmp(d->alias, name))) return d;
    return NULL;
}

/* Parses "100", "1k", "2mb", "1gb" (case-insensitive, k = 1000, kb =
 * 1024) as Redis's memtoull. Returns 1 on success. */
static int _parseMemory(const char *s, long long *out) {
    static const struct { const char *suffix; long long mul; } units[] = {
        { "b", 1 }, { "k", 1000 }, { "kb", 1024 }, { "m", 1000000 },
        { "mb", 1048576 }, { "g", 1000000000LL }, { "gb", 1073741824LL },
        { NULL, 0 } };
    size_t len = strlen(s), digits = 0;
    while (digits < len && s[digits] >= '0' && s[digits] <= '9') digits++;
    if (digits == 0) return 0;
    long long mul = 1;
    if (digits < len) {
        int found = 0;
        for (int i = 0; units[i].suffix; i++)
            if (!strcasecmp(s + digits, units[i].suffix)) {
                mul = units[i].mul;
                found = 1;
            }
        if (!found) return 0;
    }
    char buf[32];
    if (digits >= sizeof(buf)) return 0;
    memcpy(buf, s, digits);
    buf[digits] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 10);
    if (errno == ERANGE ||
        v > (unsigned long long)LLONG_MAX / (unsigned long long)mul)
        return 0;
    *out = (long long)(v * (unsigned long long)mul);
    return 1;
}

/* configParseMemory: _parseMemory for the rest of the server (DEBUG
 * QUICKLIST-PACKED-THRESHOLD reads its size as Redis's memtoull does). */
int configParseMemory(const char *s, long long *out) {
    return _parseMemory(s, out);
}

/* The name of an enum's value. */
static const char *_enumName(const configDef *d, long long v) {
    for (int i = 0; d->enums[i]; i++)
        if ((d->enum_values ? d->enum_values[i] : i) == v) return d->enums[i];
    return "";
}

/* An enum's value by name (case-insensitive). */
static const char *_parseEnum(const configDef *d, const char *value,
                              long long *out, char *errbuf, size_t errlen) {
    for (int i = 0; d->enums[i]; i++) {
        if (strcasecmp(value, d->enums[i])) continue;
        *out = d->enum_values ? d->enum_values[i] : i;
        return NULL;
    }
    int n = snprintf(errbuf, errlen, "argument(s) must be one of the "
                     "following: ");
    for (int i = 0; d->enums[i] && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(errbuf + n, errlen - (size_t)n, "%s%s", i ? ", " : "",
                      d->enums[i]);
    return errbuf;
}

/* Validates value for d; on error returns the reason text. */
static const char *_parseValue(const configDef *d, const char *value,
                               long long *out, char *errbuf, size_t errlen) {
    if (d->kind == CFG_ENUM) return _parseEnum(d, value, out, errbuf, errlen);
    if (d->kind == CFG_NOTIFY) {
        *out = keyspaceEventsStringToFlags(value);
        return *out < 0 ? "Invalid event class character. Use "
                          "'Ag$lshzxeKEtmdn'." : NULL;
    }
    if (d->kind == CFG_STRING) {
        *out = 0;
        if (!strcmp(d->name, "dbfilename") && strchr(value, '/'))
            return "dbfilename can't be a path, just a filename";
        return strlen(value) < 128 ? NULL : "argument too long";
    }
    if (d->kind == CFG_BOOL) {
        if (!strcasecmp(value, "yes")) *out = 1;
        else if (!strcasecmp(value, "no")) *out = 0;
        else return "argument must be 'yes' or 'no'";
        return NULL;
    }
    if (d->kind == CFG_MEMPCT) {
        /* Memory first, then a percentage (kept as its negative). */
        size_t len = strlen(value);
        if (_parseMemory(value, out)) return NULL;
        if (len < 2 || value[len - 1] != '%' ||
            !string2ll(value, len - 1, out) || *out < 0)
            return "argument must be a memory or percent value";
        *out = -*out;
        if (*out >= d->min) return NULL;
        snprintf(errbuf, errlen, "percentage argument must be less or equal "
                 "to %lld", -d->min);
        return errbuf;
    }
    if (d->kind == CFG_MEMORY) {
        if (!_parseMemory(value, out)) return "argument must be a memory value";
    } else if (!string2ll(value, strlen(value), out)) {
        return "argument couldn't be parsed into an integer";
    }
    if (*out < d->min || *out > d->max) {
        snprintf(errbuf, errlen, "argument must be between %lld and %lld "
                 "inclusive", d->min, d->max);
        return errbuf;
    }
    return NULL;
}

/* hz is accepted in 0..INT_MAX but clamped to 1..500, as updateHZ does. */
static void _applyValue(redisServer *s, const configDef *d, long long v) {
    _setValue(&s->cfg, d, v);
    if (!strcmp(d->name, "hz")) {
        if (s->cfg.hz < CONFIG_MIN_HZ) s->cfg.hz = CONFIG_MIN_HZ;
        if (s->cfg.hz > CONFIG_MAX_HZ) s->cfg.hz = CONFIG_MAX_HZ;
    }
}

/* ---- save ----
 *
 * Save points are pairs of <seconds> <changes>. Redis checks them all
 * before taking any: an even number of words, each a whole number
 * (strtoll, to the end of the word), seconds at least 1 and changes at
 * least 0; a single empty word means none. CONFIG SET replaces the
 * points; in a configuration file the first save line replaces the
 * defaults and each further one adds to them. CONFIG GET writes them
 * back as "3600 1 300 100". */

#define SAVE_INVALID "Invalid save parameters"

/* Sets (append: adds to) cfg's save points from argv[0..argc). Returns
 * NULL, or the reason, with cfg unchanged. */
static const char *_setSavePoints(serverConfig *cfg, int argc,
                                  char *const *argv, int append) {
    if (argc == 1 && argv[0][0] == '\0') argc = 0;
    if (argc & 1) return SAVE_INVALID;
    for (int j = 0; j < argc; j++) {
        char *end;
        long long v = strtoll(argv[j], &end, 10);
        if (*end != '\0' || (!(j & 1) && v < 1) || ((j & 1) && v < 0))
            return SAVE_INVALID;
    }
    int base = append ? cfg->save_n : 0;
    if (base + argc / 2 > CONFIG_MAX_SAVE_POINTS) return SAVE_INVALID;
    for (int j = 0; j < argc; j += 2) {
        cfg->save_seconds[base + j / 2] = strtoll(argv[j], NULL, 10);
        cfg->save_changes[base + j / 2] = (int)strtoll(argv[j + 1], NULL,
                                                        10);
    }
    cfg->save_n = base + argc / 2;
    return NULL;
}

/* CONFIG SET save "<points>": the value split at each space, as Redis
 * splits a multi-word parameter (two spaces make an empty word, which
 * is no number; an empty value is no words). */
static const char *_setSaveFromValue(serverConfig *cfg, const char *value) {
    char buf[512];
    char *words[2 * CONFIG_MAX_SAVE_POINTS + 1];
    int n = 0;
    size_t len = strlen(value);
    if (len >= sizeof(buf)) return SAVE_INVALID;
    memcpy(buf, value, len + 1);
    for (char *p = buf; len; ) {
        if (n == (int)(sizeof(words) / sizeof(words[0]))) return SAVE_INVALID;
        words[n++] = p;
        char *sp = strchr(p, ' ');
        if (!sp) break;
        *sp = '\0';
        p = sp + 1;
    }
    return _setSavePoints(cfg, n, words, 0);
}

/* latency-tracking-info-percentiles from words: each a number from 0 to
 * 100. NULL, or the reason (and nothing changed). */
static const char *_setPercentiles(serverConfig *cfg, int argc,
                                   char **argv) {
    double p[CONFIG_MAX_PERCENTILES];
    if (argc > CONFIG_MAX_PERCENTILES)
        return "Invalid latency-tracking-info-percentiles parameters";
    for (int j = 0; j < argc; j++) {
        if (!string2d(argv[j], strlen(argv[j]), &p[j]))
            return "Invalid latency-tracking-info-percentiles parameters";
        if (p[j] > 100.0 || p[j] < 0.0)
            return "latency-tracking-info-percentiles parameters should sit "
                   "between [0.0,100.0]";
    }
    memcpy(cfg->latency_percentiles, p, sizeof(double) * (size_t)argc);
    cfg->latency_percentiles_n = argc;
    return NULL;
}

/* CONFIG SET latency-tracking-info-percentiles "50 99 99.9". */
static const char *_setPercentilesFromValue(redisServer *s,
                                            const char *value) {
    sds *words;
    int n = splitArgs(s, value, &words);
    if (n < 0) return "Invalid latency-tracking-info-percentiles parameters";
    const char *why = _setPercentiles(&s->cfg, n, words);
    splitArgsRelease(s, words, n);
    return why;
}

/* A percentile as Redis prints it: %f without its trailing zeros or a
 * trailing point (99.9, 50). */
int configPercentileString(char *buf, size_t cap, double p) {
    int n = snprintf(buf, cap, "%f", p);
    if (n <= 0 || (size_t)n >= cap || !strchr(buf, '.')) return n;
    while (n > 0 && buf[n - 1] == '0') buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.') buf[--n] = '\0';
    return n;
}

/* The percentiles as CONFIG GET shows them, into buf. */
static void _percentilesString(const serverConfig *cfg, char *buf,
                               size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int j = 0; j < cfg->latency_percentiles_n && n + 1 < cap; j++) {
        if (j) buf[n++] = ' ';
        n += (size_t)configPercentileString(buf + n, cap - n,
                                            cfg->latency_percentiles[j]);
    }
}

/* The save points as CONFIG GET shows them, into buf. */
static void _saveString(const serverConfig *cfg, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int j = 0; j < cfg->save_n && n < cap; j++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld %d", j ? " " : "",
                              cfg->save_seconds[j], cfg->save_changes[j]);
}

/* client-output-buffer-limit from words (a CONFIG SET value split at its
 * spaces, or a configuration line's words): NULL, or the reason. */
static const char *_setObufLimits(redisServer *s, int argc, char **argv) {
    const char *why = NULL;
    return obufLimitsParse(s->cfg.obuf_limits, argc, argv, &why) ? NULL
                                                                 : why;
}

/* The same from one value, split as a configuration line's words are. */
static const char *_setObufFromValue(redisServer *s, const char *value) {
    sds *words;
    int n = splitArgs(s, value, &words);
    if (n < 0) return "Wrong number of arguments in buffer limit "
                      "configuration.";
    const char *why = _setObufLimits(s, n, words);
    splitArgsRelease(s, words, n);
    return why;
}

/* Sets one parameter from the host (gkServerConfigSet). On error returns
 * C_ERR with *err set to the text CONFIG SET would reply. */
int serverConfigSet(redisServer *s, const char *name, const char *value,
                    sds *err) {
    const configDef *d = _lookup(name);
    char errbuf[128];
    if (!d) {
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "Unknown option or "
                            "number of arguments for CONFIG SET - '%s'", name);
        return C_ERR;
    }
    const char *why = d->immutable ? "can't set immutable config" : NULL;
    long long v = 0;
    if (!why && d->kind == CFG_SAVE) {
        why = _setSaveFromValue(&s->cfg, value);
        if (!why) return C_OK;
    }
    if (!why && d->kind == CFG_OBUF) {
        why = _setObufFromValue(s, value);
        if (!why) return C_OK;
    }
    if (!why && d->kind == CFG_PERCENTILES) {
        why = _setPercentilesFromValue(s, value);
        if (!why) return C_OK;
    }
    if (!why && d->kind == CFG_PASS) return aclSetRequirePass(s, value);
    if (!why) why = _parseValue(d, value, &v, errbuf, sizeof(errbuf));
    if (why) {
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "CONFIG SET failed "
                            "(possibly related to argument '%s') - %s",
                            name, why);
        return C_ERR;
    }
    long long prev = d->kind == CFG_STRING ? 0 : _getValue(&s->cfg, d);
    _applyValue(s, d, v);
    if (d->apply && prev != v && d->apply(s, prev, &why) != C_OK) {
        _setValue(&s->cfg, d, prev);
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "CONFIG SET failed "
                            "(possibly related to argument '%s') - %s",
                            name, why);
        return C_ERR;
    }
    return C_OK;
}

/* Whether name is one of the host's parameters (host_config). */
static int _isHostParam(redisServer *s, const char *name) {
    const char *const *hc = s->host_config;
    for (int i = 0; hc && hc[i]; i += 2)
        if (!strcasecmp(hc[i], name)) return 1;
    return 0;
}

/* Whether parameters a and b are the same one (aliases included). */
static int _sameParam(redisServer *s, const char *a, const char *b) {
    const configDef *da = _lookup(a);
    if (da) return da == _lookup(b);
    return _isHostParam(s, a) && !strcasecmp(a, b);
}

/* Sets one host parameter through the host; C_ERR with *err set. */
static int _hostConfigSet(redisServer *s, const char *name,
                          const char *value, sds *err) {
    const char *why = "can't set immutable config";
    if (s->host_config_set &&
        s->host_config_set(s->host_config_ctx, name, value, &why) == C_OK)
        return C_OK;
    *err = sdscatprintf(s->mem, sdsempty(s->mem), "CONFIG SET failed "
                        "(possibly related to argument '%s') - %s", name,
                        why);
    return C_ERR;
}

/* CONFIG SET name value [name value ...]: all or nothing. The engine's
 * parameters are set first, then the host's (port, bind ...), whose
 * failure undoes the engine's. */
void configSetCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc % 2) { addReplyErrorArity(c); return; }
    int n = (c->argc - 2) / 2;
    /* Every name is looked at, in order, before anything is set: the
     * first unknown or repeated one is the error, and every password is
     * redacted for the slow log and monitors, error or not, as Redis. */
    sds bad = NULL;
    for (int i = 0; i < n; i++) {
        const char *name = c->argv[2 + 2 * i]->v.ptr;
        const configDef *d = _lookup(name);
        if (!d && !_isHostParam(s, name)) {
            if (!bad)
                bad = sdscatprintf(s->mem, sdsempty(s->mem), "Unknown option "
                                   "or number of arguments for CONFIG SET - "
                                   "'%s'", name);
            continue;
        }
        if (d && (!strcmp(d->name, "masterauth") ||
                  !strcmp(d->name, "requirepass")))
            redactClientCommandArgument(c, 3 + 2 * i);
        for (int j = 0; j < i && !bad; j++)
            if (_sameParam(s, name, c->argv[2 + 2 * j]->v.ptr))
                bad = sdscatprintf(s->mem, sdsempty(s->mem), "CONFIG SET "
                                   "failed (possibly related to argument "
                                   "'%s') - duplicate parameter", name);
    }
    if (bad) {
        addReplyErrorSds(c, bad);
        return;
    }
    serverConfig saved = s->cfg;
    sds pass = s->requirepass ? sdsdup(s->mem, s->requirepass) : NULL;
    sds err = NULL;
    for (int pass_no = 0; pass_no < 2 && !err; pass_no++) {
        for (int i = 0; i < n && !err; i++) {
            const char *name = c->argv[2 + 2 * i]->v.ptr;
            const char *value = c->argv[3 + 2 * i]->v.ptr;
            int host = _lookup(name) == NULL;
            if (host != pass_no) continue;
            if (host) _hostConfigSet(s, name, value, &err);
            else serverConfigSet(s, name, value, &err);
        }
    }
    if (err) {
        s->cfg = saved;
        aclSetRequirePass(s, pass ? pass : "");
        addReplyErrorSds(c, err);
    } else {
        addReplyOK(c);
    }
    sdsfree(s->mem, pass);
}

static void _addConfigValue(client *c, const configDef *d) {
    if (d->kind == CFG_PASS) {
        sds pass = c->srv->requirepass;
        addReplyBulkCBuffer(c, pass ? pass : "", pass ? sdslen(pass) : 0);
        return;
    }
    if (d->kind == CFG_OBUF) {
        addReplyBulkSds(c, obufLimitsString(c->srv, c->srv->cfg.obuf_limits));
        return;
    }
    if (d->kind == CFG_SAVE) {
        char buf[CONFIG_MAX_SAVE_POINTS * 36];
        _saveString(&c->srv->cfg, buf, sizeof(buf));
        addReplyBulkCString(c, buf);
        return;
    }
    if (d->kind == CFG_PERCENTILES) {
        char buf[CONFIG_MAX_PERCENTILES * 24];
        _percentilesString(&c->srv->cfg, buf, sizeof(buf));
        addReplyBulkCString(c, buf);
        return;
    }
    if (d->kind == CFG_STRING) {
        addReplyBulkCString(c, (const char *)&c->srv->cfg + d->offset);
        return;
    }
    if (d->kind == CFG_NOTIFY) {
        addReplyBulkSds(c, keyspaceEventsFlagsToString(c->srv,
                            c->srv->cfg.notify_keyspace_events));
        return;
    }
    char buf[CFG_VALUE_CAP];
    serverConfigGet(c->srv, d->name, buf, sizeof(buf));
    addReplyBulkCString(c, buf);
}

/* Writes the value of parameter name (or alias) into buf. C_ERR if the
 * name is unknown. */
int serverConfigGet(redisServer *s, const char *name, char *buf, size_t cap) {
    const configDef *d = _lookup(name);
    if (!d || cap == 0) return C_ERR;
    if (d->kind == CFG_PASS) {
        snprintf(buf, cap, "%s", s->requirepass ? s->requirepass : "");
        return C_OK;
    }
    if (d->kind == CFG_SAVE) {
        _saveString(&s->cfg, buf, cap);
        return C_OK;
    }
    if (d->kind == CFG_PERCENTILES) {
        _percentilesString(&s->cfg, buf, cap);
        return C_OK;
    }
    if (d->kind == CFG_OBUF) {
        sds o = obufLimitsString(s, s->cfg.obuf_limits);
        snprintf(buf, cap, "%s", o);
        sdsfree(s->mem, o);
        return C_OK;
    }
    if (d->kind == CFG_STRING) {
        snprintf(buf, cap, "%s", (const char *)&s->cfg + d->offset);
        return C_OK;
    }
    if (d->kind == CFG_NOTIFY) {
        sds o = keyspaceEventsFlagsToString(s, s->cfg.notify_keyspace_events);
        snprintf(buf, cap, "%s", o);
        sdsfree(s->mem, o);
        return C_OK;
    }
    if (d->kind == CFG_REPLICAOF) {
        if (s->masterhost) snprintf(buf, cap, "%s %d", s->masterhost,
                                    s->masterport);
        else buf[0] = '\0';
        return C_OK;
    }
    long long v = _getValue(&s->cfg, d);
    if (d->kind == CFG_BOOL) snprintf(buf, cap, "%s", v ? "yes" : "no");
    else if (d->kind == CFG_ENUM) snprintf(buf, cap, "%s", _enumName(d, v));
    else if (d->kind == CFG_MEMPCT && v < 0) snprintf(buf, cap, "%lld%%", -v);
    else snprintf(buf, cap, "%lld", v);
    return C_OK;
}

/* The host's parameters that match CONFIG GET's patterns, each once, as
 * name/value pairs; returns the number of pairs added. */
static long _hostConfigGet(client *c) {
    const char *const *hc = c->srv->host_config;
    long n = 0;
    for (int i = 0; hc && hc[i]; i += 2) {
        for (int a = 2; a < c->argc; a++) {
            sds pat = c->argv[a]->v.ptr;
            if (!stringmatchlen(pat, (int)sdslen(pat), hc[i],
                                (int)strlen(hc[i]), 1)) continue;
            addReplyBulkCString(c, hc[i]);
            addReplyBulkCString(c, hc[i + 1]);
            n++;
            break;
        }
    }
    return n;
}

/* CONFIG GET pattern [pattern ...]: name/value pairs, each name once. */
void configGetCommand(client *c) {
    const int total = (int)(sizeof(configs) / sizeof(configs[0])) - 1;
    char matched[sizeof(configs) / sizeof(configs[0])] = { 0 };
    long n = 0;
    void *len = addReplyDeferredLen(c);
    for (int a = 2; a < c->argc; a++) {
        sds pat = c->argv[a]->v.ptr;
        for (int i = 0; i < total; i++) {
            const configDef *d = &configs[i];
            const char *names[2] = { d->name, d->alias };
            for (int k = 0; k < 2; k++) {
                if (!names[k] || (matched[i] & (1 << k))) continue;
                if (!stringmatchlen(pat, (int)sdslen(pat), names[k],
                                    (int)strlen(names[k]), 1)) continue;
                /* An exact name is echoed as the client wrote it; a hidden
                 * parameter answers only to it. */
                int exact = !strpbrk(pat, "*?[\\");
                if (d->hidden && !exact) continue;
                matched[i] |= (char)(1 << k);
                addReplyBulkCString(c, exact ? pat : names[k]);
                _addConfigValue(c, d);
                n++;
            }
        }
    }
    n += _hostConfigGet(c);
    setDeferredMapLen(c, len, n);
}

/* CONFIG RESETSTAT: zeroes what 7.0 zeroes -- the INFO stats counters,
 * the fork figures, aof_delayed_fsync and every command's commandstats
 * line (a command with no calls left drops out of INFO commandstats) --
 * and replies +OK. Gauges (memory, clients, keys) are not counters and
 * stay. */
void configResetStatCommand(client *c) {
    redisServer *s = c->srv;
    s->stat_numcommands = s->stat_numconnections = 0;
    s->stat_expiredkeys = s->stat_keyspace_hits = 0;
    s->stat_evictedkeys = s->stat_evictedclients = 0;
    s->stat_keyspace_misses = s->stat_net_input_bytes = 0;
    s->stat_net_output_bytes = s->stat_total_error_replies = 0;
    s->nerrstats = 0;
    s->stat_unexpected_error_replies = s->stat_rejected_conn = 0;
    s->stat_sync_full = s->stat_sync_partial_ok = s->stat_sync_partial_err = 0;
    s->stat_expired_stale_perc_x100 = 0;
    s->stat_inst_ops_per_sec = 0;
    s->stat_inst_last_cmds = 0;
    s->stat_total_forks = s->stat_fork_time_us = 0;
    s->aof.delayed_fsync = 0;
    /* lazyfreed_objects restarts from 0; what is pending stays so. */
    s->stat_lazyfreed_objects = 0;
    memset(s->cmdstats, 0, sizeof(cmdStats) * (size_t)s->ncommands);
    latencyResetHistograms(s);
    addReplyOK(c);
}

/* CONFIG HELP: the subcommand list as an array of status lines. */
void configHelpCommand(client *c) {
    static const char *help[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their "
        "values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        NULL };
    addReplyHelp(c, help);
}

/* ---- The configuration file. ---- */

/* Splits one line into at most 3 words; "..." quotes a word. Returns the
 * number of words, or -1 for unbalanced quotes. */
static int _splitConfigLine(const char *line, char words[3][256]) {
    int n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) return n;
        if (n == 3) return 4;
        size_t len = 0;
        int quoted = *p == '"';
        if (quoted) p++;
        while (*p && (quoted ? *p != '"' : (*p != ' ' && *p != '\t'))) {
            if (len < 255) words[n][len++] = *p;
            p++;
        }
        if (quoted && *p != '"') return -1;
        if (quoted) p++;
        words[n++][len] = '\0';
    }
}

/* Sets one directive of a configuration file, argv[0] and its values,
 * as the server does when it starts: immutable parameters may be set,
 * and nothing is applied yet (appendonly yes only takes effect at
 * startup). Returns NULL, or the reason Redis prints for the line (in
 * errbuf, or a constant). */
const char *serverLoadConfigDirective(redisServer *s, int argc,
                                      char **argv, char *errbuf,
                                      size_t errlen) {
    if (argc >= 2 && !strcasecmp(argv[0], "save")) {
        int append = s->save_loaded;
        s->save_loaded = 1;
        if (argc > 2 || !argv[1][0])
            return _setSavePoints(&s->cfg, argc - 1, argv + 1, append);
        /* One word with spaces in it is split as its own line would be. */
        sds *words;
        int n = splitArgs(s, argv[1], &words);
        if (n < 0) return SAVE_INVALID;
        const char *why = _setSavePoints(&s->cfg, n, words, append);
        splitArgsRelease(s, words, n);
        return why;
    }
    if (argc == 3 && (!strcasecmp(argv[0], "replicaof") ||
                      !strcasecmp(argv[0], "slaveof"))) {
        /* A replica from the start: it connects once it is up. */
        char *end;
        long port = strtol(argv[2], &end, 10);
        sdsfree(s->mem, s->masterhost);
        s->masterhost = NULL;
        if (!strcasecmp(argv[1], "no") && !strcasecmp(argv[2], "one"))
            return NULL;
        if (!*argv[2] || *end || port < 0 || port > 65535)
            return "Invalid master port";
        s->masterhost = sdsnew(s->mem, argv[1]);
        s->masterport = (int)port;
        s->repl_state = REPL_STATE_CONNECT;
        return NULL;
    }
    if (argc >= 1 &&
        !strcasecmp(argv[0], "latency-tracking-info-percentiles"))
        return argc == 2 ? _setPercentilesFromValue(s, argv[1])
                         : _setPercentiles(&s->cfg, argc - 1, argv + 1);
    if (argc >= 2 && !strcasecmp(argv[0], "client-output-buffer-limit"))
        return argc == 2 ? _setObufFromValue(s, argv[1])
                         : _setObufLimits(s, argc - 1, argv + 1);
    if (argc >= 2 && !strcasecmp(argv[0], "user")) {
        int bad = 0;
        const char *why = NULL;
        if (aclAppendUserForLoading(s, argc, argv, &bad, &why) == C_OK)
            return NULL;
        snprintf(errbuf, errlen, "Error in user declaration '%s': %s",
                 argv[bad], why);
        return errbuf;
    }
    const configDef *d = argc == 2 ? _lookup(argv[0]) : NULL;
    if (!d || d->kind == CFG_REPLICAOF)
        return "Bad directive or wrong number of arguments";
    if (d->kind == CFG_PASS) {
        aclSetRequirePass(s, argv[1]);
        return NULL;
    }
    if (!strcmp(d->name, "databases") && atoi(argv[1]) != s->cfg.databases)
        return "databases can only be 16 here";
    long long v = 0;
    const char *why = _parseValue(d, argv[1], &v, errbuf, errlen);
    if (why) return why;
    if (d->kind == CFG_STRING) strcpy((char *)&s->cfg + d->offset, argv[1]);
    else _applyValue(s, d, v);
    return NULL;
}

/* Sets the parameters of a redis.conf-style text, one "name value" per
 * line, '#' comments and blank lines ignored, as the server does when it
 * starts: immutable parameters may be set here, and nothing is applied
 * yet (appendonly yes only takes effect at startup). C_ERR with *err set
 * to the error Redis prints for a bad line. */
int serverLoadConfig(redisServer *s, const char *conf, sds *err) {
    const char *p = conf;
    int linenum = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[512], words[3][256], errbuf[128];
        linenum++;
        if (len >= sizeof(line)) len = sizeof(line) - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p += eol ? (size_t)(eol - p) + 1 : len;
        if (len && line[len - 1] == '\r') line[len - 1] = '\0';
        int n = _splitConfigLine(line, words);
        if (n == 0 || words[0][0] == '#') continue;
        char *argv[3] = { words[0], words[1], words[2] };
        const char *why;
        if (n > 0 && !strcasecmp(words[0], "user")) {
            /* A user's rules are any number of words. */
            sds *uargv;
            int uargc = splitArgs(s, line, &uargv);
            why = uargc < 0 ? "Unbalanced quotes in configuration line"
                            : serverLoadConfigDirective(s, uargc, uargv,
                                  errbuf, sizeof(errbuf));
            if (uargc >= 0) splitArgsRelease(s, uargv, uargc);
        } else if (n == 2 && s->host_config_set &&
                   _isHostParam(s, words[0])) {
            /* The host's own (a simulated process's port). */
            why = NULL;
            if (s->host_config_set(s->host_config_ctx, words[0], words[1],
                                   &why) == C_OK)
                why = NULL;
        } else {
            why = serverLoadConfigDirective(s, n, argv, errbuf,
                                            sizeof(errbuf));
        }
        if (why) {
            *err = sdscatprintf(s->mem, sdsempty(s->mem),
                "*** FATAL CONFIG FILE ERROR (Redis 7.0.15) *** Reading the "
                "configuration file, at line %d >>> '%s' %s", linenum, line,
                why);
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---- CONFIG REWRITE (config_rewrite.c) ---- */

/* Whether name is one of the engine's directives; *canon gets its main
 * name (an alias is rewritten under it). */
int configKnownDirective(const char *name, const char **canon) {
    if (!strcasecmp(name, "user")) {
        *canon = "user";
        return 1;
    }
    if (!strcasecmp(name, "replicaof") || !strcasecmp(name, "slaveof")) {
        *canon = "replicaof";
        return 1;
    }
    const configDef *d = _lookup(name);
    if (!d) return 0;
    *canon = d->name;
    return 1;
}

/* One parameter's lines, force when it differs from its default dflt. */
static void _rewriteOne(redisServer *s, rewriteState *st, const configDef *d,
                        const serverConfig *dflt) {
    gkMem *m = s->mem;
    sds line = sdscatprintf(m, sdsempty(m), "%s ", d->name);
    if (d->kind == CFG_STRING) {
        const char *v = (const char *)&s->cfg + d->offset;
        line = sdscatrepr(m, line, v, strlen(v));
        rewriteLine(st, d->name, line,
                    strcmp(v, (const char *)dflt + d->offset) != 0);
        return;
    }
    long long v = _getValue(&s->cfg, d);
    if (d->kind == CFG_NOTIFY) {
        /* The classes as letters, quoted as a string option is. */
        sds classes = keyspaceEventsFlagsToString(s, (int)v);
        line = sdscatrepr(m, line, classes, sdslen(classes));
        sdsfree(m, classes);
        rewriteLine(st, d->name, line, v != _getValue(dflt, d));
        return;
    }
    if (d->kind == CFG_BOOL) line = sdscat(m, line, v ? "yes" : "no");
    else if (d->kind == CFG_ENUM) line = sdscat(m, line, _enumName(d, v));
    else if (d->kind == CFG_MEMPCT && v < 0)
        line = sdscatprintf(m, line, "%lld%%", -v);
    else if (d->kind == CFG_MEMORY || d->kind == CFG_MEMPCT)
        line = rewriteFormatMemory(m, line, v);
    else line = sdscatprintf(m, line, "%lld", v);
    rewriteLine(st, d->name, line, v != _getValue(dflt, d));
}

/* save: every point, or save "" for none, always written. */
static void _rewriteSave(redisServer *s, rewriteState *st) {
    if (s->cfg.save_n == 0)
        rewriteLine(st, "save", sdsnew(s->mem, "save \"\""), 1);
    for (int j = 0; j < s->cfg.save_n; j++)
        rewriteLine(st, "save", sdscatprintf(s->mem, sdsempty(s->mem),
                    "save %lld %d", s->cfg.save_seconds[j],
                    s->cfg.save_changes[j]), 1);
    rewriteMarkProcessed(st, "save");
}

/* client-output-buffer-limit: a line per class, replica named so. */
static void _rewriteObuf(redisServer *s, rewriteState *st,
                         const serverConfig *dflt) {
    static const char *const names[] = { "normal", "replica", "pubsub" };
    gkMem *m = s->mem;
    for (int j = 0; j < CLIENT_TYPE_OBUF_COUNT; j++) {
        const clientBufferLimits *l = &s->cfg.obuf_limits[j];
        const clientBufferLimits *d = &dflt->obuf_limits[j];
        sds line = sdscatprintf(m, sdsempty(m),
                                "client-output-buffer-limit %s ", names[j]);
        line = rewriteFormatMemory(m, line, l->hard);
        line = sdscat(m, line, " ");
        line = rewriteFormatMemory(m, line, l->soft);
        line = sdscatprintf(m, line, " %ld", (long)l->soft_seconds);
        rewriteLine(st, "client-output-buffer-limit", line,
                    l->hard != d->hard || l->soft != d->soft ||
                    l->soft_seconds != d->soft_seconds);
    }
}

/* Every engine parameter into st, in the table's order (Redis goes in
 * its hash table's order, which only changes where new lines land). */
void configRewriteEngineOptions(redisServer *s, rewriteState *st) {
    serverConfig dflt;
    serverConfigDefaults(&dflt);
    for (const configDef *d = configs; d->name; d++) {
        if (d->kind == CFG_REPLICAOF) {
            continue;           /* its own line, below */
        } else if (d->kind == CFG_SAVE) {
            _rewriteSave(s, st);
        } else if (d->kind == CFG_OBUF) {
            _rewriteObuf(s, st, &dflt);
        } else if (d->kind == CFG_PERCENTILES) {
            char buf[CONFIG_MAX_PERCENTILES * 24], was[64];
            _percentilesString(&s->cfg, buf, sizeof(buf));
            _percentilesString(&dflt, was, sizeof(was));
            rewriteLine(st, d->name, sdscatprintf(s->mem, sdsempty(s->mem),
                        "%s %s", d->name, buf), strcmp(buf, was) != 0);
        } else if (d->kind == CFG_PASS) {
            if (!s->requirepass) {
                rewriteMarkProcessed(st, d->name);
                continue;
            }
            sds line = sdsnew(s->mem, "requirepass ");
            line = sdscatrepr(s->mem, line, s->requirepass,
                              sdslen(s->requirepass));
            rewriteLine(st, d->name, line, 1);
        } else {
            _rewriteOne(s, st, d, &dflt);
        }
    }
    aclRewriteConfig(s, st);
    /* A replica's master (a master has none: its line goes). */
    if (s->masterhost)
        rewriteLine(st, "replicaof", sdscatprintf(s->mem, sdsempty(s->mem),
                    "replicaof %s %d", s->masterhost, s->masterport), 1);
    else
        rewriteMarkProcessed(st, "replicaof");
}
