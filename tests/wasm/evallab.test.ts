// Seed 004's lab, eval-vs-zcard, run live as the page runs it: through the
// bridge to the worker's message handling (in-process), a step at a time,
// with its progress pushed as events, on the real .wasm.
import { describe, expect, it } from 'vitest';
import { Bridge, type BridgeEvent } from '../../wasm/bridge';
import { TimelineItem, type LabProgress } from '../../wasm/protocol';
import { emptyLog } from './helpers';
import { InProcessWorker } from './inprocess';

function connect() {
  const bridge = new Bridge(() => new InProcessWorker() as unknown as Worker);
  const events: BridgeEvent[] = [];
  bridge.subscribe((e) => events.push(e));
  const progress = () => events.flatMap((e) => (e.type === 'labProgress' ? [e.progress] : []));
  return { bridge, events, progress };
}

/** Resolves once `until` holds, polling every 20 ms. */
async function waitFor(until: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!until()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Run {
  name: string;
  client: { bytes_written: number; bytes_read: number; reads: number; writes: number };
  server: { longest_iteration: { ms: number; start_ns: number; end_ns: number } };
  monitor: { max_ms: number; interval_ms: number };
  result: number;
}

describe('the eval-vs-zcard lab run live', () => {
  it('loads a million keys, runs ZCARD per key then one EVAL, reports each part as it goes, and gives seed 004\'s bytes', async () => {
    const { bridge, progress } = connect();
    await bridge.call({ type: 'boot', log: emptyLog() });
    const started = await bridge.call({ type: 'labStart', name: 'eval-vs-zcard', seed: 1 });
    expect(started).toMatchObject({ state: 'running', part: 'load', done: 0, total: 1_000_000 });
    // The worker answers the page between two slices of the lab.
    await waitFor(() => progress().length > 0, 30_000);
    const snap = await bridge.call({ type: 'snapshot' });
    expect(snap.now).toBe(0);
    expect(progress().some((p) => p.state !== 'running')).toBe(false);

    await waitFor(() => progress().some((p) => p.state !== 'running'), 120_000);
    const seen = progress();
    const last = seen[seen.length - 1];
    expect(last.state).toBe('done');
    // Parts in order, each one's work counted up to its total.
    const order = ['load', 'zcard', 'eval', 'done'];
    const parts = seen.map((p) => order.indexOf(p.part));
    expect(parts).toEqual([...parts].sort((a, b) => a - b));
    expect(new Set(seen.map((p) => p.part))).toEqual(new Set(order));
    expect(seen.every((p) => p.done <= p.total)).toBe(true);
    expect(seen.some((p) => p.part === 'load' && p.done > 0 && p.done < p.total)).toBe(true);
    expect(seen.some((p) => p.part === 'zcard' && p.done > 0 && p.done < p.total)).toBe(true);

    const runs = (JSON.parse(last.result!.json) as { runs: Run[] }).runs;
    const [, zcard, evalRun] = runs;
    expect(zcard.client.bytes_written).toBe(29_888_890);
    expect(zcard.client.bytes_read).toBe(4_000_000);
    expect(evalRun.client.bytes_written).toBe(14_889_033);
    expect(evalRun.client.bytes_read).toBe(10);
    expect([zcard.result, evalRun.result]).toEqual([1_000_000, 1_000_000]);
    expect([zcard.client.writes, zcard.client.reads]).toEqual([1_000_000, 1_000_000]);
    // The freeze is seconds long, and the monitor waited for it.
    const freeze = evalRun.server.longest_iteration;
    expect(freeze.ms).toBeGreaterThan(1000);
    expect(Math.abs(evalRun.monitor.max_ms - freeze.ms)).toBeLessThanOrEqual(evalRun.monitor.interval_ms);
    expect(zcard.server.longest_iteration.ms).toBeLessThan(1);

    // The lab's timeline holds the frozen iteration where the figures say.
    const w = await bridge.call({
      type: 'timeline', source: 'lab', t0: freeze.start_ns - 1000, t1: freeze.start_ns + 1000, px: 1000, nodes: [0],
    });
    expect(w.mode).toBe('items');
    const lane = w.items[0];
    const iters = Array.from(lane.kind).flatMap((k, i) => (k === TimelineItem.ITER ? [[lane.t0[i], lane.t1[i]]] : []));
    expect(iters).toContainEqual([freeze.start_ns, freeze.end_ns]);
    // The sandbox saw none of it: its clock and memory are where they were.
    const after = await bridge.call({ type: 'snapshot' });
    expect([after.now, after.memory, after.logLength]).toEqual([snap.now, snap.memory, snap.logLength]);
  }, 180_000);

  it('stops when asked, half-way through the ZCARD run, and sends nothing after', async () => {
    const { bridge, progress } = connect();
    await bridge.call({ type: 'boot', log: emptyLog() });
    await bridge.call({ type: 'labStart', name: 'eval-vs-zcard', seed: 1 });
    await waitFor(() => progress().some((p) => p.part === 'zcard' && p.done > 0), 120_000);
    expect(await bridge.call({ type: 'labCancel' })).toBe(true);
    const stopped = progress().at(-1) as LabProgress;
    expect(stopped).toMatchObject({ state: 'cancelled', part: 'zcard', result: null });
    expect(stopped.done).toBeLessThan(stopped.total);
    const n = progress().length;
    await new Promise((r) => setTimeout(r, 300));
    expect(progress().length).toBe(n);
    expect(await bridge.call({ type: 'labCancel' })).toBe(false);
    // The sandbox goes on as before.
    const r = await bridge.call({ type: 'act', action: { kind: 'console', text: 'PING' } });
    expect(r.console[0].output).toBe('PONG');
  }, 180_000);
});
