// Charts of the event-loop views, pure functions of their inputs:
// the server's throughput over the whole history (commands per second,
// from the trace's per-column sums), batch latencies over time and their
// distribution per client program (from the engine's latency samples).
import { TIMELINE_BIN_FIELDS, TimelineBin as B, type TimelineResult } from '../../../wasm/protocol';
import { formatDuration, tickLabel, ticks } from './timeaxis';
import { loopPalette } from './timeline';
import { canvasFont, canvasMono } from './fonts';

export const SERIES_COLORS = ['#38bdf8', '#f472b6', '#a3e635', '#fb923c', '#c084fc', '#2dd4bf', '#facc15', '#f87171'];

export interface Series {
  id: number;
  color: string;
  label: string;
  times: Float64Array;
  latencies: Float64Array;
}

interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

const font = (px: number, dpr: number, weight: 400 | 700 = 400) => canvasFont(px * dpr, weight);
const mono = (px: number, dpr: number) => canvasMono(px * dpr);

function frame(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, title: string, note = ''): Box {
  ctx.fillStyle = loopPalette.background;
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = loopPalette.text;
  ctx.font = font(13, dpr, 700);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillText(title, 10 * dpr, 6 * dpr);
  if (note) {
    const x = 10 * dpr + ctx.measureText(title).width + 12 * dpr;
    ctx.fillStyle = loopPalette.textDim;
    ctx.font = font(11, dpr);
    ctx.fillText(note, x, 8 * dpr, Math.max(0, w - x - 10 * dpr));
  }
  return { x0: 70 * dpr, x1: w - 12 * dpr, y0: 28 * dpr, y1: h - 24 * dpr };
}

/** A count per second in short form: 950, 12.5k, 1.2M. */
export function formatRate(v: number): string {
  if (v >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (v >= 1e3) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Math.round(v));
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const s of [1, 2, 2.5, 5, 10]) if (s * p >= v) return s * p;
  return 10 * p;
}

function timeAxis(ctx: CanvasRenderingContext2D, b: Box, t0: number, t1: number, dpr: number): (t: number) => number {
  const X = (t: number) => b.x0 + ((t - t0) / Math.max(1, t1 - t0)) * (b.x1 - b.x0);
  const { step, at } = ticks(t0, t1, Math.max(2, Math.floor((b.x1 - b.x0) / (95 * dpr))));
  ctx.font = mono(11, dpr);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of at) {
    const x = Math.round(X(t));
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(x, b.y0, 1, b.y1 - b.y0);
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(tickLabel(t, step), x, b.y1 + 5 * dpr);
  }
  return X;
}

export interface ThroughputModel {
  result: TimelineResult | null;
  now: number;
  title: string;
  unit: string;
}

export function drawThroughput(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: ThroughputModel): void {
  ctx.save();
  const b = frame(ctx, w, h, dpr, m.title, m.unit);
  const r = m.result;
  const lane = r?.bins.find((l) => l.node === 0);
  if (!r || !lane || r.mode !== 'bins') {
    ctx.restore();
    return;
  }
  const colNs = (r.t1 - r.t0) / r.px;
  const rate = new Float64Array(r.px);
  let peak = 0;
  for (let c = 0; c < r.px; c++) {
    rate[c] = (lane.data[c * TIMELINE_BIN_FIELDS + B.CMDS] / colNs) * 1e9;
    peak = Math.max(peak, rate[c]);
  }
  const top = niceMax(peak * 1.05);
  const Y = (v: number) => b.y1 - (v / top) * (b.y1 - b.y0);
  ctx.font = mono(11, dpr);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let k = 0; k <= 4; k++) {
    const v = (top * k) / 4;
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(b.x0, Math.round(Y(v)), b.x1 - b.x0, 1);
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(formatRate(v), b.x0 - 6 * dpr, Y(v));
  }
  const X = timeAxis(ctx, b, r.t0, r.t1, dpr);
  const colW = (b.x1 - b.x0) / r.px;
  ctx.beginPath();
  ctx.moveTo(b.x0, b.y1);
  for (let c = 0; c < r.px; c++) ctx.lineTo(b.x0 + (c + 0.5) * colW, Y(rate[c]));
  ctx.lineTo(b.x1, b.y1);
  ctx.closePath();
  ctx.fillStyle = 'rgba(251, 191, 36, 0.22)';
  ctx.fill();
  ctx.beginPath();
  for (let c = 0; c < r.px; c++) {
    const x = b.x0 + (c + 0.5) * colW;
    if (c === 0) ctx.moveTo(x, Y(rate[c]));
    else ctx.lineTo(x, Y(rate[c]));
  }
  ctx.strokeStyle = loopPalette.exec;
  ctx.lineWidth = 2 * dpr;
  ctx.stroke();
  nowLine(ctx, X(m.now), b, dpr);
  ctx.restore();
}

