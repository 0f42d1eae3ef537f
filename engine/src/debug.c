/* debug.c -- DEBUG HTSTATS, OBJECT, POPULATE, RELOAD, SET-ACTIVE-EXPIRE and
 * QUICKLIST-PACKED-THRESHOLD, INFO, and CLIENT ID / SETNAME / GETNAME. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "cost.h"
#include "server.h"
#include "acl.h"
#include "script.h"
#include "rdb.h"

/* DEBUG HTSTATS <dbid>: the text of dictGetStats for the keyspace and the
 * expires dict, each cut at 4 KB as in Redis. */
static void _debugHtstats(client *c) {
    redisServer *s = c->srv;
    long long dbid;
    char buf[4096];
    if (getLongLongFromObjectOrReply(c, c->argv[2], &dbid, NULL) != C_OK)
        return;
    if (dbid < 0 || dbid >= s->cfg.databases) {
        addReplyError(c, "Out of range database");
        return;
    }
    redisDb *db = &s->db[dbid];
    sds stats = sdsnew(s->mem, "[Dictionary HT]\n");
    dictGetStats(buf, sizeof(buf), db->dict);
    stats = sdscat(s->mem, stats, buf);
    stats = sdscat(s->mem, stats, "[Expires HT]\n");
    dictGetStats(buf, sizeof(buf), db->expires);
    stats = sdscat(s->mem, stats, buf);
    addReplyBulkSds(c, stats);
}

/* DEBUG HTSTATS-KEY <key>: the statistics of the hash table a value is
 * kept in (a set or hash as a table, a sorted set's member table). */
static void _debugHtstatsKey(client *c) {
    dictEntry *de = dictFind(c->db->dict, c->argv[2]->v.ptr);
    if (!de) {
        addReplyError(c, "no such key");
        return;
    }
    robj *o = dictGetVal(de);
    dict *ht = NULL;
    if (o->encoding == OBJ_ENCODING_HT) ht = o->v.ptr;
    else if (o->encoding == OBJ_ENCODING_SKIPLIST)
        ht = ((zset *)o->v.ptr)->dict;
    if (!ht) {
        addReplyError(c, "The value stored at the specified key is not "
                         "represented using an hash table");
        return;
    }
    char buf[4096];
    dictGetStats(buf, sizeof(buf), ht);
    addReplyVerbatim(c, buf, strlen(buf), "txt");
}

/* DEBUG ERROR <string>: the string as an error reply, sent as it is (it
 * counts in no error statistics, as in Redis). */
static void _debugError(client *c) {
    sds e = sdscatsds(c->srv->mem, sdsnew(c->srv->mem, "-"),
                      c->argv[2]->v.ptr);
    for (size_t i = 0; i < sdslen(e); i++)
        if (e[i] == '\r' || e[i] == '\n') e[i] = ' ';
    e = sdscatlen(c->srv->mem, e, "\r\n", 2);
    addReplyProto(c, e, sdslen(e));
    sdsfree(c->srv->mem, e);
}

/* DEBUG CONFIG-REWRITE-FORCE-ALL: CONFIG REWRITE writing every parameter.
 * Without a configuration file Redis fails opening a NULL path, and says
 * so by its errno. */
static void _debugRewriteForceAll(client *c) {
    redisServer *s = c->srv;
    sds err = NULL;
    if (!s->config_rewrite) {
        addReplyError(c, "CONFIG-REWRITE-FORCE-ALL failed: Bad address");
        return;
    }
    if (s->config_rewrite(s->config_rewrite_ctx, s, 1, &err) != C_OK) {
        addReplyErrorFormat(c, "CONFIG-REWRITE-FORCE-ALL failed: %s", err);
        sdsfree(s->mem, err);
        return;
    }
    addReplyOK(c);
}

/* DEBUG POPULATE <count> [prefix] [size]: creates keys prefix:0 ...
 * prefix:count-1 (default prefix "key") with values "value:N", skipping
 * names that exist. The table is first expanded to hold count keys. The
 * engine stops early, with an error, if its heap limit is reached. */
static void _debugPopulate(client *c) {
    redisServer *s = c->srv;
    long long keys, valsize = 0;
    char buf[128];   /* as 7.0's: a long prefix is cut, names may repeat */
    if (getPositiveLongFromObjectOrReply(c, c->argv[2], &keys, NULL) != C_OK)
        return;
    if (dictTryExpand(c->db->dict, (uint64_t)keys) != C_OK) {
        addReplyError(c, "OOM in dictTryExpand");
        return;
    }
    if (c->argc == 5 &&
        getPositiveLongFromObjectOrReply(c, c->argv[4], &valsize, NULL) != C_OK)
        return;
    const char *prefix = c->argc == 3 ? "key" : c->argv[3]->v.ptr;
    for (long long j = 0; j < keys; j++) {
        if (serverHeapExceeded(s)) {
            addReplyError(c, "-OOM command not allowed when used memory > "
                          "'maxmemory'.");
            return;
        }
        snprintf(buf, sizeof(buf), "%s:%lu", prefix, (unsigned long)j);
        s->denv.cpu_ns += COST_FORMAT_NS;
        robj *key = createStringObject(s, buf, strlen(buf));
        if (lookupKeyWrite(c, key)) { decrRefCount(s, key); continue; }
        snprintf(buf, sizeof(buf), "value:%lu", (unsigned long)j);
        s->denv.cpu_ns += COST_FORMAT_NS;
        robj *val;
        if (valsize == 0) {
            val = createStringObject(s, buf, strlen(buf));
        } else {
            size_t blen = strlen(buf);
            val = (uint64_t)valsize > SIZE_MAX / 2 ? NULL
                  : tryCreateStringObject(s, NULL, (size_t)valsize);
            if (!val) {
                decrRefCount(s, key);
                addReplyError(c, "-OOM command not allowed when used "
                              "memory > 'maxmemory'.");
                return;
            }
            memcpy(val->v.ptr, buf,
                   (size_t)valsize <= blen ? (size_t)valsize : blen);
        }
        dbAdd(s, c->db, key, val);
        signalModifiedKey(c, c->db, key);
        decrRefCount(s, key);
    }
    addReplyOK(c);
}

