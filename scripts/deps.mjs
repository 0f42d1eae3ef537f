// The third-party C sources the engine is built with, fetched from Debian's
// source packages into build/deps (never committed) the first time a build
// needs them:
//   build/deps/lua-5.1.5      Lua 5.1.5, the pristine orig tarball of lua5.1
//   build/deps/lua-cjson      lua-cjson 2.1.0, the cjson library scripts load
// Lua is then changed as Redis 7.0's embedded copy is (patchLua below):
// tables can be made read-only, which is how the script sandbox protects
// its globals and libraries; a chunk is always parsed as source, never
// loaded as bytecode; a string's hash covers all of its bytes; and a call
// makes room on the stack for its fixed parameters too.
//
//   node scripts/deps.mjs          fetch and prepare what is missing
import { spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSha256, downloadSources } from './debsrc.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const depsDir = join(root, 'build', 'deps');
export const luaDir = join(depsDir, 'lua-5.1.5', 'src');
export const cjsonDir = join(depsDir, 'lua-cjson');
const stamp = join(depsDir, 'ready-2');

const LUA_ORIG = 'lua5.1_5.1.5.orig.tar.gz';
const LUA_SHA256 = '2640fc56a795f29d28ef15e13c34a47e223960b0240e8cb0a82d9b0738695333';
const CJSON_ORIG = 'lua-cjson_2.1.0+dfsg.orig.tar.gz';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
}

/** Replaces the one occurrence of `from` in file by `to`; throws if absent. */
function edit(file, from, to) {
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0)
    throw new Error(`${file}: the text to change was not found once: ${JSON.stringify(from)}`);
  writeFileSync(file, text.slice(0, at) + to + text.slice(at + from.length));
}

const READONLY_ERROR = 'luaG_runerror(L, "Attempt to modify a readonly table");';

/** Redis 7.0's changes to Lua 5.1.5, made on the pristine sources in dir. */
function patchLua(dir) {
  const f = (name) => join(dir, name);
  // A table carries a read-only mark, clear when it is created.
  edit(f('lobject.h'), '  lu_byte flags;  /* 1<<p means tagmethod(p) is not present */ \n',
    '  lu_byte flags;  /* 1<<p means tagmethod(p) is not present */ \n'
    + '  lu_byte readonly;  /* writes raise an error */\n');
  edit(f('ltable.c'), '  t->flags = cast_byte(~0);\n',
    '  t->flags = cast_byte(~0);\n  t->readonly = 0;\n');
  // Every write to a marked table raises: assignment (through the VM),
  // rawset, rawseti and setmetatable.
  edit(f('lvm.c'), '      TValue *oldval = luaH_set(L, h, key); /* do a primitive set */\n',
    `      if (h->readonly) ${READONLY_ERROR}\n`
    + '      TValue *oldval = luaH_set(L, h, key); /* do a primitive set */\n');
  edit(f('lapi.c'), '  api_check(L, ttistable(t));\n  setobj2t(L, luaH_set(L, hvalue(t), L->top-2), L->top-1);\n',
    '  api_check(L, ttistable(t));\n'
    + `  if (hvalue(t)->readonly) ${READONLY_ERROR}\n`
    + '  setobj2t(L, luaH_set(L, hvalue(t), L->top-2), L->top-1);\n');
  edit(f('lapi.c'), '  api_check(L, ttistable(o));\n  setobj2t(L, luaH_setnum(L, hvalue(o), n), L->top-1);\n',
    '  api_check(L, ttistable(o));\n'
    + `  if (hvalue(o)->readonly) ${READONLY_ERROR}\n`
    + '  setobj2t(L, luaH_setnum(L, hvalue(o), n), L->top-1);\n');
  edit(f('lapi.c'), '    case LUA_TTABLE: {\n      hvalue(obj)->metatable = mt;\n',
    '    case LUA_TTABLE: {\n'
    + `      if (hvalue(obj)->readonly) ${READONLY_ERROR}\n`
    + '      hvalue(obj)->metatable = mt;\n');
  edit(f('lapi.c'), 'LUA_API void lua_setallocf (lua_State *L, lua_Alloc f, void *ud) {',
    'LUA_API void lua_enablereadonlytable (lua_State *L, int idx, int enabled) {\n'
    + '  TValue *o = index2adr(L, idx);\n'
    + '  api_check(L, ttistable(o));\n'
    + '  hvalue(o)->readonly = cast_byte(enabled != 0);\n'
    + '}\n\n'
    + 'LUA_API int lua_isreadonlytable (lua_State *L, int idx) {\n'
    + '  TValue *o = index2adr(L, idx);\n'
    + '  api_check(L, ttistable(o));\n'
    + '  return hvalue(o)->readonly;\n'
    + '}\n\n'
    + 'LUA_API void lua_setallocf (lua_State *L, lua_Alloc f, void *ud) {');
  edit(f('lua.h'), 'LUA_API lua_Alloc (lua_getallocf) (lua_State *L, void **ud);\n',
    'LUA_API lua_Alloc (lua_getallocf) (lua_State *L, void **ud);\n'
    + 'LUA_API void lua_enablereadonlytable (lua_State *L, int idx, int enabled);\n'
    + 'LUA_API int lua_isreadonlytable (lua_State *L, int idx);\n');
  // Chunks are source text only: precompiled bytecode is never loaded.
  edit(f('ldo.c'), '  int c = luaZ_lookahead(p->z);\n', '  luaZ_lookahead(p->z);\n');
  edit(f('ldo.c'), '((c == LUA_SIGNATURE[0]) ? luaU_undump : luaY_parser)', '(luaY_parser)');
  // Every byte of a string counts in its hash, long strings included,
  // which orders a table's string keys as Redis's Lua does.
  edit(f('lstring.c'), '  size_t step = (l>>5)+1;', '  size_t step = 1;');
  // A Lua function's frame has room for its parameters as well.
  edit(f('ldo.c'), '    luaD_checkstack(L, p->maxstacksize);\n    func = restorestack(L, funcr);\n',
    '    luaD_checkstack(L, p->maxstacksize + p->numparams);\n'
    + '    func = restorestack(L, funcr);\n');
}

