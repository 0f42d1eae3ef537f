/* functions.c -- Redis 7.0's functions: libraries of named Lua functions
 * loaded with FUNCTION LOAD, called with FCALL and FCALL_RO, listed,
 * deleted, flushed, dumped and restored. Unlike EVAL's scripts they are
 * part of the dataset: written to the RDB (RDB_OPCODE_FUNCTION2, the
 * library's code) and propagated (FUNCTION LOAD is a write).
 *
 * The library and its functions live here; the Lua side (running a
 * library's code so it registers its functions, calling one) is in
 * script_lua.c. Only the Lua engine exists, as in Redis 7.0. */
#include <string.h>
#include <strings.h>

#include "lua.h"

#include "rdb.h"
#include "script.h"
#include "server.h"

/* How long a library's code may run while it loads. */
#define FUNCTION_LOAD_TIMEOUT_MS 500

static void _sdsKeyDestructor(dict *d, void *key) {
    sdsfree(d->env->mem, key);
}

static void _functionInfoFree(redisServer *s, functionInfo *fi) {
    luaFunctionFree(s, fi->ref);
    sdsfree(s->mem, fi->name);
    sdsfree(s->mem, fi->desc);
    memFree(s->mem, fi);
}

/* A library's functions: name (its own sds) -> functionInfo, which the
 * library frees (the server's table shares them). */
static const dictType libFunctionsDictType = {
    dictSdsHash, dictSdsKeyCompare, NULL, NULL, NULL };
/* Every function: its name (case ignored) -> functionInfo. */
static const dictType allFunctionsDictType = {
    dictSdsCaseHash, dictSdsKeyCaseCompare, NULL, NULL, NULL };
/* The libraries: name -> functionLib. */
static const dictType librariesDictType = {
    dictSdsHash, dictSdsKeyCompare, _sdsKeyDestructor, NULL, NULL };

static functionLib *_libCreate(redisServer *s, sds name, sds code) {
    functionLib *lib = memCalloc(s->mem, sizeof(*lib));
    lib->name = sdsdup(s->mem, name);
    lib->code = sdsdup(s->mem, code);
    lib->functions = dictCreate(&libFunctionsDictType, &s->denv);
    return lib;
}

static void _libFree(redisServer *s, functionLib *lib) {
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) _functionInfoFree(s, dictGetVal(de));
    dictReleaseIterator(it);
    dictRelease(lib->functions);
    sdsfree(s->mem, lib->name);
    sdsfree(s->mem, lib->code);
    memFree(s->mem, lib);
}

/* Makes the library and its functions visible. */
static void _libLink(redisServer *s, functionLib *lib) {
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        dictAdd(s->fn_functions, fi->name, fi);
    }
    dictReleaseIterator(it);
    dictAdd(s->fn_libraries, sdsdup(s->mem, lib->name), lib);
}

/* Hides it again (without freeing it). */
static void _libUnlink(redisServer *s, functionLib *lib) {
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        dictDelete(s->fn_functions, fi->name);
    }
    dictReleaseIterator(it);
    dictDelete(s->fn_libraries, lib->name);
}

void functionsInit(redisServer *s) {
    /* The client functions run their commands as, made once (Redis makes
     * one per engine). */
    if (!s->fn_client)
        s->fn_client = createDetachedClient(s, CLIENT_SCRIPT |
                                               CLIENT_DENY_BLOCKING, 1);
    s->fn_libraries = dictCreate(&librariesDictType, &s->denv);
    s->fn_functions = dictCreate(&allFunctionsDictType, &s->denv);
    s->lua_fn = luaCreateFunctionState(s);
}

/* Frees every library and the interpreter. */
void functionsRelease(redisServer *s) {
    if (!s->lua_fn) return;
    dictIterator *it = dictGetIterator(s->fn_libraries);
    dictEntry *de;
    while ((de = dictNext(it))) _libFree(s, dictGetVal(de));
    dictReleaseIterator(it);
    dictRelease(s->fn_libraries);
    dictRelease(s->fn_functions);
    lua_close(s->lua_fn);
    s->lua_fn = NULL;
}

