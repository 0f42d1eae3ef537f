/* eval.c -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as Redis 7.0
 * has them: a script body is compiled once into a Lua function named
 * after its sha1 (kept in the interpreter's registry as "f_<sha1>"),
 * remembered in the server's script cache with the flags of its shebang,
 * and called with KEYS and ARGV set. */
#include <string.h>
#include <strings.h>

#include "lua.h"
#include "lauxlib.h"

#include "script.h"
#include "server.h"

static void _luaScriptDestructor(dict *d, void *val) {
    luaScript *l = val;
    sdsfree(d->env->mem, l->body);
    memFree(d->env->mem, l);
}

static void _sdsKeyDestructor(dict *d, void *key) {
    sdsfree(d->env->mem, key);
}

/* sha1 (sds, lower case) -> luaScript */
static const dictType luaScriptsDictType = {
    dictSdsCaseHash, dictSdsKeyCaseCompare, _sdsKeyDestructor,
    _luaScriptDestructor, NULL };

/* A fresh interpreter and an empty script cache. */
void scriptingInit(redisServer *s) {
    if (!s->lua_client) {
        s->lua_client = createDetachedClient(s, CLIENT_SCRIPT |
                                              CLIENT_DENY_BLOCKING, 1);
        s->lua_rand48 = 0x1234ABCD330EULL;     /* lrand48's initial state */
        /* Debian's redis-server 7.0.15 ran EVAL of a 10,000,000-turn
         * loop of one addition (20,000,000 Lua instructions) in 117 ms at
         * best here, about 6 ns an instruction. */
        if (!s->lua_ns_per_instr) s->lua_ns_per_instr = 6;
        /* Seed 004's EVAL, ZCARD of each of 1,000,000 one-member sorted
         * sets summed, took Debian's redis-server 1.26 s to 3.8 s here,
         * the median of five EVALs 1.29 s to 2.6 s as the machine's load
         * came and went (tests/bench/eval-zcard.mjs); the same EVAL of
         * "return 0" took 0.30 s to 0.69 s, spent making the KEYS table.
         * So a key costs about 0.3 us to put into KEYS, and redis.call
         * about 1.05 us of its own beside the command's cost: 0.925 here,
         * and call()'s bookkeeping after the command (cost.h) the rest;
         * the argv made from Lua values, the lookups and
         * checks before the command, its reply parsed back into Lua, the
         * garbage the collector then sweeps. With ZCARD's own cost on a
         * million keys (cost.h: a lookup missing the caches, its reply)
         * and the loop's Lua instructions, the EVAL takes 2.1 s. */
        if (!s->lua_call_ns) s->lua_call_ns = 925;
        if (!s->lua_arg_ns) s->lua_arg_ns = 300;
    }
    s->lua_scripts = dictCreate(&luaScriptsDictType, &s->denv);
    s->lua_scripts_mem = 0;
    s->lua = luaCreateState(s);
}

/* Closes the interpreter and forgets every script (SCRIPT FLUSH, and the
 * end of the server, which frees the script client too). */
static void _scriptingReset(redisServer *s) {
    dictRelease(s->lua_scripts);
    s->lua_scripts = NULL;
    lua_close(s->lua);
    s->lua = NULL;
}

void scriptingRelease(redisServer *s) {
    if (!s->lua) return;
    _scriptingReset(s);
    freeDetachedClient(s->lua_client);
    s->lua_client = NULL;
}

/* The cached script of this sha1 (40 hex digits), or NULL. */
static luaScript *_scriptFind(redisServer *s, const char *sha) {
    sds key = sdsnewlen(s->mem, sha, 40);
    luaScript *l = dictFetchValue(s->lua_scripts, key);
    sdsfree(s->mem, key);
    return l;
}

int scriptIsRunning(redisServer *s) { return s->script_run != NULL; }

int scriptIsTimedout(redisServer *s) {
    return s->script_run && (s->script_run->flags & SCRIPT_TIMEDOUT);
}

/* used_memory_lua: what the interpreter holds. */
size_t evalMemory(redisServer *s) {
    return s->lua ? (size_t)lua_gc(s->lua, LUA_GCCOUNT, 0) * 1024 : 0;
}

/* used_memory_scripts: the cache's bodies and sha1s, and its table. */
size_t evalScriptsMemory(redisServer *s) {
    if (!s->lua_scripts) return 0;
    return s->lua_scripts_mem +
           dictSize(s->lua_scripts) * (MEM64_DICT_ENTRY + MEM64_LUA_SCRIPT) +
           dictSlots(s->lua_scripts) * MEM64_PTR;
}

/* The shebang's flags ("#!lua flags=no-writes,allow-oom"):
 * SCRIPT_FLAG_EVAL_COMPAT_MODE without one. *shebang_len is how much of the
 * body it takes. C_ERR with *err (owned by the caller) if it is bad. */