// The C files the engine is built with, and their flags (engine/Makefile
// names the same): Lua's core and the libraries scripts load (not io, os,
// package, which the sandbox has none of), and lua-cjson.
const LUA_CORE = ['lapi', 'lcode', 'ldebug', 'ldo', 'ldump', 'lfunc', 'lgc', 'llex', 'lmem',
  'lobject', 'lopcodes', 'lparser', 'lstate', 'lstring', 'ltable', 'ltm', 'lundump', 'lvm',
  'lzio', 'lauxlib', 'lbaselib', 'ldblib', 'lmathlib', 'ltablib', 'lstrlib'];
const CJSON = ['lua_cjson', 'strbuf', 'fpconv'];
export const depsFlags = ['-DLUA_ANSI', '-DENABLE_CJSON_GLOBAL', `-I${luaDir}`];

/** The third-party C files, full paths. */
export function depsSources() {
  return [...LUA_CORE.map((f) => join(luaDir, `${f}.c`)), ...CJSON.map((f) => join(cjsonDir, `${f}.c`))];
}

/** Fetches and prepares build/deps unless it is ready. */
export function ensureDeps() {
  if (existsSync(stamp)) return;
  mkdirSync(depsDir, { recursive: true });
  const have = (f) => existsSync(join(depsDir, f));
  if (!have(LUA_ORIG) || !have(CJSON_ORIG)) {
    console.log('deps: fetching the source packages lua5.1 and lua-cjson');
    downloadSources(['lua5.1', 'lua-cjson'], 'bookworm', depsDir);
  }
  checkSha256(join(depsDir, LUA_ORIG), LUA_SHA256);
  for (const d of ['lua-5.1.5', 'lua-cjson', 'wasm'])
    rmSync(join(depsDir, d), { recursive: true, force: true });
  run('tar', ['xzf', LUA_ORIG], { cwd: depsDir });
  patchLua(luaDir);
  run('tar', ['xzf', CJSON_ORIG], { cwd: depsDir });
  const unpacked = readdirSync(depsDir).find((d) => /^lua-cjson-2\.1\.0/.test(d));
  if (!unpacked) throw new Error(`${CJSON_ORIG} did not unpack into lua-cjson-2.1.0*`);
  renameSync(join(depsDir, unpacked), cjsonDir);
  for (const f of [join(luaDir, 'lua.h'), join(cjsonDir, 'lua_cjson.c')])
    if (!existsSync(f)) throw new Error(`${f} is missing`);
  writeFileSync(stamp, 'ready\n');
  console.log(`deps: Lua 5.1.5 and lua-cjson 2.1.0 ready in ${depsDir}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    ensureDeps();
  } catch (e) {
    console.error(`deps: ${e.message}`);
    process.exit(1);
  }
}

/** WebAssembly features the module uses, for every object it links:
 *  bulk memory makes memmove and memcpy one memory.copy instruction,
 *  where Emscripten's own C loop moves a listpack's tail a byte at a time
 *  (4 KB shifted by 5 bytes: about 4,000 ns against 50). Every browser
 *  and Node the project runs in has it. */
export const WASM_FEATURES = ['-mbulk-memory'];