/* Deletes every library, with a fresh interpreter (FUNCTION FLUSH, and
 * emptying the whole dataset other than by FLUSHALL: a replica's full
 * sync, DEBUG RELOAD and LOADAOF, which load functions again). */
void functionsClear(redisServer *s) {
    functionsRelease(s);
    functionsInit(s);
}

void functionsForEachLibrary(redisServer *s,
                             void (*fn)(void *ctx, functionLib *lib),
                             void *ctx) {
    dictIterator *it = dictGetIterator(s->fn_libraries);
    dictEntry *de;
    while ((de = dictNext(it))) fn(ctx, dictGetVal(de));
    dictReleaseIterator(it);
}

/* Redis 7.0's structs behind its functions, on a 64-bit machine, at
 * their jemalloc classes: the library context (4 pointers), a library
 * (4 pointers), a function (5 words: a 48-byte class), the Lua engine's
 * handle on a function (an int ref: 8), and what registering the one
 * engine, LUA, cost: the engines table holding it (an entry and 4
 * buckets), its engineInfo (3 pointers: 32), its name (a type-5 sds of
 * 3 bytes: 8), its table of 7 callbacks (64) and its context (8). */
#define FN64_LIB_CTX 32
#define FN64_LIB 32
#define FN64_FUNCTION 48
#define FN64_LUA_FUNCTION 8
#define FN64_ENGINES (MEM64_DICT_ENTRY + 4 * MEM64_PTR + 32 + 8 + 64 + 8)

/* What the function libraries add to used_memory_overhead (MEMORY STATS's
 * functions.caches), as Redis 7.0's functionsMemoryOverhead counts it:
 * the engine's registration, the table of every function, and for each
 * library its struct, name and code, and for each function its struct,
 * name, description and the engine's handle on it. Redis keeps that last
 * sum as libraries come and go; I add it up when asked, which is O(N) in
 * the functions, never many. 200 bytes with no library, as in Redis. */
size_t functionsMemoryOverhead(redisServer *s) {
    size_t mem = FN64_ENGINES + FN64_LIB_CTX +
                 dictSize(s->fn_functions) * MEM64_DICT_ENTRY +
                 dictSlots(s->fn_functions) * MEM64_PTR;
    dictIterator *li = dictGetIterator(s->fn_libraries);
    dictEntry *de;
    while ((de = dictNext(li))) {
        functionLib *lib = dictGetVal(de);
        mem += FN64_LIB + memBlockSize(sdsAllocPtr(lib->name)) +
               memBlockSize(sdsAllocPtr(lib->code));
        dictIterator *fi = dictGetIterator(lib->functions);
        dictEntry *fe;
        while ((fe = dictNext(fi))) {
            functionInfo *f = dictGetVal(fe);
            mem += FN64_FUNCTION + FN64_LUA_FUNCTION +
                   memBlockSize(sdsAllocPtr(f->name));
            if (f->desc) mem += memBlockSize(sdsAllocPtr(f->desc));
        }
        dictReleaseIterator(fi);
    }
    dictReleaseIterator(li);
    return mem;
}

/* Letters, digits and underscores, at least one. */
static int _validName(const char *p, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = p[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '_'))
            return 0;
    }
    return 1;
}

#define BAD_NAME "Library names can only contain letters, numbers, or " \
                 "underscores(_) and must be at least one character long"

/* redis.register_function's work: adds the function to the library being
 * loaded. Takes name and desc on success. */
int functionLibAdd(redisServer *s, functionLib *lib, sds name, sds desc,
                   int ref, uint64_t flags, sds *err) {
    if (!_validName(name, sdslen(name))) {
        *err = sdsnew(s->mem, BAD_NAME);
        return C_ERR;
    }
    if (dictFind(lib->functions, name)) {
        *err = sdsnew(s->mem, "Function already exists in the library");
        return C_ERR;
    }
    functionInfo *fi = memCalloc(s->mem, sizeof(*fi));
    fi->name = name;
    fi->desc = desc;
    fi->ref = ref;
    fi->flags = flags;
    fi->lib = lib;
    dictAdd(lib->functions, fi->name, fi);
    return C_OK;
}

