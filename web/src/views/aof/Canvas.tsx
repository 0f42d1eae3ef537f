import { memo, useEffect, useRef } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';

type Draw = (ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number) => void;

/** A canvas redrawn on the next animation frame after the view changes. */
export const ViewCanvas = memo(function ViewCanvas(props: { view: AofView; draw: Draw; height: number;
  testId: string; label: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const { view, draw, height } = props;
  useEffect(() => {
    const id = requestAnimationFrame(() => {
      const c = ref.current;
      if (!c) return;
      const dpr = window.devicePixelRatio || 1;
      const w = c.clientWidth;
      c.width = Math.round(w * dpr);
      c.height = Math.round(height * dpr);
      const ctx = c.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      draw(ctx, view, w, height);
    });
    return () => cancelAnimationFrame(id);
  }, [view, draw, height]);
  return <canvas ref={ref} className="aof-canvas" style={{ height }} data-testid={props.testId}
    role="img" aria-label={props.label} />;
});
