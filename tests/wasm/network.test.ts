// More than one Redis server in the page's world (the real .wasm, through
// the worker's session): `server port=N` starts another on the same machine,
// the console goes to it with redis-cli's own CONNECT, REPLICAOF links them,
// and the snapshot's network (gkReplInspect) follows the topology, the
// offsets and each replica's state. A share link replays all of it.
import { describe, expect, it } from 'vitest';
import { ReplicaState, ReplLinkState } from '../../wasm/engine';
import { Limits } from '../../web/src/wasm-gen/seam';
import type { Snapshot } from '../../wasm/protocol';
import { emptyLog, newSession } from './helpers';

type S = ReturnType<typeof newSession>['session'];
const say = (s: S, text: string) => s.act({ kind: 'console', text }).console;
const byPort = (snap: Snapshot, port: number) => snap.network.find((n) => n.port === port);

describe('servers of one world', () => {
  it('starts a second server, connects the console to it, and makes it a replica', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    expect(session.snapshot().network.map((n) => n.port)).toEqual([6379]);
    const started = session.act({ kind: 'server', port: 6380 }).console;
    expect(started.map((e) => [e.source, e.input, e.status])).toEqual([['server', 'redis-server --port 6380', 'ok']]);

    const out = say(session, 'SET k1 v1\nCONNECT 127.0.0.1 6380\nGET k1\nREPLICAOF 127.0.0.1 6379');
    expect(out.map((e) => [e.prompt, e.input, e.output])).toEqual([
      ['127.0.0.1:6379>', 'SET k1 v1', 'OK'],
      ['127.0.0.1:6379>', 'CONNECT 127.0.0.1 6380', ''],
      ['127.0.0.1:6380>', 'GET k1', '(nil)'],
      ['127.0.0.1:6380>', 'REPLICAOF 127.0.0.1 6379', 'OK'],
    ]);
    expect(session.snapshot().prompt).toBe('127.0.0.1:6380>');

    // diskless sync waits 5 s for more replicas, then the RDB goes
    session.act({ kind: 'wait', ns: 8e9 });
    const snap = session.snapshot();
    const master = byPort(snap, 6379)!;
    const replica = byPort(snap, 6380)!;
    expect(master.link).toBe(ReplLinkState.NONE);
    expect(replica.link).toBe(ReplLinkState.UP);
    expect(replica.masterPort).toBe(6379);
    expect(master.replicas.map((r) => [r.port, r.state, r.node])).toEqual([[6380, ReplicaState.ONLINE, replica.node]]);
    expect(replica.appliedOffset).toBe(master.offset);
    expect(master.replid).toMatch(/^[0-9a-f]{40}$/);
    expect(master.backlogHistlen).toBeGreaterThan(0);
    expect(say(session, 'GET k1').map((e) => e.output)).toEqual(['"v1"']);

    // a write on the master reaches the replica; its offset follows
    say(session, 'CONNECT localhost 6379\nSET k2 v2');
    session.act({ kind: 'wait', ns: 10e6 });
    const after = session.snapshot();
    expect(byPort(after, 6379)!.offset).toBeGreaterThan(master.offset);
    expect(byPort(after, 6380)!.appliedOffset).toBe(byPort(after, 6379)!.offset);
    expect(say(session, 'CONNECT 127.0.0.1 6380\nGET k2\nSET x 1').map((e) => e.output))
      .toEqual(['', '"v2"', "(error) READONLY You can't write against a read only replica."]);

    // the same log, replayed as a share link does, gives the same world
    const replay = newSession();
    await replay.session.boot({ ...emptyLog(5), entries: [...session.entries] });
    const again = replay.session.snapshot();
    expect(again.network).toEqual(session.snapshot().network);
    expect(again.prompt).toBe('127.0.0.1:6380>');
  });

  it('refuses a port another server holds, as redis-server does', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    const out = session.act({ kind: 'server', port: 6379 }).console;
    expect(out[0].status).toBe('error');
    expect(out[0].output).toContain('Could not create server TCP listening socket *:6379: bind: Address already in use');
    expect(session.snapshot().network.map((n) => n.port)).toEqual([6379]);
  });

  it('CONNECT to a port nobody listens on leaves redis-cli not connected until a server listens there', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    const out = say(session, 'CONNECT 127.0.0.1 6390\nPING');
    expect(out.map((e) => [e.prompt, e.output])).toEqual([
      ['127.0.0.1:6379>', 'Could not connect to Redis at 127.0.0.1:6390: Connection refused\n'],
      ['not connected>', 'Could not connect to Redis at 127.0.0.1:6390: Connection refused\n'],
    ]);
    expect(session.snapshot().prompt).toBe('not connected>');
    session.act({ kind: 'server', port: 6390 });
    expect(say(session, 'PING').map((e) => [e.prompt, e.output])).toEqual([['127.0.0.1:6390>', 'PONG']]);
    expect(say(session, 'CONNECT 10.0.0.9 6379')[0].output)
      .toBe('Could not connect to Redis at 10.0.0.9:6379: Connection timed out\n');
  });

  it('keeps each server\'s log: a replica that cannot sync from a master whose disk is full, as seed 000 tells', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'config', name: 'repl-diskless-sync', value: 'no' });
    session.act({ kind: 'populate', n: 1000, db: 0 });
    session.act({ kind: 'diskFree', bytes: 0 });
    session.act({ kind: 'server', port: 6380 });
    say(session, 'CONNECT 127.0.0.1 6380\nREPLICAOF 127.0.0.1 6379');
    session.act({ kind: 'wait', ns: 3e9 });
    const replica = byPort(session.snapshot(), 6380)!;
    expect(replica.link).not.toBe(ReplLinkState.UP);
    const master = session.serverLog(0);
    expect(master.lines.filter((l) => / # /.test(l)).map((l) => l.replace(/^\d+:. [^#]+# /, ''))).toEqual(
      expect.arrayContaining([
        'Write error saving DB on disk(rdbSaveRio): No space left on device',
        'Background saving error',
        'SYNC failed. BGSAVE child returned an error',
        'Connection with replica 127.0.0.1:6380 lost.',
      ]));
    expect(master.last).toBe(master.lines.length);
    // read on from a line: only what came after it, nothing when nothing did
    expect(session.serverLog(0, master.last)).toEqual({ node: 0, lines: [], last: master.last });
    expect(session.serverLog(0, master.last - 2).lines).toEqual(master.lines.slice(-2));
    const lines = session.serverLog(replica.node).lines;
    expect(lines[3]).toMatch(/^\d+:M \d\d \w{3} \d{4} [\d:.]+ \* Running mode=standalone, port=6380\.$/);
    // the replica tries again every second and the master, unable to
    // persist, refuses even its PING
    const refused = lines.filter((l) => l.includes("# Error reply to PING from master: '-MISCONF Redis is configured"));
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(session.serverLog(Limits.MAX_NODES - 2)).toEqual({ node: Limits.MAX_NODES - 2, lines: [], last: 0 });
  });

  it('disk and machine actions for any server: a replica\'s full disk, a master that cannot fork (seed 000)', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'server', port: 6380 });
    // the replica's disk full: diskless sync reaches it, its RDB cannot land
    const full = session.act({ kind: 'diskFree', bytes: 1000, port: 6380 }).console;
    expect(full.map((e) => [e.source, e.input])).toEqual([['persist', 'disk free 1000 bytes (:6380)']]);
    session.act({ kind: 'populate', n: 1000, db: 0 });
    say(session, 'CONNECT 127.0.0.1 6380\nREPLICAOF 127.0.0.1 6379');
    session.act({ kind: 'wait', ns: 8e9 });
    const replica = byPort(session.snapshot(), 6380)!;
    expect(replica.link).not.toBe(ReplLinkState.UP);
    expect(session.serverLog(replica.node).lines.some((l) => l.includes('# Write error or short write'))).toBe(true);
    session.act({ kind: 'diskFree', bytes: 2 ** 30, port: 6380 });
    session.act({ kind: 'wait', ns: 8e9 });
    expect(byPort(session.snapshot(), 6380)!.link).toBe(ReplLinkState.UP);

    // the master's machine short of memory, overcommit heuristic: the fork
    // for a new replica's sync fails, until vm.overcommit_memory=1
    expect(session.act({ kind: 'machine', name: 'mem-total', value: '1mb' }).console[0].input).toBe('mem-total 1mb');
    session.act({ kind: 'server', port: 6381 });
    say(session, 'CONNECT 127.0.0.1 6381\nREPLICAOF 127.0.0.1 6379');
    session.act({ kind: 'wait', ns: 8e9 });
    expect(session.serverLog(0).lines.filter((l) => l.includes("# Can't save in background: fork: Cannot allocate memory")).length)
      .toBeGreaterThan(0);
    const fix = session.act({ kind: 'machine', name: 'vm.overcommit_memory', value: '1' }).console;
    expect(fix.map((e) => [e.input, e.status])).toEqual([['sysctl vm.overcommit_memory=1', 'ok']]);
    session.act({ kind: 'wait', ns: 8e9 });
    expect(byPort(session.snapshot(), 6381)!.link).toBe(ReplLinkState.UP);

    // refused: a bad value (the engine's message), a port nobody listens on
    const bad = session.act({ kind: 'machine', name: 'vm.overcommit_memory', value: '7' }).console[0];
    expect(bad.status).toBe('error');
    expect(bad.output).toMatch(/overcommit/);
    expect(() => session.act({ kind: 'diskFree', bytes: 0, port: 6399 })).toThrow('no server listens on port 6399');
  });
});