/* DEBUG OBJECT's extra fields for a list: its nodes, their average fill,
 * its fill setting, whether it compresses, and its bytes uncompressed. */
static void _debugQuicklistFields(const quicklist *ql, char *out, size_t cap) {
    unsigned long long sz = 0;
    for (const quicklistNode *n = ql->head; n; n = n->next) sz += n->sz;
    snprintf(out, cap, " ql_nodes:%llu ql_avg_node:%.2f ql_listpack_max:%d "
             "ql_compressed:%d ql_uncompressed_size:%llu", ql->len,
             (double)ql->count / (double)ql->len, ql->fill,
             ql->compress != 0, sz);
}

/* DEBUG OBJECT <key>: low-level facts about a value, as a status line.
 * The key is looked up as it is, expired or not, and not touched, as
 * Redis does: lru is the value's access clock (LFU data under an LFU
 * policy), lru_seconds_idle the idle time it gives. serializedlength is
 * the engine's own RDB encoding of the value, which does not
 * LZF-compress strings. */
static void _debugObject(client *c) {
    redisServer *s = c->srv;
    dictEntry *de = dictFind(c->db->dict, c->argv[2]->v.ptr);
    if (!de) {
        addReplyError(c, "no such key");
        return;
    }
    robj *val = dictGetVal(de);
    char extra[160] = "", line[400];
    if (val->encoding == OBJ_ENCODING_QUICKLIST)
        _debugQuicklistFields(val->v.ptr, extra, sizeof(extra));
    gkMem scratch;
    memInit(&scratch, s->mem->fn, s->mem->ud);
    size_t serialized = rdbSavedValueLen(&scratch, val);
    snprintf(line, sizeof(line), "Value at:%p refcount:%d encoding:%s "
             "serializedlength:%zu lru:%u lru_seconds_idle:%llu%s",
             (void *)val, (int)val->refcount, strEncoding(val->encoding),
             serialized, (unsigned)val->lru,
             estimateObjectIdleTime(s, val) / 1000, extra);
    addReplyStatus(c, line);
}

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves the dataset to the RDB
 * file (not with NOSAVE), empties it (not with NOFLUSH) and loads the
 * file back; MERGE lets a key of the file replace one still there.
 * Nothing is propagated. The save counts as a save, as in Redis
 * (rdb_changes_since_last_save goes to 0). Where Redis stops the process
 * on a key that NOFLUSH without MERGE finds twice, the engine replies
 * the load's error. */
static void _debugReload(client *c) {
    redisServer *s = c->srv;
    int flush = 1, save = 1, merge = 0;
    long long dirty = s->dirty;
    for (int j = 2; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "merge")) merge = 1;
        else if (!strcasecmp(opt, "noflush")) flush = 0;
        else if (!strcasecmp(opt, "nosave")) save = 0;
        else {
            addReplyError(c, "DEBUG RELOAD only supports the MERGE, NOFLUSH "
                          "and NOSAVE options.");
            return;
        }
    }
    if (save && rdbSaveDataset(s) != C_OK) {
        addReplyError(c, "-ERR");
        return;
    }
    if (save) dirty = 0;
    if (flush) {
        emptyData(s, -1);
        functionsClear(s);
    }
    int st = rdbLoadFile(s, s->cfg.dbfilename, merge);
    s->dirty = dirty;
    if (st != C_OK) {
        addReplyError(c, "Error trying to load the RDB dump");
        return;
    }
    serverLog(s, LL_WARNING, "DB reloaded by DEBUG RELOAD");
    addReplyOK(c);
}

/* DEBUG LOADAOF: writes what the AOF buffer holds to the file, empties
 * the dataset and loads the AOF files back, as the server does when it
 * starts. Nothing of it is propagated (dirty is zeroed). Redis has no
 * error for an AOF that is off: it loads whatever manifest is on disk,
 * and with none (or files it cannot load) the process exits, as here. */
static void _debugLoadAof(client *c) {
    redisServer *s = c->srv;
    if (s->aof.state != AOF_OFF) flushAppendOnlyFile(s, 1);
    emptyData(s, -1);
    functionsClear(s);
    if (aofReloadFromDisk(s) != C_OK) return;
    s->dirty = 0;
    serverLog(s, LL_WARNING, "Append Only File loaded by DEBUG LOADAOF");
    addReplyOK(c);
}

