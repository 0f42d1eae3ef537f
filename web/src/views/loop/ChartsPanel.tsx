import { memo, useCallback, useMemo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import {
  SERIES_COLORS, drawLatencyHistogram, drawLatencyOverTime, drawThroughput, type Series,
} from '../../render/charts';
import { useLessonTarget } from '../lesson/hooks';
import { useLoop, useLoopApi } from './hooks';
import { useCanvas } from '../useCanvas';

export const ChartsPanel = memo(function ChartsPanel() {
  const target = useLessonTarget('loop.charts');
  return (
    <div className="loop-charts" {...target}>
      <ThroughputChart />
      <LatencyCharts />
    </div>
  );
});

const ThroughputChart = memo(function ThroughputChart() {
  const t = useT();
  const loop = useLoopApi();
  const result = useLoop((s) => s.throughput);
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const draw = useCallback((ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => {
    drawThroughput(ctx, w, h, dpr, { result, now, title: t('charts.throughput'), unit: t('charts.opsUnit') });
  }, [result, now, t]);
  const onWidth = useCallback((w: number) => loop.setChartWidth(Math.max(1, Math.floor(w / 3))), [loop]);
  const canvas = useCanvas(draw, onWidth);
  return <canvas ref={canvas} className="chart-canvas" data-testid="loop.throughput" role="img" aria-label={t('charts.throughput')} />;
});

/** Latency samples of every workload, colored as in the workload list. */
function useSeries(): (Series & { p50: number; p99: number; max: number })[] {
  const t = useT();
  const samples = useLoop((s) => s.samples);
  const workloads = useAppState((s) => s.snapshot?.workloads ?? null);
  return useMemo(() => (workloads ?? []).flatMap((w, i) => {
    const sm = samples[w.id];
    if (!sm || !sm.times.length) return [];
    return [{
      id: w.id, color: SERIES_COLORS[i % SERIES_COLORS.length],
      label: t('loop.workload', { preset: t(`wl.preset.${w.preset}`), id: w.id }),
      times: sm.times, latencies: sm.latencies, p50: w.stats.latP50Ns, p99: w.stats.latP99Ns, max: w.stats.latMaxNs,
    }];
  }), [workloads, samples, t]);
}

const LatencyCharts = memo(function LatencyCharts() {
  const t = useT();
  const series = useSeries();
  const now = useAppState((s) => s.snapshot?.now ?? 0);
  const end = useAppState((s) => s.snapshot?.history.end ?? 0);
  const drawTime = useCallback((ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => {
    drawLatencyOverTime(ctx, w, h, dpr, { series, t0: 0, t1: Math.max(end, now, 1e6), now, title: t('charts.latency') });
  }, [series, now, end, t]);
  const drawHist = useCallback((ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => {
    drawLatencyHistogram(ctx, w, h, dpr, { series, title: t('charts.histogram'), share: t('charts.share') });
  }, [series, t]);
  const time = useCanvas(drawTime);
  const hist = useCanvas(drawHist);
  return (
    <>
      <canvas ref={time} className="chart-canvas" data-testid="loop.latency" role="img" aria-label={t('charts.latency')}
        data-series={series.length} />
      <canvas ref={hist} className="chart-canvas" data-testid="loop.histogram" role="img" aria-label={t('charts.histogram')} />
      {series.length ? null : <p className="panel-hint">{t('charts.none')}</p>}
    </>
  );
});
