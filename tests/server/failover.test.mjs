// FAILOVER on real sockets, between glasskv and Debian's redis-server 7.0:
// a glasskv master hands its role to a redis-server replica and the
// other way round, with the same replies, log lines, INFO fields and
// datasets as between two redis-servers; then the refusals, the timeout,
// FORCE and ABORT side by side with a redis-server pair.
//
// Run: node --test tests/server/failover.test.mjs
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  caughtUp, cli, logged, openConnection, replInfo, sleep, startServer, until,
} from './servers.mjs';

const ARGS = ['--enable-debug-command', 'yes', '--repl-diskless-sync-delay', '0'];
const servers = [];
const dirs = [];
async function start(kind) {
  const dir = mkdtempSync(join(tmpdir(), `glasskv-failover-${kind}-`));
  dirs.push(dir);
  const s = await startServer(kind, [...ARGS, '--dir', dir]);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const run = (s, ...args) => cli(s.port, args).out.trim();

/** A master of kind m with a replica of kind r, synced, holding a few keys. */
async function pair(m, r) {
  const master = await start(m);
  const replica = await start(r);
  assert.equal(run(replica, 'replicaof', '127.0.0.1', String(master.port)), 'OK');
  run(master, 'mset', 'a', '1', 'b', '2');
  run(master, 'rpush', 'l', 'x', 'y');
  await caughtUp(master, [replica]);
  return { master, replica };
}

/** FAILOVER on the master; waits until the two have swapped roles. */
async function failOver(master, replica, ...args) {
  assert.equal(run(master, 'failover', ...args), 'OK');
  await until(() => replInfo(master).role === 'slave' && replInfo(master).master_link_status === 'up'
    && replInfo(replica).role === 'master', 10000);
}

describe('FAILOVER between glasskv and redis-server', () => {
  for (const [m, r] of [['glasskv', 'redis'], ['redis', 'glasskv'], ['glasskv', 'glasskv']]) {
    it(`a ${m} master hands its role to a ${r} replica without a write lost`, async () => {
      const { master, replica } = await pair(m, r);
      const digest = run(master, 'debug', 'digest');
      await failOver(master, replica);
      // the old master follows its replica, continued from where it was
      assert.equal(replInfo(master).master_port, String(replica.port));
      assert.equal(replInfo(master).master_failover_state, 'no-failover');
      assert.equal(replInfo(replica).master_failover_state, 'no-failover');
      assert.ok(await logged(master, /\* FAILOVER requested to any replica\./));
      assert.ok(await logged(master, new RegExp(`\\* Failover target 127\\.0\\.0\\.1:${replica.port} is synced, failing over\\.`)));
      assert.ok(await logged(master, /\* Successful partial resynchronization with master\./));
      assert.ok(await logged(replica, /# Failover request received for replid [0-9a-f]{40}\./));
      assert.ok(await logged(replica, /\* MASTER MODE enabled \(failover request from 'id=\d+ addr=127\.0\.0\.1:\d+ /));
      assert.equal(run(replica, 'debug', 'digest'), digest);
      // writes go to the new master and reach the old one
      assert.equal(run(replica, 'set', 'c', '3'), 'OK');
      await caughtUp(replica, [master]);
      assert.equal(run(master, 'get', 'c'), '3');
      assert.match(run(master, 'set', 'd', '4'), /^READONLY /);
    });
  }

  it('refuses, waits, gives up, forces and aborts as redis-server does', async () => {
    const both = { glasskv: await pair('glasskv', 'glasskv'), redis: await pair('redis', 'redis') };
    const kinds = Object.keys(both);
    const same = (fn) => {
      const out = kinds.map((k) => fn(both[k]));
      assert.equal(out[0], out[1], `${kinds[0]}: ${out[0]} / ${kinds[1]}: ${out[1]}`);
      return out[0];
    };
    same(({ master }) => run(master, 'failover', 'abort'));
    same(({ master }) => run(master, 'failover', 'timeout', '0'));
    same(({ master }) => run(master, 'failover', 'timeout', 'x'));
    same(({ master }) => run(master, 'failover', 'force'));
    same(({ master }) => run(master, 'failover', 'to', '127.0.0.1', '1', 'timeout', '10'));
    same(({ master }) => run(master, 'failover', 'to', '127.0.0.1'));
    same(({ master }) => run(master, 'failover', 'bogus'));
    same(({ replica }) => run(replica, 'failover'));
    same(({ replica }) => run(replica, 'psync', '?', '-1', 'failover'));

    // The replica asleep (DEBUG SLEEP) cannot acknowledge a new write: the
    // master holds writes and waits, refusing a second FAILOVER and
    // REPLICAOF meanwhile, until ABORT.
    // Until a PING sent after it goes unanswered: the sleep has begun.
    const asleep = async (p, seconds) => {
      const c = await openConnection(p.replica.port);
      const probe = await openConnection(p.replica.port);
      c.send(`DEBUG SLEEP ${seconds}\r\n`);
      for (let i = 0; i < 20; i++) {
        probe.take();
        probe.send('PING\r\n');
        await sleep(100);
        if (!probe.bytes()) break;
      }
      return c;
    };
    const target = (p) => ['to', '127.0.0.1', String(p.replica.port)];
    for (const p of Object.values(both)) await asleep(p, 4);
    same((p) => { run(p.master, 'set', 'unacked', '1'); return run(p.master, 'failover', ...target(p), 'timeout', '60000'); });
    same(({ master }) => replInfo(master).master_failover_state);
    same(({ master }) => run(master, 'failover'));
    same(({ master }) => run(master, 'replicaof', 'no', 'one'));
    same(({ master }) => run(master, 'failover', 'abort'));
    for (const p of Object.values(both)) {
      assert.ok(await logged(p.master, new RegExp(`\\* FAILOVER to 127\\.0\\.0\\.1:${p.replica.port} aborted: Failover manually aborted`)));
      assert.equal(replInfo(p.master).master_failover_state, 'no-failover');
      assert.equal(run(p.master, 'set', 'after', 'abort'), 'OK');
    }
    await sleep(4100);

    // The same with a timeout of 300 ms: the master gives up
    for (const p of Object.values(both)) await asleep(p, 3);
    same((p) => { run(p.master, 'set', 'unacked', '2'); return run(p.master, 'failover', ...target(p), 'timeout', '300'); });
    for (const p of Object.values(both)) {
      assert.ok(await logged(p.master, /\* FAILOVER to 127\.0\.0\.1:\d+ aborted: Replica never caught up before timeout/, 3000));
      assert.equal(replInfo(p.master).role, 'master');
    }
    await sleep(3100);

    // and with FORCE it fails over anyway, the replica taking over once
    // it wakes up
    for (const p of Object.values(both)) await asleep(p, 2);
    same((p) => { run(p.master, 'set', 'unacked', '3'); return run(p.master, 'failover', ...target(p), 'force', 'timeout', '300'); });
    for (const p of Object.values(both)) {
      assert.ok(await logged(p.master, /\* FAILOVER to 127\.0\.0\.1:\d+ time out exceeded, failing over\./, 3000));
      await until(() => replInfo(p.replica).role === 'master' && replInfo(p.master).master_link_status === 'up', 10000);
      assert.equal(run(p.replica, 'get', 'unacked'), '3');
    }
  });
});