/* DEBUG QUICKLIST-PACKED-THRESHOLD <size>: from now on, list elements of
 * size bytes or more get a plain quicklist node of their own (a memory
 * value as CONFIG takes one; 0 restores the 1 GB default). */
static void _debugPackedThreshold(client *c) {
    long long sz;
    if (!configParseMemory(c->argv[2]->v.ptr, &sz) ||
        !quicklistSetPackedThreshold(&c->srv->qlenv,
                                     (unsigned long long)sz)) {
        addReplyError(c, "argument must be a memory value bigger than 1 "
                      "and smaller than 4gb");
        return;
    }
    addReplyOK(c);
}

/* DEBUG PROTOCOL type: a sample reply of each RESP type, as Redis sends
 * them to test clients. */
static void _debugProtocol(client *c) {
    const char *name = c->argv[2]->v.ptr;
    if (!strcasecmp(name, "string")) {
        addReplyBulkCString(c, "Hello World");
    } else if (!strcasecmp(name, "integer")) {
        addReplyLongLong(c, 12345);
    } else if (!strcasecmp(name, "double")) {
        addReplyDouble(c, 3.141);
    } else if (!strcasecmp(name, "bignum")) {
        static const char big[] = "1234567999999999999999999999999999999";
        addReplyBigNum(c, big, sizeof(big) - 1);
    } else if (!strcasecmp(name, "null")) {
        addReplyNull(c);
    } else if (!strcasecmp(name, "array") || !strcasecmp(name, "set")) {
        if (name[0] == 'a' || name[0] == 'A') addReplyArrayLen(c, 3);
        else addReplySetLen(c, 3);
        for (int j = 0; j < 3; j++) addReplyLongLong(c, j);
    } else if (!strcasecmp(name, "map")) {
        addReplyMapLen(c, 3);
        for (int j = 0; j < 3; j++) {
            addReplyLongLong(c, j);
            addReplyBool(c, j == 1);
        }
    } else if (!strcasecmp(name, "attrib")) {
        /* An attribute comes before the reply it annotates. */
        if (c->resp >= 3) {
            addReplyAttributeLen(c, 1);
            addReplyBulkCString(c, "key-popularity");
            addReplyArrayLen(c, 2);
            addReplyBulkCString(c, "key:123");
            addReplyLongLong(c, 90);
        }
        addReplyBulkCString(c, "Some real reply following the attribute");
    } else if (!strcasecmp(name, "push")) {
        if (c->resp < 3) {
            addReplyError(c, "RESP2 is not supported by this command");
            return;
        }
        addReplyPushLen(c, 2);
        addReplyBulkCString(c, "server-cpu-usage");
        addReplyLongLong(c, 42);
        addReplyBulkCString(c, "Some real reply following the push reply");
    } else if (!strcasecmp(name, "true") || !strcasecmp(name, "false")) {
        addReplyBool(c, name[0] == 't' || name[0] == 'T');
    } else if (!strcasecmp(name, "verbatim")) {
        static const char text[] = "This is a verbatim\nstring";
        addReplyVerbatim(c, text, sizeof(text) - 1, "txt");
    } else {
        addReplyError(c, "Wrong protocol type name. Please use one of the "
                      "following: string|integer|double|bignum|null|array|"
                      "set|map|attrib|push|verbatim|true|false");
    }
}

/* DEBUG SLEEP seconds: the server stops for that long (decimals allowed),
 * as a slow command would stop it: the node is busy for that much of its
 * time, and a server on a real socket really sleeps. */
static void _debugSleep(client *c) {
    double secs = strtod(c->argv[2]->v.ptr, NULL);
    long long ns = (long long)(secs * 1e9);
    if (ns > 0) {
        aeBackend *be = &c->srv->el->backend;
        c->srv->denv.cpu_ns += (uint64_t)ns;
        if (be->stall) be->stall(be->ctx, (uint64_t)ns);
    }
    addReplyOK(c);
}

/* DEBUG: the subcommands the help text lists, those of Redis's the
 * engine can honour. Two more the help leaves out, as Redis's does:
 * SET-DISABLE-DENY-SCRIPTS 0|1 lets scripts call the commands flagged
 * noscript, and PAUSE-CRON 0|1 stops the cron's work.
 * Any other subcommand or argument count gets the subcommand syntax error.
 * POPULATE's keys are not propagated, as in Redis. */
/* key-load-delay, as 7.0's debugDelay after each key (or AOF command)
 * loaded: N > 0 holds the loader N us (the real server sleeps, here its
 * clock moves on); N < 0 holds it 1 us for one key in -N, drawn at random
 * (from the world's PRNG). */
void debugKeyLoadDelay(redisServer *s) {
    long long us = s->cfg.key_load_delay;
    if (us < 0) us = rngBelow(s->denv.rng, (uint64_t)-us) == 0 ? 1 : 0;
    s->denv.cpu_ns += (uint64_t)us * 1000;
}

