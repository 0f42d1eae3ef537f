// The persistence exports and the session's crash, restart and recovery
// report, on the real .wasm.
import { describe, expect, test } from 'vitest';
import { emptyLog, newSession, oneServer, rawExchange } from './helpers';
import {
  CrashKind, aofInfo, diskFileInfo, diskInfo, diskList, diskPresets, diskReadFile, serverCrash, serverIsUp,
  serverLogRead, serverRestart, serverThreads,
} from '../../wasm/aof';
import type { Action } from '../../wasm/protocol';
import type { Session } from '../../wasm/session';

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
