// The key inspector's data: the key it follows, and that key read again
// from the engine whenever the world moves (a new snapshot) or the key or
// the db changes, one request at a time, the latest wins.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useAppState, useStoreApi } from '../../app/hooks';
import { getInspected, subscribePane } from '../../app/pane';
import { latestOnly } from '../slabs/latest';
import { useMounted } from '../useMounted';
import { follow, type Followed } from './model';

/** A reading slower than this is followed by a pause as long. */
const SLOW_MS = 40;

export function useInspected(): string | null {
  return useSyncExternalStore(subscribePane, getInspected);
}

/** The followed key's state: null before the first answer for it, or while
 *  the engine cannot answer. */
export function useFollowed(key: string | null): Followed | null {
  const store = useStoreApi();
  const snapshot = useAppState((s) => s.snapshot);
  const db = useAppState((s) => s.db);
  const [followed, setFollowed] = useState<Followed | null>(null);
  const want = useRef({ key, db });
  want.current = { key, db };
  const last = useRef<Followed | null>(null);
  const alive = useMounted();
  const fetchKey = useMemo(() => latestOnly(async () => {
    const w = want.current;
    if (w.key === null) {
      last.current = null;
      if (alive.current) setFollowed(null);
      return;
    }
    const t0 = performance.now();
    const reading = await store.inspect(w.key);
    const took = performance.now() - t0;
    // Not answered (the engine is busy restarting): keep what is shown.
    if (reading === undefined || !alive.current) return;
    // The key or db changed while this was asked: the next run asks again.
    if (want.current.key !== w.key || want.current.db !== w.db) return;
    const now = store.getState().snapshot?.now ?? 0;
    last.current = follow(last.current, w.key, w.db, reading, now);
    setFollowed(last.current);
    // A big key takes the worker a while to read (a 100,000-member zset,
    // about a tenth of a second): while time plays, it is read again at
    // most half the time, so the world keeps its pace.
    if (took > SLOW_MS) await new Promise((r) => setTimeout(r, took));
  }), [store]);
  useEffect(() => {
    fetchKey();
  }, [fetchKey, snapshot, key, db]);
  return followed && followed.key === key && followed.db === db ? followed : null;
}
