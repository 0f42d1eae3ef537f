/* script_lua.c -- the Lua side of scripting, as Redis 7.0 has it: the
 * interpreter and its sandbox, the redis.* API, and the conversions of
 * replies into Lua values and of Lua values into replies.
 *
 * Each server has one interpreter (redisServer.lua). Its allocator is an
 * account of its own, outside used_memory (Redis's Lua allocates with
 * libc's malloc too, reported apart as used_memory_lua), and capped, so a
 * script that builds an endless table gets Lua's "not enough memory"
 * instead of taking the process down. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

#include "script.h"
#include "acl.h"
#include "server.h"
#include "sha1.h"
#include "slog.h"

#if __has_include("lualibs.h")
#include "lualibs.h"
#define GK_HAVE_LUALIBS 1
#endif

int luaopen_cjson(lua_State *L);

/* Lua gets at most this much memory. */
#define LUA_HEAP_MAX ((size_t)512 << 20)
/* Lua instructions between two counts of their virtual CPU time, and the
 * counts between two checks of busy-reply-threshold (Redis checks every
 * 100,000 instructions). */
#define LUA_HOOK_INSTRUCTIONS 1000
#define LUA_HOOKS_PER_CHECK 100

#define REGISTRY_SERVER "__glasskv_server"
#define REGISTRY_RUN "__glasskv_run"

/* ---- Small helpers. ---- */

void sha1hex(char out[41], const char *p, size_t len) {
    sha1Ctx ctx;
    unsigned char d[SHA1_DIGEST_LEN];
    sha1Init(&ctx);
    sha1Update(&ctx, p, len);
    sha1Final(&ctx, d);
    for (int i = 0; i < SHA1_DIGEST_LEN; i++) {
        out[2 * i] = "0123456789abcdef"[d[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
    }
    out[40] = '\0';
}

static void *_luaAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    gkMem *m = ud;
    (void)osize;
    if (nsize == 0) {
        if (ptr) memFree(m, ptr);
        return NULL;
    }
    size_t old = ptr ? memSize(ptr) : 0;
    if (nsize > old && m->used + (nsize - old) > LUA_HEAP_MAX) return NULL;
    return memTryRealloc(m, ptr, nsize);
}

static void _registrySet(lua_State *L, const char *name, void *p) {
    lua_pushstring(L, name);
    if (p) lua_pushlightuserdata(L, p);
    else lua_pushnil(L);
    lua_settable(L, LUA_REGISTRYINDEX);
}

static void *_registryGet(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    lua_gettable(L, LUA_REGISTRYINDEX);
    void *p = lua_isnil(L, -1) ? NULL : (void *)lua_topointer(L, -1);
    lua_pop(L, 1);
    return p;
}

static redisServer *_server(lua_State *L) {
    return _registryGet(L, REGISTRY_SERVER);
}

static scriptRunCtx *_run(lua_State *L) {
    return _registryGet(L, REGISTRY_RUN);
}

/* Pushes the table redis.pcall returns for an error, {err="CODE msg"}:
 * text "-CODE msg" keeps its code, text without a leading '-' gets ERR.
 * Trailing CR and LF are dropped. */
static void _pushErrorTable(lua_State *L, const char *text, size_t len) {
    const char *code = "ERR", *msg = text;
    size_t codelen = 3, msglen = len;
    if (len && text[0] == '-') {
        const char *sp = memchr(text, ' ', len);
        if (sp) {
            code = text + 1;
            codelen = (size_t)(sp - text) - 1;
            msg = sp + 1;
            msglen = len - (size_t)(sp + 1 - text);
        } else {
            msg = text + 1;
            msglen = len - 1;
        }
    }
    while (msglen && (msg[msglen - 1] == '\r' || msg[msglen - 1] == '\n'))
        msglen--;
    while (msglen && (msg[0] == '\r' || msg[0] == '\n')) { msg++; msglen--; }
    lua_newtable(L);
    lua_pushstring(L, "err");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, code, codelen);
    luaL_addchar(&b, ' ');
    luaL_addlstring(&b, msg, msglen);
    luaL_pushresult(&b);
    lua_settable(L, -3);
}

static void _pushError(lua_State *L, const char *text) {
    _pushErrorTable(L, text, strlen(text));
}

/* ---- Replies into Lua values (redis.call's result). ---- */

/* The line at *p (up to CRLF); advances *p past it. */
static const char *_line(const char **p, size_t *len) {
    const char *start = *p, *end = strstr(start, "\r\n");
    *len = (size_t)(end - start);
    *p = end + 2;
    return start;
}

static void _needStack(lua_State *L, int n) {
    if (!lua_checkstack(L, n))
        luaL_error(L, "reached lua stack limit");
}

/* Pushes the reply at *p as Lua values, as Redis 7.0 converts them, and
 * advances *p past it. With push 0 the reply is only skipped (an
 * attribute's content). The server wrote the reply: it is well formed. */
