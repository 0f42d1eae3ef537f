import { memo, useEffect, useState } from 'react';
import type { TableSnapshot } from '../../../../wasm/protocol';
import { useStoreApi, useT } from '../../app/hooks';

export interface HoverPoint {
  /** Position over the canvas, 0..1. */
  fx: number;
  /** Pixel offset inside the strip's box, for placing the tip. */
  x: number;
}

const KEYS_SHOWN = 8;

/** What is under the pointer: one bucket and its keys, or a bin's totals. */
export const StripHover = memo(function StripHover({ index, table, rehashidx, point }: {
  index: 0 | 1;
  table: TableSnapshot;
  rehashidx: number;
  point: HoverPoint;
}) {
  const t = useT();
  const store = useStoreApi();
  const bin = Math.min(table.bins - 1, Math.floor(point.fx * table.bins));
  const from = Math.floor((bin * table.size) / table.bins);
  const to = Math.max(from, Math.floor(((bin + 1) * table.size) / table.bins) - 1);
  const single = from === to;
  const [keys, setKeys] = useState<string[] | null>(null);
  const n = table.entries[bin];

  useEffect(() => {
    setKeys(null);
    if (!single || n === 0) return;
    let live = true;
    const timer = setTimeout(() => {
      void store.bucketKeys(index, from).then((k) => live && setKeys(k));
    }, 80);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [store, index, from, single, n, table.size]);

  const moved = index === 0 && rehashidx > to;
  const head = single
    ? t('ht.hover.bucket', { i: index, b: from, n })
    : t('ht.hover.range', { i: index, from, to, n, f: table.filled[bin] });
  return (
    <div className="strip-tip" style={{ left: point.x }} role="tooltip">
      <div>{head}</div>
      {moved ? <div className="dim">{t('ht.hover.moved')}</div> : null}
      {keys && keys.length ? (
        <div className="strip-tip-keys">
          {keys.slice(0, KEYS_SHOWN).join(' → ')}
          {keys.length > KEYS_SHOWN ? ' …' : ''}
        </div>
      ) : null}
    </div>
  );
});
