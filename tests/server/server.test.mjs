// `glasskv server` on a real TCP port, driven by Debian's redis-cli and
// redis-benchmark and by raw sockets, next to Debian's redis-server 7.0
// started the same way: what redis-cli prints and the bytes a raw socket
// gets back must be the same from both. Then persistence: the AOF
// directory glasskv writes (and flushes on SHUTDOWN or SIGTERM) must be
// valid for redis-check-aof and load in redis-server, and one written by
// redis-server must load in glasskv.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  REDIS_BENCHMARK, REDIS_CHECK_AOF, cli, glasskvBin, raw, sleep, startServer,
} from './servers.mjs';

const tmp = (name) => mkdtempSync(join(tmpdir(), `glasskv-${name}-`));

/** Both servers, started with the same arguments. */
async function pair(args = []) {
  const [g, r] = await Promise.all([
    startServer('glasskv', args), startServer('redis', args)]);
  return { g, r };
}

/** Polls fn until it returns true, up to ms. */
async function until(fn, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const SCRIPT = `PING
SET greeting hello
GET greeting
INCR counter
INCRBY counter 41
MULTI
SET a 1
INCR a
GET a
EXEC
MULTI
INCR a
SET
EXEC
MSET k1 v1 k2 v2 k3 v3
MGET k1 k2 nosuch
HSET h f1 v1 f2 v2
HGET h f2
SADD s x y z
SCARD s
ZADD z 1 one 2 two
ZRANGE z 0 -1 WITHSCORES
DEL k1
EXISTS k1 k2
TYPE h
SET n 10 EX 100
TTL n
NOSUCHCOMMAND a b
GET
DEBUG PROTOCOL string
DBSIZE
`;

describe('glasskv server answers real clients as redis-server 7.0 does', () => {
  let g, r;
  before(async () => {
    assert.ok(existsSync(glasskvBin), `${glasskvBin} is not built (make -C engine)`);
    ({ g, r } = await pair());
  });
  after(async () => {
    await Promise.all([g?.stop(), r?.stop()]);
  });

  it('redis-cli prints the same replies for strings, counters, hashes, sets, sorted sets, MULTI/EXEC and errors (DEBUG refused by default)', () => {
    const mine = cli(g.port, ['--no-raw'], SCRIPT);
    const theirs = cli(r.port, ['--no-raw'], SCRIPT);
    assert.equal(mine.out, theirs.out);
    assert.match(mine.out, /QUEUED/);
  });

  it('a SCAN iteration returns every key, with and without MATCH, however small COUNT is', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `SET key:${i} ${i}`).join('\n');
    for (const s of [g, r]) cli(s.port, [], `${keys}\n`);
    // SCAN by hand, cursor after cursor, with COUNT 3.
    const scanBy3 = (s) => {
      const found = new Set();
      let cursor = '0';
      let calls = 0;
      do {
        const [next, ...batch] = cli(s.port, ['SCAN', cursor, 'COUNT', '3']).out.split('\n');
        cursor = next;
        for (const k of batch) if (k) found.add(k);
        calls++;
      } while (cursor !== '0' && calls < 1000);
      return [...found].sort();
    };
    const byCli = (s, extra) => cli(s.port, ['--scan', ...extra]).out.split('\n').filter(Boolean).sort();
    const mine = byCli(g, []);
    assert.equal(mine.length, Number(cli(g.port, ['DBSIZE']).out));
    assert.ok(mine.length >= 300);
    assert.deepEqual(mine, byCli(r, []));
    assert.deepEqual(scanBy3(g), mine);
    const matched = byCli(g, ['--pattern', 'key:1*']);
    assert.deepEqual(matched, byCli(r, ['--pattern', 'key:1*']));
    assert.equal(matched.length, 111);
  });

  it('a pipeline of 5,000 commands through redis-cli --pipe gets every reply', () => {
    let input = '';
    for (let i = 0; i < 5000; i++) {
      const k = `pipe:${i}`;
      input += `*3\r\n$3\r\nSET\r\n$${k.length}\r\n${k}\r\n$${String(i).length}\r\n${i}\r\n`;
    }
    const mine = cli(g.port, ['--pipe'], input);
    assert.equal(mine.out, cli(r.port, ['--pipe'], input).out);
    assert.match(mine.out, /errors: 0, replies: 5000/);
    assert.equal(cli(g.port, ['GET', 'pipe:4999']).out, '4999\n');
  });

  it('protocol errors get the same reply and the same closed connection', async () => {
    const cases = [
      '*1\r\n$4\r\nPING\r\n*x\r\n',
      '*2\r\n$3\r\nGET\r\nfoo\r\n',
      '*1\r\n$-5\r\n',
      'SET "unbalanced\r\n',
      `*1\r\n$${'9'.repeat(20)}\r\n`,
      `${'x'.repeat(70000)}`,
      'PING\r\n$3\r\n',
      '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*1\r\n$4\r\nPI',
    ];
    for (const bytes of cases) {
      const [mine, theirs] = await Promise.all([raw(g.port, bytes), raw(r.port, bytes)]);
      const what = JSON.stringify(bytes.slice(0, 40));
      assert.equal(mine.data.toString('latin1'), theirs.data.toString('latin1'), what);
      assert.equal(mine.closed, theirs.closed, `${what}: closed`);
    }
  });

  it('HELLO switches a connection to RESP3 and back: maps, sets, doubles, nulls, booleans, verbatim text, the same bytes', async () => {
    const lines = [
      'HELLO 3', 'HSET h3 a 1', 'HGETALL h3', 'HGETALL nosuch', 'GET nosuch', 'HGET h3 nosuch',
      'ZADD z3 1.5 m', 'ZSCORE z3 m', 'ZINCRBY z3 -3 m', 'ZSCORE z3 nosuch', 'LPOP nosuch 2',
      'LMPOP 1 nosuch LEFT', 'CONFIG GET maxmemory', 'EXISTS h3',
      ...['string', 'integer', 'double', 'bignum', 'null', 'array', 'set', 'map', 'attrib',
        'push', 'verbatim', 'true', 'false', 'nosuch'].map((t) => `DEBUG PROTOCOL ${t}`),
      'MULTI', 'GET nosuch', 'EXEC', 'HELLO 2', 'HGETALL h3', 'GET nosuch', 'ZSCORE z3 m',
      'DEBUG PROTOCOL push', 'DEBUG PROTOCOL map', 'HELLO 4', 'HELLO 1', 'HELLO x',
      'HELLO 3 AUTH nobody pw', 'HELLO 2 SETNAME', 'HELLO 2 SETNAME "a b"', 'HELLO 2 FOO',
      'HELLO 2 AUTH default anything SETNAME me', 'CLIENT GETNAME',
    ];
    const bytes = lines.map((l) => `${l}\r\n`).join('');
    const both = await pair(['--enable-debug-command', 'yes']);
    let mine, theirs;
    try {
      [mine, theirs] = await Promise.all([raw(both.g.port, bytes), raw(both.r.port, bytes)]);
    } finally {
      await Promise.all([both.g.stop(), both.r.stop()]);
    }
    // Client ids differ between the two servers; nothing else may.
    const norm = (b) => b.toString('latin1').replace(/(\$2\r\nid\r\n:)\d+/g, '$1N');
    assert.equal(norm(mine.data), norm(theirs.data));
    assert.match(norm(mine.data), /^%7\r\n/);
    assert.match(norm(mine.data), /\r\n,1\.5\r\n/);
  });

  it('MODULE, allowed by enable-module-command, fails to load and unload as a redis-server without modules does', async () => {
    const lines = ['CONFIG GET enable-module-command', 'MODULE LIST', 'MODULE LOAD /nonexistent/m.so',
      'MODULE LOADEX /nonexistent/m.so CONFIG a b ARGS c', 'MODULE UNLOAD m', 'MODULE LIST'];
    const bytes = lines.map((l) => `${l}\r\n`).join('');
    const both = await pair(['--enable-module-command', 'yes']);
    let mine, theirs;
    try {
      [mine, theirs] = await Promise.all([raw(both.g.port, bytes), raw(both.r.port, bytes)]);
    } finally {
      await Promise.all([both.g.stop(), both.r.stop()]);
    }
    assert.equal(mine.data.toString('latin1'), theirs.data.toString('latin1'));
    assert.match(theirs.data.toString('latin1'), /-ERR Error loading the extension/);
  });

  it('a replica that sends SYNC gets an RDB, then the same stream of writes as from redis-server, and INFO replication counts it', async () => {
    const { createConnection } = await import('node:net');
    /** Attaches as Redis's test suite does, runs the writes, returns the stream after the RDB. */
    const stream = async (port) => {
      cli(port, ['CONFIG', 'SET', 'repl-ping-replica-period', '3600']);
      const sock = createConnection({ host: '127.0.0.1', port });
      const chunks = [];
      sock.on('data', (d) => chunks.push(d));
      await new Promise((res) => sock.once('connect', res));
      sock.write('SYNC\r\n');
      // The RDB comes first, as "$<len>\r\n" and the bytes (newlines may come before).
      let rdbEnd = -1;
      assert.ok(await until(() => {
        const all = Buffer.concat(chunks).toString('latin1');
        const m = /^\n*\$(\d+)\r\n/.exec(all);
        if (m && all.length >= m[0].length + Number(m[1])) rdbEnd = m[0].length + Number(m[1]);
        return rdbEnd >= 0;
      }), 'no RDB after SYNC');
      const info = cli(port, ['INFO', 'replication']).out;
      cli(port, [], 'SET a 1\nSELECT 3\nSET b 2 EX 100\nMULTI\nINCR c\nINCR c\nEXEC\nEXPIRE nokey 10\nSELECT 0\nDEL a\nFLUSHALL\n');
      await sleep(200);
      sock.destroy();
      return { info, writes: Buffer.concat(chunks).toString('latin1').slice(rdbEnd) };
    };
    // redis-server writes the RDB for SYNC to its directory.
    const dir = tmp('sync');
    const both = await pair(['--dir', dir]);
    let mine, theirs, offsets;
    try {
      [mine, theirs] = [await stream(both.g.port), await stream(both.r.port)];
      offsets = [both.g, both.r].map((s) => /master_repl_offset:(\d+)/.exec(cli(s.port, ['INFO', 'replication']).out)[1]);
    } finally {
      await Promise.all([both.g.stop(), both.r.stop()]);
      rmSync(dir, { recursive: true, force: true });
    }
    const ms = (s) => s.replace(/(PXAT\r\n\$13\r\n)\d+/g, '$1T');
    assert.equal(ms(mine.writes), ms(theirs.writes));
    assert.match(mine.writes, /^\*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n\*3\r\n\$3\r\nSET\r\n/);
    assert.match(mine.info, /connected_slaves:1\r\nslave0:ip=127\.0\.0\.1,port=0,state=online,offset=0,lag=\d+\r\n/);
    assert.equal(offsets[0], offsets[1]);
  });

  it('10,000 connections at once: each gets its PONG, the next one is refused as redis-server refuses it', async () => {
    const { createConnection } = await import('node:net');
    const s = await startServer('glasskv', []);
    const socks = [];
    try {
      // maxclients is 10000: 9,999 held connections and the one redis-cli
      // opens for INFO fill the server; then one more is held, and the
      // next is refused.
      const open = () => new Promise((res, rej) => {
        const c = createConnection({ host: '127.0.0.1', port: s.port });
        c.once('error', rej);
        c.once('connect', () => {
          c.once('data', (d) => res([c, d.toString()]));
          c.write('PING\r\n');
        });
      });
      for (let batch = 0; batch < 9999; batch += 500) {
        const got = await Promise.all(Array.from({ length: Math.min(500, 9999 - batch) }, open));
        for (const [c, reply] of got) {
          socks.push(c);
          assert.equal(reply, '+PONG\r\n');
        }
      }
      assert.equal(socks.length, 9999);
      assert.match(cli(s.port, ['INFO', 'clients']).out, /connected_clients:10000\r?\n/);
      // The INFO connection is gone once the server noticed; then the
      // 10,000th held connection gets in.
      let last;
      for (let tries = 0; tries < 100; tries++) {
        last = await open();
        if (last[1] === '+PONG\r\n') break;
        last[0].destroy();
        await sleep(20);
      }
      socks.push(last[0]);
      assert.equal(last[1], '+PONG\r\n');
      const [, refused] = await open();
      assert.equal(refused, '-ERR max number of clients reached\r\n');
      for (const c of socks) c.destroy();
      assert.ok(await until(() => /connected_clients:1\r?\n/.test(cli(s.port, ['INFO', 'clients']).out), 10000),
        'the 9,999 connections were not all freed');
    } finally {
      for (const c of socks) c.destroy();
      await s.stop();
    }
  });

  it('a value of 512 MB is stored and read back whole; one byte more is a protocol error', async () => {
    const { createConnection } = await import('node:net');
    const s = await startServer('glasskv', []);
    try {
      const size = 512 * 1024 * 1024;
      /** What the server answers to head (and body), then QUIT, as bytes. */
      const reply = (head, body) => new Promise((res) => {
        const c = createConnection({ host: '127.0.0.1', port: s.port });
        const chunks = [];
        c.on('data', (d) => chunks.push(d));
        // A server that closes after a protocol error may meet the QUIT
        // still on its way and answer it with a reset: the connection
        // ends there, with what was read before it (checked below).
        c.on('error', (e) => { if (e.code !== 'ECONNRESET') throw e; });
        c.once('close', () => res(Buffer.concat(chunks)));
        c.once('connect', () => {
          c.write(head);
          if (body) c.write(body);
          // QUIT closes the connection once every reply is out; a client
          // that shut its side down instead would be freed at once.
          c.write('*1\r\n$4\r\nQUIT\r\n');
        });
      });
      const body = Buffer.alloc(size + 2, 'x');
      body.write('\r\n', size, 'latin1');
      const set = await reply(`*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$${size}\r\n`, body);
      assert.equal(set.toString(), '+OK\r\n+OK\r\n');
      assert.equal(cli(s.port, ['STRLEN', 'big']).out, `${size}\n`);
      const got = await reply('*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n');
      const head = `$${size}\r\n`;
      assert.equal(got.length, head.length + size + 2 + '+OK\r\n'.length);
      assert.equal(got.subarray(0, head.length).toString(), head);
      assert.equal(got.indexOf('\r\n+OK\r\n', head.length), head.length + size);
      const over = await reply(`*3\r\n$3\r\nSET\r\n$4\r\nbig2\r\n$${size + 1}\r\n`);
      assert.equal(over.toString(), '-ERR Protocol error: invalid bulk length\r\n');
      assert.equal(cli(s.port, ['EXISTS', 'big2']).out, '0\n');
    } finally {
      await s.stop();
    }
  });

  it('client-output-buffer-limit: set and read as redis-server does, and a reply past the hard limit closes the client', async () => {
    const script = [
      'CONFIG GET client-output-buffer-limit',
      'CONFIG SET client-output-buffer-limit "normal 100kb 50kb 10 pubsub 1mb 0 0"',
      'CONFIG GET client-output-buffer-limit',
      'CONFIG SET client-output-buffer-limit "normal 1 2"',
      'CONFIG SET client-output-buffer-limit "master 1 2 3"',
      'CONFIG SET client-output-buffer-limit "normal 1x 2 3"',
      'CONFIG SET client-output-buffer-limit "normal 1 2 -3"',
      'CONFIG SET client-output-buffer-limit "replica 1gb 1gb 0"',
      'CONFIG GET client-output-buffer-limit',
    ].join('\n');
    const both = await pair();
    try {
      const [mine, theirs] = [cli(both.g.port, ['--no-raw'], script), cli(both.r.port, ['--no-raw'], script)];
      assert.equal(mine.out, theirs.out);
      assert.match(mine.out, /normal 102400 51200 10 slave 1073741824 1073741824 0 pubsub 1048576 0 0/);
      for (const s of [both.g, both.r]) {
        cli(s.port, ['CONFIG', 'SET', 'client-output-buffer-limit', 'normal 100kb 0 0']);
        cli(s.port, ['-x', 'SET', 'big'], 'x'.repeat(200 * 1024));
      }
      const [g, r] = await Promise.all([both.g, both.r].map((s) => raw(s.port, '*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n')));
      assert.equal(g.data.length, r.data.length);
      assert.equal(g.closed, true);
      assert.equal(r.closed, true);
      // A reply under the limit still goes out whole.
      const small = await raw(both.g.port, '*2\r\n$6\r\nSTRLEN\r\n$3\r\nbig\r\n');
      assert.equal(small.data.toString(), `:${200 * 1024}\r\n`);
      assert.match(both.g.log, /scheduled to be closed ASAP for overcoming of output buffer limits/);
    } finally {
      await Promise.all([both.g.stop(), both.r.stop()]);
    }
  });

  it('a client that vanishes in the middle of a command is freed', async () => {
    const clients = () => Number(/connected_clients:(\d+)/.exec(cli(g.port, ['INFO', 'clients']).out)[1]);
    const before = clients();
    const { createConnection } = await import('node:net');
    const socks = Array.from({ length: 5 }, () => createConnection({ host: '127.0.0.1', port: g.port }));
    await Promise.all(socks.map((s) => new Promise((res) => s.once('connect', res))));
    for (const s of socks) s.write('*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$100\r\nonly some');
    assert.ok(await until(() => clients() === before + 5), 'the five are connected');
    for (const s of socks) s.destroy();
    assert.ok(await until(() => clients() === before), `still ${clients()} clients`);
    assert.equal(cli(g.port, ['EXISTS', 'half']).out, '0\n');
  });

  it('redis-benchmark runs SET and GET from 50 clients, without and with a pipeline of 16', () => {
    const rates = {};
    for (const s of [g, r]) {
      for (const pipeline of ['1', '16']) {
        const b = spawnSync(REDIS_BENCHMARK, ['-p', String(s.port), '-q', '-n', '2000',
          '-c', '50', '-t', 'get,set', '-P', pipeline], { timeout: 30000 });
        assert.equal(b.status, 0, b.stderr.toString());
        const out = b.stdout.toString();
        assert.doesNotMatch(b.stderr.toString(), /Could not fetch server CONFIG/);
        for (const t of ['SET', 'GET']) {
          const m = new RegExp(`${t}: ([0-9.]+) requests per second`).exec(out);
          assert.ok(m, `${s.kind} -P ${pipeline}: no ${t} figure in ${out}`);
          rates[`${s.kind} ${t} -P ${pipeline}`] = Number(m[1]);
        }
      }
    }
    console.log('redis-benchmark -n 2000 -c 50 (requests per second):', rates);
    assert.equal(cli(g.port, ['STRLEN', 'key:__rand_int__']).out, '3\n');
  });
});

