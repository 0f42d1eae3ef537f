/* server.c -- the server node: creation, command dispatch, serverCron and
 * beforeSleep, and the small commands that belong to no data type. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <stdarg.h>
#include "server.h"
#include "cost.h"
#include "script.h"
#include "acl.h"
#include "siphash.h"
#include "recovery.h"
#include "rdb.h"
#include "hyperloglog.h"

/* ---- Dict types. ---- */

uint64_t dictSdsHash(const dict *d, const void *key) {
    return siphash((const uint8_t *)key, sdslen((sds)key), d->env->seed);
}

/* As dictSdsHash, ASCII case-insensitive: for the command table. */
uint64_t dictSdsCaseHash(const dict *d, const void *key) {
    return siphash_nocase((const uint8_t *)key, sdslen((sds)key),
                          d->env->seed);
}

/* 1 if two sds keys hold the same bytes (binary safe), else 0. */
int dictSdsKeyCompare(const dict *d, const void *k1, const void *k2) {
    size_t l1 = sdslen((sds)k1), l2 = sdslen((sds)k2);
    return l1 == l2 && memcmp(k1, k2, l1) == 0;
}

/* 1 if two keys are equal ignoring ASCII case, else 0. strcasecmp stops at
 * a NUL byte, so this is for command names only, never for user keys. */
int dictSdsKeyCaseCompare(const dict *d, const void *k1, const void *k2) {
    return strcasecmp(k1, k2) == 0;
}

static void _dictSdsDestructor(dict *d, void *val) {
    sdsfree(d->env->mem, val);
}

static void _dictObjectDestructor(dict *d, void *val) {
    if (val) decrRefCount(d->privdata, val);
}

/* The keyspace may not grow its table past maxmemory while the load
 * factor is still below 1.618 (HASHTABLE_MAX_LOAD_FACTOR). */
static int _dictExpandAllowed(dict *d, size_t moreMem, double usedRatio) {
    redisServer *s = d->privdata;
    if (usedRatio > 1.618) return 1;
    if (s->cfg.maxmemory == 0) return 1;
    return (long long)(s->mem->used + moreMem) <= s->cfg.maxmemory;
}

const dictType dbDictType = {
    dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor,
    _dictObjectDestructor, _dictExpandAllowed };
const dictType keyptrDictType = {
    dictSdsHash, dictSdsKeyCompare, NULL, NULL, _dictExpandAllowed };
const dictType setDictType = {
    dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor, NULL, NULL };
const dictType hashDictType = {
    dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor, _dictSdsDestructor,
    NULL };
const dictType zsetDictType = {
    dictSdsHash, dictSdsKeyCompare, NULL, NULL, NULL };
const dictType keylistDictType = {
    dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor, NULL, NULL };
const dictType commandTableDictType = {
    dictSdsCaseHash, dictSdsKeyCaseCompare, _dictSdsDestructor, NULL, NULL };

/* Gives db a new empty keyspace and expires dict, traced as db->id's. */
void serverCreateDbDicts(redisServer *s, redisDb *db) {
    db->dict = dictCreate(&dbDictType, &s->denv);
    db->dict->privdata = s;
    db->dict->traced = 1;
    db->dict->trace_db = (uint16_t)db->id;
    db->dict->trace_kind = GK_DICT_KEYS;
    db->expires = dictCreate(&keyptrDictType, &s->denv);
    db->expires->privdata = s;
    db->expires->traced = 1;
    db->expires->trace_db = (uint16_t)db->id;
    db->expires->trace_kind = GK_DICT_EXPIRES;
}

/* ---- Configuration defaults (Redis 7.0). ---- */

/* Fills cfg with Redis 7.0's defaults (CONFIG REWRITE compares with
 * them too). */
void serverConfigDefaults(serverConfig *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->hz = CONFIG_DEFAULT_HZ;
    cfg->dynamic_hz = 1;
    cfg->activerehashing = 1;
    cfg->active_expire_effort = 1;
    cfg->proto_max_bulk_len = 512LL * 1024 * 1024;
    cfg->client_max_querybuf_len = 1024LL * 1024 * 1024;
    cfg->set_max_intset_entries = 512;
    cfg->hll_sparse_max_bytes = HLL_SPARSE_MAX_BYTES_DEFAULT;
    cfg->hash_max_listpack_entries = 512;
    cfg->hash_max_listpack_value = 64;
    cfg->zset_max_listpack_entries = 128;
    cfg->zset_max_listpack_value = 64;
    cfg->stream_node_max_bytes = 4096;
    cfg->stream_node_max_entries = 100;
    cfg->list_max_listpack_size = -2;
    cfg->maxclients = 10000;
    cfg->maxmemory_policy = MAXMEMORY_NO_EVICTION;
    cfg->lfu_log_factor = 10;
    cfg->lfu_decay_time = 1;
    cfg->maxmemory_samples = 5;
    cfg->maxmemory_eviction_tenacity = 10;
    cfg->repl_slave_ignore_maxmemory = 1;
    cfg->databases = CONFIG_DEFAULT_DBNUM;
    cfg->loglevel = LL_NOTICE;
    cfg->repl_ping_period = 10;
    cfg->repl_slave_ro = 1;
    cfg->repl_serve_stale_data = 1;
    cfg->repl_min_slaves_max_lag = 10;
    cfg->repl_timeout = 60;
    cfg->repl_diskless_sync = 1;
    cfg->repl_diskless_sync_delay = 5;
    cfg->replica_priority = 100;
    cfg->replica_announced = 1;
    cfg->obuf_limits[CLIENT_TYPE_SLAVE] =
        (clientBufferLimits){ 256LL << 20, 64LL << 20, 60 };
    cfg->obuf_limits[CLIENT_TYPE_PUBSUB] =
        (clientBufferLimits){ 32LL << 20, 8LL << 20, 60 };
    cfg->repl_backlog_size = 1024 * 1024;
    cfg->slowlog_log_slower_than = 10000;
    cfg->slowlog_max_len = 128;
    cfg->busy_reply_threshold = 5000;
    cfg->latency_tracking = 1;
    cfg->latency_percentiles[0] = 50.0;
    cfg->latency_percentiles[1] = 99.0;
    cfg->latency_percentiles[2] = 99.9;
    cfg->latency_percentiles_n = 3;
    cfg->appendfsync = AOF_FSYNC_EVERYSEC;
    cfg->aof_use_rdb_preamble = 1;
    cfg->stop_writes_on_bgsave_err = 1;
    cfg->aof_load_truncated = 1;
    cfg->aof_rewrite_incremental_fsync = 1;
    cfg->auto_aof_rewrite_perc = 100;
    cfg->auto_aof_rewrite_min_size = 64LL * 1024 * 1024;
    strcpy(cfg->appendfilename, "appendonly.aof");
    strcpy(cfg->appenddirname, "appendonlydir");
    /* 7.0's default save points: an hour and 1 change, 5 minutes and
     * 100, a minute and 10000. */
    static const long long secs[] = { 3600, 300, 60 };
    static const int changes[] = { 1, 100, 10000 };
    for (int j = 0; j < 3; j++) {
        cfg->save_seconds[j] = secs[j];
        cfg->save_changes[j] = changes[j];
    }
    strcpy(cfg->dbfilename, "dump.rdb");
    cfg->save_n = 3;
    cfg->acllog_max_len = 128;
    cfg->tracking_table_max_keys = 1000000;
}

