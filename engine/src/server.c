/* server.c -- the server node: creation, command dispatch, serverCron and
 * beforeSleep, and the small commands that belong to no data type. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "server.h"
#include "siphash.h"

/* ---- Dict types. ---- */

uint64_t dictSdsHash(const dict *d, const void *key) {
    return siphash((const uint8_t *)key, sdslen((sds)key), d->env->seed);
}

uint64_t dictSdsCaseHash(const dict *d, const void *key) {
    return siphash_nocase((const uint8_t *)key, sdslen((sds)key),
                          d->env->seed);
}

int dictSdsKeyCompare(const dict *d, const void *k1, const void *k2) {
    size_t l1 = sdslen((sds)k1), l2 = sdslen((sds)k2);
    return l1 == l2 && memcmp(k1, k2, l1) == 0;
}

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

dictType dbDictType = { dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor,
                        _dictObjectDestructor, _dictExpandAllowed };
dictType keyptrDictType = { dictSdsHash, dictSdsKeyCompare, NULL, NULL,
                            _dictExpandAllowed };
dictType setDictType = { dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor,
                         NULL, NULL };
dictType hashDictType = { dictSdsHash, dictSdsKeyCompare, _dictSdsDestructor,
                          _dictSdsDestructor, NULL };
dictType zsetDictType = { dictSdsHash, dictSdsKeyCompare, NULL, NULL, NULL };
dictType keylistDictType = { dictSdsHash, dictSdsKeyCompare,
                             _dictSdsDestructor, NULL, NULL };
dictType commandTableDictType = { dictSdsCaseHash, dictSdsKeyCaseCompare,
                                  _dictSdsDestructor, NULL, NULL };

/* ---- Configuration defaults (Redis 7.0). ---- */
static void _initConfig(serverConfig *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->hz = CONFIG_DEFAULT_HZ;
    cfg->dynamic_hz = 1;
    cfg->activerehashing = 1;
    cfg->active_expire_effort = 1;
    cfg->proto_max_bulk_len = 512LL * 1024 * 1024;
    cfg->client_max_querybuf_len = 1024LL * 1024 * 1024;
    cfg->set_max_intset_entries = 512;
    cfg->hash_max_listpack_entries = 512;
    cfg->hash_max_listpack_value = 64;
    cfg->zset_max_listpack_entries = 128;
    cfg->zset_max_listpack_value = 64;
    cfg->maxclients = 10000;
    cfg->databases = CONFIG_DEFAULT_DBNUM;
}

static void _populateCommandTable(redisServer *s) {
    int id = 0;
    s->commands = dictCreate(&commandTableDictType, &s->denv);
    for (redisCommand *c = redisCommandTable; c->declared_name; c++) {
        c->id = id++;
        c->fullname = c->declared_name;
        dictAdd(s->commands, sdsnew(s->mem, c->declared_name), c);
        for (redisCommand *sub = c->subcommands; sub && sub->declared_name;
             sub++) {
            sub->id = id++;
            sub->parent = c;
        }
    }
    s->cmdtable = redisCommandTable;
}

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
    s->mem = mem;
    s->node = node;
    s->heap_limit = heap_limit;
    s->unix_ms_at_zero = unix_ms_at_zero;
    _initConfig(&s->cfg);
    s->denv.mem = mem;
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
    s->denv.ns_per_entry = 40;
    s->cmd_cost_ns = 250;
    s->cmd_cost_ns_per_kb = 60;
    for (int i = 0; i < 40; i++)
        s->runid[i] = "0123456789abcdef"[rngNext(rng) & 15];
    s->el = aeCreateEventLoop(mem, 1024, backend);
    s->el->privdata = s;
    serverUpdateTime(s);
    s->start_ns = backend.now(backend.ctx);
    s->db = memCalloc(mem, sizeof(redisDb) * (size_t)s->cfg.databases);
    for (int j = 0; j < s->cfg.databases; j++) {
        s->db[j].dict = dictCreate(&dbDictType, &s->denv);
        s->db[j].dict->privdata = s;
        s->db[j].dict->traced = 1;
        s->db[j].dict->trace_db = (uint16_t)j;
        s->db[j].dict->trace_kind = GK_DICT_KEYS;
        s->db[j].expires = dictCreate(&keyptrDictType, &s->denv);
        s->db[j].expires->privdata = s;
        s->db[j].expires->traced = 1;
        s->db[j].expires->trace_db = (uint16_t)j;
        s->db[j].expires->trace_kind = GK_DICT_EXPIRES;
        s->db[j].id = j;
        s->db[j].watched_keys = dictCreate(&keylistDictType, &s->denv);
    }
    _populateCommandTable(s);
    s->audit.client_id = UINT64_MAX;
    s->next_client_id = 1;
    s->hz = s->cfg.hz;
    aeCreateTimeEvent(s->el, 1, serverCron, s);
    aeSetBeforeSleepProc(s->el, beforeSleep);
    return s;
}

