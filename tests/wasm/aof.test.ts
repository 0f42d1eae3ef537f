// The persistence exports and the session's crash, restart and recovery
// report, on the real .wasm.
import { describe, expect, test } from 'vitest';
import { emptyLog, newSession, oneServer, rawExchange } from './helpers';
import {
  CrashKind, RecoveryLimit, aofHistory, aofInfo, diskFileInfo, diskInfo, diskList, diskPresets, diskReadFile, serverCrash,
  serverIsUp, serverLogRead, serverRecoveryFollow, serverRecoveryInfo, serverRecoveryRows, serverRestart,
  serverThreads,
} from '../../wasm/aof';
import type { Action, WorkloadSpec } from '../../wasm/protocol';
import type { Session } from '../../wasm/session';
import { REPORT_ROWS } from '../../wasm/aofsession';

function cmd(line: string): string {
  const a = line.split(' ');
  return `*${a.length}\r\n${a.map((x) => `$${x.length}\r\n${x}\r\n`).join('')}`;
}

function run(session: Session, actions: Action[]): void {
  for (const a of actions) session.act(a);
}

/** appendonly on (its first rewrite done), a policy, then writes. */
function writes(policy: string, n: number): Action[] {
  const out: Action[] = [
    { kind: 'console', text: 'CONFIG SET appendonly yes' },
    { kind: 'wait', ns: 1e9 },
    { kind: 'console', text: `CONFIG SET appendfsync ${policy}` },
  ];
  for (let i = 0; i < n; i++) out.push({ kind: 'console', text: `SET key:${i} value-${i}` });
  return out;
}

describe('persistence exports', () => {
  test('the AOF, the incr file and the threads are read from the engine', async () => {
    const { world, node, conn } = await oneServer();
    expect(rawExchange(world, conn, cmd('CONFIG SET appendonly yes'))).toBe('+OK\r\n');
    world.runUntil(world.now() + 1e9);
    rawExchange(world, conn, cmd('SET greeting hello'));
    const info = aofInfo(world, node);
    expect(info.state).toBe(1);
    expect(info.fsync).toBe('everysec');
    expect(info.incrFile).toBe('appendonly.aof.1.incr.aof');
    expect(info.acked).toBe(info.fed);
    expect(diskList(world, node, 'appendonlydir')).toContain('appendonly.aof.manifest');
    const file = diskReadFile(world, node, `appendonlydir/${info.incrFile}`)!;
    expect(new TextDecoder().decode(file.bytes)).toContain('$8\r\ngreeting\r\n$5\r\nhello\r\n');
    expect(diskFileInfo(world, node, `appendonlydir/${info.incrFile}`)!.size).toBe(file.size);
    expect(diskFileInfo(world, node, 'nothing-here')).toBeNull();
    expect(serverThreads(world, node).map((t) => t.name)).toEqual(
      ['main', 'bio_close_file', 'bio_aof_fsync', 'bio_lazy_free']);
    expect(diskPresets(world)).toEqual(['nvme', 'ssd', 'hdd', 'slow-fsync']);
    expect(diskInfo(world, node).preset).toBe('ssd');
  });

  test('a power loss under appendfsync no drops the page cache of the incr file', async () => {
    const { world, node, conn } = await oneServer();
    rawExchange(world, conn, cmd('CONFIG SET appendonly yes'));
    world.runUntil(world.now() + 1e9);
    rawExchange(world, conn, cmd('CONFIG SET appendfsync no'));
    rawExchange(world, conn, cmd('SET a 1'));
    serverCrash(world, node, CrashKind.POWER);
    expect(serverIsUp(world, node)).toBe(false);
    serverRestart(world, node, 'appendonly yes\nappendfsync no\n');
    const c = world.openConn(node);
    expect(rawExchange(world, c, cmd('GET a'))).toBe('$-1\r\n');
    expect(serverLogRead(world, node).text).toContain('Ready to accept connections');
  });

  test('the recovery report is the engine\'s: it compares what was acknowledged with what the restart holds', async () => {
    const { world, node, conn } = await oneServer();
    serverRecoveryFollow(world, node, true);
    rawExchange(world, conn, cmd('CONFIG SET appendonly yes'));
    world.runUntil(world.now() + 1e9);
    rawExchange(world, conn, cmd('CONFIG SET appendfsync no'));
    rawExchange(world, conn, cmd('SADD s a b'));
    expect(serverRecoveryInfo(world, node)).toMatchObject({ following: true, ready: false, ackedNow: 1, keysNow: 1 });
    serverCrash(world, node, CrashKind.POWER);
    serverRestart(world, node, null);
    const info = serverRecoveryInfo(world, node);
    expect(info).toMatchObject({ ready: true, keys: 1, lost: 1, kept: 0, writes: 1, following: true });
    const [row] = serverRecoveryRows(world, node, 0, RecoveryLimit.ROWS_MAX);
    expect(row).toMatchObject({
      db: 0, key: 's', acked: '{a, b}', ackedPresent: true, foundPresent: false, command: 'SADD', writes: 1,
    });
    expect(serverRecoveryRows(world, node, 1, 10)).toEqual([]);
  });
});