/* The server's lookup dict over the shared, const command table. */
static void _populateCommandTable(redisServer *s) {
    s->commands = dictCreate(&commandTableDictType, &s->denv);
    /* Sized for every command at once. Redis grows it as the commands go
     * in, and the last growth's rehash then finishes step by step during
     * the first lookups, freeing the old table some commands later; here
     * a new server's memory is steady from its first command. Nothing
     * else about the table can be seen. */
    uint64_t n = 0;
    for (const redisCommand *c = redisCommandTable; c->declared_name; c++)
        n++;
    dictExpand(s->commands, n);
    for (const redisCommand *c = redisCommandTable; c->declared_name; c++)
        dictAdd(s->commands, sdsnew(s->mem, c->declared_name), (void *)c);
    s->cmdtable = redisCommandTable;
    s->ncommands = redisCommandCount;
    s->cmdstats = memCalloc(s->mem, sizeof(cmdStats) * (size_t)s->ncommands);
}

/* Caches the process's virtual clock as unix time in ustime and mstime,
 * shifted by the world's unix time at zero. */
void serverUpdateTime(redisServer *s) {
    uint64_t ns = s->el->backend.now(s->el->backend.ctx);
    s->ustime = s->unix_ms_at_zero * 1000 + (long long)(ns / 1000);
    s->mstime = s->ustime / 1000;
}

/* Creates a server node with 16 empty databases and serverCron scheduled
 * 1 ms from now, as Redis schedules it at startup. The hash seed is drawn
 * from rng, so a world's seed fixes every bucket index. */
redisServer *serverCreate(gkMem *mem, int node, aeBackend backend,
                          gkRng *rng, gkTrace *trace,
                          int64_t unix_ms_at_zero, size_t heap_limit) {
    redisServer *s = memCalloc(mem, sizeof(*s));
    memInitChild(&s->own, mem);
    s->mem = &s->own;
    s->node = node;
    s->heap_limit = heap_limit;
    s->unix_ms_at_zero = unix_ms_at_zero;
    serverConfigDefaults(&s->cfg);
    s->denv.mem = s->mem;
    s->own.cpu_ns = &s->denv.cpu_ns;
    s->own.quiet = &s->denv.quiet;
    s->own.alloc_ns = COST_ALLOC_NS;
    s->own.large_ns = COST_LARGE_NS;
    quicklistEnvInit(&s->qlenv, s->mem);
    for (int i = 0; i < 16; i += 8) {
        uint64_t r = rngNext(rng);
        for (int b = 0; b < 8; b++)
            s->denv.seed[i + b] = (uint8_t)(r >> (8 * b));
    }
    s->denv.resize_policy = DICT_RESIZE_ENABLE;
    s->denv.rng = rng;
    s->denv.trace = trace;
    s->denv.node = (uint16_t)node;
    s->denv.ns_per_bucket = 4;
    s->denv.ns_per_entry = COST_HASH_NS;
    s->cmd_cost_ns = 100;
    s->cmd_cost_ns_per_kb = 60;
    for (int i = 0; i < 40; i++)
        s->runid[i] = "0123456789abcdef"[rngNext(rng) & 15];
    s->el = aeCreateEventLoop(s->mem, (int)s->cfg.maxclients +
                              CONFIG_FDSET_INCR, backend);
    s->el->privdata = s;
    serverUpdateTime(s);
    s->start_ns = backend.now(backend.ctx);
    s->db = memCalloc(s->mem, sizeof(redisDb) * (size_t)s->cfg.databases);
    for (int j = 0; j < s->cfg.databases; j++) {
        s->db[j].id = j;
        serverCreateDbDicts(s, &s->db[j]);
        s->db[j].watched_keys = dictCreate(&keylistDictType, &s->denv);
        s->db[j].blocking_keys = dictCreate(&keylistDictType, &s->denv);
        s->db[j].ready_keys = dictCreate(&keylistDictType, &s->denv);
    }
    _populateCommandTable(s);
    s->audit.client_id = UINT64_MAX;
    s->next_client_id = 1;
    s->evict_timer_id = -1;
    s->lruclock = getLRUClock(s);
    s->hz = s->cfg.hz;
    createSharedIntegers(s);
    s->port = 6379;
    s->vm_overcommit_memory = 1;
    s->repl_seldb = -1;
    memset(s->replid2, '0', 40);
    s->second_replid_offset = -1;
    s->cached_offset = -1;
    s->cached_dbid = -1;
    s->repl_transfer_fd = -1;
    s->repl_transfer_tmpfd = -1;
    s->repl_stream_timer = -1;
    aclInit(s);
    aofInit(s);
    s->child.fd = -1;
    s->rdb_save_time_start = -1;
    s->rdb_save_time_last = -1;
    pubsubInit(s);
    scriptingInit(s);
    functionsInit(s);
    aeCreateTimeEvent(s->el, 1, serverCron, s);
    aeSetBeforeSleepProc(s->el, beforeSleep);
    return s;
}

/* Frees the server and all it owns: its clients, the databases and their
 * values, the AOF state, the event loop. Pending BIO jobs never run, but
 * values queued for lazy freeing are freed. s is dead afterwards. */
void serverRelease(redisServer *s) {
    s->releasing = 1;
    evictionRelease(s);
    recoveryRelease(s->recovery);
    s->recovery = NULL;
    bioKill(&s->bio);
    aofRelease(s);
    replicaRelease(s);
    replicationRelease(s);
    migrateCloseAllSockets(s);
    for (int fd = 0; fd < s->clients_cap; fd++)
        if (s->clients[fd]) freeClient(s->clients[fd]);
    memFree(s->mem, s->clients);
    auditEnd(s);
    for (int j = 0; j < s->cfg.databases; j++) {
        dictRelease(s->db[j].dict);
        dictRelease(s->db[j].expires);
        dictRelease(s->db[j].watched_keys);
    }
    scriptingRelease(s);
    functionsRelease(s);
    freeDetachedClient(s->fn_client);
    blockedRelease(s);
    pubsubRelease(s);
    trackingRelease(s);
    memFree(s->mem, s->db);
    dictRelease(s->commands);
    memFree(s->mem, s->cmdstats);
    memFree(s->mem, s->errstats);
    slowlogReset(s);
    latencyRelease(s);
    aeDeleteEventLoop(s->el);
    memFree(s->mem, s->also_propagate);
    memFree(s->mem, s->replicas);
    releaseSharedIntegers(s);
    clientAdminRelease(s);
    aclRelease(s);
    memFree(s->own.parent, s);
}

/* ---- Startup, the log, background work. ---- */

/* Sizes the event loop's tables for maxclients, as Redis's initServer
 * does once the configuration is read: maxclients descriptors and
 * CONFIG_FDSET_INCR more for listeners, files and pipes. They only grow
 * at runtime (CONFIG SET maxclients). C_ERR if a descriptor in use would
 * not fit. */
