import { memo, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { formatBytes } from '../../model/format';
import { formatDuration } from '../../render/timeaxis';
import { TIME_INCRS, timeTicks } from '../../render/charts';
import { UPlotChart, axisOf, type ChartSpec, type Range } from '../UPlotChart';
import {
  STAGES, STAGE_COLORS, offsetsSpan, offsetsTable, offsetsYRange, panBy, risesIn, thinned, visibleWindow, zoomBy,
  type TimeWindow,
} from './model';
import { MinusIcon, PlusIcon } from '../../shell/icons';

const STEP = 0.5;
const PAN = 0.25;

/** The flushes' ticks: their colour (aof_buf's), height, width, and the
 *  least distance between two, in CSS pixels at the normal type size. */
const FLUSH = STAGE_COLORS.buf;
const FLUSH_TICK = 7;
const FLUSH_WIDTH = 2;
const FLUSH_GAP = 4;
/** Columns of the chart's table (offsetsTable): x, then STAGES in order. */
const WRITTEN = 1 + STAGES.indexOf('written');
const DURABLE = 1 + STAGES.indexOf('durable');

/** Draws a tick along the bottom of the plot at each flush (a rise of
 *  the written offset) in sight, at most one per FLUSH_GAP pixels: a line
 *  across the plot per flush would cover it with thousands of them. */
function paintFlushes(u: uPlot, scale: number): void {
  const { left, top, width, height } = u.bbox;
  const dpr = window.devicePixelRatio || 1;
  const xs = u.data[0] as number[];
  const at = risesIn(xs, u.data[WRITTEN] as (number | null)[], u.scales.x.min, u.scales.x.max)
    .map((t) => Math.round(u.valToPos(t, 'x', true)));
  const h = Math.round(FLUSH_TICK * scale * dpr);
  const w = Math.max(1, Math.round(FLUSH_WIDTH * scale * dpr));
  const { ctx } = u;
  ctx.save();
  ctx.fillStyle = FLUSH;
  for (const x of thinned(at, FLUSH_GAP * scale * dpr)) {
    if (x >= left && x < left + width) ctx.fillRect(x, top + height - h, w, h);
  }
  ctx.restore();
}

/** The offsets chart with a zoom in time: the wheel zooms around the
 *  pointer, a drag across the plot zooms to what it covers, the buttons
 *  and the keys (+ − 0 ← →) zoom, reset and pan, a double click resets.
 *  Zoomed, the window stays where it is while the world runs on. The
 *  offsets axis follows the offsets in the window. */
export const OffsetsChart = memo(function OffsetsChart({ view }: { view: AofView }) {
  const t = useT();
  const [zoom, setZoom] = useState<TimeWindow | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const full = offsetsSpan(view);
  const fullRef = useRef(full);
  fullRef.current = full;
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
  const onZoom = (r: Range | null) => setZoom(r && r[1] - r[0] < full.t1 - full.t0
    ? visibleWindow(full, { t0: r[0], t1: r[1] }) : null);
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
        <span className="dim aof-chart-flushes"><span className="aof-flush-tick" aria-hidden="true" />{t('aof.chart.flushes')}</span>
      </div>
      <div ref={box} className="aof-chart-box" tabIndex={0} onKeyDown={onKey} data-testid="aof.chart.box"
        role="application" aria-label={t('aof.chart.keys')} aria-describedby={windowId} title={t('aof.chart.keys')}>
        <Offsets view={view} shown={w} onZoom={onZoom} />
      </div>
    </div>
  );
});

/** The chart itself: the four offsets as steps over virtual time, the
 *  flushes of aof_buf as ticks along the time axis. */
const Offsets = memo(function Offsets({ view, shown, onZoom }: { view: AofView; shown: TimeWindow;
  onZoom: (r: Range | null) => void }) {
  const t = useT();
  // The offsets axis is ranged over the window shown and the series held
  // (uPlot asks before it has set the new window on its own scale).
  const latest = useRef({ series: view.series, shown });
  latest.current = { series: view.series, shown };
  const spec = useMemo<ChartSpec>(() => (th) => ({
    legend: { live: true },
    cursor: { points: { size: 7 * th.scale } },
    series: [
      { label: t('charts.time'), value: (_u, v) => (v == null ? '–' : formatDuration(v)) },
      ...STAGES.map((k, i) => ({
        label: t(`aof.stage.${k}`), stroke: STAGE_COLORS[k], width: (2.5 - i * 0.4) * th.scale,
        paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false },
        value: (_u: uPlot, v: number | null) => (v == null ? '–' : formatBytes(v)),
      })),
    ],
    scales: {
      x: { time: false },
      y: { range: () => offsetsYRange(latest.current.series, latest.current.shown) },
    },
    hooks: { draw: [(u: uPlot) => paintFlushes(u, th.scale)] },
    axes: [
      axisOf(th, { space: 90 * th.scale, incrs: TIME_INCRS, values: (_u, s) => timeTicks(s), label: t('charts.virtualTime') }),
      axisOf(th, { space: 28 * th.scale, values: (_u, s) => s.map(formatBytes), label: t('aof.chart.offsetAxis') }),
    ],
  }), [t]);
  const data = useMemo(() => offsetsTable(view), [view]);
  // The fsyncs in sight, each a step of durable (for the page's tests).
  const fsyncs = risesIn(data[0], data[DURABLE], shown.t0, shown.t1).length;
  return <UPlotChart spec={spec} data={data as uPlot.AlignedData} x={[shown.t0, shown.t1]}
    onZoom={onZoom} height={150} label={t('aof.chart')} testId="aof.chart" attrs={{ fsyncs }} />;
});
