// The Slabs pane's data: the view fetched from the worker whenever the
// world moves or the selection changes (one request at a time, the latest
// wins), and where the item being typed would land, asked of the engine.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { SlabsView } from '../../../../wasm/mcprotocol';
import { useAppState, useStoreApi } from '../../app/hooks';
import { latestOnly } from './latest';
import { useMounted } from '../useMounted';
import { getSelection, subscribeSelection, type SlabsSelection } from './selection';

/** Pages of the selected class drawn at once. */
export const PAGES_SHOWN = 12;

export function useSlabsSelection(): SlabsSelection {
  return useSyncExternalStore(subscribeSelection, getSelection);
}

export function useSlabsView(): SlabsView | null {
  const store = useStoreApi();
  const snapshot = useAppState((s) => s.snapshot);
  const { cls, from } = useSlabsSelection();
  const [view, setView] = useState<SlabsView | null>(null);
  const want = useRef({ cls, from });
  want.current = { cls, from };
  const alive = useMounted();
  const fetchView = useMemo(() => latestOnly(async () => {
    const w = want.current;
    const v = await store.slabs({ what: 'view', cls: w.cls, from: w.from, pages: PAGES_SHOWN });
    if (alive.current && v) setView(v);
  }), [store]);
  useEffect(() => {
    fetchView();
  }, [fetchView, snapshot, cls, from]);
  return view;
}

export interface Landing {
  cls: number;
  ntotal: number;
}

/** Where the typed item would land on the running node (null: nothing
 *  typed, or no node yet). */
export function useLanding(view: SlabsView | null): Landing | null {
  const store = useStoreApi();
  const { typed } = useSlabsSelection();
  const [landing, setLanding] = useState<Landing | null>(null);
  const running = view?.running ?? false;
  const options = view?.options;
  useEffect(() => {
    let live = true;
    if (!typed || !running) {
      setLanding(null);
      return;
    }
    void store.slabs({ what: 'itemClass', ...typed }).then((r) => {
      if (live) setLanding(r);
    });
    return () => {
      live = false;
    };
  }, [store, typed, running, options]);
  return landing;
}