void debugCommand(client *c) {
    const char *sub = c->argv[1]->v.ptr;
    if (!strcasecmp(sub, "help") && c->argc == 2) {
        static const char *help[] = {
            "CHANGE-REPL-ID",
            "    Change the replication IDs of the instance.",
            "    Dangerous: should be used only for testing the replication "
            "subsystem.",
            "CONFIG-REWRITE-FORCE-ALL",
            "    Like CONFIG REWRITE but writes all configuration options, "
            "including",
            "    keywords not listed in original configuration file or "
            "default values.",
            "DIGEST",
            "    Output a hex signature representing the current DB "
            "content.",
            "DIGEST-VALUE <key> [<key> ...]",
            "    Output a hex signature of the values of all the specified "
            "keys.",
            "ERROR <string>",
            "    Return a Redis protocol error with <string> as message. "
            "Useful for clients",
            "    unit tests to simulate Redis errors.",
            "LOG <message>",
            "    Write <message> to the server log.",
            "HTSTATS <dbid>",
            "    Return hash table statistics of the specified Redis "
            "database.",
            "HTSTATS-KEY <key>",
            "    Like HTSTATS but for the hash table stored at <key>'s value.",
            "LOADAOF",
            "    Flush the AOF buffers on disk and reload the AOF in memory.",
            "OBJECT <key>",
            "    Show low level info about `key` and associated value.",
            "POPULATE <count> [<prefix>] [<size>]",
            "    Create <count> string keys named key:<num>. If <prefix> is "
            "specified then",
            "    it is used instead of the 'key' prefix. These are not "
            "propagated to",
            "    replicas. Cluster slots are not respected so keys not "
            "belonging to the",
            "    current node can be created in cluster mode.",
            "PROTOCOL <type>",
            "    Reply with a test value of the specified type. <type> can be: "
            "string,",
            "    integer, double, bignum, null, array, set, map, attrib, push, "
            "verbatim,",
            "    true, false.",
            "RELOAD [option ...]",
            "    Save the RDB on disk and reload it back to memory. Valid "
            "<option> values:",
            "    * MERGE: conflicting keys will be loaded from RDB.",
            "    * NOFLUSH: the existing database will not be removed before "
            "load, but",
            "      conflicting keys will generate an exception and kill the "
            "server.",
            "    * NOSAVE: the database will be loaded from an existing RDB "
            "file.",
            "    Examples:",
            "    * DEBUG RELOAD: verify that the server is able to persist, "
            "flush and reload",
            "      the database.",
            "    * DEBUG RELOAD NOSAVE: replace the current database with the "
            "contents of an",
            "      existing RDB file.",
            "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an "
            "existing RDB",
            "      file to the database.",
            "SET-ACTIVE-EXPIRE <0|1>",
            "    Setting it to 0 disables expiring keys in background when they "
            "are not",
            "    accessed (otherwise the Redis behavior). Setting it to 1 "
            "reenables back the",
            "    default.",
            "QUICKLIST-PACKED-THRESHOLD <size>",
            "    Sets the threshold for elements to be inserted as plain vs "
            "packed nodes",
            "    Default value is 1GB, allows values up to 4GB. Setting to 0 "
            "restores to default.",
            "SLEEP <seconds>",
            "    Stop the server for <seconds>. Decimals allowed.",
            NULL };
        addReplyHelp(c, help);
    } else if (!strcasecmp(sub, "digest") && c->argc == 2) {
        debugDigestCommand(c);
    } else if (!strcasecmp(sub, "digest-value") && c->argc >= 2) {
        debugDigestValueCommand(c);
    } else if (!strcasecmp(sub, "htstats") && c->argc == 3) {
        _debugHtstats(c);
    } else if (!strcasecmp(sub, "htstats-key") && c->argc == 3) {
        _debugHtstatsKey(c);
    } else if (!strcasecmp(sub, "error") && c->argc == 3) {
        _debugError(c);
    } else if (!strcasecmp(sub, "log") && c->argc == 3) {
        serverLog(c->srv, LL_WARNING, "DEBUG LOG: %s",
                  (char *)c->argv[2]->v.ptr);
        addReplyOK(c);
    } else if (!strcasecmp(sub, "change-repl-id") && c->argc == 2) {
        serverLog(c->srv, LL_WARNING, "Changing replication IDs after "
                  "receiving DEBUG change-repl-id");
        replicationChangeId(c->srv);
        addReplyOK(c);
    } else if (!strcasecmp(sub, "config-rewrite-force-all") && c->argc == 2) {
        _debugRewriteForceAll(c);
    } else if (!strcasecmp(sub, "pause-cron") && c->argc == 3) {
        c->srv->pause_cron = atoi(c->argv[2]->v.ptr);
        addReplyOK(c);
    } else if (!strcasecmp(sub, "populate") && c->argc >= 3 && c->argc <= 5) {
        _debugPopulate(c);
    } else if (!strcasecmp(sub, "object") && c->argc == 3) {
        _debugObject(c);
    } else if (!strcasecmp(sub, "reload")) {
        _debugReload(c);
    } else if (!strcasecmp(sub, "quicklist-packed-threshold") &&
               c->argc == 3) {
        _debugPackedThreshold(c);
    } else if (!strcasecmp(sub, "protocol") && c->argc == 3) {
        _debugProtocol(c);
    } else if (!strcasecmp(sub, "set-active-expire") && c->argc == 3) {
        c->srv->active_expire_disabled = atoi(c->argv[2]->v.ptr) == 0;
        addReplyOK(c);
    } else if (!strcasecmp(sub, "set-disable-deny-scripts") &&
               c->argc == 3) {
        c->srv->script_disable_deny_script = atoi(c->argv[2]->v.ptr);
        addReplyOK(c);
    } else if (!strcasecmp(sub, "loadaof")) {
        _debugLoadAof(c);
    } else if (!strcasecmp(sub, "sleep") && c->argc == 3) {
        _debugSleep(c);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ---- INFO ---- */

static sds _infoServer(redisServer *s, sds info) {
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    long long uptime = (long long)((now - s->start_ns) / 1000000000ULL);
    return sdscatprintf(s->mem, info,
        "# Server\r\n"
        "redis_version:" REDIS_VERSION "\r\n"
        "redis_git_sha1:00000000\r\n"
        "redis_git_dirty:0\r\n"
        "redis_mode:standalone\r\n"
        "os:glasskv simulated world (virtual time)\r\n"
        "arch_bits:64\r\n"
        "multiplexing_api:simulated\r\n"
        "process_id:%d\r\n"
        "run_id:%s\r\n"
        "tcp_port:%d\r\n"
        "server_time_usec:%lld\r\n"
        "uptime_in_seconds:%lld\r\n"
        "uptime_in_days:%lld\r\n"
        "hz:%d\r\n"
        "configured_hz:%d\r\n"
        "lru_clock:%u\r\n"
        "executable:glasskv\r\n"
        "config_file:\r\n"
        "io_threads_active:0\r\n",
        s->pid, s->runid, s->port, s->ustime, uptime, uptime / 86400,
        s->hz, s->cfg.hz, s->lruclock);
}

static sds _infoClients(redisServer *s, sds info) {
    size_t maxin = 0;
    for (int fd = 0; fd < s->clients_cap; fd++)
        if (s->clients[fd] && s->clients[fd]->querybuf_peak > maxin)
            maxin = s->clients[fd]->querybuf_peak;
    return sdscatprintf(s->mem, info,
        "# Clients\r\n"
        "connected_clients:%d\r\n"
        "cluster_connections:0\r\n"
        "maxclients:%lld\r\n"
        "client_recent_max_input_buffer:%zu\r\n"
        "client_recent_max_output_buffer:0\r\n"
        "blocked_clients:%d\r\n"
        "tracking_clients:%d\r\n"
        "clients_in_timeout_table:%d\r\n",
        s->numclients - s->nreplicas, s->cfg.maxclients, maxin,
        s->blocked_clients, s->tracking_clients, s->timeouts_n);
}

static sds _infoStats(redisServer *s, sds info) {
    return sdscatprintf(s->mem, info,
        "# Stats\r\n"
        "total_connections_received:%lld\r\n"
        "total_commands_processed:%lld\r\n"
        "instantaneous_ops_per_sec:%lld\r\n"
        "total_net_input_bytes:%lld\r\n"
        "total_net_output_bytes:%lld\r\n"
        "rejected_connections:%lld\r\n"
        "sync_full:%lld\r\n"
        "sync_partial_ok:%lld\r\n"
        "sync_partial_err:%lld\r\n"
        "expired_keys:%lld\r\n"
        "expired_stale_perc:%.2f\r\n"
        "evicted_keys:%lld\r\n"
        "evicted_clients:%lld\r\n"
        "keyspace_hits:%lld\r\n"
        "keyspace_misses:%lld\r\n"
        "pubsub_channels:%llu\r\n"
        "pubsub_patterns:%llu\r\n"
        "pubsubshard_channels:%llu\r\n"
        "latest_fork_usec:%lld\r\n"
        "total_forks:%lld\r\n"
        "migrate_cached_sockets:%d\r\n"
        "tracking_total_keys:%llu\r\n"
        "tracking_total_items:%llu\r\n"
        "tracking_total_prefixes:%llu\r\n"
        "unexpected_error_replies:%lld\r\n"
        "total_error_replies:%lld\r\n",
        s->stat_numconnections, s->stat_numcommands,
        s->stat_inst_ops_per_sec, s->stat_net_input_bytes,
        s->stat_net_output_bytes, s->stat_rejected_conn,
        s->stat_sync_full, s->stat_sync_partial_ok, s->stat_sync_partial_err,
        s->stat_expiredkeys, (double)s->stat_expired_stale_perc_x100 / 100,
        s->stat_evictedkeys, s->stat_evictedclients,
        s->stat_keyspace_hits, s->stat_keyspace_misses,
        (unsigned long long)dictSize(s->pubsub_channels),
        (unsigned long long)dictSize(s->pubsub_patterns),
        (unsigned long long)dictSize(s->pubsubshard_channels),
        s->stat_fork_time_us, s->stat_total_forks, s->nmigrate_sockets,
        (unsigned long long)trackingGetTotalKeys(s),
        (unsigned long long)s->tracking_items,
        (unsigned long long)trackingGetTotalPrefixes(s),
        s->stat_unexpected_error_replies,
        s->stat_total_error_replies);
}

/* INFO cpu: seconds of CPU, to the microsecond, from the host; in the
 * simulated world the server's virtual CPU time, all of it user time
 * of the main thread, and no children. */
static sds _infoCpu(redisServer *s, sds info) {
    uint64_t us[6] = { 0 };
    aeBackend *be = &s->el->backend;
    if (be->cpuTimes) {
        be->cpuTimes(be->ctx, us);
    } else {
        us[1] = us[5] = s->denv.cpu_ns / 1000;
    }
    static const char *const names[6] = { "used_cpu_sys", "used_cpu_user",
        "used_cpu_sys_children", "used_cpu_user_children",
        "used_cpu_sys_main_thread", "used_cpu_user_main_thread" };
    info = sdscat(s->mem, info, "# CPU\r\n");
    for (int i = 0; i < 6; i++)
        info = sdscatprintf(s->mem, info, "%s:%llu.%06llu\r\n", names[i],
                            (unsigned long long)(us[i] / 1000000),
                            (unsigned long long)(us[i] % 1000000));
    return info;
}

static sds _infoKeyspace(redisServer *s, sds info) {
    info = sdscat(s->mem, info, "# Keyspace\r\n");
    for (int j = 0; j < s->cfg.databases; j++) {
        uint64_t keys = dictSize(s->db[j].dict);
        uint64_t vkeys = dictSize(s->db[j].expires);
        if (keys || vkeys)
            info = sdscatprintf(s->mem, info,
                                "db%d:keys=%llu,expires=%llu,avg_ttl=%lld\r\n",
                                j, (unsigned long long)keys,
                                (unsigned long long)vkeys, s->db[j].avg_ttl);
    }
    return info;
}

/* One commandstats line. As in Redis, usec_per_call is computed from the
 * whole microseconds in usec, so the two always agree. */
static sds _infoCmdstat(redisServer *s, sds info, const redisCommand *cmd) {
    const cmdStats *st = &s->cmdstats[cmd->id];
    if (!st->calls && !st->rejected && !st->failed) return info;
    long long usec = st->ns / 1000;
    return sdscatprintf(s->mem, info, "cmdstat_%s:calls=%lld,usec=%lld,"
                        "usec_per_call=%.2f,rejected_calls=%lld,"
                        "failed_calls=%lld\r\n", cmd->fullname, st->calls,
                        usec, st->calls ? (double)usec / (double)st->calls
                                        : 0.0,
                        st->rejected, st->failed);
}

/* Per-command counts and CPU time (virtual microseconds), as 7.0 prints
 * them; subcommands appear as "container|sub". */
static sds _infoCommandstats(redisServer *s, sds info) {
    info = sdscat(s->mem, info, "# Commandstats\r\n");
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        info = _infoCmdstat(s, info, c);
        for (const redisCommand *sub = c->subcommands;
             sub && sub->declared_name; sub++)
            info = _infoCmdstat(s, info, sub);
    }
    return info;
}

/* Error replies by code, as 7.0 prints them. */
static sds _infoErrorstats(redisServer *s, sds info) {
    info = sdscat(s->mem, info, "# Errorstats\r\n");
    for (int i = 0; i < s->nerrstats; i++)
        info = sdscatprintf(s->mem, info, "errorstat_%s:count=%lld\r\n",
                            s->errstats[i].code, s->errstats[i].count);
    return info;
}

/* INFO latencystats: each command's percentiles, when latency-tracking
 * is on. */
static sds _infoLatencystats(redisServer *s, sds info) {
    info = sdscat(s->mem, info, "# Latencystats\r\n");
    if (!s->cfg.latency_tracking) return info;
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        info = latencyInfoLine(s, info, c);
        for (const redisCommand *sub = c->subcommands;
             sub && sub->declared_name; sub++)
            info = latencyInfoLine(s, info, sub);
    }
    return info;
}

