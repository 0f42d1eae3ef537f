// Draws the event-loop timeline: one lane per host along virtual time. A
// pure function of its model: the same window from the worker always
// draws the same pixels.
//
// Each lane has two rows. The upper row is the host's loop: an iteration
// is a framed box from its wake-up to its sleep, filled with its phases
// (epoll_wait, reads, commands, serverCron, beforeSleep with the writes it
// does); a thin line between boxes is the host asleep in epoll_wait. The
// lower row has the system calls as ticks (reads up, writes down), one
// dot per command, and a client's batches (▲ written, ▼ last reply in).
//
// When the window holds more items than pixels, the worker sends sums per
// column instead: the upper row becomes a stacked bar of the share of the
// column's time spent in each phase, the lower row the number of calls.
import {
  TIMELINE_BIN_FIELDS, TimelineBin as B, TimelineItem as K, type LaneItems, type TimelineResult,
} from '../../../wasm/protocol';
import { needsBase, tickLabel, ticks, formatDuration } from './timeaxis';
import { canvasFont, canvasMono } from './fonts';

export const loopPalette = {
  background: '#0b1220',
  laneAlt: '#0e1728',
  grid: '#1b2740',
  axis: '#94a3b8',
  text: '#e2e8f0',
  textDim: '#8fa0b8',
  sleep: '#334155',
  iteration: '#1e2a44',
  iterationEdge: '#64748b',
  poll: '#64748b',
  read: '#38bdf8',
  exec: '#fbbf24',
  cron: '#a78bfa',
  beforeSleep: '#9d4f7a',
  write: '#4ade80',
  other: '#475569',
  send: '#fb923c',
  done: '#e2e8f0',
  refused: '#f87171',
  now: '#fbbf24',
  future: 'rgba(2, 6, 23, 0.55)',
  focus: '#ffffff',
};

export interface LaneInfo {
  node: number;
  /** Already translated: "server", "benchmark #1". */
  label: string;
  sub: string;
  role: 'server' | 'workload';
}

export interface TimelineText {
  poll: string;
  read: string;
  write: string;
  beforeSleep: string;
  cron: string;
  future: string;
  noData: string;
  base: string;
}

export interface TimelineModel {
  result: TimelineResult | null;
  lanes: LaneInfo[];
  /** The world's clock and whether later history exists (rewound). */
  now: number;
  atEnd: boolean;
  /** A phase to outline (the phase stepper), and its iteration. */
  focus: { node: number; t0: number; t1: number; iter: [number, number] } | null;
  /** Highlight the items of this connection. */
  conn: number | null;
  names: Record<number, string>;
  text: TimelineText;
}

export interface Geometry {
  gutter: number;
  axis: number;
  lanes: { node: number; y: number; h: number; rowA: [number, number]; rowB: [number, number] }[];
  height: number;
}

/** Lane heights in CSS px. */
const SERVER_LANE = 96;
const CLIENT_LANE = 52;
const COMPACT_LANE = 30;
const AXIS = 30;
const GUTTER = 168;

export function layout(lanes: readonly LaneInfo[], dpr: number): Geometry {
  const compact = lanes.length > 7;
  let y = AXIS * dpr;
  const out: Geometry['lanes'] = [];
  for (const l of lanes) {
    const h = (l.role === 'server' ? SERVER_LANE : compact ? COMPACT_LANE : CLIENT_LANE) * dpr;
    const pad = 5 * dpr;
    const split = y + pad + (h - 2 * pad) * (l.role === 'server' ? 0.5 : 0.55);
    out.push({ node: l.node, y, h, rowA: [y + pad, split], rowB: [split + 2 * dpr, y + h - pad] });
    y += h;
  }
  return { gutter: GUTTER * dpr, axis: AXIS * dpr, lanes: out, height: y };
}

/** CSS height the canvas needs for these lanes. */
export function timelineHeight(lanes: readonly LaneInfo[]): number {
  return layout(lanes, 1).height + 4;
}