static void _pushReply(lua_State *L, const char **p, int push) {
    char type = **p;
    size_t len;
    (*p)++;
    const char *line = _line(p, &len);
    long long n = 0;
    if (push) _needStack(L, 4);
    switch (type) {
    case ':':
        if (push) lua_pushnumber(L, (lua_Number)strtoll(line, NULL, 10));
        break;
    case '$':
        n = strtoll(line, NULL, 10);
        if (n < 0) {
            if (push) lua_pushboolean(L, 0);
            break;
        }
        if (push) lua_pushlstring(L, *p, (size_t)n);
        *p += n + 2;
        break;
    case '+':
        if (push) {
            lua_newtable(L);
            lua_pushstring(L, "ok");
            lua_pushlstring(L, line, len);
            lua_settable(L, -3);
        }
        break;
    case '-':
        if (push) {
            /* "-" + the line: the code is kept. */
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            luaL_addchar(&b, '-');
            luaL_addlstring(&b, line, len);
            luaL_pushresult(&b);
            size_t elen;
            const char *e = lua_tolstring(L, -1, &elen);
            _pushErrorTable(L, e, elen);
            lua_remove(L, -2);
            /* The error was counted when the command replied it. */
            lua_pushstring(L, "ignore_error_stats_update");
            lua_pushboolean(L, 1);
            lua_settable(L, -3);
        }
        break;
    case '*':
    case '~':
    case '%':
    case '|':
    case '>':
        n = strtoll(line, NULL, 10);
        if (n < 0) {
            if (push) lua_pushboolean(L, 0);
            break;
        }
        if (type == '|') {
            for (long long j = 0; j < n; j++) {
                _pushReply(L, p, 0);
                _pushReply(L, p, 0);
            }
            _pushReply(L, p, push);
            break;
        }
        if (type == '%' || type == '~') {
            if (push) {
                lua_newtable(L);
                lua_pushstring(L, type == '%' ? "map" : "set");
                lua_newtable(L);
            }
            for (long long j = 0; j < n; j++) {
                _pushReply(L, p, push);
                if (type == '%') _pushReply(L, p, push);
                else if (push) lua_pushboolean(L, 1);
                if (push) lua_settable(L, -3);
            }
            if (push) lua_settable(L, -3);
            break;
        }
        if (push) lua_newtable(L);
        for (long long j = 0; j < n; j++) {
            if (push) lua_pushnumber(L, (lua_Number)(j + 1));
            _pushReply(L, p, push);
            if (push) lua_settable(L, -3);
        }
        break;
    case '_':
        if (push) lua_pushnil(L);
        break;
    case '#':
        if (push) lua_pushboolean(L, line[0] == 't');
        break;
    case ',':
        if (push) {
            lua_newtable(L);
            lua_pushstring(L, "double");
            lua_pushnumber(L, strtod(line, NULL));
            lua_settable(L, -3);
        }
        break;
    case '(':
        if (push) {
            lua_newtable(L);
            lua_pushstring(L, "big_number");
            lua_pushlstring(L, line, len);
            lua_settable(L, -3);
        }
        break;
    case '=':
        n = strtoll(line, NULL, 10);
        if (push) {
            lua_newtable(L);
            lua_pushstring(L, "verbatim_string");
            lua_newtable(L);
            lua_pushstring(L, "string");
            lua_pushlstring(L, *p + 4, (size_t)n - 4);
            lua_settable(L, -3);
            lua_pushstring(L, "format");
            lua_pushlstring(L, *p, 3);
            lua_settable(L, -3);
            lua_settable(L, -3);
        }
        *p += n + 2;
        break;
    default:
        if (push) lua_pushnil(L);
        break;
    }
}

/* ---- Lua values into replies (the script's result). ---- */

/* The fields of an error table: its message and where it was raised. */
typedef struct errorInfo {
    sds msg, source, line;
    int ignore_stats;
} errorInfo;

static sds _fieldSds(redisServer *s, lua_State *L, const char *field) {
    lua_getfield(L, -1, field);
    sds v = NULL;
    if (lua_isstring(L, -1)) {
        size_t len;
        const char *p = lua_tolstring(L, -1, &len);
        v = sdsnewlen(s->mem, p, len);
    }
    lua_pop(L, 1);
    return v;
}

static void _errorInfo(redisServer *s, lua_State *L, errorInfo *e) {
    memset(e, 0, sizeof(*e));
    e->msg = _fieldSds(s, L, "err");
    e->source = _fieldSds(s, L, "source");
    e->line = _fieldSds(s, L, "line");
    lua_getfield(L, -1, "ignore_error_stats_update");
    if (lua_isboolean(L, -1)) e->ignore_stats = lua_toboolean(L, -1);
    lua_pop(L, 1);
}

static void _errorInfoFree(redisServer *s, errorInfo *e) {
    sdsfree(s->mem, e->msg);
    sdsfree(s->mem, e->source);
    sdsfree(s->mem, e->line);
}

/* Replies err ("-CODE msg"), counted in INFO errorstats unless the
 * command inside the script that replied it was counted already. */
static void _replyScriptError(client *c, const char *err, int counted) {
    sds e = sdsnew(c->srv->mem, err);
    if (counted) addReplyErrorSdsNoStats(c, e);
    else addReplyErrorSds(c, e);
}

/* Pushes t[name] (no metamethods) of the table t on top of the stack and
 * returns 1 if it has the type wanted; else pushes nothing, returns 0. */
static int _rawField(lua_State *L, const char *name, int type) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == type) return 1;
    lua_pop(L, 1);
    return 0;
}

/* The string on top of the stack, with CR and LF made spaces (a status
 * or a big number reply is one line). */
static sds _oneLine(redisServer *s, lua_State *L) {
    size_t len;
    const char *p = lua_tolstring(L, -1, &len);
    sds line = sdsnewlen(s->mem, p, len);
    for (size_t i = 0; i < len; i++)
        if (line[i] == '\r' || line[i] == '\n') line[i] = ' ';
    return line;
}

/* Replies the value on top of the stack to c and pops it. script_resp is
 * the protocol the script chose (redis.setresp): a boolean is :1 or nil
 * under RESP2, #t or #f under RESP3. */
