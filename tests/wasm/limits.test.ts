// The engine's limits as the page meets them: what a share link or a file
// can ask for is held to them, and past them the engine refuses instead of
// running out of memory.
import { describe, expect, it } from 'vitest';
import { GkError } from '../../wasm/engine';
import { HEAP_LIMIT_MAX } from '../../wasm/protocol';
import { emptyLog, loadGlasskv, newSession, rawExchange } from './helpers';

describe('the heap limit', () => {
  it('is at most HEAP_LIMIT_MAX, the engine refusing a larger one', async () => {
    const gk = await loadGlasskv();
    expect(() => gk.createWorld({ heapLimit: HEAP_LIMIT_MAX + 1 })).toThrow(GkError);
    const world = gk.createWorld({ heapLimit: HEAP_LIMIT_MAX });
    expect(world.now()).toBe(0);
  });

  it('of 0 stops a huge DEBUG POPULATE with an error instead of exhausting memory', async () => {
    const gk = await loadGlasskv();
    const world = gk.createWorld({ seed: 1, heapLimit: 0 });
    const node = world.addServer();
    const conn = world.openConn(node);
    const reply = rawExchange(world, conn, 'DEBUG POPULATE 100000000 k 1000\r\n');
    expect(reply).toMatch(/^-OOM /);
    expect(rawExchange(world, conn, 'SET after 1\r\n')).toMatch(/^-OOM /);
    expect(rawExchange(world, conn, 'FLUSHALL\r\n')).toBe('+OK\r\n');
    expect(rawExchange(world, conn, 'SET after 1\r\n')).toBe('+OK\r\n');
  });
});

describe('a workload', () => {
  it('whose batches would not fit under the heap limit is refused with the reason', async () => {
    const { session } = newSession();
    await session.boot({ ...emptyLog(), config: { ...emptyLog().config, heapLimit: 64 << 20 } });
    expect(() => session.act({
      kind: 'workload', preset: 'benchmark', clients: 10, pipeline: 1000, requests: 1e6,
      command: 'SET', valueSize: 64 << 20,
    })).toThrow(/past the heap limit/);
    const after = session.act({ kind: 'console', text: 'PING' });
    expect(after.console.at(-1)?.output).toBe('PONG');
  });
});
