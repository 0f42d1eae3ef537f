import { memo, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { formatBytes } from '../../model/format';
import { formatDuration } from '../../render/timeaxis';
import { TIME_INCRS, timeTicks } from '../../render/charts';
import { UPlotChart, axisOf, type ChartSpec, type Mark, type Range } from '../UPlotChart';
import {
  STAGES, STAGE_COLORS, offsetsSpan, offsetsTable, offsetsYRange, panBy, visibleWindow, zoomBy, type TimeWindow,
} from './model';
import { MinusIcon, PlusIcon } from '../../shell/icons';

const STEP = 0.5;
const PAN = 0.25;

const FLUSH = 'rgba(244, 114, 182, 0.35)';

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
      </div>
      <div ref={box} className="aof-chart-box" tabIndex={0} onKeyDown={onKey} data-testid="aof.chart.box"
        role="application" aria-label={t('aof.chart.keys')} aria-describedby={windowId} title={t('aof.chart.keys')}>
        <Offsets view={view} shown={w} onZoom={onZoom} />
      </div>
    </div>
  );
});

/** The chart itself: the four offsets as steps over virtual time, the
 *  beforeSleep flushes as faint lines. */
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
    axes: [
      axisOf(th, { space: 90 * th.scale, incrs: TIME_INCRS, values: (_u, s) => timeTicks(s), label: t('charts.virtualTime') }),
      axisOf(th, { space: 28 * th.scale, values: (_u, s) => s.map(formatBytes), label: t('aof.chart.offsetAxis') }),
    ],
  }), [t]);
  const data = useMemo(() => offsetsTable(view), [view]);
  const marks = useMemo<Mark[]>(() => view.flushes.map((f) => ({ x: f, color: FLUSH })), [view.flushes]);
  return <UPlotChart spec={spec} data={data as uPlot.AlignedData} x={[shown.t0, shown.t1]} marks={marks}
    onZoom={onZoom} height={150} label={t('aof.chart')} testId="aof.chart" />;
});
