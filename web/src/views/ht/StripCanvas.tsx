import { memo, useCallback, useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { useAppState, useStoreApi, useT } from '../../app/hooks';
import { drawStrip, type StripModel } from '../../render/strip';
import { StripHover, type HoverPoint } from './StripHover';

/** The canvas of one table. It measures itself, asks the engine for one bin
 *  per device pixel, and redraws at most once per animation frame. */
export const StripCanvas = memo(function StripCanvas({ index }: { index: 0 | 1 }) {
  const t = useT();
  const store = useStoreApi();
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useRef(0);
  const table = useAppState((s) => s.snapshot?.dict?.tables[index] ?? null);
  const rehashidx = useAppState((s) => (index === 0 ? s.snapshot?.dict?.rehashidx ?? -1 : -1));
  const lastCall = useAppState((s) => s.snapshot?.scan?.recent.at(-1) ?? null);

  const model = useMemo<StripModel | null>(() => {
    if (!table) return null;
    const last = lastCall ? lastCall.buckets.filter((b) => b.size === table.size).map((b) => b.index) : [];
    return { table, rehashidx, lastBuckets: last };
  }, [table, rehashidx, lastCall]);

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(el.clientWidth * dpr));
      const h = Math.max(1, Math.round(el.clientHeight * dpr));
      if (el.width !== w || el.height !== h) {
        el.width = w;
        el.height = h;
      }
      store.setBins(w);
      el.dispatchEvent(new Event('redraw'));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [store]);

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const draw = () => {
      frame.current = 0;
      const ctx = el.getContext('2d');
      if (!ctx) return;
      if (!model) {
        ctx.clearRect(0, 0, el.width, el.height);
        return;
      }
      drawStrip(ctx, el.width, el.height, window.devicePixelRatio || 1, model);
    };
    const schedule = () => {
      if (!frame.current) frame.current = requestAnimationFrame(draw);
    };
    schedule();
    el.addEventListener('redraw', schedule);
    return () => {
      el.removeEventListener('redraw', schedule);
      if (frame.current) cancelAnimationFrame(frame.current);
      frame.current = 0;
    };
  }, [model]);

  const [hover, setHover] = useState<HoverPoint | null>(null);
  const onMove = useCallback((e: PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - r.left;
    setHover({ fx: Math.max(0, Math.min(0.999999, x / r.width)), x });
  }, []);
  const onLeave = useCallback(() => setHover(null), []);

  const label = model ? t('ht.stripLabel', { i: index, size: model.table.size, used: model.table.used }) : t('ht.none');
  return (
    <div className="strip-box">
      <canvas ref={canvas} className="strip" data-testid={`ht.strip.${index}`} role="img" aria-label={label}
        onPointerMove={onMove} onPointerLeave={onLeave} />
      {hover && model ? <StripHover index={index} table={model.table} rehashidx={rehashidx} point={hover} /> : null}
    </div>
  );
});