export function drawTimeline(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: TimelineModel): void {
  ctx.save();
  ctx.fillStyle = loopPalette.background;
  ctx.fillRect(0, 0, w, h);
  const g = layout(m.lanes, dpr);
  const r = m.result;
  const plotW = w - g.gutter;
  drawLaneBackgrounds(ctx, w, g);
  if (r) {
    const X = (t: number) => g.gutter + ((t - r.t0) / (r.t1 - r.t0)) * plotW;
    drawGrid(ctx, g, h, r, X, dpr, m.text);
    ctx.save();
    ctx.beginPath();
    ctx.rect(g.gutter, 0, plotW, h);
    ctx.clip();
    if (r.from > r.t0) {
      ctx.fillStyle = 'rgba(148, 163, 184, 0.06)';
      ctx.fillRect(g.gutter, g.axis, Math.max(0, X(r.from) - g.gutter), h - g.axis);
    }
    // A host runs an iteration as one event, its own clock ahead of the
    // world's: the trace already holds the rest of the iteration under way.
    // That rest has not happened yet at now, so the lanes stop there (a
    // rewound world shows its recorded future instead, shaded).
    ctx.save();
    if (m.atEnd) {
      ctx.beginPath();
      ctx.rect(g.gutter, 0, Math.max(0, Math.min(w, X(m.now)) - g.gutter), h);
      ctx.clip();
    }
    for (const lane of g.lanes) {
      const info = m.lanes.find((l) => l.node === lane.node)!;
      if (r.mode === 'items') {
        const items = r.items.find((i) => i.node === lane.node);
        if (items) drawItems(ctx, lane, items, X, dpr, info.role, m, [g.gutter, w]);
      } else {
        const bins = r.bins.find((b) => b.node === lane.node);
        if (bins) drawBins(ctx, lane, bins.data, r, X, dpr, info.role);
      }
    }
    ctx.restore();
    if (m.focus) drawFocus(ctx, g, m.focus, X, dpr);
    drawNow(ctx, g, h, w, X(m.now), m.atEnd, dpr, m.text);
    ctx.restore();
  }
  drawGutter(ctx, g, m.lanes, dpr);
  ctx.restore();
}

function drawLaneBackgrounds(ctx: CanvasRenderingContext2D, w: number, g: Geometry): void {
  g.lanes.forEach((l, i) => {
    ctx.fillStyle = i % 2 ? loopPalette.laneAlt : loopPalette.background;
    ctx.fillRect(0, l.y, w, l.h);
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(0, l.y + l.h - 1, w, 1);
  });
}

function drawGutter(ctx: CanvasRenderingContext2D, g: Geometry, lanes: readonly LaneInfo[], dpr: number): void {
  ctx.fillStyle = '#0a1120';
  ctx.fillRect(0, 0, g.gutter - 1, g.lanes.length ? g.lanes[g.lanes.length - 1].y + g.lanes[g.lanes.length - 1].h : 0);
  ctx.fillStyle = loopPalette.grid;
  ctx.fillRect(g.gutter - 1, 0, 1, g.height);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  g.lanes.forEach((l, i) => {
    const info = lanes[i];
    const big = info.role === 'server';
    ctx.fillStyle = big ? loopPalette.exec : loopPalette.text;
    ctx.font = canvasFont((big ? 15 : 13) * dpr, big ? 700 : 600);
    const compact = l.h < 40 * dpr;
    ctx.fillText(info.label, 10 * dpr, compact ? l.y + l.h / 2 : l.y + l.h * 0.36, g.gutter - 16 * dpr);
    if (!compact) {
      ctx.fillStyle = loopPalette.textDim;
      ctx.font = canvasFont(11.5 * dpr);
      ctx.fillText(info.sub, 10 * dpr, l.y + l.h * 0.68, g.gutter - 16 * dpr);
    }
  });
}

