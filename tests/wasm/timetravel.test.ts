// Rewinding: checkpoints of the engine's memory plus replay of the input
// log. Whatever path a session takes through its history, the world it
// ends in must be the one it would have had without rewinding.
import { describe, expect, it } from 'vitest';
import { PAGE_BYTES } from '../../wasm/memimage';
import type { Action, AsideLog, LogEntry, Snapshot } from '../../wasm/protocol';
import { Session, type SessionOptions } from '../../wasm/session';
import { emptyLog, loadGlasskv, rawExchange } from './helpers';
import type { WorkerEvent } from '../../wasm/protocol';

function newSession(options: SessionOptions = {}) {
  const events: WorkerEvent[] = [];
  const session = new Session({ loadEngine: loadGlasskv, emit: (e) => events.push(e) }, options);
  return { session, events };
}

/** Steps of a scenario: an action, or a stretch of played time. */
type Step = Action | number;

const SCENARIO: Step[] = [
  { kind: 'populate', db: 0, n: 5000 },
  { kind: 'console', text: 'SET user:1 alice\nEXPIRE user:1 1' },
  { kind: 'workload', preset: 'benchmark', clients: 5, pipeline: 1, requests: 3000, rttNs: 200e3, command: 'GET' },
  16e6, 16e6,
  { kind: 'workload', preset: 'redis-py', clients: 1, pipeline: 200, requests: 0, multi: true, rttNs: 100e3,
    command: 'INCR', keyspace: 50, clientCmdNs: 20e3 },
  { kind: 'workload', preset: 'monitor', clients: 1, pipeline: 1, requests: 0, command: 'INFO', intervalNs: 5e6 },
  20e6,
  { kind: 'stepIteration', node: 0 },
  { kind: 'step' },
  { kind: 'scanStart', db: 0, count: 200, match: '*' },
  { kind: 'scanStep' },
  8e6, 8e6, 8e6,
  { kind: 'populate', db: 0, n: 4000 },
  { kind: 'scanStep' },
  { kind: 'workloadStop', id: 2 },
  30e6,
  { kind: 'stepIteration', node: 1 },
  1.2e9,
];

function run(session: Session, steps: Step[], between?: (i: number) => void): void {
  steps.forEach((s, i) => {
    if (typeof s === 'number') session.advanceBy(s);
    else session.act(s);
    between?.(i);
  });
}

/** What the engine says about itself, asked the same way in every world
 *  compared (so the asking itself is part of the compared history). */
function fingerprint(session: Session) {
  const out = session.act({
    kind: 'console',
    text: 'INFO stats\nINFO keyspace\nDEBUG HTSTATS 0\nCLIENT LIST\nDBSIZE\nGET user:1\nINFO commandstats',
  });
  const snap = out.snapshot;
  const tail = session.trace(Math.max(0, snap.traceSeq - 3000), 4000);
  return {
    console: out.console.map((e) => e.output.replace(/^(uptime_in_seconds|uptime_in_days):.*$/gm, '')),
    snapshot: essence(snap),
    traceTail: Array.from(tail.data),
    lastSeq: tail.lastSeq,
  };
}

function essence(s: Snapshot) {
  const t = (i: number) => {
    const x = s.dict?.tables[i];
    return x && { size: x.size, used: x.used, entries: Array.from(x.entries), filled: Array.from(x.filled) };
  };
  return {
    now: s.now, nextEvent: s.nextEvent, memory: s.memory, rehashidx: s.dict?.rehashidx, t0: t(0), t1: t(1),
    scan: s.scan && { ...s.scan, recent: s.scan.recent.length }, workloads: s.workloads, hosts: s.hosts,
    logLength: s.logLength, prompt: s.prompt,
  };
}

describe('memory images', () => {
  it('restore a world exactly, and share the pages that did not change', async () => {
    const gk = await loadGlasskv();
    const world = gk.createWorld({ seed: 3 });
    const node = world.addServer();
    const conn = world.openConn(node);
    world.send(conn, '*3\r\n$5\r\nDEBUG\r\n$8\r\nPOPULATE\r\n$5\r\n20000\r\n');
    world.runUntilIdle();
    world.recv(conn);
    const first = gk.captureMemory();
    world.send(conn, 'SET one more\r\n');
    world.runUntilIdle();
    world.recv(conn);
    const second = gk.captureMemory(first);
    expect(second.length).toBeGreaterThanOrEqual(first.length);
    expect(second.ownBytes).toBeLessThan(second.length / 4);
    expect(second.pages.filter((p, i) => p === first.pages[i]).length).toBeGreaterThan(first.pages.length / 2);

    world.send(conn, '*4\r\n$5\r\nDEBUG\r\n$8\r\nPOPULATE\r\n$5\r\n50000\r\n$1\r\nz\r\n');
    world.runUntilIdle();
    world.recv(conn);
    expect(world.dictInfo(node, 0).used[0] + world.dictInfo(node, 0).used[1]).toBe(70_001);
    gk.restoreMemory(first);
    const again = gk.captureMemory();
    expect(again.length).toBe(first.length);
    const differing = first.pages.filter((p, i) => Buffer.compare(p, again.pages[i]) !== 0).length;
    expect(differing).toBe(0);
    expect(first.pages[0].length).toBe(PAGE_BYTES);
    expect(world.dictInfo(node, 0).used[0] + world.dictInfo(node, 0).used[1]).toBe(20_000);
    expect(rawExchange(world, conn, 'GET one\r\nDBSIZE\r\n')).toBe('$-1\r\n:20000\r\n');
  });
});