static void _replyValue(client *c, int script_resp, lua_State *L) {
    redisServer *s = c->srv;
    if (!lua_checkstack(L, 4)) {
        addReplyError(c, "reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    int t = lua_type(L, -1);
    if (t == LUA_TSTRING) {
        size_t len;
        const char *p = lua_tolstring(L, -1, &len);
        addReplyBulkCBuffer(c, p, len);
    } else if (t == LUA_TBOOLEAN) {
        if (script_resp == 2) {
            if (lua_toboolean(L, -1)) addReplyLongLong(c, 1);
            else addReplyNull(c);
        } else {
            addReplyBool(c, lua_toboolean(L, -1));
        }
    } else if (t == LUA_TNUMBER) {
        addReplyLongLong(c, (long long)lua_tonumber(L, -1));
    } else if (t == LUA_TTABLE) {
        /* A table with one of the fields below is that kind of reply. */
        if (_rawField(L, "err", LUA_TSTRING)) {
            lua_pop(L, 1);
            errorInfo e;
            _errorInfo(s, L, &e);
            sds err = sdscatprintf(s->mem, sdsempty(s->mem), "-%s", e.msg);
            _replyScriptError(c, err, e.ignore_stats);
            sdsfree(s->mem, err);
            _errorInfoFree(s, &e);
            lua_pop(L, 1);
            return;
        }
        if (_rawField(L, "ok", LUA_TSTRING)) {
            sds ok = _oneLine(s, L);
            addReplyStatusLength(c, ok, sdslen(ok));
            sdsfree(s->mem, ok);
            lua_pop(L, 2);
            return;
        }
        if (_rawField(L, "double", LUA_TNUMBER)) {
            addReplyDouble(c, lua_tonumber(L, -1));
            lua_pop(L, 2);
            return;
        }
        if (_rawField(L, "big_number", LUA_TSTRING)) {
            sds num = _oneLine(s, L);
            addReplyBigNum(c, num, sdslen(num));
            sdsfree(s->mem, num);
            lua_pop(L, 2);
            return;
        }
        if (_rawField(L, "verbatim_string", LUA_TTABLE)) {
            if (_rawField(L, "format", LUA_TSTRING)) {
                lua_pushvalue(L, -2);
                if (_rawField(L, "string", LUA_TSTRING)) {
                    size_t len;
                    const char *str = lua_tolstring(L, -1, &len);
                    addReplyVerbatim(c, str, len, lua_tostring(L, -3));
                    lua_pop(L, 5);
                    return;
                }
                lua_pop(L, 1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        if (_rawField(L, "map", LUA_TTABLE)) {
            long n = 0;
            void *len = addReplyDeferredLen(c);
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pushvalue(L, -2);
                _replyValue(c, script_resp, L);     /* the key */
                _replyValue(c, script_resp, L);     /* the value */
                n++;
            }
            setDeferredMapLen(c, len, n);
            lua_pop(L, 2);
            return;
        }
        if (_rawField(L, "set", LUA_TTABLE)) {
            long n = 0;
            void *len = addReplyDeferredLen(c);
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                _replyValue(c, script_resp, L);
                n++;
            }
            setDeferredSetLen(c, len, n);
            lua_pop(L, 2);
            return;
        }
        /* An array: elements 1, 2, ... up to the first nil. */
        void *len = addReplyDeferredLen(c);
        long n = 0;
        for (int j = 1;; j++) {
            lua_pushnumber(L, j);
            lua_rawget(L, -2);
            if (lua_type(L, -1) == LUA_TNIL) {
                lua_pop(L, 1);
                break;
            }
            _replyValue(c, script_resp, L);
            n++;
        }
        setDeferredArrayLen(c, len, n);
    } else {
        addReplyNull(c);
    }
    lua_pop(L, 1);
}

/* ---- The redis.* API. ---- */

/* The script's arguments to redis.call as argv: numbers are written with
 * %.17g, as Redis writes them; anything but a string or a number is an
 * error. Pops the arguments. NULL (with an error table pushed) if they do
 * not make a command. */
static robj **_argsToArgv(lua_State *L, redisServer *s, int *argc) {
    int n = lua_gettop(L);
    *argc = n;
    if (n == 0) {
        _pushError(L, "Please specify at least one argument for this redis "
                   "lib call");
        return NULL;
    }
    robj **argv = memAllocAs(s->mem, sizeof(robj *) * (size_t)n,
                             MEM64_PTR * (size_t)n);
    int j;
    for (j = 0; j < n; j++) {
        char buf[64];
        const char *p;
        size_t len;
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            len = (size_t)snprintf(buf, sizeof(buf), "%.17g",
                                   (double)lua_tonumber(L, j + 1));
            p = buf;
        } else {
            p = lua_tolstring(L, j + 1, &len);
            if (!p) break;
        }
        argv[j] = createStringObject(s, p, len);
    }
    lua_pop(L, n);
    if (j != n) {
        for (int i = 0; i < j; i++) decrRefCount(s, argv[i]);
        memFree(s->mem, argv);
        _pushError(L, "Lua redis lib command arguments must be strings or "
                   "integers");
        return NULL;
    }
    return argv;
}

/* redis.call (raise 1) and redis.pcall (raise 0). */
static int _redisCall(lua_State *L, int raise) {
    redisServer *s = _server(L);
    scriptRunCtx *run = _run(L);
    if (!run) {
        _pushError(L, "redis.call/pcall can only be called inside a script "
                   "invocation");
        return lua_error(L);
    }
    client *c = run->c;
    int argc;
    s->denv.cpu_ns += s->lua_call_ns;
    robj **argv = _argsToArgv(L, s, &argc);
    if (!argv) return raise ? lua_error(L) : 1;
    if (s->lua_call_inuse) {
        const char *msg = "luaRedisGenericCommand() recursive call "
                          "detected. Are you doing funny stuff with Lua "
                          "debug hooks?";
        serverLog(s, LL_WARNING, "%s", msg);
        for (int i = 0; i < argc; i++) decrRefCount(s, argv[i]);
        memFree(s->mem, argv);
        _pushError(L, msg);
        return 1;
    }
    s->lua_call_inuse = 1;
    c->argv = argv;
    c->argc = c->argv_len = argc;
    sds err = NULL;
    scriptCall(run, &err);
    int is_error;
    if (err) {
        _pushError(L, err);
        sdsfree(s->mem, err);
        lua_pushstring(L, "ignore_error_stats_update");
        lua_pushboolean(L, 1);
        lua_settable(L, -3);
        is_error = 1;
    } else {
        sds reply = clientReplyTake(c);
        const char *p = reply;
        is_error = reply[0] == '-';
        _pushReply(L, &p, 1);
        sdsfree(s->mem, reply);
    }
    freeClientArgv(c);
    memFree(s->mem, c->argv);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    s->lua_call_inuse = 0;
    if (raise && is_error) return lua_error(L);
    return 1;
}

static int _luaRedisCall(lua_State *L) { return _redisCall(L, 1); }
static int _luaRedisPcall(lua_State *L) { return _redisCall(L, 0); }

/* Lua's pcall, which gives a redis.call error as its message only, as
 * scripts written before errors became tables expect. */
static int _luaPcall(lua_State *L) {
    int argc = lua_gettop(L);
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    if (lua_pcall(L, argc - 1, LUA_MULTRET, 0)) {
        lua_remove(L, 1);
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            if (lua_isstring(L, -1)) lua_replace(L, -2);
            else lua_pop(L, 1);
        }
        lua_pushboolean(L, 0);
        lua_insert(L, 1);
    }
    return lua_gettop(L);
}

static int _luaSha1hex(lua_State *L) {
    if (lua_gettop(L) != 1) {
        _pushError(L, "wrong number of arguments");
        return lua_error(L);
    }
    size_t len;
    const char *p = lua_tolstring(L, 1, &len);
    char hex[41];
    sha1hex(hex, p ? p : "", p ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

static int _luaErrorReply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        _pushError(L, "wrong number or type of arguments");
        return 1;
    }
    size_t len;
    const char *p = lua_tolstring(L, -1, &len);
    if (len && p[0] == '-') {
        _pushErrorTable(L, p, len);
    } else {
        lua_pushfstring(L, "-%s", p);
        size_t elen;
        const char *e = lua_tolstring(L, -1, &elen);
        _pushErrorTable(L, e, elen);
    }
    return 1;
}

static int _luaStatusReply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        _pushError(L, "wrong number or type of arguments");
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, "ok");
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    return 1;
}

