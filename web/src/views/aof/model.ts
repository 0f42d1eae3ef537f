// The AOF panel's view model: pure functions of an AofView, no React.
import type { AofSeries, AofView, LaneJob } from '../../../../wasm/aofprotocol';
import type { MessageKey } from '../../i18n';

export const STAGE_COLORS = {
  fed: '#a78bfa',
  written: '#38bdf8',
  acked: '#fbbf24',
  durable: '#4ade80',
  buf: '#f472b6',
} as const;

export type Stage = keyof typeof STAGE_COLORS;
export type OffsetStage = 'fed' | 'written' | 'acked' | 'durable';
export const STAGES: readonly OffsetStage[] = ['fed', 'written', 'acked', 'durable'];

export const THREAD_LANES = ['main', 'bio_close_file', 'bio_aof_fsync', 'bio_lazy_free'] as const;

/** The explanation of a crash's outcome, by the policy in force. */
export function explainKey(v: AofView): MessageKey | null {
  const c = v.report?.crash ?? v.crash;
  if (!c) return null;
  if (!c.appendonly) return 'aof.explain.noAof';
  if (c.mode === 'process') return 'aof.explain.process';
  if (c.fsync === 'always') return 'aof.explain.always';
  if (c.fsync === 'no') return 'aof.explain.no';
  return 'aof.explain.everysec';
}

/** Points of one series within [t0, t1], as canvas coordinates. */
export function polyline(series: AofSeries, key: Stage, t0: number, t1: number, w: number, h: number,
  max: number): [number, number][] {
  const xs = series.t;
  const ys = series[key];
  const out: [number, number][] = [];
  const span = Math.max(1, t1 - t0);
  let prev: number | null = null;
  for (let i = 0; i < xs.length; i++) {
    const y = ys[i];
    if (Number.isNaN(y)) continue;
    const x = ((xs[i] - t0) / span) * w;
    const py = h - (y / Math.max(1, max)) * h;
    if (prev !== null) out.push([x, prev]);
    out.push([x, py]);
    prev = py;
  }
  if (prev !== null) out.push([w, prev]);
  return out;
}

/** The smallest and largest stream offsets the chart shows. */
export function seriesRange(s: AofSeries): { lo: number; hi: number } {
  let lo = Infinity;
  let hi = 0;
  for (const k of STAGES) {
    for (const v of s[k]) {
      if (Number.isNaN(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return lo === Infinity ? { lo: 0, hi: 1 } : { lo, hi: Math.max(hi, lo + 1) };
}

export function jobsOnLane(jobs: readonly LaneJob[], lane: number): LaneJob[] {
  return jobs.filter((j) => j.lane === lane);
}
