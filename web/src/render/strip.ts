// Draws one hash table as a strip of buckets. A pure function of its
// inputs: the same snapshot always draws the same pixels.
//
// Small tables get one cell per bucket, with a dot per key in the bucket's
// chain. Large tables are folded by the engine into one bin per device pixel
// column; each column's height is the mean chain length of its buckets
// (two keys per bucket fills the strip), its brightness the share of its
// buckets that hold any key. ht[0] greys out the buckets rehashing already
// moved; a band at the bottom shows which buckets the current SCAN walk has
// visited, and markers point at the buckets of its last call.
import type { TableSnapshot } from '../../../wasm/protocol';
import { canvasMono } from './fonts';

export interface StripModel {
  table: TableSnapshot;
  /** The next bucket to move (table 0 while rehashing), else -1. */
  rehashidx: number;
  /** Buckets of this table visited by the last SCAN call. */
  lastBuckets: readonly number[];
}

export const palette = {
  background: '#0b1220',
  empty: '#1c2638',
  cellBorder: '#2a3850',
  keys: '#38bdf8',
  keysDim: '#0e4a66',
  moved: '#334155',
  marker: '#fbbf24',
  visited: '#a78bfa',
  last: '#f472b6',
  text: '#cbd5e1',
  textDim: '#64748b',
};

/** Cells are drawn per bucket when each gets at least this many pixels. */
const MIN_CELL_PX = 10;
const BAND = 0.09;

export function isCellMode(size: number, widthPx: number): boolean {
  return size <= 256 && widthPx / size >= MIN_CELL_PX;
}

export function drawStrip(ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number, m: StripModel): void {
  ctx.save();
  ctx.fillStyle = palette.background;
  ctx.fillRect(0, 0, w, h);
  const band = Math.max(4 * dpr, Math.round(h * BAND));
  const top = Math.round(12 * dpr);
  const cells = isCellMode(m.table.size, w);
  const labels = cells && w / m.table.size >= 18 * dpr ? Math.round(13 * dpr) : 0;
  const area = { y: top, h: h - band - top - labels - 2 * dpr };
  if (cells) drawCells(ctx, w, area, dpr, m, labels);
  else drawColumns(ctx, w, area, m);
  if (m.rehashidx > 0) drawMoved(ctx, Math.round((m.rehashidx * w) / m.table.size), area, dpr);
  drawVisited(ctx, w, h - band, band, m.table);
  drawLast(ctx, w, top, dpr, m);
  if (m.rehashidx >= 0) drawRehashMarker(ctx, w, h - band, dpr, m);
  ctx.restore();
}

function binX(k: number, bins: number, w: number): number {
  return Math.round((k * w) / bins);
}

function drawColumns(ctx: CanvasRenderingContext2D, w: number, area: { y: number; h: number }, m: StripModel): void {
  const { table } = m;
  const perBin = table.size / table.bins;
  const movedBins = m.rehashidx > 0 ? Math.floor(m.rehashidx / perBin) : 0;
  for (let k = 0; k < table.bins; k++) {
    const x0 = binX(k, table.bins, w);
    const x1 = Math.max(x0 + 1, binX(k + 1, table.bins, w));
    const filled = table.filled[k] / perBin;
    const chain = table.entries[k] / perBin;
    if (k < movedBins) continue;
    ctx.fillStyle = palette.empty;
    ctx.fillRect(x0, area.y, x1 - x0, area.h);
    if (table.entries[k] === 0) continue;
    const barH = Math.max(2, Math.round(Math.min(1, chain / 2) * area.h));
    ctx.fillStyle = mix(palette.keysDim, palette.keys, Math.min(1, filled * 1.25));
    ctx.fillRect(x0, area.y + area.h - barH, x1 - x0, barH);
  }
}