static int _luaSetRepl(lua_State *L) {
    scriptRunCtx *run = _run(L);
    if (!run) {
        _pushError(L, "redis.set_repl can only be called inside a script "
                   "invocation");
        return lua_error(L);
    }
    if (lua_gettop(L) != 1) {
        _pushError(L, "redis.set_repl() requires two arguments.");
        return lua_error(L);
    }
    int flags = (int)lua_tonumber(L, -1);
    if (flags & ~(PROPAGATE_AOF | PROPAGATE_REPL)) {
        _pushError(L, "Invalid replication flags. Use REPL_AOF, "
                   "REPL_REPLICA, REPL_ALL or REPL_NONE.");
        return lua_error(L);
    }
    run->repl_flags = flags;
    return 0;
}

static int _luaReplicateCommands(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

static int _luaSetResp(lua_State *L) {
    scriptRunCtx *run = _run(L);
    if (!run) {
        _pushError(L, "redis.setresp can only be called inside a script "
                   "invocation");
        return lua_error(L);
    }
    if (lua_gettop(L) != 1) {
        _pushError(L, "redis.setresp() requires one argument.");
        return lua_error(L);
    }
    int resp = (int)lua_tonumber(L, -1);
    if (resp != 2 && resp != 3) {
        _pushError(L, "RESP version must be 2 or 3.");
        return lua_error(L);
    }
    run->c->resp = resp;
    return 0;
}

static int _luaLog(lua_State *L) {
    redisServer *s = _server(L);
    int argc = lua_gettop(L);
    if (argc < 2) {
        _pushError(L, "redis.log() requires two arguments or more.");
        return lua_error(L);
    }
    if (!lua_isnumber(L, -argc)) {
        _pushError(L, "First argument must be a number (log level).");
        return lua_error(L);
    }
    int level = (int)lua_tonumber(L, -argc);
    if (level < LL_DEBUG || level > LL_WARNING) {
        _pushError(L, "Invalid debug level.");
        return lua_error(L);
    }
    if (level < s->cfg.loglevel) return 0;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int first = 1;
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *p = lua_tolstring(L, j, &len);
        if (!p) continue;
        if (!first) luaL_addchar(&b, ' ');
        /* lua_tolstring may have pushed nothing: the buffer is on top. */
        luaL_addlstring(&b, p, len);
        first = 0;
    }
    luaL_pushresult(&b);
    serverLog(s, level, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
}

/* redis.acl_check_cmd(command, arg ...): whether the user that called
 * the script may run that command line (its arity unchecked); an error
 * if there is no such command. */
static int _luaAclCheckCmd(lua_State *L) {
    redisServer *s = _server(L);
    scriptRunCtx *run = _run(L);
    if (!run) {
        _pushError(L, "redis.acl_check_cmd can only be called inside a "
                   "script invocation");
        return lua_error(L);
    }
    int argc;
    robj **argv = _argsToArgv(L, s, &argc);
    if (!argv) return lua_error(L);
    const redisCommand *cmd = lookupCommand(s, argv, argc);
    int idx = 0, allowed = cmd &&
        aclCheckAllUserCommandPerm(s, run->original_client->user, cmd, argv,
                                   argc, &idx) == ACL_OK;
    for (int i = 0; i < argc; i++) decrRefCount(s, argv[i]);
    memFree(s->mem, argv);
    if (!cmd) {
        _pushError(L, "Invalid command passed to redis.acl_check_cmd()");
        return lua_error(L);
    }
    lua_pushboolean(L, allowed);
    return 1;
}

/* The debugger's functions do nothing outside SCRIPT DEBUG, which this
 * server does not have. */
static int _luaNoop(lua_State *L) {
    (void)L;
    return 0;
}

/* math.random and math.randomseed on the server's own lrand48 (Redis's
 * rand.c: the 48-bit linear congruential generator of POSIX drand48),
 * so a script draws the same numbers on every platform. The state lives
 * for the server's life: SCRIPT FLUSH does not reset it. */
#define LRAND48_MAX 2147483647
static int32_t _lrand48(redisServer *s) {
    s->lua_rand48 = (s->lua_rand48 * 0x5DEECE66DULL + 0xB) &
                    ((1ULL << 48) - 1);
    return (int32_t)(s->lua_rand48 >> 17);
}

static int _luaMathRandom(lua_State *L) {
    redisServer *s = _server(L);
    if (!_run(L))
        return luaL_error(L, "math.random can only be called inside a "
                          "script invocation");
    lua_Number r = (lua_Number)(_lrand48(s) % LRAND48_MAX) /
                   (lua_Number)LRAND48_MAX;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, r);
        break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, floor(r * (u - l + 1)) + l);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int _luaMathRandomseed(lua_State *L) {
    redisServer *s = _server(L);
    if (!_run(L))
        return luaL_error(L, "math.randomseed can only be called inside a "
                          "script invocation");
    uint32_t seed = (uint32_t)luaL_checkint(L, 1);
    s->lua_rand48 = ((uint64_t)seed << 16) | 0x330E;
    return 0;
}