describe('the offsets over a long run', () => {
  test('under a SET workload the view\'s series goes back to the AOF\'s start, with a step of durable per fsync', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(8));
    run(session, [{ kind: 'console', text: 'CONFIG SET appendonly yes' }, { kind: 'wait', ns: 1e9 }]);
    const on = session.snapshot().now;
    run(session, [
      { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1_000_000 },
      { kind: 'wait', ns: 4e9 },
    ]);
    const view = session.aof();
    const s = view.series;
    // The trace read back covers the last milliseconds; the series the whole run.
    expect(view.now - view.t0).toBeLessThan(0.5e9);
    expect(s.t[0]).toBeLessThanOrEqual(on);
    expect(s.t[s.t.length - 1]).toBe(view.now);
    let steps = 0;
    for (let i = 1; i < s.t.length; i++) {
      expect(s.t[i]).toBeGreaterThanOrEqual(s.t[i - 1]);
      expect(s.written[i]).toBeGreaterThanOrEqual(s.written[i - 1]);
      expect(s.durable[i]).toBeLessThanOrEqual(s.written[i]);
      if (s.durable[i] > s.durable[i - 1]) steps++;
    }
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(s.durable.every((d) => !Number.isNaN(d))).toBe(true);
  });

  test('gkAofHistory holds the offsets since the AOF came on, in time order, ending where gkAofGetInfo is', async () => {
    const { world, node, conn } = await oneServer();
    expect(aofHistory(world, node)).toEqual([]);
    rawExchange(world, conn, cmd('CONFIG SET appendonly yes'));
    world.runUntil(world.now() + 1e9);
    for (let i = 0; i < 30; i++) {
      rawExchange(world, conn, cmd(`SET key:${i} ${i}`));
      world.runUntil(world.now() + 1e8);
    }
    const hist = aofHistory(world, node);
    expect(hist.length).toBeGreaterThan(30);
    expect(hist.length).toBeLessThanOrEqual(1024);
    for (let i = 1; i < hist.length; i++) expect(hist[i].time).toBeGreaterThanOrEqual(hist[i - 1].time);
    const info = aofInfo(world, node);
    expect(hist[hist.length - 1].written).toBe(info.written);
    expect(hist[hist.length - 1].durable).toBe(info.durable);
  });
});

