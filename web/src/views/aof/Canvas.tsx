import { memo, useCallback } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useCanvas, type Draw as CanvasDraw } from '../useCanvas';
import { designRem } from '../scale';

type Draw = (ctx: CanvasRenderingContext2D, v: AofView, w: number, h: number) => void;

/** A canvas of the AOF view, drawn in design pixels (CSS pixels at the
 *  normal type size; `height` is in them too): redrawn on the next animation
 *  frame after the view changes or the canvas resizes. */
export const ViewCanvas = memo(function ViewCanvas(props: { view: AofView; draw: Draw; height: number;
  testId: string; label: string }) {
  const { view, draw, height } = props;
  const paint = useCallback<CanvasDraw>((ctx, w, h, dpr) => {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw(ctx, view, w / dpr, h / dpr);
  }, [view, draw]);
  const ref = useCanvas(paint);
  return <canvas ref={ref} className="aof-canvas" style={{ height: designRem(height) }} data-testid={props.testId}
    role="img" aria-label={props.label} />;
});