/* The shebang of a library: "#!<engine> name=<name>". Sets *engine and
 * *name (sds, the caller frees them) and *code_at, where the code after
 * it starts (at the newline, so that line numbers hold). */
static int _libMetadata(redisServer *s, sds code, sds *engine, sds *name,
                        size_t *code_at, sds *err) {
    *engine = *name = NULL;
    if (strncmp(code, "#!", 2)) {
        *err = sdsnew(s->mem, "Missing library metadata");
        return C_ERR;
    }
    const char *nl = memchr(code, '\n', sdslen(code));
    if (!nl) {
        *err = sdsnew(s->mem, "Invalid library metadata");
        return C_ERR;
    }
    *code_at = (size_t)(nl - code);
    sds line = sdsnewlen(s->mem, code, *code_at);
    sds *parts = NULL;
    int n = splitArgs(s, line, &parts);
    sdsfree(s->mem, line);
    if (n <= 0) {
        if (n == 0) splitArgsRelease(s, parts, n);
        *err = sdsnew(s->mem, "Invalid library metadata");
        return C_ERR;
    }
    *engine = sdsnew(s->mem, parts[0] + 2);
    for (int i = 1; i < n; i++) {
        if (strncasecmp(parts[i], "name=", 5)) {
            *err = sdscatprintf(s->mem, sdsempty(s->mem),
                                "Invalid metadata value given: %s", parts[i]);
            goto error;
        }
        if (*name) {
            *err = sdsnew(s->mem, "Invalid metadata value, name argument "
                                  "was given multiple times");
            goto error;
        }
        *name = sdsnew(s->mem, parts[i] + 5);
    }
    splitArgsRelease(s, parts, n);
    if (!*name) {
        *err = sdsnew(s->mem, "Library name was not given");
        sdsfree(s->mem, *engine);
        *engine = NULL;
        return C_ERR;
    }
    return C_OK;
error:
    splitArgsRelease(s, parts, n);
    sdsfree(s->mem, *engine);
    sdsfree(s->mem, *name);
    *engine = *name = NULL;
    return C_ERR;
}

/* Loads a library (FUNCTION LOAD, the RDB's functions): its name on
 * success, NULL with *err set otherwise, the libraries as they were. */
sds functionsCreateLibrary(redisServer *s, sds code, int replace,
                           long long timeout_ms, sds *err) {
    sds engine, name;
    size_t code_at;
    if (_libMetadata(s, code, &engine, &name, &code_at, err) != C_OK)
        return NULL;
    functionLib *old = NULL, *lib = NULL;
    if (!_validName(name, sdslen(name))) {
        *err = sdsnew(s->mem, BAD_NAME);
        goto error;
    }
    if (strcasecmp(engine, "lua")) {
        *err = sdscatprintf(s->mem, sdsempty(s->mem),
                            "Engine '%s' not found", engine);
        goto error;
    }
    old = dictFetchValue(s->fn_libraries, name);
    if (old && !replace) {
        *err = sdscatprintf(s->mem, sdsempty(s->mem),
                            "Library '%s' already exists", name);
        old = NULL;
        goto error;
    }
    if (old) _libUnlink(s, old);
    lib = _libCreate(s, name, code);
    if (luaFunctionLoad(s, lib, code + code_at, sdslen(code) - code_at,
                        timeout_ms, err) != C_OK)
        goto error;
    if (dictSize(lib->functions) == 0) {
        *err = sdsnew(s->mem, "No functions registered");
        goto error;
    }
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        if (dictFind(s->fn_functions, fi->name)) {
            *err = sdscatprintf(s->mem, sdsempty(s->mem),
                                "Function %s already exists", fi->name);
            dictReleaseIterator(it);
            goto error;
        }
    }
    dictReleaseIterator(it);
    _libLink(s, lib);
    if (old) _libFree(s, old);
    sdsfree(s->mem, engine);
    return name;
