// The numbers behind the event-loop charts, as uPlot takes them: pure
// functions of the engine's data. The server's throughput over the whole
// history (commands per second, from the trace's per-column sums), batch
// latencies over time per client program (from the engine's latency
// samples, on one time axis), and their distribution in bins of a quarter
// octave, as the engine's own latency histogram has. No figure here is
// made up: an empty input gives an empty chart.
import {
  TIMELINE_BIN_FIELDS, TimelineBin as B, TimelineItem as K, type TimelineResult,
} from '../../../wasm/protocol';
import { formatDuration, tickLabel } from './timeaxis';

export const SERIES_COLORS = ['#38bdf8', '#f472b6', '#a3e635', '#fb923c', '#c084fc', '#2dd4bf', '#facc15', '#f87171'];

/** uPlot's table: x values, then one column per series (null: no value). */
export type Table = [number[], ...(number | null)[][]];

export interface Samples {
  times: Float64Array;
  latencies: Float64Array;
}

/** A count per second in short form: 950, 12.5k, 1.2M. */
export function formatRate(v: number): string {
  if (v >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Math.round(v));
}

/** The smallest of 1, 2, 2.5, 5 or 10 times a power of ten at or above v. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const s of [1, 2, 2.5, 5, 10]) if (s * p >= v * (1 - 1e-9)) return s * p;
  return 10 * p;
}

/** Steps between virtual-time ticks: 1, 2 or 5 times a power of ten ns
 *  (the steps tickLabel writes exactly; uPlot's own include 2.5). */
export const TIME_INCRS: number[] = [];
for (let p = 1; p <= 1e13; p *= 10) TIME_INCRS.push(p, 2 * p, 5 * p);

/** Labels of virtual-time ticks, each exact to the ticks' step. */
export function timeTicks(splits: number[]): string[] {
  const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : Math.abs(splits[0] ?? 1) || 1;
  return splits.map((t) => tickLabel(t, step));
}

/** Commands per second of the server in each column of a timeline
 *  window, x the middle of each column: from the trace's per-column sums
 *  (bins), or from its command runs (items, where the window holds few
 *  enough to send each), each counted in the column where it began. */
export function throughputTable(r: TimelineResult | null): Table {
  if (!r || r.px < 1) return [[], []];
  const colNs = (r.t1 - r.t0) / r.px;
  const counts = new Array<number>(r.px).fill(0);
  if (r.mode === 'bins') {
    const lane = r.bins.find((l) => l.node === 0);
    if (!lane) return [[], []];
    for (let c = 0; c < r.px; c++) counts[c] = lane.data[c * TIMELINE_BIN_FIELDS + B.CMDS];
  } else {
    const lane = r.items.find((l) => l.node === 0);
    if (!lane) return [[], []];
    for (let i = 0; i < lane.count; i++) {
      if (lane.kind[i] !== K.EXEC) continue;
      const c = Math.floor((lane.t0[i] - r.t0) / colNs);
      if (c >= 0 && c < r.px) counts[c] += lane.n[i];
    }
  }
  const xs = counts.map((_, c) => r.t0 + (c + 0.5) * colNs);
  return [xs, counts.map((n) => (n / colNs) * 1e9)];
}

/** Every series' samples on one time axis, in time order: a series has
 *  a value only at its own samples' times. */
export function latencyTable(series: readonly Samples[]): Table {
  const all: [number, number, number][] = [];
  series.forEach((s, k) => {
    for (let i = 0; i < s.times.length; i++) all.push([s.times[i], k, s.latencies[i]]);
  });
  all.sort((a, b) => a[0] - b[0]);
  const xs: number[] = [];
  const cols: (number | null)[][] = series.map(() => []);
  for (const [t, k, l] of all) {
    if (!xs.length || xs[xs.length - 1] !== t || cols[k][xs.length - 1] !== null) {
      xs.push(t);
      for (const c of cols) c.push(null);
    }
    cols[k][xs.length - 1] = l;
  }
  return [xs, ...cols];
}

/** The times of the first and the last sample of any series (null: none). */
export function sampleSpan(series: readonly Samples[]): [number, number] | null {
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const s of series) {
    if (!s.times.length) continue;
    t0 = Math.min(t0, s.times[0]);
    t1 = Math.max(t1, s.times[s.times.length - 1]);
  }
  return t0 <= t1 ? [t0, t1] : null;
}

/** The whole decades holding every positive latency of the series, at
 *  least one decade (1 µs to 1 s when there is none). */
export function latencyDecades(values: Iterable<number | null>): [number, number] {
  let lo = Infinity;
  let hi = 0;
  for (const l of values) {
    if (l === null || !(l > 0)) continue;
    lo = Math.min(lo, l);
    hi = Math.max(hi, l);
  }
  if (!(hi > 0)) return [1e3, 1e9];
  const a = 10 ** Math.floor(Math.log10(lo));
  const z = 10 ** Math.ceil(Math.log10(hi * 1.0001));
  return [a, Math.max(z, a * 10)];
}

/** Ticks of a logarithmic latency axis from lo to hi: the decades, and
 *  2 and 5 times them when there are few decades to label. */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  const few = Math.log10(hi / lo) < 3;
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    for (const m of few ? [1, 2, 5] : [1]) if (d * m <= hi * 1.0001) out.push(d * m);
  }
  return out;
}

export function latencyTicks(splits: (number | null)[]): string[] {
  return splits.map((v) => (v === null ? '' : formatDuration(v, 2)));
}

/** Four bins per octave, as the engine's own latency histogram has. */
export const PER_OCTAVE = 4;

/** The share of each series' samples in bins of a quarter octave from lo
 *  to hi: x the bins' lower edges and, last, the top edge (which repeats
 *  the last share, for a stepped line to end on). */
export function histogramTable(series: readonly Samples[], lo: number, hi: number): Table {
  const bins = Math.max(1, Math.ceil(Math.log2(hi / lo) * PER_OCTAVE));
  const xs: number[] = [];
  for (let k = 0; k <= bins; k++) xs.push(lo * 2 ** (k / PER_OCTAVE));
  const cols = series.map((s) => {
    const counts = new Array<number>(bins + 1).fill(0);
    for (const l of s.latencies) {
      const k = Math.floor(Math.log2(Math.max(l, lo) / lo) * PER_OCTAVE);
      counts[Math.min(bins - 1, Math.max(0, k))]++;
    }
    counts[bins] = counts[bins - 1];
    const n = Math.max(1, s.latencies.length);
    return counts.map((c) => c / n);
  });
  return [xs, ...cols];
}
