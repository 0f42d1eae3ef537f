// The AOF panel's view model: pure functions of an AofView, no React.
import type { AofSeries, AofView, CrashRecord, LaneJob, RecoveryReport } from '../../../../wasm/aofprotocol';
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
  if (c.mode === 'process') return explainProcess(c);
  if (c.fsync === 'always') return 'aof.explain.always';
  if (c.fsync === 'no') return 'aof.explain.no';
  return 'aof.explain.everysec';
}

/** kill -9 keeps the page cache and loses aof_buf. Whether aof_buf held
 *  acknowledged writes depends on the policy and on what happened: the
 *  stream's offsets at the crash say it (acknowledged beyond written). An
 *  armed crash has no offsets; its text then says what the policy allows. */
function explainProcess(c: CrashRecord): MessageKey {
  if (c.fsync === 'always') return 'aof.explain.process.always';
  if (c.aof && c.aof.acked > c.aof.written) {
    return c.fsync === 'everysec' ? 'aof.explain.process.lostEverysec' : 'aof.explain.process.lostWriteError';
  }
  return c.fsync === 'no' ? 'aof.explain.process.no' : 'aof.explain.process.everysec';
}

/** The span of time the offsets chart covers unzoomed: from the first
 *  sample of the series to now. */
export function offsetsSpan(v: AofView): TimeWindow {
  const t0 = v.series.t.length ? v.series.t[0] : v.now;
  return { t0, t1: Math.max(v.now, t0 + 1) };
}

/** The offsets as the chart's table: the sample times, then one column
 *  per stage (null where the engine had none); the series are steps, so
 *  the last values are repeated at now, where the chart ends. */
export function offsetsTable(v: AofView): [number[], ...(number | null)[][]] {
  const s = v.series;
  const xs = [...s.t];
  const cols = STAGES.map((k) => s[k].map((y) => (Number.isNaN(y) ? null : y)));
  const last = xs.length ? xs[xs.length - 1] : -Infinity;
  if (xs.length && v.now > last) {
    xs.push(v.now);
    for (const c of cols) c.push(c[c.length - 1]);
  }
  return [xs, ...cols];
}

/** The offsets axis over a window: the offsets in force in it, with a
 *  margin of a tenth of their spread (a byte at least) above and below,
 *  so that lines at the edges stay in sight and equal offsets sit in the
 *  middle instead of on the frame. */
export function offsetsYRange(s: AofSeries, w: TimeWindow): [number, number] {
  const { lo, hi } = seriesRange(s, w.t0, w.t1);
  const pad = Math.max(1, (hi - lo) * 0.1);
  return [Math.max(0, lo - pad), hi + pad];
}

/** The smallest and largest stream offsets the chart shows between t0
 *  and t1 (the values in force at t0 included: the series are steps). */
export function seriesRange(s: AofSeries, t0 = -Infinity, t1 = Infinity): { lo: number; hi: number } {
  let lo = Infinity;
  let hi = 0;
  let first = 0;
  while (first + 1 < s.t.length && s.t[first + 1] <= t0) first++;
  for (const k of STAGES) {
    const ys = s[k];
    for (let i = first; i < ys.length && s.t[i] <= t1; i++) {
      const v = ys[i];
      if (Number.isNaN(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return lo === Infinity ? { lo: 0, hi: 1 } : { lo, hi: Math.max(hi, lo + 1) };
}

/** The times in [t0, t1] at which a stepped series rises: for the
 *  written offset, the flushes of aof_buf (write(2) calls, or several of
 *  them where the series is coarse); for durable, the fsyncs. */
export function risesIn(xs: ArrayLike<number>, ys: ArrayLike<number | null>, t0 = -Infinity, t1 = Infinity): number[] {
  const out: number[] = [];
  let prev: number | null = null;
  for (let i = 0; i < xs.length; i++) {
    const y = ys[i];
    if (y === null || Number.isNaN(y)) continue;
    if (prev !== null && y > prev && xs[i] >= t0 && xs[i] <= t1) out.push(xs[i]);
    prev = y;
  }
  return out;
}

/** Positions (pixels, in order) thinned so that no two kept ones are
 *  closer than `gap`: a dense run of marks becomes an even comb, as one
 *  pixel can show one mark. */
export function thinned(px: readonly number[], gap: number): number[] {
  const out: number[] = [];
  for (const x of px) if (!out.length || x - out[out.length - 1] >= gap) out.push(x);
  return out;
}

/** A window of virtual time, [t0, t1]. */
export interface TimeWindow {
  t0: number;
  t1: number;
}

/** The narrowest window the chart zooms to (100 µs of virtual time). */
export const MIN_SPAN_NS = 1e5;

/** The window the chart shows: all of the series (following now) unless
 *  zoomed, and a zoomed window is kept inside the series' span. */
export function visibleWindow(full: TimeWindow, zoom: TimeWindow | null): TimeWindow {
  if (!zoom) return full;
  const span = Math.min(full.t1 - full.t0, Math.max(MIN_SPAN_NS, zoom.t1 - zoom.t0));
  const t0 = Math.min(Math.max(zoom.t0, full.t0), full.t1 - span);
  return { t0, t1: t0 + span };
}

/** Zooms by `factor` (< 1 in, > 1 out) around the point at fraction `at`
 *  of the window's width; null once it covers the whole series again. */
export function zoomBy(full: TimeWindow, zoom: TimeWindow | null, factor: number, at = 0.5): TimeWindow | null {
  const w = visibleWindow(full, zoom);
  const pivot = w.t0 + (w.t1 - w.t0) * Math.min(1, Math.max(0, at));
  const span = Math.max(MIN_SPAN_NS, (w.t1 - w.t0) * factor);
  if (span >= full.t1 - full.t0) return null;
  const t0 = pivot - (pivot - w.t0) * (span / (w.t1 - w.t0));
  return visibleWindow(full, { t0, t1: t0 + span });
}

/** Moves a zoomed window by `frac` of its width (negative: earlier). */
export function panBy(full: TimeWindow, zoom: TimeWindow | null, frac: number): TimeWindow | null {
  if (!zoom) return null;
  const w = visibleWindow(full, zoom);
  const d = (w.t1 - w.t0) * frac;
  return visibleWindow(full, { t0: w.t0 + d, t1: w.t1 + d });
}

export function jobsOnLane(jobs: readonly LaneJob[], lane: number): LaneJob[] {
  return jobs.filter((j) => j.lane === lane);
}

/** The report's summary sentence. The keys that lost their acknowledged
 *  value are either gone from the restarted server or hold an older value;
 *  the sentence says how many of each, so that its "lost" adds up with the
 *  table's rows. */
export function summaryOf(r: RecoveryReport): { key: MessageKey; params: Record<string, number> } {
  const params = { kept: r.kept, total: r.keys, lost: r.lost, dbsize: r.dbsize, gone: r.lost - r.older, older: r.older };
  if (!r.keys) return { key: 'aof.report.summaryNone', params };
  if (!r.lost) return { key: 'aof.report.summary', params };
  if (!r.older) return { key: 'aof.report.summaryGone', params };
  if (r.older === r.lost) return { key: 'aof.report.summaryOlder', params };
  return { key: 'aof.report.summaryMixed', params };
}
