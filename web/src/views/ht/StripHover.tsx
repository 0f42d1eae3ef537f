import { memo, useEffect, useState } from 'react';
import type { TableSnapshot } from '../../../../wasm/protocol';
import { useStoreApi, useT } from '../../app/hooks';
import { inspectKey } from '../../app/pane';
import { useCurrentLesson } from '../lesson/hooks';

export interface HoverPoint {
  /** Position over the canvas, 0..1. */
  fx: number;
  /** Pixel offset inside the strip's box, for placing the tip. */
  x: number;
}

const KEYS_SHOWN = 8;

/** What is under the pointer: one bucket and its keys, or a bin's totals.
 *  Pinned (by a click), it stays, and each key opens in the key
 *  inspector. */
export const StripHover = memo(function StripHover({ index, table, rehashidx, point, pinned = false, onUnpin }: {
  index: 0 | 1;
  table: TableSnapshot;
  rehashidx: number;
  point: HoverPoint;
  pinned?: boolean;
  onUnpin?: () => void;
}) {
  const t = useT();
  const store = useStoreApi();
  // A lesson shows the panels it names: a key opens in the inspector
  // only where the inspector can show.
  const lesson = useCurrentLesson();
  const canInspect = !lesson || lesson.views.includes('inspect');
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
  const clickable = pinned && canInspect;
  return (
    <div className={`strip-tip ${pinned ? 'pinned' : ''}`}
      // Centred on the pointer in the middle of the strip, it leans right
      // at the left end and left at the right end, so it stays on screen.
      style={{ left: point.x, transform: `translateX(-${Math.round(point.fx * 100)}%)` }} role={pinned ? 'dialog' : 'tooltip'}
      aria-label={pinned ? head : undefined} data-testid={pinned ? 'ht.pinned' : undefined}
      onKeyDown={pinned ? (e) => e.key === 'Escape' && onUnpin?.() : undefined}>
      <div className="strip-tip-head">
        <span>{head}</span>
        {pinned ? (
          <button type="button" className="btn small ghost" data-testid="ht.pinned.close" onClick={onUnpin}>{t('ht.pin.close')}</button>
        ) : null}
      </div>
      {moved ? <div className="dim">{t('ht.hover.moved')}</div> : null}
      {keys && keys.length && clickable ? (
        <>
          <div className="dim">{t('ht.pin.pick')}</div>
          <ol className="strip-tip-keylist">
            {keys.slice(0, KEYS_SHOWN).map((k, i) => (
              <li key={i}>
                <button type="button" className="linkish" data-testid="ht.bucket.key" onClick={() => inspectKey(k)}>{k}</button>
              </li>
            ))}
            {keys.length > KEYS_SHOWN ? <li className="dim">{t('ht.pin.more', { n: keys.length - KEYS_SHOWN })}</li> : null}
          </ol>
        </>
      ) : null}
      {keys && keys.length && !clickable ? (
        <div className="strip-tip-keys">
          {keys.slice(0, KEYS_SHOWN).join(' → ')}
          {keys.length > KEYS_SHOWN ? ' …' : ''}
        </div>
      ) : null}
      {!pinned && single && n > 0 && canInspect ? <div className="dim">{t('ht.pin.hint')}</div> : null}
    </div>
  );
});