error:
    if (lib) _libFree(s, lib);
    if (old) _libLink(s, old);
    sdsfree(s->mem, engine);
    sdsfree(s->mem, name);
    return NULL;
}

/* ---- FCALL. ---- */

static functionInfo *_findFunction(client *c) {
    return dictFetchValue(c->srv->fn_functions, c->argv[1]->v.ptr);
}

/* A function's flags stand for FCALL's own (processCommand's checks). */
uint64_t fcallGetCommandFlags(client *c, uint64_t cmd_flags) {
    if (!sdsEncodedObject(c->argv[1])) return cmd_flags;
    functionInfo *fi = _findFunction(c);
    return fi ? scriptFlagsToCmdFlags(cmd_flags, fi->flags) : cmd_flags;
}

static void _fcall(client *c, int ro) {
    redisServer *s = c->srv;
    replicationFeedMonitors(c, c->db->id, c->argv, c->argc);
    functionInfo *fi = _findFunction(c);
    if (!fi) {
        addReplyError(c, "Function not found");
        return;
    }
    long long numkeys;
    if (getLongLongFromObject(c->argv[2], &numkeys) != C_OK) {
        addReplyError(c, "Bad number of keys provided");
        return;
    }
    if (scriptCheckNumkeys(c, numkeys) != C_OK) return;
    scriptRunCtx run;
    if (scriptPrepareForRun(&run, s->fn_client, c, fi->name, fi->flags, ro)
        != C_OK)
        return;
    luaFunctionCall(&run, fi->ref, c->argv + 3, (size_t)numkeys,
                    c->argv + 3 + numkeys, (size_t)(c->argc - 3 - numkeys));
    scriptResetRun(&run);
}

void fcallCommand(client *c) { _fcall(c, 0); }
void fcallroCommand(client *c) { _fcall(c, 1); }

/* ---- FUNCTION's subcommands. ---- */

/* FUNCTION LOAD [REPLACE] code */
void functionLoadCommand(client *c) {
    redisServer *s = c->srv;
    int replace = 0, j = 2;
    for (; j < c->argc - 1; j++) {
        if (strcasecmp(c->argv[j]->v.ptr, "replace")) {
            addReplyErrorFormat(c, "Unknown option given: %s",
                                (char *)c->argv[j]->v.ptr);
            return;
        }
        replace = 1;
    }
    if (j >= c->argc) {
        addReplyError(c, "Function code is missing");
        return;
    }
    sds err = NULL;
    /* The master's and the AOF's loads are not timed. */
    long long timeout = (c->flags & (CLIENT_MASTER | CLIENT_FAKE))
                            ? 0 : FUNCTION_LOAD_TIMEOUT_MS;
    sds name = functionsCreateLibrary(s, c->argv[j]->v.ptr, replace, timeout,
                                      &err);
    if (!name) {
        addReplyErrorSds(c, err);
        return;
    }
    s->dirty++;
    addReplyBulkSds(c, name);
}

void functionDeleteCommand(client *c) {
    redisServer *s = c->srv;
    functionLib *lib = dictFetchValue(s->fn_libraries, c->argv[2]->v.ptr);
    if (!lib) {
        addReplyError(c, "Library not found");
        return;
    }
    _libUnlink(s, lib);
    _libFree(s, lib);
    s->dirty++;
    addReplyOK(c);
}

void functionKillCommand(client *c) { scriptKill(c, 0); }