describe('crash and recovery in a session', () => {
  test('under appendfsync always a power loss loses no acknowledged write', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('always', 20), { kind: 'crash', mode: 'power' }, { kind: 'restart' }]);
    const report = session.aof().report!;
    expect(report.rows).toHaveLength(20);
    expect(report.lost).toBe(0);
    expect(report.kept).toBe(20);
    expect(report.crash.fsync).toBe('always');
  });

  test('under appendfsync no a power loss loses acknowledged writes', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('no', 20), { kind: 'crash', mode: 'power' }, { kind: 'restart' }]);
    const report = session.aof().report!;
    expect(report.lost).toBe(20);
    expect(report.rows.every((r) => r.outcome === 'lost' && r.found === null)).toBe(true);
  });

  test('under appendfsync no a process crash keeps every acknowledged write', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('no', 10), { kind: 'crash', mode: 'process' }, { kind: 'restart' }]);
    expect(session.aof().report!.kept).toBe(10);
  });

  test('everysec on power loss keeps what the last background fsync covered', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('everysec', 5), { kind: 'wait', ns: 3e9 },
      { kind: 'console', text: 'SET late 1' }, { kind: 'crash', mode: 'power' }, { kind: 'restart' }]);
    const report = session.aof().report!;
    const late = report.rows.find((r) => r.key === 'late')!;
    expect(report.rows.filter((r) => r.key.startsWith('key:')).every((r) => r.outcome === 'kept')).toBe(true);
    expect(late.outcome).toBe('lost');
  });

  test('the console is refused while the server is down and other actions are not logged', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'crash', mode: 'process' });
    const r = session.act({ kind: 'console', text: 'PING' });
    expect(r.console[0].output).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused');
    expect(() => session.act({ kind: 'populate', db: 0, n: 10 })).toThrow(/down/);
    expect(session.aof().up).toBe(false);
    session.act({ kind: 'restart' });
    expect(session.act({ kind: 'console', text: 'PING' }).console[0].output).toBe('PONG');
  });

  test('replaying the log rebuilds the same recovery report', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('no', 3), { kind: 'console', text: 'INCR n\nINCR n' },
      { kind: 'crash', mode: 'power' }, { kind: 'restart' }]);
    const first = session.aof().report!;
    const log = { ...emptyLog(), entries: [...session.entries] };
    const { session: again } = newSession();
    await again.boot(log);
    expect(again.aof().report).toEqual(first);
    expect(first.rows.find((r) => r.key === 'n')!.value).toBe('2');
  });
});

/** Turns appendonly on and waits until its first rewrite is done: until
 *  then the writes go to a temporary incr file that no manifest names, so
 *  a crash loses them whatever the policy (as in Redis 7.0). */
function aofOn(session: Session): void {
  session.act({ kind: 'console', text: 'CONFIG SET appendonly yes' });
  for (let i = 0; i < 60 && session.aof().info?.state !== 1; i++) session.act({ kind: 'wait', ns: 1e9 });
  expect(session.aof().info?.state).toBe(1);
}

/** A SET workload (redis-benchmark-like, until stopped) on the slow-fsync
 *  disk under a policy, for `ns` of virtual time, then a power loss. */
function setWorkloadThenPowerLoss(session: Session, policy: string, ns: number,
  extra: Partial<WorkloadSpec> = {}): void {
  session.act({ kind: 'disk', preset: 'slow-fsync' });
  aofOn(session);
  run(session, [
    { kind: 'console', text: `CONFIG SET appendfsync ${policy}` },
    { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1_000_000, ...extra },
    { kind: 'wait', ns },
    { kind: 'crash', mode: 'power' },
    { kind: 'restart' },
  ]);
}

