// Draws pages of one slab class as grids of chunks: a pure function of the
// pages, the class and the highlight state, onto a 2D context.
//
// Each chunk is a cell; a used chunk is split left to right into the part
// the item uses (blue) and its padding up to the chunk size (orange), so
// the mix of the two colours over a page is its internal fragmentation.
// Colours are Okabe-Ito's blue and orange, told apart with every common
// colour-vision deficiency; free chunks are dark, the free list's head is
// ringed in white, and chunks just taken are outlined in yellow.
import type { SlabsPage } from '../../../../wasm/mcprotocol';
import { canvasMono } from '../../render/fonts';

export const slabColors = {
  background: '#0b1220',
  free: '#1e293b',
  used: '#56b4e9',
  pad: '#e69f00',
  head: '#ffffff',
  fresh: '#f0e442',
  frame: '#334155',
  label: '#aab8cc',
} as const;

export interface PagesScene {
  pages: readonly SlabsPage[];
  chunkSize: number;
  perslab: number;
  /** The free list's head (page index in the class, chunk), or null. */
  head: { page: number; chunk: number } | null;
  /** Chunks taken since the previous view, per page index, with how
   *  strongly to outline them (1 = just now, 0 = faded). */
  fresh: ReadonlyMap<number, { chunks: readonly number[]; alpha: number; newPage: boolean }>;
}

export interface PagesLayout {
  tile: number;
  cols: number;
  gridCols: number;
  gridRows: number;
  cell: number;
  labelH: number;
  gap: number;
  height: number;
}

/** How tiles (pages) and cells (chunks) fit a canvas `width` wide. */
export function layoutPages(n: number, perslab: number, width: number): PagesLayout {
  const gap = 10;
  const labelH = 14;
  const gridCols = Math.max(1, Math.ceil(Math.sqrt(perslab)));
  const gridRows = Math.max(1, Math.ceil(perslab / gridCols));
  // About 8 px per chunk where a page allows it, so a chunk just taken can
  // be seen; a page of 10,922 chunks is capped at 520 px.
  const want = Math.min(520, Math.max(140, gridCols * 8));
  const cols = Math.max(1, Math.min(n, Math.floor((width + gap) / (want + gap))));
  const tile = Math.max(60, Math.min(want, (width - gap * (cols - 1)) / cols));
  const cell = tile / gridCols;
  const rows = Math.max(1, Math.ceil(n / cols));
  const tileH = labelH + cell * gridRows;
  return { tile, cols, gridCols, gridRows, cell, labelH, gap, height: rows * tileH + (rows - 1) * gap };
}

export function drawPages(ctx: CanvasRenderingContext2D, s: PagesScene, width: number, height: number): void {
  ctx.fillStyle = slabColors.background;
  ctx.fillRect(0, 0, width, height);
  const L = layoutPages(s.pages.length, s.perslab, width);
  const tileH = L.labelH + L.cell * L.gridRows;
  const inset = L.cell >= 4 ? 0.5 : 0;
  ctx.font = canvasMono(11);
  ctx.textBaseline = 'top';
  s.pages.forEach((p, i) => {
    const x0 = (i % L.cols) * (L.tile + L.gap);
    const y0 = Math.floor(i / L.cols) * (tileH + L.gap);
    const fresh = s.fresh.get(p.index);
    ctx.fillStyle = slabColors.label;
    ctx.fillText(`#${p.index}`, x0, y0);
    const gy = y0 + L.labelH;
    for (let c = 0; c < p.chunks.length; c++) {
      const x = x0 + (c % L.gridCols) * L.cell;
      const y = gy + Math.floor(c / L.gridCols) * L.cell;
      const w = L.cell - 2 * inset;
      const bytes = p.chunks[c];
      if (bytes === 0) {
        ctx.fillStyle = slabColors.free;
        ctx.fillRect(x + inset, y + inset, w, w);
        continue;
      }
      const used = Math.min(1, bytes / s.chunkSize) * w;
      ctx.fillStyle = slabColors.used;
      ctx.fillRect(x + inset, y + inset, used, w);
      if (used < w) {
        ctx.fillStyle = slabColors.pad;
        ctx.fillRect(x + inset + used, y + inset, w - used, w);
      }
    }
    if (fresh && fresh.alpha > 0) {
      ctx.globalAlpha = fresh.alpha;
      ctx.strokeStyle = slabColors.fresh;
      ctx.lineWidth = 2;
      const r = Math.max(L.cell, 4);
      for (const c of fresh.chunks) {
        const x = x0 + (c % L.gridCols) * L.cell + L.cell / 2;
        const y = gy + Math.floor(c / L.gridCols) * L.cell + L.cell / 2;
        ctx.strokeRect(x - r / 2, y - r / 2, r, r);
      }
      if (fresh.newPage) ctx.strokeRect(x0 - 2, gy - 2, L.tile + 4, L.cell * L.gridRows + 4);
      ctx.globalAlpha = 1;
    }
    ctx.strokeStyle = slabColors.frame;
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + 0.5, gy + 0.5, L.tile - 1, L.cell * L.gridRows - 1);
    if (s.head && s.head.page === p.index) {
      const c = s.head.chunk;
      const x = x0 + (c % L.gridCols) * L.cell + L.cell / 2;
      const y = gy + Math.floor(c / L.gridCols) * L.cell + L.cell / 2;
      const r = Math.max(L.cell / 2 + 2, 5);
      ctx.strokeStyle = slabColors.head;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(x, y, r, 0, Math.PI * 2);
      ctx.stroke();
    }
  });
}
