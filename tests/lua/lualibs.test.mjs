// Differential test of engine/lua's struct, cmsgpack and bit libraries
// against the ones inside a real redis-server 7.0.
//
// Every line of lualibs_cases.txt is a Lua expression. Each becomes the
// script PRELUDE + "return show(<expression>)", run once by
// lualibs_harness (our libraries on stock Lua 5.1.5) and once by EVAL on
// the redis-server this test starts (Debian's, as tests/server/servers.mjs
// starts it); the two replies must be equal. show()
// renders every value the expression produced (numbers with 17 digits,
// strings with non-printable bytes escaped, tables with sorted keys), so
// the comparison sees exactly what the script saw. Errors are compared by
// message, without the " script: <sha1>, on @user_script:N." Redis adds.
//
// The harness is built by this test:
//   LUA_SRC        Lua 5.1.5's src directory (default build/deps/lua-5.1.5/src)
//   CC             the C compiler (default cc)
//   LUALIBS_HARNESS=1   run the cases through the harness too (plain)
//   LUALIBS_SANITIZE=0  with it, skip the run under ASan and UBSan
//   LUALIBS_WASM=1      with it, add a run built with emcc for WebAssembly
//
// Without LUALIBS_HARNESS (as npm test runs it), the cases go to EVAL on
// `glasskv server` (the engine's build, see tests/server/servers.mjs).
//
// Run: node --test tests/lua/lualibs.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server/servers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const luaSrc = path.resolve(process.env.LUA_SRC ??
  path.join(root, 'build', 'deps', 'lua-5.1.5', 'src'));
const cc = process.env.CC ?? 'cc';
const sanitize = process.env.LUALIBS_SANITIZE !== '0';
const outDir = path.join(root, 'build', 'lualibs-test');

// Helpers every case may use; locals only, since Redis refuses to let a
// script create globals.
const PRELUDE = `
local function hex(s)
  return (string.gsub(s, '.', function(c)
    return string.format('%02x', string.byte(c)) end))
end
local function quote(s)
  return '"' .. string.gsub(s, '.', function(c)
    local b = string.byte(c)
    if b < 32 or b > 126 or c == '"' or c == '\\\\' then
      return string.format('\\\\x%02x', b)
    end
  end) .. '"'
end
local render
local rank = { boolean = 1, number = 2, string = 3 }
local function before(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (rank[ta] or 9) < (rank[tb] or 9) end
  if ta == 'boolean' then return (not a) and b end
  if ta == 'number' or ta == 'string' then return a < b end
  return false
end
render = function(v, open)
  local t = type(v)
  if t == 'number' then return string.format('%.17g', v) end
  if t == 'string' then return quote(v) end
  if t ~= 'table' then return t == 'nil' and 'nil' or
    (t == 'boolean' and tostring(v) or t) end
  if open[v] then return '<cycle>' end
  open[v] = true
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, before)
  local parts = {}
  for i = 1, #keys do
    parts[i] = render(keys[i], open) .. '=' .. render(v[keys[i]], open)
  end
  open[v] = nil
  return '{' .. table.concat(parts, ',') .. '}'
end
local function show(...)
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = render((select(i, ...)), {}) end
  return '#' .. select('#', ...) .. ': ' .. table.concat(parts, ', ')
end
local function bytes(h)
  return (string.gsub(string.gsub(h, '%s', ''), '%x%x', function(x)
    return string.char(tonumber(x, 16)) end))
end
local function keys(t)
  local names = {}
  for k in pairs(t) do names[#names + 1] = tostring(k) end
  return table.concat(names, ' ')
end
local function rt(...) return cmsgpack.unpack(cmsgpack.pack(...)) end
local function seq(n, v)
  local t = {}
  for i = 1, n do t[i] = v or i end
  return t
end
local function nest(n)
  local t = {}
  for i = 2, n do t = { t } end
  return t
end
`;

function loadCases() {
  const text = readFileSync(path.join(here, 'lualibs_cases.txt'), 'utf8');
  return text.split('\n').map((line, i) => ({ line: i + 1, expr: line }))
    .filter(({ expr }) => expr.trim() !== '' && !expr.startsWith('#'));
}

function scriptOf(expr) {
  return `${PRELUDE}return show(${expr})`;
}

// --- building the harness ------------------------------------------------

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')}\n${r.error ?? ''}${r.stderr}`);
  }
}