/* FUNCTION FLUSH [ASYNC|SYNC] */
void functionFlushCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3 && strcasecmp(c->argv[2]->v.ptr, "sync") &&
        strcasecmp(c->argv[2]->v.ptr, "async")) {
        addReplyError(c, "FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    functionsClear(s);
    s->dirty++;
    addReplyOK(c);
}

/* FUNCTION STATS: the function running (when a busy one lets this
 * through) and the engine's counts. */
void functionStatsCommand(client *c) {
    redisServer *s = c->srv;
    scriptRunCtx *run = s->script_run;
    if (run && (run->flags & SCRIPT_EVAL_MODE)) {
        addReplyError(c, scriptBusyError(s, 1));
        return;
    }
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "running_script");
    if (!run) {
        addReplyNull(c);
    } else {
        client *caller = run->original_client;
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, run->funcname);
        addReplyBulkCString(c, "command");
        addReplyArrayLen(c, caller->argc);
        for (int j = 0; j < caller->argc; j++) addReplyBulk(c, caller->argv[j]);
        addReplyBulkCString(c, "duration_ms");
        uint64_t now = s->el->backend.now(s->el->backend.ctx);
        addReplyLongLong(c, (long long)((now - run->start_ns) / 1000000));
    }
    addReplyBulkCString(c, "engines");
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "LUA");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "libraries_count");
    addReplyLongLong(c, (long long)dictSize(s->fn_libraries));
    addReplyBulkCString(c, "functions_count");
    addReplyLongLong(c, (long long)dictSize(s->fn_functions));
}

/* FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] */
void functionListCommand(client *c) {
    redisServer *s = c->srv;
    int withcode = 0;
    sds pattern = NULL;
    for (int j = 2; j < c->argc; j++) {
        const char *a = c->argv[j]->v.ptr;
        if (!withcode && !strcasecmp(a, "withcode")) {
            withcode = 1;
        } else if (!pattern && !strcasecmp(a, "libraryname")) {
            if (j >= c->argc - 1) {
                addReplyError(c, "library name argument was not given");
                return;
            }
            pattern = c->argv[++j]->v.ptr;
        } else {
            addReplyErrorFormat(c, "Unknown argument %s", a);
            return;
        }
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *it = dictGetIterator(s->fn_libraries);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        if (pattern && !stringmatchlen(pattern, sdslen(pattern), lib->name,
                                       sdslen(lib->name), 1))
            continue;
        n++;
        addReplyMapLen(c, withcode ? 4 : 3);
        addReplyBulkCString(c, "library_name");
        addReplyBulkCBuffer(c, lib->name, sdslen(lib->name));
        addReplyBulkCString(c, "engine");
        addReplyBulkCString(c, "LUA");
        addReplyBulkCString(c, "functions");
        addReplyArrayLen(c, (long)dictSize(lib->functions));
        dictIterator *fit = dictGetIterator(lib->functions);
        dictEntry *fde;
        while ((fde = dictNext(fit))) {
            functionInfo *fi = dictGetVal(fde);
            addReplyMapLen(c, 3);
            addReplyBulkCString(c, "name");
            addReplyBulkCBuffer(c, fi->name, sdslen(fi->name));
            addReplyBulkCString(c, "description");
            if (fi->desc) addReplyBulkCBuffer(c, fi->desc, sdslen(fi->desc));
            else addReplyNull(c);
            addReplyBulkCString(c, "flags");
            int nflags = 0;
            for (int k = 0; scriptFlagNames[k].name; k++)
                if (fi->flags & scriptFlagNames[k].flag) nflags++;
            addReplySetLen(c, nflags);
            for (int k = 0; scriptFlagNames[k].name; k++)
                if (fi->flags & scriptFlagNames[k].flag)
                    addReplyStatus(c, scriptFlagNames[k].name);
        }
        dictReleaseIterator(fit);
        if (withcode) {
            addReplyBulkCString(c, "library_code");
            addReplyBulkCBuffer(c, lib->code, sdslen(lib->code));
        }
    }
    dictReleaseIterator(it);
    setDeferredArrayLen(c, len, n);
}

/* FUNCTION DUMP: every library as an RDB payload. */
void functionDumpCommand(client *c) {
    addReplyBulkSds(c, rdbFunctionsPayload(c->srv));
}

/* The libraries of the server, set aside while a FLUSH restore loads
 * into fresh ones. */
typedef struct functionsSet {
    dict *libraries, *functions;
    struct lua_State *lua;
    gkMem mem;
} functionsSet;

static void _setTake(redisServer *s, functionsSet *set) {
    set->libraries = s->fn_libraries;
    set->functions = s->fn_functions;
    set->lua = s->lua_fn;
    set->mem = s->lua_fn_mem;
}