/* The error handler of every script call: a raised value that is not a
 * table becomes {err="ERR <value>"}, and the table learns where it was
 * raised: the function that raised it, or its caller if that was a C
 * function (error, redis.call...), which is what the script's author
 * wrote. */
static int _luaErrorHandler(lua_State *L) {
    lua_Debug ar;
    int have = lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar);
    if (have && !strcmp(ar.what, "C"))
        have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
    if (!lua_istable(L, 1)) {
        lua_getglobal(L, "tostring");
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        lua_pushfstring(L, "ERR %s", lua_tostring(L, -1));
        lua_remove(L, -2);
        lua_newtable(L);
        lua_pushstring(L, "err");
        lua_pushvalue(L, -3);
        lua_settable(L, -3);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (have) {
        lua_pushstring(L, ar.source);
        lua_setfield(L, 1, "source");
        lua_pushnumber(L, ar.currentline);
        lua_setfield(L, 1, "line");
    }
    lua_settop(L, 1);
    return 1;
}

/* Raises "Script attempted to access nonexistent global variable" for a
 * read of a global that does not exist. */
static int _luaGlobalMissing(lua_State *L) {
    if (lua_gettop(L) != 2)
        return luaL_error(L, "Wrong number of arguments to "
                          "luaProtectedTableError");
    if (!lua_isstring(L, -1) && !lua_isnumber(L, -1))
        return luaL_error(L, "Second argument to luaProtectedTableError "
                          "must be a string or number");
    return luaL_error(L, "Script attempted to access nonexistent global "
                      "variable '%s'", lua_tostring(L, -1));
}

/* Marks the table on top of the stack read-only, and every table reachable
 * from it (values and metatables). */
static void _protectRecursively(lua_State *L) {
    if (lua_isreadonlytable(L, -1)) return;
    lua_enablereadonlytable(L, -1, 1);
    lua_checkstack(L, 2);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_istable(L, -1)) _protectRecursively(L);
        lua_pop(L, 1);
    }
    if (lua_getmetatable(L, -1)) {
        _protectRecursively(L);
        lua_pop(L, 1);
    }
}

static void _openLib(lua_State *L, const char *name, lua_CFunction open) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void _setFn(lua_State *L, const char *name, lua_CFunction fn) {
    lua_pushcfunction(L, fn);
    lua_setfield(L, -2, name);
}

static void _setNum(lua_State *L, const char *name, lua_Number n) {
    lua_pushnumber(L, n);
    lua_setfield(L, -2, name);
}

/* Sets the metatable that makes a read of a missing field raise on the
 * table on top of the stack. */