// Compiles Lua's core (all of src/*.c but the lua, luac and print
// programs) with -DLUA_ANSI, then our three libraries and the harness with
// warnings as errors, and links them, all in build/lualibs-test/<name>.
// The variant gives the compiler and the flags added to the core's
// compilation, to ours and to the link. Returns the command that runs the
// harness (before its argument).
function buildHarness(name, { compiler, env, coreFlags, ourFlags, linkFlags,
  output, command }) {
  if (!existsSync(path.join(luaSrc, 'lapi.c'))) {
    throw new Error(`no Lua 5.1.5 sources at ${luaSrc}: set LUA_SRC to ` +
      'the src directory of an unpacked lua-5.1.5');
  }
  const dir = path.join(outDir, name);
  mkdirSync(dir, { recursive: true });
  const options = { cwd: dir, env: { ...process.env, ...env } };
  // The repository's package.json makes .js files ES modules; emcc's
  // loader for node is CommonJS.
  writeFileSync(path.join(dir, 'package.json'), '{"type": "commonjs"}\n');
  const core = readdirSync(luaSrc).filter((f) => f.endsWith('.c') &&
    !['lua.c', 'luac.c', 'print.c'].includes(f));
  const ours = [
    path.join(root, 'engine', 'lua', 'lua_struct.c'),
    path.join(root, 'engine', 'lua', 'lua_cmsgpack.c'),
    path.join(root, 'engine', 'lua', 'lua_bit.c'),
    path.join(here, 'lualibs_harness.c'),
  ];
  run(compiler, ['-O2', '-DLUA_ANSI', ...coreFlags, '-c',
    ...core.map((f) => path.join(luaSrc, f))], options);
  run(compiler, ['-std=c11', '-O2', '-Wall', '-Wextra', '-Werror',
    ...ourFlags, `-I${luaSrc}`, `-I${path.join(root, 'engine', 'lua')}`,
    '-c', ...ours], options);
  const objects = [...core, ...ours.map((f) => path.basename(f))]
    .map((f) => f.replace(/\.c$/, '.o'));
  run(compiler, [...linkFlags, '-o', output, ...objects, '-lm'], options);
  return command(path.join(dir, output));
}

function runHarness(command, script) {
  const r = spawnSync(command[0], [...command.slice(1), script], {
    encoding: 'latin1',
    maxBuffer: 64 << 20,
    env: {
      ...process.env,
      ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0',
      UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
    },
  });
  const m = /^(value|error) ((?:[0-9a-f]{2})*)\n$/.exec(r.stdout);
  if (r.status !== 0 || r.stderr !== '' || !m) {
    return { kind: 'crash', text: `exit ${r.status}: ${r.stdout}${r.stderr}` };
  }
  return { kind: m[1], text: Buffer.from(m[2], 'hex').toString('latin1') };
}

// --- talking to redis-server ---------------------------------------------

// A minimal RESP client: one request at a time, replies parsed as they are
// needed. Strings are kept byte for byte (latin1).
class Resp {
  constructor(port) {
    this.buf = Buffer.alloc(0);
    this.waiting = null;
    this.sock = net.connect(port, '127.0.0.1');
    this.sock.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.poll();
    });
  }

  ready() {
    return new Promise((resolve, reject) => {
      this.sock.once('connect', resolve);
      this.sock.once('error', reject);
    });
  }

  parse(at) {
    const eol = this.buf.indexOf('\r\n', at);
    if (eol < 0) return null;
    const type = String.fromCharCode(this.buf[at]);
    const line = this.buf.toString('latin1', at + 1, eol);
    if (type === '+' || type === '-' || type === ':') {
      return { value: { type, text: line }, end: eol + 2 };
    }
    if (type === '$') {
      const n = Number(line);
      if (n < 0) return { value: { type: 'nil' }, end: eol + 2 };
      if (this.buf.length < eol + 2 + n + 2) return null;
      const text = this.buf.toString('latin1', eol + 2, eol + 2 + n);
      return { value: { type, text }, end: eol + 2 + n + 2 };
    }
    throw new Error(`unexpected reply type ${type}`);
  }

  poll() {
    if (!this.waiting) return;
    const r = this.parse(0);
    if (!r) return;
    this.buf = this.buf.subarray(r.end);
    const { resolve } = this.waiting;
    this.waiting = null;
    resolve(r.value);
  }

  call(...args) {
    const parts = [`*${args.length}\r\n`];
    for (const a of args) {
      parts.push(`$${Buffer.byteLength(a, 'latin1')}\r\n${a}\r\n`);
    }
    return new Promise((resolve) => {
      this.waiting = { resolve };
      this.sock.write(Buffer.from(parts.join(''), 'latin1'));
      this.poll();
    });
  }

  close() { this.sock.destroy(); }
}

let server;
let client;

before(async () => {
  // startServer checks that the server answering on its port is its own.
  server = await startServer('redis', ['--appendonly', 'no']);
  client = new Resp(server.port);
  await client.ready();
  const pong = await client.call('PING');
  assert.equal(pong.text, 'PONG');
});

after(async () => {
  client?.close();
  await server?.stop();
});

