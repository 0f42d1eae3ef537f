/* lualibs.h -- the three helper libraries Redis 7.0 opens in every script.
 *
 * Besides Lua's own base, table, string, math and debug libraries, a Redis
 * 7.0 script sees three small C libraries as globals:
 *
 *   struct    binary records: struct.pack, struct.unpack, struct.size
 *   cmsgpack  MessagePack: cmsgpack.pack, unpack, unpack_one, unpack_limit
 *   bit       32-bit integer operations: bit.band, bit.lshift, bit.tohex ...
 *
 * Each opener follows the lua_CFunction convention: called with the Lua
 * state, it creates the library table, stores it in the global of the same
 * name and returns 1 with the table left on the stack. The three behave as
 * the versions bundled with Redis 7.0.15 (lua-struct, lua-cmsgpack 0.4.0,
 * LuaBitOp 1.0.2): same results, same error messages, same edge cases.
 *
 * They use only the public Lua 5.1 C API (lua.h, lauxlib.h) and assume
 * lua_Number is an IEEE 754 double, as in stock Lua. Results do not depend
 * on the host: the sizes, byte order and number conversions are those of
 * Redis on x86-64, also where lua_Integer is 32 bits (WebAssembly). */
#ifndef GK_LUALIBS_H
#define GK_LUALIBS_H

#include "lua.h"

int luaopen_struct(lua_State *L);
int luaopen_cmsgpack(lua_State *L);
int luaopen_bit(lua_State *L);

#endif
