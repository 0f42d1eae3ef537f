import { memo, useEffect, useRef, useState } from 'react';
import type { SlabsPage } from '../../../../wasm/mcprotocol';
import { drawPages, layoutPages, type PagesScene } from './draw';
import { onTypeScale, typeScale } from '../scale';

const FADE_MS = 900;

type Fresh = PagesScene['fresh'] extends ReadonlyMap<number, infer V> ? V : never;

function reducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** Chunks of `next` that were free (or absent) in `prev`, per page. */
function taken(cls: number, prev: Map<string, Uint32Array>, pages: readonly SlabsPage[]): Map<number, Omit<Fresh, 'alpha'>> {
  const out = new Map<number, Omit<Fresh, 'alpha'>>();
  for (const p of pages) {
    const before = prev.get(`${cls}:${p.index}`);
    const chunks: number[] = [];
    for (let c = 0; c < p.chunks.length; c++) {
      if (p.chunks[c] > 0 && (!before || before[c] === 0)) chunks.push(c);
    }
    if (chunks.length) out.set(p.index, { chunks, newPage: !before });
  }
  return out;
}

/** The pages of one class on a canvas; chunks a set just took are
 *  outlined and fade out (held still under prefers-reduced-motion). The
 *  first view of a class marks nothing: only changes seen are news. */
export const PagesCanvas = memo(function PagesCanvas(props: {
  cls: number; pages: readonly SlabsPage[]; chunkSize: number; perslab: number;
  head: { page: number; chunk: number } | null; label: string;
}) {
  const { cls, pages, chunkSize, perslab, head } = props;
  const ref = useRef<HTMLCanvasElement>(null);
  const seen = useRef(new Map<string, Uint32Array>());
  const seenCls = useRef<number | null>(null);
  const [width, setWidth] = useState(600);
  // The grid is laid out in design pixels: it grows with the type.
  const [scale, setScale] = useState(typeScale);
  useEffect(() => onTypeScale(() => setScale(typeScale())), []);
  const designWidth = width / scale;

  useEffect(() => {
    const c = ref.current;
    if (!c || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setWidth(Math.max(200, Math.floor(c.clientWidth))));
    ro.observe(c);
    return () => ro.disconnect();
  }, []);

  const designHeight = Math.ceil(layoutPages(pages.length, perslab, designWidth).height);
  const height = designHeight * scale;

  // What changed is worked out only when the pages (or the class) change,
  // and kept for drawing: a redraw for a new width or head must not compare
  // the pages with themselves and lose the chunks just taken.
  const fresh = useRef<{ chunks: Map<number, Omit<Fresh, 'alpha'>>; started: number }>({ chunks: new Map(), started: 0 });
  useEffect(() => {
    const chunks = seenCls.current === cls ? taken(cls, seen.current, pages) : new Map<number, Omit<Fresh, 'alpha'>>();
    if (seenCls.current !== cls) seen.current.clear();
    seenCls.current = cls;
    for (const p of pages) seen.current.set(`${cls}:${p.index}`, p.chunks);
    fresh.current = { chunks, started: performance.now() };
  }, [cls, pages]);

  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const { chunks, started } = fresh.current;
    const still = reducedMotion();
    let frame = 0;
    const paint = () => {
      const ctx = c.getContext('2d');
      if (!ctx) return;
      const dpr = window.devicePixelRatio || 1;
      c.width = Math.round(width * dpr);
      c.height = Math.round(height * dpr);
      ctx.setTransform(dpr * scale, 0, 0, dpr * scale, 0, 0);
      const alpha = still ? 1 : Math.max(0, 1 - (performance.now() - started) / FADE_MS);
      const withAlpha = new Map<number, Fresh>();
      if (alpha > 0) for (const [k, v] of chunks) withAlpha.set(k, { ...v, alpha });
      drawPages(ctx, { pages, chunkSize, perslab, head, fresh: withAlpha }, designWidth, designHeight);
      // For tests: how many chunks this frame outlined as just taken.
      c.dataset.fresh = String([...withAlpha.values()].reduce((n, v) => n + v.chunks.length, 0));
      if (!still && alpha > 0 && chunks.size) frame = requestAnimationFrame(paint);
    };
    frame = requestAnimationFrame(paint);
    return () => cancelAnimationFrame(frame);
  }, [cls, pages, chunkSize, perslab, head, width, height, scale, designWidth, designHeight]);

  return <canvas ref={ref} className="slabs-canvas" style={{ height }} data-testid="slabs.canvas"
    role="img" aria-label={props.label} />;
});
