/* script.h -- running a script: what EVAL (eval.c) shares with the Lua
 * bindings (script_lua.c), as Redis 7.0's script.c and script_lua.c.
 *
 * A script runs inside the EVAL that called it, on the main thread: its
 * redis.call()s run through call() as a client of their own, the script
 * client, whose replies are read back into Lua. Nothing else runs until
 * it returns, unless it runs longer than busy-reply-threshold: then the
 * server serves its clients between Lua instructions (with -BUSY for all
 * but a few commands) so that one of them can SCRIPT KILL it. */
#ifndef GK_SCRIPT_H
#define GK_SCRIPT_H

#include <stdint.h>
#include "server.h"

/* The flags a script declares in its shebang ("#!lua flags=..."). */
#define SCRIPT_FLAG_NO_WRITES (1ULL << 0)
#define SCRIPT_FLAG_ALLOW_OOM (1ULL << 1)
#define SCRIPT_FLAG_ALLOW_STALE (1ULL << 2)
#define SCRIPT_FLAG_NO_CLUSTER (1ULL << 3)
#define SCRIPT_FLAG_EVAL_COMPAT_MODE (1ULL << 4)  /* no shebang */
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1ULL << 5)

/* The flags' names, in Redis's order (scriptFlagNames ends with a 0
 * flag). */
typedef struct scriptFlagName {
    uint64_t flag;
    const char *name;
} scriptFlagName;
extern const scriptFlagName scriptFlagNames[];

/* The state of a run (scriptRunCtx's flags). */
#define SCRIPT_WRITE_DIRTY (1 << 0)     /* it has run a write command */
#define SCRIPT_TIMEDOUT (1 << 3)        /* past busy-reply-threshold */
#define SCRIPT_KILLED (1 << 4)          /* SCRIPT KILL asked it to stop */
#define SCRIPT_READ_ONLY (1 << 5)       /* EVAL_RO, or flags=no-writes */
#define SCRIPT_ALLOW_OOM (1 << 6)
#define SCRIPT_EVAL_MODE (1 << 7)       /* EVAL, not FCALL */

typedef struct scriptRunCtx {
    const char *funcname;       /* the script's sha1 */
    client *c;                  /* the script client */
    client *original_client;    /* the client that called EVAL */
    int flags;                  /* SCRIPT_* above */
    int repl_flags;             /* PROPAGATE_* redis.set_repl allows */
    uint64_t start_ns;          /* when it started, on the loop's clock */
    uint64_t start_cpu_ns;      /* and the server's virtual CPU then */
    int oom;                    /* over maxmemory when it started */
} scriptRunCtx;

/* In the simulated world the other clients are served while a script is
 * busy (-BUSY, SCRIPT KILL), but the reader's console cannot send while
 * the world runs: a script still running this long after it turned busy
 * (after this long from its start when busy-reply-threshold is 0) is
 * stopped as SCRIPT KILL stops one, where a real server would run it to
 * its end or until killed. */
#define SCRIPT_SIM_TIME_BOX_MS GK_SCRIPT_TIME_BOX_MS

/* What the server keeps for EVAL (redisServer.lua). */
typedef struct luaScript {
    sds body;
    uint64_t flags;             /* SCRIPT_FLAG_* */
} luaScript;

/* A function library (FUNCTION LOAD): its name, its code as loaded
 * (shebang included), and its functions (name -> functionInfo, case
 * sensitive; the server's table of all functions ignores case). */
typedef struct functionLib {
    sds name;
    sds code;
    dict *functions;
} functionLib;

typedef struct functionInfo {
    sds name;
    sds desc;                   /* NULL if none */
    uint64_t flags;             /* SCRIPT_FLAG_* */
    int ref;                    /* the callback, in the Lua registry */
    functionLib *lib;
} functionInfo;

struct lua_State;

/* eval.c */
void scriptingInit(redisServer *s);
void scriptingRelease(redisServer *s);
uint64_t evalGetCommandFlags(client *c, uint64_t cmd_flags);
int scriptIsRunning(redisServer *s);
int scriptIsTimedout(redisServer *s);
size_t evalMemory(redisServer *s);
size_t evalScriptsMemory(redisServer *s);

/* functions.c */
void functionsInit(redisServer *s);
void functionsRelease(redisServer *s);
void functionsClear(redisServer *s);
int functionLibAdd(redisServer *s, functionLib *lib, sds name, sds desc,
                   int ref, uint64_t flags, sds *err);
uint64_t fcallGetCommandFlags(client *c, uint64_t cmd_flags);
sds functionsCreateLibrary(redisServer *s, sds code, int replace,
                           long long timeout_ms, sds *err);
void functionsForEachLibrary(redisServer *s,
                             void (*fn)(void *ctx, functionLib *lib),
                             void *ctx);
size_t functionsMemoryOverhead(redisServer *s);

/* script.c */
uint64_t scriptFlagByName(const char *name);
uint64_t scriptFlagsToCmdFlags(uint64_t cmd_flags, uint64_t script_flags);
int scriptPrepareForRun(scriptRunCtx *run, client *script_client,
                        client *caller, const char *funcname,
                        uint64_t script_flags, int ro);
void scriptResetRun(scriptRunCtx *run);
void scriptCall(scriptRunCtx *run, sds *err);
void scriptKill(client *c, int is_eval);
const char *scriptBusyError(redisServer *s, int eval);
int scriptCheckNumkeys(client *c, long long numkeys);
#define SCRIPT_CONTINUE 0
#define SCRIPT_KILL 1
int scriptInterrupt(scriptRunCtx *run);
void processEventsWhileBlocked(redisServer *s);

/* script_lua.c */
struct lua_State *luaCreateState(redisServer *s);
void luaCallFunction(scriptRunCtx *run, struct lua_State *lua, robj **keys,
                     size_t nkeys, robj **args, size_t nargs);
void sha1hex(char out[41], const char *p, size_t len);
struct lua_State *luaCreateFunctionState(redisServer *s);
int luaFunctionLoad(redisServer *s, functionLib *lib, const char *code,
                    size_t len, long long timeout_ms, sds *err);
void luaFunctionCall(scriptRunCtx *run, int ref, robj **keys, size_t nkeys,
                     robj **args, size_t nargs);
void luaFunctionFree(redisServer *s, int ref);

#endif