describe('acknowledged writes of client programs', () => {
  test('a SET workload under everysec on a slow-fsync disk loses acknowledged writes on power loss', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    setWorkloadThenPowerLoss(session, 'everysec', 3e9);
    const report = session.aof().report!;
    expect(report.crash.fsync).toBe('everysec');
    // The engine compared every key and counted every acknowledged write:
    // a SET writes one key.
    expect(report.writes).toBeGreaterThan(REPORT_ROWS);
    expect(report.crash.writes).toBe(report.writes);
    expect(report.followed).toBe(report.writes);
    expect(report.kept + report.newer + report.lost).toBe(report.keys);
    // The view carries the lost rows first.
    expect(report.rows.length).toBe(REPORT_ROWS);
    expect(report.lost).toBeGreaterThan(0);
    const lost = report.rows.filter((r) => r.outcome === 'lost');
    expect(lost.every((r) => r.key.startsWith('key:') && r.value === 'xxx' && r.found === null)).toBe(true);
    // What was lost was acknowledged after what was kept: the durable part
    // of the stream is a prefix.
    const rows = session.recoveryReport()!.rows;
    expect(rows.length).toBe(Math.min(report.keys, RecoveryLimit.ROWS_MAX));
    const keptLast = Math.max(...rows.filter((r) => r.outcome === 'kept').map((r) => r.t));
    expect(Math.min(...rows.filter((r) => r.outcome === 'lost').map((r) => r.t))).toBeGreaterThan(keptLast - 1);
    expect(report.crash.aof!.acked).toBeGreaterThan(report.crash.aof!.durable);
  });

  test('the same workload under always loses no acknowledged write', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    setWorkloadThenPowerLoss(session, 'always', 10e9);
    const report = session.aof().report!;
    expect(report.crash.fsync).toBe('always');
    expect(report.keys).toBeGreaterThan(0);
    expect(report.lost).toBe(0);
    expect(report.kept + report.newer).toBe(report.keys);
  });

  test('an INCR workload with MULTI/EXEC reports the counters it was told, and everysec loses the last ones', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    setWorkloadThenPowerLoss(session, 'everysec', 3e9,
      { command: 'INCR', keyspace: 50, multi: true, pipeline: 10, clients: 1 });
    const report = session.aof().report!;
    expect(report.rows.length).toBe(50);
    // The last value each counter was told is how many INCRs it was told.
    expect(report.rows.every((r) => Number(r.value) === r.count)).toBe(true);
    expect(report.followed).toBe(report.writes);
    const older = report.rows.filter((r) => r.outcome === 'older');
    expect(older.length).toBeGreaterThan(0);
    expect(older.every((r) => Number(r.found ?? 0) < Number(r.value))).toBe(true);
  });

  test('regression: a counter a workload took below zero is reported with its negative value', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    aofOn(session);
    run(session, [
      { kind: 'console', text: 'CONFIG SET appendfsync always\nSET key:0 -5000' },
      { kind: 'workload', preset: 'benchmark', command: 'INCR', clients: 1, pipeline: 1, requests: 3, keyspace: 1 },
      { kind: 'wait', ns: 1e9 },
      { kind: 'crash', mode: 'power' },
      { kind: 'restart' },
    ]);
    const row = session.aof().report!.rows.find((r) => r.key === 'key:0')!;
    expect(row.value).toBe('-4997');
    expect(row.found).toBe('-4997');
    expect(row.outcome).toBe('kept');
  });
});

