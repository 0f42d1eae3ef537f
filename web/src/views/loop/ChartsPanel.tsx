import { memo, useCallback, useMemo, useState } from 'react';
import uPlot from 'uplot';
import { useAppState, useT } from '../../app/hooks';
import {
  SERIES_COLORS, formatRate, histogramTable, latencyDecades, latencyTable, latencyTicks, logTicks, niceMax,
  sampleSpan, throughputTable, timeTicks, TIME_INCRS, type Samples,
} from '../../render/charts';
import { formatDuration } from '../../render/timeaxis';
import { useLessonTarget } from '../lesson/hooks';
import { UPlotChart, axisOf, type ChartSpec, type Mark, type Range } from '../UPlotChart';
import { useLoop, useLoopApi } from './hooks';
import { programName } from './programName';

/** Plot height of each chart, CSS pixels at the normal type size. */
const HEIGHT = 150;
const NOW_MARK = { color: '#e2e8f0', dash: [4, 4] };
const EXEC = '#fbbf24';

export const ChartsPanel = memo(function ChartsPanel() {
  const t = useT();
  const target = useLessonTarget('loop.charts');
  return (
    <div className="loop-charts" {...target}>
      <ThroughputChart />
      <LatencyCharts />
      <p className="panel-hint">{t('charts.zoomHint')}</p>
    </div>
  );
});

/** A value of the cursor's readout, or a dash where there is none. */
const show = (f: (v: number) => string) => (_: uPlot, v: number | null) => (v === null || v === undefined ? '–' : f(v));

const ThroughputChart = memo(function ThroughputChart() {
  const t = useT();
  const loop = useLoopApi();
  const result = useLoop((s) => s.throughput);
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const [zoom, setZoom] = useState<Range | null>(null);
  const data = useMemo(() => throughputTable(result), [result]);
  const unit = t('charts.opsUnit');
  const spec = useMemo<ChartSpec>(() => (th) => ({
    legend: { live: true },
    cursor: { points: { size: 7 * th.scale } },
    series: [
      { label: t('charts.time'), value: show((v) => formatDuration(v)) },
      { label: t('charts.throughput'), stroke: EXEC, fill: 'rgba(251, 191, 36, 0.22)', width: 2 * th.scale,
        points: { show: false }, value: show((v) => `${formatRate(v)} ${unit}`) },
    ],
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, niceMax((max ?? 0) * 1.05)] } },
    axes: [
      axisOf(th, { space: 90 * th.scale, incrs: TIME_INCRS, values: (_u, s) => timeTicks(s), label: t('charts.virtualTime') }),
      axisOf(th, { space: 30 * th.scale, values: (_u, s) => s.map(formatRate), label: unit }),
    ],
  }), [t, unit]);
  const x: Range = zoom ?? (result ? [result.t0, result.t1] : [0, 1e6]);
  const marks = useMemo<Mark[]>(() => [{ x: now, ...NOW_MARK }], [now]);
  // A column of about 6 CSS pixels: narrower ones hold a server iteration
  // or none, and the rate would flicker between zero and double.
  const onWidth = useCallback((w: number) => loop.setChartWidth(Math.max(1, Math.floor(w / 6))), [loop]);
  return <UPlotChart spec={spec} data={data as uPlot.AlignedData} x={x} marks={marks} onZoom={setZoom} height={HEIGHT}
    title={t('charts.throughput')} testId="loop.throughput" attrs={{ zoomed: zoom ? 'yes' : 'no' }} onWidth={onWidth} />;
});

interface LatencySeries extends Samples {
  id: number;
  color: string;
  label: string;
  p50: number;
  p99: number;
}

/** Latency samples of every workload, colored as in the workload list,
 *  with the engine's percentiles. The samples' list is its own memo: the
 *  workloads' stats change with every snapshot, the samples only when the
 *  worker sends new ones, and only then is the charts' data rebuilt. */
function useSeries(): { series: LatencySeries[]; samples: Samples[] } {
  const t = useT();
  const all = useLoop((s) => s.samples);
  const workloads = useAppState((s) => s.snapshot?.workloads ?? null);
  const ids = (workloads ?? []).map((w) => w.id).join(',');
  const samples = useMemo(() => (ids ? ids.split(',').map(Number) : [])
    .flatMap((id) => (all[id]?.times.length ? [all[id]] : [])), [all, ids]);
  const series = useMemo(() => (workloads ?? []).flatMap((w, i) => {
    const sm = all[w.id];
    if (!sm || !sm.times.length) return [];
    return [{
      id: w.id, color: SERIES_COLORS[i % SERIES_COLORS.length],
      label: t('loop.workload', { preset: programName(t, w.preset, w.spec.command), id: w.id }),
      times: sm.times, latencies: sm.latencies, p50: w.stats.latP50Ns, p99: w.stats.latP99Ns,
    }];
  }), [workloads, all, t]);
  return { series, samples };
}

/** What tells two lists of series apart for the charts' specs: their
 *  names and colours (not their samples, which setData updates). */
const identity = (series: readonly LatencySeries[]) => series.map((s) => `${s.color} ${s.label}`).join('\n');

const LatencyCharts = memo(function LatencyCharts() {
  const t = useT();
  const { series, samples } = useSeries();
  return (
    <>
      <LatencyOverTime series={series} samples={samples} />
      <LatencyHistogram series={series} samples={samples} />
      {series.length ? null : <p className="panel-hint">{t('charts.none')}</p>}
    </>
  );
});

/** For each series, the sample nearest the cursor's time: series have
 *  values only at their own samples' times. */