function drawCells(ctx: CanvasRenderingContext2D, w: number, area: { y: number; h: number }, dpr: number,
  m: StripModel, labels: number): void {
  const { table } = m;
  const cellW = w / table.size;
  const gap = Math.max(1, Math.round(cellW * 0.08));
  const dot = Math.max(3 * dpr, Math.min(cellW * 0.5, (area.h - 4 * dpr) / 4.8));
  ctx.font = canvasMono(Math.min(11 * dpr, cellW * 0.45));
  ctx.textAlign = 'center';
  ctx.textBaseline = 'alphabetic';
  for (let i = 0; i < table.size; i++) {
    const k = Math.floor((i * table.bins) / table.size);
    const x = i * cellW + gap / 2;
    const cw = cellW - gap;
    const moved = m.rehashidx > i;
    if (!moved) {
      ctx.fillStyle = palette.empty;
      ctx.fillRect(x, area.y, cw, area.h);
    }
    ctx.strokeStyle = moved ? palette.moved : palette.cellBorder;
    ctx.lineWidth = dpr;
    ctx.strokeRect(x + 0.5, area.y + 0.5, cw - 1, area.h - 1);
    const n = table.entries[k];
    const shown = Math.min(n, 4);
    ctx.fillStyle = palette.keys;
    for (let j = 0; j < shown; j++) {
      const cy = area.y + area.h - (j + 1) * (dot + dpr) - dpr;
      ctx.fillRect(x + cw / 2 - dot / 2, cy, dot, dot);
    }
    if (n > shown) {
      ctx.fillStyle = palette.text;
      ctx.fillText(`+${n - shown}`, x + cw / 2, area.y + area.h - shown * (dot + dpr) - 3 * dpr);
    }
    if (labels) {
      ctx.fillStyle = palette.textDim;
      ctx.fillText(String(i), x + cw / 2, area.y + area.h + labels - 2 * dpr);
    }
  }
}

/** Hatches the buckets rehashing has already emptied: [0, x). */
function drawMoved(ctx: CanvasRenderingContext2D, x: number, area: { y: number; h: number }, dpr: number): void {
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, area.y, x, area.h);
  ctx.clip();
  ctx.fillStyle = palette.background;
  ctx.fillRect(0, area.y, x, area.h);
  ctx.strokeStyle = palette.moved;
  ctx.lineWidth = 2 * dpr;
  const step = 10 * dpr;
  ctx.beginPath();
  for (let s = -area.h; s < x + area.h; s += step) {
    ctx.moveTo(s, area.y + area.h);
    ctx.lineTo(s + area.h, area.y);
  }
  ctx.stroke();
  ctx.restore();
}

function drawVisited(ctx: CanvasRenderingContext2D, w: number, y: number, band: number, table: TableSnapshot): void {
  if (!table.visited) return;
  ctx.fillStyle = palette.visited;
  for (let k = 0; k < table.bins; k++) {
    const v = table.visited[k];
    if (!v) continue;
    ctx.globalAlpha = 0.25 + (0.75 * v) / 255;
    const x0 = binX(k, table.bins, w);
    ctx.fillRect(x0, y + 1, Math.max(1, binX(k + 1, table.bins, w) - x0), band - 1);
  }
  ctx.globalAlpha = 1;
}

function drawLast(ctx: CanvasRenderingContext2D, w: number, top: number, dpr: number, m: StripModel): void {
  if (!m.lastBuckets.length) return;
  ctx.fillStyle = palette.last;
  const size = m.table.size;
  const s = 5 * dpr;
  for (const b of m.lastBuckets) {
    const x = ((b + 0.5) * w) / size;
    ctx.beginPath();
    ctx.moveTo(x - s, top - s - 1);
    ctx.lineTo(x + s, top - s - 1);
    ctx.lineTo(x, top - 1);
    ctx.closePath();
    ctx.fill();
  }
}

function drawRehashMarker(ctx: CanvasRenderingContext2D, w: number, bottom: number, dpr: number, m: StripModel): void {
  const x = Math.round((m.rehashidx * w) / m.table.size);
  ctx.fillStyle = palette.marker;
  ctx.fillRect(x - dpr, 0, 2 * dpr, bottom);
}

function mix(a: string, b: string, t: number): string {
  const pa = parseInt(a.slice(1), 16);
  const pb = parseInt(b.slice(1), 16);
  const ch = (p: number, shift: number) => (p >> shift) & 255;
  const c = (shift: number) => Math.round(ch(pa, shift) + (ch(pb, shift) - ch(pa, shift)) * t);
  return `rgb(${c(16)},${c(8)},${c(0)})`;
}