int serverSizeEventLoop(redisServer *s, int grow_only) {
    long long want = s->cfg.maxclients + CONFIG_FDSET_INCR;
    if (want > INT_MAX) return C_ERR;
    if (grow_only && want <= s->el->setsize) return C_OK;
    return aeResizeSetSize(s->el, (int)want) == C_OK ? C_OK : C_ERR;
}

/* Marks the end of startup: what the server holds now, before any data,
 * is its used_memory_startup. */
void serverStartupDone(redisServer *s) {
    s->initial_memory_usage = s->mem->used;
    s->own.startup = s->mem->used;
}

/* The process's current time in virtual ns (its main thread's clock). */
uint64_t serverNow(redisServer *s) {
    return s->el->backend.now(s->el->backend.ctx);
}

static void _bioLog(void *ctx, int level, const char *msg) {
    serverLog(ctx, level, "%s", msg);
}

/* One line in the machine's log as written by process pid in role ('M'
 * the main process, 'C' a child) at virtual time t, unless below
 * loglevel. The message is cut at 1023 bytes, as Redis's LOG_MAX_LEN
 * cuts it. Both the server and its forked child log through here. */
void serverLogV(redisServer *s, int pid, char role, uint64_t t, int level,
                const char *fmt, va_list ap) {
    char msg[1024];
    if (!s->log || level < s->cfg.loglevel) return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    int64_t ms = s->unix_ms_at_zero + (int64_t)(t / 1000000);
    logAppend(s->log, pid, role, level, ms, msg);
}

/* serverLog: one line in the machine's log, unless below loglevel. */
void serverLog(redisServer *s, int level, const char *fmt, ...) {
    if (s->releasing) return;
    va_list ap;
    va_start(ap, fmt);
    serverLogV(s, s->pid, s->masterhost ? 'S' : 'M', serverNow(s), level, fmt,
               ap);
    va_end(ap);
}

/* What initServer and main do after the configuration is loaded: the
 * background threads start, the dataset is loaded from the AOF (when
 * appendonly is yes) and the AOF is opened for appending. */
