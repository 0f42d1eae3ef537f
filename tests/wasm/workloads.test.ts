// Client programs, host statistics, labs and the event-loop timeline,
// through the WebAssembly build.
import { describe, expect, it } from 'vitest';
import { TIMELINE_BIN_FIELDS, TimelineBin, TimelineItem, type LaneItems } from '../../wasm/protocol';
import { LAB_SCENES } from '../../wasm/labscenes';
import { requestBursts } from '../../web/src/render/sequence';
import { Timeline } from '../../wasm/timeline';
import { emptyLog, loadGlasskv, newSession, oneServer } from './helpers';

const items = (l: LaneItems) => Array.from({ length: l.count }, (_, i) => ({
  t0: l.t0[i], t1: l.t1[i], kind: l.kind[i], fd: l.fd[i], n: l.n[i], x: l.x[i],
}));

describe('the workload exports', () => {
  it('start a program whose statistics, samples and system calls come from the engine', async () => {
    const gk = await loadGlasskv();
    const world = gk.createWorld({ seed: 2 });
    const node = world.addServer();
    const id = world.workloadStart(node, { clients: 3, pipeline: 10, requests: 3000, rttNs: 100e3, command: 'SET', valueSize: 64 });
    expect(id).toBe(1);
    world.runUntil(1e9);
    const st = world.workloadStats(id);
    expect(st).toMatchObject({ sent: 3000, completed: 3000, batches: 300, latCount: 300, done: true });
    expect(st.latP50Ns).toBeGreaterThanOrEqual(100e3);
    expect(st.latMaxNs).toBeGreaterThanOrEqual(st.latP50Ns);
    expect(st.reads + st.writes).toBeGreaterThanOrEqual(600);
    const samples = world.workloadSamples(id, 100);
    expect(samples.times.length).toBe(100);
    expect(samples.latencies.every((l) => l >= 100e3)).toBe(true);
    expect(samples.times[99]).toBe(st.endNs);
    const server = world.nodeStats(node);
    const client = world.nodeStats(id);
    expect(server.iterations).toBeGreaterThan(100);
    expect(server.reads).toBeGreaterThanOrEqual(300);
    expect(client.writes).toBe(st.writes);
    expect(() => world.workloadStats(9)).toThrow();
    expect(() => world.workloadStart(node, { clients: 0 })).toThrow(/invalid workload/);
  });

  it('keep the engine defaults for the fields left out', async () => {
    const gk = await loadGlasskv();
    const json = JSON.parse(gk.workloadRunJson({ requests: 2000 }, 3));
    expect(json).toMatchObject({ name: 'benchmark', clients: 50, pipeline: 1, multi: 0, commands: 2000 });
  });

  it('run the labs headless with the shapes the issue asks for', async () => {
    const gk = await loadGlasskv();
    expect(gk.labNames()).toEqual(expect.arrayContaining(['pipelining', 'pipeline-vs-multi', 'rtt', 'command-flushing']));
    const rtt = JSON.parse(gk.labRun('rtt', 1));
    const [fastOne, fastPipe, slowOne, slowPipe] = rtt.runs;
    expect(slowOne.ops_per_sec).toBeGreaterThan(3);
    expect(slowOne.ops_per_sec).toBeLessThan(5);
    expect(slowPipe.ops_per_sec / slowOne.ops_per_sec).toBeGreaterThan(50);
    expect(fastPipe.ops_per_sec / fastOne.ops_per_sec).toBeGreaterThan(5);
    // Seed 002: Lettuce's default flush-after-write is pipelined (faster
    // than one command per 0.1 ms round trip could be), and batches of 50
    // to 1,000 per flush gain up to about 5x over it.
    const flush = JSON.parse(gk.labRun('command-flushing', 1));
    const ops = flush.runs.map((r: { ops_per_sec: number }) => r.ops_per_sec);
    expect(ops[0]).toBeGreaterThan(2 * 10_000);
    expect(flush.runs[0].client_syscalls_per_cmd).toBeGreaterThanOrEqual(1);
    for (const batched of [ops[1], ops[2]]) {
      expect(batched / ops[0]).toBeGreaterThanOrEqual(2);
      expect(batched / ops[0]).toBeLessThanOrEqual(8);
    }
    expect(ops[2]).toBeGreaterThan(ops[1]);
    // The live scenes run the headless lab's programs, named as its runs
    // (the two quick labs; the others take seconds headless).
    expect(LAB_SCENES['command-flushing'].map((p) => p.name)).toEqual(flush.runs.map((r: { name: string }) => r.name));
    expect(LAB_SCENES.rtt.map((p) => p.name)).toEqual(rtt.runs.map((r: { name: string }) => r.name));
    expect(() => gk.labRun('nope')).toThrow(/no lab named nope/);
  });
});

