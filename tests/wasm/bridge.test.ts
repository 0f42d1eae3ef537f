// The page's bridge talking to the worker's message handling (WorkerHost
// and Session, the code wasm/worker.ts runs), connected in-process through
// structured clones instead of a real Worker.
import { describe, expect, it } from 'vitest';
import { Bridge, BridgeCallError, WorkerDeadError, type BridgeEvent } from '../../wasm/bridge';
import { emptyLog } from './helpers';
import { InProcessWorker } from './inprocess';

function connect() {
  const workers: InProcessWorker[] = [];
  const bridge = new Bridge(() => {
    const w = new InProcessWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  const events: BridgeEvent[] = [];
  bridge.subscribe((e) => events.push(e));
  return { bridge, workers, events };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the bridge and the worker message handler', () => {
  it('answers queued calls in order, with log events pushed before each answer', async () => {
    const { bridge, events } = connect();
    const boot = bridge.call({ type: 'boot', log: emptyLog() });
    const a = bridge.call({ type: 'act', action: { kind: 'console', text: 'SET a 1' } });
    const b = bridge.call({ type: 'act', action: { kind: 'console', text: 'INCR a' } });
    const c = bridge.call({ type: 'act', action: { kind: 'console', text: 'GET a' } });
    await boot;
    expect((await a).console[0].output).toBe('OK');
    expect((await b).console[0].output).toBe('(integer) 2');
    const last = await c;
    expect(last.console[0].output).toBe('"2"');
    expect(last.index).toBe(2);
    expect(events.filter((e) => e.type === 'log').map((e) => e.type === 'log' && e.index)).toEqual([0, 1, 2]);
  });

  it('sends snapshots with bucket strips that survive the structured clone', async () => {
    const { bridge } = connect();
    await bridge.call({ type: 'boot', log: emptyLog() });
    await bridge.call({ type: 'view', view: { db: 0, bins: 64 } });
    const r = await bridge.call({ type: 'act', action: { kind: 'populate', db: 0, n: 5000 } });
    const t0 = r.snapshot.dict!.tables[0]!;
    expect(t0.entries).toBeInstanceOf(Uint32Array);
    expect(t0.bins).toBe(64);
    expect(t0.entries.reduce((x, y) => x + y, 0)).toBe(5000);
    const trace = await bridge.call({ type: 'trace', after: 0, max: 10 });
    expect(trace.data).toBeInstanceOf(Float64Array);
    expect(trace.count).toBeGreaterThan(0);
  });

  it('plays virtual time and paces pushed snapshots by the page acks', async () => {
    const { bridge, events } = connect();
    await bridge.call({ type: 'boot', log: emptyLog() });
    await bridge.call({ type: 'play', speed: 100 });
    await sleep(150);
    const pushed = events.filter((e) => e.type === 'snapshot').length;
    expect(pushed).toBe(1);
    bridge.ack();
    await sleep(60);
    const paused = await bridge.call({ type: 'pause' });
    expect(events.filter((e) => e.type === 'snapshot').length).toBe(2);
    expect(paused.now).toBeGreaterThan(1e9);
    expect(paused.playing).toBe(false);
    const logged = events.filter((e) => e.type === 'log');
    expect(new Set(logged.map((e) => e.type === 'log' && e.index))).toEqual(new Set([0]));
  });

  it('turns a trap into a failed call plus a crash event, and a boot recovers', async () => {
    const { bridge, events } = connect();
    await bridge.call({ type: 'boot', log: emptyLog() });
    await bridge.call({ type: 'act', action: { kind: 'console', text: 'SET kept 1' } });
    const err = await bridge.call({ type: 'act', action: { kind: 'trap' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeCallError);
    expect((err as BridgeCallError).remote).toBe('GkTrapError');
    expect(events.some((e) => e.type === 'crash')).toBe(true);
    const dead = await bridge.call({ type: 'snapshot' }).catch((e: unknown) => e);
    expect((dead as BridgeCallError).remote).toBe('EngineDead');
    const log = { ...emptyLog(), entries: [{ t: 0, action: { kind: 'console' as const, text: 'SET kept 1' } }] };
    const back = await bridge.call({ type: 'boot', log });
    expect(back.console[0].output).toBe('OK');
  });

  it('rejects pending calls when the worker dies, and starts a new one on restart', async () => {
    const { bridge, workers, events } = connect();
    const pending = bridge.call({ type: 'boot', log: emptyLog() });
    workers[0].die('out of memory');
    await expect(pending).rejects.toBeInstanceOf(WorkerDeadError);
    expect(events).toContainEqual({ type: 'dead', message: 'out of memory' });
    await expect(bridge.call({ type: 'snapshot' })).rejects.toBeInstanceOf(WorkerDeadError);
    bridge.restart();
    expect(workers.length).toBe(2);
    const r = await bridge.call({ type: 'boot', log: emptyLog() });
    expect(r.snapshot.prompt).toBe('127.0.0.1:6379>');
  });
});
