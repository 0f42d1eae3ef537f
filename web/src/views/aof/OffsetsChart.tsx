import { memo, useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { formatDuration } from '../../render/timeaxis';
import { ViewCanvas } from './Canvas';
import { drawOffsets, offsetsSpan } from './draw';
import { panBy, visibleWindow, zoomBy, type TimeWindow } from './model';
import { MinusIcon, PlusIcon } from '../../shell/icons';

const STEP = 0.5;
const PAN = 0.25;

/** The offsets chart with a zoom in time: the wheel zooms around the
 *  pointer, the buttons and the keys (+ − 0 ← →) zoom, reset and pan.
 *  Zoomed, the window stays where it is while the world runs on. */
export const OffsetsChart = memo(function OffsetsChart({ view }: { view: AofView }) {
  const t = useT();
  const [zoom, setZoom] = useState<TimeWindow | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const full = offsetsSpan(view);
  const fullRef = useRef(full);
  fullRef.current = full;
  const draw = useCallback((ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number) =>
    drawOffsets(ctx, v, w, h, zoom), [zoom]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const at = r.width > 0 ? (e.clientX - r.left) / r.width : 0.5;
      setZoom((z) => zoomBy(fullRef.current, z, e.deltaY < 0 ? STEP : 1 / STEP, at));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);
  const zoomIn = () => setZoom((z) => zoomBy(full, z, STEP));
  const zoomOut = () => setZoom((z) => zoomBy(full, z, 1 / STEP));
  const windowId = useId();
  const onKey = (e: KeyboardEvent) => {
    const act: Record<string, () => void> = {
      '+': zoomIn, '=': zoomIn, '-': zoomOut, '0': () => setZoom(null),
      ArrowLeft: () => setZoom((z) => panBy(full, z, -PAN)), ArrowRight: () => setZoom((z) => panBy(full, z, PAN)),
    };
    const f = act[e.key];
    // Unzoomed there is nothing to pan, zoom out or reset: those keys go
    // on to the page (← → step the world).
    if (!f || (!zoom && e.key !== '+' && e.key !== '=')) return;
    e.preventDefault();
    f();
  };
  const w = visibleWindow(full, zoom);
  return (
    <div className="aof-chart">
      <div className="aof-chart-tools">
        <button type="button" className="btn small" data-testid="aof.chart.zoomIn" onClick={zoomIn} aria-label={t('aof.chart.zoomIn')}
          title={t('aof.chart.zoomIn')}><PlusIcon /></button>
        <button type="button" className="btn small" data-testid="aof.chart.zoomOut" onClick={zoomOut} disabled={!zoom}
          aria-label={t('aof.chart.zoomOut')} title={t('aof.chart.zoomOut')}><MinusIcon /></button>
        <button type="button" className="btn small" data-testid="aof.chart.reset" onClick={() => setZoom(null)} disabled={!zoom}>
          {t('aof.chart.reset')}
        </button>
        <span className="dim" id={windowId} data-testid="aof.chart.window" data-zoomed={zoom ? 'yes' : 'no'}>
          {t(zoom ? 'aof.chart.windowZoomed' : 'aof.chart.windowAll', {
            span: formatDuration(w.t1 - w.t0), from: formatDuration(w.t0), to: formatDuration(w.t1),
          })}
        </span>
      </div>
      <div ref={box} className="aof-chart-box" tabIndex={0} onKeyDown={onKey} data-testid="aof.chart.box"
        role="application" aria-label={t('aof.chart.keys')} aria-describedby={windowId} title={t('aof.chart.keys')}>
        <ViewCanvas view={view} draw={draw} height={140} testId="aof.chart" label={t('aof.chart')} />
      </div>
    </div>
  );
});