void serverRelease(redisServer *s) {
    for (int fd = 0; fd < s->clients_cap; fd++)
        if (s->clients[fd]) freeClient(s->clients[fd]);
    memFree(s->mem, s->clients);
    auditEnd(s);
    for (int j = 0; j < s->cfg.databases; j++) {
        dictRelease(s->db[j].dict);
        dictRelease(s->db[j].expires);
        dictRelease(s->db[j].watched_keys);
    }
    memFree(s->mem, s->db);
    dictRelease(s->commands);
    aeDeleteEventLoop(s->el);
    memFree(s->mem, s);
}

/* ---- Dispatch. ---- */

/* The command for argv: a container's subcommand when there is one. NULL
 * if unknown. */
redisCommand *lookupCommand(redisServer *s, robj **argv, int argc) {
    redisCommand *base = dictFetchValue(s->commands, argv[0]->v.ptr);
    if (!base || !base->subcommands || argc == 1) return base;
    for (redisCommand *sub = base->subcommands; sub->declared_name; sub++)
        if (!strcasecmp(sub->declared_name, argv[1]->v.ptr)) return sub;
    return NULL;
}

static void _rejectUnknown(client *c) {
    redisServer *s = c->srv;
    redisCommand *base = dictFetchValue(s->commands, c->argv[0]->v.ptr);
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
    if (s->cfg.maxmemory && (long long)s->mem->used > s->cfg.maxmemory)
        return 1;
    return s->heap_limit && s->mem->used > s->heap_limit;
}

/* Checks a parsed command and runs it (processCommand in Redis): lookup,
 * arity, memory. Returns C_OK if the client is still valid. */
int processCommand(client *c) {
    redisServer *s = c->srv;
    c->cmd = c->lastcmd = lookupCommand(s, c->argv, c->argc);
    if (!c->cmd) {
        flagTransaction(c);
        _rejectUnknown(c);
        return C_OK;
    }
    if ((c->cmd->arity > 0 && c->cmd->arity != c->argc) ||
        (c->argc < -c->cmd->arity)) {
        flagTransaction(c);
        c->cmd->rejected_calls++;
        addReplyErrorArity(c);
        return C_OK;
    }
    int is_exec = c->cmd->proc == execCommand;
    int denyoom = (c->cmd->flags & CMD_DENYOOM) ||
                  (is_exec && (c->mstate.cmd_flags & CMD_DENYOOM));
    if (denyoom && serverHeapExceeded(s)) {
        c->cmd->rejected_calls++;
        if (is_exec && (c->flags & CLIENT_MULTI)) {
            addReplyError(c, "-EXECABORT Transaction discarded because of: "
                          "OOM command not allowed when used memory > "
                          "'maxmemory'.");
            discardTransaction(c);
            return C_OK;
        }
        flagTransaction(c);
        addReplyError(c, "-OOM command not allowed when used memory > "
                      "'maxmemory'.");
        return C_OK;
    }
    if ((c->flags & CLIENT_MULTI) && !is_exec &&
        c->cmd->proc != discardCommand && c->cmd->proc != multiCommand &&
        c->cmd->proc != watchCommand && c->cmd->proc != quitCommand) {
        queueMultiCommand(c);
        addReplyStatus(c, "QUEUED");
        return C_OK;
    }
    call(c);
    return C_OK;
}