/** The world's clock: a dashed line, so it is not taken for data. */
function nowLine(ctx: CanvasRenderingContext2D, x: number, b: Box, dpr: number): void {
  if (x < b.x0 || x > b.x1) return;
  ctx.strokeStyle = '#e2e8f0';
  ctx.lineWidth = 1.5 * dpr;
  ctx.setLineDash([4 * dpr, 4 * dpr]);
  ctx.beginPath();
  ctx.moveTo(Math.round(x), b.y0);
  ctx.lineTo(Math.round(x), b.y1);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** Latency axis: log scale from lo to hi ns. */
function latencyScale(series: readonly Series[]): [number, number] {
  let lo = Infinity;
  let hi = 0;
  for (const s of series) {
    for (const l of s.latencies) {
      if (l <= 0) continue;
      lo = Math.min(lo, l);
      hi = Math.max(hi, l);
    }
  }
  if (!(hi > 0)) return [1e3, 1e9];
  const a = 10 ** Math.floor(Math.log10(lo));
  const z = 10 ** Math.ceil(Math.log10(hi * 1.0001));
  return [a, Math.max(z, a * 10)];
}

function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let v = lo; v <= hi * 1.0001; v *= 10) out.push(v);
  return out;
}

export interface LatencyModel {
  series: Series[];
  t0: number;
  t1: number;
  now: number;
  title: string;
}

export function drawLatencyOverTime(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: LatencyModel): void {
  ctx.save();
  const b = frame(ctx, w, h, dpr, m.title);
  const [lo, hi] = latencyScale(m.series);
  const Y = (v: number) => b.y1 - (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * (b.y1 - b.y0);
  ctx.font = mono(11, dpr);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const v of decades(lo, hi)) {
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(b.x0, Math.round(Y(v)), b.x1 - b.x0, 1);
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(formatDuration(v, 2), b.x0 - 6 * dpr, Y(v));
  }
  const X = timeAxis(ctx, b, m.t0, m.t1, dpr);
  for (const s of m.series) {
    ctx.fillStyle = s.color;
    const r = s.times.length > 600 ? 1.6 * dpr : 2.6 * dpr;
    for (let i = 0; i < s.times.length; i++) {
      const x = X(s.times[i]);
      if (x < b.x0 || x > b.x1) continue;
      ctx.fillRect(x - r, Y(s.latencies[i]) - r, 2 * r, 2 * r);
    }
  }
  nowLine(ctx, X(m.now), b, dpr);
  ctx.restore();
}

export interface HistogramModel {
  series: (Series & { p50: number; p99: number; max: number })[];
  title: string;
  share: string;
}

/** Four bins per octave, as the engine's own latency histogram has. */
const PER_OCTAVE = 4;

export function drawLatencyHistogram(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: HistogramModel): void {
  ctx.save();
  const b = frame(ctx, w, h, dpr, m.title, m.share);
  const [lo, hi] = latencyScale(m.series);
  const octaves = Math.log2(hi / lo);
  const bins = Math.max(1, Math.ceil(octaves * PER_OCTAVE));
  const X = (v: number) => b.x0 + (Math.log2(Math.max(v, lo) / lo) / octaves) * (b.x1 - b.x0);
  const hists = m.series.map((s) => {
    const counts = new Float64Array(bins);
    for (const l of s.latencies) counts[Math.min(bins - 1, Math.max(0, Math.floor(Math.log2(Math.max(l, lo) / lo) * PER_OCTAVE)))]++;
    const n = Math.max(1, s.latencies.length);
    return counts.map((c) => c / n);
  });
  const peak = niceMax(Math.max(0.01, ...hists.map((hh) => Math.max(...hh))));
  const Y = (v: number) => b.y1 - (v / peak) * (b.y1 - b.y0);
  ctx.font = mono(11, dpr);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of decades(lo, hi)) {
    const x = Math.round(X(v));
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(x, b.y0, 1, b.y1 - b.y0);
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(formatDuration(v, 2), x, b.y1 + 5 * dpr);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let k = 0; k <= 2; k++) {
    const v = (peak * k) / 2;
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(`${Math.round(v * 100)}%`, b.x0 - 6 * dpr, Y(v));
  }
  const binW = (b.x1 - b.x0) / bins;
  m.series.forEach((s, j) => {
    const hh = hists[j];
    ctx.globalAlpha = 0.35;
    ctx.fillStyle = s.color;
    for (let k = 0; k < bins; k++) if (hh[k] > 0) ctx.fillRect(b.x0 + k * binW, Y(hh[k]), binW, b.y1 - Y(hh[k]));
    ctx.globalAlpha = 1;
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    for (let k = 0; k < bins; k++) {
      const y = Y(hh[k]);
      if (k === 0) ctx.moveTo(b.x0, y);
      else ctx.lineTo(b.x0 + k * binW, y);
      ctx.lineTo(b.x0 + (k + 1) * binW, y);
    }
    ctx.stroke();
    for (const [v, dash] of [[s.p50, [2, 3]], [s.p99, [7, 4]]] as const) {
      if (!(v > 0)) continue;
      ctx.setLineDash(dash.map((d) => d * dpr));
      ctx.beginPath();
      ctx.moveTo(X(v), b.y0);
      ctx.lineTo(X(v), b.y1);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  });
  ctx.restore();
}
