// Seed 003's labs live in the sandbox (the real .wasm, through the worker's
// session): `lab replication-star` starts ten replicas of the page's
// server on a machine of two shared CPUs, lets them sync, sends one SET,
// then an MSET among 50 clients' SETs, and times each write's way to every
// replica from the trace. The chain does the same with each replica
// following the one before it.
import { describe, expect, it } from 'vitest';
import { ReplLinkState } from '../../wasm/engine';
import type { LabDelivery, LabName, Snapshot } from '../../wasm/protocol';
import { layout } from '../../web/src/views/net/model';
import { emptyLog, newSession } from './helpers';

type S = ReturnType<typeof newSession>['session'];

/** Plays the lab to its end, as the page's Play does, stepNs at a time
 *  (at most two virtual minutes); returns the parts seen running. */
function playLab(session: S, name: LabName, stepNs = 100e6): number[] {
  session.act({ kind: 'lab', name });
  const parts: number[] = [];
  for (let t = 0; t < 120e9 && !session.snapshot().lab!.done; t += stepNs) {
    session.advanceBy(stepNs);
    const part = session.snapshot().lab!.part;
    if (parts[parts.length - 1] !== part) parts.push(part);
  }
  return parts;
}

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const msOf = (d: LabDelivery) => d.replicas.map((r) => r.ms!);
const ports = Array.from({ length: 10 }, (_, i) => 6380 + i);

describe('replication-star, live', () => {
  it('syncs ten replicas, then times one SET idle and one MSET under load to each of them', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    const parts = playLab(session, 'replication-star');
    const snap = session.snapshot();
    // the sync takes 7.0's 5 s delay; each later part ends as it should
    expect(parts[0]).toBe(0);
    expect(parts[parts.length - 1]).toBe(3);
    expect(snap.now).toBeGreaterThan(5e9);
    expect(snap.lab).toMatchObject({ name: 'replication-star', part: 3, parts: 4, done: true });

    // eleven servers, every replica following 6379's stream
    expect(snap.network.map((n) => n.port)).toEqual([6379, ...ports]);
    for (const n of snap.network.slice(1)) {
      expect(n.link).toBe(ReplLinkState.UP);
      expect(n.masterPort).toBe(6379);
    }
    // The Network pane four boxes wide: the replicas in rows of four under
    // the master, their links drawn as a bus without words; wide enough,
    // all in one row with their words.
    const rows = layout(snap.network, 4);
    const at = (port: number) => rows.placed.find((p) => p.server.port === port)!;
    expect(ports.map((p) => [at(p).depth, at(p).x])).toEqual(ports.map((_, i) => [1 + Math.floor(i / 4), i % 4]));
    expect([at(6379).depth, at(6379).x, rows.width, rows.depth]).toEqual([0, 1.5, 4, 4]);
    expect(rows.edges.every((e) => e.crowded && e.from.server.port === 6379)).toBe(true);
    const wide = layout(snap.network);
    expect([wide.width, wide.depth, wide.edges.some((e) => e.crowded)]).toEqual([10, 2, false]);
    // a MONITOR on each of the eleven, the SET, the load, the MSET
    expect(snap.workloads.map((w) => w.spec.command)).toEqual([...Array(11).fill('MONITOR'), 'SET', 'SET', 'MSET']);

    const [idle, loaded] = snap.lab!.deliveries;
    expect(idle).toMatchObject({ part: 'idle', command: 'SET' });
    expect(loaded).toMatchObject({ part: 'loaded', command: 'MSET' });
    for (const d of [idle, loaded]) {
      expect(d.replicas.map((r) => [r.port, r.follows])).toEqual(ports.map((p) => [p, 6379]));
      for (const ms of msOf(d)) expect(ms).toBeGreaterThan(0);
    }
    // the MSET went in 200 ms into the load, among the 50 clients' SETs
    const load = snap.workloads[12];
    expect(loaded.masterAt! - load.startedAt).toBeGreaterThanOrEqual(200e6);
    expect(load.stats.done).toBe(false);
    // idle, a write reaches every replica within a millisecond here; under
    // load it waits its turn among the others' work
    expect(Math.max(...msOf(idle))).toBeLessThan(1);
    expect(avg(msOf(loaded))).toBeGreaterThan(2 * avg(msOf(idle)));
    // the master writes to its replicas one after another: no two get it
    // at the same moment
    expect(new Set(msOf(idle)).size).toBeGreaterThan(5);
  }, 120_000);

  it('a share link of the run replays it to the same figures', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    playLab(session, 'replication-star');
    const replay = newSession();
    await replay.session.boot({ ...emptyLog(3), entries: [...session.entries] });
    const a = session.snapshot();
    const b: Snapshot = replay.session.snapshot();
    expect(b.now).toBe(a.now);
    expect(b.lab).toEqual(a.lab);
    expect(b.network).toEqual(a.network);
  }, 120_000);
});