function drawGrid(ctx: CanvasRenderingContext2D, g: Geometry, h: number, r: TimelineResult,
  X: (t: number) => number, dpr: number, text: TimelineText): void {
  const plotW = (X(r.t1) - X(r.t0)) / dpr;
  const { step, at } = ticks(r.t0, r.t1, Math.max(2, Math.floor(plotW / 110)));
  const base = needsBase(r.t0, step) ? Math.floor(r.t0 / step) * step : 0;
  ctx.font = canvasMono(12 * dpr);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  for (const t of at) {
    const x = Math.round(X(t));
    ctx.fillStyle = loopPalette.grid;
    ctx.fillRect(x, g.axis - 6 * dpr, 1, h);
    const label = base ? `+${tickLabel(t - base, step)}` : tickLabel(t, step);
    const half = ctx.measureText(label).width / 2;
    if (x - half < g.gutter + 2 * dpr || x + half > X(r.t1)) continue;
    ctx.fillStyle = loopPalette.axis;
    ctx.fillText(label, x, g.axis / 2);
  }
  if (base) {
    ctx.textAlign = 'left';
    ctx.fillStyle = loopPalette.exec;
    ctx.fillText(`${text.base} ${formatDuration(base, 9)}`, X(r.t0) + 4 * dpr, g.axis / 2 + 11 * dpr);
  }
  ctx.fillStyle = loopPalette.grid;
  ctx.fillRect(g.gutter, g.axis - 1, X(r.t1) - g.gutter, 1);
}

const PHASE_COLOR: Record<number, string> = {
  [K.POLL]: loopPalette.poll,
  [K.READ]: loopPalette.read,
  [K.EXEC]: loopPalette.exec,
  [K.CRON]: loopPalette.cron,
  [K.BEFORE_SLEEP]: loopPalette.beforeSleep,
  [K.WRITE]: loopPalette.write,
};

type LaneGeom = Geometry['lanes'][number];

function drawItems(ctx: CanvasRenderingContext2D, lane: LaneGeom, it: LaneItems, X: (t: number) => number,
  dpr: number, role: LaneInfo['role'], m: TimelineModel, plot: [number, number]): void {
  const [a0, a1] = lane.rowA;
  const [b0, b1] = lane.rowB;
  const mid = (a0 + a1) / 2;
  const [p0, p1] = plot;
  ctx.fillStyle = loopPalette.sleep;
  ctx.fillRect(p0, mid - dpr / 2, p1 - p0, Math.max(1, dpr));
  ctx.fillStyle = loopPalette.grid;
  ctx.fillRect(p0, Math.round((b0 + b1) / 2), p1 - p0, 1);
  const labelPx = 11 * dpr;
  ctx.font = canvasFont(labelPx);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let i = 0; i < it.count; i++) {
    const kind = it.kind[i];
    const x0 = X(it.t0[i]);
    const x1 = X(it.t1[i]);
    const wpx = Math.max(x1 - x0, dpr);
    const dim = m.conn !== null && it.fd[i] !== m.conn && kind !== K.ITER && kind !== K.POLL
      && kind !== K.BEFORE_SLEEP && kind !== K.CRON;
    ctx.globalAlpha = dim ? 0.45 : 1;
    switch (kind) {
      case K.ITER:
        ctx.fillStyle = loopPalette.iteration;
        ctx.fillRect(x0, a0, wpx, a1 - a0);
        if (wpx > 3 * dpr) {
          ctx.strokeStyle = loopPalette.iterationEdge;
          ctx.lineWidth = dpr;
          ctx.strokeRect(x0 + 0.5, a0 + 0.5, wpx - 1, a1 - a0 - 1);
        }
        break;
      case K.POLL:
      case K.READ:
      case K.EXEC:
      case K.CRON:
      case K.BEFORE_SLEEP:
      case K.WRITE: {
        const inset = kind === K.BEFORE_SLEEP ? 0 : kind === K.WRITE ? (a1 - a0) * 0.22 : (a1 - a0) * 0.12;
        ctx.fillStyle = PHASE_COLOR[kind];
        ctx.fillRect(x0, a0 + inset + dpr, wpx, a1 - a0 - 2 * inset - 2 * dpr);
        if (kind === K.EXEC && wpx > 4 * dpr) {
          ctx.fillStyle = 'rgba(0,0,0,0.55)';
          ctx.fillRect(x0, a0 + inset + dpr, dpr, a1 - a0 - 2 * inset - 2 * dpr);
        }
        if (wpx > 46 * dpr) {
          const label = itemLabel(kind, it.n[i], it.x[i], m);
          ctx.fillStyle = kind === K.POLL || kind === K.BEFORE_SLEEP || kind === K.CRON ? '#f8fafc' : '#0b1220';
          ctx.fillText(label, x0 + 4 * dpr, kind === K.BEFORE_SLEEP ? a0 + labelPx * 0.75 : mid, wpx - 8 * dpr);
        }
        drawTick(ctx, kind, x1, b0, b1, dpr, role);
        break;
      }
      case K.REFUSED: {
        // A command turned away without running: a red stroke through the
        // iteration, and a red cross below it.
        const inset = (a1 - a0) * 0.12;
        ctx.fillStyle = loopPalette.refused;
        ctx.fillRect(x0 - dpr, a0 + inset, 2 * dpr, a1 - a0 - 2 * inset);
        drawCross(ctx, x0, (b0 + b1) / 2, Math.min(4 * dpr, (b1 - b0) / 3), dpr);
        break;
      }
      case K.SEND:
      case K.DONE:
      case K.ERRORS:
        drawBatch(ctx, kind, x0, b0, b1, dpr);
        break;
      case K.FILE:
        ctx.fillStyle = loopPalette.cron;
        ctx.fillRect(x1 - dpr, b0, 2 * dpr, b1 - b0);
        break;
    }
  }
  ctx.globalAlpha = 1;
}