describe('rewinding', () => {
  it('then replaying to the end gives the same world as never rewinding', async () => {
    const straight = newSession();
    await straight.session.boot(emptyLog(21));
    run(straight.session, SCENARIO);
    const expected = fingerprint(straight.session);

    const wandering = newSession({ checkpointEveryMs: 5 });
    await wandering.session.boot(emptyLog(21));
    run(wandering.session, SCENARIO, (i) => {
      const s = wandering.session.snapshot();
      if (i === 4) wandering.session.seek(s.now / 3);
      if (i === 9) wandering.session.seek(0);
      if (i === 4 || i === 9 || i === 15) {
        wandering.session.seek(s.now * 0.7);
        wandering.session.seek(s.history.end * 0.2);
        wandering.session.seek(s.history.end);
        expect(wandering.session.snapshot().history.atEnd).toBe(true);
      }
    });
    const got = fingerprint(wandering.session);
    expect(got.console).toEqual(expected.console);
    expect(got.snapshot).toEqual(expected.snapshot);
    expect(got.lastSeq).toBe(expected.lastSeq);
    expect(got.traceTail).toEqual(expected.traceTail);
    expect(wandering.session.entries).toEqual(straight.session.entries);
  });

  it('lands on the same world at a past time whichever checkpoint it starts from', async () => {
    const fine = newSession({ checkpointEveryMs: 5 });
    const coarse = newSession({ checkpointEveryMs: 1e9 });
    for (const s of [fine, coarse]) {
      await s.session.boot(emptyLog(8));
      run(s.session, SCENARIO.slice(0, 12));
    }
    expect(coarse.session.snapshot().history.checkpoints).toEqual([0]);
    expect(fine.session.snapshot().history.checkpoints.length).toBeGreaterThan(2);
    const end = fine.session.snapshot().history.end;
    for (const t of [end * 0.93, end * 0.31, end * 0.6, 0, end * 0.5]) {
      const a = fine.session.seek(t);
      const b = coarse.session.seek(t);
      expect(a.history.atEnd).toBe(false);
      expect(essence(a)).toEqual(essence(b));
      expect(fine.session.trace(a.traceSeq - 500, 500)).toEqual(coarse.session.trace(b.traceSeq - 500, 500));
    }
  });

  it('brings back the console\'s db, the lab and the programs with the engine\'s memory: they are in its record', async () => {
    const { session } = newSession({ checkpointEveryMs: 5 });
    await session.boot(emptyLog(4));
    session.act({ kind: 'console', text: 'SELECT 3' });
    session.advanceBy(2e6);
    const before = session.snapshot();
    const digest = session.digest();
    session.advanceBy(1e6);
    session.act({ kind: 'console', text: 'SELECT 5' });
    session.act({ kind: 'lab', name: 'command-flushing' });
    session.act({ kind: 'populate', db: 2, n: 10 });
    session.advanceBy(5e6);
    const after = session.snapshot();
    expect([after.prompt, after.lab?.name, after.workloads.length]).toEqual(['127.0.0.1:6379[5]>', 'command-flushing', 1]);
    // The programs show the spec they run with, the engine's defaults in.
    expect(after.workloads[0].spec).toMatchObject({ clients: 1, pipeline: 1000, flush: 1, keyspace: 10000 });
    const back = session.seek(before.now);
    expect([back.prompt, back.lab, back.workloads]).toEqual(['127.0.0.1:6379[3]>', null, []]);
    expect(session.digest()).toBe(digest);
    const again = session.seek(after.now);
    expect([again.prompt, again.lab?.name, again.workloads]).toEqual([after.prompt, 'command-flushing', after.workloads]);
  });

  it('plays the recorded future again when played from the past, then goes on live', async () => {
    const { session } = newSession({ checkpointEveryMs: 5 });
    await session.boot(emptyLog(4));
    run(session, SCENARIO.slice(0, 5));
    const log = session.entries.map((e) => ({ ...e }));
    const end = session.snapshot().history.end;
    session.seek(end / 2);
    for (let i = 0; i < 10 && !session.snapshot().history.atEnd; i++) session.advanceBy(5e6);
    const snap = session.snapshot();
    expect(snap.history.atEnd).toBe(true);
    expect(session.entries.slice(0, log.length - 1)).toEqual(log.slice(0, -1));
    expect(snap.now).toBeGreaterThan(end);
    expect(session.entries.at(-1)!.action).toEqual({ kind: 'advance', to: snap.now });
  });
});

