// Fetches the AOF view whenever the world moves (a new snapshot), one
// request at a time.
import { useEffect, useRef, useState } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useAppState, useStoreApi } from '../../app/hooks';

export function useAofView(): AofView | null {
  const store = useStoreApi();
  const snapshot = useAppState((s) => s.snapshot);
  const [view, setView] = useState<AofView | null>(null);
  const busy = useRef(false);
  const again = useRef(false);
  useEffect(() => {
    let live = true;
    const fetchView = async () => {
      if (busy.current) {
        again.current = true;
        return;
      }
      busy.current = true;
      const v = await store.aofView();
      busy.current = false;
      if (live && v) setView(v);
      if (again.current && live) {
        again.current = false;
        void fetchView();
      }
    };
    void fetchView();
    return () => {
      live = false;
    };
  }, [store, snapshot]);
  return view;
}