function itemLabel(kind: number, n: number, x: number, m: TimelineModel): string {
  switch (kind) {
    case K.POLL:
      return `${m.text.poll} (${n})`;
    case K.READ:
      return `${m.text.read} ${n} B`;
    case K.WRITE:
      return `${m.text.write} ${n} B`;
    case K.EXEC:
      return m.names[x] ?? `#${x}`;
    case K.CRON:
      return m.text.cron;
    default:
      return m.text.beforeSleep;
  }
}

/** The lower row's marks: reads above the midline, writes below, a dot
 *  per command, a short grey tick per epoll_wait. */
function drawTick(ctx: CanvasRenderingContext2D, kind: number, x: number, b0: number, b1: number, dpr: number,
  role: LaneInfo['role']): void {
  const mid = (b0 + b1) / 2;
  const half = (b1 - b0) / 2;
  const tw = Math.max(dpr, 1.5 * dpr);
  switch (kind) {
    case K.READ:
      ctx.fillStyle = loopPalette.read;
      ctx.fillRect(x - tw / 2, b0, tw, half);
      break;
    case K.WRITE:
      ctx.fillStyle = loopPalette.write;
      ctx.fillRect(x - tw / 2, mid, tw, half);
      break;
    case K.POLL:
      ctx.fillStyle = loopPalette.poll;
      ctx.fillRect(x - tw / 2, mid - half * 0.35, tw, half * 0.7);
      break;
    case K.EXEC:
      if (role !== 'server') break;
      ctx.fillStyle = loopPalette.exec;
      ctx.beginPath();
      ctx.arc(x, mid, 2.2 * dpr, 0, Math.PI * 2);
      ctx.fill();
      break;
  }
}

function drawCross(ctx: CanvasRenderingContext2D, x: number, y: number, s: number, dpr: number): void {
  ctx.strokeStyle = loopPalette.refused;
  ctx.lineWidth = 1.5 * dpr;
  ctx.beginPath();
  ctx.moveTo(x - s, y - s);
  ctx.lineTo(x + s, y + s);
  ctx.moveTo(x + s, y - s);
  ctx.lineTo(x - s, y + s);
  ctx.stroke();
}

/** A batch sent (an orange triangle up), answered (a white one down), or
 *  answered with errors (the down triangle in red, over the white). */