describe('workloads in a session', () => {
  it('are logged actions, shown in snapshots with the engine statistics, and stop on request', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    const r = session.act({ kind: 'workload', preset: 'benchmark', clients: 4, pipeline: 1, requests: 400, command: 'GET',
      rttNs: 50e3 });
    expect(r.entry).toEqual({ t: 0, action: expect.objectContaining({ kind: 'workload', clients: 4 }) });
    session.act({ kind: 'workload', preset: 'monitor', command: 'INFO', clients: 1, requests: 0, intervalNs: 2e9 });
    session.advanceBy(100e6);
    let snap = session.snapshot();
    expect(snap.workloads.map((w) => [w.id, w.preset])).toEqual([[1, 'benchmark'], [2, 'monitor']]);
    expect(snap.workloads[0].stats).toMatchObject({ completed: 400, done: true });
    expect(snap.workloads[0].conns.length).toBe(4);
    expect(snap.hosts.map((h) => h.role)).toEqual(['server', 'workload', 'workload']);
    session.advanceBy(4.1e9);
    snap = session.snapshot();
    expect(snap.workloads[1].stats.batches).toBe(3);
    session.act({ kind: 'workloadStop', id: 2 });
    session.advanceBy(4e9);
    expect(session.snapshot().workloads[1]).toMatchObject({ stopped: true, stats: { batches: 3 } });
    expect(() => session.act({ kind: 'workload', preset: 'benchmark', command: 'DEL' })).toThrow(RangeError);
  });

  it('step one iteration of a host at a time', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(5));
    session.act({ kind: 'workload', preset: 'benchmark', clients: 2, pipeline: 3, requests: 0, command: 'GET', rttNs: 80e3 });
    session.advanceBy(3e6);
    const before = session.snapshot().hosts[0].iterations;
    for (let i = 1; i <= 5; i++) {
      const snap = session.act({ kind: 'stepIteration', node: 0 }).snapshot;
      expect(snap.hosts[0].iterations).toBe(before + i);
    }
  });

  it('run a lab part by part, each starting when the previous one is done', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(6));
    session.act({ kind: 'lab', name: 'command-flushing' });
    for (let i = 0; i < 200 && !session.snapshot().lab!.done; i++) session.advanceBy(50e6);
    const snap = session.snapshot();
    expect(snap.lab).toMatchObject({ name: 'command-flushing', part: 2, parts: 3, done: true });
    const kinds = session.entries.map((e) => e.action.kind);
    expect(kinds.filter((k) => k === 'labNext').length).toBe(2);
    const parts = snap.workloads.map((w) => [w.lab!.part, w.spec.pipeline, w.spec.flush, w.stats.completed]);
    expect(parts).toEqual([[0, 1000, 1, 20_000], [1, 50, 0, 20_000], [2, 1000, 0, 20_000]]);
    // Each part starts within a millisecond of the previous one's last reply.
    for (let i = 1; i < 3; i++) {
      const gap = snap.workloads[i].startedAt - snap.workloads[i - 1].stats.endNs;
      expect(gap).toBeGreaterThanOrEqual(0);
      expect(gap).toBeLessThanOrEqual(1e6);
    }
    const rate = (i: number) => {
      const s = snap.workloads[i].stats;
      return s.completed / (s.endNs - s.startNs);
    };
    for (const batched of [rate(1), rate(2)]) {
      expect(batched / rate(0)).toBeGreaterThanOrEqual(2);
      expect(batched / rate(0)).toBeLessThanOrEqual(8);
    }
    expect(rate(2)).toBeGreaterThan(rate(1));
    // The same log replayed gives the same lab.
    const again = newSession();
    await again.session.boot({ ...emptyLog(6), entries: [...session.entries] });
    expect(again.session.snapshot().workloads).toEqual(snap.workloads);
  });

  it('have live scenes that fit in a world (fifteen client programs at most)', () => {
    for (const parts of Object.values(LAB_SCENES)) {
      expect(parts.reduce((n, p) => n + p.programs.length, 0)).toBeLessThanOrEqual(15);
    }
  });
});