static void _setMissingRaises(lua_State *L) {
    lua_newtable(L);
    lua_pushcfunction(L, _luaGlobalMissing);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* Pushes a table with redis.log and its levels and the version fields,
 * what the redis table of both kinds of interpreter has (and all that
 * the one a library sees while it loads has, with register_function). */
static void _pushRedisBase(lua_State *L) {
    lua_newtable(L);
    _setFn(L, "log", _luaLog);
    _setNum(L, "LOG_DEBUG", LL_DEBUG);
    _setNum(L, "LOG_VERBOSE", LL_VERBOSE);
    _setNum(L, "LOG_NOTICE", LL_NOTICE);
    _setNum(L, "LOG_WARNING", LL_WARNING);
    _setNum(L, "REDIS_VERSION_NUM", REDIS_VERSION_NUM);
    lua_pushstring(L, REDIS_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
}

/* A new interpreter with the libraries, the redis table, and the sandbox
 * of Redis 7.0: no io, os, package, loadfile, dofile, print or debug.
 * Its memory is the account m. The redis table is left on the stack, for
 * the caller to add to and set as the global "redis". */
static lua_State *_newState(redisServer *s, gkMem *m) {
    memInit(m, s->mem->fn, s->mem->ud);
    lua_State *L = lua_newstate(_luaAlloc, m);
    if (!L) memPanic("lua_newstate");
    _registrySet(L, REGISTRY_SERVER, s);
    _openLib(L, "", luaopen_base);
    _openLib(L, LUA_TABLIBNAME, luaopen_table);
    _openLib(L, LUA_STRLIBNAME, luaopen_string);
    _openLib(L, LUA_MATHLIBNAME, luaopen_math);
    _openLib(L, "cjson", luaopen_cjson);
#ifdef GK_HAVE_LUALIBS
    _openLib(L, "struct", luaopen_struct);
    _openLib(L, "cmsgpack", luaopen_cmsgpack);
    _openLib(L, "bit", luaopen_bit);
#endif
    /* The base library's file functions and print are not for scripts. */
    static const char *const removed[] = { "dofile", "loadfile", "print",
                                           NULL };
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    lua_pushcfunction(L, _luaPcall);
    lua_setglobal(L, "pcall");

    lua_getglobal(L, "math");
    _setFn(L, "random", _luaMathRandom);
    _setFn(L, "randomseed", _luaMathRandomseed);
    lua_pop(L, 1);

    _pushRedisBase(L);
    _setFn(L, "call", _luaRedisCall);
    _setFn(L, "pcall", _luaRedisPcall);
    _setFn(L, "setresp", _luaSetResp);
    _setFn(L, "sha1hex", _luaSha1hex);
    _setFn(L, "error_reply", _luaErrorReply);
    _setFn(L, "status_reply", _luaStatusReply);
    _setFn(L, "set_repl", _luaSetRepl);
    _setNum(L, "REPL_NONE", 0);
    _setNum(L, "REPL_AOF", PROPAGATE_AOF);
    _setNum(L, "REPL_SLAVE", PROPAGATE_REPL);
    _setNum(L, "REPL_REPLICA", PROPAGATE_REPL);
    _setNum(L, "REPL_ALL", PROPAGATE_AOF | PROPAGATE_REPL);
    _setFn(L, "acl_check_cmd", _luaAclCheckCmd);
    return L;
}

/* Locks the globals: reading a missing one raises, and no table reachable
 * from them can be written. */
static void _lockGlobals(lua_State *L) {
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    _setMissingRaises(L);
    _protectRecursively(L);
    lua_pop(L, 1);
}

/* EVAL's interpreter: its redis table also has the debugger's functions
 * and replicate_commands, and the error handler is the global
 * __redis__err__handler. */
lua_State *luaCreateState(redisServer *s) {
    lua_State *L = _newState(s, &s->lua_mem);
    _setFn(L, "breakpoint", _luaNoop);
    _setFn(L, "debug", _luaNoop);
    _setFn(L, "replicate_commands", _luaReplicateCommands);
    lua_setglobal(L, "redis");
    lua_pushcfunction(L, _luaErrorHandler);
    lua_setglobal(L, "__redis__err__handler");
    _lockGlobals(L);
    return L;
}

/* ---- Functions' interpreter (FUNCTION LOAD, FCALL). ----
 *
 * A library's code runs once, when loaded, to register its functions
 * with redis.register_function; it then sees, besides Lua's libraries,
 * only a redis table with register_function, log and the version. Its
 * functions later run with the whole redis API. Both through the globals
 * of the interpreter: an empty read-only table whose metatable's __index
 * is the library API during a load and the real globals otherwise. */

#define REGISTRY_LOAD "__glasskv_load"
#define REGISTRY_LIBRARY_API "__glasskv_library_api"
#define REGISTRY_GLOBALS "__glasskv_globals"
#define REGISTRY_ERROR_HANDLER "__glasskv_error_handler"

/* What a load in progress knows. */
typedef struct functionLoadCtx {
    functionLib *lib;
    uint64_t start_ns;
    long long timeout_ms;       /* 0: none (the master's, the AOF's) */
} functionLoadCtx;

/* Reads a register_function's flags table (on top of the stack). */
static int _readFunctionFlags(lua_State *L, uint64_t *flags) {
    *flags = 0;
    for (int j = 1;; j++) {
        lua_pushnumber(L, j);
        lua_gettable(L, -2);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return C_OK;
        }
        if (!lua_isstring(L, -1)) {
            lua_pop(L, 1);
            return C_ERR;
        }
        uint64_t f = scriptFlagByName(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!f) return C_ERR;
        *flags |= f;
    }
}

static sds _luaSds(redisServer *s, lua_State *L, int idx) {
    if (!lua_isstring(L, idx)) return NULL;
    size_t len;
    const char *p = lua_tolstring(L, idx, &len);
    return sdsnewlen(s->mem, p, len);
}

/* redis.register_function(name, callback) or
 * redis.register_function{function_name=..., callback=...,
 * description=..., flags={...}}. */
static int _luaRegisterFunction(lua_State *L) {
    redisServer *s = _server(L);
    functionLoadCtx *load = _registryGet(L, REGISTRY_LOAD);
    if (!load) {
        _pushError(L, "redis.register_function can only be called on "
                   "FUNCTION LOAD command");
        return lua_error(L);
    }
    int argc = lua_gettop(L);
    const char *err = NULL;
    sds name = NULL, desc = NULL;
    int ref = LUA_NOREF;
    uint64_t flags = 0;
    if (argc < 1 || argc > 2) {
        err = "wrong number of arguments to redis.register_function";
    } else if (argc == 2) {
        if (!(name = _luaSds(s, L, 1)))
            err = "first argument to redis.register_function must be a "
                  "string";
        else if (!lua_isfunction(L, 2))
            err = "second argument to redis.register_function must be a "
                  "function";
        else
            ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else if (!lua_istable(L, 1)) {
        err = "calling redis.register_function with a single argument is "
              "only applicable to Lua table (representing named "
              "arguments).";
    } else {
        lua_pushnil(L);
        while (!err && lua_next(L, -2)) {
            if (!lua_isstring(L, -2)) {
                err = "named argument key given to redis.register_function "
                      "is not a string";
                break;
            }
            const char *key = lua_tostring(L, -2);
            if (!strcasecmp(key, "function_name")) {
                sdsfree(s->mem, name);
                if (!(name = _luaSds(s, L, -1)))
                    err = "function_name argument given to "
                          "redis.register_function must be a string";
            } else if (!strcasecmp(key, "description")) {
                sdsfree(s->mem, desc);
                if (!(desc = _luaSds(s, L, -1)))
                    err = "description argument given to "
                          "redis.register_function must be a string";
            } else if (!strcasecmp(key, "callback")) {
                if (!lua_isfunction(L, -1)) {
                    err = "callback argument given to "
                          "redis.register_function must be a function";
                } else {
                    if (ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref);
                    ref = luaL_ref(L, LUA_REGISTRYINDEX);   /* pops it */
                    continue;
                }
            } else if (!strcasecmp(key, "flags")) {
                if (!lua_istable(L, -1))
                    err = "flags argument to redis.register_function must be "
                          "a table representing function flags";
                else if (_readFunctionFlags(L, &flags) != C_OK)
                    err = "unknown flag given";
            } else {
                err = "unknown argument given to redis.register_function";
            }
            lua_pop(L, 1);
        }
        if (!err && !name)
            err = "redis.register_function must get a function name argument";
        if (!err && ref == LUA_NOREF)
            err = "redis.register_function must get a callback argument";
    }
    sds why = NULL;
    if (!err && functionLibAdd(s, load->lib, name, desc, ref, flags, &why) ==
        C_OK)
        return 0;
    /* Nothing registered: what was taken is given back. */
    sdsfree(s->mem, name);
    sdsfree(s->mem, desc);
    if (ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, ref);
    if (why) {
        _pushError(L, why);
        sdsfree(s->mem, why);
    } else {
        _pushError(L, err);
    }
    return lua_error(L);
}

/* Stops a load that runs past its time (an endless loop at the top level
 * of a library), and counts its virtual CPU. */
static void _luaLoadHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    redisServer *s = _server(L);
    functionLoadCtx *load = _registryGet(L, REGISTRY_LOAD);
    s->denv.cpu_ns += (uint64_t)LUA_HOOK_INSTRUCTIONS * s->lua_ns_per_instr;
    if (!load || load->timeout_ms <= 0) return;
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    if ((long long)((now - load->start_ns) / 1000000) > load->timeout_ms) {
        lua_sethook(L, _luaLoadHook, LUA_MASKLINE, 0);
        _pushError(L, "FUNCTION LOAD timeout");
        lua_error(L);
    }
}

/* Points the globals' fall-back at the registry's table name. */
static void _globalsFallBackTo(lua_State *L, const char *name) {
    lua_getmetatable(L, LUA_GLOBALSINDEX);
    lua_enablereadonlytable(L, -1, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, name);
    lua_setfield(L, -2, "__index");
    lua_enablereadonlytable(L, -1, 1);
    lua_pop(L, 1);
}

lua_State *luaCreateFunctionState(redisServer *s) {
    lua_State *L = _newState(s, &s->lua_fn_mem);
    lua_setglobal(L, "redis");
    /* The library API: a table holding only redis, itself holding
     * register_function, log and the version. */
    lua_newtable(L);
    _pushRedisBase(L);
    _setFn(L, "register_function", _luaRegisterFunction);
    _setMissingRaises(L);
    lua_setfield(L, -2, "redis");
    _setMissingRaises(L);
    _protectRecursively(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_LIBRARY_API);
    lua_pushcfunction(L, _luaErrorHandler);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_ERROR_HANDLER);
    _lockGlobals(L);
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, LUA_REGISTRYINDEX, REGISTRY_GLOBALS);
    /* The globals code sees: empty, read-only, falling back on the real
     * ones. */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, -2, "__index");
    lua_enablereadonlytable(L, -1, 1);
    lua_setmetatable(L, -2);
    lua_enablereadonlytable(L, -1, 1);
    lua_replace(L, LUA_GLOBALSINDEX);
    return L;
}

