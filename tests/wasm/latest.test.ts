// The Slabs pane's request runner: one fetch at a time, and the state
// asked for last is always the one fetched.
import { describe, expect, it } from 'vitest';
import { latestOnly } from '../../web/src/views/slabs/latest';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('latestOnly', () => {
  it('a request made while a fetch runs is run after it, with the state current then', async () => {
    let current = 1;
    const seen: number[] = [];
    const gates: ReturnType<typeof deferred>[] = [];
    const trigger = latestOnly(async () => {
      seen.push(current);
      const g = deferred();
      gates.push(g);
      await g.promise;
    });
    trigger();
    expect(seen).toEqual([1]);
    // The world moves twice while the first fetch is out: one more fetch,
    // not two, and it asks for the latest state.
    current = 2;
    trigger();
    current = 3;
    trigger();
    expect(seen).toEqual([1]);
    gates[0].resolve();
    await flush();
    expect(seen).toEqual([1, 3]);
    gates[1].resolve();
    await flush();
    expect(seen).toEqual([1, 3]);
    // Idle again: the next request runs at once.
    current = 4;
    trigger();
    expect(seen).toEqual([1, 3, 4]);
    gates[2].resolve();
    await flush();
  });
});