// Redis wraps a script's error as "ERR <message> script: <sha1>, on
// @user_script:N."; this gives back <message>.
function redisOutcome(reply) {
  if (reply.type === '$') return { kind: 'value', text: reply.text };
  if (reply.type === '-') {
    const m = /^ERR (.*) script: [0-9a-f]{40}, on @user_script:\d+\.$/s
      .exec(reply.text);
    assert.ok(m, `unexpected error shape: ${reply.text}`);
    return { kind: 'error', text: m[1] };
  }
  assert.fail(`unexpected reply: ${JSON.stringify(reply)}`);
}

const cases = loadCases();

test('the case file covers every function of the three libraries', () => {
  const all = cases.map((c) => c.expr).join('\n');
  for (const fn of ['struct.pack', 'struct.unpack', 'struct.size',
    'cmsgpack.pack', 'cmsgpack.unpack', 'cmsgpack.unpack_one',
    'cmsgpack.unpack_limit', 'bit.tobit', 'bit.tohex', 'bit.bnot',
    'bit.band', 'bit.bor', 'bit.bxor', 'bit.lshift', 'bit.rshift',
    'bit.arshift', 'bit.rol', 'bit.ror', 'bit.bswap']) {
    assert.ok(all.includes(`${fn}(`), `no case calls ${fn}`);
  }
  assert.ok(cases.length >= 150, `only ${cases.length} cases`);
});

// The sanitized build checks our code for undefined behaviour and all of
// it for memory errors. Lua 5.1.5's own core gets AddressSanitizer only:
// it has undefined behaviour of its own that UBSan reports (ltable.c
// converts an int key minus one that overflows for INT_MIN keys).
const asan = ['-fsanitize=address', '-fno-omit-frame-pointer', '-g'];
const ubsan = ['-fsanitize=address,undefined', '-fno-sanitize-recover=all',
  '-fno-omit-frame-pointer', '-g'];
const native = (flags) => ({
  compiler: cc, env: {}, output: 'lualibs_harness', command: (bin) => [bin],
  coreFlags: [], ourFlags: [], linkFlags: [], ...flags,
});
const variants = [['plain', native({})]];
if (sanitize) {
  variants.push(['sanitized',
    native({ coreFlags: asan, ourFlags: ubsan, linkFlags: ubsan })]);
}
// The engine also runs in the browser: the same cases, with the libraries
// built by emcc as 32-bit WebAssembly and run by node. Opt in with
// LUALIBS_WASM=1 (Debian's emscripten wants NODE_PATH and EMSDK_PYTHON set,
// as wasm/build.mjs sets them).
if (process.env.LUALIBS_WASM === '1') {
  const flags = ['-sENVIRONMENT=node', '-sEXIT_RUNTIME=1',
    '-sALLOW_MEMORY_GROWTH=1', '-sWASM_ASYNC_COMPILATION=0'];
  variants.push(['wasm', {
    compiler: process.env.EMCC ?? 'emcc',
    env: { NODE_PATH: '/usr/share/nodejs', EMSDK_PYTHON: '/usr/bin/python3' },
    coreFlags: [], ourFlags: [], linkFlags: flags, output: 'harness.js',
    command: (js) => [process.execPath, js],
  }]);
}

// Each case compared, ours(script) giving our outcome.
async function compareAll(t, ours) {
  let failures = 0;
  for (const c of cases) {
    const script = scriptOf(c.expr);
    const mine = await ours(script);
    const theirs = redisOutcome(await client.call('EVAL', script, '0'));
    // A case that does not compile proves nothing about the libraries.
    assert.ok(!/^Error compiling script/.test(theirs.text),
      `line ${c.line} does not compile: ${theirs.text}`);
    try {
      assert.deepEqual(mine, theirs);
    } catch {
      failures++;
      t.diagnostic(`line ${c.line}: ${c.expr}`);
      t.diagnostic(`  redis: ${theirs.kind} ${theirs.text}`);
      t.diagnostic(`  ours:  ${mine.kind} ${mine.text.slice(0, 2000)}`);
    }
  }
  t.diagnostic(`${cases.length - failures} of ${cases.length} cases match redis-server`);
  assert.equal(failures, 0, `${failures} cases differ from redis-server`);
}

// The libraries as scripts meet them: EVAL on `glasskv server`, its Lua
// built and sandboxed as the engine builds it.
test('every case gives in glasskv server what it gives in redis-server 7.0', async (t) => {
  const glasskv = await startServer('glasskv');
  const ours = new Resp(glasskv.port);
  try {
    await ours.ready();
    await compareAll(t, async (script) => redisOutcome(await ours.call('EVAL', script, '0')));
  } finally {
    ours.close();
    await glasskv.stop();
  }
});

// The harness builds, alone (LUALIBS_HARNESS=1): the libraries on stock
// Lua, under the sanitizers, and as WebAssembly.
for (const [variant, flags] of process.env.LUALIBS_HARNESS === '1' ? variants : []) {
  test(`every case gives what redis-server 7.0 gives (${variant} build)`, async (t) => {
    const command = buildHarness(variant, flags);
    await compareAll(t, async (script) => runHarness(command, script));
  });
}