describe('glasskv server refuses what redis-server refuses', () => {
  it('maxclients: the next connection gets "max number of clients reached" and is closed', async () => {
    const g = await startServer('glasskv', ['--maxclients', '2']);
    const { createConnection } = await import('node:net');
    // A connection that answered PING is a client. The one that polled the
    // server at its start may not be freed yet: then a try is refused, and
    // tried again.
    const client = async () => {
      for (let tries = 0; tries < 100; tries++) {
        const s = createConnection({ port: g.port, host: '127.0.0.1' });
        const reply = await new Promise((res) => {
          s.once('data', (d) => res(d.toString()));
          s.write('PING\r\n');
        });
        if (reply === '+PONG\r\n') return s;
        s.destroy();
        await sleep(20);
      }
      throw new Error('no connection became a client');
    };
    try {
      const held = [await client(), await client()];
      const third = await raw(g.port, 'PING\r\n');
      assert.equal(third.data.toString(), '-ERR max number of clients reached\r\n');
      assert.equal(third.closed, true);
      for (const s of held) s.destroy();
      await sleep(50);
      assert.match(cli(g.port, ['INFO', 'stats']).out, /rejected_connections:[1-9]/);
    } finally {
      await g.stop();
    }
  });

  it('unknown options and bad values stop it with redis-server\'s fatal config error', () => {
    for (const args of [['--foo', 'bar'], ['--appendonly', 'maybe'], ['--port', 'abc'],
      ['--appendfsync', 'sometimes'], ['--maxclients', '0']]) {
      const mine = spawnSync(glasskvBin, ['server', '--port', '1', ...args]);
      const theirs = spawnSync('/usr/bin/redis-server', ['--port', '1', ...args]);
      assert.equal(mine.status, 1, args.join(' '));
      assert.equal(mine.stderr.toString(), theirs.stderr.toString());
    }
  });
});

