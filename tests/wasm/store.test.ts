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

  it('the transcript agrees with the engine after a fork in the past, and after the future it cut is restored', async () => {
    const store = connect();
    expect(await store.boot()).toBe(true);
    await store.act({ kind: 'wait', ns: 1e6 });
    await store.act({ kind: 'console', text: 'SET b 2' });
    await store.act({ kind: 'wait', ns: 1e6 });
    const typed = () => store.getState().console.map((c) => c.input);
    expect(typed()).toEqual(['SET b 2']);

    await store.seek(5e5);
    // Rewound: the command is the recorded future, not done.
    const { history } = store.getState().snapshot!;
    expect(history.atEnd).toBe(false);
    expect(store.getState().console[0].entry).toBeGreaterThanOrEqual(history.applied);

    await store.act({ kind: 'step' });
    expect(typed()).toEqual([]);
    expect(store.getState().snapshot!.history.aside).toMatchObject({ actions: 1, typed: 1 });
    expect((await store.runConsole('EXISTS b'))[0].output).toBe('(integer) 0');
    expect(typed()).toEqual(['EXISTS b']);

    await store.restoreFuture();
    expect(typed()).toEqual(['SET b 2']);
    expect(store.getState().log.entries.map((e) => e.action.kind)).toEqual(['wait', 'console', 'wait']);
    expect(store.getState().snapshot!.history.aside).toMatchObject({ actions: 2, typed: 1 });
    await store.seek(store.getState().snapshot!.history.end);
    expect((await store.runConsole('EXISTS b'))[0].output).toBe('(integer) 1');
    expect(typed()).toEqual(['SET b 2', 'EXISTS b']);
    expect(store.getState().error).toBeNull();
  });
});
