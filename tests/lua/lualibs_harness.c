/* lualibs_harness.c -- runs one Lua chunk with the libraries a Redis 7.0
 * script sees (base, table, string, math, struct, cmsgpack, bit) and
 * prints what it returned or the error it raised.
 *
 *   lualibs_harness '<chunk>'
 *
 * The chunk is named "@user_script", as Redis names scripts, so error
 * positions read "user_script:N:" in both. Output, on stdout, one line:
 *
 *   value <the returned value as tostring() gives it, in hex>
 *   error <the error message, in hex>
 *
 * Hex, so that no byte of the result can be altered on the way out (the
 * WebAssembly build's stdout decodes UTF-8, for one).
 *
 * The exit status is 0 either way; 2 means the harness itself failed. */
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "lualibs.h"

/* Opens a library the way Redis does: called with its name as argument. */
static void harnessOpen(lua_State *L, const char *name, lua_CFunction open) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void harnessPrint(const char *kind, const char *s, size_t len) {
    fputs(kind, stdout);
    fputc(' ', stdout);
    for (size_t i = 0; i < len; i++) printf("%02x", (unsigned char)s[i]);
    fputc('\n', stdout);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s '<lua chunk>'\n", argv[0]);
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        fprintf(stderr, "cannot create a Lua state\n");
        return 2;
    }
    harnessOpen(L, "", luaopen_base);
    harnessOpen(L, LUA_TABLIBNAME, luaopen_table);
    harnessOpen(L, LUA_STRLIBNAME, luaopen_string);
    harnessOpen(L, LUA_MATHLIBNAME, luaopen_math);
    harnessOpen(L, "struct", luaopen_struct);
    harnessOpen(L, "cmsgpack", luaopen_cmsgpack);
    harnessOpen(L, "bit", luaopen_bit);

    size_t len;
    const char *out;
    int status = luaL_loadbuffer(L, argv[1], strlen(argv[1]), "@user_script");
    if (status == 0) status = lua_pcall(L, 0, 1, 0);
    if (status == 0) {
        lua_getglobal(L, "tostring");
        lua_insert(L, -2);
        lua_call(L, 1, 1);
    }
    out = lua_tolstring(L, -1, &len);
    if (out == NULL) out = "(error object is not a string)", len = strlen(out);
    harnessPrint(status == 0 ? "value" : "error", out, len);
    lua_close(L);
    return fflush(stdout) == 0 ? 0 : 2;
}