/* Runs a library's code (after its shebang line) so it registers its
 * functions into lib. C_ERR with *err set if it does not compile or
 * raises. */
int luaFunctionLoad(redisServer *s, functionLib *lib, const char *code,
                    size_t len, long long timeout_ms, sds *err) {
    lua_State *L = s->lua_fn;
    int ok = C_ERR;
    _globalsFallBackTo(L, REGISTRY_LIBRARY_API);
    if (luaL_loadbuffer(L, code, len, "@user_function")) {
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "Error compiling "
                            "function: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        goto done;
    }
    functionLoadCtx load = { lib, s->el->backend.now(s->el->backend.ctx),
                             timeout_ms };
    _registrySet(L, REGISTRY_LOAD, &load);
    lua_sethook(L, _luaLoadHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    if (lua_pcall(L, 0, 0, 0)) {
        sds msg = NULL;
        if (lua_isstring(L, -1)) {
            msg = sdscatprintf(s->mem, sdsempty(s->mem), "ERR %s",
                               lua_tostring(L, -1));
        } else if (lua_istable(L, -1)) {
            errorInfo e;
            _errorInfo(s, L, &e);
            msg = e.msg;
            e.msg = NULL;
            _errorInfoFree(s, &e);
        }
        *err = sdscatprintf(s->mem, sdsempty(s->mem), "Error registering "
                            "functions: %s", msg ? msg : "(null)");
        sdsfree(s->mem, msg);
        lua_pop(L, 1);
        goto done;
    }
    ok = C_OK;
done:
    _globalsFallBackTo(L, REGISTRY_GLOBALS);
    lua_sethook(L, NULL, 0, 0);
    _registrySet(L, REGISTRY_LOAD, NULL);
    return ok;
}

/* FCALL: runs the function of registry reference ref. */
void luaFunctionCall(scriptRunCtx *run, int ref, robj **keys, size_t nkeys,
                     robj **args, size_t nargs) {
    lua_State *L = run->c->srv->lua_fn;
    lua_getfield(L, LUA_REGISTRYINDEX, REGISTRY_ERROR_HANDLER);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    luaCallFunction(run, L, keys, nkeys, args, nargs);
    lua_pop(L, 1);
}

void luaFunctionFree(redisServer *s, int ref) {
    if (s->lua_fn) luaL_unref(s->lua_fn, LUA_REGISTRYINDEX, ref);
}

/* ---- Running a script. ---- */

/* Counts the virtual CPU time of the Lua instructions run, and every
 * LUA_HOOKS_PER_CHECK calls checks busy-reply-threshold (and SCRIPT
 * KILL). A script being stopped has its hook called at every line, and
 * every call raises the error again. */
static void _luaCountHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    redisServer *s = _server(L);
    scriptRunCtx *run = _run(L);
    int stopping = lua_gethookmask(L) & LUA_MASKLINE;
    if (!stopping)
        s->denv.cpu_ns += (uint64_t)LUA_HOOK_INSTRUCTIONS *
                          s->lua_ns_per_instr;
    if (!run || (!stopping && ++s->lua_hook_calls % LUA_HOOKS_PER_CHECK))
        return;
    /* The process died under the script (SHUTDOWN NOSAVE from another
     * client, a kill): nothing of it runs on. */
    if (s->fs.alive && !s->fs.alive(s->fs.ctx, FS_POINT_CALL)) {
        lua_sethook(L, _luaCountHook, LUA_MASKLINE, 0);
        _pushError(L, "Script stopped: the server process is gone");
        lua_error(L);
    }
    /* In the simulated world a script is stopped once it has been busy
     * for the time box (see SCRIPT_SIM_TIME_BOX_MS). */
    long long box = 0;
    if (s->script_time_box_ms)
        box = s->script_time_box_ms + (s->cfg.busy_reply_threshold > 0
                                       ? s->cfg.busy_reply_threshold : 0);
    uint64_t now = s->el->backend.now(s->el->backend.ctx);
    if (box && (long long)((now - run->start_ns) / 1000000) >= box) {
        const char *why = s->script_box_killable
            ? "its time box for a busy script"
            : "the console cannot send SCRIPT KILL while the world runs";
        serverLog(s, LL_WARNING, "Lua script stopped after %lld ms: %s.",
                  box, why);
        lua_sethook(L, _luaCountHook, LUA_MASKLINE, 0);
        lua_pushfstring(L, "-ERR Script stopped by the simulation after %d "
                        "ms (%s)", (int)box, why);
        _pushError(L, lua_tostring(L, -1));
        lua_error(L);
    }
    if (scriptInterrupt(run) == SCRIPT_KILL) {
        serverLog(s, LL_WARNING, "Lua script killed by user with SCRIPT "
                  "KILL.");
        /* From now on every line raises, so pcall cannot swallow it. */
        lua_sethook(L, _luaCountHook, LUA_MASKLINE, 0);
        _pushError(L, "Script killed by user with SCRIPT KILL...");
        lua_error(L);
    }
}