static void _setPut(redisServer *s, const functionsSet *set) {
    s->fn_libraries = set->libraries;
    s->fn_functions = set->functions;
    s->lua_fn = set->lua;
    s->lua_fn_mem = set->mem;
}

/* Adds the libraries of codes to the server's: all of them or, on an
 * error (returned), none. With replace, a library of the same name is
 * replaced; without, it is an error. */
static sds _joinLibraries(redisServer *s, sds *codes, int n, int replace) {
    sds err = NULL;
    functionLib **old = memCalloc(s->mem, sizeof(*old) * (size_t)(n + 1));
    sds *added = memCalloc(s->mem, sizeof(sds) * (size_t)(n + 1));
    int nold = 0, nadded = 0;
    for (int j = 0; j < n && !err; j++) {
        sds engine, name;
        size_t at;
        if (_libMetadata(s, codes[j], &engine, &name, &at, &err) != C_OK)
            break;
        functionLib *lib = dictFetchValue(s->fn_libraries, name);
        if (lib && !replace)
            err = sdscatprintf(s->mem, sdsempty(s->mem),
                               "Library %s already exists", name);
        else if (lib)
            old[nold++] = lib;
        sdsfree(s->mem, engine);
        sdsfree(s->mem, name);
    }
    for (int j = 0; j < nold && !err; j++) _libUnlink(s, old[j]);
    for (int j = 0; j < n && !err; j++) {
        sds name = functionsCreateLibrary(s, codes[j], 0, 0, &err);
        if (name) added[nadded++] = name;
    }
    if (err) {
        for (int j = 0; j < nadded; j++) {
            functionLib *lib = dictFetchValue(s->fn_libraries, added[j]);
            _libUnlink(s, lib);
            _libFree(s, lib);
        }
        if (nold && !dictFind(s->fn_libraries, old[0]->name))
            for (int j = 0; j < nold; j++) _libLink(s, old[j]);
    } else {
        for (int j = 0; j < nold; j++) _libFree(s, old[j]);
    }
    for (int j = 0; j < nadded; j++) sdsfree(s->mem, added[j]);
    memFree(s->mem, added);
    memFree(s->mem, old);
    return err;
}

/* FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE] */
void functionRestoreCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int flush = 0, replace = 0;
    if (c->argc == 4) {
        const char *p = c->argv[3]->v.ptr;
        if (!strcasecmp(p, "flush")) flush = 1;
        else if (!strcasecmp(p, "replace")) replace = 1;
        else if (strcasecmp(p, "append")) {
            addReplyError(c, "Wrong restore policy given, value should be "
                          "either FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    sds payload = c->argv[2]->v.ptr;
    sds *codes = NULL;
    int ncodes = 0;
    sds err = NULL;
    if (rdbFunctionsFromPayload(s, payload, sdslen(payload), &codes, &ncodes,
                                &err) != C_OK) {
        addReplyErrorSds(c, err);
        return;
    }
    if (flush) {
        /* Into fresh libraries, which replace the server's only if all
         * of them load. */
        functionsSet before;
        _setTake(s, &before);
        functionsInit(s);
        err = _joinLibraries(s, codes, ncodes, 0);
        if (err) {
            functionsRelease(s);
            _setPut(s, &before);
        } else {
            functionsSet after;
            _setTake(s, &after);
            _setPut(s, &before);
            functionsRelease(s);
            _setPut(s, &after);
        }
    } else {
        err = _joinLibraries(s, codes, ncodes, replace);
    }
    for (int j = 0; j < ncodes; j++) sdsfree(s->mem, codes[j]);
    memFree(s->mem, codes);
    if (err) {
        addReplyErrorSds(c, err);
        return;
    }
    s->dirty++;
    addReplyOK(c);
}

void functionHelpCommand(client *c) {
    static const char *help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern "
        "using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior "
        "is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes "
        "are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current "
        "libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is "
        "possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing "
        "libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing "
        "libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this "
        "option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL };
    addReplyHelp(c, help);
}
