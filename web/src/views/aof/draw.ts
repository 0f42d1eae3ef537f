// Canvas drawing of the offsets chart and the threads strip: pure functions
// of the view and the canvas size.
import type { AofView } from '../../../../wasm/aofprotocol';
import {
  STAGES, STAGE_COLORS, THREAD_LANES, jobsOnLane, polyline, seriesRange, visibleWindow, type TimeWindow,
} from './model';

const BG = '#0b1324';
const GRID = '#24324b';
const FLUSH = 'rgba(244,114,182,0.35)';

/** The span of time the offsets chart covers unzoomed. */
export function offsetsSpan(v: AofView): TimeWindow {
  const t0 = v.series.t.length ? v.series.t[0] : v.now;
  return { t0, t1: Math.max(v.now, t0 + 1) };
}

/** The offsets chart over `zoom` (null: all of the series). */
export function drawOffsets(ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number,
  zoom: TimeWindow | null = null): void {
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, w, h);
  const s = v.series;
  if (s.t.length < 2) return;
  const { t0, t1 } = visibleWindow(offsetsSpan(v), zoom);
  const { lo, hi } = seriesRange(s, t0, t1);
  ctx.strokeStyle = GRID;
  for (let i = 1; i < 4; i++) {
    ctx.beginPath();
    ctx.moveTo(0, (h * i) / 4);
    ctx.lineTo(w, (h * i) / 4);
    ctx.stroke();
  }
  ctx.fillStyle = FLUSH;
  for (const f of v.flushes) {
    if (f < t0 || f > t1) continue;
    ctx.fillRect(((f - t0) / (t1 - t0)) * w, 0, 1, h);
  }
  const shifted = { ...s };
  for (const k of STAGES) shifted[k] = s[k].map((y) => y - lo);
  STAGES.forEach((k, i) => {
    const pts = polyline(shifted, k, t0, t1, w, h - 4, hi - lo);
    ctx.strokeStyle = STAGE_COLORS[k];
    ctx.lineWidth = 2.5 - i * 0.4;
    ctx.beginPath();
    pts.forEach(([x, y], j) => (j ? ctx.lineTo(x, y + 2) : ctx.moveTo(x, y + 2)));
    ctx.stroke();
  });
}

export function drawThreads(ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number): void {
  ctx.fillStyle = BG;
  ctx.fillRect(0, 0, w, h);
  const t0 = v.t0;
  const t1 = Math.max(v.now, t0 + 1);
  const laneH = h / THREAD_LANES.length;
  THREAD_LANES.forEach((_, lane) => {
    ctx.fillStyle = GRID;
    ctx.fillRect(0, (lane + 1) * laneH - 1, w, 1);
    ctx.fillStyle = lane === 0 ? '#38bdf8' : lane === 2 ? '#4ade80' : '#a78bfa';
    for (const j of jobsOnLane(v.jobs, lane)) {
      const x0 = ((j.t0 - t0) / (t1 - t0)) * w;
      const x1 = ((j.t1 - t0) / (t1 - t0)) * w;
      ctx.fillRect(x0, lane * laneH + 3, Math.max(1.5, x1 - x0), laneH - 7);
    }
  });
}