describe('an action in the past', () => {
  it('forks the log there: the world is the one the cut log replays to', async () => {
    const { session, events } = newSession({ checkpointEveryMs: 5 });
    await session.boot(emptyLog(12));
    run(session, SCENARIO.slice(0, 9));
    const end = session.snapshot().history.end;
    const at = session.seek(end * 0.45).now;
    const forked = session.act({ kind: 'console', text: 'SET forked yes\nDBSIZE' });
    expect(forked.snapshot.history.atEnd).toBe(true);
    expect(forked.snapshot.history.end).toBe(forked.snapshot.now);
    const log = session.entries;
    expect(log.at(-1)!.action).toEqual({ kind: 'console', text: 'SET forked yes\nDBSIZE' });
    expect(log.every((e) => e.t <= forked.snapshot.now)).toBe(true);
    const cut = log.at(-2)!;
    expect(cut.action.kind === 'advance' ? cut.action.to : cut.t).toBeLessThanOrEqual(at);
    const mirrored: LogEntry[] = [];
    for (const e of events) {
      if (e.type !== 'log') continue;
      mirrored.length = e.index;
      mirrored.push(e.entry);
    }
    expect(mirrored).toEqual(log);
    session.advanceBy(50e6);
    const entries = [...session.entries];
    const live = fingerprint(session);

    const replay = newSession();
    await replay.session.boot({ ...emptyLog(12), entries });
    const replayed = fingerprint(replay.session);
    expect(replayed.console).toEqual(live.console);
    expect(replayed.snapshot).toEqual(live.snapshot);
    expect(replayed.traceTail).toEqual(live.traceTail);
  });

  it('cuts the timeline at the fork', async () => {
    const { session } = newSession({ checkpointEveryMs: 5 });
    await session.boot(emptyLog(12));
    run(session, SCENARIO.slice(0, 5));
    const end = session.snapshot().history.end;
    const full = session.timeline(0, end, 200);
    const at = session.seek(end / 2).now;
    expect(session.timeline(0, end, 200)).toEqual(full);
    session.act({ kind: 'workloadStop', id: 1 });
    const cut = session.snapshot().history.end;
    expect(cut).toBe(at);

    const replay = newSession();
    await replay.session.boot({ ...emptyLog(12), entries: [...session.entries] });
    for (const [t0, t1, px] of [[0, end, 200], [at * 0.9, at, 300], [at - 2e5, at + 1e6, 800], [0, end, 3]]) {
      expect(session.timeline(t0, t1, px)).toEqual(replay.session.timeline(t0, t1, px));
    }
    expect(session.timeline(0, end, 200)).not.toEqual(full);
  });
});

/** The futures set aside, as the session last told the page. */
function lastAsides(events: WorkerEvent[]): AsideLog[] {
  let out: AsideLog[] = [];
  for (const e of events) if (e.type === 'asides') out = e.asides;
  return out;
}