static int _shebangFlags(redisServer *s, const char *body, size_t len,
                         uint64_t *flags, size_t *shebang_len, sds *err) {
    *flags = SCRIPT_FLAG_EVAL_COMPAT_MODE;
    *shebang_len = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') return C_OK;
    const char *nl = memchr(body, '\n', len);
    if (!nl) {
        if (err) *err = sdsnew(s->mem, "Invalid script shebang");
        return C_ERR;
    }
    *shebang_len = (size_t)(nl - body);
    sds line = sdsnewlen(s->mem, body, *shebang_len);
    sds *parts = NULL;
    int nparts = splitArgs(s, line, &parts);
    sdsfree(s->mem, line);
    int ok = C_OK;
    if (nparts <= 0) {
        if (err) *err = sdsnew(s->mem, "Invalid engine in script shebang");
        ok = C_ERR;
        goto done;
    }
    if (strcmp(parts[0], "#!lua")) {
        if (err) *err = sdscatprintf(s->mem, sdsempty(s->mem),
                                     "Unexpected engine in script shebang: %s",
                                     parts[0]);
        ok = C_ERR;
        goto done;
    }
    *flags &= ~SCRIPT_FLAG_EVAL_COMPAT_MODE;
    for (int j = 1; j < nparts && ok == C_OK; j++) {
        if (strncmp(parts[j], "flags=", 6)) {
            if (err) *err = sdscatprintf(s->mem, sdsempty(s->mem),
                                         "Unknown lua shebang option: %s",
                                         parts[j]);
            ok = C_ERR;
            break;
        }
        /* Comma-separated names; an empty list is no flag at all. */
        const char *p = parts[j] + 6;
        size_t plen = sdslen(parts[j]) - 6;
        if (plen == 0) continue;
        size_t start = 0;
        for (size_t i = 0; i <= plen && ok == C_OK; i++) {
            if (i < plen && p[i] != ',') continue;
            size_t n = i - start;
            int k;
            for (k = 0; scriptFlagNames[k].name; k++)
                if (strlen(scriptFlagNames[k].name) == n &&
                    !memcmp(scriptFlagNames[k].name, p + start, n)) break;
            if (!scriptFlagNames[k].name) {
                if (err) *err = sdscatprintf(s->mem, sdsempty(s->mem),
                                             "Unexpected flag in script "
                                             "shebang: %.*s", (int)n,
                                             p + start);
                ok = C_ERR;
            } else {
                *flags |= scriptFlagNames[k].flag;
            }
            start = i + 1;
        }
    }
done:
    if (nparts >= 0) splitArgsRelease(s, parts, nparts);
    return ok;
}

static int _isEvalSha(const redisCommand *cmd) {
    return cmd->proc == evalShaCommand || cmd->proc == evalShaRoCommand;
}

/* The lower-case sha1 of an EVAL's body, or an EVALSHA's argument. */
static void _scriptSha(client *c, int evalsha, char sha[41]) {
    sds arg = c->argv[1]->v.ptr;
    if (!evalsha) {
        sha1hex(sha, arg, sdslen(arg));
        return;
    }
    for (int j = 0; j < 40; j++)
        sha[j] = (arg[j] >= 'A' && arg[j] <= 'Z') ? arg[j] + ('a' - 'A')
                                                  : arg[j];
    sha[40] = '\0';
}

uint64_t evalGetCommandFlags(client *c, uint64_t cmd_flags) {
    redisServer *s = c->srv;
    int evalsha = _isEvalSha(c->cmd);
    if (c->argc < 2 || !sdsEncodedObject(c->argv[1])) return cmd_flags;
    if (evalsha && sdslen(c->argv[1]->v.ptr) != 40) return cmd_flags;
    char sha[41];
    _scriptSha(c, evalsha, sha);
    luaScript *l = _scriptFind(s, sha);
    uint64_t sf;
    if (l) {
        sf = l->flags;
    } else {
        if (evalsha) return cmd_flags;
        size_t shebang_len;
        sds body = c->argv[1]->v.ptr;
        if (_shebangFlags(s, body, sdslen(body), &sf, &shebang_len, NULL) ==
            C_ERR)
            return cmd_flags;
    }
    if (sf & SCRIPT_FLAG_EVAL_COMPAT_MODE) return cmd_flags;
    return scriptFlagsToCmdFlags(cmd_flags, sf);
}

/* Compiles body into the function f_<sha1> unless it is known; returns
 * the script, or NULL after replying the error to c (if given). */