/** Every key of db 0 with its type and value, as text. */
function dump(port) {
  const keys = cli(port, ['--no-raw', 'KEYS', '*']).out.split('\n').filter(Boolean)
    .map((l) => JSON.parse(l.replace(/^\d+\) /, ''))).sort();
  return keys.map((k) => {
    const type = cli(port, ['TYPE', k]).out.trim();
    const read = { string: ['GET', k], hash: ['HGETALL', k], set: ['SMEMBERS', k],
      zset: ['ZRANGE', k, '0', '-1', 'WITHSCORES'] }[type];
    const value = cli(port, read).out.split('\n').filter(Boolean);
    if (type === 'set') value.sort();
    if (type === 'hash') {
      const pairs = [];
      for (let i = 0; i < value.length; i += 2) pairs.push(`${value[i]}=${value[i + 1]}`);
      value.splice(0, value.length, ...pairs.sort());
    }
    const ttl = Number(cli(port, ['TTL', k]).out) > 0 ? ' (ttl)' : '';
    return `${k} ${type}${ttl}: ${value.join(' ')}`;
  }).join('\n');
}

const WRITES = `SET s1 hello
SET s2 world EX 1000
INCR n
INCRBYFLOAT f 1.5
APPEND s1 !
HSET h a 1 b 2
SADD set x y z 1
SREM set y
ZADD z 1 one 2.5 two
EXPIRE h 5000
DEL nothing
`;