/* Runs the command with the clock frozen at its start, counts it, and
 * traces it. */
void call(client *c) {
    redisServer *s = c->srv;
    long long errors = s->stat_total_error_replies;
    size_t argbytes = 0;
    for (int j = 0; j < c->argc; j++)
        if (sdsEncodedObject(c->argv[j])) argbytes += sdslen(c->argv[j]->v.ptr);
    s->denv.cpu_ns += s->cmd_cost_ns + argbytes * s->cmd_cost_ns_per_kb / 1024;
    uint64_t cpu0 = s->denv.cpu_ns;
    serverUpdateTime(s);
    c->cmd->proc(c);
    c->cmd->calls++;
    c->cmd->microseconds += (long long)((s->denv.cpu_ns - cpu0) / 1000);
    if (s->stat_total_error_replies != errors) c->cmd->failed_calls++;
    s->stat_numcommands++;
    c->commands_processed++;
    TRACE(s->denv.trace, GK_TR_CMD, (uint16_t)s->node, (uint32_t)c->db->id,
          (uint32_t)c->fd, (uint32_t)c->argc, (uint64_t)c->cmd->id);
}

/* ---- serverCron and beforeSleep. ---- */

static int _runWithPeriod(redisServer *s, int ms) {
    return ms <= 1000 / s->hz || !(s->cronloops % (ms / (1000 / s->hz)));
}

/* Resizes and rehashes the databases (and expires keys), in Redis 7.0's
 * order: expire first, then shrink up to 16 dbs, then give 1 ms of rehash
 * to the first db that needs it. */
static void _databasesCron(redisServer *s) {
    activeExpireCycle(s, ACTIVE_EXPIRE_CYCLE_SLOW);
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
    if (_runWithPeriod(s, 100)) _trackInstantaneous(s);
    _databasesCron(s);
    TRACE(s->denv.trace, GK_TR_CRON, (uint16_t)s->node,
          (uint32_t)s->cronloops, 0, 0, 0);
    s->cronloops++;
    return 1000 / s->hz;
}

static void _freeClientsInAsyncFreeQueue(redisServer *s) {
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (c && (c->flags & CLIENT_CLOSE_ASAP)) freeClient(c);
    }
}

/* Called before the loop sleeps: fast expire cycle, then (after the AOF
 * flush, which comes later) the replies are written, then clients closed
 * asynchronously are freed. */
void beforeSleep(aeEventLoop *el) {
    redisServer *s = el->privdata;
    TRACE(s->denv.trace, GK_TR_LOOP, (uint16_t)s->node, GK_LOOP_BEFORE_SLEEP,
          0, 0, el->iterations);
    serverUpdateTime(s);
    activeExpireCycle(s, ACTIVE_EXPIRE_CYCLE_FAST);
    handleClientsWithPendingWrites(s);
    _freeClientsInAsyncFreeQueue(s);
}

/* ---- Small commands. ---- */

void pingCommand(client *c) {
    if (c->argc > 2) { addReplyErrorArity(c); return; }
    if (c->argc == 1) addReplyStatus(c, "PONG");
    else addReplyBulk(c, c->argv[1]);
}

void echoCommand(client *c) { addReplyBulk(c, c->argv[1]); }

/* QUIT: reply, then close once the reply is written. */
void quitCommand(client *c) {
    addReplyOK(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

void timeCommand(client *c) {
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, c->srv->ustime / 1000000);
    addReplyBulkLongLong(c, c->srv->ustime % 1000000);
}

void commandCountCommand(client *c) {
    addReplyLongLong(c, (long long)dictSize(c->srv->commands));
}

void commandCommand(client *c) {
    addReplyError(c, "COMMAND without subcommands is not supported here; "
                  "try COMMAND COUNT");
}