typedef sds infoSectionFn(redisServer *s, sds info);
static const struct {
    const char *name;
    infoSectionFn *fn;
    int in_default;             /* shown by a bare INFO */
} infoSections[] = {
    { "server", _infoServer, 1 }, { "clients", _infoClients, 1 },
    { "memory", memoryInfoSection, 1 }, { "persistence", aofInfoPersistence, 1 },
    { "stats", _infoStats, 1 }, { "replication", replicationInfo, 1 },
    { "cpu", _infoCpu, 1 },
    { "commandstats", _infoCommandstats, 0 },
    { "errorstats", _infoErrorstats, 1 },
    { "latencystats", _infoLatencystats, 0 },
    { "keyspace", _infoKeyspace, 1 }, { NULL, NULL, 0 }
};

static int _infoWants(client *c, int i) {
    const char *section = infoSections[i].name;
    if (c->argc == 1) return infoSections[i].in_default;
    for (int j = 1; j < c->argc; j++) {
        const char *a = c->argv[j]->v.ptr;
        if (!strcasecmp(a, "all") || !strcasecmp(a, "everything") ||
            !strcasecmp(a, section)) return 1;
        if (!strcasecmp(a, "default") && infoSections[i].in_default)
            return 1;
    }
    return 0;
}

/* INFO [section ...]: sections separated by a blank line. */
void infoCommand(client *c) {
    redisServer *s = c->srv;
    serverUpdateTime(s);
    sds info = sdsempty(s->mem);
    for (int i = 0; infoSections[i].name; i++) {
        if (!_infoWants(c, i)) continue;
        if (sdslen(info)) info = sdscat(s->mem, info, "\r\n");
        info = infoSections[i].fn(s, info);
    }
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(s->mem, info);
}