describe('disk controls and crashes at a chosen point in a session', () => {
  test('a full disk makes writes fail with MISCONF while GET works, and freeing space recovers', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    aofOn(session);
    session.act({ kind: 'console', text: 'SET a 1' });
    session.act({ kind: 'diskFree', bytes: 8 });
    session.act({ kind: 'console', text: 'SET b 2' });
    session.act({ kind: 'wait', ns: 2e9 });
    const out = session.act({ kind: 'console', text: 'SET c 3\nGET a' }).console;
    expect(out[0].output).toMatch(/^\(error\) MISCONF Errors writing to the AOF file: No space left on device/);
    expect(out[1].output).toBe('"1"');
    expect(session.aof().info!.lastWriteOk).toBe(false);
    session.act({ kind: 'diskFree', bytes: 1e9 });
    session.act({ kind: 'wait', ns: 2e9 });
    expect(session.act({ kind: 'console', text: 'SET c 3' }).console[0].output).toBe('OK');
  });

  test('a read-only appendonlydir makes turning appendonly on fail, and is logged', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'diskReadOnly', dir: 'appendonlydir', readonly: true });
    expect(session.aof().readOnly).toEqual(['appendonlydir']);
    const out = session.act({ kind: 'console', text: 'CONFIG SET appendonly yes' }).console;
    session.act({ kind: 'wait', ns: 2e9 });
    // Redis 7.0's startAppendOnly cannot open its temporary incr file.
    expect(out[0].output).toBe("(error) ERR CONFIG SET failed (possibly related to argument 'appendonly') - " +
      'Unable to turn on AOF. Check server logs.');
    expect(session.aof().info!.state).toBe(0);
    session.act({ kind: 'diskReadOnly', dir: 'appendonlydir', readonly: false });
    expect(session.aof().readOnly).toEqual([]);
    expect(() => session.act({ kind: 'diskReadOnly', dir: '/etc', readonly: true })).toThrow(/no directory/);
    expect(session.entries.filter((e) => e.action.kind === 'diskReadOnly')).toHaveLength(2);
  });

  test('a crash armed before the next beforeSleep loses the burst no client got a reply for', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    aofOn(session);
    session.act({ kind: 'console', text: 'CONFIG SET appendfsync always\nSET kept 1' });
    session.act({ kind: 'crashAt', point: 'beforeSleep', mode: 'process' });
    expect(session.aof().armed).toEqual({ point: 'beforeSleep', mode: 'process' });
    const out = session.act({ kind: 'console', text: 'SET burst 1' }).console;
    expect(out[0].status).not.toBe('ok');
    expect(session.aof().up).toBe(false);
    session.act({ kind: 'restart' });
    const report = session.aof().report!;
    expect(report.crash.point).toBe('beforeSleep');
    expect(report.rows.map((r) => [r.key, r.outcome])).toEqual([['kept', 'kept']]);
    expect(session.act({ kind: 'console', text: 'EXISTS burst' }).console[0].output).toBe('(integer) 0');
  });

  test('a crash right after the next write of aof_buf keeps the write only on a process crash', async () => {
    for (const mode of ['process', 'power'] as const) {
      const { session } = newSession();
      await session.boot(emptyLog());
      aofOn(session);
      session.act({ kind: 'console', text: 'CONFIG SET appendfsync always' });
      session.act({ kind: 'crashAt', point: 'afterWrite', mode });
      session.act({ kind: 'console', text: 'SET a 1' });
      expect(session.aof().up).toBe(false);
      session.act({ kind: 'restart' });
      expect(session.aof().report!.crash.point).toBe('afterWrite');
      expect(session.act({ kind: 'console', text: 'EXISTS a' }).console[0].output)
        .toBe(mode === 'process' ? '(integer) 1' : '(integer) 0');
    }
  });

  test('regression: a crash armed before CONFIG SET appendonly yes is reported, and restarted, under the new policy', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'crashAt', point: 'afterWrite', mode: 'process' });
    session.act({ kind: 'console', text: 'CONFIG SET appendfsync always\nCONFIG SET appendonly yes' });
    session.act({ kind: 'wait', ns: 1e9 });
    session.act({ kind: 'console', text: 'SET a 1' });
    expect(session.aof().up).toBe(false);
    session.act({ kind: 'restart' });
    const crash = session.aof().report!.crash;
    expect(crash.appendonly).toBe(true);
    expect(crash.fsync).toBe('always');
    expect(session.act({ kind: 'console', text: 'CONFIG GET appendonly' }).console[0].output).toMatch(/yes/);
  });

  test('a power loss during the next background fsync loses the writes it was syncing', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    session.act({ kind: 'disk', preset: 'slow-fsync' });
    aofOn(session);
    session.act({ kind: 'crashAt', point: 'duringFsync', mode: 'power' });
    session.act({ kind: 'console', text: 'SET a 1' });
    for (let i = 0; i < 10 && session.aof().up; i++) session.act({ kind: 'wait', ns: 1e9 });
    expect(session.aof().up).toBe(false);
    session.act({ kind: 'restart' });
    const report = session.aof().report!;
    expect(report.crash.point).toBe('duringFsync');
    expect(report.rows.find((r) => r.key === 'a')!.outcome).toBe('lost');
  });
});

