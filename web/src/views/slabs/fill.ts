// Runs a fill workload in slices, one logged mcFill action each, so the
// view redraws between them and Stop takes effect at the next slice. No
// React: the form subscribes to its state.
import { MC_DEFAULTS, type McFillSpec } from '../../../../wasm/mcprotocol';
import type { Store } from '../../model/store';

export interface FillRun {
  running: boolean;
  stopping: boolean;
}

let state: FillRun = { running: false, stopping: false };
const listeners = new Set<() => void>();

function set(patch: Partial<FillRun>): void {
  state = { ...state, ...patch };
  for (const fn of listeners) fn();
}

export function getFillRun(): FillRun {
  return state;
}

export function subscribeFillRun(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function stopFill(): void {
  if (state.running) set({ stopping: true });
}

/** Sends the workload's sets from `first` on, `slice` at a time, until
 *  done, stopped, an action fails, or a new session boots. */
export async function runFill(store: Store, spec: McFillSpec, slice: number, first = 0): Promise<void> {
  if (state.running) return;
  set({ running: true, stopping: false });
  // A boot passes through 'loading': once seen, the fill belongs to a
  // session that is gone and must not log into the new one. The log's
  // config object is kept by every action and replaced by a link, an
  // import or a lesson, so it also tells a session swapped between two
  // slices, which the log's length alone cannot.
  const session = store.getState().log.config;
  let booted = false;
  const unsubscribe = store.subscribe(() => {
    if (store.getState().phase === 'loading') booted = true;
  });
  try {
    for (let at = first; at < spec.total && !state.stopping && !booted; at += slice) {
      const count = Math.min(slice, spec.total - at);
      const before = store.getState().log.entries.length;
      await store.act({ kind: 'mcFill', spec, first: at, count });
      const now = store.getState();
      if (booted || now.phase !== 'ready' || now.log.config !== session) break;
      if (now.log.entries.length === before) break;
    }
  } finally {
    unsubscribe();
    set({ running: false, stopping: false });
  }
}

/** The calcification preset: a small node, then values that grow. */
export const CALCIFICATION = {
  options: { ...MC_DEFAULTS, m: 8 },
  spec: { dist: 3, sizeA: 100, sizeB: 4000, keyBytes: 10, keyspace: 4000, total: 40000, seed: 1 } as McFillSpec,
  slice: 2000,
};