void serverStartup(redisServer *s) {
    int64_t ms = s->unix_ms_at_zero + (int64_t)(serverNow(s) / 1000000);
    char line[160];
    if (s->log) {
        logAppend(s->log, s->pid, 'C', LL_WARNING, ms,
                  "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
        snprintf(line, sizeof(line), "Redis version=7.0.15, bits=64, "
                 "commit=00000000, modified=0, pid=%d, just started", s->pid);
        logAppend(s->log, s->pid, 'C', LL_WARNING, ms, line);
        logAppend(s->log, s->pid, 'C', LL_WARNING, ms, "Configuration loaded");
    }
    bioInit(&s->bio, s->jobs, s->denv.trace, (uint16_t)s->node);
    s->bio.log = _bioLog;
    s->bio.log_ctx = s;
    serverLog(s, LL_NOTICE, "Running mode=standalone, port=%d.", s->port);
    serverLog(s, LL_WARNING, "Server initialized");
    /* linuxMemoryWarnings: the doubled "can can" is redis-server's. */
    if (s->vm_overcommit_memory != 1)
        serverLog(s, LL_WARNING, "WARNING Memory overcommit must be "
                  "enabled! Without it, a background save or replication "
                  "may fail under low memory condition. Being disabled, it "
                  "can can also cause failures without low memory "
                  "condition, see https://github.com/jemalloc/jemalloc/"
                  "issues/1328. To fix this issue add 'vm.overcommit_memory "
                  "= 1' to /etc/sysctl.conf and then reboot or run the "
                  "command 'sysctl vm.overcommit_memory=1' for this to take "
                  "effect.");
    /* The users of the configuration's "user" lines or of the ACL file;
     * an error in them stops the server, as redis-server exits. */
    if (aclLoadUsersAtStartup(s) != C_OK) {
        s->fs.exit(s->fs.ctx);
        return;
    }
    s->lastsave = s->mstime / 1000;
    aofLoadOnStartup(s);
    if (s->fs.alive && !s->fs.alive(s->fs.ctx, FS_POINT_CALL)) return;
    /* Without the AOF the dataset comes from the RDB file, if there is
     * one (loadDataFromDisk). */
    if (!s->cfg.appendonly && s->fs.size &&
        s->fs.size(s->fs.ctx, s->cfg.dbfilename) >= 0) {
        uint64_t start = serverNow(s);
        if (rdbLoadFile(s, s->cfg.dbfilename, 0) != C_OK) {
            serverLog(s, LL_WARNING, "Fatal error loading the DB: Invalid "
                      "argument. Exiting.");
            s->fs.exit(s->fs.ctx);
            return;
        }
        s->dirty = 0;
        serverLog(s, LL_NOTICE, "DB loaded from disk: %.3f seconds",
                  (double)(serverNow(s) - start) / 1e9);
        replicationRestoreFromRdb(s);
    }
    serverLog(s, LL_NOTICE, "Ready to accept connections");
}

/* What Redis 7.0 does before the process exits, on SHUTDOWN or a
 * SIGTERM: a BGSAVE child is killed and its temp file removed; a rewrite
 * child is killed (the AOF in use already holds the whole dataset),
 * unless it is writing the first AOF after appendonly was switched on,
 * which only FORCE overrides; then aof_buf is written and the file
 * fsynced, so every write acknowledged so far survives even a power
 * loss; then the final snapshot, with save points or SAVE. C_OK once the
 * process may exit; C_ERR after logging why not. The host ends the
 * process (exit_proc); the engine never does. */
int prepareForShutdown(redisServer *s, int flags) {
    serverLog(s, LL_WARNING, "User requested shutdown...");
    aofState *a = &s->aof;
    if (s->child.type == CHILD_TYPE_RDB) {
        serverLog(s, LL_WARNING, "There is a child saving an .rdb. Killing "
                  "it!");
        int pid = s->child.pid;
        killRDBChild(s);
        rdbRemoveTempFile(s, pid);
    }
    if (a->state != AOF_OFF) {
        if (s->child.type == CHILD_TYPE_AOF) {
            if (a->state == AOF_WAIT_REWRITE) {
                if (!(flags & SHUTDOWN_FORCE)) {
                    serverLog(s, LL_WARNING, "Writing initial AOF, can't "
                              "exit.");
                    goto error;
                }
                serverLog(s, LL_WARNING, "Writing initial AOF. Exit "
                          "anyway.");
            }
            serverLog(s, LL_WARNING, "There is a child rewriting the AOF. "
                      "Killing it!");
            aofKillChild(s);
        }
        serverLog(s, LL_NOTICE, "Calling fsync() on the AOF file.");
        flushAppendOnlyFile(s, 1);
        int r = a->fd >= 0 ? s->fs.fsync(s->fs.ctx, a->fd) : 0;
        if (r < 0)
            serverLog(s, LL_WARNING, "Fail to fsync the AOF file: %s.",
                      aofStrerror(-r));
    }
    /* The final snapshot, with save points or when asked for. */
    if ((s->cfg.save_n > 0 && !(flags & SHUTDOWN_NOSAVE)) ||
        (flags & SHUTDOWN_SAVE)) {
        serverLog(s, LL_NOTICE, "Saving the final RDB snapshot before "
                  "exiting.");
        if (rdbSaveDataset(s) != C_OK) {
            if (!(flags & SHUTDOWN_FORCE)) {
                serverLog(s, LL_WARNING, "Error trying to save the DB, "
                          "can't exit.");
                goto error;
            }
            serverLog(s, LL_WARNING, "Error trying to save the DB. Exit "
                      "anyway.");
        }
    }
    serverLog(s, LL_WARNING, "Redis is now ready to exit, bye bye...");
    return C_OK;
error:
    serverLog(s, LL_WARNING, "Errors trying to shut down the server. Check "
              "the logs for more information.");
    return C_ERR;
}

/* When the process's forked child next acts (AE_NEVER: it has none, or
 * it exited). The bio threads are the job backend's to run. */
uint64_t serverChildNext(redisServer *s) { return childNext(s); }

/* Lets the child act at t (the time serverChildNext gave), with its file
 * backend's clock at t. */
void serverChildRun(redisServer *s, uint64_t t) { childRun(s, t); }

/* ---- Dispatch. ---- */

/* The command for argv: a container's subcommand when there is one. NULL
 * if unknown. */
const redisCommand *lookupCommand(redisServer *s, robj **argv, int argc) {
    const redisCommand *base = dictFetchValue(s->commands, argv[0]->v.ptr);
    if (!base || !base->subcommands || argc == 1) return base;
    for (const redisCommand *sub = base->subcommands; sub->declared_name;
         sub++)
        if (!strcasecmp(sub->declared_name, argv[1]->v.ptr)) return sub;
    return NULL;
}

static void _rejectUnknown(client *c) {
    redisServer *s = c->srv;
    const redisCommand *base = dictFetchValue(s->commands,
                                              c->argv[0]->v.ptr);
    if (base && base->subcommands) {
        sds cmd = sdsnew(s->mem, c->argv[0]->v.ptr);
        sdstoupper(cmd);
        addReplyErrorFormat(c, "unknown subcommand '%.128s'. Try %s HELP.",
                            (char *)c->argv[1]->v.ptr, cmd);
        sdsfree(s->mem, cmd);
        return;
    }
    sds args = sdsempty(s->mem);
    for (int i = 1; i < c->argc && sdslen(args) < 128; i++)
        args = sdscatprintf(s->mem, args, "'%.*s' ", 128 - (int)sdslen(args),
                            (char *)c->argv[i]->v.ptr);
    addReplyErrorFormat(c, "unknown command '%.128s', with args beginning "
                        "with: %s", (char *)c->argv[0]->v.ptr, args);
    sdsfree(s->mem, args);
}

/* The engine's own limit on its memory: commands that may grow memory are
 * refused beyond it, so running out of the WebAssembly heap becomes an
 * -OOM reply instead of a crash. */
int serverHeapExceeded(redisServer *s) {
    return s->heap_limit && memTotalUsed(s->mem) > s->heap_limit;
}

/* Whether a command that may grow memory is refused now: maxmemory left
 * no room before the command (evictions could not make it), or the heap
 * limit is passed. */
int serverOutOfMemory(redisServer *s) {
    return (s->cfg.maxmemory && s->pre_command_oom_state) ||
           serverHeapExceeded(s);
}

/* rejectCommand: the command is refused with err ("-CODE message"):
 * inside MULTI the transaction will fail at EXEC; an EXEC itself fails
 * now with EXECABORT and the reason. */
static void _rejectCommand(client *c, int is_exec, const char *err) {
    redisServer *s = c->srv;
    s->cmdstats[c->cmd->id].rejected++;
    TRACE(s->denv.trace, GK_TR_REFUSED, (uint16_t)s->node,
          (uint32_t)c->cmd->id, (uint32_t)c->fd, 0,
          errorCodeNumber(err, strlen(err)));
    flagTransaction(c);
    if (is_exec && (c->flags & CLIENT_MULTI)) {
        sds msg = sdscatprintf(s->mem, sdsempty(s->mem), "-EXECABORT "
                               "Transaction discarded because of: %s",
                               err + 1);
        addReplyErrorSds(c, msg);
        discardTransaction(c);
        /* Monitors see the EXEC that failed (call() feeds the others). */
        replicationFeedMonitors(c, c->db->id, c->argv, c->argc);
        return;
    }
    addReplyError(c, err);
}

/* Writes, and PING, are refused while the AOF cannot be written (the
 * last write failed, or the last background fsync): a client that could
 * not be made durable should not be told its writes succeeded. Returns
 * C_ERR after replying -MISCONF (EXECABORT for an EXEC). */
static int _rejectDiskError(client *c, int is_exec, int is_write) {
    redisServer *s = c->srv;
    if (!is_write && c->cmd->proc != pingCommand) return C_OK;
    if (!writeCommandsDeniedByDiskError(s)) return C_OK;
    sds err = writeCommandsGetDiskErrorMessage(s);
    _rejectCommand(c, is_exec, err);
    sdsfree(s->mem, err);
    return C_ERR;
}

/* A RESP2 connection in the subscribed state only carries messages: any
 * other command than these is refused with 7.0's error. RESP3 has no
 * limit, its messages being pushes. */
static int _rejectInPubsubContext(client *c) {
    redisCommandProc *p = c->cmd->proc;
    if (!(c->flags & CLIENT_PUBSUB) || c->resp != 2) return C_OK;
    if (p == pingCommand || p == subscribeCommand ||
        p == ssubscribeCommand || p == unsubscribeCommand ||
        p == sunsubscribeCommand || p == psubscribeCommand ||
        p == punsubscribeCommand || p == quitCommand ||
        !strcmp(c->cmd->fullname, "reset"))
        return C_OK;
    flagTransaction(c);
    c->srv->cmdstats[c->cmd->id].rejected++;
    addReplyErrorFormat(c, "Can't execute '%s': only (P|S)SUBSCRIBE / "
                        "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed "
                        "in this context", c->cmd->fullname);
    return C_ERR;
}

/* The user's permissions (acl.c): a denied command, key or channel is
 * refused with 7.0's NOPERM error and goes to the ACL log. C_ERR after
 * replying. */
static int _rejectAclDenied(client *c) {
    int idx = 0;
    int r = aclCheckAllPerm(c, &idx);
    if (r == ACL_OK) return C_OK;
    addACLLogEntry(c, r, (c->flags & CLIENT_MULTI) ? ACL_LOG_CTX_MULTI
                                                   : ACL_LOG_CTX_TOPLEVEL,
                   idx, NULL, NULL);
    flagTransaction(c);
    c->srv->cmdstats[c->cmd->id].rejected++;
    if (r == ACL_DENIED_CMD)
        addReplyErrorFormat(c, "-NOPERM this user has no permissions to run "
                            "the '%s' command", c->cmd->fullname);
    else if (r == ACL_DENIED_KEY)
        addReplyError(c, "-NOPERM this user has no permissions to access "
                      "one of the keys used as arguments");
    else
        addReplyError(c, "-NOPERM this user has no permissions to access "
                      "one of the channels used as arguments");
    return C_ERR;
}

/* Whether enable-debug-command (or enable-module-command, for MODULE's
 * LOAD, LOADEX and UNLOAD) lets this client run its protected command:
 * "local" means a connection from the same machine (every connection of
 * the simulated world is one). */
static int _protectedAllowed(client *c) {
    int mode = c->cmd->proc == debugCommand ? c->srv->cfg.enable_debug_cmd
                                            : c->srv->cfg.enable_module_cmd;
    if (mode == PROTECTED_ACTION_ALLOWED_YES) return 1;
    if (mode != PROTECTED_ACTION_ALLOWED_LOCAL) return 0;
    aeBackend *be = &c->srv->el->backend;
    return !be->isLocal || be->isLocal(be->ctx, c->fd);
}

/* A replica, or a MONITOR client (Redis marks both replicas), may not
 * touch the keyspace: reads, writes and what may propagate are refused.
 * C_ERR after replying. */
static int _rejectReplicaKeyspace(client *c, int is_exec) {
    uint64_t f = c->cmd->flags;
    if (is_exec) f |= c->mstate.cmd_flags;
    if (!(c->flags & (CLIENT_SLAVE | CLIENT_MONITOR)) ||
        !(f & (CMD_WRITE | CMD_READONLY | CMD_MAY_REPLICATE))) return C_OK;
    flagTransaction(c);
    c->srv->cmdstats[c->cmd->id].rejected++;
    addReplyError(c, "Replica can't interact with the keyspace");
    return C_ERR;
}

/* What reading and dispatching a command costs before its call: a fixed
 * part and the bytes of its arguments, copied from the query buffer, but
 * for those of PROTO_MBULK_BIG_ARG bytes or more, which Redis keeps as the
 * buffer they were read into. All of them were just read: call() charges
 * what they pushed out of the caches. */
static void _chargeDispatch(client *c) {
    size_t argbytes = 0, all = 0;
    for (int j = 0; j < c->argc; j++) {
        if (!sdsEncodedObject(c->argv[j])) continue;
        size_t len = sdslen(c->argv[j]->v.ptr);
        all += len;
        if (len < PROTO_MBULK_BIG_ARG) argbytes += len;
    }
    c->request_bytes = all;
    c->srv->denv.cpu_ns += c->srv->cmd_cost_ns +
                           (uint64_t)argbytes * c->srv->cmd_cost_ns_per_kb /
                           1024;
}

/* Checks a parsed command and runs it (processCommand in Redis): lookup,
 * arity, DEBUG's permission, authentication, memory, disk errors, a
 * replica's access to the keyspace, a client pause (which holds the
 * command for later); then serves the clients blocked on keys the
 * command made ready. Returns C_OK if the client is still valid. */
int processCommand(client *c) {
    redisServer *s = c->srv;
    /* A command a pause held was read and dispatched the first time. */
    if (c->flags & CLIENT_PENDING_COMMAND) c->flags &= ~(uint64_t)CLIENT_PENDING_COMMAND;
    else _chargeDispatch(c);
    c->cmd = c->lastcmd = lookupCommand(s, c->argv, c->argc);
    if (!c->cmd) {
        flagTransaction(c);
        _rejectUnknown(c);
        return C_OK;
    }
    if ((c->cmd->arity > 0 && c->cmd->arity != c->argc) ||
        (c->argc < -c->cmd->arity)) {
        flagTransaction(c);
        s->cmdstats[c->cmd->id].rejected++;
        addReplyErrorArity(c);
        return C_OK;
    }
    if ((c->cmd->flags & CMD_PROTECTED) && !_protectedAllowed(c)) {
        int debug = c->cmd->proc == debugCommand;
        flagTransaction(c);
        s->cmdstats[c->cmd->id].rejected++;
        addReplyErrorFormat(c, "%s command not allowed. If the %s option is "
                            "set to \"local\", you can run it from a local "
                            "connection, otherwise you need to set this "
                            "option in the configuration file, and then "
                            "restart the server.", debug ? "DEBUG" : "MODULE",
                            debug ? "enable-debug-command"
                                  : "enable-module-command");
        return C_OK;
    }
    if (authRequired(c) && !(c->cmd->flags & CMD_NO_AUTH)) {
        flagTransaction(c);
        s->cmdstats[c->cmd->id].rejected++;
        addReplyError(c, "-NOAUTH Authentication required.");
        return C_OK;
    }
    if ((c->flags & CLIENT_MULTI) && (c->cmd->flags & CMD_NO_MULTI)) {
        flagTransaction(c);
        s->cmdstats[c->cmd->id].rejected++;
        addReplyError(c, "Command not allowed inside a transaction");
        return C_OK;
    }
    if (_rejectAclDenied(c) != C_OK) return C_OK;
    /* Clients over maxmemory-clients go (before keys do, and even while a
     * script is busy); if this one went, its command is not run. */
    int current = s->current_client == c;
    evictClients(s);
    if (current && s->current_client == NULL) return C_ERR;
    /* While a script is busy only a few commands run. */
    if (scriptIsTimedout(s) && !(c->cmd->flags & CMD_ALLOW_BUSY)) {
        _rejectCommand(c, c->cmd->proc == execCommand,
                       scriptBusyError(s, s->script_run->flags &
                                          SCRIPT_EVAL_MODE));
        return C_OK;
    }
    int is_exec = c->cmd->proc == execCommand;
    uint64_t flags = c->cmd->flags;
    /* A script's shebang flags stand for EVAL's. */
    if (c->cmd->proc == evalCommand || c->cmd->proc == evalShaCommand ||
        c->cmd->proc == evalRoCommand || c->cmd->proc == evalShaRoCommand)
        flags = evalGetCommandFlags(c, flags);
    else if (c->cmd->proc == fcallCommand || c->cmd->proc == fcallroCommand)
        flags = fcallGetCommandFlags(c, flags);
    int is_write = (flags & CMD_WRITE) ||
                   (is_exec && (c->mstate.cmd_flags & CMD_WRITE));
    int denyoom = (flags & CMD_DENYOOM) ||
                  (is_exec && (c->mstate.cmd_flags & CMD_DENYOOM));
    int denystale = !(flags & CMD_STALE) ||
                    (is_exec && (c->mstate.cmd_inv_flags & CMD_STALE));
    /* The master's commands are obeyed: its replica only follows. */
    int obey = (c->flags & CLIENT_MASTER) != 0;
    /* Inside MULTI anything queued uses memory: only EXEC, DISCARD, QUIT
     * and RESET are let through when over the limit. */
    if ((c->flags & CLIENT_MULTI) && !is_exec &&
        c->cmd->proc != discardCommand && c->cmd->proc != quitCommand &&
        c->cmd->proc != resetCommand)
        denyoom = 1;
    /* maxmemory: evict first; a busy script's nested commands leave it
     * alone, so that its propagation is not mixed with DELs. */
    if (s->cfg.maxmemory &&
        !(s->script_run && (s->script_run->flags & SCRIPT_TIMEDOUT))) {
        s->pre_command_oom_state = performEvictions(s) == EVICT_FAIL;
        /* An evicted key's message must come before this reply, which
         * may be about the key's new value. */
        trackingHandlePendingKeyInvalidations(s);
    }
    if (!obey && denyoom && serverOutOfMemory(s)) {
        _rejectCommand(c, is_exec, "-OOM command not allowed when used "
                       "memory > 'maxmemory'.");
        return C_OK;
    }
    if (s->tracking_clients) trackingLimitUsedSlots(s);
    if (!obey && _rejectDiskError(c, is_exec, is_write) != C_OK)
        return C_OK;
    if (is_write && !obey && !checkGoodReplicasStatus(s)) {
        _rejectCommand(c, is_exec, "-NOREPLICAS Not enough good replicas to "
                       "write.");
        return C_OK;
    }
    if (s->masterhost && s->cfg.repl_slave_ro && !obey && is_write) {
        _rejectCommand(c, is_exec, "-READONLY You can't write against a "
                       "read only replica.");
        return C_OK;
    }
    if (_rejectInPubsubContext(c) != C_OK) return C_OK;
    if (s->masterhost && s->repl_state != REPL_STATE_CONNECTED &&
        !s->cfg.repl_serve_stale_data && denystale) {
        _rejectCommand(c, is_exec, "-MASTERDOWN Link with MASTER is down "
                       "and replica-serve-stale-data is set to 'no'.");
        return C_OK;
    }
    if (_rejectReplicaKeyspace(c, is_exec) != C_OK) return C_OK;
    /* A pause holds the command, unread input behind it, until it ends;
     * by then the bytes it came in are no longer the last read. */
    if (clientPauseHolds(c)) {
        c->request_bytes = 0;
        postponeClient(c);
        return C_OK;
    }
    if ((c->flags & CLIENT_MULTI) && !is_exec &&
        c->cmd->proc != discardCommand && c->cmd->proc != multiCommand &&
        c->cmd->proc != watchCommand && c->cmd->proc != quitCommand &&
        c->cmd->proc != resetCommand) {
        queueMultiCommand(c);
        addReplyStatus(c, "QUEUED");
        return C_OK;
    }
    call(c);
    if (s->ready_keys_n) handleClientsBlockedOnKeys(s);
    return C_OK;
}

/* ---- Propagation. ----
 *
 * A write is propagated after it ran: call() sees that the command made
 * the dataset dirty and queues its argv (as the command left it) with
 * alsoPropagate; keys found expired during the command queue a DEL the
 * same way. When the outermost call() returns -- the end of the
 * execution unit -- propagatePendingCommands feeds the queue to the AOF,
 * wrapped in MULTI ... EXEC if there is more than one command, so that
 * an EXEC, or a SET that first deleted an expired key, is replayed as one
 * unit. Nothing here writes a file: feedAppendOnlyFile only appends to
 * aof_buf. */

/* Queues argv (new references) for propagation at the end of the unit,
 * to the targets given (PROPAGATE_AOF, PROPAGATE_REPL or both). Nothing
 * is propagated while the AOF is being loaded. */
static void _alsoPropagateTo(redisServer *s, int dbid, robj **argv,
                             int argc, int target) {
    if (s->loading) return;
    /* The ledger follows the data, which is what the AOF holds. */
    if (s->recovery && (target & PROPAGATE_AOF))
        recoveryOp(s, dbid, argv, argc);
    /* Drop what would reach no file and no replica. */
    if (s->aof.state == AOF_OFF) target &= ~PROPAGATE_AOF;
    if (!replicationActive(s)) target &= ~PROPAGATE_REPL;
    if (!target) return;
    if (s->also_propagate_n == s->also_propagate_cap) {
        s->also_propagate_cap = s->also_propagate_cap
                                ? s->also_propagate_cap * 2 : 4;
        s->also_propagate = memRealloc(s->mem, s->also_propagate,
            sizeof(redisOp) * (size_t)s->also_propagate_cap);
    }
    redisOp *op = &s->also_propagate[s->also_propagate_n++];
    op->argv = memAllocAs(s->mem, sizeof(robj *) * (size_t)argc,
                          MEM64_PTR * (size_t)argc);
    op->argc = argc;
    op->dbid = dbid;
    op->target = target;
    for (int j = 0; j < argc; j++) {
        op->argv[j] = argv[j];
        incrRefCount(argv[j]);
    }
}

/* Queues argv for the AOF and the replicas (see _alsoPropagateTo). */
void alsoPropagate(redisServer *s, int dbid, robj **argv, int argc) {
    _alsoPropagateTo(s, dbid, argv, argc, PROPAGATE_AOF | PROPAGATE_REPL);
}

/* Propagates the command even if it did not change the dataset (FLUSHDB
 * on an empty db is still written to the AOF). */
void forceCommandPropagation(client *c) { c->flags |= CLIENT_FORCE_PROP; }

/* Keeps the command itself out of the AOF even though it changed the
 * dataset: it has queued what stands for it with alsoPropagate (SPOP
 * with a count, as one SREM per member). */
void preventCommandPropagation(client *c) { c->flags |= CLIENT_PREVENT_PROP; }

/* Sends the command to the replicas only, though it changed nothing:
 * PUBLISH, for the replicas' own subscribers (Redis's
 * forceCommandPropagation(c, PROPAGATE_REPL)). */
void forceCommandReplication(client *c) { c->flags |= CLIENT_FORCE_REPL; }

static void _propagateNow(redisServer *s, int dbid, robj **argv, int argc,
                          int target) {
    if (s->aof.state != AOF_OFF && (target & PROPAGATE_AOF))
        feedAppendOnlyFile(s, dbid, argv, argc);
    if (target & PROPAGATE_REPL) replicationFeed(s, dbid, argv, argc);
}

static void _propagateWord(redisServer *s, int dbid, const char *word) {
    robj *o = createStringObject(s, word, strlen(word));
    _propagateNow(s, dbid, &o, 1, PROPAGATE_AOF | PROPAGATE_REPL);
    decrRefCount(s, o);
}

/* Feeds the queued commands to the AOF and empties the queue. */
void propagatePendingCommands(redisServer *s) {
    int n = s->also_propagate_n;
    if (n == 0) return;
    /* One command is atomic alone; the keys SCAN or RANDOMKEY happen to
     * find expired are independent deletions, as active expiry's are. */
    client *cur = s->current_client;
    int multi = n > 1 && !(cur && cur->cmd &&
                           (cur->cmd->flags & CMD_TOUCHES_ARBITRARY_KEYS));
    if (multi) _propagateWord(s, s->also_propagate[0].dbid, "MULTI");
    for (int i = 0; i < n; i++) {
        redisOp *op = &s->also_propagate[i];
        _propagateNow(s, op->dbid, op->argv, op->argc, op->target);
        for (int j = 0; j < op->argc; j++) decrRefCount(s, op->argv[j]);
        memFree(s->mem, op->argv);
    }
    if (multi) _propagateWord(s, -1, "EXEC");
    s->also_propagate_n = 0;
}

/* What the slow log and the latency monitor learn of a call that took
 * ns of virtual CPU: the "command" or "fast-command" event, and, unless
 * the client blocked (it is logged when served), a slow log entry and a
 * histogram count. Commands replayed from the AOF are not observed. */
static void _callObserved(client *c, long long ns) {
    redisServer *s = c->srv;
    if (c->flags & CLIENT_FAKE) return;
    latencyAddSampleIfNeeded(s, (c->cmd->flags & CMD_FAST) ?
                             "fast-command" : "command", ns / 1000000);
    if (c->flags & CLIENT_BLOCKED) return;
    slowlogPushCurrentCommand(c, c->cmd, ns / 1000);
    latencyRecordCommand(s, c->cmd->id, ns);
    freeClientOriginalArgv(c);
}

/* Runs the command with the clock frozen at the start of the outermost
 * call (an EXEC runs its queue at one time), counts it, traces it, and
 * propagates it if it changed the dataset. */
void call(client *c) {
    redisServer *s = c->srv;
    long long dirty = s->dirty;
    long long repl_offset = s->master_repl_offset;
    uint64_t cpu0 = s->denv.cpu_ns;
    s->denv.cpu_ns += COST_CALL_NS;
    if (s->execution_nesting == 0) {
        s->denv.cpu_ns += costDisplacedNs(c->request_bytes);
        c->request_bytes = 0;
    }
    if (s->fs.alive && !s->fs.alive(s->fs.ctx, FS_POINT_CALL)) return;
    if (s->execution_nesting == 0) serverUpdateTime(s);
    s->stat_errors_seen = s->stat_total_error_replies;
    c->flags &= ~(CLIENT_FORCE_PROP | CLIENT_PREVENT_PROP |
                  CLIENT_FORCE_REPL);
    s->execution_nesting++;
    c->cmd->proc(c);
    s->execution_nesting--;
    monitorFeedCall(c);
    /* The client's user was deleted by its own command: it goes once
     * this reply is written. */
    if (c->flags & CLIENT_CLOSE_AFTER_COMMAND) {
        c->flags &= ~(uint64_t)CLIENT_CLOSE_AFTER_COMMAND;
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
    /* Only a rise counts: DEBUG LOADAOF zeroes the counter, and Redis
     * takes a negative difference for none. */
    int target = 0;
    if (s->dirty > dirty || (c->flags & CLIENT_FORCE_PROP))
        target = PROPAGATE_AOF | PROPAGATE_REPL;
    if (c->flags & CLIENT_FORCE_REPL) target |= PROPAGATE_REPL;
    /* redis.set_repl chooses where a script's commands go. */
    if ((c->flags & CLIENT_SCRIPT) && s->script_run)
        target &= s->script_run->repl_flags;
    if (target && !(c->flags & CLIENT_PREVENT_PROP) &&
        c->cmd->proc != execCommand)
        _alsoPropagateTo(s, c->db->id, c->argv, c->argc, target);
    c->flags &= ~(CLIENT_FORCE_PROP | CLIENT_PREVENT_PROP |
                  CLIENT_FORCE_REPL);
    trackingCommandDone(c);
    if (s->execution_nesting == 0) {
        propagatePendingCommands(s);
        if (s->recovery) recoveryUnitEnd(s, c);
        /* After the reply, never inside it (or inside EXEC's). */
        trackingHandlePendingKeyInvalidations(s);
    }
    /* What WAIT waits for: the offset right after the client's last
     * command that reached the replication stream. */
    if (s->master_repl_offset != repl_offset) c->woff = s->master_repl_offset;
    cmdStats *st = &s->cmdstats[c->cmd->id];
    long long ns = (long long)(s->denv.cpu_ns - cpu0);
    st->calls++;
    st->ns += ns;
    if (ns > st->max_ns) st->max_ns = ns;
    _callObserved(c, ns);
    s->denv.cpu_ns += COST_CALL_AFTER_NS;   /* after the command's timing */
    /* Failed only if an error reply was added since the last call, or
     * the last command a script had refused, ended (CONFIG RESETSTAT
     * zeroes the counter on its way, which is no failure). */
    if (s->stat_total_error_replies > s->stat_errors_seen) st->failed++;
    s->stat_errors_seen = s->stat_total_error_replies;
    s->stat_numcommands++;
    c->commands_processed++;
    TRACE(s->denv.trace, GK_TR_CMD, (uint16_t)s->node, (uint32_t)c->db->id,
          (uint32_t)c->fd, (uint32_t)c->argc, (uint64_t)c->cmd->id);
}

/* ---- serverCron and beforeSleep. ---- */

static int _runWithPeriod(redisServer *s, int ms) {
    return ms <= 1000 / s->hz || !(s->cronloops % (ms / (1000 / s->hz)));
}

/* run_with_period(ms) for code outside serverCron's file. */
int serverRunWithPeriod(redisServer *s, int ms) {
    return _runWithPeriod(s, ms);
}

/* Resizes and rehashes the databases (and expires keys), in Redis 7.0's
 * order: expire first, then shrink up to 16 dbs, then give 1 ms of rehash
 * to the first db that needs it. */
static void _databasesCron(redisServer *s) {
    if (!s->masterhost) activeExpireCycle(s, ACTIVE_EXPIRE_CYCLE_SLOW);
    int dbs = s->cfg.databases < CRON_DBS_PER_CALL ? s->cfg.databases
                                                   : CRON_DBS_PER_CALL;
    for (int j = 0; j < dbs; j++) {
        tryResizeHashTables(s, s->resize_db % s->cfg.databases);
        s->resize_db++;
    }
    if (!s->cfg.activerehashing) return;
    for (int j = 0; j < dbs; j++) {
        if (incrementallyRehash(s, s->rehash_db)) break;
        s->rehash_db = (s->rehash_db + 1) % s->cfg.databases;
    }
}

static void _trackInstantaneous(redisServer *s) {
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    long long dt = (long long)(now - (uint64_t)s->stat_inst_last_ns);
    long long dc = s->stat_numcommands - s->stat_inst_last_cmds;
    s->stat_inst_ops_per_sec = dt > 0 ? dc * 1000000000LL / dt : 0;
    s->stat_inst_last_ns = (long long)now;
    s->stat_inst_last_cmds = s->stat_numcommands;
}

/* Runs hz times per second of virtual time. Returns the delay to the next
 * call in ms. */
long long serverCron(aeEventLoop *el, long long id, void *clientData) {
    redisServer *s = clientData;
    TRACE(s->denv.trace, GK_TR_LOOP, (uint16_t)s->node, GK_LOOP_CRON, 0, 0,
          (uint64_t)s->cronloops);
    serverUpdateTime(s);
    /* dynamic-hz: double the configured hz while there are more than 200
     * clients per tick, so clientsCron keeps up. */
    s->hz = s->cfg.hz;
    if (s->cfg.dynamic_hz) {
        while (s->numclients / s->hz > 200 && s->hz < CONFIG_MAX_HZ)
            s->hz *= 2;
        if (s->hz > CONFIG_MAX_HZ) s->hz = CONFIG_MAX_HZ;
    }
    /* DEBUG PAUSE-CRON 1: nothing more until it is 0 again. */
    if (s->pause_cron) return 1000 / s->hz;
    s->lruclock = getLRUClock(s);
    if (_runWithPeriod(s, 100)) _trackInstantaneous(s);
    /* A SIGTERM or SIGINT the host caught: shut down here, where it is
     * safe, as Redis does rather than in the signal handler. */
    if (s->shutdown_asap) {
        s->shutdown_asap = 0;
        if (s->exit_proc && prepareForShutdown(s, SHUTDOWN_NOFLAGS) == C_OK)
            s->exit_proc(s->exit_ctx, 0);
        else
            serverLog(s, LL_WARNING, "SIGTERM received but errors trying "
                      "to shut down the server, check the logs for more "
                      "information");
    }
    /* A pause whose time is up ends here at the latest. */
    checkClientPauseTimeoutAndReturnIfPaused(s);
    _databasesCron(s);
    childCron(s);
    aofCron(s);
    /* Every 100 ms while a FAILOVER goes on, so that it moves quickly. */
    if (_runWithPeriod(s, s->failover_state != NO_FAILOVER ? 100 : 1000))
        replicationCron(s);
    rdbStartScheduledSave(s);
    if (_runWithPeriod(s, 1000)) migrateCloseTimedoutSockets(s);
    /* Also before every command: here for a server left idle after
     * CONFIG SET lowered tracking-table-max-keys. */
    if (s->tracking_clients) trackingLimitUsedSlots(s);
    clientsCron(s);
    clientsCronOutputBufferLimits(s);
    TRACE(s->denv.trace, GK_TR_CRON, (uint16_t)s->node,
          (uint32_t)s->cronloops, 0, 0, 0);
    s->cronloops++;
    return 1000 / s->hz;
}

/* Frees the clients flagged CLOSE_ASAP. The flags live on the clients,
 * so this walks the table, but only when one is flagged: a loop serving
 * thousands of connections must not pay for the walk on every
 * iteration. */
static void _freeClientsInAsyncFreeQueue(redisServer *s) {
    for (int fd = 0; s->clients_to_close && fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (c && (c->flags & CLIENT_CLOSE_ASAP)) freeClient(c);
    }
}

/* Called before the loop sleeps: fast expire cycle, then (after the AOF
 * flush, which comes later) the replies are written, then clients closed
 * asynchronously are freed. */
void beforeSleep(aeEventLoop *el) {
    redisServer *s = el->privdata;
    if (s->fs.alive && !s->fs.alive(s->fs.ctx, FS_POINT_BEFORE_SLEEP))
        return;
    /* Inside a busy script only the AOF and the replies are written. */
    if (s->events_while_blocked) {
        if (s->aof.state == AOF_ON || s->aof.state == AOF_WAIT_REWRITE)
            flushAppendOnlyFile(s, 0);
        handleClientsWithPendingWrites(s);
        _freeClientsInAsyncFreeQueue(s);
        return;
    }
    TRACE(s->denv.trace, GK_TR_LOOP, (uint16_t)s->node, GK_LOOP_BEFORE_SLEEP,
          0, 0, el->iterations);
    serverUpdateTime(s);
    handleBlockedClientsTimeout(s);
    if (!s->masterhost) activeExpireCycle(s, ACTIVE_EXPIRE_CYCLE_FAST);
    /* As in 7.0, WAIT's clients are answered before the unblocked clients
     * run what they have queued. */
    replicationBeforeSleep(s);
    /* The replicas' ACKs just read may let a FAILOVER go on. */
    updateFailoverStatus(s);
    if (s->unblocked_head) processUnblockedClients(s);
    trackingBroadcastInvalidationMessages(s);
    handleClientsBlockedOnKeys(s);
    /* The AOF reaches the file before any reply reaches its client. */
    if (s->aof.state == AOF_ON || s->aof.state == AOF_WAIT_REWRITE)
        flushAppendOnlyFile(s, 0);
    handleClientsWithPendingWrites(s);
    aofBeforeSleepDone(s);
    if (s->recovery) recoveryAdvance(s);
    evictClients(s);
    _freeClientsInAsyncFreeQueue(s);
}

/* ---- Small commands. ---- */

void pingCommand(client *c) {
    if (c->argc > 2) { addReplyErrorArity(c); return; }
    /* A RESP2 subscriber's replies must look like messages. */
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2) {
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, "pong", 4);
        if (c->argc == 1) addReplyBulkCBuffer(c, "", 0);
        else addReplyBulk(c, c->argv[1]);
        return;
    }
    if (c->argc == 1) addReplyStatus(c, "PONG");
    else addReplyBulk(c, c->argv[1]);
}