function drawBatch(ctx: CanvasRenderingContext2D, kind: number, x: number, b0: number, b1: number, dpr: number): void {
  const s = Math.min(6 * dpr, (b1 - b0) / 2);
  const mid = (b0 + b1) / 2;
  ctx.fillStyle = kind === K.SEND ? loopPalette.send : kind === K.ERRORS ? loopPalette.refused : loopPalette.done;
  ctx.beginPath();
  if (kind === K.SEND) {
    ctx.moveTo(x - s, mid);
    ctx.lineTo(x + s, mid);
    ctx.lineTo(x, mid - s * 1.3);
  } else {
    ctx.moveTo(x - s, mid);
    ctx.lineTo(x + s, mid);
    ctx.lineTo(x, mid + s * 1.3);
  }
  ctx.closePath();
  ctx.fill();
}

const STACK: [number, string][] = [
  [B.EXEC, loopPalette.exec],
  [B.READ, loopPalette.read],
  [B.WRITE, loopPalette.write],
  [B.POLL, loopPalette.poll],
  [B.CRON, loopPalette.cron],
];

function drawBins(ctx: CanvasRenderingContext2D, lane: LaneGeom, data: Float32Array, r: TimelineResult,
  X: (t: number) => number, dpr: number, role: LaneInfo['role']): void {
  const [a0, a1] = lane.rowA;
  const [b0, b1] = lane.rowB;
  const colNs = (r.t1 - r.t0) / r.px;
  const colW = (X(r.t1) - X(r.t0)) / r.px;
  const rowH = a1 - a0;
  const count = role === 'server' ? B.CMDS : B.SENDS;
  let peak = 0;
  for (let c = 0; c < r.px; c++) peak = Math.max(peak, data[c * TIMELINE_BIN_FIELDS + count]);
  ctx.fillStyle = loopPalette.sleep;
  ctx.fillRect(X(r.t0), (a0 + a1) / 2, X(r.t1) - X(r.t0), Math.max(1, dpr));
  for (let c = 0; c < r.px; c++) {
    const o = c * TIMELINE_BIN_FIELDS;
    const busy = data[o + B.BUSY];
    if (busy <= 0 && data[o + count] <= 0 && data[o + B.REFUSED] <= 0) continue;
    const x = X(r.t0) + c * colW;
    const wpx = Math.max(colW, 1);
    let y = a1;
    let known = 0;
    for (const [f, color] of STACK) {
      const v = data[o + f];
      if (v <= 0) continue;
      known += v;
      const hh = Math.min(1, v / colNs) * rowH;
      ctx.fillStyle = color;
      ctx.fillRect(x, y - hh, wpx, hh);
      y -= hh;
    }
    const rest = Math.max(0, busy - known);
    if (rest > 0) {
      const hh = Math.min(1, rest / colNs) * rowH;
      ctx.fillStyle = loopPalette.beforeSleep;
      ctx.fillRect(x, Math.max(a0, y - hh), wpx, Math.min(hh, y - a0));
    }
    const n = data[o + count];
    if (n > 0 && peak > 0) {
      const hh = Math.max(dpr, (n / peak) * (b1 - b0));
      ctx.fillStyle = role === 'server' ? loopPalette.exec : loopPalette.send;
      ctx.globalAlpha = 0.85;
      ctx.fillRect(x, b1 - hh, wpx, hh);
      ctx.globalAlpha = 1;
    }
    if (data[o + B.REFUSED] > 0) {
      ctx.fillStyle = loopPalette.refused;
      ctx.fillRect(x, b0, Math.max(wpx, 2 * dpr), 3 * dpr);
    }
  }
}