function nearestSample(u: uPlot, si: number, closest: number): number | null {
  const ys = u.data[si];
  const xs = u.data[0];
  if (si === 0 || ys[closest] != null) return closest;
  const at = xs[closest];
  for (let d = 1; d < xs.length; d++) {
    const a = closest - d;
    const b = closest + d;
    const left = a >= 0 && ys[a] != null ? a : -1;
    const right = b < xs.length && ys[b] != null ? b : -1;
    if (left >= 0 && right >= 0) return at - xs[left] <= xs[right] - at ? left : right;
    if (left >= 0) return left;
    if (right >= 0) return right;
    if (a < 0 && b >= xs.length) break;
  }
  return null;
}

/** The largest of some values (0 when there is none). */
function maxOf(values: Iterable<number | null>): number {
  let m = 0;
  for (const v of values) if (v !== null && v > m) m = v;
  return m;
}

/** Every positive value of the series columns of u's data. */
function* seriesValues(u: uPlot): Generator<number | null> {
  for (let i = 1; i < u.data.length; i++) yield* u.data[i] as (number | null)[];
}

interface LatencyProps {
  series: LatencySeries[];
  /** The same samples, a new list only when new samples came. */
  samples: Samples[];
}

const LatencyOverTime = memo(function LatencyOverTime({ series, samples }: LatencyProps) {
  const t = useT();
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const [zoom, setZoom] = useState<Range | null>(null);
  // The spec follows the series' names and colours (key), not their
  // samples: new samples are new data, set without a rebuild.
  const key = identity(series);
  const spec = useMemo<ChartSpec>(() => (th) => ({
    legend: { live: true },
    cursor: { dataIdx: nearestSample, points: { size: 8 * th.scale } },
    series: [
      { label: t('charts.time'), value: show((v) => formatDuration(v)) },
      ...series.map((s) => ({
        label: s.label, stroke: s.color, fill: s.color, paths: () => null,
        points: { show: true, size: 4 * th.scale, fill: s.color, stroke: s.color, width: 0 },
        value: show((v) => formatDuration(v)),
      })),
    ],
    // Latency from 0, on a linear axis: the height of a dot is its
    // latency, and 0 is in sight to compare with.
    scales: {
      x: { time: false },
      y: { range: (u) => [0, niceMax(maxOf(seriesValues(u)) * 1.05)] },
    },
    axes: [
      axisOf(th, { space: 90 * th.scale, incrs: TIME_INCRS, values: (_u, s) => timeTicks(s), label: t('charts.virtualTime') }),
      axisOf(th, { space: 28 * th.scale, incrs: TIME_INCRS, values: (_u, s) => timeTicks(s), label: t('charts.latencyAxis') }),
    ],
  }), [t, key]);
  const data = useMemo(() => latencyTable(samples), [samples]);
  // The samples the engine keeps are the recent ones: the axis spans them,
  // from the first up to the world's clock.
  const span = useMemo(() => sampleSpan(samples), [samples]);
  const x: Range = zoom ?? (span ? [span[0], Math.max(span[1], now, span[0] + 1)] : [0, Math.max(now, 1)]);
  const marks = useMemo<Mark[]>(() => [{ x: now, ...NOW_MARK }], [now]);
  return <UPlotChart spec={spec} data={data as uPlot.AlignedData} x={x} marks={marks} onZoom={setZoom} height={HEIGHT}
    title={t('charts.latency')} testId="loop.latency"
    attrs={{ series: series.length, first: span ? span[0] : '', zoomed: zoom ? 'yes' : 'no' }} />;
});

const LatencyHistogram = memo(function LatencyHistogram({ series, samples }: LatencyProps) {
  const t = useT();
  const [zoom, setZoom] = useState<Range | null>(null);
  const key = identity(series);
  const [lo, hi] = useMemo(() => latencyDecades(samples.flatMap((s) => [...s.latencies])), [samples]);
  const data = useMemo(() => histogramTable(samples, lo, hi), [samples, lo, hi]);
  const spec = useMemo<ChartSpec>(() => (th) => ({
    legend: { live: true },
    cursor: { points: { size: 7 * th.scale } },
    series: [
      { label: t('charts.latencyAxis'), value: show((v) => `${formatDuration(v, 2)} – ${formatDuration(v * 2 ** 0.25, 2)}`) },
      ...series.map((s) => ({
        label: s.label, stroke: s.color, fill: `${s.color}44`, width: 2 * th.scale,
        paths: uPlot.paths.stepped!({ align: 1 }), points: { show: false },
        value: show((v) => `${Number((v * 100).toPrecision(3))} %`),
      })),
    ],
    scales: {
      x: { time: false, distr: 3, log: 10 },
      y: { range: (_u, _min, max) => [0, niceMax(Math.max(0.01, max ?? 0))] },
    },
    axes: [
      axisOf(th, {
        splits: (u) => logTicks(u.data[0][0] ?? 1e3, u.data[0][u.data[0].length - 1] ?? 1e9), filter: (_u, s) => s,
        values: (_u, s) => latencyTicks(s), label: t('charts.latencyAxis'),
      }),
      axisOf(th, { space: 30 * th.scale, values: (_u, s) => s.map((v) => `${Math.round(v * 100)} %`), label: t('charts.shareAxis') }),
    ],
  }), [t, key]);
  const marks = useMemo<Mark[]>(() => series.flatMap((s) => [
    ...(s.p50 > 0 ? [{ x: s.p50, color: s.color, dash: [2, 3] }] : []),
    ...(s.p99 > 0 ? [{ x: s.p99, color: s.color, dash: [7, 4] }] : []),
  ]), [series]);
  return <UPlotChart spec={spec} data={data as uPlot.AlignedData} x={zoom ?? [lo, hi]} marks={marks} onZoom={setZoom}
    height={HEIGHT} title={t('charts.histogram')} note={t('charts.share')} testId="loop.histogram"
    attrs={{ zoomed: zoom ? 'yes' : 'no' }} />;
});
