// The page's store over the bridge and the worker's message handling, in
// process: what it mirrors of the log when sessions are replaced.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bridge } from '../../wasm/bridge';
import { Store } from '../../web/src/model/store';
import { emptyLog } from './helpers';
import { InProcessWorker } from './inprocess';

function connect(): Store {
  const log = emptyLog(3);
  return new Store(new Bridge(() => new InProcessWorker() as unknown as Worker), log, 'en');
}

const hadFrame = 'requestAnimationFrame' in globalThis;
beforeEach(() => {
  // The store acknowledges pushed snapshots on the next frame; Node has none.
  if (!hadFrame) globalThis.requestAnimationFrame = (fn: FrameRequestCallback) => setTimeout(() => fn(0), 0) as unknown as number;
});
afterEach(() => {
  if (!hadFrame) delete (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame;
});

describe('the store', () => {
  it('an action still in flight when a new session boots is not logged into the new session', async () => {
    const store = connect();
    expect(await store.boot()).toBe(true);
    await store.act({ kind: 'console', text: 'SET a 1' });
    expect(store.getState().log.entries.map((e) => e.action.kind)).toEqual(['console']);

    // Sent before the boot, so the worker runs it in the old session and
    // sends its log entry after the store has switched to the new log.
    const late = store.act({ kind: 'console', text: 'SET b 2' });
    const next = emptyLog(9);
    const booted = store.boot(next);
    expect(await late).toEqual([]);
    expect(await booted).toBe(true);
    await store.idle();
    expect(store.getState().log.config.seed).toBe(9);
    expect(store.getState().log.entries).toEqual([]);
    expect(store.getState().error).toBeNull();

    // The new session carries on logging its own actions from index 0.
    const reply = await store.act({ kind: 'console', text: 'EXISTS a' });
    expect(reply[0].output).toBe('(integer) 0');
    expect(store.getState().log.entries.map((e) => e.action.kind)).toEqual(['console']);
  });
});
