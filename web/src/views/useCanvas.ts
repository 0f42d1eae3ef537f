// A canvas that measures itself (device pixels), and redraws with `draw`
// at most once per animation frame, whenever draw changes, it resizes or
// the type's size changes. draw's dpr is canvas pixels per design pixel:
// the device's pixel ratio times the type's scale (views/scale.ts), so
// drawings grow with the text in presenter mode. onWidth hears the width in
// device pixels after each resize (the hash table strips ask the engine for
// one bin per pixel).
import { useEffect, useRef, type RefObject } from 'react';
import { drawScale, onTypeScale } from './scale';

export type Draw = (ctx: CanvasRenderingContext2D, w: number, h: number, dpr: number) => void;

export function useCanvas(draw: Draw, onWidth?: (px: number) => void): RefObject<HTMLCanvasElement | null> {
  const ref = useRef<HTMLCanvasElement>(null);
  const frame = useRef(0);
  const drawRef = useRef(draw);
  drawRef.current = draw;
  const widthRef = useRef(onWidth);
  widthRef.current = onWidth;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const paint = () => {
      frame.current = 0;
      const ctx = el.getContext('2d');
      if (ctx) drawRef.current(ctx, el.width, el.height, drawScale());
    };
    const schedule = () => {
      if (!frame.current) frame.current = requestAnimationFrame(paint);
    };
    const ro = new ResizeObserver(() => {
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(el.clientWidth * dpr));
      const h = Math.max(1, Math.round(el.clientHeight * dpr));
      if (el.width !== w || el.height !== h) {
        el.width = w;
        el.height = h;
      }
      widthRef.current?.(w);
      schedule();
    });
    ro.observe(el);
    el.addEventListener('redraw', schedule);
    const stopScale = onTypeScale(schedule);
    return () => {
      ro.disconnect();
      stopScale();
      el.removeEventListener('redraw', schedule);
      if (frame.current) cancelAnimationFrame(frame.current);
      frame.current = 0;
    };
  }, []);

  useEffect(() => {
    ref.current?.dispatchEvent(new Event('redraw'));
  }, [draw]);

  return ref;
}