describe('the future an action in the past cuts', () => {
  /** A session where SET b 2 was typed, time ran on, and the reader went
   *  back to before it and stepped one event. */
  async function forkedBeforeTyping() {
    const made = newSession({ checkpointEveryMs: 5 });
    const { session } = made;
    await session.boot(emptyLog(31));
    run(session, [
      { kind: 'workload', preset: 'benchmark', clients: 2, pipeline: 1, requests: 400, rttNs: 200e3, command: 'SET' },
      5e6,
      { kind: 'console', text: 'SET b 2' },
      5e6, 5e6,
    ]);
    const before = { entries: session.entries.map((e) => ({ ...e })), end: session.snapshot().history.end };
    const typedAt = before.entries.find((e) => e.action.kind === 'console')!.t;
    const at = session.seek(typedAt / 2).now;
    session.act({ kind: 'step' });
    return { ...made, before, at };
  }

  it('is kept aside with the commands typed in it, and the world after the fork does not have them', async () => {
    const { session, before, at } = await forkedBeforeTyping();
    const snap = session.snapshot();
    expect(snap.history.aside).toEqual({ actions: 1, typed: 1, ns: before.end - at, at });
    expect(session.entries.some((e) => e.action.kind === 'console')).toBe(false);
    const exists = session.act({ kind: 'console', text: 'EXISTS b' });
    expect(exists.console.map((c) => c.output)).toEqual(['(integer) 0']);
  });

  it('comes back whole: the log as it was, the world at the moment of the fork, and the same end when played', async () => {
    const { session, before, at } = await forkedBeforeTyping();
    const restored = session.restoreFuture();
    expect(restored.entries).toEqual(before.entries);
    expect(session.entries).toEqual(before.entries);
    expect(restored.snapshot.now).toBe(at);
    expect(restored.snapshot.history).toMatchObject({ atEnd: false, end: before.end });
    // Its transcript has the typed command, marked as the recorded future.
    const typed = restored.console.find((c) => c.input === 'SET b 2')!;
    expect(typed.output).toBe('OK');
    expect(typed.entry).toBeGreaterThanOrEqual(restored.snapshot.history.applied);

    const rewound = essence(session.snapshot());
    const fresh = newSession();
    await fresh.session.boot({ ...emptyLog(31), entries: before.entries });
    expect(rewound).toEqual(essence(fresh.session.seek(at)));
    session.seek(before.end);
    fresh.session.seek(before.end);
    const got = fingerprint(session);
    const expected = fingerprint(fresh.session);
    expect(got.console).toEqual(expected.console);
    expect(got.snapshot).toEqual(expected.snapshot);
    expect(got.traceTail).toEqual(expected.traceTail);
    expect(session.timeline(0, before.end, 300)).toEqual(fresh.session.timeline(0, before.end, 300));
    expect(session.act({ kind: 'console', text: 'EXISTS b' }).console[0].output).toBe('(integer) 1');
  });

  it('sets the branch it replaces aside in turn, so restoring again brings the branch back', async () => {
    const { session, at } = await forkedBeforeTyping();
    session.act({ kind: 'console', text: 'SET c 3' });
    const branch = session.entries.map((e) => ({ ...e }));
    session.restoreFuture();
    expect(session.snapshot().history.aside).toMatchObject({ actions: 2, typed: 1, at });
    const back = session.restoreFuture();
    expect(back.entries).toEqual(branch);
    expect(back.console.map((c) => c.input)).toEqual(['SET c 3']);
    session.seek(back.snapshot.history.end);
    const reply = session.act({ kind: 'console', text: 'EXISTS b c' });
    expect(reply.console[0].output).toBe('(integer) 1');
  });

  it('comes back after a new boot of the log it was cut from, transcript included, as the page does after a reload', async () => {
    const { session, events, before, at } = await forkedBeforeTyping();
    const asides = lastAsides(events);
    expect(asides.length).toBe(1);
    const branch = session.entries.map((e) => ({ ...e }));

    const reloaded = newSession({ checkpointEveryMs: 5 });
    await reloaded.session.boot({ ...emptyLog(31), entries: branch }, [], structuredClone(asides));
    expect(reloaded.session.snapshot().history.aside).toEqual(session.snapshot().history.aside);
    const restored = reloaded.session.restoreFuture();
    expect(restored.entries).toEqual(before.entries);
    expect(restored.snapshot.now).toBe(at);
    expect(restored.snapshot.history).toMatchObject({ atEnd: false, end: before.end });
    const typed = restored.console.find((c) => c.input === 'SET b 2')!;
    expect(typed.output).toBe('OK');
    expect(typed.entry).toBeGreaterThanOrEqual(restored.snapshot.history.applied);
    expect(essence(reloaded.session.snapshot())).toEqual(essence(session.restoreFuture().snapshot));
    reloaded.session.seek(before.end);
    expect(reloaded.session.act({ kind: 'console', text: 'EXISTS b' }).console[0].output).toBe('(integer) 1');
  });

  it('is dropped at a boot when it does not share its beginning with the log booted', async () => {
    const { events } = await forkedBeforeTyping();
    const asides = lastAsides(events);
    expect(asides.length).toBe(1);
    const other = newSession();
    await other.session.boot({ ...emptyLog(31), entries: [{ t: 0, action: { kind: 'console', text: 'SET other 1' } }] }, [], asides);
    expect(other.session.snapshot().history.aside).toBeNull();
    expect(() => other.session.restoreFuture()).toThrow(RangeError);
  });

  it('is refused when no action in the past set anything aside', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(2));
    session.act({ kind: 'console', text: 'SET a 1' });
    expect(() => session.restoreFuture()).toThrow(RangeError);
    expect(session.snapshot().history.aside).toBeNull();
  });
});