/* Pushes a table of the strings v[0 .. n-1] (KEYS, ARGV), charging the
 * virtual CPU of making it. */
static void _pushArray(lua_State *L, robj **v, size_t n) {
    redisServer *s = _server(L);
    s->denv.cpu_ns += (uint64_t)n * s->lua_arg_ns;
    lua_newtable(L);
    for (size_t j = 0; j < n; j++) {
        robj *o = v[j];
        if (sdsEncodedObject(o)) {
            lua_pushlstring(L, o->v.ptr, sdslen(o->v.ptr));
        } else {
            char buf[32];
            int len = snprintf(buf, sizeof(buf), "%lld", (long long)o->v.ll);
            lua_pushlstring(L, buf, (size_t)len);
        }
        lua_rawseti(L, -2, (int)j + 1);
    }
}

/* Sets a global past the lock. */
static void _setGlobalUnlocked(lua_State *L, const char *name) {
    lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 0);
    lua_setglobal(L, name);
    lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 1);
}

/* Calls the function on top of the stack (the error handler below it)
 * with its keys and arguments, and replies its result, or its error, to
 * the caller. The function is consumed; the handler is left. */
void luaCallFunction(scriptRunCtx *run, lua_State *L, robj **keys,
                     size_t nkeys, robj **args, size_t nargs) {
    redisServer *s = run->c->srv;
    client *c = run->original_client;
    _registrySet(L, REGISTRY_RUN, run);
    lua_sethook(L, _luaCountHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    int err;
    /* EVAL's KEYS and ARGV are globals; a function gets them as its two
     * arguments. */
    if (run->flags & SCRIPT_EVAL_MODE) {
        _pushArray(L, keys, nkeys);
        _setGlobalUnlocked(L, "KEYS");
        _pushArray(L, args, nargs);
        _setGlobalUnlocked(L, "ARGV");
        err = lua_pcall(L, 0, 1, -2);
    } else {
        _pushArray(L, keys, nkeys);
        _pushArray(L, args, nargs);
        err = lua_pcall(L, 2, 1, -4);
    }
    /* A step of garbage collection every 50 scripts, as Redis does, rather
     * than a full cycle when Lua decides. */
    if (++s->lua_gc_count == 50) {
        lua_gc(L, LUA_GCSTEP, 50);
        s->lua_gc_count = 0;
    }
    if (err) {
        if (!lua_istable(L, -1)) {
            const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1)
                                                  : "execution failure";
            addReplyErrorFormat(c, "Error running script %s, %.100s\n",
                                run->funcname, msg);
        } else {
            errorInfo e;
            _errorInfo(s, L, &e);
            sds msg = sdscatprintf(s->mem, sdsempty(s->mem), "-%s",
                                   e.msg ? e.msg : "");
            if (e.line && e.source)
                msg = sdscatprintf(s->mem, msg, " script: %s, on %s:%s.",
                                   run->funcname, e.source, e.line);
            _replyScriptError(c, msg, e.ignore_stats);
            sdsfree(s->mem, msg);
            _errorInfoFree(s, &e);
        }
        lua_pop(L, 1);
    } else {
        _replyValue(c, run->c->resp, L);
    }
    lua_sethook(L, NULL, 0, 0);
    _registrySet(L, REGISTRY_RUN, NULL);
}