describe('the AOF-is-not-a-WAL scene', () => {
  test('a pipelined burst runs in memory, the crash before its beforeSleep leaves no trace in the AOF and no reply', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    aofOn(session);
    session.act({ kind: 'console', text: 'SET before 1' });
    run(session, [
      { kind: 'crashAt', point: 'beforeSleep', mode: 'process' },
      { kind: 'wait', ns: 2e9 },
    ]);
    // Idle iterations (serverCron's) do not set it off.
    expect(session.aof().up).toBe(true);
    run(session, [
      { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 1, pipeline: 400, requests: 400,
        keyspace: 1_000_000 },
      { kind: 'wait', ns: 1e9 },
    ]);
    const down = session.aof();
    expect(down.up).toBe(false);
    expect(down.crash!.sinceArmed!.commands).toBe(400);
    expect(down.crash!.sinceArmed!.buf).toBeGreaterThan(400 * 30);
    expect(down.crash!.writes).toBe(1);
    session.act({ kind: 'restart' });
    const report = session.aof().report!;
    expect(report.dbsize).toBe(1);
    expect(report.rows.map((r) => [r.key, r.outcome])).toEqual([['before', 'kept']]);
  });
});

describe('acknowledged writes of the page\'s buttons', () => {
  test('the delete button\'s acknowledged DEL is followed like a typed one', async () => {
    const { session } = newSession();
    await session.boot(emptyLog());
    run(session, [...writes('always', 1), { kind: 'delete', db: 0, n: 1 }]);
    expect(session.aof().writes).toBe(2);
    run(session, [{ kind: 'crash', mode: 'power' }, { kind: 'restart' }]);
    const row = session.recoveryReport()!.rows.find((r) => r.key === 'key:0')!;
    expect([row.value, row.count, row.command, row.found, row.outcome]).toEqual([null, 2, 'DEL', null, 'kept']);
  });
});

describe('replay of persistence actions', () => {
  test('replaying a log with a workload, an armed crash and a restart rebuilds the same report and ledger', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(11));
    aofOn(session);
    run(session, [
      { kind: 'workload', preset: 'benchmark', command: 'INCR', clients: 2, requests: 0, keyspace: 100 },
      { kind: 'wait', ns: 5e8 },
      { kind: 'crashAt', point: 'afterWrite', mode: 'power' },
      { kind: 'wait', ns: 5e8 },
      { kind: 'restart' },
    ]);
    const first = session.recoveryReport()!;
    expect(first.crash.point).toBe('afterWrite');
    expect(first.crash.writes).toBeGreaterThan(0);
    const { session: again } = newSession();
    await again.boot({ ...emptyLog(11), entries: [...session.entries] });
    expect(again.recoveryReport()).toEqual(first);
    expect(again.aof().writes).toBe(session.aof().writes);
  });
});

describe('the threads strip', () => {
  test('draws a lazy-free job still running whose start busy client programs pushed out of the trace ring', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    run(session, [
      { kind: 'console', text: `EVAL "for i = 0, 799 do local m = {} for j = 1, 1000 do m[j] = 'm:' .. (i * 1000 + j) end redis.call('SADD', KEYS[1], unpack(m)) end return 1" 1 big` },
      { kind: 'workload', preset: 'benchmark', clients: 50, requests: 0, rttNs: 100_000 },
      { kind: 'wait', ns: 20e6 },
      { kind: 'console', text: 'UNLINK big' },
      { kind: 'wait', ns: 80e6 },
    ]);
    const v = session.aof();
    const lazy = v.threads.find((t) => t.name === 'bio_lazy_free')!;
    expect(lazy.busy).toBe(true);
    // The ring holds the last few milliseconds only; the job began before.
    expect(lazy.busySince).toBeLessThan(v.t0);
    expect(v.jobs.filter((j) => j.lane === 3)).toEqual([{ lane: 3, t0: lazy.busySince, t1: v.now }]);
  });
});
