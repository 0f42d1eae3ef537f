// MIGRATE between real servers: `glasskv server` and Debian's
// redis-server 7.0 as source and as target, in every pairing. Each
// scenario is run from a redis-server to a redis-server first, and the
// replies and the data left on both sides with glasskv in either place
// must be the same: a key moved with its TTL, COPY, REPLACE and the
// BUSYKEY error the target gives, KEYS with missing keys, AUTH to a
// target with a password, a target that refuses the connection or
// answers too late. What a glasskv source sends its replicas for the
// keys moved is a DEL of those the target took.
//
// Run: node --test tests/server/migrate.test.mjs
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, freePort, raw, sleep, startServer } from './servers.mjs';

// Each server in a directory of its own: a replica's SYNC makes the RDB
// there.
const servers = [];
const dirs = [];
async function start(kind, args = []) {
  const dir = mkdtempSync(join(tmpdir(), `glasskv-migrate-${kind}-`));
  dirs.push(dir);
  const s = await startServer(kind, ['--enable-debug-command', 'yes', '--dir', dir, ...args]);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const run = (s, ...args) => cli(s.port, args).out;

/** Runs scenario(src, dst) for each pairing and checks that what it
 * returns is redis-server -> redis-server's. */
async function sameEverywhere(pairs, scenario) {
  const results = [];
  for (const [src, dst] of pairs) {
    run(src, 'flushall');
    run(dst, 'flushall');
    results.push([`${src.kind} -> ${dst.kind}`, await scenario(src, dst)]);
  }
  const [, expected] = results[0];
  for (const [name, got] of results.slice(1)) assert.deepEqual(got, expected, name);
  return expected;
}

describe('MIGRATE moves keys between glasskv and redis-server as between two redis-servers', () => {
  let g1, g2, r1, r2, pairs;
  before(async () => {
    [g1, g2, r1, r2] = await Promise.all([start('glasskv'), start('glasskv'), start('redis'), start('redis')]);
    pairs = [[r1, r2], [g1, r2], [r1, g1], [g1, g2]];
  });

  it('a key moves with its value and TTL, and leaves the source', async () => {
    const got = await sameEverywhere(pairs, (src, dst) => {
      run(src, 'rpush', 'list', 'a', 'b', 'c');
      run(src, 'hset', 'h', 'f', 'v', 'g', 'w');
      run(src, 'set', 'k', 'v', 'ex', '100');
      const replies = [
        run(src, 'migrate', '127.0.0.1', String(dst.port), 'k', '9', '5000'),
        run(src, 'migrate', '127.0.0.1', String(dst.port), 'list', '9', '5000'),
        run(src, 'migrate', '127.0.0.1', String(dst.port), 'h', '9', '5000'),
      ];
      const ttl = Number(run(dst, '-n', '9', 'ttl', 'k'));
      return {
        replies,
        left: run(src, 'keys', '*'),
        moved: [run(dst, '-n', '9', 'get', 'k'), run(dst, '-n', '9', 'lrange', 'list', '0', '-1'),
          run(dst, '-n', '9', 'hget', 'h', 'g')],
        ttlKept: ttl > 90 && ttl <= 100,
        cached: /migrate_cached_sockets:[1-9]/.test(run(src, 'info', 'stats')),
      };
    });
    assert.deepEqual(got.replies, ['OK\n', 'OK\n', 'OK\n']);
    assert.equal(got.ttlKept, true);
  });

  it('COPY keeps the key, a second copy meets BUSYKEY, REPLACE overwrites', async () => {
    const got = await sameEverywhere(pairs, (src, dst) => {
      run(src, 'rpush', 'list', 'a', 'b');
      const first = run(src, 'migrate', '127.0.0.1', String(dst.port), 'list', '9', '5000', 'copy');
      run(src, 'rpush', 'list', 'c');
      const busy = run(src, 'migrate', '127.0.0.1', String(dst.port), 'list', '9', '5000', 'copy');
      const busyKept = run(dst, '-n', '9', 'lrange', 'list', '0', '-1');
      const replaced = run(src, 'migrate', '127.0.0.1', String(dst.port), 'list', '9', '5000', 'copy', 'replace');
      return { first, busy, busyKept, replaced, src: run(src, 'lrange', 'list', '0', '-1'),
        dst: run(dst, '-n', '9', 'lrange', 'list', '0', '-1') };
    });
    assert.equal(got.busy, 'ERR Target instance replied with error: BUSYKEY Target key name already exists.\n\n');
    assert.equal(got.dst, 'a\nb\nc\n');
  });

  it('KEYS moves the keys that exist, deletes only those the target took, and +NOKEY when none does', async () => {
    const got = await sameEverywhere(pairs, (src, dst) => {
      run(src, 'mset', 'a', '1', 'b', '2', 'c', '3');
      run(dst, '-n', '9', 'set', 'b', 'taken');
      const port = String(dst.port);
      return {
        none: run(src, 'migrate', '127.0.0.1', port, '', '9', '5000', 'keys', 'x', 'y'),
        some: run(src, 'migrate', '127.0.0.1', port, '', '9', '5000', 'keys', 'x', 'a', 'b', 'c'),
        left: run(src, 'mget', 'a', 'b', 'c'),
        there: run(dst, '-n', '9', 'mget', 'a', 'b', 'c'),
      };
    });
    assert.equal(got.none, 'NOKEY\n');
    assert.equal(got.left, '\n2\n\n');
  });

  it('AUTH reaches a target with a password; a wrong one is the target\'s error', async () => {
    const [gp, rp] = await Promise.all([start('glasskv'), start('redis')]);
    for (const s of [gp, rp]) run(s, 'config', 'set', 'requirepass', 'secret');
    const withAuth = (s, ...args) => cli(s.port, ['-a', 'secret', '--no-auth-warning', ...args]).out;
    const results = [];
    for (const [src, dst] of [[r1, rp], [g1, rp], [r1, gp]]) {
      run(src, 'flushall');
      withAuth(dst, 'flushall');
      run(src, 'set', 'k', 'v');
      const port = String(dst.port);
      results.push({
        wrong: run(src, 'migrate', '127.0.0.1', port, 'k', '0', '5000', 'auth', 'nope'),
        right: run(src, 'migrate', '127.0.0.1', port, 'k', '0', '5000', 'auth', 'secret'),
        auth2: (run(src, 'set', 'k2', 'v'),
        run(src, 'migrate', '127.0.0.1', port, 'k2', '0', '5000', 'auth2', 'default', 'secret')),
        there: withAuth(dst, 'mget', 'k', 'k2'),
      });
    }
    assert.equal(results[0].right, 'OK\n');
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[2], results[0]);
  });

  it('a target that refuses the connection is an IOERR, and nothing is deleted', async () => {
    const closed = await freePort();
    const got = await sameEverywhere([[r1, r2], [g1, r2]], (src) => {
      run(src, 'set', 'k', 'v');
      return {
        reply: run(src, 'migrate', '127.0.0.1', String(closed), 'k', '0', '1000'),
        kept: run(src, 'get', 'k'),
        cached: /migrate_cached_sockets:0\r/.test(run(src, 'info', 'stats')),
      };
    });
    assert.equal(got.reply, 'IOERR error or timeout writing to target instance\n\n');
  });

  it('a target slower than the timeout is an IOERR reading, and the key stays', async () => {
    const got = await sameEverywhere([[r1, r2], [g1, r2], [r1, g2]], async (src, dst) => {
      run(src, 'set', 'k', 'v');
      const sleeping = raw(dst.port, 'DEBUG SLEEP 1\r\n', 300);
      await sleep(100);
      const reply = run(src, 'migrate', '127.0.0.1', String(dst.port), 'k', '0', '300');
      await sleeping;
      return { reply, kept: run(src, 'get', 'k') };
    });
    assert.deepEqual(got, { reply: 'IOERR error or timeout reading to target instance\n\n', kept: 'v\n' });
  });

  it('a moved key reaches the replication stream of a glasskv source as a DEL of the keys taken', async () => {
    run(g1, 'flushall');
    run(r2, 'flushall');
    run(g1, 'mset', 'a', '1', 'b', '2', 'c', '3');
    run(r2, 'set', 'b', 'taken');
    let stream = '';
    const sock = createConnection({ host: '127.0.0.1', port: g1.port });
    sock.on('data', (d) => { stream += d.toString('latin1'); });
    await once(sock, 'connect');
    sock.write('SYNC\r\n');
    for (let i = 0; !stream.includes('REDIS'); i++) {
      assert.ok(i < 400, 'no RDB came');
      await sleep(25);
    }
    const reply = run(g1, 'migrate', '127.0.0.1', String(r2.port), '', '0', '5000', 'keys', 'a', 'b', 'c');
    assert.match(reply, /^ERR Target instance replied with error: BUSYKEY/);
    const del = '*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$1\r\nc\r\n';
    for (let i = 0; !stream.includes(del); i++) {
      assert.ok(i < 200, `no DEL a c in the stream: ${JSON.stringify(stream.slice(-200))}`);
      await sleep(25);
    }
    sock.destroy();
    assert.ok(!/migrate/i.test(stream));
    assert.equal(run(g1, 'mget', 'a', 'b', 'c'), '\n2\n\n');
  });
});