/* ---- CLIENT ---- */

void clientIdCommand(client *c) { addReplyLongLong(c, (long long)c->id); }

/* Sets the client's name from name, or replies with Redis's error and
 * returns C_ERR. The name may hold only '!'..'~'; an empty name clears it.
 * The client keeps its own copy. */
int clientSetNameOrReply(client *c, robj *name) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *p = objectStrBytes(name, buf, &len);
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '!' || p[i] > '~') {
            addReplyError(c, "Client names cannot contain spaces, newlines "
                          "or special characters.");
            return C_ERR;
        }
    }
    sdsfree(c->srv->mem, c->name);
    c->name = len ? sdsnewlen(c->srv->mem, p, len) : NULL;
    return C_OK;
}

/* CLIENT SETNAME name: +OK. */
void clientSetNameCommand(client *c) {
    if (clientSetNameOrReply(c, c->argv[2]) == C_OK) addReplyOK(c);
}

/* HELLO [protover [AUTH username password] [SETNAME name]]: switches the
 * connection to RESP2 or RESP3 and answers with a map about the server.
 * AUTH logs in as the AUTH command does (acl.c), and a client that must
 * authenticate gets nothing else until it has. */
void helloCommand(client *c) {
    long long ver = 0;
    int j = 1;
    if (c->argc >= 2) {
        if (getLongLongFromObjectOrReply(c, c->argv[j++], &ver,
                "Protocol version is not an integer or out of range") != C_OK)
            return;
        if (ver < 2 || ver > 3) {
            addReplyError(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    for (; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const char *opt = c->argv[j]->v.ptr;
        if (!strcasecmp(opt, "AUTH") && more >= 2) {
            redactClientCommandArgument(c, j + 1);
            redactClientCommandArgument(c, j + 2);
            if (aclAuthenticateUser(c, c->argv[j + 1], c->argv[j + 2]) !=
                C_OK) {
                addReplyError(c, "-WRONGPASS invalid username-password pair "
                              "or user is disabled.");
                return;
            }
            j += 2;
        } else if (!strcasecmp(opt, "SETNAME") && more >= 1) {
            if (clientSetNameOrReply(c, c->argv[++j]) != C_OK) return;
        } else {
            addReplyErrorFormat(c, "Syntax error in HELLO option '%s'", opt);
            return;
        }
    }
    if (!c->authenticated) {
        addReplyError(c, "-NOAUTH HELLO must be called with the client "
                      "already authenticated, otherwise the HELLO AUTH "
                      "<user> <pass> option can be used to authenticate the "
                      "client and select the RESP protocol version at the "
                      "same time");
        return;
    }
    if (ver) c->resp = (int)ver;
    addReplyMapLen(c, 7);
    addReplyBulkCString(c, "server");
    addReplyBulkCString(c, "redis");
    addReplyBulkCString(c, "version");
    addReplyBulkCString(c, REDIS_VERSION);
    addReplyBulkCString(c, "proto");
    addReplyLongLong(c, c->resp);
    addReplyBulkCString(c, "id");
    addReplyLongLong(c, (long long)c->id);
    addReplyBulkCString(c, "mode");
    addReplyBulkCString(c, "standalone");
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, "master");
    addReplyBulkCString(c, "modules");
    addReplyArrayLen(c, 0);
}

/* The flags field of a CLIENT LIST line: one letter per state, in
 * Redis 7.0's order, or N for none. */
static void _clientFlags(const client *cl, char *out) {
    char *p = out;
    if (cl->flags & CLIENT_SLAVE) *p++ = 'S';
    if (cl->flags & CLIENT_MONITOR) *p++ = 'O';
    if (cl->flags & CLIENT_MASTER) *p++ = 'M';
    if (cl->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (cl->flags & CLIENT_MULTI) *p++ = 'x';
    if (cl->flags & CLIENT_BLOCKED) *p++ = 'b';
    if (cl->flags & CLIENT_TRACKING) *p++ = 't';
    if (cl->flags & CLIENT_TRACKING_BROKEN_REDIR) *p++ = 'R';
    if (cl->flags & CLIENT_TRACKING_BCAST) *p++ = 'B';
    if (cl->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (cl->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (cl->flags & CLIENT_UNBLOCKED) *p++ = 'u';
    if (cl->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    if (cl->flags & CLIENT_UNIX_SOCKET) *p++ = 'U';
    if (cl->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (p == out) *p++ = 'N';
    *p = '\0';
}

/* One CLIENT LIST line in Redis 7.0's format. The addresses are the
 * socket's on a native host; in the simulated world, which has no real
 * sockets, they are made up from the connection id. */
sds catClientInfoString(redisServer *s, client *cl, sds o) {
    size_t argvmem = clientArgvBytes(cl->argv, cl->argc), multimem = 0;
    for (int j = 0; j < cl->mstate.count; j++)
        multimem += clientArgvBytes(cl->mstate.commands[j].argv,
                                    cl->mstate.commands[j].argc);
    int mask = aeGetFileEvents(s->el, cl->fd);
    uint64_t now = (uint64_t)s->mstime;
    size_t omem, totmem = getClientMemoryUsage(cl, &omem);
    char flags[16];
    _clientFlags(cl, flags);
    return sdscatprintf(s->mem, o,
        "id=%llu addr=%s laddr=%s fd=%d name=%s "
        "age=%llu idle=%llu flags=%s db=%d sub=%d psub=%d ssub=%d multi=%d "
        "qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=%zu rbs=%zu rbp=%zu "
        "obl=%zu oll=%zu omem=%zu tot-mem=%zu events=%s%s cmd=%s "
        "user=%s redir=%lld resp=%d",
        (unsigned long long)cl->id, getClientPeerId(cl),
        getClientSockName(cl), cl->fd,
        cl->name ? cl->name : "",
        (unsigned long long)((now - cl->ctime_ms) / 1000),
        (unsigned long long)((now - cl->lastinteraction_ms) / 1000),
        flags, cl->db->id,
        cl->pubsub_channels ? (int)dictSize(cl->pubsub_channels) : 0,
        cl->pubsub_npatterns, clientShardSubscriptionsCount(cl),
        (cl->flags & CLIENT_MULTI) ? cl->mstate.count : -1,
        sdslen(cl->querybuf), sdsavail(cl->querybuf), argvmem, multimem,
        cl->buf_usable_size, cl->buf_usable_size, cl->bufpos,
        (size_t)cl->reply_blocks, omem, totmem, (mask & AE_READABLE) ? "r" : "",
        (mask & AE_WRITABLE) ? "w" : "",
        cl->lastcmd ? cl->lastcmd->fullname : "NULL",
        cl->user ? cl->user->name : "(superuser)",
        (cl->flags & CLIENT_TRACKING) ? (long long)cl->tracking_redirect : -1,
        cl->resp);
}

/* CLIENT INFO: one CLIENT LIST line about the calling client, as a bulk
 * string. */
void clientInfoCommand(client *c) {
    sds o = catClientInfoString(c->srv, c, sdsempty(c->srv->mem));
    o = sdscatlen(c->srv->mem, o, "\n", 1);
    addReplyVerbatim(c, o, sdslen(o), "txt");
    sdsfree(c->srv->mem, o);
}

/* CLIENT LIST [TYPE normal|replica|pubsub|master] [ID id ...]: TYPE
 * lists the clients of that class (getClientType; there is no master).
 * An id that is not an integer is refused ("Invalid client ID"); one that
 * matches no client (0 and negative ones included) lists nothing. */
void clientListCommand(client *c) {
    redisServer *s = c->srv;
    int type = -1, ids_from = 0;
    if (c->argc == 4 && !strcasecmp(c->argv[2]->v.ptr, "type")) {
        const char *t = c->argv[3]->v.ptr;
        if (strcasecmp(t, "normal") && strcasecmp(t, "master") &&
            strcasecmp(t, "replica") && strcasecmp(t, "slave") &&
            strcasecmp(t, "pubsub")) {
            addReplyErrorFormat(c, "Unknown client type '%s'", t);
            return;
        }
        type = !strcasecmp(t, "normal") ? CLIENT_TYPE_NORMAL
             : !strcasecmp(t, "pubsub") ? CLIENT_TYPE_PUBSUB
             : !strcasecmp(t, "master") ? CLIENT_TYPE_MASTER
             : CLIENT_TYPE_SLAVE;
    } else if (c->argc > 3 && !strcasecmp(c->argv[2]->v.ptr, "id")) {
        ids_from = 3;
        for (int j = 3; j < c->argc; j++) {
            long long id;
            if (getLongLongFromObjectOrReply(c, c->argv[j], &id,
                                             "Invalid client ID") != C_OK)
                return;
        }
    } else if (c->argc != 2) {
        addReplyError(c, "syntax error");
        return;
    }
    sds o = sdsempty(s->mem);
    if (ids_from) {
        /* In the order given, a repeated id repeated, as 7.0 does. */
        for (int j = ids_from; j < c->argc; j++) {
            long long id;
            getLongLongFromObject(c->argv[j], &id);
            client *cl = lookupClientByID(s, (uint64_t)id);
            if (cl) o = sdscatlen(s->mem, catClientInfoString(s, cl, o),
                                  "\n", 1);
        }
    }
    for (int fd = 0; !ids_from && fd < s->clients_cap; fd++) {
        client *cl = s->clients[fd];
        if (cl && (type == -1 || getClientType(cl) == type))
            o = sdscatlen(s->mem, catClientInfoString(s, cl, o), "\n", 1);
    }
    addReplyVerbatim(c, o, sdslen(o), "txt");
    sdsfree(s->mem, o);
}

/* CLIENT GETNAME: the name as a bulk string, or null if none was set. */
void clientGetNameCommand(client *c) {
    if (c->name) addReplyBulkCBuffer(c, c->name, sdslen(c->name));
    else addReplyNull(c);
}
