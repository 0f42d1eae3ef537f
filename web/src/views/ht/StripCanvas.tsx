import { memo, useCallback, useMemo, useState, type MouseEvent, type PointerEvent } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { drawStrip, type StripModel } from '../../render/strip';
import { StripHover, type HoverPoint } from './StripHover';
import { useCanvas, type Draw } from '../useCanvas';

function pointOf(e: PointerEvent<HTMLCanvasElement> | MouseEvent<HTMLCanvasElement>): HoverPoint {
  const r = e.currentTarget.getBoundingClientRect();
  const x = e.clientX - r.left;
  return { fx: Math.max(0, Math.min(0.999999, x / r.width)), x };
}

/** The canvas of one table. It measures itself, asks the engine for one bin
 *  per device pixel, and redraws at most once per animation frame. */
export const StripCanvas = memo(function StripCanvas({ index }: { index: 0 | 1 }) {
  const t = useT();
  const store = useStoreApi();
  const table = useAppState((s) => s.snapshot?.dict?.tables[index] ?? null);
  const rehashidx = useAppState((s) => (index === 0 ? s.snapshot?.dict?.rehashidx ?? -1 : -1));
  const lastCall = useAppState((s) => s.snapshot?.scan?.recent.at(-1) ?? null);

  const model = useMemo<StripModel | null>(() => {
    if (!table) return null;
    const last = lastCall ? lastCall.buckets.filter((b) => b.size === table.size).map((b) => b.index) : [];
    return { table, rehashidx, lastBuckets: last };
  }, [table, rehashidx, lastCall]);

  const draw = useCallback<Draw>((ctx, w, h, dpr) => {
    if (model) drawStrip(ctx, w, h, dpr, model);
    else ctx.clearRect(0, 0, w, h);
  }, [model]);
  const onWidth = useCallback((px: number) => store.setBins(px), [store]);
  const canvas = useCanvas(draw, onWidth);

  const [hover, setHover] = useState<HoverPoint | null>(null);
  // A click pins what is under the pointer: its keys can then be clicked.
  const [pinned, setPinned] = useState<HoverPoint | null>(null);
  const onMove = useCallback((e: PointerEvent<HTMLCanvasElement>) => setHover(pointOf(e)), []);
  const onLeave = useCallback(() => setHover(null), []);
  const onClick = useCallback((e: MouseEvent<HTMLCanvasElement>) => {
    const p = pointOf(e);
    setPinned((was) => (was && Math.abs(was.x - p.x) < 2 ? null : p));
  }, []);
  const onUnpin = useCallback(() => setPinned(null), []);
  const shown = pinned ?? hover;

  const label = model ? t('ht.stripLabel', { i: index, size: model.table.size, used: model.table.used }) : t('ht.none');
  return (
    <div className="strip-box">
      <canvas ref={canvas} className="strip" data-testid={`ht.strip.${index}`} role="img" aria-label={label}
        onPointerMove={onMove} onPointerLeave={onLeave} onClick={onClick} />
      {shown && model ? (
        <StripHover index={index} table={model.table} rehashidx={rehashidx} point={shown}
          pinned={pinned !== null} onUnpin={onUnpin} />
      ) : null}
    </div>
  );
});