void echoCommand(client *c) { addReplyBulk(c, c->argv[1]); }

/* QUIT: reply, then close once the reply is written. */
void quitCommand(client *c) {
    addReplyOK(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: prepares for the exit
 * (prepareForShutdown) and has the host end the process, so the client
 * sees its connection close without a reply. NOW matters only with
 * replicas to wait for, SAVE and NOSAVE only with RDB snapshots, which
 * this server does not have; ABORT has no pending shutdown to cancel. */
void shutdownCommand(client *c) {
    redisServer *s = c->srv;
    int flags = SHUTDOWN_NOFLAGS, cancel = 0;
    for (int i = 1; i < c->argc; i++) {
        const char *opt = c->argv[i]->v.ptr;
        if (!strcasecmp(opt, "nosave")) flags |= SHUTDOWN_NOSAVE;
        else if (!strcasecmp(opt, "save")) flags |= SHUTDOWN_SAVE;
        else if (!strcasecmp(opt, "now")) flags |= SHUTDOWN_NOW;
        else if (!strcasecmp(opt, "force")) flags |= SHUTDOWN_FORCE;
        else if (!strcasecmp(opt, "abort")) cancel = 1;
        else { addReplyError(c, "syntax error"); return; }
    }
    if ((cancel && flags != SHUTDOWN_NOFLAGS) ||
        ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        addReplyError(c, "syntax error");
        return;
    }
    if (cancel) {
        addReplyError(c, "No shutdown in progress.");
        return;
    }
    /* A busy script lets only SHUTDOWN NOSAVE through. */
    if (!(flags & SHUTDOWN_NOSAVE) && scriptIsTimedout(s)) {
        addReplyError(c, scriptBusyError(s, s->script_run->flags & SCRIPT_EVAL_MODE));
        return;
    }
    if (!s->exit_proc) {
        serverLog(s, LL_WARNING, "SHUTDOWN refused: this process has no "
                  "host to exit through.");
    } else if (prepareForShutdown(s, flags) == C_OK) {
        s->exit_proc(s->exit_ctx, 0);
        return;
    }
    addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
}


/* TIME: a two-element array of bulk strings, unix seconds and the
 * microseconds within them, from the clock cached when the top-level
 * command (EXEC, for a queued TIME) began. */
void timeCommand(client *c) {
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, c->srv->ustime / 1000000);
    addReplyBulkLongLong(c, c->srv->ustime % 1000000);
}