function drawFocus(ctx: CanvasRenderingContext2D, g: Geometry, f: NonNullable<TimelineModel['focus']>,
  X: (t: number) => number, dpr: number): void {
  const lane = g.lanes.find((l) => l.node === f.node);
  if (!lane) return;
  const [a0, a1] = lane.rowA;
  ctx.strokeStyle = loopPalette.focus;
  ctx.setLineDash([4 * dpr, 3 * dpr]);
  ctx.lineWidth = dpr;
  ctx.strokeRect(X(f.iter[0]) - 2 * dpr, a0 - 3 * dpr, X(f.iter[1]) - X(f.iter[0]) + 4 * dpr, a1 - a0 + 6 * dpr);
  ctx.setLineDash([]);
  ctx.lineWidth = 3 * dpr;
  const x0 = X(f.t0);
  ctx.strokeRect(x0 - 1.5 * dpr, a0 - 1.5 * dpr, Math.max(3 * dpr, X(f.t1) - x0 + 3 * dpr), a1 - a0 + 3 * dpr);
}

function drawNow(ctx: CanvasRenderingContext2D, g: Geometry, h: number, w: number, x: number, atEnd: boolean,
  dpr: number, text: TimelineText): void {
  if (!atEnd && x < w) {
    ctx.fillStyle = loopPalette.future;
    ctx.fillRect(Math.max(g.gutter, x), g.axis, w - Math.max(g.gutter, x), h - g.axis);
    ctx.fillStyle = loopPalette.textDim;
    ctx.font = canvasFont(12 * dpr);
    ctx.textAlign = 'left';
    ctx.fillText(text.future, Math.max(g.gutter, x) + 6 * dpr, g.axis + 10 * dpr);
  }
  if (x < g.gutter || x > w) return;
  ctx.fillStyle = loopPalette.now;
  ctx.fillRect(Math.round(x - dpr), g.axis - 8 * dpr, 2 * dpr, h);
  ctx.beginPath();
  ctx.moveTo(x - 6 * dpr, g.axis - 10 * dpr);
  ctx.lineTo(x + 6 * dpr, g.axis - 10 * dpr);
  ctx.lineTo(x, g.axis - 2 * dpr);
  ctx.closePath();
  ctx.fill();
}

// ---- Hit testing (for hover explanations). ----

export type TimelineHit =
  | { mode: 'item'; node: number; index: number }
  | { mode: 'bin'; node: number; column: number }
  | null;

/** What is under the point (x, y), in device pixels. */
export function hitTest(m: TimelineModel, w: number, dpr: number, x: number, y: number): TimelineHit {
  const r = m.result;
  if (!r) return null;
  const g = layout(m.lanes, dpr);
  if (x < g.gutter) return null;
  const lane = g.lanes.find((l) => y >= l.y && y < l.y + l.h);
  if (!lane) return null;
  const plotW = w - g.gutter;
  const t = r.t0 + ((x - g.gutter) / plotW) * (r.t1 - r.t0);
  if (m.atEnd && t > m.now) return null;
  if (r.mode === 'bins') {
    const column = Math.floor(((x - g.gutter) / plotW) * r.px);
    return { mode: 'bin', node: lane.node, column: Math.max(0, Math.min(r.px - 1, column)) };
  }
  const it = r.items.find((i) => i.node === lane.node);
  if (!it) return null;
  const slack = (4 * dpr * (r.t1 - r.t0)) / plotW;
  const upper = y < lane.rowA[1] + dpr;
  let best = -1;
  let bestScore = Infinity;
  for (let i = 0; i < it.count; i++) {
    const k = it.kind[i];
    const tick = k === K.SEND || k === K.DONE || k === K.FILE || k === K.ERRORS;
    if (upper === tick) continue;
    if (!upper && k === K.ITER) continue;
    const a = upper ? it.t0[i] : it.t1[i];
    const b = it.t1[i];
    if (t < a - slack || t > b + slack) continue;
    // Prefer the innermost item: the shortest that contains the point,
    // then the closest mark.
    const score = upper ? (b - a) + (t < a || t > b ? 1e15 : 0) : Math.abs(t - b);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best >= 0 ? { mode: 'item', node: lane.node, index: best } : null;
}

/** The virtual time at x (device pixels). */
export function timeAt(m: TimelineModel, w: number, dpr: number, x: number): number | null {
  const r = m.result;
  if (!r) return null;
  const g = layout(m.lanes, dpr);
  return r.t0 + ((x - g.gutter) / (w - g.gutter)) * (r.t1 - r.t0);
}