describe('the timeline', () => {
  it('loses no trace record when a busy workload starts after a long quiet stretch', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    session.act({ kind: 'wait', ns: 5e9 });
    session.act({ kind: 'workload', preset: 'benchmark', clients: 50, pipeline: 16, requests: 50_000, command: 'GET',
      rttNs: 100e3 });
    session.act({ kind: 'wait', ns: 200e6 });
    const snap = session.snapshot();
    expect(snap.workloads[0].stats.done).toBe(true);
    expect(snap.traceLost).toBe(0);
  });

  it('lays out each server iteration as the trace tells it: poll, read, commands, beforeSleep and its writes', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    session.act({ kind: 'workload', preset: 'redis-py', clients: 1, pipeline: 4, requests: 40, command: 'GET', rttNs: 100e3 });
    session.advanceBy(5e6);
    const w = session.timeline(0, 5e6, 2000, [0]);
    expect(w.mode).toBe('items');
    const server = items(w.items[0]);
    const iters = server.filter((i) => i.kind === TimelineItem.ITER);
    const busy = iters.filter((it) => server.some((i) => i.kind === TimelineItem.EXEC && i.t0 >= it.t0 && i.t1 <= it.t1));
    expect(busy.length).toBe(10);
    for (const it of busy) {
      const inside = server.filter((i) => i !== it && i.t0 >= it.t0 && i.t1 <= it.t1);
      expect(inside.map((i) => i.kind)).toEqual([
        TimelineItem.POLL, TimelineItem.READ, TimelineItem.EXEC, TimelineItem.EXEC, TimelineItem.EXEC,
        TimelineItem.EXEC, TimelineItem.BEFORE_SLEEP, TimelineItem.WRITE,
      ]);
      const [poll, read, , , , last, before, write] = inside;
      expect(poll.t0).toBe(it.t0);
      expect(read.t0).toBe(poll.t1);
      expect(before.t0).toBe(last.t1);
      expect(write.t1).toBe(it.t1);
      expect(before.t1).toBe(it.t1);
      expect(read.n).toBeGreaterThan(0);
    }
    const snap = session.snapshot();
    const numbers = iters.map((i) => i.x);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
    expect(numbers.at(-1)! + 1).toBe(snap.hosts[0].iterations);
  });

  it('labels each request of the sequence diagram with the commands it carried: one per flush, or the whole batch', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    const lettuce = { kind: 'workload', preset: 'lettuce', clients: 1, pipeline: 20, requests: 40, command: 'GET',
      rttNs: 100e3 } as const;
    session.act({ ...lettuce, flush: 1 });
    session.act({ ...lettuce, flush: 0 });
    session.advanceBy(5e6);
    expect(session.snapshot().workloads.map((w) => w.stats.done)).toEqual([true, true]);
    const w = session.timeline(0, 5e6, 100_000, [1, 2]);
    expect(w.mode).toBe('items');
    const lane = (node: number) => w.items.find((l) => l.node === node)!;
    const each = requestBursts(lane(1), 0);
    expect(each.length).toBe(40);
    expect(each.every((r) => r.commands === 1)).toBe(true);
    expect(requestBursts(lane(2), 0).map((r) => r.commands)).toEqual([20, 20]);
    // Writes drawn as one burst carry the commands of all their flushes.
    expect(requestBursts(lane(1), 1e9).map((r) => r.commands)).toEqual([40]);
  });

  it('sums items into bins when a window holds more than its pixels can show, and the sums agree with the engine', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    session.act({ kind: 'workload', preset: 'benchmark', clients: 10, pipeline: 1, requests: 20_000, command: 'GET',
      rttNs: 100e3 });
    for (let i = 0; i < 20; i++) session.advanceBy(50e6);
    const snap = session.snapshot();
    expect(snap.workloads[0].stats.done).toBe(true);
    const w = session.timeline(0, snap.now, 400);
    expect(w.mode).toBe('bins');
    const sum = (node: number, f: number) => {
      const lane = w.bins.find((b) => b.node === node)!;
      let s = 0;
      for (let c = 0; c < w.px; c++) s += lane.data[c * TIMELINE_BIN_FIELDS + f];
      return s;
    };
    expect(sum(0, TimelineBin.ITERS)).toBe(snap.hosts[0].iterations);
    expect(sum(0, TimelineBin.CMDS)).toBe(20_000);
    expect(sum(0, TimelineBin.READS)).toBe(snap.hosts[0].reads);
    expect(sum(1, TimelineBin.DONES)).toBe(20_000);
    expect(snap.traceLost).toBe(0);
  });

  it('shows one connection: the client writes, the server reads and answers, the client reads', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    session.act({ kind: 'workload', preset: 'benchmark', clients: 2, pipeline: 1, requests: 10, command: 'GET', rttNs: 200e3 });
    session.advanceBy(10e6);
    const fd = session.snapshot().workloads[0].conns[0];
    const lanes = session.connection(fd, 0, 10e6);
    const server = items(lanes.find((l) => l.node === 0)!);
    const client = items(lanes.find((l) => l.node === 1)!);
    const send = client.find((i) => i.kind === TimelineItem.WRITE)!;
    const read = server.find((i) => i.kind === TimelineItem.READ)!;
    expect(read.n).toBe(send.n);
    expect(read.t0).toBeGreaterThanOrEqual(send.t1 + 100e3);
    expect(server.filter((i) => i.kind === TimelineItem.EXEC).length).toBe(5);
    expect(client.filter((i) => i.kind === TimelineItem.DONE).length).toBe(5);
    expect(client.every((i) => i.fd === fd) && server.every((i) => i.fd === fd)).toBe(true);
  });

  it('shows the commands of one read as one run on the connection', async () => {
    const { session } = newSession();
    await session.boot(emptyLog(9));
    session.act({ kind: 'workload', preset: 'redis-py', clients: 1, pipeline: 50, requests: 200, multi: false,
      command: 'GET', rttNs: 100e3 });
    session.advanceBy(10e6);
    const fd = session.snapshot().workloads[0].conns[0];
    const server = items(session.connection(fd, 0, 10e6).find((l) => l.node === 0)!);
    const runs = server.filter((i) => i.kind === TimelineItem.EXEC);
    expect(runs.map((r) => r.n)).toEqual([50, 50, 50, 50]);
  });

  it('counts the commands a script calls instead of laying them out, when asked, and keeps the EVAL whole', async () => {
    const { world, conn } = await oneServer();
    world.traceEnable(0xffffffff);
    const from = world.traceLastSeq();
    const script = "for i = 1, 100 do redis.call('ping') end return 1";
    world.send(conn, `*3\r\n$4\r\nEVAL\r\n$${script.length}\r\n${script}\r\n$1\r\n0\r\n`);
    world.runUntilIdle();
    const records = world.traceReadAll(from);
    const laid = new Timeline();
    const counted = new Timeline({ nested: 'count' });
    laid.ingest(records);
    counted.ingest(records);
    const items = (t: Timeline) => {
      const lane = t.window(0, world.now() + 1e6, 100_000, [0]).items[0];
      return Array.from(lane.kind).map((k, i) => ({ kind: k, t0: lane.t0[i], t1: lane.t1[i], n: lane.n[i] }));
    };
    const execs = (t: Timeline) => items(t).filter((i) => i.kind === TimelineItem.EXEC);
    expect(execs(laid)).toHaveLength(101);
    expect(counted.nestedCounted).toBe(100);
    const [evalItem] = execs(counted);
    expect(execs(counted)).toHaveLength(1);
    expect(evalItem.n).toBe(3);
    // The EVAL runs from the end of the read that brought it to its end.
    const read = items(counted).find((i) => i.kind === TimelineItem.READ && i.n > 0)!;
    expect(evalItem.t0).toBe(read.t1);
    expect(evalItem.t1).toBe(execs(laid)[100].t1);
  });

  it('names the command ids of the trace by asking the engine', async () => {
    const { session } = newSession();
    const names = await session.commandNames();
    const byName = Object.fromEntries(Object.entries(names).map(([id, n]) => [n, Number(id)]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['GET', 'SET', 'MULTI', 'EXEC', 'INFO', 'INCR']));
    await session.boot(emptyLog(9));
    session.act({ kind: 'console', text: 'SET a 1\nGET a' });
    // The server's iteration runs on its own clock, past the event that
    // woke it; the replies reach the console when the iteration's last
    // write returns, and the world's clock is then at that moment: the end
    // of the iteration.
    const w = session.timeline(0, session.snapshot().now + 1e6, 500, [0]);
    expect(w.end).toBe(session.snapshot().now);
    const cmds = w.items[0];
    const ran = Array.from(cmds.kind).flatMap((k, i) => (k === TimelineItem.EXEC ? [names[cmds.x[i]]] : []));
    expect(ran).toEqual(['SET', 'GET']);
  });
});