static luaScript *_createFunction(client *c, redisServer *s, robj *body_o,
                                  char sha[41]) {
    sds body = body_o->v.ptr;
    sha1hex(sha, body, sdslen(body));
    luaScript *l = _scriptFind(s, sha);
    if (l) return l;
    uint64_t flags;
    size_t shebang_len;
    sds err = NULL;
    if (_shebangFlags(s, body, sdslen(body), &flags, &shebang_len, &err) ==
        C_ERR) {
        if (c) addReplyErrorSds(c, err);
        else sdsfree(s->mem, err);
        return NULL;
    }
    lua_State *L = s->lua;
    if (luaL_loadbuffer(L, body + shebang_len, sdslen(body) - shebang_len,
                        "@user_script")) {
        if (c)
            addReplyErrorFormat(c, "Error compiling script (new function): "
                                "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return NULL;
    }
    char name[43] = "f_";
    memcpy(name + 2, sha, 41);
    lua_setfield(L, LUA_REGISTRYINDEX, name);
    l = memAllocAs(s->mem, sizeof(*l), MEM64_LUA_SCRIPT);
    l->body = sdsdup(s->mem, body);
    l->flags = flags;
    sds key = sdsnewlen(s->mem, sha, 40);
    dictAdd(s->lua_scripts, key, l);
    s->lua_scripts_mem += memBlockSize(sdsAllocPtr(key)) +
                          memBlockSize(sdsAllocPtr(l->body));
    return l;
}

static void _evalGeneric(client *c, int evalsha) {
    redisServer *s = c->srv;
    long long numkeys;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &numkeys, NULL) != C_OK)
        return;
    if (scriptCheckNumkeys(c, numkeys) != C_OK) return;
    char sha[41];
    _scriptSha(c, evalsha, sha);
    lua_State *L = s->lua;
    lua_getglobal(L, "__redis__err__handler");
    char name[43] = "f_";
    memcpy(name + 2, sha, 41);
    lua_getfield(L, LUA_REGISTRYINDEX, name);
    luaScript *l;
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        if (evalsha) {
            lua_pop(L, 1);
            addReplyError(c, "-NOSCRIPT No matching script. Please use "
                          "EVAL.");
            return;
        }
        l = _createFunction(c, s, c->argv[1], sha);
        if (!l) {
            lua_pop(L, 1);
            return;
        }
        lua_getfield(L, LUA_REGISTRYINDEX, name);
    } else {
        l = _scriptFind(s, sha);
    }
    int ro = c->cmd->proc == evalRoCommand || c->cmd->proc == evalShaRoCommand;
    scriptRunCtx run;
    if (scriptPrepareForRun(&run, s->lua_client, c, sha, l->flags, ro) !=
        C_OK) {
        lua_pop(L, 2);
        return;
    }
    run.flags |= SCRIPT_EVAL_MODE;
    luaCallFunction(&run, L, c->argv + 3, (size_t)numkeys,
                    c->argv + 3 + numkeys, (size_t)(c->argc - 3 - numkeys));
    lua_pop(L, 1);
    scriptResetRun(&run);
}

/* MONITOR sees an EVAL before the commands it runs (the table marks it
 * skip-monitor, so call() does not feed it after). */
void evalCommand(client *c) {
    replicationFeedMonitors(c, c->db->id, c->argv, c->argc);
    _evalGeneric(c, 0);
}

void evalRoCommand(client *c) { evalCommand(c); }

void evalShaCommand(client *c) {
    replicationFeedMonitors(c, c->db->id, c->argv, c->argc);
    if (sdslen(c->argv[1]->v.ptr) != 40) {
        addReplyError(c, "-NOSCRIPT No matching script. Please use EVAL.");
        return;
    }
    _evalGeneric(c, 1);
}

void evalShaRoCommand(client *c) { evalShaCommand(c); }

void scriptCommand(client *c) {
    redisServer *s = c->srv;
    const char *sub = c->argv[1]->v.ptr;
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        static const char *help[] = {
            "DEBUG (YES|SYNC|NO)",
            "    Set the debug mode for subsequent scripts executed.",
            "EXISTS <sha1> [<sha1> ...]",
            "    Return information about the existence of the scripts in "
            "the script cache.",
            "FLUSH [ASYNC|SYNC]",
            "    Flush the Lua scripts cache. Very dangerous on replicas.",
            "    When called without the optional mode argument, the "
            "behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid "
            "modes are:",
            "    * ASYNC: Asynchronously flush the scripts cache.",
            "    * SYNC: Synchronously flush the scripts cache.",
            "KILL",
            "    Kill the currently executing Lua script.",
            "LOAD <script>",
            "    Load a script into the scripts cache without executing it.",
            NULL };
        addReplyHelp(c, help);
    } else if (c->argc >= 2 && !strcasecmp(sub, "flush")) {
        if (c->argc > 3 || (c->argc == 3 &&
                            strcasecmp(c->argv[2]->v.ptr, "sync") &&
                            strcasecmp(c->argv[2]->v.ptr, "async"))) {
            addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        /* ASYNC or not, the cache is gone when the reply is sent. */
        _scriptingReset(s);
        scriptingInit(s);
        addReplyOK(c);
    } else if (c->argc >= 2 && !strcasecmp(sub, "exists")) {
        addReplyArrayLen(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++)
            addReplyLongLong(c, dictFind(s->lua_scripts,
                                         c->argv[j]->v.ptr) != NULL);
    } else if (c->argc == 3 && !strcasecmp(sub, "load")) {
        char sha[41];
        if (!_createFunction(c, s, c->argv[2], sha)) return;
        addReplyBulkCBuffer(c, sha, 40);
    } else if (c->argc == 2 && !strcasecmp(sub, "kill")) {
        scriptKill(c, 1);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}
