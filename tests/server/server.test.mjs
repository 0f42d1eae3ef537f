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
      const g = await startServer('glasskv', ['--appendonly', 'yes', '--dir', dir]);
      cli(g.port, [], WRITES);
      const expected = dump(g.port);
      const bye = cli(g.port, ['SHUTDOWN']);
      assert.equal(bye.out, '');
      assert.equal(await g.exited, 0);
      assert.match(g.log, /User requested shutdown\.\.\.\n.*Calling fsync\(\) on the AOF file\.\n.*Redis is now ready to exit, bye bye\.\.\./);
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
