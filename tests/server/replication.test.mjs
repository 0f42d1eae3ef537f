// Replication on real sockets: `glasskv server` as a replica of Debian's
// redis-server 7.0, next to a redis-server replica of the same master;
// redis-server as a replica of glasskv, directly and through a glasskv
// replica in between; a broken link continued from the backlog; REPLICAOF
// NO ONE; a master that cannot be reached.
// What the two replicas hold (DEBUG DIGEST), say (ROLE, INFO replication)
// and refuse (READONLY, MASTERDOWN) must be the same.
//
// Run: node --test tests/server/replication.test.mjs
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  caughtUp, cli, logged, raw, replInfo, sleep, startServer,
} from './servers.mjs';

const DEBUG = ['--enable-debug-command', 'yes'];
// The master sends the RDB at once rather than after diskless sync's 5 s.
const FAST_SYNC = ['--repl-diskless-sync-delay', '0'];

// Each server in a directory of its own: a replica writes the RDB it
// receives there (dump.rdb), and a redis-server loads one it finds.
const servers = [];
const dirs = [];
async function start(kind, args = []) {
  const dir = mkdtempSync(join(tmpdir(), `glasskv-repl-${kind}-`));
  dirs.push(dir);
  const s = await startServer(kind, [...DEBUG, '--dir', dir, ...args]);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const run = (s, ...args) => cli(s.port, args).out;

const digest = (s) => run(s, 'debug', 'digest').trim();

// Writes of several types and dbs, a transaction and expiries.
function write(master, round) {
  const k = (name) => `${name}:${round}`;
  run(master, 'mset', k('a'), '1', k('b'), 'two');
  run(master, 'rpush', k('list'), 'x', 'y', 'z');
  run(master, 'hset', k('hash'), 'f', 'v', 'g', 'w');
  run(master, 'zadd', k('zset'), '1', 'one', '2.5', 'two');
  run(master, 'sadd', k('set'), '1', '2', '3', 'four');
  run(master, 'set', k('ttl'), 'v', 'ex', '1000');
  run(master, 'incrbyfloat', k('a'), '1.5');
  run(master, '-n', '3', 'set', k('db3'), 'in db 3');
  cli(master.port, [], `MULTI\nINCR ${k('counter')}\nLPUSH ${k('list')} w\nEXEC\n`);
  run(master, 'del', k('b'));
}

describe('replication between glasskv and redis-server', () => {
  it('glasskv replicates a redis-server master as a redis-server replica does', async () => {
    const m = await start('redis', FAST_SYNC);
    write(m, 1);
    const g = await start('glasskv');
    const r = await start('redis');
    for (const s of [g, r]) assert.equal(run(s, 'replicaof', '127.0.0.1', String(m.port)), 'OK\n');
    await caughtUp(m, [g, r]);
    write(m, 2);
    await caughtUp(m, [g, r]);
    assert.equal(digest(g), digest(m));
    assert.equal(digest(r), digest(m));
    // What each replica says and refuses.
    assert.equal(run(g, 'role'), run(r, 'role'));
    assert.equal(run(g, 'set', 'k', 'v'), run(r, 'set', 'k', 'v'));
    assert.match(run(g, 'set', 'k', 'v'), /^READONLY You can't write against a read only replica/);
    assert.equal(run(g, 'replicaof', '127.0.0.1', String(m.port)),
      run(r, 'replicaof', '127.0.0.1', String(m.port)));
    const gi = replInfo(g);
    const ri = replInfo(r);
    assert.deepEqual(Object.keys(gi), Object.keys(ri));
    for (const f of ['role', 'master_host', 'master_port', 'master_link_status',
      'master_sync_in_progress', 'slave_repl_offset', 'slave_read_repl_offset',
      'master_replid', 'master_repl_offset', 'slave_read_only', 'connected_slaves'])
      assert.equal(gi[f], ri[f], f);
    // The master sees two replicas acknowledging the same offset.
    const mi = replInfo(m);
    assert.equal(mi.connected_slaves, '2');
    await sleep(1200);
    const acks = Object.entries(replInfo(m)).filter(([f]) => /^slave\d/.test(f))
      .map(([, v]) => /offset=(\d+)/.exec(v)[1]);
    assert.deepEqual(acks, [mi.master_repl_offset, mi.master_repl_offset]);
    assert.match(g.log, /MASTER <-> REPLICA sync: Finished with success/);
  });

  it('redis-server replicates a glasskv master, directly and through a glasskv replica', async () => {
    const m = await start('glasskv');
    write(m, 1);
    const mid = await start('glasskv');
    assert.equal(run(mid, 'replicaof', '127.0.0.1', String(m.port)), 'OK\n');
    const direct = await start('redis');
    const chained = await start('redis');
    assert.equal(run(direct, 'replicaof', '127.0.0.1', String(m.port)), 'OK\n');
    await caughtUp(m, [mid, direct]);
    assert.equal(run(chained, 'replicaof', '127.0.0.1', String(mid.port)), 'OK\n');
    write(m, 2);
    await caughtUp(m, [mid, direct]);
    await caughtUp(mid, [chained]);
    const want = digest(m);
    for (const s of [mid, direct, chained]) assert.equal(digest(s), want, s.kind);
    // The chain carries the top master's history: same replid and offsets.
    const top = replInfo(m);
    assert.equal(replInfo(chained).master_replid, top.master_replid);
    assert.equal(replInfo(chained).slave_repl_offset, top.master_repl_offset);
  });

  it('WAIT counts the replicas that acknowledged the connection\'s writes, on glasskv as on redis-server', async () => {
    // Each kind of master with one replica of each kind; one connection
    // writes, then waits for both replicas (they acknowledge at once when
    // asked), then for three (it times out with the two it has).
    const said = {};
    for (const kind of ['glasskv', 'redis']) {
      const m = await start(kind, kind === 'redis' ? FAST_SYNC : []);
      const replicas = [await start('glasskv'), await start('redis')];
      for (const r of replicas) assert.equal(run(r, 'replicaof', '127.0.0.1', String(m.port)), 'OK\n');
      await caughtUp(m, replicas);
      const t0 = Date.now();
      said[kind] = cli(m.port, [], 'SET k v\nWAIT 2 5000\nWAIT 3 300\nWAIT 0 0\n').out;
      const took = Date.now() - t0;
      assert.ok(took >= 300 && took < 4000, `${kind}: ${took} ms`);
      assert.match(run(replicas[0], 'info', 'replication'), /role:slave/);
      assert.equal(run(replicas[0], 'wait', '0', '0').split('\n')[0],
        'ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.');
    }
    assert.equal(said.glasskv, 'OK\n2\n2\n2\n');
    assert.equal(said.glasskv, said.redis);
  });

  it('a writable replica deletes an expired key it writes; CLIENT KILL TYPE master drops the link', async () => {
    const m = await start('redis', FAST_SYNC);
    const g = await start('glasskv', ['--replica-read-only', 'no']);
    const r = await start('redis', ['--replica-read-only', 'no']);
    for (const s of [g, r]) run(s, 'replicaof', '127.0.0.1', String(m.port));
    // The master keeps its expired keys until they are read.
    run(m, 'debug', 'set-active-expire', '0');
    run(m, 'set', 'gone', 'v', 'px', '50');
    await caughtUp(m, [g, r]);
    await sleep(100);
    for (const line of ['exists gone', 'lpush gone x', 'type gone', 'lrange gone 0 -1'])
      assert.equal(cli(g.port, line.split(' ')).out, cli(r.port, line.split(' ')).out, line);
    assert.equal(run(g, 'client', 'kill', 'type', 'master'), run(r, 'client', 'kill', 'type', 'master'));
    // Both connect again at once, and the new link is a master client.
    await caughtUp(m, [g, r]);
    for (const s of [g, r]) assert.match(run(s, 'client', 'list', 'type', 'master'), /flags=M /);
    assert.ok(await logged(g, /Reconnecting to MASTER/), g.log);
  });

  it('REPLICAOF NO ONE starts a new history and keeps the old one as replid2', async () => {
    const m = await start('redis', FAST_SYNC);
    const g = await start('glasskv');
    const r = await start('redis');
    for (const s of [g, r]) run(s, 'replicaof', '127.0.0.1', String(m.port));
    write(m, 1);
    await caughtUp(m, [g, r]);
    const old = replInfo(m);
    for (const s of [g, r]) assert.equal(run(s, 'replicaof', 'no', 'one'), 'OK\n');
    for (const s of [g, r]) {
      const i = replInfo(s);
      assert.equal(i.role, 'master');
      assert.equal(i.master_replid2, old.master_replid);
      assert.equal(i.second_repl_offset, String(Number(old.master_repl_offset) + 1));
      assert.notEqual(i.master_replid, old.master_replid);
      assert.equal(run(s, 'set', 'now', 'writable'), 'OK\n');
    }
    assert.equal(run(g, 'role'), run(r, 'role').replace(/\d+\n\n$/, `${replInfo(g).master_repl_offset}\n\n`));
  });

  it('a broken link continues from the master\'s backlog, on glasskv as on redis-server', async () => {
    const sent = [];
    for (const kind of ['glasskv', 'redis']) {
      const m = await start(kind, FAST_SYNC);
      const r = await start('redis');
      run(m, 'set', 'a', '1');
      assert.equal(run(r, 'replicaof', '127.0.0.1', String(m.port)), 'OK\n');
      await caughtUp(m, [r]);
      // The master drops its replica and takes two writes before the
      // replica is back: all three in one read of the master's.
      const { data } = await raw(m.port, 'CLIENT KILL TYPE replica\r\nSET b 2\r\nSET c 3\r\n');
      assert.equal(data.toString(), ':1\r\n+OK\r\n+OK\r\n');
      await caughtUp(m, [r]);
      assert.equal(run(r, 'mget', 'a', 'b', 'c'), '1\n2\n3\n');
      const re = /Partial resynchronization request from 127\.0\.0\.1:(\d+) accepted\. Sending (\d+) bytes of backlog starting from offset (\d+)\./;
      assert.ok(await logged(m, re), `${kind}: ${m.log}`);
      const [, port, bytes] = re.exec(m.log);
      assert.equal(port, String(r.port));
      sent.push(Number(bytes));
      assert.ok(await logged(r, /Successful partial resynchronization with master\./), r.log);
      assert.equal(replInfo(m).repl_backlog_active, '1');
    }
    // the same two writes, in the protocol, from either backlog
    assert.equal(sent[0], sent[1]);
    assert.ok(sent[0] > 0);
  });

  it('a master that cannot be reached: connect state, and MASTERDOWN without stale data', async () => {
    const g = await start('glasskv');
    const r = await start('redis');
    const script = [
      'replicaof 127.0.0.1 1', 'role', 'get x',
      'config set replica-serve-stale-data no', 'get x', 'ping', 'info server',
      'multi', 'get x', 'exec', 'replicaof no one', 'get x',
      'config set min-replicas-to-write 1', 'set x 1', 'multi', 'set x 2', 'exec',
      'config set min-replicas-to-write 0', 'replicaof 127.0.0.1 abc',
    ];
    const outs = [g, r].map((s) => script.map((line) => {
      const out = cli(s.port, line.split(' ')).out;
      return line === 'info server' ? out.split('\n')[0] : out;
    }));
    assert.deepEqual(outs[0], outs[1]);
    assert.ok(await logged(g, /Error condition on socket for SYNC: Connection refused/), g.log);
  });
});