describe('the AOF of glasskv server and of redis-server 7.0 load in each other', () => {
  it('SHUTDOWN flushes and fsyncs the AOF; redis-check-aof accepts it and redis-server loads the same keys', async () => {
    const dir = tmp('aof');
    try {
      // Redis's default save points, so that SHUTDOWN also saves.
      const g = await startServer('glasskv', ['--appendonly', 'yes', '--dir', dir,
        '--save', '3600 1 300 100 60 10000']);
      cli(g.port, [], WRITES);
      const expected = dump(g.port);
      const bye = cli(g.port, ['SHUTDOWN']);
      assert.equal(bye.out, '');
      assert.equal(await g.exited, 0);
      // As redis-server 7.0 with its default save points: the AOF is
      // fsynced, then the final RDB snapshot is written.
      assert.match(g.log, /User requested shutdown\.\.\.\n.*Calling fsync\(\) on the AOF file\.\n.*Saving the final RDB snapshot before exiting\.\n.*DB saved on disk\n.*Redis is now ready to exit, bye bye\.\.\./);
      const check = spawnSync(REDIS_CHECK_AOF, [join(dir, 'appendonlydir', 'appendonly.aof.manifest')]);
      assert.match(check.stdout.toString(), /is valid/);
      const r = await startServer('redis', ['--appendonly', 'yes', '--dir', dir]);
      try {
        assert.equal(dump(r.port), expected);
        assert.match(r.log, /DB loaded from append only file/);
      } finally {
        await r.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SIGTERM to `npm run glasskv -- server` shuts it down cleanly, and the directory redis-server wrote loads in glasskv', async () => {
    const dir = tmp('aof2');
    try {
      const r = await startServer('redis', ['--appendonly', 'yes', '--dir', dir]);
      cli(r.port, [], WRITES);
      const expected = dump(r.port);
      await r.stop();
      const g = await startServer('glasskv', ['--appendonly', 'yes', '--dir', dir], { script: true });
      assert.equal(dump(g.port), expected);
      cli(g.port, ['SET', 'after', 'restart']);
      assert.equal(await g.stop('SIGTERM'), 0);
      assert.match(g.log, /signal-handler \(\d+\) Received SIGTERM scheduling shutdown\.\.\./);
      assert.match(g.log, /Calling fsync\(\) on the AOF file\./);
      const again = await startServer('redis', ['--appendonly', 'yes', '--dir', dir]);
      try {
        assert.equal(cli(again.port, ['GET', 'after']).out, 'restart\n');
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A command as a RESP array; arguments may be Buffers. */
function resp(...args) {
  const parts = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** DUMP key over a raw socket: the payload's bytes (null for a nil). */
async function dumpBytes(port, key) {
  const { data } = await raw(port, resp('DUMP', key), 100);
  const m = /^\$(-?\d+)\r\n/.exec(data.toString('latin1'));
  assert.ok(m, `DUMP ${key}: ${data.toString('latin1')}`);
  return Number(m[1]) < 0 ? null : data.subarray(m[0].length, m[0].length + Number(m[1]));
}

/** RESTORE key 0 payload over a raw socket: the reply as text. */
async function restoreBytes(port, key, payload) {
  const { data } = await raw(port, resp('RESTORE', key, 0, payload), 100);
  return data.toString('latin1');
}

const DUMPED = `SET str hello
SET int 123456
SET long ${'abc'.repeat(40)}
RPUSH list a b c 1 2 3
RPUSH biglist ${Array.from({ length: 300 }, (_, i) => `element:${i}`).join(' ')}
SADD intset 1 2 3 -70000 5000000000
HSET hash f v n 1 big 9223372036854775807
ZADD zset 1 a 2.5 b -inf c inf d
ZADD skiplist ${Array.from({ length: 200 }, (_, i) => `${i / 4} m${i}`).join(' ')}
SADD strset a b c d
HSET bighash ${Array.from({ length: 600 }, (_, i) => `f${i} v${i}`).join(' ')}
`;

describe('the RDB file: SAVE, and the load at startup', () => {
  it('SAVE writes dump.rdb, which each server loads at startup from the other, with the same INFO persistence', async () => {
    const dirs = { glasskv: tmp('rdb-g'), redis: tmp('rdb-r') };
    try {
      const wrote = {};
      for (const kind of ['glasskv', 'redis']) {
        const s = await startServer(kind, ['--dir', dirs[kind]]);
        try {
          cli(s.port, [], WRITES);
          const before = cli(s.port, ['INFO', 'persistence']).out;
          assert.match(before, /rdb_changes_since_last_save:[1-9]/);
          assert.equal(cli(s.port, ['SAVE']).out, 'OK\n');
          const after = cli(s.port, ['INFO', 'persistence']).out;
          assert.match(after, /rdb_changes_since_last_save:0\r/);
          assert.match(after, /rdb_saves:1\r/);
          assert.match(cli(s.port, ['LASTSAVE']).out, /^\d{10}\n$/);
          wrote[kind] = dump(s.port);
        } finally {
          await s.stop();
        }
      }
      assert.deepEqual(wrote.glasskv, wrote.redis);
      // Each starts in the other's directory and loads its dump.rdb.
      for (const [kind, dir] of [['glasskv', dirs.redis], ['redis', dirs.glasskv]]) {
        const s = await startServer(kind, ['--dir', dir]);
        try {
          assert.deepEqual(dump(s.port), wrote.redis, kind);
          const info = cli(s.port, ['INFO', 'persistence']).out;
          assert.match(info, /rdb_last_load_keys_loaded:[1-9]/, kind);
          assert.match(info, /rdb_changes_since_last_save:0\r/, kind);
        } finally {
          await s.stop();
        }
      }
    } finally {
      for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('DUMP and RESTORE carry values between glasskv server and redis-server 7.0', () => {
  it('each encoding DUMPs to the same bytes on both, and a payload of either RESTOREs in the other and DUMPs back unchanged', async () => {
    const { g, r } = await pair();
    try {
      cli(g.port, [], DUMPED);
      cli(r.port, [], DUMPED);
      for (const key of ['str', 'int', 'long', 'list', 'biglist', 'intset', 'hash', 'zset', 'skiplist']) {
        const mine = await dumpBytes(g.port, key);
        const theirs = await dumpBytes(r.port, key);
        assert.deepEqual(mine, theirs, `DUMP ${key}`);
        assert.equal(await restoreBytes(g.port, `${key}:from-redis`, theirs), '+OK\r\n');
        assert.equal(await restoreBytes(r.port, `${key}:from-glasskv`, mine), '+OK\r\n');
        assert.deepEqual(await dumpBytes(g.port, `${key}:from-redis`), theirs, `${key} restored in glasskv`);
        assert.deepEqual(await dumpBytes(r.port, `${key}:from-glasskv`), mine, `${key} restored in redis-server`);
      }
      // Hashtables come out in each server's own hash order: compared by content.
      const sorted = (port, cmd) => cli(port, cmd).out.split('\n').sort().join('\n');
      for (const [key, read] of [['strset', ['SMEMBERS']], ['bighash', ['HGETALL']]]) {
        assert.equal(await restoreBytes(g.port, `${key}:from-redis`, await dumpBytes(r.port, key)), '+OK\r\n');
        assert.equal(await restoreBytes(r.port, `${key}:from-glasskv`, await dumpBytes(g.port, key)), '+OK\r\n');
        const want = sorted(r.port, [...read, key]);
        assert.equal(sorted(g.port, [...read, `${key}:from-redis`]), want);
        assert.equal(sorted(r.port, [...read, `${key}:from-glasskv`]), want);
        assert.equal(cli(g.port, ['OBJECT', 'ENCODING', `${key}:from-redis`]).out, 'hashtable\n');
      }
      assert.equal(await dumpBytes(g.port, 'nosuchkey'), null);
      const busy = await restoreBytes(g.port, 'str', await dumpBytes(r.port, 'str'));
      assert.equal(busy, await restoreBytes(r.port, 'str', await dumpBytes(r.port, 'str')));
      assert.equal(busy, '-BUSYKEY Target key name already exists.\r\n');
    } finally {
      await Promise.all([g.stop(), r.stop()]);
    }
  });
});

describe('DEBUG LOADAOF', () => {
  it('reloads the AOF, RESTOREs and their absolute ttls included, to the same dataset as redis-server; with no AOF on disk both servers exit', async () => {
    const dirs = [tmp('loadaof-g'), tmp('loadaof-r')];
    const args = (d) => ['--appendonly', 'yes', '--enable-debug-command', 'yes', '--dir', d];
    const [g, r] = await Promise.all([startServer('glasskv', args(dirs[0])), startServer('redis', args(dirs[1]))]);
    try {
      for (const s of [g, r]) {
        cli(s.port, [], WRITES);
        const payload = await dumpBytes(s.port, 'z');
        assert.equal(await restoreBytes(s.port, 'z2', payload), '+OK\r\n');
        const { data } = await raw(s.port, resp('RESTORE', 'z3', 100000, payload), 100);
        assert.equal(data.toString(), '+OK\r\n');
      }
      const before = [cli(g.port, ['PEXPIRETIME', 'z3']).out, dump(g.port)];
      assert.equal(dump(g.port), dump(r.port));
      for (const s of [g, r]) assert.equal(cli(s.port, ['DEBUG', 'LOADAOF']).out, 'OK\n');
      assert.deepEqual([cli(g.port, ['PEXPIRETIME', 'z3']).out, dump(g.port)], before);
      assert.equal(dump(g.port), dump(r.port));
      assert.ok(await until(() => /Append Only File loaded by DEBUG LOADAOF/.test(g.log)), g.log);
    } finally {
      await Promise.all([g.stop(), r.stop()]);
    }
    const off = (d) => ['--enable-debug-command', 'yes', '--dir', d];
    const empty = [tmp('noaof-g'), tmp('noaof-r')];
    dirs.push(...empty);
    try {
      const both = await Promise.all([startServer('glasskv', off(empty[0])), startServer('redis', off(empty[1]))]);
      for (const s of both) {
        cli(s.port, ['DEBUG', 'LOADAOF']);
        assert.equal(await s.exited, 1, `${s.kind} exits`);
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