describe('replication-chain, live', () => {
  it('each replica gets the write after the one it follows', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    // a replica syncs once the one it follows is in sync: some 6 s each
    playLab(session, 'replication-chain', 1e9);
    const snap = session.snapshot();
    expect(snap.lab!.done).toBe(true);
    expect(snap.network.map((n) => [n.port, n.masterPort])).toEqual([[6379, 0], ...ports.map((p) => [p, p - 1])]);
    for (const d of snap.lab!.deliveries) {
      expect(d.replicas.map((r) => r.follows)).toEqual(ports.map((p) => p - 1));
      let before = 0;
      for (const r of d.replicas) {
        expect(r.hopMs).toBeGreaterThan(0);
        expect(r.ms).toBeCloseTo(before + r.hopMs!, 9);
        before = r.ms!;
      }
    }
  }, 120_000);
});

describe('one lab after another', () => {
  it('servers already there are kept and made to follow as the lab needs; a lab with no room left is refused', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    // two servers a lesson made, as a chain: the star makes them its own
    session.act({ kind: 'server', port: 6380 });
    session.act({ kind: 'server', port: 6381 });
    session.act({ kind: 'console', text: 'CONNECT 127.0.0.1 6381\nREPLICAOF 127.0.0.1 6380' });
    playLab(session, 'replication-star');
    const snap = session.snapshot();
    expect(snap.lab).toMatchObject({ name: 'replication-star', done: true });
    expect(snap.network.map((n) => n.masterPort)).toEqual([0, ...ports.map(() => 6379)]);
    for (const d of snap.lab!.deliveries) for (const r of d.replicas) expect(r.ms).toBeGreaterThan(0);
    // seeking back before the MSET: its delivery times are not known yet
    const mset = snap.lab!.deliveries[1].masterAt!;
    session.seek(mset - 1e6);
    const back = session.snapshot().lab!;
    expect(back.deliveries.map((d) => d.part)).toEqual(['idle', 'loaded']);
    expect(back.deliveries[1].masterAt).toBeNull();
    expect(back.deliveries[1].replicas.every((r) => r.ms === null)).toBe(true);
    expect(back.done).toBe(false);
    session.seek(snap.now);
    expect(session.snapshot().lab).toEqual(snap.lab);
    // the star's 14 client programs fill the session's record
    expect(() => session.act({ kind: 'lab', name: 'replication-chain' }))
      .toThrow('lab replication-chain starts 14 client programs and this session has room for 2 more: start a new session for it');
  }, 120_000);
});

describe('a lab that cannot run', () => {
  it('is refused when the page\'s server is itself a replica', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'server', port: 6390 });
    session.act({ kind: 'console', text: 'REPLICAOF 127.0.0.1 6390' });
    expect(() => session.act({ kind: 'lab', name: 'replication-star' }))
      .toThrow('lab replication-star needs the server on 6379 to be a master: REPLICAOF NO ONE there first');
  });
});

describe('client programs on any server', () => {
  it('a workload goes to the server on its port; a port nobody listens on is refused', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(3));
    session.act({ kind: 'server', port: 6380 });
    session.act({ kind: 'workload', preset: 'benchmark', command: 'MSET', clients: 1, requests: 3, keyspace: 1, port: 6380 });
    session.act({ kind: 'wait', ns: 50e6 });
    const w = session.snapshot().workloads[0];
    expect(w.stats).toMatchObject({ completed: 3, errors: 0, done: true });
    const say = (text: string) => session.act({ kind: 'console', text }).console.map((e) => e.output);
    // ten keys of a keyspace of one: key:0 set ten times per MSET
    expect(say('DBSIZE')).toEqual(['(integer) 0']);
    expect(say('CONNECT 127.0.0.1 6380\nDBSIZE')).toEqual(['', '(integer) 1']);
    expect(say('INFO commandstats')[0]).toMatch(/cmdstat_mset:calls=3,/);
    expect(() => session.act({ kind: 'workload', preset: 'benchmark', port: 6390 }))
      .toThrow('no server listens on port 6390');
  });
});
